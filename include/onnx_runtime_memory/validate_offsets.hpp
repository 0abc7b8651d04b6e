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
[[nodiscard]] inline expected<void, ValidateError> validate_offsets(std::span<const Buffer> buffers,
                                                                    const OffsetPlan& plan, std::size_t alignment) {
    using Kind = ValidateError::Kind;
    if (auto ok = detail::check_buffers(buffers); !ok) return unexpected(ValidateError::from(ok.error()));
    const auto fail = [](Kind kind, std::size_t a, std::size_t b = no_value) {
        ValidateError err;
        err.kind = kind;
        err.value = static_cast<ValueId>(a);
        err.other = static_cast<ValueId>(b);
        return unexpected(err);
    };
    alignment = detail::alignment_or_one(alignment);
    const std::size_t n = buffers.size();
    for (std::size_t i = 0; i < n; ++i) {
        if (i >= plan.offsets.size() || plan.offsets[i] == no_offset) return fail(Kind::missing_offset, i);
        if (buffers[i].pinned != no_offset && plan.offsets[i] != buffers[i].pinned) {
            ValidateError err;
            err.kind = Kind::pin_moved;
            err.value = static_cast<ValueId>(i);
            err.size = plan.offsets[i];
            err.capacity = buffers[i].pinned;
            return unexpected(err);
        }
        if (plan.offsets[i] % alignment != 0) return fail(Kind::misaligned_offset, i);
        std::size_t end = 0;
        if (detail::add_overflows(plan.offsets[i], buffers[i].size, end) || end > plan.arena_bytes)
            return fail(Kind::outside_arena, i);
    }
    if (auto o = detail::first_overlap(buffers, plan.offsets)) return fail(Kind::offset_overlap, o->a, o->b);
    return {};
}

}  // namespace onnx_runtime_memory
