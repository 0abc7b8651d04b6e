// A memory-aware execution order: a topological order of the graph whose
// peak live bytes (the arena's lower bound) is as small as the search finds,
// never above the order the graph comes in. The caller runs the graph in it
// (in_order presents the graph so) and plans as usual.
//
// The portfolio, best kept (ties to the earlier):
//   given       the graph's own order
//   list        a list scheduler (as XLA's): of the ready nodes, the one that
//               frees the most bytes net of what it opens
//   dfs         a depth-first post-order from the sinks, the heaviest inputs
//               first (as XLA's DFS scheduler: bytes opened by all ancestors)
//   post_order  a depth-first post-order, inputs in node order
//   frontier    of the ready nodes, the one that keeps the peak lowest, then
//               frees the most net
//   exact       dynamic programming over the sets of nodes already run, in
//               each part between cut nodes (nodes every source-to-sink path
//               passes, where the problem splits), dropping the sets that
//               already peak at the best so far; under
//               OrderOptions::exact_steps, optimal where it finishes. It runs
//               first with a quarter of its steps, and again with the rest
//               after the windows (on a lower best if they found one: fewer
//               sets)
//   window      when not proven, the best order and the two next-best
//               heuristic ones polished: windows of up to 256 consecutive
//               steps around the first step at the peak re-ordered by the
//               same dynamic programme, and single nodes moved across it,
//               while the peak (or the number of steps at it) drops; up to
//               window_steps in all
// A lower bound over every order (the bytes live at a node in every order:
// opened by it or an ancestor, used by it or a descendant) proves the best
// optimal where it reaches it.
// In-place hints are not modelled by the search's own accounting; with
// hints, every order a strategy found (and the given one) is measured as the
// planner accounts it, hints folded in that order, and the least kept: never
// above the given order, and not claimed optimal (no bound is computed).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "bounds.hpp"
#include "detail/checked.hpp"
#include "detail/config.hpp"
#include "detail/ids.hpp"
#include "detail/dense_graph.hpp"
#include "detail/order_search.hpp"
#include "errors.hpp"
#include "expected.hpp"
#include "graph.hpp"
#include "liveness.hpp"
#include "order.hpp"
#include "sizes.hpp"
#include "sizing.hpp"
#include "view_map.hpp"

namespace onnx_runtime_memory {

enum class OrderStrategy : std::uint8_t { given, list, dfs, post_order, frontier, exact, window };

[[nodiscard]] constexpr const char* to_string(OrderStrategy s) noexcept {
    switch (s) {
        case OrderStrategy::given: return "given";
        case OrderStrategy::list: return "list";
        case OrderStrategy::dfs: return "dfs";
        case OrderStrategy::post_order: return "post_order";
        case OrderStrategy::frontier: return "frontier";
        case OrderStrategy::exact: return "exact";
        case OrderStrategy::window: return "window";
    }
    return "unknown";
}

struct OrderOptions {
    std::size_t alignment = 1;                   // every size rounded up to this (the top one's too)
    std::size_t exact_steps = std::size_t{1} << 23;  // the exact search's work, in all parts (0: none): a
                                                     // transition costs 1 + nodes / 64, a set kept the
                                                     // 8-byte words it holds (at most 8 bytes a step)
    std::size_t list_steps = std::size_t{1} << 25;   // ready nodes the list schedulers may look at, each
    std::size_t window_steps = std::size_t{1} << 25;  // the windows' transitions and the moves' simulated
                                                      // steps, in all (0: no window search)
    std::size_t bound_steps = std::size_t{1} << 26;  // the lower bound's scan (0: none); its ancestor
                                                     // sets take nodes^2 / 8 bytes, at most 16 MiB
};

struct MemoryOrder {
    std::vector<NodeIndex> order;  // position k runs node order[k]: hand it to in_order
    std::size_t given_peak_bytes = 0;
    std::size_t peak_bytes = 0;
    OrderStrategy strategy = OrderStrategy::given;
    bool proven_optimal = false;  // no topological order has a lower peak
    std::size_t lower_bound_bytes = 0;  // no topological order peaks below (0: not computed)
    std::vector<std::pair<OrderStrategy, std::size_t>> tried;  // each strategy that ran, and its peak
    friend bool operator==(const MemoryOrder&, const MemoryOrder&) = default;
};

namespace detail {

// Every strategy on the order problem, the best kept (the search of
// memory_aware_order, detail/order_portfolio.hpp); with keep_found, each
// order a strategy found is listed in `found` as well.
ONNX_RUNTIME_MEMORY_CORE MemoryOrder search_order(const OrderProblem& p, const OrderOptions& order_options, bool keep_found,
                                                  std::vector<std::pair<OrderStrategy, std::vector<NodeIndex>>>& found);

// memory_aware_order on a graph already read.
ONNX_RUNTIME_MEMORY_CORE expected<MemoryOrder, PlanError> dense_memory_aware_order(const DenseGraph& g, const ViewMap& views,
                                                                                  SizeOf oracle, const PlanOptions& options,
                                                                                  const OrderOptions& order_options);

}  // namespace detail

// The order (see the top of this file) and the peak before and after, in
// bytes rounded up to order_options.alignment. Errors are compute_liveness's
// on the graph as given. O(portfolio): the list schedulers look at up to
// list_steps ready nodes, the exact search takes up to exact_steps steps.
template <activation_graph G, size_oracle Oracle>
[[nodiscard]] expected<MemoryOrder, PlanError> memory_aware_order(const G& g, const ViewMap& views, Oracle&& oracle,
                                                                  const PlanOptions& options = {},
                                                                  const OrderOptions& order_options = {}) {
    detail::DenseGraph store;
    const auto read = detail::read_graph(g, store);
    if (!read) return unexpected(read.error());
    const detail::DenseGraph& dense = **read;
    return detail::dense_memory_aware_order(dense, views, oracle, options, order_options);
}

// A first argument that is no graph: the error names the function it lacks.
template <class G, class... Rest>
    requires detail::not_a_graph<G, Liveness>
expected<MemoryOrder, PlanError> memory_aware_order(const G&, Rest&&...) {
    static_assert(detail::explain_activation_graph<G>());
    return unexpected(PlanError{});
}

}  // namespace onnx_runtime_memory

#if !defined(ONNX_RUNTIME_MEMORY_SEPARATE_COMPILATION)
#include "detail/order_portfolio.hpp"  // the search's code (else the compiled core's: src.hpp)
#endif
