// The overlap sweep: the code behind overlap.hpp's declarations (part of the compiled
// core, config.hpp).
#pragma once

#include "config.hpp"
#if defined(ONNX_RUNTIME_MEMORY_SEPARATE_COMPILATION) && !defined(ONNX_RUNTIME_MEMORY_SOURCE)
#error "detail/overlap_sweep.hpp is the compiled core's: include detail/overlap.hpp (src.hpp defines the core once)"
#endif

#include "overlap.hpp"

namespace onnx_runtime_memory::detail {

ONNX_RUNTIME_MEMORY_CORE std::optional<Overlap> first_overlap(std::span<const Buffer> buffers,
                                                         std::span<const std::size_t> off, OverlapSpace& space) {
    const std::size_t n = buffers.size();
    const auto by_offset = [&](std::uint32_t a, std::uint32_t b) { return off[a] != off[b] ? off[a] < off[b] : a < b; };
    auto& by_first = space.by_first;
    auto& by_last = space.by_last;
    by_first.resize(n);
    by_last.resize(n);
    std::iota(by_first.begin(), by_first.end(), 0u);
    std::iota(by_last.begin(), by_last.end(), 0u);
    // Ties by index, so the order is the stable one; std::sort allocates nothing.
    std::sort(by_first.begin(), by_first.end(), [&](std::uint32_t x, std::uint32_t y) {
        return buffers[x].first != buffers[y].first ? buffers[x].first < buffers[y].first : x < y;
    });
    std::sort(by_last.begin(), by_last.end(), [&](std::uint32_t x, std::uint32_t y) {
        return buffers[x].last != buffers[y].last ? buffers[x].last < buffers[y].last : x < y;
    });
    const auto pair = [](std::uint32_t x, std::uint32_t y, NodeIndex t) {
        return Overlap{std::min(x, y), std::max(x, y), t};
    };
    TreapIndex& active = space.active;
    active.clear();
    for (std::size_t next = 0, done = 0; next < n;) {
        const NodeIndex t = buffers[by_first[next]].first;
        for (; done < n && buffers[by_last[done]].last < t; ++done)
            if (buffers[by_last[done]].size != 0) active.erase(by_last[done], by_offset);
        for (; next < n && buffers[by_first[next]].first == t; ++next) {
            const std::uint32_t x = by_first[next];
            if (buffers[x].size == 0) continue;
            const std::uint32_t before = active.last_below([&](std::uint32_t y) { return by_offset(y, x); });
            const std::uint32_t after = active.first_not([&](std::uint32_t y) { return by_offset(y, x); });
            if (before != TreapIndex::nil && off[before] + buffers[before].size > off[x]) return pair(before, x, t);
            if (after != TreapIndex::nil && off[x] + buffers[x].size > off[after]) return pair(after, x, t);
            active.insert(x, by_offset);
        }
    }
    return std::nullopt;
}

ONNX_RUNTIME_MEMORY_CORE std::optional<Overlap> first_overlap(std::span<const Buffer> buffers,
                                                         std::span<const std::size_t> off) {
    OverlapSpace space;
    return first_overlap(buffers, off, space);
}

}  // namespace onnx_runtime_memory::detail
