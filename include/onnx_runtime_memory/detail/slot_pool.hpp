// The slot pool behind best-fit reuse: slots are opened with a fixed
// capacity and move between busy and free; acquire() takes the free slot
// with the smallest capacity >= need (ties to the smallest id), else opens a
// new one. Free slots sit in a TreapIndex ordered by (capacity, id): nothing
// is allocated per operation once the pool has grown, O(log slots) each.
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
    // Forgets all slots, keeping the memory for the next plan.
    void reset() noexcept {
        capacity_.clear();
        free_.clear();
    }

    // Best fit among free slots, or a new slot of exactly `need` bytes.
    [[nodiscard]] std::uint32_t acquire(std::size_t need) {
        const std::uint32_t best = free_.first_not([&](std::uint32_t s) { return capacity_[s] < need; });
        if (best != TreapIndex::nil) {
            free_.erase(best, ByCapacityThenId{capacity_});
            return best;
        }
        capacity_.push_back(need);
        return static_cast<std::uint32_t>(capacity_.size() - 1);
    }

    // Returns a busy slot to the free set.
    void release(std::uint32_t slot) { free_.insert(slot, ByCapacityThenId{capacity_}); }

    [[nodiscard]] const std::vector<std::size_t>& capacities() const noexcept { return capacity_; }

private:
    std::vector<std::size_t> capacity_;  // by slot id
    TreapIndex free_;
};

}  // namespace onnx_runtime_memory::detail
