// Slot planning from a liveness: the code behind plan.hpp's declarations
// (part of the compiled core, config.hpp).
#pragma once

#include "config.hpp"
#if defined(ONNX_RUNTIME_MEMORY_SEPARATE_COMPILATION) && !defined(ONNX_RUNTIME_MEMORY_SOURCE)
#error "detail/slot_planning.hpp is the compiled core's: include plan.hpp (src.hpp defines the core once)"
#endif

#include <cstddef>
#include <span>
#include <utility>

#include "../plan.hpp"
#include "slot_pool.hpp"
#include "slot_strategies.hpp"
#include "slot_walk.hpp"

namespace onnx_runtime_memory {

namespace detail {

ONNX_RUNTIME_MEMORY_CORE expected<PlanStatus, PlanError> plan_slot_walk(const Liveness& live, SizeOf oracle,
                                                                        UnknownSizes policy,
                                                                        std::span<const std::size_t> scratch,
                                                                        bool growth) {
    auto request = size_for_plan(live, oracle, policy, scratch);
    if (!request) return unexpected(request.error());
    auto& sizes = request->sizes;
    if (request->deferred) return PlanStatus::deferred(std::move(sizes.unknown));
    const Liveness& planned = request->planned(live);
    ActivationPlan plan;
    Schedule schedule;
    make_schedule(planned, schedule);
    SlotPool pool;
    assign_slots(planned, schedule, sizes.bytes, request->naive_bytes, pool, plan, growth, scratch);
    plan.dynamic_values = std::move(sizes.unknown);
    return PlanStatus::complete(std::move(plan));
}

ONNX_RUNTIME_MEMORY_CORE expected<PlanStatus, PlanError> plan_slots_offline(SlotStrategy strategy, const Liveness& live,
                                                                            SizeOf oracle, UnknownSizes policy,
                                                                            std::span<const std::size_t> scratch,
                                                                            std::span<const Interval> timed) {
    auto request = size_for_plan(live, oracle, policy, scratch);
    if (!request) return unexpected(request.error());
    auto& sizes = request->sizes;
    if (request->deferred) return PlanStatus::deferred(std::move(sizes.unknown));
    ActivationPlan plan;
    assign_slots_offline(strategy, request->planned(live), sizes.bytes, request->naive_bytes, plan, scratch, timed);
    plan.dynamic_values = std::move(sizes.unknown);
    return PlanStatus::complete(std::move(plan));
}

}  // namespace detail

ONNX_RUNTIME_MEMORY_CORE expected<ActivationPlanner::Outcome, PlanError> ActivationPlanner::plan_sized(
    detail::SizeOf oracle, ActivationPlan& out) {
    auto naive = size_request(oracle);
    if (!naive) return unexpected(naive.error());
    if (!*naive) return Outcome::deferred;
    detail::assign_slots(planned(), planned_schedule(), sizes_.bytes, **naive, pool_, out, false, scratch_);
    report_dynamic(out.dynamic_values);
    return Outcome::complete;
}

}  // namespace onnx_runtime_memory
