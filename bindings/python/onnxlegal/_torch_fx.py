"""The torch front end's FX reader: a GraphModule of ATen ops walked into a SourceGraph.

What functorch's make_fx writes in torch 1.13 (and torch 2's torch.export gives): placeholders
for the flattened inputs, get_attr for the tensors held on the GraphModule (parameters, buffers,
constants), call_function nodes whose targets are ATen OpOverloads (a tuple result read through
operator.getitem), and one output node. Nothing goes through torch.jit:

- each ATen node becomes a SNode named after the FX node, with its arguments positional exactly
  as the op's schema (OpOverload._schema) lists them, keyword-only ones included (absent ones
  take the schema default): a dtype as its ScalarType number, layout / device / pin_memory /
  memory_format as None;
- dtype and shape hints, and the example outputs, come from a ShapeProp run on the examples;
- get_attr tensors become SInit sharing the tensor's memory, named after the source module's
  parameter or buffer when that module is given (by tensor identity), else the FX name;
- in-place ops (schema: a written first argument) are made functional (the functional op, or
  expand/cast for copy_, zeros for zero_): from then on the mutated node, every identity alias of
  it (detach, alias, lift_fresh, the in-place node's own result) reads the new value. A mutation
  where another view of the same storage (a view of the mutated tensor, or the tensor it views)
  is read after it is refused naming the FX node: never a silently wrong model;
- writes through views are functionalized here (swin_t's attention mask: fills through slices
  of a zeros buffer): a view made by slice, select, a reshape, permute or transpose of a parent
  passes the written value back into the parent (slice_scatter / select_scatter / the inverse
  reshape or permutation), up to the storage; every other view of that storage is made again
  from it when next read. Graphs already functional (torch.func.functionalize, torch.export)
  have slice_scatter / select_scatter / as_strided, rewritten here as slice / cat / scatter /
  reshape / index_select of static shapes, as is the geometry change of as_strided_;
- symbolic shapes (make_fx(tracing_mode="symbolic"), torch.export): aten.sym_size / sym_numel
  become aten::size / numel and Python operators on SymInts int64 arithmetic, so the sizes are
  computed at run time; each symbolic dim of an input becomes a named dynamic axis (one name per
  symbol) unless dynamic_axes names that input's axes.
"""
import operator
import time

import numpy as np
import torch

from ._torch_graph import (SValue, Ints, Floats, Bools, Values, SNode, SInit, SInput, SourceGraph,
                           TorchExportError, flatten, _split_args, borrow_array,
                           check_dynamic_axes_names, input_shape, SCALAR_TYPE_NUMBER)
from ._torch_trace import inplace_functional, normalize_dynamic_axes, _prune

# Ops whose result is the very tensor they read (no new view geometry): a write into one is a
# write into the other, exactly.
_IDENTITY_VIEWS = {"detach", "alias", "lift_fresh"}
_NO_FUNCTIONAL = {"normal_", "uniform_", "bernoulli_", "random_", "exponential_", "cauchy_",
                  "geometric_", "log_normal_", "set_", "resize_", "resize_as_", "requires_grad_"}


def is_aten_graph(model):
    """True for a torch.fx.GraphModule whose call_function targets are ATen OpOverloads (and
    operator.getitem): make_fx's and torch.export's graphs. A GraphModule of torch functions
    (torch.fx.symbolic_trace) is False: it is traced as any module."""
    if not isinstance(model, torch.fx.GraphModule):
        return False
    targets = [n.target for n in model.graph.nodes if n.op == "call_function"]
    aten = [t for t in targets if isinstance(t, torch._ops.OpOverload)]
    return bool(aten) and all(t is operator.getitem or isinstance(t, torch._ops.OpOverload)
                              or _sym_op(t) for t in targets) and \
        not any(n.op in ("call_module", "call_method") for n in model.graph.nodes)


# Symbolic shapes (make_fx(tracing_mode="symbolic"), torch.export): sizes read by aten.sym_*
# and computed with Python operators on SymInts. Each is an aten op on int64 scalars.
_SYM_SIZE_OPS = {"sym_size": "size", "sym_numel": "numel"}
_SYM_OPERATORS = {operator.add: "add", operator.sub: "sub", operator.mul: "mul",
                  operator.floordiv: "floor_divide", operator.mod: "remainder",
                  operator.truediv: "div", operator.neg: "neg", operator.eq: "eq",
                  operator.ne: "ne", operator.lt: "lt", operator.le: "le", operator.gt: "gt",
                  operator.ge: "ge"}


def _sym_op(target):
    """The aten op a symbolic-shape node computes, or None."""
    if target in _SYM_OPERATORS:
        return _SYM_OPERATORS[target]
    name = getattr(target, "__name__", None) if isinstance(
        target, (torch._ops.OpOverloadPacket, torch._ops.OpOverload)) else None
    name = name.split(".")[0] if name else None
    return _SYM_SIZE_OPS.get(name) or ("sym_stride" if name == "sym_stride" else None)


def _meta(node):
    """(dtype, shape) of a node's tensor result from ShapeProp, or (None, None)."""
    tm = node.meta.get("tensor_meta")
    if tm is None or not hasattr(tm, "dtype"):
        return None, None
    return tm.dtype, list(tm.shape)


def _schema_of(op):
    return str(getattr(torch.ops.aten, op).default._schema) if op != "slice" else \
        str(torch.ops.aten.slice.Tensor._schema)


class _Cell:
    """The current value of one tensor: every identity alias of it shares the cell. root: the
    storage it belongs to (the cell of the tensor a view was made from, transitively). A view
    made by one op of parent: replay(parent value) makes it again, unview(node, parent value,
    view value) writes the view's value into the parent's; ver: root.ver when val was made."""
    __slots__ = ("val", "root", "nodes", "parent", "replay", "unview", "ver")

    def __init__(self, val, root=None):
        self.val, self.root, self.nodes = val, root if root is not None else self, []
        self.parent = self.replay = self.unview = None
        self.ver = 0

    def replayable(self):
        c = self
        while c.root is not c:
            if c.parent is None or c.replay is None:
                return False
            c = c.parent
        return True


class _FxWalker:
    def __init__(self, gm, names, dyn, param_names):
        self.gm, self.names, self.dyn, self.param_names = gm, names, dyn, param_names
        self.sg = SourceGraph()
        self.env = {}      # fx node -> _Cell, list of entries (a tuple result), or a literal
        self.next_id = 0
        self.order = {n: i for i, n in enumerate(gm.graph.nodes)}
        self.by_storage = {}  # root cell -> [fx nodes whose value is a view of that storage]
        self.inits = {}
        self.emitted = {}  # fx node name -> how many source nodes it became
        self.int_consts = {}

    def new_value(self, hint, dtype=None, shape=None):
        v = SValue(self.next_id, hint, "tensor", dtype, shape)
        self.next_id += 1
        return v

    def emit(self, node, op, args, n_out=1, schema=None, hints=None):
        outs = [self.new_value(node.name, *(hints[i] if hints else (None, None)))
                for i in range(n_out)]
        sn = SNode("aten", op, args, outs, "", schema)
        self.sg.nodes.append(sn)
        k = self.emitted[node.name] = self.emitted.get(node.name, 0) + 1
        sn.name = node.name if k == 1 else "%s#%d" % (node.name, k)  # the FX node's name
        return outs

    def cell(self, node, val, base=None):
        c = _Cell(val, base.root if base is not None else None)
        c.nodes.append(node)
        self.by_storage.setdefault(c.root, []).append(node)
        return c

    # -- arguments
    def arg(self, a, atype=None):
        if isinstance(a, torch.fx.Node):
            e = self.env[a]
            if isinstance(e, _Cell):
                return self.current(e)
            if isinstance(e, list):
                raise TorchExportError("FX node %r: a tuple result used as an argument" % a.name)
            return e
        if isinstance(a, torch.dtype):
            return SCALAR_TYPE_NUMBER[a]
        if isinstance(a, (torch.layout, torch.device, torch.memory_format)):
            return None
        if isinstance(a, (list, tuple)):
            items = [self.arg(x) for x in a]
            if "Tensor" in str(atype or ""):
                return Values(items)
            if any(isinstance(x, SValue) for x in items):  # sizes, some computed (SymInt[])
                return Values(x if isinstance(x, SValue) else self.const_int(x) for x in items)
            if all(type(x) is bool for x in items) and items:
                return Bools(items)
            if all(type(x) is int for x in items):
                return Ints(items)
            return Floats(float(x) for x in items)
        if isinstance(a, (bool, int, float, str)) or a is None:
            return a
        raise TorchExportError("an argument of type %s is not supported" % type(a).__name__)

    def call_args(self, node, schema):
        args = []
        given = len(node.args)
        for i, sa in enumerate(schema.arguments):
            if i < given:
                a = node.args[i]
            elif sa.name in node.kwargs:
                a = node.kwargs[sa.name]
            elif sa.has_default_value():
                a = sa.default_value
            else:
                a = None
            args.append(self.arg(a, sa.type))
        return args

    # -- the walk
    def run(self, flat_in):
        phs = [n for n in self.gm.graph.nodes if n.op == "placeholder"]
        if len(phs) != len(flat_in):
            raise TorchExportError("the FX graph has %d placeholders but args flatten to %d "
                                   "tensors" % (len(phs), len(flat_in)))
        for k, (n, t) in enumerate(zip(phs, flat_in)):
            name = self.names[k]
            shape = input_shape(name, t, self.dyn)
            v = self.new_value(name, t.dtype, list(t.shape))
            self.sg.inputs.append(SInput(v, name, t.dtype, shape, t))
            self.env[n] = self.cell(n, v)
        out = None
        for n in self.gm.graph.nodes:
            if n.op == "get_attr":
                self.get_attr(n)
            elif n.op == "call_function":
                self.call(n)
            elif n.op == "output":
                out = n.args[0]
            elif n.op != "placeholder":
                raise TorchExportError("FX node %r: %s nodes are not supported (an ATen graph "
                                       "has call_function nodes only)" % (n.name, n.op))
        vals = []

        def collect(a):
            if isinstance(a, torch.fx.Node):
                e = self.env[a]
                if isinstance(e, list):
                    for x in e:
                        vals.append(x.val)
                elif isinstance(e, _Cell):
                    vals.append(self.current(e))
            elif isinstance(a, (list, tuple)):
                for x in a:
                    collect(x)
            elif isinstance(a, dict):
                for x in a.values():
                    collect(x)
        collect(out)
        return vals

    def get_attr(self, n):
        t = self.gm
        for part in n.target.split("."):
            t = getattr(t, part)
        if not isinstance(t, torch.Tensor):
            raise TorchExportError("FX node %r: get_attr of a %s (a tensor expected)"
                                   % (n.name, type(t).__name__))
        init = self.inits.get(id(t))
        if init is None:
            name = self.param_names.get(id(t))
            kind = "parameter" if name is not None or isinstance(t, torch.nn.Parameter) or \
                n.target.startswith("_param_constant") else "const"
            tt, arr = borrow_array(t)
            v = self.new_value(name or n.target, t.dtype, list(t.shape))
            init = SInit(v, name or n.target.replace(".", "_"), tt, arr, kind)
            self.sg.initializers.append(init)
            self.inits[id(t)] = init
        self.env[n] = self.cell(n, init.value)

    def sym_call(self, n, op):
        """A size of a symbolic-shape graph: aten::size / numel of the tensor, or int64 scalar
        arithmetic on sizes (a literal operand first becomes a constant)."""
        if op == "sym_stride":
            raise TorchExportError("FX node %r: aten.sym_stride (a stride; ONNX tensors have "
                                   "none) is not supported" % n.name)
        args = [self.arg(a) for a in n.args]
        if op in _SYM_SIZE_OPS.values():
            v, = self.emit(n, op, args, 1, hints=[(torch.int64, [])])
        else:
            if len(args) == 2 and not isinstance(args[0], SValue):
                if op in ("add", "mul"):
                    args.reverse()
                elif type(args[0]) is int:
                    args[0] = self.const(n, args[0])
                else:
                    raise TorchExportError("FX node %r: %s of a float and a size is not "
                                           "supported" % (n.name, op))
            v, = self.emit(n, op, args, 1, hints=[(None, [])])
        self.env[n] = self.cell(n, v)

    def call(self, n):
        sym = _sym_op(n.target)
        if sym is not None:
            return self.sym_call(n, sym)
        if n.target is operator.getitem:
            src, i = n.args
            e = self.env[src]
            if not isinstance(e, list):
                raise TorchExportError("FX node %r: getitem of a value that is not a tuple"
                                       % n.name)
            self.env[n] = e[i]
            e[i].nodes.append(n)
            return
        target = n.target
        schema = target._schema
        op = schema.name.split("::", 1)[1]
        if op.startswith("_") and op.endswith("_") and op != "_index_put_impl_":
            fn = None
        else:
            fn = inplace_functional(op)
        a0 = schema.arguments[0].alias_info if schema.arguments else None
        writes = [sa.name for sa in schema.arguments[1:] if sa.alias_info is not None and
                  sa.alias_info.is_write]
        if writes:
            raise TorchExportError("FX node %r: aten::%s writes into its argument %s (an out= "
                                   "form), which is not supported" % (n.name, op, writes[0]))
        if a0 is not None and a0.is_write:
            return self.inplace(n, op, fn or op, schema)
        args = self.call_args(n, schema)
        rets = schema.returns
        res = n.meta.get("tensor_meta")
        if len(rets) == 1 and str(rets[0].type).startswith("List[Tensor"):
            k = len(res) if isinstance(res, (list, tuple)) else None
            if k is None:
                raise TorchExportError("FX node %r: the number of tensors aten::%s returns is "
                                       "not known" % (n.name, op))
            hints = [(m.dtype, list(m.shape)) for m in res]
            outs = self.emit(n, op, args, k, str(schema), hints)
            base = self.env.get(n.args[0]) if rets[0].alias_info is not None else None
            self.env[n] = [self.cell(n, v, base if isinstance(base, _Cell) else None)
                           for v in outs]
            return
        if len(rets) != 1:
            hints = [(m.dtype, list(m.shape)) if hasattr(m, "dtype") else (None, None)
                     for m in (res if isinstance(res, (list, tuple)) else [None] * len(rets))]
            outs = self.emit(n, op, args, len(rets), str(schema), hints)
            self.env[n] = [self.cell(n, v) for v in outs]
            return
        base = self.env.get(n.args[0]) if n.args and isinstance(n.args[0], torch.fx.Node) \
            else None
        if op in _REWRITES:
            out = getattr(self, "rewrite_" + op)(n, *self.call_args(n, schema))
            view = rets[0].alias_info is not None and isinstance(base, _Cell)
            self.env[n] = self.cell(n, out, base if view else None)
            return
        if op in _IDENTITY_VIEWS and isinstance(base, _Cell):
            base.nodes.append(n)
            self.env[n] = base  # the same tensor: reads the base's current value
            return
        out, = self.emit(n, op, args, 1, str(schema), [_meta(n)])
        if rets[0].alias_info is not None and isinstance(base, _Cell):
            c = self.env[n] = self.cell(n, out, base)  # a view of base's storage
            c.parent, c.ver = base, base.root.ver
            sch, hint = str(schema), [_meta(n)]
            c.replay = lambda pv: self.emit(n, op, [pv] + args[1:], 1, sch, hint)[0]
            c.unview = self.unview_for(n, op, args)
        else:
            self.env[n] = self.cell(n, out)

    def inplace(self, n, op, fn, schema):
        if op in _NO_FUNCTIONAL:
            raise TorchExportError("FX node %r: aten::%s has no meaning in an exported inference "
                                   "graph" % (n.name, op))
        target_node = n.args[0]
        c = self.env.get(target_node)
        if not isinstance(c, _Cell):
            raise TorchExportError("FX node %r: aten::%s writes into a value that is not a "
                                   "tensor" % (n.name, op))
        chain = c
        while chain.root is not chain and chain.unview is not None and chain.parent is not None:
            chain = chain.parent
        written_back = chain.root is chain  # every view up to the storage can be undone
        if op != "as_strided_":  # a new geometry, no value written
            self.check_views(n, op, c, written_back)
        args = self.call_args(n, schema)
        target = args[0]
        dt, shape = _meta(target_node)
        hint = [(dt, shape)]
        if op == "copy_":
            src = args[1]
            sn = n.args[1] if isinstance(n.args[1], torch.fx.Node) else None
            sdt, sshape = _meta(sn) if sn is not None else (None, None)
            if not isinstance(src, SValue):
                new, = self.emit(n, "full_like", [target, src, None, None, None, None, None],
                                 1, None, hint)
            else:
                if sdt != dt or sdt is None:
                    src, = self.emit(n, "type_as", [src, target])
                if sshape != shape or sshape is None:
                    src, = self.emit(n, "expand_as", [src, target], 1, None, hint)
                new = src
        elif op == "as_strided_":  # new geometry over the same storage; no value written
            new = self.rewrite_as_strided(n, *args)
            if c.replay is not None:  # made again from the storage: with the new geometry
                old = c.replay
                c.replay = lambda pv: self.rewrite_as_strided(n, old(pv), *args[1:])
                c.unview = None
        elif op == "zero_":
            new, = self.emit(n, "zeros_like", [target, None, None, None, None, None], 1, None,
                             hint)
        else:
            sch = str(schema).replace(op + "(", fn + "(", 1).replace("(a!)", "") \
                .replace("-> Tensor(a!)", "-> Tensor")
            sch = sch.replace("aten::%s." % op, "aten::%s." % fn, 1)
            new, = self.emit(n, fn, args, 1, sch, hint)
        c.val = new
        c.nodes.append(n)
        self.env[n] = c  # the result of an in-place op is its first argument
        if written_back and op != "as_strided_":
            # functionalized: the storage takes the write, other views re-read it when read
            while c.root is not c:
                p = c.parent
                p.val = c.unview(n, self.current(p), c.val)
                c = p
            c.ver += 1
            c = self.env[n]
            while True:
                c.ver = c.root.ver
                if c.root is c:
                    break
                c = c.parent

    # -- functional forms of writes through views, as static-shape ops that have symbolics
    def _hint(self, n):
        return [_meta(n)]

    def const_int(self, x):
        """A 0-d int64 initializer for a literal element of a list of computed sizes."""
        v = self.int_consts.get(x)
        if v is None:
            tt, a = borrow_array(torch.tensor(int(x), dtype=torch.int64))
            v = self.int_consts[x] = self.new_value("size_%d" % x, torch.int64, [])
            self.sg.initializers.append(SInit(v, "size_%d" % x, tt, a, "const"))
        return v

    def const(self, n, arr):
        t = torch.from_numpy(np.array(arr, dtype=np.int64))  # a writable copy
        tt, a = borrow_array(t)
        v = self.new_value(n.name + "_idx", t.dtype, list(t.shape))
        self.sg.initializers.append(SInit(v, n.name + "_idx", tt, a, "const"))
        return v

    def rewrite_slice_scatter(self, n, base, src, dim=0, start=None, end=None, step=1,
                              shape=None, sshape=None):
        """base with src written into base[start:end:step] along dim."""
        shape = shape or _meta(n.args[0])[1]
        sshape = sshape or _meta(n.args[1])[1]
        if shape is None or sshape is None:
            raise TorchExportError("FX node %r: a write into a slice needs static shapes"
                                   % n.name)
        dim = dim % len(shape)
        size = shape[dim]
        start = 0 if start is None else start
        start = min(max(start + size if start < 0 else start, 0), size)
        if step == 1:
            end = size if end is None else end
            end = min(max(end + size if end < 0 else end, start), size)
            parts = []
            sl = _schema_of("slice")
            if start > 0:
                parts += self.emit(n, "slice", [base, dim, 0, start, 1], 1, sl)
            parts.append(src)
            if end < size:
                parts += self.emit(n, "slice", [base, dim, end, size, 1], 1, sl)
            if len(parts) == 1:
                return src
            return self.emit(n, "cat", [Values(parts), dim], 1, _schema_of("cat"),
                             self._hint(n))[0]
        pos = start + step * np.arange(sshape[dim], dtype=np.int64)
        idx = np.broadcast_to(pos.reshape([-1 if k == dim else 1 for k in range(len(sshape))]),
                              sshape)
        return self.emit(n, "scatter", [base, dim, self.const(n, idx), src], 1,
                         str(torch.ops.aten.scatter.src._schema), self._hint(n))[0]

    def rewrite_select_scatter(self, n, base, src, dim, index, shape=None):
        """base with src written into base.select(dim, index): slice_scatter of src unsqueezed."""
        shape = shape or _meta(n.args[0])[1]
        if shape is None:
            raise TorchExportError("FX node %r: a write into a select needs static shapes"
                                   % n.name)
        dim = dim % len(shape)
        index = index + shape[dim] if index < 0 else index
        src, = self.emit(n, "unsqueeze", [src, dim], 1, _schema_of("unsqueeze"))
        sshape = list(shape)
        sshape[dim] = 1
        return self.rewrite_slice_scatter(n, base, src, dim, index, index + 1, 1, shape, sshape)

    def rewrite_as_strided(self, n, x, size, stride, storage_offset=None):
        """The elements of x's storage at storage_offset + sum(i * stride), found from x's
        own strides (ShapeProp's): a reshape when that is x's order, else one static gather."""
        xn = n.args[0]
        tm = xn.meta.get("tensor_meta")
        if tm is None or not hasattr(tm, "stride"):
            raise TorchExportError("FX node %r: aten::as_strided of a value of unknown strides"
                                   % n.name)
        if storage_offset is not None and _is_view(xn):  # the view's own offset is not known
            raise TorchExportError("FX node %r: aten::as_strided with a storage offset of a view "
                                   "is not supported" % n.name)
        xshape, xstride = list(tm.shape), list(tm.stride)
        # storage position -> x's flat (row-major) index
        pos = np.zeros(xshape, dtype=np.int64)
        for k, (d, s) in enumerate(zip(xshape, xstride)):
            pos = pos + (np.arange(d, dtype=np.int64) * s).reshape(
                [-1 if j == k else 1 for j in range(len(xshape))])
        where = {int(p): i for i, p in enumerate(pos.reshape(-1).tolist())}
        want = np.full(size, storage_offset or 0, dtype=np.int64) if size else \
            np.array(storage_offset or 0, dtype=np.int64)
        for k, (d, s) in enumerate(zip(size, stride)):
            want = want + (np.arange(d, dtype=np.int64) * s).reshape(
                [-1 if j == k else 1 for j in range(len(size))])
        try:
            idx = np.array([where[int(p)] for p in want.reshape(-1).tolist()], dtype=np.int64)
        except KeyError:
            raise TorchExportError("FX node %r: aten::as_strided reads storage outside its "
                                   "input" % n.name) from None
        hint = [(tm.dtype, list(size))]
        view_schema = _schema_of("reshape")
        if len(idx) == len(where) and (idx == np.arange(len(idx))).all():
            return self.emit(n, "reshape", [x, Ints(size)], 1, view_schema, hint)[0]
        flat, = self.emit(n, "reshape", [x, Ints([-1])], 1, view_schema)
        g, = self.emit(n, "index_select", [flat, 0, self.const(n, idx)], 1,
                       _schema_of("index_select"))
        return self.emit(n, "reshape", [g, Ints(size)], 1, view_schema, hint)[0]

    def current(self, c):
        """c's value after the writes into its storage so far (a view made again)."""
        if c.root is c or c.ver == c.root.ver or c.replay is None:
            return c.val
        c.val = c.replay(self.current(c.parent))
        c.ver = c.root.ver
        return c.val

    def unview_for(self, n, op, args):
        """How a value written into the view n (op of args) goes back into its parent."""
        _, pshape = _meta(n.args[0])
        _, vshape = _meta(n)
        if pshape is None or vshape is None:
            return None
        if op == "slice":
            return lambda w, pv, cv: self.rewrite_slice_scatter(w, pv, cv, *args[1:5],
                                                                shape=pshape, sshape=vshape)
        if op == "select":
            return lambda w, pv, cv: self.rewrite_select_scatter(w, pv, cv, *args[1:3],
                                                                 shape=pshape)
        if op in ("view", "_reshape_alias", "reshape", "_unsafe_view", "squeeze", "unsqueeze",
                  "flatten", "unflatten", "view_as"):
            return lambda w, pv, cv: self.emit(w, "reshape", [cv, Ints(pshape)], 1,
                                               _schema_of("reshape"), [(None, pshape)])[0]
        if op == "permute":
            inv = Ints(np.argsort([d % len(pshape) for d in args[1]]).tolist())
            return lambda w, pv, cv: self.emit(w, "permute", [cv, inv], 1,
                                               _schema_of("permute"))[0]
        if op in ("transpose", "t"):
            return lambda w, pv, cv: self.emit(w, op, [cv] + args[1:], 1,
                                               str(n.target._schema))[0]
        return None  # expand, as_strided, diagonal, unfold: refused when it matters

    def check_views(self, n, op, c, written_back=False):
        """Refuses a write into c when another view of its storage is read after n (unless the
        write goes back into the storage and that view can be made again from it)."""
        here = self.order[n]
        readers = []
        for other in self.by_storage.get(c.root, ()):
            e = self.env.get(other)
            if isinstance(e, list):  # a list of views (split): each item read by its getitem
                readers.extend(u for u in other.users if self.env.get(u) is not c and
                               getattr(self.env.get(u), "root", None) is c.root)
            elif e is not c and not (written_back and e.replayable()):
                readers.append(other)
        for other in readers:
            if any(self.order[u] > here for u in other.users):
                raise TorchExportError(
                    "FX node %r: aten::%s writes into %r, which shares its storage with %r "
                    "(a view) read later; a write through a view is not supported in an FX "
                    "graph (export the nn.Module, or make_fx with functionalization)"
                    % (n.name, op, n.args[0].name, other.name))


_REWRITES = {"slice_scatter", "select_scatter", "as_strided"}


def _is_view(node):
    t = node.target if node.op == "call_function" else None
    return isinstance(t, torch._ops.OpOverload) and bool(t._schema.returns) and \
        t._schema.returns[0].alias_info is not None


def _param_names(source_module):
    """{id(tensor): name} of the source module's parameters and buffers."""
    if source_module is None:
        return {}
    names = {}
    for k, t in list(source_module.named_parameters()) + list(source_module.named_buffers()):
        names.setdefault(id(t), k)
    return names


def _shape_prop(gm, flat_in):
    from torch.fx.passes.shape_prop import ShapeProp
    try:
        with torch.no_grad():
            return ShapeProp(gm).propagate(*[t.clone() for t in flat_in])
    except Exception as e:  # the graph's own run failing on args
        raise TorchExportError("running the FX graph on args failed: %s: %s"
                               % (type(e).__name__, e)) from e


def _name_symbolic_dims(gm, names, dyn):
    """A symbolic dim of an input (make_fx(tracing_mode="symbolic") or torch.export keep the
    placeholder's FakeTensor with SymInt sizes in meta["val"]) becomes a dynamic axis, for the
    inputs dynamic_axes does not name. Dims with the same symbol get the same name: the first
    input dim that has it ("x_dim0"), so that the model says they are equal."""
    by_symbol = {}
    phs = [n for n in gm.graph.nodes if n.op == "placeholder"]
    for name, ph in zip(names, phs):
        val = ph.meta.get("val")
        shape = getattr(val, "shape", None)
        if shape is None or name in dyn:
            continue
        dims = {}
        for d, size in enumerate(shape):
            if isinstance(size, int):
                continue
            key = str(size)
            dims[d] = by_symbol.setdefault(key, "%s_dim%d" % (name, d))
        if dims:
            dyn[name] = dims


def build_source_graph(gm, args, input_names=None, output_names=None, dynamic_axes=None,
                       extra_outputs=None, source_module=None):
    """The SourceGraph of an ATen GraphModule run on args (torch.onnx.export's convention),
    with every attribute the export reads (as _torch_trace.build_source_graph)."""
    t0 = time.perf_counter()
    pos, kwargs = _split_args(args)
    flat_in, in_paths = flatten((pos, kwargs))
    result = _shape_prop(gm, flat_in)
    example_outputs, out_paths = flatten(result)
    t1 = time.perf_counter()
    names = list(input_names or [])
    if len(names) > len(flat_in):
        raise TorchExportError("input_names has %d names for %d inputs"
                               % (len(names), len(flat_in)))
    for k in range(len(names), len(flat_in)):
        p = in_paths[k]
        names.append("input_" + (p[2:] if p.startswith("0_") else p))
    dyn = normalize_dynamic_axes(dynamic_axes, names)
    _name_symbolic_dims(gm, names, dyn)
    pnames = _param_names(source_module)
    w = _FxWalker(gm, names, dyn, pnames)
    outs = w.run(flat_in)
    n_out = len(outs)
    onames = list(output_names or [])
    if len(onames) > n_out:
        raise TorchExportError("output_names has %d names for %d outputs" % (len(onames), n_out))
    if isinstance(result, torch.Tensor) or (isinstance(result, (list, tuple)) and n_out == 1):
        out_paths = [""]
    for k in range(len(onames), n_out):
        onames.append("output" if n_out == 1 else "output_" + out_paths[k])
    fx_nodes = {n.name: n for n in gm.graph.nodes}
    for name in extra_outputs or ():
        e = w.env.get(fx_nodes.get(name))
        if not isinstance(e, _Cell):
            raise TorchExportError("extra_outputs: %r names no tensor node of the FX graph"
                                   % name)
        outs.append(e.val)
        onames.append(name)
    seen = set(i.value.id for i in w.sg.inputs) | set(i.value.id for i in w.sg.initializers)
    final = []
    for v, name in zip(outs, onames):
        if v.id in seen:  # an input or a weight returned as it is, or a value twice
            v, = w.emit(fx_nodes.get("output") or list(gm.graph.nodes)[-1], "clone", [v, None])
        seen.add(v.id)
        final.append((v, name))
    w.sg.outputs = final
    _prune(w.sg, [v for v, _ in final])
    check_dynamic_axes_names(dyn, names, onames)
    w.sg.example_outputs = example_outputs
    w.sg.dynamic_axes = dyn
    w.sg.warnings = []
    w.sg.times = {"trace": t1 - t0, "walk": time.perf_counter() - t1}
    w.sg.params = [(i.name, i.tensor) for i in w.sg.initializers if i.kind == "parameter"]
    return w.sg
