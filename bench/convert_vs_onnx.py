#!/usr/bin/env python3
"""Opset conversion: onnxlegal.convert against onnx.version_converter (python3-onnx), side by side.

    /usr/bin/python3 bench/convert_vs_onnx.py [--sizes 10000,100000,1000000] [--onnx-max 10000]
                                              [--targets 7,9,11,13,17] [--repeat 3] [--no-corpus]
                                              [--weights-mb 1536] [--no-weights] [--onnx-weights]
                                              [--ifs 2000,20000]

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
   Times are CPU seconds of this process (time.process_time), not wall time. Then the command
   line end to end (`onnxlegal convert`: read, convert, write) per size: wall seconds (the best
   of --repeat runs) and the peak resident memory of the process (GNU time's, where installed),
   also per node beyond the input file's size, and beyond that and the process's own (a 5-node
   chain's peak). And the reading rate (MB/s) of the largest size in a fresh process, for the
   chain and for the same chain named as torch.onnx.export names nodes and values.
   Then a chain of If nodes with a one-node branch either side (--ifs counts): wall time and
   peak RSS per If, the cost of a subgraph.
3. Weights in external data (issue 23): 24 MatMul blocks at opset 13 whose weights total
   --weights-mb MiB in one data file, converted 13 -> 17 by `onnxlegal convert` three ways --
   weights loaded and written back inline is impossible past 2 GiB, so: into a new data file
   (--external-data), and by reference to the source's (--external-data=reference) -- each with
   wall time and peak RSS, beside `cp` of the data file; with --onnx-weights also onnx's
   converter (load with external data, convert, save with external data).
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


def make_chain(n, path, torch_names=False):
    """About n nodes at opset 13 (Add, Relu, Mul, Unsqueeze, Squeeze, repeated), written to path;
    returns the node count. Short value names and no node names (the most nodes per byte), or
    with torch_names the names torch.onnx.export gives: a scoped name for every node
    ("/blocks.7/mlp/Add") and "<node>_output_0" for its output."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    width = 64
    b, s, ax, cur = (("blocks.bias", "blocks.scale", "onnx::Unsqueeze_axes", "input") if torch_names
                     else ("b", "s", "ax", "x"))
    inits = [numpy_helper.from_array(np.full(width, 0.5, np.float32), b),
             numpy_helper.from_array(np.full(width, 1.5, np.float32), s),
             numpy_helper.from_array(np.array([0], np.int64), ax)]
    first, nodes = cur, []
    steps = (("Add", b, "a"), ("Relu", None, "r"), ("Mul", s, "m"), ("Unsqueeze", ax, "u"),
             ("Squeeze", ax, "q"))
    for i in range(n // 5):
        for op, second, short in steps:
            name = "/blocks.%d/mlp/%s" % (i, op) if torch_names else None
            out = name + "_output_0" if torch_names else "%s%d" % (short, i)
            nodes.append(helper.make_node(op, [cur] + ([second] if second else []), [out], name=name))
            cur = out
    g = helper.make_graph(nodes, "main_graph" if torch_names else "chain",
                          [helper.make_tensor_value_info(first, TensorProto.FLOAT, ["batch", width])],
                          [helper.make_tensor_value_info(cur, TensorProto.FLOAT, ["batch", width])], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 7
    with open(path, "wb") as f:
        f.write(m.SerializeToString())
    return len(nodes)


READ_CHILD = """
import sys, time
sys.path.insert(0, sys.argv[1])
import onnxlegal
t0 = time.process_time()
m = onnxlegal.Model.read(sys.argv[2])
print(time.process_time() - t0)
"""


def reading(n, repeat):
    """Issue 23's reading rate: olg_model_read_file of a node-dense model in a fresh process (a
    reused heap would hide the kernel's cost of the IR's pages), CPU seconds (user + system) of
    the read alone, best of `repeat` processes; two shapes of n nodes: make_chain's, with short
    names and with torch_names."""
    import subprocess
    with tempfile.TemporaryDirectory(prefix="olg-read-bench-") as tmp:
        for shape, torch_names in (("chain", False), ("named chain", True)):
            path = os.path.join(tmp, "m.onnx")
            nodes = make_chain(n, path, torch_names)
            size = os.path.getsize(path)
            t = min(float(subprocess.run([sys.executable, "-c", READ_CHILD, os.path.join(ROOT, "bindings", "python"), path],
                                         check=True, capture_output=True, text=True).stdout)
                    for _ in range(repeat))
            print("read %-11s %8d nodes, %6.1f MB: %.3f s CPU, %4.0f MB/s, %4.0f ns/node" % (
                shape, nodes, size / 1e6, t, size / 1e6 / t, 1e9 * t / nodes), flush=True)
            os.unlink(path)


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


def _run_measured(cmd):
    """(wall seconds, peak RSS in MiB) of cmd. Measured by GNU time where it is installed: the
    command is its child, forked from a small process. Otherwise cmd runs in a child of a fresh
    Python child, whose own RSS (about 10 MiB) exec carries into the command's maximum: then a
    small command's figure is that floor, not its own."""
    import json
    import subprocess
    if os.path.exists("/usr/bin/time"):
        with tempfile.NamedTemporaryFile(prefix="olg-rss-", suffix=".txt") as f:
            t = time.perf_counter()
            r = subprocess.run(["/usr/bin/time", "-o", f.name, "-f", "%M"] + cmd,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            wall = time.perf_counter() - t
            if r.returncode != 0:
                raise RuntimeError("%s failed: %s" % (" ".join(cmd[:3]), r.stderr.decode()[-300:]))
            return wall, int(f.read().split()[-1]) / 1024.0
    probe = ("import json, resource, subprocess, sys, time; t = time.perf_counter(); "
             "r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE); "
             "print(json.dumps([r.returncode, time.perf_counter() - t, "
             "resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0, r.stderr.decode()[-300:]]))")
    out = subprocess.run([sys.executable, "-c", probe] + cmd, capture_output=True, text=True)
    rc, wall, rss, err = json.loads(out.stdout)
    if rc != 0:
        raise RuntimeError("%s failed: %s" % (" ".join(cmd[:3]), err))
    return wall, rss


def _tool():
    build = os.environ.get("ONNXLEGAL_BUILD", os.path.join(ROOT, "build"))
    return os.path.join(build, "bin", "onnxlegal")


def cli_chains(sizes, repeat=1):
    """onnxlegal convert end to end on the chain models: wall time (the best of `repeat` runs, as
    the CPU times above) and peak RSS (the largest), per node beyond the input file, and also
    beyond the process's own (a 5-node chain's peak: the program, libc, the registry), which
    dominates the smallest size."""
    with tempfile.TemporaryDirectory(prefix="olg-convert-bench-") as tmp:
        def convert(n):
            path = os.path.join(tmp, "chain%d.onnx" % n)
            nodes = make_chain(n, path)
            runs = [_run_measured([_tool(), "convert", path, os.path.join(tmp, "out.onnx"), "--opset", "17"])
                    for _ in range(repeat)]
            return (nodes, os.path.getsize(path), min(w for w, _ in runs), max(r for _, r in runs))
        _, _, _, base = convert(5)
        for n in sizes:
            nodes, size, wall, rss = convert(n)
            beyond = max(rss * 1048576 - size, 0) / nodes
            own = max((rss - base) * 1048576 - size, 0) / nodes
            print("cli   %8d nodes 13->17: %7.3f s wall, peak RSS %7.1f MiB (%5.0f bytes/node beyond the "
                  "%.1f MiB input, %4.0f beyond it and the process's own %.1f MiB)"
                  % (nodes, wall, rss, beyond, size / 1048576.0, own, base), flush=True)


def make_if_chain(n, path):
    """n If nodes at opset 13 in a chain, each with a one-node branch either side (Relu, Neg of
    the value before it): a model that is mostly subgraphs, as control flow exported per step
    is. Returns the number of subgraphs."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    def vi(name):
        return helper.make_tensor_value_info(name, TensorProto.FLOAT, [4])
    nodes, cur = [], "x"
    for i in range(n):
        then = helper.make_graph([helper.make_node("Relu", [cur], ["t%d" % i])], "then%d" % i, [], [vi("t%d" % i)])
        other = helper.make_graph([helper.make_node("Neg", [cur], ["e%d" % i])], "else%d" % i, [], [vi("e%d" % i)])
        nodes.append(helper.make_node("If", ["c"], ["i%d" % i], then_branch=then, else_branch=other))
        cur = "i%d" % i
    g = helper.make_graph(nodes, "ifs", [vi("x")], [vi(cur)], [numpy_helper.from_array(np.array(True), "c")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 7
    with open(path, "wb") as f:
        f.write(m.SerializeToString())
    return 2 * n


def cli_ifs(counts):
    """onnxlegal convert on If chains (make_if_chain): wall time and peak RSS per If, at each
    count, so that the cost of a subgraph shows (a graph's maps, arrays and records)."""
    with tempfile.TemporaryDirectory(prefix="olg-convert-bench-") as tmp:
        for n in counts:
            path = os.path.join(tmp, "ifs%d.onnx" % n)
            make_if_chain(n, path)
            size = os.path.getsize(path)
            wall, rss = _run_measured([_tool(), "convert", path, os.path.join(tmp, "out.onnx"), "--opset", "17"])
            print("ifs   %8d Ifs (2 one-node branches each) 13->17: %7.3f s wall (%5.1f us/If), peak RSS "
                  "%7.1f MiB (%5.0f bytes/If beyond the %.1f MiB input)" % (
                      n, wall, 1e6 * wall / n, rss, max(rss * 1048576 - size, 0) / n, size / 1048576.0),
                  flush=True)


def make_weights_model(mb, d):
    """24 MatMul+Relu blocks at opset 13, weights of about mb MiB in one external data file."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    blocks = 24
    width = max(16, int((mb * 1048576 / 4 / blocks) ** 0.5))
    nodes, inits, cur = [], [], "x"
    data_path = os.path.join(d, "weights.bin")
    with open(data_path, "wb") as f:
        for i in range(blocks):
            w = np.full((width, width), 1.0 / width, np.float32)
            t = numpy_helper.from_array(np.zeros((1, 1), np.float32), "w%d" % i)
            t.ClearField("raw_data")
            t.dims[:] = [width, width]
            t.data_location = TensorProto.EXTERNAL
            for k, v in (("location", "weights.bin"), ("offset", str(f.tell())), ("length", str(w.nbytes))):
                e = t.external_data.add()
                e.key, e.value = k, v
            f.write(w.tobytes())
            inits.append(t)
            nodes.append(helper.make_node("MatMul", [cur, "w%d" % i], ["h%d" % i]))
            nodes.append(helper.make_node("Relu", ["h%d" % i], ["r%d" % i]))
            cur = "r%d" % i
    g = helper.make_graph(nodes, "weights", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", width])],
                          [helper.make_tensor_value_info(cur, TensorProto.FLOAT, ["batch", width])], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 7
    path = os.path.join(d, "model.onnx")
    onnx.save(m, path)
    return path, data_path


def weights(mb, with_onnx):
    import shutil
    with tempfile.TemporaryDirectory(prefix="olg-weights-bench-", dir=os.environ.get("TMPDIR")) as tmp:
        path, data = make_weights_model(mb, tmp)
        size = os.path.getsize(data) / 1048576.0
        t_cp, rss_cp = _run_measured(["cp", data, os.path.join(tmp, "copy.bin")])
        os.unlink(os.path.join(tmp, "copy.bin"))
        print("weights: %.0f MiB in external data, 13->17 (cp of the data file: %.2f s, %.0f MiB RSS)"
              % (size, t_cp, rss_cp), flush=True)
        out = os.path.join(tmp, "out.onnx")
        for mode in ("--external-data", "--external-data=reference"):
            wall, rss = _run_measured([_tool(), "convert", path, out, "--opset", "17", mode])
            print("  onnxlegal %-26s %7.2f s wall (%.1fx cp), peak RSS %7.1f MiB" % (mode, wall, wall / max(t_cp, 1e-3), rss),
                  flush=True)
            for f in os.listdir(tmp):
                if f.startswith("out.onnx"):
                    os.unlink(os.path.join(tmp, f))
        if with_onnx:
            code = ("import onnx, sys; from onnx import version_converter; m = onnx.load(sys.argv[1]); "
                    "m = version_converter.convert_version(m, 17); "
                    "onnx.save(m, sys.argv[2], save_as_external_data=True, location='out.bin')")
            wall, rss = _run_measured([sys.executable, "-c", code, path, out])
            print("  onnx converter                       %7.2f s wall (%.1fx cp), peak RSS %7.1f MiB" % (
                wall, wall / max(t_cp, 1e-3), rss), flush=True)
        shutil.rmtree(tmp, ignore_errors=True)


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
    ap.add_argument("--weights-mb", type=int, default=1536)
    ap.add_argument("--no-weights", action="store_true")
    ap.add_argument("--ifs", default="2000,20000", help="If counts of the subgraph-heavy chain ('' skips it)")
    ap.add_argument("--onnx-weights", action="store_true", help="also onnx's converter on the weights model (slow, large RSS)")
    a = ap.parse_args()
    if not a.no_corpus and os.path.isdir(NODE):
        corpus([int(t) for t in a.targets.split(",")])
    sizes = [int(s) for s in a.sizes.split(",")]
    chains(sizes, a.onnx_max, a.repeat)
    reading(max(sizes), a.repeat)
    cli_chains(sizes, a.repeat)
    cli_ifs([int(n) for n in a.ifs.split(",") if n])
    if not a.no_weights:
        weights(a.weights_mb, a.onnx_weights)


if __name__ == "__main__":
    main()
