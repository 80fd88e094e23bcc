"""The reader takes most nodes of a large graph by a shorter path (rd_node_plain: inputs, outputs,
op type, at most one name and one domain, one-byte tags and lengths) and any other node by the
general walk. Both must give the same model: each graph below is read twice, as written and with
every node's op type length in two bytes (a valid encoding the short path declines), and the two
readings must write the same bytes, print the same text and check the same, or fail with the
same words."""
import re

import pytest

onnxlegal = pytest.importorskip("onnxlegal")
onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper  # noqa: E402

from _wire import field, varint  # noqa: E402


def node(op, inputs, outputs, name=None, domain=None, first=(), attrs=b""):
    """A NodeProto's bytes: `first` names the fields ("name", "domain") put before the inputs,
    the op type last; op is then the bytes as given, with its length in one byte."""
    parts = {"name": field(3, name.encode()) if name is not None else b"",
             "domain": field(7, domain.encode()) if domain is not None else b""}
    out = b"".join(parts[k] for k in first)
    out += b"".join(field(1, i.encode()) for i in inputs)
    out += b"".join(field(2, o.encode()) for o in outputs)
    out += b"".join(parts[k] for k in ("name", "domain") if k not in first)
    return out + attrs + b"\x22" + varint(len(op)) + op.encode()


def long_op(node_bytes):
    """The same node with its op type's length in two bytes (0x80 | n, 0x00)."""
    i = node_bytes.rindex(b"\x22")
    n = node_bytes[i + 1]
    assert len(node_bytes) == i + 2 + n and n < 0x80
    return node_bytes[:i] + bytes([0x22, 0x80 | n, 0x00]) + node_bytes[i + 2:]


def model(nodes, inputs=("x",), outputs=("y",), inits=(), opset=13, force=False):
    """ModelProto bytes: nodes as NodeProto bytes, float [2] inputs and outputs."""
    g = helper.make_graph([], "g", [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2]) for n in inputs],
                          [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2]) for n in outputs],
                          [helper.make_tensor(n, TensorProto.FLOAT, [2], [1.0, 2.0]) for n in inits])
    body = b"".join(field(1, long_op(n) if force else n) for n in nodes) + g.SerializeToString()
    m = helper.make_model(helper.make_graph([], "g", [], []), opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 8
    m.ClearField("graph")
    return m.SerializeToString() + field(7, body)


def reading(data):
    try:
        m = onnxlegal.Model.from_bytes(data)
    except onnxlegal.Error as e:
        return ("error", re.sub(r"byte \d+", "byte N", str(e)))
    return ("model", m.to_bytes(), m.to_text(), str(m.check(full=True)))


def branch(name, x):
    """A GraphProto's bytes for an If branch: two plain nodes on the enclosing graph's x."""
    g = helper.make_graph([], name, [], [helper.make_tensor_value_info(name + "_o", TensorProto.FLOAT, [2])])
    return (field(1, node("Relu", [x], [name + "_r"], name=name + "_relu")) +
            field(1, node("Neg", [name + "_r"], [name + "_o"])) + g.SerializeToString())


def if_node(x, cond, out):
    attr = lambda nm, b: field(5, field(1, nm.encode()) + field(6, b) + b"\xa0\x01\x05")  # noqa: E731
    return node("If", [cond], [out], name="if", attrs=attr("then_branch", branch("t", x)) +
                attr("else_branch", branch("e", x)))


GRAPHS = {
    "chain": dict(nodes=[node("Relu", ["x"], ["a"]), node("Add", ["a", "b"], ["c"], name="add"),
                         node("Mul", ["c", "c"], ["y"], name="mul", domain="ai.onnx")], inits=["b"]),
    "domain before name": dict(nodes=[node("Relu", ["x"], ["a"], name="n0", domain="ai.onnx",
                                           first=("domain", "name")),
                                      node("Neg", ["a"], ["y"], name="n1", domain="", first=("name",))]),
    "omitted input and output": dict(nodes=[node("Clip", ["x", "", "hi"], ["a"]),
                                            node("Dropout", ["a"], ["y", ""])], inits=["hi"]),
    "used before it is made": dict(nodes=[node("Neg", ["a"], ["y"]), node("Relu", ["x"], ["a"])]),
    "made twice": dict(nodes=[node("Relu", ["x"], ["a"]), node("Neg", ["x"], ["a"]),
                              node("Abs", ["a"], ["y"])]),
    "output named as the input": dict(nodes=[node("Relu", ["x"], ["x"]), node("Neg", ["x"], ["y"])]),
    "eight and nine inputs": dict(nodes=[node("Sum", ["x"] * 8, ["a"]), node("Sum", ["a"] * 9, ["y"])]),
    "no outputs, no inputs": dict(nodes=[node("Relu", ["x"], []), node("Constant", [], ["y"])]),
    "empty op type": dict(nodes=[node("", ["x"], ["y"])]),
    "empty name": dict(nodes=[node("Relu", ["x"], ["y"], name="")]),
    "NUL in an input": dict(nodes=[node("Relu", ["x\0z"], ["y"])]),
    "NUL in an output": dict(nodes=[node("Relu", ["x"], ["y\0z"])]),
    "NUL in the name": dict(nodes=[node("Relu", ["x"], ["y"], name="r\0")]),
    "NUL in the op type": dict(nodes=[node("Re\0lu", ["x"], ["y"])]),
    "subgraphs": dict(nodes=[if_node("x", "c", "y")], inputs=["x", "c"]),
}


@pytest.mark.parametrize("name", sorted(GRAPHS))
def test_short_path_reads_as_the_general_walk(name):
    g = GRAPHS[name]
    plain, general = model(**g), model(force=True, **g)
    assert plain != general
    assert reading(plain) == reading(general)


def test_a_long_chain_reads_as_the_general_walk():
    """Past the lookahead's window (the first output's hash it saw) and the cache of recent
    names: 3000 nodes whose inputs reach back to the start."""
    nodes = [node("Add", ["x" if i == 0 else "v%d" % (i - 1), "v%d" % (i // 2 - 1) if i > 1 else "x"],
                  ["v%d" % i], name="n%d" % i if i % 3 else None) for i in range(3000)]
    nodes.append(node("Relu", ["v2999"], ["y"]))
    a, b = reading(model(nodes)), reading(model(nodes, force=True))
    assert a[0] == "model" and a == b
