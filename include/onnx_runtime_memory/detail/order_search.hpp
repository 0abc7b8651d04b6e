// The memory-aware order's search, on a graph-free problem: the nodes'
// dependencies, the bytes each node's outputs take, and which nodes use
// (read, alias, or produce) each buffer. Simulating an order gives the live
// bytes at each step exactly as the planner's liveness counts them.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <optional>
#include <utility>
#include <vector>

#include "../graph.hpp"
#include "checked.hpp"
#include "sort.hpp"

namespace onnx_runtime_memory::detail {

struct OrderProblem {
    std::size_t nodes = 0;
    std::vector<std::uint32_t> pred_begin{0}, preds;  // CSR: the nodes each node waits for (deduplicated)
    std::vector<std::uint32_t> succ_begin{0}, succs;  // CSR: the reverse
    std::vector<std::size_t> alloc;                   // bytes of the buffers a node's outputs open
    std::vector<std::uint32_t> use_begin{0}, uses;    // CSR: the buffers a node uses (deduplicated)
    std::vector<std::size_t> size;                    // by buffer
    std::vector<std::uint32_t> users;                 // by buffer: how many nodes use it
    std::vector<std::uint8_t> kept;                   // by buffer: a graph output, never freed
    std::vector<std::uint32_t> producer;              // by buffer: the node opening it (no_producer: live from the start)
    std::size_t initial = 0;  // buffers live from the start (graph inputs in the arena) with a user
    std::size_t at_start = 0; // such buffers nobody uses: live at the first step only

    [[nodiscard]] std::size_t buffers() const noexcept { return size.size(); }
    static constexpr std::uint32_t no_producer = 0xFFFFFFFFu;
};

// Runs node n: its buffers open, then those it used last close. `left`
// counts each buffer's users still to run; returns the bytes live while n
// runs (the step's peak), and leaves `live` at what stays after it.
inline std::size_t run_node(const OrderProblem& p, NodeIndex n, std::vector<std::uint32_t>& left, std::size_t& live) {
    live = saturating_add(live, p.alloc[n]);
    const std::size_t during = live;
    for (std::uint32_t j = p.use_begin[n]; j < p.use_begin[n + 1]; ++j) {
        const std::uint32_t b = p.uses[j];
        if (--left[b] == 0 && !p.kept[b]) live -= std::min(live, p.size[b]);
    }
    return during;
}

// The bytes live while each step of a complete order runs.
[[nodiscard]] inline std::vector<std::size_t> step_bytes(const OrderProblem& p, const std::vector<NodeIndex>& order) {
    std::vector<std::uint32_t> left = p.users;
    std::vector<std::size_t> during(order.size());
    std::size_t live = p.initial;
    for (std::size_t k = 0; k < order.size(); ++k) {
        during[k] = run_node(p, order[k], left, live);
        if (k == 0) during[k] = saturating_add(during[k], p.at_start);
    }
    return during;
}

// The peak live bytes of a complete order.
[[nodiscard]] inline std::size_t simulate_peak(const OrderProblem& p, const std::vector<NodeIndex>& order) {
    if (order.empty()) return p.nodes == 0 ? p.initial + p.at_start : 0;
    const auto during = step_bytes(p, order);
    return *std::max_element(during.begin(), during.end());
}

// A peak no topological order goes below: while node n runs, a buffer is
// live in every order if it is open by then in every order (its producer is
// n or an ancestor of n, or it is live from the start) and not yet closed
// (one of its users is n or a descendant, or it is kept). The largest such
// sum over the nodes. Ancestor sets as bitsets, N * ceil(N / 64) words;
// nullopt, before any work, when those exceed `words` or the scan `steps`
// (decremented: one per buffer and node, one per user's word).
[[nodiscard]] inline std::optional<std::size_t> forced_peak(const OrderProblem& p, std::size_t words, std::size_t& steps) {
    const std::size_t N = p.nodes, W = (N + 63) / 64;
    if (N == 0) return saturating_add(p.initial, p.at_start);
    if (W > words / N) return std::nullopt;
    // The scan's cost, known before it starts: one per buffer and node, one
    // per user's word.
    const std::size_t cost = saturating_add(saturating_mul(p.buffers(), N), saturating_mul(p.uses.size(), W));
    if (cost > steps) return std::nullopt;
    steps -= cost;
    std::vector<std::uint64_t> anc(N * W, 0);  // anc[n]: n and its ancestors (node order is topological)
    for (std::size_t n = 0; n < N; ++n) {
        std::uint64_t* a = &anc[n * W];
        a[n / 64] |= std::uint64_t{1} << (n % 64);
        for (std::uint32_t j = p.pred_begin[n]; j < p.pred_begin[n + 1]; ++j) {
            const std::uint64_t* b = &anc[std::size_t{p.preds[j]} * W];
            for (std::size_t w = 0; w < W; ++w) a[w] |= b[w];
        }
    }
    const auto has = [&](std::size_t n, std::size_t m) { return (anc[n * W + m / 64] >> (m % 64) & 1) != 0; };
    std::vector<std::uint32_t> user_begin(p.buffers() + 1, 0), user(p.uses.size());
    for (std::uint32_t b : p.uses) ++user_begin[std::size_t{b} + 1];
    for (std::size_t b = 0; b < p.buffers(); ++b) user_begin[b + 1] += user_begin[b];
    std::vector<std::uint32_t> fill(user_begin.begin(), user_begin.end() - 1);
    for (std::size_t n = 0; n < N; ++n)
        for (std::uint32_t j = p.use_begin[n]; j < p.use_begin[n + 1]; ++j) user[fill[p.uses[j]]++] = static_cast<std::uint32_t>(n);
    std::vector<std::size_t> forced(N, 0);
    std::vector<std::uint64_t> until(W);  // the nodes some user of the buffer runs no earlier than
    for (std::size_t b = 0; b < p.buffers(); ++b) {
        if (p.kept[b]) std::fill(until.begin(), until.end(), ~std::uint64_t{0});
        else {
            std::fill(until.begin(), until.end(), 0);
            for (std::uint32_t j = user_begin[b]; j < user_begin[b + 1]; ++j)
                for (std::size_t w = 0; w < W; ++w) until[w] |= anc[std::size_t{user[j]} * W + w];
        }
        const std::uint32_t from = p.producer[b];
        for (std::size_t n = 0; n < N; ++n)
            if ((until[n / 64] >> (n % 64) & 1) && (from == OrderProblem::no_producer || has(n, from)))
                forced[n] = saturating_add(forced[n], p.size[b]);
    }
    std::size_t peak = 0, first = SIZE_MAX;  // the first step: a source, with every input still open
    for (std::size_t n = 0; n < N; ++n) {
        peak = std::max(peak, forced[n]);
        if (p.pred_begin[n + 1] == p.pred_begin[n]) first = std::min(first, p.alloc[n]);
    }
    return std::max(peak, saturating_add(saturating_add(p.initial, p.at_start), first));
}

// A list schedule: at each step, of the ready nodes, the one `better` ranks
// first (ties: the earlier in the given order). better(a, b, state) sees the
// bytes each would open and free. Stops (nullopt) past `steps` ready nodes
// looked at in all.
struct ListState {
    std::size_t live = 0, peak = 0;
};
template <class Better>
[[nodiscard]] std::optional<std::vector<NodeIndex>> list_schedule(const OrderProblem& p, Better better,
                                                                  std::size_t& steps) {
    const std::size_t N = p.nodes;
    std::vector<std::uint32_t> waiting(N), left = p.users;
    for (std::size_t n = 0; n < N; ++n) waiting[n] = p.pred_begin[n + 1] - p.pred_begin[n];
    std::vector<NodeIndex> ready, order;
    for (std::size_t n = 0; n < N; ++n)
        if (waiting[n] == 0) ready.push_back(static_cast<NodeIndex>(n));
    ListState s{p.initial, 0};
    const auto freed = [&](NodeIndex n) {
        std::size_t f = 0;
        for (std::uint32_t j = p.use_begin[n]; j < p.use_begin[n + 1]; ++j)
            if (left[p.uses[j]] == 1 && !p.kept[p.uses[j]]) f = saturating_add(f, p.size[p.uses[j]]);
        return f;
    };
    while (!ready.empty()) {
        if (steps < ready.size()) return std::nullopt;
        steps -= ready.size();
        std::size_t pick = 0;
        std::size_t pick_freed = freed(ready[0]);
        for (std::size_t k = 1; k < ready.size(); ++k) {
            const std::size_t f = freed(ready[k]);
            if (better(p.alloc[ready[k]], f, p.alloc[ready[pick]], pick_freed, s) ||
                (!better(p.alloc[ready[pick]], pick_freed, p.alloc[ready[k]], f, s) && ready[k] < ready[pick])) {
                pick = k;
                pick_freed = f;
            }
        }
        const NodeIndex n = ready[pick];
        ready.erase(ready.begin() + static_cast<std::ptrdiff_t>(pick));
        order.push_back(n);
        const std::size_t during = run_node(p, n, left, s.live);
        s.peak = std::max(s.peak, order.size() == 1 ? saturating_add(during, p.at_start) : during);
        for (std::uint32_t j = p.succ_begin[n]; j < p.succ_begin[n + 1]; ++j)
            if (--waiting[p.succs[j]] == 0) ready.push_back(static_cast<NodeIndex>(p.succs[j]));
    }
    return order;
}

// A depth-first post-order from the sinks (nodes nothing waits for, in node
// order): each node after the nodes it waits for, visited by descending
// `key` (ties: the later listed first).
[[nodiscard]] inline std::vector<NodeIndex> post_order(const OrderProblem& p, const std::vector<std::size_t>& key) {
    const std::size_t N = p.nodes;
    std::vector<std::uint8_t> state(N, 0);  // 0 new, 1 open, 2 done
    std::vector<NodeIndex> order;
    order.reserve(N);
    std::vector<std::pair<NodeIndex, std::vector<std::uint32_t>>> stack;  // node, its waits left to visit (reversed)
    const auto open = [&](NodeIndex n) {
        std::vector<std::uint32_t> w(p.preds.begin() + p.pred_begin[n], p.preds.begin() + p.pred_begin[n + 1]);
        sort_by(w, [&](std::uint32_t m) { return key[m]; });  // visited from the back
        state[n] = 1;
        stack.emplace_back(n, std::move(w));
    };
    for (std::size_t s = 0; s < N; ++s) {
        if (p.succ_begin[s + 1] != p.succ_begin[s] || state[s] != 0) continue;
        open(static_cast<NodeIndex>(s));
        while (!stack.empty()) {
            auto& [n, waits] = stack.back();
            if (waits.empty()) {
                state[n] = 2;
                order.push_back(n);
                stack.pop_back();
                continue;
            }
            const std::uint32_t w = waits.back();
            waits.pop_back();
            if (state[w] == 0) open(static_cast<NodeIndex>(w));
        }
    }
    return order;
}

// The order's cut nodes: those every path from a source to a sink passes
// through. Before a cut node run exactly its ancestors, after it its
// descendants, in every order: the parts between cut nodes are independent
// problems. A node is one iff every dependency crossing the cut after it
// leaves it, and every one crossing the cut before it enters it (sources and
// sinks tied to a virtual source and sink). O(N + E).
[[nodiscard]] inline std::vector<std::uint8_t> cut_nodes(const OrderProblem& p, const std::vector<NodeIndex>& order) {
    const std::size_t N = p.nodes;
    std::vector<std::uint32_t> pos(N);
    for (std::size_t k = 0; k < N; ++k) pos[order[k]] = static_cast<std::uint32_t>(k);
    std::vector<std::int64_t> diff(N + 1, 0);  // crossing[q]: edges from position <= q to position > q
    const auto edge = [&](std::int64_t a, std::int64_t b) {  // positions; -1: the source, N: the sink
        const std::int64_t lo = std::max<std::int64_t>(a, 0), hi = std::min<std::int64_t>(b - 1, static_cast<std::int64_t>(N) - 1);
        if (lo > hi) return;
        ++diff[static_cast<std::size_t>(lo)];
        --diff[static_cast<std::size_t>(hi) + 1];
    };
    std::vector<std::uint32_t> in(N), out(N);
    std::int64_t from_source = 0;
    for (std::size_t n = 0; n < N; ++n) {
        in[n] = p.pred_begin[n + 1] - p.pred_begin[n];
        out[n] = p.succ_begin[n + 1] - p.succ_begin[n];
        for (std::uint32_t j = p.succ_begin[n]; j < p.succ_begin[n + 1]; ++j) edge(pos[n], pos[p.succs[j]]);
        if (in[n] == 0) {
            edge(-1, pos[n]);
            ++from_source;
            in[n] = 1;
        }
        if (out[n] == 0) {
            edge(pos[n], static_cast<std::int64_t>(N));
            out[n] = 1;
        }
    }
    std::vector<std::uint8_t> cut(N, 0);
    std::int64_t crossing = 0, before = from_source;  // edges crossing the cut before position 0
    for (std::size_t q = 0; q < N; ++q) {
        crossing += diff[q];
        const NodeIndex n = order[q];
        cut[n] = crossing == out[n] && before == in[n];
        before = crossing;
    }
    return cut;
}

}  // namespace onnx_runtime_memory::detail
