// Lower bounds: no plan can use less memory, so every plan can say how far
// from the best possible it is.
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <optional>
#include <vector>

#include "liveness.hpp"
#include "plan.hpp"
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

[[nodiscard]] constexpr std::size_t saturating_add(std::size_t a, std::size_t b) noexcept {
    std::size_t r = 0;
    return __builtin_add_overflow(a, b, &r) ? static_cast<std::size_t>(-1) : r;
}
[[nodiscard]] constexpr std::size_t round_up(std::size_t n, std::size_t alignment) noexcept {
    const std::size_t rem = n % alignment;
    return rem == 0 ? n : saturating_add(n, alignment - rem);
}

// `sizes` by value id. Sums saturate at SIZE_MAX. O(N + V).
[[nodiscard]] inline std::size_t offset_lower_bound(const Liveness& live, const std::vector<std::size_t>& sizes,
                                                    std::size_t alignment) {
    const std::size_t positions = std::size_t{live.last_position} + 1;
    std::vector<std::size_t> born(positions, 0), dying(positions, 0);
    for (ValueId v : live.owners) {
        const std::size_t s = round_up(sizes[v], alignment);
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

// O(sum over positions of the live count): each position where owners are
// born updates the running k-th maxima from the sorted live sizes.
[[nodiscard]] inline std::size_t slot_lower_bound(const Liveness& live, const Schedule& schedule,
                                                  const std::vector<std::size_t>& sizes) {
    std::vector<std::size_t> alive;  // sorted, largest first
    std::vector<std::size_t> kth;    // kth[k]: the largest k-th size seen
    const auto& order = live.allocation_order;
    std::size_t next = 0;
    for (std::size_t p = 0; p <= live.last_position; ++p) {
        bool born = false;
        for (; next < order.size() && live.intervals[order[next]].def == p; ++next, born = true)
            alive.insert(std::upper_bound(alive.begin(), alive.end(), sizes[order[next]], std::greater<>()),
                         sizes[order[next]]);
        if (born) {
            if (kth.size() < alive.size()) kth.resize(alive.size(), 0);
            for (std::size_t k = 0; k < alive.size(); ++k) kth[k] = std::max(kth[k], alive[k]);
        }
        for (std::uint32_t k = schedule.retire_begin[p]; k < schedule.retire_begin[p + 1]; ++k) {
            const std::size_t s = sizes[schedule.retired[k]];
            alive.erase(std::lower_bound(alive.begin(), alive.end(), s, std::greater<>()));
        }
    }
    std::size_t total = 0;
    for (std::size_t s : kth) total = saturating_add(total, s);
    return total;
}

}  // namespace detail

// Both lower bounds for a liveness and this run's sizes, or nullopt when
// some owner's size is unknown. `alignment` (0 counts as 1) rounds sizes
// up for the offset bound, as plan_arena places them.
template <size_oracle Oracle>
[[nodiscard]] std::optional<LowerBounds> lower_bounds(const Liveness& live, Oracle&& oracle,
                                                      std::size_t alignment = 1) {
    std::vector<std::size_t> sizes(live.value_count(), 0);
    for (ValueId v : live.owners) {
        const std::optional<std::size_t> s = oracle(v);
        if (!s) return std::nullopt;
        sizes[v] = *s;
    }
    detail::Schedule schedule;
    detail::make_schedule(live, schedule);
    return LowerBounds{detail::offset_lower_bound(live, sizes, std::max<std::size_t>(alignment, 1)),
                       detail::slot_lower_bound(live, schedule, sizes)};
}

}  // namespace onnx_runtime_memory
