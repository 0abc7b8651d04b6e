// PlanError::message(): one line of English naming the culprit. Inline at
// the end of errors.hpp, or in the compiled core (config.hpp).
#pragma once

#include "config.hpp"
#if defined(ONNX_RUNTIME_MEMORY_SEPARATE_COMPILATION) && !defined(ONNX_RUNTIME_MEMORY_SOURCE)
#error "detail/plan_error_message.hpp is the compiled core's: include errors.hpp (src.hpp defines the core once)"
#endif

#include <string>

#include "../errors.hpp"

namespace onnx_runtime_memory {

ONNX_RUNTIME_MEMORY_CORE std::string PlanError::message() const {
    const std::string v = value_text();
    const std::string n = "node " + std::to_string(node);
    switch (kind) {
        case Kind::graph_too_large:
            if (node != no_node)
                return "the lists up to " + n + " hold more ids than the planner reads (" +
                       std::to_string(max_graph_edges) + ")";
            return "the graph has more values or nodes than the planner numbers (" + std::to_string(max_graph_ids) +
                   "), or its input/output lists more ids than it reads (" + std::to_string(max_graph_edges) + ")";
        case Kind::value_out_of_range:
            return (node == no_node ? std::string("the graph's input/output list") : n) + " names " + v +
                   ", which is not a value id of the graph";
        case Kind::produced_twice: return n + " produces " + v + ", which another output already produced";
        case Kind::used_before_produced: return n + " reads " + v + " before any node produces it";
        case Kind::cycle: return n + " is on a dependency cycle: the graph has no execution order";
        case Kind::view_cycle: return "the view map's edges from " + v + " lead back to it (a view cycle)";
        case Kind::view_unknown_value: return "the view map names " + v + ", which is not a value id of the graph";
        case Kind::size_overflow:
            if (value == no_value && node != no_node)
                return "the byte total overflows std::size_t when adding the scratch of " + n;
            return "the byte total overflows std::size_t when adding " + v;
        case Kind::bad_order: return "the execution order is not a permutation of the nodes (at " + n + ")";
        case Kind::view_before_source:
            return n + " produces " + v + ", a view whose buffer owner is produced later (its bytes do not exist yet)";
        case Kind::output_not_produced:
            return "graph output " + v + " is produced by no node and is no graph input or initializer";
        case Kind::bad_liveness:
            return "the liveness passed in is not one compute_liveness makes (at " + v + ")";
        case Kind::bad_scratch: return "scratch is asked for " + n + ", which the graph does not have";
        case Kind::bad_pin:
            return v + " is pinned, but it is no buffer the arena places (a view, weight, graph input, external "
                       "output or dynamic value), or it is pinned twice at different offsets";
        case Kind::pin_misaligned: return v + " is pinned at an offset that is not a multiple of the alignment";
        case Kind::pin_too_high:
            return v + " is pinned so near SIZE_MAX that the other buffers may not fit above it (its end plus "
                       "the total of the sizes passes SIZE_MAX)";
        case Kind::input_produced:
            return v + " is a graph input, but " + n +
                   " also produces it, after it is first read (a value comes from the caller or from one node)";
        case Kind::view_of_later_value:
            return n + " reads " + v + ", which the view map makes a view of value " + std::to_string(other) +
                   ", produced by no earlier node (is that view edge the wrong way round?)";
        case Kind::view_outside_root:
            return "view " + v + " does not lie inside its root" +
                   (other == no_value ? std::string() : " value " + std::to_string(other)) +
                   ": its offset in the root's bytes plus its size passes the root's size";
        case Kind::part_not_produced:
            return v + " is declared a part of value " + std::to_string(other) +
                   ", but one of them is produced by no node (a weight cannot hold or be a part; a graph input "
                   "can be a part only of a graph output the executor holds: OutputPlacement::external)";
        case Kind::part_after_whole:
            return n + " produces " + v + ", a part of value " + std::to_string(other) +
                   ", after that value is produced (a part is written before the value it is a part of)";
        case Kind::parts_overlap:
            return "parts " + v + " and value " + std::to_string(other) + " of one value overlap in its bytes";
        case Kind::bad_streams:
            if (node == no_node) return "a spilled request (plan_spilled) is not planned across several streams yet";
            return "the streams description gets " + n +
                   " wrong: a stream id past Streams::max_streams, a stream list not one per node, or an event "
                   "naming a node the graph lacks or not running forward";
        case Kind::not_a_part:
            return v + " is no part (ViewMap::insert_part): only a part's offset moves between requests";
        case Kind::plan_mismatch:
            return v + " is an owner under these options but has no place in the plan: was the plan made with "
                       "other PlanOptions (outputs, unknown sizes, inputs, in-place hints)?";
        case Kind::pins_overlap:
            return "pinned " + v + " and value " + std::to_string(other) + " share bytes while both are live (at " +
                   n + ")";
        case Kind::bad_buffer:
            return "buffer " + std::to_string(value) + " ends before it begins, or lives past time " +
                   std::to_string(max_graph_ids - 1);
    }
    return "unknown plan error";
}

}  // namespace onnx_runtime_memory
