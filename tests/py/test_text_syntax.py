"""olg_model_print_text: a model built through the binding, printed in ONNX's textual syntax,
parses back with ONNX's own parser (onnx.parser, python3-onnx) into the same model as one built
independently with onnx.helper; and when the protobuf writer is in the build, into the same
model as the one it writes."""
import glob
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bindings", "python"))

import onnxlegal  # noqa: E402

onnx = pytest.importorskip("onnx")
import onnx.parser  # noqa: E402
from onnx import TensorProto as TP  # noqa: E402
from onnx import helper, numpy_helper  # noqa: E402

HAS_WRITER = "olg_model_write_callback" not in onnxlegal.lib.missing


# ---- a canonical form of a ModelProto, for comparing models -----------------------------------

def c_type(tp):
    if not tp.HasField("tensor_type"):
        return ("non-tensor", str(tp))
    tt = tp.tensor_type
    if not tt.HasField("shape"):
        return (tt.elem_type, None)
    dims = []
    for d in tt.shape.dim:
        if d.HasField("dim_value"):
            dims.append(d.dim_value)
        elif d.HasField("dim_param"):
            dims.append(d.dim_param)
        else:
            dims.append(None)
    return (tt.elem_type, dims)


def c_vi(vi):
    return (vi.name, c_type(vi.type) if vi.HasField("type") else None)


def c_tensor(t):
    a = numpy_helper.to_array(t)
    vals = [x.decode() if isinstance(x, bytes) else x for x in a.ravel().tolist()]
    # compare floats bit for bit (so -0.0 differs from 0.0)
    if a.dtype.kind == "f":
        vals = a.ravel().view({2: np.uint16, 4: np.uint32, 8: np.uint64}[a.itemsize]).tolist()
    return (t.name, t.data_type, list(t.dims), vals)


def c_attr(a):
    A = onnx.AttributeProto
    value = {
        A.FLOAT: lambda: np.float32(a.f).tobytes(), A.INT: lambda: a.i, A.STRING: lambda: a.s,
        A.TENSOR: lambda: c_tensor(a.t), A.GRAPH: lambda: c_graph(a.g),
        A.FLOATS: lambda: np.array(a.floats, np.float32).tobytes(),
        A.INTS: lambda: list(a.ints), A.STRINGS: lambda: list(a.strings),
    }[a.type]()
    return (a.name, a.type, value)


def strip_trailing(names):
    names = list(names)
    while names and names[-1] == "":
        names.pop()  # a trailing omitted input/output means the same as none
    return names


def c_node(n):
    return (n.name, n.domain, n.op_type, strip_trailing(n.input), strip_trailing(n.output),
            sorted((c_attr(a) for a in n.attribute), key=lambda a: a[0]))  # order carries no meaning


def c_graph(g):
    return {
        "name": g.name,
        "inputs": [c_vi(v) for v in g.input],
        "outputs": [c_vi(v) for v in g.output],
        "initializers": [c_tensor(t) for t in g.initializer],
        "value_info": [c_vi(v) for v in g.value_info],
        "nodes": [c_node(n) for n in g.node],
    }


def c_model(m):
    return {
        "ir_version": m.ir_version,
        "opsets": [(o.domain, o.version) for o in m.opset_import],
        "fields": (m.producer_name, m.producer_version, m.domain, m.model_version, m.doc_string),
        "metadata": [(p.key, p.value) for p in m.metadata_props],
        "graph": c_graph(m.graph),
    }


def assert_round_trip(built, expected):
    text = built.to_text()
    try:
        parsed = onnx.parser.parse_model(text)
    except Exception as e:  # show the text that did not parse
        pytest.fail("onnx.parser refused the text: %s\n%s" % (e, text))
    assert c_model(parsed) == c_model(expected), text
    if HAS_WRITER:
        written = onnx.load_from_string(built.to_bytes())
        assert c_model(parsed) == c_model(written), text
    return text


def vi(name, elem, shape):
    return helper.make_tensor_value_info(name, elem, shape)


# ---- the models --------------------------------------------------------------------------------

def test_attributes_of_each_type():
    m = onnxlegal.Model(opset={"": 17, "com.example": 1}, ir_version=8, name="attrs")
    g = m.graph
    x = g.add_input("x", np.float32, ["N", 3])
    y = g.node("Foo", [x], domain="com.example", outputs=["y"], attrs={
        "i": -7, "big": 2**62, "f": 0.1, "f_integral": 2.0, "f_tiny": 1e-30, "f_neg": -2.5e10,
        "s": "hello world", "s_empty": "", "ints": [1, -2, 3], "floats": [0.5, 1.0, 1 / 3],
        "strs": ["a", "", "b c"],
        "t_float": np.array([[1.5, -2.0, 0.1]], np.float32),
        "t_int": np.array([1, 2**40], np.int64),
        "t_scalar": np.array(3, np.int32),
    })
    z = g.node("Transpose", [y], outputs=["z"], perm=[1, 0])
    s = g.node("Softmax", [z], outputs=["s"], axis=-1)
    r = g.node("LeakyRelu", [s], outputs=["r"], alpha=0.01)
    g.add_output(r)

    ex_node = helper.make_node("Foo", ["x"], ["y"], domain="com.example", i=-7, big=2**62, f=0.1,
                               f_integral=2.0, f_tiny=1e-30, f_neg=-2.5e10, s="hello world",
                               s_empty="", ints=[1, -2, 3], floats=[0.5, 1.0, 1 / 3],
                               strs=["a", "", "b c"],
                               t_float=numpy_helper.from_array(np.array([[1.5, -2.0, 0.1]], np.float32), ""),
                               t_int=numpy_helper.from_array(np.array([1, 2**40], np.int64), ""),
                               t_scalar=numpy_helper.from_array(np.array(3, np.int32), ""))
    expected = helper.make_model(
        helper.make_graph([ex_node, helper.make_node("Transpose", ["y"], ["z"], perm=[1, 0]),
                           helper.make_node("Softmax", ["z"], ["s"], axis=-1),
                           helper.make_node("LeakyRelu", ["s"], ["r"], alpha=0.01)],
                          "attrs", [vi("x", TP.FLOAT, ["N", 3])], [helper.make_tensor_value_info("r", TP.UNDEFINED, None)]),
        opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.example", 1)],
        ir_version=8)
    expected.graph.output[0].ClearField("type")  # an untyped output prints as its bare name
    text = assert_round_trip(m, expected)
    assert "f_integral = 2.0" in text and "big = 4611686018427387904" in text


def test_shapes_symbolic_unknown_scalar_and_unranked():
    m = onnxlegal.Model(opset=17, ir_version=8, name="shapes")
    g = m.graph
    a = g.add_input("a", np.float32, ["batch", None, 3])
    b = g.add_input("b", "int64", [])
    c = g.add_input("c", np.float64, None)
    d = g.add_input("d", "uint8", [0, 1, "seq_len"])
    t = g.node("Identity", [a], outputs=["t"])
    t.set_type(np.float32, ["batch", None, 3])
    g.add_value_info(t)
    g.add_output(g.node("Identity", [t], outputs=["oa"]))
    for v, name in ((b, "ob"), (c, "oc"), (d, "od")):
        out = g.node("Identity", [v], outputs=[name])
        out.set_type(v.dtype_code, v.shape)
        g.add_output(out)
    g.outputs[0].set_type(np.float32, ["batch", None, 3])

    expected = helper.make_model(
        helper.make_graph(
            [helper.make_node("Identity", ["a"], ["t"]), helper.make_node("Identity", ["t"], ["oa"]),
             helper.make_node("Identity", ["b"], ["ob"]), helper.make_node("Identity", ["c"], ["oc"]),
             helper.make_node("Identity", ["d"], ["od"])],
            "shapes",
            [vi("a", TP.FLOAT, ["batch", None, 3]), vi("b", TP.INT64, []), vi("c", TP.DOUBLE, None),
             vi("d", TP.UINT8, [0, 1, "seq_len"])],
            [vi("oa", TP.FLOAT, ["batch", None, 3]), vi("ob", TP.INT64, []),
             vi("oc", TP.DOUBLE, None), vi("od", TP.UINT8, [0, 1, "seq_len"])],
            value_info=[vi("t", TP.FLOAT, ["batch", None, 3])]),
        opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    text = assert_round_trip(m, expected)
    assert "float[batch,?,3] a" in text and "int64 b" in text and "double[] c" in text


def test_if_subgraphs_nested_and_capturing():
    m = onnxlegal.Model(opset=17, ir_version=8, name="cond")
    g = m.graph
    c = g.add_input("c", "bool", [])
    x = g.add_input("x", np.float32, ["N"])
    sq = g.node("Mul", [x, x], outputs=["sq"])
    # then: a nested If whose branches read "sq" and "x" from two levels up
    inner_t = m.subgraph("inner_then")
    o = inner_t.node("Neg", [sq], outputs=["it_o"])
    o.set_type(np.float32, ["N"])
    inner_t.add_output(o)
    inner_e = m.subgraph("inner_else")
    o = inner_e.node("Identity", [x], outputs=["ie_o"])
    o.set_type(np.float32, ["N"])
    inner_e.add_output(o)
    then = m.subgraph("then_branch_g")
    o = then.node("If", [c], outputs=["t_o"], then_branch=inner_t, else_branch=inner_e)
    o.set_type(np.float32, ["N"])
    then.add_output(o)
    els = m.subgraph("else_branch_g")
    o = els.node("Abs", [sq], outputs=["e_o"])
    o.set_type(np.float32, ["N"])
    els.add_output(o)
    r = g.node("If", [c], outputs=["r"], then_branch=then, else_branch=els)
    r.set_type(np.float32, ["N"])
    g.add_output(r)

    fN = lambda n: vi(n, TP.FLOAT, ["N"])  # noqa: E731
    inner_then = helper.make_graph([helper.make_node("Neg", ["sq"], ["it_o"])], "inner_then", [], [fN("it_o")])
    inner_else = helper.make_graph([helper.make_node("Identity", ["x"], ["ie_o"])], "inner_else", [], [fN("ie_o")])
    then_g = helper.make_graph([helper.make_node("If", ["c"], ["t_o"], then_branch=inner_then,
                                                 else_branch=inner_else)], "then_branch_g", [], [fN("t_o")])
    else_g = helper.make_graph([helper.make_node("Abs", ["sq"], ["e_o"])], "else_branch_g", [], [fN("e_o")])
    expected = helper.make_model(
        helper.make_graph([helper.make_node("Mul", ["x", "x"], ["sq"]),
                           helper.make_node("If", ["c"], ["r"], then_branch=then_g, else_branch=else_g)],
                          "cond", [vi("c", TP.BOOL, []), fN("x")], [fN("r")]),
        opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    text = assert_round_trip(m, expected)
    onnx.checker.check_model(onnx.parser.parse_model(text), full_check=True)


def test_initializers_of_many_types_exactly():
    cases = {
        "f32": np.array([0.1, 1 / 3, 1e-30, -0.0, 3.4028235e38, -1.5], np.float32),
        "f64": np.array([0.1, 1 / 3, 1e300, -0.0], np.float64),
        "i8": np.array([-128, 0, 127], np.int8),
        "u8": np.array([0, 255], np.uint8),
        "i16": np.array([-32768, 32767], np.int16),
        "u16": np.array([0, 65535], np.uint16),
        "i32": np.array([[-2**31, 2**31 - 1]], np.int32),
        "i64": np.array([-2**63, 2**63 - 1], np.int64),
        "u32": np.array([2**32 - 1], np.uint32),
        "u64": np.array([2**64 - 1], np.uint64),
        "b": np.array([True, False, True], np.bool_),
        "scalar": np.array(2.5, np.float32),
        "empty": np.zeros((0, 3), np.float32),
        "s": np.array(["", "a b", "xyz"]),
    }
    m = onnxlegal.Model(opset=17, ir_version=8, name="inits")
    g = m.graph
    x = g.add_input("x", np.float32, [1])
    for name, arr in cases.items():
        g.add_initializer(name, arr)
    g.add_output(g.node("Identity", [x], outputs=["y"]))

    inits = [numpy_helper.from_array(arr.astype(object) if arr.dtype.kind == "U" else arr, name)
             for name, arr in cases.items()]
    expected = helper.make_model(
        helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "inits",
                          [vi("x", TP.FLOAT, [1])], [helper.make_tensor_value_info("y", TP.UNDEFINED, None)],
                          initializer=inits),
        opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    expected.graph.output[0].ClearField("type")
    text = assert_round_trip(m, expected)
    assert "float[6] f32 = {0.100000001, 0.333333343, 1e-30, -0.0, 3.40282347e+38, -1.5}" in text


def test_omitted_inputs_outputs_and_multiple_outputs():
    m = onnxlegal.Model(opset={"": 17, "com.example": 1}, ir_version=8, name="io")
    g = m.graph
    x = g.add_input("x", np.float32, [4, 2])
    mx = g.add_input("mx", np.float32, [])
    clip = g.node("Clip", [x, None, mx], outputs=["clipped"])
    a, b = g.node("Split", [clip], outputs=["a", "b"], axis=0)
    k = g.node("Constant", [], outputs=["k"], value=np.array([1], np.int64))
    p, _, q = g.node("Multi", [a, None, None], domain="com.example", outputs=["p", "", "q"])
    g.add_output(b)
    g.add_output(p)
    g.add_output(q)
    g.add_output(k)

    expected = helper.make_model(
        helper.make_graph(
            [helper.make_node("Clip", ["x", "", "mx"], ["clipped"]),
             helper.make_node("Split", ["clipped"], ["a", "b"], axis=0),
             helper.make_node("Constant", [], ["k"], value=numpy_helper.from_array(np.array([1], np.int64), "")),
             helper.make_node("Multi", ["a", "", ""], ["p", "", "q"], domain="com.example")],
            "io", [vi("x", TP.FLOAT, [4, 2]), vi("mx", TP.FLOAT, [])],
            [helper.make_tensor_value_info(n, TP.UNDEFINED, None) for n in ("b", "p", "q", "k")]),
        opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.example", 1)],
        ir_version=8)
    for o in expected.graph.output:
        o.ClearField("type")
    text = assert_round_trip(m, expected)
    assert "clipped = Clip (x,, mx)" in text
    assert "p, , q = com.example.Multi (a,, )" in text


def test_model_fields_and_metadata():
    m = onnxlegal.Model(opset={"": 13, "ai.onnx.ml": 3}, ir_version=7, name="fields")
    m.producer_name = "onnxlegal"
    m.producer_version = "0.1"
    m.domain = "org.example"
    m.model_version = 42
    m.doc_string = "line one, line two"
    m.metadata = {"k1": "v1", "k2": ""}
    g = m.graph
    g.add_output(g.node("Identity", [g.add_input("x", "int32", [2])], outputs=["y"]))
    g.outputs[0].set_type("int32", [2])
    expected = helper.make_model(
        helper.make_graph([helper.make_node("Identity", ["x"], ["y"])], "fields",
                          [vi("x", TP.INT32, [2])], [vi("y", TP.INT32, [2])]),
        opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("ai.onnx.ml", 3)],
        ir_version=7, producer_name="onnxlegal", producer_version="0.1", domain="org.example",
        model_version=42, doc_string="line one, line two")
    helper.set_model_props(expected, {"k1": "v1", "k2": ""})
    assert_round_trip(m, expected)


def test_named_nodes_and_names_that_need_quotes():
    """Node labels and quoted names are in the syntax of Syntax.md, which python3-onnx 1.12's
    parser predates: the text is checked as text here."""
    m = onnxlegal.Model(opset=17, name="my graph")
    g = m.graph
    x = g.add_input("input.1", np.float32, ["batch size", 3])
    y = g.node("Relu", [x], outputs=["onnx::Relu_1"], name="/layer1/relu")
    g.add_output(y)
    text = m.to_text()
    assert '"my graph" (float["batch size",3] "input.1") => ("onnx::Relu_1")' in text
    assert '["/layer1/relu"] "onnx::Relu_1" = Relu ("input.1")' in text


# ---- every model of ONNX's test data ------------------------------------------------------------

TESTDATA = "/usr/share/libonnx-testdata/data"

# What python3-onnx 1.12's parser predates (Syntax.md has them): quoted names, non-tensor types,
# and an omitted first input or output ("(, x)", ", y = Op").
OLD_PARSER_GAPS = re.compile(r'"|\b(seq|optional|map|sparse_tensor)\(|\(\s*,|^\s*,', re.M)


def _testdata_models():
    return sorted(glob.glob(os.path.join(TESTDATA, "*", "*", "model.onnx")))


@pytest.mark.skipif(not os.path.isdir(TESTDATA), reason="libonnx-testdata is not installed")
def test_every_testdata_model_prints_and_parses_back_equal():
    """Each model read by the library and printed parses back (node labels aside, which the old
    parser lacks) into the model ONNX itself reads from the file; a model that does not parse
    must use syntax the old parser predates, nothing else."""
    paths = _testdata_models()
    assert len(paths) > 1000
    equal, unparsable = 0, []
    for path in paths:
        with onnxlegal.Model.read(path) as m:
            text = m.to_text()
        text = re.sub(r"^(\s*)\[[^\]]*\] ", r"\1", text, flags=re.M)
        try:
            parsed = onnx.parser.parse_model(text)
        except Exception as e:  # noqa: BLE001 - classified below
            context = str(e).split("Error context:")[-1].split("\\n")[0]
            assert OLD_PARSER_GAPS.search(context), "%s: %s\n%s" % (path, e, text)
            unparsable.append(path)
            continue
        orig = onnx.load(path)
        for n in orig.graph.node:
            n.name = ""
        assert c_model(parsed) == c_model(orig), path
        equal += 1
    assert equal > 900, "only %d models parsed back (%d did not)" % (equal, len(unparsable))


@pytest.mark.skipif(not os.path.isdir(TESTDATA) or not shutil.which("dot"),
                    reason="needs libonnx-testdata and graphviz")
def test_testdata_models_draw_with_graphviz():
    """One model in eight (all kinds of node tests, subgraphs, odd names) goes through
    `dot -Tsvg` in one batch: each digraph becomes one svg."""
    paths = _testdata_models()[::8]
    digraphs = []
    for path in paths:
        with onnxlegal.Model.read(path) as m:
            digraphs.append(m.to_dot())
    r = subprocess.run(["dot", "-Tsvg"], input="".join(digraphs).encode(), capture_output=True)
    assert r.returncode == 0, r.stderr.decode()[:2000]
    assert r.stderr == b""
    assert r.stdout.count(b"<svg") == len(paths)
