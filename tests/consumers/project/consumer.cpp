// A consumer's program: its own graph type, planned through the public API.
// Exit 0 when every figure is as the contract fixes it.
#include <onnx_runtime_memory/onnx_runtime_memory.hpp>

#include <cstdio>
#include <vector>

namespace orm = onnx_runtime_memory;

// x -> A -> a -> Reshape -> v -> B -> b -> C -> c (output); v is a view of a.
struct Net {
    std::vector<std::vector<int>> in{{0}, {1}, {2}, {3}}, out{{1}, {2}, {3}, {4}};
    std::vector<int> inputs{0}, outputs{4};

    std::size_t value_count() const { return 5; }
    std::size_t node_count() const { return in.size(); }
    const std::vector<int>& node_inputs(std::size_t n) const { return in[n]; }
    const std::vector<int>& node_outputs(std::size_t n) const { return out[n]; }
    const std::vector<int>& graph_inputs() const { return inputs; }
    const std::vector<int>& graph_outputs() const { return outputs; }
    bool is_initializer(orm::ValueId) const { return false; }
};

int main() {
    int failures = 0;
    const auto check = [&](bool ok, const char* what) {
        if (!ok) {
            std::fprintf(stderr, "consumer: FAILED: %s\n", what);
            ++failures;
        }
    };
    const Net net;
    orm::ViewMap views;
    views.insert(2, 1);
    const auto oracle = [](orm::ValueId) { return std::optional<std::size_t>(64); };
    auto status = orm::plan_activations(net, views, oracle);
    check(status.has_value() && status->is_complete(), "plans");
    if (!status || !status->is_complete()) return 1;
    const orm::ActivationPlan& plan = status->plan();
    // a [0,2] slot 0; b [2,3] slot 1 (a is pinned by v until B); c [3,3] reuses slot 0.
    check(plan.peak_bytes == 128, "peak_bytes == 128");
    check(plan.naive_bytes == 192, "naive_bytes == 192");
    check(plan.num_slots() == 2, "two slots");
    check(plan.slot_of(4) == plan.slot_of(1), "c reuses a's slot");
    check(!plan.slot_of(2).has_value(), "the view has no slot");
    check(orm::validate(net, views, plan, oracle).has_value(), "validates");

    Net broken = net;
    broken.in[0] = {3};  // A reads b before B makes it
    auto bad = orm::plan_activations(broken, views, oracle);
    check(!bad.has_value() && bad.error().kind == orm::PlanError::Kind::used_before_produced, "rejects a bad order");

    if (failures == 0) std::printf("consumer ok: peak %zu bytes in %zu slots\n", plan.peak_bytes, plan.num_slots());
    return failures == 0 ? 0 : 1;
}
