// What an executor's planning file does: the umbrella header, a memory-aware
// order, one PlannedModel re-planned per request (the arena re-planner and
// the placements), each plan validated.
#include <onnx_runtime_memory/onnx_runtime_memory.hpp>

#include <cstdio>
#include <optional>
#include <vector>

#include "tiny_graph.hpp"

int main() {
    namespace orm = onnx_runtime_memory;
    const Graph g{{{0}, {1}, {2}}, {{1}, {2}, {3}}, {0}, {3}};
    const auto oracle = [](orm::ValueId v) { return std::optional<std::size_t>(16 * (v + 1)); };
    const auto order = orm::memory_aware_order(g, {}, oracle);
    if (!order) return 1;
    auto planned = orm::PlannedModel::create(g, {}, {}, {.alignment = 64}, order->order);
    if (!planned) return 1;
    for (std::size_t batch = 1; batch <= 4; ++batch) {
        const auto sized = [batch](orm::ValueId v) { return std::optional<std::size_t>(batch * 16 * (v + 1)); };
        if (!planned->plan(sized) || !planned->validate(g, sized)) return 1;
        std::printf("%zu %zu\n", planned->arena().arena_bytes, planned->placements()[3].offset);
    }
}
