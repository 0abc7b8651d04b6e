#!/usr/bin/env python3
"""Convert an ONNX model to graph text v1 (shared/corpus/README.md).

    onnx_to_graph.py [--slices] MODEL.onnx OUT.graph

Runs ONNX shape inference (strict mode off, data propagation on), then writes
the model's values, inputs, weights, outputs and nodes:

- initializers, Constant nodes and Identity nodes of weights become weights;
- If/Loop/Scan nodes list the outer values their subgraphs read as extra
  inputs, after their own, so those values stay alive until the node runs;
- names become single tokens (white space replaced, '-' and '->' renamed,
  clashes suffixed);
- symbolic dims stay symbolic; a dim inference could not work out is '?', a
  shape it could not work out is '[?]'; a value of unknown type gets no
  'value' line. Nothing is invented;
- with --slices, a Slice with constant starts, ends, axes and unit steps
  that cuts one axis of a static shape, every dimension before it 1, is one
  run of its input's bytes: it gets a 'view OUT of IN at BYTES' line (a
  zero-copy view at its offset). plan_graph --slices does the same for
  Splits and Concats from their shapes alone; a Slice needs its starts.

Needs the onnx Python package (Debian: python3-onnx, used by /usr/bin/python3).
Exit status: 0 written, 1 bad input (the output is not created), 3 no onnx.
"""
import os
import re
import sys
import tempfile
import warnings

try:
    import onnx
    import onnx.numpy_helper
    from onnx import TensorProto, shape_inference
except ImportError:
    print("onnx_to_graph: needs the onnx Python package (Debian: apt-get install python3-onnx; "
          "then run it with /usr/bin/python3)", file=sys.stderr)
    sys.exit(3)

DTYPES = {
    TensorProto.FLOAT: "float", TensorProto.FLOAT16: "float16", TensorProto.BFLOAT16: "bfloat16",
    TensorProto.DOUBLE: "double", TensorProto.INT8: "int8", TensorProto.UINT8: "uint8",
    TensorProto.INT16: "int16", TensorProto.UINT16: "uint16", TensorProto.INT32: "int32",
    TensorProto.UINT32: "uint32", TensorProto.INT64: "int64", TensorProto.UINT64: "uint64",
    TensorProto.BOOL: "bool", TensorProto.STRING: "string", TensorProto.COMPLEX64: "complex64",
    TensorProto.COMPLEX128: "complex128",
}
# Newer element types, by number, where this onnx version does not name them.
DTYPES.update({17: "float8e4m3fn", 18: "float8e4m3fnuz", 19: "float8e5m2", 20: "float8e5m2fnuz",
               21: "uint4", 22: "int4", 23: "float4e2m1", 24: "float8e8m0", 25: "uint2", 26: "int2"})
SYMBOL = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class Names:
    """ONNX names -> single-token, unique graph text names."""

    def __init__(self):
        self.by_onnx = {}
        self.taken = set()

    def __call__(self, name):
        if name in self.by_onnx:
            return self.by_onnx[name]
        token = re.sub(r"\s+", "_", name) or "_"
        if token in ("-", "->"):
            token = "_" + token
        base, n = token, 1
        while token in self.taken:
            token = f"{base}__{n}"
            n += 1
        self.taken.add(token)
        self.by_onnx[name] = token
        return token


def symbol(param, symbols):
    """A dim_param as a symbol of the format (letters, digits, underscores)."""
    if SYMBOL.fullmatch(param):
        return param
    if param not in symbols:
        cleaned = re.sub(r"[^A-Za-z0-9_]", "_", param)
        symbols[param] = cleaned if SYMBOL.fullmatch(cleaned) else "s_" + cleaned
    return symbols[param]


def type_text(type_proto, symbols):
    """'dtype[dims]' for a tensor type, or None when the element type is unknown."""
    if not type_proto.HasField("tensor_type"):
        return None
    t = type_proto.tensor_type
    dtype = DTYPES.get(t.elem_type)
    if dtype is None:
        return None
    if not t.HasField("shape"):
        return f"{dtype}[?]"
    dims = []
    for d in t.shape.dim:
        if d.HasField("dim_value") and d.dim_value >= 0:
            dims.append(str(d.dim_value))
        elif d.HasField("dim_param") and d.dim_param:
            dims.append(symbol(d.dim_param, symbols))
        else:
            dims.append("?")
    return f"{dtype}[{','.join(dims)}]"


def subgraphs(node):
    """The subgraphs of a control-flow node's attributes (If, Loop, Scan)."""
    for attr in node.attribute:
        if attr.HasField("g"):
            yield attr.g
        yield from attr.graphs


def outer_reads(graph, defined=()):
    """Names a (sub)graph reads but does not define, nested subgraphs included."""
    defined = set(defined) | {i.name for i in graph.input} | {i.name for i in graph.initializer}
    reads = []
    for node in graph.node:
        needed = list(node.input)
        for sub in subgraphs(node):
            needed += outer_reads(sub, defined)
        for name in needed:
            if name and name not in defined and name not in reads:
                reads.append(name)
        defined.update(o for o in node.output if o)
    return reads


ELEMENT_BYTES = {"float": 4, "float16": 2, "bfloat16": 2, "double": 8, "int8": 1, "uint8": 1, "int16": 2,
                 "uint16": 2, "int32": 4, "uint32": 4, "int64": 8, "uint64": 8, "bool": 1}


def static_shape(type_text_value):
    """(element bytes, dims) of a type like float[1,4,6], or None unless static and whole-byte."""
    m = re.fullmatch(r"([a-z0-9]+)\[([0-9,]*)\]", type_text_value or "")
    if not m or m.group(1) not in ELEMENT_BYTES:
        return None
    return ELEMENT_BYTES[m.group(1)], [int(d) for d in m.group(2).split(",") if d]


def slice_offset(node, constants, types):
    """The byte offset of a contiguous Slice's output in its input, or None."""
    if node.op_type != "Slice" or node.domain not in ("", "ai.onnx") or len(node.input) < 3:
        return None
    args = [constants.get(n) if n else None for n in list(node.input[1:]) + [""] * (5 - len(node.input))]
    starts, ends, axes, steps = args[0], args[1], args[2], args[3]
    source, out = static_shape(types.get(node.input[0])), static_shape(types.get(node.output[0]))
    if starts is None or ends is None or source is None or out is None or len(node.input) > 3 and node.input[3] and axes is None:
        return None
    if len(node.input) > 4 and node.input[4] and (steps is None or any(x != 1 for x in steps)):
        return None
    (size, dims), (_, out_dims) = source, out
    if len(dims) != len(out_dims):
        return None
    cut = [a for a in range(len(dims)) if dims[a] != out_dims[a]]
    axes = [a + len(dims) if a < 0 else a for a in (axes if axes is not None else range(len(starts)))]
    if len(cut) != 1 or any(dims[a] != 1 for a in range(cut[0])):
        return None  # no cut (an Identity) or not one run of bytes
    axis = cut[0]
    if axis not in axes:
        return None
    start = starts[axes.index(axis)]
    start = min(max(start + dims[axis] if start < 0 else start, 0), dims[axis])
    inner = 1
    for d in dims[axis + 1:]:
        inner *= d
    return start * inner * size


def convert(model, source, slices=False):
    graph = model.graph
    names, symbols = Names(), {}
    one_line_source = re.sub(r"[\r\n]+", " ", source)
    lines = ["# onnx-runtime-memory graph text v1",
             f"# source: {one_line_source}",
             f"# onnx: ir_version {model.ir_version}, opset " +
             ", ".join(f"{o.domain or 'ai.onnx'} {o.version}" for o in model.opset_import),
             f"graph {names(graph.name or 'model')}"]
    types = {}
    for vi in list(graph.input) + list(graph.output) + list(graph.value_info):
        t = type_text(vi.type, symbols)
        if t is not None:
            types.setdefault(vi.name, t)
    weights = []
    for init in graph.initializer:
        dtype = DTYPES.get(init.data_type)
        if dtype is not None:
            types[init.name] = f"{dtype}[{','.join(str(d) for d in init.dims)}]"
        weights.append(init.name)
    weight_set = set(weights)

    constants = {}  # the integer tensors a Slice's starts may come from
    for init in graph.initializer:
        if init.data_type == TensorProto.INT64 or init.data_type == TensorProto.INT32:
            constants[init.name] = [int(x) for x in onnx.numpy_helper.to_array(init).flatten()]
    for node in graph.node:
        if node.op_type == "Constant" and node.attribute and node.attribute[0].name == "value":
            t = node.attribute[0].t
            if t.data_type in (TensorProto.INT64, TensorProto.INT32):
                constants[node.output[0]] = [int(x) for x in onnx.numpy_helper.to_array(t).flatten()]
    nodes = []
    views = []
    for node in graph.node:
        if slices:
            offset = slice_offset(node, constants, types)
            if offset is not None:
                views.append((node.output[0], node.input[0], offset))
        if node.op_type == "Constant" and node.domain in ("", "ai.onnx"):
            weights.extend(o for o in node.output if o)
            weight_set.update(o for o in node.output if o)
            continue
        if (node.op_type == "Identity" and node.domain in ("", "ai.onnx") and len(node.input) == 1
                and node.input[0] in weight_set):
            weights.extend(o for o in node.output if o)
            weight_set.update(o for o in node.output if o)
            continue
        inputs = list(node.input)
        for sub in subgraphs(node):
            inputs += [n for n in outer_reads(sub) if n not in inputs]
        nodes.append((node.op_type, inputs, list(node.output)))

    written = set()

    def value_line(name):
        if name in types and name not in written:
            written.add(name)
            lines.append(f"value {names(name)} {types[name]}")

    for vi in graph.input:
        if vi.name in weight_set:
            continue
        value_line(vi.name)
        lines.append(f"input {names(vi.name)}")
    for name in weights:
        value_line(name)
        lines.append(f"weight {names(name)}")
    for vi in graph.output:
        lines.append(f"output {names(vi.name)}")
    for op, inputs, outputs in nodes:
        ins = " ".join(names(n) if n else "-" for n in inputs)
        outs = " ".join(names(n) if n else "-" for n in outputs)
        lines.append(f"node {names(op)} {ins} -> {outs}".replace("  ", " "))
        for o in outputs:
            if o:
                value_line(o)
    for view, source_name, offset in views:
        lines.append(f"view {names(view)} of {names(source_name)} at {offset}")
    return "\n".join(lines) + "\n"


def main(argv):
    slices = "--slices" in argv[1:]
    args = [a for a in argv[1:] if a != "--slices"]
    if len(args) != 2:
        print("usage: onnx_to_graph.py [--slices] MODEL.onnx OUT.graph", file=sys.stderr)
        return 1
    source, target = args
    try:
        with warnings.catch_warnings():  # protobuf's own warnings; our message says it
            warnings.simplefilter("ignore")
            model = onnx.load(source)
    except Exception as e:  # protobuf's DecodeError, OSError, ...
        print(f"onnx_to_graph: {source}: not a readable ONNX model ({type(e).__name__}: {e})", file=sys.stderr)
        return 1
    if not model.graph.node and not model.graph.input:
        print(f"onnx_to_graph: {source}: not an ONNX model (no graph)", file=sys.stderr)
        return 1
    try:
        model = shape_inference.infer_shapes(model, strict_mode=False, data_prop=True)
    except Exception as e:  # keep what the model itself says
        print(f"onnx_to_graph: {source}: shape inference failed ({e}); shapes it would give stay unknown",
              file=sys.stderr)
    text = convert(model, os.path.basename(source), slices)
    # Write beside the target, then rename: a failure never leaves a partial file.
    directory = os.path.dirname(os.path.abspath(target))
    fd, tmp = tempfile.mkstemp(prefix=".onnx_to_graph.", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="ascii", errors="replace") as out:
            out.write(text)
        os.replace(tmp, target)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
