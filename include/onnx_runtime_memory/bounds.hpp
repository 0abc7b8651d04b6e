// Lower bounds: no plan can use less memory, so every plan can say how far
// from the best possible it is.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "detail/checked.hpp"
#include "liveness.hpp"
#include "sizing.hpp"

namespace onnx_runtime_memory {

struct LowerBounds {
    // The largest total size live at one node position (sizes rounded up to
    // the alignment): no arena of offsets can be smaller.
    std::size_t offset_bytes = 0;
    // For slot plans: at each position sort the live sizes in decreasing
    // order; the k-th slot must hold the largest k-th size over all
    // positions; the sum over k. No slot plan can be smaller.
    std::size_t slot_bytes = 0;

    friend bool operator==(const LowerBounds&, const LowerBounds&) = default;
};

namespace detail {

// `sizes` by value id. Sums saturate at SIZE_MAX. O(N + V).
[[nodiscard]] inline std::size_t offset_lower_bound(const Liveness& live, const std::vector<std::size_t>& sizes,
                                                    std::size_t alignment) {
    const std::size_t positions = std::size_t{live.last_position} + 1;
    std::vector<std::size_t> born(positions, 0), dying(positions, 0);
    for (ValueId v : live.owners) {
        const std::size_t s = saturating_align_up(sizes[v], alignment);
        born[live.intervals[v].def] = saturating_add(born[live.intervals[v].def], s);
        dying[live.intervals[v].use_end] = saturating_add(dying[live.intervals[v].use_end], s);
    }
    std::size_t live_bytes = 0, best = 0;
    for (std::size_t p = 0; p < positions; ++p) {
        live_bytes = saturating_add(live_bytes, born[p]);
        best = std::max(best, live_bytes);
        live_bytes -= std::min(live_bytes, dying[p]);
    }
    return best;
}

// The k-th slot must hold the largest k-th live size over all positions;
// summed over k, that equals the integral over thresholds t of the most
// owners of size >= t live at one position. So: add owners largest first
// (+1 over their interval in a max segment tree over positions) and, after
// each group of equal size s, add (s - next smaller size) x the tree's max.
// O(n log n + P), P the positions. Sums saturate at SIZE_MAX.
[[nodiscard]] inline std::size_t slot_lower_bound(const Liveness& live, const std::vector<std::size_t>& sizes) {
    std::vector<ValueId> order = live.owners;
    std::sort(order.begin(), order.end(), [&](ValueId a, ValueId b) { return sizes[a] > sizes[b]; });
    std::size_t leaves = 1;
    while (leaves < std::size_t{live.last_position} + 1) leaves *= 2;
    // most[x]: the largest count in x's subtree, counting adds at x and below.
    std::vector<std::uint32_t> most(2 * leaves, 0), added(2 * leaves, 0);
    const auto add = [&](std::size_t lo, std::size_t hi) {  // +1 on [lo, hi]
        // Bottom-up on the half-open leaf range, then refresh the ancestors.
        std::size_t l = lo + leaves, r = hi + leaves + 1;
        const std::size_t l0 = l, r0 = r - 1;
        for (; l < r; l /= 2, r /= 2) {
            if (l & 1) { ++added[l]; ++most[l]; ++l; }
            if (r & 1) { --r; ++added[r]; ++most[r]; }
        }
        for (std::size_t x : {l0, r0})
            for (x /= 2; x >= 1; x /= 2) most[x] = std::max(most[2 * x], most[2 * x + 1]) + added[x];
    };
    std::size_t total = 0;
    for (std::size_t k = 0; k < order.size();) {
        const std::size_t s = sizes[order[k]];
        for (; k < order.size() && sizes[order[k]] == s; ++k)
            add(live.intervals[order[k]].def, live.intervals[order[k]].use_end);
        const std::size_t step = s - (k < order.size() ? sizes[order[k]] : 0);
        std::size_t area = 0;
        total = saturating_add(total, mul_overflows(step, most[1], area) ? size_max : area);
    }
    return total;
}

}  // namespace detail

// Both lower bounds for a liveness and this run's sizes, or nullopt when
// some owner's size is unknown, or the liveness is not of the shape
// compute_liveness gives (check_liveness). `alignment` (0 counts as 1)
// rounds sizes up for the offset bound, as plan_arena places them.
// O(n log n + P).
template <size_oracle Oracle>
[[nodiscard]] std::optional<LowerBounds> lower_bounds(const Liveness& live, Oracle&& oracle,
                                                      std::size_t alignment = 1) {
    if (!check_liveness(live)) return std::nullopt;
    std::vector<std::size_t> sizes(live.value_count(), 0);
    for (ValueId v : live.owners) {
        const std::optional<std::size_t> s = oracle(v);
        if (!s) return std::nullopt;
        sizes[v] = *s;
    }
    return LowerBounds{detail::offset_lower_bound(live, sizes, std::max<std::size_t>(alignment, 1)),
                       detail::slot_lower_bound(live, sizes)};
}

}  // namespace onnx_runtime_memory
