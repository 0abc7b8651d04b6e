// The slot walk: which owners each position allocates and retires
// (Schedule), and the best-fit walk in execution order over them, the
// original crate's algorithm. plan.hpp plans with it; the re-planners keep
// its schedule.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "../liveness.hpp"
#include "../plan_types.hpp"
#include "checked.hpp"
#include "config.hpp"
#include "slot_pool.hpp"

namespace onnx_runtime_memory::detail {

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

ONNX_RUNTIME_MEMORY_CORE void make_schedule(const Liveness& live, Schedule& r);

// The best-fit walk: at each position allocate the node's owner outputs (best
// fit; with `grow`, growing the largest free slot rather than opening one),
// then its scratch (scratch[p] bytes, if any), then retire the owners whose
// interval ends there and the scratch. `sizes` is indexed by value id;
// naive_bytes is already known not to overflow. Reuses the memory of `pool`
// and `plan`. Gives up (false, `plan` unfinished) once the capacities reach
// `give_up_at` (size_max: never): they only grow, so the plan would hold at
// least that much (an arena plan asks so, when only a smaller slot plan
// would serve it).
ONNX_RUNTIME_MEMORY_CORE bool assign_slots(const Liveness& live, const Schedule& schedule, const std::vector<std::size_t>& sizes,
                         std::size_t naive_bytes, SlotPool& pool, ActivationPlan& plan, bool grow = false,
                         std::span<const std::size_t> scratch = {}, std::size_t give_up_at = size_max);

}  // namespace onnx_runtime_memory::detail

#if !defined(ONNX_RUNTIME_MEMORY_SEPARATE_COMPILATION)
#include "best_fit_walk.hpp"  // the code (else the compiled core's: src.hpp)
#endif
