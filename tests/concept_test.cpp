// The graph concepts ask for what the planner needs and no more: archetypes
// that provide exactly the concept plan, validate and order.
#include <array>
#include <iterator>
#include <ranges>
#include <cstdint>
#include <span>
#include <vector>

#include "support.hpp"

namespace {

// Models activation_graph with member functions and nothing else.
// Graph: x (input) -> Relu -> a -> Relu -> b (output); w is an initializer read by node 1.
class MinimalGraph {
public:
    std::size_t value_count() const { return 4; }
    std::size_t node_count() const { return 2; }
    std::span<const std::uint32_t> node_inputs(std::size_t n) const {
        return n == 0 ? std::span<const std::uint32_t>(in0) : std::span<const std::uint32_t>(in1);
    }
    std::span<const std::uint32_t> node_outputs(std::size_t n) const {
        return n == 0 ? std::span<const std::uint32_t>(out0) : std::span<const std::uint32_t>(out1);
    }
    std::span<const std::uint32_t> graph_inputs() const { return inputs; }
    std::span<const std::uint32_t> graph_outputs() const { return outputs; }
    bool is_initializer(ValueId v) const { return v == 3; }

private:
    std::array<std::uint32_t, 1> in0{0}, out0{1}, out1{2}, inputs{0}, outputs{2};
    std::array<std::uint32_t, 2> in1{1, 3};
};

// A foreign IR with other names, adapted through graph_traits alone; its ids
// are signed 64-bit integers.
namespace foreign {
struct Op {
    std::vector<long long> args, results;
};
struct Model {
    int tensors = 0;
    std::vector<Op> ops;
    std::vector<long long> feeds, fetches;
    std::vector<bool> constant;
};
}  // namespace foreign

}  // namespace

template <>
struct onnx_runtime_memory::graph_traits<foreign::Model> {
    using G = foreign::Model;
    static std::size_t value_count(const G& g) { return static_cast<std::size_t>(g.tensors); }
    static std::size_t node_count(const G& g) { return g.ops.size(); }
    static const std::vector<long long>& node_inputs(const G& g, std::size_t n) { return g.ops[n].args; }
    static const std::vector<long long>& node_outputs(const G& g, std::size_t n) { return g.ops[n].results; }
    static const std::vector<long long>& graph_inputs(const G& g) { return g.feeds; }
    static const std::vector<long long>& graph_outputs(const G& g) { return g.fetches; }
    static bool is_initializer(const G& g, ValueId v) { return g.constant[v]; }
};

namespace {

struct NoInitializers {  // lacks is_initializer
    std::size_t value_count() const;
    std::size_t node_count() const;
    std::span<const std::uint32_t> node_inputs(std::size_t) const;
    std::span<const std::uint32_t> node_outputs(std::size_t) const;
    std::span<const std::uint32_t> graph_inputs() const;
    std::span<const std::uint32_t> graph_outputs() const;
};
struct NamedIds {  // ids that are not integers
    std::size_t value_count() const;
    std::size_t node_count() const;
    std::vector<std::string> node_inputs(std::size_t) const;
    std::span<const std::uint32_t> node_outputs(std::size_t) const;
    std::span<const std::uint32_t> graph_inputs() const;
    std::span<const std::uint32_t> graph_outputs() const;
    bool is_initializer(ValueId) const;
};

// The weakest ranges the concept allows: single-pass input ranges, a fresh
// one per call, whose iterators can be walked once (no copies, no multipass).
class OnePass {
public:
    explicit OnePass(std::vector<std::uint32_t> ids) : ids_(std::move(ids)) {}
    OnePass(OnePass&&) = default;
    OnePass& operator=(OnePass&&) = default;
    OnePass(const OnePass&) = delete;
    class iterator {
    public:
        using value_type = std::uint32_t;
        using difference_type = std::ptrdiff_t;
        using iterator_concept = std::input_iterator_tag;
        explicit iterator(const OnePass* r) : r_(r) {}
        iterator(iterator&&) = default;
        iterator& operator=(iterator&&) = default;
        std::uint32_t operator*() const { return r_->ids_[at_]; }
        iterator& operator++() {
            ++at_;
            return *this;
        }
        void operator++(int) { ++at_; }
        friend bool operator==(const iterator& i, std::default_sentinel_t) { return i.at_ == i.r_->size(); }

    private:
        const OnePass* r_;
        std::size_t at_ = 0;
    };
    iterator begin() const { return iterator(this); }
    std::default_sentinel_t end() const { return {}; }
    std::size_t size() const { return ids_.size(); }

private:
    std::vector<std::uint32_t> ids_;
};
static_assert(std::ranges::input_range<OnePass> && !std::ranges::forward_range<OnePass>);

// MinimalGraph's graph, every range single-pass.
struct SinglePassGraph {
    std::size_t value_count() const { return 4; }
    std::size_t node_count() const { return 2; }
    OnePass node_inputs(std::size_t n) const { return OnePass(n == 0 ? std::vector<std::uint32_t>{0} : std::vector<std::uint32_t>{1, 3}); }
    OnePass node_outputs(std::size_t n) const { return OnePass({static_cast<std::uint32_t>(n + 1)}); }
    OnePass graph_inputs() const { return OnePass({0}); }
    OnePass graph_outputs() const { return OnePass({2}); }
    bool is_initializer(ValueId v) const { return v == 3; }
};

static_assert(orm::activation_graph<MinimalGraph>);
static_assert(orm::activation_graph<SinglePassGraph>);
static_assert(!orm::shaped_graph<MinimalGraph>);
static_assert(orm::activation_graph<foreign::Model>);
static_assert(!orm::activation_graph<NoInitializers>);
static_assert(!orm::activation_graph<NamedIds>);
static_assert(!orm::activation_graph<int>);
static_assert(orm::shaped_graph<ir::Graph>);
static_assert(orm::shaped_graph<orm::OrderedGraph<ir::Graph>>);
static_assert(orm::activation_graph<orm::OrderedGraph<MinimalGraph>>);
static_assert(!orm::shaped_graph<orm::OrderedGraph<MinimalGraph>>);

static_assert(orm::size_oracle<decltype([](ValueId) { return std::optional<std::size_t>{}; })>);
static_assert(orm::size_oracle<decltype([](ValueId) -> std::size_t { return 1; })>);
static_assert(!orm::size_oracle<decltype([](ValueId) { return "no"; })>);

}  // namespace

TEST_CASE("a type with exactly the concept's members plans, validates and orders") {
    const MinimalGraph g;
    const auto oracle = [](ValueId v) { return std::optional<std::size_t>(v == 1 ? 64 : 32); };
    auto status = orm::plan_activations(g, {}, oracle);
    REQUIRE(status.has_value());
    REQUIRE(status->is_complete());
    const auto& plan = status->plan();
    // owners a [0,1] and b [1,1]: they meet at node 1, so two slots.
    CHECK(plan.slot_of(1) == orm::SlotId{0});
    CHECK(plan.slot_of(2) == orm::SlotId{1});
    CHECK_FALSE(plan.slot_of(0).has_value());
    CHECK_FALSE(plan.slot_of(3).has_value());
    CHECK(plan.peak_bytes == 96);
    CHECK(orm::validate(g, {}, plan, oracle).has_value());
    auto order = orm::topological_order(g);
    REQUIRE(order.has_value());
    CHECK(*order == std::vector<orm::NodeIndex>{0, 1});
}

TEST_CASE("single-pass ranges are enough: plans, validates, orders and arenas match the multipass graph") {
    const SinglePassGraph g;
    const MinimalGraph m;
    const auto oracle = [](ValueId v) { return std::optional<std::size_t>(v == 1 ? 64 : 32); };
    auto status = orm::plan_activations(g, {}, oracle);
    REQUIRE(status.has_value());
    CHECK(status->plan() == orm::plan_activations(m, {}, oracle)->plan());
    CHECK(orm::validate(g, {}, status->plan(), oracle).has_value());
    CHECK(*orm::topological_order(g) == std::vector<orm::NodeIndex>{0, 1});
    auto arena = orm::plan_arena(g, {}, oracle);
    REQUIRE(arena.has_value());
    CHECK(orm::validate_arena(g, {}, arena->plan(), oracle, 64).has_value());
    CHECK(orm::compute_liveness(g, {}).has_value());
}

TEST_CASE("a foreign IR adapted by specialising graph_traits plans, with signed ids") {
    foreign::Model m;
    m.tensors = 4;
    m.ops = {{{0}, {1}}, {{1, 3}, {2}}};
    m.feeds = {0};
    m.fetches = {2};
    m.constant = {false, false, false, true};
    const auto oracle = [](ValueId) { return std::optional<std::size_t>(16); };
    auto status = orm::plan_activations(m, {}, oracle, orm::PlanOptions{true});
    REQUIRE(status.has_value());
    // x joins the arena: x [0,0], a [0,1], b [1,1] -> x's slot is free again at node 1.
    CHECK(status->plan().num_slots() == 2);
    CHECK(status->plan().slot_of(2) == orm::SlotId{0});
    CHECK(orm::validate(m, {}, status->plan(), oracle, orm::PlanOptions{true}).has_value());

    m.ops[1].args[0] = -1;
    auto bad = orm::plan_activations(m, {}, oracle);
    REQUIRE_FALSE(bad.has_value());
    CHECK(bad.error().kind == orm::PlanError::Kind::value_out_of_range);
    CHECK(bad.error().node == 1);
}
