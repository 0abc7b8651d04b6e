// SPEC section 5: the seed's greedy best-fit slot walk, with exact figures.
#include <limits>

#include "support.hpp"

using test::capacities;
using test::f32;
using test::plan_ok;
using test::slot;

TEST_CASE("a chain: a node's output never takes its input's slot, the next one does") {
    ir::Builder b("chain");
    b.tensor("x", f32, {4}).tensor("a", f32, {4}).tensor("b", f32, {4}).tensor("c", f32, {4});
    b.input("x").node("A", {"x"}, {"a"}).node("B", {"a"}, {"b"}).node("C", {"b"}, {"c"}).output("c");
    const auto g = b.build();
    const auto p = plan_ok(g);
    CHECK(slot(g, p, "a") == 0);
    CHECK(slot(g, p, "b") == 1);
    CHECK(slot(g, p, "c") == 0);
    CHECK(slot(g, p, "x") == -1);
    CHECK(capacities(p) == std::vector<std::size_t>{16, 16});
    CHECK(p.slots[1].id == orm::SlotId{1});
    CHECK(p.peak_bytes == 32);
    CHECK(p.naive_bytes == 48);
    CHECK(p.num_slots() == 2);
    CHECK(p.savings_ratio() == 1.0 - 32.0 / 48.0);
    CHECK(p.assignments.size() == g.value_count());
}

TEST_CASE("best fit: the smallest free slot that fits, ties to the smallest id, slots never grow") {
    const auto g = test::best_fit_graph();
    const auto p = plan_ok(g);
    // p, q, r open slots 0-2 at node 0; s opens slot 3 (all busy); t takes the
    // 400-byte tie at the smaller id (0); u takes the other 400 (2), not 800 or 1200.
    CHECK(slot(g, p, "p") == 0);
    CHECK(slot(g, p, "q") == 1);
    CHECK(slot(g, p, "r") == 2);
    CHECK(slot(g, p, "s") == 3);
    CHECK(slot(g, p, "t") == 0);
    CHECK(slot(g, p, "u") == 2);
    CHECK(capacities(p) == std::vector<std::size_t>{400, 800, 400, 1200});
    CHECK(p.peak_bytes == 2800);
    CHECK(p.naive_bytes == 3600);
}

TEST_CASE("a need larger than every free slot opens a new slot of exactly that size") {
    ir::Builder b("grow");
    b.tensor("a", f32, {4}).tensor("b", f32, {4}).tensor("c", f32, {8});
    b.input("x").node("A", {"x"}, {"a"}).node("B", {"a"}, {"b"}).node("C", {"b"}, {"c"}).output("c");
    const auto g = b.build();
    const auto p = plan_ok(g);
    CHECK(slot(g, p, "c") == 2);  // slot 0 (16 bytes) is free but too small
    CHECK(capacities(p) == std::vector<std::size_t>{16, 16, 32});
}

TEST_CASE("graph outputs keep their slot to the end") {
    const auto build = [](bool o_is_output) {
        ir::Builder b("outputs");
        b.tensor("o", f32, {4}).tensor("b", f32, {4}).tensor("c", f32, {4});
        b.input("x").node("A", {"x"}, {"o"}).node("B", {"o"}, {"b"}).node("C", {"b"}, {"c"}).output("c");
        if (o_is_output) b.output("o");
        return b.build();
    };
    const auto g = build(true);
    const auto p = plan_ok(g);
    CHECK(slot(g, p, "c") == 2);
    CHECK(p.num_slots() == 3);
    const auto h = build(false);
    const auto q = plan_ok(h);
    CHECK(slot(h, q, "c") == 0);
    CHECK(q.num_slots() == 2);
}

TEST_CASE("views own no slot and keep their root's slot busy") {
    ir::Builder b("views");
    b.tensor("a", f32, {4}).tensor("v", f32, {2, 2}).tensor("b", f32, {4}).tensor("c", f32, {4});
    b.input("x").node("A", {"x"}, {"a"}).node("Reshape", {"a"}, {"v"}).node("B", {"v"}, {"b"});
    b.node("C", {"b"}, {"c"}).output("c");
    const auto g = b.build();
    orm::ViewMap views;
    views.insert(test::id(g, "v"), test::id(g, "a"));

    const auto p = plan_ok(g, views);
    CHECK(slot(g, p, "v") == -1);
    CHECK(slot(g, p, "a") == 0);
    CHECK(slot(g, p, "b") == 1);  // a is pinned by v until B has read it
    CHECK(slot(g, p, "c") == 0);
    CHECK(p.naive_bytes == 48);
    CHECK(p.peak_bytes == 32);

    const auto q = plan_ok(g);  // the same graph with v as a buffer of its own
    CHECK(slot(g, q, "v") == 1);
    CHECK(slot(g, q, "b") == 0);
    CHECK(slot(g, q, "c") == 1);
    CHECK(q.naive_bytes == 64);
}

TEST_CASE("included graph inputs are placed first and reused after their last reader") {
    ir::Builder b("inputs");
    b.tensor("x", f32, {4}).tensor("y", f32, {8}).tensor("a", f32, {4}).tensor("b", f32, {4});
    b.input("x").input("y").node("A", {"x", "y"}, {"a"}).node("B", {"a"}, {"b"}).output("b");
    const auto g = b.build();
    const orm::PlanOptions with_inputs{true};
    const auto p = plan_ok(g, {}, with_inputs);
    CHECK(slot(g, p, "x") == 0);
    CHECK(slot(g, p, "y") == 1);
    CHECK(slot(g, p, "a") == 2);
    CHECK(slot(g, p, "b") == 0);  // x and y retired after node 0: best fit is x's 16 bytes
    CHECK(capacities(p) == std::vector<std::size_t>{16, 32, 16});
    CHECK(p.naive_bytes == 80);
    CHECK(plan_ok(g).naive_bytes == 32);
}

TEST_CASE("zero-byte owners still take (or open) a slot") {
    ir::Builder b("zero");
    b.tensor("z", f32, {0}).tensor("a", f32, {4}).tensor("s", ElementType::string, {3});
    b.input("x").node("A", {"x"}, {"z"}).node("B", {"z"}, {"a"}).node("C", {"a"}, {"s"}).output("s");
    const auto g = b.build();
    const auto p = plan_ok(g);
    CHECK(slot(g, p, "z") == 0);
    CHECK(slot(g, p, "a") == 1);
    CHECK(slot(g, p, "s") == 0);  // strings count 0 bytes: best fit is the 0-byte slot
    CHECK(capacities(p) == std::vector<std::size_t>{0, 16});
}

TEST_CASE("nothing to plan: savings are exactly 0") {
    ir::Builder b("nothing");
    b.tensor("z", f32, {0}).input("x").node("A", {"x"}, {"z"}).output("z");
    const auto g = b.build();
    const auto p = plan_ok(g);
    CHECK(p.naive_bytes == 0);
    CHECK(p.peak_bytes == 0);
    CHECK(p.savings_ratio() == 0.0);
    CHECK(p.num_slots() == 1);
}

TEST_CASE("symbolic shapes defer, a run-time oracle completes the plan") {
    ir::Builder b("dynamic");
    b.tensor("x", f32, {"batch", 4}).tensor("a", f32, {"batch", 4}).tensor("b", f32, {2, 4});
    b.tensor("c", f32, {"batch", "n"});
    b.input("x").node("A", {"x"}, {"a"}).node("B", {"a"}, {"b"}).node("C", {"b"}, {"c"}).output("c");
    const auto g = b.build();
    auto deferred = orm::plan_activations_static(g, {});
    REQUIRE(deferred.has_value());
    REQUIRE(deferred->is_deferred());
    CHECK_FALSE(deferred->is_complete());
    CHECK(deferred->unknown_sizes() == std::vector<ValueId>{test::id(g, "a"), test::id(g, "c")});

    std::vector<ValueId> asked;
    const auto oracle = [&](ValueId v) -> std::optional<std::size_t> {
        asked.push_back(v);
        return orm::bounded_size(g, v, orm::SymbolBounds{{"batch", 3}, {"n", 5}});
    };
    auto status = orm::plan_activations(g, {}, oracle);
    REQUIRE(status.has_value());
    REQUIRE(status->is_complete());
    CHECK(asked == std::vector<ValueId>{test::id(g, "a"), test::id(g, "b"), test::id(g, "c")});  // once each, owner order
    CHECK(status->plan().naive_bytes == 48 + 32 + 60);
    CHECK(capacities(status->plan()) == std::vector<std::size_t>{48, 32, 60});  // c (60) fits no free slot
    CHECK(orm::validate(g, {}, status->plan(), oracle).has_value());
    CHECK(orm::validate_static(g, {}, status->plan()).has_value());  // unknown sizes skip the capacity check

    auto at = orm::peak_activation_bytes_at_bounds(g, {}, orm::SymbolBounds{{"batch", 3}, {"n", 5}});
    REQUIRE(at.has_value());
    CHECK(*at == std::optional<std::size_t>{140});
    auto unbound = orm::peak_activation_bytes_at_bounds(g, {}, orm::SymbolBounds{{"batch", 3}});
    REQUIRE(unbound.has_value());
    CHECK_FALSE(unbound->has_value());  // "none", never 0
}

TEST_CASE("a byte total that overflows is an error naming the owner") {
    const auto g = ir::Builder("big").input("x").node("A", {"x"}, {"a"}).node("B", {"a"}, {"b"}).output("b").build();
    const auto huge = [](ValueId) { return std::optional<std::size_t>(std::numeric_limits<std::size_t>::max() / 2 + 1); };
    auto status = orm::plan_activations(g, {}, huge);
    REQUIRE_FALSE(status.has_value());
    CHECK(status.error() == orm::PlanError{orm::PlanError::Kind::size_overflow, test::id(g, "b"), orm::no_node});
    // At the edge: the largest total that fits plans.
    const auto edge = [&](ValueId v) {
        return std::optional<std::size_t>(v == test::id(g, "a") ? std::numeric_limits<std::size_t>::max() - 1 : 1);
    };
    auto ok = orm::plan_activations(g, {}, edge);
    REQUIRE(ok.has_value());
    CHECK(ok->plan().naive_bytes == std::numeric_limits<std::size_t>::max());
    CHECK(ok->plan().peak_bytes == std::numeric_limits<std::size_t>::max());
}

TEST_CASE("planning is deterministic and planning from a kept liveness gives the same plan") {
    ir::Builder b("det");
    b.input("x");
    std::string prev = "x";
    // Names built with += : g++ 12 at -O2 warns falsely (-Wrestrict) on "v" + std::to_string(i).
    const auto name = [](int i) {
        std::string s = "v";
        s += std::to_string(i);
        return s;
    };
    for (int i = 0; i < 50; ++i) {
        const std::string v = name(i);
        b.tensor(v, f32, {static_cast<std::int64_t>(1 + (i * 37) % 11)});
        if (i % 5 == 4) b.node("Add", {prev, name(i - 3)}, {v});
        else b.node("Op", {prev}, {v});
        prev = v;
    }
    b.output(prev);
    const auto g = b.build();
    const auto p1 = plan_ok(g);
    const auto p2 = plan_ok(g);
    CHECK(p1 == p2);
    auto live = orm::compute_liveness(g, {});
    REQUIRE(live.has_value());
    auto from_live = orm::plan_activations(*live, orm::static_size_oracle(g));
    REQUIRE(from_live.has_value());
    CHECK(from_live->plan() == p1);
    CHECK(p1.peak_bytes <= p1.naive_bytes);
}

TEST_CASE("opt-in slot strategies: in-order with growth, greedy by size, by distance, the least") {
    // a 16 [0,1], b 16 [1,2], c 32 [2,2]: the seed opens a third slot for c;
    // with growth, a's free 16-byte slot grows to 32.
    ir::Builder b("grow");
    b.tensor("a", f32, {4}).tensor("b", f32, {4}).tensor("c", f32, {8});
    b.input("x").node("A", {"x"}, {"a"}).node("B", {"a"}, {"b"}).node("C", {"b"}, {"c"}).output("c");
    const auto g = b.build();
    auto live = orm::compute_liveness(g, {});
    const auto oracle = orm::static_size_oracle(g);
    auto seed = orm::plan_activations(*live, oracle);
    auto grown = orm::plan_activations(*live, oracle, orm::SlotStrategy::in_order_growth);
    CHECK(capacities(seed->plan()) == std::vector<std::size_t>{16, 16, 32});
    CHECK(capacities(grown->plan()) == std::vector<std::size_t>{32, 16});
    CHECK(slot(g, grown->plan(), "c") == 0);
    CHECK(orm::validate(g, {}, grown->plan(), oracle).has_value());
    CHECK(seed->plan() == plan_ok(g));  // the default is the seed's algorithm

    // Largest first: s 1200, q 800, p and r 400 each open slots; t [2,3] takes
    // the smallest free-in-time slot (p's, 400, the smaller id of the tie); u [3,3]
    // meets t, so it takes r's.
    const auto h = test::best_fit_graph();
    auto hl = orm::compute_liveness(h, {});
    auto by_size = orm::plan_activations(*hl, orm::static_size_oracle(h), orm::SlotStrategy::greedy_by_size);
    const auto& p = by_size->plan();
    CHECK(capacities(p) == std::vector<std::size_t>{1200, 800, 400, 400});
    CHECK(slot(h, p, "s") == 0);
    CHECK(slot(h, p, "t") == 2);
    CHECK(slot(h, p, "u") == 3);
    CHECK(p.peak_bytes == 2800);
    CHECK(orm::validate(h, {}, p, orm::static_size_oracle(h)).has_value());

    // By distance: the positional maximums are 1200, 800, 400, 400, so s
    // (position 0) opens slot 0, q (position 1) slot 1. Then t [2,3], one
    // position after q, joins q's slot (ties to the earlier owner: u [3,3]
    // is one after s too); u joins s's; p and r [0,1] meet everything and
    // open slots 2 and 3.
    auto by_distance = orm::plan_activations(*hl, orm::static_size_oracle(h), orm::SlotStrategy::greedy_by_distance);
    const auto& d = by_distance->plan();
    CHECK(capacities(d) == std::vector<std::size_t>{1200, 800, 400, 400});
    CHECK(slot(h, d, "s") == 0);
    CHECK(slot(h, d, "q") == 1);
    CHECK(slot(h, d, "t") == 1);
    CHECK(slot(h, d, "u") == 0);
    CHECK(slot(h, d, "p") == 2);
    CHECK(slot(h, d, "r") == 3);
    CHECK(orm::validate(h, {}, d, orm::static_size_oracle(h)).has_value());
    // The least of them: a tie at 2800 keeps the earliest, best fit.
    auto least = orm::plan_activations(*hl, orm::static_size_oracle(h), orm::SlotStrategy::least);
    CHECK(least->plan() == orm::plan_activations(*hl, orm::static_size_oracle(h))->plan());
}
