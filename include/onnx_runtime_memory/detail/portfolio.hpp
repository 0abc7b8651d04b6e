// The portfolio: every strategy on one offset problem, the best kept (ties
// to the earlier), under the options' limits.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "../plan_types.hpp"
#include "buffers.hpp"
#include "greedy.hpp"
#include "exact_search.hpp"
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
};

[[nodiscard]] inline Placement place_buffers(const Buffers& b, const ArenaOptions& options, std::size_t lower_bound) {
    Placement best;
    best.arena = sweep(b, best.offset);
    best.strategy = ArenaStrategy::sweep;
    if (best.arena <= lower_bound || b.count() > options.quadratic_limit) return best;

    const auto started = std::chrono::steady_clock::now();
    std::vector<std::size_t> offset;  // each strategy's placement; kept when it beats the best
    const auto consider = [&](std::size_t arena, ArenaStrategy strategy) {
        if (arena < best.arena) {
            best.arena = arena;
            best.offset = offset;
            best.strategy = strategy;
        }
    };
    std::vector<std::pair<std::size_t, std::size_t>> scratch;
    std::vector<std::uint32_t> placed;
    const auto orders = greedy_orders(b);
    constexpr ArenaStrategy names[4][2] = {
        {ArenaStrategy::size_best_fit, ArenaStrategy::size_first_fit},
        {ArenaStrategy::lifetime_best_fit, ArenaStrategy::lifetime_first_fit},
        {ArenaStrategy::area_best_fit, ArenaStrategy::area_first_fit},
        {ArenaStrategy::conflict_best_fit, ArenaStrategy::conflict_first_fit},
    };
    for (std::size_t k = 0; k < orders.size(); ++k) {
        for (Fit fit : {Fit::best, Fit::first}) {
            if (best.arena <= lower_bound) return best;
            consider(place_in_order(b, orders[k], fit, offset, scratch, placed), names[k][fit == Fit::first]);
        }
    }

    // The skyline, deterministic, then randomised restarts.
    Skyline sky;
    constexpr std::pair<Prefer, ArenaStrategy> skylines[] = {{Prefer::size, ArenaStrategy::skyline_size},
                                                             {Prefer::area, ArenaStrategy::skyline_area},
                                                             {Prefer::lifetime, ArenaStrategy::skyline_lifetime}};
    for (const auto& [prefer, name] : skylines) {
        if (best.arena <= lower_bound) return best;
        consider(skyline(b, prefer, nullptr, sky, offset), name);
    }
    const auto deadline = deadline_after(started, options.time_limit);
    if (options.exact_nodes > 0 && best.arena > lower_bound)
        exact_search(b, lower_bound, best.arena, options.exact_nodes, deadline, offset,
                     [&](std::size_t arena) { consider(arena, ArenaStrategy::exact_search); });
    SplitMix rng{0x243F6A8885A308D3ull};
    for (std::uint32_t it = 0; it < options.search_iterations && best.arena > lower_bound; ++it) {
        if ((it & 7u) == 0 && std::chrono::steady_clock::now() >= deadline) break;
        consider(skyline(b, skylines[it % 3].first, &rng, sky, offset), ArenaStrategy::randomized_skyline);
    }
    return best;
}

}  // namespace onnx_runtime_memory::detail
