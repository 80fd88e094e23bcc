"""Whole models in the encodings users hold today (opsets 18-23), converted down to 11, 13 and 17
and run in ONNX Runtime against ORT on the source model at its own opset (issue 20, part 3).

- a transformer block as torch's dynamo exporter writes it at 18: LayerNormalization, Split with
  num_outputs, ReduceMean and Pad with axes as inputs, Softmax attention, Gelu-free MLP;
- a decoder block as onnxscript / the GenAI builders write it at 23: RMSNormalization,
  RotaryEmbedding, Attention with grouped-query heads, a KV cache and is_causal, a Swish-gated
  MLP (Mul of Sigmoid), Gelu-20;
- a conv net at 21: Conv, GroupNormalization-21, Gelu-20, Resize-19 (nearest, asymmetric),
  Mish, ReduceMean-18 pooling.

The models are built here with onnx.helper (python3-onnx 1.12 knows opsets up to 17: no checker),
their weights drawn from a fixed seed.
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

TARGETS = (11, 13, 17)
RNG = np.random.default_rng(20)


def _w(*shape, scale=0.3):
    return (RNG.standard_normal(shape) * scale).astype(np.float32)


def _model(nodes, inputs, outputs, inits, opset):
    g = helper.make_graph(nodes, "m", inputs, [helper.make_empty_tensor_value_info(o) for o in outputs],
                          initializer=[numpy_helper.from_array(v, k) for k, v in inits.items()])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 10 if opset >= 23 else 8
    return m


def _i64(*v):
    return np.array(v, np.int64)


def transformer18():
    """[B, T, 16] -> [B, T, 16], 2 heads; the dynamo exporter's encodings of opset 18."""
    d, h = 16, 2
    inits = {"ln_s": _w(d) + 1, "ln_b": _w(d), "wqkv": _w(d, 3 * d), "wo": _w(d, d), "w1": _w(d, 32),
             "w2": _w(32, d), "ax_last": _i64(-1), "shape4": _i64(0, 0, h, d // h), "shape3": _i64(0, 0, d),
             "scale": np.array(1 / np.sqrt(d // h), np.float32), "pads": _i64(0, 1), "axes_pad": _i64(2)}
    n = [
        helper.make_node("LayerNormalization", ["x", "ln_s", "ln_b"], ["ln"], axis=-1),
        helper.make_node("MatMul", ["ln", "wqkv"], ["qkv"]),
        helper.make_node("Split", ["qkv"], ["q0", "k0", "v0"], axis=-1, num_outputs=3),
    ]
    for t in ("q", "k", "v"):
        n += [helper.make_node("Reshape", [t + "0", "shape4"], [t + "1"]),
              helper.make_node("Transpose", [t + "1"], [t], perm=[0, 2, 1, 3])]
    n += [
        helper.make_node("Transpose", ["k"], ["kt"], perm=[0, 1, 3, 2]),
        helper.make_node("MatMul", ["q", "kt"], ["s0"]),
        helper.make_node("Mul", ["s0", "scale"], ["s"]),
        helper.make_node("Softmax", ["s"], ["p"], axis=-1),
        helper.make_node("MatMul", ["p", "v"], ["o0"]),
        helper.make_node("Transpose", ["o0"], ["o1"], perm=[0, 2, 1, 3]),
        helper.make_node("Reshape", ["o1", "shape3"], ["o2"]),
        helper.make_node("MatMul", ["o2", "wo"], ["o"]),
        helper.make_node("Add", ["x", "o"], ["r1"]),
        helper.make_node("ReduceMean", ["r1", "ax_last"], ["mu"], keepdims=1),
        helper.make_node("Sub", ["r1", "mu"], ["c"]),
        helper.make_node("MatMul", ["c", "w1"], ["f1"]),
        helper.make_node("Relu", ["f1"], ["f2"]),
        helper.make_node("MatMul", ["f2", "w2"], ["f3"]),
        helper.make_node("Add", ["r1", "f3"], ["r2"]),
        helper.make_node("Pad", ["r2", "pads", "", "axes_pad"], ["y"], mode="constant"),
    ]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 5, d])
    return _model(n, [x], ["y"], inits, 18), {"x": _w(2, 5, d, scale=1.0)}


def decoder23():
    """One decoding step of a grouped-query decoder block at opset 23."""
    d, hq, hk, e, past = 16, 4, 2, 4, 3
    cos = np.cos(np.outer(np.arange(8), 1.0 / 10000 ** (np.arange(e // 2) / (e // 2)))).astype(np.float32)
    sin = np.sin(np.outer(np.arange(8), 1.0 / 10000 ** (np.arange(e // 2) / (e // 2)))).astype(np.float32)
    inits = {"rms_s": _w(d) + 1, "wq": _w(d, hq * e), "wk": _w(d, hk * e), "wv": _w(d, hk * e),
             "wo": _w(hq * e, d), "cos": cos, "sin": sin, "wg": _w(d, 32), "wu": _w(d, 32), "wd": _w(32, d),
             "rms2_s": _w(d) + 1}
    n = [
        helper.make_node("RMSNormalization", ["x", "rms_s"], ["h"], axis=-1, epsilon=1e-6),
        helper.make_node("MatMul", ["h", "wq"], ["q0"]),
        helper.make_node("MatMul", ["h", "wk"], ["k0"]),
        helper.make_node("MatMul", ["h", "wv"], ["v"]),
        helper.make_node("RotaryEmbedding", ["q0", "cos", "sin", "pos"], ["q"], num_heads=hq),
        helper.make_node("RotaryEmbedding", ["k0", "cos", "sin", "pos"], ["k"], num_heads=hk),
        helper.make_node("Attention", ["q", "k", "v", "", "past_k", "past_v"], ["a", "present_k", "present_v"],
                         q_num_heads=hq, kv_num_heads=hk, is_causal=1),
        helper.make_node("MatMul", ["a", "wo"], ["o"]),
        helper.make_node("Add", ["x", "o"], ["r1"]),
        helper.make_node("RMSNormalization", ["r1", "rms2_s"], ["h2"], axis=-1, epsilon=1e-6),
        helper.make_node("MatMul", ["h2", "wg"], ["g"]),
        helper.make_node("Sigmoid", ["g"], ["gs"]),
        helper.make_node("Mul", ["g", "gs"], ["silu"]),
        helper.make_node("MatMul", ["h2", "wu"], ["u"]),
        helper.make_node("Mul", ["silu", "u"], ["gu"]),
        helper.make_node("Gelu", ["gu"], ["gg"], approximate="tanh"),
        helper.make_node("MatMul", ["gg", "wd"], ["f"]),
        helper.make_node("Add", ["r1", "f"], ["y"]),
    ]
    ins = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, d]),
           helper.make_tensor_value_info("pos", TensorProto.INT64, [1, 2]),
           helper.make_tensor_value_info("past_k", TensorProto.FLOAT, [1, hk, past, e]),
           helper.make_tensor_value_info("past_v", TensorProto.FLOAT, [1, hk, past, e])]
    feeds = {"x": _w(1, 2, d, scale=1.0), "pos": _i64(3, 4).reshape(1, 2),
             "past_k": _w(1, hk, past, e, scale=1.0), "past_v": _w(1, hk, past, e, scale=1.0)}
    return _model(n, ins, ["y", "present_k", "present_v"], inits, 23), feeds


def convnet21():
    inits = {"w1": _w(8, 3, 3, 3), "b1": _w(8), "gn_s": _w(8) + 1, "gn_b": _w(8), "w2": _w(4, 8, 3, 3),
             "scales": np.array([1, 1, 2, 2], np.float32), "axes": _i64(2, 3)}
    n = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
        helper.make_node("GroupNormalization", ["c1", "gn_s", "gn_b"], ["g"], num_groups=4, epsilon=1e-5),
        helper.make_node("Gelu", ["g"], ["a"]),
        helper.make_node("Resize", ["a", "", "scales"], ["up"], mode="nearest",
                         coordinate_transformation_mode="asymmetric", nearest_mode="floor"),
        helper.make_node("Conv", ["up", "w2"], ["c2"], pads=[1, 1, 1, 1]),
        helper.make_node("Mish", ["c2"], ["m"]),
        helper.make_node("ReduceMean", ["m", "axes"], ["y"], keepdims=0),
    ]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 6, 6])
    return _model(n, [x], ["y"], inits, 21), {"x": _w(2, 3, 6, 6, scale=1.0)}


MODELS = {"transformer18": transformer18, "decoder23": decoder23, "convnet21": convnet21}


@pytest.mark.parametrize("name", sorted(MODELS))
def test_model_converts_to_11_13_17_and_matches_ort_on_the_source(name):
    import onnxlegal
    from ortrun import run_batch
    model, feeds = MODELS[name]()
    src = onnxlegal.Model.from_bytes(model.SerializeToString())
    batch = [(model, feeds)]
    for t in TARGETS:
        out = onnxlegal.convert(src, t)  # raises, naming every node it cannot convert
        assert out.opset() == t
        batch.append((out.to_bytes(), feeds))
    results = run_batch(batch)
    ref = results[0]
    assert not isinstance(ref, str), "ORT cannot run the source model: %s" % ref
    for t, r in zip(TARGETS, results[1:]):
        assert not isinstance(r, str), "%s -> %d: ORT cannot run the converted model: %s" % (name, t, r)
        for k, v in ref.items():
            np.testing.assert_allclose(r[k], v, rtol=1e-4, atol=1e-4, err_msg="%s -> %d: %s" % (name, t, k))
