// The concurrent plans: the code behind concurrent.hpp's declarations (part
// of the compiled core, config.hpp).
#pragma once

#include "config.hpp"
#if defined(ONNX_RUNTIME_MEMORY_SEPARATE_COMPILATION) && !defined(ONNX_RUNTIME_MEMORY_SOURCE)
#error "detail/stream_planning.hpp is the compiled core's: include concurrent.hpp (src.hpp defines the core once)"
#endif

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "../concurrent.hpp"

namespace onnx_runtime_memory::detail {

ONNX_RUNTIME_MEMORY_CORE expected<void, PlanError> plan_stream_items(const Liveness& planned,
                                                                     const std::vector<std::size_t>& bytes,
                                                                     std::span<const std::size_t> scratch,
                                                                     std::span<const PinnedOffset> pins,
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

    // The sequential strategies over the windows: plan_offsets, in kept memory. Pins whose windows
    // meet must not share bytes (checked_columns): the windows' plan keeps them, and every item they
    // may be in use with is among those their windows meet.
    work.windows.resize(n);
    for (std::size_t i = 0; i < n; ++i) work.windows[i] = {items.bytes[i], items.settled[i], items.last[i]};
    if (auto ok = pin_owners(planned, pins, work.windows); !ok) return unexpected(ok.error());
    if (auto ok = checked_columns(work.windows, alignment, work.columns); !ok)
        return unexpected(name_owners(ok.error(), planned));
    for (std::size_t i = 0; i < n; ++i) items.pin[i] = work.windows[i].pinned;
    bound = std::max(bound, work.columns.pinned_end);  // every plan reaches the pins
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

ONNX_RUNTIME_MEMORY_CORE bool several_streams(const StreamClocks& clocks) {
    return std::adjacent_find(clocks.stream.begin(), clocks.stream.end(), std::not_equal_to<>()) != clocks.stream.end();
}

}  // namespace onnx_runtime_memory::detail
