// Arena planning, lower bounds, and re-planning with new sizes.
#include <string>
#include <tuple>

#include "ir/graph_text.hpp"
#include "ir/minimalloc.hpp"
#include "ir/views.hpp"
#include "support.hpp"
#include "synthetic.hpp"

using test::f32;
using Kind = orm::ValidateError::Kind;

namespace {

// x -> A -> a -> B -> b -> C -> c (output), 64 bytes each
ir::Graph chain(std::int64_t floats = 16) {
    ir::Builder b("chain");
    b.tensor("a", f32, {floats}).tensor("b", f32, {floats}).tensor("c", f32, {floats});
    b.input("x").node("A", {"x"}, {"a"}).node("B", {"a"}, {"b"}).node("C", {"b"}, {"c"}).output("c");
    return b.build();
}

orm::ArenaPlan arena_ok(const ir::Graph& g, const orm::ViewMap& views, const orm::ArenaOptions& options) {
    auto status = orm::plan_arena(g, views, orm::static_size_oracle(g), {}, options);
    REQUIRE(status.has_value());
    REQUIRE(status->is_complete());
    auto ok = orm::validate_arena(g, views, status->plan(), orm::static_size_oracle(g), options.alignment);
    INFO((ok ? std::string() : ok.error().message()));
    REQUIRE(ok.has_value());
    return status->plan();
}

// A MiniMalloc challenging instance, by letter, as a graph.

}  // namespace

TEST_CASE("arena: a chain packs into two buffers' worth, a view at its root's offset") {
    auto g = chain();
    const auto p = arena_ok(g, {}, orm::ArenaOptions{});
    CHECK(p.arena_bytes == 128);
    CHECK(p.offset_of(test::id(g, "a")) == 0u);
    CHECK(p.offset_of(test::id(g, "b")) == 64u);
    CHECK(p.offset_of(test::id(g, "c")) == 0u);
    CHECK_FALSE(p.offset_of(test::id(g, "x")).has_value());

    ir::Builder b("view");
    b.tensor("a", f32, {16}).tensor("b", f32, {16}).input("x").node("A", {"x"}, {"a"});
    b.node("Reshape", {"a"}, {"v"}).node("B", {"v"}, {"b"}).output("b");
    const auto h = b.build();
    orm::ViewMap views;
    views.insert(test::id(h, "v"), test::id(h, "a"));
    const auto q = arena_ok(h, views, orm::ArenaOptions{});
    CHECK(q.offset_of(test::id(h, "v")) == q.offset_of(test::id(h, "a")));
    CHECK(q.arena_bytes == 128);  // a is pinned by v until B writes b
}

TEST_CASE("arena: offsets are aligned, sizes round up to the alignment but the top one's") {
    const auto g = chain(3);  // 12-byte values
    orm::ArenaOptions o;
    o.alignment = 64;
    const auto p = arena_ok(g, {}, o);
    CHECK(p.arena_bytes == 64 + 12);  // two live at once: the lower at 0, rounded up; the top one's 12 bytes
    CHECK(p.alignment == 64);
    o.alignment = 1;
    CHECK(arena_ok(g, {}, o).arena_bytes == 24);
    o.alignment = 0;  // counts as 1
    CHECK(arena_ok(g, {}, o).arena_bytes == 24);
}

TEST_CASE("arena: a size that overflows when rounded up is an error naming the owner") {
    const auto g = chain();
    const auto huge = [](ValueId) { return std::optional<std::size_t>(std::numeric_limits<std::size_t>::max() - 3); };
    auto r = orm::plan_arena(g, {}, huge);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().kind == orm::PlanError::Kind::size_overflow);
    auto deferred = orm::plan_arena(g, {}, [](ValueId) { return std::optional<std::size_t>(); });
    REQUIRE(deferred.has_value());
    CHECK(deferred->unknown_sizes().size() == 3);
}

TEST_CASE("arena: a slot plan laid out in one arena validates") {
    const auto g = chain(3);
    auto live = orm::compute_liveness(g, {});
    auto slots = orm::plan_activations(*live, orm::static_size_oracle(g));
    auto laid = orm::arena_from_slots(*live, slots->plan(), 64);
    REQUIRE(laid.has_value());
    CHECK(laid->strategy == orm::ArenaStrategy::slots);
    CHECK(laid->arena_bytes == 64 + 12);  // two slots of 12 bytes: the second at 64, ending 12 bytes in
    CHECK(orm::validate_arena(g, {}, *laid, orm::static_size_oracle(g), 64).has_value());
}

TEST_CASE("validate_arena: every corruption is caught with its own error") {
    const auto g = chain();
    const auto good = arena_ok(g, {}, orm::ArenaOptions{});
    const ValueId a = test::id(g, "a"), b = test::id(g, "b");
    const auto rejected = [&](const orm::ArenaPlan& p) {
        auto r = orm::validate_arena(g, {}, p, orm::static_size_oracle(g), 64);
        REQUIRE_FALSE(r.has_value());
        CHECK_FALSE(r.error().message().empty());
        return r.error();
    };
    auto p = good;
    p.offsets[b] = orm::no_offset;
    CHECK(rejected(p).kind == Kind::missing_offset);
    p = good;
    p.offsets[b] = 65;
    CHECK(rejected(p).kind == Kind::misaligned_offset);
    p = good;
    p.arena_bytes = 127;
    CHECK(rejected(p).kind == Kind::outside_arena);
    p = good;
    p.offsets[b] = 0;  // onto a, which is live with b at node 1
    const auto e = rejected(p);
    CHECK(e.kind == Kind::offset_overlap);
    CHECK(e.value == a);
    CHECK(e.other == b);
}

TEST_CASE("validate_arena: a view away from its root is caught") {
    ir::Builder bld("view");
    bld.tensor("a", f32, {16}).input("x").node("A", {"x"}, {"a"}).node("Reshape", {"a"}, {"v"}).output("v");
    const auto g = bld.build();
    orm::ViewMap views;
    views.insert(test::id(g, "v"), test::id(g, "a"));
    auto p = arena_ok(g, views, orm::ArenaOptions{});
    p.offsets[test::id(g, "v")] = 64;
    auto r = orm::validate_arena(g, views, p, orm::static_size_oracle(g), 64);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().kind == Kind::view_offset_mismatch);
}

TEST_CASE("lower bounds: the largest live total, and the k-th largest sizes for slots") {
    const auto g = test::best_fit_graph();
    auto live = orm::compute_liveness(g, {});
    const auto bounds = orm::lower_bounds(*live, orm::static_size_oracle(g));
    REQUIRE(bounds.has_value());
    CHECK(bounds->offset_bytes == 2800);  // p, q, r and s at node 1
    CHECK(bounds->slot_bytes == 1200 + 800 + 400 + 400);
    const auto aligned = orm::lower_bounds(*live, orm::static_size_oracle(g), 512);
    CHECK(aligned->offset_bytes == 512 + 1024 + 512 + 1536 - (1536 - 1200));  // the 1200-byte s on top
    CHECK_FALSE(orm::lower_bounds(*live, [](ValueId) { return std::optional<std::size_t>(); }).has_value());

    // The slot bound can exceed the offset bound: {a 100, b 10} live at
    // node 1, {b 10, c 50, d 50} at node 2: slots need 100 + 50 + 10.
    ir::Builder d("split");
    d.input("x").node("A", {"x"}, {"a"}).node("B", {"a"}, {"b"}).node("C", {"b"}, {"c", "d"}).output("c").output("d");
    const auto h = d.build();
    auto hl = orm::compute_liveness(h, {});
    const auto sizes = [&](ValueId v) -> std::optional<std::size_t> {
        const auto n = h.value_name(v);
        return n == "a" ? 100 : n == "b" ? 10 : 50;
    };
    const auto hb = orm::lower_bounds(*hl, sizes);
    CHECK(hb->offset_bytes == 110);
    CHECK(hb->slot_bytes == 160);
    CHECK(orm::plan_activations(*hl, sizes)->plan().peak_bytes >= hb->slot_bytes);
}

TEST_CASE("ActivationPlanner: re-planning with new sizes matches planning afresh") {
    const auto g = chain();
    auto planner = orm::ActivationPlanner::create(g, {});
    REQUIRE(planner.has_value());
    orm::ActivationPlan plan;
    for (std::size_t scale : {1u, 3u, 2u, 7u}) {
        const auto oracle = [&](ValueId v) { return std::optional<std::size_t>(scale * (v + 1) * 8); };
        auto outcome = planner->plan(oracle, plan);
        REQUIRE(outcome.has_value());
        CHECK(*outcome == orm::ActivationPlanner::Outcome::complete);
        auto fresh = orm::plan_activations(g, {}, oracle);
        CHECK(plan == fresh->plan());
    }
    auto deferred = planner->plan([](ValueId v) { return v == 1 ? std::optional<std::size_t>() : 8u; }, plan);
    REQUIRE(deferred.has_value());
    CHECK(*deferred == orm::ActivationPlanner::Outcome::deferred);
    CHECK(planner->unknown_sizes() == std::vector<ValueId>{1});
    auto overflow = planner->plan([](ValueId) { return std::numeric_limits<std::size_t>::max(); }, plan);
    REQUIRE_FALSE(overflow.has_value());
    CHECK(overflow.error().kind == orm::PlanError::Kind::size_overflow);
    auto bad = orm::ActivationPlanner::create(ir::Builder("bad").node("A", {"ghost"}, {"y"}).build(), {});
    REQUIRE_FALSE(bad.has_value());
    orm::PlanOptions scratch;
    scratch.scratch_bytes = {16, 0, 300};
    auto with_scratch = orm::ActivationPlanner::create(g, {}, scratch);
    REQUIRE(with_scratch.has_value());
    const auto eight = [](ValueId) { return std::optional<std::size_t>(8); };
    REQUIRE(with_scratch->plan(eight, plan).has_value());
    CHECK(plan == orm::plan_activations(g, {}, eight, scratch)->plan());
    CHECK(orm::validate(g, {}, plan, eight, scratch).has_value());
}

TEST_CASE("ArenaPlanner: re-planning offsets with new sizes matches plan_arena, strategy for strategy") {
    // A diamond with a skip: the sweep alone does not always reach the bound.
    ir::Builder bld("replan");
    bld.input("x").node("A", {"x"}, {"a"}).node("B", {"a"}, {"b"}).node("C", {"a"}, {"c"});
    bld.node("D", {"b", "c"}, {"d"}).node("E", {"d", "a"}, {"e"}).node("F", {"e"}, {"f"}).output("f");
    const auto g = bld.build();
    orm::PlanOptions with_scratch;
    with_scratch.scratch_bytes = {0, 40, 0, 200};
    for (std::size_t limit : {std::size_t{0}, std::size_t{4096}})
    for (const orm::PlanOptions& po : {orm::PlanOptions{}, with_scratch}) {
        orm::ArenaOptions o;
        o.work_per_owner = limit;  // 0: the sweep alone (allocation-free); else the portfolio
        o.alignment = 16;
        auto planner = orm::ArenaPlanner::create(g, {}, po, o);
        REQUIRE(planner.has_value());
        orm::ArenaPlan plan;
        for (std::size_t scale : {1u, 3u, 2u, 7u, 1u}) {
            INFO("work_per_owner " << limit << ", scale " << scale);
            const auto oracle = [&](ValueId v) { return std::optional<std::size_t>(scale * ((v * 37) % 11 + 1) * 24); };
            auto outcome = planner->plan(oracle, plan);
            REQUIRE(outcome.has_value());
            CHECK(*outcome == orm::ArenaPlanner::Outcome::complete);
            auto fresh = orm::plan_arena(g, {}, oracle, po, o);
            REQUIRE(fresh.has_value());
            CHECK(plan == fresh->plan());
            CHECK(orm::validate_arena(g, {}, plan, oracle, 16, po).has_value());
            auto live = orm::compute_liveness(g, {});
            if (po.scratch_bytes.empty())
                CHECK(planner->lower_bound_bytes() == orm::lower_bounds(*live, oracle, 16)->offset_bytes);
        }
        auto deferred = planner->plan([](ValueId v) { return v == 1 ? std::optional<std::size_t>() : 8u; }, plan);
        REQUIRE(deferred.has_value());
        CHECK(*deferred == orm::ArenaPlanner::Outcome::deferred);
        CHECK(planner->unknown_sizes() == std::vector<ValueId>{1});
    }
    orm::Liveness tampered = *orm::compute_liveness(g, {});
    tampered.intervals[1].use_end = 99;
    orm::ArenaPlanner bad(tampered);
    orm::ArenaPlan out;
    CHECK(bad.plan([](ValueId) { return 8u; }, out).error().kind == orm::PlanError::Kind::bad_liveness);
}

TEST_CASE("arena: on a U-Net with caches the top repacked reaches the bound the sweeps miss") {
    // bench_arena's long-lived family at 5,000 nodes: too many pairs meet
    // for a greedy order to fit the budget, the sweep and its mirror end
    // 0.05% and 0.07% above the bound, and the sweep's top placed again by
    // size reaches it.
    const auto s = synthetic::long_lived(5000, 0x9E3779B97F4A7C15ull ^ 5000);
    const auto live = orm::compute_liveness(s.graph, s.views);
    REQUIRE(live.has_value());
    const auto oracle = s.oracle();
    const std::size_t bound = orm::lower_bounds(*live, oracle, 64)->offset_bytes;
    const auto plan = orm::plan_arena(*live, oracle)->plan();
    CHECK(plan.arena_bytes == bound);
    CHECK(plan.strategy == orm::ArenaStrategy::repacked_top);
    CHECK(orm::validate_arena(s.graph, s.views, plan, oracle, 64).has_value());
    orm::ArenaOptions sweep_only;
    sweep_only.work_per_owner = 0;
    CHECK(orm::plan_arena(*live, oracle, sweep_only)->plan().arena_bytes > bound);
}

TEST_CASE("arena: where most pairs meet, the first fit by size goes before the best fit") {
    // bench_arena's families: on the U-Net of 1k nodes both reach the bound
    // and the first fit, which runs first, is kept; on the random DAG of 2k
    // the budget holds one pass of the two, and it is the first fit's (the
    // best fit's plan, run first before, was 1.6% larger).
    const auto check = [](const synthetic::Synthetic& s, std::size_t expected_arena) {
        const auto live = orm::compute_liveness(s.graph, s.views);
        REQUIRE(live.has_value());
        const auto oracle = s.oracle();
        const auto plan = orm::plan_arena(*live, oracle)->plan();
        CHECK(plan.strategy == orm::ArenaStrategy::size_first_fit);
        CHECK(plan.arena_bytes == expected_arena);
        CHECK(orm::validate_arena(s.graph, s.views, plan, oracle, 64).has_value());
    };
    const auto unet = synthetic::long_lived(1000, 0x9E3779B97F4A7C15ull ^ 1000);
    const auto live = orm::compute_liveness(unet.graph, unet.views);
    REQUIRE(live.has_value());
    check(unet, orm::lower_bounds(*live, unet.oracle(), 64)->offset_bytes);
    check(synthetic::random_dag(2000, 0x9E3779B97F4A7C15ull ^ 2000), 35610624);
}

TEST_CASE("arena: past the greedy passes' budget, the first fit by size runs where its own prediction fits") {
    // bench_arena's random DAG of 5k nodes: every meeting pair is too many
    // for the greedy passes. The first fit by size, equal sizes the most
    // crowded first, predicted at 12 sqrt(P / n) = 192 steps an owner, ends
    // 0.93% above the bound and is kept (in TFLite's ties it ended 1.17%
    // above). Not run (first_fit_steps 0, a cap below 192, or a budget of
    // 150 steps an owner, where it does not fit), the sweep mirrored and the
    // repacked top run instead: 1.72% above.
    const auto s = synthetic::random_dag(5000, 0x9E3779B97F4A7C15ull ^ 5000);
    const auto live = orm::compute_liveness(s.graph, s.views);
    REQUIRE(live.has_value());
    const auto oracle = s.oracle();
    CHECK(orm::lower_bounds(*live, oracle, 64)->offset_bytes == 85271552);
    const auto plan = orm::plan_arena(*live, oracle)->plan();
    CHECK(plan.strategy == orm::ArenaStrategy::size_peak_first_fit);
    CHECK(plan.arena_bytes == 86066176);
    CHECK(orm::validate_arena(s.graph, s.views, plan, oracle, 64).has_value());
    for (const auto& [cap, work] :
         {std::pair<std::size_t, std::size_t>{0, 1024}, {191, 1024}, {192, 1024}, {400, 150}}) {
        orm::ArenaOptions o;
        o.first_fit_steps = cap;
        o.work_per_owner = work;
        INFO("first_fit_steps " << cap << ", work_per_owner " << work);
        const auto other = orm::plan_arena(*live, oracle, o)->plan();
        CHECK(other.arena_bytes == (cap == 192 ? 86066176u : 86737920u));
        CHECK(other.strategy == (cap == 192 ? orm::ArenaStrategy::size_peak_first_fit : orm::ArenaStrategy::repacked_top));
    }
}

// ---- the real models and the MiniMalloc instances (ONNX_RUNTIME_MEMORY_DATA_DIR) ----
#if ORM_HAVE_DATA
namespace {
std::string minimalloc_dir() { return std::string(ORM_DATA_DIR) + "/benchmarks/minimalloc/"; }
auto read_instance(const std::string& name) { return ir::read_minimalloc_csv(minimalloc_dir() + name + ".1048576.csv"); }
}  // namespace

TEST_CASE("arena: every corpus graph reaches its lower bound, at alignment 1 and 64") {
    const std::pair<const char*, std::size_t> models[] = {
        {"resnet50", 9633792},     {"mobilenet_v2", 9633792},      {"densenet121", 8429568},
        {"vit_b_16", 7867392},     {"bert_base_encoder", 5111936}, {"gpt2_xl_decoder", 53101568},
    };
    for (const auto& [name, bound] : models) {
        INFO(name);
        auto g = ir::read_graph_file(std::string(ORM_DATA_DIR) + "/corpus/" + name + ".graph");
        REQUIRE(g.has_value());
        const orm::ViewMap views = ir::views_from_ops(*g);
        auto live = orm::compute_liveness(*g, views);
        for (std::size_t alignment : {1u, 64u}) {
            orm::ArenaOptions o;
            o.alignment = alignment;
            const auto p = arena_ok(*g, views, o);
            const auto lb = orm::lower_bounds(*live, orm::static_size_oracle(*g), alignment);
            CHECK(p.arena_bytes == lb->offset_bytes);
            if (alignment == 1) CHECK(p.arena_bytes == bound);
        }
    }
}

TEST_CASE("arena: the default plans of the corpus keep every offset (FNV-1a of the offsets, alignment 64)") {
    // Taken from the plans of 1a1ce95: a change to the strategies' order or
    // ties that moves any corpus offset fails here, even at the same bytes.
    const std::pair<const char*, std::uint64_t> models[] = {
        {"bert_base_encoder", 0x16bc22a5ecbc2dcbull}, {"densenet121", 0xc112b54d5a5ec96cull},
        {"gpt2_xl_decoder", 0x6b78c334488277edull},   {"mobilenet_v2", 0x39403eaa81c367c4ull},
        {"resnet50", 0x5e348809fbe73aa8ull},          {"vit_b_16", 0xb090d3eeaa19723full},
    };
    for (const auto& [name, expected] : models) {
        INFO(name);
        auto g = ir::read_graph_file(std::string(ORM_DATA_DIR) + "/corpus/" + name + ".graph");
        REQUIRE(g.has_value());
        const auto p = arena_ok(*g, ir::views_from_ops(*g), orm::ArenaOptions{});
        std::uint64_t h = 1469598103934665603ull;
        for (std::size_t offset : p.offsets) {
            h ^= offset;
            h *= 1099511628211ull;
        }
        CHECK(h == expected);
    }
}

TEST_CASE("arena: every MiniMalloc instance validates and beats every published greedy planner") {
    // The better of TFLite's best-fit-by-size and TFLite Micro's first-fit, from the benchmark's README.
    const std::pair<const char*, std::size_t> peers[] = {
        {"A", 1352704}, {"B", 1412096}, {"C", 1417216}, {"D", 1301504}, {"E", 1435648}, {"F", 1348608},
        {"G", 1396736}, {"H", 1421312}, {"I", 1478656}, {"J", 1298432}, {"K", 1339392},
    };
    for (const auto& [name, peer] : peers) {
        INFO(name);
        auto g = read_instance(name);
        REQUIRE(g.has_value());
        orm::ArenaOptions o;
        o.alignment = 1;  // no search: the greedy strategies and the skyline alone
        const auto p = arena_ok(*g, {}, o);
        CHECK(p.arena_bytes < peer);
        auto live = orm::compute_liveness(*g, {});
        CHECK(p.arena_bytes >= orm::lower_bounds(*live, orm::static_size_oracle(*g))->offset_bytes);
        o.exact_nodes = 5000;
        o.search_iterations = 20;
        const auto searched = arena_ok(*g, {}, o);
        CHECK(searched.arena_bytes <= p.arena_bytes);
        CHECK(arena_ok(*g, {}, o) == searched);  // deterministic, searches included
    }
}

TEST_CASE("arena: the exact search reaches the lower bound on six MiniMalloc instances, D, I and J within 2%") {
    // Node budgets, no time limit: deterministic. The bound is the capacity
    // in the file name except for C, D and J, where it is below.
    const std::tuple<const char*, std::uint64_t, std::size_t> at_bound[] = {
        {"A", 10000, 1048576}, {"B", 100000, 1048576}, {"C", 10000, 1039360},
        {"F", 100000, 1048576}, {"G", 20000, 1048576}, {"H", 10000, 1048576},
    };
    const auto plan = [](const char* name, std::uint64_t nodes) {
        auto g = read_instance(name);
        REQUIRE(g.has_value());
        orm::ArenaOptions o;
        o.alignment = 1;
        o.exact_nodes = nodes;
        auto live = orm::compute_liveness(*g, {});
        return std::pair(arena_ok(*g, {}, o), orm::lower_bounds(*live, orm::static_size_oracle(*g))->offset_bytes);
    };
    for (const auto& [name, nodes, bound] : at_bound) {
        INFO(name);
        const auto [p, lower_bound] = plan(name, nodes);
        CHECK(lower_bound == bound);
        CHECK(p.arena_bytes == bound);
        CHECK(p.strategy == orm::ArenaStrategy::exact_search);
    }
    const std::pair<const char*, std::uint64_t> near[] = {{"D", 40000}, {"I", 300000}, {"J", 100000}};
    for (const auto& [name, nodes] : near) {
        INFO(name);
        CHECK(plan(name, nodes).first.arena_bytes <= 1048576 * 102 / 100);
    }
}

TEST_CASE("arena: the exact search keeps the alignment") {
    // MiniMalloc's A at alignment 4096, one byte added to every size (its
    // sizes are multiples of 1024): every size rounds up, the search's
    // offsets stay multiples of the alignment, and whichever buffer ends on
    // top, the arena ends at its own bytes, not rounded up.
    auto g = read_instance("A");
    REQUIRE(g.has_value());
    const auto plus_one = [&](ValueId v) {
        const auto s = orm::static_size_oracle(*g)(v);
        return s ? std::optional<std::size_t>(*s + 1) : std::nullopt;
    };
    orm::ArenaOptions o;
    o.alignment = 4096;
    o.exact_nodes = 50000;
    const auto status = orm::plan_arena(*g, {}, plus_one, {}, o);
    REQUIRE(status.has_value());
    const orm::ArenaPlan& p = status->plan();
    REQUIRE(orm::validate_arena(*g, {}, p, plus_one, 4096).has_value());  // the alignment included
    CHECK(p.strategy == orm::ArenaStrategy::exact_search);
    auto live = orm::compute_liveness(*g, {});
    CHECK(p.arena_bytes >= orm::lower_bounds(*live, plus_one, 4096)->offset_bytes);
    std::size_t end = 0;
    for (ValueId v : live->owners) end = std::max(end, p.offsets[v] + *plus_one(v));
    CHECK(p.arena_bytes == end);
    CHECK(p.arena_bytes % 4096 != 0);  // no size + 1 is a multiple of 4096: not rounded up
}

TEST_CASE("plan_offsets: with real time stamps the exact search proves nine MiniMalloc instances optimal") {
    // Node budgets, no time limit: deterministic. Each plan meets the bound
    // it proves (the live total; C's is below the file's capacity), and
    // validates from outside.
    const std::tuple<const char*, std::uint64_t, std::size_t> proven[] = {
        {"A", 10000, 1048576},  {"B", 10000, 1048576},   {"C", 10000, 1039360},
        {"E", 1000000, 1048576}, {"F", 100000, 1048576}, {"G", 20000, 1048576},
        {"H", 10000, 1048576},  {"I", 1000000, 1048576}, {"K", 1000000, 1048576},
    };
    for (const auto& [name, nodes, optimum] : proven) {
        INFO(name);
        auto inst = ir::read_minimalloc(minimalloc_dir() + name + ".1048576.csv");
        REQUIRE(inst.has_value());
        REQUIRE_FALSE(inst->timed.empty());
        orm::ArenaOptions o;
        o.alignment = 1;
        o.exact_nodes = nodes;
        const auto p = orm::plan_offsets(inst->timed, o);
        REQUIRE(p.has_value());
        CHECK(orm::validate_offsets(inst->timed, *p, 1).has_value());
        CHECK(p->arena_bytes == optimum);
        CHECK(p->proven_bound_bytes == optimum);
        CHECK(p->strategy == orm::ArenaStrategy::exact_search);
    }
}

TEST_CASE("MiniMalloc CSV: buffers become a graph with the same overlaps") {
    const std::string dir = minimalloc_dir();
    auto g = ir::read_minimalloc_csv(dir + "A.1048576.csv");
    REQUIRE(g.has_value());
    CHECK(g->value_count() == 154);
    auto live = orm::compute_liveness(*g, {});
    REQUIRE(live.has_value());
    CHECK(live->owners.size() == 154);
    CHECK(orm::lower_bounds(*live, orm::static_size_oracle(*g))->offset_bytes == 1048576);
    auto missing = ir::read_minimalloc_csv(dir + "nope.csv");
    REQUIRE_FALSE(missing.has_value());
}

TEST_CASE("MiniMalloc CSV: the graph-free layer places the buffers exactly as the graph path does") {
    for (const char* name : {"A", "E", "K"}) {
        INFO(name);
        auto inst = ir::read_minimalloc(minimalloc_dir() + name + ".1048576.csv");
        auto g = read_instance(name);
        REQUIRE(inst.has_value());
        REQUIRE(g.has_value());
        orm::ArenaOptions o;
        o.alignment = 1;
        auto offsets = orm::plan_offsets(inst->buffers, o);
        REQUIRE(offsets.has_value());
        CHECK(orm::validate_offsets(inst->buffers, *offsets, 1).has_value());
        const auto arena = arena_ok(*g, {}, o);
        CHECK(offsets->arena_bytes >= arena.arena_bytes);  // the graph path also has the slot plan as a candidate
        if (arena.strategy != orm::ArenaStrategy::slots) {
            CHECK(offsets->arena_bytes == arena.arena_bytes);
            for (std::size_t i = 0; i < inst->buffers.size(); ++i)
                CHECK(offsets->offsets[i] == arena.offset_of(*g->find("b" + inst->ids[i])));
        }
        CHECK(offsets->lower_bound_bytes == orm::lower_bounds(inst->buffers, 1)->offset_bytes);
    }
}

TEST_CASE("MiniMalloc CSV: the real time stamps plan through the graph-free layer, and the plan fits the graph") {
    // A's first row: 0,995328,1000448,656384 (times are half-open in the CSV).
    auto inst = ir::read_minimalloc(minimalloc_dir() + "A.1048576.csv");
    REQUIRE(inst.has_value());
    REQUIRE(inst->timed.size() == inst->buffers.size());
    CHECK(inst->timed[0] == orm::Buffer{656384, 995328, 1000447});
    orm::ArenaOptions o;
    o.alignment = 1;
    auto timed = orm::plan_offsets(inst->timed, o);
    REQUIRE(timed.has_value());
    CHECK(orm::validate_offsets(inst->timed, *timed, 1).has_value());
    CHECK(timed->lower_bound_bytes == 1048576);
    // The same offsets are valid for the ranked records and the graph: one overlap relation.
    CHECK(orm::validate_offsets(inst->buffers, *timed, 1).has_value());
    const ir::Graph g = ir::minimalloc_graph(*inst);
    orm::ArenaPlan plan;
    plan.offsets = timed->offsets;
    plan.arena_bytes = timed->arena_bytes;
    CHECK(orm::validate_arena(g, {}, plan, orm::static_size_oracle(g), 1).has_value());
    // Time spans of a million positions cost no more than ranks: the strategies walk ranks.
    o.exact_nodes = 100000;
    auto exact = orm::plan_offsets(inst->timed, o);
    REQUIRE(exact.has_value());
    CHECK(exact->arena_bytes == 1048576);  // A is solved at its bound with the real widths
    CHECK(orm::validate_offsets(inst->timed, *exact, 1).has_value());
}
#endif  // ORM_HAVE_DATA
