// Separate compilation, opt-in. By default the library is header-only: every
// function is inline. A program that defines
// ONNX_RUNTIME_MEMORY_SEPARATE_COMPILATION (in every translation unit, as
// the CMake target onnx_runtime_memory::compiled does) sees only the
// declarations of the graph-free core (the functions marked
// ONNX_RUNTIME_MEMORY_CORE: liveness and in-place decisions over the dense
// graph every template flattens its caller's graph into, the sizes stage,
// the slot planners, validate's checks, the lower bounds, the arena
// strategies and searches and the arena's layout around them, the plans
// across streams, plan_spill, the memory-aware order, PlannedModel (their
// templates only read the graph and wrap the oracle), the error messages)
// and not the code behind them; exactly one of its translation units defines them by
// including <onnx_runtime_memory/src.hpp>. Each core function's code is in a
// header of its own (a definer), which the header declaring it includes at
// its end unless the core is compiled apart; a definer included anywhere
// but src.hpp in that mode stops with an #error. Both modes run the same
// code: the same plans, bit for bit.
#pragma once

#if defined(ONNX_RUNTIME_MEMORY_SEPARATE_COMPILATION)
#define ONNX_RUNTIME_MEMORY_CORE
#else
#define ONNX_RUNTIME_MEMORY_CORE inline
#endif

