// Plans slots for the small IR of tiny_graph.hpp and validates the plan: what an
// executor's planning file includes when it needs no arena.
#include <onnx_runtime_memory/plan.hpp>
#include <onnx_runtime_memory/validate.hpp>

#include <cstdio>
#include <optional>
#include <vector>

#include "tiny_graph.hpp"

int main() {
    namespace orm = onnx_runtime_memory;
    const Graph g{{{0}, {1}, {2}}, {{1}, {2}, {3}}, {0}, {3}};
    const auto oracle = [](orm::ValueId v) { return std::optional<std::size_t>(16 * (v + 1)); };
    auto slots = orm::plan_activations(g, {}, oracle);
    if (!slots || !slots->is_complete() || !orm::validate(g, {}, slots->plan(), oracle)) return 1;
    std::printf("%zu\n", slots->plan().peak_bytes);
}
