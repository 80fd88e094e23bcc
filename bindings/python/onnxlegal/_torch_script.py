"""TorchScript control flow for the torch front end (onnxlegal._torch_trace's walker calls it).

- A torch.jit.ScriptModule or ScriptFunction as the model: its graph, inlined, parameters lifted
  to trailing inputs (torch._C._jit_pass_lower_graph), tuples flattened
  (torch._C._jit_pass_lower_all_tuples), constants propagated; then walked like a trace.
- prim::If whose condition is known only at run time becomes an ONNX If, prim::Loop an ONNX
  Loop, whose blocks are walked into subgraphs of aten nodes (SBlock): the library lowers them
  at the target opset like the main graph (a Loop body's carried inputs take the types of their
  initial values there).
- Lists in scripted code: a list built in straight-line code is known to the walker item by
  item; a list that an empty list before a loop gets one item appended per iteration (the
  common `out = []; for ...: out.append(x)`) becomes a scan output of the Loop, a tensor
  stacking the items, on which cat / stack / len / [i] are computed. Other lists of tensors that
  grow inside a loop or a branch become ONNX sequences (SequenceConstruct / SequenceEmpty,
  SequenceInsert, SequenceAt, SequenceLength, ConcatFromSequence) carried through the Loop and
  If as values, which needs opset 13. What is left (lists of numbers grown in control flow,
  other list ops) is refused naming the construct and the Python line.
"""
import contextlib

import torch

from ._torch_graph import (OLG_DTYPE, _SCALAR_TYPE, SNode, SValue, TorchExportError, Values,
                           _Lazy, _List, _Lit, _Ref, _Tuple, _source_line, _split_args,
                           _eval_mode, _tensor_info, flatten, iter_nodes, SCALAR_TYPE_NUMBER)

INT64_MAX = 9223372036854775807

# run-time scalars of scripted code have one ONNX type each, so that both branches of an If and
# every iteration of a Loop agree: int -> int64, float -> double, bool -> bool (0-d tensors)
_CANON = {"IntType": torch.int64, "FloatType": torch.float64, "BoolType": torch.bool}
_KIND = {"IntType": "int", "FloatType": "float", "BoolType": "bool"}
_OLG_CODE = {torch.int64: 7, torch.float64: 11, torch.bool: 9}  # ONNX element types


class SBlock:
    """A subgraph: inputs [(SValue, olg dtype code or 0 for "the type of the outer value",
    shape or None)], nodes (SNode / SCtl), outputs [SValue]."""
    __slots__ = ("inputs", "nodes", "outputs")

    def __init__(self):
        self.inputs, self.nodes, self.outputs = [], [], []


class SCtl(SNode):
    """An ONNX If / Loop of the source graph: args are its inputs (SValue or None), blocks its
    subgraphs by attribute name; uses lists every value its blocks read from outside."""
    __slots__ = ("blocks", "uses", "line", "attrs")

    def __init__(self, op, args, outputs, scope, blocks, line, attrs=None):
        super().__init__("", op, args, outputs, scope)
        self.blocks, self.line, self.uses, self.attrs = blocks, line, [], attrs or {}


class _Stacked:
    """A list whose items a Loop stacked along a new axis 0 (a scan output): value [N, ...]."""
    __slots__ = ("val", "line")

    def __init__(self, val, line):
        self.val, self.line = val, line


def _refuse(what, node, min_opset=None):
    where = _source_line(node) or "(no source line)"
    more = (" (it needs opset >= %d)" % min_opset) if min_opset else ""
    raise TorchExportError("%s is not supported by the torch front end%s, at %s"
                           % (what, more, where))


# ----------------------------------------------------------------------------------------------
# A scripted model as a "trace"

def is_script(model):
    return isinstance(model, (torch.jit.ScriptModule, torch.jit.ScriptFunction))


def _param_names(model):
    names = {}
    if isinstance(model, torch.nn.Module):
        for n, t in list(model.named_parameters()) + list(model.named_buffers()):
            names.setdefault((t.data_ptr(), tuple(t.shape), t.dtype), n)
    return names


def prepare_graph(graph):
    """The passes a scripted graph (or a trace holding scripted code) goes through before the
    walk: tuples flattened where they cross If/Loop boundaries, constants folded."""
    torch._C._jit_pass_lower_all_tuples(graph)
    torch._C._jit_pass_constant_propagation(graph)
    torch._C._jit_pass_dce(graph)


def trace_script(model, args, extra_outputs=()):
    """trace()'s result for a ScriptModule / ScriptFunction: its graph with parameters as
    trailing inputs, the flat example inputs and the outputs of one run."""
    if extra_outputs:
        raise TorchExportError("extra_outputs is not supported for a scripted model")
    args, kwargs = _split_args(args)
    if isinstance(model, torch.jit.ScriptModule):
        with _eval_mode(model):
            # freezing folds the attributes that are not tensors (self.training, numbers) into
            # constants; parameters and buffers stay, and become trailing inputs
            frozen = torch._C._freeze_module(model._c, preserveParameters=True)
            graph = frozen._get_method("forward").graph.copy()
            torch._C._jit_pass_inline(graph)
            graph, slots = torch._C._jit_pass_lower_graph(graph, frozen)
            names = _param_names(model)
            params = []
            for k, t in enumerate(slots):
                if not isinstance(t, torch.Tensor):
                    raise TorchExportError("a scripted module attribute of type %s used as a "
                                           "value is not supported" % type(t).__name__)
                params.append((names.get((t.data_ptr(), tuple(t.shape), t.dtype),
                                         "param_%d" % k), t))
            # the forward's parameters without self
            flat_in, in_names = _bind_inputs(graph, model.forward.schema.arguments[1:], args,
                                             kwargs)
            with torch.no_grad():
                outs = model(*args, **kwargs)
    else:
        graph = model.graph.copy()
        torch._C._jit_pass_inline(graph)
        params = []
        flat_in, in_names = _bind_inputs(graph, model.schema.arguments, args, kwargs)
        with torch.no_grad():
            outs = model(*args, **kwargs)
    ginputs = list(graph.inputs())
    if len(ginputs) != len(flat_in) + len(params):
        raise TorchExportError("the scripted model takes %d inputs but args flatten to %d tensors "
                               "(each parameter takes a tensor, or a Python value that becomes a "
                               "constant)"
                               % (len(ginputs) - len(params), len(flat_in)))
    for tv, t in zip(ginputs, flat_in):
        tv.setType(torch._C.TensorType.create_from_tensor(t))
    prepare_graph(graph)
    flat_out, out_names = flatten(outs)
    if isinstance(outs, torch.Tensor):
        out_names = [""]
    return dict(graph=graph, inputs=flat_in, input_names=in_names, params=params,
                outputs=flat_out, output_names=out_names, captured=[], warnings=[])


class _ScriptedChild(torch.nn.Module):
    """Stands in for a ScriptModule inside a traced model while it is traced. Calling a
    ScriptModule from a trace needs the trace to be of a module that owns it (torch.jit.trace's
    module path); the front end traces a function over the parameters instead, so the scripted
    module's forward is called as a ScriptFunction of its frozen graph with its tensors as
    trailing arguments: the trace records a prim::CallFunction (inlined before the walk) and
    maps those tensors to the parameters of the trace, which are the same tensors."""

    def __init__(self, scripted):
        super().__init__()
        with _eval_mode(scripted):
            # freezing folds the attributes that are not tensors (self.training, numbers) and
            # shares the tensors with the original module (they stay traced parameters)
            frozen = torch._C._freeze_module(scripted._c, preserveParameters=True)
        graph = frozen._get_method("forward").graph.copy()
        torch._C._jit_pass_inline(graph)
        graph, slots = torch._C._jit_pass_lower_graph(graph, frozen)
        for t in slots:
            if not isinstance(t, torch.Tensor):
                raise TorchExportError("a scripted submodule (%s) uses an attribute of type %s as "
                                       "a value, which is not supported"
                                       % (scripted.original_name, type(t).__name__))
        object.__setattr__(self, "_fn", torch._C._create_function_from_graph(
            "forward_" + scripted.original_name, graph))
        object.__setattr__(self, "_slots", list(slots))

    def forward(self, *args):
        return self._fn(*args, *self._slots)


@contextlib.contextmanager
def scripted_children_as_functions(model):
    """Within the block, every outermost ScriptModule below the (not scripted) model is replaced
    in its parent by a _ScriptedChild; restored on exit. Yields {stand-in: original}."""
    swapped = []
    for parent in model.modules():
        if isinstance(parent, torch.jit.ScriptModule) or isinstance(parent, _ScriptedChild):
            continue
        for name, child in list(parent._modules.items()):
            if isinstance(child, torch.jit.ScriptModule):
                swapped.append((parent, name, child, _ScriptedChild(child)))
    try:
        for parent, name, child, shim in swapped:
            parent._modules[name] = shim
        yield {shim: child for _, _, child, shim in swapped}
    finally:
        for parent, name, child, shim in swapped:
            parent._modules[name] = child


def _bind_inputs(graph, schema, args, kwargs):
    """Binds args / kwargs to the scripted forward's parameters (schema, one per graph input
    before the parameters): a parameter whose value holds tensors stays a graph input (its
    tensors, in order); one whose value is a Python value (int, float, bool, str, None, lists
    and tuples of them), passed or its default, becomes a constant of the graph. Returns the
    flat tensors and their path names (as flatten((args, kwargs)) names them)."""
    if len(args) > len(schema):
        raise TorchExportError("the scripted model takes %d arguments but %d were passed"
                               % (len(schema), len(args)))
    names = [a.name for a in schema]
    unknown = [k for k in kwargs if k not in names]
    if unknown:
        raise TorchExportError("the scripted model has no parameter named %s (its parameters: %s)"
                               % (", ".join(repr(k) for k in unknown), ", ".join(names)))
    for k, a in enumerate(schema[:len(args)]):
        if a.name in kwargs:
            raise TorchExportError("the scripted model's parameter %r is passed both by position "
                                   "and by keyword" % a.name)
    flat_in, in_names, consts = [], [], []
    for k, a in enumerate(schema):
        if k < len(args):
            v, path = args[k], "0_%d" % k
        elif a.name in kwargs:
            v, path = kwargs[a.name], "1_%s" % a.name
        elif a.has_default_value():
            v, path = a.default_value, None
        else:
            raise TorchExportError("the scripted model's parameter %r (%s) has no default and was "
                                   "not passed: pass it in args (a tensor becomes an input of "
                                   "the export, a Python value a constant)"
                                   % (a.name, a.type))
        t, p = flatten(v)
        if t:
            flat_in += t
            in_names += [path + ("_" + q if q else "") for q in p]
        else:
            consts.append((k, a, v))
    ginputs = list(graph.inputs())
    nodes = list(graph.nodes())
    for k, a, v in reversed(consts):
        kind = a.type.kind()
        if kind == "TensorType":
            raise TorchExportError("the scripted model's parameter %r is a Tensor but %r was "
                                   "passed" % (a.name, v))
        if kind == "FloatType" and isinstance(v, (int, float)) and not isinstance(v, bool):
            v = float(v)
        if nodes:
            graph.setInsertPoint(nodes[0])
        try:
            c = graph.insertConstant(v)
        except RuntimeError as e:
            raise TorchExportError("the scripted model's parameter %r (%s): %r cannot be a "
                                   "constant of the export (%s)"
                                   % (a.name, a.type, v, str(e).splitlines()[0]))
        ginputs[k].replaceAllUsesWith(c)
        graph.eraseInput(k)
    return flat_in, in_names


def has_blocks(graph):
    return any(n.kind() in ("prim::If", "prim::Loop") for n in graph.nodes())


# ----------------------------------------------------------------------------------------------
# Blocks

def _inside(node, loop):
    """node is (at any depth) inside a block of loop."""
    b = node.owningBlock()
    while b is not None:
        owner = b.owningNode()
        if owner is None:
            return False
        if owner == loop:
            return True
        b = owner.owningBlock()
    return False


class _BlockCtx:
    __slots__ = ("start", "depth", "scans")

    def __init__(self, start, depth):
        self.start, self.depth, self.scans = start, depth, {}


def _walk_block(w, block, sblock):
    """Walks a torch block into sblock.nodes; returns the env entries of its outputs."""
    saved = w.sg.nodes
    w.sg.nodes = sblock.nodes
    ctx = _BlockCtx(w.next_id, len(w.blocks) + 1)
    w.blocks.append(ctx)
    scope = w.scope
    try:
        w.walk(block.nodes())
        return [w.env_item(r) for r in block.outputs()], ctx
    finally:
        w.scope = scope
        w.blocks.pop()
        w.sg.nodes = saved


def _materialize(w, e, ttype, start, node, what):
    """An SValue of the block being walked for entry e (of torch type ttype): literals become
    constants, scalars get their canonical type, outer values an Identity (a subgraph output
    is a value of the subgraph)."""
    kind = ttype.kind()
    if isinstance(e, _Lazy):
        e = e.ref(w)
    if isinstance(e, _Ref):
        v = w.current(e)
    elif isinstance(e, _Lit) and isinstance(e.v, (bool, int, float)) and kind in _CANON:
        v = w.const_scalar(e.v, _CANON[kind])
    elif isinstance(e, _Lit) and e.v is None:
        _refuse("a value that is None on one path (%s)" % what, node)
    else:
        _refuse("a %s (%s) as a value that depends on run-time control flow"
                % (ttype, what), node, 13 if "[]" in str(ttype) else None)
    if kind in _CANON:
        dt = _CANON[kind]
        v = w.emit("to", [v, SCALAR_TYPE_NUMBER[dt], False, False, None], kinds=[_KIND[kind]])
    elif v.id < start:
        v = w.emit("Identity", [v], domain="")
    return v


def _cond(w, tv):
    """A bool 0-d value for a torch bool."""
    e = w.env_item(tv)
    if isinstance(e, _Lit):
        return w.const_scalar(bool(e.v), torch.bool)
    v = w.arg(tv)
    return w.emit("to", [v, SCALAR_TYPE_NUMBER[torch.bool], False, False, None], kinds=["bool"])


def _uses_outside(sblocks, start=None):
    """The values the blocks' nodes (at any depth) read that the blocks do not define: values
    of enclosing graphs and initializers."""
    defined, seen = set(), {}

    def scan(blocks):
        for b in blocks:
            defined.update(sv.id for sv, _, _ in b.inputs)
            for n in b.nodes:
                for a in n.args:
                    for x in (a if isinstance(a, Values) else (a,)):
                        if isinstance(x, SValue) and x.id not in defined:
                            seen[x.id] = x
                for u in getattr(n, "uses", ()):
                    if u.id not in defined:
                        seen[u.id] = u
                defined.update(o.id for o in n.outputs)
            for o in b.outputs:
                if o.id not in defined:
                    seen[o.id] = o
    scan(sblocks)
    return [v for k, v in seen.items() if k not in defined]


def _raises(block):
    return any(n.kind() == "prim::RaiseException" for n in block.nodes())


# ----------------------------------------------------------------------------------------------
# Lists that grow inside control flow: ONNX sequences (SequenceInsert ... ConcatFromSequence),
# carried through Loop and If as values (sequence-typed Loop / If values need opset 13)

def _onnx(w, op, args, attrs=None, out=None):
    """An ONNX-domain node of the source graph with attributes; out: its output made earlier
    (a value referred to before its definition is emitted)."""
    out = out or w.new_value(op, "sequence")
    n = SCtl(op, args, [out], w.scope, {}, None, attrs)
    w.sg.nodes.append(n)
    return out


def _appends(blocks, lst=None):
    """The aten::append nodes inside blocks (at any depth), to lst or to any list."""
    todo, out = list(blocks), []
    while todo:
        for n in todo.pop(0).nodes():
            if n.kind() == "aten::append" and (lst is None or n.inputsAt(0) == lst):
                out.append(n)
            todo.extend(n.blocks())
    return out


def _grown_lists(blocks, owner):
    """The torch list values that an aten::append inside blocks (at any depth) grows and that
    are defined outside owner (the If / Loop node)."""
    found = []
    for n in _appends(blocks):
        lst = n.inputsAt(0)
        if not _inside(lst.node(), owner) and lst not in found:
            found.append(lst)
    return found


def _type_hints(w):
    """{unique id: (torch dtype, rank or None)} of the graph's tensors by torch's shape analysis
    on a copy of the graph and the example inputs (scripted code's values are untyped
    otherwise); {} when the analysis fails. Only lists grown in control flow use it."""
    hints = getattr(w, "type_hints", None)
    if hints is None:
        hints = {}
        tr = w.tr
        try:
            g = tr["graph"].copy()
            torch._C._jit_pass_complete_shape_analysis(
                g, tuple(tr["inputs"]) + tuple(t for _, t in tr["params"]), False)
            # the copy has the same structure; its values are matched to the original's by
            # position (a copy renumbers values whose names are numbers)
            todo = [(tr["graph"].block(), g.block())]
            while todo:
                a, b = todo.pop()
                for na, nb in zip(a.nodes(), b.nodes()):
                    todo.extend(zip(na.blocks(), nb.blocks()))
                    for oa, ob in zip(na.outputs(), nb.outputs()):
                        t = ob.type()
                        dt = _SCALAR_TYPE.get(t.scalarType()) \
                            if t.kind() == "TensorType" else None
                        if dt is not None and not dt.is_complex:
                            hints[oa.unique()] = (dt, t.dim())
        except RuntimeError:
            pass
        w.type_hints = hints
    return hints


def _item_type(w, tv):
    """(torch dtype, rank) of tensor tv as far as known (None where not)."""
    dt, shape = _tensor_info(tv) if tv is not None else (None, None)
    hint = _type_hints(w).get(tv.unique(), (None, None)) if tv is not None else (None, None)
    return dt or hint[0], len(shape) if shape is not None else hint[1]


def _note_item(e, dtype, rank):
    e.seq_dtype = e.seq_dtype or dtype
    e.seq_rank = e.seq_rank if e.seq_rank is not None else rank


def _hold_as_sequences(w, lists, node):
    """Turns each of `lists` (torch list values) that is not a sequence yet into one: returns the
    [(list entry, first value, items)] whose definitions _define_sequences emits once the
    blocks are walked. The element type (and rank) comes from the items or from what the
    blocks append: an empty sequence and a copy of one need it."""
    pending = []
    for lst in lists:
        e = w.env.get(lst)
        if not isinstance(e, _List) or "Tensor" not in e.elem or "?" in e.elem:
            _refuse("a list of %s that grows inside a loop or branch"
                    % (getattr(e, "elem", None) or "values"), node)
        if e.seq is not None:
            continue
        items = []
        for it in e.items:
            if not isinstance(it, _Ref):
                _refuse("a list holding a value that is not a tensor, grown inside a loop or "
                        "branch", node)
            items.append(w.current(it))
            dt, rank = _item_type(w, it.tval)
            _note_item(e, dt or items[-1].dtype,
                       rank if rank is not None or items[-1].shape is None
                       else len(items[-1].shape))
        for n in _appends(node.blocks(), lst):
            _note_item(e, *_item_type(w, n.inputsAt(1)))
        if e.seq_dtype is None:
            _refuse("a list grown inside a loop or branch whose element type torch's shape "
                    "analysis does not give (an empty list whose appended values it cannot "
                    "type; a first item would give it)", node)
        e.seq = w.new_value(lst.debugName(), "sequence")
        e.items = None  # the sequence holds them from now on: a stale read fails loudly
        pending.append((e, e.seq, items))
    return pending


def _unique_entries(w, lists):
    out = []
    for lst in lists:
        e = w.env[lst]
        if not any(e is x for x in out):
            out.append(e)
    return out


def _define_sequences(w, pending, node):
    for e, first, items in pending:
        if items:
            _onnx(w, "SequenceConstruct", items, out=first)
        else:
            _onnx(w, "SequenceEmpty", [], {"dtype": OLG_DTYPE[e.seq_dtype]}, out=first)


def walk_if(w, node, ins, outs):
    blocks = list(node.blocks())
    raising = [_raises(b) for b in blocks]
    if raising.count(True) == 1:
        # a branch that only raises (an argument check of scripted code) is not part of the
        # exported behaviour: the other branch is taken, as for a condition known at export
        block = blocks[raising.index(False)]
        scope = w.scope
        w.walk(block.nodes())
        w.scope = scope
        for o, r in zip(outs, block.outputs()):
            w.env[o] = w.env_item(r)
        return
    cond = _cond(w, ins[0])
    lists = _grown_lists(node.blocks(), node)
    pending = _hold_as_sequences(w, lists, node)
    grown = _unique_entries(w, lists)
    before = [e.seq for e in grown]
    start = w.next_id
    blocks = []
    for blk in node.blocks():
        for e, v in zip(grown, before):
            e.seq = v
        sb = SBlock()
        entries, _ = _walk_block(w, blk, sb)
        saved = w.sg.nodes
        w.sg.nodes = sb.nodes
        w.blocks.append(_BlockCtx(start, len(w.blocks) + 1))
        try:
            sb.outputs = [_materialize(w, e, o.type(), start, node, "an output of an if")
                          for e, o in zip(entries, outs)]
            sb.outputs += [_block_output(w, e, start, sb.outputs) for e in grown]
        finally:
            w.blocks.pop()
            w.sg.nodes = saved
        blocks.append(sb)
    _define_sequences(w, pending, node)
    svals = [w.new_value(o.debugName(), _KIND.get(o.type().kind(), "tensor")) for o in outs]
    seq_outs = [w.new_value("seq", "sequence") for _ in grown]
    n = SCtl("If", [cond], svals + seq_outs, w.scope,
             {"then_branch": blocks[0], "else_branch": blocks[1]}, _source_line(node))
    n.uses = _uses_outside(blocks, start)
    w.sg.nodes.append(n)
    for o, sv in zip(outs, svals):
        w.env[o] = _Ref(sv, o)
    for e, sv in zip(grown, seq_outs):
        e.seq = sv


def _block_output(w, e, start, taken):
    """List e's sequence as an output of the block being walked. A value of an enclosing graph,
    or one the block already outputs, is copied: Identity takes sequences only from opset 14,
    so the copy is the insert of a zero of the element type and the erase of it (opset 11)."""
    v = e.seq
    if v.id >= start and v not in taken:
        return v
    # of the element's rank, so that the sequence's element shape keeps its rank in inference
    zero = w.initializer(torch.zeros([1] * (e.seq_rank or 0), dtype=e.seq_dtype),
                         "seq_copy_item", "literal")
    return _onnx(w, "SequenceErase", [_onnx(w, "SequenceInsert", [v, zero])])


def walk_loop(w, node, ins, outs):
    body = list(node.blocks())[0]
    me = _source_line(node)
    trip = w.env_item(ins[0])
    if isinstance(trip, _Lit):
        m = None if trip.v >= INT64_MAX else w.const_scalar(int(trip.v), torch.int64)
    else:
        m = w.emit("to", [w.arg(ins[0]), SCALAR_TYPE_NUMBER[torch.int64], False, False, None],
                   kinds=["int"])
    cond0 = _cond(w, ins[1])
    inits = []
    for tv in ins[2:]:
        e = w.env_item(tv)
        kind = tv.type().kind()
        v = _materialize(w, e, tv.type(), -1, node, "a value carried by a loop") \
            if not isinstance(e, _Ref) or kind in _CANON else w.current(e)
        inits.append(v)
    # lists the body appends to once per iteration: scan outputs
    scans = []
    for n2 in body.nodes():
        if n2.kind() != "aten::append":
            continue
        lst = n2.inputsAt(0)
        e = w.env.get(lst)
        if not isinstance(e, _List) or e.seq is not None or e.items or "Tensor" not in e.elem:
            continue
        inner = [u for u in lst.uses() if _inside(u.user, node)]
        if len(inner) != 1:
            continue
        scans.append(lst)
    lists = [lst for lst in _grown_lists([body], node) if lst not in scans]
    pending = _hold_as_sequences(w, lists, node)
    grown = _unique_entries(w, lists)
    seq_inits = [e.seq for e in grown]
    start = w.next_id
    sb = SBlock()
    it = w.new_value("iter", "int")
    cnd = w.new_value("cond", "bool")
    sb.inputs = [(it, 7, []), (cnd, 9, [])]
    binputs = list(body.inputs())
    w.env[binputs[0]] = _Ref(it, binputs[0])
    carried = []
    for tv, init in zip(binputs[1:], inits):
        sv = w.new_value(tv.debugName(), _KIND.get(tv.type().kind(), "tensor"))
        code = _OLG_CODE.get(_CANON.get(tv.type().kind()))
        sb.inputs.append((sv, code or 0, [] if code else None))
        w.env[tv] = _Ref(sv, tv)
        carried.append(sv)
    for e in grown:  # typed by legalize from the initial sequence, like any carried value
        e.seq = w.new_value("seq", "sequence")
        sb.inputs.append((e.seq, 0, None))
    saved_lists = {lst: w.env[lst] for lst in scans}
    w.scan_targets = getattr(w, "scan_targets", {})
    for lst in scans:
        w.scan_targets[lst.unique()] = None
    try:
        entries, ctx = _walk_block(w, body, sb)
    finally:
        scanned = [w.scan_targets.pop(lst.unique(), None) for lst in scans]
    saved = w.sg.nodes
    w.sg.nodes = sb.nodes
    w.blocks.append(_BlockCtx(start, len(w.blocks) + 1))
    try:
        bouts = list(body.outputs())
        cond_out = _materialize(w, entries[0], bouts[0].type(), start, node, "a loop condition")
        vals = [_materialize(w, e, o.type(), start, node, "a value carried by a loop")
                for e, o in zip(entries[1:], bouts[1:])]
        for e in grown:
            vals.append(_block_output(w, e, start, vals))
        scan_vals = []
        for lst, sv in zip(scans, scanned):
            if sv is None:
                _refuse("a list appended to in a loop only on some paths", node)
            dup = sv.id < start or sv in vals or sv in scan_vals
            scan_vals.append(w.emit("Identity", [sv], domain="") if dup else sv)
    finally:
        w.blocks.pop()
        w.sg.nodes = saved
    sb.outputs = [cond_out] + vals + scan_vals
    _define_sequences(w, pending, node)
    svals = [w.new_value(o.debugName(), _KIND.get(o.type().kind(), "tensor")) for o in outs]
    seq_outs = [w.new_value("seq", "sequence") for _ in grown]
    svals_scan = [w.new_value(lst.debugName(), "tensor") for lst in scans]
    n = SCtl("Loop", [m, cond0] + inits + seq_inits, svals + seq_outs + svals_scan, w.scope,
             {"body": sb}, me)
    n.uses = _uses_outside([sb], start)
    w.sg.nodes.append(n)
    for o, sv in zip(outs, svals):
        w.env[o] = _Ref(sv, o)
    for e, sv in zip(grown, seq_outs):
        e.seq = sv
    for lst, sv in zip(scans, svals_scan):
        w.env[lst] = _Stacked(sv, me)
    del saved_lists


# ----------------------------------------------------------------------------------------------
# prim and aten ops of scripted code around control flow

def prim_op(w, node, op, ins, outs):
    """True when the op was handled here."""
    if op == "Loop":
        walk_loop(w, node, ins, outs)
    elif op == "If":
        walk_if(w, node, ins, outs)
    elif op in ("unchecked_cast", "Uninitialized"):
        if op == "Uninitialized":
            w.env[outs[0]] = _Lit(None)
        else:
            w.env[outs[0]] = w.env_item(ins[0])
    elif op == "RaiseException":
        pass  # the branch that raises is never the exported behaviour
    elif op in ("min", "max") and len(ins) == 2:
        a, b = w.env_item(ins[0]), w.env_item(ins[1])
        if isinstance(a, _Lit) and isinstance(b, _Lit):
            w.env[outs[0]] = _Lit((min if op == "min" else max)(a.v, b.v))
            return True
        kind = _KIND.get(outs[0].type().kind(), "tensor")
        v = w.emit("minimum" if op == "min" else "maximum",
                   [_scalar_tensor(w, ins[0]), _scalar_tensor(w, ins[1])], kinds=[kind])
        w.env[outs[0]] = _Ref(v, outs[0])
    else:
        return False
    return True


def _scalar_tensor(w, tv):
    e = w.env_item(tv)
    if isinstance(e, _Lit):
        return w.const_scalar(e.v, _CANON.get(tv.type().kind(), torch.int64))
    return w.arg(tv)


LIST_OPS = {"append", "len", "__getitem__", "cat", "stack", "__is__", "__isnot__", "dim",
            "__and__", "__or__", "_shape_as_tensor", "empty", "split", "split_with_sizes", "where", "scalar_tensor"}


def _split_runtime(w, node, ins, outs):
    """split(x, sizes, dim) with sizes known only at run time (torchvision splits per feature
    level by sizes computed from shapes): one slice per size, at the running sum of the sizes
    before it. The number of pieces is the list's length, known to the walker."""
    e = w.env.get(ins[1])
    if not isinstance(e, _List) or e.seq is not None or \
            all(isinstance(i, _Lit) for i in e.items) or \
            len(outs) != 1 or outs[0].type().kind() != "ListType":
        return False
    x = w.arg(ins[0])
    sizes = w.arg(ins[1])
    d = w.arg(ins[2]) if len(ins) > 2 else 0
    start, pieces = 0, []
    for s in sizes:
        end = s if isinstance(start, int) and start == 0 else \
            w.emit("add", [start, s, 1], kinds=["int"])
        pieces.append(_Ref(w.emit("slice", [x, d, start, end, 1]), None))
        start = end
    w.env[outs[0]] = _List(pieces, "Tensor", len(w.blocks))
    return True


def _where1(w, node, ins, outs):
    """where(condition) is nonzero(condition, as_tuple=True): one index vector per dim."""
    shape = _tensor_info(ins[0])[1]
    if shape is None:
        return False
    nz = w.emit("nonzero", [w.arg(ins[0])])
    items = [_Ref(w.emit("select", [nz, 1, k]), None) for k in range(len(shape))]
    w.env[outs[0]] = _List(items, "Tensor", len(w.blocks))
    return True


def _alias(w, node, op, ins, outs):
    """Ops torchvision's traced detection code uses, written as the ops the library lowers:
    `a & b` on bool tensors is logical_and, _shape_as_tensor(x) is size(x), empty(...) is
    zeros(...) (its contents are unspecified)."""
    if op in ("__and__", "__or__"):
        if any(_tensor_info(tv)[0] != torch.bool for tv in ins[:2]):
            return False
        w.call(node, "aten", "logical_and" if op == "__and__" else "logical_or",
               [w.arg(tv) for tv in ins[:2]], outs, ins)
    elif op == "_shape_as_tensor":
        w.call(node, "aten", "size", [w.arg(ins[0])], outs, ins)
    else:  # empty(size, dtype, layout, device, pin_memory, memory_format)
        w.call(node, "aten", "zeros", [w.arg(tv) for tv in ins[:5]], outs, ins)
    return True


def aten_op(w, node, op, ins, outs):
    """True when the op was handled here (list ops on lists the walker tracks, None tests)."""
    if op in ("__and__", "__or__", "_shape_as_tensor", "empty"):
        return _alias(w, node, op, ins, outs)
    if op == "dim":
        e = w.env.get(ins[0])
        shape = getattr(w.current(e), "shape", None) if isinstance(e, _Ref) else None
        if shape is None:
            shape = _tensor_info(ins[0])[1]
        if shape is None:  # the rank at run time: the length of the shape
            v = w.emit("size", [w.emit("size", [w.arg(ins[0])], kinds=["ints"]), 0],
                       kinds=["int"])
            w.env[outs[0]] = _Ref(v, outs[0])
            return True
        w.env[outs[0]] = _Lit(len(shape))
        return True
    if op == "scalar_tensor":
        e = w.env_item(ins[0])
        dt = w.arg(ins[1]) if len(ins) > 1 else None
        if isinstance(e, _Lit):
            back = {v: k for k, v in SCALAR_TYPE_NUMBER.items()}
            w.env[outs[0]] = _Ref(w.const_scalar(e.v, back.get(dt, torch.float32)), outs[0])
        else:
            v = w.emit("to", [w.arg(ins[0]), 6 if dt is None else dt, False, False, None])
            w.env[outs[0]] = _Ref(v, outs[0])
        return True
    if op in ("split", "split_with_sizes"):
        return _split_runtime(w, node, ins, outs)
    if op == "where":
        return len(ins) == 1 and _where1(w, node, ins, outs)
    if op in ("__is__", "__isnot__"):
        a, b = w.env.get(ins[0]), w.env.get(ins[1])
        a_none = isinstance(a, _Lit) and a.v is None
        b_none = isinstance(b, _Lit) and b.v is None
        if not (a_none or b_none):
            return False
        same = a_none and b_none
        w.env[outs[0]] = _Lit(same if op == "__is__" else not same)
        return True
    e = w.env.get(ins[0]) if ins else None
    if isinstance(e, _List) and e.seq is not None:
        return _sequence_op(w, node, op, e, ins, outs)
    if op == "append":
        if isinstance(e, _List):
            scans = getattr(w, "scan_targets", {})
            key = ins[0].unique()
            if key in scans and w.blocks:
                if scans[key] is not None:
                    _refuse("a list appended to twice in one iteration", node)
                scans[key] = w.arg(ins[1])
            elif w.blocks and getattr(e, "depth", 0) < len(w.blocks):
                _refuse("a list defined outside a loop or branch and changed inside it (it "
                        "would be a sequence carried through the control flow)", node, 13)
            else:
                e.items.append(w.env_item(ins[1]))
            w.env[outs[0]] = e
            return True
        return False
    if not isinstance(e, _Stacked):
        if op == "len" and isinstance(e, _List):
            w.env[outs[0]] = _Lit(len(e.items))
            return True
        if op == "__getitem__" and isinstance(e, _List):
            i = w.env_item(ins[1])
            if isinstance(i, _Lit):
                w.env[outs[0]] = e.items[i.v]
                return True
            _refuse("indexing a list with a run-time index", node, 11)
        if isinstance(e, _Ref) and op in ("len", "__getitem__") and \
                str(ins[0].type()) in ("int[]", "List[int]"):
            # an int[] computed at run time (x.shape in scripted code) is a 1-D int64 value
            s = w.arg(ins[0])
            v = w.emit("size", [s, 0], kinds=["int"]) if op == "len" else \
                w.emit("select", [s, 0, w.arg(ins[1])], kinds=["int"])
            w.env[outs[0]] = _Ref(v, outs[0])
            return True
        return False
    s = e.val
    if op == "len":
        v = w.emit("size", [s, 0], kinds=["int"])
        w.env[outs[0]] = _Ref(v, outs[0])
    elif op == "__getitem__":
        v = w.emit("select", [s, 0, w.arg(ins[1])])
        w.env[outs[0]] = _Ref(v, outs[0])
    elif op in ("cat", "stack"):
        d = w.arg(ins[1]) if len(ins) > 1 else 0
        if not isinstance(d, int) or d < 0:
            _refuse("aten::%s of a list built in a loop along dim %r (only dims >= 0)"
                    % (op, d), node)
        t = s
        for k in range(d):  # the list's axis 0 moved to d
            t = w.emit("transpose", [t, k, k + 1])
        v = t if op == "stack" else w.emit("flatten", [t, d, d + 1])
        w.env[outs[0]] = _Ref(v, outs[0])
    else:
        _refuse("aten::%s of a list built in a loop" % op, node)
    return True


def _sequence_op(w, node, op, e, ins, outs):
    """A list op on a list held as an ONNX sequence."""
    if op == "append":
        x = w.arg(ins[1])
        _note_item(e, *_item_type(w, ins[1]))
        e.seq = _onnx(w, "SequenceInsert", [e.seq, x])
        w.env[outs[0]] = e
    elif op == "len":
        w.env[outs[0]] = _Ref(_onnx(w, "SequenceLength", [e.seq]), outs[0])
    elif op == "__getitem__":
        i = w.env_item(ins[1])
        pos = w.const_scalar(int(i.v), torch.int64) if isinstance(i, _Lit) else \
            w.emit("to", [w.arg(ins[1]), SCALAR_TYPE_NUMBER[torch.int64], False, False, None],
                   kinds=["int"])
        w.env[outs[0]] = _Ref(_onnx(w, "SequenceAt", [e.seq, pos]), outs[0])
    elif op in ("cat", "stack"):
        d = w.arg(ins[1]) if len(ins) > 1 else 0
        if not isinstance(d, int):
            _refuse("aten::%s of a list grown in a loop or branch along a run-time dim" % op,
                    node)
        attrs = {"axis": d, "new_axis": 1 if op == "stack" else 0}
        w.env[outs[0]] = _Ref(_onnx(w, "ConcatFromSequence", [e.seq], attrs), outs[0])
    else:
        _refuse("aten::%s of a list grown in a loop or branch" % op, node)
    return True


# ----------------------------------------------------------------------------------------------
# Source graph helpers (recursive over blocks)

def _untyped_input(g, name):
    """A subgraph input without a type: legalize gives it the type of the Loop's initial value."""
    from ctypes import byref, c_int32
    from ._lib import call, enc
    from ._model import Value
    v = c_int32()
    call("olg_graph_add_input", g._ptr, enc(name), 0, -1, None, None, byref(v))
    return Value(g, v.value)


def add_control(m, g, n, conv, vals):
    """Adds SCtl n (and its blocks, recursively) to graph g of model m; returns its outputs."""
    attrs = dict(n.attrs)
    for attr, sb in n.blocks.items():
        sub = m.subgraph("%s_%s" % ((n.name or n.op).replace("/", "_"), attr))
        for k, (sv, code, shape) in enumerate(sb.inputs):
            name = "%s_in%d" % (sub.name, k)
            vals[sv.id] = sub.add_input(name, code, shape) if code else _untyped_input(sub, name)
        for bn in sb.nodes:
            if isinstance(bn, SCtl):
                outs = add_control(m, sub, bn, conv, vals)
            else:
                outs = sub.source_node(bn.domain, bn.op, [conv(a) for a in bn.args],
                                       len(bn.outputs), name=bn.name or None)
            if len(bn.outputs) == 1:
                outs = (outs,)
            for o, r in zip(bn.outputs, outs):
                vals[o.id] = r
        for o in sb.outputs:
            sub.add_output(vals[o.id])
        attrs[attr] = sub
    ins = [None if a is None else vals[a.id] for a in n.args]
    return g.node(n.op, ins, len(n.outputs), name=n.name or None, attrs=attrs)
