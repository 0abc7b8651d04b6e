// Arena plans for executors that run nodes at the same time: GPU streams,
// a thread pool taking ready nodes, pipelines. The caller says which stream
// runs each node (Streams); a node starts after the nodes before it on its
// stream, the producers of its inputs (on any stream) and the events it
// waits for. Two owners may then share bytes only when every node touching
// one happens strictly before every node touching the other: an order that
// holds however the streams interleave. One stream is the sequential plan,
// plan_arena's bit for bit.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "arena.hpp"
#include "detail/checked.hpp"
#include "errors.hpp"
#include "expected.hpp"
#include "graph.hpp"
#include "liveness.hpp"
#include "plan_types.hpp"
#include "sizing.hpp"
#include "view_map.hpp"

namespace onnx_runtime_memory {

// Which stream runs each node, by node id (empty: every node on stream 0,
// the sequential case), and the extra waits: (a, b), node b starts after
// node a finishes (an event), with a before b in the graph's order. At most
// max_streams streams.
struct Streams {
    static constexpr std::uint32_t max_streams = 256;
    std::vector<std::uint32_t> stream_of;
    std::vector<std::pair<NodeIndex, NodeIndex>> events;
};

// Streams for `k` of them by list scheduling, every node taking one unit of
// time: in the graph's order, each node goes to the stream that becomes free
// first (ties: the lower stream) and starts once that stream is free and
// its inputs' producers have finished. What plan_graph --streams K uses; an
// executor with real costs gives its own. O(N k + E).
template <activation_graph G>
[[nodiscard]] Streams streams_by_list_scheduling(const G& g, std::size_t k) {
    using T = graph_traits<G>;
    const std::size_t N = static_cast<std::size_t>(T::node_count(g)), V = static_cast<std::size_t>(T::value_count(g));
    k = std::clamp<std::size_t>(k, 1, Streams::max_streams);
    Streams out;
    out.stream_of.assign(N, 0);
    std::vector<std::size_t> free_at(k, 0), done_at(V, 0);
    for (std::size_t n = 0; n < N; ++n) {
        std::size_t ready = 0;
        for (auto x : T::node_inputs(g, n))
            if (const auto v = detail::to_value_id(x, V)) ready = std::max(ready, done_at[*v]);
        const std::size_t s = static_cast<std::size_t>(std::min_element(free_at.begin(), free_at.end()) - free_at.begin());
        free_at[s] = std::max(free_at[s], ready) + 1;
        out.stream_of[n] = static_cast<std::uint32_t>(s);
        for (auto x : T::node_outputs(g, n))
            if (const auto v = detail::to_value_id(x, V)) done_at[*v] = free_at[s];
    }
    return out;
}

namespace detail {

// The happens-before order as vector clocks: nodes in the graph's order,
// each with its rank on its stream (1, 2, ...) and, per stream s, the rank
// of the last node of s that happens strictly before it (0: none).
// O((N + E) K) time, N K words.
struct StreamClocks {
    std::size_t streams = 1;
    std::vector<std::uint32_t> stream, rank;  // by node
    std::vector<std::uint32_t> before;        // before[n * streams + s]

    [[nodiscard]] const std::uint32_t* row(std::size_t n) const { return before.data() + n * streams; }
};

template <activation_graph G>
[[nodiscard]] expected<StreamClocks, PlanError> stream_clocks(const G& g, const Streams& description) {
    using T = graph_traits<G>;
    const auto size = checked_size(g);
    if (!size) return unexpected(size.error());
    const auto [V, N] = *size;
    const auto bad = [](std::size_t node) {
        return unexpected(make_plan_error(PlanError::Kind::bad_streams, no_value, static_cast<NodeIndex>(node)));
    };
    StreamClocks c;
    if (!description.stream_of.empty() && description.stream_of.size() != N) return bad(std::min(N, description.stream_of.size()));
    c.stream.assign(N, 0);
    for (std::size_t n = 0; n < description.stream_of.size(); ++n) {
        if (description.stream_of[n] >= Streams::max_streams) return bad(n);
        c.stream[n] = description.stream_of[n];
        c.streams = std::max<std::size_t>(c.streams, std::size_t{c.stream[n]} + 1);
    }
    auto events = description.events;
    for (const auto& [a, b] : events)
        if (a >= N || b >= N || a >= b) return bad(b < N && a < b ? a : b);
    std::sort(events.begin(), events.end(), [](const auto& x, const auto& y) { return x.second < y.second; });
    const std::size_t K = c.streams;
    c.rank.assign(N, 0);
    c.before.assign(N * K, 0);
    std::vector<std::uint32_t> count(K, 0);
    std::vector<NodeIndex> producer(V, no_node), last_on(K, no_node);
    for (std::size_t n = 0; n < N; ++n)
        for (auto x : T::node_outputs(g, n))
            if (const auto v = to_value_id(x, V); v && producer[*v] == no_node) producer[*v] = static_cast<NodeIndex>(n);
    auto event = events.begin();
    for (std::size_t n = 0; n < N; ++n) {
        std::uint32_t* row = c.before.data() + n * K;
        const auto wait = [&](NodeIndex p) {  // n starts after p: all that precedes p, and p
            if (p == no_node || p >= n) return;
            const std::uint32_t* from = c.row(p);
            for (std::size_t s = 0; s < K; ++s) row[s] = std::max(row[s], from[s]);
            row[c.stream[p]] = std::max(row[c.stream[p]], c.rank[p]);
        };
        for (auto x : T::node_inputs(g, n))
            if (const auto v = to_value_id(x, V)) wait(producer[*v]);
        wait(last_on[c.stream[n]]);
        for (; event != events.end() && event->second == n; ++event) wait(event->first);
        c.rank[n] = ++count[c.stream[n]];
        last_on[c.stream[n]] = static_cast<NodeIndex>(n);
    }
    return c;
}

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

}  // namespace detail

// An arena plan safe under `streams`: every owner (and each node's scratch)
// at an offset where no owner it may be live with at the same time
// overlaps it, placed largest first (ties by owner order) at the lowest
// offset clear of those already placed that it conflicts with (a
// conflict test of O(K) per pair). A graph input in the arena lives from
// the start, a kept graph output to the end. proven_bound_bytes: the most
// bytes one node touches (its operands' owners and its scratch), which
// every plan must hold at once. With one stream, plan_arena's plan, bit
// for bit. In-place hints and pins are not planned across streams yet
// (PlanError::bad_streams naming the hint's output or the pinned value).
// bad_streams names the node a description gets wrong (a stream id past
// max_streams, a list of the wrong length, an event out of range or not
// forward). O(n^2 K) for n owners, within work_per_owner x max(n, 4096)
// pair tests (an item past them goes above all placed: safe, larger), plus
// O((N + E) K) for the clocks.
template <activation_graph G, size_oracle Oracle>
[[nodiscard]] expected<ArenaStatus, PlanError> plan_arena_concurrent(const G& g, const ViewMap& views, Oracle&& oracle,
                                                                     const Streams& streams,
                                                                     const PlanOptions& options = {},
                                                                     const ArenaOptions& arena_options = {}) {
    using T = graph_traits<G>;
    auto clocks = detail::stream_clocks(g, streams);
    if (!clocks) return unexpected(clocks.error());
    if (clocks->streams == 1) return plan_arena(g, views, oracle, options, arena_options);
    if (!options.inplace.empty())
        return unexpected(make_plan_error(PlanError::Kind::bad_streams, options.inplace.front().output));
    if (!options.pinned.empty()) return unexpected(make_plan_error(PlanError::Kind::bad_streams, options.pinned.front().value));
    auto live = compute_liveness(g, views, options);
    if (!live) return unexpected(live.error());
    const auto& scratch = options.scratch_bytes;
    auto request = detail::size_for_plan(*live, oracle, options.unknown_sizes, scratch);
    if (!request) return unexpected(request.error());
    auto& sizes = request->sizes;
    if (request->deferred) return ArenaStatus::deferred(std::move(sizes.unknown));
    const Liveness& planned = request->planned(*live);
    const std::size_t K = clocks->streams, V = planned.value_count(), N = clocks->rank.size();
    const std::size_t alignment = detail::alignment_or_one(arena_options.alignment);

    // Items: the owners (owner order), then each node's scratch.
    std::vector<std::uint32_t> item_of(V, detail::Reach::always);
    std::vector<std::size_t> bytes;
    std::vector<NodeIndex> scratch_node;
    for (ValueId r : planned.owners) {
        item_of[r] = static_cast<std::uint32_t>(bytes.size());
        bytes.push_back(sizes.bytes[r]);
    }
    const std::size_t owners = bytes.size();
    for (std::size_t n = 0; n < scratch.size() && n < N; ++n)
        if (scratch[n] > 0) {
            bytes.push_back(scratch[n]);
            scratch_node.push_back(static_cast<NodeIndex>(n));
        }
    for (std::size_t& b : bytes)
        if (detail::align_up_overflows(b, alignment, b)) return unexpected(make_plan_error(PlanError::Kind::size_overflow));
    detail::Reach reach;
    reach.last.assign(bytes.size() * K, 0);
    reach.first.assign(bytes.size() * K, detail::Reach::always);
    std::vector<std::uint8_t> written(bytes.size(), 0);
    std::size_t node_bound = 0;
    std::vector<std::uint32_t> seen(bytes.size(), detail::Reach::always);  // the node an item was last counted at
    const auto touch = [&](std::size_t item, std::size_t n, std::size_t& at_node) {
        const std::uint32_t* row = clocks->row(n);
        auto* last = reach.last.data() + item * K;
        auto* first = reach.first.data() + item * K;
        last[clocks->stream[n]] = std::max(last[clocks->stream[n]], clocks->rank[n]);
        for (std::size_t s = 0; s < K; ++s) first[s] = std::min(first[s], row[s]);
        if (seen[item] != n) {
            seen[item] = static_cast<std::uint32_t>(n);
            at_node = detail::saturating_add(at_node, bytes[item]);
        }
    };
    for (std::size_t n = 0, k = owners; n < N; ++n) {
        std::size_t at_node = 0;
        for (auto x : T::node_inputs(g, n))
            if (const auto v = detail::to_value_id(x, V); v && item_of[planned.roots[*v]] != detail::Reach::always)
                touch(item_of[planned.roots[*v]], n, at_node);
        for (auto x : T::node_outputs(g, n))
            if (const auto v = detail::to_value_id(x, V); v && item_of[planned.roots[*v]] != detail::Reach::always) {
                touch(item_of[planned.roots[*v]], n, at_node);
                written[item_of[planned.roots[*v]]] = 1;
            }
        if (k < bytes.size() && scratch_node[k - owners] == n) touch(k++, n, at_node);
        node_bound = std::max(node_bound, at_node);
    }
    for (std::size_t i = 0; i < owners; ++i)  // a graph input in the arena: there before any node
        if (!written[i]) std::fill_n(reach.first.begin() + static_cast<std::ptrdiff_t>(i * K), K, 0u);
    for (auto x : T::graph_outputs(g))  // a kept output: there after every node
        if (const auto v = detail::to_value_id(x, V); v && item_of[planned.roots[*v]] != detail::Reach::always)
            std::fill_n(reach.last.begin() + static_cast<std::ptrdiff_t>(std::size_t{item_of[planned.roots[*v]]} * K), K,
                        detail::Reach::always);

    // Largest first, each at the lowest offset clear of the placed items it may be live with.
    std::vector<std::uint32_t> order(bytes.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<std::uint32_t>(i);
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return bytes[a] > bytes[b]; });
    std::vector<std::size_t> offset(bytes.size(), no_offset);
    std::vector<std::pair<std::size_t, std::size_t>> taken;  // (offset, end) of the conflicting placed items
    std::size_t arena_bytes = 0;
    std::size_t budget = detail::saturating_mul(arena_options.work_per_owner, std::max<std::size_t>(order.size(), 4096));
    for (std::size_t k = 0; k < order.size(); ++k) {
        const std::uint32_t i = order[k];
        taken.clear();
        const bool tested = budget >= k;  // else out of pair tests: above all placed, which is safe
        if (tested) budget -= k;
        else taken.emplace_back(0, arena_bytes);
        for (std::size_t j = 0; j < k && tested; ++j) {
            const std::uint32_t p = order[j];
            if (bytes[p] > 0 && !detail::gives_way(reach, K, i, p) && !detail::gives_way(reach, K, p, i))
                taken.emplace_back(offset[p], offset[p] + bytes[p]);
        }
        std::sort(taken.begin(), taken.end());
        std::size_t at = 0;
        for (const auto& [from, to] : taken) {
            if (from >= at && from - at >= bytes[i]) break;
            at = std::max(at, to);
        }
        offset[i] = at;
        std::size_t end = 0;
        if (detail::add_overflows(at, bytes[i], end))
            return unexpected(make_plan_error(PlanError::Kind::size_overflow, i < owners ? planned.owners[i] : no_value));
        arena_bytes = std::max(arena_bytes, end);
    }
    ArenaPlan plan;
    plan.arena_bytes = arena_bytes;
    plan.alignment = alignment;
    plan.strategy = ArenaStrategy::size_first_fit;
    plan.proven_bound_bytes = node_bound;
    plan.offsets.assign(V, no_offset);
    for (std::size_t i = 0; i < owners; ++i) plan.offsets[planned.owners[i]] = offset[i];
    detail::place_views(planned, plan.offsets);
    plan.scratch_offsets.assign(scratch.size(), no_offset);
    for (std::size_t k = owners; k < bytes.size(); ++k) plan.scratch_offsets[scratch_node[k - owners]] = offset[k];
    plan.dynamic_values = std::move(sizes.unknown);
    return ArenaStatus::complete(std::move(plan));
}

}  // namespace onnx_runtime_memory
