"""onnxlegal.torch: export a PyTorch model to ONNX through libonnxlegal.

    import onnxlegal.torch
    onnxlegal.torch.export(model, (x,), "model.onnx", opset_version=13,
                           input_names=["input"], output_names=["output"],
                           dynamic_axes={"input": {0: "batch"}, "output": {0: "batch"}})
    onnxlegal.torch.export(model, (x,), "model.onnx", opset_version=13, profile="tensorrt",
                           report="report.json")

The arguments mean what torch.onnx.export's arguments of the same names mean. The model is traced
(TorchScript trace), the trace is walked into a source graph of aten ops (onnxlegal._torch_trace),
the library legalizes that graph for the opset (and target runtime) asked for, and writes it.
Parameters are never copied: the written tensors are read from the torch tensors' own memory.
"""
import os
import time
import warnings

import torch

from . import _torch_compat, _torch_functions, _torch_fx, _torch_graph
from ._torch_compat import register_custom_op_symbolic, unregister_custom_op_symbolic
from ._convert import bad_argument, check_opset, check_profile, check_report, emit_report
from ._torch_graph import Bools, ExportError, Floats, Ints, SInput, SValue, Values
from ._torch_graph import OLG_DTYPE as _OLG_DTYPE
from ._torch_trace import build_source_graph

# the walk's name for ExportError (the same class)
TorchExportError = ExportError

__all__ = ["export", "trace", "export_traced", "to_source_model", "ExportError",
           "UnsupportedOpsError", "register_custom_op_symbolic", "unregister_custom_op_symbolic"]


class UnsupportedOpsError(ExportError):
    """Ops with no symbolic at the requested opset, or whose symbolic refuses these nodes there.
    unsupported maps "domain::op" to {"nodes": [every node name where it occurs], "min_opset":
    the lowest opset that lowers it, or None when none does} (and "messages", the library's
    diagnostics, when the symbolic refused)."""

    def __init__(self, message, unsupported, diagnostics=(), report=None):
        super().__init__(message, diagnostics, report)
        self.unsupported = unsupported




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

    def conv(a, vals=vals):
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
    items = getattr(sg, "function_plan", None)
    if items:  # export_modules_as_functions: calls of model-local functions
        from . import _torch_functions
        items = _torch_functions.add_items(m, g, items, conv, vals, out_name, olg_dtype)
    for n in (items or sg.nodes):
        if getattr(n, "blocks", None) is not None:  # If / Loop / sequence op of scripted code
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
            if o.dtype is not None and o.dtype.is_complex:  # carried with a last dim of 2
                r.set_type(olg_dtype(o.dtype), None)
    for v, name in sg.outputs:
        g.add_output(vals[v.id])
    return m


# ----------------------------------------------------------------------------------------------
# Legalize, through the binding's lowering wrapper

class _Lowering:
    """The binding's registry and legalize (onnxlegal.lowering), as export uses them."""

    def __init__(self, lowering):
        self.low = lowering

    def registry(self, custom_symbolics=None, custom_shape_fns=None, custom_opsets=None):
        if not custom_symbolics and not custom_shape_fns and not custom_opsets:
            return _RegistryView(self.low.default_registry())
        reg = self.low.Registry(builtin=True)
        shaped = set()
        for key, fn in (custom_shape_fns or {}).items():
            domain, op = _split_key(key, "custom_shape_fns")
            if domain in ("", "ai.onnx"):
                raise ExportError("custom_shape_fns[%r]: ONNX-domain ops are inferred by the "
                                  "library; a shape function is for a custom domain's op" % key)
            if not callable(fn):
                raise ExportError("custom_shape_fns[%r] is not callable" % key)
            reg.add_shape_fn(domain, op, fn)
            shaped.add("%s::%s" % (domain, op))
        for domain, version in (custom_opsets or {}).items():
            if not isinstance(domain, str) or domain in ("", "ai.onnx"):
                raise ExportError("custom_opsets: %r is not a custom domain (the default "
                                  "domain's version is opset_version)" % (domain,))
            if not isinstance(version, int) or isinstance(version, bool) or version < 1:
                raise ExportError("custom_opsets[%r] must be an int >= 1, not %r"
                                  % (domain, version))
            reg.set_domain_version(domain, version)
        view = _RegistryView(None)
        for key, fn in (custom_symbolics or {}).items():
            domain, op = _split_key(key, "custom_symbolics")
            since = self.low.OPSET_MIN
            if isinstance(fn, tuple):  # (fn, since_opset)
                fn, since = fn
            if not callable(fn):
                raise ExportError("custom_symbolics[%r] is not callable" % key)
            fn = _torch_compat.adapt(key, fn, view.symbolic_errors)  # torch-style (g, *args) too
            reg.add(domain, op, _spying(fn, shaped, view.emitted_without_shape), since=since)
        view.reg = reg.freeze()
        return view

    def legalize(self, src, registry, opset, profile, fold=True,
                 keep_initializers_as_inputs=False, keep_functions=False):
        """(legalized model, diagnostics); the model is None when legalize failed."""
        from . import Diags, Error
        diags = Diags()
        try:
            out = self.low.legalize(src, registry.reg, opset=opset, profile=profile, diags=diags,
                                    constant_folding=fold, fold_weights=fold,
                                    keep_initializers_as_inputs=keep_initializers_as_inputs,
                                    keep_functions=keep_functions)
        except Error as e:
            found = list(diags)
            if not any(d["severity"] == "error" for d in found):
                found.append({"severity": "error", "code": "legalize", "node": None,
                              "domain": None, "op": None, "opset": opset, "message": str(e)})
            return None, found
        return out, list(diags)


def _split_key(key, what):
    if not isinstance(key, str) or "::" not in key:
        raise ExportError("%s keys are \"domain::op\" (e.g. \"mmcv::MSDeformAttn\"), not %r"
                          % (what, key))
    return key.split("::", 1)


class _EmitSpy:
    """The lowering context handed to a custom symbolic: the same, except that emit notes the
    custom-domain ops emitted that have no shape function (for the error that follows)."""

    def __init__(self, cx, shaped, record):
        self._cx, self._shaped, self._record = cx, shaped, record

    def __getattr__(self, name):
        return getattr(self._cx, name)

    def emit(self, op, inputs=(), attrs=None, domain="", outputs=1, **kwattrs):
        if domain not in ("", "ai.onnx") and "%s::%s" % (domain, op) not in self._shaped:
            key = "%s::%s" % (domain, op)
            if key not in self._record:
                self._record.append(key)
        return self._cx.emit(op, inputs, attrs, domain, outputs, **kwattrs)


def _spying(fn, shaped, record):
    def symbolic(cx, node):
        return fn(_EmitSpy(cx, shaped, record), node)
    return symbolic


class _RegistryView:
    def __init__(self, reg):
        self.reg = reg
        self.emitted_without_shape = []
        self.symbolic_errors = []  # exceptions of the caller's symbolics, for __cause__

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


def _unsupported_message(missing, opset, sg=None):
    by_name = {n.name: n for n in sg.nodes} if sg is not None else {}

    def at(nodes):
        # the Python line of the first node of the op, when the trace knows it
        where = _python_line(by_name.get(nodes[0])) if nodes else ""
        return "\n    first at " + where if where else ""

    never = {k: v for k, v in missing.items() if v["min_opset"] is None}
    later = {k: v for k, v in missing.items() if v["min_opset"] is not None}
    lines = []
    if never:
        lines.append("%d op(s) have no symbolic at any opset (register one with "
                     "custom_symbolics={\"domain::op\": fn}):" % len(never))
        for k, v in sorted(never.items()):
            lines.append("  %s, %d node(s): %s%s" % (k, len(v["nodes"]), _places(v["nodes"]),
                                                    at(v["nodes"])))
    if later:
        lines.append("%d op(s) cannot be expressed at opset %d:" % (len(later), opset))
        for k, v in sorted(later.items()):
            lines.append("  %s needs opset >= %d; %d node(s): %s%s"
                         % (k, v["min_opset"], len(v["nodes"]), _places(v["nodes"]),
                            at(v["nodes"])))
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

def default_opset():
    """The installed torch's default opset for torch.onnx.export (14 for torch 1.13)."""
    for where in ("torch.onnx._constants", "torch.onnx.symbolic_helper"):
        try:
            mod = __import__(where, fromlist=["x"])
        except ImportError:
            continue
        for attr in ("ONNX_DEFAULT_OPSET", "onnx_default_opset", "_default_onnx_opset_version"):
            if isinstance(getattr(mod, attr, None), int):
                return getattr(mod, attr)
    return 14


# torch.onnx's own enums when torch has them (1.13: torch.onnx.TrainingMode,
# torch.onnx.OperatorExportTypes), their names otherwise
TrainingMode = getattr(torch.onnx, "TrainingMode", None)
OperatorExportTypes = getattr(torch.onnx, "OperatorExportTypes", None)
_EVAL = TrainingMode.EVAL if TrainingMode is not None else "EVAL"
_ONNX = OperatorExportTypes.ONNX if OperatorExportTypes is not None else "ONNX"

# Protocol buffers cannot hold more than 2 GiB; a model whose tensors come near that goes to
# external data (with room left for the graph itself).
EXTERNAL_DATA_AUTO_BYTES = 2 ** 31 - 2 ** 26
# tensors of at least this many bytes go to the external file then (onnx's own default)
EXTERNAL_DATA_AUTO_THRESHOLD = 1024


def _enum_name(v, what, names):
    name = getattr(v, "name", v)
    if isinstance(name, str) and name.upper() in names:
        return name.upper()
    if what == "training" and isinstance(v, bool):  # torch < 1.12 took a bool
        return "TRAINING" if v else "EVAL"
    raise ExportError("%s must be one of %s (torch.onnx.%s), not %r"
                      % (what, ", ".join(names), "TrainingMode" if what == "training" else
                         "OperatorExportTypes", v))


def export(model, args, f, export_params=True, verbose=False, training=_EVAL, input_names=None,
           output_names=None, operator_export_type=_ONNX, opset_version=None,
           do_constant_folding=True, dynamic_axes=None, keep_initializers_as_inputs=None,
           custom_opsets=None, export_modules_as_functions=False, *, profile=None,
           extra_outputs=None, custom_symbolics=None, custom_shape_fns=None,
           external_data_threshold=None, report=None, target=None, source_module=None):
    """Exports model (an nn.Module or a function of tensors) run on args to the ONNX file f.

    A torch.fx.GraphModule of ATen ops (functorch's make_fx in torch 1.13, torch.export in
    torch 2) is read as it is, not traced (onnxlegal._torch_fx): its nodes become the source
    graph, in-place ops made functional; the same arguments apply (training and
    export_modules_as_functions aside: the graph is fixed).

    The arguments up to export_modules_as_functions are torch.onnx.export's (torch 1.13), in
    its order, with its meanings:
    args: a tensor, or a tuple of tensors (nested tuples, lists and dicts of tensors are
      flattened in order; a dict as the last element holds keyword arguments). Python numbers
      in args are constants of the trace. A scripted model's non-tensor parameters (int, float,
      bool, str, Optional, lists) take the Python value passed (by position, or by name in the
      dict) or else their default, as a constant of the export, not an input.
    f: a path, or a binary file object.
    export_params: True: the parameters are initializers of the graph; False: they are graph
      inputs after the model's own inputs (named after the parameters), and the file holds no
      weights.
    verbose: prints the exported graph (text form) to stdout.
    training: torch.onnx.TrainingMode. EVAL (default): traced in eval mode; TRAINING: in train
      mode, Dropout and BatchNormalization keep their training behaviour (Dropout's
      training_mode input, opset 12+; BatchNormalization's training_mode, opset 14+) or the
      export is refused naming the node; PRESERVE: each module's own mode.
    operator_export_type: torch.onnx.OperatorExportTypes. ONNX (default) and ONNX_ATEN_FALLBACK
      (the same here while every op lowers to ONNX; an op that does not is refused, since
      onnxlegal never writes ATen nodes) are accepted; ONNX_ATEN (every op as an ATen node) and
      ONNX_FALLTHROUGH (unlowered ops left as aten nodes) are refused: they make models only
      Caffe2/PyTorch can run.
    opset_version: the target opset of the default ONNX domain, OPSET_MIN to OPSET_MAX
      (lowering.py); None: the installed
      torch's default (default_opset()).
    do_constant_folding: fold at export time (default on): BatchNormalization into the
      preceding Conv/Gemm/MatMul, constant subgraphs into constants, byte-equal initializers
      merged (the library's legalize option fold_weights and its constant folding).
    input_names / output_names: names of the flattened inputs / outputs, in order. The inputs
      without one get "input_<k>" ("input_0" for a single tensor too; a nested input
      "input_<k>_<j>", a dict's "input_<key>"); the outputs "output" when the model has one,
      else "output_<k>".
    dynamic_axes: {input or output name: [dims]} or {name: {dim: "symbolic name"}}; those dims
      stay symbolic, and the model runs at other sizes of them.
    keep_initializers_as_inputs: also list the initializers among the graph inputs (Caffe2 and
      some old runtimes need it); None: False, except where the IR version requires it.
    custom_opsets: {domain: version}: the version written in opset_import for a custom domain
      the custom symbolics emit into (1 when not given).
    export_modules_as_functions: True (every submodule type the model calls) or a set of
      nn.Module types: each call of a module of a selected type becomes a call of a model-local
      function (FunctionProto) named after the class, in the domain of its Python module
      (`__main__.Block`, `torch.nn.modules.linear.Linear`, as torch names them), whose inputs
      are what the module reads (its parameters too, passed from the initializers) and whose
      body is converted to the target (Model.functions of the written model). Calls with the
      same body share one function; a call whose constants differ (another eps) gets a copy,
      `Block__2` (torch writes them as `inferred::` attributes instead). A selected module
      inside another is part of the outer body; True does not wrap the root module (a set
      naming its type does). Below opset 15 (IR < 8, no local functions) the modules are
      exported inlined with a UserWarning (torch refuses). The rules:
      onnxlegal._torch_functions.

    onnxlegal's own arguments (keyword only):
    profile: a target runtime profile of the library: None/"none", a built-in profile's name
      (onnxlegal.PROFILES: "ort", "tensorrt", ...) or an onnxlegal.profiles.Profile, as in
      onnxlegal.convert. target= is its old name (deprecated: a DeprecationWarning).
    extra_outputs: names of submodules ("layer1.0.conv1") or of values of the trace, whose
      values become extra graph outputs (for debugging), after the model's own outputs.
    custom_symbolics: {"domain::op": fn} (or fn replaced by (fn, since_opset)), symbolic functions
      registered for this export through the binding's registry (onnxlegal.lowering): fn(cx, node)
      reads the node's arguments from cx (a lowering.Lower), emits ONNX or custom-domain nodes
      and binds the outputs. They override the built-ins of the same op. A Function without a
      trace of its insides (an autograd Function) is the op "autograd::<its class name>"; an op
      of a torch.library namespace is "<namespace>::<op>". fn may also be torch.onnx's
      fn(g, *args) (a first parameter named g, or not exactly two positional ones); an
      autograd Function's own `symbolic` staticmethod and register_custom_op_symbolic's
      registrations are used without this (docs/python.md, torch-style symbolics).
    custom_shape_fns: {"domain::op": fn(sx)}: the shape function of a custom-domain op that the
      custom symbolics emit (lowering.Registry.add_shape_fn): without one, the types of its
      outputs are unknown to the ops after it.
    external_data_threshold: tensors of at least this many bytes are written to "<f>.data"
      beside the model instead of inside it. None: only when the tensors come near protobuf's
      2 GiB limit (EXTERNAL_DATA_AUTO_BYTES), then every tensor of 1 KiB or more.
    source_module: for a GraphModule of ATen ops, the nn.Module it was made from: its
      parameter and buffer names name the initializers (found by tensor identity; without it
      they keep the FX names, _param_constant0 ...).
    report (as in onnxlegal.convert): a dict to fill, or a path to write the report to as JSON
      (also when lowering or writing fails, with what was gathered): the source ops seen (count,
      lowering "native" or "decomposed" at this opset, the opset its symbolic is registered
      from, the ONNX ops its nodes became, and the library's notes about it), the ONNX ops
      written, diagnostics, node and initializer counts, bytes, and the time of each stage
      (trace, walk, build, preflight, legalize, write).

    Returns the report (a dict). Before tracing, an opset_version out of range, an unknown
    profile or a bad report argument raise InvalidArgumentError (a ValueError), as
    onnxlegal.convert does. Every error of the export itself is an ExportError (an
    onnxlegal.Error and a RuntimeError): UnsupportedOpsError lists every op without a symbolic
    and every node where it occurs (and, for an op that needs a higher opset, the lowest that
    works), before anything is written; the others list every diagnostic of the library (node,
    op, opset, lowest opset that works, the Python line when known)."""
    t_start = time.perf_counter()
    profile = _profile_arg(profile, target)
    opset_version = check_opset(opset_version if opset_version is not None else default_opset(),
                                "opset_version")
    check_profile(profile)
    check_report(report)
    mode = _enum_name(training, "training", ("EVAL", "PRESERVE", "TRAINING"))
    op_type = _enum_name(operator_export_type, "operator_export_type",
                         ("ONNX", "ONNX_ATEN", "ONNX_ATEN_FALLBACK", "ONNX_FALLTHROUGH"))
    if op_type in ("ONNX_ATEN", "ONNX_FALLTHROUGH"):
        raise ExportError(
            "operator_export_type=%s is not supported: it writes %s, which only PyTorch/Caffe2 "
            "can run; onnxlegal writes ONNX ops only (ONNX, or ONNX_ATEN_FALLBACK while every op "
            "has a symbolic; register one for a missing op with custom_symbolics)"
            % (op_type, "every op as an ATen node" if op_type == "ONNX_ATEN" else
               "the ops without a symbolic as aten nodes"))
    fx = _torch_fx.is_aten_graph(model)
    if fx and export_modules_as_functions:
        raise ExportError("export_modules_as_functions: an FX graph of ATen ops has no module "
                          "calls left to keep as functions")
    as_functions = set() if fx else \
        _torch_functions.selected_types(model, export_modules_as_functions)
    if as_functions and opset_version < 15:
        warnings.warn("export_modules_as_functions: opset %d has IR version < 8, which has no "
                      "model-local functions: the modules are exported inlined (opset >= 15 "
                      "keeps them as functions)" % opset_version, UserWarning, stacklevel=2)
        as_functions = set()
    if custom_opsets is not None and not isinstance(custom_opsets, dict):
        raise ExportError("custom_opsets must be a dict {domain: version}, not %s"
                          % type(custom_opsets).__name__)
    prev = _torch_graph.TRAINING_MODE
    _torch_graph.TRAINING_MODE = mode.lower()
    try:
        sg = _source_graph(model, args, input_names, output_names, dynamic_axes,
                           extra_outputs, source_module)
    except ExportError:
        raise
    except (RuntimeError, TypeError, ValueError) as e:
        # torch's tracer failing on the model (or its args)
        raise ExportError("tracing the model failed: %s: %s" % (type(e).__name__, e)) from e
    finally:
        _torch_graph.TRAINING_MODE = prev
    if not export_params:
        _params_as_inputs(sg)
    if as_functions:
        sg.function_plan = _torch_functions.plan(sg, model, as_functions)
    if mode != "EVAL":
        # Dropout keeps its training behaviour (BatchNormalization does already: the
        # library's batch_norm with training=True normalizes with the batch's statistics)
        custom_symbolics = dict(_TRAINING_SYMBOLICS, **(custom_symbolics or {}))
    try:
        return export_traced(sg, f, opset_version=opset_version, profile=profile,
                             custom_symbolics=custom_symbolics,
                             custom_shape_fns=custom_shape_fns, custom_opsets=custom_opsets,
                             external_data_threshold=external_data_threshold, report=report,
                             do_constant_folding=do_constant_folding,
                             keep_initializers_as_inputs=keep_initializers_as_inputs,
                             verbose=verbose, _t_start=t_start)
    except UnsupportedOpsError as e:
        if op_type == "ONNX_ATEN_FALLBACK":
            e.args = (str(e) + "\n(operator_export_type=ONNX_ATEN_FALLBACK: onnxlegal writes no "
                      "ATen fallback nodes, which only PyTorch/Caffe2 run; register a symbolic "
                      "with custom_symbolics)",)
        raise


def _dropout_training(cx, node):
    """aten::dropout(x, p, train) when the model is exported in training mode: with train, ONNX
    Dropout with its training_mode input on (opset 12+, where Dropout has one), as torch.onnx
    does; without, the identity."""
    from .lowering import UnsupportedOp
    import numpy as np
    x = cx.arg_value(0)
    if not cx.arg_bool(2, False):
        cx.bind(0, x)
        return
    if cx.opset < 12:
        raise UnsupportedOp("dropout in training mode (training=TrainingMode.TRAINING) needs "
                            "Dropout's training_mode input", 12)
    ratio = cx.const(np.array(cx.arg_float(1), dtype=np.float32))
    cx.bind(0, cx.emit("Dropout", [x, ratio, cx.const(np.array(True))]))


def _channel_dropout_training(cx, node):
    """feature/alpha dropout in training mode: no ONNX op drops whole channels (or keeps the
    SELU statistics), so a train=True node is refused; train=False is the identity."""
    from .lowering import UnsupportedOp
    if cx.arg_bool(2, False):
        raise UnsupportedOp("aten::%s in training mode: ONNX has no dropout of whole channels "
                            "or alpha dropout (export with training=TrainingMode.EVAL)"
                            % cx.node_op, -1)
    cx.bind(0, cx.arg_value(0))


_TRAINING_SYMBOLICS = {"aten::dropout": _dropout_training,
                       "aten::feature_dropout": _channel_dropout_training,
                       "aten::alpha_dropout": _channel_dropout_training,
                       "aten::feature_alpha_dropout": _channel_dropout_training}


def _params_as_inputs(sg):
    """export_params=False: the model's parameters and buffers become graph inputs (after the
    model's inputs, as torch.onnx does); constants of the trace stay initializers."""
    keep = []
    for init in sg.initializers:
        if init.kind == "parameter":
            sg.inputs.append(SInput(init.value, init.name, init.dtype, list(init.array.shape),
                                    init.tensor))
        else:
            keep.append(init)
    sg.initializers[:] = keep


def _source_graph(model, args, input_names, output_names, dynamic_axes, extra_outputs,
                  source_module):
    """A GraphModule of ATen ops (make_fx, torch.export) is read as it is (onnxlegal._torch_fx);
    any other model is traced."""
    if _torch_fx.is_aten_graph(model):
        return _torch_fx.build_source_graph(model, args, input_names, output_names,
                                            dynamic_axes, extra_outputs, source_module)
    if source_module is not None:
        raise ExportError("source_module is for a GraphModule of ATen ops (make_fx, "
                          "torch.export); this model is traced, its own names are kept")
    return build_source_graph(model, args, input_names=input_names, output_names=output_names,
                              dynamic_axes=dynamic_axes, extra_outputs=extra_outputs)


def trace(model, args, *, input_names=None, output_names=None, dynamic_axes=None,
          extra_outputs=None, source_module=None):
    """The first half of export: the traced and walked SourceGraph (plain Python), to look at,
    or to export at several opsets with export_traced without tracing again. A GraphModule of
    ATen ops is read, not traced."""
    return _source_graph(model, args, input_names, output_names, dynamic_axes, extra_outputs,
                         source_module)


def _profile_arg(profile, target):
    """profile=, or target= (its old name) with a DeprecationWarning."""
    if target is None:
        return profile
    warnings.warn("target= is deprecated: it is profile= (as in onnxlegal.convert)",
                  DeprecationWarning, stacklevel=3)
    if profile is not None and profile != target:
        raise bad_argument("profile=%r and target=%r disagree: give profile= only (target= is "
                           "its old name)" % (profile, target))
    return target


def export_traced(sg, f, *, opset_version=None, profile=None, custom_symbolics=None,
                  custom_shape_fns=None, custom_opsets=None, external_data_threshold=None,
                  report=None, source_model=None, do_constant_folding=True,
                  keep_initializers_as_inputs=None, verbose=False, target=None, _t_start=None):
    """The second half of export: legalizes a SourceGraph (from trace) for opset_version and
    writes it to f. source_model (from to_source_model(sg)) may be given to reuse one across
    opsets; legalize only reads it. The other arguments are export's."""
    t_start = _t_start if _t_start is not None else time.perf_counter()
    profile = _profile_arg(profile, target)
    opset = check_opset(opset_version if opset_version is not None else default_opset(),
                        "opset_version")
    legal_profile = check_profile(profile)
    check_report(report)
    name = getattr(profile, "name", profile)
    # "target": the old key, kept for readers of earlier reports
    rep = {"opset": opset, "profile": name, "target": name, "times": dict(sg.times)}
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
        custom_symbolics = _torch_compat.merged_symbolics(sg, custom_symbolics, opset)
        registry = low.registry(custom_symbolics, custom_shape_fns, custom_opsets)
        ops = {}
        for key, scopes in sg.ops().items():
            domain, op = key.split("::", 1)
            ops[key] = {"count": len(scopes), "lowering": registry.lowering_name(domain, op, opset),
                        "since": registry.since(domain, op, opset)}
        rep["ops"] = ops
        missing = _preflight(registry, sg, opset)
        times["preflight"] = time.perf_counter() - t
        if missing:
            raise UnsupportedOpsError(_unsupported_message(missing, opset, sg), missing,
                                      report=rep)
        t = time.perf_counter()
        out, diags = low.legalize(src, registry, opset=opset, profile=legal_profile,
                                  fold=bool(do_constant_folding),
                                  keep_initializers_as_inputs=bool(keep_initializers_as_inputs),
                                  keep_functions=bool(getattr(sg, "function_plan", None)))
        times["legalize"] = time.perf_counter() - t
        rep["diagnostics"] = diags
        if out is None:
            errors = [d for d in diags if d.get("severity") == "error"]
            text = _diagnostics_text(errors, sg, registry)
            if errors and all(d.get("code") == "OLG-LOWER-UNSUPPORTED" for d in errors):
                # the symbolics exist but refuse these nodes' arguments at this opset
                raise UnsupportedOpsError("%d node(s) cannot be lowered at opset %d:\n%s"
                                          % (len(errors), opset, text),
                                          _unsupported_from_diags(errors), diags, rep)
            raise ExportError("legalize failed at opset %d:\n%s" % (opset, text), diags,
                              rep) from _torch_compat.cause(registry)
        _rank_from_example(out, sg)
        _name_output_dims(out, sg)
        for d in diags:
            key = "%s::%s" % (d.get("domain") or "", d.get("op") or "")
            if key in ops:
                ops[key].setdefault("notes", []).append(d["message"])
        emitted = out.graph.nodes
        rep["nodes"] = len(emitted)
        rep["initializers"] = len(out.graph.initializers)
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
        if verbose:
            print(out.to_text())
        threshold = external_data_threshold
        if threshold is None and rep["initializer_bytes"] >= EXTERNAL_DATA_AUTO_BYTES:
            threshold = EXTERNAL_DATA_AUTO_THRESHOLD
            rep["external_data"] = "automatic: %d bytes of tensors" % rep["initializer_bytes"]
        t = time.perf_counter()
        from . import Error
        try:
            rep["bytes_written"] = _write(out, f, threshold)
        except Error as e:
            where = os.fspath(f) if isinstance(f, (str, bytes, os.PathLike)) else \
                getattr(f, "name", f)
            raise ExportError("writing the model to %r failed: %s" % (where, e), diags,
                              rep) from e
        times["write"] = time.perf_counter() - t
        times["total"] = time.perf_counter() - t_start
    finally:
        emit_report(check_report(report), rep)
    return rep


def _python_line(node):
    """The Python line a source node came from: a traced node's source range is a stack
    ('f.py(12): forward' lines, the innermost first); the innermost frame outside torch's own
    package, as 'File "f.py", line 12, in forward: <the code>'. '' when unknown."""
    import linecache
    import re
    if node is None or node.tnode is None:
        return ""
    try:
        text = node.tnode.sourceRange()
    except RuntimeError:
        return ""
    torch_dir = os.path.dirname(os.path.abspath(torch.__file__)) + os.sep
    for raw in text.splitlines():
        m = re.match(r"(.+)\((\d+)\): (\S+)$", raw.strip())
        if not m:
            continue
        path, line, fn = m.group(1), int(m.group(2)), m.group(3)
        if os.path.abspath(path).startswith(torch_dir):
            continue
        code = linecache.getline(path, line).strip()
        return 'File "%s", line %d, in %s%s' % (path, line, fn, ": " + code if code else "")
    return node.source_line()


def _diagnostics_text(errors, sg, registry):
    """Every error diagnostic on its own line: the message (it names node, op and opset), the
    lowest opset that works, and the Python line of the source node when the trace knows it;
    then what an emitted custom-domain op without a shape function explains."""
    by_name = {n.name: n for n in sg.nodes}
    lines = []
    for d in errors:
        lo = d.get("min_opset")
        line = "  %s" % (d.get("text") or d["message"])  # the library's rendering names the node
        if not d.get("text") and d.get("node") and d["node"] not in d["message"]:
            line += " (node %s)" % d["node"]
        if not d.get("text") and d.get("op") and d["op"] not in d["message"]:
            line += " (op %s)" % d["op"]
        if lo and lo > 0:
            if not d.get("text"):
                line += " [lowest opset that works: %d]" % lo
        elif d.get("code") == "OLG-LOWER-UNSUPPORTED":
            line += " [no opset works]"
        node = by_name.get(d.get("node") or "")
        where = _python_line(node)
        if where:
            line += "\n    at " + where
        lines.append(line)
    for key in getattr(registry, "emitted_without_shape", ()):
        lines.append("  note: custom-domain op %s was emitted by a custom symbolic and has no "
                     "shape function, so its outputs' types are unknown to the ops after it: "
                     "give one with custom_shape_fns={%r: fn}" % (key, key))
    return "\n".join(lines) or "  (no diagnostic)"


def _rank_from_example(out, sg):
    """An output whose rank inference does not give (a tensor read out of an ONNX sequence that
    started empty) gets the rank of the example run's output, its dims unknown: a graph output
    without a rank is not a valid model."""
    examples = getattr(sg, "example_outputs", None) or []
    for v, t in zip(out.graph.outputs, examples):
        if v.shape is None and isinstance(t, torch.Tensor) and not t.is_complex() and \
                v.dtype_code == olg_dtype(t.dtype):
            v.set_type(v.dtype_code, [None] * t.dim())


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
