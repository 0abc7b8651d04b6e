// The planned strategy's choice of what leaves the fast space: by load,
// before any offset is known. Every buffer starts in the fast space for its
// whole life; a walk over the positions, wherever the load (aligned bytes
// in the fast space) passes the target, takes out whole gaps, the one whose
// buffer is next used farthest away first (Belady's rule: it frees the most
// positions ahead for one copy out and in), larger first among equals. Then
// the gaps taken out come back, costliest first, wherever the load stays
// within the target without them. O((n + gaps) log R).
#pragma once

#include <cstddef>
#include <cstdint>
#include <queue>
#include <vector>

#include "range_add.hpp"
#include "sort.hpp"
#include "spill_problem.hpp"

namespace onnx_runtime_memory::detail {

// Marks in `out` (by gap) the gaps to leave the fast space over so that the
// load stays within `target` at every rank. False where it cannot: some
// rank's own uses pass the target.
[[nodiscard]] inline bool spill_by_load(const SpillProblem& p, std::size_t target, std::vector<std::uint8_t>& out) {
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

    // Candidates: the open gaps, farthest next use (a gap at the end of a
    // life: none, the farthest), then larger, then earlier.
    struct Candidate {
        std::uint32_t next_use;
        std::size_t bytes;
        std::uint32_t gap;
        bool operator<(const Candidate& o) const {
            if (next_use != o.next_use) return next_use < o.next_use;
            if (bytes != o.bytes) return bytes < o.bytes;
            return gap > o.gap;
        }
    };
    std::priority_queue<Candidate> open;
    std::size_t next = 0;
    for (std::uint32_t r = 0; r < R; ++r) {
        for (; next < G && p.gaps[by_first[next]].first == r; ++next) {
            const std::uint32_t g = by_first[next];
            const SpillGap& gap = p.gaps[g];
            const std::uint32_t use = gap.ends == SpillGap::Ends::out_only ? static_cast<std::uint32_t>(R) : gap.last + 1;
            open.push({use, p.aligned[gap.buffer], g});
        }
        while (load.most(r, r) > target) {
            while (!open.empty() && p.gaps[open.top().gap].last < r) open.pop();
            if (open.empty()) return false;
            const std::uint32_t g = open.top().gap;
            open.pop();
            out[g] = 1;
            load.remove(p.gaps[g].first, p.gaps[g].last, p.aligned[p.gaps[g].buffer]);
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
