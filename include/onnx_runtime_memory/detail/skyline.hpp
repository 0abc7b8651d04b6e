// The skyline strategy: bottom-left packing over time, deterministic or
// with seeded jitter (the randomised restarts). O(n * (T + n)).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "../plan_types.hpp"
#include "buffers.hpp"
#include "checked.hpp"

namespace onnx_runtime_memory::detail {

// A small deterministic generator for the search (splitmix64).
struct SplitMix {
    std::uint64_t state;
    std::uint64_t operator()() noexcept {
        std::uint64_t z = (state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    std::size_t below(std::size_t n) noexcept { return static_cast<std::size_t>((*this)() % n); }
};

enum class Prefer : std::uint8_t { size, area, lifetime };

// Bottom-left packing over time (see the top of this file). With `rng`,
// each candidate's score is jittered by up to 60%. Writes offsets; returns
// the arena, or SIZE_MAX if it got stuck (it cannot on valid input), ran
// out of `steps` (each round, a placement or a raise, costs positions + n;
// they are taken from `steps`) or reached `give_up_at` (no_offset: never;
// the arena only grows, and only a smaller one is kept).
struct Skyline {
    std::vector<std::size_t> height;  // by position: the top of what is placed there
    std::vector<std::uint32_t> cover; // by position: unplaced buffers still covering it
    std::vector<std::uint8_t> done;
};
[[nodiscard]] inline std::size_t skyline(const Buffers& b, Prefer prefer, SplitMix* rng, Skyline& sky,
                                         std::vector<std::size_t>& offset, std::size_t& steps,
                                         std::size_t give_up_at = no_offset) {
    const std::size_t n = b.count();
    const std::size_t positions = b.positions();
    auto& h = sky.height;
    auto& cover = sky.cover;
    h.assign(positions, 0);
    cover.assign(positions, 0);
    sky.done.assign(n, false);
    offset.assign(n, 0);
    std::size_t remaining = 0;
    for (std::size_t i = 0; i < n; ++i) {
        if (b.size[i] == 0) {
            sky.done[i] = true;
            continue;
        }
        ++remaining;
        for (std::size_t t = b.def[i]; t <= b.end[i]; ++t) ++cover[t];
    }
    std::size_t arena = 0;
    const std::size_t round = positions + n;
    while (remaining > 0) {
        if (steps < round) return no_offset;
        steps -= round;
        std::size_t low = positions;
        for (std::size_t t = 0; t < positions; ++t)
            if (cover[t] > 0 && (low == positions || h[t] < h[low])) low = t;
        std::size_t left = low, right = low;
        while (left > 0 && h[left - 1] == h[low]) --left;
        while (right + 1 < positions && h[right + 1] == h[low]) ++right;
        std::size_t pick = n;
        double best = -1.0;
        for (std::size_t i = 0; i < n; ++i) {
            if (sky.done[i] || b.def[i] < left || b.end[i] > right) continue;
            const double length = static_cast<double>(b.length[i]);
            const double size = static_cast<double>(b.size[i]);
            double score = prefer == Prefer::size ? size * 1e6 + length
                         : prefer == Prefer::area ? size * length
                                                  : length * 1e12 + size;
            if (b.def[i] == left) score *= 1.5;  // flush with the stretch's left edge
            if (rng) score *= 1.0 + static_cast<double>(rng->below(1000)) * 0.0006;
            if (score > best) {
                best = score;
                pick = i;
            }
        }
        if (pick == n) {  // nothing fits flat here: raise the stretch to its lower neighbour
            std::size_t to = no_offset;
            if (left > 0) to = h[left - 1];
            if (right + 1 < positions) to = std::min(to, h[right + 1]);
            if (to == no_offset) return no_offset;
            for (std::size_t t = left; t <= right; ++t) h[t] = to;
            continue;
        }
        const std::size_t base = h[low], top = base + b.size[pick];  // h[low] changes in the loop
        offset[pick] = base;
        for (std::size_t t = b.def[pick]; t <= b.end[pick]; ++t) {
            h[t] = top;
            --cover[t];
        }
        arena = std::max(arena, top);
        if (reached(arena, give_up_at)) return no_offset;
        sky.done[pick] = true;
        --remaining;
    }
    return arena;
}

}  // namespace onnx_runtime_memory::detail
