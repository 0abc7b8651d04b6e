// bench_order: memory_aware_order on the corpus and on irregular graphs
// (RandWire stages, NASNet-like cells): the given order's peak, each
// strategy's, the result, the lower bound over every order, the time
// (median of 3) and whether it is proven optimal. The irregular graphs come
// twice: as they are generated (node-index order, as a framework that
// exports in execution order writes them), then in level order (Kahn's
// algorithm with a queue, as a converter that sorts by levels writes them).
//
//   bench_order [--corpus DIR]
#include <onnx_runtime_memory/onnx_runtime_memory.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <deque>
#include <filesystem>
#include <string>
#include <vector>

#include "ir/graph_text.hpp"
#include "ir/views.hpp"
#include "synthetic.hpp"

namespace orm = onnx_runtime_memory;

namespace {

template <class G, class Oracle>
void row(const std::string& name, const G& g, const orm::ViewMap& views, Oracle oracle, double& saved_sum, int& count) {
    std::vector<double> t;
    orm::MemoryOrder mo;
    for (int r = 0; r < 3; ++r) {
        const auto t0 = std::chrono::steady_clock::now();
        auto result = orm::memory_aware_order(g, views, oracle);
        t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
        if (!result) {
            std::printf("%-33s %s\n", name.c_str(), result.error().message().c_str());
            return;
        }
        mo = std::move(*result);
    }
    std::sort(t.begin(), t.end());
    if (mo.given_peak_bytes == 0) {
        std::printf("%-33s sizes unknown (unknown sizes count 0): nothing to order\n", name.c_str());
        return;
    }
    auto ordered = orm::in_order(g, mo.order);
    auto live = orm::compute_liveness(*ordered, views);
    if (!live || orm::lower_bounds(*live, oracle)->offset_bytes != mo.peak_bytes) {
        std::printf("%-33s the order does not plan to its peak\n", name.c_str());
        return;
    }
    std::size_t by[7] = {0, 0, 0, 0, 0, 0, 0};
    for (const auto& [strategy, peak] : mo.tried) by[static_cast<int>(strategy)] = peak;
    const double saved = 1.0 - static_cast<double>(mo.peak_bytes) / static_cast<double>(std::max<std::size_t>(mo.given_peak_bytes, 1));
    saved_sum += saved;
    ++count;
    std::printf("%-33s %7zu %12zu %12zu %12zu %12zu %12zu %12zu %12zu %7.1f%% %9.1f %-10s %s\n", name.c_str(),
                static_cast<std::size_t>(g.node_count()), mo.given_peak_bytes, by[1], by[2], by[3], by[4], mo.peak_bytes,
                mo.lower_bound_bytes, 100.0 * saved, t[1], orm::to_string(mo.strategy), mo.proven_optimal ? "yes" : "no");
}

// Level order: Kahn's algorithm with a first-in first-out queue.
template <class G>
std::vector<orm::NodeIndex> level_order(const G& g) {
    const std::size_t N = g.node_count();
    std::vector<std::uint32_t> producer(g.value_count(), 0xFFFFFFFFu), waiting(N, 0);
    for (std::size_t n = 0; n < N; ++n)
        for (auto v : g.node_outputs(n)) producer[v] = static_cast<std::uint32_t>(n);
    std::vector<std::vector<std::uint32_t>> next(N);
    for (std::size_t n = 0; n < N; ++n) {
        std::vector<std::uint32_t> from;
        for (auto v : g.node_inputs(n))
            if (producer[v] != 0xFFFFFFFFu) from.push_back(producer[v]);
        std::sort(from.begin(), from.end());
        from.erase(std::unique(from.begin(), from.end()), from.end());
        for (auto m : from) next[m].push_back(static_cast<std::uint32_t>(n));
        waiting[n] = static_cast<std::uint32_t>(from.size());
    }
    std::deque<std::uint32_t> ready;
    for (std::size_t n = 0; n < N; ++n)
        if (waiting[n] == 0) ready.push_back(static_cast<std::uint32_t>(n));
    std::vector<orm::NodeIndex> order;
    while (!ready.empty()) {
        const auto n = ready.front();
        ready.pop_front();
        order.push_back(n);
        for (auto m : next[n])
            if (--waiting[m] == 0) ready.push_back(m);
    }
    return order;
}

}  // namespace

int main(int argc, char** argv) {
    std::string corpus = ORM_DATA_DIR "/corpus";
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--corpus" && i + 1 < argc) corpus = argv[++i];
        else {
            std::fprintf(stderr, "usage: bench_order [--corpus DIR]\n");
            return 1;
        }
    }
    std::printf("%-33s %7s %12s %12s %12s %12s %12s %12s %12s %8s %9s %-10s %s\n", "graph", "nodes", "given", "list", "dfs",
                "post_order", "frontier", "ours", "lower bound", "saved", "ms", "won by", "proven");
    double saved = 0;
    int count = 0;
    std::vector<std::filesystem::path> files;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(corpus, ec))
        if (e.path().extension() == ".graph") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
        auto g = ir::read_graph_file(f.string());
        if (!g) continue;
        const auto views = ir::views_from_ops(*g);
        row(g->name(), *g, views, orm::static_size_oracle(*g), saved, count);
    }
    std::printf("corpus: %.1f%% below the given order on average\n\n", count ? 100.0 * saved / count : 0.0);
    saved = 0;
    count = 0;
    struct Irregular {
        std::string name;
        synthetic::Synthetic s;
    };
    std::vector<Irregular> graphs;
    for (std::uint64_t seed : {1u, 2u, 3u})
        graphs.push_back({"randwire 3x32 k4 p.75 #" + std::to_string(seed), synthetic::randwire(3, 32, 4, 0.75, seed)});
    graphs.push_back({"randwire 3x32 k6 p.25", synthetic::randwire(3, 32, 6, 0.25, 4)});
    graphs.push_back({"randwire 4x250 k4 p.75", synthetic::randwire(4, 250, 4, 0.75, 5)});
    graphs.push_back({"randwire 3x1000 k4 p.75", synthetic::randwire(3, 1000, 4, 0.75, 6)});
    for (std::uint64_t seed : {1u, 2u, 3u}) graphs.push_back({"nasnet 12 cells #" + std::to_string(seed), synthetic::nasnet(12, seed)});
    graphs.push_back({"nasnet 60 cells", synthetic::nasnet(60, 9)});
    graphs.push_back({"nasnet 180 cells", synthetic::nasnet(180, 10)});
    for (const auto& [name, s] : graphs) row(name, s.graph, s.views, s.oracle(), saved, count);
    std::printf("irregular graphs: %.1f%% below the given order on average\n\n", count ? 100.0 * saved / count : 0.0);
    saved = 0;
    count = 0;
    for (const auto& [name, s] : graphs) {
        const auto leveled = orm::in_order(s.graph, level_order(s.graph));
        if (leveled) row(name + " (levels)", *leveled, s.views, s.oracle(), saved, count);
    }
    std::printf("irregular graphs in level order: %.1f%% below the given order on average\n", count ? 100.0 * saved / count : 0.0);
}
