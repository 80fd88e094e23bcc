"""docs/python.md's worked example runs as written and prints what the page says (issue 28,
point 5; issue 29 (c) for the symbolic API's documentation)."""
import contextlib
import io
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bindings", "python"))


def test_the_worked_example_runs_and_prints_what_the_page_says():
    pytest.importorskip("numpy")
    text = open(os.path.join(ROOT, "docs", "python.md")).read()
    code = text.split("<!-- example: run by tests/py/test_docs_python.py -->\n```python\n")[1].split("\n```")[0]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "docs/python.md", "exec"), {})
    lines = out.getvalue().splitlines()
    assert len(lines) == 5, lines
    ops = {int(l.split(" ", 1)[0]): l.split(" ", 1)[1] for l in lines[:4]}
    assert ops[20] == "['Constant', 'Gelu', 'Mul']", ops
    for t in (9, 13, 17):
        assert "'Erf'" in ops[t] and "'Mul'" in ops[t] and "Gelu" not in ops[t], ops
    assert lines[4] == "9 act"


def test_the_torch_style_example_runs_and_prints_what_the_page_says():
    """Issue 29 (c): the torch-style symbolics example, as written."""
    pytest.importorskip("torch")
    pytest.importorskip("numpy")
    text = open(os.path.join(ROOT, "docs", "python.md")).read()
    code = text.split("<!-- example (torch): run by tests/py/test_docs_python.py -->\n"
                      "```python\n")[1].split("\n```")[0]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "docs/python.md", "exec"), {"__name__": "docs_example"})
    assert out.getvalue().splitlines() == ["11 ['LeakyRelu', 'Tanh']",
                                           "17 ['LeakyRelu', 'Tanh']"]
