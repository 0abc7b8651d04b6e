// The offset problem in columns, shared by the placement strategies.
#pragma once

#include <algorithm>
#include <cstddef>
#include <numeric>
#include <span>
#include <vector>

#include "../errors.hpp"
#include "../expected.hpp"
#include "../graph.hpp"
#include "../plan_types.hpp"
#include "checked.hpp"
#include "lower_bounds.hpp"
#include "overlap.hpp"
#include "sort.hpp"

namespace onnx_runtime_memory::detail {

// The offset problem as the strategies see it: buffers with a time
// interval and a size rounded up to the alignment, by column. value[i] is
// the caller's id of buffer i (its index in a Buffer list, or an owner).
// Times are positions: the caller's, or, when those are sparse (more than
// four per buffer, as with real time stamps), their ranks among the
// distinct firsts and lasts, which keeps every overlap and makes the
// strategies that walk positions cost O(n), not O(time span).
struct Buffers {
    std::vector<ValueId> value;
    std::vector<NodeIndex> def, end;
    std::vector<std::size_t> length;  // the caller's lifetime, last - first + 1: what orders by lifetime use
    std::vector<std::size_t> size;   // rounded up to the alignment
    std::vector<std::size_t> slack;  // of which past the buffer's own bytes
    std::vector<std::size_t> pin;    // the pinned offset, or no_offset
    std::size_t pinned = 0;          // how many buffers are pinned
    std::size_t pinned_top = 0;      // the highest end of a pinned buffer, rounded up: the free ones go above
    std::size_t pinned_end = 0;      // the highest end of a pinned buffer's bytes: no arena is smaller
    std::vector<NodeIndex> times;    // working memory of compress_times (kept: re-planning allocates nothing)
    struct PinCheck {                // and of check_pins
        std::vector<Buffer> pins;
        std::vector<std::size_t> offsets;
        std::vector<ValueId> record;
        OverlapSpace overlap;
    } pin_check;
    SortSpace sort;  // and of make_buffers' sort by first use

    [[nodiscard]] std::size_t count() const noexcept { return value.size(); }
    [[nodiscard]] bool is_pinned(std::size_t i) const noexcept { return pin[i] != no_offset; }
    [[nodiscard]] bool overlap(std::size_t a, std::size_t b) const noexcept {
        return def[a] <= end[b] && def[b] <= end[a];
    }
    // One past the last position any buffer is live at: the span of time
    // the strategies walk.
    [[nodiscard]] std::size_t positions() const noexcept {
        std::size_t past = 0;
        for (const NodeIndex last : end) past = std::max<std::size_t>(past, std::size_t{last} + 1);
        return past;
    }
};


// Replaces sparse times by their ranks (see Buffers). O(n log n), and only
// when the time span exceeds four positions per buffer.
inline void compress_times(Buffers& b) {
    const std::size_t n = b.count();
    if (!sparse_times(b.positions(), n)) return;
    rank_times(n, [&](std::size_t i) -> NodeIndex& { return b.def[i]; }, [&](std::size_t i) -> NodeIndex& { return b.end[i]; },
               b.times);
}

// Pinned records must not share bytes while both are live (sizes as placed,
// rounded up to the alignment).
[[nodiscard]] inline expected<void, PlanError> check_pins(Buffers& b) {
    auto& [pins, offsets, record, overlap] = b.pin_check;
    pins.clear();
    offsets.clear();
    record.clear();
    for (std::size_t i = 0; i < b.count(); ++i)
        if (b.is_pinned(i)) {
            pins.push_back(Buffer{b.size[i], b.def[i], b.end[i]});
            offsets.push_back(b.pin[i]);
            record.push_back(b.value[i]);
        }
    const auto o = first_overlap(pins, offsets, overlap);
    if (!o) return {};
    PlanError e = make_plan_error(PlanError::Kind::pins_overlap, std::min(record[o->a], record[o->b]), o->at);
    e.other = std::max(record[o->a], record[o->b]);
    return unexpected(e);
}

// Fills b from buffer records in (first, index) order, the order the
// strategies expect (value[i]: the record's index), sizes rounded up to the
// alignment (>= 1); a size that cannot be rounded up, or a total that
// overflows, is PlanError::size_overflow naming the record. Records already
// in that order (a graph's owners) keep it. A pin off the alignment is
// PlanError::pin_misaligned, one so high that the highest pin's end plus
// the total of the sizes passes SIZE_MAX pin_too_high; two pinned records
// sharing bytes while both live are pins_overlap (value, other: the two
// records; node: a time both are live, as the caller gave it).
[[nodiscard]] inline expected<void, PlanError> make_buffers(std::span<const Buffer> buffers, std::size_t alignment,
                                                            Buffers& b) {
    const std::size_t n = buffers.size();
    b.value.resize(n);
    std::iota(b.value.begin(), b.value.end(), ValueId{0});
    if (!std::is_sorted(buffers.begin(), buffers.end(), [](const Buffer& x, const Buffer& y) { return x.first < y.first; }))
        sort_by(b.value, [&](ValueId v) { return buffers[v].first; }, [](ValueId) { return std::uint64_t{0}; }, b.sort);
    b.def.resize(n);
    b.end.resize(n);
    b.size.resize(n);
    b.slack.resize(n);
    b.length.resize(n);
    b.pin.resize(n);
    b.pinned = 0;
    b.pinned_top = 0;
    b.pinned_end = 0;
    std::size_t total = 0, highest_pin = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const Buffer& r = buffers[b.value[i]];
        b.def[i] = r.first;
        b.end[i] = r.last;
        b.length[i] = std::size_t{r.last} - r.first + 1;
        b.pin[i] = r.pinned;
        if (align_up_overflows(r.size, alignment, b.size[i]) || add_overflows(total, b.size[i], total))
            return unexpected(make_plan_error(PlanError::Kind::size_overflow, b.value[i]));
        b.slack[i] = b.size[i] - r.size;
        if (r.pinned == no_offset) continue;
        std::size_t top = 0;
        if (r.pinned % alignment != 0) return unexpected(make_plan_error(PlanError::Kind::pin_misaligned, b.value[i]));
        if (add_overflows(r.pinned, b.size[i], top))
            return unexpected(make_plan_error(PlanError::Kind::pin_too_high, b.value[i]));
        ++b.pinned;
        if (top > b.pinned_top) highest_pin = i;
        b.pinned_top = std::max(b.pinned_top, top);
        b.pinned_end = std::max(b.pinned_end, r.pinned + r.size);
    }
    // Every strategy's arena ends at most at the highest pin plus the total:
    // it must fit in a size_t, or a buffer placed above the pins would wrap.
    if (std::size_t most = 0; b.pinned > 0 && add_overflows(b.pinned_top, total, most))
        return unexpected(make_plan_error(PlanError::Kind::pin_too_high, b.value[highest_pin]));
    if (b.pinned > 0) {  // on the caller's times, before they are ranked: an error names one of them
        if (auto ok = check_pins(b); !ok) return ok;
    }
    compress_times(b);
    return {};
}

// The lower bound (see ArenaBound) on the (possibly compressed) positions,
// pins included: O(n + positions), times log(alignment) when some size is
// not a multiple of it. make_buffers checked the total.
[[nodiscard]] inline ArenaBound arena_bound(const Buffers& b, std::vector<std::size_t>& born,
                                            std::vector<std::size_t>& dying) {
    ArenaBound bound = arena_bound(b.def, b.end, b.size, b.slack, born, dying);
    return {std::max(bound.rounded, b.pinned_top), std::max(bound.bytes, b.pinned_end)};
}

// The result of the strategies on one buffer problem.
struct Placement {
    std::vector<std::size_t> offset;  // by buffer
    std::size_t arena = 0;
    ArenaStrategy strategy = ArenaStrategy::sweep;
    std::size_t proven = 0;  // no placement is smaller: the lower bound, raised by the exact search's proofs
};

// A bound proven on the rounded sizes (no placement's rounded arena is
// below it, Placement::proven) in the arena's own bytes: an arena ends at
// most the largest slack below its rounded end.
[[nodiscard]] inline std::size_t proven_bytes(const Buffers& b, const ArenaBound& bound, std::size_t proven) {
    if (proven <= bound.rounded) return bound.bytes;
    std::size_t most = 0;
    for (std::size_t s : b.slack) most = std::max(most, s);
    return std::max(bound.bytes, proven - std::min(proven, most));
}

// Settles a placement's empty buffers and returns where its arena ends:
// the highest end of a buffer's own bytes (the rounding of the top one is
// not needed). An empty buffer meets nothing but, like any buffer, lies in
// the arena (offset <= arena_bytes): a free one goes to offset 0, wherever
// a strategy put it, and a pinned one stays at its pin, which the arena
// then reaches (as the bound does: Buffers::pinned_end).
[[nodiscard]] inline std::size_t settle_arena(const Buffers& b, std::vector<std::size_t>& offset) {
    std::size_t end = 0;
    for (std::size_t i = 0; i < b.count(); ++i) {
        if (b.size[i] == 0 && !b.is_pinned(i)) offset[i] = 0;
        end = std::max(end, offset[i] + (b.size[i] - b.slack[i]));
    }
    return end;
}

}  // namespace onnx_runtime_memory::detail
