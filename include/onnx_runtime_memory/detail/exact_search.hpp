// The exact search's schedule over capacities, tie-break orders and node
// budgets (the search itself is OffsetSearch, offset_search.hpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "buffers.hpp"
#include "checked.hpp"
#include "deadline.hpp"
#include "offset_search.hpp"

namespace onnx_runtime_memory::detail {

// The exact search's schedule (see the top of this file). Each round runs
// every tie-break order at each capacity, then doubles the node budget: the
// search is heavy-tailed, so many short runs of different orders beat one
// long run. Calls found(arena) with `offset` filled for each plan better
// than the best. `known` (at least the lower bound) rises past each capacity
// the search proves infeasible: no placement is smaller.
template <class Found>
void exact_search(const Buffers& b, std::size_t& known, std::size_t best, std::uint64_t nodes,
                  const Deadline& deadline, std::vector<std::size_t>& offset, Found&& found) {
    // The search recurses twice per placed buffer (about 180 bytes of stack
    // each, unoptimised): at most 1,024 buffers keeps it under 400 KB.
    // Beyond 4M overlap pairs plus buffer-sections, its tables (and each
    // node) would cost too much to try.
    constexpr std::size_t max_buffers = 1024, max_work = std::size_t{1} << 22;
    OffsetSearch search;
    if (b.count() > max_buffers || !search.prepare(b.def, b.end, b.size, b.length, max_work)) return;
    // Tie-break orders (OffsetSearch::run): MiniMalloc's, searching its
    // parts afresh as it does, and ours, keeping the canonical order across
    // parts. Each is the first to finish on some instance of MiniMalloc's
    // hard set: at the bound, where no byte is spare (together they solve
    // every instance whose bound is feasible, each in at most 50,000 nodes
    // of one order), or above it, where the orders by lifetime do best.
    struct Order {
        const char* rank;
        bool fresh_parts;
    };
    constexpr Order at_bound[] = {{"TWA", true}, {"TO", false}, {"SZ", false}, {"ELA", false}, {"TEZ", false}};
    constexpr Order above_bound[] = {{"TWA", true}, {"TLA", false}, {"OL", false}};
    const std::size_t lower_bound = known;
    const std::size_t percent = std::max<std::size_t>(lower_bound / 100, 1);
    for (std::uint64_t budget = 2 * std::uint64_t{b.count()}; nodes > 0 && known < best;
         budget = budget > nodes / 2 ? nodes : budget * 2) {
        // Capacities: the bound, then 2% and 4% above it, then up in steps of
        // 4% while below the best. The bound gets eight times the budget of a
        // capacity above it: a plan found there is final, and the section
        // check prunes best where no byte is spare (a capacity above it is
        // often harder: on the hard set, 2% of slack turns searches of
        // 1,000-50,000 nodes into ones that fail at 500,000).
        for (std::size_t rung = 0, last = 0;; ++rung) {
            std::size_t above = 0;
            if (mul_overflows(percent, rung <= 2 ? 2 * rung : 4 * (rung - 1), above)) break;
            const std::size_t capacity = std::max(known, saturating_add(lower_bound, above));
            if (capacity >= best) break;
            if (rung > 0 && capacity == last) continue;  // a proof raised `known` past this rung
            last = capacity;
            const std::span<const Order> orders = rung == 0 ? std::span<const Order>(at_bound) : above_bound;
            for (const auto& [rank, fresh_parts] : orders) {
                const std::uint64_t wanted = rung == 0 ? (budget > nodes / 4 ? nodes : 4 * budget) : budget / 2;
                const std::uint64_t given = std::min(wanted, nodes);
                std::uint64_t left = given;
                const auto result = search.run(capacity, rank, fresh_parts, left, offset, deadline);
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
                if (nodes == 0 || deadline.passed()) return;
            }
            if (known >= best) return;
        }
    }
}

}  // namespace onnx_runtime_memory::detail
