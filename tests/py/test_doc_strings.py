"""Free-text string fields holding a NUL byte (legal in protobuf): doc strings of the model, graph,
node, value info, attribute, initializer and function, and the producer's name and version and the
model's domain. The IR's C strings end at a NUL; the reader once cut these there without a word,
and a copy of the model lost the rest. Now a model read and written back is the same bytes, and a
conversion carries the model's doc string whole (the others up to a NUL: the IR's C strings)."""
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bindings", "python"))
onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

import numpy as np  # noqa: E402
import onnxlegal  # noqa: E402

TOOL = os.path.join(os.environ.get("ONNXLEGAL_BUILD", os.path.join(ROOT, "build")), "bin", "onnxlegal")


def _model():
    f = helper.make_function("local", "Twice", ["a"], ["b"], [helper.make_node("Add", ["a", "a"], ["b"])],
                             [helper.make_opsetid("", 13)])
    f.doc_string = "function doc\0after the NUL"
    sm = helper.make_node("Softmax", ["x"], ["s"], axis=1, doc_string="node doc\0tail")
    sm.attribute[0].doc_string = "attribute doc\0tail"
    nodes = [sm, helper.make_node("Add", ["s", "w"], ["t"]), helper.make_node("Twice", ["t"], ["y"], domain="local")]
    w = numpy_helper.from_array(np.arange(6, dtype=np.float32).reshape(2, 3), "w")
    w.doc_string = "tensor doc\0tail"
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    x.doc_string = "input doc\0tail"
    g = helper.make_graph(nodes, "g", [x], [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])], [w])
    g.doc_string = "graph doc\0tail"
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("local", 1)],
                          functions=[f])
    m.ir_version = 8
    m.producer_name, m.producer_version = "maker\0x", "1.0\0beta"
    m.domain, m.doc_string = "ai.example\0z", "\0model doc after a leading NUL"
    return m


def test_copy_keeps_every_text_field_whole(tmp_path):
    m = _model()
    src, out = tmp_path / "src.onnx", tmp_path / "out.onnx"
    src.write_bytes(m.SerializeToString())
    r = subprocess.run([TOOL, "copy", str(src), str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    back = onnx.load(str(out))
    assert back == m  # every field, the text ones with their NULs
    assert out.read_bytes() == src.read_bytes()  # at their places: the same bytes


def test_api_reads_them_cut_and_a_new_text_wins(tmp_path):
    src, out = tmp_path / "src.onnx", tmp_path / "out.onnx"
    src.write_bytes(_model().SerializeToString())
    m = onnxlegal.Model.read(str(src))
    # a C string cannot hold them: the producer's fields read empty, the doc up to its NUL
    assert m.producer_name == "" and m.domain == ""
    assert m.doc_string == ""
    assert m.graph.doc_string == ""
    # set through the API, the new text is what the written model says
    m.graph.doc_string = "a new graph doc"
    m.producer_name = "other"
    m.doc_string = "a new model doc"
    m.write(str(out))
    back = onnx.load(str(out))
    assert back.graph.doc_string == "a new graph doc"
    assert back.producer_name == "other"
    assert back.doc_string == "a new model doc"
    assert back.graph.node[0].doc_string == "node doc\0tail"  # the untouched ones still whole


def test_convert_carries_the_model_doc_whole(tmp_path):
    src, out = tmp_path / "src.onnx", tmp_path / "out.onnx"
    src.write_bytes(_model().SerializeToString())
    for args in ([], ["--keep-functions"]):
        r = subprocess.run([TOOL, "convert", str(src), str(out), "--opset", "17"] + args,
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        assert onnx.load(str(out)).doc_string == "\0model doc after a leading NUL", args


def test_convert_keeps_what_describes_the_model(tmp_path):
    """A conversion keeps the model's domain, version, doc string, metadata and the main graph's
    doc string (onnx's converter keeps them too); it dropped all but the doc string. So does a
    conversion that inlines the model's functions first."""
    twice = helper.make_function("local", "Twice", ["a"], ["b"], [helper.make_node("Add", ["a", "a"], ["b"])],
                                 [helper.make_opsetid("", 13)])
    for with_function in (False, True):
        nodes = [helper.make_node("Relu", ["x"], ["r" if with_function else "y"])]
        if with_function:
            nodes.append(helper.make_node("Twice", ["r"], ["y"], domain="local"))
        g = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])])
        g.doc_string = "what the graph computes"
        opsets = [helper.make_opsetid("", 13)] + ([helper.make_opsetid("local", 1)] if with_function else [])
        m = helper.make_model(g, opset_imports=opsets, functions=[twice] if with_function else [])
        m.ir_version = 8
        m.domain, m.model_version, m.doc_string = "com.example", 7, "model doc"
        helper.set_model_props(m, {"author": "me", "license": "MIT"})
        src, out = tmp_path / "src.onnx", tmp_path / "out.onnx"
        src.write_bytes(m.SerializeToString())
        r = subprocess.run([TOOL, "convert", str(src), str(out), "--opset", "17"], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        back = onnx.load(str(out))
        assert len(back.functions) == 0 and len(back.graph.node) == (2 if with_function else 1)
        assert (back.domain, back.model_version, back.doc_string) == ("com.example", 7, "model doc")
        assert [(e.key, e.value) for e in back.metadata_props] == [("author", "me"), ("license", "MIT")]
        assert back.graph.doc_string == "what the graph computes"


def _varint(v):
    out = bytearray()
    while True:
        c, v = v & 0x7F, v >> 7
        out.append(c | (0x80 if v else 0))
        if not v:
            return bytes(out)


def test_function_doc_given_twice_the_later_is_kept(tmp_path):
    # A FunctionProto's doc_string given twice, one holding a NUL (kept verbatim) then a plain one
    # (the doc: the later of two singular fields wins). The writer put the plain one first, so the
    # copy's doc was the NUL one, and a second copy differed from the first (found by fuzz_reader).
    m = _model()
    f = m.functions.pop()
    f.doc_string = "first\0verbatim"
    later = b"later doc"
    fb = f.SerializeToString() + b"\x42" + _varint(len(later)) + later
    src = tmp_path / "src.onnx"
    src.write_bytes(m.SerializeToString() + b"\xca\x01" + _varint(len(fb)) + fb)
    assert onnx.load(str(src)).functions[0].doc_string == "later doc"
    a, b = tmp_path / "a.onnx", tmp_path / "b.onnx"
    for i, o in ((src, a), (a, b)):
        r = subprocess.run([TOOL, "copy", str(i), str(o)], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
    assert onnx.load(str(a)).functions[0].doc_string == "later doc"
    assert a.read_bytes() == b.read_bytes()


def test_convert_keeps_text_fields_holding_a_nul_whole(tmp_path):
    """The model's domain, its metadata entries and the main graph's doc string holding a NUL: a
    conversion wrote them cut at the NUL (the IR's C strings), the domain dropped, two keys made
    one (a model onnx.checker refuses for duplicate keys). Now carried whole, through the
    inlined copy of a model with local functions and with --keep-functions too."""
    m = _model()
    g = m.graph
    g.doc_string = "graph\0doc"
    m.domain = "com.ex\0ample"
    del m.metadata_props[:]
    helper.set_model_props(m, {"k\0x": "1", "k\0y": "2", "plain": "v", "v": "a\0b"})
    onnx.checker.check_model(m)
    src, out = tmp_path / "src.onnx", tmp_path / "out.onnx"
    src.write_bytes(m.SerializeToString())
    for args in ([], ["--keep-functions"]):
        r = subprocess.run([TOOL, "convert", str(src), str(out), "--opset", "17"] + args,
                           capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        back = onnx.load(str(out))
        assert back.domain == "com.ex\0ample", args
        assert [(e.key, e.value) for e in back.metadata_props] == \
            [("k\0x", "1"), ("k\0y", "2"), ("plain", "v"), ("v", "a\0b")], args
        assert back.graph.doc_string == "graph\0doc", args
        onnx.checker.check_model(back)
    # through the API (olg_legalize, the source kept): bytes in, bytes out
    back = onnx.load_from_string(bytes(onnxlegal.convert(src.read_bytes(), 17)))
    assert back.domain == "com.ex\0ample" and back.graph.doc_string == "graph\0doc"
    assert [(e.key, e.value) for e in back.metadata_props][:2] == [("k\0x", "1"), ("k\0y", "2")]


def _metadata_entry(key, value):
    """NodeProto field 9 (metadata_props, IR 10) as bytes: the onnx package here predates it."""
    e = b"\x0a" + bytes([len(key)]) + key.encode() + b"\x12" + bytes([len(value)]) + value.encode()
    return b"\x4a" + bytes([len(e)]) + e


@pytest.mark.parametrize("opset", [17, 13])
def test_convert_keeps_each_node_doc_and_metadata(tmp_path, opset):
    """Each node emitted for a source node carries its doc string and metadata_props (where the
    dynamo exporter puts its scopes and stack traces), whether the node is kept (Relu) or
    decomposed (GroupNormalization-18 below 18); a node without them gets none, and an operand
    Constant the lowering shares between nodes none either."""
    trace = _metadata_entry("pkg.torch.onnx.stack_trace", "model.py:12")
    gn = helper.make_node("GroupNormalization", ["x", "s", "b"], ["g"], name="gn", num_groups=2,
                          doc_string="group norm")
    gn.MergeFromString(trace)
    relu = helper.make_node("Relu", ["g"], ["r"], name="relu", doc_string="relu doc")
    plain = helper.make_node("Unsqueeze", ["r", "ax"], ["y"], name="plain")
    inits = [numpy_helper.from_array(np.array([1.0, 2.0], np.float32), "s"),
             numpy_helper.from_array(np.array([0.5, -1.0], np.float32), "b"),
             numpy_helper.from_array(np.array([0], np.int64), "ax")]
    g = helper.make_graph([gn, relu, plain], "g",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 2, 2])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 1, 4, 2, 2])], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 18)])
    m.ir_version = 8
    src, out = tmp_path / "src.onnx", tmp_path / "out.onnx"
    src.write_bytes(m.SerializeToString())
    r = subprocess.run([TOOL, "convert", str(src), str(out), "--opset", str(opset)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    nodes = onnx.load(str(out)).graph.node
    from_gn = [n for n in nodes if n.op_type != "Constant" and n.name.startswith("gn")]
    assert {n.op_type for n in from_gn} >= {"InstanceNormalization", "Reshape", "Mul", "Add"}
    for n in from_gn:
        assert n.doc_string == "group norm" and trace in n.SerializeToString(), n
    (relu_out,) = [n for n in nodes if n.op_type == "Relu"]
    assert relu_out.doc_string == "relu doc" and trace not in relu_out.SerializeToString()
    (unsq,) = [n for n in nodes if n.op_type == "Unsqueeze"]
    assert unsq.doc_string == "" and unsq.SerializeToString() == helper.make_node(
        "Unsqueeze", list(unsq.input), list(unsq.output), name=unsq.name).SerializeToString()
    axes = [n for n in nodes if n.op_type == "Constant" and n.output[0] in unsq.input]
    assert axes and all(n.doc_string == "" for n in axes)


def test_convert_keeps_node_and_value_texts_holding_a_nul_whole(tmp_path):
    """A node's doc string and metadata entries, a value_info's and a graph input's doc string
    holding a NUL: a conversion carries them as read (the IR's C strings would cut them, and two
    keys that differ past a NUL would become one); they had come out empty."""
    trace = _metadata_entry("k\0x", "1") + _metadata_entry("k\0y", "2") + _metadata_entry("plain", "a\0b")
    relu = helper.make_node("Relu", ["x"], ["r"], name="relu", doc_string="node\0doc")
    relu.MergeFromString(trace)
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    x.doc_string = "input\0doc"
    r = helper.make_tensor_value_info("r", TensorProto.FLOAT, [2, 3])
    r.doc_string = "value\0doc"
    g = helper.make_graph([relu, helper.make_node("Neg", ["r"], ["y"], name="neg")], "g", [x],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])], value_info=[r])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    src, out = tmp_path / "src.onnx", tmp_path / "out.onnx"
    src.write_bytes(m.SerializeToString())
    for opset in (13, 17):
        res = subprocess.run([TOOL, "convert", str(src), str(out), "--opset", str(opset)], capture_output=True, text=True)
        assert res.returncode == 0, res.stderr
        back = onnx.load(str(out))
        (node,) = [n for n in back.graph.node if n.op_type == "Relu"]
        assert node.doc_string == "node\0doc" and trace in node.SerializeToString(), node
        assert back.graph.input[0].doc_string == "input\0doc"
        assert [(v.name, v.doc_string) for v in back.graph.value_info] == [("r", "value\0doc")]
        (neg,) = [n for n in back.graph.node if n.op_type == "Neg"]
        assert neg.doc_string == "" and b"k\0" not in neg.SerializeToString()


def _graph_metadata_entry(key, value):
    """GraphProto field 16 (metadata_props, IR 10) as bytes: the onnx package here predates it."""
    e = b"\x0a" + bytes([len(key)]) + key.encode() + b"\x12" + bytes([len(value)]) + value.encode()
    return b"\x82\x01" + bytes([len(e)]) + e


@pytest.mark.parametrize("opset", [17, 13, 11])
def test_convert_keeps_every_graph_doc_and_metadata(tmp_path, opset):
    """Each graph's doc string and metadata_props, the main graph's and an If branch's, plain or
    holding a NUL: a conversion carries them as read (a branch's doc string and every graph's
    metadata had come out empty)."""
    then_g = helper.make_graph([helper.make_node("Neg", ["x"], ["n"])], "then", [],
                               [helper.make_tensor_value_info("n", TensorProto.FLOAT, [2])])
    then_g.doc_string = "then\0doc"
    then_g.MergeFromString(_graph_metadata_entry("scope", "branch") + _graph_metadata_entry("k\0x", "1"))
    else_g = helper.make_graph([helper.make_node("Abs", ["x"], ["e"])], "else", [],
                               [helper.make_tensor_value_info("e", TensorProto.FLOAT, [2])])
    else_g.doc_string = "else doc"
    g = helper.make_graph([helper.make_node("If", ["c"], ["y"], then_branch=then_g, else_branch=else_g)], "main",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2]),
                           helper.make_tensor_value_info("c", TensorProto.BOOL, [])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])])
    g.doc_string = "main doc"
    g.MergeFromString(_graph_metadata_entry("pkg.exporter", "dynamo") + _graph_metadata_entry("v", "a\0b"))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 7
    src, out = tmp_path / "src.onnx", tmp_path / "out.onnx"
    src.write_bytes(m.SerializeToString())
    r = subprocess.run([TOOL, "convert", str(src), str(out), "--opset", str(opset)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    back = onnx.load(str(out))

    def branches(graph):
        (node,) = graph.node
        return {a.name: a.g for a in node.attribute}

    def metadata_bytes(graph):  # the graph's field 16, as written (onnx here cannot parse it)
        body = graph.SerializeToString()
        return [e for e in (_graph_metadata_entry("pkg.exporter", "dynamo"), _graph_metadata_entry("v", "a\0b"),
                            _graph_metadata_entry("scope", "branch"), _graph_metadata_entry("k\0x", "1")) if e in body]

    assert back.graph.doc_string == "main doc"
    assert metadata_bytes(back.graph)[:2] == [_graph_metadata_entry("pkg.exporter", "dynamo"),
                                              _graph_metadata_entry("v", "a\0b")]
    got = branches(back.graph)
    assert got["then_branch"].doc_string == "then\0doc" and got["else_branch"].doc_string == "else doc"
    assert metadata_bytes(got["then_branch"]) == [_graph_metadata_entry("scope", "branch"),
                                                  _graph_metadata_entry("k\0x", "1")]
    assert metadata_bytes(got["else_branch"]) == []
    onnx.checker.check_model(back)
