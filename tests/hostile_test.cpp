// Hostile input, second round: each class of wrong plan, tampered plan,
// crash or blow-up found by an adversarial pass, with the test that would
// have caught it.
#include <chrono>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "support.hpp"

using orm::PlanError;
using orm::ValidateError;
using test::f32;

namespace {

// A graph as plain data with ids of any integral type: signed, 128-bit, ...
template <class Id>
struct IdGraph {
    std::size_t values = 0;
    std::vector<std::vector<Id>> in, out;
    std::vector<Id> inputs, outputs;

    std::size_t value_count() const { return values; }
    std::size_t node_count() const { return in.size(); }
    const std::vector<Id>& node_inputs(std::size_t n) const { return in[n]; }
    const std::vector<Id>& node_outputs(std::size_t n) const { return out[n]; }
    const std::vector<Id>& graph_inputs() const { return inputs; }
    const std::vector<Id>& graph_outputs() const { return outputs; }
    bool is_initializer(ValueId) const { return false; }
};

const auto four = [](ValueId) { return std::optional<std::size_t>(4); };

PlanError plan_error(const auto& g, const orm::ViewMap& views = {}) {
    auto r = orm::plan_activations(g, views, four);
    REQUIRE_FALSE(r.has_value());
    return r.error();
}

}  // namespace

// ---- a view produced outside its root's lifetime ----

TEST_CASE("a view produced before its root is an error naming the view and the node") {
    // Node 0 writes v (a view of s) and t; s is produced by node 1.
    ir::Builder b("early_view");
    b.input("x").node("A", {"x"}, {"v", "t"}).node("B", {"x"}, {"s"}).node("C", {"v", "t", "s"}, {"y"}).output("y");
    const auto g = b.build();
    orm::ViewMap views;
    views.insert(test::id(g, "v"), test::id(g, "s"));
    const auto e = plan_error(g, views);
    CHECK(e.kind == PlanError::Kind::view_before_source);
    CHECK(e.value == test::id(g, "v"));
    CHECK(e.node == 0);
    CHECK(e.message() == "node 0 produces value " + std::to_string(test::id(g, "v")) +
                             ", a view whose buffer owner is produced later (its bytes do not exist yet)");
    CHECK(orm::compute_liveness(g, views).error() == e);
    // The same view produced by a node after s is fine.
    ir::Builder late("late_view");
    late.input("x").node("B", {"x"}, {"s"}).node("A", {"x"}, {"v", "t"}).node("C", {"v", "t"}, {"y"}).output("y");
    const auto h = late.build();
    orm::ViewMap hv;
    hv.insert(test::id(h, "v"), test::id(h, "s"));
    CHECK(orm::plan_activations(h, hv, four).has_value());
}

TEST_CASE("a view produced after its root's last read keeps the root live: no slot shared with its sibling") {
    // s is read only at node 1; node 2 writes v (a view of s) and t, and does
    // not read s; nobody reads v. Before the fix s retired at 1 and t took its
    // slot: node 2 wrote v and t into the same bytes, and validate agreed
    // (checked against the code before the fix: slot(s) == slot(t), valid).
    ir::Builder b("late_write");
    for (auto name : {"s", "r", "t", "y"}) b.tensor(name, f32, {4});
    b.input("x").node("S", {"x"}, {"s"}).node("R", {"s"}, {"r"}).node("W", {"r"}, {"v", "t"});
    b.node("Y", {"t"}, {"y"}).output("y");
    const auto g = b.build();
    orm::ViewMap views;
    views.insert(test::id(g, "v"), test::id(g, "s"));
    auto live = orm::compute_liveness(g, views);
    REQUIRE(live.has_value());
    CHECK(test::iv(*live, g, "s") == orm::Interval{0, 2});  // node 2 writes its bytes through v
    const auto plan = test::plan_ok(g, views);
    CHECK(test::slot(g, plan, "t") != test::slot(g, plan, "s"));

    // validate_liveness checks productions independently: a liveness that
    // stops s at its last direct read is caught at the view's producer.
    auto stale = *live;
    stale.intervals[test::id(g, "s")].use_end = 1;
    auto r = orm::validate_liveness(g, views, stale);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().kind == ValidateError::Kind::view_outside_source);
    CHECK(r.error().value == test::id(g, "v"));
    CHECK(r.error().other == test::id(g, "s"));
    CHECK(r.error().node == 2);
    // A slot plan made from that stale liveness puts t onto s, and validate
    // (which recomputes the liveness) rejects it.
    auto worse = orm::plan_activations(stale, four);
    REQUIRE(worse.has_value());
    REQUIRE(worse->plan().slot_of(test::id(g, "t")) == worse->plan().slot_of(test::id(g, "s")));
    auto v = orm::validate(g, views, worse->plan(), four);
    REQUIRE_FALSE(v.has_value());
    CHECK(v.error().kind == ValidateError::Kind::slot_conflict);
    // The same for offsets: the stale arena puts t on s's bytes, validate_arena rejects it.
    auto arena = orm::plan_arena(stale, four, orm::ArenaOptions{1});
    REQUIRE(arena.has_value());
    REQUIRE(arena->plan().offset_of(test::id(g, "t")) == arena->plan().offset_of(test::id(g, "s")));
    auto rejected = orm::validate_arena(g, views, arena->plan(), four, 1);
    REQUIRE_FALSE(rejected.has_value());
    CHECK(rejected.error().kind == ValidateError::Kind::offset_overlap);
}

TEST_CASE("a graph output nobody produces is an error, also through a view") {
    IdGraph<std::uint32_t> g;
    g.values = 3;
    g.inputs = {0};
    g.in = {{0}};
    g.out = {{1}};
    g.outputs = {1, 2};  // 2: no node, no input, no weight
    auto e = plan_error(g);
    CHECK(e.kind == PlanError::Kind::output_not_produced);
    CHECK(e.value == 2);
    CHECK(e.message() == "graph output value 2 is produced by no node and is no graph input or initializer");
    g.outputs = {1, 0};  // an input is fine
    CHECK(orm::plan_activations(g, {}, four).has_value());
}

// ---- validate believes nothing the plan says about itself ----

TEST_CASE("validate_arena takes the alignment the caller needs, not the plan's") {
    ir::Builder b("align");
    b.tensor("a", f32, {16}).tensor("b", f32, {16}).tensor("c", f32, {16});
    b.input("x").node("A", {"x"}, {"a"}).node("B", {"a"}, {"b"}).node("C", {"b"}, {"c"}).output("c");
    const auto g = b.build();
    const auto oracle = orm::static_size_oracle(g);
    auto status = orm::plan_arena(g, {}, oracle);  // aligned to 64
    REQUIRE(status.has_value());
    auto p = status->plan();
    REQUIRE(orm::validate_arena(g, {}, p, oracle, 64).has_value());
    p.alignment = 1;  // the plan now claims alignment 1 ...
    p.offsets[test::id(g, "c")] = p.arena_bytes + 13;  // ... and moves an owner 13 bytes past an aligned spot
    p.arena_bytes += 13 + 64;
    auto r = orm::validate_arena(g, {}, p, oracle, 64);
    REQUIRE_FALSE(r.has_value());
    CHECK(r.error().kind == ValidateError::Kind::misaligned_offset);
    CHECK(r.error().value == test::id(g, "c"));
    CHECK(orm::validate_arena(g, {}, p, oracle, 1).has_value());  // a caller that needs no alignment
}

// ---- ids as the caller wrote them ----

#if defined(__SIZEOF_INT128__)
__extension__ using u128 = unsigned __int128;

// A template, so that a mode where __int128 is not integral (-std=c++20
// with strict ISO) discards the body instead of failing to compile it.
template <class U>
void check_wide_ids() {
    if constexpr (std::is_integral_v<U>) {  // g++/clang with GNU extensions (-std=gnu++20)
        IdGraph<U> g;
        g.values = 3;
        g.inputs = {0};
        g.in = {{0}, {(U{1} << 64) + 1}};  // 2^64 + 1: not value 1
        g.out = {{1}, {2}};
        g.outputs = {2};
        const auto e = plan_error(g);
        CHECK(e.kind == PlanError::Kind::value_out_of_range);
        CHECK(e.node == 1);
        CHECK(e.value_form == PlanError::IdForm::wide);
        CHECK(e.value == 1);
        CHECK(e.message() == "node 1 names a value id wider than 64 bits (low 64 bits 1), which is not a value id of the graph");
        CHECK(orm::topological_order(g).error() == e);
        g.in[1] = {1};
        CHECK(orm::plan_activations(g, {}, four).has_value());
    } else {
        SUCCEED("no 128-bit integral type in this mode");
    }
}

TEST_CASE("wide ids are compared in their own width, never narrowed") { check_wide_ids<u128>(); }
#endif

TEST_CASE("negative ids are printed as the caller named them") {
    IdGraph<long long> g;
    g.values = 2;
    g.inputs = {0};
    g.in = {{-1}};
    g.out = {{1}};
    g.outputs = {1};
    auto e = plan_error(g);
    CHECK(e.value_form == PlanError::IdForm::negative);
    CHECK(e.message() == "node 0 names value -1, which is not a value id of the graph");
    g.in = {{std::numeric_limits<long long>::min()}};
    CHECK(plan_error(g).message() == "node 0 names value -9223372036854775808, which is not a value id of the graph");
    g.in = {{0}};
    g.outputs = {-7};
    CHECK(plan_error(g).message() == "the graph's input/output list names value -7, which is not a value id of the graph");
}

TEST_CASE("a model planned in an order and its order search name bad ids as the caller wrote them") {
    // PlannedModel and memory_aware_order read the graph once and put the
    // dense copy in order (detail::reorder): an id outside the graph keeps
    // its form there, as reading the graph in that order (OrderedGraph) does.
    IdGraph<long long> g;
    g.values = 4;
    g.inputs = {0};
    g.in = {{0}, {1, -3}, {0}};  // node 1 reads value -3
    g.out = {{1}, {2}, {3}};
    g.outputs = {2, 3};
    const std::vector<orm::NodeIndex> order{0, 2, 1};
    const auto ordered = orm::in_order(g, order);
    REQUIRE(ordered.has_value());
    const auto expected = orm::plan_arena(*ordered, {}, four);
    REQUIRE_FALSE(expected.has_value());
    CHECK(expected.error().message() == "node 2 names value -3, which is not a value id of the graph");  // node 2: position 2
    const auto model = orm::PlannedModel::create(g, {}, {}, {}, order);
    REQUIRE_FALSE(model.has_value());
    CHECK(model.error() == expected.error());
    CHECK(orm::memory_aware_order(g, {}, four).error() == plan_error(g));

    // validate against such a graph: the error validate_arena gives on it in that order.
    IdGraph<long long> good = g;
    good.in[1] = {1};
    auto planned = orm::PlannedModel::create(good, {}, {}, {}, order);
    REQUIRE(planned.has_value());
    REQUIRE(planned->plan(four).has_value());
    CHECK(planned->validate(good, four).has_value());
    const auto refused = planned->validate(g, four);
    REQUIRE_FALSE(refused.has_value());
    CHECK(refused.error() == orm::validate_arena(*ordered, {}, planned->arena(), four, 64).error());
    CHECK(refused.error().message().find("-3") != std::string::npos);
}

TEST_CASE("a graph read once and put in order is the graph read in that order") {
    // detail::reorder against detail::flatten of OrderedGraph, list by list,
    // with ids outside the graph compared by what they name.
    IdGraph<long long> g;
    g.values = 6;
    g.inputs = {0, 9};
    g.in = {{0}, {1, -2}, {0, 1}, {7, 3}, {2, 4}};
    g.out = {{1}, {2}, {3}, {4, -5}, {5}};
    g.outputs = {5, 11};
    const auto named = [](const orm::detail::DenseGraph& d, std::span<const ValueId> ids, orm::NodeIndex node) {
        std::vector<std::string> out;
        for (ValueId x : ids) out.push_back(x < d.value_count() ? std::to_string(x) : d.out_of_range(x, node).message());
        return out;
    };
    orm::detail::DenseGraph read, reordered;
    REQUIRE(orm::detail::flatten(g, read).has_value());
    for (const std::vector<orm::NodeIndex>& order :
         {std::vector<orm::NodeIndex>{0, 1, 2, 3, 4}, {4, 3, 2, 1, 0}, {2, 0, 4, 1, 3}, {1, 3, 0, 4, 2}}) {
        const auto ordered = orm::in_order(g, order);
        REQUIRE(ordered.has_value());
        orm::detail::DenseGraph expected;
        REQUIRE(orm::detail::flatten(*ordered, expected).has_value());
        orm::detail::reorder(read, order, reordered);
        REQUIRE(reordered.node_count() == expected.node_count());
        CHECK(reordered.value_count() == expected.value_count());
        CHECK(reordered.initializer == expected.initializer);
        CHECK(named(reordered, reordered.graph_inputs(), orm::no_node) == named(expected, expected.graph_inputs(), orm::no_node));
        CHECK(named(reordered, reordered.graph_outputs(), orm::no_node) ==
              named(expected, expected.graph_outputs(), orm::no_node));
        for (std::size_t k = 0; k < expected.node_count(); ++k) {
            const auto n = static_cast<orm::NodeIndex>(k);
            CHECK(named(reordered, reordered.node_inputs(k), n) == named(expected, expected.node_inputs(k), n));
            CHECK(named(reordered, reordered.node_outputs(k), n) == named(expected, expected.node_outputs(k), n));
        }
    }
    CHECK(named(reordered, reordered.node_outputs(1), 1) ==
          std::vector<std::string>{"4", "node 1 names value -5, which is not a value id of the graph"});
}

TEST_CASE("a value or node count past max_graph_ids is refused before anything is allocated") {
    struct Huge {
        std::int64_t values;
        std::size_t value_count() const { return static_cast<std::size_t>(values); }
        std::size_t node_count() const { return 1; }
        std::vector<std::uint32_t> node_inputs(std::size_t) const { return {}; }
        std::vector<std::uint32_t> node_outputs(std::size_t) const { return {0}; }
        std::vector<std::uint32_t> graph_inputs() const { return {}; }
        std::vector<std::uint32_t> graph_outputs() const { return {}; }
        bool is_initializer(ValueId) const { return false; }
    };
    for (std::int64_t n : {std::int64_t{4294967292}, std::int64_t{orm::max_graph_ids} + 1, std::int64_t{-1}}) {
        const Huge g{n};
        CHECK(plan_error(g).kind == PlanError::Kind::graph_too_large);
        CHECK(orm::topological_order(g).error().kind == PlanError::Kind::graph_too_large);
        CHECK(orm::validate(g, {}, orm::ActivationPlan{}, four).error().plan_error.kind == PlanError::Kind::graph_too_large);
    }
    CHECK(orm::plan_activations(Huge{1}, {}, four).has_value());
}

// ---- ranges that change between calls ----

TEST_CASE("a node_inputs that returns other ids on every call cannot make the planner read out of bounds") {
    // Each call returns a longer list than the last (a generator-like adaptor).
    struct Unstable {
        mutable std::uint32_t calls = 0;
        std::size_t value_count() const { return 4; }
        std::size_t node_count() const { return 3; }
        std::vector<std::uint32_t> node_inputs(std::size_t n) const {
            ++calls;
            std::vector<std::uint32_t> ids;
            for (std::uint32_t k = 0; k < calls % 5; ++k) ids.push_back(static_cast<std::uint32_t>(n));
            return ids;
        }
        std::vector<std::uint32_t> node_outputs(std::size_t n) const { return {static_cast<std::uint32_t>(n + 1)}; }
        std::vector<std::uint32_t> graph_inputs() const { return {0}; }
        std::vector<std::uint32_t> graph_outputs() const { return {3}; }
        bool is_initializer(ValueId) const { return false; }
    };
    for (int round = 0; round < 20; ++round) {
        const Unstable g;
        g.calls = static_cast<std::uint32_t>(round);
        auto order = orm::topological_order(g);  // under ASan: no out-of-bounds write, no empty optional
        if (order) CHECK(order->size() == 3);
        auto status = orm::plan_activations(g, {}, four);
        if (status && status->is_complete()) (void)orm::validate(g, {}, status->plan(), four);
    }
}

// ---- references are never kept to temporaries ----

template <class G>
concept orders_temporary = requires(G&& g) { orm::in_order(std::move(g), std::vector<orm::NodeIndex>{}); };
template <class G>
concept sorts_temporary = requires(G&& g) { orm::in_topological_order(std::move(g)); };
static_assert(!orders_temporary<ir::Graph>);
static_assert(!sorts_temporary<ir::Graph>);
static_assert(requires(const ir::Graph& g) { orm::in_topological_order(g); });
template <class G>
concept sizes_temporary = requires(G&& g, const orm::SymbolBounds& b) { orm::bounded_size_oracle(std::move(g), b); };
template <class G>
concept sizes_statically_temporary = requires(G&& g) { orm::static_size_oracle(std::move(g)); };
static_assert(!sizes_temporary<ir::Graph> && !sizes_statically_temporary<ir::Graph>);

// ---- oracles return byte counts ----

static_assert(orm::size_oracle<decltype(four)>);
static_assert(orm::size_oracle<std::optional<std::uint32_t> (*)(ValueId)>);
static_assert(orm::size_oracle<std::size_t (*)(ValueId)>);  // every size known
static_assert(!orm::size_oracle<int (*)(ValueId)>);           // -1 would be SIZE_MAX bytes
static_assert(!orm::size_oracle<std::optional<int> (*)(ValueId)>);
static_assert(!orm::size_oracle<double (*)(ValueId)>);        // 2.5 would be 2 bytes
static_assert(!orm::size_oracle<std::optional<double> (*)(ValueId)>);
static_assert(!orm::size_oracle<bool (*)(ValueId)>);

// ---- anything handed back in is checked ----

TEST_CASE("a tampered liveness is an error value everywhere it is taken, never an out-of-bounds read") {
    ir::Builder b("chain");
    b.input("x").node("A", {"x"}, {"a"}).node("B", {"a"}, {"b"}).node("C", {"b"}, {"c"}).output("c");
    const auto g = b.build();
    const auto good = *orm::compute_liveness(g, {});
    REQUIRE(orm::check_liveness(good).has_value());
    const ValueId a = test::id(g, "a");

    std::vector<std::pair<const char*, orm::Liveness>> tampered;
    auto t = good;
    t.intervals[a].use_end = 1000;  // past last_position
    tampered.emplace_back("an interval past the last position", t);
    t = good;
    t.intervals[a].def = 2;  // after its use_end
    tampered.emplace_back("def after use_end", t);
    t = good;
    t.roots[a] = 99;
    tampered.emplace_back("a root out of range", t);
    t = good;
    t.owners.push_back(a);
    tampered.emplace_back("an owner twice", t);
    t = good;
    t.allocation_order.pop_back();
    tampered.emplace_back("an allocation order short of the owners", t);
    t = good;
    std::swap(t.owners[0], t.owners[1]);
    tampered.emplace_back("owners out of (def, id) order", t);
    t = good;
    t.intervals.pop_back();
    tampered.emplace_back("tables of different sizes", t);
    t = good;
    t.last_position = std::numeric_limits<orm::NodeIndex>::max() - 1;
    tampered.emplace_back("a last position past max_graph_ids", t);

    for (const auto& [what, live] : tampered) {
        INFO(what);
        CHECK(orm::check_liveness(live).error().kind == PlanError::Kind::bad_liveness);
        CHECK(orm::plan_activations(live, four).error().kind == PlanError::Kind::bad_liveness);
        CHECK(orm::plan_arena(live, four).error().kind == PlanError::Kind::bad_liveness);
        CHECK_FALSE(orm::lower_bounds(live, four).has_value());
        CHECK(orm::arena_from_slots(live, orm::ActivationPlan{}).error().kind == PlanError::Kind::bad_liveness);
        orm::ActivationPlanner planner(live);
        orm::ActivationPlan out;
        CHECK(planner.plan(four, out).error().kind == PlanError::Kind::bad_liveness);
        CHECK(orm::validate_liveness(g, {}, live).error().plan_error.kind == PlanError::Kind::bad_liveness);
    }
}

// ---- limits that read as "no limit" ----

TEST_CASE("a time limit of microseconds::max() means no limit, without overflow") {
    ir::Builder b("limits");
    b.tensor("a", f32, {16}).tensor("b", f32, {32}).tensor("c", f32, {8}).tensor("d", f32, {24});
    b.input("x").node("A", {"x"}, {"a"}).node("B", {"x"}, {"b"}).node("C", {"a"}, {"c"});
    b.node("D", {"b", "c"}, {"d"}).output("d");
    const auto g = b.build();
    orm::ArenaOptions o;
    o.alignment = 1;
    o.search_iterations = 4;
    o.exact_nodes = 1000;
    o.time_limit = std::chrono::microseconds::max();  // UBSan: no signed overflow in the deadline
    auto limited = orm::plan_arena(g, {}, orm::static_size_oracle(g), {}, o);
    o.time_limit = std::chrono::microseconds{0};
    auto unlimited = orm::plan_arena(g, {}, orm::static_size_oracle(g), {}, o);
    REQUIRE(limited.has_value());
    REQUIRE(unlimited.has_value());
    CHECK(limited->plan() == unlimited->plan());
    o.time_limit = std::chrono::microseconds::min();  // negative: no limit either
    CHECK(orm::plan_arena(g, {}, orm::static_size_oracle(g), {}, o)->plan() == unlimited->plan());
    o.time_limit_clock = orm::TimeLimitClock::thread_cpu;  // the same on the thread's CPU clock
    for (const auto limit : {std::chrono::microseconds::max(), std::chrono::microseconds::min()}) {
        o.time_limit = limit;
        CHECK(orm::plan_arena(g, {}, orm::static_size_oracle(g), {}, o)->plan() == unlimited->plan());
    }
}

// ---- the slot lower bound is O(n log n) ----

TEST_CASE("the slot lower bound: exact figures, also with 200k graph outputs") {
    // Sizes 4, 8, 2 live together at node 2, then 6 alone: the k-th largest
    // over positions is 8, 4, 2, summed 14.
    ir::Builder b("kth");
    b.tensor("a", ElementType::uint8, {4}).tensor("b", ElementType::uint8, {8}).tensor("c", ElementType::uint8, {2});
    b.tensor("d", ElementType::uint8, {6});
    b.input("x").node("A", {"x"}, {"a"}).node("B", {"x"}, {"b"}).node("C", {"a", "b"}, {"c"}).node("D", {"c"}, {"d"});
    b.output("d");
    const auto g = b.build();
    auto live = orm::compute_liveness(g, {});
    const auto bounds = orm::lower_bounds(*live, orm::static_size_oracle(g));
    REQUIRE(bounds.has_value());
    CHECK(bounds->slot_bytes == 14);
    CHECK(bounds->offset_bytes == 14);

    // Every node writes a graph output: 200k values all live to the end.
    // The old bound walked every position over the live set (8-10 s).
    IdGraph<std::uint32_t> wide_graph;
    constexpr std::uint32_t n = 200000;
    wide_graph.values = n;
    for (std::uint32_t k = 0; k < n; ++k) {
        wide_graph.in.push_back({});
        wide_graph.out.push_back({k});
        wide_graph.outputs.push_back(k);
    }
    auto wl = orm::compute_liveness(wide_graph, {});
    REQUIRE(wl.has_value());
    const auto sizes = [](ValueId v) { return std::optional<std::size_t>(1 + v % 7); };
    const auto wb = orm::lower_bounds(*wl, sizes);  // milliseconds now; bench prints the timing
    REQUIRE(wb.has_value());
    std::size_t total = 0;
    for (std::uint32_t k = 0; k < n; ++k) total += 1 + k % 7;
    CHECK(wb->slot_bytes == total);  // all live together at the last node
    CHECK(wb->offset_bytes == total);
}
