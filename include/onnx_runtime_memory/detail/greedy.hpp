// The greedy strategies: buffers in a fixed order (size, lifetime, area or
// conflicts, each decreasing), each into the best or first gap among the
// placed buffers it meets in time. O(n * k), k the buffers it meets.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <numeric>
#include <utility>
#include <vector>

#include "../plan_types.hpp"
#include "buffers.hpp"

namespace onnx_runtime_memory::detail {

enum class Fit : std::uint8_t { best, first };

// Places buffers in `order`, each into the best (smallest, then lowest) or
// first (lowest) gap among the placed buffers it overlaps in time, else
// above them all. `scratch` holds the overlapping [offset, end) pairs.
[[nodiscard]] inline std::size_t place_in_order(const Buffers& b, const std::vector<std::uint32_t>& order, Fit fit,
                                                std::vector<std::size_t>& offset,
                                                std::vector<std::pair<std::size_t, std::size_t>>& scratch,
                                                std::vector<std::uint32_t>& placed) {
    offset.assign(b.count(), 0);
    placed.clear();
    std::size_t arena = 0;
    for (std::uint32_t x : order) {
        const std::size_t need = b.size[x];
        if (need == 0) continue;
        scratch.clear();
        for (std::uint32_t y : placed)
            if (b.overlap(x, y)) scratch.emplace_back(offset[y], offset[y] + b.size[y]);
        std::sort(scratch.begin(), scratch.end());
        std::size_t cursor = 0, chosen = no_offset, chosen_gap = no_offset;
        for (const auto& [lo, hi] : scratch) {
            if (lo > cursor && lo - cursor >= need && lo - cursor < chosen_gap) {
                chosen = cursor;
                chosen_gap = lo - cursor;
                if (fit == Fit::first) break;
            }
            cursor = std::max(cursor, hi);
        }
        offset[x] = chosen != no_offset ? chosen : cursor;
        arena = std::max(arena, offset[x] + need);
        placed.push_back(x);
    }
    return arena;
}

// The four greedy orders: decreasing size, lifetime, area and conflicts
// (the total size of the buffers it overlaps), ties to the earlier buffer.
// make_buffers checked that the sizes' total fits, so no sum here overflows.
[[nodiscard]] inline std::vector<std::vector<std::uint32_t>> greedy_orders(const Buffers& b) {
    const std::size_t n = b.count();
    constexpr std::size_t max = std::numeric_limits<std::size_t>::max();
    std::vector<std::size_t> length(n), area(n), conflict(n);
    NodeIndex last = 0;
    for (std::size_t i = 0; i < n; ++i) {
        length[i] = std::size_t{b.end[i]} - b.def[i] + 1;
        area[i] = b.size[i] != 0 && length[i] > max / b.size[i] ? max : b.size[i] * length[i];
        last = std::max(last, b.end[i]);
    }
    // y overlaps x iff def[y] <= end[x] and end[y] >= def[x]: prefix sums of
    // sizes by def and by end give each x's total in O(1).
    std::vector<std::size_t> born(std::size_t{last} + 2, 0), gone(std::size_t{last} + 2, 0);
    for (std::size_t i = 0; i < n; ++i) {
        born[std::size_t{b.def[i]} + 1] += b.size[i];
        gone[std::size_t{b.end[i]} + 1] += b.size[i];
    }
    for (std::size_t p = 1; p < born.size(); ++p) {
        born[p] += born[p - 1];  // born[p]: sizes with def < p
        gone[p] += gone[p - 1];  // gone[p]: sizes with end < p
    }
    for (std::size_t i = 0; i < n; ++i) conflict[i] = born[std::size_t{b.end[i]} + 1] - gone[b.def[i]] - b.size[i];
    const auto by = [&](const std::vector<std::size_t>& first, const std::vector<std::size_t>& second) {
        std::vector<std::uint32_t> order(n);
        std::iota(order.begin(), order.end(), 0u);
        std::stable_sort(order.begin(), order.end(), [&](std::uint32_t x, std::uint32_t y) {
            return first[x] != first[y] ? first[x] > first[y] : second[x] > second[y];
        });
        return order;
    };
    return {by(b.size, length), by(length, b.size), by(area, b.size), by(conflict, b.size)};
}

}  // namespace onnx_runtime_memory::detail
