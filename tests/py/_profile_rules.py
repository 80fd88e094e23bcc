"""Shared by test_profile_tensorrt.py and test_profile_openvino.py: runs hand-made ONNX models
(onnx.helper) that violate one profile rule each through `convert --profile` (the library's
legalize at the model's own opset) and `onnxlegal check --profile`, and compares the fixed model's ONNX Runtime outputs with the original's.

A case is a dict: name, model (onnx.ModelProto), feeds, rule (the rule id the violation names),
expect ("fixed": rewritten, a note names the rule, the result is clean and computes the same;
"refused": an error names the node and the rule; "clean": nothing fires); `check --profile`
must report the rule (check_rule when the lowering itself refuses first), the node and a fix,
except for folded cases (a value computed from constants, made one by convert). Optional:
sort_outputs (compare sorted along the last axis), rtol/atol, want (expected outputs instead of
ORT's run of the original), post (a check of the fixed model: an error text or None), gone (ops
that must not remain), note_has (text the rule's note must hold: a proof), lowered (the lowering itself already gives what the rule wants)."""
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
for _p in ("bindings/python", "tests/ort"):
    if os.path.join(ROOT, _p) not in sys.path:
        sys.path.insert(0, os.path.join(ROOT, _p))

import onnxlegal  # noqa: E402
from onnxlegal.lowering import diagnostic_records, legalize  # noqa: E402

TOOL = os.path.join(ROOT, "build", "bin", "onnxlegal")


def model(nodes, inputs, outputs, inits=(), opset=13, name="m"):
    from onnx import helper
    g = helper.make_graph(nodes, name, inputs, outputs, initializer=list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)],
                          producer_name="profile-test")
    m.ir_version = 8 if opset <= 17 else 9 if opset <= 20 else 10
    return m


def vi(name, dtype, shape):
    from onnx import helper, mapping
    return helper.make_tensor_value_info(name, mapping.NP_TYPE_TO_TENSOR_TYPE[np.dtype(dtype)], shape)


def init(name, arr):
    from onnx import numpy_helper
    return numpy_helper.from_array(np.asarray(arr), name)


def node(op, ins, outs, name=None, **attrs):
    from onnx import helper
    return helper.make_node(op, ins, outs, name=name or outs[0] + "_node", **attrs)


def opset_of(m):
    return [o.version for o in m.opset_import if o.domain in ("", "ai.onnx")][0]


def convert(m, profile):
    """(fixed model or None, diagnostic records)."""
    src = onnxlegal.Model.from_bytes(m.SerializeToString())
    d = onnxlegal.Diags()
    try:
        out = legalize(src, opset=opset_of(m), profile=profile, diags=d, report=True)
        return out, diagnostic_records(d)
    except onnxlegal.Error:
        return None, diagnostic_records(d)
    finally:
        d.close()


def fired(records, rule):
    return [r for r in records if r["code"] == "OLG-PROFILE-FIXED" and rule in r["message"]]


def errors(records):
    return [r for r in records if r["severity"] == "error"]


def check_tool(m, profile):
    """`onnxlegal check --profile P` on the model: (exit code, output), or None while the
    command has no --profile."""
    with tempfile.TemporaryDirectory() as d:
        p = os.path.join(d, "m.onnx")
        with open(p, "wb") as f:
            f.write(m.SerializeToString())
        r = subprocess.run([TOOL, "check", p, "--profile", profile], capture_output=True,
                           text=True)
        out = r.stdout + r.stderr
        if r.returncode != 0 and ("--profile" in out and ("unknown" in out or "usage" in out)):
            return None
        return r.returncode, out


def check_violations(m, profile):
    """The OLG-PROFILE-VIOLATION lines of `onnxlegal check M --profile P`: (node, rule, line)."""
    res = check_tool(m, profile)
    assert res is not None, "check has no --profile"
    out = []
    for line in res[1].splitlines():
        mt = re.match(r"error OLG-PROFILE-VIOLATION: node (?:'([^']*)'|#\d+) \([^)]*\): rule (\S+): ", line)
        if mt:
            out.append((mt.group(1) or "", mt.group(2), line))
    return out


def run_cases(cases, profile):
    """Checks every case; the ORT runs go in one batch. Returns the list of failures."""
    from ortrun import run_batch
    bad, batch, meta = [], [], []
    for c in cases:
        name, expect, rule = c["name"], c["expect"], c["rule"]
        # the check names the node, the rule and the fix, statically
        if not c.get("folded"):
            viol = check_violations(c["model"], profile)
            names = {n.name for n in c["model"].graph.node}
            crule = c.get("check_rule", rule)
            if expect == "clean" and viol:
                bad.append("%s: check reports %s" % (name, viol))
            if expect != "clean" and not [v for v in viol if v[1] == crule and v[0] in names
                                          and "fix: " in v[2]]:
                bad.append("%s: check does not report %s with its fix: %s" % (name, crule, viol))
        out, recs = convert(c["model"], profile)
        errs = errors(recs)
        if expect == "refused":
            hit = [e for e in errs if rule in e["message"] and e["node"]]
            if out is not None or not hit:
                bad.append("%s: expected a refusal naming %s, got %s" % (name, rule, recs))
            continue
        if out is None:
            bad.append("%s: refused: %s" % (name, [e["message"] for e in errs]))
            continue
        if expect == "fixed" and not fired(recs, rule) and not (c.get("folded") or c.get("lowered")):
            bad.append("%s: no note that %s fired: %s" % (name, rule, recs))
        if expect == "clean" and any(r["code"] == "OLG-PROFILE-FIXED" for r in recs):
            bad.append("%s: expected nothing to fire: %s" % (name, recs))
        if c.get("note_has") and not [r for r in fired(recs, rule) if c["note_has"] in r["message"]]:
            bad.append("%s: no note of %s saying %r: %s" % (name, rule, c["note_has"], recs))
        if c.get("post"):
            msg = c["post"](out)
            if msg:
                bad.append("%s: %s" % (name, msg))
        for op in c.get("gone", ()):
            if op in [nd.op for nd in out.graph.nodes]:
                bad.append("%s: %s still in the fixed model" % (name, op))
        # the fixed model is clean: converting it again fires nothing
        from onnx import load_from_string
        again, recs2 = convert(load_from_string(out.to_bytes()), profile)
        if again is None or any(r["code"] == "OLG-PROFILE-FIXED" for r in recs2):
            bad.append("%s: the fixed model is not clean: %s" % (name, recs2))
        batch.append((c["model"].SerializeToString(), c["feeds"]))
        batch.append((out.to_bytes(), c["feeds"]))
        meta.append(c)
    results = run_batch(batch) if batch else []
    for k, c in enumerate(meta):
        want, got = results[2 * k], results[2 * k + 1]
        if c.get("want") is not None and not isinstance(got, str):
            want = c["want"]  # the spec's numbers where ONNX Runtime's differ
        if isinstance(want, str) or isinstance(got, str):
            bad.append("%s: ORT failed: %s | %s" % (c["name"], str(want)[:300], str(got)[:300]))
            continue
        for (n, w), g in zip(want.items(), got.values()):
            if c.get("sort_outputs"):
                w, g = np.sort(w, axis=-1), np.sort(g, axis=-1)
            if w.shape != g.shape or not np.allclose(w, g, rtol=c.get("rtol", 1e-5),
                                                     atol=c.get("atol", 1e-5)):
                bad.append("%s: output %s differs: %s vs %s" % (c["name"], n, w, g))
    return bad
