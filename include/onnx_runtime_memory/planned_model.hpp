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
#include "detail/config.hpp"
#include "detail/dense_graph.hpp"
#include "errors.hpp"
#include "expected.hpp"
#include "graph.hpp"
#include "liveness.hpp"
#include "placements.hpp"
#include "plan_types.hpp"
#include "sizing.hpp"
#include "streams.hpp"
#include "validate_error.hpp"
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
        detail::DenseGraph store;
        const auto read = detail::read_graph(g, store);
        if (!read) return unexpected(read.error());
        const detail::DenseGraph& dense = **read;
        return create_dense(dense, std::move(views), std::move(options), arena_options, std::move(order));
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
        detail::DenseGraph store;
        const auto read = detail::read_graph(g, store);
        if (!read) return unexpected(read.error());
        const detail::DenseGraph& dense = **read;
        return create_dense_on_streams(dense, std::move(views), std::move(streams), std::move(options), arena_options);
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
        return plan_sized(oracle, scratch_bytes);
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
        return plan_spilled_sized(oracle, options, scratch_bytes);
    }
    // The last complete spilled request's plan (positions, and scratch, in the order planned).
    [[nodiscard]] const SpilledArenaPlan& spilled() const noexcept { return spilled_; }
    // Checks it against g (the graph given to create) with validate_arena_spill: the
    // sizes from `oracle` (the request's), its scratch, the same options.
    template <activation_graph G, size_oracle Oracle>
    [[nodiscard]] expected<void, ValidateError> validate_spilled(const G& g, Oracle&& oracle,
                                                                 const SpillOptions& options) const {
        detail::DenseGraph store;
        const auto read = detail::read_graph(g, store);
        if (!read) return unexpected(ValidateError::from(read.error()));
        const detail::DenseGraph& dense = **read;
        return validate_spilled_dense(dense, oracle, options);
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
        detail::DenseGraph store;
        const auto read = detail::read_graph(g, store);
        if (!read) return unexpected(ValidateError::from(read.error()));
        const detail::DenseGraph& dense = **read;
        return validate_dense(dense, oracle);
    }

#if defined(ONNX_RUNTIME_MEMORY_SEPARATE_COMPILATION)
    // With the core compiled apart, what every unit that keeps a model calls
    // is out of line, compiled once there; the copies and the assignments
    // are made only where used. (Header-only, the implicit ones: defaulted
    // out of line, they cost g++ more memory at -O2.)
    PlannedModel(PlannedModel&&) noexcept;
    ~PlannedModel();
    PlannedModel(const PlannedModel&) = default;
    PlannedModel& operator=(const PlannedModel&) = default;
    PlannedModel& operator=(PlannedModel&&) noexcept = default;
#endif

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
    // What the templates call once the graph is read into a dense one
    // and the oracle wrapped (the code: detail/model_planning.hpp).
    ONNX_RUNTIME_MEMORY_CORE static expected<PlannedModel, PlanError> create_dense(const detail::DenseGraph& g, ViewMap views,
                                                                                  PlanOptions options,
                                                                                  const ArenaOptions& arena_options,
                                                                                  std::vector<NodeIndex> order);
    ONNX_RUNTIME_MEMORY_CORE static expected<PlannedModel, PlanError> create_dense_on_streams(
        const detail::DenseGraph& g, ViewMap views, Streams streams, PlanOptions options, const ArenaOptions& arena_options);
    ONNX_RUNTIME_MEMORY_CORE expected<Outcome, PlanError> plan_sized(detail::SizeOf oracle,
                                                                    std::span<const std::size_t> scratch_bytes);
    ONNX_RUNTIME_MEMORY_CORE expected<Outcome, SpillError> plan_spilled_sized(detail::SizeOf oracle,
                                                                             const SpillOptions& options,
                                                                             std::span<const std::size_t> scratch_bytes);
    // validate and validate_spilled on g, in g's own order.
    ONNX_RUNTIME_MEMORY_CORE expected<void, ValidateError> validate_dense(const detail::DenseGraph& g,
                                                                         detail::SizeOf oracle) const;
    ONNX_RUNTIME_MEMORY_CORE expected<void, ValidateError> validate_spilled_dense(const detail::DenseGraph& g,
                                                                                 detail::SizeOf oracle,
                                                                                 const SpillOptions& options) const;
    // create on g in the order planned.
    ONNX_RUNTIME_MEMORY_CORE static expected<PlannedModel, PlanError> make(const detail::DenseGraph& g, ViewMap views,
                                                                          PlanOptions options,
                                                                          const ArenaOptions& arena_options,
                                                                          std::vector<NodeIndex> order);
    // This request's scratch by position (position_scratch_), or the node it names that the graph lacks.
    ONNX_RUNTIME_MEMORY_CORE expected<void, PlanError> scratch_by_position(std::span<const std::size_t> scratch_bytes);
    // What no request changes, from g in the order planned (`planned`: the
    // options with scratch by position): the positions, the placement
    // table's base, the owners' uses, the no-op candidates.
    ONNX_RUNTIME_MEMORY_CORE void finish(const detail::DenseGraph& g, const PlanOptions& planned,
                                         std::vector<std::size_t> position_of);

    // The planner is built in place: g++ 12 at -O2 warns (-Wmaybe-uninitialized)
    // on a temporary variant's destructor.
    template <class P>
    PlannedModel(P&& planner, ViewMap views, PlanOptions options, ArenaOptions arena_options,
                 std::vector<NodeIndex> order)
        : planner_(std::in_place_type<std::remove_cvref_t<P>>, std::forward<P>(planner)), views_(std::move(views)),
          options_(std::move(options)),
          arena_options_(arena_options), order_(std::move(order)) {}

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

#if !defined(ONNX_RUNTIME_MEMORY_SEPARATE_COMPILATION)
#include "detail/model_planning.hpp"  // the code (else the compiled core's: src.hpp)
#endif
