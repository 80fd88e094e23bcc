"""The conversion rate, measured: every ONNX backend node test (libonnx-testdata) that ONNX
Runtime runs correctly at its own opset is converted by onnxlegal.convert to opsets 7, 9, 11,
13, 17, 21 and 26, each converted model is run in ONNX Runtime (batched) and compared with the
test's stored outputs. The rate per opset is printed and held to a floor (raised as
decompositions land; issue 9's targets: 13 and up every one except ops ONNX Runtime has no
kernel for, 11 >= 98%, 9 >= 95%, 7 >= 90%). Never a wrong number; every converted model loads.
Also: every model of opset 7-12 converted up to 26 runs and matches, and converted to 27 passes
olg_check (no runtime runs 27 yet).

The counts come from the corpus, never from a list. Run alone to see the rates:
    PYTHONPATH=bindings/python:. python3 -m pytest -q -s tests/py/test_convert_corpus.py
"""
import collections
import os
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
for p in ("bindings/python", "tests/ort"):
    sys.path.insert(0, os.path.join(ROOT, p))
from nodecases import TESTS, load_case as _load_case, matches as _matches  # noqa: E402
TARGETS = (7, 9, 11, 13, 17, 21, 26)

# The floor per target opset: the share of runnable node tests that convert and match. Raise
# these as decompositions land; never lower them.
# Measured at the start of issue 9: 7: 47.4%, 9: 54.7%, 11: 74.2%, 13: 93.0%, 17+: 99.9%.
# 13 is 0.959, not 0.96: the one case of KNOWN_REFUSALS used to "convert" by copying an
# attribute value the target forbids (ORT happened to run it); it is refused since.
# Run-time axes/splits/k below 13, Trilu's run-time k, ConstantOfShape 7-8, Slice/TopK/CumSum/
# Range/Einsum/window functions below their opsets brought them to 67.3 / 81.0 / 95.6 / 98.1%.
# Then Mod, GatherElements, 8-/16-bit arithmetic, comparisons, IsInf/IsNaN, ThresholdedRelu,
# Celu below their opsets and Resize-11's tf_half_pixel_for_nn at 13+: 73.2 / 86.9 / 96.6 / 98.7%.
# With DFT, EyeLike, Einsum's diagonals below their opsets: 73.7 / 87.2 / 96.8 / 98.8%.
# QuantizeLinear/DequantizeLinear computed below 10: 74.2 / 87.7%.
# ScatterND from 9 and Scatter* reductions below 16 as aten's row scatter: 88.2 / 97.2 / 99.2%.
# Resize with run-time scales, sizes or roi from 9 by tables computed at run time: 9 at 95.8%.
# Reshape's allowzero, STFT's frame length and MelWeightMatrix at run time (issue 25): 89.1 /
# 97.7 / 99.4 / 99.9%; at 13 only RoiAlign-16 aligned (coordinate_transformation_mode) is left.
# RoiAlign by gathers (half_pixel below 16, any below 10): 89.4 / 97.9 / 99.5 / 100%.
# NonMaxSuppression-10 at 9 as Loops, Unique-11 below 11 by pairwise comparison (issue 25):
# 9 at 99.5% (853/857).
FLOOR = {7: 0.893, 9: 0.995, 11: 0.995, 13: 1.0, 17: 0.99, 21: 0.99, 26: 0.99}

# Node tests refused at 13 and above with a reason, each a conversion still to write: an exact
# re-encoding exists but is not implemented yet. Counted as not converted; the rest of 17, 21
# and 26 must all convert. (Resize-11's tf_half_pixel_for_nn, the last one, is re-encoded since.)
KNOWN_REFUSALS = {}

# Converted models ONNX Runtime cannot run although they are valid ONNX at the target: ORT has
# no kernel for that (op, version, type). Keyed by the op and version ORT names in "Could not
# find an implementation for Op(version)"; each says which kernel is missing. They count as
# not converted in the rates, and are listed.
ORT_LACKS = {
    "Where(9)": "ORT's Where-9 has no int8 kernel (Clip of int8 below 12 is lowered to Where)",
    "Max(6)": "ORT's Max-6 has float kernels only (no double)",
    "Min(6)": "ORT's Min-6 has float kernels only (no double)",
    "RoiAlign(22)": "ORT has no RoiAlign-22 kernel",
}


def _ort_lacks(err):
    return next((k for k in ORT_LACKS if "Could not find an implementation for %s " % k in err), None)

pytestmark = pytest.mark.skipif(not TESTS, reason="libonnx-testdata is not installed")


def _convert_all():
    """Runs everything once per session: {name: case}, the conversion results and ORT's."""
    import onnxlegal
    from ortrun import run_batch
    cases, batch, meta = {}, [], []
    refusals = collections.defaultdict(dict)  # target -> {name: [(op, min_opset)]}
    checked27, bad27, lost = 0, [], []
    for path in TESTS:
        name = os.path.basename(os.path.dirname(path))
        case = _load_case(path)
        if case is None:
            continue
        cases[name] = case
        opset, feeds, _, _ = case
        with open(path, "rb") as f:
            raw = f.read()
            batch.append((raw, feeds))
        src_dims = _output_dims(raw)
        meta.append((name, None))
        src = onnxlegal.Model.read(path)
        for target in TARGETS:
            try:
                out = onnxlegal.convert(src, target)
            except onnxlegal.Error as e:
                refusals[target][name] = [(d["op"], d["min_opset"]) for d in
                                          getattr(e, "diagnostics", []) if d["severity"] == "error"] or [("?", str(e))]
                continue
            data = out.to_bytes()
            lost.extend(_dims_lost(name, target, src_dims, data))
            batch.append((data, feeds))
            meta.append((name, target))
        if 7 <= opset <= 12:
            checked27 += 1
            try:
                onnxlegal.convert(src, 27).check()
            except onnxlegal.Error as e:
                if name not in KNOWN_REFUSALS:
                    bad27.append("%s %d->27: %s" % (name, opset, str(e)[:300]))
    results = run_batch(batch)
    _LOST[:] = lost
    return cases, meta, results, refusals, checked27, bad27


_LOST = []


def _output_dims(data):
    """{output name: [dim value or param or None]} as the model declares them (tensors only)."""
    import onnx
    m = onnx.load_from_string(data)
    out = {}
    for o in m.graph.output:
        t = o.type.tensor_type
        if o.type.HasField("tensor_type") and t.HasField("shape"):
            out[o.name] = [d.dim_value if d.HasField("dim_value") else (d.dim_param or None)
                           for d in t.shape.dim]
    return out


def _dims_lost(name, target, src_dims, data):
    """The declared output dims that the converted model no longer states (issue 28, point 1)."""
    got = _output_dims(data)
    bad = []
    for o, dims in src_dims.items():
        g = got.get(o)
        if g is None or len(g) != len(dims) or any(d is not None and e is None for d, e in zip(dims, g)):
            bad.append("%s ->%d: output %s declared %s, converted %s" % (name, target, o, dims, g))
    return bad


_STATE = {}


def _state():
    if not _STATE:
        _STATE["v"] = _convert_all()
    return _STATE["v"]


def test_conversion_rates_per_opset():
    cases, meta, results, refusals, _, _ = _state()
    runnable = {name for (name, target), r in zip(meta, results)
                if target is None and not isinstance(r, str) and _matches(r, cases[name][2], cases[name][3])}
    assert len(runnable) > 800, "ORT runs only %d node tests at their own opset" % len(runnable)
    ok, wrong, unloadable, lacking = collections.Counter(), [], [], []
    for (name, target), r in zip(meta, results):
        if target is None or name not in runnable:
            continue
        if isinstance(r, str):
            if _ort_lacks(r):
                lacking.append("%s ->%d (%s)" % (name, target, _ort_lacks(r)))
            else:
                unloadable.append("%s ->%d: %s" % (name, target, r.strip()[:200]))
        elif _matches(r, cases[name][2], cases[name][3]):
            ok[target] += 1
        else:
            wrong.append("%s %d->%d: outputs differ" % (name, cases[name][0], target))
    lines = ["", "conversion of %d runnable node tests (ORT, stored outputs):" % len(runnable)]
    missing = collections.Counter()
    for target in TARGETS:
        rate = ok[target] / len(runnable)
        refused = {n: v for n, v in refusals[target].items() if n in runnable}
        ops = collections.Counter(op for v in refused.values() for op, _ in set(v))
        lines.append("  opset %2d: %4d/%d = %5.1f%%  refused %d  (%s)" % (
            target, ok[target], len(runnable), 100 * rate, len(refused),
            ", ".join("%s %d" % kv for kv in ops.most_common(12))))
        if target in (7, 9, 11):
            missing.update(ops)
    lines.append("  most refused at 7/9/11: " + ", ".join("%s %d" % kv for kv in missing.most_common(25)))
    lines.append("  converted, but ORT has no kernel: " + ", ".join(lacking))
    print("\n".join(lines))
    assert not wrong, "wrong numbers:\n" + "\n".join(wrong[:40])
    assert not unloadable, "converted models ORT cannot run:\n" + "\n".join(unloadable[:40])
    for target in TARGETS:
        assert ok[target] / len(runnable) >= FLOOR[target], (target, ok[target], len(runnable))
    for target in (17, 21, 26):  # every one, but where ONNX Runtime lacks the kernel
        n_lacking = sum(x.split(" ->")[1].startswith("%d " % target) for x in lacking)
        known = sum(1 for n in KNOWN_REFUSALS if n in runnable and n in refusals[target])
        assert ok[target] + n_lacking + known == len(runnable), (target, sorted(refusals[target]))


def test_converting_keeps_every_declared_output_dim():
    _state()
    assert not _LOST, "\n".join(_LOST[:40])


def test_old_models_convert_up_to_26_and_27():
    cases, meta, results, refusals, checked27, bad27 = _state()
    problems = []
    originals = {n: r for (n, t), r in zip(meta, results) if t is None}
    for (name, target), r in zip(meta, results):
        if target != 26 or not 7 <= cases[name][0] <= 12:
            continue
        orig = originals[name]
        if isinstance(orig, str) or not _matches(orig, cases[name][2], cases[name][3]):
            continue  # ORT fails the original
        if isinstance(r, str) and _ort_lacks(r):
            continue
        if isinstance(r, str) or not _matches(r, cases[name][2], cases[name][3]):
            problems.append("%s %d->26: %s" % (name, cases[name][0], r[:200] if isinstance(r, str) else "differs"))
    old = [n for n, c in cases.items() if 7 <= c[0] <= 12]
    problems += ["%s %d->26 refused: %s" % (n, cases[n][0], refusals[26][n]) for n in old
                 if n in refusals[26] and n not in KNOWN_REFUSALS]
    print("\nopset 7-12 models: %d; converted to 27 and checked: %d" % (len(old), checked27))
    assert checked27 == len(old)
    assert not bad27, "\n".join(bad27[:30])
    assert not problems, "\n".join(problems[:30])
