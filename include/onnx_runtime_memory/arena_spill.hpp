// A graph's arena spilled across a fast space and a slow one (spill.hpp on
// the graph's records): each owner, with its views and in-place folds, and
// each node's scratch is a buffer, used at the nodes that read or write it.
// A graph input (PlanOptions::include_graph_inputs) may arrive in the slow
// space and a value a graph output reads may be left there after its last
// use; everything else waits there only between uses.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "arena.hpp"
#include "graph.hpp"
#include "liveness.hpp"
#include "plan_options.hpp"
#include "plan_types.hpp"
#include "sizes.hpp"
#include "spill.hpp"

namespace onnx_runtime_memory {

inline constexpr std::uint32_t no_record = 0xFFFFFFFFu;

struct SpilledArenaPlan {
    // Over the records: the planned owners in Liveness::owners order, then
    // the scratch of each node that has some, by node.
    SpillPlan spill;
    std::vector<Buffer> records;                // their bytes and lives, by record
    std::vector<std::uint32_t> record;          // by value: its root owner's record (no_record: not in the arena)
    std::vector<std::uint32_t> scratch_record;  // by node (empty without scratch; no_record: none)
    std::vector<ValueId> dynamic_values;        // UnknownSizes::dynamic: the owners of unknown size, ascending
};
using SpilledArenaStatus = BasicPlanStatus<SpilledArenaPlan>;

namespace detail {

// Where each owner is used: value_uses.at[begin[r] .. begin[r + 1]) are the
// positions of the nodes that read or write owner r or a value on it
// (ascending, each once); empty for a value that is no owner. What the graph
// gives; the records of each request are made from it.
template <activation_graph G>
void owner_uses(const G& g, const Liveness& live, BufferUses& value_uses) {
    using T = graph_traits<G>;
    const std::size_t N = static_cast<std::size_t>(T::node_count(g)), V = live.value_count();
    std::vector<std::size_t> seen(V, N);  // the last node that listed an owner
    value_uses.begin.assign(V + 1, 0);
    const auto each_use = [&](auto&& visit) {
        std::fill(seen.begin(), seen.end(), N);
        for (std::size_t n = 0; n < N; ++n) {
            const auto one = [&](auto x) {
                const auto v = to_value_id(x, V);
                if (!v) return;
                const ValueId r = live.roots[*v];
                if (!live.is_owner(r) || seen[r] == n) return;
                seen[r] = n;
                visit(r, n);
            };
            for (auto x : T::node_inputs(g, static_cast<NodeIndex>(n))) one(x);
            for (auto x : T::node_outputs(g, static_cast<NodeIndex>(n))) one(x);
        }
    };
    each_use([&](ValueId r, std::size_t) { ++value_uses.begin[r + 1]; });
    for (std::size_t v = 0; v < V; ++v) value_uses.begin[v + 1] += value_uses.begin[v];
    value_uses.at.resize(value_uses.begin.back());
    std::vector<std::size_t> at(value_uses.begin.begin(), value_uses.begin.end() - 1);
    each_use([&](ValueId r, std::size_t n) { value_uses.at[at[r]++] = static_cast<NodeIndex>(n); });
}

// One request's records (the planned owners, then each scratch) and their
// uses, from the owners' uses; each value's record and each node's.
inline void spill_records(const Liveness& live, const OwnerSizes& sizes, std::span<const std::size_t> scratch,
                          const BufferUses& value_uses, SpilledArenaPlan& plan, BufferUses& uses) {
    auto& records = plan.records;
    records.clear();
    owner_buffers(live, sizes.bytes, records);
    const std::size_t owners = records.size(), V = live.value_count();
    scratch_buffers(scratch, records);
    plan.record.assign(V, no_record);
    for (std::size_t i = 0; i < owners; ++i) plan.record[live.owners[i]] = static_cast<std::uint32_t>(i);
    for (std::size_t v = 0; v < V; ++v)
        if (live.roots[v] != v) plan.record[v] = plan.record[live.roots[v]];
    plan.scratch_record.assign(scratch.size(), no_record);
    uses.begin.assign(1, 0);
    uses.at.clear();
    for (const ValueId v : live.owners) {
        uses.at.insert(uses.at.end(), value_uses.at.begin() + static_cast<std::ptrdiff_t>(value_uses.begin[v]),
                       value_uses.at.begin() + static_cast<std::ptrdiff_t>(value_uses.begin[v + 1]));
        uses.begin.push_back(uses.at.size());
    }
    for (std::size_t n = 0, k = owners; n < scratch.size(); ++n)
        if (scratch[n] > 0) {
            plan.scratch_record[n] = static_cast<std::uint32_t>(k++);
            uses.at.push_back(static_cast<NodeIndex>(n));
            uses.begin.push_back(uses.at.size());
        }
}

// Plans one request's records across the spaces, the culprits named as the graph's.
[[nodiscard]] inline expected<void, SpillError> spill_request(const Liveness& live, const OwnerSizes& sizes,
                                                              std::span<const std::size_t> scratch,
                                                              const BufferUses& value_uses,
                                                              std::span<const PinnedOffset> pinned,
                                                              const SpillOptions& options, SpilledArenaPlan& plan) {
    BufferUses uses;
    spill_records(live, sizes, scratch, value_uses, plan, uses);
    if (auto ok = pin_owners(live, pinned, plan.records); !ok) {
        SpillError e;
        e.kind = SpillError::Kind::bad_records;
        e.plan = ok.error();
        return unexpected(e);
    }
    auto spill = plan_spill(plan.records, uses, options);
    if (!spill) {
        SpillError e = spill.error();
        if (e.kind == SpillError::Kind::bad_records) e.plan = name_owners(e.plan, live);
        if (e.kind == SpillError::Kind::pinned && e.buffer < live.owners.size()) e.buffer = live.owners[e.buffer];
        return unexpected(e);
    }
    plan.spill = std::move(*spill);
    return {};
}

}  // namespace detail

// Plans a graph's arena across options.fast and options.slow (see the top
// of this file) under plan_options' policies and scratch. Errors: SpillError
// (a graph or option the planner refuses: bad_records with the PlanError;
// a pinned owner; a fast space below some node's floor: below_floor lists
// the nodes with their bytes).
template <activation_graph G, size_oracle Oracle>
[[nodiscard]] expected<SpilledArenaStatus, SpillError> plan_arena_spill(const G& g, const ViewMap& views,
                                                                        Oracle&& oracle,
                                                                        const PlanOptions& plan_options,
                                                                        const SpillOptions& options = {}) {
    auto live = compute_liveness(g, views, plan_options);
    if (!live) return refused_records<SpillError>(live.error());
    const auto& scratch = plan_options.scratch_bytes;
    auto request = detail::size_for_plan(*live, oracle, plan_options.unknown_sizes, scratch);
    if (!request) return refused_records<SpillError>(request.error());
    if (request->deferred) return SpilledArenaStatus::deferred(std::move(request->sizes.unknown));
    const Liveness& planned = request->planned(*live);
    BufferUses value_uses;
    detail::owner_uses(g, *live, value_uses);
    SpilledArenaPlan result;
    if (auto ok = detail::spill_request(planned, request->sizes, scratch, value_uses, plan_options.pinned, options, result);
        !ok)
        return unexpected(ok.error());
    result.dynamic_values = std::move(request->sizes.unknown);
    return SpilledArenaStatus::complete(std::move(result));
}

}  // namespace onnx_runtime_memory
