"""onnxlegal.torch: export a PyTorch model to ONNX through libonnxlegal.

    import onnxlegal.torch
    onnxlegal.torch.export(model, (x,), "model.onnx", opset_version=13,
                           input_names=["input"], output_names=["output"],
                           dynamic_axes={"input": {0: "batch"}, "output": {0: "batch"}})

The arguments mean what torch.onnx.export's arguments of the same names mean. The model is traced
(TorchScript trace), the trace is walked into a source graph of aten ops (onnxlegal._torch_trace),
the library legalizes that graph for the opset (and target runtime) asked for, and writes it.
Parameters are never copied: the written tensors are read from the torch tensors' own memory.
"""
import json
import os
import time

import torch

from . import _dtypes
from ._torch_trace import (Bools, Floats, Ints, SValue, TorchExportError, Values,
                           build_source_graph)

__all__ = ["export", "trace", "export_traced", "to_source_model", "ExportError",
           "UnsupportedOpsError"]


class ExportError(TorchExportError):
    """The model could not be exported; the message says what and where.

    diagnostics holds the library's findings (dicts with severity, code, node, op, opset,
    message), report the export report gathered so far."""

    def __init__(self, message, diagnostics=(), report=None):
        super().__init__(message)
        self.diagnostics = list(diagnostics)
        self.report = report


class UnsupportedOpsError(ExportError):
    """Ops with no symbolic at the requested opset, or whose symbolic refuses these nodes there.
    unsupported maps "domain::op" to {"nodes": [every node name where it occurs], "min_opset":
    the lowest opset that lowers it, or None when none does} (and "messages", the library's
    diagnostics, when the symbolic refused)."""

    def __init__(self, message, unsupported, diagnostics=(), report=None):
        super().__init__(message, diagnostics, report)
        self.unsupported = unsupported


_OLG_DTYPE = {
    torch.float32: _dtypes.FLOAT, torch.float64: _dtypes.DOUBLE, torch.float16: _dtypes.FLOAT16,
    torch.bfloat16: _dtypes.BFLOAT16, torch.int64: _dtypes.INT64, torch.int32: _dtypes.INT32,
    torch.int16: _dtypes.INT16, torch.int8: _dtypes.INT8, torch.uint8: _dtypes.UINT8,
    torch.bool: _dtypes.BOOL, torch.complex64: _dtypes.COMPLEX64,
    torch.complex128: _dtypes.COMPLEX128,
}


def olg_dtype(dt):
    try:
        return _OLG_DTYPE[dt]
    except KeyError:
        raise ExportError("torch dtype %s has no ONNX element type" % dt) from None


# ----------------------------------------------------------------------------------------------
# The source model: the walked graph through the binding

def to_source_model(sg):
    """Builds the library's source model (aten nodes, borrowed initializers) from a SourceGraph.
    Returns the onnxlegal.Model; it keeps the numpy views (and so the torch tensors) alive."""
    from . import Model
    m = Model(opset=None, name="main_graph")
    m._borrow(sg)  # the SInits own the torch tensors the initializers point into
    g = m.graph
    out_name = {}
    for v, name in sg.outputs:
        out_name[v.id] = name
    used = set()

    def unique(name):
        base, k = name, 1
        while name in used:
            k += 1
            name = "%s_%d" % (base, k)
        used.add(name)
        return name

    used.update(out_name.values())
    used.update(si.name for si in sg.inputs)
    vals = {}
    for si in sg.inputs:
        vals[si.value.id] = g.add_input(si.name, olg_dtype(si.dtype), si.shape)
    for init in sg.initializers:
        name = out_name.get(init.value.id) or unique(init.name)
        vals[init.value.id] = g.add_initializer(name, init.array, dtype=olg_dtype(init.dtype))

    def conv(a):
        if isinstance(a, SValue):
            return vals[a.id]
        if isinstance(a, Values):
            if a and all(x is None for x in a):
                raise ExportError("a list argument of only None values is not supported")
            return [None if x is None else vals[x.id] for x in a]
        if isinstance(a, Bools):
            return [int(x) for x in a]
        if isinstance(a, Floats):
            return [float(x) for x in a]
        if isinstance(a, Ints):
            return [int(x) for x in a]
        return a

    add = g.source_node
    for n in sg.nodes:
        if getattr(n, "blocks", None):  # a scripted If / Loop (onnxlegal._torch_script)
            from ._torch_script import add_control
            outs = add_control(m, g, n, conv, vals)
        else:
            args = [conv(a) for a in n.args]
            names = [out_name.get(o.id) for o in n.outputs]
            outs = add(n.domain, n.op, args, names if any(names) else len(n.outputs),
                       name=n.name or None)
        if len(n.outputs) == 1:
            outs = (outs,)
        for o, r in zip(n.outputs, outs):
            vals[o.id] = r
    for v, name in sg.outputs:
        g.add_output(vals[v.id])
    return m


# ----------------------------------------------------------------------------------------------
# Legalize, through the binding's lowering wrapper

class _Lowering:
    """The binding's registry and legalize (onnxlegal.lowering), as export uses them."""

    def __init__(self, lowering):
        self.low = lowering

    def registry(self, custom_symbolics=None):
        if not custom_symbolics:
            return _RegistryView(self.low.default_registry())
        reg = self.low.Registry(builtin=True)
        for key, fn in custom_symbolics.items():
            if "::" not in key:
                raise ExportError("custom_symbolics keys are \"domain::op\" (e.g. "
                                  "\"mmcv::MSDeformAttn\"), not %r" % key)
            domain, op = key.split("::", 1)
            since = self.low.OPSET_MIN
            if isinstance(fn, tuple):  # (fn, since_opset)
                fn, since = fn
            if not callable(fn):
                raise ExportError("custom_symbolics[%r] is not callable" % key)
            reg.add(domain, op, fn, since=since)
        return _RegistryView(reg.freeze())

    def legalize(self, src, registry, opset, profile):
        """(legalized model, diagnostics); the model is None when legalize failed."""
        from . import Diags, Error
        diags = Diags()
        try:
            out = self.low.legalize(src, registry.reg, opset=opset, profile=profile, diags=diags)
        except Error as e:
            found = list(diags)
            if not any(d["severity"] == "error" for d in found):
                found.append({"severity": "error", "code": "legalize", "node": None,
                              "domain": None, "op": None, "opset": opset, "message": str(e)})
            return None, found
        return out, list(diags)


class _RegistryView:
    def __init__(self, reg):
        self.reg = reg

    def lowering(self, domain, op, opset):
        return self.reg.lowering(domain, op, opset) is not None

    def lowering_name(self, domain, op, opset):
        return self.reg.lowering(domain, op, opset) or "none"

    def min_opset(self, domain, op):
        return self.reg.min_opset(domain, op)

    def since(self, domain, op, opset):
        return self.reg.since(domain, op, opset)


def _lowering():
    try:
        from . import lowering
    except ImportError as e:
        raise ExportError("the library's lowering (onnxlegal.lowering) is not available: %s"
                          % e) from e
    return _Lowering(lowering)


def _preflight(registry, sg, opset):
    """Every (domain, op) of the source graph that no symbolic lowers at opset, with every node
    where it occurs and the lowest opset that would work; {} when all lower."""
    missing = {}
    for key, scopes in sg.ops().items():
        domain, op = key.split("::", 1)
        if not domain or registry.lowering(domain, op, opset):
            continue  # ONNX-domain nodes (scripted If/Loop): the pass-through says what it lacks
        lowest = registry.min_opset(domain, op)
        missing[key] = {"nodes": list(scopes),
                        "min_opset": lowest if lowest is not None and lowest >= 0 else None}
    return missing


def _unsupported_message(missing, opset):
    never = {k: v for k, v in missing.items() if v["min_opset"] is None}
    later = {k: v for k, v in missing.items() if v["min_opset"] is not None}
    lines = []
    if never:
        lines.append("%d op(s) have no symbolic at any opset (register one with "
                     "custom_symbolics={\"domain::op\": fn}):" % len(never))
        for k, v in sorted(never.items()):
            lines.append("  %s, %d node(s): %s" % (k, len(v["nodes"]), _places(v["nodes"])))
    if later:
        lines.append("%d op(s) cannot be expressed at opset %d:" % (len(later), opset))
        for k, v in sorted(later.items()):
            lines.append("  %s needs opset >= %d; %d node(s): %s"
                         % (k, v["min_opset"], len(v["nodes"]), _places(v["nodes"])))
    return "\n".join(lines)


def _unsupported_from_diags(errors):
    """UnsupportedOpsError.unsupported from the library's OLG-LOWER-UNSUPPORTED diagnostics:
    the lowest opset is the one their message names ("it needs opset >= N"), when the same for
    every node of the op."""
    import re
    out = {}
    for d in errors:
        key = "%s::%s" % (d.get("domain") or "onnx", d.get("op") or "?")
        rec = out.setdefault(key, {"nodes": [], "min_opset": None, "messages": [], "_mins": set()})
        rec["nodes"].append(d.get("node") or "(top level)")
        rec["messages"].append(d["message"])
        m = re.search(r"needs opset >= (\d+)", d["message"])
        rec["_mins"].add(int(m.group(1)) if m else None)
    for rec in out.values():
        mins = rec.pop("_mins")
        rec["min_opset"] = max(mins) if mins and None not in mins else None
    return out


def _places(nodes, limit=50):
    shown = ", ".join(nodes[:limit])
    return shown + (" ... and %d more" % (len(nodes) - limit) if len(nodes) > limit else "")


# ----------------------------------------------------------------------------------------------
# Writing

def _write(model, f, external_data_threshold):
    """Writes to a path or a binary file object (Model.write); tensors of at least
    external_data_threshold bytes go to one external data file beside the model ("<model
    file>.data")."""
    if isinstance(f, (str, bytes, os.PathLike)):
        path = os.fsdecode(f)
    elif hasattr(f, "write"):
        path = getattr(f, "name", None) if isinstance(getattr(f, "name", None), str) else None
    else:
        raise ExportError("f must be a path or a binary file object, not %s" % type(f).__name__)
    if external_data_threshold is None:
        return model.write(f)
    if not path:
        raise ExportError("external data needs a model file with a name (f is a file object "
                          "without one)")
    return model.write(f, external_data=os.path.basename(path) + ".data",
                       threshold=int(external_data_threshold),
                       external_data_dir=os.path.dirname(os.path.abspath(path)))


# ----------------------------------------------------------------------------------------------
# export

def export(model, args, f, *, opset_version=17, input_names=None, output_names=None,
           dynamic_axes=None, target=None, extra_outputs=None, custom_symbolics=None,
           external_data_threshold=None, report=None):
    """Exports model (an nn.Module or a function of tensors) run on args to the ONNX file f.

    args: a tensor, or a tuple of tensors (nested tuples, lists and dicts of tensors are
      flattened in order; a dict as the last element holds keyword arguments), as for
      torch.onnx.export. Python numbers in args are constants of the trace.
    f: a path, or a binary file object.
    opset_version: the target opset of the default ONNX domain.
    input_names / output_names: names of the flattened inputs / outputs, in order (the rest get
      "input_<k>" / "output_<k>").
    dynamic_axes: {input or output name: [dims]} or {name: {dim: "symbolic name"}}; those dims
      stay symbolic, and the model runs at other sizes of them.
    target: a target runtime profile for the library ("tensorrt"), or None.
    extra_outputs: names of submodules ("layer1.0.conv1") or of values of the trace, whose
      values become extra graph outputs (for debugging), after the model's own outputs.
    custom_symbolics: {"domain::op": fn} (or fn replaced by (fn, since_opset)), symbolic functions
      registered for this export through the binding's registry (onnxlegal.lowering): fn(cx, node)
      reads the node's arguments from cx (a lowering.Lower), emits ONNX or custom-domain nodes
      and binds the outputs. They override the built-ins of the same op. A Function without a
      trace of its insides (an autograd Function) is the op "autograd::<its class name>"; an op
      of a torch.library namespace is "<namespace>::<op>".
    external_data_threshold: when not None, tensors of at least this many bytes are written to
      "<f>.data" beside the model instead of inside it.
    report: a dict to fill, or a path to write the report to as JSON: the source ops seen (count,
      lowering "native" or "decomposed" at this opset, the opset its symbolic is registered
      from, the ONNX ops its nodes became, and the library's notes about it), the ONNX ops
      written, diagnostics, node counts, bytes, and the time of each stage (trace, walk, build,
      preflight, legalize, write).

    Returns the report (a dict). Raises UnsupportedOpsError listing every op without a symbolic
    and every node where it occurs (and, for an op that needs a higher opset, the lowest that
    works), before anything is written; ExportError for other failures."""
    t_start = time.perf_counter()
    sg = build_source_graph(model, args, input_names=input_names, output_names=output_names,
                            dynamic_axes=dynamic_axes, extra_outputs=extra_outputs)
    return export_traced(sg, f, opset_version=opset_version, target=target,
                         custom_symbolics=custom_symbolics,
                         external_data_threshold=external_data_threshold, report=report,
                         _t_start=t_start)


def trace(model, args, *, input_names=None, output_names=None, dynamic_axes=None,
          extra_outputs=None):
    """The first half of export: the traced and walked SourceGraph (plain Python), to look at,
    or to export at several opsets with export_traced without tracing again."""
    return build_source_graph(model, args, input_names=input_names, output_names=output_names,
                              dynamic_axes=dynamic_axes, extra_outputs=extra_outputs)


def export_traced(sg, f, *, opset_version=17, target=None, custom_symbolics=None,
                  external_data_threshold=None, report=None, source_model=None, _t_start=None):
    """The second half of export: legalizes a SourceGraph (from trace) for opset_version and
    writes it to f. source_model (from to_source_model(sg)) may be given to reuse one across
    opsets; legalize only reads it."""
    t_start = _t_start if _t_start is not None else time.perf_counter()
    opset = int(opset_version)
    rep = {"opset": opset, "target": target, "times": dict(sg.times)}
    times = rep["times"]
    rep["tracer_warnings"] = sorted(set(sg.warnings))
    rep["source_nodes"] = len(sg.nodes)
    rep["inputs"] = [{"name": si.name, "dtype": str(si.dtype).replace("torch.", ""),
                      "shape": list(si.shape)} for si in sg.inputs]
    rep["outputs"] = [name for _, name in sg.outputs]
    rep["initializer_bytes"] = int(sum(i.array.nbytes for i in sg.initializers))
    try:
        t = time.perf_counter()
        src = source_model if source_model is not None else to_source_model(sg)
        times["build"] = time.perf_counter() - t
        t = time.perf_counter()
        low = _lowering()
        registry = low.registry(custom_symbolics)
        ops = {}
        for key, scopes in sg.ops().items():
            domain, op = key.split("::", 1)
            ops[key] = {"count": len(scopes), "lowering": registry.lowering_name(domain, op, opset),
                        "since": registry.since(domain, op, opset)}
        rep["ops"] = ops
        missing = _preflight(registry, sg, opset)
        times["preflight"] = time.perf_counter() - t
        if missing:
            raise UnsupportedOpsError(_unsupported_message(missing, opset), missing, report=rep)
        t = time.perf_counter()
        out, diags = low.legalize(src, registry, opset=opset, profile=target)
        times["legalize"] = time.perf_counter() - t
        rep["diagnostics"] = diags
        if out is None:
            errors = [d for d in diags if d.get("severity") == "error"]
            text = "\n".join("  " + d["message"] for d in errors) or "  (no diagnostic)"
            if errors and all(d.get("code") == "OLG-LOWER-UNSUPPORTED" for d in errors):
                # the symbolics exist but refuse these nodes' arguments at this opset
                raise UnsupportedOpsError("%d node(s) cannot be lowered at opset %d:\n%s"
                                          % (len(errors), opset, text),
                                          _unsupported_from_diags(errors), diags, rep)
            raise ExportError("legalize failed at opset %d:\n%s" % (opset, text), diags, rep)
        _name_output_dims(out, sg)
        for d in diags:
            key = "%s::%s" % (d.get("domain") or "", d.get("op") or "")
            if key in ops:
                ops[key].setdefault("notes", []).append(d["message"])
        emitted = out.graph.nodes
        rep["nodes"] = len(emitted)
        source_op = {n.name: "%s::%s" % (n.domain, n.op) for n in sg.nodes}
        hist = {}
        for node in emitted:
            key = "%s::%s" % (node.domain, node.op) if node.domain else node.op
            hist[key] = hist.get(key, 0) + 1
            # "<source node name>/<Op>[_k]": what each source op was lowered into
            src = source_op.get(node.name.rpartition("/")[0])
            if src in ops:
                into = ops[src].setdefault("onnx_ops", {})
                into[key] = into.get(key, 0) + 1
        rep["onnx_ops"] = dict(sorted(hist.items()))
        t = time.perf_counter()
        from . import Error
        try:
            rep["bytes_written"] = _write(out, f, external_data_threshold)
        except Error as e:
            where = os.fspath(f) if isinstance(f, (str, bytes, os.PathLike)) else \
                getattr(f, "name", f)
            raise ExportError("writing the model to %r failed: %s" % (where, e), diags,
                              rep) from e
        times["write"] = time.perf_counter() - t
        times["total"] = time.perf_counter() - t_start
    finally:
        _emit_report(report, rep)
    return rep


def _name_output_dims(out, sg):
    """dynamic_axes on an output names those dims in the written model, as torch.onnx does,
    whatever inference made of them (a number from the trace's sizes, or another name)."""
    dyn = getattr(sg, "dynamic_axes", None) or {}
    if not any(name in dyn for _, name in sg.outputs):
        return
    for v in out.graph.outputs:
        dims = dyn.get(v.name)
        if not dims:
            continue
        shape = v.shape
        if shape is None:
            raise ExportError("dynamic_axes: the rank of output %r is not known after "
                              "legalize, so its dims cannot be named" % v.name)
        shape = list(shape)
        for d, dname in dims.items():
            if d >= len(shape):
                raise ExportError("dynamic_axes: output %r has rank %d, no dim %d"
                                  % (v.name, len(shape), d))
            shape[d] = dname
        v.set_type(v.dtype_code, shape)


def _emit_report(report, rep):
    if report is None:
        return
    if isinstance(report, dict):
        report.update(rep)
        return
    with open(os.fspath(report), "w") as fh:
        json.dump(rep, fh, indent=1, default=str)
