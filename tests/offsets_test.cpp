// The graph-free offsets layer: plain (size, first, last) buffer records,
// as an executor without a graph (or a MiniMalloc instance) hands them in.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <numeric>
#include <random>
#include <span>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include <onnx_runtime_memory/detail/exact_search.hpp>  // the strategies themselves, which the umbrella header
#include <onnx_runtime_memory/detail/finishing.hpp>     // declares only when the core is compiled apart

#include "support.hpp"
#include "synthetic.hpp"

using orm::Buffer;
using Kind = orm::ValidateError::Kind;

namespace {

// A seeded xorshift generator: the random problems below, reproducible.
auto xorshift(std::uint64_t seed) {
    return [x = seed]() mutable {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        return x;
    };
}

}  // namespace

TEST_CASE("plan_offsets: a chain of three buffers packs into two, validated") {
    // 64 bytes each: a [0,1], b [1,2], c [2,2]; a and c never meet.
    const std::vector<Buffer> buffers = {{64, 0, 1}, {64, 1, 2}, {64, 2, 2}};
    auto plan = orm::plan_offsets(buffers);
    REQUIRE(plan.has_value());
    CHECK(plan->arena_bytes == 128);
    CHECK(plan->lower_bound_bytes == 128);
    CHECK(plan->alignment == 64);
    CHECK(plan->offsets.size() == 3);
    CHECK(plan->offsets[0] != plan->offsets[1]);
    CHECK(plan->offsets[1] != plan->offsets[2]);
    CHECK(orm::validate_offsets(buffers, *plan, 64).has_value());
    const auto bounds = orm::lower_bounds(buffers, 64);
    REQUIRE(bounds.has_value());
    CHECK(bounds->offset_bytes == 128);
    CHECK(bounds->slot_bytes == 128);
    CHECK(*orm::plan_offsets(buffers) == *plan);  // deterministic
}

TEST_CASE("plan_offsets: the sweep mirrored in time reaches the bound where the sweep does not") {
    // Records {size, first, last}. The sweep, in order of first use: at 0, r0
    // at 0 and r1 at 2; at 2, r2 on top at 4 (r1 is still live); at 3, r3 into
    // r1's freed 2 bytes; at 4, r4 (4 bytes) finds r0's freed 2 and goes above
    // r3 at 3: 7 bytes. Mirrored in time (T = 6) the buffers arrive as they
    // die: r4 at 0, r3 at 4, then r0 and r2 into r4's freed 4 bytes (0, 2),
    // r1 into the byte above them and r3's freed one (3): 5, the bound.
    const std::vector<Buffer> buffers = {{2, 0, 3}, {2, 0, 2}, {1, 2, 3}, {1, 3, 5}, {4, 4, 6}};
    orm::ArenaOptions sweep_only;
    sweep_only.alignment = 1;
    sweep_only.work_per_owner = 0;
    const auto sweep = orm::plan_offsets(buffers, sweep_only);
    REQUIRE(sweep.has_value());
    CHECK(sweep->arena_bytes == 7);
    CHECK(sweep->offsets == std::vector<std::size_t>{0, 2, 4, 2, 3});
    orm::ArenaOptions all = sweep_only;
    all.work_per_owner = 1;  // a budget: the greedy orders and the skylines run, and stop above the bound
    const auto plan = orm::plan_offsets(buffers, all);
    REQUIRE(plan.has_value());
    CHECK(plan->lower_bound_bytes == 5);
    CHECK(plan->arena_bytes == 5);
    CHECK(plan->strategy == orm::ArenaStrategy::mirrored_sweep);
    CHECK(plan->offsets == std::vector<std::size_t>{0, 3, 2, 4, 0});
    CHECK(orm::validate_offsets(buffers, *plan, 1).has_value());
}

TEST_CASE("plan_offsets: the first fit by size takes equal sizes in order of first use, as TFLite does") {
    // Records {size, first, last}; r1, r2 and r3 are 4 bytes. In order of
    // first use: r1 at 0, r2 at 0 (they never meet), r3 above r2 at 4, then
    // r0 (3 bytes) above r1 and r2, beside r3: 8, the bound. Ties broken by
    // the longest first (the best fit's order) put r3 at 0 and r2 above it,
    // and r0 then meets both r1 at 0 and r2 at 4 and goes to 8: 11.
    const std::vector<Buffer> buffers = {{3, 0, 2}, {4, 0, 0}, {4, 2, 4}, {4, 3, 6}};
    orm::ArenaOptions o;
    o.alignment = 1;
    o.work_per_owner = 1;  // a budget: the greedy orders run
    const auto plan = orm::plan_offsets(buffers, o);
    REQUIRE(plan.has_value());
    CHECK(plan->lower_bound_bytes == 8);
    CHECK(plan->arena_bytes == 8);
    CHECK(plan->strategy == orm::ArenaStrategy::size_first_fit);
    CHECK(plan->offsets == std::vector<std::size_t>{4, 0, 0, 4});
    CHECK(orm::validate_offsets(buffers, *plan, 1).has_value());
}

TEST_CASE("plan_offsets: offsets aligned, arena_bytes ends at the top buffer's own bytes") {
    const std::vector<Buffer> buffers = {{10, 0, 0}, {10, 0, 0}, {1, 1, 1}};
    orm::ArenaOptions o;
    o.alignment = 16;
    auto plan = orm::plan_offsets(buffers, o);
    REQUIRE(plan.has_value());
    CHECK(plan->arena_bytes == 16 + 10);
    CHECK(plan->lower_bound_bytes == 16 + 10);
    for (std::size_t off : plan->offsets) CHECK(off % 16 == 0);
    o.alignment = 0;  // counts as 1
    CHECK(orm::plan_offsets(buffers, o)->arena_bytes == 20);
}

TEST_CASE("plan_offsets: never above TFLite's high-water mark on its own arena tests, at its alignment") {
    // tensorflow/lite/simple_memory_arena_test.cc, tensor alignment 32: the
    // records of BasicArenaOperations, InterleavedZeroAlloc and TestClearPlan,
    // and the high-water mark (largest offset + size) of TFLite's offsets.
    const std::pair<std::vector<Buffer>, std::size_t> cases[] = {
        {{{2047, 1, 3}, {2047, 2, 5}, {2047, 3, 6}, {2047, 5, 6}, {1023, 4, 6}, {1023, 6, 6}}, 6144 + 1023},
        {{{2047, 0, 4}, {0, 1, 2}, {1023, 1, 2}, {2047, 3, 4}}, 2048 + 2047},
        {{{2047, 0, 2}, {2047, 1, 2}, {2047, 1, 2}}, 4096 + 2047},
    };
    orm::ArenaOptions o;
    o.alignment = 32;
    for (const auto& [buffers, tflite] : cases) {
        auto plan = orm::plan_offsets(buffers, o);
        REQUIRE(plan.has_value());
        CHECK(plan->arena_bytes <= tflite);
        CHECK(plan->arena_bytes == plan->lower_bound_bytes);
        CHECK(orm::validate_offsets(buffers, *plan, 32).has_value());
    }
}

TEST_CASE("plan_offsets: the bound is the rounded live total less the largest slack on top, by a reference") {
    // At each time: the live sizes rounded up, less the largest rounding of
    // one of them (it can lie on top); the bound is the most of that over
    // times. The arena ends at the top buffer's own bytes, never below it.
    std::mt19937_64 rng(5);
    for (int round = 0; round < 300; ++round) {
        std::vector<Buffer> buffers(1 + rng() % 8);
        for (auto& b : buffers) {
            b.size = rng() % 4 == 0 ? 0 : 1 + rng() % 200;
            b.first = static_cast<orm::NodeIndex>(rng() % 6);
            b.last = b.first + static_cast<orm::NodeIndex>(rng() % 4);
        }
        const std::size_t alignment = std::size_t{1} << (rng() % 7);
        std::size_t expected = 0;
        for (orm::NodeIndex t = 0; t < 10; ++t) {
            std::size_t total = 0, slack = 0;
            for (const auto& b : buffers)
                if (b.first <= t && t <= b.last) {
                    const std::size_t rounded = (b.size + alignment - 1) / alignment * alignment;
                    total += rounded;
                    slack = std::max(slack, rounded - b.size);
                }
            expected = std::max(expected, total - slack);
        }
        orm::ArenaOptions o;
        o.alignment = alignment;
        auto plan = orm::plan_offsets(buffers, o);
        REQUIRE(plan.has_value());
        INFO("round " << round << ", alignment " << alignment);
        CHECK(plan->lower_bound_bytes == expected);
        CHECK(orm::lower_bounds(buffers, alignment)->offset_bytes == expected);
        CHECK(plan->arena_bytes >= expected);
        std::size_t end = 0;
        for (std::size_t i = 0; i < buffers.size(); ++i)
            if (buffers[i].size > 0) end = std::max(end, plan->offsets[i] + buffers[i].size);
        CHECK(plan->arena_bytes == end);
        CHECK(orm::validate_offsets(buffers, *plan, alignment).has_value());
    }
}

namespace {
// Whether the buffers fit in `capacity` bytes at some offsets: plain
// backtracking over every offset of every buffer, written apart from the
// planner's search.
bool fits(const std::vector<Buffer>& buffers, std::size_t capacity, std::vector<std::size_t>& offset, std::size_t i = 0) {
    if (i == buffers.size()) return true;
    for (std::size_t at = 0; at + buffers[i].size <= capacity; ++at) {
        bool clear = true;
        for (std::size_t j = 0; j < i && clear; ++j)
            clear = !(buffers[i].first <= buffers[j].last && buffers[j].first <= buffers[i].last &&
                      at < offset[j] + buffers[j].size && offset[j] < at + buffers[i].size);
        if (!clear) continue;
        offset[i] = at;
        if (fits(buffers, capacity, offset, i + 1)) return true;
    }
    return false;
}
}  // namespace

TEST_CASE("plan_offsets: the exact search proves a bound above the live total, and reaches it") {
    // At most 14 bytes are live at once, but no placement fits in 14 (checked
    // by backtracking): the search proves 15 and places the buffers in 15.
    const std::vector<Buffer> buffers = {{6, 4, 6}, {7, 5, 7}, {6, 0, 2}, {1, 2, 5},
                                         {3, 2, 4}, {4, 1, 3}, {1, 3, 4}, {6, 0, 0}};
    std::vector<std::size_t> offset(buffers.size());
    REQUIRE_FALSE(fits(buffers, 14, offset));
    REQUIRE(fits(buffers, 15, offset));
    orm::ArenaOptions o;
    o.alignment = 1;
    auto plain = orm::plan_offsets(buffers, o);
    REQUIRE(plain.has_value());
    CHECK(plain->lower_bound_bytes == 14);
    CHECK(plain->proven_bound_bytes == 14);  // no search, no proof beyond the live total
    o.exact_nodes = 1 << 20;
    auto searched = orm::plan_offsets(buffers, o);
    REQUIRE(searched.has_value());
    CHECK(searched->lower_bound_bytes == 14);
    CHECK(searched->proven_bound_bytes == 15);
    CHECK(searched->arena_bytes == 15);  // optimal, and proven so
    CHECK(orm::validate_offsets(buffers, *searched, 1).has_value());
}

TEST_CASE("plan_offsets: the exact search runs when asked, even where the greedy orders spend the work budget") {
    // The buffers above and 900 empty ones live throughout: 400,000 pairs
    // meet, so one greedy order spends nearly all of the budget and no
    // skyline fits in the rest, but the search, bounded by its node count,
    // still runs and proves 15.
    std::vector<Buffer> buffers = {{6, 4, 6}, {7, 5, 7}, {6, 0, 2}, {1, 2, 5},
                                   {3, 2, 4}, {4, 1, 3}, {1, 3, 4}, {6, 0, 0}};
    buffers.resize(buffers.size() + 900, Buffer{0, 0, 7});
    orm::ArenaOptions o;
    o.alignment = 1;
    o.exact_nodes = 1 << 20;
    auto searched = orm::plan_offsets(buffers, o);
    REQUIRE(searched.has_value());
    CHECK(searched->proven_bound_bytes == 15);
    CHECK(searched->arena_bytes == 15);
    CHECK(orm::validate_offsets(buffers, *searched, 1).has_value());
}

TEST_CASE("plan_offsets: malformed records and overflowing totals name the buffer") {
    const std::vector<Buffer> backwards = {{8, 0, 1}, {8, 3, 2}};
    auto e = orm::plan_offsets(backwards);
    REQUIRE_FALSE(e.has_value());
    CHECK(e.error().kind == orm::PlanError::Kind::bad_buffer);
    CHECK(e.error().value == 1);
    CHECK(e.error().message() == "buffer 1 ends before it begins, or lives past time 67108863");
    const std::vector<Buffer> late = {{8, 0, static_cast<orm::NodeIndex>(orm::max_graph_ids)}};
    CHECK(orm::plan_offsets(late).error().kind == orm::PlanError::Kind::bad_buffer);
    CHECK(orm::lower_bounds(late).error().kind == orm::PlanError::Kind::bad_buffer);
    const std::vector<Buffer> huge = {{SIZE_MAX / 2, 0, 0}, {SIZE_MAX / 2, 0, 0}, {SIZE_MAX / 2, 0, 0}};
    auto o = orm::plan_offsets(huge);
    REQUIRE_FALSE(o.has_value());
    CHECK(o.error().kind == orm::PlanError::Kind::size_overflow);
    CHECK(o.error().value == 1);  // rounded up to 64, two of them already reach 2^64
    CHECK(orm::plan_offsets(std::vector<Buffer>{})->arena_bytes == 0);
}

TEST_CASE("validate_offsets: every corruption is caught with its own error, by buffer index") {
    const std::vector<Buffer> buffers = {{64, 0, 1}, {64, 1, 2}, {64, 2, 2}};
    const auto good = *orm::plan_offsets(buffers);
    const auto rejected = [&](const orm::OffsetPlan& p, std::size_t alignment = 64) {
        auto r = orm::validate_offsets(buffers, p, alignment);
        REQUIRE_FALSE(r.has_value());
        return r.error();
    };
    auto p = good;
    p.offsets.pop_back();
    CHECK(rejected(p).kind == Kind::missing_offset);
    p = good;
    p.offsets[1] = orm::no_offset;
    CHECK(rejected(p).value == 1);
    p = good;
    p.offsets[2] = p.arena_bytes + 8;  // clear of the others, but not 64-aligned
    p.arena_bytes += 8 + 64;
    CHECK(rejected(p).kind == Kind::misaligned_offset);
    CHECK(orm::validate_offsets(buffers, p, 8).has_value());  // a caller that needs only 8
    p = good;
    p.arena_bytes = 127;
    CHECK(rejected(p).kind == Kind::outside_arena);
    p = good;
    p.offsets[1] = p.offsets[0];  // a and b meet at time 1
    const auto e = rejected(p);
    CHECK(e.kind == Kind::offset_overlap);
    CHECK(e.value == 0);
    CHECK(e.other == 1);
    p = good;
    p.offsets[2] = p.offsets[0];  // a [0,1] and c [2,2] never meet: sharing bytes is fine
    p.alignment = 1;              // and the plan's own alignment is not believed
    CHECK(orm::validate_offsets(buffers, p, 64).has_value());
}

TEST_CASE("plan_offsets: the graph path and the graph-free path agree on a graph's owners") {
    ir::Builder b("agree");
    b.tensor("a", test::f32, {16}).tensor("b", test::f32, {40}).tensor("c", test::f32, {8});
    b.tensor("d", test::f32, {24}).tensor("e", test::f32, {16});
    b.input("x").node("A", {"x"}, {"a"}).node("B", {"x"}, {"b"}).node("C", {"a"}, {"c"});
    b.node("D", {"b", "c"}, {"d"}).node("E", {"d", "a"}, {"e"}).output("e");
    const auto g = b.build();
    auto live = orm::compute_liveness(g, {});
    REQUIRE(live.has_value());
    std::vector<Buffer> buffers;
    for (ValueId v : live->owners)
        buffers.push_back(Buffer{*orm::static_size(g, v), live->intervals[v].def, live->intervals[v].use_end});
    auto offsets = orm::plan_offsets(buffers);
    auto arena = orm::plan_arena(g, {}, orm::static_size_oracle(g));
    REQUIRE(offsets.has_value());
    REQUIRE(arena.has_value());
    REQUIRE(arena->plan().strategy != orm::ArenaStrategy::slots);
    CHECK(offsets->arena_bytes == arena->plan().arena_bytes);
    for (std::size_t i = 0; i < buffers.size(); ++i) CHECK(offsets->offsets[i] == arena->plan().offsets[live->owners[i]]);
}

// ---- pinned buffers ----

TEST_CASE("pinned buffers stay where the caller put them, the rest is packed around them") {
    // a is pinned high, at 1000; b and c fit in the room below it.
    orm::ArenaOptions o;
    o.alignment = 1;
    std::vector<Buffer> buffers = {{100, 0, 2, 1000}, {100, 1, 3}, {50, 3, 4}};
    auto plan = orm::plan_offsets(buffers, o);
    REQUIRE(plan.has_value());
    CHECK(plan->offsets[0] == 1000);
    CHECK(plan->offsets[1] == 0);
    CHECK(plan->offsets[2] == 100);
    CHECK(plan->arena_bytes == 1100);
    CHECK(plan->lower_bound_bytes == 1100);  // no arena holds a buffer pinned at 1000 in less
    CHECK(orm::validate_offsets(buffers, *plan, 1).has_value());
    // Pinned low, the same buffers stack above it.
    buffers[0].pinned = 0;
    plan = orm::plan_offsets(buffers, o);
    REQUIRE(plan.has_value());
    CHECK(plan->offsets[0] == 0);
    CHECK(plan->arena_bytes == 200);
    CHECK(orm::validate_offsets(buffers, *plan, 1).has_value());
    // With the sweep alone, the free buffers go above the highest pin.
    o.work_per_owner = 0;
    buffers[0].pinned = 1000;
    plan = orm::plan_offsets(buffers, o);
    REQUIRE(plan.has_value());
    CHECK(plan->offsets[0] == 1000);
    CHECK(plan->offsets[1] == 1100);
    CHECK(plan->offsets[2] == 1200);  // c meets b at time 3
    CHECK(plan->arena_bytes == 1250);
    CHECK(orm::validate_offsets(buffers, *plan, 1).has_value());
}

TEST_CASE("pins that overlap while live, or off the alignment, are refused by name") {
    const std::vector<Buffer> clash = {{64, 0, 1}, {100, 0, 2, 0}, {100, 2, 3, 64}};
    auto e = orm::plan_offsets(clash);  // 100 rounds up to 128: [0,128) and [64,192) meet at time 2
    REQUIRE_FALSE(e.has_value());
    CHECK(e.error().kind == orm::PlanError::Kind::pins_overlap);
    CHECK(e.error().value == 1);
    CHECK(e.error().other == 2);
    CHECK(e.error().node == 2);
    CHECK(e.error().message() == "pinned value 1 and value 2 share bytes while both are live (at node 2)");
    const std::vector<Buffer> apart_in_time = {{100, 0, 1, 0}, {100, 2, 3, 0}};
    CHECK(orm::plan_offsets(apart_in_time).has_value());
    const std::vector<Buffer> misaligned = {{64, 0, 1}, {64, 0, 1, 32}};
    e = orm::plan_offsets(misaligned);
    REQUIRE_FALSE(e.has_value());
    CHECK(e.error().kind == orm::PlanError::Kind::pin_misaligned);
    CHECK(e.error().value == 1);
    orm::ArenaOptions o;
    o.alignment = 32;
    CHECK(orm::plan_offsets(misaligned, o).has_value());
    const std::vector<Buffer> past_the_end = {{128, 0, 1, SIZE_MAX - 127}};
    CHECK(orm::plan_offsets(past_the_end).error().kind == orm::PlanError::Kind::pin_too_high);
    // A pin so high that the free buffer, placed above it, would end past
    // SIZE_MAX: an error naming the pin (the sweep wrapped it to offset 0
    // before), while one just low enough is planned.
    o.alignment = 64;
    const std::size_t top = SIZE_MAX / 64 * 64;
    const std::vector<Buffer> no_room = {{64, 0, 10}, {64, 0, 10, top - 64}};
    e = orm::plan_offsets(no_room, o);
    REQUIRE_FALSE(e.has_value());
    CHECK(e.error().kind == orm::PlanError::Kind::pin_too_high);
    CHECK(e.error().value == 1);
    const std::vector<Buffer> room = {{64, 0, 10}, {64, 0, 10, top - 192}};
    const auto fits = orm::plan_offsets(room, o);
    REQUIRE(fits.has_value());
    CHECK(fits->offsets[1] == top - 192);
    CHECK(fits->arena_bytes == top - 128);  // the free buffer beside the pin, below it
    CHECK(orm::validate_offsets(room, *fits, 64).has_value());
}

TEST_CASE("validate_offsets: a pinned buffer moved is caught") {
    const std::vector<Buffer> buffers = {{64, 0, 1, 128}, {64, 1, 2}};
    auto plan = orm::plan_offsets(buffers);
    REQUIRE(plan.has_value());
    CHECK(orm::validate_offsets(buffers, *plan, 64).has_value());
    auto moved = *plan;
    moved.offsets[0] = 0;
    moved.offsets[1] = 64;
    auto r = orm::validate_offsets(buffers, moved, 64);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().kind == Kind::pin_moved);
    CHECK(r.error().value == 0);
    CHECK(r.error().message() == "owner value 0 is pinned at offset 128 but placed at 0");
}

TEST_CASE("pins taken from a plan, on random buffers: the re-plan keeps them and validates") {
    auto rnd = xorshift(0x51ED2701u);
    for (int round = 0; round < 200; ++round) {
        std::vector<Buffer> buffers(5 + rnd() % 60);
        for (auto& b : buffers) {
            b.first = static_cast<orm::NodeIndex>(rnd() % 40);
            b.last = b.first + static_cast<orm::NodeIndex>(rnd() % 10);
            b.size = 1 + rnd() % 5000;
        }
        orm::ArenaOptions o;
        o.work_per_owner = round % 3 == 0 ? 0 : 4096;
        const auto free_plan = orm::plan_offsets(buffers, o);
        REQUIRE(free_plan.has_value());
        for (std::size_t i = 0; i < buffers.size(); ++i)
            if (rnd() % 3 == 0) buffers[i].pinned = free_plan->offsets[i];
        const auto pinned = orm::plan_offsets(buffers, o);
        REQUIRE(pinned.has_value());
        INFO("round " << round);
        CHECK(orm::validate_offsets(buffers, *pinned, 64).has_value());
        for (std::size_t i = 0; i < buffers.size(); ++i)
            if (buffers[i].pinned != orm::no_offset) CHECK(pinned->offsets[i] == buffers[i].pinned);
        CHECK(pinned->arena_bytes >= pinned->lower_bound_bytes);
    }
}

TEST_CASE("plan_slots: slots for plain buffer records, as a graph's owners get them") {
    // The chain of the first test: a [0,1], b [1,2], c [2,2]; c fits into a's slot.
    const std::vector<Buffer> buffers = {{64, 0, 1}, {64, 1, 2}, {48, 2, 2}};
    auto plan = orm::plan_slots(buffers);
    REQUIRE(plan.has_value());
    CHECK(plan->num_slots() == 2);
    CHECK(plan->assignments[2] == plan->assignments[0]);
    CHECK(plan->peak_bytes == 128);
    CHECK(plan->naive_bytes == 176);
    // The graph path on the same owners gives the same slots.
    ir::Builder bld("chain");
    bld.tensor("a", test::f32, {16}).tensor("b", test::f32, {16}).tensor("c", test::f32, {12});
    bld.input("x").node("A", {"x"}, {"a"}).node("B", {"a"}, {"b"}).node("C", {"b"}, {"c"}).output("c");
    const auto g = bld.build();
    const auto graph_plan = test::plan_ok(g, {});
    CHECK(graph_plan.peak_bytes == plan->peak_bytes);
    CHECK(graph_plan.num_slots() == plan->num_slots());
    const std::vector<Buffer> backwards = {{8, 2, 1}};
    CHECK(orm::plan_slots(backwards).error().kind == orm::PlanError::Kind::bad_buffer);
    CHECK(orm::plan_slots(std::vector<Buffer>{})->num_slots() == 0);
}

TEST_CASE("the sweep's free gaps: hundreds of gaps (treaps) and a handful (a vector) place as a plain reference does") {
    // The reference: the same walk, its gaps in a std::vector by offset,
    // best fit by a full scan (smallest, then lowest), neighbours merged.
    const auto reference = [](const orm::detail::Buffers& b, std::vector<std::size_t>& offset) {
        const std::size_t n = b.count();
        offset.assign(n, 0);
        std::vector<std::pair<std::size_t, std::size_t>> gaps;
        std::vector<std::uint32_t> by_end(n);
        std::iota(by_end.begin(), by_end.end(), 0u);
        std::stable_sort(by_end.begin(), by_end.end(), [&](std::uint32_t x, std::uint32_t y) { return b.end[x] < b.end[y]; });
        std::size_t top = 0, arena = 0, next = 0, done = 0;
        while (next < n || done < n) {
            const orm::NodeIndex p = next < n ? std::min(b.def[next], b.end[by_end[done]]) : b.end[by_end[done]];
            for (; next < n && b.def[next] == p; ++next) {
                const std::size_t need = b.size[next];
                if (need == 0) continue;
                std::size_t best = gaps.size();
                for (std::size_t i = 0; i < gaps.size(); ++i)
                    if (gaps[i].second >= need && (best == gaps.size() || gaps[i].second < gaps[best].second)) best = i;
                if (best == gaps.size()) {
                    offset[next] = top;
                    top += need;
                    arena = std::max(arena, top);
                    continue;
                }
                offset[next] = gaps[best].first;
                gaps[best].first += need;
                gaps[best].second -= need;
                if (gaps[best].second == 0) gaps.erase(gaps.begin() + static_cast<std::ptrdiff_t>(best));
            }
            for (; done < n && b.end[by_end[done]] == p; ++done) {
                const std::uint32_t x = by_end[done];
                if (b.size[x] == 0) continue;
                std::size_t off = offset[x], size = b.size[x];
                for (std::size_t i = 0; i < gaps.size();) {
                    if (gaps[i].first + gaps[i].second == off) {
                        off = gaps[i].first;
                        size += gaps[i].second;
                    } else if (gaps[i].first == off + size) {
                        size += gaps[i].second;
                    } else {
                        ++i;
                        continue;
                    }
                    gaps.erase(gaps.begin() + static_cast<std::ptrdiff_t>(i));
                    i = 0;
                }
                if (off + size == top) top = off;
                else gaps.insert(std::lower_bound(gaps.begin(), gaps.end(), std::pair{off, size}), {off, size});
            }
        }
        return arena;
    };
    auto rnd = xorshift(0xC0FFEEu);
    {  // Two gaps of the same size: the lower one is taken.
        const std::vector<Buffer> buffers = {{16, 0, 5}, {32, 0, 1}, {16, 0, 5}, {32, 0, 1}, {16, 0, 5}, {32, 2, 3}};
        orm::detail::Buffers b;
        REQUIRE(orm::detail::make_buffers(buffers, 16, b).has_value());
        std::vector<std::size_t> got;
        CHECK(orm::detail::sweep(b, got) == 112);
        CHECK(got == std::vector<std::size_t>{0, 16, 48, 64, 96, 16});
    }
    for (int round = 0; round < 60; ++round) {
        // At time 0, pairs of a long and a short buffer side by side: when the
        // short ones die at time 1 they leave one gap each, 100 to 400 at
        // once (past the vector's limit of 64); random buffers then fill them
        // and the gaps close again (back below 16).
        const std::size_t pairs = 100 + rnd() % 300, span = 50 + rnd() % 400;
        std::vector<Buffer> buffers;
        for (std::size_t k = 0; k < pairs; ++k) {
            buffers.push_back(Buffer{(1 + rnd() % 8) * 16, 0, static_cast<orm::NodeIndex>(span)});
            buffers.push_back(Buffer{(1 + rnd() % 8) * 16, 0, 1});
        }
        for (std::size_t k = 0, extra = 200 + rnd() % 2000; k < extra; ++k) {
            Buffer buf;
            buf.first = static_cast<orm::NodeIndex>(2 + rnd() % span);
            buf.last = buf.first + static_cast<orm::NodeIndex>(rnd() % 3 == 0 ? rnd() % span : rnd() % 4);
            buf.size = (1 + rnd() % 40) * 16;
            buffers.push_back(buf);
        }
        orm::detail::Buffers b;
        REQUIRE(orm::detail::make_buffers(buffers, 16, b).has_value());
        std::vector<std::size_t> got, want;
        const std::size_t arena = orm::detail::sweep(b, got);
        INFO("round " << round);
        CHECK(arena == reference(b, want));
        CHECK(got == want);
        // Asked to give up at its arena, it does; one byte above, it finishes the same.
        orm::detail::SweepSpace space;
        CHECK(orm::detail::sweep(b, got, space, arena) == orm::no_offset);
        CHECK(orm::detail::sweep(b, got, space, arena + 1) == arena);
        CHECK(got == want);
    }
}

TEST_CASE("the free gaps' edge index finds, inserts and erases as a std::map does, through grows and long probe runs") {
    auto rnd = xorshift(0xED6Eu);
    for (int round = 0; round < 20; ++round) {
        orm::detail::EdgeIndex index;
        std::map<std::size_t, std::uint32_t> model;
        // Few distinct edges (multiples of 64 below 64 * keys), so that runs
        // wrap, erases shift entries back, and a key comes and goes often.
        const std::size_t keys = 8 + rnd() % 600;
        for (int op = 0; op < 20000; ++op) {
            const std::size_t edge = 64 * (rnd() % keys);
            const auto it = model.find(edge);
            if (it == model.end()) {
                const auto id = static_cast<std::uint32_t>(rnd() % 1000);
                index.insert(edge, id);
                model.emplace(edge, id);
            } else if (rnd() % 2 == 0) {
                index.erase(edge);
                model.erase(it);
            }
            const std::size_t probe = 64 * (rnd() % keys);
            const auto want = model.find(probe);
            REQUIRE(index.find(probe) == (want == model.end() ? orm::detail::EdgeIndex::nil : want->second));
        }
        for (const auto& [edge, id] : model) REQUIRE(index.find(edge) == id);
        index.clear();  // then one edge again: the old ones must be gone, not just hidden by the count
        index.insert(64 * keys, 7);
        for (const auto& [edge, id] : model) REQUIRE(index.find(edge) == orm::detail::EdgeIndex::nil);
        REQUIRE(index.find(64 * keys) == 7);
    }
}

// n random buffer records over `span` positions, long-lived (up to the span)
// or short (up to 4 positions), sizes of 1 to `sizes` times 16 (one in ten
// zero); with `pins`, one in sixteen pinned, each past the previous one's
// bytes, so that no two overlap.
template <class Rnd>
std::vector<Buffer> random_records(Rnd& rnd, std::size_t n, std::size_t span, bool long_lived, std::size_t sizes,
                                   bool pins) {
    std::vector<Buffer> buffers;
    std::size_t pin = 0;
    for (std::size_t k = 0; k < n; ++k) {
        Buffer buf;
        buf.first = static_cast<orm::NodeIndex>(rnd() % span);
        buf.last = buf.first + static_cast<orm::NodeIndex>(long_lived ? rnd() % span : rnd() % 4);
        buf.size = rnd() % 10 == 0 ? 0 : (1 + rnd() % sizes) * 16;
        if (pins && rnd() % 16 == 0) {
            buf.pinned = pin;
            pin += (buf.size + 15) / 16 * 16;
        }
        buffers.push_back(buf);
    }
    return buffers;
}

// Whether `offset` (by buffer of b, as the strategies write it), with that
// arena, is a valid plan of the records at alignment 16.
bool valid_plan(const std::vector<Buffer>& buffers, const orm::detail::Buffers& b, const std::vector<std::size_t>& offset,
                std::size_t arena) {
    orm::OffsetPlan plan;
    plan.alignment = 16;
    plan.arena_bytes = arena;
    plan.offsets.assign(buffers.size(), 0);
    for (std::size_t i = 0; i < b.count(); ++i) plan.offsets[b.value[i]] = offset[i];
    return orm::validate_offsets(buffers, plan, 16).has_value();
}

TEST_CASE("the greedy passes: the scan of every placed buffer places as the index by time does, and gives up at its arena") {
    // Random problems, dense and sparse in time, some with pins (each pin
    // past the previous one's bytes, so no two overlap): every order, both
    // fits, the two ways of finding what a buffer meets give the same
    // offsets, and the offsets are valid. Asked to give up at its arena, a
    // pass does; one byte above, it finishes with the same offsets.
    auto rnd = xorshift(0x5EEDu);
    for (int round = 0; round < 40; ++round) {
        const std::size_t n = 1 + rnd() % 300, span = 1 + rnd() % 200;
        const bool long_lived = round % 2 == 0;
        const std::vector<Buffer> buffers = random_records(rnd, n, span, long_lived, 40, round % 4 == 1);
        orm::detail::Buffers b;
        REQUIRE(orm::detail::make_buffers(buffers, 16, b).has_value());
        const auto m = orm::detail::meetings(b);
        const auto orders = orm::detail::greedy_orders(b, m);
        orm::detail::GreedySpace space;
        for (const auto& order : orders)
            for (const auto fit : {orm::detail::Fit::best, orm::detail::Fit::first}) {
                INFO("round " << round);
                std::vector<std::size_t> by_time, by_scan;
                const std::size_t arena = orm::detail::place_in_order(b, order, fit, false, by_time, space);
                CHECK(orm::detail::place_in_order(b, order, fit, true, by_scan, space) == arena);
                CHECK(by_scan == by_time);
                for (const bool scan : {false, true}) {
                    std::vector<std::size_t> again;
                    CHECK(orm::detail::place_in_order(b, order, fit, scan, again, space, {}, arena) == orm::no_offset);
                    CHECK(orm::detail::place_in_order(b, order, fit, scan, again, space, {}, arena + 1) == arena);
                    CHECK(again == by_time);
                }
                CHECK(valid_plan(buffers, b, by_scan, arena));
            }
    }
}

TEST_CASE("the skylines: valid plans, and each gives up at its arena") {
    // Random problems, dense and sparse in time: each preference's plan is
    // valid; asked to give up at its arena, it does; one byte above, it
    // places the same.
    auto rnd = xorshift(0x5C71u);
    for (int round = 0; round < 30; ++round) {
        const std::size_t n = 1 + rnd() % 200, span = 1 + rnd() % 100;
        const std::vector<Buffer> buffers = random_records(rnd, n, span, round % 2 == 0, 40, false);
        orm::detail::Buffers b;
        REQUIRE(orm::detail::make_buffers(buffers, 16, b).has_value());
        orm::detail::Skyline sky;
        for (const auto prefer : {orm::detail::Prefer::size, orm::detail::Prefer::area, orm::detail::Prefer::lifetime}) {
            INFO("round " << round << ", preference " << static_cast<int>(prefer));
            std::vector<std::size_t> want, got;
            std::size_t steps = orm::detail::size_max;
            const std::size_t arena = orm::detail::skyline(b, prefer, nullptr, sky, want, steps);
            REQUIRE(arena != orm::no_offset);
            CHECK(valid_plan(buffers, b, want, arena));
            steps = orm::detail::size_max;
            CHECK(orm::detail::skyline(b, prefer, nullptr, sky, got, steps, arena) == orm::no_offset);
            steps = orm::detail::size_max;
            CHECK(orm::detail::skyline(b, prefer, nullptr, sky, got, steps, arena + 1) == arena);
            CHECK(got == want);
        }
    }
}

TEST_CASE("the skyline by runs places as the skyline does, gives up at its arena, and past its rate") {
    // Random problems, dense and sparse in time, sizes from 3 values (ties
    // everywhere) to 400: the same offsets and arena as skyline() for each
    // preference, the same give-up at the arena; then a rate it cannot keep.
    namespace d = orm::detail;
    auto rnd = xorshift(0x5C72u);
    d::Skyline sky;
    d::SkylineRuns runs;
    for (int round = 0; round < 400; ++round) {
        const std::size_t n = 1 + rnd() % 150, span = 1 + rnd() % 80;
        const std::vector<Buffer> buffers = random_records(rnd, n, span, round % 2 == 0, round % 3 == 0 ? 3 : 400, false);
        d::Buffers b;
        REQUIRE(d::make_buffers(buffers, 16, b).has_value());
        for (const auto prefer : {d::Prefer::size, d::Prefer::area, d::Prefer::lifetime}) {
            INFO("round " << round << ", preference " << static_cast<int>(prefer));
            std::vector<std::size_t> want, got;
            std::size_t steps = d::size_max;
            const std::size_t arena = d::skyline(b, prefer, nullptr, sky, want, steps);
            steps = d::size_max;
            REQUIRE(d::skyline_by_runs(b, prefer, runs, got, steps) == arena);
            CHECK(got == want);
            steps = d::size_max;
            if (arena > 0) CHECK(d::skyline_by_runs(b, prefer, runs, got, steps, arena) == orm::no_offset);
            steps = d::size_max;
            CHECK(d::skyline_by_runs(b, prefer, runs, got, steps, arena + 1) == arena);
            // Out of steps part way, or held to no steps a placement: it gives up.
            const std::size_t took = d::size_max - steps;
            if (took > 1) {
                steps = took / 2;
                CHECK(d::skyline_by_runs(b, prefer, runs, got, steps) == orm::no_offset);
                steps = d::size_max;
                CHECK(d::skyline_by_runs(b, prefer, runs, got, steps, orm::no_offset, 0) == orm::no_offset);
            }
        }
    }
}

TEST_CASE("the skyline by runs: on residual blocks it reaches the bound the greedy orders miss, and on random DAGs its rate stops it early") {
    // synthetic::residual_blocks at 20,000 nodes: by lifetime, by runs, the
    // arena is the bound; the best greedy order (size, best fit) ends a
    // skip's slot above, 10/9 of it. On a random DAG of 100,000 nodes, held
    // to 4 log2 n steps a placement, it gives up having spent little.
    namespace d = orm::detail;
    const auto plan = [](const synthetic::Synthetic& s, d::Buffers& b) {
        const auto live = orm::compute_liveness(s.graph, s.views);
        REQUIRE(live.has_value());
        std::vector<Buffer> records;
        for (const orm::ValueId v : live->owners)
            records.push_back({s.sizes[v], live->intervals[v].def, live->intervals[v].use_end});
        REQUIRE(d::make_buffers(records, 64, b).has_value());
        return orm::plan_offsets(records, {})->lower_bound_bytes;
    };
    d::Buffers b;
    const std::size_t bound = plan(synthetic::residual_blocks(20000, 0x9E3779B97F4A7C15ull ^ 20000), b);
    CHECK(bound == 589824);  // at a Relu of the widest block: the skip (64 KiB), its two values (256 KiB each)
    d::SkylineRuns runs;
    std::vector<std::size_t> offset;
    const std::size_t rate = 4 * d::log2_steps(b.count());
    std::size_t steps = d::size_max;
    CHECK(d::skyline_by_runs(b, d::Prefer::lifetime, runs, offset, steps, orm::no_offset, rate) == bound);
    CHECK(d::size_max - steps <= rate * b.count());

    const std::size_t dag_bound = plan(synthetic::random_dag(100000, 7), b);
    CHECK(dag_bound > 0);
    steps = d::size_max;
    CHECK(d::skyline_by_runs(b, d::Prefer::lifetime, runs, offset, steps, orm::no_offset, 4 * d::log2_steps(b.count())) ==
          orm::no_offset);
    CHECK(d::size_max - steps < b.count() * d::log2_steps(b.count()));  // an eighth of its allowance at most
}

TEST_CASE("meetings and meeting_pairs: each buffer's bytes of the others it meets, and the pairs, as a check of every pair gives") {
    auto rnd = xorshift(0x3EE7u);
    for (int round = 0; round < 30; ++round) {
        const std::size_t n = 1 + rnd() % 400, span = 1 + rnd() % (round % 3 == 0 ? 100000 : 300);  // some sparse: ranked
        const std::vector<Buffer> buffers = random_records(rnd, n, span, round % 2 == 0, 40, false);
        orm::detail::Buffers b;
        REQUIRE(orm::detail::make_buffers(buffers, 16, b).has_value());
        const auto m = orm::detail::meetings(b);
        std::uint64_t pairs = 0;
        for (std::size_t x = 0; x < n; ++x) {
            std::size_t count = 0, bytes = 0;
            for (std::size_t y = 0; y < n; ++y)
                if (y != x && b.overlap(x, y)) {
                    ++count;
                    bytes += b.size[y];
                }
            INFO("round " << round << ", buffer " << x);
            CHECK(m.bytes[x] == bytes);
            pairs += count;
        }
        CHECK(orm::detail::meeting_pairs(b) == pairs / 2);
    }
}

TEST_CASE("the fast first fit places as place_in_order's first fit, and stops when out of steps or at its arena") {
    // Random problems, up to 3,000 buffers (the offset list splits its
    // chunks past 256), sizes from few values (many buffers at one offset),
    // dense and sparse in time, some with pins: every greedy order gives the
    // offsets of place_in_order with Fit::first.
    auto rnd = xorshift(0xF1257u);
    for (int round = 0; round < 40; ++round) {
        const std::size_t n = 1 + rnd() % (round % 5 == 0 ? 3000 : 300), span = 1 + rnd() % 400;
        const bool long_lived = round % 2 == 0;
        const std::size_t sizes = round % 3 == 0 ? 3 : 40;
        const std::vector<Buffer> buffers = random_records(rnd, n, span, long_lived, sizes, round % 4 == 1);
        orm::detail::Buffers b;
        REQUIRE(orm::detail::make_buffers(buffers, 16, b).has_value());
        const auto m = orm::detail::meetings(b);
        orm::detail::GreedySpace greedy;
        orm::detail::FirstFitSpace fast;
        for (const auto& order : orm::detail::greedy_orders(b, m)) {
            INFO("round " << round << ", " << n << " buffers");
            std::vector<std::size_t> want, got;
            const std::size_t arena = orm::detail::place_in_order(b, order, orm::detail::Fit::first, true, want, greedy);
            std::size_t budget = orm::detail::size_max;
            CHECK(orm::detail::place_first_fit(b, order, got, fast, budget) == arena);
            CHECK(got == want);
            // The steps it took, given as the budget, are enough; one fewer is not.
            const std::size_t took = orm::detail::size_max - budget;
            budget = took;
            CHECK(orm::detail::place_first_fit(b, order, got, fast, budget) == arena);
            CHECK(budget == 0);
            if (took > 0) {
                budget = took - 1;
                CHECK(orm::detail::place_first_fit(b, order, got, fast, budget) == orm::no_offset);
            }
            // Asked to give up at its arena, it does; one byte above, it finishes the same.
            budget = orm::detail::size_max;
            CHECK(orm::detail::place_first_fit(b, order, got, fast, budget, arena) == orm::no_offset);
            budget = orm::detail::size_max;
            CHECK(orm::detail::place_first_fit(b, order, got, fast, budget, arena + 1) == arena);
            CHECK(got == want);
        }
    }
}

TEST_CASE("the size order by peak load: equal sizes the most crowded first, as a plain count of every position says") {
    // Random problems, dense and sparse in time: the order is decreasing
    // size, then decreasing peak (the most bytes live at one position of
    // the buffer's lifetime, counted here position by position), then the
    // earlier buffer.
    auto rnd = xorshift(0x9EA4u);
    for (int round = 0; round < 20; ++round) {
        const std::size_t n = 1 + rnd() % 300, span = 1 + rnd() % 400;
        const std::vector<Buffer> buffers = random_records(rnd, n, span, round % 2 == 0, round % 3 == 0 ? 3 : 40, false);
        orm::detail::Buffers b;
        REQUIRE(orm::detail::make_buffers(buffers, 16, b).has_value());
        std::vector<std::size_t> live(b.positions(), 0), peak(n, 0);
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t t = b.def[i]; t <= b.end[i]; ++t) live[t] += b.size[i];
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t t = b.def[i]; t <= b.end[i]; ++t) peak[i] = std::max(peak[i], live[t]);
        std::vector<std::uint32_t> want(n);
        std::iota(want.begin(), want.end(), 0u);
        std::sort(want.begin(), want.end(), [&](std::uint32_t x, std::uint32_t y) {
            return std::tuple(b.size[y], peak[y], x) < std::tuple(b.size[x], peak[x], y);
        });
        INFO("round " << round);
        CHECK(orm::detail::size_peak_order(b) == want);
    }
    // Records {size, first, last}, alignment 1; the bound is 5 (at 3 and
    // 4). The three of 2 bytes in order of first use (TFLite's ties): r2 at
    // 0, r4 above it at 2, r3 at 0 (it meets neither); the three of 1 byte
    // then stack above r4 and r3 to 7. The most crowded first: r4 (peak 5)
    // at 0, r3 (5) at 0, r2 (4) above r4 at 2; the 1-byte ones fill 2 to 5
    // above r4 and r3 beside it: 5, the bound.
    const std::vector<Buffer> buffers = {{1, 3, 5}, {1, 3, 4}, {2, 0, 2}, {2, 4, 6}, {2, 0, 3}, {1, 3, 5}};
    orm::detail::Buffers b;
    REQUIRE(orm::detail::make_buffers(buffers, 1, b).has_value());
    orm::detail::FirstFitSpace space;
    std::vector<std::size_t> offset;
    std::size_t budget = orm::detail::size_max;
    CHECK(orm::detail::place_first_fit(b, orm::detail::size_order(b), offset, space, budget) == 7);
    CHECK(orm::detail::place_first_fit(b, orm::detail::size_peak_order(b), offset, space, budget) == 5);
    std::vector<std::size_t> by_record(buffers.size());
    for (std::size_t i = 0; i < b.count(); ++i) by_record[b.value[i]] = offset[i];
    CHECK(by_record == std::vector<std::size_t>{2, 3, 2, 0, 0, 4});
}

TEST_CASE("the max tree matches a plain array: assigns all, sets one and many, the largest of a range, the places at least a value") {
    auto rnd = xorshift(0x3A77EEu);
    orm::detail::MaxTree tree;  // one for every round: what a larger one held before must not show
    for (int round = 0; round < 20; ++round) {
        const std::size_t n = 1 + rnd() % 300;
        std::vector<std::uint64_t> plain(n, 0);
        if (round % 2 == 0) {
            for (auto& v : plain) v = rnd() % 1000;
            tree.assign(plain);
        } else {
            tree.reset(n);
        }
        for (int op = 0; op < 200; ++op) {
            const std::size_t a = rnd() % n, b = a + rnd() % (n - a);
            const std::uint64_t v = rnd() % 1000;
            if (op % 3 == 0) {
                tree.set(a, v);
                plain[a] = v;
            } else if (op % 3 == 1) {  // every third place of [a, b] at once
                std::vector<std::uint32_t> at;
                std::vector<std::uint64_t> values;
                for (std::size_t i = a; i <= b; i += 3) {
                    at.push_back(static_cast<std::uint32_t>(i));
                    values.push_back(v + i);
                    plain[i] = v + i;
                }
                tree.set(at, values);
            }
            CHECK(tree.highest(a, b) == *std::max_element(plain.begin() + static_cast<std::ptrdiff_t>(a),
                                                          plain.begin() + static_cast<std::ptrdiff_t>(b) + 1));
            std::vector<std::size_t> got, want;
            tree.each_at_least(a, b, v, [&](std::size_t i) { got.push_back(i); });
            for (std::size_t i = a; i <= b; ++i)
                if (plain[i] >= v) want.push_back(i);
            CHECK(got == want);
        }
    }
}

TEST_CASE("the top repacked: the range maximum matches a plain array, and the repacked plans are valid") {
    auto rnd = xorshift(0x7E9ACCu);
    for (int round = 0; round < 20; ++round) {
        const std::size_t positions = 1 + rnd() % 300;
        orm::detail::RangeMax tree;
        tree.reset(positions);
        std::vector<std::size_t> plain(positions, 0);
        for (int op = 0; op < 200; ++op) {
            std::size_t first = rnd() % positions, last = rnd() % positions;
            if (first > last) std::swap(first, last);
            if (op % 2 == 0) {
                const std::size_t v = rnd() % 1000;
                tree.raise(first, last, v);
                for (std::size_t t = first; t <= last; ++t) plain[t] = std::max(plain[t], v);
            } else {
                INFO("round " << round << ", op " << op);
                CHECK(tree.largest(first, last) == *std::max_element(plain.begin() + first, plain.begin() + last + 1));
            }
        }
    }
    // Repacking the sweep's top, any share of it: still a valid plan.
    for (int round = 0; round < 20; ++round) {
        const std::size_t n = 1 + rnd() % 300, span = 1 + rnd() % 200;
        std::vector<Buffer> buffers;
        for (std::size_t k = 0; k < n; ++k) {
            Buffer buf;
            buf.first = static_cast<orm::NodeIndex>(rnd() % span);
            buf.last = buf.first + static_cast<orm::NodeIndex>(round % 2 == 0 ? rnd() % span : rnd() % 4);
            buf.size = rnd() % 10 == 0 ? 0 : (1 + rnd() % 40) * 16;
            buffers.push_back(buf);
        }
        orm::detail::Buffers b;
        REQUIRE(orm::detail::make_buffers(buffers, 16, b).has_value());
        std::vector<std::size_t> offset;
        (void)orm::detail::sweep(b, offset);
        orm::detail::RepackSpace space;
        for (const std::size_t r : {std::size_t{0}, std::size_t{1}, n / 3, n}) {
            INFO("round " << round << ", " << r << " moved");
            std::vector<std::size_t> repacked = offset;
            const auto fit = r % 2 == 0 ? orm::detail::Fit::first : orm::detail::Fit::best;
            const std::size_t arena = orm::detail::repack_top(b, r, fit, repacked, space);
            CHECK(valid_plan(buffers, b, repacked, arena));

            // The moved ones and their floors against a plain reference: the
            // r highest buffers with bytes (ties: the lower index), each no
            // lower than the lowest of them nor than the top of any buffer
            // that stays and meets it in time (by positions, not slots).
            std::vector<std::uint32_t> by_height;
            for (std::uint32_t i = 0; i < b.count(); ++i)
                if (b.size[i] > 0) by_height.push_back(i);
            std::sort(by_height.begin(), by_height.end(), [&](std::uint32_t x, std::uint32_t y) {
                return offset[x] != offset[y] ? offset[x] > offset[y] : x < y;
            });
            const std::size_t moved = std::min(r, by_height.size());
            std::vector<std::uint32_t> want(by_height.begin(), by_height.begin() + static_cast<std::ptrdiff_t>(moved));
            std::sort(want.begin(), want.end());
            REQUIRE(space.top.count() == moved);
            CHECK(space.top.value == std::vector<orm::ValueId>(want.begin(), want.end()));
            std::size_t base = 0;
            if (moved > 0) base = offset[want.front()];
            for (const std::uint32_t x : want) base = std::min(base, offset[x]);
            for (std::size_t k = 0; k < moved; ++k) {
                const std::uint32_t x = want[k];
                std::size_t floor = base;
                for (std::size_t j = moved; j < by_height.size(); ++j) {
                    const std::uint32_t y = by_height[j];
                    if (b.overlap(x, y)) floor = std::max(floor, offset[y] + b.size[y]);
                }
                INFO("moved buffer " << x);
                CHECK(space.floor[k] == floor);
            }
            // Asked to give up at its arena, it does and leaves the offsets
            // as they were; one byte above, it repacks the same.
            std::vector<std::size_t> again = offset;
            CHECK(orm::detail::repack_top(b, r, fit, again, space, arena) == orm::no_offset);
            CHECK(again == offset);
            CHECK(orm::detail::repack_top(b, r, fit, again, space, arena + 1) == arena);
            CHECK(again == repacked);
        }
    }
}

TEST_CASE("the buffer with the most slack ends on top where the bound in bytes says so (TFLite's TestResetAllocs)") {
    // 2047, 2047, 2047 and 13 bytes over [0,3], [1,3], [2,4], [0,4] at
    // alignment 32: TFLite's SimpleMemoryArena ends at 6,157, the 13-byte
    // buffer on top. Before: 6,175, the sweep at the rounded bound with the
    // 13-byte buffer under a 2047-byte one.
    const std::vector<Buffer> b = {{2047, 0, 3}, {2047, 1, 3}, {2047, 2, 4}, {13, 0, 4}};
    orm::ArenaOptions o;
    o.alignment = 32;
    auto p = orm::plan_offsets(b, o);
    REQUIRE(p.has_value());
    CHECK(p->lower_bound_bytes == 6157);
    CHECK(p->arena_bytes == 6157);
    CHECK(p->offsets[3] == 6144);
    CHECK(orm::validate_offsets(b, *p, 32).has_value());
    o.work_per_owner = 0;  // the sweep alone keeps its plan
    CHECK(orm::plan_offsets(b, o)->arena_bytes == 6175);
}

TEST_CASE("time limits: no limit never passes, on either clock, and the thread's CPU clock does not count sleep") {
    using namespace std::chrono_literals;
    using orm::detail::Deadline;
    for (const auto clock : {orm::TimeLimitClock::wall, orm::TimeLimitClock::thread_cpu}) {
        CHECK_FALSE(Deadline::after(0us, clock).passed());
        CHECK_FALSE(Deadline::after(std::chrono::microseconds::min(), clock).passed());
        CHECK_FALSE(Deadline::after(std::chrono::microseconds::max(), clock).passed());  // saturates, no overflow
    }
    CHECK_FALSE(Deadline{}.passed());
    const Deadline wall = Deadline::after(2ms, orm::TimeLimitClock::wall);
    // 20 ms of CPU: under a sanitizer on a loaded machine, 2 ms were once spent around the sleep.
    const Deadline cpu = Deadline::after(20ms, orm::TimeLimitClock::thread_cpu);
    std::this_thread::sleep_for(30ms);
    CHECK(wall.passed());
    std::chrono::nanoseconds now{};
    if (!orm::detail::thread_cpu_now(now)) {
        CHECK(cpu.passed());  // no CPU clock here: wall time
        return;
    }
    CHECK_FALSE(cpu.passed());  // asleep, the thread spent well under 20 ms of CPU
    // Busy, it passes: within 10 s of wall time whatever the machine's load.
    const auto started = std::chrono::steady_clock::now();
    volatile std::uint64_t spin = 0;
    while (!cpu.passed() && std::chrono::steady_clock::now() - started < 10s) spin = spin + 1;
    CHECK(cpu.passed());
}

TEST_CASE("plan_offsets: a search cut by CPU time returns a valid plan, no worse than without the search") {
    // 400 buffers cut from a perfect packing: the exact search does not
    // finish here in 20 ms (bench_arena: above the capacity at 100 ms).
    const auto buffers = synthetic::perfect_packing(400, 1 << 20, 2000, 1);
    orm::ArenaOptions o;
    o.alignment = 1;
    const auto plain = orm::plan_offsets(buffers, o);
    REQUIRE(plain.has_value());
    o.exact_nodes = std::uint64_t{1} << 40;
    o.time_limit = std::chrono::milliseconds(20);
    o.time_limit_clock = orm::TimeLimitClock::thread_cpu;
    const auto cut = orm::plan_offsets(buffers, o);
    REQUIRE(cut.has_value());
    CHECK(cut->arena_bytes <= plain->arena_bytes);
    CHECK(cut->proven_bound_bytes <= cut->arena_bytes);
    CHECK(orm::validate_offsets(buffers, *cut, 1).has_value());
}
