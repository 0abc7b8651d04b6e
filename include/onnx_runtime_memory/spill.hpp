// Spilling: buffers that outgrow a fast space (a device) wait in a slow one
// (the host) while they are not used. Each use of a buffer happens in the
// fast space; between two uses it may be copied out after one node and back
// in before the next, maybe at another offset; before its first use it may
// wait in the slow space (arriving there), after its last it may leave from
// there. The plan: each buffer's residency (fast and slow segments with
// offsets), the copies in the order to run them, and a lower bound on the
// bytes any plan moves.
//
// How (SpillStrategy): `planned` chooses what goes out by load (spill_greedy,
// two rules, then what can come back does) and packs the fast runs as one
// arena (plan_offsets, every strategy); where fragmentation ends the arena
// past the capacity, it lays the same choice out in time order as a caching
// allocator would, and chooses again at a lower target, up to
// SpillOptions::rounds times. `caching` is what an executor does without a
// plan (caching_allocator.hpp); it always fits. `best` makes all and keeps
// the one that moves the fewest bytes: never more than the caching allocator.
// The slow segments are packed as one arena too. With compute costs, copies
// in then move earlier to overlap with compute (spill_prefetch.hpp).
// Feasible exactly where the capacity is at least every position's floor;
// below, the error lists the positions that pass it (the fit report).
#pragma once

#include <span>

#include "detail/config.hpp"
#include "expected.hpp"
#include "plan_types.hpp"
#include "spill_types.hpp"

namespace onnx_runtime_memory {

// Plans the buffers across the fast and slow spaces (see the top of this
// file). `uses`: where each buffer is read or written (BufferUses). Errors:
// SpillError (malformed records or uses, a pin, a capacity below some
// position's floor: the fit report). Deterministic unless
// options.packing.time_limit cuts a search short.
[[nodiscard]] ONNX_RUNTIME_MEMORY_CORE expected<SpillPlan, SpillError> plan_spill(std::span<const Buffer> buffers,
                                                                              const BufferUses& uses,
                                                                              const SpillOptions& options = {});

}  // namespace onnx_runtime_memory

#if !defined(ONNX_RUNTIME_MEMORY_SEPARATE_COMPILATION)
#include "detail/spill_plan.hpp"  // the code (else the compiled core's: src.hpp)
#endif
