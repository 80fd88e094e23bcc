#!/usr/bin/env python3
"""make demo: the main job end to end.

Builds a model through the C API (tests/examples/hello.c, compiled against this build), writes it,
reads it back with the library, prints it in ONNX's text syntax, checks it with onnx's full checker
and with olg_check when available, runs it in ONNX Runtime and compares with NumPy.
When the torch front end is present (bindings/python/onnxlegal/torch.py), it also exports real
PyTorch models at two opsets and prints a table (see export_models)."""
import argparse
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bindings", "python"))
sys.path.insert(0, os.path.join(ROOT, "tests", "ort"))


def c_api_model(build, work):
    exe = os.path.join(work, "hello")
    lib = os.path.join(ROOT, build, "lib")
    subprocess.run(["cc", "-std=c11", "-Wall", "-Werror", "-I" + os.path.join(ROOT, "include"),
                    os.path.join(ROOT, "tests/examples/hello.c"), "-o", exe, "-L" + lib,
                    "-lonnxlegal", "-Wl,-rpath," + lib], check=True)
    path = os.path.join(work, "hello.onnx")
    subprocess.run([exe, path], check=True)
    return path


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build")
    args = ap.parse_args()
    import numpy as np
    import onnx
    import onnxlegal
    from ortrun import run_one

    with tempfile.TemporaryDirectory() as work:
        path = c_api_model(args.build, work)
        m = onnxlegal.Model.read(path)
        print(m.to_text())
        onnx.checker.check_model(onnx.load(path), full_check=True)
        print("onnx.checker (full): ok")
        if hasattr(onnxlegal, "check"):
            onnxlegal.check(m)
            print("olg_check: ok")
        x = np.random.default_rng(0).standard_normal((3, 4)).astype(np.float32)
        W = np.array([[1, -1], [0.5, 2], [-3, 1], [0, 0.25]], np.float32)
        b = np.array([0.5, -0.5], np.float32)
        want = np.maximum(x @ W + b, 0)
        got = run_one(path, {"x": x})
        if isinstance(got, str):
            raise SystemExit("demo: ONNX Runtime failed: " + got)
        diff = float(np.abs(list(got.values())[0] - want).max())
        print("ONNX Runtime vs NumPy: max abs diff %.3g" % diff)
        if diff > 1e-5:
            raise SystemExit("demo: outputs differ")
    try:
        from onnxlegal import torch as olg_torch  # noqa: F401
    except ImportError:
        return 0
    from demo_torch import export_models
    return export_models(args)


if __name__ == "__main__":
    sys.exit(main())
