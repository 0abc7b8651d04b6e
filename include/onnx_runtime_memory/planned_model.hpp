// PlannedModel: the one object an executor keeps per model. Created once
// from the graph, its views and every option (policies, in-place hints,
// scratch, pins, an execution order); then, per request, new sizes (an
// oracle) and the request's scratch go in, and the arena plan, the
// placement table and the scratch table are updated in place: the liveness
// is never recomputed, and what the object holds is reused: every strategy
// keeps its working memory, so a request allocates only where it needs more
// than any before it (a larger problem, or a strategy the work budget had
// not run yet); tests/no_allocation_test.cpp runs requests after the first
// on seven shapes with none. Every plan equals plan_arena's with the
// same options and the request's sizes and scratch; planning, placements
// and validation read the same options, held once. Spilled (plan_spilled):
// the same request across a fast space and a slow one (arena_spill.hpp),
// from the owners' uses the object keeps since create. For streams
// (create_on_streams): every plan is plan_arena_concurrent's, checked by
// validate_arena_concurrent.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "arena.hpp"
#include "arena_spill.hpp"
#include "concurrent.hpp"
#include "errors.hpp"
#include "expected.hpp"
#include "graph.hpp"
#include "liveness.hpp"
#include "order.hpp"
#include "placements.hpp"
#include "plan_types.hpp"
#include "sizing.hpp"
#include "streams.hpp"
#include "validate.hpp"
#include "validate_concurrent.hpp"
#include "validate_spill.hpp"
#include "view_map.hpp"

namespace onnx_runtime_memory {

class PlannedModel {
public:
    enum class Outcome : std::uint8_t { complete, deferred };

    // Plans g in its own node order, or in `order` (a permutation of g's
    // nodes: position k runs node order[k]). Node ids are g's throughout:
    // options.scratch_bytes[n] and each request's scratch are by node id,
    // and so are the scratch table's nodes. The options are held as given.
    // An invalid graph, view map or option is the PlanError
    // compute_liveness (or in_order) gives.
    template <activation_graph G>
    [[nodiscard]] static expected<PlannedModel, PlanError> create(const G& g, ViewMap views, PlanOptions options = {},
                                                                  ArenaOptions arena_options = {},
                                                                  std::vector<NodeIndex> order = {}) {
        if (order.empty()) return make(g, std::move(views), std::move(options), arena_options, std::move(order));
        auto ordered = in_order(g, order);
        if (!ordered) return unexpected(ordered.error());
        return make(*ordered, std::move(views), std::move(options), arena_options, std::move(order));
    }
    // Plans g in its own order for an executor that runs nodes at the same
    // time, as `streams` says (concurrent.hpp): each request's plan is
    // plan_arena_concurrent's, with the clocks, the liveness and each node's
    // touches made here once. Nodes all on one stream are create's
    // sequential model, bit for bit. A description the planner cannot follow
    // is PlanError::bad_streams; pins are kept, in-place hints taken where
    // safe on the streams (explain_inplace_on_streams); plan_spilled refuses
    // a model on several streams (bad_streams).
    // Its working memory is kept, as create's is (tests/no_allocation_test.cpp).
    template <activation_graph G>
    [[nodiscard]] static expected<PlannedModel, PlanError> create_on_streams(const G& g, ViewMap views, Streams streams,
                                                                             PlanOptions options = {},
                                                                             ArenaOptions arena_options = {}) {
        auto clocks = detail::stream_clocks(g, streams);
        if (!clocks) return unexpected(clocks.error());
        if (!detail::several_streams(*clocks)) return make(g, std::move(views), std::move(options), arena_options, {});
        if (auto ok = scratch_in_graph(g, options); !ok) return unexpected(ok.error());
        auto planner = detail::StreamArenaPlanner::create(g, views, std::move(*clocks), options, arena_options);
        if (!planner) return unexpected(planner.error());
        PlannedModel model(std::move(*planner), std::move(views), std::move(options), arena_options, {});
        model.finish(g, model.options_, positions(g, {}));
        model.streams_ = std::move(streams);
        return model;
    }
    // A first argument that is no graph: the error names the function it lacks.
    template <class G, class... Rest>
        requires detail::not_a_graph<G, Liveness>
    static expected<PlannedModel, PlanError> create(const G&, Rest&&...) {
        static_assert(detail::explain_activation_graph<G>());
        return unexpected(PlanError{});
    }

    // Plans this request: sizes from `oracle`, the options' scratch. On
    // deferred (some size unknown and the policy defers), unknown_sizes()
    // lists the owners and the tables keep the last complete request's.
    template <size_oracle Oracle>
    [[nodiscard]] expected<Outcome, PlanError> plan(Oracle&& oracle) {
        return plan(oracle, std::span<const std::size_t>(options_.scratch_bytes));
    }
    // The same with this request's scratch: scratch_bytes[n] bytes for node
    // n (by node id; 0 or no entry: none). A node the graph lacks is
    // PlanError::bad_scratch naming it.
    template <size_oracle Oracle>
    [[nodiscard]] expected<Outcome, PlanError> plan(Oracle&& oracle, std::span<const std::size_t> scratch_bytes) {
        if (auto ok = scratch_by_position(scratch_bytes); !ok) return unexpected(ok.error());
        auto outcome = std::visit([&](auto& planner) { return planner.plan(oracle, position_scratch_, arena_); }, planner_);
        if (!outcome) return unexpected(outcome.error());
        if (*outcome == ArenaPlanner::Outcome::deferred) return Outcome::deferred;
        // One entry a node of the request's scratch, as plan_arena says (in an order: every position).
        if (scratch_bytes.empty()) arena_.scratch_offsets.clear();
        else if (order_.empty()) arena_.scratch_offsets.resize(scratch_bytes.size(), no_offset);
        detail::fill_placements(base_, kept().liveness(), kept().sizes(), arena_.dynamic_values, arena_, table_);
        no_ops_.clear();
        detail::no_op_in_place(no_op_candidates_, kept().liveness(), oracle, [&](NodeIndex n) { return node_at(n); }, no_ops_);
        std::sort(no_ops_.begin(), no_ops_.end());
        planned_scratch_.assign(position_scratch_.begin(), position_scratch_.end());
        scratch_table_.clear();
        for (std::size_t n = 0; n < scratch_bytes.size(); ++n)
            if (scratch_bytes[n] > 0) {
                const std::size_t at = position_of_[n];
                scratch_table_.push_back(ScratchPlacement{static_cast<NodeIndex>(n), scratch_bytes[n], SlotId::none(),
                                                          arena_.scratch_offsets[at]});
            }
        return Outcome::complete;
    }

    // Moves part `part` (ViewMap::insert_part) to byte `offset` of the value
    // it is a part of, for the requests from now on: a KV cache's new
    // entries, appended after the past ones at each step. The views through
    // it move with it; views(), placements' windows, no_op_nodes and
    // validate follow. not_a_part when `part` is no part; view_outside_root
    // when a window's sum would pass SIZE_MAX (nothing moves then). Whether
    // the part still lies inside its whole, and apart from the other parts,
    // the next plan() checks with that request's sizes. O(V); no allocation.
    [[nodiscard]] expected<void, PlanError> move_part(ValueId part, std::size_t offset) {
        if (!views_.is_part(part)) return unexpected(make_plan_error(PlanError::Kind::not_a_part, part));
        if (auto ok = kept().move_window(views_, part, offset); !ok) return ok;
        views_.insert_part(part, *views_.source_of(part), offset);
        const Liveness& live = kept().liveness();
        for (std::size_t v = 0; v < base_.size(); ++v) base_[v].window = live.window(static_cast<ValueId>(v));
        return {};
    }

    // Plans this request across options.fast and options.slow: plan_arena_spill's
    // plan for the graph in the order planned, with these sizes and the
    // options' scratch (or this request's). Allocates. On deferred, spilled()
    // keeps the last complete spilled request's.
    template <size_oracle Oracle>
    [[nodiscard]] expected<Outcome, SpillError> plan_spilled(Oracle&& oracle, const SpillOptions& options) {
        return plan_spilled(oracle, options, std::span<const std::size_t>(options_.scratch_bytes));
    }
    template <size_oracle Oracle>
    [[nodiscard]] expected<Outcome, SpillError> plan_spilled(Oracle&& oracle, const SpillOptions& options,
                                                             std::span<const std::size_t> scratch_bytes) {
        if (streamed())
            return refused_records<SpillError>(make_plan_error(PlanError::Kind::bad_streams, no_value));
        if (auto ok = scratch_by_position(scratch_bytes); !ok) return refused_records<SpillError>(ok.error());
        const Liveness& live = kept().liveness();
        auto request = detail::size_for_plan(live, oracle, options_.unknown_sizes, position_scratch_);
        if (!request) return refused_records<SpillError>(request.error());
        if (request->deferred) return Outcome::deferred;
        SpilledArenaPlan next;
        if (auto ok = detail::spill_request(request->planned(live), request->sizes, position_scratch_, value_uses_,
                                            options_.pinned, options, next);
            !ok)
            return unexpected(ok.error());
        next.dynamic_values = std::move(request->sizes.unknown);
        spilled_ = std::move(next);
        spilled_scratch_.assign(position_scratch_.begin(), position_scratch_.end());
        return Outcome::complete;
    }
    // The last complete spilled request's plan (positions, and scratch, in the order planned).
    [[nodiscard]] const SpilledArenaPlan& spilled() const noexcept { return spilled_; }
    // Checks it against g (the graph given to create) with validate_arena_spill: the
    // sizes from `oracle` (the request's), its scratch, the same options.
    template <activation_graph G, size_oracle Oracle>
    [[nodiscard]] expected<void, ValidateError> validate_spilled(const G& g, Oracle&& oracle,
                                                                 const SpillOptions& options) const {
        PlanOptions planned = options_;
        planned.scratch_bytes.assign(spilled_scratch_.begin(), spilled_scratch_.end());
        if (order_.empty()) return validate_arena_spill(g, views_, spilled_, oracle, planned, options);
        auto ordered = in_order(g, order_);
        if (!ordered) return unexpected(ValidateError::from(ordered.error()));
        return validate_arena_spill(*ordered, views_, spilled_, oracle, planned, options);
    }

    // The last complete request's arena plan (scratch_offsets by position in
    // the order planned; scratch() has them by node id).
    [[nodiscard]] const ArenaPlan& arena() const noexcept { return arena_; }
    // Every value's placement, by value id: kind, root, size, interval and
    // offset (a view's, its root's); `dynamic` for an owner of unknown size
    // under UnknownSizes::dynamic (with its views: no offset).
    [[nodiscard]] const std::vector<ValuePlacement>& placements() const noexcept { return table_; }
    // Each node's scratch, by node id, for the nodes that asked for some.
    [[nodiscard]] const std::vector<ScratchPlacement>& scratch() const noexcept { return scratch_table_; }
    // The nodes (by node id, ascending) the executor skips this request:
    // their inputs are parts of their one output, back to back in place
    // (no_op_nodes).
    [[nodiscard]] const std::vector<NodeIndex>& no_op_nodes() const noexcept { return no_ops_; }
    // The owners of unknown size of the last request: deferred, or left to
    // run time (then also arena().dynamic_values).
    [[nodiscard]] const std::vector<ValueId>& unknown_sizes() const noexcept { return kept().unknown_sizes(); }
    // The last complete request's lower bound: plan_offsets' lower_bound_bytes,
    // or (streams) the plan's proven_bound_bytes.
    [[nodiscard]] std::size_t lower_bound_bytes() const noexcept {
        return std::visit([](const auto& planner) { return planner.lower_bound_bytes(); }, planner_);
    }
    [[nodiscard]] const PlanOptions& options() const noexcept { return options_; }
    [[nodiscard]] const ArenaOptions& arena_options() const noexcept { return arena_options_; }
    [[nodiscard]] const ViewMap& views() const noexcept { return views_; }
    // The order planned in (empty: the graph's own).
    [[nodiscard]] const std::vector<NodeIndex>& order() const noexcept { return order_; }
    // The liveness, in positions of the order planned.
    [[nodiscard]] const Liveness& liveness() const noexcept { return kept().liveness(); }
    // The streams given to create_on_streams (empty: the sequential model).
    [[nodiscard]] const Streams& streams() const noexcept { return streams_; }

    // Checks the last complete request's plan against g (the graph given
    // to create) with validate_arena (or, on several streams,
    // validate_arena_concurrent with them): the views, options, order,
    // alignment and that request's scratch held here, the sizes from
    // `oracle` (the request's). Independent of the planner; allocates.
    template <activation_graph G, size_oracle Oracle>
    [[nodiscard]] expected<void, ValidateError> validate(const G& g, Oracle&& oracle) const {
        PlanOptions planned = options_;
        planned.scratch_bytes.assign(planned_scratch_.begin(), planned_scratch_.end());
        if (streamed())
            return validate_arena_concurrent(g, views_, arena_, oracle, streams_, arena_options_.alignment, planned);
        if (order_.empty()) return validate_arena(g, views_, arena_, oracle, arena_options_.alignment, planned);
        auto ordered = in_order(g, order_);
        if (!ordered) return unexpected(ValidateError::from(ordered.error()));
        return validate_arena(*ordered, views_, arena_, oracle, arena_options_.alignment, planned);
    }

private:
    using Planner = std::variant<ArenaPlanner, detail::StreamArenaPlanner>;
    // What both planners keep: the liveness, the sizes, the unknown owners.
    [[nodiscard]] const detail::KeptPlanning& kept() const noexcept {
        return std::visit([](const auto& planner) -> const detail::KeptPlanning& { return planner; }, planner_);
    }
    [[nodiscard]] detail::KeptPlanning& kept() noexcept {
        return std::visit([](auto& planner) -> detail::KeptPlanning& { return planner; }, planner_);
    }
    [[nodiscard]] bool streamed() const noexcept { return planner_.index() == 1; }
    // The node id at `position` in the order planned.
    [[nodiscard]] NodeIndex node_at(NodeIndex position) const noexcept {
        return order_.empty() ? static_cast<NodeIndex>(position) : order_[position];
    }
    // This request's scratch by position (position_scratch_), or the node it names that the graph lacks.
    [[nodiscard]] expected<void, PlanError> scratch_by_position(std::span<const std::size_t> scratch_bytes) {
        position_scratch_.assign(position_of_.size(), 0);
        for (std::size_t n = 0; n < scratch_bytes.size(); ++n) {
            if (scratch_bytes[n] == 0) continue;
            if (n >= position_of_.size())
                return unexpected(make_plan_error(PlanError::Kind::bad_scratch, no_value, static_cast<NodeIndex>(n)));
            position_scratch_[position_of_[n]] = scratch_bytes[n];
        }
        return {};
    }

    // The planner is built in place: g++ 12 at -O2 warns (-Wmaybe-uninitialized)
    // on a temporary variant's destructor.
    template <class P>
    PlannedModel(P&& planner, ViewMap views, PlanOptions options, ArenaOptions arena_options,
                 std::vector<NodeIndex> order)
        : planner_(std::in_place_type<std::remove_cvref_t<P>>, std::forward<P>(planner)), views_(std::move(views)),
          options_(std::move(options)),
          arena_options_(arena_options), order_(std::move(order)) {}

    // create, on the graph in the order planned.
    template <activation_graph G>
    [[nodiscard]] static expected<PlannedModel, PlanError> make(const G& g, ViewMap views, PlanOptions options,
                                                                const ArenaOptions& arena_options,
                                                                std::vector<NodeIndex> order) {
        if (auto ok = scratch_in_graph(g, options); !ok) return unexpected(ok.error());
        std::vector<std::size_t> position_of = positions(g, order);
        PlanOptions planned = options;  // scratch by position, for the liveness and the planner
        planned.scratch_bytes.assign(position_of.size(), 0);
        for (std::size_t n = 0; n < options.scratch_bytes.size(); ++n)
            if (options.scratch_bytes[n] > 0) planned.scratch_bytes[position_of[n]] = options.scratch_bytes[n];
        auto live = compute_liveness(g, views, planned);
        if (!live) return unexpected(live.error());
        ArenaPlanner planner(std::move(*live), arena_options, planned.scratch_bytes, planned.pinned, planned.unknown_sizes);
        PlannedModel model(std::move(planner), std::move(views), std::move(options), arena_options, std::move(order));
        model.finish(g, planned, std::move(position_of));
        return model;
    }
    // Node id -> position in `order` (empty: the graph's own).
    template <activation_graph G>
    [[nodiscard]] static std::vector<std::size_t> positions(const G& g, const std::vector<NodeIndex>& order) {
        const std::size_t N = static_cast<std::size_t>(graph_traits<G>::node_count(g));
        std::vector<std::size_t> position_of(N);
        for (std::size_t k = 0; k < N; ++k) position_of[order.empty() ? k : order[k]] = k;
        return position_of;
    }
    // A node the graph lacks given scratch: bad_scratch naming it.
    template <activation_graph G>
    [[nodiscard]] static expected<void, PlanError> scratch_in_graph(const G& g, const PlanOptions& options) {
        const std::size_t N = static_cast<std::size_t>(graph_traits<G>::node_count(g));
        for (std::size_t n = N; n < options.scratch_bytes.size(); ++n)
            if (options.scratch_bytes[n] > 0) return unexpected(make_plan_error(PlanError::Kind::bad_scratch, no_value, static_cast<NodeIndex>(n)));
        return {};
    }
    // What no request changes, from g in the order planned (`planned`: the
    // options with scratch by position): the positions, the placement
    // table's base, the owners' uses, the no-op candidates.
    template <activation_graph G>
    void finish(const G& g, const PlanOptions& planned, std::vector<std::size_t> position_of) {
        position_of_ = std::move(position_of);
        detail::placement_base(g, kept().liveness(), planned, base_);
        detail::owner_uses(g, kept().liveness(), value_uses_);
        detail::no_op_candidates(g, views_, no_op_candidates_);  // by position
        no_ops_.reserve(no_op_candidates_.nodes.size());
    }

    Planner planner_;
    ViewMap views_;
    PlanOptions options_;  // as given: scratch by node id
    ArenaOptions arena_options_;
    std::vector<NodeIndex> order_;
    Streams streams_;                            // create_on_streams' (on several streams)
    std::vector<std::size_t> position_of_;       // node id -> position planned
    std::vector<std::size_t> position_scratch_;  // this request's scratch, by position
    std::vector<std::size_t> planned_scratch_;   // the last complete request's
    std::vector<ValuePlacement> base_, table_;   // what no request changes; this request's table
    std::vector<ScratchPlacement> scratch_table_;
    detail::NoOpCandidates no_op_candidates_;  // by position
    std::vector<NodeIndex> no_ops_;             // this request's, by node id
    ArenaPlan arena_;
    BufferUses value_uses_;                     // each owner's uses: what spilled requests are made from
    SpilledArenaPlan spilled_;                  // the last complete spilled request's plan
    std::vector<std::size_t> spilled_scratch_;  // and its scratch, by position
};

}  // namespace onnx_runtime_memory
