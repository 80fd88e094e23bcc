"""aten::scatter_reduce (sum, prod, mean, amax, amin; include_self True and False) and
scatter/scatter_add exported through onnxlegal.torch.export at 7 to 18 and run in ONNX Runtime
against torch: ScatterElements' own reduction where the target has it (add/mul 16, max/min 18),
else the row scatter of static shapes (symbolics/scatter.c). Indices repeat, so every reduction
meets duplicates. Below 9 the multiplying, max and min reductions pick by a Gather (Where's
stand-in for static shapes); one too large for it is refused naming 9."""
import os
import sys
import tempfile

import numpy as np
import pytest

torch = pytest.importorskip("torch")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "ort"))
olt = pytest.importorskip("onnxlegal.torch", reason="the onnxlegal binding does not load")
import onnxlegal  # noqa: E402

OPSETS = [7, 9, 11, 13, 16, 17, 18]


class F(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *a):
        return self.fn(*a)


g = torch.Generator().manual_seed(0)
data = torch.randn(4, 5, generator=g)
src = torch.randn(3, 5, generator=g)
idx0 = torch.tensor([[1, 0, 3, 1, 2], [1, 1, 3, 0, 2], [0, 1, 1, 0, 2]])  # along dim 0
idx1 = torch.tensor([[4, 4, 0], [1, 1, 1], [2, 0, 2], [3, 3, 4]])          # along dim 1
idata = torch.randint(-20, 20, (4, 5), generator=g)
isrc = torch.randint(-20, 20, (3, 5), generator=g)

MODELS = {}
for red in ("sum", "prod", "mean", "amax", "amin"):
    for inc in (True, False):
        key = "%s_%s" % (red, "self" if inc else "noself")
        MODELS[key + "_dim0"] = (
            lambda x, s, r=red, i=inc: x.scatter_reduce(0, idx0, s, r, include_self=i), (data, src))
        MODELS[key + "_dim1_src_larger"] = (
            lambda x, s, r=red, i=inc: x.scatter_reduce(-1, idx1, s, r, include_self=i),
            (data, torch.randn(4, 4, generator=g)))
    MODELS[red + "_int64"] = (
        lambda x, s, r=red: x.scatter_reduce(0, idx0, s, r, include_self=False), (idata, isrc))
MODELS["scatter_add_dim1"] = (lambda x, s: x.scatter_add(1, idx1, s), (data, torch.randn(4, 3, generator=g)))
MODELS["scatter_multiply"] = (lambda x, s: x.scatter(0, idx0, s, reduce="multiply"), (data, src))



@pytest.fixture(scope="module")
def results():
    from ortrun import run_batch
    tmp = tempfile.TemporaryDirectory(prefix="olg-scatter-")
    batch, where, wants, refused = [], [], {}, {}
    for name, (fn, args) in MODELS.items():
        with torch.no_grad():
            wants[name] = fn(*args).numpy()
        for o in OPSETS:
            path = os.path.join(tmp.name, "%s.%d.onnx" % (name, o))
            try:
                olt.export(F(fn), args, path, opset_version=o)
            except (olt.ExportError, onnxlegal.Error) as e:
                refused[(name, o)] = str(e)
                continue
            batch.append((path, {"input_%d" % i: a.numpy() for i, a in enumerate(args)}))
            where.append((name, o))
    outs = run_batch(batch)
    yield wants, dict(zip(where, outs)), refused
    tmp.cleanup()


@pytest.mark.parametrize("opset", OPSETS)
@pytest.mark.parametrize("name", sorted(MODELS))
def test_scatter_reduce_matches_torch(results, name, opset):
    wants, got, refused = results
    assert (name, opset) not in refused, refused.get((name, opset))
    out = got[(name, opset)]
    assert not isinstance(out, Exception), out
    out = np.asarray(list(out.values())[0] if isinstance(out, dict) else out[0])
    want = wants[name]
    assert out.dtype == want.dtype and out.shape == want.shape, (out.dtype, out.shape)
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-5)


def test_reduction_too_large_for_the_pick_below_9_is_refused_naming_9(tmp_path):
    # [P, N] = [4096, 64] mask pairs: past the 2^16 elements of Where's stand-in below 9
    x, s = torch.zeros(4096), torch.randn(64)
    idx = torch.arange(64) * 7
    with pytest.raises((olt.ExportError, onnxlegal.Error), match=r"needs opset >= 9"):
        olt.export(F(lambda a, b: a.scatter_reduce(0, idx, b, "amax")), (x, s),
                   str(tmp_path / "m.onnx"), opset_version=8)
