// PlanError: why no plan (and no liveness, no order) could be produced.
#pragma once

#include <cstdint>
#include <string>

#include "detail/config.hpp"
#include "graph.hpp"

namespace onnx_runtime_memory {

struct PlanError {
    enum class Kind : std::uint8_t {
        graph_too_large,       // more values or nodes than max_graph_ids, or more ids in the graph's lists
                               // than max_graph_edges (at `node`, whose list passed it; see graph.hpp)
        value_out_of_range,    // an id outside 0 .. value_count-1 (at `node`, or in the graph's input/output list)
        produced_twice,        // `value` is an output of `node` and of an earlier node (or twice of `node`)
        used_before_produced,  // `node` reads `value` before any node produces it (or no node ever does)
        cycle,                 // topological_order: `node` is on a dependency cycle
        view_cycle,            // the ViewMap's edges from `value` lead back to `value`
        view_unknown_value,    // a ViewMap edge names `value`, which is not in the graph
        size_overflow,         // the byte total overflows std::size_t when `value` (or `node`'s scratch) is added
        bad_order,             // an execution order that is not a permutation of the nodes (`node` is the culprit)
        view_before_source,    // `node` produces view `value` before its root owner is produced
        output_not_produced,   // graph output `value` is produced by no node and is no graph input or initializer
        bad_liveness,          // a Liveness handed back in is not one compute_liveness makes (`value`: first bad entry)
        bad_buffer,            // buffer record `value` has first > last, or a time past max_graph_ids
        bad_scratch,           // scratch is asked for `node`, which the graph does not have
        bad_pin,               // (a graph) pinned `value` is not an owner planned in the arena, or is pinned
                               // twice at different offsets
        pins_overlap,          // pinned `value` and `other` share bytes while both are live (at `node`, the
                               // caller's position or time stamp)
        pin_misaligned,        // `value`'s pinned offset is not a multiple of the alignment
        pin_too_high,          // `value`'s pin ends so near SIZE_MAX that the other buffers may not fit above
                               // it (its end plus the total of the sizes passes SIZE_MAX; a graph's pin at
                               // SIZE_MAX too, which is no_offset)
        input_produced,        // graph input `value` is also produced by `node`, and read before it
        plan_mismatch,         // placements: owner `value` has no slot or offset in the plan given (a plan
                               // made with other PlanOptions)
        view_of_later_value,   // `node` reads `value`, a view (by the view map) of `other`, which no earlier
                               // node produces: the view edge may be the wrong way round
        view_outside_root,     // view `value`'s bytes (its offset in its root `other` plus its size) pass the
                               // end of `other`'s (or SIZE_MAX)
        part_not_produced,     // `value`, a part of `other` (ViewMap::insert_part), or `other` itself, is produced
                               // by no node: a weight, or a graph input whose whole is no external output
        part_after_whole,      // `node` produces part `value` after `other`, the value it is a part of
        parts_overlap,         // parts `value` and `other` of one value overlap in its bytes
        not_a_part,            // PlannedModel::move_part: `value` is no part (ViewMap::insert_part)
        bad_streams,           // the Streams description gets `node` wrong (a stream past max_streams, a list
                               // of the wrong length, an event out of range or not forward); no node: a
                               // spilled request on several streams (not planned there yet)
    };
    // How the caller's id reads when it is not a plain number below 2^64.
    enum class IdForm : std::uint8_t {
        plain,     // `value` is the id
        negative,  // the id is minus `value`
        wide,      // the id needs more than 64 bits; `value` holds its low 64
    };

    Kind kind{};
    std::uint64_t value = no_value;  // the value at fault, as the caller named it (no_value if none)
    NodeIndex node = no_node;        // the node at fault (no_node if none)
    IdForm value_form = IdForm::plain;
    std::uint64_t other = no_value;  // pins_overlap: the second culprit; view_outside_root: the root

    friend bool operator==(const PlanError&, const PlanError&) = default;

    // The culprit value as the caller wrote it: "value 12", "value -1".
    [[nodiscard]] std::string value_text() const {
        switch (value_form) {
            case IdForm::negative: return "value -" + std::to_string(value);
            case IdForm::wide: return "a value id wider than 64 bits (low 64 bits " + std::to_string(value) + ")";
            case IdForm::plain: break;
        }
        return "value " + std::to_string(value);
    }

    // One line of English naming the culprit, e.g. "node 7 reads value 12
    // before any node produces it".
    [[nodiscard]] ONNX_RUNTIME_MEMORY_CORE std::string message() const;  // detail/plan_error_message.hpp
};

[[nodiscard]] inline PlanError make_plan_error(PlanError::Kind kind, std::uint64_t value = no_value,
                                               NodeIndex node = no_node) {
    return PlanError{kind, value, node};
}

}  // namespace onnx_runtime_memory

#if !defined(ONNX_RUNTIME_MEMORY_SEPARATE_COMPILATION)
#include "detail/plan_error_message.hpp"  // message()'s code (else the compiled core's: src.hpp)
#endif
