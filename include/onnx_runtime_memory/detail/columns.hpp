// The columns of an offset problem, made from its records: the code behind
// buffers.hpp's declarations (part of the compiled core, config.hpp).
#pragma once

#include "config.hpp"
#if defined(ONNX_RUNTIME_MEMORY_SEPARATE_COMPILATION) && !defined(ONNX_RUNTIME_MEMORY_SOURCE)
#error "detail/columns.hpp is the compiled core's: include detail/buffers.hpp (src.hpp defines the core once)"
#endif

#include <algorithm>
#include <cstddef>
#include <numeric>
#include <span>

#include "buffers.hpp"

namespace onnx_runtime_memory::detail {

ONNX_RUNTIME_MEMORY_CORE void compress_times(Buffers& b) {
    const std::size_t n = b.count();
    if (!sparse_times(b.positions(), n)) return;
    rank_times(n, [&](std::size_t i) -> NodeIndex& { return b.def[i]; }, [&](std::size_t i) -> NodeIndex& { return b.end[i]; },
               b.times);
}

ONNX_RUNTIME_MEMORY_CORE expected<void, PlanError> check_pins(Buffers& b) {
    auto& [pins, offsets, record, overlap] = b.pin_check;
    pins.clear();
    offsets.clear();
    record.clear();
    for (std::size_t i = 0; i < b.count(); ++i)
        if (b.is_pinned(i)) {
            pins.push_back(Buffer{b.size[i], b.def[i], b.end[i]});
            offsets.push_back(b.pin[i]);
            record.push_back(b.value[i]);
        }
    const auto o = first_overlap(pins, offsets, overlap);
    if (!o) return {};
    PlanError e = make_plan_error(PlanError::Kind::pins_overlap, std::min(record[o->a], record[o->b]), o->at);
    e.other = std::max(record[o->a], record[o->b]);
    return unexpected(e);
}

ONNX_RUNTIME_MEMORY_CORE expected<void, PlanError> make_buffers(std::span<const Buffer> buffers, std::size_t alignment,
                                                                Buffers& b) {
    const std::size_t n = buffers.size();
    b.value.resize(n);
    std::iota(b.value.begin(), b.value.end(), ValueId{0});
    if (!std::is_sorted(buffers.begin(), buffers.end(), [](const Buffer& x, const Buffer& y) { return x.first < y.first; }))
        sort_by(b.value, [&](ValueId v) { return buffers[v].first; }, [](ValueId) { return std::uint64_t{0}; }, b.sort);
    b.def.resize(n);
    b.end.resize(n);
    b.size.resize(n);
    b.slack.resize(n);
    b.length.resize(n);
    b.pin.resize(n);
    b.pinned = 0;
    b.pinned_top = 0;
    b.pinned_end = 0;
    std::size_t total = 0, highest_pin = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const Buffer& r = buffers[b.value[i]];
        b.def[i] = r.first;
        b.end[i] = r.last;
        b.length[i] = std::size_t{r.last} - r.first + 1;
        b.pin[i] = r.pinned;
        if (align_up_overflows(r.size, alignment, b.size[i]) || add_overflows(total, b.size[i], total))
            return unexpected(make_plan_error(PlanError::Kind::size_overflow, b.value[i]));
        b.slack[i] = b.size[i] - r.size;
        if (r.pinned == no_offset) continue;
        std::size_t top = 0;
        if (r.pinned % alignment != 0) return unexpected(make_plan_error(PlanError::Kind::pin_misaligned, b.value[i]));
        if (add_overflows(r.pinned, b.size[i], top))
            return unexpected(make_plan_error(PlanError::Kind::pin_too_high, b.value[i]));
        ++b.pinned;
        if (top > b.pinned_top) highest_pin = i;
        b.pinned_top = std::max(b.pinned_top, top);
        b.pinned_end = std::max(b.pinned_end, r.pinned + r.size);
    }
    // Every strategy's arena ends at most at the highest pin plus the total:
    // it must fit in a size_t, or a buffer placed above the pins would wrap.
    if (std::size_t most = 0; b.pinned > 0 && add_overflows(b.pinned_top, total, most))
        return unexpected(make_plan_error(PlanError::Kind::pin_too_high, b.value[highest_pin]));
    if (b.pinned > 0) {  // on the caller's times, before they are ranked: an error names one of them
        if (auto ok = check_pins(b); !ok) return ok;
    }
    compress_times(b);
    return {};
}

}  // namespace onnx_runtime_memory::detail
