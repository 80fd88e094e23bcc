"""A conversion keeps the source's quantization_annotation (GraphProto field 14: a tensor's name
and the names of the tensors holding its quantization parameters, as quantizers for TensorRT
write them): each entry whose tensors the converted graph holds under the same names is carried
as read, those tensors kept although no node reads the parameters; an entry naming a tensor the
graph lacks goes with a warning that names it. Each case runs in ONNX Runtime at the target and
matches the source at its own opset."""
import os
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "ort"))
sys.path.insert(0, os.path.join(ROOT, "bindings", "python"))
onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from ortrun import run_batch  # noqa: E402

TOOL = os.path.join(os.environ.get("ONNXLEGAL_BUILD", os.path.join(ROOT, "build")), "bin", "onnxlegal")


def _annotation(tensor, **params):
    a = onnx.TensorAnnotation()
    a.tensor_name = tensor
    for key, value in params.items():
        e = a.quant_parameter_tensor_names.add()
        e.key, e.value = key, value
    return a


def _scale_zp(prefix, scale):
    return [numpy_helper.from_array(np.array(scale, np.float32), prefix + "_scale"),
            numpy_helper.from_array(np.array(0, np.uint8), prefix + "_zp")]


def _model():
    """GroupNormalization-18 (decomposed below 18: its output keeps its name), a Relu, an
    Identity, a Sin nothing reads and an If whose then branch annotates a tensor of its own; every
    annotated tensor's scale and zero point are initializers no node reads. Two entries name a
    tensor the graph does not have."""
    then_g = helper.make_graph([helper.make_node("Neg", ["r"], ["n"]), helper.make_node("Abs", ["n"], ["t"])],
                               "then", [], [helper.make_tensor_value_info("t", TensorProto.FLOAT, ["batch", 4, 2, 2])],
                               _scale_zp("n", 0.02))
    then_g.quantization_annotation.append(_annotation("n", SCALE_TENSOR="n_scale", ZERO_POINT_TENSOR="n_zp"))
    else_g = helper.make_graph([helper.make_node("Sigmoid", ["r"], ["e"])], "else", [],
                               [helper.make_tensor_value_info("e", TensorProto.FLOAT, ["batch", 4, 2, 2])])
    nodes = [
        helper.make_node("GroupNormalization", ["x", "s", "b"], ["g"], name="gn", num_groups=2),
        helper.make_node("Relu", ["g"], ["r0"], name="relu"),
        helper.make_node("Identity", ["r0"], ["r"], name="id"),
        helper.make_node("Sin", ["x"], ["unread"], name="sin"),
        helper.make_node("If", ["c"], ["y"], name="if", then_branch=then_g, else_branch=else_g),
    ]
    inits = [numpy_helper.from_array(np.array([1.0, 2.0], np.float32), "s"),
             numpy_helper.from_array(np.array([0.5, -1.0], np.float32), "b")]
    for prefix, scale in (("x", 0.1), ("g", 0.05), ("r", 0.04), ("unread", 0.01)):
        inits += _scale_zp(prefix, scale)
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4, 2, 2]),
                                       helper.make_tensor_value_info("c", TensorProto.BOOL, [])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 4, 2, 2])], inits)
    g.quantization_annotation.extend([
        _annotation("x", SCALE_TENSOR="x_scale", ZERO_POINT_TENSOR="x_zp"),
        _annotation("g", SCALE_TENSOR="g_scale", ZERO_POINT_TENSOR="g_zp"),
        _annotation("ghost", SCALE_TENSOR="x_scale"),
        _annotation("r", SCALE_TENSOR="r_scale", ZERO_POINT_TENSOR="r_zp"),
        _annotation("r0", SCALE_TENSOR="r_scale", ZERO_POINT_TENSOR="no_such_zp"),
        _annotation("unread", SCALE_TENSOR="unread_scale", ZERO_POINT_TENSOR="unread_zp"),
    ])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
    m.ir_version = 8
    return m


def _defined(graph):
    names = {i.name for i in graph.input} | {i.name for i in graph.initializer}
    for n in graph.node:
        names |= set(n.output)
    return names


def _then_branch(graph):
    (if_node,) = [n for n in graph.node if n.op_type == "If"]
    return [a.g for a in if_node.attribute if a.name == "then_branch"][0]


def _check_carried(m, back):
    want = [a for a in m.graph.quantization_annotation if a.tensor_name not in ("ghost", "r0")]
    assert list(back.graph.quantization_annotation) == want
    for a in back.graph.quantization_annotation:
        names = {a.tensor_name} | {e.value for e in a.quant_parameter_tensor_names}
        assert names <= _defined(back.graph), (a.tensor_name, names - _defined(back.graph))
    src_inits = {i.name: numpy_helper.to_array(i) for i in m.graph.initializer}
    for i in back.graph.initializer:
        if i.name.endswith(("_scale", "_zp")):
            np.testing.assert_array_equal(numpy_helper.to_array(i), src_inits[i.name])
    assert {"x_scale", "x_zp", "g_scale", "g_zp", "r_scale", "r_zp", "unread_scale", "unread_zp"} <= \
        {i.name for i in back.graph.initializer}
    then_back = _then_branch(back.graph)
    assert list(then_back.quantization_annotation) == list(_then_branch(m.graph).quantization_annotation)
    assert {"n", "n_scale", "n_zp"} <= _defined(then_back)


def _run_matches(m, back, seed):
    x = np.random.default_rng(seed).standard_normal((3, 4, 2, 2)).astype(np.float32)
    cases = [(mm, {"x": x, "c": np.array(c)}) for mm in (m, back) for c in (True, False)]
    res = run_batch(cases)
    for want, got in zip(res[:2], res[2:]):
        assert not isinstance(want, str) and not isinstance(got, str), (want, got)
        np.testing.assert_allclose(got["y"], want["y"], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("opset", [18, 17, 13, 11])
def test_convert_keeps_quantization_annotations(tmp_path, opset):
    m = _model()
    src, out = tmp_path / "src.onnx", tmp_path / "out.onnx"
    src.write_bytes(m.SerializeToString())
    r = subprocess.run([TOOL, "convert", str(src), str(out), "--opset", str(opset)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    # the two entries that name what the graph lacks go, each with a warning that says why
    assert "quantization_annotation of tensor 'ghost' is dropped: 'ghost' is not a tensor" in r.stderr, r.stderr
    assert ("quantization_annotation of tensor 'r0' is dropped: its parameter tensor 'no_such_zp' "
            "is not a tensor") in r.stderr, r.stderr
    back = onnx.load(str(out))
    _check_carried(m, back)
    # the Identity whose output is annotated stays, as does the Sin whose output is
    assert {"Identity", "Sin"} <= {n.op_type for n in back.graph.node}
    r = subprocess.run([TOOL, "check", str(out), "--full"], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    _run_matches(m, back, opset)


def test_annotations_kept_by_the_library_call(tmp_path):
    """olg_legalize (the source kept, not consumed) carries them the same."""
    import onnxlegal
    from onnxlegal.lowering import legalize
    m = _model()
    src, out = tmp_path / "src.onnx", tmp_path / "out.onnx"
    src.write_bytes(m.SerializeToString())
    diags = onnxlegal.Diags()
    back = legalize(onnxlegal.Model.read(str(src)), opset=13, diags=diags)
    back.write(str(out))
    assert sum("quantization_annotation" in str(d) for d in diags) == 2
    _check_carried(m, onnx.load(str(out)))


def test_an_annotation_per_tensor_of_a_long_chain(tmp_path):
    """A quantizer annotates every activation: 20000 entries, all carried, in order (the walk is
    linear: a quadratic one takes minutes here)."""
    n = 20000
    nodes = [helper.make_node("Relu", ["x" if i == 0 else "a%d" % (i - 1)], ["a%d" % i]) for i in range(n)]
    g = helper.make_graph(nodes, "chain", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
                          [helper.make_tensor_value_info("a%d" % (n - 1), TensorProto.FLOAT, [4])], _scale_zp("act", 0.1))
    g.quantization_annotation.extend(_annotation("a%d" % i, SCALE_TENSOR="act_scale", ZERO_POINT_TENSOR="act_zp")
                                     for i in range(n))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 14)])
    m.ir_version = 7
    src, out = tmp_path / "src.onnx", tmp_path / "out.onnx"
    src.write_bytes(m.SerializeToString())
    r = subprocess.run([TOOL, "convert", str(src), str(out), "--opset", "11"], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0 and not r.stderr, r.stderr
    back = onnx.load(str(out))
    assert list(back.graph.quantization_annotation) == list(g.quantization_annotation)
    assert {"act_scale", "act_zp"} <= {i.name for i in back.graph.initializer}


def test_annotation_of_a_tensor_a_profile_rewrite_replaces_goes_with_a_warning(tmp_path):
    """The TensorRT profile replaces Bernoulli (its parser has none) after the lowering: the
    annotated output is then computed by other nodes under another name, so its annotation goes,
    with a warning that says why, and the model stays one olg_check accepts (no annotation names
    a tensor it lacks)."""
    g = helper.make_graph([helper.make_node("Bernoulli", ["p"], ["t"]), helper.make_node("Relu", ["t"], ["y"])], "g",
                          [helper.make_tensor_value_info("p", TensorProto.FLOAT, [4])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])], _scale_zp("t", 0.1))
    g.quantization_annotation.append(_annotation("t", SCALE_TENSOR="t_scale", ZERO_POINT_TENSOR="t_zp"))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 15)])
    m.ir_version = 8
    src, out = tmp_path / "src.onnx", tmp_path / "out.onnx"
    src.write_bytes(m.SerializeToString())
    r = subprocess.run([TOOL, "convert", str(src), str(out), "--opset", "15", "--profile", "tensorrt"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert ("the quantization_annotation of tensor 't' is dropped: 't' is no longer computed under its name "
            "(the target profile's rewrite replaced it)") in r.stderr, r.stderr
    back = onnx.load(str(out))
    assert len(back.graph.quantization_annotation) == 0 and "Bernoulli" not in {n.op_type for n in back.graph.node}
    c = subprocess.run([TOOL, "check", str(out)], capture_output=True, text=True)
    assert c.returncode == 0, c.stdout + c.stderr
