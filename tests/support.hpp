// Shared by the tests: the Catch2 header of whichever version is installed,
// and small helpers over the in-repo IR.
#pragma once

#if ORM_CATCH2_MAJOR >= 3
#include <catch2/catch_message.hpp>  // INFO
#include <catch2/catch_test_macros.hpp>
#else
#include <catch2/catch.hpp>
#endif

#include <onnx_runtime_memory/onnx_runtime_memory.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "ir/graph.hpp"

namespace orm = onnx_runtime_memory;
using orm::ElementType;
using orm::ValueId;

namespace test {

inline constexpr auto f32 = ElementType::float32;

// Plans statically, requires a complete plan that validates, returns it.
inline orm::ActivationPlan plan_ok(const ir::Graph& g, const orm::ViewMap& views = {},
                                   const orm::PlanOptions& options = {}) {
    auto status = orm::plan_activations_static(g, views, options);
    REQUIRE(status.has_value());
    REQUIRE(status->is_complete());
    auto ok = orm::validate_static(g, views, status->plan(), options);
    INFO((ok ? std::string("valid") : ok.error().message()));
    REQUIRE(ok.has_value());
    return status->plan();
}

// The slot of a named value (-1 when it has none), for terse assertions.
inline long slot(const ir::Graph& g, const orm::ActivationPlan& p, std::string_view name) {
    const auto v = g.find(name);
    REQUIRE(v.has_value());
    const auto s = p.slot_of(*v);
    return s ? static_cast<long>(s->value) : -1L;
}

inline std::vector<std::size_t> capacities(const orm::ActivationPlan& p) {
    std::vector<std::size_t> c;
    for (const auto& s : p.slots) c.push_back(s.capacity);
    return c;
}

inline orm::Interval iv(const orm::Liveness& live, const ir::Graph& g, std::string_view name) {
    const auto v = g.find(name);
    REQUIRE(v.has_value());
    const auto i = live.interval(*v);
    REQUIRE(i.has_value());
    return *i;
}

// Three outputs of one node (400, 800, 400 bytes) read by a fourth value's
// node (1200 bytes), then two 400-byte values in a chain: ties and best fit.
inline ir::Graph best_fit_graph() {
    ir::Builder b("best_fit");
    b.tensor("p", f32, {100}).tensor("q", f32, {200}).tensor("r", f32, {100});
    b.tensor("s", f32, {300}).tensor("t", f32, {100}).tensor("u", f32, {100});
    b.input("x").node("Split", {"x"}, {"p", "q", "r"}).node("Sum", {"p", "q", "r"}, {"s"});
    b.node("A", {"s"}, {"t"}).node("B", {"t"}, {"u"}).output("u");
    return b.build();
}

inline ValueId id(const ir::Graph& g, std::string_view name) {
    const auto v = g.find(name);
    REQUIRE(v.has_value());
    return *v;
}

// x -> D -> d (300 bytes, read last), A -> a (200) -> Reshape -> b (a view of
// a) -> C -> c (200) -> Y(c, d) -> y (100). Positions D 0, A 1, Reshape 2,
// C 3, Y 4; aligned to 64: d 320, a 256, c 256, y 128. The spaces' and the
// spills' tests share it.
inline ir::Graph chain_with_long_lived() {
    ir::Builder b("long_lived");
    b.tensor("x", f32, {25}).tensor("d", f32, {75}).tensor("a", f32, {50});
    b.tensor("b", f32, {50}).tensor("c", f32, {50}).tensor("y", f32, {25});
    b.input("x").node("D", {"x"}, {"d"}).node("A", {"x"}, {"a"}).node("Reshape", {"a"}, {"b"});
    b.node("C", {"b"}, {"c"}).node("Y", {"c", "d"}, {"y"}).output("y");
    return b.build();
}

}  // namespace test
