// Reader for MiniMalloc's CSV instances (header "id,lower,upper,size"; each
// row a buffer live over the half-open time range [lower, upper)), turned
// into a graph: one node per distinct time; buffer b is an output of the
// node at `lower` and an input of the last node before `upper`. A buffer
// typed uint8[size] then has exactly its size, and two buffers overlap in
// the graph iff their time ranges overlap.
#pragma once

#include <onnx_runtime_memory/expected.hpp>

#include <algorithm>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "graph.hpp"
#include "graph_text.hpp"

namespace ir {

[[nodiscard]] inline onnx_runtime_memory::expected<Graph, ReadError> read_minimalloc_csv(const std::string& path) {
    using onnx_runtime_memory::unexpected;
    auto text = read_file(path);  // regular files only; a failed read is an error, never an early end
    if (!text) return unexpected(text.error());
    struct Row {
        std::string id;
        std::int64_t lower, upper, size;
        std::size_t line;
    };
    std::vector<Row> rows;
    std::istringstream in(*text);
    std::string line;
    std::size_t line_no = 0;
    while (std::getline(in, line)) {
        ++line_no;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line_no == 1 && line.starts_with(detail::utf8_bom)) line.erase(0, detail::utf8_bom.size());
        if (detail::has_control(line)) return unexpected(ReadError{line_no, "a control character in the line"});
        if (line_no == 1) {
            if (line != "id,lower,upper,size") return unexpected(ReadError{1, "expected the header 'id,lower,upper,size'"});
            continue;
        }
        if (line.empty()) continue;
        std::istringstream fields(line);
        Row r;
        r.line = line_no;
        char c1 = 0, c2 = 0, c3 = 0;
        if (!std::getline(fields, r.id, ',') || !(fields >> r.lower >> c1 >> r.upper >> c2 >> r.size) || c1 != ',' ||
            c2 != ',' || (fields >> c3) || r.lower < 0 || r.upper <= r.lower || r.size < 0)
            return unexpected(ReadError{line_no, "expected 'id,lower,upper,size' with 0 <= lower < upper, size >= 0"});
        rows.push_back(r);
    }
    if (line_no == 0) return unexpected(ReadError{1, "empty file: the header 'id,lower,upper,size' is missing"});
    std::vector<std::int64_t> times;
    for (const Row& r : rows) {
        times.push_back(r.lower);
        times.push_back(r.upper);
    }
    std::sort(times.begin(), times.end());
    times.erase(std::unique(times.begin(), times.end()), times.end());
    const auto index = [&](std::int64_t t) {
        return static_cast<std::size_t>(std::lower_bound(times.begin(), times.end(), t) - times.begin());
    };
    // Nodes are the distinct times but the last (no buffer starts there).
    const std::size_t nodes = times.empty() ? 0 : times.size() - 1;
    std::vector<std::vector<ValueId>> ins(nodes), outs(nodes);
    std::string name = path.substr(path.find_last_of('/') + 1);
    Graph g(name.substr(0, name.find('.')));
    for (const Row& r : rows) {
        const ValueId v = g.value("b" + r.id);
        if (g.has_type(v)) return unexpected(ReadError{r.line, "buffer id '" + r.id + "' appears twice"});
        const DimSpec dims[] = {DimSpec(r.size)};
        g.set_type(v, ElementType::uint8, dims);
        const std::size_t def = index(r.lower), last = index(r.upper) - 1;
        outs[def].push_back(v);
        if (last > def) ins[last].push_back(v);
    }
    for (std::size_t n = 0; n < nodes; ++n) g.add_node("t" + std::to_string(times[n]), ins[n], outs[n]);
    return g;
}

}  // namespace ir
