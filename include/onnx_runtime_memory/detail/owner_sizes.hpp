// The sizes stage's code: the code behind sizes.hpp's declarations (part of
// the compiled core, config.hpp).
#pragma once

#include "config.hpp"
#if defined(ONNX_RUNTIME_MEMORY_SEPARATE_COMPILATION) && !defined(ONNX_RUNTIME_MEMORY_SOURCE)
#error "detail/owner_sizes.hpp is the compiled core's: include sizes.hpp (src.hpp defines the core once)"
#endif

#include <algorithm>
#include <cstddef>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "../sizes.hpp"
#include "checked.hpp"

namespace onnx_runtime_memory {

namespace detail {

ONNX_RUNTIME_MEMORY_CORE void size_owners_by(const Liveness& live, SizeOf oracle, OwnerSizes& sizes) {
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
        if (sizes.overflow_at == no_value && add_overflows(sizes.total, *bytes, sizes.total)) sizes.overflow_at = v;
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
        if (sizes.overflow_at == no_value && add_overflows(sizes.total, *bytes, sizes.total)) sizes.overflow_at = v;
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
        if (add_overflows(live.windows[v], *bytes, end)) end = size_max;
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

ONNX_RUNTIME_MEMORY_CORE expected<SizedRequest, PlanError> size_for_plan(const Liveness& live, SizeOf oracle,
                                                                         UnknownSizes policy,
                                                                         std::span<const std::size_t> scratch) {
    SizedRequest r;
    size_owners_by(live, oracle, r.sizes);
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

// The naive total with each node's scratch added (PlanOptions::scratch_bytes),
// or bad_scratch for an entry past the last node, or size_overflow.
ONNX_RUNTIME_MEMORY_CORE expected<std::size_t, PlanError> add_scratch(const Liveness& live, std::span<const std::size_t> scratch,
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
ONNX_RUNTIME_MEMORY_CORE void scratch_buffers(std::span<const std::size_t> scratch, std::vector<Buffer>& out) {
    for (std::size_t n = 0; n < scratch.size(); ++n)
        if (scratch[n] > 0) out.push_back(Buffer{scratch[n], static_cast<NodeIndex>(n), static_cast<NodeIndex>(n)});
}

// The owners as buffer records, in owner order: the graph's problem handed
// to the graph-free offsets layer (and its lower bounds).
ONNX_RUNTIME_MEMORY_CORE void owner_buffers(const Liveness& live, const std::vector<std::size_t>& bytes, std::vector<Buffer>& out) {
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
ONNX_RUNTIME_MEMORY_CORE expected<void, PlanError> pin_owners(const Liveness& live, std::span<const PinnedOffset> pins,
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
