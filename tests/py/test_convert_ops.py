"""Decompositions of ONNX ops below (or re-encodings above) their native opset, checked by
numbers where the backend corpus does not cover an attribute value or a type: each model is
built at its source opset, run in ONNX Runtime there, converted by onnxlegal.convert to each
target and run again; the outputs must agree (integers exactly)."""
import os
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
for p in ("bindings/python", "tests/ort"):
    sys.path.insert(0, os.path.join(ROOT, p))

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402

import onnxlegal  # noqa: E402
from ortrun import run_batch  # noqa: E402

NP2ONNX = {np.dtype(k): v for k, v in {
    np.float32: TensorProto.FLOAT, np.float64: TensorProto.DOUBLE, np.float16: TensorProto.FLOAT16,
    np.int8: TensorProto.INT8, np.uint8: TensorProto.UINT8, np.int16: TensorProto.INT16,
    np.uint16: TensorProto.UINT16, np.int32: TensorProto.INT32, np.uint32: TensorProto.UINT32,
    np.int64: TensorProto.INT64, np.uint64: TensorProto.UINT64, np.bool_: TensorProto.BOOL}.items()}


def _model(node, opset, feeds, out_type=None, inits=()):
    ins = [helper.make_tensor_value_info(k, NP2ONNX[v.dtype], list(v.shape)) for k, v in feeds.items()]
    outs = [helper.make_tensor_value_info(o, out_type or NP2ONNX[next(iter(feeds.values())).dtype], None)
            for o in node.output]
    g = helper.make_graph([node], "g", ins, outs, list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 7 if opset < 15 else 8
    return m


def _check(cases, targets):
    """cases: (label, model, feeds). Runs each at its own opset and converted to each target;
    returns the list of problems (refusals count as problems)."""
    batch, meta, problems = [], [], []
    for label, m, feeds in cases:
        batch.append((m.SerializeToString(), feeds))
        meta.append((label, None))
        src = onnxlegal.Model.from_bytes(m.SerializeToString())
        for t in targets:
            try:
                out = onnxlegal.convert(src, t)
            except onnxlegal.Error as e:
                problems.append("%s ->%d refused: %s" % (label, t, str(e)[:300]))
                continue
            batch.append((out.to_bytes(), feeds))
            meta.append((label, t))
    res = run_batch(batch)
    ref = {}
    for (label, t), r in zip(meta, res):
        if isinstance(r, str):
            problems.append("%s ->%s: %s" % (label, t, r.strip()[:300]))
            continue
        if t is None:
            ref[label] = r
            continue
        if label not in ref:
            continue
        for k, want in ref[label].items():
            got = r[k]
            if got.shape != want.shape or got.dtype != want.dtype:
                problems.append("%s ->%d: %s %s vs %s %s" % (label, t, got.dtype, got.shape, want.dtype, want.shape))
            elif want.dtype.kind in "fc":
                if not np.allclose(got, want, rtol=1e-5, atol=1e-6, equal_nan=True):
                    problems.append("%s ->%d: differs by %g" % (label, t, np.nanmax(np.abs(got - want))))
            elif not np.array_equal(got, want):
                problems.append("%s ->%d: differs" % (label, t))
    return problems


def test_resize11_tf_half_pixel_for_nn_reencoded_at_13_and_up():
    """Resize-11's tf_half_pixel_for_nn (removed at 13) becomes half_pixel with the rounding moved
    by a half: round_prefer_floor -> ceil, floor -> round_prefer_ceil; up and down, odd sizes."""
    rng = np.random.default_rng(3)
    cases = []
    for nm in ("round_prefer_floor", "floor"):
        for (h, w), (oh, ow) in (((4, 4), (3, 2)), ((5, 7), (11, 3)), ((3, 9), (7, 17)),
                                 ((8, 6), (3, 5)), ((1, 5), (4, 10))):
            x = rng.standard_normal((1, 2, h, w)).astype(np.float32)
            sizes = helper.make_tensor("sizes", TensorProto.INT64, [4], [1, 2, oh, ow])
            roi = helper.make_tensor("roi", TensorProto.FLOAT, [0], [])
            sc = helper.make_tensor("scales", TensorProto.FLOAT, [0], [])
            node = helper.make_node("Resize", ["x", "roi", "scales", "sizes"], ["y"], mode="nearest",
                                    coordinate_transformation_mode="tf_half_pixel_for_nn", nearest_mode=nm)
            cases.append(("%s %dx%d->%dx%d" % (nm, h, w, oh, ow), _model(node, 11, {"x": x}, inits=[sizes, roi, sc]),
                          {"x": x}))
    problems = _check(cases, (13, 18, 21))
    assert not problems, "\n".join(problems)
