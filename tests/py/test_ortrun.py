"""Tests of the ONNX Runtime batch runner (tests/ort/run.js + ortrun.py).

Builds tiny models with onnx.helper, runs them all in one batch, and checks
the numbers against numpy; a model ORT refuses shares the batch with good
ones to show that one failure does not stop the others.
"""

import sys
from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "ort"))
import ortrun  # noqa: E402

# onnx 1.12 (Debian 12) writes opset 17 / IR 8 by default; ORT 1.30 runs both.
OPSET = [helper.make_opsetid("", 17)]


def model(nodes, inputs, outputs, opset=OPSET):
    graph = helper.make_graph(nodes, "g", inputs, outputs)
    return helper.make_model(graph, opset_imports=opset)


def vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


def binary(op, elem, out_elem=None, shape=None):
    """A one-node model y = op(a, b)."""
    return model([helper.make_node(op, ["a", "b"], ["y"])],
                 [vi("a", elem, shape), vi("b", elem, shape)],
                 [vi("y", out_elem or elem, shape)])


@pytest.fixture(scope="module")
def batch():
    rng = np.random.default_rng(0)
    a32, b32 = rng.standard_normal((2, 3), dtype=np.float32), rng.standard_normal((2, 3), dtype=np.float32)
    # Values past 2**53 show that int64 is carried exactly, not through doubles.
    a64 = np.array([[2**62, -5, 7]], dtype=np.int64)
    b64 = np.array([[3, -(2**40), 11]], dtype=np.int64)
    c1, c2 = np.array([1.5, 2.0, -1.0], np.float32), np.array([1.5, 3.0, -2.0], np.float32)
    h1, h2 = np.array([0.5, 1.25], np.float16), np.array([2.0, -0.75], np.float16)
    ba, bb = np.array([True, False, True, False]), np.array([True, True, False, False])
    # Two outputs, one of them 0-d: ReduceSum with keepdims=0 over all axes.
    reduce_model = model(
        [helper.make_node("ReduceSum", ["x"], ["s"], keepdims=0),
         helper.make_node("Neg", ["x"], ["n"])],
        [vi("x", TensorProto.FLOAT, [2, 2])],
        [vi("s", TensorProto.FLOAT, []), vi("n", TensorProto.FLOAT, [2, 2])])
    x22 = np.array([[1, 2], [3, 4]], np.float32)
    bad = model([helper.make_node("NoSuchOp", ["a"], ["y"])],
                [vi("a", TensorProto.FLOAT, [1])], [vi("y", TensorProto.FLOAT, [1])])
    empty = np.zeros((0, 3), np.float32)
    zero_d = np.array(4.0, np.float64)
    cases = {
        "add_f32": (binary("Add", TensorProto.FLOAT), {"a": a32, "b": b32}, {}),
        "add_i64": (binary("Add", TensorProto.INT64), {"a": a64, "b": b64}, None),
        "less_bool": (binary("Less", TensorProto.FLOAT, TensorProto.BOOL), {"a": c1, "b": c2}),
        "mul_f16": (binary("Mul", TensorProto.FLOAT16), {"a": h1, "b": h2}),
        "and_bool": (binary("And", TensorProto.BOOL), {"a": ba, "b": bb}),
        "bad": (bad, {"a": np.ones(1, np.float32)}),
        "reduce": (reduce_model, {"x": x22}, {"graphOptimizationLevel": "disabled"}),
        "empty": (binary("Add", TensorProto.FLOAT), {"a": empty, "b": empty}),
        "scalar_f64": (binary("Sub", TensorProto.DOUBLE), {"a": zero_d, "b": np.array(1.5)}),
        "wrong_input": (binary("Add", TensorProto.FLOAT), {"a": a32, "c": b32}),
    }
    results = ortrun.run_batch(cases.values())
    return cases, dict(zip(cases, results))


def test_numbers_match_numpy(batch):
    cases, res = batch
    ins = {k: v[1] for k, v in cases.items()}
    exp = {
        "add_f32": ins["add_f32"]["a"] + ins["add_f32"]["b"],
        "add_i64": ins["add_i64"]["a"] + ins["add_i64"]["b"],
        "less_bool": ins["less_bool"]["a"] < ins["less_bool"]["b"],
        "mul_f16": ins["mul_f16"]["a"] * ins["mul_f16"]["b"],
        "and_bool": ins["and_bool"]["a"] & ins["and_bool"]["b"],
    }
    for name, want in exp.items():
        got = res[name]
        assert isinstance(got, dict), f"{name}: {got}"
        assert list(got) == ["y"]
        y = got["y"]
        assert y.dtype == want.dtype and y.shape == want.shape, name
        np.testing.assert_array_equal(y, want, err_msg=name)
    assert res["add_i64"]["y"][0, 0] == 2**62 + 3


def test_outputs_in_model_order_with_0d(batch):
    cases, res = batch
    got = res["reduce"]
    assert list(got) == ["s", "n"]
    assert got["s"].shape == () and got["s"].dtype == np.float32 and got["s"] == 10.0
    np.testing.assert_array_equal(got["n"], -cases["reduce"][1]["x"])


def test_empty_and_scalar_tensors(batch):
    _, res = batch
    assert res["empty"]["y"].shape == (0, 3) and res["empty"]["y"].dtype == np.float32
    s = res["scalar_f64"]["y"]
    assert s.shape == () and s.dtype == np.float64 and s == 2.5


def test_failures_are_reported_and_do_not_stop_the_batch(batch):
    _, res = batch
    assert isinstance(res["bad"], str) and "NoSuchOp" in res["bad"]
    assert isinstance(res["wrong_input"], str) and res["wrong_input"]
    # The cases after the failing ones ran too.
    assert isinstance(res["reduce"], dict) and isinstance(res["scalar_f64"], dict)


def test_run_one_and_model_paths(tmp_path):
    m = binary("Add", TensorProto.INT32)
    path = tmp_path / "add.onnx"
    path.write_bytes(m.SerializeToString())
    a = np.arange(6, dtype=np.int32).reshape(2, 3)
    out = ortrun.run_one(str(path), {"a": a, "b": a})
    np.testing.assert_array_equal(out["y"], 2 * a)
    with pytest.raises(ortrun.OrtRunError):
        ortrun.run_one(m, {"a": a})  # input b missing


def test_string_tensors():
    m = model([helper.make_node("Identity", ["s"], ["t"])],
              [vi("s", TensorProto.STRING, [2])], [vi("t", TensorProto.STRING, [2])])
    out = ortrun.run_one(m, {"s": np.array(["héllo", ""], dtype=object)})
    assert out["t"].tolist() == ["héllo", ""]


def test_missing_package_message(monkeypatch, tmp_path):
    monkeypatch.setattr(ortrun, "ORT_PACKAGE", tmp_path / "nope")
    with pytest.raises(ortrun.OrtRunError, match="make deps"):
        ortrun.run_batch([])


# A stand-in for run.js that dies (as a native crash in ORT would) on cases
# whose options say so, after logging the cases it finished.
FAKE_RUNNER = r"""
const fs = require('fs');
const a = process.argv, log = a[a.indexOf('--log') + 1], out = a[a.indexOf('--out') + 1];
const recs = [];
for (const c of JSON.parse(fs.readFileSync(a[2], 'utf8')).cases) {
  if (c.options.crash) { process.stderr.write('boom\n'); process.exit(3); }
  const r = {id: c.id, ok: true, error: null, outputs: []};
  recs.push(r);
  fs.appendFileSync(log, JSON.stringify(r) + '\n');
}
fs.writeFileSync(out, JSON.stringify({results: recs}));
"""


def test_crash_costs_one_case(monkeypatch, tmp_path):
    fake = tmp_path / "fake.js"
    fake.write_text(FAKE_RUNNER)
    monkeypatch.setattr(ortrun, "RUN_JS", fake)
    crash = [False, True, False, True, True, False]
    res = ortrun.run_batch([(b"", {}, {"crash": c}) for c in crash])
    for c, r in zip(crash, res):
        if c:
            assert isinstance(r, str) and "boom" in r and "status 3" in r
        else:
            assert r == {}
