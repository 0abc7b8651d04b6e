// The slot strategies that see every owner at once: greedy by size, greedy
// by size with distance priority (Pisarchyk & Lee 2020), each with the
// nodes' scratch as owners, and the least of every strategy.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <limits>
#include <span>
#include <vector>

#include "../liveness.hpp"
#include "../plan_types.hpp"
#include "checked.hpp"
#include "lower_bounds.hpp"
#include "slot_pool.hpp"
#include "slot_walk.hpp"
#include "sort.hpp"

namespace onnx_runtime_memory::detail {

// The gap in positions between `iv` and the nearest interval of `taken`
// (sorted by def, disjoint), or size_max when one of them meets it.
[[nodiscard]] inline std::size_t gap_to(const std::vector<Interval>& taken, const Interval& iv) {
    const auto next = std::lower_bound(taken.begin(), taken.end(), iv.def,
                                       [](const Interval& x, NodeIndex d) { return x.def < d; });
    if (next != taken.end() && next->def <= iv.use_end) return size_max;
    if (next != taken.begin() && std::prev(next)->use_end >= iv.def) return size_max;
    std::size_t gap = size_max;
    if (next != taken.end()) gap = std::size_t{next->def} - iv.use_end;
    if (next != taken.begin()) gap = std::min<std::size_t>(gap, std::size_t{iv.def} - std::prev(next)->use_end);
    return gap;
}

// Adds `iv` to `taken`, kept sorted by def.
inline void insert_by_def(std::vector<Interval>& taken, const Interval& iv) {
    taken.insert(std::lower_bound(taken.begin(), taken.end(), iv.def,
                                  [](const Interval& x, NodeIndex d) { return x.def < d; }),
                 iv);
}

// Greedy by size for shared objects: slots are opened largest first, so a
// slot's capacity is its first owner's size; each slot keeps its owners'
// intervals sorted by def to test a newcomer against its two neighbours.
inline void assign_slots_by_size(const Liveness& live, const std::vector<std::size_t>& sizes,
                                 std::size_t naive_bytes, ActivationPlan& plan) {
    std::vector<ValueId> order = live.owners;
    detail::sort_by(order, [&](ValueId v) { return detail::descending(sizes[v]); });
    std::vector<std::vector<Interval>> taken;  // by slot, sorted by def
    plan.assignments.assign(live.value_count(), SlotId::none());
    plan.slots.clear();
    for (ValueId v : order) {
        const Interval iv = live.intervals[v];
        std::size_t best = taken.size();
        for (std::size_t s = 0; s < taken.size(); ++s) {
            if (best < taken.size() && plan.slots[s].capacity >= plan.slots[best].capacity) continue;
            if (gap_to(taken[s], iv) != size_max) best = s;  // none of its owners meets iv
        }
        if (best == taken.size()) {
            taken.emplace_back();
            plan.slots.push_back(SlotInfo{SlotId{static_cast<std::uint32_t>(best)}, sizes[v]});
        }
        insert_by_def(taken[best], iv);
        plan.assignments[v] = SlotId{static_cast<std::uint32_t>(best)};
    }
    plan.peak_bytes = 0;
    for (const auto& slot : plan.slots) plan.peak_bytes += slot.capacity;  // distinct first owners: <= naive
    plan.naive_bytes = naive_bytes;
}

// Greedy by size with distance priority (Pisarchyk & Lee 2020, as TFLite's
// GPU delegate plans shared objects). The positional maximums are the k-th
// largest size live at a position, at its largest over positions; an
// owner's position is the last k whose maximum is at least its size. The
// next owner is the one of least position, then the one nearest in time to
// the owners of a slot it could join, then the larger; it joins that slot
// (which grows to its size if smaller), else opens one. Each slot keeps its
// owners' intervals by def; an owner keeps its nearest slot, recomputed
// over every slot when that one gets an owner it meets. Gaps are measured
// on `timed` (by value id) when given: the caller's own time stamps when
// the liveness holds their ranks (plan_slots of records), which keep every
// meeting but not the gaps. O(n (n + slots) log n).
inline void assign_slots_by_distance(const Liveness& live, const std::vector<std::size_t>& sizes,
                                     std::size_t naive_bytes, ActivationPlan& plan, std::span<const Interval> timed = {}) {
    const auto time_of = [&](ValueId v) { return timed.empty() ? live.intervals[v] : timed[v]; };
    const auto& owners = live.owners;
    const std::size_t n = owners.size();
    std::vector<Buffer> records(n);
    for (std::size_t k = 0; k < n; ++k)
        records[k] = Buffer{sizes[owners[k]], live.intervals[owners[k]].def, live.intervals[owners[k]].use_end};
    const auto order = by_decreasing_size(records);
    std::vector<std::uint32_t> most, position(n);
    most_live_by_size(records, order, most);
    for (std::size_t k = 0; k < n; ++k) position[order[k]] = most[k] - 1;  // the owner itself counts
    constexpr auto no_slot = std::numeric_limits<std::uint32_t>::max();
    struct Nearest {
        std::size_t gap = size_max;     // to the nearest slot the owner could join
        std::uint32_t slot = no_slot;  // that slot
    };
    std::vector<Nearest> nearest(n);
    std::vector<std::uint8_t> placed(n, 0);
    std::vector<std::vector<Interval>> taken;  // by slot, sorted by def
    plan.assignments.assign(live.value_count(), SlotId::none());
    plan.slots.clear();
    const auto before = [&](std::size_t a, std::size_t b) {
        if (position[a] != position[b]) return position[a] < position[b];
        if (nearest[a].gap != nearest[b].gap) return nearest[a].gap < nearest[b].gap;
        return records[a].size > records[b].size;
    };
    for (std::size_t step = 0; step < n; ++step) {
        std::size_t pick = n;
        for (std::size_t k = 0; k < n; ++k)
            if (!placed[k] && (pick == n || before(k, pick))) pick = k;
        const Interval iv = time_of(owners[pick]);
        const bool opens = nearest[pick].gap == size_max;
        const std::uint32_t s = opens ? static_cast<std::uint32_t>(taken.size()) : nearest[pick].slot;
        if (opens) {
            taken.emplace_back();
            plan.slots.push_back(SlotInfo{SlotId{s}, 0});
        }
        plan.slots[s].capacity = std::max(plan.slots[s].capacity, records[pick].size);
        insert_by_def(taken[s], iv);
        plan.assignments[owners[pick]] = SlotId{s};
        placed[pick] = 1;
        for (std::size_t k = 0; k < n; ++k) {
            if (placed[k]) continue;
            const Interval other = time_of(owners[k]);
            const std::size_t g = gap_to(taken[s], other);
            if (g < nearest[k].gap) {
                nearest[k] = {g, s};
            } else if (g == size_max && nearest[k].slot == s) {  // its nearest slot now holds an owner it meets
                nearest[k] = {};
                for (std::uint32_t o = 0; o < taken.size(); ++o)
                    if (const std::size_t h = gap_to(taken[o], other); h < nearest[k].gap) nearest[k] = {h, o};
            }
        }
    }
    plan.peak_bytes = 0;
    for (const auto& slot : plan.slots) plan.peak_bytes += slot.capacity;  // each a distinct owner's size: <= naive
    plan.naive_bytes = naive_bytes;
}

// Greedy by size or by distance with node p's scratch as an owner of its
// own, live at p alone (as the walk and the arena plan it: it meets every
// owner live at p): value value_count() + k for the k-th node with scratch,
// taken out of the plan again into plan.scratch. Without scratch, the
// strategy on `live` itself.
template <class Assign>
void assign_with_scratch(const Liveness& live, const std::vector<std::size_t>& sizes, std::size_t naive_bytes,
                         std::span<const std::size_t> scratch, ActivationPlan& plan, Assign assign) {
    const std::size_t values = live.value_count();
    std::vector<ValueId> extra;  // the scratch owners, by node
    for (std::size_t n = 0; n < scratch.size(); ++n)
        if (scratch[n] > 0) extra.push_back(static_cast<ValueId>(values + extra.size()));
    if (extra.empty()) {
        assign(live, sizes, naive_bytes, plan);
        plan.scratch.assign(scratch.size(), SlotId::none());
        return;
    }
    Liveness with = live;
    std::vector<std::size_t> bytes = sizes;
    bytes.resize(values + extra.size(), 0);
    std::vector<NodeIndex> node(extra.size());
    for (std::size_t n = 0, k = 0; n < scratch.size(); ++n)
        if (scratch[n] > 0) {
            node[k] = static_cast<NodeIndex>(n);
            with.intervals.push_back(Interval{node[k], node[k]});
            with.roots.push_back(extra[k]);
            bytes[extra[k++]] = scratch[n];
        }
    // Owners stay in (def, id) order: a scratch owner after the owners its node defines.
    const auto by_def = [&](ValueId a, ValueId b) {
        return with.intervals[a].def != with.intervals[b].def ? with.intervals[a].def < with.intervals[b].def : a < b;
    };
    with.owners.clear();
    std::merge(live.owners.begin(), live.owners.end(), extra.begin(), extra.end(), std::back_inserter(with.owners), by_def);
    with.allocation_order = with.owners;  // (the offline strategies do not walk it)
    assign(with, bytes, naive_bytes, plan);
    plan.scratch.assign(scratch.size(), SlotId::none());
    for (std::size_t k = 0; k < extra.size(); ++k) plan.scratch[node[k]] = plan.assignments[extra[k]];
    plan.assignments.resize(values);
}

// The strategies that see every owner at once: greedy by size, by
// distance, or the least of every strategy (ties to the earlier of best
// fit, growth, by size, by distance; by distance only where its n^2 steps
// fit in 1,024 per owner, at least 4,096 owners' worth, as the arena's
// strategies are budgeted). Each node's scratch is planned with the owners.
// `timed`: the times by distance measures gaps on (see there; no scratch
// then).
inline void assign_slots_offline(SlotStrategy strategy, const Liveness& live, const std::vector<std::size_t>& sizes,
                                 std::size_t naive_bytes, ActivationPlan& plan, std::span<const std::size_t> scratch = {},
                                 std::span<const Interval> timed = {}) {
    const auto by_distance = [timed](const Liveness& l, const std::vector<std::size_t>& b, std::size_t naive,
                                     ActivationPlan& p) { assign_slots_by_distance(l, b, naive, p, timed); };
    if (strategy == SlotStrategy::greedy_by_size)
        return assign_with_scratch(live, sizes, naive_bytes, scratch, plan, assign_slots_by_size);
    if (strategy == SlotStrategy::greedy_by_distance)
        return assign_with_scratch(live, sizes, naive_bytes, scratch, plan, by_distance);
    Schedule schedule;
    make_schedule(live, schedule);
    SlotPool pool;
    assign_slots(live, schedule, sizes, naive_bytes, pool, plan, false, scratch);
    ActivationPlan other;
    const auto keep_least = [&] {
        if (other.peak_bytes < plan.peak_bytes) std::swap(plan, other);
    };
    assign_slots(live, schedule, sizes, naive_bytes, pool, other, true, scratch);
    keep_least();
    assign_with_scratch(live, sizes, naive_bytes, scratch, other, assign_slots_by_size);
    keep_least();
    std::size_t n = live.owners.size();  // the scratch owners count too
    for (const std::size_t bytes : scratch) n += bytes > 0 ? 1 : 0;
    if (saturating_mul(n, n) <= saturating_mul(1024, std::max<std::size_t>(n, 4096))) {
        assign_with_scratch(live, sizes, naive_bytes, scratch, other, by_distance);
        keep_least();
    }
}

}  // namespace onnx_runtime_memory::detail
