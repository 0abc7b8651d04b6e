// Slot planning: which slot backs each owner, and the arena it needs. The
// default is the original crate's greedy best-fit walk in execution order;
// the plan types live in plan_types.hpp.
#pragma once

#include <algorithm>
#include <compare>
#include <iterator>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "detail/checked.hpp"
#include "detail/lower_bounds.hpp"
#include "detail/slot_pool.hpp"
#include "errors.hpp"
#include "expected.hpp"
#include "graph.hpp"
#include "liveness.hpp"
#include "plan_types.hpp"
#include "sizes.hpp"
#include "sizing.hpp"
#include "view_map.hpp"
#include "detail/sort.hpp"

namespace onnx_runtime_memory {

namespace detail {

// Which owners each position allocates and retires, from the liveness
// alone (a planner that re-plans keeps it): position p allocates
// allocation_order[alloc_begin[p] .. alloc_begin[p+1]) and retires
// retired[retire_begin[p] .. retire_begin[p+1]), the owners whose use_end
// is p (grouped by counting sort).
struct Schedule {
    std::vector<std::uint32_t> alloc_begin;
    std::vector<std::uint32_t> retire_begin;
    std::vector<ValueId> retired;
};

inline void make_schedule(const Liveness& live, Schedule& r) {
    const std::size_t positions = std::size_t{live.last_position} + 1;
    r.alloc_begin.assign(positions + 1, 0);
    for (ValueId v : live.allocation_order) ++r.alloc_begin[std::size_t{live.intervals[v].def} + 1];
    for (std::size_t p = 1; p <= positions; ++p) r.alloc_begin[p] += r.alloc_begin[p - 1];
    r.retire_begin.assign(positions + 1, 0);
    for (ValueId v : live.owners) ++r.retire_begin[std::size_t{live.intervals[v].use_end} + 1];
    for (std::size_t p = 1; p <= positions; ++p) r.retire_begin[p] += r.retire_begin[p - 1];
    r.retired.resize(live.owners.size());
    for (ValueId v : live.owners) r.retired[r.retire_begin[live.intervals[v].use_end]++] = v;
    // start[p] now marks the end of position p's group; shift back to begins.
    for (std::size_t p = positions; p > 0; --p) r.retire_begin[p] = r.retire_begin[p - 1];
    r.retire_begin[0] = 0;
}

// The best-fit walk: at each position allocate the node's owner outputs (best
// fit; with `grow`, growing the largest free slot rather than opening one),
// then its scratch (scratch[p] bytes, if any), then retire the owners whose
// interval ends there and the scratch. `sizes` is indexed by value id;
// naive_bytes is already known not to overflow. Reuses the memory of `pool`
// and `plan`. Gives up (false, `plan` unfinished) once the capacities reach
// `give_up_at` (size_max: never): they only grow, so the plan would hold at
// least that much (an arena plan asks so, when only a smaller slot plan
// would serve it).
inline bool assign_slots(const Liveness& live, const Schedule& schedule, const std::vector<std::size_t>& sizes,
                         std::size_t naive_bytes, SlotPool& pool, ActivationPlan& plan, bool grow = false,
                         std::span<const std::size_t> scratch = {}, std::size_t give_up_at = size_max) {
    const std::size_t positions = std::size_t{live.last_position} + 1;
    pool.reset();
    plan.assignments.assign(live.value_count(), SlotId::none());
    plan.scratch.assign(scratch.size(), SlotId::none());
    const auto& order = live.allocation_order;
    for (std::size_t p = 0; p < positions; ++p) {
        for (std::uint32_t k = schedule.alloc_begin[p]; k < schedule.alloc_begin[p + 1]; ++k)
            plan.assignments[order[k]] =
                SlotId{grow ? pool.acquire_growing(sizes[order[k]]) : pool.acquire(sizes[order[k]])};
        const bool has_scratch = p < scratch.size() && scratch[p] > 0;
        if (has_scratch) plan.scratch[p] = SlotId{grow ? pool.acquire_growing(scratch[p]) : pool.acquire(scratch[p])};
        if (detail::reached(pool.total(), give_up_at)) return false;
        for (std::uint32_t k = schedule.retire_begin[p]; k < schedule.retire_begin[p + 1]; ++k)
            pool.release(plan.assignments[schedule.retired[k]].value);
        if (has_scratch) pool.release(plan.scratch[p].value);
    }
    const auto& capacity = pool.capacities();
    plan.slots.resize(capacity.size());
    plan.peak_bytes = 0;
    for (std::size_t s = 0; s < capacity.size(); ++s) {
        plan.slots[s] = SlotInfo{SlotId{static_cast<std::uint32_t>(s)}, capacity[s]};
        plan.peak_bytes += capacity[s];  // each slot holds a distinct owner's (or scratch's) size: <= naive_bytes
    }
    plan.naive_bytes = naive_bytes;
    return true;
}

}  // namespace detail

namespace detail {

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

// plan_activations from a liveness known to be well formed. The walks in
// execution order are a template argument so that a caller of one compiles
// only it; every other strategy is one function (assign_slots_offline).
// With UnknownSizes::dynamic, owners of unknown size leave the liveness and
// the rest is planned.
template <SlotStrategy strategy, class Oracle>
[[nodiscard]] expected<PlanStatus, PlanError> plan_slots(const Liveness& live, Oracle& oracle,
                                                         UnknownSizes policy = UnknownSizes::defer,
                                                         std::span<const std::size_t> scratch = {},
                                                         SlotStrategy offline = strategy,
                                                         std::span<const Interval> timed = {}) {
    auto request = size_for_plan(live, oracle, policy, scratch);
    if (!request) return unexpected(request.error());
    auto& sizes = request->sizes;
    if (request->deferred) return PlanStatus::deferred(std::move(sizes.unknown));
    const Liveness& planned = request->planned(live);
    const std::size_t naive = request->naive_bytes;
    ActivationPlan plan;
    if constexpr (strategy != SlotStrategy::best_fit && strategy != SlotStrategy::in_order_growth) {
        detail::assign_slots_offline(offline, planned, sizes.bytes, naive, plan, scratch, timed);
    } else {
        detail::Schedule schedule;
        detail::make_schedule(planned, schedule);
        detail::SlotPool pool;
        detail::assign_slots(planned, schedule, sizes.bytes, naive, pool, plan, strategy == SlotStrategy::in_order_growth,
                             scratch);
    }
    plan.dynamic_values = std::move(sizes.unknown);
    return PlanStatus::complete(std::move(plan));
}

// plan_slots with the strategy chosen at run time: each walk compiles only
// when a caller may choose it.
template <class Oracle>
[[nodiscard]] expected<PlanStatus, PlanError> plan_slots_by(SlotStrategy strategy, const Liveness& live, Oracle& oracle,
                                                            UnknownSizes policy, std::span<const std::size_t> scratch,
                                                            std::span<const Interval> timed = {}) {
    switch (strategy) {
        case SlotStrategy::in_order_growth: return plan_slots<SlotStrategy::in_order_growth>(live, oracle, policy, scratch);
        case SlotStrategy::greedy_by_size:
        case SlotStrategy::greedy_by_distance:
        case SlotStrategy::least:
            return plan_slots<SlotStrategy::greedy_by_size>(live, oracle, policy, scratch, strategy, timed);
        case SlotStrategy::best_fit: break;
    }
    return plan_slots<SlotStrategy::best_fit>(live, oracle, policy, scratch);
}

}  // namespace detail

// Plan from a liveness already computed, with the best-fit walk or
// another SlotStrategy. The oracle is asked exactly once per owner, in owner
// order. A liveness of the wrong shape is PlanError::bad_liveness
// (check_liveness). (To plan the same graph many times with new sizes,
// ActivationPlanner keeps its working memory between plans.)
template <size_oracle Oracle>
[[nodiscard]] expected<PlanStatus, PlanError> plan_activations(const Liveness& live, Oracle&& oracle,
                                                               SlotStrategy strategy = SlotStrategy::best_fit) {
    if (auto ok = check_liveness(live); !ok) return unexpected(ok.error());
    return detail::plan_slots_by(strategy, live, oracle, UnknownSizes::defer, {});
}

// Slots without a graph: buffer record i (size, first, last) is owner i,
// and the slot planner walks the records as it walks a graph's owners (by
// first, then index); pins are ignored (slots have no offsets). A malformed
// record is PlanError::bad_buffer naming it. O(n log n) for best fit,
// whatever the time stamps: sparse ones are ranked first, which gives the
// same plan (greedy by distance still measures its gaps on the caller's).
// (A template only so that a translation unit that never calls it does not
// compile the slot planner for it.)
template <int = 0>
[[nodiscard]] expected<ActivationPlan, PlanError> plan_slots(std::span<const Buffer> records,
                                                             SlotStrategy strategy = SlotStrategy::best_fit) {
    if (auto ok = detail::check_buffers(records); !ok) return unexpected(ok.error());
    std::vector<Buffer> ranked;
    const auto buffers = detail::dense_times(records, ranked);
    Liveness live;
    const std::size_t n = buffers.size();
    live.intervals.resize(n);
    live.roots.resize(n);
    live.owners.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        live.intervals[i] = Interval{buffers[i].first, buffers[i].last};
        live.roots[i] = static_cast<ValueId>(i);
        live.owners[i] = static_cast<ValueId>(i);
        live.last_position = std::max(live.last_position, buffers[i].last);
    }
    detail::sort_by(live.owners, [&](ValueId v) { return buffers[v].first; });
    live.allocation_order = live.owners;
    std::vector<Interval> timed;  // the caller's times, where the liveness holds ranks
    if (!ranked.empty())
        for (const Buffer& r : records) timed.push_back(Interval{r.first, r.last});
    const auto oracle = [&](ValueId v) { return std::optional<std::size_t>(buffers[v].size); };
    auto status = detail::plan_slots_by(strategy, live, oracle, UnknownSizes::defer, {}, timed);
    if (!status) return unexpected(status.error());
    return std::move(*status).plan();
}

// Compute a liveness-based activation plan with slot reuse. O((V + E) log V).
template <activation_graph G, size_oracle Oracle>
[[nodiscard]] expected<PlanStatus, PlanError> plan_activations(const G& g, const ViewMap& views, Oracle&& oracle,
                                                               const PlanOptions& options = {}) {
    auto live = compute_liveness(g, views, options);
    if (!live) return unexpected(live.error());
    return detail::plan_slots<SlotStrategy::best_fit>(*live, oracle, options.unknown_sizes, options.scratch_bytes);
}

// The same with another SlotStrategy, under every policy of `options`
// (unknown sizes, scratch: each strategy plans a node's scratch with the
// owners live at that node). SlotStrategy::best_fit gives the plan above.
template <activation_graph G, size_oracle Oracle>
[[nodiscard]] expected<PlanStatus, PlanError> plan_activations(const G& g, const ViewMap& views, Oracle&& oracle,
                                                               const PlanOptions& options, SlotStrategy strategy) {
    auto live = compute_liveness(g, views, options);
    if (!live) return unexpected(live.error());
    return detail::plan_slots_by(strategy, *live, oracle, options.unknown_sizes, options.scratch_bytes);
}

// Convenience: plan from fully-static shapes (Deferred if any is symbolic).
template <shaped_graph G>
[[nodiscard]] expected<PlanStatus, PlanError> plan_activations_static(const G& g, const ViewMap& views,
                                                                      const PlanOptions& options = {}) {
    return plan_activations(g, views, static_size_oracle(g), options);
}

// The arena size with every symbolic dim at its bound, or nullopt ("none")
// when some size is still unknown: never 0 for unknown.
template <shaped_graph G>
[[nodiscard]] expected<std::optional<std::size_t>, PlanError> peak_activation_bytes_at_bounds(
    const G& g, const ViewMap& views, const SymbolBounds& bounds, const PlanOptions& options = {}) {
    auto status = plan_activations(g, views, bounded_size_oracle(g, bounds), options);
    if (!status) return unexpected(status.error());
    if (status->is_deferred()) return std::optional<std::size_t>{};
    return std::optional<std::size_t>{status->plan().peak_bytes};
}

namespace detail {

// What both re-planners keep between requests: the liveness (checked once;
// one of the wrong shape is kept out and every plan returns its error), the
// retire schedule, the scratch, the policy for unknown sizes, and the sizes'
// memory. Under UnknownSizes::dynamic, a request with some size unknown
// plans the liveness without those owners (planned(): a kept copy, so no
// allocation once it has grown), as plan_activations and plan_arena do.
class KeptPlanning {
public:
    // Every owner, dynamic ones included.
    [[nodiscard]] const Liveness& liveness() const noexcept { return live_; }
    // Owners the last request's oracle did not know, ascending: deferred, or
    // (UnknownSizes::dynamic) left to run time, as the plan's dynamic_values.
    [[nodiscard]] const std::vector<ValueId>& unknown_sizes() const noexcept { return sizes_.unknown; }
    // Sizes (by value id) of the last plan's owners.
    [[nodiscard]] const std::vector<std::size_t>& sizes() const noexcept { return sizes_.bytes; }

protected:
    KeptPlanning(Liveness live, std::vector<std::size_t> scratch, UnknownSizes policy)
        : live_(std::move(live)), scratch_(std::move(scratch)), policy_(policy) {
        if (auto ok = check_liveness(live_); !ok) {
            error_ = ok.error();
            live_ = Liveness{};
            return;
        }
        make_schedule(live_, schedule_);
        sizes_.bytes.reserve(live_.value_count());
        sizes_.unknown.reserve(live_.owners.size());
    }

    // This request's sizes: the naive total (scratch included), nullopt when
    // some size is unknown and the policy defers, or the error; the order of
    // the checks is plan_activations' (size_for_plan).
    template <class Oracle>
    [[nodiscard]] expected<std::optional<std::size_t>, PlanError> size_request(Oracle& oracle) {
        if (error_) return unexpected(*error_);
        size_owners(live_, oracle, sizes_);
        auto naive = sizes_.naive_bytes(policy_);
        if (!naive) return unexpected(naive.error());
        if (!sizes_.complete() && policy_ == UnknownSizes::defer) return std::optional<std::size_t>{};
        auto with_scratch = add_scratch(live_, scratch_, *naive);
        if (!with_scratch) return unexpected(with_scratch.error());
        dynamic_ = !sizes_.complete();
        if (dynamic_) {
            planned_ = live_;
            remove_owners(planned_, sizes_.unknown);
            make_schedule(planned_, planned_schedule_);
        }
        return std::optional<std::size_t>{*with_scratch};
    }
    // What this request plans: the liveness, without its dynamic owners.
    [[nodiscard]] const Liveness& planned() const noexcept { return dynamic_ ? planned_ : live_; }
    [[nodiscard]] const Schedule& planned_schedule() const noexcept { return dynamic_ ? planned_schedule_ : schedule_; }
    // This request's dynamic values (empty unless some are).
    void report_dynamic(std::vector<ValueId>& out) const {
        out.clear();
        if (dynamic_) out.assign(sizes_.unknown.begin(), sizes_.unknown.end());
    }

    Liveness live_;
    std::vector<std::size_t> scratch_;  // bytes by node position (PlanOptions::scratch_bytes)
    UnknownSizes policy_ = UnknownSizes::defer;
    Schedule schedule_;
    OwnerSizes sizes_;
    bool dynamic_ = false;  // the last request left some owners to run time
    Liveness planned_;      // then: the liveness without them
    Schedule planned_schedule_;
    std::optional<PlanError> error_;
};

}  // namespace detail

// Plans one graph again and again as sizes change (dynamic shapes: a new
// plan every run). Liveness does not depend on sizes, so it is computed
// once, with the retire schedule; each plan() then only sizes the owners and
// walks them, reusing every buffer: after the first plan of the largest
// slot count, planning allocates nothing. It plans the scratch of the
// options it was created with, or the request's; unknown sizes are handled
// as the options' UnknownSizes say (dynamic: the rest is planned, the plan's
// dynamic_values list them), so every plan equals plan_activations'.
class ActivationPlanner : public detail::KeptPlanning {
public:
    enum class Outcome : std::uint8_t { complete, deferred };

    // A liveness of the wrong shape (check_liveness) is kept out: every
    // plan() then returns its PlanError::bad_liveness.
    explicit ActivationPlanner(Liveness live, std::vector<std::size_t> scratch = {},
                               UnknownSizes unknown = UnknownSizes::defer)
        : KeptPlanning(std::move(live), std::move(scratch), unknown) {}
    template <activation_graph G>
    [[nodiscard]] static expected<ActivationPlanner, PlanError> create(const G& g, const ViewMap& views,
                                                                       const PlanOptions& options = {}) {
        auto live = compute_liveness(g, views, options);
        if (!live) return unexpected(live.error());
        return ActivationPlanner(std::move(*live), options.scratch_bytes, options.unknown_sizes);
    }

    // Plans with this run's sizes into `out`, reusing its memory. On
    // deferred, unknown_sizes() lists the owners the oracle did not know and
    // `out` is left as it was.
    template <size_oracle Oracle>
    [[nodiscard]] expected<Outcome, PlanError> plan(Oracle&& oracle, ActivationPlan& out) {
        auto naive = size_request(oracle);
        if (!naive) return unexpected(naive.error());
        if (!*naive) return Outcome::deferred;
        detail::assign_slots(planned(), planned_schedule(), sizes_.bytes, **naive, pool_, out, false, scratch_);
        report_dynamic(out.dynamic_values);
        return Outcome::complete;
    }
    // The same with this request's scratch (bytes by node position, as
    // PlanOptions::scratch_bytes), kept for the next requests too.
    template <size_oracle Oracle>
    [[nodiscard]] expected<Outcome, PlanError> plan(Oracle&& oracle, std::span<const std::size_t> scratch,
                                                    ActivationPlan& out) {
        scratch_.assign(scratch.begin(), scratch.end());
        return plan(oracle, out);
    }

private:
    detail::SlotPool pool_;
};

}  // namespace onnx_runtime_memory
