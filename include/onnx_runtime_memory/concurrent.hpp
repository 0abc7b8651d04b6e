// Arena plans for executors that run nodes at the same time: GPU streams,
// a thread pool taking ready nodes, pipelines. The caller says which stream
// runs each node (Streams); a node starts after the nodes before it on its
// stream, the producers of its inputs (on any stream) and the events it
// waits for. Two owners may then share bytes only when every node touching
// one happens strictly before every node touching the other: an order that
// holds however the streams interleave. Nodes all on one stream (whatever
// its id) are the sequential plan, plan_arena's bit for bit.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <utility>
#include <vector>

#include "arena.hpp"
#include "detail/checked.hpp"
#include "detail/kept_planning.hpp"
#include "detail/stream_items.hpp"
#include "errors.hpp"
#include "expected.hpp"
#include "graph.hpp"
#include "liveness.hpp"
#include "offsets.hpp"
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
[[nodiscard]] inline expected<void, PlanError> plan_stream_items(const Liveness& planned,
                                                                 const std::vector<std::size_t>& bytes,
                                                                 std::span<const std::size_t> scratch,
                                                                 const NodeTouches& touches, const StreamClocks& clocks,
                                                                 const ArenaOptions& arena_options, StreamWork& work,
                                                                 ArenaPlan& plan) {
    const std::size_t K = clocks.streams, V = planned.value_count(), N = clocks.rank.size();
    const std::size_t alignment = alignment_or_one(arena_options.alignment);

    // Items: the owners (owner order), then each node's scratch.
    StreamItems& items = work.items;
    items.bytes.clear();
    items.scratch_node.clear();
    std::vector<std::uint32_t>& item_of = work.item_of;
    item_of.assign(V, Reach::always);
    for (ValueId r : planned.owners) {
        item_of[r] = static_cast<std::uint32_t>(items.bytes.size());
        items.bytes.push_back(bytes[r]);
    }
    items.owners = items.bytes.size();
    for (std::size_t n = 0; n < scratch.size() && n < N; ++n)
        if (scratch[n] > 0) {
            items.bytes.push_back(scratch[n]);
            items.scratch_node.push_back(static_cast<NodeIndex>(n));
        }
    const auto overflow = [&](std::size_t i) {
        return unexpected(make_plan_error(PlanError::Kind::size_overflow, i < items.owners ? planned.owners[i] : no_value));
    };
    for (std::size_t i = 0; i < items.bytes.size(); ++i)
        if (align_up_overflows(items.bytes[i], alignment, items.bytes[i])) return overflow(i);
    touch_items(touches, clocks, item_of, items, work.space);
    const std::size_t n = items.bytes.size();
    std::size_t bound = std::max(items.node_bound, items.order_bound);

    // The sequential strategies over the windows: plan_offsets, in kept memory.
    work.windows.resize(n);
    for (std::size_t i = 0; i < n; ++i) work.windows[i] = {items.bytes[i], items.settled[i], items.last[i]};
    if (auto ok = checked_columns(work.windows, alignment, work.columns); !ok) return unexpected(ok.error());
    const ArenaBound windows_bound = arena_bound(work.columns, work.born, work.dying);
    place_buffers(work.columns, arena_options, windows_bound, *work.place, work.placed);
    static_cast<void>(settle_arena(work.columns, work.placed.offset));  // its end: summed below, naming an overflow
    std::vector<std::size_t>& offset = work.offset;
    offset.resize(n);
    for (std::size_t i = 0; i < n; ++i) offset[work.columns.value[i]] = work.placed.offset[i];
    std::size_t arena_bytes = 0;  // of aligned sizes, as the exact placement's
    for (std::size_t i = 0, end = 0; i < n; ++i) {
        if (add_overflows(offset[i], items.bytes[i], end)) return overflow(i);
        arena_bytes = std::max(arena_bytes, end);
    }
    ArenaStrategy strategy = work.placed.strategy;
    if (!work.keep) work.windows = {}, work.columns = {}, work.born = {}, work.dying = {}, work.place = {}, work.placed = {};

    // A 16th of the sequential strategies' budget each: 64 steps an owner by default, so that the
    // plan stays within a few times the sequential plan's time where the windows leave a gap.
    const std::size_t budget = saturating_mul(arena_options.work_per_owner, std::max<std::size_t>(n, 4096)) / 16;
    if (arena_bytes > bound) bound = antichain_bound(items, K, bound, arena_bytes, budget, work.space);
    if (arena_bytes > bound) {
        // The exact placement: every item by its conflicts where their window pairs fit the budget; else,
        // where the owners' and the scratch's each do, the owners by theirs and the scratch by theirs above
        // them (a little scratch on many nodes can pass the budget that the owners alone fit).
        std::vector<std::size_t>& exact = work.exact;
        exact.assign(n, no_offset);
        std::size_t exact_bytes = 0;
        std::size_t failed = n;  // an item whose end would pass SIZE_MAX
        const auto by_conflicts = [&](ItemRange range, std::size_t& end) {  // false: its pairs pass the budget
            if (!window_pairs(items, range, budget, work.pairs, work.space)) return false;
            failed = place_by_conflicts(items, range, K, work.pairs, exact, end, work.space);
            return true;
        };
        bool placed = by_conflicts({0, n}, exact_bytes);
        if (placed && failed < n) return overflow(failed);
        if (!placed && items.owners < n) {  // apart; where that would pass SIZE_MAX, the windows' plan stays
            std::size_t owners_end = 0, scratch_end = 0;
            placed = by_conflicts({0, items.owners}, owners_end) && failed == items.owners &&
                     by_conflicts({items.owners, n}, scratch_end) && failed == n &&
                     !add_overflows(owners_end, scratch_end, exact_bytes);
            for (std::size_t i = items.owners; placed && i < n; ++i) exact[i] += owners_end;  // at most exact_bytes
        }
        if (placed && exact_bytes < arena_bytes) {
            std::swap(offset, exact);
            arena_bytes = exact_bytes;
            strategy = ArenaStrategy::size_first_fit;
        }
        // Where the windows' plan is at the windows' own bound, the windows are what keeps it from the bound.
        if (!placed && arena_bytes <= windows_bound.rounded &&
            repack_top_by_conflicts(items, K, budget, offset, arena_bytes, work.pairs, work.space))
            strategy = ArenaStrategy::repacked_top;
    }
    plan.arena_bytes = arena_bytes;
    plan.alignment = alignment;
    plan.strategy = strategy;
    plan.proven_bound_bytes = bound;
    plan.offsets.assign(V, no_offset);
    for (std::size_t i = 0; i < items.owners; ++i) plan.offsets[planned.owners[i]] = offset[i];
    place_views(planned, plan.offsets);
    plan.scratch_offsets.assign(scratch.size(), no_offset);
    for (std::size_t k = items.owners; k < n; ++k) plan.scratch_offsets[items.scratch_node[k - items.owners]] = offset[k];
    return {};
}

// Whether the nodes run on more than one stream (else: the sequential plan).
[[nodiscard]] inline bool several_streams(const StreamClocks& clocks) {
    return std::adjacent_find(clocks.stream.begin(), clocks.stream.end(), std::not_equal_to<>()) != clocks.stream.end();
}

// In-place hints and pins are not planned across streams yet: bad_streams
// naming the first hint's output, or the first pinned value.
[[nodiscard]] inline expected<void, PlanError> streams_refuse(const PlanOptions& options) {
    if (!options.inplace.empty())
        return unexpected(make_plan_error(PlanError::Kind::bad_streams, options.inplace.front().output));
    if (!options.pinned.empty()) return unexpected(make_plan_error(PlanError::Kind::bad_streams, options.pinned.front().value));
    return {};
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
// there a graph input no node reads is in use at the first node). In-place hints and pins are not planned
// across streams yet (PlanError::bad_streams naming the hint's output or
// the pinned value). bad_streams names the node a description gets wrong
// (a stream id past max_streams, a list of the wrong length, an event out
// of range or not forward). O((N + E + n) K) for the clocks and items, the
// sequential strategies' time, and, only while above the bound, at most
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
    if (auto ok = detail::streams_refuse(options); !ok) return unexpected(ok.error());
    auto live = compute_liveness(g, views, options);
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
    if (auto ok = detail::plan_stream_items(request->planned(*live), sizes.bytes, options.scratch_bytes, touches, *clocks,
                                            arena_options, work, plan);
        !ok)
        return unexpected(ok.error());
    plan.dynamic_values = std::move(sizes.unknown);
    return ArenaStatus::complete(std::move(plan));
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
        if (auto ok = streams_refuse(plan_options); !ok) return unexpected(ok.error());
        auto live = compute_liveness(g, views, plan_options);
        if (!live) return unexpected(live.error());
        NodeTouches touches;
        node_touches(g, *live, touches);
        return StreamArenaPlanner(std::move(*live), std::move(clocks), std::move(touches), options,
                                  plan_options.scratch_bytes, plan_options.unknown_sizes);
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
        if (auto ok = plan_stream_items(planned(), sizes_.bytes, scratch_, touches_, clocks_, options_, work_, out); !ok)
            return unexpected(ok.error());
        report_dynamic(out.dynamic_values);
        bound_ = out.proven_bound_bytes;
        return Outcome::complete;
    }
    // The last complete plan's bound (its proven_bound_bytes).
    [[nodiscard]] std::size_t lower_bound_bytes() const noexcept { return bound_; }

private:
    StreamArenaPlanner(Liveness live, StreamClocks clocks, NodeTouches touches, const ArenaOptions& options,
                       std::vector<std::size_t> scratch, UnknownSizes unknown)
        : KeptPlanning(std::move(live), std::move(scratch), unknown), clocks_(std::move(clocks)),
          touches_(std::move(touches)), options_(options) {}

    StreamClocks clocks_;
    NodeTouches touches_;
    ArenaOptions options_;
    StreamWork work_;
    std::size_t bound_ = 0;
};

}  // namespace detail

}  // namespace onnx_runtime_memory
