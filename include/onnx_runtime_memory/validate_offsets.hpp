// validate_offsets: the graph-free layer's checker, in its own file as
// MiniMalloc keeps its validator: an offset plan against plain buffer
// records, believing nothing the plan says about itself. validate_arena
// (validate.hpp) checks a graph's arena through it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <span>
#include <vector>

#include "detail/checked.hpp"
#include "detail/config.hpp"
#include "detail/lower_bounds.hpp"
#include "detail/overlap.hpp"
#include "expected.hpp"
#include "plan_types.hpp"

namespace onnx_runtime_memory {

// Checks an offset plan against the buffers, believing nothing it says
// about itself but its offsets and arena_bytes: each buffer (in order) has
// an offset (MissingOffset), its pin if it has one (PinMoved), a
// multiple of the `alignment` the caller needs (MisalignedOffset), ending
// inside arena_bytes (OutsideArena; an empty buffer too: offset <=
// arena_bytes); no two buffers live at one time overlap in bytes
// (OffsetOverlap, the pair by index). `value` and `other` are buffer indices. Malformed records are
// PlanError::bad_buffer. O(n log n).
ONNX_RUNTIME_MEMORY_CORE expected<void, ValidateError> validate_offsets(std::span<const Buffer> buffers,
                                                                    const OffsetPlan& plan, std::size_t alignment);

}  // namespace onnx_runtime_memory

#if !defined(ONNX_RUNTIME_MEMORY_SEPARATE_COMPILATION)
#include "detail/offset_checks.hpp"  // the code (else the compiled core's: src.hpp)
#endif
