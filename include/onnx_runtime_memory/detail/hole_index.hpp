// The free holes of an arena that buffers enter and leave in time order (the
// caching allocator's): a treap keyed by offset whose nodes also keep the
// longest hole below them, so that the first hole of at least n bytes is one
// walk down. Holes never touch: freeing merges a hole with its neighbours.
// Priorities are a fixed hash of the node id: deterministic. O(log holes)
// expected per operation; node ids are recycled, so nothing allocates once
// the arrays have grown.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace onnx_runtime_memory::detail {

class HoleIndex {
public:
    static constexpr std::size_t none = static_cast<std::size_t>(-1);

    // One hole: [0, capacity).
    void reset(std::size_t capacity) {
        offset_.clear();
        length_.clear();
        longest_.clear();
        left_.clear();
        right_.clear();
        spare_.clear();
        root_ = nil;
        if (capacity > 0) root_ = make(0, capacity);
    }
    // The offset of the first hole of at least n bytes (n > 0), or none.
    [[nodiscard]] std::size_t first_fit(std::size_t n) const {
        for (std::uint32_t t = root_; t != nil && longest_[t] >= n;) {
            if (longest(left_[t]) >= n) t = left_[t];
            else if (length_[t] >= n) return offset_[t];
            else t = right_[t];
        }
        return none;
    }
    // Takes [at, at + n) out of the hole that starts at `at` (first_fit's).
    void take(std::size_t at, std::size_t n) {
        const std::size_t length = remove(at);
        if (length > n) insert(make(at + n, length - n));
    }
    // Gives [at, at + n) back, merged with the holes that touch it.
    void give(std::size_t at, std::size_t n) {
        std::size_t start = at, end = at + n;
        const std::uint32_t before = last_below(at);
        if (before != nil && offset_[before] + length_[before] == at) start = offset_[before];
        if (start != at) remove(start);
        if (const std::size_t after = remove(end); after != none) end += after;
        insert(make(start, end - start));
    }

private:
    static constexpr std::uint32_t nil = 0xFFFFFFFFu;

    [[nodiscard]] std::size_t longest(std::uint32_t t) const { return t == nil ? 0 : longest_[t]; }
    [[nodiscard]] static std::uint32_t priority(std::uint32_t t) {
        std::uint32_t x = t * 0x9E3779B9u;
        x ^= x >> 16;
        return x * 0x85EBCA6Bu;
    }
    void update(std::uint32_t t) { longest_[t] = std::max({length_[t], longest(left_[t]), longest(right_[t])}); }
    std::uint32_t make(std::size_t at, std::size_t n) {
        std::uint32_t t;
        if (!spare_.empty()) {
            t = spare_.back();
            spare_.pop_back();
        } else {
            t = static_cast<std::uint32_t>(offset_.size());
            offset_.push_back(0);
            length_.push_back(0);
            longest_.push_back(0);
            left_.push_back(nil);
            right_.push_back(nil);
        }
        offset_[t] = at;
        length_[t] = longest_[t] = n;
        left_[t] = right_[t] = nil;
        return t;
    }
    // Splits t into offsets below `key` (lo) and the rest (hi).
    void split(std::uint32_t t, std::size_t key, std::uint32_t& lo, std::uint32_t& hi) {
        if (t == nil) {
            lo = hi = nil;
        } else if (offset_[t] < key) {
            split(right_[t], key, right_[t], hi);
            lo = t;
            update(t);
        } else {
            split(left_[t], key, lo, left_[t]);
            hi = t;
            update(t);
        }
    }
    [[nodiscard]] std::uint32_t merge(std::uint32_t a, std::uint32_t b) {
        if (a == nil) return b;
        if (b == nil) return a;
        if (priority(a) > priority(b)) {
            right_[a] = merge(right_[a], b);
            update(a);
            return a;
        }
        left_[b] = merge(a, left_[b]);
        update(b);
        return b;
    }
    void insert(std::uint32_t t) {
        std::uint32_t lo = nil, hi = nil;
        split(root_, offset_[t], lo, hi);
        root_ = merge(merge(lo, t), hi);
    }
    // Removes the hole that starts at `at` and returns its length (none: there is none).
    std::size_t remove(std::size_t at) {
        if (at == none) return none;  // no hole starts at the last byte's end
        std::uint32_t lo = nil, mid = nil, hi = nil;
        split(root_, at, lo, hi);
        split(hi, at + 1, mid, hi);
        const std::size_t length = mid == nil ? none : length_[mid];
        if (mid != nil) spare_.push_back(mid);
        root_ = merge(lo, hi);
        return length;
    }
    [[nodiscard]] std::uint32_t last_below(std::size_t at) const {
        std::uint32_t found = nil;
        for (std::uint32_t t = root_; t != nil;) {
            if (offset_[t] < at) {
                found = t;
                t = right_[t];
            } else {
                t = left_[t];
            }
        }
        return found;
    }

    std::vector<std::size_t> offset_, length_, longest_;
    std::vector<std::uint32_t> left_, right_, spare_;
    std::uint32_t root_ = nil;
};

}  // namespace onnx_runtime_memory::detail
