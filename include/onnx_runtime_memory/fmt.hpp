// Opt-in {fmt} support: fmt::formatter specialisations for the public types.
// Not included by onnx_runtime_memory.hpp; link onnx_runtime_memory::fmt.
// Works with fmt 9 to 12: const format(), no format_as for class types.
#pragma once

#if !__has_include(<fmt/format.h>)
#error "onnx_runtime_memory/fmt.hpp needs {fmt}, which is not on the include path: install fmt (Debian: libfmt-dev; vcpkg: onnx-runtime-memory[fmt]) and link onnx_runtime_memory::fmt, or do not include this header."
#else

#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "bounds.hpp"
#include "liveness.hpp"
#include "plan_types.hpp"

namespace onnx_runtime_memory::detail {

// One textual form per type, written once here; the formatters below only
// route to it.
inline std::string describe(SlotId s) { return s.is_none() ? "no slot" : fmt::format("slot {}", s.value); }  // "slot 3"
inline std::string describe(const SlotInfo& s) { return fmt::format("slot {}: {} bytes", s.id.value, s.capacity); }
inline std::string describe(const Interval& i) { return fmt::format("[{}, {}]", i.def, i.use_end); }  // inclusive
inline std::string describe(const Buffer& b) {
    const std::string at = b.pinned == no_offset ? std::string() : fmt::format(", pinned at {}", b.pinned);
    return fmt::format("{} bytes live [{}, {}]{}", b.size, b.first, b.last, at);
}
inline std::string describe(InplaceResult r) { return to_string(r); }
inline std::string describe(ArenaStrategy s) { return to_string(s); }
inline std::string describe(SlotStrategy s) { return to_string(s); }
inline std::string describe(const PlanError& e) { return e.message(); }
inline std::string describe(const ValidateError& e) { return e.message(); }
inline std::string plural(std::size_t n, const char* noun) { return fmt::format("{} {}{}", n, noun, n == 1 ? "" : "s"); }
// "peak 32 bytes in 2 slots (one buffer each: 48 bytes, 33.3% saved)"
inline std::string describe(const ActivationPlan& p) {
    return fmt::format("peak {} bytes in {} (one buffer each: {} bytes, {:.1f}% saved)", p.peak_bytes,
                       plural(p.num_slots(), "slot"), p.naive_bytes, 100.0 * p.savings_ratio());
}
// "arena 9633792 bytes, aligned to 64, by sweep"
inline std::string describe(const ArenaPlan& p) {
    return fmt::format("arena {} bytes, aligned to {}, by {}", p.arena_bytes, p.alignment, to_string(p.strategy));
}
// "arena 4096 bytes (lower bound 4096), aligned to 64, by sweep"
inline std::string describe(const OffsetPlan& p) {
    return fmt::format("arena {} bytes (lower bound {}), aligned to {}, by {}", p.arena_bytes, p.lower_bound_bytes,
                       p.alignment, to_string(p.strategy));
}
// "offsets >= 4096 bytes, slots >= 5120 bytes"
inline std::string describe(const LowerBounds& b) {
    return fmt::format("offsets >= {} bytes, slots >= {} bytes", b.offset_bytes, b.slot_bytes);
}
// "complete: <plan>" or "deferred: 3 owners of unknown size", slot and arena plans alike
template <class Plan>
std::string describe(const BasicPlanStatus<Plan>& s) {
    if (s.is_complete()) return "complete: " + describe(s.plan());
    return "deferred: " + plural(s.unknown_sizes().size(), "owner") + " of unknown size";
}

// Accepts only "{}" (these types have one textual form) and prints describe(x).
template <class T>
struct described {
    constexpr auto parse(fmt::format_parse_context& ctx) -> decltype(ctx.begin()) { return ctx.begin(); }
    template <class Context>
    auto format(const T& x, Context& ctx) const -> decltype(ctx.out()) {
        const std::string text = describe(x);
        return std::copy(text.begin(), text.end(), ctx.out());
    }
};

}  // namespace onnx_runtime_memory::detail

namespace onnx_runtime_memory::detail {
template <class T>
concept describable = requires(const T& x) { onnx_runtime_memory::detail::describe(x); };
}  // namespace onnx_runtime_memory::detail

// Every public type with a describe() above: SlotId, SlotInfo, Interval,
// Buffer, ArenaStrategy, SlotStrategy, InplaceResult, PlanError, ValidateError, ActivationPlan,
// ArenaPlan, OffsetPlan, LowerBounds, PlanStatus and ArenaStatus.
template <onnx_runtime_memory::detail::describable T>
struct fmt::formatter<T, char> : onnx_runtime_memory::detail::described<T> {};

#endif  // __has_include(<fmt/format.h>)
