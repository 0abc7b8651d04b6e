// check_liveness: the code behind liveness_types.hpp's declaration (part of
// the compiled core, config.hpp).
#pragma once

#include "config.hpp"
#if defined(ONNX_RUNTIME_MEMORY_SEPARATE_COMPILATION) && !defined(ONNX_RUNTIME_MEMORY_SOURCE)
#error "detail/liveness_shape.hpp is the compiled core's: include liveness_types.hpp (src.hpp defines the core once)"
#endif

#include "../liveness_types.hpp"

namespace onnx_runtime_memory {

ONNX_RUNTIME_MEMORY_CORE expected<void, PlanError> check_liveness(const Liveness& live) {
    const auto bad = [](std::uint64_t v = no_value) {
        return unexpected(make_plan_error(PlanError::Kind::bad_liveness, v));
    };
    const std::size_t V = live.intervals.size();
    if (V > max_graph_ids || live.roots.size() != V || live.last_position >= max_graph_ids) return bad();
    if (!live.windows.empty() && live.windows.size() != V) return bad();
    std::size_t owners = 0;
    for (std::size_t v = 0; v < V; ++v) {
        const ValueId r = live.roots[v];
        if (r >= V || live.roots[r] != r || (r == v && live.window(r) != 0)) return bad(v);
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
    for (std::size_t k = 0; k < live.parts.size(); ++k) {
        const auto [part, whole] = live.parts[k];
        if (part >= V || whole >= V || live.roots[part] != live.roots[whole] || part == live.roots[part] ||
            (k > 0 && live.parts[k - 1].first >= part) || live.windows.size() != V)
            return bad(part);
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

}  // namespace onnx_runtime_memory
