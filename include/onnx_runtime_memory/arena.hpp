// Arena planning: a byte offset for every owner inside one arena, instead
// of slots. Offsets can pack buffers of different sizes into the gaps slots
// leave, down to the lower bound on most real graphs.
//
// Strategies, best result kept (ties to the earlier one); the seed's slot
// plan laid out in one arena is a candidate too (ArenaStrategy::slots):
//   sweep        in execution order, best fit into the free gaps, growing the
//                arena at the top when nothing fits; O(n log n)
//   greedy       buffers in a fixed order (size, lifetime, area, conflicts:
//                each decreasing), each placed into the best (or first) gap
//                among the buffers already placed that it overlaps in time;
//                O(n * k), k the overlapping buffers; only up to
//                ArenaOptions::greedy_limit owners
//   skyline      bottom-left packing over time: take the lowest point of the
//                skyline (the tops of what is placed, per node position) and
//                place there a buffer that fits the flat stretch around it
//                (largest by size, area or lifetime), else raise the stretch
//                to its lower neighbour; O(n * (T + n)), T the positions;
//                also only up to greedy_limit owners
//   exact_search a MiniMalloc-style branch and bound (detail/offset_search.hpp)
//                for offsets under a capacity: first the lower bound (a find
//                there is optimal), then 2%, 4%, 8%, ... above it while below
//                the best so far, five tie-break orders each, the node budget
//                doubled every round; a capacity it proves infeasible raises
//                the bound instead. Up to ArenaOptions::exact_nodes nodes
//   search       randomised skyline restarts (seeded: deterministic), a
//                fixed number of them
// Both searches are opt-in, and both stop early at options.time_limit (then
// the best so far; the result may then depend on the machine's speed).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <numeric>
#include <optional>
#include <utility>
#include <vector>

#include "bounds.hpp"
#include "detail/checked.hpp"
#include "detail/offset_search.hpp"
#include "detail/treap.hpp"
#include "errors.hpp"
#include "expected.hpp"
#include "liveness.hpp"
#include "plan.hpp"
#include "sizing.hpp"
#include "validate.hpp"

namespace onnx_runtime_memory {

inline constexpr std::size_t no_offset = std::numeric_limits<std::size_t>::max();

struct ArenaOptions {
    std::size_t alignment = 64;           // every offset a multiple of this (0 counts as 1)
    std::size_t greedy_limit = 20000;     // the O(n * k) strategies and the searches run only up to this many owners
    std::uint32_t search_iterations = 0;  // randomised skyline restarts after the other strategies
    std::chrono::microseconds time_limit{0};  // if > 0, stop both searches early when it is spent
    // Last, so that 0.1's positional initialisers keep their meaning.
    std::uint64_t exact_nodes = 0;  // node budget of the exact search (0: none; up to 1,024 owners); ~1 us a node
};

enum class ArenaStrategy : std::uint8_t {
    slots,            // laid out from a slot plan (arena_from_slots)
    sweep,            // in execution order, best fit, growing at the top
    size_best_fit,    // decreasing size, best gap
    size_first_fit,   // decreasing size, lowest gap
    lifetime_best_fit,
    lifetime_first_fit,
    area_best_fit,
    area_first_fit,
    conflict_best_fit,
    conflict_first_fit,
    skyline_size,     // skyline, largest size first
    skyline_area,     // skyline, largest size x lifetime first
    skyline_lifetime, // skyline, longest lifetime first
    search,           // a randomised skyline restart
    exact_search,     // the branch and bound under a capacity
};

[[nodiscard]] constexpr const char* to_string(ArenaStrategy s) noexcept {
    switch (s) {
        case ArenaStrategy::slots: return "slots";
        case ArenaStrategy::sweep: return "sweep";
        case ArenaStrategy::size_best_fit: return "size_best_fit";
        case ArenaStrategy::size_first_fit: return "size_first_fit";
        case ArenaStrategy::lifetime_best_fit: return "lifetime_best_fit";
        case ArenaStrategy::lifetime_first_fit: return "lifetime_first_fit";
        case ArenaStrategy::area_best_fit: return "area_best_fit";
        case ArenaStrategy::area_first_fit: return "area_first_fit";
        case ArenaStrategy::conflict_best_fit: return "conflict_best_fit";
        case ArenaStrategy::conflict_first_fit: return "conflict_first_fit";
        case ArenaStrategy::skyline_size: return "skyline_size";
        case ArenaStrategy::skyline_area: return "skyline_area";
        case ArenaStrategy::skyline_lifetime: return "skyline_lifetime";
        case ArenaStrategy::search: return "search";
        case ArenaStrategy::exact_search: return "exact_search";
    }
    return "unknown";
}

// Where every value lives in one arena of arena_bytes.
struct ArenaPlan {
    // offsets[v]: the owner's offset; a view's is its root owner's;
    // no_offset for values outside the arena. One entry per value id.
    std::vector<std::size_t> offsets;
    // The arena to allocate: the largest offset + size, sizes rounded up to
    // the alignment (so a multiple of it).
    std::size_t arena_bytes = 0;
    std::size_t alignment = 1;
    ArenaStrategy strategy = ArenaStrategy::sweep;

    [[nodiscard]] std::optional<std::size_t> offset_of(ValueId v) const noexcept {
        if (v >= offsets.size() || offsets[v] == no_offset) return std::nullopt;
        return offsets[v];
    }
    friend bool operator==(const ArenaPlan&, const ArenaPlan&) = default;
};

using ArenaStatus = BasicPlanStatus<ArenaPlan>;

namespace detail {

// The offset problem: owners as buffers with a time interval and an aligned size.
struct Buffers {
    std::vector<ValueId> value;
    std::vector<NodeIndex> def, end;
    std::vector<std::size_t> size;  // rounded up to the alignment

    [[nodiscard]] std::size_t count() const noexcept { return value.size(); }
    [[nodiscard]] bool overlap(std::size_t a, std::size_t b) const noexcept {
        return def[a] <= end[b] && def[b] <= end[a];
    }
};

// Fills b from the owners in (def, id) order; a size that cannot be rounded
// up, or a total that overflows, is an error naming the owner.
[[nodiscard]] inline expected<void, PlanError> make_buffers(const Liveness& live, const std::vector<std::size_t>& sizes,
                                                            std::size_t alignment, Buffers& b) {
    const std::size_t n = live.owners.size();
    b.value = live.owners;
    b.def.resize(n);
    b.end.resize(n);
    b.size.resize(n);
    std::size_t total = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const ValueId v = live.owners[i];
        b.def[i] = live.intervals[v].def;
        b.end[i] = live.intervals[v].use_end;
        if (align_up_overflows(sizes[v], alignment, b.size[i]) || add_overflows(total, b.size[i], total))
            return unexpected(make_plan_error(PlanError::Kind::size_overflow, v));
    }
    return {};
}

// In execution order: allocate each buffer at its def into the best-fitting
// free gap (smallest, then lowest), else at the top; free it after its last
// use, merging free neighbours. Free gaps live in two treap indexes (by
// size, by offset) over a pool of gap ids. O(n log n).
[[nodiscard]] inline std::size_t sweep(const Buffers& b, std::vector<std::size_t>& offset) {
    const std::size_t n = b.count();
    offset.assign(n, 0);
    std::vector<std::size_t> gap_off, gap_size;
    std::vector<std::uint32_t> spare;  // gap ids to reuse
    TreapIndex by_size, by_off;
    const auto size_less = [&](std::uint32_t x, std::uint32_t y) {
        return gap_size[x] != gap_size[y] ? gap_size[x] < gap_size[y] : gap_off[x] < gap_off[y];
    };
    const auto off_less = [&](std::uint32_t x, std::uint32_t y) { return gap_off[x] < gap_off[y]; };
    const auto add_gap = [&](std::size_t off, std::size_t size) {
        std::uint32_t id;
        if (spare.empty()) {
            id = static_cast<std::uint32_t>(gap_off.size());
            gap_off.push_back(off);
            gap_size.push_back(size);
        } else {
            id = spare.back();
            spare.pop_back();
            gap_off[id] = off;
            gap_size[id] = size;
        }
        by_size.insert(id, size_less);
        by_off.insert(id, off_less);
    };
    const auto drop_gap = [&](std::uint32_t id) {
        by_size.erase(id, size_less);
        by_off.erase(id, off_less);
        spare.push_back(id);
    };
    // Buffers by def (they are in (def, id) order already) and by end.
    std::vector<std::uint32_t> by_end(n);
    std::iota(by_end.begin(), by_end.end(), 0u);
    std::stable_sort(by_end.begin(), by_end.end(), [&](std::uint32_t x, std::uint32_t y) { return b.end[x] < b.end[y]; });

    std::size_t top = 0, arena = 0, next = 0, done = 0;
    while (next < n || done < n) {
        const NodeIndex p = next < n ? std::min(b.def[next], b.end[by_end[done]]) : b.end[by_end[done]];
        for (; next < n && b.def[next] == p; ++next) {
            const std::size_t need = b.size[next];
            if (need == 0) continue;  // takes no bytes: offset 0
            const std::uint32_t g = by_size.first_not([&](std::uint32_t x) { return gap_size[x] < need; });
            if (g != TreapIndex::nil) {
                offset[next] = gap_off[g];
                const std::size_t off = gap_off[g] + need, rest = gap_size[g] - need;
                drop_gap(g);
                if (rest > 0) add_gap(off, rest);
            } else {
                offset[next] = top;
                top += need;
                arena = std::max(arena, top);
            }
        }
        for (; done < n && b.end[by_end[done]] == p; ++done) {
            const std::uint32_t x = by_end[done];
            if (b.size[x] == 0) continue;
            std::size_t off = offset[x], size = b.size[x];
            const std::uint32_t before = by_off.last_below([&](std::uint32_t y) { return gap_off[y] < off; });
            if (before != TreapIndex::nil && gap_off[before] + gap_size[before] == off) {
                off = gap_off[before];
                size += gap_size[before];
                drop_gap(before);
            }
            const std::uint32_t after = by_off.first_not([&](std::uint32_t y) { return gap_off[y] < off + size; });
            if (after != TreapIndex::nil && gap_off[after] == off + size) {
                size += gap_size[after];
                drop_gap(after);
            }
            if (off + size == top) top = off;  // the top of the arena is free again
            else add_gap(off, size);
        }
    }
    return arena;
}

enum class Fit : std::uint8_t { best, first };

// Places buffers in `order`, each into the best (smallest, then lowest) or
// first (lowest) gap among the placed buffers it overlaps in time, else
// above them all. `scratch` holds the overlapping [offset, end) pairs.
[[nodiscard]] inline std::size_t place_in_order(const Buffers& b, const std::vector<std::uint32_t>& order, Fit fit,
                                                std::vector<std::size_t>& offset,
                                                std::vector<std::pair<std::size_t, std::size_t>>& scratch,
                                                std::vector<std::uint32_t>& placed) {
    offset.assign(b.count(), 0);
    placed.clear();
    std::size_t arena = 0;
    for (std::uint32_t x : order) {
        const std::size_t need = b.size[x];
        if (need == 0) continue;
        scratch.clear();
        for (std::uint32_t y : placed)
            if (b.overlap(x, y)) scratch.emplace_back(offset[y], offset[y] + b.size[y]);
        std::sort(scratch.begin(), scratch.end());
        std::size_t cursor = 0, chosen = no_offset, chosen_gap = no_offset;
        for (const auto& [lo, hi] : scratch) {
            if (lo > cursor && lo - cursor >= need && lo - cursor < chosen_gap) {
                chosen = cursor;
                chosen_gap = lo - cursor;
                if (fit == Fit::first) break;
            }
            cursor = std::max(cursor, hi);
        }
        offset[x] = chosen != no_offset ? chosen : cursor;
        arena = std::max(arena, offset[x] + need);
        placed.push_back(x);
    }
    return arena;
}

// The four greedy orders: decreasing size, lifetime, area and conflicts
// (the total size of the buffers it overlaps), ties to the earlier buffer.
// make_buffers checked that the sizes' total fits, so no sum here overflows.
[[nodiscard]] inline std::vector<std::vector<std::uint32_t>> greedy_orders(const Buffers& b) {
    const std::size_t n = b.count();
    constexpr std::size_t max = std::numeric_limits<std::size_t>::max();
    std::vector<std::size_t> length(n), area(n), conflict(n);
    NodeIndex last = 0;
    for (std::size_t i = 0; i < n; ++i) {
        length[i] = std::size_t{b.end[i]} - b.def[i] + 1;
        area[i] = b.size[i] != 0 && length[i] > max / b.size[i] ? max : b.size[i] * length[i];
        last = std::max(last, b.end[i]);
    }
    // y overlaps x iff def[y] <= end[x] and end[y] >= def[x]: prefix sums of
    // sizes by def and by end give each x's total in O(1).
    std::vector<std::size_t> born(std::size_t{last} + 2, 0), gone(std::size_t{last} + 2, 0);
    for (std::size_t i = 0; i < n; ++i) {
        born[std::size_t{b.def[i]} + 1] += b.size[i];
        gone[std::size_t{b.end[i]} + 1] += b.size[i];
    }
    for (std::size_t p = 1; p < born.size(); ++p) {
        born[p] += born[p - 1];  // born[p]: sizes with def < p
        gone[p] += gone[p - 1];  // gone[p]: sizes with end < p
    }
    for (std::size_t i = 0; i < n; ++i) conflict[i] = born[std::size_t{b.end[i]} + 1] - gone[b.def[i]] - b.size[i];
    const auto by = [&](const std::vector<std::size_t>& first, const std::vector<std::size_t>& second) {
        std::vector<std::uint32_t> order(n);
        std::iota(order.begin(), order.end(), 0u);
        std::stable_sort(order.begin(), order.end(), [&](std::uint32_t x, std::uint32_t y) {
            return first[x] != first[y] ? first[x] > first[y] : second[x] > second[y];
        });
        return order;
    };
    return {by(b.size, length), by(length, b.size), by(area, b.size), by(conflict, b.size)};
}

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
// the arena, or SIZE_MAX if it got stuck (it cannot on valid input).
struct Skyline {
    std::vector<std::size_t> height;  // by position: the top of what is placed there
    std::vector<std::uint32_t> cover; // by position: unplaced buffers still covering it
    std::vector<bool> done;
};
[[nodiscard]] inline std::size_t skyline(const Buffers& b, Prefer prefer, SplitMix* rng, Skyline& sky,
                                         std::vector<std::size_t>& offset) {
    const std::size_t n = b.count();
    std::size_t positions = 0;
    for (std::size_t i = 0; i < n; ++i) positions = std::max<std::size_t>(positions, std::size_t{b.end[i]} + 1);
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
    while (remaining > 0) {
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
            const double length = static_cast<double>(b.end[i] - b.def[i] + 1);
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
        sky.done[pick] = true;
        --remaining;
    }
    return arena;
}

// The exact search's schedule (see the top of this file). Each round runs
// every tie-break order at each capacity, then doubles the node budget: the
// search is heavy-tailed, so many short runs of different orders beat one
// long run. Calls found(arena) with `offset` filled for each plan better
// than the best.
template <class Found>
void exact_search(const Buffers& b, std::size_t lower_bound, std::size_t best, std::uint64_t nodes,
                  std::chrono::steady_clock::time_point deadline, std::vector<std::size_t>& offset, Found&& found) {
    // The search recurses twice per placed buffer (about 180 bytes of stack
    // each, unoptimised): at most 1,024 buffers keeps it under 400 KB.
    // Beyond 4M overlap pairs plus buffer-sections, its tables (and each
    // node) would cost too much to try.
    constexpr std::size_t max_buffers = 1024, max_work = std::size_t{1} << 22;
    OffsetSearch search;
    if (b.count() > max_buffers || !search.prepare(b.def, b.end, b.size, max_work)) return;
    // Tie-break orders (OffsetSearch::run): MiniMalloc's section total
    // first, later end first, area first, overlaps first, total then end.
    constexpr const char* ranks[] = {"TLA", "ELA", "AE", "OL", "TEZ"};
    std::size_t known = lower_bound;  // no smaller arena exists
    const std::size_t percent = std::max<std::size_t>(lower_bound / 100, 1);
    for (std::uint64_t budget = 2 * std::uint64_t{b.count()}; nodes > 0 && known < best;
         budget = budget > nodes / 2 ? nodes : budget * 2) {
        // Capacities: the bound, then 2% and 4% above it, then up in steps of
        // 4% while below the best. The bound gets twice the budget: a plan
        // found there is final.
        for (std::size_t rung = 0, last = 0;; ++rung) {
            std::size_t above = 0;
            if (mul_overflows(percent, rung <= 2 ? 2 * rung : 4 * (rung - 1), above)) break;
            const std::size_t capacity = std::max(known, saturating_add(lower_bound, above));
            if (capacity >= best) break;
            if (rung > 0 && capacity == last) continue;  // a proof raised `known` past this rung
            last = capacity;
            for (const char* rank : ranks) {
                const std::uint64_t given = std::min(rung == 0 ? 2 * budget : budget, nodes);
                std::uint64_t left = given;
                const auto result = search.run(capacity, rank, left, offset, deadline);
                nodes -= given - left;
                if (result == OffsetSearch::Result::found) {
                    best = 0;
                    for (std::size_t i = 0; i < b.count(); ++i) best = std::max(best, offset[i] + b.size[i]);
                    found(best);
                    break;
                }
                if (result == OffsetSearch::Result::infeasible) {
                    known = capacity + 1;
                    break;
                }
                if (nodes == 0 || std::chrono::steady_clock::now() >= deadline) return;
            }
            if (known >= best) return;
        }
    }
}

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
    if (best.arena <= lower_bound || b.count() > options.greedy_limit) return best;

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
        consider(skyline(b, skylines[it % 3].first, &rng, sky, offset), ArenaStrategy::search);
    }
    return best;
}

// A view lives at its root owner's offset.
inline void place_views(const Liveness& live, std::vector<std::size_t>& offsets) {
    for (std::size_t v = 0; v < live.value_count(); ++v)
        if (live.roots[v] != v && live.is_owner(live.roots[v])) offsets[v] = offsets[live.roots[v]];
}

// Offsets by value id: owners from the placement, views their root's.
inline void fill_offsets(const Liveness& live, const Buffers& b, const std::vector<std::size_t>& offset,
                         std::vector<std::size_t>& out) {
    out.assign(live.value_count(), no_offset);
    for (std::size_t i = 0; i < b.count(); ++i) out[b.value[i]] = offset[i];
    place_views(live, out);
}

}  // namespace detail

// Lays a slot plan out in one arena: slot k at the sum of the (aligned)
// capacities of slots 0 .. k-1; each owner at its slot's offset, each view
// at its root's. What the executor does with a slot plan and one allocation.
[[nodiscard]] inline expected<ArenaPlan, PlanError> arena_from_slots(const Liveness& live, const ActivationPlan& plan,
                                                                     std::size_t alignment = 64) {
    if (auto ok = check_liveness(live); !ok) return unexpected(ok.error());
    alignment = std::max<std::size_t>(alignment, 1);
    std::vector<std::size_t> slot_offset(plan.slots.size());
    std::size_t top = 0;
    for (std::size_t s = 0; s < plan.slots.size(); ++s) {
        slot_offset[s] = top;
        std::size_t c = 0;
        if (detail::align_up_overflows(plan.slots[s].capacity, alignment, c) || detail::add_overflows(top, c, top))
            return unexpected(make_plan_error(PlanError::Kind::size_overflow));
    }
    ArenaPlan arena;
    arena.arena_bytes = top;
    arena.alignment = alignment;
    arena.strategy = ArenaStrategy::slots;
    arena.offsets.assign(live.value_count(), no_offset);
    for (ValueId v : live.owners)
        if (const auto s = plan.slot_of(v); s && s->value < slot_offset.size()) arena.offsets[v] = slot_offset[s->value];
    detail::place_views(live, arena.offsets);
    return arena;
}

namespace detail {

// plan_arena from a liveness known to be well formed.
template <class Oracle>
[[nodiscard]] expected<ArenaStatus, PlanError> plan_offsets(const Liveness& live, Oracle& oracle,
                                                            const ArenaOptions& options) {
    std::vector<std::size_t> sizes;
    std::vector<ValueId> unknown;
    auto naive = detail::size_owners(live, oracle, sizes, unknown);
    if (!naive) return unexpected(naive.error());
    if (!unknown.empty()) return ArenaStatus::deferred(std::move(unknown));
    const std::size_t alignment = std::max<std::size_t>(options.alignment, 1);
    detail::Buffers buffers;
    if (auto ok = detail::make_buffers(live, sizes, alignment, buffers); !ok) return unexpected(ok.error());
    const std::size_t bound = detail::offset_lower_bound(live, sizes, alignment);
    detail::Placement placement = detail::place_buffers(buffers, options, bound);
    if (placement.arena > bound) {  // the seed's slot plan, laid out, is a candidate too: never worse than it
        detail::Schedule schedule;
        detail::make_schedule(live, schedule);
        detail::SlotPool pool;
        ActivationPlan slots;
        detail::assign_slots(live, schedule, sizes, *naive, pool, slots);
        auto from_slots = arena_from_slots(live, slots, alignment);  // (checks the liveness again: O(V), rare)
        if (!from_slots) return unexpected(from_slots.error());
        if (from_slots->arena_bytes < placement.arena) return ArenaStatus::complete(std::move(*from_slots));
    }
    ArenaPlan plan;
    plan.arena_bytes = placement.arena;
    plan.alignment = alignment;
    plan.strategy = placement.strategy;
    detail::fill_offsets(live, buffers, placement.offset, plan.offsets);
    return ArenaStatus::complete(std::move(plan));
}

}  // namespace detail

// An arena plan from a liveness: the oracle is asked once per owner, in
// owner order; Deferred when some size is unknown. A liveness of the wrong
// shape is PlanError::bad_liveness (check_liveness).
template <size_oracle Oracle>
[[nodiscard]] expected<ArenaStatus, PlanError> plan_arena(const Liveness& live, Oracle&& oracle,
                                                          const ArenaOptions& options = {}) {
    if (auto ok = check_liveness(live); !ok) return unexpected(ok.error());
    return detail::plan_offsets(live, oracle, options);
}

// Computes the liveness, then plans the arena. O(n log n) for the sweep, plus
// O(n * k) for the greedy orders up to options.greedy_limit owners, plus the
// search iterations asked for.
template <activation_graph G, size_oracle Oracle>
[[nodiscard]] expected<ArenaStatus, PlanError> plan_arena(const G& g, const ViewMap& views, Oracle&& oracle,
                                                          const PlanOptions& plan_options = {},
                                                          const ArenaOptions& options = {}) {
    auto live = compute_liveness(g, views, plan_options);
    if (!live) return unexpected(live.error());
    return detail::plan_offsets(*live, oracle, options);
}

// Validates an arena plan against the graph, recomputing liveness. The
// caller states the `alignment` its executor needs (0 counts as 1): the
// plan's own alignment field is not believed, nor anything else it says
// about itself. Each owner (owner order) has an offset (MissingAssignment),
// a multiple of `alignment` (MisalignedOffset), ending inside arena_bytes
// (OutsideArena); no two owners live together overlap in bytes
// (OffsetOverlap); each view sits at its root's offset (ViewOffsetMismatch);
// then validate_liveness. Unknown sizes skip the checks that need them.
// O(n log n).
template <activation_graph G, size_oracle Oracle>
[[nodiscard]] expected<void, ValidateError> validate_arena(const G& g, const ViewMap& views, const ArenaPlan& plan,
                                                           Oracle&& oracle, std::size_t alignment,
                                                           const PlanOptions& options = {}) {
    using Kind = ValidateError::Kind;
    auto live = compute_liveness(g, views, options);
    if (!live) return unexpected(ValidateError::from(live.error()));
    const auto fail = [](Kind kind, ValueId v, ValueId other = no_value) {
        ValidateError err;
        err.kind = kind;
        err.value = v;
        err.other = other;
        return unexpected(err);
    };
    alignment = std::max<std::size_t>(alignment, 1);
    std::vector<std::size_t> size(live->value_count(), 0);
    for (ValueId v : live->owners) {
        const auto off = plan.offset_of(v);
        if (!off) return fail(Kind::missing_assignment, v);
        if (*off % alignment != 0) return fail(Kind::misaligned_offset, v);
        size[v] = oracle(v).value_or(0);
        std::size_t end = 0;
        if (detail::add_overflows(*off, size[v], end) || end > plan.arena_bytes) return fail(Kind::outside_arena, v);
    }
    // Sweep positions with the live owners ordered by offset: the set stays
    // disjoint in bytes as long as each newcomer clears its two neighbours.
    const auto& off = plan.offsets;
    const auto by_offset = [&](std::uint32_t a, std::uint32_t b) { return off[a] != off[b] ? off[a] < off[b] : a < b; };
    detail::TreapIndex active;
    detail::Schedule schedule;
    detail::make_schedule(*live, schedule);
    const auto& order = live->allocation_order;
    std::size_t next = 0;
    for (std::size_t p = 0; p <= live->last_position; ++p) {
        for (; next < order.size() && live->intervals[order[next]].def == p; ++next) {
            const ValueId x = order[next];
            if (size[x] == 0) continue;
            const std::uint32_t before = active.last_below([&](std::uint32_t y) { return by_offset(y, x); });
            const std::uint32_t after = active.first_not([&](std::uint32_t y) { return by_offset(y, x); });
            if (before != detail::TreapIndex::nil && off[before] + size[before] > off[x])
                return fail(Kind::offset_overlap, std::min<ValueId>(before, x), std::max<ValueId>(before, x));
            if (after != detail::TreapIndex::nil && off[x] + size[x] > off[after])
                return fail(Kind::offset_overlap, std::min<ValueId>(after, x), std::max<ValueId>(after, x));
            active.insert(x, by_offset);
        }
        for (std::uint32_t k = schedule.retire_begin[p]; k < schedule.retire_begin[p + 1]; ++k)
            if (size[schedule.retired[k]] != 0) active.erase(schedule.retired[k], by_offset);
    }
    for (std::size_t v = 0; v < live->value_count(); ++v) {
        const ValueId r = live->roots[v];
        if (r != v && live->is_owner(r) && plan.offset_of(static_cast<ValueId>(v)) != plan.offset_of(r))
            return fail(Kind::view_offset_mismatch, static_cast<ValueId>(v), r);
    }
    return validate_liveness(g, views, *live);
}

}  // namespace onnx_runtime_memory
