"""Integer quantized ops converted below the opsets that have them (issue 21, slice c), run in
ONNX Runtime against ORT on the source model at its own opset, exactly (integers compared equal):

- MatMulInteger, ConvInteger (10) to 7..9, with sums of products past 2^24 (where float would
  round), per-column / per-channel zero points, and Conv attributes (pads, strides, group);
- QLinearMatMul, QLinearConv (10) to 7..9, multipliers that put products exactly halfway
  between two integers (round half to even) and outputs past the type's range (saturation),
  per-column / per-channel scales, QLinearConv's int32 bias;
- DynamicQuantizeLinear (11) to 7..10, on random data, on all zeros (ORT's scale 1) and on data
  all of one sign (the range stretched to 0);
- a refusal (a first operand quantized per row) names the node, the op and opset 10.
"""
import os
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
for p in ("bindings/python", "tests/ort"):
    sys.path.insert(0, os.path.join(ROOT, p))

onnx = pytest.importorskip("onnx")
from onnx import helper, numpy_helper  # noqa: E402

NP2ONNX = onnx.mapping.NP_TYPE_TO_TENSOR_TYPE
PLAIN = {"graphOptimizationLevel": "disabled"}


def _model(node, feeds, inits, opset, n_out=1):
    ins = [helper.make_tensor_value_info(k, NP2ONNX[v.dtype], list(v.shape)) for k, v in feeds.items()]
    outs = [helper.make_empty_tensor_value_info(o) for o in node.output[:n_out]]
    g = helper.make_graph([node], "m", ins, outs,
                          initializer=[numpy_helper.from_array(v, k) for k, v in inits.items()])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 7
    return m


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
            np.testing.assert_array_equal(r[k], v, err_msg="-> %d: %s" % (t, k))
    return results[0]


def _ints(rng, dt, shape, extreme=False):
    info = np.iinfo(dt)
    if extreme:  # the type's ends, so that the sums grow past 2^24
        return rng.choice(np.array([info.min, info.max], dt), shape)
    return rng.integers(info.min, info.max, shape, dtype=dt, endpoint=True)


@pytest.mark.parametrize("adt,bdt", [(np.uint8, np.uint8), (np.uint8, np.int8), (np.int8, np.int8)])
def test_matmul_integer_exact_below_10(adt, bdt):
    rng = np.random.default_rng(10)
    k = 401  # 401 * 255 * 255 is odd and past 2^24: float cannot hold it
    a, b = _ints(rng, adt, (2, 3, k), True), _ints(rng, bdt, (k, 5), True)
    node = helper.make_node("MatMulInteger", ["a", "b", "az", "bz"], ["y"])
    az = np.array(np.iinfo(adt).min, adt)
    bz = _ints(rng, bdt, (5,))  # per column
    a[0, 0, :], b[:, 0], bz[0] = np.iinfo(adt).max, np.iinfo(bdt).max, np.iinfo(bdt).min
    out = _check(_model(node, {"a": a, "b": b}, {"az": az, "bz": bz}, 10), {"a": a, "b": b}, range(7, 10))
    assert out["y"][0, 0, 0] == k * 255 * 255
    want = np.matmul(a.astype(np.int64) - az, b.astype(np.int64) - bz)
    np.testing.assert_array_equal(out["y"], want)  # ORT itself, against the definition


@pytest.mark.parametrize("wdt", [np.uint8, np.int8])
@pytest.mark.parametrize("extreme", [False, True])
def test_conv_integer_exact_below_10(wdt, extreme):
    rng = np.random.default_rng(11)
    x = _ints(rng, np.uint8, (1, 64, 6, 6))
    w = _ints(rng, wdt, (4, 64, 3, 3))  # 576 products per output
    wz = np.array(3, wdt)
    if extreme:  # every product 255 * 255 or 254 * 255: sums past 2^24, odd ones among them
        x, w, wz = rng.choice(np.array([254, 255], np.uint8), x.shape), np.full_like(w, np.iinfo(wdt).max), np.array(np.iinfo(wdt).min, wdt)
    node = helper.make_node("ConvInteger", ["x", "w", "xz", "wz"], ["y"], pads=[1, 0, 1, 2], strides=[1, 2])
    inits = {"w": w, "xz": np.array(0 if extreme else 131, np.uint8), "wz": wz}
    out = _check(_model(node, {"x": x}, inits, 10), {"x": x}, range(7, 10))
    if extreme:
        assert np.abs(out["y"]).max() > 2 ** 24 and (out["y"] % 2 == 1).any()


def test_conv_integer_runtime_weight_groups_dilations_below_10():
    rng = np.random.default_rng(12)
    x, w = _ints(rng, np.uint8, (2, 4, 7, 7)), _ints(rng, np.uint8, (6, 2, 2, 3))
    node = helper.make_node("ConvInteger", ["x", "w", "xz"], ["y"], group=2, dilations=[2, 1], pads=[0, 1, 1, 0])
    _check(_model(node, {"x": x, "w": w}, {"xz": np.array(7, np.uint8)}, 10), {"x": x, "w": w}, range(7, 10))


@pytest.mark.parametrize("adt,bdt,ydt", [(np.uint8, np.uint8, np.uint8), (np.uint8, np.int8, np.uint8),
                                         (np.int8, np.int8, np.int8)])
def test_qlinear_matmul_ties_and_saturation_below_10(adt, bdt, ydt):
    rng = np.random.default_rng(13)
    a, b = _ints(rng, adt, (3, 6)), _ints(rng, bdt, (6, 4))
    node = helper.make_node("QLinearMatMul", ["a", "as", "az", "b", "bs", "bz", "ys", "yz"], ["y"])
    inits = {"as": np.array(0.5, np.float32), "az": np.array(3, adt), "b": b,
             "bs": np.array([1.0, 0.25, 0.5, 64.0], np.float32),  # per column; halves, quarters; saturating
             "bz": np.array(2, bdt), "ys": np.array(2.0, np.float32), "yz": np.array(5, ydt)}
    out = _check(_model(node, {"a": a}, inits, 10), {"a": a}, range(7, 10))
    acc = (a.astype(np.int64) - 3) @ (b.astype(np.int64) - 2)
    assert (np.abs(acc[:, 1] % 16) == 8).any() or (np.abs(acc[:, 0] % 4) == 2).any()  # ties happen


@pytest.mark.parametrize("wdt", [np.uint8, np.int8])
def test_qlinear_conv_bias_per_channel_below_10(wdt):
    rng = np.random.default_rng(14)
    x = _ints(rng, np.uint8, (1, 3, 5, 5))
    w = _ints(rng, wdt, (4, 3, 3, 3))
    node = helper.make_node("QLinearConv", ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"], ["y"], pads=[1, 1, 1, 1])
    inits = {"xs": np.array(0.5, np.float32), "xz": np.array(128, np.uint8), "w": w,
             "ws": np.array([0.125, 1.0, 0.5, 0.0625], np.float32), "wz": np.array(0, wdt),
             "ys": np.array(4.0, np.float32), "yz": np.array(100, np.uint8),
             "b": rng.integers(-5000, 5000, 4).astype(np.int32)}
    _check(_model(node, {"x": x}, inits, 10), {"x": x}, range(7, 10))


@pytest.mark.parametrize("kind", ["random", "zeros", "positive", "negative"])
def test_dynamic_quantize_linear_below_11(kind):
    rng = np.random.default_rng(15)
    x = {"random": rng.uniform(-3, 5, (4, 7)), "zeros": np.zeros((4, 7)),
         "positive": rng.uniform(0.5, 2, (4, 7)), "negative": rng.uniform(-9, -1, (4, 7))}[kind].astype(np.float32)
    node = helper.make_node("DynamicQuantizeLinear", ["x"], ["y", "s", "z"])
    _check(_model(node, {"x": x}, {}, 11, 3), {"x": x}, range(7, 11))


def test_per_row_first_operand_is_refused_naming_node_op_and_10():
    import onnxlegal
    a = np.zeros((3, 4), np.uint8)
    node = helper.make_node("MatMulInteger", ["a", "b", "az"], ["y"], name="mmi")
    m = _model(node, {"a": a}, {"b": np.ones((4, 2), np.uint8), "az": np.array([1, 2, 3], np.uint8)}, 10)
    src = onnxlegal.Model.from_bytes(m.SerializeToString())
    with pytest.raises(onnxlegal.Error) as e:
        onnxlegal.convert(src, 9)
    errs = [d for d in e.value.diagnostics if d["severity"] == "error"]
    assert any(d.get("node") == "mmi" and d.get("op") == "MatMulInteger" and d.get("min_opset") == 10
               for d in errs), errs
    assert onnxlegal.convert(src, 10)  # passed through where the op exists


# ---- int4 / uint4 (21) below 21 -------------------------------------------------------------

def _packed4(name, values, signed, dims):
    """A 4-bit initializer (onnx 1.12's helpers cannot make one): two values a byte, low first."""
    v = (np.asarray(values, np.int64).reshape(-1) & 15).astype(np.uint8)
    if v.size % 2:
        v = np.append(v, 0)
    t = onnx.TensorProto(name=name, data_type=22 if signed else 21, raw_data=((v[0::2] | (v[1::2] << 4)) & 255).astype(np.uint8).tobytes())
    t.dims.extend(dims)
    return t


def _model4(nodes, feeds, inits4, inits, outputs, opset):
    ins = [helper.make_tensor_value_info(k, NP2ONNX[v.dtype], list(v.shape)) for k, v in feeds.items()]
    g = helper.make_graph(nodes, "m", ins, [helper.make_empty_tensor_value_info(o) for o in outputs],
                          initializer=inits4 + [numpy_helper.from_array(v, k) for k, v in inits.items()])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 10
    return m


@pytest.mark.parametrize("signed", [True, False])
def test_dequantize_4bit_weights_unpacked_below_21(signed):
    import onnxlegal
    rng = np.random.default_rng(21)
    lo, hi = (-8, 7) if signed else (0, 15)
    w = rng.integers(lo, hi, (3, 5), endpoint=True)
    zp = np.array([lo, 0 if signed else 3, hi])
    nodes = [helper.make_node("DequantizeLinear", ["w", "s", "z"], ["wd"], axis=0),
             helper.make_node("MatMul", ["x", "wd"], ["y"])]
    x = rng.standard_normal((2, 3)).astype(np.float32)
    m = _model4(nodes, {"x": x}, [_packed4("w", w, signed, [3, 5]), _packed4("z", zp, signed, [3])],
                {"s": np.array([0.5, 0.25, 2.0], np.float32)}, ["y"], 21)
    _check(m, {"x": x}, range(7, 21))
    src = onnxlegal.Model.from_bytes(m.SerializeToString())
    for t in (13, 20):  # DequantizeLinear stays, its weights unpacked into 8-bit initializers
        out = onnx.load_from_string(onnxlegal.convert(src, t).to_bytes())
        assert [n.op_type for n in out.graph.node].count("DequantizeLinear") == 1
        assert all(i.data_type not in (21, 22) for i in out.graph.initializer)


@pytest.mark.parametrize("signed", [True, False])
def test_quantize_to_4bit_inside_the_graph_below_21(signed):
    z = np.array([-1 if signed else 3])
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"]),
             helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"])]
    x = np.concatenate([TIES4, -TIES4, [40.0, -40.0]]).astype(np.float32)  # ties, saturation
    m = _model4(nodes, {"x": x}, [_packed4("z", z, signed, [])], {"s": np.array(1.0, np.float32)}, ["y"], 21)
    _check(m, {"x": x}, range(7, 21))


TIES4 = np.array([0.5, 1.5, 2.5, 3.5, 6.5, 7.5, 8.5, 0.25, 14.5, 15.5, 16.5], np.float32)


@pytest.mark.parametrize("to", [22, 21])
def test_cast_to_4bit_rounds_and_wraps_as_ort_below_21(to):
    x = np.concatenate([TIES4, -TIES4, [100.2, -100.2, -3.7, 0.0]]).astype(np.float32)
    i = np.array([-9, 8, 17, -1, 300, -300, 7], np.int16)
    nodes = [helper.make_node("Cast", ["x"], ["q"], to=to), helper.make_node("Cast", ["q"], ["y"], to=1),
             helper.make_node("Cast", ["i"], ["qi"], to=to), helper.make_node("Cast", ["qi"], ["yi"], to=6)]
    m = _model4(nodes, {"x": x, "i": i}, [], {}, ["y", "yi"], 21)
    _check(m, {"x": x, "i": i}, range(7, 21))


def test_dequantize_float16_scale_below_19():
    x = np.arange(-128, 128, dtype=np.int8).reshape(4, 64)
    m = _model(helper.make_node("DequantizeLinear", ["x", "s", "z"], ["y"]), {"x": x},
               {"s": np.array(0.0999755859375, np.float16), "z": np.array(3, np.int8)}, 19)
    _check(m, {"x": x}, range(7, 19))


def _refusal(m, target, node, op, opset):
    import onnxlegal
    src = onnxlegal.Model.from_bytes(m.SerializeToString())
    with pytest.raises(onnxlegal.Error) as e:
        onnxlegal.convert(src, target)
    errs = [d for d in e.value.diagnostics if d["severity"] == "error"]
    assert any(d.get("node") == node and d.get("op") == op and d.get("min_opset") == opset for d in errs), errs


def test_4bit_graph_output_input_or_other_reader_refused_naming_21():
    q = helper.make_node("QuantizeLinear", ["x", "s"], ["q"], name="quant", output_dtype=22)
    m = _model4([q], {"x": np.zeros(3, np.float32)}, [], {"s": np.array(1.0, np.float32)}, ["q"], 21)
    _refusal(m, 20, "quant", "QuantizeLinear", 21)
    # passed on by an op that would carry int8 into the output (its type undeclared)
    m = _model4([q, helper.make_node("Identity", ["q"], ["y"])], {"x": np.zeros(3, np.float32)}, [],
                {"s": np.array(1.0, np.float32)}, ["y"], 21)
    _refusal(m, 20, "quant", "QuantizeLinear", 21)
    g = helper.make_graph([helper.make_node("Cast", ["i"], ["y"], name="c", to=1)], "m",
                          [helper.make_tensor_value_info("i", 22, [3])], [helper.make_empty_tensor_value_info("y")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 21)])
    m.ir_version = 10
    _refusal(m, 20, "c", "Cast", 21)


def test_float8_quantization_refused_below_19_saying_why():
    import onnxlegal
    z = onnx.TensorProto(name="z", data_type=17, raw_data=b"\x00")  # float8e4m3fn
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"], name="quant"),
             helper.make_node("DequantizeLinear", ["q", "s", "z"], ["y"], name="dq")]
    m = _model4(nodes, {"x": np.zeros(3, np.float32)}, [z], {"s": np.array(1.0, np.float32)}, ["y"], 19)
    for t in (9, 13, 18):
        _refusal(m, t, "quant", "QuantizeLinear", 19)
    src = onnxlegal.Model.from_bytes(m.SerializeToString())
    with pytest.raises(onnxlegal.Error) as e:
        onnxlegal.convert(src, 18)
    assert "float8 types do not exist below opset 19" in str(e.value.diagnostics)
