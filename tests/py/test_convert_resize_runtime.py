"""Resize with scales, sizes or roi given at run time (graph inputs), converted to 9 and 10 by
index and weight tables the model computes itself (issue 25; symbolics/emit_interp_rt.c): every
mode, coordinate transform and nearest rounding, exclude_outside and tf_crop_and_resize, up and
down, run in ONNX Runtime against ONNX Runtime's own Resize on the source (13; 19 for
half_pixel_symmetric). At 7-8 (no NonZero, ConstantOfShape or Where) refused naming 9."""
import itertools
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

IN_SHAPE = (1, 2, 5, 6)


def _model(kind, mode, ctm, nm="round_prefer_floor", exclude=0, dtype=TensorProto.FLOAT):
    opset = 19 if ctm == "half_pixel_symmetric" else 13
    ins = [helper.make_tensor_value_info("x", dtype, list(IN_SHAPE))]
    names = ["x", "", "", ""]
    if ctm == "tf_crop_and_resize":
        ins.append(helper.make_tensor_value_info("roi", TensorProto.FLOAT, [8]))
        names[1] = "roi"
    if kind == "sizes":
        ins.append(helper.make_tensor_value_info("sizes", TensorProto.INT64, [4]))
        names[3] = "sizes"
    else:
        ins.append(helper.make_tensor_value_info("scales", TensorProto.FLOAT, [4]))
        names[2] = "scales"
        names = names[:3]
    attrs = dict(mode=mode, coordinate_transformation_mode=ctm)
    if mode == "nearest":
        attrs["nearest_mode"] = nm
    if mode == "cubic":
        attrs["exclude_outside"] = exclude
        attrs["cubic_coeff_a"] = -0.5 if exclude else -0.75
    if ctm == "tf_crop_and_resize":
        attrs["extrapolation_value"] = 7.0
    node = helper.make_node("Resize", names, ["y"], **attrs)
    y = helper.make_tensor_value_info("y", dtype, None)
    g = helper.make_graph([node], "g", ins, [y])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 9 if opset == 19 else 8
    return m


CTMS = ["half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric", "tf_crop_and_resize",
        "half_pixel_symmetric"]
CASES = ([("nearest", c, nm, 0) for c in CTMS + ["tf_half_pixel_for_nn"]
          for nm in ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil")] +
         [("linear", c, None, 0) for c in CTMS] +
         [("cubic", c, None, e) for c in CTMS for e in (0, 1)])
FEEDS = {  # (scales or sizes per feed): up, down, mixed, and an axis to 1
    "scales": [np.array(s, np.float32) for s in
               ([1, 1, 2.0, 1.5], [1, 1, 0.6, 0.5], [1, 1, 1.7, 0.8], [1, 1, 0.2, 2.5])],
    "sizes": [np.array(s, np.int64) for s in
              ([1, 2, 9, 13], [1, 2, 3, 4], [1, 2, 8, 5], [1, 2, 1, 7])],
}
ROI = np.array([0, 0, 0.2, -0.1, 1, 1, 0.9, 1.3], np.float32)


def _feeds(kind, ctm):
    rng = np.random.default_rng(11)
    x = rng.standard_normal(IN_SHAPE).astype(np.float32)
    out = []
    for v in FEEDS[kind]:
        f = {"x": x, kind: v}
        if ctm == "tf_crop_and_resize":
            f["roi"] = ROI
        out.append(f)
    return out


def _static(model, kind, feed):
    """The same model with scales / sizes / roi as constants (the conversion-time tables)."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    keep = [i for i in m.graph.input if i.name == "x"]
    for i in m.graph.input:
        if i.name != "x":
            m.graph.initializer.append(numpy_helper.from_array(feed[i.name], i.name))
    del m.graph.input[:]
    m.graph.input.extend(keep)
    return m


@pytest.mark.parametrize("kind", ["scales", "sizes"])
def test_runtime_resize_at_9_and_10_matches_ort(kind):
    """Against ORT's Resize on the source, and against the tables computed at conversion time
    from the same values as constants (converted to 9). Where ORT and those tables disagree
    (half_pixel_symmetric's nearest, a coordinate within a float rounding of an integer: ORT's
    compiled arithmetic rounds it the other way) the run-time tables must agree with the
    conversion-time ones."""
    from ortrun import run_batch
    batch, meta = [], []
    for mode, ctm, nm, ex in CASES:
        m = _model(kind, mode, ctm, nm or "round_prefer_floor", ex)
        src = onnxlegal.Model.from_bytes(m.SerializeToString())
        conv = {t: onnxlegal.convert(src, t).to_bytes() for t in (9, 10)}
        for i, f in enumerate(_feeds(kind, ctm)):
            st = _static(m, kind, f)
            st = onnxlegal.convert(onnxlegal.Model.from_bytes(st.SerializeToString()), 9).to_bytes()
            batch += [(m, f), (st, {"x": f["x"]})]
            meta += [(mode, ctm, nm, ex, i, None), (mode, ctm, nm, ex, i, "static")]
            for t in (9, 10):
                batch.append((conv[t], f))
                meta.append((mode, ctm, nm, ex, i, t))
    res = run_batch(batch)
    ref, static, bad, ort_differs = None, None, [], set()

    def close(a, b):
        return a.shape == b.shape and np.allclose(a, b, rtol=1e-5, atol=1e-5)
    for r, (mode, ctm, nm, ex, i, t) in zip(res, meta):
        what = "%s %s %s ex=%d feed %d -> %s" % (mode, ctm, nm, ex, i, t)
        assert not isinstance(r, str), what + ": " + r[:300]
        if t is None:
            ref = r["y"]
        elif t == "static":
            static = r["y"]
            if not close(static, ref):
                ort_differs.add((mode, ctm))
        elif not close(r["y"], static) or not (close(r["y"], ref) or (mode, ctm) in ort_differs):
            bad.append(what + ": differs")
    assert not bad, "\n".join(bad)
    assert ort_differs <= {("nearest", "half_pixel_symmetric")}, ort_differs


@pytest.mark.parametrize("dtype", [TensorProto.FLOAT16, TensorProto.DOUBLE])
def test_runtime_resize_other_float_types(dtype):
    from ortrun import run_batch
    npt = {TensorProto.FLOAT16: np.float16, TensorProto.DOUBLE: np.float64}[dtype]
    batch = []
    for mode in ("nearest", "linear", "cubic"):
        m = _model("scales", mode, "half_pixel", dtype=dtype)
        out = onnxlegal.convert(onnxlegal.Model.from_bytes(m.SerializeToString()), 9).to_bytes()
        f = dict(_feeds("scales", "half_pixel")[2])
        f["x"] = f["x"].astype(npt)
        batch += [(m, f), (out, f)]
    res = run_batch(batch)
    for ref, got in zip(res[::2], res[1::2]):
        if isinstance(ref, str):  # ORT lacks that Resize kernel: the converted model still runs
            assert not isinstance(got, str), got
            continue
        assert not isinstance(got, str), got
        assert got["y"].dtype == ref["y"].dtype
        np.testing.assert_allclose(got["y"].astype(np.float64), ref["y"].astype(np.float64),
                                   rtol=2e-3 if npt is np.float16 else 1e-6, atol=1e-3)


@pytest.mark.parametrize("kind,mode", itertools.product(["scales", "sizes"], ["nearest", "cubic"]))
def test_runtime_resize_below_9_is_refused_naming_9(kind, mode):
    src = onnxlegal.Model.from_bytes(_model(kind, mode, "half_pixel").SerializeToString())
    for t in (7, 8):
        with pytest.raises(onnxlegal.UnsupportedError) as e:
            onnxlegal.convert(src, t)
        d = [x for x in e.value.diagnostics if x["severity"] == "error"][0]
        assert d["min_opset"] == 9 and "run time" in d["message"], d


@pytest.mark.parametrize("kind,mode", [("scales", "linear"), ("sizes", "nearest"), ("scales", "cubic")])
def test_runtime_resize_with_axes_at_9_and_10(kind, mode):
    """Resize-18's axes with run-time scales or sizes: spread over every axis by Scatter (9),
    then the run-time tables."""
    from ortrun import run_batch
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, list(IN_SHAPE))
    v = helper.make_tensor_value_info(kind, TensorProto.FLOAT if kind == "scales" else TensorProto.INT64, [2])
    names = ["x", "", "scales"] if kind == "scales" else ["x", "", "", "sizes"]
    node = helper.make_node("Resize", names, ["y"], mode=mode, axes=[3, 2])
    g = helper.make_graph([node], "g", [x, v], [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
    m.ir_version = 8
    src = onnxlegal.Model.from_bytes(m.SerializeToString())
    xs = np.random.default_rng(2).standard_normal(IN_SHAPE).astype(np.float32)
    vals = ([np.array(a, np.float32) for a in ([1.5, 2.0], [0.5, 0.6])] if kind == "scales" else
            [np.array(a, np.int64) for a in ([13, 9], [4, 3])])
    batch = []
    for val in vals:
        f = {"x": xs, kind: val}
        batch.append((m, f))
        batch += [(onnxlegal.convert(src, t).to_bytes(), f) for t in (9, 10)]
    res = run_batch(batch)
    for i in range(0, len(res), 3):
        assert not isinstance(res[i], str), res[i]
        for got in res[i + 1:i + 3]:
            assert not isinstance(got, str), got
            np.testing.assert_allclose(got["y"], res[i]["y"], rtol=1e-5, atol=1e-5)
