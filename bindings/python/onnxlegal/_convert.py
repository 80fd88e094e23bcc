"""onnxlegal.convert: a model to another opset of the default ONNX domain, up or down (the
Python side of `onnxlegal convert`).

    m = onnxlegal.convert("model.onnx", 9)                   # an onnxlegal.Model
    onnxlegal.convert(m, 13, "model13.onnx")                 # also written
    m, report = onnxlegal.convert("model.onnx", 11, report=True)

A node that cannot be expressed at the target raises an onnxlegal.Error (UnsupportedError for
an op or attribute the opset lacks) whose message lists EVERY refused node of the model, each
with its op, the target opset and the lowest opset that works; e.diagnostics holds them as dicts.
"""
import os

from ._model import Diags, Model
from .lowering import default_registry, diagnostic_records, legalize

def _builtin_profiles():
    from ._lib import lib
    names, i = ["none"], 0
    while True:
        n = lib.olg_profile_builtin_name(i)
        if not n:
            return tuple(names)
        names.append(n.decode())
        i += 1


PROFILES = _builtin_profiles()
_RESULTS = {"OLG-LOWER-KEPT": "kept", "OLG-LOWER-REENCODED": "re-encoded",
            "OLG-LOWER-DECOMPOSED": "decomposed"}


def _report(records):
    """The per-node records and the refusals, as `onnxlegal convert --report` writes them."""
    nodes, refusals, warnings = [], [], []
    for d in records:
        if d["severity"] == "note" and d["code"] in _RESULTS:
            ops = d["message"].split(": ", 1)[1] if ": " in d["message"] else "-"
            nodes.append({"node": d["node"], "domain": d["domain"], "op": d["op"],
                          "result": _RESULTS[d["code"]],
                          "ops": [] if ops == "-" else ops.split(", ")})
        elif d["severity"] in ("error", "warning"):
            (refusals if d["severity"] == "error" else warnings).append(
                {"node": d["node"], "domain": d["domain"], "op": d["op"], "target_opset": d["opset"],
                 "lowest_opset": d["min_opset"], "code": d["code"], "message": d["message"]})
    rules = [{"node": d["node"], "op": d["op"],
              "rule": d["message"][5:].split(":", 1)[0].split(" ", 1)[0],
              "action": "fixed" if d["code"] == "OLG-PROFILE-FIXED" else "refused",
              "message": d["message"]}
             for d in records if d["code"] in ("OLG-PROFILE-FIXED", "OLG-PROFILE-REFUSED")]
    counts = {k: sum(n["result"] == k for n in nodes) for k in ("kept", "re-encoded", "decomposed")}
    counts["refused"] = len(refusals)
    return {"nodes": nodes, "profile_rules": rules, "refusals": refusals, "warnings": warnings,
            "counts": counts}


def convert(src, opset, output=None, *, ir_version=None, profile=None, external_data=None,
            threshold=1024, fold=True, decompose=True, report=False, fold_weights=False):
    """Converts src (a path or an onnxlegal.Model) to `opset` (7..27); returns the new Model
    (which keeps src alive), and writes it to `output` when given (external_data: a file name
    beside it for tensors of at least `threshold` bytes). profile: None/"none", a built-in
    profile's name (PROFILES: "ort", "tensorrt", ...) or an onnxlegal.profiles.Profile.
    fold=False keeps small constant shape computations as nodes; fold_weights=True folds each
    inference BatchNormalization into the Conv/Gemm/MatMul before it and merges byte-equal
    initializers; decompose=False refuses nodes
    that need a decomposition. report=True returns (model, report) with what became of every
    node (the JSON of `onnxlegal convert --report`, as a dict)."""
    if isinstance(profile, str) and profile not in PROFILES:
        raise ValueError("unknown profile %r; the known profiles are: %s" % (profile, ", ".join(PROFILES)))
    model = src if isinstance(src, Model) else Model.read(os.fspath(src))
    diags = Diags()
    try:
        out = legalize(model, default_registry(), opset=opset, ir_version=ir_version,
                       constant_folding=fold, decompositions=decompose,
                       profile=None if profile in (None, "none") else profile, diags=diags,
                       report=report, fold_weights=fold_weights)
        records = diagnostic_records(diags) if report else None
    finally:  # a failure raises from legalize with every diagnostic in its message
        diags.close()
    if output is not None:
        out.write(output, external_data=external_data, threshold=threshold)
    if report:
        r = _report(records)
        r.update({"source_opset": model.opset(""), "target_opset": int(opset), "ok": True})
        return out, r
    return out


__all__ = ["convert", "PROFILES"]
