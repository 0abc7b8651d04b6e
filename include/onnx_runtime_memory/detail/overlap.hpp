// The first two buffers that are live at one time and share bytes: what
// validate_offsets rejects, and what pinned buffers must not do.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <optional>
#include <span>
#include <vector>

#include "../plan_types.hpp"
#include "config.hpp"
#include "treap.hpp"

namespace onnx_runtime_memory::detail {

struct Overlap {
    std::uint32_t a = 0, b = 0;  // buffer indices, a < b
    NodeIndex at = 0;            // a time both are live
};

// first_overlap's working memory, for a caller that checks on every
// request (a re-planner's pins): nothing is allocated once it has grown.
struct OverlapSpace {
    std::vector<std::uint32_t> by_first, by_last;
    TreapIndex active;
};

// Sweeps time with the live buffers ordered by offset: the set stays
// disjoint in bytes as long as each newcomer clears its two neighbours.
// Zero-size buffers meet nothing; offset + size must not overflow (the
// callers check). O(n log n).
ONNX_RUNTIME_MEMORY_CORE std::optional<Overlap> first_overlap(std::span<const Buffer> buffers,
                                                         std::span<const std::size_t> off, OverlapSpace& space);

ONNX_RUNTIME_MEMORY_CORE std::optional<Overlap> first_overlap(std::span<const Buffer> buffers,
                                                         std::span<const std::size_t> off);

}  // namespace onnx_runtime_memory::detail

#if !defined(ONNX_RUNTIME_MEMORY_SEPARATE_COMPILATION)
#include "overlap_sweep.hpp"  // the code (else the compiled core's: src.hpp)
#endif
