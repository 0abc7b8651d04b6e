// In-place reuse (PlanOptions::inplace): a hint is taken only when it is
// safe, both plans honour it, and validate checks it apart.
#include <optional>
#include <vector>

#include "support.hpp"

using orm::InplaceResult;
using test::f32;

namespace {

// x -> Relu -> a -> Sigmoid -> b -> Tanh -> c (output); 64 bytes each.
ir::Graph chain() {
    ir::Builder bld("chain");
    for (auto name : {"a", "b", "c"}) bld.tensor(name, f32, {16});
    bld.input("x").node("Relu", {"x"}, {"a"}).node("Sigmoid", {"a"}, {"b"}).node("Tanh", {"b"}, {"c"}).output("c");
    return bld.build();
}

}  // namespace

TEST_CASE("in place: a Relu -> Sigmoid -> Tanh chain stays one buffer wide") {
    const auto g = chain();
    const ValueId x = test::id(g, "x"), a = test::id(g, "a"), b = test::id(g, "b"), c = test::id(g, "c");
    const auto oracle = orm::static_size_oracle(g);
    orm::PlanOptions o;
    o.inplace = {{a, x}, {b, a}, {c, b}};
    auto why = orm::explain_inplace(g, {}, o);
    REQUIRE(why.has_value());
    CHECK(*why == std::vector<InplaceResult>{InplaceResult::input_not_owner, InplaceResult::taken, InplaceResult::taken});

    // Without hints: two buffers (a and b meet at Sigmoid, b and c at Tanh).
    CHECK(test::plan_ok(g, {}).peak_bytes == 128);
    CHECK(orm::plan_arena(g, {}, oracle)->plan().arena_bytes == 128);
    // With them: one, and both plans validate.
    const auto plan = test::plan_ok(g, {}, o);
    CHECK(plan.num_slots() == 1);
    CHECK(plan.peak_bytes == 64);
    CHECK(plan.naive_bytes == 192);  // one buffer per tensor, still
    auto arena = orm::plan_arena(g, {}, oracle, o);
    REQUIRE(arena.has_value());
    CHECK(arena->plan().arena_bytes == 64);
    CHECK(arena->plan().offsets[c] == arena->plan().offsets[a]);
    CHECK(orm::validate_arena(g, {}, arena->plan(), oracle, 64, o).has_value());
    auto live = orm::compute_liveness(g, {}, o);
    REQUIRE(live.has_value());
    CHECK(live->inplace == std::vector<ValueId>{b, c});
    CHECK(live->owners == std::vector<ValueId>{a});
    CHECK(live->intervals[a] == orm::Interval{0, 2});
    CHECK(orm::lower_bounds(*live, oracle)->offset_bytes == 64);
    const auto table = orm::placements(g, {}, arena->plan(), oracle, o);
    CHECK((*table)[c].kind == orm::ValueKind::inplace);
    CHECK((*table)[c].root == a);

    SECTION("validate checks the folds apart from the planner") {
        // The same plan without the hints: b and c have no buffer of their own.
        CHECK_FALSE(orm::validate(g, {}, plan, oracle).has_value());
        // A liveness claiming a fold no hint allows.
        auto forged = *live;
        auto r = orm::validate_liveness(g, {}, forged, orm::PlanOptions{});
        REQUIRE_FALSE(r.has_value());
        CHECK(r.error().kind == orm::ValidateError::Kind::bad_inplace);
        CHECK(r.error().value == b);
    }
}

TEST_CASE("in place: hints that are not safe are refused, each with its reason") {
    // x -> A -> a; B(a) -> b; C(a, b) -> c, d; D(c) -> e (output); w a weight.
    ir::Builder bld("unsafe");
    for (auto name : {"a", "b", "c", "d", "e", "r"}) bld.tensor(name, f32, {16});
    bld.input("x").weight("w").node("A", {"x", "w"}, {"a"}).node("B", {"a"}, {"b"});
    bld.node("C", {"a", "b"}, {"c", "d"}).node("Reshape", {"c"}, {"r"}).node("D", {"r"}, {"e"}).output("e");
    const auto g = bld.build();
    const auto id = [&](const char* n) { return test::id(g, n); };
    orm::ViewMap views;
    views.insert(id("r"), id("c"));
    orm::PlanOptions o;
    o.inplace = {
        {id("b"), id("a")},  // a is read again by C
        {id("a"), id("w")},  // a weight
        {id("c"), id("a")},  // taken: a dies at C
        {id("d"), id("a")},  // C's other output: a's bytes are taken
        {id("d"), id("x")},  // x is not an input of C
        {id("r"), id("c")},  // r is a view
        {id("e"), id("r")},  // taken: e into r's bytes, c's, now a's (c dies at D; e may be a graph output)
    };
    auto why = orm::explain_inplace(g, views, o);
    REQUIRE(why.has_value());
    CHECK(*why == std::vector<InplaceResult>{InplaceResult::input_read_later, InplaceResult::input_not_owner,
                                             InplaceResult::taken, InplaceResult::input_read_later,
                                             InplaceResult::not_an_input, InplaceResult::output_not_owner,
                                             InplaceResult::taken});
    const auto plan = test::plan_ok(g, views, o);  // validates
    CHECK(plan.slot_of(id("a")).has_value());
    CHECK_FALSE(plan.slot_of(id("e")).has_value());  // e lives in a's slot: c folded into a, then e into c
    CHECK(orm::compute_liveness(g, views, o)->roots[id("e")] == id("a"));

    // An input that is a graph output must survive: refused.
    ir::Builder out("out");
    for (auto name : {"a", "b"}) out.tensor(name, f32, {16});
    out.input("x").node("A", {"x"}, {"a"}).node("B", {"a"}, {"b"}).output("a").output("b");
    const auto g2 = out.build();
    orm::PlanOptions o2;
    o2.inplace = {{test::id(g2, "b"), test::id(g2, "a")}};
    CHECK(orm::explain_inplace(g2, {}, o2)->front() == InplaceResult::input_is_graph_output);
}

TEST_CASE("in place: a larger output grows the shared buffer, the re-planners fold as the planners do") {
    ir::Builder bld("grow");
    bld.tensor("a", f32, {16}).tensor("b", f32, {32}).tensor("c", f32, {16});
    bld.input("x").node("A", {"x"}, {"a"}).node("B", {"a"}, {"b"}).node("C", {"b"}, {"c"}).output("c");
    const auto g = bld.build();
    const ValueId a = test::id(g, "a"), b = test::id(g, "b");
    const auto oracle = orm::static_size_oracle(g);
    orm::PlanOptions o;
    o.inplace = {{b, a}};
    const auto plan = test::plan_ok(g, {}, o);
    CHECK(plan.slots[plan.slot_of(a)->value].capacity == 128);  // b's 128 bytes, not a's 64
    auto arena = orm::plan_arena(g, {}, oracle, o);
    REQUIRE(arena.has_value());
    CHECK(orm::validate_arena(g, {}, arena->plan(), oracle, 64, o).has_value());
    auto planner = orm::ArenaPlanner::create(g, {}, o);
    orm::ArenaPlan again;
    REQUIRE(planner->plan(oracle, again).has_value());
    CHECK(again == arena->plan());
    auto slots = orm::ActivationPlanner::create(g, {}, o);
    orm::ActivationPlan replanned;
    REQUIRE(slots->plan(oracle, replanned).has_value());
    CHECK(replanned == plan);
}

TEST_CASE("in place: a fold whose input is read later is refused by validate, whatever the liveness claims") {
    // The same values twice: in `legal` nothing reads a after B; in `later`, D reads it again.
    const auto build = [](bool read_later) {
        ir::Builder bld(read_later ? "later" : "legal");
        for (auto name : {"a", "b", "c", "d"}) bld.tensor(name, f32, {16});
        bld.input("x").node("A", {"x"}, {"a"}).node("B", {"a"}, {"b"}).node("C", {"b"}, {"c"});
        if (read_later) bld.node("D", {"c", "a"}, {"d"});
        else bld.node("D", {"c"}, {"d"});
        return bld.output("d").build();
    };
    const auto legal = build(false), later = build(true);
    orm::PlanOptions o;
    o.inplace = {{test::id(legal, "b"), test::id(legal, "a")}};
    auto live = orm::compute_liveness(legal, {}, o);
    REQUIRE(live.has_value());
    REQUIRE(live->inplace == std::vector<ValueId>{test::id(legal, "b")});
    CHECK(orm::validate_liveness(legal, {}, *live, o).has_value());
    REQUIRE(test::id(later, "a") == test::id(legal, "a"));
    auto r = orm::validate_liveness(later, {}, *live, o);  // a is read by D: b may not take its bytes
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().kind == orm::ValidateError::Kind::bad_inplace);
    CHECK(r.error().value == test::id(later, "b"));
    CHECK(r.error().other == test::id(later, "a"));
    CHECK(orm::explain_inplace(later, {}, o)->front() == InplaceResult::input_read_later);
}
