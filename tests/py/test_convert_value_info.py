"""A conversion keeps the source's value_info (onnx's converter does; the dynamo exporter lists a
type for every intermediate value): each entry whose value the converted model still computes
under its name, with the source's type, doc string and metadata_props; an entry of a value the
conversion removed goes. Each case runs in ONNX Runtime at the target and matches the source at
its own opset."""
import os
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "ort"))
onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from ortrun import run_batch  # noqa: E402

TOOL = os.path.join(os.environ.get("ONNXLEGAL_BUILD", os.path.join(ROOT, "build")), "bin", "onnxlegal")


def _vi(name, shape, doc=""):
    v = helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)
    v.doc_string = doc
    return v


def _metadata_entry(key, value):
    """ValueInfoProto field 4 (metadata_props, IR 10) as bytes: the onnx package here predates it."""
    e = b"\x0a" + bytes([len(key)]) + key.encode() + b"\x12" + bytes([len(value)]) + value.encode()
    return b"\x22" + bytes([len(e)]) + e


def _model():
    """GroupNormalization-18 (decomposed below 18: its output keeps its name), a Relu and an
    Identity (kept), a Sin whose output nothing reads (the cleanup removes it) and an If whose
    branch lists a value_info of its own, with a symbolic batch dim throughout."""
    then_g = helper.make_graph([helper.make_node("Neg", ["r"], ["n"]), helper.make_node("Abs", ["n"], ["t"])],
                               "then", [], [_vi("t", ["batch", 4, 2, 2])], value_info=[_vi("n", ["batch", 4, 2, 2], "negated")])
    else_g = helper.make_graph([helper.make_node("Sigmoid", ["r"], ["e"])], "else", [], [_vi("e", ["batch", 4, 2, 2])])
    nodes = [
        helper.make_node("GroupNormalization", ["x", "s", "b"], ["g"], name="gn", num_groups=2),
        helper.make_node("Relu", ["g"], ["r0"], name="relu"),
        helper.make_node("Identity", ["r0"], ["r"], name="id"),
        helper.make_node("Sin", ["x"], ["unread"], name="sin"),
        helper.make_node("If", ["c"], ["y"], name="if", then_branch=then_g, else_branch=else_g),
    ]
    inits = [numpy_helper.from_array(np.array([1.0, 2.0], np.float32), "s"),
             numpy_helper.from_array(np.array([0.5, -1.0], np.float32), "b")]
    x = _vi("x", ["batch", 4, 2, 2], "the image")
    x.MergeFromString(_metadata_entry("layout", "NCHW"))
    g = helper.make_graph(nodes, "g", [x, helper.make_tensor_value_info("c", TensorProto.BOOL, [])],
                          [_vi("y", ["batch", 4, 2, 2], "the result")], inits,
                          value_info=[_vi("g", ["batch", 4, 2, 2], "normalized"), _vi("r0", ["batch", 4, 2, 2]),
                                      _vi("r", ["batch", 4, 2, 2], "after the identity"),
                                      _vi("unread", ["batch", 4, 2, 2], "computed for nothing")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
    m.ir_version = 8
    return m


def _defined(graph):
    names = {i.name for i in graph.input} | {i.name for i in graph.initializer}
    for n in graph.node:
        names |= set(n.output)
    return names


@pytest.mark.parametrize("opset", [18, 17, 13, 11])
def test_convert_keeps_value_info(tmp_path, opset):
    m = _model()
    src, out = tmp_path / "src.onnx", tmp_path / "out.onnx"
    src.write_bytes(m.SerializeToString())
    r = subprocess.run([TOOL, "convert", str(src), str(out), "--opset", str(opset)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    back = onnx.load(str(out))
    declared = {v.name: v for v in m.graph.value_info}
    kept = {v.name: v for v in back.graph.value_info}
    # every entry names a value the converted graph defines, as the source declared it
    assert set(kept) <= _defined(back.graph), kept.keys()
    assert set(kept) == {"g", "r0", "r"} and "unread" not in _defined(back.graph)
    for name, v in kept.items():
        assert v == declared[name], name
    (if_node,) = [n for n in back.graph.node if n.op_type == "If"]
    then_out = [a.g for a in if_node.attribute if a.name == "then_branch"][0]
    assert [(v.name, v.doc_string) for v in then_out.value_info] == [("n", "negated")]
    # the graph's inputs and outputs keep theirs (doc string, metadata_props)
    assert back.graph.input[0] == m.graph.input[0] and back.graph.output[0] == m.graph.output[0]
    assert _metadata_entry("layout", "NCHW") in back.graph.input[0].SerializeToString()
    # a model ONNX Runtime runs, computing what the source computes
    r = subprocess.run([TOOL, "check", str(out), "--full"], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    x = np.random.default_rng(opset).standard_normal((3, 4, 2, 2)).astype(np.float32)
    cases = [(m, {"x": x, "c": np.array(c)}) for c in (True, False)]
    cases += [(back, {"x": x, "c": np.array(c)}) for c in (True, False)]
    res = run_batch(cases)
    for want, got in zip(res[:2], res[2:]):
        assert not isinstance(want, str) and not isinstance(got, str), (want, got)
        np.testing.assert_allclose(got["y"], want["y"], rtol=1e-5, atol=1e-5)


def test_value_info_of_another_type_is_not_carried(tmp_path):
    """An entry the source declares with an element type other than what the value computes (a
    defect of the source, which the conversion warns of) does not carry the contradiction into
    the output: that entry goes, the others stay."""
    m = _model()
    m.graph.value_info[0].type.tensor_type.elem_type = TensorProto.DOUBLE
    src, out = tmp_path / "src.onnx", tmp_path / "out.onnx"
    src.write_bytes(m.SerializeToString())
    r = subprocess.run([TOOL, "convert", str(src), str(out), "--opset", "17"], capture_output=True, text=True)
    assert r.returncode == 0 and "declared double but lowers to float" in r.stderr, r.stderr
    assert [v.name for v in onnx.load(str(out)).graph.value_info] == ["r0", "r"]


def test_value_info_of_another_shape_is_not_carried(tmp_path):
    """An entry whose shape contradicts what the value computes (rank or a known dim), of an
    output nothing reads of a node that stays (TopK's values, its indices the graph's output):
    not carried (it had been, and the converted model failed olg_check), with a warning that
    names it; the compatible entry beside it stays."""
    nodes = [helper.make_node("TopK", ["x", "k"], ["vals", "idx"], axis=1), helper.make_node("Relu", ["x"], ["r"]),
             helper.make_node("Add", ["r", "x"], ["y"])]
    g = helper.make_graph(nodes, "g", [_vi("x", ["batch", 6])], [_vi("y", ["batch", 6]),
                          helper.make_tensor_value_info("idx", TensorProto.INT64, ["batch", 2])],
                          [numpy_helper.from_array(np.array([2], np.int64), "k")],
                          value_info=[_vi("vals", ["batch", 5]), _vi("r", ["batch", 6], "relu")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 7
    src, out = tmp_path / "src.onnx", tmp_path / "out.onnx"
    src.write_bytes(m.SerializeToString())
    for opset in (17, 11):
        r = subprocess.run([TOOL, "convert", str(src), str(out), "--opset", str(opset)], capture_output=True, text=True)
        assert r.returncode == 0 and "the value_info entry of 'vals' contradicts the type the value lowers to" in r.stderr, r.stderr
        assert [v.name for v in onnx.load(str(out)).graph.value_info] == ["r"]
        c = subprocess.run([TOOL, "check", str(out), "--full"], capture_output=True, text=True)
        assert c.returncode == 0, c.stdout + c.stderr
