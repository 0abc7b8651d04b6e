// plan_graph: plan one graph text file and print a short report (or JSON).
//
//   plan_graph [--json] [--inputs] [--views OP,OP,...|none] FILE
//
// Exit status: 0 planned, 2 deferred (some size unknown), 1 error.
#include <onnx_runtime_memory/onnx_runtime_memory.hpp>

#include <chrono>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "ir/describe.hpp"
#include "ir/graph.hpp"
#include "ir/graph_text.hpp"

namespace orm = onnx_runtime_memory;

namespace {

struct Args {
    std::string file;
    bool json = false;
    orm::PlanOptions options;
    std::vector<std::string> view_ops{"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity"};
};

int usage(const char* why) {
    std::fprintf(stderr, "plan_graph: %s\nusage: plan_graph [--json] [--inputs] [--views OP,OP,...|none] FILE\n", why);
    return 1;
}

std::vector<std::string> split_list(std::string_view s) {
    std::vector<std::string> out;
    if (s == "none") return out;
    while (!s.empty()) {
        const auto comma = s.find(',');
        if (comma != 0) out.emplace_back(s.substr(0, comma));
        if (comma == std::string_view::npos) break;
        s.remove_prefix(comma + 1);
    }
    return out;
}

// The output of every node whose op makes views aliases its first input.
orm::ViewMap views_for(const ir::Graph& g, const std::vector<std::string>& ops) {
    orm::ViewMap views;
    for (std::size_t n = 0; n < g.node_count(); ++n) {
        bool is_view = false;
        for (const auto& op : ops) is_view = is_view || g.op_type(n) == op;
        if (is_view && !g.node_inputs(n).empty() && !g.node_outputs(n).empty())
            views.insert(g.node_outputs(n)[0], g.node_inputs(n)[0]);
    }
    return views;
}

std::string human(std::size_t bytes) {
    const char* unit[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double x = static_cast<double>(bytes);
    int u = 0;
    while (x >= 1024.0 && u < 4) {
        x /= 1024.0;
        ++u;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.1f %s", x, unit[u]);
    return buf;
}

std::string json_string(std::string_view s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        if (static_cast<unsigned char>(c) < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out += buf;
            continue;
        }
        out += c;
    }
    return out + "\"";
}

double micros_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
    Args args;
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        if (a == "--json") args.json = true;
        else if (a == "--inputs") args.options.include_graph_inputs = true;
        else if (a == "--views") {
            if (++i == argc) return usage("--views needs a list of op types (or none)");
            args.view_ops = split_list(argv[i]);
        } else if (a.starts_with("--")) return usage(("unknown option " + std::string(a)).c_str());
        else if (args.file.empty()) args.file = a;
        else return usage("one graph file at a time");
    }
    if (args.file.empty()) return usage("no graph file given");

    const auto t_load = std::chrono::steady_clock::now();
    auto graph = ir::read_graph_file(args.file);
    const double load_us = micros_since(t_load);
    if (!graph) {
        const auto& e = graph.error();
        std::fprintf(stderr, "plan_graph: %s%s%s\n", args.file.c_str(),
                     e.line ? (":" + std::to_string(e.line) + ": ").c_str() : ": ", e.message.c_str());
        return 1;
    }
    const ir::Graph& g = *graph;
    const orm::ViewMap views = views_for(g, args.view_ops);

    const auto t_plan = std::chrono::steady_clock::now();
    auto live = orm::compute_liveness(g, views, args.options);
    auto status = live ? orm::plan_activations(*live, orm::static_size_oracle(g))
                       : orm::expected<orm::PlanStatus, orm::PlanError>(orm::unexpected(live.error()));
    const double plan_us = micros_since(t_plan);
    if (!status) {
        std::fprintf(stderr, "plan_graph: %s: %s\n", args.file.c_str(), ir::describe(g, status.error()).c_str());
        return 1;
    }
    if (status->is_complete()) {
        if (auto ok = orm::validate_static(g, views, status->plan(), args.options); !ok) {
            std::fprintf(stderr, "plan_graph: %s: the plan is invalid: %s\n", args.file.c_str(),
                         ir::describe(g, ok.error()).c_str());
            return 1;
        }
    }

    const bool complete = status->is_complete();
    const std::size_t owners = live->owners.size();
    if (args.json) {
        const orm::ActivationPlan empty;
        const orm::ActivationPlan& p = complete ? status->plan() : empty;
        std::printf(
            "{\"graph\":%s,\"file\":%s,\"status\":\"%s\",\"nodes\":%zu,\"values\":%zu,\"owners\":%zu,\"views\":%zu,"
            "\"naive_bytes\":%zu,\"peak_bytes\":%zu,\"num_slots\":%zu,\"savings_ratio\":%.6f,\"unknown_sizes\":%zu,"
            "\"load_us\":%.1f,\"plan_us\":%.1f}\n",
            json_string(g.name()).c_str(), json_string(args.file).c_str(), complete ? "complete" : "deferred",
            g.node_count(), g.value_count(), owners, views.size(), p.naive_bytes, p.peak_bytes, p.num_slots(),
            p.savings_ratio(), status->unknown_sizes().size(), load_us, plan_us);
        return complete ? 0 : 2;
    }

    std::printf("graph %s: %zu nodes, %zu values, %zu buffer owners, %zu views\n", g.name().c_str(), g.node_count(),
                g.value_count(), owners, views.size());
    if (!complete) {
        const auto& unknown = status->unknown_sizes();
        std::printf("deferred: %zu owners have no static size, e.g.\n", unknown.size());
        for (std::size_t k = 0; k < unknown.size() && k < 5; ++k)
            std::printf("  %s\n", std::string(g.value_name(unknown[k])).c_str());
        std::printf("plan again once their shapes are known (load %.0f us, plan %.0f us)\n", load_us, plan_us);
        return 2;
    }
    const auto& p = status->plan();
    std::printf("one buffer per value: %14zu bytes (%s)\n", p.naive_bytes, human(p.naive_bytes).c_str());
    std::printf("planned arena:        %14zu bytes (%s) in %zu slots\n", p.peak_bytes, human(p.peak_bytes).c_str(),
                p.num_slots());
    std::printf("saved: %.1f%% (%.2fx smaller); plan validated\n", 100.0 * p.savings_ratio(),
                p.peak_bytes ? static_cast<double>(p.naive_bytes) / static_cast<double>(p.peak_bytes) : 1.0);
    std::printf("load %.0f us, plan %.0f us\n", load_us, plan_us);
    return 0;
}
