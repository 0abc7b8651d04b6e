#!/usr/bin/env python3
"""Writes googlenet.graph: GoogLeNet (Inception v1, Szegedy et al. 2014,
Table 1) at batch 1 as torchvision's googlenet() exports it for inference:
each BasicConv2d a Conv (batch norm folded into it) and a Relu, the 5x5
branch a 3x3 as torchvision has it, no auxiliary heads, no LRN. Written
from the architecture, not converted from an ONNX file (no GoogLeNet is in
the corpus). Run: python3 examples/data/make_googlenet.py > examples/data/googlenet.graph"""

lines = [
    "# onnx-runtime-memory graph text v1",
    "# source: examples/data/make_googlenet.py: GoogLeNet (Inception v1) at batch 1, torchvision's layout "
    "for inference, written from the paper's Table 1 (not an ONNX export)",
    "graph googlenet",
]
count = 0


def value(name, c, h, w=None):
    lines.append(f"value {name} float[1,{c},{h},{h if w is None else w}]")


def conv(x, c_out, h, name, c_in, k):
    """Conv (with a folded batch norm) then Relu: returns the Relu's output."""
    global count
    count += 1
    wname = f"{name}.weight"
    lines.append(f"value {wname} float[{c_out},{c_in},{k},{k}]")
    lines.append(f"weight {wname}")
    lines.append(f"value {wname[:-7]}.bias float[{c_out}]")
    lines.append(f"weight {wname[:-7]}.bias")
    lines.append(f"node Conv {x} {wname} {name}.bias -> {name}_conv")
    value(f"{name}_conv", c_out, h)
    lines.append(f"node Relu {name}_conv -> {name}_relu")
    value(f"{name}_relu", c_out, h)
    return f"{name}_relu"


def pool(x, c, h, name, op="MaxPool"):
    lines.append(f"node {op} {x} -> {name}")
    value(name, c, h)
    return name


def inception(x, c_in, h, name, c1, c3r, c3, c5r, c5, cp):
    b1 = conv(x, c1, h, f"{name}.branch1", c_in, 1)
    b2 = conv(conv(x, c3r, h, f"{name}.branch2.0", c_in, 1), c3, h, f"{name}.branch2.1", c3r, 3)
    b3 = conv(conv(x, c5r, h, f"{name}.branch3.0", c_in, 1), c5, h, f"{name}.branch3.1", c5r, 3)
    p = pool(x, c_in, h, f"{name}.branch4.pool")
    b4 = conv(p, cp, h, f"{name}.branch4.1", c_in, 1)
    out = f"{name}_concat"
    lines.append(f"node Concat {b1} {b2} {b3} {b4} -> {out}")
    c = c1 + c3 + c5 + cp
    value(out, c, h)
    return out, c


lines.append("value input float[1,3,224,224]")
lines.append("input input")
x = conv("input", 64, 112, "conv1", 3, 7)
x = pool(x, 64, 56, "maxpool1")
x = conv(x, 64, 56, "conv2", 64, 1)
x = conv(x, 192, 56, "conv3", 64, 3)
x = pool(x, 192, 28, "maxpool2")
c = 192
for name, h, cfg in [
    ("inception3a", 28, (64, 96, 128, 16, 32, 32)),
    ("inception3b", 28, (128, 128, 192, 32, 96, 64)),
    ("maxpool3", 14, None),
    ("inception4a", 14, (192, 96, 208, 16, 48, 64)),
    ("inception4b", 14, (160, 112, 224, 24, 64, 64)),
    ("inception4c", 14, (128, 128, 256, 24, 64, 64)),
    ("inception4d", 14, (112, 144, 288, 32, 64, 64)),
    ("inception4e", 14, (256, 160, 320, 32, 128, 128)),
    ("maxpool4", 7, None),
    ("inception5a", 7, (256, 160, 320, 32, 128, 128)),
    ("inception5b", 7, (384, 192, 384, 48, 128, 128)),
]:
    if cfg is None:
        x = pool(x, c, h, name)
    else:
        x, c = inception(x, c, h, name, *cfg)
x = pool(x, c, 1, "avgpool", "GlobalAveragePool")
lines.append(f"node Flatten {x} -> flatten")
lines.append(f"value flatten float[1,{c}]")
lines.append(f"value fc.weight float[1000,{c}]")
lines.append("weight fc.weight")
lines.append("value fc.bias float[1000]")
lines.append("weight fc.bias")
lines.append("node Gemm flatten fc.weight fc.bias -> logits")
lines.append("value logits float[1,1000]")
lines.append("output logits")
print("\n".join(lines))
