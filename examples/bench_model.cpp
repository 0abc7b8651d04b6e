// bench_model: what a request costs an executor that keeps one PlannedModel
// per model, beside planning each request from scratch.
//
//   bench_model [--requests N] [--corpus DIR]
//
// For residual chains and random DAGs of 1k, 10k and 100k nodes, and
// gpt2_xl_decoder from the corpus (when DIR has it): each request scales
// every size by its batch (1, 2, 3, 4, ...). From scratch: plan_arena +
// placements. Kept: PlannedModel::plan (the plan and the placement table
// updated in place), with the default ArenaOptions and with
// work_per_owner 0 (the sweep alone). Medians over the requests after the
// first, in ns per owner, and the heap allocations a request makes after
// the first (counted by heap_accounting.hpp).
#include <onnx_runtime_memory/onnx_runtime_memory.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "heap_accounting.hpp"
#include "ir/graph_text.hpp"
#include "ir/views.hpp"
#include "synthetic.hpp"

namespace orm = onnx_runtime_memory;

namespace {

struct Cost {
    double ns_per_owner = 0;
    std::size_t allocations = 0;  // the most a request after the first made
};

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

// Times `request(batch)` for batches 1 .. requests; the first warms up.
Cost measure(std::size_t owners, std::size_t requests, const std::function<bool(std::size_t)>& request) {
    std::vector<double> ns;
    ns.reserve(requests);
    Cost cost;
    for (std::size_t batch = 1; batch <= requests; ++batch) {
        const std::size_t before = heap_allocations;
        const auto t0 = std::chrono::steady_clock::now();
        if (!request(batch)) {
            std::printf("a request failed\n");
            std::exit(1);
        }
        const double t = std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count();
        const std::size_t made = heap_allocations - before;
        if (batch == 1) continue;
        ns.push_back(t / static_cast<double>(std::max<std::size_t>(owners, 1)));
        cost.allocations = std::max(cost.allocations, made);
    }
    cost.ns_per_owner = median(ns);
    return cost;
}

template <class G, class Sizes>
void row(const char* name, const G& g, const orm::ViewMap& views, Sizes&& base, std::size_t requests) {
    const auto oracle_at = [&](std::size_t batch) {
        return [&base, batch](orm::ValueId v) -> std::optional<std::size_t> {
            const auto b = base(v);
            if (!b) return std::nullopt;
            return *b * batch;
        };
    };
    const orm::PlanOptions options;
    const auto live = orm::compute_liveness(g, views, options);
    if (!live) {
        std::printf("%s: %s\n", name, live.error().message().c_str());
        return;
    }
    const std::size_t owners = live->owners.size();
    const Cost scratch = measure(owners, requests, [&](std::size_t batch) {
        const auto oracle = oracle_at(batch);
        auto plan = orm::plan_arena(g, views, oracle, options);
        return plan && orm::placements(g, views, plan->plan(), oracle, options).has_value();
    });
    auto kept = orm::PlannedModel::create(g, views, options);
    orm::ArenaOptions sweep_alone;
    sweep_alone.work_per_owner = 0;
    auto lean = orm::PlannedModel::create(g, views, options, sweep_alone);
    if (!kept || !lean) return;
    const Cost kept_cost = measure(owners, requests, [&](std::size_t batch) { return kept->plan(oracle_at(batch)).has_value(); });
    const Cost lean_cost = measure(owners, requests, [&](std::size_t batch) { return lean->plan(oracle_at(batch)).has_value(); });
    std::printf("| %-22s | %7zu | %8.0f | %5zu | %8.0f | %5zu | %8.0f | %5zu |\n", name, owners, scratch.ns_per_owner,
                scratch.allocations, kept_cost.ns_per_owner, kept_cost.allocations, lean_cost.ns_per_owner,
                lean_cost.allocations);
}

}  // namespace

int main(int argc, char** argv) {
    std::size_t requests = 7;
    std::string corpus = std::string(ORM_DATA_DIR) + "/corpus";
    for (int i = 1; i + 1 < argc; i += 2) {
        if (std::strcmp(argv[i], "--requests") == 0) requests = std::max<std::size_t>(2, std::stoul(argv[i + 1]));
        else if (std::strcmp(argv[i], "--corpus") == 0) corpus = argv[i + 1];
    }
    std::printf("Per request, ns per owner (median of %zu requests after the first) and the most heap allocations\n"
                "one made: from scratch (plan_arena + placements), and a kept PlannedModel (plan + its placement\n"
                "table updated), with the default ArenaOptions and with work_per_owner 0 (the sweep alone).\n\n",
                requests - 1);
    std::printf("| graph                  |  owners | scratch  | alloc | kept     | alloc | sweep    | alloc |\n");
    std::printf("|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (std::size_t n : {1000u, 10000u, 100000u}) {
        for (int family = 0; family < 2; ++family) {
            const auto s = family == 0 ? synthetic::residual_chain(n, 1) : synthetic::random_dag(n, 1);
            const std::string name = (family == 0 ? "residual chain " : "random DAG ") + std::to_string(n / 1000) + "k";
            row(name.c_str(), s.graph, s.views, [&s](orm::ValueId v) { return std::optional<std::size_t>(s.sizes[v]); },
                requests);
        }
    }
    const std::string gpt2 = corpus + "/gpt2_xl_decoder.graph";
    if (std::filesystem::exists(gpt2)) {
        auto g = ir::read_graph_file(gpt2);
        if (g) {
            const auto views = ir::views_from_ops(*g, ir::default_view_ops);
            const auto sizes = orm::static_size_oracle(*g);
            row("gpt2_xl_decoder", *g, views, sizes, requests);
        }
    } else {
        std::printf("(no %s: the corpus row is left out)\n", gpt2.c_str());
    }
}
