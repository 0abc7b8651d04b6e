// Heap accounting for the benchmarks: every operator new and delete of the
// program goes through here, so a bench can read the bytes live now and the
// peak since it last reset it. Include it in one translation unit of a
// program only (it replaces the global operators).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>

namespace {
std::size_t heap_now = 0;
std::size_t heap_peak = 0;
std::size_t heap_allocations = 0;
constexpr std::size_t header = alignof(std::max_align_t);
}  // namespace

void* operator new(std::size_t n) {
    auto* p = static_cast<unsigned char*>(std::malloc(n + header));
    if (!p) std::abort();
    *reinterpret_cast<std::size_t*>(p) = n;
    heap_now += n;
    heap_peak = std::max(heap_peak, heap_now);
    ++heap_allocations;
    return p + header;
}
void operator delete(void* p) noexcept {
    if (!p) return;
    // Back to the block malloc gave, by address: g++ -O3 would otherwise read
    // the step back as an out-of-bounds access to the object new returned.
    auto* base = reinterpret_cast<unsigned char*>(reinterpret_cast<std::uintptr_t>(p) - header);
    heap_now -= *reinterpret_cast<std::size_t*>(base);
    std::free(base);
}
void* operator new[](std::size_t n) { return operator new(n); }
void operator delete[](void* p) noexcept { operator delete(p); }
void operator delete(void* p, std::size_t) noexcept { operator delete(p); }
void operator delete[](void* p, std::size_t) noexcept { operator delete(p); }
