// expected<T, E>: constructed like std::expected, with values that keep
// their state through copies, moves and assignments.
#include <string>
#include <type_traits>
#include <vector>

#include "support.hpp"

using orm::expected;
using orm::unexpected;

// A value converts implicitly only where T does: no expected<vector> from 5.
static_assert(!std::is_convertible_v<int, expected<std::vector<int>, int>>);
static_assert(std::is_constructible_v<expected<std::vector<int>, int>, int>);  // explicit, as vector(5) is
static_assert(std::is_convertible_v<std::vector<int>, expected<std::vector<int>, int>>);
static_assert(std::is_convertible_v<unexpected<int>, expected<std::vector<int>, int>>);
static_assert(!std::is_convertible_v<unexpected<std::string>, expected<int, int>>);
static_assert(std::is_convertible_v<unexpected<const char*>, expected<int, std::string>>);
static_assert(!std::is_convertible_v<int, expected<void, int>>);

namespace {
expected<std::vector<int>, std::string> make(bool ok) {
    if (ok) return std::vector<int>{1, 2, 3};
    return unexpected(std::string("no"));
}
}  // namespace

TEST_CASE("expected keeps its value or its error through copies, moves and assignments") {
    auto good = make(true);
    auto bad = make(false);
    REQUIRE(good.has_value());
    REQUIRE_FALSE(bad.has_value());
    CHECK(good->size() == 3);
    CHECK(bad.error() == "no");
    CHECK(bad.value_or(std::vector<int>{9}) == std::vector<int>{9});

    auto copy = good;
    CHECK(*copy == std::vector<int>{1, 2, 3});
    copy = bad;  // value -> error
    CHECK_FALSE(copy.has_value());
    CHECK(copy.error() == "no");
    copy = good;  // error -> value
    CHECK(copy.value() == std::vector<int>{1, 2, 3});
    auto moved = std::move(copy);
    CHECK(moved->size() == 3);
    moved = make(false);
    CHECK(moved.error() == "no");
    CHECK(*make(true) == std::vector<int>{1, 2, 3});

    expected<void, int> fine;
    expected<void, int> failed = unexpected(7);
    CHECK(fine.has_value());
    CHECK(failed.error() == 7);
}
