// validate: check a plan against the graph, independently of how it was
// made (SPEC section 6). Reports the first violation, always the same one.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "errors.hpp"
#include "detail/checked.hpp"
#include "expected.hpp"
#include "graph.hpp"
#include "liveness.hpp"
#include "plan.hpp"
#include "sizing.hpp"
#include "view_map.hpp"

namespace onnx_runtime_memory {

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
        // Arena plans (validate_arena):
        misaligned_offset,     // owner `value`'s offset is not a multiple of the alignment
        outside_arena,         // owner `value` ends past the arena
        offset_overlap,        // owners `value` and `other` are live together and overlap in bytes
        view_offset_mismatch,  // view `value` is not at its root owner `other`'s offset
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
            case Kind::wrong_naive_bytes:
                return "naive_bytes is " + std::to_string(capacity) + " but the owners' sizes add up to " +
                       std::to_string(size);
            case Kind::misaligned_offset: return "owner " + v(value) + " has an offset that is not aligned";
            case Kind::outside_arena: return "owner " + v(value) + " ends past the arena";
            case Kind::offset_overlap:
                return "owners " + v(value) + " and " + v(other) + " are live at the same time and overlap in bytes";
            case Kind::view_offset_mismatch: return "view " + v(value) + " is not at its root " + v(other) + "'s offset";
        }
        return "unknown validate error";
    }
};

// Checks a liveness against the graph: every read of a value (and so of
// every view in a chain) and every graph output falls inside its root
// owner's interval (ViewOutlivesSource), and so does every node that
// produces a view (ViewOutsideSource): a view's bytes are its root's. A
// liveness from compute_liveness always passes; one kept by the caller
// across runs, or edited, may not (one of the wrong shape is a plan_error,
// bad_liveness).
template <activation_graph G>
[[nodiscard]] expected<void, ValidateError> validate_liveness(const G& g, const ViewMap& views, const Liveness& live) {
    using T = graph_traits<G>;
    const auto plan_error = [](PlanError e) { return unexpected(ValidateError::from(e)); };
    const auto fail = [](ValidateError::Kind kind, ValueId v, ValueId r, NodeIndex n) {
        ValidateError err;
        err.kind = kind;
        err.value = v;
        err.other = r;
        err.node = n;
        return unexpected(err);
    };
    const auto size = detail::checked_size(g);
    if (!size) return plan_error(size.error());
    const std::size_t V = size->values;
    if (auto ok = check_liveness(live); !ok) return plan_error(ok.error());
    if (live.value_count() != V) return plan_error(make_plan_error(PlanError::Kind::bad_liveness));
    std::vector<ValueId> root;
    if (auto ok = detail::resolve_roots(views, V, root); !ok) return plan_error(ok.error());
    const auto covered = [&](ValueId r, std::size_t n) {
        return !live.is_owner(r) || (live.intervals[r].def <= n && n <= live.intervals[r].use_end);
    };

    for (std::size_t n = 0; n < size->nodes; ++n) {
        const auto node = static_cast<NodeIndex>(n);
        for (auto x : T::node_inputs(g, n)) {
            const auto v = detail::to_value_id(x, V);
            if (!v) return plan_error(detail::out_of_range(x, node));
            if (!covered(root[*v], n)) return fail(ValidateError::Kind::view_outlives_source, *v, root[*v], node);
        }
        for (auto x : T::node_outputs(g, n)) {
            const auto v = detail::to_value_id(x, V);
            if (!v) return plan_error(detail::out_of_range(x, node));
            if (root[*v] != *v && !covered(root[*v], n))
                return fail(ValidateError::Kind::view_outside_source, *v, root[*v], node);
        }
    }
    for (auto x : T::graph_outputs(g)) {
        const auto v = detail::to_value_id(x, V);
        if (!v) return plan_error(detail::out_of_range(x));
        if (!covered(root[*v], live.last_position))
            return fail(ValidateError::Kind::view_outlives_source, *v, root[*v], live.last_position);
    }
    return {};
}

namespace detail {

// Steps 1 and 2 of validate: every owner has a known slot big enough, and no
// two owners of one slot are live together.
template <class Oracle>
[[nodiscard]] expected<void, ValidateError> validate_assignments(const Liveness& live, const ActivationPlan& plan,
                                                                 Oracle& oracle) {
    using Kind = ValidateError::Kind;
    // The plan's own table and totals are checked, not believed: an executor
    // allocates peak_bytes and indexes slots by id.
    const auto& slots = plan.slots;
    std::size_t capacity_total = 0;
    bool overflow = false;
    for (std::size_t k = 0; k < slots.size(); ++k) {
        if (slots[k].id.value != k) {
            ValidateError err;
            err.kind = Kind::bad_slot_table;
            err.size = k;
            err.slot = slots[k].id;
            return unexpected(err);
        }
        overflow = overflow || detail::add_overflows(capacity_total, slots[k].capacity, capacity_total);
    }
    if (overflow || capacity_total != plan.peak_bytes) {
        ValidateError err;
        err.kind = Kind::wrong_peak_bytes;
        err.size = overflow ? detail::size_max : capacity_total;
        err.capacity = plan.peak_bytes;
        return unexpected(err);
    }

    std::size_t naive_total = 0;
    bool all_known = true;
    for (ValueId v : live.owners) {
        ValidateError err;
        err.value = v;
        const auto slot = plan.slot_of(v);
        if (!slot) {
            err.kind = Kind::missing_assignment;
            return unexpected(err);
        }
        err.slot = *slot;
        if (slot->value >= slots.size()) {
            err.kind = Kind::unknown_slot;
            return unexpected(err);
        }
        const std::optional<std::size_t> need = oracle(v);
        all_known = all_known && need.has_value();
        if (need) naive_total = detail::saturating_add(naive_total, *need);
        if (need && *need > slots[slot->value].capacity) {
            err.kind = Kind::undersized_slot;
            err.size = *need;
            err.capacity = slots[slot->value].capacity;
            return unexpected(err);
        }
    }
    if (all_known && naive_total != plan.naive_bytes) {
        ValidateError err;
        err.kind = Kind::wrong_naive_bytes;
        err.size = naive_total;
        err.capacity = plan.naive_bytes;
        return unexpected(err);
    }

    // Group owners by slot, each group in owner order. Within a group an
    // owner overlaps a later one iff it overlaps the next (defs only grow),
    // so the first conflicting owner in owner order and its next form the
    // first conflicting pair.
    std::vector<std::uint64_t> by_slot(live.owners.size());
    for (std::size_t k = 0; k < live.owners.size(); ++k)
        by_slot[k] = std::uint64_t{plan.assignments[live.owners[k]].value} << 32 | k;
    std::sort(by_slot.begin(), by_slot.end());
    std::size_t first = live.owners.size();
    std::size_t partner = 0;
    for (std::size_t k = 0; k + 1 < by_slot.size(); ++k) {
        if (by_slot[k] >> 32 != by_slot[k + 1] >> 32) continue;
        const auto a = static_cast<std::size_t>(by_slot[k] & 0xFFFFFFFFu);
        const auto b = static_cast<std::size_t>(by_slot[k + 1] & 0xFFFFFFFFu);
        if (a < first && live.intervals[live.owners[a]].overlaps(live.intervals[live.owners[b]])) {
            first = a;
            partner = b;
        }
    }
    if (first < live.owners.size()) {
        ValidateError err;
        err.kind = Kind::slot_conflict;
        err.value = live.owners[first];
        err.other = live.owners[partner];
        err.slot = plan.assignments[err.value];
        return unexpected(err);
    }
    return {};
}

}  // namespace detail

// Validate a plan against the graph, recomputing liveness with the same view
// map and options, using `oracle` to check slot capacities (an unknown size
// skips that check). Nothing the plan says about itself is believed. In
// order: its slots are numbered 0, 1, 2, ... (BadSlotTable) and peak_bytes is
// their total (WrongPeakBytes); each owner (in owner order) has a slot
// (MissingAssignment) that the plan has (UnknownSlot) and that is big enough
// (UndersizedSlot); naive_bytes is the owners' total when every size is
// known (WrongNaiveBytes); no two owners sharing a slot overlap
// (SlotConflict); no read falls after its root owner retires
// (ViewOutlivesSource), no view is produced outside it (ViewOutsideSource). An invalid
// graph or view map is reported first, since nothing can be checked without
// its liveness. Assignments of non-owners are ignored.
template <activation_graph G, size_oracle Oracle>
[[nodiscard]] expected<void, ValidateError> validate(const G& g, const ViewMap& views, const ActivationPlan& plan,
                                                     Oracle&& oracle, const PlanOptions& options = {}) {
    auto live = compute_liveness(g, views, options);
    if (!live) return unexpected(ValidateError::from(live.error()));
    if (auto ok = detail::validate_assignments(*live, plan, oracle); !ok) return ok;
    return validate_liveness(g, views, *live);
}

// Convenience: validate with sizes from fully-static shapes.
template <shaped_graph G>
[[nodiscard]] expected<void, ValidateError> validate_static(const G& g, const ViewMap& views,
                                                            const ActivationPlan& plan,
                                                            const PlanOptions& options = {}) {
    return validate(g, views, plan, static_size_oracle(g), options);
}

}  // namespace onnx_runtime_memory
