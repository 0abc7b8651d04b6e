// bench: how fast the planner is and how much memory it takes.
//
//   bench [--corpus DIR] [--minimalloc DIR] [--max-nodes N]
//
// Synthetic graphs (chains with skips, branches and views) of 1k to 1M
// nodes, through a bare CSR graph type of its own, then every .graph file of
// the corpus through the IR. Prints ns per value, the planner's peak extra
// heap memory (every byte allocated while planning, the plan included), and
// for the corpus the file's load time next to the plan time.
#include <onnx_runtime_memory/onnx_runtime_memory.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <new>
#include <span>
#include <string>
#include <vector>

#include "heap_accounting.hpp"
#include "ir/graph_text.hpp"
#include "ir/minimalloc.hpp"
#include "ir/views.hpp"
#include "synthetic.hpp"
#include "tflite_baselines.hpp"

namespace orm = onnx_runtime_memory;

namespace {

using synthetic::Synthetic;

// A chain with skips, branches and views (synthetic.hpp).
Synthetic make_synthetic(std::size_t nodes, std::uint64_t seed) { return synthetic::chain_with_skips(nodes, seed); }

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// Best of `reps` runs of f(); returns seconds.
template <class F>
double best_of(int reps, F&& f) {
    double best = 1e30;
    for (int r = 0; r < reps; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        f();
        best = std::min(best, seconds_since(t0));
    }
    return best;
}

// Re-plans with new sizes on every run (scale cycles 1, 2, 3; the first
// plan sizes the planner's buffers): best of 5 in ns per owner, and heap
// allocations per plan after the first.
struct ReplanTiming {
    double ns_per_owner = 0;
    double allocations_per_plan = 0;
};
template <class Planner, class Plan>
ReplanTiming time_replanning(Planner& planner, Plan& plan, const Synthetic& s, std::size_t& scale) {
    const auto oracle = [&](orm::ValueId v) { return std::optional<std::size_t>(s.sizes[v] * scale); };
    (void)planner.plan(oracle, plan);
    const std::size_t allocations_before = heap_allocations;
    const double sec = best_of(5, [&] {
        scale = scale % 3 + 1;
        if (!planner.plan(oracle, plan)) std::abort();
    });
    const auto owners = static_cast<double>(planner.liveness().owners.size());
    return {sec * 1e9 / owners, static_cast<double>(heap_allocations - allocations_before) / 5.0};
}

}  // namespace

int main(int argc, char** argv) {
    std::string corpus = ORM_DATA_DIR "/corpus";  // ONNX_RUNTIME_MEMORY_DATA_DIR at configure time
    std::string minimalloc = ORM_DATA_DIR "/benchmarks/minimalloc";
    std::size_t max_nodes = 1000000;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--corpus" && i + 1 < argc) corpus = argv[++i];
        else if (a == "--minimalloc" && i + 1 < argc) minimalloc = argv[++i];
        else if (a == "--max-nodes" && i + 1 < argc) max_nodes = std::stoul(argv[++i]);
        else {
            std::fprintf(stderr, "usage: bench [--corpus DIR] [--minimalloc DIR] [--max-nodes N]\n");
            return 1;
        }
    }

    std::printf("synthetic graphs (chain + skips + branches + views), plan_activations, best of 5\n");
    std::printf("%10s %10s %9s %12s %10s %14s %12s\n", "nodes", "values", "owners", "plan ms", "ns/value",
                "n log n ratio", "bytes/value");
    double first_ratio = 0;
    for (std::size_t nodes = 1000; nodes <= max_nodes; nodes *= 10) {
        const Synthetic s = make_synthetic(nodes, 0x9E3779B97F4A7C15ull + nodes);
        const auto oracle = [&](orm::ValueId v) { return std::optional<std::size_t>(s.sizes[v]); };
        const double sec = best_of(5, [&] {
            auto status = orm::plan_activations(s.graph, s.views, oracle);
            if (!status || !status->is_complete()) std::abort();
        });
        std::size_t slots = 0;
        {
            auto status = orm::plan_activations(s.graph, s.views, oracle);
            auto ok = orm::validate(s.graph, s.views, status->plan(), oracle);
            if (!ok) {
                std::fprintf(stderr, "invalid plan: %s\n", ok.error().message().c_str());
                return 1;
            }
            slots = status->plan().num_slots();
        }
        // Memory: one more run, counting the peak of the heap above what was live before.
        const std::size_t before = heap_now;
        heap_peak = heap_now;
        { auto status = orm::plan_activations(s.graph, s.views, oracle); }
        const double extra = static_cast<double>(heap_peak - before);
        const std::size_t values = s.graph.value_count();
        const double n = static_cast<double>(values);
        const double ratio = sec * 1e9 / (n * std::log2(n));
        if (first_ratio == 0) first_ratio = ratio;
        std::printf("%10zu %10zu %9zu %12.2f %10.1f %14.2f %12.1f   (%zu slots)\n", nodes, values,
                    values - s.views.size() - 1, sec * 1e3, sec * 1e9 / n, ratio / first_ratio, extra / n, slots);
    }

    std::printf("\nre-planning with new sizes (ActivationPlanner::plan, liveness kept), best of 5\n");
    std::printf("%10s %10s %14s %22s\n", "nodes", "owners", "ns/owner", "allocations per plan");
    for (std::size_t nodes = 1000; nodes <= max_nodes; nodes *= 10) {
        const Synthetic s = make_synthetic(nodes, 0x9E3779B97F4A7C15ull + nodes);
        auto planner = orm::ActivationPlanner::create(s.graph, s.views);
        orm::ActivationPlan plan;
        std::size_t scale = 1;
        const ReplanTiming t = time_replanning(*planner, plan, s, scale);
        std::printf("%10zu %10zu %14.1f %22.1f\n", nodes, planner->liveness().owners.size(), t.ns_per_owner,
                    t.allocations_per_plan);
    }

    std::printf("\narena re-planning with new sizes (ArenaPlanner::plan, the sweep alone: work_per_owner 0), best of 5\n");
    std::printf("%10s %10s %14s %22s %16s\n", "nodes", "owners", "ns/owner", "allocations per plan", "arena / bound");
    for (std::size_t nodes = 1000; nodes <= std::min<std::size_t>(max_nodes, 100000); nodes *= 10) {
        const Synthetic s = make_synthetic(nodes, 0x9E3779B97F4A7C15ull + nodes);
        orm::ArenaOptions fast;
        fast.work_per_owner = 0;
        auto planner = orm::ArenaPlanner::create(s.graph, s.views, {}, fast);
        orm::ArenaPlan plan;
        std::size_t scale = 1;
        const ReplanTiming t = time_replanning(*planner, plan, s, scale);
        const auto oracle = [&](orm::ValueId v) { return std::optional<std::size_t>(s.sizes[v] * scale); };
        if (!orm::validate_arena(s.graph, s.views, plan, oracle, 64)) return 1;  // the last plan, at the last scale
        std::printf("%10zu %10zu %14.1f %22.1f %16.4f\n", nodes, planner->liveness().owners.size(), t.ns_per_owner,
                    t.allocations_per_plan,
                    static_cast<double>(plan.arena_bytes) / static_cast<double>(planner->lower_bound_bytes()));
    }

    std::printf("\narena planning at scale: sweep only (work_per_owner 0) and the default strategies, alignment 64\n");
    std::printf("%10s %10s %12s %12s %16s %16s %8s\n", "nodes", "owners", "sweep ms", "default ms", "arena bytes",
                "lower bound", "ratio");
    for (std::size_t nodes : {std::size_t{5000}, std::size_t{100000}, max_nodes}) {
        const Synthetic s = make_synthetic(nodes, 0x9E3779B97F4A7C15ull + nodes);
        const auto oracle = [&](orm::ValueId v) { return std::optional<std::size_t>(s.sizes[v]); };
        auto live = orm::compute_liveness(s.graph, s.views);
        orm::ArenaOptions sweep_only;
        sweep_only.work_per_owner = 0;
        std::size_t arena = 0;
        const double sweep = best_of(5, [&] { arena = orm::plan_arena(*live, oracle, sweep_only)->plan().arena_bytes; });
        const double full = best_of(3, [&] { arena = orm::plan_arena(*live, oracle)->plan().arena_bytes; });
        auto plan = orm::plan_arena(*live, oracle)->plan();
        if (!orm::validate_arena(s.graph, s.views, plan, oracle, 64)) return 1;
        const std::size_t bound = orm::lower_bounds(*live, oracle, 64)->offset_bytes;
        std::printf("%10zu %10zu %12.2f %12.2f %16zu %16zu %8.4f\n", nodes, live->owners.size(), sweep * 1e3, full * 1e3,
                    arena, bound, static_cast<double>(arena) / static_cast<double>(bound));
    }

    std::printf("\ncorpus (%s), default views, load = read + parse the file, plan = liveness + slots\n",
                corpus.c_str());
    std::printf("%-26s %8s %8s %10s %10s %10s %13s %13s %10s\n", "graph", "values", "owners", "load us", "plan us",
                "plan/load", "arena (64)", "lower bound", "arena us");
    // The slot strategies on the same graphs, printed after the table.
    std::string slot_rows;
    const auto fmt_row = [](const std::string& name, const orm::Liveness& live, auto oracle, std::size_t bound) {
        std::size_t peak[5];
        const orm::SlotStrategy strategies[] = {orm::SlotStrategy::best_fit, orm::SlotStrategy::in_order_growth,
                                                orm::SlotStrategy::greedy_by_size, orm::SlotStrategy::greedy_by_distance,
                                                orm::SlotStrategy::least};
        for (int k = 0; k < 5; ++k) peak[k] = orm::plan_activations(live, oracle, strategies[k])->plan().peak_bytes;
        std::vector<orm::Buffer> records;  // the owners, by first use
        for (orm::ValueId v : live.owners) records.push_back({*oracle(v), live.intervals[v].def, live.intervals[v].use_end});
        const std::size_t peer[4] = {tflite_like::greedy_in_order(records), tflite_like::greedy_by_breadth(records),
                                     tflite_like::greedy_by_size_dist(records),
                                     records.size() <= 1000 ? tflite_like::min_cost_flow(records) : tflite_like::none};
        const std::size_t best_peer = *std::min_element(std::begin(peer), std::end(peer));
        char line[320];
        std::snprintf(line, sizeof line, "%-22s %11zu %11zu %11zu %11zu %11zu | %11zu %11zu %11zu %11s | %11zu %11zu\n",
                      name.c_str(), peak[0], peak[1], peak[2], peak[3], peak[4], peer[0], peer[1], peer[2],
                      peer[3] == tflite_like::none ? "-" : std::to_string(peer[3]).c_str(), best_peer, bound);
        return std::string(line);
    };
    std::vector<std::filesystem::path> files;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(corpus, ec))
        if (e.path().extension() == ".graph") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
        ir::Graph g;
        const double load = best_of(5, [&] {
            auto r = ir::read_graph_file(f.string());
            if (!r) std::abort();
            g = std::move(*r);
        });
        const orm::ViewMap views = ir::views_from_ops(g);
        std::size_t owners = 0;
        const double plan = best_of(20, [&] {
            auto live = orm::compute_liveness(g, views);
            auto status = orm::plan_activations(*live, orm::static_size_oracle(g));
            owners = live->owners.size();
            if (!status) std::abort();
        });
        auto live = orm::compute_liveness(g, views);
        const auto bounds = orm::lower_bounds(*live, orm::static_size_oracle(g), 64);
        std::size_t arena = 0;
        const double arena_sec = bounds ? best_of(5, [&] {
            arena = orm::plan_arena(*live, orm::static_size_oracle(g))->plan().arena_bytes;
        }) : 0.0;
        if (!bounds) {
            std::printf("%-26s %8zu %8zu %10.0f %10.1f %10.3f %13s\n", g.name().c_str(), g.value_count(), owners,
                        load * 1e6, plan * 1e6, plan / load, "deferred");
            continue;
        }
        std::printf("%-26s %8zu %8zu %10.0f %10.1f %10.3f %13zu %13zu %10.0f\n", g.name().c_str(), g.value_count(),
                    owners, load * 1e6, plan * 1e6, plan / load, arena, bounds->offset_bytes, arena_sec * 1e6);
        slot_rows += fmt_row(g.name(), *live, orm::static_size_oracle(g), bounds->slot_bytes);
    }
    
    std::printf("\nslot plans on the corpus, bytes: best fit (default) and the opt-in strategies (SlotStrategy) | TFLite's shared-object\n"
                "strategies (in order, by breadth, by size with distance priority, min-cost flow up to 1,000 owners) | the\n"
                "best of them, and the slot bound (positional maximums)\n");
    std::printf("%-22s %11s %11s %11s %11s %11s | %11s %11s %11s %11s | %11s %11s\n", "graph", "best fit", "growth",
                "by size", "by distance", "least", "in order", "breadth", "size+dist", "min-cost", "best TFLite",
                "slot bound");
    std::printf("%s", slot_rows.c_str());

    // MiniMalloc's hard instances: greedy strategies, the skyline, then the
    // exact search and randomised skyline restarts, all cut off at 100 ms.
    std::printf("\nMiniMalloc challenging instances (%s), alignment 1, searches cut off at 100 ms\n", minimalloc.c_str());
    std::printf("%-4s %8s %12s %12s %12s %12s %14s %9s %10s  %s\n", "", "buffers", "capacity", "lower bound",
                "greedy only", "arena", "best published", "arena/cap", "ms", "strategy");
    const std::pair<const char*, std::size_t> peers[] = {
        {"A", 1352704}, {"B", 1412096}, {"C", 1417216}, {"D", 1301504}, {"E", 1435648}, {"F", 1348608},
        {"G", 1396736}, {"H", 1421312}, {"I", 1478656}, {"J", 1298432}, {"K", 1339392},
    };
    for (const auto& [name, peer] : peers) {
        auto g = ir::read_minimalloc_csv(minimalloc + "/" + name + ".1048576.csv");
        if (!g) continue;
        auto live = orm::compute_liveness(*g, {});
        orm::ArenaOptions greedy;
        greedy.alignment = 1;
        const std::size_t greedy_arena = orm::plan_arena(*live, orm::static_size_oracle(*g), greedy)->plan().arena_bytes;
        orm::ArenaOptions searched = greedy;
        searched.exact_nodes = std::uint64_t{1} << 40;
        searched.search_iterations = 1u << 30;
        searched.time_limit = std::chrono::milliseconds(100);
        const auto t0 = std::chrono::steady_clock::now();
        const auto plan = orm::plan_arena(*live, orm::static_size_oracle(*g), searched)->plan();
        const double ms = seconds_since(t0) * 1e3;
        if (!orm::validate_arena(*g, {}, plan, orm::static_size_oracle(*g), 1)) return 1;
        const std::size_t bound = orm::lower_bounds(*live, orm::static_size_oracle(*g), 1)->offset_bytes;
        std::printf("%-4s %8zu %12d %12zu %12zu %12zu %14zu %9.3f %10.1f  %s\n", name, live->owners.size(), 1048576,
                    bound, greedy_arena, plan.arena_bytes, peer, static_cast<double>(plan.arena_bytes) / 1048576.0, ms,
                    orm::to_string(plan.strategy));
    }
    return 0;
}
