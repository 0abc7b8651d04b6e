// The offset problem in columns, shared by the placement strategies.
#pragma once

#include <algorithm>
#include <cstddef>
#include <numeric>
#include <span>
#include <vector>

#include "../errors.hpp"
#include "../expected.hpp"
#include "../graph.hpp"
#include "../plan_types.hpp"
#include "checked.hpp"

namespace onnx_runtime_memory::detail {

// The offset problem as the strategies see it: buffers with a time
// interval and a size rounded up to the alignment, by column. value[i] is
// the caller's id of buffer i (its index in a Buffer list, or an owner).
struct Buffers {
    std::vector<ValueId> value;
    std::vector<NodeIndex> def, end;
    std::vector<std::size_t> size;  // rounded up to the alignment

    [[nodiscard]] std::size_t count() const noexcept { return value.size(); }
    [[nodiscard]] bool overlap(std::size_t a, std::size_t b) const noexcept {
        return def[a] <= end[b] && def[b] <= end[a];
    }
};


// Fills b from buffer records in (first, index) order, the order the
// strategies expect (value[i]: the record's index), sizes rounded up to the
// alignment (>= 1); a size that cannot be rounded up, or a total that
// overflows, is PlanError::size_overflow naming the record. Records already
// in that order (a graph's owners) keep it.
[[nodiscard]] inline expected<void, PlanError> make_buffers(std::span<const Buffer> buffers, std::size_t alignment,
                                                            Buffers& b) {
    const std::size_t n = buffers.size();
    b.value.resize(n);
    std::iota(b.value.begin(), b.value.end(), ValueId{0});
    if (!std::is_sorted(buffers.begin(), buffers.end(), [](const Buffer& x, const Buffer& y) { return x.first < y.first; }))
        std::stable_sort(b.value.begin(), b.value.end(),
                         [&](ValueId x, ValueId y) { return buffers[x].first < buffers[y].first; });
    b.def.resize(n);
    b.end.resize(n);
    b.size.resize(n);
    std::size_t total = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const Buffer& r = buffers[b.value[i]];
        b.def[i] = r.first;
        b.end[i] = r.last;
        if (align_up_overflows(r.size, alignment, b.size[i]) || add_overflows(total, b.size[i], total))
            return unexpected(make_plan_error(PlanError::Kind::size_overflow, b.value[i]));
    }
    return {};
}

}  // namespace onnx_runtime_memory::detail
