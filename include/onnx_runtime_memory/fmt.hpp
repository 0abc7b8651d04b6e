// Opt-in {fmt} support: fmt::formatter specialisations for the public types.
// Not included by onnx_runtime_memory.hpp; link onnx_runtime_memory::fmt.
// Works with fmt 9 to 12: const format(), no format_as for class types.
#pragma once

#if !__has_include(<fmt/format.h>)
#error "onnx_runtime_memory/fmt.hpp needs {fmt}, which is not on the include path: install fmt (Debian: libfmt-dev; vcpkg: onnx-runtime-memory[fmt]) and link onnx_runtime_memory::fmt, or do not include this header."
#else

#include <fmt/format.h>

#include "bounds.hpp"
#include "liveness.hpp"
#include "plan_types.hpp"

namespace onnx_runtime_memory::detail {
// Accepts only "{}": these types have one textual form.
struct plain_format_spec {
    constexpr auto parse(fmt::format_parse_context& ctx) -> decltype(ctx.begin()) { return ctx.begin(); }
};
}  // namespace onnx_runtime_memory::detail

// "slot 3", or "no slot"
template <>
struct fmt::formatter<onnx_runtime_memory::SlotId> : onnx_runtime_memory::detail::plain_format_spec {
    template <class Context>
    auto format(const onnx_runtime_memory::SlotId& s, Context& ctx) const -> decltype(ctx.out()) {
        if (s.is_none()) return fmt::format_to(ctx.out(), "no slot");
        return fmt::format_to(ctx.out(), "slot {}", s.value);
    }
};

// "slot 3: 1024 bytes"
template <>
struct fmt::formatter<onnx_runtime_memory::SlotInfo> : onnx_runtime_memory::detail::plain_format_spec {
    template <class Context>
    auto format(const onnx_runtime_memory::SlotInfo& s, Context& ctx) const -> decltype(ctx.out()) {
        return fmt::format_to(ctx.out(), "slot {}: {} bytes", s.id.value, s.capacity);
    }
};

// "[2, 7]" (inclusive node positions)
template <>
struct fmt::formatter<onnx_runtime_memory::Interval> : onnx_runtime_memory::detail::plain_format_spec {
    template <class Context>
    auto format(const onnx_runtime_memory::Interval& i, Context& ctx) const -> decltype(ctx.out()) {
        return fmt::format_to(ctx.out(), "[{}, {}]", i.def, i.use_end);
    }
};

// "peak 32 bytes in 2 slots (one buffer each: 48 bytes, 33.3% saved)"; "in 1 slot"
template <>
struct fmt::formatter<onnx_runtime_memory::ActivationPlan> : onnx_runtime_memory::detail::plain_format_spec {
    template <class Context>
    auto format(const onnx_runtime_memory::ActivationPlan& p, Context& ctx) const -> decltype(ctx.out()) {
        return fmt::format_to(ctx.out(), "peak {} bytes in {} slot{} (one buffer each: {} bytes, {:.1f}% saved)",
                              p.peak_bytes, p.num_slots(), p.num_slots() == 1 ? "" : "s", p.naive_bytes,
                              100.0 * p.savings_ratio());
    }
};

// "sweep", "exact_search", ...
template <>
struct fmt::formatter<onnx_runtime_memory::ArenaStrategy> : onnx_runtime_memory::detail::plain_format_spec {
    template <class Context>
    auto format(onnx_runtime_memory::ArenaStrategy s, Context& ctx) const -> decltype(ctx.out()) {
        return fmt::format_to(ctx.out(), "{}", onnx_runtime_memory::to_string(s));
    }
};

// "arena 9633792 bytes, aligned to 64, by sweep"
template <>
struct fmt::formatter<onnx_runtime_memory::ArenaPlan> : onnx_runtime_memory::detail::plain_format_spec {
    template <class Context>
    auto format(const onnx_runtime_memory::ArenaPlan& p, Context& ctx) const -> decltype(ctx.out()) {
        return fmt::format_to(ctx.out(), "arena {} bytes, aligned to {}, by {}", p.arena_bytes, p.alignment, p.strategy);
    }
};

// "arena 4096 bytes (lower bound 4096), aligned to 64, by sweep"
template <>
struct fmt::formatter<onnx_runtime_memory::OffsetPlan> : onnx_runtime_memory::detail::plain_format_spec {
    template <class Context>
    auto format(const onnx_runtime_memory::OffsetPlan& p, Context& ctx) const -> decltype(ctx.out()) {
        return fmt::format_to(ctx.out(), "arena {} bytes (lower bound {}), aligned to {}, by {}", p.arena_bytes,
                              p.lower_bound_bytes, p.alignment, p.strategy);
    }
};

// "1024 bytes live [2, 7]"
template <>
struct fmt::formatter<onnx_runtime_memory::Buffer> : onnx_runtime_memory::detail::plain_format_spec {
    template <class Context>
    auto format(const onnx_runtime_memory::Buffer& b, Context& ctx) const -> decltype(ctx.out()) {
        return fmt::format_to(ctx.out(), "{} bytes live [{}, {}]", b.size, b.first, b.last);
    }
};

// "offsets >= 4096 bytes, slots >= 5120 bytes"
template <>
struct fmt::formatter<onnx_runtime_memory::LowerBounds> : onnx_runtime_memory::detail::plain_format_spec {
    template <class Context>
    auto format(const onnx_runtime_memory::LowerBounds& b, Context& ctx) const -> decltype(ctx.out()) {
        return fmt::format_to(ctx.out(), "offsets >= {} bytes, slots >= {} bytes", b.offset_bytes, b.slot_bytes);
    }
};

// "complete: <plan>" or "deferred: 3 owners of unknown size", for slot and arena plans
template <class Plan>
struct fmt::formatter<onnx_runtime_memory::BasicPlanStatus<Plan>> : onnx_runtime_memory::detail::plain_format_spec {
    template <class Context>
    auto format(const onnx_runtime_memory::BasicPlanStatus<Plan>& s, Context& ctx) const -> decltype(ctx.out()) {
        if (s.is_complete()) return fmt::format_to(ctx.out(), "complete: {}", s.plan());
        return fmt::format_to(ctx.out(), "deferred: {} owner{} of unknown size", s.unknown_sizes().size(),
                              s.unknown_sizes().size() == 1 ? "" : "s");
    }
};

template <>
struct fmt::formatter<onnx_runtime_memory::PlanError> : onnx_runtime_memory::detail::plain_format_spec {
    template <class Context>
    auto format(const onnx_runtime_memory::PlanError& e, Context& ctx) const -> decltype(ctx.out()) {
        return fmt::format_to(ctx.out(), "{}", e.message());
    }
};

template <>
struct fmt::formatter<onnx_runtime_memory::ValidateError> : onnx_runtime_memory::detail::plain_format_spec {
    template <class Context>
    auto format(const onnx_runtime_memory::ValidateError& e, Context& ctx) const -> decltype(ctx.out()) {
        return fmt::format_to(ctx.out(), "{}", e.message());
    }
};

#endif  // __has_include(<fmt/format.h>)
