"""Model-local functions through convert, the rest of issue 21 (e):

- a function whose body holds a subgraph (an If reading the body's names and binding an
  attribute reference inside its branch; a Loop whose body reads the function's input), called
  twice, inlined and converted to 11, 13 and 17, matches ONNX Runtime on the source;
- `keep_functions` (`onnxlegal convert --keep-functions`): the functions stay in the output with
  their bodies converted, per call-site signature, at targets >= 15 (IR 8); below, the calls are
  inlined with a warning (the rules: lib/function_keep.c).
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
from _wire import field, top_level_tags  # noqa: E402

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


# ---- keep_functions ----

def _two_call_model():
    from test_functions import _model
    return _model()


@pytest.mark.parametrize("target", [15, 17, 21])
def test_keep_functions_two_calls_match_and_the_functions_stay(target):
    from ortrun import run_batch
    model = _two_call_model()
    src = onnxlegal.Model.from_bytes(model.SerializeToString())
    out = onnxlegal.convert(src, target, keep_functions=True)
    proto = onnx.load_from_string(out.to_bytes())
    # mlp1 gives bias=-1.5, mlp2 none: two signatures, two copies; Scale (called only from MLP's
    # body) is inlined into them
    assert sorted(f.name for f in proto.functions) == ["MLP", "MLP__2"]
    calls = {n.name: n.op_type for n in proto.graph.node if n.domain == "local"}
    assert sorted(calls.values()) == ["MLP", "MLP__2"], calls
    for f in proto.functions:
        assert [(o.domain, o.version) for o in f.opset_import if o.domain in ("", "ai.onnx")] == [("", target)]
        assert list(f.input) == ["x", "w"] and list(f.output) == ["y", "t"]
        assert list(f.attribute) == ["bias"]
    mlp = [f for f in proto.functions if f.name == "MLP"][0]
    refs = [(a.name, a.ref_attr_name) for n in mlp.node for a in n.attribute if a.ref_attr_name]
    assert refs == [("value_float", "bias")] or refs == [], refs
    feeds = {"X": np.linspace(-2, 2, 8, dtype=np.float32).reshape(2, 4)}
    r = run_batch([(model, feeds), (proto, feeds)])
    assert not isinstance(r[0], str) and not isinstance(r[1], str), r
    np.testing.assert_allclose(r[1]["Z"], r[0]["Z"], rtol=1e-5, atol=1e-5)
    path = "/tmp/olg_keepfn_out_%d.onnx" % os.getpid()
    with open(path, "wb") as f:
        f.write(proto.SerializeToString())
    try:
        c = subprocess.run([TOOL, "check", path], capture_output=True, text=True)
    finally:
        os.unlink(path)
    assert c.returncode == 0, c.stdout + c.stderr


def _norm_model():
    """local.Norm(x) = LeakyRelu(LayerNormalization(x, g, b), alpha=@alpha): LayerNormalization
    (17) is decomposed at 15 and 16; alpha stays a reference. Called twice with one alpha and
    once with another: two copies."""
    g = helper.make_node("Constant", [], ["g"], value=numpy_helper.from_array(np.array([1.0, 2.0, 0.5], np.float32)))
    b = helper.make_node("Constant", [], ["b"], value=numpy_helper.from_array(np.array([0.0, -1.0, 0.25], np.float32)))
    ln = helper.make_node("LayerNormalization", ["x", "g", "b"], ["n"], axis=-1, epsilon=1e-5)
    act = helper.make_node("LeakyRelu", ["n"], ["y"])
    act.attribute.append(_ref("alpha", "alpha", AttributeProto.FLOAT))
    fn = helper.make_function("local", "Norm", ["x"], ["y"], [g, b, ln, act],
                              [helper.make_opsetid("", 17)], ["alpha"])
    nodes = [helper.make_node("Norm", ["X"], ["A"], domain="local", name="n1", alpha=0.1),
             helper.make_node("Norm", ["A"], ["B"], domain="local", name="n2", alpha=0.1),
             helper.make_node("Norm", ["B"], ["C"], domain="local", name="n3", alpha=0.3)]
    gr = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("X", TensorProto.FLOAT, [2, 3])],
                           [helper.make_tensor_value_info("C", TensorProto.FLOAT, [2, 3])])
    m = helper.make_model(gr, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("local", 1)],
                          functions=[fn])
    m.ir_version = 8
    return m


@pytest.mark.parametrize("target", [15, 16, 17, 21])
def test_keep_functions_a_body_decomposed_at_the_target_and_references_kept(target):
    from ortrun import run_batch
    model = _norm_model()
    out = onnxlegal.convert(onnxlegal.Model.from_bytes(model.SerializeToString()), target,
                            keep_functions=True)
    proto = onnx.load_from_string(out.to_bytes())
    assert sorted(f.name for f in proto.functions) == ["Norm", "Norm__2"]
    assert [n.op_type for n in proto.graph.node] == ["Norm", "Norm", "Norm__2"]
    for f in proto.functions:
        ops = {n.op_type for n in f.node}
        assert ("LayerNormalization" in ops) == (target >= 17), ops
        refs = [(n.op_type, a.name, a.ref_attr_name) for n in f.node for a in n.attribute if a.ref_attr_name]
        assert refs == [("LeakyRelu", "alpha", "alpha")], refs
    feeds = {"X": np.array([[0.5, -1.0, 2.0], [1.5, -0.25, 0.75]], np.float32)}
    r = run_batch([(model, feeds), (proto, feeds)])
    assert not isinstance(r[0], str) and not isinstance(r[1], str), r
    np.testing.assert_allclose(r[1]["C"], r[0]["C"], rtol=1e-5, atol=1e-5)


def test_keep_functions_below_15_inlines_with_a_warning_cli():
    from ortrun import run_batch
    model = _two_call_model()
    src_path = "/tmp/olg_keepfn_src_%d.onnx" % os.getpid()
    outs = {t: "/tmp/olg_keepfn_%d_%d.onnx" % (t, os.getpid()) for t in (13, 17)}
    with open(src_path, "wb") as f:
        f.write(model.SerializeToString())
    try:
        res = {t: subprocess.run([TOOL, "convert", src_path, p, "--opset", str(t), "--keep-functions"],
                                 capture_output=True, text=True) for t, p in outs.items()}
        protos = {t: onnx.load(p) for t, p in outs.items()}
    finally:
        for p in [src_path] + list(outs.values()):
            if os.path.exists(p):
                os.unlink(p)
    for t, r in res.items():
        assert r.returncode == 0, r.stderr
    assert "every call is inlined" in res[13].stderr, res[13].stderr
    assert len(protos[13].functions) == 0 and protos[13].ir_version < 8
    assert sorted(f.name for f in protos[17].functions) == ["MLP", "MLP__2"]
    feeds = {"X": np.linspace(-2, 2, 8, dtype=np.float32).reshape(2, 4)}
    r = run_batch([(model, feeds), (protos[13], feeds), (protos[17], feeds)])
    for x in r:
        assert not isinstance(x, str), x
    for x in r[1:]:
        np.testing.assert_allclose(x["Z"], r[0]["Z"], rtol=1e-5, atol=1e-5)


def test_keep_functions_off_by_default_and_in_the_help():
    src = onnxlegal.Model.from_bytes(_two_call_model().SerializeToString())
    assert onnxlegal.convert(src, 17).functions == {}
    h = subprocess.run([TOOL, "convert", "--help"], capture_output=True, text=True)
    assert "--keep-functions" in h.stdout + h.stderr


def test_kept_function_keeps_its_doc_and_metadata_and_says_what_it_drops(tmp_path):
    """A kept function carries its doc string and metadata_props (IR 10), one holding a NUL as
    read; its value_info names values the conversion renames ('Dbl/t'), so it is dropped with one
    warning, however many call signatures the function is kept for."""
    f = helper.make_function("loc", "Dbl", ["a"], ["o"], [helper.make_node("Add", ["a", "a"], ["t"]),
                             helper.make_node("Relu", ["t"], ["o"])], [helper.make_opsetid("", 13)])
    f.doc_string = "doubled, then\0rectified"
    entry = lambda k, v: field(14, field(1, k) + field(2, v))  # noqa: E731
    f.MergeFromString(field(12, helper.make_tensor_value_info("t", TensorProto.FLOAT, [2]).SerializeToString()) +
                      entry(b"pkg.owner", b"team") + entry(b"k\0x", b"1"))
    nodes = [helper.make_node("Dbl", ["x"], ["y"], domain="loc"), helper.make_node("Dbl", ["z"], ["w"], domain="loc")]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2]),
                                       helper.make_tensor_value_info("z", TensorProto.DOUBLE, [2])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2]),
                           helper.make_tensor_value_info("w", TensorProto.DOUBLE, [2])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("loc", 1)], functions=[f])
    m.ir_version = 10
    src, out = tmp_path / "src.onnx", tmp_path / "out.onnx"
    src.write_bytes(m.SerializeToString())
    r = subprocess.run([TOOL, "convert", str(src), str(out), "--opset", "17", "--keep-functions", "--ir-version", "10"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stderr.count("the value_info of function 'Dbl' (1 entry) is dropped") == 1, r.stderr
    back = onnx.load(str(out))
    assert len(back.functions) == 2  # one per call signature (float, double)
    for kf in back.functions:
        assert kf.doc_string == "doubled, then\0rectified"
        body = kf.SerializeToString()
        assert entry(b"pkg.owner", b"team") in body and entry(b"k\0x", b"1") in body
        assert 12 << 3 | 2 not in top_level_tags(body), "value_info kept"
