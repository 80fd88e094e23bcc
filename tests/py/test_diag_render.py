"""Diagnostics tell nodes apart and render one way (issue 28, point 2): every diagnostic about a
node carries its name or its place in the graph and its first output; the library's rendering
(olg_diag_format) is what the CLI, Python and C++ print, and it does not repeat in the message what
the fields say."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bindings", "python"))
onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402

import onnxlegal  # noqa: E402

TOOL = os.path.join(os.environ.get("ONNXLEGAL_BUILD", os.path.join(ROOT, "build")), "bin", "onnxlegal")


def _two_unnamed(op="Compress", opset=11):
    nodes = [helper.make_node(op, ["x", "c"], ["y1"], axis=0), helper.make_node(op, ["x", "c"], ["y2"], axis=0)]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4]),
                                       helper.make_tensor_value_info("c", TensorProto.BOOL, [4])],
                          [helper.make_tensor_value_info("y1", TensorProto.FLOAT, None),
                           helper.make_tensor_value_info("y2", TensorProto.FLOAT, None)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 6
    return m


def test_unnamed_nodes_refused_by_a_profile_are_told_apart(tmp_path):
    src = onnxlegal.Model.from_bytes(_two_unnamed().SerializeToString())
    with pytest.raises(onnxlegal.Error) as e:
        onnxlegal.convert(src, 11, profile="tensorrt")
    errs = [d for d in e.value.diagnostics if d["severity"] == "error"]
    assert len(errs) == 2
    assert {d["output"] for d in errs} == {"y1", "y2"}
    assert len({d["text"] for d in errs}) == 2, errs
    path = tmp_path / "m.onnx"
    path.write_bytes(_two_unnamed().SerializeToString())
    r = subprocess.run([TOOL, "check", str(path), "--profile", "tensorrt"], capture_output=True, text=True)
    lines = [line for line in r.stdout.splitlines() if "OLG-PROFILE-VIOLATION" in line]
    assert len(lines) == 2 and lines[0] != lines[1], r.stdout
    assert "node #0 (Compress, output 'y1', opset 11)" in lines[0]
    assert "node #1 (Compress, output 'y2', opset 11)" in lines[1]


def test_a_lowering_refusal_names_an_unnamed_node_by_place_and_output(tmp_path):
    m = _two_unnamed("Unique", 11)
    for n in m.graph.node:
        del n.input[1:]
    # of strings: Unique converts below 11 by comparisons, which strings do not have
    for v in (m.graph.input[0], *m.graph.output):
        v.type.tensor_type.elem_type = TensorProto.STRING
    src = onnxlegal.Model.from_bytes(m.SerializeToString())
    with pytest.raises(onnxlegal.Error) as e:
        onnxlegal.convert(src, 9)
    errs = [d for d in e.value.diagnostics if d["severity"] == "error"]
    assert [(d["node_index"], d["output"], d["min_opset"]) for d in errs] == [(0, "y1", 11), (1, "y2", 11)]
    for d in errs:
        # the message is the reason: the node, op and opset are the fields', said once
        assert "node" not in d["message"] and "#" not in d["message"], d
        assert d["text"].startswith("error OLG-LOWER-UNSUPPORTED: node #%d (Unique, output '%s', opset 9): "
                                    % (d["node_index"], d["output"])), d["text"]
        assert d["text"].endswith("[lowest opset that works: 11]"), d["text"]
        assert str(onnxlegal.Diag(d)) == d["text"]
    path = tmp_path / "u.onnx"
    path.write_bytes(m.SerializeToString())
    r = subprocess.run([TOOL, "convert", str(path), str(tmp_path / "o.onnx"), "--opset", "9"],
                       capture_output=True, text=True)
    assert r.returncode == 1
    assert "onnxlegal: convert: " + errs[0]["text"] in r.stderr, r.stderr
