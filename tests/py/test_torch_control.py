"""TorchScript control flow through onnxlegal.torch.export: scripted modules and functions with
data-dependent loops and branches (and the lists they build), and scripted code inside a traced
model, exported at opsets 11, 13 and 17, checked by olg_check, run in ONNX Runtime (one batch)
at two input sizes and compared with torch; constructs the front end does not build are refused
naming the construct, the Python line and the lowest opset where it would work."""
import os
import sys
import tempfile
import warnings
from typing import List

import numpy as np
import pytest

torch = pytest.importorskip("torch")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "bindings", "python"))
sys.path.insert(0, os.path.join(ROOT, "tests", "ort"))
sys.path.insert(0, os.path.join(ROOT, "tests", "torch"))

olt = pytest.importorskip("onnxlegal.torch", reason="the onnxlegal binding does not load")
from olgcheck import olg_check  # noqa: E402

warnings.filterwarnings("ignore", category=torch.jit.TracerWarning)

OPSETS = (11, 13, 17)


class LoopBranch(torch.nn.Module):
    """A loop over the rows (as many as the input has), a branch on each row's data, a list
    appended to once per iteration and concatenated after the loop, a carried tensor."""

    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)

    def forward(self, x):
        out: List[torch.Tensor] = []
        acc = torch.zeros_like(x[0])
        for i in range(x.size(0)):
            r = self.lin(x[i])
            if r.sum() > 0:
                acc = acc + r
            else:
                acc = acc - r * 2
            out.append(acc)
        return torch.cat(out, 0), acc


@torch.jit.script
def while_count(x: torch.Tensor, limit: float):
    """A while loop whose trip count depends on the data, an int counter carried, a branch
    returning a scalar, and torch.stack of a list built in the loop."""
    n = 0
    y = x
    steps: List[torch.Tensor] = []
    while bool(y.abs().max() < limit) and n < 50:
        y = y * 2.0
        steps.append(y.sum(0))
        n += 1
    if n > 3:
        k = n * 10
    else:
        k = n - 1
    return y, torch.stack(steps, 1), y.sum() * float(k) + float(n)


@torch.jit.script
def gate(x: torch.Tensor) -> torch.Tensor:
    if bool(x.mean() > 0):
        return torch.relu(x) + 1
    return x * -3.0


class Traced(torch.nn.Module):
    """A traced model calling a scripted function (as torchvision's detection models do): its
    branch stays a run-time If."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, x):
        return gate(self.conv(x)).sum(1)


class RowGate(torch.nn.Module):
    """Scripted: a loop over as many rows as x has (x.shape read in scripted code), a branch on
    each row's data, a parameter used in the loop."""

    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)

    def forward(self, x):
        for i in range(int(x.shape[0])):
            if bool(x[i].sum() > 0):
                x = self.lin(x)
            else:
                x = x * 2
        return x


class TracedWithScriptedChild(torch.nn.Module):
    """A traced model with a scripted submodule (torch.jit.script(...) as a child): its loop and
    branch stay run-time Loop and If, its weights are parameters of the export."""

    def __init__(self):
        super().__init__()
        self.pre = torch.nn.Linear(4, 4)
        self.gate = torch.jit.script(RowGate())
        self.post = torch.nn.Linear(4, 2)

    def forward(self, x):
        return self.post(self.gate(torch.relu(self.pre(x)) - 0.3))


def _cases():
    torch.manual_seed(0)
    lb = torch.jit.script(LoopBranch()).eval()
    tr = Traced().eval()
    return [
        ("loop_branch", lb, lambda n: (torch.randn(n, 4),), (3, 7), {"input_0": [0]}),
        ("while_count", while_count, lambda n: (torch.rand(2, n) * 0.1 + 0.01,
                                                 torch.tensor(0)), None, None),
        ("traced_scripted", tr, lambda n: ((torch.randn(1, 3, n, n) + (0.5 if n > 6 else -0.5)),),
         (5, 8), {"input_0": [2, 3]}),
        ("traced_scripted_child", TracedWithScriptedChild().eval(),
         lambda n: (torch.randn(n, 4),), (3, 6), {"input_0": [0]}),
    ]


class _Run:
    def __init__(self):
        self.done = False

    def run(self):
        if self.done:
            return self
        self.done = True
        from ortrun import run_batch
        self.tmp = tempfile.TemporaryDirectory(prefix="olg-torch-control-")
        self.results = {}
        batch, keys = [], []
        for name, model, make, sizes, dyn in _cases():
            if name == "while_count":
                # limit is a Python float of the scripted function: exported as an input
                fn = model
                args_at = [(torch.rand(2, 3) * 0.1 + 0.01, 5.0), (torch.rand(2, 6) * 0.01, 7.0)]

                class Wrap(torch.nn.Module):
                    def __init__(self, limit):
                        super().__init__()
                        self.limit = limit

                    def forward(self, x):
                        return fn(x, self.limit)
                for opset in OPSETS:
                    for k, (x, limit) in enumerate(args_at):
                        m = torch.jit.script(Wrap(limit))
                        path = os.path.join(self.tmp.name, "%s_%d_%d.onnx" % (name, opset, k))
                        olt.export(m, (x,), path, opset_version=opset,
                                   dynamic_axes={"input_0": [1]})
                        olg_check(path)
                        want = [t.numpy() for t in m(x)]
                        x2 = x[:, :2].contiguous()
                        want2 = [t.numpy() for t in m(x2)]
                        for xx, ww in ((x, want), (x2, want2)):
                            batch.append((path, {"input_0": xx.numpy()}))
                            keys.append((name, opset, k, ww))
                continue
            for opset in OPSETS:
                path = os.path.join(self.tmp.name, "%s_%d.onnx" % (name, opset))
                olt.export(model, make(sizes[0]), path, opset_version=opset, dynamic_axes=dyn)
                olg_check(path)
                for n in sizes:
                    args = make(n)
                    with torch.no_grad():
                        want = model(*args)
                    want = [want] if isinstance(want, torch.Tensor) else list(want)
                    batch.append((path, {"input_0": args[0].numpy()}))
                    keys.append((name, opset, n, [t.numpy() for t in want]))
        outs = run_batch(batch)
        for key, out in zip(keys, outs):
            self.results.setdefault(key[:2], []).append((key[2], key[3], out))
        return self


RUN = _Run()


@pytest.mark.parametrize("name", ["loop_branch", "while_count", "traced_scripted",
                                  "traced_scripted_child"])
@pytest.mark.parametrize("opset", OPSETS)
def test_matches_torch(name, opset):
    res = RUN.run().results[(name, opset)]
    assert len(res) >= 2
    for size, want, out in res:
        assert not isinstance(out, str), "%s opset %d size %s: %s" % (name, opset, size, out)
        got = list(out.values())
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert g.shape == w.shape, (name, opset, size, g.shape, w.shape)
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5)


def test_both_paths_taken():
    """The cases exercise both branches and more than one trip count, so that a trace of one
    path could not pass test_matches_torch."""
    torch.manual_seed(0)
    lin = torch.jit.script(LoopBranch()).eval().lin
    signs = set()
    for n in (3, 7):
        x = torch.randn(n, 4)
        signs |= {bool(lin(x[i]).sum() > 0) for i in range(n)}
    assert signs == {True, False}


def test_scripted_if_becomes_onnx_if():
    m = Traced().eval()
    rep = {}
    with tempfile.TemporaryDirectory() as d:
        olt.export(m, (torch.randn(1, 3, 5, 5),), os.path.join(d, "m.onnx"), opset_version=13,
                   report=rep)
    assert rep["onnx_ops"].get("If") == 1


class OuterListInBranch(torch.nn.Module):
    def forward(self, x):
        acc: List[torch.Tensor] = [x]
        if bool(x.sum() > 0):
            acc.append(x * 2)
        return torch.cat(acc, 0)


class ListThroughLoop(torch.nn.Module):
    """A list with a first item, grown in a loop on some iterations only (a branch), read inside
    the loop (out[-1]) and after it (cat, stack, len): an ONNX sequence carried by Loop and If."""

    def forward(self, x):
        out: List[torch.Tensor] = [x[0]]
        for i in range(x.size(0)):
            if bool(x[i].sum() > 0):
                out.append(x[i] * 2)
            out.append(out[-1] + 1)
        return torch.cat(out, 0), torch.stack(out, 1), len(out)


class EmptyListInBranchOfLoop(torch.nn.Module):
    """An empty list appended to only in a branch of a loop: its element type comes from the
    appends, and the sequence starts empty."""

    def forward(self, x):
        out: List[torch.Tensor] = []
        for i in range(x.size(0)):
            if bool(x[i].sum() > 0):
                out.append(x[i] * 3)
        out.append(x[0])
        return torch.stack(out, 0)


class NestedLoopsAndIteration(torch.nn.Module):
    """A list grown in a branch of a loop inside a loop, then iterated by a third loop (len and
    [i] of the sequence at run time). Its inference once left a sequence type pointing into a
    value array that later moved (a crash when writing)."""

    def forward(self, x):
        out: List[torch.Tensor] = [x[0]]
        for i in range(x.size(0)):
            for j in range(2):
                if bool(x[i, j] > 0):
                    out.append(x[i] * float(j + 1))
        acc = torch.zeros_like(x[0])
        for t in out:
            acc = acc + t
        return acc, torch.stack(out, 0).sum(0)


SEQ_CASES = {"branch": OuterListInBranch, "loop": ListThroughLoop,
             "empty": EmptyListInBranchOfLoop, "nested": NestedLoopsAndIteration}


class ReturnsGrownList(torch.nn.Module):
    def forward(self, x):
        out: List[torch.Tensor] = [x[0]]
        for i in range(x.size(0)):
            out.append(x[i] + 1)
        return out


def test_returning_a_grown_list_is_refused():
    """Its length is known only at run time: refused, never a model returning its first items."""
    m = torch.jit.script(ReturnsGrownList())
    with tempfile.TemporaryDirectory() as d:
        with pytest.raises(olt.ExportError) as e:
            olt.export(m, (torch.randn(3, 2),), os.path.join(d, "m.onnx"), opset_version=13)
    assert "grows inside scripted control flow is returned" in str(e.value)


@pytest.mark.parametrize("name", sorted(SEQ_CASES))
@pytest.mark.parametrize("opset", (13, 17))
def test_list_grown_in_control_flow_matches_torch(name, opset):
    """Lists that grow inside scripted loops and branches are ONNX sequences; both paths of
    every branch and more than one trip count are run."""
    from ortrun import run_batch
    torch.manual_seed(1)
    m = torch.jit.script(SEQ_CASES[name]())
    xs = [torch.randn(4, 3) + 0.3, torch.randn(7, 3) - 0.3, -torch.ones(2, 3)]
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "m.onnx")
        olt.export(m, (xs[0],), path, opset_version=opset, dynamic_axes={"input_0": [0]})
        olg_check(path)
        outs = run_batch([(path, {"input_0": x.numpy()}) for x in xs])
    for x, out in zip(xs, outs):
        assert not isinstance(out, str), out
        want = m(x)
        want = list(want) if isinstance(want, tuple) else [want]
        got = list(out.values())
        assert len(got) == len(want)
        for g, w in zip(got, want):
            w = np.asarray(w)
            assert g.shape == w.shape, (name, x.shape, g.shape, w.shape)
            np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-6)


def test_list_grown_in_control_flow_names_opset_13():
    """Below 13 If and Loop carry no sequences: the refusal names the node and opset 13."""
    m = torch.jit.script(OuterListInBranch())
    with tempfile.TemporaryDirectory() as d:
        with pytest.raises(olt.ExportError) as e:
            olt.export(m, (torch.randn(2, 3),), os.path.join(d, "m.onnx"), opset_version=11)
    msg = str(e.value)
    assert "If with a sequence as output" in msg and "lowest opset that works: 13" in msg, msg


class ListOfIntsInLoop(torch.nn.Module):
    def forward(self, x):
        sizes: List[int] = []
        for i in range(x.size(0)):
            sizes.append(i)
        return x.sum() + len(sizes)


def test_refusal_names_construct_line_and_opset():
    m = torch.jit.script(ListOfIntsInLoop())
    with tempfile.TemporaryDirectory() as d:
        with pytest.raises((olt.ExportError, olt.TorchExportError)) as e:
            olt.export(m, (torch.randn(2, 3),), os.path.join(d, "m.onnx"), opset_version=17)
    msg = str(e.value)
    assert "a list of int that grows inside a loop or branch" in msg, msg
    assert "for i in range(x.size(0))" in msg and "test_torch_control.py" in msg


# ----------------------------------------------------------------------------------------------
# torchvision's detection models (random weights): traced, with their scripted parts (batched
# NMS's empty-input branch, ...) as run-time control flow; torchvision::nms and roi_align lowered
# to NonMaxSuppression and RoiAlign. Traced once per model, legalized at each opset; run at the
# traced size and at two others (the transform resizes every image to the model's own size).

DETECTION = ["fasterrcnn_mobilenet_v3_large_320_fpn"]


class _Detect:
    def __init__(self):
        self.results = {}

    def run(self, name):
        if name in self.results:
            return self.results[name]
        import torchvision
        from ortrun import run_batch
        from onnxlegal._torch_trace import flatten
        torch.manual_seed(0)
        kw = dict(weights=None, weights_backbone=None, num_classes=3)
        if name.startswith("keypoint"):
            kw["num_keypoints"] = 5
        model = getattr(torchvision.models.detection, name)(**kw).eval()
        images = [torch.rand(3, 80, 100), torch.rand(3, 120, 90)]
        wants = []
        for img in images:
            with torch.no_grad():
                want, names = flatten(model([img]))
            wants.append((names, [t.numpy() for t in want]))
        # the one tensor of a list: input_0_0 (input_<k>_<j>, as the other nested inputs)
        sg = olt.trace(model, ([images[0]],), dynamic_axes={"input_0_0": [1, 2]})
        src = olt.to_source_model(sg)
        tmp = tempfile.TemporaryDirectory(prefix="olg-torch-detect-")
        batch, keys = [], []
        for opset in OPSETS:
            path = os.path.join(tmp.name, "%s_%d.onnx" % (name, opset))
            olt.export_traced(sg, path, opset_version=opset, source_model=src)
            for img, (names, want) in zip(images, wants):
                batch.append((path, {"input_0_0": img.numpy()}))
                keys.append((opset, tuple(img.shape), names, want))
        outs = run_batch(batch)
        res = {}
        for key, out in zip(keys, outs):
            res.setdefault(key[0], []).append((key[1], key[2], key[3], out))
        self.results[name] = (res, tmp, sg)
        return self.results[name]


DETECT = _Detect()


@pytest.mark.parametrize("name", DETECTION)
@pytest.mark.parametrize("opset", OPSETS)
def test_detection_matches_torch(name, opset):
    res, _, sg = DETECT.run(name)
    assert any(n.op == "If" for n in _all_nodes(sg.nodes)), "no run-time control flow left"
    for shape, names, want, out in res[opset]:
        assert not isinstance(out, str), "%s opset %d %s: %s" % (name, opset, shape, out)
        got = list(out.values())
        assert [k.split("_")[-1] for k in out] == [n.split("_")[-1] for n in names]
        assert want[0].shape[0] > 0, "no detections: the comparison would be empty"
        for g, w, n in zip(got, want, names):
            assert g.shape == w.shape, (name, opset, shape, n, g.shape, w.shape)
            if n.endswith("labels"):
                np.testing.assert_array_equal(g, w)
            else:
                np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-4)


def _all_nodes(nodes):
    from onnxlegal._torch_script import iter_nodes
    return list(iter_nodes(nodes))


def test_scripted_child_weights_are_parameters():
    """The scripted submodule's weights reach the export as the model's named parameters (the
    trace maps them to its parameter inputs), not as anonymous constants, and the submodule is
    restored in the model after the export."""
    onnx = pytest.importorskip("onnx")
    m = TracedWithScriptedChild().eval()
    child = m.gate
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "m.onnx")
        olt.export(m, (torch.randn(3, 4),), path, opset_version=13)
        names = {t.name for t in onnx.load(path).graph.initializer}
    assert {"gate.lin.weight", "gate.lin.bias", "pre.weight", "post.weight"} <= names, names
    assert m.gate is child
