// The graph-free offsets layer: a byte offset for every buffer of a plain
// list of (size, first, last) records in one arena, the shape TFLite Micro
// users know. arena.hpp maps a graph onto it.
//
// Strategies, best result kept (ties to the earlier one), one detail/ file
// each:
//   sweep        in execution order, best fit into the free gaps, growing the
//                arena at the top when nothing fits; O(n log n)
//   greedy       buffers in a fixed order (size, lifetime, area, conflicts:
//                each decreasing), each placed into the best (or first) gap
//                among the buffers already placed that it overlaps in time;
//                O((n + P) log n), P the pairs of buffers that overlap; where
//                most pairs overlap, the first fits start at each buffer's
//                floor of solid runs (detail/first_fit.hpp)
//   skyline      bottom-left packing over time: take the lowest point of the
//                skyline (the tops of what is placed, per node position) and
//                place there a buffer that fits the flat stretch around it
//                (largest by size, area or lifetime), else raise the stretch
//                to its lower neighbour; O(n * (T + n)), T the positions
//   exact_search a MiniMalloc-style branch and bound (detail/offset_search.hpp)
//                for offsets under a capacity: first the lower bound (a find
//                there is optimal), then 2%, 4%, 8%, ... above it while below
//                the best so far, several tie-break orders each, the budget
//                doubled every round; a capacity it proves infeasible raises
//                the bound instead. Up to ArenaOptions::exact_nodes nodes
//   search       randomised skyline restarts (seeded: deterministic), a
//                fixed number of them
// The strategies after the sweep run under a work budget
// (ArenaOptions::work_per_owner): each only if its predicted steps fit in
// what is left, so the time stays within a budget linear in the owners (at
// least 4,096 owners' worth) on top of the sweep. Last, when nothing reached
// the lower bound: where the greedy orders could not run it, the first fit
// by size, equal sizes the most crowded first (size_peak_first_fit,
// detail/portfolio.hpp; ArenaOptions::first_fit_steps); where that did not
// win, the sweep again on the problem mirrored in time (mirrored_sweep):
// buffers arriving as they die; then, still above it, the best plan's top
// repacked (repacked_top, detail/repack.hpp): its highest buffers placed
// again by size; last, where the skyline by lifetime did not fit in the
// budget, the same skyline by runs (detail/skyline.hpp: O(log n) a round,
// at most 4 log2 n steps a placement or it gives up; reported as
// skyline_lifetime), tried first where the budgeted strategies would spend
// 16 n log2 n steps (kept only at the bound; the plans stay the same). Pinned
// buffers (Buffer::pinned) stay put; the sweep (above the highest pin) and
// the greedy orders (around them) pack the rest, the others do not run.
// Both searches are opt-in, bounded by their own counts and not by the work
// budget, and both stop early at options.time_limit, counted from the start
// of the placement (then the best so far; the result may then depend on the
// machine's speed).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "detail/buffers.hpp"
#include "detail/checked.hpp"
#include "detail/config.hpp"
#include "detail/lower_bounds.hpp"
#include "detail/place.hpp"
#include "errors.hpp"
#include "expected.hpp"
#include "plan_types.hpp"

namespace onnx_runtime_memory {

namespace detail {

// The checks of plan_offsets, then the columns (make_buffers).
ONNX_RUNTIME_MEMORY_CORE expected<void, PlanError> checked_columns(std::span<const Buffer> buffers, std::size_t alignment,
                                                                   Buffers& b);

// plan_offsets once the columns are made: the records themselves are no
// longer needed (a caller that built them may free them first).
ONNX_RUNTIME_MEMORY_CORE OffsetPlan place_columns(const Buffers& b, std::size_t alignment, const ArenaOptions& options);

}  // namespace detail

// Places every buffer: offsets aligned to options.alignment (0 counts as 1),
// pinned buffers at their pins, the best of the strategies above. A
// malformed record is PlanError::bad_buffer, a total that overflows once
// rounded up is PlanError::size_overflow, a bad pin bad_pin or
// pins_overlap; each names the buffer by index. Deterministic unless
// options.time_limit cuts a search short.
[[nodiscard]] inline expected<OffsetPlan, PlanError> plan_offsets(std::span<const Buffer> buffers,
                                                                  const ArenaOptions& options = {}) {
    const std::size_t alignment = detail::alignment_or_one(options.alignment);
    detail::Buffers b;
    if (auto ok = detail::checked_columns(buffers, alignment, b); !ok) return unexpected(ok.error());
    return detail::place_columns(b, alignment, options);
}

}  // namespace onnx_runtime_memory

#if !defined(ONNX_RUNTIME_MEMORY_SEPARATE_COMPILATION)
#include "detail/offset_columns.hpp"  // the code (else the compiled core's: src.hpp)
#endif
