// The activation plan: which slot backs each owner, and the arena it needs
// (SPEC section 5: the seed's greedy best-fit walk in execution order).
#pragma once

#include <algorithm>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "detail/slot_pool.hpp"
#include "errors.hpp"
#include "expected.hpp"
#include "graph.hpp"
#include "liveness.hpp"
#include "sizing.hpp"
#include "view_map.hpp"

namespace onnx_runtime_memory {

// Identifier of a reusable slot of an ActivationPlan: 0, 1, 2, ...
struct SlotId {
    std::uint32_t value = 0xFFFFFFFFu;

    [[nodiscard]] static constexpr SlotId none() noexcept { return SlotId{}; }
    [[nodiscard]] constexpr bool is_none() const noexcept { return value == 0xFFFFFFFFu; }
    friend constexpr auto operator<=>(const SlotId&, const SlotId&) = default;
};

// One reusable slot: an arena region the executor allocates once and hands,
// in turn, to every value assigned to it (their lifetimes are disjoint).
struct SlotInfo {
    SlotId id;
    std::size_t capacity = 0;  // bytes
    friend constexpr bool operator==(const SlotInfo&, const SlotInfo&) = default;
};

// Which slot backs each value, and how big the whole activation arena is.
struct ActivationPlan {
    // assignments[v]: the slot of owner v; SlotId::none() for views,
    // initializers and values outside the arena. One entry per value id.
    std::vector<SlotId> assignments;
    // Every slot, in ascending id (slots[k].id.value == k).
    std::vector<SlotInfo> slots;
    // The arena the executor allocates: the sum of slot capacities.
    std::size_t peak_bytes = 0;
    // The baseline of one buffer per owner: the sum of owner sizes.
    std::size_t naive_bytes = 0;

    [[nodiscard]] std::size_t num_slots() const noexcept { return slots.size(); }
    // 1 - peak / naive: the fraction of the baseline saved (0 when naive is 0).
    [[nodiscard]] double savings_ratio() const noexcept {
        return naive_bytes == 0 ? 0.0 : 1.0 - static_cast<double>(peak_bytes) / static_cast<double>(naive_bytes);
    }
    [[nodiscard]] std::optional<SlotId> slot_of(ValueId v) const noexcept {
        if (v >= assignments.size() || assignments[v].is_none()) return std::nullopt;
        return assignments[v];
    }

    friend bool operator==(const ActivationPlan&, const ActivationPlan&) = default;
};

// The outcome of a planning attempt that met no error: a complete plan, or
// deferred with every owner whose size is not known yet (sorted by id), so
// the executor can plan again once shapes resolve. PlanStatus for slot
// plans; the arena planner's ArenaStatus is the same with an ArenaPlan.
template <class Plan>
class BasicPlanStatus {
public:
    [[nodiscard]] static BasicPlanStatus complete(Plan plan) {
        BasicPlanStatus s;
        s.plan_ = std::move(plan);
        return s;
    }
    [[nodiscard]] static BasicPlanStatus deferred(std::vector<ValueId> unknown_sizes) {
        BasicPlanStatus s;
        s.deferred_ = true;
        s.unknown_ = std::move(unknown_sizes);
        return s;
    }

    [[nodiscard]] bool is_complete() const noexcept { return !deferred_; }
    [[nodiscard]] bool is_deferred() const noexcept { return deferred_; }

    // The plan; calling it on a deferred status is a caller bug (aborts).
    [[nodiscard]] const Plan& plan() const& {
        if (deferred_) detail::bad_expected_access();
        return plan_;
    }
    [[nodiscard]] Plan&& plan() && {
        if (deferred_) detail::bad_expected_access();
        return std::move(plan_);
    }
    // Owners whose size is unknown, ascending id (empty when complete).
    [[nodiscard]] const std::vector<ValueId>& unknown_sizes() const noexcept { return unknown_; }

    friend bool operator==(const BasicPlanStatus&, const BasicPlanStatus&) = default;

private:
    BasicPlanStatus() = default;
    Plan plan_;
    std::vector<ValueId> unknown_;
    bool deferred_ = false;
};
using PlanStatus = BasicPlanStatus<ActivationPlan>;

namespace detail {

// Owners grouped by the position where they retire (use_end), by counting
// sort: owners of position p are list[start[p] .. start[p+1]). Depends on
// the liveness only, so a planner that re-plans keeps it.
struct RetireSchedule {
    std::vector<std::uint32_t> start;
    std::vector<ValueId> list;
};

inline void make_retire_schedule(const Liveness& live, RetireSchedule& r) {
    const std::size_t positions = std::size_t{live.last_position} + 1;
    r.start.assign(positions + 1, 0);
    for (ValueId v : live.owners) ++r.start[std::size_t{live.intervals[v].use_end} + 1];
    for (std::size_t p = 1; p <= positions; ++p) r.start[p] += r.start[p - 1];
    r.list.resize(live.owners.size());
    for (ValueId v : live.owners) r.list[r.start[live.intervals[v].use_end]++] = v;
    // start[p] now marks the end of position p's group; shift back to begins.
    for (std::size_t p = positions; p > 0; --p) r.start[p] = r.start[p - 1];
    r.start[0] = 0;
}

// The seed's walk: at each position allocate the node's owner outputs (best
// fit), then retire the owners whose interval ends there. `sizes` is
// indexed by value id; naive_bytes is already known not to overflow. Reuses
// the memory of `pool` and `plan`.
inline void assign_slots(const Liveness& live, const RetireSchedule& retire, const std::vector<std::size_t>& sizes,
                         std::size_t naive_bytes, SlotPool& pool, ActivationPlan& plan) {
    const std::size_t positions = std::size_t{live.last_position} + 1;
    pool.reset();
    plan.assignments.assign(live.value_count(), SlotId::none());
    const auto& order = live.allocation_order;
    std::size_t next = 0;
    for (std::size_t p = 0; p < positions; ++p) {
        for (; next < order.size() && live.intervals[order[next]].def == p; ++next)
            plan.assignments[order[next]] = SlotId{pool.acquire(sizes[order[next]])};
        for (std::uint32_t k = retire.start[p]; k < retire.start[p + 1]; ++k)
            pool.release(plan.assignments[retire.list[k]].value);
    }
    const auto& capacity = pool.capacities();
    plan.slots.resize(capacity.size());
    plan.peak_bytes = 0;
    for (std::size_t s = 0; s < capacity.size(); ++s) {
        plan.slots[s] = SlotInfo{SlotId{static_cast<std::uint32_t>(s)}, capacity[s]};
        plan.peak_bytes += capacity[s];  // each slot was opened by a distinct owner: <= naive_bytes
    }
    plan.naive_bytes = naive_bytes;
}

// Asks the oracle once per owner, in owner order, filling sizes (by value
// id) and unknown (owners of unknown size, by id). Returns the checked
// naive total (meaningless when unknown is not empty) or an overflow.
template <class Oracle>
[[nodiscard]] expected<std::size_t, PlanError> size_owners(const Liveness& live, Oracle& oracle,
                                                           std::vector<std::size_t>& sizes,
                                                           std::vector<ValueId>& unknown) {
    sizes.assign(live.value_count(), 0);
    unknown.clear();
    std::size_t total = 0;
    std::optional<ValueId> overflow_at;
    for (ValueId v : live.owners) {
        const std::optional<std::size_t> bytes = oracle(v);
        if (!bytes) {
            unknown.push_back(v);
            continue;
        }
        sizes[v] = *bytes;
        if (!overflow_at && __builtin_add_overflow(total, *bytes, &total)) overflow_at = v;
    }
    if (!unknown.empty()) {
        std::sort(unknown.begin(), unknown.end());
        return total;  // deferred wins: with unknown sizes there is no total to overflow
    }
    if (overflow_at) return unexpected(make_plan_error(PlanError::Kind::size_overflow, *overflow_at));
    return total;
}

}  // namespace detail

// Plan from a liveness already computed. The oracle is asked exactly once
// per owner, in owner order. (To plan the same graph many times with new
// sizes, ActivationPlanner keeps its working memory between plans.)
template <size_oracle Oracle>
[[nodiscard]] expected<PlanStatus, PlanError> plan_activations(const Liveness& live, Oracle&& oracle) {
    std::vector<std::size_t> sizes;
    std::vector<ValueId> unknown;
    auto naive = detail::size_owners(live, oracle, sizes, unknown);
    if (!naive) return unexpected(naive.error());
    if (!unknown.empty()) return PlanStatus::deferred(std::move(unknown));
    detail::RetireSchedule retire;
    detail::make_retire_schedule(live, retire);
    detail::SlotPool pool;
    ActivationPlan plan;
    detail::assign_slots(live, retire, sizes, *naive, pool, plan);
    return PlanStatus::complete(std::move(plan));
}

// Compute a liveness-based activation plan with slot reuse. O((V + E) log V).
template <activation_graph G, size_oracle Oracle>
[[nodiscard]] expected<PlanStatus, PlanError> plan_activations(const G& g, const ViewMap& views, Oracle&& oracle,
                                                               const PlanOptions& options = {}) {
    auto live = compute_liveness(g, views, options);
    if (!live) return unexpected(live.error());
    return plan_activations(*live, oracle);
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

// Plans one graph again and again as sizes change (dynamic shapes: a new
// plan every run). Liveness does not depend on sizes, so it is computed
// once, with the retire schedule; each plan() then only sizes the owners and
// walks them, reusing every buffer: after the first plan of the largest
// slot count, planning allocates nothing.
class ActivationPlanner {
public:
    enum class Outcome : std::uint8_t { complete, deferred };

    explicit ActivationPlanner(Liveness live) : live_(std::move(live)) {
        detail::make_retire_schedule(live_, retire_);
        sizes_.reserve(live_.value_count());
        unknown_.reserve(live_.owners.size());
    }
    template <activation_graph G>
    [[nodiscard]] static expected<ActivationPlanner, PlanError> create(const G& g, const ViewMap& views,
                                                                       const PlanOptions& options = {}) {
        auto live = compute_liveness(g, views, options);
        if (!live) return unexpected(live.error());
        return ActivationPlanner(std::move(*live));
    }

    // Plans with this run's sizes into `out`, reusing its memory. On
    // deferred, unknown_sizes() lists the owners the oracle did not know and
    // `out` is left as it was.
    template <size_oracle Oracle>
    [[nodiscard]] expected<Outcome, PlanError> plan(Oracle&& oracle, ActivationPlan& out) {
        auto naive = detail::size_owners(live_, oracle, sizes_, unknown_);
        if (!naive) return unexpected(naive.error());
        if (!unknown_.empty()) return Outcome::deferred;
        detail::assign_slots(live_, retire_, sizes_, *naive, pool_, out);
        return Outcome::complete;
    }

    [[nodiscard]] const Liveness& liveness() const noexcept { return live_; }
    [[nodiscard]] const std::vector<ValueId>& unknown_sizes() const noexcept { return unknown_; }
    // Sizes (by value id) of the last plan's owners.
    [[nodiscard]] const std::vector<std::size_t>& sizes() const noexcept { return sizes_; }

private:
    Liveness live_;
    detail::RetireSchedule retire_;
    std::vector<std::size_t> sizes_;
    std::vector<ValueId> unknown_;
    detail::SlotPool pool_;
};

}  // namespace onnx_runtime_memory
