// Hostile input, third round: in-place folds, empty buffers, sparse times and
// the messages of the surfaces added since the second round. Each test fails
// on the code before its fix (the comment says how).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "support.hpp"

using orm::InplaceResult;
using orm::PlanError;
using orm::ValidateError;
using test::f32;

namespace {

// Node 0 reads b, node 1 reads a and c; a and b are graph inputs.
ir::Graph two_inputs() {
    ir::Builder bld("two_inputs");
    for (auto name : {"a", "b", "c", "y"}) bld.tensor(name, f32, {16});
    bld.input("a").input("b").node("Relu", {"b"}, {"c"}).node("Add", {"a", "c"}, {"y"}).output("y");
    return bld.build();
}

// One node (C) reads x and y and writes q and p, q's id below p's; q dies at
// D, p lives on to E.
ir::Graph two_by_two() {
    ir::Builder bld("two_by_two");
    for (auto name : {"x", "y", "q", "p", "r", "z"}) bld.tensor(name, f32, {16});
    bld.input("s").node("A", {"s"}, {"x"}).node("B", {"s"}, {"y"}).node("C", {"x", "y"}, {"q", "p"});
    bld.node("D", {"q"}, {"r"}).node("E", {"p", "r"}, {"z"}).output("z");
    return bld.build();
}

std::string why(const auto& r) { return r ? std::string("valid") : r.error().message(); }

}  // namespace

// ---- 1. an in-place hint whose output is a graph input ----

TEST_CASE("in place: a graph input is written by no node, so a hint naming it as the output is not_an_input") {
    // Before: with include_graph_inputs, {a <- b} was taken (a and b at one
    // offset while both live, and both validators agreed), and {b <- b}
    // failed compute_liveness with a view cycle the caller never made.
    const auto g = two_inputs();
    const ValueId a = test::id(g, "a"), b = test::id(g, "b");
    const auto oracle = orm::static_size_oracle(g);
    orm::PlanOptions o;
    o.include_graph_inputs = true;
    o.inplace = {{a, b}, {b, b}};
    auto result = orm::explain_inplace(g, {}, o);
    REQUIRE(result.has_value());
    CHECK(*result == std::vector<InplaceResult>{InplaceResult::not_an_input, InplaceResult::not_an_input});
    auto live = orm::compute_liveness(g, {}, o);
    REQUIRE(live.has_value());
    CHECK(live->inplace.empty());
    const auto plan = test::plan_ok(g, {}, o);
    CHECK(plan.slot_of(a) != plan.slot_of(b));
    auto arena = orm::plan_arena(g, {}, oracle, o);
    REQUIRE(arena.has_value());
    CHECK(arena->plan().offsets[a] != arena->plan().offsets[b]);
    CHECK(orm::validate_arena(g, {}, arena->plan(), oracle, 64, o).has_value());

    // A liveness that claims the fold anyway (a as b's bytes) is refused:
    // no node writes a.
    orm::ViewMap as_view;
    as_view.insert(a, b);
    auto forged = orm::compute_liveness(g, as_view, o);
    REQUIRE(forged.has_value());
    forged->inplace = {a};
    const auto r = orm::validate_liveness(g, {}, *forged, o);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().kind == ValidateError::Kind::bad_inplace);
    CHECK(r.error().value == a);

    // An empty graph: an included input with a hint on itself (there is no
    // node 0 to read).
    ir::Builder empty("empty");
    empty.tensor("x", f32, {4}).input("x").output("x");
    const auto e = empty.build();
    orm::PlanOptions eo;
    eo.include_graph_inputs = true;
    eo.inplace = {{0, 0}};
    auto none = orm::explain_inplace(e, {}, eo);
    REQUIRE(none.has_value());
    CHECK(*none == std::vector<InplaceResult>{InplaceResult::not_an_input});
}

// ---- 2. several outputs of one node, hints in any order ----

TEST_CASE("in place: the validators read each fold's input from the liveness, whatever the hints' order") {
    // Before: the planner folded p over x and q over y (hint order), and the
    // validators, walking folds by id, paired q with x and rejected the
    // planner's correct plan.
    const auto g = two_by_two();
    const ValueId x = test::id(g, "x"), y = test::id(g, "y"), q = test::id(g, "q"), p = test::id(g, "p");
    REQUIRE(q < p);
    const auto oracle = orm::static_size_oracle(g);
    orm::PlanOptions o;
    o.inplace = {{p, x}, {q, x}, {q, y}};
    auto result = orm::explain_inplace(g, {}, o);
    REQUIRE(result.has_value());
    CHECK(*result == std::vector<InplaceResult>{InplaceResult::taken, InplaceResult::input_read_later, InplaceResult::taken});
    auto live = orm::compute_liveness(g, {}, o);
    REQUIRE(live.has_value());
    CHECK(live->roots[p] == x);
    CHECK(live->roots[q] == y);
    CHECK(orm::validate_liveness(g, {}, *live, o).has_value());
    const auto plan = test::plan_ok(g, {}, o);  // validates
    CHECK(plan.slot_of(p) == std::nullopt);
    auto arena = orm::plan_arena(g, {}, oracle, o);
    REQUIRE(arena.has_value());
    INFO(why(orm::validate_arena(g, {}, arena->plan(), oracle, 64, o)));
    CHECK(orm::validate_arena(g, {}, arena->plan(), oracle, 64, o).has_value());
}

TEST_CASE("in place: a liveness whose folds or ends were edited is refused by validate_liveness") {
    // Before: with every pairing hinted and x's and y's ends swapped, the
    // validator re-paired the folds its own way, found every read covered,
    // and accepted; plan_activations(Liveness) then let r take bytes that
    // p (folded into x) still held.
    const auto g = two_by_two();
    const ValueId x = test::id(g, "x"), y = test::id(g, "y"), q = test::id(g, "q"), p = test::id(g, "p");
    orm::PlanOptions o;
    o.inplace = {{p, x}, {p, y}, {q, x}, {q, y}};
    auto live = orm::compute_liveness(g, {}, o);
    REQUIRE(live.has_value());
    REQUIRE(live->roots[p] == x);
    REQUIRE(live->roots[q] == y);
    CHECK(live->intervals[x].use_end == 4);  // p is read by E
    CHECK(live->intervals[y].use_end == 3);  // q by D
    REQUIRE(orm::validate_liveness(g, {}, *live, o).has_value());

    auto swapped = *live;
    std::swap(swapped.intervals[x].use_end, swapped.intervals[y].use_end);
    const auto r = orm::validate_liveness(g, {}, swapped, o);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().kind == ValidateError::Kind::view_outlives_source);
    CHECK(r.error().value == p);

    // Roots that say otherwise than the folds and views.
    auto rerooted = *live;
    rerooted.roots[p] = y;
    const auto e = orm::validate_liveness(g, {}, rerooted, o);
    REQUIRE_FALSE(e.has_value());

    // An owner whose interval starts after the node that writes it.
    auto late = *live;
    const ValueId r_value = test::id(g, "r");
    late.intervals[r_value].def = 4;
    late.intervals[r_value].use_end = 4;
    std::sort(late.owners.begin(), late.owners.end(), [&](ValueId u, ValueId v) {
        return std::pair{late.intervals[u].def, u} < std::pair{late.intervals[v].def, v};
    });
    late.allocation_order = late.owners;
    REQUIRE(orm::check_liveness(late).has_value());
    const auto l = orm::validate_liveness(g, {}, late, o);
    REQUIRE_FALSE(l.has_value());
    CHECK(l.error().kind == ValidateError::Kind::plan_error);
}

TEST_CASE("in place: random hint orders on many-output nodes always give plans the validators accept") {
    // A node with k inputs, each produced alone and dying there, and m
    // outputs; every (output, input) pair hinted, shuffled.
    std::mt19937_64 rng(20261205);
    for (int trial = 0; trial < 300; ++trial) {
        const std::size_t k = 1 + rng() % 4, m = 1 + rng() % 4;
        ir::Builder bld("many");
        std::vector<std::string> ins, outs;
        for (std::size_t i = 0; i < k; ++i) ins.push_back("i" + std::to_string(i));
        for (std::size_t j = 0; j < m; ++j) outs.push_back("o" + std::to_string(m - 1 - j));  // ids in reverse name order
        for (const auto& name : outs) bld.tensor(name, f32, {static_cast<std::int64_t>(4 + rng() % 8)});
        for (const auto& name : ins) bld.tensor(name, f32, {static_cast<std::int64_t>(4 + rng() % 8)});
        bld.input("s");
        for (const auto& name : ins) bld.node("P", {"s"}, {name});
        ir::Graph g0 = bld.build();
        // The node itself, then one reader per output, in a random order.
        std::vector<ValueId> in_ids, out_ids;
        for (const auto& name : ins) in_ids.push_back(test::id(g0, name));
        for (const auto& name : outs) out_ids.push_back(test::id(g0, name));
        ir::Graph g = g0;
        g.add_node("N", in_ids, out_ids);
        std::vector<ValueId> readers = out_ids;
        std::shuffle(readers.begin(), readers.end(), rng);
        for (ValueId v : readers) {
            const ValueId z = g.value("z" + std::to_string(v));
            const std::vector<ir::DimSpec> four{ir::DimSpec(4)};
            g.set_type(z, f32, four);
            g.add_node("R", std::vector<ValueId>{v}, std::vector<ValueId>{z});
            g.mark_output(z);
        }
        orm::PlanOptions o;
        for (ValueId out : out_ids)
            for (ValueId in : in_ids) o.inplace.push_back({out, in});
        std::shuffle(o.inplace.begin(), o.inplace.end(), rng);
        const auto oracle = orm::static_size_oracle(g);
        auto live = orm::compute_liveness(g, {}, o);
        REQUIRE(live.has_value());
        INFO("trial " << trial << ": " << why(orm::validate_liveness(g, {}, *live, o)));
        REQUIRE(orm::validate_liveness(g, {}, *live, o).has_value());
        CHECK(live->inplace.size() == std::min(k, m));
        auto slots = orm::plan_activations(g, {}, oracle, o);
        REQUIRE(slots.has_value());
        CHECK(orm::validate(g, {}, slots->plan(), oracle, o).has_value());
        auto arena = orm::plan_arena(g, {}, oracle, o);
        REQUIRE(arena.has_value());
        CHECK(orm::validate_arena(g, {}, arena->plan(), oracle, 64, o).has_value());
        // Two folded outputs read at different times, their targets swapped
        // in the liveness (intervals kept): refused.
        if (live->inplace.size() >= 2) {
            const ValueId u = live->inplace[0], w = live->inplace[1];
            auto forged = *live;
            std::swap(forged.roots[u], forged.roots[w]);
            CHECK_FALSE(orm::validate_liveness(g, {}, forged, o).has_value());
        }
    }
}

// ---- 3. empty buffers: one rule everywhere ----

TEST_CASE("empty buffers lie in the arena like any other: planners, bound and validators agree") {
    // Before: the planners ended the arena at the highest non-empty buffer,
    // so plan_offsets of one empty buffer pinned at 512 said arena 0 (bound
    // 512) and validate_offsets rejected the library's own plan.
    using orm::Buffer;
    const std::vector<Buffer> pinned_empty = {{0, 0, 0, 512}};
    auto p = orm::plan_offsets(pinned_empty);
    REQUIRE(p.has_value());
    CHECK(p->arena_bytes == 512);
    CHECK(p->lower_bound_bytes == 512);
    CHECK(p->offsets[0] == 512);
    CHECK(orm::validate_offsets(pinned_empty, *p, 64).has_value());
    // A free empty buffer sits at 0, whatever the strategies chose.
    const std::vector<Buffer> mixed = {{13, 0, 3}, {0, 1, 2}, {2047, 0, 4}, {0, 4, 4}, {5, 2, 4}};
    auto m = orm::plan_offsets(mixed);
    REQUIRE(m.has_value());
    CHECK(m->offsets[1] == 0);
    CHECK(m->offsets[3] == 0);
    CHECK(orm::validate_offsets(mixed, *m, 64).has_value());
    // An empty buffer past the arena is still refused.
    auto past = *m;
    past.offsets[1] = (m->arena_bytes / 64 + 1) * 64;
    CHECK(orm::validate_offsets(mixed, past, 64).error().kind == ValidateError::Kind::outside_arena);

    // A graph: an empty owner pinned at 512, and the slot plan laid out
    // when its last slot is empty (e opens it, while a and b hold the others).
    ir::Builder bld("empty_owner");
    bld.tensor("a", f32, {13}).tensor("b", f32, {1}).tensor("e", f32, {0}).tensor("y", f32, {1});
    bld.input("x").node("A", {"x"}, {"a"}).node("B", {"a"}, {"b", "e"}).node("C", {"b", "e"}, {"y"}).output("y");
    const auto g = bld.build();
    const auto oracle = orm::static_size_oracle(g);
    const ValueId e = test::id(g, "e");
    orm::PlanOptions pin;
    pin.pinned = {{e, 512}};
    auto arena = orm::plan_arena(g, {}, oracle, pin);
    REQUIRE(arena.has_value());
    CHECK(arena->plan().offsets[e] == 512);
    CHECK(arena->plan().arena_bytes == 512);  // the rest fits below e's address
    CHECK(arena->plan().proven_bound_bytes == 512);
    CHECK(orm::validate_arena(g, {}, arena->plan(), oracle, 64, pin).has_value());
    auto live = orm::compute_liveness(g, {});
    auto slots = orm::plan_activations(*live, oracle);
    REQUIRE(test::capacities(slots->plan()) == std::vector<std::size_t>{52, 4, 0});
    auto laid = orm::arena_from_slots(*live, slots->plan(), 32);  // slot 2 was at 96, past the arena's 68
    REQUIRE(laid.has_value());
    CHECK(laid->offsets[e] == 0);
    CHECK(laid->arena_bytes == 68);
    CHECK(orm::validate_arena(g, {}, *laid, oracle, 32).has_value());
}

TEST_CASE("property: random problems with empty buffers and pins give plans their validators accept") {
    using orm::Buffer;
    std::mt19937_64 rng(37);
    for (int trial = 0; trial < 2000; ++trial) {
        const std::size_t n = 1 + rng() % 12, alignment = std::size_t{1} << (rng() % 7);
        std::vector<Buffer> buffers;
        std::size_t pin_top = 0;
        for (std::size_t i = 0; i < n; ++i) {
            Buffer b;
            b.size = rng() % 3 == 0 ? 0 : 1 + rng() % 300;
            b.first = static_cast<orm::NodeIndex>(rng() % 10);
            b.last = b.first + static_cast<orm::NodeIndex>(rng() % 5);
            if (rng() % 4 == 0) {  // pinned above every earlier pin: they never overlap
                b.pinned = (pin_top / alignment + rng() % 4) * alignment;
                pin_top = b.pinned + b.size + alignment;
            }
            buffers.push_back(b);
        }
        orm::ArenaOptions o;
        o.alignment = alignment;
        auto plan = orm::plan_offsets(buffers, o);
        REQUIRE(plan.has_value());
        INFO("trial " << trial << ": " << why(orm::validate_offsets(buffers, *plan, alignment)));
        CHECK(orm::validate_offsets(buffers, *plan, alignment).has_value());
        CHECK(plan->lower_bound_bytes <= plan->arena_bytes);
        for (std::size_t i = 0; i < n; ++i)
            if (buffers[i].size == 0 && buffers[i].pinned == orm::no_offset) CHECK(plan->offsets[i] == 0);
        // The same problem as a graph's owners (views none), through the slots
        // laid out: valid at every alignment.
        auto slots = orm::plan_slots(buffers);
        REQUIRE(slots.has_value());
        orm::Liveness live;
        live.intervals.resize(n);
        live.roots.resize(n);
        for (std::size_t i = 0; i < n; ++i) {
            live.intervals[i] = {buffers[i].first, buffers[i].last};
            live.roots[i] = static_cast<ValueId>(i);
            live.owners.push_back(static_cast<ValueId>(i));
            live.last_position = std::max(live.last_position, buffers[i].last);
        }
        std::stable_sort(live.owners.begin(), live.owners.end(),
                         [&](ValueId a, ValueId b) { return buffers[a].first < buffers[b].first; });
        live.allocation_order = live.owners;
        auto laid = orm::arena_from_slots(live, *slots, alignment);
        REQUIRE(laid.has_value());
        std::vector<Buffer> free = buffers;
        for (auto& b : free) b.pinned = orm::no_offset;
        orm::OffsetPlan as_offsets{laid->offsets, laid->arena_bytes};
        CHECK(orm::validate_offsets(free, as_offsets, alignment).has_value());
    }
}

// ---- 4. sparse time stamps in the graph-free layer ----

TEST_CASE("plan_slots and lower_bounds over records rank sparse times: no table over every time stamp") {
    // Before: two 4 KiB buffers near time 2^26 took 2.5-2.8 s and 1.5 GB.
    using orm::Buffer;
    const auto top = static_cast<orm::NodeIndex>(orm::max_graph_ids - 1);
    const std::vector<Buffer> far = {{4096, top - 10, top - 5}, {4096, top - 3, top}};
    const auto t0 = std::chrono::steady_clock::now();
    for (int k = 0; k < 100; ++k) {
        auto slots = orm::plan_slots(far);
        REQUIRE(slots.has_value());
        CHECK(slots->num_slots() == 1);
        CHECK(slots->peak_bytes == 4096);
        auto bounds = orm::lower_bounds(far, 64);
        REQUIRE(bounds.has_value());
        CHECK(*bounds == orm::LowerBounds{4096, 4096});
    }
    // 100 rounds: a table over 2^26 positions (256 MB) would take seconds.
    CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(2));
    // Ranked or not, the same plan and bounds.
    std::mt19937_64 rng(4);
    for (int trial = 0; trial < 300; ++trial) {
        std::vector<Buffer> dense, sparse;
        for (std::size_t i = 0, n = 1 + rng() % 20; i < n; ++i) {
            Buffer b{1 + rng() % 1000, static_cast<orm::NodeIndex>(rng() % 30), 0};
            b.last = b.first + static_cast<orm::NodeIndex>(rng() % 6);
            dense.push_back(b);
            b.first = b.first * 100000 + 7;
            b.last = b.last * 100000 + 7;
            sparse.push_back(b);
        }
        for (auto s : {orm::SlotStrategy::best_fit, orm::SlotStrategy::greedy_by_size, orm::SlotStrategy::least})
            CHECK(*orm::plan_slots(dense, s) == *orm::plan_slots(sparse, s));
        CHECK(*orm::lower_bounds(dense, 16) == *orm::lower_bounds(sparse, 16));
    }
}

namespace {
constexpr std::size_t size_max = std::numeric_limits<std::size_t>::max();
}  // namespace

// ---- 6. scratch overflow names the node; plan_arena and ArenaPlanner agree ----

TEST_CASE("a scratch total that overflows names the node, and the re-planner decides as plan_arena does") {
    ir::Builder bld("scratchy");
    for (auto name : {"a", "y"}) bld.tensor(name, f32, {4});
    bld.input("x").node("A", {"x"}, {"a"}).node("B", {"a"}, {"y"}).output("y");
    const auto g = bld.build();
    const auto oracle = orm::static_size_oracle(g);
    orm::PlanOptions o;
    o.scratch_bytes = {0, size_max - 10};  // with a and y (16 bytes each), past SIZE_MAX
    auto slots = orm::plan_activations(g, {}, oracle, o);
    REQUIRE_FALSE(slots.has_value());
    CHECK(slots.error().kind == PlanError::Kind::size_overflow);
    CHECK(slots.error().node == 1);
    CHECK(slots.error().message() == "the byte total overflows std::size_t when adding the scratch of node 1");
    auto arena = orm::plan_arena(g, {}, oracle, o);
    REQUIRE_FALSE(arena.has_value());
    CHECK(arena.error() == slots.error());
    auto planner = orm::ArenaPlanner::create(g, {}, o);
    REQUIRE(planner.has_value());
    orm::ArenaPlan out;
    CHECK(planner->plan(oracle, out).error() == slots.error());

    // With a size unknown, both defer (no total, so no overflow of one).
    // Before: plan_arena reported the overflow while ArenaPlanner deferred.
    const auto unknown_a = [&](ValueId v) -> std::optional<std::size_t> {
        if (v == test::id(g, "a")) return std::nullopt;
        return oracle(v);
    };
    auto deferred = orm::plan_arena(g, {}, unknown_a, o);
    REQUIRE(deferred.has_value());
    CHECK(deferred->is_deferred());
    auto replanned = planner->plan(unknown_a, out);
    REQUIRE(replanned.has_value());
    CHECK(*replanned == orm::ArenaPlanner::Outcome::deferred);
    auto slot_deferred = orm::plan_activations(g, {}, unknown_a, o);
    REQUIRE(slot_deferred.has_value());
    CHECK(slot_deferred->is_deferred());
}

// ---- 7. messages that name the culprit as the caller wrote it ----

TEST_CASE("graph-free errors name the caller's time stamps, missing offsets and the one pin problem that applies") {
    using orm::Buffer;
    // Two pins overlapping at time 5,000,000 (sparse: ranked inside).
    const std::vector<Buffer> clash = {{64, 1000, 5000000, 0}, {64, 5000000, 9000000, 0}, {64, 7, 8}};
    auto e = orm::plan_offsets(clash);
    REQUIRE_FALSE(e.has_value());
    CHECK(e.error().kind == PlanError::Kind::pins_overlap);
    CHECK(e.error().node == 5000000);  // before: 1, a compressed rank
    CHECK(e.error().message() == "pinned value 0 and value 1 share bytes while both are live (at node 5000000)");

    const std::vector<Buffer> two = {{64, 0, 1}, {64, 1, 2}};
    orm::OffsetPlan missing{{0, orm::no_offset}, 128};
    const auto r = orm::validate_offsets(two, missing, 64);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().kind == ValidateError::Kind::missing_offset);
    CHECK(r.error().message() == "owner value 1 has no offset in the arena");  // before: "has no slot"

    const std::vector<Buffer> misaligned = {{64, 0, 1, 32}};
    CHECK(orm::plan_offsets(misaligned).error().message() ==
          "value 0 is pinned at an offset that is not a multiple of the alignment");
    const std::vector<Buffer> too_high = {{64, 0, 1}, {64, 0, 1, size_max / 64 * 64 - 64}};
    CHECK(orm::plan_offsets(too_high).error().message() ==
          "value 1 is pinned so near SIZE_MAX that the other buffers may not fit above it (its end plus the total "
          "of the sizes passes SIZE_MAX)");
}

// ---- 9. decided: external outputs, scratch of no node, a pin at SIZE_MAX ----

TEST_CASE("decided: a placed external output is refused, scratch needs a node, a pin at SIZE_MAX is an error") {
    ir::Builder bld("small");
    for (auto name : {"a", "y"}) bld.tensor(name, f32, {4});
    bld.input("x").node("A", {"x"}, {"a"}).node("B", {"a"}, {"y"}).output("y");
    const auto g = bld.build();
    const auto oracle = orm::static_size_oracle(g);
    const ValueId y = test::id(g, "y");

    // An output declared external but placed by the plan: the executor
    // would bind it to its own buffer and the arena's bytes alike.
    orm::PlanOptions external;
    external.outputs = orm::OutputPlacement::external;
    auto arena = orm::plan_arena(g, {}, oracle, external);
    REQUIRE(arena.has_value());
    REQUIRE(orm::validate_arena(g, {}, arena->plan(), oracle, 64, external).has_value());
    auto placed = arena->plan();
    placed.offsets[y] = 0;
    auto r = orm::validate_arena(g, {}, placed, oracle, 64, external);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().kind == ValidateError::Kind::external_placed);
    CHECK(r.error().value == y);
    auto slots = orm::plan_activations(g, {}, oracle, external);
    auto with_slot = slots->plan();
    with_slot.assignments[y] = orm::SlotId{0};
    CHECK(orm::validate(g, {}, with_slot, oracle, external).error().kind == ValidateError::Kind::external_placed);

    // Scratch for a node of a graph with none (before: accepted, as node 0).
    ir::Builder none("no_nodes");
    none.tensor("x", f32, {4}).input("x").output("x");
    const auto empty = none.build();
    orm::PlanOptions scratch;
    scratch.scratch_bytes = {64};
    auto s = orm::plan_activations(empty, {}, orm::static_size_oracle(empty), scratch);
    REQUIRE_FALSE(s.has_value());
    CHECK(s.error().kind == PlanError::Kind::bad_scratch);
    CHECK(s.error().node == 0);
    CHECK(orm::plan_arena(empty, {}, orm::static_size_oracle(empty), scratch).error() == s.error());
    scratch.scratch_bytes = {0};  // a zero entry asks for nothing
    CHECK(orm::plan_activations(empty, {}, orm::static_size_oracle(empty), scratch).has_value());

    // A pin at SIZE_MAX (which a Buffer reads as no pin): before, silently
    // dropped.
    orm::PlanOptions pin;
    pin.pinned = {{y, size_max}};
    auto p = orm::plan_arena(g, {}, oracle, pin);
    REQUIRE_FALSE(p.has_value());
    CHECK(p.error().kind == PlanError::Kind::pin_too_high);
    CHECK(p.error().value == y);
}
