// Caller ids of any integral type, converted to dense ValueIds once: in
// range or an error naming the id exactly as the caller wrote it (negative
// and wider-than-64-bit ids included, never narrowed first); and a graph's
// counts, checked against max_graph_ids.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <type_traits>

#include "../errors.hpp"
#include "../expected.hpp"
#include "../graph.hpp"

namespace onnx_runtime_memory::detail {

// x as an id below `count`, or nullopt (negative, or too large in x's own
// width: an __int128 id of 2^64 + 1 is out of range, not 1).
template <std::integral I>
[[nodiscard]] constexpr std::optional<ValueId> to_value_id(I x, std::size_t count) noexcept {
    if constexpr (std::is_same_v<I, bool>) {
        if (std::size_t{x} >= count) return std::nullopt;
        return static_cast<ValueId>(x);
    } else {
        if constexpr (std::is_signed_v<I>) {
            if (x < 0) return std::nullopt;
        }
        using U = std::make_unsigned_t<I>;
        const auto u = static_cast<U>(x);
        if constexpr (sizeof(U) > sizeof(std::size_t)) {
            if (u >= static_cast<U>(count)) return std::nullopt;
        } else {
            if (static_cast<std::size_t>(u) >= count) return std::nullopt;
        }
        return static_cast<ValueId>(u);
    }
}

// An error of `kind` naming x as the caller wrote it.
template <std::integral I>
[[nodiscard]] constexpr PlanError id_error(PlanError::Kind kind, I x, NodeIndex node = no_node) noexcept {
    PlanError e{kind, 0, node};
    if constexpr (std::is_same_v<I, bool>) {
        e.value = x ? 1 : 0;
    } else {
        using U = std::make_unsigned_t<I>;
        auto u = static_cast<U>(x);
        if constexpr (std::is_signed_v<I>) {
            if (x < 0) {
                u = static_cast<U>(U{0} - u);  // the magnitude, without negating the most negative value
                e.value_form = PlanError::IdForm::negative;
            }
        }
        if constexpr (sizeof(U) > sizeof(std::uint64_t)) {
            if (u > static_cast<U>(std::numeric_limits<std::uint64_t>::max())) e.value_form = PlanError::IdForm::wide;
        }
        e.value = static_cast<std::uint64_t>(u);
    }
    return e;
}

// The value_out_of_range error for x (at `node`, or in the graph's lists).
template <std::integral I>
[[nodiscard]] constexpr PlanError out_of_range(I x, NodeIndex node = no_node) noexcept {
    return id_error(PlanError::Kind::value_out_of_range, x, node);
}

// Counts of values and nodes, checked against max_graph_ids.
struct GraphSize {
    std::size_t values = 0;
    std::size_t nodes = 0;
};

// A count of any integral type as a size, or nullopt when it is negative or
// above max_graph_ids (compared in its own width: nothing is narrowed first).
template <class I>
[[nodiscard]] constexpr std::optional<std::size_t> checked_count(I count) noexcept {
    if constexpr (std::integral<I>) {
        const auto n = to_value_id(count, max_graph_ids + 1);
        if (!n) return std::nullopt;
        return std::size_t{*n};
    } else {  // convertible to std::size_t only
        const auto n = static_cast<std::size_t>(count);
        if (n > max_graph_ids) return std::nullopt;
        return n;
    }
}

template <activation_graph G>
[[nodiscard]] expected<GraphSize, PlanError> checked_size(const G& g) {
    using T = graph_traits<G>;
    const auto values = checked_count(T::value_count(g));
    const auto nodes = checked_count(T::node_count(g));
    if (!values || !nodes) return unexpected(make_plan_error(PlanError::Kind::graph_too_large));
    return GraphSize{*values, *nodes};
}

}  // namespace onnx_runtime_memory::detail
