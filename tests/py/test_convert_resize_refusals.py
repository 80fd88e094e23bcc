"""Two Resize refusals below 11, where Resize is decomposed into tables (fuzz_pipeline, a slow
unit: tests/fuzz/regressions/pipeline/resize-crop-extrapolation-huge-output):

- an attribute value no version of the op takes (a misspelt coordinate_transformation_mode) is a
  defect of the source, refused as such before any symbolic runs: the decomposition read it as
  its default ("asymmetric"), a silently wrong model;
- tf_crop_and_resize with an extrapolation value over an output of more than 2^24 elements is
  refused at once, naming opset 11 (where Resize is kept, not decomposed): the index table of
  its 2^24-position axis was built first (a second for a 600-byte model) and the refusal said no
  opset works."""
import os
import subprocess

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(os.environ.get("ONNXLEGAL_BUILD", os.path.join(ROOT, "build")), "bin", "onnxlegal")

pytestmark = pytest.mark.skipif(not os.path.exists(TOOL), reason="%s is not built" % TOOL)


def _resize(sizes, ctm, mode="nearest", extrapolation=None):
    attrs = dict(mode=mode, coordinate_transformation_mode=ctm)
    if extrapolation is not None:
        attrs["extrapolation_value"] = extrapolation
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 5, 6])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    inits = [numpy_helper.from_array(np.array([0, 0, 0.2, 0.3, 1, 1, 0.8, 0.9], np.float32), "roi"),
             numpy_helper.from_array(np.array(sizes, np.int64), "sizes")]
    node = helper.make_node("Resize", ["x", "roi", "", "sizes"], ["y"], name="rs", **attrs)
    g = helper.make_graph([node], "g", [x], [y], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 7
    return m


def _convert(tmp_path, m, opset):
    src, out = tmp_path / "src.onnx", tmp_path / "out.onnx"
    src.write_bytes(m.SerializeToString())
    return subprocess.run([TOOL, "convert", str(src), str(out), "--opset", str(opset)],
                          capture_output=True, text=True), out


@pytest.mark.parametrize("opset", [9, 13])
def test_a_mode_no_version_takes_is_refused_as_a_defect(tmp_path, opset):
    r, out = _convert(tmp_path, _resize([1, 1, 8, 9], "asymetric"), opset)
    assert r.returncode == 1 and not out.exists(), r.stderr
    assert "node 'rs'" in r.stderr
    assert "attribute 'coordinate_transformation_mode' of Resize-13 has a value no version of it " \
           "takes" in r.stderr, r.stderr
    # the same model spelt right converts
    r, out = _convert(tmp_path, _resize([1, 1, 8, 9], "asymmetric"), opset)
    assert r.returncode == 0 and out.exists(), r.stderr


def test_crop_extrapolation_over_a_huge_output_is_refused_at_once(tmp_path):
    m = _resize([1, 1 << 20, 4, 5], "tf_crop_and_resize", extrapolation=-7.5)
    r, out = _convert(tmp_path, m, 9)
    assert r.returncode == 1 and not out.exists(), r.stderr
    assert "Resize with tf_crop_and_resize and an extrapolation value over an output of 20971520 " \
           "elements (the decomposition embeds at most 16777216)" in r.stderr, r.stderr
    assert "[lowest opset that works: 11]" in r.stderr
    r, out = _convert(tmp_path, m, 11)  # kept as Resize there
    assert r.returncode == 0, r.stderr
