#!/usr/bin/python3
"""fusebox beside ONNX Runtime and numpy on the model regions S1-S9.

Each region (doc/PERFORMANCE.md, "Model regions") is written as an ONNX model
the way PyTorch exports it (exact GELU as Div -> Erf -> Add -> Mul -> Mul,
weights and scalars as initializers) and run, interleaved round by round on
the same machine, by:

  * fusebox: `fusebox-benchdnn --mode=P` on benchdnn_cases/models/<case>.json
    (its fastest execute);
  * ONNX Runtime's CPU provider (onnxruntime-node from npm, installed into the
    scratch folder): all graph optimizations, the same threads, its own
    profiler's run time per Run (fastest and median);
  * numpy (one thread: numpy's elementwise ufuncs do not thread), scipy's erf
    where the region has one; its fastest call.

A benchmark, not a test: run it by hand on an idle machine (minutes).

  scripts/peers/compare.py [--build build/release] [--threads 2] [--rounds 3]
                           [--regions S1,S5] [--scratch DIR] [--out FILE]

Needs Debian's nodejs, npm, python3-onnx, python3-numpy and python3-scipy
(installed with apt-get when missing and run as root).
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
ORT_VERSION = "1.30.0"


def ensure_packages():
    missing = []
    for module, package in (("onnx", "python3-onnx"), ("numpy", "python3-numpy"), ("scipy", "python3-scipy")):
        try:
            __import__(module)
        except ImportError:
            missing.append(package)
    for tool, package in (("node", "nodejs"), ("npm", "npm")):
        if shutil.which(tool) is None:
            missing.append(package)
    if not missing:
        return
    if os.geteuid() != 0:
        sys.exit("compare.py: missing %s; install them: sudo apt-get install %s" % (", ".join(missing), " ".join(missing)))
    subprocess.run(["apt-get", "install", "-y", "--no-install-recommends"] + missing, check=True)
    os.execv(sys.executable, [sys.executable] + sys.argv)  # import them afresh


def ensure_ort(scratch):
    """onnxruntime-node in scratch/node_modules; its CUDA download skipped."""
    if os.path.isdir(os.path.join(scratch, "node_modules", "onnxruntime-node")):
        return
    os.makedirs(scratch, exist_ok=True)
    env = dict(os.environ, ONNXRUNTIME_NODE_INSTALL="skip")
    subprocess.run(["npm", "install", "--prefix", scratch, "--no-audit", "--no-fund", "--ignore-scripts",
                    "onnxruntime-node@" + ORT_VERSION], check=True, env=env)


# ---- the regions: ONNX graph, numpy function, inputs ----

X = [64, 128, 3072]
SCORES, MASK = [64, 12, 128, 128], [64, 1, 1, 128]
LN_X, LN_ROW, LN_COL = [8192, 3072], [8192, 1], [3072]
RES = [32, 256, 56, 56]


def regions():
    import numpy as np
    from onnx import TensorProto, helper, numpy_helper
    from scipy.special import erf

    f32 = np.float32

    def scalar(name, v, dtype=f32):
        return numpy_helper.from_array(np.array(v, dtype=dtype), name)

    rng = np.random.default_rng(7)

    def vector(name, shape):
        return numpy_helper.from_array(rng.uniform(-1, 1, shape).astype(f32), name)

    # (name, case, nodes [(op, inputs, output)], inputs [(name, type, shape, lo, hi)], initializers, numpy fn)
    r = []
    r.append(("S1", "s1_gelu_erf", [
        ("Div", ["x", "sqrt2"], "a"), ("Erf", ["a"], "b"), ("Add", ["b", "one"], "c"),
        ("Mul", ["x", "c"], "d"), ("Mul", ["d", "half"], "y")],
        [("x", "float32", X, -4, 4)],
        [scalar("sqrt2", 1.41421356), scalar("one", 1.0), scalar("half", 0.5)],
        lambda x: x * (erf(x / f32(1.41421356)) + f32(1)) * f32(0.5)))
    r.append(("S2", "s2_gelu_tanh", [
        ("Pow", ["x", "three"], "p"), ("Mul", ["k1", "p"], "q"), ("Add", ["x", "q"], "s"),
        ("Mul", ["k0", "s"], "t"), ("Tanh", ["t"], "u"), ("Add", ["one", "u"], "v"),
        ("Mul", ["half", "x"], "w"), ("Mul", ["w", "v"], "y")],
        [("x", "float32", X, -4, 4)],
        [scalar("three", 3.0), scalar("k1", 0.044715), scalar("k0", 0.79788456), scalar("one", 1.0),
         scalar("half", 0.5)],
        lambda x: (f32(0.5) * x) * (f32(1) + np.tanh(f32(0.79788456) * (x + f32(0.044715) * np.power(x, f32(3)))))))
    r.append(("S3", "s3_quick_gelu", [
        ("Mul", ["x", "k"], "a"), ("Sigmoid", ["a"], "b"), ("Mul", ["x", "b"], "y")],
        [("x", "float32", X, -4, 4)], [scalar("k", 1.702)],
        lambda x: x * (f32(1) / (f32(1) + np.exp(-(x * f32(1.702)))))))
    bias = vector("bias", [3072])
    bias_np = numpy_helper.to_array(bias)
    r.append(("S4", "s4_bias_gelu_residual", [
        ("Add", ["x", "bias"], "h"), ("Div", ["h", "sqrt2"], "a"), ("Erf", ["a"], "b"),
        ("Add", ["b", "one"], "c"), ("Mul", ["h", "c"], "d"), ("Mul", ["d", "half"], "g"),
        ("Add", ["r", "g"], "y")],
        [("x", "float32", X, -4, 4), ("r", "float32", X, -4, 4)],
        [bias, scalar("sqrt2", 1.41421356), scalar("one", 1.0), scalar("half", 0.5)],
        lambda x, res: res + (lambda h: h * (erf(h / f32(1.41421356)) + f32(1)) * f32(0.5))(x + bias_np)))
    r.append(("S5", "s5_bert_mask", [
        ("Sub", ["one", "mask"], "a"), ("Mul", ["a", "big"], "b"), ("Add", ["scores", "b"], "y")],
        [("scores", "float32", SCORES, -8, 8), ("mask", "float32", MASK, 0, 1)],
        [scalar("one", 1.0), scalar("big", -10000.0)],
        lambda s, m: s + (f32(1) - m) * f32(-10000)))
    r.append(("S6", "s6_distilbert_mask", [
        ("Equal", ["mask", "zero"], "c"), ("Where", ["c", "lowest", "scores"], "y")],
        [("scores", "float32", SCORES, -8, 8), ("mask", "int64", MASK, 0, 1)],
        [scalar("zero", 0, np.int64), scalar("lowest", -3.4028234e38)],
        lambda s, m: np.where(m == 0, f32(-3.4028234e38), s)))
    gamma, beta = vector("gamma", LN_COL), vector("beta", LN_COL)
    g_np, b_np = numpy_helper.to_array(gamma), numpy_helper.to_array(beta)
    r.append(("S7", "s7_layernorm_tail", [
        ("Sub", ["x", "mean"], "a"), ("Add", ["var", "eps"], "b"), ("Sqrt", ["b"], "c"),
        ("Div", ["a", "c"], "d"), ("Mul", ["d", "gamma"], "e"), ("Add", ["e", "beta"], "y")],
        [("x", "float32", LN_X, -4, 4), ("mean", "float32", LN_ROW, -1, 1), ("var", "float32", LN_ROW, 0.5, 2)],
        [scalar("eps", 1e-5), gamma, beta],
        lambda x, mean, var: (x - mean) / np.sqrt(var + f32(1e-5)) * g_np + b_np))
    r.append(("S8", "s8_residual_relu", [("Add", ["a", "b"], "s"), ("Relu", ["s"], "y")],
              [("a", "float32", RES, -4, 4), ("b", "float32", RES, -4, 4)], [],
              lambda a, b: np.maximum(a + b, f32(0))))
    r.append(("S9", "s9_add", [("Add", ["a", "b"], "y")],
              [("a", "float32", X, -4, 4), ("b", "float32", X, -4, 4)], [], lambda a, b: a + b))

    built = []
    for name, case, nodes, inputs, inits, fn in r:
        types = {"float32": TensorProto.FLOAT, "int64": TensorProto.INT64}
        graph = helper.make_graph(
            [helper.make_node(op, ins, [out], name="%s_%d" % (op.lower(), i)) for i, (op, ins, out) in enumerate(nodes)],
            name, [helper.make_tensor_value_info(n, types[t], s) for n, t, s, _, _ in inputs],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="fusebox")
        model.ir_version = 8
        built.append((name, case, model, inputs, fn, len(nodes)))
    return built


def numpy_inputs(inputs):
    import numpy as np
    rng = np.random.default_rng(11)
    out = []
    for _, t, shape, lo, hi in inputs:
        if t == "int64":
            out.append(rng.integers(lo, hi + 1, shape, dtype=np.int64))
        else:
            out.append(rng.uniform(lo, hi, shape).astype(np.float32))
    return out


# The regions' scalar constants as the models above give them (ids of the
# cases' JSON), as benchdnn_cases/perf sets them; S7's variance one value, 1
# (drawn from [0.5, 2] for the peers: the same speed either way).
IN_VALUES = {
    "s1_gelu_erf": "1:1.41421356+2:1+3:0.5",
    "s2_gelu_tanh": "2:0.044715+3:0.79788456+4:1+5:0.5",
    "s3_quick_gelu": "1:1.702",
    "s5_bert_mask": "1:1+3:-10000",
    "s6_distilbert_mask": "2:0+3:-3.4028234e38",
    "s7_layernorm_tail": "2:1+3:1e-5",
}


def run_fusebox(driver, case, threads):
    cmd = [driver, "--mode=P", "--num-threads=%d" % threads,
           "--case=" + os.path.join(ROOT, "benchdnn_cases", "models", case + ".json")]
    if case in IN_VALUES:
        cmd.insert(-1, "--in-values=" + IN_VALUES[case])
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        if line.startswith("| `"):
            cells = [c.strip() for c in line.strip("|").split("|")]
            return float(cells[4]), cells[7]
    sys.exit("compare.py: no result row from " + " ".join(cmd) + "\n" + out)


def run_ort(scratch, model_path, inputs_path, threads, runs):
    env = dict(os.environ, NODE_PATH=os.path.join(scratch, "node_modules"))
    out = subprocess.run(["node", os.path.join(HERE, "ort_run.js"), model_path, inputs_path, str(threads), str(runs)],
                         check=True, capture_output=True, text=True, env=env).stdout
    return json.loads(out.strip().splitlines()[-1])


def run_numpy(fn, args, runs):
    best = float("inf")
    for _ in range(runs):
        t0 = time.perf_counter()
        fn(*args)
        best = min(best, time.perf_counter() - t0)
    return best * 1e6


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build", default=os.path.join(ROOT, "build", "release"))
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--ort-runs", type=int, default=10)
    p.add_argument("--numpy-runs", type=int, default=3)
    p.add_argument("--regions", default="S1,S2,S3,S4,S5,S6,S7,S8,S9")
    p.add_argument("--scratch", default=os.path.join(ROOT, "build", "peers"))
    p.add_argument("--out", help="also write the table here")
    args = p.parse_args()
    ensure_packages()
    import onnx
    driver = os.path.join(args.build, "tools", "fusebox-benchdnn")
    if not os.access(driver, os.X_OK):
        sys.exit("compare.py: no " + driver + " (build fusebox first: cmake --preset release && cmake --build --preset release)")
    ensure_ort(args.scratch)
    wanted = args.regions.split(",")
    todo = [r for r in regions() if r[0] in wanted]
    fb, ort_min, ort_med, npy, kernels, roof = {}, {}, {}, {}, {}, {}
    for name, case, model, inputs, fn, _ in todo:
        path = os.path.join(args.scratch, case + ".onnx")
        onnx.save(model, path)
        with open(os.path.join(args.scratch, case + ".inputs.json"), "w") as f:
            json.dump([{"name": n, "type": t, "shape": s, "lo": lo, "hi": hi} for n, t, s, lo, hi in inputs], f)
    for rnd in range(args.rounds):
        for name, case, model, inputs, fn, _ in todo:
            us, fraction = run_fusebox(driver, case, args.threads)
            if us < fb.get(name, float("inf")):
                fb[name], roof[name] = us, fraction
            o = run_ort(args.scratch, os.path.join(args.scratch, case + ".onnx"),
                        os.path.join(args.scratch, case + ".inputs.json"), args.threads, args.ort_runs)
            runs = sorted(o["runs"])
            ort_min[name] = min(ort_min.get(name, runs[0]), runs[0])
            ort_med[name] = min(ort_med.get(name, runs[len(runs) // 2]), runs[len(runs) // 2])
            kernels[name] = o["nodes"]
            np_args = numpy_inputs(inputs)
            us = run_numpy(fn, np_args, args.numpy_runs)
            npy[name] = min(npy.get(name, us), us)
            del np_args
            print("round %d %s: fusebox %.0f us, ORT %.0f us, numpy %.0f us" % (rnd + 1, name, fb[name], ort_min[name],
                                                                              npy[name]), file=sys.stderr)
    lines = ["| region | ONNX nodes | fusebox ms | its fraction of the roof | ONNX Runtime ms (fastest / median) | its kernels | numpy ms "
             "(1 thread) | fusebox vs ORT | fusebox vs numpy |",
             "|---|---|---|---|---|---|---|---|---|"]
    for name, case, model, inputs, fn, n_nodes in todo:
        ks = ", ".join("%s%s" % (k, " x%d" % c if c > 1 else "") for k, c in kernels[name])
        lines.append("| %s | %d | %.2f | %s | %.2f / %.2f | %s | %.1f | %.2fx | %.1fx |" % (
            name, n_nodes, fb[name] / 1e3, roof[name], ort_min[name] / 1e3, ort_med[name] / 1e3, ks, npy[name] / 1e3,
            ort_min[name] / fb[name], npy[name] / fb[name]))
    table = "\n".join(lines)
    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(l.split(":", 1)[1].strip() for l in f if l.startswith("model name"))
    except (OSError, StopIteration):
        pass
    head = "%s; %d threads (numpy 1); %d rounds interleaved; ONNX Runtime %s (onnxruntime-node)" % (
        cpu, args.threads, args.rounds, ORT_VERSION)
    print(head + "\n\n" + table)
    if args.out:
        with open(args.out, "w") as f:
            f.write(head + "\n\n" + table + "\n")


if __name__ == "__main__":
    main()
