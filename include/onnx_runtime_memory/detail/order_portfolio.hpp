// memory_aware_order (memory_order.hpp) once the graph is read: the order
// problem, every strategy on it, the best kept. Inline at the end of memory_order.hpp, or in
// the compiled core (config.hpp).
#pragma once

#include "config.hpp"
#if defined(ONNX_RUNTIME_MEMORY_SEPARATE_COMPILATION) && !defined(ONNX_RUNTIME_MEMORY_SOURCE)
#error "detail/order_portfolio.hpp is the compiled core's: include memory_order.hpp (src.hpp defines the core once)"
#endif

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "../memory_order.hpp"
#include "checked.hpp"
#include "order_exact.hpp"
#include "order_problem.hpp"
#include "order_search.hpp"

namespace onnx_runtime_memory::detail {

ONNX_RUNTIME_MEMORY_CORE MemoryOrder search_order(const OrderProblem& p, const OrderOptions& order_options, bool keep_found,
                                                  std::vector<std::pair<OrderStrategy, std::vector<NodeIndex>>>& found) {
    MemoryOrder best;
    best.order.resize(p.nodes);
    for (std::size_t n = 0; n < p.nodes; ++n) best.order[n] = static_cast<NodeIndex>(n);
    best.peak_bytes = best.given_peak_bytes = detail::simulate_peak(p, best.order);
    best.tried.emplace_back(OrderStrategy::given, best.peak_bytes);
    std::vector<std::pair<std::size_t, std::vector<NodeIndex>>> heuristic;  // the heuristics' orders and peaks: where
                                                                             // the windows may start
    const auto consider = [&](std::vector<NodeIndex> order, OrderStrategy strategy) {
        const std::size_t peak = detail::simulate_peak(p, order);
        best.tried.emplace_back(strategy, peak);
        if (keep_found) found.emplace_back(strategy, order);
        if (strategy != OrderStrategy::exact && strategy != OrderStrategy::window) heuristic.emplace_back(peak, order);
        if (peak < best.peak_bytes) {
            best.peak_bytes = peak;
            best.order = std::move(order);
            best.strategy = strategy;
        }
    };
    using State = detail::ListState;
    std::size_t steps = order_options.list_steps;
    if (auto o = detail::list_schedule(
            p, [](std::size_t a_alloc, std::size_t a_freed, std::size_t b_alloc, std::size_t b_freed, const State&) {
                return detail::saturating_add(a_freed, b_alloc) > detail::saturating_add(b_freed, a_alloc);
            }, steps))
        consider(std::move(*o), OrderStrategy::list);
    std::vector<std::size_t> heavy(p.nodes, 0);  // bytes opened by a node and all its ancestors (counted per path)
    for (std::size_t n = 0; n < p.nodes; ++n) {
        heavy[n] = p.alloc[n];
        for (std::uint32_t j = p.pred_begin[n]; j < p.pred_begin[n + 1]; ++j)
            heavy[n] = detail::saturating_add(heavy[n], heavy[p.preds[j]]);
    }
    consider(detail::post_order(p, heavy), OrderStrategy::dfs);
    std::vector<std::size_t> earlier(p.nodes);  // the lower node first
    for (std::size_t n = 0; n < p.nodes; ++n) earlier[n] = p.nodes - n;
    consider(detail::post_order(p, earlier), OrderStrategy::post_order);
    steps = order_options.list_steps;
    if (auto o = detail::list_schedule(
            p, [](std::size_t a_alloc, std::size_t a_freed, std::size_t b_alloc, std::size_t b_freed, const State& s) {
                const std::size_t a = std::max(s.peak, detail::saturating_add(s.live, a_alloc));
                const std::size_t b = std::max(s.peak, detail::saturating_add(s.live, b_alloc));
                if (a != b) return a < b;
                return detail::saturating_add(a_alloc, b_freed) < detail::saturating_add(b_alloc, a_freed);
            }, steps))
        consider(std::move(*o), OrderStrategy::frontier);
    // Bytes live in every order: where the best reaches them, it is optimal.
    if (std::size_t bound_steps = order_options.bound_steps; bound_steps > 0)
        if (const auto bound = detail::forced_peak(p, std::size_t{1} << 21, bound_steps)) best.lower_bound_bytes = *bound;
    best.proven_optimal = best.peak_bytes <= best.lower_bound_bytes;

    // The exact search, part by part between the cut nodes of the best order
    // so far (the parts' node sets are the same in every order). Sets
    // peaking at the best so far are dropped: a part with no order below it
    // keeps its order, and when every part finishes the best is optimal.
    // It runs first with a quarter of its steps, and again, with the rest,
    // after the windows: on a lower best if they found one (fewer sets).
    std::size_t exact_budget = order_options.exact_steps;
    const auto exact_pass = [&](std::size_t budget) {
        const std::vector<NodeIndex> base = best.order;
        const auto cut = detail::cut_nodes(p, base);
        std::vector<NodeIndex> exact;
        exact.reserve(p.nodes);
        bool proven = true;
        std::vector<std::uint32_t> left = p.users;  // the state before each part, whatever its order
        std::size_t live = p.initial;
        detail::PartSpace space;
        for (std::size_t begin = 0; begin < p.nodes;) {
            std::size_t end = begin + 1;
            if (!cut[base[begin]])
                while (end < p.nodes && !cut[base[end]]) ++end;
            std::optional<detail::PartOrder> part;
            if (end - begin > 1)
                part = detail::best_part_order(p, base, begin, end, left, live, best.peak_bytes, budget, space);
            if (part && !part->order.empty()) exact.insert(exact.end(), part->order.begin(), part->order.end());
            else exact.insert(exact.end(), base.begin() + static_cast<std::ptrdiff_t>(begin),
                              base.begin() + static_cast<std::ptrdiff_t>(end));
            proven = proven && (part || end - begin == 1);
            for (; begin < end; ++begin) (void)detail::run_node(p, base[begin], left, live);
        }
        consider(std::move(exact), OrderStrategy::exact);
        best.proven_optimal = proven;  // the exact order is optimal, and the best is no higher
        return budget;
    };
    if (!best.proven_optimal && exact_budget > 0 && p.nodes > 0) {
        const std::size_t first = exact_budget / 4, unused = exact_pass(first);
        exact_budget -= first - unused;
    }
    if (!best.proven_optimal && order_options.window_steps > 0 && p.nodes > 1) {
        // Polished from the best order and the two next-best other orders
        // (local searches end where they start), a third of the steps each.
        std::vector<std::vector<NodeIndex>> starts{best.order};
        std::stable_sort(heuristic.begin(), heuristic.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
        for (auto& [peak, order] : heuristic)
            if (starts.size() < 3 && std::find(starts.begin(), starts.end(), order) == starts.end()) starts.push_back(std::move(order));
        for (auto& order : starts) {
            std::size_t budget = order_options.window_steps / 3;
            bool changed = false;
            for (bool more = true; more && budget > 0;) {
                more = detail::lower_peak_by_windows(p, order, std::size_t{1} << 19, budget);
                more = detail::lower_peak_by_moves(p, order, budget) || more;
                changed = changed || more;
            }
            if (changed) consider(std::move(order), OrderStrategy::window);
        }
        best.proven_optimal = best.peak_bytes <= best.lower_bound_bytes;
        if (!best.proven_optimal && exact_budget > 0) (void)exact_pass(exact_budget);
    }
    return best;
}

ONNX_RUNTIME_MEMORY_CORE expected<MemoryOrder, PlanError> dense_memory_aware_order(const DenseGraph& g, const ViewMap& views,
                                                                                  SizeOf oracle, const PlanOptions& options,
                                                                                  const OrderOptions& order_options) {
    auto problem = order_problem(g, views, oracle, options, order_options.alignment);
    if (!problem) return unexpected(problem.error());
    const OrderProblem& p = *problem;
    std::vector<std::pair<OrderStrategy, std::vector<NodeIndex>>> found;  // with hints: each order, measured again
    MemoryOrder best = search_order(p, order_options, !options.inplace.empty(), found);
    // With in-place hints the planner folds by order, which the search does
    // not model: every order found is measured with the hints (the lower
    // bound of its liveness, hints folded in that order), the least kept,
    // ties to the given order then the earlier found, and nothing is proven.
    if (!options.inplace.empty()) {
        const auto bound = [&](const DenseGraph& graph) -> std::optional<std::size_t> {
            auto live = dense_liveness(graph, views, options);
            if (!live) return std::nullopt;
            const auto rounded = [&](ValueId v) {  // every size rounded up, as the search counts them
                std::optional<std::size_t> bytes = oracle(v);
                if (bytes) *bytes = saturating_align_up(*bytes, alignment_or_one(order_options.alignment));
                return bytes;
            };
            auto b = lower_bounds(*live, rounded);
            return b ? std::optional<std::size_t>(b->offset_bytes) : std::nullopt;
        };
        const auto given = bound(g);
        best.proven_optimal = false;
        best.lower_bound_bytes = 0;
        if (given) {
            best.given_peak_bytes = best.peak_bytes = *given;
            for (std::size_t n = 0; n < p.nodes; ++n) best.order[n] = static_cast<NodeIndex>(n);
            best.strategy = OrderStrategy::given;
            for (auto& [strategy, order] : found) {
                DenseGraph ordered;
                const auto peak = in_order(g, order, ordered) ? bound(ordered) : std::nullopt;
                if (peak && *peak < best.peak_bytes) {
                    best.peak_bytes = *peak;
                    best.order = std::move(order);
                    best.strategy = strategy;
                }
            }
        }
    }
    return best;
}

}  // namespace onnx_runtime_memory::detail
