// Plans slots for a small IR of its own and validates the plan: what an
// executor's planning file includes when it needs no arena.
#include <onnx_runtime_memory/plan.hpp>
#include <onnx_runtime_memory/validate.hpp>

#include <cstdio>
#include <optional>
#include <vector>

namespace {
struct Graph {
    std::vector<std::vector<unsigned>> in, out;
    std::vector<unsigned> inputs, outputs;
    std::size_t value_count() const { return 4; }
    std::size_t node_count() const { return in.size(); }
    const std::vector<unsigned>& node_inputs(std::size_t n) const { return in[n]; }
    const std::vector<unsigned>& node_outputs(std::size_t n) const { return out[n]; }
    const std::vector<unsigned>& graph_inputs() const { return inputs; }
    const std::vector<unsigned>& graph_outputs() const { return outputs; }
    bool is_initializer(unsigned) const { return false; }
};
}  // namespace

int main() {
    namespace orm = onnx_runtime_memory;
    const Graph g{{{0}, {1}, {2}}, {{1}, {2}, {3}}, {0}, {3}};
    const auto oracle = [](orm::ValueId v) { return std::optional<std::size_t>(16 * (v + 1)); };
    auto slots = orm::plan_activations(g, {}, oracle);
    if (!slots || !slots->is_complete() || !orm::validate(g, {}, slots->plan(), oracle)) return 1;
    std::printf("%zu\n", slots->plan().peak_bytes);
}
