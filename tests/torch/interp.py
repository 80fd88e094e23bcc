"""Runs a SourceGraph (onnxlegal._torch_trace) back through torch, node by node.

This checks the walker on its own, without the C library: if the flat list of source nodes, with
in-place ops made functional and views written back, computes what the model computed, the front
end has handed the lowering a faithful program. Each node is dispatched to the aten overload
whose schema accepts its positional arguments (torch.ops.aten.<op>.<overload>)."""
import torch

from onnxlegal._torch_trace import Floats, Ints, SValue, Values, Bools

_SCHEMAS = {}


def _schemas(domain, op):
    key = (domain, op)
    if key not in _SCHEMAS:
        _SCHEMAS[key] = torch._C._jit_get_schemas_for_operator("%s::%s" % (domain, op))
    return _SCHEMAS[key]


def _is_scalar(x):
    return isinstance(x, (int, float, bool)) or (isinstance(x, torch.Tensor) and x.dim() == 0)


def _fits(typ, a, x):
    """Whether the argument a (its run-time value x) fits the schema type typ."""
    t = str(typ)
    if t.startswith("Optional["):
        if a is None:
            return True
        t = t[len("Optional["):-1]
    if a is None:
        return False
    if t == "Tensor":
        return isinstance(x, torch.Tensor) or (isinstance(a, SValue) and a.kind != "tensor")
    if t in ("int", "SymInt"):
        return (type(a) is int) or (isinstance(a, SValue) and _is_scalar(x) and
                                    not (isinstance(x, torch.Tensor) and x.is_floating_point()))
    if t == "float":
        return type(a) in (int, float) or (isinstance(a, SValue) and _is_scalar(x))
    if t == "number":
        return type(a) in (int, float, bool) or (isinstance(a, SValue) and _is_scalar(x))
    if t == "bool":
        return type(a) is bool or (isinstance(a, SValue) and _is_scalar(x))
    if t == "str":
        return isinstance(a, str)
    if t == "Device":
        return isinstance(a, str)
    if t in ("List[int]", "List[SymInt]"):
        return isinstance(a, (Ints, Values)) or (type(a) is int)
    if t == "List[float]":
        return isinstance(a, (Floats, Ints))
    if t == "List[bool]":
        return isinstance(a, Bools)
    if t in ("List[Tensor]", "List[Optional[Tensor]]"):
        return isinstance(a, Values)
    if t == "Scalar":
        return True
    return False


def _convert(typ, x):
    t = str(typ)
    if t.startswith("Optional["):
        if x is None:
            return None
        t = t[len("Optional["):-1]
    if t == "Tensor" and not isinstance(x, torch.Tensor):
        return torch.tensor(x)
    if t in ("int", "SymInt") and isinstance(x, torch.Tensor):
        return int(x)
    if t == "float" and isinstance(x, torch.Tensor):
        return float(x)
    if t == "bool" and isinstance(x, torch.Tensor):
        return bool(x)
    if t == "number" and isinstance(x, torch.Tensor):
        return x.item()
    if t in ("List[int]", "List[SymInt]"):
        if isinstance(x, int):
            return [x]
        return [int(e) for e in x]
    return x


class InterpError(RuntimeError):
    pass


def run(sg, inputs):
    """Runs sg on inputs (the flat tensors, in SInput order); returns the flat outputs."""
    env = {}
    for si, t in zip(sg.inputs, inputs):
        env[si.value.id] = t
    for init in sg.initializers:
        env[init.value.id] = init.tensor

    def val(a):
        if isinstance(a, SValue):
            return env[a.id]
        if isinstance(a, Values):
            return [None if e is None else val(e) for e in a]
        if isinstance(a, (Ints, Floats, Bools)):
            return list(a)
        return a

    for n in sg.nodes:
        xs = [val(a) for a in n.args]
        last = None
        # values have no strides in the source graph (a written-back transpose is just a value),
        # so view is reshape here, as it is in ONNX
        op = "reshape" if (n.domain, n.op) == ("aten", "view") else n.op
        for s in _schemas(n.domain, op):
            args = s.arguments
            if len(args) != len(xs):
                continue
            if not all(_fits(p.type, a, x) for p, a, x in zip(args, n.args, xs)):
                continue
            pos, kw = [], {}
            for p, x in zip(args, xs):
                x = _convert(p.type, x)
                if p.kwarg_only:
                    kw[p.name] = x
                else:
                    pos.append(x)
            fn = getattr(getattr(getattr(torch.ops, n.domain), op), s.overload_name or "default")
            try:
                res = fn(*pos, **kw)
            except (RuntimeError, TypeError) as e:
                last = e
                continue
            break
        else:
            raise InterpError("no overload of %s::%s takes %r (%s)" % (n.domain, n.op, n.args, last))
        if len(n.outputs) == 1 and not isinstance(res, (list, tuple)):
            res = [res]
        res = list(res)
        if len(res) != len(n.outputs):
            raise InterpError("%s::%s gave %d results for %d outputs"
                              % (n.domain, n.op, len(res), len(n.outputs)))
        for o, r in zip(n.outputs, res):
            env[o.id] = r
    return [env[v.id] for v, _ in sg.outputs]
