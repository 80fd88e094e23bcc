"""Real exports converted: torchvision models exported by torch.onnx.export at opset 17, brought
down and up to 9, 11, 13, 20 and 23 by onnxlegal.convert, run in ONNX Runtime (one batch) and
compared with PyTorch. torch.onnx writes every MaxPool attribute, defaults included (ceil_mode
0, dilations 1): an attribute that only restates what an older version does must not block."""
import os
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
for p in ("bindings/python", "tests/ort"):
    sys.path.insert(0, os.path.join(ROOT, p))

torch = pytest.importorskip("torch")
torchvision = pytest.importorskip("torchvision")

TARGETS = (9, 11, 13, 20, 23)


def _export(model, x, path):
    torch.onnx.export(model, (x,), path, opset_version=17, input_names=["x"], output_names=["y"])
    with torch.no_grad():
        return model(x).numpy()


def test_torchvision_exports_convert_and_match(tmp_path):
    import onnxlegal
    from ortrun import run_batch
    torch.manual_seed(0)
    models = {
        "resnet18": (torchvision.models.resnet18(weights=None).eval(), torch.randn(1, 3, 64, 64)),
        # ceil_mode=1 pooling (its own lowering below 10), Concat, ReLU, dropout in eval mode
        "squeezenet1_1": (torchvision.models.squeezenet1_1(weights=None).eval(), torch.randn(1, 3, 64, 64)),
    }
    batch, meta = [], []
    for name, (model, x) in models.items():
        src = str(tmp_path / (name + ".onnx"))
        want = _export(model, x, src)
        for target in TARGETS:
            report = {}
            out = onnxlegal.convert(src, target, report=report)
            assert out.opset("") == target
            assert report["counts"]["refused"] == 0
            pools = [n for n in report["nodes"] if n["op"] == "MaxPool"]
            assert pools and all(n["ops"] for n in pools)
            batch.append((out.to_bytes(), {"x": x.numpy()}))
            meta.append((name, target, want))
    results = run_batch(batch)
    for (name, target, want), r in zip(meta, results):
        assert not isinstance(r, str), "%s at %d: %s" % (name, target, r)
        np.testing.assert_allclose(r["y"], want, rtol=1e-3, atol=1e-4, err_msg="%s at %d" % (name, target))


def test_default_valued_attribute_does_not_block(tmp_path):
    """MaxPool-12 with ceil_mode 0, dilations 1 and storage_order 0 goes to opset 9 (MaxPool-8
    has neither ceil_mode nor dilations); dilations 2 are decomposed there."""
    onnx = pytest.importorskip("onnx")
    from onnx import TensorProto, helper
    import onnxlegal

    def model(**attrs):
        n = helper.make_node("MaxPool", ["x"], ["y"], name="pool", kernel_shape=[2, 2], **attrs)
        g = helper.make_graph([n], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 5, 5])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
        p = tmp_path / "m.onnx"
        onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 12)]), str(p))
        return p

    report = {}
    out = onnxlegal.convert(model(ceil_mode=0, dilations=[1, 1], storage_order=0), 9, report=report)
    (node,) = report["nodes"]
    assert node["result"] == "re-encoded" and node["ops"] == ["MaxPool"]
    (pool,) = [n for n in out.graph.nodes if n.op == "MaxPool"]
    assert sorted(pool.attr_names) == ["kernel_shape", "storage_order"]
    # dilations below 10: gathered windows (pool.c), no MaxPool left to carry them
    report = {}
    out = onnxlegal.convert(model(dilations=[2, 2]), 9, report=report)
    assert report["nodes"][0]["result"] == "decomposed"
    assert not [n for n in out.graph.nodes if n.op == "MaxPool"]
