// The sweep strategy: offsets in execution order, best fit. O(n log n).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <utility>
#include <vector>

#include "buffers.hpp"
#include "checked.hpp"
#include "treap.hpp"

namespace onnx_runtime_memory::detail {

// Gap ids by one of their edges (start or end offset): open addressing
// with linear probing, erased by shifting the run back (no tombstones), so
// a lookup is a probe or two where a search tree walks a path. Only looked
// up, never walked: its order cannot reach a plan.
class EdgeIndex {
public:
    static constexpr std::uint32_t nil = 0xFFFFFFFFu;

    // Empties it without freeing: O(capacity), and nothing when already
    // empty (a sweep that ends with a handful of gaps erased them all).
    void clear() {
        if (used_ == 0) return;
        std::fill(id_.begin(), id_.end(), nil);
        used_ = 0;
    }
    [[nodiscard]] std::uint32_t find(std::size_t edge) const {
        if (used_ == 0) return nil;
        for (std::size_t i = home(edge);; i = (i + 1) & mask_) {
            if (id_[i] == nil) return nil;
            if (edge_[i] == edge) return id_[i];
        }
    }
    void insert(std::size_t edge, std::uint32_t id) {  // edge not in the index
        if (2 * (used_ + 1) > id_.size()) grow();
        std::size_t i = home(edge);
        while (id_[i] != nil) i = (i + 1) & mask_;
        edge_[i] = edge;
        id_[i] = id;
        ++used_;
    }
    void erase(std::size_t edge) {  // edge in the index
        std::size_t i = home(edge);
        while (edge_[i] != edge || id_[i] == nil) i = (i + 1) & mask_;
        // Moves back each entry after the hole that may not stay past it.
        for (std::size_t j = (i + 1) & mask_; id_[j] != nil; j = (j + 1) & mask_) {
            const std::size_t h = home(edge_[j]);
            if (((j - h) & mask_) >= ((j - i) & mask_)) {  // its home is at or before the hole
                edge_[i] = edge_[j];
                id_[i] = id_[j];
                i = j;
            }
        }
        id_[i] = nil;
        --used_;
    }

private:
    [[nodiscard]] std::size_t home(std::size_t edge) const noexcept {
        return static_cast<std::size_t>((static_cast<std::uint64_t>(edge) * 0x9E3779B97F4A7C15ull) >> 32) & mask_;
    }
    void grow() {
        std::vector<std::size_t> edges;
        std::vector<std::uint32_t> ids;
        edges.swap(edge_);
        ids.swap(id_);
        const std::size_t capacity = std::max<std::size_t>(64, 2 * ids.size());
        edge_.assign(capacity, 0);
        id_.assign(capacity, nil);
        mask_ = capacity - 1;
        used_ = 0;
        for (std::size_t k = 0; k < ids.size(); ++k)
            if (ids[k] != nil) insert(edges[k], ids[k]);
    }
    std::vector<std::size_t> edge_;
    std::vector<std::uint32_t> id_;  // nil: an empty place
    std::size_t mask_ = 0, used_ = 0;
};

// The free gaps below the top of the arena. A sweep usually has a handful
// (four on average on the bench's graphs), so they live in a small vector
// sorted by offset, scanned for the best fit; past `many` gaps they move to
// a treap index by size over a pool of gap ids, O(log g) each, with the
// neighbours of a freed block found by their edges (EdgeIndex), and back
// below `few`. Both give the same answers: the smallest gap that fits, the
// lowest among equals; the gaps that end where a freed block starts and
// start where it ends.
class FreeGaps {
    // The treap's order (first: its body must precede its uses).
    [[nodiscard]] auto size_less() const {
        return [this](std::uint32_t x, std::uint32_t y) {
            return gap_size_[x] != gap_size_[y] ? gap_size_[x] < gap_size_[y] : gap_off_[x] < gap_off_[y];
        };
    }

public:
    void clear() {
        small_.clear();
        gap_off_.clear();
        gap_size_.clear();
        spare_.clear();
        by_size_.clear();
        by_start_.clear();
        by_end_.clear();
        treaps_ = false;
    }

    // Takes `need` bytes from the bottom of the best-fitting gap; false if
    // no gap holds them. What is left of the gap keeps its place by offset.
    bool take(std::size_t need, std::size_t& off) {
        if (!treaps_) {
            std::size_t best = small_.size(), best_size = size_max;  // the lowest of the smallest that fit
            for (std::size_t i = 0; i < small_.size(); ++i) {
                const std::size_t size = small_[i].second;
                const bool better = size >= need && size < best_size;
                best = better ? i : best;
                best_size = better ? size : best_size;
            }
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
        const std::uint32_t below = by_end_.find(off), above = by_start_.find(off + size);
        const bool joins_above = above != EdgeIndex::nil, joins_below = below != EdgeIndex::nil;
        if (joins_above) size += gap_size_[above];
        if (joins_below) {
            off = gap_off_[below];
            size += gap_size_[below];
        }
        // A joined gap becomes the merged block (its place by offset holds); the other one goes.
        const std::uint32_t kept = joins_below ? below : joins_above ? above : EdgeIndex::nil;
        if (joins_below && joins_above) drop(above);
        if (kept == EdgeIndex::nil) {
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
        by_start_.insert(off, id);
        by_end_.insert(off + size, id);
    }
    // A gap's new bounds, between the same neighbours: its place by offset stays.
    void resize(std::uint32_t id, std::size_t off, std::size_t size) {
        by_size_.erase(id, size_less());
        if (off != gap_off_[id]) {
            by_start_.erase(gap_off_[id]);
            by_start_.insert(off, id);
        }
        if (off + size != gap_off_[id] + gap_size_[id]) {
            by_end_.erase(gap_off_[id] + gap_size_[id]);
            by_end_.insert(off + size, id);
        }
        gap_off_[id] = off;
        gap_size_[id] = size;
        by_size_.insert(id, size_less());
    }
    void drop(std::uint32_t id) {
        by_size_.erase(id, size_less());
        by_start_.erase(gap_off_[id]);
        by_end_.erase(gap_off_[id] + gap_size_[id]);
        gap_size_[id] = 0;  // marks a spare id (a gap is never empty)
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
        for (std::uint32_t id = 0; id < gap_off_.size(); ++id)
            if (gap_size_[id] > 0) {
                small_.emplace_back(gap_off_[id], gap_size_[id]);
                by_start_.erase(gap_off_[id]);
                by_end_.erase(gap_off_[id] + gap_size_[id]);
            }
        std::sort(small_.begin(), small_.end());  // fewer than `few`, by offset
        gap_off_.clear();
        gap_size_.clear();
        spare_.clear();
        by_size_.clear();
    }

    std::vector<std::pair<std::size_t, std::size_t>> small_;  // (offset, size), by offset
    std::vector<std::size_t> gap_off_, gap_size_;             // by gap id (treap mode)
    std::vector<std::uint32_t> spare_;                        // gap ids to reuse
    TreapIndex by_size_;
    EdgeIndex by_start_, by_end_;  // gap ids by start and by end offset
    bool treaps_ = false;
};

// In execution order: allocate each buffer at its def into the best-fitting
// free gap (smallest, then lowest), else at the top; free it after its last
// use, merging free neighbours. Pinned buffers stay at their pins, and the
// others go above them all. O(n log n). Returns the arena, or no_offset as
// soon as it reaches `give_up_at` (no_offset: never; it only grows, and a
// caller that keeps only a smaller placement need not finish).
// The sweep's working memory, kept by a caller that sweeps again and again
// (ArenaPlanner): after the first sweep of a size, none allocates.
struct SweepSpace {
    FreeGaps gaps;
    std::vector<std::uint32_t> by_end;  // buffers by end (stable), by counting sort
    std::vector<std::uint32_t> count;   // by position
};

[[nodiscard]] inline std::size_t sweep(const Buffers& b, std::vector<std::size_t>& offset, SweepSpace& space,
                                       std::size_t give_up_at = no_offset) {
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
                if (reached(arena, give_up_at)) return no_offset;
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
