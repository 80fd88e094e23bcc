"""Nodes with more than 64 inputs or outputs convert like any other: torch's unbind/chunk of a
long axis exports a Split of one output per element, a decoder's Loop carries two values per
layer, a Max or Concat may take a hundred inputs. The lowerings once kept such lists in arrays of
64 on the stack and refused the rest ("Split into more than 64 parts", "more than 64 outputs")
at every opset, the node's own included. Each case below has 100 (or 70) and is checked by
numbers: ONNX Runtime on the converted model against ONNX Runtime on the source (or numpy where
ORT has no kernel for the source)."""
import os
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
for p in ("bindings/python", "tests/ort"):
    sys.path.insert(0, os.path.join(ROOT, p))
BUILD = os.environ.get("ONNXLEGAL_BUILD", os.path.join(ROOT, "build"))
TOOL = os.path.join(BUILD, "bin", "onnxlegal")

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

pytestmark = pytest.mark.skipif(not os.path.exists(TOOL), reason="%s is not built" % TOOL)

N = 100
TARGETS = [9, 11, 13, 17, 18, 21]


def _vi(name, shape, t=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, t, shape)


def _model(nodes, inputs, outputs, inits=(), opset=13, functions=(), domains=()):
    g = helper.make_graph(nodes, "wide", inputs, outputs, list(inits))
    m = helper.make_model(g, functions=list(functions), opset_imports=[helper.make_opsetid("", opset)] +
                          [helper.make_opsetid(d, 1) for d in domains])
    m.ir_version = 8
    return m


def _outs(prefix, n=N, shape=None):
    return [_vi("%s%d" % (prefix, i), shape) for i in range(n)]


def _split13(dynamic):
    ins = [_vi("x", [2 * N, 3])] + ([_vi("s", [N], TensorProto.INT64)] if dynamic else [])
    inits = [] if dynamic else [numpy_helper.from_array(np.full(N, 2, np.int64), "s")]
    node = helper.make_node("Split", ["x", "s"], ["y%d" % i for i in range(N)], axis=0)
    return _model([node], ins, _outs("y"), inits)


def _split11_even():
    node = helper.make_node("Split", ["x"], ["y%d" % i for i in range(N)], axis=1)
    return _model([node], [_vi("x", [3, N])], _outs("y"), opset=11)


def _split18_num_outputs():
    # 2N + 3 elements in N parts of ceil((2N + 3) / N) = 3: the last is smaller
    node = helper.make_node("Split", ["x"], ["y%d" % i for i in range(N)], axis=0, num_outputs=N)
    return _model([node], [_vi("x", [3 * N - 2])], _outs("y"), opset=18)


def _loop_wide():
    """A Loop of 3 trips carrying N values, each incremented per trip."""
    one = helper.make_node("Constant", [], ["one"], value=numpy_helper.from_array(np.array(1.0, np.float32)))
    body = helper.make_graph(
        [one, helper.make_node("Identity", ["cond"], ["cond_out"])] +
        [helper.make_node("Add", ["c%d" % i, "one"], ["d%d" % i]) for i in range(N)], "body",
        [_vi("it", [], TensorProto.INT64), _vi("cond", [], TensorProto.BOOL)] + _outs("c", shape=[2]),
        [_vi("cond_out", [], TensorProto.BOOL)] + _outs("d", shape=[2]))
    node = helper.make_node("Loop", ["M", ""] + ["x%d" % i for i in range(N)],
                            ["y%d" % i for i in range(N)], body=body)
    return _model([node], _outs("x", shape=[2]), _outs("y", shape=[2]),
                  [numpy_helper.from_array(np.array(3, np.int64), "M")])


def _feeds(m):
    rs = np.random.RandomState(7)
    feeds = {}
    for i in m.graph.input:
        if i.name == "s":
            feeds["s"] = np.full(N, 2, np.int64)
        else:
            feeds[i.name] = rs.randn(*[d.dim_value for d in i.type.tensor_type.shape.dim]).astype(np.float32)
    return feeds


def _convert(tmp_path, m, target, *extra):
    src, out = tmp_path / "src.onnx", tmp_path / ("out%d.onnx" % target)
    src.write_bytes(m.SerializeToString())
    r = subprocess.run([TOOL, "convert", str(src), str(out), "--opset", str(target)] + list(extra),
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return out.read_bytes()


@pytest.mark.parametrize("case", ["split13_const", "split13_dyn", "split11_even", "split18_num_outputs",
                                  "loop_wide"])
def test_a_node_of_100_outputs_converts_at_every_target(tmp_path, case):
    from ortrun import run_batch
    m = {"split13_const": lambda: _split13(False), "split13_dyn": lambda: _split13(True),
         "split11_even": _split11_even, "split18_num_outputs": _split18_num_outputs,
         "loop_wide": _loop_wide}[case]()
    feeds = _feeds(m)
    targets = [t for t in TARGETS if case != "split18_num_outputs" or t >= 11]
    outs = [_convert(tmp_path, m, t) for t in targets]
    got = run_batch([(m.SerializeToString(), feeds)] + [(o, feeds) for o in outs])
    want = got[0]
    assert not isinstance(want, str), want
    assert len(want) == N
    for t, g in zip(targets, got[1:]):
        assert not isinstance(g, str), (t, g)
        for k in want:
            np.testing.assert_array_equal(g[k], want[k], err_msg="%s at %d: %s" % (case, t, k))


def test_max_of_70_int16_inputs_cast_around_for_onnx_runtime(tmp_path):
    """ORT has no int16 Max-13 kernel: --profile ort computes it in int32 and casts back
    (exact), over all 70 inputs. ORT cannot run the source, so numpy is the reference."""
    from ortrun import run_one
    n = 70
    node = helper.make_node("Max", ["x%d" % i for i in range(n)], ["y"])
    m = _model([node], [_vi("x%d" % i, [5], TensorProto.INT16) for i in range(n)],
               [_vi("y", [5], TensorProto.INT16)])
    rs = np.random.RandomState(3)
    feeds = {"x%d" % i: rs.randint(-32768, 32768, 5).astype(np.int16) for i in range(n)}
    out = _convert(tmp_path, m, 13, "--profile", "ort")
    ops = [nd.op_type for nd in onnx.load_from_string(out).graph.node]
    assert ops.count("Max") == 1 and ops.count("Cast") == n + 1, ops
    got = run_one(out, feeds)
    np.testing.assert_array_equal(got["y"], np.max(np.stack(list(feeds.values())), axis=0))


def test_a_kept_function_of_70_outputs(tmp_path):
    """--keep-functions keeps a call of 70 outputs as a call (it was refused over 64)."""
    from ortrun import run_batch
    n = 70
    fn = helper.make_function("local", "Fan", ["a"], ["b%d" % i for i in range(n)],
                              [helper.make_node("Constant", [], ["k%d" % i], value_float=float(i))
                               for i in range(n)] +
                              [helper.make_node("Add", ["a", "k%d" % i], ["b%d" % i]) for i in range(n)],
                              [helper.make_opsetid("", 13)])
    node = helper.make_node("Fan", ["x"], ["y%d" % i for i in range(n)], domain="local")
    m = _model([node], [_vi("x", [3])], _outs("y", n, [3]), functions=[fn], domains=["local"])
    feeds = {"x": np.array([1.0, -2.0, 0.5], np.float32)}
    out = _convert(tmp_path, m, 17, "--keep-functions")
    proto = onnx.load_from_string(out)
    assert [f.name for f in proto.functions] == ["Fan"]
    assert [nd.op_type for nd in proto.graph.node] == ["Fan"]
    got = run_batch([(m.SerializeToString(), feeds), (out, feeds)])
    assert not isinstance(got[1], str), got[1]
    for i in range(n):
        np.testing.assert_array_equal(got[1]["y%d" % i], feeds["x"] + i)
        np.testing.assert_array_equal(got[0]["y%d" % i], got[1]["y%d" % i])


@pytest.mark.parametrize("target", [11, 13, 18])
def test_a_callers_split_of_100_written_at_11_converts(target):
    """A caller's symbolic emits Split-11 of 100 outputs at version 11 (olg_lower_emit_end_at)
    and concatenates them in reverse order: converted at each target, the rows come back
    reversed."""
    import onnxlegal
    from onnxlegal.lowering import Registry, legalize
    from ortrun import run_one

    def reverse_rows(cx, node):
        parts = cx.emit("Split", [cx.arg_value(0)], outputs=N, axis=0, version=11)
        cx.bind(0, cx.emit("Concat", list(reversed(parts)), axis=0, version=11))

    reg = Registry()
    reg.add("t", "reverse_rows", reverse_rows)
    reg.freeze()
    m = onnxlegal.Model(opset=None)
    x = m.graph.add_input("x", np.float32, [N, 2])
    m.graph.add_output(m.graph.node("reverse_rows", [x], outputs=["y"], domain="t", name="rev"))
    out = legalize(m, reg, opset=target)
    ops = [n.op for n in out.graph.nodes]
    assert ops == ["Split", "Concat"], ops
    xv = np.arange(2 * N, dtype=np.float32).reshape(N, 2)
    np.testing.assert_array_equal(run_one(out.to_bytes(), {"x": xv})["y"], xv[::-1])


def test_a_scan8_of_70_scan_outputs_converts_to_scan9(tmp_path):
    """Scan-8 (a batch axis first) with 70 scan outputs, each a running sum plus its index,
    converted to Scan-9+ with the batch of 1 squeezed off and put back."""
    from ortrun import run_batch
    n = 70
    consts = [helper.make_node("Constant", [], ["k%d" % i],
                               value=numpy_helper.from_array(np.full(2, float(i), np.float32)))
              for i in range(n)]  # IR 3: an initializer must also be a graph input
    body = helper.make_graph(
        consts + [helper.make_node("Add", ["s", "e"], ["s2"])] +
        [helper.make_node("Add", ["s2", "k%d" % i], ["o%d" % i]) for i in range(n)], "body",
        [_vi("s", [2]), _vi("e", [2])], [_vi("s2", [2])] + _outs("o", n, [2]))
    node = helper.make_node("Scan", ["", "s0", "xs"], ["sN"] + ["y%d" % i for i in range(n)],
                            body=body, num_scan_inputs=1)
    m = _model([node], [_vi("s0", [1, 2]), _vi("xs", [1, 4, 2])],
               [_vi("sN", [1, 2])] + _outs("y", n, [1, 4, 2]), opset=8)
    m.ir_version = 3
    feeds = {"s0": np.array([[1.0, -1.0]], np.float32),
             "xs": np.arange(8, dtype=np.float32).reshape(1, 4, 2)}
    outs = [_convert(tmp_path, m, t) for t in (9, 11, 17)]
    got = run_batch([(m.SerializeToString(), feeds)] + [(o, feeds) for o in outs])
    assert not isinstance(got[0], str), got[0]
    assert len(got[0]) == n + 1
    for t, g in zip((9, 11, 17), got[1:]):
        assert not isinstance(g, str), (t, g)
        for k in got[0]:
            np.testing.assert_array_equal(g[k], got[0][k], err_msg="%d: %s" % (t, k))
