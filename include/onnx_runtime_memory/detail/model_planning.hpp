// PlannedModel's code: the code behind planned_model.hpp's declarations
// (part of the compiled core, config.hpp). Its templates read the caller's
// graph into a dense one and wrap the oracle; all that follows is here,
// compiled once.
#pragma once

#include "config.hpp"
#if defined(ONNX_RUNTIME_MEMORY_SEPARATE_COMPILATION) && !defined(ONNX_RUNTIME_MEMORY_SOURCE)
#error "detail/model_planning.hpp is the compiled core's: include planned_model.hpp (src.hpp defines the core once)"
#endif

#include <algorithm>
#include <cstddef>
#include <span>
#include <utility>
#include <vector>

#include "../order.hpp"
#include "../planned_model.hpp"
#include "../validate.hpp"
#include "../validate_concurrent.hpp"
#include "../validate_spill.hpp"
#include "dense_graph.hpp"

namespace onnx_runtime_memory {

namespace detail {

// Node id -> position in `order` (empty: the graph's own).
[[nodiscard]] inline std::vector<std::size_t> positions(std::size_t nodes, const std::vector<NodeIndex>& order) {
    std::vector<std::size_t> position_of(nodes);
    for (std::size_t k = 0; k < nodes; ++k) position_of[order.empty() ? k : order[k]] = k;
    return position_of;
}

// A node the graph lacks given scratch: bad_scratch naming it.
[[nodiscard]] inline expected<void, PlanError> scratch_in_graph(std::size_t nodes, const PlanOptions& options) {
    for (std::size_t n = nodes; n < options.scratch_bytes.size(); ++n)
        if (options.scratch_bytes[n] > 0)
            return unexpected(make_plan_error(PlanError::Kind::bad_scratch, no_value, static_cast<NodeIndex>(n)));
    return {};
}

}  // namespace detail

#if defined(ONNX_RUNTIME_MEMORY_SEPARATE_COMPILATION)
PlannedModel::PlannedModel(PlannedModel&&) noexcept = default;
PlannedModel::~PlannedModel() = default;
#endif

ONNX_RUNTIME_MEMORY_CORE expected<PlannedModel, PlanError> PlannedModel::create_dense(const detail::DenseGraph& g,
                                                                                     ViewMap views, PlanOptions options,
                                                                                     const ArenaOptions& arena_options,
                                                                                     std::vector<NodeIndex> order) {
    if (order.empty()) return make(g, std::move(views), std::move(options), arena_options, std::move(order));
    detail::DenseGraph ordered;
    if (auto ok = detail::in_order(g, order, ordered); !ok) return unexpected(ok.error());
    return make(ordered, std::move(views), std::move(options), arena_options, std::move(order));
}

ONNX_RUNTIME_MEMORY_CORE expected<PlannedModel, PlanError> PlannedModel::create_dense_on_streams(
    const detail::DenseGraph& g, ViewMap views, Streams streams, PlanOptions options, const ArenaOptions& arena_options) {
    auto clocks = detail::stream_clocks(g, streams);
    if (!clocks) return unexpected(clocks.error());
    if (!detail::several_streams(*clocks)) return make(g, std::move(views), std::move(options), arena_options, {});
    if (auto ok = detail::scratch_in_graph(g.node_count(), options); !ok) return unexpected(ok.error());
    auto planner = detail::StreamArenaPlanner::create(g, views, std::move(*clocks), options, arena_options);
    if (!planner) return unexpected(planner.error());
    PlannedModel model(std::move(*planner), std::move(views), std::move(options), arena_options, {});
    model.finish(g, model.options_, detail::positions(g.node_count(), {}));
    model.streams_ = std::move(streams);
    return model;
}

ONNX_RUNTIME_MEMORY_CORE expected<PlannedModel, PlanError> PlannedModel::make(const detail::DenseGraph& g, ViewMap views,
                                                                             PlanOptions options,
                                                                             const ArenaOptions& arena_options,
                                                                             std::vector<NodeIndex> order) {
    if (auto ok = detail::scratch_in_graph(g.node_count(), options); !ok) return unexpected(ok.error());
    std::vector<std::size_t> position_of = detail::positions(g.node_count(), order);
    PlanOptions planned = options;  // scratch by position, for the liveness and the planner
    planned.scratch_bytes.assign(position_of.size(), 0);
    for (std::size_t n = 0; n < options.scratch_bytes.size(); ++n)
        if (options.scratch_bytes[n] > 0) planned.scratch_bytes[position_of[n]] = options.scratch_bytes[n];
    auto live = detail::dense_liveness(g, views, planned);
    if (!live) return unexpected(live.error());
    ArenaPlanner planner(std::move(*live), arena_options, planned.scratch_bytes, planned.pinned, planned.unknown_sizes);
    PlannedModel model(std::move(planner), std::move(views), std::move(options), arena_options, std::move(order));
    model.finish(g, planned, std::move(position_of));
    return model;
}

ONNX_RUNTIME_MEMORY_CORE void PlannedModel::finish(const detail::DenseGraph& g, const PlanOptions& planned,
                                                   std::vector<std::size_t> position_of) {
    position_of_ = std::move(position_of);
    detail::placement_base(g, kept().liveness(), planned, base_);
    detail::owner_uses(g, kept().liveness(), value_uses_);
    detail::no_op_candidates(g, views_, no_op_candidates_);  // by position
    no_ops_.reserve(no_op_candidates_.nodes.size());
}

ONNX_RUNTIME_MEMORY_CORE expected<void, PlanError> PlannedModel::scratch_by_position(std::span<const std::size_t> scratch_bytes) {
    position_scratch_.assign(position_of_.size(), 0);
    for (std::size_t n = 0; n < scratch_bytes.size(); ++n) {
        if (scratch_bytes[n] == 0) continue;
        if (n >= position_of_.size())
            return unexpected(make_plan_error(PlanError::Kind::bad_scratch, no_value, static_cast<NodeIndex>(n)));
        position_scratch_[position_of_[n]] = scratch_bytes[n];
    }
    return {};
}

ONNX_RUNTIME_MEMORY_CORE expected<PlannedModel::Outcome, PlanError> PlannedModel::plan_sized(
    detail::SizeOf oracle, std::span<const std::size_t> scratch_bytes) {
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
            scratch_table_.push_back(
                ScratchPlacement{static_cast<NodeIndex>(n), scratch_bytes[n], SlotId::none(), arena_.scratch_offsets[at]});
        }
    return Outcome::complete;
}

ONNX_RUNTIME_MEMORY_CORE expected<PlannedModel::Outcome, SpillError> PlannedModel::plan_spilled_sized(
    detail::SizeOf oracle, const SpillOptions& options, std::span<const std::size_t> scratch_bytes) {
    if (streamed()) return refused_records<SpillError>(make_plan_error(PlanError::Kind::bad_streams, no_value));
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

ONNX_RUNTIME_MEMORY_CORE expected<void, ValidateError> PlannedModel::validate_dense(const detail::DenseGraph& g,
                                                                                   detail::SizeOf oracle) const {
    PlanOptions planned = options_;
    planned.scratch_bytes.assign(planned_scratch_.begin(), planned_scratch_.end());
    if (streamed())
        return validate_arena_concurrent(g, views_, arena_, oracle, streams_, arena_options_.alignment, planned);
    if (order_.empty()) return validate_arena(g, views_, arena_, oracle, arena_options_.alignment, planned);
    detail::DenseGraph ordered;
    if (auto ok = detail::in_order(g, order_, ordered); !ok) return unexpected(ValidateError::from(ok.error()));
    return validate_arena(ordered, views_, arena_, oracle, arena_options_.alignment, planned);
}

ONNX_RUNTIME_MEMORY_CORE expected<void, ValidateError> PlannedModel::validate_spilled_dense(const detail::DenseGraph& g,
                                                                                           detail::SizeOf oracle,
                                                                                           const SpillOptions& options) const {
    PlanOptions planned = options_;
    planned.scratch_bytes.assign(spilled_scratch_.begin(), spilled_scratch_.end());
    if (order_.empty()) return validate_arena_spill(g, views_, spilled_, oracle, planned, options);
    detail::DenseGraph ordered;
    if (auto ok = detail::in_order(g, order_, ordered); !ok) return unexpected(ValidateError::from(ok.error()));
    return validate_arena_spill(ordered, views_, spilled_, oracle, planned, options);
}

}  // namespace onnx_runtime_memory
