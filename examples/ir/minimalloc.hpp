// Reader for MiniMalloc's CSV instances (header "id,lower,upper,size"; each
// row a buffer live over the half-open time range [lower, upper)): as buffer
// records for the graph-free offsets layer, or as a graph.
#pragma once

#include <onnx_runtime_memory/expected.hpp>
#include <onnx_runtime_memory/plan_types.hpp>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "graph.hpp"
#include "graph_text.hpp"

namespace ir {

// A MiniMalloc instance as buffer records for the graph-free layer. Each
// time is replaced by its rank among the distinct times, so buffer i lives
// over the inclusive positions [rank(lower), rank(upper) - 1].
struct MiniMallocInstance {
    std::string name;                  // the file name up to its first '.'
    std::vector<std::string> ids;      // buffer i's id as written
    std::vector<orm::Buffer> buffers;  // in file order
    // The same buffers over their real times, [lower, upper - 1], when every
    // time is below orm::max_graph_ids (else empty): what the graph-free
    // layer plans, so the exact search breaks ties by the real widths.
    std::vector<orm::Buffer> timed;
    std::vector<std::int64_t> times;   // the distinct times, ascending: times[rank]
};

[[nodiscard]] inline onnx_runtime_memory::expected<MiniMallocInstance, ReadError> read_minimalloc(const std::string& path) {
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
    std::unordered_map<std::string, std::size_t> seen;  // id -> line
    for (const Row& r : rows)
        if (auto [it, fresh] = seen.try_emplace(r.id, r.line); !fresh)
            return unexpected(ReadError{r.line, "buffer id '" + r.id + "' appears twice (first on line " +
                                                    std::to_string(it->second) + ")"});
    MiniMallocInstance inst;
    const std::string file = path.substr(path.find_last_of('/') + 1);
    inst.name = file.substr(0, file.find('.'));
    for (const Row& r : rows) {
        inst.times.push_back(r.lower);
        inst.times.push_back(r.upper);
    }
    std::sort(inst.times.begin(), inst.times.end());
    inst.times.erase(std::unique(inst.times.begin(), inst.times.end()), inst.times.end());
    const auto rank = [&](std::int64_t t) {
        return static_cast<NodeIndex>(std::lower_bound(inst.times.begin(), inst.times.end(), t) - inst.times.begin());
    };
    const bool fits = inst.times.empty() || inst.times.back() <= static_cast<std::int64_t>(orm::max_graph_ids);
    for (const Row& r : rows) {
        inst.ids.push_back(r.id);
        inst.buffers.push_back(orm::Buffer{static_cast<std::size_t>(r.size), rank(r.lower), rank(r.upper) - 1});
        if (fits)
            inst.timed.push_back(orm::Buffer{static_cast<std::size_t>(r.size), static_cast<NodeIndex>(r.lower),
                                             static_cast<NodeIndex>(r.upper - 1)});
    }
    return inst;
}

// The instance as a graph, for tools that take graphs (plan_graph's report):
// one node per distinct time but the last (no buffer starts there); buffer
// b, typed uint8[size], is an output of the node at its first time and an
// input of the node at its last, so two buffers meet in the graph iff their
// time ranges overlap.
// Value i is buffer i.
[[nodiscard]] inline Graph minimalloc_graph(const MiniMallocInstance& inst) {
    const std::size_t nodes = inst.times.empty() ? 0 : inst.times.size() - 1;
    std::vector<std::vector<ValueId>> ins(nodes), outs(nodes);
    Graph g(inst.name);
    for (std::size_t i = 0; i < inst.buffers.size(); ++i) {
        const orm::Buffer& b = inst.buffers[i];
        const ValueId v = g.value("b" + inst.ids[i]);
        const DimSpec dims[] = {DimSpec(static_cast<std::int64_t>(b.size))};
        g.set_type(v, ElementType::uint8, dims);
        outs[b.first].push_back(v);
        if (b.last > b.first) ins[b.last].push_back(v);
    }
    for (std::size_t n = 0; n < nodes; ++n) {
        // "t" and the time, written with to_chars: g++ 12 warns falsely (-Wrestrict) on std::string's
        // concatenation and assignment here, at -O2 and -O3.
        char op[24] = {'t'};
        const char* end = std::to_chars(op + 1, op + sizeof op, inst.times[n]).ptr;
        g.add_node(std::string_view(op, static_cast<std::size_t>(end - op)), ins[n], outs[n]);
    }
    return g;
}
[[nodiscard]] inline onnx_runtime_memory::expected<Graph, ReadError> read_minimalloc_csv(const std::string& path) {
    auto inst = read_minimalloc(path);
    if (!inst) return onnx_runtime_memory::unexpected(inst.error());
    return minimalloc_graph(*inst);
}

}  // namespace ir
