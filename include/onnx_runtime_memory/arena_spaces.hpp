// A graph's arena across memory spaces, static mode: plan_arena where the
// caller has several spaces with capacities (say `device` 8 GiB at 256 and
// `host` unbounded at 64). Each owner (and with it its views and in-place
// folds) and each node's scratch lives in one space for its whole life; the
// spaces each owner may use come from the options, by kind and by value;
// spaces.hpp decides and packs. Where every owner and scratch prefers one
// space and plan_arena's plan fits in it, that is the plan, bit for bit.
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
#include "spaces.hpp"

namespace onnx_runtime_memory {

inline constexpr std::uint32_t no_space = 0xFFFFFFFFu;

// A value's own preference list (a view or fold: its root's), over its kind's.
struct ValueSpaces {
    ValueId value = no_value;
    std::vector<std::uint32_t> spaces;
};

// Which spaces an owner may use, most preferred first. Empty `spaces`: one
// unbounded space at ArenaOptions::alignment (plan_arena's plan). Empty
// `preference`: every space in order. A kind's list, when not empty, is
// used instead of `preference` by the owners of that kind: graph inputs
// (PlanOptions::include_graph_inputs), owners a graph output reads
// (OutputPlacement::in_arena), node scratch. Then `values`, the last entry
// for a root winning. A pinned owner (PlanOptions::pinned) lives in the
// first space of its list.
struct GraphSpaceOptions {
    std::vector<MemorySpace> spaces;
    std::vector<std::uint32_t> preference;
    std::vector<std::uint32_t> graph_inputs, graph_outputs, scratch;
    std::vector<ValueSpaces> values;
};

struct SpacedArenaPlan {
    std::vector<std::uint32_t> space;          // by value: its root owner's space (no_space: outside every space)
    std::vector<std::size_t> offsets;          // by value: its offset there, a view's its root's (else no_offset)
    std::vector<std::uint32_t> scratch_space;  // by node (empty without scratch)
    std::vector<std::size_t> scratch_offsets;  // by node: where its scratch starts in its space (else no_offset)
    std::vector<SpaceArena> arenas;            // by space
    std::vector<ValueId> dynamic_values;       // UnknownSizes::dynamic: the owners of unknown size, ascending
    std::vector<MemorySpace> spaces;           // the spaces planned (the defaults filled in)
};
using SpacedArenaStatus = BasicPlanStatus<SpacedArenaPlan>;

namespace detail {

// The records' lists: 0 the preference, 1 graph inputs, 2 graph outputs, 3
// scratch, then one per entry of `values`; and each record's list.
template <activation_graph G>
void space_lists(const G& g, const Liveness& live, std::size_t scratch_records, const GraphSpaceOptions& in,
                 SpaceOptions& out) {
    using T = graph_traits<G>;
    out.lists.assign(4, in.preference);
    if (in.preference.empty())
        for (std::uint32_t s = 0; s < std::max<std::size_t>(in.spaces.size(), 1); ++s) out.lists[0].push_back(s);
    for (std::size_t k = 1; k < 4; ++k) {
        const auto& own = k == 1 ? in.graph_inputs : k == 2 ? in.graph_outputs : in.scratch;
        out.lists[k] = own.empty() ? out.lists[0] : own;
    }
    const std::size_t V = live.value_count();
    std::vector<std::uint32_t> list_of_value(V, 0);
    for (auto x : T::graph_inputs(g))
        if (const auto v = to_value_id(x, V)) list_of_value[live.roots[*v]] = 1;
    for (auto x : T::graph_outputs(g))
        if (const auto v = to_value_id(x, V)) list_of_value[live.roots[*v]] = 2;
    for (const ValueSpaces& e : in.values) {
        out.lists.push_back(e.spaces);
        if (e.value < V) list_of_value[live.roots[e.value]] = static_cast<std::uint32_t>(out.lists.size() - 1);
    }
    out.list_of.resize(live.owners.size() + scratch_records);
    for (std::size_t i = 0; i < live.owners.size(); ++i) out.list_of[i] = list_of_value[live.owners[i]];
    for (std::size_t k = 0; k < scratch_records; ++k) out.list_of[live.owners.size() + k] = 3;
}

// The error about record i named as the graph's: an owner, or a node's scratch.
[[nodiscard]] inline SpaceError name_record(SpaceError e, const Liveness& live, const std::vector<Buffer>& records) {
    if (e.kind == SpaceError::Kind::bad_records) {
        e.plan = name_owners(e.plan, live);
        return e;
    }
    if (e.buffer < live.owners.size()) e.value = live.owners[e.buffer];
    else if (e.buffer < records.size()) e.node = records[e.buffer].first;
    return e;
}

}  // namespace detail

// Plans a graph's arena across the spaces (see the top of this file) under
// plan_options' policies, scratch and pins; ArenaOptions apply in every
// space but its alignment. Errors: SpaceError (a graph or option the
// planner refuses: bad_records with the PlanError; a bad list, a pin past
// its space, an owner or scratch that fits nowhere, named by value or node).
template <activation_graph G, size_oracle Oracle>
[[nodiscard]] expected<SpacedArenaStatus, SpaceError> plan_arena_spaces(const G& g, const ViewMap& views,
                                                                        Oracle&& oracle,
                                                                        const PlanOptions& plan_options,
                                                                        const GraphSpaceOptions& space_options,
                                                                        const ArenaOptions& options = {}) {
    auto live = compute_liveness(g, views, plan_options);
    if (!live) return refused_records<SpaceError>(live.error());
    for (const ValueSpaces& e : space_options.values)
        if (e.value >= live->value_count()) {
            SpaceError err;
            err.kind = SpaceError::Kind::unknown_value;
            err.value = e.value;
            return unexpected(err);
        }
    const auto& scratch = plan_options.scratch_bytes;
    auto request = detail::size_for_plan(*live, oracle, plan_options.unknown_sizes, scratch);
    if (!request) return refused_records<SpaceError>(request.error());
    if (request->deferred) return SpacedArenaStatus::deferred(std::move(request->sizes.unknown));
    const Liveness& planned = request->planned(*live);
    std::vector<Buffer> records;
    owner_buffers(planned, request->sizes.bytes, records);
    if (auto ok = pin_owners(planned, plan_options.pinned, records); !ok) return refused_records<SpaceError>(ok.error());
    scratch_buffers(scratch, records);
    const std::size_t owners = planned.owners.size();

    SpaceOptions so;
    so.spaces = space_options.spaces;
    if (so.spaces.empty()) so.spaces.push_back({"arena", unbounded, options.alignment});
    detail::space_lists(g, planned, records.size() - owners, space_options, so);
    auto resolved = detail::resolved_spaces(so, options.alignment, records.size());
    if (!resolved) return unexpected(resolved.error());

    SpacedArenaPlan result;
    result.spaces = so.spaces;
    result.arenas.assign(so.spaces.size(), SpaceArena{});
    result.space.assign(planned.value_count(), no_space);
    result.offsets.assign(planned.value_count(), no_offset);
    std::vector<std::uint32_t> record_space(records.size());
    std::vector<std::size_t> record_offset(records.size());

    // Every record prefers one space, and plan_arena's plan fits there: that plan.
    const std::uint32_t first = detail::list_of(so, 0).empty() ? 0 : detail::list_of(so, 0).front();
    bool one = true;
    for (std::size_t i = 0; i < records.size(); ++i) one = one && detail::list_of(so, i).front() == first;
    bool done = false;
    if (one) {
        ArenaOptions in_first = options;
        in_first.alignment = so.spaces[first].alignment;
        auto today = detail::plan_owner_offsets(*live, oracle, in_first, plan_options);
        if (!today) return refused_records<SpaceError>(today.error());
        if (today->is_complete() && today->plan().arena_bytes <= so.spaces[first].capacity) {
            const ArenaPlan& p = today->plan();
            for (std::size_t i = 0; i < owners; ++i) record_offset[i] = p.offsets[planned.owners[i]];
            for (std::size_t i = owners, n = 0; n < p.scratch_offsets.size(); ++n)
                if (p.scratch_offsets[n] != no_offset) record_offset[i++] = p.scratch_offsets[n];
            std::fill(record_space.begin(), record_space.end(), first);
            const std::size_t alignment = detail::alignment_or_one(in_first.alignment);
            result.arenas[first] = {p.arena_bytes, detail::arena_bound(records, alignment).bytes, records.size(),
                                    p.strategy};
            done = true;
        }
    }
    if (!done) {
        auto spaced = plan_spaces(records, so, options);
        if (!spaced) return unexpected(detail::name_record(spaced.error(), planned, records));
        record_space = std::move(spaced->space);
        record_offset = std::move(spaced->offsets);
        result.arenas = std::move(spaced->arenas);
    }
    for (std::size_t i = 0; i < owners; ++i) {
        result.space[planned.owners[i]] = record_space[i];
        result.offsets[planned.owners[i]] = record_offset[i];
    }
    detail::place_views(planned, result.offsets);
    for (std::size_t v = 0; v < planned.value_count(); ++v)
        if (result.offsets[v] != no_offset) result.space[v] = result.space[planned.roots[v]];
    result.scratch_space.assign(scratch.size(), no_space);
    result.scratch_offsets.assign(scratch.size(), no_offset);
    for (std::size_t n = 0, k = owners; n < scratch.size(); ++n)
        if (scratch[n] > 0) {
            result.scratch_space[n] = record_space[k];
            result.scratch_offsets[n] = record_offset[k++];
        }
    result.dynamic_values = std::move(request->sizes.unknown);
    return SpacedArenaStatus::complete(std::move(result));
}

// Each node's floor: the bytes of the owners it reads and writes (views and
// in-place folds as their roots), each rounded up to `alignment`, plus its
// scratch (PlanOptions::scratch_bytes): no plan of whole tensors runs the
// node in a space smaller than that. By node; an unknown size counts 0, a
// total past SIZE_MAX saturates. O(V + edges).
template <activation_graph G, size_oracle Oracle>
[[nodiscard]] expected<std::vector<std::size_t>, PlanError> node_floors(const G& g, const ViewMap& views,
                                                                        Oracle&& oracle, const PlanOptions& options = {},
                                                                        std::size_t alignment = 64) {
    using T = graph_traits<G>;
    auto live = compute_liveness(g, views, options);
    if (!live) return unexpected(live.error());
    OwnerSizes sizes;
    size_owners(*live, oracle, sizes);
    if (auto ok = sizes.windows_inside(); !ok) return unexpected(ok.error());
    alignment = detail::alignment_or_one(alignment);
    const std::size_t N = static_cast<std::size_t>(T::node_count(g)), V = live->value_count();
    std::vector<std::size_t> floor(N, 0);
    std::vector<std::size_t> seen(V, N);  // the last node that counted an owner
    for (std::size_t n = 0; n < N; ++n) {
        const auto count = [&](auto x) {
            const auto v = detail::to_value_id(x, V);
            if (!v) return;
            const ValueId r = live->roots[*v];
            if (!live->is_owner(r) || seen[r] == n) return;
            seen[r] = n;
            floor[n] = detail::saturating_add(floor[n], detail::saturating_align_up(sizes.bytes[r], alignment));
        };
        for (auto x : T::node_inputs(g, static_cast<NodeIndex>(n))) count(x);
        for (auto x : T::node_outputs(g, static_cast<NodeIndex>(n))) count(x);
        if (n < options.scratch_bytes.size())
            floor[n] = detail::saturating_add(floor[n], detail::saturating_align_up(options.scratch_bytes[n], alignment));
    }
    return floor;
}

}  // namespace onnx_runtime_memory
