// The greedy strategies: buffers in a fixed order (size, lifetime, area or
// conflicts, each decreasing), each into the best or first gap among the
// placed buffers it meets in time. Pinned buffers are placed first, where
// the caller put them. O((n + P) log n), P the pairs of buffers that meet,
// or O(n^2) with few operations where P is near that (where the first fits
// go through first_fit.hpp instead).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <numeric>
#include <span>
#include <utility>
#include <vector>

#include "../plan_types.hpp"
#include "buffers.hpp"
#include "checked.hpp"
#include "max_tree.hpp"
#include "sort.hpp"

namespace onnx_runtime_memory::detail {

enum class Fit : std::uint8_t { best, first };

// Kept memory of the greedy passes.
struct GreedySpace {
    // The placed buffers, found by time. Buffers are in def order, so the
    // ones that meet x are the placed y below the first index whose def is
    // past end[x], with end[y] >= def[x]: by buffer index, the end + 1 of
    // each placed one (0: not placed). O(log n) per buffer found.
    MaxTree placed;
    std::vector<std::pair<std::size_t, std::size_t>> meeting;  // [offset, end) of the placed buffers x meets
    struct Placed {
        std::size_t lo, hi;  // [offset, end)
        NodeIndex def, end;
    };
    std::vector<Placed> by_offset;  // every placed buffer, by offset (when scanning)
    std::vector<std::uint32_t> met;  // the scan's finds, by position in by_offset
};

// The gap a buffer of `need` bytes takes at or above `floor` among the [lo,
// hi) blocks given in increasing lo (ties in any order: a block at the same
// lo as one before it starts below the cursor, so it opens no gap): the
// best (smallest, then lowest) or first (lowest) one, else the top of them
// all (at least the floor).
class GapChoice {
public:
    GapChoice(std::size_t need, Fit fit, std::size_t floor = 0) : need_(need), cursor_(floor), fit_(fit) {}
    // False once the choice is final (the first fit found).
    bool block(std::size_t lo, std::size_t hi) {
        if (lo > cursor_ && lo - cursor_ >= need_ && lo - cursor_ < chosen_gap_) {
            chosen_ = cursor_;
            chosen_gap_ = lo - cursor_;
            if (fit_ == Fit::first) return false;
        }
        cursor_ = std::max(cursor_, hi);
        return true;
    }
    [[nodiscard]] std::size_t offset() const { return chosen_ != no_offset ? chosen_ : cursor_; }

private:
    std::size_t need_, cursor_, chosen_ = no_offset, chosen_gap_ = no_offset;
    Fit fit_;
};

// Whether the greedy passes should scan every placed buffer rather than
// find the ones that meet by time: where most pairs meet (`pairs` above
// n^2 / 64), the scan is the cheaper (a plan of the bench's 1,000-buffer
// random DAG takes 1.6 ms with it, 12.7 ms without).
[[nodiscard]] constexpr bool scan_placed(std::size_t n, std::uint64_t pairs) noexcept {
    return n > 0 && pairs / n >= n / 64;
}

// Places buffers in `order` (pinned ones are skipped: they sit at their
// pin, placed before the rest), each into the best (smallest, then lowest)
// or first (lowest) gap among the placed buffers it meets in time, else
// above them all; with `floor` (by buffer), at or above floor[x]. Returns
// the arena: the highest end; or no_offset once it reaches `give_up_at`
// (no_offset: never; the arena only grows, and only a smaller one is kept).
//
// Two ways to find the placed buffers a buffer meets, with the same
// result: the index by time, then a sort by offset, O(k log n) for k
// found; or, with `scan` (see scan_placed), a scan of every placed buffer
// in offset order, O(n) with no sort, as TFLite's greedy does.
[[nodiscard]] inline std::size_t place_in_order(const Buffers& b, const std::vector<std::uint32_t>& order, Fit fit,
                                                bool scan, std::vector<std::size_t>& offset, GreedySpace& space,
                                                std::span<const std::size_t> floor = {},
                                                std::size_t give_up_at = no_offset) {
    const std::size_t n = b.count();
    offset.assign(n, 0);
    space.placed.reset(scan ? 0 : n);
    auto& by_offset = space.by_offset;
    by_offset.clear();
    const auto insert = [&](std::uint32_t x) {
        if (!scan) {
            space.placed.set(x, std::uint64_t{b.end[x]} + 1);
            return;
        }
        const GreedySpace::Placed p{offset[x], offset[x] + b.size[x], b.def[x], b.end[x]};
        const auto at = std::upper_bound(by_offset.begin(), by_offset.end(), p.lo,
                                         [](std::size_t lo, const GreedySpace::Placed& q) { return lo < q.lo; });
        by_offset.insert(at, p);
    };
    std::size_t arena = 0;
    for (std::uint32_t x = 0; x < n; ++x)
        if (b.is_pinned(x)) {
            offset[x] = b.pin[x];
            if (b.size[x] == 0) continue;
            arena = std::max(arena, offset[x] + b.size[x]);
            insert(x);
        }
    if (reached(arena, give_up_at)) return no_offset;
    auto& meeting = space.meeting;
    for (std::uint32_t x : order) {
        const std::size_t need = b.size[x];
        if (need == 0 || b.is_pinned(x)) continue;
        GapChoice gap(need, fit, floor.empty() ? 0 : floor[x]);
        if (scan) {
            // The ones x meets, listed without a branch on each (the test is
            // a coin toss on these problems: a branch would mispredict).
            auto& met = space.met;
            met.resize(by_offset.size());
            const NodeIndex def = b.def[x], end = b.end[x];
            std::size_t count = 0;
            for (std::size_t k = 0; k < by_offset.size(); ++k) {
                met[count] = static_cast<std::uint32_t>(k);
                const GreedySpace::Placed& y = by_offset[k];
                count += static_cast<std::size_t>(y.def <= end) & static_cast<std::size_t>(y.end >= def);
            }
            for (std::size_t k = 0; k < count; ++k)
                if (!gap.block(by_offset[met[k]].lo, by_offset[met[k]].hi)) break;
        } else {
            meeting.clear();
            const auto limit = static_cast<std::size_t>(std::upper_bound(b.def.begin(), b.def.end(), b.end[x]) - b.def.begin());
            space.placed.each_at_least(0, limit - 1, std::uint64_t{b.def[x]} + 1,  // limit > x: x starts before it ends
                                       [&](std::size_t y) { meeting.emplace_back(offset[y], offset[y] + b.size[y]); });
            std::sort(meeting.begin(), meeting.end());
            for (const auto& [lo, hi] : meeting)
                if (!gap.block(lo, hi)) break;
        }
        offset[x] = gap.offset();
        arena = std::max(arena, offset[x] + need);
        if (reached(arena, give_up_at)) return no_offset;
        insert(x);
    }
    return arena;
}

// Working memory of the orders and their keys: a caller that plans again
// and again (PlaceSpace) keeps one, and once it has grown an order
// allocates nothing.
struct OrderSpace {
    SortSpace sort;
    std::vector<std::size_t> key;             // by buffer: area or peak load
    std::vector<std::size_t> started, ended;  // by position
    MaxTree by_position;
};

// For each buffer, the total size of the other buffers it meets in time
// (the conflicts order's key); y meets x iff def[y] <= end[x] and end[y] >=
// def[x]. Every y that ended before def[x] also started before it, so x
// meets those started by end[x] less those ended before def[x], less
// itself: prefix sums over positions give each in O(1), O(n + positions) in
// all (positions <= 4n once make_buffers compressed the times).
// make_buffers checked that the sizes' total fits.
inline void meetings(const Buffers& b, std::vector<std::size_t>& bytes, OrderSpace& space) {
    const std::size_t n = b.count(), positions = b.positions();
    // At t + 1: the bytes of the buffers started by t, and of those ended by t.
    auto &started = space.started, &ended = space.ended;
    started.assign(positions + 1, 0);
    ended.assign(positions + 1, 0);
    for (std::size_t i = 0; i < n; ++i) {
        started[std::size_t{b.def[i]} + 1] += b.size[i];
        ended[std::size_t{b.end[i]} + 1] += b.size[i];
    }
    for (std::size_t t = 1; t <= positions; ++t) {
        started[t] += started[t - 1];
        ended[t] += ended[t - 1];
    }
    bytes.resize(n);
    for (std::size_t x = 0; x < n; ++x)
        bytes[x] = started[std::size_t{b.end[x]} + 1] - ended[b.def[x]] - b.size[x];
}
struct Meetings {
    std::vector<std::size_t> bytes;
};
[[nodiscard]] inline Meetings meetings(const Buffers& b) {
    Meetings m;
    OrderSpace space;
    meetings(b, m.bytes, space);
    return m;
}

// The unordered pairs of buffers that meet: buffers in def order, y < x
// meets x iff end[y] >= def[x], and every y whose end is below def[x] comes
// before x, so x meets x minus that many of the earlier ones. O(n +
// positions), no sort: what the greedy passes' prediction and scan_placed
// need. `ended`: working memory.
[[nodiscard]] inline std::uint64_t meeting_pairs(const Buffers& b, std::vector<std::size_t>& ended) {
    ended.assign(b.positions() + 1, 0);  // ended[t]: buffers whose end is below t
    for (const NodeIndex e : b.end) ++ended[std::size_t{e} + 1];
    for (std::size_t t = 1; t < ended.size(); ++t) ended[t] += ended[t - 1];
    std::uint64_t pairs = 0;
    for (std::size_t x = 0; x < b.count(); ++x) pairs += x - ended[b.def[x]];
    return pairs;
}
[[nodiscard]] inline std::uint64_t meeting_pairs(const Buffers& b) {
    std::vector<std::size_t> ended;
    return meeting_pairs(b, ended);
}

// The buffers by decreasing `first`, then decreasing `second`, then index.
inline void decreasing_order(const std::vector<std::size_t>& first, const std::vector<std::size_t>& second,
                             SortSpace& space, std::vector<std::uint32_t>& order) {
    order.resize(first.size());
    std::iota(order.begin(), order.end(), 0u);
    sort_by(order, [&](std::uint32_t x) { return descending(first[x]); }, [&](std::uint32_t x) { return descending(second[x]); },
            space);
}

// Decreasing size, equal sizes in order of first use (as TFLite's greedy by
// size).
inline void size_order(const Buffers& b, SortSpace& space, std::vector<std::uint32_t>& order) {
    order.resize(b.count());
    std::iota(order.begin(), order.end(), 0u);
    sort_by(order, [&](std::uint32_t x) { return descending(b.size[x]); }, [](std::uint32_t) { return std::uint64_t{0}; },
            space);
}
[[nodiscard]] inline std::vector<std::uint32_t> size_order(const Buffers& b) {
    std::vector<std::uint32_t> order;
    SortSpace space;
    size_order(b, space, order);
    return order;
}

// Decreasing size, equal sizes by decreasing peak load (the most bytes
// live at one position of their lifetime: the most crowded first), then in
// order of first use. The first fit in this order ended below the first
// fit in size_order on 18, level on 8 and above it on 4 of the bench's
// random DAGs of 5k, 10k and 20k nodes (ten seeds each; 0.40% above the
// bound on average against 0.51%). O(n log positions + positions).
inline void size_peak_order(const Buffers& b, OrderSpace& space, std::vector<std::uint32_t>& order) {
    const std::size_t n = b.count(), positions = b.positions();
    auto& load = space.started;  // by position, once summed: the bytes live there
    load.assign(positions + 1, 0);
    for (std::size_t i = 0; i < n; ++i) {
        load[b.def[i]] += b.size[i];
        load[std::size_t{b.end[i]} + 1] -= b.size[i];  // wraps, and the sum below wraps back
    }
    for (std::size_t t = 1; t < positions; ++t) load[t] += load[t - 1];
    load.pop_back();
    space.by_position.assign(load);
    auto& peak = space.key;
    peak.resize(n);
    for (std::size_t i = 0; i < n; ++i) peak[i] = space.by_position.highest(b.def[i], b.end[i]);
    decreasing_order(b.size, peak, space.sort, order);
}
[[nodiscard]] inline std::vector<std::uint32_t> size_peak_order(const Buffers& b) {
    std::vector<std::uint32_t> order;
    OrderSpace space;
    size_peak_order(b, space, order);
    return order;
}

// The five greedy orders, by index: decreasing 0 size, 1 lifetime, 2 area
// and 3 conflicts (the total size of the buffers it meets), each with ties
// to the larger second key (length, or size) then to the earlier buffer;
// and 4 size_order. Only the conflicts order reads `meeting_bytes`
// (meetings).
inline void greedy_order(const Buffers& b, const std::vector<std::size_t>& meeting_bytes, std::size_t which,
                         OrderSpace& space, std::vector<std::uint32_t>& order) {
    const std::vector<std::size_t>& length = b.length;
    switch (which) {
    case 0: return decreasing_order(b.size, length, space.sort, order);
    case 1: return decreasing_order(length, b.size, space.sort, order);
    case 2: {
        constexpr std::size_t max = std::numeric_limits<std::size_t>::max();
        auto& area = space.key;
        area.resize(b.count());
        for (std::size_t i = 0; i < area.size(); ++i)
            area[i] = b.size[i] != 0 && length[i] > max / b.size[i] ? max : b.size[i] * length[i];
        return decreasing_order(area, b.size, space.sort, order);
    }
    case 3: return decreasing_order(meeting_bytes, b.size, space.sort, order);
    default: return size_order(b, space.sort, order);
    }
}

[[nodiscard]] inline std::vector<std::vector<std::uint32_t>> greedy_orders(const Buffers& b, const Meetings& m) {
    std::vector<std::vector<std::uint32_t>> orders(5);
    OrderSpace space;
    for (std::size_t which = 0; which < 5; ++which) greedy_order(b, m.bytes, which, space, orders[which]);
    return orders;
}

}  // namespace onnx_runtime_memory::detail
