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

// The records and where each is used: an owner at every node that reads or
// writes it or a value on it, a scratch at its node; and each value's record.
template <activation_graph G>
void spill_records(const G& g, const Liveness& live, const OwnerSizes& sizes, std::span<const std::size_t> scratch,
                   std::vector<Buffer>& records, BufferUses& uses, std::vector<std::uint32_t>& record,
                   std::vector<std::uint32_t>& scratch_record) {
    using T = graph_traits<G>;
    records.clear();
    owner_buffers(live, sizes.bytes, records);
    const std::size_t owners = records.size(), V = live.value_count();
    scratch_buffers(scratch, records);
    record.assign(V, no_record);
    for (std::size_t i = 0; i < owners; ++i) record[live.owners[i]] = static_cast<std::uint32_t>(i);
    for (std::size_t v = 0; v < V; ++v)
        if (live.roots[v] != v) record[v] = record[live.roots[v]];
    scratch_record.assign(scratch.size(), no_record);
    for (std::size_t n = 0, k = owners; n < scratch.size(); ++n)
        if (scratch[n] > 0) scratch_record[n] = static_cast<std::uint32_t>(k++);

    // Each node's records, once each, counted then filled.
    const std::size_t N = static_cast<std::size_t>(T::node_count(g));
    std::vector<std::size_t> seen(records.size(), N);  // the last node that listed a record
    uses.begin.assign(records.size() + 1, 0);
    const auto each_use = [&](auto&& visit) {
        std::fill(seen.begin(), seen.end(), N);
        for (std::size_t n = 0; n < N; ++n) {
            const auto one = [&](auto x) {
                const auto v = to_value_id(x, V);
                if (!v || record[*v] == no_record || seen[record[*v]] == n) return;
                seen[record[*v]] = n;
                visit(record[*v], n);
            };
            for (auto x : T::node_inputs(g, static_cast<NodeIndex>(n))) one(x);
            for (auto x : T::node_outputs(g, static_cast<NodeIndex>(n))) one(x);
            if (n < scratch_record.size() && scratch_record[n] != no_record) visit(scratch_record[n], n);
        }
    };
    each_use([&](std::uint32_t r, std::size_t) { ++uses.begin[r + 1]; });
    for (std::size_t r = 0; r < records.size(); ++r) uses.begin[r + 1] += uses.begin[r];
    uses.at.resize(uses.begin.back());
    std::vector<std::size_t> at(uses.begin.begin(), uses.begin.end() - 1);
    each_use([&](std::uint32_t r, std::size_t n) { uses.at[at[r]++] = static_cast<NodeIndex>(n); });
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
    const auto refused = [](PlanError e) {
        SpillError err;
        err.kind = SpillError::Kind::bad_records;
        err.plan = e;
        return unexpected(err);
    };
    auto live = compute_liveness(g, views, plan_options);
    if (!live) return refused(live.error());
    const auto& scratch = plan_options.scratch_bytes;
    auto request = detail::size_for_plan(*live, oracle, plan_options.unknown_sizes, scratch);
    if (!request) return refused(request.error());
    if (request->deferred) return SpilledArenaStatus::deferred(std::move(request->sizes.unknown));
    const Liveness& planned = request->planned(*live);
    BufferUses uses;
    SpilledArenaPlan result;
    auto& records = result.records;
    detail::spill_records(g, planned, request->sizes, scratch, records, uses, result.record, result.scratch_record);
    if (auto ok = pin_owners(planned, plan_options.pinned, records); !ok) return refused(ok.error());
    auto spill = plan_spill(records, uses, options);
    if (!spill) {
        SpillError e = spill.error();
        if (e.kind == SpillError::Kind::bad_records) e.plan = detail::name_owners(e.plan, planned);
        if (e.kind == SpillError::Kind::pinned && e.buffer < planned.owners.size()) e.buffer = planned.owners[e.buffer];
        return unexpected(e);
    }
    result.spill = std::move(*spill);
    result.dynamic_values = std::move(request->sizes.unknown);
    return SpilledArenaStatus::complete(std::move(result));
}

}  // namespace onnx_runtime_memory
