// Misusing a result (the plan of a deferred status, the value of an error)
// is a caller bug: the library says what and where, then aborts. The tests
// run this program and read its last words.
#include <onnx_runtime_memory/plan.hpp>

#include <cstdio>
#include <cstring>
#include <optional>
#include <vector>

namespace orm = onnx_runtime_memory;

namespace {
struct One {  // x -> A -> a (output)
    std::vector<std::vector<unsigned>> io{{0}, {1}};
    std::size_t value_count() const { return 2; }
    std::size_t node_count() const { return 1; }
    const std::vector<unsigned>& node_inputs(std::size_t) const { return io[0]; }
    const std::vector<unsigned>& node_outputs(std::size_t) const { return io[1]; }
    const std::vector<unsigned>& graph_inputs() const { return io[0]; }
    const std::vector<unsigned>& graph_outputs() const { return io[1]; }
    bool is_initializer(orm::ValueId) const { return false; }
};
}  // namespace

int main(int argc, char** argv) {
    const char* what = argc > 1 ? argv[1] : "";
    const auto unknown = [](orm::ValueId) { return std::optional<std::size_t>(); };
    if (std::strcmp(what, "plan") == 0) {
        auto status = orm::plan_activations(One{}, {}, unknown);  // deferred: a's size is unknown
        std::printf("%zu\n", status->plan().peak_bytes);          // misuse: no plan
    } else if (std::strcmp(what, "value") == 0) {
        One bad;
        bad.io[1] = {7};  // an id out of range: an error, not a status
        auto status = orm::plan_activations(bad, {}, unknown);
        std::printf("%d\n", static_cast<int>(status.value().is_complete()));  // misuse: no value
    } else if (std::strcmp(what, "arrow") == 0) {
        One bad;
        bad.io[1] = {7};
        auto status = orm::plan_activations(bad, {}, unknown);
        std::printf("%d\n", static_cast<int>(status->is_complete()));  // misuse: no value, through ->
    }
    return 0;
}
