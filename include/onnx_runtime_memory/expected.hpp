// A minimal stand-in for C++23 std::expected, so that results are values and
// nothing throws. Names mirror std::expected (has_value, value, error,
// value_or, unexpected) so that switching to the standard type is mechanical.
#pragma once

#include <cstdlib>
#include <type_traits>
#include <utility>
#include <variant>

namespace onnx_runtime_memory {

template <class E>
class unexpected {
public:
    constexpr explicit unexpected(E e) : error_(std::move(e)) {}
    [[nodiscard]] constexpr const E& error() const& noexcept { return error_; }
    [[nodiscard]] constexpr E&& error() && noexcept { return std::move(error_); }

private:
    E error_;
};

namespace detail {
// Accessing the wrong alternative is a caller bug, not bad input: stop at
// once instead of reading garbage (works with exceptions disabled).
[[noreturn]] inline void bad_expected_access() noexcept { std::abort(); }
}  // namespace detail

template <class T, class E>
class [[nodiscard]] expected {
public:
    using value_type = T;
    using error_type = E;

    template <class U = T>
        requires std::is_constructible_v<T, U&&>
    constexpr expected(U&& v) : storage_(std::in_place_index<0>, std::forward<U>(v)) {}
    template <class G>
    constexpr expected(unexpected<G> u)
        : storage_(std::in_place_index<1>, std::move(u).error()) {}

    [[nodiscard]] constexpr bool has_value() const noexcept { return storage_.index() == 0; }
    constexpr explicit operator bool() const noexcept { return has_value(); }

    [[nodiscard]] constexpr const T& value() const& {
        if (!has_value()) detail::bad_expected_access();
        return *std::get_if<0>(&storage_);
    }
    [[nodiscard]] constexpr T& value() & {
        if (!has_value()) detail::bad_expected_access();
        return *std::get_if<0>(&storage_);
    }
    [[nodiscard]] constexpr T&& value() && {
        if (!has_value()) detail::bad_expected_access();
        return std::move(*std::get_if<0>(&storage_));
    }
    [[nodiscard]] constexpr const E& error() const& {
        if (has_value()) detail::bad_expected_access();
        return *std::get_if<1>(&storage_);
    }
    [[nodiscard]] constexpr E&& error() && {
        if (has_value()) detail::bad_expected_access();
        return std::move(*std::get_if<1>(&storage_));
    }
    template <class U>
    [[nodiscard]] constexpr T value_or(U&& fallback) const& {
        return has_value() ? value() : static_cast<T>(std::forward<U>(fallback));
    }

    constexpr const T& operator*() const& { return value(); }
    constexpr T& operator*() & { return value(); }
    constexpr const T* operator->() const { return &value(); }
    constexpr T* operator->() { return &value(); }

private:
    std::variant<T, E> storage_;
};

// expected<void, E>: success carries nothing.
template <class E>
class [[nodiscard]] expected<void, E> {
public:
    using value_type = void;
    using error_type = E;

    constexpr expected() noexcept = default;
    template <class G>
    constexpr expected(unexpected<G> u) : error_(std::move(u).error()), failed_(true) {}

    [[nodiscard]] constexpr bool has_value() const noexcept { return !failed_; }
    constexpr explicit operator bool() const noexcept { return has_value(); }
    constexpr void value() const {
        if (failed_) detail::bad_expected_access();
    }
    [[nodiscard]] constexpr const E& error() const& {
        if (!failed_) detail::bad_expected_access();
        return error_;
    }

private:
    E error_{};
    bool failed_ = false;
};

}  // namespace onnx_runtime_memory
