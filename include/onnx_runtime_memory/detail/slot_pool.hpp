// The slot pool behind best-fit reuse: slots are opened with a fixed
// capacity and move between busy and free; acquire() takes the free slot
// with the smallest capacity >= need (ties to the smallest id), else opens a
// new one. Free slots sit in a treap keyed by (capacity, id) whose nodes are
// the slots themselves (a slot is free at most once), so nothing is
// allocated per operation and every operation is O(log slots) expected.
// Priorities are a fixed hash of the slot id: deterministic.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace onnx_runtime_memory::detail {

class SlotPool {
public:
    static constexpr std::uint32_t nil = 0xFFFFFFFFu;

    // Forgets all slots, keeping the memory for the next plan.
    void reset() noexcept {
        capacity_.clear();
        left_.clear();
        right_.clear();
        root_ = nil;
    }
    void reserve(std::size_t slots) {
        capacity_.reserve(slots);
        left_.reserve(slots);
        right_.reserve(slots);
    }

    // Best fit among free slots, or a new slot of exactly `need` bytes.
    [[nodiscard]] std::uint32_t acquire(std::size_t need) {
        std::uint32_t best = nil;
        for (std::uint32_t t = root_; t != nil;) {
            if (capacity_[t] >= need) {
                best = t;
                t = left_[t];
            } else {
                t = right_[t];
            }
        }
        if (best != nil) {
            root_ = erase(root_, best);
            return best;
        }
        const auto id = static_cast<std::uint32_t>(capacity_.size());
        capacity_.push_back(need);
        left_.push_back(nil);
        right_.push_back(nil);
        return id;
    }

    // Returns a busy slot to the free set.
    void release(std::uint32_t slot) {
        left_[slot] = right_[slot] = nil;
        std::uint32_t lo = nil;
        std::uint32_t hi = nil;
        split(root_, slot, lo, hi);
        root_ = merge(merge(lo, slot), hi);
    }

    [[nodiscard]] const std::vector<std::size_t>& capacities() const noexcept { return capacity_; }

private:
    [[nodiscard]] bool less(std::uint32_t a, std::uint32_t b) const noexcept {
        return capacity_[a] != capacity_[b] ? capacity_[a] < capacity_[b] : a < b;
    }
    [[nodiscard]] static std::uint32_t priority(std::uint32_t id) noexcept {
        std::uint32_t x = id + 0x9E3779B9u;  // a fixed integer hash (lowbias32)
        x ^= x >> 16;
        x *= 0x21F0AAADu;
        x ^= x >> 15;
        x *= 0x735A2D97u;
        x ^= x >> 15;
        return x;
    }
    // Splits tree t into nodes ordered before `key` (lo) and the rest (hi).
    void split(std::uint32_t t, std::uint32_t key, std::uint32_t& lo, std::uint32_t& hi) {
        if (t == nil) {
            lo = hi = nil;
        } else if (less(t, key)) {
            split(right_[t], key, right_[t], hi);
            lo = t;
        } else {
            split(left_[t], key, lo, left_[t]);
            hi = t;
        }
    }
    // Joins two trees, every node of lo ordered before every node of hi.
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
    [[nodiscard]] std::uint32_t erase(std::uint32_t t, std::uint32_t x) {
        if (t == x) return merge(left_[t], right_[t]);
        if (less(x, t)) left_[t] = erase(left_[t], x);
        else right_[t] = erase(right_[t], x);
        return t;
    }

    std::vector<std::size_t> capacity_;  // by slot id
    std::vector<std::uint32_t> left_;    // treap links, by slot id
    std::vector<std::uint32_t> right_;
    std::uint32_t root_ = nil;
};

}  // namespace onnx_runtime_memory::detail
