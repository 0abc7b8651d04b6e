// validate: check a plan against the graph, independently of how it was
// made. Reports the first violation, always the same one.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <numeric>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "errors.hpp"
#include "detail/checked.hpp"
#include "expected.hpp"
#include "graph.hpp"
#include "liveness.hpp"
#include "plan_types.hpp"
#include "sizes.hpp"
#include "sizing.hpp"
#include "validate_liveness.hpp"
#include "validate_offsets.hpp"
#include "validate_windows.hpp"
#include "view_map.hpp"
#include "detail/sort.hpp"

namespace onnx_runtime_memory {

namespace detail {

// Steps 1 and 2 of validate: every owner has a known slot big enough, and no
// two owners of one slot are live together.
[[nodiscard]] inline expected<void, ValidateError> validate_assignments(const Liveness& live,
                                                                       const ActivationPlan& plan,
                                                                       const OwnerSizes& sizes,
                                                                       std::span<const std::size_t> scratch = {}) {
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
    std::size_t naive_total = sizes.overflow_at == no_value ? sizes.total : detail::size_max;
    for (std::size_t bytes : scratch) naive_total = detail::saturating_add(naive_total, bytes);
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
template <activation_graph G, class Placed>
[[nodiscard]] expected<void, ValidateError> check_external(const G& g, const Liveness& live, const PlanOptions& options,
                                                           Placed&& placed) {
    if (options.outputs != OutputPlacement::external) return {};
    const std::size_t V = live.value_count();
    std::vector<std::uint8_t> external(V, 0);  // by root
    for (auto x : graph_traits<G>::graph_outputs(g))
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
template <class Placed>
[[nodiscard]] expected<std::optional<Liveness>, ValidateError> split_dynamic(const Liveness& live,
                                                                            const OwnerSizes& sizes,
                                                                            const PlanOptions& options,
                                                                            const std::vector<ValueId>& claimed,
                                                                            Placed&& placed) {
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

// What validate_arena and validate_arena_spaces check a plan's offsets
// against, recomputed from the graph: the liveness (without the dynamic
// owners the plan rightly leaves out) and its records, owners first (owner
// order, pinned as the options say), then each node's scratch. `placed(v)`:
// whether the plan places value v.
struct ArenaRecords {
    Liveness live;
    std::vector<Buffer> records;
    std::size_t owners = 0;
    std::vector<std::size_t> windows;  // view_windows: empty when no view has an offset
};
template <activation_graph G, class Oracle, class Placed>
[[nodiscard]] expected<ArenaRecords, ValidateError> arena_records(const G& g, const ViewMap& views, Oracle& oracle,
                                                                  const PlanOptions& options,
                                                                  const std::vector<ValueId>& dynamic_values,
                                                                  const Placed& placed) {
    auto live = compute_liveness(g, views, options);
    if (!live) return unexpected(ValidateError::from(live.error()));
    if (auto ok = check_external(g, *live, options, placed); !ok) return unexpected(ok.error());
    OwnerSizes sizes;
    size_owners(*live, oracle, sizes);  // unknown sizes count as 0 bytes: nothing to overlap
    ArenaRecords r;
    r.windows = view_windows(views, live->value_count());
    if (auto ok = check_windows(views, r.windows, *live, sizes, oracle); !ok) return unexpected(ok.error());
    const auto split = split_dynamic(*live, sizes, options, dynamic_values, placed);
    if (!split) return unexpected(split.error());
    r.live = *split ? std::move(**split) : std::move(*live);
    owner_buffers(r.live, sizes.bytes, r.records);
    if (auto ok = pin_owners(r.live, options.pinned, r.records); !ok) return unexpected(ValidateError::from(ok.error()));
    r.owners = r.records.size();
    scratch_buffers(options.scratch_bytes, r.records);  // record owners + k: the k-th node with scratch
    return r;
}

}  // namespace detail

// Validate a plan against the graph, recomputing liveness with the same view
// map and options, using `oracle` to check slot capacities (an unknown size
// skips that check). Nothing the plan says about itself is believed. In
// order: no external output has a slot (ExternalPlaced); its slots are
// numbered 0, 1, 2, ... (BadSlotTable) and peak_bytes is their total
// (WrongPeakBytes); each owner (in owner order) has a slot
// (MissingAssignment) that the plan has (UnknownSlot) and that is big enough
// (UndersizedSlot); naive_bytes is the owners' total when every size is
// known (WrongNaiveBytes); no two owners sharing a slot overlap
// (SlotConflict); no read falls after its root owner retires
// (ViewOutlivesSource), no view is produced outside it (ViewOutsideSource);
// with views at an offset, each lies inside its root (ViewOutsideRoot, after
// the graph's checks, by validate's own sum of the view map's offsets).
// An invalid graph or view map is reported first, since nothing can be
// checked without its liveness. Other assignments of non-owners are ignored.
template <activation_graph G, size_oracle Oracle>
[[nodiscard]] expected<void, ValidateError> validate(const G& g, const ViewMap& views, const ActivationPlan& plan,
                                                     Oracle&& oracle, const PlanOptions& options = {}) {
    auto live = compute_liveness(g, views, options);
    if (!live) return unexpected(ValidateError::from(live.error()));
    const auto has_slot = [&](ValueId v) { return plan.slot_of(v).has_value(); };
    if (auto ok = detail::check_external(g, *live, options, has_slot); !ok) return ok;
    OwnerSizes sizes;
    size_owners(*live, oracle, sizes);
    const auto windows = detail::view_windows(views, live->value_count());
    if (auto ok = detail::check_windows(views, windows, *live, sizes, oracle); !ok) return ok;
    const auto split = detail::split_dynamic(*live, sizes, options, plan.dynamic_values, has_slot);
    if (!split) return unexpected(split.error());
    if (*split) live = std::move(**split);
    if (auto ok = detail::validate_assignments(*live, plan, sizes, options.scratch_bytes); !ok) return ok;
    return validate_liveness(g, views, *live, options);
}

// A first argument that is no graph: the error names the function it lacks.
template <class G, class... Rest>
    requires detail::not_a_graph<G, Liveness>
expected<void, ValidateError> validate(const G&, Rest&&...) {
    static_assert(detail::explain_activation_graph<G>());
    return unexpected(ValidateError{});
}

// Convenience: validate with sizes from fully-static shapes.
template <shaped_graph G>
[[nodiscard]] expected<void, ValidateError> validate_static(const G& g, const ViewMap& views,
                                                            const ActivationPlan& plan,
                                                            const PlanOptions& options = {}) {
    return validate(g, views, plan, static_size_oracle(g), options);
}

// Validates an arena plan against the graph, recomputing liveness. The
// caller states the `alignment` its executor needs (0 counts as 1): the
// plan's own alignment field is not believed, nor anything else it says
// about itself. No external output is placed (ExternalPlaced); each owner
// (owner order) has an offset (MissingOffset), its pin if options.pinned
// has one (PinMoved), a multiple of `alignment` (MisalignedOffset), ending
// inside arena_bytes (OutsideArena, an empty owner too: see Buffer); no
// two owners live together overlap in bytes
// (OffsetOverlap), checked by validate_offsets on the owners as buffers;
// each view lies inside its root (ViewOutsideRoot) and sits at its root's
// offset plus its window (ViewOffsetMismatch); then
// validate_liveness. Unknown sizes skip the checks that need them.
// O(n log n).
template <activation_graph G, size_oracle Oracle>
[[nodiscard]] expected<void, ValidateError> validate_arena(const G& g, const ViewMap& views, const ArenaPlan& plan,
                                                           Oracle&& oracle, std::size_t alignment,
                                                           const PlanOptions& options = {}) {
    const auto has_offset = [&](ValueId v) { return plan.offset_of(v).has_value(); };
    auto made = detail::arena_records(g, views, oracle, options, plan.dynamic_values, has_offset);
    if (!made) return unexpected(made.error());
    const Liveness& live = made->live;
    const std::vector<Buffer>& buffers = made->records;
    const std::size_t owners = made->owners;
    const auto& scratch = options.scratch_bytes;
    OffsetPlan offsets;
    offsets.arena_bytes = plan.arena_bytes;
    offsets.offsets.resize(buffers.size());
    for (std::size_t i = 0; i < owners; ++i) offsets.offsets[i] = plan.offset_of(live.owners[i]).value_or(no_offset);
    for (std::size_t n = 0, k = owners; n < scratch.size(); ++n)
        if (scratch[n] > 0) offsets.offsets[k++] = n < plan.scratch_offsets.size() ? plan.scratch_offsets[n] : no_offset;
    if (auto ok = validate_offsets(buffers, offsets, alignment); !ok) {
        ValidateError err = ok.error();  // buffer indices back to owners (the pair in id order) or scratch
        const auto is_scratch = [&](ValueId i) { return i != no_value && i >= owners; };
        if (is_scratch(err.value) || is_scratch(err.other)) {
            const ValueId s = is_scratch(err.other) ? err.other : err.value;
            const ValueId o = is_scratch(err.other) ? err.value : err.other;
            ValidateError e;
            e.kind = ValidateError::Kind::scratch_conflict;
            e.node = buffers[s].first;
            e.size = buffers[s].size;
            e.capacity = buffers[s].size;
            e.value = o == no_value || is_scratch(o) ? no_value : live.owners[o];
            return unexpected(e);
        }
        const ValueId a = live.owners[err.value], b = err.other == no_value ? no_value : live.owners[err.other];
        err.value = err.other == no_value ? a : std::min(a, b);
        if (err.other != no_value) err.other = std::max(a, b);
        return unexpected(err);
    }
    const auto offset_of = [&](ValueId v) { return plan.offset_of(v).value_or(no_offset); };
    if (auto ok = detail::check_view_offsets(made->live, made->windows, offset_of, [](ValueId, ValueId) { return true; }); !ok) return ok;
    return validate_liveness(g, views, live, options);
}

// A first argument that is no graph: the error names the function it lacks.
template <class G, class... Rest>
    requires detail::not_a_graph<G, Liveness>
expected<void, ValidateError> validate_arena(const G&, Rest&&...) {
    static_assert(detail::explain_activation_graph<G>());
    return unexpected(ValidateError{});
}

}  // namespace onnx_runtime_memory
