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


def test_references_do_not_read_uninitialized_memory(tmp_path):
    """Every case's reference is the same when every fresh heap block holds NaN bytes
    (tests/numeric/junk_malloc.c, preloaded into a second process): a reference that reads
    memory it never wrote would otherwise flake with whatever an earlier case left in the heap.
    PyTorch 1.13's baddbmm with beta=0 did (cases_linalg.py gives it a zeroed out=)."""
    import pickle
    import subprocess
    shim = tmp_path / "junk_malloc.so"
    subprocess.run([os.environ.get("CC", "cc"), "-O2", "-shared", "-fPIC", "-o", str(shim),
                    os.path.join(NUMERIC, "junk_malloc.c")], check=True)
    out = tmp_path / "refs.pkl"
    env = dict(os.environ, LD_PRELOAD=str(shim))
    subprocess.run([sys.executable, os.path.join(NUMERIC, "harness.py"), "--references", str(out)],
                   env=env, check=True, stdout=subprocess.DEVNULL)
    with open(out, "rb") as f:
        junk = pickle.load(f)
    assert junk["fresh_malloc"] == b"\xff" * 64, "the shim was not in effect"
    problems = []
    for path in FAMILIES:
        for i, case in enumerate(harness.load_family(path)):
            want = harness.reference(case)
            got = junk["references"][(os.path.basename(path), i)]
            problem = got if isinstance(got, str) else harness.compare(case, want, got)
            if problem:
                problems.append("%s: %s" % (case.name, problem))
    assert not problems, "\n".join(problems)
