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
#include <map>
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
    std::size_t initial = 0;  // buffers live from the start (graph inputs in the arena) with a user
    std::size_t at_start = 0; // such buffers nobody uses: live at the first step only

    [[nodiscard]] std::size_t buffers() const noexcept { return size.size(); }
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

// The least peak of the nodes order[begin, end) (a part between cut nodes,
// or any window of consecutive steps), scheduled after order[0, begin),
// which leave `left` users of each buffer and `live` bytes (the same in
// every order of those): dynamic programming over the sets of the part's
// nodes already run, layer by layer, each set keeping its least peak so
// far; sets whose peak reaches `below` are dropped. Up to 62 nodes and
// `steps` transitions (decremented); nullopt past either. Deterministic:
// sets in ascending order, nodes ascending. O(k) set-up besides the
// transitions: `space` keeps its tables cleared between calls.
struct PartOrder {
    std::vector<NodeIndex> order;  // empty: no order of the part peaks below `below`
    std::size_t peak = 0;
};
struct PartSpace {
    std::vector<std::uint32_t> local;     // by node: its index in the part (none outside it)
    std::vector<std::uint64_t> users_in;  // by buffer: the part's nodes using it (0 outside it)
};
[[nodiscard]] inline std::optional<PartOrder> best_part_order(const OrderProblem& p, const std::vector<NodeIndex>& order,
                                                             std::size_t begin, std::size_t end,
                                                             const std::vector<std::uint32_t>& left, std::size_t live,
                                                             std::size_t below, std::size_t& steps, PartSpace& space) {
    const std::size_t k = end - begin;
    if (k == 0 || k > 62) return std::nullopt;
    constexpr std::uint32_t none = 0xFFFFFFFFu;
    auto& local = space.local;
    auto& users_in = space.users_in;
    if (local.size() != p.nodes) local.assign(p.nodes, none);
    if (users_in.size() != p.buffers()) users_in.assign(p.buffers(), 0);
    for (std::size_t i = 0; i < k; ++i) local[order[begin + i]] = static_cast<std::uint32_t>(i);
    // What the part's nodes wait for inside it, and the part nodes using
    // each buffer; a buffer is freed when those have run and no user is left
    // after the part.
    std::vector<std::uint64_t> waits(k, 0);
    for (std::size_t i = 0; i < k; ++i) {
        const NodeIndex n = order[begin + i];
        for (std::uint32_t j = p.pred_begin[n]; j < p.pred_begin[n + 1]; ++j)
            if (local[p.preds[j]] != none) waits[i] |= std::uint64_t{1} << local[p.preds[j]];
        for (std::uint32_t j = p.use_begin[n]; j < p.use_begin[n + 1]; ++j) users_in[p.uses[j]] |= std::uint64_t{1} << i;
    }
    const auto clear = [&] {  // on every return: the tables as they were
        for (std::size_t i = 0; i < k; ++i) {
            const NodeIndex n = order[begin + i];
            local[n] = none;
            for (std::uint32_t j = p.use_begin[n]; j < p.use_begin[n + 1]; ++j) users_in[p.uses[j]] = 0;
        }
    };
    struct Cleared {
        const decltype(clear)& f;
        ~Cleared() { f(); }
    } cleared{clear};
    const auto frees = [&](std::uint32_t b) {
        return !p.kept[b] && left[b] == static_cast<std::uint32_t>(std::popcount(users_in[b]));
    };
    struct State {
        std::size_t peak, live;
        std::uint64_t from;
        std::uint32_t node;
    };
    std::vector<std::map<std::uint64_t, State>> layers(k + 1);  // ordered: deterministic, as sets ascend
    layers[0][0] = State{0, live, 0, 0};
    for (std::size_t size = 0; size < k; ++size) {
        for (const auto& [s, st] : layers[size]) {
            for (std::uint32_t i = 0; i < k; ++i) {
                if ((s >> i & 1) || (waits[i] & ~s)) continue;
                if (steps == 0) return std::nullopt;
                --steps;
                const NodeIndex n = order[begin + i];
                const std::size_t during = saturating_add(st.live, p.alloc[n]);
                const std::size_t seen = size == 0 && begin == 0 ? saturating_add(during, p.at_start) : during;
                const std::uint64_t t = s | std::uint64_t{1} << i;
                std::size_t after = during;
                for (std::uint32_t j = p.use_begin[n]; j < p.use_begin[n + 1]; ++j) {
                    const std::uint32_t b = p.uses[j];
                    if (frees(b) && (users_in[b] & ~t) == 0) after -= std::min(after, p.size[b]);
                }
                const std::size_t peak = std::max(st.peak, seen);
                if (peak >= below) continue;
                auto [it, fresh] = layers[size + 1].try_emplace(t, State{peak, after, s, i});
                if (!fresh && peak < it->second.peak) it->second = State{peak, after, s, i};
            }
        }
    }
    const std::uint64_t all = (std::uint64_t{1} << k) - 1;
    PartOrder result;
    if (layers[k].empty()) return PartOrder{{}, below};
    result.peak = layers[k].at(all).peak;
    result.order.resize(k);
    std::uint64_t s = all;
    for (std::size_t size = k; size > 0; --size) {
        const State& st = layers[size].at(s);
        result.order[size - 1] = order[begin + st.node];
        s = st.from;
    }
    return result;
}

// Lowers an order's peak by re-ordering windows of consecutive steps
// exactly: the bytes live entering and leaving a window are the same in
// every order of its nodes, so a window's best order lowers its own steps
// and moves no other. While the first step at the peak lies in a window
// (growing, placed around it, after it, before it) whose best peak is
// lower, that window takes its best order. Each window gets up to
// `window_steps` transitions, all of them up to `steps` (decremented).
// Returns whether the order changed.
inline bool lower_peak_by_windows(const OrderProblem& p, std::vector<NodeIndex>& order, std::size_t window_steps,
                                  std::size_t& steps) {
    const std::size_t N = order.size();
    bool changed = false;
    PartSpace space;
    std::vector<std::uint32_t> left;
    std::size_t live = 0;
    const auto left_at = [&](std::size_t b) -> const std::vector<std::uint32_t>& {  // the state before step b
        left = p.users;
        live = p.initial;
        for (std::size_t q = 0; q < b; ++q) (void)run_node(p, order[q], left, live);
        return left;
    };
    for (;;) {
        const auto during = step_bytes(p, order);
        const std::size_t peak = *std::max_element(during.begin(), during.end());
        const std::size_t q = static_cast<std::size_t>(std::find(during.begin(), during.end(), peak) - during.begin());
        bool lowered = false;
        for (std::size_t w : {8u, 16u, 24u, 32u, 40u, 48u}) {
            w = std::min(w, N);
            const std::size_t starts[3] = {q >= w / 2 ? q - w / 2 : 0, q + 1 >= w ? q + 1 - w : 0, q};
            for (std::size_t b : starts) {
                b = std::min(b, N - w);
                if (steps < N) return changed;  // the window's set-up: the steps before it simulated
                steps -= N;
                std::size_t s = std::min(steps, window_steps);
                const std::size_t had = s;
                const auto& before = left_at(b);  // sets live too
                auto part = best_part_order(p, order, b, b + w, before, live, peak, s, space);
                steps -= had - s;
                if (part && !part->order.empty()) {
                    std::copy(part->order.begin(), part->order.end(), order.begin() + static_cast<std::ptrdiff_t>(b));
                    lowered = changed = true;
                    break;
                }
                if (steps == 0) return changed;
            }
            if (lowered || w == N) break;
        }
        if (!lowered) return changed;
    }
}

// Lowers an order's peak by moving single nodes: at the first step at the
// peak, a node run before it moves to just before its first successor, or a
// node run after it to just after its last predecessor, when that lowers
// the peak or the number of steps at it. Each try simulates the order:
// O(N) of `steps` (decremented). Returns whether the order changed.
inline bool lower_peak_by_moves(const OrderProblem& p, std::vector<NodeIndex>& order, std::size_t& steps) {
    const std::size_t N = order.size();
    std::vector<std::uint32_t> pos(N);
    const auto score = [&](const std::vector<NodeIndex>& o) {
        const auto during = step_bytes(p, o);
        const std::size_t peak = *std::max_element(during.begin(), during.end());
        return std::pair<std::size_t, std::size_t>(peak, static_cast<std::size_t>(std::count(during.begin(), during.end(), peak)));
    };
    bool changed = false;
    auto current = score(order);
    std::vector<NodeIndex> trial;
    for (;;) {
        for (std::size_t k = 0; k < N; ++k) pos[order[k]] = static_cast<std::uint32_t>(k);
        const auto during = step_bytes(p, order);
        const std::size_t q = static_cast<std::size_t>(std::find(during.begin(), during.end(), current.first) - during.begin());
        bool moved = false;
        for (std::size_t k = 0; k < N && !moved; ++k) {
            const NodeIndex n = order[k];
            std::size_t to = k;
            if (k <= q) {  // later: just before its first successor
                std::size_t first = N;
                for (std::uint32_t j = p.succ_begin[n]; j < p.succ_begin[n + 1]; ++j) first = std::min<std::size_t>(first, pos[p.succs[j]]);
                if (first <= q + 1) continue;
                to = first - 1;
            } else {  // earlier: just after its last predecessor
                std::size_t last = 0;
                bool any = false;
                for (std::uint32_t j = p.pred_begin[n]; j < p.pred_begin[n + 1]; ++j) {
                    last = std::max<std::size_t>(last, pos[p.preds[j]]);
                    any = true;
                }
                const std::size_t earliest = any ? last + 1 : 0;
                if (earliest > q) continue;
                to = earliest;
            }
            if (steps < N) return changed;
            steps -= N;
            trial = order;
            if (to > k) std::rotate(trial.begin() + static_cast<std::ptrdiff_t>(k), trial.begin() + static_cast<std::ptrdiff_t>(k) + 1,
                                    trial.begin() + static_cast<std::ptrdiff_t>(to) + 1);
            else std::rotate(trial.begin() + static_cast<std::ptrdiff_t>(to), trial.begin() + static_cast<std::ptrdiff_t>(k),
                             trial.begin() + static_cast<std::ptrdiff_t>(k) + 1);
            const auto s = score(trial);
            if (s < current) {
                current = s;
                order.swap(trial);
                moved = changed = true;
            }
        }
        if (!moved) return changed;
    }
}

}  // namespace onnx_runtime_memory::detail
