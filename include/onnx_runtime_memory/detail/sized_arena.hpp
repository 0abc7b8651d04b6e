// An arena plan from sized owners: the code behind arena.hpp's declarations
// (part of the compiled core, config.hpp).
#pragma once

#include "config.hpp"
#if defined(ONNX_RUNTIME_MEMORY_SEPARATE_COMPILATION) && !defined(ONNX_RUNTIME_MEMORY_SOURCE)
#error "detail/sized_arena.hpp is the compiled core's: include arena.hpp (src.hpp defines the core once)"
#endif

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "../arena.hpp"
#include "checked.hpp"

namespace onnx_runtime_memory {

namespace detail {

ONNX_RUNTIME_MEMORY_CORE void place_views(const Liveness& live, std::vector<std::size_t>& offsets) {
    for (std::size_t v = 0; v < live.value_count(); ++v) {
        const ValueId r = live.roots[v];
        std::size_t at = 0;
        if (r != v && live.is_owner(r))
            offsets[v] = offsets[r] == no_offset || add_overflows(offsets[r], live.window(static_cast<ValueId>(v)), at)
                             ? no_offset
                             : at;
    }
}

// Slot k at the sum of the aligned capacities of slots 0 .. k-1, an empty
// slot at 0 (its owners hold no bytes, and every offset stays inside the
// arena); returns where the last non-empty slot's bytes end, or nullopt if
// that overflows.
[[nodiscard]] inline std::optional<std::size_t> lay_out_slots(const std::vector<SlotInfo>& slots, std::size_t alignment,
                                                              std::vector<std::size_t>& slot_offset) {
    slot_offset.resize(slots.size());
    std::size_t top = 0, end = 0;
    for (std::size_t s = 0; s < slots.size(); ++s) {
        const std::size_t capacity = slots[s].capacity;
        slot_offset[s] = capacity > 0 ? top : 0;
        std::size_t c = 0;
        if (align_up_overflows(capacity, alignment, c) || add_overflows(top, c, top)) return std::nullopt;
        if (capacity > 0) end = slot_offset[s] + capacity;
    }
    return end;
}

}  // namespace detail

ONNX_RUNTIME_MEMORY_CORE expected<ArenaPlan, PlanError> arena_from_slots(const Liveness& live, const ActivationPlan& plan,
                                                                        std::size_t alignment) {
    if (auto ok = check_liveness(live); !ok) return unexpected(ok.error());
    alignment = detail::alignment_or_one(alignment);
    std::vector<std::size_t> slot_offset;
    const auto end = detail::lay_out_slots(plan.slots, alignment, slot_offset);
    if (!end) return unexpected(make_plan_error(PlanError::Kind::size_overflow));
    ArenaPlan arena;
    arena.arena_bytes = *end;
    arena.alignment = alignment;
    arena.strategy = ArenaStrategy::slots;
    arena.offsets.assign(live.value_count(), no_offset);
    for (ValueId v : live.owners)
        if (const auto s = plan.slot_of(v); s && s->value < slot_offset.size()) arena.offsets[v] = slot_offset[s->value];
    detail::place_views(live, arena.offsets);
    arena.scratch_offsets.assign(plan.scratch.size(), no_offset);
    for (std::size_t n = 0; n < plan.scratch.size(); ++n)
        if (!plan.scratch[n].is_none() && plan.scratch[n].value < slot_offset.size())
            arena.scratch_offsets[n] = slot_offset[plan.scratch[n].value];
    return arena;
}

namespace detail {

ONNX_RUNTIME_MEMORY_CORE expected<std::size_t, PlanError> place_sized(
    const Liveness& live, const Schedule* schedule, const std::vector<std::size_t>& bytes, std::size_t naive,
    std::span<const std::size_t> scratch, std::span<const PinnedOffset> pins, const ArenaOptions& options, bool release,
    ArenaWork& work, ArenaPlan& out) {
    const std::size_t alignment = alignment_or_one(options.alignment);
    owner_buffers(live, bytes, work.buffers);
    if (auto ok = pin_owners(live, pins, work.buffers); !ok) return unexpected(ok.error());
    scratch_buffers(scratch, work.buffers);  // after the owners: record owners + k is the k-th node with scratch
    if (auto ok = checked_columns(work.buffers, alignment, work.columns); !ok)
        return unexpected(name_owners(ok.error(), live));
    if (release) std::vector<Buffer>().swap(work.buffers);  // the columns hold them now
    const ArenaBound bound = arena_bound(work.columns, work.born, work.dying);
    if (release) {
        std::vector<std::size_t>().swap(work.born);
        std::vector<std::size_t>().swap(work.dying);
    }
    place_buffers(work.columns, options, bound, *work.space, work.placed);
    if (release) {
        const PlaceSpaceHandle done(std::move(work.space));  // the strategies' memory, freed here
    }
    const std::size_t placed_end = settle_arena(work.columns, work.placed.offset);

    // The placement, written out first: a one-off plan then frees its
    // columns before the slot plan's walk asks for memory (which reuses
    // their pages instead of touching fresh ones).
    out.offsets.assign(live.value_count(), no_offset);
    out.scratch_offsets.assign(scratch.size(), no_offset);
    out.alignment = alignment;
    out.proven_bound_bytes = proven_bytes(work.columns, bound, work.placed.proven);
    out.arena_bytes = placed_end;
    out.strategy = work.placed.strategy;
    const std::size_t owners = live.owners.size();
    work.scratch_record_offset.resize(work.columns.count() - owners);
    for (std::size_t i = 0; i < work.columns.count(); ++i) {
        const std::size_t r = work.columns.value[i];  // the record: an owner, or a node's scratch after them
        if (r < owners) out.offsets[live.owners[r]] = work.placed.offset[i];
        else work.scratch_record_offset[r - owners] = work.placed.offset[i];
    }
    for (std::size_t n = 0, k = 0; n < scratch.size(); ++n)
        if (scratch[n] > 0) out.scratch_offsets[n] = work.scratch_record_offset[k++];
    if (release) {
        work.columns = Buffers{};
        std::vector<std::size_t>().swap(work.placed.offset);
    }

    // The best-fit slot plan, laid out, is a candidate too (it knows no
    // pins). Laid out, it ends at or above the sum of its capacities: the
    // walk gives up once that reaches the placed arena (it could not be
    // smaller), and so does a layout that overflows.
    const auto slots_end = [&] {
        if (schedule == nullptr) {
            make_schedule(live, work.schedule);
            schedule = &work.schedule;
        }
        if (!assign_slots(live, *schedule, bytes, naive, work.pool, work.slots, false, scratch, placed_end))
            return size_max;
        return lay_out_slots(work.slots.slots, alignment, work.slot_offset).value_or(size_max);
    };
    const bool slots_may_win = placed_end > bound.bytes && pins.empty();
    if (const std::size_t slots_at = slots_may_win ? slots_end() : size_max; slots_at < placed_end) {
        out.arena_bytes = slots_at;
        out.strategy = ArenaStrategy::slots;
        for (ValueId v : live.owners) out.offsets[v] = work.slot_offset[work.slots.assignments[v].value];
        for (std::size_t n = 0; n < scratch.size(); ++n)
            out.scratch_offsets[n] =
                work.slots.scratch[n].is_none() ? no_offset : work.slot_offset[work.slots.scratch[n].value];
    }
    place_views(live, out.offsets);
    return bound.bytes;
}

ONNX_RUNTIME_MEMORY_CORE expected<void, PlanError> place_sized_once(const Liveness& live, const std::vector<std::size_t>& bytes,
                                                                   std::size_t naive, std::span<const std::size_t> scratch,
                                                                   std::span<const PinnedOffset> pins,
                                                                   const ArenaOptions& options, ArenaPlan& out) {
    ArenaWork work;
    auto bound = place_sized(live, nullptr, bytes, naive, scratch, pins, options, true, work, out);
    if (!bound) return unexpected(bound.error());
    return {};
}

}  // namespace detail

}  // namespace onnx_runtime_memory
