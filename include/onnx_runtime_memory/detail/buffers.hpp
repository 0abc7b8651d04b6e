// The offset problem in columns, shared by the placement strategies.
#pragma once

#include <algorithm>
#include <cstddef>
#include <span>
#include <vector>

#include "../errors.hpp"
#include "../expected.hpp"
#include "../graph.hpp"
#include "../plan_types.hpp"
#include "checked.hpp"
#include "config.hpp"
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
ONNX_RUNTIME_MEMORY_CORE void compress_times(Buffers& b);

// Pinned records must not share bytes while both are live (sizes as placed,
// rounded up to the alignment).
ONNX_RUNTIME_MEMORY_CORE expected<void, PlanError> check_pins(Buffers& b);

// Fills b from buffer records in (first, index) order, the order the
// strategies expect (value[i]: the record's index), sizes rounded up to the
// alignment (>= 1); a size that cannot be rounded up, or a total that
// overflows, is PlanError::size_overflow naming the record. Records already
// in that order (a graph's owners) keep it. A pin off the alignment is
// PlanError::pin_misaligned, one so high that the highest pin's end plus
// the total of the sizes passes SIZE_MAX pin_too_high; two pinned records
// sharing bytes while both live are pins_overlap (value, other: the two
// records; node: a time both are live, as the caller gave it).
ONNX_RUNTIME_MEMORY_CORE expected<void, PlanError> make_buffers(std::span<const Buffer> buffers, std::size_t alignment,
                                                                Buffers& b);

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

#if !defined(ONNX_RUNTIME_MEMORY_SEPARATE_COMPILATION)
#include "columns.hpp"  // the code (else the compiled core's: src.hpp)
#endif
