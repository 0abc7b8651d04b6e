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

// Whether the plan places value v (a slot, an offset).
using Placed = FunctionRef<bool(ValueId)>;

// Steps 1 and 2 of validate: every owner has a known slot big enough, and no
// two owners of one slot are live together.
ONNX_RUNTIME_MEMORY_CORE expected<void, ValidateError> validate_assignments(const Liveness& live, const ActivationPlan& plan,
                                                                          const OwnerSizes& sizes,
                                                                          std::span<const std::size_t> scratch);

// External outputs (OutputPlacement::external): the executor allocates
// each graph output and every value sharing its bytes (its root's views and
// folds), so the plan must place none of them (ExternalPlaced), though the
// assignments of other non-owners are ignored (the original crate's rule).
ONNX_RUNTIME_MEMORY_CORE expected<void, ValidateError> check_external(const DenseGraph& g, const Liveness& live,
                                                                    const PlanOptions& options, Placed placed);

// The dynamic values (UnknownSizes::dynamic): the plan must list exactly the
// owners of unknown size, ascending (WrongDynamicValues), and place none of
// them nor any view of them (DynamicPlaced). Returns the liveness the rest
// is checked on: without them, or nullopt for `live` itself.
ONNX_RUNTIME_MEMORY_CORE expected<std::optional<Liveness>, ValidateError> split_dynamic(const Liveness& live,
                                                                                       const OwnerSizes& sizes,
                                                                                       const PlanOptions& options,
                                                                                       const std::vector<ValueId>& claimed,
                                                                                       Placed placed);

// What validate_arena and validate_arena_spaces check a plan's offsets
// against, recomputed from the graph: the liveness (without the dynamic
// owners the plan rightly leaves out) and its records, owners first (owner
// order, pinned as the options say), then each node's scratch. `placed(v)`:
// whether the plan places value v.
struct ArenaRecords {
    DenseGraph store;                   // the graph read, unless the caller's was a DenseGraph
    const DenseGraph* graph = nullptr;  // the graph the records come from (`store` or the caller's)
    Liveness live;
    std::vector<Buffer> records;
    std::size_t owners = 0;
    std::vector<std::size_t> windows;  // view_windows: empty when no view has an offset

    ArenaRecords() = default;
    ArenaRecords(const ArenaRecords&) = delete;  // `graph` may point into `store`: never copied or moved
    ArenaRecords& operator=(const ArenaRecords&) = delete;
};
ONNX_RUNTIME_MEMORY_CORE expected<void, ValidateError> make_arena_records(ArenaRecords& r, const ViewMap& views,
                                                                        SizeOf oracle, const PlanOptions& options,
                                                                        const std::vector<ValueId>& dynamic_values,
                                                                        Placed placed);
template <activation_graph G>
[[nodiscard]] expected<void, ValidateError> arena_records(ArenaRecords& r, const G& g, const ViewMap& views,
                                                          SizeOf oracle, const PlanOptions& options,
                                                          const std::vector<ValueId>& dynamic_values, Placed placed) {
    const auto read = read_graph(g, r.store);
    if (!read) return unexpected(ValidateError::from(read.error()));
    r.graph = *read;
    return make_arena_records(r, views, oracle, options, dynamic_values, placed);
}

// validate on a graph already read (see validate below).
ONNX_RUNTIME_MEMORY_CORE expected<void, ValidateError> validate_slots(const DenseGraph& g, const ViewMap& views,
                                                                    const ActivationPlan& plan, SizeOf oracle,
                                                                    const PlanOptions& options);

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
    detail::DenseGraph store;
    const auto read = detail::read_graph(g, store);
    if (!read) return unexpected(ValidateError::from(read.error()));
    const detail::DenseGraph& dense = **read;
    return detail::validate_slots(dense, views, plan, oracle, options);
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
    detail::ArenaRecords made;
    if (auto ok = detail::arena_records(made, g, views, oracle, options, plan.dynamic_values, has_offset); !ok) return ok;
    const Liveness& live = made.live;
    const std::vector<Buffer>& buffers = made.records;
    const std::size_t owners = made.owners;
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
    if (auto ok = detail::check_view_offsets(made.live, made.windows, offset_of, [](ValueId, ValueId) { return true; }); !ok) return ok;
    return detail::validate_dense_liveness(*made.graph, views, live, options);
}

// A first argument that is no graph: the error names the function it lacks.
template <class G, class... Rest>
    requires detail::not_a_graph<G, Liveness>
expected<void, ValidateError> validate_arena(const G&, Rest&&...) {
    static_assert(detail::explain_activation_graph<G>());
    return unexpected(ValidateError{});
}

}  // namespace onnx_runtime_memory

#if !defined(ONNX_RUNTIME_MEMORY_SEPARATE_COMPILATION)
#include "detail/slot_checks.hpp"  // the code (else the compiled core's: src.hpp)
#endif
