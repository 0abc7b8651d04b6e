// The portfolio: every strategy on one offset problem, the best kept (ties
// to the earlier), under the options' work budget and limits.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <utility>
#include <vector>

#include "../plan_types.hpp"
#include "buffers.hpp"
#include "checked.hpp"
#include "deadline.hpp"
#include "exact_search.hpp"
#include "first_fit.hpp"
#include "greedy.hpp"
#include "repack.hpp"
#include "skyline.hpp"
#include "sweep.hpp"

namespace onnx_runtime_memory::detail {

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
    FirstFitSpace first_fit;
    Skyline sky;
    SkylineRuns runs;
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

// After the sweep: the greedy orders and the skylines while their predicted
// steps fit in `budget`, then the opt-in searches, which their own counts
// bound (see place_buffers). `pairs`: meeting_pairs(b).
inline void place_within_budget(const Buffers& b, std::uint64_t pairs, const ArenaOptions& options,
                                std::size_t lower_bound, std::size_t& budget,
                                const Deadline& deadline, PlaceSpace& space, Placement& best,
                                bool& size_first_fit_ran, bool& lifetime_skyline_ran) {
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
            if (best.arena <= lower_bound || greedy_steps > budget) break;
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
// 10k U-Net 648. Returns whether its plan is kept. `pairs`: meeting_pairs(b).
inline bool size_peak_first_fit(const Buffers& b, std::uint64_t pairs, std::size_t lower_bound,
                                std::size_t most_per_owner, std::size_t& budget, PlaceSpace& space, Placement& best) {
    const std::size_t n = b.count();
    if (best.arena <= lower_bound || n == 0 || most_per_owner == 0) return false;
    const std::size_t per_owner = 12 * square_root(static_cast<std::size_t>(pairs / n));
    if (per_owner > most_per_owner || saturating_mul(per_owner, n) > budget) return false;
    size_peak_order(b, space.orders, space.order[0]);
    const std::size_t arena = place_first_fit(b, space.order[0], space.offset, space.first_fit, budget, best.arena);
    if (arena >= best.arena) return false;
    consider(arena, ArenaStrategy::size_peak_first_fit, space, best);
    return true;
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
// outlives the block it alone reaches the bound; not charged, as the sweeps
// are not: it gives up past 4 log2 n steps a placement). Run after a first fit that won, neither improved its
// plan on the bench's random DAGs of 5k, 10k and 20k nodes (eight seeds
// each), where skipping them saves 11-25% of the time. Pinned buffers keep their pins: the sweep
// and the greedy orders pack the rest around them; the others do not run.
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
    bool size_first_fit_ran = false, lifetime_skyline_ran = false;
    place_within_budget(b, pairs, options, lower_bound, budget, deadline, space, best, size_first_fit_ran,
                        lifetime_skyline_ran);
    if (b.pinned > 0) return;
    if (!size_first_fit_ran && size_peak_first_fit(b, pairs, lower_bound, options.first_fit_steps, budget, space, best))
        return;
    if (best.arena > lower_bound) consider(mirrored_sweep(b, space, best.arena), ArenaStrategy::mirrored_sweep, space, best);
    repack_rounds(b, lower_bound, budget, space, best);
    if (lifetime_skyline_ran || best.arena <= lower_bound) return;
    std::size_t steps = size_max;
    consider(skyline_by_runs(b, Prefer::lifetime, space.runs, space.offset, steps, best.arena, 4 * log2_steps(b.count())),
             ArenaStrategy::skyline_lifetime, space, best);
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

// Places every buffer into `best`: the strategies (place_strategies), then,
// unless the sweep alone plans (work_per_owner 0), the top settled
// (settle_top) where the bytes miss their bound.
inline void place_buffers(const Buffers& b, const ArenaOptions& options, const ArenaBound& bound, PlaceSpace& space,
                          Placement& best) {
    place_strategies(b, options, bound.rounded, space, best);
    if (options.work_per_owner > 0) settle_top(b, bound.bytes, space, best);
}

}  // namespace onnx_runtime_memory::detail
