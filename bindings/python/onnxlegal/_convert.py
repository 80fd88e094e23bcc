"""onnxlegal.convert: a model to another opset of the default ONNX domain, up or down (the
Python side of `onnxlegal convert`).

    m = onnxlegal.convert("model.onnx", 9)                   # an onnxlegal.Model
    onnxlegal.convert(m, 13, "model13.onnx")                 # also written
    data = onnxlegal.convert(open("m.onnx", "rb").read(), 11)  # bytes in, bytes out
    proto = onnxlegal.convert(onnx.load("m.onnx"), 11)       # ModelProto in, ModelProto out
    report = {}
    onnxlegal.convert("model.onnx", 11, "m11.onnx", report=report)  # or report="report.json"

A node that cannot be expressed at the target raises an onnxlegal.Error (UnsupportedError for
an op or attribute the opset lacks) whose message lists EVERY refused node of the model, each
with its op, the target opset and the lowest opset that works; e.diagnostics holds them as dicts.

The argument checks here (opset, profile, report) are shared with onnxlegal.torch.export, so
that both calls take the same values and refuse bad ones with the same error, before any work.
"""
import json
import numbers
import os
import warnings

from ._lib import ERR_INVALID_ARG, Error, InvalidArgumentError
from ._model import Diags, Model
from .lowering import OPSET_MAX, OPSET_MIN, default_registry, diagnostic_records, legalize


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


def bad_argument(message):
    """The InvalidArgumentError of a bad argument (raised before any work)."""
    return InvalidArgumentError(ERR_INVALID_ARG, message)


def check_opset(opset, what="opset"):
    """opset as an int, or InvalidArgumentError when it is not one the library targets."""
    if isinstance(opset, numbers.Integral) and not isinstance(opset, bool) \
            and OPSET_MIN <= int(opset) <= OPSET_MAX:
        return int(opset)
    raise bad_argument("%s must be an int from %d to %d (the opsets onnxlegal targets), not %r"
                       % (what, OPSET_MIN, OPSET_MAX, opset))


def check_profile(profile):
    """None (no profile), a built-in profile's name or an onnxlegal.profiles.Profile, as
    legalize takes it; InvalidArgumentError for an unknown name."""
    from .profiles import Profile
    if profile is None or profile == "none":
        return None
    if isinstance(profile, Profile):
        return profile
    if isinstance(profile, str) and profile in PROFILES:
        return profile
    if isinstance(profile, str):
        raise bad_argument("unknown profile %r; the known profiles are: %s"
                           % (profile, ", ".join(PROFILES)))
    raise bad_argument("profile must be None, a profile name (%s) or an "
                       "onnxlegal.profiles.Profile, not %s" % (", ".join(PROFILES),
                                                               type(profile).__name__))


def check_report(report):
    """report= of convert and export: None (no report), a dict (filled in place) or a path
    (str or os.PathLike: the report written there as JSON)."""
    if report is None or report is False or isinstance(report, dict):
        return None if report is False else report
    if isinstance(report, (str, os.PathLike)):
        return report
    raise bad_argument("report must be a dict to fill or a path to write the JSON report to, "
                       "not %r" % (report,))


def emit_report(report, rep):
    """Fills the dict report with rep, or writes rep to the path report as JSON."""
    if report is None:
        return
    if isinstance(report, dict):
        report.update(rep)
        return
    with open(os.fspath(report), "w") as fh:
        json.dump(rep, fh, indent=1, default=str)


def _read(src):
    """(the source Model, its kind): src a path, bytes-like, a ModelProto or a Model."""
    if isinstance(src, Model):
        return src, "model"
    if isinstance(src, (bytes, bytearray, memoryview)):
        return Model.from_bytes(bytes(src)), "bytes"
    if isinstance(src, (str, os.PathLike)):
        return Model.read(os.fspath(src)), "path"
    if callable(getattr(src, "SerializeToString", None)):  # an onnx.ModelProto (duck-typed)
        return Model.from_bytes(src.SerializeToString()), "proto"
    raise TypeError("convert takes a path, bytes, an onnx.ModelProto or an onnxlegal.Model, "
                    "not %s" % type(src).__name__)


def convert(src, opset, output=None, *, ir_version=None, profile=None, external_data=None,
            threshold=1024, fold=True, decompose=True, report=None, fold_weights=False,
            keep_functions=False):
    """Converts src to `opset` (OPSET_MIN..OPSET_MAX) and returns the result as the kind src was given:
    src a path or an onnxlegal.Model: a new onnxlegal.Model (which keeps src alive); bytes
    (bytearray, memoryview): bytes; an onnx.ModelProto: a ModelProto of the same class. With
    `output` (a path or a binary file object) it is also written there (external_data: a file
    name beside it for tensors of at least `threshold` bytes).

    profile: None/"none", a built-in profile's name (PROFILES: "ort", "tensorrt", ...) or an
    onnxlegal.profiles.Profile (the same as export's profile=). fold=False keeps small constant
    shape computations as nodes; fold_weights=True folds each inference BatchNormalization into
    the Conv/Gemm/MatMul before it and merges byte-equal initializers; decompose=False refuses
    nodes that need a decomposition; keep_functions=True keeps the model-local functions that
    the main graph calls, their bodies converted (one copy per call signature; opset >= 15,
    below the calls are inlined with a warning).

    report (as in onnxlegal.torch.export): a dict, filled with what became of every node (the
    JSON of `onnxlegal convert --report`), or a path the report is written to as JSON; on a
    refusal it is filled (written) too, with "ok": False and the refusals, before the error is
    raised. (report=True, the old way, still returns (result, report), with a
    DeprecationWarning.)

    Before any work, an opset out of range, an unknown profile or a bad report argument raise
    InvalidArgumentError (a ValueError); an object of another kind than the above a TypeError.
    The conversion's own failures raise other onnxlegal.Error subclasses."""
    opset = check_opset(opset)
    profile = check_profile(profile)
    as_tuple = report is True
    if as_tuple:
        warnings.warn("convert(report=True) is deprecated: pass a dict to fill (report={}) "
                      "or a path to write the JSON to", DeprecationWarning, stacklevel=2)
        report = {}
    report = check_report(report)
    model, kind = _read(src)
    source_opset = model.opset("")
    diags = Diags()
    try:
        try:
            # a source read here is the conversion's alone: given up to it (olg_legalize_consume),
            # a large graph is not held twice; a Model of the caller's is only read
            out = legalize(model, default_registry(), opset=opset, ir_version=ir_version,
                           constant_folding=fold, decompositions=decompose, profile=profile,
                           diags=diags, report=report is not None, fold_weights=fold_weights,
                           keep_functions=keep_functions, _consume=kind != "model")
        except Error:
            if report is not None:  # the refusals, as `onnxlegal convert --report` writes them
                emit_report(report, dict(_report(diagnostic_records(diags)),
                                         source_opset=source_opset, target_opset=opset, ok=False))
            raise
        records = diagnostic_records(diags) if report is not None else None
    finally:  # a failure raises from legalize with every diagnostic in its message
        diags.close()
    if output is not None:
        out.write(output, external_data=external_data, threshold=threshold)
    if report is not None:
        rep = _report(records)
        rep.update({"source_opset": source_opset, "target_opset": opset, "ok": True})
        emit_report(report, rep)
    if kind == "bytes":
        result = out.to_bytes()
    elif kind == "proto":
        result = type(src).FromString(out.to_bytes())
    else:
        result = out
    if kind in ("bytes", "proto"):  # nothing of it is handed out: free it now
        out.close()
    return (result, report) if as_tuple else result


__all__ = ["convert", "PROFILES", "check_opset", "check_profile", "check_report"]
