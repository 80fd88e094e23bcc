"""What a conversion does not carry, it says: the model's training_info (its graphs are not
converted; onnx's converter drops it too), multi-device placement (the model's configuration and
the nodes' device_configurations, IR 11) and fields unknown to this library, in the model, a graph,
its nodes and its value descriptions. Each kind is one warning per graph, however many nodes hold
it; `copy` keeps all of them (it does not convert). These were dropped without a word."""
import os
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402

from _wire import field  # noqa: E402

TOOL = os.path.join(os.environ.get("ONNXLEGAL_BUILD", os.path.join(ROOT, "build")), "bin", "onnxlegal")


def _model(n_relus=2, **extra):
    """A Relu chain; extra: bytes appended to the model (model=), the graph (graph=), every node
    (node=) and the output's ValueInfoProto (value=)."""
    nodes = [helper.make_node("Relu", ["x" if i == 0 else "r%d" % (i - 1)], ["r%d" % i], name="relu%d" % i)
             for i in range(n_relus)]
    for n in nodes:
        n.MergeFromString(extra.get("node", b""))
    y = helper.make_tensor_value_info("r%d" % (n_relus - 1), TensorProto.FLOAT, [2])
    y.MergeFromString(extra.get("value", b""))
    g = helper.make_graph(nodes, "chain", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])], [y])
    g.MergeFromString(extra.get("graph", b""))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 7
    m.MergeFromString(extra.get("model", b""))
    return m


def _convert(tmp_path, m, opset=17):
    src, out = tmp_path / "src.onnx", tmp_path / "out.onnx"
    src.write_bytes(m.SerializeToString())
    r = subprocess.run([TOOL, "convert", str(src), str(out), "--opset", str(opset)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    c = subprocess.run([TOOL, "check", str(out), "--full"], capture_output=True, text=True)
    assert c.returncode == 0, c.stdout + c.stderr
    return r.stderr, out.read_bytes()


def test_a_model_with_nothing_dropped_says_nothing(tmp_path):
    stderr, _ = _convert(tmp_path, _model())
    assert stderr == ""


def test_training_info_dropped_with_a_warning(tmp_path):
    m = _model()
    ti = m.training_info.add()
    ti.algorithm.CopyFrom(helper.make_graph([helper.make_node("Neg", ["x"], ["d"])], "step", [],
                                            [helper.make_tensor_value_info("d", TensorProto.FLOAT, [2])]))
    m.training_info.add().CopyFrom(ti)
    stderr, out = _convert(tmp_path, m)
    assert "the model's training_info (2 entries) is dropped: a conversion does not convert its graphs" in stderr
    assert len(onnx.load_from_string(out).training_info) == 0
    # copy keeps it: the model is not converted
    src, back = tmp_path / "src.onnx", tmp_path / "copy.onnx"
    assert subprocess.run([TOOL, "copy", str(src), str(back)]).returncode == 0
    assert len(onnx.load(str(back)).training_info) == 2


def test_multi_device_placement_dropped_with_a_warning(tmp_path):
    """ModelProto.configuration (26) and NodeProto.device_configurations (10), IR 11."""
    config = field(26, field(1, b"two-gpus") + b"\x10\x02")  # name, num_devices 2
    node_config = field(10, field(1, b"two-gpus"))
    stderr, out = _convert(tmp_path, _model(n_relus=3, model=config, node=node_config))
    assert "the model's configuration (1 device configuration) is dropped" in stderr, stderr
    assert ("(Relu, output 'r0', opset 17): the device_configurations of 3 nodes of graph 'chain' "
            "(this one the first) are dropped") in stderr, stderr
    assert b"two-gpus" not in out


def test_unknown_fields_of_an_attribute_dropped_with_a_warning(tmp_path):
    """An attribute's unknown field: the node's attributes are written anew by the conversion."""
    node = helper.make_node("Softmax", ["x"], ["y"], name="sm", axis=0)
    node.attribute[0].MergeFromString(field(99, b"attribute-later"))
    g = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 7
    for opset in (13, 11):
        stderr, out = _convert(tmp_path, m, opset)
        assert ("(Softmax, output 'y', opset %d): 1 node of graph 'g' (this one the first) holds fields unknown "
                "to this library (the first numbered 99), in the node or an attribute" % opset) in stderr, stderr
        assert b"attribute-later" not in out


def test_unknown_fields_dropped_with_one_warning_per_kind(tmp_path):
    """Fields of a newer ONNX: one warning for each of the model, the graph, its nodes (1000 of
    them: one warning) and its value descriptions."""
    m = _model(n_relus=1000, model=field(888, b"model-later"), graph=field(999, b"graph-later"),
               node=field(777, b"node-later"), value=field(99, b"value-later"))
    stderr, out = _convert(tmp_path, m)
    lines = [ln for ln in stderr.splitlines() if "unknown to this library" in ln]
    assert len(lines) == 4, stderr
    assert "1 field of the ModelProto unknown to this library (the first numbered 888) is dropped" in lines[0]
    assert "1 field of graph 'chain' unknown to this library (the first numbered 999) is dropped" in lines[1]
    assert ("(Relu, output 'r0', opset 17): 1000 nodes of graph 'chain' (this one the first) hold fields "
            "unknown to this library (the first numbered 777)") in lines[2]
    assert ("1 value description of graph 'chain' (the first of 'r999') holds fields unknown to this "
            "library (the first numbered 99)") in lines[3]
    assert b"-later" not in out
