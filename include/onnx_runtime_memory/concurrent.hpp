// Arena plans for executors that run nodes at the same time: GPU streams,
// a thread pool taking ready nodes, pipelines. The caller says which stream
// runs each node (Streams); a node starts after the nodes before it on its
// stream, the producers of its inputs (on any stream) and the events it
// waits for. Two owners may then share bytes only when every node touching
// one happens strictly before every node touching the other: an order that
// holds however the streams interleave. Nodes all on one stream (whatever
// its id) are the sequential plan, plan_arena's bit for bit.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "arena.hpp"
#include "detail/checked.hpp"
#include "detail/config.hpp"
#include "detail/kept_planning.hpp"
#include "detail/stream_items.hpp"
#include "errors.hpp"
#include "expected.hpp"
#include "graph.hpp"
#include "liveness.hpp"
#include "offsets.hpp"
#include "placements.hpp"
#include "plan_types.hpp"
#include "sizing.hpp"
#include "streams.hpp"
#include "view_map.hpp"

namespace onnx_runtime_memory {

namespace detail {

// The working memory of plan_stream_items, kept by StreamArenaPlanner: a
// request allocates only where it needs more than any before it (more
// items or pairs, or a strategy that had not run). A single plan (`keep`
// false) frees the windows' strategies' memory once they are done, as
// plan_offsets does, so that the steps after them reuse its pages (a
// fresh page costs microseconds on some VMs).
struct StreamWork {
    bool keep = true;
    StreamItems items;
    std::vector<std::uint32_t> item_of;
    StreamSpace space;
    WindowPairs pairs;
    std::vector<Buffer> windows;  // the sequential strategies' problem, and their working memory
    Buffers columns;
    std::vector<std::size_t> born, dying, offset, exact;
    PlaceSpaceHandle place;
    Placement placed;
};

// plan_arena_concurrent from the sizes on: the plan of `planned`'s owners
// (`bytes` by value id) and of each node's `scratch` into `plan`, all but
// its dynamic_values. Shared by plan_arena_concurrent and StreamArenaPlanner.
ONNX_RUNTIME_MEMORY_CORE expected<void, PlanError> plan_stream_items(const Liveness& planned,
                                                                     const std::vector<std::size_t>& bytes,
                                                                     std::span<const std::size_t> scratch,
                                                                     std::span<const PinnedOffset> pins,
                                                                     const NodeTouches& touches, const StreamClocks& clocks,
                                                                     const ArenaOptions& arena_options, StreamWork& work,
                                                                     ArenaPlan& plan);

// Whether the nodes run on more than one stream (else: the sequential plan).
ONNX_RUNTIME_MEMORY_CORE bool several_streams(const StreamClocks& clocks);

// `options` with only the in-place hints that stay safe on `clocks`
// (stream_safe_hints): what a plan for streams folds.
template <activation_graph G>
[[nodiscard]] expected<PlanOptions, PlanError> stream_options(const G& g, const ViewMap& views, const PlanOptions& options,
                                                              const StreamClocks& clocks) {
    PlanOptions safe = options;
    if (options.inplace.empty()) return safe;
    safe.inplace.clear();
    auto unfolded = compute_liveness(g, views, safe);
    if (!unfolded) return unexpected(unfolded.error());
    NodeTouches touches;
    node_touches(g, *unfolded, touches);
    stream_safe_hints(*unfolded, touches, clocks, options.inplace, safe.inplace);
    return safe;
}

// The liveness a plan for streams places: compute_liveness with those hints.
template <activation_graph G>
[[nodiscard]] expected<Liveness, PlanError> stream_liveness(const G& g, const ViewMap& views, const PlanOptions& options,
                                                            const StreamClocks& clocks) {
    if (options.inplace.empty()) return compute_liveness(g, views, options);
    auto safe = stream_options(g, views, options, clocks);
    if (!safe) return unexpected(safe.error());
    return compute_liveness(g, views, *safe);
}

}  // namespace detail

// An arena plan safe under `streams`: every owner (and each node's scratch)
// at an offset where no item it may be in use with at the same time
// overlaps it. A graph input in the arena is there from the start, a kept
// graph output to the end. First the arena planner's strategies
// (plan_offsets) over each item's window in the graph's order, from the
// first node that need not happen before it to its last use
// (detail::StreamItems): safe, and about as fast as the sequential plan. While
// that is above the bound, antichains raise the bound (a greedy one, then
// the heaviest), then the items placed largest first at the lowest offset
// clear of the placed ones they are not ordered with (a test of O(K) a
// pair; where the pairs of all items pass the budget, the owners so, then
// the scratch so above them; where those pass it too and the windows' plan
// is at the windows' own bound, only the top of that plan so, as many
// items as the budget allows: detail::repack_top_by_conflicts); the
// smaller plan kept (ties: the first). proven_bound_bytes: the most of the bytes whose
// spans meet at one position of the graph's order, of the bytes one node
// touches, and of the antichains (items no two of which are ordered,
// detail::antichain_bound) when those ran. With every node on
// one stream, plan_arena's plan, bit for bit (and validate_arena's checks:
// there a graph input no node reads is in use at the first node). Pins
// (PlanOptions::pinned) stay where the caller put them, and the bound
// reaches the highest; across streams two pins whose windows meet must not
// share bytes (pins_overlap, naming a position both windows hold), a
// stricter rule than the sequential one, as the windows' plan needs it.
// An in-place hint is taken where it is safe in one stream and every other
// node touching the input's bytes happens before the node writing over
// them (detail::stream_safe_hints); explain_inplace_on_streams says which.
// bad_streams names the node a description gets wrong (a stream id past
// max_streams, a list of the wrong length, an event out of range or not
// forward). O((N + E + n) K) for the clocks and items, the sequential
// strategies' time, and, only while above the bound, at most
// work_per_owner x max(n, 4096) / 16 steps (pair tests, flow edges) for
// each of the antichains (24 bytes a pair of ordered items), the exact
// placement (for each of the owners and the scratch, when apart) and the
// repack of the top (4 bytes a pair).
template <activation_graph G, size_oracle Oracle>
[[nodiscard]] expected<ArenaStatus, PlanError> plan_arena_concurrent(const G& g, const ViewMap& views, Oracle&& oracle,
                                                                     const Streams& streams,
                                                                     const PlanOptions& options = {},
                                                                     const ArenaOptions& arena_options = {}) {
    auto clocks = detail::stream_clocks(g, streams);
    if (!clocks) return unexpected(clocks.error());
    if (!detail::several_streams(*clocks)) return plan_arena(g, views, oracle, options, arena_options);
    auto live = detail::stream_liveness(g, views, options, *clocks);
    if (!live) return unexpected(live.error());
    auto request = detail::size_for_plan(*live, oracle, options.unknown_sizes, options.scratch_bytes);
    if (!request) return unexpected(request.error());
    auto& sizes = request->sizes;
    if (request->deferred) return ArenaStatus::deferred(std::move(sizes.unknown));
    detail::NodeTouches touches;
    detail::node_touches(g, *live, touches);
    detail::StreamWork work;
    work.keep = false;
    ArenaPlan plan;
    if (auto ok = detail::plan_stream_items(request->planned(*live), sizes.bytes, options.scratch_bytes, options.pinned,
                                            touches, *clocks, arena_options, work, plan);
        !ok)
        return unexpected(ok.error());
    plan.dynamic_values = std::move(sizes.unknown);
    return ArenaStatus::complete(std::move(plan));
}

// The placements of a plan for `streams` (plan_arena_concurrent's), made
// with the same views, streams, options and oracle: placements(), with the
// in-place folds the plan made (those safe on the streams). Every node on
// one stream: placements() as it is.
template <activation_graph G, size_oracle Oracle>
[[nodiscard]] expected<std::vector<ValuePlacement>, PlanError> placements(const G& g, const ViewMap& views,
                                                                          const ArenaPlan& plan, Oracle&& oracle,
                                                                          const Streams& streams,
                                                                          const PlanOptions& options = {}) {
    auto clocks = detail::stream_clocks(g, streams);
    if (!clocks) return unexpected(clocks.error());
    if (!detail::several_streams(*clocks)) return placements(g, views, plan, oracle, options);
    auto safe = detail::stream_options(g, views, options, *clocks);
    if (!safe) return unexpected(safe.error());
    return placements(g, views, plan, oracle, *safe);
}

// What became of each of options.inplace's hints on `streams`, in their
// order: input_read_concurrently where the hinted node is the last to touch
// the input's bytes but a node that need not happen before it touches them
// too (whatever else the sequential rules would say); else explain_inplace's
// answer with those hints left out. Every node on one stream:
// explain_inplace.
template <activation_graph G>
[[nodiscard]] expected<std::vector<InplaceResult>, PlanError> explain_inplace_on_streams(const G& g, const ViewMap& views,
                                                                                        const Streams& streams,
                                                                                        const PlanOptions& options) {
    auto clocks = detail::stream_clocks(g, streams);
    if (!clocks) return unexpected(clocks.error());
    detail::DenseGraph store;
    const auto read = detail::read_graph(g, store);
    if (!read) return unexpected(read.error());
    const detail::DenseGraph& dense = **read;
    auto live = detail::liveness_of(dense, views, options);
    if (!live) return unexpected(live.error());
    const std::span<const InplaceHint> hints(options.inplace);
    std::vector<InplaceHint> kept;
    if (detail::several_streams(*clocks)) {
        detail::NodeTouches touches;
        detail::node_touches(dense, *live, touches);
        detail::stream_safe_hints(*live, touches, *clocks, hints, kept);
    } else {
        kept.assign(hints.begin(), hints.end());
    }
    const auto decided = detail::decide_inplace(dense, *live, kept);
    // Kept is hints less the dropped ones, in order (equal hints share a fate).
    std::vector<InplaceResult> result(hints.size(), InplaceResult::input_read_concurrently);
    for (std::size_t h = 0, k = 0; h < hints.size() && k < kept.size(); ++h)
        if (hints[h] == kept[k]) result[h] = decided[k++];
    return result;
}

namespace detail {

// What PlannedModel keeps to re-plan a model for streams: the clocks, each
// node's touches and the liveness, made once; per request, the sizes and
// scratch go in and plan_arena_concurrent's plan (for those sizes, that
// scratch, the same options) comes out. Nodes on several streams (with
// one, PlannedModel keeps an ArenaPlanner: plan_arena's plan). Its working
// memory is kept too (StreamWork).
class StreamArenaPlanner : public KeptPlanning {
public:
    using Outcome = ArenaPlanner::Outcome;

    template <activation_graph G>
    [[nodiscard]] static expected<StreamArenaPlanner, PlanError> create(const G& g, const ViewMap& views,
                                                                        StreamClocks clocks, const PlanOptions& plan_options,
                                                                        const ArenaOptions& options) {
        auto live = stream_liveness(g, views, plan_options, clocks);
        if (!live) return unexpected(live.error());
        NodeTouches touches;
        node_touches(g, *live, touches);
        return StreamArenaPlanner(std::move(*live), std::move(clocks), std::move(touches), options,
                                  plan_options.scratch_bytes, plan_options.pinned, plan_options.unknown_sizes);
    }

    // Plans with this request's sizes and scratch (bytes by node), kept for
    // the next requests too. On deferred, unknown_sizes() lists the owners
    // the oracle did not know and `out` is left as it was.
    template <size_oracle Oracle>
    [[nodiscard]] expected<Outcome, PlanError> plan(Oracle&& oracle, std::span<const std::size_t> scratch, ArenaPlan& out) {
        scratch_.assign(scratch.begin(), scratch.end());
        auto sized = size_request(oracle);
        if (!sized) return unexpected(sized.error());
        if (!*sized) return Outcome::deferred;
        if (auto ok = plan_stream_items(planned(), sizes_.bytes, scratch_, pinned_, touches_, clocks_, options_, work_, out);
            !ok)
            return unexpected(ok.error());
        report_dynamic(out.dynamic_values);
        bound_ = out.proven_bound_bytes;
        return Outcome::complete;
    }
    // The last complete plan's bound (its proven_bound_bytes).
    [[nodiscard]] std::size_t lower_bound_bytes() const noexcept { return bound_; }

private:
    StreamArenaPlanner(Liveness live, StreamClocks clocks, NodeTouches touches, const ArenaOptions& options,
                       std::vector<std::size_t> scratch, std::vector<PinnedOffset> pinned, UnknownSizes unknown)
        : KeptPlanning(std::move(live), std::move(scratch), unknown), clocks_(std::move(clocks)),
          touches_(std::move(touches)), options_(options), pinned_(std::move(pinned)) {}

    StreamClocks clocks_;
    NodeTouches touches_;
    ArenaOptions options_;
    std::vector<PinnedOffset> pinned_;
    StreamWork work_;
    std::size_t bound_ = 0;
};

}  // namespace detail

}  // namespace onnx_runtime_memory

#if !defined(ONNX_RUNTIME_MEMORY_SEPARATE_COMPILATION)
#include "detail/stream_planning.hpp"  // the code (else the compiled core's: src.hpp)
#endif
