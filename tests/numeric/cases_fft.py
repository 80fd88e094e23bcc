"""torch.fft (symbolics/signal.c through olg__emit_dft): MatMuls below 17, the DFT op from 17.
A one-op case has real inputs; the complex result is compared in its carried form, a real
tensor with a last dim of 2 (torch.view_as_real). Complex inputs: tests/py/test_torch_fft.py."""
import numpy as np
import torch

from harness import Case, Init

r = np.random.RandomState(29)
x = r.randn(2, 3, 8).astype(np.float32)
y = r.randn(3, 4, 5).astype(np.float32)
d = r.randn(2, 6).astype(np.float64)
vr = torch.view_as_real
sig = r.randn(2, 70).astype(np.float32)
hann16 = torch.hann_window(16).numpy()
hann8 = torch.hann_window(8).numpy()
F = torch.fft

CASES = [
    Case("fft_fft", [x, None, -1, None], lambda a, n, dm, nm: vr(F.fft(a))),
    Case("fft_fft", [x, 5, 1, "ortho"], lambda a, n, dm, nm: vr(F.fft(a, n, dm, nm))),
    Case("fft_fft", [d, 9, -1, "forward"], lambda a, n, dm, nm: vr(F.fft(a, n, dm, nm))),
    Case("fft_ifft", [x, None, -1, None], lambda a, n, dm, nm: vr(F.ifft(a).resolve_conj())),
    Case("fft_ifft", [x, 10, 2, "forward"], lambda a, n, dm, nm: vr(F.ifft(a, n, dm, nm).resolve_conj())),
    Case("fft_rfft", [x, None, -1, None], lambda a, n, dm, nm: vr(F.rfft(a))),
    Case("fft_rfft", [x, 7, 1, "ortho"], lambda a, n, dm, nm: vr(F.rfft(a, n, dm, nm))),
    Case("fft_irfft", [x, None, -1, None], lambda a, n, dm, nm: F.irfft(a)),
    Case("fft_irfft", [x, 9, 2, "ortho"], lambda a, n, dm, nm: F.irfft(a, n, dm, nm)),
    Case("fft_fftn", [y, None, [-2, -1], None], lambda a, s, dm, nm: vr(F.fftn(a, s, dm, nm))),
    Case("fft_fftn", [y, [4, 3], None, "forward"], lambda a, s, dm, nm: vr(F.fftn(a, s, dm, nm))),
    Case("fft_ifftn", [y, None, [0, 2], "ortho"], lambda a, s, dm, nm: vr(F.ifftn(a, s, dm, nm))),
    Case("fft_rfftn", [y, None, [-2, -1], None], lambda a, s, dm, nm: vr(F.rfftn(a, s, dm, nm))),
    Case("fft_rfftn", [y, [2, 6], [0, 1], "ortho"], lambda a, s, dm, nm: vr(F.rfftn(a, s, dm, nm))),
    Case("fft_irfftn", [y, None, [-2, -1], None], lambda a, s, dm, nm: F.irfftn(a, s, dm, nm)),
    Case("fft_fft2", [y, None, [-2, -1], None], lambda a, s, dm, nm: vr(F.fft2(a, s, dm, nm))),
    Case("fft_ifft2", [y, None, [-2, -1], "forward"], lambda a, s, dm, nm: vr(F.ifft2(a, s, dm, nm))),
    Case("fft_rfft2", [y, None, [-2, -1], None], lambda a, s, dm, nm: vr(F.rfft2(a, s, dm, nm))),
    Case("fft_irfft2", [y, [3, 6], [-2, -1], None], lambda a, s, dm, nm: F.irfft2(a, s, dm, nm)),
    # stft (center=False: torch.stft's centre padding is a pad node of its own): frames by a
    # constant table, a window (padded to n_fft when shorter), the onesided or full DFT
    Case("stft", [sig, 16, 4, 16, Init(hann16), False, True, False],
         lambda a, n, h, wl, w, nm, one, rc: vr(torch.stft(a, n, h, wl, w, False, "reflect", nm,
                                                         one, True))),
    Case("stft", [sig[0], 12, 5, 8, Init(hann8), True, False, False],
         lambda a, n, h, wl, w, nm, one, rc: vr(torch.stft(a, n, h, wl, w, False, "reflect", nm,
                                                         one, True))),
    Case("stft", [sig, 8, None, None, None, False, True, False],
         lambda a, n, h, wl, w, nm, one, rc: vr(torch.stft(a, n, h, wl, w, False, "reflect", nm,
                                                         one, True))),
    # the window functions torch.stft is usually given (one emitter with ONNX's *Window)
    Case("hann_window", [16, True, None], lambda n, p, dt: torch.hann_window(n, p), atol=1e-6),
    Case("hann_window", [9, False, None], lambda n, p, dt: torch.hann_window(n, p), atol=1e-6),
    Case("blackman_window", [12, True, None], lambda n, p, dt: torch.blackman_window(n, p),
         atol=1e-6),
]
