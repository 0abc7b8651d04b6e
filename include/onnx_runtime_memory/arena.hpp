// Arena planning for a graph: a byte offset for every owner (and view)
// inside one arena. The liveness and sizes become buffer records, the
// graph-free layer (offsets.hpp) places them, and the offsets map back to
// value ids; the best-fit slot plan laid out in one arena is a candidate too
// (ArenaStrategy::slots), so an arena plan is never worse than it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "detail/buffers.hpp"
#include "detail/checked.hpp"
#include "detail/config.hpp"
#include "detail/place.hpp"
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
ONNX_RUNTIME_MEMORY_CORE void place_views(const Liveness& live, std::vector<std::size_t>& offsets);

}  // namespace detail

// Lays a slot plan out in one arena: slot k at the sum of the (aligned)
// capacities of slots 0 .. k-1 (an empty slot at 0); each owner at its
// slot's offset, each view at its root's; the arena ends where the last
// non-empty slot's bytes end. What the executor does with a slot plan and
// one allocation.
ONNX_RUNTIME_MEMORY_CORE expected<ArenaPlan, PlanError> arena_from_slots(const Liveness& live, const ActivationPlan& plan,
                                                                        std::size_t alignment = 64);

namespace detail {

// An error about buffer records (owners first, in owner order) named by the
// owners' value ids instead of record indices.
[[nodiscard]] inline PlanError name_owners(PlanError e, const Liveness& live) {
    const auto owner = [&](std::uint64_t i) { return i < live.owners.size() ? live.owners[i] : no_value; };
    e.value = owner(e.value);
    if (e.other != no_value) e.other = owner(e.other);
    return e;
}

// The working memory of placing one request (place_sized): ArenaPlanner
// keeps it, so that planning again allocates only where a request needs
// more than any before it.
struct ArenaWork {
    std::vector<Buffer> buffers;  // the owners' records, then each node's scratch
    Buffers columns;
    std::vector<std::size_t> born, dying, slot_offset, scratch_record_offset;
    PlaceSpaceHandle space;
    Placement placed;
    Schedule schedule;  // when the caller keeps none
    SlotPool pool;
    ActivationPlan slots;
};

// Places one sized request into `out`: the owners of `live` at `bytes` (by
// value id), each node's scratch, the pins; the best of the strategies
// (offsets.hpp) and, without pins, of the best-fit slot plan laid out
// (arena_from_slots). Views at their roots' offsets; out.dynamic_values is
// the caller's. `schedule`: live's (make_schedule), or null to make one when
// the slot plan is tried. `release`: free each stage's memory once done
// (place_sized_once), else keep it. Returns the lower bound's bytes; errors
// name the owners.
ONNX_RUNTIME_MEMORY_CORE expected<std::size_t, PlanError> place_sized(
    const Liveness& live, const Schedule* schedule, const std::vector<std::size_t>& bytes, std::size_t naive,
    std::span<const std::size_t> scratch, std::span<const PinnedOffset> pins, const ArenaOptions& options, bool release,
    ArenaWork& work, ArenaPlan& out);

// place_sized for a one-off plan, in working memory of its own, each
// stage's freed once done (a plan's peak is what it pays in fresh pages).
ONNX_RUNTIME_MEMORY_CORE expected<void, PlanError> place_sized_once(const Liveness& live, const std::vector<std::size_t>& bytes,
                                                                   std::size_t naive, std::span<const std::size_t> scratch,
                                                                   std::span<const PinnedOffset> pins,
                                                                   const ArenaOptions& options, ArenaPlan& out);

// plan_arena from a liveness known to be well formed, under the policies,
// scratch and pins of `plan`.
template <class Oracle>
[[nodiscard]] expected<ArenaStatus, PlanError> plan_owner_offsets(const Liveness& all, Oracle& oracle,
                                                                  const ArenaOptions& options,
                                                                  const PlanOptions& plan = {}) {
    auto request = size_for_plan(all, oracle, plan.unknown_sizes, plan.scratch_bytes);
    if (!request) return unexpected(request.error());
    auto& sizes = request->sizes;
    if (request->deferred) return ArenaStatus::deferred(std::move(sizes.unknown));
    ArenaPlan result;
    if (auto ok = place_sized_once(request->planned(all), sizes.bytes, request->naive_bytes, plan.scratch_bytes,
                                   plan.pinned, options, result);
        !ok)
        return unexpected(ok.error());
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
        auto bound = detail::place_sized(planned(), &planned_schedule(), sizes_.bytes, **sized, scratch_, pinned_, options_,
                                         false, work_, out);
        if (!bound) return unexpected(bound.error());
        bound_ = *bound;
        report_dynamic(out.dynamic_values);
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
    ArenaOptions options_;
    std::vector<PinnedOffset> pinned_;
    detail::ArenaWork work_;
    std::size_t bound_ = 0;
};

}  // namespace onnx_runtime_memory

#if !defined(ONNX_RUNTIME_MEMORY_SEPARATE_COMPILATION)
#include "detail/sized_arena.hpp"  // the code (else the compiled core's: src.hpp)
#endif
