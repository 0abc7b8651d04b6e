// Over positions [0, n): add bytes to every position of a range, take them
// away again, and the most any position of a range holds. A segment tree
// whose node keeps the adds that cover its whole range (`tag`) and the
// most below it, those adds included (`top`). The spaces' load: the bytes
// live at each position of a space. O(log n) each.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace onnx_runtime_memory::detail {

class RangeAdd {
public:
    void reset(std::size_t n) {
        n_ = std::max<std::size_t>(n, 1);
        top_.assign(4 * n_, 0);
        tag_.assign(4 * n_, 0);
    }
    // Adds v to [first, last]; remove() takes back exactly what an add of
    // the same range gave, so no sum ever goes below 0.
    void add(std::size_t first, std::size_t last, std::size_t v) { change(1, 0, n_ - 1, first, last, v, true); }
    void remove(std::size_t first, std::size_t last, std::size_t v) { change(1, 0, n_ - 1, first, last, v, false); }
    [[nodiscard]] std::size_t most(std::size_t first, std::size_t last) const { return most(1, 0, n_ - 1, first, last); }
    // The first position of [first, last] that holds most(first, last).
    [[nodiscard]] std::uint32_t where_most(std::size_t first, std::size_t last) const {
        const std::size_t want = most(first, last);
        std::size_t lo = first, hi = last;  // most(lo, hi) == want throughout: halve it
        while (lo < hi) {
            const std::size_t mid = lo + (hi - lo) / 2;
            if (most(lo, mid) == want) hi = mid;
            else lo = mid + 1;
        }
        return static_cast<std::uint32_t>(lo);
    }

private:
    void change(std::size_t p, std::size_t lo, std::size_t hi, std::size_t first, std::size_t last, std::size_t v,
                bool up) {
        if (last < lo || hi < first) return;
        if (first <= lo && hi <= last) {
            top_[p] = up ? top_[p] + v : top_[p] - v;
            tag_[p] = up ? tag_[p] + v : tag_[p] - v;
            return;
        }
        const std::size_t mid = lo + (hi - lo) / 2;
        change(2 * p, lo, mid, first, last, v, up);
        change(2 * p + 1, mid + 1, hi, first, last, v, up);
        top_[p] = std::max(top_[2 * p], top_[2 * p + 1]) + tag_[p];
    }
    [[nodiscard]] std::size_t most(std::size_t p, std::size_t lo, std::size_t hi, std::size_t first,
                                   std::size_t last) const {
        if (last < lo || hi < first) return 0;
        if (first <= lo && hi <= last) return top_[p];
        const std::size_t mid = lo + (hi - lo) / 2;
        return std::max(most(2 * p, lo, mid, first, last), most(2 * p + 1, mid + 1, hi, first, last)) + tag_[p];
    }
    std::size_t n_ = 1;
    std::vector<std::size_t> top_, tag_;
};

}  // namespace onnx_runtime_memory::detail
