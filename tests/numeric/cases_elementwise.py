"""Numeric cases of elementwise arithmetic, math, comparison and logic (symbolics/elementwise.c).

Dtypes are chosen where ONNX's type constraints change across opsets (integers on ops that took
only floats before opset 9/11/12/14, bool operands, 0-D tensors and Python scalars in PyTorch's
type promotion), and values where the decompositions could go wrong (ties of round, signs of
remainder, NaN and inf in comparisons)."""
import numpy as np
import torch

from harness import Case, Dyn, Init

aten = torch.ops.aten
rng = np.random.default_rng(7)


def f32(*shape, lo=-3.0, hi=3.0):
    return rng.uniform(lo, hi, size=shape).astype(np.float32)


def f64(*shape, lo=-3.0, hi=3.0):
    return rng.uniform(lo, hi, size=shape).astype(np.float64)


def f16(*shape, lo=-3.0, hi=3.0):
    return rng.uniform(lo, hi, size=shape).astype(np.float16)


def ints(dtype, *shape, lo=-20, hi=20):
    return rng.integers(lo, hi, size=shape).astype(dtype)


def i64(*shape, lo=-20, hi=20):
    return ints(np.int64, *shape, lo=lo, hi=hi)


def i32(*shape, lo=-20, hi=20):
    return ints(np.int32, *shape, lo=lo, hi=hi)


def nonzero(a):
    a = a.copy()
    a[a == 0] = 1
    return a


def bools(*shape):
    return rng.integers(0, 2, size=shape).astype(bool)


x23, y23 = f32(2, 3), f32(2, 3)
x234 = f32(2, 3, 4)
special = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.5, -2.0, 3.0], np.float32)
special2 = np.array([np.nan, np.inf, 1.0, 0.0, np.nan, 1.5, -3.0, np.inf], np.float32)
pos = f32(2, 3, lo=0.1, hi=4.0)
unit = f32(2, 3, lo=-0.95, hi=0.95)
scalar_f = np.array(1.5, np.float32)
scalar_i = np.array(3, np.int64)

# dividends and divisors of every sign, with exact multiples, for the rounding modes
num_f = np.array([[7.5, -7.5, 7.5, -7.5, 6.0, -6.0], [1.0, 0.0, -0.0, 5.25, -1e-3, 100.0]], np.float32)
den_f = np.array([[2.0, 2.0, -2.0, -2.0, 3.0, 3.0], [0.1, 3.0, -3.0, -0.75, 2.0, -7.0]], np.float32)
num_i = np.array([[7, -7, 7, -7, 6, -6], [0, 1, -1, 19, -19, 5]], np.int64)
den_i = np.array([[2, 2, -2, -2, 3, -3], [5, 4, 4, -4, 4, 1]], np.int64)


CASES = [
    # ---- add / sub / rsub / mul: tensor-tensor, broadcast, Python scalars, 0-D tensors, alpha
    Case("add", [x23, y23, 1], lambda a, b, al: torch.add(a, b, alpha=al)),
    Case("add", [x234, f32(4), 2.5], lambda a, b, al: torch.add(a, b, alpha=al)),
    Case("add", [i64(2, 3), 2, 1], lambda a, b, al: torch.add(a, b, alpha=al)),
    Case("add", [i64(2, 3), 2.5, 1], lambda a, b, al: torch.add(a, b, alpha=al)),
    Case("add", [i32(2, 3), scalar_i, 1], lambda a, b, al: torch.add(a, b, alpha=al)),
    Case("add", [i32(2, 3), scalar_f, 1], lambda a, b, al: torch.add(a, b, alpha=al)),
    Case("add", [ints(np.uint8, 2, 3, lo=0, hi=250), ints(np.uint8, 2, 3, lo=0, hi=250), 1],
         lambda a, b, al: torch.add(a, b, alpha=al)),
    Case("add", [ints(np.int8, 2, 3), ints(np.uint8, 3, lo=0, hi=100), 1],
         lambda a, b, al: torch.add(a, b, alpha=al)),
    Case("add", [bools(2, 3), bools(2, 3), 1], lambda a, b, al: torch.add(a, b, alpha=al)),
    Case("add", [bools(2, 3), 3, 1], lambda a, b, al: torch.add(a, b, alpha=al)),
    Case("add", [f16(2, 3), f32(2, 3), 1], lambda a, b, al: torch.add(a, b, alpha=al)),
    Case("add", [Dyn(x234, ["N", 3, 4]), f32(3, 1), 1], lambda a, b, al: torch.add(a, b, alpha=al)),
    Case("add", [f64(3), i64(3), -2], lambda a, b, al: torch.add(a, b, alpha=al)),
    Case("sub", [x23, y23, 1], lambda a, b, al: torch.sub(a, b, alpha=al)),
    Case("sub", [i64(2, 3), i64(3), 3], lambda a, b, al: torch.sub(a, b, alpha=al)),
    Case("sub", [x23, 1.25, 2.0], lambda a, b, al: torch.sub(a, b, alpha=al)),
    Case("sub", [ints(np.int16, 4), 7, 1], lambda a, b, al: torch.sub(a, b, alpha=al)),
    Case("rsub", [x23, y23, 1], lambda a, b, al: torch.rsub(a, b, alpha=al)),
    Case("rsub", [x23, 1.0, 1], lambda a, b, al: torch.rsub(a, b, alpha=al)),
    Case("rsub", [i64(2, 3), 5, 2], lambda a, b, al: torch.rsub(a, b, alpha=al)),
    Case("mul", [x23, y23], torch.mul),
    Case("mul", [x234, 0.5], torch.mul),
    Case("mul", [i32(2, 3), i64(2, 3)], torch.mul),
    Case("mul", [ints(np.int8, 2, 3, lo=-10, hi=10), ints(np.int8, 2, 3, lo=-10, hi=10)], torch.mul),
    Case("mul", [bools(2, 3), bools(2, 3)], torch.mul),
    Case("mul", [i64(2, 3), scalar_f], torch.mul),
    # ---- div: true, trunc, floor; floats (incl. exact multiples, 1/0.1) and integers
    Case("div", [x23, nonzero(y23)], torch.div),
    Case("div", [i64(2, 3), nonzero(i64(2, 3))], torch.div),
    Case("div", [i32(2, 3), 4], torch.div),
    Case("div", [num_f, den_f, "trunc"], lambda a, b, m: torch.div(a, b, rounding_mode=m)),
    Case("div", [num_f, den_f, "floor"], lambda a, b, m: torch.div(a, b, rounding_mode=m)),
    Case("div", [num_i, den_i, "trunc"], lambda a, b, m: torch.div(a, b, rounding_mode=m)),
    Case("div", [num_i, den_i, "floor"], lambda a, b, m: torch.div(a, b, rounding_mode=m)),
    Case("div", [num_i.astype(np.int32), 3, "floor"], lambda a, b, m: torch.div(a, b, rounding_mode=m)),
    Case("div", [num_f.astype(np.float64), den_f.astype(np.float64), "floor"],
         lambda a, b, m: torch.div(a, b, rounding_mode=m)),
    Case("div", [x23, 0.3, None], lambda a, b, m: torch.div(a, b, rounding_mode=m)),
    Case("true_divide", [i64(2, 3), 2], torch.true_divide),
    Case("floor_divide", [num_f, den_f], torch.floor_divide),
    Case("floor_divide", [num_i, den_i], torch.floor_divide),
    Case("floor_divide", [num_i, -3], torch.floor_divide),
    Case("floor_divide", [f32(3, 4, lo=-100, hi=100), f32(4, lo=0.5, hi=3)], torch.floor_divide),
    # ---- remainder (divisor's sign) / fmod (dividend's sign)
    Case("remainder", [num_f, den_f], torch.remainder),
    Case("remainder", [num_i, den_i], torch.remainder),
    Case("remainder", [num_i.astype(np.int32), -4], torch.remainder),
    Case("remainder", [f32(3, 4, lo=-100, hi=100), f32(4, lo=-3, hi=-0.5)], torch.remainder),
    Case("remainder", [num_f.astype(np.float64), den_f.astype(np.float64)], torch.remainder),
    Case("remainder", [5, den_i], lambda a, b: torch.remainder(a, b)),
    Case("remainder", [2.5, den_f], lambda a, b: torch.remainder(a, b)),
    Case("fmod", [num_f, den_f], torch.fmod),
    Case("fmod", [num_i, den_i], torch.fmod),
    Case("fmod", [f32(3, 4, lo=-100, hi=100), 2.5], torch.fmod),
    Case("fmod", [num_f.astype(np.float64), den_f.astype(np.float64)], torch.fmod),
    # ---- pow: tensor/scalar exponents, integer bases (Pow-12), a number base
    Case("pow", [pos, f32(2, 3)], torch.pow),
    Case("pow", [x23, 2], torch.pow),
    Case("pow", [x23, 3.0], torch.pow),
    Case("pow", [pos, 0.5], torch.pow),
    Case("pow", [i64(2, 3, lo=-5, hi=5), 3], torch.pow),
    Case("pow", [i64(2, 3, lo=-5, hi=5), 0], torch.pow),
    Case("pow", [i32(2, 3, lo=-5, hi=5), i32(2, 3, lo=0, hi=4)], torch.pow),
    Case("pow", [i64(2, 3, lo=-5, hi=5), 1.5], lambda a, e: torch.pow(a, e)),
    Case("pow", [2.0, f32(2, 3)], lambda a, e: torch.pow(a, e)),
    Case("pow", [2, i64(2, 3, lo=0, hi=10)], lambda a, e: torch.pow(a, e), min_opset=9),
    # 64-bit integer powers below Pow-12: square-and-multiply in int64, wrapping as torch does
    Case("pow", [i64(2, 4, lo=-9, hi=9), i64(2, 4, lo=0, hi=50)], torch.pow, min_opset=9),
    Case("pow", [np.array([3, -3, 7, 2**31 + 5], np.int64), np.array([40, 41, 0, 3], np.int64)],
         torch.pow, min_opset=9),
    # ---- float16 (PyTorch computes in float and rounds each op's result, as a float carrier does)
    Case("add", [f16(2, 3), f16(2, 3), 1], lambda a, b, al: torch.add(a, b, alpha=al), atol=1e-3),
    Case("mul", [f16(2, 3), 0.5], torch.mul, atol=1e-3),
    Case("div", [f16(2, 3), nonzero(f16(2, 3))], torch.div, atol=1e-2, rtol=1e-2),
    Case("maximum", [f16(2, 3), f16(3)], torch.maximum),
    Case("lt", [f16(2, 3), f16(2, 3)], torch.lt),
    Case("abs", [f16(4)], torch.abs),
    # ---- unary float math (integers as float32)
    Case("sqrt", [pos], torch.sqrt),
    Case("sqrt", [i64(2, 3, lo=0, hi=50)], torch.sqrt),
    Case("rsqrt", [pos], torch.rsqrt),
    Case("exp", [x23], torch.exp),
    Case("exp", [f64(4)], torch.exp),
    Case("log", [pos], torch.log),
    Case("log2", [pos], torch.log2),
    Case("log2", [np.array([1, 2, 8, 1024], np.int64)], torch.log2),
    Case("log1p", [f32(2, 3, lo=-0.9, hi=3)], torch.log1p),
    Case("reciprocal", [nonzero(x23)], torch.reciprocal),
    Case("reciprocal", [nonzero(i32(4))], torch.reciprocal),
    Case("sin", [x23], torch.sin),
    Case("cos", [x23], torch.cos),
    Case("tan", [unit], torch.tan),
    Case("asin", [unit], torch.asin),
    Case("acos", [unit], torch.acos),
    Case("atan", [x23], torch.atan),
    Case("sinh", [x23], torch.sinh),
    Case("cosh", [x23], torch.cosh),
    # below 9 from Exp/Log/Sqrt in double: tiny arguments keep their precision, negative ones
    # of asinh do not cancel
    Case("sinh", [np.array([1e-6, -3e-5, 0.0, 2.5, -7.0], np.float32)], torch.sinh, rtol=1e-5),
    Case("asinh", [np.array([0.0, 1e-6, -2e-4, 0.5, -3.0, 1e4, -1e4], np.float32)], torch.asinh,
         rtol=1e-5),
    Case("asinh", [f64(2, 3, lo=-50, hi=50)], torch.asinh, rtol=1e-9, opsets=[7, 8]),  # ORT:
    # no double Asinh/Acosh/Atanh kernel (9+)
    Case("asinh", [i64(4)], torch.asinh),
    Case("acosh", [np.array([1.0, 1.0001, 1.5, 10.0, 1e4], np.float32)], torch.acosh, rtol=1e-5),
    Case("atanh", [np.array([0.0, 1e-6, -0.3, 0.9, -0.999], np.float32)], torch.atanh, rtol=1e-5),
    Case("atanh", [f64(2, 3, lo=-0.99, hi=0.99)], torch.atanh, rtol=1e-9, opsets=[7, 8]),
    Case("erf", [x23], torch.erf),
    Case("erf", [i64(4, lo=-2, hi=2)], torch.erf),
    # ---- same-dtype unary: abs, neg, sign, floor, ceil, round, trunc
    Case("abs", [x23], torch.abs),
    Case("abs", [i64(2, 3)], torch.abs),
    Case("abs", [ints(np.int8, 5)], torch.abs),
    Case("neg", [x23], torch.neg),
    Case("neg", [i32(2, 3)], torch.neg),
    Case("neg", [ints(np.int16, 5)], torch.neg),
    Case("sign", [special], torch.sign),
    Case("sign", [i64(2, 3)], torch.sign),
    Case("sign", [ints(np.int8, 6)], torch.sign),
    Case("floor", [special], torch.floor),
    Case("floor", [i64(4)], torch.floor),
    Case("ceil", [special], torch.ceil),
    Case("ceil", [f64(5)], torch.ceil),
    Case("round", [np.array([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999997, 1.4, -1.6, 8388609.0,
                             -8388607.0, 1e10, np.inf, -np.inf, np.nan, 2.5000002], np.float32)],
         torch.round),
    Case("round", [f32(3, 4, lo=-50, hi=50)], torch.round),
    Case("round", [i32(5)], torch.round),
    Case("round", [np.array([0.5, 1.5, -2.5, 3.7, -1e17 - 1, np.inf], np.float64)], torch.round,
         min_opset=9),  # Clip of double (which runtimes lack below 12) needs Where-9
    Case("round", [np.array([1.2345, -2.5551, 0.125, 12.5], np.float32), 2],
         lambda x, d: torch.round(x, decimals=d)),
    Case("round", [np.array([1234.5, -2551.0, 150.0, 250.0], np.float32), -2],
         lambda x, d: torch.round(x, decimals=d)),
    Case("trunc", [special], torch.trunc),
    Case("trunc", [f32(3, 4, lo=-5, hi=5)], torch.trunc),
    Case("trunc", [i64(3)], torch.trunc),
    # ---- clamp: scalar bounds, either missing, tensor bounds (broadcast), integers
    Case("clamp", [x23, -0.5, 0.5], torch.clamp),
    Case("clamp", [x23, None, 0.5], lambda x, a, b: torch.clamp(x, a, b)),
    Case("clamp", [x23, -1, None], lambda x, a, b: torch.clamp(x, a, b)),
    Case("clamp", [i64(2, 3), -5, 5], torch.clamp),
    Case("clamp", [i32(2, 3), 0.5, None], lambda x, a, b: torch.clamp(x, a, b)),
    Case("clamp", [x234, f32(4), f32(3, 1, lo=3, hi=4)], lambda x, a, b: torch.clamp(x, a, b)),
    Case("clamp", [x23, None, f32(3)], lambda x, a, b: torch.clamp(x, a, b)),
    Case("clamp", [i32(2, 3), i32(3), None], lambda x, a, b: torch.clamp(x, a, b)),
    Case("clamp", [special, -1.0, 1.0], torch.clamp),
    Case("clamp_min", [x23, 0.25], torch.clamp_min),
    Case("clamp_min", [special, -1.0], torch.clamp_min),
    Case("clamp_max", [special, 2.0], torch.clamp_max),
    Case("clamp", [special, None, 0.0], lambda x, a, b: torch.clamp(x, a, b)),
    Case("clamp_min", [x23, f32(2, 1)], torch.clamp_min),
    Case("clamp_max", [i64(2, 3), 3], torch.clamp_max),
    Case("clamp_max", [x23, np.array(0.1, np.float32)], torch.clamp_max),
    # ---- minimum / maximum (broadcast, integers, NaN propagates)
    Case("maximum", [x23, y23], torch.maximum),
    Case("maximum", [x234, f32(4)], torch.maximum),
    Case("maximum", [i64(2, 3), i64(3)], torch.maximum),
    Case("maximum", [special, special2], torch.maximum),
    Case("minimum", [x23, y23], torch.minimum),
    Case("minimum", [i32(2, 3), i32(2, 1)], torch.minimum),
    Case("minimum", [special, special2], torch.minimum),
    # ---- where / masked_fill (Where-9)
    Case("where", [bools(2, 3), x23, y23], torch.where),
    Case("where", [bools(2, 1), i64(2, 3), i64(3)], torch.where),
    Case("where", [bools(2, 3), x23, 0.5], lambda c, a, b: torch.where(c, a, b)),
    Case("where", [bools(2, 3), 1, 0.5], lambda c, a, b: torch.where(c, a, b)),
    Case("where", [bools(2, 3), i32(2, 3), 7], lambda c, a, b: torch.where(c, a, b)),
    Case("masked_fill", [x23, bools(2, 3), -1.5], torch.masked_fill),
    Case("masked_fill", [x234, bools(3, 1), float("-inf")], torch.masked_fill),
    Case("masked_fill", [i64(2, 3), bools(2, 3), 0.5], torch.masked_fill),
    Case("masked_fill", [x23, bools(3), np.array(2.0, np.float32)], torch.masked_fill),
    # ---- addcmul / lerp
    Case("addcmul", [x23, y23, f32(2, 3), 1], lambda s, a, b, v: torch.addcmul(s, a, b, value=v)),
    Case("addcmul", [x234, f32(4), f32(3, 1), 0.5], lambda s, a, b, v: torch.addcmul(s, a, b, value=v)),
    Case("addcmul", [i64(2, 3), i64(2, 3), i64(3), 2], lambda s, a, b, v: torch.addcmul(s, a, b, value=v)),
    Case("lerp", [x23, y23, 0.3], torch.lerp),
    Case("lerp", [x23, y23, 0.75], torch.lerp),
    Case("lerp", [x23, y23, 1.0], torch.lerp),
    Case("lerp", [x23, y23, f32(2, 3, lo=0, hi=1)], torch.lerp),
    Case("lerp", [x234, f32(4), f32(3, 1, lo=-0.5, hi=1.5)], torch.lerp),
    # ---- comparisons: floats with NaN/inf, integers (Less-9), bools, mixed dtypes, scalars
    Case("eq", [special, special2], torch.eq),
    Case("eq", [i64(2, 3, lo=0, hi=3), i64(3, lo=0, hi=3)], torch.eq),
    Case("eq", [ints(np.uint8, 6, lo=0, hi=3), 1], torch.eq),
    Case("eq", [bools(2, 3), bools(2, 3)], torch.eq),
    Case("eq", [np.array([0.5, 1.0, 2.0], np.float32), 1], torch.eq),
    Case("ne", [special, special2], torch.ne),
    Case("ne", [i32(2, 3, lo=0, hi=3), 2], torch.ne),
    Case("lt", [special, special2], torch.lt),
    Case("lt", [i64(2, 3), i64(2, 3)], torch.lt),
    Case("lt", [i32(2, 3), 0.5], torch.lt),
    Case("lt", [ints(np.int8, 6), ints(np.uint8, 6, lo=0, hi=20)], torch.lt),
    Case("lt", [bools(2, 3), bools(2, 3)], torch.lt),
    Case("le", [special, special2], torch.le),
    Case("le", [i64(2, 3, lo=0, hi=3), i64(2, 3, lo=0, hi=3)], torch.le),
    Case("le", [x23, 0.0], torch.le),
    Case("gt", [special, special2], torch.gt),
    Case("gt", [i64(2, 3), scalar_i], torch.gt),
    Case("gt", [f64(5), f32(5)], torch.gt),
    Case("ge", [special, special2], torch.ge),
    Case("ge", [i32(2, 3, lo=0, hi=3), i32(3, lo=0, hi=3)], torch.ge),
    Case("ge", [x234, f32(4)], torch.ge),
    # ---- logic
    Case("logical_and", [bools(2, 3), bools(2, 3)], torch.logical_and),
    Case("logical_and", [special, special2], torch.logical_and),
    Case("logical_or", [bools(2, 3), i64(3, lo=0, hi=2)], torch.logical_or),
    Case("logical_xor", [bools(2, 3), x23], torch.logical_xor),
    Case("logical_not", [bools(2, 3)], torch.logical_not),
    Case("logical_not", [special], torch.logical_not),
    Case("logical_not", [i32(6, lo=-1, hi=2)], torch.logical_not),
    Case("bitwise_not", [bools(2, 3)], torch.bitwise_not),
    Case("bitwise_not", [i64(2, 3)], torch.bitwise_not),
    Case("bitwise_not", [i32(5)], torch.bitwise_not),
    Case("bitwise_not", [ints(np.uint8, 5, lo=0, hi=255)], torch.bitwise_not),
    Case("bitwise_not", [ints(np.int8, 5)], torch.bitwise_not),
    # bitwise and/or/xor over each type's whole range (below 18 in int64 arithmetic, emit_bits.c)
    Case("bitwise_and", [i32(2, 3, lo=-2**31, hi=2**31), i32(3, lo=-2**31, hi=2**31)], torch.bitwise_and),
    Case("bitwise_or", [ints(np.uint8, 2, 3, lo=0, hi=256), ints(np.uint8, 3, lo=0, hi=256)], torch.bitwise_or),
    Case("bitwise_xor", [i64(2, 3, lo=-2**63, hi=2**63), i64(2, 3, lo=-2**63, hi=2**63)], torch.bitwise_xor),
    Case("bitwise_and", [bools(2, 3), bools(2, 3)], torch.bitwise_and),
    Case("bitwise_xor", [ints(np.int16, 4, lo=-2**15, hi=2**15), 5], torch.bitwise_xor),
    Case("__and__", [i64(2, 3, lo=-2**63, hi=2**63), i64(3, lo=-2**63, hi=2**63)], torch.Tensor.__and__),
    Case("__or__", [bools(2, 3), bools(3)], torch.Tensor.__or__),
    Case("__xor__", [ints(np.int8, 5, lo=-128, hi=128), ints(np.int8, 5, lo=-128, hi=128)], torch.Tensor.__xor__),
    # shifts: BitShift-11 takes unsigned types only; signed ones (arithmetic right shift) and
    # every type below 11 in int64 arithmetic (shifts 0..62)
    Case("bitwise_left_shift", [i32(2, 4, lo=-2**20, hi=2**20), i32(4, lo=0, hi=12)],
         torch.bitwise_left_shift),
    Case("bitwise_right_shift", [np.array([-7, -8, -1, 7, 8, -2**62, 2**62 + 3, -5], np.int64),
                                 np.array([1, 3, 5, 0, 2, 61, 62, 62], np.int64)],
         torch.bitwise_right_shift),
    Case("__lshift__", [ints(np.uint8, 6, lo=0, hi=256), ints(np.uint8, 6, lo=0, hi=8)],
         torch.Tensor.__lshift__),
    Case("__rshift__", [ints(np.uint8, 6, lo=0, hi=256), ints(np.uint8, 6, lo=0, hi=8)],
         torch.Tensor.__rshift__),
    Case("__rshift__", [ints(np.int16, 5, lo=-2**15, hi=2**15), 3], torch.Tensor.__rshift__),
    Case("__lshift__", [np.array([1, -3, 2**40], np.int64), np.array([62, 5, 30], np.int64)],
         torch.Tensor.__lshift__),
    Case("isnan", [special], torch.isnan),
    Case("isnan", [special.astype(np.float64)], torch.isnan),
    Case("isnan", [i64(4)], torch.isnan),
    Case("isnan", [Dyn(ints(np.uint8, 2, 3, lo=0, hi=9), ["N", 3])], torch.isnan),
    Case("isinf", [special], torch.isinf),
    Case("isinf", [np.array([np.inf, -np.inf, 1e308, np.nan], np.float64)], torch.isinf),
    Case("isinf", [np.array([np.inf, -np.inf, 65504, np.nan], np.float16)], torch.isinf),
    Case("isinf", [Dyn(i32(4), ["N"])], torch.isinf),
]
