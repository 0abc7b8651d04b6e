// validate_arena_concurrent: an arena plan checked against a graph run on
// several streams (concurrent.hpp), by its own means: the happens-before
// order worked out again from each node's list of what it waits for (the
// producers of its inputs, the node before it on its stream, its events),
// and every pair of owners that overlap in bytes held to it (the owners on
// any one byte must form a chain in it: each checked against its two
// neighbours there, in O(n log n) however many share a byte).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "concurrent.hpp"
#include "errors.hpp"
#include "expected.hpp"
#include "graph.hpp"
#include "liveness.hpp"
#include "plan_options.hpp"
#include "plan_types.hpp"
#include "validate.hpp"
#include "validate_offsets.hpp"
#include "view_map.hpp"

namespace onnx_runtime_memory {

namespace detail {

// A set of keys 0 .. n-1 that finds the nearest key held below or above a
// given one, in O(log n) each (a Fenwick tree of counts).
class PresentSet {
public:
    static constexpr std::size_t none = static_cast<std::size_t>(-1);
    explicit PresentSet(std::size_t n) : count_(n + 1, 0) {
        while (top_ * 2 <= n) top_ *= 2;
    }
    void insert(std::size_t k) {
        for (std::size_t i = k + 1; i < count_.size(); i += i & (~i + 1)) ++count_[i];
        ++held_;
    }
    void erase(std::size_t k) {
        for (std::size_t i = k + 1; i < count_.size(); i += i & (~i + 1)) --count_[i];
        --held_;
    }
    [[nodiscard]] std::size_t before(std::size_t k) const {  // the greatest key held below k
        const std::size_t c = below(k);
        return c == 0 ? none : nth(c);
    }
    [[nodiscard]] std::size_t after(std::size_t k) const {  // the least key held above k
        const std::size_t c = below(k + 1);
        return c == held_ ? none : nth(c + 1);
    }

private:
    [[nodiscard]] std::size_t below(std::size_t k) const {  // how many keys held are below k
        std::size_t c = 0;
        for (std::size_t i = k; i > 0; i -= i & (~i + 1)) c += count_[i];
        return c;
    }
    [[nodiscard]] std::size_t nth(std::size_t c) const {  // the c-th least key held (from 1)
        std::size_t at = 0;
        for (std::size_t step = top_; step > 0; step /= 2)
            if (at + step < count_.size() && count_[at + step] < c) {
                at += step;
                c -= count_[at];
            }
        return at;
    }
    std::vector<std::uint32_t> count_;  // fewer than 2^32 keys (records, below max_graph_ids)
    std::size_t top_ = 1, held_ = 0;
};

}  // namespace detail

// Checks `plan` for a run on `streams`: with every node on one stream
// (whatever its id), validate_arena.
// Otherwise each owner and scratch has an offset, aligned, inside the arena
// (validate_offsets' checks), each view sits at its root's offset plus its
// window, the liveness is the graph's (validate_liveness); and any two
// owners (or scratch) sharing a byte are ordered: every node touching one
// happens strictly before every node touching the other, following edges
// from producers to readers, along each stream, and of the events. A graph
// input in the arena is there before every node, a kept output after. An
// in-place hint folds only where its node, the last to touch the input's
// bytes, starts after every other node touching them has finished, by this
// order (and the sequential rules take it): a plan that folds more shares
// bytes between owners that may be in use at once.
// OffsetOverlap (or ScratchConflict) names a pair that may be live at once.
// A description the planner would refuse is PlanError::bad_streams's
// ValidateError. O((N + E) K) for the order (its own, from each node's
// list of what it waits for), plus O(R (K + log R)) for R records: each is
// checked against two others, however many share its bytes.
template <activation_graph G, size_oracle Oracle>
[[nodiscard]] expected<void, ValidateError> validate_arena_concurrent(const G& g, const ViewMap& views,
                                                                      const ArenaPlan& plan, Oracle&& oracle,
                                                                      const Streams& streams, std::size_t alignment,
                                                                      const PlanOptions& options = {}) {
    using T = graph_traits<G>;
    const std::size_t N = static_cast<std::size_t>(T::node_count(g)), V = static_cast<std::size_t>(T::value_count(g));
    const auto bad = [](std::size_t node) {
        return unexpected(
            ValidateError::from(make_plan_error(PlanError::Kind::bad_streams, no_value, static_cast<NodeIndex>(node))));
    };
    const auto& on = streams.stream_of;
    if (!on.empty() && on.size() != N) return bad(std::min(N, on.size()));
    bool several = false;
    for (std::size_t n = 0; n < on.size(); ++n) {
        if (on[n] >= Streams::max_streams) return bad(n);
        several = several || on[n] != on[0];
    }
    for (const auto& [a, b] : streams.events)
        if (a >= N || b >= N || a >= b) return bad(b < N && a < b ? a : b);
    if (!several) return validate_arena(g, views, plan, oracle, alignment, options);

    // The order, from each node's own list of what it waits for: rank[n],
    // its place on its stream (1, 2, ...), and before[n * K + s], the
    // highest rank on stream s of a node that finishes before n starts
    // (each stream runs in order, so that node's predecessors there do too).
    std::size_t K = 1;
    for (std::uint32_t s : on) K = std::max<std::size_t>(K, std::size_t{s} + 1);
    const auto stream = [&](std::size_t n) -> std::size_t { return on.empty() ? 0 : on[n]; };
    std::vector<std::vector<NodeIndex>> waits(N);
    std::vector<NodeIndex> producer(V, no_node), last_on(K, no_node);
    for (std::size_t n = 0; n < N; ++n)
        for (auto x : T::node_outputs(g, n))
            if (const auto v = detail::to_value_id(x, V); v && producer[*v] == no_node) producer[*v] = static_cast<NodeIndex>(n);
    for (std::size_t n = 0; n < N; ++n) {
        for (auto x : T::node_inputs(g, n))
            if (const auto v = detail::to_value_id(x, V); v && producer[*v] < n) waits[n].push_back(producer[*v]);
        if (last_on[stream(n)] != no_node) waits[n].push_back(last_on[stream(n)]);
        last_on[stream(n)] = static_cast<NodeIndex>(n);
    }
    for (const auto& [a, b] : streams.events) waits[b].push_back(a);
    std::vector<std::uint32_t> rank(N, 0), count(K, 0), before(N * K, 0);
    for (std::size_t n = 0; n < N; ++n) {
        for (NodeIndex p : waits[n]) {
            for (std::size_t s = 0; s < K; ++s) before[n * K + s] = std::max(before[n * K + s], before[p * K + s]);
            before[n * K + stream(p)] = std::max(before[n * K + stream(p)], rank[p]);
        }
        rank[n] = ++count[stream(n)];
    }

    // In-place hints, judged by this order: where the node writing over the
    // input's bytes is the last to touch them (in the liveness without
    // hints; the sequential rules turn the others down), it stays only if
    // every other node touching them finishes before it starts.
    PlanOptions safe = options;
    if (!options.inplace.empty()) {
        safe.inplace.clear();
        auto plain = compute_liveness(g, views, safe);
        if (!plain) return unexpected(ValidateError::from(plain.error()));
        std::vector<std::vector<NodeIndex>> touching(V);  // by root, in node order
        for (std::size_t n = 0; n < N; ++n) {
            const auto touch = [&](auto x) {
                if (const auto v = detail::to_value_id(x, V); v && (touching[plain->roots[*v]].empty() ||
                                                                    touching[plain->roots[*v]].back() != n))
                    touching[plain->roots[*v]].push_back(static_cast<NodeIndex>(n));
            };
            for (auto x : T::node_inputs(g, n)) touch(x);
            for (auto x : T::node_outputs(g, n)) touch(x);
        }
        std::vector<std::uint8_t> judged(V, 0);  // by root: 1 safe, 2 not (one node can be its last)
        for (const InplaceHint& h : options.inplace) {
            if (h.output < V && h.input < V && producer[h.output] != no_node) {
                const NodeIndex n = producer[h.output];
                const ValueId r = plain->roots[h.input];
                const bool last = !touching[r].empty() && touching[r].back() == n;
                if (last && judged[r] == 0) {
                    judged[r] = 1;
                    for (const NodeIndex m : touching[r])
                        if (m != n && rank[m] > before[n * K + stream(m)]) judged[r] = 2;
                }
                if (last && judged[r] == 2) continue;
            }
            safe.inplace.push_back(h);
        }
    }

    const auto has_offset = [&](ValueId v) { return plan.offset_of(v).has_value(); };
    detail::ArenaRecords made;
    if (auto ok = detail::arena_records(made, g, views, oracle, safe, plan.dynamic_values, has_offset); !ok) return ok;
    const Liveness& live = made.live;
    std::vector<Buffer> records = std::move(made.records);
    const std::size_t owners = made.owners;
    OffsetPlan offsets;  // offsets and bounds first, each record at a time of its own (none meet)
    offsets.arena_bytes = plan.arena_bytes;
    std::vector<NodeIndex> scratch_node;
    for (std::size_t i = 0; i < records.size(); ++i) {
        if (i < owners) offsets.offsets.push_back(plan.offset_of(live.owners[i]).value_or(no_offset));
        else {
            const NodeIndex n = records[i].first;
            scratch_node.push_back(n);
            offsets.offsets.push_back(n < plan.scratch_offsets.size() ? plan.scratch_offsets[n] : no_offset);
        }
        records[i].first = records[i].last = static_cast<NodeIndex>(i);
    }
    if (auto ok = validate_offsets(records, offsets, alignment); !ok) {
        ValidateError err = ok.error();
        if (err.value != no_value && err.value < owners) err.value = live.owners[err.value];
        return unexpected(err);
    }
    const auto offset_of = [&](ValueId v) { return plan.offset_of(v).value_or(no_offset); };
    if (auto ok = detail::check_view_offsets(live, made.windows, offset_of, [](ValueId, ValueId) { return true; }); !ok)
        return ok;

    // Each record's nodes; whether it is there from the start or to the end.
    std::vector<std::vector<NodeIndex>> touched(records.size());
    std::vector<std::uint8_t> from_start(records.size(), 1), to_end(records.size(), 0);
    std::vector<std::uint32_t> record_of(V, 0xFFFFFFFFu);
    for (std::size_t i = 0; i < owners; ++i) record_of[live.owners[i]] = static_cast<std::uint32_t>(i);
    for (std::size_t n = 0; n < N; ++n) {
        const auto touch = [&](auto x, bool writes) {
            const auto v = detail::to_value_id(x, V);
            if (!v || record_of[live.roots[*v]] == 0xFFFFFFFFu) return;
            const std::uint32_t i = record_of[live.roots[*v]];
            if (touched[i].empty() || touched[i].back() != n) touched[i].push_back(static_cast<NodeIndex>(n));
            if (writes) from_start[i] = 0;
        };
        for (auto x : T::node_inputs(g, n)) touch(x, false);
        for (auto x : T::node_outputs(g, n)) touch(x, true);
    }
    for (std::size_t k = 0; k < scratch_node.size(); ++k) {
        touched[owners + k] = {scratch_node[k]};
        from_start[owners + k] = 0;
    }
    for (auto x : T::graph_outputs(g))
        if (const auto v = detail::to_value_id(x, V); v && record_of[live.roots[*v]] != 0xFFFFFFFFu)
            to_end[record_of[live.roots[*v]]] = 1;
    // floor[i * K + s]: the least, over the nodes touching record i, of
    // before[n * K + s]; last[i]: the highest rank, on each stream it
    // touches, of a node touching record i.
    std::vector<std::uint32_t> floor(records.size() * K, 0xFFFFFFFFu);
    std::vector<std::pair<std::uint32_t, std::uint32_t>> last;  // (stream, rank), record i's from last_start[i]
    std::vector<std::size_t> last_start(records.size() + 1, 0);
    std::vector<std::size_t> at_stream(K, 0);  // where record i's entry for a stream is in `last`, plus 1
    for (std::size_t i = 0; i < records.size(); ++i) {
        last_start[i] = last.size();
        for (NodeIndex w : touched[i]) {
            for (std::size_t s = 0; s < K; ++s) floor[i * K + s] = std::min(floor[i * K + s], before[w * K + s]);
            const std::size_t s = stream(w);
            if (at_stream[s] == 0) {
                last.emplace_back(static_cast<std::uint32_t>(s), rank[w]);
                at_stream[s] = last.size();
            }
            last[at_stream[s] - 1].second = std::max(last[at_stream[s] - 1].second, rank[w]);
        }
        for (std::size_t e = last_start[i]; e < last.size(); ++e) at_stream[last[e].first] = 0;
    }
    last_start[records.size()] = last.size();
    const auto ordered = [&](std::size_t a, std::size_t b) {  // all of a strictly before all of b
        if (to_end[a] || from_start[b]) return false;
        for (std::size_t e = last_start[a]; e < last_start[a + 1]; ++e)
            if (last[e].second > floor[b * K + last[e].first]) return false;
        return true;
    };
    const auto conflict = [&](std::size_t i, std::size_t j) {
        ValidateError err;
        if (i >= owners || j >= owners) {
            const std::size_t s = i >= owners ? i : j, o = i >= owners ? j : i;
            err.kind = ValidateError::Kind::scratch_conflict;
            err.node = scratch_node[s - owners];
            err.size = err.capacity = records[s].size;
            err.value = o >= owners ? no_value : live.owners[o];
        } else {
            err.kind = ValidateError::Kind::offset_overlap;
            err.value = std::min(live.owners[i], live.owners[j]);
            err.other = std::max(live.owners[i], live.owners[j]);
        }
        return unexpected(err);
    };

    // Every pair sharing a byte must be ordered. `ordered` is transitive,
    // and a record ordered before another starts at an earlier node (node
    // order runs every wait forward), so the records holding any one byte
    // must form a chain in order of first node. A sweep over the offsets
    // keeps the records holding the current byte by that key, and checks a
    // record coming in against its two neighbours only: if both are ordered
    // with it, so is the rest of the chain. The first record that fails is
    // the one a check of every pair would fail first, and the pair named is
    // the one it would name (the first such record in the sweep).
    std::vector<std::uint32_t> by_offset, by_end;  // records, as 32-bit ids (fewer than max_graph_ids)
    by_offset.reserve(records.size());
    for (std::size_t i = 0; i < records.size(); ++i)
        if (records[i].size > 0) by_offset.push_back(static_cast<std::uint32_t>(i));
    by_end = by_offset;
    const auto end_of = [&](std::size_t i) { return offsets.offsets[i] + records[i].size; };
    std::sort(by_offset.begin(), by_offset.end(), [&](std::size_t a, std::size_t b) {
        return offsets.offsets[a] != offsets.offsets[b] ? offsets.offsets[a] < offsets.offsets[b] : a < b;
    });
    std::sort(by_end.begin(), by_end.end(), [&](std::size_t a, std::size_t b) { return end_of(a) < end_of(b); });
    const auto first_node = [&](std::size_t i) -> std::size_t {  // a record there from the start: before node 0
        return from_start[i] || touched[i].empty() ? 0 : std::size_t{touched[i].front()} + 1;
    };
    std::vector<std::uint32_t> key_start(N + 2, 0), by_key(by_offset.size());  // chain order -> record: a counting sort
    for (std::uint32_t i : by_offset) ++key_start[first_node(i) + 1];
    for (std::size_t k = 1; k < key_start.size(); ++k) key_start[k] += key_start[k - 1];
    std::vector<std::uint32_t> key_of(records.size(), 0);
    for (std::size_t i = 0; i < records.size(); ++i)  // by record, so that equal first nodes go by record
        if (records[i].size > 0) {
            key_of[i] = key_start[first_node(i)]++;
            by_key[key_of[i]] = static_cast<std::uint32_t>(i);
        }
    detail::PresentSet held(by_key.size());  // the keys of the records holding the current byte
    std::size_t leaving = 0;
    for (std::size_t x = 0; x < by_offset.size(); ++x) {
        const std::size_t i = by_offset[x], at = offsets.offsets[i];
        for (; leaving < by_end.size() && end_of(by_end[leaving]) <= at; ++leaving) held.erase(key_of[by_end[leaving]]);
        const std::size_t k = key_of[i];
        const std::size_t below = held.before(k), above = held.after(k);
        const bool fits = (below == held.none || ordered(by_key[below], i)) && (above == held.none || ordered(i, by_key[above]));
        if (!fits) {  // name the pair a check of every pair would: the first one still held, in sweep order
            for (std::size_t y = 0; y < x; ++y)
                if (const std::size_t j = by_offset[y]; end_of(j) > at && !ordered(i, j) && !ordered(j, i)) return conflict(i, j);
            return conflict(i, by_key[below != held.none && !ordered(by_key[below], i) ? below : above]);  // not reached
        }
        held.insert(k);
    }
    return detail::validate_dense_liveness(*made.graph, views, live, safe);
}

}  // namespace onnx_runtime_memory
