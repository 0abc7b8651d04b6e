// Sizing values in bytes: size oracles, static shapes, and symbolic shapes
// at caller-given bounds.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "detail/checked.hpp"
#include "graph.hpp"

namespace onnx_runtime_memory {

namespace detail {
// A byte count: an unsigned integer type no wider than std::size_t (not bool,
// not a character type). int (-1 would become SIZE_MAX) and double (2.5
// would become 2) are refused at compile time.
template <class T>
concept byte_count = std::unsigned_integral<T> && !std::same_as<T, bool> && !std::same_as<T, char8_t> &&
                     !std::same_as<T, char16_t> && !std::same_as<T, char32_t> && !std::same_as<T, wchar_t> &&
                     !std::same_as<T, char> && sizeof(T) <= sizeof(std::size_t);
template <class R>
struct is_size_result : std::bool_constant<byte_count<R>> {};
template <class U>
struct is_size_result<std::optional<U>> : std::bool_constant<byte_count<U>> {};
}  // namespace detail

// A size oracle: value id -> bytes, or nullopt for "not known yet". It returns
// std::optional<U> (or a plain U when every size is known) for an unsigned
// integer type U no wider than std::size_t.
template <class F>
concept size_oracle = std::invocable<F&, ValueId> &&
                      detail::is_size_result<std::remove_cvref_t<std::invoke_result_t<F&, ValueId>>>::value;

// Upper bounds for symbolic dimensions, by symbol name. A sorted vector:
// deterministic, O(log k) lookup.
class SymbolBounds {
public:
    SymbolBounds() = default;
    SymbolBounds(std::initializer_list<std::pair<std::string_view, std::size_t>> bounds) {
        for (const auto& [symbol, n] : bounds) set(symbol, n);
    }

    // Sets (or replaces) the bound of `symbol`.
    void set(std::string_view symbol, std::size_t n) {
        auto it = lower(symbol);
        if (it != bounds_.end() && it->first == symbol) it->second = n;
        else bounds_.emplace(it, std::string(symbol), n);
    }
    [[nodiscard]] std::optional<std::size_t> find(std::string_view symbol) const noexcept {
        auto it = std::lower_bound(bounds_.begin(), bounds_.end(), symbol,
                                   [](const auto& e, std::string_view s) { return std::string_view(e.first) < s; });
        if (it != bounds_.end() && it->first == symbol) return it->second;
        return std::nullopt;
    }
    [[nodiscard]] std::size_t size() const noexcept { return bounds_.size(); }

private:
    using Entry = std::pair<std::string, std::size_t>;
    std::vector<Entry>::iterator lower(std::string_view symbol) {
        return std::lower_bound(bounds_.begin(), bounds_.end(), symbol,
                                [](const Entry& e, std::string_view s) { return std::string_view(e.first) < s; });
    }
    std::vector<Entry> bounds_;
};

namespace detail {

// Bytes of `count` elements of `type`: packed types round up to whole bytes.
[[nodiscard]] constexpr std::optional<std::size_t> bytes_for(ElementType type, std::size_t count) noexcept {
    const auto bits = element_bits(type);
    if (!bits) return std::nullopt;
    switch (*bits) {
        case 0: return 0;
        case 2: return count / 4 + (count % 4 != 0);
        case 4: return count / 2 + (count % 2 != 0);
        default: {
            std::size_t bytes = 0;
            if (mul_overflows(count, *bits / 8, bytes)) return std::nullopt;
            return bytes;
        }
    }
}

// Element count times width, each dim's extent given by extent_of(Dim),
// multiplied left to right; nullopt on any unknown extent or overflow.
template <shaped_graph G, class ExtentOf>
[[nodiscard]] std::optional<std::size_t> shaped_bytes(const G& g, ValueId v, ExtentOf&& extent_of) {
    using T = graph_traits<G>;
    std::size_t count = 1;
    for (auto&& d : T::dims(g, v)) {
        const std::optional<std::size_t> extent = extent_of(static_cast<Dim>(d));
        if (!extent || mul_overflows(count, *extent, count)) return std::nullopt;
    }
    return bytes_for(static_cast<ElementType>(T::element_type(g, v)), count);
}

[[nodiscard]] constexpr std::optional<std::size_t> static_extent(const Dim& d) noexcept {
    if (!d.is_static()) return std::nullopt;
    if (static_cast<std::uint64_t>(d.extent) > std::numeric_limits<std::size_t>::max()) return std::nullopt;
    return static_cast<std::size_t>(d.extent);
}

}  // namespace detail

// Byte size of `v` from its static shape, or nullopt if any dimension is
// symbolic or unknown, the element type is undefined, or the count overflows.
template <shaped_graph G>
[[nodiscard]] std::optional<std::size_t> static_size(const G& g, ValueId v) {
    return detail::shaped_bytes(g, v, [](const Dim& d) { return detail::static_extent(d); });
}

// static_size with each symbolic dim replaced by its symbol's bound; a
// symbol without a bound leaves the size unknown.
template <shaped_graph G>
[[nodiscard]] std::optional<std::size_t> bounded_size(const G& g, ValueId v, const SymbolBounds& bounds) {
    return detail::shaped_bytes(g, v, [&](const Dim& d) -> std::optional<std::size_t> {
        if (d.is_symbolic()) return bounds.find(d.symbol);
        return detail::static_extent(d);
    });
}

// Oracles over the functions above. They keep references: the graph (and
// bounds) must outlive them.
template <shaped_graph G>
[[nodiscard]] auto static_size_oracle(const G& g) {
    return [&g](ValueId v) { return static_size(g, v); };
}
template <shaped_graph G>
[[nodiscard]] auto bounded_size_oracle(const G& g, const SymbolBounds& bounds) {
    return [&g, &bounds](ValueId v) { return bounded_size(g, v, bounds); };
}
// A temporary would dangle inside the oracle.
template <shaped_graph G>
void static_size_oracle(const G&&) = delete;
template <shaped_graph G>
void bounded_size_oracle(const G&, const SymbolBounds&&) = delete;
template <shaped_graph G>
void bounded_size_oracle(const G&&, const SymbolBounds&) = delete;
template <shaped_graph G>
void bounded_size_oracle(const G&&, const SymbolBounds&&) = delete;

}  // namespace onnx_runtime_memory
