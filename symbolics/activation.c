/* onnxlegal — activations: relu, relu6, leaky_relu, elu, selu, celu, gelu, silu, mish, hardswish,
 * hardsigmoid, hardtanh, sigmoid, tanh, softplus, softsign, prelu, glu, threshold, log_sigmoid,
 * softmax, log_softmax; and the dropout family, the identity in inference. Arguments as in
 * PyTorch 1.13's schemas. Where ONNX gained the op late (Celu-12, HardSwish-14, Mish-18,
 * Gelu-20) the lower opsets get the exact formula PyTorch computes. */
#include <math.h>
#include <string.h>

#include "emit_act.h"
#include "emit_math.h"
#include "emit_src.h"
#include "symbolics.h"


/* Argument 0 as a float tensor (integers and bools as float32, PyTorch's default dtype). */
static olg_status float_arg(olg_lower *cx, olg_value *x) {
  OLG_TRY(olg_lower_arg_value(cx, 0, x));
  return olg__is_float(olg__dtype(cx, *x)) ? OLG_OK : olg__emit_cast(cx, *x, OLG_FLOAT, x);
}

/* One node of `op` with float attributes on x, through the op's compute dtype. */
typedef struct fattr {
  const char *name;
  double v;
} fattr;

static olg_status emit_f(olg_lower *cx, const char *op, olg_value x, const fattr *attrs,
                         size_t n, olg_value *out) {
  olg_dtype t = olg__dtype(cx, x), ct;
  OLG_TRY(olg__compute_dtype(cx, op, 0, t, &ct));
  olg_value xin, y;
  OLG_TRY(olg__emit_cast(cx, x, ct, &xin));
  olg_node_id nd;
  OLG_TRY(olg_lower_emit_begin(cx, "", op, &nd));
  OLG_TRY(olg_lower_emit_input(cx, nd, xin));
  for (size_t i = 0; i < n; i++) OLG_TRY(olg_lower_emit_attr_float(cx, nd, attrs[i].name, attrs[i].v));
  OLG_TRY(olg_lower_emit_end(cx, nd, 1, &y));
  return olg__emit_cast(cx, y, t, out);
}

static olg_status unary_float(olg_lower *cx, const char *op) {
  olg_value x, y;
  OLG_TRY(float_arg(cx, &x));
  OLG_TRY(olg__emit_math1(cx, op, x, &y));
  return olg_lower_bind_output(cx, 0, y);
}

static olg_status mul_const(olg_lower *cx, olg_value x, double k, olg_value *out) {
  olg_value kv;
  if (k == 1.0) return (*out = x, OLG_OK);
  OLG_TRY(olg__const_like(cx, x, k, &kv));
  return olg__emit_math2(cx, "Mul", x, kv, out);
}

/* aten::relu(self): Relu for floats; max(x, 0) for integers (Relu-14 takes them, but not every
 * runtime does: ONNX Runtime has no int64 Relu) */
olg_status olg__sym_relu(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, y, zero;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  if (olg__is_float(olg__dtype(cx, x))) {
    OLG_TRY(olg__emit_math1(cx, "Relu", x, &y));
  } else {
    OLG_TRY(olg__const_like(cx, x, 0, &zero));
    OLG_TRY(olg__emit_max_min(cx, true, x, zero, &y));
  }
  return olg_lower_bind_output(cx, 0, y);
}

/* aten::relu6(self) = clamp(x, 0, 6) */
olg_status olg__sym_relu6(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg__emit_clip_f(cx, x, 1, 0, 1, 6, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* aten::hardtanh(self, min_val=-1, max_val=1) */
olg_status olg__sym_hardtanh(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, y;
  double lo, hi;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg__arg_float_or(cx, 1, -1, &lo));
  OLG_TRY(olg__arg_float_or(cx, 2, 1, &hi));
  OLG_TRY(olg__emit_clip_f(cx, x, 1, lo, 1, hi, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* aten::leaky_relu(self, negative_slope=0.01) */
olg_status olg__sym_leaky_relu(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, y;
  double a;
  OLG_TRY(float_arg(cx, &x));
  OLG_TRY(olg__arg_float_or(cx, 1, 0.01, &a));
  fattr at[1] = {{"alpha", a}};
  OLG_TRY(emit_f(cx, "LeakyRelu", x, at, 1, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* min(x, 0) as Clip (Min-6 would not broadcast a scalar at opset 7) */
static olg_status nonpositive_part(olg_lower *cx, olg_value x, olg_value *out) {
  return olg__emit_clip_f(cx, x, 0, 0, 1, 0, out);
}

/* aten::elu(self, alpha=1, scale=1, input_scale=1):
 * x > 0 ? scale * x : scale * alpha * (exp(input_scale * x) - 1) */
olg_status olg__sym_elu(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, y;
  double alpha, scale, in_scale;
  OLG_TRY(float_arg(cx, &x));
  OLG_TRY(olg__arg_float_or(cx, 1, 1, &alpha));
  OLG_TRY(olg__arg_float_or(cx, 2, 1, &scale));
  OLG_TRY(olg__arg_float_or(cx, 3, 1, &in_scale));
  fattr at[1] = {{"alpha", alpha}};
  if (scale == 1 && in_scale == 1) {
    OLG_TRY(emit_f(cx, "Elu", x, at, 1, &y));
    return olg_lower_bind_output(cx, 0, y);
  }
  /* relu(x) + elu(input_scale * min(x, 0)), all times scale */
  olg_value pos, neg;
  OLG_TRY(olg__emit_math1(cx, "Relu", x, &pos));
  OLG_TRY(nonpositive_part(cx, x, &neg));
  OLG_TRY(mul_const(cx, neg, in_scale, &neg));
  OLG_TRY(emit_f(cx, "Elu", neg, at, 1, &neg));
  OLG_TRY(olg__emit_math2(cx, "Add", pos, neg, &y));
  OLG_TRY(mul_const(cx, y, scale, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* aten::selu(self): Selu with PyTorch's constants */
olg_status olg__sym_selu(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, y;
  OLG_TRY(float_arg(cx, &x));
  fattr at[2] = {{"alpha", 1.6732632423543772848170429916717},
                 {"gamma", 1.0507009873554804934193349852946}};
  OLG_TRY(emit_f(cx, "Selu", x, at, 2, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* aten::celu(self, alpha=1): the input and alpha. */
static olg_status celu_args(olg_lower *cx, olg_value *x, double *alpha) {
  OLG_TRY(float_arg(cx, x));
  OLG_TRY(olg__arg_float_or(cx, 1, 1, alpha));
  if (*alpha == 0) return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "celu: alpha must not be 0");
  return OLG_OK;
}

/* max(0, x) + alpha * elu(min(0, x) / alpha) — elu of a non-positive z is exp(z) - 1 */
static olg_status celu_formula(olg_lower *cx, olg_value x, double alpha) {
  olg_value y, pos, neg;
  fattr one[1] = {{"alpha", 1.0}};
  OLG_TRY(olg__emit_math1(cx, "Relu", x, &pos));
  OLG_TRY(nonpositive_part(cx, x, &neg));
  OLG_TRY(mul_const(cx, neg, 1.0 / alpha, &neg));
  OLG_TRY(emit_f(cx, "Elu", neg, one, 1, &neg));
  OLG_TRY(mul_const(cx, neg, alpha, &neg));
  OLG_TRY(olg__emit_math2(cx, "Add", pos, neg, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* Celu (12), which takes float32 only: other dtypes, and below 12, the formula */
olg_status olg__sym_celu(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, y;
  double alpha;
  OLG_TRY(celu_args(cx, &x, &alpha));
  if (!olg__target_has(cx, "Celu")) return celu_formula(cx, x, alpha);
  if (!olg__op_takes(cx, "Celu", 0, olg__dtype(cx, x))) {
    OLG_TRY(olg_lower_decompose(cx, "celu of a tensor other than float32 (Celu takes float32 only)", -1));
    return celu_formula(cx, x, alpha);
  }
  fattr at[1] = {{"alpha", alpha}};
  OLG_TRY(emit_f(cx, "Celu", x, at, 1, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* ONNX Celu below 12: the same formula, alpha an attribute */
olg_status olg__sym_onnx_celu(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x;
  OLG_TRY(float_arg(cx, &x));
  double alpha = olg__src_attr_float(cx, "alpha", 1.0);
  if (alpha == 0) return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "Celu: alpha must not be 0");
  OLG_TRY(olg_lower_decompose(cx, "Celu as Relu + alpha * Elu(min(x, 0) / alpha)", 12));
  return celu_formula(cx, x, alpha);
}

/* ---- Gelu, Swish (silu), Mish: the aten op and the ONNX op read their arguments and call one
 * emitter each (emit_act.c) ---- */

static olg_status gelu_mode(olg_lower *cx, const char *approx, bool *tanh_mode) {
  *tanh_mode = strcmp(approx, "tanh") == 0;
  if (!*tanh_mode && strcmp(approx, "none") != 0)
    return olg__errf(cx, OLG_ERR_INVALID_ARG, "gelu: unknown approximate '%s'", approx);
  return OLG_OK;
}

/* aten::gelu(self, *, approximate="none") */
olg_status olg__sym_gelu(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, y;
  const char *approx;
  bool tanh_mode;
  OLG_TRY(float_arg(cx, &x));
  OLG_TRY(olg__arg_string_or(cx, 1, "none", &approx));
  OLG_TRY(gelu_mode(cx, approx, &tanh_mode));
  OLG_TRY(olg__emit_gelu(cx, x, tanh_mode, NULL, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* ONNX Gelu (20): approximate an attribute */
olg_status olg__sym_onnx_gelu(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, y;
  bool tanh_mode;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(gelu_mode(cx, olg__src_attr_string(cx, "approximate", "none"), &tanh_mode));
  OLG_TRY(olg__emit_gelu(cx, x, tanh_mode, "Gelu as its formula", &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* aten::silu(self) = x * sigmoid(x), at every opset: both are native ops, and ONNX Runtime 1.30
 * runs Swish only in opset-24 models */
olg_status olg__sym_silu(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, y;
  OLG_TRY(float_arg(cx, &x));
  OLG_TRY(olg__emit_swish(cx, x, 1.0, NULL, false, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* ONNX Swish (24) */
olg_status olg__sym_onnx_swish(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg__emit_swish(cx, x, olg__src_attr_float(cx, "alpha", 1.0), "Swish as x * Sigmoid(alpha * x)", true, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* aten::mish(self) */
olg_status olg__sym_mish(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, y;
  OLG_TRY(float_arg(cx, &x));
  OLG_TRY(olg__emit_mish(cx, x, NULL, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* ONNX Mish (18) */
olg_status olg__sym_onnx_mish(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg__emit_mish(cx, x, "Mish as x * Tanh(Softplus(x))", &y));
  return olg_lower_bind_output(cx, 0, y);
}

static const fattr hardsigmoid_attrs[2] = {{"alpha", 1.0 / 6.0}, {"beta", 0.5}};

/* aten::hardsigmoid(self) = clamp(x / 6 + 1/2, 0, 1) */
olg_status olg__sym_hardsigmoid(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, y;
  OLG_TRY(float_arg(cx, &x));
  OLG_TRY(emit_f(cx, "HardSigmoid", x, hardsigmoid_attrs, 2, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* aten::hardswish(self): HardSwish (14); below, x * hardsigmoid(x) */
olg_status olg__sym_hardswish(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  if (olg__target_has(cx, "HardSwish")) return unary_float(cx, "HardSwish");
  olg_value x, y;
  OLG_TRY(float_arg(cx, &x));
  OLG_TRY(emit_f(cx, "HardSigmoid", x, hardsigmoid_attrs, 2, &y));
  OLG_TRY(olg__emit_math2(cx, "Mul", x, y, &y));
  return olg_lower_bind_output(cx, 0, y);
}

olg_status olg__sym_sigmoid(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return unary_float(cx, "Sigmoid");
}

olg_status olg__sym_tanh(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return unary_float(cx, "Tanh");
}

olg_status olg__sym_softsign(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return unary_float(cx, "Softsign");
}

/* aten::log_sigmoid(self) = -softplus(-x), which does not underflow as log(sigmoid(x)) does */
olg_status olg__sym_log_sigmoid(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, y;
  OLG_TRY(float_arg(cx, &x));
  OLG_TRY(olg__emit_math1(cx, "Neg", x, &y));
  OLG_TRY(olg__emit_math1(cx, "Softplus", y, &y));
  OLG_TRY(olg__emit_math1(cx, "Neg", y, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* aten::softplus(self, beta=1, threshold=20): beta*x > threshold ? x : log1p(exp(beta*x))/beta.
 * With threshold >= 20 the two sides differ by less than float32 rounding (log1p(e^-20) / 20
 * relative), so plain Softplus serves; else the choice is made (softplus_choice). */
typedef struct softplus_args {
  olg_value x, bx, tv, above; /* input, beta*x, the threshold, beta*x > threshold */
  double beta, thr;
} softplus_args;

/* The arguments; true in *done when plain Softplus served (the output is bound). */
static olg_status softplus_begin(olg_lower *cx, softplus_args *a, bool *done) {
  olg_value y;
  *done = false;
  OLG_TRY(float_arg(cx, &a->x));
  OLG_TRY(olg__arg_float_or(cx, 1, 1, &a->beta));
  OLG_TRY(olg__arg_float_or(cx, 2, 20, &a->thr));
  if (a->beta == 0) return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "softplus: beta must not be 0");
  OLG_TRY(mul_const(cx, a->x, a->beta, &a->bx));
  if (a->thr >= 20 && olg__dtype(cx, a->x) != OLG_DOUBLE) {
    OLG_TRY(olg__emit_math1(cx, "Softplus", a->bx, &y));
    OLG_TRY(mul_const(cx, y, 1.0 / a->beta, &y));
    *done = true;
    return olg_lower_bind_output(cx, 0, y);
  }
  OLG_TRY(olg__const_like(cx, a->x, a->thr, &a->tv));
  return olg__emit_compare(cx, OLG_CMP_GT, a->bx, a->tv, &a->above);
}

/* from 9: Where */
static olg_status softplus_where(olg_lower *cx) {
  softplus_args a;
  bool done;
  OLG_TRY(softplus_begin(cx, &a, &done));
  if (done) return OLG_OK;
  olg_value sp, y;
  OLG_TRY(olg__emit_math1(cx, "Softplus", a.bx, &sp));
  OLG_TRY(mul_const(cx, sp, 1.0 / a.beta, &sp));
  OLG_TRY(olg__emit_where(cx, a.above, a.x, sp, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* Where (9); below 9: a mask blend whose unused side is kept finite by clipping at the threshold */
olg_status olg__sym_softplus(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  if (olg__target_has(cx, "Where")) return softplus_where(cx);
  softplus_args a;
  bool done;
  OLG_TRY(softplus_begin(cx, &a, &done));
  if (done) return OLG_OK;
  olg_dtype t = olg__dtype(cx, a.x);
  olg_value m, one, nm, lin, low, sp, y;
  OLG_TRY(olg__emit_cast(cx, a.above, t, &m));
  OLG_TRY(olg__const_like(cx, a.x, 1, &one));
  OLG_TRY(olg__emit_math2(cx, "Sub", one, m, &nm));
  OLG_TRY(olg__emit_max_min(cx, true, a.bx, a.tv, &lin)); /* Clip-6 would bound +inf too */
  OLG_TRY(mul_const(cx, lin, 1.0 / a.beta, &lin));
  OLG_TRY(olg__emit_clip_f(cx, a.bx, 0, 0, 1, a.thr, &low));
  OLG_TRY(olg__emit_math1(cx, "Softplus", low, &sp));
  OLG_TRY(mul_const(cx, sp, 1.0 / a.beta, &sp));
  OLG_TRY(olg__emit_math2(cx, "Mul", m, lin, &lin));
  OLG_TRY(olg__emit_math2(cx, "Mul", nm, sp, &sp));
  OLG_TRY(olg__emit_math2(cx, "Add", lin, sp, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* aten::prelu(self, weight): the weight is per channel, dim 1 (or one slope for all); ONNX's
 * slope broadcasts from the right, so [C] becomes [C, 1, ..., 1] for inputs of rank > 2. */
olg_status olg__sym_prelu(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, w, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg_lower_arg_value(cx, 1, &w));
  OLG_TRY(olg__emit_cast_like(cx, w, x, &w));
  int32_t r = olg__rank(cx, x), wr = olg__rank(cx, w);
  if (r < 0 || wr < 0)
    return olg_lower_error(cx, OLG_ERR_UNSUPPORTED, "prelu: the ranks of the input and weight are not known");
  int64_t c = wr == 0 ? 1 : olg__dim(cx, w, 0);
  if (wr > 1) return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "prelu: the weight must be 1-D");
  if (r > 2 && c != 1) {
    int64_t axes[OLG_MAX_RANK];
    for (int32_t i = 0; i < r - 2; i++) axes[i] = i + 1;
    OLG_TRY(olg__emit_unsqueeze(cx, w, axes, (size_t)(r - 2), &w));
  }
  OLG_TRY(olg__emit_math2(cx, "PRelu", x, w, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* aten::glu(self, dim=-1): a * sigmoid(b), the halves along dim */
olg_status olg__sym_glu(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, halves[2], s, y;
  int64_t dim;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg__arg_int_or(cx, 1, -1, &dim));
  int64_t size = olg__dim(cx, x, (int32_t)dim);
  if (size >= 0 && size % 2)
    return olg__errf(cx, OLG_ERR_INVALID_ARG, "glu: dim %lld has an odd size %lld", (long long)dim, (long long)size);
  OLG_TRY(olg__emit_split(cx, x, dim, NULL, 2, halves));
  OLG_TRY(olg__emit_math1(cx, "Sigmoid", halves[1], &s));
  OLG_TRY(olg__emit_math2(cx, "Mul", halves[0], s, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* aten::threshold(self, threshold, value): x <= threshold ? value : x (so NaN stays NaN). ONNX
 * ThresholdedRelu (onnx: alpha an attribute,
 * value 0) is threshold(x, alpha, 0). */
static olg_status threshold_args(olg_lower *cx, bool onnx, olg_value *x, olg_value *tv,
                                 olg_value *vv, olg_value *le) {
  OLG_TRY(olg_lower_arg_value(cx, 0, x));
  olg_dtype t = olg__dtype(cx, *x);
  if (onnx) {
    OLG_TRY(olg_lower_decompose(cx, "ThresholdedRelu as aten::threshold(x, alpha, 0)", 10));
    OLG_TRY(olg__const_like(cx, *x, olg__src_attr_float(cx, "alpha", 1.0), tv));
    OLG_TRY(olg__const_like(cx, *x, 0, vv));
  } else {
    OLG_TRY(olg__arg_cast(cx, 1, t, tv));
    OLG_TRY(olg__arg_cast(cx, 2, t, vv));
  }
  return olg__emit_compare(cx, OLG_CMP_LE, *x, *tv, le);
}

/* below 9: m * value + (1 - m) * max(x, threshold), each side finite where its mask is 0 (Max
 * keeps NaN) */
static olg_status threshold_below9(olg_lower *cx, bool onnx) {
  olg_value x, tv, vv, le, y;
  OLG_TRY(threshold_args(cx, onnx, &x, &tv, &vv, &le));
  olg_dtype t = olg__dtype(cx, x);
  olg_value m, one, nm, keep = x, fill;
  if (olg__is_float(t)) OLG_TRY(olg__emit_max_min(cx, true, x, tv, &keep));
  OLG_TRY(olg__emit_cast(cx, le, t, &m));
  OLG_TRY(olg__const_like(cx, x, 1, &one));
  OLG_TRY(olg__emit_math2(cx, "Sub", one, m, &nm));
  OLG_TRY(olg__emit_math2(cx, "Mul", nm, keep, &keep));
  OLG_TRY(olg__emit_math2(cx, "Mul", m, vv, &fill));
  OLG_TRY(olg__emit_math2(cx, "Add", keep, fill, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* from 9: Where */
static olg_status threshold_where(olg_lower *cx, bool onnx) {
  olg_value x, tv, vv, le, y;
  OLG_TRY(threshold_args(cx, onnx, &x, &tv, &vv, &le));
  OLG_TRY(olg__emit_where(cx, le, vv, x, &y));
  return olg_lower_bind_output(cx, 0, y);
}

olg_status olg__sym_threshold(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return olg__target_has(cx, "Where") ? threshold_where(cx, false) : threshold_below9(cx, false);
}

olg_status olg__sym_onnx_thresholded_relu(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return olg__target_has(cx, "Where") ? threshold_where(cx, true) : threshold_below9(cx, true);
}

/* Shrink's meaning: x < -lambd ? x + bias : x > lambd ? x - bias : 0 (Shrink-9; below it, and
 * for a dtype the target's Shrink lacks, compares and olg__emit_where's picks). aten hardshrink
 * is bias 0, softshrink bias lambd. */
static olg_status shrink(olg_lower *cx, olg_value x, double lambd, double bias, olg_value *out) {
  olg_dtype t = olg__dtype(cx, x);
  if (olg__op_takes(cx, "Shrink", 0, t)) {
    olg_node_id nd;
    OLG_TRY(olg_lower_emit_begin(cx, "", "Shrink", &nd));
    OLG_TRY(olg_lower_emit_input(cx, nd, x));
    if (lambd != 0.5) OLG_TRY(olg_lower_emit_attr_float(cx, nd, "lambd", lambd));
    if (bias != 0) OLG_TRY(olg_lower_emit_attr_float(cx, nd, "bias", bias));
    return olg_lower_emit_end(cx, nd, 1, out);
  }
  olg_value lo, hi, b, zero, below, above, y;
  OLG_TRY(olg__const_like(cx, x, -lambd, &lo));
  OLG_TRY(olg__const_like(cx, x, lambd, &hi));
  OLG_TRY(olg__const_like(cx, x, bias, &b));
  OLG_TRY(olg__const_like(cx, x, 0, &zero));
  OLG_TRY(olg__emit_compare(cx, OLG_CMP_LT, x, lo, &below));
  OLG_TRY(olg__emit_compare(cx, OLG_CMP_GT, x, hi, &above));
  OLG_TRY(olg__emit_math2(cx, "Sub", x, b, &y));
  OLG_TRY(olg__emit_where(cx, above, y, zero, &y));
  OLG_TRY(olg__emit_math2(cx, "Add", x, b, &b));
  return olg__emit_where(cx, below, b, y, out);
}

olg_status olg__sym_onnx_shrink(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(shrink(cx, x, olg__src_attr_float(cx, "lambd", 0.5), olg__src_attr_float(cx, "bias", 0), &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* aten::hardshrink(Tensor self, Scalar lambd=0.5), aten::softshrink(Tensor self, Scalar lambd=0.5) */
static olg_status aten_shrink(olg_lower *cx, bool soft) {
  olg_value x, y;
  double lambd;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg__arg_float_or(cx, 1, 0.5, &lambd));
  OLG_TRY(shrink(cx, x, lambd, soft ? lambd : 0, &y));
  return olg_lower_bind_output(cx, 0, y);
}

olg_status olg__sym_hardshrink(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return aten_shrink(cx, false);
}

olg_status olg__sym_softshrink(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return aten_shrink(cx, true);
}

/* aten::softmax(self, int dim, ScalarType? dtype=None), log_softmax likewise */
/* aten::softmax / log_softmax(Tensor self, int dim, ScalarType? dtype=None) (self cast to dtype
 * first), and with half_to_float aten::_softmax / _log_softmax(Tensor self, int dim,
 * bool half_to_float): a half self gives float when half_to_float. */
static olg_status softmax(olg_lower *cx, olg_softmax_kind kind, bool half_to_float) {
  olg_value x, y;
  int64_t dim;
  olg_dtype dt = OLG_UNDEFINED;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg_lower_arg_int(cx, 1, &dim));
  if (half_to_float) {
    int h;
    OLG_TRY(olg__arg_bool_or(cx, 2, 0, &h));
    if (h && (olg__dtype(cx, x) == OLG_FLOAT16 || olg__dtype(cx, x) == OLG_BFLOAT16)) dt = OLG_FLOAT;
  } else {
    OLG_TRY(olg__arg_scalar_type_or(cx, 2, OLG_UNDEFINED, &dt));
  }
  if (dt != OLG_UNDEFINED) OLG_TRY(olg__emit_cast(cx, x, dt, &x));
  olg_dtype t = olg__dtype(cx, x), ct;
  if (!olg__is_float(t))
    return olg__errf(cx, OLG_ERR_TYPE, "softmax of a %s tensor (give a float dtype)", olg_dtype_name(t));
  if (olg__rank(cx, x) == 0) { /* one element: softmax 1, log_softmax 0 */
    olg_value shape;
    OLG_TRY(olg__shape(cx, x, &shape));
    OLG_TRY(olg__emit_full(cx, shape, t, kind == OLG_SOFTMAX ? 1 : 0, &y));
    return olg_lower_bind_output(cx, 0, y);
  }
  OLG_TRY(olg__compute_dtype(cx, kind == OLG_SOFTMAX ? "Softmax" : "LogSoftmax", 0, t, &ct));
  OLG_TRY(olg__emit_cast(cx, x, ct, &x));
  OLG_TRY(olg__emit_softmax(cx, kind, x, dim, &y));
  OLG_TRY(olg__emit_cast(cx, y, t, &y));
  return olg_lower_bind_output(cx, 0, y);
}

olg_status olg__sym_softmax(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return softmax(cx, OLG_SOFTMAX, false);
}

olg_status olg__sym_log_softmax(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return softmax(cx, OLG_LOG_SOFTMAX, false);
}

olg_status olg__sym_softmax_half_to_float(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return softmax(cx, OLG_SOFTMAX, true);
}

olg_status olg__sym_log_softmax_half_to_float(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return softmax(cx, OLG_LOG_SOFTMAX, true);
}

/* aten::dropout / feature_dropout / alpha_dropout / feature_alpha_dropout(input, p, train):
 * the identity in inference. With train=True the result is random in PyTorch: exported as
 * inference, with a warning. */
olg_status olg__sym_dropout(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x;
  int train;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg__arg_bool_or(cx, 2, 0, &train));
  if (train)
    OLG_TRY(olg_lower_warning(cx, "dropout with train=True is exported as in inference (the identity)"));
  return olg_lower_bind_output(cx, 0, x);
}
