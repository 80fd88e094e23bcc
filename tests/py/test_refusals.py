"""Refusals of invalid models (issue 30): a cycle, a name defined twice, an empty name, a value
used but never defined. `check` and `convert` both exit 1 (a defect of the model, never a usage
error), both name the reason and the node, and the library's status is OLG_ERR_INVALID_MODEL
(never "unsupported", never "a bug in the symbolic"). The same models are fuzz regressions
(tests/fuzz/regressions/pipeline/refusal-*)."""
import os
import subprocess
import sys

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bindings", "python"))
BUILD = os.environ.get("ONNXLEGAL_BUILD", os.path.join(ROOT, "build"))
TOOL = os.path.join(BUILD, "bin", "onnxlegal")
REGRESSIONS = os.path.join(ROOT, "tests", "fuzz", "regressions", "pipeline")

pytestmark = pytest.mark.skipif(not os.path.exists(TOOL), reason="%s is not built" % TOOL)


def _vi(name):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, [2])


def _model(nodes, inputs=("x",), outputs=("y",), inits=(), ir=8):
    g = helper.make_graph(nodes, "g", [_vi(n) for n in inputs], [_vi(n) for n in outputs],
                          list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = ir
    return m


def _w():
    return numpy_helper.from_array(np.ones(2, np.float32), "w")


def _relu(i, o, name):
    return helper.make_node("Relu", [i], [o], name=name)


# name -> (model, what check and convert must both say, the node they must name or None)
CASES = {
    "cycle": (_model([helper.make_node("Add", ["x", "b"], ["a"], name="n_add"),
                      _relu("a", "b", "n_relu"), _relu("a", "y", "n_out")]),
              "cycle", "n_"),
    "dup-initializers": (_model([helper.make_node("Add", ["x", "w"], ["y"], name="add")],
                                inits=[_w(), _w()]), "defined twice", None),
    # an input with its default, and a second initializer: the reader merges the first pair
    # (this one made convert exit 2, "a value named 'w' already exists")
    "dup-initializers-ir3": (_model([helper.make_node("Add", ["x", "w"], ["y"], name="add")],
                                    inputs=("x", "w"), inits=[_w(), _w()], ir=3),
                             "defined twice", None),
    "dup-producers": (_model([_relu("x", "t", "r1"), _relu("x", "t", "r2"), _relu("t", "y", "r3")]),
                      "defined twice", "r2"),
    "dup-input-output": (_model([_relu("x", "x", "r1"), _relu("x", "y", "r3")]),
                         "defined twice", "r1"),
    "empty-names": (_model([helper.make_node("Relu", [""], [""], name="r6"), _relu("x", "y", "r3")]),
                    "is required, but it is empty", "r6"),
    "undefined-input": (_model([_relu("nope", "y", "r1")]), "'nope'", "r1"),
    "undefined-output": (_model([_relu("x", "t", "r1")]), "output 'y'", None),
}


@pytest.fixture(params=sorted(CASES))
def case(request, tmp_path):
    m, reason, node = CASES[request.param]
    path = tmp_path / (request.param + ".onnx")
    path.write_bytes(m.SerializeToString())
    return request.param, path, reason, node


def test_check_and_convert_name_the_reason_and_exit_1(case, tmp_path):
    name, path, reason, node = case
    out = tmp_path / "out.onnx"
    for args in (["check", path], ["convert", path, out, "--opset", "17"]):
        r = subprocess.run([TOOL, *map(str, args)], capture_output=True, text=True)
        text = r.stdout + r.stderr
        assert r.returncode == 1, (name, args[0], r.returncode, text)
        assert reason in text, (name, args[0], text)
        if node:
            assert node in text, (name, args[0], text)
        assert "bug in the symbolic" not in text and "no lowered value" not in text, text
        assert "no opset from" not in text, text  # a defect, not a matter of opsets
    assert not out.exists()


def test_legalize_says_invalid_model_with_the_reason_in_the_diagnostics(case):
    import onnxlegal
    name, path, reason, node = case
    with pytest.raises(onnxlegal.Error) as e:
        onnxlegal.convert(str(path), 17)
    assert e.value.status_name == "OLG_ERR_INVALID_MODEL", (name, str(e.value))
    diags = [d for d in e.value.diagnostics if d["severity"] == "error"]
    assert diags and all(d["code"] == "OLG-LOWER-GRAPH" for d in diags), (name, diags)
    assert any(reason in d["message"] for d in diags), (name, diags)
    if node:
        assert any(node in d.get("text", "") + d["message"] + (d.get("node") or "")
                   for d in diags), (name, diags)


def test_the_cases_are_fuzz_regressions():
    """The fuzz target replays them (make fuzz-replay); the committed bytes are these models."""
    for name, (m, _, _) in CASES.items():
        path = os.path.join(REGRESSIONS, "refusal-" + name)
        assert os.path.exists(path), path
        with open(path, "rb") as f:
            got = onnx.load_from_string(f.read())
        assert [n.name for n in got.graph.node] == [n.name for n in m.graph.node], name




# ---- one nesting limit for every stage (issue 30, item 5) ---------------------------------------

LIMIT = 50  # OLG_MAX_SUBGRAPH_DEPTH (include/onnxlegal/graph.h)


def _nested_if(depth):
    """If nested `depth` deep: each then_branch holds the next If, the innermost then_branch and
    every else_branch pass the outer x through."""
    def passing(name):
        return helper.make_graph([helper.make_node("Identity", ["x"], [name + "_y"], name=name)],
                                 name, [], [_vi(name + "_y")])
    inner = passing("then_%d" % depth)
    for k in range(depth - 1, 0, -1):
        node = helper.make_node("If", ["c"], ["y_%d" % k], name="if_%d" % k,
                                then_branch=inner, else_branch=passing("else_%d" % (k + 1)))
        inner = helper.make_graph([node], "then_%d" % k, [], [_vi("y_%d" % k)])
    top = helper.make_node("If", ["c"], ["y"], name="if_0", then_branch=inner,
                           else_branch=passing("else_1"))
    c = helper.make_tensor_value_info("c", TensorProto.BOOL, [])
    g = helper.make_graph([top], "main", [c, _vi("x")], [_vi("y")])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    return m


@pytest.mark.parametrize("depth", [LIMIT, LIMIT + 1, 100])
def test_every_stage_takes_or_refuses_the_same_nesting(depth, tmp_path):
    """At the limit every command succeeds and the converted model reads back; past it every
    command refuses, exit 1, with the same words naming the limit."""
    path = tmp_path / "nested.onnx"
    path.write_bytes(_nested_if(depth).SerializeToString())
    out = tmp_path / "out.onnx"
    for args in (["check", path], ["convert", path, out, "--opset", "17"], ["print", path],
                 ["copy", path, tmp_path / "copy.onnx"], ["info", path]):
        r = subprocess.run([TOOL, *map(str, args)], capture_output=True, text=True)
        if depth <= LIMIT:
            assert r.returncode == 0, (args[0], r.stdout[-500:], r.stderr)
        else:
            assert r.returncode == 1, (args[0], r.returncode, r.stderr)
            assert "nested more than %d graphs deep" % LIMIT in r.stdout + r.stderr, (args[0], r.stderr)
    if depth <= LIMIT:
        r = subprocess.run([TOOL, "check", str(out)], capture_output=True, text=True)
        assert r.returncode == 0, r.stdout + r.stderr


def test_nesting_cases_are_fuzz_regressions():
    for depth in (LIMIT, LIMIT + 1):
        path = os.path.join(REGRESSIONS, "refusal-nested-if-%d" % depth)
        assert os.path.exists(path), path


if __name__ == "__main__":  # writes the fuzz regressions
    for name, (m, _, _) in CASES.items():
        with open(os.path.join(REGRESSIONS, "refusal-" + name), "wb") as f:
            f.write(m.SerializeToString())
    for depth in (LIMIT, LIMIT + 1):
        with open(os.path.join(REGRESSIONS, "refusal-nested-if-%d" % depth), "wb") as f:
            f.write(_nested_if(depth).SerializeToString())
