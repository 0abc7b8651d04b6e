// Streams: which stream runs each node of a graph, and the extra waits
// (events), for executors that run nodes at the same time; the rule
// plan_graph --streams K uses to make one; and the happens-before order it
// gives, as vector clocks (concurrent.hpp plans for it).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "detail/ids.hpp"
#include "errors.hpp"
#include "expected.hpp"
#include "graph.hpp"
#include "plan_types.hpp"

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

}  // namespace detail

}  // namespace onnx_runtime_memory
