// The executor contract, round 2: the re-planners honour every policy, and
// PlannedModel re-plans one model per request with its tables updated in
// place, exactly as the free functions plan each request.
#include <algorithm>
#include <optional>
#include <span>
#include <vector>

#include "support.hpp"

using orm::PlanError;
using orm::ValueKind;
using test::f32;

namespace {

// x -> Relu -> a -> NonZero -> nz (data-dependent) -> Gather(a, nz) -> g
// -> ReduceSum -> s -> Mul(a, s) -> y (output); a Reshape view r of a read
// by Softmax (scratch) -> z (output).
ir::Graph nonzero_graph() {
    ir::Builder b("nonzero");
    b.tensor("x", f32, {"batch", 8}).tensor("a", f32, {"batch", 8}).tensor("nz", ElementType::int64, {2, "unk__0"});
    b.tensor("g", f32, {"unk__0"}).tensor("s", f32, {1}).tensor("y", f32, {"batch", 8});
    b.tensor("r", f32, {"batch", 8}).tensor("z", f32, {"batch", 8});
    b.input("x").node("Relu", {"x"}, {"a"}).node("NonZero", {"a"}, {"nz"}).node("Gather", {"a", "nz"}, {"g"});
    b.node("ReduceSum", {"g"}, {"s"}).node("Mul", {"a", "s"}, {"y"}).node("Reshape", {"a"}, {"r"});
    b.node("Softmax", {"r"}, {"z"}).output("y").output("z");
    return b.build();
}

orm::ViewMap nonzero_views(const ir::Graph& g) {
    orm::ViewMap views;
    views.insert(test::id(g, "r"), test::id(g, "a"));
    return views;
}

}  // namespace

TEST_CASE("the re-planners honour UnknownSizes::dynamic: every request plans as the free functions do") {
    // Before: ArenaPlanner and ActivationPlanner took the dynamic policy at
    // create and then deferred at the first NonZero output.
    const auto g = nonzero_graph();
    const auto views = nonzero_views(g);
    orm::PlanOptions o;
    o.unknown_sizes = orm::UnknownSizes::dynamic;
    o.scratch_bytes = {0, 0, 0, 0, 0, 0, 32};
    auto arena_planner = orm::ArenaPlanner::create(g, views, o);
    auto slot_planner = orm::ActivationPlanner::create(g, views, o);
    REQUIRE(arena_planner.has_value());
    REQUIRE(slot_planner.has_value());
    for (std::size_t batch : {1u, 4u, 2u}) {
        orm::SymbolBounds bounds;
        bounds.set("batch", batch);
        const auto oracle = orm::bounded_size_oracle(g, bounds);
        orm::ArenaPlan arena;
        auto outcome = arena_planner->plan(oracle, arena);
        REQUIRE(outcome.has_value());
        CHECK(*outcome == orm::ArenaPlanner::Outcome::complete);
        auto expected_arena = orm::plan_arena(g, views, oracle, o);
        REQUIRE(expected_arena.has_value());
        CHECK(arena == expected_arena->plan());
        CHECK(arena.dynamic_values == std::vector<ValueId>{test::id(g, "nz"), test::id(g, "g")});
        CHECK(orm::validate_arena(g, views, arena, oracle, 64, o).has_value());
        orm::ActivationPlan slots;
        REQUIRE(slot_planner->plan(oracle, slots).has_value());
        CHECK(slots == orm::plan_activations(g, views, oracle, o)->plan());
        CHECK(orm::validate(g, views, slots, oracle, o).has_value());
    }
    // A request's own scratch (by position) replaces the options'.
    const orm::SymbolBounds three{{"batch", 3}};
    const auto oracle = orm::bounded_size_oracle(g, three);
    const std::vector<std::size_t> more = {0, 0, 0, 0, 0, 0, 96};
    orm::ArenaPlan arena;
    REQUIRE(arena_planner->plan(oracle, more, arena).has_value());
    auto with_more = o;
    with_more.scratch_bytes = more;
    CHECK(arena == orm::plan_arena(g, views, oracle, with_more)->plan());
}
