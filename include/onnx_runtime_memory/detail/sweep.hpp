// The sweep strategy: offsets in execution order, best fit. O(n log n).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <utility>
#include <vector>

#include "buffers.hpp"
#include "treap.hpp"

namespace onnx_runtime_memory::detail {

// The free gaps below the top of the arena. A sweep usually has a handful
// (four on average on the bench's graphs), so they live in a small vector
// sorted by offset, scanned for the best fit; past `many` gaps they move to
// two treap indexes (by size, by offset) over a pool of gap ids, O(log g)
// each, and back below `few`. Both give the same answers: the smallest gap
// that fits, the lowest among equals; the neighbours of a freed block.
class FreeGaps {
    // The treaps' orders (first: their bodies must precede their uses).
    [[nodiscard]] auto size_less() const {
        return [this](std::uint32_t x, std::uint32_t y) {
            return gap_size_[x] != gap_size_[y] ? gap_size_[x] < gap_size_[y] : gap_off_[x] < gap_off_[y];
        };
    }
    [[nodiscard]] auto off_less() const {
        return [this](std::uint32_t x, std::uint32_t y) { return gap_off_[x] < gap_off_[y]; };
    }

public:
    void clear() {
        small_.clear();
        gap_off_.clear();
        gap_size_.clear();
        spare_.clear();
        by_size_.clear();
        by_off_.clear();
        treaps_ = false;
    }

    // Takes `need` bytes from the bottom of the best-fitting gap; false if
    // no gap holds them. What is left of the gap keeps its place by offset.
    bool take(std::size_t need, std::size_t& off) {
        if (!treaps_) {
            std::size_t best = small_.size();
            for (std::size_t i = 0; i < small_.size(); ++i)
                if (small_[i].second >= need && (best == small_.size() || small_[i].second < small_[best].second)) best = i;
            if (best == small_.size()) return false;
            off = small_[best].first;
            if (small_[best].second == need) small_.erase(small_.begin() + static_cast<std::ptrdiff_t>(best));
            else small_[best] = {off + need, small_[best].second - need};
            return true;
        }
        const std::uint32_t g = by_size_.first_not([&](std::uint32_t x) { return gap_size_[x] < need; });
        if (g == TreapIndex::nil) return false;
        off = gap_off_[g];
        if (gap_size_[g] == need) drop(g);
        else resize(g, off + need, gap_size_[g] - need);
        return true;
    }

    // Frees [off, off + size), merged with the free gaps touching it; returns
    // the new top of the arena, `top` unless the block reaches it (no gap
    // ever does: a block freed there lowers the top).
    [[nodiscard]] std::size_t release(std::size_t off, std::size_t size, std::size_t top) {
        if (!treaps_) {
            auto at = std::lower_bound(small_.begin(), small_.end(), off,
                                       [](const std::pair<std::size_t, std::size_t>& g, std::size_t o) { return g.first < o; });
            if (at != small_.begin() && std::prev(at)->first + std::prev(at)->second == off) {
                --at;  // joins the gap below
                off = at->first;
                size += at->second;
                if (std::next(at) != small_.end() && std::next(at)->first == off + size) {
                    size += std::next(at)->second;
                    small_.erase(std::next(at));
                }
            } else if (at != small_.end() && at->first == off + size) {
                size += at->second;  // joins the gap above
            } else {
                if (off + size == top) return off;
                small_.insert(at, {off, size});
                if (small_.size() > many) to_treaps();
                return top;
            }
            if (off + size == top) {
                small_.erase(at);
                return off;
            }
            *at = {off, size};
            return top;
        }
        const std::uint32_t below = by_off_.last_below([&](std::uint32_t y) { return gap_off_[y] < off; });
        const std::uint32_t above = by_off_.first_not([&](std::uint32_t y) { return gap_off_[y] < off + size; });
        const bool joins_above = above != TreapIndex::nil && gap_off_[above] == off + size;
        const bool joins_below = below != TreapIndex::nil && gap_off_[below] + gap_size_[below] == off;
        if (joins_above) size += gap_size_[above];
        if (joins_below) {
            off = gap_off_[below];
            size += gap_size_[below];
        }
        // A joined gap becomes the merged block (its place by offset holds); the other one goes.
        const std::uint32_t kept = joins_below ? below : joins_above ? above : TreapIndex::nil;
        if (joins_below && joins_above) drop(above);
        if (kept == TreapIndex::nil) {
            if (off + size != top) add(off, size);
        } else if (off + size == top) {
            drop(kept);
        } else {
            resize(kept, off, size);
        }
        if (count() < few) to_small();
        return off + size == top ? off : top;
    }

private:
    static constexpr std::size_t many = 64, few = 16;  // apart, so that moving back and forth is rare

    [[nodiscard]] std::size_t count() const { return gap_off_.size() - spare_.size(); }
    // A new gap in the treaps.
    void add(std::size_t off, std::size_t size) {
        std::uint32_t id;
        if (spare_.empty()) {
            id = static_cast<std::uint32_t>(gap_off_.size());
            gap_off_.push_back(off);
            gap_size_.push_back(size);
        } else {
            id = spare_.back();
            spare_.pop_back();
            gap_off_[id] = off;
            gap_size_[id] = size;
        }
        by_size_.insert(id, size_less());
        by_off_.insert(id, off_less());
    }
    // A gap's new bounds, between the same neighbours: its place by offset stays.
    void resize(std::uint32_t id, std::size_t off, std::size_t size) {
        by_size_.erase(id, size_less());
        gap_off_[id] = off;
        gap_size_[id] = size;
        by_size_.insert(id, size_less());
    }
    void drop(std::uint32_t id) {
        by_size_.erase(id, size_less());
        by_off_.erase(id, off_less());
        spare_.push_back(id);
    }
    void to_treaps() {
        treaps_ = true;
        for (const auto& [off, size] : small_) add(off, size);
        small_.clear();
    }
    void to_small() {
        treaps_ = false;
        small_.clear();
        for (std::uint32_t id = by_off_.empty() ? TreapIndex::nil : by_off_.first_not([](std::uint32_t) { return false; });
             id != TreapIndex::nil;) {
            small_.emplace_back(gap_off_[id], gap_size_[id]);
            const std::size_t past = gap_off_[id];
            id = by_off_.first_not([&](std::uint32_t y) { return gap_off_[y] <= past; });
        }
        gap_off_.clear();
        gap_size_.clear();
        spare_.clear();
        by_size_.clear();
        by_off_.clear();
    }

    std::vector<std::pair<std::size_t, std::size_t>> small_;  // (offset, size), by offset
    std::vector<std::size_t> gap_off_, gap_size_;             // by gap id (treap mode)
    std::vector<std::uint32_t> spare_;                        // gap ids to reuse
    TreapIndex by_size_, by_off_;
    bool treaps_ = false;
};

// In execution order: allocate each buffer at its def into the best-fitting
// free gap (smallest, then lowest), else at the top; free it after its last
// use, merging free neighbours. Pinned buffers stay at their pins, and the
// others go above them all. O(n log n).
// The sweep's working memory, kept by a caller that sweeps again and again
// (ArenaPlanner): after the first sweep of a size, none allocates.
struct SweepSpace {
    FreeGaps gaps;
    std::vector<std::uint32_t> by_end;  // buffers by end (stable), by counting sort
    std::vector<std::uint32_t> count;   // by position
};

[[nodiscard]] inline std::size_t sweep(const Buffers& b, std::vector<std::size_t>& offset, SweepSpace& space) {
    const std::size_t n = b.count();
    offset.assign(n, 0);
    auto& [gaps, by_end, count] = space;
    gaps.clear();
    // Buffers by def (they are in (def, id) order already) and by end,
    // ties in buffer order: a counting sort over positions.
    const std::size_t positions = b.positions();
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
            if (!gaps.take(need, offset[next])) {
                offset[next] = top;
                top += need;
                arena = std::max(arena, top);
            }
        }
        for (; done < n && b.end[by_end[done]] == p; ++done) {
            const std::uint32_t x = by_end[done];
            if (b.size[x] == 0 || b.is_pinned(x)) continue;
            top = gaps.release(offset[x], b.size[x], top);
        }
    }
    return arena;
}

[[nodiscard]] inline std::size_t sweep(const Buffers& b, std::vector<std::size_t>& offset) {
    SweepSpace space;
    return sweep(b, offset, space);
}

}  // namespace onnx_runtime_memory::detail
