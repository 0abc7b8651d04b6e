// A test executor for plans across streams: one thread per stream runs that
// stream's nodes in the graph's order, each node first waiting for the
// producers of its inputs (a done flag per node, release and acquire), with
// random delays before and inside each node so the streams interleave
// differently every run. The kernels are stand-ins with real memory
// traffic: a node reads every byte of its inputs into a digest, then writes
// every output it owns (a view owns none) as a function of that digest, so
// a byte clobbered or never written changes the digests of every node
// downstream. Each run at the planned offsets (the arena filled with NaN
// bytes first) must give every node the digests of a run with one buffer per
// tensor, and the graph outputs the same bytes.
//
//   stream_executor [--streams K] [--runs R] [--scale S] [--delay-us D]
//                   [--sequential] [--inplace] FILE...
//
// --streams K    nodes to K streams (orm::streams_by_list_scheduling); 2
// --runs R       runs per model; 20
// --scale S      every size divided by S (rounded up), so that many runs fit
//                in a test's time (under a thread sanitizer too); 16
// --delay-us D   each delay up to D microseconds; 500
// --sequential   run the sequential plan (plan_arena) instead, where
//                validate_arena_concurrent finds it unsafe across the
//                streams: exits 0 once a run of each such model is caught
//                clobbering (within R runs), 1 if one is not
// --inplace      every node hints that its first output may take its first
//                input's bytes (PlanOptions::inplace; the stand-in kernels
//                read all their inputs before they write): the plan takes
//                the hints that are safe on the streams
// A model whose sizes are known only at run time is skipped. Exits 0 when
// every run of every model matches (or, with --sequential, each is caught),
// 1 otherwise, 2 on bad usage or a model it cannot read or plan.
#include <onnx_runtime_memory/onnx_runtime_memory.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "ir/graph_text.hpp"
#include "ir/views.hpp"

namespace orm = onnx_runtime_memory;

namespace {

struct Args {
    std::size_t streams = 2, runs = 20, scale = 16, delay_us = 500;
    bool sequential = false, inplace = false;
    std::vector<std::string> files;
};

// Where each value's bytes are in one run: pointer and size (null: none).
struct Memory {
    std::vector<std::uint8_t*> at;
    std::vector<std::size_t> bytes;
};

std::uint64_t mix(std::uint64_t h, std::uint64_t x) {
    h ^= x;
    h *= 0x100000001b3ull;
    return h ^ (h >> 29);
}

// One node: the digest of its inputs' bytes, then each output it owns
// written from that digest. `pause` runs between the reads and the writes.
// Eight bytes an access where they fit (a sanitizer keeps few accesses
// per word: byte by byte, it would forget some), the tail byte by byte.
template <class Pause>
std::uint64_t run_node(const ir::Graph& g, const orm::ViewMap& views, std::size_t n, const Memory& m, Pause&& pause) {
    std::uint64_t h = 0xcbf29ce484222325ull ^ n;
    for (orm::ValueId v : g.node_inputs(n)) {
        const std::uint8_t* p = m.at[v];
        std::size_t i = 0;
        for (std::uint64_t word = 0; p != nullptr && i + 8 <= m.bytes[v]; i += 8) {
            std::memcpy(&word, p + i, 8);
            h = mix(h, word);
        }
        for (; p != nullptr && i < m.bytes[v]; ++i) h = mix(h, p[i]);
    }
    pause();
    for (orm::ValueId v : g.node_outputs(n)) {
        if (views.contains(v) && !views.is_part(v)) continue;  // a view: its root's bytes
        std::uint8_t* p = m.at[v];
        std::size_t i = 0;
        for (; p != nullptr && i + 8 <= m.bytes[v]; i += 8) {
            const std::uint64_t word = mix(h, i);
            std::memcpy(p + i, &word, 8);
        }
        for (; p != nullptr && i < m.bytes[v]; ++i) p[i] = static_cast<std::uint8_t>(mix(h, i) >> 24);
    }
    return h;
}

// The graph inputs' and weights' contents: the executor's own buffers.
void fill_inputs(const ir::Graph& g, const Memory& m) {
    for (orm::ValueId v = 0; v < g.value_count(); ++v)
        if (g.is_initializer(v) || std::find(g.graph_inputs().begin(), g.graph_inputs().end(), v) != g.graph_inputs().end())
            for (std::size_t i = 0; m.at[v] != nullptr && i < m.bytes[v]; ++i) m.at[v][i] = static_cast<std::uint8_t>(v * 31 + i);
}

struct Model {
    std::string name;
    ir::Graph g;
    orm::ViewMap views;
    std::vector<std::size_t> bytes;  // by value, scaled
    std::vector<std::vector<std::uint8_t>> external;  // graph inputs and weights
    std::vector<std::uint64_t> digests;               // by node, with one buffer per tensor
    std::vector<std::vector<std::uint8_t>> outputs;   // the graph outputs' bytes, likewise
};

// The reference: one buffer per tensor (views at their windows in their roots'), in the graph's order.
void reference(Model& model, const orm::Liveness& live) {
    const ir::Graph& g = model.g;
    std::vector<std::vector<std::uint8_t>> own(g.value_count());
    Memory m{std::vector<std::uint8_t*>(g.value_count(), nullptr), model.bytes};
    for (orm::ValueId v = 0; v < g.value_count(); ++v)
        if (live.roots[v] == v) {
            own[v].assign(model.bytes[v], 0);
            m.at[v] = own[v].data();
        }
    for (orm::ValueId v = 0; v < g.value_count(); ++v)
        if (live.roots[v] != v) m.at[v] = m.at[live.roots[v]] + (live.windows.empty() ? 0 : live.windows[v]);
    fill_inputs(g, m);
    model.external.assign(g.value_count(), {});
    for (orm::ValueId v = 0; v < g.value_count(); ++v)  // what the executor holds: the graph inputs and weights
        if (g.is_initializer(v) || std::find(g.graph_inputs().begin(), g.graph_inputs().end(), v) != g.graph_inputs().end())
            model.external[v] = own[v];
    model.digests.assign(g.node_count(), 0);
    for (std::size_t n = 0; n < g.node_count(); ++n) model.digests[n] = run_node(g, model.views, n, m, [] {});
    for (orm::ValueId v : g.graph_outputs()) model.outputs.emplace_back(m.at[v], m.at[v] + m.bytes[v]);
}

// One run on the streams at the plan's offsets. Returns the nodes whose
// digests or outputs differ from the reference (0: bit for bit).
std::size_t run_on_streams(const Model& model, const std::vector<orm::ValuePlacement>& table, std::size_t arena_bytes,
                           const orm::Streams& streams, std::size_t K, const Args& args, std::uint64_t seed) {
    const ir::Graph& g = model.g;
    const std::size_t N = g.node_count();
    std::vector<std::uint8_t> arena(arena_bytes + 1);
    const float nan = std::numeric_limits<float>::quiet_NaN();
    for (std::size_t i = 0; i + sizeof nan <= arena.size(); i += sizeof nan) std::memcpy(arena.data() + i, &nan, sizeof nan);
    auto external = model.external;
    Memory m{std::vector<std::uint8_t*>(g.value_count(), nullptr), model.bytes};
    for (orm::ValueId v = 0; v < g.value_count(); ++v) {
        const orm::ValuePlacement& p = table[v];
        if (p.offset != orm::no_offset) m.at[v] = arena.data() + p.offset + p.window;
        else if (!external[p.root].empty()) m.at[v] = external[p.root].data() + p.window;
    }
    // Who each node waits for: the producers of its inputs (its stream's order is its thread's).
    std::vector<std::size_t> producer(g.value_count(), N);
    std::vector<std::vector<std::size_t>> waits(N);
    for (std::size_t n = 0; n < N; ++n) {
        for (orm::ValueId v : g.node_inputs(n))
            if (producer[v] < n) waits[n].push_back(producer[v]);
        for (orm::ValueId v : g.node_outputs(n))
            if (producer[v] == N) producer[v] = n;
    }
    // A done flag per node, set with release and read with acquire: the only
    // synchronisation between streams, so a thread sanitizer sees exactly
    // the order the plan may rely on (one mutex for all would order more).
    std::vector<std::atomic<std::uint8_t>> done(N);
    std::vector<std::uint64_t> digests(N, 0);
    std::vector<std::thread> threads;
    for (std::size_t s = 0; s < K; ++s)
        threads.emplace_back([&, s] {
            std::mt19937_64 rng(seed * 1000003 + s);
            const auto delay = [&] {  // yielding, not sleeping: a sanitizer takes a sleep for an order
                const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(rng() % (args.delay_us + 1));
                while (std::chrono::steady_clock::now() < until) std::this_thread::yield();
            };
            for (std::size_t n = 0; n < N; ++n) {
                if (streams.stream_of[n] != s) continue;
                for (std::size_t p : waits[n])  // spinning: a wait/notify would take a lock the sanitizer sees
                    while (done[p].load(std::memory_order_acquire) == 0) std::this_thread::yield();
                delay();
                digests[n] = run_node(g, model.views, n, m, delay);
                done[n].store(1, std::memory_order_release);
            }
        });
    for (auto& t : threads) t.join();
    std::size_t wrong = 0;
    for (std::size_t n = 0; n < N; ++n) wrong += digests[n] != model.digests[n];
    for (std::size_t k = 0; k < g.graph_outputs().size(); ++k) {
        const orm::ValueId v = g.graph_outputs()[k];
        wrong += std::memcmp(m.at[v], model.outputs[k].data(), m.bytes[v]) != 0;
    }
    return wrong;
}

std::optional<Args> parse(int argc, char** argv) {
    Args a;
    for (int i = 1; i < argc; ++i) {
        const std::string s = argv[i];
        const auto number = [&](std::size_t& out) {
            if (i + 1 >= argc) return false;
            char* end = nullptr;
            out = std::strtoull(argv[++i], &end, 10);
            return end != nullptr && *end == '\0';
        };
        if (s == "--streams") {
            if (!number(a.streams) || a.streams == 0 || a.streams > orm::Streams::max_streams) return std::nullopt;
        } else if (s == "--runs") {
            if (!number(a.runs)) return std::nullopt;
        } else if (s == "--scale") {
            if (!number(a.scale) || a.scale == 0) return std::nullopt;
        } else if (s == "--delay-us") {
            if (!number(a.delay_us)) return std::nullopt;
        } else if (s == "--sequential") {
            a.sequential = true;
        } else if (s == "--inplace") {
            a.inplace = true;
        } else {
            a.files.push_back(s);
        }
    }
    if (a.files.empty()) return std::nullopt;
    return a;
}

}  // namespace

int main(int argc, char** argv) {
    const auto args = parse(argc, argv);
    if (!args) {
        std::fprintf(stderr, "usage: stream_executor [--streams K] [--runs R] [--scale S] [--delay-us D] [--sequential] "
                             "[--inplace] FILE...\n");
        return 2;
    }
    int failures = 0;
    for (const std::string& file : args->files) {
        auto read = ir::read_graph_file(file);
        if (!read) return std::fprintf(stderr, "%s: %s\n", file.c_str(), read.error().describe().c_str()), 2;
        Model model{file, std::move(*read), {}, {}, {}, {}, {}};
        model.views = ir::views_from_ops(model.g);
        const auto full = orm::static_size_oracle(model.g);
        const std::size_t scale = args->scale;
        const auto oracle = [&](orm::ValueId v) -> std::optional<std::size_t> {
            if (const auto b = full(v)) return (*b + scale - 1) / scale;
            return std::nullopt;
        };
        const auto live = orm::compute_liveness(model.g, model.views);
        if (!live) return std::fprintf(stderr, "%s: %s\n", file.c_str(), live.error().message().c_str()), 2;
        model.bytes.assign(model.g.value_count(), 0);
        for (orm::ValueId v = 0; v < model.g.value_count(); ++v) model.bytes[v] = oracle(v).value_or(0);
        const orm::Streams streams = orm::streams_by_list_scheduling(model.g, args->streams);
        orm::PlanOptions options;
        for (std::size_t n = 0; args->inplace && n < model.g.node_count(); ++n)
            if (!model.g.node_inputs(n).empty() && !model.g.node_outputs(n).empty())
                options.inplace.push_back({model.g.node_outputs(n)[0], model.g.node_inputs(n)[0]});
        auto planned = args->sequential ? orm::plan_arena(model.g, model.views, oracle, options)
                                        : orm::plan_arena_concurrent(model.g, model.views, oracle, streams, options);
        if (!planned) return std::fprintf(stderr, "%s: cannot plan: %s\n", file.c_str(), planned.error().message().c_str()), 2;
        if (!planned->is_complete()) {
            std::printf("%s: skipped, sizes known only at run time\n", file.c_str());
            continue;
        }
        const auto& plan = planned->plan();
        const auto valid = orm::validate_arena_concurrent(model.g, model.views, plan, oracle, streams, plan.alignment, options);
        if (valid && args->sequential) {
            std::printf("%s: skipped, the sequential plan happens to be safe on %zu streams\n", file.c_str(), args->streams);
            continue;
        }
        if (!valid && !args->sequential)
            return std::fprintf(stderr, "%s: invalid plan: %s\n", file.c_str(), valid.error().message().c_str()), 1;
        const auto table = args->sequential ? orm::placements(model.g, model.views, plan, oracle, options)
                                            : orm::placements(model.g, model.views, plan, oracle, streams, options);
        std::string folds;  // how many hints the plan took
        if (args->inplace) {
            const auto explained = args->sequential ? orm::explain_inplace(model.g, model.views, options)
                                                    : orm::explain_inplace_on_streams(model.g, model.views, streams, options);
            if (!explained) return std::fprintf(stderr, "%s: %s\n", file.c_str(), explained.error().message().c_str()), 2;
            folds = ", " + std::to_string(std::count(explained->begin(), explained->end(), orm::InplaceResult::taken)) +
                    " of " + std::to_string(options.inplace.size()) + " in-place hints taken";
        }
        if (!table) return std::fprintf(stderr, "%s: %s\n", file.c_str(), table.error().message().c_str()), 2;
        reference(model, *live);
        std::size_t clobbered_runs = 0, first_caught = 0;
        for (std::size_t r = 0; r < args->runs; ++r) {
            if (run_on_streams(model, *table, plan.arena_bytes, streams, args->streams, *args, r) == 0) continue;
            if (clobbered_runs++ == 0) first_caught = r + 1;
            if (args->sequential) break;
        }
        if (args->sequential) {
            std::printf("%s on %zu streams, the sequential plan (%zu bytes): %s\n", file.c_str(), args->streams,
                        plan.arena_bytes, clobbered_runs > 0 ? ("caught clobbering in run " + std::to_string(first_caught)).c_str()
                                                             : "never caught");
            failures += clobbered_runs == 0;
        } else {
            std::printf("%s on %zu streams (arena %zu bytes, sizes / %zu%s): %zu runs, %s\n", file.c_str(), args->streams,
                        plan.arena_bytes, scale, folds.c_str(), args->runs,
                        clobbered_runs == 0 ? "every node's inputs and every output bit for bit as one buffer per tensor"
                                            : (std::to_string(clobbered_runs) + " RUNS DIFFER").c_str());
            failures += clobbered_runs != 0;
        }
    }
    return failures == 0 ? 0 : 1;
}
