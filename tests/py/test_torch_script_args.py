"""Scripted forwards with non-tensor parameters (issue 22 a): an int, float, bool, Optional[...]
parameter, with or without a default, takes the Python value passed in args (by position, or by
name in the trailing dict) or else its default, and that value is a constant of the export (no
graph input); tensors stay inputs in the forward's order. Each case is exported at opsets 11 and
17, checked by olg_check and run in ONNX Runtime (one batch) against the scripted module's own
output. A parameter with no default that is not passed is refused naming it."""
import os
import sys
import tempfile
import warnings
from typing import List, Optional

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

OPSETS = (11, 17)


class Repeat(torch.nn.Module):
    """The issue's case: an int with a default, used as a trip count and as a factor."""

    def forward(self, x, n: int = 3):
        y = x
        for _ in range(n):
            y = y * 1.5 + 1.0
        return y * float(n)


class Scale(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 4)

    def forward(self, x, scale: float):
        return self.lin(x) * scale


class Flag(torch.nn.Module):
    """A bool choosing a branch: the constant folds the If away."""

    def forward(self, x, relu: bool = False):
        if relu:
            return torch.relu(x) + 1.0
        return x * -2.0


class OptionalBias(torch.nn.Module):
    """Optional[Tensor] = None: None is a constant (the branch folds); a tensor is an input."""

    def forward(self, x, bias: Optional[torch.Tensor] = None, sizes: Optional[List[int]] = None):
        y = x * 2.0
        if bias is not None:
            y = y + bias
        if sizes is not None:
            y = y + float(sizes[0])
        return y


@torch.jit.script
def fn_int(x: torch.Tensor, k: int, y: torch.Tensor) -> torch.Tensor:
    return x * k + y


X = torch.arange(12, dtype=torch.float32).reshape(3, 4) / 7.0 - 0.8
B = torch.linspace(-1.0, 1.0, 4)


def _cases():
    torch.manual_seed(0)
    rep, sc, fl, ob = (torch.jit.script(m().eval()) for m in (Repeat, Scale, Flag, OptionalBias))
    # (name, model, args as given to export, feeds by input name, graph inputs expected)
    return [
        ("int_default", rep, (X,), {"input_0": X}),
        ("int_passed", rep, (X, 5), {"input_0": X}),
        ("int_keyword", rep, (X, {"n": 0}), {"input_0": X}),
        ("float", sc, (X, 0.25), {"input_0": X}),
        ("float_given_an_int", sc, (X, 2), {"input_0": X}),
        ("bool_default", fl, (X,), {"input_0": X}),
        ("bool_true", fl, (X, True), {"input_0": X}),
        ("optional_none", ob, (X,), {"input_0": X}),
        ("optional_tensor", ob, (X, B), {"input_0": X, "input_1": B}),
        ("optional_keyword", ob, (X, {"sizes": [3, 4], "bias": B}),
         {"input_0": X, "input_1_bias": B}),
        ("function_int", fn_int, (X, 4, B), {"input_0": X, "input_2": B}),
    ]


NAMES = [c[0] for c in _cases()]


class _Run:
    def __init__(self):
        self.results = None

    def run(self):
        if self.results is not None:
            return self.results
        from ortrun import run_batch
        self.tmp = tempfile.TemporaryDirectory(prefix="olg-torch-script-args-")
        batch, keys = [], []
        for name, model, args, feeds in _cases():
            a, kw = (args[:-1], args[-1]) if isinstance(args[-1], dict) else (args, {})
            with torch.no_grad():
                want = model(*a, **kw).numpy()
            for opset in OPSETS:
                path = os.path.join(self.tmp.name, "%s_%d.onnx" % (name, opset))
                rep = {}
                olt.export(model, args, path, opset_version=opset, report=rep)
                olg_check(path)
                batch.append((path, {k: v.numpy() for k, v in feeds.items()}))
                keys.append((name, opset, want, path))
        outs = run_batch(batch)
        self.results = {(k[0], k[1]): (k[2], k[3], o) for k, o in zip(keys, outs)}
        return self.results


RUN = _Run()


@pytest.mark.parametrize("opset", OPSETS)
@pytest.mark.parametrize("name", NAMES)
def test_matches_the_scripted_module(name, opset):
    want, path, out = RUN.run()[(name, opset)]
    assert not isinstance(out, str), "%s opset %d: %s" % (name, opset, out)
    got = list(out.values())
    assert len(got) == 1 and got[0].shape == want.shape
    np.testing.assert_allclose(got[0], want, rtol=1e-5, atol=1e-5)


def test_python_values_are_constants_not_inputs():
    """The graph's inputs are the tensors alone (a Python value is not fed), and the values
    differ between exports: the export of n=5 is not the export of the default n=3."""
    onnx = pytest.importorskip("onnx")
    res = RUN.run()
    for name, _, _, feeds in _cases():
        m = onnx.load(res[(name, 17)][1])
        assert [i.name for i in m.graph.input] == list(feeds), name
    w3, w5 = res[("int_default", 17)][0], res[("int_passed", 17)][0]
    assert not np.allclose(w3, w5)


def test_bool_flag_folds_the_branch():
    with tempfile.TemporaryDirectory() as d:
        for flag in (False, True):
            rep = {}
            olt.export(torch.jit.script(Flag()), (X, flag), os.path.join(d, "m.onnx"),
                       opset_version=13, report=rep)
            assert "If" not in rep["onnx_ops"], rep["onnx_ops"]
            assert ("Relu" in rep["onnx_ops"]) == flag


def test_missing_value_without_default_is_refused_naming_the_parameter():
    with tempfile.TemporaryDirectory() as d:
        with pytest.raises(olt.ExportError) as e:
            olt.export(torch.jit.script(Scale()), (X,), os.path.join(d, "m.onnx"),
                       opset_version=13)
        msg = str(e.value)
        assert "'scale' (float) has no default and was not passed" in msg
        with pytest.raises(olt.ExportError) as e:
            olt.export(torch.jit.script(Scale()), (X, {"factor": 2.0}),
                       os.path.join(d, "m.onnx"), opset_version=13)
        assert "no parameter named 'factor'" in str(e.value) and "scale" in str(e.value)
