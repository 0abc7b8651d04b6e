// The heaviest antichain of a strict partial order on weighted items: the
// most total weight of items no two of which are ordered. By weighted
// Dilworth, it equals the fewest chains covering each item i w_i times: the
// total weight less the most weight that can pass from items to items after
// them (each unit passed lets one chain cover two items). That is a maximum
// flow from a source through L_i (capacity w_i), over L_i -> R_j for i
// before j (unbounded), through R_j (capacity w_j) to a sink, found here by
// Dinic's algorithm. The antichain is read off the minimum cut (the items
// whose L the source still reaches and whose R it does not) and its weight
// summed from those items, not taken from the flow.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <vector>

#include "checked.hpp"

namespace onnx_runtime_memory::detail {

// The network's memory, kept by a caller that finds many antichains.
struct AntichainSpace {
    std::vector<std::uint32_t> to, start, out, fill, level, queue, next, path;
    std::vector<std::size_t> cap;
};

// `before(i, j)`: item i is ordered strictly before item j (a strict
// partial order; items of weight 0 are left out). Items [0, unordered) are
// known to be ordered with none of each other: their pairs are not tested.
// nullopt when the total
// weight overflows or the work would pass what is left of `budget` (a step:
// a pair tested, an edge looked at), which is what it spends. O(n^2 -
// unordered^2) pair tests and edges, then Dinic's O(V^2 E) at worst, in
// practice a few breadth-first phases.
template <class Before>
[[nodiscard]] std::optional<std::size_t> heaviest_antichain(std::span<const std::size_t> weight, Before&& before,
                                                            std::size_t& budget, AntichainSpace& space,
                                                            std::size_t unordered = 0) {
    const std::size_t n = weight.size();
    std::size_t total = 0;
    for (std::size_t w : weight)
        if (add_overflows(total, w, total)) return std::nullopt;
    if (n == 0) return 0;
    if (n > (std::numeric_limits<std::uint32_t>::max() - 2) / 2) return std::nullopt;
    const auto spend = [&](std::size_t k) {
        if (k > budget) {
            budget = 0;
            return false;
        }
        budget -= k;
        return true;
    };
    unordered = std::min(unordered, n);
    if (!spend(saturating_mul(n, n) - unordered * unordered)) return std::nullopt;

    // The network: source 0, L_i = 1 + i, R_i = 1 + n + i, sink 1 + 2n. Edge
    // e goes to to[e] with residual capacity cap[e]; its twin e ^ 1 runs
    // back (so e comes from to[e ^ 1]); out[node] lists a node's edges (CSR).
    const std::uint32_t source = 0, sink = static_cast<std::uint32_t>(1 + 2 * n);
    std::vector<std::uint32_t>&to = space.to, &start = space.start, &out = space.out, &fill = space.fill,
                              &level = space.level, &queue = space.queue, &next = space.next, &path = space.path;
    std::vector<std::size_t>& cap = space.cap;
    to.clear();
    cap.clear();
    const auto edge = [&](std::size_t a, std::size_t b, std::size_t c) {
        to.push_back(static_cast<std::uint32_t>(b));
        cap.push_back(c);
        to.push_back(static_cast<std::uint32_t>(a));
        cap.push_back(0);
    };
    constexpr std::size_t unbounded = std::numeric_limits<std::size_t>::max();
    for (std::size_t i = 0; i < n; ++i) {
        if (weight[i] == 0) continue;
        edge(source, 1 + i, weight[i]);
        edge(1 + n + i, sink, weight[i]);
        for (std::size_t j = i < unordered ? unordered : 0; j < n; ++j)
            if (j != i && weight[j] > 0 && before(i, j)) edge(1 + i, 1 + n + j, unbounded);
    }
    if (to.size() >= std::numeric_limits<std::uint32_t>::max()) return std::nullopt;
    const std::size_t nodes = 2 + 2 * n;
    start.assign(nodes + 1, 0);
    out.resize(to.size());
    for (std::size_t e = 0; e < to.size(); ++e) ++start[to[e ^ 1] + 1];
    for (std::size_t v = 0; v < nodes; ++v) start[v + 1] += start[v];
    fill.assign(start.begin(), start.end() - 1);
    for (std::size_t e = 0; e < to.size(); ++e) out[fill[to[e ^ 1]]++] = static_cast<std::uint32_t>(e);

    // Dinic: levels by breadth-first search, then blocking flow along level
    // steps, depth first without recursion (paths may be 2n + 1 edges long).
    level.resize(nodes);
    next.resize(nodes);
    constexpr std::uint32_t unreached = std::numeric_limits<std::uint32_t>::max();
    const auto levels = [&]() -> std::optional<bool> {
        std::fill(level.begin(), level.end(), unreached);
        level[source] = 0;
        queue.assign(1, source);
        for (std::size_t q = 0; q < queue.size(); ++q) {
            const std::uint32_t a = queue[q];
            if (!spend(start[a + 1] - start[a])) return std::nullopt;
            for (std::uint32_t k = start[a]; k < start[a + 1]; ++k)
                if (const std::uint32_t e = out[k]; cap[e] > 0 && level[to[e]] == unreached) {
                    level[to[e]] = level[a] + 1;
                    queue.push_back(to[e]);
                }
        }
        return level[sink] != unreached;
    };
    for (;;) {
        const auto reached = levels();
        if (!reached) return std::nullopt;
        if (!*reached) break;
        for (std::size_t v = 0; v < nodes; ++v) next[v] = start[v];
        path.clear();
        std::uint32_t at = source;
        for (;;) {
            if (at == sink) {  // push the path's bottleneck, then go on from the source
                std::size_t push = unbounded;
                for (std::uint32_t e : path) push = std::min(push, cap[e]);
                for (std::uint32_t e : path) {
                    cap[e] -= push;
                    cap[e ^ 1] += push;
                }
                path.clear();
                at = source;
                continue;
            }
            bool advanced = false;
            for (; next[at] < start[at + 1]; ++next[at]) {
                if (!spend(1)) return std::nullopt;
                const std::uint32_t e = out[next[at]];
                if (cap[e] > 0 && level[to[e]] == level[at] + 1) {
                    path.push_back(e);
                    at = to[e];
                    advanced = true;
                    break;
                }
            }
            if (advanced) continue;
            if (at == source) break;  // the blocking flow is done
            level[at] = unreached;    // a dead end: retreat one edge
            at = to[path.back() ^ 1];
            path.pop_back();
        }
    }
    // The minimum cut: after the last search, level marks what the source reaches.
    std::size_t antichain = 0;
    for (std::size_t i = 0; i < n; ++i)
        if (weight[i] > 0 && level[1 + i] != unreached && level[1 + n + i] == unreached) antichain += weight[i];
    return antichain;
}

}  // namespace onnx_runtime_memory::detail
