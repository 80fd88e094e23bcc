#!/usr/bin/env python3
"""Which source ops the torch model zoo needs, and which of them the library's registry lowers at
each test opset: the list of what is missing, with the models waiting for each op.

    /usr/bin/python3 tests/torch/coverage.py [--markdown]
"""
import argparse
import os
import sys
import warnings

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bindings", "python"))
sys.path.insert(0, os.path.join(ROOT, "tests", "torch"))


def zoo_ops():
    """{"aten::op": {model name: node count}} over every model of the zoo."""
    import torch
    import models
    from onnxlegal._torch_trace import build_source_graph
    warnings.simplefilter("ignore", torch.jit.TracerWarning)
    need = {}
    for case in models.ALL_CASES:
        model, args = case.build()
        sg = build_source_graph(model, args, **case.export_kwargs)
        for key, scopes in sg.ops().items():
            need.setdefault(key, {})[case.name] = len(scopes)
    return need


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--markdown", action="store_true")
    a = ap.parse_args()
    import models
    from onnxlegal.lowering import default_registry
    reg = default_registry()
    need = zoo_ops()
    rows = []
    for key in sorted(need):
        domain, op = key.split("::", 1)
        kinds = [reg.lowering(domain, op, o) for o in models.OPSETS]
        if all(kinds):
            continue
        where = ", ".join(sorted(need[key]))
        missing = [str(o) for o, k in zip(models.OPSETS, kinds) if not k]
        rows.append((key, "all" if len(missing) == len(kinds) else " ".join(missing),
                     len(need[key]), where))
    blocked = {}
    for key, _, _, _ in rows:
        for name in need[key]:
            blocked.setdefault(name, []).append(key)
    if a.markdown:
        print("| op | missing at opsets | models | which |\n|---|---|---|---|")
        for r in rows:
            print("| %s | %s | %d | %s |" % r)
    else:
        for r in rows:
            print("%-34s missing at %-18s %2d model(s): %s" % r)
    ready = [c.name for c in models.ALL_CASES if c.name not in blocked]
    print("\n%d of %d source ops the zoo uses lower at every test opset; %d of %d models have "
          "every op: %s" % (len(need) - len(rows), len(need), len(ready), len(models.ALL_CASES),
                            ", ".join(ready) or "-"))


if __name__ == "__main__":
    main()
