// An executor that runs a U-Net from a device half the size its arena needs.
// Every skip of the U-Net is live from its level on the way down to the
// mirror level on the way up, so the arena's lower bound is many times what
// one node reads and writes. plan_arena_spill plans a device of half that
// bound: each node finds its operands in the device; a skip waits in the host
// while the levels below it run, copied out after one node and back in before
// another (memcpy here; a second stream on a GPU). The device is a buffer of
// its own, NaN-filled before each request (as is the host), so a read of
// bytes not yet written, or clobbered while a value was out, shows; each
// request's output must match one buffer per tensor bit for bit.
#include <onnx_runtime_memory/onnx_runtime_memory.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>
#include <vector>

namespace orm = onnx_runtime_memory;

namespace {

// x -> (Conv -> skip_l, Relu -> down_l) for each level l down, then for each
// level l up: Conv -> up_l, Add(up_l, skip_l) -> y_l; y_0 is the output.
// Level l's values hold width(l) floats.
struct UNet {
    enum Op { conv, relu, add };
    struct Node {
        Op op;
        std::vector<unsigned> in, out;
    };
    static constexpr unsigned levels = 8;
    std::vector<Node> nodes;
    std::vector<std::size_t> floats;  // by value
    std::vector<unsigned> inputs{0}, outputs;

    UNet() {
        floats.push_back(width(0));  // x
        std::vector<unsigned> skip(levels);
        unsigned x = 0;
        for (unsigned l = 0; l < levels; ++l) {
            skip[l] = value(width(l));
            const unsigned down = value(width(l));
            nodes.push_back({conv, {x}, {skip[l]}});
            nodes.push_back({relu, {skip[l]}, {down}});
            x = down;
        }
        for (unsigned l = levels; l-- > 0;) {
            const unsigned up = value(width(l)), y = value(width(l));
            nodes.push_back({conv, {x}, {up}});
            nodes.push_back({add, {up, skip[l]}, {y}});
            x = y;
        }
        outputs.push_back(x);
    }
    static std::size_t width(unsigned level) { return 4096 + 512 * level; }
    unsigned value(std::size_t n) {
        floats.push_back(n);
        return static_cast<unsigned>(floats.size() - 1);
    }

    std::size_t value_count() const { return floats.size(); }
    std::size_t node_count() const { return nodes.size(); }
    const std::vector<unsigned>& node_inputs(std::size_t n) const { return nodes[n].in; }
    const std::vector<unsigned>& node_outputs(std::size_t n) const { return nodes[n].out; }
    const std::vector<unsigned>& graph_inputs() const { return inputs; }
    const std::vector<unsigned>& graph_outputs() const { return outputs; }
    bool is_initializer(orm::ValueId) const { return false; }
};

// Node n's kernel; at(v) is where value v lives while n runs.
template <class At>
void run_node(const UNet& model, std::size_t n, At&& at) {
    const auto& node = model.nodes[n];
    const float* a = at(node.in[0]);
    float* out = at(node.out[0]);
    const std::size_t na = model.floats[node.in[0]], m = model.floats[node.out[0]];
    switch (node.op) {
        case UNet::conv:
            for (std::size_t i = 0; i < m; ++i)
                out[i] = 0.75f * a[i % na] + 0.125f * a[(i * 7 + 3) % na] + 0.001f * static_cast<float>(n);
            break;
        case UNet::relu:
            for (std::size_t i = 0; i < m; ++i) out[i] = std::fmax(a[i] - 0.1f, 0.0f);
            break;
        case UNet::add: {
            const float* b = at(node.in[1]);
            for (std::size_t i = 0; i < m; ++i) out[i] = a[i] + b[i];
            break;
        }
    }
}

}  // namespace

int main() {
    const UNet model;
    const auto oracle = [&](orm::ValueId v) { return std::optional<std::size_t>(model.floats[v] * sizeof(float)); };
    const orm::ViewMap views;

    // The device: half the arena's lower bound, above every node's floor.
    const auto arena = orm::plan_arena(model, views, oracle);
    const auto floors = orm::node_floors(model, views, oracle);
    if (!arena || !floors) return 1;
    std::size_t floor = 0;
    for (const std::size_t f : *floors) floor = std::max(floor, f);
    orm::SpillOptions options;
    options.fast = {"device", arena->plan().proven_bound_bytes / 2, 256};
    const auto planned = orm::plan_arena_spill(model, views, oracle, {}, options);
    if (!planned || !planned->is_complete()) {
        std::printf("cannot plan: %s\n", planned ? "deferred" : planned.error().message().c_str());
        return 1;
    }
    const orm::SpilledArenaPlan& plan = planned->plan();
    if (auto ok = orm::validate_arena_spill(model, views, plan, oracle, {}, options); !ok) {
        std::printf("invalid plan: %s\n", ok.error().message().c_str());
        return 1;
    }
    const orm::SpillPlan& spill = plan.spill;
    std::printf("arena %zu bytes (lower bound %zu), node floor %zu: a device of %zu bytes uses %zu, the host %zu\n",
                arena->plan().arena_bytes, arena->plan().proven_bound_bytes, floor, options.fast.capacity,
                spill.fast_bytes, spill.slow_bytes);
    std::printf("%zu copies move %zu bytes (lower bound %zu), %zu values move\n", spill.transfers.size(),
                spill.transfer_bytes, spill.transfer_lower_bound_bytes, spill.spilled_buffers);

    // Where a value's record is at position p: its segment holding p (in the device while p runs).
    const auto segment_at = [&](orm::ValueId v, std::size_t p) -> const orm::Segment& {
        const std::uint32_t r = plan.record[v];
        std::size_t k = spill.segment_begin[r];
        while (spill.segments[k].last < p) ++k;
        return spill.segments[k];
    };

    std::vector<float> device(spill.fast_bytes / sizeof(float) + 1), host(spill.slow_bytes / sizeof(float) + 1);
    auto* device_bytes = reinterpret_cast<unsigned char*>(device.data());
    auto* host_bytes = reinterpret_cast<unsigned char*>(host.data());
    int failures = 0;
    for (int request = 0; request < 3; ++request) {
        std::vector<float> input(model.floats[0]);
        for (std::size_t i = 0; i < input.size(); ++i)
            input[i] = std::sin(0.01f * static_cast<float>(i * static_cast<std::size_t>(request + 1)));
        std::fill(device.begin(), device.end(), std::numeric_limits<float>::quiet_NaN());
        std::fill(host.begin(), host.end(), std::numeric_limits<float>::quiet_NaN());

        // Planned: the node's ins, the node, its outs.
        std::size_t next = 0;
        for (std::size_t p = 0; p < model.node_count(); ++p) {
            for (; next < spill.transfers.size() && spill.transfers[next].position <= p &&
                   !(spill.transfers[next].position == p && spill.transfers[next].direction == orm::Transfer::Direction::out);
                 ++next) {
                const auto& t = spill.transfers[next];
                std::memcpy(device_bytes + t.to_offset, host_bytes + t.from_offset, t.bytes);
            }
            run_node(model, p, [&](unsigned v) -> float* {
                if (v == 0) return input.data();  // the graph input, outside the arena
                return reinterpret_cast<float*>(device_bytes + segment_at(v, p).offset);
            });
            for (; next < spill.transfers.size() && spill.transfers[next].position == p; ++next) {
                const auto& t = spill.transfers[next];
                std::memcpy(host_bytes + t.to_offset, device_bytes + t.from_offset, t.bytes);
            }
        }
        const orm::Segment& last = segment_at(model.outputs[0], model.node_count() - 1);
        const auto* output = reinterpret_cast<const float*>((last.space == 0 ? device_bytes : host_bytes) + last.offset);

        // One buffer per tensor.
        std::vector<std::vector<float>> own(model.value_count());
        for (std::size_t v = 0; v < own.size(); ++v) own[v].resize(model.floats[v]);
        own[0] = input;
        for (std::size_t p = 0; p < model.node_count(); ++p)
            run_node(model, p, [&](unsigned v) { return own[v].data(); });

        const auto& want = own[model.outputs[0]];
        const bool same = std::memcmp(output, want.data(), want.size() * sizeof(float)) == 0;
        failures += !same;
        std::printf("request %d: output %s bit for bit (%s)\n", request, same ? "matches" : "DIFFERS",
                    last.space == 0 ? "read from the device" : "read from the host");
    }
    return failures == 0 ? 0 : 1;
}
