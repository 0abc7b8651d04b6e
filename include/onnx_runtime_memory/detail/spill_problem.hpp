// The spill planners' shared view of their records: times ranked, sizes
// rounded up to the fast alignment, each buffer's uses and the gaps between
// them (where it may be out of the fast space), the floor at each position,
// and the lower bound on the bytes any plan moves. A plan in the making is
// a list of fast runs per buffer, in ranks.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <queue>
#include <span>
#include <utility>
#include <vector>

#include "../expected.hpp"
#include "../spill_types.hpp"
#include "checked.hpp"
#include "lower_bounds.hpp"
#include "max_tree.hpp"

namespace onnx_runtime_memory::detail {

// Ranks over which a buffer may be out: between two uses (out and in),
// before its first use (in only: it arrives in the slow space) or after its
// last (out only: it leaves from there).
struct SpillGap {
    enum class Ends : std::uint8_t { both, in_only, out_only };
    std::uint32_t buffer = 0;
    std::uint32_t first = 0, last = 0;
    Ends ends = Ends::both;
};

struct SpillProblem {
    std::vector<NodeIndex> time;             // by rank: the caller's time
    std::vector<std::uint32_t> first, last;  // by buffer, ranks
    std::vector<std::size_t> size, aligned;  // by buffer: its bytes, and those rounded up to the fast alignment
    std::vector<std::size_t> use_begin;      // by buffer, n + 1, into `uses`
    std::vector<std::uint32_t> uses;         // ranks, ascending per buffer, never none
    std::vector<SpillGap> gaps;              // by buffer, each's in time order
    std::vector<std::size_t> floor;          // by rank: the aligned bytes of the buffers used there

    [[nodiscard]] std::size_t buffers() const noexcept { return first.size(); }
    [[nodiscard]] std::size_t ranks() const noexcept { return time.size(); }
    // Bytes moved to leave the fast space over the gap and come back.
    [[nodiscard]] std::size_t cost(const SpillGap& g) const noexcept {
        return g.ends == SpillGap::Ends::both ? 2 * size[g.buffer] : size[g.buffer];
    }
};

// A plan in the making: buffer b is in the fast space over runs[begin[b] ..
// begin[b + 1]), ranks ascending, each at one offset.
struct FastRun {
    std::uint32_t first = 0, last = 0;
    std::size_t offset = 0;
};
struct FastRuns {
    std::vector<std::size_t> begin;
    std::vector<FastRun> runs;
};

// Builds the problem from the caller's records and uses, or names the first
// bad one: a malformed record (or bytes whose total overflows), a pin, a
// use out of order or outside its buffer's life. O((n + uses) log).
[[nodiscard]] inline expected<void, SpillError> make_spill_problem(std::span<const Buffer> buffers,
                                                                   const BufferUses& uses, std::size_t alignment,
                                                                   SpillProblem& p) {
    using Kind = SpillError::Kind;
    SpillError err;
    if (auto ok = check_buffers(buffers); !ok) {
        err.kind = Kind::bad_records;
        err.plan = ok.error();
        return unexpected(err);
    }
    const std::size_t n = buffers.size();
    const bool listed = !(uses.begin.empty() && uses.at.empty());
    err.kind = Kind::bad_uses;
    if (listed && (uses.begin.size() != n + 1 || uses.begin[0] != 0 || uses.begin[n] != uses.at.size())) {
        err.buffer = n;
        return unexpected(err);
    }
    alignment = alignment_or_one(alignment);
    std::size_t total = 0;
    p.size.resize(n);
    p.aligned.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        const Buffer& b = buffers[i];
        if (b.pinned != no_offset) {
            err.kind = Kind::pinned;
            err.buffer = i;
            return unexpected(err);
        }
        p.size[i] = b.size;
        p.aligned[i] = saturating_align_up(b.size, alignment);
        // Twice the total must fit: a gap's bytes moved are counted out plus in.
        if (add_overflows(total, p.aligned[i], total) || total > unbounded / 2) {
            err.kind = Kind::bad_records;
            err.plan = make_plan_error(PlanError::Kind::size_overflow, i);
            return unexpected(err);
        }
        if (!listed) continue;
        if (uses.begin[i] > uses.begin[i + 1] || uses.begin[i + 1] > uses.at.size()) {
            err.buffer = n;
            return unexpected(err);
        }
        for (std::size_t k = uses.begin[i]; k < uses.begin[i + 1]; ++k) {
            const NodeIndex t = uses.at[k];
            if (t < b.first || t > b.last || (k > uses.begin[i] && t <= uses.at[k - 1])) {
                err.buffer = i;
                err.position = t;
                return unexpected(err);
            }
        }
    }

    // The caller's uses (or first and last), then every time ranked.
    p.use_begin.assign(n + 1, 0);
    p.uses.clear();
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t from = listed ? uses.begin[i] : 0, to = listed ? uses.begin[i + 1] : 0;
        if (from == to) {
            p.uses.push_back(buffers[i].first);
            if (buffers[i].last != buffers[i].first) p.uses.push_back(buffers[i].last);
        } else {
            p.uses.insert(p.uses.end(), uses.at.begin() + static_cast<std::ptrdiff_t>(from),
                          uses.at.begin() + static_cast<std::ptrdiff_t>(to));
        }
        p.use_begin[i + 1] = p.uses.size();
    }
    // Ranks: through a table when the times are dense (a graph's positions), else by search.
    std::size_t span = 0;
    for (const Buffer& b : buffers) span = std::max<std::size_t>(span, std::size_t{b.last} + 1);
    const bool dense = !sparse_times(span, n + p.uses.size());
    std::vector<std::uint32_t> table;
    if (dense) {
        table.assign(span, 0);
        for (const auto u : p.uses) table[u] = 1;
        for (const Buffer& b : buffers) table[b.first] = table[b.last] = 1;
        p.time.clear();
        for (std::size_t t = 0; t < span; ++t)
            if (table[t]) {
                table[t] = static_cast<std::uint32_t>(p.time.size());
                p.time.push_back(static_cast<NodeIndex>(t));
            }
    } else {
        p.time.assign(p.uses.begin(), p.uses.end());
        for (const Buffer& b : buffers) {
            p.time.push_back(b.first);
            p.time.push_back(b.last);
        }
        std::sort(p.time.begin(), p.time.end());
        p.time.erase(std::unique(p.time.begin(), p.time.end()), p.time.end());
    }
    const auto rank = [&](NodeIndex t) {
        if (dense) return table[t];
        return static_cast<std::uint32_t>(std::lower_bound(p.time.begin(), p.time.end(), t) - p.time.begin());
    };
    for (auto& u : p.uses) u = rank(u);
    p.first.resize(n);
    p.last.resize(n);
    p.floor.assign(p.ranks(), 0);
    p.gaps.clear();
    for (std::size_t i = 0; i < n; ++i) {
        p.first[i] = rank(buffers[i].first);
        p.last[i] = rank(buffers[i].last);
        const auto b = static_cast<std::uint32_t>(i);
        const std::size_t from = p.use_begin[i], to = p.use_begin[i + 1];
        if (p.first[i] < p.uses[from]) p.gaps.push_back({b, p.first[i], p.uses[from] - 1, SpillGap::Ends::in_only});
        for (std::size_t k = from; k < to; ++k) {
            p.floor[p.uses[k]] += p.aligned[i];  // within the total, which fits
            if (k + 1 < to && p.uses[k + 1] > p.uses[k] + 1)
                p.gaps.push_back({b, p.uses[k] + 1, p.uses[k + 1] - 1, SpillGap::Ends::both});
        }
        if (p.uses[to - 1] < p.last[i]) p.gaps.push_back({b, p.uses[to - 1] + 1, p.last[i], SpillGap::Ends::out_only});
    }
    return {};
}

// Every position whose floor passes the capacity, in the caller's time.
[[nodiscard]] inline std::vector<OverCapacity> over_capacity(const SpillProblem& p, std::size_t capacity) {
    std::vector<OverCapacity> over;
    for (std::size_t r = 0; r < p.ranks(); ++r)
        if (p.floor[r] > capacity) over.push_back({p.time[r], p.floor[r]});
    return over;
}

// The least bytes any plan within `capacity` moves. At a position p, the
// bytes live there less the capacity (E) must be out, in whole gaps holding
// p: either one of at least E bytes (at least the cheapest such), or only
// smaller ones, each byte of them costing 1 (a gap at either end of a
// buffer's life) or 2 (out and back in), cheapest first. One copy out and
// in covers one gap, so positions no gap spans two of add up: the most such
// a set gives, by dynamic programming over the positions, where left(p) is
// the first rank of any gap holding p. O((n + gaps) log).
[[nodiscard]] inline std::size_t spill_lower_bound(const SpillProblem& p, std::size_t capacity) {
    const std::size_t R = p.ranks(), G = p.gaps.size();
    if (capacity == unbounded || R == 0) return 0;
    std::vector<std::size_t> live(R + 1, 0);  // live bytes by rank, as differences (exact modulo 2^64; the totals fit)
    for (std::size_t i = 0; i < p.buffers(); ++i) {
        live[p.first[i]] += p.size[i];
        live[p.last[i] + 1] -= p.size[i];
    }
    // The gaps by size (each its own place), opened at their first rank and closed past their last.
    std::vector<std::uint32_t> by_size(G), place(G), opens(G), closes(G);
    for (std::uint32_t g = 0; g < G; ++g) by_size[g] = opens[g] = closes[g] = g;
    sort_by(by_size, [&](std::uint32_t g) { return p.size[p.gaps[g].buffer]; });
    std::vector<std::size_t> sizes(G);
    for (std::uint32_t k = 0; k < G; ++k) {
        place[by_size[k]] = k;
        sizes[k] = p.size[p.gaps[by_size[k]].buffer];
    }
    sort_by(opens, [&](std::uint32_t g) { return p.gaps[g].first; });
    sort_by(closes, [&](std::uint32_t g) { return p.gaps[g].last; });
    // Over places: the open gaps' bytes, one-ended and both-ended (Fenwick sums), and their cheapest cost (~cost, maxima).
    std::vector<std::size_t> one_sum(G + 1, 0), two_sum(G + 1, 0);
    const auto add = [&](std::vector<std::size_t>& tree, std::size_t k, std::size_t v, bool up) {
        for (++k; k <= G; k += k & (~k + 1)) tree[k] = up ? tree[k] + v : tree[k] - v;
    };
    const auto below = [&](const std::vector<std::size_t>& tree, std::size_t k) {  // places [0, k)
        std::size_t total = 0;
        for (; k > 0; k -= k & (~k + 1)) total += tree[k];
        return total;
    };
    MaxTree priced;
    priced.reset(G);
    const auto toggle = [&](std::uint32_t g, bool open) {
        const SpillGap& gap = p.gaps[g];
        add(gap.ends == SpillGap::Ends::both ? two_sum : one_sum, place[g], p.size[gap.buffer], open);
        priced.set(place[g], open ? ~std::uint64_t{p.cost(gap)} : 0);
    };
    using Open = std::pair<std::uint32_t, std::uint32_t>;  // a gap's first and last rank
    std::priority_queue<Open, std::vector<Open>, std::greater<>> open;
    std::vector<std::size_t> best_upto(R, 0);  // the most a set of positions up to r gives
    std::size_t live_bytes = 0, next_open = 0, next_close = 0, best = 0;
    const auto cover = [](std::size_t excess, std::size_t one, std::size_t two) {  // fractional, or none
        if (one + two < excess) return unbounded;
        return std::min(excess, one) + 2 * (excess - std::min(excess, one));
    };
    for (std::uint32_t r = 0; r < R; ++r) {
        live_bytes += live[r];
        for (; next_close < G && p.gaps[closes[next_close]].last < r; ++next_close) toggle(closes[next_close], false);
        for (; next_open < G && p.gaps[opens[next_open]].first == r; ++next_open) {
            toggle(opens[next_open], true);
            open.push({r, p.gaps[opens[next_open]].last});
        }
        while (!open.empty() && open.top().second < r) open.pop();
        std::size_t here = 0;
        if (live_bytes > capacity && G > 0) {
            const std::size_t excess = live_bytes - capacity;
            const auto small = static_cast<std::size_t>(std::lower_bound(sizes.begin(), sizes.end(), excess) - sizes.begin());
            const std::uint64_t big = small < G ? priced.highest(small, G - 1) : 0;
            const std::size_t one_big = big == 0 ? unbounded : static_cast<std::size_t>(~big);
            const std::size_t smalls = cover(excess, below(one_sum, small), below(two_sum, small));
            const std::size_t all = cover(excess, below(one_sum, G), below(two_sum, G));
            const std::uint64_t any = priced.highest(0, G - 1);  // some gap holds r: the live bytes pass the floor
            here = std::max({all == unbounded ? 0 : all, any == 0 ? 0 : static_cast<std::size_t>(~any),
                             std::min(one_big, smalls) == unbounded ? 0 : std::min(one_big, smalls)});
            const std::uint32_t left = open.empty() ? r : open.top().first;
            if (left > 0) here = saturating_add(here, best_upto[left - 1]);
        }
        best = std::max(best, here);
        best_upto[r] = best;
    }
    return best;
}

// The runs of a plan that leaves the fast space over the gaps marked
// `out`: a buffer is in from its first rank (or its first use) to its last
// (or its last use), but over each gap it leaves. Offsets 0.
inline void runs_around_gaps(const SpillProblem& p, const std::vector<std::uint8_t>& out, FastRuns& runs) {
    runs.begin.assign(p.buffers() + 1, 0);
    runs.runs.clear();
    std::size_t g = 0;
    for (std::uint32_t b = 0; b < p.buffers(); ++b) {
        std::uint32_t start = p.first[b];
        bool open = true;
        for (; g < p.gaps.size() && p.gaps[g].buffer == b; ++g) {
            const SpillGap& gap = p.gaps[g];
            if (!out[g]) continue;
            if (gap.ends == SpillGap::Ends::in_only) {
                start = gap.last + 1;
                continue;
            }
            runs.runs.push_back({start, gap.first - 1, 0});
            start = gap.last + 1;
            open = gap.ends == SpillGap::Ends::both;
        }
        if (open) runs.runs.push_back({start, p.last[b], 0});
        runs.begin[b + 1] = runs.runs.size();
    }
}

// The bytes a plan with these runs moves: an in before each run that does
// not start at its buffer's first rank, an out after each that does not end
// at its last.
[[nodiscard]] inline std::size_t moved_bytes(const SpillProblem& p, const FastRuns& runs) {
    std::size_t moved = 0;
    for (std::uint32_t b = 0; b < p.buffers(); ++b)
        for (std::size_t k = runs.begin[b]; k < runs.begin[b + 1]; ++k)
            moved = saturating_add(moved, p.size[b] * (std::size_t{runs.runs[k].first != p.first[b]} +
                                                       std::size_t{runs.runs[k].last != p.last[b]}));
    return moved;
}

}  // namespace onnx_runtime_memory::detail
