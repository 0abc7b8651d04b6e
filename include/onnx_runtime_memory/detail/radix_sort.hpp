// The radix sort: the code behind sort.hpp's declaration (part of the
// compiled core, config.hpp).
#pragma once

#include "config.hpp"
#if defined(ONNX_RUNTIME_MEMORY_SEPARATE_COMPILATION) && !defined(ONNX_RUNTIME_MEMORY_SOURCE)
#error "detail/radix_sort.hpp is the compiled core's: include detail/sort.hpp (src.hpp defines the core once)"
#endif

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sort.hpp"

namespace onnx_runtime_memory::detail {

ONNX_RUNTIME_MEMORY_CORE void radix_sort(SortSpace& s) {
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

}  // namespace onnx_runtime_memory::detail
