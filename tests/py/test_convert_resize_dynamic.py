"""Resize with a dynamic batch and static spatial dims converts below 11 (issue 29 point 6): the
encodings torch's exporter writes at 17 for F.interpolate with dynamic_axes -- sizes as
Concat(Shape(x)[0:2], [H, W]) and constant scales [1, 1, s, s] -- converted to 7..10 and run in
ONNX Runtime at two batch sizes against ORT on the source at 17. A resize of an axis of unknown
size converts from 9 with index tables computed at run time (issue 25), and is refused at 7-8
naming the axis and opset 9."""
import os
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
for p in ("bindings/python", "tests/ort"):
    sys.path.insert(0, os.path.join(ROOT, p))
onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

import onnxlegal  # noqa: E402


def _model(kind, mode="linear", ctm="half_pixel", spatial=(4, 5)):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, spatial[0], spatial[1]])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 3, None, None])
    attrs = dict(mode=mode, coordinate_transformation_mode=ctm)
    if kind == "sizes":
        nodes = [helper.make_node("Shape", ["x"], ["s"]),
                 helper.make_node("Slice", ["s", "z", "two"], ["nc"]),
                 helper.make_node("Concat", ["nc", "hw"], ["sizes"], axis=0),
                 helper.make_node("Resize", ["x", "", "", "sizes"], ["y"], **attrs)]
        inits = [numpy_helper.from_array(np.array([0], np.int64), "z"),
                 numpy_helper.from_array(np.array([2], np.int64), "two"),
                 numpy_helper.from_array(np.array([8, 7], np.int64), "hw")]
    else:
        nodes = [helper.make_node("Resize", ["x", "", "scales"], ["y"], **attrs)]
        inits = [numpy_helper.from_array(np.array([1, 1, 2, 1.5], np.float32), "scales")]
    g = helper.make_graph(nodes, "g", [x], [y], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    return m


@pytest.mark.parametrize("kind,mode", [("sizes", "linear"), ("scales", "linear"), ("sizes", "nearest"),
                                       ("scales", "cubic")])
def test_dynamic_batch_static_spatial_converts_below_11(kind, mode):
    from ortrun import run_batch
    model = _model(kind, mode)
    src = onnxlegal.Model.from_bytes(model.SerializeToString())
    rng = np.random.default_rng(3)
    feeds = [{"x": rng.standard_normal((b, 3, 4, 5)).astype(np.float32)} for b in (1, 3)]
    targets = [7, 9, 10]
    batch = [(model, f) for f in feeds]
    for t in targets:
        data = onnxlegal.convert(src, t).to_bytes()
        batch += [(data, f) for f in feeds]
    res = run_batch(batch)
    ref = res[:2]
    for r in ref:
        assert not isinstance(r, str), r
    for i, t in enumerate(targets):
        for j in range(2):
            got = res[2 + 2 * i + j]
            assert not isinstance(got, str), "-> %d: %s" % (t, got)
            np.testing.assert_allclose(got["y"], ref[j]["y"], rtol=1e-5, atol=1e-5,
                                       err_msg="%s %s -> %d batch %d" % (kind, mode, t, (1, 3)[j]))


@pytest.mark.parametrize("mode,ctm", [("linear", "half_pixel"), ("nearest", "half_pixel"),
                                      ("cubic", "align_corners"), ("nearest", "asymmetric")])
def test_resizing_an_axis_of_unknown_size_converts_from_9(mode, ctm):
    """The index tables computed at run time (issue 25): at 9 and 10 exact against ORT on the
    source at 17, for two heights; at 7 refused naming the axis and opset 9."""
    from ortrun import run_batch
    model = _model("scales", mode, ctm)
    model.graph.input[0].type.tensor_type.shape.dim[2].dim_param = "H"  # height unknown, scaled 2x
    src = onnxlegal.Model.from_bytes(model.SerializeToString())
    with pytest.raises(onnxlegal.UnsupportedError) as e:
        onnxlegal.convert(src, 7)
    d = [x for x in e.value.diagnostics if x["severity"] == "error"][0]
    assert d["min_opset"] == 9 and "axis 2" in d["message"], d
    rng = np.random.default_rng(5)
    feeds = [{"x": rng.standard_normal((2, 3, h, 5)).astype(np.float32)} for h in (4, 7)]
    batch = [(model, f) for f in feeds]
    for t in (9, 10):
        data = onnxlegal.convert(src, t).to_bytes()
        batch += [(data, f) for f in feeds]
    res = run_batch(batch)
    for i, got in enumerate(res[2:]):
        assert not isinstance(got, str), got
        np.testing.assert_allclose(got["y"], res[i % 2]["y"], rtol=1e-5, atol=1e-5,
                                   err_msg="%s %s #%d" % (mode, ctm, i))
