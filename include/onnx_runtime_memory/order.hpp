// Execution orders: the planner plans for the order the graph presents.
// For a graph stored out of order, topological_order finds one and in_order
// presents the graph in it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <queue>
#include <span>
#include <utility>
#include <vector>

#include "detail/dense_graph.hpp"
#include "detail/ids.hpp"
#include "errors.hpp"
#include "expected.hpp"
#include "graph.hpp"

namespace onnx_runtime_memory {

// A topological order of the nodes (Kahn's algorithm, the smallest ready
// node first, so a graph already in order keeps its order). A node depends on
// the producers of its inputs; inputs nobody produces (graph inputs,
// initializers) add no dependency. A cycle is PlanError::cycle naming the
// smallest node on or behind it. O((V + E) log N).
template <activation_graph G>
[[nodiscard]] expected<std::vector<NodeIndex>, PlanError> topological_order(const G& g) {
    using T = graph_traits<G>;
    using Kind = PlanError::Kind;
    const auto size = detail::checked_size(g);
    if (!size) return unexpected(size.error());
    const auto [V, N] = *size;
    std::vector<NodeIndex> producer(V, no_node);
    for (std::size_t n = 0; n < N; ++n) {
        for (auto x : T::node_outputs(g, n)) {
            const auto v = detail::to_value_id(x, V);
            if (!v) return unexpected(detail::out_of_range(x, static_cast<NodeIndex>(n)));
            if (producer[*v] != no_node) return unexpected(make_plan_error(Kind::produced_twice, *v, static_cast<NodeIndex>(n)));
            producer[*v] = static_cast<NodeIndex>(n);
        }
    }
    // Dependency edges producer -> consumer, one per read, as CSR. Each
    // node's inputs are walked once: the edges are kept, not walked again.
    std::vector<std::uint32_t> waiting(N, 0);
    std::vector<std::uint32_t> first(N + 1, 0);
    std::vector<std::pair<NodeIndex, NodeIndex>> edges;  // (producer, consumer), by consumer
    for (std::size_t n = 0; n < N; ++n) {
        for (auto x : T::node_inputs(g, n)) {
            const auto v = detail::to_value_id(x, V);
            if (!v) return unexpected(detail::out_of_range(x, static_cast<NodeIndex>(n)));
            if (producer[*v] == no_node) continue;
            ++waiting[n];
            ++first[std::size_t{producer[*v]} + 1];
            edges.emplace_back(producer[*v], static_cast<NodeIndex>(n));
        }
    }
    for (std::size_t n = 0; n < N; ++n) first[n + 1] += first[n];
    std::vector<NodeIndex> consumers(edges.size());
    {
        std::vector<std::uint32_t> fill(first.begin(), first.end() - 1);
        for (const auto& [p, c] : edges) consumers[fill[p]++] = c;
    }

    std::priority_queue<NodeIndex, std::vector<NodeIndex>, std::greater<>> ready;
    for (std::size_t n = 0; n < N; ++n)
        if (waiting[n] == 0) ready.push(static_cast<NodeIndex>(n));
    std::vector<NodeIndex> order;
    order.reserve(N);
    while (!ready.empty()) {
        const NodeIndex n = ready.top();
        ready.pop();
        order.push_back(n);
        for (std::uint32_t k = first[n]; k < first[n + 1]; ++k)
            if (--waiting[consumers[k]] == 0) ready.push(consumers[k]);
    }
    if (order.size() < N) {
        for (std::size_t n = 0; n < N; ++n)
            if (waiting[n] != 0) return unexpected(make_plan_error(Kind::cycle, no_value, static_cast<NodeIndex>(n)));
    }
    return order;
}

namespace detail {

// Whether `order` is a permutation of `nodes` nodes: bad_order names the
// first repeated or out-of-range node, or the first node missing.
[[nodiscard]] inline expected<void, PlanError> check_order(std::size_t nodes, std::span<const NodeIndex> order) {
    std::vector<std::uint8_t> seen(nodes, 0);
    for (NodeIndex n : order) {
        if (n >= nodes || seen[n]) return unexpected(make_plan_error(PlanError::Kind::bad_order, no_value, n));
        seen[n] = true;
    }
    for (std::size_t n = 0; n < nodes; ++n)
        if (!seen[n]) return unexpected(make_plan_error(PlanError::Kind::bad_order, no_value, static_cast<NodeIndex>(n)));
    return {};
}

}  // namespace detail

// A graph presented in a given node order: node n of the adaptor is node
// order[n] of the base graph. Models activation_graph, and shaped_graph when
// the base does. Keeps a reference to the base graph.
template <activation_graph G>
class OrderedGraph {
public:
    using Base = graph_traits<G>;

    [[nodiscard]] auto value_count() const { return Base::value_count(*base_); }
    [[nodiscard]] std::size_t node_count() const { return order_.size(); }
    [[nodiscard]] decltype(auto) node_inputs(std::size_t n) const { return Base::node_inputs(*base_, order_[n]); }
    [[nodiscard]] decltype(auto) node_outputs(std::size_t n) const { return Base::node_outputs(*base_, order_[n]); }
    [[nodiscard]] decltype(auto) graph_inputs() const { return Base::graph_inputs(*base_); }
    [[nodiscard]] decltype(auto) graph_outputs() const { return Base::graph_outputs(*base_); }
    [[nodiscard]] bool is_initializer(ValueId v) const { return Base::is_initializer(*base_, v); }
    [[nodiscard]] decltype(auto) element_type(ValueId v) const
        requires shaped_graph<G>
    {
        return Base::element_type(*base_, v);
    }
    [[nodiscard]] decltype(auto) dims(ValueId v) const
        requires shaped_graph<G>
    {
        return Base::dims(*base_, v);
    }

    // Position n of this order runs base node order()[n].
    [[nodiscard]] const std::vector<NodeIndex>& order() const noexcept { return order_; }
    [[nodiscard]] const G& base() const noexcept { return *base_; }

    // `order` must be a permutation of g's nodes (PlanError::bad_order names
    // the first repeated or out-of-range node, or the first node missing).
    [[nodiscard]] static expected<OrderedGraph, PlanError> create(const G& g, std::vector<NodeIndex> order) {
        const auto size = detail::checked_size(g);
        if (!size) return unexpected(size.error());
        if (auto ok = detail::check_order(size->nodes, order); !ok) return unexpected(ok.error());
        return OrderedGraph(g, std::move(order));
    }

    // The adaptor keeps a reference: a temporary graph would dangle.
    static void create(const G&&, std::vector<NodeIndex>) = delete;

private:
    OrderedGraph(const G& g, std::vector<NodeIndex> order) : base_(&g), order_(std::move(order)) {}

    const G* base_;
    std::vector<NodeIndex> order_;
};

// Presents g in `order`, a permutation of its nodes (see OrderedGraph::create).
// Whether the order is a valid schedule is checked when planning.
template <activation_graph G>
[[nodiscard]] expected<OrderedGraph<G>, PlanError> in_order(const G& g, std::vector<NodeIndex> order) {
    return OrderedGraph<G>::create(g, std::move(order));
}

// The graph in topological order (see topological_order).
template <activation_graph G>
[[nodiscard]] expected<OrderedGraph<G>, PlanError> in_topological_order(const G& g) {
    auto order = topological_order(g);
    if (!order) return unexpected(order.error());
    return in_order(g, std::move(*order));
}

namespace detail {

// A graph already read, in `order` (checked as OrderedGraph::create checks
// it), into `out`.
[[nodiscard]] inline expected<void, PlanError> in_order(const DenseGraph& g, std::span<const NodeIndex> order, DenseGraph& out) {
    if (auto ok = check_order(g.node_count(), order); !ok) return ok;
    reorder(g, order, out);
    return {};
}

}  // namespace detail

// The adaptors keep a reference to the graph: a temporary would dangle.
template <activation_graph G>
void in_order(const G&&, std::vector<NodeIndex>) = delete;
template <activation_graph G>
void in_topological_order(const G&&) = delete;

}  // namespace onnx_runtime_memory
