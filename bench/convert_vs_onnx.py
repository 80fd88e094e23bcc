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
   Times are CPU seconds of this process (time.process_time), not wall time.
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
    """The best of `repeat` runs, in CPU seconds of this process (on a shared machine the wall
    clock mostly measures the other processes)."""
    t = float("inf")
    for _ in range(repeat):
        t0 = time.process_time()
        fn()
        t = min(t, time.process_time() - t0)
    return t


def onnx_worker(listfile, start):
    """Child process: converts the (path, target) pairs of listfile from index start with onnx's
    converter, printing "index ok seconds" per pair (a crash of the converter kills only this
    process; the parent counts that pair as failed and starts a new worker after it)."""
    import onnx
    from onnx import version_converter
    with open(listfile) as f:
        pairs = [line.split() for line in f.read().splitlines()]
    cache = {}
    for i in range(start, len(pairs)):
        path, target = pairs[i][0], int(pairs[i][1])
        if path not in cache:
            cache.clear()
            cache[path] = onnx.load(path)
        t0 = time.process_time()
        try:
            version_converter.convert_version(cache[path], target)
            ok = 1
        except Exception:  # noqa: BLE001 - any refusal of the converter
            ok = 0
        print(i, ok, time.process_time() - t0, flush=True)


def run_onnx_side(pairs):
    """{index: (ok, seconds)} from worker processes; a crashed pair is (0, 0.0)."""
    import subprocess
    res = {}
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write("".join("%s %d\n" % p for p in pairs))
        listfile = f.name
    try:
        start, crashes = 0, 0
        while start < len(pairs):
            proc = subprocess.run([sys.executable, os.path.abspath(__file__), "--onnx-worker", listfile, str(start)],
                                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
            last = start - 1
            for line in proc.stdout.splitlines():
                i, ok, dt = line.split()
                res[int(i)] = (int(ok), float(dt))
                last = int(i)
            if proc.returncode == 0:
                break
            crashes += 1
            res[last + 1] = (0, 0.0)
            start = last + 2
        return res, crashes
    finally:
        os.unlink(listfile)


def corpus(targets):
    import onnx
    import onnxlegal
    from onnxlegal.lowering import default_registry, legalize
    reg = default_registry()
    pairs, olg_ok, t_olg = [], [], 0.0
    for path in sorted(glob.glob(os.path.join(NODE, "*", "model.onnx"))):
        pm = onnx.load(path)
        if any(i.domain not in ("", "ai.onnx") for i in pm.opset_import):
            continue
        om = onnxlegal.Model.read(path)
        for target in targets:
            t0 = time.process_time()
            try:
                legalize(om, reg, opset=target).close()
                ok = 1
            except onnxlegal.Error:
                ok = 0
            t_olg += time.process_time() - t0
            pairs.append((path, target))
            olg_ok.append(ok)
    res, crashes = run_onnx_side(pairs)
    onnx_ok = [res.get(i, (0, 0.0))[0] for i in range(len(pairs))]
    t_onnx = sum(v[1] for v in res.values())
    n = len(pairs)
    both = sum(a and b for a, b in zip(olg_ok, onnx_ok))
    print("backend node tests: %d (model, opset) pairs, targets %s" % (n, list(targets)))
    print("  %-10s converted %5d (%5.1f%%)  in %7.2f s CPU" % ("onnxlegal", sum(olg_ok), 100.0 * sum(olg_ok) / n, t_olg))
    print("  %-10s converted %5d (%5.1f%%)  in %7.2f s CPU  (%d crashes of the converter)" % (
        "onnx", sum(onnx_ok), 100.0 * sum(onnx_ok) / n, t_onnx, crashes))
    print("  both %d, only onnxlegal %d, only onnx %d; time onnx/onnxlegal %.1fx" % (
        both, sum(olg_ok) - both, sum(onnx_ok) - both, t_onnx / max(t_olg, 1e-9)))


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
            t0 = time.process_time()
            src = onnxlegal.Model.read(path)
            t_read = time.process_time() - t0
            reps = max(1, min(repeat, 1000000 // nodes))
            t_olg = best(lambda: legalize(src, reg, opset=17).close(), reps)
            out = legalize(src, reg, opset=17)
            t0 = time.process_time()
            data = out.to_bytes()
            t_write = time.process_time() - t0
            assert out.opset("") == 17 and len(data) > 0
            out.close()
            t_onnx = None
            if nodes <= onnx_max:
                pm = onnx.load(path)
                t_onnx = best(lambda: version_converter.convert_version(pm, 17), 1)
            rows.append((nodes, t_read, t_olg, t_write, t_onnx))
            print("chain %8d nodes 13->17: onnxlegal %8.3f s CPU (%6.0f ns/node; read %.3f s, write %.3f s)%s" % (
                nodes, t_olg, 1e9 * t_olg / nodes, t_read, t_write,
                "" if t_onnx is None else "   onnx %8.3f s  (%.0fx onnxlegal)" % (t_onnx, t_onnx / t_olg)), flush=True)
    if len(rows) > 1:
        a, b = rows[0], rows[-1]
        print("per-node time %d -> %d nodes: x%.2f (1.0 = linear)" % (a[0], b[0], (b[2] / b[0]) / (a[2] / a[0])))


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--onnx-worker":
        onnx_worker(sys.argv[2], int(sys.argv[3]))
        return
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
