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

#include "detail/checked.hpp"
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
    sizes.bytes.resize(live.value_count());
    sizes.unknown.clear();
    sizes.total = 0;
    sizes.overflow_at = no_value;
    for (ValueId v : live.owners) {
        const std::optional<std::size_t> bytes = oracle(v);
        if (!bytes) {
            sizes.bytes[v] = 0;
            sizes.unknown.push_back(v);
            continue;
        }
        sizes.bytes[v] = *bytes;
        if (sizes.overflow_at == no_value && detail::add_overflows(sizes.total, *bytes, sizes.total)) sizes.overflow_at = v;
    }
    std::sort(sizes.unknown.begin(), sizes.unknown.end());
    // A value written in place counts in the total (one buffer each) and
    // makes its root's buffer as large as it: unknown, the root is unknown.
    const std::size_t unknown_owners = sizes.unknown.size();
    for (ValueId v : live.inplace) {
        const ValueId r = live.roots[v];
        if (!live.is_owner(r)) continue;
        const std::optional<std::size_t> bytes = oracle(v);
        const auto end = sizes.unknown.begin() + static_cast<std::ptrdiff_t>(unknown_owners);
        if (!bytes || std::binary_search(sizes.unknown.begin(), end, r)) {
            sizes.unknown.push_back(r);
            continue;
        }
        sizes.bytes[r] = std::max(sizes.bytes[r], *bytes);
        if (sizes.overflow_at == no_value && detail::add_overflows(sizes.total, *bytes, sizes.total)) sizes.overflow_at = v;
    }
    if (sizes.unknown.size() != unknown_owners) {
        std::sort(sizes.unknown.begin(), sizes.unknown.end());
        sizes.unknown.erase(std::unique(sizes.unknown.begin(), sizes.unknown.end()), sizes.unknown.end());
        for (ValueId r : sizes.unknown) sizes.bytes[r] = 0;  // unknown stays 0, whatever was folded in
    }
    sizes.outside = sizes.outside_of = sizes.overlap = sizes.overlap_with = no_value;
    sizes.part_scratch.clear();
    auto part = live.parts.begin();
    for (std::size_t v = 0; v < live.windows.size() && sizes.outside == no_value; ++v) {
        const ValueId r = live.roots[v];
        if (r == v) continue;
        while (part != live.parts.end() && part->first < v) ++part;
        const bool is_part = part != live.parts.end() && part->first == v;
        // A view must lie inside its root: a planned root of known size (a value written in place sized
        // its root; an unknown size is checked when it is known), or one the caller or executor holds
        // (a graph input, a weight, an external output: the KV cache), of the size the oracle gives.
        // Parts must not overlap, whatever their root.
        const bool planned_root = live.is_owner(r) && sizes.known(r);
        const bool in_root = (planned_root || !live.is_owner(r)) &&
                             !std::binary_search(live.inplace.begin(), live.inplace.end(), static_cast<ValueId>(v));
        if (!in_root && !is_part) continue;
        const std::optional<std::size_t> bytes = oracle(static_cast<ValueId>(v));
        if (!bytes) continue;
        std::size_t end = 0;
        if (detail::add_overflows(live.windows[v], *bytes, end)) end = detail::size_max;
        const std::optional<std::size_t> root_bytes = !in_root ? std::nullopt
                                                      : planned_root ? std::optional(sizes.bytes[r])
                                                                     : oracle(r);
        if (root_bytes && end > *root_bytes) {
            sizes.outside = static_cast<ValueId>(v);
            sizes.outside_of = r;
        }
        if (is_part) sizes.part_scratch.push_back({part->second, part->first, live.windows[v], end});
    }
    // Parts of one value side by side, by window: each must end before the next begins.
    auto& p = sizes.part_scratch;
    std::sort(p.begin(), p.end(), [](const auto& a, const auto& b) {
        return a.whole != b.whole ? a.whole < b.whole : a.begin != b.begin ? a.begin < b.begin : a.part < b.part;
    });
    std::size_t reach = 0;  // the furthest end of the value's parts so far, and whose
    ValueId reached_by = no_value;
    for (std::size_t k = 0; k < p.size() && sizes.overlap == no_value; ++k) {
        if (k == 0 || p[k].whole != p[k - 1].whole) reach = 0;
        if (p[k].end > p[k].begin && reach > p[k].begin) {  // (an empty part overlaps nothing)
            sizes.overlap = reached_by;
            sizes.overlap_with = p[k].part;
        }
        if (p[k].end > reach) {
            reach = p[k].end;
            reached_by = p[k].part;
        }
    }
}

// The naive total with each node's scratch added (PlanOptions::scratch_bytes),
// or bad_scratch for an entry past the last node, or size_overflow.
[[nodiscard]] inline expected<std::size_t, PlanError> add_scratch(const Liveness& live, std::span<const std::size_t> scratch,
                                                                  std::size_t naive) {
    for (std::size_t n = 0; n < scratch.size(); ++n) {
        if (scratch[n] == 0) continue;
        if (n > live.last_position)
            return unexpected(make_plan_error(PlanError::Kind::bad_scratch, no_value, static_cast<NodeIndex>(n)));
        if (detail::add_overflows(naive, scratch[n], naive))
            return unexpected(make_plan_error(PlanError::Kind::size_overflow, no_value, static_cast<NodeIndex>(n)));
    }
    return naive;
}

// Node n's scratch as a buffer record live at n alone, for each node with
// scratch, appended after the owners'.
inline void scratch_buffers(std::span<const std::size_t> scratch, std::vector<Buffer>& out) {
    for (std::size_t n = 0; n < scratch.size(); ++n)
        if (scratch[n] > 0) out.push_back(Buffer{scratch[n], static_cast<NodeIndex>(n), static_cast<NodeIndex>(n)});
}

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

template <class Oracle>
[[nodiscard]] expected<SizedRequest, PlanError> size_for_plan(const Liveness& live, Oracle& oracle, UnknownSizes policy,
                                                              std::span<const std::size_t> scratch) {
    SizedRequest r;
    size_owners(live, oracle, r.sizes);
    auto naive = r.sizes.naive_bytes(policy);
    if (!naive) return unexpected(naive.error());
    r.deferred = !r.sizes.complete() && policy == UnknownSizes::defer;
    if (r.deferred) return r;  // no total, so no overflow of one: as the re-planners (KeptPlanning) decide
    auto with_scratch = add_scratch(live, scratch, *naive);
    if (!with_scratch) return unexpected(with_scratch.error());
    r.naive_bytes = *with_scratch;
    if (!r.sizes.complete()) r.without_dynamic = without_owners(live, r.sizes.unknown);
    return r;
}

}  // namespace detail

// The owners as buffer records, in owner order: the graph's problem handed
// to the graph-free offsets layer (and its lower bounds).
inline void owner_buffers(const Liveness& live, const std::vector<std::size_t>& bytes, std::vector<Buffer>& out) {
    out.resize(live.owners.size());
    for (std::size_t i = 0; i < live.owners.size(); ++i) {
        const ValueId v = live.owners[i];
        out[i] = Buffer{bytes[v], live.intervals[v].def, live.intervals[v].use_end};
    }
}

// Pins the owners' records (from owner_buffers, in owner order) at the
// caller's offsets. A pin on a value that is not an owner of `live` (a view,
// a graph input, a dynamic owner, an id past the graph), or two different
// pins on one owner, is PlanError::bad_pin; a pin at SIZE_MAX (no_offset,
// which a record reads as "not pinned") is pin_too_high. O(pins log n).
[[nodiscard]] inline expected<void, PlanError> pin_owners(const Liveness& live, std::span<const PinnedOffset> pins,
                                                          std::vector<Buffer>& out) {
    for (const PinnedOffset& p : pins) {
        if (!live.is_owner(p.value)) return unexpected(make_plan_error(PlanError::Kind::bad_pin, p.value));
        if (p.offset == no_offset) return unexpected(make_plan_error(PlanError::Kind::pin_too_high, p.value));
        const auto at = [&](ValueId v) { return std::pair{live.intervals[v].def, v}; };
        const auto i = static_cast<std::size_t>(
            std::lower_bound(live.owners.begin(), live.owners.end(), p.value,
                             [&](ValueId a, ValueId b) { return at(a) < at(b); }) - live.owners.begin());
        if (i >= out.size() || live.owners[i] != p.value || (out[i].pinned != no_offset && out[i].pinned != p.offset))
            return unexpected(make_plan_error(PlanError::Kind::bad_pin, p.value));
        out[i].pinned = p.offset;
    }
    return {};
}

}  // namespace onnx_runtime_memory
