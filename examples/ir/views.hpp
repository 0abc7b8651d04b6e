// Which values are views, from op types: the output of every node whose op
// is in the list aliases that node's first input. The library takes no op
// names; this is the examples' and tests' choice.
#pragma once

#include <onnx_runtime_memory/sizing.hpp>
#include <onnx_runtime_memory/view_map.hpp>

#include <algorithm>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "graph.hpp"

namespace ir {

// Ops that ONNX executors commonly run as zero-copy views.
inline const std::vector<std::string> default_view_ops{"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity"};

// The views of `ops`, then the views the graph states (graph text `view`
// lines, at their offsets), which replace an op's edge for the same value.
[[nodiscard]] inline orm::ViewMap views_from_ops(const Graph& g, std::span<const std::string> ops = default_view_ops) {
    orm::ViewMap views;
    for (std::size_t n = 0; n < g.node_count(); ++n) {
        const bool is_view = std::find(ops.begin(), ops.end(), g.op_type(n)) != ops.end();
        if (is_view && !g.node_inputs(n).empty() && !g.node_outputs(n).empty())
            views.insert(g.node_outputs(n)[0], g.node_inputs(n)[0]);
    }
    for (const auto& s : g.stated_views()) views.insert(s.view, s.source, s.offset);
    return views;
}

// What add_split_windows did: how many outputs became windows, and the
// bytes their Splits no longer copy.
struct SplitWindows {
    std::size_t views = 0;
    std::size_t copies_avoided_bytes = 0;
};

// Every Split whose outputs are contiguous pieces of its first input
// becomes a no-op: each output a view of the input at its byte offset.
// Contiguous: static shapes of the input's rank and element type (whole
// bytes), equal to the input's but on one axis, whose extents add up to
// the input's, with every dimension before that axis 1 (so each piece is
// one run of bytes, in output order). Omitted outputs ('-') leave the pieces unknown: such a
// Split is left alone. An output that is already a view is too.
inline SplitWindows add_split_windows(const Graph& g, orm::ViewMap& views) {
    SplitWindows done;
    const auto static_dims = [&](ValueId v, std::vector<std::int64_t>& out) {
        out.clear();
        for (const orm::Dim d : g.dims(v)) {
            if (!d.is_static()) return false;
            out.push_back(d.extent);
        }
        return g.has_type(v);
    };
    std::vector<std::int64_t> in_dims, out_dims;
    std::vector<std::size_t> offsets;
    for (std::size_t n = 0; n < g.node_count(); ++n) {
        if (g.op_type(n) != "Split" || g.node_inputs(n).empty()) continue;
        const ValueId in = g.node_inputs(n)[0];
        const auto outs = g.node_outputs(n);
        const auto bits = orm::element_bits(g.element_type(in));
        if (outs.empty() || !bits || *bits < 8 || *bits % 8 != 0 || !static_dims(in, in_dims)) continue;
        std::size_t axis = in_dims.size();  // the one axis the outputs cut, once seen
        std::size_t bytes = 0;
        bool ok = true;
        offsets.clear();
        for (const ValueId o : outs) {
            ok = ok && !views.contains(o) && g.element_type(o) == g.element_type(in) && static_dims(o, out_dims) &&
                 out_dims.size() == in_dims.size();
            for (std::size_t k = 0; ok && k < in_dims.size(); ++k)
                if (out_dims[k] != in_dims[k]) {
                    ok = axis == in_dims.size() || axis == k;
                    axis = k;
                }
            const auto size = orm::static_size(g, o);
            ok = ok && size.has_value();
            if (!ok) break;
            offsets.push_back(bytes);
            ok = !orm::detail::add_overflows(bytes, *size, bytes);
        }
        if (!ok || in_dims.empty()) continue;
        if (axis == in_dims.size()) axis = 0;  // every output the whole input: one piece
        const bool leading_ones = std::all_of(in_dims.begin(), in_dims.begin() + static_cast<std::ptrdiff_t>(axis),
                                              [](std::int64_t d) { return d == 1; });
        // The pieces' bytes add up to the input's: along `axis` they cover it.
        if (!leading_ones || bytes != orm::static_size(g, in)) continue;
        for (std::size_t k = 0; k < outs.size(); ++k) views.insert(outs[k], in, offsets[k]);
        done.views += outs.size();
        done.copies_avoided_bytes += bytes;
    }
    return done;
}

}  // namespace ir
