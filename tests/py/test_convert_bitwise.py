"""BitwiseAnd/Or/Xor/Not-18 below 18 (issue 20): for every integer type the ops take
(Operators.md, T: uint8..uint64, int8..int64), over values that include each type's minimum,
maximum, 0 and -1, converted to opsets 7, 10, 13 and 17 and run in ONNX Runtime, the result must
equal NumPy's exactly; at 18 the op is kept.
"""
import os
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
for p in ("bindings/python", "tests/ort"):
    sys.path.insert(0, os.path.join(ROOT, p))

onnx = pytest.importorskip("onnx")
from onnx import helper  # noqa: E402

TYPES = (np.uint8, np.uint16, np.uint32, np.uint64, np.int8, np.int16, np.int32, np.int64)
OPS = {"BitwiseAnd": np.bitwise_and, "BitwiseOr": np.bitwise_or, "BitwiseXor": np.bitwise_xor,
       "BitwiseNot": np.invert}
TARGETS = (7, 10, 13, 17)


def _values(dt, shape, seed):
    info = np.iinfo(dt)
    r = np.random.default_rng(seed)
    v = r.integers(info.min, info.max, shape, dtype=dt, endpoint=True)
    edge = np.array([info.min, info.max, 0, info.max // 2, info.min // 2 if info.min else 1,
                     -1 if info.min else 1], dtype=dt)
    flat = v.reshape(-1)
    flat[:edge.size] = edge
    return v


def _model(op, dt):
    elem = helper.np_dtype_to_tensor_dtype(np.dtype(dt)) if hasattr(helper, "np_dtype_to_tensor_dtype") \
        else onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[np.dtype(dt)]
    ins = ["a"] if op == "BitwiseNot" else ["a", "b"]
    shapes = {"a": [3, 6], "b": [6]}  # b broadcast over a's rows
    g = helper.make_graph([helper.make_node(op, ins, ["y"])], "m",
                          [helper.make_tensor_value_info(n, elem, shapes[n]) for n in ins],
                          [helper.make_tensor_value_info("y", elem, [3, 6])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
    m.ir_version = 8
    return m.SerializeToString()


def test_bitwise_below_18_is_exact_for_every_integer_type():
    import onnxlegal
    from ortrun import run_batch
    batch, meta = [], []
    for op, fn in OPS.items():
        for dt in TYPES:
            src = onnxlegal.Model.from_bytes(_model(op, dt))
            feeds = {"a": _values(dt, (3, 6), 1)}
            if op != "BitwiseNot":
                b = _values(dt, (6,), 2)
                feeds["b"] = b[::-1].copy()  # the edges meet other values
            want = fn(*feeds.values())
            for t in TARGETS:
                out = onnxlegal.convert(src, t)
                batch.append((out.to_bytes(), feeds))
                meta.append((op, np.dtype(dt).name, t, want))
            out18 = onnxlegal.convert(src, 18).to_bytes()
            assert op.encode() in out18, "%s %s: not kept at 18" % (op, np.dtype(dt).name)
    bad = []
    for (op, dt, t, want), r in zip(meta, run_batch(batch)):
        if isinstance(r, str):
            bad.append("%s %s ->%d: %s" % (op, dt, t, r.strip()[:200]))
        elif r["y"].dtype != want.dtype or not np.array_equal(r["y"], want):
            bad.append("%s %s ->%d: %s != %s" % (op, dt, t, r["y"].reshape(-1)[:6], want.reshape(-1)[:6]))
    assert not bad, "\n".join(bad)
