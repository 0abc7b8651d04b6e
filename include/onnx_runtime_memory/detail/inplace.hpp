// In place: which of PlanOptions::inplace's hints are safe to take, decided
// against the liveness without them (compute_liveness folds those taken).
#pragma once

#include "config.hpp"
#if defined(ONNX_RUNTIME_MEMORY_SEPARATE_COMPILATION) && !defined(ONNX_RUNTIME_MEMORY_SOURCE)
#error "detail/inplace.hpp is the compiled core's: include liveness.hpp (src.hpp defines the core once)"
#endif

#include <cstddef>
#include <cstdint>
#include <numeric>
#include <span>
#include <vector>

#include "../liveness.hpp"
#include "dense_graph.hpp"
#include "ids.hpp"
#include "sort.hpp"

namespace onnx_runtime_memory::detail {

// Decides each in-place hint against the liveness without hints (see
// InplaceResult), in the order of the nodes producing their outputs: a fold
// extends the input group's life to the output's last use, so a chain folds
// link by link. O(V + hints log hints + the hinted nodes' inputs).
ONNX_RUNTIME_MEMORY_CORE std::vector<InplaceResult> decide_inplace(const DenseGraph& g, const Liveness& live,
                                                                  std::span<const InplaceHint> hints) {
    using T = graph_traits<DenseGraph>;
    const std::size_t V = live.value_count();
    const auto N = static_cast<std::size_t>(T::node_count(g));  // liveness_of checked it
    std::vector<InplaceResult> result(hints.size(), InplaceResult::not_an_input);
    std::vector<std::uint8_t> output_root(V, 0);  // roots of graph outputs in the arena
    for (auto x : T::graph_outputs(g))
        if (const auto v = to_value_id(x, V); v && live.is_owner(live.roots[*v])) output_root[live.roots[*v]] = true;
    std::vector<std::uint32_t> order;
    for (std::uint32_t h = 0; h < hints.size(); ++h)
        if (hints[h].output < V && hints[h].input < V) order.push_back(h);
    const auto producer = [&](std::uint32_t h) { return live.intervals[hints[h].output].def; };  // no_node if no owner
    detail::sort_by(order, producer);
    std::vector<ValueId> group(V);  // union-find over roots: a fold joins the output to its input's group
    std::iota(group.begin(), group.end(), ValueId{0});
    const auto find = [&](ValueId v) {
        while (group[v] != v) v = group[v] = group[group[v]];
        return v;
    };
    std::vector<std::uint8_t> windowed(V, 0);  // roots whose bytes hold a view at an offset, or parts
    for (std::size_t v = 0; v < live.windows.size(); ++v)
        if (live.windows[v] != 0) windowed[live.roots[v]] = true;
    for (const auto& [part, whole] : live.parts) windowed[live.roots[part]] = true;
    std::vector<NodeIndex> last(V, no_node), folded_at(V, no_node);  // a group's last use, and its last fold
    for (ValueId v : live.owners) last[v] = live.intervals[v].use_end;
    std::vector<NodeIndex> read_by(V, no_node), made_by(V, no_node);  // == n: node n reads / writes v
    NodeIndex marked = no_node;  // the node whose inputs and outputs they hold (hints come by node)
    for (std::uint32_t h : order) {
        const auto [out, in] = hints[h];
        if (!live.is_owner(out) || live.roots[out] != out || group[out] != out) {  // (or folded already)
            result[h] = InplaceResult::output_not_owner;
            continue;
        }
        const NodeIndex n = live.intervals[out].def;
        if (n >= N) continue;  // not_an_input: no node (an empty graph's included input)
        if (marked != n) {  // each node's inputs and outputs are walked once
            marked = n;
            for (auto x : T::node_inputs(g, n))
                if (const auto v = to_value_id(x, V)) read_by[*v] = n;
            for (auto x : T::node_outputs(g, n))
                if (const auto v = to_value_id(x, V)) made_by[*v] = n;
        }
        // An included graph input has def 0 but no producer: no node writes it.
        if (made_by[out] != n || read_by[in] != n) continue;  // not_an_input
        const ValueId r = find(live.roots[in]);
        if (!live.is_owner(live.roots[in])) result[h] = InplaceResult::input_not_owner;
        else if (output_root[r]) result[h] = InplaceResult::input_is_graph_output;
        else if (windowed[r]) result[h] = InplaceResult::input_holds_windows;
        else if (last[r] != n || folded_at[r] == n) result[h] = InplaceResult::input_read_later;
        else {
            result[h] = InplaceResult::taken;
            folded_at[r] = n;  // one output per node into one buffer: a kernel writes them all at once
            group[out] = r;
            last[r] = last[out];
            output_root[r] = output_root[out];
            windowed[r] = windowed[out];  // the output's windows are the group's now
        }
    }
    return result;
}

}  // namespace onnx_runtime_memory::detail
