// The concurrent layer's passes over items: the code behind
// stream_items.hpp's declarations (part of the compiled core, config.hpp).
#pragma once

#include "config.hpp"
#if defined(ONNX_RUNTIME_MEMORY_SEPARATE_COMPILATION) && !defined(ONNX_RUNTIME_MEMORY_SOURCE)
#error "detail/stream_passes.hpp is the compiled core's: include detail/stream_items.hpp (src.hpp defines the core once)"
#endif

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "stream_items.hpp"

namespace onnx_runtime_memory::detail {

ONNX_RUNTIME_MEMORY_CORE void touch_items(const NodeTouches& touches, const StreamClocks& clocks, const std::vector<std::uint32_t>& item_of,
                                          StreamItems& it, StreamSpace& space) {
    const std::size_t K = clocks.streams, N = clocks.rank.size(), n = it.bytes.size();
    // settled_at[node]: the first position not before it, over its stream's and the others' next nodes
    // (the node of rank r on stream s is stream_node[stream_start[s] + r - 1]).
    auto& start = space.stream_start;
    start.assign(K + 1, 0);
    for (std::size_t m = 0; m < N; ++m) ++start[clocks.stream[m] + 1];
    for (std::size_t s = 0; s < K; ++s) start[s + 1] += start[s];
    space.stream_node.resize(N);
    for (std::size_t m = 0; m < N; ++m) space.stream_node[start[clocks.stream[m]] + clocks.rank[m] - 1] = static_cast<NodeIndex>(m);
    auto& settled_at = space.settled_at;
    settled_at.resize(N);
    for (std::size_t m = 0; m < N; ++m) {
        NodeIndex at = static_cast<NodeIndex>(m);
        for (std::size_t s = 0; s < K; ++s)
            if (const std::uint32_t done = clocks.row(m)[s]; done < start[s + 1] - start[s])
                at = std::min(at, space.stream_node[start[s] + done]);
        settled_at[m] = at;
    }
    it.node_bound = it.order_bound = 0;
    it.pin.assign(n, no_offset);  // the caller pins afterwards
    it.reach.last.assign(n * K, 0);
    it.reach.first.assign(n * K, Reach::always);
    it.settled.assign(n, static_cast<NodeIndex>(N));
    it.first.assign(n, static_cast<NodeIndex>(N));
    it.last.assign(n, 0);
    auto &written = space.written, &touched = space.touched, &kept = space.kept;
    written.assign(n, 0);
    touched.assign(n, 0);
    kept.assign(n, 0);
    auto& seen = space.seen;  // the node an item was last counted at
    seen.assign(n, Reach::always);
    const auto touch = [&](std::size_t item, std::size_t m, std::size_t& at_node) {
        const std::uint32_t* row = clocks.row(m);
        auto* last = it.reach.last.data() + item * K;
        auto* first = it.reach.first.data() + item * K;
        last[clocks.stream[m]] = std::max(last[clocks.stream[m]], clocks.rank[m]);
        for (std::size_t s = 0; s < K; ++s) first[s] = std::min(first[s], row[s]);
        it.settled[item] = std::min(it.settled[item], settled_at[m]);
        it.first[item] = std::min(it.first[item], static_cast<NodeIndex>(m));
        it.last[item] = static_cast<NodeIndex>(m);
        touched[item] = 1;
        if (seen[item] != m) {
            seen[item] = static_cast<std::uint32_t>(m);
            at_node = saturating_add(at_node, it.bytes[item]);
        }
    };
    for (std::size_t m = 0, k = it.owners; m < N; ++m) {
        std::size_t at_node = 0;
        for (std::size_t e = touches.start[m]; e < touches.start[m + 1]; ++e)
            if (const std::uint32_t item = item_of[touches.root[e]]; item != Reach::always) {
                touch(item, m, at_node);
                written[item] = written[item] | touches.writes[e];
            }
        if (k < n && it.scratch_node[k - it.owners] == m) touch(k++, m, at_node);
        it.node_bound = std::max(it.node_bound, at_node);
    }
    for (ValueId r : touches.kept)
        if (item_of[r] != Reach::always) kept[item_of[r]] = 1;
    it.in_use.assign(n, 0);
    std::size_t total = 0;  // when the items' bytes add up past SIZE_MAX, no order bound (node_bound still holds)
    bool overflows = false;
    for (std::size_t b : it.bytes) overflows = overflows || add_overflows(total, b, total);
    auto &change = space.starting, &ending = space.ending;  // bytes starting / ending at each position
    change.assign(N + 1, 0);
    ending.assign(N + 1, 0);
    for (std::size_t i = 0; i < n; ++i) {
        if (i < it.owners && !written[i]) {  // a graph input in the arena: there before any node
            std::fill_n(it.reach.first.begin() + static_cast<std::ptrdiff_t>(i * K), K, 0u);
            it.settled[i] = it.first[i] = 0;
        }
        if (kept[i]) {  // a kept output: there after every node
            std::fill_n(it.reach.last.begin() + static_cast<std::ptrdiff_t>(i * K), K, Reach::always);
            it.last[i] = static_cast<NodeIndex>(N - 1);
        }
        if (!touched[i] && !kept[i]) {
            it.settled[i] = it.first[i] = it.last[i] = 0;
            continue;
        }
        it.in_use[i] = it.bytes[i];
        change[it.first[i]] += it.bytes[i];
        ending[it.last[i] + 1] += it.bytes[i];
    }
    for (std::size_t m = 0, live = 0; m < N && !overflows; ++m) {
        live = live - ending[m] + change[m];
        it.order_bound = std::max(it.order_bound, live);
    }
}

ONNX_RUNTIME_MEMORY_CORE void stream_safe_hints(const Liveness& unfolded, const NodeTouches& touches,
                                                const StreamClocks& clocks, std::span<const InplaceHint> hints,
                                                std::vector<InplaceHint>& kept) {
    const std::size_t V = unfolded.value_count(), N = clocks.rank.size();
    kept.clear();
    // The nodes touching each root (by root, ascending), so its last is the greatest.
    std::vector<std::size_t> start(V + 1, 0);
    for (const ValueId r : touches.root) ++start[r + 1];
    for (std::size_t r = 0; r < V; ++r) start[r + 1] += start[r];
    std::vector<NodeIndex> node(touches.root.size());
    std::vector<std::size_t> fill(start.begin(), start.end() - 1);
    for (std::size_t m = 0; m < N; ++m)
        for (std::size_t e = touches.start[m]; e < touches.start[m + 1]; ++e) node[fill[touches.root[e]]++] = static_cast<NodeIndex>(m);
    enum : std::uint8_t { unknown, safe, unsafe };
    std::vector<std::uint8_t> verdict(V, unknown);  // only the last node can take a root's bytes: one verdict a root
    const auto before = [&](NodeIndex m, NodeIndex n) { return clocks.rank[m] <= clocks.row(n)[clocks.stream[m]]; };
    for (const InplaceHint& h : hints) {
        if (h.output < V && h.input < V && unfolded.is_owner(h.output)) {
            const NodeIndex n = unfolded.intervals[h.output].def;
            const ValueId r = unfolded.roots[h.input];
            if (n < N && start[r + 1] > start[r] && node[start[r + 1] - 1] == n) {
                if (verdict[r] == unknown) {
                    verdict[r] = safe;
                    for (std::size_t k = start[r]; k < start[r + 1]; ++k)
                        if (node[k] != n && !before(node[k], n)) verdict[r] = unsafe;
                }
                if (verdict[r] == unsafe) continue;
            }
        }
        kept.push_back(h);
    }
}

ONNX_RUNTIME_MEMORY_CORE bool window_pairs(const StreamItems& it, ItemRange range, std::size_t budget, WindowPairs& out,
                                           StreamSpace& space) {
    const std::size_t n = range.to - range.from;
    const auto& by_start = sorted_items(range, space.sort, [&](std::size_t i) { return it.settled[i]; });
    std::size_t count = 0;  // counted first, by binary search, so that too many cost O(n log n)
    for (std::size_t k = 0; k < n; ++k) {
        const auto after = std::upper_bound(by_start.begin() + static_cast<std::ptrdiff_t>(k) + 1, by_start.end(),
                                            it.last[by_start[k]], [&](NodeIndex t, std::uint32_t i) { return t < it.settled[i]; });
        count += static_cast<std::size_t>(after - by_start.begin()) - k - 1;
        if (count > budget / 2) return false;
    }
    // Each pair once, from the one starting first: counted by item, then listed (no list of pairs to keep).
    const auto each_pair = [&](auto&& f) {
        for (std::size_t k = 0; k < n; ++k)
            for (std::size_t m = k + 1; m < n && it.settled[by_start[m]] <= it.last[by_start[k]]; ++m) f(by_start[k], by_start[m]);
    };
    const std::size_t items = it.bytes.size();
    out.start.assign(items + 1, 0);
    each_pair([&](std::uint32_t a, std::uint32_t b) { ++out.start[a + 1], ++out.start[b + 1]; });
    for (std::size_t i = 0; i < items; ++i) out.start[i + 1] += out.start[i];
    out.at.resize(2 * count);
    auto& fill = space.fill;
    fill.assign(out.start.begin(), out.start.end() - 1);
    each_pair([&](std::uint32_t a, std::uint32_t b) { out.at[fill[a]++] = b, out.at[fill[b]++] = a; });
    return true;
}

ONNX_RUNTIME_MEMORY_CORE std::size_t lowest_clear(std::vector<std::pair<std::size_t, std::size_t>>& taken, std::size_t bytes) {
    std::sort(taken.begin(), taken.end());
    std::size_t at = 0;
    for (const auto& [from, to] : taken) {
        if (from >= at && from - at >= bytes) break;
        at = std::max(at, to);
    }
    return at;
}

ONNX_RUNTIME_MEMORY_CORE std::size_t place_by_conflicts(const StreamItems& it, ItemRange range, std::size_t K,
                                                        const WindowPairs& pairs, std::vector<std::size_t>& offset,
                                                        std::size_t& arena_bytes, StreamSpace& space) {
    // Largest first.
    const auto& order = sorted_items(range, space.sort, [&](std::size_t i) { return descending(it.bytes[i]); });
    arena_bytes = 0;
    for (std::size_t i = range.from; i < range.to; ++i) {  // the pins first: they clear one another (checked)
        offset[i] = it.pin[i];
        if (offset[i] != no_offset) arena_bytes = std::max(arena_bytes, offset[i] + it.bytes[i]);  // below SIZE_MAX
    }
    auto& taken = space.taken;  // (offset, end) of the conflicting placed items
    for (const std::uint32_t i : order) {
        if (it.pin[i] != no_offset) continue;
        taken.clear();
        for (std::size_t k = pairs.start[i]; k < pairs.start[i + 1]; ++k) {
            const std::uint32_t p = pairs.at[k];
            if (offset[p] != no_offset && it.bytes[p] > 0 && conflict(it, K, i, p))
                taken.emplace_back(offset[p], offset[p] + it.bytes[p]);
        }
        const std::size_t at = lowest_clear(taken, it.bytes[i]);
        offset[i] = at;
        std::size_t end = 0;
        if (add_overflows(at, it.bytes[i], end)) return i;
        arena_bytes = std::max(arena_bytes, end);
    }
    return range.to;
}

ONNX_RUNTIME_MEMORY_CORE bool repack_top_by_conflicts(const StreamItems& it, std::size_t K, std::size_t budget,
                                                      std::vector<std::size_t>& offset, std::size_t& arena_bytes,
                                                      WindowPairs& pairs, StreamSpace& space) {
    const std::size_t n = it.bytes.size();
    auto& by_settled = space.by_settled;  // the windows by start, and their ends sorted: to count and list pairs
    const auto& sorted = sorted_items({0, n}, space.sort, [&](std::size_t i) { return it.settled[i]; });
    by_settled.assign(sorted.begin(), sorted.end());
    auto& lasts = space.lasts;
    lasts.assign(it.last.begin(), it.last.end());
    std::sort(lasts.begin(), lasts.end());
    const auto starting_by = [&](NodeIndex t) {  // windows starting at t or before
        return static_cast<std::size_t>(
            std::upper_bound(by_settled.begin(), by_settled.end(), t, [&](NodeIndex x, std::uint32_t i) { return x < it.settled[i]; }) -
            by_settled.begin());
    };
    const auto meeting = [&](std::size_t i) {  // windows meeting i's, but i's: a window ending before i's starts, starts before
        const auto ended = std::lower_bound(lasts.begin(), lasts.end(), it.settled[i]) - lasts.begin();
        return starting_by(it.last[i]) - static_cast<std::size_t>(ended) - 1;
    };

    // The items lifted: from the top down while their pairs fit.
    auto& lifted = space.lifted;
    lifted.clear();
    const auto& top = sorted_items({0, n}, space.sort, [&](std::size_t i) { return descending(offset[i] + it.bytes[i]); });
    for (std::size_t k = 0, count = 0; k < n; ++k) {
        if (it.pin[top[k]] != no_offset) continue;
        const std::size_t c = meeting(top[k]);
        if (c > budget / 2 - count) break;
        count += c;
        lifted.push_back(top[k]);
    }
    if (lifted.empty()) return false;

    // Their pairs (CSR by place in `lifted`, sorted by window start): the windows holding its start,
    // kept in `active` as the starts ascend, then those starting after it within it.
    std::sort(lifted.begin(), lifted.end(), [&](std::uint32_t a, std::uint32_t b) {
        return it.settled[a] < it.settled[b] || (it.settled[a] == it.settled[b] && a < b);
    });
    auto& active = space.active;
    active.clear();
    pairs.start.assign(1, 0);
    pairs.at.clear();
    for (std::size_t k = 0, next = 0; k < lifted.size(); ++k) {
        const std::uint32_t i = lifted[k];
        for (; next < n && it.settled[by_settled[next]] <= it.settled[i]; ++next) active.push_back(by_settled[next]);
        std::erase_if(active, [&](std::uint32_t q) { return it.last[q] < it.settled[i]; });
        for (const std::uint32_t q : active)
            if (q != i) pairs.at.push_back(q);
        for (std::size_t m = next; m < n && it.settled[by_settled[m]] <= it.last[i]; ++m) pairs.at.push_back(by_settled[m]);
        pairs.start.push_back(pairs.at.size());
    }

    // Placed again, largest first; the old offsets saved to go back to.
    auto& moved = space.moved;  // 1: lifted, not yet placed again
    moved.assign(n, 0);
    auto& saved = space.saved;
    saved.resize(lifted.size());
    auto& order = space.held;
    order.resize(lifted.size());
    for (std::size_t k = 0; k < lifted.size(); ++k) {
        saved[k] = offset[lifted[k]];
        moved[lifted[k]] = 1;
        order[k] = static_cast<std::uint32_t>(k);
    }
    std::sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
        const std::size_t x = it.bytes[lifted[a]], y = it.bytes[lifted[b]];
        return x > y || (x == y && lifted[a] < lifted[b]);
    });
    const auto restore = [&] {
        for (std::size_t k = 0; k < lifted.size(); ++k) offset[lifted[k]] = saved[k];
        return false;
    };
    auto& taken = space.taken;
    for (const std::uint32_t k : order) {
        const std::uint32_t i = lifted[k];
        taken.clear();
        for (std::size_t e = pairs.start[k]; e < pairs.start[k + 1]; ++e) {
            const std::uint32_t q = pairs.at[e];
            if (moved[q] != 1 && it.bytes[q] > 0 && conflict(it, K, i, q))
                taken.emplace_back(offset[q], offset[q] + it.bytes[q]);
        }
        const std::size_t at = lowest_clear(taken, it.bytes[i]);
        std::size_t end = 0;
        if (add_overflows(at, it.bytes[i], end)) return restore();
        offset[i] = at;
        moved[i] = 0;
    }
    std::size_t end = 0;
    for (std::size_t i = 0; i < n; ++i) end = std::max(end, offset[i] + it.bytes[i]);
    if (end >= arena_bytes) return restore();
    arena_bytes = end;
    return true;
}

ONNX_RUNTIME_MEMORY_CORE std::size_t greedy_antichain(const StreamItems& it, std::size_t K, std::vector<std::uint32_t>& held,
                                                      std::size_t& unordered, std::size_t& budget) {
    std::size_t weight = 0;  // the items' total does not overflow (antichain_bound's check)
    for (std::size_t k = 0; k < unordered; ++k) weight += it.in_use[held[k]];
    std::sort(held.begin() + static_cast<std::ptrdiff_t>(unordered), held.end(), [&](std::uint32_t a, std::uint32_t b) {
        return it.in_use[a] > it.in_use[b] || (it.in_use[a] == it.in_use[b] && a < b);
    });
    std::size_t& taken = unordered;  // held[0, taken): the antichain
    for (std::size_t k = taken; k < held.size(); ++k) {
        if (taken > budget) break;
        budget -= taken;
        const std::uint32_t c = held[k];
        if (std::all_of(held.begin(), held.begin() + static_cast<std::ptrdiff_t>(taken),
                        [&](std::uint32_t a) { return conflict(it, K, a, c); }))
            std::swap(held[taken++], held[k]), weight += it.in_use[c];
    }
    return weight;
}

ONNX_RUNTIME_MEMORY_CORE std::size_t antichain_bound(const StreamItems& it, std::size_t K, std::size_t bound,
                                                     std::size_t target, std::size_t budget, StreamSpace& space) {
    const std::size_t n = it.bytes.size(), N = n == 0 ? 0 : std::size_t{*std::max_element(it.last.begin(), it.last.end())} + 1;
    std::size_t total = 0;
    for (std::size_t b : it.in_use)
        if (add_overflows(total, b, total)) return bound;
    auto &starting = space.starting, &ending = space.ending;  // bytes of windows starting, ending at each position
    starting.assign(N + 1, 0);
    ending.assign(N + 1, 0);
    auto& ends = space.ends;
    ends.assign(N, 0);
    for (std::size_t i = 0; i < n; ++i)
        if (it.in_use[i] > 0) {
            starting[it.settled[i]] += it.in_use[i];
            ending[it.last[i] + 1] += it.in_use[i];
            ends[it.last[i]] = 1;
        }
    auto& points = space.points;  // (bytes of windows, position)
    points.clear();
    for (std::size_t t = 0, live = 0; t < N; ++t) {
        live = live - ending[t] + starting[t];
        if (ends[t] && live > bound) points.emplace_back(live, static_cast<NodeIndex>(t));
    }
    std::sort(points.begin(), points.end(), [](const auto& a, const auto& b) { return a.first > b.first || (a.first == b.first && a.second < b.second); });
    auto& held = space.held;
    auto& weight = space.weight;
    for (const auto& [bytes, t] : points) {
        if (bytes <= bound || bound >= target || budget < n) break;
        budget -= n;  // the scan for the items holding t
        // The items whose spans hold t first: in use together in the graph's order, so none is ordered
        // with another. The greedy antichain then leads, and the exact one tests no pair within it.
        held.clear();
        auto& others = space.active;
        others.clear();
        for (std::size_t i = 0; i < n; ++i)
            if (it.in_use[i] > 0 && it.settled[i] <= t && t <= it.last[i])
                (it.first[i] <= t ? held : others).push_back(static_cast<std::uint32_t>(i));
        std::size_t unordered = held.size();
        held.insert(held.end(), others.begin(), others.end());
        bound = std::max(bound, greedy_antichain(it, K, held, unordered, budget));
        if (bound >= target) break;
        if (saturating_mul(held.size(), held.size()) - unordered * unordered > budget) continue;  // its pairs alone would pass it
        weight.clear();
        for (const std::uint32_t i : held) weight.push_back(it.in_use[i]);
        const auto found = heaviest_antichain(
            weight, [&](std::size_t a, std::size_t b) { return gives_way(it.reach, K, held[a], held[b]); }, budget,
            space.flow, unordered);
        bound = std::max(bound, found.value_or(0));
    }
    return bound;
}

}  // namespace onnx_runtime_memory::detail
