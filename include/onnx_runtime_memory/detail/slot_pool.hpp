// The slot pool behind best-fit reuse: slots are opened with a fixed
// capacity and move between busy and free; acquire() takes the free slot
// with the smallest capacity >= need (ties to the smallest id), else opens a
// new one. Free slots are kept ordered by (capacity, id): in a sorted vector
// while there are at most `small` of them (a short scan and move: real
// graphs rarely have more), else, for the rest of the plan, in a
// TreapIndex: O(log slots) whatever the graph. Nothing is allocated per
// operation once the pool has grown.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "treap.hpp"

namespace onnx_runtime_memory::detail {

class SlotPool {
    struct ByCapacityThenId {
        const std::vector<std::size_t>& capacity;
        bool operator()(std::uint32_t a, std::uint32_t b) const noexcept {
            return capacity[a] != capacity[b] ? capacity[a] < capacity[b] : a < b;
        }
    };

public:
    static constexpr std::size_t small = 64;

    // Forgets all slots, keeping the memory for the next plan.
    void reset() noexcept {
        capacity_.clear();
        total_ = 0;
        sorted_.clear();
        tree_.clear();
        use_tree_ = false;
    }

    // Best fit among free slots, or a new slot of exactly `need` bytes.
    [[nodiscard]] std::uint32_t acquire(std::size_t need) {
        if (use_tree_) {
            const std::uint32_t best = tree_.first_not([&](std::uint32_t s) { return capacity_[s] < need; });
            if (best != TreapIndex::nil) {
                tree_.erase(best, ByCapacityThenId{capacity_});
                return best;
            }
        } else {
            // A scan and a shift by hand: with a few dozen entries at most,
            // cheaper than a binary search's mispredictions and erase().
            const std::size_t n = sorted_.size();
            std::size_t i = 0;
            while (i < n && sorted_[i].capacity < need) ++i;
            if (i < n) {
                const std::uint32_t best = sorted_[i].slot;
                for (; i + 1 < n; ++i) sorted_[i] = sorted_[i + 1];
                sorted_.pop_back();
                return best;
            }
        }
        capacity_.push_back(need);
        total_ += need;
        return static_cast<std::uint32_t>(capacity_.size() - 1);
    }

    // Best fit, else the largest free slot grown to `need` (so slots grow
    // instead of multiplying), else a new slot.
    [[nodiscard]] std::uint32_t acquire_growing(std::size_t need) {
        std::uint32_t largest = TreapIndex::nil;
        if (use_tree_) largest = tree_.last_below([](std::uint32_t) { return true; });
        else if (!sorted_.empty()) largest = sorted_.back().slot;
        if (largest == TreapIndex::nil || capacity_[largest] >= need) return acquire(need);
        if (use_tree_) tree_.erase(largest, ByCapacityThenId{capacity_});
        else sorted_.pop_back();
        total_ += need - capacity_[largest];
        capacity_[largest] = need;  // out of the free set while its key changes
        return largest;
    }

    // Returns a busy slot to the free set.
    void release(std::uint32_t slot) {
        const ByCapacityThenId less{capacity_};
        if (!use_tree_ && sorted_.size() == small) {  // too many to move around: the tree from now on
            for (const Free& f : sorted_) tree_.insert(f.slot, less);
            sorted_.clear();
            use_tree_ = true;
        }
        if (use_tree_) tree_.insert(slot, less);
        else {  // one insertion-sort step from the back
            const Free f{capacity_[slot], slot};
            std::size_t i = sorted_.size();
            sorted_.push_back(f);  // within the capacity reserved once the pool has grown
            for (; i > 0 && f < sorted_[i - 1]; --i) sorted_[i] = sorted_[i - 1];
            sorted_[i] = f;
        }
    }

    [[nodiscard]] const std::vector<std::size_t>& capacities() const noexcept { return capacity_; }
    // The sum of the capacities (no more than the sizes acquired: it cannot overflow where they do not).
    [[nodiscard]] std::size_t total() const noexcept { return total_; }

private:
    std::vector<std::size_t> capacity_;  // by slot id
    std::size_t total_ = 0;              // their sum
    struct Free {  // a free slot with its capacity beside it: the search reads one array
        std::size_t capacity;
        std::uint32_t slot;
        friend bool operator<(const Free& a, const Free& b) noexcept {
            return a.capacity != b.capacity ? a.capacity < b.capacity : a.slot < b.slot;
        }
    };
    std::vector<Free> sorted_;           // free slots by (capacity, id), while few
    TreapIndex tree_;                    // free slots, once many
    bool use_tree_ = false;
};

}  // namespace onnx_runtime_memory::detail
