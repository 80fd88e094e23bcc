"""The numeric suite: every tests/numeric/cases_<family>.py, one ONNX Runtime batch per family.

Each (case, opset) is legalized, checked (olg_check; ONNX's checker up to opset 17), run in ONNX
Runtime (up to opset 26) and compared with PyTorch; where the coverage matrix (or the case's
min_opset) says the op does not lower, the refusal must name the lowest opset that works.
The summary line says how many (op, opset) pairs pass."""
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
NUMERIC = os.path.join(os.path.dirname(HERE), "numeric")
sys.path.insert(0, NUMERIC)

import harness  # noqa: E402

FAMILIES = harness.family_files()
ALL_RESULTS = []  # every family's results, for the running total


@pytest.mark.parametrize("path", FAMILIES, ids=[os.path.basename(p)[6:-3] for p in FAMILIES])
def test_family(path, capsys):
    cases = harness.load_family(path)
    assert cases, "%s has no CASES" % path
    results = harness.run_cases(cases)
    text, n_pass, _, failures = harness.summarize(results)
    ALL_RESULTS.extend(results)
    total = harness.summarize(ALL_RESULTS)[0]
    with capsys.disabled():
        print("\n[%s] %s\n[all families so far] %s" % (os.path.basename(path), text, total))
    assert not failures, "\n".join(map(repr, failures[:40]))
    assert n_pass > 0


def test_every_registered_op_has_cases():
    """Every aten op of the coverage matrix has numeric cases, so that 'an op the matrix claims
    at an opset passes there' covers every op, not only those someone wrote cases for."""
    from onnxlegal.lowering import default_registry
    covered = {(c.domain, c.op) for p in FAMILIES for c in harness.load_family(p)}
    missing = sorted("%s::%s" % k for k in default_registry().ops()
                     if k[0] == "aten" and k not in covered)
    assert not missing, "registered without numeric cases: %s" % ", ".join(missing)
