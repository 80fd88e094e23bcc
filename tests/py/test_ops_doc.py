"""docs/ops.md is the output of `onnxlegal ops --markdown` (the coverage matrix computed from the
registry); this fails when a registration changed and the file was not regenerated:
    build/bin/onnxlegal ops --markdown > docs/ops.md"""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("ONNXLEGAL_BUILD", os.path.join(ROOT, "build"))
TOOL = os.environ.get("ONNXLEGAL_TOOL", os.path.join(BUILD, "bin", "onnxlegal"))
sys.path.insert(0, os.path.join(ROOT, "bindings", "python"))


def _run(*args):
    assert os.path.exists(TOOL), "%s is not built (make tool)" % TOOL
    p = subprocess.run([TOOL, "ops", *args], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    return p.stdout


def test_docs_ops_md_is_current():
    with open(os.path.join(ROOT, "docs", "ops.md"), encoding="utf-8") as f:
        committed = f.read()
    assert _run("--markdown") == committed, (
        "docs/ops.md is stale: regenerate it with `%s ops --markdown > docs/ops.md`" % TOOL)


def test_matrix_agrees_with_the_binding_registry():
    """The tool's grid and the registry as the binding sees it are the same matrix; the ONNX ops
    without a row follow, passed through (N) wherever ONNX defines them (every op of opsets 18-27
    is listed, issue 20)."""
    from onnxlegal.lowering import Registry
    reg = Registry(builtin=True)
    lines = _run().splitlines()[1:]
    grid = {line.split()[0]: line.split()[1] for line in lines if line.strip()}
    cov = reg.coverage()
    passed = {k: v for k, v in grid.items() if (("" if k.startswith("onnx::") else k.split("::")[0]),
                                                   k.split("::")[1]) not in cov}
    assert len(grid) - len(passed) == len(cov)
    assert all(k.startswith("onnx::") and set(v) <= {"N", "."} for k, v in passed.items()), passed
    for op in ("BitwiseAnd", "DeformConv", "ImageDecoder", "LinearAttention", "StringSplit"):
        assert "onnx::" + op in grid, op
    for (d, op), by_opset in cov.items():
        row = grid["%s::%s" % (d or "onnx", op)]
        want = "".join({"native": "N", "decomposed": "D", None: "."}[by_opset[v]]
                       for v in range(7, 28))
        assert row == want, (d, op)


def test_opset_view_names_the_lowest_opset():
    out = _run("--opset", "8")
    assert "onnx::Scatter" in out and "the lowest opset that works is 9" in out
    assert out.strip().splitlines()[-1].startswith("%d ops at opset 8" % len(out.strip().splitlines()[:-1]))
