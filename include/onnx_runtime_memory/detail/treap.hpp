// An ordered index over small integer ids (0, 1, 2, ...): a treap whose
// nodes are the ids themselves, so inserting and erasing allocate nothing
// (the link arrays grow with the largest id, amortised). The order is a
// comparator on ids passed to each call (so the index holds no pointer into
// its owner and can be moved freely); it must be the same on every call.
// Priorities are a fixed hash of the id: deterministic, O(log n) expected
// per operation. An id is in the index at most once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace onnx_runtime_memory::detail {

class TreapIndex {
public:
    static constexpr std::uint32_t nil = 0xFFFFFFFFu;

    void clear() noexcept {
        left_.clear();
        right_.clear();
        root_ = nil;
    }
    void reserve(std::size_t ids) {
        left_.reserve(ids);
        right_.reserve(ids);
    }
    [[nodiscard]] bool empty() const noexcept { return root_ == nil; }
    // Both walk down from the root to where x sits, and split or merge only
    // below it.
    template <class Less>
    void insert(std::uint32_t x, const Less& less) {
        if (x >= left_.size()) {
            left_.resize(std::size_t{x} + 1, nil);
            right_.resize(std::size_t{x} + 1, nil);
        }
        const std::uint32_t px = priority(x);
        std::uint32_t* link = &root_;
        while (*link != nil && priority(*link) > px) link = less(x, *link) ? &left_[*link] : &right_[*link];
        split(*link, x, left_[x], right_[x], less);
        *link = x;
    }
    template <class Less>
    void erase(std::uint32_t x, const Less& less) {
        std::uint32_t* link = &root_;
        while (*link != nil && *link != x) link = less(x, *link) ? &left_[*link] : &right_[*link];
        if (*link == x) *link = merge(left_[x], right_[x]);
    }

    // The first id (in order) for which below(id) is false, or nil; below
    // must be true for a prefix of the order and false after it.
    template <class Below>
    [[nodiscard]] std::uint32_t first_not(Below&& below) const {
        std::uint32_t best = nil;
        for (std::uint32_t t = root_; t != nil;) {
            if (below(t)) {
                t = right_[t];
            } else {
                best = t;
                t = left_[t];
            }
        }
        return best;
    }
    // The last id for which below(id) is true, or nil.
    template <class Below>
    [[nodiscard]] std::uint32_t last_below(Below&& below) const {
        std::uint32_t best = nil;
        for (std::uint32_t t = root_; t != nil;) {
            if (below(t)) {
                best = t;
                t = right_[t];
            } else {
                t = left_[t];
            }
        }
        return best;
    }

private:
    [[nodiscard]] static std::uint32_t priority(std::uint32_t id) noexcept {
        std::uint32_t x = id + 0x9E3779B9u;  // lowbias32
        x ^= x >> 16;
        x *= 0x21F0AAADu;
        x ^= x >> 15;
        x *= 0x735A2D97u;
        x ^= x >> 15;
        return x;
    }
    // Splits t into the ids ordered before `key` (lo) and the rest (hi).
    template <class Less>
    void split(std::uint32_t t, std::uint32_t key, std::uint32_t& lo, std::uint32_t& hi, const Less& less) {
        if (t == nil) {
            lo = hi = nil;
        } else if (less(t, key)) {
            split(right_[t], key, right_[t], hi, less);
            lo = t;
        } else {
            split(left_[t], key, lo, left_[t], less);
            hi = t;
        }
    }
    // Joins two trees, every id of lo ordered before every id of hi.
    [[nodiscard]] std::uint32_t merge(std::uint32_t lo, std::uint32_t hi) {
        if (lo == nil) return hi;
        if (hi == nil) return lo;
        if (priority(lo) > priority(hi)) {
            right_[lo] = merge(right_[lo], hi);
            return lo;
        }
        left_[hi] = merge(lo, left_[hi]);
        return hi;
    }

    std::vector<std::uint32_t> left_;
    std::vector<std::uint32_t> right_;
    std::uint32_t root_ = nil;
};

}  // namespace onnx_runtime_memory::detail
