/* onnxlegal — elementwise arithmetic, math, comparison and logic: add, sub, rsub, mul, div
 * (rounding modes), floor_divide, remainder, fmod, pow, sqrt, rsqrt, exp, log, log2, log1p, abs,
 * neg, reciprocal, sign, floor, ceil, round, trunc, clamp (+ clamp_min/max), minimum, maximum,
 * sin ... cosh, erf, where, masked_fill, addcmul, lerp; eq, ne, lt, le, gt, ge, logical_*,
 * bitwise_not, isnan, isinf. Also the promotion and carrier helpers of symbolics/arith.h.
 * Arguments as in PyTorch 1.13's schemas; overloads told apart by argument kinds. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "emit_math.h"
#include "../lib/schema.h"
#include "symbolics.h"


/* ------------------------------------------------------------------------------------------ */
/* Binary arithmetic */

/* b * alpha (argument i, Scalar alpha=1) in dtype t; b itself when alpha is 1. */
static olg_status scale_by_alpha(olg_lower *cx, size_t i, olg_dtype t, olg_value b,
                                 olg_value *out) {
  double alpha;
  OLG_TRY(olg__arg_float_or(cx, i, 1.0, &alpha));
  *out = b;
  if (alpha == 1.0) return OLG_OK;
  olg_value av;
  OLG_TRY(olg__arg_cast(cx, i, t, &av));
  return olg__emit_math2(cx, "Mul", b, av, out);
}

/* aten::add(self, other, alpha=1) [Tensor and Scalar overloads] */
olg_status olg__sym_add(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_dtype t;
  olg_value a, b, y;
  OLG_TRY(olg__binary_operands(cx, 0, 1, &t, &a, &b));
  OLG_TRY(scale_by_alpha(cx, 2, t, b, &b));
  OLG_TRY(olg__emit_math2(cx, "Add", a, b, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* aten::sub(self, other, alpha=1) */
olg_status olg__sym_sub(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_dtype t;
  olg_value a, b, y;
  OLG_TRY(olg__binary_operands(cx, 0, 1, &t, &a, &b));
  if (t == OLG_BOOL) return olg_lower_error(cx, OLG_ERR_TYPE, "subtraction of bool tensors");
  OLG_TRY(scale_by_alpha(cx, 2, t, b, &b));
  OLG_TRY(olg__emit_math2(cx, "Sub", a, b, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* aten::rsub(self, other, alpha=1) = other - alpha * self */
olg_status olg__sym_rsub(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_dtype t;
  olg_value a, b, y;
  OLG_TRY(olg__binary_operands(cx, 0, 1, &t, &a, &b));
  if (t == OLG_BOOL) return olg_lower_error(cx, OLG_ERR_TYPE, "subtraction of bool tensors");
  OLG_TRY(scale_by_alpha(cx, 2, t, a, &a));
  OLG_TRY(olg__emit_math2(cx, "Sub", b, a, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* aten::mul(self, other) */
olg_status olg__sym_mul(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_dtype t;
  olg_value a, b, y;
  OLG_TRY(olg__binary_operands(cx, 0, 1, &t, &a, &b));
  OLG_TRY(olg__emit_math2(cx, t == OLG_BOOL ? "And" : "Mul", a, b, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* aten::div(self, other, *, str? rounding_mode) [Tensor, Scalar, and _mode overloads];
 * aten::true_divide(self, other). has_mod: Mod (opset 10) is there. */
static olg_status div_common(olg_lower *cx, bool has_mod) {
  olg_dtype t;
  olg_value a, b, y;
  const char *mode = NULL;
  if (olg_lower_arg_kind(cx, 2) == OLG_ARGKIND_STRING) OLG_TRY(olg_lower_arg_string(cx, 2, &mode));
  size_t args[2] = {0, 1};
  OLG_TRY(olg__result_type(cx, args, 2, &t));
  if (!mode) { /* true division: integers divide as float32 (the default dtype) */
    if (!olg__is_float(t)) t = OLG_FLOAT;
    OLG_TRY(olg__arg_cast(cx, 0, t, &a));
    OLG_TRY(olg__arg_cast(cx, 1, t, &b));
    OLG_TRY(olg__emit_math2(cx, "Div", a, b, &y));
    return olg_lower_bind_output(cx, 0, y);
  }
  OLG_TRY(olg__arg_cast(cx, 0, t, &a));
  OLG_TRY(olg__arg_cast(cx, 1, t, &b));
  if (t == OLG_BOOL) return olg_lower_error(cx, OLG_ERR_TYPE, "division of bool tensors");
  if (strcmp(mode, "trunc") == 0) {
    OLG_TRY(olg__emit_math2(cx, "Div", a, b, &y)); /* integer Div truncates */
    if (olg__is_float(t)) OLG_TRY(olg__emit_trunc(cx, y, &y));
  } else if (strcmp(mode, "floor") == 0) {
    OLG_TRY(olg__emit_floor_div(cx, has_mod, t, a, b, &y));
  } else {
    return olg__errf(cx, OLG_ERR_INVALID_ARG, "div: unknown rounding_mode '%s'", mode);
  }
  return olg_lower_bind_output(cx, 0, y);
}

olg_status olg__sym_div(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return div_common(cx, olg__target_has(cx, "Mod"));
}

/* aten::floor_divide(self, other): floor rounding since PyTorch 1.13 */
static olg_status floor_divide(olg_lower *cx, bool has_mod) {
  olg_dtype t;
  olg_value a, b, y;
  OLG_TRY(olg__binary_operands(cx, 0, 1, &t, &a, &b));
  OLG_TRY(olg__emit_floor_div(cx, has_mod, t, a, b, &y));
  return olg_lower_bind_output(cx, 0, y);
}

olg_status olg__sym_floor_divide(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return floor_divide(cx, olg__target_has(cx, "Mod"));
}

/* has_mod: Mod (opset 10) is there. */
static olg_status remainder_like(olg_lower *cx, bool has_mod, bool python) {
  olg_dtype t;
  olg_value a, b, y;
  OLG_TRY(olg__binary_operands(cx, 0, 1, &t, &a, &b));
  OLG_TRY(olg__emit_remainder(cx, has_mod, python, a, b, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* aten::remainder(self, other) [Tensor, Scalar, Scalar_Tensor]: the sign of the divisor */
olg_status olg__sym_remainder(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return remainder_like(cx, olg__target_has(cx, "Mod"), true);
}

/* aten::fmod(self, other): the sign of the dividend */
olg_status olg__sym_fmod(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return remainder_like(cx, olg__target_has(cx, "Mod"), false);
}

/* aten::pow(self, exponent) [Tensor_Tensor, Tensor_Scalar, Scalar (self a number)] */
olg_status olg__sym_pow(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_dtype t;
  olg_value a, e, y;
  OLG_TRY(olg__binary_operands(cx, 0, 1, &t, &a, &e));
  int64_t k;
  if (!olg__is_float(t) && olg_lower_arg_kind(cx, 1) == OLG_ARGKIND_INT &&
      olg_lower_arg_int(cx, 1, &k) == OLG_OK && k >= 0 && k <= 4) {
    /* a small integer power of integers: products, exact at every opset */
    if (k == 0) {
      olg_value shape;
      OLG_TRY(olg__shape(cx, a, &shape));
      OLG_TRY(olg__emit_full(cx, shape, t, 1, &y));
      return olg_lower_bind_output(cx, 0, y);
    }
    y = a;
    for (int64_t i = 1; i < k; i++) OLG_TRY(olg__emit_math2(cx, "Mul", y, a, &y));
    return olg_lower_bind_output(cx, 0, y);
  }
  if (t == OLG_INT64 || t == OLG_UINT64) /* as torch: no float carrier (nor ORT's Pow, which
                                            goes through double) holds every 64-bit result */
    OLG_TRY(olg__emit_int_pow(cx, a, e, &y));
  else
    OLG_TRY(olg__emit_math2(cx, "Pow", a, e, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* ------------------------------------------------------------------------------------------ */
/* Unary math */

/* Argument 0 as a tensor of a float dtype: integers and bools as float32 (torch's default). */
static olg_status float_arg(olg_lower *cx, olg_value *x) {
  OLG_TRY(olg_lower_arg_value(cx, 0, x));
  olg_dtype t = olg__dtype(cx, *x);
  return olg__is_float(t) ? OLG_OK : olg__emit_cast(cx, *x, OLG_FLOAT, x);
}

static olg_status unary_float(olg_lower *cx, const char *op) {
  olg_value x, y;
  OLG_TRY(float_arg(cx, &x));
  OLG_TRY(olg__emit_math1(cx, op, x, &y));
  return olg_lower_bind_output(cx, 0, y);
}

olg_status olg__sym_sqrt(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return unary_float(cx, "Sqrt");
}

olg_status olg__sym_exp(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return unary_float(cx, "Exp");
}

olg_status olg__sym_log(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return unary_float(cx, "Log");
}

olg_status olg__sym_sin(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return unary_float(cx, "Sin");
}

olg_status olg__sym_cos(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return unary_float(cx, "Cos");
}

olg_status olg__sym_tan(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return unary_float(cx, "Tan");
}

olg_status olg__sym_asin(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return unary_float(cx, "Asin");
}

olg_status olg__sym_acos(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return unary_float(cx, "Acos");
}

olg_status olg__sym_atan(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return unary_float(cx, "Atan");
}

olg_status olg__sym_erf(olg_lower *cx, olg_node_id src, void *ud) { /* Erf-9 */
  UNUSED_SRC;
  return unary_float(cx, "Erf");
}

olg_status olg__sym_reciprocal(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return unary_float(cx, "Reciprocal");
}

/* aten::sinh/cosh/asinh/acosh/atanh and the ONNX ops of the same names (their one input is
 * argument 0 alike): the op (9), else its formula (olg__emit_hyperbolic). */
static olg_status hyperbolic(olg_lower *cx, const char *op) {
  olg_value x, y;
  OLG_TRY(float_arg(cx, &x));
  OLG_TRY(olg__emit_hyperbolic(cx, op, x, &y));
  return olg_lower_bind_output(cx, 0, y);
}

olg_status olg__sym_sinh(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return hyperbolic(cx, "Sinh");
}

olg_status olg__sym_cosh(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return hyperbolic(cx, "Cosh");
}

olg_status olg__sym_asinh(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return hyperbolic(cx, "Asinh");
}

olg_status olg__sym_acosh(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return hyperbolic(cx, "Acosh");
}

olg_status olg__sym_atanh(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return hyperbolic(cx, "Atanh");
}

/* aten::rsqrt: 1 / sqrt(x) */
olg_status olg__sym_rsqrt(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, y;
  OLG_TRY(float_arg(cx, &x));
  OLG_TRY(olg__emit_math1(cx, "Sqrt", x, &y));
  OLG_TRY(olg__emit_math1(cx, "Reciprocal", y, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* aten::log2: ln(x) / ln(2); aten::log1p: ln(1 + x) */
olg_status olg__sym_log2(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, y, k;
  OLG_TRY(float_arg(cx, &x));
  OLG_TRY(olg__emit_math1(cx, "Log", x, &y));
  OLG_TRY(olg__const_like(cx, x, 1.0 / M_LN2, &k));
  OLG_TRY(olg__emit_math2(cx, "Mul", y, k, &y));
  return olg_lower_bind_output(cx, 0, y);
}

olg_status olg__sym_log1p(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, y, one;
  OLG_TRY(float_arg(cx, &x));
  OLG_TRY(olg__const_like(cx, x, 1, &one));
  OLG_TRY(olg__emit_math2(cx, "Add", x, one, &y));
  OLG_TRY(olg__emit_math1(cx, "Log", y, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* aten::abs, neg: same dtype (bool abs is the identity) */
olg_status olg__sym_abs(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  if (olg__dtype(cx, x) == OLG_BOOL || olg__is_unsigned(olg__dtype(cx, x)))
    return olg_lower_bind_output(cx, 0, x);
  OLG_TRY(olg__emit_math1(cx, "Abs", x, &y));
  return olg_lower_bind_output(cx, 0, y);
}

olg_status olg__sym_neg(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  olg_dtype t = olg__dtype(cx, x);
  if (t == OLG_BOOL) return olg_lower_error(cx, OLG_ERR_TYPE, "negation of a bool tensor");
  if (olg__is_unsigned(t)) { /* wraps: 0 - x */
    olg_value zero;
    OLG_TRY(olg__const_like(cx, x, 0, &zero));
    OLG_TRY(olg__emit_math2(cx, "Sub", zero, x, &y));
  } else {
    OLG_TRY(olg__emit_math1(cx, "Neg", x, &y));
  }
  return olg_lower_bind_output(cx, 0, y);
}

/* Sign-9 */
static olg_status sign_native(olg_lower *cx) {
  olg_value x, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  olg_dtype t = olg__dtype(cx, x);
  if (t == OLG_BOOL) return olg_lower_bind_output(cx, 0, x);
  OLG_TRY(olg__emit_math1(cx, "Sign", x, &y));
  if (olg__is_float(t)) { /* Sign(NaN) is NaN in ONNX Runtime; PyTorch's CPU kernel gives 0 */
    olg_value nan, zero;
    OLG_TRY(olg__emit_isnan(cx, x, &nan));
    OLG_TRY(olg__const_like(cx, x, 0, &zero));
    OLG_TRY(olg__emit_where(cx, nan, zero, y, &y));
  }
  return olg_lower_bind_output(cx, 0, y);
}

/* aten::sign below 9: [x > 0] - [x < 0] (NaN gives 0, as PyTorch's CPU kernel) */
olg_status olg__sym_sign(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  if (olg__target_has(cx, "Sign")) return sign_native(cx);
  olg_value x, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  if (olg__dtype(cx, x) == OLG_BOOL) return olg_lower_bind_output(cx, 0, x);
  OLG_TRY(olg__emit_sign_cmp(cx, x, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* aten::floor / ceil / trunc: the identity on integers */
static olg_status rounding(olg_lower *cx, const char *op) {
  olg_value x, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  if (!olg__is_float(olg__dtype(cx, x))) return olg_lower_bind_output(cx, 0, x);
  if (op) OLG_TRY(olg__emit_math1(cx, op, x, &y));
  else OLG_TRY(olg__emit_trunc(cx, x, &y));
  return olg_lower_bind_output(cx, 0, y);
}

olg_status olg__sym_floor(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return rounding(cx, "Floor");
}

olg_status olg__sym_ceil(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return rounding(cx, "Ceil");
}

olg_status olg__sym_trunc(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return rounding(cx, NULL);
}

/* aten::round(self), round.decimals(self, *, int decimals), and ONNX Round (one input): half to
 * even (olg__emit_round: Round-11, else the Floor formula). */
olg_status olg__sym_round(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, y;
  int64_t decimals;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg__arg_int_or(cx, 1, 0, &decimals));
  if (!olg__is_float(olg__dtype(cx, x))) return olg_lower_bind_output(cx, 0, x);
  olg_value k = OLG_NO_VALUE;
  y = x;
  if (decimals) { /* as PyTorch: x * 10^d rounded, / 10^d (d < 0: x / 10^-d, * 10^-d) */
    double p = pow(10.0, fabs((double)decimals)); /* INT64_MIN: not negated as an integer */
    OLG_TRY(olg__const_like(cx, x, p, &k));
    OLG_TRY(olg__emit_math2(cx, decimals > 0 ? "Mul" : "Div", x, k, &y));
  }
  OLG_TRY(olg__emit_round(cx, y, &y));
  if (decimals) OLG_TRY(olg__emit_math2(cx, decimals > 0 ? "Div" : "Mul", y, k, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* ------------------------------------------------------------------------------------------ */
/* clamp, minimum, maximum */

/* x bounded below (Max) or above (Min) by the tensor b of x's dtype. */
static olg_status bound(olg_lower *cx, bool lower, olg_value x, olg_value b, olg_value *out) {
  return olg__emit_max_min(cx, lower, x, b, out);
}

/* clamp with bounds at argument lo_i / hi_i (either may be none or absent; -1: not there). */
static olg_status clamp(olg_lower *cx, int lo_i, int hi_i) {
  size_t args[3];
  size_t n = 0;
  args[n++] = 0;
  bool has_lo = lo_i >= 0 && !olg_lower_arg_is_none(cx, (size_t)lo_i);
  bool has_hi = hi_i >= 0 && !olg_lower_arg_is_none(cx, (size_t)hi_i);
  if (has_lo) args[n++] = (size_t)lo_i;
  if (has_hi) args[n++] = (size_t)hi_i;
  olg_dtype t;
  olg_value x, y;
  OLG_TRY(olg__result_type(cx, args, n, &t));
  OLG_TRY(olg__arg_cast(cx, 0, t, &x));
  if (!has_lo && !has_hi) return olg_lower_bind_output(cx, 0, x);
  /* scalar bounds known now: Clip (whose helper handles every dtype and opset) */
  double lo = 0, hi = 0;
  bool lit_lo = !has_lo || olg_lower_arg_kind(cx, (size_t)lo_i) != OLG_ARGKIND_VALUE;
  bool lit_hi = !has_hi || olg_lower_arg_kind(cx, (size_t)hi_i) != OLG_ARGKIND_VALUE;
  olg_value lv = OLG_NO_VALUE, hv = OLG_NO_VALUE;
  if (has_lo) OLG_TRY(olg__arg_cast(cx, (size_t)lo_i, t, &lv));
  if (has_hi) OLG_TRY(olg__arg_cast(cx, (size_t)hi_i, t, &hv));
  if (!lit_lo && olg__rank(cx, lv) == 0 && olg__known_scalar(cx, lv, &lo)) lit_lo = true;
  if (!lit_hi && olg__rank(cx, hv) == 0 && olg__known_scalar(cx, hv, &hi)) lit_hi = true;
  /* one-sided float bounds are Max/Min: Clip-6 (opsets 7-10) bounds the absent side by the
   * largest float, not inf, and ONNX Runtime's one-sided Clip turns NaN into the bound */
  bool one_sided = olg__is_float(t) && has_lo != has_hi;
  if (lit_lo && lit_hi && !one_sided &&
      (olg__is_float(t) || olg__op_takes(cx, "Clip", 0, t))) {
    if (has_lo) olg__known_scalar(cx, lv, &lo);
    if (has_hi) olg__known_scalar(cx, hv, &hi);
    if (t == OLG_INT64 && ((has_lo && fabs(lo) > 9007199254740992.0) ||
                           (has_hi && fabs(hi) > 9007199254740992.0))) {
      /* beyond double's integers: Max/Min in int64 */
    } else {
      OLG_TRY(olg__emit_clip_f(cx, x, has_lo, lo, has_hi, hi, &y));
      return olg_lower_bind_output(cx, 0, y);
    }
  }
  /* tensor bounds broadcast elementwise: min(max(x, lo), hi), as PyTorch */
  y = x;
  if (has_lo) OLG_TRY(bound(cx, true, y, lv, &y));
  if (has_hi) OLG_TRY(bound(cx, false, y, hv, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* aten::clamp(self, min=None, max=None) [Scalar? and Tensor? overloads] */
olg_status olg__sym_clamp(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return clamp(cx, 1, 2);
}

olg_status olg__sym_clamp_min(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return clamp(cx, 1, -1);
}

olg_status olg__sym_clamp_max(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return clamp(cx, -1, 1);
}

/* Max/Min of two tensors, NaN propagating as in PyTorch (ONNX leaves it open). */
static olg_status min_max(olg_lower *cx, bool max) {
  olg_dtype t;
  olg_value a, b, y;
  OLG_TRY(olg__binary_operands(cx, 0, 1, &t, &a, &b));
  OLG_TRY(olg__emit_max_min(cx, max, a, b, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* aten::maximum(self, other), aten::minimum(self, other) */
olg_status olg__sym_maximum(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return min_max(cx, true);
}

olg_status olg__sym_minimum(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return min_max(cx, false);
}

/* ------------------------------------------------------------------------------------------ */
/* where, masked_fill, addcmul, lerp */

/* aten::where(condition, self, other) [self, ScalarSelf, ScalarOther, Scalar];
 * aten::where(condition) alone is nonzero(as_tuple=True): not this op's business. */
olg_status olg__sym_where(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  if (olg_lower_arg_count(cx) < 3)
    return olg_lower_unsupported(cx, "where(condition) with one argument (use nonzero)", -1);
  olg_dtype t;
  olg_value c, a, b, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &c));
  OLG_TRY(olg__binary_operands(cx, 1, 2, &t, &a, &b));
  OLG_TRY(olg__emit_where(cx, c, a, b, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* aten::masked_fill(self, mask, value) [Scalar, Tensor]: self's dtype */
olg_status olg__sym_masked_fill(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, m, v, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg_lower_arg_value(cx, 1, &m));
  olg_dtype t = olg__dtype(cx, x);
  if (olg_lower_arg_kind(cx, 2) != OLG_ARGKIND_VALUE && !olg__is_float(t) &&
      olg_lower_arg_kind(cx, 2) == OLG_ARGKIND_FLOAT) {
    double d; /* a float value into an integer tensor truncates, as PyTorch's cast */
    OLG_TRY(olg_lower_arg_float(cx, 2, &d));
    OLG_TRY(olg__const_scalar(cx, t, trunc(d), &v));
  } else {
    OLG_TRY(olg__arg_cast(cx, 2, t, &v));
  }
  OLG_TRY(olg__emit_where(cx, m, v, x, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* aten::addcmul(self, tensor1, tensor2, *, value=1) = self + value * tensor1 * tensor2 */
olg_status olg__sym_addcmul(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  size_t args[3] = {0, 1, 2};
  olg_dtype t;
  olg_value s, a, b, p, y;
  OLG_TRY(olg__result_type(cx, args, 3, &t));
  OLG_TRY(olg__arg_cast(cx, 0, t, &s));
  OLG_TRY(olg__arg_cast(cx, 1, t, &a));
  OLG_TRY(olg__arg_cast(cx, 2, t, &b));
  OLG_TRY(scale_by_alpha(cx, 3, t, a, &a));
  OLG_TRY(olg__emit_math2(cx, "Mul", a, b, &p));
  OLG_TRY(olg__emit_math2(cx, "Add", s, p, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* aten::lerp(self, end, weight) [Scalar, Tensor], PyTorch's two-sided formula:
 * |w| < 0.5 ? self + w * (end - self) : end - (end - self) * (1 - w). Without Where (opset 9;
 * has_where) and w not known: the first formula, to rounding. */
static olg_status lerp(olg_lower *cx, bool has_where) {
  size_t args[3] = {0, 1, 2};
  olg_dtype t;
  olg_value s, e, w, d, one, lo, hi, y;
  OLG_TRY(olg__result_type(cx, args, 3, &t));
  OLG_TRY(olg__arg_cast(cx, 0, t, &s));
  OLG_TRY(olg__arg_cast(cx, 1, t, &e));
  OLG_TRY(olg__arg_cast(cx, 2, t, &w));
  OLG_TRY(olg__emit_math2(cx, "Sub", e, s, &d));
  OLG_TRY(olg__const_like(cx, s, 1, &one));
  double wv;
  bool known = olg__known_scalar(cx, w, &wv);
  bool need_lo = !known || fabs(wv) < 0.5, need_hi = !known || !(fabs(wv) < 0.5);
  if (!known && !has_where) need_hi = false;
  if (need_lo) {
    OLG_TRY(olg__emit_math2(cx, "Mul", w, d, &lo));
    OLG_TRY(olg__emit_math2(cx, "Add", s, lo, &lo));
  }
  if (need_hi) {
    olg_value omw;
    OLG_TRY(olg__emit_math2(cx, "Sub", one, w, &omw));
    OLG_TRY(olg__emit_math2(cx, "Mul", d, omw, &hi));
    OLG_TRY(olg__emit_math2(cx, "Sub", e, hi, &hi));
  }
  if (need_lo && need_hi) {
    olg_value aw, half, small;
    OLG_TRY(olg__emit_math1(cx, "Abs", w, &aw));
    OLG_TRY(olg__const_like(cx, s, 0.5, &half));
    OLG_TRY(olg__emit_compare(cx, OLG_CMP_LT, aw, half, &small));
    OLG_TRY(olg__emit_where(cx, small, lo, hi, &y));
  } else {
    y = need_lo ? lo : hi;
  }
  return olg_lower_bind_output(cx, 0, y);
}

/* Where (9): both formulas, chosen by |w| */
olg_status olg__sym_lerp(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return lerp(cx, olg__target_has(cx, "Where"));
}

/* ------------------------------------------------------------------------------------------ */
/* Comparison and logic */

static olg_status compare(olg_lower *cx, olg_cmp op) {
  olg_dtype t;
  olg_value a, b, y;
  OLG_TRY(olg__binary_operands(cx, 0, 1, &t, &a, &b));
  OLG_TRY(olg__emit_compare(cx, op, a, b, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* LessOrEqual/GreaterOrEqual-12 */
static olg_status compare12(olg_lower *cx, const char *op) {
  olg_dtype t;
  olg_value a, b, y;
  OLG_TRY(olg__binary_operands(cx, 0, 1, &t, &a, &b));
  OLG_TRY(olg__emit_math2(cx, op, a, b, &y));
  return olg_lower_bind_output(cx, 0, y);
}

olg_status olg__sym_eq(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return compare(cx, OLG_CMP_EQ);
}

olg_status olg__sym_ne(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return compare(cx, OLG_CMP_NE);
}

olg_status olg__sym_lt(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return compare(cx, OLG_CMP_LT);
}

olg_status olg__sym_le(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return olg__target_has(cx, "LessOrEqual") ? compare12(cx, "LessOrEqual") : compare(cx, OLG_CMP_LE);
}

olg_status olg__sym_gt(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return compare(cx, OLG_CMP_GT);
}

olg_status olg__sym_ge(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return olg__target_has(cx, "GreaterOrEqual") ? compare12(cx, "GreaterOrEqual")
                                                : compare(cx, OLG_CMP_GE);
}


/* Argument i as bool: nonzero is true (NaN too), as PyTorch's logical ops read it. */
static olg_status bool_arg(olg_lower *cx, size_t i, olg_value *out) {
  OLG_TRY(olg_lower_arg_value(cx, i, out));
  return olg__emit_cast(cx, *out, OLG_BOOL, out);
}

static olg_status logical(olg_lower *cx, const char *op) {
  olg_value a, b, y;
  OLG_TRY(bool_arg(cx, 0, &a));
  OLG_TRY(bool_arg(cx, 1, &b));
  OLG_TRY(olg__emit2(cx, op, a, b, &y));
  return olg_lower_bind_output(cx, 0, y);
}

olg_status olg__sym_logical_and(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return logical(cx, "And");
}

olg_status olg__sym_logical_or(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return logical(cx, "Or");
}

olg_status olg__sym_logical_xor(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return logical(cx, "Xor");
}

olg_status olg__sym_logical_not(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value a, y;
  OLG_TRY(bool_arg(cx, 0, &a));
  OLG_TRY(olg__emit1(cx, "Not", a, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* aten::bitwise_not: Not for bool; for integers BitwiseNot (18), below -1 - x or max - x
 * (emit_bits.c) */
olg_status olg__sym_bitwise_not(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  olg_dtype t = olg__dtype(cx, x);
  if (t == OLG_BOOL) {
    OLG_TRY(olg__emit1(cx, "Not", x, &y));
  } else if (!olg__is_int(t)) {
    return olg__errf(cx, OLG_ERR_TYPE, "bitwise_not of a %s tensor", olg_dtype_name(t));
  } else {
    if (!olg__target_has(cx, "BitwiseNot"))
      OLG_TRY(olg_lower_decompose(cx, "bitwise_not of an integer tensor", 18));
    OLG_TRY(olg__emit_bitwise_not(cx, x, &y));
  }
  return olg_lower_bind_output(cx, 0, y);
}

/* aten::bitwise_and/or/xor and __and__/__or__/__xor__ (a & b): And/Or/Xor for bools, the
 * bitwise emitter for integers (BitwiseAnd... from 18, exact int64 arithmetic below) */
static olg_status aten_bitwise(olg_lower *cx, olg_bits_op op) {
  static const char *const logic[] = {"And", "Or", "Xor"};
  olg_value a, b, y;
  olg_dtype t;
  OLG_TRY(olg__binary_operands(cx, 0, 1, &t, &a, &b));
  if (t == OLG_BOOL) OLG_TRY(olg__emit2(cx, logic[op], a, b, &y));
  else if (!olg__is_int(t))
    return olg__errf(cx, OLG_ERR_TYPE, "bitwise %s of %s tensors", logic[op],
                     olg_dtype_name(t) ? olg_dtype_name(t) : "?");
  else OLG_TRY(olg__emit_bitwise(cx, op, a, b, &y));
  return olg_lower_bind_output(cx, 0, y);
}

olg_status olg__sym_bitwise_and(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return aten_bitwise(cx, OLG_BITS_AND);
}

olg_status olg__sym_bitwise_or(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return aten_bitwise(cx, OLG_BITS_OR);
}

olg_status olg__sym_bitwise_xor(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return aten_bitwise(cx, OLG_BITS_XOR);
}

/* ONNX BitwiseAnd/Or/Xor/Not-18 (registered as decompositions below 18, emit_bits.c) */
static olg_status onnx_bitwise(olg_lower *cx, olg_bits_op op) {
  olg_value a, b, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &a));
  OLG_TRY(olg_lower_arg_value(cx, 1, &b));
  OLG_TRY(olg__emit_bitwise(cx, op, a, b, &y));
  return olg_lower_bind_output(cx, 0, y);
}

olg_status olg__sym_onnx_bitwise_and(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return onnx_bitwise(cx, OLG_BITS_AND);
}

olg_status olg__sym_onnx_bitwise_or(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return onnx_bitwise(cx, OLG_BITS_OR);
}

olg_status olg__sym_onnx_bitwise_xor(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return onnx_bitwise(cx, OLG_BITS_XOR);
}

olg_status olg__sym_onnx_bitwise_not(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg__emit_bitwise_not(cx, x, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* aten __lshift__/__rshift__/bitwise_left_shift/bitwise_right_shift(self, other) and ONNX
 * BitShift(X, Y; direction) (registered below 11): one emitter, olg__emit_bitshift. */
olg_status olg__sym_bitshift(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  const char *op = olg_lower_node_op(cx);
  bool left = strcmp(op, "BitShift") == 0
                  ? strcmp(olg__src_attr_string(cx, "direction", ""), "LEFT") == 0
                  : strstr(op, "left") != NULL || strstr(op, "lshift") != NULL;
  if (strcmp(op, "BitShift") == 0 && !left &&
      strcmp(olg__src_attr_string(cx, "direction", ""), "RIGHT") != 0)
    return olg_lower_error(cx, OLG_ERR_INVALID_MODEL, "BitShift: direction must be LEFT or RIGHT");
  olg_dtype t;
  olg_value a, b, y;
  OLG_TRY(olg__binary_operands(cx, 0, 1, &t, &a, &b));
  OLG_TRY(olg__emit_bitshift(cx, left, a, b, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* False in x's shape, whatever is known of it, at every opset: Not(x == x) for a tensor
 * without NaN (integers, bools). */
static olg_status all_false_like(olg_lower *cx, olg_value x, olg_value *out) {
  OLG_TRY(olg__emit_math2(cx, "Equal", x, x, out));
  return olg__emit1(cx, "Not", *out, out);
}

/* IsNaN-9 */
static olg_status isnan_native(olg_lower *cx) {
  olg_value x, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  if (!olg__is_float(olg__dtype(cx, x))) OLG_TRY(all_false_like(cx, x, &y));
  else OLG_TRY(olg__emit_math1(cx, "IsNaN", x, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* aten::isnan: false for integers; below 9, x is neither < +inf nor > -inf */
olg_status olg__sym_isnan(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  if (olg__target_has(cx, "IsNaN")) return isnan_native(cx);
  olg_value x, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  if (!olg__is_float(olg__dtype(cx, x))) OLG_TRY(all_false_like(cx, x, &y));
  else OLG_TRY(olg__emit_isnan(cx, x, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* IsInf-10 */
static olg_status isinf_native(olg_lower *cx) {
  olg_value x, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  if (!olg__is_float(olg__dtype(cx, x))) OLG_TRY(all_false_like(cx, x, &y));
  else OLG_TRY(olg__emit_math1(cx, "IsInf", x, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* aten::isinf: false for integers; below 10, |x| > the largest finite value of the dtype */
olg_status olg__sym_isinf(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  if (olg__target_has(cx, "IsInf")) return isinf_native(cx);
  olg_value x, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  olg_dtype t = olg__dtype(cx, x);
  if (!olg__is_float(t)) {
    OLG_TRY(all_false_like(cx, x, &y));
  } else {
    olg_value ax, big;
    double max = t == OLG_DOUBLE ? DBL_MAX : t == OLG_FLOAT16 ? 65504.0 : (double)FLT_MAX;
    if (t == OLG_BFLOAT16) OLG_TRY(olg__emit_cast(cx, x, OLG_FLOAT, &x));
    OLG_TRY(olg__emit_math1(cx, "Abs", x, &ax));
    OLG_TRY(olg__const_like(cx, ax, max, &big));
    OLG_TRY(olg__emit_math2(cx, "Greater", ax, big, &y));
  }
  return olg_lower_bind_output(cx, 0, y);
}

