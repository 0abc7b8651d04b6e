// The portable fallback of detail/checked.hpp, forced on (the library uses
// the compiler's overflow builtins where it has them): the same answers.
// A program of its own, so that no other translation unit sees the macro.
#define ONNX_RUNTIME_MEMORY_PLAIN_OVERFLOW 1
#include <onnx_runtime_memory/detail/checked.hpp>

#include <cstddef>
#include <cstdio>
#include <limits>

#ifdef ONNX_RUNTIME_MEMORY_OVERFLOW_BUILTINS
#error "the fallback was not forced"
#endif

int main() {
    namespace d = onnx_runtime_memory::detail;
    constexpr std::size_t max = std::numeric_limits<std::size_t>::max();
    int failures = 0;
    const auto check = [&](bool ok, const char* what) {
        if (!ok) {
            std::fprintf(stderr, "checked_fallback_test: %s\n", what);
            ++failures;
        }
    };
    std::size_t r = 0;
    check(!d::add_overflows(2, 3, r) && r == 5, "2 + 3");
    check(d::add_overflows(max, 1, r), "max + 1 overflows");
    check(!d::add_overflows(max - 1, 1, r) && r == max, "max - 1 + 1");
    check(!d::mul_overflows(0, max, r) && r == 0, "0 * max");
    check(!d::mul_overflows(max, 1, r) && r == max, "max * 1");
    check(d::mul_overflows(max / 2 + 1, 2, r), "(max / 2 + 1) * 2 overflows");
    check(!d::mul_overflows(max / 3, 3, r) && r == max / 3 * 3, "max / 3 * 3");
    check(d::saturating_add(max, 7) == max, "saturating add");
    check(!d::align_up_overflows(65, 64, r) && r == 128, "65 aligned to 64");
    check(!d::align_up_overflows(128, 64, r) && r == 128, "128 aligned to 64");
    check(d::align_up_overflows(max, 64, r), "max aligned to 64 overflows");
    check(d::saturating_align_up(max - 3, 8) == max, "saturating align");
    static_assert(d::saturating_add(1, 2) == 3);  // constexpr in the fallback too
    if (failures == 0) std::printf("1 passed, 0 failed\n");
    return failures == 0 ? 0 : 1;
}
