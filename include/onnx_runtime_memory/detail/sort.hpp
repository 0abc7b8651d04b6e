// Sorting by keys without a sort per comparator. Every caller maps its items
// to 64-bit keys (one or two), and one radix sort, compiled once, orders
// them: a std::stable_sort with a lambda would cost each caller a merge sort
// of its own to compile, and the radix sort keeps pace with it on the
// millions of buffers the arena planner sorts (records through std::sort
// did not). Ties keep their order.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

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
inline void radix_sort(SortSpace& s) {
    std::vector<std::uint64_t>& key = s.key;
    std::vector<std::uint32_t>& at = s.at;
    const std::size_t n = key.size();
    if (n <= 32) {
        for (std::size_t i = 1; i < n; ++i) {
            const std::uint64_t k = key[i];
            const std::uint32_t a = at[i];
            std::size_t j = i;
            for (; j > 0 && key[j - 1] > k; --j) {
                key[j] = key[j - 1];
                at[j] = at[j - 1];
            }
            key[j] = k;
            at[j] = a;
        }
        return;
    }
    std::uint64_t any = 0, every = ~std::uint64_t{0};
    for (std::uint64_t k : key) {
        any |= k;
        every &= k;
    }
    const std::uint64_t differ = any ^ every;
    if (differ == 0) return;  // one key throughout (a sort_by with no minor key): no pass
    s.key_out.resize(n);
    s.at_out.resize(n);
    for (unsigned shift = 0; shift < 64; shift += 8) {
        if ((differ >> shift & 0xFFu) == 0) continue;
        std::array<std::size_t, 257> start{};
        for (std::uint64_t k : key) ++start[(k >> shift & 0xFFu) + 1];
        for (std::size_t d = 1; d <= 256; ++d) start[d] += start[d - 1];
        for (std::size_t i = 0; i < n; ++i) {
            const std::size_t to = start[key[i] >> shift & 0xFFu]++;
            s.key_out[to] = key[i];
            s.at_out[to] = at[i];
        }
        key.swap(s.key_out);
        at.swap(s.at_out);
    }
}

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
