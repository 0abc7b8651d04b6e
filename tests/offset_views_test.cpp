// Views at a byte offset (ViewMap::insert's third argument): a Split's
// outputs as windows into its input, windows of windows, the checks that
// keep every window inside its root, and validate's own view of them.
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "ir/views.hpp"
#include "support.hpp"

namespace {

using orm::PlanError;
using orm::ValidateError;
using test::id;
constexpr auto u8 = ElementType::uint8;

// x -> A -> a (256 bytes) -> Split -> p (96), q (128), the windows [0, 96)
// and [128, 256) of a; B reads p -> b (64); C reads q and b -> c (32), the
// output. Positions: A 0, Split 1, B 2, C 3.
ir::Graph split_graph() {
    ir::Builder b("split");
    b.tensor("x", u8, {16}).tensor("a", u8, {256}).tensor("p", u8, {96}).tensor("q", u8, {128});
    b.tensor("b", u8, {64}).tensor("c", u8, {32});
    b.input("x").node("A", {"x"}, {"a"}).node("Split", {"a"}, {"p", "q"});
    b.node("B", {"p"}, {"b"}).node("C", {"q", "b"}, {"c"}).output("c");
    return b.build();
}

orm::ViewMap split_views(const ir::Graph& g, std::size_t q_offset = 128) {
    orm::ViewMap views;
    views.insert(id(g, "p"), id(g, "a"), 0);
    views.insert(id(g, "q"), id(g, "a"), q_offset);
    return views;
}

orm::ArenaPlan arena_ok(const ir::Graph& g, const orm::ViewMap& views, const orm::PlanOptions& options = {}) {
    auto status = orm::plan_arena(g, views, orm::static_size_oracle(g), options);
    REQUIRE(status.has_value());
    REQUIRE(status->is_complete());
    auto ok = orm::validate_arena(g, views, status->plan(), orm::static_size_oracle(g), 64, options);
    INFO((ok ? std::string("valid") : ok.error().message()));
    REQUIRE(ok.has_value());
    return status->plan();
}

}  // namespace

TEST_CASE("offset views: a ViewMap keeps each edge's offset, 0 by default, and says when one is not 0") {
    orm::ViewMap views;
    views.insert(3, 1);
    CHECK_FALSE(views.has_offsets());
    CHECK(views.offset_of(3) == 0);
    views.insert(4, 1, 128);
    CHECK(views.has_offsets());
    CHECK(views.offset_of(4) == 128);
    CHECK(views.offset_of(3) == 0);
    CHECK(views.offset_of(9) == 0);  // no edge
    views.insert(4, 2);              // replacing the edge replaces its offset
    CHECK(views.offset_of(4) == 0);
    views.insert(4, 2, 8);
    views.erase(4);
    CHECK(views.offset_of(4) == 0);
    CHECK_FALSE(views.contains(4));
}

TEST_CASE("offset views: a Split's outputs are windows of its input, which lives until the last of them is read") {
    const auto g = split_graph();
    const auto views = split_views(g);
    const auto live = orm::compute_liveness(g, views);
    REQUIRE(live.has_value());
    CHECK(live->windows[id(g, "p")] == 0);
    CHECK(live->windows[id(g, "q")] == 128);
    CHECK(live->window(id(g, "a")) == 0);
    CHECK(test::iv(*live, g, "a") == orm::Interval{0, 3});  // C reads q at 3
    CHECK_FALSE(live->is_owner(id(g, "p")));
    CHECK_FALSE(live->is_owner(id(g, "q")));

    // Arena: a (256 bytes) lives 0..3, so at C all of a, b (64) and c (32,
    // on top: not rounded up) are live: the bound 352, which the plan reaches.
    const auto plan = arena_ok(g, views);
    CHECK(plan.arena_bytes == 352);
    const std::size_t at = *plan.offset_of(id(g, "a"));
    CHECK(plan.offset_of(id(g, "p")) == at);
    CHECK(plan.offset_of(id(g, "q")) == at + 128);

    // Slots: the views are in a's slot; the table says where inside it.
    const auto slots = test::plan_ok(g, views);
    const auto table = orm::placements(g, views, slots, orm::static_size_oracle(g));
    REQUIRE(table.has_value());
    const auto& q = (*table)[id(g, "q")];
    CHECK(q.kind == orm::ValueKind::view);
    CHECK(q.root == id(g, "a"));
    CHECK(q.window == 128);
    CHECK(q.bytes == std::optional<std::size_t>(256));
    CHECK(q.slot == *slots.slot_of(id(g, "a")));
    CHECK((*table)[id(g, "a")].window == 0);
    const auto arena_table = orm::placements(g, views, plan, orm::static_size_oracle(g));
    REQUIRE(arena_table.has_value());
    CHECK((*arena_table)[id(g, "q")].offset == at);  // the root's offset; bind at offset + window
    CHECK((*arena_table)[id(g, "q")].window == 128);
}

TEST_CASE("offset views: windows of windows add up, and the sum is checked against the root") {
    // a (256) -> Slice -> v at 64 (128 bytes) -> Slice -> w at 32 of v (64 bytes): w is [96, 160) of a.
    ir::Builder b("nested");
    b.tensor("x", u8, {8}).tensor("a", u8, {256}).tensor("v", u8, {128}).tensor("w", u8, {64}).tensor("y", u8, {8});
    b.input("x").node("A", {"x"}, {"a"}).node("Slice", {"a"}, {"v"}).node("Slice", {"v"}, {"w"});
    b.node("Y", {"w"}, {"y"}).output("y");
    const auto g = b.build();
    orm::ViewMap views;
    views.insert(id(g, "v"), id(g, "a"), 64);
    views.insert(id(g, "w"), id(g, "v"), 32);
    const auto plan = arena_ok(g, views);
    CHECK(plan.offset_of(id(g, "w")) == *plan.offset_of(id(g, "a")) + 96);

    // w at 160 of v ends at byte 64 + 160 + 64 = 288 of a's 256.
    views.insert(id(g, "w"), id(g, "v"), 160);
    const auto bad = orm::plan_arena(g, views, orm::static_size_oracle(g));
    REQUIRE_FALSE(bad.has_value());
    CHECK(bad.error().kind == PlanError::Kind::view_outside_root);
    CHECK(bad.error().value == id(g, "w"));
    CHECK(bad.error().other == id(g, "a"));
    CHECK(bad.error().message().find("does not lie inside its root") != std::string::npos);

    // Offsets whose sum passes SIZE_MAX are refused before any size is asked.
    views.insert(id(g, "v"), id(g, "a"), std::numeric_limits<std::size_t>::max());
    const auto huge = orm::compute_liveness(g, views);
    REQUIRE_FALSE(huge.has_value());
    CHECK(huge.error().kind == PlanError::Kind::view_outside_root);
    CHECK(huge.error().value == id(g, "w"));
}

TEST_CASE("offset views: a window past its root's end is an error value from every planner, naming the view and root") {
    const auto g = split_graph();
    const auto views = split_views(g, 160);  // q would be [160, 288) of a's 256
    const auto oracle = orm::static_size_oracle(g);
    const auto named = [&](const PlanError& e) {
        return e.kind == PlanError::Kind::view_outside_root && e.value == id(g, "q") && e.other == id(g, "a");
    };
    const auto slots = orm::plan_activations(g, views, oracle);
    REQUIRE_FALSE(slots.has_value());
    CHECK(named(slots.error()));
    const auto arena = orm::plan_arena(g, views, oracle);
    REQUIRE_FALSE(arena.has_value());
    CHECK(named(arena.error()));
    const auto ordered = orm::memory_aware_order(g, views, oracle);
    REQUIRE_FALSE(ordered.has_value());
    CHECK(named(ordered.error()));
    auto model = orm::PlannedModel::create(g, views);
    REQUIRE(model.has_value());
    const auto planned = model->plan(oracle);
    REQUIRE_FALSE(planned.has_value());
    CHECK(named(planned.error()));

    // At 128 it fits exactly; a view whose size is not known yet is not
    // checked until it is (the executor re-plans with its size).
    CHECK(orm::plan_activations(g, split_views(g, 128), oracle).has_value());
    const auto q_unknown = [&](ValueId v) -> std::optional<std::size_t> {
        if (v == id(g, "q")) return std::nullopt;
        return oracle(v);
    };
    CHECK(orm::plan_activations(g, views, q_unknown).has_value());
}

TEST_CASE("offset views: validate sums the offsets itself and rejects a window outside its root or a view moved") {
    const auto g = split_graph();
    const auto views = split_views(g);
    const auto oracle = orm::static_size_oracle(g);
    const auto slots = test::plan_ok(g, views);
    const auto arena = arena_ok(g, views);

    // The same plans checked against a view map whose q passes a's end.
    const auto wider = split_views(g, 200);
    const auto s = orm::validate(g, wider, slots, oracle);
    REQUIRE_FALSE(s.has_value());
    CHECK(s.error().kind == ValidateError::Kind::view_outside_root);
    CHECK(s.error().value == id(g, "q"));
    CHECK(s.error().other == id(g, "a"));
    CHECK(s.error().size == 328);
    CHECK(s.error().capacity == 256);
    const auto a = orm::validate_arena(g, wider, arena, oracle, 64);
    REQUIRE_FALSE(a.has_value());
    CHECK(a.error().kind == ValidateError::Kind::view_outside_root);

    // q inside a but at another offset than the plan's: the plan's q is wrong.
    const auto shifted = orm::validate_arena(g, split_views(g, 64), arena, oracle, 64);
    REQUIRE_FALSE(shifted.has_value());
    CHECK(shifted.error().kind == ValidateError::Kind::view_offset_mismatch);
    CHECK(shifted.error().value == id(g, "q"));

    // The plan's q moved, or put at its root's offset as before windows.
    auto moved = arena;
    moved.offsets[id(g, "q")] -= 64;
    CHECK(orm::validate_arena(g, views, moved, oracle, 64).error().kind == ValidateError::Kind::view_offset_mismatch);
    moved.offsets[id(g, "q")] = *arena.offset_of(id(g, "a"));
    CHECK(orm::validate_arena(g, views, moved, oracle, 64).error().kind == ValidateError::Kind::view_offset_mismatch);
}

TEST_CASE("offset views: an input whose buffer holds windows is not overwritten in place") {
    // Relu on p (a window of a) may not write into a: q still lives there.
    ir::Builder b("inplace_windows");
    b.tensor("x", u8, {16}).tensor("a", u8, {256}).tensor("p", u8, {128}).tensor("q", u8, {128});
    b.tensor("r", u8, {128}).tensor("c", u8, {32});
    b.input("x").node("A", {"x"}, {"a"}).node("Split", {"a"}, {"p", "q"});
    b.node("Relu", {"p"}, {"r"}).node("C", {"q", "r"}, {"c"}).output("c");
    const auto g = b.build();
    orm::PlanOptions options;
    options.inplace = {{id(g, "r"), id(g, "p")}};
    orm::ViewMap views;
    views.insert(id(g, "p"), id(g, "a"), 0);
    views.insert(id(g, "q"), id(g, "a"), 128);
    const auto why = orm::explain_inplace(g, views, options);
    REQUIRE(why.has_value());
    CHECK(*why == std::vector<orm::InplaceResult>{orm::InplaceResult::input_holds_windows});
    CHECK(std::string(orm::to_string(orm::InplaceResult::input_holds_windows)) == "input_holds_windows");
    arena_ok(g, views, options);
}

TEST_CASE("offset views: random windows, chains of them and unknown sizes: every plan validates, every bad window is named") {
    // Each case: a chain of owners, each read by the next node; some owners
    // are split into windows (a random offset and size inside), some windows
    // sliced again; readers of windows come later at random. Then one window
    // is pushed out of its root: the planners and validate must say so.
    for (std::uint64_t seed = 0; seed < 300; ++seed) {
        std::mt19937_64 rng(seed);
        const auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
        ir::Builder b("random_windows");
        std::vector<std::string> names;
        const auto value = [&](std::size_t bytes) {
            names.push_back("v" + std::to_string(names.size()));
            b.tensor(names.back(), u8, {static_cast<std::int64_t>(bytes)});
            return names.size() - 1;
        };
        struct Window {
            std::size_t view, source, offset;
        };
        std::vector<Window> windows;
        std::vector<std::size_t> bytes;
        const auto make = [&](std::size_t n) {
            bytes.push_back(n);
            return value(n);
        };
        std::size_t last = make(1 + pick(64));
        b.input(names[last]);
        std::vector<std::size_t> readable{last};
        const std::size_t nodes = 4 + pick(12);
        for (std::size_t n = 0; n < nodes; ++n) {
            const std::size_t in = readable[pick(readable.size())];
            const std::size_t out = make(1 + pick(512));
            b.node("Op", {names[last], names[in]}, {names[out]});
            last = out;
            readable.push_back(out);
            if (pick(3) == 0) {  // a Split or Slice of `out` (or of a window of it)
                const std::size_t parts = 1 + pick(3);
                std::vector<ValueId> out_ids;
                std::size_t source = out;
                if (!windows.empty() && pick(2) == 0) source = windows[pick(windows.size())].view;
                for (std::size_t k = 0; k < parts; ++k) {
                    const std::size_t offset = pick(bytes[source] + 1);
                    const std::size_t size = pick(bytes[source] - offset + 1);
                    const std::size_t w = make(size);
                    windows.push_back({w, source, offset});
                    out_ids.push_back(b.id(names[w]));
                    readable.push_back(w);
                }
                b.graph().add_node("Split", std::vector<ValueId>{b.id(names[source])}, out_ids);
            }
        }
        b.output(names[last]);
        const auto g = b.build();
        orm::ViewMap views;
        for (const auto& w : windows) views.insert(b.id(names[w.view]), b.id(names[w.source]), w.offset);
        INFO("seed " << seed << ", " << windows.size() << " windows");
        const auto oracle = orm::static_size_oracle(g);

        const auto slots = orm::plan_activations(g, views, oracle);
        REQUIRE(slots.has_value());
        REQUIRE(slots->is_complete());
        REQUIRE(orm::validate(g, views, slots->plan(), oracle).has_value());
        const auto arena = arena_ok(g, views);
        const auto live = orm::compute_liveness(g, views);
        REQUIRE(live.has_value());
        for (const auto& w : windows) {  // each window where the test's own sum puts it, inside its root
            std::size_t at = 0, x = w.view;
            for (const Window* up = &w; up;) {
                at += up->offset;
                x = up->source;
                const Window* next = nullptr;
                for (const auto& o : windows)
                    if (o.view == x) next = &o;
                up = next;
            }
            const ValueId view = b.id(names[w.view]), root = b.id(names[x]);
            CHECK(live->roots[view] == root);
            CHECK(arena.offset_of(view) == *arena.offset_of(root) + at);
            CHECK(at + bytes[w.view] <= bytes[x]);
        }
        if (windows.empty()) continue;

        // Push one window past its source's end: planning and validate refuse it, naming a view of that root.
        const Window& w = windows[pick(windows.size())];
        std::size_t source_at = 0, root = w.source;  // where w's source starts in the root
        for (bool up = true; up;) {
            up = false;
            for (const auto& o : windows)
                if (o.view == root) {
                    source_at += o.offset;
                    root = o.source;
                    up = true;
                    break;
                }
        }
        orm::ViewMap bad = views;
        bad.insert(b.id(names[w.view]), b.id(names[w.source]), bytes[root] - source_at - bytes[w.view] + 1 + pick(8));
        const auto refused = orm::plan_arena(g, bad, oracle);
        REQUIRE_FALSE(refused.has_value());
        CHECK(refused.error().kind == PlanError::Kind::view_outside_root);
        const auto v = orm::validate_arena(g, bad, arena, oracle, 64);
        REQUIRE_FALSE(v.has_value());
        CHECK(v.error().kind == ValidateError::Kind::view_outside_root);
        const auto s = orm::validate(g, bad, slots->plan(), oracle);
        REQUIRE_FALSE(s.has_value());
        CHECK(s.error().kind == ValidateError::Kind::view_outside_root);
    }
}

TEST_CASE("offset views: ir::add_split_windows takes a Split only when each piece is one run of its input's bytes") {
    ir::Builder b("splits");
    b.tensor("x", u8, {4}).tensor("outer", ElementType::float32, {4, 8}).tensor("inner", ElementType::float32, {2, 8});
    b.tensor("o0", ElementType::float32, {1, 8}).tensor("o1", ElementType::float32, {3, 8});      // axis 0: contiguous
    b.tensor("i0", ElementType::float32, {2, 3}).tensor("i1", ElementType::float32, {2, 5});      // axis 1 after a 2: not
    b.tensor("one", ElementType::float32, {1, 2, 8}).tensor("u0", ElementType::float32, {1, 2, 3});
    b.tensor("u1", ElementType::float32, {1, 2, 5});                                              // axis 2 after 1, 2: not
    b.tensor("flat", ElementType::float32, {1, 1, 8}).tensor("f0", ElementType::float32, {1, 1, 3});
    b.tensor("f1", ElementType::float32, {1, 1, 5});                                              // axis 2 after 1, 1: yes
    b.input("x").node("A", {"x"}, {"outer"}).node("B", {"x"}, {"inner"}).node("C", {"x"}, {"one"}).node("D", {"x"}, {"flat"});
    b.node("Split", {"outer"}, {"o0", "o1"}).node("Split", {"inner"}, {"i0", "i1"});
    b.node("Split", {"one"}, {"u0", "u1"}).node("Split", {"flat"}, {"f0", "f1"});
    b.node("Z", {"o0", "o1", "i0", "i1", "u0", "u1", "f0", "f1"}, {"z"}).tensor("z", u8, {1}).output("z");
    const auto g = b.build();
    orm::ViewMap views;
    const auto done = ir::add_split_windows(g, views);
    CHECK(done.views == 4);
    CHECK(done.copies_avoided_bytes == 4 * 32 + 4 * 8);
    CHECK(views.source_of(id(g, "o1")) == id(g, "outer"));
    CHECK(views.offset_of(id(g, "o1")) == 32);
    CHECK(views.offset_of(id(g, "f1")) == 12);
    CHECK_FALSE(views.contains(id(g, "i0")));
    CHECK_FALSE(views.contains(id(g, "u1")));
    arena_ok(g, views);
}
