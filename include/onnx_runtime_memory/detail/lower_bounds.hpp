// Lower bounds over buffer records, shared by the graph-free layer
// (offsets.hpp) and the graph one (bounds.hpp). Sums saturate at SIZE_MAX.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "../errors.hpp"
#include "../expected.hpp"
#include "../graph.hpp"
#include "../plan_types.hpp"
#include "checked.hpp"
#include "sort.hpp"

namespace onnx_runtime_memory::detail {

// Every buffer's interval is first <= last < max_graph_ids, and there are at
// most max_graph_ids buffers: PlanError::bad_buffer names the first that is not.
[[nodiscard]] inline expected<void, PlanError> check_buffers(std::span<const Buffer> buffers) {
    if (buffers.size() > max_graph_ids) return unexpected(make_plan_error(PlanError::Kind::graph_too_large));
    for (std::size_t i = 0; i < buffers.size(); ++i)
        if (buffers[i].first > buffers[i].last || buffers[i].last >= max_graph_ids)
            return unexpected(make_plan_error(PlanError::Kind::bad_buffer, i));
    return {};
}

// One past the last time any buffer is live (0 for none).
[[nodiscard]] inline std::size_t time_span(std::span<const Buffer> buffers) {
    std::size_t end = 0;
    for (const Buffer& b : buffers) end = std::max<std::size_t>(end, std::size_t{b.last} + 1);
    return end;
}

// The largest total live at one time, each size rounded up to `alignment`:
// no arena of offsets can be smaller. O(n + T).
// `born` and `dying` are working memory a caller may keep (no allocation
// once they are big enough).
[[nodiscard]] inline std::size_t peak_live_bytes(std::span<const Buffer> buffers, std::size_t alignment,
                                                 std::vector<std::size_t>& born, std::vector<std::size_t>& dying) {
    const std::size_t positions = time_span(buffers);
    born.assign(positions, 0);
    dying.assign(positions, 0);
    for (const Buffer& b : buffers) {
        const std::size_t s = saturating_align_up(b.size, alignment);
        born[b.first] = saturating_add(born[b.first], s);
        dying[b.last] = saturating_add(dying[b.last], s);
    }
    std::size_t live_bytes = 0, best = 0;
    for (std::size_t p = 0; p < positions; ++p) {
        live_bytes = saturating_add(live_bytes, born[p]);
        best = std::max(best, live_bytes);
        live_bytes -= std::min(live_bytes, dying[p]);
    }
    return best;
}
[[nodiscard]] inline std::size_t peak_live_bytes(std::span<const Buffer> buffers, std::size_t alignment) {
    std::vector<std::size_t> born, dying;
    return peak_live_bytes(buffers, alignment, born, dying);
}

// The slot bound: the k-th slot must hold the largest k-th live size over
// all times; summed over k, that equals the integral over thresholds t of
// the most buffers of size >= t live at one time. So: add buffers largest
// first (+1 over their interval in a max segment tree over times) and, after
// each group of equal size s, add (s - next smaller size) x the tree's max.
// O(n log n + T).
[[nodiscard]] inline std::size_t slot_bound(std::span<const Buffer> buffers) {
    std::vector<std::uint32_t> order(buffers.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<std::uint32_t>(i);
    sort_by(order, [&](std::uint32_t x) { return descending(buffers[x].size); });  // ties in any order would do
    std::size_t leaves = 1;
    while (leaves < std::max<std::size_t>(time_span(buffers), 1)) leaves *= 2;
    // most[x]: the largest count in x's subtree, counting adds at x and below.
    std::vector<std::uint32_t> most(2 * leaves, 0), added(2 * leaves, 0);
    const auto add = [&](std::size_t lo, std::size_t hi) {  // +1 on [lo, hi]
        // Bottom-up on the half-open leaf range, then refresh the ancestors.
        std::size_t l = lo + leaves, r = hi + leaves + 1;
        const std::size_t l0 = l, r0 = r - 1;
        for (; l < r; l /= 2, r /= 2) {
            if (l & 1) {
                ++added[l];
                ++most[l++];
            }
            if (r & 1) {
                ++added[--r];
                ++most[r];
            }
        }
        for (std::size_t x : {l0, r0})
            for (x /= 2; x >= 1; x /= 2) most[x] = std::max(most[2 * x], most[2 * x + 1]) + added[x];
    };
    std::size_t total = 0;
    for (std::size_t k = 0; k < order.size();) {
        const std::size_t s = buffers[order[k]].size;
        for (; k < order.size() && buffers[order[k]].size == s; ++k) add(buffers[order[k]].first, buffers[order[k]].last);
        const std::size_t step = s - (k < order.size() ? buffers[order[k]].size : 0);
        std::size_t area = 0;
        total = saturating_add(total, mul_overflows(step, most[1], area) ? size_max : area);
    }
    return total;
}

}  // namespace onnx_runtime_memory::detail
