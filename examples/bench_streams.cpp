// bench_streams: arenas for nodes running at the same time, on the corpus
// and on generated families, at 1, 2, 4 and 8 streams (nodes assigned by
// orm::streams_by_list_scheduling).
//
//   bench_streams [--max-nodes N] [--seeds K] [--held-out] [--corpus DIR] [--scratch BYTES]
//
// Each row: one buffer per tensor (what ONNX Runtime's parallel mode
// allocates), the sequential plan (plan_arena: unsafe across streams, for
// reference) and its time, ours (plan_arena_concurrent, validated by
// validate_arena_concurrent) and its time, the bound it proves (the
// heaviest antichain where it had to look), ours over the bound, our
// time over the sequential plan's, and a request to a PlannedModel made by
// create_on_streams (the same plan, checked; the clocks, the liveness and
// the nodes' touches made once), and validate_arena_concurrent's time on
// our plan. Times are medians of 5. Families of 1k, 5k, 20k and 100k nodes
// up to --max-nodes (20k), --seeds seeds each (--held-out: from another
// base than the one tuned on). --scratch BYTES: node n asks for BYTES x
// (n % 3) bytes of scratch (a workspace on two nodes in three), in every plan.
#include <onnx_runtime_memory/onnx_runtime_memory.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "ir/graph_text.hpp"
#include "ir/views.hpp"
#include "synthetic.hpp"

namespace orm = onnx_runtime_memory;

namespace {

template <class F>
double median_ms(F&& f) {
    std::vector<double> t;
    for (int r = 0; r < 5; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        f();
        t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

// One graph at 1, 2, 4 and 8 streams. False when a plan is invalid.
template <class G, class Oracle>
bool rows(const char* name, const G& g, const orm::ViewMap& views, const Oracle& oracle, std::size_t scratch,
          double& worst_ratio, double& worst_time) {
    orm::PlanOptions options;
    options.scratch_bytes.resize(scratch > 0 ? g.node_count() : 0);
    for (std::size_t n = 0; n < options.scratch_bytes.size(); ++n) options.scratch_bytes[n] = scratch * (n % 3);
    const auto live = orm::compute_liveness(g, views);
    if (!live) return std::fprintf(stderr, "%s: %s\n", name, live.error().message().c_str()), false;
    std::size_t naive = 0;
    for (orm::ValueId r : live->owners) naive += (oracle(r).value_or(0) + 63) / 64 * 64;
    for (std::size_t k : {std::size_t{1}, std::size_t{2}, std::size_t{4}, std::size_t{8}}) {
        const orm::Streams streams = orm::streams_by_list_scheduling(g, k);
        std::size_t sequential = 0, ours = 0, bound = 0;
        const double seq_ms = median_ms([&] { sequential = orm::plan_arena(g, views, oracle, options)->plan().arena_bytes; });
        orm::ArenaPlan plan;
        const double ms = median_ms([&] { plan = orm::plan_arena_concurrent(g, views, oracle, streams, options)->plan(); });
        auto model = orm::PlannedModel::create_on_streams(g, views, streams, options);
        if (!model) return std::fprintf(stderr, "%s: %s\n", name, model.error().message().c_str()), false;
        const double request_ms = median_ms([&] { (void)model->plan(oracle); });
        if (!(model->arena() == plan))
            return std::fprintf(stderr, "%s on %zu streams: PlannedModel's plan differs\n", name, k), false;
        ours = plan.arena_bytes;
        bound = plan.proven_bound_bytes;
        bool valid = true;
        const double validate_ms = median_ms([&] {
            valid = orm::validate_arena_concurrent(g, views, plan, oracle, streams, 64, options).has_value();
        });
        if (!valid) {
            const auto ok = orm::validate_arena_concurrent(g, views, plan, oracle, streams, 64, options);
            return std::fprintf(stderr, "%s on %zu streams: invalid: %s\n", name, k, ok.error().message().c_str()), false;
        }
        const double ratio = static_cast<double>(ours) / static_cast<double>(std::max<std::size_t>(bound, 1));
        const double slower = ms / std::max(seq_ms, 1e-6);
        worst_ratio = std::max(worst_ratio, ratio);
        worst_time = std::max(worst_time, slower);
        std::printf("%-24s %7zu %2zu %13zu %13zu %9.3f %13zu %9.3f %13zu %8.4f %6.2f %10.3f %11.3f\n", name, g.node_count(),
                    k, naive, sequential, seq_ms, ours, ms, bound, ratio, slower, request_ms, validate_ms);
    }
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    std::size_t max_nodes = 20000, seeds = 2;
    std::size_t scratch = 0;
    bool held_out = false;
    std::string corpus = ORM_DATA_DIR "/corpus";  // ONNX_RUNTIME_MEMORY_DATA_DIR at configure time
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--max-nodes" && i + 1 < argc) max_nodes = std::stoul(argv[++i]);
        else if (a == "--seeds" && i + 1 < argc) seeds = std::stoul(argv[++i]);
        else if (a == "--held-out") held_out = true;
        else if (a == "--corpus" && i + 1 < argc) corpus = argv[++i];
        else if (a == "--scratch" && i + 1 < argc) scratch = std::stoul(argv[++i]);
        else
            return std::fprintf(stderr, "usage: bench_streams [--max-nodes N] [--seeds K] [--held-out] [--corpus DIR] "
                                        "[--scratch BYTES]\n"),
                   2;
    }
    std::printf("%-24s %7s %2s %13s %13s %9s %13s %9s %13s %8s %6s %10s %11s\n", "graph", "nodes", "K", "one each",
                "sequential", "seq ms", "ours", "ours ms", "bound", "/ bound", "x time", "request ms", "validate ms");
    double corpus_ratio = 0, corpus_time = 0, family_ratio = 0, family_time = 0;
    std::vector<std::filesystem::path> files;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(corpus, ec))
        if (e.path().extension() == ".graph") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const auto& file : files) {
        auto g = ir::read_graph_file(file.string());
        if (!g) continue;
        const auto views = ir::views_from_ops(*g);
        const orm::SymbolBounds bounds{{"batch", 1}};  // resnet50_dynamic_batch at batch 1; no other graph has symbols
        const auto oracle = orm::bounded_size_oracle(*g, bounds);
        if (!rows(file.stem().string().c_str(), *g, views, oracle, scratch, corpus_ratio, corpus_time)) return 1;
    }
    struct Family {
        const char* name;
        synthetic::Synthetic (*make)(std::size_t, std::uint64_t);
    };
    const Family families[] = {
        {"residual", synthetic::residual_chain},
        {"blocks", [](std::size_t n, std::uint64_t seed) { return synthetic::residual_blocks(n, seed); }},
        {"random_dag", synthetic::random_dag},
        {"long_lived", synthetic::long_lived},
        {"kept", [](std::size_t n, std::uint64_t seed) { return synthetic::kept_values(n, seed); }},
        {"randwire", [](std::size_t n, std::uint64_t seed) { return synthetic::randwire(4, n / 4, 4, 0.75, seed); }},
    };
    const std::uint64_t seed_base = held_out ? 0xD1B54A32D192ED03ull : 0x9E3779B97F4A7C15ull;
    for (const Family& f : families)
        for (std::size_t k = 0; k < seeds; ++k)
            for (std::size_t nodes : {1000u, 5000u, 20000u, 100000u}) {
                if (nodes > max_nodes) break;
                const synthetic::Synthetic s = f.make(nodes, (seed_base ^ nodes) + k);
                const std::string name = std::string(f.name) + " #" + std::to_string(k);
                if (!rows(name.c_str(), s.graph, s.views, s.oracle(), scratch, family_ratio, family_time)) return 1;
            }
    std::printf("worst ours / bound: corpus %.4f, families %.4f; worst time over the sequential plan's: corpus %.2fx, "
                "families %.2fx\n",
                corpus_ratio, family_ratio, corpus_time, family_time);
    return 0;
}
