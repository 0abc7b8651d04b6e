// plan_graph: plan a model and show the plan.
//
//   plan_graph [options] FILE|DIR
//
// FILE is graph text (.graph, see examples/graph_text.md) or a MiniMalloc
// instance (.csv). A directory plans every .graph and .csv file in it, one
// line each; a file that cannot be read or planned is reported and the rest
// go on.
//
//   --json                 one JSON object per file instead of the report
//   --views OP,OP,...|none ops whose output is a view of their first input
//                          (default Reshape,Flatten,Squeeze,Unsqueeze,Identity;
//                          none for .csv files)
//   --slices               Splits and Concats of contiguous pieces copy nothing: a
//                          Split's outputs become views of its input at their byte
//                          offsets, a Concat's inputs parts of its output
//                          (ir::add_slices); graph text `view` and `part` lines
//                          state such views and parts too, always
//   --inputs               put graph inputs in the arena
//   --bounds SYM=N,...     size symbolic dimensions at these bounds
//   --align N              arena offset alignment in bytes (default 64)
//   --exact N              node budget of the arena's exact search (default 0)
//   --search N             randomised skyline restarts for the arena (default 0)
//   --time-limit-ms N      stop those searches after N ms (default: no limit)
//   --cpu-clock            count --time-limit-ms in this thread's CPU time, not wall time
//   --svg FILE             draw the plan as a memory timeline (one file only)
//   --outputs arena|external  graph outputs in the arena (default) or allocated by the executor
//   --unknown defer|dynamic   unknown sizes defer the plan (default), or are left to run time
//   --slots STRATEGY       the slot plan's strategy: best_fit (default), in_order_growth,
//                          greedy_by_size, greedy_by_distance or least (orm::SlotStrategy)
//   --placements FILE      write every value's placement as JSON (one file only)
//   --scratch NODE=BYTES,...  workspace of the file's NODE-th node (from 0; it follows
//                          its node through --reorder); graphs only, as are --inplace,
//                          --reorder, --write-order and --space
//   --space NAME[=BYTES][@ALIGN]  a memory space (repeatable; the first is preferred):
//                          BYTES its capacity (K, M, G: binary units; none: unbounded),
//                          ALIGN its alignment (default --align); each owner and
//                          scratch goes to the first space where it fits (orm::plan_arena_spaces)
//   --streams K|FILE       also plan for streams running at once (orm::plan_arena_concurrent):
//                          K streams, nodes by orm::streams_by_list_scheduling, or FILE's
//                          `NODE-POSITION STREAM` lines (# comments; an unlisted node on
//                          stream 0); graphs only. With --inplace, the in-place plan
//                          on those streams too (the hints safe there taken)
//   --spill                with --space: the first space is the fast one, where every
//                          value is read and written; values wait in the second (default
//                          host, unbounded) between uses (orm::plan_arena_spill). Below
//                          a node's floor it exits 1 and lists the nodes that do not fit;
//                          --svg then draws a panel per space and marks the copies
//
// Exit status: 0 planned, 2 deferred (some size unknown), 1 error.
#include <onnx_runtime_memory/fmt.hpp>
#include <onnx_runtime_memory/onnx_runtime_memory.hpp>

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/describe.hpp"
#include "ir/graph.hpp"
#include "ir/graph_text.hpp"
#include "ir/inplace.hpp"
#include "ir/minimalloc.hpp"
#include "ir/views.hpp"
#include "svg.hpp"

namespace orm = onnx_runtime_memory;

namespace {

struct Args {
    std::vector<std::string> paths;
    bool json = false;
    bool slices = false;  // --slices
    orm::PlanOptions options;
    std::optional<std::vector<std::string>> view_ops;  // nullopt: the default for the file type
    orm::SymbolBounds bounds;
    std::vector<std::string> bound_names;  // --bounds' symbols, to check that the graph has them
    orm::ArenaOptions arena;
    std::string svg;
    std::string placements;
    std::optional<std::vector<std::string>> inplace_ops;  // --inplace: also plan with these ops in place
    bool reorder = false;     // --reorder: plan in a memory-aware order
    orm::SlotStrategy slots = orm::SlotStrategy::best_fit;  // --slots
    std::string write_order;  // --write-order FILE: the graph text in that order
    // --scratch NODE=BYTES: by node as the file lists them (it follows its
    // node through --reorder); checked against the graph once it is read.
    std::vector<std::pair<std::size_t, std::size_t>> scratch;
    std::vector<std::string> spaces;  // --space NAME[=BYTES][@ALIGN], parsed once the alignment is known
    bool spill = false;               // --spill: the first space fast, the second slow
    std::size_t streams = 0;          // --streams K: also plan for K streams (0: no)
    std::string streams_file;         // --streams FILE: the stream of each node position
};

constexpr int planned = 0, failed = 1, deferred = 2;

constexpr const char* usage_text =
    "usage: plan_graph [--json] [--inputs] [--views OP,OP,...|none] [--slices] [--bounds SYM=N,...]\n"
    "                  [--align N] [--exact N] [--search N] [--time-limit-ms N] [--cpu-clock] [--svg FILE]\n"
    "                  [--outputs arena|external] [--unknown defer|dynamic] [--scratch NODE=BYTES,...]\n"
    "                  [--slots best_fit|in_order_growth|greedy_by_size|greedy_by_distance|least]\n"
    "                  [--inplace [OP,OP,...]] [--reorder] [--write-order FILE] [--placements FILE]\n"
    "                  [--space NAME[=BYTES][@ALIGN] ...] [--spill] [--streams K|FILE] FILE|DIR\n"
    "Plans a graph text file (.graph) or a MiniMalloc instance (.csv), or every such file in a directory.\n"
    "Only regular files are read. Exit status: 0 planned, 2 deferred (some size unknown), 1 error.\n";

int usage(std::string_view why) {
    fmt::print(stderr, "plan_graph: {}\n{}", why, usage_text);
    return failed;
}

std::vector<std::string> split(std::string_view s, char sep) {
    std::vector<std::string> out;
    while (!s.empty()) {
        const auto at = s.find(sep);
        if (at != 0) out.emplace_back(s.substr(0, at));
        if (at == std::string_view::npos) break;
        s.remove_prefix(at + 1);
    }
    return out;
}

std::optional<std::size_t> parse_count(std::string_view s) {
    if (s.empty() || s.size() > 18) return std::nullopt;
    std::size_t n = 0;
    for (char c : s) {
        if (c < '0' || c > '9') return std::nullopt;
        n = n * 10 + static_cast<std::size_t>(c - '0');
    }
    return n;
}

// --space NAME[=BYTES][@ALIGN]: BYTES may end in K, M or G (binary units);
// no BYTES is unbounded, no ALIGN `alignment`.
std::optional<orm::MemorySpace> parse_space(std::string_view text, std::size_t alignment) {
    orm::MemorySpace space;
    space.alignment = alignment;
    if (const auto at = text.find('@'); at != std::string_view::npos) {
        const auto align = parse_count(text.substr(at + 1));
        if (!align || *align == 0) return std::nullopt;
        space.alignment = *align;
        text = text.substr(0, at);
    }
    if (const auto eq = text.find('='); eq != std::string_view::npos) {
        std::string_view bytes = text.substr(eq + 1);
        std::size_t unit = 1;
        if (!bytes.empty() && (bytes.back() == 'K' || bytes.back() == 'M' || bytes.back() == 'G')) {
            unit = std::size_t{1} << (bytes.back() == 'K' ? 10 : bytes.back() == 'M' ? 20 : 30);
            bytes.remove_suffix(1);
        }
        const auto n = parse_count(bytes);
        if (!n || *n > orm::unbounded / unit - 1) return std::nullopt;
        space.capacity = *n * unit;
        text = text.substr(0, eq);
    }
    if (text.empty()) return std::nullopt;
    space.name = std::string(text);
    return space;
}

std::string human(std::size_t bytes) {
    constexpr const char* unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double x = static_cast<double>(bytes);
    int u = 0;
    while (x >= 1024.0 && u < 6) {
        x /= 1024.0;
        ++u;
    }
    return u == 0 ? fmt::format("{} B", bytes) : fmt::format("{:.1f} {}", x, unit[u]);
}

double micros_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
}

std::string json_string(std::string_view s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        if (static_cast<unsigned char>(c) < 0x20) out += fmt::format("\\u{:04x}", static_cast<int>(c));
        else out += c;
    }
    return out + "\"";
}

// Everything known about one planned file.
struct Analysis {
    std::string file;
    ir::Graph g;
    orm::ViewMap views;
    double load_us = 0, plan_us = 0, arena_us = 0;
    orm::SlotStrategy slot_strategy = orm::SlotStrategy::best_fit;
    orm::Liveness live;
    std::optional<orm::PlanStatus> status;
    std::optional<orm::LowerBounds> bounds;
    std::optional<orm::ArenaPlan> arena;
    std::vector<std::size_t> sizes;       // by value id (owners)
    std::vector<std::size_t> live_bytes;  // by position
    std::size_t peak_position = 0;
    // --inplace: the hints the op list gives, how many were taken, and the arena with them.
    std::size_t inplace_hints = 0, inplace_taken = 0;
    ir::Slices slices;  // --slices: the Splits' outputs made views at an offset, the Concats' inputs parts
    std::vector<orm::NodeIndex> no_ops;  // and the Concats that then copy nothing (orm::no_op_nodes)
    std::size_t streams = 0;               // --streams K: the arena for K streams, and its bound
    std::optional<orm::ArenaPlan> concurrent;
    double concurrent_us = 0;
    std::optional<orm::ArenaPlan> concurrent_inplace;  // --streams with --inplace
    std::size_t concurrent_inplace_taken = 0;
    std::optional<orm::ArenaPlan> inplace_arena;
    std::optional<std::size_t> inplace_bound;
    std::optional<orm::MemoryOrder> order;  // --reorder: the order planned in
    orm::SymbolBounds bounds_used;          // --bounds
    orm::PlanOptions options;               // the policies planned with, scratch by position
    std::optional<orm::SpacedArenaPlan> spaced;  // --space: the plan across the spaces
    std::size_t node_floor = 0;                   // and the most one node needs (orm::node_floors)
    std::optional<orm::SpilledArenaPlan> spilled;  // --spill: the plan across a fast and a slow space
    orm::SpillOptions spill_options;
    std::size_t slow_bound = 0;  // no packing of the slow segments is smaller
};

// Whether v's size is unknown only because it overflows: its element type
// is known and every dimension is static or a bounded symbol.
bool size_overflows(const ir::Graph& g, orm::ValueId v, const orm::SymbolBounds& bounds) {
    if (!orm::element_bits(g.element_type(v))) return false;
    for (const orm::Dim d : g.dims(v))
        if (!d.is_static() && !(d.is_symbolic() && bounds.find(d.symbol))) return false;
    return true;
}

bool is_csv(const std::string& path) { return path.size() > 4 && path.ends_with(".csv"); }

// A symbol that stands for a data-dependent size (ONNX shape inference and
// torch's exporter name them unk__N): no bound makes it known before the run.
bool data_dependent(std::string_view symbol) { return symbol.starts_with("unk__"); }

// The symbols that leave these values' sizes unknown under `bounds`, sorted,
// each once; `unnamed` is set when some dimension has no symbol at all.
std::vector<std::string> missing_symbols(const ir::Graph& g, const std::vector<orm::ValueId>& values,
                                         const orm::SymbolBounds& bounds, bool& unnamed) {
    std::vector<std::string> out;
    unnamed = false;
    for (orm::ValueId v : values)
        for (const orm::Dim d : g.dims(v)) {
            if (d.is_symbolic() && !bounds.find(d.symbol)) out.emplace_back(d.symbol);
            else if (!d.is_static() && !d.is_symbolic()) unnamed = true;
        }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

std::string joined(const std::vector<std::string>& items, std::string_view sep = ", ") {
    std::string out;
    for (const auto& item : items) out += (out.empty() ? "" : std::string(sep)) + item;
    return out;
}

// --streams FILE: `NODE-POSITION STREAM` lines (blank lines and # comments
// skipped), a node not listed on stream 0. An error message, or empty.
std::string read_streams(const std::string& file, std::size_t nodes, orm::Streams& out) {
    const auto text = ir::read_file(file);
    if (!text) return text.error().describe();
    out.stream_of.assign(nodes, 0);
    std::size_t line_no = 0;
    for (std::size_t at = 0; at < text->size();) {
        const std::size_t end = std::min(text->find('\n', at), text->size());
        std::string_view line = std::string_view(*text).substr(at, end - at);
        at = end + 1;
        ++line_no;
        line = line.substr(0, line.find('#'));
        const auto words = split(std::string(line), ' ');
        std::vector<std::string> fields;
        for (const auto& w : words)
            if (!w.empty() && w != "\r" && w != "\t") fields.push_back(w);
        if (fields.empty()) continue;
        const auto node = fields.size() == 2 ? parse_count(fields[0]) : std::nullopt;
        const auto stream = fields.size() == 2 ? parse_count(fields[1]) : std::nullopt;
        if (!node || !stream) return fmt::format("{} line {}: expected NODE-POSITION STREAM", file, line_no);
        if (*node >= nodes) return fmt::format("{} line {}: node position {} is past the graph's {} nodes", file, line_no, *node, nodes);
        if (*stream >= orm::Streams::max_streams)
            return fmt::format("{} line {}: stream {} is past the last, {}", file, line_no, *stream, orm::Streams::max_streams - 1);
        out.stream_of[*node] = static_cast<std::uint32_t>(*stream);
    }
    return {};
}

// Reads, plans (slots, bounds, arena) and validates one file. On failure
// returns the message to print (file and line, or the culprit by name).
std::optional<std::string> analyze(const std::string& path, const Args& args, Analysis& a, bool in_directory) {
    a.file = path;
    a.bounds_used = args.bounds;
    const auto t_load = std::chrono::steady_clock::now();
    // A MiniMalloc instance is a buffer list: its arena comes from the
    // graph-free layer over the real times; the graph built from it serves
    // the report (two buffers meet in it iff their times overlap).
    std::optional<ir::MiniMallocInstance> instance;
    onnx_runtime_memory::expected<ir::Graph, ir::ReadError> graph = onnx_runtime_memory::unexpected(ir::ReadError{});
    if (is_csv(path)) {
        auto inst = ir::read_minimalloc(path);
        if (inst) {
            graph = ir::minimalloc_graph(*inst);
            instance = std::move(*inst);
        } else {
            graph = onnx_runtime_memory::unexpected(inst.error());
        }
    } else {
        graph = ir::read_graph_file(path);
    }
    a.load_us = micros_since(t_load);
    if (!graph) {
        const auto& e = graph.error();
        return e.line ? fmt::format("{}:{}: {}", path, e.line, e.message) : fmt::format("{}: {}", path, e.message);
    }
    a.g = std::move(*graph);
    if (instance) {  // a buffer list has no nodes to give scratch to, to reorder, or to run in place
        const char* needs_graph = !args.scratch.empty()      ? "--scratch"
                                  : args.reorder              ? "--reorder"
                                  : !args.write_order.empty() ? "--write-order"
                                  : args.inplace_ops          ? "--inplace"
                                  : !args.spaces.empty()      ? "--space"
                                  : args.streams > 0 || !args.streams_file.empty() ? "--streams"
                                                              : nullptr;
        if (needs_graph) return fmt::format("{}: {} needs a graph (.graph), not a buffer list (.csv)", path, needs_graph);
    }
    if (!args.bound_names.empty() && !in_directory) {  // a bound the graph cannot use is a typo
        std::vector<std::string> symbols;
        for (orm::ValueId v = 0; v < a.g.value_count(); ++v)
            for (const orm::Dim d : a.g.dims(v))
                if (d.is_symbolic()) symbols.emplace_back(d.symbol);
        std::sort(symbols.begin(), symbols.end());
        symbols.erase(std::unique(symbols.begin(), symbols.end()), symbols.end());
        for (const auto& name : args.bound_names)
            if (!std::binary_search(symbols.begin(), symbols.end(), name))
                return fmt::format("{}: --bounds {}: the graph has no symbol '{}' ({})", path, name, name,
                                   symbols.empty() ? std::string("it has none") : "its symbols: " + joined(symbols));
    }
    for (const auto& [node, bytes] : args.scratch)
        if (node >= a.g.node_count())
            return fmt::format("{}: --scratch {}={}: the graph has no node {} (it has {})", path, node, bytes, node,
                               a.g.node_count());
    a.options = args.options;  // with the scratch by position in the order planned
    auto& options = a.options;
    const auto place_scratch = [&](const std::vector<orm::NodeIndex>* order) {
        options.scratch_bytes.clear();
        if (args.scratch.empty()) return;
        options.scratch_bytes.assign(a.g.node_count(), 0);
        std::vector<std::size_t> position(a.g.node_count());
        for (std::size_t k = 0; k < position.size(); ++k) position[order ? (*order)[k] : k] = k;
        for (const auto& [node, bytes] : args.scratch) options.scratch_bytes[position[node]] = bytes;
    };
    place_scratch(nullptr);
    const auto view_ops = args.view_ops ? *args.view_ops : is_csv(path) ? std::vector<std::string>{} : ir::default_view_ops;
    const auto make_views = [&] {
        a.views = ir::views_from_ops(a.g, view_ops);
        if (!args.slices) return;
        orm::PlanOptions measured = a.options;  // the bound --slices keeps its edges by: with --inplace's hints
        if (args.inplace_ops) measured.inplace = ir::inplace_hints(a.g, *args.inplace_ops);
        const auto oracle = orm::bounded_size_oracle(a.g, args.bounds);
        a.slices = ir::add_slices(a.g, a.views, [&](const orm::ViewMap& views) -> std::optional<std::size_t> {
            auto live = orm::compute_liveness(a.g, views, measured);
            if (!live) return std::nullopt;
            const auto bounds = orm::lower_bounds(*live, oracle, args.arena.alignment);
            return bounds ? std::optional(bounds->offset_bytes) : std::nullopt;
        });
    };
    make_views();
    if ((args.reorder || !args.write_order.empty()) && !instance) {
        // The graph text with its node lines in the memory-aware order (the
        // other lines where they were), read again: the rest plans it.
        orm::OrderOptions oo;
        oo.alignment = args.arena.alignment;
        auto mo = orm::memory_aware_order(a.g, a.views, orm::bounded_size_oracle(a.g, args.bounds), options, oo);
        if (!mo) return fmt::format("{}: {}", path, ir::describe(a.g, mo.error()));
        auto text = ir::read_file(path);
        if (!text) return fmt::format("{}: {}", path, text.error().message);
        std::vector<std::string_view> lines;
        for (std::string_view rest = *text; !rest.empty();) {
            const auto end = rest.find('\n');
            lines.push_back(rest.substr(0, end));
            rest.remove_prefix(end == std::string_view::npos ? rest.size() : end + 1);
        }
        std::vector<bool> node_line(lines.size() + 1, false);
        for (std::size_t n = 0; n < a.g.node_count(); ++n)
            if (a.g.node_line(n) <= lines.size()) node_line[a.g.node_line(n)] = true;
        std::string out;
        for (std::size_t k = 0, next = 0; k < lines.size(); ++k) {
            out += node_line[k + 1] && next < a.g.node_count() ? lines[a.g.node_line(mo->order[next++]) - 1] : lines[k];
            out += '\n';
        }
        if (!args.write_order.empty()) {
            std::ofstream file(args.write_order, std::ios::binary | std::ios::trunc);
            file << out;
            if (!file.flush()) return "cannot write " + args.write_order;
        }
        auto reordered = ir::read_graph_text(out);
        if (!reordered) return fmt::format("{}: the reordered text: {}", path, reordered.error().describe());
        a.g = std::move(*reordered);
        make_views();
        place_scratch(&mo->order);  // each node's scratch where that node now runs
        a.order = std::move(*mo);
    }
    const auto oracle = orm::bounded_size_oracle(a.g, args.bounds);

    const auto t_plan = std::chrono::steady_clock::now();
    auto live = orm::compute_liveness(a.g, a.views, options);
    if (!live) return fmt::format("{}: {}", path, ir::describe(a.g, live.error()));
    auto status = orm::plan_activations(a.g, a.views, oracle, options, args.slots);
    a.plan_us = micros_since(t_plan);
    a.slot_strategy = args.slots;
    if (!status) return fmt::format("{}: {}", path, ir::describe(a.g, status.error()));
    a.live = std::move(*live);
    a.status = std::move(*status);
    if (a.status->is_deferred()) {
        // An owner whose every dimension is known (or bounded) and still has
        // no size overflowed: say so, rather than ask for bounds.
        for (orm::ValueId v : a.status->unknown_sizes())
            if (size_overflows(a.g, v, args.bounds))
                return fmt::format("{}: the byte size of value '{}' overflows std::size_t", path, a.g.value_name(v));
        return std::nullopt;
    }

    const auto& plan = a.status->plan();
    if (auto ok = orm::validate(a.g, a.views, plan, oracle, options); !ok)
        return fmt::format("{}: the slot plan is invalid: {}", path, ir::describe(a.g, ok.error()));
    const auto t_arena = std::chrono::steady_clock::now();
    if (instance) {
        const auto& records = instance->timed.empty() ? instance->buffers : instance->timed;
        auto offsets = orm::plan_offsets(records, args.arena);
        a.arena_us = micros_since(t_arena);
        if (!offsets) return fmt::format("{}: {}", path, offsets.error().message());
        if (auto ok = orm::validate_offsets(records, *offsets, args.arena.alignment); !ok)
            return fmt::format("{}: the offset plan is invalid: {}", path, ok.error().message());
        orm::ArenaPlan plan;  // value i is buffer i
        plan.offsets = std::move(offsets->offsets);
        plan.offsets.resize(a.g.value_count(), orm::no_offset);
        plan.arena_bytes = offsets->arena_bytes;
        plan.proven_bound_bytes = offsets->proven_bound_bytes;
        plan.alignment = offsets->alignment;
        plan.strategy = offsets->strategy;
        a.arena = std::move(plan);
    } else {
        auto arena = orm::plan_arena(a.g, a.views, oracle, options, args.arena);
        a.arena_us = micros_since(t_arena);
        if (!arena) return fmt::format("{}: {}", path, ir::describe(a.g, arena.error()));
        a.arena = std::move(*arena).plan();
    }
    if (auto ok = orm::validate_arena(a.g, a.views, *a.arena, oracle, args.arena.alignment, options); !ok)
        return fmt::format("{}: the arena plan is invalid: {}", path, ir::describe(a.g, ok.error()));
    a.no_ops = orm::no_op_nodes(a.g, a.views, oracle, options);
    if ((args.streams > 0 || !args.streams_file.empty()) && !instance) {
        orm::Streams streams;
        if (args.streams_file.empty()) {
            streams = orm::streams_by_list_scheduling(a.g, args.streams);
        } else if (auto read = read_streams(args.streams_file, a.g.node_count(), streams); !read.empty()) {
            return fmt::format("{}: --streams {}", path, read);
        }
        const std::size_t stream_count =
            streams.stream_of.empty() ? 1 : std::size_t{*std::max_element(streams.stream_of.begin(), streams.stream_of.end())} + 1;
        const auto t_streams = std::chrono::steady_clock::now();
        auto concurrent = orm::plan_arena_concurrent(a.g, a.views, oracle, streams, options, args.arena);
        a.concurrent_us = micros_since(t_streams);
        if (!concurrent) return fmt::format("{}: --streams: {}", path, ir::describe(a.g, concurrent.error()));
        if (concurrent->is_complete()) {
            a.concurrent = std::move(*concurrent).plan();
            if (auto ok = orm::validate_arena_concurrent(a.g, a.views, *a.concurrent, oracle, streams,
                                                         args.arena.alignment, options);
                !ok)
                return fmt::format("{}: the plan for {} streams is invalid: {}", path, stream_count,
                                   ir::describe(a.g, ok.error()));
        }
        a.streams = std::max(args.streams, stream_count);
        if (args.inplace_ops) {  // the in-place plan on the streams: the hints safe there
            orm::PlanOptions with = options;
            with.inplace = ir::inplace_hints(a.g, *args.inplace_ops);
            auto why = orm::explain_inplace_on_streams(a.g, a.views, streams, with);
            if (!why) return fmt::format("{}: {}", path, ir::describe(a.g, why.error()));
            a.concurrent_inplace_taken =
                static_cast<std::size_t>(std::count(why->begin(), why->end(), orm::InplaceResult::taken));
            auto in_place = orm::plan_arena_concurrent(a.g, a.views, oracle, streams, with, args.arena);
            if (!in_place) return fmt::format("{}: --streams --inplace: {}", path, ir::describe(a.g, in_place.error()));
            if (in_place->is_complete()) {
                a.concurrent_inplace = std::move(*in_place).plan();
                if (auto ok = orm::validate_arena_concurrent(a.g, a.views, *a.concurrent_inplace, oracle, streams,
                                                             args.arena.alignment, with);
                    !ok)
                    return fmt::format("{}: the in-place plan for {} streams is invalid: {}", path, stream_count,
                                       ir::describe(a.g, ok.error()));
            }
        }
    }
    if (args.inplace_ops && !instance) {  // the same plan with elementwise ops in place
        orm::PlanOptions with = options;
        with.inplace = ir::inplace_hints(a.g, *args.inplace_ops);
        a.inplace_hints = with.inplace.size();
        auto why = orm::explain_inplace(a.g, a.views, with);
        if (!why) return fmt::format("{}: {}", path, ir::describe(a.g, why.error()));
        a.inplace_taken = static_cast<std::size_t>(std::count(why->begin(), why->end(), orm::InplaceResult::taken));
        auto in_place = orm::plan_arena(a.g, a.views, oracle, with, args.arena);
        if (!in_place) return fmt::format("{}: {}", path, ir::describe(a.g, in_place.error()));
        a.inplace_arena = std::move(*in_place).plan();
        if (auto ok = orm::validate_arena(a.g, a.views, *a.inplace_arena, oracle, args.arena.alignment, with); !ok)
            return fmt::format("{}: the in-place arena plan is invalid: {}", path, ir::describe(a.g, ok.error()));
        auto live = orm::compute_liveness(a.g, a.views, with);
        if (!live) return fmt::format("{}: {}", path, ir::describe(a.g, live.error()));
        const auto bounds = orm::lower_bounds(orm::without_owners(std::move(*live), a.inplace_arena->dynamic_values), oracle,
                                              a.inplace_arena->alignment);
        if (bounds) a.inplace_bound = bounds->offset_bytes;
    }
    if (!args.spaces.empty() && !instance && args.spill) {  // a fast space and a slow one, and each node's floor
        auto& o = a.spill_options;
        o.fast = *parse_space(args.spaces[0], args.arena.alignment);
        o.slow = args.spaces.size() > 1 ? *parse_space(args.spaces[1], args.arena.alignment)
                                        : orm::MemorySpace{"host", orm::unbounded, args.arena.alignment};
        o.packing = args.arena;
        auto floors = orm::node_floors(a.g, a.views, oracle, options, o.fast.alignment);
        if (!floors) return fmt::format("{}: {}", path, ir::describe(a.g, floors.error()));
        a.node_floor = floors->empty() ? 0 : *std::max_element(floors->begin(), floors->end());
        auto spilled = orm::plan_arena_spill(a.g, a.views, oracle, options, o);
        if (!spilled) {
            const auto& e = spilled.error();
            if (e.kind == orm::SpillError::Kind::bad_records) return fmt::format("{}: {}", path, ir::describe(a.g, e.plan));
            if (e.kind != orm::SpillError::Kind::below_floor) return fmt::format("{}: {}", path, e.message());
            // The fit report: each node whose operands and scratch pass the fast space, by how much.
            std::string report = fmt::format("{}: {} nodes need more than {}'s {} bytes; split or tile them:", path,
                                             e.over.size(), o.fast.name, e.capacity);
            for (const auto& over : e.over)
                report += fmt::format("\n  node {} ({}{}): {} bytes, {} over", over.position, a.g.op_type(over.position),
                                      a.g.node_line(over.position) ? fmt::format(" on line {}", a.g.node_line(over.position)) : "",
                                      over.bytes, over.bytes - e.capacity);
            return report;
        }
        if (spilled->is_complete()) {
            a.spilled = std::move(*spilled).plan();
            if (auto ok = orm::validate_arena_spill(a.g, a.views, *a.spilled, oracle, options, o); !ok)
                return fmt::format("{}: the spilled plan is invalid: {}", path, ir::describe(a.g, ok.error()));
            std::vector<orm::Buffer> slow;
            for (const auto& seg : a.spilled->spill.segments)
                if (seg.space == 1) slow.push_back({0, seg.first, seg.last + 1});
            std::size_t k = 0;  // each slow segment's bytes: its buffer's
            for (std::size_t b = 0; b + 1 < a.spilled->spill.segment_begin.size(); ++b)
                for (std::size_t i = a.spilled->spill.segment_begin[b]; i < a.spilled->spill.segment_begin[b + 1]; ++i)
                    if (a.spilled->spill.segments[i].space == 1) slow[k++].size = a.spilled->records[b].size;
            if (auto lb = orm::lower_bounds(slow, o.slow.alignment)) a.slow_bound = lb->offset_bytes;
        }
    } else if (!args.spaces.empty() && !instance) {  // across the spaces, and each node's floor
        orm::GraphSpaceOptions spaces;
        for (const auto& text : args.spaces) spaces.spaces.push_back(*parse_space(text, args.arena.alignment));
        auto spaced = orm::plan_arena_spaces(a.g, a.views, oracle, options, spaces, args.arena);
        if (!spaced) {
            const auto& e = spaced.error();
            const std::string culprit = e.value != orm::no_value ? fmt::format(" (value {} is '{}')", e.value, a.g.value_name(e.value)) : "";
            if (e.kind == orm::SpaceError::Kind::bad_records) return fmt::format("{}: {}", path, ir::describe(a.g, e.plan));
            return fmt::format("{}: {}{}", path, e.message(), culprit);
        }
        a.spaced = std::move(*spaced).plan();
        if (auto ok = orm::validate_arena_spaces(a.g, a.views, *a.spaced, oracle, options, spaces, args.arena.alignment); !ok)
            return fmt::format("{}: the plan across the spaces is invalid: {}", path, ir::describe(a.g, ok.error()));
        auto floors = orm::node_floors(a.g, a.views, oracle, options, a.spaced->spaces[0].alignment);
        if (!floors) return fmt::format("{}: {}", path, ir::describe(a.g, floors.error()));
        a.node_floor = floors->empty() ? 0 : *std::max_element(floors->begin(), floors->end());
    }
    a.live = orm::without_owners(std::move(a.live), plan.dynamic_values);  // the planned owners, for the report
    {  // the bounds of what both plans place: the owners and each node's scratch
        std::vector<orm::Buffer> records;
        std::vector<std::size_t> bytes(a.g.value_count(), 0);
        for (orm::ValueId v : a.live.owners) bytes[v] = *oracle(v);
        orm::owner_buffers(a.live, bytes, records);
        orm::scratch_buffers(options.scratch_bytes, records);
        if (auto lb = orm::lower_bounds(records, a.arena->alignment)) a.bounds = *lb;
    }

    // Live bytes by position: a difference array, O(owners + positions).
    a.sizes.assign(a.g.value_count(), 0);
    a.live_bytes.assign(std::size_t{a.live.last_position} + 2, 0);
    for (orm::ValueId v : a.live.owners) {
        a.sizes[v] = *oracle(v);
        a.live_bytes[a.live.intervals[v].def] += a.sizes[v];  // the naive total fits: no sum here overflows
        a.live_bytes[std::size_t{a.live.intervals[v].use_end} + 1] -= a.sizes[v];
    }
    for (std::size_t p = 1; p < a.live_bytes.size(); ++p) a.live_bytes[p] += a.live_bytes[p - 1];
    a.live_bytes.pop_back();
    a.peak_position = static_cast<std::size_t>(std::max_element(a.live_bytes.begin(), a.live_bytes.end()) - a.live_bytes.begin());
    return std::nullopt;
}

// A JSON list of value names: "a","b".
std::string names(const ir::Graph& g, const std::vector<orm::ValueId>& values) {
    std::string out;
    for (orm::ValueId v : values) {
        if (!out.empty()) out += ',';  // not "," + a temporary: g++ 12 -O3 then warns (-Wrestrict, a false alarm)
        out += json_string(g.value_name(v));
    }
    return out;
}

// --space: ,"spaces":[{"name", "capacity" (null: unbounded), "alignment",
// "arena_bytes", "lower_bound_bytes", "buffers"}, ...],"node_floor_bytes":N.
// With --spill: two spaces, the fast one's lower bound its node floor, each
// "buffers" the records that are ever there; and "transfer_bytes" (out plus
// in), "transfer_lower_bound_bytes", "spilled_values" (records that move).
std::string spaces_json(const Analysis& a) {
    const auto space_json = [](const orm::MemorySpace& space, std::size_t arena, std::size_t bound, std::size_t buffers) {
        return fmt::format("{{\"name\":{},\"capacity\":{},\"alignment\":{},\"arena_bytes\":{},\"lower_bound_bytes\":{},"
                           "\"buffers\":{}}}",
                           json_string(space.name),
                           space.capacity == orm::unbounded ? std::string("null") : fmt::format("{}", space.capacity),
                           space.alignment, arena, bound, buffers);
    };
    if (a.spilled) {
        const auto& p = a.spilled->spill;
        std::size_t in[2] = {0, 0};
        for (std::size_t b = 0; b + 1 < p.segment_begin.size(); ++b) {
            bool there[2] = {false, false};
            for (std::size_t i = p.segment_begin[b]; i < p.segment_begin[b + 1]; ++i) there[p.segments[i].space] = true;
            in[0] += there[0];
            in[1] += there[1];
        }
        return fmt::format(",\"spaces\":[{},{}],\"node_floor_bytes\":{},\"transfer_bytes\":{},"
                           "\"transfer_lower_bound_bytes\":{},\"spilled_values\":{}",
                           space_json(a.spill_options.fast, p.fast_bytes, a.node_floor, in[0]),
                           space_json(a.spill_options.slow, p.slow_bytes, a.slow_bound, in[1]), a.node_floor,
                           p.transfer_bytes, p.transfer_lower_bound_bytes, p.spilled_buffers);
    }
    if (!a.spaced) return {};
    std::string list;
    for (std::size_t s = 0; s < a.spaced->spaces.size(); ++s) {
        const auto& arena = a.spaced->arenas[s];
        if (!list.empty()) list += ',';
        list += space_json(a.spaced->spaces[s], arena.arena_bytes, arena.lower_bound_bytes, arena.buffers);
    }
    return fmt::format(",\"spaces\":[{}],\"node_floor_bytes\":{}", list, a.node_floor);
}

void print_json(const Analysis& a) {
    const auto stated = [&](bool part) {
        return static_cast<std::size_t>(std::count_if(a.g.stated_views().begin(), a.g.stated_views().end(),
                                                      [&](const auto& s) { return s.part == part; }));
    };
    const bool complete = a.status->is_complete();
    const orm::ActivationPlan none;
    const auto& p = complete ? a.status->plan() : none;
    const auto number = [&](std::optional<std::size_t> n) { return n ? fmt::format("{}", *n) : std::string("null"); };
    fmt::print(
        "{{\"graph\":{},\"file\":{},\"status\":\"{}\",\"nodes\":{},\"values\":{},\"owners\":{},\"views\":{},"
        "\"naive_bytes\":{},\"peak_bytes\":{},\"num_slots\":{},\"savings_ratio\":{:.6f},\"unknown_sizes\":{},"
        "\"lower_bound_bytes\":{},\"slot_lower_bound_bytes\":{},\"arena_bytes\":{},\"proven_bound_bytes\":{},"
        "\"arena_strategy\":{},\"slot_strategy\":\"{}\","
        "\"alignment\":{},\"dynamic_values\":[{}],\"offset_views\":{},\"parts\":{},\"copies_avoided_bytes\":{},"
        "\"load_us\":{:.1f},\"plan_us\":{:.1f},\"arena_plan_us\":{:.1f}{}}}\n",
        json_string(a.g.name()), json_string(a.file), complete ? "complete" : "deferred", a.g.node_count(),
        a.g.value_count(), a.live.owners.size(), a.views.size(), p.naive_bytes, p.peak_bytes, p.num_slots(),
        p.savings_ratio(), "[" + names(a.g, a.status->unknown_sizes()) + "]",
        number(a.bounds ? std::optional(a.bounds->offset_bytes) : std::nullopt),
        number(a.bounds ? std::optional(a.bounds->slot_bytes) : std::nullopt),
        number(a.arena ? std::optional(a.arena->arena_bytes) : std::nullopt),
        number(a.arena ? std::optional(a.arena->proven_bound_bytes) : std::nullopt),
        a.arena ? json_string(orm::to_string(a.arena->strategy)) : "null", orm::to_string(a.slot_strategy),
        number(a.arena ? std::optional(a.arena->alignment) : std::nullopt), names(a.g, p.dynamic_values),
        a.slices.views + stated(false), a.slices.parts + stated(true), a.slices.copies_avoided_bytes, a.load_us,
        a.plan_us, a.arena_us,
        (a.inplace_arena ? fmt::format(",\"inplace_hints\":{},\"inplace_taken\":{},\"inplace_lower_bound_bytes\":{},"
                                       "\"inplace_arena_bytes\":{}",
                                       a.inplace_hints, a.inplace_taken, number(a.inplace_bound), a.inplace_arena->arena_bytes)
                         : std::string()) +
            (a.order ? fmt::format(",\"order\":\"{}\",\"given_lower_bound_bytes\":{},\"order_proven_optimal\":{},"
                                   "\"order_floor_bytes\":{}",
                                   orm::to_string(a.order->strategy), a.order->given_peak_bytes,
                                   a.order->proven_optimal ? "true" : "false", a.order->lower_bound_bytes)
                     : std::string()) +
            spaces_json(a) +
            (a.streams > 0 ? fmt::format(",\"streams\":{},\"concurrent_lower_bound_bytes\":{},"
                                         "\"concurrent_arena_bytes\":{},\"concurrent_plan_us\":{:.1f}",
                                         a.streams,
                                         number(a.concurrent ? std::optional(a.concurrent->proven_bound_bytes) : std::nullopt),
                                         number(a.concurrent ? std::optional(a.concurrent->arena_bytes) : std::nullopt),
                                         a.concurrent_us)
                           : std::string()) +
            (a.streams > 0 && a.inplace_arena
                 ? fmt::format(",\"concurrent_inplace_taken\":{},\"concurrent_inplace_arena_bytes\":{}",
                               a.concurrent_inplace_taken,
                               number(a.concurrent_inplace ? std::optional(a.concurrent_inplace->arena_bytes) : std::nullopt))
                 : std::string()));
}

// What plans a deferred graph, named: bounds for the symbols a bound can
// fix, --unknown dynamic for sizes that only the run knows.
std::vector<std::string> how_to_plan(const Analysis& a) {
    bool unnamed = false;
    std::vector<std::string> boundable, dependent, out;
    for (auto& symbol : missing_symbols(a.g, a.status->unknown_sizes(), a.bounds_used, unnamed))
        (data_dependent(symbol) ? dependent : boundable).push_back(std::move(symbol));
    if (!boundable.empty()) {
        std::vector<std::string> example;
        for (const auto& symbol : boundable) example.push_back(symbol + "=N");
        out.push_back(fmt::format("plan again at run time, or bound {}: --bounds {}", joined(boundable),
                                  joined(example, ",")));
    }
    if (!dependent.empty() || unnamed)
        out.push_back(fmt::format("{} data-dependent (known only as the graph runs): --unknown dynamic plans the rest",
                                  dependent.empty() ? std::string("some sizes are")
                                                    : joined(dependent) + (dependent.size() == 1 ? " is" : " are")));
    return out;
}

void print_report(const Analysis& a) {
    const auto& g = a.g;
    fmt::print("{} ({})\n", g.name(), a.file);
    fmt::print("  {} nodes, {} values: {} buffer owners, {} view{}\n", g.node_count(), g.value_count(),
               a.live.owners.size(), a.views.size(), a.views.size() == 1 ? "" : "s");
    if (a.status->is_deferred()) {
        const auto& unknown = a.status->unknown_sizes();
        fmt::print("  deferred: {} owners have no size until their shapes are known, e.g.\n", unknown.size());
        for (std::size_t k = 0; k < unknown.size() && k < 8; ++k)
            fmt::print("    {}\n", g.value_name(unknown[k]));
        for (const auto& line : how_to_plan(a)) fmt::print("  {}\n", line);
        fmt::print("  load {:.0f} us, plan {:.0f} us\n", a.load_us, a.plan_us);
        return;
    }
    const auto& p = a.status->plan();
    const auto& lb = *a.bounds;
    if (!p.dynamic_values.empty()) {
        fmt::print("  dynamic: {} owners of unknown size left to run time, e.g.\n", p.dynamic_values.size());
        for (std::size_t k = 0; k < p.dynamic_values.size() && k < 4; ++k)
            fmt::print("    {}\n", g.value_name(p.dynamic_values[k]));
    }
    fmt::print("  one buffer per value   {:>10}  ({} bytes)\n", human(p.naive_bytes), p.naive_bytes);
    const std::string slot_label = fmt::format(
        "slot plan ({})", a.slot_strategy == orm::SlotStrategy::best_fit ? "best fit" : orm::to_string(a.slot_strategy));
    fmt::print("  {:<22} {:>10}  in {} slot{}, {:.1f}% saved ({:.2f}x smaller)\n", slot_label, human(p.peak_bytes),
               p.num_slots(), p.num_slots() == 1 ? "" : "s", 100.0 * p.savings_ratio(),
               p.peak_bytes ? static_cast<double>(p.naive_bytes) / static_cast<double>(p.peak_bytes) : 1.0);
    std::vector<orm::SlotInfo> slots = p.slots;
    std::stable_sort(slots.begin(), slots.end(), [](const auto& x, const auto& y) { return x.capacity > y.capacity; });
    std::string caps;
    for (std::size_t k = 0; k < slots.size() && k < 8; ++k) caps += (k ? ", " : "") + human(slots[k].capacity);
    if (slots.size() > 8) caps += fmt::format(", ... ({} more)", slots.size() - 8);
    fmt::print("    slots: {}\n", caps);
    fmt::print("  arena plan (offsets)   {:>10}  aligned to {} bytes, by {}\n", human(a.arena->arena_bytes),
               a.arena->alignment, orm::to_string(a.arena->strategy));
    fmt::print("  lower bounds           {:>10}  for offsets ({:.3f}x: arena / bound); {} for slots ({:.3f}x)\n",
               human(lb.offset_bytes), lb.offset_bytes ? static_cast<double>(a.arena->arena_bytes) / static_cast<double>(lb.offset_bytes) : 1.0,
               human(lb.slot_bytes), lb.slot_bytes ? static_cast<double>(p.peak_bytes) / static_cast<double>(lb.slot_bytes) : 1.0);
    if (a.order)
        fmt::print("  memory-aware order     {:>10}  lower bound, by {} ({}); {} in the given order, no order below {}\n",
                   human(a.order->peak_bytes), orm::to_string(a.order->strategy),
                   a.order->proven_optimal ? "proven optimal" : "not proven optimal", human(a.order->given_peak_bytes),
                   human(a.order->lower_bound_bytes));
    if (a.slices.views + a.slices.parts > 0)
        fmt::print("  slices                 {:>10}  of copies avoided: {} Split outputs views at an offset, {} Concat "
                   "inputs parts of its output; {} Concats copy nothing\n",
                   human(a.slices.copies_avoided_bytes), a.slices.views, a.slices.parts,
                   a.no_ops.size());
    if (a.concurrent)
        fmt::print("  on {:<3} streams         {:>10}  arena safe however they interleave; none below {} (one node's "
                   "operands), planned in {:.0f} us\n",
                   a.streams, human(a.concurrent->arena_bytes), human(a.concurrent->proven_bound_bytes), a.concurrent_us);
    if (a.inplace_arena)
        fmt::print("  in place (arena)       {:>10}  {} of {} hints taken; lower bound {}\n", human(a.inplace_arena->arena_bytes),
                   a.inplace_taken, a.inplace_hints, a.inplace_bound ? human(*a.inplace_bound) : std::string("none"));
    if (a.concurrent_inplace)
        fmt::print("  in place on {:<3} streams {:>9}  {} of {} hints taken (those safe however the streams interleave); "
                   "none below {}\n",
                   a.streams, human(a.concurrent_inplace->arena_bytes), a.concurrent_inplace_taken, a.inplace_hints,
                   human(a.concurrent_inplace->proven_bound_bytes));
    if (a.spaced) {
        for (std::size_t s = 0; s < a.spaced->spaces.size(); ++s) {
            const auto& space = a.spaced->spaces[s];
            const auto& arena = a.spaced->arenas[s];
            fmt::print("  space {:<16} {:>10}  of {}, {} buffers (lower bound {}), aligned to {}\n", space.name,
                       human(arena.arena_bytes), space.capacity == orm::unbounded ? std::string("unbounded") : human(space.capacity),
                       arena.buffers, human(arena.lower_bound_bytes), space.alignment);
        }
        fmt::print("  node floor             {:>10}  the most one node's operands and scratch take\n", human(a.node_floor));
    }
    if (a.spilled) {
        const auto& p = a.spilled->spill;
        const auto& o = a.spill_options;
        fmt::print("  fast space {:<11} {:>10}  of {}, aligned to {}; every value is read and written here\n", o.fast.name,
                   human(p.fast_bytes), o.fast.capacity == orm::unbounded ? std::string("unbounded") : human(o.fast.capacity),
                   o.fast.alignment);
        fmt::print("  slow space {:<11} {:>10}  of {}, aligned to {}; values wait here between uses\n", o.slow.name,
                   human(p.slow_bytes), o.slow.capacity == orm::unbounded ? std::string("unbounded") : human(o.slow.capacity),
                   o.slow.alignment);
        fmt::print("  transfers              {:>10}  out and in, {} copies, {} values move (lower bound {}, by {})\n",
                   human(p.transfer_bytes), p.transfers.size(), p.spilled_buffers, human(p.transfer_lower_bound_bytes),
                   p.strategy == orm::SpillStrategy::planned ? "the plan" : "the caching allocator");
        fmt::print("  node floor             {:>10}  the most one node's operands and scratch take\n", human(a.node_floor));
    }
    // Where the live set peaks, and what is live there.
    const std::size_t at = a.peak_position;
    std::string node = at < g.node_count() ? fmt::format(" ({}{})", g.op_type(at),
                                                          g.node_line(at) ? fmt::format(" on line {}", g.node_line(at)) : "")
                                           : "";
    fmt::print("  live set peaks at node {}{}: {}\n", at, node, human(a.live_bytes[at]));
    std::vector<orm::ValueId> there;
    for (orm::ValueId v : a.live.owners)
        if (a.live.intervals[v].def <= at && at <= a.live.intervals[v].use_end) there.push_back(v);
    std::stable_sort(there.begin(), there.end(), [&](auto x, auto y) { return a.sizes[x] > a.sizes[y]; });
    for (std::size_t k = 0; k < there.size() && k < 5; ++k)
        fmt::print("    {:>10}  {}\n", human(a.sizes[there[k]]), g.value_name(there[k]));
    if (there.size() > 5) fmt::print("    ... and {} smaller\n", there.size() - 5);
    fmt::print("  load {:.0f} us, plan {:.0f} us, arena {:.0f} us; both plans validated\n", a.load_us, a.plan_us,
               a.arena_us);
}

void print_line(const Analysis& a) {
    if (a.status->is_deferred()) {
        const auto how = how_to_plan(a);
        fmt::print("{:<26} deferred: {} owners of unknown size ({})\n", a.g.name(), a.status->unknown_sizes().size(),
                   how.empty() ? std::string("plan again at run time") : how.back().substr(how.back().rfind(": ") + 2));
        return;
    }
    const auto& p = a.status->plan();
    fmt::print("{:<26} {:>10} -> slots {:>10} ({:>5.1f}% saved, {:>3} slots), arena {:>10} (bound {:>10}), plan {:.0f} us\n",
               a.g.name(), human(p.naive_bytes), human(p.peak_bytes), 100.0 * p.savings_ratio(), p.num_slots(),
               human(a.arena->arena_bytes), human(a.bounds->offset_bytes), a.plan_us + a.arena_us);
}

// Writes the SVG beside its destination, then renames it into place, so
// nothing half-written is left under the name.
bool write_svg(const Analysis& a, const std::string& path) {
    std::string picture;
    if (a.spilled) {  // one panel per space, the copies marked
        svg::SpillPicture t;
        const auto& p = a.spilled->spill;
        t.title = fmt::format("{}: {} of {} in {}, {} copies moving {} (lower bound {})", a.g.name(), human(p.fast_bytes),
                              a.spill_options.fast.capacity == orm::unbounded ? std::string("unbounded")
                                                                               : human(a.spill_options.fast.capacity),
                              a.spill_options.fast.name, p.transfers.size(), human(p.transfer_bytes),
                              human(p.transfer_lower_bound_bytes));
        t.fast_name = a.spill_options.fast.name;
        t.slow_name = a.spill_options.slow.name;
        t.positions = a.g.node_count();
        t.fast_capacity = a.spill_options.fast.capacity;
        t.plan = &p;
        for (const auto& r : a.spilled->records) t.bytes.push_back(r.size);
        t.names.assign(a.spilled->records.size(), std::string());
        for (orm::ValueId v = 0; v < a.g.value_count(); ++v)  // a record's name: its owner's
            if (a.spilled->record[v] != orm::no_record && a.live.roots[v] == v) t.names[a.spilled->record[v]] = a.g.value_name(v);
        for (std::size_t n = 0; n < a.spilled->scratch_record.size(); ++n)
            if (a.spilled->scratch_record[n] != orm::no_record)
                t.names[a.spilled->scratch_record[n]] = fmt::format("the scratch of node {}", n);
        picture = svg::render_spill(t);
    }
    svg::Timeline t;
    t.title = fmt::format("{}: arena {} (lower bound {}), slot plan {} in {} slots", a.g.name(), human(a.arena->arena_bytes),
                          human(a.bounds->offset_bytes), human(a.status->plan().peak_bytes), a.status->plan().num_slots());
    t.live = &a.live;
    t.slots = &a.status->plan();
    t.arena = &*a.arena;
    t.sizes = a.sizes;
    for (std::size_t v = 0; v < a.g.value_count(); ++v) t.names.emplace_back(a.g.value_name(static_cast<orm::ValueId>(v)));
    t.live_bytes = a.live_bytes;
    t.peak_position = a.peak_position;
    const std::string tmp = path + ".partial";
    std::error_code ec, ignored;
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        out << (picture.empty() ? svg::render(t) : picture);
        if (!out.flush()) {
            std::filesystem::remove(tmp, ignored);  // nothing half-written is left behind
            return false;
        }
    }
    std::filesystem::rename(tmp, path, ec);  // fails onto a directory: the error stands
    if (ec) std::filesystem::remove(tmp, ignored);
    return !ec;
}

// Every value's placement in both plans, as JSON: {"values": [{"name",
// "kind", "root", "bytes", "first", "last", "slot", "offset"}, ...],
// "scratch": [{"node", "op", "bytes", "slot", "offset"}, ...]}, null where a
// field does not apply. With --space each entry adds "space" (its name) and
// "space_offset", its offset there. With --spill those are where it is first,
// and a value that moves adds "residency": [{"space", "first", "last",
// "offset"}, ...]; the table adds "transfers": [{"value", "direction" (out:
// after the node at "position", in: before it), "position", "bytes",
// "from_offset", "to_offset"}, ...] in the order to run them.
std::optional<std::string> write_placements(const Analysis& a, const Args& args, const std::string& path) {
    const auto oracle = orm::bounded_size_oracle(a.g, args.bounds);
    const auto slots = orm::placements(a.g, a.views, a.status->plan(), oracle, a.options);
    const auto offsets = orm::placements(a.g, a.views, *a.arena, oracle, a.options);
    if (!slots || !offsets) return "cannot place the values";
    const auto number = [](auto n, bool has) { return has ? fmt::format("{}", n) : std::string("null"); };
    const auto in_space = [&](std::uint32_t space, std::size_t offset) {
        if (!a.spaced) return std::string();
        const bool placed = space != orm::no_space;
        return fmt::format(",\"space\":{},\"space_offset\":{}",
                           placed ? json_string(a.spaced->spaces[space].name) : std::string("null"), number(offset, placed));
    };
    // --spill: where the record is first, and where it moves, its residency.
    const auto resident = [&](std::uint32_t record) {
        if (!a.spilled) return std::string();
        if (record == orm::no_record) return std::string(",\"space\":null,\"space_offset\":null");
        const auto& p = a.spilled->spill;
        const auto name = [&](std::uint32_t space) {
            return json_string(space == 0 ? a.spill_options.fast.name : a.spill_options.slow.name);
        };
        const auto& first = p.segments[p.segment_begin[record]];
        std::string out = fmt::format(",\"space\":{},\"space_offset\":{}", name(first.space), first.offset);
        if (p.segment_begin[record + 1] - p.segment_begin[record] == 1) return out;
        out += ",\"residency\":[";
        for (std::size_t i = p.segment_begin[record]; i < p.segment_begin[record + 1]; ++i)
            out += fmt::format("{}{{\"space\":{},\"first\":{},\"last\":{},\"offset\":{}}}", i == p.segment_begin[record] ? "" : ",",
                               name(p.segments[i].space), p.segments[i].first, p.segments[i].last, p.segments[i].offset);
        return out + "]";
    };
    std::string out = "{\"values\":[";
    for (orm::ValueId v = 0; v < a.g.value_count(); ++v) {
        const auto& s = (*slots)[v];
        const auto& o = (*offsets)[v];
        const bool planned = s.bytes.has_value();
        out += fmt::format("{}{{\"name\":{},\"kind\":\"{}\",\"root\":{},\"bytes\":{},\"first\":{},\"last\":{},\"slot\":{},"
                           "\"offset\":{}{}{}}}",
                           v ? ",\n" : "\n", json_string(a.g.value_name(v)), orm::to_string(s.kind),
                           json_string(a.g.value_name(s.root)), number(s.bytes.value_or(0), planned),
                           number(s.live.def, planned), number(s.live.use_end, planned),
                           number(s.slot.value, !s.slot.is_none()), number(o.offset, o.offset != orm::no_offset),
                           s.window ? fmt::format(",\"window\":{}", s.window) : std::string(),
                           a.spaced ? in_space(a.spaced->space[v], a.spaced->offsets[v])
                                    : a.spilled ? resident(a.spilled->record[v]) : std::string());
    }
    out += "\n],\"scratch\":[";
    const auto in_slots = orm::scratch_placements(a.status->plan(), a.options);
    const auto in_arena = orm::scratch_placements(*a.arena, a.options);
    for (std::size_t k = 0; k < in_slots.size(); ++k)
        out += fmt::format("{}{{\"node\":{},\"op\":{},\"bytes\":{},\"slot\":{},\"offset\":{}{}}}", k ? ",\n" : "\n",
                           in_slots[k].node, json_string(a.g.op_type(in_slots[k].node)), in_slots[k].bytes,
                           number(in_slots[k].slot.value, !in_slots[k].slot.is_none()),
                           number(in_arena[k].offset, in_arena[k].offset != orm::no_offset),
                           a.spaced    ? in_space(a.spaced->scratch_space[in_slots[k].node],
                                                  a.spaced->scratch_offsets[in_slots[k].node])
                           : a.spilled ? resident(a.spilled->scratch_record[in_slots[k].node])
                                       : std::string());
    out += "\n]";
    if (a.views.has_parts()) {  // the nodes the executor skips: their inputs are parts of their output
        std::string nodes;
        for (const orm::NodeIndex n : a.no_ops) nodes += fmt::format("{}{}", nodes.empty() ? "" : ",", n);
        out += ",\"no_op_nodes\":[" + nodes + "]";
    }
    if (a.spilled) {  // the copies in the order to run them, each naming its value (an owner: copies are of owners)
        out += ",\"transfers\":[";
        const auto& p = a.spilled->spill;
        std::vector<orm::ValueId> owner_of(a.spilled->records.size(), orm::no_value);  // by record: its root owner
        for (orm::ValueId v = 0; v < a.g.value_count(); ++v)
            if (a.spilled->record[v] != orm::no_record && (*slots)[v].root == v) owner_of[a.spilled->record[v]] = v;
        for (std::size_t k = 0; k < p.transfers.size(); ++k) {
            const auto& t = p.transfers[k];
            out += fmt::format("{}{{\"value\":{},\"direction\":\"{}\",\"position\":{},\"bytes\":{},\"from_offset\":{},"
                               "\"to_offset\":{}}}",
                               k ? ",\n" : "\n", json_string(a.g.value_name(owner_of[t.buffer])),
                               t.direction == orm::Transfer::Direction::out ? "out" : "in", t.position, t.bytes,
                               t.from_offset, t.to_offset);
        }
        out += "\n]";
    }
    out += "}\n";
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    file << out;
    if (!file.flush()) return "cannot write " + path;
    return std::nullopt;
}

int run_one(const std::string& path, const Args& args, bool one_line) {
    Analysis a;
    if (auto error = analyze(path, args, a, one_line)) {
        fmt::print(stderr, "plan_graph: {}\n", *error);
        return failed;
    }
    if (args.json) print_json(a);
    else if (one_line) print_line(a);
    else print_report(a);
    if (!args.placements.empty()) {
        if (a.status->is_deferred()) {
            fmt::print(stderr, "plan_graph: {}: no placements of a deferred plan (give --bounds or --unknown dynamic)\n", path);
            return failed;
        }
        if (auto error = write_placements(a, args, args.placements)) {
            fmt::print(stderr, "plan_graph: {}\n", *error);
            return failed;
        }
    }
    if (!args.svg.empty()) {
        if (a.status->is_deferred()) {
            fmt::print(stderr, "plan_graph: {}: no picture of a deferred plan (give --bounds)\n", path);
            return failed;
        }
        if (!write_svg(a, args.svg)) {
            fmt::print(stderr, "plan_graph: cannot write {}\n", args.svg);
            return failed;
        }
        if (!args.json)
            fmt::print("  picture: {}{}\n", args.svg,
                       a.spilled ? fmt::format(" (a panel for {} and for {}, {} copies marked)", a.spill_options.fast.name,
                                               a.spill_options.slow.name, a.spilled->spill.transfers.size())
                                 : std::string());
    }
    return a.status->is_complete() ? planned : deferred;
}

}  // namespace

int main(int argc, char** argv) {
    Args args;
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        const auto value = [&]() -> std::optional<std::string_view> {
            if (i + 1 >= argc) return std::nullopt;
            return std::string_view(argv[++i]);
        };
        if (a == "--help" || a == "-h") {
            fmt::print("{}", usage_text);
            return planned;
        }
        if (a == "--json") args.json = true;
        else if (a == "--slices") args.slices = true;
        else if (a == "--inputs") args.options.include_graph_inputs = true;
        else if (a == "--views") {
            const auto v = value();
            if (!v) return usage("--views needs a list of op types (or none)");
            args.view_ops = *v == "none" ? std::vector<std::string>{} : split(*v, ',');
        } else if (a == "--bounds") {
            const auto v = value();
            if (!v) return usage("--bounds needs SYM=N,...");
            for (const auto& item : split(*v, ',')) {
                const auto eq = item.find('=');
                const auto n = eq == std::string::npos ? std::nullopt : parse_count(std::string_view(item).substr(eq + 1));
                if (eq == 0 || !n) return usage(fmt::format("--bounds: '{}' is not SYM=N", item));
                args.bounds.set(item.substr(0, eq), *n);
                args.bound_names.push_back(item.substr(0, eq));
            }
        } else if (a == "--align" || a == "--exact" || a == "--search" || a == "--time-limit-ms") {
            const auto v = value();
            const auto n = v ? parse_count(*v) : std::nullopt;
            if (!n) return usage(fmt::format("{} needs a number", a));
            if (a == "--align") args.arena.alignment = *n;
            else if (a == "--exact") args.arena.exact_nodes = *n;
            else if (a == "--search") args.arena.search_iterations = static_cast<std::uint32_t>(std::min<std::size_t>(*n, 1u << 30));
            else {  // saturate: a limit past what microseconds can count is no limit
                constexpr auto most = std::chrono::microseconds::max().count() / 1000;
                args.arena.time_limit = *n > static_cast<std::size_t>(most) ? std::chrono::microseconds::max()
                                                                             : std::chrono::milliseconds(*n);
            }
        } else if (a == "--cpu-clock") {
            args.arena.time_limit_clock = orm::TimeLimitClock::thread_cpu;
        } else if (a == "--slots") {
            const auto v = value();
            bool known = false;
            for (const auto s : {orm::SlotStrategy::best_fit, orm::SlotStrategy::in_order_growth, orm::SlotStrategy::greedy_by_size,
                                 orm::SlotStrategy::greedy_by_distance, orm::SlotStrategy::least})
                if (v && *v == orm::to_string(s)) {
                    args.slots = s;
                    known = true;
                }
            if (!known) return usage("--slots takes best_fit, in_order_growth, greedy_by_size, greedy_by_distance or least");
        } else if (a == "--outputs" || a == "--unknown") {
            const auto v = value();
            if (a == "--outputs" && v && (*v == "arena" || *v == "external"))
                args.options.outputs = *v == "external" ? orm::OutputPlacement::external : orm::OutputPlacement::in_arena;
            else if (a == "--unknown" && v && (*v == "defer" || *v == "dynamic"))
                args.options.unknown_sizes = *v == "dynamic" ? orm::UnknownSizes::dynamic : orm::UnknownSizes::defer;
            else
                return usage(a == "--outputs" ? "--outputs takes arena or external" : "--unknown takes defer or dynamic");
        } else if (a == "--scratch") {  // nodes as the file lists them
            const auto v = value();
            if (!v) return usage("--scratch needs NODE=BYTES,...");
            for (const auto& item : split(*v, ',')) {
                const auto eq = item.find('=');
                const auto node = eq == std::string::npos ? std::nullopt : parse_count(std::string_view(item).substr(0, eq));
                const auto bytes = eq == std::string::npos ? std::nullopt : parse_count(std::string_view(item).substr(eq + 1));
                if (!node || !bytes) return usage(fmt::format("--scratch: '{}' is not NODE=BYTES", item));
                args.scratch.emplace_back(*node, *bytes);  // a node past the graph is an error once it is read
            }
        } else if (a == "--inplace") {  // an op list may follow: no op name has a '.' or '/', or is a path
            args.inplace_ops = ir::default_inplace_ops;
            if (i + 1 < argc) {
                const std::string_view next = argv[i + 1];
                std::error_code exists;
                if (!next.empty() && next[0] != '-' && next.find_first_of("./") == std::string_view::npos &&
                    !std::filesystem::exists(std::string(next), exists))
                    args.inplace_ops = split(*value(), ',');
            }
        } else if (a == "--reorder") {
            args.reorder = true;
        } else if (a == "--streams") {
            const auto v = value();
            const auto n = v ? parse_count(*v) : std::nullopt;
            if (v && !n && !v->empty() && !std::isdigit(static_cast<unsigned char>(v->front()))) {
                args.streams_file = *v;  // not a number: the file of node positions and streams
            } else {
                if (!n || *n == 0 || *n > orm::Streams::max_streams)
                    return usage(fmt::format("--streams needs a number of streams, 1 to {}, or a file", orm::Streams::max_streams));
                args.streams = *n;
            }
        } else if (a == "--write-order") {
            const auto v = value();
            if (!v) return usage("--write-order needs a file name");
            args.write_order = *v;
        } else if (a == "--space") {
            const auto v = value();
            if (!v || !parse_space(*v, 64)) return usage("--space takes NAME[=BYTES][@ALIGN], e.g. device=8G@256 or host");
            args.spaces.emplace_back(*v);
        } else if (a == "--spill") {
            args.spill = true;
        } else if (a == "--placements") {
            const auto v = value();
            if (!v) return usage("--placements needs a file name");
            args.placements = *v;
        } else if (a == "--svg") {
            const auto v = value();
            if (!v) return usage("--svg needs a file name");
            args.svg = *v;
        } else if (a.starts_with("--")) {
            return usage(fmt::format("unknown option {}", a));
        } else {
            args.paths.emplace_back(a);
        }
    }
    if (args.paths.size() != 1) return usage(args.paths.empty() ? "no graph file given" : "one file or directory at a time");
    if (args.spill && (args.spaces.empty() || args.spaces.size() > 2))
        return usage("--spill takes one or two --space: the fast one, then the slow one (default host)");
    const std::string& path = args.paths[0];

    std::error_code ec;
    if (!std::filesystem::is_directory(path, ec)) return run_one(path, args, false);
    if (!args.svg.empty()) return usage("--svg draws one file, not a directory");
    if (!args.placements.empty()) return usage("--placements writes one file's table, not a directory's");
    if (!args.write_order.empty()) return usage("--write-order writes one file's order, not a directory's");
    std::vector<std::string> files;
    for (const auto& e : std::filesystem::directory_iterator(path, ec))
        if (e.path().extension() == ".graph" || e.path().extension() == ".csv") files.push_back(e.path().string());
    if (ec) {
        fmt::print(stderr, "plan_graph: cannot read directory {}: {}\n", path, ec.message());
        return failed;
    }
    if (files.empty()) {
        fmt::print(stderr, "plan_graph: no .graph or .csv file in {}\n", path);
        return failed;
    }
    std::sort(files.begin(), files.end());
    int worst = planned;
    for (const auto& f : files) {
        const int code = run_one(f, args, true);
        if (code == failed || (code == deferred && worst == planned)) worst = code;
    }
    return worst;
}
