#!/usr/bin/env python3
"""Writes the JSON cases in this folder (oneDNN Graph's serialization format).

Run from anywhere: python3 benchdnn_cases/generate.py. The batch files (ci,
perf, all) are written by hand and refer to these cases.
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def dense(shape):
    strides, s = [], 1
    for d in reversed(shape):
        strides.insert(0, s)
        s *= max(d, 1)
    return strides


def lt(tid, dtype, shape, strides=None):
    return {"id": tid, "dtype": dtype, "shape": shape, "stride": strides or dense(shape),
            "layout_type": "strided", "property_type": "undef"}


def broadcast(a, b):
    r = max(len(a), len(b))
    a = [1] * (r - len(a)) + a
    b = [1] * (r - len(b)) + b
    return [y if x == 1 else x for x, y in zip(a, b)]


COMPARISONS = ["Equal", "Greater", "GreaterEqual", "Less", "LessEqual"]


def out_type(kind, ta, tb):
    if kind in COMPARISONS:
        return "boolean"
    return ta if ta == tb else "f32"


def op(oid, kind, ins, out, attrs=None):
    return {"id": oid, "name": f"{kind.lower()}_{oid}", "kind": kind, "attrs": attrs or {},
            "inputs": ins, "outputs": [out]}


def numpy_attr():
    return {"auto_broadcast": {"type": "string", "value": "numpy"}}


def write(path, ops):
    doc = {"version": "3.0.0", "engine_kind": "cpu", "fpmath_mode": "strict", "graph": ops}
    full = os.path.join(HERE, path)
    os.makedirs(os.path.dirname(full), exist_ok=True)
    with open(full, "w") as f:
        json.dump(doc, f, indent=2)
        f.write("\n")


def single(path, kind, ta, sa, tb, sb, attrs=None, out_shape=None):
    out = lt(2, out_type(kind, ta, tb), out_shape or broadcast(sa, sb))
    write(path, [op(0, kind, [lt(0, ta, sa), lt(1, tb, sb)], out, attrs if attrs is not None else numpy_attr())])


def chain(path, dtype, shapes, last_kind="Add"):
    """((x0 + x1) + x2) + ... ; the chain alternates between input sides."""
    ops, prev, prev_shape, nid = [], None, None, 100
    for i in range(1, len(shapes)):
        a = lt(0, dtype, shapes[0]) if i == 1 else lt(prev, dtype, prev_shape)
        b = lt(i, dtype, shapes[i])
        kind = last_kind if i == len(shapes) - 1 else "Add"
        shape = broadcast(a["shape"], b["shape"])
        out = lt(nid, out_type(kind, dtype, dtype), shape)
        ops.append(op(i - 1, kind, [a, b] if i % 2 else [b, a], out, numpy_attr()))
        prev, prev_shape, nid = nid, shape, nid + 1
    write(path, ops)


ADD_TYPES = ["f32", "bf16", "f16", "f64", "s8", "u8", "s16", "u16", "s32", "u32", "s64", "u64"]
EQUAL_TYPES = ["f32", "bf16", "f16", "f64", "s8", "u8", "s16", "u16", "s32", "u32", "s64", "u64", "boolean", "string"]
MIXED = [("f32", "bf16"), ("bf16", "f32"), ("f32", "f16"), ("f16", "f32")]

for t in ADD_TYPES:
    single(f"op/add_{t}.json", "Add", t, [1, 32, 28, 28], t, [1, 32, 28, 28])
for ta, tb in MIXED:
    single(f"op/add_{ta}_{tb}.json", "Add", ta, [1, 32, 28, 28], tb, [1, 32, 28, 28])
for t in EQUAL_TYPES:
    single(f"op/equal_{t}.json", "Equal", t, [1, 32, 28, 28], t, [1, 32, 28, 28])

# The other binary ops of the catalogue: each on a float, an integer and a
# half type where it takes them, dense and per-channel.
def attr_s(value):
    return {"type": "string", "value": value}


def attr_i(value):
    return {"type": "s64", "value": value}


BINARY = {
    "Subtract": (["f32", "bf16", "s32", "u8"], {}),
    "Multiply": (["f32", "f16", "s16", "u64"], {}),
    "Divide": (["f32", "bf16", "s32", "s8"], {}),
    "Maximum": (["f32", "f16", "s64", "u16"], {}),
    "Minimum": (["f32", "bf16", "s8", "u32"], {}),
    "Greater": (["f32", "bf16", "s32", "u8"], {}),
    "GreaterEqual": (["f32", "f16", "s64"], {}),
    "Less": (["f32", "bf16", "u16"], {}),
    "LessEqual": (["f32", "f64", "s8"], {}),
    "Mod": (["s32", "u8", "s64"], {}),
    "LogicalAnd": (["boolean"], {}),
    "LogicalOr": (["boolean"], {}),
    "LogicalXor": (["boolean"], {}),
    "BitwiseAnd": (["s32", "u8"], {}),
    "BitwiseOr": (["s16", "u64"], {}),
    "BitwiseXor": (["s64", "u32"], {}),
    "BitShift": (["u8", "u32"], {"direction": attr_s("LEFT")}),
}
for kind, (types, attrs) in BINARY.items():
    for t in types:
        a = dict(numpy_attr(), **attrs)
        single(f"op/{kind.lower()}_{t}.json", kind, t, [1, 32, 28, 28], t, [1, 32, 28, 28], a)
        single(f"op/{kind.lower()}_{t}_per_channel.json", kind, t, [2, 32, 28, 28], t, [1, 32, 1, 1], a)
single("op/mod_f32_fmod.json", "Mod", "f32", [1, 32, 28, 28], "f32", [1, 32, 28, 28],
       dict(numpy_attr(), fmod=attr_i(1)))
single("op/bitshift_right_u16.json", "BitShift", "u16", [1, 32, 28, 28], "u16", [28],
       dict(numpy_attr(), direction=attr_s("RIGHT")))
for kind, t in [("Where", "f32"), ("Where", "s64"), ("Where", "bf16"), ("Select", "f32"), ("Select", "f16")]:
    shape, cond_shape = [2, 12, 32, 32], [2, 1, 1, 32]
    write(f"op/{kind.lower()}_{t}.json",
          [op(0, kind, [lt(0, "boolean", cond_shape), lt(1, t, []), lt(2, t, shape)], lt(3, t, shape), numpy_attr())])
for kind, t in [("LogicalNot", "boolean"), ("BitwiseNot", "s32"), ("BitwiseNot", "u8")]:
    write(f"op/{kind.lower()}_{t}.json", [op(0, kind, [lt(0, t, [1, 32, 28, 28])], lt(1, t, [1, 32, 28, 28]))])

# The ops that lower to several nodes or line inputs up by a rule of their
# own: Sum, Mean, Max, Min of 1..4 inputs, SquaredDifference, Pow in both
# forms, BiasAdd in both formats, PReLU's slope rules.
def attr_f(value):
    return {"type": "f32", "value": value}


def variadic(path, kind, t, shapes):
    out_shape = []
    for s in shapes:
        out_shape = broadcast(out_shape, s)
    write(path, [op(0, kind, [lt(k, t, s) for k, s in enumerate(shapes)], lt(10, t, out_shape))])


for kind, types in [("Sum", ["f32", "bf16", "f64"]), ("Mean", ["f32", "f16"]), ("Maximum", ["f32", "s8"]),
                    ("Minimum", ["bf16", "u32"])]:
    for t in types:
        variadic(f"op/{kind.lower()}3_{t}.json", kind, t, [[2, 32, 28, 28], [32, 1, 28], [1]])
    variadic(f"op/{kind.lower()}1_{types[0]}.json", kind, types[0], [[2, 32, 28, 28]])
    variadic(f"op/{kind.lower()}4_{types[0]}.json", kind, types[0], [[2, 32, 28, 28]] * 3 + [[28]])
for t in ["f32", "bf16", "f16"]:
    single(f"op/squareddifference_{t}.json", "SquaredDifference", t, [2, 32, 28, 28], t, [1, 32, 1, 1])
    write(f"op/pow_beta_{t}.json", [op(0, "Pow", [lt(0, t, [2, 32, 28, 28])], lt(1, t, [2, 32, 28, 28]),
                                       {"beta": attr_f(3.0)})])
for ta, tb in [("f32", "f32"), ("f32", "s64"), ("f64", "f64"), ("f16", "f32"), ("s32", "s32"), ("s64", "f32")]:
    write(f"op/pow_{ta}_{tb}.json", [op(0, "Pow", [lt(0, ta, [2, 32, 28, 28]), lt(1, tb, [28])],
                                        lt(2, ta, [2, 32, 28, 28]), numpy_attr())])
for t in ["f32", "bf16"]:
    for fmt, bias in [("NXC", [28]), ("NCX", [32])]:
        write(f"op/biasadd_{t}_{fmt.lower()}.json",
              [op(0, "BiasAdd", [lt(0, t, [2, 32, 28, 28]), lt(1, t, bias)], lt(2, t, [2, 32, 28, 28]),
                  {"data_format": attr_s(fmt)})])
for t in ["f32", "f16", "s32"]:
    for name, slope, attrs in [("per_channel", [32], {"data_format": attr_s("NCX")}),
                               ("last_dim", [28], {"per_channel_broadcast": {"type": "bool", "value": False}}),
                               ("broadcast", [32, 1, 28], {})]:
        write(f"op/prelu_{t}_{name}.json",
              [op(0, "PReLU", [lt(0, t, [2, 32, 28, 28]), lt(1, t, slope)], lt(2, t, [2, 32, 28, 28]), attrs)])

# Broadcast patterns (f32; --dt changes the type).
single("op/add_scalar.json", "Add", "f32", [2, 64, 28, 28], "f32", [1, 1, 1, 1])
single("op/add_per_channel.json", "Add", "f32", [2, 64, 28, 28], "f32", [1, 64, 1, 1])
single("op/add_per_row.json", "Add", "f32", [128, 300], "f32", [128, 1])
single("op/add_leading_dim.json", "Add", "f32", [8, 16, 100], "f32", [8, 1, 1])
single("op/add_bidirectional.json", "Add", "f32", [512, 1], "f32", [1, 512])
single("op/add_src0_broadcast.json", "Add", "f32", [1, 64, 1, 1], "f32", [2, 64, 28, 28])
single("op/add_rank0.json", "Add", "f32", [], "f32", [])
single("op/add_zero_size.json", "Add", "f32", [0, 16], "f32", [1, 16])
single("op/add_none.json", "Add", "f32", [16, 32], "f32", [16, 32], {"auto_broadcast": {"type": "string", "value": "none"}})
write("op/add_strided.json", [op(0, "Add", [lt(0, "f32", [32, 48], [1, 32]), lt(1, "f32", [32, 48], [64, 1])],
                                 lt(2, "f32", [32, 48]), numpy_attr())])

# ONNX's legacy broadcast rule (Add-1/6, Equal-1).
def legacy(path, kind, t, sa, sb, axis=None):
    attrs = {"broadcast": {"type": "s64", "value": 1}}
    if axis is not None:
        attrs["axis"] = {"type": "s64", "value": axis}
    single(path, kind, t, sa, t, sb, attrs, out_shape=sa)

legacy("op/add_legacy_scalar.json", "Add", "f32", [2, 3, 4, 5], [])
legacy("op/add_legacy_suffix.json", "Add", "f32", [2, 3, 4, 5], [4, 5])
legacy("op/add_legacy_axis1.json", "Add", "f32", [2, 3, 4, 5], [3, 4], 1)
legacy("op/add_legacy_axis0.json", "Add", "s32", [2, 3, 4, 5], [2], 0)
legacy("op/equal_legacy_axis1.json", "Equal", "s64", [2, 3, 4, 5], [3, 4], 1)
single("op/add_legacy_equal_shapes.json", "Add", "f64", [2, 3], "f64", [2, 3], {"broadcast": {"type": "s64", "value": 0}})

# Fused patterns.
chain("pattern/add_chain2_f32.json", "f32", [[64, 1024]] * 3)
chain("pattern/add_chain3_f32.json", "f32", [[64, 1024]] * 4)
chain("pattern/add_chain7_f32.json", "f32", [[64, 1024], [64, 1024], [1024], [64, 1024], [], [64, 1024], [1, 1024], [64, 1024]])
chain("pattern/add_chain3_bf16.json", "bf16", [[64, 1024], [64, 1024], [1024], [64, 1024]])
chain("pattern/add_chain3_s64.json", "s64", [[64, 1024], [64, 1], [1024], [64, 1024]])
chain("pattern/add_add_equal_f32.json", "f32", [[64, 1024], [1024], [64, 1024]], last_kind="Equal")
s = [64, 1024]
write("pattern/add_chain_end_f32.json", [  # End on the intermediate makes it a second output of the chain; each End
    op(0, "Add", [lt(0, "f32", s), lt(1, "f32", s)], lt(4, "f32", s), numpy_attr()),  # is a partition of its own, not run or counted
    op(1, "Add", [lt(4, "f32", s), lt(2, "f32", s)], lt(5, "f32", s), numpy_attr()),
    {"id": 2, "name": "end_2", "kind": "End", "attrs": {}, "inputs": [lt(4, "f32", s)], "outputs": []},
    {"id": 3, "name": "end_3", "kind": "End", "attrs": {}, "inputs": [lt(5, "f32", s)], "outputs": []}])
write("pattern/equal_of_sums_tree.json", [
    op(0, "Add", [lt(0, "f32", s), lt(1, "f32", s)], lt(4, "f32", s), numpy_attr()),
    op(1, "Add", [lt(2, "f32", s), lt(3, "f32", [1024])], lt(5, "f32", s), numpy_attr()),
    op(2, "Equal", [lt(4, "f32", s), lt(5, "f32", s)], lt(6, "boolean", s), numpy_attr())])
write("pattern/fan_out.json", [  # t4 feeds two ops, both in the partition: one pass
    op(0, "Add", [lt(0, "f32", s), lt(1, "f32", s)], lt(4, "f32", s), numpy_attr()),
    op(1, "Add", [lt(4, "f32", s), lt(2, "f32", s)], lt(5, "f32", s), numpy_attr()),
    op(2, "Equal", [lt(4, "f32", s), lt(5, "f32", s)], lt(6, "boolean", s), numpy_attr())])
write("pattern/mixed_chain.json", [  # f32 + bf16 -> f32, then + f16 -> f32
    op(0, "Add", [lt(0, "f32", s), lt(1, "bf16", s)], lt(4, "f32", s), numpy_attr()),
    op(1, "Add", [lt(2, "f16", [1024]), lt(4, "f32", s)], lt(5, "f32", s), numpy_attr())])

# Shapes from real models.
single("model/resnet_residual_add.json", "Add", "f32", [1, 256, 56, 56], "f32", [1, 256, 56, 56])
single("model/bert_bias_add.json", "Add", "f32", [1, 384, 768], "f32", [768])
single("model/small_add.json", "Add", "f32", [16, 13], "f32", [1, 13])

# The performance workloads (L = 64x256x64x64 = 2^26 elements).
L = [64, 256, 64, 64]
single("workloads/w1_add_f32.json", "Add", "f32", L, "f32", L)
single("workloads/w2_add_per_channel_f32.json", "Add", "f32", L, "f32", [1, 256, 1, 1])
chain("workloads/w3_add_chain3_f32.json", "f32", [L] * 4)
single("workloads/w4_equal_f32.json", "Equal", "f32", L, "f32", L)
single("workloads/w5_add_bf16.json", "Add", "bf16", L, "bf16", L)
single("workloads/w5_add_f16.json", "Add", "f16", L, "f16", L)
single("workloads/w5_add_f32_bf16.json", "Add", "f32", L, "bf16", L)
single("workloads/w5_add_bf16_f32.json", "Add", "bf16", L, "f32", L)
single("workloads/w6_add_small.json", "Add", "f32", [16, 13], "f32", [1, 13])
single("workloads/w8_add_bidirectional.json", "Add", "f32", [8192, 1], "f32", [1, 8192])
single("workloads/add_s64.json", "Add", "s64", L, "s64", L)
# The rest of the catalogue at the W1/W2 sizes (--op-kind and --dt vary the two-input ones).
write("workloads/where_f32.json", [op(0, "Where", [lt(0, "boolean", L), lt(1, "f32", L), lt(2, "f32", L)],
                                      lt(3, "f32", L), numpy_attr())])
write("workloads/select_per_channel_f32.json",
      [op(0, "Select", [lt(0, "boolean", [1, 256, 1, 1]), lt(1, "f32", L), lt(2, "f32", L)], lt(3, "f32", L),
          numpy_attr())])
write("workloads/bias_add_f32.json", [op(0, "BiasAdd", [lt(0, "f32", L), lt(1, "f32", [256])], lt(2, "f32", L),
                                         {"data_format": attr_s("NCX")})])
write("workloads/prelu_per_channel_f32.json", [op(0, "PReLU", [lt(0, "f32", L), lt(1, "f32", [256])],
                                                  lt(2, "f32", L), {"data_format": attr_s("NCX")})])
variadic("workloads/sum3_f32.json", "Sum", "f32", [L, L, L])
variadic("workloads/mean3_f32.json", "Mean", "f32", [L, L, L])
write("workloads/pow_beta_f32.json", [op(0, "Pow", [lt(0, "f32", L)], lt(1, "f32", L), {"beta": attr_f(3.0)})])
write("workloads/logical_not_boolean.json", [op(0, "LogicalNot", [lt(0, "boolean", L)], lt(1, "boolean", L))])
UNARY_ATTRS = {"LeakyReLU": {"alpha": attr_f(0.1)}, "Elu": {"alpha": attr_f(0.5)},
               "HardSigmoid": {"alpha": attr_f(0.25), "beta": attr_f(0.4)}, "SoftPlus": {"beta": attr_f(2.0)},
               "Clamp": {"min": attr_f(-0.5), "max": attr_f(2.5)}, "GELU": {"mode": attr_s("gelu_tanh")},
               "Selu": {"alpha": attr_f(1.5), "gamma": attr_f(1.1)}, "IsInf": {"detect_negative": attr_i(0)}}
for kind in ["Abs", "Neg", "Sign", "Floor", "Ceil", "Round", "Sqrt", "Reciprocal", "Square", "ReLU", "LeakyReLU",
             "HardSigmoid", "HardSwish", "Softsign", "Clamp", "Clip", "IsNaN", "IsInf", "Exp", "Log", "Tanh",
             "Sigmoid", "Erf", "Elu", "Selu", "SoftPlus", "Mish", "GELU"]:
    to = "boolean" if kind in ("IsNaN", "IsInf") else "f32"
    write(f"op/{kind.lower()}_f32.json", [op(0, kind, [lt(0, "f32", [7, 33])], lt(1, to, [7, 33]),
                                             UNARY_ATTRS.get(kind))])
write("op/clip_inputs_s32.json", [op(0, "Clip", [lt(0, "s32", [7, 33]), lt(1, "s32", []), lt(2, "s32", [1])],
                                     lt(3, "s32", [7, 33]))])
for src, dst in [("f32", "bf16"), ("f32", "f16"), ("bf16", "f32"), ("f32", "s8"), ("f64", "u16"), ("s64", "f16"),
                 ("boolean", "f32"), ("f32", "boolean"), ("u8", "s64")]:
    write(f"op/cast_{src}_{dst}.json", [op(0, "Cast", [lt(0, src, [7, 33])], lt(1, dst, [7, 33]))])
write("op/typecast_f32_bf16.json", [op(0, "TypeCast", [lt(0, "f32", [7, 33])], lt(1, "bf16", [7, 33]))])
# GELU as PyTorch exports it (Div, Erf, Add, Mul, Mul), one fused region.
G = [4, 16, 96]
write("pattern/gelu_erf_exported_f32.json", [
    op(0, "Divide", [lt(0, "f32", G), lt(1, "f32", [])], lt(10, "f32", G), numpy_attr()),
    op(1, "Erf", [lt(10, "f32", G)], lt(11, "f32", G)),
    op(2, "Add", [lt(11, "f32", G), lt(2, "f32", [])], lt(12, "f32", G), numpy_attr()),
    op(3, "Multiply", [lt(0, "f32", G), lt(12, "f32", G)], lt(13, "f32", G), numpy_attr()),
    op(4, "Multiply", [lt(13, "f32", G), lt(3, "f32", [])], lt(14, "f32", G), numpy_attr())])
# Unary ops: one case per attribute form (the driver's --op-kind switches the kind).
write("workloads/unary_f32.json", [op(0, "Exp", [lt(0, "f32", L)], lt(1, "f32", L))])
write("workloads/clamp_f32.json", [op(0, "Clamp", [lt(0, "f32", L)], lt(1, "f32", L),
                                      {"min": attr_f(-1.0), "max": attr_f(1.0)})])
write("workloads/typecast_f32_bf16.json", [op(0, "TypeCast", [lt(0, "f32", L)], lt(1, "bf16", L))])
write("workloads/cast_f32_s32.json", [op(0, "Cast", [lt(0, "f32", L)], lt(1, "s32", L))])
# BERT's additive mask over BERT-base attention scores: one fused pass.
S, M = [64, 12, 128, 128], [64, 1, 1, 128]
write("workloads/mask_bert_f32.json", [
    op(0, "Subtract", [lt(1, "f32", []), lt(0, "f32", M)], lt(10, "f32", M), numpy_attr()),
    op(1, "Multiply", [lt(10, "f32", M), lt(2, "f32", [])], lt(11, "f32", M), numpy_attr()),
    op(2, "Add", [lt(3, "f32", S), lt(11, "f32", M)], lt(12, "f32", S), numpy_attr())])
write("workloads/mask_distilbert_f32.json", [
    op(0, "Equal", [lt(0, "s64", M), lt(1, "s64", [])], lt(10, "boolean", M), numpy_attr()),
    op(1, "Where", [lt(10, "boolean", M), lt(2, "f32", []), lt(3, "f32", S)], lt(11, "f32", S), numpy_attr())])

# Layouts: channels-last (NHWC strides over NCHW dims), transposing Adds,
# padded rows. P = 32x256x64x64; the perf batch runs them at this size, the
# layouts batch with --mb to check them quickly.
P = [32, 256, 64, 64]


def strided(shape, order, pad=None):
    """Dense strides with dims in `order` (outermost first), dim d padded by pad[d]."""
    pad = pad or [0] * len(shape)
    strides, s = [0] * len(shape), 1
    for d in reversed(order):
        strides[d] = s
        s *= shape[d] + pad[d]
    return strides


NCHW, NHWC = [0, 1, 2, 3], [0, 2, 3, 1]


def layout_single(path, kind, t, orders, shapes=None, pad=None):
    shapes = shapes or [P, P]
    ins = [lt(i, t, sh, strided(sh, o, pad if sh == P else None)) for i, (sh, o) in enumerate(zip(shapes, orders))]
    out = lt(2, out_type(kind, t, t), P, strided(P, orders[2], pad))
    write(path, [op(0, kind, ins, out, numpy_attr())])


layout_single("layout/add_nhwc_f32.json", "Add", "f32", [NHWC, NHWC, NHWC])
layout_single("layout/add_nhwc_bf16.json", "Add", "bf16", [NHWC, NHWC, NHWC])
layout_single("layout/equal_nhwc_f32.json", "Equal", "f32", [NHWC, NHWC, NHWC])
layout_single("layout/add_nhwc_bias_f32.json", "Add", "f32", [NHWC, NCHW, NHWC], shapes=[P, [1, 256, 1, 1]])
layout_single("layout/add_nhwc_to_nchw_f32.json", "Add", "f32", [NHWC, NHWC, NCHW])
layout_single("layout/add_nchw_to_nhwc_f32.json", "Add", "f32", [NCHW, NCHW, NHWC])
layout_single("layout/add_nchw_to_nhwc_bf16.json", "Add", "bf16", [NCHW, NCHW, NHWC])
layout_single("layout/equal_nchw_to_nhwc_f32.json", "Equal", "f32", [NCHW, NCHW, NHWC])
layout_single("layout/add_mixed_f32.json", "Add", "f32", [NHWC, NCHW, NCHW])
layout_single("layout/add_mixed_bf16.json", "Add", "bf16", [NCHW, NHWC, NCHW])
layout_single("layout/add_padded_rows_f32.json", "Add", "f32", [NCHW, NCHW, NCHW], pad=[0, 0, 0, 16])


# Elementwise regions of exported models (BERT-base / GPT-2 layers, f32). Scalars
# are rank-0 constant inputs, as exporters write them.
def const(tid, dtype="f32", shape=None):
    c = lt(tid, dtype, shape if shape is not None else [])
    c["property_type"] = "constant"
    return c


def region(path, steps, inputs, ends=()):
    """steps: (kind, [input ids], output id, attrs) in order; inputs: id -> logical tensor;
    ends: ids of intermediates the framework also reads (an End on each)."""
    known, ops = dict(inputs), []
    for i, (kind, ins, out, attrs) in enumerate(steps):
        shapes = [known[t]["shape"] for t in ins]
        shape = shapes[0]
        for sh in shapes[1:]:
            shape = broadcast(shape, sh)
        if kind == "Where":
            shape = broadcast(broadcast(shapes[0], shapes[1]), shapes[2])
        dtype = "boolean" if kind in COMPARISONS else next(
            known[t]["dtype"] for t in (ins[1:] if kind == "Where" else ins))
        known[out] = lt(out, dtype, shape)
        ops.append(op(i, kind, [known[t] for t in ins], known[out], attrs))
    for t in ends:
        ops.append({"id": len(ops), "name": "end_%d" % len(ops), "kind": "End", "attrs": {}, "inputs": [known[t]],
                    "outputs": []})
    write(path, ops)


X = [64, 128, 3072]
f32 = lambda tid, shape: lt(tid, "f32", shape)  # noqa: E731
region("models/s1_gelu_erf.json", [
    ("Divide", [0, 1], 10, None), ("Erf", [10], 11, None), ("Add", [11, 2], 12, None),
    ("Multiply", [0, 12], 13, None), ("Multiply", [13, 3], 14, None)],
    {0: f32(0, X), 1: const(1), 2: const(2), 3: const(3)})
# x^3 as oneDNN Graph spells it, Pow with beta = 3 (ONNX's Pow(X, 3) holds the 3 in an
# initializer, which a graph case cannot: the driver fills its inputs at random).
region("models/s2_gelu_tanh.json", [
    ("Pow", [0], 10, {"beta": attr_f(3.0)}), ("Multiply", [2, 10], 11, None), ("Add", [0, 11], 12, None),
    ("Multiply", [3, 12], 13, None), ("Tanh", [13], 14, None), ("Add", [4, 14], 15, None),
    ("Multiply", [5, 0], 16, None), ("Multiply", [16, 15], 17, None)],
    {0: f32(0, X), 2: const(2), 3: const(3), 4: const(4), 5: const(5)})
region("models/s3_quick_gelu.json", [
    ("Multiply", [0, 1], 10, None), ("Sigmoid", [10], 11, None), ("Multiply", [0, 11], 12, None)],
    {0: f32(0, X), 1: const(1)})
region("models/s4_bias_gelu_residual.json", [
    ("Add", [0, 1], 10, None), ("GELU", [10], 11, {"mode": {"type": "string", "value": "gelu_erf"}}),
    ("Add", [2, 11], 12, None)],
    {0: f32(0, X), 1: const(1, "f32", [3072]), 2: f32(2, X)})
SCORES, MASK = [64, 12, 128, 128], [64, 1, 1, 128]
region("models/s5_bert_mask.json", [
    ("Subtract", [1, 2], 10, None), ("Multiply", [10, 3], 11, None), ("Add", [0, 11], 12, None)],
    {0: f32(0, SCORES), 1: const(1), 2: f32(2, MASK), 3: const(3)})
region("models/s6_distilbert_mask.json", [
    ("Equal", [1, 2], 10, None), ("Where", [10, 3, 0], 11, None)],
    {0: f32(0, SCORES), 1: lt(1, "s64", MASK), 2: const(2, "s64"), 3: const(3)})
R7 = [8192, 3072]
region("models/s7_layernorm_tail.json", [
    ("Subtract", [0, 1], 10, None), ("Add", [2, 3], 11, None), ("Sqrt", [11], 12, None),
    ("Divide", [10, 12], 13, None), ("Multiply", [13, 4], 14, None), ("Add", [14, 5], 15, None)],
    {0: f32(0, R7), 1: f32(1, [8192, 1]), 2: f32(2, [8192, 1]), 3: const(3), 4: const(4, "f32", [3072]),
     5: const(5, "f32", [3072])})
A8 = [32, 256, 56, 56]
region("models/s8_residual_relu.json", [("Add", [0, 1], 10, None), ("ReLU", [10], 11, None)],
       {0: f32(0, A8), 1: f32(1, A8)})
# S8 with the sum also read by the framework (the next block's residual): one pass, two outputs.
region("models/s8b_residual_relu_two_outputs.json", [("Add", [0, 1], 10, None), ("ReLU", [10], 11, None)],
       {0: f32(0, A8), 1: f32(1, A8)}, ends=[10])
region("models/s9_add.json", [("Add", [0, 1], 10, None)], {0: f32(0, X), 1: f32(1, X)})
