// PlanOptions: what the planner puts in the arena and how (the policies,
// scratch, pins, in-place hints), and the in-place hints' outcomes. Every
// default is the original crate's behaviour.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "graph.hpp"

namespace onnx_runtime_memory {

// Where graph outputs live.
enum class OutputPlacement : std::uint8_t {
    in_arena,  // owners like any other, live to the last node (the original crate's rule)
    external,  // outside the arena, allocated by the executor (as ONNX Runtime does), so the next
               // request cannot overwrite them: an output and every value it aliases is no owner
};

// What to do with owners whose size the oracle does not know.
enum class UnknownSizes : std::uint8_t {
    defer,    // no plan: Deferred, listing them (the original crate's rule)
    dynamic,  // plan the rest; they (and their views) stay out of every slot and offset and are
              // listed in the plan's dynamic_values, for the executor to allocate at run time
};

// A node may write `output` into the buffer of its input `input` (an
// elementwise op in place): PlanOptions::inplace.
struct InplaceHint {
    ValueId output = no_value;
    ValueId input = no_value;
    friend bool operator==(const InplaceHint&, const InplaceHint&) = default;
};

// What became of an in-place hint (explain_inplace).
enum class InplaceResult : std::uint8_t {
    taken,                 // the output lives in the input's buffer
    not_an_input,          // `input` is not an input of the node that produces `output`, no node produces
                           // `output` (an included graph input), or an id is past the graph
    output_not_owner,      // `output` has no buffer of its own to give up: a view, a graph input or weight,
                           // an external graph output
    input_not_owner,       // the input's bytes are not planned: a graph input, a weight, an external output
    input_read_later,      // the input's bytes are read after the node (through any view or earlier fold),
                           // or another output of the node already took them
    input_is_graph_output, // the input's bytes are (or alias) a graph output, which must survive
    input_holds_windows,   // the input's buffer holds views at an offset or parts (ViewMap), which the
                           // output could overwrite
    input_read_concurrently,  // on streams (explain_inplace_on_streams): the hinted node is the last to
                              // touch the input's bytes, but a node that need not happen before it does too
};

[[nodiscard]] constexpr const char* to_string(InplaceResult r) noexcept {
    switch (r) {
        case InplaceResult::taken: return "taken";
        case InplaceResult::not_an_input: return "not_an_input";
        case InplaceResult::output_not_owner: return "output_not_owner";
        case InplaceResult::input_not_owner: return "input_not_owner";
        case InplaceResult::input_read_later: return "input_read_later";
        case InplaceResult::input_holds_windows: return "input_holds_windows";
        case InplaceResult::input_read_concurrently: return "input_read_concurrently";
        case InplaceResult::input_is_graph_output: return "input_is_graph_output";
    }
    return "unknown";
}

// An owner whose arena offset the caller fixes (PlanOptions::pinned).
struct PinnedOffset {
    ValueId value = no_value;
    std::size_t offset = 0;
    friend bool operator==(const PinnedOffset&, const PinnedOffset&) = default;
};

// Options controlling what the planner considers part of the arena. Every
// default is the original crate's behaviour.
struct PlanOptions {
    // When true, graph inputs that are not initializers become owners placed
    // in the arena (live from position 0).
    bool include_graph_inputs = false;
    OutputPlacement outputs = OutputPlacement::in_arena;
    UnknownSizes unknown_sizes = UnknownSizes::defer;
    // Scratch: scratch_bytes[n] bytes of workspace node n needs while it runs
    // (and not before or after), planned like an owner live at n alone: the
    // plans report a slot (ActivationPlan::scratch) or an offset
    // (ArenaPlan::scratch_offsets) per node. 0, or no entry: none. A
    // non-zero entry for a node the graph does not have is
    // PlanError::bad_scratch.
    std::vector<std::size_t> scratch_bytes{};
    // Arena plans only (slot plans ignore them): owners at offsets the caller
    // fixes (an offline plan, a memory-mapped region); the rest is packed
    // around them. A pin must name an owner the arena places (else
    // PlanError::bad_pin), at a multiple of the alignment (pin_misaligned)
    // below SIZE_MAX (pin_too_high), and pins must not share bytes while
    // live (pins_overlap). validate_arena checks them.
    std::vector<PinnedOffset> pinned{};
    // In-place reuse, opt-in: each hint is taken when it is safe (the input's
    // bytes are planned, read by nothing after the node, and no graph output;
    // the output has a buffer of its own; see InplaceResult), in node order,
    // so chains fold. A taken output then lives in its input's buffer as a
    // view does, and that buffer holds the largest value folded into it.
    // explain_inplace says what became of each hint.
    std::vector<InplaceHint> inplace{};

    friend bool operator==(const PlanOptions&, const PlanOptions&) = default;
};

}  // namespace onnx_runtime_memory
