// Spilling: buffers that outgrow a fast space (a device) wait in a slow one
// (the host) while they are not used. Each use of a buffer happens in the
// fast space; between two uses it may be copied out after one node and back
// in before the next, maybe at another offset; before its first use it may
// wait in the slow space (arriving there), after its last it may leave from
// there. The plan: each buffer's residency (fast and slow segments with
// offsets), the copies in the order to run them, and a lower bound on the
// bytes any plan moves.
//
// How (SpillStrategy): `planned` chooses what goes out by load (spill_greedy:
// farthest next use first, then what can come back does), packs the fast
// runs as one arena (plan_offsets, every strategy), and where fragmentation
// ends the arena past the capacity chooses again at a lower target, up to
// SpillOptions::rounds times. `caching` is what an executor does without a
// plan (caching_allocator.hpp); it always fits. `best` makes both and keeps
// the one that moves fewer bytes: never more than the caching allocator.
// The slow segments are packed as one arena too. Feasible exactly where the
// capacity is at least every position's floor; below, the error lists the
// positions that pass it (the fit report).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <tuple>
#include <vector>

#include "detail/caching_allocator.hpp"
#include "detail/checked.hpp"
#include "detail/spill_greedy.hpp"
#include "detail/spill_problem.hpp"
#include "expected.hpp"
#include "offsets.hpp"
#include "plan_types.hpp"
#include "spill_types.hpp"

namespace onnx_runtime_memory {

namespace detail {

// The planned strategy's runs, packed within the capacity, or false.
[[nodiscard]] inline bool planned_runs(const SpillProblem& p, const SpillOptions& o, FastRuns& runs) {
    const std::size_t capacity = o.fast.capacity;
    const std::size_t align = alignment_or_one(o.fast.alignment);
    std::size_t target = capacity, floor = 0;
    for (const std::size_t f : p.floor) floor = std::max(floor, f);
    std::vector<std::uint8_t> out;
    std::vector<Buffer> records;
    ArenaOptions packing = o.packing;
    packing.alignment = align;
    for (std::uint32_t round = 0; round < std::max<std::uint32_t>(o.rounds, 1); ++round) {
        if (!spill_by_load(p, target, out)) return false;
        runs_around_gaps(p, out, runs);
        records.clear();  // in the caller's times: unspilled, the plan is plan_offsets' own
        for (std::uint32_t b = 0; b < p.buffers(); ++b)
            for (std::size_t k = runs.begin[b]; k < runs.begin[b + 1]; ++k)
                records.push_back({p.size[b], p.time[runs.runs[k].first], p.time[runs.runs[k].last], no_offset});
        auto packed = plan_offsets(records, packing);
        if (!packed) return false;
        for (std::size_t k = 0; k < records.size(); ++k) runs.runs[k].offset = packed->offsets[k];
        if (packed->arena_bytes <= capacity) return true;
        // Fragmentation: aim lower by what it cost.
        const std::size_t over = saturating_align_up(packed->arena_bytes - capacity, align);
        if (target < floor || target - floor < over) return false;
        target -= over;
    }
    return false;
}

// The plan of these runs: slow segments around them, packed; the copies.
[[nodiscard]] inline expected<SpillPlan, SpillError> finish_spill(const SpillProblem& p, const FastRuns& runs,
                                                                  const SpillOptions& o) {
    SpillPlan plan;
    const std::size_t n = p.buffers();
    plan.segment_begin.assign(n + 1, 0);
    // Slow records in ranks: a slow segment holds its bytes from its copy
    // out (after the rank before it) through its copy in (before the rank
    // after it), so it takes that rank too; one ending a life, one past it.
    std::vector<Buffer> slow;
    std::vector<std::size_t> slow_segment;  // by slow record: its index in plan.segments
    const auto add_slow = [&](std::uint32_t b, std::uint32_t from, std::uint32_t to, NodeIndex first, NodeIndex last) {
        slow.push_back({p.size[b], from, to, no_offset});
        slow_segment.push_back(plan.segments.size());
        plan.segments.push_back({1, first, last, 0});
    };
    for (std::uint32_t b = 0; b < n; ++b) {
        for (std::size_t k = runs.begin[b]; k < runs.begin[b + 1]; ++k) {
            const FastRun& run = runs.runs[k];
            if (k == runs.begin[b] && run.first > p.first[b])
                add_slow(b, p.first[b], run.first, p.time[p.first[b]], p.time[run.first] - 1);
            if (k > runs.begin[b]) {
                const FastRun& before = runs.runs[k - 1];
                add_slow(b, before.last + 1, run.first, p.time[before.last] + 1, p.time[run.first] - 1);
            }
            plan.segments.push_back({0, p.time[run.first], p.time[run.last], run.offset});
            plan.fast_bytes = std::max(plan.fast_bytes, run.offset + p.size[b]);
            if (k + 1 == runs.begin[b + 1] && run.last < p.last[b])
                add_slow(b, run.last + 1, p.last[b] + 1, p.time[run.last] + 1, p.time[p.last[b]]);
        }
        plan.segment_begin[b + 1] = plan.segments.size();
        plan.spilled_buffers += plan.segment_begin[b + 1] - plan.segment_begin[b] > 1;
    }
    ArenaOptions packing = o.packing;
    packing.alignment = alignment_or_one(o.slow.alignment);
    auto packed = plan_offsets(slow, packing);
    if (!packed) {
        SpillError err;
        err.kind = SpillError::Kind::bad_records;
        err.plan = packed.error();
        return unexpected(err);
    }
    for (std::size_t k = 0; k < slow.size(); ++k) plan.segments[slow_segment[k]].offset = packed->offsets[k];
    plan.slow_bytes = packed->arena_bytes;

    // The copies, at each slow segment's ends.
    using Direction = Transfer::Direction;
    for (std::uint32_t b = 0; b < n; ++b)
        for (std::size_t k = plan.segment_begin[b]; k < plan.segment_begin[b + 1]; ++k) {
            const Segment& s = plan.segments[k];
            if (s.space != 1) continue;
            if (k > plan.segment_begin[b]) {
                const Segment& fast = plan.segments[k - 1];
                plan.transfers.push_back({b, Direction::out, fast.last, p.size[b], fast.offset, s.offset});
            }
            if (k + 1 < plan.segment_begin[b + 1]) {
                const Segment& fast = plan.segments[k + 1];
                plan.transfers.push_back({b, Direction::in, fast.first, p.size[b], s.offset, fast.offset});
            }
        }
    std::sort(plan.transfers.begin(), plan.transfers.end(), [](const Transfer& x, const Transfer& y) {
        return std::tie(x.position, x.direction, x.buffer) < std::tie(y.position, y.direction, y.buffer);
    });
    for (const Transfer& t : plan.transfers) plan.transfer_bytes = saturating_add(plan.transfer_bytes, t.bytes);
    return plan;
}

}  // namespace detail

// Plans the buffers across the fast and slow spaces (see the top of this
// file). `uses`: where each buffer is read or written (BufferUses). Errors:
// SpillError (malformed records or uses, a pin, a capacity below some
// position's floor: the fit report). Deterministic unless
// options.packing.time_limit cuts a search short.
[[nodiscard]] inline expected<SpillPlan, SpillError> plan_spill(std::span<const Buffer> buffers,
                                                                const BufferUses& uses,
                                                                const SpillOptions& options = {}) {
    detail::SpillProblem p;
    if (auto ok = detail::make_spill_problem(buffers, uses, options.fast.alignment, p); !ok)
        return unexpected(ok.error());
    const std::size_t capacity = options.fast.capacity;
    if (auto over = detail::over_capacity(p, capacity); !over.empty()) {
        SpillError err;
        err.kind = SpillError::Kind::below_floor;
        err.capacity = capacity;
        err.over = std::move(over);
        return unexpected(err);
    }
    detail::FastRuns planned, caching;
    const bool have_planned = options.strategy != SpillStrategy::caching && detail::planned_runs(p, options, planned);
    const std::size_t planned_bytes = have_planned ? detail::moved_bytes(p, planned) : unbounded;
    const bool try_caching = options.strategy == SpillStrategy::caching ||
                             (options.strategy == SpillStrategy::best && planned_bytes > 0) || !have_planned;
    std::size_t caching_bytes = unbounded;
    if (try_caching) {
        detail::simulate_caching(p, capacity, caching);
        caching_bytes = detail::moved_bytes(p, caching);
    }
    const bool use_planned = have_planned && planned_bytes <= caching_bytes;
    auto plan = detail::finish_spill(p, use_planned ? planned : caching, options);
    if (!plan) return plan;
    plan->strategy = use_planned ? SpillStrategy::planned : SpillStrategy::caching;
    plan->transfer_lower_bound_bytes = detail::spill_lower_bound(p, capacity);
    return plan;
}

}  // namespace onnx_runtime_memory
