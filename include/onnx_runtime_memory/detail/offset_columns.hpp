// plan_offsets' checks and placement: the code behind offsets.hpp's
// declarations (part of the compiled core, config.hpp).
#pragma once

#include "config.hpp"
#if defined(ONNX_RUNTIME_MEMORY_SEPARATE_COMPILATION) && !defined(ONNX_RUNTIME_MEMORY_SOURCE)
#error "detail/offset_columns.hpp is the compiled core's: include offsets.hpp (src.hpp defines the core once)"
#endif

#include "../offsets.hpp"

namespace onnx_runtime_memory::detail {

ONNX_RUNTIME_MEMORY_CORE expected<void, PlanError> checked_columns(std::span<const Buffer> buffers, std::size_t alignment,
                                                                   Buffers& b) {
    if (auto ok = check_buffers(buffers); !ok) return unexpected(ok.error());
    return make_buffers(buffers, alignment, b);
}

ONNX_RUNTIME_MEMORY_CORE OffsetPlan place_columns(const Buffers& b, std::size_t alignment, const ArenaOptions& options) {
    OffsetPlan plan;
    plan.alignment = alignment;
    const ArenaBound bound = [&] {
        std::vector<std::size_t> born, dying;  // freed before the strategies run
        return arena_bound(b, born, dying);
    }();
    plan.lower_bound_bytes = bound.bytes;
    Placement placement;
    {
        const PlaceSpaceHandle space;  // freed before the plan's offsets are allocated
        place_buffers(b, options, bound, *space, placement);
    }
    plan.arena_bytes = settle_arena(b, placement.offset);
    plan.offsets.assign(b.count(), 0);
    for (std::size_t i = 0; i < b.count(); ++i) plan.offsets[b.value[i]] = placement.offset[i];
    plan.proven_bound_bytes = proven_bytes(b, bound, placement.proven);
    plan.strategy = placement.strategy;
    return plan;
}

}  // namespace onnx_runtime_memory::detail
