// The walks in execution order: the code behind slot_walk.hpp's declarations (part of the compiled
// core, config.hpp).
#pragma once

#include "config.hpp"
#if defined(ONNX_RUNTIME_MEMORY_SEPARATE_COMPILATION) && !defined(ONNX_RUNTIME_MEMORY_SOURCE)
#error "detail/best_fit_walk.hpp is the compiled core's: include detail/slot_walk.hpp (src.hpp defines the core once)"
#endif

#include "slot_walk.hpp"

namespace onnx_runtime_memory::detail {

ONNX_RUNTIME_MEMORY_CORE void make_schedule(const Liveness& live, Schedule& r) {
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

ONNX_RUNTIME_MEMORY_CORE bool assign_slots(const Liveness& live, const Schedule& schedule, const std::vector<std::size_t>& sizes,
                         std::size_t naive_bytes, SlotPool& pool, ActivationPlan& plan, bool grow,
                         std::span<const std::size_t> scratch, std::size_t give_up_at) {
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

}  // namespace onnx_runtime_memory::detail
