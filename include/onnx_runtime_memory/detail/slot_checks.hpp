// validate's checks of slots, and the records validate_arena checks: the
// code behind validate.hpp's declarations (part of the compiled core,
// config.hpp).
#pragma once

#include "config.hpp"
#if defined(ONNX_RUNTIME_MEMORY_SEPARATE_COMPILATION) && !defined(ONNX_RUNTIME_MEMORY_SOURCE)
#error "detail/slot_checks.hpp is the compiled core's: include validate.hpp (src.hpp defines the core once)"
#endif

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "../validate.hpp"
#include "checked.hpp"

namespace onnx_runtime_memory::detail {

// Steps 1 and 2 of validate: every owner has a known slot big enough, and no
// two owners of one slot are live together.
ONNX_RUNTIME_MEMORY_CORE expected<void, ValidateError> validate_assignments(const Liveness& live, const ActivationPlan& plan,
                                                                          const OwnerSizes& sizes,
                                                                          std::span<const std::size_t> scratch) {
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
        overflow = overflow || add_overflows(capacity_total, slots[k].capacity, capacity_total);
    }
    if (overflow || capacity_total != plan.peak_bytes) {
        ValidateError err;
        err.kind = Kind::wrong_peak_bytes;
        err.size = overflow ? size_max : capacity_total;
        err.capacity = plan.peak_bytes;
        return unexpected(err);
    }

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
        if (sizes.bytes[v] > slots[slot->value].capacity) {  // an unknown size is 0 here: skipped
            err.kind = Kind::undersized_slot;
            err.size = sizes.bytes[v];
            err.capacity = slots[slot->value].capacity;
            return unexpected(err);
        }
    }
    std::size_t naive_total = sizes.overflow_at == no_value ? sizes.total : size_max;
    for (std::size_t bytes : scratch) naive_total = saturating_add(naive_total, bytes);
    if (sizes.complete() && naive_total != plan.naive_bytes) {
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

    // Each node's scratch: a slot of the plan, big enough, held by no owner
    // live at that node (within a slot, owners are disjoint and by def: only
    // the last one starting at or before the node can cover it).
    for (std::size_t n = 0; n < scratch.size(); ++n) {
        if (scratch[n] == 0) continue;
        ValidateError err;
        err.kind = Kind::scratch_conflict;
        err.node = static_cast<NodeIndex>(n);
        err.size = scratch[n];
        if (n >= plan.scratch.size() || plan.scratch[n].value >= slots.size()) return unexpected(err);
        const SlotId s = plan.scratch[n];
        err.slot = s;
        err.capacity = slots[s.value].capacity;
        if (err.capacity < err.size) return unexpected(err);
        const auto group_end = std::lower_bound(by_slot.begin(), by_slot.end(), (std::uint64_t{s.value} + 1) << 32);
        const auto after = std::partition_point(
            std::lower_bound(by_slot.begin(), by_slot.end(), std::uint64_t{s.value} << 32), group_end,
            [&](std::uint64_t key) { return live.intervals[live.owners[key & 0xFFFFFFFFu]].def <= n; });
        if (after != by_slot.begin() && (*std::prev(after) >> 32) == s.value) {
            const ValueId v = live.owners[*std::prev(after) & 0xFFFFFFFFu];
            if (live.intervals[v].use_end >= n) {
                err.value = v;
                return unexpected(err);
            }
        }
    }
    return {};
}

// External outputs (OutputPlacement::external): the executor allocates
// each graph output and every value sharing its bytes (its root's views and
// folds), so the plan must place none of them (ExternalPlaced), though the
// assignments of other non-owners are ignored (the original crate's rule).
ONNX_RUNTIME_MEMORY_CORE expected<void, ValidateError> check_external(const DenseGraph& g, const Liveness& live,
                                                                    const PlanOptions& options, Placed placed) {
    if (options.outputs != OutputPlacement::external) return {};
    const std::size_t V = live.value_count();
    std::vector<std::uint8_t> external(V, 0);  // by root
    for (auto x : g.graph_outputs())
        if (const auto v = to_value_id(x, V)) external[live.roots[*v]] = true;
    for (std::size_t v = 0; v < V; ++v)
        if (external[live.roots[v]] && placed(static_cast<ValueId>(v))) {
            ValidateError err;
            err.kind = ValidateError::Kind::external_placed;
            err.value = static_cast<ValueId>(v);
            return unexpected(err);
        }
    return {};
}

// The dynamic values (UnknownSizes::dynamic): the plan must list exactly the
// owners of unknown size, ascending (WrongDynamicValues), and place none of
// them nor any view of them (DynamicPlaced). Returns the liveness the rest
// is checked on: without them, or nullopt for `live` itself.
ONNX_RUNTIME_MEMORY_CORE expected<std::optional<Liveness>, ValidateError> split_dynamic(const Liveness& live,
                                                                                       const OwnerSizes& sizes,
                                                                                       const PlanOptions& options,
                                                                                       const std::vector<ValueId>& claimed,
                                                                                       Placed placed) {
    const auto fail = [](ValidateError::Kind kind, ValueId v) {
        ValidateError err;
        err.kind = kind;
        err.value = v;
        return unexpected(err);
    };
    const bool dynamic = options.unknown_sizes == UnknownSizes::dynamic;
    const std::vector<ValueId> none;
    const auto& expected_list = dynamic ? sizes.unknown : none;
    if (claimed != expected_list) {
        std::size_t k = 0;
        while (k < claimed.size() && k < expected_list.size() && claimed[k] == expected_list[k]) ++k;
        return fail(ValidateError::Kind::wrong_dynamic_values, k < expected_list.size() ? expected_list[k] : claimed[k]);
    }
    if (!dynamic || sizes.complete()) return std::optional<Liveness>{};
    for (std::size_t v = 0; v < live.value_count(); ++v)
        if (const ValueId r = live.roots[v]; sizes.known(r) == false && live.is_owner(r) && placed(static_cast<ValueId>(v)))
            return fail(ValidateError::Kind::dynamic_placed, static_cast<ValueId>(v));
    return std::optional<Liveness>{without_owners(live, sizes.unknown)};
}

ONNX_RUNTIME_MEMORY_CORE expected<void, ValidateError> make_arena_records(ArenaRecords& r, const ViewMap& views,
                                                                        SizeOf oracle, const PlanOptions& options,
                                                                        const std::vector<ValueId>& dynamic_values,
                                                                        Placed placed) {
    auto live = dense_liveness(*r.graph, views, options);
    if (!live) return unexpected(ValidateError::from(live.error()));
    if (auto ok = check_external(*r.graph, *live, options, placed); !ok) return unexpected(ok.error());
    OwnerSizes sizes;
    size_owners_by(*live, oracle, sizes);  // unknown sizes count as 0 bytes: nothing to overlap
    r.windows = view_windows(views, live->value_count());
    if (auto ok = check_windows(views, r.windows, *live, sizes, oracle); !ok) return unexpected(ok.error());
    const auto split = split_dynamic(*live, sizes, options, dynamic_values, placed);
    if (!split) return unexpected(split.error());
    r.live = *split ? std::move(**split) : std::move(*live);
    owner_buffers(r.live, sizes.bytes, r.records);
    if (auto ok = pin_owners(r.live, options.pinned, r.records); !ok) return unexpected(ValidateError::from(ok.error()));
    r.owners = r.records.size();
    scratch_buffers(options.scratch_bytes, r.records);  // record owners + k: the k-th node with scratch
    return {};
}

ONNX_RUNTIME_MEMORY_CORE expected<void, ValidateError> validate_slots(const DenseGraph& g, const ViewMap& views,
                                                                    const ActivationPlan& plan, SizeOf oracle,
                                                                    const PlanOptions& options) {
    auto live = dense_liveness(g, views, options);
    if (!live) return unexpected(ValidateError::from(live.error()));
    const auto has_slot = [&](ValueId v) { return plan.slot_of(v).has_value(); };
    if (auto ok = check_external(g, *live, options, has_slot); !ok) return ok;
    OwnerSizes sizes;
    size_owners_by(*live, oracle, sizes);
    const auto windows = view_windows(views, live->value_count());
    if (auto ok = check_windows(views, windows, *live, sizes, oracle); !ok) return ok;
    const auto split = split_dynamic(*live, sizes, options, plan.dynamic_values, has_slot);
    if (!split) return unexpected(split.error());
    if (*split) live = std::move(**split);
    if (auto ok = validate_assignments(*live, plan, sizes, options.scratch_bytes); !ok) return ok;
    return validate_dense_liveness(g, views, *live, options);
}

}  // namespace onnx_runtime_memory::detail
