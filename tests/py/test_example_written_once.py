"""The C example of a caller's op written once (tests/examples/rms_norm_once.c, issue 26 d):
compiled against the library, run for every target opset 7..26, each model run in ONNX Runtime
and compared with NumPy; ReduceMean keeps the encoding the target has (axes an input from 18)."""
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
for p in ("bindings/python", "tests/ort"):
    sys.path.insert(0, os.path.join(ROOT, p))
onnx = pytest.importorskip("onnx")
import onnxlegal  # noqa: E402

LIB = os.path.realpath(onnxlegal.lib.path)
SCALE = np.array([1, 0.5, 2, 1, 1.5, 1, 0.25, 3], np.float32)


def test_rms_norm_written_once_exports_at_every_opset_and_matches(tmp_path):
    if not shutil.which("cc") or "olg_model_write_file" in onnxlegal.lib.missing:
        pytest.skip("no C compiler or no writer")
    from ortrun import run_batch
    exe = tmp_path / "rms_norm_once"
    r = subprocess.run(["cc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-I" + os.path.join(ROOT, "include"),
                        os.path.join(ROOT, "tests", "examples", "rms_norm_once.c"), "-o", str(exe), LIB,
                        "-Wl,-rpath," + os.path.dirname(LIB)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    x = np.linspace(-2, 3, 48, dtype=np.float32).reshape(2, 3, 8)
    want = x / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-5) * SCALE
    targets = list(range(7, 27))
    batch = []
    for t in targets:
        path = tmp_path / ("m%d.onnx" % t)
        r = subprocess.run([str(exe), str(t), str(path)], capture_output=True, text=True)
        assert r.returncode == 0, "-> %d: %s" % (t, r.stderr)
        m = onnx.load(str(path))
        (rm,) = [n for n in m.graph.node if n.op_type == "ReduceMean"]
        assert (len(rm.input) == 2) == (t >= 18), (t, rm)
        assert not any(n.domain for n in m.graph.node)
        batch.append((path.read_bytes(), {"x": x}))
    for t, res in zip(targets, run_batch(batch)):
        assert not isinstance(res, str), "-> %d: %s" % (t, res)
        np.testing.assert_allclose(res["y"], want, rtol=1e-5, atol=1e-6, err_msg="-> %d" % t)
