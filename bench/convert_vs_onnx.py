#!/usr/bin/env python3
"""Opset conversion: onnxlegal.convert against onnx.version_converter (python3-onnx), side by side.

    /usr/bin/python3 bench/convert_vs_onnx.py [--sizes 10000,100000,1000000] [--onnx-max 10000]
                                              [--targets 7,9,11,13,17] [--repeat 3] [--no-corpus]

1. The same (model, target opset) pairs for both: every ONNX backend node test of the default
   domain (libonnx-testdata) to each target opset (the targets onnx's converter knows: up to its
   own newest opset). A conversion succeeds when it returns a model (onnx's converter's output is
   not checked further; onnxlegal's is checked by tests/py/test_convert_corpus.py against ONNX
   Runtime). Prints success counts and total time of each.
2. Chains of N nodes at opset 13 (Add, Relu, Mul, Unsqueeze/Squeeze with constant axes, repeated,
   on a [batch, 64] input) converted 13 -> 17: the model is parsed once; the figure is the
   conversion alone (olg_legalize / convert_version on an in-memory model), best of a few runs.
   Also per node (ns), and the ratio of per-node time between the largest and smallest size
   (1.0 = linear). onnx's converter runs up to --onnx-max nodes (it is slow and grows faster).
"""
import argparse
import glob
import os
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bindings", "python"))
NODE = "/usr/share/libonnx-testdata/data/node"


def make_chain(n, path):
    """About n nodes at opset 13, written to path; returns the node count."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    width = 64
    inits = [numpy_helper.from_array(np.full(width, 0.5, np.float32), "b"),
             numpy_helper.from_array(np.full(width, 1.5, np.float32), "s"),
             numpy_helper.from_array(np.array([0], np.int64), "ax")]
    nodes, cur = [], "x"
    make = helper.make_node
    for i in range(n // 5):
        nodes.append(make("Add", [cur, "b"], ["a%d" % i]))
        nodes.append(make("Relu", ["a%d" % i], ["r%d" % i]))
        nodes.append(make("Mul", ["r%d" % i, "s"], ["m%d" % i]))
        nodes.append(make("Unsqueeze", ["m%d" % i, "ax"], ["u%d" % i]))
        nodes.append(make("Squeeze", ["u%d" % i, "ax"], ["q%d" % i]))
        cur = "q%d" % i
    g = helper.make_graph(nodes, "chain", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", width])],
                          [helper.make_tensor_value_info(cur, TensorProto.FLOAT, ["batch", width])], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 7
    with open(path, "wb") as f:
        f.write(m.SerializeToString())
    return len(nodes)


def best(fn, repeat):
    t = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        t = min(t, time.perf_counter() - t0)
    return t


def corpus(targets):
    import onnx
    from onnx import version_converter
    import onnxlegal
    from onnxlegal.lowering import default_registry, legalize
    reg = default_registry()
    models = []
    for path in sorted(glob.glob(os.path.join(NODE, "*", "model.onnx"))):
        pm = onnx.load(path)
        if any(i.domain not in ("", "ai.onnx") for i in pm.opset_import):
            continue
        models.append((path, pm, onnxlegal.Model.read(path)))
    ok = {"onnxlegal": 0, "onnx": 0}
    both = only_olg = only_onnx = 0
    t = {"onnxlegal": 0.0, "onnx": 0.0}
    for path, pm, om in models:
        for target in targets:
            t0 = time.perf_counter()
            try:
                legalize(om, reg, opset=target)
                a = True
            except onnxlegal.Error:
                a = False
            t["onnxlegal"] += time.perf_counter() - t0
            t0 = time.perf_counter()
            try:
                version_converter.convert_version(pm, target)
                b = True
            except Exception:  # noqa: BLE001 - any refusal or crash of the converter
                b = False
            t["onnx"] += time.perf_counter() - t0
            ok["onnxlegal"] += a
            ok["onnx"] += b
            both += a and b
            only_olg += a and not b
            only_onnx += b and not a
    pairs = len(models) * len(targets)
    print("backend node tests: %d models x targets %s = %d (model, opset) pairs" % (len(models), list(targets), pairs))
    print("  %-10s converted %5d (%5.1f%%)  in %7.2f s" % ("onnxlegal", ok["onnxlegal"], 100.0 * ok["onnxlegal"] / pairs, t["onnxlegal"]))
    print("  %-10s converted %5d (%5.1f%%)  in %7.2f s" % ("onnx", ok["onnx"], 100.0 * ok["onnx"] / pairs, t["onnx"]))
    print("  both %d, only onnxlegal %d, only onnx %d; time ratio onnx/onnxlegal %.1fx" % (
        both, only_olg, only_onnx, t["onnx"] / max(t["onnxlegal"], 1e-9)))


def chains(sizes, onnx_max, repeat):
    import onnx
    from onnx import version_converter
    import onnxlegal
    from onnxlegal.lowering import default_registry, legalize
    reg = default_registry()
    rows = []
    with tempfile.TemporaryDirectory(prefix="olg-convert-bench-") as tmp:
        for n in sizes:
            path = os.path.join(tmp, "chain%d.onnx" % n)
            nodes = make_chain(n, path)
            t0 = time.perf_counter()
            src = onnxlegal.Model.read(path)
            t_read = time.perf_counter() - t0
            reps = max(1, min(repeat, 1000000 // nodes))
            t_olg = best(lambda: legalize(src, reg, opset=17).close(), reps)
            out = legalize(src, reg, opset=17)
            t0 = time.perf_counter()
            data = out.to_bytes()
            t_write = time.perf_counter() - t0
            assert out.opset("") == 17 and len(data) > 0
            out.close()
            t_onnx = None
            if nodes <= onnx_max:
                pm = onnx.load(path)
                t_onnx = best(lambda: version_converter.convert_version(pm, 17), 1)
            rows.append((nodes, t_read, t_olg, t_write, t_onnx))
            print("chain %8d nodes 13->17: onnxlegal %8.3f s (%6.0f ns/node; read %.3f s, write %.3f s)%s" % (
                nodes, t_olg, 1e9 * t_olg / nodes, t_read, t_write,
                "" if t_onnx is None else "   onnx %8.3f s  (%.0fx onnxlegal)" % (t_onnx, t_onnx / t_olg)), flush=True)
    if len(rows) > 1:
        a, b = rows[0], rows[-1]
        print("per-node time %d -> %d nodes: x%.2f (1.0 = linear)" % (a[0], b[0], (b[2] / b[0]) / (a[2] / a[0])))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="10000,100000,1000000")
    ap.add_argument("--onnx-max", type=int, default=10000)
    ap.add_argument("--targets", default="7,9,11,13,17")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-corpus", action="store_true")
    a = ap.parse_args()
    if not a.no_corpus and os.path.isdir(NODE):
        corpus([int(t) for t in a.targets.split(",")])
    chains([int(s) for s in a.sizes.split(",")], a.onnx_max, a.repeat)


if __name__ == "__main__":
    main()
