// validate_windows: validate's checks of views at a byte offset and of
// parts, by its own walk of the view map (the planner's is resolve_roots):
// each window inside its root, parts of one value apart, and in an arena
// each view at its root's offset plus its window.
#pragma once

#include <cstddef>
#include <vector>

#include "detail/config.hpp"
#include "detail/function_ref.hpp"
#include "errors.hpp"
#include "expected.hpp"
#include "liveness.hpp"
#include "plan_types.hpp"
#include "sizes.hpp"
#include "view_map.hpp"

namespace onnx_runtime_memory::detail {

// Where each value's bytes start in its root's (SIZE_MAX where the offsets'
// sum overflows), by validate's own walk of the view map (the planner's
// is resolve_roots); empty when no edge has an offset. Each value is
// walked once. The map is acyclic: compute_liveness accepted it.
ONNX_RUNTIME_MEMORY_CORE std::vector<std::size_t> view_windows(const ViewMap& views, std::size_t value_count);

// With windows: each view of a planned root of known size, or of a root the
// caller holds (graph input, weight, external output) whose size the oracle
// knows, whose own size the oracle knows, lies inside the root's bytes
// (ViewOutsideRoot: `size` is where it ends, SIZE_MAX past it, `capacity`
// the root's size).
// With parts: no two parts of one value overlap (PartsOverlap), by a sort
// of the parts of known size on (whole, start).
ONNX_RUNTIME_MEMORY_CORE expected<void, ValidateError> check_windows(const ViewMap& views,
                                                                   const std::vector<std::size_t>& windows,
                                                                   const Liveness& live, const OwnerSizes& sizes,
                                                                   SizeOf oracle);

// Each view of a planned root sits at the root's offset plus its window,
// and in the root's space (`same_space(view, root)`): ViewOffsetMismatch.
ONNX_RUNTIME_MEMORY_CORE expected<void, ValidateError> check_view_offsets(const Liveness& live,
                                                                        const std::vector<std::size_t>& windows,
                                                                        FunctionRef<std::size_t(ValueId)> offset_of,
                                                                        FunctionRef<bool(ValueId, ValueId)> same_space);

}  // namespace onnx_runtime_memory::detail

#if !defined(ONNX_RUNTIME_MEMORY_SEPARATE_COMPILATION)
#include "detail/window_checks.hpp"  // the code (else the compiled core's: src.hpp)
#endif
