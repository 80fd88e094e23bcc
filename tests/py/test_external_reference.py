"""Weights never copied (issue 23, slice d): `convert --external-data=reference` reads none of the
source's external data and writes a model that refers to the source's data file, rebased to the
output's directory (olg_model_rebase_external_data). Checked by the mechanism, not by time: the
conversion succeeds with the data file emptied (so not one weight byte was read), the output
refers to the source's file, and with the file restored ONNX Runtime runs the output and matches
the source."""
import os
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
for p in ("bindings/python", "tests/ort"):
    sys.path.insert(0, os.path.join(ROOT, p))
onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

TOOL = os.path.join(os.environ.get("ONNXLEGAL_BUILD", os.path.join(ROOT, "build")), "bin", "onnxlegal")
W = np.random.default_rng(0).standard_normal((256, 512)).astype(np.float32)  # 512 KiB


def _source(d):
    w = numpy_helper.from_array(W, "w")
    w.data_location = TensorProto.EXTERNAL
    for k, v in (("location", "weights.bin"), ("offset", "0"), ("length", str(W.nbytes))):
        e = w.external_data.add()
        e.key, e.value = k, v
    w.ClearField("raw_data")
    (d / "weights.bin").write_bytes(W.tobytes())
    g = helper.make_graph([helper.make_node("MatMul", ["x", "w"], ["h"]),
                           helper.make_node("Unsqueeze", ["h", "ax"], ["u"]),
                           helper.make_node("Relu", ["u"], ["y"])], "g",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 256])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2, 512])],
                          [w, numpy_helper.from_array(np.array([0], np.int64), "ax")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 7
    path = d / "model.onnx"
    path.write_bytes(m.SerializeToString())
    return path


def _convert(src, out, *extra):
    return subprocess.run([TOOL, "convert", str(src), str(out), "--opset", "17",
                           "--external-data=reference"] + list(extra), capture_output=True, text=True)


def test_reference_reads_no_weight_and_refers_to_the_source_file(tmp_path):
    from ortrun import run_batch
    src = _source(tmp_path)
    data = (tmp_path / "weights.bin").read_bytes()
    (tmp_path / "weights.bin").write_bytes(b"")  # emptied: reading it would fail the conversion
    sub = tmp_path / "sub"
    sub.mkdir()
    beside, above = tmp_path / "m17.onnx", tmp_path.parent / ("%s-m17.onnx" % tmp_path.name)
    try:
        for out in (beside, above):
            r = _convert(src, out)
            assert r.returncode == 0, r.stderr
        r = _convert(src, sub / "m17.onnx")  # would need "../weights.bin": refused, nothing written
        assert r.returncode != 0 and "not beneath" in r.stderr and not (sub / "m17.onnx").exists(), r.stderr
    finally:
        (tmp_path / "weights.bin").write_bytes(data)
    for out, loc in ((beside, "weights.bin"), (above, "%s/weights.bin" % tmp_path.name)):
        m = onnx.load(str(out), load_external_data=False)
        assert out.stat().st_size < 4096, out.stat().st_size  # no weight inside
        (w,) = [t for t in m.graph.initializer if t.name == "w"]
        assert {e.key: e.value for e in w.external_data}["location"] == loc
        assert [i.version for i in m.opset_import if i.domain in ("", "ai.onnx")] == [17]
    x = np.linspace(-1, 1, 512, dtype=np.float32).reshape(2, 256)
    res = run_batch([(str(src), {"x": x}), (str(beside), {"x": x}), (str(above), {"x": x})])
    for r in res:
        assert not isinstance(r, str), r
    np.testing.assert_allclose(res[0]["y"], np.maximum(x @ W, 0)[None], rtol=1e-4, atol=1e-4)
    for r in res[1:]:
        np.testing.assert_array_equal(r["y"], res[0]["y"])
    above.unlink()
