"""The opsets 18-27 corpus (tests/data/corpus18, made by tools/gen_corpus18.py): every case,
one op of a version from 18 on with the variant that version introduced, is converted by
onnxlegal.convert to every opset from 7 to 26.

- Where it converts, the result runs in ONNX Runtime and matches the case's reference (ORT on
  the source model at its own opset, or NumPy): never a wrong number, never an unloadable model
  (a kernel ORT lacks for a valid op version is listed, not failed).
- Where it is refused, the refusal names the node and op, and the lowest opset that works: the
  lowest target above it at which this case converts.
- What is refused, and where ORT lacks a kernel, is recorded in tests/data/corpus18/expected.txt
  and must match it exactly: a conversion that newly works is recorded too, so the record stays
  the matrix of what works. After a change that makes more cases convert, rewrite it with
      ONNXLEGAL_CORPUS18_UPDATE=1 PYTHONPATH=bindings/python:. python3 -m pytest -q tests/py/test_convert_corpus18.py
  and read its diff.
"""
import collections
import glob
import os
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
for p in ("bindings/python", "tests/ort"):
    sys.path.insert(0, os.path.join(ROOT, p))
from nodecases import matches  # noqa: E402

CORPUS = os.path.join(ROOT, "tests", "data", "corpus18")
EXPECTED = os.path.join(CORPUS, "expected.txt")
TARGETS = tuple(range(7, 27))
# Opsets past the targets (the library lowers to 27; ONNX Runtime does not run it yet): only
# converted, so that a refusal naming one of them can be held to being the lowest that works.
BEYOND = (27,)
beyond = {}  # case -> the lowest opset of BEYOND it converts to, when no target does


def _ranges(nums):
    """[7, 8, 9, 11] -> "7-9,11"."""
    out, nums = [], sorted(nums)
    i = 0
    while i < len(nums):
        j = i
        while j + 1 < len(nums) and nums[j + 1] == nums[j] + 1:
            j += 1
        out.append(str(nums[i]) if i == j else "%d-%d" % (nums[i], nums[j]))
        i = j + 1
    return ",".join(out) or "-"


def _load_cases():
    cases = {}
    for path in sorted(glob.glob(os.path.join(CORPUS, "*.npz"))):
        with np.load(path, allow_pickle=False) as z:
            model = z["model"].tobytes()
            feeds = {k[3:]: (z[k].astype(object) if z[k].dtype.kind == "U" else z[k])
                     for k in z.files if k.startswith("in:")}
            want = {k[4:]: (z[k].astype(object) if z[k].dtype.kind == "U" else z[k])
                    for k in z.files if k.startswith("out:")}
        cases[os.path.basename(path)[:-4]] = (model, feeds, want)
    return cases


def _run():
    import onnxlegal
    from ortrun import run_batch
    cases = _load_cases()
    outcome = collections.defaultdict(dict)  # name -> target -> "ok"|"refused"|...
    problems, batch, meta = [], [], []
    refusals = {}
    beyond.clear()
    for name, (model, feeds, want) in cases.items():
        src = onnxlegal.Model.from_bytes(model)
        for target in TARGETS:
            try:
                out = onnxlegal.convert(src, target)
            except onnxlegal.Error as e:
                errs = [d for d in getattr(e, "diagnostics", []) if d["severity"] == "error"]
                refusals[(name, target)] = errs
                outcome[name][target] = "refused"
                if not errs:
                    problems.append("%s ->%d: refused without a diagnostic: %s" % (name, target, str(e)[:300]))
                continue
            if not want:
                outcome[name][target] = "converted"  # no reference to run against
                continue
            batch.append((out.to_bytes(), feeds))
            meta.append((name, target))
        if all((name, t) in refusals for t in TARGETS):
            for target in BEYOND:
                try:
                    onnxlegal.convert(src, target)
                    beyond[name] = target
                    break
                except onnxlegal.Error:
                    pass
    for (name, target), r in zip(meta, run_batch(batch)):
        _, _, want = cases[name]
        if isinstance(r, str):
            if "Could not find an implementation for" in r:
                outcome[name][target] = "ort-lacks"
            else:
                outcome[name][target] = "unloadable"
                problems.append("%s ->%d: ORT cannot run the converted model: %s" % (name, target, r.strip()[:300]))
        elif matches(r, list(want), list(want.values())):
            outcome[name][target] = "ok"
        else:
            outcome[name][target] = "wrong"
            problems.append("%s ->%d: outputs differ from the reference" % (name, target))
    return cases, outcome, refusals, problems


_STATE = {}


def _state():
    if not _STATE:
        _STATE["v"] = _run()
    return _STATE["v"]


def _record(outcome, refusals):
    lines = ["# tests/data/corpus18: per case, the target opsets (7-26) refused, each range followed by",
             "# @ the lowest opset that the refusal states works (@0: none stated), and the targets",
             "# where ONNX Runtime lacks a kernel for the converted model's op version. Written by",
             "# test_convert_corpus18.py with ONNXLEGAL_CORPUS18_UPDATE=1; the test holds the",
             "# conversion to it exactly.",
             "# case  refused@stated  ort-lacks"]
    for name in sorted(outcome):
        o = outcome[name]
        groups = collections.defaultdict(list)
        for t in TARGETS:
            if o[t] == "refused":
                groups[_stated_min(name, refusals[(name, t)])].append(t)
        refused = ",".join("%s@%d" % (_ranges(ts), m) for m, ts in sorted(groups.items(), key=lambda kv: kv[1]))
        lines.append("%s  %s  %s" % (name, refused or "-", _ranges([t for t in o if o[t] == "ort-lacks"])))
    return "\n".join(lines) + "\n"


pytestmark = pytest.mark.skipif(not glob.glob(os.path.join(CORPUS, "*.npz")), reason="no corpus")


def test_every_case_is_generated_and_recorded():
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    import gen_corpus18
    names = {c.name for c in gen_corpus18.CASES}
    assert names == set(_load_cases()), "tests/data/corpus18 is stale: run python3 tools/gen_corpus18.py"
    ops = {(c.op, c.opset) for c in gen_corpus18.CASES}
    assert len(ops) >= 100, len(ops)


# Converted models known to be wrong, each a bug with its issue; the test fails when one is fixed
# (remove it here) as when a new one appears.
KNOWN_WRONG = {
    # none: GroupNormalization-18's per-group scale is repeated per channel at 21+ (issue 27 (a))
}


def test_no_wrong_numbers_no_unloadable_models():
    _, outcome, _, problems = _state()
    bad = collections.defaultdict(list)
    for name, o in outcome.items():
        for t, v in o.items():
            if v in ("wrong", "unloadable"):
                bad[name].append(t)
    known = {n: _ranges(ts) for n, ts in bad.items()}
    new = [p for p in problems if p.split(" ->")[0] not in KNOWN_WRONG]
    assert not new, "\n".join(new[:50])
    assert known == KNOWN_WRONG, "KNOWN_WRONG is out of date: now %s" % known


def _stated_min(name, errs):
    """The lowest opset that works, as the refusal of node `name` states it (0: none stated)."""
    mins = [d.get("min_opset") or 0 for d in errs if d.get("node") == name]
    return max(mins) if mins else 0


def _lowest_working(outcome, name, target):
    works = [t for t in TARGETS if t > target and outcome[name][t] != "refused"]
    return min(works) if works else beyond.get(name, 0)


def test_refusals_name_node_op_and_lowest_opset_that_works():
    """Every refusal names the node and the op, and states the lowest opset at which this case
    converts (none when it converts at no opset up to BEYOND); the record carries it as @N."""
    cases, outcome, refusals, _ = _state()
    bad, right, wrong = [], 0, 0
    for (name, target), errs in sorted(refusals.items()):
        for d in errs:
            if not d.get("op") or not d.get("node"):
                bad.append("%s ->%d: diagnostic without node or op: %s" % (name, target, d))
        if not any(d.get("node") == name for d in errs):
            bad.append("%s ->%d: no diagnostic names the node: %s" % (name, target, errs))
            continue
        stated = _stated_min(name, errs)
        if 0 < stated <= target:
            bad.append("%s ->%d: names opset %d as the lowest that works" % (name, target, stated))
        lowest = _lowest_working(outcome, name, target)
        right += stated == lowest
        wrong += stated != lowest
        if stated != lowest:
            bad.append("%s ->%d: states opset %d as the lowest that works; it converts from %s" % (
                name, target, stated, lowest or "none"))
    print("\ncorpus18 refusals: %d state the lowest opset at which the case converts, %d do not" % (right, wrong))
    assert not bad, "\n".join(bad[:60])


def test_outcomes_match_the_record():
    _, outcome, refusals, _ = _state()
    text = _record(outcome, refusals)
    if os.environ.get("ONNXLEGAL_CORPUS18_UPDATE"):
        with open(EXPECTED, "w") as f:
            f.write(text)
    with open(EXPECTED) as f:
        want = f.read()
    got_lines, want_lines = set(text.splitlines()), set(want.splitlines())
    diff = ["now:      " + l for l in sorted(got_lines - want_lines)] + \
           ["recorded: " + l for l in sorted(want_lines - got_lines)]
    converted = collections.Counter()
    for o in outcome.values():
        for t, v in o.items():
            converted[t] += v != "refused"
    print("\ncorpus18: %d cases; converted per target: %s" % (
        len(outcome), " ".join("%d:%d" % (t, converted[t]) for t in TARGETS)))
    assert not diff, "outcomes differ from %s (see its header):\n%s" % (EXPECTED, "\n".join(diff[:80]))
