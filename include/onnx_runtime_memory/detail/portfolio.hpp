// The portfolio: every strategy on one offset problem, the best kept (ties
// to the earlier), under the options' work budget and limits.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "../plan_types.hpp"
#include "buffers.hpp"
#include "checked.hpp"
#include "exact_search.hpp"
#include "greedy.hpp"
#include "skyline.hpp"
#include "sweep.hpp"

namespace onnx_runtime_memory::detail {

// started + limit, saturating: no limit (0 or less) and limits past the
// clock's range (microseconds::max() included) give time_point::max().
[[nodiscard]] inline std::chrono::steady_clock::time_point deadline_after(std::chrono::steady_clock::time_point started,
                                                                         std::chrono::microseconds limit) {
    using clock = std::chrono::steady_clock;
    const auto room = std::chrono::duration_cast<std::chrono::microseconds>(clock::time_point::max() - started);
    if (limit.count() <= 0 || limit >= room) return clock::time_point::max();
    return started + std::chrono::duration_cast<clock::duration>(limit);
}

// The result of the strategies on one buffer problem.
struct Placement {
    std::vector<std::size_t> offset;  // by buffer
    std::size_t arena = 0;
    ArenaStrategy strategy = ArenaStrategy::sweep;
    std::size_t proven = 0;  // no placement is smaller: the lower bound, raised by the exact search's proofs
};

// Working memory a caller may keep between problems (ArenaPlanner): when
// the sweep decides, placing allocates nothing once it is big enough.
struct PlaceSpace {
    SweepSpace sweep;
    GreedySpace greedy;
    Skyline sky;
    std::vector<std::size_t> offset;  // the strategy being tried
};

// ceil(log2(n)), at least 1: the depth of the greedy's search tree.
[[nodiscard]] constexpr std::size_t log2_steps(std::size_t n) noexcept {
    std::size_t d = 1;
    while (d < 64 && (std::size_t{1} << d) < n) ++d;
    return d;
}

// Places every buffer into `best`: the sweep, then the greedy orders and the
// skylines while their predicted steps fit in the budget
// (ArenaOptions::work_per_owner), then the opt-in searches. Pinned buffers
// keep their pins: the sweep and the greedy orders pack the rest around
// them; the skylines and the searches do not run. Stops early at the lower
// bound (no placement can be smaller). Deterministic unless
// options.time_limit cuts a search short.
inline void place_buffers(const Buffers& b, const ArenaOptions& options, std::size_t lower_bound, PlaceSpace& space,
                          Placement& best) {
    best.arena = sweep(b, best.offset, space.sweep);
    best.strategy = ArenaStrategy::sweep;
    best.proven = lower_bound;
    const std::size_t n = b.count();
    constexpr std::size_t least_owners = 4096;  // small problems get the budget of this many: every strategy
    std::size_t budget = saturating_mul(options.work_per_owner, std::max(n, least_owners));
    if (best.arena <= lower_bound || budget == 0) return;
    const auto spend = [&budget](std::size_t steps) {
        if (steps > budget) return false;
        budget -= steps;
        return true;
    };
    const auto consider = [&](std::size_t arena, ArenaStrategy strategy) {
        if (arena < best.arena) {
            best.arena = arena;
            best.offset.assign(space.offset.begin(), space.offset.end());
            best.strategy = strategy;
        }
    };

    // The greedy orders: each finds every pair of buffers that meet once.
    const Meetings m = meetings(b);
    const std::size_t greedy_steps = saturating_mul(saturating_add(n, m.pairs), log2_steps(n));
    if (greedy_steps <= budget) {
        const auto orders = greedy_orders(b, m);
        constexpr ArenaStrategy names[4][2] = {
            {ArenaStrategy::size_best_fit, ArenaStrategy::size_first_fit},
            {ArenaStrategy::lifetime_best_fit, ArenaStrategy::lifetime_first_fit},
            {ArenaStrategy::area_best_fit, ArenaStrategy::area_first_fit},
            {ArenaStrategy::conflict_best_fit, ArenaStrategy::conflict_first_fit},
        };
        // The likeliest to reach the bound first (size is TFLite's order, and
        // wins on most real models; conflicts on residual chains): an early
        // stop at the bound then saves the rest.
        constexpr std::pair<std::size_t, Fit> passes[] = {{0, Fit::best}, {3, Fit::best}, {0, Fit::first},
                                                          {3, Fit::first}, {1, Fit::best}, {1, Fit::first},
                                                          {2, Fit::best}, {2, Fit::first}};
        for (const auto& [k, fit] : passes) {
            if (best.arena <= lower_bound || !spend(greedy_steps)) return;
            consider(place_in_order(b, orders[k], fit, space.offset, space.greedy), names[k][fit == Fit::first]);
        }
    }
    if (b.pinned > 0) return;  // the skylines and the searches do not keep pins

    // The skylines, deterministic, then the opt-in searches, where one
    // skyline fits in what is left.
    std::size_t positions = 0;
    for (std::size_t i = 0; i < n; ++i) positions = std::max<std::size_t>(positions, std::size_t{b.end[i]} + 1);
    // A skyline takes at least n rounds of positions + n steps each (more
    // when it raises stretches): it starts only if those fit, and stops
    // when the budget is spent (its placement then does not count).
    const std::size_t skyline_steps = saturating_mul(n, saturating_add(positions, n));
    constexpr std::pair<Prefer, ArenaStrategy> skylines[] = {{Prefer::size, ArenaStrategy::skyline_size},
                                                             {Prefer::area, ArenaStrategy::skyline_area},
                                                             {Prefer::lifetime, ArenaStrategy::skyline_lifetime}};
    for (const auto& [prefer, name] : skylines) {
        if (best.arena <= lower_bound || budget < skyline_steps) return;
        consider(skyline(b, prefer, nullptr, space.sky, space.offset, budget), name);
    }
    const auto deadline = deadline_after(std::chrono::steady_clock::now(), options.time_limit);
    if (options.exact_nodes > 0 && best.arena > lower_bound)
        exact_search(b, best.proven, best.arena, options.exact_nodes, deadline, space.offset,
                     [&](std::size_t arena) { consider(arena, ArenaStrategy::exact_search); });
    SplitMix rng{0x243F6A8885A308D3ull};
    for (std::uint32_t it = 0; it < options.search_iterations && best.arena > lower_bound; ++it) {
        if ((it & 7u) == 0 && std::chrono::steady_clock::now() >= deadline) break;
        std::size_t unlimited = size_max;  // the restarts are bounded by their count and the time limit
        consider(skyline(b, skylines[it % 3].first, &rng, space.sky, space.offset, unlimited),
                 ArenaStrategy::randomized_skyline);
    }
}

}  // namespace onnx_runtime_memory::detail
