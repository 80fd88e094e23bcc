"""The symbolic registry and legalization from Python (registry.h, legalize.h).

    import onnxlegal
    from onnxlegal.lowering import Registry, legalize

    reg = Registry()                               # every built-in symbolic
    @reg.symbolic("mmcv", "MSDeformAttn")          # a caller's op, from opset 7 on
    def msda(cx, node):
        value, shapes, loc, attn = (cx.arg_value(i) for i in range(4))
        y = cx.emit("MSDeformAttn", [value, shapes, loc, attn], domain="mmcv")
        cx.bind(0, y)
    reg.add_shape_fn("mmcv", "MSDeformAttn", lambda sx: sx.set_output(0, sx.input_dtype(0), [...]))

    out = legalize(model, reg, opset=13)           # an onnxlegal.Model; keeps `model` alive

A symbolic function gets a Lower (the lowering context) and the source node's id; it reads
arguments (already lowered: target values, as int ids, with known dtype and shape), emits ONNX
(or custom-domain) nodes, binds the source node's outputs, and returns None. Raising an
exception fails the node: the message becomes the node's diagnostic (a LoweringError carries
its own status; UnsupportedOp names the lowest opset that works).
"""
import ctypes
from ctypes import byref, c_char_p, c_double, c_float, c_int, c_int32, c_int64, c_size_t, c_void_p

import numpy as np

from . import _dtypes
from ._lib import (ERR_CALLBACK, ERR_STATE, ERR_UNSUPPORTED, SHAPE_FN, SYMBOLIC_FN, Error,
                   StateError, call, check, dec, enc, lib)
from ._model import Model, _format_diag

NO_VALUE = -1
NONE, NATIVE, DECOMPOSED = 0, 1, 2
_KIND_NAMES = {NONE: None, NATIVE: "native", DECOMPOSED: "decomposed"}


def _opset_max():
    """The newest target opset of the library (OLG_LOWER_OPSET_MAX, registry.h): the last one
    with an IR version (lib/version.c has one up to it), so that a new opset needs no change
    here. A library too old to say is taken at the opsets its first release had (to 17)."""
    if "olg_ir_version_for_opset" in lib.missing:
        return 17
    o = 7
    while lib.olg_ir_version_for_opset(o + 1) > 0:
        o += 1
    return o


OPSET_MIN, OPSET_MAX = 7, _opset_max()
# olg_lower_arg_kind
ARG_NONE, ARG_VALUE, ARG_VALUES, ARG_INT, ARG_FLOAT, ARG_BOOL, ARG_STRING, ARG_INTS, ARG_FLOATS = range(9)


class LoweringError(Exception):
    """Raised by a symbolic to fail its node with a given status (default OLG_ERR_UNSUPPORTED)."""

    def __init__(self, message, status=ERR_UNSUPPORTED):
        super().__init__(message)
        self.status = status


class UnsupportedOp(LoweringError):
    """Raised by a symbolic for a case that works only from min_opset (-1: at no opset)."""

    def __init__(self, what, min_opset=-1):
        super().__init__(what)
        self.what = what
        self.min_opset = min_opset


def _ints(ptr, n):
    return [ptr[i] for i in range(n)]


class Lower:
    """The lowering context given to a Python symbolic (valid during the call only)."""

    def __init__(self, cx):
        self._cx = cx

    # ---- the setting and the source node ----
    @property
    def opset(self):
        return lib.olg_lower_opset(self._cx)

    @property
    def source_opset(self):
        return lib.olg_lower_source_opset(self._cx)

    @property
    def profile(self):
        return dec(lib.olg_lower_profile(self._cx))

    @property
    def node_name(self):
        return dec(lib.olg_lower_node_name(self._cx))

    @property
    def node_domain(self):
        return dec(lib.olg_lower_node_domain(self._cx))

    @property
    def node_op(self):
        return dec(lib.olg_lower_node_op(self._cx))

    @property
    def arg_count(self):
        return lib.olg_lower_arg_count(self._cx)

    def arg_kind(self, i):
        return lib.olg_lower_arg_kind(self._cx, i)

    def is_none(self, i):
        return bool(lib.olg_lower_arg_is_none(self._cx, i))

    def arg_value(self, i):
        v = c_int32()
        call("olg_lower_arg_value", self._cx, i, byref(v))
        return v.value

    def arg_values(self, i):
        p, n = ctypes.POINTER(c_int32)(), c_size_t()
        call("olg_lower_arg_values", self._cx, i, byref(p), byref(n))
        return _ints(p, n.value)

    def arg_int(self, i, default=None):
        if default is not None and self.is_none(i):
            return default
        v = c_int64()
        call("olg_lower_arg_int", self._cx, i, byref(v))
        return v.value

    def arg_float(self, i, default=None):
        if default is not None and self.is_none(i):
            return default
        v = c_double()
        call("olg_lower_arg_float", self._cx, i, byref(v))
        return v.value

    def arg_bool(self, i, default=None):
        if default is not None and self.is_none(i):
            return default
        v = c_int()
        call("olg_lower_arg_bool", self._cx, i, byref(v))
        return bool(v.value)

    def arg_string(self, i, default=None):
        if default is not None and self.is_none(i):
            return default
        v = c_char_p()
        call("olg_lower_arg_string", self._cx, i, byref(v))
        return dec(v.value)

    def arg_ints(self, i):
        p, n = ctypes.POINTER(c_int64)(), c_size_t()
        call("olg_lower_arg_ints", self._cx, i, byref(p), byref(n))
        return _ints(p, n.value)

    def arg_floats(self, i):
        p, n = ctypes.POINTER(c_double)(), c_size_t()
        call("olg_lower_arg_floats", self._cx, i, byref(p), byref(n))
        return _ints(p, n.value)

    def arg_as_tensor(self, i, dtype=None):
        v = c_int32()
        code = 0 if dtype is None else _dtypes.dtype_code(np.dtype(dtype))
        call("olg_lower_arg_as_tensor", self._cx, i, code, byref(v))
        return v.value

    def attr(self, name, default=None):
        """A named attribute of the source node (int, float, str, list of int or float)."""
        cx, k = self._cx, enc(name)
        if not lib.olg_lower_src_attr_has(cx, k):
            return default
        for fn, ctype in (("olg_lower_src_attr_int", c_int64), ("olg_lower_src_attr_float", c_double),
                          ("olg_lower_src_attr_string", c_char_p)):
            v = ctype()
            if getattr(lib, fn)(cx, k, byref(v)) == 0:
                return dec(v.value) if ctype is c_char_p else v.value
        for fn, ctype in (("olg_lower_src_attr_ints", c_int64), ("olg_lower_src_attr_floats", c_float)):
            p, n = ctypes.POINTER(ctype)(), c_size_t()
            if getattr(lib, fn)(cx, k, byref(p), byref(n)) == 0:
                return _ints(p, n.value)
        return default

    @property
    def output_count(self):
        return lib.olg_lower_output_count(self._cx)

    def output_used(self, i):
        return bool(lib.olg_lower_output_used(self._cx, i))

    # ---- target values ----
    def dtype(self, v):
        """numpy dtype of target value v (None when unknown or not a numpy type)."""
        code = lib.olg_lower_value_dtype(self._cx, v)
        try:
            return _dtypes.numpy_dtype(code) if code else None
        except (KeyError, ValueError, TypeError):
            return None

    def dtype_code(self, v):
        return lib.olg_lower_value_dtype(self._cx, v)

    def shape(self, v):
        """None (rank unknown) or a list of int (fixed), str (symbolic) and None (unknown)."""
        rank = lib.olg_lower_value_rank(self._cx, v)
        if rank < 0:
            return None
        dims = []
        for i in range(rank):
            param = c_char_p()
            d = lib.olg_lower_value_dim(self._cx, v, i, byref(param))
            dims.append(d if d >= 0 else dec(param.value))
        return dims

    def known(self, v):
        """The contents of v as a numpy array when known at lowering time, else None."""
        if not lib.olg_lower_value_known(self._cx, v):
            return None
        data, n = c_void_p(), c_size_t()
        call("olg_lower_value_data", self._cx, v, byref(data), byref(n))
        dt, shape = self.dtype(v), self.shape(v)
        if dt is None or shape is None or any(not isinstance(d, int) for d in shape):
            return None
        raw = ctypes.string_at(data.value, n.value) if n.value else b""
        return np.frombuffer(raw, dtype=dt).reshape(shape).copy()

    # ---- emitting ----
    def emit(self, op, inputs=(), attrs=None, domain="", outputs=1, version=None, **kwattrs):
        """Emits a node; returns its output value id, or a tuple of them when outputs != 1.
        version: a default-domain node written as the op was defined at that opset
        (`cx.emit("Unsqueeze", [x, axes], version=13)`); the library converts it to the target
        opset as `convert` would (or refuses, naming the lowest opset that works), so that a
        symbolic needs no opset test of its own."""
        cx = self._cx
        n = c_int32()
        call("olg_lower_emit_begin", cx, enc(domain), enc(op), byref(n))
        n = n.value
        for x in inputs:
            call("olg_lower_emit_input", cx, n, NO_VALUE if x is None else int(x))
        all_attrs = dict(attrs or {})
        all_attrs.update(kwattrs)
        for key, val in all_attrs.items():
            self._attr(n, key, val)
        outs = (c_int32 * max(outputs, 1))()
        if version is None:
            call("olg_lower_emit_end", cx, n, outputs, outs)
        else:
            call("olg_lower_emit_end_at", cx, n, int(version), outputs, outs)
        vals = tuple(outs[i] for i in range(outputs))
        return vals[0] if outputs == 1 else vals

    def _attr(self, n, key, val):
        cx, k = self._cx, enc(key)
        if isinstance(val, (bool, np.bool_, int, np.integer)):
            call("olg_lower_emit_attr_int", cx, n, k, int(val))
        elif isinstance(val, (float, np.floating)):
            call("olg_lower_emit_attr_float", cx, n, k, float(val))
        elif isinstance(val, str):
            call("olg_lower_emit_attr_string", cx, n, k, enc(val))
        elif isinstance(val, np.ndarray):
            arr = np.array(val, order="C")  # (ascontiguousarray would make a 0-D array 1-D)
            dims = (c_int64 * max(arr.ndim, 1))(*arr.shape)
            call("olg_lower_emit_attr_tensor", cx, n, k, _dtypes.dtype_code(arr.dtype), arr.ndim,
                 dims, arr.ctypes.data if arr.nbytes else None, arr.nbytes)
        elif isinstance(val, (list, tuple)):
            items = list(val)
            if all(isinstance(x, (int, np.integer)) and not isinstance(x, bool) for x in items):
                call("olg_lower_emit_attr_ints", cx, n, k, (c_int64 * max(len(items), 1))(*items), len(items))
            elif all(isinstance(x, (int, float, np.integer, np.floating)) for x in items):
                call("olg_lower_emit_attr_floats", cx, n, k, (c_float * len(items))(*items), len(items))
            elif all(isinstance(x, str) for x in items):
                call("olg_lower_emit_attr_strings", cx, n, k, (c_char_p * len(items))(*[enc(x) for x in items]), len(items))
            else:
                raise TypeError("attribute %r: a list of ints, floats or strs" % key)
        else:
            raise TypeError("attribute %r: cannot type %r" % (key, val))

    def const(self, array):
        """A constant tensor (a Constant node) from a numpy array; returns its value id."""
        arr = np.array(array, order="C")  # (ascontiguousarray would make a 0-D array 1-D)
        dims = (c_int64 * max(arr.ndim, 1))(*arr.shape)
        v = c_int32()
        call("olg_lower_emit_const", self._cx, _dtypes.dtype_code(arr.dtype), arr.ndim, dims,
             arr.ctypes.data if arr.nbytes else None, arr.nbytes, byref(v))
        return v.value

    def const_ints(self, values):
        vals = [int(x) for x in values]
        v = c_int32()
        call("olg_lower_emit_const_ints", self._cx, (c_int64 * max(len(vals), 1))(*vals), len(vals), byref(v))
        return v.value

    def bind(self, i, v):
        call("olg_lower_bind_output", self._cx, i, int(v))

    # ---- diagnostics ----
    # ---- during a profile rewrite (onnxlegal.profiles) ----
    def target_node(self, node):
        """(op, inputs, outputs) of target node `node` (value ids; NO_VALUE for an omitted one)."""
        g = lib.olg_lower_target(self._cx)
        op = dec(lib.olg_node_op(g, node))
        ins = [lib.olg_node_input_at(g, node, i) for i in range(lib.olg_node_input_count(g, node))]
        outs = [lib.olg_node_output_at(g, node, i) for i in range(lib.olg_node_output_count(g, node))]
        return op, ins, outs

    def replace_value(self, old, new):
        """Makes target value `new` stand for `old` everywhere (a profile rewrite's result)."""
        call("olg_lower_replace_value", self._cx, int(old), int(new))

    def warning(self, message):
        call("olg_lower_warning", self._cx, enc(message))

    def decompose(self, what, native_opset=-1):
        """Raises (after the diagnostic) when decompositions are turned off."""
        call("olg_lower_decompose", self._cx, enc(what), native_opset)


class ShapeContext:
    """What a custom-domain shape function sees: the node's inputs; it sets the outputs."""

    def __init__(self, g, node):
        self._g, self.node = g, node

    @property
    def input_count(self):
        return lib.olg_node_input_count(self._g, self.node)

    def _input(self, i):
        return lib.olg_node_input_at(self._g, self.node, i)

    def input_dtype(self, i):
        return lib.olg_value_dtype(self._g, self._input(i))

    def input_shape(self, i):
        v = self._input(i)
        rank = lib.olg_value_rank(self._g, v)
        if rank < 0:
            return None
        dims = []
        for k in range(rank):
            d, param = c_int64(), c_char_p()
            check(lib.olg_value_dim(self._g, v, k, byref(d), byref(param)), "olg_value_dim")
            dims.append(d.value if d.value >= 0 else dec(param.value))
        return dims

    def set_output(self, i, dtype_code, shape):
        """shape: None or a list of int / str (symbolic) / None (unknown)."""
        v = lib.olg_node_output_at(self._g, self.node, i)
        if shape is None:
            call("olg_value_set_type", self._g, v, int(dtype_code), -1, None, None)
            return
        dims = [d if isinstance(d, int) and d >= 0 else -1 for d in shape]
        params = [enc(d) if isinstance(d, str) else None for d in shape]
        n = max(len(dims), 1)
        call("olg_value_set_type", self._g, v, int(dtype_code), len(dims), (c_int64 * n)(*dims),
             (c_char_p * n)(*params))


class Registry:
    """olg_registry: built-in symbolics (builtin=True) plus the caller's own."""

    def __init__(self, builtin=True):
        h = c_void_p()
        call("olg_registry_new_builtin" if builtin else "olg_registry_new", byref(h), None)
        self._h = h.value
        self._callbacks = []  # the CFUNCTYPE objects C holds pointers to

    def __del__(self):
        h, self._h = getattr(self, "_h", None), None
        if h:
            lib.olg_registry_free(h)

    @property
    def handle(self):
        return self._h

    def add(self, domain, op, fn, since=OPSET_MIN, decomposed=False):
        """Registers fn(cx: Lower, node: int) for (domain, op) from opset `since` on."""

        def trampoline(cx, node, _ud):
            lower = Lower(cx)
            try:
                fn(lower, node)
                return 0
            except UnsupportedOp as e:
                return lib.olg_lower_unsupported(cx, enc(e.what), e.min_opset)
            except LoweringError as e:
                return lib.olg_lower_error(cx, e.status, enc(str(e)))
            except Error as e:
                # a library call failed: a lowering call has reported it already; anything
                # else the driver reports with the library's message
                return e.status
            except BaseException as e:  # noqa: B902 - a Python bug in the symbolic
                return lib.olg_lower_error(cx, ERR_CALLBACK, enc("%s: %s" % (type(e).__name__, e)))

        cb = SYMBOLIC_FN(trampoline)
        self._callbacks.append(cb)
        call("olg_registry_add_ex", self._h, enc(domain), enc(op), int(since),
             DECOMPOSED if decomposed else NATIVE, cb, None)

    def symbolic(self, domain, op, since=OPSET_MIN, decomposed=False):
        """Decorator form of add()."""

        def deco(fn):
            self.add(domain, op, fn, since, decomposed)
            return fn
        return deco

    def add_unsupported(self, domain, op, since):
        call("olg_registry_add_ex", self._h, enc(domain), enc(op), int(since), NONE, SYMBOLIC_FN(), None)

    def remove(self, domain, op, since=OPSET_MIN):
        call("olg_registry_remove", self._h, enc(domain), enc(op), int(since))

    def add_shape_fn(self, domain, op, fn):
        """fn(sx: ShapeContext) sets the outputs of every emitted (domain, op) node."""

        def trampoline(g, node, _ud):
            try:
                fn(ShapeContext(g, node))
                return 0
            except Error as e:
                return e.status
            except BaseException:  # noqa: B902
                return ERR_CALLBACK

        cb = SHAPE_FN(trampoline)
        self._callbacks.append(cb)
        call("olg_registry_add_shape_fn", self._h, enc(domain), enc(op), cb, None)

    def set_domain_version(self, domain, version):
        call("olg_registry_set_domain_version", self._h, enc(domain), int(version))

    def freeze(self):
        call("olg_registry_freeze", self._h)
        return self

    @property
    def frozen(self):
        return bool(lib.olg_registry_is_frozen(self._h))

    def lowering(self, domain, op, opset):
        """"native", "decomposed" or None."""
        return _KIND_NAMES[lib.olg_registry_lowering(self._h, enc(domain), enc(op), int(opset))]

    def min_opset(self, domain, op, native_only=False):
        m = lib.olg_registry_min_opset(self._h, enc(domain), enc(op), int(native_only))
        return None if m < 0 else m

    def since(self, domain, op, opset):
        """The opset of the registration that lowers (domain, op) at `opset` (where its
        lowering last changed), or None when nothing does."""
        since, kind = c_int(-1), c_int(0)
        lib.olg_registry_find(self._h, enc(domain), enc(op), int(opset), byref(since), byref(kind))
        return since.value if since.value >= 0 else None

    def ops(self):
        out = []
        for i in range(lib.olg_registry_op_count(self._h)):
            d, o = c_char_p(), c_char_p()
            call("olg_registry_op_at", self._h, i, byref(d), byref(o))
            out.append((dec(d.value), dec(o.value)))
        return out

    def coverage(self, opsets=range(OPSET_MIN, OPSET_MAX + 1)):
        """{(domain, op): {opset: "native" | "decomposed" | None}} from the registry itself."""
        return {(d, o): {v: self.lowering(d, o, v) for v in opsets} for d, o in self.ops()}


def diagnostic_records(diags):
    """The diagnostics of an onnxlegal.Diags as dicts: severity, code, node, domain, op, opset
    (the target), min_opset (the lowest opset that works, None when none does or it does not
    apply), message, node_index and output (which node: its place and first output), text (the
    library's rendering)."""
    h = diags.handle
    out = []
    for i in range(lib.olg_diags_count(h)):
        lo = lib.olg_diag_min_opset(h, i)
        out.append({
            "severity": ("note", "warning", "error")[lib.olg_diag_severity(h, i)],
            "code": dec(lib.olg_diag_code(h, i)), "node": dec(lib.olg_diag_node(h, i)),
            "domain": dec(lib.olg_diag_domain(h, i)), "op": dec(lib.olg_diag_op(h, i)),
            "opset": lib.olg_diag_opset(h, i), "min_opset": lo if lo > 0 else None,
            "message": dec(lib.olg_diag_message(h, i)),
            "node_index": lib.olg_diag_node_index(h, i), "output": dec(lib.olg_diag_output(h, i)),
            "text": _format_diag(h, i),
        })
    return out


def format_diagnostic(d):
    """One line: the library's rendering (node, op, output, target opset, message, the lowest
    opset that works), and for a refusal that names none, that no opset works -- as the CLI."""
    lo = d.get("min_opset")
    tail = "" if (d["severity"] != "error" or lo or d["code"].startswith("OLG-PROFILE-")
                  or d["code"] == "OLG-LOWER-GRAPH") else (
        " [no opset from %d to %d works]" % (OPSET_MIN, OPSET_MAX))
    return (d.get("text") or "%s %s: %s" % (d["severity"], d["code"], d["message"])) + tail


def _with_diagnostics(err, diags):
    """err (an onnxlegal.Error from olg_legalize) with every error and warning of diags listed
    in its message, and kept as err.diagnostics."""
    records = [d for d in diagnostic_records(diags) if d["severity"] != "note"]
    if not records:
        return err
    msg = (err.message or "") + "".join("\n  " + format_diagnostic(d) for d in records)
    new = type(err)(err.status, msg, err.function)
    new.diagnostics = records
    return new


def legalize(model, registry=None, opset=17, ir_version=None, keep_initializers_as_inputs=False,
             constant_folding=True, decompositions=True, profile=None, diags=None, report=False,
             fold_weights=False, keep_functions=False, _consume=False):
    """Legalizes `model` (an onnxlegal.Model) at `opset`; returns a new Model that keeps `model`
    alive (its initializer data is borrowed). diags: an onnxlegal.Diags to collect findings
    (with report=True also a note per node saying how it was lowered). On failure the raised
    onnxlegal.Error lists every diagnostic (node, op, target opset, lowest opset that works) in
    its message and as .diagnostics. fold_weights: each inference BatchNormalization folded into
    the Conv/Gemm/MatMul before it, and byte-equal initializers merged (torch.onnx's
    do_constant_folding; needs constant_folding). keep_functions: the model-local functions the
    main graph calls are kept, their bodies converted, one copy per call signature (opset >= 15;
    below, inlined with a warning)."""
    from ._model import Diags
    reg = registry if registry is not None else default_registry()
    own = diags is None
    d = Diags() if own else diags
    o = c_void_p()
    call("olg_legalize_options_new", byref(o))
    try:
        call("olg_legalize_options_set_opset", o, int(opset))
        if ir_version is not None:
            call("olg_legalize_options_set_ir_version", o, int(ir_version))
        call("olg_legalize_options_set_flags", o, int(bool(keep_initializers_as_inputs)),
             int(bool(constant_folding)), int(bool(decompositions)))
        if profile is not None and not isinstance(profile, str):
            call("olg_legalize_options_set_profile_object", o, profile.handle)  # a Profile
        elif profile:
            call("olg_legalize_options_set_profile", o, enc(profile))
        if report:
            call("olg_legalize_options_set_report", o, 1)
        if fold_weights:
            call("olg_legalize_options_set_fold_weights", o, 1)
        if keep_functions:
            call("olg_legalize_options_set_keep_functions", o, 1)
        out = c_void_p()
        fn, src = "olg_legalize", model.handle
        if _consume and "olg_legalize_consume" not in lib.missing:
            fn, kept = "olg_legalize_consume", _give_up(model)
        try:
            call(fn, src, reg.handle, o, byref(out), d.handle)
        except Error as e:
            raise _with_diagnostics(e, d) from None
    finally:
        lib.olg_legalize_options_free(o)
        if own:
            d.close()
    result = Model(opset=None, name=None, _handle=out.value)
    result._borrow(kept if fn == "olg_legalize_consume" else model)
    result._borrow(reg)
    return result


def _give_up(model):
    """For olg_legalize_consume (_consume=True: convert's own source models, which nothing else
    borrows from): model's Python object forgets its C model without freeing it, as the call
    frees it (or hands it to its result, which borrows its tensors); returns what the C model
    points into (the bytes it was read from), for the result to keep."""
    own = model._own
    if own is None:
        raise StateError(ERR_STATE, "the model is closed")
    own.finalizer.detach()
    model._h = model._own = None
    return own.keep


_DEFAULT = None


def default_registry():
    """The built-in registry, frozen, shared."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = Registry(builtin=True).freeze()
    return _DEFAULT


__all__ = ["Registry", "Lower", "ShapeContext", "LoweringError", "UnsupportedOp", "legalize",
           "default_registry", "diagnostic_records", "format_diagnostic", "NO_VALUE"]
