"""onnxlegal.torch.export end to end: every model of tests/torch/models.py (the failures of
../shared/seeds/ and torchvision classification and segmentation models) exported at opsets
9, 11, 13, 17, 18, 20 and 23 (the seed failures at every opset from 9 to 23), checked by python3-onnx's checker (opsets <= 17) and by olg_check,
run in ONNX Runtime (one batch for the whole module), and compared with the model's own outputs;
models with dynamic axes also at other sizes of those axes.

Each model is traced and walked once; the source model is legalized once per opset.

A (model, opset) pair is skipped, with the reason, only when the library's lowering does not
handle an op of the model there (no symbolic registered yet, or the symbolic refuses the node);
every other failure fails: a walker or writer error, a checker error, an ONNX Runtime error, or
outputs that differ. Where a model cannot be expressed at an opset at all (Case.refused_below),
the test requires the export to refuse and to name the lowest opset that works."""
import os
import sys
import tempfile
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("torchvision")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bindings", "python"))
sys.path.insert(0, os.path.join(ROOT, "tests", "torch"))
sys.path.insert(0, os.path.join(ROOT, "tests", "ort"))

import models  # noqa: E402

olt = pytest.importorskip("onnxlegal.torch", reason="the onnxlegal binding does not load")
from onnxlegal._torch_trace import flatten  # noqa: E402
from olgcheck import olg_check  # noqa: E402

warnings.filterwarnings("ignore", category=torch.jit.TracerWarning)

try:
    olt._lowering()
    LOWERING = None
except olt.ExportError as e:
    LOWERING = str(e)

pytestmark = pytest.mark.skipif(LOWERING is not None, reason=str(LOWERING))

OPSETS = models.OPSETS
CASES = [(c, o) for c in models.ALL_CASES for o in models.opsets_for(c)]


def _np(t):
    return t.detach().numpy()


class Run:
    """Everything the module exports and runs, done once, on first use."""

    def __init__(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="olg-torch-export-")
        self.results = {}   # (case, opset) -> dict(status, ...)
        self.done = False

    def go(self):
        if self.done:
            return
        self.done = True
        import onnx
        from ortrun import run_batch
        batch, where = [], []
        for case in models.ALL_CASES:
            model, args = case.build()
            model.eval()
            try:
                sg = olt.trace(model, args, **case.export_kwargs)
                src = olt.to_source_model(sg)
            except Exception as e:  # noqa: BLE001 - reported per test
                for o in models.opsets_for(case):
                    self.results[(case.name, o)] = {"status": "error",
                                                    "error": "trace: %s: %s" % (type(e).__name__, e)}
                continue
            input_sets = [args] + (case.more_inputs() if case.more_inputs else [])
            wants = []
            with torch.no_grad():
                for inputs in input_sets:
                    wants.append([_np(t) for t in flatten(models.call(model, inputs))[0]])
            feeds = [{si.name: _np(t) for si, t in zip(sg.inputs, flatten(tuple(inputs))[0])}
                     for inputs in input_sets]
            for o in models.opsets_for(case):
                path = os.path.join(self.tmp.name, "%s.%d.onnx" % (case.name, o))
                rec = {"path": path, "wants": wants, "names": [n for _, n in sg.outputs]}
                self.results[(case.name, o)] = rec
                try:
                    rep = olt.export_traced(sg, path, opset_version=o, source_model=src)
                    rec["report"] = rep
                except olt.UnsupportedOpsError as e:
                    rec.update(status="unsupported", error=str(e), unsupported=e.unsupported)
                    continue
                except Exception as e:  # noqa: BLE001 - reported per test
                    rec.update(status="error", error="export: %s: %s" % (type(e).__name__, e))
                    continue
                try:
                    if o <= 17:
                        onnx.checker.check_model(onnx.load(path), full_check=True)
                    olg_check(path)
                except Exception as e:  # noqa: BLE001
                    rec.update(status="error", error="check: %s: %s" % (type(e).__name__, e))
                    continue
                rec["status"] = "exported"
                for k, feed in enumerate(feeds):
                    batch.append((path, feed))
                    where.append((case.name, o, k))
            del src
        outs = run_batch(batch) if batch else []
        for (name, o, k), out in zip(where, outs):
            self.results[(name, o)].setdefault("ort", {})[k] = out


RUN = Run()


@pytest.fixture(scope="module")
def run():
    RUN.go()
    yield RUN


def _skip_reason(rec, opset):
    refused = {k: v for k, v in rec["unsupported"].items() if v.get("messages")}
    if refused:  # the symbolics exist and refused these nodes' arguments
        return "the lowering refused: " + " | ".join(
            v["messages"][0] + (" (and %d more node(s))" % (len(v["messages"]) - 1)
                                if len(v["messages"]) > 1 else "")
            for v in refused.values())
    never = [k for k, v in rec["unsupported"].items() if v["min_opset"] is None]
    later = {k: v["min_opset"] for k, v in rec["unsupported"].items() if v["min_opset"] is not None}
    parts = []
    if never:
        parts.append("no symbolic at any opset yet for " + ", ".join(sorted(never)))
    if later:
        parts.append("at opset %d the registry has no lowering for %s" % (
            opset, ", ".join("%s (lowest: %d)" % kv for kv in sorted(later.items()))))
    return "; ".join(parts)


@pytest.mark.parametrize("case,opset", CASES, ids=["%s-%d" % (c.name, o) for c, o in CASES])
def test_export_matches_pytorch(run, case, opset):
    rec = run.results[(case.name, opset)]
    if case.refused_below and opset < case.refused_below[0]:
        # not expressible at this opset: the export must refuse, naming the op and the opset
        assert rec["status"] == "unsupported", rec.get("error")
        min_opset, op = case.refused_below
        assert rec["unsupported"][op]["min_opset"] == min_opset, rec["error"]
        assert "needs opset >= %d" % min_opset in rec["error"]
        assert not os.path.exists(rec["path"])
        return
    if rec["status"] == "unsupported":
        # the export refused before writing, naming every op and node: the lowering lacks them
        assert not os.path.exists(rec["path"])
        pytest.skip(_skip_reason(rec, opset))
    assert rec["status"] == "exported", rec.get("error")
    for k, want in enumerate(rec["wants"]):
        got = rec["ort"][k]
        assert not isinstance(got, str), "ONNX Runtime, input set %d: %s" % (k, got)
        got = list(got.values())
        assert len(got) == len(want)
        for name, g, w in zip(rec["names"], got, want):
            assert g.shape == w.shape, "%s: shape %s, PyTorch %s (input set %d)" % (
                name, g.shape, w.shape, k)
            if w.dtype.kind in "biu":
                assert g.dtype.kind == w.dtype.kind and np.array_equal(g, w), name
            else:
                np.testing.assert_allclose(g, w, atol=case.atol, rtol=case.rtol,
                                           err_msg="%s (input set %d)" % (name, k))


def test_dynamic_axes_stay_symbolic_in_the_file(run):
    import onnx
    rec = run.results[("dynamic_batch_cnn", 17)]
    if rec["status"] != "exported":
        pytest.skip("dynamic_batch_cnn did not export at 17: %s" % rec.get("error"))
    m = onnx.load(rec["path"])
    dim = m.graph.input[0].type.tensor_type.shape.dim[0]
    assert dim.dim_param == "input_1_dynamic_axes_1"
    assert m.graph.input[0].name == "input_1" and m.graph.output[0].name == "output_1"
    assert m.graph.output[0].type.tensor_type.shape.dim[0].dim_param == "output_1_dynamic_axes_1"


def test_summary(run, capsys):
    """Prints how many (model, opset) pairs export and match, for the log."""
    counts = {}
    for (name, o), rec in run.results.items():
        counts[rec.get("status", "?")] = counts.get(rec.get("status", "?"), 0) + 1
    with capsys.disabled():
        print("\ntorch export: %s" % ", ".join("%d %s" % (v, k) for k, v in sorted(counts.items())))
