// A segment tree of maxima over [0, n): set a value, the largest over a
// range, and every place of a range whose value is at least a threshold.
// The greedy passes find the placed buffers a buffer meets with it, and the
// fast first fit its solid runs.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace onnx_runtime_memory::detail {

class MaxTree {
public:
    // n places, every value 0.
    void reset(std::size_t n) {
        leaves_ = 1;
        while (leaves_ < n) leaves_ *= 2;
        top_.assign(2 * leaves_, 0);
    }
    // reset(values.size()), then value(i) = values[i] for each i: O(n).
    template <class Value>
    void assign(const std::vector<Value>& values) {
        reset(values.size());
        std::copy(values.begin(), values.end(), top_.begin() + static_cast<std::ptrdiff_t>(leaves_));
        for (std::size_t p = leaves_ - 1; p > 0; --p) top_[p] = std::max(top_[2 * p], top_[2 * p + 1]);
    }
    void set(std::size_t i, std::uint64_t v) {
        std::size_t p = leaves_ + i;
        top_[p] = v;
        for (p /= 2; p > 0; p /= 2) top_[p] = std::max(top_[2 * p], top_[2 * p + 1]);
    }
    // value(at[k]) = v[k] for each k, `at` increasing: the leaves, then
    // their ancestors once each, level by level (`at` is overwritten).
    template <class Place, class Value>
    void set(std::vector<Place>& at, const std::vector<Value>& v) {
        for (std::size_t k = 0; k < at.size(); ++k) top_[leaves_ + at[k]] = v[k];
        std::size_t count = at.size();
        for (std::size_t level = leaves_; level > 1; level /= 2) {  // at[k]: the parents' places in the level above
            std::size_t kept = 0;
            for (std::size_t k = 0; k < count; ++k) {
                const Place parent = at[k] / 2;
                if (kept > 0 && at[kept - 1] == parent) continue;
                at[kept++] = parent;
                const std::size_t node = level / 2 + parent;
                top_[node] = std::max(top_[2 * node], top_[2 * node + 1]);
            }
            count = kept;
        }
    }
    [[nodiscard]] std::uint64_t highest(std::size_t first, std::size_t last) const {
        std::uint64_t m = 0;
        for (std::size_t a = first + leaves_, b = last + leaves_ + 1; a < b; a /= 2, b /= 2) {
            if (a % 2 == 1) m = std::max(m, top_[a++]);
            if (b % 2 == 1) m = std::max(m, top_[--b]);
        }
        return m;
    }
    // Calls f(i) for every i in [first, last] whose value is at least v, in
    // increasing i: O(log n) for each. The nodes that cover the range (as
    // in highest), left to right, each searched down through the children
    // that hold such a value: inside a covering node no range test is needed.
    template <class F>
    void each_at_least(std::size_t first, std::size_t last, std::uint64_t v, F&& f) const {
        std::array<std::size_t, 64> stack;  // a descent keeps at most one sibling a level (not zeroed: a call would clear it)
        const auto descend = [&](std::size_t node) {
            if (top_[node] < v) return;
            std::size_t depth = 0;
            stack[depth++] = node;
            while (depth > 0) {
                const std::size_t x = stack[--depth];
                if (x >= leaves_) {
                    f(x - leaves_);
                    continue;
                }
                if (top_[2 * x + 1] >= v) stack[depth++] = 2 * x + 1;
                if (top_[2 * x] >= v) stack[depth++] = 2 * x;  // lower places first
            }
        };
        std::array<std::size_t, 64> right;  // the right side's covering nodes come right to left
        std::size_t rights = 0;
        for (std::size_t a = first + leaves_, b = last + leaves_ + 1; a < b; a /= 2, b /= 2) {
            if (a % 2 == 1) descend(a++);
            if (b % 2 == 1) right[rights++] = --b;
        }
        while (rights > 0) descend(right[--rights]);
    }

private:
    std::size_t leaves_ = 1;
    std::vector<std::uint64_t> top_;
};

}  // namespace onnx_runtime_memory::detail
