"""Subgraphs: an If whose branches read values of the main graph that an aten op computes (so
their target names differ from the source's), legalized at several opsets and run in ONNX
Runtime for both conditions; a Loop body lowered with its carried state."""
import os
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
for p in ("bindings/python", "tests/ort"):
    sys.path.insert(0, os.path.join(ROOT, p))

import onnxlegal  # noqa: E402
from onnxlegal.lowering import legalize  # noqa: E402


def if_model():
    m = onnxlegal.Model(opset={"": 11})
    g = m.graph
    x = g.add_input("x", np.float32, [2, 3])
    cond = g.add_input("cond", np.bool_, [])
    flat = g.source_node("aten", "view", [x, [-1]], n_outputs=["flat"], name="flatten_x")
    then_g = m.subgraph("then")
    then_g.add_output(then_g.node("Squeeze", ["flat2"], outputs=["t_out"], axes=[0]))
    else_g = m.subgraph("else")
    else_g.add_output(else_g.node("Neg", ["flat"], outputs=["e_out"]))
    # then reads flat2 (unsqueezed in the main graph by an aten op), else reads flat
    g.source_node("aten", "unsqueeze", [flat, 0], n_outputs=["flat2"], name="unsq")
    y = g.node("If", [cond], outputs=["y"], then_branch=then_g, else_branch=else_g, name="branch")
    g.add_output(y)
    return m


def test_if_branches_read_lowered_outer_values():
    from ortrun import run_batch
    m = if_model()
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    batch, opsets = [], (11, 13, 16, 17, 21)
    for opset in opsets:
        out = legalize(m, opset=opset)
        data = out.to_bytes()
        for c in (True, False):
            batch.append((data, {"x": x, "cond": np.array(c)}))
    res = run_batch(batch)
    for i, r in enumerate(res):
        assert not isinstance(r, str), "opset %d: %s" % (opsets[i // 2], r)
        want = x.reshape(-1) if i % 2 == 0 else -x.reshape(-1)
        np.testing.assert_array_equal(r["y"], want)


def test_loop_body_is_lowered():
    from ortrun import run_batch
    m = onnxlegal.Model(opset={"": 11})
    g = m.graph
    x = g.add_input("x", np.float32, [3])
    trip = g.add_initializer("trip", np.array(4, np.int64))
    cond = g.add_initializer("cond", np.array(True))
    body = m.subgraph("body")
    body.add_input("i", np.int64, [])
    body.add_input("c", np.bool_, [])
    acc = body.add_input("acc", np.float32, [3])
    s = body.node("Add", [acc, "x"], outputs=["acc_next"])  # x: the main graph's input
    body.add_output(body.node("Identity", ["c"], outputs=["c_out"]))
    body.add_output(s)
    y = g.node("Loop", [trip, cond, x], outputs=["y"], body=body, name="loop")
    g.add_output(y)
    xs = np.array([1, 2, 3], np.float32)
    batch = [(legalize(m, opset=o).to_bytes(), {"x": xs}) for o in (11, 13, 17, 21)]
    for r in run_batch(batch):
        assert not isinstance(r, str), r
        np.testing.assert_array_equal(r["y"], xs * 5)
