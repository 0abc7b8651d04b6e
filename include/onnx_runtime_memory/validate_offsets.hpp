// validate_offsets: the graph-free layer's checker, in its own file as
// MiniMalloc keeps its validator: an offset plan against plain buffer
// records, believing nothing the plan says about itself. validate_arena
// (validate.hpp) checks a graph's arena through it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <span>
#include <vector>

#include "detail/checked.hpp"
#include "detail/lower_bounds.hpp"
#include "detail/treap.hpp"
#include "expected.hpp"
#include "plan_types.hpp"

namespace onnx_runtime_memory {

// Checks an offset plan against the buffers, believing nothing it says
// about itself but its offsets and arena_bytes: each buffer (in order) has
// an offset (MissingAssignment), a multiple of the `alignment` the caller
// needs (MisalignedOffset), ending inside arena_bytes (OutsideArena); no two
// buffers live at one time overlap in bytes (OffsetOverlap, the pair by
// index). `value` and `other` are buffer indices. Malformed records are
// PlanError::bad_buffer. O(n log n).
[[nodiscard]] inline expected<void, ValidateError> validate_offsets(std::span<const Buffer> buffers,
                                                                    const OffsetPlan& plan, std::size_t alignment) {
    using Kind = ValidateError::Kind;
    if (auto ok = detail::check_buffers(buffers); !ok) return unexpected(ValidateError::from(ok.error()));
    const auto fail = [](Kind kind, std::size_t a, std::size_t b = no_value) {
        ValidateError err;
        err.kind = kind;
        err.value = static_cast<ValueId>(a);
        err.other = static_cast<ValueId>(b);
        return unexpected(err);
    };
    alignment = detail::alignment_or_one(alignment);
    const std::size_t n = buffers.size();
    for (std::size_t i = 0; i < n; ++i) {
        if (i >= plan.offsets.size() || plan.offsets[i] == no_offset) return fail(Kind::missing_assignment, i);
        if (plan.offsets[i] % alignment != 0) return fail(Kind::misaligned_offset, i);
        std::size_t end = 0;
        if (detail::add_overflows(plan.offsets[i], buffers[i].size, end) || end > plan.arena_bytes)
            return fail(Kind::outside_arena, i);
    }
    // Sweep time with the live buffers ordered by offset: the set stays
    // disjoint in bytes as long as each newcomer clears its two neighbours.
    const auto& off = plan.offsets;
    const auto by_offset = [&](std::uint32_t a, std::uint32_t b) { return off[a] != off[b] ? off[a] < off[b] : a < b; };
    std::vector<std::uint32_t> by_first(n), by_last(n);
    std::iota(by_first.begin(), by_first.end(), 0u);
    std::iota(by_last.begin(), by_last.end(), 0u);
    std::stable_sort(by_first.begin(), by_first.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return buffers[a].first < buffers[b].first; });
    std::stable_sort(by_last.begin(), by_last.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return buffers[a].last < buffers[b].last; });
    detail::TreapIndex active;
    for (std::size_t next = 0, done = 0; next < n;) {
        const NodeIndex t = buffers[by_first[next]].first;
        for (; done < n && buffers[by_last[done]].last < t; ++done)
            if (buffers[by_last[done]].size != 0) active.erase(by_last[done], by_offset);
        for (; next < n && buffers[by_first[next]].first == t; ++next) {
            const std::uint32_t x = by_first[next];
            if (buffers[x].size == 0) continue;
            const std::uint32_t before = active.last_below([&](std::uint32_t y) { return by_offset(y, x); });
            const std::uint32_t after = active.first_not([&](std::uint32_t y) { return by_offset(y, x); });
            if (before != detail::TreapIndex::nil && off[before] + buffers[before].size > off[x])
                return fail(Kind::offset_overlap, std::min(before, x), std::max(before, x));
            if (after != detail::TreapIndex::nil && off[x] + buffers[x].size > off[after])
                return fail(Kind::offset_overlap, std::min(after, x), std::max(after, x));
            active.insert(x, by_offset);
        }
    }
    return {};
}

}  // namespace onnx_runtime_memory
