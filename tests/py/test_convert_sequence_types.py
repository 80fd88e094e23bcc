"""A sequence (or optional) goes to an op only where the op's version takes its whole type, not
only its kind: SequenceMap-17 takes sequences of the standard tensor types, not one of float8
tensors. Converting such a model wrote it unchanged, a model olg_check refuses (fuzz_pipeline
strict; regression tests/fuzz/regressions/pipeline/seq-map-of-float8-sequence); it is refused
now, naming the type, the op's version and that no opset takes it."""
import os
import subprocess

import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(os.environ.get("ONNXLEGAL_BUILD", os.path.join(ROOT, "build")), "bin", "onnxlegal")
FLOAT8E4M3FN = 17  # TensorProto.FLOAT8E4M3FN (onnx 1.14), unknown to the onnx here

pytestmark = pytest.mark.skipif(not os.path.exists(TOOL), reason="%s is not built" % TOOL)


def _sequence_map(elem):
    """SequenceMap of an Identity body over a sequence of [N] tensors of elem, at opset 19."""
    body = helper.make_graph([helper.make_node("Identity", ["t"], ["u"])], "body",
                             [helper.make_tensor_value_info("t", elem, ["N"])],
                             [helper.make_tensor_value_info("u", elem, ["N"])])
    node = helper.make_node("SequenceMap", ["xs"], ["ys"], body=body, name="map")
    g = helper.make_graph([node], "g",
                          [helper.make_tensor_sequence_value_info("xs", elem, ["N"])],
                          [helper.make_tensor_sequence_value_info("ys", elem, ["N"])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 19)])
    m.ir_version = 9
    return m


def _run(*args):
    return subprocess.run([TOOL, *map(str, args)], capture_output=True, text=True)


def test_sequence_of_a_type_the_op_does_not_take_is_refused(tmp_path):
    src, out = tmp_path / "src.onnx", tmp_path / "out.onnx"
    src.write_bytes(_sequence_map(FLOAT8E4M3FN).SerializeToString())
    assert "seq(tensor(float8e4m3fn))" in _run("check", src).stdout
    for opset in (19, 21):
        r = _run("convert", src, out, "--opset", opset)
        assert r.returncode == 1, (opset, r.stdout, r.stderr)
        assert "SequenceMap with input 0 ('input_sequence') of type seq(tensor(float8e4m3fn)) " \
               "(SequenceMap-17 does not take it)" in r.stderr, r.stderr
        assert "node 'map'" in r.stderr and not out.exists()


def test_sequence_of_a_type_the_op_takes_converts(tmp_path):
    src, out = tmp_path / "src.onnx", tmp_path / "out.onnx"
    src.write_bytes(_sequence_map(TensorProto.FLOAT).SerializeToString())
    for opset in (17, 21):
        r = _run("convert", src, out, "--opset", opset)
        assert r.returncode == 0, (opset, r.stderr)
        r = _run("check", out)
        assert r.returncode == 0, (opset, r.stdout)
