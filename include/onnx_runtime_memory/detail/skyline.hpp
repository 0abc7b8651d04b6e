// The skyline strategy: bottom-left packing over time, deterministic or
// with seeded jitter (the randomised restarts). O(n * (T + n)).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "../plan_types.hpp"
#include "buffers.hpp"
#include "checked.hpp"

namespace onnx_runtime_memory::detail {

// A small deterministic generator for the search (splitmix64).
struct SplitMix {
    std::uint64_t state;
    std::uint64_t operator()() noexcept {
        std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    std::size_t below(std::size_t n) noexcept { return static_cast<std::size_t>((*this)() % n); }
};

enum class Prefer : std::uint8_t { size, area, lifetime };

// Bottom-left packing over time (see the top of this file). With `rng`,
// each candidate's score is jittered by up to 60%. Writes offsets; returns
// the arena, or SIZE_MAX if it got stuck (it cannot on valid input), ran
// out of `steps` (each round, a placement or a raise, costs positions + n;
// they are taken from `steps`) or reached `give_up_at` (no_offset: never;
// the arena only grows, and only a smaller one is kept).
struct Skyline {
    std::vector<std::size_t> height;  // by position: the top of what is placed there
    std::vector<std::uint32_t> cover; // by position: unplaced buffers still covering it
    std::vector<std::uint8_t> done;
};
[[nodiscard]] inline std::size_t skyline(const Buffers& b, Prefer prefer, SplitMix* rng, Skyline& sky,
                                         std::vector<std::size_t>& offset, std::size_t& steps,
                                         std::size_t give_up_at = no_offset) {
    const std::size_t n = b.count();
    const std::size_t positions = b.positions();
    auto& h = sky.height;
    auto& cover = sky.cover;
    h.assign(positions, 0);
    cover.assign(positions, 0);
    sky.done.assign(n, false);
    offset.assign(n, 0);
    std::size_t remaining = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (b.size[i] == 0) {
            sky.done[i] = true;
            continue;
        }
        ++remaining;
        for (std::size_t t = b.def[i]; t <= b.end[i]; ++t) ++cover[t];
    }
    std::size_t arena = 0;
    const std::size_t round = positions + n;
    while (remaining > 0) {
        if (steps < round) return no_offset;
        steps -= round;
        std::size_t low = positions;
        for (std::size_t t = 0; t < positions; ++t)
            if (cover[t] > 0 && (low == positions || h[t] < h[low])) low = t;
        std::size_t left = low, right = low;
        while (left > 0 && h[left - 1] == h[low]) --left;
        while (right + 1 < positions && h[right + 1] == h[low]) ++right;
        std::size_t pick = n;
        double best = -1.0;
        for (std::size_t i = 0; i < n; ++i) {
            if (sky.done[i] || b.def[i] < left || b.end[i] > right) continue;
            const double length = static_cast<double>(b.length[i]);
            const double size = static_cast<double>(b.size[i]);
            double score = prefer == Prefer::size ? size * 1e6 + length
                         : prefer == Prefer::area ? size * length
                                                  : length * 1e12 + size;
            if (b.def[i] == left) score *= 1.5;  // flush with the stretch's left edge
            if (rng) score *= 1.0 + static_cast<double>(rng->below(1000)) * 0.0006;
            if (score > best) {
                best = score;
                pick = i;
            }
        }
        if (pick == n) {  // nothing fits flat here: raise the stretch to its lower neighbour
            std::size_t to = no_offset;
            if (left > 0) to = h[left - 1];
            if (right + 1 < positions) to = std::min(to, h[right + 1]);
            if (to == no_offset) return no_offset;
            for (std::size_t t = left; t <= right; ++t) h[t] = to;
            continue;
        }
        const std::size_t base = h[low], top = base + b.size[pick];  // h[low] changes in the loop
        offset[pick] = base;
        for (std::size_t t = b.def[pick]; t <= b.end[pick]; ++t) {
            h[t] = top;
            --cover[t];
        }
        arena = std::max(arena, top);
        if (reached(arena, give_up_at)) return no_offset;
        sky.done[pick] = true;
        --remaining;
    }
    return arena;
}

// The deterministic skyline again, the same placements as skyline(b,
// prefer, nullptr, ...) at O(log n) a round instead of O(T + n): the
// skyline is kept as maximal flat runs (a linked list by position, the
// lowest that some unplaced buffer covers first in a heap), the unplaced
// buffers in a tree over their order by first use (make_buffers sorts them
// so) that gives, over a range of first uses, the best score and the
// least and greatest last use. A stretch's candidates are then a range of
// that tree, walked best first, skipping subtrees with nothing that ends
// in the stretch. Each round costs log2 n steps, each node the walk opens 2;
// with a `rate`, it gives up where its steps pass `rate` a placement (at
// least n / 32 placements' worth): where long buffers cross most stretches
// (random DAGs), the walks grow, and so would the time.
struct SkylineRuns {
    struct Node {          // of the tree, over its unplaced buffers
        double score;      // the best's
        std::uint32_t best;  // none: no unplaced buffer
        NodeIndex least_end, most_end;
    };
    std::vector<Node> tree;
    std::vector<std::uint32_t> def_begin;    // by position: the first buffer used there or later
    std::vector<std::uint32_t> right, left;  // by a run's first position: its last; by its last: its first
    std::vector<std::size_t> height;         // by a run's first position
    std::vector<std::uint32_t> stamp;        // by a run's first position: bumped when the run changes
    struct Low {
        std::size_t height;
        std::uint32_t left, stamp;
    };
    std::vector<Low> lows;  // a min-heap by (height, left)
    struct Open {
        double score;
        std::uint32_t best, node;
    };
    std::vector<Open> walk;  // the tree nodes being walked, a max-heap by their best
};
[[nodiscard]] inline std::size_t skyline_by_runs(const Buffers& b, Prefer prefer, SkylineRuns& sky,
                                                 std::vector<std::size_t>& offset, std::size_t& steps,
                                                 std::size_t give_up_at = no_offset, std::size_t rate = size_max) {
    using Node = SkylineRuns::Node;
    constexpr std::uint32_t none = UINT32_MAX;
    constexpr auto no_end = static_cast<NodeIndex>(max_graph_ids);
    const std::size_t n = b.count();
    const std::size_t positions = b.positions();
    offset.assign(n, 0);
    if (n == 0 || positions == 0) return 0;
    std::size_t leaves = 1;
    while (leaves < n) leaves *= 2;
    auto& tree = sky.tree;
    tree.assign(2 * leaves, Node{0.0, none, no_end, 0});
    std::size_t remaining = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (b.size[i] == 0) continue;
        ++remaining;
        const double length = static_cast<double>(b.length[i]);
        const double size = static_cast<double>(b.size[i]);
        const double score = prefer == Prefer::size   ? size * 1e6 + length
                           : prefer == Prefer::area ? size * length
                                                    : length * 1e12 + size;
        tree[leaves + i] = {score, static_cast<std::uint32_t>(i), b.end[i], b.end[i]};
    }
    // Better: the higher score, then the lower index (skyline's first maximum).
    const auto better = [](const Node& x, const Node& y) {
        if (y.best == none) return x.best != none;
        if (x.best == none) return false;
        return x.score > y.score || (x.score == y.score && x.best < y.best);
    };
    const auto pull = [&](std::size_t v) {
        const Node& l = tree[2 * v];
        const Node& r = tree[2 * v + 1];
        const Node& top = better(r, l) ? r : l;
        tree[v] = {top.score, top.best, std::min(l.least_end, r.least_end), std::max(l.most_end, r.most_end)};
    };
    for (std::size_t v = leaves; v-- > 1;) pull(v);
    auto& def_begin = sky.def_begin;
    def_begin.assign(positions + 1, static_cast<std::uint32_t>(n));
    for (std::size_t i = n; i-- > 0;) def_begin[b.def[i]] = static_cast<std::uint32_t>(i);
    for (std::size_t t = positions; t-- > 0;) def_begin[t] = std::min(def_begin[t], def_begin[t + 1]);

    // Whether some unplaced buffer covers a position of [l, r]: one used first by r and last from l.
    const auto covered = [&](std::size_t l, std::size_t r) {
        bool any = false;
        const auto look = [&](const Node& v) { any = any || (v.best != none && v.most_end >= l); };
        for (std::size_t lo = leaves, hi = leaves + def_begin[r + 1]; lo < hi; lo /= 2, hi /= 2) {
            if (lo & 1) look(tree[lo++]);
            if (hi & 1) look(tree[--hi]);
        }
        return any;
    };
    // The best unplaced buffer used first in [from, to) (buffer indices) and last by r, or none;
    // false when the steps ran out.
    auto& walk = sky.walk;
    const auto lower = [](const SkylineRuns::Open& x, const SkylineRuns::Open& y) {
        return x.score < y.score || (x.score == y.score && x.best > y.best);
    };
    const std::size_t unit = log2_steps(n);
    const auto best_fitting = [&](std::size_t from, std::size_t to, std::size_t r, std::uint32_t& found) {
        walk.clear();
        found = none;
        const auto add = [&](std::size_t v) {
            if (tree[v].best == none || tree[v].least_end > r) return;
            walk.push_back({tree[v].score, tree[v].best, static_cast<std::uint32_t>(v)});
            std::push_heap(walk.begin(), walk.end(), lower);
        };
        for (std::size_t lo = leaves + from, hi = leaves + to; lo < hi; lo /= 2, hi /= 2) {
            if (lo & 1) add(lo++);
            if (hi & 1) add(--hi);
        }
        while (!walk.empty()) {
            std::pop_heap(walk.begin(), walk.end(), lower);
            const SkylineRuns::Open open = walk.back();
            walk.pop_back();
            if (open.node >= leaves) {  // a leaf added is one that fits
                found = open.best;
                return true;
            }
            if (steps < 2) return false;
            steps -= 2;
            add(2 * std::size_t{open.node});
            add(2 * std::size_t{open.node} + 1);
        }
        return true;
    };

    auto& right = sky.right;
    auto& left = sky.left;
    auto& height = sky.height;
    auto& stamp = sky.stamp;
    auto& lows = sky.lows;
    right.assign(positions, none);
    left.assign(positions, none);
    height.assign(positions, 0);
    stamp.assign(positions, 0);
    lows.clear();
    const auto lower_first = [](const SkylineRuns::Low& x, const SkylineRuns::Low& y) {
        return x.height > y.height || (x.height == y.height && x.left > y.left);
    };
    const auto make_run = [&](std::size_t l, std::size_t r, std::size_t h) {
        right[l] = static_cast<std::uint32_t>(r);
        left[r] = static_cast<std::uint32_t>(l);
        height[l] = h;
        ++stamp[l];
        lows.push_back({h, static_cast<std::uint32_t>(l), stamp[l]});
        std::push_heap(lows.begin(), lows.end(), lower_first);
    };
    const auto drop_run = [&](std::size_t l) {
        right[l] = none;
        ++stamp[l];
    };
    make_run(0, positions - 1, 0);

    std::size_t arena = 0;
    const std::size_t allowed = steps;
    while (remaining > 0) {
        if (lows.empty() || steps < unit) return no_offset;
        steps -= unit;
        // The rate: at most `rate` steps a placement so far (n / 32 of them at first).
        const std::size_t placed = std::max<std::size_t>({n - remaining, n / 32, 1});
        if (allowed - steps > saturating_mul(rate, placed)) return no_offset;
        std::pop_heap(lows.begin(), lows.end(), lower_first);
        const SkylineRuns::Low low = lows.back();
        lows.pop_back();
        const std::size_t l = low.left;
        if (right[l] == none || stamp[l] != low.stamp) continue;  // changed since
        const std::size_t r = right[l];
        if (!covered(l, r)) continue;  // nothing left to place there, and there never will be
        const std::size_t base = height[l];
        std::uint32_t pick = none, flush = none;
        if (!best_fitting(def_begin[l], def_begin[r + 1], r, pick)) return no_offset;
        if (!best_fitting(def_begin[l], def_begin[l + 1], r, flush)) return no_offset;  // used first at l: x1.5
        if (flush != none) {
            const double lifted = tree[leaves + flush].score * 1.5;
            const double other = pick == none                ? -1.0
                               : b.def[pick] == l ? tree[leaves + pick].score * 1.5
                                                  : tree[leaves + pick].score;
            if (lifted > other || (lifted == other && flush < pick)) pick = flush;
        }
        if (pick == none) {  // nothing fits flat here: raise the stretch to its lower neighbour
            const std::size_t below = l > 0 ? left[l - 1] : none;
            const std::size_t above = r + 1 < positions ? r + 1 : none;
            std::size_t to = no_offset;
            if (below != none) to = height[below];
            if (above != none) to = std::min(to, height[above]);
            if (to == no_offset) return no_offset;
            std::size_t from = l, through = r;
            drop_run(l);
            if (below != none && height[below] == to) {
                from = below;
                drop_run(below);
            }
            if (above != none && height[above] == to) {
                through = right[above];
                drop_run(above);
            }
            make_run(from, through, to);
            continue;
        }
        const std::size_t first = b.def[pick], last = b.end[pick], top = base + b.size[pick];
        offset[pick] = base;
        drop_run(l);
        std::size_t from = first, through = last;
        if (first > l) {
            make_run(l, first - 1, base);
        } else if (l > 0 && height[left[l - 1]] == top) {  // flush with its left neighbour's top: one run
            from = left[l - 1];
            drop_run(from);
        }
        if (last < r) {
            make_run(last + 1, r, base);
        } else if (r + 1 < positions && height[r + 1] == top) {
            through = right[r + 1];
            drop_run(r + 1);
        }
        make_run(from, through, top);
        arena = std::max(arena, top);
        if (reached(arena, give_up_at)) return no_offset;
        // Placed: out of the tree.
        std::size_t v = leaves + pick;
        tree[v] = Node{0.0, none, no_end, 0};
        for (v /= 2; v >= 1; v /= 2) {  // up to the first node it leaves as it was
            const Node was = tree[v];
            pull(v);
            if (tree[v].best == was.best && tree[v].least_end == was.least_end && tree[v].most_end == was.most_end) break;
        }
        --remaining;
    }
    return arena;
}

}  // namespace onnx_runtime_memory::detail
