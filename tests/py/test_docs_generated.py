"""docs/diagnostics.md and docs/aten-ops.md are generated (tools/gen_docs.py) and current: a code
emitted anywhere in the sources without an entry in a header's table, or a registry change
without regenerating, fails here."""
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GEN = os.path.join(ROOT, "tools", "gen_docs.py")
sys.path.insert(0, os.path.join(ROOT, "tools"))

import gen_docs  # noqa: E402


def test_diagnostics_doc_is_current():
    r = subprocess.run([sys.executable, GEN, "--check", "--only", "diagnostics"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_every_emitted_code_is_documented():
    emitted = gen_docs.emitted_codes()
    assert "OLG-LOWER-UNSUPPORTED-OP" in emitted and "OLG-CHECK-ATTR-TYPE" in emitted
    doc = open(os.path.join(ROOT, "docs", "diagnostics.md")).read()
    for code in emitted:
        assert "| `%s` |" % code in doc, code


def test_aten_doc_is_current():
    torch = pytest.importorskip("torch")
    doc = open(os.path.join(ROOT, "docs", "aten-ops.md")).read()
    made_with = re.search(r"schemas of\nPyTorch (\S+);", doc).group(1)
    if made_with != torch.__version__.split("+")[0]:
        pytest.skip("docs/aten-ops.md was made with PyTorch %s, this is %s" % (made_with, torch.__version__))
    r = subprocess.run([sys.executable, GEN, "--check", "--only", "aten"], capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
    # the schema's positions are the symbolic's: aten::convolution's bias is argument 2
    assert "0: `input`, 1: `weight`, 2: `bias`" in doc
