"""Converting an ONNX model keeps its names: every value a source node computes keeps its name in
the converted model, and a node lowered to its own op keeps the node's name, so that tools which
name tensors and nodes (TensorRT calibration caches and per-tensor precision, polygraphy's
layerwise comparison, ONNX Runtime quantization's exclusion lists) find them there. Checked the
way such a tool uses them: every source value marked as an output of the source and of the
converted model, and ONNX Runtime's results compared name by name."""
import os
import subprocess
import sys
from collections import Counter

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
for p in ("bindings/python", "tests/ort", "bench"):
    sys.path.insert(0, os.path.join(ROOT, p))
BUILD = os.environ.get("ONNXLEGAL_BUILD", os.path.join(ROOT, "build"))
TOOL = os.path.join(BUILD, "bin", "onnxlegal")

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

pytestmark = pytest.mark.skipif(not os.path.exists(TOOL), reason="%s is not built" % TOOL)


def convert(src, dst, opset):
    r = subprocess.run([TOOL, "convert", str(src), str(dst), "--opset", str(opset)],
                       capture_output=True)
    assert r.returncode == 0, r.stderr.decode()
    m = onnx.load(str(dst))
    if opset <= 17:  # python3-onnx 1.12 checks IR versions up to 8 (opset 17)
        onnx.checker.check_model(m)
    return m


def computed(m):
    """The values m's nodes compute, by name, and the node computing each."""
    return {o: n for n in m.graph.node for o in n.output if o}


def all_names_unique(m):
    names = [i.name for i in m.graph.input] + [t.name for t in m.graph.initializer]
    names += [o for n in m.graph.node for o in n.output if o]
    dup = [k for k, c in Counter(names).items() if c > 1]
    assert not dup, dup
    nodes = [n.name for n in m.graph.node if n.name]
    assert len(nodes) == len(set(nodes)), [k for k, c in Counter(nodes).items() if c > 1]


def layerwise(src_path, out_path, names, feeds):
    """ONNX Runtime's values of `names` in the source and the converted model (each marked as an
    output of its graph, as a layerwise comparison does)."""
    from ortrun import run_one
    got = []
    for p in (src_path, out_path):
        m = onnx.load(str(p))
        have = {o.name for o in m.graph.output}
        m.graph.output.extend([helper.make_empty_tensor_value_info(n) for n in names if n not in have])
        got.append(run_one(m.SerializeToString(), feeds))
    return got


@pytest.mark.parametrize("opset", [11, 13, 17, 21])
def test_torch_named_chain_keeps_every_name(tmp_path, opset):
    from convert_vs_onnx import make_chain
    src = tmp_path / "chain13.onnx"
    make_chain(10, str(src), torch_names=True)
    out = tmp_path / ("chain%d.onnx" % opset)
    m = convert(src, out, opset)
    all_names_unique(m)
    s = onnx.load(str(src))
    src_made, made = computed(s), computed(m)
    for name, node in src_made.items():
        assert name in made, "'%s' lost at opset %d" % (name, opset)
        # the node of the same op keeps the source node's name (Unsqueeze and Squeeze are
        # lowered with a Constant for their axes at 13 and later, an attribute before)
        assert made[name].op_type == node.op_type and made[name].name == node.name
    feeds = {"input": np.linspace(-3, 3, 128, dtype=np.float32).reshape(2, 64)}
    want, got = layerwise(src, out, list(src_made), feeds)
    for name in src_made:
        np.testing.assert_array_equal(got[name], want[name], err_msg=name)


def _save_opset17(path, nodes):
    """nodes over input x [2, 4] and initializers g and b (LayerNormalization's scale and bias),
    computing y [2, 4], saved at opset 17 (LayerNormalization is decomposed below 17: the
    decomposition makes values of its own, named after its node)."""
    inits = [numpy_helper.from_array(np.linspace(0.5, 2, 4).astype(np.float32), "g"),
             numpy_helper.from_array(np.linspace(-1, 1, 4).astype(np.float32), "b")]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 4])], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, str(path))


def _layernorm_model(path, relu_out="relu_out"):
    """LayerNormalization-17, Relu, Add."""
    _save_opset17(path, [
        helper.make_node("LayerNormalization", ["x", "g", "b"], ["ln_out"], name="/ln/LayerNormalization"),
        helper.make_node("Relu", ["ln_out"], [relu_out], name="/act/Relu"),
        helper.make_node("Add", [relu_out, "b"], ["y"], name="/add/Add")])


def test_decomposed_node_keeps_its_outputs_name(tmp_path):
    src, out = tmp_path / "ln17.onnx", tmp_path / "ln13.onnx"
    _layernorm_model(src)
    m = convert(src, out, 13)
    made = computed(m)
    assert made["ln_out"].op_type == "Add"  # the decomposition's last node computes it
    assert made["ln_out"].name.startswith("/ln/LayerNormalization/")
    assert made["relu_out"].name == "/act/Relu"
    assert "LayerNormalization" not in [n.op_type for n in m.graph.node]
    feeds = {"x": np.arange(8, dtype=np.float32).reshape(2, 4)}
    want, got = layerwise(src, out, ["ln_out", "relu_out", "y"], feeds)
    for name in ("ln_out", "relu_out", "y"):
        np.testing.assert_allclose(got[name], want[name], rtol=1e-6, atol=1e-6, err_msg=name)


def test_a_source_name_the_conversion_made_up_first_stays_generated(tmp_path):
    """A source value whose name the decomposition has already given one of its own values keeps
    a generated name: the converted model never names two values alike."""
    first, out = tmp_path / "first.onnx", tmp_path / "first13.onnx"
    _layernorm_model(first)
    helper_values = [o for n in convert(first, out, 13).graph.node
                     if n.name.startswith("/ln/") for o in n.output if o != "ln_out"]
    taken = helper_values[1]
    src, out = tmp_path / "clash.onnx", tmp_path / "clash13.onnx"
    _layernorm_model(src, relu_out=taken)
    m = convert(src, out, 13)
    all_names_unique(m)
    made = computed(m)
    assert made[taken].name.startswith("/ln/")  # still the decomposition's
    relu = [n for n in m.graph.node if n.op_type == "Relu"]
    assert relu and relu[0].output[0] != taken
    feeds = {"x": np.arange(8, dtype=np.float32).reshape(2, 4)}
    want, got = layerwise(src, out, ["y"], feeds)
    np.testing.assert_allclose(got["y"], want["y"], rtol=1e-6, atol=1e-6)


def test_a_generated_name_steps_over_a_source_name_taken_before(tmp_path):
    """A source value named as a later decomposition would name one of its own values keeps its
    name; the decomposition's value takes the next free name."""
    first, out = tmp_path / "first.onnx", tmp_path / "first13.onnx"

    def model(path, relu_out):
        _save_opset17(path, [
            helper.make_node("Relu", ["x"], [relu_out], name="/act/Relu"),
            helper.make_node("LayerNormalization", [relu_out, "g", "b"], ["y"], name="/ln/LayerNormalization")])

    model(first, "relu_out")
    later = [o for n in convert(first, out, 13).graph.node if n.name.startswith("/ln/") for o in n.output
             if o != "y"]
    name = later[2]
    src, out = tmp_path / "ahead.onnx", tmp_path / "ahead13.onnx"
    model(src, name)
    m = convert(src, out, 13)
    all_names_unique(m)
    made = computed(m)
    assert made[name].op_type == "Relu" and made[name].name == "/act/Relu"
    feeds = {"x": np.arange(8, dtype=np.float32).reshape(2, 4) - 3}
    want, got = layerwise(src, out, [name, "y"], feeds)
    for k in (name, "y"):
        np.testing.assert_allclose(got[k], want[k], rtol=1e-6, atol=1e-6, err_msg=k)


def test_a_profile_rewrite_keeps_the_name_of_what_it_replaces(tmp_path):
    """A target profile's rewrite (openvino: Swish becomes x * Sigmoid(x); tensorrt: a Gather of a
    shape becomes a slice of it) computes the replaced node's value under that value's name."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4])
    nodes = [helper.make_node("Swish", ["x"], ["swish_out"], name="/act/Swish"),
             helper.make_node("Relu", ["swish_out"], ["y"], name="/r/Relu")]
    g = helper.make_graph(nodes, "g", [x], [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 4])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 24)])
    m.ir_version = 11
    src, out = tmp_path / "swish.onnx", tmp_path / "swish_ov.onnx"
    src.write_bytes(m.SerializeToString())
    r = subprocess.run([TOOL, "convert", str(src), str(out), "--opset", "24", "--profile", "openvino"],
                       capture_output=True)
    assert r.returncode == 0, r.stderr.decode()
    c = onnx.ModelProto()
    c.ParseFromString(out.read_bytes())
    made = computed(c)
    assert "Swish" not in [n.op_type for n in c.graph.node]
    assert made["swish_out"].op_type == "Mul"
    all_names_unique(c)
    from ortrun import run_one
    feeds = {"x": np.linspace(-3, 3, 8, dtype=np.float32).reshape(2, 4)}
    c.graph.output.extend([helper.make_empty_tensor_value_info("swish_out")])
    got = run_one(c.SerializeToString(), feeds)
    xv = feeds["x"]
    np.testing.assert_allclose(got["swish_out"], xv / (1 + np.exp(-xv)), rtol=1e-6)

    nodes = [helper.make_node("Shape", ["x"], ["shape"], name="/s/Shape"),
             helper.make_node("Gather", ["shape", "i"], ["dim1"], name="/s/Gather", axis=0),
             helper.make_node("Unsqueeze", ["dim1", "ax"], ["dim1_1d"], name="/s/Unsqueeze"),
             helper.make_node("Concat", ["minus1", "dim1_1d"], ["dims"], name="/s/Concat", axis=0),
             helper.make_node("Reshape", ["x", "dims"], ["y"], name="/s/Reshape")]
    inits = [numpy_helper.from_array(np.array(1, np.int64), "i"), numpy_helper.from_array(np.array([0], np.int64), "ax"),
             numpy_helper.from_array(np.array([-1], np.int64), "minus1")]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", "m"])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 7
    src, out = tmp_path / "gather.onnx", tmp_path / "gather_trt.onnx"
    onnx.save(m, str(src))
    r = subprocess.run([TOOL, "convert", str(src), str(out), "--opset", "13", "--profile", "tensorrt"],
                       capture_output=True)
    assert r.returncode == 0, r.stderr.decode()
    c = onnx.load(str(out))
    onnx.checker.check_model(c)
    made = computed(c)
    assert "Gather" not in [n.op_type for n in c.graph.node]
    assert "dim1" in made and "dims" in made
    all_names_unique(c)
    feeds = {"x": np.arange(6, dtype=np.float32).reshape(2, 3)}
    want, got = layerwise(src, out, ["dim1", "dims", "y"], feeds)
    for k in ("dim1", "dims", "y"):
        np.testing.assert_array_equal(got[k], want[k], err_msg=k)


@pytest.mark.parametrize("opset", [11, 17])
def test_if_keeps_its_outputs_and_its_branches_names(tmp_path, opset):
    """The If node's output and the values of its branches keep their names; a branch still
    reads the enclosing value it read (by its name)."""
    def branch(name, nodes, out):
        return helper.make_graph(nodes, name, [], [helper.make_tensor_value_info(out, TensorProto.FLOAT, [2, 3])])
    then_g = branch("then", [helper.make_node("Unsqueeze", ["xr", "ax"], ["t_u"], name="/then/Unsqueeze"),
                             helper.make_node("Squeeze", ["t_u", "ax"], ["t_out"], name="/then/Squeeze")], "t_out")
    else_g = branch("else", [helper.make_node("Neg", ["xr"], ["e_out"], name="/else/Neg")], "e_out")
    nodes = [helper.make_node("Relu", ["x"], ["xr"], name="/r/Relu"),
             helper.make_node("If", ["c"], ["if_out"], name="/if/If", then_branch=then_g, else_branch=else_g),
             helper.make_node("Abs", ["if_out"], ["y"], name="/a/Abs")]
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3]),
                                       helper.make_tensor_value_info("c", TensorProto.BOOL, [])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])],
                          [numpy_helper.from_array(np.array([0], np.int64), "ax")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 7
    src, out = tmp_path / "if13.onnx", tmp_path / ("if%d.onnx" % opset)
    onnx.save(m, str(src))
    c = convert(src, out, opset)
    made = computed(c)
    assert made["if_out"].op_type == "If" and made["if_out"].name == "/if/If"
    assert made["xr"].name == "/r/Relu"
    branches = {a.name: a.g for a in made["if_out"].attribute}
    assert {"t_u", "t_out"} <= {o for n in branches["then_branch"].node for o in n.output}
    assert "e_out" in {o for n in branches["else_branch"].node for o in n.output}
    for cond in (True, False):
        feeds = {"x": np.arange(6, dtype=np.float32).reshape(2, 3) - 2, "c": np.array(cond)}
        want, got = layerwise(src, out, ["xr", "if_out", "y"], feeds)
        for k in ("xr", "if_out", "y"):
            np.testing.assert_array_equal(got[k], want[k], err_msg=k)


# ---- names longer than a fixed buffer ----
# Names the conversion builds from names ("<node>/<attr>" for a subgraph's scope, "<body>/in<k>"
# for a Loop body's inputs, "<function>__<k>" for a kept function's copies) were formatted into
# buffers of 512 bytes: a longer node or function name was cut, two names became one, and the
# conversion failed (a duplicate input) or never ended (a copy's name taken at every k).
LONG = 600

NMS_TEST = "/usr/lib/python3/dist-packages/onnx/backend/test/data/node/test_nonmaxsuppression_two_batches"


@pytest.mark.skipif(not os.path.exists(NMS_TEST), reason="onnx's node tests are not installed")
def test_a_node_named_600_characters_lowered_through_a_loop(tmp_path):
    """NonMaxSuppression-10 at 9 is a Loop whose body's inputs are named under the node's name."""
    from ortrun import run_batch
    from onnx import numpy_helper
    m = onnx.load(os.path.join(NMS_TEST, "model.onnx"))
    for n in m.graph.node:
        n.name = "N" * LONG
    src = tmp_path / "nms.onnx"
    onnx.save(m, str(src))
    out = convert(src, tmp_path / "nms9.onnx", 9)
    assert any(n.op_type == "Loop" for n in out.graph.node)
    feeds = {}
    for i, inp in enumerate(m.graph.input):
        t = onnx.load_tensor(os.path.join(NMS_TEST, "test_data_set_0", "input_%d.pb" % i))
        feeds[inp.name] = numpy_helper.to_array(t)
    got = run_batch([(m.SerializeToString(), feeds), (out.SerializeToString(), feeds)])
    assert not isinstance(got[1], str), got[1]
    for k in got[0]:
        np.testing.assert_array_equal(got[1][k], got[0][k])


def test_a_function_named_600_characters_kept_in_three_copies(tmp_path):
    """--keep-functions: three call signatures of one function, three copies, each named apart
    ("<name>", "<name>__2", "<name>__3"); the run ends (it looped at the third)."""
    from ortrun import run_batch
    from onnx import AttributeProto
    name = "F" * LONG
    k = helper.make_node("Constant", [], ["k"])
    a = AttributeProto()
    a.name, a.ref_attr_name, a.type = "value_float", "alpha", AttributeProto.FLOAT
    k.attribute.append(a)
    fn = helper.make_function("local", name, ["x"], ["y"], [k, helper.make_node("Mul", ["x", "k"], ["y"])],
                              [helper.make_opsetid("", 17)], ["alpha"])
    nodes, cur = [], "x"
    for i in range(3):
        nodes.append(helper.make_node(name, [cur], ["o%d" % i], domain="local", alpha=float(i + 2)))
        cur = "o%d" % i
    g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
                          [helper.make_tensor_value_info(cur, TensorProto.FLOAT, [2])])
    m = helper.make_model(g, functions=[fn], opset_imports=[helper.make_opsetid("", 17),
                                                            helper.make_opsetid("local", 1)])
    m.ir_version = 8
    src, dst = tmp_path / "fn.onnx", tmp_path / "fn17.onnx"
    src.write_bytes(m.SerializeToString())
    r = subprocess.run([TOOL, "convert", str(src), str(dst), "--opset", "17", "--keep-functions"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    out = onnx.load(str(dst))
    assert sorted(f.name for f in out.functions) == sorted([name, name + "__2", name + "__3"])
    feeds = {"x": np.array([1.0, -3.0], np.float32)}
    got = run_batch([(m.SerializeToString(), feeds), (out.SerializeToString(), feeds)])
    assert not isinstance(got[1], str), got[1]
    np.testing.assert_array_equal(got[1]["o2"], feeds["x"] * 24)
    np.testing.assert_array_equal(got[0]["o2"], got[1]["o2"])
