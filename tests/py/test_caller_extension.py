"""Caller extension from Python: a symbolic for the caller's own op (mmcv::MSDeformAttn,
bindings/python/examples/ms_deform_attn.py), lowered into standard ONNX (checked numerically
against the PyTorch reference in ONNX Runtime) or into a node of the caller's domain with a
shape function; overrides of a built-in and their removal; failures of a Python symbolic."""
import os
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
for p in ("bindings/python", "bindings/python/examples", "tests/ort", "tests/numeric"):
    sys.path.insert(0, os.path.join(ROOT, p))

import onnxlegal  # noqa: E402
import ms_deform_attn as msda  # noqa: E402
from onnxlegal.lowering import Registry, legalize  # noqa: E402

N, M, D, Lq, P = 2, 2, 4, 5, 3
SHAPES = np.array([[4, 6], [2, 3]], np.int64)
S = int((SHAPES[:, 0] * SHAPES[:, 1]).sum())
L = len(SHAPES)
rng = np.random.default_rng(7)
VALUE = rng.standard_normal((N, S, M, D)).astype(np.float32)
LOC = rng.uniform(-0.1, 1.1, (N, Lq, M, L, P, 2)).astype(np.float32)  # some outside: zeros pad
ATTN = rng.uniform(0, 1, (N, Lq, M, L, P)).astype(np.float32)


def source_model():
    m = onnxlegal.Model(opset=None)
    g = m.graph
    value = g.add_input("value", np.float32, [N, S, M, D])
    shapes = g.add_initializer("spatial_shapes", SHAPES)
    loc = g.add_input("loc", np.float32, [N, Lq, M, L, P, 2])
    attn = g.add_input("attn", np.float32, [N, Lq, M, L, P])
    out = g.node(msda.OP, [value, shapes, loc, attn], outputs=["out"], domain=msda.DOMAIN,
                 name="encoder.layers.0.self_attn")
    g.add_output(out)
    return m


def reference():
    import torch
    return msda.ms_deform_attn_core_pytorch(torch.from_numpy(VALUE), torch.from_numpy(SHAPES),
                                            torch.from_numpy(LOC), torch.from_numpy(ATTN)).numpy()


def olg_check(model):
    from harness import _olg_check
    return _olg_check(model)


def test_lowered_to_standard_onnx_matches_pytorch():
    from ortrun import run_batch
    reg = Registry()
    msda.register_onnx(reg)
    reg.freeze()
    src = source_model()
    # written once (GridSample as defined at 20): every opset, decomposed below 16 by the library
    opsets = [7, 9, 11, 13, 16, 17, 18, 20, 21, 23, 26]
    batch = []
    for opset in opsets:
        out = legalize(src, reg, opset=opset)
        ops = {n.op for n in out.graph.nodes}
        assert ("GridSample" in ops) == (opset >= 16) and not any(n.domain for n in out.graph.nodes)
        assert olg_check(out) is None
        data = out.to_bytes()
        if opset <= 17:
            import onnx
            onnx.checker.check_model(onnx.load_from_string(data), full_check=True)
        batch.append((data, {"value": VALUE, "loc": LOC, "attn": ATTN}))
    want = reference()
    for opset, r in zip(opsets, run_batch(batch)):
        assert not isinstance(r, str), "opset %d: %s" % (opset, r)
        np.testing.assert_allclose(r["out"], want, atol=1e-4, rtol=1e-3, err_msg="opset %d" % opset)


def test_a_registration_from_16_is_refused_below_naming_16():
    reg = Registry()
    msda.register_onnx(reg, since=16)
    assert reg.lowering(msda.DOMAIN, msda.OP, 13) is None
    assert reg.min_opset(msda.DOMAIN, msda.OP) == 16
    d = onnxlegal.Diags()
    with pytest.raises(onnxlegal.UnsupportedError):
        legalize(source_model(), reg, opset=13, diags=d)
    msgs = [x["message"] for x in d]
    assert any("mmcv::MSDeformAttn" in m and "lowest opset that works is 16" in m for m in msgs), msgs
    assert [x["node"] for x in d] == ["encoder.layers.0.self_attn"]


def test_custom_domain_with_shape_function():
    reg = Registry()
    msda.register_custom(reg, version=3)
    out = legalize(source_model(), reg, opset=13)
    assert out.opset(msda.DOMAIN) == 3
    (node,) = [n for n in out.graph.nodes if n.domain == msda.DOMAIN]
    assert node.op == msda.OP and node.name == "encoder.layers.0.self_attn"  # passed through: its name
    (y,) = out.graph.outputs
    assert y.name == "out" and tuple(y.shape) == (N, Lq, M * D) and y.dtype == np.float32
    # the model is valid ONNX apart from the custom op no schema describes
    import onnx
    onnx.checker.check_model(onnx.load_from_string(out.to_bytes()))


def test_python_override_of_a_builtin_and_its_removal():
    reg = Registry()
    calls = []

    def view_as_flatten(cx, node):
        calls.append(cx.node_name)
        x = cx.arg_value(0)
        cx.bind(0, cx.emit("Flatten", [x], axis=0))

    reg.add("aten", "view", view_as_flatten)
    m = onnxlegal.Model(opset=None)
    x = m.graph.add_input("x", np.float32, [2, 3])
    m.graph.add_output(m.graph.source_node("aten", "view", [x, [1, 6]], n_outputs=["y"], name="v"))
    out = legalize(m, reg, opset=13)
    assert calls == ["v"] and [n.op for n in out.graph.nodes] == ["Flatten"]
    reg.remove("aten", "view")
    out = legalize(m, reg, opset=13)
    assert calls == ["v"] and "Reshape" in [n.op for n in out.graph.nodes]
    reg.freeze()
    with pytest.raises(onnxlegal.StateError):
        reg.add("aten", "view", view_as_flatten)


def test_python_symbolic_failures_become_diagnostics():
    reg = Registry(builtin=False)

    def broken(cx, node):
        raise ValueError("boom in the caller's code")

    reg.add("my", "Op", broken)
    m = onnxlegal.Model(opset=None)
    x = m.graph.add_input("x", np.float32, [2])
    m.graph.add_output(m.graph.source_node("my", "Op", [x], n_outputs=["y"], name="n1"))
    d = onnxlegal.Diags()
    with pytest.raises(onnxlegal.Error):
        legalize(m, reg, opset=17, diags=d)
    (diag,) = list(d)
    assert "ValueError: boom in the caller's code" in diag["message"] and diag["node"] == "n1"
