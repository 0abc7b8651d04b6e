// The sweep strategy: offsets in execution order, best fit. O(n log n).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <vector>

#include "buffers.hpp"
#include "treap.hpp"

namespace onnx_runtime_memory::detail {

// In execution order: allocate each buffer at its def into the best-fitting
// free gap (smallest, then lowest), else at the top; free it after its last
// use, merging free neighbours. Pinned buffers stay at their pins, and the
// others go above them all. Free gaps live in two treap indexes (by
// size, by offset) over a pool of gap ids. O(n log n).
// The sweep's working memory, kept by a caller that sweeps again and again
// (ArenaPlanner): after the first sweep of a size, none allocates.
struct SweepSpace {
    std::vector<std::size_t> gap_off, gap_size;
    std::vector<std::uint32_t> spare;   // gap ids to reuse
    std::vector<std::uint32_t> by_end;  // buffers by end (stable), by counting sort
    std::vector<std::uint32_t> count;   // by position
    TreapIndex by_size, by_off;
};

[[nodiscard]] inline std::size_t sweep(const Buffers& b, std::vector<std::size_t>& offset, SweepSpace& space) {
    const std::size_t n = b.count();
    offset.assign(n, 0);
    auto& [gap_off, gap_size, spare, by_end, count, by_size, by_off] = space;
    gap_off.clear();
    gap_size.clear();
    spare.clear();
    by_size.clear();
    by_off.clear();
    const auto size_less = [&](std::uint32_t x, std::uint32_t y) {
        return gap_size[x] != gap_size[y] ? gap_size[x] < gap_size[y] : gap_off[x] < gap_off[y];
    };
    const auto off_less = [&](std::uint32_t x, std::uint32_t y) { return gap_off[x] < gap_off[y]; };
    const auto add_gap = [&](std::size_t off, std::size_t size) {
        std::uint32_t id;
        if (spare.empty()) {
            id = static_cast<std::uint32_t>(gap_off.size());
            gap_off.push_back(off);
            gap_size.push_back(size);
        } else {
            id = spare.back();
            spare.pop_back();
            gap_off[id] = off;
            gap_size[id] = size;
        }
        by_size.insert(id, size_less);
        by_off.insert(id, off_less);
    };
    const auto drop_gap = [&](std::uint32_t id) {
        by_size.erase(id, size_less);
        by_off.erase(id, off_less);
        spare.push_back(id);
    };
    // Buffers by def (they are in (def, id) order already) and by end,
    // ties in buffer order: a counting sort over positions.
    std::size_t positions = 0;
    for (std::size_t i = 0; i < n; ++i) positions = std::max<std::size_t>(positions, std::size_t{b.end[i]} + 1);
    count.assign(positions + 1, 0);
    for (std::size_t i = 0; i < n; ++i) ++count[std::size_t{b.end[i]} + 1];
    for (std::size_t p = 1; p <= positions; ++p) count[p] += count[p - 1];
    by_end.resize(n);
    for (std::size_t i = 0; i < n; ++i) by_end[count[b.end[i]]++] = static_cast<std::uint32_t>(i);

    // Pinned buffers stay where they are; the rest go above the highest pin.
    std::size_t top = b.pinned_top, arena = b.pinned_top, next = 0, done = 0;
    while (next < n || done < n) {
        const NodeIndex p = next < n ? std::min(b.def[next], b.end[by_end[done]]) : b.end[by_end[done]];
        for (; next < n && b.def[next] == p; ++next) {
            const std::size_t need = b.size[next];
            if (b.is_pinned(next)) offset[next] = b.pin[next];
            if (need == 0 || b.is_pinned(next)) continue;  // takes no bytes (offset 0), or is placed
            const std::uint32_t g = by_size.first_not([&](std::uint32_t x) { return gap_size[x] < need; });
            if (g != TreapIndex::nil) {
                offset[next] = gap_off[g];
                const std::size_t off = gap_off[g] + need, rest = gap_size[g] - need;
                drop_gap(g);
                if (rest > 0) add_gap(off, rest);
            } else {
                offset[next] = top;
                top += need;
                arena = std::max(arena, top);
            }
        }
        for (; done < n && b.end[by_end[done]] == p; ++done) {
            const std::uint32_t x = by_end[done];
            if (b.size[x] == 0 || b.is_pinned(x)) continue;
            std::size_t off = offset[x], size = b.size[x];
            const std::uint32_t before = by_off.last_below([&](std::uint32_t y) { return gap_off[y] < off; });
            if (before != TreapIndex::nil && gap_off[before] + gap_size[before] == off) {
                off = gap_off[before];
                size += gap_size[before];
                drop_gap(before);
            }
            const std::uint32_t after = by_off.first_not([&](std::uint32_t y) { return gap_off[y] < off + size; });
            if (after != TreapIndex::nil && gap_off[after] == off + size) {
                size += gap_size[after];
                drop_gap(after);
            }
            if (off + size == top) top = off;  // the top of the arena is free again
            else add_gap(off, size);
        }
    }
    return arena;
}

[[nodiscard]] inline std::size_t sweep(const Buffers& b, std::vector<std::size_t>& offset) {
    SweepSpace space;
    return sweep(b, offset, space);
}

}  // namespace onnx_runtime_memory::detail
