// Checked and saturating arithmetic on std::size_t, in one place: the
// compiler's overflow builtins where it has them, a plain fallback elsewhere
// (forced by defining ONNX_RUNTIME_MEMORY_PLAIN_OVERFLOW, which a test does).
#pragma once

#include <cstddef>
#include <limits>

#if !defined(ONNX_RUNTIME_MEMORY_PLAIN_OVERFLOW) && defined(__has_builtin)
#if __has_builtin(__builtin_add_overflow) && __has_builtin(__builtin_mul_overflow)
#define ONNX_RUNTIME_MEMORY_OVERFLOW_BUILTINS 1
#endif
#endif

namespace onnx_runtime_memory::detail {

inline constexpr std::size_t size_max = std::numeric_limits<std::size_t>::max();

// out = a + b; true when the sum does not fit (out is then unspecified).
[[nodiscard]] constexpr bool add_overflows(std::size_t a, std::size_t b, std::size_t& out) noexcept {
#ifdef ONNX_RUNTIME_MEMORY_OVERFLOW_BUILTINS
    return __builtin_add_overflow(a, b, &out);
#else
    out = a + b;  // unsigned: wraps, never undefined
    return out < a;
#endif
}

// out = a * b; true when the product does not fit.
[[nodiscard]] constexpr bool mul_overflows(std::size_t a, std::size_t b, std::size_t& out) noexcept {
#ifdef ONNX_RUNTIME_MEMORY_OVERFLOW_BUILTINS
    return __builtin_mul_overflow(a, b, &out);
#else
    out = a * b;
    return a != 0 && out / a != b;
#endif
}

// Whether a placement whose arena only grows can stop: its arena has
// reached `give_up_at` (size_max: never), and only a smaller one is kept.
[[nodiscard]] constexpr bool reached(std::size_t arena, std::size_t give_up_at) noexcept {
    return give_up_at != size_max && arena >= give_up_at;
}

[[nodiscard]] constexpr std::size_t saturating_add(std::size_t a, std::size_t b) noexcept {
    std::size_t r = 0;
    return add_overflows(a, b, r) ? size_max : r;
}

[[nodiscard]] constexpr std::size_t saturating_mul(std::size_t a, std::size_t b) noexcept {
    std::size_t r = 0;
    return mul_overflows(a, b, r) ? size_max : r;
}

// An alignment as the planners use it: 0 counts as 1.
[[nodiscard]] constexpr std::size_t alignment_or_one(std::size_t alignment) noexcept {
    return alignment == 0 ? 1 : alignment;
}

// n rounded up to a multiple of `alignment` (>= 1); true when that overflows.
[[nodiscard]] constexpr bool align_up_overflows(std::size_t n, std::size_t alignment, std::size_t& out) noexcept {
    const std::size_t rem = n % alignment;
    if (rem == 0) {
        out = n;
        return false;
    }
    return add_overflows(n, alignment - rem, out);
}

// n rounded up to a multiple of `alignment` (>= 1), saturating at SIZE_MAX.
[[nodiscard]] constexpr std::size_t saturating_align_up(std::size_t n, std::size_t alignment) noexcept {
    std::size_t r = 0;
    return align_up_overflows(n, alignment, r) ? size_max : r;
}

// ceil(log2(n)), at least 1: the depth of a search tree over n leaves,
// what the budgets charge per step down one.
[[nodiscard]] constexpr std::size_t log2_steps(std::size_t n) noexcept {
    std::size_t d = 1;
    while (d < 64 && (std::size_t{1} << d) < n) ++d;
    return d;
}

// floor(sqrt(n)), in integers.
[[nodiscard]] constexpr std::size_t square_root(std::size_t n) noexcept {
    std::size_t lo = 0, hi = n < 0xFFFFFFFFu ? n : 0xFFFFFFFFu;
    while (lo < hi) {
        const std::size_t mid = lo + (hi - lo + 1) / 2;
        if (mid <= n / mid) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}

}  // namespace onnx_runtime_memory::detail
