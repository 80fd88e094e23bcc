"""What `onnxlegal check` lets pass with a warning, `onnxlegal convert` fixes (issue 21 (a)):

- a negative axis at an opset below the one that allowed it (11) -- which onnx's checker and
  ONNX Runtime accept, and `check` calls OLG-CHECK-AXIS-NEGATIVE (Flatten's they refuse, and
  `check` too: OLG-CHECK-ATTR-VALUE; convert repairs it all the same) -- converts to a model valid at
  the target: kept where the target allows negative axes (11+), counted from the front with the
  known rank where it does not (7-10); ONNX Runtime gives the source's numbers;
- an ir_version older than the opset's (OLG-CHECK-IR-OLD): convert writes the target's IR.

Every converted model passes `check --strict` and onnx's full checker."""
import json
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
TESTDATA = "/usr/share/libonnx-testdata/data"

onnx = pytest.importorskip("onnx")
from onnx import TensorProto as T, helper, numpy_helper  # noqa: E402

pytestmark = pytest.mark.skipif(not os.path.exists(TOOL), reason="%s is not built" % TOOL)

X = [2, 3, 4]
TARGETS = (7, 9, 10, 11, 13)


def _vi(name, shape, elem=T.FLOAT):
    return helper.make_tensor_value_info(name, elem, shape)


# name: (source opset, nodes, inputs, outputs, initializers); each a negative axis or axes
CASES = {
    "Softmax": (6, [helper.make_node("Softmax", ["x"], ["y"], axis=-1)], [_vi("x", X)], [_vi("y", X)], []),
    "LogSoftmax": (6, [helper.make_node("LogSoftmax", ["x"], ["y"], axis=-2)], [_vi("x", X)], [_vi("y", X)], []),
    "Hardmax": (6, [helper.make_node("Hardmax", ["x"], ["y"], axis=-1)], [_vi("x", X)], [_vi("y", X)], []),
    "Split": (6, [helper.make_node("Split", ["x"], ["a", "b"], axis=-3)], [_vi("x", X)],
              [_vi("a", [1, 3, 4]), _vi("b", [1, 3, 4])], []),
    "Concat": (6, [helper.make_node("Concat", ["x", "x"], ["y"], axis=-1)], [_vi("x", X)], [_vi("y", [2, 3, 8])], []),
    "Flatten": (6, [helper.make_node("Flatten", ["x"], ["y"], axis=-1)], [_vi("x", X)], [_vi("y", [6, 4])], []),
    "ArgMax": (6, [helper.make_node("ArgMax", ["x"], ["y"], axis=-1)], [_vi("x", X)],
               [_vi("y", [2, 3, 1], T.INT64)], []),
    "ArgMin": (6, [helper.make_node("ArgMin", ["x"], ["y"], axis=-2, keepdims=0)], [_vi("x", X)],
               [_vi("y", [2, 4], T.INT64)], []),
    "ReduceSum": (6, [helper.make_node("ReduceSum", ["x"], ["y"], axes=[-1, 0])], [_vi("x", X)],
                  [_vi("y", [1, 3, 1])], []),
    "ReduceMean": (6, [helper.make_node("ReduceMean", ["x"], ["y"], axes=[-2], keepdims=0)], [_vi("x", X)],
                   [_vi("y", [2, 4])], []),
    "Squeeze": (6, [helper.make_node("Squeeze", ["x"], ["y"], axes=[-2])], [_vi("x", [2, 1, 4])], [_vi("y", [2, 4])], []),
    "Unsqueeze": (6, [helper.make_node("Unsqueeze", ["x"], ["y"], axes=[-1])], [_vi("x", X)],
                  [_vi("y", [2, 3, 4, 1])], []),
    "Slice": (6, [helper.make_node("Slice", ["x"], ["y"], axes=[-1], starts=[1], ends=[3])], [_vi("x", X)],
              [_vi("y", [2, 3, 2])], []),
    "Compress": (9, [helper.make_node("Compress", ["x", "c"], ["y"], axis=-1)], [_vi("x", X)], [_vi("y", [2, 3, 2])],
                 [numpy_helper.from_array(np.array([1, 0, 1, 0], bool), "c")]),
}


def _model(opset, nodes, inputs, outputs, inits):
    g = helper.make_graph(nodes, "g", inputs, outputs, inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 3 if opset < 9 else 4
    return m


def _tool(*args):
    return subprocess.run([TOOL, *map(str, args)], capture_output=True, text=True)


def _check_json(path, *flags):
    r = _tool("check", "--json", *flags, path)
    return r.returncode, json.loads(r.stdout)


def _axes_of(m):
    out = []
    for n in m.graph.node:
        for a in n.attribute:
            if a.name in ("axis", "axes"):
                out.extend([a.i] if a.type == onnx.AttributeProto.INT else list(a.ints))
    return out


@pytest.fixture(scope="module")
def converted(tmp_path_factory):
    """Every case written, checked (a warning, no error), converted to every target."""
    d = tmp_path_factory.mktemp("negaxis")
    out = {}
    for name, (opset, nodes, ins, outs, inits) in CASES.items():
        src = d / ("%s.onnx" % name)
        onnx.save(_model(opset, nodes, ins, outs, inits), str(src))
        for t in TARGETS:
            if t < opset:
                continue
            dst = d / ("%s_%d.onnx" % (name, t))
            r = _tool("convert", src, dst, "--opset", t)
            out[name, t] = (src, dst, r)
    return out


def test_the_sources_pass_check_with_the_warning_and_fail_strict(converted):
    for name in CASES:
        src = next(v[0] for k, v in converted.items() if k[0] == name)
        rc, diags = _check_json(str(src))
        if name == "Flatten":  # ONNX Runtime refuses it too ("Invalid value(-1) for attribute 'axis'")
            assert rc == 1 and [(d["code"], d["op"], d["opset"]) for d in diags if d["severity"] == "error"] == \
                [("OLG-CHECK-ATTR-VALUE", "Flatten", 6)], diags
            continue
        assert rc == 0 and not [d for d in diags if d["severity"] == "error"], (name, diags)
        warned = [d for d in diags if d["code"] == "OLG-CHECK-AXIS-NEGATIVE"]
        assert warned and warned[0]["severity"] == "warning" and warned[0]["op"] == name, (name, diags)
        assert "needs opset >= 11 at this op (%s-11); write it as rank-" % name in warned[0]["message"]
        rc, diags = _check_json(str(src), "--strict")
        assert rc == 1 and {d["code"] for d in diags if d["severity"] == "error"} == {"OLG-CHECK-AXIS-NEGATIVE"}


@pytest.mark.parametrize("target", TARGETS)
def test_converted_models_are_valid_at_the_target(converted, target):
    for (name, t), (src, dst, r) in sorted(converted.items()):
        if t != target:
            continue
        assert r.returncode == 0, (name, t, r.stderr)
        rc, diags = _check_json(str(dst), "--strict")
        assert rc == 0 and not diags, (name, t, diags)
        m = onnx.load(str(dst))
        onnx.checker.check_model(m, full_check=True)
        assert m.opset_import[0].version == t and m.ir_version >= {7: 3, 9: 4, 10: 5, 11: 6, 13: 7}[t]
        if t < 11:  # counted from the front where the target takes no negative axis
            assert all(a >= 0 for a in _axes_of(m)), (name, t, _axes_of(m))


def test_converted_models_give_the_source_numbers_in_ort(converted):
    ortrun = pytest.importorskip("ortrun")
    rng = np.random.default_rng(21)
    cases, keys = [], []
    feeds = {}
    for (name, t), (src, dst, r) in sorted(converted.items()):
        if name == "Flatten":  # the source does not run (ORT refuses Flatten-1 with axis -1)
            continue
        if name not in feeds:
            shape = [2, 1, 4] if name == "Squeeze" else X
            feeds[name] = {"x": rng.standard_normal(shape).astype(np.float32)}
            cases.append((str(src), feeds[name]))
            keys.append((name, "src"))
        cases.append((str(dst), feeds[name]))
        keys.append((name, t))
    try:
        results = ortrun.run_batch(cases)
    except ortrun.OrtRunError as e:
        pytest.skip(str(e))
    by = dict(zip(keys, results))
    for (name, t), res in by.items():
        assert not isinstance(res, str), (name, t, res)
        if t == "src":
            continue
        want = by[name, "src"]
        for k in want:
            np.testing.assert_allclose(res[k], want[k], rtol=1e-6, atol=1e-6, err_msg="%s at %s" % (name, t))


def test_unknown_rank_refused_below_11_naming_11_kept_from_11(tmp_path):
    # Reshape to a shape input of unknown length: the rank of r is not known at conversion
    g = helper.make_graph([helper.make_node("Reshape", ["x", "s"], ["r"]),
                           helper.make_node("LogSoftmax", ["r"], ["y"], axis=-1)], "g",
                          [_vi("x", [6]), _vi("s", ["n"], T.INT64)], [_vi("y", None)])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 6)])
    m.ir_version = 3
    src = tmp_path / "norank.onnx"
    onnx.save(m, str(src))
    r = _tool("convert", src, tmp_path / "o9.onnx", "--opset", 9)
    assert r.returncode == 1 and "LogSoftmax" in r.stderr and "lowest opset that works: 11" in r.stderr, r.stderr
    r = _tool("convert", src, tmp_path / "o11.onnx", "--opset", 11)
    assert r.returncode == 0, r.stderr
    out = onnx.load(str(tmp_path / "o11.onnx"))
    assert _axes_of(out) == [-1] and out.ir_version == 6


TESTDATA_FIXED = [
    ("pytorch-converted/test_GLU", "OLG-CHECK-AXIS-NEGATIVE"),
    ("pytorch-converted/test_log_softmax_lastdim", "OLG-CHECK-AXIS-NEGATIVE"),
    ("node/test_depthtospace_crd_mode", "OLG-CHECK-IR-OLD"),
    ("node/test_depthtospace_dcr_mode", "OLG-CHECK-IR-OLD"),
    ("node/test_resize_downsample_sizes_nearest_tf_half_pixel_for_nn", "OLG-CHECK-IR-OLD"),
    ("node/test_unsqueeze_axis_3", "OLG-CHECK-IR-OLD"),
]


@pytest.mark.parametrize("name,code", TESTDATA_FIXED, ids=[n for n, _ in TESTDATA_FIXED])
def test_testdata_models_converted_pass_strict(name, code, tmp_path):
    src = os.path.join(TESTDATA, name, "model.onnx")
    if not os.path.exists(src):
        pytest.skip("ONNX's test data (libonnx-testdata) is not installed")
    rc, diags = _check_json(src, "--strict")
    assert rc == 1 and [d["code"] for d in diags if d["severity"] == "error"] == [code]
    own = onnx.load(src).opset_import[0].version
    targets = (7, 9, 10, 11, 13) if code == "OLG-CHECK-AXIS-NEGATIVE" else (own, 13)
    for t in targets:
        dst = tmp_path / ("%d.onnx" % t)
        r = _tool("convert", src, dst, "--opset", t)
        assert r.returncode == 0, (t, r.stderr)
        rc, diags = _check_json(str(dst), "--strict")
        assert rc == 0 and not [d for d in diags if d["severity"] != "note"], (t, diags)
        onnx.checker.check_model(onnx.load(str(dst)), full_check=True)
