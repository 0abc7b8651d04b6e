// Sorting by keys without a sort per comparator. Every caller maps its items
// to 64-bit keys (one or two), and one radix sort, compiled once, orders
// them: a std::stable_sort with a lambda would cost each caller a merge sort
// of its own to compile, and the radix sort keeps pace with it on the
// millions of buffers the arena planner sorts (records through std::sort
// did not). Ties keep their order.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace onnx_runtime_memory::detail {

// A key that sorts descending.
[[nodiscard]] constexpr std::uint64_t descending(std::uint64_t key) noexcept { return ~key; }

// Reorders `at` (and `key` with it) so that the keys ascend, ties in their
// order: least significant byte first, skipping the bytes all keys share;
// insertion below 32 items. O(n) a byte that differs.
inline void radix_sort(std::vector<std::uint64_t>& key, std::vector<std::uint32_t>& at) {
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
    if (differ == 0) return;  // one key throughout (a sort_by with no minor key): no pass, no buffers
    std::vector<std::uint64_t> key_out(n);
    std::vector<std::uint32_t> at_out(n);
    for (unsigned shift = 0; shift < 64; shift += 8) {
        if ((differ >> shift & 0xFFu) == 0) continue;
        std::array<std::size_t, 257> start{};
        for (std::uint64_t k : key) ++start[(k >> shift & 0xFFu) + 1];
        for (std::size_t d = 1; d <= 256; ++d) start[d] += start[d - 1];
        for (std::size_t i = 0; i < n; ++i) {
            const std::size_t to = start[key[i] >> shift & 0xFFu]++;
            key_out[to] = key[i];
            at_out[to] = at[i];
        }
        key.swap(key_out);
        at.swap(at_out);
    }
}

// Reorders `items` so that (major(x), minor(x)) ascend, ties in their order.
template <class T, class Major, class Minor>
void sort_by(std::vector<T>& items, Major major, Minor minor) {
    const std::size_t n = items.size();
    std::vector<std::uint64_t> key(n);
    std::vector<std::uint32_t> at(n);
    for (std::size_t i = 0; i < n; ++i) {
        at[i] = static_cast<std::uint32_t>(i);
        key[i] = static_cast<std::uint64_t>(minor(items[i]));
    }
    radix_sort(key, at);
    for (std::size_t i = 0; i < n; ++i) key[i] = static_cast<std::uint64_t>(major(items[at[i]]));
    radix_sort(key, at);
    std::vector<T> sorted(n);
    for (std::size_t i = 0; i < n; ++i) sorted[i] = items[at[i]];
    items.swap(sorted);
}
template <class T, class Major>
void sort_by(std::vector<T>& items, Major major) {
    sort_by(items, major, [](const T&) { return std::uint64_t{0}; });
}

}  // namespace onnx_runtime_memory::detail
