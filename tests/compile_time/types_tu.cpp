// Passes plans around without planning: names the plan types only.
#include <onnx_runtime_memory/plan_types.hpp>

#include <cstddef>

std::size_t total(const onnx_runtime_memory::ActivationPlan& slots, const onnx_runtime_memory::ArenaPlan& arena) {
    return slots.peak_bytes + arena.arena_bytes;
}

int main() { return static_cast<int>(total({}, {})); }
