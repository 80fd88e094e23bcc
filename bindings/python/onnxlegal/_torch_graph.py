"""The torch front end's source graph and the values its walk binds (no tracing here).

What onnxlegal._torch_trace's walker produces and onnxlegal._torch_script's control flow and
onnxlegal._torch_compat's torch-style symbolics share: the graph (SourceGraph of SNode, SValue,
SInit, SInput; Ints / Floats / Bools / Values literal lists), the walk's bindings (_Lit, _List,
_Tuple, _Ref, _Lazy), the example inputs' flattening and torch.onnx.export's argument
convention, and the export's training mode. It imports none of them, so that the front end's
modules import in one direction: _torch_graph <- _torch_script, _torch_compat <- _torch_trace.
"""
import contextlib

import torch

from . import _dtypes
from ._lib import ExportError

# torch dtype -> the library's dtype code
OLG_DTYPE = {
    torch.float32: _dtypes.FLOAT, torch.float64: _dtypes.DOUBLE, torch.float16: _dtypes.FLOAT16,
    torch.bfloat16: _dtypes.BFLOAT16, torch.int64: _dtypes.INT64, torch.int32: _dtypes.INT32,
    torch.int16: _dtypes.INT16, torch.int8: _dtypes.INT8, torch.uint8: _dtypes.UINT8,
    torch.bool: _dtypes.BOOL, torch.complex64: _dtypes.COMPLEX64,
    torch.complex128: _dtypes.COMPLEX128,
}


# ----------------------------------------------------------------------------------------------
# The source graph

class SValue:
    """A value of the source graph: a tensor, or a run-time scalar (the result of aten::size...).

    dtype and shape are what the trace saw (torch dtype, list of ints); they are hints for the
    front end's own decisions (copy_ needs a cast?), never declared to the library."""
    __slots__ = ("id", "hint", "kind", "dtype", "shape")

    def __init__(self, id_, hint, kind, dtype=None, shape=None):
        self.id, self.hint, self.kind, self.dtype, self.shape = id_, hint, kind, dtype, shape

    def __repr__(self):
        return "%%%d" % self.id


class Ints(list):
    """A literal int[] argument."""


class Floats(list):
    """A literal float[] argument."""


class Bools(list):
    """A literal bool[] argument."""


class Values(list):
    """A list of values: Tensor[], Tensor?[] (None entries), or int[] with run-time elements."""


class SNode:
    """scope: the module path of the node ("layer1.0.relu", "" at the top level); name: unique,
    the scope ("layer1.0.relu#2" for the second node of that module, a module called twice), or
    the op outside every module ("aten::add#2"); see _name_nodes."""
    __slots__ = ("domain", "op", "args", "outputs", "scope", "schema", "name", "tnode")

    def __init__(self, domain, op, args, outputs, scope, schema=None, tnode=None):
        self.domain, self.op, self.args, self.outputs = domain, op, args, outputs
        self.scope, self.schema, self.name = scope, schema, scope
        self.tnode = tnode  # the torch node walked into it (its source line for errors)

    def source_line(self):
        """'File "f.py", line 89: code' of the Python line the node came from, or ''."""
        return _source_line(self.tnode) if self.tnode is not None else ""

    def __repr__(self):
        return "%s = %s::%s(%s)  # %s" % (", ".join(map(repr, self.outputs)), self.domain,
                                          self.op, ", ".join(map(repr, self.args)), self.scope)


class SInit:
    """A constant tensor: array is a numpy view of tensor's memory (tensor kept alive)."""
    __slots__ = ("value", "name", "tensor", "array", "dtype", "kind")

    def __init__(self, value, name, tensor, array, kind):
        self.value, self.name, self.tensor, self.array, self.kind = value, name, tensor, array, kind
        self.dtype = tensor.dtype


class SInput:
    __slots__ = ("value", "name", "dtype", "shape", "example")

    def __init__(self, value, name, dtype, shape, example):
        self.value, self.name, self.dtype, self.shape, self.example = value, name, dtype, shape, example


class SourceGraph:
    def __init__(self):
        self.inputs = []        # SInput, in the order of the flattened example inputs
        self.initializers = []  # SInit that some live node uses (or that are outputs)
        self.nodes = []         # SNode, topologically ordered
        self.outputs = []       # (SValue, name)
        self.example_outputs = []  # the torch tensors the traced run produced, flattened
        self.times = {}
        self.warnings = []

    def ops(self):
        """{"domain::op": [node name, ...]} of the nodes (those of If/Loop bodies too), in order
        of first appearance."""
        seen = {}
        for n in iter_nodes(self.nodes):
            seen.setdefault("%s::%s" % (n.domain, n.op), []).append(n.name)
        return seen

    def dump(self):
        lines = ["inputs: " + ", ".join("%r %s" % (i.value, i.name) for i in self.inputs),
                 "initializers: " + ", ".join("%r %s" % (i.value, i.name) for i in self.initializers)]
        lines += [repr(n) for n in self.nodes]
        lines.append("outputs: " + ", ".join("%r %s" % o for o in self.outputs))
        return "\n".join(lines)


# onnxlegal.ExportError (an onnxlegal.Error); the walk's name for it, kept for the code that raises it
TorchExportError = ExportError


def input_shape(name, t, dynamic_dims):
    """The declared shape of input `name` (example tensor t): its dims, those named in
    dynamic_axes ({dim: name}) by their names. A complex tensor is refused (no ONNX Runtime
    type)."""
    shape = list(t.shape)
    for d, dname in dynamic_dims.get(name, {}).items():
        if d >= len(shape):
            raise TorchExportError("dynamic_axes: input %r has rank %d, no dim %d"
                                   % (name, len(shape), d))
        shape[d] = dname
    if t.is_complex():
        raise TorchExportError("input %r is a complex tensor, which has no ONNX Runtime type: "
                               "pass torch.view_as_real(it) and call torch.view_as_complex "
                               "inside" % name)
    return shape


def check_dynamic_axes_names(dyn, names, onames):
    """Every name dynamic_axes gives is an input's or an output's."""
    for name in dyn:
        if name not in names and name not in onames:
            raise TorchExportError("dynamic_axes names %r, which is neither an input nor an "
                                   "output; the inputs are %s, the outputs %s"
                                   % (name, ", ".join(map(repr, names)) or "(none)",
                                      ", ".join(map(repr, onames)) or "(none)"))


def iter_nodes(nodes):
    """Every node of nodes and of their If/Loop bodies (SBlock, _torch_script), depth first."""
    for n in nodes:
        yield n
        for b in getattr(n, "blocks", {}).values():
            yield from iter_nodes(b.nodes)


# ----------------------------------------------------------------------------------------------
# Flattening of inputs and outputs (tuples, lists, dicts, in order)

def _flatten(obj, out, path, names):
    if isinstance(obj, torch.Tensor):
        out.append(obj)
        names.append(path)
    elif isinstance(obj, tuple) and hasattr(obj, "_fields"):  # a namedtuple: its field names
        for k, o in zip(obj._fields, obj):
            _flatten(o, out, "%s_%s" % (path, k) if path else str(k), names)
    elif isinstance(obj, (list, tuple)):
        for i, o in enumerate(obj):
            _flatten(o, out, "%s_%d" % (path, i) if path else str(i), names)
    elif isinstance(obj, dict):
        for k, o in obj.items():
            _flatten(o, out, "%s_%s" % (path, k) if path else str(k), names)
    elif obj is None or isinstance(obj, (int, float, bool, str)):
        pass  # not a graph value (a constant of the trace)
    else:
        raise TorchExportError("cannot flatten a %s into graph values (tensors, tuples, lists and "
                               "dicts of tensors are supported)" % type(obj).__name__)


def flatten(obj):
    """Tensors of a nested tuple/list/dict in order, and a path name for each ("0_1", "out")."""
    out, names = [], []
    _flatten(obj, out, "", names)
    return out, names


def _rebuild(template, it):
    if isinstance(template, torch.Tensor):
        return next(it)
    if isinstance(template, tuple) and hasattr(template, "_fields"):  # namedtuple
        return type(template)(*[_rebuild(t, it) for t in template])
    if isinstance(template, (list, tuple)):
        return type(template)(_rebuild(t, it) for t in template)
    if isinstance(template, dict):
        return type(template)((k, _rebuild(t, it)) for k, t in template.items())
    return template


def _split_args(args):
    """torch.onnx.export's convention: a tensor, or a tuple whose last element may be a dict of
    keyword arguments."""
    if isinstance(args, torch.Tensor):
        return (args,), {}
    if isinstance(args, list):
        args = tuple(args)
    if not isinstance(args, tuple):
        args = (args,)
    if args and isinstance(args[-1], dict):
        return args[:-1], dict(args[-1])
    return args, {}


# "eval" (the default), "training" or "preserve": onnxlegal.torch.export's training argument
TRAINING_MODE = "eval"


@contextlib.contextmanager
def _eval_mode(model):
    """Export is for inference (torch.onnx's default TrainingMode.EVAL): eval() for the trace,
    the modules' own training flags restored afterwards. TRAINING_MODE (set by export's
    training argument for the call) may ask for train() ("training") or the modules' own
    flags ("preserve") instead."""
    flags = [(m, m.training) for m in model.modules()]
    if TRAINING_MODE == "training":
        model.train()
    elif TRAINING_MODE != "preserve":
        model.eval()
    try:
        yield
    finally:
        for m, t in flags:
            m.training = t


# ----------------------------------------------------------------------------------------------
# The walk's values

class _Lit:
    __slots__ = ("v",)

    def __init__(self, v):
        self.v = v


class _List:
    """depth: how many blocks of scripted control flow deep it was made. seq: once the list grows
    inside scripted control flow it is held as an ONNX sequence value (items no longer used);
    seq_dtype, seq_rank: its elements' torch dtype and rank when known."""
    __slots__ = ("items", "elem", "depth", "seq", "seq_dtype", "seq_rank")

    def __init__(self, items, elem, depth=0):
        self.items, self.elem, self.depth = items, elem, depth
        self.seq = self.seq_dtype = self.seq_rank = None


class _Tuple:
    __slots__ = ("items",)

    def __init__(self, items):
        self.items = items


class _Ref:
    """A tensor of the traced program, with the value it holds now.

    Aliases of one tensor (the output of an in-place op, NumToTensor) share one _Ref. A view has
    base (the _Ref it views), fwd (base value -> view value, emits the view op again) and inv
    ((base value, new view value) -> new base value, emits the write-back), or inv None when a
    write through it cannot be expressed. root.gen counts writes to the storage; a view whose
    value is older than its root's gen is derived again from its base when next read."""
    __slots__ = ("val", "base", "fwd", "inv", "root", "gen", "what", "tval")

    def __init__(self, val, tval=None, base=None, fwd=None, inv=None, what=None):
        self.val, self.tval, self.base, self.fwd, self.inv, self.what = val, tval, base, fwd, inv, what
        self.root = base.root if base is not None else self
        self.gen = self.root.gen if base is not None else 0


_TORCH_KIND = {"IntType": "int", "FloatType": "float", "BoolType": "bool", "NumberType": "float",
               "TensorType": "tensor"}

_SCALAR_TYPE = {  # the trace's scalarType() names
    "Float": torch.float32, "Double": torch.float64, "Half": torch.float16,
    "BFloat16": torch.bfloat16, "Long": torch.int64, "Int": torch.int32, "Short": torch.int16,
    "Char": torch.int8, "Byte": torch.uint8, "Bool": torch.bool,
    "ComplexFloat": torch.complex64, "ComplexDouble": torch.complex128}

# torch's ScalarType numbering, as aten ops take a dtype argument
SCALAR_TYPE_NUMBER = {torch.uint8: 0, torch.int8: 1, torch.int16: 2, torch.int32: 3,
                      torch.int64: 4, torch.float16: 5, torch.float32: 6, torch.float64: 7,
                      torch.complex64: 9, torch.complex128: 10, torch.bool: 11,
                      torch.bfloat16: 15}


def _source_line(node):
    """'File "f.py", line 89: if boxes.numel() == 0:' from a node's source range, or ''."""
    try:
        lines = node.sourceRange().splitlines()
    except RuntimeError:
        return ""
    if not lines:
        return ""
    code = ""
    for prev, line in zip(lines, lines[1:]):
        mark = line.replace("<--- HERE", "").strip()  # scripted code's ranges end so
        if mark and set(mark) <= {"~"}:
            code = prev.strip()
            break
    return lines[0].strip() + (": " + code if code else "")


def _tensor_info(tv):
    t = tv.type()
    if t.kind() != "TensorType":
        return None, None
    st = t.scalarType()
    sizes = None
    try:
        sizes = t.sizes()
    except RuntimeError:
        pass
    return _SCALAR_TYPE.get(st) if st else None, sizes


def _is_contiguous(tv):
    t = tv.type()
    if t.kind() != "TensorType":
        return False
    try:
        sizes, strides = t.sizes(), t.strides()
    except RuntimeError:
        return False
    if sizes is None or strides is None:
        return False
    expect = 1
    for s, st in zip(reversed(sizes), reversed(strides)):
        if s != 1 and st != expect:
            return False
        expect *= s
    return True


def borrow_array(t):
    """A numpy array sharing t's memory (a contiguous copy only when t is not contiguous), and
    the tensor that owns that memory."""
    t = t.detach()
    if not t.is_contiguous():
        t = t.contiguous()
    if t.device.type != "cpu":
        t = t.cpu()
    if t.dtype == torch.bfloat16:
        return t, t.view(torch.int16).numpy()
    if t.is_complex():
        raise TorchExportError("complex tensors have no ONNX Runtime type")
    return t, t.numpy()


class _Lazy:
    """A parameter or buffer: becomes an initializer the first time a node uses it."""
    __slots__ = ("name", "tensor", "_ref")

    def __init__(self, name, tensor):
        self.name, self.tensor, self._ref = name, tensor, None

    def ref(self, walker):
        if self._ref is None:
            self._ref = _Ref(walker.initializer(self.tensor, self.name, "parameter"))
        return self._ref


# ----------------------------------------------------------------------------------------------
# Complex values: ONNX Runtime takes no complex tensor type here, so a complex value is carried
# as a real tensor whose last dim is 2 (real, imaginary), as ONNX DFT writes it; the source value
# is declared complex64/complex128 (the library's symbolics read that: olg__src_arg_complex).
# torch.fft's ops read and make the carried form; the views of a complex value lower exactly to
# ops on it; every other op that receives a complex value is refused.

# torch.fft ops (aten::fft_*) and torch.stft, lowered by the library (symbolics/signal.c)
COMPLEX_FFT = {"fft_" + n for n in ("fft", "ifft", "rfft", "irfft", "fftn", "ifftn", "rfftn",
                                    "irfftn", "fft2", "ifft2", "rfft2", "irfft2")} | {"stft"}


def is_complex_value(tv):
    """True when the trace typed torch value tv as a complex tensor."""
    t = tv.type()
    if t.kind() != "TensorType":
        return False
    st = t.scalarType()
    return st in ("ComplexFloat", "ComplexDouble", "ComplexHalf")


def complex_op(walker, node, op, args, ins, outs):
    """The walk of aten::op when a complex value meets it: True when it is lowered here (a view
    of the carried form), False when it is emitted as it is (torch.fft); raises for the rest."""
    cplx = [k for k, tv in enumerate(ins) if is_complex_value(tv)]
    where = (walker.scope or "the top level") + ("; " + _source_line(node) if _source_line(node) else "")
    made = [o for o in outs if is_complex_value(o)]
    if op in COMPLEX_FFT:
        return False
    if op == "view_as_complex" or (op == "real" and not cplx):
        y = walker.emit("alias", [args[0]])  # the carried form is x itself
    elif op in ("view_as_real", "resolve_conj", "resolve_neg") and cplx:
        y = walker.emit("alias", [args[0]])
    elif op in ("real", "imag") and cplx:
        y = walker.emit("select", [args[0], -1, 0 if op == "real" else 1])
    elif op == "abs" and cplx:  # |a + bi| = sqrt(a^2 + b^2), a 2-norm over the carried dim
        y = walker.emit("linalg_vector_norm", [args[0], 2, Ints([-1]), False, None])
    elif not cplx and not made:
        return None
    else:
        what = ("receives a complex tensor (argument %d)" % cplx[0]) if cplx else \
            "makes a complex tensor"
        raise TorchExportError(
            "aten::%s %s: complex values are carried as real tensors with a last dim of 2, "
            "which only torch.fft, torch.stft, torch.view_as_real, torch.view_as_complex, .real, "
            ".imag and .abs() read or make (at %s)" % (op, what, where))
    if made:
        y.dtype = _SCALAR_TYPE[made[0].type().scalarType()]
    return y
