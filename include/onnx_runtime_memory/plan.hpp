// Slot planning: which slot backs each owner, and the arena it needs. The
// default is the original crate's greedy best-fit walk in execution order;
// the plan types live in plan_types.hpp.
#pragma once

#include <algorithm>
#include <compare>
#include <iterator>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "detail/checked.hpp"
#include "detail/config.hpp"
#include "detail/function_ref.hpp"
#include "detail/kept_planning.hpp"
#include "detail/lower_bounds.hpp"
#include "detail/slot_pool.hpp"
#include "errors.hpp"
#include "expected.hpp"
#include "graph.hpp"
#include "liveness.hpp"
#include "plan_types.hpp"
#include "sizes.hpp"
#include "sizing.hpp"
#include "view_map.hpp"
#include "detail/sort.hpp"

namespace onnx_runtime_memory {

namespace detail {

// plan_activations from a liveness known to be well formed, with one of the
// walks in execution order (best fit, or in-order growth) ...
ONNX_RUNTIME_MEMORY_CORE expected<PlanStatus, PlanError> plan_slot_walk(const Liveness& live, SizeOf oracle,
                                                                        UnknownSizes policy,
                                                                        std::span<const std::size_t> scratch,
                                                                        bool growth);
// ... or with an offline strategy (assign_slots_offline), `timed`: the
// caller's time stamps where the liveness holds ranks (plan_slots).
ONNX_RUNTIME_MEMORY_CORE expected<PlanStatus, PlanError> plan_slots_offline(SlotStrategy strategy, const Liveness& live,
                                                                            SizeOf oracle, UnknownSizes policy,
                                                                            std::span<const std::size_t> scratch,
                                                                            std::span<const Interval> timed);

// With UnknownSizes::dynamic, owners of unknown size leave the liveness and
// the rest is planned. Each strategy is a function of its own so that a
// caller of one (header-only) compiles only it.
[[nodiscard]] inline expected<PlanStatus, PlanError> plan_slots_by(SlotStrategy strategy, const Liveness& live,
                                                                   SizeOf oracle, UnknownSizes policy,
                                                                   std::span<const std::size_t> scratch,
                                                                   std::span<const Interval> timed = {}) {
    switch (strategy) {
        case SlotStrategy::in_order_growth: return plan_slot_walk(live, oracle, policy, scratch, true);
        case SlotStrategy::greedy_by_size:
        case SlotStrategy::greedy_by_distance:
        case SlotStrategy::least: return plan_slots_offline(strategy, live, oracle, policy, scratch, timed);
        case SlotStrategy::best_fit: break;
    }
    return plan_slot_walk(live, oracle, policy, scratch, false);
}

}  // namespace detail

// Plan from a liveness already computed, with the best-fit walk or
// another SlotStrategy. The oracle is asked exactly once per owner, in owner
// order. A liveness of the wrong shape is PlanError::bad_liveness
// (check_liveness). (To plan the same graph many times with new sizes,
// ActivationPlanner keeps its working memory between plans.)
template <size_oracle Oracle>
[[nodiscard]] expected<PlanStatus, PlanError> plan_activations(const Liveness& live, Oracle&& oracle,
                                                               SlotStrategy strategy = SlotStrategy::best_fit) {
    if (auto ok = check_liveness(live); !ok) return unexpected(ok.error());
    return detail::plan_slots_by(strategy, live, oracle, UnknownSizes::defer, {});
}

// Slots without a graph: buffer record i (size, first, last) is owner i,
// and the slot planner walks the records as it walks a graph's owners (by
// first, then index); pins are ignored (slots have no offsets). A malformed
// record is PlanError::bad_buffer naming it. O(n log n) for best fit,
// whatever the time stamps: sparse ones are ranked first, which gives the
// same plan (greedy by distance still measures its gaps on the caller's).
// (A template only so that a translation unit that never calls it does not
// compile the slot planner for it.)
template <int = 0>
[[nodiscard]] expected<ActivationPlan, PlanError> plan_slots(std::span<const Buffer> records,
                                                             SlotStrategy strategy = SlotStrategy::best_fit) {
    if (auto ok = detail::check_buffers(records); !ok) return unexpected(ok.error());
    std::vector<Buffer> ranked;
    const auto buffers = detail::dense_times(records, ranked);
    Liveness live;
    const std::size_t n = buffers.size();
    live.intervals.resize(n);
    live.roots.resize(n);
    live.owners.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
        live.intervals[i] = Interval{buffers[i].first, buffers[i].last};
        live.roots[i] = static_cast<ValueId>(i);
        live.owners[i] = static_cast<ValueId>(i);
        live.last_position = std::max(live.last_position, buffers[i].last);
    }
    detail::sort_by(live.owners, [&](ValueId v) { return buffers[v].first; });
    live.allocation_order = live.owners;
    std::vector<Interval> timed;  // the caller's times, where the liveness holds ranks
    if (!ranked.empty())
        for (const Buffer& r : records) timed.push_back(Interval{r.first, r.last});
    const auto oracle = [&](ValueId v) { return std::optional<std::size_t>(buffers[v].size); };
    auto status = detail::plan_slots_by(strategy, live, oracle, UnknownSizes::defer, {}, timed);
    if (!status) return unexpected(status.error());
    return std::move(*status).plan();
}

// Compute a liveness-based activation plan with slot reuse. O((V + E) log V).
template <activation_graph G, size_oracle Oracle>
[[nodiscard]] expected<PlanStatus, PlanError> plan_activations(const G& g, const ViewMap& views, Oracle&& oracle,
                                                               const PlanOptions& options = {}) {
    auto live = compute_liveness(g, views, options);
    if (!live) return unexpected(live.error());
    return detail::plan_slot_walk(*live, oracle, options.unknown_sizes, options.scratch_bytes, false);
}

// The same with another SlotStrategy, under every policy of `options`
// (unknown sizes, scratch: each strategy plans a node's scratch with the
// owners live at that node). SlotStrategy::best_fit gives the plan above.
template <activation_graph G, size_oracle Oracle>
[[nodiscard]] expected<PlanStatus, PlanError> plan_activations(const G& g, const ViewMap& views, Oracle&& oracle,
                                                               const PlanOptions& options, SlotStrategy strategy) {
    auto live = compute_liveness(g, views, options);
    if (!live) return unexpected(live.error());
    return detail::plan_slots_by(strategy, *live, oracle, options.unknown_sizes, options.scratch_bytes);
}

// A first argument that is no graph: the error names the function it lacks.
template <class G, class... Rest>
    requires detail::not_a_graph<G, Liveness>
expected<PlanStatus, PlanError> plan_activations(const G&, Rest&&...) {
    static_assert(detail::explain_activation_graph<G>());
    return unexpected(PlanError{});
}

// Convenience: plan from fully-static shapes (Deferred if any is symbolic).
template <shaped_graph G>
[[nodiscard]] expected<PlanStatus, PlanError> plan_activations_static(const G& g, const ViewMap& views,
                                                                      const PlanOptions& options = {}) {
    return plan_activations(g, views, static_size_oracle(g), options);
}

// The arena size with every symbolic dim at its bound, or nullopt ("none")
// when some size is still unknown: never 0 for unknown.
template <shaped_graph G>
[[nodiscard]] expected<std::optional<std::size_t>, PlanError> peak_activation_bytes_at_bounds(
    const G& g, const ViewMap& views, const SymbolBounds& bounds, const PlanOptions& options = {}) {
    auto status = plan_activations(g, views, bounded_size_oracle(g, bounds), options);
    if (!status) return unexpected(status.error());
    if (status->is_deferred()) return std::optional<std::size_t>{};
    return std::optional<std::size_t>{status->plan().peak_bytes};
}

// Plans one graph again and again as sizes change (dynamic shapes: a new
// plan every run). Liveness does not depend on sizes, so it is computed
// once, with the retire schedule; each plan() then only sizes the owners and
// walks them, reusing every buffer: after the first plan of the largest
// slot count, planning allocates nothing. It plans the scratch of the
// options it was created with, or the request's; unknown sizes are handled
// as the options' UnknownSizes say (dynamic: the rest is planned, the plan's
// dynamic_values list them), so every plan equals plan_activations'.
class ActivationPlanner : public detail::KeptPlanning {
public:
    enum class Outcome : std::uint8_t { complete, deferred };

    // A liveness of the wrong shape (check_liveness) is kept out: every
    // plan() then returns its PlanError::bad_liveness.
    explicit ActivationPlanner(Liveness live, std::vector<std::size_t> scratch = {},
                               UnknownSizes unknown = UnknownSizes::defer)
        : KeptPlanning(std::move(live), std::move(scratch), unknown) {}
    template <activation_graph G>
    [[nodiscard]] static expected<ActivationPlanner, PlanError> create(const G& g, const ViewMap& views,
                                                                       const PlanOptions& options = {}) {
        auto live = compute_liveness(g, views, options);
        if (!live) return unexpected(live.error());
        return ActivationPlanner(std::move(*live), options.scratch_bytes, options.unknown_sizes);
    }

    // Plans with this run's sizes into `out`, reusing its memory. On
    // deferred, unknown_sizes() lists the owners the oracle did not know and
    // `out` is left as it was.
    template <size_oracle Oracle>
    [[nodiscard]] expected<Outcome, PlanError> plan(Oracle&& oracle, ActivationPlan& out) {
        return plan_sized(oracle, out);
    }
    // The same with this request's scratch (bytes by node position, as
    // PlanOptions::scratch_bytes), kept for the next requests too.
    template <size_oracle Oracle>
    [[nodiscard]] expected<Outcome, PlanError> plan(Oracle&& oracle, std::span<const std::size_t> scratch,
                                                    ActivationPlan& out) {
        scratch_.assign(scratch.begin(), scratch.end());
        return plan(oracle, out);
    }

private:
    expected<Outcome, PlanError> plan_sized(detail::SizeOf oracle, ActivationPlan& out);

    detail::SlotPool pool_;
};

}  // namespace onnx_runtime_memory

#if !defined(ONNX_RUNTIME_MEMORY_SEPARATE_COMPILATION)
#include "detail/slot_planning.hpp"  // the code (else the compiled core's: src.hpp)
#endif
