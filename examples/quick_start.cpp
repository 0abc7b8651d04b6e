// Plan the activation memory of a small graph of your own IR.
#include <onnx_runtime_memory/onnx_runtime_memory.hpp>

#include <cstdio>
#include <optional>
#include <vector>

namespace orm = onnx_runtime_memory;

// Your IR: values are dense ids, nodes listed in the order they run.
// x(0) -> Conv -> a(1) -> Relu -> b(2) -> Reshape -> v(3) -> Sigmoid -> c(4) -> Relu -> y(5)
struct MyGraph {
    std::vector<std::vector<unsigned>> inputs_of{{0}, {1}, {2}, {3}, {4}};
    std::vector<std::vector<unsigned>> outputs_of{{1}, {2}, {3}, {4}, {5}};
    std::size_t value_count() const { return 6; }
    std::size_t node_count() const { return inputs_of.size(); }
    const std::vector<unsigned>& node_inputs(std::size_t n) const { return inputs_of[n]; }
    const std::vector<unsigned>& node_outputs(std::size_t n) const { return outputs_of[n]; }
    std::vector<unsigned> graph_inputs() const { return {0}; }
    std::vector<unsigned> graph_outputs() const { return {5}; }
    bool is_initializer(orm::ValueId) const { return false; }
};

int main() {
    const MyGraph graph;
    orm::ViewMap views;
    views.insert(3, 2);  // v (a Reshape) aliases b's bytes: it gets no buffer of its own
    std::size_t batch = 1;
    const auto bytes_of = [&](orm::ValueId) -> std::optional<std::size_t> {
        return batch * 4096;  // nullopt would mean "not known yet"
    };

    // Slots: which values share one buffer.
    auto slots = orm::plan_activations(graph, views, bytes_of);
    if (!slots) {  // a PlanError names the culprit node or value
        std::printf("invalid graph: %s\n", slots.error().message().c_str());
        return 1;
    }
    if (slots->is_deferred()) return 2;  // some size unknown: plan again once shapes resolve
    const orm::ActivationPlan& plan = slots->plan();
    if (!orm::validate(graph, views, plan, bytes_of)) return 1;
    std::printf("slots: %zu bytes in %zu slots, %zu bytes with one buffer each\n", plan.peak_bytes,
                plan.num_slots(), plan.naive_bytes);

    // Offsets: where each value lives in one arena, aligned to 64 bytes.
    orm::ArenaOptions options;
    options.alignment = 64;
    auto arena = orm::plan_arena(graph, views, bytes_of, {}, options);
    if (!arena || !arena->is_complete()) return 1;
    if (!orm::validate_arena(graph, views, arena->plan(), bytes_of, options.alignment)) return 1;
    for (orm::ValueId v = 1; v < graph.value_count(); ++v)  // the view (3) sits at its root's (2) offset
        std::printf("value %u at offset %zu\n", v, *arena->plan().offset_of(v));
    std::printf("arena: %zu bytes\n", arena->plan().arena_bytes);

    // Every run with new sizes: keep a planner, re-plan without allocating.
    auto planner = orm::ActivationPlanner::create(graph, views);
    if (!planner) return 1;
    orm::ActivationPlan replanned;
    for (batch = 1; batch <= 4; batch *= 2)
        if (planner->plan(bytes_of, replanned))
            std::printf("batch %zu: %zu bytes\n", batch, replanned.peak_bytes);
}
