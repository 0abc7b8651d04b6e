// A small IR for tests and examples (not part of the installed library):
// named values with element type and shape, nodes with op type, inputs and
// outputs, graph inputs, outputs and initializers. It models
// onnx_runtime_memory::shaped_graph through member functions.
#pragma once

#include <onnx_runtime_memory/graph.hpp>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <ranges>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>
#include <vector>

namespace ir {

namespace orm = onnx_runtime_memory;
using orm::ElementType;
using orm::NodeIndex;
using orm::ValueId;

// One dimension as written: a number, a symbol name, or unknown ("?").
struct DimSpec {
    std::variant<std::int64_t, std::string, std::monostate> dim;
    DimSpec(std::int64_t n) : dim(n) {}                   // NOLINT: implicit by design, for {1, "batch", 3}
    DimSpec(int n) : dim(std::int64_t{n}) {}              // NOLINT
    DimSpec(const char* symbol) : dim(std::string(symbol)) {}  // NOLINT
    DimSpec(std::string symbol) : dim(std::move(symbol)) {}    // NOLINT
    static DimSpec unknown() { return DimSpec(std::monostate{}); }

private:
    explicit DimSpec(std::monostate) : dim(std::monostate{}) {}
};

class Graph {
public:
    Graph() = default;
    explicit Graph(std::string name) : name_(std::move(name)) {}

    // ---- the activation_graph / shaped_graph requirements ----
    [[nodiscard]] std::size_t value_count() const noexcept { return values_.size(); }
    [[nodiscard]] std::size_t node_count() const noexcept { return nodes_.size(); }
    [[nodiscard]] std::span<const ValueId> node_inputs(std::size_t n) const noexcept {
        return {ids_.data() + nodes_[n].inputs, nodes_[n].outputs - nodes_[n].inputs};
    }
    [[nodiscard]] std::span<const ValueId> node_outputs(std::size_t n) const noexcept {
        return {ids_.data() + nodes_[n].outputs, nodes_[n].end - nodes_[n].outputs};
    }
    [[nodiscard]] std::span<const ValueId> graph_inputs() const noexcept { return inputs_; }
    [[nodiscard]] std::span<const ValueId> graph_outputs() const noexcept { return outputs_; }
    [[nodiscard]] bool is_initializer(ValueId v) const noexcept { return values_[v].initializer; }
    [[nodiscard]] ElementType element_type(ValueId v) const noexcept { return values_[v].type; }
    [[nodiscard]] auto dims(ValueId v) const {
        const Value& value = values_[v];
        return std::span<const StoredDim>(dims_.data() + value.dims, value.rank) |
               std::views::transform([this](const StoredDim& d) {
                   return d.symbol == no_symbol ? orm::Dim{d.extent, {}} : orm::Dim::symbolic(symbols_[d.symbol]);
               });
    }

    // ---- names and provenance ----
    [[nodiscard]] const std::string& name() const noexcept { return name_; }
    void set_name(std::string name) { name_ = std::move(name); }
    [[nodiscard]] std::string_view value_name(ValueId v) const { return values_[v].name; }
    [[nodiscard]] std::string_view op_type(std::size_t n) const { return ops_[nodes_[n].op]; }
    [[nodiscard]] std::optional<ValueId> find(std::string_view name) const {
        auto it = by_name_.find(std::string(name));
        if (it == by_name_.end()) return std::nullopt;
        return it->second;
    }
    [[nodiscard]] bool is_graph_input(ValueId v) const noexcept { return values_[v].input; }
    [[nodiscard]] bool has_type(ValueId v) const noexcept { return values_[v].typed; }
    // The source line of node n (0 when built in code).
    [[nodiscard]] std::size_t node_line(std::size_t n) const noexcept { return nodes_[n].line; }
    // Views the graph states itself (graph text `view` and `part` lines):
    // `view`'s bytes are `source`'s from `offset` on; a part is written into
    // them by its producer (ViewMap::insert_part). In the order stated.
    struct StatedView {
        ValueId view = 0, source = 0;
        std::size_t offset = 0;
        bool part = false;
    };
    [[nodiscard]] std::span<const StatedView> stated_views() const noexcept { return stated_views_; }

    // ---- building ----
    // The id of `name`, creating the value on first mention.
    ValueId value(std::string_view name) {
        auto [it, inserted] = by_name_.try_emplace(std::string(name), static_cast<ValueId>(values_.size()));
        if (inserted) values_.push_back(Value{std::string(name)});
        return it->second;
    }
    // Sets v's element type and shape; a rank-unknown value gets one unknown dim.
    void set_type(ValueId v, ElementType type, std::span<const DimSpec> dims, bool rank_known = true) {
        Value& value = values_[v];
        value.type = type;
        value.typed = true;
        value.dims = static_cast<std::uint32_t>(dims_.size());
        if (!rank_known) {
            dims_.push_back(StoredDim{-1, no_symbol});
            value.rank = 1;
            return;
        }
        for (const DimSpec& d : dims) {
            if (const auto* n = std::get_if<std::int64_t>(&d.dim)) dims_.push_back(StoredDim{*n, no_symbol});
            else if (const auto* s = std::get_if<std::string>(&d.dim)) dims_.push_back(StoredDim{-1, symbol(*s)});
            else dims_.push_back(StoredDim{-1, no_symbol});
        }
        value.rank = static_cast<std::uint32_t>(dims.size());
    }
    void mark_input(ValueId v) {
        if (!values_[v].input) inputs_.push_back(v);
        values_[v].input = true;
    }
    void mark_output(ValueId v) { outputs_.push_back(v); }
    void mark_initializer(ValueId v) { values_[v].initializer = true; }
    void add_view(ValueId view, ValueId source, std::size_t offset, bool part = false) {
        stated_views_.push_back({view, source, offset, part});
    }
    // Appends a node; ids are taken as given (the planner checks them).
    void add_node(std::string_view op, std::span<const ValueId> inputs, std::span<const ValueId> outputs,
                  std::size_t line = 0) {
        NodeRecord r;
        r.op = intern_op(op);
        r.inputs = static_cast<std::uint32_t>(ids_.size());
        ids_.insert(ids_.end(), inputs.begin(), inputs.end());
        r.outputs = static_cast<std::uint32_t>(ids_.size());
        ids_.insert(ids_.end(), outputs.begin(), outputs.end());
        r.end = static_cast<std::uint32_t>(ids_.size());
        r.line = static_cast<std::uint32_t>(line);
        nodes_.push_back(r);
    }
    void reserve(std::size_t values, std::size_t nodes) {
        values_.reserve(values);
        nodes_.reserve(nodes);
        ids_.reserve(nodes * 3);
        by_name_.reserve(values);
    }

private:
    static constexpr std::uint32_t no_symbol = 0xFFFFFFFFu;
    struct StoredDim {
        std::int64_t extent;
        std::uint32_t symbol;
    };
    struct Value {
        std::string name;
        ElementType type = ElementType::undefined;
        std::uint32_t dims = 0;
        std::uint32_t rank = 0;
        bool typed = false;
        bool input = false;
        bool initializer = false;
    };
    struct NodeRecord {
        std::uint32_t op = 0;
        std::uint32_t inputs = 0;   // [inputs, outputs) and [outputs, end) index ids_
        std::uint32_t outputs = 0;
        std::uint32_t end = 0;
        std::uint32_t line = 0;
    };
    std::uint32_t symbol(const std::string& s) {  // ids in first-seen order: deterministic
        auto [it, inserted] = symbol_ids_.try_emplace(s, static_cast<std::uint32_t>(symbols_.size()));
        if (inserted) symbols_.push_back(s);
        return it->second;
    }
    std::uint32_t intern_op(std::string_view op) {
        auto [it, inserted] = op_ids_.try_emplace(std::string(op), static_cast<std::uint32_t>(ops_.size()));
        if (inserted) ops_.emplace_back(op);
        return it->second;
    }

    std::string name_;
    std::vector<Value> values_;
    std::vector<StoredDim> dims_;
    std::vector<std::string> symbols_;
    std::vector<NodeRecord> nodes_;
    std::vector<ValueId> ids_;
    std::vector<ValueId> inputs_;
    std::vector<ValueId> outputs_;
    std::vector<StatedView> stated_views_;
    std::vector<std::string> ops_;
    std::unordered_map<std::string, std::uint32_t> op_ids_;   // lookup only
    std::unordered_map<std::string, std::uint32_t> symbol_ids_;  // lookup only
    std::unordered_map<std::string, ValueId> by_name_;        // lookup only
};

// Builds graphs by name in tests and examples:
//   Builder b("tiny");
//   b.tensor("x", ElementType::float32, {1, 3}).input("x").node("Relu", {"x"}, {"y"}).output("y");
class Builder {
public:
    explicit Builder(std::string name) : g_(std::move(name)) {}

    Builder& tensor(std::string_view name, ElementType type, std::initializer_list<DimSpec> dims) {
        g_.set_type(g_.value(name), type, std::span<const DimSpec>(dims.begin(), dims.size()));
        return *this;
    }
    Builder& input(std::string_view name) {
        g_.mark_input(g_.value(name));
        return *this;
    }
    Builder& weight(std::string_view name) {
        g_.mark_initializer(g_.value(name));
        return *this;
    }
    Builder& output(std::string_view name) {
        g_.mark_output(g_.value(name));
        return *this;
    }
    Builder& node(std::string_view op, std::initializer_list<std::string_view> inputs,
                  std::initializer_list<std::string_view> outputs) {
        std::vector<ValueId> in, out;
        for (auto n : inputs) in.push_back(g_.value(n));
        for (auto n : outputs) out.push_back(g_.value(n));
        g_.add_node(op, in, out);
        return *this;
    }
    [[nodiscard]] ValueId id(std::string_view name) { return g_.value(name); }
    [[nodiscard]] Graph build() const { return g_; }
    [[nodiscard]] Graph& graph() noexcept { return g_; }

private:
    Graph g_;
};

static_assert(orm::shaped_graph<Graph>);

}  // namespace ir
