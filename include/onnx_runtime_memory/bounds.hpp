// Lower bounds: no plan can use less memory, so every plan can say how far
// from the best possible it is. For a graph's liveness, or for plain buffer
// records (the graph-free layer).
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "detail/checked.hpp"
#include "detail/lower_bounds.hpp"
#include "errors.hpp"
#include "expected.hpp"
#include "liveness.hpp"
#include "plan_types.hpp"
#include "sizes.hpp"
#include "sizing.hpp"

namespace onnx_runtime_memory {

struct LowerBounds {
    // The largest total size live at one node position, each size rounded
    // up to the alignment but the one on top (the arena ends where its bytes
    // end): no arena of aligned offsets can be smaller.
    std::size_t offset_bytes = 0;
    // For slot plans: at each position sort the live sizes in decreasing
    // order; the k-th slot must hold the largest k-th size over all
    // positions; the sum over k. No slot plan can be smaller.
    std::size_t slot_bytes = 0;

    friend bool operator==(const LowerBounds&, const LowerBounds&) = default;
};

// Both lower bounds for buffer records. `alignment` (0 counts as 1) rounds
// sizes up for the offset bound, as plan_offsets places them. A malformed
// record is PlanError::bad_buffer. Sums saturate at SIZE_MAX. O(n log n),
// whatever the time stamps (sparse ones are ranked first). Pins are not
// read: plan_offsets' lower_bound_bytes counts them.
[[nodiscard]] inline expected<LowerBounds, PlanError> lower_bounds(std::span<const Buffer> buffers,
                                                                   std::size_t alignment = 1) {
    if (auto ok = detail::check_buffers(buffers); !ok) return unexpected(ok.error());
    std::vector<Buffer> ranked;
    const auto dense = detail::dense_times(buffers, ranked);
    return LowerBounds{detail::arena_bound(dense, detail::alignment_or_one(alignment)).bytes, detail::slot_bound(dense)};
}

// Both lower bounds for a liveness and this run's sizes, or nullopt when
// some owner's size is unknown, or the liveness is not of the shape
// compute_liveness gives (check_liveness). `alignment` (0 counts as 1)
// rounds sizes up for the offset bound, as plan_arena places them.
// O(n log n + P).
template <size_oracle Oracle>
[[nodiscard]] std::optional<LowerBounds> lower_bounds(const Liveness& live, Oracle&& oracle,
                                                      std::size_t alignment = 1) {
    if (!check_liveness(live)) return std::nullopt;
    OwnerSizes sizes;
    size_owners(live, oracle, sizes);
    if (!sizes.complete()) return std::nullopt;
    std::vector<Buffer> buffers;
    owner_buffers(live, sizes.bytes, buffers);
    return LowerBounds{detail::arena_bound(buffers, detail::alignment_or_one(alignment)).bytes,
                       detail::slot_bound(buffers)};
}

}  // namespace onnx_runtime_memory
