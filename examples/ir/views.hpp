// Which values are views, from op types: the output of every node whose op
// is in the list aliases that node's first input. The library takes no op
// names; this is the examples' and tests' choice.
#pragma once

#include <onnx_runtime_memory/sizing.hpp>
#include <onnx_runtime_memory/view_map.hpp>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "graph.hpp"

namespace ir {

// Ops that ONNX executors commonly run as zero-copy views.
inline const std::vector<std::string> default_view_ops{"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity"};

// The views of `ops`, then the views and parts the graph states (graph
// text `view` and `part` lines, at their offsets), which replace an op's
// edge for the same value.
[[nodiscard]] inline orm::ViewMap views_from_ops(const Graph& g, std::span<const std::string> ops = default_view_ops) {
    orm::ViewMap views;
    for (std::size_t n = 0; n < g.node_count(); ++n) {
        const bool is_view = std::find(ops.begin(), ops.end(), g.op_type(n)) != ops.end();
        if (is_view && !g.node_inputs(n).empty() && !g.node_outputs(n).empty())
            views.insert(g.node_outputs(n)[0], g.node_inputs(n)[0]);
    }
    for (const auto& s : g.stated_views()) {
        if (s.part) views.insert_part(s.view, s.source, s.offset);
        else views.insert(s.view, s.source, s.offset);
    }
    return views;
}

// What add_slices did: the Splits' outputs made views at an offset, the
// Concats' inputs made parts, and the bytes those Splits and Concats no
// longer copy.
struct Slices {
    std::size_t views = 0;
    std::size_t parts = 0;
    std::size_t copies_avoided_bytes = 0;
};

namespace detail {

// Whether `pieces` (in order) are contiguous pieces of `whole`: static
// shapes of its rank and element type (whole bytes), equal to its shape but
// on one axis, with every dimension before that axis 1 (so each piece is
// one run of bytes), their bytes adding up to its; then `offsets` holds
// where each starts.
inline bool contiguous_pieces(const Graph& g, ValueId whole, std::span<const ValueId> pieces,
                              std::vector<std::size_t>& offsets) {
    std::vector<std::int64_t> dims, piece_dims;
    const auto static_dims = [&](ValueId v, std::vector<std::int64_t>& out) {
        out.clear();
        for (const orm::Dim d : g.dims(v)) {
            if (!d.is_static()) return false;
            out.push_back(d.extent);
        }
        return g.has_type(v);
    };
    const auto bits = orm::element_bits(g.element_type(whole));
    if (pieces.empty() || !bits || *bits < 8 || *bits % 8 != 0 || !static_dims(whole, dims) || dims.empty())
        return false;
    std::size_t axis = dims.size();  // the one axis the pieces cut, once seen
    std::size_t bytes = 0;
    offsets.clear();
    for (const ValueId p : pieces) {
        if (g.element_type(p) != g.element_type(whole) || !static_dims(p, piece_dims) || piece_dims.size() != dims.size())
            return false;
        for (std::size_t k = 0; k < dims.size(); ++k)
            if (piece_dims[k] != dims[k]) {
                if (axis != dims.size() && axis != k) return false;
                axis = k;
            }
        const auto size = orm::static_size(g, p);
        offsets.push_back(bytes);
        if (!size || orm::detail::add_overflows(bytes, *size, bytes)) return false;
    }
    if (axis == dims.size()) axis = 0;  // every piece the whole: one piece
    const bool leading_ones = std::all_of(dims.begin(), dims.begin() + static_cast<std::ptrdiff_t>(axis),
                                          [](std::int64_t d) { return d == 1; });
    return leading_ones && bytes == orm::static_size(g, whole);  // then along `axis` they cover it
}

}  // namespace detail

// The arena's lower bound with these views (nullopt: none, e.g. a size
// unknown): what add_slices keeps a Split's or Concat's edges by.
using SliceMeasure = std::function<std::optional<std::size_t>(const orm::ViewMap&)>;

// Splits and Concats along contiguous pieces, made zero-copy:
// - each output of a Split that cuts its first input into contiguous pieces
//   becomes a view of the input at its offset (the Split is a no-op);
// - each input of a Concat of contiguous pieces becomes a part of its output
//   at its offset (ViewMap::insert_part), written there by its producer, when
//   it is a node's output not yet a view, a part or a graph output, and not
//   read twice by the Concat; the Concat then copies the rest. A Concat whose
//   first inputs are exactly an earlier Concat's (DenseNet's blocks: each
//   layer concatenates every feature so far) takes that Concat as its part at
//   0 instead, so a whole block lives in its last Concat's buffer.
// Zero-copy is not always smaller: a part makes its whole live from the
// part's producer on (a U-Net's skip, concatenated at the far end). With
// `measure`, each node's edges are kept only where the bound with them is
// no larger than without (in node order, one liveness per Split or Concat).
// Omitted outputs ('-') leave a Split's pieces unknown: it is left alone.
inline Slices add_slices(const Graph& g, orm::ViewMap& views, const SliceMeasure& measure = {}) {
    Slices done;
    std::vector<std::size_t> offsets;
    std::vector<std::uint8_t> taken(g.value_count(), 0), output(g.value_count(), 0);
    for (ValueId v : g.graph_outputs()) output[v] = 1;
    const auto free_to_take = [&](ValueId v) {
        return !views.contains(v) && !taken[v] && !output[v] && !g.is_graph_input(v) && !g.is_initializer(v);
    };
    std::map<std::vector<ValueId>, ValueId> concat_of;  // a Concat's inputs -> its output, when made a whole
    std::optional<std::size_t> bound = measure ? measure(views) : std::nullopt;
    struct Edge {
        ValueId value, source;
        std::size_t offset;
    };
    std::vector<Edge> edges;
    std::size_t avoided = 0;
    // Keeps the node's edges where they pay; then Split views or Concat parts.
    const auto keep = [&](bool part) {
        if (edges.empty()) return false;
        orm::ViewMap trial = views;
        for (const Edge& e : edges) {
            if (part) trial.insert_part(e.value, e.source, e.offset);
            else trial.insert(e.value, e.source, e.offset);
        }
        if (measure) {
            const auto with = measure(trial);
            if (!with || (bound && *with > *bound)) return false;
            bound = with;
        }
        views = std::move(trial);
        for (const Edge& e : edges) taken[e.value] = 1;
        (part ? done.parts : done.views) += edges.size();
        done.copies_avoided_bytes += avoided;
        return true;
    };
    for (std::size_t n = 0; n < g.node_count(); ++n) {
        const auto ins = g.node_inputs(n);
        const auto outs = g.node_outputs(n);
        edges.clear();
        if (g.op_type(n) == "Split" && !ins.empty() && !outs.empty() &&
            std::none_of(outs.begin(), outs.end(), [&](ValueId o) { return views.contains(o); }) &&
            detail::contiguous_pieces(g, ins[0], outs, offsets)) {
            for (std::size_t k = 0; k < outs.size(); ++k) edges.push_back({outs[k], ins[0], offsets[k]});
            avoided = *orm::static_size(g, ins[0]);
            keep(false);
            continue;
        }
        if (g.op_type(n) != "Concat" || outs.size() != 1 || views.contains(outs[0]) ||
            !detail::contiguous_pieces(g, outs[0], ins, offsets))
            continue;
        const ValueId whole = outs[0];
        std::size_t from = 0;  // the inputs an earlier Concat holds already
        avoided = 0;
        for (std::size_t k = ins.size() - 1; k > 0 && from == 0; --k) {
            const auto it = concat_of.find(std::vector<ValueId>(ins.begin(), ins.begin() + static_cast<std::ptrdiff_t>(k)));
            if (it != concat_of.end() && free_to_take(it->second)) {
                edges.push_back({it->second, whole, 0});
                avoided += offsets[k];
                from = k;
            }
        }
        for (std::size_t k = from; k < ins.size(); ++k) {
            const ValueId v = ins[k];
            if (!free_to_take(v) || std::count(ins.begin(), ins.end(), v) > 1) continue;
            edges.push_back({v, whole, offsets[k]});
            avoided += *orm::static_size(g, v);
        }
        if (keep(true)) concat_of.emplace(std::vector<ValueId>(ins.begin(), ins.end()), whole);
    }
    return done;
}

}  // namespace ir
