// Arena planning for a graph: a byte offset for every owner (and view)
// inside one arena. The liveness and sizes become buffer records, the
// graph-free layer (offsets.hpp) places them, and the offsets map back to
// value ids; the best-fit slot plan laid out in one arena is a candidate too
// (ArenaStrategy::slots), so an arena plan is never worse than it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

#include "detail/checked.hpp"
#include "errors.hpp"
#include "expected.hpp"
#include "liveness.hpp"
#include "offsets.hpp"
#include "plan.hpp"
#include "plan_types.hpp"
#include "sizes.hpp"
#include "sizing.hpp"
#include "view_map.hpp"

namespace onnx_runtime_memory {

namespace detail {

// A view lives at its root owner's offset.
inline void place_views(const Liveness& live, std::vector<std::size_t>& offsets) {
    for (std::size_t v = 0; v < live.value_count(); ++v)
        if (live.roots[v] != v && live.is_owner(live.roots[v])) offsets[v] = offsets[live.roots[v]];
}

}  // namespace detail

// Lays a slot plan out in one arena: slot k at the sum of the (aligned)
// capacities of slots 0 .. k-1; each owner at its slot's offset, each view
// at its root's. What the executor does with a slot plan and one allocation.
[[nodiscard]] inline expected<ArenaPlan, PlanError> arena_from_slots(const Liveness& live, const ActivationPlan& plan,
                                                                     std::size_t alignment = 64) {
    if (auto ok = check_liveness(live); !ok) return unexpected(ok.error());
    alignment = std::max<std::size_t>(alignment, 1);
    std::vector<std::size_t> slot_offset(plan.slots.size());
    std::size_t top = 0;
    for (std::size_t s = 0; s < plan.slots.size(); ++s) {
        slot_offset[s] = top;
        std::size_t c = 0;
        if (detail::align_up_overflows(plan.slots[s].capacity, alignment, c) || detail::add_overflows(top, c, top))
            return unexpected(make_plan_error(PlanError::Kind::size_overflow));
    }
    ArenaPlan arena;
    arena.arena_bytes = top;
    arena.alignment = alignment;
    arena.strategy = ArenaStrategy::slots;
    arena.offsets.assign(live.value_count(), no_offset);
    for (ValueId v : live.owners)
        if (const auto s = plan.slot_of(v); s && s->value < slot_offset.size()) arena.offsets[v] = slot_offset[s->value];
    detail::place_views(live, arena.offsets);
    return arena;
}

namespace detail {

// plan_arena from a liveness known to be well formed.
template <class Oracle>
[[nodiscard]] expected<ArenaStatus, PlanError> plan_owner_offsets(const Liveness& all, Oracle& oracle,
                                                                  const ArenaOptions& options,
                                                                  UnknownSizes policy = UnknownSizes::defer) {
    OwnerSizes sizes;
    size_owners(all, oracle, sizes);
    auto naive = sizes.naive_bytes(policy);
    if (!naive) return unexpected(naive.error());
    if (!sizes.complete() && policy == UnknownSizes::defer) return ArenaStatus::deferred(std::move(sizes.unknown));
    std::optional<Liveness> filtered;  // with dynamic values: the rest is planned
    if (!sizes.complete()) filtered = without_owners(all, sizes.unknown);
    const Liveness& live = filtered ? *filtered : all;
    std::vector<Buffer> buffers;
    owner_buffers(live, sizes.bytes, buffers);
    auto placed = plan_offsets(buffers, options);
    if (!placed) {  // name the owner, not the buffer index
        PlanError e = placed.error();
        if (e.value < live.owners.size()) e.value = live.owners[static_cast<std::size_t>(e.value)];
        return unexpected(e);
    }
    if (placed->arena_bytes > placed->lower_bound_bytes) {  // the best-fit slot plan, laid out, is a candidate too
        detail::Schedule schedule;
        detail::make_schedule(live, schedule);
        detail::SlotPool pool;
        ActivationPlan slots;
        detail::assign_slots(live, schedule, sizes.bytes, *naive, pool, slots);
        auto from_slots = arena_from_slots(live, slots, placed->alignment);  // (checks the liveness again: O(V), rare)
        if (!from_slots) return unexpected(from_slots.error());
        if (from_slots->arena_bytes < placed->arena_bytes) {
            from_slots->dynamic_values = std::move(sizes.unknown);
            return ArenaStatus::complete(std::move(*from_slots));
        }
    }
    ArenaPlan plan;
    plan.arena_bytes = placed->arena_bytes;
    plan.alignment = placed->alignment;
    plan.strategy = placed->strategy;
    plan.offsets.assign(live.value_count(), no_offset);
    for (std::size_t i = 0; i < live.owners.size(); ++i) plan.offsets[live.owners[i]] = placed->offsets[i];
    place_views(live, plan.offsets);
    plan.dynamic_values = std::move(sizes.unknown);
    return ArenaStatus::complete(std::move(plan));
}

}  // namespace detail

// An arena plan from a liveness: the oracle is asked once per owner, in
// owner order; Deferred when some size is unknown. A liveness of the wrong
// shape is PlanError::bad_liveness (check_liveness).
template <size_oracle Oracle>
[[nodiscard]] expected<ArenaStatus, PlanError> plan_arena(const Liveness& live, Oracle&& oracle,
                                                          const ArenaOptions& options = {}) {
    if (auto ok = check_liveness(live); !ok) return unexpected(ok.error());
    return detail::plan_owner_offsets(live, oracle, options);
}

// Computes the liveness, then plans the arena. O(n log n) for the sweep, plus
// O(n * k) for the greedy orders up to options.quadratic_limit owners, plus the
// search iterations asked for.
template <activation_graph G, size_oracle Oracle>
[[nodiscard]] expected<ArenaStatus, PlanError> plan_arena(const G& g, const ViewMap& views, Oracle&& oracle,
                                                          const PlanOptions& plan_options = {},
                                                          const ArenaOptions& options = {}) {
    auto live = compute_liveness(g, views, plan_options);
    if (!live) return unexpected(live.error());
    return detail::plan_owner_offsets(*live, oracle, options, plan_options.unknown_sizes);
}

}  // namespace onnx_runtime_memory
