"""Numeric cases of normalization (symbolics/norm.c): batch_norm (running statistics, and
training=True), instance_norm (with and without running statistics / affine), layer_norm and
native_layer_norm (LayerNormalization-17, decomposed below), group_norm and native_group_norm
(GroupNormalization-21, decomposed below), rms_norm (RMSNormalization-23, decomposed below; NumPy
reference, torch 1.13 lacks it), local_response_norm (LRN for odd sizes on 4-D, else PyTorch's own
AveragePool formulation)."""
import numpy as np
import torch

from harness import Case, Dyn, Init

aten = torch.ops.aten
F = torch.nn.functional
rng = np.random.default_rng(13)


def f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def f64(*shape):
    return rng.standard_normal(shape).astype(np.float64)


def pos32(*shape):
    return rng.uniform(0.5, 2.0, shape).astype(np.float32)


x4 = f32(2, 6, 3, 4)
x3 = f32(2, 6, 5)
w6, b6, m6, v6 = f32(6), f32(6), f32(6), pos32(6)


def rms_ref(x, shape, w=None, eps=None):
    axes = tuple(range(x.ndim - len(shape), x.ndim))
    if eps is None:
        eps = np.finfo(x.dtype).eps
    y = x / np.sqrt(np.mean(x * x, axis=axes, keepdims=True) + np.asarray(eps, x.dtype))
    return (y * w if w is not None else y).astype(x.dtype)


def lrn(x, size, alpha, beta, k):
    return F.local_response_norm(x, size, alpha, beta, k)


CASES = [
    # batch_norm in inference (running statistics), affine or not, 2-D to 5-D
    Case("batch_norm", [x4, Init(w6), Init(b6), Init(m6), Init(v6), False, 0.1, 1e-5, True],
         aten.batch_norm),
    Case("batch_norm", [x4, None, None, Init(m6), Init(v6), False, 0.1, 1e-3, True],
         aten.batch_norm),
    Case("batch_norm", [f32(5, 6), Init(w6), Init(b6), Init(m6), Init(v6), False, 0.1, 1e-5,
                        True], aten.batch_norm),
    Case("batch_norm", [f32(1, 6, 2, 3, 2), Init(w6), None, Init(m6), Init(v6), False, 0.1, 1e-5,
                        True], aten.batch_norm),
    Case("batch_norm", [Dyn(x4, ["N", 6, "H", "W"]), w6, b6, m6, v6, False, 0.1, 1e-5, True],
         aten.batch_norm),
    Case("batch_norm", [x4, Init(w6), Init(b6), None, None, True, 0.1, 1e-5, True],
         aten.batch_norm),
    Case("batch_norm", [f64(3, 6, 4), Init(w6.astype(np.float64)), Init(b6.astype(np.float64)),
                        Init(m6.astype(np.float64)), Init(v6.astype(np.float64)), False, 0.1, 1e-5,
                        True], aten.batch_norm),
    # instance_norm: input statistics (affine or not), running statistics
    Case("instance_norm", [x4, Init(w6), Init(b6), None, None, True, 0.1, 1e-5, True],
         aten.instance_norm),
    Case("instance_norm", [x3, None, None, None, None, True, 0.1, 1e-5, True],
         aten.instance_norm),
    Case("instance_norm", [x4, None, None, Init(m6), Init(v6), True, 0.1, 1e-5, True],
         aten.instance_norm),
    Case("instance_norm", [x4, Init(w6), Init(b6), Init(m6), Init(v6), False, 0.1, 1e-5, True],
         aten.instance_norm),
    Case("instance_norm", [Dyn(f32(2, 6, 3, 4, 2), ["N", 6, "D", "H", "W"]), Init(w6), None,
                           None, None, True, 0.1, 1e-3, True], aten.instance_norm),
    # layer_norm / native_layer_norm over the last 1..3 dims, affine or not
    Case("layer_norm", [x4, [4], Init(f32(4)), Init(f32(4)), 1e-5, True], aten.layer_norm),
    Case("layer_norm", [x4, [3, 4], Init(f32(3, 4)), None, 1e-5, True], aten.layer_norm),
    Case("layer_norm", [x4, [6, 3, 4], None, None, 1e-3, True], aten.layer_norm),
    Case("layer_norm", [x4, [4], None, Init(f32(4)), 1e-5, True], aten.layer_norm),
    Case("layer_norm", [Dyn(f32(2, 5, 8), ["B", "T", 8]), [8], f32(8), f32(8), 1e-5, True],
         aten.layer_norm),
    Case("layer_norm", [f64(3, 7), [7], Init(f64(7)), Init(f64(7)), 1e-5, True],
         aten.layer_norm),
    Case("native_layer_norm", [x4, [4], Init(f32(4)), Init(f32(4)), 1e-5],
         aten.native_layer_norm),
    Case("native_layer_norm", [x4, [3, 4], None, None, 1e-5], aten.native_layer_norm),
    Case("native_layer_norm", [f64(3, 7), [7], Init(f64(7)), None, 1e-5],
         aten.native_layer_norm),
    Case("native_layer_norm", [x4, [3, 4], Init(f32(3, 4)), Init(f32(3, 4)), 1e-5],
         lambda *a: aten.native_layer_norm(*a)[0], n_outputs=1,
         name="native_layer_norm(output 0 only)"),
    Case("native_group_norm", [f64(2, 4, 3), Init(f64(4)), None, 2, 4, 3, 2, 1e-5],
         aten.native_group_norm),
    # group_norm / native_group_norm: groups 1, some, one per channel; affine or not
    Case("group_norm", [x4, 3, Init(w6), Init(b6), 1e-5, True], aten.group_norm),
    Case("group_norm", [x4, 1, None, None, 1e-5, True], aten.group_norm),
    Case("group_norm", [x3, 6, Init(w6), None, 1e-3, True], aten.group_norm),
    Case("group_norm", [f32(3, 6), 2, Init(w6), Init(b6), 1e-5, True], aten.group_norm),
    Case("group_norm", [Dyn(x4, ["N", 6, "H", "W"]), 2, w6, b6, 1e-5, True], aten.group_norm),
    Case("group_norm", [f32(1, 6, 2, 3, 2), 2, Init(w6), Init(b6), 1e-5, True], aten.group_norm),
    Case("group_norm", [f64(2, 6, 5), 3, Init(f64(6)), Init(f64(6)), 1e-5, True],
         aten.group_norm),
    Case("native_group_norm", [x4, Init(w6), Init(b6), 2, 6, 12, 3, 1e-5],
         aten.native_group_norm),
    Case("native_group_norm", [x3, None, None, 2, 6, 5, 2, 1e-5], aten.native_group_norm),
    Case("native_group_norm", [x4, Init(w6), Init(b6), 2, 6, 12, 3, 1e-5],
         lambda *a: aten.native_group_norm(*a)[0], n_outputs=1,
         name="native_group_norm(output 0 only)"),
    # rms_norm (NumPy reference): eps given or the dtype's, weight or not
    Case("rms_norm", [x4, [4], Init(f32(4)), 1e-6], rms_ref, torch=False),
    Case("rms_norm", [x4, [3, 4], None, None], rms_ref, torch=False),
    Case("rms_norm", [Dyn(f32(2, 5, 8), ["B", "T", 8]), [8], f32(8), 1e-5], rms_ref,
         torch=False),
    Case("rms_norm", [f64(3, 7), [7], Init(f64(7)), None], rms_ref, torch=False),
    # local_response_norm: odd and even sizes, 3-D, 4-D, 5-D
    Case("local_response_norm", [x4, 3, 1e-2, 0.75, 2.0], lrn),
    Case("local_response_norm", [x4, 4, 1e-4, 0.75, 1.0], lrn),
    Case("local_response_norm", [x4, 1, 0.5, 0.5, 1.0], lrn),
    Case("local_response_norm", [x3, 5, 1e-1, 0.6, 1.5], lrn),
    Case("local_response_norm", [f32(2, 6, 2, 3, 2), 2, 1e-1, 0.75, 1.0], lrn),
    Case("local_response_norm", [Dyn(x4, ["N", 6, "H", "W"]), 3, 1e-2, 0.75, 2.0], lrn),
    # native_batch_norm (make_fx, torch.export): (out, save_mean, save_rstd); with training the
    # batch mean and 1 / sqrt(var + eps); without, save_* are empty: output 0 only
    Case("native_batch_norm", [x4, Init(w6), Init(b6), Init(m6), Init(v6), False, 0.1, 1e-5],
         lambda *a: aten.native_batch_norm(*a)[0], n_outputs=1,
         name="native_batch_norm(inference, output 0)"),
    Case("native_batch_norm", [Dyn(x4, ["N", 6, "H", "W"]), None, None, Init(m6), Init(v6),
                               False, 0.1, 1e-3],
         lambda *a: aten.native_batch_norm(*a)[0], n_outputs=1),
    Case("native_batch_norm", [x4, Init(w6), Init(b6), None, None, True, 0.1, 1e-5],
         lambda *a: aten.native_batch_norm(*a)),
    Case("native_batch_norm", [f64(3, 6, 4), None, Init(b6.astype(np.float64)), None, None, True,
                               0.1, 1e-5], lambda *a: aten.native_batch_norm(*a)),
]
