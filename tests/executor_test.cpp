// The executor contract: graph outputs outside the arena, values of unknown
// size planned around (dynamic), and the placement table an executor binds
// every value from.
#include <optional>
#include <vector>

#include "support.hpp"

using orm::ValueKind;
using test::f32;

namespace {

// x -> A -> a -> B -> b -> Reshape -> y (output, a view of b); A also writes
// z, which nobody reads. 64 bytes each.
ir::Graph outputs_graph() {
    ir::Builder bld("outs");
    for (auto name : {"a", "b", "z"}) bld.tensor(name, f32, {16});
    bld.input("x").weight("w").node("A", {"x", "w"}, {"a", "z"}).node("B", {"a"}, {"b"});
    bld.node("Reshape", {"b"}, {"y"}).output("y");
    return bld.build();
}

orm::ViewMap y_views_b(const ir::Graph& g) {
    orm::ViewMap views;
    views.insert(test::id(g, "y"), test::id(g, "b"));
    return views;
}

}  // namespace

TEST_CASE("outputs outside the arena: an output and what it aliases are not planned") {
    const auto g = outputs_graph();
    const auto views = y_views_b(g);
    const auto oracle = orm::static_size_oracle(g);
    orm::PlanOptions external;
    external.outputs = orm::OutputPlacement::external;

    const auto in_arena = test::plan_ok(g, views);  // the default: b (y's bytes) is in the arena
    CHECK(test::slot(g, in_arena, "b") >= 0);
    CHECK(in_arena.naive_bytes == 192);

    const auto plan = test::plan_ok(g, views, external);
    CHECK(test::slot(g, plan, "b") == -1);  // y's root: allocated by the executor
    CHECK(test::slot(g, plan, "a") >= 0);
    CHECK(plan.naive_bytes == 128);  // a and z
    auto live = orm::compute_liveness(g, views, external);
    CHECK_FALSE(live->is_owner(test::id(g, "b")));

    auto arena = orm::plan_arena(g, views, oracle, external);
    REQUIRE(arena.has_value());
    CHECK_FALSE(arena->plan().offset_of(test::id(g, "b")).has_value());
    CHECK_FALSE(arena->plan().offset_of(test::id(g, "y")).has_value());
    CHECK(orm::validate_arena(g, views, arena->plan(), oracle, 64, external).has_value());

    const auto table = orm::placements(g, views, plan, oracle, external);
    REQUIRE(table.has_value());
    CHECK((*table)[test::id(g, "b")].kind == ValueKind::graph_output);
    CHECK((*table)[test::id(g, "y")].kind == ValueKind::view);
    CHECK((*table)[test::id(g, "y")].root == test::id(g, "b"));
    CHECK((*table)[test::id(g, "y")].slot.is_none());
    // A plan that keeps b in the arena does not pass as one with outputs outside: it places b.
    const auto placed = orm::validate(g, views, in_arena, oracle, external);
    REQUIRE_FALSE(placed.has_value());
    CHECK(placed.error().kind == orm::ValidateError::Kind::external_placed);
    CHECK(placed.error().value == test::id(g, "b"));
}

TEST_CASE("dynamic values: the rest is planned, they share memory with nothing") {
    // A NonZero-like node writes nz (size known only at run time); a Slice
    // views it; the rest is static. 64 bytes each where known.
    ir::Builder bld("dyn");
    for (auto name : {"a", "c", "d"}) bld.tensor(name, f32, {16});
    bld.tensor("nz", ElementType::int64, {"n"});
    bld.input("x").node("A", {"x"}, {"a"}).node("NonZero", {"a"}, {"nz"}).node("Slice", {"nz"}, {"s"});
    bld.node("C", {"s", "a"}, {"c"}).node("D", {"c"}, {"d"}).output("d");
    const auto g = bld.build();
    orm::ViewMap views;
    views.insert(test::id(g, "s"), test::id(g, "nz"));
    const auto oracle = orm::static_size_oracle(g);
    const ValueId nz = test::id(g, "nz"), s = test::id(g, "s");

    auto deferred = orm::plan_activations(g, views, oracle);  // the default still defers
    REQUIRE(deferred.has_value());
    CHECK(deferred->is_deferred());
    CHECK(deferred->unknown_sizes() == std::vector<ValueId>{nz});

    orm::PlanOptions dynamic;
    dynamic.unknown_sizes = orm::UnknownSizes::dynamic;
    auto status = orm::plan_activations(g, views, oracle, dynamic);
    REQUIRE(status.has_value());
    REQUIRE(status->is_complete());
    const auto& plan = status->plan();
    CHECK(plan.dynamic_values == std::vector<ValueId>{nz});
    CHECK_FALSE(plan.slot_of(nz).has_value());
    CHECK(plan.naive_bytes == 192);  // a, c, d
    CHECK(orm::validate(g, views, plan, oracle, dynamic).has_value());

    auto arena = orm::plan_arena(g, views, oracle, dynamic);
    REQUIRE(arena.has_value());
    REQUIRE(arena->is_complete());
    CHECK(arena->plan().dynamic_values == std::vector<ValueId>{nz});
    CHECK_FALSE(arena->plan().offset_of(nz).has_value());
    CHECK_FALSE(arena->plan().offset_of(s).has_value());
    CHECK(orm::validate_arena(g, views, arena->plan(), oracle, 64, dynamic).has_value());

    const auto table = orm::placements(g, views, arena->plan(), oracle, dynamic);
    REQUIRE(table.has_value());
    CHECK((*table)[nz].kind == ValueKind::dynamic);
    CHECK((*table)[s].kind == ValueKind::view);
    CHECK((*table)[s].root == nz);
    CHECK((*table)[s].offset == orm::no_offset);
    CHECK_FALSE((*table)[nz].bytes.has_value());

    SECTION("validate believes nothing about the dynamic values") {
        auto p = plan;
        p.dynamic_values.clear();  // the executor would not allocate nz
        auto r = orm::validate(g, views, p, oracle, dynamic);
        REQUIRE_FALSE(r.has_value());
        CHECK(r.error().kind == orm::ValidateError::Kind::wrong_dynamic_values);
        CHECK(r.error().value == nz);
        p = plan;
        p.assignments[nz] = orm::SlotId{0};  // a dynamic value in a planned slot
        r = orm::validate(g, views, p, oracle, dynamic);
        REQUIRE_FALSE(r.has_value());
        CHECK(r.error().kind == orm::ValidateError::Kind::dynamic_placed);
        auto a = arena->plan();
        a.offsets[s] = 0;  // a view of a dynamic value inside the arena
        auto ra = orm::validate_arena(g, views, a, oracle, 64, dynamic);
        REQUIRE_FALSE(ra.has_value());
        CHECK(ra.error().kind == orm::ValidateError::Kind::dynamic_placed);
        CHECK(ra.error().value == s);
        // A plan made with dynamic values does not validate as a deferring one, nor the reverse.
        CHECK(orm::validate(g, views, plan, oracle).error().kind == orm::ValidateError::Kind::wrong_dynamic_values);
    }
    SECTION("an overflowing total of the known sizes is still an error") {
        auto huge = [&](ValueId v) -> std::optional<std::size_t> {
            if (v == nz) return std::nullopt;
            return SIZE_MAX / 2;
        };
        auto r = orm::plan_activations(g, views, huge, dynamic);
        REQUIRE_FALSE(r.has_value());
        CHECK(r.error().kind == orm::PlanError::Kind::size_overflow);
    }
}

TEST_CASE("the placement table covers every value: kinds, roots, sizes, intervals, slots and offsets") {
    const auto g = outputs_graph();
    const auto views = y_views_b(g);
    const auto oracle = orm::static_size_oracle(g);
    const auto plan = test::plan_ok(g, views);
    auto arena = orm::plan_arena(g, views, oracle);
    REQUIRE(arena.has_value());
    const auto slots = orm::placements(g, views, plan, oracle);
    const auto offsets = orm::placements(g, views, arena->plan(), oracle);
    REQUIRE(slots.has_value());
    REQUIRE(offsets.has_value());
    REQUIRE(slots->size() == g.value_count());
    const auto at = [&](const char* name) { return (*slots)[test::id(g, name)]; };
    CHECK(at("x").kind == ValueKind::graph_input);
    CHECK(at("w").kind == ValueKind::initializer);
    CHECK(at("a").kind == ValueKind::owner);
    CHECK(at("z").kind == ValueKind::owner);  // written, never read: live at its producer only
    CHECK(at("z").live == orm::Interval{0, 0});
    CHECK(at("b").kind == ValueKind::owner);
    CHECK(at("b").live == orm::Interval{1, 2});
    CHECK(at("y").kind == ValueKind::view);
    CHECK(at("y").root == test::id(g, "b"));
    CHECK(at("y").bytes == 64);
    CHECK(at("y").slot == at("b").slot);
    CHECK(at("a").slot == plan.assignments[test::id(g, "a")]);
    for (ValueId v = 0; v < g.value_count(); ++v) {
        const auto& p = (*offsets)[v];
        CHECK(p.kind == (*slots)[v].kind);
        if (p.kind == ValueKind::owner || p.kind == ValueKind::view) CHECK(p.offset == *arena->plan().offset_of(p.root));
        else CHECK(p.offset == orm::no_offset);
    }
    CHECK_FALSE(orm::placements(g, views, plan, [](ValueId) { return std::optional<std::size_t>(1); },
                                orm::PlanOptions{}) == slots);  // sizes come from the oracle given
}

TEST_CASE("scratch: a node's workspace is planned with what is live at that node, and checked") {
    // x -> A -> a -> B -> b -> C -> c (output), 64 bytes each; B needs 100 bytes of workspace.
    ir::Builder bld("scratch");
    for (auto name : {"a", "b", "c"}) bld.tensor(name, f32, {16});
    bld.input("x").node("A", {"x"}, {"a"}).node("B", {"a"}, {"b"}).node("C", {"b"}, {"c"}).output("c");
    const auto g = bld.build();
    const auto oracle = orm::static_size_oracle(g);
    orm::PlanOptions o;
    o.scratch_bytes = {0, 100};  // node 1 only
    const ValueId a = test::id(g, "a"), b = test::id(g, "b");

    const auto plan = test::plan_ok(g, {}, o);  // validates, scratch included
    REQUIRE(plan.scratch.size() == 2);
    CHECK(plan.scratch[0].is_none());
    REQUIRE_FALSE(plan.scratch[1].is_none());
    CHECK(plan.scratch[1] != plan.assignments[a]);  // a is read at node 1
    CHECK(plan.scratch[1] != plan.assignments[b]);  // b is written at node 1
    CHECK(plan.slots[plan.scratch[1].value].capacity == 100);
    CHECK(plan.peak_bytes == 64 + 64 + 100);
    CHECK(plan.naive_bytes == 3 * 64 + 100);
    CHECK(test::plan_ok(g, {}).scratch.empty());  // without scratch: nothing changes
    // Every slot strategy plans it, with the owners live at node 1.
    for (const auto strategy : {orm::SlotStrategy::best_fit, orm::SlotStrategy::in_order_growth,
                                orm::SlotStrategy::greedy_by_size, orm::SlotStrategy::greedy_by_distance,
                                orm::SlotStrategy::least}) {
        INFO(orm::to_string(strategy));
        const auto other = orm::plan_activations(g, {}, oracle, o, strategy);
        REQUIRE(other.has_value());
        REQUIRE(other->is_complete());
        const auto& op = other->plan();
        CHECK(orm::validate(g, {}, op, oracle, o).has_value());
        REQUIRE(op.scratch.size() == 2);
        CHECK(op.scratch[0].is_none());
        CHECK_FALSE(op.scratch[1].is_none());
        CHECK(op.assignments.size() == plan.assignments.size());
        CHECK(op.peak_bytes == 64 + 64 + 100);
        CHECK(op.naive_bytes == 3 * 64 + 100);
    }
    CHECK(orm::plan_activations(g, {}, oracle, o, orm::SlotStrategy::best_fit)->plan() == plan);

    auto arena = orm::plan_arena(g, {}, oracle, o);
    REQUIRE(arena.has_value());
    const auto& ap = arena->plan();
    REQUIRE(ap.scratch_offsets.size() == 2);
    CHECK(ap.scratch_offsets[0] == orm::no_offset);
    CHECK(ap.scratch_offsets[1] != orm::no_offset);
    CHECK(ap.arena_bytes == 64 + 64 + 100);  // the bound at node 1: the 100 scratch bytes on top
    CHECK(orm::validate_arena(g, {}, ap, oracle, 64, o).has_value());
    const auto in_slots = orm::scratch_placements(plan, o);
    const auto in_arena = orm::scratch_placements(ap, o);
    REQUIRE(in_slots.size() == 1);
    REQUIRE(in_arena.size() == 1);
    CHECK(in_slots[0] == orm::ScratchPlacement{1, 100, plan.scratch[1], orm::no_offset});
    CHECK(in_arena[0] == orm::ScratchPlacement{1, 100, orm::SlotId::none(), ap.scratch_offsets[1]});

    SECTION("validate rejects scratch that shares memory, is missing, or is too small") {
        auto p = plan;
        p.scratch[1] = p.assignments[a];            // onto a, live at node 1 ...
        p.slots[p.assignments[a].value].capacity = 100;  // ... in a slot big enough for it
        p.peak_bytes += 36;
        auto r = orm::validate(g, {}, p, oracle, o);
        REQUIRE_FALSE(r.has_value());
        CHECK(r.error().kind == orm::ValidateError::Kind::scratch_conflict);
        CHECK(r.error().node == 1);
        CHECK(r.error().value == a);
        p = plan;
        p.scratch[1] = p.assignments[a];  // a's slot holds 64 bytes: too small
        auto small = orm::validate(g, {}, p, oracle, o);
        REQUIRE_FALSE(small.has_value());
        CHECK(small.error().kind == orm::ValidateError::Kind::scratch_conflict);
        CHECK(small.error().capacity == 64);
        CHECK(small.error().message() == "the scratch of node 1 needs 100 bytes but has 64");
        p = plan;
        p.scratch.clear();
        CHECK(orm::validate(g, {}, p, oracle, o).error().kind == orm::ValidateError::Kind::scratch_conflict);
        auto bigger = o;
        bigger.scratch_bytes[1] = 101;
        auto tight = orm::validate(g, {}, plan, oracle, bigger);
        REQUIRE_FALSE(tight.has_value());
        CHECK(tight.error().kind == orm::ValidateError::Kind::wrong_naive_bytes);  // the totals come first
        auto q = ap;
        q.scratch_offsets[1] = ap.offsets[a];
        auto ra = orm::validate_arena(g, {}, q, oracle, 64, o);
        REQUIRE_FALSE(ra.has_value());
        CHECK(ra.error().kind == orm::ValidateError::Kind::scratch_conflict);
        CHECK(ra.error().value == a);
        q = ap;
        q.scratch_offsets.clear();
        CHECK(orm::validate_arena(g, {}, q, oracle, 64, o).error().kind == orm::ValidateError::Kind::scratch_conflict);
    }
    SECTION("scratch for a node the graph does not have is an error") {
        auto past = o;
        past.scratch_bytes = {0, 0, 0, 8};
        auto r = orm::plan_activations(g, {}, oracle, past);
        REQUIRE_FALSE(r.has_value());
        CHECK(r.error().kind == orm::PlanError::Kind::bad_scratch);
        CHECK(r.error().node == 3);
        CHECK(orm::plan_arena(g, {}, oracle, past).error().kind == orm::PlanError::Kind::bad_scratch);
    }
}

TEST_CASE("pinned owners: the arena keeps the caller's offsets, validate_arena checks them") {
    // x -> A -> a -> B -> b -> C -> c (output); 64 bytes each; y is a view of b.
    ir::Builder bld("pins");
    for (auto name : {"a", "b", "c"}) bld.tensor(name, f32, {16});
    bld.input("x").node("A", {"x"}, {"a"}).node("B", {"a"}, {"b"}).node("Reshape", {"b"}, {"y"});
    bld.node("C", {"y"}, {"c"}).output("c");
    const auto g = bld.build();
    orm::ViewMap views;
    views.insert(test::id(g, "y"), test::id(g, "b"));
    const auto oracle = orm::static_size_oracle(g);
    const ValueId a = test::id(g, "a"), b = test::id(g, "b"), c = test::id(g, "c");
    orm::PlanOptions o;
    o.pinned = {{b, 512}};  // b (and its view y) at 512, as an offline plan had it
    auto arena = orm::plan_arena(g, views, oracle, o);
    REQUIRE(arena.has_value());
    const auto& p = arena->plan();
    CHECK(p.offsets[b] == 512);
    CHECK(p.offsets[test::id(g, "y")] == 512);
    CHECK(p.arena_bytes == 576);  // the pin decides the arena: a and c fit below it
    CHECK(p.offsets[a] + 64 <= 512);
    CHECK(p.offsets[c] + 64 <= 512);
    CHECK(orm::validate_arena(g, views, p, oracle, 64, o).has_value());

    // A plan made without the pin does not pass as one with it.
    const auto free_plan = orm::plan_arena(g, views, oracle)->plan();
    auto r = orm::validate_arena(g, views, free_plan, oracle, 64, o);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().kind == orm::ValidateError::Kind::pin_moved);
    CHECK(r.error().value == b);

    // The re-planner keeps the pins too, request after request.
    auto planner = orm::ArenaPlanner::create(g, views, o);
    REQUIRE(planner.has_value());
    orm::ArenaPlan replanned;
    REQUIRE(planner->plan(oracle, replanned).has_value());
    CHECK(replanned == p);
    CHECK(planner->lower_bound_bytes() == 576);

    SECTION("a pin on what the arena does not place is refused by name") {
        for (ValueId v : {test::id(g, "y"), test::id(g, "x"), ValueId{999}}) {
            auto bad = o;
            bad.pinned = {{v, 0}};
            auto e = orm::plan_arena(g, views, oracle, bad);
            REQUIRE_FALSE(e.has_value());
            CHECK(e.error().kind == orm::PlanError::Kind::bad_pin);
            CHECK(e.error().value == v);
        }
        auto twice = o;
        twice.pinned.push_back({b, 0});
        CHECK(orm::plan_arena(g, views, oracle, twice).error().kind == orm::PlanError::Kind::bad_pin);
        auto misaligned = o;
        misaligned.pinned = {{b, 32}};
        CHECK(orm::plan_arena(g, views, oracle, misaligned).error().kind == orm::PlanError::Kind::pin_misaligned);
    }
    SECTION("pins that overlap while live name both owners") {
        auto clash = o;
        clash.pinned = {{a, 0}, {b, 0}};  // a is read where b is written
        auto e = orm::plan_arena(g, views, oracle, clash);
        REQUIRE_FALSE(e.has_value());
        CHECK(e.error().kind == orm::PlanError::Kind::pins_overlap);
        CHECK(e.error().value == std::min(a, b));
        CHECK(e.error().other == std::max(a, b));
        CHECK(e.error().node == 1);
        auto apart = o;
        apart.pinned = {{a, 0}, {c, 0}};  // a and c never meet
        auto ok = orm::plan_arena(g, views, oracle, apart);
        REQUIRE(ok.has_value());
        CHECK(orm::validate_arena(g, views, ok->plan(), oracle, 64, apart).has_value());
    }
}
