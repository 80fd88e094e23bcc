"""Weight folding (olg_legalize_options.fold_weights, lib/passes/fold.c; on in
onnxlegal.torch.export by default as do_constant_folding): BatchNormalization into the Conv,
Gemm or MatMul before it, byte-equal initializers merged. Each case is checked by numbers
(ONNX Runtime on the folded model against the model before folding, and against torch), and
where folding must not happen, that it did not. Then the torchvision models of issue 11 against
torch.onnx.export: no more nodes and initializers, and torch's numbers."""
import collections
import os
import sys
import warnings

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bindings", "python"))
sys.path.insert(0, os.path.join(ROOT, "tests", "ort"))

onnxlegal = pytest.importorskip("onnxlegal", reason="the onnxlegal binding does not load")
from onnxlegal import lowering  # noqa: E402


def ortrun():
    try:
        import ortrun as mod
        mod._check_runner()
    except Exception as e:  # noqa: BLE001
        pytest.skip("ONNX Runtime is not available: %s" % e)
    return mod


RNG = np.random.default_rng(0)


def f32(*shape, lo=-1.0, hi=1.0):
    return RNG.uniform(lo, hi, shape).astype(np.float32)


def bn_inits(c, prefix="bn"):
    return [numpy_helper.from_array(f32(c, lo=0.5, hi=1.5), prefix + "_s"),
            numpy_helper.from_array(f32(c), prefix + "_b"),
            numpy_helper.from_array(f32(c), prefix + "_m"),
            numpy_helper.from_array(f32(c, lo=0.5, hi=2.0), prefix + "_v")]


def bn(x, y, prefix="bn"):
    return helper.make_node("BatchNormalization", [x] + [prefix + s for s in ("_s", "_b", "_m", "_v")],
                            [y], epsilon=1e-3)


def model(nodes, inits, x_shape, outs, opset=13):
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)],
                          [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in outs],
                          inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])


def fold(m, opset=13, on=True):
    src = onnxlegal.Model.from_bytes(m.SerializeToString())
    out = lowering.legalize(src, opset=opset, fold_weights=on)
    return onnx.load_from_string(out.to_bytes())


def ops(m):
    return collections.Counter(n.op_type for n in m.graph.node)


def same_numbers(cases):
    """cases: [(before, after, x)]: ONNX Runtime gives the same outputs for both."""
    batch = []
    for before, after, x in cases:
        for m in (before, after):
            batch.append((m, {"x": x}, {"graphOptimizationLevel": "disabled"}))
    res = ortrun().run_batch(batch)
    for k in range(0, len(res), 2):
        a, b = res[k], res[k + 1]
        assert not isinstance(a, str), a
        assert not isinstance(b, str), b
        for name in a:
            np.testing.assert_allclose(b[name], a[name], rtol=1e-5, atol=1e-5)


def test_batchnorm_folds_into_conv_gemm_and_matmul_by_the_numbers():
    cases = []
    # Conv with a bias and groups, the BatchNormalization's output a graph output
    m = model([helper.make_node("Conv", ["x", "w", "cb"], ["c"], group=2, pads=[1, 1, 1, 1]),
               bn("c", "y")],
              [numpy_helper.from_array(f32(6, 2, 3, 3), "w"),
               numpy_helper.from_array(f32(6), "cb")] + bn_inits(6), [2, 4, 5, 5], ["y"])
    f = fold(m)
    assert ops(f) == {"Conv": 1} and [o.name for o in f.graph.output] == ["y"]
    cases.append((m, f, f32(2, 4, 5, 5)))
    # Conv without a bias: one is added
    m = model([helper.make_node("Conv", ["x", "w"], ["c"]), bn("c", "y")],
              [numpy_helper.from_array(f32(3, 4, 1, 1), "w")] + bn_inits(3), [1, 4, 3, 3], ["y"])
    f = fold(m)
    assert ops(f) == {"Conv": 1} and len(f.graph.node[0].input) == 3
    cases.append((m, f, f32(1, 4, 3, 3)))
    # Gemm, transB 0 and 1, with C and beta, alpha
    for trans_b in (0, 1):
        wshape = (5, 8) if trans_b else (8, 5)
        m = model([helper.make_node("Gemm", ["x", "w", "gc"], ["g"], transB=trans_b, alpha=0.7,
                                    beta=0.5), bn("g", "y")],
                  [numpy_helper.from_array(f32(*wshape), "w"),
                   numpy_helper.from_array(f32(5), "gc")] + bn_inits(5), [3, 8], ["y"])
        f = fold(m)
        assert ops(f) == {"Gemm": 1}
        cases.append((m, f, f32(3, 8)))
    # Gemm without C
    m = model([helper.make_node("Gemm", ["x", "w"], ["g"]), bn("g", "y")],
              [numpy_helper.from_array(f32(8, 5), "w")] + bn_inits(5), [3, 8], ["y"])
    f = fold(m)
    assert ops(f) == {"Gemm": 1}
    cases.append((m, f, f32(3, 8)))
    # MatMul: the BatchNormalization becomes the bias' Add
    m = model([helper.make_node("MatMul", ["x", "w"], ["g"]), bn("g", "y")],
              [numpy_helper.from_array(f32(8, 5), "w")] + bn_inits(5), [3, 8], ["y"])
    f = fold(m)
    assert ops(f) == {"MatMul": 1, "Add": 1}
    cases.append((m, f, f32(3, 8)))
    same_numbers(cases)


def test_what_must_not_fold_does_not():
    cases = []
    # the Conv's output read by another node too
    m = model([helper.make_node("Conv", ["x", "w"], ["c"]), bn("c", "y"),
               helper.make_node("Relu", ["c"], ["r"])],
              [numpy_helper.from_array(f32(3, 4, 1, 1), "w")] + bn_inits(3), [1, 4, 3, 3],
              ["y", "r"])
    f = fold(m)
    assert ops(f)["BatchNormalization"] == 1
    cases.append((m, f, f32(1, 4, 3, 3)))
    # statistics that are graph inputs (may change at run time)
    g = helper.make_graph(
        [helper.make_node("Conv", ["x", "w"], ["c"]), bn("c", "y")], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 3, 3]),
         helper.make_tensor_value_info("bn_m", TensorProto.FLOAT, [3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(f32(3, 4, 1, 1), "w")] +
        [t for t in bn_inits(3) if t.name != "bn_m"])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    assert ops(fold(m))["BatchNormalization"] == 1
    # MatMul over a rank-3 input: the channel is not the MatMul's output dim
    m = model([helper.make_node("MatMul", ["x", "w"], ["g"]), bn("g", "y")],
              [numpy_helper.from_array(f32(4, 4), "w")] + bn_inits(2), [3, 2, 4], ["y"])
    f = fold(m)
    assert ops(f)["BatchNormalization"] == 1
    cases.append((m, f, f32(3, 2, 4)))
    # off: nothing folded
    m = model([helper.make_node("Conv", ["x", "w"], ["c"]), bn("c", "y")],
              [numpy_helper.from_array(f32(3, 4, 1, 1), "w")] + bn_inits(3), [1, 4, 3, 3], ["y"])
    assert ops(fold(m, on=False))["BatchNormalization"] == 1
    same_numbers(cases)


def test_byte_equal_initializers_are_merged():
    same = f32(4)
    m = model([helper.make_node("Add", ["x", "a"], ["s"]), helper.make_node("Mul", ["s", "b"], ["t"]),
               helper.make_node("Sub", ["t", "c"], ["y"])],
              [numpy_helper.from_array(same, "a"), numpy_helper.from_array(same.copy(), "b"),
               numpy_helper.from_array(f32(4), "c")], [2, 4], ["y"])
    f = fold(m)
    assert sorted(i.name for i in f.graph.initializer) == ["a", "c"]
    assert [n.input[1] for n in f.graph.node] == ["a", "a", "c"]
    same_numbers([(m, f, f32(2, 4))])
    # the same bytes as another type or shape are not the same tensor
    m = model([helper.make_node("Add", ["x", "a"], ["s"]), helper.make_node("Mul", ["s", "b"], ["y"])],
              [numpy_helper.from_array(same.reshape(1, 4), "a"), numpy_helper.from_array(same, "b")],
              [2, 4], ["y"])
    assert len(fold(m).graph.initializer) == 2


# ---- the torchvision models of issue 11, against torch.onnx.export ----

ZOO = ["resnet18", "mobilenet_v3_small", "efficientnet_b0"]


@pytest.mark.parametrize("name", ZOO)
def test_zoo_model_no_more_nodes_and_initializers_than_torch_onnx(name, tmp_path):
    torch = pytest.importorskip("torch")
    torchvision = pytest.importorskip("torchvision")
    import onnxlegal.torch as olt
    warnings.filterwarnings("ignore")
    torch.manual_seed(0)
    net = getattr(torchvision.models, name)(weights=None).eval()
    x = torch.randn(1, 3, 224, 224, generator=torch.Generator().manual_seed(0))
    # both with their defaults, the random weights torchvision gives (torch's merge of the
    # equal BatchNorm biases included)
    torch.onnx.export(net, (x,), str(tmp_path / "torch.onnx"))
    olt.export(net, (x,), tmp_path / "ours.onnx")
    t, o = onnx.load(str(tmp_path / "torch.onnx")), onnx.load(str(tmp_path / "ours.onnx"))
    assert "BatchNormalization" not in ops(o)
    assert len(o.graph.node) <= len(t.graph.node), (ops(o), ops(t))
    assert len(o.graph.initializer) <= len(t.graph.initializer)
    # numbers, with statistics that are not the identity (so that the folding shows)
    with torch.no_grad():
        for mod in net.modules():
            if isinstance(mod, torch.nn.BatchNorm2d):
                mod.running_mean.uniform_(-0.3, 0.3)
                mod.running_var.uniform_(0.5, 1.5)
                mod.weight.uniform_(0.5, 1.5)
                mod.bias.uniform_(-0.3, 0.3)
        ref = net(x).numpy()
    olt.export(net, (x,), tmp_path / "ours2.onnx", input_names=["x"])
    got = ortrun().run_one(str(tmp_path / "ours2.onnx"), {"x": x.numpy()})
    y = list(got.values())[0]
    scale = float(np.abs(ref).max())
    np.testing.assert_allclose(y, ref, rtol=1e-3, atol=1e-4 * max(scale, 1.0))


def test_convert_folds_weights_when_asked(tmp_path):
    import subprocess
    m = model([helper.make_node("Conv", ["x", "w"], ["c"]), bn("c", "y")],
              [numpy_helper.from_array(f32(3, 4, 1, 1), "w")] + bn_inits(3), [1, 4, 3, 3], ["y"])
    src = tmp_path / "in.onnx"
    onnx.save(m, str(src))
    tool = os.path.join(ROOT, "build", "bin", "onnxlegal")
    if not os.path.exists(tool):
        pytest.skip("the tool is not built")
    for flags, bn_left in (([], 1), (["--fold-weights"], 0)):
        out = tmp_path / ("out%d.onnx" % len(flags))
        subprocess.run([tool, "convert", str(src), str(out), "--opset", "11"] + flags, check=True)
        assert ops(onnx.load(str(out))).get("BatchNormalization", 0) == bn_left
    folded = onnx.load_from_string(onnxlegal.convert(str(src), 11, fold_weights=True).to_bytes())
    assert ops(folded) == {"Conv": 1}
    same_numbers([(m, folded, f32(1, 4, 3, 3))])
