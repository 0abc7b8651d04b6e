// ValidateError::message(): one line of English naming the culprit. Inline at
// the end of validate_error.hpp, or in the compiled core (config.hpp).
#pragma once

#include "config.hpp"
#if defined(ONNX_RUNTIME_MEMORY_SEPARATE_COMPILATION) && !defined(ONNX_RUNTIME_MEMORY_SOURCE)
#error "detail/validate_error_message.hpp is the compiled core's: include validate_error.hpp (src.hpp defines the core once)"
#endif

#include <string>

#include "../validate_error.hpp"

namespace onnx_runtime_memory {

ONNX_RUNTIME_MEMORY_CORE std::string ValidateError::message() const {
    const auto v = [](ValueId x) { return "value " + std::to_string(x); };
    const std::string s = "slot " + std::to_string(slot.value);
    switch (kind) {
        case Kind::missing_assignment: return "owner " + v(value) + " has no slot";
        case Kind::unknown_slot: return "owner " + v(value) + " is assigned " + s + ", which the plan does not have";
        case Kind::undersized_slot:
            return "owner " + v(value) + " needs " + std::to_string(size) + " bytes but " + s + " holds " +
                   std::to_string(capacity);
        case Kind::slot_conflict:
            return "owners " + v(value) + " and " + v(other) + " are live at the same time and share " + s;
        case Kind::view_outlives_source:
            return v(value) + " is read at node " + std::to_string(node) + ", after its buffer owner " + v(other) +
                   " is retired";
        case Kind::plan_error: return plan_error.message();
        case Kind::view_outside_source:
            return "view " + v(value) + " is produced at node " + std::to_string(node) +
                   ", outside the live interval of its buffer owner " + v(other);
        case Kind::bad_slot_table:
            return "the plan's slot " + std::to_string(size) + " has id " + std::to_string(slot.value) +
                   ": slots must be numbered 0, 1, 2, ... in order";
        case Kind::wrong_peak_bytes:
            return "peak_bytes is " + std::to_string(capacity) + " but the slots' capacities add up to " +
                   (size == static_cast<std::size_t>(-1) ? std::string("more than SIZE_MAX (it overflows)")
                                                          : std::to_string(size));
        case Kind::scratch_conflict:
            return "the scratch of node " + std::to_string(node) +
                   (value != no_value ? " shares memory with " + v(value) + ", live at that node"
                    : capacity < size ? " needs " + std::to_string(size) + " bytes but has " + std::to_string(capacity)
                                      : " has no place in the plan");
        case Kind::wrong_dynamic_values:
            return "the plan's dynamic_values differ from the owners of unknown size at " + v(value) +
                   " (was the plan made with other PlanOptions: unknown_sizes, outputs?)";
        case Kind::dynamic_placed:
            return v(value) + " is dynamic (its size is known only at run time) but the plan places it";
        case Kind::bad_inplace:
            return v(value) + " is written in place into " + (other == no_value ? std::string("an input no hint names") : v(other)) +
                   ", which is not safe: no hint, or the input's bytes are unplanned, a graph output, read later or taken twice";
        case Kind::wrong_naive_bytes:
            return "naive_bytes is " + std::to_string(capacity) + " but the owners' sizes add up to " +
                   std::to_string(size);
        case Kind::misaligned_offset: return "owner " + v(value) + " has an offset that is not aligned";
        case Kind::outside_arena: return "owner " + v(value) + " ends past the arena";
        case Kind::offset_overlap:
            return "owners " + v(value) + " and " + v(other) + " are live at the same time and overlap in bytes";
        case Kind::view_offset_mismatch:
            return "view " + v(value) + " is not at its root " + v(other) + "'s offset (plus its offset in the root)";
        case Kind::parts_overlap:
            return "parts " + v(value) + " and " + v(other) + " of one value overlap in its bytes";
        case Kind::view_outside_root:
            return "view " + v(value) + " does not lie inside its root " + v(other) + ": it ends at byte " +
                   (size == static_cast<std::size_t>(-1) ? std::string("past SIZE_MAX") : std::to_string(size)) +
                   " of the root's " + std::to_string(capacity);
        case Kind::missing_offset: return "owner " + v(value) + " has no offset in the arena";
        case Kind::external_placed:
            return v(value) + " is an external graph output (or shares its bytes), allocated by the executor, "
                              "but the plan places it";
        case Kind::space_not_allowed:
            if (value == no_value) return "the space options' lists are malformed (one is empty or names a missing space)";
            return "buffer " + std::to_string(value) + " is in space " + std::to_string(size) +
                   ", which its preference list does not allow (a pinned buffer: not its list's first)";
        case Kind::over_capacity:
            return "space " + std::to_string(value) + "'s arena ends at " + std::to_string(size) +
                   " bytes, past its capacity of " + std::to_string(capacity);
        case Kind::bad_residency:
            return "buffer " + std::to_string(value) + "'s segment " + std::to_string(size) +
                   " breaks its residency: segments must cover its life in order, fast and slow in turn";
        case Kind::used_while_out:
            return "buffer " + std::to_string(value) + " is used at " + std::to_string(node) +
                   " while it is out of the fast space";
        case Kind::wrong_transfers:
            return "transfer " + std::to_string(size) + " is not the copy the residencies need there";
        case Kind::wrong_spill_totals:
            return "a total of the spilled plan says " + std::to_string(capacity) + " but its segments give " +
                   std::to_string(size);
        case Kind::pin_moved:
            return "owner " + v(value) + " is pinned at offset " + std::to_string(capacity) + " but placed at " +
                   (size == static_cast<std::size_t>(-1) ? std::string("no offset") : std::to_string(size));
    }
    return "unknown validate error";
}

}  // namespace onnx_runtime_memory
