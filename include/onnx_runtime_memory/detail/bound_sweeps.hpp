// The lower bounds' sweeps: the code behind lower_bounds.hpp's declarations (part of the compiled
// core, config.hpp).
#pragma once

#include "config.hpp"
#if defined(ONNX_RUNTIME_MEMORY_SEPARATE_COMPILATION) && !defined(ONNX_RUNTIME_MEMORY_SOURCE)
#error "detail/bound_sweeps.hpp is the compiled core's: include detail/lower_bounds.hpp (src.hpp defines the core once)"
#endif

#include "lower_bounds.hpp"

namespace onnx_runtime_memory::detail {

ONNX_RUNTIME_MEMORY_CORE expected<void, PlanError> check_buffers(std::span<const Buffer> buffers) {
    if (buffers.size() > max_graph_ids) return unexpected(make_plan_error(PlanError::Kind::graph_too_large));
    for (std::size_t i = 0; i < buffers.size(); ++i)
        if (buffers[i].first > buffers[i].last || buffers[i].last >= max_graph_ids)
            return unexpected(make_plan_error(PlanError::Kind::bad_buffer, i));
    return {};
}

ONNX_RUNTIME_MEMORY_CORE std::size_t time_span(std::span<const Buffer> buffers) {
    std::size_t end = 0;
    for (const Buffer& b : buffers) end = std::max<std::size_t>(end, std::size_t{b.last} + 1);
    return end;
}

ONNX_RUNTIME_MEMORY_CORE std::span<const Buffer> dense_times(std::span<const Buffer> buffers, std::vector<Buffer>& ranked) {
    const std::size_t n = buffers.size();
    if (!sparse_times(time_span(buffers), n)) return buffers;
    ranked.assign(buffers.begin(), buffers.end());
    std::vector<NodeIndex> times;
    rank_times(n, [&](std::size_t i) -> NodeIndex& { return ranked[i].first; },
               [&](std::size_t i) -> NodeIndex& { return ranked[i].last; }, times);
    return ranked;
}

ONNX_RUNTIME_MEMORY_CORE ArenaBound arena_bound(std::span<const NodeIndex> first, std::span<const NodeIndex> last,
                                            std::span<const std::size_t> rounded, std::span<const std::size_t> slack,
                                            std::vector<std::size_t>& born, std::vector<std::size_t>& dying) {
    const std::size_t n = first.size();
    std::size_t positions = 0, most_slack = 0;
    for (std::size_t i = 0; i < n; ++i) {
        positions = std::max<std::size_t>(positions, std::size_t{last[i]} + 1);
        most_slack = std::max(most_slack, slack[i]);
    }
    born.assign(positions, 0);
    dying.assign(positions + 1, 0);
    for (std::size_t i = 0; i < n; ++i) {
        born[first[i]] = saturating_add(born[first[i]], rounded[i]);
        dying[last[i]] = saturating_add(dying[last[i]], rounded[i]);
    }
    std::size_t live = 0, peak = 0;
    for (std::size_t p = 0; p < positions; ++p) {
        live = saturating_add(live, born[p]);
        peak = std::max(peak, live);
        live -= std::min(live, dying[p]);
    }
    if (most_slack == 0 || peak == 0) return {peak, peak};
    live = 0;  // born[p] becomes 1 where the rounded total peaks
    for (std::size_t p = 0; p < positions; ++p) {
        live = saturating_add(live, born[p]);
        born[p] = live == peak;
        live -= std::min(live, dying[p]);
    }
    const auto fits = [&](std::size_t w) {  // a peak position where no live buffer has slack > w
        std::fill(dying.begin(), dying.end(), 0);
        for (std::size_t i = 0; i < n; ++i)
            if (slack[i] > w) {
                ++dying[first[i]];
                --dying[std::size_t{last[i]} + 1];  // wraps, and the running count wraps back
            }
        std::size_t above = 0;
        for (std::size_t p = 0; p < positions; ++p) {
            above += dying[p];
            if (born[p] == 1 && above == 0) return true;
        }
        return false;
    };
    std::size_t lo = 0, hi = most_slack;  // hi always fits
    while (lo < hi) {
        const std::size_t mid = lo + (hi - lo) / 2;
        if (fits(mid)) hi = mid;
        else lo = mid + 1;
    }
    return {peak, peak - std::min(peak, lo)};
}

ONNX_RUNTIME_MEMORY_CORE ArenaBound arena_bound(std::span<const Buffer> buffers, std::size_t alignment) {
    const std::size_t n = buffers.size();
    std::vector<NodeIndex> first(n), last(n);
    std::vector<std::size_t> rounded(n), slack(n), born, dying;
    for (std::size_t i = 0; i < n; ++i) {
        first[i] = buffers[i].first;
        last[i] = buffers[i].last;
        rounded[i] = saturating_align_up(buffers[i].size, alignment);
        slack[i] = rounded[i] - std::min(rounded[i], buffers[i].size);
    }
    return arena_bound(first, last, rounded, slack, born, dying);
}

ONNX_RUNTIME_MEMORY_CORE void most_live_by_size(std::span<const Buffer> buffers, const std::vector<std::uint32_t>& order,
                              std::vector<std::uint32_t>& most_at) {
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
    most_at.resize(order.size());
    for (std::size_t k = 0; k < order.size();) {
        const std::size_t s = buffers[order[k]].size, group = k;
        for (; k < order.size() && buffers[order[k]].size == s; ++k) add(buffers[order[k]].first, buffers[order[k]].last);
        std::fill(most_at.begin() + static_cast<std::ptrdiff_t>(group), most_at.begin() + static_cast<std::ptrdiff_t>(k), most[1]);
    }
}

ONNX_RUNTIME_MEMORY_CORE std::vector<std::uint32_t> by_decreasing_size(std::span<const Buffer> buffers) {
    std::vector<std::uint32_t> order(buffers.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<std::uint32_t>(i);
    sort_by(order, [&](std::uint32_t x) { return descending(buffers[x].size); });
    return order;
}

ONNX_RUNTIME_MEMORY_CORE std::size_t slot_bound(std::span<const Buffer> buffers) {
    const auto order = by_decreasing_size(buffers);
    std::vector<std::uint32_t> most;
    most_live_by_size(buffers, order, most);
    std::size_t total = 0;
    for (std::size_t k = 0; k < order.size(); ++k) {
        const std::size_t s = buffers[order[k]].size;
        const std::size_t next = k + 1 < order.size() ? buffers[order[k + 1]].size : 0;
        if (next == s) continue;  // the group's last member adds it
        std::size_t area = 0;
        total = saturating_add(total, mul_overflows(s - next, most[k], area) ? size_max : area);
    }
    return total;
}

}  // namespace onnx_runtime_memory::detail
