"""Numeric cases of tensor creation (symbolics/creation.c): arange, zeros, ones, full, the
*_like and new_* variants, linspace, bernoulli. Positional arguments as in PyTorch's schemas (the
layout/device/pin_memory arguments are None); dtypes are torch ScalarType numbers
(4 int64, 6 float32, 7 float64, 11 bool). Run-time scalars and sizes are 0-D graph inputs."""
import numpy as np
import torch

from harness import OPSETS, Case, Dyn, Init

rng = np.random.default_rng(11)
aten = torch.ops.aten
I64, F32, F64, BOOL, I32 = 4, 6, 7, 11, 3
TD = {None: None, I64: torch.int64, F32: torch.float32, F64: torch.float64, BOOL: torch.bool,
      I32: torch.int32}


def f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def i64(*shape):
    return rng.integers(-9, 9, size=shape).astype(np.int64)


def scalar(v, dtype):
    return Dyn(np.array(v, dtype=dtype), [])


def item(v):
    return v.item() if isinstance(v, torch.Tensor) else v


def sizes(s):
    return [int(item(v)) for v in s]


NONE4 = [None] * 4
RUL_ORT = [o for o in OPSETS if not 22 <= o <= 26]
CASES = [
    # arange: (end), (start, end), (start, end, step); literals, a dtype, run-time bounds (Range-11)
    Case("arange", [5] + NONE4, lambda e, *r: torch.arange(e)),
    Case("arange", [2.5] + NONE4, lambda e, *r: torch.arange(e)),
    Case("arange", [2, 9] + NONE4, lambda s, e, *r: torch.arange(s, e)),
    Case("arange", [1, 10, 3] + NONE4, lambda s, e, st, *r: torch.arange(s, e, st)),
    Case("arange", [10, 0, -3] + NONE4, lambda s, e, st, *r: torch.arange(s, e, st)),
    Case("arange", [0.0, 1.0, 0.1] + NONE4, lambda s, e, st, *r: torch.arange(s, e, st)),
    Case("arange", [-1.5, 2.25, 0.75] + NONE4, lambda s, e, st, *r: torch.arange(s, e, st)),
    Case("arange", [0, 5, 1, F64, None, None, None],
         lambda s, e, st, d, *r: torch.arange(s, e, st, dtype=TD[d])),
    Case("arange", [0.5, 5.5, 1, I64, None, None, None],
         lambda s, e, st, d, *r: torch.arange(s, e, st, dtype=TD[d])),
    Case("arange", [3, I32, None, None, None], lambda e, d, *r: torch.arange(e, dtype=TD[d])),
    Case("arange", [scalar(7, np.int64)] + NONE4, lambda e, *r: torch.arange(item(e)),
         min_opset=11),
    Case("arange", [scalar(4.5, np.float32)] + NONE4,
         lambda e, *r: torch.arange(item(e)).float(), min_opset=11),
    Case("arange", [scalar(2, np.int64), scalar(11, np.int64), 3] + NONE4,
         lambda s, e, st, *r: torch.arange(item(s), item(e), st), min_opset=11),
    # zeros / ones (static sizes, a dtype, sizes computed at run time)
    Case("zeros", [[2, 3]] + NONE4, lambda s, *r: torch.zeros(s)),
    Case("zeros", [[4], I64, None, None, None], lambda s, d, *r: torch.zeros(s, dtype=TD[d])),
    Case("zeros", [[scalar(2, np.int64), Init(np.array(3))]] + NONE4,
         lambda s, *r: torch.zeros(sizes(s))),
    Case("ones", [[3, 1, 2]] + NONE4, lambda s, *r: torch.ones(s)),
    Case("ones", [[2, 2], BOOL, None, None, None], lambda s, d, *r: torch.ones(s, dtype=TD[d])),
    Case("ones", [[2, 3], F64, None, None, None], lambda s, d, *r: torch.ones(s, dtype=TD[d])),
    Case("ones", [[scalar(3, np.int64)], I64, None, None, None],
         lambda s, d, *r: torch.ones(sizes(s), dtype=TD[d])),
    # full: the fill value's kind decides the dtype without one
    Case("full", [[2, 3], 1.5] + NONE4, lambda s, v, *r: torch.full(s, v)),
    Case("full", [[2, 3], 7] + NONE4, lambda s, v, *r: torch.full(s, v)),
    Case("full", [[2], True] + NONE4, lambda s, v, *r: torch.full(s, v)),
    Case("full", [[2, 2], 3, F64, None, None, None], lambda s, v, d, *r: torch.full(s, v, dtype=TD[d])),
    Case("full", [[2, 3], scalar(2.5, np.float32)] + NONE4,
         lambda s, v, *r: torch.full(s, item(v))),
    Case("full", [[scalar(3, np.int64), scalar(2, np.int64)], -4] + NONE4,
         lambda s, v, *r: torch.full(sizes(s), v)),
    # *_like: the input's dtype and shape (symbolic dims read at run time)
    Case("zeros_like", [f32(2, 3)] + NONE4 + [None], lambda x, *r: torch.zeros_like(x)),
    Case("zeros_like", [f32(2, 3), I64] + [None] * 4,
         lambda x, d, *r: torch.zeros_like(x, dtype=TD[d])),
    Case("zeros_like", [Dyn(f32(2, 3), ["N", 3])] + NONE4 + [None],
         lambda x, *r: torch.zeros_like(x)),
    Case("ones_like", [i64(3, 2)] + NONE4 + [None], lambda x, *r: torch.ones_like(x)),
    Case("ones_like", [Dyn(f32(4), ["N"]), F64] + [None] * 4,
         lambda x, d, *r: torch.ones_like(x, dtype=TD[d])),
    Case("full_like", [f32(2, 3), 2.5] + NONE4 + [None], lambda x, v, *r: torch.full_like(x, v)),
    Case("full_like", [i64(4), 3.9] + NONE4 + [None], lambda x, v, *r: torch.full_like(x, v)),
    Case("full_like", [Dyn(f32(2, 5), [2, "W"]), -1] + NONE4 + [None],
         lambda x, v, *r: torch.full_like(x, v)),
    # new_*: self's dtype unless one is given
    Case("new_zeros", [f32(2), [3, 4]] + NONE4, lambda x, s, *r: x.new_zeros(s)),
    Case("new_zeros", [f32(2), [3], I64, None, None, None],
         lambda x, s, d, *r: x.new_zeros(s, dtype=TD[d])),
    Case("new_ones", [i64(2), [2, 3]] + NONE4, lambda x, s, *r: x.new_ones(s)),
    Case("new_full", [i64(2), [2, 3], 5] + NONE4, lambda x, s, v, *r: x.new_full(s, v)),
    Case("new_full", [f32(1), [4], -0.5, F64, None, None, None],
         lambda x, s, v, d, *r: x.new_full(s, v, dtype=TD[d])),
    # linspace: PyTorch's symmetric formula, float32 / float64 / int64, one step, run-time ends
    Case("linspace", [0, 1, 5] + NONE4, lambda a, b, n, *r: torch.linspace(a, b, n)),
    Case("linspace", [-2.5, 7.3, 11] + NONE4, lambda a, b, n, *r: torch.linspace(a, b, n)),
    Case("linspace", [0.1, 1e3, 7, F64, None, None, None],
         lambda a, b, n, d, *r: torch.linspace(a, b, n, dtype=TD[d])),
    Case("linspace", [0, 10, 4, I64, None, None, None],
         lambda a, b, n, d, *r: torch.linspace(a, b, n, dtype=TD[d])),
    Case("linspace", [-3, 8, 6, I64, None, None, None],
         lambda a, b, n, d, *r: torch.linspace(a, b, n, dtype=TD[d])),
    Case("linspace", [3, 3, 1] + NONE4, lambda a, b, n, *r: torch.linspace(a, b, n)),
    Case("linspace", [scalar(0.5, np.float32), scalar(4.0, np.float32), 7] + NONE4,
         lambda a, b, n, *r: torch.linspace(item(a), item(b), n)),
    Case("linspace", [scalar(-1.0, np.float32), 2, 4, F64, None, None, None],
         lambda a, b, n, d, *r: torch.linspace(item(a), b, n, dtype=TD[d])),
    # empty.memory_format(size, dtype, layout, device, pin_memory, memory_format): any contents
    # are valid; the export writes zeros (the reference too)
    Case("empty", [[2, 3]] + NONE4 + [None], lambda s, *r: torch.zeros(s)),
    Case("empty", [[4], I64] + [None] * 4, lambda s, d, *r: torch.zeros(s, dtype=TD[d])),
    Case("empty", [[0], 0] + [None] * 4, lambda s, d, *r: torch.zeros(s, dtype=torch.uint8)),
    Case("empty", [[scalar(2, np.int64), Init(np.array(3))]] + NONE4 + [None],
         lambda s, *r: torch.zeros(sizes(s))),
    # fill.Scalar / fill.Tensor(self, value): fill_ made functional; self's dtype
    Case("fill", [f32(2, 3), 2.5], lambda x, v: aten.fill(x, v)),
    Case("fill", [i64(4), 3.9], lambda x, v: aten.fill(x, v)),
    Case("fill", [Dyn(f32(2, 5), [2, "W"]), np.array(1.5, np.float64)],
         lambda x, v: aten.fill(x, v), min_opset=8),  # Expand to a run-time shape
    Case("fill", [i64(2, 2), scalar(7.0, np.float32)], lambda x, v: aten.fill(x, v)),
    # bernoulli: random, so only what p fixes is compared, 0 and 1 exactly (the mean of a p in
    # between: tests/py/test_convert_ops.py); (self), .p (a float) and .Tensor (broadcast to
    # self). Not at 22-26: ONNX Runtime 1.30 has no kernel for RandomUniformLike-22.
    Case("bernoulli", [np.array([[0, 1, 1], [1, 0, 0]], np.float32), None], lambda x, g: torch.bernoulli(x),
         opsets=RUL_ORT),
    Case("bernoulli", [np.array([0, 1, 0, 1], np.float64), None], lambda x, g: torch.bernoulli(x),
         opsets=RUL_ORT),
    Case("bernoulli", [f32(2, 3), 1.0, None], lambda x, p, g: torch.bernoulli(x, p), opsets=RUL_ORT),
    Case("bernoulli", [f32(3), 0.0, None], lambda x, p, g: torch.bernoulli(x, p), opsets=RUL_ORT),
    Case("bernoulli", [f32(2, 3), np.array([[1], [0]], np.float32), None],
         lambda x, p, g: torch.bernoulli(p.expand(x.shape).contiguous()), opsets=RUL_ORT),
]
