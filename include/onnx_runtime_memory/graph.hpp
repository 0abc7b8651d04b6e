// The graph concepts the planner is written against.
//
// Naming used throughout the library:
//   G        a graph type;  g  a graph (const G&)
//   T        graph_traits<G>
//   v        a value id: dense, 0 .. value_count(g) - 1
//   n        a node index: 0 .. node_count(g) - 1, in execution order
//   owner    a value that gets a buffer of its own: a value some node
//            produces that is no initializer and no view (and, with
//            PlanOptions::include_graph_inputs, a graph input)
//   view     a value that aliases another value's buffer (see view_map.hpp)
//
// A foreign IR is adapted by specialising graph_traits<G>; the primary
// template forwards to member functions of the same names, so an IR that
// already has them needs nothing.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <ranges>
#include <string_view>
#include <type_traits>

namespace onnx_runtime_memory {

using ValueId = std::uint32_t;    // dense value id
using NodeIndex = std::uint32_t;  // position in execution order

// Marks "no value" / "no node" in error values and dense tables.
inline constexpr ValueId no_value = std::numeric_limits<ValueId>::max();
inline constexpr NodeIndex no_node = std::numeric_limits<NodeIndex>::max();

// The most values, and the most nodes, a graph may have: 2^26 (67,108,864).
// The planner keeps dense tables of a few dozen bytes per value and node, so
// a larger count (a corrupt or hostile value_count) is refused with
// PlanError::graph_too_large before anything is allocated, instead of
// exhausting memory.
inline constexpr std::size_t max_graph_ids = std::size_t{1} << 26;

// The most ids a graph's lists may hold together (every node's inputs and
// outputs, the graph's inputs and outputs): 2^28, four per value at the most
// values. The planner reads the lists once into dense rows; a graph whose
// lists hold more (a hostile range that never ends) is refused with
// PlanError::graph_too_large.
inline constexpr std::size_t max_graph_edges = std::size_t{1} << 28;

// ---------------------------------------------------------------------------
// Customisation point. Specialise for an IR whose member names differ; every
// function is static and takes the graph first.
template <class G>
struct graph_traits {
    // Each forwarder is a template so that a missing member removes it
    // (the concept is then not modelled) instead of failing to compile.
    template <class H = G>
    static constexpr auto value_count(const H& g) -> decltype(g.value_count()) { return g.value_count(); }
    template <class H = G>
    static constexpr auto node_count(const H& g) -> decltype(g.node_count()) { return g.node_count(); }
    template <class H = G>
    static constexpr auto node_inputs(const H& g, std::size_t n) -> decltype(g.node_inputs(n)) {
        return g.node_inputs(n);
    }
    template <class H = G>
    static constexpr auto node_outputs(const H& g, std::size_t n) -> decltype(g.node_outputs(n)) {
        return g.node_outputs(n);
    }
    template <class H = G>
    static constexpr auto graph_inputs(const H& g) -> decltype(g.graph_inputs()) { return g.graph_inputs(); }
    template <class H = G>
    static constexpr auto graph_outputs(const H& g) -> decltype(g.graph_outputs()) { return g.graph_outputs(); }
    template <class H = G>
    static constexpr auto is_initializer(const H& g, ValueId v) -> decltype(g.is_initializer(v)) {
        return g.is_initializer(v);
    }
    // Refinement for static sizing (shaped_graph).
    template <class H = G>
    static constexpr auto element_type(const H& g, ValueId v) -> decltype(g.element_type(v)) {
        return g.element_type(v);
    }
    template <class H = G>
    static constexpr auto dims(const H& g, ValueId v) -> decltype(g.dims(v)) { return g.dims(v); }
};

// A range of value ids: any integral element type (ids outside
// 0 .. value_count-1, negative ones included, are reported as errors).
template <class R>
concept value_id_range = std::ranges::input_range<R> && std::integral<std::remove_cvref_t<std::ranges::range_reference_t<R>>>;

// activation_graph: what the planner needs, and all it needs.
//
// | expression                    | returns                      | meaning                                              | cost        |
// |-------------------------------|------------------------------|------------------------------------------------------|-------------|
// | T::value_count(g)             | integral                     | number of values; ids are 0 .. value_count-1         | O(1)        |
// | T::node_count(g)              | integral                     | number of nodes; index n is the n-th node to run     | O(1)        |
// | T::node_inputs(g, n)          | value_id_range               | inputs of node n, in order (absent optionals omitted)| O(1) + O(k) |
// | T::node_outputs(g, n)         | value_id_range               | outputs of node n, in order                          | O(1) + O(k) |
// | T::graph_inputs(g)            | value_id_range               | the graph's inputs, in order                         | O(1) + O(k) |
// | T::graph_outputs(g)           | value_id_range               | the graph's outputs, in order                        | O(1) + O(k) |
// | T::is_initializer(g, v)       | convertible to bool          | v is a weight or constant (never in the arena)       | O(1)        |
//
// Invariant: the functions are pure. Every call returns the same ids (a
// range that changes between calls, such as a generator, makes the graph
// invalid; the planner walks each range once per pass and never trusts two
// walks to agree). The planner walks each node's inputs and outputs a small
// constant number of times and asks is_initializer once per value.
template <class G>
concept activation_graph = requires(const G& g, std::size_t n, ValueId v) {
    { graph_traits<G>::value_count(g) } -> std::convertible_to<std::size_t>;
    { graph_traits<G>::node_count(g) } -> std::convertible_to<std::size_t>;
    { graph_traits<G>::node_inputs(g, n) } -> value_id_range;
    { graph_traits<G>::node_outputs(g, n) } -> value_id_range;
    { graph_traits<G>::graph_inputs(g) } -> value_id_range;
    { graph_traits<G>::graph_outputs(g) } -> value_id_range;
    { graph_traits<G>::is_initializer(g, v) } -> std::convertible_to<bool>;
};

namespace detail {

// A type that is not an activation_graph, named function by function: the
// planners' catch-all overloads instantiate this, so that the compiler's
// first lines say which function the graph lacks (g++ otherwise leads with
// the overloads that take a Liveness). Always true once it compiles.
template <class G>
constexpr bool explain_activation_graph() {
    using T = graph_traits<G>;
    static_assert(requires(const G& g) { { T::value_count(g) } -> std::convertible_to<std::size_t>; },
                  "onnx_runtime_memory: the graph type lacks value_count() returning an integral count "
                  "(a member, or graph_traits<G>::value_count(g))");
    static_assert(requires(const G& g) { { T::node_count(g) } -> std::convertible_to<std::size_t>; },
                  "onnx_runtime_memory: the graph type lacks node_count() returning an integral count "
                  "(a member, or graph_traits<G>::node_count(g))");
    static_assert(requires(const G& g, std::size_t n) { { T::node_inputs(g, n) } -> value_id_range; },
                  "onnx_runtime_memory: the graph type lacks node_inputs(n) returning a range of integral ids "
                  "(a member, or graph_traits<G>::node_inputs(g, n))");
    static_assert(requires(const G& g, std::size_t n) { { T::node_outputs(g, n) } -> value_id_range; },
                  "onnx_runtime_memory: the graph type lacks node_outputs(n) returning a range of integral ids "
                  "(a member, or graph_traits<G>::node_outputs(g, n))");
    static_assert(requires(const G& g) { { T::graph_inputs(g) } -> value_id_range; },
                  "onnx_runtime_memory: the graph type lacks graph_inputs() returning a range of integral ids "
                  "(a member, or graph_traits<G>::graph_inputs(g))");
    static_assert(requires(const G& g) { { T::graph_outputs(g) } -> value_id_range; },
                  "onnx_runtime_memory: the graph type lacks graph_outputs() returning a range of integral ids "
                  "(a member, or graph_traits<G>::graph_outputs(g))");
    static_assert(requires(const G& g, ValueId v) { { T::is_initializer(g, v) } -> std::convertible_to<bool>; },
                  "onnx_runtime_memory: the graph type lacks is_initializer(ValueId) returning bool "
                  "(a member, or graph_traits<G>::is_initializer(g, v))");
    return true;
}

// What a catch-all overload takes: no graph, and nothing the overload's
// other form takes instead (a Liveness).
template <class G, class Instead>
concept not_a_graph = !activation_graph<G> && !std::is_convertible_v<const G&, const Instead&>;

}  // namespace detail

// ---------------------------------------------------------------------------
// Element types, numbered as ONNX's TensorProto.DataType numbers them.
enum class ElementType : std::int32_t {
    undefined = 0,
    float32 = 1,
    uint8 = 2,
    int8 = 3,
    uint16 = 4,
    int16 = 5,
    int32 = 6,
    int64 = 7,
    string = 8,
    boolean = 9,
    float16 = 10,
    float64 = 11,
    uint32 = 12,
    uint64 = 13,
    complex64 = 14,
    complex128 = 15,
    bfloat16 = 16,
    float8e4m3fn = 17,
    float8e4m3fnuz = 18,
    float8e5m2 = 19,
    float8e5m2fnuz = 20,
    uint4 = 21,
    int4 = 22,
    float4e2m1 = 23,
    float8e8m0 = 24,
    uint2 = 25,
    int2 = 26,
};

// Storage width of one element in bits (4-bit and 2-bit types pack several
// to a byte; strings count as 0), or nullopt for undefined/unknown types.
[[nodiscard]] constexpr std::optional<std::uint32_t> element_bits(ElementType t) noexcept {
    switch (t) {
        case ElementType::string: return 0;
        case ElementType::uint2:
        case ElementType::int2: return 2;
        case ElementType::uint4:
        case ElementType::int4:
        case ElementType::float4e2m1: return 4;
        case ElementType::uint8:
        case ElementType::int8:
        case ElementType::boolean:
        case ElementType::float8e4m3fn:
        case ElementType::float8e4m3fnuz:
        case ElementType::float8e5m2:
        case ElementType::float8e5m2fnuz:
        case ElementType::float8e8m0: return 8;
        case ElementType::uint16:
        case ElementType::int16:
        case ElementType::float16:
        case ElementType::bfloat16: return 16;
        case ElementType::float32:
        case ElementType::int32:
        case ElementType::uint32: return 32;
        case ElementType::float64:
        case ElementType::int64:
        case ElementType::uint64:
        case ElementType::complex64: return 64;
        case ElementType::complex128: return 128;
        case ElementType::undefined: break;
    }
    return std::nullopt;
}

// One dimension of a shape: static (extent >= 0, no symbol), symbolic (a
// named size known at run time) or unknown (neither).
struct Dim {
    std::int64_t extent = -1;
    std::string_view symbol{};

    [[nodiscard]] static constexpr Dim fixed(std::int64_t n) noexcept { return Dim{n, {}}; }
    [[nodiscard]] static constexpr Dim symbolic(std::string_view s) noexcept { return Dim{-1, s}; }
    [[nodiscard]] static constexpr Dim unknown() noexcept { return Dim{}; }

    [[nodiscard]] constexpr bool is_static() const noexcept { return symbol.empty() && extent >= 0; }
    [[nodiscard]] constexpr bool is_symbolic() const noexcept { return !symbol.empty(); }
};

// shaped_graph: an activation_graph that can also say each value's type, for
// static_size / bounded_size.
//
// | expression               | returns                              | meaning                                          | cost        |
// |--------------------------|--------------------------------------|--------------------------------------------------|-------------|
// | T::element_type(g, v)    | convertible to ElementType           | ONNX element type; undefined if not known        | O(1)        |
// | T::dims(g, v)            | input range of elements convertible  | the shape, outermost first; empty for a scalar;  | O(1) + O(r) |
// |                          | to Dim                               | a value of unknown rank gives one Dim::unknown() |             |
template <class G>
concept shaped_graph = activation_graph<G> && requires(const G& g, ValueId v) {
    { graph_traits<G>::element_type(g, v) } -> std::convertible_to<ElementType>;
    { graph_traits<G>::dims(g, v) } -> std::ranges::input_range;
    requires std::convertible_to<std::ranges::range_reference_t<decltype(graph_traits<G>::dims(g, v))>, Dim>;
};

}  // namespace onnx_runtime_memory
