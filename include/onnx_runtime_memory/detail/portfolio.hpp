// The portfolio: every strategy on one offset problem, the best kept (ties
// to the earlier), under the options' work budget and limits; the
// strategies that finish what the budget left are in finishing.hpp.
#pragma once

#include "config.hpp"
#if defined(ONNX_RUNTIME_MEMORY_SEPARATE_COMPILATION) && !defined(ONNX_RUNTIME_MEMORY_SOURCE)
#error "detail/portfolio.hpp is the compiled core's: include offsets.hpp (src.hpp defines the core once)"
#endif

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "../plan_types.hpp"
#include "buffers.hpp"
#include "checked.hpp"
#include "deadline.hpp"
#include "exact_search.hpp"
#include "finishing.hpp"
#include "first_fit.hpp"
#include "greedy.hpp"
#include "place.hpp"
#include "skyline.hpp"
#include "sweep.hpp"

namespace onnx_runtime_memory::detail {

// After the sweep: the greedy orders and the skylines while their predicted
// steps fit in `budget`, then the opt-in searches, which their own counts
// bound (see place_buffers). `pairs`: meeting_pairs(b). Before each greedy
// order, runs_before(its steps) may place by runs (see place_strategies).
template <class RunsBefore>
void place_within_budget(const Buffers& b, std::uint64_t pairs, const ArenaOptions& options, std::size_t lower_bound,
                         std::size_t& budget, const Deadline& deadline, PlaceSpace& space, Placement& best,
                         bool& size_first_fit_ran, bool& lifetime_skyline_ran, RunsBefore&& runs_before) {
    const std::size_t n = b.count();
    const auto consider = [&](std::size_t arena, ArenaStrategy strategy) { detail::consider(arena, strategy, space, best); };

    // The greedy orders: each finds every pair of buffers that meet once.
    const std::size_t greedy_steps = saturating_mul(saturating_add(n, pairs), log2_steps(n));
    if (greedy_steps <= budget) {
        const bool scan = scan_placed(n, pairs);
        std::array<bool, 5> built{};  // space.order[k] is built when a pass first needs it
        bool met = false;             // and space.meeting_bytes when the conflicts order is
        // Orders by index: 0 size (ties to the longest), 1 lifetime, 2
        // area, 3 conflicts, 4 size in order of first use.
        struct Pass {
            std::size_t order;
            Fit fit;
            ArenaStrategy name;
        };
        // The likeliest to reach the bound first, so that the early stop
        // there saves the rest: size with the best fit (TFLite's order but
        // for ties, which go to the longest; it wins on most real models),
        // then conflicts (residual chains), then size with the first fit,
        // equal sizes in order of first use (TFLite's ties: with the best
        // fit's it ended 0.1-2.4% higher on the bench's random DAGs of 5k
        // and 20k nodes, six seeds each). Where most pairs meet (the scan),
        // size with the first fit comes second: on the bench's 1k random
        // DAG it reaches the bound where the best fit stops 0.07% above.
        // Where pairs pass n^2 / 24 it comes first: the best fit's scan
        // reads every placed buffer, the first fit a window of them, and on
        // the bench's random DAGs (pairs about n^2 / 14) and U-Nets (n^2 /
        // 4) of 1k nodes the first fit took 0.6 and 0.5 of the best fit's
        // time, came out smaller on 41 of 50 random DAGs and reached the
        // bound on all 50 U-Nets (the best fit on 40). On the corpus's
        // densest, densenet121 (n^2 / 39), it takes 1.65 times as long.
        // Where the budget holds both and the first stops above the bound,
        // the order moves only the plan kept at a tie; where it holds one
        // (the bench's random DAG of 2k nodes), that one is the first fit.
        using enum ArenaStrategy;
        std::array<Pass, 8> passes = {{{0, Fit::best, size_best_fit},     {3, Fit::best, conflict_best_fit},
                                       {4, Fit::first, size_first_fit},   {3, Fit::first, conflict_first_fit},
                                       {1, Fit::best, lifetime_best_fit}, {1, Fit::first, lifetime_first_fit},
                                       {2, Fit::best, area_best_fit},     {2, Fit::first, area_first_fit}}};
        if (scan) std::swap(passes[1], passes[2]);                          // size, first fit second
        if (scan && pairs / n >= n / 24) std::swap(passes[0], passes[1]);  // and first
        for (const Pass& pass : passes) {
            if (best.arena <= lower_bound || greedy_steps > budget || runs_before(greedy_steps)) break;
            auto& order = space.order[pass.order];
            if (!built[pass.order]) {
                if (pass.order == 3 && !met) meetings(b, space.meeting_bytes, space.orders);
                met = met || pass.order == 3;
                greedy_order(b, space.meeting_bytes, pass.order, space.orders, order);
                built[pass.order] = true;
            }
            // Where scanning, a first fit goes through place_first_fit: it
            // reads a few of the placed buffers for each (about 100 of 2,500
            // on the bench's 5k random DAG), not all. It is charged what it
            // takes but at least the prediction, so that what runs after it
            // does not change (charged less, the skylines then ran on the
            // bench's 1k random DAGs of seeds +2, +4 and +5, doubling their
            // time for no byte).
            std::size_t arena = no_offset;
            size_first_fit_ran = size_first_fit_ran || pass.name == size_first_fit;
            if (scan && pass.fit == Fit::first) {
                std::size_t left = budget;
                arena = place_first_fit(b, order, space.offset, space.first_fit, left, best.arena);
                budget = std::min(left, budget - greedy_steps);
            } else {
                budget -= greedy_steps;
                arena = place_in_order(b, order, pass.fit, scan, space.offset, space.greedy, {}, best.arena);
            }
            if (arena != no_offset) consider(arena, pass.name);
        }
    }
    if (b.pinned > 0) return;  // the skylines and the searches do not keep pins

    // The skylines, deterministic, while one fits in what is left.
    const std::size_t positions = b.positions();
    // A skyline takes at least n rounds of positions + n steps each (more
    // when it raises stretches): it starts only if those fit, and stops
    // when the budget is spent (its placement then does not count).
    const std::size_t skyline_steps = saturating_mul(n, saturating_add(positions, n));
    constexpr std::pair<Prefer, ArenaStrategy> skylines[] = {{Prefer::size, ArenaStrategy::skyline_size},
                                                             {Prefer::area, ArenaStrategy::skyline_area},
                                                             {Prefer::lifetime, ArenaStrategy::skyline_lifetime}};
    for (const auto& [prefer, name] : skylines) {
        if (best.arena <= lower_bound || budget < skyline_steps) break;
        consider(skyline(b, prefer, nullptr, space.sky, space.offset, budget, best.arena), name);
        lifetime_skyline_ran = prefer == Prefer::lifetime;
    }

    // The opt-in searches, bounded by their own counts and the time limit,
    // not by the budget: asked for, they run whatever the problem's shape.
    if (options.exact_nodes > 0 && best.arena > lower_bound)
        exact_search(b, best.proven, best.arena, options.exact_nodes, deadline, space.offset,
                     [&](std::size_t arena) { consider(arena, ArenaStrategy::exact_search); });
    SplitMix rng{0x243F6A8885A308D3ull};
    for (std::uint32_t it = 0; it < options.search_iterations && best.arena > lower_bound; ++it) {
        if ((it & 7u) == 0 && deadline.passed()) break;
        std::size_t unlimited = size_max;  // the restarts are bounded by their count and the time limit
        consider(skyline(b, skylines[it % 3].first, &rng, space.sky, space.offset, unlimited),
                 ArenaStrategy::randomized_skyline);
    }
}

// Places every buffer into `best`: the sweep, then the greedy orders and the
// skylines while their predicted steps fit in the budget
// (ArenaOptions::work_per_owner), then the opt-in searches; then, if none
// reached the bound, the first fit by size where the greedy orders could
// not run it (size_peak_first_fit); if that did not win, the sweep mirrored
// in time (as cheap as the first: on graphs too big for the others it is
// often the better of the two), then the best plan's top repacked
// (repack_rounds); last, where the skyline by lifetime did not fit, its
// placements by runs (skyline_by_runs: on residual blocks whose skip
// outlives the block and on kept values it alone reaches the bound; not
// charged, as the sweeps are not: it gives up past 4 log2 n steps a
// placement). It runs earlier, before the greedy order or the first fit
// that would take the budget spent past 16 n log2 n steps (a step of its
// walk costs several of theirs); its plan is kept there only at the
// bound, else where it runs last, so plans are the same. The mirrored sweep
// and the repack do not run after a first fit that won: neither improved
// its plan on the bench's random DAGs of 5k, 10k and 20k nodes (eight seeds
// each), where skipping them saves 11-25% of the time. Pinned buffers keep
// their pins: the sweep and the greedy orders pack the rest around them;
// the others do not run.
// Stops early at the lower bound (no placement can be smaller). Every
// strategy after the sweep but the randomised restarts gives up once its
// arena, which only grows as it places, reaches the best so far, as only a
// smaller one is kept (a restart that stopped early would shift the draws
// of the next). The greedy orders and the repack are charged their
// prediction either way, so what runs after them is unchanged; a skyline is
// charged the rounds it ran, leaving the rest to what follows.
// Deterministic unless options.time_limit cuts a search short.
inline void place_strategies(const Buffers& b, const ArenaOptions& options, std::size_t lower_bound, PlaceSpace& space,
                             Placement& best) {
    // The time limit counts from here: the strategies before the searches take their share.
    const Deadline deadline = Deadline::after(options.time_limit, options.time_limit_clock);
    best.arena = sweep(b, best.offset, space.sweep);
    best.strategy = ArenaStrategy::sweep;
    best.proven = lower_bound;
    constexpr std::size_t least_owners = 4096;  // small problems get the budget of this many: every strategy
    std::size_t budget = saturating_mul(options.work_per_owner, std::max(b.count(), least_owners));
    if (best.arena <= lower_bound || budget == 0) return;
    const std::uint64_t pairs = meeting_pairs(b, space.orders.ended);  // both predictions read it
    // The skyline by runs (last below), where the skyline by lifetime cannot
    // fit in the budget, runs before the strategy that would take what the
    // budget has spent past 16 n log2 n steps: four times its own most, as a
    // step of its walk costs several of a greedy order's (on the bench's
    // residual blocks at 100k: about 12.7 ns against 1.8; with 8 n log2 n it
    // ran, and gave up, on more random DAGs). Where a greedy order and the
    // first fit by size cost that much and stop above the bound (kept
    // values, residual blocks), it alone reaches the bound; there its plan
    // is final, else it is kept aside and considered where it ran before,
    // last: the same plan.
    const std::size_t n = b.count(), total = budget;
    const bool runs_early = b.pinned == 0 && saturating_mul(n, saturating_add(b.positions(), n)) > budget;
    const std::size_t runs_rate = 4 * log2_steps(n);
    bool runs_ran = false;
    std::size_t runs_arena = no_offset;
    const auto place_by_runs = [&](std::vector<std::size_t>& offset) {
        std::size_t unlimited = size_max;  // bounded by its rate, not charged (see skyline_by_runs)
        runs_arena = skyline_by_runs(b, Prefer::lifetime, space.runs, offset, unlimited, best.arena, runs_rate);
    };
    const auto runs_before = [&](std::size_t next_steps) {  // true where it ran and reached the bound
        if (!runs_early || runs_ran || best.arena <= lower_bound ||
            saturating_add(total - budget, next_steps) <= saturating_mul(n, 4 * runs_rate))
            return false;
        runs_ran = true;
        place_by_runs(space.runs_offset);
        if (runs_arena > lower_bound) return false;
        std::swap(space.offset, space.runs_offset);
        consider(runs_arena, ArenaStrategy::skyline_lifetime, space, best);
        return true;
    };
    bool size_first_fit_ran = false, lifetime_skyline_ran = false;
    place_within_budget(b, pairs, options, lower_bound, budget, deadline, space, best, size_first_fit_ran,
                        lifetime_skyline_ran, runs_before);
    if (b.pinned > 0) return;
    if (!size_first_fit_ran) {
        const std::size_t steps = size_peak_first_fit_steps(b, pairs, lower_bound, options.first_fit_steps, budget, best);
        if (steps > 0 && (runs_before(steps) || size_peak_first_fit(b, budget, space, best))) return;
    }
    if (best.arena > lower_bound) consider(mirrored_sweep(b, space, best.arena), ArenaStrategy::mirrored_sweep, space, best);
    repack_rounds(b, lower_bound, budget, space, best);
    if (lifetime_skyline_ran || best.arena <= lower_bound) return;
    if (runs_ran)
        std::swap(space.offset, space.runs_offset);  // its placement, set aside above
    else
        place_by_runs(space.offset);
    consider(runs_arena, ArenaStrategy::skyline_lifetime, space, best);
}

ONNX_RUNTIME_MEMORY_CORE PlaceSpace* new_place_space() { return new PlaceSpace; }
ONNX_RUNTIME_MEMORY_CORE void delete_place_space(PlaceSpace* space) noexcept { delete space; }

// Places every buffer into `best`: the strategies (place_strategies), then,
// unless the sweep alone plans (work_per_owner 0), the top settled
// (settle_top) where the bytes miss their bound.
ONNX_RUNTIME_MEMORY_CORE void place_buffers(const Buffers& b, const ArenaOptions& options, const ArenaBound& bound,
                                            PlaceSpace& space, Placement& best) {
    place_strategies(b, options, bound.rounded, space, best);
    if (options.work_per_owner > 0) settle_top(b, bound.bytes, space, best);
}

}  // namespace onnx_runtime_memory::detail
