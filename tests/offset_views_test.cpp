// Views at a byte offset (ViewMap::insert's third argument): a Split's
// outputs as windows into its input, windows of windows, the checks that
// keep every window inside its root, and validate's own view of them.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "ir/views.hpp"
#include "support.hpp"

namespace {

using orm::PlanError;
using orm::ValidateError;
using test::id;
constexpr auto u8 = ElementType::uint8;

// A random graph under construction: values "v<k>" of 1 x bytes[k] bytes,
// made in turn, and the seeded draws that shape it.
struct RandomGraph {
    RandomGraph(const char* name, std::uint64_t seed) : rng(seed), b(name) {}
    std::size_t pick(std::size_t n) { return static_cast<std::size_t>(rng() % n); }
    std::size_t make(std::size_t n) {
        std::ostringstream name;  // (a stream: g++ 12 at -O2 warns falsely, -Wrestrict, on "v" + std::to_string(k))
        name << 'v' << names.size();
        names.push_back(name.str());
        bytes.push_back(n);
        b.tensor(names.back(), u8, {1, static_cast<std::int64_t>(n)});
        return names.size() - 1;
    }
    std::mt19937_64 rng;
    ir::Builder b;
    std::vector<std::string> names;
    std::vector<std::size_t> bytes;
};

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

TEST_CASE("offset views: a window past the end of a buffer the caller holds (graph input, weight, external output) is refused too") {
    // A Split of the graph input x (16 bytes) into a (at 0) and b (at 8);
    // c = Op(a, b) is an external output with a window w of it read by D.
    ir::Builder b("held");
    b.tensor("x", u8, {16}).tensor("a", u8, {8}).tensor("b", u8, {8}).tensor("c", u8, {32}).tensor("w", u8, {16});
    b.tensor("y", u8, {4});
    b.input("x").node("Split", {"x"}, {"a", "b"}).node("Op", {"a", "b"}, {"c"}).node("Slice", {"c"}, {"w"});
    b.node("D", {"w"}, {"y"}).output("c").output("y");
    const auto g = b.build();
    orm::PlanOptions options;
    options.outputs = orm::OutputPlacement::external;
    const auto oracle = orm::static_size_oracle(g);
    const auto held_views = [&](std::size_t b_at, std::size_t w_at) {
        orm::ViewMap views;
        views.insert(id(g, "a"), id(g, "x"), 0);
        views.insert(id(g, "b"), id(g, "x"), b_at);
        views.insert(id(g, "w"), id(g, "c"), w_at);
        return views;
    };
    const auto fits = orm::plan_arena(g, held_views(8, 16), oracle, options);
    REQUIRE(fits.has_value());
    CHECK(orm::validate_arena(g, held_views(8, 16), fits->plan(), oracle, 64, options).has_value());
    for (const auto& [b_at, w_at, view, root] : {std::tuple{9u, 16u, "b", "x"}, std::tuple{8u, 17u, "w", "c"}}) {
        INFO(view << " moved one byte past " << root << "'s end");
        const auto bad = held_views(b_at, w_at);
        const auto planned = orm::plan_arena(g, bad, oracle, options);
        REQUIRE_FALSE(planned.has_value());
        CHECK(planned.error().kind == PlanError::Kind::view_outside_root);
        CHECK(planned.error().value == id(g, view));
        CHECK(planned.error().other == id(g, root));
        const auto checked = orm::validate_arena(g, bad, fits->plan(), oracle, 64, options);
        REQUIRE_FALSE(checked.has_value());
        CHECK(checked.error().kind == ValidateError::Kind::view_outside_root);
        CHECK(checked.error().value == id(g, view));
        CHECK(checked.error().size == (std::string(view) == "b" ? 17u : 33u));
    }
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
        RandomGraph r("random_windows", seed);
        auto& [rng, b, names, bytes] = r;
        const auto pick = [&](std::size_t n) { return r.pick(n); };
        const auto make = [&](std::size_t n) { return r.make(n); };
        struct Window {
            std::size_t view, source, offset;
        };
        std::vector<Window> windows;
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

TEST_CASE("offset views: ir::add_slices takes a Split only when each piece is one run of its input's bytes") {
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
    const auto done = ir::add_slices(g, views);
    CHECK(done.views == 4);
    CHECK(done.parts == 0);
    CHECK(done.copies_avoided_bytes == 4 * 32 + 4 * 8);
    CHECK(views.source_of(id(g, "o1")) == id(g, "outer"));
    CHECK(views.offset_of(id(g, "o1")) == 32);
    CHECK(views.offset_of(id(g, "f1")) == 12);
    CHECK_FALSE(views.contains(id(g, "i0")));
    CHECK_FALSE(views.contains(id(g, "u1")));
    arena_ok(g, views);
}

namespace {

// A dense block as DenseNet exports it: each layer reads the Concat of all
// features so far. x -> A -> x0 (64 bytes); c1 = Concat(x0); B(c1) -> x1
// (32); c2 = Concat(x0, x1); C(c2) -> x2 (32); c3 = Concat(x0, x1, x2)
// (128); D(c3) -> y (16). Positions: A 0, Concat 1, B 2, Concat 3, C 4,
// Concat 5, D 6.
ir::Graph dense_block() {
    ir::Builder b("dense_block");
    b.tensor("x", u8, {16}).tensor("x0", u8, {64}).tensor("c1", u8, {64}).tensor("x1", u8, {32});
    b.tensor("c2", u8, {96}).tensor("x2", u8, {32}).tensor("c3", u8, {128}).tensor("y", u8, {16});
    b.input("x").node("A", {"x"}, {"x0"}).node("Concat", {"x0"}, {"c1"}).node("B", {"c1"}, {"x1"});
    b.node("Concat", {"x0", "x1"}, {"c2"}).node("C", {"c2"}, {"x2"}).node("Concat", {"x0", "x1", "x2"}, {"c3"});
    b.node("D", {"c3"}, {"y"}).output("y");
    return b.build();
}

// Each feature is a part of the first Concat that holds it, and each
// Concat a part of the next at 0: the block lives in c3's one buffer.
orm::ViewMap dense_parts(const ir::Graph& g, std::size_t x1_at = 64) {
    orm::ViewMap views;
    views.insert_part(id(g, "x0"), id(g, "c1"), 0);
    views.insert_part(id(g, "c1"), id(g, "c2"), 0);
    views.insert_part(id(g, "x1"), id(g, "c2"), x1_at);
    views.insert_part(id(g, "c2"), id(g, "c3"), 0);
    views.insert_part(id(g, "x2"), id(g, "c3"), 96);
    return views;
}

// Runs the block on bytes: every value at `at(v)`; a node in `skip` does
// nothing. Any other op fills its output from a hash of every byte it
// reads; a Concat copies its inputs one after another.
template <class At>
void run_block(const ir::Graph& g, At&& at, const std::vector<orm::NodeIndex>& skip) {
    for (std::size_t n = 0; n < g.node_count(); ++n) {
        if (std::find(skip.begin(), skip.end(), n) != skip.end()) continue;
        const auto in = g.node_inputs(n);
        const ValueId out = g.node_outputs(n)[0];
        const std::size_t out_bytes = *orm::static_size(g, out);
        const std::string_view op = g.op_type(n);
        if (op == "Concat") {
            std::size_t k = 0;
            for (ValueId v : in) {
                const std::size_t s = *orm::static_size(g, v);
                std::memmove(at(out) + k, at(v), s);
                k += s;
            }
            continue;
        }
        std::uint32_t seed = static_cast<std::uint32_t>(op[0]) * 131u;  // every byte of every input
        for (ValueId v : in)
            for (std::size_t j = 0, s = *orm::static_size(g, v); j < s; ++j) seed = seed * 31u + at(v)[j];
        std::vector<std::uint8_t> tmp(out_bytes);
        for (std::size_t i = 0; i < out_bytes; ++i) {
            const std::uint32_t acc = seed * 2654435761u + static_cast<std::uint32_t>(i) * 40503u;
            tmp[i] = static_cast<std::uint8_t>(acc ^ (acc >> 13));
        }
        std::memcpy(at(out), tmp.data(), out_bytes);
    }
}

}  // namespace

TEST_CASE("parts: a dense block's features and Concats live in the last Concat's buffer, from the first feature on") {
    const auto g = dense_block();
    const auto views = dense_parts(g);
    const auto live = orm::compute_liveness(g, views);
    REQUIRE(live.has_value());
    for (const char* v : {"x0", "c1", "x1", "c2", "x2"}) CHECK(live->roots[id(g, v)] == id(g, "c3"));
    CHECK(live->windows[id(g, "x1")] == 64);
    CHECK(live->windows[id(g, "x2")] == 96);
    CHECK(test::iv(*live, g, "c3") == orm::Interval{0, 6});  // from A, which writes x0, to D
    CHECK(live->owners == std::vector<ValueId>{id(g, "c3"), id(g, "y")});
    CHECK(live->allocation_order == live->owners);

    const auto plan = arena_ok(g, views);
    CHECK(plan.arena_bytes == 128 + 16);  // c3 and y: the Concats and features take nothing more
    const auto slots = test::plan_ok(g, views);
    CHECK(slots.naive_bytes == 128 + 16);
    const auto table = orm::placements(g, views, plan, orm::static_size_oracle(g));
    REQUIRE(table.has_value());
    CHECK((*table)[id(g, "x2")].kind == orm::ValueKind::part);
    CHECK((*table)[id(g, "x2")].window == 96);
    CHECK(std::string(orm::to_string(orm::ValueKind::part)) == "part");
    CHECK(orm::no_op_nodes(g, views, orm::static_size_oracle(g)) == std::vector<orm::NodeIndex>{1, 3, 5});
    CHECK(orm::no_op_nodes(g, orm::ViewMap{}, orm::static_size_oracle(g)).empty());

    // Run it: in the arena, the Concats skipped, the arena filled with 0xA5
    // first; and with one buffer per tensor, every node run. Same y.
    std::vector<std::uint8_t> arena(plan.arena_bytes, 0xA5), input(16);
    for (std::size_t i = 0; i < input.size(); ++i) input[i] = static_cast<std::uint8_t>(7 * i + 1);
    const auto in_arena = [&](ValueId v) {
        return v == id(g, "x") ? input.data() : arena.data() + *plan.offset_of(v);
    };
    run_block(g, in_arena, orm::no_op_nodes(g, views, orm::static_size_oracle(g)));
    std::vector<std::vector<std::uint8_t>> own(g.value_count());
    for (ValueId v = 0; v < g.value_count(); ++v) own[v].resize(orm::static_size(g, v).value_or(0));
    own[id(g, "x")] = input;
    run_block(g, [&](ValueId v) { return own[v].data(); }, {});
    const auto y = id(g, "y");
    CHECK(std::equal(own[y].begin(), own[y].end(), arena.begin() + static_cast<std::ptrdiff_t>(*plan.offset_of(y))));
}

TEST_CASE("parts: each rule is an error value naming the culprit") {
    const auto g = dense_block();
    const auto oracle = orm::static_size_oracle(g);
    const auto kind_of = [&](const orm::ViewMap& views) {
        const auto r = orm::plan_arena(g, views, oracle);
        REQUIRE_FALSE(r.has_value());
        return r.error();
    };
    // x1 at 32 of c2 overlaps c1, at [0, 64).
    const auto overlap = kind_of(dense_parts(g, 32));
    CHECK(overlap.kind == PlanError::Kind::parts_overlap);
    CHECK(overlap.value == id(g, "c1"));
    CHECK(overlap.other == id(g, "x1"));
    // Overlapping parts are refused even when their whole's size is not known yet.
    const auto c3_unknown = [&](ValueId v) { return v == id(g, "c3") ? std::nullopt : oracle(v); };
    for (auto policy : {orm::UnknownSizes::defer, orm::UnknownSizes::dynamic}) {
        orm::PlanOptions o;
        o.unknown_sizes = policy;
        const auto r = orm::plan_arena(g, dense_parts(g, 32), c3_unknown, o);
        REQUIRE_FALSE(r.has_value());
        CHECK(r.error().kind == PlanError::Kind::parts_overlap);
    }
    // Past c3's end.
    auto past = dense_parts(g);
    past.insert_part(id(g, "x2"), id(g, "c3"), 100);
    CHECK(kind_of(past).kind == PlanError::Kind::view_outside_root);
    // A graph input is written by no node.
    auto input = dense_parts(g);
    input.insert_part(id(g, "x"), id(g, "c3"), 0);
    const auto e = kind_of(input);
    CHECK(e.kind == PlanError::Kind::part_not_produced);
    CHECK(e.value == id(g, "x"));
    // y (made by D, after c3) cannot be a part of c3.
    auto later = dense_parts(g);
    later.insert_part(id(g, "y"), id(g, "c3"), 0);
    const auto after = kind_of(later);
    CHECK(after.kind == PlanError::Kind::part_after_whole);
    CHECK(after.value == id(g, "y"));
    CHECK(after.node == 6);
    CHECK(after.message().find("after that value is produced") != std::string::npos);

    // validate checks the parts itself: the plan of the good map is
    // rejected against a map whose parts overlap, and moved parts are caught.
    const auto plan = arena_ok(g, dense_parts(g));
    const auto v = orm::validate_arena(g, dense_parts(g, 32), plan, oracle, 64);
    REQUIRE_FALSE(v.has_value());
    CHECK(v.error().kind == ValidateError::Kind::parts_overlap);
    auto moved = plan;
    moved.offsets[id(g, "x1")] += 1;
    CHECK(orm::validate_arena(g, dense_parts(g), moved, oracle, 64).error().kind ==
          ValidateError::Kind::view_offset_mismatch);
    // And the parts' bytes hold c3 from A on: an interval starting later is caught.
    auto live = *orm::compute_liveness(g, dense_parts(g));
    live.intervals[id(g, "c3")].def = 2;
    const auto late = orm::validate_liveness(g, dense_parts(g), live);
    REQUIRE_FALSE(late.has_value());
}

TEST_CASE("parts: in place, the memory-aware order and the re-planner keep them") {
    const auto g = dense_block();
    const auto views = dense_parts(g);
    const auto oracle = orm::static_size_oracle(g);
    orm::PlanOptions options;
    options.inplace = {{id(g, "y"), id(g, "c3")}};  // D may not write over c3: its parts live there
    CHECK(*orm::explain_inplace(g, views, options) == std::vector<orm::InplaceResult>{orm::InplaceResult::input_holds_windows});

    const auto order = orm::memory_aware_order(g, views, oracle);
    REQUIRE(order.has_value());
    CHECK(order->peak_bytes == 128 + 16);
    const auto ordered = orm::in_order(g, order->order);
    REQUIRE(ordered.has_value());
    const auto planned = orm::plan_arena(*ordered, views, orm::static_size_oracle(*ordered));
    REQUIRE(planned.has_value());
    CHECK(orm::validate_arena(*ordered, views, planned->plan(), orm::static_size_oracle(*ordered), 64).has_value());

    auto model = orm::PlannedModel::create(g, views);
    REQUIRE(model.has_value());
    REQUIRE(model->plan(oracle).has_value());
    CHECK(model->validate(g, oracle).has_value());
    CHECK(model->no_op_nodes() == std::vector<orm::NodeIndex>{1, 3, 5});
    CHECK(model->placements()[id(g, "x1")].kind == orm::ValueKind::part);
    CHECK(model->arena().arena_bytes == 144);
}

TEST_CASE("parts: a KV cache is a graph input and output sharing one buffer the executor holds, nothing of it in the arena") {
    // One decoder step at t = 4 cached tokens of 8 floats: k = MatMul(x, wk)
    // (1 x 8), present = Concat(past, k) (5 x 8), y = Attend(present, x).
    ir::Builder b("decoder_step");
    const auto f = ElementType::float32;
    b.tensor("x", f, {1, 8}).tensor("wk", f, {8, 8}).tensor("past", f, {4, 8}).tensor("k", f, {1, 8});
    b.tensor("present", f, {5, 8}).tensor("y", f, {1, 8});
    b.input("x").input("past").weight("wk").node("MatMul", {"x", "wk"}, {"k"});
    b.node("Concat", {"past", "k"}, {"present"}).node("Attend", {"present", "x"}, {"y"}).output("present").output("y");
    const auto g = b.build();
    orm::ViewMap views;
    views.insert_part(id(g, "past"), id(g, "present"), 0);
    views.insert_part(id(g, "k"), id(g, "present"), 4 * 8 * 4);  // appended after the 4 cached rows
    orm::PlanOptions options;
    options.outputs = orm::OutputPlacement::external;
    const auto oracle = orm::static_size_oracle(g);

    const auto plan = orm::plan_arena(g, views, oracle, options);
    REQUIRE(plan.has_value());
    REQUIRE(plan->is_complete());
    CHECK(plan->plan().arena_bytes == 0);  // k is written straight into the cache
    CHECK(orm::validate_arena(g, views, plan->plan(), oracle, 64, options).has_value());
    const auto table = orm::placements(g, views, plan->plan(), oracle, options);
    REQUIRE(table.has_value());
    CHECK((*table)[id(g, "past")].kind == orm::ValueKind::part);
    CHECK((*table)[id(g, "past")].root == id(g, "present"));
    CHECK((*table)[id(g, "k")].kind == orm::ValueKind::part);
    CHECK((*table)[id(g, "k")].window == 128);
    CHECK((*table)[id(g, "present")].kind == orm::ValueKind::graph_output);
    CHECK(orm::no_op_nodes(g, views, oracle, options) == std::vector<orm::NodeIndex>{1});  // the Concat

    // With the cache in the arena, a graph input cannot be written into it.
    const auto in_arena = orm::plan_arena(g, views, oracle);
    REQUIRE_FALSE(in_arena.has_value());
    CHECK(in_arena.error().kind == PlanError::Kind::part_not_produced);
    CHECK(in_arena.error().value == id(g, "past"));
}

TEST_CASE("parts: one PlannedModel serves a decoder step after step, the new entry appended where the cache ends") {
    // Step t, t tokens cached (8 floats each): k = MatMul(x, wk), appended
    // to the cache at row t (present = Concat(past, k), one buffer the
    // executor holds); kh = Slice(k), k's second half, a view of it; s = Scores(present,
    // x), t + 1 floats; y = Attend(s, present, kh). Sizes by the step.
    ir::Builder b("decoder");
    const auto f = ElementType::float32;
    b.tensor("x", f, {1, 8}).tensor("wk", f, {8, 8}).tensor("past", f, {0, 8}).tensor("k", f, {1, 8});
    b.tensor("kh", f, {1, 4}).tensor("present", f, {1, 8}).tensor("s", f, {1, 1}).tensor("y", f, {1, 8});
    b.input("x").input("past").weight("wk").node("MatMul", {"x", "wk"}, {"k"});
    b.node("Concat", {"past", "k"}, {"present"}).node("Slice", {"k"}, {"kh"}).node("Scores", {"present", "x"}, {"s"});
    b.node("Attend", {"s", "present", "kh"}, {"y"}).output("present").output("y");
    const auto g = b.build();
    const ValueId past = id(g, "past"), k = id(g, "k"), kh = id(g, "kh"), present = id(g, "present"), s = id(g, "s");
    const auto views_at = [&](std::size_t t) {
        orm::ViewMap views;
        views.insert_part(past, present, 0);
        views.insert_part(k, present, t * 32);
        views.insert(kh, k, 16);
        return views;
    };
    const auto sizes_at = [&](std::size_t t) {
        return [&g, past, present, s, t](ValueId v) -> std::optional<std::size_t> {
            if (v == past) return t * 32;
            if (v == present) return (t + 1) * 32;
            if (v == s) return (t + 1) * 4;
            return orm::static_size_oracle(g)(v);
        };
    };
    orm::PlanOptions options;
    options.outputs = orm::OutputPlacement::external;
    auto model = orm::PlannedModel::create(g, views_at(0), options);
    INFO((model ? std::string("created") : model.error().message()));
    REQUIRE(model.has_value());
    for (std::size_t t = 0; t < 8; ++t) {
        INFO("step " << t);
        REQUIRE(model->move_part(k, t * 32).has_value());
        CHECK(model->views().offset_of(k) == t * 32);
        const auto oracle = sizes_at(t);
        REQUIRE(model->plan(oracle) == orm::PlannedModel::Outcome::complete);
        CHECK(model->validate(g, oracle).has_value());
        const auto fresh = orm::plan_arena(g, views_at(t), oracle, options);
        REQUIRE(fresh.has_value());
        CHECK(model->arena() == fresh->plan());  // as planning the step afresh
        CHECK(model->arena().arena_bytes == (t + 1) * 4);  // only the scores: the cache is the executor's
        const auto& table = model->placements();
        CHECK(table[past].window == 0);
        CHECK(table[k].window == t * 32);
        CHECK(table[kh].window == t * 32 + 16);
        CHECK(table[k].root == present);
        CHECK(model->no_op_nodes() == std::vector<orm::NodeIndex>{1});  // the Concat copies nothing
        const auto checked = orm::placements(g, views_at(t), model->arena(), oracle, options);
        REQUIRE(checked.has_value());
        CHECK(*checked == table);
    }

    // Each misplacement is refused: by move_part, or by the next plan and validate.
    const auto at3 = sizes_at(3);
    CHECK(model->move_part(id(g, "x"), 0).error().kind == PlanError::Kind::not_a_part);
    CHECK(model->move_part(kh, 0).error().kind == PlanError::Kind::not_a_part);  // a view, not a part
    REQUIRE(model->move_part(k, 4 * 32).has_value());  // past the end of a 4-row present
    auto out = model->plan(at3);
    REQUIRE_FALSE(out.has_value());
    CHECK(out.error().kind == PlanError::Kind::view_outside_root);
    CHECK(out.error().value == k);
    const auto past_end = orm::validate_arena(g, views_at(4), model->arena(), at3, 64, options);  // validate's own sum
    REQUIRE_FALSE(past_end.has_value());
    CHECK(past_end.error().kind == ValidateError::Kind::view_outside_root);
    CHECK(past_end.error().capacity == 4 * 32);  // the cache the executor holds, as the oracle sizes it
    REQUIRE(model->move_part(k, 2 * 32 + 16).has_value());  // into the cached rows
    out = model->plan(at3);
    REQUIRE_FALSE(out.has_value());
    CHECK(out.error().kind == PlanError::Kind::parts_overlap);
    const auto overflow = model->move_part(k, SIZE_MAX - 8);  // kh would start past SIZE_MAX
    REQUIRE_FALSE(overflow.has_value());
    CHECK(overflow.error().kind == PlanError::Kind::view_outside_root);
    CHECK(overflow.error().value == kh);
    CHECK(model->views().offset_of(k) == 2 * 32 + 16);  // nothing moved
    CHECK(model->placements()[kh].window == 7 * 32 + 16);  // the last complete request's table
    REQUIRE(model->move_part(k, 3 * 32).has_value());
    CHECK(model->plan(at3) == orm::PlannedModel::Outcome::complete);
    CHECK(model->validate(g, at3).has_value());
}

TEST_CASE("parts: random graphs with Concats in place run on bytes as one buffer per tensor does, every plan valid, a part moved onto a sibling refused") {
    // Each case: a chain of ops, each reading the last value and a random
    // earlier one; now and then a Concat of 1-4 earlier values (an earlier
    // Concat's inputs first, at times, as DenseNet does), its free inputs
    // made parts at their offsets by ir::add_slices. Planned (arena, slots,
    // the memory-aware order), validated, and run out of the arena (filled
    // with 0xA5, the no-op nodes skipped) against one buffer per tensor.
    std::size_t overlaps_tried = 0;
    for (std::uint64_t seed = 0; seed < 200; ++seed) {
        RandomGraph r("random_parts", seed);
        auto& [rng, b, names, bytes] = r;
        const auto pick = [&](std::size_t n) { return r.pick(n); };
        const auto make = [&](std::size_t n) { return r.make(n); };
        std::size_t last = make(1 + pick(32));
        b.input(names[last]);
        std::vector<std::size_t> made{last};
        std::vector<std::vector<std::size_t>> concats;
        std::vector<std::pair<std::size_t, std::size_t>> op_hints;  // (output, input) of each Op
        for (std::size_t n = 0, nodes = 6 + pick(14); n < nodes; ++n) {
            if (pick(3) == 0) {
                std::vector<std::size_t> ins;
                if (!concats.empty() && pick(2) == 0) ins = concats[pick(concats.size())];
                for (std::size_t k = 0, more = 1 + pick(3); k < more; ++k) ins.push_back(made[pick(made.size())]);
                std::size_t total = 0;
                for (std::size_t v : ins) total += bytes[v];
                const std::size_t out = make(total);
                std::vector<ValueId> in_ids;
                for (std::size_t v : ins) in_ids.push_back(b.id(names[v]));
                b.graph().add_node("Concat", in_ids, std::vector<ValueId>{b.id(names[out])});
                concats.push_back(ins);
                made.push_back(out);
                last = out;
                continue;
            }
            const std::size_t other = made[pick(made.size())], out = make(1 + pick(64));
            b.node("Op", {names[last], names[other]}, {names[out]});
            op_hints.emplace_back(out, last);
            made.push_back(out);
            last = out;
        }
        b.output(names[last]);
        const auto g = b.build();
        orm::ViewMap views;
        const auto sliced = ir::add_slices(g, views);
        orm::PlanOptions in_place;  // each Op over its first input, where the planner finds it safe
        for (const auto& [out, in] : op_hints) in_place.inplace.push_back({b.id(names[out]), b.id(names[in])});
        INFO("seed " << seed << ", " << sliced.parts << " parts");
        const auto oracle = orm::static_size_oracle(g);
        const auto plan = arena_ok(g, views);
        const auto slots = orm::plan_activations(g, views, oracle);
        REQUIRE(slots.has_value());
        REQUIRE(orm::validate(g, views, slots->plan(), oracle).has_value());
        const auto order = orm::memory_aware_order(g, views, oracle);
        REQUIRE(order.has_value());
        const auto ordered = orm::in_order(g, order->order);
        REQUIRE(ordered.has_value());
        const auto in_new_order = orm::plan_arena(*ordered, views, orm::static_size_oracle(*ordered));
        REQUIRE(in_new_order.has_value());
        REQUIRE(orm::validate_arena(*ordered, views, in_new_order->plan(), orm::static_size_oracle(*ordered), 64).has_value());
        arena_ok(g, views, in_place);  // with in-place hints too: valid
        const auto slots_in_place = orm::plan_activations(g, views, oracle, in_place);
        REQUIRE(slots_in_place.has_value());
        REQUIRE(orm::validate(g, views, slots_in_place->plan(), oracle, in_place).has_value());

        std::vector<std::uint8_t> arena(plan.arena_bytes, 0xA5), input(bytes[0]);
        for (std::size_t i = 0; i < input.size(); ++i) input[i] = static_cast<std::uint8_t>(seed + 3 * i);
        const ValueId x = b.id(names[0]);
        run_block(g, [&](ValueId v) { return v == x ? input.data() : arena.data() + *plan.offset_of(v); },
                  orm::no_op_nodes(g, views, oracle));
        std::vector<std::vector<std::uint8_t>> own(g.value_count());
        for (ValueId v = 0; v < g.value_count(); ++v) own[v].resize(bytes[v]);
        own[x] = input;
        run_block(g, [&](ValueId v) { return own[v].data(); }, {});
        const ValueId y = b.id(names[last]);
        CHECK(std::equal(own[y].begin(), own[y].end(), arena.begin() + static_cast<std::ptrdiff_t>(*plan.offset_of(y))));

        // A part moved onto a sibling (another part of its whole, where it
        // still fits): planning and validate both refuse it.
        std::optional<std::pair<ValueId, ValueId>> moved;  // (part, the sibling whose offset it takes)
        views.for_each([&](ValueId v, ValueId whole) {
            views.for_each([&](ValueId u, ValueId other_whole) {
                if (moved || u == v || whole != other_whole || !views.is_part(v) || !views.is_part(u)) return;
                if (*oracle(v) > 0 && *oracle(u) > 0 && views.offset_of(u) + *oracle(v) <= *oracle(whole)) moved = {v, u};
            });
        });
        if (!moved) continue;
        orm::ViewMap bad = views;
        bad.insert_part(moved->first, *views.source_of(moved->first), views.offset_of(moved->second));
        const auto refused = orm::plan_arena(g, bad, oracle);
        REQUIRE_FALSE(refused.has_value());
        CHECK(refused.error().kind == PlanError::Kind::parts_overlap);
        const auto rejected = orm::validate_arena(g, bad, plan, oracle, 64);
        REQUIRE_FALSE(rejected.has_value());
        CHECK(rejected.error().kind == ValidateError::Kind::parts_overlap);
        ++overlaps_tried;
    }
    CHECK(overlaps_tried > 50);
}

TEST_CASE("parts: a whole whose parts are all read before it is produced still holds the node writing it") {
    // x -> A -> p; B(p) -> q; D(q) -> y; then c = Fill(x), read by no node,
    // with p and q declared its parts (a node may write a whole without
    // reading its parts). The parts' reads end at D (2), before Fill (3):
    // c must still live through the node that writes it.
    ir::Builder b("unread_whole");
    b.tensor("x", u8, {1, 8}).tensor("p", u8, {1, 16}).tensor("q", u8, {1, 16}).tensor("c", u8, {1, 32});
    b.tensor("y", u8, {1, 8});
    b.input("x").node("A", {"x"}, {"p"}).node("B", {"p"}, {"q"}).node("D", {"q"}, {"y"}).node("Fill", {"x"}, {"c"});
    b.output("y");
    const auto g = b.build();
    orm::ViewMap views;
    views.insert_part(id(g, "p"), id(g, "c"), 0);
    views.insert_part(id(g, "q"), id(g, "c"), 16);
    const auto live = orm::compute_liveness(g, views);
    REQUIRE(live.has_value());
    CHECK(test::iv(*live, g, "c") == orm::Interval{0, 3});  // Fill, at 3, in it
    CHECK(orm::validate_liveness(g, views, *live).has_value());
    arena_ok(g, views);
}
