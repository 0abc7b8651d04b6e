// A non-owning reference to a callable: what lets the core take a caller's
// oracle or predicate as a plain function, compiled once (config.hpp),
// instead of a template compiled for every callable type. One indirect call
// per use; the callable must outlive the reference.
#pragma once

#include <optional>
#include <type_traits>
#include <utility>

namespace onnx_runtime_memory::detail {

// std::addressof without <memory> (8 MB and 0.1 s of every unit's compile
// with g++ 12): the address of t even if its type overloads unary &.
template <class T>
[[nodiscard]] const void* address_of(T& t) noexcept {
    return &const_cast<const char&>(reinterpret_cast<const volatile char&>(t));
}

template <class Signature>
class FunctionRef;

template <class R, class... Args>
class FunctionRef<R(Args...)> {
public:
    template <class F>
        requires(!std::is_same_v<std::remove_cvref_t<F>, FunctionRef> && std::is_invocable_r_v<R, F&, Args...>)
    FunctionRef(F&& f) noexcept  // NOLINT: implicit, as a function pointer converts
        : object_(const_cast<void*>(address_of(f))),
          call_([](void* object, Args... args) -> R {
              return (*static_cast<std::remove_reference_t<F>*>(object))(std::forward<Args>(args)...);
          }) {}

    R operator()(Args... args) const { return call_(object_, std::forward<Args>(args)...); }

private:
    void* object_;
    R (*call_)(void*, Args...);
};

// An optional answer (a size oracle's) comes back as a flag and a value
// written through a pointer: an optional returned through the indirect call
// costs g++ a store-forwarding stall per call, a quarter of a re-plan's time
// (perf on a 1k-value re-plan loop).
template <class T, class... Args>
class FunctionRef<std::optional<T>(Args...)> {
public:
    template <class F>
        requires(!std::is_same_v<std::remove_cvref_t<F>, FunctionRef> &&
                 std::is_invocable_r_v<std::optional<T>, F&, Args...>)
    FunctionRef(F&& f) noexcept  // NOLINT: implicit, as a function pointer converts
        : object_(const_cast<void*>(address_of(f))),
          call_([](void* object, T* out, Args... args) -> bool {
              const std::optional<T> answer = (*static_cast<std::remove_reference_t<F>*>(object))(std::forward<Args>(args)...);
              if (answer) *out = *answer;
              return answer.has_value();
          }) {}

    std::optional<T> operator()(Args... args) const {
        T out{};
        if (call_(object_, &out, std::forward<Args>(args)...)) return out;
        return std::nullopt;
    }

private:
    void* object_;
    bool (*call_)(void*, T*, Args...);
};

}  // namespace onnx_runtime_memory::detail
