// Which values are views, from op types: the output of every node whose op
// is in the list aliases that node's first input. The library takes no op
// names; this is the examples' and tests' choice.
#pragma once

#include <onnx_runtime_memory/view_map.hpp>

#include <algorithm>
#include <span>
#include <string>
#include <vector>

#include "graph.hpp"

namespace ir {

// Ops that ONNX executors commonly run as zero-copy views.
inline const std::vector<std::string> default_view_ops{"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity"};

[[nodiscard]] inline orm::ViewMap views_from_ops(const Graph& g, std::span<const std::string> ops = default_view_ops) {
    orm::ViewMap views;
    for (std::size_t n = 0; n < g.node_count(); ++n) {
        const bool is_view = std::find(ops.begin(), ops.end(), g.op_type(n)) != ops.end();
        if (is_view && !g.node_inputs(n).empty() && !g.node_outputs(n).empty())
            views.insert(g.node_outputs(n)[0], g.node_inputs(n)[0]);
    }
    return views;
}

}  // namespace ir
