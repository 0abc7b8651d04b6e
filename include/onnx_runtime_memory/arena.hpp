// Arena planning for a graph: a byte offset for every owner (and view)
// inside one arena. The liveness and sizes become buffer records, the
// graph-free layer (offsets.hpp) places them, and the offsets map back to
// value ids; the best-fit slot plan laid out in one arena is a candidate too
// (ArenaStrategy::slots), so an arena plan is never worse than it.
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "detail/checked.hpp"
#include "errors.hpp"
#include "expected.hpp"
#include "liveness.hpp"
#include "offsets.hpp"
#include "plan.hpp"
#include "plan_types.hpp"
#include "sizes.hpp"
#include "sizing.hpp"
#include "view_map.hpp"

namespace onnx_runtime_memory {

namespace detail {

// A view lives at its root owner's offset plus its window. (Sizing checked
// that the window lies inside the root; a liveness handed in by the caller
// was not: a sum past SIZE_MAX leaves the view unplaced, which validate
// reports.)
inline void place_views(const Liveness& live, std::vector<std::size_t>& offsets) {
    for (std::size_t v = 0; v < live.value_count(); ++v) {
        const ValueId r = live.roots[v];
        std::size_t at = 0;
        if (r != v && live.is_owner(r))
            offsets[v] = offsets[r] == no_offset || add_overflows(offsets[r], live.window(static_cast<ValueId>(v)), at)
                             ? no_offset
                             : at;
    }
}

// Slot k at the sum of the aligned capacities of slots 0 .. k-1, an empty
// slot at 0 (its owners hold no bytes, and every offset stays inside the
// arena); returns where the last non-empty slot's bytes end, or nullopt if
// that overflows.
[[nodiscard]] inline std::optional<std::size_t> lay_out_slots(const std::vector<SlotInfo>& slots, std::size_t alignment,
                                                              std::vector<std::size_t>& slot_offset) {
    slot_offset.resize(slots.size());
    std::size_t top = 0, end = 0;
    for (std::size_t s = 0; s < slots.size(); ++s) {
        const std::size_t capacity = slots[s].capacity;
        slot_offset[s] = capacity > 0 ? top : 0;
        std::size_t c = 0;
        if (align_up_overflows(capacity, alignment, c) || add_overflows(top, c, top)) return std::nullopt;
        if (capacity > 0) end = slot_offset[s] + capacity;
    }
    return end;
}

}  // namespace detail

// Lays a slot plan out in one arena: slot k at the sum of the (aligned)
// capacities of slots 0 .. k-1 (an empty slot at 0); each owner at its
// slot's offset, each view at its root's; the arena ends where the last
// non-empty slot's bytes end. What the executor does with a slot plan and
// one allocation.
[[nodiscard]] inline expected<ArenaPlan, PlanError> arena_from_slots(const Liveness& live, const ActivationPlan& plan,
                                                                     std::size_t alignment = 64) {
    if (auto ok = check_liveness(live); !ok) return unexpected(ok.error());
    alignment = detail::alignment_or_one(alignment);
    std::vector<std::size_t> slot_offset;
    const auto end = detail::lay_out_slots(plan.slots, alignment, slot_offset);
    if (!end) return unexpected(make_plan_error(PlanError::Kind::size_overflow));
    ArenaPlan arena;
    arena.arena_bytes = *end;
    arena.alignment = alignment;
    arena.strategy = ArenaStrategy::slots;
    arena.offsets.assign(live.value_count(), no_offset);
    for (ValueId v : live.owners)
        if (const auto s = plan.slot_of(v); s && s->value < slot_offset.size()) arena.offsets[v] = slot_offset[s->value];
    detail::place_views(live, arena.offsets);
    arena.scratch_offsets.assign(plan.scratch.size(), no_offset);
    for (std::size_t n = 0; n < plan.scratch.size(); ++n)
        if (!plan.scratch[n].is_none() && plan.scratch[n].value < slot_offset.size())
            arena.scratch_offsets[n] = slot_offset[plan.scratch[n].value];
    return arena;
}

namespace detail {

// An error about buffer records (owners first, in owner order) named by the
// owners' value ids instead of record indices.
[[nodiscard]] inline PlanError name_owners(PlanError e, const Liveness& live) {
    const auto owner = [&](std::uint64_t i) { return i < live.owners.size() ? live.owners[i] : no_value; };
    e.value = owner(e.value);
    if (e.other != no_value) e.other = owner(e.other);
    return e;
}

// plan_arena from a liveness known to be well formed, under the policies,
// scratch and pins of `plan`.
template <class Oracle>
[[nodiscard]] expected<ArenaStatus, PlanError> plan_owner_offsets(const Liveness& all, Oracle& oracle,
                                                                  const ArenaOptions& options,
                                                                  const PlanOptions& plan = {}) {
    const auto& scratch = plan.scratch_bytes;
    auto request = size_for_plan(all, oracle, plan.unknown_sizes, scratch);
    if (!request) return unexpected(request.error());
    auto& sizes = request->sizes;
    if (request->deferred) return ArenaStatus::deferred(std::move(sizes.unknown));
    const Liveness& live = request->planned(all);  // with dynamic values: the rest is planned
    const std::size_t naive = request->naive_bytes;
    std::vector<Buffer> buffers;
    owner_buffers(live, sizes.bytes, buffers);
    if (auto ok = pin_owners(live, plan.pinned, buffers); !ok) return unexpected(ok.error());
    scratch_buffers(scratch, buffers);  // after the owners: buffer owners.size() + k is the k-th scratch
    OffsetPlan placed;
    {
        // Each in memory only while needed: the records until the columns
        // hold them, the columns until placed (a plan's peak is what it
        // pays in fresh pages).
        const std::size_t alignment = alignment_or_one(options.alignment);
        Buffers columns;
        if (auto ok = checked_columns(buffers, alignment, columns); !ok) return unexpected(name_owners(ok.error(), live));
        std::vector<Buffer>().swap(buffers);
        placed = place_columns(columns, alignment, options);
    }
    if (placed.arena_bytes > placed.lower_bound_bytes && plan.pinned.empty()) {
        // The best-fit slot plan, laid out, is a candidate too (it knows no
        // pins). Laid out, it ends at or above the sum of its capacities: the
        // walk gives up once that reaches the arena (it could not be smaller).
        detail::Schedule schedule;
        detail::make_schedule(live, schedule);
        detail::SlotPool pool;
        ActivationPlan slots;
        if (detail::assign_slots(live, schedule, sizes.bytes, naive, pool, slots, false, scratch, placed.arena_bytes)) {
            auto from_slots = arena_from_slots(live, slots, placed.alignment);  // (checks the liveness again: O(V), rare)
            if (!from_slots) return unexpected(from_slots.error());
            if (from_slots->arena_bytes < placed.arena_bytes) {
                from_slots->dynamic_values = std::move(sizes.unknown);
                from_slots->proven_bound_bytes = placed.proven_bound_bytes;
                return ArenaStatus::complete(std::move(*from_slots));
            }
        }
    }
    ArenaPlan result;
    result.arena_bytes = placed.arena_bytes;
    result.proven_bound_bytes = placed.proven_bound_bytes;
    result.alignment = placed.alignment;
    result.strategy = placed.strategy;
    result.offsets.assign(live.value_count(), no_offset);
    for (std::size_t i = 0; i < live.owners.size(); ++i) result.offsets[live.owners[i]] = placed.offsets[i];
    place_views(live, result.offsets);
    result.scratch_offsets.assign(scratch.size(), no_offset);
    for (std::size_t n = 0, k = live.owners.size(); n < scratch.size(); ++n)
        if (scratch[n] > 0) result.scratch_offsets[n] = placed.offsets[k++];
    result.dynamic_values = std::move(sizes.unknown);
    return ArenaStatus::complete(std::move(result));
}

}  // namespace detail

// An arena plan from a liveness: the oracle is asked once per owner, in
// owner order; Deferred when some size is unknown. A liveness of the wrong
// shape is PlanError::bad_liveness (check_liveness).
template <size_oracle Oracle>
[[nodiscard]] expected<ArenaStatus, PlanError> plan_arena(const Liveness& live, Oracle&& oracle,
                                                          const ArenaOptions& options = {}) {
    if (auto ok = check_liveness(live); !ok) return unexpected(ok.error());
    return detail::plan_owner_offsets(live, oracle, options);
}

// Computes the liveness, then plans the arena under plan_options' policies,
// scratch and pins. O(n log n) for the sweep, the other strategies within
// options.work_per_owner steps per owner, plus the searches asked for.
template <activation_graph G, size_oracle Oracle>
[[nodiscard]] expected<ArenaStatus, PlanError> plan_arena(const G& g, const ViewMap& views, Oracle&& oracle,
                                                          const PlanOptions& plan_options = {},
                                                          const ArenaOptions& options = {}) {
    auto live = compute_liveness(g, views, plan_options);
    if (!live) return unexpected(live.error());
    return detail::plan_owner_offsets(*live, oracle, options, plan_options);
}

// A first argument that is no graph: the error names the function it lacks.
template <class G, class... Rest>
    requires detail::not_a_graph<G, Liveness>
expected<ArenaStatus, PlanError> plan_arena(const G&, Rest&&...) {
    static_assert(detail::explain_activation_graph<G>());
    return unexpected(PlanError{});
}

// Plans one graph's arena again and again as sizes change (dynamic shapes:
// new offsets every request). The liveness is computed once; each plan()
// sizes the owners and places them, reusing every buffer and every
// strategy's working memory: planning allocates only where a request needs
// more than any before it (a larger problem, or a strategy the work budget
// had not run yet). Every plan equals plan_arena's with the same
// liveness, oracle, options, scratch, pins and policy for unknown sizes
// (UnknownSizes::dynamic: the rest is planned, the plan's dynamic_values list
// them). The scratch is the options' or, per request, the caller's.
class ArenaPlanner : public detail::KeptPlanning {
public:
    enum class Outcome : std::uint8_t { complete, deferred };

    // A liveness of the wrong shape (check_liveness) is kept out: every
    // plan() then returns its PlanError::bad_liveness.
    explicit ArenaPlanner(Liveness live, const ArenaOptions& options = {}, std::vector<std::size_t> scratch = {},
                          std::vector<PinnedOffset> pinned = {}, UnknownSizes unknown = UnknownSizes::defer)
        : KeptPlanning(std::move(live), std::move(scratch), unknown), options_(options), pinned_(std::move(pinned)) {}
    template <activation_graph G>
    [[nodiscard]] static expected<ArenaPlanner, PlanError> create(const G& g, const ViewMap& views,
                                                                  const PlanOptions& plan_options = {},
                                                                  const ArenaOptions& options = {}) {
        auto live = compute_liveness(g, views, plan_options);
        if (!live) return unexpected(live.error());
        return ArenaPlanner(std::move(*live), options, plan_options.scratch_bytes, plan_options.pinned,
                            plan_options.unknown_sizes);
    }

    // Plans with this request's sizes into `out`, reusing its memory. On
    // deferred, unknown_sizes() lists the owners the oracle did not know and
    // `out` is left as it was.
    template <size_oracle Oracle>
    [[nodiscard]] expected<Outcome, PlanError> plan(Oracle&& oracle, ArenaPlan& out) {
        auto sized = size_request(oracle);
        if (!sized) return unexpected(sized.error());
        if (!*sized) return Outcome::deferred;
        const std::size_t naive = **sized;
        const Liveness& live = planned();
        const std::size_t alignment = detail::alignment_or_one(options_.alignment);
        owner_buffers(live, sizes_.bytes, buffers_);
        if (auto ok = pin_owners(live, pinned_, buffers_); !ok) return unexpected(ok.error());
        scratch_buffers(scratch_, buffers_);
        if (auto ok = detail::make_buffers(buffers_, alignment, columns_); !ok)
            return unexpected(detail::name_owners(ok.error(), live));
        const detail::ArenaBound bound = detail::arena_bound(columns_, born_, dying_);
        bound_ = bound.bytes;
        detail::place_buffers(columns_, options_, bound, *space_, placed_);
        const std::size_t placed_end = detail::settle_arena(columns_, placed_.offset);
        out.offsets.assign(live.value_count(), no_offset);
        out.scratch_offsets.assign(scratch_.size(), no_offset);
        report_dynamic(out.dynamic_values);
        out.alignment = alignment;
        out.proven_bound_bytes = detail::proven_bytes(columns_, bound, placed_.proven);
        if (placed_end > bound_ && pinned_.empty() && slots_laid_out(naive, alignment, placed_end) < placed_end) {
            out.arena_bytes = slot_end_;  // the best-fit slot plan, laid out
            out.strategy = ArenaStrategy::slots;
            for (ValueId v : live.owners) out.offsets[v] = slot_offset_[slots_.assignments[v].value];
            for (std::size_t n = 0; n < scratch_.size(); ++n)
                if (!slots_.scratch[n].is_none()) out.scratch_offsets[n] = slot_offset_[slots_.scratch[n].value];
        } else {
            out.arena_bytes = placed_end;
            out.strategy = placed_.strategy;
            const std::size_t owners = live.owners.size();
            for (std::size_t i = 0; i < columns_.count(); ++i) {
                const std::size_t r = columns_.value[i];  // the record: an owner, or a node's scratch after them
                if (r < owners) out.offsets[live.owners[r]] = placed_.offset[i];
                else out.scratch_offsets[buffers_[r].first] = placed_.offset[i];
            }
        }
        detail::place_views(live, out.offsets);
        return Outcome::complete;
    }
    // The same with this request's scratch (bytes by node position, as
    // PlanOptions::scratch_bytes), kept for the next requests too.
    template <size_oracle Oracle>
    [[nodiscard]] expected<Outcome, PlanError> plan(Oracle&& oracle, std::span<const std::size_t> scratch, ArenaPlan& out) {
        scratch_.assign(scratch.begin(), scratch.end());
        return plan(oracle, out);
    }

    // The last complete plan's lower bound (plan_offsets' lower_bound_bytes).
    [[nodiscard]] std::size_t lower_bound_bytes() const noexcept { return bound_; }

private:
    // Lays out the best-fit slot plan as arena_from_slots does, into kept
    // memory; returns its arena size (SIZE_MAX if it overflows, or once its
    // capacities reach `beat`: it would not be smaller).
    std::size_t slots_laid_out(std::size_t naive, std::size_t alignment, std::size_t beat) {
        if (!detail::assign_slots(planned(), planned_schedule(), sizes_.bytes, naive, pool_, slots_, false, scratch_, beat))
            return detail::size_max;
        slot_end_ = detail::lay_out_slots(slots_.slots, alignment, slot_offset_).value_or(detail::size_max);
        return slot_end_;
    }

    ArenaOptions options_;
    std::vector<PinnedOffset> pinned_;
    std::vector<Buffer> buffers_;
    detail::Buffers columns_;
    std::vector<std::size_t> born_, dying_, slot_offset_;
    detail::PlaceSpaceHandle space_;
    detail::Placement placed_;
    detail::SlotPool pool_;
    ActivationPlan slots_;
    std::size_t bound_ = 0, slot_end_ = 0;
};

}  // namespace onnx_runtime_memory
