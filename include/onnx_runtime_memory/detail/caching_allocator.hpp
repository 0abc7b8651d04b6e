// The baseline an executor has without a plan: a caching allocator over the
// fast space. Node by node, it frees what died, gives each operand not in
// the fast space a place by first fit (largest first), and when none is
// free evicts the resident buffer not used here whose next use is farthest
// (copied out; copied back in at that use). A buffer arriving before its
// first use (a graph input) gets a place if one is free, or one evicted from
// a buffer used later than it, else waits in the slow space. Where the
// operands' fixed offsets leave no hole big enough once nothing else is
// resident, it moves them: out and back in, one after another from offset
// 0 (they fit: the capacity is at least the floor). Given the gaps a plan
// takes out (spill_greedy), it follows them too: a buffer leaves at the start
// of each such gap and does not arrive before a leading one: the plan's
// offsets, where fragmentation would not let a packing of them fit. O(R +
// uses) steps, each first fit O(log holes) (hole_index.hpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <queue>
#include <vector>

#include "hole_index.hpp"
#include "sort.hpp"
#include "spill_problem.hpp"

namespace onnx_runtime_memory::detail {

// The caching allocator's runs, offsets included, following the gaps marked
// in `out` (by gap; empty: none). Needs every floor within the capacity.
inline void simulate_caching(const SpillProblem& p, std::size_t capacity, const std::vector<std::uint8_t>& out,
                             FastRuns& result) {
    const std::size_t n = p.buffers(), R = p.ranks();
    constexpr std::size_t none = static_cast<std::size_t>(-1);
    // By rank: the buffers used there, and those whose life begins or ends there.
    const auto by_rank = [&](auto rank_of, std::size_t count, std::vector<std::size_t>& begin,
                             std::vector<std::uint32_t>& items) {
        begin.assign(R + 1, 0);
        for (std::size_t k = 0; k < count; ++k) ++begin[rank_of(k).first + 1];
        for (std::size_t r = 0; r < R; ++r) begin[r + 1] += begin[r];
        items.resize(count);
        std::vector<std::size_t> at(begin.begin(), begin.end() - 1);
        for (std::size_t k = 0; k < count; ++k) {
            const auto [r, b] = rank_of(k);
            items[at[r]++] = b;
        }
    };
    std::vector<std::uint32_t> owner_of_use(p.uses.size());
    for (std::uint32_t b = 0; b < n; ++b)
        for (std::size_t k = p.use_begin[b]; k < p.use_begin[b + 1]; ++k) owner_of_use[k] = b;
    std::vector<std::size_t> used_begin, born_begin, dies_begin;
    std::vector<std::uint32_t> used, born, dies;
    using RankOf = std::pair<std::uint32_t, std::uint32_t>;
    by_rank([&](std::size_t k) { return RankOf{p.uses[k], owner_of_use[k]}; }, p.uses.size(), used_begin, used);
    by_rank([&](std::size_t b) { return RankOf{p.first[b], static_cast<std::uint32_t>(b)}; }, n, born_begin, born);
    by_rank([&](std::size_t b) { return RankOf{p.last[b], static_cast<std::uint32_t>(b)}; }, n, dies_begin, dies);
    std::vector<std::size_t> gap_begin;  // the gaps taken out, by their first rank
    std::vector<std::uint32_t> gap_at;
    std::vector<std::uint8_t> arrives_out(n, 0);
    std::vector<std::uint32_t> taken;
    for (std::uint32_t g = 0; g < out.size(); ++g)
        if (out[g]) {
            taken.push_back(g);
            if (p.gaps[g].ends == SpillGap::Ends::in_only) arrives_out[p.gaps[g].buffer] = 1;
        }
    by_rank([&](std::size_t k) { return RankOf{p.gaps[taken[k]].first, p.gaps[taken[k]].buffer}; }, taken.size(),
            gap_begin, gap_at);

    HoleIndex holes;
    holes.reset(capacity);
    std::vector<std::size_t> offset(n, none), start(n, 0), next_use(n, 0), stamp(n, 0);
    for (std::uint32_t b = 0; b < n; ++b) next_use[b] = p.use_begin[b];
    std::vector<std::pair<std::uint32_t, FastRun>> runs;  // (buffer, run), in time order

    // Where buffer b fits (an empty one: at 0), or none.
    const auto hole = [&](std::uint32_t b) { return p.aligned[b] == 0 ? 0 : holes.first_fit(p.aligned[b]); };
    const auto place = [&](std::uint32_t b, std::size_t at, std::uint32_t r) {
        if (p.aligned[b] > 0) holes.take(at, p.aligned[b]);
        offset[b] = at;
        start[b] = r;
    };
    const auto unplace = [&](std::uint32_t b) {
        if (p.aligned[b] > 0) holes.give(offset[b], p.aligned[b]);
        offset[b] = none;
    };
    const auto leave = [&](std::uint32_t b, std::uint32_t last) {  // its run ends at `last`
        runs.push_back({b, FastRun{static_cast<std::uint32_t>(start[b]), last, offset[b]}});
        unplace(b);
    };
    // The resident buffers not used now, farthest next use (none: R) first, larger first, by index.
    struct Entry {
        std::uint32_t next;
        std::size_t bytes;
        std::uint32_t buffer;
        std::size_t stamp;
        bool operator<(const Entry& o) const {
            if (next != o.next) return next < o.next;
            if (bytes != o.bytes) return bytes < o.bytes;
            return buffer > o.buffer;
        }
    };
    std::priority_queue<Entry> victims;
    const auto next_after = [&](std::uint32_t b, std::uint32_t r) {  // its next use after r, R for none
        while (next_use[b] < p.use_begin[b + 1] && p.uses[next_use[b]] <= r) ++next_use[b];
        return next_use[b] < p.use_begin[b + 1] ? p.uses[next_use[b]] : static_cast<std::uint32_t>(R);
    };
    const auto offer = [&](std::uint32_t b, std::uint32_t r) {  // may be evicted after r
        if (p.last[b] > r) victims.push({next_after(b, r), p.aligned[b], b, ++stamp[b]});
    };
    // Evicts one buffer used later than `before` at r, or says there is none.
    const auto evict = [&](std::uint32_t r, std::uint32_t before) {
        while (!victims.empty()) {
            const Entry e = victims.top();
            if (offset[e.buffer] == none || e.stamp != stamp[e.buffer] || e.next <= r) {
                victims.pop();
                continue;
            }
            if (e.next <= before) return false;
            victims.pop();
            leave(e.buffer, r - 1);
            return true;
        }
        return false;
    };

    std::vector<std::uint32_t> need, operands;
    for (std::uint32_t r = 0; r <= R; ++r) {
        if (r > 0)
            for (std::size_t k = dies_begin[r - 1]; k < dies_begin[r]; ++k)
                if (offset[dies[k]] != none) leave(dies[k], r - 1);
        if (r == R) break;
        for (std::size_t k = gap_begin[r]; k < gap_begin[r + 1]; ++k)
            if (offset[gap_at[k]] != none) leave(gap_at[k], r - 1);  // the plan takes it out here
        operands.assign(used.begin() + static_cast<std::ptrdiff_t>(used_begin[r]),
                        used.begin() + static_cast<std::ptrdiff_t>(used_begin[r + 1]));
        need.clear();
        for (const std::uint32_t b : operands)
            if (offset[b] == none) need.push_back(b);
        sort_by(need, [&](std::uint32_t b) { return descending(p.aligned[b]); });
        bool moved = false;
        for (const std::uint32_t b : need) {
            std::size_t at = hole(b);
            while (at == none && evict(r, r)) at = hole(b);
            if (at == none) {
                moved = true;
                break;
            }
            place(b, at, r);
        }
        if (moved) {  // only operands are left resident: lay them out again from 0
            for (const std::uint32_t b : operands)
                if (offset[b] != none) {
                    if (start[b] < r) leave(b, r - 1);
                    else unplace(b);
                }
            need = operands;
            sort_by(need, [&](std::uint32_t b) { return descending(p.aligned[b]); });
            for (const std::uint32_t b : need) place(b, hole(b), r);
        }
        // Arrivals before their first use: a place if one is free or freed from a later-used buffer.
        for (std::size_t k = born_begin[r]; k < born_begin[r + 1]; ++k) {
            const std::uint32_t b = born[k];
            if (p.uses[p.use_begin[b]] == r || arrives_out[b]) continue;
            std::size_t at = hole(b);
            while (at == none && evict(r, p.uses[p.use_begin[b]])) at = hole(b);
            if (at != none) {
                place(b, at, r);
                operands.push_back(b);  // offered below, with them: nothing placed at r is evicted at r
            }
        }
        for (const std::uint32_t b : operands) offer(b, r);
    }

    // Runs by buffer, each's in time order.
    result.begin.assign(n + 1, 0);
    for (const auto& [b, run] : runs) ++result.begin[b + 1];
    for (std::size_t b = 0; b < n; ++b) result.begin[b + 1] += result.begin[b];
    result.runs.resize(runs.size());
    std::vector<std::size_t> at(result.begin.begin(), result.begin.end() - 1);
    for (const auto& [b, run] : runs) result.runs[at[b]++] = run;
}

}  // namespace onnx_runtime_memory::detail
