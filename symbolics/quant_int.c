/* onnxlegal — ONNX's integer quantized ops below the opsets that have them: ConvInteger,
 * MatMulInteger, QLinearConv, QLinearMatMul (10) and DynamicQuantizeLinear (11), computed exactly
 * with the target's float ops.
 *
 * The accumulation must hold every sum of products of 8-bit values minus their zero points
 * (each at most 255 * 255) exactly, as the ops' int32 accumulators do:
 * - MatMul in double (every such sum below 2^53; ONNX Runtime has a double MatMul at every
 *   opset, an int32 one only from 9);
 * - Conv in float, the only type ONNX Runtime's Conv takes (no double Conv): float holds a sum
 *   exactly while every partial sum stays below 2^24, which is checked from the weight's shape
 *   and (when known) contents; past it each operand is split into 4-bit halves (x = 16 h + l,
 *   |h|, |l| <= 16) so that each of the four Convs sums terms of at most 256, exact for up to
 *   65536 terms per output, and the four are combined in int32.
 * The QLinear ops then requantize as ONNX Runtime does: float(acc) times the float multiplier
 * (a_scale * b_scale) / y_scale, rounded half to even, plus the zero point, saturated. */
#include <math.h>

#include "emit.h"
#include "emit_math.h"
#include "../lib/lower.h"
#include "symbolics.h"

#define EXACT_F32 16777216.0 /* 2^24: float holds every integer up to it */

/* p as it broadcasts along a leading axis followed by `trail` more: a 1-D p of more than one
 * element (per channel, per column) becomes [n, 1 x trail]; a scalar stays as it is. */
static olg_status per_channel(olg_lower *cx, olg_value p, int32_t trail, olg_value *out) {
  if (olg__rank(cx, p) != 1 || olg__dim(cx, p, 0) == 1 || trail <= 0) return *out = p, OLG_OK;
  int64_t axes[OLG_MAX_RANK];
  for (int32_t i = 0; i < trail && i < OLG_MAX_RANK; i++) axes[i] = i + 1;
  return olg__emit_unsqueeze(cx, p, axes, (size_t)trail, out);
}

/* v - zp in carrier (float or double), exact: both are 8-bit integers. */
static olg_status centered(olg_lower *cx, olg_value v, olg_value zp, int32_t trail,
                           olg_dtype carrier, olg_value *out) {
  OLG_TRY(olg__emit_cast(cx, v, carrier, out));
  if (zp == OLG_NO_VALUE) return OLG_OK;
  olg_value z;
  OLG_TRY(per_channel(cx, zp, trail, &z));
  OLG_TRY(olg__emit_cast(cx, z, carrier, &z));
  return olg__emit2(cx, "Sub", *out, z, out);
}

static bool is_8bit(olg_dtype t) { return t == OLG_UINT8 || t == OLG_INT8; }

/* Refuses what the decomposition does not take: operands other than 8-bit integers, and a zero
 * point or scale of the first operand that is not per tensor (ONNX Runtime takes only those). */
static olg_status check_operands(olg_lower *cx, olg_value a, olg_value b, int b_input,
                                 olg_value a_zp, olg_value a_scale) {
  const char *op = olg_lower_node_op(cx);
  olg_dtype ta = olg__dtype(cx, a), tb = olg__dtype(cx, b);
  if (!is_8bit(ta) || !is_8bit(tb)) { /* the lowest version that takes both types */
    int la = olg__lowest_opset_taking(op, 0, ta), lb = olg__lowest_opset_taking(op, b_input, tb);
    return olg__unsupportedf(cx, la < 0 || lb < 0 ? -1 : la > lb ? la : lb, "%s of %s and %s",
                             op, olg_dtype_name(ta), olg_dtype_name(tb));
  }
  olg_value p[2] = {a_zp, a_scale};
  for (int i = 0; i < 2; i++)
    if (p[i] != OLG_NO_VALUE && olg__rank(cx, p[i]) > 0 &&
        (olg__rank(cx, p[i]) != 1 || olg__dim(cx, p[i], 0) != 1))
      return olg__unsupportedf(cx, 10, "%s with a first operand quantized per row", op);
  return OLG_OK;
}

/* An upper bound of |v - zp|: from the known contents, else 255 (two values of one 8-bit type
 * differ by at most that). */
static double max_abs(const int64_t *p, size_t n) {
  double m = 0;
  for (size_t i = 0; i < n; i++) m = fmax(m, fabs((double)p[i]));
  return m;
}

static double max_centered(olg_lower *cx, olg_value v, olg_value zp) {
  const int64_t *p;
  size_t n;
  if (!olg__known_ints(cx, v, &p, &n)) return 255;
  double m = max_abs(p, n);
  if (zp != OLG_NO_VALUE) {
    if (!olg__known_ints(cx, zp, &p, &n)) return 255;
    m += max_abs(p, n);
  }
  return fmin(m, 255);
}

/* The source Conv's attributes (ConvInteger and QLinearConv have Conv-1's) on a float Conv. */
static olg_status conv_f(olg_lower *cx, olg_value x, olg_value w, olg_value *out) {
  static const char *const ints[] = {"dilations", "kernel_shape", "pads", "strides"};
  olg_node_id n;
  OLG_TRY(olg_lower_emit_begin(cx, NULL, "Conv", &n));
  OLG_TRY(olg_lower_emit_input(cx, n, x));
  OLG_TRY(olg_lower_emit_input(cx, n, w));
  for (size_t i = 0; i < sizeof ints / sizeof *ints; i++) {
    const int64_t *p;
    size_t k;
    if (olg__src_attr_ints(cx, ints[i], &p, &k))
      OLG_TRY(olg_lower_emit_attr_ints(cx, n, ints[i], p, k));
  }
  if (olg_lower_src_attr_has(cx, "group"))
    OLG_TRY(olg_lower_emit_attr_int(cx, n, "group", olg__src_attr_int(cx, "group", 1)));
  if (olg_lower_src_attr_has(cx, "auto_pad"))
    OLG_TRY(olg_lower_emit_attr_string(cx, n, "auto_pad",
                                       olg__src_attr_string(cx, "auto_pad", "NOTSET")));
  return olg_lower_emit_end(cx, n, 1, out);
}

/* v (float, integers) as 16 * hi + lo with lo in [0, 16). */
static olg_status split4(olg_lower *cx, olg_value v, olg_value *hi, olg_value *lo) {
  olg_value c, t;
  OLG_TRY(olg__const_scalar(cx, OLG_FLOAT, 0.0625, &c));
  OLG_TRY(olg__emit2(cx, "Mul", v, c, &t));
  OLG_TRY(olg__emit1(cx, "Floor", t, hi));
  OLG_TRY(olg__const_scalar(cx, OLG_FLOAT, 16, &c));
  OLG_TRY(olg__emit2(cx, "Mul", *hi, c, &t));
  return olg__emit2(cx, "Sub", v, t, lo);
}

/* The int32 accumulator of a ConvInteger: sum over (x - x_zp) * (w - w_zp), exact (see the top). */
static olg_status conv_acc(olg_lower *cx, olg_value x, olg_value xz, olg_value w, olg_value wz,
                           olg_value *acc) {
  int64_t wd[OLG_MAX_RANK];
  int32_t wr;
  if (!olg__static_shape(cx, w, wd, &wr) || wr < 3)
    return olg__unsupportedf(cx, 10, "%s with a weight whose shape is not known at export time",
                             olg_lower_node_op(cx));
  double k = 1;
  for (int32_t i = 1; i < wr; i++) k *= (double)wd[i];
  olg_value xf, wf, c;
  OLG_TRY(centered(cx, x, xz, 0, OLG_FLOAT, &xf));
  OLG_TRY(centered(cx, w, wz, wr - 1, OLG_FLOAT, &wf));
  if (k * max_centered(cx, x, xz) * max_centered(cx, w, wz) <= EXACT_F32) {
    OLG_TRY(conv_f(cx, xf, wf, &c));
    return olg__emit_cast(cx, c, OLG_INT32, acc);
  }
  if (k * 256 > EXACT_F32)
    return olg__unsupportedf(cx, 10, "%s summing %.0f products per output (more than float "
                             "computes exactly in four parts)", olg_lower_node_op(cx), k);
  olg_value xh, xl, wh, wl, hh, hl, lh, ll, s;
  OLG_TRY(split4(cx, xf, &xh, &xl));
  OLG_TRY(split4(cx, wf, &wh, &wl));
  OLG_TRY(conv_f(cx, xh, wh, &hh));
  OLG_TRY(conv_f(cx, xh, wl, &hl));
  OLG_TRY(conv_f(cx, xl, wh, &lh));
  OLG_TRY(conv_f(cx, xl, wl, &ll));
  olg_value *parts[] = {&hh, &hl, &lh, &ll};
  for (int i = 0; i < 4; i++) OLG_TRY(olg__emit_cast(cx, *parts[i], OLG_INT32, parts[i]));
  OLG_TRY(olg__const_scalar(cx, OLG_INT32, 16, &c));
  OLG_TRY(olg__emit2(cx, "Mul", hh, c, &s));  /* ((hh * 16) + hl + lh) * 16 + ll */
  OLG_TRY(olg__emit2(cx, "Add", s, hl, &s));
  OLG_TRY(olg__emit2(cx, "Add", s, lh, &s));
  OLG_TRY(olg__emit2(cx, "Mul", s, c, &s));
  return olg__emit2(cx, "Add", s, ll, acc);
}

/* The accumulator of a MatMulInteger in double (exact; see the top). */
static olg_status matmul_acc(olg_lower *cx, olg_value a, olg_value az, olg_value b, olg_value bz,
                             olg_value *acc) {
  olg_value af, bf;
  OLG_TRY(centered(cx, a, az, 0, OLG_DOUBLE, &af));
  OLG_TRY(centered(cx, b, bz, 0, OLG_DOUBLE, &bf)); /* per column: [N] broadcasts as it is */
  return olg__emit2(cx, "MatMul", af, bf, acc);
}

/* saturate(round_half_even(v) + zp) of float v to zp's 8-bit type. */
static olg_status saturate_round(olg_lower *cx, olg_value v, olg_value zp, olg_dtype t,
                                 olg_value *out) {
  olg_value y, z;
  OLG_TRY(olg__emit_round(cx, v, &y));
  if (zp != OLG_NO_VALUE) {
    OLG_TRY(olg__emit_cast(cx, zp, OLG_FLOAT, &z));
    OLG_TRY(olg__emit2(cx, "Add", y, z, &y));
  }
  OLG_TRY(olg__emit_clip_f(cx, y, 1, t == OLG_UINT8 ? 0 : -128, 1, t == OLG_UINT8 ? 255 : 127, &y));
  return olg__emit_cast(cx, y, t, out);
}

/* The QLinear ops' requantization of acc (int32 or double) with the multiplier
 * (a_scale * b_scale) / y_scale, b_scale per channel along `trail` trailing dims. */
static olg_status requantize(olg_lower *cx, olg_value acc, olg_value a_scale, olg_value b_scale,
                             int32_t trail, olg_value y_scale, olg_value y_zp, olg_value *out) {
  olg_dtype t = olg__dtype(cx, y_zp);
  if (!is_8bit(t) || olg__dtype(cx, a_scale) != OLG_FLOAT || olg__dtype(cx, b_scale) != OLG_FLOAT ||
      olg__dtype(cx, y_scale) != OLG_FLOAT)
    return olg__unsupportedf(cx, olg__lowest_opset_taking(olg_lower_node_op(cx), 1,
                                                          olg__dtype(cx, a_scale)),
                             "%s with scales other than float or an output other than 8-bit",
                             olg_lower_node_op(cx));
  olg_value m, v;
  OLG_TRY(olg__emit2(cx, "Mul", a_scale, b_scale, &m));
  OLG_TRY(olg__emit2(cx, "Div", m, y_scale, &m));
  OLG_TRY(per_channel(cx, m, trail, &m));
  OLG_TRY(olg__emit_cast(cx, acc, OLG_FLOAT, &v)); /* float(acc), as the kernels round it */
  OLG_TRY(olg__emit2(cx, "Mul", v, m, &v));
  return saturate_round(cx, v, y_zp, t, out);
}

olg_status olg__sym_onnx_conv_integer(olg_lower *cx, olg_node_id src, void *ud) {
  (void)src, (void)ud;
  olg_value x, w, xz, wz, acc;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg_lower_arg_value(cx, 1, &w));
  OLG_TRY(olg__arg_value_or_none(cx, 2, &xz));
  OLG_TRY(olg__arg_value_or_none(cx, 3, &wz));
  OLG_TRY(check_operands(cx, x, w, 1, xz, OLG_NO_VALUE));
  OLG_TRY(olg_lower_decompose(cx, "ConvInteger as an exact float Conv", 10));
  OLG_TRY(conv_acc(cx, x, xz, w, wz, &acc));
  return olg_lower_bind_output(cx, 0, acc);
}

olg_status olg__sym_onnx_matmul_integer(olg_lower *cx, olg_node_id src, void *ud) {
  (void)src, (void)ud;
  olg_value a, b, az, bz, acc;
  OLG_TRY(olg_lower_arg_value(cx, 0, &a));
  OLG_TRY(olg_lower_arg_value(cx, 1, &b));
  OLG_TRY(olg__arg_value_or_none(cx, 2, &az));
  OLG_TRY(olg__arg_value_or_none(cx, 3, &bz));
  OLG_TRY(check_operands(cx, a, b, 1, az, OLG_NO_VALUE));
  OLG_TRY(olg_lower_decompose(cx, "MatMulInteger as a MatMul in double", 10));
  OLG_TRY(matmul_acc(cx, a, az, b, bz, &acc));
  OLG_TRY(olg__emit_cast(cx, acc, OLG_INT32, &acc));
  return olg_lower_bind_output(cx, 0, acc);
}

olg_status olg__sym_onnx_qlinear_conv(olg_lower *cx, olg_node_id src, void *ud) {
  (void)src, (void)ud;
  olg_value in[9], acc, y;
  for (size_t i = 0; i < 8; i++) OLG_TRY(olg_lower_arg_value(cx, i, &in[i]));
  OLG_TRY(olg__arg_value_or_none(cx, 8, &in[8]));
  OLG_TRY(check_operands(cx, in[0], in[3], 3, in[2], in[1]));
  int32_t r = olg__rank(cx, in[0]);
  if (r < 3) return olg__unsupportedf(cx, 10, "QLinearConv of an input of unknown rank");
  OLG_TRY(olg_lower_decompose(cx, "QLinearConv as an exact float Conv, requantized", 10));
  OLG_TRY(conv_acc(cx, in[0], in[2], in[3], in[5], &acc));
  if (in[8] != OLG_NO_VALUE) { /* the int32 bias joins the accumulator, per output channel */
    olg_value b;
    OLG_TRY(per_channel(cx, in[8], r - 2, &b));
    OLG_TRY(olg__emit_cast(cx, b, OLG_INT32, &b));
    OLG_TRY(olg__emit2(cx, "Add", acc, b, &acc));
  }
  OLG_TRY(requantize(cx, acc, in[1], in[4], r - 2, in[6], in[7], &y));
  return olg_lower_bind_output(cx, 0, y);
}

olg_status olg__sym_onnx_qlinear_matmul(olg_lower *cx, olg_node_id src, void *ud) {
  (void)src, (void)ud;
  olg_value in[8], acc, y;
  for (size_t i = 0; i < 8; i++) OLG_TRY(olg_lower_arg_value(cx, i, &in[i]));
  OLG_TRY(check_operands(cx, in[0], in[3], 3, in[2], in[1]));
  OLG_TRY(olg_lower_decompose(cx, "QLinearMatMul as a MatMul in double, requantized", 10));
  OLG_TRY(matmul_acc(cx, in[0], in[2], in[3], in[5], &acc));
  OLG_TRY(requantize(cx, acc, in[1], in[4], 0, in[6], in[7], &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* y_scale = (max(0, max x) - min(0, min x)) / 255 (1 where that is 0, as ONNX Runtime has it),
 * y_zero_point = saturate(round(-min / y_scale)), y = saturate(round(x / y_scale) + zp). */
olg_status olg__sym_onnx_dynamic_quantize_linear(olg_lower *cx, olg_node_id src, void *ud) {
  (void)src, (void)ud;
  olg_value x, hi, lo, range, scale, c, zero, flat, zp, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  olg_dtype t = olg__dtype(cx, x);
  if (t != OLG_FLOAT)
    return olg__unsupportedf(cx, olg__lowest_opset_taking("DynamicQuantizeLinear", 0, t),
                             "DynamicQuantizeLinear of %s", olg_dtype_name(t));
  OLG_TRY(olg_lower_decompose(cx, "DynamicQuantizeLinear from the input's range", 11));
  OLG_TRY(olg__emit_reduce(cx, OLG_REDUCE_MAX, x, NULL, 0, 0, &hi));
  OLG_TRY(olg__emit_reduce(cx, OLG_REDUCE_MIN, x, NULL, 0, 0, &lo));
  OLG_TRY(olg__emit_clip_f(cx, hi, 1, 0, 0, 0, &hi));
  OLG_TRY(olg__emit_clip_f(cx, lo, 0, 0, 1, 0, &lo));
  OLG_TRY(olg__emit2(cx, "Sub", hi, lo, &range));
  OLG_TRY(olg__const_scalar(cx, OLG_FLOAT, 255, &c));
  OLG_TRY(olg__emit2(cx, "Div", range, c, &scale));
  OLG_TRY(olg__const_scalar(cx, OLG_FLOAT, 0, &c));
  OLG_TRY(olg__emit_compare(cx, OLG_CMP_EQ, range, c, &zero));
  OLG_TRY(olg__emit_cast(cx, zero, OLG_FLOAT, &zero));
  OLG_TRY(olg__emit2(cx, "Add", scale, zero, &scale)); /* 0 + 1 where the range is empty */
  OLG_TRY(olg__emit2(cx, "Div", lo, scale, &flat));
  OLG_TRY(olg__emit1(cx, "Neg", flat, &flat));
  OLG_TRY(saturate_round(cx, flat, OLG_NO_VALUE, OLG_UINT8, &zp));
  OLG_TRY(olg__emit2(cx, "Div", x, scale, &y));
  OLG_TRY(saturate_round(cx, y, zp, OLG_UINT8, &y));
  OLG_TRY(olg_lower_bind_output(cx, 0, y));
  OLG_TRY(olg_lower_bind_output(cx, 1, scale));
  return olg_lower_bind_output(cx, 2, zp);
}
