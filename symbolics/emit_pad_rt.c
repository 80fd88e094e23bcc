/* onnxlegal — Pad with pads (or value) known only at run time where the target's Pad cannot take
 * them: below Pad-11 (pads an attribute) and mode 'wrap' below Pad-19. Axis after axis, the
 * output's positions i = 0 .. n + begin + end - 1 (the NonZero of that many ones, 9) read the
 * input at j = i - begin, mapped into [0, n - 1] by the mode:
 *   constant  j clamped, then Where(0 <= j < n, the value read, the pad value)
 *   edge      j clamped
 *   reflect   (n - 1) - |(n - 1) - |j||     (pads below n, as ONNX Runtime requires)
 *   wrap      as ONNX Runtime: the crops first, then (i - begin) mod what is left, non-negative,
 *             from truncating Div (Mod is 10)
 * and one Gather along the axis. Negative pads (a crop) are the same shift. Integer compares and
 * Where are 9: below, refused naming 9. The rank must be known. */
#include <string.h>

#include "emit.h"
#include "emit_axes.h"
#include "emit_math.h"

static bool streq(const char *a, const char *b) { return strcmp(a, b) == 0; }

/* a - n * (a / n) with a truncating Div: the remainder with a's sign */
static olg_status trunc_rem(olg_lower *cx, olg_value a, olg_value n, olg_value *out) {
  olg_value q;
  OLG_TRY(olg__emit2(cx, "Div", a, n, &q));
  OLG_TRY(olg__emit2(cx, "Mul", q, n, &q));
  return olg__emit2(cx, "Sub", a, q, out);
}

/* The source index of each output position along one axis, and for 'constant' the mask of the
 * positions inside the input. n, begin, end: 0-D int64. */
static olg_status source_index(olg_lower *cx, const char *mode, olg_value n, olg_value begin,
                               olg_value end, olg_value *idx, olg_value *inside) {
  olg_value len, i, j, zero, one, last;
  OLG_TRY(olg__emit2(cx, "Add", n, begin, &len));
  OLG_TRY(olg__emit2(cx, "Add", len, end, &len));
  OLG_TRY(olg__emit_arange_rt(cx, len, &i));
  OLG_TRY(olg__emit2(cx, "Sub", i, begin, &j));
  OLG_TRY(olg__const_i64(cx, 0, &zero));
  OLG_TRY(olg__const_i64(cx, 1, &one));
  OLG_TRY(olg__emit2(cx, "Sub", n, one, &last));
  *inside = OLG_NO_VALUE;
  if (streq(mode, "reflect")) {
    olg_value a;
    OLG_TRY(olg__emit1(cx, "Abs", j, &a));
    OLG_TRY(olg__emit2(cx, "Sub", last, a, &a));
    OLG_TRY(olg__emit1(cx, "Abs", a, &a));
    return olg__emit2(cx, "Sub", last, a, idx);
  }
  if (streq(mode, "wrap")) { /* ONNX Runtime crops first, then wraps over what is left */
    olg_value cb, ce, grow, m, r;
    OLG_TRY(olg__emit1(cx, "Neg", begin, &cb));
    OLG_TRY(olg__emit_max_min(cx, true, cb, zero, &cb));
    OLG_TRY(olg__emit1(cx, "Neg", end, &ce));
    OLG_TRY(olg__emit_max_min(cx, true, ce, zero, &ce));
    OLG_TRY(olg__emit2(cx, "Sub", n, cb, &m));
    OLG_TRY(olg__emit2(cx, "Sub", m, ce, &m));
    OLG_TRY(olg__emit_max_min(cx, true, begin, zero, &grow));
    OLG_TRY(olg__emit2(cx, "Sub", i, grow, &j));
    OLG_TRY(trunc_rem(cx, j, m, &r));
    OLG_TRY(olg__emit2(cx, "Add", r, m, &r));
    OLG_TRY(trunc_rem(cx, r, m, &r));
    return olg__emit2(cx, "Add", r, cb, idx);
  }
  if (streq(mode, "constant")) {
    olg_value ge, lt;
    OLG_TRY(olg__emit2(cx, "Less", j, zero, &ge));
    OLG_TRY(olg__emit1(cx, "Not", ge, &ge));
    OLG_TRY(olg__emit2(cx, "Less", j, n, &lt));
    OLG_TRY(olg__emit2(cx, "And", ge, lt, inside));
  }
  OLG_TRY(olg__emit_max_min(cx, true, j, zero, &j));
  return olg__emit_max_min(cx, false, j, last, idx);
}

olg_status olg__emit_pad_gather(olg_lower *cx, olg_value x, const char *mode, olg_value pads,
                                olg_value value, olg_value *out) {
  int32_t rank = olg__rank(cx, x);
  if (!olg__target_has(cx, "NonZero") || !olg__target_has(cx, "Where"))
    return olg_lower_unsupported(cx, "Pad with pads or value computed at run time (NonZero, Where)", 9);
  if (rank < 1 || rank > OLG_MAX_RANK)
    return olg__unsupportedf(cx, streq(mode, "wrap") ? 19 : 11,
                             "Pad with pads computed at run time of an input of unknown rank");
  if (!streq(mode, "constant") && !streq(mode, "reflect") && !streq(mode, "edge") && !streq(mode, "wrap"))
    return olg__errf(cx, OLG_ERR_INVALID_ARG, "Pad: unknown mode '%s'", mode);
  OLG_TRY(olg_lower_decompose(cx, "Pad with run-time pads by Gathers", streq(mode, "wrap") ? 19 : 11));
  olg_value pv, fill = OLG_NO_VALUE, y = x;
  OLG_TRY(olg__emit_cast(cx, pads, OLG_INT64, &pv));
  if (streq(mode, "constant")) {
    if (value != OLG_NO_VALUE) {
      OLG_TRY(olg__emit_cast_like(cx, value, x, &fill));
      OLG_TRY(olg__emit_reshape_static(cx, fill, NULL, 0, &fill));
    } else {
      OLG_TRY(olg__const_like(cx, x, 0, &fill));
    }
  }
  for (int32_t k = 0; k < rank; k++) {
    olg_value n, b, e, at, idx, inside;
    int64_t dim = olg__dim(cx, y, k);
    if (dim >= 0) {
      OLG_TRY(olg__const_i64(cx, dim, &n));
    } else {
      OLG_TRY(olg__dim_tensor(cx, y, k, &n));
      OLG_TRY(olg__emit_reshape_static(cx, n, NULL, 0, &n));
    }
    OLG_TRY(olg__const_i64(cx, k, &at));
    OLG_TRY(olg__emit_gather(cx, pv, at, 0, &b));
    OLG_TRY(olg__const_i64(cx, k + rank, &at));
    OLG_TRY(olg__emit_gather(cx, pv, at, 0, &e));
    OLG_TRY(source_index(cx, mode, n, b, e, &idx, &inside));
    OLG_TRY(olg__emit_gather(cx, y, idx, k, &y));
    if (inside != OLG_NO_VALUE) { /* the mask along axis k, broadcast over the others */
      int64_t shape[OLG_MAX_RANK];
      for (int32_t d = 0; d < rank; d++) shape[d] = d == k ? -1 : 1;
      OLG_TRY(olg__emit_reshape_static(cx, inside, shape, (size_t)rank, &inside));
      OLG_TRY(olg__emit_where(cx, inside, y, fill, &y));
    }
  }
  *out = y;
  return OLG_OK;
}
