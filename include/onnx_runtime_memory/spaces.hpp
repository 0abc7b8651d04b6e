// Memory spaces with capacities, static mode: each buffer lives in one space
// (say `device` at 8 GiB, then `host` unbounded) for its whole life, in the
// most preferred space of its list where it fits, and each space is packed
// as one arena (plan_offsets, every strategy). As TVM's USMP pools and
// ExecuTorch's mem_ids, on the graph-free records of offsets.hpp.
//
// How: the buffers in order of first use (then index), pinned ones first in
// the first space of their list; each goes to the first space of its list
// whose load (the bytes, rounded to its alignment, live at each position)
// stays within the capacity over its life. Then each space is packed; where
// the packing ends past the capacity (fragmentation: the load fits, the
// layout does not), the buffers above the capacity move on to the next
// space of their list that has room, the others keep their offsets, and a
// space that receives buffers is packed again. Each buffer only moves down
// its own list, so this ends. With one space (or every buffer in its first
// space) the plan is plan_offsets' bit for bit. O(n log n) a packing, plus
// O(log T) a load check.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "detail/checked.hpp"
#include "detail/lower_bounds.hpp"
#include "detail/range_add.hpp"
#include "errors.hpp"
#include "expected.hpp"
#include "offsets.hpp"
#include "plan_types.hpp"

namespace onnx_runtime_memory {

inline constexpr std::size_t unbounded = static_cast<std::size_t>(-1);

struct MemorySpace {
    std::string name;
    std::size_t capacity = unbounded;  // bytes its buffers may reach: offset + size <= capacity
    std::size_t alignment = 64;        // every offset in it a multiple of this (0 counts as 1)
};

// Which spaces each buffer may use. Empty `spaces`: one unbounded space at
// ArenaOptions::alignment (plan_offsets' plan). Empty `lists`: one list,
// every space in order. `list_of[i]`: buffer i's list (an index into
// lists); buffers past its end use list 0. A pinned buffer lives in the
// first space of its list, at its pin.
struct SpaceOptions {
    std::vector<MemorySpace> spaces;
    std::vector<std::vector<std::uint32_t>> lists;  // each most preferred first
    std::vector<std::uint32_t> list_of;
};

// One space's share of a plan.
struct SpaceArena {
    std::size_t arena_bytes = 0;        // the highest end of its buffers' bytes
    std::size_t lower_bound_bytes = 0;  // no placement of the buffers it holds ends lower
    std::size_t buffers = 0;            // how many it holds
    ArenaStrategy strategy = ArenaStrategy::sweep;  // its last packing's
};

struct SpacePlan {
    std::vector<std::uint32_t> space;  // by buffer: its space
    std::vector<std::size_t> offsets;  // by buffer: its offset in that space
    std::vector<SpaceArena> arenas;    // by space
};

struct SpaceError {
    enum class Kind : std::uint8_t {
        bad_records,        // plan_offsets refused the records: see `plan` (its value: a buffer index)
        bad_list,           // list `list` is empty or names space `space`, which does not exist; or buffer
                            // `buffer`'s list_of names list `list`, which does not exist
        pin_outside_space,  // pinned `buffer` ends at `bytes`, past the capacity of its space `space`
        does_not_fit,       // `buffer` (`bytes` once aligned) fits in no space of its list: in the last,
                            // `space`, `live_bytes` are already live at `position` against `capacity`
        unknown_value,      // a graph's options (GraphSpaceOptions::values) name `value`, which it does not have
    };
    Kind kind{};
    std::size_t buffer = no_offset;
    ValueId value = no_value;  // a graph's plan (arena_spaces.hpp): the owner that buffer is,
    NodeIndex node = no_node;  // or the node whose scratch it is
    std::uint32_t space = 0, list = 0;
    std::string space_name;
    NodeIndex position = no_node;  // the caller's time
    std::size_t bytes = 0, live_bytes = 0, capacity = 0;
    PlanError plan{};

    [[nodiscard]] std::string message() const {
        const std::string b = value != no_value ? "value " + std::to_string(value)
                              : node != no_node ? "the scratch of node " + std::to_string(node)
                                                : "buffer " + std::to_string(buffer);
        const std::string s = "space " + std::to_string(space) + " ('" + space_name + "')";
        switch (kind) {
            case Kind::bad_records: return plan.message();
            case Kind::bad_list:
                if (buffer != no_offset)
                    return b + " uses preference list " + std::to_string(list) + ", which the options do not have";
                return "preference list " + std::to_string(list) + " is empty or names space " + std::to_string(space) +
                       ", which the options do not have";
            case Kind::unknown_value:
                return "the space options give a list to value " + std::to_string(value) + ", which the graph does not have";
            case Kind::pin_outside_space:
                return "pinned " + b + " ends at byte " + std::to_string(bytes) + ", past the capacity of " + s + " (" +
                       std::to_string(capacity) + " bytes)";
            case Kind::does_not_fit:
                if (bytes > capacity)
                    return b + " (" + std::to_string(bytes) + " bytes aligned) fits in no space it may use: " + s +
                           " holds " + std::to_string(capacity) + " bytes in all";
                return b + " (" + std::to_string(bytes) + " bytes aligned) fits in no space it may use: in " + s + ", " +
                       std::to_string(live_bytes) + " of its " + std::to_string(capacity) +
                       " bytes are already live at time " + std::to_string(position);
        }
        return "unknown space error";
    }
};

// A planner built on compute_liveness or plan_offsets refuses what they
// refused: their PlanError, as `Error`'s bad_records (SpaceError, SpillError).
template <class Error>
[[nodiscard]] unexpected<Error> refused_records(const PlanError& e) {
    Error err;
    err.kind = Error::Kind::bad_records;
    err.plan = e;
    return unexpected<Error>(std::move(err));
}

namespace detail {

// Buffer i's preference list, once the options are checked.
[[nodiscard]] inline std::span<const std::uint32_t> list_of(const SpaceOptions& o, std::size_t i) {
    return o.lists[i < o.list_of.size() ? o.list_of[i] : 0];
}

// The options with the defaults filled in (one unbounded space at
// `alignment`; one list of every space), or the first bad list.
[[nodiscard]] inline expected<SpaceOptions, SpaceError> resolved_spaces(SpaceOptions o, std::size_t alignment,
                                                                         std::size_t buffers) {
    if (o.spaces.empty()) o.spaces.push_back({"arena", unbounded, alignment});
    const auto k = static_cast<std::uint32_t>(o.spaces.size());
    if (o.lists.empty()) {
        o.lists.emplace_back();
        for (std::uint32_t s = 0; s < k; ++s) o.lists[0].push_back(s);
    }
    SpaceError err;
    err.kind = SpaceError::Kind::bad_list;
    for (std::size_t l = 0; l < o.lists.size(); ++l) {
        err.list = static_cast<std::uint32_t>(l);
        err.space = o.lists[l].empty() ? k : *std::max_element(o.lists[l].begin(), o.lists[l].end());
        if (err.space >= k) return unexpected(err);
    }
    for (std::size_t i = 0; i < std::min(buffers, o.list_of.size()); ++i)
        if (o.list_of[i] >= o.lists.size()) {
            err.buffer = i;
            err.list = o.list_of[i];
            return unexpected(err);
        }
    return o;
}

}  // namespace detail

// Places every buffer in a space and at an offset there (see the top of
// this file). ArenaOptions apply to every space but its alignment, which is
// the space's. Errors: SpaceError (a bad record, list or pin; a buffer that
// fits nowhere). Deterministic unless options.time_limit cuts a search short.
[[nodiscard]] inline expected<SpacePlan, SpaceError> plan_spaces(std::span<const Buffer> buffers,
                                                                 const SpaceOptions& space_options,
                                                                 const ArenaOptions& options = {}) {
    using Kind = SpaceError::Kind;
    if (auto ok = detail::check_buffers(buffers); !ok) return refused_records<SpaceError>(ok.error());
    const std::size_t n = buffers.size();
    auto resolved = detail::resolved_spaces(space_options, options.alignment, n);
    if (!resolved) return unexpected(resolved.error());
    const SpaceOptions& o = *resolved;
    const std::size_t k = o.spaces.size();
    std::vector<std::size_t> align(k);
    for (std::size_t s = 0; s < k; ++s) align[s] = detail::alignment_or_one(o.spaces[s].alignment);
    const auto need = [&](std::size_t i, std::size_t s) { return detail::saturating_align_up(buffers[i].size, align[s]); };

    // Loads over ranked times (a bounded space's only).
    std::vector<Buffer> ranked_store;
    const std::span<const Buffer> ranked = detail::dense_times(buffers, ranked_store);
    std::vector<detail::RangeAdd> load(k);
    for (std::size_t s = 0; s < k; ++s)
        if (o.spaces[s].capacity != unbounded) load[s].reset(detail::time_span(ranked));
    const auto fits = [&](std::size_t i, std::size_t s) {
        const std::size_t cap = o.spaces[s].capacity, bytes = need(i, s);
        return cap == unbounded || (bytes <= cap && load[s].most(ranked[i].first, ranked[i].last) <= cap - bytes);
    };
    const auto enter = [&](std::size_t i, std::size_t s) {
        if (o.spaces[s].capacity != unbounded) load[s].add(ranked[i].first, ranked[i].last, need(i, s));
    };
    const auto leave = [&](std::size_t i, std::size_t s) {
        if (o.spaces[s].capacity != unbounded) load[s].remove(ranked[i].first, ranked[i].last, need(i, s));
    };
    // The first space from list place `from` on where buffer i fits, or the error naming the last.
    SpacePlan plan;
    plan.space.assign(n, 0);
    std::vector<std::uint32_t> place(n, 0);  // by buffer: its space's place in its list
    const auto settle = [&](std::size_t i, std::uint32_t from) -> expected<void, SpaceError> {
        const auto list = detail::list_of(o, i);
        for (std::uint32_t p = from; p < list.size(); ++p)
            if (fits(i, list[p])) {
                plan.space[i] = list[p];
                place[i] = p;
                enter(i, list[p]);
                return {};
            }
        SpaceError err;
        err.kind = Kind::does_not_fit;
        err.buffer = i;
        err.space = list.back();
        err.space_name = o.spaces[err.space].name;
        err.bytes = need(i, err.space);
        err.capacity = o.spaces[err.space].capacity;
        if (err.capacity != unbounded) {
            // The fullest time of its life, as the caller wrote it (a rank maps back through a record).
            const NodeIndex at = load[err.space].where_most(ranked[i].first, ranked[i].last);
            err.live_bytes = load[err.space].most(at, at);
            err.position = at;
            if (!ranked_store.empty())
                for (std::size_t j = 0; j < n; ++j) {
                    if (ranked[j].first == at) err.position = buffers[j].first;
                    if (ranked[j].last == at) err.position = buffers[j].last;
                }
        }
        return unexpected(err);
    };

    // Pinned buffers first, in their first space.
    for (std::size_t i = 0; i < n; ++i) {
        if (buffers[i].pinned == no_offset) continue;
        const std::uint32_t s = detail::list_of(o, i).front();
        std::size_t end = 0;
        if (detail::add_overflows(buffers[i].pinned, buffers[i].size, end) || end > o.spaces[s].capacity) {
            SpaceError err;
            err.kind = Kind::pin_outside_space;
            err.buffer = i;
            err.space = s;
            err.space_name = o.spaces[s].name;
            err.bytes = end;
            err.capacity = o.spaces[s].capacity;
            return unexpected(err);
        }
        plan.space[i] = s;
        enter(i, s);
    }
    // The rest in order of first use.
    std::vector<std::uint32_t> by_first(n);
    for (std::uint32_t i = 0; i < n; ++i) by_first[i] = i;
    detail::sort_by(by_first, [&](std::uint32_t i) { return buffers[i].first; });
    for (const std::uint32_t i : by_first)
        if (buffers[i].pinned == no_offset)
            if (auto ok = settle(i, 0); !ok) return unexpected(ok.error());

    // Pack each space; move what ends past its capacity on; pack again where buffers arrived.
    plan.offsets.assign(n, 0);
    plan.arenas.assign(k, SpaceArena{});
    std::vector<std::uint8_t> dirty(k, 1);
    std::vector<Buffer> members;
    std::vector<std::uint32_t> member_of;
    for (bool again = true; again;) {
        again = false;
        for (std::uint32_t s = 0; s < k; ++s) {
            if (!dirty[s]) continue;
            dirty[s] = 0;
            members.clear();
            member_of.clear();
            for (std::uint32_t i = 0; i < n; ++i)
                if (plan.space[i] == s) {
                    members.push_back(buffers[i]);
                    member_of.push_back(i);
                }
            ArenaOptions in_space = options;
            in_space.alignment = align[s];
            auto packed = plan_offsets(members, in_space);
            if (!packed) {
                PlanError e = packed.error();
                if (e.value < member_of.size()) e.value = member_of[e.value];
                if (e.other < member_of.size()) e.other = member_of[e.other];
                return refused_records<SpaceError>(e);
            }
            SpaceArena& arena = plan.arenas[s];
            arena = {packed->arena_bytes, packed->lower_bound_bytes, members.size(), packed->strategy};
            for (std::size_t m = 0; m < members.size(); ++m) plan.offsets[member_of[m]] = packed->offsets[m];
            const std::size_t cap = o.spaces[s].capacity;
            if (cap == unbounded || packed->arena_bytes <= cap) continue;
            // Past the capacity: those buffers move on (pins end within it, so they stay).
            for (std::size_t m = 0; m < members.size(); ++m) {
                const std::uint32_t i = member_of[m];
                if (plan.offsets[i] + buffers[i].size <= cap) continue;
                leave(i, s);
                if (auto ok = settle(i, place[i] + 1); !ok) return unexpected(ok.error());
                dirty[plan.space[i]] = 1;
                again = true;
            }
            // What stays keeps its offsets: the arena and bound are those of its buffers now.
            members.clear();
            arena = SpaceArena{0, 0, 0, packed->strategy};
            for (std::uint32_t i = 0; i < n; ++i)
                if (plan.space[i] == s) {
                    members.push_back(buffers[i]);
                    arena.arena_bytes = std::max(arena.arena_bytes, plan.offsets[i] + buffers[i].size);
                    ++arena.buffers;
                }
            arena.lower_bound_bytes = detail::arena_bound(members, align[s]).bytes;
        }
    }
    return plan;
}

}  // namespace onnx_runtime_memory
