"""Every reproducer of ../shared/repro (models that crashed, hung or misled the tool; issue 13)
through `onnxlegal check`, `print`, `dot`, `copy` and `convert` (opsets 7 and 27), and through
the Python legalize at a low, a middle and a high opset: each ends in a clear error (exit 1, the node or initializer named, no
crash, no sanitizer report) or a correct result (a legalized model that olg_check accepts at its
target opset). Skipped with a message where ../shared is absent (a user's machine).

Set ONNXLEGAL_ASAN_TOOL to a tool built with -fsanitize=address,undefined (e.g. `make
BUILD=build/asan CFLAGS='-O1 -g -fsanitize=address,undefined' LDFLAGS=-fsanitize=address,undefined
build/asan/bin/onnxlegal`) to run the tool cases under the sanitizers too.

Legalize runs in a child process, so that a crash fails one case instead of the whole run."""
import glob
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("ONNXLEGAL_BUILD", os.path.join(ROOT, "build"))
TOOL = os.path.join(BUILD, "bin", "onnxlegal")
ASAN_TOOL = os.environ.get("ONNXLEGAL_ASAN_TOOL")
REPRO = os.path.join(os.path.dirname(ROOT), "shared", "repro")
FILES = sorted(glob.glob(os.path.join(REPRO, "*.onnx")))
OPSETS = (7, 13, 27)
# a hang is a failure: nothing here takes more than a second when it works
TIMEOUT = 120

pytestmark = [
    pytest.mark.skipif(not FILES, reason="%s is absent: the reproducers live beside the project "
                       "(../shared), not in it" % REPRO),
    pytest.mark.skipif(not os.path.exists(TOOL), reason="%s is not built (make tool)" % TOOL),
]

# What the reader refuses, and the place its message names. Every stage reads first, so every
# command and legalize must end with this error.
READER_REFUSES = {
    "attr_graph_without_g.onnx": "attribute 'body' of node 'r' (Relu) in graph 'g' has type GRAPH",
    "attr_sparse_without_sp.onnx": "attribute 'sp' of node 'r' (Relu) in graph 'g' has type SPARSE_TENSOR",
    "attr_string_without_s.onnx": "attribute 'mode' of node 'r' (Relu) in graph 'g' has type STRING",
    "attr_tensor_without_t.onnx": "attribute 't' of node 'r' (Relu) in graph 'g' has type TENSOR",
    "attr_typeproto_without_tp.onnx": "attribute 'tp' of node 'r' (Relu) in graph 'g' has type TYPE_PROTO",
    "constant_value_tensor_missing.onnx": "attribute 'value' of node #0 (Constant) in graph 'g' has type TENSOR",
    "if_then_graph_missing.onnx": "attribute 'then_branch' of node #0 (If) in graph 'g' has type GRAPH",
    "loop_body_graph_missing.onnx": "attribute 'body' of node #0 (Loop) in graph 'g' has type GRAPH",
    "scan_body_graph_missing.onnx": "attribute 'body' of node #0 (Scan) in graph 'g' has type GRAPH",
    "reshape_const_without_data.onnx": "tensor of attribute 'value' of node #0 (Constant) in graph 'g': 1 element of int64 declared and no data",
    "slice_init_without_data.onnx": "initializer 'starts' of graph 'g': 1 element of int64 declared and no data",
}

# Read fine, invalid or odd in ways check and legalize own (lib/check.c, lib/legalize.c): the
# names an error must give, and what check must say.
#   dup_two_producers: 'y' written by r1 (Relu) and r2 (Neg): check refuses, naming r2; legalize
#     refuses too (it used to succeed and silently drop one node).
#   dup_graph_output: y listed twice as a graph output: legalize gives a correct model (both
#     outputs kept) or a clear error naming y (it used to fail with a misleading
#     OLG_ERR_DUPLICATE).
CHECK_OWNED = {
    "dup_two_producers.onnx": {"check_fails": True, "names": ("r2", "'y'"), "legalize_fails": True},
    "dup_graph_output.onnx": {"check_fails": None, "names": ("'y'",), "legalize_fails": None},
}
# Cases to skip while a fix owned by another part has not landed: {file: reason naming the
# owner}. Empty: every case runs.
LEGALIZE_PENDING = {}

CRASH_MARKS = ("Segmentation", "AddressSanitizer", "LeakSanitizer", "runtime error:",
               "UndefinedBehaviorSanitizer", "core dumped", "Aborted")


def ids(files):
    return [os.path.basename(f) for f in files]


def tools():
    return [TOOL] + ([ASAN_TOOL] if ASAN_TOOL else [])


def run_tool(tool, *args, cwd=None):
    env = dict(os.environ, ASAN_OPTIONS="detect_leaks=1", UBSAN_OPTIONS="print_stacktrace=1")
    try:
        return subprocess.run([tool, *args], capture_output=True, text=True, timeout=TIMEOUT,
                              cwd=cwd, env=env)
    except subprocess.TimeoutExpired:
        pytest.fail("%s %s did not return within %d s (a hang)" % (tool, " ".join(args), TIMEOUT))


def assert_no_crash(r, what):
    assert r.returncode >= 0, "%s: killed by signal %d\n%s" % (what, -r.returncode, r.stderr)
    for mark in CRASH_MARKS:
        assert mark not in r.stderr and mark not in r.stdout, "%s:\n%s" % (what, r.stderr)


def assert_clear_error(r, what, needles):
    """Exit 1, and the reason names the place (any of the needles)."""
    assert_no_crash(r, what)
    assert r.returncode == 1, "%s: exit %d, wanted 1\n%s%s" % (what, r.returncode, r.stdout, r.stderr)
    text = r.stdout + r.stderr
    assert any(n in text for n in needles), "%s: the error names none of %s:\n%s" % (
        what, needles, text)


def cmd_args(cmd, path, tmp_path):
    if cmd == "copy":
        return ["copy", path, str(tmp_path / "out.onnx")]
    if cmd.startswith("convert"):
        return ["convert", path, str(tmp_path / "out.onnx"), "--opset", cmd[len("convert"):]]
    return [cmd, path]


@pytest.mark.parametrize("tool", tools(), ids=lambda t: "asan" if t == ASAN_TOOL else "tool")
@pytest.mark.parametrize("cmd", ["check", "print", "dot", "copy", "convert7", "convert27"])
@pytest.mark.parametrize("path", FILES, ids=ids(FILES))
def test_tool(tool, cmd, path, tmp_path):
    name = os.path.basename(path)
    r = run_tool(tool, *cmd_args(cmd, path, tmp_path))
    what = "onnxlegal %s %s" % (cmd, name)
    if name in READER_REFUSES:
        assert_clear_error(r, what, (READER_REFUSES[name],))
        assert not (tmp_path / "out.onnx").exists(), "%s wrote a file for a refused model" % cmd
        return
    owned = CHECK_OWNED.get(name)
    if cmd == "check" and owned:
        if owned["check_fails"]:
            assert_clear_error(r, what, owned["names"])
        else:
            assert_no_crash(r, what)
            assert r.returncode in (0, 1), r.stderr
            if r.returncode == 1:
                assert_clear_error(r, what, owned["names"])
        return
    if cmd.startswith("convert") and name in LEGALIZE_PENDING:
        pytest.skip(LEGALIZE_PENDING[name])
    # read fine: print, dot and copy show or write it; a model the reader takes is never a
    # crash for them; convert gives a correct model or refuses naming the place
    assert_no_crash(r, what)
    assert r.returncode in (0, 1), "%s: exit %d\n%s" % (what, r.returncode, r.stderr)
    if r.returncode == 1:
        assert r.stderr.strip(), "%s: exit 1 without a reason" % what
    elif cmd == "copy" or cmd.startswith("convert"):
        back = run_tool(tool, "check", str(tmp_path / "out.onnx"))
        assert_no_crash(back, "check of the %s output" % cmd)
        if cmd.startswith("convert"):
            assert back.returncode == 0, "the %s output fails check:\n%s%s" % (
                cmd, back.stdout, back.stderr)


LEGALIZE_CHILD = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
import onnxlegal
from onnxlegal.lowering import legalize
out = {}
try:
    m = onnxlegal.Model.read(sys.argv[2])
except onnxlegal.Error as e:
    print(json.dumps({"read": str(e), "type": type(e).__name__}))
    sys.exit(0)
for opset in map(int, sys.argv[3:]):
    try:
        res = legalize(m, opset=opset)
        d = res.check()
        out[opset] = {"ok": True, "errors": d.error_count,
                      "diags": str(d),
                      "outputs": [v.name for v in res.graph.outputs]}
    except onnxlegal.Error as e:
        out[opset] = {"ok": False, "error": str(e)}
print(json.dumps({"legalize": out}))
"""


def legalize_child(path):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "bindings", "python"))
    try:
        r = subprocess.run([sys.executable, "-c", LEGALIZE_CHILD,
                            os.path.join(ROOT, "bindings", "python"), path,
                            *map(str, OPSETS)],
                           capture_output=True, text=True, timeout=TIMEOUT, env=env)
    except subprocess.TimeoutExpired:
        pytest.fail("legalize of %s did not return within %d s" % (path, TIMEOUT))
    assert_no_crash(r, "legalize %s" % os.path.basename(path))
    assert r.returncode == 0, r.stderr
    import json
    return json.loads(r.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("path", FILES, ids=ids(FILES))
def test_python_legalize(path):
    name = os.path.basename(path)
    if name in LEGALIZE_PENDING:
        pytest.skip(LEGALIZE_PENDING[name])
    res = legalize_child(path)
    if name in READER_REFUSES:
        assert res.get("type") == "ParseError", res
        assert READER_REFUSES[name] in res["read"], res
        return
    assert "legalize" in res, res
    owned = CHECK_OWNED.get(name, {"names": (), "legalize_fails": None})
    for opset, o in res["legalize"].items():
        if o["ok"]:
            assert owned["legalize_fails"] is not True, (
                "%s at opset %s: legalized, but the source is invalid" % (name, opset))
            # a correct result: olg_check accepts it at its target opset
            assert o["errors"] == 0, "%s at opset %s: the result fails olg_check:\n%s" % (
                name, opset, o["diags"])
            if name == "dup_graph_output.onnx":
                assert len(o["outputs"]) == 2, o  # both outputs kept
        else:
            assert owned["legalize_fails"] is not False, o
            if owned["names"]:
                assert any(n in o["error"] for n in owned["names"]), (
                    "%s at opset %s: the error names none of %s: %s" % (
                        name, opset, owned["names"], o["error"]))
