// validate_spaces: a space plan checked on its own, as validate_arena
// checks an arena plan: on buffer records (spaces.hpp), and on a graph
// (arena_spaces.hpp) with the liveness computed again.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "arena_spaces.hpp"
#include "liveness.hpp"
#include "sizes.hpp"
#include "spaces.hpp"
#include "validate.hpp"
#include "validate_error.hpp"
#include "validate_offsets.hpp"

namespace onnx_runtime_memory {

// Checks a space plan against the buffers and options, believing nothing
// it says about itself but each buffer's space and offset and each space's
// arena_bytes: every buffer in a space of its list (space_not_allowed; a
// pinned one in its list's first), each space's buffers a valid offset
// plan there (validate_offsets at the space's alignment: a pin moved, a
// misaligned offset, an end past the space's arena_bytes, an overlap; the
// buffers named by their index in `buffers`), and each arena_bytes within
// its space's capacity (over_capacity).
[[nodiscard]] inline expected<void, ValidateError> validate_spaces(std::span<const Buffer> buffers,
                                                                   const SpaceOptions& space_options,
                                                                   const SpacePlan& plan, std::size_t alignment = 64) {
    using Kind = ValidateError::Kind;
    if (auto ok = detail::check_buffers(buffers); !ok) return unexpected(ValidateError::from(ok.error()));
    const std::size_t n = buffers.size();
    auto resolved = detail::resolved_spaces(space_options, alignment, n);
    const auto fail = [](Kind kind, std::size_t value, std::size_t size = 0, std::size_t capacity = 0) {
        ValidateError err;
        err.kind = kind;
        err.value = static_cast<ValueId>(value);
        err.size = size;
        err.capacity = capacity;
        return unexpected(err);
    };
    if (!resolved) return fail(Kind::space_not_allowed, no_value);
    const SpaceOptions& o = *resolved;
    const std::size_t k = o.spaces.size();
    if (plan.space.size() < n || plan.offsets.size() < n || plan.arenas.size() < k)
        return fail(Kind::missing_offset, std::min({plan.space.size(), plan.offsets.size(), n}));
    for (std::size_t i = 0; i < n; ++i) {
        const auto list = detail::list_of(o, i);
        const bool allowed = buffers[i].pinned != no_offset
                                 ? plan.space[i] == list.front()
                                 : std::find(list.begin(), list.end(), plan.space[i]) != list.end();
        if (!allowed) return fail(Kind::space_not_allowed, i, plan.space[i]);
    }
    std::vector<Buffer> members;
    std::vector<std::size_t> index;
    for (std::uint32_t s = 0; s < k; ++s) {
        if (plan.arenas[s].arena_bytes > o.spaces[s].capacity)
            return fail(Kind::over_capacity, s, plan.arenas[s].arena_bytes, o.spaces[s].capacity);
        OffsetPlan in_space;
        in_space.arena_bytes = plan.arenas[s].arena_bytes;
        members.clear();
        index.clear();
        for (std::size_t i = 0; i < n; ++i)
            if (plan.space[i] == s) {
                members.push_back(buffers[i]);
                in_space.offsets.push_back(plan.offsets[i]);
                index.push_back(i);
            }
        if (auto ok = validate_offsets(members, in_space, o.spaces[s].alignment); !ok) {
            ValidateError err = ok.error();
            if (err.value < index.size()) err.value = static_cast<ValueId>(index[err.value]);
            if (err.other < index.size()) err.other = static_cast<ValueId>(index[err.other]);
            return unexpected(err);
        }
    }
    return {};
}

// Validates a graph's space plan, recomputing the liveness, believing
// nothing the plan says about itself but where it puts each owner and
// scratch and each space's arena_bytes: no external output or dynamic
// value placed (as validate_arena); every owner and scratch in a space its
// list allows and a valid offset plan in each space, within its capacity
// (validate_spaces on the records: the culprits named by value id, or by
// node for a scratch); each view in its root's space at its root's offset;
// then validate_liveness. `alignment`: the single space's when
// `space_options` has none. O(n log n).
template <activation_graph G, size_oracle Oracle>
[[nodiscard]] expected<void, ValidateError> validate_arena_spaces(const G& g, const ViewMap& views,
                                                                  const SpacedArenaPlan& plan, Oracle&& oracle,
                                                                  const PlanOptions& options,
                                                                  const GraphSpaceOptions& space_options,
                                                                  std::size_t alignment = 64) {
    const auto placed = [&](ValueId v) { return v < plan.offsets.size() && plan.offsets[v] != no_offset; };
    detail::ArenaRecords made;
    if (auto ok = detail::arena_records(made, g, views, oracle, options, plan.dynamic_values, placed); !ok) return ok;
    const Liveness& live = made.live;
    const std::vector<Buffer>& records = made.records;
    const std::size_t owners = made.owners;
    const auto& scratch = options.scratch_bytes;
    SpaceOptions so;
    so.spaces = space_options.spaces;
    if (so.spaces.empty()) so.spaces.push_back({"arena", unbounded, alignment});
    detail::space_lists(g, live, records.size() - owners, space_options, so);
    SpacePlan as_records;
    as_records.arenas = plan.arenas;
    const auto at = [](const auto& column, std::size_t i, auto none) { return i < column.size() ? column[i] : none; };
    for (std::size_t i = 0; i < owners; ++i) {
        as_records.space.push_back(at(plan.space, live.owners[i], no_space));
        as_records.offsets.push_back(at(plan.offsets, live.owners[i], no_offset));
    }
    for (std::size_t n = 0; n < scratch.size(); ++n)
        if (scratch[n] > 0) {
            as_records.space.push_back(at(plan.scratch_space, n, no_space));
            as_records.offsets.push_back(at(plan.scratch_offsets, n, no_offset));
        }
    if (auto ok = validate_spaces(records, so, as_records, alignment); !ok) {
        ValidateError err = ok.error();  // record indices back to owners, or to the node of a scratch
        const auto name = [&](ValueId i) -> ValueId {
            if (i == no_value || i >= records.size()) return i;
            if (i < owners) return live.owners[i];
            err.node = records[i].first;
            return no_value;
        };
        if (err.kind != ValidateError::Kind::over_capacity) {
            err.value = name(err.value);
            err.other = name(err.other);
        }
        return unexpected(err);
    }
    const auto offset_of = [&](ValueId v) { return at(plan.offsets, v, no_offset); };
    const auto same_space = [&](ValueId v, ValueId r) { return at(plan.space, v, no_space) == at(plan.space, r, no_space); };
    if (auto ok = detail::check_view_offsets(made.live, made.windows, offset_of, same_space); !ok) return ok;
    return detail::validate_dense_liveness(*made.graph, views, live, options);
}

}  // namespace onnx_runtime_memory
