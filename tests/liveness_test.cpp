// SPEC sections 2 and 3: who owns a buffer and over which interval, and the
// order checks of section 7.
#include <limits>

#include "support.hpp"

using orm::Interval;
using orm::PlanError;
using test::f32;
using test::iv;

namespace {

orm::Liveness live_ok(const ir::Graph& g, const orm::ViewMap& views = {}, orm::PlanOptions options = {}) {
    auto live = orm::compute_liveness(g, views, options);
    INFO((live ? std::string() : live.error().message()));
    REQUIRE(live.has_value());
    return *live;
}

PlanError live_error(const ir::Graph& g, const orm::ViewMap& views = {}) {
    auto live = orm::compute_liveness(g, views);
    REQUIRE_FALSE(live.has_value());
    return live.error();
}

// x -> A -> a -> B -> b -> C -> c (output)
ir::Graph chain() {
    ir::Builder b("chain");
    b.tensor("x", f32, {4}).input("x");
    b.tensor("a", f32, {4}).tensor("b", f32, {4}).tensor("c", f32, {4});
    b.node("A", {"x"}, {"a"}).node("B", {"a"}, {"b"}).node("C", {"b"}, {"c"}).output("c");
    return b.build();
}

}  // namespace

TEST_CASE("a chain: each value lives from its producer to its reader, the output to the end") {
    const auto g = chain();
    const auto live = live_ok(g);
    CHECK(live.last_position == 2);
    CHECK(iv(live, g, "a") == Interval{0, 1});
    CHECK(iv(live, g, "b") == Interval{1, 2});
    CHECK(iv(live, g, "c") == Interval{2, 2});
    CHECK_FALSE(live.is_owner(test::id(g, "x")));  // inputs are outside the arena by default
    CHECK(live.owners == std::vector<ValueId>{test::id(g, "a"), test::id(g, "b"), test::id(g, "c")});
}

TEST_CASE("a diamond and a residual skip keep the shared value to its last reader") {
    ir::Builder b("diamond");
    b.input("x").node("A", {"x"}, {"a"}).node("B", {"a"}, {"b"}).node("C", {"a"}, {"c"});
    b.node("D", {"b", "c"}, {"d"}).node("E", {"d", "a"}, {"e"}).output("e");  // E reads a again: a skip
    const auto g = b.build();
    const auto live = live_ok(g);
    CHECK(iv(live, g, "a") == Interval{0, 4});
    CHECK(iv(live, g, "b") == Interval{1, 3});
    CHECK(iv(live, g, "c") == Interval{2, 3});
    CHECK(iv(live, g, "d") == Interval{3, 4});
    CHECK(iv(live, g, "e") == Interval{4, 4});
}

TEST_CASE("views fold into their root owner, through chains of views") {
    // a -> Reshape -> v -> Reshape -> w; B reads v, C reads w; D reads b.
    ir::Builder b("views");
    b.input("x").node("A", {"x"}, {"a"}).node("Reshape", {"a"}, {"v"}).node("Reshape", {"v"}, {"w"});
    b.node("B", {"v"}, {"b"}).node("C", {"w", "b"}, {"c"}).node("D", {"c"}, {"d"}).output("d");
    const auto g = b.build();
    orm::ViewMap views;
    views.insert(test::id(g, "v"), test::id(g, "a"));
    views.insert(test::id(g, "w"), test::id(g, "v"));

    const auto without = live_ok(g);
    CHECK(iv(without, g, "a") == Interval{0, 1});
    CHECK(iv(without, g, "v") == Interval{1, 3});

    const auto live = live_ok(g, views);
    CHECK(iv(live, g, "a") == Interval{0, 4});  // w is read by C at 4
    CHECK_FALSE(live.is_owner(test::id(g, "v")));
    CHECK_FALSE(live.is_owner(test::id(g, "w")));
    CHECK(live.owners.size() == 4);  // a, b, c, d
}

TEST_CASE("an output that is a view keeps its root alive to the end") {
    ir::Builder b("out_view");
    b.input("x").node("A", {"x"}, {"a"}).node("Flatten", {"a"}, {"v"}).node("B", {"a"}, {"b"});
    b.node("C", {"b"}, {"c"}).output("v").output("c");
    const auto g = b.build();
    orm::ViewMap views;
    views.insert(test::id(g, "v"), test::id(g, "a"));
    const auto live = live_ok(g, views);
    CHECK(iv(live, g, "a") == Interval{0, 3});
    CHECK(iv(live, g, "b") == Interval{2, 3});
}

TEST_CASE("views of initializers and of excluded inputs own nothing and extend nothing") {
    ir::Builder b("weights");
    b.input("x").weight("w").node("Reshape", {"w"}, {"wv"}).node("Reshape", {"x"}, {"xv"});
    b.node("A", {"xv", "wv"}, {"a"}).node("B", {"a"}, {"b"}).node("C", {"b", "xv"}, {"c"}).output("c");
    const auto g = b.build();
    orm::ViewMap views;
    views.insert(test::id(g, "wv"), test::id(g, "w"));
    views.insert(test::id(g, "xv"), test::id(g, "x"));
    const auto live = live_ok(g, views);
    CHECK(live.owners.size() == 3);  // a, b, c
    CHECK_FALSE(live.is_owner(test::id(g, "w")));
    CHECK_FALSE(live.is_owner(test::id(g, "x")));

    // With inputs in the arena, x is an owner from 0, held by its view to C at 4.
    const auto with_inputs = live_ok(g, views, orm::PlanOptions{true});
    CHECK(iv(with_inputs, g, "x") == Interval{0, 4});
    CHECK_FALSE(with_inputs.is_owner(test::id(g, "w")));
}

TEST_CASE("graph inputs join the arena only when asked, initializers never do") {
    ir::Builder b("inputs");
    b.input("x").input("unused").input("w").weight("w").node("A", {"x", "w"}, {"a"}).node("B", {"a"}, {"b"});
    b.output("b");
    const auto g = b.build();
    CHECK(live_ok(g).owners.size() == 2);
    const auto live = live_ok(g, {}, orm::PlanOptions{true});
    CHECK(iv(live, g, "x") == Interval{0, 0});
    CHECK(iv(live, g, "unused") == Interval{0, 0});
    CHECK_FALSE(live.is_owner(test::id(g, "w")));  // an initializer listed as an input too
    // Inputs produced by no node are allocated first, by id, then node outputs.
    CHECK(live.allocation_order ==
          std::vector<ValueId>{test::id(g, "x"), test::id(g, "unused"), test::id(g, "a"), test::id(g, "b")});
}

TEST_CASE("dead values, values produced by a node that are initializers, and an empty graph") {
    ir::Builder b("dead");
    b.input("x").weight("k").node("A", {"x"}, {"a", "dead"}).node("B", {"a"}, {"b", "k"}).output("b");
    const auto g = b.build();
    const auto live = live_ok(g);
    CHECK(iv(live, g, "dead") == Interval{0, 0});
    CHECK_FALSE(live.is_owner(test::id(g, "k")));  // rule 1 comes before rule 3

    ir::Builder e("empty");
    e.input("x").output("x");
    const auto empty = e.build();
    const auto none = live_ok(empty);
    CHECK(none.last_position == 0);
    CHECK(none.owners.empty());
    const auto in = live_ok(empty, {}, orm::PlanOptions{true});
    CHECK(iv(in, empty, "x") == Interval{0, 0});
}

TEST_CASE("owners are listed in (def, id) order, allocation follows output order") {
    ir::Builder b("order");
    b.input("x").node("Split", {"x"}, {"hi", "lo"});  // hi gets the smaller id
    b.graph().value("late");                          // an id created before its producer
    b.node("Split", {"hi", "lo"}, {"late2", "late"}).output("late").output("late2");
    const auto g = b.build();
    const auto live = live_ok(g);
    const auto hi = test::id(g, "hi"), lo = test::id(g, "lo"), late = test::id(g, "late"),
               late2 = test::id(g, "late2");
    REQUIRE(late < late2);
    CHECK(live.owners == std::vector<ValueId>{hi, lo, late, late2});
    CHECK(live.allocation_order == std::vector<ValueId>{hi, lo, late2, late});
}

TEST_CASE("the node order must be runnable: errors name the node and the value") {
    SECTION("a value read before it is produced") {
        ir::Builder b("early");
        b.input("x").node("B", {"a"}, {"b"}).node("A", {"x"}, {"a"}).output("b");
        const auto e = live_error(b.build());
        CHECK(e == PlanError{PlanError::Kind::used_before_produced, 1, 0});  // a is value 1
        CHECK(e.message() == "node 0 reads value 1 before any node produces it");
    }
    SECTION("a value nothing produces") {
        ir::Builder b("orphan");
        b.input("x").node("A", {"x", "ghost"}, {"a"}).output("a");
        CHECK(live_error(b.build()) == PlanError{PlanError::Kind::used_before_produced, 1, 0});
    }
    SECTION("a node reading its own output") {
        ir::Builder b("self");
        b.input("x").node("A", {"x", "a"}, {"a"}).output("a");
        CHECK(live_error(b.build()).kind == PlanError::Kind::used_before_produced);
    }
    SECTION("a value produced twice") {
        ir::Builder b("twice");
        b.input("x").node("A", {"x"}, {"a"}).node("B", {"x"}, {"a"}).output("a");
        CHECK(live_error(b.build()) == PlanError{PlanError::Kind::produced_twice, 1, 1});
    }
    SECTION("a value listed twice among one node's outputs") {
        ir::Builder b("twice_in_one");
        b.input("x").node("A", {"x"}, {"a", "a"}).output("a");
        CHECK(live_error(b.build()) == PlanError{PlanError::Kind::produced_twice, 1, 0});
    }
    SECTION("ids out of range, wherever they appear") {
        auto g = chain();
        const ValueId bad = 99;
        g.add_node("Z", std::vector<ValueId>{bad}, std::vector<ValueId>{});
        CHECK(live_error(g) == PlanError{PlanError::Kind::value_out_of_range, 99, 3});
        auto h = chain();
        h.add_node("Z", std::vector<ValueId>{}, std::vector<ValueId>{bad});
        CHECK(live_error(h) == PlanError{PlanError::Kind::value_out_of_range, 99, 3});
        auto o = chain();
        o.mark_output(bad);
        CHECK(live_error(o) == PlanError{PlanError::Kind::value_out_of_range, 99, orm::no_node});
    }
    SECTION("a view read before its source is produced") {
        ir::Builder b("view_early");
        b.input("x").node("A", {"x"}, {"a"}).node("B", {"x"}, {"b"}).node("C", {"a"}, {"c"}).output("c");
        const auto g = b.build();
        orm::ViewMap views;
        views.insert(test::id(g, "a"), test::id(g, "c"));  // a made a view of a later value
        // The culprit is the edge: the value read and the root it leads to.
        // Before: used_before_produced naming c, a value node 2 never reads.
        PlanError e{PlanError::Kind::view_of_later_value, test::id(g, "a"), 2};
        e.other = test::id(g, "c");
        CHECK(live_error(g, views) == e);
        CHECK(e.message() == "node 2 reads value 1, which the view map makes a view of value 3, produced by no earlier "
                             "node (is that view edge the wrong way round?)");
    }
}

TEST_CASE("bad view maps are errors, not silence") {
    const auto g = chain();
    SECTION("a view cycle") {
        orm::ViewMap views;
        views.insert(test::id(g, "a"), test::id(g, "b"));
        views.insert(test::id(g, "b"), test::id(g, "a"));
        const auto e = live_error(g, views);
        CHECK(e.kind == PlanError::Kind::view_cycle);
        CHECK(e.value == test::id(g, "a"));
    }
    SECTION("a view of itself") {
        orm::ViewMap views;
        views.insert(test::id(g, "c"), test::id(g, "c"));
        CHECK(live_error(g, views) == PlanError{PlanError::Kind::view_cycle, test::id(g, "c"), orm::no_node});
    }
    SECTION("an edge naming values outside the graph") {
        orm::ViewMap views;
        views.insert(test::id(g, "b"), 1000);
        CHECK(live_error(g, views) == PlanError{PlanError::Kind::view_unknown_value, 1000, orm::no_node});
        orm::ViewMap views2;
        views2.insert(500, test::id(g, "b"));
        CHECK(live_error(g, views2) == PlanError{PlanError::Kind::view_unknown_value, 500, orm::no_node});
        orm::ViewMap views3;
        views3.insert(test::id(g, "b"), orm::no_value);
        CHECK(live_error(g, views3).kind == PlanError::Kind::view_unknown_value);
    }
}

TEST_CASE("a graph too large for 32-bit ids is an error") {
    struct Huge {
        std::size_t value_count() const { return std::size_t{1} << 33; }
        std::size_t node_count() const { return 0; }
        std::span<const ValueId> node_inputs(std::size_t) const { return {}; }
        std::span<const ValueId> node_outputs(std::size_t) const { return {}; }
        std::span<const ValueId> graph_inputs() const { return {}; }
        std::span<const ValueId> graph_outputs() const { return {}; }
        bool is_initializer(ValueId) const { return false; }
    };
    auto live = orm::compute_liveness(Huge{}, {});
    REQUIRE_FALSE(live.has_value());
    CHECK(live.error().kind == PlanError::Kind::graph_too_large);
}

TEST_CASE("ViewMap: insert replaces, erase removes, iteration is by view id") {
    orm::ViewMap m;
    CHECK(m.empty());
    m.insert(5, 1);
    m.insert(2, 0);
    m.insert(5, 3);
    CHECK(m.size() == 2);
    CHECK(m.source_of(5) == 3u);
    CHECK_FALSE(m.source_of(4).has_value());
    CHECK_FALSE(m.source_of(100).has_value());
    std::vector<std::pair<ValueId, ValueId>> edges;
    m.for_each([&](ValueId v, ValueId s) { edges.emplace_back(v, s); });
    CHECK(edges == std::vector<std::pair<ValueId, ValueId>>{{2, 0}, {5, 3}});
    m.erase(2);
    m.erase(2);
    CHECK(m.size() == 1);
    CHECK_FALSE(m.contains(2));
}

TEST_CASE("a graph input that a later node also produces says so, naming the producer") {
    // Before: "node 0 reads value 0 before any node produces it", about a
    // value the caller gives.
    ir::Builder b("input_written");
    b.input("x").node("A", {"x"}, {"a"}).node("B", {"a"}, {"x"}).output("a");
    const auto g = b.build();
    auto live = orm::compute_liveness(g, {});
    REQUIRE_FALSE(live.has_value());
    CHECK(live.error() == orm::PlanError{orm::PlanError::Kind::input_produced, test::id(g, "x"), 1});
    CHECK(live.error().message() ==
          "value 0 is a graph input, but node 1 also produces it, after it is first read (a value comes from the caller "
          "or from one node)");
}
