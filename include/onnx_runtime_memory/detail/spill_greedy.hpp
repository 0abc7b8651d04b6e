// The planned strategy's choice of what leaves the fast space: by load,
// before any offset is known. Every buffer starts in the fast space for its
// whole life; a walk over the positions, wherever the load (aligned bytes
// in the fast space) passes the target, takes out whole gaps open there, by
// one of two rules: `farthest`, the gap whose buffer is next used farthest
// away (Belady's rule: it frees the most positions ahead for one copy out
// and in), larger first among equals; `fitting`, the smallest buffer that
// covers the excess alone (the farthest among equals), else the largest.
// Then the gaps taken out come back, costliest first, wherever the load
// stays within the target without them. O((n + gaps) log R).
#pragma once

#include <cstddef>
#include <cstdint>
#include <queue>
#include <set>
#include <tuple>
#include <vector>

#include "range_add.hpp"
#include "sort.hpp"
#include "spill_problem.hpp"

namespace onnx_runtime_memory::detail {

enum class SpillRule : std::uint8_t { farthest, fitting };

// Marks in `out` (by gap) the gaps to leave the fast space over so that the
// load stays within `target` at every rank. False where it cannot: some
// rank's own uses pass the target.
[[nodiscard]] inline bool spill_by_load(const SpillProblem& p, std::size_t target, SpillRule rule,
                                        std::vector<std::uint8_t>& out) {
    const std::size_t R = p.ranks(), G = p.gaps.size();
    out.assign(G, 0);
    if (R == 0) return true;
    RangeAdd load;
    load.reset(R);
    // Each gap added on its own and each use on its own, so that taking a gap
    // out removes exactly what an add gave (RangeAdd's sums never go below 0).
    for (const SpillGap& gap : p.gaps) load.add(gap.first, gap.last, p.aligned[gap.buffer]);
    for (std::uint32_t b = 0; b < p.buffers(); ++b)
        for (std::size_t k = p.use_begin[b]; k < p.use_begin[b + 1]; ++k) load.add(p.uses[k], p.uses[k], p.aligned[b]);
    std::vector<std::uint32_t> by_first(G);
    for (std::uint32_t g = 0; g < G; ++g) by_first[g] = g;
    sort_by(by_first, [&](std::uint32_t g) { return p.gaps[g].first; });

    // Candidates: the open gaps, keyed by the rule's order.
    const auto next_use = [&](const SpillGap& gap) {
        return gap.ends == SpillGap::Ends::out_only ? static_cast<std::uint32_t>(R) : gap.last + 1;
    };
    if (rule == SpillRule::farthest) {
        // Farthest next use (none, at the end of a life: the farthest), then larger, then earlier.
        using Key = std::tuple<std::uint32_t, std::size_t, std::uint32_t>;
        std::priority_queue<Key> open;
        std::size_t next = 0;
        for (std::uint32_t r = 0; r < R; ++r) {
            for (; next < G && p.gaps[by_first[next]].first == r; ++next) {
                const SpillGap& gap = p.gaps[by_first[next]];
                open.push({next_use(gap), p.aligned[gap.buffer], ~by_first[next]});
            }
            while (load.most(r, r) > target) {
                while (!open.empty() && p.gaps[~std::get<2>(open.top())].last < r) open.pop();
                if (open.empty()) return false;
                const std::uint32_t g = ~std::get<2>(open.top());
                open.pop();
                out[g] = 1;
                load.remove(p.gaps[g].first, p.gaps[g].last, p.aligned[p.gaps[g].buffer]);
            }
        }
    } else {
        // By bytes, then farthest next use first, then earlier; gaps leave the set when they end.
        using Key = std::tuple<std::size_t, std::uint32_t, std::uint32_t>;
        std::set<Key> open;
        std::vector<std::uint32_t> by_last(by_first);
        sort_by(by_last, [&](std::uint32_t g) { return p.gaps[g].last; });
        const auto key = [&](std::uint32_t g) {
            return Key{p.aligned[p.gaps[g].buffer], static_cast<std::uint32_t>(R) - next_use(p.gaps[g]), g};
        };
        std::size_t next = 0, ended = 0;
        for (std::uint32_t r = 0; r < R; ++r) {
            for (; ended < G && p.gaps[by_last[ended]].last < r; ++ended) open.erase(key(by_last[ended]));
            for (; next < G && p.gaps[by_first[next]].first == r; ++next) open.insert(key(by_first[next]));
            for (std::size_t here = load.most(r, r); here > target; here = load.most(r, r)) {
                if (open.empty()) return false;
                auto it = open.lower_bound(Key{here - target, 0, 0});
                if (it == open.end()) --it;
                const std::uint32_t g = std::get<2>(*it);
                open.erase(it);
                out[g] = 1;
                load.remove(p.gaps[g].first, p.gaps[g].last, p.aligned[p.gaps[g].buffer]);
            }
        }
    }

    // Bring back what fits again, costliest first.
    std::vector<std::uint32_t> taken;
    for (std::uint32_t g = 0; g < G; ++g)
        if (out[g]) taken.push_back(g);
    sort_by(taken, [&](std::uint32_t g) { return descending(p.cost(p.gaps[g])); });
    for (const std::uint32_t g : taken) {
        const SpillGap& gap = p.gaps[g];
        const std::size_t bytes = p.aligned[gap.buffer];
        if (bytes <= target && load.most(gap.first, gap.last) <= target - bytes) {
            load.add(gap.first, gap.last, bytes);
            out[g] = 0;
        }
    }
    return true;
}

}  // namespace onnx_runtime_memory::detail
