// The plan types: what an executor passes around, and the errors. Naming
// them costs no planner body: the planners live in plan.hpp (slots),
// offsets.hpp (graph-free offsets) and arena.hpp (offsets for a graph).
#pragma once

#include <chrono>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <source_location>
#include <string>
#include <utility>
#include <vector>

#include "errors.hpp"
#include "expected.hpp"
#include "graph.hpp"
#include "validate_error.hpp"

namespace onnx_runtime_memory {

// ---- slot plans (plan.hpp) ----

// One reusable slot: an arena region the executor allocates once and hands,
// in turn, to every value assigned to it (their lifetimes are disjoint).
struct SlotInfo {
    SlotId id;
    std::size_t capacity = 0;  // bytes
    friend constexpr bool operator==(const SlotInfo&, const SlotInfo&) = default;
};

// Which slot backs each value, and how big the whole activation arena is.
struct ActivationPlan {
    // assignments[v]: the slot of owner v; SlotId::none() for views,
    // initializers and values outside the arena. One entry per value id.
    std::vector<SlotId> assignments;
    // Every slot, in ascending id (slots[k].id.value == k).
    std::vector<SlotInfo> slots;
    // The arena the executor allocates: the sum of slot capacities.
    std::size_t peak_bytes = 0;
    // The baseline of one buffer per owner: the sum of owner sizes.
    std::size_t naive_bytes = 0;
    // With UnknownSizes::dynamic: the owners of unknown size, ascending id.
    // They (and their views) have no slot; the executor allocates them.
    std::vector<ValueId> dynamic_values;
    // With PlanOptions::scratch_bytes: scratch[n] is the slot of node n's
    // workspace (SlotId::none() for none). Empty without scratch.
    std::vector<SlotId> scratch;

    [[nodiscard]] std::size_t num_slots() const noexcept { return slots.size(); }
    // 1 - peak / naive: the fraction of the baseline saved (0 when naive is 0).
    [[nodiscard]] double savings_ratio() const noexcept {
        return naive_bytes == 0 ? 0.0 : 1.0 - static_cast<double>(peak_bytes) / static_cast<double>(naive_bytes);
    }
    [[nodiscard]] std::optional<SlotId> slot_of(ValueId v) const noexcept {
        if (v >= assignments.size() || assignments[v].is_none()) return std::nullopt;
        return assignments[v];
    }

    friend bool operator==(const ActivationPlan&, const ActivationPlan&) = default;
};

// The outcome of a planning attempt that met no error: a complete plan, or
// deferred with every owner whose size is not known yet (sorted by id), so
// the executor can plan again once shapes resolve. PlanStatus for slot
// plans; the arena planner's ArenaStatus is the same with an ArenaPlan.
template <class Plan>
class BasicPlanStatus {
public:
    [[nodiscard]] static BasicPlanStatus complete(Plan plan) {
        BasicPlanStatus s;
        s.plan_ = std::move(plan);
        return s;
    }
    [[nodiscard]] static BasicPlanStatus deferred(std::vector<ValueId> unknown_sizes) {
        BasicPlanStatus s;
        s.deferred_ = true;
        s.unknown_ = std::move(unknown_sizes);
        return s;
    }

    [[nodiscard]] bool is_complete() const noexcept { return !deferred_; }
    [[nodiscard]] bool is_deferred() const noexcept { return deferred_; }

    // The plan; calling it on a deferred status is a caller bug: reported
    // with the caller's file and line, then it aborts.
    [[nodiscard]] const Plan& plan(std::source_location at = std::source_location::current()) const& {
        if (deferred_) detail::bad_access(deferred_message, at);
        return plan_;
    }
    [[nodiscard]] Plan&& plan(std::source_location at = std::source_location::current()) && {
        if (deferred_) detail::bad_access(deferred_message, at);
        return std::move(plan_);
    }
    // Owners whose size is unknown, ascending id (empty when complete).
    [[nodiscard]] const std::vector<ValueId>& unknown_sizes() const noexcept { return unknown_; }

    friend bool operator==(const BasicPlanStatus&, const BasicPlanStatus&) = default;

private:
    static constexpr const char* deferred_message =
        "plan() of a deferred status (some sizes are unknown: see unknown_sizes()): check is_complete() first";
    BasicPlanStatus() = default;
    Plan plan_;
    std::vector<ValueId> unknown_;
    bool deferred_ = false;
};
using PlanStatus = BasicPlanStatus<ActivationPlan>;

// How slots are assigned. Best fit in execution order is the original
// crate's algorithm, the contract and the default; the others are opt-in
// and can give fewer bytes on some graphs.
enum class SlotStrategy : std::uint8_t {
    best_fit,         // in execution order, best fit, slots never grow
    seed [[deprecated("renamed SlotStrategy::best_fit")]] = best_fit,
    in_order_growth,  // the same walk, but when no free slot fits, the largest free one grows
    greedy_by_size,   // largest owners first, each into the smallest slot none of whose owners it
                      // meets, else a new one (Pisarchyk & Lee 2020); O(n * slots * log n)
    greedy_by_distance,  // by size with distance priority (Pisarchyk & Lee 2020, TFLite's GPU
                         // delegate): the owner nearest in time to a slot it can join goes next,
                         // among those whose size ranks first; slots may grow; O(n (n + slots) log n)
    least,            // the least of the four above (by distance where its n^2 steps fit a budget
                      // of 1,024 per owner, at least 4,096 owners' worth: up to 2,048 owners)
};

[[nodiscard]] constexpr const char* to_string(SlotStrategy s) noexcept {
    switch (s) {
        case SlotStrategy::best_fit: return "best_fit";
        case SlotStrategy::in_order_growth: return "in_order_growth";
        case SlotStrategy::greedy_by_size: return "greedy_by_size";
        case SlotStrategy::greedy_by_distance: return "greedy_by_distance";
        case SlotStrategy::least: return "least";
    }
    return "unknown";
}

// ---- arena plans (arena.hpp) ----

inline constexpr std::size_t no_offset = std::numeric_limits<std::size_t>::max();

// The clock ArenaOptions::time_limit counts on.
enum class TimeLimitClock : std::uint8_t {
    wall,        // steady_clock: the limit bounds the caller's wait, but buys less search on a loaded machine
    thread_cpu,  // the calling thread's CPU time (POSIX CLOCK_THREAD_CPUTIME_ID; where the platform has
                 // none, wall time): the same search whatever else runs beside it
};

struct ArenaOptions {
    std::size_t alignment = 64;           // every offset a multiple of this (0 counts as 1)
    // The work budget of the strategies beyond the sweep, in steps per owner
    // (a step: one placed buffer found meeting the one being placed, or one
    // time position scanned). Each strategy runs only if its predicted steps
    // fit in what is left of work_per_owner x owners (at least 4,096 owners,
    // so small problems get every strategy): a greedy order about
    // (owners + meeting pairs) x log2(owners), a skyline owners x (positions
    // + owners), the first fit by size (first_fit_steps) 12 sqrt(meeting
    // pairs / owners) an owner. The time is thus bounded by about work_per_owner x
    // max(owners, 4,096) steps plus the sweep's O(n log n), and the opt-in
    // searches' own counts: what changes with size is which strategies fit
    // (a 1k-owner problem may take longer than a 5k one). 0: the sweep alone
    // (allocation-free re-planning), no search either.
    std::size_t work_per_owner = 1024;
    std::uint32_t search_iterations = 0;  // randomised skyline restarts after the other strategies
    // If > 0, the placement's time, counted from its start (the strategies
    // before the searches included) on time_limit_clock: both searches stop
    // when it is spent.
    std::chrono::microseconds time_limit{0};
    // Last, so that 0.1's positional initialisers keep their meaning.
    std::uint64_t exact_nodes = 0;  // node budget of the exact search (0: none; up to 1,024 owners); ~1 us a node
    // Still above the bound after the greedy orders and the skylines, the
    // first fit by size (equal sizes: the most crowded first) where the
    // greedy orders could not run it, if its predicted steps an owner (12
    // sqrt(meeting pairs / owners)) are at most this and fit in what is left
    // of the budget; where it wins, the mirrored sweep and the repack do not
    // run. 400 reaches the bench's random DAGs up to 20k nodes (below
    // TFLite's greedy there, at about twice the time without it), not its
    // 100k one (predicted 708). 0: never (the earlier default).
    std::size_t first_fit_steps = 400;
    TimeLimitClock time_limit_clock = TimeLimitClock::wall;  // what time_limit counts
};

enum class ArenaStrategy : std::uint8_t {
    slots,            // laid out from a slot plan (arena_from_slots)
    sweep,            // in execution order, best fit, growing at the top
    size_best_fit,    // decreasing size (equal sizes: the longest first), best gap
    size_first_fit,   // decreasing size (equal sizes: in order of first use), lowest gap
    lifetime_best_fit,
    lifetime_first_fit,
    area_best_fit,
    area_first_fit,
    conflict_best_fit,
    conflict_first_fit,
    skyline_size,     // skyline, largest size first
    skyline_area,     // skyline, largest size x lifetime first
    skyline_lifetime, // skyline, longest lifetime first
    randomized_skyline,  // a randomised skyline restart (ArenaOptions::search_iterations)
    search [[deprecated("renamed ArenaStrategy::randomized_skyline")]] = randomized_skyline,
    exact_search,     // the branch and bound under a capacity
    mirrored_sweep,   // the sweep on the problem mirrored in time (buffers arrive as they die)
    repacked_top,     // the best plan's highest buffers placed again by size, above the rest
    size_peak_first_fit,  // decreasing size (equal sizes: the highest peak load first), lowest gap
};

[[nodiscard]] constexpr const char* to_string(ArenaStrategy s) noexcept {
    switch (s) {
        case ArenaStrategy::slots: return "slots";
        case ArenaStrategy::sweep: return "sweep";
        case ArenaStrategy::size_best_fit: return "size_best_fit";
        case ArenaStrategy::size_first_fit: return "size_first_fit";
        case ArenaStrategy::lifetime_best_fit: return "lifetime_best_fit";
        case ArenaStrategy::lifetime_first_fit: return "lifetime_first_fit";
        case ArenaStrategy::area_best_fit: return "area_best_fit";
        case ArenaStrategy::area_first_fit: return "area_first_fit";
        case ArenaStrategy::conflict_best_fit: return "conflict_best_fit";
        case ArenaStrategy::conflict_first_fit: return "conflict_first_fit";
        case ArenaStrategy::skyline_size: return "skyline_size";
        case ArenaStrategy::skyline_area: return "skyline_area";
        case ArenaStrategy::skyline_lifetime: return "skyline_lifetime";
        case ArenaStrategy::randomized_skyline: return "randomized_skyline";
        case ArenaStrategy::exact_search: return "exact_search";
        case ArenaStrategy::mirrored_sweep: return "mirrored_sweep";
        case ArenaStrategy::repacked_top: return "repacked_top";
        case ArenaStrategy::size_peak_first_fit: return "size_peak_first_fit";
    }
    return "unknown";
}

// Where every value lives in one arena of arena_bytes.
struct ArenaPlan {
    // offsets[v]: where v's bytes start: an owner's offset; a view's is its
    // root owner's plus its window (ViewMap::insert's offsets, added along
    // the chain); no_offset for values outside the arena. One per value id.
    std::vector<std::size_t> offsets;
    // The arena to allocate: the largest offset + size (offsets are
    // aligned; the top value's size is not rounded up).
    std::size_t arena_bytes = 0;
    std::size_t alignment = 1;
    ArenaStrategy strategy = ArenaStrategy::sweep;
    // With UnknownSizes::dynamic: the owners of unknown size, ascending id.
    // They (and their views) have no offset; the executor allocates them.
    std::vector<ValueId> dynamic_values;
    // With PlanOptions::scratch_bytes: scratch_offsets[n] is where node n's
    // workspace starts (no_offset for none). Empty without scratch.
    std::vector<std::size_t> scratch_offsets;
    // No arena for these sizes is smaller: OffsetPlan::proven_bound_bytes of
    // the owners' problem (0 from arena_from_slots, which solves none).
    std::size_t proven_bound_bytes = 0;

    [[nodiscard]] std::optional<std::size_t> offset_of(ValueId v) const noexcept {
        if (v >= offsets.size() || offsets[v] == no_offset) return std::nullopt;
        return offsets[v];
    }
    friend bool operator==(const ArenaPlan&, const ArenaPlan&) = default;
};

using ArenaStatus = BasicPlanStatus<ArenaPlan>;

// ---- the graph-free offsets layer (offsets.hpp) ----

// One buffer of an offset problem: `size` bytes live from time `first` to
// time `last`, both inclusive (node positions, or any integer clock below
// max_graph_ids). Two buffers meet when first_a <= last_b && first_b <= last_a.
struct Buffer {
    std::size_t size = 0;
    NodeIndex first = 0;
    NodeIndex last = 0;
    // The offset this buffer must have (an offline plan, a memory-mapped
    // region); no_offset: the planner chooses. Pins must be multiples of the
    // alignment and must not overlap while live (PlanError::pin_misaligned,
    // pins_overlap); the other buffers are packed around them.
    std::size_t pinned = no_offset;
    // An empty buffer (size 0) meets nothing, but like any buffer it lies in
    // the arena: offset <= arena_bytes. The planners put a free one at
    // offset 0; a pinned one stays at its pin, and the arena (and its lower
    // bound) reach it. validate_offsets and validate_arena check the same.
    friend constexpr bool operator==(const Buffer&, const Buffer&) = default;
};

// Where each buffer of an offset problem lives: offsets[i] for buffer i.
struct OffsetPlan {
    std::vector<std::size_t> offsets;
    // The arena to allocate: the largest offset + size (offsets are
    // aligned; the top buffer's size is not rounded up).
    std::size_t arena_bytes = 0;
    // The largest total live at one time, sizes rounded up to the alignment
    // but the top one's: no placement of these buffers can be smaller.
    std::size_t lower_bound_bytes = 0;
    std::size_t alignment = 1;
    ArenaStrategy strategy = ArenaStrategy::sweep;
    // No placement can be smaller either: lower_bound_bytes, raised when the
    // exact search (ArenaOptions::exact_nodes) proves capacities infeasible.
    // arena_bytes == proven_bound_bytes: the plan is optimal.
    std::size_t proven_bound_bytes = 0;
    friend bool operator==(const OffsetPlan&, const OffsetPlan&) = default;
};

}  // namespace onnx_runtime_memory
