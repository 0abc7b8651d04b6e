// Spilling (spill.hpp): buffers wait in a slow space while unused so that a
// fast space below the peak suffices; validate_spill checks a plan on its own.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "ir/graph_text.hpp"
#include "ir/views.hpp"
#include "support.hpp"

using orm::Buffer;
using orm::BufferUses;
using orm::Segment;
using orm::SpillOptions;
using orm::SpillStrategy;
using orm::Transfer;
using Kind = orm::ValidateError::Kind;

namespace {

SpillOptions device(std::size_t capacity, std::size_t alignment = 64) {
    SpillOptions o;
    o.fast = {"device", capacity, alignment};
    o.slow = {"host", orm::unbounded, alignment};
    return o;
}

// a [0,4] used at 0 and 4; b [1,2] and c [2,3] used throughout; 64 bytes each.
const std::vector<Buffer> three{{64, 0, 4}, {64, 1, 2}, {64, 2, 3}};
const BufferUses three_uses{{0, 2, 4, 6}, {0, 4, 1, 2, 2, 3}};

orm::SpillPlan spill_ok(const std::vector<Buffer>& b, const BufferUses& u, const SpillOptions& o) {
    auto plan = orm::plan_spill(b, u, o);
    INFO((plan ? std::string("planned") : plan.error().message()));
    REQUIRE(plan.has_value());
    auto ok = orm::validate_spill(b, u, o, *plan);
    INFO((ok ? std::string("valid") : ok.error().message()));
    REQUIRE(ok.has_value());
    return *plan;
}

struct Instance {
    std::vector<Buffer> buffers;
    BufferUses uses;
};

Instance random_instance(std::mt19937_64& rng, std::size_t n, std::uint32_t times) {
    Instance x;
    x.uses.begin.push_back(0);
    for (std::size_t i = 0; i < n; ++i) {
        const auto f = static_cast<std::uint32_t>(rng() % times);
        const auto l = f + static_cast<std::uint32_t>(rng() % (times - f));
        x.buffers.push_back({(rng() % 10 + 1) * 64 - (rng() % 3 == 0 ? 5 : 0), f, l});
        if (rng() % 4 != 0) x.uses.at.push_back(f);  // else it arrives before its first use
        for (auto t = f + 1; t <= l; ++t)
            if (rng() % 4 == 0) x.uses.at.push_back(t);
        if (x.uses.at.size() == x.uses.begin.back()) x.uses.at.push_back(l);
        x.uses.begin.push_back(x.uses.at.size());
    }
    return x;
}

std::size_t floor_of(const Instance& x, std::size_t alignment = 64) {
    auto below = orm::plan_spill(x.buffers, x.uses, device(0, alignment));
    if (below) return 0;
    std::size_t most = 0;
    for (const auto& o : below.error().over) most = std::max(most, o.bytes);
    return most;
}

}  // namespace

TEST_CASE("spill: one buffer waits in the host while two others use the device, at the lower bound") {
    const auto plan = spill_ok(three, three_uses, device(128));
    const std::vector<Segment> a{{0, 0, 0, plan.segments[0].offset}, {1, 1, 3, 0}, {0, 4, 4, plan.segments[2].offset}};
    CHECK(std::vector<Segment>(plan.segments.begin(), plan.segments.begin() + 3) == a);
    CHECK(plan.segment_begin == std::vector<std::size_t>{0, 3, 4, 5});
    REQUIRE(plan.transfers.size() == 2);
    CHECK(plan.transfers[0] == Transfer{0, Transfer::Direction::out, 0, 64, plan.segments[0].offset, 0});
    CHECK(plan.transfers[1] == Transfer{0, Transfer::Direction::in, 4, 64, 0, plan.segments[2].offset});
    CHECK(plan.transfer_bytes == 128);
    CHECK(plan.transfer_lower_bound_bytes == 128);
    CHECK(plan.fast_bytes == 128);
    CHECK(plan.slow_bytes == 64);
    CHECK(plan.spilled_buffers == 1);
    CHECK(plan.strategy == SpillStrategy::planned);
}

TEST_CASE("spill: an input may arrive in the host and an output leave from it, one copy each") {
    // x arrives at 0 and is first used at 3; y is made at 1 and only kept to the end (4); z fills the device at 2.
    const std::vector<Buffer> b{{64, 0, 3}, {64, 1, 4}, {128, 2, 2}};
    const BufferUses u{{0, 1, 2, 3}, {3, 1, 2}};
    const auto plan = spill_ok(b, u, device(128));
    CHECK(plan.transfer_bytes == 128);  // x in before 3, y out after 1
    CHECK(plan.transfer_lower_bound_bytes == 128);
    REQUIRE(plan.transfers.size() == 2);
    CHECK(plan.transfers[0].buffer == 1);
    CHECK(plan.transfers[0].direction == Transfer::Direction::out);
    CHECK(plan.transfers[0].position == 1);
    CHECK(plan.transfers[1].buffer == 0);
    CHECK(plan.transfers[1].direction == Transfer::Direction::in);
    CHECK(plan.transfers[1].position == 3);
    CHECK(plan.segments[0] == Segment{1, 0, 2, plan.segments[0].offset});
}

TEST_CASE("spill: below the floor, the error lists every position that needs more, with its bytes") {
    const auto plan = orm::plan_spill(three, three_uses, device(100));
    REQUIRE_FALSE(plan.has_value());
    CHECK(plan.error().kind == orm::SpillError::Kind::below_floor);
    CHECK(plan.error().over == std::vector<orm::OverCapacity>{{2, 128}});
    CHECK(plan.error().message() == "1 position(s) use more than the fast capacity of 100 bytes: 2 (128, 28 over)");
}

TEST_CASE("spill: bad records and uses are named") {
    using SK = orm::SpillError::Kind;
    auto bad = orm::plan_spill(three, BufferUses{{0, 2, 4, 6}, {0, 4, 2, 1, 2, 3}}, device(128));
    REQUIRE_FALSE(bad.has_value());
    CHECK(bad.error().kind == SK::bad_uses);
    CHECK(bad.error().buffer == 1);
    CHECK(bad.error().position == 1);
    bad = orm::plan_spill(three, BufferUses{{0, 2, 4, 6}, {0, 5, 1, 2, 2, 3}}, device(128));  // 5 past a's life
    REQUIRE_FALSE(bad.has_value());
    CHECK(bad.error().buffer == 0);
    bad = orm::plan_spill(three, BufferUses{{0, 2}, {0, 4}}, device(128));
    REQUIRE_FALSE(bad.has_value());
    CHECK(bad.error().kind == SK::bad_uses);
    auto pinned = three;
    pinned[2].pinned = 0;
    bad = orm::plan_spill(pinned, three_uses, device(128));
    REQUIRE_FALSE(bad.has_value());
    CHECK(bad.error().kind == SK::pinned);
    CHECK(bad.error().buffer == 2);
    const std::vector<Buffer> huge{{orm::unbounded / 2, 0, 1}, {orm::unbounded / 2, 0, 1}};
    bad = orm::plan_spill(huge, {}, device(orm::unbounded));
    REQUIRE_FALSE(bad.has_value());
    CHECK(bad.error().kind == SK::bad_records);
    CHECK(bad.error().plan.kind == orm::PlanError::Kind::size_overflow);
}

TEST_CASE("spill: an unbounded device moves nothing and is plan_offsets' plan") {
    std::mt19937_64 rng(5);
    for (int round = 0; round < 30; ++round) {
        const auto x = random_instance(rng, 1 + rng() % 60, 2 + static_cast<std::uint32_t>(rng() % 50));
        const auto plan = spill_ok(x.buffers, x.uses, device(orm::unbounded));
        CHECK(plan.transfers.empty());
        CHECK(plan.transfer_lower_bound_bytes == 0);
        orm::ArenaOptions o;
        o.alignment = 64;
        const auto alone = orm::plan_offsets(x.buffers, o);
        REQUIRE(alone.has_value());
        std::vector<std::size_t> offsets;
        for (const auto& s : plan.segments) offsets.push_back(s.offset);
        CHECK(offsets == alone->offsets);
        CHECK(plan.fast_bytes == alone->arena_bytes);
    }
}

TEST_CASE("spill: random instances from the floor up validate, and best never moves more than the caching allocator") {
    std::mt19937_64 rng(2026);
    std::size_t planned_total = 0, caching_total = 0;
    for (int round = 0; round < 300; ++round) {
        const auto x = random_instance(rng, 2 + rng() % 40, 2 + static_cast<std::uint32_t>(rng() % 60));
        const std::size_t floor = floor_of(x), top = spill_ok(x.buffers, x.uses, device(orm::unbounded)).fast_bytes;
        const std::size_t capacity = floor + (std::max(top, floor) - floor) * (rng() % 5) / 4;
        INFO("round " << round << " capacity " << capacity);
        auto o = device(capacity);
        const auto best = spill_ok(x.buffers, x.uses, o);
        o.strategy = SpillStrategy::caching;
        const auto caching = spill_ok(x.buffers, x.uses, o);
        o.strategy = SpillStrategy::planned;
        const auto planned = spill_ok(x.buffers, x.uses, o);
        CHECK(best.transfer_bytes <= caching.transfer_bytes);
        CHECK(best.transfer_bytes == std::min(planned.transfer_bytes, caching.transfer_bytes));
        CHECK(best.transfer_bytes >= best.transfer_lower_bound_bytes);
        planned_total += planned.transfer_bytes;
        caching_total += caching.transfer_bytes;
        o.strategy = SpillStrategy::best;
        const auto again = orm::plan_spill(x.buffers, x.uses, o);
        CHECK(again->segments == best.segments);
        CHECK(again->transfers == best.transfers);
    }
    CHECK(planned_total < caching_total);
}

TEST_CASE("spill: validate_spill rejects a use while out, an overlap, a copy in before its copy out") {
    const auto o = device(128);
    const auto plan = spill_ok(three, three_uses, o);
    {
        auto bad = plan;  // a stays out through its use at 4
        bad.segments[1].last = 4;
        bad.segments.erase(bad.segments.begin() + 2);
        for (auto& s : bad.segment_begin) s -= s >= 3 ? 1 : 0;
        const auto r = orm::validate_spill(three, three_uses, o, bad);
        REQUIRE_FALSE(r.has_value());
        CHECK(r.error().kind == Kind::used_while_out);
        CHECK(r.error().value == 0);
        CHECK(r.error().node == 4);
    }
    {
        auto bad = plan;  // b and c share a position and now their bytes
        bad.segments[3].offset = bad.segments[4].offset;
        const auto r = orm::validate_spill(three, three_uses, o, bad);
        REQUIRE_FALSE(r.has_value());
        CHECK(r.error().kind == Kind::offset_overlap);
    }
    {
        auto bad = plan;  // the copy in listed before its copy out
        std::swap(bad.transfers[0], bad.transfers[1]);
        const auto r = orm::validate_spill(three, three_uses, o, bad);
        REQUIRE_FALSE(r.has_value());
        CHECK(r.error().kind == Kind::wrong_transfers);
        CHECK(r.error().size == 0);
    }
    {
        auto bad = plan;  // a copy in moved before the node that copies out
        bad.transfers[1].position = 0;
        CHECK(orm::validate_spill(three, three_uses, o, bad).error().kind == Kind::wrong_transfers);
    }
    {
        auto bad = plan;  // a gap in a's residency
        bad.segments[1].first = 2;
        CHECK(orm::validate_spill(three, three_uses, o, bad).error().kind == Kind::bad_residency);
    }
    {
        auto bad = plan;  // claims fewer bytes moved
        bad.transfer_bytes = 64;
        CHECK(orm::validate_spill(three, three_uses, o, bad).error().kind == Kind::wrong_spill_totals);
    }
    {
        auto bad = plan;  // a smaller device than the plan needs
        CHECK(orm::validate_spill(three, three_uses, device(120), bad).error().kind == Kind::over_capacity);
    }
}

TEST_CASE("spill on a graph: d waits in the host while C runs, its view and scratch with it") {
    const auto g = test::chain_with_long_lived();
    const auto views = ir::views_from_ops(g);
    const auto oracle = orm::static_size_oracle(g);
    const auto id = [&](const char* n) { return test::id(g, n); };
    orm::PlanOptions options;
    options.scratch_bytes = {0, 0, 0, 96, 0};  // C's workspace (128 aligned)
    // Floors: 320, 256, 256, 640 (a, c, scratch), 704 (d, c, y); 960 bytes live at C.
    const auto floors = orm::node_floors(g, views, oracle, options);
    REQUIRE(floors.has_value());
    CHECK(*floors == std::vector<std::size_t>{320, 256, 256, 640, 704});

    const auto spilled = orm::plan_arena_spill(g, views, oracle, options, device(704));
    REQUIRE(spilled.has_value());
    const auto& p = spilled->plan();
    CHECK(orm::validate_arena_spill(g, views, p, oracle, options, device(704)).has_value());
    const std::uint32_t d = p.record[id("d")];
    CHECK(p.record[id("b")] == p.record[id("a")]);
    CHECK(p.record[id("x")] == orm::no_record);
    CHECK(p.scratch_record == std::vector<std::uint32_t>{orm::no_record, orm::no_record, orm::no_record, 4,
                                                         orm::no_record});
    REQUIRE(p.spill.segment_begin[d + 1] - p.spill.segment_begin[d] == 3);
    const auto* s = &p.spill.segments[p.spill.segment_begin[d]];
    CHECK((s[0].space == 0 && s[0].first == 0 && s[0].last == 0));
    CHECK((s[1].space == 1 && s[1].first == 1 && s[1].last == 3));
    CHECK((s[2].space == 0 && s[2].first == 4 && s[2].last == 4));
    CHECK(p.spill.transfer_bytes == 600);
    CHECK(p.spill.transfer_lower_bound_bytes == 600);  // at C, only d can go out: its copy out and in
    CHECK(p.spill.spilled_buffers == 1);
    CHECK(p.spill.fast_bytes <= 704);

    auto wrong = p;  // the view's record moved off its root's
    wrong.record[id("b")] = p.record[id("c")];
    const auto r = orm::validate_arena_spill(g, views, wrong, oracle, options, device(704));
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().kind == Kind::missing_offset);
    CHECK(r.error().value == id("b"));

    // Below Y's floor: the fit report names node 4 and its bytes.
    const auto below = orm::plan_arena_spill(g, views, oracle, options, device(640));
    REQUIRE_FALSE(below.has_value());
    CHECK(below.error().over == std::vector<orm::OverCapacity>{{4, 704}});
}

#if ORM_HAVE_DATA
TEST_CASE("spill on the corpus: from the bound down to the floor every plan validates, never above the caching allocator") {
    for (const char* name : {"resnet50", "unet_diffusion_like", "gpt2_xl_decoder", "densenet121"}) {
        INFO(name);
        auto g = ir::read_graph_file(std::string(ORM_DATA_DIR) + "/corpus/" + name + ".graph");
        REQUIRE(g.has_value());
        const auto views = ir::views_from_ops(*g);
        const auto oracle = orm::static_size_oracle(*g);
        const auto floors = orm::node_floors(*g, views, oracle);
        REQUIRE(floors.has_value());
        const std::size_t floor = *std::max_element(floors->begin(), floors->end());
        const auto today = orm::plan_arena(*g, views, oracle);
        REQUIRE(today.has_value());
        const std::size_t bound = today->plan().proven_bound_bytes;
        for (int quarter = 0; quarter <= 4; ++quarter) {
            const std::size_t capacity = floor + (bound - std::min(bound, floor)) * static_cast<std::size_t>(quarter) / 4;
            INFO("capacity " << capacity);
            auto o = device(capacity);
            const auto best = orm::plan_arena_spill(*g, views, oracle, {}, o);
            REQUIRE(best.has_value());
            CHECK(orm::validate_arena_spill(*g, views, best->plan(), oracle, {}, o).has_value());
            o.strategy = SpillStrategy::caching;
            const auto caching = orm::plan_arena_spill(*g, views, oracle, {}, o);
            REQUIRE(caching.has_value());
            CHECK(orm::validate_arena_spill(*g, views, caching->plan(), oracle, {}, o).has_value());
            CHECK(best->plan().spill.transfer_bytes <= caching->plan().spill.transfer_bytes);
            if (quarter == 4) CHECK(best->plan().spill.transfer_bytes == 0);
        }
    }
}
#endif

TEST_CASE("spill: on up to 8 buffers, best moves exactly what the cheapest set of whole gaps that packs moves") {
    // The brute force here: every set of gaps (where a buffer may be out: between two uses, before its first,
    // after its last), its load checked at every position, its runs packed by plan_offsets' exact search.
    std::mt19937_64 rng(88);
    int equal = 0, rounds = 0, moving = 0;
    for (int round = 0; round < 150; ++round) {
        const auto x = random_instance(rng, 2 + rng() % 7, 3 + static_cast<std::uint32_t>(rng() % 9));
        struct Gap {
            std::size_t buffer;
            std::uint32_t first, last;
            std::size_t cost;
        };
        std::vector<Gap> gaps;
        for (std::size_t b = 0; b < x.buffers.size(); ++b) {
            const auto* u = &x.uses.at[x.uses.begin[b]];
            const std::size_t k = x.uses.begin[b + 1] - x.uses.begin[b], size = x.buffers[b].size;
            if (x.buffers[b].first < u[0]) gaps.push_back({b, x.buffers[b].first, u[0] - 1, size});
            for (std::size_t i = 0; i + 1 < k; ++i)
                if (u[i + 1] > u[i] + 1) gaps.push_back({b, u[i] + 1, u[i + 1] - 1, 2 * size});
            if (u[k - 1] < x.buffers[b].last) gaps.push_back({b, u[k - 1] + 1, x.buffers[b].last, size});
        }
        if (gaps.size() > 12) continue;
        const std::size_t floor = floor_of(x), top = spill_ok(x.buffers, x.uses, device(orm::unbounded)).fast_bytes;
        const std::size_t capacity = floor + (std::max(top, floor) - floor) * (rng() % 4) / 4;
        std::size_t brute = orm::unbounded;
        for (std::uint32_t m = 0; m < (1u << gaps.size()); ++m) {
            std::size_t cost = 0;
            std::vector<Buffer> runs;
            bool fits = true;
            for (std::size_t b = 0; b < x.buffers.size(); ++b) {  // the positions b is in the device
                std::vector<bool> in(64, false);
                for (auto t = x.buffers[b].first; t <= x.buffers[b].last; ++t) in[t] = true;
                for (std::size_t g = 0; g < gaps.size(); ++g)
                    if (m >> g & 1u && gaps[g].buffer == b) {
                        cost += gaps[g].cost;
                        for (auto t = gaps[g].first; t <= gaps[g].last; ++t) in[t] = false;
                    }
                for (std::uint32_t t = 0; t < 64; ++t)
                    if (in[t] && (t == 0 || !in[t - 1])) {
                        std::uint32_t e = t;
                        while (e + 1 < 64 && in[e + 1]) ++e;
                        runs.push_back({x.buffers[b].size, t, e, orm::no_offset});
                    }
            }
            for (std::uint32_t t = 0; t < 64 && fits; ++t) {
                std::size_t load = 0;
                for (const auto& r : runs)
                    if (r.first <= t && t <= r.last) load += (r.size + 63) / 64 * 64;
                fits = load <= capacity;
            }
            if (!fits || cost >= brute) continue;
            orm::ArenaOptions o;
            o.alignment = 64;
            o.exact_nodes = 100000;
            const auto packed = orm::plan_offsets(runs, o);
            if (packed && packed->arena_bytes <= capacity) brute = cost;
        }
        INFO("round " << round << " capacity " << capacity << " gaps " << gaps.size());
        const auto best = spill_ok(x.buffers, x.uses, device(capacity));
        CHECK(best.transfer_bytes <= brute);
        CHECK(best.transfer_bytes >= best.transfer_lower_bound_bytes);
        equal += best.transfer_bytes == brute;
        moving += brute > 0;
        ++rounds;
    }
    INFO(equal << " of " << rounds << " equal");
    CHECK(equal == rounds);
    CHECK(rounds > 100);
    INFO(moving << " of " << rounds << " move");
    CHECK(moving > rounds / 3);  // most rounds must move something, or the comparison says little
}

TEST_CASE("spill in a PlannedModel: each request equals plan_arena_spill's plan and validates") {
    const auto g = test::chain_with_long_lived();
    const auto views = ir::views_from_ops(g);
    const auto base = orm::static_size_oracle(g);
    orm::PlanOptions options;
    options.scratch_bytes = {0, 0, 0, 96, 0};
    auto model = orm::PlannedModel::create(g, views, options);
    REQUIRE(model.has_value());
    for (const std::size_t batch : {1, 3, 2}) {
        INFO("batch " << batch);
        const auto oracle = [&](orm::ValueId v) { return std::optional<std::size_t>(*base(v) * batch); };
        const auto spill = device(704 * batch);
        const std::vector<std::size_t> scratch{0, 0, 0, 96 * batch, 0};
        auto outcome = model->plan_spilled(oracle, spill, scratch);
        REQUIRE(outcome.has_value());
        CHECK(*outcome == orm::PlannedModel::Outcome::complete);
        CHECK(model->validate_spilled(g, oracle, spill).has_value());
        auto with = options;
        with.scratch_bytes = scratch;
        const auto alone = orm::plan_arena_spill(g, views, oracle, with, spill);
        REQUIRE(alone.has_value());
        CHECK(model->spilled().spill.segments == alone->plan().spill.segments);
        CHECK(model->spilled().spill.transfers == alone->plan().spill.transfers);
        CHECK(model->spilled().record == alone->plan().record);
        CHECK(model->spilled().spill.transfer_bytes == 600 * batch);
    }
    // Below the floor: the error, and the last plan kept.
    const auto kept = model->spilled().spill.transfers;
    const auto below = model->plan_spilled(base, device(640));
    REQUIRE_FALSE(below.has_value());
    CHECK(below.error().over == std::vector<orm::OverCapacity>{{4, 704}});
    CHECK(model->spilled().spill.transfers == kept);
}

TEST_CASE("spill with compute costs: copies in move earlier where their bytes are free, the bytes moved stay") {
    std::mt19937_64 rng(404);
    int earlier = 0;
    for (int round = 0; round < 200; ++round) {
        const auto x = random_instance(rng, 2 + rng() % 30, 4 + static_cast<std::uint32_t>(rng() % 40));
        const std::size_t floor = floor_of(x), top = spill_ok(x.buffers, x.uses, device(orm::unbounded)).fast_bytes;
        auto o = device(floor + (std::max(top, floor) - floor) * (rng() % 4) / 4);
        const auto plain = spill_ok(x.buffers, x.uses, o);
        o.node_seconds.assign(64, 1.0);
        o.bytes_per_second = 64.0 * static_cast<double>(1 + rng() % 4);  // a 640-byte copy takes 2.5 to 10 nodes
        const auto overlapped = spill_ok(x.buffers, x.uses, o);
        INFO("round " << round);
        CHECK(overlapped.transfer_bytes == plain.transfer_bytes);
        CHECK(overlapped.fast_bytes == plain.fast_bytes);
        REQUIRE(overlapped.transfers.size() == plain.transfers.size());
        double waited = 0;  // without moving: each copy in overlaps nothing
        for (std::size_t k = 0; k < plain.transfers.size(); ++k)
            if (plain.transfers[k].direction == Transfer::Direction::in)
                waited += static_cast<double>(plain.transfers[k].bytes) / o.bytes_per_second;
        CHECK(overlapped.copy_in_wait_seconds <= waited);
        earlier += overlapped.copy_in_wait_seconds < waited;
        CHECK(plain.copy_in_wait_seconds == 0);
    }
    CHECK(earlier > 50);
    // Costs that are no costs (NaN, negative, infinite) count 0: nothing moves, nothing is NaN.
    const auto x = random_instance(rng, 20, 30);
    auto o = device(floor_of(x));
    o.node_seconds = {std::numeric_limits<double>::quiet_NaN(), -1.0, std::numeric_limits<double>::infinity()};
    o.bytes_per_second = 1.0;
    const auto odd = spill_ok(x.buffers, x.uses, o);
    CHECK(odd.copy_in_wait_seconds == odd.copy_in_wait_seconds);  // not NaN
    o.bytes_per_second = std::numeric_limits<double>::quiet_NaN();
    CHECK(spill_ok(x.buffers, x.uses, o).copy_in_wait_seconds == 0);
}
