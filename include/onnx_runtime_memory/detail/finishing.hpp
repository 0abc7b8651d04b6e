// The strategies that finish a placement the budgeted ones (portfolio.hpp)
// left above the bound: the sweep mirrored in time, the first fit by size
// where the greedy orders could not run it, the best plan's top repacked,
// and the top's bytes settled; with the working memory and the kept best
// that every strategy shares.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <vector>

#include "../plan_types.hpp"
#include "buffers.hpp"
#include "checked.hpp"
#include "first_fit.hpp"
#include "greedy.hpp"
#include "repack.hpp"
#include "skyline.hpp"
#include "sweep.hpp"

namespace onnx_runtime_memory::detail {

// Working memory a caller may keep between problems (ArenaPlanner): when
// the sweep decides, placing allocates nothing once it is big enough.
struct PlaceSpace {  // declared in place.hpp, which callers include
    SweepSpace sweep;
    GreedySpace greedy;
    FirstFitSpace first_fit;
    Skyline sky;
    SkylineRuns runs;
    std::vector<std::size_t> runs_offset;  // the skyline by runs' placement, where it ran first
    std::vector<std::size_t> offset;  // the strategy being tried
    Buffers mirrored;                 // the problem mirrored in time (mirrored_sweep)
    std::vector<std::uint32_t> mirrored_order;  // mirrored[k] is buffer mirrored_order[k]
    std::vector<std::size_t> mirrored_offset;
    RepackSpace repack;
    OrderSpace orders;                                // the greedy orders' working memory
    std::array<std::vector<std::uint32_t>, 5> order;  // by index (greedy_order); also settle_top's
    std::vector<std::size_t> meeting_bytes;           // the conflicts order's keys (meetings)
};

// The sweep on the problem mirrored in time: each buffer's [def, end]
// becomes [T - end, T - def], so every overlap stays and the buffers arrive
// in the order they die, latest first. Offsets into space.offset, or
// no_offset once its arena reaches `give_up_at` (see sweep). O(n log n).
[[nodiscard]] inline std::size_t mirrored_sweep(const Buffers& b, PlaceSpace& space, std::size_t give_up_at = no_offset) {
    const std::size_t n = b.count();
    NodeIndex last = 0;
    for (std::size_t i = 0; i < n; ++i) last = std::max(last, b.end[i]);
    // By mirrored def (latest end first), ties in buffer order: a counting sort.
    auto& order = space.mirrored_order;
    auto& count = space.sweep.count;  // the sweep recounts it
    count.assign(std::size_t{last} + 2, 0);
    for (std::size_t i = 0; i < n; ++i) ++count[std::size_t{last - b.end[i]} + 1];
    for (std::size_t p = 1; p < count.size(); ++p) count[p] += count[p - 1];
    order.resize(n);
    for (std::size_t i = 0; i < n; ++i) order[count[last - b.end[i]]++] = static_cast<std::uint32_t>(i);
    // Only the columns the sweep reads (length and slack stay empty).
    Buffers& m = space.mirrored;
    for (auto* column : {&m.value, &m.def, &m.end}) column->resize(n);
    for (auto* column : {&m.size, &m.pin}) column->resize(n);
    for (std::size_t k = 0; k < n; ++k) {
        const std::uint32_t i = order[k];
        m.value[k] = i;
        m.def[k] = last - b.end[i];
        m.end[k] = last - b.def[i];
        m.size[k] = b.size[i];
        m.pin[k] = no_offset;
    }
    const std::size_t arena = sweep(m, space.mirrored_offset, space.sweep, give_up_at);
    if (arena == no_offset) return no_offset;
    space.offset.resize(n);
    for (std::size_t k = 0; k < n; ++k) space.offset[order[k]] = space.mirrored_offset[k];
    return arena;
}

// Keeps the placement in space.offset when it is smaller than the best.
inline void consider(std::size_t arena, ArenaStrategy strategy, const PlaceSpace& space, Placement& best) {
    if (arena < best.arena) {
        best.arena = arena;
        best.offset.assign(space.offset.begin(), space.offset.end());
        best.strategy = strategy;
    }
}

// While the best is above the bound and a round fits in the budget, at
// most four rounds: its top repacked (repack_top: 6 sqrt(n) buffers, the
// first fit, which did better than the best fit on the bench's random
// DAGs), kept if smaller, else the rounds stop. A round costs O(n) to
// choose the buffers, charged as 2 n log2 n steps, plus the greedy's r^2 / 2.
inline void repack_rounds(const Buffers& b, std::size_t lower_bound, std::size_t& budget, PlaceSpace& space,
                          Placement& best) {
    const std::size_t n = b.count();
    const std::size_t r = std::min(n, 6 * square_root(n));
    const std::size_t round_steps = saturating_add(saturating_mul(2 * n, log2_steps(n)), r * r / 2);
    for (int round = 0; round < 4 && best.arena > lower_bound && round_steps <= budget; ++round) {
        budget -= round_steps;
        space.offset.assign(best.offset.begin(), best.offset.end());
        const std::size_t arena = repack_top(b, r, Fit::first, space.offset, space.repack, best.arena);
        if (arena >= best.arena) break;
        consider(arena, ArenaStrategy::repacked_top, space, best);
    }
}

// Still above the bound, and where the greedy passes did not run the first
// fit by size (their prediction, every meeting pair, did not fit): the
// first fit in size_peak_order, which on the bench's random DAGs of 5k to
// 20k nodes ends below TFLite's greedy where the sweeps and the repack stay
// above it. It reads a window of the placed buffers, about 12 sqrt(P / n)
// steps a buffer (P meeting pairs: within 10% on the bench's random DAGs
// and U-Nets of 5k to 20k nodes, further below what it takes past them). It runs
// where that predicts at most `most_per_owner` steps an owner
// (ArenaOptions::first_fit_steps) and fits in what is left of the budget,
// and stops once its arena reaches the best. The bench's 5k random DAG is
// predicted 192 steps an owner (it takes 206, 2.7 ms), its 20k one 360
// (392, 16 ms); its 100k one 708 (1,160, 190 ms: not run by default), the
// 10k U-Net 648. size_peak_first_fit_steps: its predicted steps where it
// runs, else 0 (`pairs`: meeting_pairs(b)); size_peak_first_fit: whether
// its plan is kept.
[[nodiscard]] inline std::size_t size_peak_first_fit_steps(const Buffers& b, std::uint64_t pairs,
                                                            std::size_t lower_bound, std::size_t most_per_owner,
                                                            std::size_t budget, const Placement& best) {
    const std::size_t n = b.count();
    if (best.arena <= lower_bound || n == 0 || most_per_owner == 0) return 0;
    const std::size_t per_owner = 12 * square_root(static_cast<std::size_t>(pairs / n));
    if (per_owner > most_per_owner || saturating_mul(per_owner, n) > budget) return 0;
    return std::max<std::size_t>(per_owner * n, 1);
}
inline bool size_peak_first_fit(const Buffers& b, std::size_t& budget, PlaceSpace& space, Placement& best) {
    size_peak_order(b, space.orders, space.order[0]);
    const std::size_t arena = place_first_fit(b, space.order[0], space.offset, space.first_fit, budget, best.arena);
    if (arena >= best.arena) return false;
    consider(arena, ArenaStrategy::size_peak_first_fit, space, best);
    return true;
}

// The top's own bytes. Every strategy packs sizes rounded up to the
// alignment, so a plan at the rounded bound can end a whole slack above the
// bound in bytes (ArenaBound::bytes) when the buffer on top has less slack
// than another at the peak: TFLite's TestResetAllocs (2047, 2047, 2047 and
// 13 bytes at alignment 32) ended at 6,175, with the 13-byte buffer under a
// 2047-byte one, where 6,157 is possible. Then the buffers are placed again
// in the order of their offsets, the one with the most slack last, each into
// the lowest gap among the placed buffers it meets; kept when the rounded
// arena does not grow and the bytes end lower. Once, O((n + P) log n), only
// where the bytes miss the bound that way.
inline void settle_top(const Buffers& b, std::size_t bytes_bound, PlaceSpace& space, Placement& best) {
    const std::size_t n = b.count();
    if (n == 0 || b.pinned > 0) return;
    const auto bytes_end = [&](const std::vector<std::size_t>& offset) {
        std::size_t end = 0;
        for (std::size_t i = 0; i < n; ++i)
            if (b.size[i] > 0) end = std::max(end, offset[i] + (b.size[i] - b.slack[i]));
        return end;
    };
    const std::size_t before = bytes_end(best.offset);
    if (before <= bytes_bound) return;
    std::uint32_t most = 0;  // the most slack, the lower index on ties
    for (std::uint32_t i = 1; i < n; ++i)
        if (b.slack[i] > b.slack[most]) most = i;
    if (b.slack[most] <= best.arena - std::min(best.arena, before)) return;  // the top has as much already
    auto& order = space.order[0];
    order.resize(n);
    std::iota(order.begin(), order.end(), 0u);
    std::sort(order.begin(), order.end(), [&](std::uint32_t x, std::uint32_t y) {
        return best.offset[x] != best.offset[y] ? best.offset[x] < best.offset[y] : x < y;
    });
    std::rotate(std::find(order.begin(), order.end(), most), std::find(order.begin(), order.end(), most) + 1, order.end());
    const std::size_t arena = place_in_order(b, order, Fit::first, false, space.offset, space.greedy, {},
                                             saturating_add(best.arena, 1));
    if (arena == no_offset || arena > best.arena || bytes_end(space.offset) >= before) return;
    best.arena = arena;
    best.offset.assign(space.offset.begin(), space.offset.end());
}

}  // namespace onnx_runtime_memory::detail
