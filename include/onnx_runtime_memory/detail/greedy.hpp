// The greedy strategies: buffers in a fixed order (size, lifetime, area or
// conflicts, each decreasing), each into the best or first gap among the
// placed buffers it meets in time. Pinned buffers are placed first, where
// the caller put them. O((n + P) log n), P the pairs of buffers that meet.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <numeric>
#include <utility>
#include <vector>

#include "../plan_types.hpp"
#include "buffers.hpp"
#include "sort.hpp"

namespace onnx_runtime_memory::detail {

enum class Fit : std::uint8_t { best, first };

// The placed buffers, found by time. Buffers are in def order, so the ones
// that meet x are the placed y below the first index whose def is past
// end[x], with end[y] >= def[x]: a segment tree over buffer index keeps the
// largest end + 1 of the placed ones below each node (0: none placed), and a
// search descends only where that reaches def[x]. O(log n) per buffer found.
class PlacedIndex {
public:
    void reset(std::size_t n) {
        leaves_ = 1;
        while (leaves_ < n) leaves_ *= 2;
        top_.assign(2 * leaves_, 0);
    }
    void insert(std::size_t i, NodeIndex end) {
        std::size_t p = leaves_ + i;
        top_[p] = std::uint64_t{end} + 1;
        for (p /= 2; p > 0; p /= 2) top_[p] = std::max(top_[2 * p], top_[2 * p + 1]);
    }
    // Calls f(y) for every placed y < limit whose end is at least t.
    template <class F>
    void for_each_meeting(std::size_t limit, NodeIndex t, F&& f) const {
        struct Range {
            std::size_t node, lo, width;
        };
        std::array<Range, 2 * 64> stack{};  // depth <= 64; each pop pushes at most two
        std::size_t depth = 0;
        stack[depth++] = {1, 0, leaves_};
        while (depth > 0) {
            const Range r = stack[--depth];
            if (r.lo >= limit || top_[r.node] <= t) continue;
            if (r.width == 1) {
                f(r.lo);
                continue;
            }
            const std::size_t half = r.width / 2;
            stack[depth++] = {2 * r.node + 1, r.lo + half, half};
            stack[depth++] = {2 * r.node, r.lo, half};  // lower indices first
        }
    }

private:
    std::size_t leaves_ = 1;
    std::vector<std::uint64_t> top_;
};

// Kept memory of the greedy passes.
struct GreedySpace {
    PlacedIndex placed;
    std::vector<std::pair<std::size_t, std::size_t>> meeting;  // [offset, end) of the placed buffers x meets
};

// Places buffers in `order` (pinned ones are skipped: they sit at their
// pin, placed before the rest), each into the best (smallest, then lowest)
// or first (lowest) gap among the placed buffers it meets in time, else
// above them all. Returns the arena: the highest end.
[[nodiscard]] inline std::size_t place_in_order(const Buffers& b, const std::vector<std::uint32_t>& order, Fit fit,
                                                std::vector<std::size_t>& offset, GreedySpace& space) {
    const std::size_t n = b.count();
    offset.assign(n, 0);
    space.placed.reset(n);
    std::size_t arena = 0;
    for (std::size_t x = 0; x < n; ++x)
        if (b.is_pinned(x)) {
            offset[x] = b.pin[x];
            if (b.size[x] == 0) continue;
            arena = std::max(arena, offset[x] + b.size[x]);
            space.placed.insert(x, b.end[x]);
        }
    auto& meeting = space.meeting;
    for (std::uint32_t x : order) {
        const std::size_t need = b.size[x];
        if (need == 0 || b.is_pinned(x)) continue;
        meeting.clear();
        const auto limit = static_cast<std::size_t>(std::upper_bound(b.def.begin(), b.def.end(), b.end[x]) - b.def.begin());
        space.placed.for_each_meeting(limit, b.def[x], [&](std::size_t y) { meeting.emplace_back(offset[y], offset[y] + b.size[y]); });
        std::sort(meeting.begin(), meeting.end());
        std::size_t cursor = 0, chosen = no_offset, chosen_gap = no_offset;
        for (const auto& [lo, hi] : meeting) {
            if (lo > cursor && lo - cursor >= need && lo - cursor < chosen_gap) {
                chosen = cursor;
                chosen_gap = lo - cursor;
                if (fit == Fit::first) break;
            }
            cursor = std::max(cursor, hi);
        }
        offset[x] = chosen != no_offset ? chosen : cursor;
        arena = std::max(arena, offset[x] + need);
        space.placed.insert(x, b.end[x]);
    }
    return arena;
}

// For each buffer, the number (count) and total size (bytes) of the other
// buffers it meets in time; y meets x iff def[y] <= end[x] and end[y] >=
// def[x]. Prefix sums over def order (the buffers' own) and end order give
// each in O(log n). make_buffers checked that the sizes' total fits.
struct Meetings {
    std::vector<std::size_t> count, bytes;
    std::uint64_t pairs = 0;  // unordered pairs that meet
};
[[nodiscard]] inline Meetings meetings(const Buffers& b) {
    const std::size_t n = b.count();
    std::vector<std::uint32_t> order(n);
    std::iota(order.begin(), order.end(), 0u);
    sort_by(order, [&](std::uint32_t x) { return b.end[x]; });  // ties in any order would do
    std::vector<std::size_t> ends(n), def_bytes(n + 1, 0), end_bytes(n + 1, 0);
    for (std::size_t i = 0; i < n; ++i) {
        ends[i] = b.end[order[i]];
        def_bytes[i + 1] = def_bytes[i] + b.size[i];
        end_bytes[i + 1] = end_bytes[i] + b.size[order[i]];
    }
    Meetings m;
    m.count.resize(n);
    m.bytes.resize(n);
    std::uint64_t twice = 0;
    for (std::size_t x = 0; x < n; ++x) {
        const auto started = static_cast<std::size_t>(std::upper_bound(b.def.begin(), b.def.end(), b.end[x]) - b.def.begin());
        const auto ended = static_cast<std::size_t>(std::lower_bound(ends.begin(), ends.end(), std::size_t{b.def[x]}) - ends.begin());
        m.count[x] = started - ended - 1;  // every y that ended before def[x] also started before it
        m.bytes[x] = def_bytes[started] - end_bytes[ended] - b.size[x];
        twice += m.count[x];
    }
    m.pairs = twice / 2;
    return m;
}

// The four greedy orders: decreasing size, lifetime, area and conflicts
// (the total size of the buffers it meets), ties to the earlier buffer.
[[nodiscard]] inline std::vector<std::vector<std::uint32_t>> greedy_orders(const Buffers& b, const Meetings& m) {
    const std::size_t n = b.count();
    constexpr std::size_t max = std::numeric_limits<std::size_t>::max();
    const std::vector<std::size_t>& length = b.length;
    std::vector<std::size_t> area(n);
    for (std::size_t i = 0; i < n; ++i) {
        area[i] = b.size[i] != 0 && length[i] > max / b.size[i] ? max : b.size[i] * length[i];
    }
    const auto by = [&](const std::vector<std::size_t>& first, const std::vector<std::size_t>& second) {
        std::vector<std::uint32_t> order(n);
        std::iota(order.begin(), order.end(), 0u);
        sort_by(order, [&](std::uint32_t x) { return descending(first[x]); }, [&](std::uint32_t x) { return descending(second[x]); });
        return order;
    };
    return {by(b.size, length), by(length, b.size), by(area, b.size), by(m.bytes, b.size)};
}

}  // namespace onnx_runtime_memory::detail
