"""Numeric cases of the sampling family (symbolics/sample.c): grid_sampler (grid_sampler_2d,
grid_sampler_3d) in every mode (bilinear, nearest, bicubic), padding (zeros, border, reflection)
and align_corners, and affine_grid_generator, compared with PyTorch 1.13.

GridSample-16 (4-D) and GridSample-20 (N-D) where they exist; below, the Gather decomposition
(every opset from 7 when the batch size is known; Range, opset 11, when it is not)."""
import itertools

import numpy as np
import torch

from harness import Case, Dyn, Init

aten = torch.ops.aten
rng = np.random.default_rng(16)


def f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def grid(*shape, lim=1.3):
    """Sampling points, some outside [-1, 1] to exercise the padding modes."""
    return rng.uniform(-lim, lim, shape).astype(np.float32)


x4 = f32(2, 3, 4, 5)
g4 = grid(2, 3, 4, 2)
x5 = f32(2, 2, 3, 4, 5)
g5 = grid(2, 2, 3, 2, 3)

# Points exactly half-way between pixels (and on them), where nearest must round half to even:
# align_corners=1 on a 5-wide, 5-high input maps g to (g + 1) * 2; align_corners=0 on a 4-wide,
# 4-high one maps g to (g + 1) * 2 - 0.5. These values are exact in binary.
half_ac = np.array([-1.25, -1, -0.75, -0.25, 0, 0.25, 0.75, 1, 1.25], np.float32)
half_na = np.array([-1.25, -1, -0.5, -0.25, 0, 0.25, 0.5, 1, 1.25], np.float32)


def half_grid(vals):
    gx, gy = np.meshgrid(vals, vals[::-1])
    return np.stack([gx, gy], -1)[None].astype(np.float32)


CASES = []
for mode, pad, ac in itertools.product((0, 1, 2), (0, 1, 2), (False, True)):
    CASES.append(Case("grid_sampler", [x4, g4, mode, pad, ac], aten.grid_sampler))
for mode, pad, ac in itertools.product((0, 1), (0, 1, 2), (False, True)):
    CASES.append(Case("grid_sampler", [x5, g5, mode, pad, ac], aten.grid_sampler))
for pad in (0, 1, 2):
    CASES.append(Case("grid_sampler", [f32(1, 2, 5, 5), half_grid(half_ac), 1, pad, True],
                      aten.grid_sampler))
    CASES.append(Case("grid_sampler", [f32(1, 2, 4, 4), half_grid(half_na), 1, pad, False],
                      aten.grid_sampler))
CASES += [
    # the seed: deformable attention's bilinear sampling, zeros padding, align_corners=False
    Case("grid_sampler", [f32(6, 4, 7, 9), grid(6, 5, 4, 2, lim=1.1), 0, 0, False],
         aten.grid_sampler),
    # a single pixel (reflection with an empty span), and a far-out grid
    Case("grid_sampler", [f32(1, 2, 1, 1), grid(1, 2, 3, 2), 0, 2, True], aten.grid_sampler),
    Case("grid_sampler", [x4, grid(2, 3, 4, 2, lim=7.0), 0, 2, False], aten.grid_sampler),
    Case("grid_sampler", [x4, grid(2, 3, 4, 2, lim=7.0), 2, 2, True], aten.grid_sampler),
    # the named overloads
    Case("grid_sampler_2d", [x4, g4, 0, 1, False], aten.grid_sampler_2d),
    Case("grid_sampler_3d", [x5, g5, 0, 0, True], aten.grid_sampler_3d),
    # a batch size known only at run time: the decomposition needs Range (11)
    Case("grid_sampler", [Dyn(x4, ["N", 3, 4, 5]), Dyn(g4, ["N", 3, 4, 2]), 0, 0, False],
         aten.grid_sampler, min_opset=11),
    # output positions known only at run time are fine
    Case("grid_sampler", [x4, Dyn(g4, [2, "Ho", "Wo", 2]), 1, 0, True], aten.grid_sampler),
    # ---- affine_grid_generator ----
    Case("affine_grid_generator", [f32(2, 2, 3), [2, 3, 4, 5], False], aten.affine_grid_generator),
    Case("affine_grid_generator", [f32(2, 2, 3), [2, 3, 4, 5], True], aten.affine_grid_generator),
    Case("affine_grid_generator", [f32(1, 2, 3), [1, 1, 1, 6], False],
         aten.affine_grid_generator),
    Case("affine_grid_generator", [f32(2, 3, 4), [2, 1, 3, 4, 5], False],
         aten.affine_grid_generator),
    Case("affine_grid_generator", [f32(2, 3, 4), [2, 1, 3, 4, 5], True],
         aten.affine_grid_generator),
]

# ---- ONNX-domain GridSample (16, 20) and AffineGrid (20) legalized to every opset: re-encoded
# from their opset on, the same decompositions below ----
CASES += [
    Case("GridSample", [x4, g4], lambda x, g: torch.grid_sampler(x, g, 0, 0, False), domain="",
         attrs={"mode": "bilinear"}, source_opset=16),
    Case("GridSample", [x4, g4], lambda x, g: torch.grid_sampler(x, g, 2, 2, True), domain="",
         attrs={"mode": "bicubic", "padding_mode": "reflection", "align_corners": 1},
         source_opset=16),
    Case("GridSample", [x4, g4], lambda x, g: torch.grid_sampler(x, g, 1, 1, False), domain="",
         attrs={"mode": "nearest", "padding_mode": "border"}, source_opset=20),
    # 5-D: GridSample-20 only; below 20 decomposed (the re-encoding row at 16 refuses a 5-D input
    # at 16-19, naming 20)
    Case("GridSample", [x5, g5], lambda x, g: torch.grid_sampler(x, g, 0, 1, True), domain="",
         attrs={"mode": "linear", "padding_mode": "border", "align_corners": 1}, source_opset=20,
         opsets=[7, 9, 10, 11, 13, 20, 21, 23, 26, 27]),
    Case("AffineGrid", [f32(2, 2, 3), Init(np.array([2, 3, 4, 5], np.int64))],
         lambda t, s: aten.affine_grid_generator(t, s.tolist(), False), domain="",
         source_opset=20),
    Case("AffineGrid", [f32(2, 3, 4), Init(np.array([2, 1, 3, 4, 5], np.int64))],
         lambda t, s: aten.affine_grid_generator(t, s.tolist(), True), domain="",
         attrs={"align_corners": 1}, source_opset=20),
]
