// order_problem: a graph as the memory-aware order's search sees it:
// nodes, the owners' buffers (sized, aligned), which nodes each waits for,
// and which buffers each node uses. memory_order.hpp searches it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "../errors.hpp"
#include "../expected.hpp"
#include "../graph.hpp"
#include "../liveness.hpp"
#include "../sizes.hpp"
#include "../sizing.hpp"
#include "../view_map.hpp"
#include "checked.hpp"
#include "ids.hpp"
#include "order_search.hpp"

namespace onnx_runtime_memory::detail {

// The graph as an order problem. Unknown sizes count 0 bytes.
template <activation_graph G, class Oracle>
[[nodiscard]] expected<OrderProblem, PlanError> order_problem(const G& g, const ViewMap& views, Oracle& oracle,
                                                              const PlanOptions& options, std::size_t alignment) {
    using T = graph_traits<G>;
    PlanOptions plain = options;
    plain.inplace.clear();
    auto live = compute_liveness(g, views, plain);
    if (!live) return unexpected(live.error());
    OwnerSizes sizes;
    size_owners(*live, oracle, sizes);
    if (auto ok = sizes.windows_inside(); !ok) return unexpected(ok.error());
    const std::size_t V = live->value_count();
    OrderProblem p;
    p.nodes = static_cast<std::size_t>(T::node_count(g));
    std::vector<std::uint32_t> buffer(V, 0xFFFFFFFFu);
    for (ValueId v : live->owners) {
        buffer[v] = static_cast<std::uint32_t>(p.size.size());
        p.size.push_back(saturating_align_up(sizes.bytes[v], alignment_or_one(alignment)));
    }
    p.users.assign(p.size.size(), 0);
    p.kept.assign(p.size.size(), false);
    p.producer.assign(p.size.size(), OrderProblem::no_producer);
    for (auto x : T::graph_outputs(g))
        if (const auto v = to_value_id(x, V); v && buffer[live->roots[*v]] != 0xFFFFFFFFu) p.kept[buffer[live->roots[*v]]] = true;
    std::vector<NodeIndex> producer(V, no_node);
    for (std::size_t n = 0; n < p.nodes; ++n)
        for (auto x : T::node_outputs(g, n))
            if (const auto v = to_value_id(x, V)) producer[*v] = static_cast<NodeIndex>(n);
    // A root's bytes exist from its producer on, or, with parts, from the
    // first node writing one in the given order: every order keeps that
    // node first (the other parts' producers wait for it) and each part
    // before its whole, so the buffer is allocated at one node in all of them.
    std::vector<NodeIndex> starts = producer;
    std::vector<std::pair<NodeIndex, NodeIndex>> part_edges;  // (node, a node it must wait for)
    for (const auto& [part, whole] : live->parts) {
        const ValueId r = live->roots[part];
        starts[r] = live->intervals[r].def;
        part_edges.emplace_back(producer[part], starts[r]);
        part_edges.emplace_back(producer[whole], producer[part]);
    }
    std::sort(part_edges.begin(), part_edges.end());
    std::vector<std::uint32_t> seen_node(p.nodes, 0xFFFFFFFFu), seen_buffer(p.size.size(), 0xFFFFFFFFu);
    p.alloc.assign(p.nodes, 0);
    auto part_edge = part_edges.begin();
    for (std::size_t n = 0; n < p.nodes; ++n) {
        const auto stamp = static_cast<std::uint32_t>(n);
        const auto wait = [&](NodeIndex m) {
            if (m != no_node && m != n && seen_node[m] != stamp) {
                seen_node[m] = stamp;
                p.preds.push_back(m);
            }
        };
        for (; part_edge != part_edges.end() && part_edge->first == n; ++part_edge) wait(part_edge->second);
        const auto use = [&](ValueId r) {
            const std::uint32_t b = buffer[r];
            if (b != 0xFFFFFFFFu && seen_buffer[b] != stamp) {
                seen_buffer[b] = stamp;
                p.uses.push_back(b);
                ++p.users[b];
            }
        };
        for (auto x : T::node_inputs(g, n)) {
            const auto v = to_value_id(x, V);
            if (!v) continue;
            wait(producer[*v]);
            wait(starts[live->roots[*v]]);
            use(live->roots[*v]);
        }
        for (auto x : T::node_outputs(g, n)) {
            const auto v = to_value_id(x, V);
            if (!v) continue;
            const ValueId r = live->roots[*v];
            if (r != *v) wait(starts[r]);  // a view's root exists first
            use(r);
        }
        p.pred_begin.push_back(static_cast<std::uint32_t>(p.preds.size()));
        p.use_begin.push_back(static_cast<std::uint32_t>(p.uses.size()));
    }
    for (ValueId v : live->owners)
        if (starts[v] != no_node) {
            p.producer[buffer[v]] = static_cast<std::uint32_t>(starts[v]);
            p.alloc[starts[v]] = saturating_add(p.alloc[starts[v]], p.size[buffer[v]]);
        } else {  // a graph input in the arena: live from the start
            if (p.users[buffer[v]] > 0 || p.kept[buffer[v]]) p.initial = saturating_add(p.initial, p.size[buffer[v]]);
            else p.at_start = saturating_add(p.at_start, p.size[buffer[v]]);
        }
    // Successors: the predecessor lists reversed.
    p.succ_begin.assign(p.nodes + 1, 0);
    for (std::uint32_t m : p.preds) ++p.succ_begin[std::size_t{m} + 1];
    for (std::size_t n = 0; n < p.nodes; ++n) p.succ_begin[n + 1] += p.succ_begin[n];
    p.succs.resize(p.preds.size());
    std::vector<std::uint32_t> fill(p.succ_begin.begin(), p.succ_begin.end() - 1);
    for (std::size_t n = 0; n < p.nodes; ++n)
        for (std::uint32_t j = p.pred_begin[n]; j < p.pred_begin[n + 1]; ++j)
            p.succs[fill[p.preds[j]]++] = static_cast<std::uint32_t>(n);
    return p;
}

}  // namespace onnx_runtime_memory::detail
