// bench_spill: bytes moved when the fast space is smaller than the arena,
// by our spilled plan beside a caching allocator without a plan.
//
//   bench_spill [--max-nodes N] [--corpus DIR] [--seed S] [--work-per-owner W]
//
// For every corpus model (when DIR has them) and generated U-Nets, random
// DAGs with far-back reads and residual chains at 1k, 10k and 100k nodes:
// fast capacities from the arena's lower bound down to the largest node
// floor (100%, 75%, 50%, 25%, 0% of the way). Per row, the bytes moved (out
// plus in) by plan_arena_spill (SpillStrategy::best), by the farthest-next-use
// caching allocator (SpillStrategy::caching: first fit, no plan), the lower
// bound, and our planning time (median of 3; 1 at 100k). Every plan is
// checked by validate_arena_spill (not timed). The summary: rows where the
// caching allocator moves anything, ours over it on average, the most, and
// rows where ours moves more (there must be none).
#include <onnx_runtime_memory/onnx_runtime_memory.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "ir/graph_text.hpp"
#include "ir/views.hpp"
#include "synthetic.hpp"

namespace orm = onnx_runtime_memory;

namespace {

struct Summary {
    std::size_t rows = 0, moving = 0, above = 0, invalid = 0, infeasible = 0;
    double ratio_sum = 0, ratio_most = 0, slowest_10k_ms = 0, ours_mib = 0, caching_mib = 0;
};

double mib(std::size_t b) { return static_cast<double>(b) / (1024.0 * 1024.0); }

orm::SpillOptions defaults;  // --work-per-owner sets defaults.packing.work_per_owner

template <class G, class Oracle>
void rows(const char* name, const G& g, const orm::ViewMap& views, Oracle&& oracle, std::size_t nodes, Summary& sum) {
    const auto floors = orm::node_floors(g, views, oracle);
    const auto today = orm::plan_arena(g, views, oracle);
    if (!floors || !today || !today->is_complete()) {
        std::printf("%-22s %8zu  (skipped: %s)\n", name, nodes, "sizes unknown or graph refused");
        return;
    }
    const std::size_t floor = *std::max_element(floors->begin(), floors->end());
    const std::size_t bound = std::max(today->plan().proven_bound_bytes, floor);
    for (int pct : {100, 75, 50, 25, 0}) {
        const std::size_t capacity = floor + (bound - floor) * static_cast<std::size_t>(pct) / 100;
        orm::SpillOptions o = defaults;
        o.fast.capacity = capacity;
        std::vector<double> ms;
        orm::expected<orm::SpilledArenaStatus, orm::SpillError> ours = orm::unexpected(orm::SpillError{});
        for (int rep = 0; rep < (nodes >= 100000 ? 1 : 3); ++rep) {
            const auto t0 = std::chrono::steady_clock::now();
            ours = orm::plan_arena_spill(g, views, oracle, {}, o);
            ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
        }
        std::sort(ms.begin(), ms.end());
        o.strategy = orm::SpillStrategy::caching;
        const auto caching = orm::plan_arena_spill(g, views, oracle, {}, o);
        ++sum.rows;
        if (!ours || !caching) {
            ++sum.infeasible;
            std::printf("%-22s %8zu %4d%%  infeasible: %s\n", name, nodes, pct,
                        (!ours ? ours.error() : caching.error()).message().c_str());
            continue;
        }
        o.strategy = orm::SpillStrategy::best;
        const auto& p = ours->plan().spill;
        const auto& c = caching->plan().spill;
        const bool valid = orm::validate_arena_spill(g, views, ours->plan(), oracle, {}, o).has_value() &&
                           orm::validate_arena_spill(g, views, caching->plan(), oracle, {}, o).has_value();
        sum.invalid += !valid;
        const double ratio = c.transfer_bytes == 0 ? 0.0 : static_cast<double>(p.transfer_bytes) / static_cast<double>(c.transfer_bytes);
        if (c.transfer_bytes > 0) {
            ++sum.moving;
            sum.ratio_sum += ratio;
            sum.ratio_most = std::max(sum.ratio_most, ratio);
        }
        sum.above += p.transfer_bytes > c.transfer_bytes;
        sum.ours_mib += mib(p.transfer_bytes);
        sum.caching_mib += mib(c.transfer_bytes);
        if (nodes >= 5000 && nodes <= 20000) sum.slowest_10k_ms = std::max(sum.slowest_10k_ms, ms[ms.size() / 2]);
        const std::string shown = c.transfer_bytes == 0 ? std::string("-") : std::to_string(ratio).substr(0, 5);
        std::printf("%-22s %8zu %4d%% %10.2f %10.2f %10.2f %10.2f  %6s %9.1f  %-7s%s\n", name, nodes, pct, mib(capacity),
                    mib(p.transfer_bytes), mib(c.transfer_bytes), mib(p.transfer_lower_bound_bytes), shown.c_str(),
                    ms[ms.size() / 2], p.strategy == orm::SpillStrategy::planned ? "planned" : "caching",
                    valid ? "" : "  INVALID");
    }
}

}  // namespace

int main(int argc, char** argv) {
    std::size_t max_nodes = 100000;
    std::uint64_t seed = 1;
    std::string corpus = std::string(ORM_DATA_DIR) + "/corpus";
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--max-nodes") == 0 && i + 1 < argc) max_nodes = std::stoul(argv[++i]);
        else if (std::strcmp(argv[i], "--corpus") == 0 && i + 1 < argc) corpus = argv[++i];
        else if (std::strcmp(argv[i], "--seed") == 0 && i + 1 < argc) seed = std::stoull(argv[++i]);
        else if (std::strcmp(argv[i], "--work-per-owner") == 0 && i + 1 < argc)
            defaults.packing.work_per_owner = std::stoul(argv[++i]);
        else {
            std::fprintf(stderr, "usage: bench_spill [--max-nodes N] [--corpus DIR] [--seed S] [--work-per-owner W]\n");
            return 2;
        }
    }
    std::printf("%-22s %8s %5s %10s %10s %10s %10s  %6s %9s  %s\n", "graph", "nodes", "way", "fast MiB", "ours MiB",
                "cache MiB", "bound MiB", "ratio", "ours ms", "won");
    Summary sum;
    std::error_code ec;
    std::vector<std::filesystem::path> files;
    for (const auto& e : std::filesystem::directory_iterator(corpus, ec))
        if (e.path().extension() == ".graph") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const auto& path : files) {
        auto g = ir::read_graph_file(path.string());
        if (!g) continue;
        const auto views = ir::views_from_ops(*g);
        rows(path.stem().string().c_str(), *g, views, orm::static_size_oracle(*g), g->node_count(), sum);
    }
    for (std::size_t nodes : {std::size_t{1000}, std::size_t{10000}, std::size_t{100000}}) {
        if (nodes > max_nodes) break;
        const auto run = [&](const char* name, const synthetic::Synthetic& s) {
            rows(name, s.graph, s.views, s.oracle(), s.graph.node_count(), sum);
        };
        run("unet", synthetic::unet(nodes, seed));
        run("random_dag", synthetic::random_dag(nodes, seed));
        run("residual_chain", synthetic::residual_chain(nodes, seed));
    }
    std::printf("\n%zu rows, %zu infeasible, %zu invalid; where the caching allocator moves anything (%zu rows): ours "
                "moves %.1f%% of its bytes on average, %.1f%% at most; rows above it: %zu; slowest at 10k: %.1f ms; "
                "in all %.0f MiB against %.0f\n",
                sum.rows, sum.infeasible, sum.invalid, sum.moving, sum.moving ? 100.0 * sum.ratio_sum / static_cast<double>(sum.moving) : 0.0,
                100.0 * sum.ratio_most, sum.above, sum.slowest_10k_ms, sum.ours_mib, sum.caching_mib);
    return sum.infeasible + sum.invalid + sum.above == 0 ? 0 : 1;
}
