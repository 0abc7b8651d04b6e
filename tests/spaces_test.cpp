// Memory spaces with capacities, static mode (spaces.hpp): each buffer in
// one space, the most preferred of its list where it fits, each space
// packed as an arena; validate_spaces checks a plan on its own.
#include <cstdint>
#include <random>
#include <vector>

#include "ir/graph_text.hpp"
#include "ir/views.hpp"
#include "support.hpp"

using orm::Buffer;
using orm::SpaceError;
using orm::SpaceOptions;
using Kind = orm::ValidateError::Kind;

namespace {

std::vector<Buffer> random_buffers(std::mt19937_64& rng, std::size_t n, std::uint32_t times, std::size_t most) {
    std::vector<Buffer> b(n);
    for (auto& x : b) {
        const auto t0 = static_cast<std::uint32_t>(rng() % times), t1 = static_cast<std::uint32_t>(rng() % times);
        x.first = std::min(t0, t1);
        x.last = std::max(t0, t1);
        x.size = rng() % 7 == 0 ? 0 : 1 + rng() % most;
    }
    return b;
}

SpaceOptions device_host(std::size_t device, std::size_t alignment = 1) {
    SpaceOptions o;
    o.spaces = {{"device", device, alignment}, {"host", orm::unbounded, alignment}};
    return o;
}

}  // namespace

TEST_CASE("spaces: one space, or a first space that is unbounded, is plan_offsets' plan bit for bit") {
    std::mt19937_64 rng(11);
    for (int round = 0; round < 40; ++round) {
        const auto buffers = random_buffers(rng, 1 + rng() % 300, 1 + static_cast<std::uint32_t>(rng() % 200), 5000);
        orm::ArenaOptions options;
        options.alignment = 64;
        const auto alone = orm::plan_offsets(buffers, options);
        REQUIRE(alone.has_value());
        for (const auto& spaces : {SpaceOptions{}, device_host(orm::unbounded, 64)}) {
            const auto plan = orm::plan_spaces(buffers, spaces, options);
            REQUIRE(plan.has_value());
            CHECK(plan->offsets == alone->offsets);
            CHECK(plan->space == std::vector<std::uint32_t>(buffers.size(), 0));
            CHECK(plan->arenas[0].arena_bytes == alone->arena_bytes);
            CHECK(plan->arenas[0].lower_bound_bytes == alone->lower_bound_bytes);
            CHECK(plan->arenas[0].buffers == buffers.size());
            CHECK(orm::validate_spaces(buffers, spaces, *plan, 64).has_value());
        }
    }
}

TEST_CASE("spaces: a buffer that does not fit the device goes to the host, the rest stays") {
    // a [0,2] 60 bytes, b [1,3] 50, c [3,4] 40 in a 100-byte device: b finds
    // 60 bytes live there and goes to the host; c finds the device empty.
    const std::vector<Buffer> buffers = {{60, 0, 2}, {50, 1, 3}, {40, 3, 4}};
    const auto o = device_host(100);
    const auto plan = orm::plan_spaces(buffers, o);
    REQUIRE(plan.has_value());
    CHECK(plan->space == std::vector<std::uint32_t>{0, 1, 0});
    CHECK(plan->offsets == std::vector<std::size_t>{0, 0, 0});
    CHECK(plan->arenas[0].arena_bytes == 60);
    CHECK(plan->arenas[0].buffers == 2);
    CHECK(plan->arenas[1].arena_bytes == 50);
    CHECK(plan->arenas[1].lower_bound_bytes == 50);
    CHECK(orm::validate_spaces(buffers, o, *plan).has_value());

    SECTION("a list per buffer: c may only use the host, a prefers it") {
        auto lists = o;
        lists.lists = {{0, 1}, {1}, {1, 0}};
        lists.list_of = {2, 0, 1};
        const auto p = orm::plan_spaces(buffers, lists);
        REQUIRE(p.has_value());
        CHECK(p->space == std::vector<std::uint32_t>{1, 0, 1});
        CHECK(orm::validate_spaces(buffers, lists, *p).has_value());
        auto moved = *p;
        moved.space[2] = 0;  // c is not allowed on the device
        const auto r = orm::validate_spaces(buffers, lists, moved);
        REQUIRE_FALSE(r.has_value());
        CHECK(r.error().kind == Kind::space_not_allowed);
        CHECK(r.error().value == 2);
    }
}

TEST_CASE("spaces: errors name the buffer, the space and the bytes") {
    const std::vector<Buffer> buffers = {{60, 0, 2}, {50, 1, 3}};
    SECTION("a buffer that fits in no space of its list") {
        SpaceOptions o;
        o.spaces = {{"device", 100, 1}};
        const auto plan = orm::plan_spaces(buffers, o);
        REQUIRE_FALSE(plan.has_value());
        CHECK(plan.error().kind == SpaceError::Kind::does_not_fit);
        CHECK(plan.error().buffer == 1);
        CHECK(plan.error().bytes == 50);
        CHECK(plan.error().live_bytes == 60);
        CHECK(plan.error().capacity == 100);
        CHECK(plan.error().position == 1);
        CHECK(plan.error().message() ==
              "buffer 1 (50 bytes aligned) fits in no space it may use: in space 0 ('device'), 60 of its 100 bytes are "
              "already live at time 1");
    }
    SECTION("sparse times: the time is the caller's") {
        const std::vector<Buffer> sparse = {{60, 1000, 3000}, {50, 2000, 900000}};
        SpaceOptions o;
        o.spaces = {{"device", 100, 1}};
        const auto plan = orm::plan_spaces(sparse, o);
        REQUIRE_FALSE(plan.has_value());
        CHECK(plan.error().position == 2000);
    }
    SECTION("a buffer larger than every space") {
        SpaceOptions o;
        o.spaces = {{"device", 40, 1}, {"host", 55, 1}};
        const auto plan = orm::plan_spaces(buffers, o);
        REQUIRE_FALSE(plan.has_value());
        CHECK(plan.error().buffer == 0);
        CHECK(plan.error().space == 1);
        CHECK(plan.error().space_name == "host");
    }
    SECTION("an empty list, a list naming a missing space, a buffer naming a missing list") {
        auto o = device_host(100);
        o.lists = {{0, 1}, {}};
        auto plan = orm::plan_spaces(buffers, o);
        REQUIRE_FALSE(plan.has_value());
        CHECK(plan.error().kind == SpaceError::Kind::bad_list);
        CHECK(plan.error().list == 1);
        o.lists = {{0, 2}};
        plan = orm::plan_spaces(buffers, o);
        REQUIRE_FALSE(plan.has_value());
        CHECK(plan.error().message() == "preference list 0 is empty or names space 2, which the options do not have");
        o.lists = {{0, 1}};
        o.list_of = {0, 3};
        plan = orm::plan_spaces(buffers, o);
        REQUIRE_FALSE(plan.has_value());
        CHECK(plan.error().message() == "buffer 1 uses preference list 3, which the options do not have");
    }
    SECTION("a pin past its space's capacity; a pin off its space's alignment") {
        auto pinned = buffers;
        pinned[1].pinned = 64;
        auto o = device_host(100, 64);
        auto plan = orm::plan_spaces(pinned, o);
        REQUIRE_FALSE(plan.has_value());
        CHECK(plan.error().kind == SpaceError::Kind::pin_outside_space);
        CHECK(plan.error().buffer == 1);
        CHECK(plan.error().bytes == 114);
        o.spaces[0].capacity = 1024;
        plan = orm::plan_spaces(pinned, o);
        REQUIRE(plan.has_value());
        CHECK(plan->space[1] == 0);
        CHECK(plan->offsets[1] == 64);
        CHECK(orm::validate_spaces(pinned, o, *plan, 64).has_value());
        o.spaces[0].alignment = 128;
        plan = orm::plan_spaces(pinned, o);
        REQUIRE_FALSE(plan.has_value());
        CHECK(plan.error().kind == SpaceError::Kind::bad_records);
        CHECK(plan.error().plan.kind == orm::PlanError::Kind::pin_misaligned);
        CHECK(plan.error().plan.value == 1);
    }
}

TEST_CASE("spaces: random buffers and tight devices always give plans that validate, each space within capacity") {
    std::mt19937_64 rng(23);
    std::size_t moved = 0;
    for (int round = 0; round < 200; ++round) {
        const auto buffers = random_buffers(rng, 1 + rng() % 200, 1 + static_cast<std::uint32_t>(rng() % 100), 4000);
        const std::size_t alignment = std::size_t{1} << (rng() % 7);
        const auto bound = orm::plan_offsets(buffers, {.alignment = alignment})->lower_bound_bytes;
        SpaceOptions o;
        o.spaces = {{"device", bound * (1 + rng() % 9) / 10, alignment},
                    {"pinned host", bound * (rng() % 4) / 4, 2 * alignment},
                    {"host", orm::unbounded, 4 * alignment}};
        const auto plan = orm::plan_spaces(buffers, o, {.alignment = alignment});
        REQUIRE(plan.has_value());
        INFO("round " << round);
        CHECK(orm::validate_spaces(buffers, o, *plan).has_value());
        for (std::size_t s = 0; s < 3; ++s) CHECK(plan->arenas[s].arena_bytes <= o.spaces[s].capacity);
        for (const auto s : plan->space) moved += s != 0;

        // Mutations the validator must catch.
        for (std::size_t i = 0; i < buffers.size(); ++i) {
            if (buffers[i].size == 0) continue;
            auto wrong = *plan;
            wrong.arenas[plan->space[i]].arena_bytes = plan->offsets[i] + buffers[i].size - 1;
            CHECK_FALSE(orm::validate_spaces(buffers, o, wrong).has_value());
            break;
        }
        auto over = *plan;
        over.arenas[0].arena_bytes = o.spaces[0].capacity + 1;
        CHECK(orm::validate_spaces(buffers, o, over).error().kind == Kind::over_capacity);
    }
    CHECK(moved > 1000);  // the tight devices did send buffers on
}

TEST_CASE("spaces: two buffers of one space that overlap are caught, named by their index in the records") {
    const std::vector<Buffer> buffers = {{10, 0, 1}, {10, 0, 1}, {10, 0, 1}};
    const auto o = device_host(20);
    auto plan = orm::plan_spaces(buffers, o);
    REQUIRE(plan.has_value());
    CHECK(plan->space == std::vector<std::uint32_t>{0, 0, 1});
    plan->space[2] = 0;
    plan->offsets[2] = plan->offsets[1];
    const auto r = orm::validate_spaces(buffers, o, *plan);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().kind == Kind::offset_overlap);
    CHECK(r.error().other == 2);
}

TEST_CASE("spaces on a graph: owners, views and scratch each in one space, validated per space") {
    const auto g = test::chain_with_long_lived();
    const auto views = ir::views_from_ops(g);
    const auto oracle = orm::static_size_oracle(g);
    orm::PlanOptions options;
    options.scratch_bytes = {0, 0, 0, 96, 0};  // C's workspace (128 aligned)
    orm::GraphSpaceOptions spaces;
    spaces.spaces = {{"device", 1024, 64}, {"host", orm::unbounded, 64}};
    const auto id = [&](const char* n) { return test::id(g, n); };

    SECTION("all fits: plan_arena's plan, in the device") {
        const auto spaced = orm::plan_arena_spaces(g, views, oracle, options, spaces);
        REQUIRE(spaced.has_value());
        const auto today = orm::plan_arena(g, views, oracle, options);
        REQUIRE(today.has_value());
        CHECK(spaced->plan().offsets == today->plan().offsets);
        CHECK(spaced->plan().scratch_offsets == today->plan().scratch_offsets);
        CHECK(spaced->plan().arenas[0].arena_bytes == today->plan().arena_bytes);
        CHECK(spaced->plan().arenas[1].buffers == 0);
        CHECK(spaced->plan().space[id("b")] == 0);
        CHECK(spaced->plan().space[id("x")] == orm::no_space);  // a graph input, outside the arena
        CHECK(orm::validate_arena_spaces(g, views, spaced->plan(), oracle, options, spaces).has_value());
    }
    SECTION("a 640-byte device: in order of first use, d and a fit, c and C's scratch go to the host, y fits") {
        spaces.spaces[0].capacity = 640;
        const auto spaced = orm::plan_arena_spaces(g, views, oracle, options, spaces);
        REQUIRE(spaced.has_value());
        const auto& p = spaced->plan();
        CHECK(p.space[id("d")] == 0);
        CHECK(p.space[id("a")] == 0);
        CHECK(p.space[id("b")] == 0);  // the view lives with its root
        CHECK(p.offsets[id("b")] == p.offsets[id("a")]);
        CHECK(p.space[id("c")] == 1);
        CHECK(p.scratch_space[3] == 1);
        CHECK(p.space[id("y")] == 0);
        CHECK(p.arenas[0].arena_bytes == 520);  // d's 320 (aligned), a's 200 above
        CHECK(p.arenas[0].lower_bound_bytes == 520);
        CHECK(p.arenas[1].arena_bytes == 328);  // the scratch's 128 (aligned), c's 200 above
        CHECK(orm::validate_arena_spaces(g, views, p, oracle, options, spaces).has_value());

        auto view_moved = p;  // a view away from its root
        view_moved.space[id("b")] = 1;
        auto r = orm::validate_arena_spaces(g, views, view_moved, oracle, options, spaces);
        REQUIRE_FALSE(r.has_value());
        CHECK(r.error().kind == Kind::view_offset_mismatch);
        auto onto_d = p;  // y moved onto d, which it reads
        onto_d.offsets[id("y")] = onto_d.offsets[id("d")];
        r = orm::validate_arena_spaces(g, views, onto_d, oracle, options, spaces);
        REQUIRE_FALSE(r.has_value());
        CHECK(r.error().kind == Kind::offset_overlap);
        CHECK(r.error().value == std::min(id("d"), id("y")));
        auto scratch_home = p;  // C's scratch into the device, where a and d are live
        scratch_home.scratch_space[3] = 0;
        r = orm::validate_arena_spaces(g, views, scratch_home, oracle, options, spaces);
        REQUIRE_FALSE(r.has_value());
        CHECK(r.error().node == 3);
        auto small = spaces;  // the same plan against a smaller device
        small.spaces[0].capacity = 512;
        r = orm::validate_arena_spaces(g, views, p, oracle, options, small);
        REQUIRE_FALSE(r.has_value());
        CHECK(r.error().kind == Kind::over_capacity);
        CHECK(r.error().message() == "space 0's arena ends at 520 bytes, past its capacity of 512");
    }
    SECTION("by kind and by value: the output and the scratch on the host, d only on the host") {
        spaces.spaces[0].capacity = 640;
        spaces.graph_outputs = {1};
        spaces.scratch = {1};
        spaces.values = {{id("d"), {1}}};
        const auto spaced = orm::plan_arena_spaces(g, views, oracle, options, spaces);
        REQUIRE(spaced.has_value());
        const auto& p = spaced->plan();
        CHECK(p.space[id("y")] == 1);
        CHECK(p.scratch_space[3] == 1);
        CHECK(p.space[id("d")] == 1);
        CHECK(p.space[id("a")] == 0);
        CHECK(p.space[id("c")] == 0);
        CHECK(orm::validate_arena_spaces(g, views, p, oracle, options, spaces).has_value());
        auto not_allowed = p;
        not_allowed.space[id("d")] = 0;
        const auto r = orm::validate_arena_spaces(g, views, not_allowed, oracle, options, spaces);
        REQUIRE_FALSE(r.has_value());
        CHECK(r.error().kind == Kind::space_not_allowed);
        CHECK(r.error().value == id("d"));
    }
    SECTION("an owner that fits nowhere is named by its value, a scratch by its node") {
        spaces.spaces = {{"device", 300, 64}};
        auto spaced = orm::plan_arena_spaces(g, views, oracle, options, spaces);
        REQUIRE_FALSE(spaced.has_value());
        CHECK(spaced.error().kind == orm::SpaceError::Kind::does_not_fit);
        CHECK(spaced.error().value == id("d"));
        CHECK(spaced.error().message().rfind("value " + std::to_string(id("d")) + " (320 bytes aligned)", 0) == 0);
        spaces.spaces[0].capacity = 2048;
        options.scratch_bytes[3] = 2000;
        spaced = orm::plan_arena_spaces(g, views, oracle, options, spaces);
        REQUIRE_FALSE(spaced.has_value());
        CHECK(spaced.error().node == 3);
        CHECK(spaced.error().message().rfind("the scratch of node 3", 0) == 0);
    }
    SECTION("a list for a value the graph does not have is an error, not ignored") {
        spaces.values = {{99, {1}}};
        const auto spaced = orm::plan_arena_spaces(g, views, oracle, options, spaces);
        REQUIRE_FALSE(spaced.has_value());
        CHECK(spaced.error().message() == "the space options give a list to value 99, which the graph does not have");
    }
    SECTION("a pin names its space: past the capacity, an error") {
        options.pinned = {{id("d"), 768}};
        const auto spaced = orm::plan_arena_spaces(g, views, oracle, options, spaces);
        REQUIRE_FALSE(spaced.has_value());
        CHECK(spaced.error().kind == orm::SpaceError::Kind::pin_outside_space);
        CHECK(spaced.error().value == id("d"));
    }
}

TEST_CASE("node floors: each node's operands (views as their roots) and scratch, aligned") {
    const auto g = test::chain_with_long_lived();
    orm::PlanOptions options;
    options.scratch_bytes = {0, 0, 0, 96, 0};
    const auto floors = orm::node_floors(g, ir::views_from_ops(g), orm::static_size_oracle(g), options, 64);
    REQUIRE(floors.has_value());
    // D: d 320 (x is a graph input, outside); A: a 256; Reshape: a once, b
    // is a; C: a + c + scratch 128; Y: c + d + y 128.
    CHECK(*floors == std::vector<std::size_t>{320, 256, 256, 640, 704});
}

#if ORM_HAVE_DATA
TEST_CASE("spaces on the corpus: a device and a host, the device unbounded, give plan_arena's plan on every model") {
    for (const char* name : {"bert_base_encoder", "densenet121", "gpt2_xl_decoder", "mobilenet_v2", "resnet50",
                             "unet_diffusion_like", "vit_b_16"}) {
        INFO(name);
        auto g = ir::read_graph_file(std::string(ORM_DATA_DIR) + "/corpus/" + name + ".graph");
        REQUIRE(g.has_value());
        const auto views = ir::views_from_ops(*g);
        const auto oracle = orm::static_size_oracle(*g);
        orm::GraphSpaceOptions spaces;
        spaces.spaces = {{"device", orm::unbounded, 64}, {"host", orm::unbounded, 64}};
        const auto spaced = orm::plan_arena_spaces(*g, views, oracle, {}, spaces);
        const auto today = orm::plan_arena(*g, views, oracle);
        REQUIRE(spaced.has_value());
        REQUIRE(today.has_value());
        CHECK(spaced->plan().offsets == today->plan().offsets);
        CHECK(spaced->plan().arenas[0].arena_bytes == today->plan().arena_bytes);
        CHECK(orm::validate_arena_spaces(*g, views, spaced->plan(), oracle, {}, spaces).has_value());
        // Half the bound on the device: the rest on the host, every space valid.
        spaces.spaces[0].capacity = spaced->plan().arenas[0].lower_bound_bytes / 2;
        const auto half = orm::plan_arena_spaces(*g, views, oracle, {}, spaces);
        REQUIRE(half.has_value());
        CHECK(half->plan().arenas[0].arena_bytes <= spaces.spaces[0].capacity);
        CHECK(half->plan().arenas[1].buffers > 0);
        CHECK(orm::validate_arena_spaces(*g, views, half->plan(), oracle, {}, spaces).has_value());
    }
}
#endif
