// A consumer of the opt-in fmt formatters, with <fmt/ranges.h> in the mix.
#include <onnx_runtime_memory/fmt.hpp>
#include <onnx_runtime_memory/onnx_runtime_memory.hpp>

#include <fmt/ranges.h>

#include <cstdio>
#include <string>
#include <vector>

namespace orm = onnx_runtime_memory;

struct Chain {  // x -> a -> b -> c (output)
    std::vector<std::vector<unsigned>> in{{0}, {1}, {2}}, out{{1}, {2}, {3}};
    std::vector<unsigned> inputs{0}, outputs{3};
    std::size_t value_count() const { return 4; }
    std::size_t node_count() const { return 3; }
    const std::vector<unsigned>& node_inputs(std::size_t n) const { return in[n]; }
    const std::vector<unsigned>& node_outputs(std::size_t n) const { return out[n]; }
    const std::vector<unsigned>& graph_inputs() const { return inputs; }
    const std::vector<unsigned>& graph_outputs() const { return outputs; }
    bool is_initializer(orm::ValueId) const { return false; }
};

int main() {
    const auto oracle = [](orm::ValueId) { return std::optional<std::size_t>(16); };
    auto status = orm::plan_activations(Chain{}, {}, oracle);
    if (!status) return 1;
    const auto& plan = status->plan();
    auto arena = orm::plan_arena(Chain{}, {}, oracle);
    if (!arena) return 1;
    const orm::Buffer buffers[] = {{16, 0, 1}, {16, 1, 2}, {16, 2, 2}};
    auto offsets = orm::plan_offsets(buffers);
    auto bounds = orm::lower_bounds(buffers, 64);
    if (!offsets || !bounds) return 1;
    orm::ActivationPlan one;
    one.slots.push_back(orm::SlotInfo{orm::SlotId{0}, 8});
    one.peak_bytes = one.naive_bytes = 8;
    const std::string expected[] = {
        "peak 32 bytes in 2 slots (one buffer each: 48 bytes, 33.3% saved)",
        "[slot 0: 16 bytes, slot 1: 16 bytes]",
        "complete: peak 32 bytes in 2 slots (one buffer each: 48 bytes, 33.3% saved)",
        "slot 1 / no slot / [0, 1]",
        "node 0 reads value 3 before any node produces it",
        "complete: arena 80 bytes, aligned to 64, by sweep",  // 64 + the top value's 16
        "arena 80 bytes (lower bound 80), aligned to 64, by sweep / 16 bytes live [0, 1]",
        "offsets >= 80 bytes, slots >= 32 bytes",
        "peak 8 bytes in 1 slot (one buffer each: 8 bytes, 0.0% saved)",
        "16 bytes live [0, 1], pinned at 64 / input_read_later",
        "greedy_by_distance / repacked_top",
    };
    const std::string got[] = {
        fmt::format("{}", plan),
        fmt::format("{}", plan.slots),
        fmt::format("{}", *status),
        fmt::format("{} / {} / {}", orm::SlotId{1}, orm::SlotId::none(), orm::Interval{0, 1}),
        fmt::format("{}", orm::PlanError{orm::PlanError::Kind::used_before_produced, 3, 0}),
        fmt::format("{}", *arena),
        fmt::format("{} / {}", *offsets, buffers[0]),
        fmt::format("{}", *bounds),
        fmt::format("{}", one),
        fmt::format("{} / {}", orm::Buffer{16, 0, 1, 64}, orm::InplaceResult::input_read_later),
        fmt::format("{} / {}", orm::SlotStrategy::greedy_by_distance, orm::ArenaStrategy::repacked_top),
    };
    int failures = 0;
    for (std::size_t k = 0; k < std::size(got); ++k) {
        if (got[k] != expected[k]) {
            std::fprintf(stderr, "fmt_consumer: got '%s', expected '%s'\n", got[k].c_str(), expected[k].c_str());
            ++failures;
        }
    }
    if (failures == 0) std::printf("fmt_consumer ok: %s\n", got[0].c_str());
    return failures == 0 ? 0 : 1;
}
