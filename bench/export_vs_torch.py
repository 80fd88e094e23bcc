#!/usr/bin/env python3
"""onnxlegal.torch.export against torch.onnx.export, side by side, on the same models.

    /usr/bin/python3 bench/export_vs_torch.py [--only transformer96,linear16,resnet50]
                                              [--json out.json] [--keep DIR]

Models:
  transformer96  nn.TransformerEncoder, 96 layers (d_model 64, 4 heads, feed-forward 128,
                 batch_first), input 2x16x64, opset 17
  linear16       16 x nn.Linear(4096, 4096, bias=False): 1 GiB of float32 weights, opset 17
  resnet50       torchvision ResNet-50 (random weights), input 1x3x224x224, opset 17
  resnet18, mobilenet_v3_small, efficientnet_b0
                 the zoo models of issue 11 (random weights), input 1x3x224x224, each
                 exporter with its defaults (torch 1.13: opset 14, do_constant_folding)

Each (model, exporter) runs in a fresh subprocess, so that neither exporter pays for the other's
memory or warm caches, after os.sync() (no dirty pages of an earlier write pending). In the child: the model and its input are built, then the resident set
is measured (VmRSS) just before the export call and the kernel's high-water mark is reset
(`5` written to /proc/self/clear_refs); after the call, VmHWM is the peak resident memory
during the export. Export time is the wall time of the whole call, tracing included. For
onnxlegal the report's stage times are printed too, and the write throughput (bytes written /
time of the write stage).

For every model the written graph's node and initializer counts are printed (the ONNX file read
back with onnx, when installed), with the BatchNormalization nodes left: issue 11 asks for no
more nodes and initializers than torch.onnx's export of the same model.

Targets (issue 5): transformer96 at least 20x faster than torch.onnx.export; linear16 peak
resident memory at most 1.2x the resident memory before the call, written at >= 1 GB/s.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ZOO = ["resnet18", "mobilenet_v3_small", "efficientnet_b0"]
MODELS = ["transformer96", "linear16", "resnet50"] + ZOO


def build(name):
    import torch
    import torch.nn as nn
    torch.manual_seed(0)
    if name == "transformer96":
        layer = nn.TransformerEncoderLayer(64, 4, 128, batch_first=True)
        return nn.TransformerEncoder(layer, 96).eval(), (torch.randn(2, 16, 64),)
    if name == "linear16":
        # the default init (kaiming_uniform_) runs 16 x 16M random draws; a plain fill is as
        # good for an export and keeps the set-up short
        with torch.no_grad():
            layers = []
            for i in range(16):
                lin = nn.Linear(4096, 4096, bias=False, device="meta")
                lin.weight = nn.Parameter(torch.empty(4096, 4096).uniform_(-1 / 64, 1 / 64))
                layers.append(lin)
        return nn.Sequential(*layers).eval(), (torch.randn(1, 4096),)
    if name == "resnet50" or name in ZOO:
        import torchvision
        return (getattr(torchvision.models, name)(weights=None).eval(),
                (torch.randn(1, 3, 224, 224),))
    raise SystemExit("unknown model %r" % name)


def _status(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    return None


def child(name, exporter, out):
    import warnings
    warnings.simplefilter("ignore")
    sys.path.insert(0, os.path.join(ROOT, "bindings", "python"))
    import torch
    model, args = build(name)
    if exporter == "onnxlegal":
        import onnxlegal.torch as olt
        olt.export  # imported before the measurement: module import is not export work
    rss_before = _status("VmRSS")
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        hwm_reset = True
    except OSError:
        hwm_reset = False
    report = {}
    t = time.perf_counter()
    # the zoo models with each exporter's defaults (the opset included), the rest at 17
    opset = {} if name in ZOO else {"opset_version": 17}
    if exporter == "torch":
        torch.onnx.export(model, args, out, **opset)
    else:
        olt.export(model, args, out, report=report, **opset)
    elapsed = time.perf_counter() - t
    peak = _status("VmHWM")
    res = {"model": name, "exporter": exporter, "seconds": elapsed, "rss_before": rss_before,
           "peak_rss": peak, "hwm_reset": hwm_reset, "bytes": os.path.getsize(out)}
    res.update(graph_counts(out))
    if report:
        res["stages"] = report.get("times", {})
        res["nodes"] = report.get("nodes")
        w = res["stages"].get("write")
        if w:
            res["write_GBps"] = res["bytes"] / w / 1e9
    print("RESULT " + json.dumps(res))


def graph_counts(path):
    """Nodes, initializers and BatchNormalization nodes of the written model (its tensors not
    loaded), or {} without the onnx package."""
    try:
        import onnx
    except ImportError:
        return {}
    g = onnx.load(path, load_external_data=False).graph
    return {"graph_nodes": len(g.node), "initializers": len(g.initializer),
            "batchnorms": sum(n.op_type == "BatchNormalization" for n in g.node)}


def run_child(name, exporter, work):
    out = os.path.join(work, "%s.%s.onnx" % (name, exporter))
    # Both exporters write a file: start each from the same state of the page cache, with no
    # dirty pages of the previous run still being written back (a 1 GiB write otherwise runs at
    # the disk's speed instead of memory's, whoever wrote before).
    os.sync()
    proc = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", name, exporter,
                           out], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT "):])
    return {"model": name, "exporter": exporter,
            "error": (proc.stderr.strip().splitlines() or ["exit %d" % proc.returncode])[-1]}


def disk_reference(work, nbytes=2 ** 30):
    """GB/s of a plain Python write of 1 GiB (64 MiB chunks) to the same directory, after the
    same sync: what the disk gives any writer here, for reading the exporters' write speed."""
    chunk = bytearray(64 * 2 ** 20)
    path = os.path.join(work, "disk-reference.bin")
    os.sync()
    t = time.perf_counter()
    with open(path, "wb") as f:
        for _ in range(nbytes // len(chunk)):
            f.write(chunk)
    seconds = time.perf_counter() - t
    os.remove(path)
    return nbytes / seconds / 1e9


def gib(n):
    return "%.2f GiB" % (n / 2 ** 30) if n is not None else "-"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--child", nargs=3, metavar=("MODEL", "EXPORTER", "OUT"), help=argparse.SUPPRESS)
    ap.add_argument("--only", help="comma-separated models (default: all)")
    ap.add_argument("--json", help="also write the results here")
    ap.add_argument("--keep", help="keep the exported files in this directory")
    ap.add_argument("--dir", help="write the exported files in this directory (default: a "
                    "temporary one under $TMPDIR; /dev/shm takes the disk out of the write time)")
    a = ap.parse_args()
    if a.child:
        return child(*a.child)
    names = a.only.split(",") if a.only else MODELS
    work_ctx = None
    if a.keep:
        os.makedirs(a.keep, exist_ok=True)
        work = a.keep
    else:
        work_ctx = tempfile.TemporaryDirectory(prefix="bench-export-", dir=a.dir)
        work = work_ctx.name
    results = []
    try:
        for name in names:
            row = {}
            for exporter in ("torch", "onnxlegal"):
                r = run_child(name, exporter, work)
                row[exporter] = r
                results.append(r)
                # the files are big (linear16: 1 GiB each); keep only what was asked for
                path = os.path.join(work, "%s.%s.onnx" % (name, exporter))
                if not a.keep and os.path.exists(path):
                    os.remove(path)
            if name == "linear16":
                row["disk"] = disk_reference(work)
            print_row(name, row)
    finally:
        if work_ctx is not None:
            work_ctx.cleanup()
    if a.json:
        with open(a.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0


def print_row(name, row):
    t, o = row["torch"], row["onnxlegal"]
    print("== %s" % name)
    for r in (t, o):
        if "error" in r:
            print("  %-10s FAILED: %s" % (r["exporter"], r["error"]))
            continue
        extra = ""
        if r.get("stages"):
            extra = "  stages: " + ", ".join("%s %.2fs" % (k, v) for k, v in r["stages"].items())
        if r.get("write_GBps"):
            extra += "  write %.2f GB/s" % r["write_GBps"]
        if "graph_nodes" in r:
            extra = "  nodes %d, initializers %d, BatchNormalization %d%s" % (
                r["graph_nodes"], r["initializers"], r["batchnorms"], extra)
        print("  %-10s %8.2f s   rss before %s   peak %s (%.2fx)   file %s%s"
              % (r["exporter"], r["seconds"], gib(r["rss_before"]), gib(r["peak_rss"]),
                 r["peak_rss"] / r["rss_before"], gib(r["bytes"]), extra))
    if row.get("disk"):
        print("  (a plain Python write of 1 GiB to the same directory: %.2f GB/s)" % row["disk"])
    if "error" not in t and "error" not in o:
        print("  ratio      %.1fx faster; peak/before %.2fx (torch %.2fx)"
              % (t["seconds"] / o["seconds"], o["peak_rss"] / o["rss_before"],
                 t["peak_rss"] / t["rss_before"]))
        if "graph_nodes" in t and "graph_nodes" in o:
            print("  graph      nodes %d vs torch's %d, initializers %d vs %d"
                  % (o["graph_nodes"], t["graph_nodes"], o["initializers"], t["initializers"]))
    sys.stdout.flush()


if __name__ == "__main__":
    sys.exit(main())
