// Sorting by keys without a sort per comparator. Every caller maps its items
// to 64-bit keys (one or two), and one radix sort, compiled once, orders
// them: a std::stable_sort with a lambda would cost each caller a merge sort
// of its own to compile, and the radix sort keeps pace with it on the
// millions of buffers the arena planner sorts (records through std::sort
// did not). Ties keep their order.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "config.hpp"

namespace onnx_runtime_memory::detail {

// A key that sorts descending.
[[nodiscard]] constexpr std::uint64_t descending(std::uint64_t key) noexcept { return ~key; }

// Working memory of the sorts: a caller that sorts again and again keeps
// one, and once it has grown a sort allocates nothing.
struct SortSpace {
    std::vector<std::uint64_t> key, key_out;
    std::vector<std::uint32_t> at, at_out;
};

// Reorders s.at (and s.key with it) so that the keys ascend, ties in their
// order: least significant byte first, skipping the bytes all keys share;
// insertion below 32 items. O(n) a byte that differs.
ONNX_RUNTIME_MEMORY_CORE void radix_sort(SortSpace& s);

// Reorders `items` so that (major(x), minor(x)) ascend, ties in their order,
// in the working memory `s`: the positions sorted, then each cycle of the
// permutation followed in place (s.key marks the places done).
template <class T, class Major, class Minor>
void sort_by(std::vector<T>& items, Major major, Minor minor, SortSpace& s) {
    const std::size_t n = items.size();
    s.key.resize(n);
    s.at.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        s.at[i] = static_cast<std::uint32_t>(i);
        s.key[i] = static_cast<std::uint64_t>(minor(items[i]));
    }
    radix_sort(s);
    for (std::size_t i = 0; i < n; ++i) s.key[i] = static_cast<std::uint64_t>(major(items[s.at[i]]));
    radix_sort(s);
    // items[i] becomes the old items[at[i]].
    std::fill(s.key.begin(), s.key.end(), 0);
    for (std::size_t i = 0; i < n; ++i) {
        if (s.key[i] != 0 || s.at[i] == i) continue;
        T first = std::move(items[i]);
        std::size_t j = i;
        for (std::size_t from = s.at[j]; from != i; j = from, from = s.at[j]) {
            items[j] = std::move(items[from]);
            s.key[j] = 1;
        }
        items[j] = std::move(first);
        s.key[j] = 1;
    }
}
template <class T, class Major, class Minor>
void sort_by(std::vector<T>& items, Major major, Minor minor) {
    SortSpace s;
    sort_by(items, major, minor, s);
}
template <class T, class Major>
void sort_by(std::vector<T>& items, Major major) {
    sort_by(items, major, [](const T&) { return std::uint64_t{0}; });
}

}  // namespace onnx_runtime_memory::detail

#if !defined(ONNX_RUNTIME_MEMORY_SEPARATE_COMPILATION)
#include "radix_sort.hpp"  // the code (else the compiled core's: src.hpp)
#endif
