// A decoder served token by token with its KV cache in one buffer per
// cache, as ONNX Runtime GenAI's past_present_share_buffer does: `past` (a
// graph input) and `present` (a graph output) share the executor's buffer,
// and each step appends one entry where the cache ends instead of copying
// it. One PlannedModel serves every step: move_part moves the appended
// entry's window, plan() takes the step's sizes. The model also has a
// Split whose outputs are windows of its input (q, k, v) and a Concat that
// copies nothing. Each step runs at the planned places (the arena
// NaN-filled first) and again with one buffer per tensor, copying the
// cache as a plain executor does; the outputs and caches must match bit for
// bit, the cache must never move (checked by pointer), and only the new
// value entry is copied.
#include <onnx_runtime_memory/onnx_runtime_memory.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>
#include <vector>

namespace orm = onnx_runtime_memory;

namespace {

constexpr std::size_t d = 8;         // floats per token
constexpr std::size_t max_len = 16;  // the cache's capacity, in tokens
constexpr std::size_t row = d * sizeof(float);

// x[1,d] -> MatMul(w[d,3d]) -> qkv -> Split -> q, k, v (windows of qkv);
// kr = Rope(k), written into present_k at row t; present_k = Concat(past_k, kr)
// (copies nothing); present_v = Concat(past_v, v) (copies v only);
// s = Scores(q, present_k)[t+1]; p = Softmax(s); c = Mix(p, present_v); y = Add(c, x).
enum Op { matmul, split, rope, concat, scores, softmax, mix, add };
struct Model {
    enum : unsigned { x, w, past_k, past_v, qkv, q, k, v, kr, present_k, present_v, s, p, c, y, count };
    struct Node {
        Op op;
        std::vector<unsigned> in, out;
    };
    std::vector<Node> nodes{{matmul, {x, w}, {qkv}},
                            {split, {qkv}, {q, k, v}},
                            {rope, {k}, {kr}},
                            {concat, {past_k, kr}, {present_k}},
                            {concat, {past_v, v}, {present_v}},
                            {scores, {q, present_k}, {s}},
                            {softmax, {s}, {p}},
                            {mix, {p, present_v}, {c}},
                            {add, {c, x}, {y}}};
    std::vector<unsigned> inputs{x, past_k, past_v}, outputs{present_k, present_v, y};
    std::size_t value_count() const { return count; }
    std::size_t node_count() const { return nodes.size(); }
    const std::vector<unsigned>& node_inputs(std::size_t n) const { return nodes[n].in; }
    const std::vector<unsigned>& node_outputs(std::size_t n) const { return nodes[n].out; }
    const std::vector<unsigned>& graph_inputs() const { return inputs; }
    const std::vector<unsigned>& graph_outputs() const { return outputs; }
    bool is_initializer(orm::ValueId id) const { return id == w; }
    // Floats in a value at step t (t tokens cached before it).
    static std::size_t floats(orm::ValueId id, std::size_t t) {
        switch (id) {
            case w: return d * 3 * d;
            case qkv: return 3 * d;
            case past_k:
            case past_v: return t * d;
            case present_k:
            case present_v: return (t + 1) * d;
            case s:
            case p: return t + 1;
            default: return d;
        }
    }
};

// The kernels, on raw memory: at(id) is where a value lives. A Concat
// copies each input to its place in the output unless it is there already
// (a part); `copied` counts the bytes the kernels move between buffers.
template <class At>
void run(const Model& model, std::size_t t, At&& at, const std::vector<orm::NodeIndex>& skip, std::size_t& copied) {
    for (std::size_t n = 0; n < model.nodes.size(); ++n) {
        if (std::find(skip.begin(), skip.end(), n) != skip.end()) continue;
        const auto& node = model.nodes[n];
        switch (node.op) {
            case matmul:
                for (std::size_t j = 0; j < 3 * d; ++j) {
                    float acc = 0.0f;
                    for (std::size_t i = 0; i < d; ++i) acc += at(Model::x)[i] * at(Model::w)[i * 3 * d + j];
                    at(Model::qkv)[j] = acc;
                }
                break;
            case split:  // q, k, v: thirds of qkv, wherever they live
                for (std::size_t part = 0; part < 3; ++part) {
                    float* out = at(node.out[part]);
                    if (out != at(Model::qkv) + part * d) {
                        std::memcpy(out, at(Model::qkv) + part * d, row);
                        copied += row;
                    }
                }
                break;
            case rope:
                for (std::size_t i = 0; i < d; ++i)
                    at(Model::kr)[i] = at(Model::k)[i] * std::cos(0.1f * static_cast<float>(t * (i + 1)));
                break;
            case concat: {
                std::size_t offset = 0;
                for (unsigned in : node.in) {
                    const std::size_t n_floats = Model::floats(in, t);
                    float* to = at(node.out[0]) + offset;
                    if (to != at(in) && n_floats > 0) {
                        std::memcpy(to, at(in), n_floats * sizeof(float));
                        copied += n_floats * sizeof(float);
                    }
                    offset += n_floats;
                }
                break;
            }
            case scores:
                for (std::size_t j = 0; j <= t; ++j) {
                    float acc = 0.0f;
                    for (std::size_t i = 0; i < d; ++i) acc += at(Model::q)[i] * at(Model::present_k)[j * d + i];
                    at(Model::s)[j] = acc / std::sqrt(static_cast<float>(d));
                }
                break;
            case softmax: {
                float top = -std::numeric_limits<float>::infinity(), sum = 0.0f;
                for (std::size_t j = 0; j <= t; ++j) top = std::fmax(top, at(Model::s)[j]);
                for (std::size_t j = 0; j <= t; ++j) sum += at(Model::p)[j] = std::exp(at(Model::s)[j] - top);
                for (std::size_t j = 0; j <= t; ++j) at(Model::p)[j] /= sum;
                break;
            }
            case mix:
                for (std::size_t i = 0; i < d; ++i) {
                    float acc = 0.0f;
                    for (std::size_t j = 0; j <= t; ++j) acc += at(Model::p)[j] * at(Model::present_v)[j * d + i];
                    at(Model::c)[i] = acc;
                }
                break;
            case add:
                for (std::size_t i = 0; i < d; ++i) at(Model::y)[i] = at(Model::c)[i] + at(Model::x)[i];
                break;
        }
    }
}

std::vector<float> weights() {
    std::vector<float> w(d * 3 * d);
    for (std::size_t k = 0; k < w.size(); ++k) w[k] = static_cast<float>((k * 7) % 13) / 13.0f - 0.4f;
    return w;
}
std::vector<float> token(std::size_t t) {
    std::vector<float> x(d);
    for (std::size_t k = 0; k < d; ++k) x[k] = static_cast<float>((k * 3 + t * 5) % 17) / 17.0f - 0.3f;
    return x;
}

}  // namespace

int main() {
    const Model model;
    std::vector<float> w = weights();
    int failures = 0;

    // The executor's glue (the cache part of it):
    orm::ViewMap views;
    views.insert(Model::q, Model::qkv, 0);  // the Split's outputs: windows of qkv
    views.insert(Model::k, Model::qkv, row);
    views.insert(Model::v, Model::qkv, 2 * row);
    views.insert_part(Model::past_k, Model::present_k, 0);  // past and present share the cache's buffer
    views.insert_part(Model::past_v, Model::present_v, 0);
    views.insert_part(Model::kr, Model::present_k, 0);  // Rope writes the new entry into the cache (moved per step)
    orm::PlanOptions options;
    options.outputs = orm::OutputPlacement::external;  // the caches and y are the executor's
    auto planned = orm::PlannedModel::create(model, views, options);
    if (!planned) return std::printf("cannot plan: %s\n", planned.error().message().c_str()), 1;
    std::vector<float> k_cache(max_len * d), v_cache(max_len * d), y(d), x, arena;
    const auto held = [&](orm::ValueId id) -> float* {  // the buffers the executor holds
        return id == Model::present_k ? k_cache.data() : id == Model::present_v ? v_cache.data() : y.data();
    };
    // One buffer per tensor, as an executor without the plan keeps them: the cache copied each step.
    std::vector<std::vector<float>> own(Model::count);
    own[Model::w] = w;
    for (std::size_t t = 0; t < max_len; ++t) {
        const auto bytes = [t](orm::ValueId id) -> std::optional<std::size_t> { return Model::floats(id, t) * sizeof(float); };
        if (!planned->move_part(Model::kr, t * row) || !planned->plan(bytes) || !planned->validate(model, bytes)) return 1;
        arena.assign(planned->arena().arena_bytes / sizeof(float), std::numeric_limits<float>::quiet_NaN());
        x = token(t);
        const auto& table = planned->placements();
        const auto at = [&](unsigned id) -> float* {
            const orm::ValuePlacement& p = table[id];
            const orm::ValueKind root = table[p.root].kind;
            float* base = root == orm::ValueKind::graph_output ? held(p.root)
                          : root == orm::ValueKind::initializer ? w.data()
                          : root == orm::ValueKind::graph_input ? x.data()
                                                                : arena.data() + p.offset / sizeof(float);
            return base + p.window / sizeof(float);
        };
        std::size_t copied = 0;
        run(model, t, at, planned->no_op_nodes(), copied);
        // End of the glue.

        const bool in_place = at(Model::past_k) == k_cache.data() && at(Model::present_k) == k_cache.data() &&
                              at(Model::kr) == k_cache.data() + t * d && at(Model::past_v) == v_cache.data() &&
                              at(Model::present_v) == v_cache.data() && at(Model::k) == at(Model::qkv) + d;
        for (unsigned id = 0; id < Model::count; ++id)
            if (id != Model::w && id != Model::past_k && id != Model::past_v) own[id].assign(Model::floats(id, t), 0.0f);
        own[Model::x] = x;
        std::size_t plain_copied = 0;
        run(model, t, [&](unsigned id) { return own[id].data(); }, {}, plain_copied);
        const bool same = std::memcmp(own[Model::y].data(), y.data(), row) == 0 &&
                          std::memcmp(own[Model::present_k].data(), k_cache.data(), (t + 1) * row) == 0 &&
                          std::memcmp(own[Model::present_v].data(), v_cache.data(), (t + 1) * row) == 0;
        std::printf("step %2zu: arena %3zu bytes, cache %3zu bytes, copied %2zu bytes (one buffer per tensor: %4zu), "
                    "Concats skipped: %zu; the cache in place: %s; output and cache %s\n",
                    t, planned->arena().arena_bytes, (t + 1) * row, copied, plain_copied, planned->no_op_nodes().size(),
                    in_place ? "yes" : "NO", same ? "match bit for bit" : "DIFFER");
        failures += same && in_place && copied == row ? 0 : 1;
        own[Model::past_k] = own[Model::present_k];  // the plain executor's next past: a copy
        own[Model::past_v] = own[Model::present_v];
    }
    return failures == 0 ? 0 : 1;
}
