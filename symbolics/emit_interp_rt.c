/* onnxlegal — ONNX Resize's tables computed at run time (see emit_interp.h).
 *
 * Where the scales, the sizes, the roi or the size of a resized axis are known only at run time,
 * the tables of emit_interp.c are computed by the model itself, axis after axis, in the same
 * float arithmetic (and order of operations) as there and as ONNX Runtime:
 *   O        sizes[d], or floor(scales[d] * in) (a float product, truncated); with both
 *            (keep_aspect_ratio_policy, emit_interp.c) sizes[d] and the coordinates by scales[d]
 *   x        0 .. O-1: the NonZero of O ones (olg__emit_arange_rt: NonZero/ConstantOfShape, 9)
 *   x_orig   the coordinate transform of the mode (emit_interp.c's source_coord), the "out > 1"
 *            alternatives by Where; x itself where out == in at scale 1 (as the conversion-time
 *            tables and ONNX Runtime leave such an axis as it is, tf_half_pixel_for_nn too)
 *   nearest  Floor / Ceil, or Floor plus (fraction > 0.5) / (fraction >= 0.5) for
 *            round_prefer_floor / round_prefer_ceil (x - floor(x) is exact), clamped to
 *            [0, in - 1], then Gather
 *   linear   the clamped coordinate, its floor and the next index (clamped), the distances as
 *            weights (0.5 each where both taps are one index): two Gathers, weighted sum
 *   cubic    floor - 1 .. floor + 2 clamped, Keys' weights of coefficient A (with
 *            exclude_outside: the outside taps zeroed, the rest renormalized): four Gathers
 *   tf_crop_and_resize: positions whose coordinate falls outside [0, in - 1] on some axis take
 *            the extrapolation value (Where over the And of the axes' masks).
 * Linear and cubic weights are float (the conversion-time tables compute them in double and
 * round once): results agree to float rounding. Antialias stays refused (its window widths
 * would be run-time too). Needs NonZero and ConstantOfShape (9) and Where (9). */
#include <string.h>

#include "emit_axes.h"
#include "emit_interp.h"
#include "../lib/lower.h"

static bool streq(const char *a, const char *b) { return strcmp(a, b) == 0; }

typedef struct rt_ctx {
  olg_lower *cx;
  const char *ctm, *mode, *nm;
  double a;
  int exclude_outside;
  int32_t rank;
  olg_value scales, sizes, roi; /* 1-D float / int64 / float, or OLG_NO_VALUE */
  const int64_t *out_sizes;     /* with scales: the output sizes when not their floor */
} rt_ctx;

static olg_status fc(olg_lower *cx, double v, olg_value *out) {
  return olg__const_scalar(cx, OLG_FLOAT, v, out);
}

static olg_status op2(olg_lower *cx, const char *op, olg_value a, olg_value b, olg_value *out) {
  return olg__emit2(cx, op, a, b, out);
}

static olg_status opc(olg_lower *cx, const char *op, olg_value a, double c, olg_value *out) {
  olg_value k;
  OLG_TRY(fc(cx, c, &k));
  return olg__emit2(cx, op, a, k, out);
}

static olg_status where(olg_lower *cx, olg_value c, olg_value a, olg_value b, olg_value *out) {
  return olg__emit(cx, "Where", (const olg_value[]){c, a, b}, 3, out);
}

/* a == b for floats below opset 11 (Equal takes integers there) */
static olg_status float_eq(olg_lower *cx, olg_value a, olg_value b, olg_value *out) {
  olg_value lt, gt;
  OLG_TRY(op2(cx, "Less", a, b, &lt));
  OLG_TRY(op2(cx, "Greater", a, b, &gt));
  OLG_TRY(op2(cx, "Or", lt, gt, &lt));
  return olg__emit1(cx, "Not", lt, out);
}

/* the per-axis quantities of one resized axis (float scalars unless said) */
typedef struct rt_axis {
  olg_value L, Lm1, O, Of; /* in, in - 1, out (int64), out (float) */
  olg_value s, ratio;      /* the scale; in / out when sizes are given (else OLG_NO_VALUE) */
} rt_axis;

/* x / s, or x * (in / out) when sizes are given (emit_interp.c's by_scale) */
static olg_status by_scale(olg_lower *cx, const rt_axis *ax, olg_value x, olg_value *out) {
  if (ax->ratio != OLG_NO_VALUE) return op2(cx, "Mul", x, ax->ratio, out);
  return op2(cx, "Div", x, ax->s, out);
}

static olg_status axis_sizes(const rt_ctx *r, olg_value x, int32_t d, rt_axis *ax) {
  olg_lower *cx = r->cx;
  int64_t dim = olg__dim(cx, x, d);
  olg_value idx, one;
  OLG_TRY(olg__const_i64(cx, d, &idx));
  OLG_TRY(fc(cx, 1, &one));
  if (dim >= 0) {
    OLG_TRY(fc(cx, (double)dim, &ax->L));
    OLG_TRY(fc(cx, (double)(dim - 1), &ax->Lm1));
  } else {
    olg_value t;
    OLG_TRY(olg__dim_tensor(cx, x, d, &t));
    OLG_TRY(olg__emit_reshape_static(cx, t, NULL, 0, &t));
    OLG_TRY(olg__emit_cast(cx, t, OLG_FLOAT, &ax->L));
    OLG_TRY(op2(cx, "Sub", ax->L, one, &ax->Lm1));
  }
  ax->ratio = OLG_NO_VALUE;
  if (r->sizes != OLG_NO_VALUE) {
    OLG_TRY(olg__emit_gather(cx, r->sizes, idx, 0, &ax->O));
    OLG_TRY(olg__emit_cast(cx, ax->O, OLG_FLOAT, &ax->Of));
    /* keep_aspect_ratio_policy: its rounded sizes, but coordinates by its scale itself */
    if (r->scales != OLG_NO_VALUE) return olg__emit_gather(cx, r->scales, idx, 0, &ax->s);
    OLG_TRY(op2(cx, "Div", ax->L, ax->Of, &ax->ratio));
    return op2(cx, "Div", ax->Of, ax->L, &ax->s);
  }
  OLG_TRY(olg__emit_gather(cx, r->scales, idx, 0, &ax->s));
  if (r->out_sizes) {
    OLG_TRY(olg__const_i64(cx, r->out_sizes[d], &ax->O));
  } else { /* (int64_t)(scale * (float)in) */
    olg_value p;
    OLG_TRY(op2(cx, "Mul", ax->s, ax->L, &p));
    OLG_TRY(olg__emit_cast(cx, p, OLG_INT64, &ax->O));
  }
  return olg__emit_cast(cx, ax->O, OLG_FLOAT, &ax->Of);
}

/* the source coordinate of each output position x (emit_interp.c's source_coord); valid set for
 * tf_crop_and_resize */
static olg_status source_coord(const rt_ctx *r, int32_t d, const rt_axis *ax, olg_value x,
                               olg_value *out, olg_value *valid) {
  olg_lower *cx = r->cx;
  const char *ctm = r->ctm;
  olg_value t, u, zero, gt1;
  OLG_TRY(fc(cx, 0, &zero));
  OLG_TRY(opc(cx, "Greater", ax->Of, 1, &gt1));
  if (streq(ctm, "half_pixel") || streq(ctm, "pytorch_half_pixel")) {
    OLG_TRY(opc(cx, "Add", x, 0.5, &t));
    OLG_TRY(by_scale(cx, ax, t, &t));
    OLG_TRY(opc(cx, "Sub", t, 0.5, &t));
    if (streq(ctm, "half_pixel")) return olg__emit_identity(cx, t, out);
    return where(cx, gt1, t, zero, out);
  }
  if (streq(ctm, "align_corners")) { /* out == 1 ? 0 : x * (in - 1) / (out - 1) */
    OLG_TRY(op2(cx, "Mul", x, ax->Lm1, &t));
    OLG_TRY(opc(cx, "Sub", ax->Of, 1, &u));
    OLG_TRY(op2(cx, "Div", t, u, &t));
    return where(cx, gt1, t, zero, out);
  }
  if (streq(ctm, "tf_half_pixel_for_nn")) {
    OLG_TRY(opc(cx, "Add", x, 0.5, &t));
    return by_scale(cx, ax, t, out);
  }
  if (streq(ctm, "tf_crop_and_resize")) {
    olg_value i0, i1, r0, r1, a, b, c, not_lo, not_hi;
    OLG_TRY(olg__const_i64(cx, d, &i0));
    OLG_TRY(olg__const_i64(cx, r->rank + d, &i1));
    OLG_TRY(olg__emit_gather(cx, r->roi, i0, 0, &r0));
    OLG_TRY(olg__emit_gather(cx, r->roi, i1, 0, &r1));
    /* start * (in - 1) + x * (end - start) * (in - 1) / (out - 1) */
    OLG_TRY(op2(cx, "Mul", r0, ax->Lm1, &a));
    OLG_TRY(op2(cx, "Sub", r1, r0, &b));
    OLG_TRY(op2(cx, "Mul", x, b, &b));
    OLG_TRY(op2(cx, "Mul", b, ax->Lm1, &b));
    OLG_TRY(opc(cx, "Sub", ax->Of, 1, &u));
    OLG_TRY(op2(cx, "Div", b, u, &b));
    OLG_TRY(op2(cx, "Add", a, b, &a));
    /* 0.5 * (start + end) * (in - 1) */
    OLG_TRY(op2(cx, "Add", r0, r1, &c));
    OLG_TRY(opc(cx, "Mul", c, 0.5, &c));
    OLG_TRY(op2(cx, "Mul", c, ax->Lm1, &c));
    OLG_TRY(where(cx, gt1, a, c, out));
    OLG_TRY(op2(cx, "Less", *out, zero, &not_lo));
    OLG_TRY(olg__emit1(cx, "Not", not_lo, &not_lo));
    OLG_TRY(op2(cx, "Greater", *out, ax->Lm1, &not_hi));
    OLG_TRY(olg__emit1(cx, "Not", not_hi, &not_hi));
    return op2(cx, "And", not_lo, not_hi, valid);
  }
  if (streq(ctm, "half_pixel_symmetric")) {
    /* in / 2 * (1 - out / (s * in)) + by_scale(x + 0.5) - 0.5 */
    olg_value adj, center, one;
    OLG_TRY(op2(cx, "Mul", ax->s, ax->L, &adj));
    OLG_TRY(op2(cx, "Div", ax->Of, adj, &adj));
    OLG_TRY(fc(cx, 1, &one));
    OLG_TRY(op2(cx, "Sub", one, adj, &adj));
    OLG_TRY(opc(cx, "Div", ax->L, 2, &center));
    OLG_TRY(op2(cx, "Mul", center, adj, &center));
    OLG_TRY(opc(cx, "Add", x, 0.5, &t));
    OLG_TRY(by_scale(cx, ax, t, &t));
    OLG_TRY(op2(cx, "Add", center, t, &t));
    return opc(cx, "Sub", t, 0.5, out);
  }
  if (!streq(ctm, "asymmetric"))
    return olg__errf(cx, OLG_ERR_INVALID_ARG, "Resize: unknown coordinate_transformation_mode '%s'", ctm);
  return by_scale(cx, ax, x, out);
}

/* clamp a float index to [0, in - 1] and make it int64 */
static olg_status to_index(olg_lower *cx, const rt_axis *ax, olg_value f, olg_value *out) {
  olg_value zero;
  OLG_TRY(fc(cx, 0, &zero));
  OLG_TRY(op2(cx, "Min", f, ax->Lm1, &f));
  OLG_TRY(op2(cx, "Max", f, zero, &f));
  return olg__emit_cast(cx, f, OLG_INT64, out);
}

/* w ([O]) shaped to broadcast along axis d of a rank-r tensor: [O, 1, ..., 1] */
static olg_status along(const rt_ctx *r, int32_t d, olg_value w, olg_dtype ct, olg_value *out) {
  int64_t shape[OLG_MAX_RANK];
  size_t n = (size_t)(r->rank - d);
  shape[0] = -1;
  for (size_t i = 1; i < n; i++) shape[i] = 1;
  if (ct != OLG_FLOAT) OLG_TRY(olg__emit_cast(r->cx, w, ct, &w));
  if (n == 1) return olg__emit_identity(r->cx, w, out);
  return olg__emit_reshape_static(r->cx, w, shape, n, out);
}

/* sum over taps of Gather(v, idx[k], d) * w[k] */
static olg_status taps_sum(const rt_ctx *r, olg_value v, int32_t d, const olg_value *idx,
                           const olg_value *w, int n, olg_dtype ct, olg_value *out) {
  olg_value acc = OLG_NO_VALUE;
  for (int k = 0; k < n; k++) {
    olg_value g, wk;
    OLG_TRY(olg__emit_gather(r->cx, v, idx[k], d, &g));
    OLG_TRY(along(r, d, w[k], ct, &wk));
    OLG_TRY(op2(r->cx, "Mul", g, wk, &g));
    if (acc == OLG_NO_VALUE) acc = g;
    else OLG_TRY(op2(r->cx, "Add", acc, g, &acc));
  }
  *out = acc;
  return OLG_OK;
}

/* ((A * u - 5A) * u + 8A) * u - 4A (the outer taps) and ((A + 2) * u - (A + 3)) * u * u + 1 (the
 * inner ones), as emit_interp.c's cubic_coeffs */
static olg_status cubic_outer(olg_lower *cx, double A, olg_value u, olg_value *out) {
  olg_value t;
  OLG_TRY(opc(cx, "Mul", u, A, &t));
  OLG_TRY(opc(cx, "Sub", t, 5 * A, &t));
  OLG_TRY(op2(cx, "Mul", t, u, &t));
  OLG_TRY(opc(cx, "Add", t, 8 * A, &t));
  OLG_TRY(op2(cx, "Mul", t, u, &t));
  return opc(cx, "Sub", t, 4 * A, out);
}

static olg_status cubic_inner(olg_lower *cx, double A, olg_value u, olg_value *out) {
  olg_value t;
  OLG_TRY(opc(cx, "Mul", u, A + 2, &t));
  OLG_TRY(opc(cx, "Sub", t, A + 3, &t));
  OLG_TRY(op2(cx, "Mul", t, u, &t));
  OLG_TRY(op2(cx, "Mul", t, u, &t));
  return opc(cx, "Add", t, 1, out);
}

static olg_status resize_axis(const rt_ctx *r, olg_value v, olg_value x, int32_t d, olg_dtype ct,
                              olg_value *y, olg_value *valid) {
  olg_lower *cx = r->cx;
  rt_axis ax;
  olg_value ar, xo, zero, one;
  OLG_TRY(axis_sizes(r, x, d, &ax));
  OLG_TRY(olg__emit_arange_rt(cx, ax.O, &ar));
  OLG_TRY(olg__emit_cast(cx, ar, OLG_FLOAT, &ar));
  OLG_TRY(source_coord(r, d, &ax, ar, &xo, valid));
  OLG_TRY(fc(cx, 0, &zero));
  OLG_TRY(fc(cx, 1, &one));
  if (*valid == OLG_NO_VALUE) { /* out == in at scale 1: every position is its own source */
    olg_value same, s1;
    OLG_TRY(float_eq(cx, ax.Of, ax.L, &same));
    OLG_TRY(float_eq(cx, ax.s, one, &s1));
    OLG_TRY(op2(cx, "And", same, s1, &same));
    OLG_TRY(where(cx, same, ar, xo, &xo));
  }
  if (streq(r->mode, "nearest")) {
    olg_value f, idx;
    if (streq(r->nm, "ceil")) {
      OLG_TRY(olg__emit1(cx, "Ceil", xo, &f));
    } else {
      OLG_TRY(olg__emit1(cx, "Floor", xo, &f));
      if (!streq(r->nm, "floor")) { /* round_prefer_floor / round_prefer_ceil */
        olg_value frac, up;
        OLG_TRY(op2(cx, "Sub", xo, f, &frac));
        if (streq(r->nm, "round_prefer_ceil")) {
          OLG_TRY(opc(cx, "Less", frac, 0.5, &up));
          OLG_TRY(olg__emit1(cx, "Not", up, &up));
        } else {
          OLG_TRY(opc(cx, "Greater", frac, 0.5, &up));
        }
        OLG_TRY(olg__emit_cast(cx, up, OLG_FLOAT, &up));
        OLG_TRY(op2(cx, "Add", f, up, &f));
      }
    }
    OLG_TRY(to_index(cx, &ax, f, &idx));
    return olg__emit_gather(cx, v, idx, d, y);
  }
  if (streq(r->mode, "linear")) {
    olg_value c, f1, f2, i[2], w[2], eq, half;
    OLG_TRY(op2(cx, "Min", xo, ax.Lm1, &c));
    OLG_TRY(op2(cx, "Max", c, zero, &c));
    OLG_TRY(olg__emit1(cx, "Floor", c, &f1));
    OLG_TRY(op2(cx, "Add", f1, one, &f2));
    OLG_TRY(op2(cx, "Min", f2, ax.Lm1, &f2));
    OLG_TRY(olg__emit_cast(cx, f1, OLG_INT64, &i[0]));
    OLG_TRY(olg__emit_cast(cx, f2, OLG_INT64, &i[1]));
    OLG_TRY(op2(cx, "Sub", c, f2, &w[0])); /* the weight of i1 is the distance to i2 */
    OLG_TRY(olg__emit1(cx, "Abs", w[0], &w[0]));
    OLG_TRY(op2(cx, "Sub", c, f1, &w[1]));
    OLG_TRY(olg__emit1(cx, "Abs", w[1], &w[1]));
    OLG_TRY(op2(cx, "Equal", i[0], i[1], &eq));
    OLG_TRY(fc(cx, 0.5, &half));
    OLG_TRY(where(cx, eq, half, w[0], &w[0]));
    OLG_TRY(where(cx, eq, half, w[1], &w[1]));
    return taps_sum(r, v, d, i, w, 2, ct, y);
  }
  /* cubic */
  olg_value fl, t, u, i[4], w[4], sum = OLG_NO_VALUE;
  OLG_TRY(olg__emit1(cx, "Floor", xo, &fl));
  OLG_TRY(op2(cx, "Sub", xo, fl, &t));
  OLG_TRY(opc(cx, "Add", t, 1, &u));
  OLG_TRY(cubic_outer(cx, r->a, u, &w[0]));
  OLG_TRY(cubic_inner(cx, r->a, t, &w[1]));
  OLG_TRY(op2(cx, "Sub", one, t, &u));
  OLG_TRY(cubic_inner(cx, r->a, u, &w[2]));
  OLG_TRY(opc(cx, "Add", u, 1, &u)); /* 2 - t */
  OLG_TRY(cubic_outer(cx, r->a, u, &w[3]));
  for (int k = 0; k < 4; k++) {
    olg_value j;
    OLG_TRY(opc(cx, "Add", fl, k - 1, &j));
    if (r->exclude_outside) {
      olg_value lo, hi, in;
      OLG_TRY(op2(cx, "Less", j, zero, &lo));
      OLG_TRY(olg__emit1(cx, "Not", lo, &lo));
      OLG_TRY(op2(cx, "Greater", j, ax.Lm1, &hi));
      OLG_TRY(olg__emit1(cx, "Not", hi, &hi));
      OLG_TRY(op2(cx, "And", lo, hi, &in));
      OLG_TRY(olg__emit_cast(cx, in, OLG_FLOAT, &in));
      OLG_TRY(op2(cx, "Mul", w[k], in, &w[k]));
      if (sum == OLG_NO_VALUE) sum = w[k];
      else OLG_TRY(op2(cx, "Add", sum, w[k], &sum));
    }
    OLG_TRY(to_index(cx, &ax, j, &i[k]));
  }
  if (r->exclude_outside) { /* renormalized where the sum is not 0 */
    olg_value nz, a;
    OLG_TRY(olg__emit1(cx, "Abs", sum, &a));
    OLG_TRY(op2(cx, "Greater", a, zero, &nz));
    OLG_TRY(where(cx, nz, sum, one, &sum));
    for (int k = 0; k < 4; k++) OLG_TRY(op2(cx, "Div", w[k], sum, &w[k]));
  }
  return taps_sum(r, v, d, i, w, 4, ct, y);
}

olg_status olg__emit_resize_runtime(olg_lower *cx, olg_value x, const olg_resize_params *p,
                                    const char *what, olg_value *out) {
  int32_t rank = olg__rank(cx, x);
  if (rank < 1 || rank > OLG_MAX_RANK)
    return olg_lower_unsupported(cx, "Resize of an input whose rank is not known", 11);
  const char *mode = p->mode && *p->mode ? p->mode : "nearest";
  if (p->antialias && !streq(mode, "nearest"))
    return olg__unsupportedf(cx, 18, "%s with antialias (its filter widths would be computed at "
                             "run time)", what);
  if (!olg__target_has(cx, "NonZero") || !olg__target_has(cx, "ConstantOfShape") ||
      !olg__target_has(cx, "Where"))
    return olg__unsupportedf(cx, 9, "%s (decomposed with index tables computed at run time: "
                             "NonZero, ConstantOfShape, Where)", what);
  if (p->legacy_nearest && !p->scales)
    return olg__unsupportedf(cx, 11, "%s in Upsample's nearest mode", what);
  rt_ctx r = {cx, p->coordinate_transformation_mode && *p->coordinate_transformation_mode
                      ? p->coordinate_transformation_mode : "half_pixel",
              mode, p->nearest_mode && *p->nearest_mode ? p->nearest_mode : "round_prefer_floor",
              p->cubic_coeff_a ? p->cubic_coeff_a : -0.75, p->exclude_outside, rank,
              OLG_NO_VALUE, OLG_NO_VALUE, OLG_NO_VALUE, p->out_sizes};
  bool crop = streq(r.ctm, "tf_crop_and_resize");
  if (p->legacy_nearest) { /* Upsample: floor up-sampling, ceil when some scale is below 1 */
    bool down = false;
    for (size_t i = 0; i < p->n; i++) down = down || p->scales[i] < 1;
    r.nm = down ? "ceil" : "floor";
  }
  if (p->scales) OLG_TRY(olg__const_f32s(cx, p->scales, p->n, &r.scales));
  else if (p->scales_v != OLG_NO_VALUE) OLG_TRY(olg__emit_cast(cx, p->scales_v, OLG_FLOAT, &r.scales));
  /* both scales_v and sizes_v: keep_aspect_ratio_policy at run time (emit_interp.c) */
  if (p->sizes) OLG_TRY(olg__const_i64s(cx, p->sizes, p->n, &r.sizes));
  else if (p->sizes_v != OLG_NO_VALUE) OLG_TRY(olg__emit_cast(cx, p->sizes_v, OLG_INT64, &r.sizes));
  if ((p->scales || p->sizes) && p->n != (size_t)rank)
    return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "Resize: scales or sizes do not match the rank");
  if (crop) {
    if (!p->has_roi || p->roi_v == OLG_NO_VALUE)
      return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "Resize: tf_crop_and_resize without a roi");
    OLG_TRY(olg__emit_cast(cx, p->roi_v, OLG_FLOAT, &r.roi));
  }
  olg_dtype dt = olg__dtype(cx, x), ct = dt;
  bool nearest = streq(mode, "nearest");
  if (!nearest || crop) {
    if (dt == OLG_FLOAT16 || dt == OLG_BFLOAT16) ct = OLG_FLOAT;
    else if (dt != OLG_FLOAT && dt != OLG_DOUBLE)
      return olg__unsupportedf(cx, 11, "%s in %s mode of a %s tensor (float types only)", what,
                               crop ? "tf_crop_and_resize" : mode, olg_dtype_name(dt));
  }
  OLG_TRY(olg_lower_decompose(cx, "Resize by index and weight tables computed at run time "
                                  "(NonZero ranges, Gather per axis)", 11));
  olg_value v = x, mask = OLG_NO_VALUE;
  if (ct != dt) OLG_TRY(olg__emit_cast(cx, v, ct, &v));
  for (int32_t d = 0; d < rank; d++) {
    /* an axis known to keep its size and positions: every mode maps x to x there */
    int64_t dim = olg__dim(cx, x, d);
    if (!crop && ((p->scales && p->scales[d] == 1.0f && !p->out_sizes) ||
                  (p->sizes && dim >= 0 && p->sizes[d] == dim)))
      continue;
    olg_value valid = OLG_NO_VALUE;
    OLG_TRY(resize_axis(&r, v, x, d, ct, &v, &valid));
    if (valid != OLG_NO_VALUE) {
      OLG_TRY(along(&r, d, valid, OLG_FLOAT, &valid));
      if (mask == OLG_NO_VALUE) mask = valid;
      else OLG_TRY(op2(cx, "And", mask, valid, &mask));
    }
  }
  if (mask != OLG_NO_VALUE) {
    olg_value e;
    OLG_TRY(olg__const_scalar(cx, ct, p->extrapolation_value, &e));
    OLG_TRY(where(cx, mask, v, e, &v));
  }
  return olg__emit_cast(cx, v, dt, out);
}
