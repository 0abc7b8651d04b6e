// The graph text reader: the format's rules, and malformed input reported
// with its line number.
#include <algorithm>
#include <fstream>
#include <iterator>

#include "ir/graph_text.hpp"
#include "ir/views.hpp"
#include "support.hpp"

namespace {

const char* const tiny = R"(# onnx-runtime-memory graph text v1
# source: a two-layer example
graph tiny
value x float[1,3,8,8]
input x
value w float[4,3,3,3]
weight w
value b float[4]
weight b
output y
node Conv x w b -> h
value h float[1,4,8,8]
node Relu h -> y
value y float[1,4,8,8]
)";

ir::ReadError read_error(const std::string& text) {
    auto g = ir::read_graph_text(text);
    REQUIRE_FALSE(g.has_value());
    return g.error();
}

std::string with_header(const std::string& body) {
    return "# onnx-runtime-memory graph text v1\n# test\n" + body;
}

}  // namespace

TEST_CASE("the README's example reads and plans: h and y are 1024 bytes each") {
    auto g = ir::read_graph_text(tiny);
    REQUIRE(g.has_value());
    CHECK(g->name() == "tiny");
    CHECK(g->value_count() == 5);
    CHECK(g->node_count() == 2);
    CHECK(g->op_type(0) == "Conv");
    CHECK(g->node_line(1) == 13);
    CHECK(g->is_initializer(test::id(*g, "w")));
    CHECK(g->graph_outputs().size() == 1);
    const auto p = test::plan_ok(*g);
    CHECK(p.naive_bytes == 2048);
    CHECK(p.peak_bytes == 2048);  // h is read by the node that writes y
}

TEST_CASE("optional inputs and outputs, blank and comment lines, symbols, unknown dims") {
    auto g = ir::read_graph_text(with_header(R"(
graph opt

   # an indented comment
value x float[batch,?]
input x
node Op x - x -> - y   z
value y int4[?]
node Op2 -> k
value k bool[]
output z
output k
)"));
    REQUIRE(g.has_value());
    CHECK(g->node_inputs(0).size() == 2);  // x twice; '-' left out
    CHECK(g->node_outputs(0).size() == 2);
    CHECK(g->node_inputs(1).empty());
    CHECK_FALSE(orm::static_size(*g, test::id(*g, "x")).has_value());
    CHECK_FALSE(orm::static_size(*g, test::id(*g, "y")).has_value());  // rank unknown
    CHECK_FALSE(orm::static_size(*g, test::id(*g, "z")).has_value());  // no type at all
    CHECK(orm::bounded_size(*g, test::id(*g, "x"), orm::SymbolBounds{{"batch", 2}}) == std::nullopt);
    CHECK(orm::static_size(*g, test::id(*g, "k")) == 1u);  // a bool scalar
}

TEST_CASE("malformed input is reported with its line") {
    struct Case {
        std::string text;
        std::size_t line;
        std::string fragment;
    };
    const Case cases[] = {
        {"", 1, "empty file"},
        {"# some other format\n", 1, "first line"},
        {with_header("input x\n"), 3, "before the 'graph' line"},
        {with_header("graph a\ngraph b\n"), 4, "second 'graph'"},
        {with_header("graph a b\n"), 3, "one name"},
        {with_header("graph g\nfrobnicate x\n"), 4, "unknown keyword"},
        {with_header("graph g\nvalue x float[1,2]\nvalue x float[1,2]\ninput x\n"), 5, "second 'value' line"},
        {with_header("graph g\nvalue x quaternion[1]\ninput x\n"), 4, "unknown element type"},
        {with_header("graph g\nvalue x float[1,-2]\ninput x\n"), 4, "bad dimension '-2'"},
        {with_header("graph g\nvalue x float[1,2x]\ninput x\n"), 4, "bad dimension '2x'"},
        {with_header("graph g\nvalue x float[1,,2]\ninput x\n"), 4, "bad dimension ''"},
        {with_header("graph g\nvalue x float[99999999999999999999]\ninput x\n"), 4, "too large"},
        {with_header("graph g\nvalue x float(1)\ninput x\n"), 4, "not <dtype>[<dims>]"},
        {with_header("graph g\nvalue x\n"), 4, "a name and a type"},
        {with_header("graph g\ninput x\ninput x\n"), 5, "already defined on line 4"},
        {with_header("graph g\ninput x\nnode A x -> x\n"), 5, "already defined on line 4"},
        {with_header("graph g\ninput x\nnode A x -> y\nnode B x -> y\n"), 6, "already defined on line 5"},
        {with_header("graph g\ninput x\nnode A x y\n"), 5, "without '->'"},
        {with_header("graph g\ninput x\nnode A x -> y -> z\n"), 5, "second '->'"},
        {with_header("graph g\ninput x\nnode -> y\n"), 5, "op type"},
        {with_header("graph g\ninput x\nnode A x ghost -> y\n"), 5, "'ghost' is never defined"},
        {with_header("graph g\noutput nowhere\n"), 4, "'nowhere' is never defined"},
        {with_header("graph g\ninput x\noutput x\noutput x\n"), 6, "already an output"},
        {with_header("graph g\ninput -\n"), 4, "not a value name"},
        {with_header("value x float[1]\n"), 3, "before the 'graph' line"},
        {with_header("# only comments\n"), 3, "no 'graph' line"},
        {with_header("graph g\ninput x\nnode S x -> y\nview y x 8\n"), 6, "'view NAME of SOURCE at BYTES'"},
        {with_header("graph g\ninput x\nnode S x -> y\nview y of x at -8\n"), 6, "bad byte count '-8'"},
        {with_header("graph g\ninput x\nnode S x -> y\nview y of x at 99999999999999999999\n"), 6, "too large"},
        {with_header("graph g\ninput x\nnode S x -> y\nview - of x at 8\n"), 6, "not a value name"},
        {with_header("graph g\ninput x\nnode S x -> y\nview y of x at 0\nview y of x at 8\n"), 7,
         "already a view or part on line 6"},
        {with_header("graph g\ninput x\nnode S x -> y\nview y of ghost at 0\n"), 6, "'ghost' is never defined"},
        {with_header("graph g\ninput x\nnode S x -> y\npart y of x\n"), 6, "'part NAME of WHOLE at BYTES'"},
        {with_header("graph g\ninput x\nnode S x -> y\nview y of x at 0\npart y of x at 8\n"), 7,
         "already a view or part on line 6"},
    };
    for (const auto& c : cases) {
        INFO(c.text);
        const auto e = read_error(c.text);
        INFO(e.describe());
        CHECK(e.line == c.line);
        CHECK(e.message.find(c.fragment) != std::string::npos);
    }
}

TEST_CASE("a file that cannot be opened is an error without a line") {
    auto g = ir::read_graph_file("/nonexistent/dir/model.graph");
    REQUIRE_FALSE(g.has_value());
    CHECK(g.error().line == 0);
    CHECK(g.error().describe().find("cannot open") != std::string::npos);
}

TEST_CASE("values out of order in the file read fine, the planner names the node") {
    auto g = ir::read_graph_text(with_header("graph g\ninput x\nnode B a -> b\nnode A x -> a\noutput b\n"));
    REQUIRE(g.has_value());
    auto status = orm::plan_activations_static(*g, {});
    REQUIRE_FALSE(status.has_value());
    CHECK(status.error().kind == orm::PlanError::Kind::used_before_produced);
    CHECK(g->node_line(status.error().node) == 5);
}

TEST_CASE("a corpus file cut short anywhere reads as an error with a line, or as a smaller valid graph") {
    auto full = ir::read_graph_file(std::string(ORM_EXAMPLES_DIR) + "/data/resnet50.graph");
    REQUIRE(full.has_value());
    std::ifstream in(std::string(ORM_EXAMPLES_DIR) + "/data/resnet50.graph", std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const auto lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
    std::size_t errors = 0, planned = 0;
    for (std::size_t cut = 0; cut < text.size(); cut += 97) {
        auto g = ir::read_graph_text(std::string_view(text).substr(0, cut));
        if (!g) {
            ++errors;
            CHECK(g.error().line >= 1);
            CHECK(g.error().line <= lines + 1);
            continue;
        }
        // What reads must plan or be refused cleanly; a plan must validate.
        auto status = orm::plan_activations_static(*g, {});
        if (status && status->is_complete()) {
            CHECK(orm::validate_static(*g, {}, status->plan()).has_value());
            ++planned;
        }
    }
    CHECK(errors > 0);
    CHECK(planned > 0);
}

TEST_CASE("a view line states a view at a byte offset, which replaces the view an op would make") {
    const auto g = ir::read_graph_text(with_header(
        "graph g\nvalue x uint8[64]\ninput x\nnode A x -> a\nvalue a uint8[64]\nnode Reshape a -> r\nvalue r uint8[16]\n"
        "view r of a at 48\nnode B r -> y\nvalue y uint8[16]\noutput y\n"));
    REQUIRE(g.has_value());
    REQUIRE(g->stated_views().size() == 1);
    const auto views = ir::views_from_ops(*g);
    CHECK(views.source_of(test::id(*g, "r")) == test::id(*g, "a"));
    CHECK(views.offset_of(test::id(*g, "r")) == 48);
    const auto plan = orm::plan_arena(*g, views, orm::static_size_oracle(*g));
    REQUIRE(plan.has_value());
    CHECK(plan->plan().offset_of(test::id(*g, "r")) == *plan->plan().offset_of(test::id(*g, "a")) + 48);
}
