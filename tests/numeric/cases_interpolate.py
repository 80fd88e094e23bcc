"""Numeric cases of the interpolation family (symbolics/interpolate.c): upsample_nearest1d/2d/3d,
upsample_linear1d, upsample_bilinear2d, upsample_trilinear3d, upsample_bicubic2d, in both aten
overloads (per-dim scales, and .vec with a scale_factors list), compared with PyTorch 1.13.

Below opset 11 linear/cubic modes are the interpolation-matrix decomposition and nearest is
Upsample or a Gather of computed indices; from 11 on, Resize. An input whose spatial sizes are
unknown at export time needs Resize (opset 11), except nearest with integer scale factors."""
import numpy as np
import torch

from harness import Case, Dyn

aten = torch.ops.aten
rng = np.random.default_rng(11)


def f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def f64(*shape):
    return rng.standard_normal(shape).astype(np.float64)


def vec(op):
    """The .vec overload: (input, output_size?, [align_corners,] scale_factors?)."""
    return getattr(aten, op).vec


def plain(op):
    return getattr(aten, op).default


x1 = f32(2, 3, 5)
x2 = f32(1, 2, 5, 5)
x2b = f32(2, 3, 4, 6)
x3 = f32(1, 2, 3, 4, 5)

CASES = [
    # ---- nearest 1d: sizes up, down, non-integer ratio; scales (vec, per-dim) ----
    Case("upsample_nearest1d", [x1, [10], None], plain("upsample_nearest1d")),
    Case("upsample_nearest1d", [x1, [9], None], plain("upsample_nearest1d")),
    Case("upsample_nearest1d", [x1, [3], None], plain("upsample_nearest1d")),
    Case("upsample_nearest1d", [x1, [5], 1.1], plain("upsample_nearest1d")),
    Case("upsample_nearest1d", [x1, [8], 1.7], plain("upsample_nearest1d")),
    Case("upsample_nearest1d", [x1, None, [2.0]], vec("upsample_nearest1d")),
    Case("upsample_nearest1d", [x1, None, [1.5]], vec("upsample_nearest1d")),
    Case("upsample_nearest1d", [x1, None, [0.5]], vec("upsample_nearest1d")),
    # ---- nearest 2d ----
    Case("upsample_nearest2d", [x2b, [8, 12], None, None], plain("upsample_nearest2d")),
    Case("upsample_nearest2d", [x2b, [7, 9], None, None], plain("upsample_nearest2d")),
    Case("upsample_nearest2d", [x2b, [2, 5], None, None], plain("upsample_nearest2d")),
    Case("upsample_nearest2d", [x2b, None, [2.0, 3.0]], vec("upsample_nearest2d")),
    Case("upsample_nearest2d", [x2b, None, [1.5, 2.5]], vec("upsample_nearest2d")),
    Case("upsample_nearest2d", [x2b, [6, 9], 1.5, 1.5], plain("upsample_nearest2d")),
    Case("upsample_nearest2d", [rng.integers(0, 255, (1, 2, 3, 3)).astype(np.uint8), [6, 7],
                                None, None], plain("upsample_nearest2d")),
    # a batch unknown at export time; spatial sizes unknown with integer scales (Upsample)
    Case("upsample_nearest2d", [Dyn(x2b, ["N", 3, 4, 6]), [7, 9], None, None],
         plain("upsample_nearest2d")),
    Case("upsample_nearest2d", [Dyn(x2b, ["N", 3, "H", "W"]), None, [2.0, 3.0]],
         vec("upsample_nearest2d")),
    # spatial sizes unknown, non-integer scales or sizes: Resize (11)
    Case("upsample_nearest2d", [Dyn(x2b, ["N", 3, "H", "W"]), None, [2.0, 1.5]],
         vec("upsample_nearest2d"), min_opset=11),
    Case("upsample_nearest2d", [Dyn(x2b, [2, 3, "H", "W"]), [5, 5], None, None],
         plain("upsample_nearest2d"), min_opset=11),
    # output sizes computed at run time (a list of scalar tensors): Resize with sizes (11)
    Case("upsample_nearest2d", [x2b, [np.array(7), np.array(9)], None, None],
         lambda x, s, a, b: aten.upsample_nearest2d(x, [int(t) for t in s], a, b), min_opset=11),
    # ---- nearest 3d ----
    Case("upsample_nearest3d", [x3, [6, 8, 10], None, None, None], plain("upsample_nearest3d")),
    Case("upsample_nearest3d", [x3, [4, 5, 3], None, None, None], plain("upsample_nearest3d")),
    Case("upsample_nearest3d", [x3, None, [2.0, 1.5, 0.5]], vec("upsample_nearest3d")),
    # ---- linear 1d: align_corners either way, up, down, to 1, scales ----
    Case("upsample_linear1d", [x1, [9], False, None], plain("upsample_linear1d")),
    Case("upsample_linear1d", [x1, [9], True, None], plain("upsample_linear1d")),
    Case("upsample_linear1d", [x1, [3], False, None], plain("upsample_linear1d")),
    Case("upsample_linear1d", [x1, [1], False, None], plain("upsample_linear1d")),
    Case("upsample_linear1d", [x1, [1], True, None], plain("upsample_linear1d")),
    Case("upsample_linear1d", [x1, None, False, [1.5]], vec("upsample_linear1d")),
    Case("upsample_linear1d", [x1, None, True, [1.5]], vec("upsample_linear1d")),
    Case("upsample_linear1d", [x1, [5], False, 1.1], plain("upsample_linear1d")),
    # ---- bilinear 2d: the seed (5 -> 9 with and without align_corners, opset 9) ----
    Case("upsample_bilinear2d", [x2, [9, 9], False, None, None], plain("upsample_bilinear2d")),
    Case("upsample_bilinear2d", [x2, [9, 9], True, None, None], plain("upsample_bilinear2d")),
    Case("upsample_bilinear2d", [x2b, [3, 13], False, None, None], plain("upsample_bilinear2d")),
    Case("upsample_bilinear2d", [x2b, [1, 1], False, None, None], plain("upsample_bilinear2d")),
    Case("upsample_bilinear2d", [x2b, [4, 10], True, None, None], plain("upsample_bilinear2d")),
    Case("upsample_bilinear2d", [x2b, None, False, [2.0, 2.0]], vec("upsample_bilinear2d")),
    Case("upsample_bilinear2d", [x2b, None, False, [1.7, 0.6]], vec("upsample_bilinear2d")),
    Case("upsample_bilinear2d", [x2b, None, True, [1.7, 0.6]], vec("upsample_bilinear2d")),
    Case("upsample_bilinear2d", [x2b, [6, 9], False, 1.6, 1.6], plain("upsample_bilinear2d")),
    Case("upsample_bilinear2d", [f64(1, 2, 3, 4), [5, 7], False, None, None],
         plain("upsample_bilinear2d")),
    Case("upsample_bilinear2d", [Dyn(x2, ["N", "C", 5, 5]), [9, 9], True, None, None],
         plain("upsample_bilinear2d")),
    Case("upsample_bilinear2d", [Dyn(x2, [1, 2, "H", "W"]), [9, 9], False, None, None],
         plain("upsample_bilinear2d"), min_opset=11),
    Case("upsample_bilinear2d", [Dyn(x2, [1, 2, "H", "W"]), None, False, [2.0, 1.5]],
         vec("upsample_bilinear2d"), min_opset=11),
    Case("upsample_bilinear2d", [x2b, [np.array(3), np.array(13)], True, None, None],
         lambda x, s, ac, a, b: aten.upsample_bilinear2d(x, [int(t) for t in s], ac, a, b),
         min_opset=11),
    # ---- trilinear 3d ----
    Case("upsample_trilinear3d", [x3, [5, 6, 7], False, None, None, None],
         plain("upsample_trilinear3d")),
    Case("upsample_trilinear3d", [x3, [5, 6, 7], True, None, None, None],
         plain("upsample_trilinear3d")),
    Case("upsample_trilinear3d", [x3, None, False, [2.0, 1.5, 1.0]], vec("upsample_trilinear3d")),
    Case("upsample_trilinear3d", [x3, [2, 2, 2], False, None, None, None],
         plain("upsample_trilinear3d")),
    # ---- bicubic 2d ----
    Case("upsample_bicubic2d", [x2b, [7, 9], False, None, None], plain("upsample_bicubic2d")),
    Case("upsample_bicubic2d", [x2b, [7, 9], True, None, None], plain("upsample_bicubic2d")),
    Case("upsample_bicubic2d", [x2b, [3, 3], False, None, None], plain("upsample_bicubic2d")),
    Case("upsample_bicubic2d", [x2b, [1, 2], False, None, None], plain("upsample_bicubic2d")),
    Case("upsample_bicubic2d", [x2b, None, False, [1.5, 2.0]], vec("upsample_bicubic2d")),
    Case("upsample_bicubic2d", [x2b, None, False, [1.0, 1.1]], vec("upsample_bicubic2d")),
    Case("upsample_bicubic2d", [x2, [9, 9], True, None, None], plain("upsample_bicubic2d")),
]
