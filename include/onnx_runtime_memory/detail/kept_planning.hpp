// What the re-planners (ActivationPlanner, ArenaPlanner) keep between
// requests.
#pragma once

#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

#include "../errors.hpp"
#include "../expected.hpp"
#include "../liveness.hpp"
#include "../plan_types.hpp"
#include "../sizes.hpp"
#include "../view_map.hpp"
#include "config.hpp"
#include "slot_walk.hpp"

namespace onnx_runtime_memory::detail {

// Moves part `part`'s window in a liveness made with `views` (before the
// move): its edge's offset becomes `offset`, and the windows of `part` and
// of every view through it shift with it, as resolve_roots would sum them.
// view_outside_root (naming the first such value, other: the root) when a
// window would pass SIZE_MAX; then nothing changes. O(V + the root's views
// times their chains' depth); no allocation.
ONNX_RUNTIME_MEMORY_CORE expected<void, PlanError> move_window(Liveness& live, const ViewMap& views, ValueId part,
                                                              std::size_t offset);

// What both re-planners keep between requests: the liveness (checked once;
// one of the wrong shape is kept out and every plan returns its error), the
// retire schedule, the scratch, the policy for unknown sizes, and the sizes'
// memory. Under UnknownSizes::dynamic, a request with some size unknown
// plans the liveness without those owners (planned(): a kept copy, so no
// allocation once it has grown), as plan_activations and plan_arena do.
class KeptPlanning {
public:
    // Every owner, dynamic ones included.
    [[nodiscard]] const Liveness& liveness() const noexcept { return live_; }
    // Owners the last request's oracle did not know, ascending: deferred, or
    // (UnknownSizes::dynamic) left to run time, as the plan's dynamic_values.
    [[nodiscard]] const std::vector<ValueId>& unknown_sizes() const noexcept { return sizes_.unknown; }
    // Sizes (by value id) of the last plan's owners.
    [[nodiscard]] const std::vector<std::size_t>& sizes() const noexcept { return sizes_.bytes; }

    // Moves part `part` to `offset` in its whole for the requests from now
    // on (detail::move_window; `views`: the map the liveness was made with,
    // before the move).
    [[nodiscard]] expected<void, PlanError> move_window(const ViewMap& views, ValueId part, std::size_t offset) {
        if (error_) return unexpected(*error_);
        return detail::move_window(live_, views, part, offset);
    }

protected:
    KeptPlanning(Liveness live, std::vector<std::size_t> scratch, UnknownSizes policy);

    // This request's sizes: the naive total (scratch included), nullopt when
    // some size is unknown and the policy defers, or the error; the order of
    // the checks is plan_activations' (size_for_plan).
    [[nodiscard]] expected<std::optional<std::size_t>, PlanError> size_request(SizeOf oracle);
    // What this request plans: the liveness, without its dynamic owners.
    [[nodiscard]] const Liveness& planned() const noexcept { return dynamic_ ? planned_ : live_; }
    [[nodiscard]] const Schedule& planned_schedule() const noexcept { return dynamic_ ? planned_schedule_ : schedule_; }
    // This request's dynamic values (empty unless some are).
    void report_dynamic(std::vector<ValueId>& out) const {
        out.clear();
        if (dynamic_) out.assign(sizes_.unknown.begin(), sizes_.unknown.end());
    }

    Liveness live_;
    std::vector<std::size_t> scratch_;  // bytes by node position (PlanOptions::scratch_bytes)
    UnknownSizes policy_ = UnknownSizes::defer;
    Schedule schedule_;
    OwnerSizes sizes_;
    bool dynamic_ = false;  // the last request left some owners to run time
    Liveness planned_;      // then: the liveness without them
    Schedule planned_schedule_;
    std::optional<PlanError> error_;
};

}  // namespace onnx_runtime_memory::detail

#if !defined(ONNX_RUNTIME_MEMORY_SEPARATE_COMPILATION)
#include "kept_sizes.hpp"  // the code (else the compiled core's: src.hpp)
#endif
