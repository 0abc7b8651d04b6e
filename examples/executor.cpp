// An executor serving one model through a PlannedModel: created once, then
// per request (a new batch size) re-planned with the request's sizes and
// scratch, every value bound from the placement table. The model has what
// real ones have: a data-dependent NonZero -> Gather (left to run time), a
// Softmax whose scratch grows with the batch, Relu and Mul written in place,
// the output outside the arena, and the input pinned where the caller writes
// it. Each request runs out of the arena (NaN-filled first, so a read of
// unwritten or clobbered bytes shows) and again with one buffer per tensor;
// the outputs must match bit for bit, and plan() must allocate nothing after
// the first request.
#include <onnx_runtime_memory/onnx_runtime_memory.hpp>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>
#include <vector>

#include "heap_accounting.hpp"

namespace orm = onnx_runtime_memory;

namespace {

// The graph adapter. x[b,16] -> MatMul(w[16,32]) -> h -> Relu -> r -> NonZero -> nz[k] ->
// Gather(r, nz) -> g[k] -> ReduceSum -> s[1] -> Mul(r, s) -> m -> Softmax -> y[b,32] (output).
enum Op { matmul, relu, nonzero, gather, reduce_sum, mul, softmax };
struct Model {
    enum : unsigned { x, w, h, r, nz, g, s, m, y, count };
    struct Node {
        Op op;
        std::vector<unsigned> in, out;
    };
    std::vector<Node> nodes{{matmul, {x, w}, {h}},  {relu, {h}, {r}}, {nonzero, {r}, {nz}}, {gather, {r, nz}, {g}},
                            {reduce_sum, {g}, {s}}, {mul, {r, s}, {m}}, {softmax, {m}, {y}}};
    std::vector<unsigned> inputs{x}, outputs{y};
    std::size_t value_count() const { return count; }
    std::size_t node_count() const { return nodes.size(); }
    const std::vector<unsigned>& node_inputs(std::size_t n) const { return nodes[n].in; }
    const std::vector<unsigned>& node_outputs(std::size_t n) const { return nodes[n].out; }
    const std::vector<unsigned>& graph_inputs() const { return inputs; }
    const std::vector<unsigned>& graph_outputs() const { return outputs; }
    bool is_initializer(orm::ValueId v) const { return v == w; }
    // Floats in v at batch b: nz and g are known only as the graph runs.
    static std::optional<std::size_t> floats(orm::ValueId v, std::size_t b) {
        if (v == nz || v == g) return std::nullopt;
        return v == w ? 16 * 32 : v == s ? 1 : b * (v == x ? 16 : 32);
    }
    static std::optional<std::size_t> bytes(orm::ValueId v, std::size_t b) {
        if (auto n = floats(v, b)) return *n * sizeof(float);
        return std::nullopt;
    }
};

// The kernels, on raw memory: at(v) is where v lives; make(v, n) gives a
// value of size known only now (NonZero's count) its n floats.
template <class At, class Make>
void run(const Model& model, std::size_t b, At&& at, Make&& make, float* scratch) {
    std::size_t found = 0;  // NonZero's count
    for (const auto& node : model.nodes) {
        const float* in = at(node.in[0]);
        switch (node.op) {
            case matmul:
                for (std::size_t i = 0; i < b * 32; ++i) {
                    float acc = 0.0f;
                    for (std::size_t k = 0; k < 16; ++k) acc += in[i / 32 * 16 + k] * at(Model::w)[k * 32 + i % 32];
                    at(Model::h)[i] = acc;
                }
                break;
            case relu:  // element i read before written: safe in place
                for (std::size_t i = 0; i < b * 32; ++i) at(Model::r)[i] = std::fmax(in[i] - 0.25f, 0.0f);
                break;
            case nonzero: {
                found = 0;
                for (std::size_t i = 0; i < b * 32; ++i) found += in[i] > 0.0f;
                float* out = make(Model::nz, found);
                for (std::size_t i = 0, j = 0; i < b * 32; ++i)
                    if (in[i] > 0.0f) out[j++] = static_cast<float>(i);
                break;
            }
            case gather: {
                float* out = make(Model::g, found);
                for (std::size_t j = 0; j < found; ++j) out[j] = in[static_cast<std::size_t>(at(Model::nz)[j])];
                break;
            }
            case reduce_sum: {
                float sum = 1.0f;
                for (std::size_t j = 0; j < found; ++j) sum += in[j];
                at(Model::s)[0] = 1.0f / sum;
                break;
            }
            case mul:  // in place too
                for (std::size_t i = 0; i < b * 32; ++i) at(Model::m)[i] = in[i] * at(Model::s)[0];
                break;
            case softmax: {  // the scratch holds every row's exponentials: b x 32 floats
                for (std::size_t i = 0; i < b * 32; ++i) scratch[i] = std::exp(in[i]);
                for (std::size_t row = 0; row < b; ++row) {
                    float sum = 0.0f;
                    for (std::size_t j = 0; j < 32; ++j) sum += scratch[row * 32 + j];
                    for (std::size_t j = 0; j < 32; ++j) at(Model::y)[row * 32 + j] = scratch[row * 32 + j] / sum;
                }
                break;
            }
        }
    }
}

// One buffer per tensor: the reference output.
std::vector<float> reference(const Model& model, std::size_t b, const std::vector<float>& input,
                             const std::vector<float>& weights) {
    std::vector<std::vector<float>> own(Model::count);
    for (unsigned v = 0; v < Model::count; ++v) own[v].resize(Model::floats(v, b).value_or(0));
    own[Model::x] = input;
    own[Model::w] = weights;
    std::vector<float> scratch(b * 32);
    const auto make = [&](unsigned v, std::size_t n) {
        own[v].resize(n);
        return own[v].data();
    };
    run(model, b, [&](unsigned v) { return own[v].data(); }, make, scratch.data());
    return own[Model::y];
}

// The caller's data: the weights and each request's input.
std::vector<float> weights() {
    std::vector<float> w(16 * 32);
    for (std::size_t k = 0; k < w.size(); ++k) w[k] = static_cast<float>((k * 7) % 13) / 13.0f - 0.4f;
    return w;
}
std::vector<float> input(std::size_t b) {
    std::vector<float> x(b * 16);
    for (std::size_t k = 0; k < x.size(); ++k) x[k] = static_cast<float>((k * 3 + b) % 17) / 17.0f;
    return x;
}

}  // namespace

int main() {
    const Model model;
    std::vector<float> w = weights();
    const std::vector<std::size_t> batches = {1, 4, 16, 2, 16};
    int failures = 0;

    // The executor's glue, all of it (quoted in the README):
    orm::PlanOptions options;
    options.unknown_sizes = orm::UnknownSizes::dynamic;  // NonZero's count: known only as the graph runs
    options.outputs = orm::OutputPlacement::external;     // y outlives the request
    options.include_graph_inputs = true;
    options.pinned = {{Model::x, 0}};                     // the caller writes each input at offset 0
    options.inplace = {{Model::r, Model::h}, {Model::m, Model::r}};  // Relu over h, Mul over r
    auto planned = orm::PlannedModel::create(model, {}, options, {.alignment = 64});
    if (!planned) return std::printf("cannot plan: %s\n", planned.error().message().c_str()), 1;
    std::vector<float> arena, output;
    std::vector<std::vector<float>> dynamic(Model::count);  // values sized as the graph runs
    for (std::size_t b : batches) {
        const auto bytes = [b](orm::ValueId v) { return Model::bytes(v, b); };
        const std::vector<std::size_t> scratch = {0, 0, 0, 0, 0, 0, b * 32 * sizeof(float)};  // Softmax's, by node id
        if (!planned->plan(bytes, scratch) || !planned->validate(model, bytes)) return 1;
        arena.assign(planned->arena().arena_bytes / sizeof(float), std::numeric_limits<float>::quiet_NaN());
        output.assign(b * 32, 0.0f);
        const auto at = [&](unsigned v) -> float* {
            const orm::ValuePlacement& p = planned->placements()[v];
            if (p.kind == orm::ValueKind::graph_output) return output.data();
            if (p.kind == orm::ValueKind::initializer) return w.data();
            if (p.kind == orm::ValueKind::dynamic) return dynamic[v].data();
            return arena.data() + (p.offset + p.window) / sizeof(float);  // owners, views, in place, the input
        };
        const auto make = [&](unsigned v, std::size_t n) {
            if (planned->placements()[v].kind == orm::ValueKind::dynamic) dynamic[v].resize(n);
            return at(v);
        };
        std::memcpy(at(Model::x), input(b).data(), b * 16 * sizeof(float));  // the pinned input
        run(model, b, at, make, arena.data() + planned->scratch()[0].offset / sizeof(float));
        // End of the glue.

        const bool same = std::memcmp(output.data(), reference(model, b, input(b), w).data(), b * 32 * sizeof(float)) == 0;
        std::printf("batch %2zu: arena %5zu bytes (one buffer each: %5zu), %zu dynamic, scratch %4zu bytes: %s\n", b,
                    planned->arena().arena_bytes, (b * 16 + b * 32 * 3 + 1) * sizeof(float),
                    planned->arena().dynamic_values.size(), planned->scratch()[0].bytes,
                    same ? "output matches bit for bit" : "OUTPUT DIFFERS");
        failures += same ? 0 : 1;
    }
    // Every request again, counting the heap's allocations inside plan().
    std::size_t allocations = 0;
    for (std::size_t b : batches) {
        const std::vector<std::size_t> scratch = {0, 0, 0, 0, 0, 0, b * 32 * sizeof(float)};
        const std::size_t before = heap_allocations;
        if (!planned->plan([b](orm::ValueId v) { return Model::bytes(v, b); }, scratch)) return 1;
        allocations += heap_allocations - before;
    }
    std::printf("allocations in plan() once the first request has run: %zu\n", allocations);
    return failures == 0 && allocations == 0 ? 0 : 1;
}
