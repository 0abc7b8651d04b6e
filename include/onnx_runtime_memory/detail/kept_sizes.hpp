// What the re-planners keep, set up and sized per request: the code behind
// kept_planning.hpp's declarations (part of the compiled core, config.hpp).
#pragma once

#include "config.hpp"
#if defined(ONNX_RUNTIME_MEMORY_SEPARATE_COMPILATION) && !defined(ONNX_RUNTIME_MEMORY_SOURCE)
#error "detail/kept_sizes.hpp is the compiled core's: include detail/kept_planning.hpp (src.hpp defines the core once)"
#endif

#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

#include "checked.hpp"
#include "kept_planning.hpp"

namespace onnx_runtime_memory::detail {

ONNX_RUNTIME_MEMORY_CORE expected<void, PlanError> move_window(Liveness& live, const ViewMap& views, ValueId part,
                                                              std::size_t offset) {
    const std::size_t V = live.value_count();
    if (part >= V || live.windows.size() != V) return unexpected(make_plan_error(PlanError::Kind::not_a_part, part));
    const ValueId r = live.roots[part];
    const std::size_t before = views.offset_of(part);
    const auto through_part = [&](std::size_t x) {  // whether x's view chain passes `part`
        if (live.roots[x] != r) return false;
        for (std::optional<ValueId> at = static_cast<ValueId>(x); at; at = views.source_of(*at))
            if (*at == part) return true;
        return false;
    };
    std::size_t moved = 0;
    for (std::size_t x = 0; x < V; ++x)  // every window through `part` holds its old offset
        if (through_part(x) && add_overflows(live.windows[x] - before, offset, moved)) {
            PlanError e = make_plan_error(PlanError::Kind::view_outside_root, static_cast<ValueId>(x));
            e.other = r;
            return unexpected(e);
        }
    for (std::size_t x = 0; x < V; ++x)
        if (through_part(x)) live.windows[x] = live.windows[x] - before + offset;
    return {};
}

ONNX_RUNTIME_MEMORY_CORE KeptPlanning::KeptPlanning(Liveness live, std::vector<std::size_t> scratch, UnknownSizes policy)
    : live_(std::move(live)), scratch_(std::move(scratch)), policy_(policy) {
    if (auto ok = check_liveness(live_); !ok) {
        error_ = ok.error();
        live_ = Liveness{};
        return;
    }
    make_schedule(live_, schedule_);
    sizes_.bytes.reserve(live_.value_count());
    sizes_.unknown.reserve(live_.owners.size());
}

ONNX_RUNTIME_MEMORY_CORE expected<std::optional<std::size_t>, PlanError> KeptPlanning::size_request(SizeOf oracle) {
    if (error_) return unexpected(*error_);
    size_owners_by(live_, oracle, sizes_);
    auto naive = sizes_.naive_bytes(policy_);
    if (!naive) return unexpected(naive.error());
    if (!sizes_.complete() && policy_ == UnknownSizes::defer) return std::optional<std::size_t>{};
    auto with_scratch = add_scratch(live_, scratch_, *naive);
    if (!with_scratch) return unexpected(with_scratch.error());
    dynamic_ = !sizes_.complete();
    if (dynamic_) {
        planned_ = live_;
        remove_owners(planned_, sizes_.unknown);
        make_schedule(planned_, planned_schedule_);
    }
    return std::optional<std::size_t>{*with_scratch};
}

}  // namespace onnx_runtime_memory::detail
