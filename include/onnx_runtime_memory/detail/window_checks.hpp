// validate's checks of views at an offset and of parts: the code behind
// validate_windows.hpp's declarations (part of the compiled core,
// config.hpp).
#pragma once

#include "config.hpp"
#if defined(ONNX_RUNTIME_MEMORY_SEPARATE_COMPILATION) && !defined(ONNX_RUNTIME_MEMORY_SOURCE)
#error "detail/window_checks.hpp is the compiled core's: include validate_windows.hpp (src.hpp defines the core once)"
#endif

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "../validate_windows.hpp"

namespace onnx_runtime_memory::detail {

// Where each value's bytes start in its root's (SIZE_MAX where the offsets'
// sum overflows), by validate's own walk of the view map (the planner's
// is resolve_roots); empty when no edge has an offset. Each value is
// walked once. The map is acyclic: compute_liveness accepted it.
ONNX_RUNTIME_MEMORY_CORE std::vector<std::size_t> view_windows(const ViewMap& views, std::size_t value_count) {
    std::vector<std::size_t> at;
    if (!views.has_offsets()) return at;
    at.assign(value_count, 0);
    std::vector<std::uint8_t> done(value_count, 0);
    std::vector<ValueId> chain;
    for (std::size_t v = 0; v < value_count; ++v) {
        for (auto x = static_cast<ValueId>(v); !done[x];) {
            chain.push_back(x);
            const auto source = views.source_of(x);
            if (!source) break;
            x = *source;
        }
        for (; !chain.empty(); chain.pop_back()) {  // from the root (or a value done) down to v
            const ValueId x = chain.back();
            if (const auto source = views.source_of(x))
                at[x] = views.offset_of(x) > SIZE_MAX - at[*source] ? SIZE_MAX : views.offset_of(x) + at[*source];
            done[x] = true;
        }
    }
    return at;
}

// With windows: each view of a planned root of known size, or of a root the
// caller holds (graph input, weight, external output) whose size the oracle
// knows, whose own size the oracle knows, lies inside the root's bytes
// (ViewOutsideRoot: `size` is where it ends, SIZE_MAX past it, `capacity`
// the root's size).
// With parts: no two parts of one value overlap (PartsOverlap), by a sort
// of the parts of known size on (whole, start).
ONNX_RUNTIME_MEMORY_CORE expected<void, ValidateError> check_windows(const ViewMap& views,
                                                                   const std::vector<std::size_t>& windows,
                                                                   const Liveness& live, const OwnerSizes& sizes,
                                                                   SizeOf oracle) {
    struct Piece {
        ValueId whole, part;
        std::size_t start, end;
    };
    if (windows.empty()) return {};
    std::vector<Piece> pieces;
    views.for_each([&](ValueId v, ValueId whole) {
        if (!views.is_part(v) || v >= windows.size()) return;
        if (const std::optional<std::size_t> bytes = oracle(v); bytes && *bytes > 0)
            pieces.push_back({whole, v, windows[v], *bytes > SIZE_MAX - windows[v] ? SIZE_MAX : windows[v] + *bytes});
    });
    std::sort(pieces.begin(), pieces.end(), [](const Piece& a, const Piece& b) {
        return a.whole != b.whole ? a.whole < b.whole : a.start != b.start ? a.start < b.start : a.part < b.part;
    });
    for (std::size_t k = 0, widest = 0; k < pieces.size(); ++k) {  // widest: the piece reaching furthest so far
        if (k == 0 || pieces[k].whole != pieces[k - 1].whole) widest = k;
        else if (pieces[widest].end > pieces[k].start) {
            ValidateError err;
            err.kind = ValidateError::Kind::parts_overlap;
            err.value = pieces[widest].part;
            err.other = pieces[k].part;
            return unexpected(err);
        }
        if (pieces[k].end > pieces[widest].end) widest = k;
    }
    for (std::size_t v = 0; v < windows.size(); ++v) {
        const ValueId r = live.roots[v];
        if (r == v || (live.is_owner(r) && !sizes.known(r)) || std::binary_search(live.inplace.begin(), live.inplace.end(), v))
            continue;
        const std::optional<std::size_t> bytes = oracle(static_cast<ValueId>(v));
        // The root's size: planned, or (a graph input, weight or external output) the oracle's.
        const std::optional<std::size_t> root_bytes = live.is_owner(r) ? std::optional(sizes.bytes[r]) : oracle(r);
        if (!bytes || !root_bytes) continue;
        const std::size_t end = *bytes > SIZE_MAX - windows[v] ? SIZE_MAX : windows[v] + *bytes;
        if (end > *root_bytes) {
            ValidateError err;
            err.kind = ValidateError::Kind::view_outside_root;
            err.value = static_cast<ValueId>(v);
            err.other = r;
            err.size = end;
            err.capacity = *root_bytes;
            return unexpected(err);
        }
    }
    return {};
}

// Each view of a planned root sits at the root's offset plus its window,
// and in the root's space (`same_space(view, root)`): ViewOffsetMismatch.
ONNX_RUNTIME_MEMORY_CORE expected<void, ValidateError> check_view_offsets(const Liveness& live,
                                                                        const std::vector<std::size_t>& windows,
                                                                        FunctionRef<std::size_t(ValueId)> offset_of,
                                                                        FunctionRef<bool(ValueId, ValueId)> same_space) {
    for (std::size_t i = 0; i < live.value_count(); ++i) {
        const auto v = static_cast<ValueId>(i);
        const ValueId r = live.roots[v];
        if (r == v || !live.is_owner(r)) continue;
        const std::size_t window = windows.empty() ? 0 : windows[v];
        const std::size_t at = offset_of(r);
        if (at == no_offset || at > SIZE_MAX - window || offset_of(v) != at + window || !same_space(v, r)) {
            ValidateError err;
            err.kind = ValidateError::Kind::view_offset_mismatch;
            err.value = v;
            err.other = r;
            return unexpected(err);
        }
    }
    return {};
}

}  // namespace onnx_runtime_memory::detail
