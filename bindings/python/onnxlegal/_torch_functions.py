"""export_modules_as_functions for onnxlegal.torch.export: the walked nodes of each call of a
selected module become one call of a model-local function (FunctionProto), which the library's
legalize keeps with its body converted (olg_legalize_options.keep_functions, lib/function_keep.c).

The rules (docs/python.md, "Modules as functions"):
- selection: True selects the type of every submodule the model calls (not the root module:
  its forward is the main graph; torch 1.13 also wraps the root in a function, a main graph of
  one call); a set of nn.Module types selects those types (the root's type too when listed).
- a call: the nodes of one call of a selected module instance, from the trace's scopes. A
  selected module called inside another selected module is part of the outer one's body
  (inlined there: the library keeps the calls of the main graph).
- naming: the function is named after the class (`Block`) in the domain of the class's Python
  module (`__main__`, `torch.nn.modules.linear`), as torch 1.13 names it. Calls whose bodies
  are the same (the same ops with the same literal arguments: hyper-parameters such as eps,
  strides; constants the trace holds as tensors, such as a head count in a view's sizes, are
  inputs of the call and may differ) share one function; a call whose body differs gets a copy named
  `Block__2`, `Block__3`, ... in the order of first call (where torch would write the
  differing constants as `inferred::` attributes). The library adds copies of its own the same
  way when calls of one body differ in their arguments' dtypes or ranks.
- the inputs of a function: the values its body reads from outside, in order of first use --
  the module's parameters and buffers too, passed at the call from the initializers (as torch
  does); its outputs: the values the rest of the graph reads. No attributes.
- the call node is named after the module path (`b1`, `layers.0`, `b1#2` for a second call).
- opset < 15 (IR version < 8, no local functions): the calls are inlined, with a warning
  (torch refuses; onnxlegal's keep_functions inlines with a warning likewise).
"""
import torch

from ._torch_graph import ExportError, SValue, Values


def selected_types(model, spec):
    """The set of module classes export_modules_as_functions selects; empty for False/None/an
    empty collection."""
    if spec is None or spec is False:
        return set()
    if spec is True:
        if not isinstance(model, torch.nn.Module):
            return set()
        return {type(m) for n, m in model.named_modules() if n}
    if isinstance(spec, (set, frozenset, list, tuple)):
        out = set()
        for t in spec:
            if not (isinstance(t, type) and issubclass(t, torch.nn.Module)):
                raise ExportError("export_modules_as_functions: a set of nn.Module types is "
                                  "expected; %r is not one" % (t,))
            out.add(t)
        return out
    raise ExportError("export_modules_as_functions must be a bool or a set of nn.Module types, "
                      "not %s" % type(spec).__name__)


class Call:
    """One call of a function: the nodes of one module call, its inputs and outputs."""
    __slots__ = ("scope", "module", "nodes", "inputs", "outputs", "name", "key", "fn")

    def __init__(self, scope, module, nodes):
        self.scope, self.module, self.nodes = scope, module, nodes
        self.inputs, self.outputs, self.name, self.key, self.fn = [], [], scope, None, None


def _owner(scope, modules, types, root_selected):
    """The outermost selected module path containing scope ("" for the root), or None."""
    if root_selected:
        return ""
    if not scope:
        return None
    parts = scope.split(".")
    for k in range(1, len(parts) + 1):
        path = ".".join(parts[:k])
        m = modules.get(path)
        if m is not None and type(m) in types:
            return path
    return None


def _reads(n):
    for a in n.args:
        if isinstance(a, SValue):
            yield a
        elif isinstance(a, Values):
            for x in a:
                if isinstance(x, SValue):
                    yield x


def plan(sg, model, spec):
    """Groups sg's nodes into calls: a list whose items are SNodes (kept in the main graph) or
    Calls; None when nothing is selected or no node falls in a selected module."""
    types = selected_types(model, spec)
    if not types or not isinstance(model, torch.nn.Module):
        return None
    modules = dict(model.named_modules())
    root_selected = type(model) in types
    items, cur = [], None
    for n in sg.nodes:
        owner = None if getattr(n, "blocks", None) is not None else \
            _owner(n.scope, modules, types, root_selected)
        if owner is None:
            cur = None
            items.append(n)
            continue
        if cur is None or cur.scope != owner:
            cur = Call(owner, modules[owner], [])
            items.append(cur)
        cur.nodes.append(n)
    calls = [c for c in items if isinstance(c, Call)]
    if not calls:
        return None
    # inputs / outputs of each call
    later_reads = {}  # value id -> index of the last item reading it
    for i, it in enumerate(items):
        for n in (it.nodes if isinstance(it, Call) else [it]):
            for v in _reads(n):
                later_reads[v.id] = i
            for u in getattr(n, "uses", ()):
                later_reads[u.id] = i
    graph_out = set(v.id for v, _ in sg.outputs)
    seen_names = {}
    for i, it in enumerate(items):
        if not isinstance(it, Call):
            continue
        made, ins = set(), {}
        for n in it.nodes:
            for v in _reads(n):
                if v.id not in made and v.id not in ins:
                    ins[v.id] = v
            made.update(o.id for o in n.outputs)
        it.inputs = list(ins.values())
        it.outputs = [o for n in it.nodes for o in n.outputs
                      if o.id in graph_out or later_reads.get(o.id, -1) > i]
        k = seen_names.get(it.scope, 0) + 1
        seen_names[it.scope] = k
        it.name = (it.scope or "model") if k == 1 else "%s#%d" % (it.scope or "model", k)
        it.key = _body_key(it)
    # one function per distinct body of a class
    by_class = {}
    for c in calls:
        cls = type(c.module)
        bodies = by_class.setdefault(cls, [])
        for key, fn in bodies:
            if key == c.key:
                c.fn = fn
                break
        else:
            name = cls.__name__ if not bodies else "%s__%d" % (cls.__name__, len(bodies) + 1)
            c.fn = (cls.__module__, name)
            bodies.append((c.key, c.fn))
    return items


def _arg_key(a, local):
    if isinstance(a, SValue):
        return ("v", local[a.id])
    if isinstance(a, Values):
        return ("vs",) + tuple(None if x is None else local[x.id] for x in a)
    if isinstance(a, (list, tuple)):
        return (type(a).__name__,) + tuple(_arg_key(x, local) for x in a)
    return (type(a).__name__, repr(a))


def _body_key(call):
    local = {}
    for k, v in enumerate(call.inputs):
        local[v.id] = ("in", k)
    key = []
    for j, n in enumerate(call.nodes):
        args = tuple(_arg_key(a, local) for a in n.args)
        key.append((n.domain, n.op, args, len(n.outputs)))
        for k, o in enumerate(n.outputs):
            local[o.id] = ("n", j, k)
    key.append(tuple(local[o.id] for o in call.outputs))
    return tuple(key)


def _out_type(n, k):
    """(torch dtype, rank) of output k of a walked node from its torch node, or None."""
    t = n.tnode
    if t is None:
        return None
    outs = list(t.outputs())
    if len(outs) != len(n.outputs):
        return None
    ty = outs[k].type()
    try:
        st, sizes = ty.dtype(), ty.sizes()
    except (RuntimeError, AttributeError):
        return None
    if st is None or sizes is None:
        return None
    return st, len(sizes)


def add_items(m, g, items, conv, vals, out_name, olg_dtype):
    """Adds the plan's items to the source model m (main graph g): the SNodes as to_source_model
    does (through conv(a, vals) and the caller's add), each distinct function once, each Call as
    a call node whose outputs are typed (dtype, rank) from the trace."""
    made = {}
    # the values of main-graph nodes that a call reads: typed (dtype, rank) from the trace once
    # added, so that the library can tell the call's signature (inference does not see
    # through aten nodes before they are lowered)
    read = set(v.id for it in items if isinstance(it, Call) for v in it.inputs)
    for it in items:
        if not isinstance(it, Call):
            yield it
            for k, o in enumerate(it.outputs):
                if o.id in read and o.id in vals and vals[o.id] is not None:
                    ty = _out_type(it, k)
                    if ty is not None:
                        vals[o.id].set_type(olg_dtype(ty[0]), [None] * ty[1])
            continue
        if it.fn not in made:
            _add_function(m, it, conv, olg_dtype)
            made[it.fn] = True
        names = [out_name.get(o.id) for o in it.outputs]
        outs = g.node(it.fn[1], [vals[v.id] for v in it.inputs],
                      outputs=names if any(names) else len(it.outputs), domain=it.fn[0],
                      name=it.name)
        if len(it.outputs) == 1:
            outs = (outs,)
        for o, r in zip(it.outputs, outs):
            vals[o.id] = r
            ty = _producer_type(it, o)
            if ty is not None:
                r.set_type(olg_dtype(ty[0]), [None] * ty[1])


def _producer_type(call, v):
    for n in call.nodes:
        for k, o in enumerate(n.outputs):
            if o.id == v.id:
                return _out_type(n, k)
    return None


def _add_function(m, call, conv, olg_dtype):
    domain, name = call.fn
    body = m.subgraph(name)
    bvals = {}
    used = set()

    def unique(hint):
        base = "".join(ch if ch.isalnum() or ch in "._" else "_" for ch in str(hint)) or "v"
        cand, k = base, 1
        while cand in used:
            k += 1
            cand = "%s_%d" % (base, k)
        used.add(cand)
        return cand

    for v in call.inputs:
        bvals[v.id] = body.add_formal_input(body.add_value(unique(v.hint)))
    for n in call.nodes:
        args = [conv(a, bvals) for a in n.args]
        outs = body.source_node(n.domain, n.op, args, len(n.outputs), name=n.name or None)
        if len(n.outputs) == 1:
            outs = (outs,)
        for o, r in zip(n.outputs, outs):
            bvals[o.id] = r
    for o in call.outputs:
        body.add_output(bvals[o.id])
    m.add_function(domain, name, body)
    m.set_opset(domain, 1)
