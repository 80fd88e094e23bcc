"""ONNX ops whose axes, sizes, k or bounds are graph inputs (known only at run time), converted
below the opset that takes them as inputs, run in ONNX Runtime against numpy: the cases the
backend corpus (test_convert_corpus.py) does not reach -- negative axes, keepdims=0 of the
other reductions, empty axes, zero-size parts, inf next to dropped entries, unknown dims,
run-time axes in 3-D, DFT forward (complex, real, onesided), and the refusals (naming the lowest opset that works) where no exact
expression exists."""
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

F, I64 = TensorProto.FLOAT, TensorProto.INT64
BIG = np.iinfo(np.int64).max


def _model(node, opset, inputs, n_out=1):
    outs = [helper.make_tensor_value_info("y%d" % i if n_out > 1 else "y", F, None) for i in range(n_out)]
    for o in outs:
        o.type.tensor_type.ClearField("elem_type")
    g = helper.make_graph([node], "g", inputs, outs)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 7 if opset < 15 else 8
    return m


def _read(m, tmp_path):
    del tmp_path
    return onnxlegal.Model.from_bytes(m.SerializeToString())


def _vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def _reduce_np(kind, x, axes, keepdims):
    axes = tuple(a % x.ndim for a in axes) if len(axes) else tuple(range(x.ndim))
    f = {"ReduceSum": lambda v: v.sum(axes, keepdims=True),
         "ReduceL2": lambda v: np.sqrt((v * v).sum(axes, keepdims=True)),
         "ReduceLogSumExp": lambda v: np.log(np.exp(v).sum(axes, keepdims=True)),
         "ReduceSumSquare": lambda v: (v * v).sum(axes, keepdims=True),
         "ReduceLogSum": lambda v: np.log(v.sum(axes, keepdims=True)),
         "ReduceMean": lambda v: v.mean(axes, keepdims=True),
         "ReduceProd": lambda v: v.prod(axes, keepdims=True),
         "ReduceMin": lambda v: v.min(axes, keepdims=True)}[kind]
    y = f(x)
    return y if keepdims else np.squeeze(y, axis=axes)


def _cases(tmp_path):
    """[(name, source model, feeds, expected outputs, targets)]"""
    rng = np.random.default_rng(7)
    x3 = rng.uniform(0.5, 2.0, (2, 3, 4)).astype(np.float32)
    out = []
    for kind in ("ReduceL2", "ReduceLogSumExp", "ReduceSumSquare", "ReduceLogSum", "ReduceMean",
                 "ReduceProd", "ReduceMin"):
        for keep in (0, 1):
            node = helper.make_node(kind, ["x", "axes"], ["y"], keepdims=keep)
            m = _model(node, 18, [_vi("x", F, [2, 3, 4]), _vi("axes", I64, [2])])
            axes = np.array([-1, 0], np.int64)
            out.append(("%s_keep%d" % (kind, keep), m, {"x": x3, "axes": axes},
                        [_reduce_np(kind, x3, axes, keep)], (7, 9, 11, 13, 17)))
    for noop in (0, 1):
        node = helper.make_node("ReduceSum", ["x", "axes"], ["y"], keepdims=0, noop_with_empty_axes=noop)
        m = _model(node, 13, [_vi("x", F, [2, 3, 4]), _vi("axes", I64, [0])])
        want = x3 if noop else np.array(x3.sum(), np.float32)
        out.append(("sum_empty_noop%d" % noop, m, {"x": x3, "axes": np.zeros(0, np.int64)}, [want], (7, 11)))
    x4 = rng.standard_normal((2, 1, 3, 1)).astype(np.float32)
    m = _model(helper.make_node("Squeeze", ["x", "axes"], ["y"]), 13,
               [_vi("x", F, [2, 1, 3, 1]), _vi("axes", I64, [2])])
    out.append(("squeeze_neg", m, {"x": x4, "axes": np.array([-1, 1], np.int64)}, [x4.reshape(2, 3)], (7, 11)))
    x2 = rng.standard_normal((2, 3)).astype(np.float32)
    m = _model(helper.make_node("Unsqueeze", ["x", "axes"], ["y"]), 13,
               [_vi("x", F, [2, 3]), _vi("axes", I64, [2])])
    out.append(("unsqueeze_neg", m, {"x": x2, "axes": np.array([-1, 0], np.int64)}, [x2.reshape(1, 2, 3, 1)], (7, 11)))
    x24 = rng.standard_normal((2, 4)).astype(np.float32)
    m = _model(helper.make_node("Split", ["x", "split"], ["y0", "y1", "y2"], axis=-1), 13,
               [_vi("x", F, [2, 4]), _vi("split", I64, [3])], n_out=3)
    out.append(("split_zero_part", m, {"x": x24, "split": np.array([1, 0, 3], np.int64)},
                [x24[:, :1], x24[:, 1:1], x24[:, 1:]], (7, 9, 10, 11)))
    # Trilu: a run-time k next to inf (kept exact: no multiplication by a mask)
    xt = rng.standard_normal((2, 3, 4)).astype(np.float32)
    xt[0, 0, 3] = np.inf
    xt[1, 2, 0] = -np.inf
    for upper in (0, 1):
        m = _model(helper.make_node("Trilu", ["x", "k"], ["y"], upper=upper), 14,
                   [_vi("x", F, [2, 3, 4]), _vi("k", I64, [])])
        k = np.array(1 if upper else -1, np.int64)
        want = np.triu(xt, 1) if upper else np.tril(xt, -1)
        want = np.where(np.isinf(xt) & (want == 0), 0, want).astype(np.float32)
        out.append(("trilu_inf_upper%d" % upper, m, {"x": xt, "k": k}, [want], (7, 9, 11, 13)))
    m = _model(helper.make_node("Trilu", ["x", "k"], ["y"], upper=0), 14,
               [_vi("x", F, ["n", "m"]), _vi("k", I64, [])])
    out.append(("trilu_unknown_dims", m, {"x": x24, "k": np.array(1, np.int64)}, [np.tril(x24, 1)], (11, 13)))
    # CumSum along a run-time negative axis of a 3-D tensor, exclusive and reversed
    m = _model(helper.make_node("CumSum", ["x", "axis"], ["y"], exclusive=1, reverse=1), 14,
               [_vi("x", F, [2, 3, 4]), _vi("axis", I64, [])])
    rev = np.flip(np.cumsum(np.flip(x3, 1), 1), 1) - x3
    out.append(("cumsum_axis_neg2_excl_rev", m, {"x": x3, "axis": np.array(-2, np.int64)}, [rev], (7, 9)))
    # Slice: negative steps, negative axes, bounds past the ends
    x56 = np.arange(30, dtype=np.float32).reshape(5, 6)
    m = _model(helper.make_node("Slice", ["x", "s", "e", "a", "st"], ["y"]), 13,
               [_vi("x", F, [5, 6]), _vi("s", I64, [2]), _vi("e", I64, [2]), _vi("a", I64, [2]),
                _vi("st", I64, [2])])
    feeds = {"x": x56, "s": np.array([BIG, 1], np.int64), "e": np.array([-BIG, 5], np.int64),
             "a": np.array([-1, 0], np.int64), "st": np.array([-2, 3], np.int64)}
    out.append(("slice_neg_steps", m, feeds, [x56[1:5:3, ::-2]], (7, 9)))
    # TopK of the smallest with a run-time k
    m = _model(helper.make_node("TopK", ["x", "k"], ["y0", "y1"], axis=1, largest=0), 11,
               [_vi("x", F, [2, 4]), _vi("k", I64, [1])], n_out=2)
    xk = np.array([[3, 1, 2, 0], [5, 7, 6, 4]], np.float32)
    idx = np.argsort(xk, 1, kind="stable")[:, :2]
    out.append(("topk_smallest", m, {"x": xk, "k": np.array([2], np.int64)},
                [np.take_along_axis(xk, idx, 1), idx], (7, 9)))
    # Range of int64 with a negative delta
    m = _model(helper.make_node("Range", ["a", "b", "c"], ["y"]), 11,
               [_vi("a", I64, []), _vi("b", I64, []), _vi("c", I64, [])])
    out.append(("range_int64_neg", m, {"a": np.array(10, np.int64), "b": np.array(-3, np.int64),
                                       "c": np.array(-4, np.int64)}, [np.arange(10, -3, -4)], (9, 10)))
    # DFT below 17: forward of a complex and a real signal (onesided too), along axis 1
    sig = rng.standard_normal((2, 6, 3, 2)).astype(np.float32)
    m = _model(helper.make_node("DFT", ["x"], ["y"], axis=1), 17, [_vi("x", F, [2, 6, 3, 2])])
    f = np.fft.fft(sig[..., 0] + 1j * sig[..., 1], axis=1)
    out.append(("dft_complex", m, {"x": sig}, [np.stack([f.real, f.imag], -1).astype(np.float32)], (7, 13)))
    real = sig[..., :1]
    for onesided in (0, 1):
        m = _model(helper.make_node("DFT", ["x"], ["y"], axis=1, onesided=onesided), 17,
                   [_vi("x", F, [2, 6, 3, 1])])
        f = (np.fft.rfft if onesided else np.fft.fft)(real[..., 0], axis=1)
        out.append(("dft_real_onesided%d" % onesided, m, {"x": real},
                    [np.stack([f.real, f.imag], -1).astype(np.float32)], (9, 13)))
    return [(n, _read(m, tmp_path), f, w, t) for n, m, f, w, t in out]


def test_runtime_arguments_convert_exactly(tmp_path):
    from ortrun import run_batch
    cases = _cases(tmp_path)
    batch, meta = [], []
    for name, src, feeds, want, targets in cases:
        for t in targets:
            out = onnxlegal.convert(src, t)  # raises on a refusal: none expected here
            batch.append((out.to_bytes(), feeds))
            meta.append((name, t, want))
    bad = []
    for (name, t, want), r in zip(meta, run_batch(batch)):
        if isinstance(r, str):
            bad.append("%s ->%d: %s" % (name, t, r[:300]))
            continue
        for got, w in zip(r.values(), want):
            got = np.asarray(got)
            if got.shape != w.shape or not np.allclose(got, w, rtol=1e-5, atol=1e-5, equal_nan=True):
                bad.append("%s ->%d: got %s %s, want %s %s" % (name, t, got.shape, got.ravel()[:8],
                                                                w.shape, w.ravel()[:8]))
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("node,opset,inputs,target,lowest", [
    (helper.make_node("Trilu", ["x", "k"], ["y"]), 14, [("x", F, ["n", "m"]), ("k", I64, [])], 9, 11),
    (helper.make_node("Range", ["a", "b", "c"], ["y"]), 11, [("a", F, []), ("b", F, []), ("c", F, [])], 7, 9),
    (helper.make_node("CumSum", ["x", "axis"], ["y"]), 14, [("x", F, ["n"]), ("axis", I64, [])], 9, 11),
    (helper.make_node("Slice", ["x", "s", "e"], ["y"]), 13, [("x", F, ["n"]), ("s", I64, [1]), ("e", I64, [1])], 9, 10),
])
def test_refused_where_no_exact_expression(node, opset, inputs, target, lowest, tmp_path):
    src = _read(_model(node, opset, [_vi(*i) for i in inputs]), tmp_path)
    with pytest.raises(onnxlegal.Error) as e:
        onnxlegal.convert(src, target)
    diags = [d for d in e.value.diagnostics if d["severity"] == "error"]
    assert diags and diags[0]["op"] == node.op_type and diags[0]["min_opset"] == lowest, diags
