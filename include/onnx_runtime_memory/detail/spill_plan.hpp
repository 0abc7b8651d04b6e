// plan_spill's code (spill.hpp): what goes out, the fast runs packed, the
// copies and their order. Inline at the end of spill.hpp, or in the
// compiled core (config.hpp).
#pragma once

#include "config.hpp"
#if defined(ONNX_RUNTIME_MEMORY_SEPARATE_COMPILATION) && !defined(ONNX_RUNTIME_MEMORY_SOURCE)
#error "detail/spill_plan.hpp is the compiled core's: include spill.hpp (src.hpp defines the core once)"
#endif

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <tuple>
#include <vector>

#include "../expected.hpp"
#include "../offsets.hpp"
#include "../plan_types.hpp"
#include "../spill.hpp"
#include "../spill_types.hpp"
#include "caching_allocator.hpp"
#include "checked.hpp"
#include "spill_greedy.hpp"
#include "spill_prefetch.hpp"
#include "spill_problem.hpp"

namespace onnx_runtime_memory {

namespace detail {

// Packs the runs in the fast space by plan_offsets (in the caller's times:
// with nothing spilled, the plan is plan_offsets' own) and sets their
// offsets; returns the arena's bytes, or `unbounded` where it refused them.
// `records` is scratch space.
[[nodiscard]] inline std::size_t pack_runs(const SpillProblem& p, const ArenaOptions& packing,
                                           std::vector<Buffer>& records, FastRuns& runs) {
    records.clear();
    for (std::uint32_t b = 0; b < p.buffers(); ++b)
        for (std::size_t i = runs.begin[b]; i < runs.begin[b + 1]; ++i)
            records.push_back({p.size[b], p.time[runs.runs[i].first], p.time[runs.runs[i].last], no_offset});
    auto packed = plan_offsets(records, packing);
    if (!packed) return unbounded;
    for (std::size_t i = 0; i < records.size(); ++i) runs.runs[i].offset = packed->offsets[i];
    return packed->arena_bytes;
}

// The cheapest set of whole gaps to take out whose runs pack within the
// capacity: the sets in order of the bytes they move (then by mask), each
// whose load fits packed by plan_offsets with its exact search (at least
// 10,000 nodes); the first that fits. False where none moving less than
// `below` is found within options.exact_packings packings. O(2^gaps (R +
// gaps)) and the packings.
[[nodiscard]] inline bool exact_runs(const SpillProblem& p, const SpillOptions& o, std::size_t below, FastRuns& runs) {
    const std::size_t G = p.gaps.size(), R = p.ranks();
    if (G > std::min<std::uint32_t>(o.exact_gaps, 20)) return false;  // 2^20 sets at most, whatever is asked
    const std::uint32_t sets = std::uint32_t{1} << G;
    std::vector<std::size_t> cost(sets, 0);
    for (std::uint32_t m = 1; m < sets; ++m) {
        std::uint32_t low = 0;
        while (!(m >> low & 1u)) ++low;
        cost[m] = cost[m & (m - 1)] + p.cost(p.gaps[low]);
    }
    std::vector<std::uint32_t> order(sets);
    for (std::uint32_t m = 0; m < sets; ++m) order[m] = m;
    sort_by(order, [&](std::uint32_t m) { return cost[m]; }, [](std::uint32_t m) { return m; });
    std::vector<std::size_t> base(R + 1, 0), load(R + 1);
    for (std::size_t b = 0; b < p.buffers(); ++b) {
        base[p.first[b]] += p.aligned[b];
        base[p.last[b] + 1] -= p.aligned[b];
    }
    ArenaOptions packing = o.packing;
    packing.alignment = alignment_or_one(o.fast.alignment);
    packing.exact_nodes = std::max<std::uint64_t>(packing.exact_nodes, 10000);
    std::vector<std::uint8_t> out(G);
    std::vector<Buffer> records;
    std::uint32_t packings = 0;
    for (const std::uint32_t m : order) {
        if (cost[m] >= below || packings >= o.exact_packings) return false;
        load = base;
        for (std::size_t g = 0; g < G; ++g) {
            out[g] = m >> g & 1u;
            if (!out[g]) continue;
            load[p.gaps[g].first] -= p.aligned[p.gaps[g].buffer];
            load[p.gaps[g].last + 1] += p.aligned[p.gaps[g].buffer];
        }
        bool fits = true;
        for (std::size_t r = 0, at = 0; r < R && fits; ++r) fits = (at += load[r]) <= o.fast.capacity;
        if (!fits) continue;
        ++packings;
        runs_around_gaps(p, out, runs);
        const std::size_t arena = pack_runs(p, packing, records, runs);
        if (arena != unbounded && arena <= o.fast.capacity) return true;
    }
    return false;
}

// The runs that move the fewest bytes of: the caching allocator alone; with
// few gaps, the exact search over sets of them (exact_runs); else, for each rule of spill_greedy, the gaps it takes out packed by
// plan_offsets (again at a lower target where fragmentation ends the arena
// past the capacity, up to `rounds` times) or, where that packing does not
// fit, laid out by the caching allocator (which always fits). A rule whose
// gaps alone move more than the best so far is not packed; among equals a
// planned layout wins. Returns the strategy that made them.
[[nodiscard]] inline SpillStrategy cheapest_runs(const SpillProblem& p, const SpillOptions& o, FastRuns& best) {
    const std::size_t capacity = o.fast.capacity;
    const std::size_t align = alignment_or_one(o.fast.alignment);
    std::size_t floor = 0;
    for (const std::size_t f : p.floor) floor = std::max(floor, f);
    std::size_t best_moved = unbounded;
    SpillStrategy made = SpillStrategy::caching;
    FastRuns runs;
    const auto consider = [&](SpillStrategy by) {
        const std::size_t moved = moved_bytes(p, runs);
        if (moved > best_moved || (moved == best_moved && by == SpillStrategy::caching)) return;
        best_moved = moved;
        made = by;
        std::swap(best, runs);
    };
    if (o.strategy != SpillStrategy::planned && capacity != unbounded) {
        simulate_caching(p, capacity, {}, runs);
        consider(SpillStrategy::caching);
    }
    if (o.strategy == SpillStrategy::caching) return made;
    if (exact_runs(p, o, best_moved, runs)) {
        consider(SpillStrategy::planned);
        return made;  // the least any plan of whole gaps moves: no rule below can do better
    }

    // Each rule's first choice, the cheaper first.
    std::vector<std::uint8_t> out[2];
    std::size_t moved[2] = {unbounded, unbounded};
    const SpillRule rules[2] = {SpillRule::farthest, SpillRule::fitting};
    for (int k = 0; k < 2; ++k)
        if (spill_by_load(p, capacity, rules[k], out[k])) {
            runs_around_gaps(p, out[k], runs);
            moved[k] = moved_bytes(p, runs);
        }
    std::vector<Buffer> records;
    ArenaOptions packing = o.packing;
    packing.alignment = align;
    for (const int k : moved[1] < moved[0] ? std::array<int, 2>{1, 0} : std::array<int, 2>{0, 1}) {
        std::size_t target = capacity;
        for (std::uint32_t round = 0; round < std::max<std::uint32_t>(o.rounds, 1); ++round) {
            if (round > 0 && !spill_by_load(p, target, rules[k], out[k])) break;
            runs_around_gaps(p, out[k], runs);
            if (moved_bytes(p, runs) > best_moved) break;
            const std::size_t arena = pack_runs(p, packing, records, runs);
            if (arena == unbounded) break;
            if (arena <= capacity) {
                consider(SpillStrategy::planned);
                break;
            }
            if (round == 0) {  // the same gaps out, laid out in time order
                simulate_caching(p, capacity, out[k], runs);
                consider(SpillStrategy::planned);
            }
            // Fragmentation: aim lower by what it cost.
            const std::size_t over = saturating_align_up(arena - capacity, align);
            if (target < floor || target - floor < over) break;
            target -= over;
        }
        if (best_moved == 0) break;
    }
    if (best_moved == unbounded) {  // SpillStrategy::planned, and neither rule fits: the caching allocator's
        simulate_caching(p, capacity, {}, runs);
        consider(SpillStrategy::caching);
    }
    return made;
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
    // The slow space is unbounded: the sweep packs it, at a fraction of the portfolio's time.
    ArenaOptions packing = o.packing;
    packing.alignment = alignment_or_one(o.slow.alignment);
    packing.work_per_owner = 0;
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

ONNX_RUNTIME_MEMORY_CORE expected<SpillPlan, SpillError> plan_spill(std::span<const Buffer> buffers, const BufferUses& uses,
                                                                const SpillOptions& options) {
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
    detail::FastRuns runs;
    const SpillStrategy made = detail::cheapest_runs(p, options, runs);
    double wait = 0;
    if (options.bytes_per_second > 0 && !options.node_seconds.empty())  // (NaN is not > 0)
        wait = detail::prefetch_copies(p, options, runs);
    auto plan = detail::finish_spill(p, runs, options);
    if (!plan) return plan;
    plan->strategy = made;
    plan->copy_in_wait_seconds = wait;
    plan->transfer_lower_bound_bytes = detail::spill_lower_bound(p, capacity);
    return plan;
}

}  // namespace onnx_runtime_memory
