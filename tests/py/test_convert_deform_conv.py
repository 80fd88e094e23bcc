"""DeformConv-19 below 19 (issue 20, symbolics/emit_deform.c): what the corpus18 cases leave out
(dilations, unequal strides and pads, offsets that carry taps well outside the input, groups with
offset groups, a mask and a bias together), converted to opsets 7, 12 and 18 and run in ONNX
Runtime, must match ORT's own DeformConv on the source model at 19.
"""
import os
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
for p in ("bindings/python", "tests/ort"):
    sys.path.insert(0, os.path.join(ROOT, p))

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

TARGETS = (7, 12, 18)
RNG = np.random.default_rng(19)


def _case(n, c, hw, oc, k, group, og, attrs, mask, bias):
    h, w = hw
    pads = attrs.get("pads", [0, 0, 0, 0])
    st = attrs.get("strides", [1, 1])
    dl = attrs.get("dilations", [1, 1])
    oh = (h + pads[0] + pads[2] - (dl[0] * (k[0] - 1) + 1)) // st[0] + 1
    ow = (w + pads[1] + pads[3] - (dl[1] * (k[1] - 1) + 1)) // st[1] + 1
    feeds = {"x": RNG.standard_normal((n, c, h, w)).astype(np.float32),
             "off": RNG.uniform(-4, 4, (n, og * k[0] * k[1] * 2, oh, ow)).astype(np.float32)}
    ins = ["x", "w", "off"]
    inits = [numpy_helper.from_array(RNG.standard_normal((oc, c // group) + tuple(k)).astype(np.float32), "w")]
    if bias:
        inits.append(numpy_helper.from_array(RNG.standard_normal(oc).astype(np.float32), "b"))
    ins.append("b" if bias else "")
    if mask:
        feeds["mask"] = RNG.uniform(0, 1, (n, og * k[0] * k[1], oh, ow)).astype(np.float32)
        ins.append("mask")
    node = helper.make_node("DeformConv", ins, ["y"], kernel_shape=list(k), group=group,
                            offset_group=og, **attrs)
    g = helper.make_graph([node], "m",
                          [helper.make_tensor_value_info(nm, TensorProto.FLOAT, v.shape) for nm, v in feeds.items()],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [n, oc, oh, ow])],
                          initializer=inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 19)])
    m.ir_version = 9
    return m.SerializeToString(), feeds


CASES = {
    "dilated_strided_uneven_pads_mask_bias": _case(2, 4, (7, 6), 6, (3, 2), 2, 2,
                                                    dict(dilations=[2, 1], strides=[1, 2], pads=[2, 0, 1, 1]),
                                                    mask=True, bias=True),
    "offset_groups_only": _case(1, 6, (5, 5), 2, (2, 2), 1, 3, dict(pads=[1, 1, 0, 0]), mask=False, bias=False),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_deform_conv_below_19_matches_ort(name):
    import onnxlegal
    from ortrun import run_batch
    model, feeds = CASES[name]
    src = onnxlegal.Model.from_bytes(model)
    batch = [(model, feeds)] + [(onnxlegal.convert(src, t).to_bytes(), feeds) for t in TARGETS]
    res = run_batch(batch)
    assert not isinstance(res[0], str), res[0]
    want = res[0]["y"]
    for t, r in zip(TARGETS, res[1:]):
        assert not isinstance(r, str), "->%d: %s" % (t, r[:300])
        assert r["y"].shape == want.shape
        np.testing.assert_allclose(r["y"], want, rtol=1e-4, atol=1e-5, err_msg="->%d" % t)
