"""The torch part of `make demo` (tools/demo.py calls export_models): exports a few real PyTorch
models, including failures from the field reports in ../shared/seeds, at two opsets, checks each
file (python3-onnx's checker at opsets <= 17, and olg_check), runs them all in
ONNX Runtime in one batch, and prints model, opset, nodes, export time and the max abs
difference against PyTorch's own output."""
import os
import sys
import tempfile
import time
import warnings

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for sub in (("bindings", "python"), ("tests", "torch"), ("tests", "ort")):
    p = os.path.join(ROOT, *sub)
    if p not in sys.path:
        sys.path.insert(0, p)

DEMO_MODELS = ["resnet18", "mobilenet_v3_small", "lraspp_mobilenet_v3_large",
               "bilinear_5_to_9_align", "adaptive_avg_7x11_to_3x5", "index_assign",
               "grid_sample_bilinear_zeros", "dynamic_batch_cnn"]
DEMO_OPSETS = [9, 17]  # 9: torch.onnx.export's old default, where the seeds failed


def export_models(args=None, names=DEMO_MODELS, opsets=DEMO_OPSETS, out=sys.stdout):
    import numpy as np
    import torch
    import onnx
    import onnxlegal.torch as olt
    import olgcheck
    from onnxlegal._torch_trace import flatten
    from ortrun import run_batch
    import models

    warnings.simplefilter("ignore", torch.jit.TracerWarning)
    rows, batch, where = [], [], []
    failed = 0
    with tempfile.TemporaryDirectory(prefix="olg-demo-") as work:
        for name in names:
            case = models.BY_NAME[name]
            model, example = case.build()
            model.eval()
            input_sets = [example] + (case.more_inputs()[:1] if case.more_inputs else [])
            with torch.no_grad():
                wants = [[t.numpy() for t in flatten(models.call(model, i))[0]]
                         for i in input_sets]
            for opset in opsets:
                path = os.path.join(work, "%s.%d.onnx" % (name, opset))
                row = {"model": name, "opset": opset, "nodes": "-", "time": "-", "diff": "-",
                       "note": ""}
                rows.append(row)
                t = time.perf_counter()
                try:
                    rep = olt.export(model, example, path, opset_version=opset,
                                     **case.export_kwargs)
                    row["time"] = "%.3f s" % (time.perf_counter() - t)
                    row["nodes"] = rep.get("nodes", "-")
                    if opset <= 17:
                        onnx.checker.check_model(onnx.load(path), full_check=True)
                    if olgcheck.available():
                        olgcheck.olg_check(path)
                except olt.UnsupportedOpsError as e:
                    row["note"] = "not lowered: " + ", ".join(sorted(e.unsupported))
                    failed += 1
                    continue
                except Exception as e:  # noqa: BLE001 - shown in the table
                    row["note"] = ("%s: %s" % (type(e).__name__, e)).splitlines()[0][:90]
                    failed += 1
                    continue
                names_in = [i["name"] for i in rep["inputs"]]
                for k, inputs in enumerate(input_sets):
                    feed = dict(zip(names_in, (x.numpy() for x in flatten(tuple(inputs))[0])))
                    batch.append((path, feed))
                    where.append((row, wants[k], k, case))
        results = run_batch(batch) if batch else []
    for (row, want, k, case), got in zip(where, results):
        if isinstance(got, str):
            row["note"] = ("ONNX Runtime: " + got).splitlines()[0][:90]
            row["diff"] = "-"
            failed += 1
            continue
        d = max(float(np.abs(g.astype(np.float64) - w.astype(np.float64)).max()) if w.size else 0.0
                for g, w in zip(got.values(), want))
        prev = row["diff"]
        row["diff"] = "%.2g" % d if prev == "-" else "%s / %.2g" % (prev, d)
        if not all(g.shape == w.shape and np.allclose(g, w, atol=case.atol, rtol=case.rtol)
                   for g, w in zip(got.values(), want)):
            row["note"] = "MISMATCH against PyTorch"
            failed += 1
        elif k:
            row["note"] = "second value: at another size of its dynamic axes"
    w = max(len(r["model"]) for r in rows)
    print("\nPyTorch models exported by onnxlegal.torch.export, run in ONNX Runtime:", file=out)
    print("%-*s  %5s  %6s  %9s  %-17s  %s" % (w, "model", "opset", "nodes", "export", "max |diff|",
                                              ""), file=out)
    for r in rows:
        print("%-*s  %5d  %6s  %9s  %-17s  %s" % (w, r["model"], r["opset"], r["nodes"],
                                                  r["time"], r["diff"], r["note"]), file=out)
    ok = sum(1 for r in rows if r["diff"] != "-" and not r["note"].startswith(("MISMATCH",
                                                                              "ONNX Runtime")))
    print("%d of %d exports ran in ONNX Runtime and matched PyTorch" % (ok, len(rows)), file=out)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(export_models())
