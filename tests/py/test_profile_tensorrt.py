"""The "tensorrt" target profile: no Gather on shape tensors. An ONNX source whose graph reads a
dim with Shape -> Gather (scalar and 1-element indices, negative too) is rewritten to Shape
with start/end (opset 15+) or Shape -> Slice (below), and computes the same in ONNX Runtime."""
import os
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
for p in ("bindings/python", "tests/ort"):
    sys.path.insert(0, os.path.join(ROOT, p))

import onnxlegal  # noqa: E402
from onnxlegal.lowering import legalize  # noqa: E402


def source():
    m = onnxlegal.Model(opset={"": 13})
    g = m.graph
    x = g.add_input("x", np.float32, ["N", 3, "W"])
    s = g.node("Shape", [x], name="shape")
    i0 = g.add_initializer("i0", np.array(0, np.int64))
    im1 = g.add_initializer("im1", np.array([-1], np.int64))
    n = g.node("Gather", [s, i0], outputs=["n"], axis=0, name="get_n")
    w = g.node("Gather", [s, im1], outputs=["w"], axis=0, name="get_w")
    nw = g.node("Concat", [g.node("Unsqueeze", [n, g.add_initializer("ax", np.array([0], np.int64))]), w],
                outputs=["nw"], axis=0, name="cat")
    g.add_output(n)
    g.add_output(nw)
    return m


def test_tensorrt_profile_has_no_gather_on_shapes_and_computes_the_same():
    from ortrun import run_batch
    src = source()
    x = np.arange(2 * 3 * 5, dtype=np.float32).reshape(2, 3, 5)
    batch = []
    for opset in (13, 15, 17, 21):
        plain = legalize(src, opset=opset)
        assert "Gather" in [nd.op for nd in plain.graph.nodes]
        trt = legalize(src, opset=opset, profile="tensorrt")
        ops = [nd.op for nd in trt.graph.nodes]
        assert "Gather" not in ops, (opset, ops)
        assert ("Slice" in ops) == (opset < 15), (opset, ops)
        assert [v.name for v in trt.graph.outputs] == ["n", "nw"]
        batch.append((trt.to_bytes(), {"x": x}))
    for r in run_batch(batch):
        assert not isinstance(r, str), r
        assert r["n"].shape == () and int(r["n"]) == 2
        np.testing.assert_array_equal(r["nw"], [2, 5])
