/* onnxlegal — ONNX-domain elementwise ops below the opset where they (or the type they are given)
 * exist, each by the emit helper the aten op of the same meaning uses:
 * - Mod below 10: olg__emit_remainder (aten::remainder for fmod 0, aten::fmod for fmod 1);
 * - Add/Sub/Mul/Div of int8, uint8, int16, uint16 below 14 (their versions there take 32- and
 *   64-bit integers only): computed in int32 (int64 for 16 bits), where the exact result fits,
 *   and wrapped to the type as C and ONNX Runtime's kernels wrap it;
 * - Equal of floats below 11, GreaterOrEqual/LessOrEqual below 12: olg__emit_compare;
 * - IsNaN below 9: olg__emit_isnan; IsInf below 10: compared with the dtype's largest finite
 *   value;
 * - Gemm without C below 11 (C was required): a zero C.
 * Each is registered at 7 and handed back to the pass-through (native) where the op or type
 * starts (opsets/opsetNN.c). */
#include <float.h>
#include <math.h>
#include <string.h>

#include "emit.h"
#include "emit_math.h"
#include "emit_src.h"
#include "../lib/lower.h"
#include "../lib/schema.h"
#include "symbolics.h"


/* Mod-10's meaning (fmod 0: the divisor's sign, integers only; fmod 1: the dividend's). */
olg_status olg__sym_onnx_mod(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value a, b, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &a));
  OLG_TRY(olg_lower_arg_value(cx, 1, &b));
  int64_t fmod = olg__src_attr_int(cx, "fmod", 0);
  olg_dtype t = olg__dtype(cx, a);
  if (olg__is_float(t) && !fmod)
    return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "Mod of floats needs fmod=1");
  if (t != olg__dtype(cx, b))
    return olg_lower_error(cx, OLG_ERR_TYPE, "Mod of two different types");
  OLG_TRY(olg_lower_decompose(cx, "Mod by truncating division and a sign fix-up", 10));
  OLG_TRY(olg__emit_remainder(cx, false, fmod == 0, a, b, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* r wrapped into the range of t (8 or 16 bits): ((r - lo) mod 2^bits) + lo, the modulo of a
 * non-negative value by truncating Div. r is int32 (8 bits, |r| <= 2^16) or int64 (16 bits,
 * |r| <= 2^32). */
static olg_status wrap_to(olg_lower *cx, olg_value r, olg_dtype t, olg_value *out) {
  int bits = (int)olg_dtype_bits(t);
  double m = ldexp(1.0, bits), lo = olg__is_unsigned(t) ? 0 : -m / 2;
  double bound = bits == 8 ? ldexp(1.0, 16) : ldexp(1.0, 32);
  double off = -lo + ceil((bound + m) / m) * m; /* a multiple of m, above |r| - lo */
  olg_value offv, mv, lov, q;
  OLG_TRY(olg__const_like(cx, r, off, &offv)); /* u = r + off >= 0, u = r - lo (mod m) */
  OLG_TRY(olg__const_like(cx, r, m, &mv));
  OLG_TRY(olg__const_like(cx, r, lo, &lov));
  OLG_TRY(olg__emit2(cx, "Add", r, offv, &r));
  OLG_TRY(olg__emit2(cx, "Div", r, mv, &q));
  OLG_TRY(olg__emit2(cx, "Mul", q, mv, &q));
  OLG_TRY(olg__emit2(cx, "Sub", r, q, &r));
  OLG_TRY(olg__emit2(cx, "Add", r, lov, &r));
  return olg__emit_cast(cx, r, t, out);
}

/* Add/Sub/Mul/Div: the 8- and 16-bit integers before 14; anything else as it is. */
olg_status olg__sym_onnx_int_arith(olg_lower *cx, olg_node_id src, void *ud) {
  const olg_node *nd = olg__src_node(cx);
  olg_value a, b, y;
  if (nd->n_args != 2 || nd->args[0].kind != OLG_ARG_VALUE || nd->args[1].kind != OLG_ARG_VALUE)
    return olg__sym_onnx_passthrough(cx, src, ud);
  OLG_TRY(olg_lower_arg_value(cx, 0, &a));
  OLG_TRY(olg_lower_arg_value(cx, 1, &b));
  olg_dtype t = olg__dtype(cx, a);
  bool narrow = t == OLG_INT8 || t == OLG_UINT8 || t == OLG_INT16 || t == OLG_UINT16;
  if (!narrow || olg__op_takes(cx, nd->op, 0, t) || olg__dtype(cx, b) != t || nd->n_attrs)
    return olg__sym_onnx_passthrough(cx, src, ud);
  OLG_TRY(olg_lower_decompose(cx, "8- and 16-bit integer arithmetic computed wider and wrapped", 14));
  olg_dtype w = olg_dtype_bits(t) == 8 ? OLG_INT32 : OLG_INT64;
  OLG_TRY(olg__emit_cast(cx, a, w, &a));
  OLG_TRY(olg__emit_cast(cx, b, w, &b));
  OLG_TRY(olg__emit2(cx, nd->op, a, b, &y));
  OLG_TRY(wrap_to(cx, y, t, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* Equal (floats before 11), GreaterOrEqual/LessOrEqual (before 12): the exact comparison at
 * every opset. */
olg_status olg__sym_onnx_compare(olg_lower *cx, olg_node_id src, void *ud) {
  const olg_node *nd = olg__src_node(cx);
  olg_cmp op;
  if (strcmp(nd->op, "Equal") == 0) op = OLG_CMP_EQ;
  else if (strcmp(nd->op, "GreaterOrEqual") == 0) op = OLG_CMP_GE;
  else if (strcmp(nd->op, "LessOrEqual") == 0) op = OLG_CMP_LE;
  else return olg__sym_onnx_passthrough(cx, src, ud);
  olg_value a, b, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &a));
  OLG_TRY(olg_lower_arg_value(cx, 1, &b));
  olg_dtype t = olg__dtype(cx, a);
  if (nd->n_attrs || olg__op_takes(cx, nd->op, 0, t))
    return olg__sym_onnx_passthrough(cx, src, ud);
  OLG_TRY(olg__emit_compare(cx, op, a, b, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* IsNaN-9's meaning below 9 (floats; false for other types does not arise: IsNaN takes floats) */
olg_status olg__sym_onnx_isnan(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg__emit_isnan(cx, x, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* Where-9's meaning below 9: olg__emit_where's Gather pick (shapes known at conversion time) */
olg_status olg__sym_onnx_where(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value c, a, b, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &c));
  OLG_TRY(olg_lower_arg_value(cx, 1, &a));
  OLG_TRY(olg_lower_arg_value(cx, 2, &b));
  OLG_TRY(olg__emit_where(cx, c, a, b, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* IsInf-10's meaning below 10: x > the largest finite value (detect_positive), x < its
 * negation (detect_negative). */
olg_status olg__sym_onnx_isinf(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, y = OLG_NO_VALUE, c, m;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  olg_dtype t = olg__dtype(cx, x);
  if (!olg__is_float(t))
    return olg__errf(cx, OLG_ERR_TYPE, "IsInf of a %s tensor", olg_dtype_name(t));
  double max = t == OLG_DOUBLE ? DBL_MAX : t == OLG_FLOAT16 ? 65504.0 : (double)FLT_MAX;
  bool pos = olg__src_attr_int(cx, "detect_positive", 1) != 0;
  bool neg = olg__src_attr_int(cx, "detect_negative", 1) != 0;
  OLG_TRY(olg_lower_decompose(cx, "IsInf as comparisons with the largest finite value", 10));
  if (pos) {
    OLG_TRY(olg__const_like(cx, x, max, &c));
    OLG_TRY(olg__emit_compare(cx, OLG_CMP_GT, x, c, &y));
  }
  if (neg) {
    OLG_TRY(olg__const_like(cx, x, -max, &c));
    OLG_TRY(olg__emit_compare(cx, OLG_CMP_LT, x, c, &m));
    if (y == OLG_NO_VALUE) y = m;
    else OLG_TRY(olg__emit2(cx, "Or", y, m, &y));
  }
  if (y == OLG_NO_VALUE) { /* neither: all false */
    OLG_TRY(olg__emit_compare(cx, OLG_CMP_EQ, x, x, &y));
    OLG_TRY(olg__emit_isnan(cx, x, &m));
    OLG_TRY(olg__emit2(cx, "And", y, m, &y));
  }
  return olg_lower_bind_output(cx, 0, y);
}

/* Gemm without C (optional from 11) at a target whose Gemm requires it: C is a zero of the
 * output's type, shape [1] (broadcast), so alpha * A' * B' + beta * 0 is the same product. */
olg_status olg__sym_onnx_gemm(olg_lower *cx, olg_node_id src, void *ud) {
  const olg_schema *ts = olg__target_schema(cx, "Gemm");
  bool has_c = olg_lower_arg_count(cx) >= 3 && !olg_lower_arg_is_none(cx, 2);
  if (has_c || !ts || ts->min_inputs < 3) return olg__sym_onnx_passthrough(cx, src, ud);
  olg_value a, b, c, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &a));
  OLG_TRY(olg_lower_arg_value(cx, 1, &b));
  olg_dtype t = olg__dtype(cx, a);
  if (t == OLG_UNDEFINED) return olg__sym_onnx_passthrough(cx, src, ud);
  static const uint8_t zero[16];
  const int64_t one = 1;
  size_t bytes = (size_t)(olg_dtype_bits(t) + 7) / 8;
  if (!bytes || bytes > sizeof zero) return olg__sym_onnx_passthrough(cx, src, ud);
  OLG_TRY(olg_lower_emit_const(cx, t, 1, &one, zero, bytes, &c));
  const olg_node *nd = olg__src_node(cx);
  olg_node_id n;
  OLG_TRY(olg_lower_emit_begin(cx, "", "Gemm", &n));
  OLG_TRY(olg_lower_emit_input(cx, n, a));
  OLG_TRY(olg_lower_emit_input(cx, n, b));
  OLG_TRY(olg_lower_emit_input(cx, n, c));
  for (uint32_t i = 0; i < nd->n_attrs; i++)
    OLG_TRY(olg__node_add_attr(olg_lower_target(cx), n, &nd->attrs[i]));
  OLG_TRY(olg_lower_emit_end(cx, n, 1, &y));
  return olg_lower_bind_output(cx, 0, y);
}
