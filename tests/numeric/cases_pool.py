"""Numeric cases of pooling (symbolics/pool.c): max_pool1d/2d/3d (padding, dilation, ceil_mode,
with indices; below opsets 8/10 by gathered windows), avg_pool1d/2d/3d (count_include_pad, ceil_mode edge windows, divisor_override),
adaptive_avg_pool1d/2d/3d and adaptive_max_pool1d/2d/3d of any output size (incl. the seed
7x11 -> 3x5)."""
import numpy as np
import torch

from harness import OPSETS, Case, Dyn

aten = torch.ops.aten
rng = np.random.default_rng(12)


def f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def f64(*shape):
    return rng.standard_normal(shape).astype(np.float64)


x1 = f32(2, 3, 11)
x2 = f32(2, 3, 7, 8)
x3 = f32(1, 2, 5, 6, 7)
seed = f32(1, 3, 7, 11)   # the seed report: adaptive pooling 7x11 -> 3x5


def with_idx(fn):
    return lambda *a: fn(*a)


CASES = [
    # max_pool: kernel, stride (default = kernel), padding, dilation (MaxPool-10), ceil_mode
    Case("max_pool1d", [x1, [3], [2], [1], [1], False], aten.max_pool1d),
    Case("max_pool1d", [x1, [2], [], [0], [1], True], aten.max_pool1d),
    Case("max_pool2d", [x2, [3, 3], [2, 2], [1, 1], [1, 1], False], aten.max_pool2d),
    Case("max_pool2d", [x2, [2, 2], [], [0, 0], [1, 1], False], aten.max_pool2d),
    Case("max_pool2d", [x2, [3, 2], [2, 3], [1, 0], [1, 1], True], aten.max_pool2d),
    Case("max_pool2d", [x2, [2, 2], [2, 2], [1, 1], [1, 1], True], aten.max_pool2d),
    Case("max_pool2d", [x2, 3, 2, 1, 1, False],   # single ints for int[2]
         lambda x, k, s, p, d, c: aten.max_pool2d(x, [k, k], [s, s], [p, p], [d, d], c)),
    # dilation, and a ceil_mode end padding >= the kernel: gathered windows below opset 10
    Case("max_pool2d", [x2, [2, 3], [1, 2], [1, 1], [2, 2], False], aten.max_pool2d),
    Case("max_pool2d", [x2, [2, 2], [3, 3], [1, 0], [3, 2], True], aten.max_pool2d),
    Case("max_pool1d", [x1, [2], [3], [0], [3], True], aten.max_pool1d),
    Case("max_pool2d", [Dyn(x2, [2, 3, "H", 8]), [2, 2], [1, 1], [0, 0], [2, 2], False],
         aten.max_pool2d, min_opset=10),
    Case("max_pool2d", [f32(3, 7, 8), [3, 3], [2, 2], [1, 1], [1, 1], True], aten.max_pool2d),
    Case("max_pool2d", [Dyn(x2, ["N", 3, "H", "W"]), [3, 3], [2, 2], [1, 1], [1, 1], False],
         aten.max_pool2d),
    Case("max_pool2d", [Dyn(x2, ["N", 3, "H", "W"]), [3, 3], [2, 2], [1, 1], [1, 1], True],
         aten.max_pool2d, min_opset=10),
    # ONNX Runtime has no double kernel of MaxPool-1 (opset 7); MaxPool-8 on has one
    Case("max_pool2d", [f64(1, 2, 6, 5), [2, 2], [2, 2], [0, 1], [1, 1], True], aten.max_pool2d,
         opsets=[o for o in OPSETS if o >= 8]),
    Case("max_pool3d", [x3, [2, 3, 2], [2, 2, 2], [1, 1, 0], [1, 1, 1], True], aten.max_pool3d),
    Case("max_pool3d", [x3, [3, 3, 3], [1, 2, 2], [1, 0, 1], [1, 1, 1], False], aten.max_pool3d),
    # with indices (MaxPool-8): PyTorch's per-plane flat indices
    Case("max_pool1d_with_indices", [x1, [3], [2], [1], [1], True], aten.max_pool1d_with_indices),
    Case("max_pool2d_with_indices", [x2, [3, 3], [2, 2], [1, 1], [1, 1], False],
         aten.max_pool2d_with_indices),
    Case("max_pool2d_with_indices", [x2, [3, 2], [2, 3], [1, 0], [1, 1], True],
         aten.max_pool2d_with_indices),
    Case("max_pool2d_with_indices", [x2, [2, 2], [1, 2], [1, 1], [2, 1], True],
         aten.max_pool2d_with_indices),
    Case("max_pool2d_with_indices", [x2, [3, 2], [3, 3], [1, 1], [2, 3], True],
         aten.max_pool2d_with_indices),
    Case("max_pool2d_with_indices", [f32(3, 7, 8), [2, 2], [2, 2], [0, 0], [1, 1], False],
         aten.max_pool2d_with_indices),
    Case("max_pool2d_with_indices", [Dyn(x2, ["N", "C", "H", "W"]), [3, 3], [2, 2], [1, 1],
                                     [1, 1], False], aten.max_pool2d_with_indices, min_opset=8),
    Case("max_pool2d_with_indices", [Dyn(x2, ["N", "C", 7, 8]), [3, 3], [2, 2], [1, 1],
                                     [1, 1], False], aten.max_pool2d_with_indices),
    Case("max_pool3d_with_indices", [x3, [2, 2, 3], [2, 2, 2], [0, 1, 1], [1, 1, 1], True],
         aten.max_pool3d_with_indices),
    # avg_pool: count_include_pad either way, ceil_mode edge windows, divisor_override
    Case("avg_pool1d", [x1, [3], [2], [1], False, True], aten.avg_pool1d),
    Case("avg_pool1d", [x1, [3], [2], [1], True, True], aten.avg_pool1d),
    Case("avg_pool1d", [x1, [4], [3], [2], True, False], aten.avg_pool1d),
    Case("avg_pool2d", [x2, [3, 3], [2, 2], [1, 1], False, True, None], aten.avg_pool2d),
    Case("avg_pool2d", [x2, [3, 3], [2, 2], [1, 1], False, False, None], aten.avg_pool2d),
    Case("avg_pool2d", [x2, [2, 2], [], [0, 0], False, True, None], aten.avg_pool2d),
    Case("avg_pool2d", [x2, [3, 3], [2, 2], [1, 1], True, True, None], aten.avg_pool2d),
    Case("avg_pool2d", [x2, [3, 3], [2, 2], [1, 1], True, False, None], aten.avg_pool2d),
    Case("avg_pool2d", [x2, [2, 3], [3, 2], [1, 1], True, True, None], aten.avg_pool2d),
    Case("avg_pool2d", [x2, [2, 2], [3, 3], [0, 0], True, True, None], aten.avg_pool2d),
    Case("avg_pool2d", [x2, [3, 3], [2, 2], [1, 1], False, True, 5], aten.avg_pool2d),
    Case("avg_pool2d", [x2, [3, 2], [2, 2], [1, 0], True, False, 4], aten.avg_pool2d),
    Case("avg_pool2d", [f32(3, 7, 8), [3, 3], [2, 2], [1, 1], True, True, None], aten.avg_pool2d),
    Case("avg_pool2d", [Dyn(x2, ["N", 3, "H", "W"]), [3, 3], [2, 2], [1, 1], False, False, None],
         aten.avg_pool2d),
    Case("avg_pool2d", [Dyn(x2, ["N", 3, "H", "W"]), [3, 3], [2, 2], [1, 1], True, False, None],
         aten.avg_pool2d, min_opset=10),
    Case("avg_pool2d", [Dyn(x2, ["N", 3, "H", "W"]), [3, 3], [2, 2], [1, 1], False, True, 2],
         aten.avg_pool2d),
    Case("avg_pool3d", [x3, [2, 3, 2], [2, 2, 2], [1, 1, 0], True, True, None], aten.avg_pool3d),
    Case("avg_pool3d", [x3, [3, 3, 3], [2, 2, 2], [1, 1, 1], False, False, None], aten.avg_pool3d),
    Case("avg_pool3d", [x3, [2, 2, 2], [2, 2, 2], [0, 0, 0], True, True, 3], aten.avg_pool3d),
    # adaptive_avg_pool: 1 (GlobalAveragePool), dividing sizes (AveragePool), the rest (MatMul)
    Case("adaptive_avg_pool2d", [seed, [3, 5]], aten.adaptive_avg_pool2d),
    Case("adaptive_avg_pool2d", [seed, [1, 1]], aten.adaptive_avg_pool2d),
    Case("adaptive_avg_pool2d", [Dyn(seed, ["N", "C", "H", "W"]), [1, 1]],
         aten.adaptive_avg_pool2d),
    Case("adaptive_avg_pool2d", [f32(2, 3, 8, 6), [4, 3]], aten.adaptive_avg_pool2d),
    Case("adaptive_avg_pool2d", [f32(2, 3, 8, 6), [8, 6]], aten.adaptive_avg_pool2d),
    Case("adaptive_avg_pool2d", [f32(2, 3, 8, 6), [5, 6]], aten.adaptive_avg_pool2d),
    Case("adaptive_avg_pool2d", [f32(3, 7, 11), [3, 5]], aten.adaptive_avg_pool2d),
    Case("adaptive_avg_pool2d", [f64(1, 2, 7, 5), [3, 2]], aten.adaptive_avg_pool2d),
    Case("_adaptive_avg_pool2d", [seed, [2, 4]], aten._adaptive_avg_pool2d),
    Case("adaptive_avg_pool1d", [x1, [4]], aten.adaptive_avg_pool1d),
    Case("adaptive_avg_pool1d", [x1, [1]], aten.adaptive_avg_pool1d),
    Case("adaptive_avg_pool3d", [x3, [2, 4, 3]], aten.adaptive_avg_pool3d),
    Case("adaptive_avg_pool3d", [x3, [5, 3, 1]], aten.adaptive_avg_pool3d),
    Case("_adaptive_avg_pool3d", [x3, [3, 2, 7]], aten._adaptive_avg_pool3d),
    # adaptive_max_pool: values and per-plane indices
    Case("adaptive_max_pool2d", [seed, [3, 5]], aten.adaptive_max_pool2d),
    Case("adaptive_max_pool2d", [seed, [3, 5]], lambda x, s: aten.adaptive_max_pool2d(x, s)[0],
         n_outputs=1, name="adaptive_max_pool2d(seed 7x11 -> 3x5, values only used)"),
    Case("adaptive_max_pool2d", [seed, [1, 1]], aten.adaptive_max_pool2d),
    Case("adaptive_max_pool2d", [f32(2, 3, 8, 6), [4, 3]], aten.adaptive_max_pool2d),
    Case("adaptive_max_pool2d", [f32(2, 3, 8, 6), [3, 4]], aten.adaptive_max_pool2d),
    Case("adaptive_max_pool2d", [f32(3, 7, 11), [2, 3]], aten.adaptive_max_pool2d),
    Case("adaptive_max_pool2d", [Dyn(seed, ["N", "C", 7, 11]), [3, 5]], aten.adaptive_max_pool2d),
    Case("adaptive_max_pool1d", [x1, [4]], aten.adaptive_max_pool1d),
    Case("adaptive_max_pool1d", [x1, [1]], aten.adaptive_max_pool1d),
    Case("adaptive_max_pool3d", [x3, [2, 4, 3]], aten.adaptive_max_pool3d),
    Case("adaptive_max_pool3d", [x3, [5, 3, 7]], aten.adaptive_max_pool3d),
    Case("adaptive_max_pool3d", [f64(1, 2, 3, 5, 4), [2, 3, 3]], aten.adaptive_max_pool3d),
]
