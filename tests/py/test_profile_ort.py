"""The `ort` profile (ONNX Runtime 1.30, CPU; docs/profiles.md), checked against the runtime
itself: every ONNX backend node test that ORT runs correctly at its own opset, converted with
profile="ort" to every opset 7..26 where it converts at all, loads and runs in ORT and matches
the test's stored outputs -- no "Could not find an implementation", no load failure, no wrong
number. The cases test_convert_corpus.py lists in ORT_LACKS (converted without a profile) are
rewritten (Where on int8 at 9/11 runs in int32) or refused naming the rule (Max/Min-6 on double,
RoiAlign-22).

The conversions to opsets where every op of the converted model has the same version and the
model is otherwise the same (it differs only in its opset_import) run once: ORT picks its
kernels by op version, so the run would repeat the same one.

Also: `onnxlegal check --profile ort` reports the violation of a model converted without the
profile, naming the rule, and none once converted with it; `convert --report` says which rule
fired on which node.
"""
import collections
import json
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
for p in ("bindings/python", "tests/ort", "tests/py", "tools"):
    sys.path.insert(0, os.path.join(ROOT, p))
from nodecases import NODE, TESTS  # noqa: E402
TARGETS = range(7, 27)
CLI = os.path.join(ROOT, "build", "bin", "onnxlegal")

pytestmark = pytest.mark.skipif(not TESTS, reason="libonnx-testdata is not installed")

_OP = re.compile(r'= ([A-Z][A-Za-z0-9]*) ?[<(]')


def _versions():
    """op -> sorted since-versions of the default domain, from the library's schema table
    (lib/schemas_gen.c, generated from the ONNX changelog, which a clone need not have beside
    it)."""
    out = collections.defaultdict(set)
    with open(os.path.join(ROOT, "lib", "schemas_gen.c"), encoding="utf-8") as f:
        for dom, op, since in re.findall(r'^  \{ "([^"]*)", "(\w+)", (\d+), -?\d+, -?\d+, -?\d+', f.read(), re.M):
            if dom == "":
                out[op].add(int(since))
    assert len(out) > 150, "lib/schemas_gen.c: no schema rows found"
    return {k: sorted(v) for k, v in out.items()}


def _since(versions, op, opset):
    return max((v for v in versions.get(op, ()) if v <= opset), default=0)


def _signature(model, opset, versions):
    """What ORT's run depends on: the model without its opset line, and each op's version."""
    text = "\n".join(l for l in model.to_text().splitlines() if "opset_import" not in l)
    ops = sorted(set(_OP.findall(text)))
    return text, tuple((op, _since(versions, op, opset)) for op in ops)


_STATE = {}


def _run_all():
    if _STATE:
        return _STATE["v"]
    import onnxlegal
    from ortrun import run_batch
    from nodecases import load_case as _load_case, matches as _matches
    versions = _versions()
    batch, meta, cases, refused = [], [], {}, collections.defaultdict(dict)
    runs = {}  # signature -> index into batch
    for path in TESTS:
        name = os.path.basename(os.path.dirname(path))
        case = _load_case(path)
        if case is None:
            continue
        cases[name] = case
        feeds = case[1]
        with open(path, "rb") as f:
            batch.append((f.read(), feeds))
        meta.append((name, None, len(batch) - 1))
        src = onnxlegal.Model.read(path)
        for target in TARGETS:
            try:
                out = onnxlegal.convert(src, target, profile="ort")
            except onnxlegal.Error as e:
                refused[target][name] = [d.get("code") for d in getattr(e, "diagnostics", [])] or [str(e)]
                continue
            sig = (name,) + _signature(out, target, versions)
            if sig not in runs:
                runs[sig] = len(batch)
                batch.append((out.to_bytes(), feeds))
            meta.append((name, target, runs[sig]))
    ran = run_batch(batch)
    results = [ran[k] for (_, _, k) in meta]
    _STATE["v"] = (cases, meta, results, refused, _matches)
    return _STATE["v"]


def test_every_conversion_with_profile_ort_runs_in_ort():
    cases, meta, results, refused, matches = _run_all()
    runnable = {n for (n, t, _), r in zip(meta, results) if t is None and not isinstance(r, str)
                and matches(r, cases[n][2], cases[n][3])}
    assert len(runnable) > 800, len(runnable)
    converted, seen, failures = collections.Counter(), set(), []
    for (name, target, k), r in zip(meta, results):
        if target is None or name not in runnable:
            continue
        converted[target] += 1
        if k in seen:
            continue  # the run of the same model at another opset, with the same op versions
        seen.add(k)
        if isinstance(r, str):
            failures.append("%s ->%d: %s" % (name, target, r.strip()[:240]))
        elif not matches(r, cases[name][2], cases[name][3]):
            failures.append("%s %d->%d: outputs differ" % (name, cases[name][0], target))
    print("\nprofile ort: %d runnable node tests; converted per opset: %s; %d distinct ORT runs"
          % (len(runnable), " ".join("%d:%d" % (t, converted[t]) for t in TARGETS), len(seen)))
    assert not failures, "\n".join(failures[:40])
    # the profile refuses only what it must: most of the corpus converts at 13 and above
    for target in (13, 17, 21, 26):
        assert converted[target] >= 0.95 * len(runnable), (target, converted[target])


def test_ort_lacks_cases_vanish():
    """What test_convert_corpus's ORT_LACKS lists is fixed or refused with the rule named."""
    cases, meta, results, refused, matches = _run_all()
    by = {(n, t): r for (n, t, _), r in zip(meta, results) if t is not None}
    # Where on int8 at 9 and 11 (Clip of int8 lowers to Where there): rewritten, runs
    clips = [n for n in cases if n.startswith("test_clip") and "int8" in n]
    assert clips, "no int8 Clip node test"
    for n in clips:
        for target in (9, 11):
            assert (n, target) in by, (n, target, refused[target].get(n))
    # Max/Min on float64 at 7: refused by ort/kernel-type (double->float is not exact)
    for n in ("test_max_float64", "test_min_float64"):
        if n in cases:
            assert refused[7].get(n) and "OLG-PROFILE-REFUSED" in refused[7][n], (n, refused[7].get(n))
    # RoiAlign at 22+: no kernel
    for n in [n for n in cases if n.startswith("test_roialign")]:
        for target in (22, 26):
            assert refused[target].get(n) and "OLG-PROFILE-REFUSED" in refused[target][n], (n, target)


def _where_int8(path, opset):
    import onnx
    from onnx import TensorProto as T, helper
    g = helper.make_graph(
        [helper.make_node("Where", ["c", "x", "y"], ["z"], name="w")], "g",
        [helper.make_tensor_value_info("c", T.BOOL, [3]), helper.make_tensor_value_info("x", T.INT8, [3]),
         helper.make_tensor_value_info("y", T.INT8, [3])],
        [helper.make_tensor_value_info("z", T.INT8, [3])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = 4
    onnx.save(m, path)


def test_check_and_convert_report_name_the_rule(tmp_path):
    src, out, rep = tmp_path / "w.onnx", tmp_path / "w_ort.onnx", tmp_path / "r.json"
    _where_int8(str(src), 9)
    r = subprocess.run([CLI, "check", str(src), "--profile", "ort"], capture_output=True, text=True)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "OLG-PROFILE-VIOLATION" in r.stdout and "ort/kernel-type" in r.stdout and "'w'" in r.stdout
    assert "int8" in r.stdout
    r = subprocess.run([CLI, "convert", str(src), str(out), "--opset", "9", "--profile", "ort",
                        "--report", str(rep)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    report = json.loads(rep.read_text())
    assert [(x["node"], x["rule"], x["action"]) for x in report["profile_rules"]] == [("w", "ort/kernel-type", "fixed")]
    r = subprocess.run([CLI, "check", str(out), "--profile", "ort"], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout
    # the numbers: int8 extremes survive the round trip through int32
    import numpy as np
    from ortrun import run_batch
    feeds = {"c": np.array([True, False, True]), "x": np.array([-128, 5, 127], np.int8),
             "y": np.array([1, -2, 3], np.int8)}
    got = run_batch([(out.read_bytes(), feeds)])[0]
    assert not isinstance(got, str), got
    assert got["z"].dtype == np.int8 and got["z"].tolist() == [-128, -2, 127]
    # an unknown profile lists the known ones
    r = subprocess.run([CLI, "check", str(src), "--profile", "jetson"], capture_output=True, text=True)
    assert r.returncode == 2 and "ort" in r.stderr and "tensorrt" in r.stderr


def test_max_double_at_7_is_refused_naming_the_rule(tmp_path):
    import onnxlegal
    path = os.path.join(NODE, "test_max_float64", "model.onnx")
    if not os.path.exists(path):
        pytest.skip("no test_max_float64")
    with pytest.raises(onnxlegal.Error) as e:
        onnxlegal.convert(path, 7, profile="ort")
    assert "ort/kernel-type" in str(e.value) and "double" in str(e.value)
    assert "no exact rewrite" in str(e.value)  # says why: no exact cast
    # and where it works: Max-8 has double kernels
    assert [d["min_opset"] for d in e.value.diagnostics if d["code"] == "OLG-PROFILE-REFUSED"] == [8]
    onnxlegal.convert(path, 8, profile="ort")  # Max-8 has double kernels


def test_global_lp_pool_22_decomposed_matches_ort_at_21(tmp_path):
    """GlobalLpPool-22 has no kernel in ORT 1.30: with profile ort it becomes the reduction it
    is; its numbers are ORT's GlobalLpPool-2 numbers of the same model at opset 21."""
    import numpy as np
    import onnx
    import onnxlegal
    from onnx import TensorProto as T, helper
    from ortrun import run_batch
    x = np.random.RandomState(0).randn(2, 3, 4, 5).astype(np.float32)
    batch = []
    for p in (1, 2, 3):
        g = helper.make_graph([helper.make_node("GlobalLpPool", ["x"], ["y"], name="g", p=p)], "g",
                              [helper.make_tensor_value_info("x", T.FLOAT, [2, 3, 4, 5])],
                              [helper.make_tensor_value_info("y", T.FLOAT, [2, 3, 1, 1])])
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 21)])
        m.ir_version = 10
        path = str(tmp_path / ("glp%d.onnx" % p))
        onnx.save(m, path)
        batch.append((m.SerializeToString(), {"x": x}))
        batch.append((onnxlegal.convert(path, 22).to_bytes(), {"x": x}))  # no profile: no kernel
        for target in (22, 26):
            report = {}
            out = onnxlegal.convert(path, target, profile="ort", report=report)
            assert [r["rule"] for r in report["profile_rules"]] == ["ort/no-kernel"]
            batch.append((out.to_bytes(), {"x": x}))
    res = run_batch(batch)
    for k in range(3):
        want, plain, got22, got26 = res[4 * k:4 * k + 4]
        assert not isinstance(want, str), want
        assert isinstance(plain, str) and "GlobalLpPool(22)" in plain, plain
        for got in (got22, got26):
            assert not isinstance(got, str), got
            assert np.allclose(got["y"], want["y"], rtol=1e-5, atol=1e-6)
