"""Torch-style symbolics for onnxlegal.torch.export (issue 29 (c)).

Custom ops written for torch.onnx export unchanged: a symbolic `fn(g, *args)` (an
autograd.Function's `symbolic` staticmethod, a function given to torch.onnx's or onnxlegal's
register_custom_op_symbolic, or a torch-style function in custom_symbolics) runs on top of the
library's lowering context (lowering.Lower). `g` is a _Graph: g.op() emits through cx.emit; the
values the symbolic receives and g.op returns are real torch._C.Values of a scratch graph (typed
from the library's dtypes and shapes, constants as onnx::Constant nodes), so that torch's own
symbolic_helper (parse_args, _parse_arg, _maybe_get_const, _is_none, _get_tensor_rank,
_unsqueeze_helper, ...) works on them unchanged.
"""
import difflib
import inspect
import linecache
import os
import traceback

import numpy as np
import torch

from ._lib import ERR_CALLBACK, Error, enc, lib
from ._torch_graph import OLG_DTYPE, _Tuple
from .lowering import (ARG_BOOL, ARG_FLOAT, ARG_FLOATS, ARG_INT, ARG_INTS, ARG_NONE, ARG_STRING,
                       ARG_VALUE, ARG_VALUES, NO_VALUE, LoweringError, UnsupportedOp)

# "namespace::op" -> {opset: fn}: onnxlegal.torch.register_custom_op_symbolic's registrations
_REGISTERED = {}

_PKG_DIR = os.path.dirname(os.path.abspath(__file__)) + os.sep
_TORCH_DIR = os.path.dirname(os.path.abspath(torch.__file__)) + os.sep


class SymbolicError(LoweringError):
    """A caller's symbolic (or its g.op) failed; the message names the symbolic's line. A bug,
    not a refusal: OLG_ERR_CALLBACK, so export does not call it an unsupported op."""

    def __init__(self, message, status=ERR_CALLBACK):
        super().__init__(message, status)


def register_custom_op_symbolic(symbolic_name, symbolic_fn, opset_version):
    """torch.onnx.register_custom_op_symbolic's arguments: symbolic_fn(g, *args) lowers
    "namespace::op" (an aten op to override, or a torch.library op) in every later export at
    opset_version and above (the highest registered opset <= the export's is used)."""
    name = _op_name(symbolic_name)
    if not callable(symbolic_fn):
        raise TypeError("register_custom_op_symbolic: symbolic_fn is not callable")
    if not isinstance(opset_version, int) or isinstance(opset_version, bool):
        raise TypeError("register_custom_op_symbolic: opset_version must be an int")
    _REGISTERED.setdefault(name, {})[opset_version] = symbolic_fn


def unregister_custom_op_symbolic(symbolic_name, opset_version):
    name = _op_name(symbolic_name)
    _REGISTERED.get(name, {}).pop(opset_version, None)
    if not _REGISTERED.get(name):
        _REGISTERED.pop(name, None)


def _op_name(name):
    if isinstance(name, str) and name.startswith("::"):
        name = "aten" + name  # as torch.onnx: "::op" is an aten op
    if not isinstance(name, str) or name.count("::") != 1 or not all(name.split("::")):
        raise ValueError("symbolic_name must be \"namespace::op\" (e.g. \"mydomain::foo\" or "
                         "\"aten::gelu\"), not %r" % (name,))
    return name


def _pick(by_opset, opset):
    """torch.onnx's dispatch: the registration of the highest opset <= opset; else the lowest
    (so that preflight says which opset it needs)."""
    below = [v for v in by_opset if v <= opset]
    v = max(below) if below else min(by_opset)
    return _TorchStyle(by_opset[v]), v


def _torch_registered():
    """Registrations made with torch.onnx.register_custom_op_symbolic (torch >= 1.13's registry:
    only its overrides, never torch's own symbolics)."""
    try:
        from torch.onnx._internal import registration
        groups = registration.registry._registry
    except (ImportError, AttributeError):
        return {}
    out = {}
    for name, group in list(groups.items()):
        overrides = getattr(getattr(group, "_functions", None), "_overrides", None)
        if overrides:
            out[name] = dict(overrides)
    return out


class _TorchStyle:
    """Marks a function as torch-style (g, *args) whatever its parameters are named."""

    def __init__(self, fn, plain_scalars=False):
        self.fn, self.plain_scalars = fn, plain_scalars

    def __call__(self, *a, **k):  # still callable, for export's check
        return self.fn(*a, **k)


def _library_lowers(name, opset):
    """True when the library's built-in registry lowers "domain::op" at opset."""
    from .lowering import default_registry
    domain, _, op = name.partition("::")
    return default_registry().lowering(domain, op, opset) is not None


def _torchvision_registration(fn):
    """torchvision registers its ops' symbolics in torch.onnx's registry when it is imported
    (torchvision.ops._register_onnx_ops, opset 11 only in 0.14: its roi_align writes RoiAlign-10's
    encoding, which from 16 on means half_pixel): for the ops the library lowers itself, those
    are not a caller's choice, and the library's symbolic is used."""
    return (getattr(fn, "__module__", "") or "").startswith("torchvision.")


def merged_symbolics(sg, custom_symbolics, opset):
    """custom_symbolics with the registered torch-style symbolics (onnxlegal's, then torch.onnx's)
    and the autograd Functions' `symbolic` staticmethods added for the ops of sg that the caller
    did not give; a caller's own entry always wins. torchvision's own registrations are taken only
    for ops the library does not lower (_torchvision_registration)."""
    out = dict(custom_symbolics or {})
    ops = set(sg.ops())
    for registered in (_REGISTERED, _torch_registered()):
        for name, by_opset in registered.items():
            if name in ops and name not in out and by_opset:
                fn, _ = _pick(by_opset, opset)
                if _torchvision_registration(fn.fn) and _library_lowers(name, opset):
                    continue
                out[name] = _pick(by_opset, opset)
    for name, cls in (getattr(sg, "py_functions", None) or {}).items():
        key = "autograd::" + name
        fn = getattr(cls, "symbolic", None)
        if key in ops and key not in out and callable(fn):
            out[key] = _TorchStyle(fn, plain_scalars=True)
    return out


def _is_torch_style(fn):
    """A library symbolic is fn(cx, node); anything else (g first, *args, another arity) is
    torch's fn(g, *args)."""
    if isinstance(fn, _TorchStyle):
        return True
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return False
    if params and params[0].name == "g":
        return True
    pos = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if any(p.kind == p.VAR_POSITIONAL for p in params) or len(pos) != 2:
        return True
    return False


def adapt(key, fn, errors):
    """The library-style symbolic (cx, node) for custom_symbolics[key]: a torch-style fn runs
    through a _Graph; either style's Python exceptions are kept in `errors` (export raises its
    ExportError from the first) and named by the symbolic's file and line."""
    torch_style = _is_torch_style(fn)
    plain = key.startswith("autograd::") or getattr(fn, "plain_scalars", False)
    user_fn = fn.fn if isinstance(fn, _TorchStyle) else fn

    def symbolic(cx, node):
        try:
            if not torch_style:
                return user_fn(cx, node)
            g = _Graph(cx)
            res = user_fn(g, *g.node_args(plain))
            g.bind_outputs(res)
        except SymbolicError as e:
            errors.append(e)
            raise SymbolicError("%s (%s)" % (e, _where(e.__traceback__, user_fn))) from e
        except (LoweringError, Error):
            raise  # a deliberate refusal, or a library call's failure already reported
        except Exception as e:  # noqa: B902 - a bug in the caller's symbolic: keep it
            errors.append(e)
            raise SymbolicError("%s: %s, in the symbolic for %s (%s)"
                                % (type(e).__name__, e, key, _where(e.__traceback__, user_fn)))
    return symbolic


def _where(tb, fn):
    """'File "f.py", line 12, in sym: <code>' of the innermost frame of the caller's code (not
    onnxlegal's nor torch's); the symbolic's definition when the traceback has none."""
    for fs in reversed(traceback.extract_tb(tb)):
        path = os.path.abspath(fs.filename)
        if not path.startswith(_PKG_DIR) and not path.startswith(_TORCH_DIR):
            return 'File "%s", line %d, in %s: %s' % (fs.filename, fs.lineno, fs.name,
                                                     (fs.line or "").strip())
    code = getattr(fn, "__code__", None)
    if code is None:
        return "in %r" % (fn,)
    return 'File "%s", line %d, in %s: %s' % (
        code.co_filename, code.co_firstlineno, code.co_name,
        linecache.getline(code.co_filename, code.co_firstlineno).strip())


def cause(registry):
    """The first exception a caller's symbolic raised during legalize, or None."""
    errs = getattr(registry, "symbolic_errors", None)
    return errs[0] if errs else None


# ----------------------------------------------------------------------------------------------
# g

_TORCH_DTYPE = None


def _torch_dtype(code):
    global _TORCH_DTYPE
    if _TORCH_DTYPE is None:
        _TORCH_DTYPE = {v: k for k, v in OLG_DTYPE.items()}
    return _TORCH_DTYPE.get(code)


_SUFFIX = {"f": float, "i": int, "s": str}


class _Graph:
    """torch.onnx's `g` over the library's lowering context: op(), opset, and the scratch
    torch graph whose Values stand for the context's values."""

    def __init__(self, cx):
        self._cx = cx
        self._tg = torch._C.Graph()
        self._ids = {}      # Value.unique() -> the context's value id
        self._consts = {}   # Value.unique() -> torch.Tensor, emitted on first use
        self._strs = {}     # Value.unique() -> str, a string constant argument
        self.opset = cx.opset

    # ---- what the symbolic receives ----
    def _typed(self, v, vid):
        dt = _torch_dtype(self._cx.dtype_code(vid))
        shape = self._cx.shape(vid)
        t = torch._C.TensorType.get()
        if dt is not None:
            t = t.with_dtype(dt)
        if shape is not None:
            t = t.with_sizes([d if isinstance(d, int) else None for d in shape])
        v.setType(t)
        return v

    def _value(self, vid):
        v = self._tg.addInput()
        self._ids[v.unique()] = vid
        return self._typed(v, vid)

    def _node(self, kind, inputs=(), outputs=1):
        n = self._tg.create(kind, list(inputs), outputs)
        self._tg.insertNode(n)
        return n

    def _const(self, value):
        """An onnx::Constant Value, as torch hands non-tensor arguments to a symbolic."""
        n = self._node("onnx::Constant")
        if isinstance(value, str):
            n.s_("value", value)
            self._strs[n.output().unique()] = value
            return n.output()
        t = value if isinstance(value, torch.Tensor) else torch.tensor(value)
        n.t_("value", t)
        n.output().setType(torch._C.TensorType.create_from_tensor(t))
        self._consts[n.output().unique()] = t
        return n.output()

    def _none(self):
        n = self._node("prim::Constant")
        n.output().setType(torch._C.NoneType.get())
        return n.output()

    def node_args(self, plain):
        """The source node's arguments as torch passes them: tensors as Values; the others as
        Python values to an autograd Function's symbolic (plain), else as constant Values."""
        cx, out = self._cx, []
        for i in range(cx.arg_count):
            k = cx.arg_kind(i)
            if k == ARG_VALUE:
                out.append(self._value(cx.arg_value(i)))
                continue
            if k == ARG_VALUES:
                vals = [self._none() if v == NO_VALUE else self._value(v)
                        for v in cx.arg_values(i)]
                if plain:
                    out.append(vals)
                else:
                    n = self._node("prim::ListConstruct", vals)
                    n.output().setType(torch._C.ListType.ofTensors())
                    out.append(n.output())
                continue
            py = {ARG_NONE: lambda: None, ARG_INT: cx.arg_int, ARG_FLOAT: cx.arg_float,
                  ARG_BOOL: cx.arg_bool, ARG_STRING: cx.arg_string, ARG_INTS: cx.arg_ints,
                  ARG_FLOATS: cx.arg_floats}[k]
            py = py() if k == ARG_NONE else py(i)
            if plain:
                out.append(py)
            elif py is None:
                out.append(self._none())
            else:
                out.append(self._const(py))
        return out

    # ---- back to value ids ----
    def _id(self, v, what="an input"):
        if v is None:
            return None
        if isinstance(v, torch._C.Value):
            u = v.unique()
            if u in self._ids:
                return self._ids[u]
            if u in self._consts:
                self._ids[u] = self._cx.const(self._consts[u].detach().cpu().numpy())
                return self._ids[u]
            if v.node().mustBeNone():
                return None
            raise LoweringError("%s is a Value of another graph (%s), not one this symbolic "
                                "received or made with g.op" % (what, v.node().kind()))
        if isinstance(v, (bool, int, float, torch.Tensor, np.ndarray, np.generic)):
            return self._id(self._const(v if not isinstance(v, np.ndarray) else
                                        torch.from_numpy(np.array(v))))
        raise LoweringError("%s is a %s, not a Value (or a number or tensor)"
                            % (what, type(v).__name__))

    def bind_outputs(self, res):
        if res is None:
            raise LoweringError("the symbolic returned None, not the op's output Value(s)")
        outs = list(res) if isinstance(res, (tuple, list)) else [res]
        for i, v in enumerate(outs[:self._cx.output_count]):
            vid = self._id(v, "output %d" % i)
            if vid is None:
                raise LoweringError("output %d of the symbolic is None" % i)
            self._cx.bind(i, vid)

    # ---- g.op ----
    def op(self, opname, *raw_args, outputs=1, **kwargs):
        """torch.onnx's g.op: "Op" or "domain::Op"; attribute kwargs with torch's type suffixes
        (alpha_f, axes_i, mode_s, value_t, ..._is, ..._fs, ..._ss) or typed from the value."""
        domain, op = opname.split("::", 1) if "::" in opname else ("", opname)
        if domain in ("onnx", "ai.onnx"):
            domain = ""
        if not domain:
            self._check_op(op)
        attrs = {}
        for key, val in kwargs.items():
            if val is None:
                continue  # torch leaves an attribute of None out
            name, kind = _split_attr(key)
            if isinstance(val, torch._C.Value):  # a constant argument given as an attribute
                val = self._consts.get(val.unique(), self._strs.get(val.unique(), val))
                if isinstance(val, torch._C.Value):
                    raise LoweringError("attribute %r of g.op(%r) is a Value that is not a "
                                        "constant" % (key, opname))
            attrs[name] = _attr_value(key, kind, val)
        if not domain and op == "Constant":
            value = next(iter(attrs.values()), None) if len(attrs) == 1 else None
            if value is None:
                raise LoweringError("g.op(\"Constant\") takes one value attribute (value_t=...)")
            if isinstance(value, np.ndarray):
                value = torch.from_numpy(value)
            return self._const(value)
        inputs = [self._id(a, "input %d of g.op(%r)" % (i, opname))
                  for i, a in enumerate(raw_args)]
        try:
            outs = self._cx.emit(op, inputs, attrs, domain=domain, outputs=outputs)
        except Error as e:
            raise SymbolicError("g.op(%r) at opset %d: %s" % (opname, self.opset, e)) from e
        outs = (outs,) if outputs == 1 else outs
        n = self._node("%s::%s" % (domain or "onnx", op), [], outputs)
        vals = []
        for v, vid in zip(n.outputs(), outs):
            self._ids[v.unique()] = vid
            vals.append(self._typed(v, vid))
        return vals[0] if outputs == 1 else tuple(vals)

    def _check_op(self, op):
        """A default-domain op that does not exist at this opset: which op and which opset (the
        library would say "first version: -1" after the fact)."""
        if lib.olg_schema_op_defined_at(b"", enc(op), self.opset):
            return
        n = lib.olg_schema_op_versions(b"", enc(op), None, 0)
        if n:
            from ctypes import c_int
            since = (c_int * n)()
            lib.olg_schema_op_versions(b"", enc(op), since, n)
            later = [s for s in since if s > self.opset]
            if later:
                raise UnsupportedOp("g.op(%r) (ONNX %s, from opset %d)"
                                    % (op, op, later[0]), later[0])
            raise SymbolicError("g.op(%r): ONNX %s is deprecated at opset %d"
                                % (op, op, self.opset))
        names = [lib.olg_schema_op_name(b"", i).decode()
                 for i in range(lib.olg_schema_op_count(b""))]
        close = difflib.get_close_matches(op, names, 1)
        raise SymbolicError("g.op(%r): the ONNX domain has no op %r (at opset %d or any)%s"
                            % (op, op, self.opset,
                               "; did you mean %r?" % close[0] if close else ""))

    def __repr__(self):
        return "<onnxlegal torch-style g, opset %d>" % self.opset


def _split_attr(key):
    name, _, kind = key.rpartition("_")
    if name and kind in ("f", "i", "s", "t", "fs", "is", "ss", "ts", "g", "gs", "z"):
        return name, kind
    return key, None


def _attr_value(key, kind, val):
    if isinstance(val, torch.Tensor):
        val = val.detach().cpu().numpy()
    if kind in _SUFFIX and isinstance(val, (list, tuple, np.ndarray)) and np.ndim(val) == 1:
        kind += "s"  # as torch: axes_i=[0, 1] is an ints attribute
    if kind in _SUFFIX:
        if isinstance(val, np.ndarray):
            val = val.item()
        return _SUFFIX[kind](val)
    if kind in ("is", "fs", "ss"):
        conv = _SUFFIX[kind[0]]
        return [conv(x) for x in (val.tolist() if isinstance(val, np.ndarray) else val)]
    if kind == "t":
        return np.array(val)
    if kind in ("g", "gs", "ts"):
        raise LoweringError("attribute %r: graph and tensor-list attributes are not supported "
                            "in a torch-style symbolic" % key)
    if isinstance(val, np.ndarray):
        return val.item() if val.ndim == 0 and kind is None and val.dtype.kind in "iufb" else val
    return val




def call_python_op(walker, node, name, args, outs, ins):
    """The walk's hook for a traced autograd Function (prim::PythonOp): notes its class, whose
    `symbolic` may lower it, and emits the source node. torch 1.13 traces a Function of several
    outputs as one tuple taken apart by prim::TupleUnpack: the tuple's elements are then the
    node's outputs, and the tuple stands for them."""
    walker.sg.__dict__.setdefault("py_functions", {})[name] = \
        getattr(node.pyobj(), "__self__", None)
    unpack = None
    if len(outs) == 1 and outs[0].type().kind() == "TupleType":
        unpack = next((u.user for u in outs[0].uses() if u.user.kind() == "prim::TupleUnpack"),
                      None)
    if unpack is None:
        return walker.call(node, "autograd", name, args, outs, ins)
    items = list(unpack.outputs())
    walker.call(node, "autograd", name, args, items, ins)
    walker.env[outs[0]] = _Tuple([walker.env_item(o) for o in items])
