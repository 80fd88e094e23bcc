"""Numeric cases of ONNX-domain re-encoding (symbolics/onnx.c): an ONNX node read at its source
opset and written at every target opset, up and down. NumPy (or PyTorch) references."""
import numpy as np
import torch
import torch.nn.functional as F

from harness import Case, Init

rng = np.random.default_rng(11)


def f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def softmax_2d(x, axis):
    """Softmax before opset 13: over the flattened dims from axis on."""
    shape = x.shape
    flat = x.reshape(int(np.prod(shape[:axis])), -1)
    return softmax(flat, 1).reshape(shape)


def linear_asym(x, scales):
    """Upsample/Resize-10 linear: asymmetric coordinates, separable, clamped at the edge."""
    out = x
    for ax, s in enumerate(scales):
        if s == 1:
            continue
        n_in = out.shape[ax]
        n_out = int(np.floor(n_in * s))
        pos = np.arange(n_out) / s
        lo = np.clip(np.floor(pos).astype(int), 0, n_in - 1)
        hi = np.clip(lo + 1, 0, n_in - 1)
        w = (pos - lo).astype(np.float32)
        a, b = np.take(out, lo, axis=ax), np.take(out, hi, axis=ax)
        shape = [1] * out.ndim
        shape[ax] = n_out
        out = a + (b - a) * w.reshape(shape)
    return out.astype(np.float32)


x = f32(2, 1, 3)
x4 = f32(2, 3, 4, 5)
CASES = [
    # Squeeze / Unsqueeze: axes attribute (< 13) or input (>= 13)
    Case("Squeeze", [x], lambda x: np.squeeze(x, 1), domain="", torch=False, attrs={"axes": [1]},
         source_opset=11),
    Case("Squeeze", [x, Init(np.array([-2], np.int64))], lambda x, a: np.squeeze(x, 1),
         domain="", torch=False, source_opset=13),
    Case("Unsqueeze", [x], lambda x: x[:, :, None, :, None], domain="", torch=False,
         attrs={"axes": [2, 4]}, source_opset=9),
    Case("Unsqueeze", [x, Init(np.array([0], np.int64))], lambda x, a: x[None], domain="",
         torch=False, source_opset=13),
    # Reduce*: axes attribute (< 13 ReduceSum, < 18 others) or input
    Case("ReduceSum", [x4], lambda x: x.sum(axis=(1, 3), keepdims=True), domain="", torch=False,
         attrs={"axes": [1, -1]}, source_opset=11),
    Case("ReduceSum", [x4, Init(np.array([2], np.int64))], lambda x, a: x.sum(axis=2),
         domain="", torch=False, attrs={"keepdims": 0}, source_opset=13),
    Case("ReduceMean", [x4], lambda x: x.mean(axis=0), domain="", torch=False,
         attrs={"axes": [0], "keepdims": 0}, source_opset=13),
    Case("ReduceMax", [x4, Init(np.array([1, 2], np.int64))],
         lambda x, a: x.max(axis=(1, 2), keepdims=True), domain="", torch=False, source_opset=18),
    Case("ReduceL2", [x4], lambda x: np.sqrt((x * x).sum(axis=3, keepdims=True)), domain="",
         torch=False, attrs={"axes": [3]}, source_opset=11),
    Case("ReduceLogSumExp", [x4, Init(np.array([-1], np.int64))],
         lambda x, a: np.log(np.exp(x).sum(axis=-1)), domain="", torch=False,
         attrs={"keepdims": 0}, source_opset=18),
    # Slice: attributes (< 10) or inputs (>= 10, with steps)
    Case("Slice", [x4], lambda x: x[:, 1:3, :, -3:], domain="", torch=False,
         attrs={"starts": [1, -3], "ends": [3, 1000], "axes": [1, 3]}, source_opset=9),
    Case("Slice", [x4, Init(np.array([0, 4], np.int64)), Init(np.array([2, 0], np.int64)),
                   Init(np.array([0, 3], np.int64)), Init(np.array([1, -2], np.int64))],
         # below 10 the stepped axis (static size) becomes a Gather of indices 4, 2
         lambda x, *a: x[0:2, :, :, 4:0:-2], domain="", torch=False, source_opset=13),
    # Pad: attributes (< 11), inputs (>= 11), axes (>= 18); run-time pads below 11 by Gathers (9)
    Case("Pad", [x4], lambda x: np.pad(x, [(0, 0), (1, 0), (0, 2), (1, 1)], constant_values=1.5),
         domain="", torch=False, attrs={"pads": [0, 1, 0, 1, 0, 0, 2, 1], "value": 1.5},
         source_opset=9),
    Case("Pad", [x4, Init(np.array([0, 0, 1, 2, 0, 0, 1, 0], np.int64))],
         lambda x, p: np.pad(x, [(0, 0), (0, 0), (1, 1), (2, 0)], mode="reflect"), domain="",
         torch=False, attrs={"mode": "reflect"}, source_opset=13),
    Case("Pad", [x4, Init(np.array([2, 1], np.int64)), Init(np.array(0.5, np.float32)),
                 Init(np.array([-1], np.int64))],
         lambda x, *a: np.pad(x, [(0, 0), (0, 0), (0, 0), (2, 1)], constant_values=0.5),
         domain="", torch=False, source_opset=18),
    Case("Pad", [x4, Init(np.array([0, 0, 1, 1, 0, 0, 1, 1], np.int64))],
         lambda x, p: np.pad(x, [(0, 0), (0, 0), (1, 1), (1, 1)], mode="wrap"), domain="",
         torch=False, attrs={"mode": "wrap"}, source_opset=19),
    Case("Pad", [x4, np.array([1, 0, 2, 1], np.int64), Init(np.array(2.5, np.float32)),
                 Init(np.array([0, -2], np.int64))],
         lambda x, p, v, a: np.pad(x, [(1, 2), (0, 0), (0, 1), (0, 0)], constant_values=2.5),
         domain="", torch=False, source_opset=18, min_opset=9),
    Case("Pad", [x4, np.array([1, 0, 2, 1, 0, 3, 1, 0], np.int64)],
         lambda x, p: np.pad(x, [(1, 0), (0, 3), (2, 1), (1, 0)], mode="edge"), domain="",
         torch=False, attrs={"mode": "edge"}, source_opset=13, min_opset=9),
    Case("Pad", [rng.integers(-99, 99, (2, 3)).astype(np.int64),
                 Init(np.array([1, 0, 0, 2], np.int64)), Init(np.array(7, np.int64))],
         lambda x, p, v: np.pad(x, [(1, 0), (0, 2)], constant_values=7), domain="", torch=False,
         source_opset=13),
    # Split: attribute (< 13), input (>= 13), num_outputs (>= 18, last part smaller)
    Case("Split", [x4], lambda x: tuple(np.split(x, [1], axis=1)), domain="", torch=False,
         attrs={"axis": 1, "split": [1, 2]}, source_opset=11, n_outputs=2),
    Case("Split", [x4, Init(np.array([3, 2], np.int64))],
         lambda x, s: tuple(np.split(x, [3], axis=-1)), domain="", torch=False,
         attrs={"axis": -1}, source_opset=13, n_outputs=2),
    Case("Split", [x4], lambda x: tuple(np.split(x, [2, 4], axis=3)), domain="", torch=False,
         attrs={"axis": 3, "num_outputs": 3}, source_opset=18, n_outputs=3),
    Case("Split", [x4], lambda x: tuple(np.split(x, 2, axis=2)), domain="", torch=False,
         attrs={"axis": 2}, source_opset=11, n_outputs=2),
    # Clip: attributes (< 11), inputs (>= 11), integer input
    Case("Clip", [x4], lambda x: np.clip(x, -0.5, 0.25), domain="", torch=False,
         attrs={"min": -0.5, "max": 0.25}, source_opset=9),
    Case("Clip", [x4, Init(np.array(-0.1, np.float32)), None], lambda x, lo, hi: np.maximum(x, -0.1),
         domain="", torch=False, source_opset=13),
    Case("Clip", [rng.integers(-9, 9, (3, 4)).astype(np.int64), Init(np.array(-3, np.int64)),
                  Init(np.array(5, np.int64))],
         lambda x, lo, hi: np.clip(x, -3, 5), domain="", torch=False, source_opset=13,
         min_opset=9),
    Case("Clip", [rng.integers(-9, 9, (3, 4)).astype(np.int32)], lambda x: np.clip(x, -3, 5),
         domain="", torch=False, attrs={"min": -3.0, "max": 5.0}, source_opset=9, min_opset=9),
    Case("Clip", [f32(3, 4).astype(np.float16)], lambda x: np.clip(x, -0.5, 0.5), domain="",
         torch=False, attrs={"min": -0.5, "max": 0.5}, source_opset=9),
    Case("Clip", [f32(3, 4).astype(np.float64), Init(np.array(-0.2)), Init(np.array(0.3))],
         lambda x, lo, hi: np.clip(x, -0.2, 0.3), domain="", torch=False, source_opset=13,
         min_opset=9),
    # Softmax family: flattened 2-D below 13, one axis from 13
    Case("Softmax", [x4], lambda x: softmax_2d(x, 1), domain="", torch=False,
         attrs={"axis": 1}, source_opset=11),
    Case("Softmax", [x4], lambda x: softmax(x, 1), domain="", torch=False, attrs={"axis": 1},
         source_opset=13),
    Case("LogSoftmax", [x4], lambda x: np.log(softmax(x, -1)), domain="", torch=False,
         attrs={"axis": -1}, source_opset=13),
    Case("LogSoftmax", [x4], lambda x: np.log(softmax_2d(x, 2)), domain="", torch=False,
         attrs={"axis": 2}, source_opset=9),
    # TopK: k attribute (< 10) or input; largest/sorted (>= 11)
    Case("TopK", [x4], lambda x: torch.topk(x, 2, dim=2), domain="",
         attrs={"k": 2, "axis": 2}, source_opset=9, n_outputs=2),
    Case("TopK", [x4, Init(np.array([3], np.int64))], lambda x, k: torch.topk(x, 3, dim=-1, largest=False),
         domain="", attrs={"axis": -1, "largest": 0}, source_opset=11, n_outputs=2),
    # Dropout in inference (and its mask), BatchNormalization of every version
    Case("Dropout", [x4], lambda x: x, domain="", torch=False, attrs={"ratio": 0.3},
         source_opset=9),
    Case("Dropout", [x4], lambda x: (x, np.ones(x.shape, bool)), domain="", torch=False,
         source_opset=13, n_outputs=2),
    Case("BatchNormalization",
         [x4, Init(f32(3)), Init(f32(3)), Init(f32(3)), Init(np.abs(f32(3)) + 0.5)],
         lambda x, s, b, m, v: F.batch_norm(x, m, v, s, b, False, 0.1, 1e-3), domain="",
         attrs={"epsilon": 1e-3}, source_opset=9),
    Case("BatchNormalization",
         [x4, Init(f32(3)), Init(f32(3)), Init(f32(3)), Init(np.abs(f32(3)) + 0.5)],
         lambda x, s, b, m, v: F.batch_norm(x, m, v, s, b, False, 0.1, 1e-5), domain="",
         source_opset=15),
    # Upsample / Resize
    Case("Upsample", [f32(1, 2, 2, 3), Init(np.array([1, 1, 2, 3], np.float32))],
         lambda x, s: x.repeat(2, axis=2).repeat(3, axis=3), domain="", torch=False,
         attrs={"mode": "nearest"}, source_opset=9),
    Case("Upsample", [f32(1, 2, 3, 4), Init(np.array([1, 1, 2, 2], np.float32))],
         lambda x, s: linear_asym(x, [1, 1, 2, 2]), domain="", torch=False,
         attrs={"mode": "linear"}, source_opset=9),
    Case("Resize", [f32(1, 2, 3, 4), Init(np.zeros(0, np.float32)),
                    Init(np.array([1, 1, 2, 2], np.float32))],
         lambda x, r, s: F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=True),
         domain="", attrs={"mode": "linear", "coordinate_transformation_mode": "align_corners"},
         source_opset=11),
    Case("Resize", [f32(1, 2, 3, 4), None, None, Init(np.array([1, 2, 6, 8], np.int64))],
         lambda x, r, s, z: F.interpolate(x, size=(6, 8), mode="nearest"), domain="",
         attrs={"mode": "nearest", "coordinate_transformation_mode": "asymmetric",
                "nearest_mode": "floor"}, source_opset=13),
    Case("Resize", [f32(1, 2, 3, 4), None, Init(np.array([1, 1, 2, 2], np.float32))],
         lambda x, r, s: F.interpolate(x, scale_factor=2, mode="bicubic", align_corners=False),
         domain="", attrs={"mode": "cubic", "cubic_coeff_a": -0.75}, source_opset=13),
    # Constant encodings (value_ints from 12), Scatter <-> ScatterElements
    Case("Constant", [], lambda: np.array([3, 1, 4], np.int64), domain="", torch=False,
         attrs={"value_ints": [3, 1, 4]}, source_opset=13),
    Case("Scatter", [np.zeros((3, 3), np.float32), Init(np.array([[1, 0, 2]], np.int64)),
                     Init(np.array([[1.0, 2.0, 3.0]], np.float32))],
         lambda d, i, u: torch.scatter(d, 0, i, u), domain="", attrs={"axis": 0},
         source_opset=9),
    Case("ScatterElements", [np.zeros((3, 3), np.float32), Init(np.array([[1, 0, 2]], np.int64)),
                             Init(np.array([[1.0, 2.0, 3.0]], np.float32))],
         lambda d, i, u: torch.scatter(d, 1, i, u), domain="", attrs={"axis": 1},
         source_opset=13),
]
