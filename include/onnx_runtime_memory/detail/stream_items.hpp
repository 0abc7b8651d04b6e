// What plan_arena_concurrent places, and how: the items (each owner, then
// each node's scratch) with the nodes that touch them seen through the
// stream clocks, the conflict test between two items, the two bounds that
// cost little, and the placement by exact conflicts that the cheaper
// placement by windows falls back to.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "../graph.hpp"
#include "../liveness_types.hpp"
#include "../plan_options.hpp"
#include "../plan_types.hpp"
#include "../streams.hpp"
#include "antichain.hpp"
#include "checked.hpp"
#include "config.hpp"
#include "ids.hpp"
#include "sort.hpp"

namespace onnx_runtime_memory::detail {

// Each item's reach in the clocks: `last[s]`, the highest rank on stream s
// of a node touching it; `first[s]`, the least over those nodes of the rank
// of the last node of s strictly before them. Item a may give its bytes to
// item b when last_a <= first_b on every stream: every node touching a
// happens strictly before every node touching b.
struct Reach {
    std::vector<std::uint32_t> last, first;  // [item * K + s]
    static constexpr std::uint32_t always = 0xFFFFFFFFu;
};

[[nodiscard]] inline bool gives_way(const Reach& r, std::size_t K, std::size_t a, std::size_t b) {
    for (std::size_t s = 0; s < K; ++s)
        if (r.last[a * K + s] > r.first[b * K + s]) return false;
    return true;
}

// The items, in node positions (the graph's order, which every stream
// order and wait follows): item i is touched from `first[i]` to `last[i]`,
// and every node before `settled[i]` happens before each node touching it
// (settled <= first). Two items whose [settled, last] windows do not meet
// are ordered, so a plan over those windows is safe however the streams
// interleave; two whose [first, last] spans meet are not, so the most
// bytes over one position is a bound. A graph input there from the start
// (position 0), a kept output to the end; an item no node touches and the
// graph does not keep is never in use (in_use 0, window [0, 0]).
struct StreamItems {
    std::size_t owners = 0;                // items [0, owners): the owners, in owner order; then scratch
    std::vector<std::size_t> bytes;        // aligned
    std::vector<std::size_t> pin;          // the caller's offset, or no_offset: the planner chooses
    std::vector<std::size_t> in_use;       // bytes, or 0 for an item never in use
    std::vector<NodeIndex> scratch_node;   // by item - owners
    std::vector<NodeIndex> settled, first, last;
    Reach reach;
    std::size_t node_bound = 0;   // the most bytes one node touches
    std::size_t order_bound = 0;  // the most bytes whose spans meet at one position
};

// The roots each node reads or writes (an output), in node positions, and
// the roots the graph keeps: what touch_items reads, made once from the
// graph (a re-planner keeps it). O(N + E).
struct NodeTouches {
    std::vector<std::size_t> start{0};  // node m's at [start[m], start[m + 1])
    std::vector<ValueId> root;
    std::vector<std::uint8_t> writes;
    std::vector<ValueId> kept;
};

template <activation_graph G>
void node_touches(const G& g, const Liveness& live, NodeTouches& out) {
    using T = graph_traits<G>;
    const std::size_t N = static_cast<std::size_t>(T::node_count(g)), V = live.value_count();
    out.start.assign(1, 0);
    out.root.clear();
    out.writes.clear();
    out.kept.clear();
    for (std::size_t m = 0; m < N; ++m) {
        for (auto x : T::node_inputs(g, m))
            if (const auto v = to_value_id(x, V)) out.root.push_back(live.roots[*v]), out.writes.push_back(0);
        for (auto x : T::node_outputs(g, m))
            if (const auto v = to_value_id(x, V)) out.root.push_back(live.roots[*v]), out.writes.push_back(1);
        out.start.push_back(out.root.size());
    }
    for (auto x : T::graph_outputs(g))
        if (const auto v = to_value_id(x, V)) out.kept.push_back(live.roots[*v]);
}

// The in-place hints that stay safe on streams. A hint whose output's
// producer n is the last node touching the input's buffer (`touches`, made
// from `unfolded`, the liveness without hints) stays only where every other
// node touching that buffer happens before n: else a node on another
// stream may still read the bytes n overwrites. The other hints go through
// as they are (the sequential rules turn them down: input_read_later, or
// not an input of n). `kept`: the hints kept, in their order. O(N + E +
// hints).
ONNX_RUNTIME_MEMORY_CORE void stream_safe_hints(const Liveness& unfolded, const NodeTouches& touches,
                                                const StreamClocks& clocks, std::span<const InplaceHint> hints,
                                                std::vector<InplaceHint>& kept);

// The working memory of the functions below, kept by a caller that plans
// again (StreamArenaPlanner): a request then allocates only where it needs
// more than any before it.
struct StreamSpace {
    std::vector<std::size_t> stream_start;  // each stream's nodes at stream_node[stream_start[s] ..]
    std::vector<NodeIndex> stream_node, settled_at;
    std::vector<std::uint8_t> written, touched, kept, ends;
    std::vector<std::uint32_t> seen, held;
    SortSpace sort;  // stable sorts without std::stable_sort's buffer
    std::vector<std::size_t> starting, ending, fill, weight;
    std::vector<std::pair<std::size_t, std::size_t>> taken;
    std::vector<std::pair<std::size_t, NodeIndex>> points;
    AntichainSpace flow;
    std::vector<std::uint32_t> by_settled, lifted, active;  // repack_top_by_conflicts'
    std::vector<NodeIndex> lasts;
    std::vector<std::uint8_t> moved;
    std::vector<std::size_t> saved;
};

// O((N + E + n) K). `item_of[root]`: the owner's item, or Reach::always.
ONNX_RUNTIME_MEMORY_CORE void touch_items(const NodeTouches& touches, const StreamClocks& clocks, const std::vector<std::uint32_t>& item_of,
                                          StreamItems& it, StreamSpace& space);

// Whether items a and b may be in use at the same time (neither gives way
// to the other). Two in use whose spans meet are: the last node touching
// one is not before the first touching the other in the graph's order, so
// cannot happen before it. That answers most pairs in two comparisons;
// the others go to the clocks, O(K).
[[nodiscard]] inline bool conflict(const StreamItems& it, std::size_t K, std::size_t a, std::size_t b) {
    if (it.in_use[a] > 0 && it.in_use[b] > 0 && it.first[a] <= it.last[b] && it.first[b] <= it.last[a]) return true;
    return !gives_way(it.reach, K, a, b) && !gives_way(it.reach, K, b, a);
}

// The items [from, to): the owners, the scratch, or all of them.
struct ItemRange {
    std::size_t from = 0, to = 0;
};

// The items of `range` by key(item) ascending, ties by item: sorted in s.
template <class Key>
[[nodiscard]] const std::vector<std::uint32_t>& sorted_items(ItemRange range, SortSpace& s, Key key) {
    const std::size_t n = range.to - range.from;
    s.at.resize(n);
    s.key.resize(n);
    for (std::size_t k = 0; k < n; ++k) {
        s.at[k] = static_cast<std::uint32_t>(range.from + k);
        s.key[k] = key(range.from + k);
    }
    radix_sort(s);
    return s.at;
}

// The pairs of items of `range` whose windows meet, as a list per item (CSR:
// item i's are at[start[i], start[i + 1])): every pair of them that may
// conflict is among them. False, with nothing listed, when there are more
// than `budget` / 2 pairs (counted first, in O(r log r) for r items).
// O(r log r + pairs).
struct WindowPairs {
    std::vector<std::size_t> start;
    std::vector<std::uint32_t> at;
};
ONNX_RUNTIME_MEMORY_CORE bool window_pairs(const StreamItems& it, ItemRange range, std::size_t budget, WindowPairs& out,
                                           StreamSpace& space);

// The lowest offset where `bytes` fit clear of the (offset, end) ranges
// in `taken` (sorted here). O(t log t).
ONNX_RUNTIME_MEMORY_CORE std::size_t lowest_clear(std::vector<std::pair<std::size_t, std::size_t>>& taken, std::size_t bytes);

// The items of `range`, the pinned at their pins, then the others largest
// first (ties by item order), each at the lowest offset clear of the placed
// items it is not ordered with, among those whose windows meet it (`pairs`,
// of that range). `offset`, sized to every item, is written for the range
// only; arena_bytes is the range's end. O(pairs (K + log r)). Returns
// range.to, or the item whose end would pass SIZE_MAX.
ONNX_RUNTIME_MEMORY_CORE std::size_t place_by_conflicts(const StreamItems& it, ItemRange range, std::size_t K,
                                                        const WindowPairs& pairs, std::vector<std::size_t>& offset,
                                                        std::size_t& arena_bytes, StreamSpace& space);

// Where the window pairs of all items pass the budget: the top of a plan
// over the windows placed again by conflicts. A window reaches back past
// the nodes it is ordered after, so near the windows' peak the plan keeps
// apart items that could share bytes. The items highest in `offset` (by
// end, ties by item), as many as their window pairs fit in `budget` / 2
// (each counted in O(log n)), the pinned passed over, are lifted out and
// placed again, largest first (ties by item), at the lowest offset clear of
// the items they are not ordered with; the rest stay. Kept where that
// lowers `arena_bytes` (the plan's end, in and out): true; else `offset` is
// as it came. O(n log n + pairs (K + log r)) for r items lifted.
ONNX_RUNTIME_MEMORY_CORE bool repack_top_by_conflicts(const StreamItems& it, std::size_t K, std::size_t budget,
                                                      std::vector<std::size_t>& offset, std::size_t& arena_bytes,
                                                      WindowPairs& pairs, StreamSpace& space);

// An antichain among `held` found greedily: its first `unordered` items
// (ordered with none of each other), then the others, heaviest first (ties
// by item), each where it is ordered with none taken. Its weight; `held`
// reordered with the antichain first, `unordered` its length. A test of a
// candidate against what is taken spends that many steps of `budget`.
// O(held log held + steps K).
ONNX_RUNTIME_MEMORY_CORE std::size_t greedy_antichain(const StreamItems& it, std::size_t K, std::vector<std::uint32_t>& held,
                                                      std::size_t& unordered, std::size_t& budget);

// The heaviest antichain of the items, found among the items whose windows
// hold one position: no two items of an antichain are ordered, so their
// windows meet pairwise, so all hold one position (intervals on a line):
// the latest start among them, and so the first position from there where
// a window ends (no fewer windows hold it).
// Positions tried by decreasing bytes of windows, while those are above
// `bound` and below `target` (a plan that reaches it needs no better
// bound), within `budget` (n steps a position for the scan of the items):
// at each, a greedy antichain of its items, then the heaviest
// (heaviest_antichain, unless its pairs alone would pass what is left).
// Returns the bound, raised where an antichain was found heavier.
ONNX_RUNTIME_MEMORY_CORE std::size_t antichain_bound(const StreamItems& it, std::size_t K, std::size_t bound,
                                                     std::size_t target, std::size_t budget, StreamSpace& space);

}  // namespace onnx_runtime_memory::detail

#if !defined(ONNX_RUNTIME_MEMORY_SEPARATE_COMPILATION)
#include "stream_passes.hpp"  // the code (else the compiled core's: src.hpp)
#endif
