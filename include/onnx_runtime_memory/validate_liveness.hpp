// validate_liveness: a liveness (computed, kept across runs, or edited)
// checked against the graph apart from the planner: its in-place folds
// against the hints, its roots, and every read and write inside its owners'
// intervals. validate and validate_arena end with it.
#pragma once

#include "detail/config.hpp"
#include "detail/dense_graph.hpp"
#include "errors.hpp"
#include "expected.hpp"
#include "graph.hpp"
#include "liveness.hpp"
#include "plan_types.hpp"
#include "view_map.hpp"

namespace onnx_runtime_memory {

namespace detail {

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
                                                                     const Liveness& live, const PlanOptions& options);

// validate_liveness on a graph already read.
ONNX_RUNTIME_MEMORY_CORE expected<void, ValidateError> validate_dense_liveness(const DenseGraph& g, const ViewMap& views,
                                                                              const Liveness& live,
                                                                              const PlanOptions& options);

}  // namespace detail

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
template <activation_graph G>
[[nodiscard]] expected<void, ValidateError> validate_liveness(const G& g, const ViewMap& views, const Liveness& live,
                                                              const PlanOptions& options = {}) {
    detail::DenseGraph store;
    const auto read = detail::read_graph(g, store);
    if (!read) return unexpected(ValidateError::from(read.error()));
    const detail::DenseGraph& dense = **read;
    return detail::validate_dense_liveness(dense, views, live, options);
}

}  // namespace onnx_runtime_memory

#if !defined(ONNX_RUNTIME_MEMORY_SEPARATE_COMPILATION)
#include "detail/liveness_check.hpp"  // the code (else the compiled core's: src.hpp)
#endif
