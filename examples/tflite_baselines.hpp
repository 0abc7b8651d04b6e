// Baselines written like TFLite's GPU delegate memory managers
// (delegates/gpu/common/memory_management/), from their published
// algorithms, to measure against in the benches: the greedy-by-size offsets,
// and the four shared-object ("slot") strategies. Each shared-object
// strategy returns the total of its objects' sizes. Records are buffers
// with a size and an inclusive [first, last], listed by first.
#pragma once

#include <onnx_runtime_memory/offsets.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <numeric>
#include <queue>
#include <set>
#include <vector>

namespace tflite_like {

namespace orm = onnx_runtime_memory;
inline constexpr std::size_t none = std::numeric_limits<std::size_t>::max();

// Greedy by size for offsets: tensors by decreasing size, each into the
// smallest gap among the placed tensors it meets in time, scanned in
// offset order, else above them. Sizes rounded up to `alignment` first.
// O(n^2).
inline std::size_t greedy_by_size_offsets(const std::vector<orm::Buffer>& buffers, std::size_t alignment) {
    struct Placed {
        std::size_t offset, size;
        orm::NodeIndex first, last;
    };
    std::vector<std::uint32_t> order(buffers.size());
    std::iota(order.begin(), order.end(), 0u);
    const auto rounded = [&](std::uint32_t i) { return (buffers[i].size + alignment - 1) / alignment * alignment; };
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return rounded(a) > rounded(b); });
    std::vector<Placed> by_offset;
    std::size_t arena = 0;
    for (std::uint32_t i : order) {
        const std::size_t size = rounded(i);
        if (size == 0) continue;
        const orm::Buffer& t = buffers[i];
        std::size_t best = none, best_gap = none, prev_end = 0;
        for (const Placed& p : by_offset) {
            if (p.last < t.first || t.last < p.first) continue;
            if (p.offset >= prev_end && p.offset - prev_end >= size && p.offset - prev_end < best_gap) {
                best_gap = p.offset - prev_end;
                best = prev_end;
            }
            prev_end = std::max(prev_end, p.offset + p.size);
        }
        if (best == none) best = prev_end;
        const Placed placed{best, size, t.first, t.last};
        by_offset.insert(std::upper_bound(by_offset.begin(), by_offset.end(), placed,
                                          [](const Placed& a, const Placed& b) { return a.offset < b.offset; }),
                         placed);
        arena = std::max(arena, best + size);
    }
    return arena;
}

// Greedy in order: in order of first use, each tensor takes the free object
// whose size is closest to its own (the smallest at least as large, or the
// largest below it, which grows), else a new one.
inline std::size_t greedy_in_order(const std::vector<orm::Buffer>& r) {
    std::vector<std::size_t> object;  // sizes
    std::set<std::pair<std::size_t, std::size_t>> pool;  // free (size, object)
    using InUse = std::pair<orm::NodeIndex, std::size_t>;  // (last, object), earliest last on top
    std::priority_queue<InUse, std::vector<InUse>, std::greater<>> in_use;
    for (const orm::Buffer& t : r) {
        while (!in_use.empty() && in_use.top().first < t.first) {
            pool.insert({object[in_use.top().second], in_use.top().second});
            in_use.pop();
        }
        auto best = pool.end();
        if (!pool.empty()) {
            auto it = pool.lower_bound({t.size, 0});
            std::size_t diff = 0;
            if (it != pool.end()) {
                diff = it->first - t.size;
                best = it;
            }
            if (it != pool.begin() && (best == pool.end() || t.size - std::prev(it)->first < diff)) best = std::prev(it);
        }
        std::size_t id = object.size();
        if (best == pool.end()) {
            object.push_back(t.size);
        } else {
            id = best->second;
            pool.erase(best);
            object[id] = std::max(object[id], t.size);
        }
        in_use.push({t.last, id});
    }
    return std::accumulate(object.begin(), object.end(), std::size_t{0});
}

namespace detail {
// An object's tensors by first use; clash: a tensor it holds meets t.
struct Schedule {
    std::vector<std::pair<orm::NodeIndex, orm::NodeIndex>> spans;  // sorted by first
    [[nodiscard]] bool clash(const orm::Buffer& t) const {
        auto it = std::lower_bound(spans.begin(), spans.end(), std::pair{t.first, orm::NodeIndex{0}});
        if (it != spans.end() && it->first <= t.last) return true;
        return it != spans.begin() && std::prev(it)->second >= t.first;
    }
    void add(const orm::Buffer& t) {
        spans.insert(std::lower_bound(spans.begin(), spans.end(), std::pair{t.first, t.last}), {t.first, t.last});
    }
};
}  // namespace detail

// Greedy by breadth: tasks (positions) by decreasing breadth (the bytes
// live there); at each, its unassigned tensors by decreasing size, each into
// the object whose size is closest above its own (else the largest below,
// which grows), among those holding no tensor it meets; else a new one.
inline std::size_t greedy_by_breadth(const std::vector<orm::Buffer>& r) {
    orm::NodeIndex positions = 0;
    for (const auto& t : r) positions = std::max<orm::NodeIndex>(positions, t.last + 1);
    std::vector<std::vector<std::size_t>> live(positions);
    std::vector<std::size_t> breadth(positions, 0);
    for (std::size_t i = 0; i < r.size(); ++i)
        for (orm::NodeIndex p = r[i].first; p <= r[i].last; ++p) {
            live[p].push_back(i);
            breadth[p] += r[i].size;
        }
    std::vector<std::size_t> tasks(positions);
    std::iota(tasks.begin(), tasks.end(), std::size_t{0});
    std::stable_sort(tasks.begin(), tasks.end(), [&](std::size_t a, std::size_t b) { return breadth[a] > breadth[b]; });
    std::vector<std::size_t> object;
    std::vector<detail::Schedule> schedule;
    std::vector<std::uint8_t> done(r.size(), 0);
    for (std::size_t task : tasks) {
        auto& here = live[task];
        std::stable_sort(here.begin(), here.end(), [&](std::size_t a, std::size_t b) { return r[a].size > r[b].size; });
        for (std::size_t i : here) {
            if (done[i]) continue;
            done[i] = 1;
            const orm::Buffer& t = r[i];
            std::size_t best = none;
            for (std::size_t o = 0; o < object.size(); ++o) {
                if (best != none) {
                    const std::size_t b = object[best], c = object[o];
                    if (b < t.size ? c <= b : (c < t.size || c >= b)) continue;
                }
                if (!schedule[o].clash(t)) best = o;
            }
            if (best == none) {
                best = object.size();
                object.push_back(t.size);
                schedule.emplace_back();
            }
            object[best] = std::max(object[best], t.size);
            schedule[best].add(t);
        }
    }
    return std::accumulate(object.begin(), object.end(), std::size_t{0});
}

// The positional maximums: the k-th largest size live at a position, at its
// largest over positions (a lower bound on the k-th object).
inline std::vector<std::size_t> positional_maximums(const std::vector<orm::Buffer>& r) {
    orm::NodeIndex positions = 0;
    for (const auto& t : r) positions = std::max<orm::NodeIndex>(positions, t.last + 1);
    std::vector<std::vector<std::size_t>> live(positions);
    for (const auto& t : r)
        for (orm::NodeIndex p = t.first; p <= t.last; ++p) live[p].push_back(t.size);
    std::vector<std::size_t> maxima;
    for (auto& sizes : live) {
        std::sort(sizes.rbegin(), sizes.rend());
        if (maxima.size() < sizes.size()) maxima.resize(sizes.size(), 0);
        for (std::size_t k = 0; k < sizes.size(); ++k) maxima[k] = std::max(maxima[k], sizes[k]);
    }
    return maxima;
}

// Greedy by size with distance priority: the next tensor is the one whose
// size reaches furthest left in the positional maximums, then the one
// closest in time (the least positive gap) to a tensor of an object it
// could join, then the larger; it joins that object (growing it), else a
// new one. O(n^2 * objects).
inline std::size_t greedy_by_size_dist(const std::vector<orm::Buffer>& r) {
    const auto maxima = positional_maximums(r);
    const std::size_t n = r.size();
    struct Info {
        std::size_t position, best_dist = none, best_object = none;
        std::vector<std::size_t> dist;  // by object: the least gap to its tensors, none if one meets
    };
    std::vector<Info> info(n);
    for (std::size_t i = 0; i < n; ++i) {
        std::size_t pos = 0;
        while (pos < maxima.size() && maxima[pos] >= r[i].size) ++pos;
        info[i].position = pos == 0 ? 0 : pos - 1;
    }
    const auto better = [&](std::size_t a, std::size_t b) {
        const Info &x = info[a], &y = info[b];
        if (x.position != y.position) return x.position < y.position;
        if (x.best_dist != y.best_dist) return x.best_dist < y.best_dist;
        return r[a].size > r[b].size;
    };
    std::vector<std::size_t> object, owner(n, none);
    for (std::size_t step = 0; step < n; ++step) {
        std::size_t pick = none;
        for (std::size_t i = 0; i < n; ++i)
            if (owner[i] == none && (pick == none || better(i, pick))) pick = i;
        bool fresh = info[pick].best_dist == none;
        std::size_t o = fresh ? object.size() : info[pick].best_object;
        if (fresh) object.push_back(r[pick].size);
        object[o] = std::max(object[o], r[pick].size);
        owner[pick] = o;
        for (std::size_t i = 0; i < n; ++i) {
            if (owner[i] != none) continue;
            Info& x = info[i];
            if (!fresh && x.dist[o] == none) continue;  // already meets a tensor of o
            std::size_t d = none;
            if (r[i].last < r[pick].first) d = r[pick].first - r[i].last;
            else if (r[pick].last < r[i].first) d = r[i].first - r[pick].last;
            if (fresh) x.dist.push_back(d);
            else if (d == none) {
                x.dist[o] = none;
                if (x.best_object == o) {
                    x.best_dist = none;
                    for (std::size_t k = 0; k < x.dist.size(); ++k)
                        if (x.dist[k] < x.best_dist) {
                            x.best_dist = x.dist[k];
                            x.best_object = k;
                        }
                }
            } else {
                x.dist[o] = std::min(x.dist[o], d);
            }
            if (d < x.best_dist) {
                x.best_dist = d;
                x.best_object = o;
            }
        }
    }
    return std::accumulate(object.begin(), object.end(), std::size_t{0});
}

// Minimum-cost flow: tensor i may reuse the object of any tensor j that
// ended before i starts, at the cost of the growth (size_i - size_j, if
// positive), or open a new object at cost size_i; each tensor is followed
// by at most one. Shortest augmenting paths (SPFA) until none is left, then
// the objects are the chains of reuse. O(n^3) worst case.
inline std::size_t min_cost_flow(const std::vector<orm::Buffer>& r) {
    const std::size_t n = r.size(), source = 2 * n, sink = source + 1;
    struct Edge {
        std::size_t to;
        int cap;
        long long cost;
    };
    std::vector<Edge> edges;
    std::vector<std::vector<std::size_t>> from(sink + 1);
    const auto add = [&](std::size_t a, std::size_t b, long long cost) {
        from[a].push_back(edges.size());
        edges.push_back({b, 1, cost});
        from[b].push_back(edges.size());
        edges.push_back({a, 0, -cost});
    };
    std::vector<std::size_t> ended;
    using InUse = std::pair<orm::NodeIndex, std::size_t>;
    std::priority_queue<InUse, std::vector<InUse>, std::greater<>> in_use;
    for (std::size_t i = 0; i < n; ++i) {
        while (!in_use.empty() && in_use.top().first < r[i].first) {
            ended.push_back(in_use.top().second);
            in_use.pop();
        }
        in_use.push({r[i].last, i});
        add(source, i, 0);
        add(n + i, sink, 0);
        add(source, n + i, static_cast<long long>(r[i].size));
        for (std::size_t j : ended)
            add(j, n + i, r[i].size > r[j].size ? static_cast<long long>(r[i].size - r[j].size) : 0);
    }
    constexpr long long inf = std::numeric_limits<long long>::max();
    std::vector<long long> dist(sink + 1);
    std::vector<std::size_t> prev(sink + 1);
    std::vector<std::uint8_t> queued(sink + 1);
    for (;;) {
        std::fill(dist.begin(), dist.end(), inf);
        std::fill(queued.begin(), queued.end(), 0);
        std::queue<std::size_t> q;
        dist[source] = 0;
        q.push(source);
        while (!q.empty()) {
            const std::size_t v = q.front();
            q.pop();
            queued[v] = 0;
            for (std::size_t e : from[v])
                if (edges[e].cap > 0 && dist[v] + edges[e].cost < dist[edges[e].to]) {
                    dist[edges[e].to] = dist[v] + edges[e].cost;
                    prev[edges[e].to] = e;
                    if (!queued[edges[e].to]) {
                        queued[edges[e].to] = 1;
                        q.push(edges[e].to);
                    }
                }
        }
        if (dist[sink] == inf) break;
        for (std::size_t v = sink; v != source;) {
            --edges[prev[v]].cap;
            ++edges[prev[v] ^ 1].cap;
            v = edges[prev[v] ^ 1].to;
        }
    }
    // Objects: each tensor opened by the source (a saturated source -> right
    // edge), followed along saturated left -> right edges.
    std::vector<std::uint8_t> taken(n, 0);
    std::size_t total = 0;
    for (std::size_t e : from[source]) {
        if (edges[e].cap != 0 || edges[e].to < n || edges[e].to >= 2 * n) continue;
        std::size_t t = edges[e].to - n, biggest = 0;
        for (bool more = true; more;) {
            taken[t] = 1;
            biggest = std::max(biggest, r[t].size);
            more = false;
            for (std::size_t f : from[t])
                if (edges[f].cap == 0 && edges[f].to >= n && edges[f].to < 2 * n && !taken[edges[f].to - n] &&
                    f % 2 == 0) {
                    t = edges[f].to - n;
                    more = true;
                    break;
                }
        }
        total += biggest;
    }
    return total;
}

}  // namespace tflite_like
