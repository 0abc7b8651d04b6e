// Liveness: who owns a buffer, and from which node to which node it is live.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "detail/config.hpp"
#include "detail/dense_graph.hpp"
#include "errors.hpp"
#include "expected.hpp"
#include "graph.hpp"
#include "liveness_types.hpp"
#include "plan_options.hpp"
#include "view_map.hpp"

namespace onnx_runtime_memory {

namespace detail {

// root[v] = the value v's view chain ends at (v itself when it has no edge),
// and, when some edge has an offset, window[v] = where v's bytes start in
// its root's (the chain's offsets added; empty otherwise). Rejects edges
// naming values outside the graph, view cycles, and a sum of offsets past
// SIZE_MAX (view_outside_root: no root is that large).
ONNX_RUNTIME_MEMORY_CORE expected<void, PlanError> resolve_roots(const ViewMap& views, std::size_t value_count,
                                                                std::vector<ValueId>& root, std::vector<std::size_t>& window);

// The live interval of every buffer owner, checking that the graph's node
// order is one the executor can run: every value a node reads is a graph
// input, an initializer, or produced by an earlier node; no value is
// produced twice; every id is in range; the view map is acyclic and names
// only values of the graph. O(V + E). (compute_liveness without in-place
// hints.)
ONNX_RUNTIME_MEMORY_CORE expected<Liveness, PlanError> liveness_of(const DenseGraph& g, const ViewMap& views,
                                                                  const PlanOptions& options);

// Decides each in-place hint against the liveness without hints (see
// InplaceResult; inplace.hpp).
ONNX_RUNTIME_MEMORY_CORE std::vector<InplaceResult> decide_inplace(const DenseGraph& g, const Liveness& live,
                                                                  std::span<const InplaceHint> hints);

// compute_liveness on a graph already read: liveness_of, then the safe
// in-place hints folded.
ONNX_RUNTIME_MEMORY_CORE expected<Liveness, PlanError> dense_liveness(const DenseGraph& g, const ViewMap& views,
                                                                     const PlanOptions& options);

}  // namespace detail

// Compute the live interval of every buffer owner (see graph.hpp for who
// owns) and fold the safe in-place hints, checking the graph as
// detail::liveness_of does. O(V + E).
template <activation_graph G>
[[nodiscard]] expected<Liveness, PlanError> compute_liveness(const G& g, const ViewMap& views,
                                                             const PlanOptions& options = {}) {
    detail::DenseGraph store;
    const auto read = detail::read_graph(g, store);
    if (!read) return unexpected(read.error());
    const detail::DenseGraph& dense = **read;
    return detail::dense_liveness(dense, views, options);
}

// A first argument that is no graph: the error names the function it lacks.
template <class G, class... Rest>
    requires detail::not_a_graph<G, Liveness>
expected<Liveness, PlanError> compute_liveness(const G&, Rest&&...) {
    static_assert(detail::explain_activation_graph<G>());
    return unexpected(PlanError{});
}

// What became of each of options.inplace's hints, in their order.
template <activation_graph G>
[[nodiscard]] expected<std::vector<InplaceResult>, PlanError> explain_inplace(const G& g, const ViewMap& views,
                                                                             const PlanOptions& options) {
    detail::DenseGraph store;
    const auto read = detail::read_graph(g, store);
    if (!read) return unexpected(read.error());
    const detail::DenseGraph& dense = **read;
    auto live = detail::liveness_of(dense, views, options);
    if (!live) return unexpected(live.error());
    return detail::decide_inplace(dense, *live, options.inplace);
}

}  // namespace onnx_runtime_memory

#if !defined(ONNX_RUNTIME_MEMORY_SEPARATE_COMPILATION)
#include "detail/inplace.hpp"          // the code (else the compiled core's: src.hpp)
#include "detail/liveness_passes.hpp"
#endif
