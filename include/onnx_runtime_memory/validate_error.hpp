// ValidateError: the invariant a plan violates, as validate, validate_arena
// and validate_offsets report it (plan_types.hpp includes it).
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <string>

#include "detail/config.hpp"
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

    [[nodiscard]] ONNX_RUNTIME_MEMORY_CORE std::string message() const;  // detail/validate_error_message.hpp
};

}  // namespace onnx_runtime_memory

#if !defined(ONNX_RUNTIME_MEMORY_SEPARATE_COMPILATION)
#include "detail/validate_error_message.hpp"  // message()'s code (else the compiled core's: src.hpp)
#endif
