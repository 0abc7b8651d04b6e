// Reader for the graph text format, version 1 (examples/graph_text.md).
// Malformed input is a ReadError naming the line, never an exception.
#pragma once

#include <onnx_runtime_memory/expected.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "graph.hpp"

namespace ir {

struct ReadError {
    std::size_t line = 0;  // 1-based; 0 when not about a line (e.g. an unreadable file)
    std::string message;

    [[nodiscard]] std::string describe() const {
        return line == 0 ? message : "line " + std::to_string(line) + ": " + message;
    }
};

namespace detail {

inline constexpr std::string_view header = "# onnx-runtime-memory graph text v1";

inline constexpr std::array<std::pair<std::string_view, ElementType>, 26> dtypes{{
    {"float", ElementType::float32},        {"float16", ElementType::float16},
    {"bfloat16", ElementType::bfloat16},    {"double", ElementType::float64},
    {"int8", ElementType::int8},            {"uint8", ElementType::uint8},
    {"int16", ElementType::int16},          {"uint16", ElementType::uint16},
    {"int32", ElementType::int32},          {"uint32", ElementType::uint32},
    {"int64", ElementType::int64},          {"uint64", ElementType::uint64},
    {"bool", ElementType::boolean},         {"string", ElementType::string},
    {"complex64", ElementType::complex64},  {"complex128", ElementType::complex128},
    {"float8e4m3fn", ElementType::float8e4m3fn}, {"float8e4m3fnuz", ElementType::float8e4m3fnuz},
    {"float8e5m2", ElementType::float8e5m2},     {"float8e5m2fnuz", ElementType::float8e5m2fnuz},
    {"float8e8m0", ElementType::float8e8m0},
    {"int4", ElementType::int4},            {"uint4", ElementType::uint4},
    {"float4e2m1", ElementType::float4e2m1}, {"int2", ElementType::int2},
    {"uint2", ElementType::uint2},
}};

inline bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// Control characters (other than tab) would reach terminals, SVG and JSON.
inline bool has_control(std::string_view line) {
    for (char c : line)
        if ((static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7f) return true;
    return false;
}

inline constexpr std::string_view utf8_bom = "\xEF\xBB\xBF";

inline void split_tokens(std::string_view line, std::vector<std::string_view>& out) {
    out.clear();
    std::size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && is_space(line[i])) ++i;
        const std::size_t start = i;
        while (i < line.size() && !is_space(line[i])) ++i;
        if (i > start) out.push_back(line.substr(start, i - start));
    }
}

inline bool is_symbol(std::string_view s) {
    if (s.empty() || (s[0] >= '0' && s[0] <= '9')) return false;
    for (char c : s)
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return false;
    return true;
}

// Parses "<dtype>[<dim>,...]"; on failure returns a message.
inline std::string parse_type(std::string_view text, ElementType& type, std::vector<DimSpec>& dims,
                              bool& rank_known) {
    const std::size_t open = text.find('[');
    if (open == std::string_view::npos || text.back() != ']')
        return "type '" + std::string(text) + "' is not <dtype>[<dims>]";
    const std::string_view dtype = text.substr(0, open);
    bool found = false;
    for (const auto& [name, t] : dtypes) {
        if (name == dtype) {
            type = t;
            found = true;
        }
    }
    if (!found) return "unknown element type '" + std::string(dtype) + "'";
    std::string_view list = text.substr(open + 1, text.size() - open - 2);
    dims.clear();
    rank_known = true;
    if (list == "?") {
        rank_known = false;
        return {};
    }
    if (list.empty()) return {};
    for (;;) {
        const std::size_t comma = list.find(',');
        const std::string_view d = list.substr(0, comma);
        if (d == "?") {
            dims.push_back(DimSpec::unknown());
        } else if (!d.empty() && d[0] >= '0' && d[0] <= '9') {
            std::int64_t n = 0;
            for (char c : d) {
                if (c < '0' || c > '9') return "bad dimension '" + std::string(d) + "'";
                if (n > (std::numeric_limits<std::int64_t>::max() - (c - '0')) / 10)
                    return "dimension '" + std::string(d) + "' is too large";
                n = n * 10 + (c - '0');
            }
            dims.emplace_back(n);
        } else if (is_symbol(d)) {
            dims.emplace_back(std::string(d));
        } else {
            return "bad dimension '" + std::string(d) + "'";
        }
        if (comma == std::string_view::npos) break;
        list.remove_prefix(comma + 1);
    }
    return {};
}

// A byte count: decimal digits, at most SIZE_MAX.
[[nodiscard]] inline std::string parse_bytes(std::string_view t, std::size_t& out) {
    out = 0;
    if (t.empty()) return "bad byte count ''";
    for (char c : t) {
        if (c < '0' || c > '9') return "bad byte count '" + std::string(t) + "'";
        const auto digit = static_cast<std::size_t>(c - '0');
        if (out > (std::numeric_limits<std::size_t>::max() - digit) / 10)
            return "byte count '" + std::string(t) + "' is too large";
        out = out * 10 + digit;
    }
    return {};
}

}  // namespace detail

// Reads graph text v1. Checks: the header line; one `graph` line before the
// rest; known keywords and well-formed lines; every value defined exactly
// once (input, weight or node output); at most one `value` line per value,
// and one `view` or `part` line;
// every value named anywhere is defined somewhere. Node order is not checked
// here: the planner checks it.
[[nodiscard]] inline onnx_runtime_memory::expected<Graph, ReadError> read_graph_text(std::string_view text) {
    using onnx_runtime_memory::unexpected;
    const auto fail = [](std::size_t line, std::string message) {
        return unexpected(ReadError{line, std::move(message)});
    };
    Graph g;
    std::vector<std::uint32_t> defined_at;   // by value id: line of its definition, 0 if none yet
    std::vector<std::uint32_t> first_named;  // by value id: first line naming it
    std::vector<std::uint32_t> stated_view;  // by value id: line of its `view` or `part` line, 0 if none
    std::vector<bool> typed, output;
    const auto name_value = [&](std::string_view name, std::size_t line) {
        const ValueId v = g.value(name);
        if (v >= first_named.size()) {
            first_named.resize(std::size_t{v} + 1, 0);
            defined_at.resize(std::size_t{v} + 1, 0);
            typed.resize(std::size_t{v} + 1, false);
            output.resize(std::size_t{v} + 1, false);
            stated_view.resize(std::size_t{v} + 1, 0);
        }
        if (first_named[v] == 0) first_named[v] = static_cast<std::uint32_t>(line);
        return v;
    };
    const auto valid_name = [](std::string_view t) { return t != "-" && t != "->"; };

    std::vector<std::string_view> tok;
    std::vector<DimSpec> dims;
    std::vector<ValueId> ins, outs;
    bool have_graph = false;
    std::size_t line_no = 0;
    std::size_t pos = 0;
    while (pos < text.size()) {
        std::size_t end = text.find('\n', pos);
        if (end == std::string_view::npos) end = text.size();
        std::string_view line = text.substr(pos, end - pos);
        pos = end + 1;
        ++line_no;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (line_no == 1 && line.starts_with(detail::utf8_bom)) line.remove_prefix(detail::utf8_bom.size());
        if (detail::has_control(line))
            return fail(line_no, "a control character (other than tab) in the line: names must be printable");
        if (line_no == 1) {
            if (line != detail::header)
                return fail(1, "the first line must be '" + std::string(detail::header) + "'");
            continue;
        }
        detail::split_tokens(line, tok);
        if (tok.empty() || tok[0][0] == '#') continue;
        const std::string_view kw = tok[0];
        if (kw == "graph") {
            if (have_graph) return fail(line_no, "a second 'graph' line");
            if (tok.size() != 2) return fail(line_no, "'graph' takes one name");
            g.set_name(std::string(tok[1]));
            have_graph = true;
            continue;
        }
        if (!have_graph) return fail(line_no, "'" + std::string(kw) + "' before the 'graph' line");
        if (kw == "value") {
            if (tok.size() != 3) return fail(line_no, "'value' takes a name and a type");
            if (!valid_name(tok[1])) return fail(line_no, "'" + std::string(tok[1]) + "' is not a value name");
            ElementType type{};
            bool rank_known = true;
            if (auto err = detail::parse_type(tok[2], type, dims, rank_known); !err.empty())
                return fail(line_no, std::move(err));
            const ValueId v = name_value(tok[1], line_no);
            if (typed[v]) return fail(line_no, "value '" + std::string(tok[1]) + "' has a second 'value' line");
            typed[v] = true;
            g.set_type(v, type, dims, rank_known);
        } else if (kw == "input" || kw == "weight" || kw == "output") {
            if (tok.size() != 2) return fail(line_no, "'" + std::string(kw) + "' takes one value name");
            if (!valid_name(tok[1])) return fail(line_no, "'" + std::string(tok[1]) + "' is not a value name");
            const ValueId v = name_value(tok[1], line_no);
            if (kw == "output") {
                if (output[v]) return fail(line_no, "value '" + std::string(tok[1]) + "' is already an output");
                output[v] = true;
                g.mark_output(v);
                continue;
            }
            if (defined_at[v] != 0)
                return fail(line_no, "value '" + std::string(tok[1]) + "' is already defined on line " +
                                         std::to_string(defined_at[v]));
            defined_at[v] = static_cast<std::uint32_t>(line_no);
            if (kw == "input") g.mark_input(v);
            else g.mark_initializer(v);
        } else if (kw == "node") {
            if (tok.size() < 3 || tok[1] == "->" || tok[1] == "-")
                return fail(line_no, "'node' takes an op type, inputs, '->' and outputs");
            std::size_t arrow = 0;
            for (std::size_t k = 2; k < tok.size(); ++k) {
                if (tok[k] != "->") continue;
                if (arrow != 0) return fail(line_no, "a second '->'");
                arrow = k;
            }
            if (arrow == 0) return fail(line_no, "'node' without '->'");
            ins.clear();
            outs.clear();
            for (std::size_t k = 2; k < arrow; ++k)
                if (tok[k] != "-") ins.push_back(name_value(tok[k], line_no));
            for (std::size_t k = arrow + 1; k < tok.size(); ++k) {
                if (tok[k] == "-") continue;
                const ValueId v = name_value(tok[k], line_no);
                if (defined_at[v] != 0)
                    return fail(line_no, "value '" + std::string(tok[k]) + "' is already defined on line " +
                                             std::to_string(defined_at[v]));
                defined_at[v] = static_cast<std::uint32_t>(line_no);
                outs.push_back(v);
            }
            g.add_node(tok[1], ins, outs, line_no);
        } else if (kw == "view" || kw == "part") {
            if (tok.size() != 6 || tok[2] != "of" || tok[4] != "at")
                return fail(line_no, "'" + std::string(kw) + "' takes '" + std::string(kw) + " NAME of " +
                                         (kw == "view" ? "SOURCE" : "WHOLE") + " at BYTES'");
            if (!valid_name(tok[1]) || !valid_name(tok[3]))
                return fail(line_no, "'" + std::string(valid_name(tok[1]) ? tok[3] : tok[1]) + "' is not a value name");
            std::size_t offset = 0;
            if (auto err = detail::parse_bytes(tok[5], offset); !err.empty()) return fail(line_no, std::move(err));
            const ValueId v = name_value(tok[1], line_no);
            if (stated_view[v] != 0)
                return fail(line_no, "value '" + std::string(tok[1]) + "' is already a view or part on line " +
                                         std::to_string(stated_view[v]));
            stated_view[v] = static_cast<std::uint32_t>(line_no);
            g.add_view(v, name_value(tok[3], line_no), offset, kw == "part");
        } else {
            return fail(line_no, "unknown keyword '" + std::string(kw) + "'");
        }
    }
    if (line_no == 0) return fail(1, "empty file: the header line is missing");
    if (!have_graph) return fail(line_no, "no 'graph' line");
    for (std::size_t v = 0; v < g.value_count(); ++v)
        if (defined_at[v] == 0)
            return fail(first_named[v], "value '" + std::string(g.value_name(static_cast<ValueId>(v))) +
                                            "' is never defined (no input, weight or node output)");
    return g;
}

// The largest file read_file takes: far above any real graph, far below
// what would exhaust memory.
inline constexpr std::uintmax_t max_file_bytes = std::uintmax_t{1} << 30;

// The whole of a regular file. Anything else is a ReadError with line 0:
// a directory, a FIFO (which would block), a device such as /dev/zero (which
// never ends), a file over max_file_bytes, or a read that fails part way.
[[nodiscard]] inline onnx_runtime_memory::expected<std::string, ReadError> read_file(const std::string& path) {
    using onnx_runtime_memory::unexpected;
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (ec) return unexpected(ReadError{0, "cannot open '" + path + "': " + ec.message()});
    if (!std::filesystem::is_regular_file(status))
        return unexpected(ReadError{0, "'" + path + "' is not a regular file (a directory, FIFO or device): only files are read"});
    const std::uintmax_t size = std::filesystem::file_size(path, ec);
    if (ec) return unexpected(ReadError{0, "cannot read '" + path + "': " + ec.message()});
    if (size > max_file_bytes)
        return unexpected(ReadError{0, "'" + path + "' is " + std::to_string(size) + " bytes, over the " +
                                           std::to_string(max_file_bytes) + "-byte limit"});
    std::ifstream in(path, std::ios::binary);
    if (!in) return unexpected(ReadError{0, "cannot open '" + path + "'"});
    std::string text(static_cast<std::size_t>(size), '\0');
    in.read(text.data(), static_cast<std::streamsize>(size));
    if (static_cast<std::uintmax_t>(in.gcount()) != size || in.bad())
        return unexpected(ReadError{0, "cannot read '" + path + "': the read stopped part way"});
    return text;
}

// Reads a graph text file; an unreadable file is a ReadError with line 0.
[[nodiscard]] inline onnx_runtime_memory::expected<Graph, ReadError> read_graph_file(const std::string& path) {
    auto text = read_file(path);
    if (!text) return onnx_runtime_memory::unexpected(text.error());
    return read_graph_text(*text);
}

}  // namespace ir
