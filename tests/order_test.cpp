// SPEC section 7: the execution order is the caller's; helpers find and
// present one for graphs stored out of order.
#include "support.hpp"

using orm::NodeIndex;
using orm::PlanError;
using test::f32;

namespace {

// Stored out of order: node 0 reads b (made by node 2), node 2 reads a (node 1).
ir::Graph shuffled() {
    ir::Builder b("shuffled");
    b.tensor("a", f32, {4}).tensor("b", f32, {4}).tensor("c", f32, {4}).tensor("d", f32, {8});
    b.input("x").node("C", {"b"}, {"c"}).node("A", {"x"}, {"a"}).node("B", {"a"}, {"b"});
    b.node("D", {"x"}, {"d"}).output("c").output("d");
    return b.build();
}

}  // namespace

TEST_CASE("topological_order: Kahn's algorithm, smallest ready node first") {
    const auto g = shuffled();
    auto order = orm::topological_order(g);
    REQUIRE(order.has_value());
    CHECK(*order == std::vector<NodeIndex>{1, 2, 0, 3});  // A, B, C, then D (ready from the start, larger index)

    // Planning the stored order is an error; the topological one plans and validates.
    auto stored = orm::plan_activations_static(g, {});
    REQUIRE_FALSE(stored.has_value());
    CHECK(stored.error() == PlanError{PlanError::Kind::used_before_produced, test::id(g, "b"), 0});

    auto ordered = orm::in_topological_order(g);
    REQUIRE(ordered.has_value());
    CHECK(ordered->node_count() == 4);
    auto status = orm::plan_activations_static(*ordered, {});
    REQUIRE(status.has_value());
    REQUIRE(status->is_complete());
    CHECK(orm::validate_static(*ordered, {}, status->plan()).has_value());
    // a [0,1], b [1,2], c [2,3] (output), d [3,3]: c reuses a's slot, d (32 bytes) opens one.
    CHECK(status->plan().peak_bytes == 16 + 16 + 32);
}

TEST_CASE("topological_order keeps a graph that is already in order as it is") {
    ir::Builder b("in_order");
    b.input("x").node("A", {"x"}, {"a"}).node("B", {"x"}, {"b"}).node("C", {"a", "b"}, {"c"}).output("c");
    auto order = orm::topological_order(b.build());
    REQUIRE(order.has_value());
    CHECK(*order == std::vector<NodeIndex>{0, 1, 2});
}

TEST_CASE("topological_order reports a cycle, and bad ids") {
    ir::Builder b("cycle");
    b.input("x").node("A", {"x", "c"}, {"a"}).node("B", {"a"}, {"b"}).node("C", {"b"}, {"c"}).node("D", {"x"}, {"d"});
    auto order = orm::topological_order(b.build());
    REQUIRE_FALSE(order.has_value());
    CHECK(order.error() == PlanError{PlanError::Kind::cycle, orm::no_value, 0});

    ir::Builder s("self");
    s.input("x").node("D", {"x"}, {"d"}).node("A", {"a"}, {"a"});
    auto self = orm::topological_order(s.build());
    REQUIRE_FALSE(self.has_value());
    CHECK(self.error().node == 1);

    auto g = shuffled();
    g.add_node("Z", std::vector<ValueId>{77}, std::vector<ValueId>{});
    auto bad = orm::topological_order(g);
    REQUIRE_FALSE(bad.has_value());
    CHECK(bad.error() == PlanError{PlanError::Kind::value_out_of_range, 77, 4});
}

TEST_CASE("in_order accepts only permutations of the nodes") {
    const auto g = shuffled();
    auto repeated = orm::in_order(g, {1, 2, 2, 3});
    REQUIRE_FALSE(repeated.has_value());
    CHECK(repeated.error() == PlanError{PlanError::Kind::bad_order, orm::no_value, 2});
    auto missing = orm::in_order(g, {1, 2, 0});
    REQUIRE_FALSE(missing.has_value());
    CHECK(missing.error() == PlanError{PlanError::Kind::bad_order, orm::no_value, 3});
    auto outside = orm::in_order(g, {1, 2, 0, 9});
    REQUIRE_FALSE(outside.has_value());
    CHECK(outside.error().node == 9);

    auto ok = orm::in_order(g, {1, 3, 2, 0});
    REQUIRE(ok.has_value());
    CHECK(ok->order() == std::vector<NodeIndex>{1, 3, 2, 0});
    CHECK(&ok->base() == &g);
}
