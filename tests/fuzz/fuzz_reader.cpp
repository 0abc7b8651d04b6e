// libFuzzer: the graph text reader. Any input reads as a graph or as an
// error with a line; it never crashes, hangs or reads out of bounds.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "ir/graph_text.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    auto g = ir::read_graph_text(text);
    if (!g) {
        if (g.error().message.empty()) std::abort();
        return 0;
    }
    // A graph that read has ids in range everywhere.
    for (std::size_t n = 0; n < g->node_count(); ++n) {
        for (auto v : g->node_inputs(n))
            if (v >= g->value_count()) std::abort();
        for (auto v : g->node_outputs(n))
            if (v >= g->value_count()) std::abort();
    }
    return 0;
}
