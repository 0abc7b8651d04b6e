// libFuzzer: reader + planner + validate. Whatever the input, planning
// returns a plan or an error value, and every plan returned validates, in
// the file's order and in a topological order, with static and bounded
// sizes: slot plans (every strategy, and re-planned by ActivationPlanner)
// and arena plans. A plan that fails validation aborts: that is the bug we
// hunt. Hostile shapes too: the same graph through 128-bit ids (some pushed
// past 2^64) and through ranges that change on every call; a tampered
// liveness handed back in; tampered plans, which validate must reject
// unless they are truly safe; the executor's policies (outputs outside the
// arena, unknown sizes dynamic, scratch); in-place hints in any order, on
// graph inputs and many-output nodes, with zero sizes and an empty pin; the
// memory-aware order; plans for streams.
#include <onnx_runtime_memory/onnx_runtime_memory.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "ir/graph_text.hpp"

namespace orm = onnx_runtime_memory;

namespace {

template <class G, class Oracle>
void plan_and_check(const G& g, const orm::ViewMap& views, const Oracle& oracle, const orm::PlanOptions& options) {
    auto status = orm::plan_activations(g, views, oracle, options);
    if (!status || status->is_deferred()) return;
    const auto& plan = status->plan();
    if (auto ok = orm::validate(g, views, plan, oracle, options); !ok) {
        std::fprintf(stderr, "INVALID PLAN: %s\n", ok.error().message().c_str());
        std::abort();
    }
    if (plan.peak_bytes > plan.naive_bytes) std::abort();
    auto again = orm::plan_activations(g, views, oracle, options);
    if (!again || !(again->plan() == plan)) std::abort();  // deterministic

    auto live = orm::compute_liveness(g, views, options);
    for (auto strategy : {orm::SlotStrategy::in_order_growth, orm::SlotStrategy::greedy_by_size,
                          orm::SlotStrategy::greedy_by_distance, orm::SlotStrategy::least}) {
        auto other = orm::plan_activations(*live, oracle, strategy);
        if (!other || !orm::validate(g, views, other->plan(), oracle, options)) std::abort();
    }
    auto planner = orm::ActivationPlanner::create(g, views, options);
    orm::ActivationPlan replanned;
    if (!planner || !planner->plan(oracle, replanned) || !(replanned == plan)) std::abort();

    orm::ArenaOptions arena_options;
    arena_options.alignment = 16;
    arena_options.search_iterations = 2;
    arena_options.exact_nodes = 300;
    auto arena = orm::plan_arena(*live, oracle, arena_options);
    if (!arena) return;  // rounding sizes up to the alignment may overflow: an error value, fine
    if (arena->is_complete()) {
        if (auto ok = orm::validate_arena(g, views, arena->plan(), oracle, arena_options.alignment, options); !ok) {
            std::fprintf(stderr, "INVALID ARENA: %s\n", ok.error().message().c_str());
            std::abort();
        }
    }
}

// The graph with every id as a signed 128-bit integer; ids listed in
// `pushed` are moved up by 2^64 (out of range: never to be read as the id).
template <class G>
struct WideIds {
    __extension__ using id = __int128;
    const G* g;
    std::uint64_t pushed;  // a bit mask over value ids mod 64
    std::vector<id> wide(std::span<const orm::ValueId> ids) const {
        std::vector<id> out;
        for (orm::ValueId v : ids) out.push_back((pushed >> (v % 64) & 1) ? (id{1} << 64) + v : id{v});
        return out;
    }
    std::size_t value_count() const { return g->value_count(); }
    std::size_t node_count() const { return g->node_count(); }
    std::vector<id> node_inputs(std::size_t n) const { return wide(g->node_inputs(n)); }
    std::vector<id> node_outputs(std::size_t n) const { return wide(g->node_outputs(n)); }
    std::vector<id> graph_inputs() const { return wide(g->graph_inputs()); }
    std::vector<id> graph_outputs() const { return wide(g->graph_outputs()); }
    bool is_initializer(orm::ValueId v) const { return g->is_initializer(v); }
};

// The graph with node_inputs dropping or repeating ids on some calls.
template <class G>
struct Unstable {
    const G* g;
    mutable std::uint64_t calls;
    std::vector<orm::ValueId> node_inputs(std::size_t n) const {
        auto in = g->node_inputs(n);
        std::vector<orm::ValueId> out(in.begin(), in.end());
        const std::uint64_t c = ++calls * 0x9E3779B97F4A7C15ull >> 60;
        if (c % 3 == 0 && !out.empty()) out.pop_back();
        if (c % 3 == 1 && !out.empty()) out.push_back(out.front());
        return out;
    }
    std::size_t value_count() const { return g->value_count(); }
    std::size_t node_count() const { return g->node_count(); }
    auto node_outputs(std::size_t n) const { return g->node_outputs(n); }
    auto graph_inputs() const { return g->graph_inputs(); }
    auto graph_outputs() const { return g->graph_outputs(); }
    bool is_initializer(orm::ValueId v) const { return g->is_initializer(v); }
};

// A tampered liveness: every entry point returns an error or a plan, and
// never reads out of bounds.
void tamper_liveness(orm::Liveness live, std::uint64_t h) {
    const auto four = [](orm::ValueId) { return std::optional<std::size_t>(4); };
    const std::size_t V = live.intervals.size();
    if (V > 0) {
        const std::size_t v = h % V;
        switch ((h >> 8) % 6) {
            case 0: live.intervals[v].use_end += static_cast<orm::NodeIndex>(h >> 16 & 0xFF); break;
            case 1: live.intervals[v].def = static_cast<orm::NodeIndex>(h >> 16 & 0xFF); break;
            case 2: live.roots[v] = static_cast<orm::ValueId>(h >> 16); break;
            case 3: if (!live.owners.empty()) live.owners.pop_back(); break;
            case 4: live.allocation_order.push_back(static_cast<orm::ValueId>(v)); break;
            default: live.last_position = static_cast<orm::NodeIndex>(h >> 16 & 0xFFFF); break;  // large ones only cost memory
        }
    }
    (void)orm::plan_activations(live, four);
    (void)orm::plan_arena(live, four);
    (void)orm::lower_bounds(live, four);
    orm::ActivationPlanner planner(live);
    orm::ActivationPlan out;
    (void)planner.plan(four, out);
}

// A tampered slot plan: if validate accepts it, it must be truly safe.
template <class G, class Oracle>
void tamper_plan(const G& g, const orm::ViewMap& views, orm::ActivationPlan plan, const Oracle& oracle,
                 const orm::PlanOptions& options, std::uint64_t h) {
    const std::size_t n = plan.slots.size();
    switch (h % 5) {
        case 0: plan.peak_bytes -= h >> 8 & 0xF; break;
        case 1: if (n > 1) std::swap(plan.slots[h % n], plan.slots[(h >> 8) % n]); break;
        case 2: if (n > 0) plan.slots[h % n].capacity -= std::min<std::size_t>(plan.slots[h % n].capacity, h >> 8 & 0xF); break;
        case 3: if (!plan.assignments.empty()) plan.assignments[h % plan.assignments.size()] = orm::SlotId{static_cast<std::uint32_t>((h >> 8) % (n + 2))}; break;
        default: if (n > 1) plan.slots[h % n].id = plan.slots[(h >> 8) % n].id; break;
    }
    if (!orm::validate(g, views, plan, oracle, options)) return;
    // Accepted: check what it claims from first principles.
    auto live = orm::compute_liveness(g, views, options);
    std::size_t total = 0;
    for (std::size_t k = 0; k < n; ++k) {
        if (plan.slots[k].id.value != k) std::abort();
        total += plan.slots[k].capacity;
    }
    if (total != plan.peak_bytes) std::abort();
    const auto& owners = live->owners;
    if (owners.size() > 300) return;
    for (std::size_t a = 0; a < owners.size(); ++a) {
        const auto sa = plan.slot_of(owners[a]);
        if (!sa || sa->value >= n) std::abort();
        if (const auto need = oracle(owners[a]); need && *need > plan.slots[sa->value].capacity) std::abort();
        for (std::size_t b = a + 1; b < owners.size(); ++b)
            if (plan.slot_of(owners[b]) == sa && live->intervals[owners[a]].overlaps(live->intervals[owners[b]]))
                std::abort();
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    auto g = ir::read_graph_text(std::string_view(reinterpret_cast<const char*>(data), size));
    if (!g) return 0;
    // Ops whose name starts with 'V' make views: output 0 of input 0; `view`
    // and `part` lines make views at an offset and parts. The fuzzer may also
    // chain them into cycles, views of anything, windows past their roots,
    // overlapping parts or parts written late.
    orm::ViewMap views;
    for (std::size_t n = 0; n < g->node_count(); ++n)
        if (g->op_type(n).starts_with("V") && !g->node_inputs(n).empty() && !g->node_outputs(n).empty())
            views.insert(g->node_outputs(n)[0], g->node_inputs(n)[0]);
    for (const auto& s : g->stated_views()) {
        if (s.part) views.insert_part(s.view, s.source, s.offset);
        else views.insert(s.view, s.source, s.offset);
    }
    const orm::PlanOptions options{size % 2 == 1};
    for (const orm::NodeIndex n : orm::no_op_nodes(*g, views, orm::static_size_oracle(*g), options))  // reads parts of its one output
        if (g->node_outputs(n).size() != 1 || g->node_inputs(n).empty()) std::abort();
    const orm::SymbolBounds bounds{{"batch", 3}, {"n", 7}, {"s", 1u << 20}};

    std::uint64_t h = 1469598103934665603ull;  // FNV-1a of the input drives the tampering
    for (std::size_t k = 0; k < size; ++k) h = (h ^ data[k]) * 1099511628211ull;

    plan_and_check(*g, views, orm::static_size_oracle(*g), options);
    const auto oracle = orm::static_size_oracle(*g);
    {
        // 128-bit ids: the same plan when none is pushed past 2^64, an error otherwise.
        const WideIds<ir::Graph> wide{&*g, h % 4 == 0 ? 0 : h};
        auto a = orm::plan_activations(*g, views, oracle, options);
        auto b = orm::plan_activations(wide, views, oracle, options);
        if (wide.pushed == 0 && (a.has_value() != b.has_value() || (a && !(*a == *b)))) std::abort();
        if (b && b->is_complete() && !orm::validate(wide, views, b->plan(), oracle, options)) std::abort();
        (void)orm::topological_order(wide);
    }
    {
        const Unstable<ir::Graph> unstable{&*g, h};
        (void)orm::topological_order(unstable);
        (void)orm::plan_activations(unstable, views, oracle, options);
        (void)orm::compute_liveness(unstable, views, options);
    }
    {
        // The executor's policies: outputs outside, unknown sizes dynamic. Plans that validate.
        orm::PlanOptions policies = options;
        policies.outputs = h % 2 ? orm::OutputPlacement::external : orm::OutputPlacement::in_arena;
        policies.unknown_sizes = orm::UnknownSizes::dynamic;
        for (std::size_t n = 0; n < g->node_count(); ++n)  // scratch for some nodes
            policies.scratch_bytes.push_back((h >> (n % 61)) & 1 ? (h >> (n % 53)) % 512 : 0);
        if (auto s = orm::plan_activations(*g, views, oracle, policies); s && s->is_complete())
            if (auto ok = orm::validate(*g, views, s->plan(), oracle, policies); !ok) {
                std::fprintf(stderr, "INVALID PLAN (policies): %s\n", ok.error().message().c_str());
                std::abort();
            }
        if (auto a = orm::plan_arena(*g, views, oracle, policies, orm::ArenaOptions{}); a && a->is_complete())
            if (auto ok = orm::validate_arena(*g, views, a->plan(), oracle, 64, policies); !ok) {
                std::fprintf(stderr, "INVALID ARENA (policies): %s\n", ok.error().message().c_str());
                std::abort();
            }
    }
    {
        // In place: hints from each node's outputs to its inputs, in an order
        // the input shuffles (multi-output nodes: several folds, any order),
        // some naming a graph input as the output (taken never: no node writes
        // it), with graph inputs in the arena or not; some sizes zero, an
        // empty owner pinned. Every plan and liveness validates.
        orm::PlanOptions in_place = options;
        in_place.include_graph_inputs = h % 3 != 0;
        std::uint64_t r = h;
        const auto next = [&r] {
            r = r * 6364136223846793005ull + 1442695040888963407ull;
            return r >> 33;
        };
        for (std::size_t n = 0; n < g->node_count(); ++n)
            for (orm::ValueId out : g->node_outputs(n))
                for (orm::ValueId in : g->node_inputs(n))
                    if (next() % 2) in_place.inplace.push_back({out, in});
        for (orm::ValueId x : g->graph_inputs())
            if (next() % 2) in_place.inplace.push_back({x, g->graph_inputs()[next() % g->graph_inputs().size()]});
        for (std::size_t k = in_place.inplace.size(); k > 1; --k) std::swap(in_place.inplace[k - 1], in_place.inplace[next() % k]);
        const auto zeroed = [&](orm::ValueId v) {
            auto bytes = oracle(v);
            if (bytes && ((v * 0x9E3779B97F4A7C15ull) ^ h) % 4 == 0) *bytes = 0;
            return bytes;
        };
        if (auto live = orm::compute_liveness(*g, views, in_place)) {
            if (auto ok = orm::validate_liveness(*g, views, *live, in_place); !ok) {
                std::fprintf(stderr, "INVALID LIVENESS (in place): %s\n", ok.error().message().c_str());
                std::abort();
            }
            for (orm::ValueId v : live->owners)  // an empty owner pinned high: the arena reaches it
                if (zeroed(v) == std::optional<std::size_t>(0)) {
                    in_place.pinned.push_back({v, std::size_t{64} << (h % 20)});
                    break;
                }
        }
        if (auto s = orm::plan_activations(*g, views, zeroed, in_place); s && s->is_complete())
            if (auto ok = orm::validate(*g, views, s->plan(), zeroed, in_place); !ok) {
                std::fprintf(stderr, "INVALID PLAN (in place): %s\n", ok.error().message().c_str());
                std::abort();
            }
        if (auto a = orm::plan_arena(*g, views, zeroed, in_place); a && a->is_complete())
            if (auto ok = orm::validate_arena(*g, views, a->plan(), zeroed, 64, in_place); !ok) {
                std::fprintf(stderr, "INVALID ARENA (in place): %s\n", ok.error().message().c_str());
                std::abort();
            }
    }
    if (auto live = orm::compute_liveness(*g, views, options)) {
        // The graph-free layer on the owners, handed in reversed: offsets that validate.
        orm::OwnerSizes sizes;
        orm::size_owners(*live, oracle, sizes);
        std::vector<orm::Buffer> buffers;
        orm::owner_buffers(*live, sizes.bytes, buffers);
        std::reverse(buffers.begin(), buffers.end());
        orm::ArenaOptions o;
        o.alignment = std::size_t{1} << (h % 7);
        o.exact_nodes = 200;
        if (auto placed = orm::plan_offsets(buffers, o))
            if (auto ok = orm::validate_offsets(buffers, *placed, o.alignment); !ok) {
                std::fprintf(stderr, "INVALID OFFSETS: %s\n", ok.error().message().c_str());
                std::abort();
            }
        // Across spaces: a device of a random fraction of the total, then a host; every plan validates.
        orm::GraphSpaceOptions spaces;
        std::size_t total = 0;
        for (const auto& r : buffers) total = r.size > SIZE_MAX - total ? SIZE_MAX : total + r.size;
        spaces.spaces = {{"device", total / (1 + h % 5), std::size_t{1} << (h % 9)}, {"host", orm::unbounded, 64}};
        if (h & 1) spaces.scratch = {1};
        if (h & 2) spaces.graph_outputs = {1, 0};
        if (auto spaced = orm::plan_arena_spaces(*g, views, oracle, options, spaces); spaced && spaced->is_complete())
            if (auto ok = orm::validate_arena_spaces(*g, views, spaced->plan(), oracle, options, spaces); !ok) {
                std::fprintf(stderr, "INVALID SPACES: %s\n", ok.error().message().c_str());
                std::abort();
            }
        // Spilled: the same device as the fast space; every plan validates and moves no fewer bytes than its
        // bound; below a node's floor, the error lists a node.
        orm::SpillOptions spill;
        spill.fast = spaces.spaces[0];
        spill.strategy = static_cast<orm::SpillStrategy>(h % 3);
        if (auto spilled = orm::plan_arena_spill(*g, views, oracle, options, spill)) {
            if (spilled->is_complete()) {
                if (auto ok = orm::validate_arena_spill(*g, views, spilled->plan(), oracle, options, spill); !ok) {
                    std::fprintf(stderr, "INVALID SPILL: %s\n", ok.error().message().c_str());
                    std::abort();
                }
            }
        } else if (spilled.error().kind == orm::SpillError::Kind::below_floor && spilled.error().over.empty()) {
            std::abort();
        }
        tamper_liveness(*live, h);
        if (auto status = orm::plan_activations(*live, oracle); status && status->is_complete())
            tamper_plan(*g, views, status->plan(), oracle, options, h >> 3);
    }
    {
        // Streams: each node on one of up to 4 streams, some events (some
        // backwards or out of range), scratch for some nodes, pins on a
        // third of the runs, in-place hints on a quarter, a small work
        // budget now and then: an error value or a plan that
        // validate_arena_concurrent accepts, the same plan twice, never
        // below its bound; one stream is plan_arena's plan.
        orm::Streams streams;
        const std::size_t N = g->node_count(), K = 1 + h % 4;
        for (std::size_t n = 0; n < N; ++n) streams.stream_of.push_back(static_cast<std::uint32_t>((h >> (n % 59)) % K));
        for (std::size_t e = 0; N > 0 && e < (h >> 5) % 4; ++e)
            streams.events.emplace_back(static_cast<orm::NodeIndex>((h >> (e * 7)) % (N + 1)),
                                        static_cast<orm::NodeIndex>((h >> (e * 11 + 3)) % (N + 1)));
        if (h % 17 == 0 && N > 0) streams.stream_of.pop_back();  // one stream too few: bad_streams
        orm::PlanOptions streamed = options;
        for (std::size_t n = 0; n < N; ++n) streamed.scratch_bytes.push_back((h >> (n % 47)) & 1 ? (h >> (n % 43)) % 256 : 0);
        orm::ArenaOptions ao;
        ao.alignment = std::size_t{1} << (h % 7);
        if (h % 5 == 0) ao.work_per_owner = h % 3;
        for (std::size_t n = 0; h % 4 == 2 && n < N; ++n)  // in place where safe on these streams
            if (!g->node_inputs(n).empty() && !g->node_outputs(n).empty() && (h >> (n % 61)) & 1)
                streamed.inplace.push_back({g->node_outputs(n)[0], g->node_inputs(n)[0]});
        for (std::size_t k = 0; h % 3 == 1 && g->value_count() > 0 && k < 1 + (h >> 9) % 3; ++k)  // some not owners
            streamed.pinned.push_back({static_cast<orm::ValueId>((h >> (k * 13)) % g->value_count()),
                                       ((h >> (k * 17 + 4)) % 6) * ao.alignment});
        const auto planned = orm::plan_arena_concurrent(*g, views, oracle, streams, streamed, ao);
        if (planned && planned->is_complete()) {
            const auto& plan = planned->plan();
            if (auto ok = orm::validate_arena_concurrent(*g, views, plan, oracle, streams, ao.alignment, streamed); !ok) {
                std::fprintf(stderr, "INVALID ARENA (streams): %s\n", ok.error().message().c_str());
                std::abort();
            }
            if (plan.proven_bound_bytes > plan.arena_bytes) std::abort();
            const auto again = orm::plan_arena_concurrent(*g, views, oracle, streams, streamed, ao);
            if (!again || !(again->plan() == plan)) std::abort();  // deterministic
        }
    }
    {
        // The memory-aware order: a topological order whose peak is the
        // planner's bound in it (where every size is known), never above the
        // given order's, never below its own lower bound; its plan validates.
        orm::OrderOptions oo;
        oo.alignment = std::size_t{1} << (h % 5);
        oo.exact_steps = std::size_t{1} << 14;
        oo.window_steps = std::size_t{1} << 12;
        if (auto mo = orm::memory_aware_order(*g, views, oracle, options, oo)) {
            auto ordered = orm::in_order(*g, mo->order);
            if (!ordered) std::abort();
            const auto rounded = [&](orm::ValueId v) {
                auto bytes = oracle(v);
                // A multiple of the alignment stays as it is, even next to SIZE_MAX.
                if (bytes && *bytes % oo.alignment != 0) {
                    const std::size_t up = oo.alignment - *bytes % oo.alignment;
                    *bytes = *bytes > SIZE_MAX - up ? SIZE_MAX : *bytes + up;
                }
                return bytes;
            };
            auto live = orm::compute_liveness(*ordered, views, options);
            if (!live) std::abort();
            const auto bound = orm::lower_bounds(*live, rounded);  // none where a size is unknown
            if ((bound && bound->offset_bytes != mo->peak_bytes) || mo->peak_bytes > mo->given_peak_bytes ||
                mo->lower_bound_bytes > mo->peak_bytes) {
                std::fprintf(stderr, "MEMORY ORDER: peak %zu, given %zu, lower bound %zu, planner's bound %zu\n",
                             mo->peak_bytes, mo->given_peak_bytes, mo->lower_bound_bytes, bound ? bound->offset_bytes : 0);
                std::abort();
            }
            plan_and_check(*ordered, views, orm::static_size_oracle(*ordered), options);
        }
    }
    plan_and_check(*g, views, orm::bounded_size_oracle(*g, bounds), options);
    if (auto ordered = orm::in_topological_order(*g)) {
        plan_and_check(*ordered, views, orm::static_size_oracle(*ordered), options);
        if (auto live = orm::compute_liveness(*ordered, views, options); live)
            if (!orm::validate_liveness(*ordered, views, *live)) std::abort();
    }
    return 0;
}
