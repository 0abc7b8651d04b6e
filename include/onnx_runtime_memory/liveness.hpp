// Liveness: who owns a buffer, and from which node to which node it is live.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <optional>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "detail/ids.hpp"
#include "errors.hpp"
#include "expected.hpp"
#include "graph.hpp"
#include "view_map.hpp"
#include "detail/sort.hpp"

namespace onnx_runtime_memory {

// Where graph outputs live.
enum class OutputPlacement : std::uint8_t {
    in_arena,  // owners like any other, live to the last node (the original crate's rule)
    external,  // outside the arena, allocated by the executor (as ONNX Runtime does), so the next
               // request cannot overwrite them: an output and every value it aliases is no owner
};

// What to do with owners whose size the oracle does not know.
enum class UnknownSizes : std::uint8_t {
    defer,    // no plan: Deferred, listing them (the original crate's rule)
    dynamic,  // plan the rest; they (and their views) stay out of every slot and offset and are
              // listed in the plan's dynamic_values, for the executor to allocate at run time
};

// A node may write `output` into the buffer of its input `input` (an
// elementwise op in place): PlanOptions::inplace.
struct InplaceHint {
    ValueId output = no_value;
    ValueId input = no_value;
    friend bool operator==(const InplaceHint&, const InplaceHint&) = default;
};

// What became of an in-place hint (explain_inplace).
enum class InplaceResult : std::uint8_t {
    taken,                 // the output lives in the input's buffer
    not_an_input,          // `input` is not an input of the node that produces `output`, no node produces
                           // `output` (an included graph input), or an id is past the graph
    output_not_owner,      // `output` has no buffer of its own to give up: a view, a graph input or weight,
                           // an external graph output
    input_not_owner,       // the input's bytes are not planned: a graph input, a weight, an external output
    input_read_later,      // the input's bytes are read after the node (through any view or earlier fold),
                           // or another output of the node already took them
    input_is_graph_output, // the input's bytes are (or alias) a graph output, which must survive
};

[[nodiscard]] constexpr const char* to_string(InplaceResult r) noexcept {
    switch (r) {
        case InplaceResult::taken: return "taken";
        case InplaceResult::not_an_input: return "not_an_input";
        case InplaceResult::output_not_owner: return "output_not_owner";
        case InplaceResult::input_not_owner: return "input_not_owner";
        case InplaceResult::input_read_later: return "input_read_later";
        case InplaceResult::input_is_graph_output: return "input_is_graph_output";
    }
    return "unknown";
}

// An owner whose arena offset the caller fixes (PlanOptions::pinned).
struct PinnedOffset {
    ValueId value = no_value;
    std::size_t offset = 0;
    friend bool operator==(const PinnedOffset&, const PinnedOffset&) = default;
};

// Options controlling what the planner considers part of the arena. Every
// default is the original crate's behaviour.
struct PlanOptions {
    // When true, graph inputs that are not initializers become owners placed
    // in the arena (live from position 0).
    bool include_graph_inputs = false;
    OutputPlacement outputs = OutputPlacement::in_arena;
    UnknownSizes unknown_sizes = UnknownSizes::defer;
    // Scratch: scratch_bytes[n] bytes of workspace node n needs while it runs
    // (and not before or after), planned like an owner live at n alone: the
    // plans report a slot (ActivationPlan::scratch) or an offset
    // (ArenaPlan::scratch_offsets) per node. 0, or no entry: none. A
    // non-zero entry for a node the graph does not have is
    // PlanError::bad_scratch.
    std::vector<std::size_t> scratch_bytes{};
    // Arena plans only (slot plans ignore them): owners at offsets the caller
    // fixes (an offline plan, a memory-mapped region); the rest is packed
    // around them. A pin must name an owner the arena places (else
    // PlanError::bad_pin), at a multiple of the alignment (pin_misaligned)
    // below SIZE_MAX (pin_too_high), and pins must not share bytes while
    // live (pins_overlap). validate_arena checks them.
    std::vector<PinnedOffset> pinned{};
    // In-place reuse, opt-in: each hint is taken when it is safe (the input's
    // bytes are planned, read by nothing after the node, and no graph output;
    // the output has a buffer of its own; see InplaceResult), in node order,
    // so chains fold. A taken output then lives in its input's buffer as a
    // view does, and that buffer holds the largest value folded into it.
    // explain_inplace says what became of each hint.
    std::vector<InplaceHint> inplace{};

    friend bool operator==(const PlanOptions&, const PlanOptions&) = default;
};

// The live interval of a buffer owner, in node positions, inclusive at both
// ends: the owner is written at `def` and last read at `use_end`.
struct Interval {
    NodeIndex def = no_node;
    NodeIndex use_end = no_node;

    // Touching at one node counts: that node reads one and writes the other.
    [[nodiscard]] constexpr bool overlaps(const Interval& o) const noexcept {
        return def <= o.use_end && o.def <= use_end;
    }
    friend constexpr bool operator==(const Interval&, const Interval&) = default;
};

// Result of liveness analysis over a graph.
struct Liveness {
    // intervals[v] for every value id; {no_node, no_node} for a non-owner.
    std::vector<Interval> intervals;
    // Every owner, in (def, id) order.
    std::vector<ValueId> owners;
    // Every owner in the order the slot planner allocates them: owners no
    // node produces (included graph inputs) by id, then each node's owner
    // outputs in output order. Sorted by def, like `owners`.
    std::vector<ValueId> allocation_order;
    // roots[v]: the value v's chain of views ends at (v itself when v is not
    // a view). A view is backed by its root's buffer when the root is an owner.
    std::vector<ValueId> roots;
    // Position of the last node (0 for an empty graph).
    NodeIndex last_position = 0;
    // Outputs written in place into their root's buffer (PlanOptions::inplace
    // hints taken), ascending: no owners, sized into their root's buffer.
    std::vector<ValueId> inplace;

    [[nodiscard]] std::size_t value_count() const noexcept { return intervals.size(); }
    [[nodiscard]] bool is_owner(ValueId v) const noexcept {
        return v < intervals.size() && intervals[v].def != no_node;
    }
    [[nodiscard]] std::optional<Interval> interval(ValueId v) const noexcept {
        if (!is_owner(v)) return std::nullopt;
        return intervals[v];
    }

    friend bool operator==(const Liveness&, const Liveness&) = default;
};

namespace detail {

// root[v] = the value v's view chain ends at (v itself when it has no edge).
// Rejects edges naming values outside the graph and view cycles.
[[nodiscard]] inline expected<void, PlanError> resolve_roots(const ViewMap& views, std::size_t value_count,
                                                             std::vector<ValueId>& root) {
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
template <activation_graph G>
[[nodiscard]] expected<Liveness, PlanError> liveness_of(const G& g, const ViewMap& views, const PlanOptions& options) {
    using T = graph_traits<G>;
    using Kind = PlanError::Kind;
    const auto size = detail::checked_size(g);
    if (!size) return unexpected(size.error());
    const auto [V, N] = *size;
    // Scratch for a node the graph does not have (a graph with no nodes
    // included: its last position 0 is no node).
    for (std::size_t n = N; n < options.scratch_bytes.size(); ++n)
        if (options.scratch_bytes[n] > 0)
            return unexpected(make_plan_error(Kind::bad_scratch, no_value, static_cast<NodeIndex>(n)));
    std::vector<ValueId> root;
    if (auto ok = detail::resolve_roots(views, V, root); !ok) return unexpected(ok.error());

    std::vector<std::uint8_t> flags(V, 0);
    for (std::size_t v = 0; v < V; ++v)
        if (T::is_initializer(g, static_cast<ValueId>(v))) flags[v] |= detail::is_init;
    for (auto x : T::graph_inputs(g)) {
        const auto v = detail::to_value_id(x, V);
        if (!v) return unexpected(detail::out_of_range(x));
        flags[*v] |= detail::is_input;
    }

    // Graph outputs, read once: with external outputs, the root of each
    // (what its bytes are) is allocated by the executor, not planned.
    std::vector<ValueId> outputs;
    for (auto x : T::graph_outputs(g)) {
        const auto v = detail::to_value_id(x, V);
        if (!v) return unexpected(detail::out_of_range(x));
        outputs.push_back(*v);
        if (options.outputs == OutputPlacement::external) flags[root[*v]] |= detail::is_external;
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
            const auto v = detail::to_value_id(x, V);
            if (!v) return unexpected(detail::out_of_range(x, node));
            if (iv[*v].def != no_node) return unexpected(make_plan_error(Kind::produced_twice, *v, node));
            iv[*v].def = node;
            if (views.contains(*v)) views_produced.push_back(*v);
            else if (!(flags[*v] & (detail::is_init | detail::is_external))) {
                flags[*v] |= detail::is_owner_flag;
                order.push_back(*v);
            }
        }
    }
    // Owners produced by no node: graph inputs, when the options include
    // them. They are allocated first, by id: append, then rotate to the front.
    if (options.include_graph_inputs) {
        const std::size_t produced = order.size();
        for (std::size_t v = 0; v < V; ++v) {
            if (flags[v] == detail::is_input && iv[v].def == no_node && !views.contains(static_cast<ValueId>(v))) {
                flags[v] |= detail::is_owner_flag;
                order.push_back(static_cast<ValueId>(v));
            }
        }
        std::rotate(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(produced), order.end());
    }

    // Pass 2: every read must come after the value (and its root) exist;
    // each read raises the root owner's use_end. use_end = no_node: unread.
    const auto available = [&](ValueId v, std::size_t n) {
        const NodeIndex producer = iv[v].def;
        return producer == no_node ? (flags[v] & (detail::is_input | detail::is_init)) != 0 : producer < n;
    };
    const auto not_yet = [&](ValueId v, NodeIndex node) {  // a graph input a later node also writes says so
        if ((flags[v] & detail::is_input) && iv[v].def != no_node)
            return make_plan_error(Kind::input_produced, v, iv[v].def);
        return make_plan_error(Kind::used_before_produced, v, node);
    };
    for (std::size_t n = 0; n < N; ++n) {
        const auto node = static_cast<NodeIndex>(n);
        for (auto x : T::node_inputs(g, n)) {
            const auto v = detail::to_value_id(x, V);
            if (!v) return unexpected(detail::out_of_range(x, node));
            const ValueId r = root[*v];
            if (!available(*v, n)) return unexpected(not_yet(*v, node));
            if (!available(r, n)) return unexpected(not_yet(r, node));
            if (flags[r] & detail::is_owner_flag) iv[r].use_end = node;
        }
    }
    // A view's production uses its root's bytes like a read,
    // so the root must exist by then (produced earlier or by the same node).
    for (ValueId v : views_produced) {
        const NodeIndex node = iv[v].def;
        const ValueId r = root[v];
        if (!available(r, std::size_t{node} + 1)) return unexpected(make_plan_error(Kind::view_before_source, v, node));
        if ((flags[r] & detail::is_owner_flag) && (iv[r].use_end == no_node || iv[r].use_end < node))
            iv[r].use_end = node;
    }
    const auto exists = [&](ValueId v) { return available(v, N); };
    for (const ValueId v : outputs) {
        const ValueId r = root[v];
        if (!exists(v)) return unexpected(make_plan_error(Kind::output_not_produced, v));
        if (!exists(r)) return unexpected(make_plan_error(Kind::output_not_produced, r));
        if (flags[r] & detail::is_owner_flag) iv[r].use_end = live.last_position;
    }

    // Finish the intervals, and list owners in (def, id) order by counting sort.
    std::vector<std::uint32_t> start(std::size_t{live.last_position} + 2, 0);
    for (std::size_t v = 0; v < V; ++v) {
        Interval& i = iv[v];
        if (!(flags[v] & detail::is_owner_flag)) {
            i = Interval{};
            continue;
        }
        if (i.def == no_node) i.def = 0;
        if (i.use_end == no_node) i.use_end = i.def;  // reads come after def: never below it
        ++start[std::size_t{i.def} + 1];
    }
    for (std::size_t p = 1; p < start.size(); ++p) start[p] += start[p - 1];
    live.owners.resize(live.allocation_order.size());
    for (std::size_t v = 0; v < V; ++v)
        if (flags[v] & detail::is_owner_flag) live.owners[start[iv[v].def]++] = static_cast<ValueId>(v);
    live.roots = std::move(root);
    return live;
}

// Decides each in-place hint against the liveness without hints (see
// InplaceResult), in the order of the nodes producing their outputs: a fold
// extends the input group's life to the output's last use, so a chain folds
// link by link. O(V + hints log hints + the hinted nodes' inputs).
template <activation_graph G>
[[nodiscard]] std::vector<InplaceResult> decide_inplace(const G& g, const Liveness& live, std::span<const InplaceHint> hints) {
    using T = graph_traits<G>;
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
        else if (last[r] != n || folded_at[r] == n) result[h] = InplaceResult::input_read_later;
        else {
            result[h] = InplaceResult::taken;
            folded_at[r] = n;  // one output per node into one buffer: a kernel writes them all at once
            group[out] = r;
            last[r] = last[out];
            output_root[r] = output_root[out];
        }
    }
    return result;
}

}  // namespace detail

// Compute the live interval of every buffer owner (see graph.hpp for who
// owns) and fold the safe in-place hints, checking the graph as
// detail::liveness_of does. O(V + E).
template <activation_graph G>
[[nodiscard]] expected<Liveness, PlanError> compute_liveness(const G& g, const ViewMap& views,
                                                             const PlanOptions& options = {}) {
    auto live = detail::liveness_of(g, views, options);
    if (!live || options.inplace.empty()) return live;
    const auto results = detail::decide_inplace(g, *live, options.inplace);
    ViewMap folded = views;  // a taken output is planned as a view of its input
    std::vector<ValueId> taken;
    for (std::size_t h = 0; h < results.size(); ++h)
        if (results[h] == InplaceResult::taken) {
            folded.insert(options.inplace[h].output, options.inplace[h].input);
            taken.push_back(options.inplace[h].output);
        }
    if (taken.empty()) return live;
    auto with = detail::liveness_of(g, folded, options);
    if (!with) return with;
    std::sort(taken.begin(), taken.end());
    with->inplace = std::move(taken);
    return with;
}

// What became of each of options.inplace's hints, in their order.
template <activation_graph G>
[[nodiscard]] expected<std::vector<InplaceResult>, PlanError> explain_inplace(const G& g, const ViewMap& views,
                                                                             const PlanOptions& options) {
    auto live = detail::liveness_of(g, views, options);
    if (!live) return unexpected(live.error());
    return detail::decide_inplace(g, *live, options.inplace);
}

// Checks that a Liveness handed back in (kept across runs, edited, or built
// by hand) has the shape compute_liveness gives one, so that planning from it
// cannot read out of bounds: matching table sizes within max_graph_ids, roots
// in range and their own roots, each owner's interval def <= use_end <=
// last_position, `owners` exactly the owners in strict (def, id) order, and
// `allocation_order` a permutation of them by def. It does not prove the
// intervals right for some graph: validate does that. O(V).
[[nodiscard]] inline expected<void, PlanError> check_liveness(const Liveness& live) {
    const auto bad = [](std::uint64_t v = no_value) {
        return unexpected(make_plan_error(PlanError::Kind::bad_liveness, v));
    };
    const std::size_t V = live.intervals.size();
    if (V > max_graph_ids || live.roots.size() != V || live.last_position >= max_graph_ids) return bad();
    std::size_t owners = 0;
    for (std::size_t v = 0; v < V; ++v) {
        const ValueId r = live.roots[v];
        if (r >= V || live.roots[r] != r) return bad(v);
        const Interval& i = live.intervals[v];
        if (i.def == no_node) continue;
        if (i.def > i.use_end || i.use_end > live.last_position) return bad(v);
        ++owners;
    }
    if (live.owners.size() != owners || live.allocation_order.size() != owners) return bad();
    const auto before = [&](ValueId a, ValueId b) {
        return live.intervals[a].def != live.intervals[b].def ? live.intervals[a].def < live.intervals[b].def : a < b;
    };
    for (std::size_t k = 0; k < owners; ++k) {
        const ValueId v = live.owners[k];
        if (!live.is_owner(v) || (k > 0 && !before(live.owners[k - 1], v))) return bad(v);
    }
    for (std::size_t k = 0; k < live.inplace.size(); ++k) {
        const ValueId v = live.inplace[k];
        if (v >= V || live.is_owner(v) || live.roots[v] == v || (k > 0 && live.inplace[k - 1] >= v)) return bad(v);
    }
    std::vector<std::uint8_t> seen(V, 0);
    for (std::size_t k = 0; k < owners; ++k) {
        const ValueId v = live.allocation_order[k];
        if (!live.is_owner(v) || seen[v]) return bad(v);
        if (k > 0 && live.intervals[live.allocation_order[k - 1]].def > live.intervals[v].def) return bad(v);
        seen[v] = true;
    }
    return {};
}

// Takes the owners in `gone` out of `live`, in place (a re-planner keeps
// its memory): no longer owners, their views with them. O(V).
inline void remove_owners(Liveness& live, const std::vector<ValueId>& gone) {
    if (gone.empty()) return;
    for (ValueId v : gone) live.intervals[v] = Interval{};
    const auto out = [&](ValueId v) { return !live.is_owner(v); };
    std::erase_if(live.owners, out);
    std::erase_if(live.allocation_order, out);
}

// The liveness with the owners in `gone` (ascending ids) taken out: no longer
// owners, their views with them. How dynamic values leave the plan. O(V).
[[nodiscard]] inline Liveness without_owners(Liveness live, const std::vector<ValueId>& gone) {
    remove_owners(live, gone);
    return live;
}

}  // namespace onnx_runtime_memory
