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


def test_narrow_integer_arithmetic_below_14_wraps_as_the_kernel():
    """Add/Sub/Mul/Div of int8/uint8/int16/uint16 before 14: computed in int32/int64 and wrapped,
    the same bits as Add-14 & co. in ONNX Runtime (overflow included)."""
    rng = np.random.default_rng(5)
    cases = []
    for dt in (np.int8, np.uint8, np.int16, np.uint16):
        info = np.iinfo(dt)
        a = rng.integers(info.min, info.max, size=(3, 7), endpoint=True).astype(dt)
        b = rng.integers(info.min, info.max, size=(7,), endpoint=True).astype(dt)
        a[0, :3] = [info.min, info.max, info.min]
        b[:3] = [info.max, info.max, 1 if info.min == 0 else -1]
        for op in ("Add", "Sub", "Mul", "Div"):
            bb = np.where(b == 0, 1, b).astype(dt) if op == "Div" else b
            node = helper.make_node(op, ["a", "b"], ["y"])
            feeds = {"a": a, "b": bb}
            cases.append(("%s %s" % (op, np.dtype(dt).name), _model(node, 14, feeds), feeds))
    problems = _check(cases, (7, 9, 13))
    assert not problems, "\n".join(problems)


def test_mod_and_comparisons_below_their_opsets():
    """Mod (10) of signed/unsigned integers with fmod 0 and 1 and of floats with fmod 1;
    GreaterOrEqual/LessOrEqual (12) of ints and floats with NaN; IsInf (10) one-sided."""
    rng = np.random.default_rng(7)
    cases = []
    for dt in (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint32, np.float32, np.float64):
        a = rng.integers(-100, 100, size=(4, 5)).astype(dt) if np.dtype(dt).kind == "i" else \
            rng.integers(0, 200, size=(4, 5)).astype(dt) if np.dtype(dt).kind == "u" else \
            (rng.standard_normal((4, 5)) * 50).astype(dt)
        b = rng.integers(1, 13, size=(5,)).astype(dt)
        if np.dtype(dt).kind != "u":
            b[::2] = -b[::2]
        for fmod in ((0, 1) if np.dtype(dt).kind in "iu" else (1,)):
            node = helper.make_node("Mod", ["a", "b"], ["y"], fmod=fmod)
            feeds = {"a": a, "b": b}
            cases.append(("Mod %s fmod=%d" % (np.dtype(dt).name, fmod), _model(node, 10, feeds), feeds))
    for dt in (np.int32, np.int64, np.float32):
        a = rng.integers(-3, 3, size=(3, 4)).astype(dt)
        b = rng.integers(-3, 3, size=(4,)).astype(dt)
        if dt == np.float32:
            a[0, 0], b[1] = np.nan, np.nan
        for op in ("GreaterOrEqual", "LessOrEqual"):
            feeds = {"a": a, "b": b}
            cases.append(("%s %s" % (op, np.dtype(dt).name),
                          _model(helper.make_node(op, ["a", "b"], ["y"]), 12, feeds, TensorProto.BOOL), feeds))
    x = np.array([np.inf, -np.inf, np.nan, 1.0, -3e38, 3e38], dtype=np.float32)
    for pos, neg in ((1, 0), (0, 1), (0, 0)):
        node = helper.make_node("IsInf", ["x"], ["y"], detect_positive=pos, detect_negative=neg)
        cases.append(("IsInf %d %d" % (pos, neg), _model(node, 10, {"x": x}, TensorProto.BOOL), {"x": x}))
    problems = _check(cases, (7, 9))
    assert not problems, "\n".join(problems)


def _resize_case(rng, label, in_shape, attrs, scales=None, sizes=None, roi=None):
    x = rng.standard_normal(in_shape).astype(np.float32)
    inits = [helper.make_tensor("roi", TensorProto.FLOAT, [len(roi) if roi else 0], roi or [])]
    names = ["x", "roi"]
    if scales is not None:
        inits.append(helper.make_tensor("scales", TensorProto.FLOAT, [len(scales)], scales))
        names.append("scales")
    else:
        inits.append(helper.make_tensor("sizes", TensorProto.INT64, [len(sizes)], sizes))
        names += ["", "sizes"]
    node = helper.make_node("Resize", names, ["y"], **attrs)
    return (label, _model(node, 13, {"x": x}, inits=inits), {"x": x})


def test_resize_below_11_by_tables_every_mode():
    """Resize-13 with scales/sizes known at conversion time, converted to 7, 9 and 10 where
    Upsample cannot express it: per-axis Gather (nearest) or MatMul (linear, cubic) tables,
    against ONNX Runtime's Resize-13 (every coordinate mode, nearest mode, cubic A and
    exclude_outside, tf_crop_and_resize with its extrapolation value, up and down, N-D)."""
    rng = np.random.default_rng(11)
    cases = []
    ctms = ("half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric", "tf_half_pixel_for_nn")
    for ctm in ctms:
        for nm in ("round_prefer_floor", "round_prefer_ceil", "floor", "ceil"):
            cases.append(_resize_case(rng, "nearest %s %s" % (ctm, nm), (1, 2, 5, 7),
                                      dict(mode="nearest", coordinate_transformation_mode=ctm, nearest_mode=nm),
                                      sizes=[1, 2, 8, 4]))
            cases.append(_resize_case(rng, "nearest %s %s scales" % (ctm, nm), (1, 1, 10, 7),
                                      dict(mode="nearest", coordinate_transformation_mode=ctm, nearest_mode=nm),
                                      scales=[1.0, 1.0, 0.7, 1.7]))
        if ctm == "tf_half_pixel_for_nn":
            continue
        for mode in ("linear", "cubic"):
            cases.append(_resize_case(rng, "%s %s up" % (mode, ctm), (1, 1, 4, 5),
                                      dict(mode=mode, coordinate_transformation_mode=ctm),
                                      scales=[1.0, 1.0, 2.0, 1.5]))
            cases.append(_resize_case(rng, "%s %s down" % (mode, ctm), (2, 3, 9, 6),
                                      dict(mode=mode, coordinate_transformation_mode=ctm),
                                      sizes=[2, 3, 4, 1]))
    cases.append(_resize_case(rng, "cubic A=-0.5 exclude_outside", (1, 1, 6, 6),
                              dict(mode="cubic", cubic_coeff_a=-0.5, exclude_outside=1), scales=[1.0, 1.0, 0.6, 1.7]))
    cases.append(_resize_case(rng, "linear 3-D trilinear", (1, 1, 3, 4, 5),
                              dict(mode="linear"), sizes=[1, 1, 5, 3, 8]))
    cases.append(_resize_case(rng, "nearest on N and C", (2, 3, 4),
                              dict(mode="nearest", coordinate_transformation_mode="asymmetric"), sizes=[3, 5, 4]))
    for mode in ("nearest", "linear", "cubic"):
        cases.append(_resize_case(rng, "%s tf_crop_and_resize" % mode, (1, 1, 5, 6),
                                  dict(mode=mode, coordinate_transformation_mode="tf_crop_and_resize",
                                       extrapolation_value=-7.5),
                                  sizes=[1, 1, 4, 5], roi=[0, 0, -0.2, 0.3, 1, 1, 0.8, 1.4]))
    problems = _check(cases, (7, 9, 10))
    assert not problems, "\n".join(problems)


def test_maxpool_dilations_and_ceil_mode_below_10():
    """MaxPool-10's dilations and ceil_mode at 7-9: dilations by gathered windows (the emitter of
    aten max_pool), ceil_mode as extra end padding (gathered too where that padding would reach
    the kernel); 1-D, 2-D, 3-D, asymmetric pads, VALID; Indices kept where no window is gathered;
    int8/uint8 (MaxPool-12) pooled in float."""
    rng = np.random.default_rng(11)
    cases = []
    for label, shape, attrs in (
            ("2d dil2", (1, 2, 6, 6), dict(kernel_shape=[2, 2], dilations=[2, 2])),
            ("2d dil strides pads", (2, 3, 9, 8), dict(kernel_shape=[3, 2], dilations=[2, 3], strides=[2, 1],
                                                        pads=[1, 0, 2, 1])),
            ("2d dil ceil", (1, 1, 7, 7), dict(kernel_shape=[2, 2], dilations=[2, 1], strides=[2, 2], ceil_mode=1)),
            ("1d dil", (2, 2, 11), dict(kernel_shape=[3], dilations=[3], pads=[2, 1])),
            ("3d dil", (1, 2, 5, 6, 5), dict(kernel_shape=[2, 2, 2], dilations=[2, 1, 2], strides=[1, 2, 1])),
            ("2d dil valid", (1, 2, 7, 6), dict(kernel_shape=[2, 3], dilations=[3, 2], auto_pad="VALID")),
            ("2d ceil", (1, 2, 7, 7), dict(kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1)),
            ("2d ceil pads", (1, 1, 6, 9), dict(kernel_shape=[2, 3], strides=[3, 2], pads=[1, 0, 0, 1], ceil_mode=1)),
            ("1d ceil end past kernel", (1, 1, 6), dict(kernel_shape=[1], strides=[4], ceil_mode=1))):
        x = rng.standard_normal(shape).astype(np.float32)
        node = helper.make_node("MaxPool", ["x"], ["y"], **attrs)
        cases.append((label, _model(node, 10, {"x": x}), {"x": x}))
    for dt in (np.uint8, np.int8):  # MaxPool-12's types, pooled in float
        x = rng.integers(-128 if dt == np.int8 else 0, 128, (1, 2, 6, 6)).astype(dt)
        for label, attrs in (("plain", dict(kernel_shape=[2, 2], pads=[1, 1, 0, 0])),
                             ("same", dict(kernel_shape=[3, 3], auto_pad="SAME_UPPER")),
                             ("dil", dict(kernel_shape=[2, 2], dilations=[2, 2]))):
            node = helper.make_node("MaxPool", ["x"], ["y"], **attrs)
            cases.append(("%s %s" % (np.dtype(dt).name, label), _model(node, 12, {"x": x}), {"x": x}))
    x = rng.standard_normal((2, 2, 7, 7)).astype(np.float32)
    node = helper.make_node("MaxPool", ["x"], ["y", "i"], kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1)
    m = _model(node, 10, {"x": x})
    m.graph.output[1].type.tensor_type.elem_type = TensorProto.INT64
    problems = _check(cases, (7, 8, 9)) + _check([("2d ceil indices", m, {"x": x})], (8, 9))
    assert not problems, "\n".join(problems)
    with pytest.raises(onnxlegal.Error, match=r"MaxPool's Indices output.*needs opset >= 8"):
        onnxlegal.convert(onnxlegal.Model.from_bytes(m.SerializeToString()), 7)


def test_maxpool_dilations_with_indices_refused_below_10():
    x = np.zeros((1, 1, 6, 6), np.float32)
    node = helper.make_node("MaxPool", ["x"], ["y", "i"], kernel_shape=[2, 2], dilations=[2, 2])
    m = _model(node, 10, {"x": x})
    m.graph.output[1].type.tensor_type.elem_type = TensorProto.INT64
    with pytest.raises(onnxlegal.Error, match=r"MaxPool with dilations and its Indices.*needs opset >= 10"):
        onnxlegal.convert(onnxlegal.Model.from_bytes(m.SerializeToString()), 9)


def test_pad_with_run_time_pads_below_11():
    """Pad-11/18/19 with pads (and value, axes) as graph inputs at 9-10 (and 'wrap' at 11-18): one
    Gather per axis of source indices computed at run time; constant (run-time value), edge,
    reflect, wrap; negative pads crop; Pad-18's axes, negative ones included."""
    rng = np.random.default_rng(13)
    x = rng.standard_normal((3, 4, 5)).astype(np.float32)
    xi = rng.integers(-50, 50, (3, 4, 5)).astype(np.int32)
    cases, wrap_cases = [], []
    for label, pads in (("grow", [1, 0, 2, 0, 3, 1]), ("crop", [-1, 2, 0, 1, -2, -1]),
                        ("zero", [0, 0, 0, 0, 0, 0])):
        pv = np.array(pads, np.int64)
        for mode in ("constant", "edge", "reflect", "wrap"):
            if mode == "reflect" and label == "crop":
                continue  # ONNX Runtime's reflect wants non-negative pads
            feeds = {"x": x, "pads": pv}
            ins = ["x", "pads"]
            if mode == "constant":
                feeds["value"] = np.array(2.5, np.float32)
                ins.append("value")
            node = helper.make_node("Pad", ins, ["y"], mode=mode)
            entry = ("%s %s" % (mode, label), _model(node, 19 if mode == "wrap" else 11, feeds), feeds)
            (wrap_cases if mode == "wrap" else cases).append(entry)
    feeds = {"x": xi, "pads": np.array([2, 1, 1, 0], np.int64), "axes": np.array([-1, 1], np.int64)}
    node = helper.make_node("Pad", ["x", "pads", "", "axes"], ["y"], mode="edge")
    cases.append(("axes int32 edge", _model(node, 18, feeds), feeds))
    problems = _check(cases, (9, 10, 13)) + _check(wrap_cases, (9, 11, 18))
    assert not problems, "\n".join(problems)


def test_where_below_9_is_an_exact_pick():
    """Where-9 at 7 and 8, for static shapes: a Gather from Concat(b, a) at i + cond[i] * N;
    broadcasting of all three inputs, inf/NaN/-0 kept as they are, and integers."""
    rng = np.random.default_rng(17)
    c = rng.integers(0, 2, (3, 1, 5)).astype(bool)
    a = rng.standard_normal((4, 5)).astype(np.float32)
    a[0, :3] = [np.inf, np.nan, -0.0]
    b = np.array([-np.inf], np.float32)
    cases = []
    for label, feeds in (("float broadcast", {"c": c, "a": a, "b": b}),
                         ("int64", {"c": c[0], "a": rng.integers(-9, 9, (1, 5)), "b": rng.integers(-9, 9, (2, 1, 5))}),
                         ("uint8", {"c": c, "a": rng.integers(0, 255, (4, 5)).astype(np.uint8), "b": np.array(7, np.uint8)})):
        node = helper.make_node("Where", ["c", "a", "b"], ["y"])
        cases.append((label, _model(node, 9, feeds, out_type=NP2ONNX[feeds["a"].dtype]), feeds))
    problems = _check(cases, (7, 8))
    assert not problems, "\n".join(problems)


def test_reverse_sequence_and_det_below_their_opsets():
    """ReverseSequence-10 at 7-9 (a Gather of rows, rank 3, both axis orders, int and float) and
    Det-11 at 7-10 (Leibniz's formula up to 5 x 5, batched)."""
    rng = np.random.default_rng(19)
    cases = []
    for ta, ba in ((0, 1), (1, 0)):
        for dt in (np.float32, np.int64):
            x = (rng.standard_normal((5, 3, 2)) * 9).astype(dt)
            lens = np.array([5, 1, 3], np.int64)
            node = helper.make_node("ReverseSequence", ["x", "lens"], ["y"], time_axis=ta, batch_axis=ba)
            feeds = {"x": x if ta == 0 else x.transpose(1, 0, 2).copy(), "lens": lens}
            cases.append(("revseq t%d %s" % (ta, np.dtype(dt).name), _model(node, 10, feeds), feeds))
    problems = _check(cases, (7, 9))
    dets = []
    for shape in ((2, 2), (4, 3, 3), (2, 4, 4), (5, 5)):
        x = rng.standard_normal(shape).astype(np.float32)
        dets.append(("det %s" % (shape,), _model(helper.make_node("Det", ["x"], ["y"]), 11, {"x": x}), {"x": x}))
    problems += _check(dets, (7, 9, 10))
    assert not problems, "\n".join(problems)


def test_dropout_training_mode_below_12_draws_as_the_kernel():
    """Dropout-13 with training_mode and ratio as inputs at 7, 9, 11: RandomUniformLike, keep =
    U >= ratio, y = x * keep / (1 - ratio); training_mode false gives x and an all-true mask."""
    x = np.ones((100, 100), np.float32)
    node = helper.make_node("Dropout", ["x", "r", "t"], ["y", "m"], seed=3)
    feeds = {"x": x, "r": np.array(0.5, np.float32), "t": np.array(True)}
    m = _model(node, 13, feeds)
    m.graph.output[1].type.tensor_type.elem_type = TensorProto.BOOL
    batch = []
    for t in (7, 9, 11):
        out = onnxlegal.convert(onnxlegal.Model.from_bytes(m.SerializeToString()), t).to_bytes()
        for train in (True, False):
            for ratio in (0.5, 0.0):
                batch.append((out, dict(feeds, t=np.array(train), r=np.array(ratio, np.float32))))
    for i, res in enumerate(run_batch(batch)):
        assert not isinstance(res, str), res
        y, mask = res["y"], res["m"]
        train, ratio = (i // 2) % 2 == 0, (0.5, 0.0)[i % 2]
        if not train or ratio == 0:
            assert np.array_equal(y, x) and mask.all()
        else:
            assert set(np.unique(y)) <= {0.0, 2.0} and np.array_equal(y == 2.0, mask)
            assert 0.4 < mask.mean() < 0.6


def test_stft_with_a_run_time_frame_step_below_17():
    """STFT-17 whose frame_step is a graph input, at 9-13: the frames counted and indexed at run
    time (NonZero/Range), the transform by MatMul; onesided or not. (Real signals: ONNX Runtime
    1.30's own STFT-17 of a complex signal disagrees with NumPy's FFT, so it cannot be the
    reference there; the conversion agrees with NumPy to 1e-6.)"""
    rng = np.random.default_rng(23)
    cases = []
    for label, sig, onesided in (("real", rng.standard_normal((2, 64, 1)), 1),
                                 ("real two-sided", rng.standard_normal((1, 50, 1)), 0)):
        for step in (5, 16):
            feeds = {"x": sig.astype(np.float32), "step": np.array(step, np.int64),
                     "w": np.hanning(16).astype(np.float32)}
            node = helper.make_node("STFT", ["x", "step", "w"], ["y"], onesided=onesided)
            cases.append(("%s step %d" % (label, step), _model(node, 17, feeds), feeds))
    problems = _check(cases, (9, 11, 13))
    assert not problems, "\n".join(problems)


def test_resize18_keep_aspect_with_run_time_sizes_below_18():
    """Resize-18's keep_aspect_ratio_policy with sizes fed at run time, at 9-17: the policy's
    scale (min / max of sizes / in), round(scale * in) halves up (4 x 6 to 3 x 3 not_smaller:
    4.5 -> 5), and coordinates by that scale, not out / in; 2 axes, nearest and linear."""
    rng = np.random.default_rng(23)
    cases = []
    for pol in ("not_larger", "not_smaller"):
        for mode, ctm in (("nearest", "half_pixel"), ("linear", "half_pixel"), ("linear", "asymmetric")):
            for (h, w), sz in (((4, 6), (7, 7)), ((4, 6), (3, 3)), ((5, 3), (8, 4)), ((6, 5), (2, 9))):
                x = rng.standard_normal((1, 2, h, w)).astype(np.float32)
                feeds = {"x": x, "sizes": np.array(sz, np.int64)}
                node = helper.make_node("Resize", ["x", "", "", "sizes"], ["y"], mode=mode,
                                        coordinate_transformation_mode=ctm,
                                        keep_aspect_ratio_policy=pol, axes=[2, 3])
                label = "%s %s %s %dx%d->%s" % (pol, mode, ctm, h, w, sz)
                cases.append((label, _model(node, 18, feeds, out_type=TensorProto.FLOAT), feeds))
    problems = _check(cases, (9, 11, 13, 17))
    assert not problems, "\n".join(problems)


def test_batch_first_rnns_below_14_match_the_stored_outputs():
    """RNN/GRU/LSTM-14 with layout 1 (batch first) at 7, 9, 13: the op on time-first tensors
    between Transposes. ONNX Runtime 1.30 runs no layout 1 at all, so the reference is the node
    tests' stored outputs."""
    from onnx import numpy_helper
    root = "/usr/share/libonnx-testdata/data/node"
    if not os.path.isdir(root):
        pytest.skip("libonnx-testdata is not installed")
    batch, want = [], []
    for name in ("test_simple_rnn_batchwise", "test_gru_batchwise", "test_lstm_batchwise"):
        d = os.path.join(root, name)
        m = onnx.load(os.path.join(d, "model.onnx"))

        def pb(kind, i):
            t = onnx.TensorProto()
            with open(os.path.join(d, "test_data_set_0", "%s_%d.pb" % (kind, i)), "rb") as f:
                t.ParseFromString(f.read())
            return numpy_helper.to_array(t)
        feeds = {vi.name: pb("input", i) for i, vi in enumerate(m.graph.input)}
        outs = {vo.name: pb("output", i) for i, vo in enumerate(m.graph.output)}
        for t in (7, 9, 13):
            conv = onnxlegal.convert(onnxlegal.Model.from_bytes(m.SerializeToString()), t)
            batch.append((conv.to_bytes(), feeds))
            want.append((name, t, outs))
    for (name, t, outs), got in zip(want, run_batch(batch)):
        assert not isinstance(got, str), (name, t, got)
        for k, v in outs.items():
            np.testing.assert_allclose(got[k], v, rtol=1e-5, atol=1e-6, err_msg="%s ->%d" % (name, t))


def test_reshape14_allowzero_with_a_run_time_shape_below_14():
    """Reshape-14 allowzero=1 whose shape is a graph input, at 7, 9, 13: the input tiled so that
    the dims a 0 copies are 0 (an empty result exactly where the shape holds a 0), and the
    plain reshape, -1 included, where it holds none."""
    rng = np.random.default_rng(25)
    cases = []
    for xs, shape in (((2, 3, 4), (4, 0, 3)), ((0, 3), (3, 0)), ((0, 3), (0, 7, 2)),
                      ((2, 3, 4), (6, -1)), ((2, 3, 4), (4, 3, 2)), ((0, 4), (2, -1, 4)),
                      ((3, 0, 2), (0,)), ((2, 3, 4), (24,))):
        if 0 in shape and np.prod(xs) != 0:
            continue  # allowzero with a 0 needs an empty input
        feeds = {"x": rng.standard_normal(xs).astype(np.float32), "s": np.array(shape, np.int64)}
        node = helper.make_node("Reshape", ["x", "s"], ["y"], allowzero=1)
        cases.append(("%s to %s" % (xs, shape), _model(node, 14, feeds, out_type=TensorProto.FLOAT), feeds))
    # a known shape holding a 0 (was refused naming 14)
    from onnx import numpy_helper
    feeds = {"x": np.zeros((0, 3, 4), np.float32)}
    node = helper.make_node("Reshape", ["x", "s"], ["y"], allowzero=1)
    inits = [numpy_helper.from_array(np.array([3, 4, 0], np.int64), "s")]
    cases.append(("known 3,4,0", _model(node, 14, feeds, inits=inits), feeds))
    problems = _check(cases, (7, 9, 13))
    assert not problems, "\n".join(problems)


def test_stft_with_a_run_time_frame_length_below_17():
    """STFT-17 whose frame_length is a graph input (no window, or a window whose length is known
    only at run time), at 9, 11, 13: the frame index table and the DFT's cosine and sine
    matrices computed in the graph (Range, Cos, Sin); step known or at run time, onesided or
    not, lengths a power of 2 and not. Checked against ONNX Runtime on the source at 17 (to
    1e-4, as the known-length STFT test: ORT's own float DFT of a length not a power of 2 is
    off NumPy's by 2e-5) and against NumPy's FFT in double (to 5e-6)."""
    from onnx import numpy_helper
    rng = np.random.default_rng(25)
    batch, meta = [], []
    for flen, step, onesided in ((16, 8, 1), (12, 5, 0), (7, 3, 1), (16, 16, 0)):
        sig = rng.standard_normal((2, 50, 1)).astype(np.float32)
        nf = (50 - flen) // step + 1
        frames = np.stack([sig[:, f * step:f * step + flen, 0].astype(np.float64) for f in range(nf)], 1)
        models = []
        for rt_step in (False, True):
            feeds = {"x": sig, "flen": np.array(flen, np.int64)}
            inits = []
            if rt_step:
                feeds["step"] = np.array(step, np.int64)
            else:
                inits = [numpy_helper.from_array(np.array(step, np.int64), "step")]
            node = helper.make_node("STFT", ["x", "step", "", "flen"], ["y"], onesided=onesided)
            models.append((_model(node, 17, feeds, inits=inits), feeds, np.ones(flen)))
        # a window of a length known only at run time, no frame_length
        win = np.hanning(flen).astype(np.float32)
        feeds = {"x": sig, "step": np.array(step, np.int64), "w": win}
        node = helper.make_node("STFT", ["x", "step", "w"], ["y"], onesided=onesided)
        m = _model(node, 17, feeds)
        m.graph.input[2].type.tensor_type.shape.dim[0].dim_param = "wl"
        models.append((m, feeds, win.astype(np.float64)))
        for k, (m, feeds, w) in enumerate(models):
            spec = np.fft.fft(frames * w, axis=-1)
            if onesided:
                spec = spec[..., :flen // 2 + 1]
            want = np.stack([spec.real, spec.imag], -1)
            label = "flen %d step %d onesided %d model %d" % (flen, step, onesided, k)
            batch.append((m.SerializeToString(), feeds))
            meta.append((label, None, want))
            for t in (9, 11, 13):
                batch.append((onnxlegal.convert(m.SerializeToString(), t), feeds))
                meta.append((label, t, want))
    ref = None
    for (label, t, want), r in zip(meta, run_batch(batch)):
        assert not isinstance(r, str), (label, t, r)
        if t is None:
            ref = r["y"]
            continue
        assert r["y"].shape == ref.shape, (label, t)
        np.testing.assert_allclose(r["y"], ref, rtol=1e-4, atol=1e-4, err_msg="%s ->%d vs ORT" % (label, t))
        np.testing.assert_allclose(r["y"], want, rtol=0, atol=5e-6, err_msg="%s ->%d vs NumPy" % (label, t))


def test_dft_with_a_run_time_dft_length_below_17():
    """DFT-17 whose dft_length is a graph input, at 9 and 13 (the run-time matrices of the STFT
    above): shorter than the signal (cut), longer (zero-padded), real and complex, forward,
    inverse and onesided, along axis 1."""
    rng = np.random.default_rng(5)
    batch, meta = [], []
    for comps in (1, 2):
        for n in (5, 8, 13):
            for inv, onesided in ((0, 0), (1, 0)) + (((0, 1),) if comps == 1 else ()):
                x = rng.standard_normal((2, 8, comps)).astype(np.float32)
                feeds = {"x": x, "n": np.array(n, np.int64)}
                node = helper.make_node("DFT", ["x", "n"], ["y"], axis=1, inverse=inv, onesided=onesided)
                m = _model(node, 17, feeds).SerializeToString()
                label = "comps %d n %d inverse %d onesided %d" % (comps, n, inv, onesided)
                for t in (None, 9, 13):
                    batch.append((m if t is None else onnxlegal.convert(m, t), feeds))
                    meta.append((label, t))
    ref = None
    for (label, t), r in zip(meta, run_batch(batch)):
        assert not isinstance(r, str), (label, t, r)
        if t is None:
            ref = r["y"]
            continue
        assert r["y"].shape == ref.shape, (label, t)
        np.testing.assert_allclose(r["y"], ref, rtol=1e-5, atol=1e-5, err_msg="%s ->%d" % (label, t))


def test_mel_weight_matrix_below_17():
    """MelWeightMatrix-17 whose inputs are graph inputs (int32 and int64 counts), at 9, 11, 13:
    the triangle edges computed in double as ONNX Runtime's kernel computes them (the mel step
    over num_mel_bins + 2), the matrix by Where; float, double and integer output_datatype;
    coarse and fine banks, edges above 0, an odd dft_length."""
    cases = []
    for k, (m, n, sr, lo, hi) in enumerate(((8, 16, 8192, 0.0, 4096.0), (10, 64, 16000, 20.0, 8000.0),
                                            (40, 1024, 16000, 125.0, 7600.0), (13, 31, 1000, 0.0, 480.0),
                                            (64, 512, 22050, 300.5, 11025.0), (3, 8, 100, 10.0, 40.0))):
        for it, dt in ((np.int32, TensorProto.FLOAT), (np.int64, TensorProto.DOUBLE),
                       (np.int64, TensorProto.INT32), (np.int32, TensorProto.UINT8)):
            if dt == TensorProto.UINT8 and k % 2:
                continue
            feeds = {"m": np.array(m, it), "n": np.array(n, it), "sr": np.array(sr, it),
                     "lo": np.array(lo, np.float32), "hi": np.array(hi, np.float32)}
            node = helper.make_node("MelWeightMatrix", ["m", "n", "sr", "lo", "hi"], ["y"], output_datatype=dt)
            cases.append(("%s %s %s" % ((m, n, sr, lo, hi), it.__name__, dt), _model(node, 17, feeds, out_type=dt), feeds))
    problems = _check(cases, (9, 11, 13))
    assert not problems, "\n".join(problems)


def _roi_align_case(rng, label, opset, attrs, n=2, c=3, h=9, w=11, k=6, dynamic=False):
    x = rng.standard_normal((n, c, h, w)).astype(np.float32)
    # rois inside, across the border, outside, a point, reversed (malformed)
    rois = np.concatenate([rng.uniform(-3, max(h, w) + 3, (k, 2)), rng.uniform(0, 8, (k, 2))], 1)
    rois[:, 2:] += rois[:, :2]
    rois[0] = [1, 1, 1, 1]
    rois[1] = [6, 5, 2, 1]
    rois = rois.astype(np.float32)
    bidx = rng.integers(0, n, k).astype(np.int64)
    node = helper.make_node("RoiAlign", ["X", "rois", "batch_indices"], ["Y"], **attrs)
    dims = ["N", c, "H", "W"] if dynamic else [n, c, h, w]
    g = helper.make_graph(
        [node], "g",
        [helper.make_tensor_value_info("X", TensorProto.FLOAT, dims),
         helper.make_tensor_value_info("rois", TensorProto.FLOAT, ["K", 4]),
         helper.make_tensor_value_info("batch_indices", TensorProto.INT64, ["K"])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 7 if opset < 15 else 8
    return (label, m, {"X": x, "rois": rois, "batch_indices": bidx})


def test_roi_align_by_gathers_below_its_opsets():
    """RoiAlign-16 half_pixel below 16 and RoiAlign (either mode) below 10, with a fixed
    sampling ratio: by gathers, equal to ONNX Runtime's kernel (avg and max, scales, rois outside
    the map, a point, a reversed roi, several sampling ratios), a map of static or run-time
    size."""
    rng = np.random.default_rng(16)
    cases, dyn_cases = [], []
    for mode in ("avg", "max"):
        for sr, scale, oh, ow in ((2, 1.0, 5, 5), (1, 0.5, 3, 4), (3, 0.25, 2, 3)):
            base = dict(mode=mode, sampling_ratio=sr, spatial_scale=scale, output_height=oh,
                        output_width=ow)
            lbl = "%s sr%d s%g" % (mode, sr, scale)
            cases.append(_roi_align_case(rng, "half " + lbl, 16,
                                         dict(base, coordinate_transformation_mode="half_pixel")))
            cases.append(_roi_align_case(rng, "out_half " + lbl, 10, base))
            dyn_cases.append(_roi_align_case(
                rng, "half dyn " + lbl, 16, dict(base, coordinate_transformation_mode="half_pixel"),
                dynamic=True))
    assert not _check(cases, [7, 9, 13, 15])
    assert not _check(dyn_cases, [9, 11, 13])


def test_roi_align_adaptive_sampling_stays_refused_naming_why():
    rng = np.random.default_rng(17)
    _, m, _ = _roi_align_case(rng, "adaptive", 16, dict(coordinate_transformation_mode="half_pixel",
                                                         sampling_ratio=0))
    with pytest.raises(onnxlegal.Error) as e:
        onnxlegal.convert(onnxlegal.Model.from_bytes(m.SerializeToString()), 13)
    assert "sampling_ratio 0" in str(e.value) and "16" in str(e.value)
    # a map of run-time size at 7: clamping to it needs Where (9)
    _, m, _ = _roi_align_case(rng, "dyn", 16, dict(coordinate_transformation_mode="half_pixel",
                                                    sampling_ratio=2), dynamic=True)
    with pytest.raises(onnxlegal.Error) as e:
        onnxlegal.convert(onnxlegal.Model.from_bytes(m.SerializeToString()), 7)
    assert "opset >= 9" in str(e.value)


def _nms_case(label, boxes, scores, center=0, max_out=None, iou=None, score=None, as_feeds=False):
    feeds = {"boxes": boxes, "scores": scores}
    extra = [("max_output_boxes_per_class", max_out, np.int64), ("iou_threshold", iou, np.float32),
             ("score_threshold", score, np.float32)]
    inputs, inits = ["boxes", "scores"], []
    for name, v, t in extra:
        if v is None:
            inputs.append("")
            continue
        inputs.append(name)
        arr = np.array([v], dtype=t)
        if as_feeds:
            feeds[name] = arr
        else:
            inits.append(onnx.numpy_helper.from_array(arr, name))
    while inputs[-1] == "":
        inputs.pop()
    node = helper.make_node("NonMaxSuppression", inputs, ["y"], center_point_box=center)
    return (label, _model(node, 10, feeds, TensorProto.INT64, inits), feeds)


def test_nonmaxsuppression_below_10_as_loops_matches_the_kernel():
    """NonMaxSuppression-10 at 9: Loops that take the boxes as the kernel's priority queue does
    (score, then the lower index among ties), with its IoU test (strict: exactly at the
    threshold is kept) and its output order; max_output 0, negative or absent selects none."""
    import onnx.numpy_helper  # noqa: F401
    rng = np.random.default_rng(25)
    cases = []
    for k in range(6):
        b, c, n = [(1, 1, 6), (2, 3, 8), (3, 2, 10), (1, 2, 12), (2, 1, 1), (2, 2, 7)][k]
        xy = rng.uniform(0, 4, (b, n, 2)).astype(np.float32)
        wh = rng.uniform(0.5, 3, (b, n, 2)).astype(np.float32)
        corners = np.concatenate([xy, xy + wh], axis=2)
        corners = np.where(rng.random((b, n, 4)) < 0.2, corners[..., [2, 3, 0, 1]], corners)
        center = np.concatenate([xy, wh], axis=2)
        # coarse scores: many ties, in the heap's order
        sc = np.round(rng.uniform(0, 1, (b, c, n)) * 4).astype(np.float32) / 4
        cases.append(_nms_case("nms%d" % k, corners, sc, 0, 3 + k, 0.3, 0.2))
        cases.append(_nms_case("nms%d_center" % k, center, sc, 1, 100, 0.4, None))
        cases.append(_nms_case("nms%d_feeds" % k, corners, sc, 0, 2, 0.1, 0.5, as_feeds=True))
        cases.append(_nms_case("nms%d_noiou" % k, corners, sc, 0, 4))
        tie = np.full((b, c, n), 0.5, np.float32)
        cases.append(_nms_case("nms%d_alltie" % k, corners, tie, 0, n, 0.0))
    sq = np.array([[[0, 0, 1, 1], [0, 0, 1, 0.5], [0, 0.5, 1, 1], [0, 0, 0.5, 1], [2, 2, 3, 3],
                    [0, 0, 1, 1], [0, 0, 2, 1]]], np.float32)
    sqs = np.array([[[0.9, 0.9, 0.8, 0.9, 0.9, 0.7, 0.9]]], np.float32)
    cases.append(_nms_case("iou_at_threshold", sq, sqs, 0, 10, 0.5, 0.0))  # IoU 0.5 is kept
    cases.append(_nms_case("iou_below", sq, sqs, 0, 10, 0.49, None))
    cases.append(_nms_case("max_zero", sq, sqs, 0, 0, 0.5, None))
    cases.append(_nms_case("max_negative", sq, sqs, 0, -3, 0.5, None, as_feeds=True))
    cases.append(_nms_case("max_absent", sq, sqs))
    cases.append(_nms_case("all_filtered", sq, sqs, 0, 5, 0.5, 0.95))
    label, m, feeds = _nms_case("dynamic_sizes", corners, sc, 0, 3, 0.3, 0.1)
    for v in m.graph.input:
        for d, p in zip(v.type.tensor_type.shape.dim, ["b", "n"] if v.name == "boxes" else ["b", "c", "n"]):
            d.dim_param = p
    cases.append((label, m, feeds))
    assert _check(cases, [9]) == []


def test_unique_below_11_by_pairwise_comparison():
    """Unique-11 at 9 and 10: sorted and not, flattened and along an axis (lexicographic
    slices), int64, int8 (compared as int64), float, double (signed zeros); every output matches
    ONNX Runtime exactly (its Unique has no int32, uint8 or bool kernel to compare with)."""
    rng = np.random.default_rng(11)
    cases = []
    xs = {
        "f32": rng.integers(-3, 4, (4, 5)).astype(np.float32) / 2,
        "i64": rng.integers(-2, 3, (3, 4, 2)).astype(np.int64),
        "f64": np.array([[0.0, -0.0, 1.5], [1.5, 0.0, -2.0], [0.0, -0.0, 1.5]], np.float64),
        "i8": np.array([[1, 1], [0, 1], [1, 1], [1, 0], [0, 1]], np.int8),
    }
    outs = ["y", "indices", "inverse_indices", "counts"]
    for name, x in xs.items():
        for s in (0, 1):
            for axis in [None] + list(range(-x.ndim, x.ndim)):
                kw = {"sorted": s} if (s == 0 or axis is not None) else {}
                if axis is not None:
                    kw["axis"] = axis
                node = helper.make_node("Unique", ["x"], outs, **kw)
                m = _model(node, 11, {"x": x})
                for o, t in zip(m.graph.output, [NP2ONNX[x.dtype]] + [TensorProto.INT64] * 3):
                    o.type.tensor_type.elem_type = t
                cases.append(("unique_%s_s%d_a%s" % (name, s, axis), m, {"x": x}))
                if name == "f32":  # sizes known at run time only (the index ranges by Loops)
                    m2 = onnx.ModelProto()
                    m2.CopyFrom(m)
                    for d, p in zip(m2.graph.input[0].type.tensor_type.shape.dim, "ab"):
                        d.dim_param = p
                    cases.append(("unique_dyn_s%d_a%s" % (s, axis), m2, {"x": x}))
    assert _check(cases, [9, 10]) == []


def test_unique_below_11_of_types_ort_has_no_kernel_for_matches_numpy():
    """Unique of int32, uint8 and bool (compared as int64) at 9: ONNX Runtime has no Unique
    kernel for them to compare with, so NumPy's unique is the reference (sorted, flattened or
    along axis 0: the same lexicographic order)."""
    rng = np.random.default_rng(12)
    xs = {"i32": rng.integers(-3, 3, (6, 3)).astype(np.int32),
          "u8": rng.integers(0, 3, (5, 2)).astype(np.uint8),
          "bool": rng.random((5, 2)) < 0.5}
    outs = ["y", "indices", "inverse_indices", "counts"]
    batch, wants = [], []
    for name, x in xs.items():
        for axis in (None, 0):
            kw = {} if axis is None else {"axis": axis}
            m = _model(helper.make_node("Unique", ["x"], outs, **kw), 11, {"x": x})
            for o, t in zip(m.graph.output, [NP2ONNX[x.dtype]] + [TensorProto.INT64] * 3):
                o.type.tensor_type.elem_type = t
            out = onnxlegal.convert(onnxlegal.Model.from_bytes(m.SerializeToString()), 9)
            batch.append((out.to_bytes(), {"x": x}))
            y, i, inv, c = np.unique(x, return_index=True, return_inverse=True, return_counts=True,
                                     axis=axis)
            wants.append((name, axis, [y, i, inv.reshape(-1), c]))
    for (name, axis, want), got in zip(wants, run_batch(batch)):
        assert not isinstance(got, str), (name, axis, got)
        for k, w in zip(outs, want):
            assert np.array_equal(got[k], w) and got[k].dtype == w.dtype, (name, axis, k, got[k], w)


def test_bernoulli_below_15_draws_as_defined():
    """Bernoulli-15 below 15 as U < p for U uniform in [0, 1) (RandomUniformLike, the seed kept),
    cast to dtype: 1 with probability p, as the operator is defined (and onnx's reference and
    PyTorch draw it). The draws are the runtime's, so the numbers checked are those p fixes: p = 0
    gives 0 and p = 1 gives 1 exactly at every target; p = 0.3 over 10^5 draws averages 0.3 (within
    0.01, seven standard deviations). Output dtypes: the input's, int64 and bool by the dtype
    attribute; float16 and double inputs. The source is not run: ONNX Runtime runs onnx's function
    body for Bernoulli, which compares Greater(U, p) and draws 1 with probability 1 - p. At 15 the
    node is kept as it is."""
    n = 100000
    fixed = np.concatenate([np.zeros(n // 2), np.ones(n // 2)])
    batch, meta = [], []
    for label, ptype, dtype, out_np in (("float", np.float32, None, np.float32), ("double", np.float64, None, np.float64),
                                        ("half", np.float16, None, np.float16), ("to int64", np.float32, TensorProto.INT64, np.int64),
                                        ("to bool", np.float32, TensorProto.BOOL, np.bool_)):
        attrs = {"seed": 5.0}
        if dtype is not None:
            attrs["dtype"] = dtype
        node = helper.make_node("Bernoulli", ["p"], ["y"], **attrs)
        m = _model(node, 15, {"p": fixed.astype(ptype)}, out_type=NP2ONNX[np.dtype(out_np)])
        src = onnxlegal.Model.from_bytes(m.SerializeToString())
        kept = onnx.load_from_string(onnxlegal.convert(src, 15).to_bytes())
        assert [(n.op_type, list(n.attribute)) for n in kept.graph.node] == [("Bernoulli", list(node.attribute))]
        for t in (9, 11, 13, 14):
            data = onnxlegal.convert(src, t).to_bytes()
            assert b"RandomUniformLike" in data and b"Bernoulli" not in data, (label, t)
            for feed in (fixed, np.full(n, 0.3)):
                batch.append((data, {"p": feed.astype(ptype)}))
                meta.append((label, t, out_np, feed is fixed))
    res = run_batch(batch)
    for (label, t, out_np, is_fixed), r in zip(meta, res):
        assert not isinstance(r, str), (label, t, r)
        y = r["y"]
        assert y.dtype == np.dtype(out_np) and y.shape == (n,), (label, t, y.dtype, y.shape)
        if is_fixed:
            np.testing.assert_array_equal(y.astype(np.float64), fixed, err_msg="%s ->%s" % (label, t))
        else:
            assert abs(y.astype(np.float64).mean() - 0.3) < 0.01, (label, t, y.astype(np.float64).mean())


def test_aten_bernoulli_shares_the_emitter():
    """aten::bernoulli(self), bernoulli.p(self, p) and bernoulli.Tensor(self, p): U < p at every opset, as PyTorch's
    exporters write it (not Bernoulli at 15: see above); the numbers p fixes, 0 and 1 exactly,
    0.3 on average."""
    from onnxlegal.lowering import legalize
    n = 100000
    fixed = np.concatenate([np.zeros(n // 2), np.ones(n // 2)]).astype(np.float32)
    batch = []
    for opset in (9, 13, 17):
        m = onnxlegal.Model(opset={"": 11})
        g = m.graph
        x = g.add_input("x", np.float32, [n])
        g.add_output(g.source_node("aten", "bernoulli", [x], n_outputs=["y"], name="b"))
        g.add_output(g.source_node("aten", "bernoulli", [x, 0.3], n_outputs=["z"], name="bp"))
        g.add_output(g.source_node("aten", "bernoulli", [x, 1.0], n_outputs=["w"], name="b1"))
        ps = g.add_input("ps", np.float64, [2, 1])  # bernoulli.Tensor: p broadcast to self's shape
        g.add_output(g.source_node("aten", "bernoulli", [g.add_input("z2", np.float32, [2, n // 2]), ps],
                                   n_outputs=["v"], name="bt"))
        data = legalize(m, opset=opset).to_bytes()
        assert b"RandomUniformLike" in data and b"Bernoulli" not in data
        batch.append((data, {"x": fixed, "ps": np.array([[0.0], [1.0]]), "z2": np.full((2, n // 2), 0.5, np.float32)}))
    for r in run_batch(batch):
        assert not isinstance(r, str), r
        np.testing.assert_array_equal(r["y"], fixed)
        assert r["y"].dtype == np.float32 and abs(r["z"].mean() - 0.3) < 0.01, r["z"].mean()
        np.testing.assert_array_equal(r["w"], np.ones(n, np.float32))
        np.testing.assert_array_equal(r["v"], fixed.reshape(2, n // 2))
    # a generator (what is not a floating tensor in p's place) is not a graph value: refused
    m = onnxlegal.Model(opset={"": 11})
    g = m.graph
    g.add_output(g.source_node("aten", "bernoulli", [g.add_input("x", np.float32, [3]), g.add_input("gen", np.int64, [])],
                               n_outputs=["y"], name="b"))
    with pytest.raises(onnxlegal.Error, match="bernoulli with a generator"):
        legalize(m, opset=13)


def test_torch_bernoulli_exports_through_the_shared_emitter(tmp_path):
    """torch.bernoulli(x) and torch.bernoulli(x, p) exported by onnxlegal.torch (the aten ops
    above): what p fixes exactly, the mean of p = 0.3 within 0.01, at 11 and 17."""
    torch = pytest.importorskip("torch")
    olt = pytest.importorskip("onnxlegal.torch")

    class M(torch.nn.Module):
        def forward(self, x):
            return torch.bernoulli(x), torch.bernoulli(x, 0.3), torch.bernoulli(x, 1.0)

    x = torch.cat([torch.zeros(50000), torch.ones(50000)])
    batch = []
    for opset in (11, 17):
        path = tmp_path / ("m%d.onnx" % opset)
        olt.export(M(), (x,), str(path), opset_version=opset)
        m = onnx.load(str(path))
        batch.append((m.SerializeToString(), {m.graph.input[0].name: x.numpy()}))
    for r in run_batch(batch):
        assert not isinstance(r, str), r
        a, b, c = r.values()
        np.testing.assert_array_equal(a, x.numpy())
        assert abs(b.mean() - 0.3) < 0.01 and (c == 1).all(), (b.mean(), c.min())
