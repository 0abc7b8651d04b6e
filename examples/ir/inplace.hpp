// Which outputs may be written into an input's buffer, from op types: the
// examples' and tools' rule for ONNX graphs (the library takes no op names).
//   unary elementwise ops: output 0 into input 0, when they have the same
//     shape and element type (Cast: the same shape and element width);
//   binary elementwise ops: output 0 into the first input of exactly its
//     shape and element type (no broadcast input is ever overwritten).
// Shapes match dimension by dimension: equal extents, or the same symbol;
// an unknown dimension matches nothing.
#pragma once

#include <onnx_runtime_memory/liveness.hpp>

#include <algorithm>
#include <span>
#include <string>
#include <vector>

#include "graph.hpp"

namespace ir {

inline const std::vector<std::string> default_inplace_ops{
    // unary
    "Relu", "Sigmoid", "Tanh", "Clip", "LeakyRelu", "Elu", "Selu", "Neg", "Abs", "Exp", "Log", "Sqrt", "Reciprocal",
    "Erf", "Gelu", "HardSigmoid", "HardSwish", "Softplus", "Softsign", "Sin", "Cos", "Floor", "Ceil", "Round",
    "Not", "Sign", "Cast", "Dropout",
    // binary
    "Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "And", "Or", "Xor", "PRelu"};

inline bool is_binary_inplace_op(std::string_view op) {
    static constexpr std::string_view binary[] = {"Add", "Sub", "Mul", "Div", "Pow", "Max",
                                                  "Min", "And", "Or",  "Xor", "PRelu"};
    return std::find(std::begin(binary), std::end(binary), op) != std::end(binary);
}

[[nodiscard]] inline bool same_shape(const Graph& g, ValueId a, ValueId b) {
    const auto da = g.dims(a), db = g.dims(b);
    if (da.size() != db.size()) return false;
    for (std::size_t k = 0; k < da.size(); ++k) {
        const orm::Dim x = da[k], y = db[k];
        const bool same = x.is_static() ? y.is_static() && x.extent == y.extent : x.is_symbolic() && x.symbol == y.symbol;
        if (!same) return false;
    }
    return true;
}

[[nodiscard]] inline std::vector<orm::InplaceHint> inplace_hints(const Graph& g,
                                                                std::span<const std::string> ops = default_inplace_ops) {
    std::vector<orm::InplaceHint> hints;
    for (std::size_t n = 0; n < g.node_count(); ++n) {
        const std::string_view op = g.op_type(n);
        const auto ins = g.node_inputs(n);
        const auto outs = g.node_outputs(n);
        if (ins.empty() || outs.empty() || std::find(ops.begin(), ops.end(), op) == ops.end()) continue;
        const ValueId out = outs[0];
        const auto fits = [&](ValueId in) {
            if (!same_shape(g, in, out)) return false;
            if (op == "Cast") {
                const auto a = orm::element_bits(g.element_type(in)), b = orm::element_bits(g.element_type(out));
                return a && b && *a == *b;
            }
            return g.element_type(in) == g.element_type(out) && g.element_type(in) != orm::ElementType::undefined;
        };
        const std::size_t candidates = is_binary_inplace_op(op) ? ins.size() : 1;
        for (std::size_t k = 0; k < candidates; ++k)
            if (fits(ins[k])) {
                hints.push_back({out, ins[k]});
                break;
            }
    }
    return hints;
}

}  // namespace ir
