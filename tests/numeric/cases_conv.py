"""Numeric cases of the convolutions and their relatives (symbolics/conv.c): _convolution,
convolution, conv1d/2d/3d (int and 'same'/'valid' padding, groups, dilation, unbatched),
conv_transpose1d/2d/3d (output_padding, groups, dilation), pixel_shuffle, pixel_unshuffle,
im2col, col2im."""
import numpy as np
import torch

from harness import Case, Dyn, Init

aten = torch.ops.aten
F = torch.nn.functional
rng = np.random.default_rng(11)


def f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


x1 = f32(2, 4, 9)
x2 = f32(2, 4, 7, 8)
x3 = f32(1, 2, 5, 6, 4)
w1 = f32(6, 4, 3)
w2 = f32(6, 4, 3, 3)
w2g = f32(6, 2, 3, 2)        # groups=2
w3 = f32(3, 2, 3, 2, 3)
b6 = f32(6)
b3 = f32(3)


def conv_mode(x, w, b, s, p, d, g):
    return aten._convolution_mode(x, w, b, s, p, d, g)


CASES = [
    # conv1d/2d/3d: stride, padding, dilation, groups, bias or not
    Case("conv1d", [x1, Init(w1), Init(b6), [1], [0], [1], 1], aten.conv1d),
    Case("conv1d", [x1, Init(w1), None, [2], [2], [2], 1], aten.conv1d),
    Case("conv1d", [x1, Init(w1), Init(b6), [1], "same", [2], 1],
         lambda x, w, b, s, p, d, g: F.conv1d(x, w, b, s, p, d, g)),
    Case("conv2d", [x2, Init(w2), Init(b6), [1, 1], [1, 1], [1, 1], 1], aten.conv2d),
    Case("conv2d", [x2, Init(w2), None, [2, 1], [0, 1], [1, 2], 1], aten.conv2d),
    Case("conv2d", [x2, Init(w2g), Init(b6), [1, 2], [1, 0], [1, 1], 2], aten.conv2d),
    Case("conv2d", [x2, Init(w2), Init(b6), 1, 1, 1, 1],   # single ints for int[2]
         lambda x, w, b, s, p, d, g: aten.conv2d(x, w, b, [s, s], [p, p], [d, d], g)),
    Case("conv2d", [x2, Init(w2), Init(b6), [1, 1], "same", [2, 1], 1],
         lambda x, w, b, s, p, d, g: F.conv2d(x, w, b, s, p, d, g)),
    Case("conv2d", [x2, Init(w2g), None, [1, 1], "same", [1, 1], 2],
         lambda x, w, b, s, p, d, g: F.conv2d(x, w, b, s, p, d, g)),
    Case("conv2d", [x2, Init(w2), Init(b6), [2, 2], "valid", [1, 1], 1],
         lambda x, w, b, s, p, d, g: F.conv2d(x, w, b, s, p, d, g)),
    Case("conv2d", [f32(4, 7, 8), Init(w2), Init(b6), [1, 1], [1, 1], [1, 1], 1], aten.conv2d),
    Case("conv2d", [Dyn(x2, ["N", 4, "H", "W"]), Init(w2), Init(b6), [1, 1], [1, 1], [1, 1], 1],
         aten.conv2d),
    Case("conv2d", [x2, w2, b6, [1, 1], [0, 0], [1, 1], 1], aten.conv2d),  # weight as an input
    Case("conv3d", [x3, Init(w3), Init(b3), [1, 1, 1], [1, 0, 1], [1, 1, 1], 1], aten.conv3d),
    Case("conv3d", [x3, Init(w3), None, [2, 1, 1], [0, 0, 0], [1, 2, 1], 1], aten.conv3d),
    Case("_convolution_mode", [x2, Init(w2), Init(b6), [1, 1], "same", [1, 1], 1], conv_mode),
    # conv_transpose: stride, padding, output_padding, groups, dilation
    Case("conv_transpose1d", [x1, Init(f32(4, 3, 3)), Init(b3), [2], [1], [1], 1, [1]],
         aten.conv_transpose1d),
    Case("conv_transpose2d", [x2, Init(f32(4, 3, 3, 2)), Init(b3), [2, 1], [1, 0], [1, 0], 1,
                              [1, 1]], aten.conv_transpose2d),
    Case("conv_transpose2d", [x2, Init(f32(4, 2, 3, 3)), None, [2, 2], [0, 1], [0, 1], 2,
                              [1, 2]], aten.conv_transpose2d),
    Case("conv_transpose2d", [x2, Init(f32(4, 3, 2, 2)), Init(b3), [1, 1], [0, 0], [0, 0], 1,
                              [2, 1]], aten.conv_transpose2d),
    Case("conv_transpose2d", [f32(4, 7, 8), Init(f32(4, 3, 3, 3)), Init(b3), [2, 2], [1, 1],
                              [1, 1], 1, [1, 1]], aten.conv_transpose2d),
    Case("conv_transpose3d", [f32(1, 2, 3, 4, 3), Init(f32(2, 4, 2, 3, 2)), Init(f32(4)),
                              [2, 1, 2], [0, 1, 1], [1, 0, 1], 1, [1, 1, 1]],
         aten.conv_transpose3d),
    # _convolution / convolution: plain and transposed
    Case("_convolution", [x2, Init(w2g), Init(b6), [1, 1], [1, 1], [1, 1], False, [0, 0], 2,
                          False, False, True, True], aten._convolution),
    Case("_convolution", [x2, Init(f32(4, 3, 3, 3)), Init(b3), [2, 2], [1, 1], [1, 1], True,
                          [1, 1], 1, False, False, True, True], aten._convolution),
    Case("_convolution", [x1, Init(w1), None, [1], [1], [1], False, [0], 1, False, False, True],
         lambda *a: aten._convolution(*a, True)),  # the 12-argument (deprecated) overload
    Case("convolution", [x3, Init(w3), Init(b3), [1, 1, 1], [0, 1, 0], [1, 1, 1], False,
                         [0, 0, 0], 1], aten.convolution),
    Case("convolution", [x1, Init(f32(4, 2, 4)), Init(f32(4)), [3], [1], [2], True, [2], 2],
         aten.convolution),
    # pixel_shuffle / pixel_unshuffle: 4-D, 3-D, 5-D, dynamic dims
    Case("pixel_shuffle", [f32(2, 12, 3, 4), 2], aten.pixel_shuffle),
    Case("pixel_shuffle", [f32(9, 2, 3), 3], aten.pixel_shuffle),
    Case("pixel_shuffle", [f32(2, 2, 8, 2, 3), 2], aten.pixel_shuffle),
    Case("pixel_shuffle", [Dyn(f32(2, 8, 3, 4), ["N", 8, "H", "W"]), 2], aten.pixel_shuffle),
    Case("pixel_shuffle", [rng.integers(-9, 9, (1, 8, 2, 3)).astype(np.int64), 2],
         aten.pixel_shuffle),
    Case("pixel_shuffle", [rng.standard_normal((1, 4, 2, 3)), 2], aten.pixel_shuffle),
    Case("pixel_unshuffle", [f32(2, 3, 4, 6), 2], aten.pixel_unshuffle),
    Case("pixel_unshuffle", [f32(2, 6, 9), 3], aten.pixel_unshuffle),
    Case("pixel_unshuffle", [np.arange(48).reshape(1, 3, 4, 4) % 5 == 0, 2],
         aten.pixel_unshuffle),
    Case("pixel_unshuffle", [Dyn(f32(1, 2, 4, 6), ["N", "C", "H", 6]), 2],
         aten.pixel_unshuffle),
    # im2col / col2im
    Case("im2col", [x2, [3, 3], [1, 1], [1, 1], [1, 1]], aten.im2col),
    Case("im2col", [x2, [2, 3], [2, 1], [0, 1], [2, 3]], aten.im2col),
    Case("im2col", [f32(3, 5, 5), [2, 2], [1, 1], [0, 0], [1, 1]], aten.im2col),
    Case("col2im", [f32(2, 36, 56), [7, 8], [3, 3], [1, 1], [1, 1], [1, 1]], aten.col2im),
    Case("col2im", [f32(1, 12, 6), [6, 7], [2, 3], [2, 1], [0, 1], [2, 3]], aten.col2im),
    Case("col2im", [f32(8, 6), [5, 5], [2, 2], [1, 1], [1, 0], [2, 2]], aten.col2im),
]
