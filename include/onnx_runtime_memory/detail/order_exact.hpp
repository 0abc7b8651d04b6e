// The memory-aware order's exact searches, on the problem of
// order_search.hpp: the least peak of a part (between cut nodes) or of a
// window of consecutive steps, by dynamic programming over the sets of its
// nodes already run, under a step budget; and the windows pass that lowers
// an order's peak with it.
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
#include "order_search.hpp"
#include "sort.hpp"

namespace onnx_runtime_memory::detail {

// The least peak of the nodes order[begin, end) (a part between cut nodes,
// or any window of consecutive steps), scheduled after order[0, begin),
// which leave `left` users of each buffer and `live` bytes (the same in
// every order of those): dynamic programming over the sets of the part's
// nodes already run, layer by layer, each set keeping its least peak so far
// (the bytes live after a set are the same however it was reached); sets
// whose peak reaches `below` are dropped, which is what keeps the sets few.
// A set is a bitset with the nodes ready to run after it. Costs 1 + the
// bitset's words of `steps` (decremented) a transition, and a set kept what
// it holds in 8-byte words (its bitsets, its layer entry and trail, its
// share of the hash table: the search holds at most 8 bytes a step);
// nullopt past them.
// Deterministic: sets in the order they are first reached, nodes ascending.
struct PartOrder {
    std::vector<NodeIndex> order;  // empty: no order of the part peaks below `below`
    std::size_t peak = 0;
};
struct PartSpace {
    static constexpr std::uint32_t none = 0xFFFFFFFFu;
    std::vector<std::uint32_t> local;   // by node: its index in the part (none outside it)
    std::vector<std::uint32_t> in_part;  // by buffer: its index among the part's buffers (none)
    // The part, in local indices (CSR): what each node waits for and is
    // waited for by, the buffers each may free, each buffer's users.
    std::vector<std::uint32_t> wait_begin, waits, next_begin, nexts, free_begin, frees, user_begin, users;
    std::vector<std::size_t> bytes;  // by part buffer
    // The layers: each set's run and ready bitsets (2W words), and for
    // every set reached its best predecessor and the node it ran last.
    std::vector<std::uint64_t> sets, next_sets;
    struct Layer {
        std::size_t peak, live;
        std::uint32_t trail;  // index into `trail`
    };
    std::vector<Layer> layer, next_layer;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> trail;  // predecessor's trail index, node
    std::vector<std::uint32_t> table;  // open addressing over next_layer
    // Set-up scratch: the part's buffers, their users in the part, a fill
    // cursor, the set being built.
    std::vector<std::uint32_t> part_buffers, count, fill;
    std::vector<std::uint64_t> t;
};
[[nodiscard]] inline std::optional<PartOrder> best_part_order(const OrderProblem& p, const std::vector<NodeIndex>& order,
                                                             std::size_t begin, std::size_t end,
                                                             const std::vector<std::uint32_t>& left, std::size_t live,
                                                             std::size_t below, std::size_t& steps, PartSpace& sp) {
    constexpr std::uint32_t none = PartSpace::none;
    const std::size_t k = end - begin, W = (k + 63) / 64;
    if (k == 0 || k >= none / 2) return std::nullopt;
    if (sp.local.size() != p.nodes) sp.local.assign(p.nodes, none);
    if (sp.in_part.size() != p.buffers()) sp.in_part.assign(p.buffers(), none);
    for (std::size_t i = 0; i < k; ++i) sp.local[order[begin + i]] = static_cast<std::uint32_t>(i);
    // The part's buffers, and which of them a node may free: those with no
    // user left after the part (and not kept).
    auto& buffers = sp.part_buffers;  // part buffer -> buffer
    auto& count = sp.count;
    buffers.clear();
    count.clear();
    for (std::size_t i = 0; i < k; ++i) {
        const NodeIndex n = order[begin + i];
        for (std::uint32_t j = p.use_begin[n]; j < p.use_begin[n + 1]; ++j) {
            const std::uint32_t b = p.uses[j];
            if (sp.in_part[b] == none) {
                sp.in_part[b] = static_cast<std::uint32_t>(buffers.size());
                buffers.push_back(b);
                count.push_back(0);
            }
            ++count[sp.in_part[b]];
        }
    }
    const auto csr = [&](std::vector<std::uint32_t>& first, std::vector<std::uint32_t>& items, std::size_t rows, auto each) {
        first.assign(rows + 1, 0);
        items.clear();
        for (std::size_t r = 0; r < rows; ++r) {
            each(r, [&](std::uint32_t x) { items.push_back(x); });
            first[r + 1] = static_cast<std::uint32_t>(items.size());
        }
    };
    csr(sp.wait_begin, sp.waits, k, [&](std::size_t i, auto add) {
        const NodeIndex n = order[begin + i];
        for (std::uint32_t j = p.pred_begin[n]; j < p.pred_begin[n + 1]; ++j)
            if (sp.local[p.preds[j]] != none) add(sp.local[p.preds[j]]);
    });
    csr(sp.next_begin, sp.nexts, k, [&](std::size_t i, auto add) {
        const NodeIndex n = order[begin + i];
        for (std::uint32_t j = p.succ_begin[n]; j < p.succ_begin[n + 1]; ++j)
            if (sp.local[p.succs[j]] != none) add(sp.local[p.succs[j]]);
    });
    csr(sp.free_begin, sp.frees, k, [&](std::size_t i, auto add) {
        const NodeIndex n = order[begin + i];
        for (std::uint32_t j = p.use_begin[n]; j < p.use_begin[n + 1]; ++j) {
            const std::uint32_t b = p.uses[j];
            if (!p.kept[b] && left[b] == count[sp.in_part[b]]) add(sp.in_part[b]);
        }
    });
    sp.user_begin.assign(buffers.size() + 1, 0);
    for (std::size_t x = 0; x < buffers.size(); ++x) sp.user_begin[x + 1] = sp.user_begin[x] + count[x];
    sp.users.assign(sp.user_begin.back(), 0);
    sp.fill.assign(sp.user_begin.begin(), sp.user_begin.end() - 1);
    for (std::size_t i = 0; i < k; ++i) {
        const NodeIndex n = order[begin + i];
        for (std::uint32_t j = p.use_begin[n]; j < p.use_begin[n + 1]; ++j)
            sp.users[sp.fill[sp.in_part[p.uses[j]]]++] = static_cast<std::uint32_t>(i);
    }
    sp.bytes.resize(buffers.size());
    for (std::size_t x = 0; x < buffers.size(); ++x) sp.bytes[x] = p.size[buffers[x]];
    for (std::size_t i = 0; i < k; ++i) sp.local[order[begin + i]] = none;  // the tables as they were
    for (std::uint32_t b : buffers) sp.in_part[b] = none;

    const auto bit = [](const std::uint64_t* s, std::size_t i) { return (s[i / 64] >> (i % 64) & 1) != 0; };
    const auto hash = [&](const std::uint64_t* s) {
        std::uint64_t h = 0x9E3779B97F4A7C15ull;
        for (std::size_t w = 0; w < W; ++w) {
            h ^= s[w];
            h *= 0xBF58476D1CE4E5B9ull;
            h ^= h >> 31;
        }
        return h;
    };
    sp.sets.assign(2 * W, 0);
    for (std::size_t i = 0; i < k; ++i)
        if (sp.wait_begin[i + 1] == sp.wait_begin[i]) sp.sets[W + i / 64] |= std::uint64_t{1} << (i % 64);
    sp.trail.assign(1, {none, none});
    sp.layer.assign(1, PartSpace::Layer{0, live, 0});
    auto& t = sp.t;
    t.assign(2 * W, 0);
    for (std::size_t size = 0; size < k; ++size) {
        sp.next_sets.clear();
        sp.next_layer.clear();
        std::size_t slots = 64;
        while (slots < 4 * sp.layer.size()) slots *= 2;
        sp.table.assign(slots, none);
        for (std::size_t s = 0; s < sp.layer.size(); ++s) {
            const PartSpace::Layer st = sp.layer[s];
            for (std::size_t w = 0; w < W; ++w)
                for (std::uint64_t ready = sp.sets[s * 2 * W + W + w]; ready != 0; ready &= ready - 1) {
                    const std::size_t i = w * 64 + static_cast<std::size_t>(std::countr_zero(ready));
                    if (steps < 1 + W) return std::nullopt;
                    steps -= 1 + W;
                    const NodeIndex n = order[begin + i];
                    const std::size_t during = saturating_add(st.live, p.alloc[n]);
                    const std::size_t seen = size == 0 && begin == 0 ? saturating_add(during, p.at_start) : during;
                    const std::size_t peak = std::max(st.peak, seen);
                    if (peak >= below) continue;
                    std::copy_n(&sp.sets[s * 2 * W], 2 * W, t.begin());
                    t[i / 64] |= std::uint64_t{1} << (i % 64);
                    t[W + i / 64] &= ~(std::uint64_t{1} << (i % 64));
                    for (std::uint32_t j = sp.next_begin[i]; j < sp.next_begin[i + 1]; ++j) {
                        const std::uint32_t m = sp.nexts[j];
                        bool all = true;
                        for (std::uint32_t q = sp.wait_begin[m]; q < sp.wait_begin[m + 1] && all; ++q) all = bit(t.data(), sp.waits[q]);
                        if (all) t[W + m / 64] |= std::uint64_t{1} << (m % 64);
                    }
                    std::size_t after = during;
                    for (std::uint32_t j = sp.free_begin[i]; j < sp.free_begin[i + 1]; ++j) {
                        const std::uint32_t x = sp.frees[j];
                        bool all = true;
                        for (std::uint32_t q = sp.user_begin[x]; q < sp.user_begin[x + 1] && all; ++q) all = bit(t.data(), sp.users[q]);
                        if (all) after -= std::min(after, sp.bytes[x]);
                    }
                    // The set reached: new, or reached again at a lower peak.
                    std::size_t h = static_cast<std::size_t>(hash(t.data())) & (slots - 1);
                    for (;; h = (h + 1) & (slots - 1)) {
                        const std::uint32_t at = sp.table[h];
                        if (at == none) {  // a set kept: its words count as steps, so memory is bounded
                            if (sp.trail.size() >= none - 1 || steps < 2 * W + 8) return std::nullopt;
                            steps -= 2 * W + 8;
                            sp.table[h] = static_cast<std::uint32_t>(sp.next_layer.size());
                            sp.next_sets.insert(sp.next_sets.end(), t.begin(), t.end());
                            sp.next_layer.push_back({peak, after, static_cast<std::uint32_t>(sp.trail.size())});
                            sp.trail.emplace_back(st.trail, static_cast<std::uint32_t>(i));
                            break;
                        }
                        if (std::equal(t.begin(), t.begin() + static_cast<std::ptrdiff_t>(W), sp.next_sets.begin() + static_cast<std::ptrdiff_t>(std::size_t{at} * 2 * W))) {
                            PartSpace::Layer& old = sp.next_layer[at];
                            if (peak < old.peak) {
                                old.peak = peak;
                                sp.trail[old.trail] = {st.trail, static_cast<std::uint32_t>(i)};
                            }
                            break;
                        }
                    }
                    if (2 * sp.next_layer.size() > slots) {  // rehash at half full
                        slots *= 2;
                        sp.table.assign(slots, none);
                        for (std::size_t x = 0; x < sp.next_layer.size(); ++x) {
                            std::size_t g = static_cast<std::size_t>(hash(&sp.next_sets[x * 2 * W])) & (slots - 1);
                            while (sp.table[g] != none) g = (g + 1) & (slots - 1);
                            sp.table[g] = static_cast<std::uint32_t>(x);
                        }
                    }
                }
        }
        sp.sets.swap(sp.next_sets);
        sp.layer.swap(sp.next_layer);
        if (sp.layer.empty()) return PartOrder{{}, below};
    }
    PartOrder result;
    result.peak = sp.layer[0].peak;
    result.order.resize(k);
    for (std::uint32_t at = sp.layer[0].trail, q = static_cast<std::uint32_t>(k); q > 0; at = sp.trail[at].first)
        result.order[--q] = order[begin + sp.trail[at].second];
    return result;
}

// Lowers an order's peak by re-ordering windows of consecutive steps
// exactly: the bytes live entering and leaving a window are the same in
// every order of its nodes, so a window's best order lowers its own steps
// and moves no other. While the first step at the peak lies in a window
// (growing from 16 to 256 steps while the last one finished; placed
// around it, after it, before it) whose best peak is lower, that window
// takes its best order. A window of w steps gets up to window_steps / 64 * w
// of best_part_order's steps, all of them up to `steps` (decremented).
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
        bool lowered = false, spent = false;  // spent: a window ran out of steps, so a larger one would too
        for (std::size_t w : {16u, 32u, 64u, 128u, 256u}) {
            w = std::min(w, N);
            const std::size_t starts[3] = {q >= w / 2 ? q - w / 2 : 0, q + 1 >= w ? q + 1 - w : 0, q};
            for (std::size_t b : starts) {
                b = std::min(b, N - w);
                if (steps < N) return changed;  // the window's set-up: the steps before it simulated
                steps -= N;
                std::size_t s = std::min(steps, window_steps / 64 * w);
                const std::size_t had = s;
                const auto& before = left_at(b);  // sets live too
                auto part = best_part_order(p, order, b, b + w, before, live, peak, s, space);
                steps -= had - s;
                if (part && !part->order.empty()) {
                    std::copy(part->order.begin(), part->order.end(), order.begin() + static_cast<std::ptrdiff_t>(b));
                    lowered = changed = true;
                    break;
                }
                spent = spent || !part;
                if (steps == 0) return changed;
            }
            if (lowered || spent || w == N) break;
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
    std::vector<std::uint32_t> left;
    const auto score = [&](const std::vector<NodeIndex>& o) {  // the peak and the steps at it, in one pass
        left.assign(p.users.begin(), p.users.end());
        std::size_t live = p.initial, peak = 0, at_peak = 0;
        for (std::size_t k = 0; k < o.size(); ++k) {
            std::size_t during = run_node(p, o[k], left, live);
            if (k == 0) during = saturating_add(during, p.at_start);
            if (during > peak) {
                peak = during;
                at_peak = 0;
            }
            at_peak += during == peak;
        }
        return std::pair<std::size_t, std::size_t>(peak, at_peak);
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
