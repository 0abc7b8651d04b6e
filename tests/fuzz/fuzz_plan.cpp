// libFuzzer: reader + planner + validate. Whatever the input, planning
// returns a plan or an error value, and every plan returned validates, in
// the file's order and in a topological order, with static and bounded
// sizes: slot plans (every strategy, and re-planned by ActivationPlanner)
// and arena plans. A plan that fails validation aborts: that is the bug we
// hunt.
#include <onnx_runtime_memory/onnx_runtime_memory.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include "ir/graph_text.hpp"

namespace orm = onnx_runtime_memory;

namespace {

template <class G, class Oracle>
void plan_and_check(const G& g, const orm::ViewMap& views, const Oracle& oracle, const orm::PlanOptions& options) {
    auto status = orm::plan_activations(g, views, oracle, options);
    if (!status || status->is_deferred()) return;
    const auto& plan = status->plan();
    if (auto ok = orm::validate(g, views, plan, oracle, options); !ok) {
        std::fprintf(stderr, "INVALID PLAN: %s\n", ok.error().message().c_str());
        std::abort();
    }
    if (plan.peak_bytes > plan.naive_bytes) std::abort();
    auto again = orm::plan_activations(g, views, oracle, options);
    if (!again || !(again->plan() == plan)) std::abort();  // deterministic

    auto live = orm::compute_liveness(g, views, options);
    for (auto strategy : {orm::SlotStrategy::in_order_growth, orm::SlotStrategy::greedy_by_size}) {
        auto other = orm::plan_activations(*live, oracle, strategy);
        if (!other || !orm::validate(g, views, other->plan(), oracle, options)) std::abort();
    }
    auto planner = orm::ActivationPlanner::create(g, views, options);
    orm::ActivationPlan replanned;
    if (!planner || !planner->plan(oracle, replanned) || !(replanned == plan)) std::abort();

    orm::ArenaOptions arena_options;
    arena_options.alignment = 16;
    arena_options.search_iterations = 2;
    arena_options.exact_nodes = 300;
    auto arena = orm::plan_arena(*live, oracle, arena_options);
    if (!arena) return;  // rounding sizes up to the alignment may overflow: an error value, fine
    if (arena->is_complete()) {
        if (auto ok = orm::validate_arena(g, views, arena->plan(), oracle, arena_options.alignment, options); !ok) {
            std::fprintf(stderr, "INVALID ARENA: %s\n", ok.error().message().c_str());
            std::abort();
        }
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    auto g = ir::read_graph_text(std::string_view(reinterpret_cast<const char*>(data), size));
    if (!g) return 0;
    // Ops whose name starts with 'V' make views: output 0 of input 0. The
    // fuzzer may also chain them into cycles or views of anything.
    orm::ViewMap views;
    for (std::size_t n = 0; n < g->node_count(); ++n)
        if (g->op_type(n).starts_with("V") && !g->node_inputs(n).empty() && !g->node_outputs(n).empty())
            views.insert(g->node_outputs(n)[0], g->node_inputs(n)[0]);
    const orm::PlanOptions options{size % 2 == 1};
    const orm::SymbolBounds bounds{{"batch", 3}, {"n", 7}, {"s", 1u << 20}};

    plan_and_check(*g, views, orm::static_size_oracle(*g), options);
    plan_and_check(*g, views, orm::bounded_size_oracle(*g, bounds), options);
    if (auto ordered = orm::in_topological_order(*g)) {
        plan_and_check(*ordered, views, orm::static_size_oracle(*ordered), options);
        if (auto live = orm::compute_liveness(*ordered, views, options); live)
            if (!orm::validate_liveness(*ordered, views, *live)) std::abort();
    }
    return 0;
}
