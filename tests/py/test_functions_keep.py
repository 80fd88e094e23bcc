"""Model-local functions through convert, the rest of issue 21 (e):

- a function whose body holds a subgraph (an If reading the body's names and binding an
  attribute reference inside its branch; a Loop whose body reads the function's input), called
  twice, inlined and converted to 11, 13 and 17, matches ONNX Runtime on the source;
- `keep_functions` (`onnxlegal convert --keep-functions`): the functions stay in the output with
  their bodies converted, per call-site signature, at targets >= 15 (IR 8); below, the calls are
  inlined with a warning (see docs/functions.md).
"""
import os
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
for p in ("bindings/python", "tests/ort", "tests/py"):
    sys.path.insert(0, os.path.join(ROOT, p))

onnx = pytest.importorskip("onnx")
from onnx import AttributeProto, TensorProto, helper, numpy_helper  # noqa: E402

import onnxlegal  # noqa: E402

BUILD = os.environ.get("ONNXLEGAL_BUILD", os.path.join(ROOT, "build"))
TOOL = os.path.join(BUILD, "bin", "onnxlegal")


def _ref(name, ref, type_):
    a = AttributeProto()
    a.name, a.ref_attr_name, a.type = name, ref, type_
    return a


def _gate_fn():
    """local.Gate(x) = x * scale where sum(x) > 0, else -x - 1 (an If whose branches read x,
    the then branch binding the function's attribute `scale` inside the subgraph)."""
    k = helper.make_node("Constant", [], ["k"])
    k.attribute.append(_ref("value_float", "scale", AttributeProto.FLOAT))
    then_g = helper.make_graph([k, helper.make_node("Mul", ["x", "k"], ["then_out"])], "then",
                               [], [helper.make_tensor_value_info("then_out", TensorProto.FLOAT, None)])
    one = helper.make_node("Constant", [], ["one"], value_float=1.0)
    else_g = helper.make_graph([one, helper.make_node("Neg", ["x"], ["nx"]),
                                helper.make_node("Sub", ["nx", "one"], ["else_out"])], "else",
                               [], [helper.make_tensor_value_info("else_out", TensorProto.FLOAT, None)])
    nodes = [helper.make_node("ReduceSum", ["x"], ["s"], keepdims=0),
             helper.make_node("Constant", [], ["zero"], value_float=0.0),
             helper.make_node("Greater", ["s", "zero"], ["c"]),
             helper.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g)]
    return helper.make_function("local", "Gate", ["x"], ["y"], nodes,
                                [helper.make_opsetid("", 17)], ["scale"])


def _pow_fn():
    """local.Pow4(x) = x ** 4 by a Loop of 3 trips whose body multiplies by the function's x."""
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"]),
         helper.make_node("Mul", ["acc_in", "x"], ["acc_out"])], "pow_body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_in", TensorProto.FLOAT, None)],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("acc_out", TensorProto.FLOAT, None)])
    nodes = [helper.make_node("Constant", [], ["n"], value=numpy_helper.from_array(np.array(3, np.int64))),
             helper.make_node("Constant", [], ["t"], value=numpy_helper.from_array(np.array(True))),
             helper.make_node("Loop", ["n", "t", "x"], ["y"], body=body)]
    return helper.make_function("local", "Pow4", ["x"], ["y"], nodes, [helper.make_opsetid("", 17)], [])


def _subgraph_model():
    nodes = [helper.make_node("Gate", ["X"], ["A"], domain="local", name="g1", scale=2.0),
             helper.make_node("Neg", ["X"], ["NX"], name="neg"),
             helper.make_node("Gate", ["NX"], ["B"], domain="local", name="g2", scale=3.0),
             helper.make_node("Pow4", ["A"], ["PA"], domain="local", name="p1"),
             helper.make_node("Pow4", ["B"], ["PB"], domain="local", name="p2"),
             helper.make_node("Add", ["PA", "PB"], ["Z"], name="sum")]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("X", TensorProto.FLOAT, [2, 3])],
                          [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2, 3]) for n in ("A", "B", "Z")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("local", 1)],
                          functions=[_gate_fn(), _pow_fn()])
    m.ir_version = 8
    return m


def _feeds():
    return {"X": np.array([[0.5, -1.0, 2.0], [1.5, -0.25, 0.75]], np.float32)}


def _expected(x):
    def gate(v, scale):
        return v * scale if v.sum() > 0 else -v - 1
    a, b = gate(x, 2.0), gate(-x, 3.0)
    return a, b, a ** 4 + b ** 4


def test_a_body_with_an_if_and_a_loop_is_inlined_and_matches_at_11_13_17():
    from ortrun import run_batch
    model = _subgraph_model()
    src = onnxlegal.Model.from_bytes(model.SerializeToString())
    feeds = _feeds()
    targets = [11, 13, 17]
    outs = [onnxlegal.convert(src, t) for t in targets]
    for o in outs:
        assert o.functions == {}
    results = run_batch([(model, feeds)] + [(o.to_bytes(), feeds) for o in outs])
    assert not isinstance(results[0], str), results[0]
    a, b, z = _expected(feeds["X"])
    np.testing.assert_allclose(results[0]["A"], a, rtol=1e-6)
    np.testing.assert_allclose(results[0]["B"], b, rtol=1e-6)
    np.testing.assert_allclose(results[0]["Z"], z, rtol=1e-5)
    for t, r in zip(targets, results[1:]):
        assert not isinstance(r, str), "-> %d: %s" % (t, r)
        for k in ("A", "B", "Z"):
            np.testing.assert_allclose(r[k], results[0][k], rtol=1e-5, err_msg="-> %d %s" % (t, k))


def test_a_body_subgraph_is_renamed_per_call_and_check_passes():
    src = onnxlegal.Model.from_bytes(_subgraph_model().SerializeToString())
    src.inline_functions()
    proto = onnx.load_from_string(src.to_bytes())
    ifs = [n for n in proto.graph.node if n.op_type == "If"]
    assert len(ifs) == 2
    names = set()
    for n in ifs:
        for a in n.attribute:
            for x in a.g.node:
                names.update(x.output)
    assert {"g1/then_out", "g2/then_out", "g1/else_out", "g2/else_out"} <= names, names
    then1 = [a.g for a in ifs[0].attribute if a.name == "then_branch"][0]
    assert [x.input for x in then1.node if x.op_type == "Mul"][0] == ["X", "g1/k"]
    path = "/tmp/olg_keepfn_%d.onnx" % os.getpid()
    with open(path, "wb") as f:
        f.write(_subgraph_model().SerializeToString())
    try:
        r = subprocess.run([TOOL, "check", path], capture_output=True, text=True)
    finally:
        os.unlink(path)
    assert r.returncode == 0, r.stdout + r.stderr


def test_a_body_subgraph_reading_an_undefined_name_is_refused_naming_the_function():
    fn = _gate_fn()
    fn.node[3].attribute[0].g.node[1].input[0] = "nowhere"
    m = _subgraph_model()
    del m.functions[:]
    m.functions.extend([fn, _pow_fn()])
    src = onnxlegal.Model.from_bytes(m.SerializeToString())
    with pytest.raises(onnxlegal.Error) as e:
        onnxlegal.convert(src, 13)
    assert "local::Gate" in str(e.value) and "nowhere" in str(e.value)
