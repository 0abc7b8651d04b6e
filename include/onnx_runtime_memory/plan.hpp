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
// Deferred with every owner whose size is not known yet (sorted by id), so
// the executor can plan again once shapes resolve.
class PlanStatus {
public:
    [[nodiscard]] static PlanStatus complete(ActivationPlan plan) {
        PlanStatus s;
        s.plan_ = std::move(plan);
        return s;
    }
    [[nodiscard]] static PlanStatus deferred(std::vector<ValueId> unknown_sizes) {
        PlanStatus s;
        s.deferred_ = true;
        s.unknown_ = std::move(unknown_sizes);
        return s;
    }

    [[nodiscard]] bool is_complete() const noexcept { return !deferred_; }
    [[nodiscard]] bool is_deferred() const noexcept { return deferred_; }

    // The plan; calling it on a deferred status is a caller bug (aborts).
    [[nodiscard]] const ActivationPlan& plan() const& {
        if (deferred_) detail::bad_expected_access();
        return plan_;
    }
    [[nodiscard]] ActivationPlan&& plan() && {
        if (deferred_) detail::bad_expected_access();
        return std::move(plan_);
    }
    // Owners whose size is unknown, ascending id (empty when complete).
    [[nodiscard]] const std::vector<ValueId>& unknown_sizes() const noexcept { return unknown_; }

    friend bool operator==(const PlanStatus&, const PlanStatus&) = default;

private:
    PlanStatus() = default;
    ActivationPlan plan_;
    std::vector<ValueId> unknown_;
    bool deferred_ = false;
};

namespace detail {

// Working memory of the slot walk, kept between plans by callers that plan
// repeatedly.
struct SlotWalkScratch {
    std::vector<std::uint32_t> retire_start;  // by position: first index into retire_list
    std::vector<ValueId> retire_list;         // owners grouped by use_end
    SlotPool pool;
};

// The seed's walk: at each position allocate the node's owner outputs
// (best fit), then retire the owners whose interval ends there. `sizes` is
// indexed by value id; naive_bytes is already known not to overflow.
inline void assign_slots(const Liveness& live, const std::vector<std::size_t>& sizes, std::size_t naive_bytes,
                         SlotWalkScratch& scratch, ActivationPlan& plan) {
    const std::size_t positions = std::size_t{live.last_position} + 1;
    auto& start = scratch.retire_start;
    auto& list = scratch.retire_list;
    start.assign(positions + 1, 0);
    for (ValueId v : live.owners) ++start[std::size_t{live.intervals[v].use_end} + 1];
    for (std::size_t p = 1; p <= positions; ++p) start[p] += start[p - 1];
    list.resize(live.owners.size());
    for (ValueId v : live.owners) list[start[live.intervals[v].use_end]++] = v;
    // start[p] now marks the end of position p's group; shift back to begins.
    for (std::size_t p = positions; p > 0; --p) start[p] = start[p - 1];
    start[0] = 0;

    scratch.pool.reset();
    plan.assignments.assign(live.value_count(), SlotId::none());
    const auto& order = live.allocation_order;
    std::size_t next = 0;
    for (std::size_t p = 0; p < positions; ++p) {
        for (; next < order.size() && live.intervals[order[next]].def == p; ++next)
            plan.assignments[order[next]] = SlotId{scratch.pool.acquire(sizes[order[next]])};
        for (std::uint32_t k = start[p]; k < start[p + 1]; ++k) scratch.pool.release(plan.assignments[list[k]].value);
    }

    const auto& capacity = scratch.pool.capacities();
    plan.slots.resize(capacity.size());
    plan.peak_bytes = 0;
    for (std::size_t s = 0; s < capacity.size(); ++s) {
        plan.slots[s] = SlotInfo{SlotId{static_cast<std::uint32_t>(s)}, capacity[s]};
        plan.peak_bytes += capacity[s];  // each slot was opened by a distinct owner: <= naive_bytes
    }
    plan.naive_bytes = naive_bytes;
}

// Asks the oracle once per owner, in owner order. Fills sizes (by value id)
// and returns the checked naive total, or the unknown owners, or an overflow.
struct SizingResult {
    std::size_t naive_bytes = 0;
    std::vector<ValueId> unknown;  // sorted by id
};
template <class Oracle>
[[nodiscard]] expected<SizingResult, PlanError> size_owners(const Liveness& live, Oracle& oracle,
                                                            std::vector<std::size_t>& sizes) {
    SizingResult r;
    sizes.assign(live.value_count(), 0);
    std::optional<ValueId> overflow_at;
    for (ValueId v : live.owners) {
        const std::optional<std::size_t> bytes = oracle(v);
        if (!bytes) {
            r.unknown.push_back(v);
            continue;
        }
        sizes[v] = *bytes;
        if (!overflow_at && __builtin_add_overflow(r.naive_bytes, *bytes, &r.naive_bytes)) overflow_at = v;
    }
    if (!r.unknown.empty()) {
        std::sort(r.unknown.begin(), r.unknown.end());
        return r;  // deferred wins: with unknown sizes there is no total to overflow
    }
    if (overflow_at) return unexpected(make_plan_error(PlanError::Kind::size_overflow, *overflow_at));
    return r;
}

}  // namespace detail

// Plan from a liveness already computed (e.g. kept across runs whose sizes
// change). The oracle is asked exactly once per owner, in owner order.
template <size_oracle Oracle>
[[nodiscard]] expected<PlanStatus, PlanError> plan_activations(const Liveness& live, Oracle&& oracle) {
    std::vector<std::size_t> sizes;
    auto sized = detail::size_owners(live, oracle, sizes);
    if (!sized) return unexpected(sized.error());
    if (!sized->unknown.empty()) return PlanStatus::deferred(std::move(sized->unknown));
    detail::SlotWalkScratch scratch;
    ActivationPlan plan;
    detail::assign_slots(live, sizes, sized->naive_bytes, scratch, plan);
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

}  // namespace onnx_runtime_memory
