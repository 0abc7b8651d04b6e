// validate_offsets' checks: the code behind validate_offsets.hpp's declarations (part of the compiled
// core, config.hpp).
#pragma once

#include "config.hpp"
#if defined(ONNX_RUNTIME_MEMORY_SEPARATE_COMPILATION) && !defined(ONNX_RUNTIME_MEMORY_SOURCE)
#error "detail/offset_checks.hpp is the compiled core's: include validate_offsets.hpp (src.hpp defines the core once)"
#endif

#include "../validate_offsets.hpp"

namespace onnx_runtime_memory {

ONNX_RUNTIME_MEMORY_CORE expected<void, ValidateError> validate_offsets(std::span<const Buffer> buffers,
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
