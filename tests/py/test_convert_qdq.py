"""Quantized (QDQ) models converted below the opsets of what they use (issue 21, slice b), run in
ONNX Runtime against ORT on the source model at its own opset:

- QuantizeLinear on values exactly halfway between two integers (round half to even) and out of
  the type's range (saturation), per-tensor (10) and per-axis (13), to every lower opset;
- DequantizeLinear per-axis (13) of int8 and uint8 with zero points, to 7..12;
- a QDQ conv net as ONNX Runtime's quantizer writes it at 13 (activations per-tensor uint8,
  weights per-channel int8 along axis 0) converted to 7, 9, 10, 11 and 12: there the per-channel
  DequantizeLinear is computed, the per-tensor pairs stay QDQ where the opset has them.
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

TIES = np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.5, 126.5, 127.5, -128.5, 300.0, -300.0, 0.25, -0.75],
                np.float32)


def _model(nodes, inputs, outputs, inits, opset):
    g = helper.make_graph(nodes, "m", inputs, [helper.make_empty_tensor_value_info(o) for o in outputs],
                          initializer=[numpy_helper.from_array(v, k) for k, v in inits.items()])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 7
    return m


# ORT's graph optimizer fuses QDQ around a Conv into integer kernels (and, at opset 10, inserts a
# Round that opset lacks): source and converted models alike run unoptimized, as the ops define.
PLAIN = {"graphOptimizationLevel": "disabled"}


def _check(model, feeds, targets):
    import onnxlegal
    from ortrun import run_batch
    src = onnxlegal.Model.from_bytes(model.SerializeToString())
    batch = [(model, feeds, PLAIN)] + [(onnxlegal.convert(src, t).to_bytes(), feeds, PLAIN) for t in targets]
    results = run_batch(batch)
    assert not isinstance(results[0], str), results[0]
    for t, r in zip(targets, results[1:]):
        assert not isinstance(r, str), "-> %d: %s" % (t, r)
        for k, v in results[0].items():
            assert r[k].dtype == v.dtype, (t, k, r[k].dtype, v.dtype)
            np.testing.assert_allclose(r[k], v, rtol=1e-6, atol=1e-6, err_msg="-> %d: %s" % (t, k))


@pytest.mark.parametrize("zp_type", [np.int8, np.uint8])
def test_quantize_per_tensor_ties_and_saturation_below_10(zp_type):
    zp = np.array(3 if zp_type == np.uint8 else -2, zp_type)
    m = _model([helper.make_node("QuantizeLinear", ["x", "s", "z"], ["y"])],
               [helper.make_tensor_value_info("x", TensorProto.FLOAT, [14])], ["y"],
               {"s": np.array(1.0, np.float32), "z": zp}, 10)
    _check(m, {"x": TIES}, range(7, 10))


def test_quantize_per_axis_ties_below_13():
    x = np.stack([TIES, TIES * 2, TIES * 0.5])  # [3, 14], scales 1, 2, 0.5 keep the ties
    m = _model([helper.make_node("QuantizeLinear", ["x", "s", "z"], ["y"], axis=0)],
               [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 14])], ["y"],
               {"s": np.array([1.0, 2.0, 0.5], np.float32), "z": np.array([0, 1, -1], np.int8)}, 13)
    _check(m, {"x": x}, range(7, 13))


@pytest.mark.parametrize("dt", [np.int8, np.uint8])
def test_dequantize_per_axis_below_13(dt):
    info = np.iinfo(dt)
    x = np.random.default_rng(13).integers(info.min, info.max, (2, 3, 4), dtype=dt, endpoint=True)
    m = _model([helper.make_node("DequantizeLinear", ["x", "s", "z"], ["y"], axis=1)],
               [helper.make_tensor_value_info("x", onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[np.dtype(dt)], [2, 3, 4])],
               ["y"], {"s": np.array([0.1, 0.02, 3.0], np.float32), "z": np.array([1, 0, 5], dt)}, 13)
    _check(m, {"x": x}, range(7, 13))


def test_qdq_conv_net_per_channel_weights_to_7_through_12():
    rng = np.random.default_rng(21)
    w = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    w_scale = (np.abs(w).reshape(4, -1).max(1) / 127).astype(np.float32)
    wq = np.clip(np.round(w / w_scale[:, None, None, None]), -127, 127).astype(np.int8)
    inits = {"a_s": np.array(0.02, np.float32), "a_z": np.array(128, np.uint8),
             "wq": wq, "w_s": w_scale, "w_z": np.zeros(4, np.int8), "b": rng.standard_normal(4).astype(np.float32),
             "o_s": np.array(0.05, np.float32), "o_z": np.array(0, np.uint8)}
    n = [helper.make_node("QuantizeLinear", ["x", "a_s", "a_z"], ["xq"]),
         helper.make_node("DequantizeLinear", ["xq", "a_s", "a_z"], ["xd"]),
         helper.make_node("DequantizeLinear", ["wq", "w_s", "w_z"], ["wd"], axis=0),
         helper.make_node("Conv", ["xd", "wd", "b"], ["c"], pads=[1, 1, 1, 1]),
         helper.make_node("Relu", ["c"], ["r"]),
         helper.make_node("QuantizeLinear", ["r", "o_s", "o_z"], ["rq"]),
         helper.make_node("DequantizeLinear", ["rq", "o_s", "o_z"], ["y"])]
    m = _model(n, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])], ["y"], inits, 13)
    x = rng.uniform(-2, 2, (1, 3, 8, 8)).astype(np.float32)
    _check(m, {"x": x}, (7, 9, 10, 11, 12))
    # where the opset has QuantizeLinear, the per-tensor pairs stay QDQ (a runtime fuses them)
    import onnxlegal
    out = onnxlegal.convert(onnxlegal.Model.from_bytes(m.SerializeToString()), 12).to_text()
    assert out.count("QuantizeLinear") >= 2 and out.count("DequantizeLinear") >= 2, out


def test_quantize_blocked_block_past_the_axis_is_one_block():
    """A block_size past the axis (here near INT64_MAX) is one block of the axis: the repeated
    scale is the axis long. The check of the scale's size had multiplied by the block (signed
    overflow found by fuzz_builder) and the scale was expanded to block elements, then sliced."""
    import onnxlegal

    def conv(block):
        m = _model([helper.make_node("QuantizeLinear", ["x", "s", "z"], ["y"], axis=1, block_size=block)],
                   [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 14])], ["y"],
                   {"s": np.array([[1.0], [2.0]], np.float32), "z": np.array([[0], [1]], np.int8)}, 21)
        src = onnxlegal.Model.from_bytes(m.SerializeToString())
        return onnx.load_from_string(onnxlegal.convert(src, 19).to_bytes())

    huge, exact = conv(2**63 - 2), conv(14)
    assert "Slice" not in [n.op_type for n in huge.graph.node]
    assert huge.SerializeToString() == exact.SerializeToString()
