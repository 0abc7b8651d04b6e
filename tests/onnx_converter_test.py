#!/usr/bin/env python3
"""The ONNX converter end to end: build small models with onnx.helper,
convert them, plan them with plan_graph, and feed the converter bad input.

    onnx_converter_test.py CONVERTER PLAN_GRAPH WORK_DIR

Exit 77 (ctest: skipped) where the onnx package is missing.
"""
import json
import os
import subprocess
import sys

try:
    import onnx
    from onnx import TensorProto, helper
except ImportError:
    print("SKIPPED: the onnx Python package is missing (Debian: apt-get install python3-onnx)")
    sys.exit(77)

converter, plan_graph, work = sys.argv[1:4]
os.makedirs(work, exist_ok=True)
failures = []


def check(ok, what):
    print(("ok:   " if ok else "FAIL: ") + what)
    if not ok:
        failures.append(what)


def run(*cmd):
    return subprocess.run(list(cmd), capture_output=True, text=True)


def convert(model, name):
    src, dst = os.path.join(work, name + ".onnx"), os.path.join(work, name + ".graph")
    onnx.save(model, src)
    if os.path.exists(dst):
        os.unlink(dst)
    return run(sys.executable, converter, src, dst), dst


# 1. Relu -> Reshape (a view) -> MatMul -> Softmax, batch symbolic; the shape is a Constant.
nodes = [
    helper.make_node("Constant", [], ["shape"], value=helper.make_tensor("s", TensorProto.INT64, [2], [0, 12])),
    helper.make_node("Relu", ["X"], ["A"]),
    helper.make_node("Reshape", ["A", "shape"], ["B"]),
    helper.make_node("MatMul", ["B", "W"], ["C"]),
    helper.make_node("Softmax", ["C"], ["Y"]),
]
graph = helper.make_graph(
    nodes, "tiny_mlp",
    [helper.make_tensor_value_info("X", TensorProto.FLOAT, ["batch", 3, 4])],
    [helper.make_tensor_value_info("Y", TensorProto.FLOAT, ["batch", 5])],
    [helper.make_tensor("W", TensorProto.FLOAT, [12, 5], [0.5] * 60)])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
result, out = convert(model, "tiny_mlp")
check(result.returncode == 0, f"converts (stderr: {result.stderr.strip()})")
text = open(out).read() if os.path.exists(out) else ""
check(text.startswith("# onnx-runtime-memory graph text v1\n"), "writes the header")
check("value X float[batch,3,4]" in text and "input X" in text, "keeps the symbolic input shape")
check("weight W" in text and "weight shape" in text, "initializers and Constant outputs become weights")
check("Constant" not in text and text.count("\nnode ") == 4, "drops the Constant node, keeps the others")
check("value B float[batch,12]" in text, "shape inference types the Reshape output")

deferred = run(plan_graph, "--json", out)
check(deferred.returncode == 2 and json.loads(deferred.stdout)["status"] == "deferred", "plans as deferred without bounds")
planned = run(plan_graph, "--json", "--bounds", "batch=2", out)
check(planned.returncode == 0, f"plans at batch=2 (stderr: {planned.stderr.strip()})")
if planned.returncode == 0:
    j = json.loads(planned.stdout)
    # A [0,2] (pinned by the view B until MatMul), C [2,3], Y [3,3]: 96 + 40 + 40
    # bytes one each; the seed puts Y into A's slot: 136.
    check((j["owners"], j["views"], j["naive_bytes"], j["peak_bytes"]) == (3, 1, 176, 136),
          f"exact figures at batch=2: {j['owners']} owners, {j['views']} views, {j['naive_bytes']} naive, {j['peak_bytes']} peak")

# 2. Shapes inference cannot resolve stay unknown; control flow lists outer reads.
branch = lambda name: helper.make_graph(  # noqa: E731
    [helper.make_node("Identity", ["C"], [name])], name, [],
    [helper.make_tensor_value_info(name, TensorProto.FLOAT, None)])
nodes = [
    helper.make_node("Relu", ["X"], ["C"]),
    helper.make_node("Mystery", ["C"], ["Z"], domain="custom.domain"),
    helper.make_node("If", ["cond"], ["Q"], then_branch=branch("t"), else_branch=branch("e")),
    helper.make_node("Add", ["Z", "Q"], ["Y"]),
]
graph = helper.make_graph(
    nodes, "opaque",
    [helper.make_tensor_value_info("X", TensorProto.FLOAT, [2, 3]),
     helper.make_tensor_value_info("cond", TensorProto.BOOL, [])],
    [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("custom.domain", 1)])
result, out = convert(model, "opaque")
check(result.returncode == 0, f"converts a model with an unknown op and an If (stderr: {result.stderr.strip()})")
text = open(out).read() if os.path.exists(out) else ""
check("node If cond C -> Q" in text, "the If node lists the outer value its branches read")
check("value Z " not in text, "the unknown op's output gets no invented type")
opaque = run(plan_graph, out)
check(opaque.returncode == 2 and "Z" in opaque.stdout, "plans as deferred, naming the value of unknown size")

# 2b. --slices: a Slice with constant starts cutting one run of bytes becomes a view at its offset; one that
# cuts an inner axis (not one run), or whose starts come at run time, does not; without --slices, none does.
nodes = [
    helper.make_node("Relu", ["X"], ["A"]),
    helper.make_node("Slice", ["A", "st", "en", "ax"], ["S"]),            # rows 2..4 of [1,5,6]: at 2*6*4 = 48
    helper.make_node("Slice", ["A", "st_neg", "en_big", "ax"], ["T"]),    # rows -2.. (3..4): at 3*6*4 = 72
    helper.make_node("Slice", ["A", "st", "en", "ax_inner"], ["U"]),      # columns 2..4 of every row: not one run
    helper.make_node("Slice", ["A", "dyn", "en", "ax"], ["D"]),           # starts known only at run time
    helper.make_node("Concat", ["S", "T"], ["C"], axis=1),
    helper.make_node("Concat", ["C", "U", "D"], ["Y"], axis=2),
]
ints = lambda name, values: helper.make_tensor(name, TensorProto.INT64, [len(values)], values)  # noqa: E731
graph = helper.make_graph(
    nodes, "slices",
    [helper.make_tensor_value_info("X", TensorProto.FLOAT, [1, 5, 6]),
     helper.make_tensor_value_info("dyn", TensorProto.INT64, [1])],
    [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)],
    [ints("st", [2]), ints("en", [5]), ints("ax", [1]), ints("st_neg", [-2]), ints("en_big", [100]),
     ints("ax_inner", [2])])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
src, with_slices = os.path.join(work, "slices.onnx"), os.path.join(work, "slices_views.graph")
result, plain = convert(model, "slices")
sliced = run(sys.executable, converter, "--slices", src, with_slices)
check(result.returncode == 0 and sliced.returncode == 0, f"converts with and without --slices ({sliced.stderr.strip()})")
text = open(with_slices).read() if os.path.exists(with_slices) else ""
check("view S of A at 48" in text and "view T of A at 72" in text, "--slices: each contiguous Slice a view at its offset")
check("view U " not in text and "view D " not in text, "--slices: no view for an inner-axis cut or run-time starts")
check("view " not in (open(plain).read() if os.path.exists(plain) else "view "), "without --slices: no view lines")
views_planned = run(plan_graph, "--json", "--unknown", "dynamic", with_slices)  # D's size comes at run time
check(views_planned.returncode == 0 and json.loads(views_planned.stdout)["offset_views"] == 2,
      f"plan_graph plans the two views at their offsets ({views_planned.stderr.strip()})")

# 3. Bad input: a clear message, a non-zero exit, and no output file.
for name, data in [("not_onnx", b"hello, this is not a model\n"), ("truncated", open(os.path.join(work, "tiny_mlp.onnx"), "rb").read()[:100])]:
    src, dst = os.path.join(work, name + ".onnx"), os.path.join(work, name + ".graph")
    open(src, "wb").write(data)
    if os.path.exists(dst):
        os.unlink(dst)
    r = run(sys.executable, converter, src, dst)
    check(r.returncode == 1 and "onnx_to_graph:" in r.stderr and not os.path.exists(dst),
          f"{name}: exit {r.returncode}, no output file, says: {r.stderr.strip()[:120]}")
missing = run(sys.executable, converter, os.path.join(work, "nope.onnx"), os.path.join(work, "nope.graph"))
check(missing.returncode == 1 and not os.path.exists(os.path.join(work, "nope.graph")), "a missing file is an error")
leftovers = [f for f in os.listdir(work) if f.startswith(".onnx_to_graph.")]
check(not leftovers, f"no temporary files left behind {leftovers}")

print(f"{len(failures)} failed")
sys.exit(1 if failures else 0)
