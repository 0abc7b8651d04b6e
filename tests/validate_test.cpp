// SPEC section 6: validate rejects every corrupted plan with the right
// error, the first violation in a fixed order.
#include "support.hpp"

using orm::ValidateError;
using test::f32;
using Kind = ValidateError::Kind;

namespace {

// x -> A -> a -> B -> b -> C -> c (output); a, c share slot 0, b has slot 1.
ir::Graph chain() {
    ir::Builder b("chain");
    b.tensor("a", f32, {4}).tensor("b", f32, {4}).tensor("c", f32, {4});
    b.input("x").node("A", {"x"}, {"a"}).node("B", {"a"}, {"b"}).node("C", {"b"}, {"c"}).output("c");
    return b.build();
}

ValidateError rejected(const ir::Graph& g, const orm::ActivationPlan& p, const orm::ViewMap& views = {}) {
    auto r = orm::validate_static(g, views, p);
    REQUIRE_FALSE(r.has_value());
    CHECK_FALSE(r.error().message().empty());
    return r.error();
}

}  // namespace

TEST_CASE("validate: every corruption is caught with its own error") {
    const auto g = chain();
    const auto good = test::plan_ok(g);
    const ValueId a = test::id(g, "a"), b = test::id(g, "b"), c = test::id(g, "c");
    REQUIRE(good.assignments[a].value == 0);
    REQUIRE(good.assignments[c].value == 0);

    SECTION("a missing assignment") {
        auto p = good;
        p.assignments[b] = orm::SlotId::none();
        const auto e = rejected(g, p);
        CHECK(e.kind == Kind::missing_assignment);
        CHECK(e.value == b);
        auto short_plan = good;
        short_plan.assignments.resize(c);  // c falls off the end
        CHECK(rejected(g, short_plan).kind == Kind::missing_assignment);
    }
    SECTION("a slot the plan does not have") {
        auto p = good;
        p.assignments[b] = orm::SlotId{7};
        const auto e = rejected(g, p);
        CHECK(e.kind == Kind::unknown_slot);
        CHECK(e.value == b);
        CHECK(e.slot == orm::SlotId{7});
    }
    SECTION("a slot one byte too small") {
        auto p = good;
        p.slots[0].capacity -= 1;
        p.peak_bytes -= 1;
        const auto e = rejected(g, p);
        CHECK(e.kind == Kind::undersized_slot);
        CHECK(e.value == a);  // the first owner of slot 0 in owner order
        CHECK(e.size == 16);
        CHECK(e.capacity == 15);
        CHECK(e.message() == "owner value 0 needs 16 bytes but slot 0 holds 15");
    }
    SECTION("two live values in one slot") {
        auto p = good;
        p.assignments[b] = orm::SlotId{0};
        const auto e = rejected(g, p);
        CHECK(e.kind == Kind::slot_conflict);
        CHECK(e.value == a);  // a [0,1] meets b [1,2] at node 1: touching counts
        CHECK(e.other == b);
        CHECK(e.slot == orm::SlotId{0});
    }
    SECTION("the plan's totals and slot table are checked, not believed") {
        auto p = good;
        p.peak_bytes -= 1;  // an executor allocating peak_bytes would come up one byte short
        auto e = rejected(g, p);
        CHECK(e.kind == Kind::wrong_peak_bytes);
        CHECK(e.size == 32);
        CHECK(e.capacity == 31);
        CHECK(e.message() == "peak_bytes is 31 but the slots' capacities add up to 32");
        p = good;
        p.peak_bytes += 1;
        CHECK(rejected(g, p).kind == Kind::wrong_peak_bytes);
        p = good;
        p.slots[0].capacity = SIZE_MAX;  // the capacities' total overflows: no peak_bytes can equal it
        p.peak_bytes = SIZE_MAX;
        CHECK(rejected(g, p).kind == Kind::wrong_peak_bytes);
        p = good;
        p.naive_bytes = 47;
        e = rejected(g, p);
        CHECK(e.kind == Kind::wrong_naive_bytes);
        CHECK(e.size == 48);
        p = good;
        std::swap(p.slots[0], p.slots[1]);  // out of id order
        e = rejected(g, p);
        CHECK(e.kind == Kind::bad_slot_table);
        CHECK(e.size == 0);
        CHECK(e.slot == orm::SlotId{1});
        p = good;
        p.slots[1].id = orm::SlotId{0};  // slot 0 twice
        CHECK(rejected(g, p).kind == Kind::bad_slot_table);
        p = good;
        p.slots.push_back(orm::SlotInfo{orm::SlotId{2}, 0});  // an unused empty slot is harmless
        CHECK(orm::validate_static(g, {}, p).has_value());
    }
    SECTION("an invalid graph") {
        auto broken = g;
        broken.add_node("Z", std::vector<ValueId>{42}, std::vector<ValueId>{});
        const auto e = rejected(broken, good);
        CHECK(e.kind == Kind::plan_error);
        CHECK(e.plan_error.kind == orm::PlanError::Kind::value_out_of_range);
    }
    SECTION("the first violation is reported, always the same one") {
        auto p = good;
        p.assignments[b] = orm::SlotId{0};       // a conflict (step 2) ...
        p.assignments[c] = orm::SlotId::none();  // ... and a missing slot (step 1)
        CHECK(rejected(g, p).kind == Kind::missing_assignment);
        p.assignments[a] = orm::SlotId::none();
        CHECK(rejected(g, p).value == a);  // owner order
        CHECK(rejected(g, p) == rejected(g, p));
    }
    SECTION("assignments of non-owners are ignored") {
        auto p = good;
        p.assignments[test::id(g, "x")] = orm::SlotId{0};
        CHECK(orm::validate_static(g, {}, p).has_value());
    }
    SECTION("a plan made without graph inputs misses them when they are included") {
        auto r = orm::validate_static(g, {}, good, orm::PlanOptions{true});
        REQUIRE_FALSE(r.has_value());
        CHECK(r.error().kind == Kind::missing_assignment);
        CHECK(r.error().value == test::id(g, "x"));
    }
}

TEST_CASE("validate: the conflict reported is the first pair in owner order") {
    // Four owners in one slot on purpose: p [0,3], q [1,1], r [2,2], s [3,3].
    ir::Builder bld("pairs");
    for (auto name : {"p", "q", "r", "s"}) bld.tensor(name, f32, {1});
    bld.input("x").node("P", {"x"}, {"p"}).node("Q", {"x"}, {"q"}).node("R", {"x"}, {"r"});
    bld.node("S", {"p"}, {"s"}).output("s");
    const auto g = bld.build();
    const auto good = test::plan_ok(g);
    auto p = good;
    for (auto name : {"p", "q", "r", "s"}) p.assignments[test::id(g, name)] = orm::SlotId{0};
    p.slots.resize(1);
    p.peak_bytes = p.slots[0].capacity;
    p.naive_bytes = 0;  // the sizes below
    auto e = orm::validate(g, {}, p, [](ValueId) { return std::optional<std::size_t>(0); });
    REQUIRE_FALSE(e.has_value());
    CHECK(e.error().kind == Kind::slot_conflict);
    CHECK(e.error().value == test::id(g, "p"));
    CHECK(e.error().other == test::id(g, "q"));
    // With p in a slot of its own, q [1,1], r [2,2] and s [3,3] share slot 0 safely.
    p.assignments[test::id(g, "p")] = orm::SlotId{1};
    p.slots.push_back(orm::SlotInfo{orm::SlotId{1}, 0});
    CHECK(orm::validate(g, {}, p, [](ValueId) { return std::optional<std::size_t>(0); }).has_value());
}

TEST_CASE("validate_liveness: a liveness that lets a view outlive its source is caught") {
    ir::Builder b("views");
    b.input("x").node("A", {"x"}, {"a"}).node("Reshape", {"a"}, {"v"}).node("B", {"v"}, {"b"}).output("b");
    const auto g = b.build();
    orm::ViewMap views;
    views.insert(test::id(g, "v"), test::id(g, "a"));
    auto live = orm::compute_liveness(g, views);
    REQUIRE(live.has_value());
    CHECK(orm::validate_liveness(g, views, *live).has_value());

    auto stale = *live;
    stale.intervals[test::id(g, "a")].use_end = 1;  // as if v's read at node 2 were not folded
    auto e = orm::validate_liveness(g, views, stale);
    REQUIRE_FALSE(e.has_value());
    CHECK(e.error().kind == Kind::view_outlives_source);
    CHECK(e.error().value == test::id(g, "v"));
    CHECK(e.error().other == test::id(g, "a"));
    CHECK(e.error().node == 2);

    auto cut = *live;
    cut.intervals[test::id(g, "b")].use_end = 1;  // ends before it begins: not a liveness at all
    auto o = orm::validate_liveness(g, views, cut);
    REQUIRE_FALSE(o.has_value());
    CHECK(o.error().kind == Kind::plan_error);
    CHECK(o.error().plan_error.kind == orm::PlanError::Kind::bad_liveness);
    CHECK(o.error().plan_error.value == test::id(g, "b"));

    // A plan made from the stale liveness puts b into a's slot; validate,
    // which recomputes liveness, catches it.
    const auto eight = [](ValueId) { return std::optional<std::size_t>(8); };
    auto worse = orm::plan_activations(stale, eight);
    REQUIRE(worse.has_value());
    CHECK(worse->plan().slot_of(test::id(g, "b")) == worse->plan().slot_of(test::id(g, "a")));
    auto r = orm::validate(g, views, worse->plan(), eight);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().kind == Kind::slot_conflict);
}

TEST_CASE("validate_liveness: an output retired before the end is caught") {
    ir::Builder b("early");
    b.input("x").node("A", {"x"}, {"a"}).node("B", {"x"}, {"b"}).output("a").output("b");
    const auto g = b.build();
    auto live = orm::compute_liveness(g, {});
    REQUIRE(live.has_value());
    auto cut = *live;
    cut.intervals[test::id(g, "a")].use_end = 0;  // a is an output: it must live to node 1
    auto e = orm::validate_liveness(g, {}, cut);
    REQUIRE_FALSE(e.has_value());
    CHECK(e.error().kind == Kind::view_outlives_source);
    CHECK(e.error().value == test::id(g, "a"));
    CHECK(e.error().node == 1);
}
