#!/usr/bin/env python3
"""Generates a corpus of invalid ONNX models, each ONE mutation of a valid model of
libonnx-testdata, with the diagnostic code onnxlegal's validator must report.

    /usr/bin/python3 tests/gen_invalid_models.py OUTDIR [--per-kind N]

writes OUTDIR/<kind>__<model>.onnx and OUTDIR/manifest.json, a list of
{"file", "kind", "code", "source", "opset", "onnx_rejects"}: `code` is the expected
OLG-* code (with `onnxlegal check --full`), `onnx_rejects` whether python3-onnx 1.12's full
checker is expected to reject it too (False only for the kinds listed in ONNX_LENIENT, with
the reason). The choice of models is deterministic (sorted paths, the first that fit).
Needs the onnx package (Debian's python3-onnx, visible to /usr/bin/python3).
"""
import argparse
import copy
import glob
import json
import os
import sys

import onnx
from onnx import AttributeProto, TensorProto, helper

DATA = "/usr/share/libonnx-testdata/data"

# Mutations python3-onnx 1.12's checker accepts although the model breaks an ONNX rule.
ONNX_LENIENT = {
    "output_undefined": "onnx 1.12's checker does not verify that graph outputs are defined "
                        "(check_graph only looks at node inputs), and its shape inference "
                        "leaves an unknown output alone",
}


def models():
    """(name, path, model) of every testdata model, sorted."""
    for path in sorted(glob.glob(os.path.join(DATA, "*", "*", "model.onnx"))):
        name = os.path.basename(os.path.dirname(path))
        yield name, path, onnx.load(path)


def default_opset(m):
    for o in m.opset_import:
        if o.domain in ("", "ai.onnx"):
            return o.version
    return None


def schema(node, opset):
    if node.domain not in ("", "ai.onnx"):
        return None
    try:
        return onnx.defs.get_schema(node.op_type, opset, "")
    except Exception:
        return None


def onnx_valid(m):
    try:
        onnx.checker.check_model(m, full_check=True)
        return True
    except Exception:
        return False


def subgraphs(g):
    for n in g.node:
        for a in n.attribute:
            if a.type == AttributeProto.GRAPH:
                yield n, a.g
                yield from subgraphs(a.g)
            for sg in a.graphs:
                yield n, sg
                yield from subgraphs(sg)


# ------------------------------------------------------------------------------------------
# Mutations: each takes a copy of a valid model and returns True when it applied.


def m_attr_type(m, op):
    for n in m.graph.node:
        s = schema(n, op)
        if not s:
            continue
        for a in n.attribute:
            sa = s.attributes.get(a.name)
            if sa and sa.type == AttributeProto.INT and a.type == AttributeProto.INT:
                v = a.i
                a.ClearField("i")
                a.type = AttributeProto.FLOAT
                a.f = float(v)
                return True
    return False


def m_attr_missing(m, op):
    for n in m.graph.node:
        s = schema(n, op)
        if not s:
            continue
        req = {k for k, v in s.attributes.items() if v.required}
        for i, a in enumerate(n.attribute):
            if a.name in req and a.type != AttributeProto.GRAPH:
                del n.attribute[i]
                return True
    return False


def m_attr_unknown(m, op):
    for n in m.graph.node:
        if schema(n, op) and n.op_type != "Constant":
            n.attribute.append(helper.make_attribute("not_an_attribute", 1))
            return True
    return False


def m_input_missing(m, op):
    for n in m.graph.node:
        s = schema(n, op)
        if s and n.input and s.inputs and s.inputs[0].option == onnx.defs.OpSchema.FormalParameterOption.Single:
            n.input[0] = ""
            return True
    return False


def m_input_count(m, op):
    for n in m.graph.node:
        s = schema(n, op)
        if s and s.max_input == s.min_input and len(n.input) == s.max_input and s.max_input >= 1:
            n.input.append(n.input[0])
            return True
    return False


def m_output_count(m, op):
    for n in m.graph.node:
        s = schema(n, op)
        if s and len(n.output) == s.max_output and s.max_output < 100:
            n.output.append(n.output[0] + "_extra_output")
            return True
    return False


def m_op_unknown(m, op):
    for n in m.graph.node:
        if n.domain in ("", "ai.onnx"):
            n.op_type = "NoSuchOperator"
            return True
    return False


def m_op_too_new(m, op):
    """Imports an opset just below the first version of one of the model's ops."""
    for n in m.graph.node:
        if n.domain not in ("", "ai.onnx"):
            continue
        try:
            first = min(s.since_version for s in onnx.defs.get_all_schemas_with_history()
                        if s.name == n.op_type and s.domain == "")
        except ValueError:
            continue
        if first > 1:
            for o in m.opset_import:
                if o.domain in ("", "ai.onnx"):
                    o.version = first - 1
            return True
    return False


def m_use_before_def(m, op):
    nodes = list(m.graph.node)
    produced = {o: i for i, n in enumerate(nodes) for o in n.output if o}
    for j, n in enumerate(nodes):
        if any(produced.get(x, j) < j for x in n.input):
            del m.graph.node[j]
            m.graph.node.insert(0, n)
            return True
    return False


def m_duplicate_output(m, op):
    nodes = list(m.graph.node)
    if len(nodes) < 2:
        return False
    first = next((o for o in nodes[0].output if o), None)
    for n in nodes[1:]:
        for k, o in enumerate(n.output):
            if o and first:
                n.output[k] = first
                return True
    return False


def m_duplicate_input(m, op):
    ins = [i.name for i in m.graph.input if i.name not in {t.name for t in m.graph.initializer}]
    if not ins:
        return False
    for n in m.graph.node:
        for k, o in enumerate(n.output):
            if o:
                n.output[k] = ins[0]
                return True
    return False


def _input_vi(m, name):
    for vi in m.graph.input:
        if vi.name == name and vi.type.HasField("tensor_type"):
            return vi
    return None


def m_type_constraint(m, op):
    inits = {t.name for t in m.graph.initializer}
    for n in m.graph.node:
        s = schema(n, op)
        if not s or not n.input:
            continue
        vi = _input_vi(m, n.input[0])
        if not vi or n.input[0] in inits or not s.inputs:
            continue
        f = s.inputs[0]
        allowed = next((c.allowed_type_strs for c in s.type_constraints if c.type_param_str == f.typeStr),
                       [f.typeStr])
        if "tensor(string)" not in allowed and vi.type.tensor_type.elem_type != TensorProto.STRING:
            vi.type.tensor_type.elem_type = TensorProto.STRING
            return True
    return False


# Ops whose signature in python3-onnx 1.12 differs from the spec's (see
# tests/py/test_schemas_crosscheck.py): a mutation built on 1.12's would not be one in ours.
SCHEMA_CHANGED = {"GridSample"}


def m_type_mismatch(m, op):
    inits = {t.name for t in m.graph.initializer}
    for n in m.graph.node:
        s = schema(n, op)
        if not s or n.op_type in SCHEMA_CHANGED or len(n.input) < 2 or len(s.inputs) < 2 or s.inputs[0].typeStr != s.inputs[1].typeStr:
            continue
        a, b = _input_vi(m, n.input[0]), _input_vi(m, n.input[1])
        if not a or not b or n.input[1] in inits or a.name == b.name:
            continue
        ta = a.type.tensor_type.elem_type
        allowed = next((c.allowed_type_strs for c in s.type_constraints if c.type_param_str == s.inputs[0].typeStr), [])
        other = TensorProto.DOUBLE if ta != TensorProto.DOUBLE else TensorProto.FLOAT
        if "tensor(double)" in allowed and "tensor(float)" in allowed and ta in (TensorProto.FLOAT, TensorProto.DOUBLE):
            b.type.tensor_type.elem_type = other
            return True
    return False


def m_outer_undefined(m, op):
    for _, g in subgraphs(m.graph):
        for n in g.node:
            if n.input:
                n.input[0] = "name_defined_nowhere"
                return True
    return False


def m_domain_undeclared(m, op):
    for n in m.graph.node:
        if n.domain in ("", "ai.onnx"):
            n.domain = "com.example.undeclared"
            return True
    return False


def m_not_lowered(m, op):
    for n in m.graph.node:
        if n.domain in ("", "ai.onnx"):
            n.domain = "aten"
            return True
    return False


def m_io_untyped(m, op):
    if not m.graph.input:
        return False
    m.graph.input[0].ClearField("type")
    return True


def m_graph_name(m, op):
    m.graph.name = ""
    return True


def m_ir_version(m, op):
    m.ir_version = 0
    return True


def m_opset_missing(m, op):
    del m.opset_import[:]
    return True


def m_output_undefined(m, op):
    if not m.graph.output:
        return False
    m.graph.output[0].name = "output_produced_by_nothing"
    return True


def _out_static(m):
    """The first graph output whose declared shape is fully static, with its producer."""
    producers = {o: n for n in m.graph.node for o in n.output}
    for o in m.graph.output:
        t = o.type.tensor_type
        if o.type.HasField("tensor_type") and t.HasField("shape") and len(t.shape.dim) > 0 and \
                all(d.HasField("dim_value") for d in t.shape.dim) and o.name in producers:
            return o, producers[o.name]
    return None, None


ELEMENTWISE = {"Abs", "Add", "Relu", "Sigmoid", "Tanh", "Mul", "Sub", "Div", "Neg", "Exp", "Log",
               "Sqrt", "Softmax", "LeakyRelu", "Elu", "Selu", "Floor", "Ceil", "Sin", "Cos",
               "Transpose", "Conv", "MaxPool", "AveragePool", "MatMul", "Gemm", "Concat",
               "Flatten", "Identity", "Reciprocal"}


def m_shape_mismatch(m, op):
    o, n = _out_static(m)
    if o is None or n.op_type not in ELEMENTWISE or len(m.graph.node) != 1:
        return False
    o.type.tensor_type.shape.dim[-1].dim_value += 1
    return True


def m_elem_mismatch(m, op):
    o, n = _out_static(m)
    if o is None or n.op_type not in ELEMENTWISE or len(m.graph.node) != 1:
        return False
    t = o.type.tensor_type
    if t.elem_type != TensorProto.FLOAT:
        return False
    t.elem_type = TensorProto.INT64
    return True


def m_impossible(m, op):
    """Two inputs of an Add-like node whose shapes can no longer broadcast."""
    if len(m.graph.node) != 1 or m.graph.node[0].op_type not in ("Add", "Sub", "Mul", "Div"):
        return False
    n = m.graph.node[0]
    a, b = _input_vi(m, n.input[0]), _input_vi(m, n.input[1])
    if not a or not b:
        return False
    da, db = a.type.tensor_type.shape.dim, b.type.tensor_type.shape.dim
    if not da or not db or not da[-1].HasField("dim_value") or da[-1].dim_value < 2:
        return False
    db[-1].dim_value = da[-1].dim_value + 1
    return True


def m_op_removed(m, op):
    if not any(n.op_type == "Upsample" for n in m.graph.node) or op >= 10:
        return False
    for o in m.opset_import:
        if o.domain in ("", "ai.onnx"):
            o.version = 10
    return True


def m_init_not_input(m, op):
    if m.ir_version > 3 or not m.graph.initializer:
        return False
    name = m.graph.initializer[0].name
    for i, vi in enumerate(m.graph.input):
        if vi.name == name:
            del m.graph.input[i]
            return True
    return False


def m_init_type(m, op):
    inits = {t.name: t for t in m.graph.initializer}
    for vi in m.graph.input:
        t = inits.get(vi.name)
        if t is not None and vi.type.HasField("tensor_type"):
            vi.type.tensor_type.elem_type = TensorProto.DOUBLE if t.data_type != TensorProto.DOUBLE else TensorProto.FLOAT
            return True
    return False


def m_subgraph_arity(m, op):
    for n in m.graph.node:
        for a in n.attribute:
            if n.op_type == "If" and a.name == "then_branch" and len(a.g.output) > 0:
                a.g.output.append(copy.deepcopy(a.g.output[0]))
                return True
            if n.op_type in ("Loop", "Scan") and a.name == "body" and len(a.g.input) > 0:
                del a.g.input[len(a.g.input) - 1]
                return True
    return False


# kind -> (function, expected code)
KINDS = [
    ("attr_type", m_attr_type, "OLG-CHECK-ATTR-TYPE"),
    ("attr_missing", m_attr_missing, "OLG-CHECK-ATTR-MISSING"),
    ("attr_unknown", m_attr_unknown, "OLG-CHECK-ATTR-UNKNOWN"),
    ("input_missing", m_input_missing, "OLG-CHECK-INPUT-MISSING"),
    ("input_count", m_input_count, "OLG-CHECK-INPUT-COUNT"),
    ("output_count", m_output_count, "OLG-CHECK-OUTPUT-COUNT"),
    ("op_unknown", m_op_unknown, "OLG-CHECK-OP-UNKNOWN"),
    ("op_too_new", m_op_too_new, "OLG-CHECK-OP-UNKNOWN"),
    ("op_removed", m_op_removed, "OLG-CHECK-OP-REMOVED"),
    ("use_before_def", m_use_before_def, "OLG-CHECK-NAME-ORDER"),
    ("duplicate_output", m_duplicate_output, "OLG-CHECK-NAME-DUPLICATE"),
    ("duplicate_input", m_duplicate_input, "OLG-CHECK-NAME-DUPLICATE"),
    ("type_constraint", m_type_constraint, "OLG-CHECK-TYPE-CONSTRAINT"),
    ("type_mismatch", m_type_mismatch, "OLG-CHECK-TYPE-MISMATCH"),
    ("outer_undefined", m_outer_undefined, "OLG-CHECK-OUTER-UNDEFINED"),
    ("domain_undeclared", m_domain_undeclared, "OLG-CHECK-DOMAIN-UNDECLARED"),
    ("not_lowered", m_not_lowered, "OLG-CHECK-NOT-LOWERED"),
    ("io_untyped", m_io_untyped, "OLG-CHECK-GRAPH-IO-TYPE"),
    ("graph_name", m_graph_name, "OLG-CHECK-GRAPH-NAME"),
    ("ir_version", m_ir_version, "OLG-CHECK-IR-VERSION"),
    ("opset_missing", m_opset_missing, "OLG-CHECK-OPSET-MISSING"),
    ("init_not_input", m_init_not_input, "OLG-CHECK-INIT-NOT-INPUT"),
    ("init_type", m_init_type, "OLG-CHECK-INIT-TYPE"),
    ("subgraph_arity", m_subgraph_arity, "OLG-CHECK-SUBGRAPH"),
    ("shape_mismatch", m_shape_mismatch, "OLG-INFER-MISMATCH"),
    ("elem_mismatch", m_elem_mismatch, "OLG-INFER-MISMATCH"),
    ("impossible", m_impossible, "OLG-INFER-INVALID"),
    ("output_undefined", m_output_undefined, "OLG-CHECK-NAME-UNDEFINED"),
]


def generate(outdir, per_kind=10):
    os.makedirs(outdir, exist_ok=True)
    sources = [(n, p, m) for n, p, m in models() if onnx_valid(m)]
    manifest = []
    for kind, fn, code in KINDS:
        made, ops_seen = 0, set()
        for name, path, src in sources:
            if made >= per_kind:
                break
            op = default_opset(src)
            if op is None:
                continue
            # variety: one model per first op type for the per-node kinds
            key = src.graph.node[0].op_type if src.graph.node else ""
            if key in ops_seen:
                continue
            m = copy.deepcopy(src)
            if not fn(m, op):
                continue
            ops_seen.add(key)
            fname = "%s__%s.onnx" % (kind, name)
            onnx.save(m, os.path.join(outdir, fname))
            manifest.append({"file": fname, "kind": kind, "code": code, "source": path,
                             "opset": default_opset(m) or 0,
                             "onnx_rejects": kind not in ONNX_LENIENT})
            made += 1
    with open(os.path.join(outdir, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=1)
    return manifest


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("outdir")
    ap.add_argument("--per-kind", type=int, default=10)
    args = ap.parse_args()
    man = generate(args.outdir, args.per_kind)
    kinds = {}
    for e in man:
        kinds[e["kind"]] = kinds.get(e["kind"], 0) + 1
    print("%d invalid models in %s" % (len(man), args.outdir))
    for k, _, _ in KINDS:
        print("  %-18s %d" % (k, kinds.get(k, 0)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
