// A minimal stand-in for C++23 std::expected, so that results are values and
// nothing throws. Names mirror std::expected (has_value, value, error,
// value_or, unexpected), and so do the constructors' constraints: a value
// converts implicitly only where T converts implicitly (an
// expected<std::vector<int>, E> is not made from 5), so that switching to
// the standard type is mechanical. Storage is a union, not std::variant:
// lighter to compile.
#pragma once

#include <concepts>
#include <cstdio>
#include <cstdlib>
#include <source_location>
#include <new>
#include <type_traits>
#include <utility>

namespace onnx_runtime_memory {

template <class E>
class unexpected {
public:
    template <class G = E>
        requires std::is_constructible_v<E, G&&> && (!std::is_same_v<std::remove_cvref_t<G>, unexpected>)
    constexpr explicit unexpected(G&& e) : error_(std::forward<G>(e)) {}
    [[nodiscard]] constexpr const E& error() const& noexcept { return error_; }
    [[nodiscard]] constexpr E&& error() && noexcept { return std::move(error_); }

private:
    E error_;
};
template <class E>
unexpected(E) -> unexpected<E>;

namespace detail {
// Accessing the wrong alternative is a caller bug, not bad input: say what
// was misused and where, then stop at once instead of reading garbage
// (works with exceptions disabled).
// `error` is the error held, as its message() says it (or null). The
// operators * and -> cannot learn their caller's line (an operator takes no
// defaulted source_location): they say so instead of naming this header.
[[noreturn]] inline void bad_access(const char* what, std::source_location where, const char* error = nullptr,
                                    bool located = true) noexcept {
    std::fprintf(stderr, "onnx_runtime_memory: %s", what);
    if (error) std::fprintf(stderr, " (the error: %s)", error);
    if (located)
        std::fprintf(stderr, ", at %s:%u (%s)\n", where.file_name(), static_cast<unsigned>(where.line()),
                     where.function_name());
    else
        std::fprintf(stderr, ", through * or -> (call value() instead to have your file and line named)\n");
    std::fflush(stderr);
    std::abort();
}

// The held error's message(), where E has one (PlanError, ValidateError).
template <class E, class F>
void with_message(const E& e, F&& use) {
    if constexpr (requires { e.message().c_str(); }) use(e.message().c_str());
    else use(static_cast<const char*>(nullptr));
}

template <class T>
inline constexpr bool is_unexpected = false;
template <class E>
inline constexpr bool is_unexpected<unexpected<E>> = true;
}  // namespace detail

template <class T, class E>
class [[nodiscard]] expected {
public:
    using value_type = T;
    using error_type = E;

    template <class U = T>
        requires(!std::is_same_v<std::remove_cvref_t<U>, expected> && !detail::is_unexpected<std::remove_cvref_t<U>> &&
                 !std::is_same_v<std::remove_cvref_t<U>, std::in_place_t> && std::is_constructible_v<T, U &&>)
    constexpr explicit(!std::is_convertible_v<U&&, T>) expected(U&& v) : value_(std::forward<U>(v)), has_value_(true) {}
    template <class G>
        requires std::is_constructible_v<E, G &&>
    constexpr explicit(!std::is_convertible_v<G&&, E>) expected(unexpected<G> u)
        : error_(std::move(u).error()), has_value_(false) {}

    expected(const expected& other) : has_value_(other.has_value_) { construct_from(other); }
    expected(expected&& other) noexcept(std::is_nothrow_move_constructible_v<T> && std::is_nothrow_move_constructible_v<E>)
        : has_value_(other.has_value_) {
        construct_from(std::move(other));
    }
    expected& operator=(const expected& other) {
        if (this != &other) {
            destroy();
            has_value_ = other.has_value_;
            construct_from(other);
        }
        return *this;
    }
    expected& operator=(expected&& other) noexcept(std::is_nothrow_move_constructible_v<T> &&
                                                   std::is_nothrow_move_constructible_v<E>) {
        if (this != &other) {
            destroy();
            has_value_ = other.has_value_;
            construct_from(std::move(other));
        }
        return *this;
    }
    ~expected() { destroy(); }

    [[nodiscard]] constexpr bool has_value() const noexcept { return has_value_; }
    constexpr explicit operator bool() const noexcept { return has_value_; }

    // Misuse (the value of an error, the error of a value) is reported with
    // the caller's file and line, then aborts.
    [[nodiscard]] constexpr const T& value(std::source_location at = std::source_location::current()) const& {
        if (!has_value_) no_value(at);
        return value_;
    }
    [[nodiscard]] constexpr T& value(std::source_location at = std::source_location::current()) & {
        if (!has_value_) no_value(at);
        return value_;
    }
    [[nodiscard]] constexpr T&& value(std::source_location at = std::source_location::current()) && {
        if (!has_value_) no_value(at);
        return std::move(value_);
    }
    [[nodiscard]] constexpr const E& error(std::source_location at = std::source_location::current()) const& {
        if (has_value_) detail::bad_access(no_error_message, at);
        return error_;
    }
    [[nodiscard]] constexpr E&& error(std::source_location at = std::source_location::current()) && {
        if (has_value_) detail::bad_access(no_error_message, at);
        return std::move(error_);
    }
    template <class U>
    [[nodiscard]] constexpr T value_or(U&& fallback) const& {
        return has_value_ ? value_ : static_cast<T>(std::forward<U>(fallback));
    }

    // Equal when both hold equal values or equal errors (as std::expected).
    friend constexpr bool operator==(const expected& a, const expected& b)
        requires requires(const T& x, const E& e) {
            { x == x } -> std::convertible_to<bool>;
            { e == e } -> std::convertible_to<bool>;
        }
    {
        if (a.has_value_ != b.has_value_) return false;
        return a.has_value_ ? bool(a.value_ == b.value_) : bool(a.error_ == b.error_);
    }

    constexpr const T& operator*() const& {
        if (!has_value_) no_value({}, false);
        return value_;
    }
    constexpr T& operator*() & {
        if (!has_value_) no_value({}, false);
        return value_;
    }
    constexpr T&& operator*() && {
        if (!has_value_) no_value({}, false);
        return std::move(value_);
    }
    constexpr const T* operator->() const {
        if (!has_value_) no_value({}, false);
        return &value_;
    }
    constexpr T* operator->() {
        if (!has_value_) no_value({}, false);
        return &value_;
    }

private:
    [[noreturn]] void no_value(std::source_location at, bool located = true) const noexcept {
        detail::with_message(error_, [&](const char* m) { detail::bad_access(no_value_message, at, m, located); });
        std::abort();  // (with_message's callee does not return)
    }

    static constexpr const char* no_value_message =
        "value() (or * or ->) of an expected that holds an error: check has_value() first";
    static constexpr const char* no_error_message = "error() of an expected that holds a value: check has_value() first";

    template <class Other>
    void construct_from(Other&& other) {
        if (has_value_) ::new (static_cast<void*>(&value_)) T(std::forward<Other>(other).value_);
        else ::new (static_cast<void*>(&error_)) E(std::forward<Other>(other).error_);
    }
    void destroy() noexcept {
        if (has_value_) value_.~T();
        else error_.~E();
    }

    union {
        T value_;
        E error_;
    };
    bool has_value_;
};

// expected<void, E>: success carries nothing.
template <class E>
class [[nodiscard]] expected<void, E> {
public:
    using value_type = void;
    using error_type = E;

    constexpr expected() noexcept = default;
    template <class G>
        requires std::is_constructible_v<E, G &&>
    constexpr explicit(!std::is_convertible_v<G&&, E>) expected(unexpected<G> u)
        : error_(std::move(u).error()), failed_(true) {}

    [[nodiscard]] constexpr bool has_value() const noexcept { return !failed_; }
    constexpr explicit operator bool() const noexcept { return has_value(); }
    constexpr void value(std::source_location at = std::source_location::current()) const {
        if (failed_)
            detail::with_message(error_, [&](const char* m) {
                detail::bad_access("value() of an expected<void> that holds an error: check has_value() first", at, m);
            });
    }
    [[nodiscard]] constexpr const E& error(std::source_location at = std::source_location::current()) const& {
        if (!failed_) detail::bad_access("error() of an expected<void> that holds no error: check has_value() first", at);
        return error_;
    }

private:
    E error_{};
    bool failed_ = false;
};

}  // namespace onnx_runtime_memory
