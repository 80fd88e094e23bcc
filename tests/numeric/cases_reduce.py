"""Numeric cases of the reductions (symbolics/reduce.c): every overload (all elements, dims as
a list or one int, keepdim, dtype), negative and repeated-sign dims, integer and bool inputs
(which PyTorch sums in int64), and dynamic dims (std/var count the reduced elements at run time;
cumsum below opset 11 needs the scanned dim's size)."""
import numpy as np
import torch

from harness import Case, Dyn

aten = torch.ops.aten
rng = np.random.default_rng(13)


def f32(*shape, lo=-3.0, hi=3.0):
    return rng.uniform(lo, hi, size=shape).astype(np.float32)


def i64(*shape, lo=-20, hi=20):
    return rng.integers(lo, hi, size=shape).astype(np.int64)


def i32(*shape, lo=-20, hi=20):
    return rng.integers(lo, hi, size=shape).astype(np.int32)


def bools(*shape):
    return rng.integers(0, 2, size=shape).astype(bool)


x = f32(2, 3, 4)
xd = Dyn(x, ["N", 3, "T"])
ties = np.array([[1.0, 3.0, 3.0, 2.0], [-1.0, -1.0, -5.0, -5.0], [0.0, 0.0, 0.0, 0.0]], np.float32)

CASES = [
    # sum / mean / prod: all, dims, keepdim, dtype, integers to int64
    Case("sum", [x, None], lambda a, d: torch.sum(a)),
    Case("sum", [x, [1], False, None], lambda a, d, k, t: torch.sum(a, d, k)),
    Case("sum", [x, [0, -1], True, None], lambda a, d, k, t: torch.sum(a, d, k)),
    Case("sum", [x, [], False, None], lambda a, d, k, t: torch.sum(a, d, k)),
    Case("sum", [xd, [-1], False, None], lambda a, d, k, t: torch.sum(a, d, k)),
    Case("sum", [i32(3, 4), None], lambda a, d: torch.sum(a)),
    Case("sum", [bools(3, 4), [1], False, None], lambda a, d, k, t: torch.sum(a, d, k)),
    Case("sum", [np.arange(12, dtype=np.uint8).reshape(3, 4), [0], True, None],
         lambda a, d, k, t: torch.sum(a, d, k)),
    Case("sum", [x, [2], False, 7], lambda a, d, k, t: torch.sum(a, d, k, dtype=torch.float64)),
    Case("sum", [i64(3, 4), 6], lambda a, t: torch.sum(a, dtype=torch.float32)),
    Case("mean", [x, None], lambda a, t: torch.mean(a)),
    Case("mean", [x, [1, 2], False, None], lambda a, d, k, t: torch.mean(a, d, k)),
    Case("mean", [x, [-2], True, None], lambda a, d, k, t: torch.mean(a, d, k)),
    Case("mean", [xd, [0], False, None], lambda a, d, k, t: torch.mean(a, d, k)),
    Case("mean", [i64(3, 4), [1], False, 6], lambda a, d, k, t: torch.mean(a, d, k, dtype=torch.float32)),
    Case("prod", [f32(2, 3, lo=0.5, hi=1.5), None], lambda a, t: torch.prod(a)),
    Case("prod", [x, 1, False, None], lambda a, d, k, t: torch.prod(a, d, k)),
    Case("prod", [x, -1, True, None], lambda a, d, k, t: torch.prod(a, d, k)),
    Case("prod", [i32(3, 4, lo=-3, hi=4), 0, False, None], lambda a, d, k, t: torch.prod(a, d, k)),
    Case("prod", [bools(3, 4), None], lambda a, t: torch.prod(a)),
    # amax / amin
    Case("amax", [x, [1], False], torch.amax),
    Case("amax", [x, [0, 2], True], torch.amax),
    Case("amax", [x, [], False], torch.amax),
    Case("amax", [i64(3, 4), [-1], False], torch.amax),
    Case("amax", [bools(3, 4), [1], False], torch.amax),
    Case("amin", [x, [-1], True], torch.amin),
    Case("amax", [np.array([[1.0, -np.inf, 2.0], [np.inf, -1.0, 0.0]], np.float32), [1], False],
         torch.amax),
    Case("amin", [i32(3, 4), [0], False], torch.amin),
    Case("amin", [np.arange(12, dtype=np.uint8).reshape(3, 4), [1], False], torch.amin),
    # max / min: all, dim with indices (ties: the first), of two tensors
    Case("max", [x], torch.max),
    Case("max", [i64(3, 4)], torch.max),
    Case("max", [ties, 1, False], lambda a, d, k: torch.max(a, d, k)),
    Case("max", [x, -1, True], lambda a, d, k: torch.max(a, d, k)),
    Case("max", [i32(3, 4), 0, False], lambda a, d, k: torch.max(a, d, k)),
    Case("max", [xd, 2, False], lambda a, d, k: torch.max(a, d, k)),
    Case("max", [x, f32(4)], torch.max),
    Case("min", [x], torch.min),
    Case("min", [ties, 1, False], lambda a, d, k: torch.min(a, d, k)),
    Case("min", [x, 0, True], lambda a, d, k: torch.min(a, d, k)),
    Case("min", [i64(2, 3), i64(3)], torch.min),
    # argmax / argmin: dim None (flattened), keepdim, ties
    Case("argmax", [x, None, False], torch.argmax),
    Case("argmax", [x, None, True], torch.argmax),
    Case("argmax", [ties, 1, False], torch.argmax),
    Case("argmax", [x, -2, True], torch.argmax),
    Case("argmax", [i64(3, 4), 0, False], torch.argmax),
    Case("argmax", [xd, 1, False], torch.argmax),
    Case("argmin", [ties, 1, False], torch.argmin),
    Case("argmin", [x, None, False], torch.argmin),
    Case("argmin", [i32(3, 4), -1, True], torch.argmin),
    # any / all: all elements, a dim, keepdim, floats (nonzero), uint8 (stays uint8)
    Case("any", [bools(3, 4)], torch.any),
    Case("any", [bools(3, 4), 1, False], torch.any),
    Case("any", [np.array([[0, 0, 0], [0, 1, 0]], bool), 1, True], torch.any),
    Case("any", [np.array([[0.0, 0.0], [0.5, np.nan]], np.float32), 0, False], torch.any),
    Case("any", [np.array([[0, 0, 3], [0, 0, 0]], np.uint8), -1, False], torch.any),
    Case("all", [bools(3, 4)], torch.all),
    Case("all", [np.array([[1, 1, 1], [0, 1, 1]], bool), 1, False], torch.all),
    Case("all", [np.array([[1, 1, 1], [0, 1, 1]], bool), 0, True], torch.all),
    Case("all", [i64(3, 4, lo=0, hi=3), 0, False], torch.all),
    Case("all", [np.array([[1, 2], [3, 0]], np.uint8)], torch.all),
    # var / std: unbiased, dims, keepdim, correction, dynamic dims
    Case("var", [x, True], torch.var),
    Case("var", [x, False], torch.var),
    Case("var", [x, [1], True, False], lambda a, d, u, k: torch.var(a, d, u, k)),
    Case("var", [x, [0, 2], False, True], lambda a, d, u, k: torch.var(a, d, u, k)),
    Case("var", [x, [-1], 0, False], lambda a, d, c, k: torch.var(a, d, correction=c, keepdim=k)),
    Case("var", [x, None, 2, True], lambda a, d, c, k: torch.var(a, d, correction=c, keepdim=k)),
    Case("var", [xd, [2], True, False], lambda a, d, u, k: torch.var(a, d, u, k)),
    Case("var", [xd, None, None, False], lambda a, d, c, k: torch.var(a, d, correction=c, keepdim=k)),
    Case("std", [x, True], torch.std),
    Case("std", [x, [1, 2], True, True], lambda a, d, u, k: torch.std(a, d, u, k)),
    Case("std", [x, [0], False, False], lambda a, d, u, k: torch.std(a, d, u, k)),
    Case("std", [xd, [0], True, False], lambda a, d, u, k: torch.std(a, d, u, k)),
    Case("std", [x, [-1], 0, True], lambda a, d, c, k: torch.std(a, d, correction=c, keepdim=k)),
    # norm: p = 2, 1, inf, -inf, 0, 3; dims; keepdim; dtype; frobenius_norm; linalg_vector_norm
    Case("norm", [x], lambda a: torch.norm(a)),
    Case("norm", [x, 1], lambda a, p: aten.norm(a, p)),
    Case("norm", [x, 3.0], lambda a, p: aten.norm(a, p)),
    Case("norm", [x, 2, [1], False], lambda a, p, d, k: aten.norm(a, p, d, k)),
    Case("norm", [x, 1, [0, -1], True], lambda a, p, d, k: aten.norm(a, p, d, k)),
    Case("norm", [x, float("inf"), [2], False], lambda a, p, d, k: aten.norm(a, p, d, k)),
    Case("norm", [x, float("-inf"), [1], True], lambda a, p, d, k: aten.norm(a, p, d, k)),
    Case("norm", [np.array([[0, 1.5, 0], [2, 0, -3]], np.float32), 0, [1], False],
         lambda a, p, d, k: aten.norm(a, p, d, k)),
    Case("norm", [x, 2, 7], lambda a, p, t: aten.norm(a, p, dtype=torch.float64)),
    Case("norm", [xd, 2, [1], False], lambda a, p, d, k: aten.norm(a, p, d, k)),
    Case("frobenius_norm", [x, [], False], lambda a, d, k: aten.frobenius_norm(a, d, k)),
    Case("frobenius_norm", [x, [1, 2], True], lambda a, d, k: aten.frobenius_norm(a, d, k)),
    Case("linalg_vector_norm", [x, 2, None, False, None],
         lambda a, o, d, k, t: aten.linalg_vector_norm(a, o, d, k)),
    Case("linalg_vector_norm", [x, 1, [0], True, None],
         lambda a, o, d, k, t: aten.linalg_vector_norm(a, o, d, k)),
    Case("linalg_vector_norm", [x, float("inf"), [-1], False, None],
         lambda a, o, d, k, t: aten.linalg_vector_norm(a, o, d, k)),
    # logsumexp: large values (stability), dims, keepdim, integers
    Case("logsumexp", [x, [1], False], torch.logsumexp),
    Case("logsumexp", [x * 40, [0, 2], True], torch.logsumexp),
    Case("logsumexp", [f32(3, 4, lo=80, hi=100), [-1], False], torch.logsumexp),
    Case("logsumexp", [i64(3, 4, lo=0, hi=5), [1], False], torch.logsumexp),
    # cumsum: each dim, negative, dtype, integers and bools (int64), dynamic
    Case("cumsum", [x, 0, None], lambda a, d, t: torch.cumsum(a, d)),
    Case("cumsum", [x, -1, None], lambda a, d, t: torch.cumsum(a, d)),
    Case("cumsum", [x, 1, None], lambda a, d, t: torch.cumsum(a, d)),
    Case("cumsum", [f32(7), 0, None], lambda a, d, t: torch.cumsum(a, d)),
    Case("cumsum", [x, 2, 7], lambda a, d, t: torch.cumsum(a, d, dtype=torch.float64)),
    Case("cumsum", [i64(3, 4), 1, None], lambda a, d, t: torch.cumsum(a, d), min_opset=9),
    Case("cumsum", [bools(3, 4), 0, None], lambda a, d, t: torch.cumsum(a, d), min_opset=9),
    Case("cumsum", [i32(3, 4), 1, 6], lambda a, d, t: torch.cumsum(a, d, dtype=torch.float32)),
    Case("cumsum", [Dyn(x, ["N", 3, 4]), 2, None], lambda a, d, t: torch.cumsum(a, d)),
    Case("cumsum", [Dyn(x, [2, 3, "T"]), -1, None], lambda a, d, t: torch.cumsum(a, d), min_opset=11),
    # cumprod: CumProd-26, else Where (9) and ReduceProd over a triangle; dims, dtype, integers
    Case("cumprod", [x, 0, None], lambda a, d, t: torch.cumprod(a, d), min_opset=9),
    Case("cumprod", [x, -1, None], lambda a, d, t: torch.cumprod(a, d), min_opset=9),
    Case("cumprod", [x, 1, 7], lambda a, d, t: torch.cumprod(a, d, dtype=torch.float64), min_opset=9),
    Case("cumprod", [i64(3, 4, lo=-3, hi=4), 1, None], lambda a, d, t: torch.cumprod(a, d), min_opset=9),
    Case("cumprod", [Dyn(x, ["N", 3, 4]), 2, None], lambda a, d, t: torch.cumprod(a, d), min_opset=9),
]
