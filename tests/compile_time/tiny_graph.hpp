// The graph the compile-time units plan (three nodes in a chain, four
// values), stored the simple way an IR might: only the names the graph
// concept asks for.
#pragma once

#include <cstddef>
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
