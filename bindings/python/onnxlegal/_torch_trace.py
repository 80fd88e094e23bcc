"""The torch front end's first half: trace a module, walk the trace into a flat source graph.

The result (SourceGraph) is plain Python and independent of the C library, so it can be checked on
its own (tests/torch/interp.py runs it back through torch) and then handed to the binding:
- every `aten::` node (and any other framework namespace) becomes a SNode with its positional
  arguments exactly as the op's schema lists them: SValue for a tensor or a run-time scalar,
  int / float / bool / str / None literals, Ints / Floats / Bools literal lists, Values lists
  (Tensor[], Tensor?[] with None entries, and int[] whose elements are computed at run time);
- `prim::` bookkeeping (constants, lists, tuples, NumToTensor, Int) is resolved here and never
  reaches the library;
- parameters, buffers and tensor constants become SInit whose numpy array shares the torch
  tensor's memory (no copy; the SInit keeps the tensor alive);
- in-place ops are made functional: the mutated tensor, every alias of it and every view of it
  see the new value from then on, and a write through a view (slice, select, view, transpose,
  ...) is written back into its base with slice/cat/reshape/permute nodes;
- `aten::size` stays a node, so shape computations stay dynamic where the dims are.

Only what torch itself exposes is used: its tracer (torch._C._create_graph_by_tracing, what
torch.onnx traces with, parameters as trailing graph inputs) and torch._C.Graph/Node/Value
accessors.
"""
import contextlib
import functools
import gc
import time
import warnings

import torch

from . import _torch_compat, _torch_graph, _torch_script
from ._torch_graph import (SValue, Ints, Floats, Bools, Values, SNode, SInit, SInput, SourceGraph,
                           TorchExportError, flatten, _rebuild, _split_args, _eval_mode, _Lit,
                           _List, _Tuple, _Ref, _TORCH_KIND, SCALAR_TYPE_NUMBER, _tensor_info,
                           _is_contiguous, borrow_array, _Lazy, check_dynamic_axes_names,
                           input_shape, iter_nodes)

INT64_MAX = 9223372036854775807


class _Root(torch.nn.Module):
    """Calls the user's model on rebuilt arguments and returns flat tensors: the model's outputs,
    then the outputs of the modules named in extra_outputs (captured by forward hooks)."""

    def __init__(self, model, args, kwargs, capture):
        super().__init__()
        self.model = model
        self._args, self._kwargs, self._capture = args, kwargs, capture
        self.output_names = None

    def forward(self, *flat):
        it = iter(flat)
        args = _rebuild(self._args, it)
        kwargs = _rebuild(self._kwargs, it)
        for k in self._capture:
            self._capture[k] = None
        out = self.model(*args, **kwargs)
        tensors, names = flatten(out)
        if isinstance(out, torch.Tensor):
            names = [""]
        self.output_names = names
        for k, t in self._capture.items():
            if not isinstance(t, torch.Tensor):
                raise TorchExportError("extra output %r: the module did not produce a tensor "
                                       "(got %s)" % (k, type(t).__name__))
            tensors.append(t)
        return tuple(tensors)


# Functions whose int[] arguments a traced size (a 0-d tensor while tracing) cannot reach:
# torch's argument parser refuses a Tensor where it wants int[] ("max_pool1d(): argument
# 'kernel_size' must be tuple of ints, not Tensor"), though it takes a list of them. The shim
# turns such a tensor into [t] * rank for the call, so the size stays a traced value.
_POOL_RANK = {"max_pool1d": 1, "max_pool2d": 2, "max_pool3d": 3, "avg_pool1d": 1,
              "max_pool1d_with_indices": 1, "adaptive_max_pool1d": 1, "adaptive_avg_pool1d": 1}
_NN_POOL_RANK = {"avg_pool2d": 2, "avg_pool3d": 3, "max_pool2d_with_indices": 2,
                 "max_pool3d_with_indices": 3, "adaptive_avg_pool2d": 2, "adaptive_avg_pool3d": 3,
                 "adaptive_max_pool2d": 2, "adaptive_max_pool3d": 3}


def _int_list_shim(fn, rank):
    @functools.wraps(fn)
    def call(*args, **kwargs):
        args = [[a] * rank if isinstance(a, torch.Tensor) and a.dim() == 0 and
                not a.is_floating_point() and i > 0 else a for i, a in enumerate(args)]
        return fn(*args, **kwargs)
    return call


@contextlib.contextmanager
def _tracing_shims():
    saved = []
    # code compiled with torch.jit.script during the trace (torch.jit._script_if_tracing, as
    # F.interpolate in torchvision's mask pasting) must still see the shimmed functions as the
    # aten builtins they stand for
    builtins = torch.jit._builtins._get_builtin_table()
    for mod, table in ((torch, _POOL_RANK), (torch._C._nn, _NN_POOL_RANK)):
        for name, rank in table.items():
            fn = getattr(mod, name, None)
            if fn is not None:
                shim = _int_list_shim(fn, rank)
                saved.append((mod, name, fn, shim))
                setattr(mod, name, shim)
                if id(fn) in builtins:
                    builtins[id(shim)] = builtins[id(fn)]
    try:
        yield
    finally:
        for mod, name, fn, shim in saved:
            setattr(mod, name, fn)
            builtins.pop(id(shim), None)


def trace(model, args, extra_outputs=()):
    """Traces model on args (torch.onnx.export's args convention) and returns
    (torch graph, flat example inputs, their path names, [(param name, tensor)], root module,
    example outputs (flat), module names captured as extra outputs)."""
    if _torch_script.is_script(model):
        return _torch_script.trace_script(model, args, extra_outputs)
    args, kwargs = _split_args(args)
    flat_in, in_names = flatten((args, kwargs))
    modules = dict(model.named_modules()) if isinstance(model, torch.nn.Module) else {}
    capture = {}
    hooks = []
    for name in extra_outputs or ():
        if name in modules and name != "":
            capture[name] = None

            def hook(mod, inp, out, _name=name):
                t, _ = flatten(out)
                capture[_name] = t[0] if t else out
            hooks.append(modules[name].register_forward_hook(hook))
    if not isinstance(model, torch.nn.Module):
        fn = model

        class _Fn(torch.nn.Module):
            def forward(self, *a, **k):
                return fn(*a, **k)
        model = _Fn()
    root = _Root(model, args, kwargs, capture)
    scope_names = {m: n for n, m in model.named_modules() if n}
    old_map = torch.jit._trace._trace_module_map
    torch.jit._trace._trace_module_map = scope_names
    try:
        # Parameters and buffers are inputs of the trace too, after the model's inputs, in
        # _unique_state_dict order (shared tensors once), so that the graph refers to them
        # instead of holding them as constants. torch.jit._get_trace_graph would do the same
        # but first clones every input of the trace, parameters included (a second copy of
        # every weight); the tracer's entry point is called directly instead.
        state = torch.jit._unique_state_dict(root, keep_vars=True)
        params = [(k[len("model."):] if k.startswith("model.") else k, v)
                  for k, v in state.items()]
        n_in = len(flat_in)
        result = []

        def traced(*tensors):
            result.append(root(*tensors[:n_in]))
            return result[0]
        with _eval_mode(model), _tracing_shims(), warnings.catch_warnings(record=True) as caught, \
                _torch_script.scripted_children_as_functions(model) as stand_ins:
            warnings.simplefilter("always", torch.jit.TracerWarning)
            for shim, scripted in stand_ins.items():
                if scripted in scope_names:
                    scope_names[shim] = scope_names[scripted]
            graph, _ = torch._C._create_graph_by_tracing(
                traced, list(flat_in) + [v for _, v in params],
                torch.jit._trace._create_interpreter_name_lookup_fn(), False, False)
        outs = result[0]
        # functions and modules compiled with torch.jit.script that the model calls are
        # prim::CallFunction / prim::CallMethod nodes of the trace: inline their graphs
        torch._C._jit_pass_inline(graph)
        if _torch_script.has_blocks(graph):
            _torch_script.prepare_graph(graph)
    finally:
        torch.jit._trace._trace_module_map = old_map
        for h in hooks:
            h.remove()
    tracer_warnings = [str(w.message) for w in caught
                       if issubclass(w.category, torch.jit.TracerWarning)]
    return dict(graph=graph, inputs=flat_in, input_names=in_names, params=params,
                outputs=list(outs), output_names=list(root.output_names or []),
                captured=list(capture), warnings=tracer_warnings)


# ----------------------------------------------------------------------------------------------
# The walk

# Ops whose output is a view of their first argument. The value is how to write a new value of
# the view back into the base: a method of _Walker, or None when a write cannot be expressed.
_VIEW_INV = {
    "slice": "_inv_slice", "select": "_inv_select", "narrow": "_inv_narrow",
    "view": "_inv_reshape", "reshape": "_inv_reshape", "flatten": "_inv_reshape",
    "unflatten": "_inv_reshape", "view_as": "_inv_reshape", "reshape_as": "_inv_reshape",
    "squeeze": "_inv_squeeze", "unsqueeze": "_inv_unsqueeze",
    "transpose": "_inv_transpose", "swapaxes": "_inv_transpose", "swapdims": "_inv_transpose",
    "permute": "_inv_permute", "t": "_inv_t", "numpy_T": "_inv_permute_all",
    "detach": "_inv_identity", "alias": "_inv_identity",
    "expand": None, "expand_as": None, "as_strided": None, "diagonal": None, "unfold": None,
    "movedim": None, "moveaxis": None, "view_as_real": None, "view_as_complex": None,
    "real": None, "imag": None,
}
# Ops that return a list of views of their first argument.
_LIST_VIEWS = {"split", "split_with_sizes", "chunk", "unbind", "tensor_split", "unsafe_split",
               "unsafe_chunk", "unsafe_split_with_sizes", "hsplit", "vsplit", "dsplit"}

# Random in-place initializers have no inference meaning.
_NO_FUNCTIONAL = {"normal_", "uniform_", "bernoulli_", "random_", "exponential_", "cauchy_",
                  "geometric_", "log_normal_", "set_", "resize_", "resize_as_", "requires_grad_",
                  "share_memory_", "retain_grad"}
_DUNDER_INPLACE = {"__iand__": "__and__", "__ior__": "__or__", "__ixor__": "__xor__",
                   "__ilshift__": "__lshift__", "__irshift__": "__rshift__"}


def inplace_functional(op):
    """The functional op for an in-place aten op name, or None when op is not in-place."""
    if op in _DUNDER_INPLACE:
        return _DUNDER_INPLACE[op]
    if op.endswith("_") and not op.endswith("__") and op not in ("_",):
        if op == "_index_put_impl_":
            return "index_put"
        return op[:-1]
    return None


class _Walker:
    def __init__(self, tr, input_names, dynamic_dims):
        self.tr = tr
        self.sg = SourceGraph()
        self.env = {}
        self.next_id = 0
        self.scope = ""
        self.const_cache = {}
        self.init_by_value = {}
        self.by_debug_name = {}
        self.input_names = input_names
        self.dynamic_dims = dynamic_dims
        self.blocks = []  # the scripted If/Loop blocks being walked (_torch_script)

    # -- values and nodes
    def new_value(self, hint, kind="tensor", dtype=None, shape=None):
        v = SValue(self.next_id, hint, kind, dtype, shape)
        self.next_id += 1
        return v

    def emit(self, op, args, n_out=1, domain="aten", kinds=None, schema=None):
        outs = [self.new_value(op, (kinds[i] if kinds else "tensor")) for i in range(n_out)]
        self.sg.nodes.append(SNode(domain, op, args, outs, self.scope, schema,
                                   getattr(self, "tnode", None)))
        return outs[0] if n_out == 1 else outs

    def initializer(self, tensor, name, kind="const"):
        t, arr = borrow_array(tensor)
        v = self.new_value(name, "tensor", tensor.dtype, list(tensor.shape))
        init = SInit(v, name, t, arr, kind)
        self.sg.initializers.append(init)
        self.init_by_value[v.id] = init
        return v

    def const_scalar(self, x, dtype):
        """A 0-d initializer for a literal element of a run-time list."""
        key = (type(x), x, dtype)
        v = self.const_cache.get(key)
        if v is None:
            v = self.initializer(torch.tensor(x, dtype=dtype), "const_%s" % (x,), "literal")
            self.const_cache[key] = v
        return v

    # -- current values (views derived again after a write into their storage)
    def current(self, ref):
        if ref.base is not None and ref.gen != ref.root.gen:
            b = self.current(ref.base)
            ref.val = ref.fwd(b)
            ref.gen = ref.root.gen
        return ref.val

    def assign(self, ref, new):
        """ref's tensor now holds new: write it back through every view up to the storage."""
        self.current(ref)
        ref.val = new
        chain = [ref]
        while ref.base is not None:
            if ref.inv is None:
                raise TorchExportError(
                    "an in-place write through a view made by aten::%s cannot be expressed "
                    "(at %s)" % (ref.what, self.scope or "the top level"))
            base = ref.base
            base.val = ref.inv(base.val, new)
            new = base.val
            ref = base
            chain.append(ref)
        root = ref
        if self.blocks and isinstance(root.val, SValue) and root.val.id < self.blocks[-1].start:
            raise TorchExportError(
                "an in-place write, inside a scripted loop or branch, into a tensor defined "
                "outside it is not supported (at %s)" % (self.scope or "the top level"))
        root.gen += 1
        for r in chain:
            r.gen = root.gen

    # -- arguments
    def arg(self, tv):
        e = self.env.get(tv)
        if e is None:
            raise TorchExportError("internal: value %s used before it is defined" % tv.debugName())
        if isinstance(e, _Lazy):  # a parameter: an initializer on its first use
            e = self.env[tv] = e.ref(self)
        if isinstance(e, _Ref):
            return self.current(e)
        if isinstance(e, _Lit):
            return e.v
        if isinstance(e, _List):
            return self.list_arg(e)
        raise TorchExportError("a tuple cannot be an argument of an op (value %s at %s)"
                               % (tv.debugName(), self.scope or "the top level"))

    def list_arg(self, lst):
        if lst.seq is not None:
            raise TorchExportError(
                "a list that grows inside scripted control flow (held as an ONNX sequence) is "
                "read by an op that takes a list; only len(), [i], torch.cat and torch.stack "
                "read such a list (at %s)" % (self.scope or "the top level"))
        items = lst.items
        elem = lst.elem
        if all(isinstance(i, _Lit) for i in items):
            vals = [i.v for i in items]
            if "Tensor" in elem:
                return Values(vals)  # all None (Tensor?[]) or empty
            if elem == "int" or (vals and all(type(v) is int for v in vals) and elem != "float"):
                return Ints(vals)
            if elem == "float":
                return Floats(float(v) for v in vals)
            if elem == "bool":
                return Bools(vals)
            if not vals:
                return Ints()
            raise TorchExportError("a literal list of %s is not supported" % elem)
        out = Values()
        dtype = torch.float64 if elem == "float" else torch.bool if elem == "bool" else torch.int64
        for i in items:
            if isinstance(i, _Ref):
                out.append(self.current(i))
            elif isinstance(i, _Lit):
                out.append(None if i.v is None else self.const_scalar(i.v, dtype))
            else:
                raise TorchExportError("a nested list is not supported as an argument")
        return out

    # -- the walk
    def run(self):
        tr = self.tr
        g = tr["graph"]
        ginputs = list(g.inputs())
        n_user = len(tr["inputs"])
        if len(ginputs) != n_user + len(tr["params"]):
            raise TorchExportError("internal: the trace has %d inputs for %d inputs and %d "
                                   "parameters" % (len(ginputs), n_user, len(tr["params"])))
        for k, (tv, t) in enumerate(zip(ginputs[:n_user], tr["inputs"])):
            name = self.input_names[k]
            shape = input_shape(name, t, self.dynamic_dims)
            v = self.new_value(name, "tensor", t.dtype, list(t.shape))
            self.sg.inputs.append(SInput(v, name, t.dtype, shape, t))
            self.env[tv] = _Ref(v, tv)
        for tv, (name, t) in zip(ginputs[n_user:], tr["params"]):
            self.env[tv] = _Lazy(name, t)  # an initializer only when some node uses it
        self.walk(g.nodes())
        self.scope = ""
        outs = []
        for r in g.outputs():  # one tuple, or the tensors themselves
            outs.extend(self.flat_outputs(self.env.get(r)))
        for v in outs:
            if v.dtype is not None and v.dtype.is_complex:
                raise TorchExportError("an output is a complex tensor, which has no ONNX Runtime "
                                       "type: return torch.view_as_real(it)")
        return outs

    def walk(self, nodes):
        for node in nodes:
            self.scope = node.scopeName().rsplit("/", 1)[-1]
            self.node(node)

    def flat_outputs(self, e):
        if isinstance(e, _Lazy):
            e = e.ref(self)
        if isinstance(e, _Ref):
            return [self.current(e)]
        if isinstance(e, _List) and e.seq is not None:
            raise TorchExportError(
                "a list that grows inside scripted control flow is returned (its length is known "
                "only at run time): return torch.stack or torch.cat of it")
        if isinstance(e, (_Tuple, _List)):
            res = []
            for i in e.items:
                res.extend(self.flat_outputs(i))
            return res
        if isinstance(e, _Lit):
            if e.v is None:
                return []
            return [self.initializer(torch.tensor(e.v), "constant_output", "literal")]
        raise TorchExportError("internal: unknown output kind %r" % (e,))

    def node(self, node):
        self.tnode = node
        kind = node.kind()
        if kind == "prim::Constant":  # a third of a trace's nodes: the short way
            return self.constant(node, node.output())
        ns, _, op = kind.partition("::")
        outs = list(node.outputs())
        ins = list(node.inputs())
        if ns == "prim":
            return self.prim(node, op, ins, outs)
        if ns == "aten" and op in _torch_script.LIST_OPS and \
                _torch_script.aten_op(self, node, op, ins, outs):
            return None
        if ns == "aten" and op in ("Int", "IntImplicit", "Float", "FloatImplicit", "Bool",
                                   "ScalarImplicit", "Double"):
            return self.scalar_conversion(node, op, ins, outs)
        # aten::size is emitted like any op: a shape computation stays dynamic where dims are
        fn = inplace_functional(op) if ns == "aten" else None
        if fn is not None:
            return self.inplace(node, op, fn, ins, outs)
        args = [self.arg(tv) for tv in ins]
        if ns == "aten":
            y = _torch_graph.complex_op(self, node, op, args, ins, outs)
            if y:
                self.env[outs[0]] = _Ref(y, outs[0])
                return None
        self.call(node, ns, op, args, outs, ins)

    def call(self, node, ns, op, args, outs, ins):
        """Emits node as a source node; registers its outputs (lists expanded, views noted)."""
        kinds = []
        layout = []  # per torch output: None (one value) or n (a list of n values)
        unpack = None
        for o in outs:
            tk = o.type().kind()
            if tk == "ListType" and "Tensor" in str(o.type().getElementType()):
                unpack = next((u.user for u in o.uses() if u.user.kind() == "prim::ListUnpack"),
                              None)
                n = len(list(unpack.outputs())) if unpack is not None else \
                    self.list_length(op, ins)
                layout.append(n)
                kinds.extend(["tensor"] * n)
            else:
                layout.append(None)
                # an int[] result (aten::size(x)) is one value: a 1-D int64 tensor
                kinds.append("ints" if tk == "ListType" else _TORCH_KIND.get(tk, "tensor"))
        try:
            schema = str(node.schema()) if ns == "aten" else None
        except RuntimeError:
            schema = None
        svals = []
        for o, n in zip(outs, layout):
            for _ in range(1 if n is None else n):
                svals.append(self.new_value(o.debugName(), kinds[len(svals)]))
        self.sg.nodes.append(SNode(ns, op, args, svals, self.scope, schema, node))
        it = iter(svals)
        for o, n in zip(outs, layout):
            if n is None:
                sv = next(it)
                if _torch_graph.is_complex_value(o):  # declared so (_torch_graph.complex_op)
                    sv.dtype = _tensor_info(o)[0]
                self.by_debug_name[o.debugName()] = sv
                ref = self.view_ref(op, ins, args, sv, o) if ns == "aten" else None
                self.env[o] = ref or _Ref(sv, o)
            else:
                items = [next(it) for _ in range(n)]
                refs = self.list_view_refs(op, ins, args, items, unpack)
                self.env[o] = _List(refs, "Tensor")

    def list_length(self, op, ins):
        """How many tensors a list-valued output holds when no ListUnpack says: from the op's
        meaning and the trace's sizes."""
        dt, shape = _tensor_info(ins[0]) if ins else (None, None)

        def lit(i):
            e = self.env.get(ins[i])
            return e.v if isinstance(e, _Lit) else None
        if shape is not None:
            if op in ("split", "unsafe_split") and isinstance(lit(1), int):
                d = lit(2)
                size = shape[d]
                return max(1, -(-size // lit(1)))
            if op in ("split_with_sizes", "unsafe_split_with_sizes", "split") and \
                    isinstance(self.env.get(ins[1]), _List) and self.env[ins[1]].seq is None:
                return len(self.env[ins[1]].items)
            if op in ("chunk", "unsafe_chunk") and isinstance(lit(1), int):
                d = lit(2)
                size = shape[d]
                each = -(-size // lit(1))
                return -(-size // each) if size else lit(1)
            if op == "unbind":
                return shape[lit(1) if lit(1) is not None else 0]
        if op == "meshgrid" and isinstance(self.env.get(ins[0]), _List) and \
                self.env[ins[0]].seq is None:
            return len(self.env[ins[0]].items)
        raise TorchExportError("the number of tensors that aten::%s returns is not known from the "
                               "trace (at %s)" % (op, self.scope or "the top level"))

    # -- views
    def view_ref(self, op, ins, args, sv, o):
        # contiguous() of a contiguous tensor returns the tensor itself: an alias
        if op not in _VIEW_INV and not (op == "contiguous" and _is_contiguous(ins[0])):
            return None
        base_e = self.env.get(ins[0])
        if not isinstance(base_e, _Ref):
            return None
        rest = list(args[1:])
        if op == "contiguous":
            return _Ref(sv, o, base_e, lambda b: self.emit("contiguous", [b] + rest),
                        self._inv_identity_fn(), "contiguous")
        inv_name = _VIEW_INV[op]
        inv = getattr(self, inv_name)(base_e, rest) if inv_name else None
        return _Ref(sv, o, base_e, lambda b, op=op: self.emit(op, [b] + rest), inv, op)

    def list_view_refs(self, op, ins, args, items, unpack):
        """Refs for the tensors of a list output; for split/chunk/unbind, views of the input."""
        base_e = self.env.get(ins[0]) if ins else None
        if op not in _LIST_VIEWS or not isinstance(base_e, _Ref):
            return [_Ref(v, None) for v in items]
        sizes = None
        if unpack is not None:
            sizes = [_tensor_info(o)[1] for o in unpack.outputs()]
        refs = []
        if op == "unbind":
            d = args[1] if len(args) > 1 else 0
            for k, v in enumerate(items):
                refs.append(_Ref(v, None, base_e,
                                 lambda b, k=k: self.emit("select", [b, d, k]),
                                 self._inv_select(base_e, [d, k]), "unbind"))
            return refs
        d = args[2] if len(args) > 2 else 0
        if sizes is None or any(s is None for s in sizes) or not isinstance(d, int):
            # views all the same: derived again with the whole op; a write through one fails
            return [_Ref(v, None, base_e,
                         lambda b, k=k: self.emit(op, [b] + list(args[1:]), len(items))[k],
                         None, op) for k, v in enumerate(items)]
        off = 0
        for k, v in enumerate(items):
            n = sizes[k][d]
            s, e = off, off + n
            refs.append(_Ref(v, None, base_e,
                             lambda b, s=s, e=e: self.emit("slice", [b, d, s, e, 1]),
                             self._inv_slice(base_e, [d, s, e, 1]), op))
            off = e
        return refs

    def _inv_identity_fn(self):
        return lambda b, new: new

    def _inv_identity(self, base, rest):
        return lambda b, new: new

    def _slice_back(self, b, new, dim, start, end):
        """b with [start:end) along dim replaced by new: Concat of the pieces around it."""
        pieces = []
        if not (isinstance(start, int) and start == 0):
            pieces.append(self.emit("slice", [b, dim, 0, start, 1]))
        pieces.append(new)
        if not (isinstance(end, int) and end >= INT64_MAX // 2):
            pieces.append(self.emit("slice", [b, dim, end, INT64_MAX, 1]))
        if len(pieces) == 1:
            return new
        return self.emit("cat", [Values(pieces), dim])

    def _inv_slice(self, base, rest):
        dim, start, end, step = (list(rest) + [0, None, INT64_MAX, 1][len(rest):])[:4]
        start = 0 if start is None else start
        end = INT64_MAX if end is None else end

        def inv(b, new):
            if step == 1:
                return self._slice_back(b, new, dim, start, end)
            size = (base.tval and _tensor_info(base.tval)[1] or [None] * (abs(dim) + 1))[dim]
            if not all(isinstance(x, int) for x in (start, end, step, size)):
                raise TorchExportError("an in-place write into a strided slice with run-time "
                                       "bounds is not supported (at %s)" % self.scope)
            idx = torch.arange(*slice(start, end, step).indices(size), dtype=torch.int64)
            iv = self.initializer(idx, "slice_index", "literal")
            if dim in (0,):
                return self.emit("index_put", [b, Values([iv]), new, False])
            bt = self.emit("transpose", [b, 0, dim])
            nt = self.emit("transpose", [new, 0, dim])
            r = self.emit("index_put", [bt, Values([iv]), nt, False])
            return self.emit("transpose", [r, 0, dim])
        return inv

    def _inv_select(self, base, rest):
        dim, index = rest[0], rest[1]

        def inv(b, new):
            new = self.emit("unsqueeze", [new, dim if dim >= 0 else dim + self._rank(base)])
            if isinstance(index, int):
                end = INT64_MAX if index == -1 else index + 1
            else:
                end = self.emit("add", [index, 1, 1])
            return self._slice_back(b, new, dim, index, end)
        return inv

    def _inv_narrow(self, base, rest):
        dim, start, length = rest
        end = start + length if isinstance(start, int) and isinstance(length, int) else None

        def inv(b, new):
            e = end if end is not None else self.emit("add", [start, length, 1])
            return self._slice_back(b, new, dim, start, e)
        return inv

    def _rank(self, ref):
        shape = _tensor_info(ref.tval)[1] if ref.tval is not None else None
        if shape is None:
            raise TorchExportError("the rank of a written-to view's base is unknown (at %s)"
                                   % self.scope)
        return len(shape)

    def _inv_reshape(self, base, rest):
        def inv(b, new):
            sizes = Values(self.emit("size", [b, d], kinds=["int"])
                           for d in range(self._rank(base)))
            return self.emit("reshape", [new, sizes])
        return inv

    def _inv_squeeze(self, base, rest):
        if not rest:
            return self._inv_reshape(base, rest)
        dim = rest[0]
        shape = _tensor_info(base.tval)[1] if base.tval is not None else None

        def inv(b, new):
            if shape is None:
                raise TorchExportError("a write through squeeze of unknown shape (at %s)"
                                       % self.scope)
            d = dim + len(shape) if dim < 0 else dim
            return self.emit("unsqueeze", [new, d]) if shape[d] == 1 else new
        return inv

    def _inv_unsqueeze(self, base, rest):
        dim = rest[0]
        return lambda b, new: self.emit("squeeze", [new, dim])

    def _inv_transpose(self, base, rest):
        a, c = rest[0], rest[1]
        return lambda b, new: self.emit("transpose", [new, a, c])

    def _inv_t(self, base, rest):
        return lambda b, new: self.emit("t", [new])

    def _inv_permute(self, base, rest):
        perm = list(rest[0])
        n = len(perm)
        inv_perm = [0] * n
        for i, p in enumerate(perm):
            inv_perm[p % n] = i
        return lambda b, new: self.emit("permute", [new, Ints(inv_perm)])

    def _inv_permute_all(self, base, rest):
        return lambda b, new: self.emit("numpy_T", [new])

    # -- in-place ops
    def inplace(self, node, op, fn, ins, outs):
        if op in _NO_FUNCTIONAL:
            raise TorchExportError("aten::%s has no meaning in an exported inference graph (at %s)"
                                   % (op, self.scope or "the top level"))
        self_e = self.env_item(ins[0])
        if not isinstance(self_e, _Ref):
            raise TorchExportError("aten::%s writes into a value that is not a tensor (at %s)"
                                   % (op, self.scope))
        args = [self.arg(tv) for tv in ins]
        target = args[0]
        tdt, tshape = _tensor_info(ins[0])
        if op in ("copy_", "fill_") and isinstance(args[1], SValue):
            # a one-element constant (x[i] = 7.0 traces as a 0-d tensor) is a literal fill
            init = self.init_by_value.get(args[1].id)
            if init is not None and init.tensor.numel() == 1 and not init.tensor.is_complex():
                args[1] = init.tensor.item()
                op = "fill_"
        if op == "copy_":
            src = args[1]
            sdt, sshape = (_tensor_info(ins[1]) if isinstance(src, SValue) else (None, None))
            if not isinstance(src, SValue):
                src = self.const_scalar(src, tdt or torch.float32)
                sdt, sshape = tdt, []
            if sdt != tdt or sdt is None:
                src = self.emit("type_as", [src, target])
            if sshape != tshape or sshape is None:
                src = self.emit("expand_as", [src, target])
            new = src
        elif op == "fill_":
            v = args[1]
            if isinstance(v, SValue):
                if _tensor_info(ins[1])[0] != tdt:
                    v = self.emit("type_as", [v, target])
                new = self.emit("expand_as", [v, target])
            else:
                new = self.emit("full_like", [target, v, None, None, None, None, None])
        elif op == "zero_":
            new = self.emit("zeros_like", [target, None, None, None, None, None])
        else:
            schema = None
            try:
                schema = str(node.schema()).replace(op + "(", fn + "(", 1) \
                    .replace("(a!)", "").replace("-> Tensor(a!)", "-> Tensor")
            except RuntimeError:
                pass
            new = self.new_value(fn)
            dt, shape = _tensor_info(outs[0]) if outs else (None, None)
            new.dtype, new.shape = dt, shape
            self.sg.nodes.append(SNode("aten", fn, args, [new], self.scope, schema, node))
        self.assign(self_e, new)
        for o in outs:
            self.env[o] = self_e  # the result of an in-place op is its first argument
            self.by_debug_name[o.debugName()] = new

    # -- prim and scalar conversions
    def constant(self, node, o):
        tk = o.type().kind()
        if tk == "TensorType" or (node.hasAttribute("value") and node.kindOf("value") == "t"):
            t = node.t("value")
            if t.dim() == 0 and t.dtype == torch.float64:
                # A Python float the trace wrapped as a 0-d double tensor (x + 0.5): it never
                # widens a float32 computation in torch, so it is kept as float32, where plain
                # type promotion gives torch's result dtype too.
                t = t.to(torch.float32)
            self.env[o] = _Ref(self.initializer(t, "const_" + o.debugName().replace(".", "_")),
                               o)
        elif tk == "DeviceObjType":
            self.env[o] = _Lit(str(o.toIValue()))
        else:
            v = o.toIValue()
            if isinstance(v, torch.device):
                v = str(v)
            elif isinstance(v, torch.dtype):
                v = SCALAR_TYPE_NUMBER[v]
            elif isinstance(v, list):
                v = _List([_Lit(x) for x in v], str(o.type().getElementType()))
                self.env[o] = v
                return
            self.env[o] = _Lit(v)

    def prim(self, node, op, ins, outs):
        if op == "Constant":
            self.constant(node, outs[0])
        elif op == "ListConstruct":
            elem = str(outs[0].type().getElementType())
            self.env[outs[0]] = _List([self.env_item(tv) for tv in ins], elem, len(self.blocks))
        elif op == "TupleConstruct":
            self.env[outs[0]] = _Tuple([self.env_item(tv) for tv in ins])
        elif op in ("ListUnpack", "TupleUnpack", "TupleIndex", "ListIndex") and \
                isinstance(self.env.get(ins[0]), _List) and self.env[ins[0]].seq is not None:
            raise TorchExportError("prim::%s of a list that grows inside scripted control flow "
                                   "(its length is known only at run time) (at %s)"
                                   % (op, self.scope or "the top level"))
        elif op in ("ListUnpack", "TupleUnpack"):
            e = self.env.get(ins[0])
            if not isinstance(e, (_List, _Tuple)) or len(e.items) != len(outs):
                raise TorchExportError("prim::%s of a value that is not a list of %d (at %s)"
                                       % (op, len(outs), self.scope))
            for o, item in zip(outs, e.items):
                self.env[o] = item
        elif op in ("TupleIndex", "ListIndex"):
            e = self.env.get(ins[0])
            i = self.arg(ins[1])
            self.env[outs[0]] = e.items[i]
        elif op == "NumToTensor":
            self.env[outs[0]] = self.env_item(ins[0])
        elif op == "device":
            self.env[outs[0]] = _Lit("cpu")
        elif op == "dtype":
            dt, _ = _tensor_info(ins[0])
            self.env[outs[0]] = _Lit(SCALAR_TYPE_NUMBER.get(dt, 6))
        elif op == "PythonOp":
            self.python_op(node, ins, outs)
        elif op == "If" and isinstance(self.env_item(ins[0]), _Lit):
            # a branch of scripted code whose condition the trace fixed: the taken block inline
            then_block, else_block = list(node.blocks())
            block = then_block if self.env_item(ins[0]).v else else_block
            scope = self.scope
            self.walk(block.nodes())
            self.scope = scope
            for o, r in zip(outs, block.outputs()):
                self.env[o] = self.env_item(r)
        elif _torch_script.prim_op(self, node, op, ins, outs):
            pass  # If / Loop on run-time values, and the prim ops scripted code uses around them
        else:
            raise TorchExportError("prim::%s is not supported (at %s)" % (op, self.scope))

    def env_item(self, tv):
        e = self.env.get(tv)
        if isinstance(e, _Lazy):
            e = self.env[tv] = e.ref(self)
        if e is None:
            raise TorchExportError("internal: value %s used before it is defined" % tv.debugName())
        return e

    def scalar_conversion(self, node, op, ins, outs):
        e = self.env_item(ins[0])
        if isinstance(e, _Lit):
            v = e.v
            conv = {"Int": int, "IntImplicit": int, "Float": float, "FloatImplicit": float,
                    "Double": float, "Bool": bool, "ScalarImplicit": lambda x: x}[op]
            self.env[outs[0]] = _Lit(conv(v))
            return
        dt, _ = _tensor_info(ins[0])
        want = {"Int": torch.int64, "IntImplicit": torch.int64, "Float": torch.float64,
                "FloatImplicit": torch.float64, "Double": torch.float64, "Bool": torch.bool,
                "ScalarImplicit": None}[op]
        if ins[0].type().kind() != "TensorType" or want is None or dt == want or \
                (want == torch.int64 and dt in (torch.int32, torch.int16, torch.int8, torch.uint8)):
            self.env[outs[0]] = e  # already a scalar of that kind; a conversion changes nothing
            return
        v = self.emit("to", [self.current(e), SCALAR_TYPE_NUMBER[want], False, False, None],
                      kinds=["int" if want == torch.int64 else "float" if want == torch.float64
                             else "bool"])
        self.env[outs[0]] = _Ref(v, outs[0])

    def python_op(self, node, ins, outs):
        """An autograd Function without a trace of its insides: a source node in domain
        "autograd", named after the Function, with its tensor and scalar arguments in order."""
        name = node.pyname()
        scalars = iter(node.scalar_args())
        tensors = iter(ins)
        args = []
        for c in node.cconv():
            if c == "c":
                s = next(scalars)
                if isinstance(s, (list, tuple)):
                    s = Ints(s) if all(type(x) is int for x in s) else Floats(map(float, s))
                args.append(s)
            else:
                args.append(self.arg(next(tensors)))
        _torch_compat.call_python_op(self, node, name, args, outs, ins)


def _prune(sg, outputs):
    """Drops nodes none of whose outputs is used (shape computations the trace baked, views
    derived again but never read), and initializers no live node uses. Linear."""
    live = set(v.id for v in outputs)
    kept = []
    for n in reversed(sg.nodes):
        if not any(o.id in live for o in n.outputs):
            continue
        kept.append(n)
        for u in getattr(n, "uses", ()):  # read inside an If/Loop body
            live.add(u.id)
        for a in n.args:
            if isinstance(a, SValue):
                live.add(a.id)
            elif isinstance(a, Values):
                for x in a:
                    if isinstance(x, SValue):
                        live.add(x.id)
    kept.reverse()
    sg.nodes = kept
    sg.initializers = [i for i in sg.initializers if i.value.id in live]


def _name_nodes(sg):
    """Unique node names from the scopes: the k-th node (k >= 2) of a module is "<scope>#k"; a
    node outside every module is named after its op, "aten::add", "aten::add#2" ("::" is in no
    module path). The library names what it lowers a node into after it ("layer1.0.conv1/Conv"),
    so every node of the written model leads back to one node of the trace."""
    seen = {}
    for n in iter_nodes(sg.nodes):
        base = n.scope or "%s::%s" % (n.domain or "onnx", n.op)
        k = seen.get(base, 0) + 1
        seen[base] = k
        n.name = base if k == 1 else "%s#%d" % (base, k)


def normalize_dynamic_axes(dynamic_axes, names):
    """torch.onnx.export's dynamic_axes: {name: [dims]} (names made up as torch does) or
    {name: {dim: "name"}} -> {name: {dim: "name"}}."""
    out = {}
    for key, spec in (dynamic_axes or {}).items():
        if isinstance(spec, dict):
            out[key] = {int(d): str(n) for d, n in spec.items()}
        elif isinstance(spec, (list, tuple)):
            out[key] = {int(d): "%s_dynamic_axes_%d" % (key, i + 1) for i, d in enumerate(spec)}
        else:
            raise TorchExportError("dynamic_axes[%r] must be a list of dims or a dict of dim to "
                                   "name, not %s" % (key, type(spec).__name__))
    return out


@contextlib.contextmanager
def _gc_paused():
    """The tracer and the walk make hundreds of thousands of small objects (torch's Value
    wrappers) that hold no cycles: the cyclic collector would run thousands of times for
    nothing (a third of the walk's time). Paused, then restored as it was."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def build_source_graph(model, args, input_names=None, output_names=None, dynamic_axes=None,
                       extra_outputs=None):
    """Traces model and walks the trace: returns a SourceGraph whose inputs, initializers, nodes
    and outputs are ready to hand to the library."""
    with _gc_paused():
        return _build_source_graph(model, args, input_names, output_names, dynamic_axes,
                                   extra_outputs)


def _build_source_graph(model, args, input_names, output_names, dynamic_axes, extra_outputs):
    t0 = time.perf_counter()
    extra_outputs = list(extra_outputs or ())
    tr = trace(model, args, extra_outputs)
    t1 = time.perf_counter()
    n_in = len(tr["inputs"])
    names = list(input_names or [])
    if len(names) > n_in:
        raise TorchExportError("input_names has %d names for %d inputs" % (len(names), n_in))
    for k in range(len(names), n_in):
        p = tr["input_names"][k]
        # default names: input_<the flattened position> ("input_0" for a single tensor too)
        names.append("input_" + (p[2:] if p.startswith("0_") else p))
    dyn = normalize_dynamic_axes(dynamic_axes, names)
    w = _Walker(tr, names, dyn)
    outs = w.run()
    n_model_out = len(outs) - len(tr["captured"])
    onames = list(output_names or [])
    if len(onames) > n_model_out:
        raise TorchExportError("output_names has %d names for %d outputs"
                               % (len(onames), n_model_out))
    paths = tr["output_names"]
    for k in range(len(onames), n_model_out):
        p = paths[k] if k < len(paths) else str(k)
        onames.append("output" if n_model_out == 1 else "output_" + p)
    onames += tr["captured"]
    # extra outputs named by a value of the trace (debug name) rather than a module
    for name in extra_outputs:
        if name in tr["captured"]:
            continue
        sv = w.by_debug_name.get(name)
        if sv is None:
            raise TorchExportError("extra_outputs: %r names neither a submodule nor a value of the "
                                   "trace" % name)
        outs.append(sv)
        onames.append(name)
    # a value listed twice as an output, or an input returned as it is, needs its own node
    seen = set(i.value.id for i in w.sg.inputs)
    # an output of a scripted If/Loop is named by the ONNX node it becomes: a copy takes the name
    ctl = set(o.id for n in w.sg.nodes if getattr(n, "blocks", None) for o in n.outputs)
    final = []
    for v, n in zip(outs, onames):
        if v.id in seen or v.id in ctl:
            v = w.emit("clone", [v, None])
        seen.add(v.id)
        final.append((v, n))
    w.sg.outputs = final
    _prune(w.sg, [v for v, _ in final])
    _name_nodes(w.sg)
    check_dynamic_axes_names(dyn, names, onames)
    w.sg.example_outputs = tr["outputs"]
    w.sg.dynamic_axes = dyn
    w.sg.warnings = tr["warnings"]
    w.sg.times = {"trace": t1 - t0, "walk": time.perf_counter() - t1}
    w.sg.params = tr["params"]
    return w.sg
