"""A caller's symbolic written once, at an ONNX version of its choosing (issue 26, slice a and the
Python half of b): `cx.emit(op, ..., version=V)` writes the node as op was defined at V and the
library converts it to the target opset with the conversions `convert` uses, or refuses naming
the lowest opset that works and the caller's op. Checked by numbers in ONNX Runtime at every
target, and by the encoding the target gets."""
import math
import os
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
for p in ("bindings/python", "tests/ort"):
    sys.path.insert(0, os.path.join(ROOT, p))

onnx = pytest.importorskip("onnx")
import onnxlegal  # noqa: E402
from onnxlegal.lowering import Registry, legalize  # noqa: E402

X = np.linspace(-3, 3, 12, dtype=np.float32).reshape(3, 4)


def _source(op):
    m = onnxlegal.Model(opset=None)
    g = m.graph
    x = g.add_input("x", np.float32, [3, 4])
    g.add_output(g.node(op, [x], outputs=["y"], domain="t", name="layer.%s" % op))
    return m


def _registry():
    reg = Registry()

    def unsq(cx, node):  # x[None], written once with Unsqueeze-13's axes input
        axes = cx.const_ints([0])
        cx.bind(0, cx.emit("Unsqueeze", [cx.arg_value(0), axes], version=13))

    def gelu(cx, node):  # Gelu-20 (tanh approximation), written once
        cx.bind(0, cx.emit("Gelu", [cx.arg_value(0)], approximate="tanh", version=20))

    def norm(cx, node):  # LayerNormalization-17 over the last axis, scale and bias of ones/zeros
        scale = cx.const(np.ones(4, np.float32))
        bias = cx.const(np.zeros(4, np.float32))
        cx.bind(0, cx.emit("LayerNormalization", [cx.arg_value(0), scale, bias], axis=-1,
                           epsilon=1e-5, version=17))

    def gelu_erf(cx, node):  # Gelu-20 exact: Erf exists from 9 only
        cx.bind(0, cx.emit("Gelu", [cx.arg_value(0)], version=20))

    reg.add("t", "unsq", unsq)
    reg.add("t", "gelu_erf", gelu_erf)
    reg.add("t", "gelu", gelu)
    reg.add("t", "norm", norm)
    reg.freeze()
    return reg


def _gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))


def _norm(x):
    m = x.mean(-1, keepdims=True)
    return (x - m) / np.sqrt(((x - m) ** 2).mean(-1, keepdims=True) + 1e-5)


CASES = [("unsq", lambda x: x[None], range(7, 27)),
         ("gelu", _gelu_tanh, range(7, 27)),
         ("norm", _norm, range(7, 27))]


@pytest.mark.parametrize("op,ref,targets", CASES, ids=[c[0] for c in CASES])
def test_written_once_converts_to_every_target_and_matches(op, ref, targets):
    from ortrun import run_batch
    reg = _registry()
    src = _source(op)
    batch, outs = [], []
    for t in targets:
        out = legalize(src, reg, opset=t)
        assert not any(n.domain for n in out.graph.nodes), t
        outs.append(out)
        batch.append((out.to_bytes(), {"x": X}))
    for t, r in zip(targets, run_batch(batch)):
        assert not isinstance(r, str), "-> %d: %s" % (t, r)
        np.testing.assert_allclose(r["y"], ref(X), rtol=1e-4, atol=1e-5, err_msg="-> %d" % t)
    # the encoding of each target: Unsqueeze takes axes as an attribute below 13, an input from 13
    if op == "unsq":
        for t, out in zip(targets, outs):
            m = onnx.load_from_string(out.to_bytes())
            (u,) = [n for n in m.graph.node if n.op_type == "Unsqueeze"]
            assert (len(u.input) == 2) == (t >= 13), (t, u)
            assert any(a.name == "axes" for a in u.attribute) == (t < 13), (t, u)
            assert u.name.startswith("layer.unsq/"), u.name  # named under the caller's node


def test_at_the_versions_own_opset_the_node_is_kept_as_written():
    out = legalize(_source("gelu"), _registry(), opset=20)
    assert [n.op for n in out.graph.nodes] == ["Gelu"]


def test_a_refusal_names_the_lowest_opset_and_the_callers_op():
    with pytest.raises(onnxlegal.Error) as e:
        legalize(_source("gelu_erf"), _registry(), opset=8)
    errs = [d for d in e.value.diagnostics if d["severity"] == "error"]
    assert errs and errs[0]["min_opset"] == 9, errs
    assert "emitted as Gelu-20 by the symbolic of t::gelu_erf" in errs[0]["message"], errs[0]
    assert errs[0]["node"] == "layer.gelu_erf"
    out = legalize(_source("gelu_erf"), _registry(), opset=9)  # and from 9 it converts
    assert "Erf" in [n.op for n in out.graph.nodes]


def test_a_version_onnx_does_not_have_is_a_clear_error():
    reg = Registry()
    reg.add("t", "bad", lambda cx, node: cx.bind(0, cx.emit("Gelu", [cx.arg_value(0)], version=13)))
    reg.freeze()
    with pytest.raises(onnxlegal.Error) as e:
        legalize(_source("bad"), reg, opset=17)
    assert "ONNX has no Gelu at opset 13" in str(e.value)
