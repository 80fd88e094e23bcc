"""Subgraphs: an If whose branches read values of the main graph that an aten op computes (so
their target names differ from the source's), legalized at several opsets and run in ONNX
Runtime for both conditions; a Loop body lowered with its carried state."""
import os
import sys

import numpy as np
import pytest

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


def _if_with_branch_initializer(dtype):
    """An If whose then branch adds an initializer of its own to a main-graph value (dtype)."""
    onnx = pytest.importorskip("onnx")
    from onnx import helper, numpy_helper
    et = {np.float32: onnx.TensorProto.FLOAT, np.int64: onnx.TensorProto.INT64}[dtype]
    then_g = helper.make_graph([helper.make_node("Add", ["r", "w"], ["n"])], "then", [],
                               [helper.make_tensor_value_info("n", et, [2])],
                               [numpy_helper.from_array(np.array([1.5, -2], dtype), "w")])
    else_g = helper.make_graph([helper.make_node("Neg", ["r"], ["e"])], "else", [],
                               [helper.make_tensor_value_info("e", et, [2])])
    g = helper.make_graph([helper.make_node("Abs", ["x"], ["r"]),
                           helper.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g)], "m",
                          [helper.make_tensor_value_info("x", et, [2]),
                           helper.make_tensor_value_info("c", onnx.TensorProto.BOOL, [])],
                          [helper.make_tensor_value_info("y", et, [2])])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])


def test_branch_initializer_becomes_a_constant_at_ir3(tmp_path):
    """At opsets 7 and 8 (IR 3) every initializer must be an input of its graph, and an If
    branch has no inputs: the branch's initializer becomes a Constant node under its name (it had
    been written as an initializer, a model olg_check and ONNX Runtime refuse). From opset 9 (IR
    4) it stays an initializer. Each runs in ONNX Runtime and matches the source."""
    from ortrun import run_batch
    onnx = pytest.importorskip("onnx")
    m = _if_with_branch_initializer(np.float32)
    path = tmp_path / "src.onnx"
    path.write_bytes(m.SerializeToString())
    src = onnxlegal.Model.read(str(path))
    x = np.array([-3.0, 4.0], np.float32)
    batch, opsets = [], (7, 8, 9, 13)
    for opset in opsets:
        out = legalize(src, opset=opset)
        out.check()
        then_g = [a.g for a in onnx.load_from_string(out.to_bytes()).graph.node[1].attribute
                  if a.name == "then_branch"][0]
        if opset < 9:
            assert [i.name for i in then_g.initializer] == [] and [n.op_type for n in then_g.node] == ["Constant", "Add"]
            assert then_g.node[0].output == ["w"]
        else:
            assert [i.name for i in then_g.initializer] == ["w"]
        for c in (True, False):
            batch.append((out.to_bytes(), {"x": x, "c": np.array(c)}))
    res = run_batch(batch)
    for i, r in enumerate(res):
        assert not isinstance(r, str), "opset %d: %s" % (opsets[i // 2], r)
        want = np.abs(x) + np.array([1.5, -2], np.float32) if i % 2 == 0 else -np.abs(x)
        np.testing.assert_array_equal(r["y"], want)


def test_branch_initializer_of_a_type_constant_lacks_is_refused_at_ir3(tmp_path):
    """An int64 initializer of a branch at opset 7: Constant takes floating types alone before
    opset 9, so the conversion is refused, naming the initializer and the opset that works."""
    m = _if_with_branch_initializer(np.int64)
    path = tmp_path / "src.onnx"
    path.write_bytes(m.SerializeToString())
    src = onnxlegal.Model.read(str(path))
    with pytest.raises(onnxlegal.Error) as e:
        legalize(src, opset=7)
    assert "initializer 'w' of subgraph 'then' (int64)" in str(e.value) and "needs opset >= 9" in str(e.value), str(e.value)
    legalize(src, opset=9).check()
