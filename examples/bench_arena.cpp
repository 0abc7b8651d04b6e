// bench_arena: default arena planning at every scale, side by side with a
// peer, on three graph families and the MiniMalloc hard set.
//
//   bench_arena [--max-nodes N] [--minimalloc DIR] [--proof-ms MS] [--work-per-owner W] [--seed-offset K]
//               [--first-fit-steps S] [--seeds K] [--held-out] [--families a,b,...] [--peer-max-nodes N]
//
// For each family (residual chains with short lifetimes; residual blocks
// whose skip outlives the block; random DAGs with mixed lifetimes; U-Nets
// whose skips and caches live across thousands of nodes; chains that keep
// one value in 64 for thousands of nodes, as graph outputs or only read)
// at 1k to 1M nodes and --seeds seeds each (--held-out: from a base the
// tuning never saw): the default plan_arena time (median of 3), its
// time / (n log2 n) against the 10k row, the heap it holds at its peak (per
// owner), the sweep alone, the arena over the lower bound, the strategy that
// won; and TFLite's greedy-by-size offsets
// (written here from its published algorithm, O(n^2)) up to --peer-max-nodes
// (20k). Then
// the MiniMalloc instances through the graph-free layer with their real
// time stamps, and random perfect packings (known optima) the same way.
// --work-per-owner raises (or lowers) the budget of the family rows,
// --seed-offset plans other graphs of the same families, --first-fit-steps
// sets the first fit by size's cap (ArenaOptions::first_fit_steps; 0: off).
#include <onnx_runtime_memory/onnx_runtime_memory.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <numeric>
#include <string>
#include <vector>

#include "heap_accounting.hpp"
#include "ir/minimalloc.hpp"
#include "synthetic.hpp"
#include "tflite_baselines.hpp"

namespace orm = onnx_runtime_memory;
using synthetic::Synthetic;

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

template <class F>
double median_of(int reps, F&& f) {
    std::vector<double> t;
    for (int r = 0; r < reps; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        f();
        t.push_back(seconds_since(t0));
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

std::vector<orm::Buffer> owner_records(const orm::Liveness& live, const std::vector<std::size_t>& sizes) {
    std::vector<orm::Buffer> out;
    for (orm::ValueId v : live.owners) out.push_back({sizes[v], live.intervals[v].def, live.intervals[v].use_end});
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    std::size_t max_nodes = 1000000;
    long proof_ms = 5000;
    std::string minimalloc = ORM_DATA_DIR "/benchmarks/minimalloc";
    orm::ArenaOptions options;  // the defaults unless --work-per-owner
    std::uint64_t seed_offset = 0;  // other graphs of the same families
    std::size_t seeds = 1, peer_max_nodes = 20000;
    bool held_out = false;  // seeds from a base no tuning looked at
    std::string only;       // ",name,name,": these families only
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--max-nodes" && i + 1 < argc) max_nodes = std::stoul(argv[++i]);
        else if (a == "--minimalloc" && i + 1 < argc) minimalloc = argv[++i];
        else if (a == "--proof-ms" && i + 1 < argc) proof_ms = std::stol(argv[++i]);
        else if (a == "--work-per-owner" && i + 1 < argc) options.work_per_owner = std::stoul(argv[++i]);
        else if (a == "--first-fit-steps" && i + 1 < argc) options.first_fit_steps = std::stoul(argv[++i]);
        else if (a == "--seed-offset" && i + 1 < argc) seed_offset = std::stoull(argv[++i]);
        else if (a == "--seeds" && i + 1 < argc) seeds = std::stoul(argv[++i]);
        else if (a == "--held-out") held_out = true;
        else if (a == "--families" && i + 1 < argc) only = "," + std::string(argv[++i]) + ",";
        else if (a == "--peer-max-nodes" && i + 1 < argc) peer_max_nodes = std::stoul(argv[++i]);
        else {
            std::fprintf(stderr, "usage: bench_arena [--max-nodes N] [--minimalloc DIR] [--proof-ms MS] [--work-per-owner W] "
                                 "[--seed-offset K] [--first-fit-steps S] [--seeds K] [--held-out] [--families a,b] "
                                 "[--peer-max-nodes N]\n");
            return 1;
        }
    }
    if (proof_ms <= 0) {  // ArenaOptions reads 0 as no time limit: the exact search would run for hours
        std::fprintf(stderr, "bench_arena: --proof-ms must be at least 1\n");
        return 1;
    }
    struct Family {
        const char* name;
        Synthetic (*make)(std::size_t, std::uint64_t);
    };
    const Family families[] = {
        {"residual", synthetic::residual_chain},
        {"blocks", [](std::size_t n, std::uint64_t seed) { return synthetic::residual_blocks(n, seed); }},
        {"blocks_wide", [](std::size_t n, std::uint64_t seed) {  // skip as wide as the widest block, no views
             synthetic::ResidualShape shape;
             shape.skip_rows = 1024;
             shape.view_every = 0;
             return synthetic::residual_blocks(n, seed, shape);
         }},
        {"random_dag", synthetic::random_dag},
        {"long_lived", synthetic::long_lived},
        {"kept", [](std::size_t n, std::uint64_t seed) { return synthetic::kept_values(n, seed); }},
        {"kept_read", [](std::size_t n, std::uint64_t seed) {  // kept values only read, over 200 to 20,000 nodes
             synthetic::KeptShape shape;
             shape.kept_are_outputs = false;
             shape.min_span = 200;
             shape.max_span = 20000;
             shape.read_one_in = 64;
             return synthetic::kept_values(n, seed, shape);
         }},
    };
    // The tuned seeds: (golden ratio ^ nodes) + offset + k; the held-out ones another base.
    const std::uint64_t seed_base = held_out ? 0xD1B54A32D192ED03ull : 0x9E3779B97F4A7C15ull;
    constexpr std::size_t alignment = 64;
    std::printf("default plan_arena (alignment 64, work_per_owner %zu, first_fit_steps %zu, seed offset %llu), median of 3; "
                "ratio: time / (n log2 n) against the 10k row;\nB/owner: the heap the plan holds at its peak, per owner\n",
                options.work_per_owner, options.first_fit_steps, static_cast<unsigned long long>(seed_offset));
    std::printf("%-11s %4s %8s %8s %10s %7s %7s %9s %9s %-18s %11s %9s\n", "family", "seed", "nodes", "owners",
                "default ms", "ratio", "B/owner", "sweep ms", "/ bound", "strategy", "tflite ms", "/ bound");
    for (const Family& f : families)
    for (std::size_t k = 0; k < seeds; ++k) {
        if (!only.empty() && only.find("," + std::string(f.name) + ",") == std::string::npos) continue;
        // Rows are printed once the 10k row is in, so that the smaller sizes get their ratio too.
        struct Row {
            std::size_t nodes, owners;
            double ms, per, peak_per_owner, sweep_ms, over_bound;
            const char* strategy;
            char peer[64];
        };
        std::vector<Row> rows;
        double at_10k = 0;
        for (std::size_t nodes : {1000u, 5000u, 10000u, 20000u, 100000u, 1000000u}) {
            if (nodes > max_nodes) break;
            const Synthetic s = f.make(nodes, (seed_base ^ nodes) + seed_offset + k);
            const auto oracle = s.oracle();
            auto live = orm::compute_liveness(s.graph, s.views);
            if (!live) return 1;
            orm::ArenaPlan plan;
            const double ms = 1e3 * median_of(3, [&] { plan = orm::plan_arena(*live, oracle, options)->plan(); });
            // One more plan, counting the peak of the heap above what was live before it.
            const std::size_t before = heap_now;
            heap_peak = heap_now;
            { auto again = orm::plan_arena(*live, oracle, options); }
            const std::size_t peak = heap_peak - before;
            if (auto ok = orm::validate_arena(s.graph, s.views, plan, oracle, alignment); !ok) {
                std::fprintf(stderr, "%s %zu: invalid arena: %s\n", f.name, nodes, ok.error().message().c_str());
                return 1;
            }
            orm::ArenaOptions sweep_only;
            sweep_only.work_per_owner = 0;
            const double sweep_ms = 1e3 * median_of(3, [&] { (void)orm::plan_arena(*live, oracle, sweep_only); });
            const std::size_t bound = orm::lower_bounds(*live, oracle, alignment)->offset_bytes;
            const double n = static_cast<double>(live->owners.size());
            const double per = ms / (n * std::log2(n));
            if (nodes == 10000) at_10k = per;
            Row row{nodes, live->owners.size(), ms, per, static_cast<double>(peak) / n, sweep_ms,
                    static_cast<double>(plan.arena_bytes) / static_cast<double>(bound), orm::to_string(plan.strategy),
                    "        -         -"};
            if (nodes <= peer_max_nodes) {
                const auto records = owner_records(*live, s.sizes);
                std::size_t arena = 0;
                const double peer_ms = 1e3 * median_of(1, [&] { arena = tflite_like::greedy_by_size_offsets(records, alignment); });
                std::snprintf(row.peer, sizeof row.peer, "%11.1f %9.4f", peer_ms,
                              static_cast<double>(arena) / static_cast<double>(bound));
            }
            rows.push_back(row);
        }
        for (const Row& r : rows) {
            char ratio[16] = "      ";
            if (at_10k > 0) std::snprintf(ratio, sizeof ratio, "%7.2f", r.per / at_10k);
            std::printf("%-11s %4zu %8zu %8zu %10.2f %7s %7.0f %9.2f %9.4f %-18s %s\n", f.name, k, r.nodes, r.owners, r.ms,
                        ratio, r.peak_per_owner, r.sweep_ms, r.over_bound, r.strategy, r.peer);
        }
        std::fflush(stdout);
    }

    std::printf("\nMiniMalloc instances (%s) through plan_offsets with their real time stamps, alignment 1;\n"
                "arena / capacity (1,048,576); the exact search cut at 100 ms, then at the proof budget (%ld ms):\n"
                "its arena, the bound it proves (proven_bound_bytes), and whether they meet (optimal); cpu ms: the CPU time\n"
                "the 100 ms cut got; cpu 100ms: the search cut at 100 ms of the thread's CPU time instead (TimeLimitClock::thread_cpu)\n",
                minimalloc.c_str(), proof_ms);
    std::printf("%-9s %8s %10s %9s %-18s %12s %9s %7s %10s %7s %10s %10s %9s %s\n", "instance", "buffers", "bound",
                "default", "strategy", "exact+100ms", "ms", "cpu ms", "cpu 100ms", "ms", "proof", "proven", "ms", "optimal");
    std::vector<std::filesystem::path> files;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(minimalloc, ec))
        if (e.path().extension() == ".csv") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const auto& file : files) {
        auto inst = ir::read_minimalloc(file.string());
        if (!inst) continue;
        const auto& records = inst->timed.empty() ? inst->buffers : inst->timed;
        orm::ArenaOptions o;
        o.alignment = 1;
        const auto plain = orm::plan_offsets(records, o);
        o.exact_nodes = std::uint64_t{1} << 40;
        o.time_limit = std::chrono::milliseconds(100);
        orm::OffsetPlan exact;
        const std::clock_t cpu0 = std::clock();  // the process's CPU time: this bench runs one thread
        const double ms = 1e3 * median_of(1, [&] { exact = *orm::plan_offsets(records, o); });
        const double cpu_ms = 1e3 * static_cast<double>(std::clock() - cpu0) / CLOCKS_PER_SEC;
        o.time_limit_clock = orm::TimeLimitClock::thread_cpu;  // the same limit counted in CPU time
        orm::OffsetPlan on_cpu;
        const double on_cpu_ms = 1e3 * median_of(1, [&] { on_cpu = *orm::plan_offsets(records, o); });
        o.time_limit_clock = orm::TimeLimitClock::wall;
        o.time_limit = std::chrono::milliseconds(proof_ms);
        orm::OffsetPlan proof;
        const double proof_took = 1e3 * median_of(1, [&] { proof = *orm::plan_offsets(records, o); });
        if (!plain || !orm::validate_offsets(records, *plain, 1) || !orm::validate_offsets(records, exact, 1) ||
            !orm::validate_offsets(records, proof, 1) || !orm::validate_offsets(records, on_cpu, 1))
            return 1;
        constexpr double capacity = 1048576.0;
        std::printf("%-9s %8zu %10.4f %9.4f %-18s %12.4f %9.1f %7.1f %10.4f %7.1f %10.4f %10.4f %9.1f %s\n",
                    inst->name.c_str(), records.size(), static_cast<double>(plain->lower_bound_bytes) / capacity,
                    static_cast<double>(plain->arena_bytes) / capacity, orm::to_string(plain->strategy),
                    static_cast<double>(exact.arena_bytes) / capacity, ms, cpu_ms,
                    static_cast<double>(on_cpu.arena_bytes) / capacity, on_cpu_ms,
                    static_cast<double>(proof.arena_bytes) / capacity,
                    static_cast<double>(proof.proven_bound_bytes) / capacity, proof_took,
                    proof.arena_bytes == proof.proven_bound_bytes ? "yes" : "no");
    }

    // Instances the search was not tuned on, with known optima.
    std::printf("\nrandom perfect packings (synthetic::perfect_packing: 1,048,576 bytes over 2,000 steps cut into\n"
                "250 or 400 buffers; the optimum is the capacity), alignment 1, the exact search cut at 100 ms:\n"
                "arena / capacity and the call's time\n");
    for (const std::size_t pieces : {250u, 400u}) {
        std::printf("%5zu buffers:", pieces);
        std::size_t solved = 0;
        for (std::uint64_t seed = 1; seed <= 10; ++seed) {
            const auto records = synthetic::perfect_packing(pieces, 1048576, 2000, seed);
            orm::ArenaOptions o;
            o.alignment = 1;
            o.exact_nodes = std::uint64_t{1} << 40;
            o.time_limit = std::chrono::milliseconds(100);
            orm::OffsetPlan plan;
            const double ms = 1e3 * median_of(1, [&] { plan = *orm::plan_offsets(records, o); });
            if (!orm::validate_offsets(records, plan, 1)) return 1;
            solved += plan.arena_bytes == 1048576;
            std::printf(" %.4f/%.0f", static_cast<double>(plan.arena_bytes) / 1048576.0, ms);
        }
        std::printf("  (%zu of 10 at the optimum)\n", solved);
    }
}
