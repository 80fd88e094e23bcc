"""onnxlegal.torch.export(..., export_modules_as_functions=...): the calls of the selected module
types become calls of model-local functions, kept with their bodies converted (issue 21 (e);
the rules: bindings/python/onnxlegal/_torch_functions.py, docs/python.md).

A model with two instances of one block class (Linear + GELU + LayerNorm; the second with
another eps) and a nested module (the blocks' Linear/GELU/LayerNorm, and a head Linear),
exported with True and with {Block} at 15, 17 and 18: the functions are there with torch's
names and domains, the main graph calls them, `onnxlegal check` passes, and ONNX Runtime
matches torch; at 13 the modules are inlined with a warning.
"""
import io
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
for p in ("bindings/python", "tests/ort"):
    sys.path.insert(0, os.path.join(ROOT, p))

torch = pytest.importorskip("torch")
import onnxlegal  # noqa: E402
import onnxlegal.torch  # noqa: E402

BUILD = os.environ.get("ONNXLEGAL_BUILD", os.path.join(ROOT, "build"))
TOOL = os.path.join(BUILD, "bin", "onnxlegal")


class Block(torch.nn.Module):
    def __init__(self, d, eps=1e-5):
        super().__init__()
        self.fc = torch.nn.Linear(d, d)
        self.act = torch.nn.GELU()
        self.ln = torch.nn.LayerNorm(d, eps=eps)

    def forward(self, x):
        return self.ln(self.act(self.fc(x)))


class Net(torch.nn.Module):
    def __init__(self, eps2=1e-3):
        super().__init__()
        self.b1 = Block(8)
        self.b2 = Block(8, eps=eps2)
        self.b3 = Block(8)
        self.head = torch.nn.Linear(8, 3)

    def forward(self, x):
        y = self.b2(self.b1(x)) + x
        return self.head(self.b3(y))


def _net():
    torch.manual_seed(0)
    net = Net().eval()
    with torch.no_grad():  # LayerNorm's affine not the identity, so that a mix-up shows
        for b in (net.b1, net.b2, net.b3):
            b.ln.weight.uniform_(0.5, 1.5)
            b.ln.bias.uniform_(-0.5, 0.5)
    return net


def _export(net, x, opset, spec, **kw):
    buf = io.BytesIO()
    rep = onnxlegal.torch.export(net, (x,), buf, opset_version=opset,
                                 export_modules_as_functions=spec,
                                 dynamic_axes={"input_0": {0: "batch"}}, **kw)
    return buf.getvalue(), rep


def _check(data):
    path = "/tmp/olg_torchfn_%d.onnx" % os.getpid()
    with open(path, "wb") as f:
        f.write(data)
    try:
        return subprocess.run([TOOL, "check", path], capture_output=True, text=True)
    finally:
        os.unlink(path)


def _calls(model):
    # a call node is named after the module path, then "/<function>" as the library names
    # what it lowers a source node into
    return [(n.domain, n.op, n.name.split("/")[0]) for n in model.graph.nodes if n.domain]


MOD = Block.__module__  # the domain: the class's Python module ("__main__" in a script)
CASES = [(opset, spec) for opset in (15, 17, 18) for spec in ("all", "block")]


def _spec(name):
    return True if name == "all" else {Block}


def test_functions_kept_named_as_torch_and_called_from_the_main_graph():
    net = _net()
    x = torch.randn(5, 8)
    for opset, spec in CASES:
        data, _ = _export(net, x, opset, _spec(spec))
        m = onnxlegal.Model.from_bytes(data)
        fns = set(m.functions)
        want = {(MOD, "Block"), (MOD, "Block__2")}
        if spec == "all":  # the head Linear too; the blocks' inner modules are in their bodies
            want.add(("torch.nn.modules.linear", "Linear"))
        assert fns == want, (opset, spec, fns)
        calls = _calls(m)
        assert (MOD, "Block", "b1") in calls, calls
        assert (MOD, "Block__2", "b2") in calls, calls  # another eps: another body
        assert (MOD, "Block", "b3") in calls, calls  # b1's body: the same function
        if spec == "all":
            assert ("torch.nn.modules.linear", "Linear", "head") in calls, calls
        assert m.opsets.get(MOD) == 1
        for (domain, name), body in m.functions.items():
            assert body.nodes and all(not n.domain for n in body.nodes), (name, body.nodes)
        r = _check(data)
        assert r.returncode == 0, (opset, spec, r.stdout + r.stderr)


def test_numbers_match_torch_in_onnx_runtime():
    from ortrun import run_batch
    net = _net()
    x = torch.randn(5, 8)
    x2 = torch.randn(7, 8)  # another batch size: the functions are not baked to one shape
    batch, want = [], []
    for opset, spec in CASES + [(13, "all")]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            data, _ = _export(net, x, opset, _spec(spec))
        for inp in (x, x2):
            batch.append((data, {"input_0": inp.numpy()}))
            with torch.no_grad():
                want.append(((opset, spec), net(inp).numpy()))
    results = run_batch(batch)
    for (case, ref), r in zip(want, results):
        assert not isinstance(r, str), "%s: %s" % (case, r)
        np.testing.assert_allclose(r["output"], ref, rtol=1e-5, atol=1e-5, err_msg=str(case))


def test_below_opset_15_the_modules_are_inlined_with_a_warning():
    net = _net()
    x = torch.randn(5, 8)
    for spec in ("all", "block"):
        with pytest.warns(UserWarning, match="IR version < 8.*inlined"):
            data, _ = _export(net, x, 13, _spec(spec))
        m = onnxlegal.Model.from_bytes(data)
        assert m.functions == {}
        assert _calls(m) == []


def test_false_and_an_empty_set_write_no_function():
    net = _net()
    x = torch.randn(5, 8)
    for spec in (False, set()):
        data, _ = _export(net, x, 17, spec)
        assert onnxlegal.Model.from_bytes(data).functions == {}


def test_the_root_type_in_the_set_makes_the_main_graph_one_call():
    net = _net()
    x = torch.randn(5, 8)
    data, _ = _export(net, x, 17, {Net})
    m = onnxlegal.Model.from_bytes(data)
    assert set(m.functions) == {(MOD, "Net")}
    assert _calls(m) == [(MOD, "Net", "model")]


def test_same_hyper_parameters_share_one_function():
    torch.manual_seed(0)
    net = Net(eps2=1e-5).eval()
    data, _ = _export(net, torch.randn(5, 8), 17, {Block})
    m = onnxlegal.Model.from_bytes(data)
    assert set(m.functions) == {(MOD, "Block")}
    assert [c[2] for c in _calls(m)] == ["b1", "b2", "b3"]


def test_a_bad_selection_is_refused_before_tracing():
    with pytest.raises(onnxlegal.torch.ExportError, match="nn.Module types"):
        _export(_net(), torch.randn(5, 8), 17, {"Block"})


class Attn(torch.nn.Module):
    """Multi-head attention whose views take run-time sizes (lists of values in the body)."""

    def __init__(self, d, h):
        super().__init__()
        self.qkv, self.o, self.h = torch.nn.Linear(d, 3 * d), torch.nn.Linear(d, d), h

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q, k, v = (z.view(b, t, self.h, d // self.h).transpose(1, 2) for z in (q, k, v))
        a = torch.softmax(q @ k.transpose(-1, -2) / (d // self.h) ** 0.5, -1) @ v
        return self.o(a.transpose(1, 2).reshape(b, t, d)), a.sum()


class AttnNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.act, self.b = Attn(8, 2), torch.nn.ReLU(), Attn(8, 4)

    def forward(self, x):
        y, s1 = self.a(x)
        y, s2 = self.a(self.act(y))  # one instance called twice: two calls
        y, s3 = self.b(self.act(y))  # 4 heads: the head count is a constant input of the call
        return y, s1 + s2 + s3


def test_a_module_called_twice_with_list_arguments_and_two_outputs():
    from ortrun import run_batch
    torch.manual_seed(0)
    net = AttnNet().eval()
    x, x2 = torch.randn(2, 5, 8), torch.randn(3, 7, 8)
    batch = []
    for opset in (15, 18):
        buf = io.BytesIO()
        onnxlegal.torch.export(net, (x,), buf, opset_version=opset, input_names=["x"],
                               export_modules_as_functions={Attn},
                               dynamic_axes={"x": {0: "B", 1: "T"}})
        m = onnxlegal.Model.from_bytes(buf.getvalue())
        assert set(m.functions) == {(MOD, "Attn")}
        assert [c[2] for c in _calls(m)] == ["a", "a#2", "b"]
        assert _check(buf.getvalue()).returncode == 0
        batch.append((buf.getvalue(), {"x": x2.numpy()}))
    with torch.no_grad():
        ref = net(x2)
    for r in run_batch(batch):
        assert not isinstance(r, str), r
        np.testing.assert_allclose(r["output_0"], ref[0].numpy(), rtol=1e-5, atol=1e-5)
        np.testing.assert_allclose(r["output_1"], ref[1].numpy(), rtol=1e-5, atol=1e-4)
