"""Model-local functions (FunctionProto) in the IR (issue 21, slices d and e):

- the reader and both writers keep them: a model with functions written back is byte-identical;
- `check` looks inside: every call expanded, each body checked and inferred at each call site;
  a body that reads an undefined name, a recursive function, a type error inside a body at one
  call site are errors that name the function or the call;
- `convert` inlines the calls (two calls of one function, a nested call, an attribute reference
  bound by the call, another left to the function's default) and the result matches ONNX Runtime
  on the source at its own opset, at every target 9..17;
- the Python API lists, adds and inlines functions.
"""
import os
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
for p in ("bindings/python", "tests/ort"):
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


def _scale_fn():
    """local.Scale(a) = a * factor + shift: factor has no default, shift defaults to 0.25."""
    c = helper.make_node("Constant", [], ["f"])
    c.attribute.append(_ref("value_float", "factor", AttributeProto.FLOAT))
    s = helper.make_node("Constant", [], ["s"])
    s.attribute.append(_ref("value_float", "shift", AttributeProto.FLOAT))
    fn = helper.make_function("local", "Scale", ["a"], ["b"],
                              [c, s, helper.make_node("Mul", ["a", "f"], ["m"]),
                               helper.make_node("Add", ["m", "s"], ["b"])],
                              [helper.make_opsetid("", 17)], ["factor"])
    # attribute_proto (field 11, IR 9) is newer than Debian's onnx 1.12: appended as bytes, which
    # protobuf keeps as an unknown field and writes back
    a = helper.make_attribute("shift", 0.25).SerializeToString()
    out = onnx.FunctionProto()
    out.ParseFromString(fn.SerializeToString() + b"\x5a" + _varint(len(a)) + a)
    return out


def _varint(n):
    b = bytearray()
    while n >= 0x80:
        b.append(n & 0x7F | 0x80)
        n >>= 7
    b.append(n)
    return bytes(b)


def _mlp_fn(with_shift):
    scale = helper.make_node("Scale", ["r"], ["y"], domain="local", factor=2.0)
    if with_shift:  # the caller's own attribute, passed on by reference
        scale.attribute.append(_ref("shift", "bias", AttributeProto.FLOAT))
    return helper.make_function("local", "MLP", ["x", "w"], ["y", "t"],
                                [helper.make_node("MatMul", ["x", "w"], ["t"]),
                                 helper.make_node("Relu", ["t"], ["r"]), scale],
                                [helper.make_opsetid("", 17), helper.make_opsetid("local", 1)],
                                ["bias"])


def _model(functions=None, nodes=None, w2_shape=(4, 4)):
    rng = np.random.RandomState(0)
    nodes = nodes or [helper.make_node("MLP", ["X", "W1"], ["H", "T1"], domain="local", name="mlp1", bias=-1.5),
                      helper.make_node("MLP", ["H", "W2"], ["Y", "T2"], domain="local", name="mlp2"),
                      helper.make_node("Add", ["Y", "T1"], ["Z"], name="sum")]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("X", TensorProto.FLOAT, [2, 4])],
                          [helper.make_tensor_value_info("Z", TensorProto.FLOAT, [2, 4])],
                          [numpy_helper.from_array(rng.randn(4, 4).astype(np.float32), "W1"),
                           numpy_helper.from_array(rng.randn(*w2_shape).astype(np.float32), "W2")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("local", 1)],
                          functions=functions if functions is not None else [_mlp_fn(True), _scale_fn()])
    m.ir_version = 8
    return m


def _check(model, *args):
    import json
    path = "/tmp/olg_fn_check_%d.onnx" % os.getpid()
    with open(path, "wb") as f:
        f.write(model.SerializeToString())
    try:
        r = subprocess.run([TOOL, "check", "--json", path] + list(args), capture_output=True, text=True)
    finally:
        os.unlink(path)
    return r.returncode, json.loads(r.stdout or "[]")


def test_functions_survive_read_and_write_byte_for_byte():
    data = _model().SerializeToString()
    m = onnxlegal.Model.from_bytes(data)
    assert sorted(m.functions) == [("local", "MLP"), ("local", "Scale")]
    assert m.to_bytes() == data
    body = m.functions[("local", "MLP")]
    assert [n.op for n in body.nodes] == ["MatMul", "Relu", "Scale"]


def test_check_infers_through_every_call():
    rc, diags = _check(_model())
    assert rc == 0, diags
    assert not [d for d in diags if d["code"] == "OLG-INFER-UNSUPPORTED"], diags


def test_check_reports_a_type_error_inside_a_body_at_its_call_site():
    rc, diags = _check(_model(w2_shape=(3, 4)))  # mlp2's MatMul: [2,4] x [3,4]
    assert rc == 1
    errors = [d for d in diags if d["severity"] == "error"]
    assert errors and all(d["node"].startswith("mlp2/") for d in errors), errors


def test_check_refuses_an_undefined_name_in_a_body_naming_the_function():
    bad = helper.make_function("local", "MLP", ["x", "w"], ["y", "t"],
                               [helper.make_node("MatMul", ["x", "nowhere"], ["t"]),
                                helper.make_node("Relu", ["t"], ["y"])],
                               [helper.make_opsetid("", 17)], [])
    rc, diags = _check(_model(functions=[bad]))
    assert rc == 1
    d = [d for d in diags if d["code"] == "OLG-CHECK-FUNCTION"]
    assert d and "local::MLP" in d[0]["message"] and "nowhere" in d[0]["message"], diags
    assert d[0]["node"] == "mlp1"


def test_recursion_is_refused_by_name_in_check_and_convert():
    rec = helper.make_function("local", "MLP", ["x", "w"], ["y", "t"],
                               [helper.make_node("MatMul", ["x", "w"], ["t"]),
                                helper.make_node("MLP", ["t", "w"], ["y", "u"], domain="local")],
                               [helper.make_opsetid("", 17), helper.make_opsetid("local", 1)], [])
    model = _model(functions=[rec])
    rc, diags = _check(model)
    assert rc == 1 and any("local::MLP calls itself" in d["message"] for d in diags), diags
    src = onnxlegal.Model.from_bytes(model.SerializeToString())
    with pytest.raises(onnxlegal.Error) as e:
        onnxlegal.convert(src, 13)
    assert "local::MLP calls itself" in str(e.value)


def test_a_function_importing_another_opset_than_the_model_is_refused():
    fn = _mlp_fn(True)
    del fn.opset_import[:]
    fn.opset_import.extend([helper.make_opsetid("", 13), helper.make_opsetid("local", 1)])
    src = onnxlegal.Model.from_bytes(_model(functions=[fn, _scale_fn()]).SerializeToString())
    with pytest.raises(onnxlegal.Error) as e:
        onnxlegal.convert(src, 13)
    assert "imports ai.onnx at opset 13 and the model at 17" in str(e.value)


@pytest.mark.parametrize("inline_first", [False, True])
def test_two_calls_of_one_function_convert_to_9_through_17_and_match(inline_first):
    from ortrun import run_batch
    model = _model()
    src = onnxlegal.Model.from_bytes(model.SerializeToString())
    if inline_first:  # the C API's inlining, then a plain conversion
        src.inline_functions()
        assert src.functions == {}
        assert {n.op for n in src.graph.nodes} == {"MatMul", "Relu", "Constant", "Mul", "Add"}
    feeds = {"X": np.linspace(-2, 2, 8, dtype=np.float32).reshape(2, 4)}
    targets = list(range(9, 18))
    batch = [(model, feeds)] + [(onnxlegal.convert(src, t).to_bytes(), feeds) for t in targets]
    results = run_batch(batch)
    assert not isinstance(results[0], str), results[0]
    for t, r in zip(targets, results[1:]):
        assert not isinstance(r, str), "-> %d: %s" % (t, r)
        np.testing.assert_allclose(r["Z"], results[0]["Z"], rtol=1e-5, atol=1e-5, err_msg="-> %d" % t)
    # the shift default (0.25) and the call's bias (-1.5) both reached the numbers
    x, w1, w2 = feeds["X"], *(numpy_helper.to_array(t) for t in model.graph.initializer)
    t1 = x @ w1
    h = np.maximum(t1, 0) * 2 - 1.5
    y = np.maximum(h @ w2, 0) * 2 + 0.25
    np.testing.assert_allclose(results[0]["Z"], y + t1, rtol=1e-5, atol=1e-5)


def test_functions_built_with_the_api_are_written_and_inlined():
    m = onnxlegal.Model(opset=17)
    body = m.subgraph("Double")
    x = body.add_value("x")
    body.add_formal_input(x)
    y = body.node("Add", [x, x], outputs=["y"])
    body.add_output(y)
    m.add_function("local", "Double", body)
    m.set_opset("local", 1)
    g = m.graph
    inp = g.add_input("X", np.float32, [3])
    out = g.node("Double", [inp], domain="local", name="d")
    g.add_output(out)
    proto = onnx.load_from_string(m.to_bytes())
    assert [f.name for f in proto.functions] == ["Double"]
    assert list(proto.functions[0].input) == ["x"] and list(proto.functions[0].output) == ["y"]
    from ortrun import run_batch
    feeds = {"X": np.array([1, 2, 3], np.float32)}
    r = run_batch([(proto, feeds), (onnxlegal.convert(m, 11).to_bytes(), feeds)])
    assert not isinstance(r[0], str) and not isinstance(r[1], str), r
    np.testing.assert_array_equal(r[1][out.name], np.array([2, 4, 6], np.float32))
    np.testing.assert_array_equal(r[0][out.name], r[1][out.name])
