// Not built: a test compiles it and expects the compiler's first lines to
// name the function the graph type lacks (is_initializer) when the graph
// goes to PlannedModel::create.
#include <onnx_runtime_memory/onnx_runtime_memory.hpp>

#include <vector>

namespace orm = onnx_runtime_memory;

struct NoInitializer {
    std::vector<std::vector<unsigned>> io{{0}, {1}};
    std::size_t value_count() const { return 2; }
    std::size_t node_count() const { return 1; }
    const std::vector<unsigned>& node_inputs(std::size_t) const { return io[0]; }
    const std::vector<unsigned>& node_outputs(std::size_t) const { return io[1]; }
    const std::vector<unsigned>& graph_inputs() const { return io[0]; }
    const std::vector<unsigned>& graph_outputs() const { return io[1]; }
};

int main() {
    auto model = orm::PlannedModel::create(NoInitializer{}, orm::ViewMap{});
    return model ? 0 : 1;
}
