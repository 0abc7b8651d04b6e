// validate_liveness's checks over a DenseGraph: the code behind
// validate_liveness.hpp's declarations (part of the compiled core,
// config.hpp).
#pragma once

#include "config.hpp"
#if defined(ONNX_RUNTIME_MEMORY_SEPARATE_COMPILATION) && !defined(ONNX_RUNTIME_MEMORY_SOURCE)
#error "detail/liveness_check.hpp is the compiled core's: include validate_liveness.hpp (src.hpp defines the core once)"
#endif

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "../validate_liveness.hpp"
#include "dense_graph.hpp"
#include "ids.hpp"
#include "sort.hpp"

namespace onnx_runtime_memory::detail {

// The in-place folds a liveness claims (Liveness::inplace), each checked
// against the hints and the liveness without them, apart from the planner's
// own decisions: output v, produced by node n, is claimed written into the
// bytes live.roots[v]; some hint for v must name an input of n that has
// those bytes (live.roots), whose root before the folds is planned, no
// graph output, last read at n, and taken by no other fold. The pairing is
// read from the liveness, never re-derived, so the order of the hints does
// not matter. Returns the view map with every fold added as a view of its
// input, for the coverage checks (which also compare its roots with the
// liveness's).
ONNX_RUNTIME_MEMORY_CORE expected<ViewMap, ValidateError> check_folds(const DenseGraph& g, const ViewMap& views,
                                                                     const Liveness& live, const PlanOptions& options) {
    using T = graph_traits<DenseGraph>;
    ViewMap folded = views;
    if (live.inplace.empty()) return folded;
    const auto fail = [](ValueId v, ValueId in, NodeIndex n) {
        ValidateError err;
        err.kind = ValidateError::Kind::bad_inplace;
        err.value = v;
        err.other = in;
        err.node = n;
        return unexpected(err);
    };
    PlanOptions plain = options;
    plain.inplace.clear();
    auto before = liveness_of(g, views, plain);
    if (!before) return unexpected(ValidateError::from(before.error()));
    const std::size_t V = before->value_count();
    const auto N = static_cast<std::size_t>(T::node_count(g));
    std::vector<std::uint8_t> output_root(V, 0), taken(V, 0);
    for (auto x : T::graph_outputs(g))
        if (const auto v = to_value_id(x, V)) output_root[before->roots[*v]] = true;
    // The hints by output, and the folds by producing node: each node's
    // inputs and outputs are walked once.
    std::vector<InplaceHint> hints(options.inplace.begin(), options.inplace.end());
    sort_by(hints, [](const InplaceHint& h) { return h.output; });
    std::vector<ValueId> folds = live.inplace;
    for (ValueId v : folds)
        if (v >= V || !before->is_owner(v) || before->intervals[v].def >= N) return fail(v, no_value, no_node);
    sort_by(folds, [&](ValueId v) { return before->intervals[v].def; });
    std::vector<NodeIndex> read_by(V, no_node), made_by(V, no_node);
    NodeIndex marked = no_node;
    for (ValueId v : folds) {
        const NodeIndex n = before->intervals[v].def;
        if (marked != n) {
            marked = n;
            for (auto x : T::node_inputs(g, n))
                if (const auto u = to_value_id(x, V)) read_by[*u] = n;
            for (auto x : T::node_outputs(g, n))
                if (const auto u = to_value_id(x, V)) made_by[*u] = n;
        }
        if (made_by[v] != n) return fail(v, no_value, n);  // a graph input: no node writes it
        const auto safe = [&](ValueId in) {  // an input of n with v's claimed bytes, planned, dying at n
            const ValueId r = before->roots[in];
            return read_by[in] == n && live.roots[in] == live.roots[v] && before->is_owner(r) && !output_root[r] &&
                   before->intervals[r].use_end == n && !taken[r];
        };
        ValueId in = no_value, named = no_value;  // the hint that allows the claim; the first hint for v
        for (auto h = std::lower_bound(hints.begin(), hints.end(), v,
                                       [](const InplaceHint& x, ValueId o) { return x.output < o; });
             h != hints.end() && h->output == v; ++h) {
            if (h->input >= V) continue;
            if (named == no_value) named = h->input;
            if (safe(h->input)) {
                in = h->input;
                break;
            }
        }
        if (in == no_value) return fail(v, named, n);
        taken[before->roots[in]] = true;
        folded.insert(v, in);
    }
    return folded;
}

// validate_liveness on a graph already read (validate_liveness.hpp).
// Checks a liveness against the graph: every read of a value (and so of
// every view in a chain) and every graph output falls inside its root
// owner's interval (ViewOutlivesSource), and so does every node that
// produces a view (ViewOutsideSource): a view's bytes are its root's. The
// in-place folds it claims are checked against options.inplace first
// (BadInplace), and a folded output's bytes are its input's root's. Its
// roots must be those the views and folds give, and each owner's interval
// must hold the node writing it (else a plan_error, bad_liveness). A
// liveness from compute_liveness always passes; one kept by the caller
// across runs, or edited, may not (one of the wrong shape is a plan_error,
// bad_liveness).
ONNX_RUNTIME_MEMORY_CORE expected<void, ValidateError> validate_dense_liveness(const DenseGraph& g, const ViewMap& views,
                                                                              const Liveness& live,
                                                                              const PlanOptions& options) {
    using T = graph_traits<DenseGraph>;
    const auto plan_error = [](PlanError e) { return unexpected(ValidateError::from(e)); };
    const auto fail = [](ValidateError::Kind kind, ValueId v, ValueId r, NodeIndex n) {
        ValidateError err;
        err.kind = kind;
        err.value = v;
        err.other = r;
        err.node = n;
        return unexpected(err);
    };
    const std::size_t V = g.values;
    if (auto ok = check_liveness(live); !ok) return plan_error(ok.error());
    if (live.value_count() != V) return plan_error(make_plan_error(PlanError::Kind::bad_liveness));
    auto folded = check_folds(g, views, live, options);
    if (!folded) return unexpected(folded.error());
    std::vector<ValueId> root;
    std::vector<std::size_t> window;  // the windows are validate's own business (validate.hpp)
    if (auto ok = resolve_roots(*folded, V, root, window); !ok) return plan_error(ok.error());
    // The planner reads each value's bytes from live.roots: they must be
    // the ones the views and the checked folds give.
    for (std::size_t v = 0; v < V; ++v)
        if (root[v] != live.roots[v]) return plan_error(make_plan_error(PlanError::Kind::bad_liveness, v));
    const auto covered = [&](ValueId r, std::size_t n) {
        return !live.is_owner(r) || (live.intervals[r].def <= n && n <= live.intervals[r].use_end);
    };

    for (std::size_t n = 0; n < g.nodes; ++n) {
        const auto node = static_cast<NodeIndex>(n);
        for (auto x : T::node_inputs(g, n)) {
            const auto v = to_value_id(x, V);
            if (!v) return plan_error(g.out_of_range(x, node));
            if (!covered(root[*v], n)) return fail(ValidateError::Kind::view_outlives_source, *v, root[*v], node);
        }
        for (auto x : T::node_outputs(g, n)) {
            const auto v = to_value_id(x, V);
            if (!v) return plan_error(g.out_of_range(x, node));
            if (covered(root[*v], n)) continue;
            if (root[*v] == *v)  // an owner's interval must hold the node that writes it
                return plan_error(make_plan_error(PlanError::Kind::bad_liveness, *v));
            return fail(ValidateError::Kind::view_outside_source, *v, root[*v], node);
        }
    }
    for (auto x : T::graph_outputs(g)) {
        const auto v = to_value_id(x, V);
        if (!v) return plan_error(g.out_of_range(x));
        if (!covered(root[*v], live.last_position))
            return fail(ValidateError::Kind::view_outlives_source, *v, root[*v], live.last_position);
    }
    return {};
}

}  // namespace onnx_runtime_memory::detail
