// The sizes stage: each owner's byte size, asked of the oracle once, in
// owner order, with the overflow policy in one place. Taken by the slot
// planner, the arena planner, the lower bounds and validate.
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "detail/config.hpp"
#include "detail/function_ref.hpp"
#include "errors.hpp"
#include "expected.hpp"
#include "graph.hpp"
#include "liveness.hpp"
#include "plan_types.hpp"
#include "sizing.hpp"

namespace onnx_runtime_memory {

// The owners' sizes for one run.
namespace detail {
struct PartSpan {
    ValueId whole, part;
    std::size_t begin, end;  // the part's window and end in the root's bytes
};
}  // namespace detail

struct OwnerSizes {
    std::vector<std::size_t> bytes;  // by value id: an owner's size (0 when unknown); non-owners untouched
    std::vector<ValueId> unknown;    // owners the oracle did not know, ascending id
    std::size_t total = 0;           // the known sizes' sum; meaningful unless overflow_at is set
    ValueId overflow_at = no_value;  // the owner (in owner order) whose size made the sum overflow
    ValueId outside = no_value;      // with windows: the first view (by id) whose bytes pass its root's end,
    ValueId outside_of = no_value;   // and that root
    ValueId overlap = no_value;      // with parts: two parts of one value that overlap (the first by window)
    ValueId overlap_with = no_value;
    std::vector<detail::PartSpan> part_scratch;  // size_owners' own, kept so that a re-planner sizes without allocating

    [[nodiscard]] bool complete() const noexcept { return unknown.empty(); }
    [[nodiscard]] bool known(ValueId v) const { return !std::binary_search(unknown.begin(), unknown.end(), v); }
    // view_outside_root for the first view whose bytes pass its root's end,
    // and parts_overlap for two parts of one value that overlap.
    [[nodiscard]] expected<void, PlanError> windows_inside() const {
        if (outside == no_value && overlap == no_value) return {};
        PlanError e = outside != no_value ? make_plan_error(PlanError::Kind::view_outside_root, outside)
                                          : make_plan_error(PlanError::Kind::parts_overlap, overlap);
        e.other = outside != no_value ? outside_of : overlap_with;
        return unexpected(e);
    }
    // The one-buffer-per-owner total the planners report, or the error they
    // give: with some size unknown there is no total (deferred wins), with
    // every size known an overflowing total is PlanError::size_overflow.
    // With UnknownSizes::dynamic the known sizes are planned, so their total
    // must fit even when some are unknown. A view outside its root is an
    // error first.
    [[nodiscard]] expected<std::size_t, PlanError> naive_bytes(UnknownSizes policy = UnknownSizes::defer) const {
        if (auto ok = windows_inside(); !ok) return unexpected(ok.error());
        if ((complete() || policy == UnknownSizes::dynamic) && overflow_at != no_value)
            return unexpected(make_plan_error(PlanError::Kind::size_overflow, overflow_at));
        return total;
    }
};

namespace detail {

// An oracle as the core takes it (function_ref.hpp).
using SizeOf = FunctionRef<std::optional<std::size_t>(ValueId)>;

// size_owners with the oracle behind a reference.
ONNX_RUNTIME_MEMORY_CORE void size_owners_by(const Liveness& live, SizeOf oracle, OwnerSizes& sizes);

}  // namespace detail

// Fills `sizes` for this liveness, reusing its memory: the oracle is asked
// exactly once per owner, in owner order, then once per value written in
// place (Liveness::inplace); for a view only when some view has an offset
// (Liveness::windows): then once per view of a planned root and per part,
// in id order, to check that it lies inside its root and that parts of one
// value do not overlap (twice for a view whose root is no owner: a graph
// input, weight or external output, whose size it gives too). O(owners) (O(values) with
// windows), plus O(u log u) for u unknown sizes.
template <size_oracle Oracle>
void size_owners(const Liveness& live, Oracle&& oracle, OwnerSizes& sizes) {
    detail::size_owners_by(live, detail::SizeOf(oracle), sizes);
}

// The naive total with each node's scratch added (PlanOptions::scratch_bytes),
// or bad_scratch for an entry past the last node, or size_overflow.
ONNX_RUNTIME_MEMORY_CORE expected<std::size_t, PlanError> add_scratch(const Liveness& live, std::span<const std::size_t> scratch,
                                                                     std::size_t naive);

// Node n's scratch as a buffer record live at n alone, for each node with
// scratch, appended after the owners'.
ONNX_RUNTIME_MEMORY_CORE void scratch_buffers(std::span<const std::size_t> scratch, std::vector<Buffer>& out);

namespace detail {

// One request sized for planning under the policies: the owners' sizes, the
// naive total (scratch included), and, when some owners are dynamic, the
// liveness without them (what is planned). Deferred when some size is
// unknown and the policy defers: then sizes.unknown lists them.
struct SizedRequest {
    OwnerSizes sizes;
    std::size_t naive_bytes = 0;
    bool deferred = false;
    std::optional<Liveness> without_dynamic;
    [[nodiscard]] const Liveness& planned(const Liveness& all) const { return without_dynamic ? *without_dynamic : all; }
};

ONNX_RUNTIME_MEMORY_CORE expected<SizedRequest, PlanError> size_for_plan(const Liveness& live, SizeOf oracle,
                                                                         UnknownSizes policy,
                                                                         std::span<const std::size_t> scratch);

}  // namespace detail

// The owners as buffer records, in owner order: the graph's problem handed
// to the graph-free offsets layer (and its lower bounds).
ONNX_RUNTIME_MEMORY_CORE void owner_buffers(const Liveness& live, const std::vector<std::size_t>& bytes, std::vector<Buffer>& out);

// Pins the owners' records (from owner_buffers, in owner order) at the
// caller's offsets. A pin on a value that is not an owner of `live` (a view,
// a graph input, a dynamic owner, an id past the graph), or two different
// pins on one owner, is PlanError::bad_pin; a pin at SIZE_MAX (no_offset,
// which a record reads as "not pinned") is pin_too_high. O(pins log n).
ONNX_RUNTIME_MEMORY_CORE expected<void, PlanError> pin_owners(const Liveness& live, std::span<const PinnedOffset> pins,
                                                             std::vector<Buffer>& out);

}  // namespace onnx_runtime_memory

#if !defined(ONNX_RUNTIME_MEMORY_SEPARATE_COMPILATION)
#include "detail/owner_sizes.hpp"  // the code (else the compiled core's: src.hpp)
#endif
