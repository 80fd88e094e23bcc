#!/usr/bin/env python3
"""Validation plus shape inference: onnxlegal against python3-onnx, on the same models.

    /usr/bin/python3 bench/check_vs_onnx.py [--sizes 10000,100000,1000000] [--build build]
                                            [--onnx-max 1000000] [--repeat 3]

For each size N it generates a chain of N nodes (Add, Relu, Mul repeated, with a shape block
Shape -> Gather -> Unsqueeze -> Concat -> Reshape every 100 nodes, on a [batch, 64] input with
a symbolic batch), writes it once, and times on that file:
  olg check  olg_check(full=1): every check plus inference, model restored afterwards
  olg infer  olg_infer_shapes alone
  onnx check onnx.checker.check_model(model, full_check=True)
  onnx infer onnx.shape_inference.infer_shapes(model)
Reading the file is timed apart (olg read) and is not in the ratios; onnx is given an
already-parsed ModelProto, so its parsing is not timed either. Each figure is the best of
several runs: onnxlegal's of max(--repeat, 1e6 / N), onnx's of max(1, min(--repeat, 1e5 / N))
(small sizes are noisy on a shared machine). Sizes above --onnx-max skip onnx (noted).
"""
import argparse
import ctypes
import gc
import os
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class CheckOptions(ctypes.Structure):
    _fields_ = [("size", ctypes.c_size_t), ("full", ctypes.c_int), ("allow_unlowered", ctypes.c_int),
                ("max_errors", ctypes.c_size_t), ("notes", ctypes.c_int)]


def load_lib(build):
    lib = ctypes.CDLL(os.path.join(build, "lib", "libonnxlegal.so"))
    P = ctypes.c_void_p
    lib.olg_model_read_file.argtypes = [ctypes.POINTER(P), ctypes.c_char_p, P]
    lib.olg_model_free.argtypes = [P]
    lib.olg_check.argtypes = [P, ctypes.POINTER(CheckOptions), P]
    lib.olg_infer_shapes.argtypes = [P, ctypes.POINTER(CheckOptions), P]
    lib.olg_diags_new.argtypes = [ctypes.POINTER(P), P]
    lib.olg_diags_free.argtypes = [P]
    lib.olg_diags_count.restype = ctypes.c_size_t
    lib.olg_diags_count.argtypes = [P]
    lib.olg_diag_message.restype = ctypes.c_char_p
    lib.olg_diag_message.argtypes = [P, ctypes.c_size_t]
    lib.olg_last_error.restype = ctypes.c_char_p
    return lib


def make_chain(n, path):
    """A chain of about n nodes, written to path with onnx; returns the node count."""
    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    width = 64
    nodes = []
    inits = [numpy_helper.from_array(np.full(width, 0.5, np.float32), "b"),
             numpy_helper.from_array(np.full(width, 1.5, np.float32), "s"),
             numpy_helper.from_array(np.array(1, np.int64), "one"),
             numpy_helper.from_array(np.array([0], np.int64), "axes0"),
             numpy_helper.from_array(np.array([-1], np.int64), "minus1")]
    h = "x"
    k = 0
    while len(nodes) < n:
        if k % 20 == 19:
            # the shape block: Reshape(h, Concat([-1], Unsqueeze(Gather(Shape(h), 1))))
            p = "v%d" % k
            nodes += [helper.make_node("Shape", [h], [p + "s"]),
                      helper.make_node("Gather", [p + "s", "one"], [p + "g"]),
                      helper.make_node("Unsqueeze", [p + "g", "axes0"], [p + "u"]),
                      helper.make_node("Concat", ["minus1", p + "u"], [p + "c"], axis=0),
                      helper.make_node("Reshape", [h, p + "c"], [p + "r"])]
            h = p + "r"
        else:
            a, r, m = "a%d" % k, "r%d" % k, "m%d" % k
            nodes += [helper.make_node("Add", [h, "b"], [a]),
                      helper.make_node("Relu", [a], [r]),
                      helper.make_node("Mul", [r, "s"], [m])]
            h = m
        k += 1
    graph = helper.make_graph(
        nodes, "chain",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", width])],
        [helper.make_tensor_value_info(h, TensorProto.FLOAT, ["batch", width])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, path)
    return len(nodes)


def best(fn, repeat):
    t = float("inf")
    for _ in range(repeat):
        gc.collect()
        t0 = time.perf_counter()
        fn()
        t = min(t, time.perf_counter() - t0)
    return t


def bench_olg(lib, path, repeat):
    P = ctypes.c_void_p
    m = P()
    t_read = float("inf")
    for _ in range(repeat):
        if m:
            lib.olg_model_free(m)
        m = P()
        t0 = time.perf_counter()
        s = lib.olg_model_read_file(ctypes.byref(m), path.encode(), None)
        t_read = min(t_read, time.perf_counter() - t0)
        if s:
            raise RuntimeError("read: " + lib.olg_last_error().decode())
    opts = CheckOptions(ctypes.sizeof(CheckOptions), 1, 0, 0, 1)
    d = P()
    lib.olg_diags_new(ctypes.byref(d), None)

    def check():
        s = lib.olg_check(m, ctypes.byref(opts), d)
        if s:
            msg = lib.olg_diag_message(d, 0) if lib.olg_diags_count(d) else lib.olg_last_error()
            raise RuntimeError("olg_check: %d: %s" % (s, msg.decode()))

    t_check = best(check, repeat)
    lib.olg_diags_free(d)
    lib.olg_model_free(m)
    t_infer = float("inf")
    for _ in range(repeat):
        # inference annotates the model: a fresh one each time
        m = P()
        lib.olg_model_read_file(ctypes.byref(m), path.encode(), None)
        t0 = time.perf_counter()
        s = lib.olg_infer_shapes(m, None, None)
        t_infer = min(t_infer, time.perf_counter() - t0)
        lib.olg_model_free(m)
        if s:
            raise RuntimeError("olg_infer_shapes: " + lib.olg_last_error().decode())
    return t_read, t_check, t_infer


def bench_onnx(path, repeat):
    import onnx
    model = onnx.load(path)
    t_check = best(lambda: onnx.checker.check_model(model, full_check=True), repeat)
    t_infer = best(lambda: onnx.shape_inference.infer_shapes(model), repeat)
    return t_check, t_infer


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="10000,100000,1000000")
    ap.add_argument("--build", default=os.environ.get("ONNXLEGAL_BUILD", os.path.join(ROOT, "build")))
    ap.add_argument("--onnx-max", type=int, default=1000000,
                    help="skip onnx above this many nodes (default: run it at every size)")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    lib = load_lib(args.build)
    try:
        import onnx
        onnx_version = onnx.__version__
    except ImportError:
        onnx_version = None
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for size in [int(s) for s in args.sizes.split(",")]:
            path = os.path.join(tmp, "chain_%d.onnx" % size)
            t0 = time.perf_counter()
            n = make_chain(size, path)
            gen = time.perf_counter() - t0
            print("generated %d nodes (%.1f MB) in %.1f s" % (n, os.path.getsize(path) / 1e6, gen),
                  flush=True)
            r, c, i = bench_olg(lib, path, max(args.repeat, 1000000 // size))
            row = {"n": n, "read": r, "check": c, "infer": i, "onnx_check": None, "onnx_infer": None,
                   "note": ""}
            if onnx_version is None:
                row["note"] = "onnx not installed"
            elif size > args.onnx_max:
                row["note"] = "onnx skipped above --onnx-max %d" % args.onnx_max
            else:
                try:
                    row["onnx_check"], row["onnx_infer"] = bench_onnx(
                        path, max(1, min(args.repeat, 100000 // size)))
                except Exception as e:  # e.g. the 2 GB protobuf limit
                    row["note"] = "onnx failed: %s" % str(e).splitlines()[0][:60]
            rows.append(row)
            os.remove(path)

    ns = lambda t, n: t / n * 1e9
    print()
    print("onnxlegal vs python3-onnx %s: validate + infer, chain graphs (best of several runs)" %
          (onnx_version or "(absent)"))
    hdr = ("nodes", "olg read", "olg check", "ns/node", "olg infer", "ns/node", "onnx check",
           "ns/node", "onnx infer", "ns/node", "check x", "infer x")
    print("%9s %9s %9s %8s %9s %8s %10s %8s %10s %8s %8s %8s" % hdr)
    for r in rows:
        n = r["n"]
        oc, oi = r["onnx_check"], r["onnx_infer"]
        fmt_t = lambda t: "%.3f s" % t if t is not None else "-"
        fmt_ns = lambda t: "%.0f" % ns(t, n) if t is not None else "-"
        ratio = lambda a, b: "%.1f" % (a / b) if a is not None and b else "-"
        print("%9d %9s %9s %8s %9s %8s %10s %8s %10s %8s %8s %8s %s" % (
            n, fmt_t(r["read"]), fmt_t(r["check"]), fmt_ns(r["check"]), fmt_t(r["infer"]),
            fmt_ns(r["infer"]), fmt_t(oc), fmt_ns(oc), fmt_t(oi), fmt_ns(oi),
            ratio(oc, r["check"]), ratio(oi, r["infer"]), r["note"]))
    per = [ns(r["check"], r["n"]) for r in rows]
    print("olg check ns/node, largest / smallest size: %.2f (1.0 = linear)" % (max(per) / min(per)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
