/* onnxlegal — the bitwise emit helpers of symbolics/emit_math.h: BitwiseAnd/Or/Xor/Not, native
 * from opset 18, and below exact integer arithmetic in int64, which every opset's Add, Sub, Mul,
 * Div, ReduceSum and Cast take (ONNX Runtime too; its narrow-integer kernels come later).
 *
 * Not: -1 - x for signed types, max - x for unsigned ones (no overflow either way).
 * And/Or/Xor: each operand's bits on a new last axis, combined as 0/1 numbers (a*b, a+b-a*b,
 * (a-b)^2) and summed back with their weights. A signed w-bit value v (uint64 is taken as the
 * int64 of the same bits: Cast between them keeps the bits) has its top bit t = v < 0 and
 * low bits those of v + t*2^(w-1), which is in [0, 2^(w-1)), so truncating Div by 2^i is the
 * floor and every weight fits int64; the top bit comes back weighted -2^(w-1). The low bits are
 * summed 32 at a time (ONNX Runtime's int64 ReduceSum rounds past 2^53, as a double would). */
#include <stdint.h>

#include "emit_math.h"

/* Bits of v (int64, >= 0) on a new last axis: floor(v / p) mod 2 for each power of two p in
 * pw. */
static olg_status low_bits(olg_lower *cx, olg_value v, olg_value pw, olg_value *out) {
  const int64_t last = -1;
  olg_value u, q, two, h;
  OLG_TRY(olg__emit_unsqueeze(cx, v, &last, 1, &u));
  OLG_TRY(olg__emit2(cx, "Div", u, pw, &q));
  OLG_TRY(olg__const_i64(cx, 2, &two));
  OLG_TRY(olg__emit2(cx, "Div", q, two, &h));
  OLG_TRY(olg__emit2(cx, "Mul", h, two, &h));
  return olg__emit2(cx, "Sub", q, h, out);
}

/* a op b on 0/1 int64 tensors */
static olg_status combine(olg_lower *cx, olg_bits_op op, olg_value a, olg_value b, olg_value *out) {
  olg_value ab, s;
  if (op == OLG_BITS_XOR) { /* (a - b)^2 */
    OLG_TRY(olg__emit2(cx, "Sub", a, b, &s));
    return olg__emit2(cx, "Mul", s, s, out);
  }
  OLG_TRY(olg__emit2(cx, "Mul", a, b, &ab));
  if (op == OLG_BITS_AND) {
    *out = ab;
    return OLG_OK;
  }
  OLG_TRY(olg__emit2(cx, "Add", a, b, &s));
  return olg__emit2(cx, "Sub", s, ab, out);
}

/* x as int64: the value, or for uint64 the int64 of the same bits */
static olg_status to_i64(olg_lower *cx, olg_value x, olg_dtype t, olg_value *out) {
  if (t == OLG_INT64) {
    *out = x;
    return OLG_OK;
  }
  return olg__emit_cast(cx, x, OLG_INT64, out);
}

static olg_status from_i64(olg_lower *cx, olg_value v, olg_dtype t, olg_value *out) {
  if (t == OLG_INT64) {
    *out = v;
    return OLG_OK;
  }
  return olg__emit_cast(cx, v, t, out);
}

olg_status olg__emit_bitwise(olg_lower *cx, olg_bits_op op, olg_value a, olg_value b,
                             olg_value *out) {
  static const char *const native[] = {"BitwiseAnd", "BitwiseOr", "BitwiseXor"};
  olg_dtype t = olg__dtype(cx, a);
  if (!olg__is_int(t) || olg__dtype(cx, b) != t)
    return olg__errf(cx, OLG_ERR_TYPE, "%s of %s and %s tensors (one integer type is needed)",
                     native[op], olg_dtype_name(t) ? olg_dtype_name(t) : "?",
                     olg_dtype_name(olg__dtype(cx, b)) ? olg_dtype_name(olg__dtype(cx, b)) : "?");
  if (olg__target_has(cx, native[op])) return olg__emit2(cx, native[op], a, b, out);
  int w = olg_dtype_bits(t);
  bool sign_view = !olg__is_unsigned(t) || t == OLG_UINT64;
  int n = sign_view ? w - 1 : w; /* the bits taken by division */
  olg_value va, vb, ta = OLG_NO_VALUE, tb = OLG_NO_VALUE, low = OLG_NO_VALUE;
  OLG_TRY(to_i64(cx, a, t, &va));
  OLG_TRY(to_i64(cx, b, t, &vb));
  int64_t top_weight = INT64_MIN; /* -2^(w-1) */
  if (w < 64) top_weight = -((int64_t)1 << (w - 1));
  if (sign_view) {
    olg_value zero, tw, m;
    OLG_TRY(olg__const_i64(cx, 0, &zero));
    OLG_TRY(olg__const_i64(cx, top_weight, &tw));
    OLG_TRY(olg__emit_compare(cx, OLG_CMP_LT, va, zero, &ta));
    OLG_TRY(olg__emit_cast(cx, ta, OLG_INT64, &ta));
    OLG_TRY(olg__emit_compare(cx, OLG_CMP_LT, vb, zero, &tb));
    OLG_TRY(olg__emit_cast(cx, tb, OLG_INT64, &tb));
    OLG_TRY(olg__emit2(cx, "Mul", ta, tw, &m));
    OLG_TRY(olg__emit2(cx, "Sub", va, m, &va)); /* v + 2^(w-1) when negative */
    OLG_TRY(olg__emit2(cx, "Mul", tb, tw, &m));
    OLG_TRY(olg__emit2(cx, "Sub", vb, m, &vb));
  }
  /* 32 bits at a time: ONNX Runtime's int64 ReduceSum is not exact past 2^53 (it rounds as a
     double does), so each sum stays below 2^32 and is scaled by Mul */
  for (int c = 0; c * 32 < n; c++) {
    int k = n - c * 32 < 32 ? n - c * 32 : 32;
    int64_t p[32], q[32];
    for (int i = 0; i < k; i++) {
      p[i] = (int64_t)1 << (c * 32 + i);
      q[i] = (int64_t)1 << i;
    }
    olg_value pw, qw, la, lb, r, sum;
    const int64_t last = -1;
    OLG_TRY(olg__const_i64s(cx, p, (size_t)k, &pw));
    OLG_TRY(olg__const_i64s(cx, q, (size_t)k, &qw));
    OLG_TRY(low_bits(cx, va, pw, &la));
    OLG_TRY(low_bits(cx, vb, pw, &lb));
    OLG_TRY(combine(cx, op, la, lb, &r));
    OLG_TRY(olg__emit2(cx, "Mul", r, qw, &r));
    OLG_TRY(olg__emit_reduce(cx, OLG_REDUCE_SUM, r, &last, 1, 0, &sum));
    if (c) {
      olg_value scale;
      OLG_TRY(olg__const_i64(cx, (int64_t)1 << (c * 32), &scale));
      OLG_TRY(olg__emit2(cx, "Mul", sum, scale, &sum));
      OLG_TRY(olg__emit2(cx, "Add", low, sum, &sum));
    }
    low = sum;
  }
  if (sign_view) {
    olg_value rt, tw;
    OLG_TRY(combine(cx, op, ta, tb, &rt));
    OLG_TRY(olg__const_i64(cx, top_weight, &tw));
    OLG_TRY(olg__emit2(cx, "Mul", rt, tw, &rt));
    OLG_TRY(olg__emit2(cx, "Add", low, rt, &low));
  }
  return from_i64(cx, low, t, out);
}

olg_status olg__emit_bitwise_not(olg_lower *cx, olg_value x, olg_value *out) {
  olg_dtype t = olg__dtype(cx, x);
  if (!olg__is_int(t))
    return olg__errf(cx, OLG_ERR_TYPE, "BitwiseNot of a %s tensor",
                     olg_dtype_name(t) ? olg_dtype_name(t) : "?");
  if (olg__target_has(cx, "BitwiseNot")) return olg__emit1(cx, "BitwiseNot", x, out);
  int w = olg_dtype_bits(t);
  /* max - x for unsigned types narrower than int64; -1 - x otherwise (uint64 as int64) */
  int64_t m = olg__is_unsigned(t) && w < 64 ? (int64_t)((UINT64_C(1) << w) - 1) : -1;
  olg_value v, c, y;
  OLG_TRY(to_i64(cx, x, t, &v));
  OLG_TRY(olg__const_i64(cx, m, &c));
  OLG_TRY(olg__emit2(cx, "Sub", c, v, &y));
  return from_i64(cx, y, t, out);
}

/* Below BitShift-11 (or for a dtype it does not take): in int64, where Cast keeps uint64's bits.
 * With f = 2^y (Pow in double, exact to 2^62, then Cast): x << y = x * f, wrapping as the
 * shift does; x >> y = the floor of x / f: Div truncates, so a signed negative with a remainder
 * takes one off; a uint64 with the top bit t (negative as int64) is shifted as its low 63 bits
 * low = x + t * 2^63, then t * 2^(63 - y) = -t * (INT64_MIN / f) added back. */
olg_status olg__emit_bitshift(olg_lower *cx, bool left, olg_value x, olg_value y, olg_value *out) {
  olg_dtype t = olg__dtype(cx, x);
  if (olg__op_takes(cx, "BitShift", 0, t)) {
    olg_node_id n;
    OLG_TRY(olg_lower_emit_begin(cx, "", "BitShift", &n));
    OLG_TRY(olg_lower_emit_input(cx, n, x));
    OLG_TRY(olg_lower_emit_input(cx, n, y));
    OLG_TRY(olg_lower_emit_attr_string(cx, n, "direction", left ? "LEFT" : "RIGHT"));
    return olg_lower_emit_end(cx, n, 1, out);
  }
  if (!olg__is_int(t))
    return olg__errf(cx, OLG_ERR_TYPE, "a bit shift of a %s tensor (integers only)",
                     olg_dtype_name(t));
  olg_value xi, yd, two, f, r;
  OLG_TRY(to_i64(cx, x, t, &xi));
  OLG_TRY(olg__emit_cast(cx, y, OLG_DOUBLE, &yd));
  OLG_TRY(olg__const_scalar(cx, OLG_DOUBLE, 2.0, &two));
  OLG_TRY(olg__emit2(cx, "Pow", two, yd, &f));
  OLG_TRY(olg__emit_cast(cx, f, OLG_INT64, &f));
  if (left) {
    OLG_TRY(olg__emit2(cx, "Mul", xi, f, &r));
  } else if (t == OLG_UINT64) {
    olg_value top, min, low, q, hi;
    OLG_TRY(olg__emit_is_negative(cx, xi, &top));
    OLG_TRY(olg__emit_cast(cx, top, OLG_INT64, &top));
    OLG_TRY(olg__const_i64(cx, INT64_MIN, &min));
    OLG_TRY(olg__emit2(cx, "Mul", top, min, &low));
    OLG_TRY(olg__emit2(cx, "Sub", xi, low, &low));
    OLG_TRY(olg__emit2(cx, "Div", low, f, &q));
    OLG_TRY(olg__emit2(cx, "Div", min, f, &hi));
    OLG_TRY(olg__emit2(cx, "Mul", top, hi, &hi));
    OLG_TRY(olg__emit2(cx, "Sub", q, hi, &r));
  } else if (olg__is_unsigned(t)) {
    OLG_TRY(olg__emit2(cx, "Div", xi, f, &r));
  } else {
    olg_value q, back, rem, neg;
    OLG_TRY(olg__emit2(cx, "Div", xi, f, &q));
    OLG_TRY(olg__emit2(cx, "Mul", q, f, &back));
    OLG_TRY(olg__emit2(cx, "Sub", xi, back, &rem));
    OLG_TRY(olg__emit_is_negative(cx, rem, &neg));
    OLG_TRY(olg__emit_cast(cx, neg, OLG_INT64, &neg));
    OLG_TRY(olg__emit2(cx, "Sub", q, neg, &r));
  }
  return from_i64(cx, r, t, out);
}

