"""ONNX-domain legalization against libonnx-testdata's node tests: each model is legalized at its
own opset (pass-through and re-encoding must be exact) and converted up and down to opsets 13,
17 and 21; every legalized model runs in ONNX Runtime (one batch) and must reproduce the
test's expected outputs wherever ONNX Runtime runs the original model correctly. A conversion
that is refused must say why, naming the op and the opset."""
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
for p in ("bindings/python", "tests/ort"):
    sys.path.insert(0, os.path.join(ROOT, p))
from nodecases import TESTS, load_case as _load_case, matches as _matches  # noqa: E402
TARGETS = (13, 17, 21)

# Refused at their own opset, with the reason (none: every node test with tensor inputs and
# outputs legalizes at its own opset, If/Loop/Scan bodies included).
REFUSED_AT_OWN_OPSET = {}

pytestmark = pytest.mark.skipif(not TESTS, reason="libonnx-testdata is not installed")


def test_node_tests_legalize_and_reproduce_their_outputs():
    import onnxlegal
    from onnxlegal.lowering import default_registry, legalize
    from ortrun import run_batch
    reg = default_registry()
    batch, meta, problems = [], [], []
    refused = {"own": 0, "other": 0}
    for path in TESTS:
        name = os.path.basename(os.path.dirname(path))
        case = _load_case(path)
        if case is None:
            continue
        opset, feeds, out_names, want = case
        with open(path, "rb") as f:
            batch.append((f.read(), feeds))
        meta.append((name, opset, None, out_names, want))
        src = onnxlegal.Model.read(path)
        for target in sorted({opset, *TARGETS}):
            if not 7 <= target <= 26:
                continue
            d = onnxlegal.Diags()
            try:
                out = legalize(src, reg, opset=target, diags=d)
            except onnxlegal.Error as e:
                errors = [x for x in d if x["severity"] == "error"]
                own = target == opset
                refused["own" if own else "other"] += 1
                if not errors or not all("opset" in x["message"] and x["op"] for x in errors):
                    problems.append("%s %d->%d refused without a diagnostic naming the op and "
                                    "opset: %s" % (name, opset, target, e))
                elif own and name not in REFUSED_AT_OWN_OPSET:
                    problems.append("%s refused at its own opset %d: %s" %
                                    (name, opset, errors[0]["message"]))
                continue
            batch.append((out.to_bytes(), feeds))
            meta.append((name, opset, target, out_names, want))
    results = run_batch(batch)
    original_ok, stats = {}, {"match": 0, "skipped (ORT fails the original)": 0}
    for (name, opset, target, out_names, want), r in zip(meta, results):
        ok = not isinstance(r, str) and _matches(r, out_names, want)
        if target is None:
            original_ok[name] = ok
        elif not original_ok.get(name):
            stats["skipped (ORT fails the original)"] += 1
        elif ok:
            stats["match"] += 1
        else:
            problems.append("%s %d->%d: %s" % (name, opset, target,
                                                r.strip()[:200] if isinstance(r, str) else "outputs differ"))
    print("\nnode tests: %d models legalized and matching, %s; refused: %d at their own opset, "
          "%d elsewhere" % (stats["match"], stats, refused["own"], refused["other"]))
    assert not problems, "\n".join(problems[:50])
    assert stats["match"] > 2000
