// The placement table: one record per value id, from which an executor
// binds every value of the graph: what it is, whose bytes it uses, how big
// it is, when it is live, and its slot or offset; and one per node scratch. Computed on request from
// the graph and a plan (O(V + E)): planning itself pays nothing for it.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <vector>

#include "detail/ids.hpp"
#include "errors.hpp"
#include "expected.hpp"
#include "graph.hpp"
#include "liveness.hpp"
#include "plan_types.hpp"
#include "sizes.hpp"
#include "sizing.hpp"
#include "view_map.hpp"

namespace onnx_runtime_memory {

enum class ValueKind : std::uint8_t {
    owner,         // has a buffer of its own in the plan (slot or offset)
    view,          // aliases its root's bytes: bind it where the root is
    inplace,       // written into its input's buffer (PlanOptions::inplace): bind it where its root is
    graph_input,   // supplied by the caller, outside the arena
    initializer,   // a weight or constant, outside the arena
    graph_output,  // outside the arena, allocated by the executor (OutputPlacement::external)
    dynamic,       // size known only at run time: allocated by the executor (UnknownSizes::dynamic)
    unused,        // produced by no node and no input or weight: nothing to bind
    part,          // written by its producer into its root's bytes at `window` (ViewMap::insert_part)
};

[[nodiscard]] constexpr const char* to_string(ValueKind k) noexcept {
    switch (k) {
        case ValueKind::owner: return "owner";
        case ValueKind::view: return "view";
        case ValueKind::inplace: return "inplace";
        case ValueKind::graph_input: return "graph_input";
        case ValueKind::initializer: return "initializer";
        case ValueKind::graph_output: return "graph_output";
        case ValueKind::dynamic: return "dynamic";
        case ValueKind::unused: return "unused";
        case ValueKind::part: return "part";
    }
    return "unknown";
}

struct ValuePlacement {
    ValueKind kind = ValueKind::unused;
    ValueId root = no_value;             // whose bytes these are: the end of the view chain (itself if no view)
    std::optional<std::size_t> bytes;    // the root's size, for a planned root (owner, or a view of one)
    Interval live{};                     // the root's live interval, for a planned root
    SlotId slot = SlotId::none();        // the root's slot (tables from a slot plan)
    std::size_t offset = no_offset;      // the root's offset (tables from an arena plan)
    std::size_t window = 0;              // where v's bytes start in the root's: bind v at the slot's
                                         // start (or `offset`) plus `window` (a view at an offset)
    friend bool operator==(const ValuePlacement&, const ValuePlacement&) = default;
};

namespace detail {

// The parts of the table that no request changes: each value's kind (an
// owner of unknown size becomes `dynamic` per request) and root.
template <activation_graph G>
void placement_base(const G& g, const Liveness& live, const PlanOptions& options, std::vector<ValuePlacement>& table) {
    using T = graph_traits<G>;
    const std::size_t V = live.value_count();
    std::vector<std::uint8_t> outside(V, 0);  // 1: graph input, 2: graph output
    for (auto x : T::graph_inputs(g))
        if (const auto v = to_value_id(x, V)) outside[*v] |= 1;
    for (auto x : T::graph_outputs(g))
        if (const auto v = to_value_id(x, V)) outside[live.roots[*v]] |= 2;
    table.assign(V, ValuePlacement{});
    for (std::size_t i = 0; i < V; ++i) {
        const auto v = static_cast<ValueId>(i);
        ValuePlacement& p = table[i];
        p.root = live.roots[v];
        p.window = live.window(v);
        if (T::is_initializer(g, v)) p.kind = ValueKind::initializer;
        else if (std::binary_search(live.inplace.begin(), live.inplace.end(), v)) p.kind = ValueKind::inplace;
        else if (p.root != v && std::binary_search(live.parts.begin(), live.parts.end(), std::pair{v, ValueId{0}},
                                                   [](const auto& a, const auto& b) { return a.first < b.first; }))
            p.kind = ValueKind::part;
        else if (p.root != v) p.kind = ValueKind::view;
        else if (live.is_owner(v)) p.kind = ValueKind::owner;
        else if (outside[v] & 1) p.kind = ValueKind::graph_input;  // an input passed through as an output too
        else if ((outside[v] & 2) && options.outputs == OutputPlacement::external) p.kind = ValueKind::graph_output;
    }
}

// One request's parts, over a table from placement_base (`base`, or the
// table itself): owners of unknown size (`dynamic`, ascending) become
// dynamic, planned roots get their size (`bytes`, by value id) and
// interval, and every value but a dynamic one its root's slot or offset.
// O(V log dynamic), no allocation.
template <class Plan>
void fill_placements(const std::vector<ValuePlacement>& base, const Liveness& live, const std::vector<std::size_t>& bytes,
                     const std::vector<ValueId>& dynamic, const Plan& plan, std::vector<ValuePlacement>& table) {
    table.resize(base.size());
    for (std::size_t i = 0; i < base.size(); ++i) {
        ValuePlacement& p = table[i];
        p = base[i];
        const bool is_dynamic = std::binary_search(dynamic.begin(), dynamic.end(), p.root);
        if (is_dynamic && p.kind == ValueKind::owner) p.kind = ValueKind::dynamic;
        if (live.is_owner(p.root) && !is_dynamic) {
            p.bytes = bytes[p.root];
            p.live = live.intervals[p.root];
        }
        if (p.kind == ValueKind::dynamic) continue;
        if constexpr (std::same_as<Plan, ActivationPlan>) p.slot = plan.slot_of(p.root).value_or(SlotId::none());
        else p.offset = plan.offset_of(p.root).value_or(no_offset);
    }
}

}  // namespace detail

// The table of a slot plan (ActivationPlan: table[v].slot is the slot that
// backs v, its root's for a view) or of an arena plan (ArenaPlan:
// table[v].offset is where v's bytes start), made with the same views,
// options and oracle: an owner the plan does not place is
// PlanError::plan_mismatch (a plan made with other options). (PlannedModel
// keeps one up to date per request, with the options it planned with.)
template <activation_graph G, class Plan, size_oracle Oracle>
    requires std::same_as<Plan, ActivationPlan> || std::same_as<Plan, ArenaPlan>
[[nodiscard]] expected<std::vector<ValuePlacement>, PlanError> placements(const G& g, const ViewMap& views,
                                                                          const Plan& plan, Oracle&& oracle,
                                                                          const PlanOptions& options = {}) {
    auto live = compute_liveness(g, views, options);
    if (!live) return unexpected(live.error());
    OwnerSizes sizes;
    size_owners(*live, oracle, sizes);
    if (auto ok = sizes.windows_inside(); !ok) return unexpected(ok.error());
    std::vector<ValuePlacement> table;
    detail::placement_base(g, *live, options, table);
    detail::fill_placements(table, *live, sizes.bytes, plan.dynamic_values, plan, table);
    for (std::size_t v = 0; v < table.size(); ++v) {  // a plan made with other options leaves owners unplaced
        const ValuePlacement& p = table[v];
        if (p.kind == ValueKind::owner && p.slot.is_none() && p.offset == no_offset)
            return unexpected(make_plan_error(PlanError::Kind::plan_mismatch, v));
    }
    return table;
}

namespace detail {

// The nodes that may have nothing to do once parts are written in place:
// each has one output and reads only values that are parts of it, directly
// or through parts of its parts (ViewMap::insert_part). A node's inputs are
// inputs[first, first + count). O(V + E), each input's walk up its parts
// within a budget of 4 (V + E) steps in all (a node whose walk would pass
// it is left out).
struct NoOpCandidates {
    struct Node {
        NodeIndex node;
        ValueId whole;  // its one output
        std::uint32_t first, count;
    };
    std::vector<Node> nodes;
    std::vector<ValueId> inputs;
};
template <activation_graph G>
void no_op_candidates(const G& g, const ViewMap& views, NoOpCandidates& out) {
    using T = graph_traits<G>;
    out.nodes.clear();
    out.inputs.clear();
    if (!views.has_parts()) return;
    const std::size_t N = static_cast<std::size_t>(T::node_count(g)), V = static_cast<std::size_t>(T::value_count(g));
    std::size_t budget = 4 * (V + N);
    for (std::size_t n = 0; n < N; ++n) {
        const auto outs = T::node_outputs(g, n);
        if (std::ranges::distance(outs) != 1) continue;
        const auto whole = to_value_id(*std::ranges::begin(outs), V);
        bool all_parts = whole.has_value();
        const auto first = static_cast<std::uint32_t>(out.inputs.size());
        for (auto x : T::node_inputs(g, n)) {
            ValueId at = to_value_id(x, V).value_or(no_value);
            out.inputs.push_back(at);
            while (all_parts && at != *whole && views.is_part(at) && budget > 0) {
                at = *views.source_of(at);
                --budget;
            }
            all_parts = all_parts && at == *whole;
        }
        const auto count = static_cast<std::uint32_t>(out.inputs.size()) - first;
        if (all_parts && count > 0) out.nodes.push_back({static_cast<NodeIndex>(n), *whole, first, count});
        else out.inputs.resize(first);
    }
}

// The candidates whose inputs lie back to back, in order, from the first
// byte of their output to its last (sizes from `oracle`; an unknown size
// rules a node out): a Concat whose inputs are already where it would copy
// them. Appends each such node (as `to_id` maps it) to `out`. No allocation
// beyond `out`'s.
template <class Oracle, class ToId>
void no_op_in_place(const NoOpCandidates& candidates, const Liveness& live, Oracle& oracle, ToId&& to_id,
                    std::vector<NodeIndex>& out) {
    for (const NoOpCandidates::Node& c : candidates.nodes) {
        const std::optional<std::size_t> whole_bytes = oracle(c.whole);
        std::size_t at = live.window(c.whole);
        bool in_place = whole_bytes.has_value();
        for (std::uint32_t k = 0; k < c.count && in_place; ++k) {
            const ValueId v = candidates.inputs[std::size_t{c.first} + k];
            const std::optional<std::size_t> bytes = oracle(v);
            in_place = bytes && live.window(v) == at && !add_overflows(at, *bytes, at);
        }
        if (in_place && at - live.window(c.whole) == *whole_bytes) out.push_back(to_id(c.node));
    }
}

}  // namespace detail

// The nodes with nothing to do once parts are written in place: each has
// one output, reads only values that are parts of it (directly or through
// parts of its parts: ViewMap::insert_part), and those lie back to back, in
// order, from the output's first byte to its last (sizes from `oracle`): a
// Concat whose inputs are already where it would copy them. Ascending. The
// executor skips them; running one copies bytes onto themselves. An invalid
// graph, view map or option gives none. O(V + E).
template <activation_graph G, size_oracle Oracle>
[[nodiscard]] std::vector<NodeIndex> no_op_nodes(const G& g, const ViewMap& views, Oracle&& oracle,
                                                 const PlanOptions& options = {}) {
    std::vector<NodeIndex> out;
    detail::NoOpCandidates candidates;
    detail::no_op_candidates(g, views, candidates);
    if (candidates.nodes.empty()) return out;
    const auto live = compute_liveness(g, views, options);
    if (!live) return out;
    const auto sized = [&](ValueId v) -> std::optional<std::size_t> { return oracle(v); };
    detail::no_op_in_place(candidates, *live, sized, [](ValueId n) { return static_cast<NodeIndex>(n); }, out);
    return out;
}

// A first argument that is no graph: the error names the function it lacks.
template <class G, class... Rest>
    requires detail::not_a_graph<G, Liveness>
expected<std::vector<ValuePlacement>, PlanError> placements(const G&, Rest&&...) {
    static_assert(detail::explain_activation_graph<G>());
    return unexpected(PlanError{});
}

// A node's scratch (PlanOptions::scratch_bytes) as the executor binds it:
// live at `node` alone, `bytes` long, in `slot` (slot plans) or at `offset`
// (arena plans).
struct ScratchPlacement {
    NodeIndex node = no_node;
    std::size_t bytes = 0;
    SlotId slot = SlotId::none();
    std::size_t offset = no_offset;
    friend bool operator==(const ScratchPlacement&, const ScratchPlacement&) = default;
};

// One record per node that asked for scratch, in node order, from a plan
// made with these options. O(nodes).
template <class Plan>
    requires std::same_as<Plan, ActivationPlan> || std::same_as<Plan, ArenaPlan>
[[nodiscard]] std::vector<ScratchPlacement> scratch_placements(const Plan& plan, const PlanOptions& options) {
    std::vector<ScratchPlacement> out;
    const auto& want = options.scratch_bytes;
    for (std::size_t n = 0; n < want.size(); ++n) {
        if (want[n] == 0) continue;
        ScratchPlacement p;
        p.node = static_cast<NodeIndex>(n);
        p.bytes = want[n];
        if constexpr (std::same_as<Plan, ActivationPlan>) {
            if (n < plan.scratch.size()) p.slot = plan.scratch[n];
        } else {
            if (n < plan.scratch_offsets.size()) p.offset = plan.scratch_offsets[n];
        }
        out.push_back(p);
    }
    return out;
}

}  // namespace onnx_runtime_memory
