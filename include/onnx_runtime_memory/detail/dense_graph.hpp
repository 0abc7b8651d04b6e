// A caller's graph read once into dense rows: the one place a graph type
// reaches the planner's passes. Liveness, the in-place decisions and
// validate_liveness take a DenseGraph, so they are plain functions that the
// compiled core builds once (config.hpp), whatever the caller's graph type;
// only flatten is compiled per graph type. O(V + E) time and memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>
#include <vector>

#include "../errors.hpp"
#include "../expected.hpp"
#include "../graph.hpp"
#include "ids.hpp"

namespace onnx_runtime_memory::detail {

// Every list of a graph, in the caller's order. An id outside the graph is
// kept, not refused here: it is stored as value_count + k, and bad_ids[k]
// names it as the caller wrote it, so that each pass reports it exactly
// where it did on the caller's graph (out_of_range). A DenseGraph models
// activation_graph itself.
struct DenseGraph {
    std::size_t values = 0;
    std::size_t nodes = 0;
    std::vector<std::uint32_t> input_start, output_start;  // by node, nodes + 1 entries: where its row begins
    std::vector<ValueId> inputs, outputs;                  // every node's rows, one after the other
    std::vector<ValueId> graph_input_ids, graph_output_ids;
    std::vector<std::uint8_t> initializer;  // by value
    std::vector<PlanError> bad_ids;

    [[nodiscard]] std::size_t value_count() const noexcept { return values; }
    [[nodiscard]] std::size_t node_count() const noexcept { return nodes; }
    [[nodiscard]] std::span<const ValueId> node_inputs(std::size_t n) const noexcept {
        return std::span<const ValueId>(inputs).subspan(input_start[n], input_start[n + 1] - input_start[n]);
    }
    [[nodiscard]] std::span<const ValueId> node_outputs(std::size_t n) const noexcept {
        return std::span<const ValueId>(outputs).subspan(output_start[n], output_start[n + 1] - output_start[n]);
    }
    [[nodiscard]] std::span<const ValueId> graph_inputs() const noexcept { return graph_input_ids; }
    [[nodiscard]] std::span<const ValueId> graph_outputs() const noexcept { return graph_output_ids; }
    [[nodiscard]] bool is_initializer(ValueId v) const noexcept { return initializer[v] != 0; }

    // The value_out_of_range error for a stored id x >= value_count (at
    // `node`, or in the graph's lists), naming the caller's id.
    [[nodiscard]] PlanError out_of_range(ValueId x, NodeIndex node = no_node) const noexcept {
        const std::size_t k = std::size_t{x} - values;
        PlanError e = k < bad_ids.size() ? bad_ids[k] : id_error(PlanError::Kind::value_out_of_range, x);
        e.node = node;
        return e;
    }
};

// Reads g into `dense`, walking each list once: is_initializer by value,
// the graph's inputs and outputs, then each node's inputs and outputs.
// Refuses only a graph too large to number (graph_too_large: counts past
// max_graph_ids, or lists holding more than max_graph_edges ids, at the
// node whose list passed it); every other fault is the passes' to report.
// Not for a DenseGraph: it is read already (read_graph uses it where it
// lies; reading its rows again would lose how its bad ids were written).
template <activation_graph G>
    requires(!std::is_same_v<G, DenseGraph>)
[[nodiscard]] expected<void, PlanError> flatten(const G& g, DenseGraph& dense) {
    using T = graph_traits<G>;
    const auto size = checked_size(g);
    if (!size) return unexpected(size.error());
    const std::size_t V = size->values, N = size->nodes;
    dense.values = V;
    dense.nodes = N;
    dense.bad_ids.clear();
    dense.initializer.assign(V, 0);
    for (std::size_t v = 0; v < V; ++v)
        if (T::is_initializer(g, static_cast<ValueId>(v))) dense.initializer[v] = 1;
    std::size_t stored = 0;
    // Appends the ids of one list; false once the lists hold too many.
    const auto read = [&](auto&& ids, std::vector<ValueId>& into) {
        for (auto x : ids) {
            if (++stored > max_graph_edges) return false;
            if (const auto v = to_value_id(x, V)) {
                into.push_back(*v);
            } else {
                into.push_back(static_cast<ValueId>(V + dense.bad_ids.size()));
                dense.bad_ids.push_back(id_error(PlanError::Kind::value_out_of_range, x));
            }
        }
        return true;
    };
    const auto too_large = [](std::size_t n) {
        return unexpected(make_plan_error(PlanError::Kind::graph_too_large, no_value, static_cast<NodeIndex>(n)));
    };
    dense.graph_input_ids.clear();
    dense.graph_output_ids.clear();
    if (!read(T::graph_inputs(g), dense.graph_input_ids) || !read(T::graph_outputs(g), dense.graph_output_ids))
        return too_large(no_node);
    dense.inputs.clear();
    dense.outputs.clear();
    dense.inputs.reserve(2 * N);  // a guess that saves the regrowths on most graphs: two inputs and
    dense.outputs.reserve(N);     // one output per node (a list that holds more grows as usual)
    dense.input_start.assign(N + 1, 0);
    dense.output_start.assign(N + 1, 0);
    for (std::size_t n = 0; n < N; ++n) {
        if (!read(T::node_inputs(g, n), dense.inputs) || !read(T::node_outputs(g, n), dense.outputs))
            return too_large(n);
        dense.input_start[n + 1] = static_cast<std::uint32_t>(dense.inputs.size());
        dense.output_start[n + 1] = static_cast<std::uint32_t>(dense.outputs.size());
    }
    return {};
}

// g as a DenseGraph, the one way every entry point reads its graph: a
// DenseGraph itself where it lies (the core's templates run on one read
// already: no copy), any other graph flattened into `store`.
template <activation_graph G>
[[nodiscard]] expected<const DenseGraph*, PlanError> read_graph(const G& g, DenseGraph& store) {
    if constexpr (std::is_same_v<G, DenseGraph>) {
        return &g;
    } else {
        if (auto ok = flatten(g, store); !ok) return unexpected(ok.error());
        return &store;
    }
}

// g's rows in `order` (a permutation of its nodes, checked by the caller:
// OrderedGraph::create) into `out`: node k of `out` is node order[k] of g.
// What flatten gives on the ordered graph, ids outside the graph included.
inline void reorder(const DenseGraph& g, std::span<const NodeIndex> order, DenseGraph& out) {
    out.values = g.values;
    out.nodes = order.size();
    out.graph_input_ids = g.graph_input_ids;
    out.graph_output_ids = g.graph_output_ids;
    out.initializer = g.initializer;
    out.bad_ids = g.bad_ids;
    out.inputs.clear();
    out.outputs.clear();
    out.inputs.reserve(g.inputs.size());
    out.outputs.reserve(g.outputs.size());
    out.input_start.assign(order.size() + 1, 0);
    out.output_start.assign(order.size() + 1, 0);
    for (std::size_t k = 0; k < order.size(); ++k) {
        const auto ins = g.node_inputs(order[k]), outs = g.node_outputs(order[k]);
        out.inputs.insert(out.inputs.end(), ins.begin(), ins.end());
        out.outputs.insert(out.outputs.end(), outs.begin(), outs.end());
        out.input_start[k + 1] = static_cast<std::uint32_t>(out.inputs.size());
        out.output_start[k + 1] = static_cast<std::uint32_t>(out.outputs.size());
    }
}

}  // namespace onnx_runtime_memory::detail
