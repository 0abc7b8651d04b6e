// The liveness passes over a DenseGraph: the code behind liveness.hpp's
// declarations (part of the compiled core, config.hpp).
#pragma once

#include "config.hpp"
#if defined(ONNX_RUNTIME_MEMORY_SEPARATE_COMPILATION) && !defined(ONNX_RUNTIME_MEMORY_SOURCE)
#error "detail/liveness_passes.hpp is the compiled core's: include liveness.hpp (src.hpp defines the core once)"
#endif

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "../liveness.hpp"
#include "checked.hpp"
#include "dense_graph.hpp"
#include "ids.hpp"

namespace onnx_runtime_memory::detail {

// root[v] = the value v's view chain ends at (v itself when it has no edge),
// and, when some edge has an offset, window[v] = where v's bytes start in
// its root's (the chain's offsets added; empty otherwise). Rejects edges
// naming values outside the graph, view cycles, and a sum of offsets past
// SIZE_MAX (view_outside_root: no root is that large).
ONNX_RUNTIME_MEMORY_CORE expected<void, PlanError> resolve_roots(const ViewMap& views, std::size_t value_count,
                                                                std::vector<ValueId>& root, std::vector<std::size_t>& window) {
    if (views.unstorable_edge() != no_value)
        return unexpected(make_plan_error(PlanError::Kind::view_unknown_value, no_value));
    std::optional<PlanError> bad;
    views.for_each([&](ValueId view, ValueId source) {
        if (bad) return;
        if (view >= value_count) bad = make_plan_error(PlanError::Kind::view_unknown_value, view);
        else if (source >= value_count) bad = make_plan_error(PlanError::Kind::view_unknown_value, source);
    });
    if (bad) return unexpected(*bad);

    constexpr ValueId unresolved = no_value;
    constexpr ValueId on_path = no_value - 1;
    root.assign(value_count, unresolved);
    window.clear();
    if (views.has_offsets()) window.assign(value_count, 0);
    std::vector<ValueId> path;
    for (std::size_t start = 0; start < value_count; ++start) {
        if (root[start] != unresolved) continue;
        path.clear();
        ValueId x = static_cast<ValueId>(start);
        ValueId r = x;
        for (;;) {
            if (root[x] == on_path) return unexpected(make_plan_error(PlanError::Kind::view_cycle, x));
            if (root[x] != unresolved) {
                r = root[x];
                break;
            }
            const auto source = views.source_of(x);
            if (!source) {
                r = x;
                root[x] = x;
                break;
            }
            root[x] = on_path;
            path.push_back(x);
            x = *source;
        }
        for (ValueId p : path) root[p] = r;
        if (window.empty()) continue;
        for (std::size_t k = path.size(); k-- > 0;) {  // x, where the walk stopped, has its window
            const ValueId p = path[k];
            const std::size_t below = window[k + 1 < path.size() ? path[k + 1] : x];
            if (add_overflows(views.offset_of(p), below, window[p])) {
                PlanError e = make_plan_error(PlanError::Kind::view_outside_root, p);
                e.other = r;
                return unexpected(e);
            }
        }
    }
    return {};
}

// Per-value facts gathered once from the graph.
enum : std::uint8_t { is_input = 1, is_init = 2, is_owner_flag = 4, is_external = 8 };

// The live interval of every buffer owner, checking that the graph's node
// order is one the executor can run: every value a node reads is a graph
// input, an initializer, or produced by an earlier node; no value is
// produced twice; every id is in range; the view map is acyclic and names
// only values of the graph. O(V + E). (compute_liveness without in-place
// hints.)
ONNX_RUNTIME_MEMORY_CORE expected<Liveness, PlanError> liveness_of(const DenseGraph& g, const ViewMap& views,
                                                                  const PlanOptions& options) {
    using T = graph_traits<DenseGraph>;
    using Kind = PlanError::Kind;
    const std::size_t V = g.values, N = g.nodes;  // flatten checked them
    // Scratch for a node the graph does not have (a graph with no nodes
    // included: its last position 0 is no node).
    for (std::size_t n = N; n < options.scratch_bytes.size(); ++n)
        if (options.scratch_bytes[n] > 0)
            return unexpected(make_plan_error(Kind::bad_scratch, no_value, static_cast<NodeIndex>(n)));
    std::vector<ValueId> root;
    std::vector<std::size_t> window;
    if (auto ok = resolve_roots(views, V, root, window); !ok) return unexpected(ok.error());

    std::vector<std::uint8_t> flags(V, 0);
    for (std::size_t v = 0; v < V; ++v)
        if (T::is_initializer(g, static_cast<ValueId>(v))) flags[v] |= is_init;
    for (auto x : T::graph_inputs(g)) {
        const auto v = to_value_id(x, V);
        if (!v) return unexpected(g.out_of_range(x));
        flags[*v] |= is_input;
    }

    // Graph outputs, read once: with external outputs, the root of each
    // (what its bytes are) is allocated by the executor, not planned.
    std::vector<ValueId> outputs;
    for (auto x : T::graph_outputs(g)) {
        const auto v = to_value_id(x, V);
        if (!v) return unexpected(g.out_of_range(x));
        outputs.push_back(*v);
        if (options.outputs == OutputPlacement::external) flags[root[*v]] |= is_external;
    }

    Liveness live;
    live.last_position = N == 0 ? 0 : static_cast<NodeIndex>(N - 1);
    live.intervals.assign(V, Interval{});
    auto& iv = live.intervals;  // during the passes, iv[v].def is v's producer

    // Pass 1: producers, and the produced owners in allocation order. Each
    // range is walked once per pass: views produced are noted for later.
    auto& order = live.allocation_order;
    order.reserve(V);  // owners <= values: one allocation, never moved
    std::vector<ValueId> views_produced;
    for (std::size_t n = 0; n < N; ++n) {
        const auto node = static_cast<NodeIndex>(n);
        for (auto x : T::node_outputs(g, n)) {
            const auto v = to_value_id(x, V);
            if (!v) return unexpected(g.out_of_range(x, node));
            if (iv[*v].def != no_node) return unexpected(make_plan_error(Kind::produced_twice, *v, node));
            iv[*v].def = node;
            if (views.contains(*v)) views_produced.push_back(*v);
            else if (!(flags[*v] & (is_init | is_external))) {
                flags[*v] |= is_owner_flag;
                order.push_back(*v);
            }
        }
    }
    // Owners produced by no node: graph inputs, when the options include
    // them. They are allocated first, by id: append, then rotate to the front.
    if (options.include_graph_inputs) {
        const std::size_t produced = order.size();
        for (std::size_t v = 0; v < V; ++v) {
            if (flags[v] == is_input && iv[v].def == no_node && !views.contains(static_cast<ValueId>(v))) {
                flags[v] |= is_owner_flag;
                order.push_back(static_cast<ValueId>(v));
            }
        }
        std::rotate(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(produced), order.end());
    }

    // Parts (ViewMap::insert_part): each is produced by a node, no later
    // than the value it is a part of, which a node produces too; a root's
    // bytes exist from the first node writing one of its parts on. The one
    // part no node writes: a graph input in the bytes of a graph output the
    // executor holds (OutputPlacement::external), whose bytes then exist
    // from the start: a KV cache, `present` appended to `past` in one buffer.
    std::vector<NodeIndex> begin;           // with parts: by root, the first node writing a part (no_node: none)
    std::vector<std::uint8_t> from_start;   // with parts: by root, holding a graph input
    if (views.has_parts()) {
        begin.assign(V, no_node);
        from_start.assign(V, 0);
        for (std::size_t i = 0; i < V; ++i) {
            const auto v = static_cast<ValueId>(i);
            if (!views.is_part(v)) continue;
            const ValueId whole = *views.source_of(v), r = root[v];
            if (iv[v].def == no_node && (flags[v] & is_input) && (flags[r] & is_external) &&
                iv[whole].def != no_node) {
                from_start[r] = 1;
                live.parts.emplace_back(v, whole);
                continue;
            }
            if (iv[v].def == no_node || iv[whole].def == no_node || iv[r].def == no_node) {
                PlanError e = make_plan_error(Kind::part_not_produced, v);
                e.other = whole;
                return unexpected(e);
            }
            if (iv[v].def > iv[whole].def) {
                PlanError e = make_plan_error(Kind::part_after_whole, v, iv[v].def);
                e.other = whole;
                return unexpected(e);
            }
            begin[r] = std::min(begin[r], iv[v].def);
            live.parts.emplace_back(v, whole);
        }
    }

    // Pass 2: every read must come after the value (and its root's bytes)
    // exist; each read raises the root owner's use_end. use_end = no_node: unread.
    const auto available = [&](ValueId v, std::size_t n) {
        const NodeIndex producer = iv[v].def;
        return producer == no_node ? (flags[v] & (is_input | is_init)) != 0 : producer < n;
    };
    const auto bytes_exist = [&](ValueId r, std::size_t n) {  // a root's bytes, written by it or a part
        return available(r, n) || (!begin.empty() && (begin[r] < n || from_start[r]));
    };
    const auto not_yet = [&](ValueId v, NodeIndex node) {  // a graph input a later node also writes says so
        if ((flags[v] & is_input) && iv[v].def != no_node)
            return make_plan_error(Kind::input_produced, v, iv[v].def);
        return make_plan_error(Kind::used_before_produced, v, node);
    };
    for (std::size_t n = 0; n < N; ++n) {
        const auto node = static_cast<NodeIndex>(n);
        for (auto x : T::node_inputs(g, n)) {
            const auto v = to_value_id(x, V);
            if (!v) return unexpected(g.out_of_range(x, node));
            const ValueId r = root[*v];
            if (!available(*v, n)) return unexpected(not_yet(*v, node));
            if (!bytes_exist(r, n)) {  // v exists but its root does not: a view edge the wrong way round?
                PlanError e = make_plan_error(Kind::view_of_later_value, *v, node);
                e.other = r;
                return unexpected(e);
            }
            if (flags[r] & is_owner_flag) iv[r].use_end = node;
        }
    }
    // A view's production uses its root's bytes like a read, so the root
    // must exist by then (produced earlier or by the same node); a part's
    // writes them.
    for (ValueId v : views_produced) {
        const NodeIndex node = iv[v].def;
        const ValueId r = root[v];
        if (!bytes_exist(r, std::size_t{node} + 1) && !views.is_part(v))
            return unexpected(make_plan_error(Kind::view_before_source, v, node));
        if ((flags[r] & is_owner_flag) && (iv[r].use_end == no_node || iv[r].use_end < node))
            iv[r].use_end = node;
    }
    const auto exists = [&](ValueId v) { return available(v, N); };
    for (const ValueId v : outputs) {
        const ValueId r = root[v];
        if (!exists(v)) return unexpected(make_plan_error(Kind::output_not_produced, v));
        if (!exists(r)) return unexpected(make_plan_error(Kind::output_not_produced, r));
        if (flags[r] & is_owner_flag) iv[r].use_end = live.last_position;
    }

    // Finish the intervals, and list owners in (def, id) order by counting sort.
    std::vector<std::uint32_t> start(std::size_t{live.last_position} + 2, 0);
    for (std::size_t v = 0; v < V; ++v) {
        Interval& i = iv[v];
        if (!(flags[v] & is_owner_flag)) {
            i = Interval{};
            continue;
        }
        if (i.def == no_node) i.def = 0;
        // Reads come after def, but its parts' may all come before: the node writing it stays in it.
        if (i.use_end == no_node || i.use_end < i.def) i.use_end = i.def;
        if (!begin.empty() && begin[v] < i.def) i.def = begin[v];
        ++start[std::size_t{i.def} + 1];
    }
    if (!live.parts.empty())  // an owner whose part comes first is allocated there
        std::stable_sort(order.begin(), order.end(), [&](ValueId a, ValueId b) { return iv[a].def < iv[b].def; });
    for (std::size_t p = 1; p < start.size(); ++p) start[p] += start[p - 1];
    live.owners.resize(live.allocation_order.size());
    for (std::size_t v = 0; v < V; ++v)
        if (flags[v] & is_owner_flag) live.owners[start[iv[v].def]++] = static_cast<ValueId>(v);
    live.roots = std::move(root);
    live.windows = std::move(window);
    return live;
}

ONNX_RUNTIME_MEMORY_CORE expected<Liveness, PlanError> dense_liveness(const DenseGraph& g, const ViewMap& views,
                                                                     const PlanOptions& options) {
    auto live = liveness_of(g, views, options);
    if (!live || options.inplace.empty()) return live;
    const auto results = decide_inplace(g, *live, options.inplace);
    ViewMap folded = views;  // a taken output is planned as a view of its input
    std::vector<ValueId> taken;
    for (std::size_t h = 0; h < results.size(); ++h)
        if (results[h] == InplaceResult::taken) {
            folded.insert(options.inplace[h].output, options.inplace[h].input);
            taken.push_back(options.inplace[h].output);
        }
    if (taken.empty()) return live;
    auto with = liveness_of(g, folded, options);
    if (!with) return with;
    std::sort(taken.begin(), taken.end());
    with->inplace = std::move(taken);
    return with;
}

}  // namespace onnx_runtime_memory::detail
