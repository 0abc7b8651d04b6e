// validate_spill: a spilled plan (spill.hpp, arena_spill.hpp) checked on its own, believing
// nothing it says about itself but its segments: each buffer's residency
// covers its life, every use is in the fast space, neither space has two
// segments overlapping in bytes while both hold them, the fast one stays
// within its capacity, and the copies, their order and every total are the
// ones those segments need.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <tuple>
#include <vector>

#include "arena_spill.hpp"
#include "detail/spill_problem.hpp"
#include "liveness.hpp"
#include "sizes.hpp"
#include "spill_types.hpp"
#include "validate_error.hpp"
#include "validate_offsets.hpp"

namespace onnx_runtime_memory {

// Checks `plan` against the records, uses and options it was made for.
// Errors name buffers by index: bad_residency, used_while_out (a use while
// out), misaligned_offset / offset_overlap (within a space: two fast
// segments sharing a position, or two slow ones whose bytes are held at
// once, a slow segment holding them from its copy out through its copy
// in), over_capacity (the fast space), wrong_transfers (a copy missing,
// extra, or out of order: a copy in must come after its copy out),
// wrong_spill_totals. O((n + segments) log).
[[nodiscard]] inline expected<void, ValidateError> validate_spill(std::span<const Buffer> buffers,
                                                                  const BufferUses& uses, const SpillOptions& options,
                                                                  const SpillPlan& plan) {
    using Kind = ValidateError::Kind;
    const auto fail = [](Kind kind, std::size_t value, std::size_t size = 0, std::size_t capacity = 0,
                         NodeIndex node = no_node) {
        ValidateError err;
        err.kind = kind;
        err.value = static_cast<ValueId>(value);
        err.size = size;
        err.capacity = capacity;
        err.node = node;
        return unexpected(err);
    };
    detail::SpillProblem p;
    if (auto ok = detail::make_spill_problem(buffers, uses, options.fast.alignment, p); !ok) {
        const SpillError& e = ok.error();
        return unexpected(ValidateError::from(
            e.kind == SpillError::Kind::bad_records ? e.plan : make_plan_error(PlanError::Kind::bad_buffer, e.buffer)));
    }
    const std::size_t n = buffers.size();
    const auto& seg = plan.segments;
    const auto& at = plan.segment_begin;
    if (at.size() != n + 1 || at[0] != 0 || at[n] != seg.size()) return fail(Kind::bad_residency, n, seg.size());
    for (std::size_t b = 0; b < n; ++b)
        if (at[b] >= at[b + 1]) return fail(Kind::bad_residency, b, at[b]);

    // Residencies, and every use in the fast space.
    std::size_t spilled = 0;
    for (std::size_t b = 0; b < n; ++b) {
        const std::size_t from = at[b], to = at[b + 1];
        spilled += to - from > 1;
        for (std::size_t k = from; k < to; ++k) {
            const Segment& s = seg[k];
            const bool fast = s.space == 0, inner = k > from && k + 1 < to;
            const bool shaped = s.space <= 1 && (k == from ? s.first == buffers[b].first
                                                           : s.first == std::size_t{seg[k - 1].last} + 1 &&
                                                                 s.space != seg[k - 1].space) &&
                                (k + 1 < to || s.last == buffers[b].last) &&
                                (s.first <= s.last || (!fast && inner && s.first == std::size_t{s.last} + 1));
            if (!shaped) return fail(Kind::bad_residency, b, k);
        }
        std::size_t k = from;
        for (std::size_t u = p.use_begin[b]; u < p.use_begin[b + 1]; ++u) {
            const NodeIndex t = p.time[p.uses[u]];
            while (seg[k].last < t) ++k;  // the segments cover the life, so one holds t
            if (seg[k].space != 0) return fail(Kind::used_while_out, b, 0, 0, t);
        }
    }

    // Each space's segments as records: fast ones over their positions, slow
    // ones one position longer (the copy in comes after the next copies out).
    std::vector<Buffer> records;
    std::vector<std::size_t> owner;
    OffsetPlan placed;
    for (std::uint32_t space = 0; space < 2; ++space) {
        records.clear();
        owner.clear();
        placed.offsets.clear();
        placed.arena_bytes = 0;
        for (std::size_t b = 0; b < n; ++b)
            for (std::size_t k = at[b]; k < at[b + 1]; ++k) {
                const Segment& s = seg[k];
                if (s.space != space) continue;
                const NodeIndex last = space == 0 ? s.last : std::min<NodeIndex>(s.last + 1, max_graph_ids - 1);
                records.push_back({buffers[b].size, s.first, last, no_offset});
                owner.push_back(b);
                placed.offsets.push_back(s.offset);
                std::size_t end = 0;
                if (detail::add_overflows(s.offset, buffers[b].size, end)) return fail(Kind::outside_arena, b);
                placed.arena_bytes = std::max(placed.arena_bytes, end);
            }
        const MemorySpace& where = space == 0 ? options.fast : options.slow;
        if (auto ok = validate_offsets(records, placed, where.alignment); !ok) {
            ValidateError err = ok.error();
            if (err.value < owner.size()) err.value = static_cast<ValueId>(owner[err.value]);
            if (err.other < owner.size()) err.other = static_cast<ValueId>(owner[err.other]);
            return unexpected(err);
        }
        if (space == 0 && placed.arena_bytes > options.fast.capacity)
            return fail(Kind::over_capacity, 0, placed.arena_bytes, options.fast.capacity);
        const std::size_t claimed = space == 0 ? plan.fast_bytes : plan.slow_bytes;
        if (claimed != placed.arena_bytes) return fail(Kind::wrong_spill_totals, 0, placed.arena_bytes, claimed);
    }

    // The copies: out of each fast segment a slow one follows, into each a slow one precedes.
    using Direction = Transfer::Direction;
    std::vector<Transfer> need;
    for (std::size_t b = 0; b < n; ++b)
        for (std::size_t k = at[b]; k + 1 < at[b + 1]; ++k) {
            const Segment &s = seg[k], &next = seg[k + 1];
            const auto id = static_cast<std::uint32_t>(b);
            if (s.space == 0) need.push_back({id, Direction::out, s.last, buffers[b].size, s.offset, next.offset});
            else need.push_back({id, Direction::in, next.first, buffers[b].size, s.offset, next.offset});
        }
    std::sort(need.begin(), need.end(), [](const Transfer& x, const Transfer& y) {
        return std::tie(x.position, x.direction, x.buffer) < std::tie(y.position, y.direction, y.buffer);
    });
    std::size_t moved = 0;
    for (std::size_t k = 0; k < std::max(need.size(), plan.transfers.size()); ++k) {
        if (k >= need.size() || k >= plan.transfers.size() || !(need[k] == plan.transfers[k]))
            return fail(Kind::wrong_transfers, 0, k);
        moved = detail::saturating_add(moved, need[k].bytes);
    }
    if (plan.transfer_bytes != moved) return fail(Kind::wrong_spill_totals, 0, moved, plan.transfer_bytes);
    if (plan.spilled_buffers != spilled) return fail(Kind::wrong_spill_totals, 0, spilled, plan.spilled_buffers);
    const std::size_t bound = detail::spill_lower_bound(p, options.fast.capacity);
    if (plan.transfer_lower_bound_bytes != bound || moved < bound)
        return fail(Kind::wrong_spill_totals, 0, bound, plan.transfer_lower_bound_bytes);
    return {};
}

// Checks a graph's spilled plan: the records, uses and sizes computed
// again from the graph and options, each value in its root owner's record,
// each scratch in its node's, then validate_spill on them (a buffer in an
// error named as its owner, or as a node's scratch by `node`).
template <activation_graph G, size_oracle Oracle>
[[nodiscard]] expected<void, ValidateError> validate_arena_spill(const G& g, const ViewMap& views,
                                                                 const SpilledArenaPlan& plan, Oracle&& oracle,
                                                                 const PlanOptions& plan_options,
                                                                 const SpillOptions& options = {}) {
    using Kind = ValidateError::Kind;
    auto live = compute_liveness(g, views, plan_options);
    if (!live) return unexpected(ValidateError::from(live.error()));
    const auto& scratch = plan_options.scratch_bytes;
    auto request = detail::size_for_plan(*live, oracle, plan_options.unknown_sizes, scratch);
    if (!request) return unexpected(ValidateError::from(request.error()));
    ValidateError err;
    if (request->deferred || plan.dynamic_values != request->sizes.unknown) {
        err.kind = Kind::wrong_dynamic_values;
        return unexpected(err);
    }
    const Liveness& planned = request->planned(*live);
    BufferUses value_uses, uses;
    detail::owner_uses(g, *live, value_uses);
    SpilledArenaPlan expect;
    detail::spill_records(planned, request->sizes, scratch, value_uses, expect, uses);
    const auto& records = expect.records;
    const auto& record = expect.record;
    const auto& scratch_record = expect.scratch_record;
    if (plan.records != records) {
        err.kind = Kind::missing_offset;  // the first record that differs, named by its owner
        std::size_t k = 0;
        while (k < records.size() && k < plan.records.size() && plan.records[k] == records[k]) ++k;
        err.value = k < planned.owners.size() ? planned.owners[k] : no_value;
        if (k >= planned.owners.size() && k < records.size()) err.node = records[k].first;
        return unexpected(err);
    }
    for (std::size_t v = 0; v < record.size(); ++v)
        if (v >= plan.record.size() || plan.record[v] != record[v]) {
            err.kind = Kind::missing_offset;
            err.value = static_cast<ValueId>(v);
            return unexpected(err);
        }
    for (std::size_t n = 0; n < scratch_record.size(); ++n)
        if (n >= plan.scratch_record.size() || plan.scratch_record[n] != scratch_record[n]) {
            err.kind = Kind::scratch_conflict;
            err.node = static_cast<NodeIndex>(n);
            return unexpected(err);
        }
    auto ok = validate_spill(records, uses, options, plan.spill);
    if (ok) return ok;
    err = ok.error();
    const auto name = [&](ValueId& x) {
        if (x == no_value || x >= records.size()) return;
        if (x < planned.owners.size()) x = planned.owners[x];
        else {
            err.node = records[x].first;
            x = no_value;
        }
    };
    if (err.kind != Kind::over_capacity && err.kind != Kind::wrong_transfers && err.kind != Kind::wrong_spill_totals) {
        name(err.value);
        name(err.other);
    }
    return unexpected(err);
}

}  // namespace onnx_runtime_memory
