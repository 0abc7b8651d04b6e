// The top repacked: a placement's highest buffers placed again by a greedy
// order above the rest, which stays. The sweep leaves its waste near the
// top, where buffers that arrived late fill what was left; placed again
// largest first, the top packs tighter. O(n + c log r + r^2) for r
// buffers moved and c that stay but reach into their band: with r a
// multiple of sqrt(n), about linear in n.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "buffers.hpp"
#include "greedy.hpp"
#include "sort.hpp"

namespace onnx_runtime_memory::detail {

// Over positions [0, T): raise every position of a range to at least v, and
// the largest value in a range. A bottom-up segment tree: `tag` holds the
// raises that cover a node's whole range, `sub` the largest value anywhere
// below it (its raises and those of its descendants). A raise tags the
// nodes covering its range and lifts `sub` along the paths of its two end
// leaves, which pass through every ancestor of those nodes; a query reads
// `sub` of the nodes covering its range and `tag` along the same two paths
// (a tag there covers an end of the range, so a position inside it).
// O(log T) each.
class RangeMax {
public:
    void reset(std::size_t positions) {
        leaves_ = 1;
        while (leaves_ < positions) leaves_ *= 2;
        tag_.assign(2 * leaves_, 0);
        sub_.assign(2 * leaves_, 0);
    }
    void raise(std::size_t first, std::size_t last, std::size_t v) {
        for (std::size_t a = first + leaves_, b = last + leaves_ + 1; a < b; a /= 2, b /= 2) {
            if (a % 2 == 1) lift(a++, v);
            if (b % 2 == 1) lift(--b, v);
        }
        for (std::size_t p = first + leaves_; p > 0; p /= 2) sub_[p] = std::max(sub_[p], v);
        for (std::size_t p = last + leaves_; p > 0; p /= 2) sub_[p] = std::max(sub_[p], v);
    }
    [[nodiscard]] std::size_t largest(std::size_t first, std::size_t last) const {
        std::size_t m = 0;
        for (std::size_t a = first + leaves_, b = last + leaves_ + 1; a < b; a /= 2, b /= 2) {
            if (a % 2 == 1) m = std::max(m, sub_[a++]);
            if (b % 2 == 1) m = std::max(m, sub_[--b]);
        }
        for (std::size_t p = (first + leaves_) / 2; p > 0; p /= 2) m = std::max(m, tag_[p]);
        for (std::size_t p = (last + leaves_) / 2; p > 0; p /= 2) m = std::max(m, tag_[p]);
        return m;
    }

private:
    void lift(std::size_t node, std::size_t v) {
        tag_[node] = std::max(tag_[node], v);
        sub_[node] = std::max(sub_[node], v);
    }
    std::size_t leaves_ = 1;
    std::vector<std::size_t> tag_, sub_;
};

// Kept memory of repack_top.
struct RepackSpace {
    std::vector<std::uint32_t> by_offset;  // the buffers with bytes: the moved ones first (in def order), then the rest
    std::vector<NodeIndex> times;  // the moved buffers' firsts and lasts, sorted, distinct
    RangeMax tops;  // the highest end of the buffers that stay, by slot of `times` (see repack_top)
    Buffers top;    // the buffers moved, as a problem of their own (in def order)
    std::vector<std::size_t> floor, offset;
    GreedySpace greedy;
    OrderSpace orders;
    std::vector<std::uint32_t> order;  // the moved ones, in the greedy's order
};

// Takes the `r` buffers with the highest offsets in `offset` (ties: the
// lower index) and places them again, in decreasing size, each into the
// best or first gap among the moved ones it meets, no lower than the lowest
// old offset among them nor than the highest end of the buffers that stay
// and that it meets. The buffers that stay lie below the moved ones they
// meet (they start lower, and do not overlap), so each moved buffer's old
// offset is at or above its floor: the old placement is one the greedy
// could make. Offsets into `offset`; returns the arena, or no_offset once
// it reaches `give_up_at` (no_offset: never; `offset` is then as it was).
[[nodiscard]] inline std::size_t repack_top(const Buffers& b, std::size_t r, Fit fit, std::vector<std::size_t>& offset,
                                            RepackSpace& space, std::size_t give_up_at = no_offset) {
    const std::size_t n = b.count();
    auto& order = space.by_offset;
    order.clear();
    for (std::uint32_t i = 0; i < n; ++i)
        if (b.size[i] > 0) order.push_back(i);
    r = std::min(r, order.size());
    const auto higher = [&](std::uint32_t x, std::uint32_t y) { return offset[x] != offset[y] ? offset[x] > offset[y] : x < y; };
    std::nth_element(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(r), order.end(), higher);
    std::sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(r));  // the moved ones in def order

    // The moved ones go no lower than the lowest of them (`base`): only the
    // buffers that stay and reach above it can raise a floor.
    std::size_t arena = 0, base = r > 0 ? no_offset : 0;
    for (std::size_t k = 0; k < r; ++k) base = std::min(base, offset[order[k]]);
    // The tree spans slots, not positions: time t goes to twice the number
    // of the moved buffers' times below t, plus one if t is one of them.
    // The map keeps the order and sets each moved buffer's times apart from
    // every other time, so a buffer that stays meets a moved one exactly
    // when their slots do; the tree has at most 4r + 1 slots where the
    // positions may be n or more.
    auto& times = space.times;
    times.clear();
    for (std::size_t k = 0; k < r; ++k) {
        times.push_back(b.def[order[k]]);
        times.push_back(b.end[order[k]]);
    }
    sort_by(times, [](NodeIndex t) { return t; }, [](NodeIndex) { return std::uint64_t{0}; }, space.orders.sort);
    times.erase(std::unique(times.begin(), times.end()), times.end());
    const auto slot = [&times](NodeIndex t) {
        const auto below = static_cast<std::size_t>(std::lower_bound(times.begin(), times.end(), t) - times.begin());
        return 2 * below + (below < times.size() && times[below] == t ? 1 : 0);
    };
    space.tops.reset(2 * times.size() + 1);
    for (std::size_t k = r; k < order.size(); ++k) {
        const std::uint32_t y = order[k];
        arena = std::max(arena, offset[y] + b.size[y]);
        if (offset[y] + b.size[y] > base) space.tops.raise(slot(b.def[y]), slot(b.end[y]), offset[y] + b.size[y]);
    }
    if (reached(arena, give_up_at)) return no_offset;
    Buffers& top = space.top;
    for (auto* column : {&top.def, &top.end}) column->resize(r);
    for (auto* column : {&top.length, &top.size, &top.slack, &top.pin, &space.floor}) column->resize(r);
    top.value.resize(r);
    for (std::size_t k = 0; k < r; ++k) {
        const std::uint32_t x = order[k];
        top.value[k] = x;
        top.def[k] = b.def[x];
        top.end[k] = b.end[x];
        top.length[k] = b.length[x];
        top.size[k] = b.size[x];
        top.slack[k] = b.slack[x];
        top.pin[k] = no_offset;
        space.floor[k] = std::max(base, space.tops.largest(slot(b.def[x]), slot(b.end[x])));
    }
    compress_times(top);  // its times are the whole problem's: ranked, meeting_pairs costs O(r), not O(T)
    const bool scan = scan_placed(r, meeting_pairs(top, space.orders.ended));
    decreasing_order(top.size, top.length, space.orders.sort, space.order);
    const std::size_t moved = place_in_order(top, space.order, fit, scan, space.offset, space.greedy, space.floor, give_up_at);
    if (moved == no_offset) return no_offset;
    for (std::size_t k = 0; k < r; ++k) offset[order[k]] = space.offset[k];
    return std::max(arena, moved);
}

}  // namespace onnx_runtime_memory::detail
