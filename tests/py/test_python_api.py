"""Python ergonomics of the binding: Diags printable, iterable, indexable, len(), truthy only when
it holds something, .errors/.warnings; Model.check(full=True) runs inference; infer_shapes()
raises an Error that carries its diagnostics and lists inferred shapes in value_info as
onnx.shape_inference does (resnet18 exported by torch.onnx: same names, same types)."""
import os
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bindings", "python"))

import onnxlegal  # noqa: E402


def test_diags_print_iterate_and_truth():
    d = onnxlegal.Diags()
    assert not d and len(d) == 0 and str(d) == "" and list(d) == []
    d.add("warning", "OLG-TEST-W", "careful", node="n2", domain="my.dom", op="Op", opset=3)
    assert d and len(d) == 1 and not d.errors and len(d.warnings) == 1
    d.add("error", "OLG-TEST-E", "broken", node="n1", op="Relu", opset=17)
    d.add("note", "OLG-TEST-N", "fyi")
    assert str(d).splitlines() == [
        "warning OLG-TEST-W: node 'n2' (my.dom::Op, opset 3): careful",
        "error OLG-TEST-E: node 'n1' (Relu, opset 17): broken",
        "note OLG-TEST-N: fyi",
    ]
    assert repr(d) == "<onnxlegal.Diags: 1 errors, 1 warnings, 1 notes>"
    first = d[0]
    assert first.domain == "my.dom" and first.opset == 3 and first["code"] == "OLG-TEST-W"
    assert d[-1].code == "OLG-TEST-N" and [x.code for x in d[1:]] == ["OLG-TEST-E", "OLG-TEST-N"]
    assert [x.code for x in d.errors] == ["OLG-TEST-E"] and d.error_count == 1
    with pytest.raises(IndexError):
        d[3]


def _relu_model(declared):
    m = onnxlegal.Model(opset=17)
    g = m.graph
    x = g.add_input("x", np.float32, [2, 3])
    y = g.node("Relu", [x], outputs=["y"], name="act")
    y.set_type(np.float32, declared)
    g.add_output(y)
    return m


def test_check_full_runs_inference():
    m = _relu_model([5])  # Relu of [2,3] declared [5]: only inference sees the contradiction
    assert not m.check().errors
    full = m.check(full=True)
    assert [e.code for e in full.errors] == ["OLG-INFER-MISMATCH"]
    assert full.errors[0].node == "act" and full.errors[0].op == "Relu" and full.errors[0].opset == 17
    assert "OLG-INFER-MISMATCH" in str(full)
    # max_errors and notes reach the C options
    assert len(m.check(full=True, max_errors=1).errors) == 1


def test_infer_shapes_error_carries_diagnostics():
    m = onnxlegal.Model(opset=17)
    g = m.graph
    a = g.add_input("a", np.float32, [2, 3])
    b = g.add_input("b", np.float32, [4])
    g.add_output(g.node("Add", [a, b], name="bad_add"))
    with pytest.raises(onnxlegal.InvalidModelError) as ei:
        m.infer_shapes()
    e = ei.value
    assert e.diags.errors and e.diags.errors[0].node == "bad_add"
    assert e.diags.errors[0].code == "OLG-INFER-INVALID"
    assert "bad_add" in str(e) and "OLG-INFER-INVALID" in str(e)


def test_infer_shapes_writes_value_info(tmp_path):
    m = onnxlegal.Model(opset=17)
    g = m.graph
    x = g.add_input("x", np.float32, ["batch", 4])
    w = g.add_initializer("W", np.ones((4, 2), np.float32))
    h = g.node("MatMul", [x, w], outputs=["h"])
    g.add_output(g.node("Relu", [h], outputs=["y"]))
    assert not m.infer_shapes()
    m.write(str(tmp_path / "m.onnx"))
    onnx = pytest.importorskip("onnx")
    p = onnx.load(str(tmp_path / "m.onnx"))
    assert [v.name for v in p.graph.value_info] == ["h"]
    dims = p.graph.value_info[0].type.tensor_type.shape.dim
    assert [d.dim_param or d.dim_value for d in dims] == ["batch", 2]
    assert m.infer_shapes(value_info=False) is not None


def test_resnet18_value_info_matches_onnx(tmp_path):
    torch = pytest.importorskip("torch")
    torchvision = pytest.importorskip("torchvision")
    onnx = pytest.importorskip("onnx")
    src = str(tmp_path / "resnet18.onnx")
    torch.manual_seed(0)
    torch.onnx.export(torchvision.models.resnet18().eval(), torch.randn(1, 3, 224, 224), src,
                      opset_version=17, input_names=["image"],
                      dynamic_axes={"image": {0: "batch"}})
    theirs = onnx.shape_inference.infer_shapes(onnx.load(src)).graph.value_info
    m = onnxlegal.Model.read(src)
    assert not m.infer_shapes().errors
    m.write(str(tmp_path / "ours.onnx"))
    ours = onnx.load(str(tmp_path / "ours.onnx")).graph.value_info
    assert len(ours) == len(theirs) > 60
    want = {v.name: v.type for v in theirs}
    assert {v.name: v.type for v in ours} == want


def test_the_operator_tables_are_public():
    """Which opsets an op exists at, through the public API the CLI uses (issue 28, point 8)."""
    assert onnxlegal.op_versions("Add") == [1, 6, 7, 13, 14]
    assert onnxlegal.op_versions("GroupNormalization")[:2] == [18, 21]
    assert onnxlegal.op_versions("NoSuchOp") == [] and onnxlegal.op_versions("Add", "no.domain") == []
    ops = onnxlegal.ops()
    assert len(ops) > 180 and ops == sorted(ops) and "Attention" in ops and "Scatter" in ops
    assert "LinearClassifier" in onnxlegal.ops("ai.onnx.ml")
    lib = onnxlegal.lib
    assert lib.olg_schema_op_defined_at(b"", b"Scatter", 10) == 1
    assert lib.olg_schema_op_defined_at(b"", b"Scatter", 11) == 0  # deprecated at 11
    assert lib.olg_schema_op_defined_at(b"", b"Gelu", 19) == 0 and lib.olg_schema_op_defined_at(b"", b"Gelu", 20) == 1
    assert lib.olg_schema_domain_opset(b"") >= 27 and lib.olg_schema_domain_opset(b"nope") == -1
