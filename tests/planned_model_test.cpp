// The executor contract, round 2: the re-planners honour every policy, and
// PlannedModel re-plans one model per request with its tables updated in
// place, exactly as the free functions plan each request.
#include <algorithm>
#include <optional>
#include <span>
#include <type_traits>
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

TEST_CASE("PlannedModel: per request, the arena, placements and scratch tables the free functions give") {
    const auto g = nonzero_graph();
    const auto views = nonzero_views(g);
    orm::PlanOptions o;
    o.unknown_sizes = orm::UnknownSizes::dynamic;
    o.outputs = orm::OutputPlacement::external;
    o.include_graph_inputs = true;
    o.pinned = {{test::id(g, "x"), 0}};  // the input where the caller's data already is
    o.inplace = {{test::id(g, "y"), test::id(g, "a")}};
    o.scratch_bytes = {0, 0, 0, 0, 0, 0, 32};
    auto model = orm::PlannedModel::create(g, views, o);
    REQUIRE(model.has_value());
    const std::vector<orm::ValuePlacement>* table = &model->placements();
    for (std::size_t batch : {1u, 8u, 3u}) {
        orm::SymbolBounds bounds;
        bounds.set("batch", batch);
        const auto oracle = orm::bounded_size_oracle(g, bounds);
        const std::vector<std::size_t> scratch = {0, 0, 0, 0, 0, 0, 16 * batch};  // grows with the batch
        auto outcome = model->plan(oracle, scratch);
        REQUIRE(outcome.has_value());
        REQUIRE(*outcome == orm::PlannedModel::Outcome::complete);
        auto request = o;
        request.scratch_bytes = scratch;
        auto expected = orm::plan_arena(g, views, oracle, request);
        REQUIRE(expected.has_value());
        CHECK(model->arena() == expected->plan());
        CHECK(model->placements() == *orm::placements(g, views, expected->plan(), oracle, request));
        CHECK(&model->placements() == table);  // updated in place
        REQUIRE(model->scratch().size() == 1);
        CHECK(model->scratch()[0].node == 6);
        CHECK(model->scratch()[0].bytes == 16 * batch);
        CHECK(model->scratch()[0].offset == expected->plan().scratch_offsets[6]);
        CHECK(model->validate(g, oracle).has_value());
        const auto& p = model->placements();
        CHECK(p[test::id(g, "nz")].kind == ValueKind::dynamic);
        CHECK(p[test::id(g, "g")].kind == ValueKind::dynamic);
        CHECK(p[test::id(g, "x")].offset == 0);  // pinned
        CHECK(p[test::id(g, "z")].kind == ValueKind::graph_output);
        CHECK(p[test::id(g, "z")].offset == orm::no_offset);
        CHECK(p[test::id(g, "r")].kind == ValueKind::view);
        CHECK(p[test::id(g, "r")].offset == p[test::id(g, "a")].offset);
        CHECK(model->unknown_sizes() == std::vector<ValueId>{test::id(g, "nz"), test::id(g, "g")});
    }
    // Scratch for a node the graph lacks names it.
    const std::vector<std::size_t> past(9, 4);
    auto bad = model->plan(orm::static_size_oracle(g), past);
    REQUIRE_FALSE(bad.has_value());
    CHECK(bad.error() == orm::make_plan_error(PlanError::Kind::bad_scratch, orm::no_value, 7));
}

// The planners hold their strategies' working memory behind a handle (so
// that the compiled core can hide it); they still copy, each copy with
// working memory of its own, and plan as the original does.
static_assert(std::is_copy_constructible_v<orm::PlannedModel> && std::is_copy_assignable_v<orm::PlannedModel>);
static_assert(std::is_copy_constructible_v<orm::ArenaPlanner> && std::is_copy_assignable_v<orm::ArenaPlanner>);
TEST_CASE("PlannedModel: a copy plans as the original, each request after the copy") {
    const auto g = nonzero_graph();
    const auto views = nonzero_views(g);
    orm::PlanOptions o;
    o.unknown_sizes = orm::UnknownSizes::dynamic;
    o.scratch_bytes = {0, 0, 0, 0, 0, 0, 32};
    auto model = orm::PlannedModel::create(g, views, o);
    REQUIRE(model.has_value());
    const auto sized = [&](std::size_t batch) {  // an oracle that holds its bounds
        return [&g, batch](orm::ValueId v) {
            orm::SymbolBounds bounds;
            bounds.set("batch", batch);
            return orm::bounded_size_oracle(g, bounds)(v);
        };
    };
    REQUIRE(model->plan(sized(8)).has_value());
    orm::PlannedModel copy = *model;
    CHECK(copy.arena() == model->arena());
    for (std::size_t batch : {3u, 16u}) {
        REQUIRE(model->plan(sized(batch)).has_value());
        REQUIRE(copy.plan(sized(batch)).has_value());
        CHECK(copy.arena() == model->arena());
        CHECK(copy.placements() == model->placements());
        CHECK(copy.validate(g, sized(batch)).has_value());
    }
    copy = *model;  // assigned: keeps working memory of its own
    REQUIRE(copy.plan(sized(5)).has_value());
    REQUIRE(model->plan(sized(5)).has_value());
    CHECK(copy.arena() == model->arena());
}

TEST_CASE("PlannedModel: in a given order, scratch is by node id, as the executor numbers its nodes") {
    // Two branches; the order runs B's pair first. Scratch asked for node 1
    // (ReduceA, by id) lands where node 1 runs: position 3.
    ir::Builder b("branches");
    for (auto name : {"a", "ra", "b", "rb", "y"}) b.tensor(name, f32, {64});
    b.input("x").node("ProduceA", {"x"}, {"a"}).node("ReduceA", {"a"}, {"ra"});
    b.node("ProduceB", {"x"}, {"b"}).node("ReduceB", {"b"}, {"rb"}).node("Join", {"ra", "rb"}, {"y"}).output("y");
    const auto g = b.build();
    const std::vector<orm::NodeIndex> order = {2, 3, 0, 1, 4};
    orm::PlanOptions o;
    o.scratch_bytes = {0, 100};  // node 1
    auto model = orm::PlannedModel::create(g, {}, o, {}, order);
    REQUIRE(model.has_value());
    const auto oracle = orm::static_size_oracle(g);
    REQUIRE(model->plan(oracle) == orm::PlannedModel::Outcome::complete);
    REQUIRE(model->scratch().size() == 1);
    CHECK(model->scratch()[0].node == 1);
    auto ordered = orm::in_order(g, order);
    orm::PlanOptions by_position;
    by_position.scratch_bytes = {0, 0, 0, 100, 0};
    auto expected = orm::plan_arena(*ordered, {}, oracle, by_position);
    REQUIRE(expected.has_value());
    CHECK(model->arena() == expected->plan());
    CHECK(model->scratch()[0].offset == expected->plan().scratch_offsets[3]);
    CHECK(model->validate(g, oracle).has_value());
    // A bad order is the error in_order gives.
    auto bad = orm::PlannedModel::create(g, {}, o, {}, {0, 1, 2, 3, 3});
    REQUIRE_FALSE(bad.has_value());
    CHECK(bad.error().kind == PlanError::Kind::bad_order);
}

TEST_CASE("PlannedModel: a deferred request keeps the last plan, and validate reads the options held") {
    const auto g = nonzero_graph();
    const auto views = nonzero_views(g);
    auto model = orm::PlannedModel::create(g, views);  // unknown sizes defer
    REQUIRE(model.has_value());
    const orm::SymbolBounds known{{"batch", 2}, {"unk__0", 5}}, batch_only{{"batch", 2}};
    const auto oracle = orm::bounded_size_oracle(g, known);
    REQUIRE(model->plan(oracle) == orm::PlannedModel::Outcome::complete);
    const orm::ArenaPlan before = model->arena();
    const auto unknown = orm::bounded_size_oracle(g, batch_only);
    REQUIRE(model->plan(unknown) == orm::PlannedModel::Outcome::deferred);
    CHECK(model->unknown_sizes() == std::vector<ValueId>{test::id(g, "nz"), test::id(g, "g")});
    CHECK(model->arena() == before);
    CHECK(model->validate(g, oracle).has_value());
}

TEST_CASE("placements and validate_arena with other options than the plan's say so") {
    // Before: placements without the options succeeded and called the
    // external output an owner with no offset (an executor binding by kind
    // dereferenced no_offset); validate_arena said only that the
    // dynamic_values differ.
    const auto g = nonzero_graph();
    const auto views = nonzero_views(g);
    const orm::SymbolBounds bounds{{"batch", 2}};
    const auto oracle = orm::bounded_size_oracle(g, bounds);
    orm::PlanOptions o;
    o.outputs = orm::OutputPlacement::external;
    o.unknown_sizes = orm::UnknownSizes::dynamic;
    auto arena = orm::plan_arena(g, views, oracle, o);
    REQUIRE(arena.has_value());
    auto table = orm::placements(g, views, arena->plan(), oracle);  // options forgotten
    REQUIRE_FALSE(table.has_value());
    CHECK(table.error() == orm::make_plan_error(PlanError::Kind::plan_mismatch, test::id(g, "y")));
    CHECK(table.error().message().find("was the plan made with other PlanOptions") != std::string::npos);
    auto slots = orm::plan_activations(g, views, oracle, o);
    CHECK(orm::placements(g, views, slots->plan(), oracle).error().kind == PlanError::Kind::plan_mismatch);
    CHECK(orm::placements(g, views, arena->plan(), oracle, o).has_value());
    auto r = orm::validate_arena(g, views, arena->plan(), oracle, 64);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().kind == orm::ValidateError::Kind::wrong_dynamic_values);
    CHECK(r.error().message().find("other PlanOptions") != std::string::npos);
}
