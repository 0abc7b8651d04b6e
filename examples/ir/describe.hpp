// Error messages in the IR's own terms: value names and source lines
// instead of bare ids.
#pragma once

#include <onnx_runtime_memory/errors.hpp>
#include <onnx_runtime_memory/validate.hpp>

#include <string>

#include "graph.hpp"

namespace ir {

[[nodiscard]] inline std::string value_label(const Graph& g, std::uint64_t v) {
    if (v >= g.value_count()) return "value id " + std::to_string(v);
    return "value '" + std::string(g.value_name(static_cast<ValueId>(v))) + "'";
}
[[nodiscard]] inline std::string node_label(const Graph& g, NodeIndex n) {
    if (n >= g.node_count()) return "node " + std::to_string(n);
    std::string s = "node " + std::to_string(n) + " (" + std::string(g.op_type(n));
    if (g.node_line(n) != 0) s += " on line " + std::to_string(g.node_line(n));
    return s + ")";
}

[[nodiscard]] inline std::string describe(const Graph& g, const orm::PlanError& e) {
    using K = orm::PlanError::Kind;
    switch (e.kind) {
        case K::value_out_of_range:
        case K::produced_twice:
        case K::used_before_produced:
        case K::size_overflow:
        case K::view_cycle:
        case K::view_unknown_value:
        case K::view_before_source:
        case K::output_not_produced:
        case K::bad_pin:
        case K::pin_misaligned:
        case K::pin_too_high:
        case K::pins_overlap:
        case K::input_produced:
        case K::plan_mismatch:
        case K::view_of_later_value:
        case K::view_outside_root:
        case K::part_not_produced:
        case K::part_after_whole:
        case K::parts_overlap:
        case K::not_a_part:
        case K::bad_streams: {
            std::string m = e.message();  // replace the bare ids by labels
            const std::string v = "value " + std::to_string(e.value);
            if (auto at = m.find(v); at != std::string::npos && e.value != orm::no_value &&
                                     e.value_form == orm::PlanError::IdForm::plain)
                m.replace(at, v.size(), value_label(g, e.value));
            const std::string o = "value " + std::to_string(e.other);
            if (auto at = m.find(o); at != std::string::npos && e.other != orm::no_value)
                m.replace(at, o.size(), value_label(g, e.other));
            const std::string n = "node " + std::to_string(e.node);
            if (auto at = m.find(n); at != std::string::npos && e.node != orm::no_node)
                m.replace(at, n.size(), node_label(g, e.node));
            return m;
        }
        case K::cycle:
        case K::bad_order:
        case K::bad_scratch:
            return "at " + node_label(g, e.node) + ": " + e.message();
        case K::graph_too_large:
        case K::bad_liveness:
        case K::bad_buffer: break;
    }
    return e.message();
}

[[nodiscard]] inline std::string describe(const Graph& g, const orm::ValidateError& e) {
    if (e.kind == orm::ValidateError::Kind::plan_error) return describe(g, e.plan_error);
    std::string s = e.message();
    if (e.value != orm::no_value) s += " [" + value_label(g, e.value);
    if (e.other != orm::no_value) s += ", " + value_label(g, e.other);
    if (e.value != orm::no_value) s += "]";
    return s;
}

}  // namespace ir
