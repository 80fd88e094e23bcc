"""Target profiles from Python (onnxlegal.profiles): the built-in ones by name, the check of a
model, caller-defined profiles (rules, a base, a rewrite written in Python) through convert,
with ONNX Runtime's numbers for the rewritten model."""
import os
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
for p in ("bindings/python", "tests/ort"):
    sys.path.insert(0, os.path.join(ROOT, p))

import onnxlegal  # noqa: E402
from onnxlegal.profiles import Profile, builtin_names, check  # noqa: E402


def _model(path, op, dtype, opset, cond=False):
    import onnx
    from onnx import TensorProto as T, helper
    ins = (["c"] if cond else []) + ["x", "y"]
    vis = ([helper.make_tensor_value_info("c", T.BOOL, [4])] if cond else []) + [
        helper.make_tensor_value_info("x", dtype, [4]), helper.make_tensor_value_info("y", dtype, [4])]
    g = helper.make_graph([helper.make_node(op, ins, ["z"], name="n")], "g", vis,
                          [helper.make_tensor_value_info("z", dtype, [4])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 7
    onnx.save(m, path)
    return onnxlegal.Model.read(path)


def test_builtin_profiles_and_check(tmp_path):
    from onnx import TensorProto as T
    names = builtin_names()
    assert "ort" in names and "tensorrt" in names
    from onnxlegal._convert import PROFILES
    assert set(names) | {"none"} == set(PROFILES)
    m = _model(str(tmp_path / "w.onnx"), "Where", T.INT8, 9, cond=True)
    v = check(m, "ort")
    assert len(v) == 1 and v[0]["node"] == "n" and "ort/kernel-type" in v[0]["message"]
    assert check(onnxlegal.convert(m, 9, profile="ort"), "ort") == []
    with pytest.raises(ValueError, match="known profiles are"):
        check(m, "jetson")


def test_caller_profile_with_python_rewrite(tmp_path):
    from onnx import TensorProto as T
    from ortrun import run_batch
    m = _model(str(tmp_path / "a.onnx"), "Add", T.INT8, 14)
    p = Profile("myrt")
    p.add_type_rule("myrt/add-types", "Add", 7, constraint="T", types=["float", "int32"])
    v = p.check(m)
    assert [(d["node"], d["code"]) for d in v] == [("n", "OLG-PROFILE-VIOLATION")]
    assert "myrt/add-types" in v[0]["message"] and "int8" in v[0]["message"]
    with pytest.raises(onnxlegal.Error, match="myrt/add-types"):
        onnxlegal.convert(m, 14, profile=p)  # no rewrite: refused, naming the rule

    calls = []

    @p.rewrite("myrt/add-types")
    def add_in_int32(cx, node):
        op, (a, b), (old,) = cx.target_node(node)
        calls.append(op)
        s = cx.emit("Add", [cx.emit("Cast", [a], to=6), cx.emit("Cast", [b], to=6)])
        cx.replace_value(old, cx.emit("Cast", [s], to=3))
        return True

    report = {}
    out = onnxlegal.convert(m, 14, profile=p, report=report)
    assert calls == ["Add"]
    assert [(r["node"], r["rule"], r["action"]) for r in report["profile_rules"]] == [
        ("n", "myrt/add-types", "fixed")]
    assert p.check(out) == []
    x = np.array([127, -128, 5, 100], np.int8)
    y = np.array([1, -1, -6, 100], np.int8)
    got = run_batch([(out.to_bytes(), {"x": x, "y": y})])[0]
    assert not isinstance(got, str), got
    assert got["z"].dtype == np.int8
    assert got["z"].tolist() == (x.astype(np.int32) + y).astype(np.int8).tolist()  # wraps

    # a rewrite that declines: refused, naming the rule
    p.set_rewrite("myrt/add-types", lambda cx, node: False)
    with pytest.raises(onnxlegal.Error, match="myrt/add-types"):
        onnxlegal.convert(m, 14, profile=p)
    p.close()


def test_caller_profile_rules_and_base(tmp_path):
    from onnx import TensorProto as T
    w = _model(str(tmp_path / "w.onnx"), "Where", T.INT8, 9, cond=True)
    a = _model(str(tmp_path / "a.onnx"), "Add", T.FLOAT, 13)
    with Profile("mine", base="ort") as q:
        q.add_op_rule("mine/no-add", "Add", 7)
        q.add_rank_rule("mine/rank", "Add", 7, slot=0, min_rank=2, max_rank=4)
        assert [d["message"].split(":")[0] for d in q.check(a)] == ["rule mine/no-add", "rule mine/rank"]
        assert ["ort/kernel-type" in d["message"] for d in q.check(w)] == [True]
        # ort's rewrite applies through the base
        out = onnxlegal.convert(w, 9, profile=q)
        assert check(out, "ort") == []
        with pytest.raises(onnxlegal.Error, match="mine/no-add"):
            onnxlegal.convert(a, 13, profile=q)
    with pytest.raises(onnxlegal.Error):
        Profile("ort")  # a built-in's name
    p = Profile("x")
    with pytest.raises(onnxlegal.Error):
        p.set_rewrite("x/absent", lambda cx, node: True)
    with pytest.raises((ValueError, TypeError)):
        p.add_type_rule("x/t", "Add", 7, constraint="T", types=["nonsense"])
