// SPEC section 4: static_size, bounded_size and their oracles.
#include <cstdint>
#include <limits>

#include "support.hpp"

namespace {

std::optional<std::size_t> size_of(ElementType t, std::initializer_list<ir::DimSpec> dims) {
    ir::Builder b("s");
    b.tensor("v", t, dims);
    const auto g = b.build();
    return orm::static_size(g, 0);
}

}  // namespace

TEST_CASE("static_size: element widths as ONNX numbers them") {
    using E = ElementType;
    const std::pair<E, std::size_t> widths[] = {
        {E::float32, 4},  {E::int32, 4},   {E::uint32, 4},         {E::float64, 8},        {E::int64, 8},
        {E::uint64, 8},   {E::complex64, 8}, {E::complex128, 16},  {E::float16, 2},        {E::bfloat16, 2},
        {E::int16, 2},    {E::uint16, 2},  {E::int8, 1},           {E::uint8, 1},          {E::boolean, 1},
        {E::float8e4m3fn, 1}, {E::float8e4m3fnuz, 1}, {E::float8e5m2, 1}, {E::float8e5m2fnuz, 1}, {E::float8e8m0, 1},
    };
    for (const auto& [type, width] : widths) {
        INFO("element type " << static_cast<int>(type));
        CHECK(size_of(type, {2, 3}) == 6 * width);
    }
    CHECK(static_cast<int>(E::bfloat16) == 16);  // ONNX numbering
    CHECK(static_cast<int>(E::int2) == 26);
}

TEST_CASE("static_size: packed types round up, strings are 0, scalars are one element") {
    using E = ElementType;
    CHECK(size_of(E::int4, {3}) == 2u);
    CHECK(size_of(E::uint4, {4}) == 2u);
    CHECK(size_of(E::float4e2m1, {1}) == 1u);
    CHECK(size_of(E::int2, {5}) == 2u);
    CHECK(size_of(E::uint2, {8}) == 2u);
    CHECK(size_of(E::int2, {0}) == 0u);
    CHECK(size_of(E::string, {1000}) == 0u);
    CHECK(size_of(E::float32, {}) == 4u);
    CHECK(size_of(E::float32, {3, 0, 5}) == 0u);
}

TEST_CASE("static_size: unknown for symbols, unknown dims, unknown rank, undefined types, overflow") {
    using E = ElementType;
    CHECK_FALSE(size_of(E::float32, {"batch", 3}).has_value());
    CHECK_FALSE(size_of(E::float32, {ir::DimSpec::unknown(), 3}).has_value());
    CHECK_FALSE(size_of(E::undefined, {2}).has_value());
    CHECK(size_of(static_cast<E>(24), {2}) == 2);  // FLOAT8E8M0: one byte each, as the original crate sizes it
    CHECK_FALSE(size_of(static_cast<E>(27), {2}).has_value());  // not an ONNX type number
    CHECK_FALSE(size_of(static_cast<E>(999), {2}).has_value());

    ir::Graph g("rank");
    const auto v = g.value("v");
    g.set_type(v, E::float32, {}, /*rank_known=*/false);
    CHECK_FALSE(orm::static_size(g, v).has_value());
    const auto untyped = g.value("untyped");  // no type information at all
    CHECK_FALSE(orm::static_size(g, untyped).has_value());

    const std::int64_t two32 = std::int64_t{1} << 32;
    CHECK_FALSE(size_of(E::uint8, {two32, two32}).has_value());                // count overflows
    CHECK_FALSE(size_of(E::uint8, {two32, two32, 0}).has_value());             // left to right: before the 0
    CHECK(size_of(E::uint8, {0, two32, two32}) == 0u);
    CHECK_FALSE(size_of(E::float32, {std::int64_t{1} << 62}).has_value());    // bytes overflow
    CHECK(size_of(E::uint8, {std::numeric_limits<std::int64_t>::max(), 2}) ==
          std::numeric_limits<std::size_t>::max() - 1);
    CHECK(size_of(E::int4, {std::numeric_limits<std::int64_t>::max(), 2}) == (std::size_t{1} << 63) - 1);
}

TEST_CASE("bounded_size replaces each symbol by its bound, a missing bound leaves it unknown") {
    ir::Builder b("bounded");
    b.tensor("v", ElementType::float16, {"batch", 3, "seq"});
    const auto g = b.build();
    orm::SymbolBounds bounds;
    bounds.set("batch", 2);
    CHECK_FALSE(orm::bounded_size(g, 0, bounds).has_value());
    bounds.set("seq", 10);
    CHECK(orm::bounded_size(g, 0, bounds) == 2u * 3 * 10 * 2);
    bounds.set("batch", 4);  // replaces
    CHECK(bounds.size() == 2);
    CHECK(orm::static_size(g, 0) == std::nullopt);
    const auto oracle = orm::bounded_size_oracle(g, bounds);
    CHECK(oracle(0) == 240u);
    bounds.set("seq", std::numeric_limits<std::size_t>::max());
    CHECK_FALSE(oracle(0).has_value());  // overflow stays unknown
}
