// Every public entry point instantiated once, so that a build with a user's
// strict warnings (-Wshadow -Wconversion -Wsign-conversion -Wold-style-cast
// -Wundef -Wnon-virtual-dtor -Wcast-qual -Wnull-dereference, with -I, not
// -isystem) compiles the library's templates and finds nothing. Built with
// -Werror by g++ and clang-16 in the tests (tests/CMakeLists.txt); it also
// runs, and checks a few figures so the calls are not optimised away.
#include <onnx_runtime_memory/onnx_runtime_memory.hpp>

#include <cstdio>
#include <optional>
#include <span>
#include <vector>

namespace orm = onnx_runtime_memory;

namespace {

// x -> A -> a -> Reshape -> v -> B -> b, c -> C -> y (output); v views a.
struct Net {
    std::vector<std::vector<long>> in{{0}, {1}, {2}, {3, 4}}, out{{1}, {2}, {3, 4}, {5}};
    std::vector<long> inputs{0}, outputs{5};
    std::vector<orm::Dim> shape{orm::Dim::fixed(4), orm::Dim::fixed(16)};

    std::size_t value_count() const { return 6; }
    std::size_t node_count() const { return in.size(); }
    const std::vector<long>& node_inputs(std::size_t n) const { return in[n]; }
    const std::vector<long>& node_outputs(std::size_t n) const { return out[n]; }
    const std::vector<long>& graph_inputs() const { return inputs; }
    const std::vector<long>& graph_outputs() const { return outputs; }
    bool is_initializer(orm::ValueId) const { return false; }
    orm::ElementType element_type(orm::ValueId) const { return orm::ElementType::float32; }
    const std::vector<orm::Dim>& dims(orm::ValueId) const { return shape; }
};

}  // namespace

int main() {
    const Net g;
    orm::ViewMap views;
    views.insert(2, 1);
    const auto oracle = orm::static_size_oracle(g);
    orm::PlanOptions options;
    options.scratch_bytes = {0, 32};
    options.inplace = {{4, 3}};
    int bad = 0;

    auto slots = orm::plan_activations(g, views, oracle, options);
    bad += !slots || !slots->is_complete() || !orm::validate(g, views, slots->plan(), oracle, options);
    for (auto s : {orm::SlotStrategy::in_order_growth, orm::SlotStrategy::greedy_by_size,
                   orm::SlotStrategy::greedy_by_distance, orm::SlotStrategy::least}) {
        auto other = orm::plan_activations(g, views, oracle, options, s);
        bad += !other || !orm::validate(g, views, other->plan(), oracle, options);
    }
    bad += !orm::plan_activations_static(g, views).has_value();
    bad += !orm::validate_static(g, views, orm::plan_activations_static(g, views)->plan()).has_value();
    orm::SymbolBounds bounds;
    bounds.set("batch", 2);
    bad += !orm::peak_activation_bytes_at_bounds(g, views, bounds).has_value();

    orm::ArenaOptions arena_options;
    arena_options.exact_nodes = 100;
    arena_options.search_iterations = 1;
    auto arena = orm::plan_arena(g, views, oracle, options, arena_options);
    bad += !arena || !orm::validate_arena(g, views, arena->plan(), oracle, arena_options.alignment, options);
    auto table = orm::placements(g, views, arena->plan(), oracle, options);
    bad += !table || orm::scratch_placements(arena->plan(), options).size() != 1;
    bad += !orm::placements(g, views, slots->plan(), oracle, options).has_value();

    orm::ViewMap parts = views;
    parts.insert_part(3, 5, 0);  // b written straight into y's bytes
    bad += parts.offset_of(3) != 0 || !parts.is_part(3) || !parts.has_parts();
    auto with_parts = orm::plan_arena(g, parts, oracle, options);
    bad += !with_parts || !orm::validate_arena(g, parts, with_parts->plan(), oracle, 64, options);
    bad += !orm::no_op_nodes(g, parts, oracle).empty();  // C reads c too, which is no part

    auto live = orm::compute_liveness(g, views, options);
    bad += !live || !orm::validate_liveness(g, views, *live, options) || !orm::check_liveness(*live);
    bad += !orm::lower_bounds(*live, oracle, 64).has_value();
    bad += !orm::explain_inplace(g, views, options).has_value();
    auto laid = orm::arena_from_slots(*live, orm::plan_activations(*live, oracle)->plan(), 64);
    bad += !laid.has_value();

    auto replanner = orm::ActivationPlanner::create(g, views, options);
    orm::ActivationPlan replanned;
    bad += !replanner || !replanner->plan(oracle, replanned);
    auto arena_planner = orm::ArenaPlanner::create(g, views, options, arena_options);
    orm::ArenaPlan rearena;
    bad += !arena_planner || !arena_planner->plan(oracle, rearena);

    auto model = orm::PlannedModel::create(g, views, options, arena_options, {0, 1, 2, 3});
    const std::vector<std::size_t> scratch = {0, 64};
    bad += !model || !model->plan(oracle, scratch) || !model->validate(g, oracle) || model->scratch().size() != 1;

    auto order = orm::topological_order(g);
    bad += !order || !orm::in_order(g, *order) || !orm::in_topological_order(g);
    auto memory_order = orm::memory_aware_order(g, views, oracle, options);
    bad += !memory_order.has_value();

    const std::vector<orm::Buffer> buffers = {{64, 0, 2}, {32, 1, 3, 128}, {0, 2, 2}};
    auto offsets = orm::plan_offsets(buffers, arena_options);
    bad += !offsets || !orm::validate_offsets(buffers, *offsets, arena_options.alignment);
    bad += !orm::plan_slots(std::span<const orm::Buffer>(buffers)).has_value();
    bad += !orm::lower_bounds(std::span<const orm::Buffer>(buffers), 64).has_value();
    orm::SpaceOptions space_options;
    space_options.spaces = {{"device", 512, 64}, {"host", orm::unbounded, 64}};
    auto spaced = orm::plan_spaces(buffers, space_options, arena_options);
    bad += !spaced || !orm::validate_spaces(buffers, space_options, *spaced);
    orm::GraphSpaceOptions graph_spaces;
    graph_spaces.spaces = space_options.spaces;
    graph_spaces.scratch = {1};
    auto spaced_arena = orm::plan_arena_spaces(g, views, oracle, options, graph_spaces, arena_options);
    bad += !spaced_arena ||
           !orm::validate_arena_spaces(g, views, spaced_arena->plan(), oracle, options, graph_spaces);

    if (bad != 0) {
        std::fprintf(stderr, "strict_warnings: %d calls failed\n", bad);
        return 1;
    }
    std::printf("strict_warnings: every entry point planned and validated (arena %zu bytes)\n", arena->plan().arena_bytes);
    return 0;
}
