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
#include <utility>
#include <vector>

#include "arena.hpp"
#include "detail/checked.hpp"
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

// An arena plan safe under `streams`: every owner (and each node's scratch)
// at an offset where no item it may be in use with at the same time
// overlaps it. A graph input in the arena is there from the start, a kept
// graph output to the end. First the arena planner's strategies
// (plan_offsets) over each item's window in the graph's order, from the
// first node that need not happen before it to its last use
// (detail::StreamItems): safe, and about as fast as the sequential plan. While
// that is above the bound, the heaviest antichain raises the bound, then
// the items placed largest first at the lowest offset clear of the placed
// ones they are not ordered with (a test of O(K) a pair); the smaller plan
// kept (ties: the first). proven_bound_bytes: the most of the bytes whose
// spans meet at one position of the graph's order, of the bytes one node
// touches, and of the heaviest antichain (items no two of which are
// ordered, detail::heaviest_antichain) when that ran. With every node on
// one stream, plan_arena's plan, bit for bit (and validate_arena's checks:
// there a graph input no node reads is in use at the first node). In-place hints and pins are not planned
// across streams yet (PlanError::bad_streams naming the hint's output or
// the pinned value). bad_streams names the node a description gets wrong
// (a stream id past max_streams, a list of the wrong length, an event out
// of range or not forward). O((N + E + n) K) for the clocks and items, the
// sequential strategies' time, and, only while above the bound, at most
// work_per_owner x max(n, 4096) / 16 steps (pair tests, flow edges) for
// each of the antichain (24 bytes a pair of ordered items) and the exact
// placement.
template <activation_graph G, size_oracle Oracle>
[[nodiscard]] expected<ArenaStatus, PlanError> plan_arena_concurrent(const G& g, const ViewMap& views, Oracle&& oracle,
                                                                     const Streams& streams,
                                                                     const PlanOptions& options = {},
                                                                     const ArenaOptions& arena_options = {}) {
    auto clocks = detail::stream_clocks(g, streams);
    if (!clocks) return unexpected(clocks.error());
    const auto& on = clocks->stream;
    if (std::adjacent_find(on.begin(), on.end(), std::not_equal_to<>()) == on.end())
        return plan_arena(g, views, oracle, options, arena_options);
    if (!options.inplace.empty())
        return unexpected(make_plan_error(PlanError::Kind::bad_streams, options.inplace.front().output));
    if (!options.pinned.empty()) return unexpected(make_plan_error(PlanError::Kind::bad_streams, options.pinned.front().value));
    auto live = compute_liveness(g, views, options);
    if (!live) return unexpected(live.error());
    const auto& scratch = options.scratch_bytes;
    auto request = detail::size_for_plan(*live, oracle, options.unknown_sizes, scratch);
    if (!request) return unexpected(request.error());
    auto& sizes = request->sizes;
    if (request->deferred) return ArenaStatus::deferred(std::move(sizes.unknown));
    const Liveness& planned = request->planned(*live);
    const std::size_t K = clocks->streams, V = planned.value_count(), N = clocks->rank.size();
    const std::size_t alignment = detail::alignment_or_one(arena_options.alignment);

    // Items: the owners (owner order), then each node's scratch.
    detail::StreamItems items;
    std::vector<std::uint32_t> item_of(V, detail::Reach::always);
    for (ValueId r : planned.owners) {
        item_of[r] = static_cast<std::uint32_t>(items.bytes.size());
        items.bytes.push_back(sizes.bytes[r]);
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
        if (detail::align_up_overflows(items.bytes[i], alignment, items.bytes[i])) return overflow(i);
    detail::touch_items(g, planned, *clocks, item_of, items);
    const std::size_t n = items.bytes.size();
    std::size_t bound = std::max(items.node_bound, items.order_bound);

    // The sequential strategies over the windows.
    std::vector<Buffer> windows(n);
    for (std::size_t i = 0; i < n; ++i) windows[i] = {items.bytes[i], items.settled[i], items.last[i]};
    auto by_windows = plan_offsets(windows, arena_options);
    if (!by_windows) return unexpected(by_windows.error());
    std::vector<std::size_t> offset = std::move(by_windows->offsets);
    std::size_t arena_bytes = 0;  // of aligned sizes, as the exact placement's
    for (std::size_t i = 0, end = 0; i < n; ++i) {
        if (detail::add_overflows(offset[i], items.bytes[i], end)) return overflow(i);
        arena_bytes = std::max(arena_bytes, end);
    }
    ArenaStrategy strategy = by_windows->strategy;

    // A 16th of the sequential strategies' budget each: 64 steps an owner by default, so that the
    // plan stays within a few times the sequential plan's time where the windows leave a gap.
    const std::size_t budget = detail::saturating_mul(arena_options.work_per_owner, std::max<std::size_t>(n, 4096)) / 16;
    if (arena_bytes > bound) bound = detail::antichain_bound(items, K, bound, arena_bytes, budget);
    if (detail::WindowPairs pairs; arena_bytes > bound && detail::window_pairs(items, budget, pairs)) {
        std::vector<std::size_t> exact;
        std::size_t exact_bytes = 0;
        if (const std::size_t failed = detail::place_by_conflicts(items, K, pairs, exact, exact_bytes); failed < n)
            return overflow(failed);
        if (exact_bytes < arena_bytes) {
            offset = std::move(exact);
            arena_bytes = exact_bytes;
            strategy = ArenaStrategy::size_first_fit;
        }
    }
    ArenaPlan plan;
    plan.arena_bytes = arena_bytes;
    plan.alignment = alignment;
    plan.strategy = strategy;
    plan.proven_bound_bytes = bound;
    plan.offsets.assign(V, no_offset);
    for (std::size_t i = 0; i < items.owners; ++i) plan.offsets[planned.owners[i]] = offset[i];
    detail::place_views(planned, plan.offsets);
    plan.scratch_offsets.assign(scratch.size(), no_offset);
    for (std::size_t k = items.owners; k < n; ++k) plan.scratch_offsets[items.scratch_node[k - items.owners]] = offset[k];
    plan.dynamic_values = std::move(sizes.unknown);
    return ArenaStatus::complete(std::move(plan));
}

}  // namespace onnx_runtime_memory
