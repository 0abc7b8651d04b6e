// The arena strategies as the rest of the library calls them: every
// strategy on one offset problem (place_buffers), with working memory a
// caller keeps between problems. Only declarations: the code is in
// portfolio.hpp, included at the end unless the core is compiled apart
// (config.hpp).
#pragma once

#include <cstddef>
#include <utility>

#include "../plan_types.hpp"
#include "buffers.hpp"
#include "config.hpp"
#include "lower_bounds.hpp"

namespace onnx_runtime_memory::detail {

// Every strategy's working memory (finishing.hpp), behind a pointer: its
// callers need not see the strategies.
struct PlaceSpace;
ONNX_RUNTIME_MEMORY_CORE PlaceSpace* new_place_space();
ONNX_RUNTIME_MEMORY_CORE void delete_place_space(PlaceSpace* space) noexcept;

// Owns one PlaceSpace, made when the handle is (moved from: none). Working
// memory only, no state a placement reads: a copy gets its own, empty, so
// that the planners holding one copy as they did.
class PlaceSpaceHandle {
public:
    PlaceSpaceHandle() : space_(new_place_space()) {}
    PlaceSpaceHandle(const PlaceSpaceHandle&) : space_(new_place_space()) {}
    PlaceSpaceHandle(PlaceSpaceHandle&& other) noexcept : space_(std::exchange(other.space_, nullptr)) {}
    PlaceSpaceHandle& operator=(const PlaceSpaceHandle&) noexcept { return *this; }  // keeps its own
    PlaceSpaceHandle& operator=(PlaceSpaceHandle&& other) noexcept {
        std::swap(space_, other.space_);
        return *this;
    }
    ~PlaceSpaceHandle() { delete_place_space(space_); }
    [[nodiscard]] PlaceSpace& operator*() const noexcept { return *space_; }

private:
    PlaceSpace* space_;
};

// Places every buffer into `best`: the strategies, then, unless the sweep
// alone plans (work_per_owner 0), the top settled where the bytes miss
// their bound (see portfolio.hpp).
ONNX_RUNTIME_MEMORY_CORE void place_buffers(const Buffers& b, const ArenaOptions& options, const ArenaBound& bound,
                                            PlaceSpace& space, Placement& best);

}  // namespace onnx_runtime_memory::detail

#if !defined(ONNX_RUNTIME_MEMORY_SEPARATE_COMPILATION)
#include "portfolio.hpp"  // the code (else the compiled core's: src.hpp)
#endif
