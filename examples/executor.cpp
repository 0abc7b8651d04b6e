// A small executor that runs a model out of one planned arena, as an
// executor team would use the library: its own IR, real float kernels, a
// batch size that changes per request, a view (Reshape), a kernel that needs
// scratch (Softmax), the graph output outside the arena, and the offsets
// re-planned per request by an ArenaPlanner; then again with the elementwise
// kernels in place. Every request runs twice: out of the arena (filled with
// NaN first, so a read of unwritten or clobbered memory shows) and with one
// buffer per tensor; the outputs must match bit for bit.
#include <onnx_runtime_memory/onnx_runtime_memory.hpp>

#include <cmath>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>
#include <vector>

namespace orm = onnx_runtime_memory;

namespace {

enum class Op { matmul, relu, add, reshape, softmax };

struct Node {
    Op op;
    std::vector<unsigned> inputs, outputs;
};

// The model: x[b,16] -> MatMul(w1[16,32]) -> h1 -> Relu -> r1 -> MatMul(w2[32,32]) -> h2
// -> Add(h2, r1) -> s -> Reshape -> v[b*32] -> Softmax over rows of 32 (scratch: one row) -> y (output).
struct Model {
    enum : unsigned { x, w1, h1, r1, w2, h2, s, v, y, count };
    std::vector<Node> nodes{{Op::matmul, {x, w1}, {h1}}, {Op::relu, {h1}, {r1}},   {Op::matmul, {r1, w2}, {h2}},
                            {Op::add, {h2, r1}, {s}},    {Op::reshape, {s}, {v}}, {Op::softmax, {v}, {y}}};
    std::vector<unsigned> inputs{x}, outputs{y};

    // The activation_graph concept, from members.
    std::size_t value_count() const { return count; }
    std::size_t node_count() const { return nodes.size(); }
    const std::vector<unsigned>& node_inputs(std::size_t n) const { return nodes[n].inputs; }
    const std::vector<unsigned>& node_outputs(std::size_t n) const { return nodes[n].outputs; }
    const std::vector<unsigned>& graph_inputs() const { return inputs; }
    const std::vector<unsigned>& graph_outputs() const { return outputs; }
    bool is_initializer(orm::ValueId v) const { return v == w1 || v == w2; }

    // Floats in value v at this batch size (columns: 16 for x, 32 otherwise).
    static std::size_t floats(orm::ValueId v, std::size_t batch) {
        if (v == w1) return 16 * 32;
        if (v == w2) return 32 * 32;
        return batch * (v == x ? 16 : 32);
    }
};

// The kernels, on raw pointers: the same code runs on both memories.
void matmul(const float* a, const float* b, float* out, std::size_t rows, std::size_t inner, std::size_t cols) {
    for (std::size_t i = 0; i < rows; ++i)
        for (std::size_t j = 0; j < cols; ++j) {
            float acc = 0.0f;
            for (std::size_t k = 0; k < inner; ++k) acc += a[i * inner + k] * b[k * cols + j];
            out[i * cols + j] = acc;
        }
}
void softmax_rows(const float* in, float* out, float* row_scratch, std::size_t rows, std::size_t cols) {
    for (std::size_t i = 0; i < rows; ++i) {
        float top = in[i * cols];
        for (std::size_t j = 1; j < cols; ++j) top = std::fmax(top, in[i * cols + j]);
        float sum = 0.0f;
        for (std::size_t j = 0; j < cols; ++j) sum += row_scratch[j] = std::exp(in[i * cols + j] - top);
        for (std::size_t j = 0; j < cols; ++j) out[i * cols + j] = row_scratch[j] / sum;
    }
}

// Runs the model with value v at at(v) and node n's scratch at scratch(n).
template <class At, class Scratch>
void run(const Model& m, std::size_t batch, At&& at, Scratch&& scratch) {
    for (std::size_t n = 0; n < m.nodes.size(); ++n) {
        const Node& node = m.nodes[n];
        float* out = at(node.outputs[0]);
        switch (node.op) {
            case Op::matmul: {
                const std::size_t inner = node.inputs[1] == Model::w1 ? 16 : 32;
                matmul(at(node.inputs[0]), at(node.inputs[1]), out, batch, inner, 32);
                break;
            }
            case Op::relu:
                for (std::size_t k = 0; k < batch * 32; ++k) out[k] = std::fmax(at(node.inputs[0])[k], 0.0f);
                break;
            case Op::add:
                for (std::size_t k = 0; k < batch * 32; ++k) out[k] = at(node.inputs[0])[k] + at(node.inputs[1])[k];
                break;
            case Op::reshape: break;  // a view: the same bytes, nothing to do
            case Op::softmax: softmax_rows(at(node.inputs[0]), out, scratch(n), batch, 32); break;
        }
    }
}

// Runs every request of one configuration; returns the number of requests
// whose output differs from one buffer per tensor.
int serve(const Model& model, const orm::ViewMap& views, const orm::PlanOptions& options, const char* mode) {
    orm::ArenaOptions arena_options;
    arena_options.alignment = 64;
    auto planner = orm::ArenaPlanner::create(model, views, options, arena_options);
    if (!planner) {
        std::printf("cannot plan: %s\n", planner.error().message().c_str());
        return 1;
    }

    // Weights and the request's input: caller memory, outside the arena.
    std::vector<float> w1(16 * 32), w2(32 * 32);
    for (std::size_t k = 0; k < w1.size(); ++k) w1[k] = static_cast<float>((k * 7) % 13) / 13.0f - 0.4f;
    for (std::size_t k = 0; k < w2.size(); ++k) w2[k] = static_cast<float>((k * 5) % 11) / 11.0f - 0.5f;

    orm::ArenaPlan plan;
    int failures = 0;
    for (std::size_t batch : {1u, 3u, 8u, 2u}) {
        const auto bytes = [&](orm::ValueId v) -> std::optional<std::size_t> {
            return Model::floats(v, batch) * sizeof(float);
        };
        std::vector<float> input(Model::floats(Model::x, batch));
        for (std::size_t k = 0; k < input.size(); ++k) input[k] = static_cast<float>((k * 3 + batch) % 17) / 17.0f;

        // Out of the arena, re-planned for this batch.
        if (!planner->plan(bytes, plan) || !orm::validate_arena(model, views, plan, bytes, 64, options)) return 1;
        auto table = orm::placements(model, views, plan, bytes, options);
        if (!table) return 1;
        std::vector<float> arena(plan.arena_bytes / sizeof(float) + 1, std::numeric_limits<float>::quiet_NaN());
        std::vector<float> output(Model::floats(Model::y, batch));  // allocated by the executor: outside
        const auto at = [&](unsigned v) -> float* {
            const orm::ValuePlacement& p = (*table)[v];
            switch (p.kind) {
                case orm::ValueKind::owner:
                case orm::ValueKind::view:
                case orm::ValueKind::inplace:
                    if (p.offset != orm::no_offset) return arena.data() + p.offset / sizeof(float);
                    break;
                case orm::ValueKind::graph_output: return output.data();
                case orm::ValueKind::graph_input: return input.data();
                case orm::ValueKind::initializer: return v == Model::w1 ? w1.data() : w2.data();
                default: break;
            }
            std::printf("value %u has no memory\n", v);
            std::abort();
        };
        if (!options.inplace.empty() && (at(Model::r1) != at(Model::h1) || at(Model::s) != at(Model::h2))) {
            std::printf("%s: the hints were not taken\n", mode);
            return 1;
        }
        run(model, batch, at, [&](std::size_t n) { return arena.data() + plan.scratch_offsets[n] / sizeof(float); });

        // One buffer per tensor: the reference.
        std::vector<std::vector<float>> own(Model::count);
        for (unsigned v = 0; v < Model::count; ++v) own[v].assign(Model::floats(v, batch), 0.0f);
        own[Model::x] = input;
        own[Model::w1] = w1;
        own[Model::w2] = w2;
        std::vector<float> ref_scratch(32);
        const auto ref_at = [&](unsigned v) { return own[v == Model::v ? Model::s : v].data(); };
        run(model, batch, ref_at, [&](std::size_t) { return ref_scratch.data(); });

        const bool same = std::memcmp(output.data(), own[Model::y].data(), output.size() * sizeof(float)) == 0;
        std::size_t naive = 0;  // the arena's contents, one buffer each
        for (unsigned v : {Model::h1, Model::r1, Model::h2, Model::s}) naive += Model::floats(v, batch) * sizeof(float);
        std::printf("%s batch %zu: arena %zu bytes (one buffer each: %zu, output outside), %s\n", mode, batch,
                    plan.arena_bytes, naive + 32 * sizeof(float), same ? "output matches bit for bit" : "OUTPUT DIFFERS");
        failures += same ? 0 : 1;
    }
    return failures;
}

}  // namespace

int main() {
    const Model model;
    orm::ViewMap views;
    views.insert(Model::v, Model::s);  // Reshape: v is s's bytes
    orm::PlanOptions options;
    options.outputs = orm::OutputPlacement::external;  // y survives the next request
    options.scratch_bytes = {0, 0, 0, 0, 0, 32 * sizeof(float)};  // Softmax: one row of workspace
    int failures = serve(model, views, options, "buffers");
    // In place: Relu writes r1 over h1, Add writes s over h2 (each input's
    // last reader); the elementwise kernels read element k before writing it.
    options.inplace = {{Model::r1, Model::h1}, {Model::s, Model::h2}};
    auto why = orm::explain_inplace(model, views, options);
    if (!why || (*why)[0] != orm::InplaceResult::taken || (*why)[1] != orm::InplaceResult::taken) return 1;
    failures += serve(model, views, options, "in place");
    return failures == 0 ? 0 : 1;
}
