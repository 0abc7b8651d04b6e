// The liveness types: each owner's live interval, the Liveness a graph's
// analysis gives (compute_liveness, liveness.hpp), and the checks and edits
// of a liveness handed back in.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "detail/config.hpp"
#include "errors.hpp"
#include "expected.hpp"
#include "graph.hpp"

namespace onnx_runtime_memory {

// The live interval of a buffer owner, in node positions, inclusive at both
// ends: the owner is written at `def` and last read at `use_end`.
struct Interval {
    NodeIndex def = no_node;
    NodeIndex use_end = no_node;

    // Touching at one node counts: that node reads one and writes the other.
    [[nodiscard]] constexpr bool overlaps(const Interval& o) const noexcept {
        return def <= o.use_end && o.def <= use_end;
    }
    friend constexpr bool operator==(const Interval&, const Interval&) = default;
};

// Result of liveness analysis over a graph.
struct Liveness {
    // intervals[v] for every value id; {no_node, no_node} for a non-owner.
    std::vector<Interval> intervals;
    // Every owner, in (def, id) order.
    std::vector<ValueId> owners;
    // Every owner in the order the slot planner allocates them: owners no
    // node produces (included graph inputs) by id, then each node's owner
    // outputs in output order. Sorted by def, like `owners`.
    std::vector<ValueId> allocation_order;
    // roots[v]: the value v's chain of views ends at (v itself when v is not
    // a view). A view is backed by its root's buffer when the root is an owner.
    std::vector<ValueId> roots;
    // Position of the last node (0 for an empty graph).
    NodeIndex last_position = 0;
    // Outputs written in place into their root's buffer (PlanOptions::inplace
    // hints taken), ascending: no owners, sized into their root's buffer.
    std::vector<ValueId> inplace;
    // windows[v]: where v's bytes start in its root's, the offsets of its
    // view chain added (ViewMap::insert's offset); empty when every view
    // starts at its source's first byte.
    std::vector<std::size_t> windows;
    // The parts (ViewMap::insert_part) as (part, the value it is a part of),
    // ascending by part: each owner's interval starts at its first part's
    // producer, and parts of one value must not overlap.
    std::vector<std::pair<ValueId, ValueId>> parts;

    [[nodiscard]] std::size_t value_count() const noexcept { return intervals.size(); }
    [[nodiscard]] bool is_owner(ValueId v) const noexcept {
        return v < intervals.size() && intervals[v].def != no_node;
    }
    // Where v's bytes start in its root's.
    [[nodiscard]] std::size_t window(ValueId v) const noexcept { return v < windows.size() ? windows[v] : 0; }
    [[nodiscard]] std::optional<Interval> interval(ValueId v) const noexcept {
        if (!is_owner(v)) return std::nullopt;
        return intervals[v];
    }

    friend bool operator==(const Liveness&, const Liveness&) = default;
};

// Checks that a Liveness handed back in (kept across runs, edited, or built
// by hand) has the shape compute_liveness gives one, so that planning from it
// cannot read out of bounds: matching table sizes within max_graph_ids, roots
// in range and their own roots (at window 0), each owner's interval def <= use_end <=
// last_position, `owners` exactly the owners in strict (def, id) order, and
// `allocation_order` a permutation of them by def. It does not prove the
// intervals right for some graph: validate does that. O(V).
ONNX_RUNTIME_MEMORY_CORE expected<void, PlanError> check_liveness(const Liveness& live);

// Takes the owners in `gone` out of `live`, in place (a re-planner keeps
// its memory): no longer owners, their views with them. O(V).
inline void remove_owners(Liveness& live, const std::vector<ValueId>& gone) {
    if (gone.empty()) return;
    for (ValueId v : gone) live.intervals[v] = Interval{};
    const auto out = [&](ValueId v) { return !live.is_owner(v); };
    std::erase_if(live.owners, out);
    std::erase_if(live.allocation_order, out);
}

// The liveness with the owners in `gone` (ascending ids) taken out: no longer
// owners, their views with them. How dynamic values leave the plan. O(V).
[[nodiscard]] inline Liveness without_owners(Liveness live, const std::vector<ValueId>& gone) {
    remove_owners(live, gone);
    return live;
}

}  // namespace onnx_runtime_memory

#if !defined(ONNX_RUNTIME_MEMORY_SEPARATE_COMPILATION)
#include "detail/liveness_shape.hpp"  // the code (else the compiled core's: src.hpp)
#endif
