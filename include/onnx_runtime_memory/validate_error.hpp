// ValidateError: the invariant a plan violates, as validate, validate_arena
// and validate_offsets report it (plan_types.hpp includes it).
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <string>

#include "errors.hpp"
#include "graph.hpp"

namespace onnx_runtime_memory {

// Identifier of a reusable slot of an ActivationPlan: 0, 1, 2, ...
struct SlotId {
    std::uint32_t value = 0xFFFFFFFFu;

    [[nodiscard]] static constexpr SlotId none() noexcept { return SlotId{}; }
    [[nodiscard]] constexpr bool is_none() const noexcept { return value == 0xFFFFFFFFu; }
    friend constexpr auto operator<=>(const SlotId&, const SlotId&) = default;
};

// A violated correctness invariant.
struct ValidateError {
    enum class Kind : std::uint8_t {
        missing_assignment,    // owner `value` has no slot
        unknown_slot,          // owner `value` names `slot`, which the plan does not have
        undersized_slot,       // owner `value` needs `size` bytes; `slot` holds `capacity`
        slot_conflict,         // owners `value` and `other` are live together and share `slot`
        view_outlives_source,  // `value` is read at `node`, after its root owner `other` retires
        plan_error,            // the graph or view map is invalid: see `plan_error`
        view_outside_source,   // view `value` is produced at `node`, outside its root owner `other`'s interval
        bad_slot_table,        // the plan's slots are not 0, 1, 2, ... in order: `slots[size]` has id `slot`
        wrong_peak_bytes,      // the slots' capacities add up to `size` bytes (SIZE_MAX: overflow), peak_bytes says `capacity`
        wrong_naive_bytes,     // the owners' sizes add up to `size` bytes, naive_bytes says `capacity`
        scratch_conflict,      // node `node`'s scratch: no slot/offset, too small (`size` > `capacity`), or shared with live `value`
        wrong_dynamic_values,  // the plan's dynamic_values are not the owners of unknown size (`value`: the first that differs)
        dynamic_placed,        // `value` is dynamic (its root owner's size is unknown) but the plan places it
        bad_inplace,           // `value` is claimed written in place into `other` (at `node`) without a hint, or
                               // `other`'s bytes are not planned, a graph output, read later, or taken twice
        // Arena plans (validate_arena):
        misaligned_offset,     // owner `value`'s offset is not a multiple of the alignment
        outside_arena,         // owner `value` ends past the arena
        offset_overlap,        // owners `value` and `other` are live together and overlap in bytes
        view_offset_mismatch,  // view `value` is not at its root owner `other`'s offset (plus its window)
        pin_moved,             // owner `value` is pinned at `capacity` but placed at `size`
        missing_offset,        // owner `value` has no offset (no_offset, or past the plan's table)
        external_placed,       // `value` is outside the arena (OutputPlacement::external: a graph output, or
                               // a value sharing its bytes) but the plan gives it a slot or an offset
        // Space plans (validate_spaces):
        space_not_allowed,     // buffer `value` is in space `size`, which its list does not allow (no_value:
                               // the options' lists are malformed)
        over_capacity,         // space `value`'s arena ends at `size` bytes, past its capacity `capacity`
        // Spilled plans (validate_spill; `value` a buffer index):
        bad_residency,         // buffer `value`'s segment `size` breaks the chain: its segments must cover its
                               // life in order, fast and slow in turn, only a slow one between two fast empty
                               // (`size` == segments: the table's shape is wrong)
        used_while_out,        // buffer `value` is used at `node` but is not in the fast space there
        wrong_transfers,       // transfer `size` is not the one the residencies need there (missing, extra,
                               // wrong bytes, offsets or order)
        wrong_spill_totals,    // the plan's totals (fast_bytes, slow_bytes, transfer_bytes, its bound,
                               // spilled_buffers) say `capacity`, its segments and copies give `size`
        view_outside_root,     // view `value` at an offset ends at byte `size` of its root `other` (SIZE_MAX:
                               // past it), whose size is `capacity`
        parts_overlap,         // parts `value` and `other` of one value overlap in its bytes
    };

    Kind kind{};
    ValueId value = no_value;
    ValueId other = no_value;
    SlotId slot{};
    std::size_t size = 0;
    std::size_t capacity = 0;
    NodeIndex node = no_node;
    PlanError plan_error{};

    friend bool operator==(const ValidateError&, const ValidateError&) = default;

    [[nodiscard]] static ValidateError from(PlanError e) {
        ValidateError err;
        err.kind = Kind::plan_error;
        err.plan_error = e;
        return err;
    }

    [[nodiscard]] std::string message() const {
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
};

}  // namespace onnx_runtime_memory
