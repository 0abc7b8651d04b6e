// PlanError: why no plan (and no liveness, no order) could be produced.
#pragma once

#include <cstdint>
#include <string>

#include "graph.hpp"

namespace onnx_runtime_memory {

struct PlanError {
    enum class Kind : std::uint8_t {
        graph_too_large,       // more values or nodes than ValueId/NodeIndex can number
        value_out_of_range,    // an id outside 0 .. value_count-1 (at `node`, or in the graph's input/output list)
        produced_twice,        // `value` is an output of `node` and of an earlier node (or twice of `node`)
        used_before_produced,  // `node` reads `value` before any node produces it (or no node ever does)
        cycle,                 // topological_order: `node` is on a dependency cycle
        view_cycle,            // the ViewMap's edges from `value` lead back to `value`
        view_unknown_value,    // a ViewMap edge names `value`, which is not in the graph
        size_overflow,         // the byte total overflows std::size_t when `value` is added
        bad_order,             // an execution order that is not a permutation of the nodes (`node` is the culprit)
    };

    Kind kind{};
    std::uint64_t value = no_value;  // the value at fault, as the caller named it (no_value if none)
    NodeIndex node = no_node;        // the node at fault (no_node if none)

    friend bool operator==(const PlanError&, const PlanError&) = default;

    // One line of English naming the culprit, e.g. "node 7 reads value 12
    // before any node produces it".
    [[nodiscard]] std::string message() const {
        const std::string v = "value " + std::to_string(value);
        const std::string n = "node " + std::to_string(node);
        switch (kind) {
            case Kind::graph_too_large: return "the graph has more values or nodes than 32-bit ids can number";
            case Kind::value_out_of_range:
                return (node == no_node ? std::string("the graph's input/output list") : n) + " names " + v +
                       ", which is not a value id of the graph";
            case Kind::produced_twice: return n + " produces " + v + ", which another output already produced";
            case Kind::used_before_produced: return n + " reads " + v + " before any node produces it";
            case Kind::cycle: return n + " is on a dependency cycle: the graph has no execution order";
            case Kind::view_cycle: return "the view map's edges from " + v + " lead back to it (a view cycle)";
            case Kind::view_unknown_value: return "the view map names " + v + ", which is not a value id of the graph";
            case Kind::size_overflow: return "the byte total overflows std::size_t when adding " + v;
            case Kind::bad_order: return "the execution order is not a permutation of the nodes (at " + n + ")";
        }
        return "unknown plan error";
    }
};

[[nodiscard]] inline PlanError make_plan_error(PlanError::Kind kind, std::uint64_t value = no_value,
                                               NodeIndex node = no_node) {
    return PlanError{kind, value, node};
}

}  // namespace onnx_runtime_memory
