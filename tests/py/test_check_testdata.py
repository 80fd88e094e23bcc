"""`onnxlegal check` on every model of libonnx-testdata (node, pytorch-converted,
pytorch-operator, simple, real: 1072 models), against python3-onnx 1.12's full checker: every
model onnx accepts passes without an error (--fast, the default full mode, and the Python
binding's Model.check(full=True)); the six that break a rule runtimes do not enforce (LENIENT:
an IR older than the opset's, a negative axis before opset 11) pass with a warning naming the
fix, and are rejected under --strict for that rule alone; the models onnx rejects (three integer
Constants before opset 9, where Constant's T holds float types only) are rejected too, for that
reason."""
import concurrent.futures
import glob
import json
import os
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("ONNXLEGAL_BUILD", os.path.join(ROOT, "build"))
TOOL = os.path.join(BUILD, "bin", "onnxlegal")
TESTDATA = "/usr/share/libonnx-testdata/data"
MODELS = sorted(glob.glob(os.path.join(TESTDATA, "*", "*", "model.onnx")))

# What python3-onnx 1.12's full checker rejects in the test data, and why.
ONNX_REJECTS = {
    "pytorch-converted/test_PixelShuffle": "int64 Constant at opset 6 (Constant-1 allows float types)",
    "pytorch-operator/test_operator_repeat": "int64 Constant at opset 6 (Constant-1 allows float types)",
    "pytorch-operator/test_operator_repeat_dim_overflow": "int64 Constant at opset 6 (Constant-1 allows float types)",
}

pytestmark = [
    pytest.mark.skipif(not MODELS, reason="ONNX's test data (libonnx-testdata) is not installed"),
    pytest.mark.skipif(not os.path.exists(TOOL), reason="%s is not built (make tool)" % TOOL),
]

# What python3-onnx's checker (and ONNX Runtime) accepts although the spec does not: a warning,
# with the fix in its message; an error under --strict (olg_check_options.strict).
LENIENT = {
    # an IR older than the one released with the opset (IR 6 came with opset 11; IR.md)
    "node/test_depthtospace_crd_mode": ("OLG-CHECK-IR-OLD", "set ir_version to 6"),
    "node/test_depthtospace_dcr_mode": ("OLG-CHECK-IR-OLD", "set ir_version to 6"),
    "node/test_resize_downsample_sizes_nearest_tf_half_pixel_for_nn": ("OLG-CHECK-IR-OLD", "set ir_version to 6"),
    "node/test_unsqueeze_axis_3": ("OLG-CHECK-IR-OLD", "set ir_version to 6"),
    # a negative axis before the version-11 redefinitions that allow one (Changelog.md)
    "pytorch-converted/test_GLU": ("OLG-CHECK-AXIS-NEGATIVE",
                                   "the axis -1 needs opset >= 11 at this op (Split-11); write it as rank-1"),
    "pytorch-converted/test_log_softmax_lastdim": (
        "OLG-CHECK-AXIS-NEGATIVE", "the axis -1 needs opset >= 11 at this op (LogSoftmax-11); write it as rank-1"),
}


def short(path):
    return "/".join(path.split("/")[-3:-1])


def check(path, *flags):
    r = subprocess.run([TOOL, "check", "--json", *flags, path], capture_output=True, text=True)
    try:
        diags = json.loads(r.stdout)
    except ValueError:
        diags = None
    return r.returncode, diags, r.stderr


def check_all(*flags):
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as ex:
        return dict(zip(MODELS, ex.map(lambda p: check(p, *flags), MODELS)))


@pytest.fixture(scope="module")
def onnx_verdicts():
    onnx = pytest.importorskip("onnx")
    out = {}
    for p in MODELS:
        try:
            onnx.checker.check_model(onnx.load(p), full_check=True)
            out[p] = None
        except Exception as e:  # the checker's ValidationError and inference errors
            out[p] = str(e).splitlines()[0]
    return out


def test_the_tool_has_check():
    r = subprocess.run([TOOL, "check", "--help"], capture_output=True, text=True)
    assert r.returncode == 0, "onnxlegal has no 'check' subcommand (tools/onnxlegal/main.c)"
    assert r.stdout.startswith("usage: onnxlegal check MODEL")


def test_onnx_rejects_only_the_known_three(onnx_verdicts):
    rejected = {short(p): why for p, why in onnx_verdicts.items() if why}
    assert set(rejected) == set(ONNX_REJECTS), rejected
    accepted = sum(1 for w in onnx_verdicts.values() if w is None)
    print("python3-onnx's full checker accepts %d of %d test-data models" % (accepted, len(MODELS)))


@pytest.mark.parametrize("flags", [("--fast",), ()], ids=["fast", "full"])
def test_check_agrees_with_onnx(onnx_verdicts, flags):
    results = check_all(*flags)
    wrong = []
    passed = 0
    for p, (rc, diags, err) in results.items():
        want_valid = onnx_verdicts[p] is None
        if diags is None:
            wrong.append((short(p), rc, "no JSON: " + err[:200]))
            continue
        errors = [d for d in diags if d["severity"] == "error"]
        if short(p) in LENIENT:
            code, fix = LENIENT[short(p)]
            warned = [d for d in diags if d["severity"] == "warning" and d["code"] == code]
            if rc != 0 or errors or not warned or fix not in warned[0]["message"]:
                wrong.append((short(p), rc, errors[:3], warned))
        elif want_valid and (rc != 0 or errors):
            wrong.append((short(p), rc, errors[:3]))
        elif not want_valid:
            codes = {d["code"] for d in errors}
            if rc != 1 or "OLG-CHECK-TYPE-CONSTRAINT" not in codes or \
                    not any("Constant" in d["op"] and "allowed from Constant-9" in d["message"] for d in errors):
                wrong.append((short(p), rc, errors[:3]))
        if rc == 0:
            passed += 1
    print("onnxlegal check %s: %d of %d test-data models pass, %d rejected" %
          (" ".join(flags) or "(full)", passed, len(MODELS), len(MODELS) - passed))
    assert not wrong, wrong
    assert passed == len(MODELS) - len(ONNX_REJECTS)


def test_strict_rejects_the_lenient_six_for_their_rule_alone(onnx_verdicts):
    results = check_all("--fast", "--strict")
    rejected = {short(p): (rc, diags) for p, (rc, diags, _) in results.items() if rc != 0}
    assert set(rejected) == set(LENIENT) | set(ONNX_REJECTS), sorted(rejected)
    for name, (code, fix) in LENIENT.items():
        rc, diags = rejected[name]
        errors = [d for d in diags if d["severity"] == "error"]
        assert rc == 1 and [d["code"] for d in errors] == [code], (name, errors)
        assert fix in errors[0]["message"], errors[0]
        if code == "OLG-CHECK-AXIS-NEGATIVE":  # the node, its op and opset are named
            assert errors[0]["op"] in ("Split", "LogSoftmax") and errors[0]["opset"] == 6


def test_python_binding_full_check_accepts_every_valid_model(onnx_verdicts):
    """Model.check(full=True), in-process: no error on any model onnx accepts; the three int
    Constants before opset 9 stay errors (OLG-CHECK-TYPE-CONSTRAINT)."""
    import sys
    sys.path.insert(0, os.path.join(ROOT, "bindings", "python"))
    import onnxlegal
    wrong, checked = [], 0
    for p in MODELS:
        diags = onnxlegal.Model.read(p).check(full=True)
        codes = {d["code"] for d in diags.errors}
        checked += 1
        if onnx_verdicts[p] is None and codes:
            wrong.append((short(p), sorted(codes)))
        elif onnx_verdicts[p] is not None and codes != {"OLG-CHECK-TYPE-CONSTRAINT"}:
            wrong.append((short(p), sorted(codes)))
        if short(p) in LENIENT:
            strict = onnxlegal.Model.read(p).check(full=True, strict=True)
            if [d["code"] for d in strict.errors] != [LENIENT[short(p)][0]]:
                wrong.append((short(p), "strict", [d["code"] for d in strict.errors]))
    assert checked == len(MODELS)
    assert not wrong, wrong


def test_json_fields_and_text_output():
    bad = os.path.join(TESTDATA, "pytorch-operator", "test_operator_repeat", "model.onnx")
    rc, diags, _ = check(bad)
    assert rc == 1
    assert diags and set(diags[0]) == {"severity", "code", "node", "op", "domain", "opset", "message",
                                       "node_index", "output"}
    assert diags[0]["op"] == "Constant" and diags[0]["opset"] == 6 and diags[0]["domain"] == ""
    # an unnamed node is told apart by its place and its first output (issue 28, point 2)
    assert diags[0]["node"] == "" and diags[0]["node_index"] == 0 and diags[0]["output"] == "1"
    r = subprocess.run([TOOL, "check", bad], capture_output=True, text=True)
    assert r.returncode == 1
    assert "error OLG-CHECK-TYPE-CONSTRAINT: node #0 (Constant, output '1', opset 6): " in r.stdout
    assert r.stdout.rstrip().endswith("invalid (1 error)")
    good = os.path.join(TESTDATA, "node", "test_abs", "model.onnx")
    r = subprocess.run([TOOL, "check", good], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.strip().endswith(": valid")


def test_usage_and_io_errors(tmp_path):
    assert subprocess.run([TOOL, "check"], capture_output=True).returncode == 2
    assert subprocess.run([TOOL, "check", "--bogus", "x"], capture_output=True).returncode == 2
    assert subprocess.run([TOOL, "check", str(tmp_path / "missing.onnx")], capture_output=True).returncode == 2
    junk = tmp_path / "junk.onnx"
    junk.write_bytes(b"\xff\xff\xff\xff not a model")
    rc, diags, _ = check(str(junk))
    assert rc == 1 and diags[0]["code"] == "OLG-CHECK-PARSE"
