// Lower bounds over buffer records, shared by the graph-free layer
// (offsets.hpp) and the graph one (bounds.hpp). Sums saturate at SIZE_MAX.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "../errors.hpp"
#include "config.hpp"
#include "../expected.hpp"
#include "../graph.hpp"
#include "../plan_types.hpp"
#include "checked.hpp"
#include "sort.hpp"

namespace onnx_runtime_memory::detail {

// Every buffer's interval is first <= last < max_graph_ids, and there are at
// most max_graph_ids buffers: PlanError::bad_buffer names the first that is not.
ONNX_RUNTIME_MEMORY_CORE expected<void, PlanError> check_buffers(std::span<const Buffer> buffers);

// One past the last time any buffer is live (0 for none).
ONNX_RUNTIME_MEMORY_CORE std::size_t time_span(std::span<const Buffer> buffers);

// Replaces each first and last time of n records (reached through
// first(i) and last(i), which return references) by its rank among the
// distinct ones: every meeting, and the order of every two times, is kept,
// so every plan and bound over the records is the same, but a walk over
// positions costs O(n), not O(time span). `times` is working memory.
// O(n log n).
template <class First, class Last>
void rank_times(std::size_t n, First&& first, Last&& last, std::vector<NodeIndex>& times) {
    times.clear();
    times.reserve(2 * n);
    for (std::size_t i = 0; i < n; ++i) {
        times.push_back(first(i));
        times.push_back(last(i));
    }
    std::sort(times.begin(), times.end());
    times.erase(std::unique(times.begin(), times.end()), times.end());
    const auto rank = [&](NodeIndex t) {
        return static_cast<NodeIndex>(std::lower_bound(times.begin(), times.end(), t) - times.begin());
    };
    for (std::size_t i = 0; i < n; ++i) {
        first(i) = rank(first(i));
        last(i) = rank(last(i));
    }
}

// Whether times this sparse are worth ranking: more than four positions per
// record.
[[nodiscard]] constexpr bool sparse_times(std::size_t span, std::size_t n) noexcept { return span > 4 * n; }

// The records with ranked times when theirs are sparse (into `ranked`),
// else the records themselves: what the graph-free functions that walk
// positions (the slot plan, the lower bounds) read, so that they are
// O(n log n) whatever the time stamps.
ONNX_RUNTIME_MEMORY_CORE std::span<const Buffer> dense_times(std::span<const Buffer> buffers, std::vector<Buffer>& ranked);

// The least arena a placement at aligned offsets needs. At one position
// the live buffers lie one above another, each taking its size rounded up
// to the alignment except the one on top: the arena ends where its bytes
// end, so its slack (rounded - size) is not needed. `rounded` is the
// largest rounded total at one position (what the strategies' aligned
// arenas are held to); `bytes` that total less the least slack some
// position at it can put on top: the smallest w such that at one of those
// positions no live buffer has more slack than w. Positions below the
// largest total are short of it by a whole alignment, more than any slack.
struct ArenaBound {
    std::size_t rounded = 0, bytes = 0;
};

// On columns: buffer i lives over [first[i], last[i]] and takes rounded[i]
// bytes, slack[i] of them past its end. O(n + P), times log(largest slack)
// when some buffer has slack. `born` and `dying` are working memory a
// caller may keep (no allocation once they are big enough).
ONNX_RUNTIME_MEMORY_CORE ArenaBound arena_bound(std::span<const NodeIndex> first, std::span<const NodeIndex> last,
                                            std::span<const std::size_t> rounded, std::span<const std::size_t> slack,
                                            std::vector<std::size_t>& born, std::vector<std::size_t>& dying);

// On records, sizes rounded up to `alignment`. O(n + T) (times log alignment).
ONNX_RUNTIME_MEMORY_CORE ArenaBound arena_bound(std::span<const Buffer> buffers, std::size_t alignment);

// Buffers added largest first (`order`: by decreasing size) to a max
// segment tree over times: most[k] is the most buffers at least as large as
// buffer order[k] live at one time (its whole size group added). O(n log n + T).
ONNX_RUNTIME_MEMORY_CORE void most_live_by_size(std::span<const Buffer> buffers, const std::vector<std::uint32_t>& order,
                              std::vector<std::uint32_t>& most_at);

// The buffers by decreasing size (ties in any order would do).
ONNX_RUNTIME_MEMORY_CORE std::vector<std::uint32_t> by_decreasing_size(std::span<const Buffer> buffers);

// The slot bound: the k-th slot must hold the largest k-th live size over
// all times; summed over k, that equals the integral over thresholds t of
// the most buffers of size >= t live at one time: after each group of equal
// size s, add (s - next smaller size) x that count. O(n log n + T).
ONNX_RUNTIME_MEMORY_CORE std::size_t slot_bound(std::span<const Buffer> buffers);

}  // namespace onnx_runtime_memory::detail

#if !defined(ONNX_RUNTIME_MEMORY_SEPARATE_COMPILATION)
#include "bound_sweeps.hpp"  // the code (else the compiled core's: src.hpp)
#endif
