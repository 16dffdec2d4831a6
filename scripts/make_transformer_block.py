#!/usr/bin/python3
"""Writes examples/onnx/transformer_block.onnx: one BERT-style encoder layer
(hidden 32, one attention head, FFN 128) as PyTorch exports it at opset 13:
MatMul, Transpose, Softmax and ReduceMean are the framework's; the bias adds,
the attention scale and mask, the exact GELU (Div, Erf, Add, Mul, Mul), the
residual adds and LayerNorm's elementwise tail (Sub, Pow, Add, Sqrt, Div, Mul,
Add) are fusebox's. Needs Debian's python3-onnx and python3-numpy.
Run: /usr/bin/python3 scripts/make_transformer_block.py"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

H, F = 32, 128
rng = np.random.default_rng(2026)
inits, nodes = [], []


def weight(name, *shape):
    inits.append(numpy_helper.from_array((rng.standard_normal(shape) * 0.1).astype(np.float32), name))
    return name


def scalar(name, v):
    inits.append(numpy_helper.from_array(np.array(v, dtype=np.float32), name))
    return name


def node(op, inputs, name, **attrs):
    nodes.append(helper.make_node(op, inputs, [name], name=name, **attrs))
    return name


def linear(x, prefix, n_in, n_out):
    return node("Add", [node("MatMul", [x, weight(prefix + ".weight", n_in, n_out)], prefix + "/MatMul"),
                        weight(prefix + ".bias", n_out)], prefix + "/Add")


def layer_norm(x, prefix):
    mean = node("ReduceMean", [x], prefix + "/ReduceMean", axes=[-1])
    d = node("Sub", [x, mean], prefix + "/Sub")
    var = node("ReduceMean", [node("Pow", [d, scalar(prefix + "/two", 2.0)], prefix + "/Pow")],
               prefix + "/ReduceMean_1", axes=[-1])
    std = node("Sqrt", [node("Add", [var, scalar(prefix + "/eps", 1e-12)], prefix + "/Add")], prefix + "/Sqrt")
    y = node("Div", [d, std], prefix + "/Div")
    return node("Add", [node("Mul", [y, weight(prefix + ".weight", H)], prefix + "/Mul"), weight(prefix + ".bias", H)],
                prefix + "/Add_1")


q = linear("hidden_states", "attention.query", H, H)
k = linear("hidden_states", "attention.key", H, H)
v = linear("hidden_states", "attention.value", H, H)
scores = node("MatMul", [q, node("Transpose", [k], "attention/Transpose", perm=[0, 2, 1])], "attention/MatMul")
scores = node("Div", [scores, scalar("attention/scale", float(np.sqrt(H)))], "attention/Div")
# The extended attention mask: (1 - mask) * -10000, mask [batch, 1, seq] of 0/1.
bias = node("Mul", [node("Sub", [scalar("one", 1.0), "attention_mask"], "mask/Sub"), scalar("mask/min", -10000.0)],
            "mask/Mul")
probs = node("Softmax", [node("Add", [scores, bias], "attention/Add")], "attention/Softmax", axis=-1)
context = node("MatMul", [probs, v], "attention/MatMul_1")
attn = layer_norm(node("Add", [linear(context, "attention.output", H, H), "hidden_states"], "attention/residual"),
                  "attention.LayerNorm")
inner = linear(attn, "intermediate", H, F)
gelu = node("Mul", [node("Mul", [inner, node("Add", [node("Erf", [node("Div", [inner, scalar("gelu/sqrt2", 1.4142135381698608)],
                                                                       "gelu/Div")], "gelu/Erf"),
                                                     scalar("gelu/one", 1.0)], "gelu/Add")], "gelu/Mul"),
                    scalar("gelu/half", 0.5)], "gelu/Mul_1")
out = layer_norm(node("Add", [linear(gelu, "output", F, H), attn], "output/residual"), "output.LayerNorm")
nodes[-1].output[0] = "layer_output"

graph = helper.make_graph(
    nodes, "transformer_block",
    [helper.make_tensor_value_info("hidden_states", TensorProto.FLOAT, ["batch", "seq", H]),
     helper.make_tensor_value_info("attention_mask", TensorProto.FLOAT, ["batch", 1, "seq"])],
    [helper.make_tensor_value_info("layer_output", TensorProto.FLOAT, ["batch", "seq", H])], inits)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], producer_name="fusebox")
onnx.checker.check_model(model)
path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples", "onnx", "transformer_block.onnx")
onnx.save(model, path)
print("wrote %s: %d nodes, %d initializers" % (os.path.normpath(path), len(nodes), len(inits)))
