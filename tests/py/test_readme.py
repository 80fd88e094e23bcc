"""The README's Python example runs as written and writes a model onnx's full checker accepts."""
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def test_python_example(tmp_path):
    onnx = pytest.importorskip("onnx")
    text = open(os.path.join(ROOT, "README.md")).read()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert blocks, "README.md has no python example"
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "bindings", "python"))
    subprocess.run([sys.executable, "-c", blocks[0]], cwd=tmp_path, env=env, check=True,
                   capture_output=True)
    m = onnx.load(str(tmp_path / "model.onnx"))
    onnx.checker.check_model(m, full_check=True)
    out = m.graph.output[0].type.tensor_type.shape.dim
    assert [d.dim_param or d.dim_value for d in out] == ["batch", 2]


def test_torch_example(tmp_path):
    onnx = pytest.importorskip("onnx")
    pytest.importorskip("torchvision")
    text = open(os.path.join(ROOT, "README.md")).read()
    blocks = [b for b in re.findall(r"```python\n(.*?)```", text, re.S) if "onnxlegal.torch" in b]
    assert blocks, "README.md has no onnxlegal.torch example"
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "bindings", "python"))
    subprocess.run([sys.executable, "-c", blocks[0]], cwd=tmp_path, env=env, check=True,
                   capture_output=True)
    m = onnx.load(str(tmp_path / "resnet18.onnx"))
    onnx.checker.check_model(m, full_check=True)
    assert m.opset_import[0].version == 9
    assert m.graph.input[0].type.tensor_type.shape.dim[0].dim_param == "batch"
    assert (tmp_path / "report.json").exists()
