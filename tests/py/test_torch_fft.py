"""torch.fft exported through onnxlegal.torch.export at 9, 13, 17 and 20 (the DFT decomposition
below 17, the DFT op from 17) and run in ONNX Runtime against torch; complex values carried as
real tensors with a last dim of 2; an op that receives a complex value otherwise is refused."""
import os
import sys
import tempfile

import numpy as np
import pytest

torch = pytest.importorskip("torch")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "ort"))
olt = pytest.importorskip("onnxlegal.torch", reason="the onnxlegal binding does not load")

OPSETS = [9, 13, 17, 20]


class F(torch.nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *a):
        return self.fn(*a)


def vr(z):
    return torch.view_as_real(z)


x8 = torch.randn(2, 3, 8)
x7 = torch.randn(2, 7)
xc = torch.randn(2, 6, 2)
x45 = torch.randn(2, 4, 5)
xs = torch.randn(2, 200)
MODELS = {
    "rfft_abs": (lambda x: torch.fft.rfft(x).abs(), (x8,)),
    "irfft_rfft": (lambda x: torch.fft.irfft(torch.fft.rfft(x)), (x8,)),
    "irfft_rfft_odd_n": (lambda x: torch.fft.irfft(torch.fft.rfft(x), n=7), (x7,)),
    "fft_view_as_complex": (lambda x: vr(torch.fft.fft(torch.view_as_complex(x))), (xc,)),
    "ifft_complex_ortho": (lambda x: vr(torch.fft.ifft(torch.view_as_complex(x), norm="ortho")), (xc,)),
    "fftn_2d": (lambda x: vr(torch.fft.fftn(x, dim=(-2, -1))), (x45,)),
    "rfftn_2d_forward": (lambda x: vr(torch.fft.rfftn(x, dim=(-2, -1), norm="forward")), (x45,)),
    "fft_n_short": (lambda x: vr(torch.fft.fft(x, n=5)), (x8,)),
    "fft_n_long_dim1": (lambda x: vr(torch.fft.fft(x, n=6, dim=1)), (x8,)),
    "real_imag": (lambda x: (torch.fft.fft(x).real, torch.fft.fft(x).imag * 2), (x7,)),
    "ifft2_of_fft2": (lambda x: vr(torch.fft.ifft2(torch.fft.fft2(x))), (x45,)),
    "irfftn_2d": (lambda x: torch.fft.irfftn(torch.fft.rfftn(x, dim=(-2, -1)), s=(4, 5), dim=(-2, -1)),
                  (x45,)),
    # torch.stft: its centre padding (reflect) a pad node, the window made in forward
    "stft_hann_abs": (lambda x: torch.stft(x, 32, hop_length=8, window=torch.hann_window(32),
                                           return_complex=True).abs(), (xs,)),
    "stft_short_window_normalized": (lambda x: vr(torch.stft(
        x, 16, hop_length=5, win_length=10, window=torch.blackman_window(10), normalized=True,
        return_complex=True)), (xs[0],)),
}


@pytest.fixture(scope="module")
def results():
    from ortrun import run_batch
    tmp = tempfile.TemporaryDirectory(prefix="olg-fft-")
    batch, where, wants = [], [], {}
    for name, (fn, args) in MODELS.items():
        with torch.no_grad():
            r = fn(*args)
        wants[name] = [t.numpy() for t in (r if isinstance(r, tuple) else (r,))]
        for o in OPSETS:
            path = os.path.join(tmp.name, "%s.%d.onnx" % (name, o))
            olt.export(F(fn), args, path, opset_version=o)
            batch.append((path, {"input_%d" % i: a.numpy() for i, a in enumerate(args)}))
            where.append((name, o))
    outs = run_batch(batch)
    yield {k: (wants[k[0]], v) for k, v in zip(where, outs)}
    tmp.cleanup()


@pytest.mark.parametrize("opset", OPSETS)
@pytest.mark.parametrize("name", sorted(MODELS))
def test_fft_matches_torch(results, name, opset):
    want, got = results[(name, opset)]
    if isinstance(got, dict):
        got = list(got.values())
    assert len(got) == len(want)
    for w, g in zip(want, got):
        g = np.asarray(g)
        assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, g.shape, w.dtype, w.shape)
        np.testing.assert_allclose(g, w, atol=1e-4, rtol=1e-3)


def test_op_on_complex_refused(tmp_path):
    m = F(lambda x: vr(torch.fft.fft(x) * 2))
    with pytest.raises(olt.ExportError, match=r"aten::mul receives a complex tensor"):
        olt.export(m, (x8,), str(tmp_path / "m.onnx"), opset_version=13)


def test_complex_output_refused(tmp_path):
    with pytest.raises(olt.ExportError, match=r"complex tensor.*view_as_real"):
        olt.export(F(lambda x: torch.fft.fft(x)), (x8,), str(tmp_path / "m.onnx"), opset_version=13)
