// A kept PlannedModel allocates nothing after its first request, with the
// default ArenaOptions (every strategy the budget lets run), on several
// graph shapes, with in-place hints, scratch per request and sizes left to
// run time, and on several streams (create_on_streams), with in-place
// hints and a pin too. A program of its
// own: it counts every operator new.
#include <onnx_runtime_memory/onnx_runtime_memory.hpp>

#include <cstdio>
#include <cstdlib>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "synthetic.hpp"

namespace {
std::size_t allocations = 0;
}  // namespace

// g++ 12 at -O2 sees std::free in the replaced delete inlined after the
// replaced new and calls them mismatched (-Wmismatched-new-delete): both are
// malloc's, so the warning is false here.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
void* operator new(std::size_t n) {
    ++allocations;
    if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
    std::abort();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace orm = onnx_runtime_memory;

namespace {

int failures = 0;

// Requests at batches 1 .. 6 (each size times the batch, node n's scratch
// 64 * batch * (n % 3)); `unknown` (if any) has no size, for
// UnknownSizes::dynamic. On `streams` > 1 streams (by list scheduling) the
// model is create_on_streams'; `scratch` false: no scratch. Every request
// after the first must allocate nothing.
void check(const std::string& name, const synthetic::Synthetic& s, const orm::PlanOptions& options,
           orm::ValueId unknown = orm::no_value, std::size_t streams = 1, bool scratch_too = true) {
    auto model = streams > 1 ? orm::PlannedModel::create_on_streams(
                                   s.graph, s.views, orm::streams_by_list_scheduling(s.graph, streams), options)
                             : orm::PlannedModel::create(s.graph, s.views, options);
    if (!model) {
        std::printf("FAIL %s: create: %s\n", name.c_str(), model.error().message().c_str());
        ++failures;
        return;
    }
    std::vector<std::size_t> scratch(s.graph.node_count());
    for (std::size_t batch = 1; batch <= 6; ++batch) {
        for (std::size_t n = 0; n < scratch.size(); ++n) scratch[n] = scratch_too ? 64 * batch * (n % 3) : 0;
        const auto oracle = [&](orm::ValueId v) -> std::optional<std::size_t> {
            if (v == unknown) return std::nullopt;
            return s.sizes[v] * batch;
        };
        const std::size_t before = allocations;
        const auto outcome = model->plan(oracle, scratch);
        const std::size_t made = allocations - before;
        if (!outcome) {
            std::printf("FAIL %s: request %zu: %s\n", name.c_str(), batch, outcome.error().message().c_str());
            ++failures;
            return;
        }
        if (batch > 1 && made != 0) {
            std::printf("FAIL %s: request %zu made %zu allocations\n", name.c_str(), batch, made);
            ++failures;
            return;
        }
    }
    if (auto ok = model->validate(s.graph, [&](orm::ValueId v) -> std::optional<std::size_t> {
            if (v == unknown) return std::nullopt;
            return s.sizes[v] * 6;
        });
        !ok) {
        std::printf("FAIL %s: the last plan does not validate: %s\n", name.c_str(), ok.error().message().c_str());
        ++failures;
        return;
    }
    std::printf("ok   %s: %zu owners, arena %zu bytes (bound %zu), no allocation after the first request\n",
                name.c_str(), model->liveness().owners.size(), model->arena().arena_bytes, model->lower_bound_bytes());
}

// Hints on each single-input node whose input has one reader: the planner
// takes the safe ones.
orm::PlanOptions with_inplace(const synthetic::Synthetic& s) {
    orm::PlanOptions options;
    std::vector<std::size_t> readers(s.graph.value_count());
    for (std::size_t n = 0; n < s.graph.node_count(); ++n)
        for (const auto v : s.graph.node_inputs(n)) ++readers[v];
    for (std::size_t n = 0; n < s.graph.node_count(); ++n) {
        const auto in = s.graph.node_inputs(n);
        const auto out = s.graph.node_outputs(n);
        if (in.size() == 1 && out.size() == 1 && readers[in[0]] == 1) options.inplace.push_back({out[0], in[0]});
    }
    return options;
}

}  // namespace

int main() {
    for (std::uint64_t seed : {1u, 7u}) {
        const std::string at = " (seed " + std::to_string(seed) + ")";
        check("residual chain 2k" + at, synthetic::residual_chain(2000, seed), {});
        check("random DAG 2k" + at, synthetic::random_dag(2000, seed), {});
        check("random DAG 20k" + at, synthetic::random_dag(20000, seed), {});
        check("long-lived 5k" + at, synthetic::long_lived(5000, seed), {});
        check("chain with skips 5k" + at, synthetic::chain_with_skips(5000, seed), {});
        const auto chain = synthetic::residual_chain(2000, seed);
        check("residual chain 2k, in place" + at, chain, with_inplace(chain));
        orm::PlanOptions dynamic;
        dynamic.unknown_sizes = orm::UnknownSizes::dynamic;
        check("residual chain 2k, one size at run time" + at, chain, dynamic,
              chain.graph.node_outputs(chain.graph.node_count() / 2)[0]);
        // On streams: the windows' plan, and where it is above the bound the antichains; on RandWire 1k the exact
        // placement too (with scratch, the owners and the scratch apart; without, all items together).
        check("residual chain 2k on 2 streams" + at, chain, {}, orm::no_value, 2);
        check("residual chain 2k on 2 streams, in place" + at, chain, with_inplace(chain), orm::no_value, 2);
        check("random DAG 2k on 4 streams" + at, synthetic::random_dag(2000, seed), {}, orm::no_value, 4);
        const auto randwire = synthetic::randwire(4, 250, 4, 0.75, seed);
        check("RandWire 4x250 on 8 streams" + at, randwire, {}, orm::no_value, 8);
        check("RandWire 4x250 on 8 streams, no scratch" + at, randwire, {}, orm::no_value, 8, false);
        orm::PlanOptions pinned;  // the output where the executor binds it, at 64 MiB: the rest packed around it
        pinned.pinned = {{randwire.graph.outputs.back(), std::size_t{1} << 26}};
        check("RandWire 4x250 on 8 streams, its output pinned" + at, randwire, pinned, orm::no_value, 8);
        // Where every item's window pairs pass the budget: the top of the windows' plan placed again by conflicts.
        check("RandWire 4x1250 on 8 streams, no scratch" + at, synthetic::randwire(4, 1250, 4, 0.75, seed), {},
              orm::no_value, 8, false);
        check("residual chain 2k on 2 streams, one size at run time" + at, chain, dynamic,
              chain.graph.node_outputs(chain.graph.node_count() / 2)[0], 2);
    }
    return failures == 0 ? 0 : 1;
}
