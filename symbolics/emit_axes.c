/* onnxlegal — run-time axes/sizes below the opset that takes them as inputs (emit_axes.h).
 *
 * The rank is known, so each dim i gets a flag "i is listed" (Equal against i and i - rank,
 * Or, then the max over the list), computed in int64 (Equal-7, Mul/Add/Sub-7, ReduceMax/Sum-1
 * and Gather-1 all take int64). From the flags:
 * - a reduction reshapes x [d0, .., dr-1] to [a0, b0, a1, b1, ..] with (a, b) = (1, d) for a
 *   listed dim and (d, 1) otherwise, then reduces the b axes (static ones) with keepdims=0:
 *   the result has x's keepdims shape and reduces exactly the listed dims (the size-1 b axes
 *   of the others add no element), for every Reduce* kind;
 * - removing the listed dims (keepdims=0, Squeeze) reshapes to the shape with those dims
 *   dropped: entry o takes dim i where i is unlisted and i - (listed dims up to i) == o;
 * - Unsqueeze reshapes to the output shape: a 1 where listed, else the next input dim.
 * Split takes part k as a Slice (10+) or, below 10, a Gather of start_k + arange(size_k), the
 * arange made from a constant 0..d tiled size_k times and reshaped to [d + 1, size_k], whose
 * first row is 0 .. size_k - 1 (size_k <= d). */
#include <string.h>

#include "emit_axes.h"

static int64_t *ints(olg_lower *cx, size_t n) { return olg__lower_alloc(cx, (n ? n : 1) * sizeof(int64_t)); }

/* 0/1 per dim of a rank-r tensor: is it listed in axes (negative axes count from the end)?
 * *m gets the list's length, which must be known. */
static olg_status axes_flags(olg_lower *cx, const char *op, olg_value axes, int64_t r,
                             int64_t *m, olg_value *flag) {
  if (olg__rank(cx, axes) != 1 || (*m = olg__dim(cx, axes, 0)) < 0)
    return olg__unsupportedf(cx, 13, "%s with run-time axes whose count is not known", op);
  if (*m == 0) return OLG_OK;
  int64_t *pos = ints(cx, (size_t)r), *neg = ints(cx, (size_t)r), dims[2] = {1, r};
  if (!pos || !neg) return OLG_ERR_NOMEM;
  for (int64_t i = 0; i < r; i++) {
    pos[i] = i;
    neg[i] = i - r;
  }
  olg_value col, p, n, e1, e2, any;
  OLG_TRY(olg__emit_cast(cx, axes, OLG_INT64, &axes));
  OLG_TRY(olg__emit_reshape_static(cx, axes, (const int64_t[]){*m, 1}, 2, &col));
  OLG_TRY(olg__const_tensor(cx, OLG_INT64, 2, dims, pos, (size_t)r * 8, &p));
  OLG_TRY(olg__const_tensor(cx, OLG_INT64, 2, dims, neg, (size_t)r * 8, &n));
  OLG_TRY(olg__emit2(cx, "Equal", col, p, &e1));
  OLG_TRY(olg__emit2(cx, "Equal", col, n, &e2));
  OLG_TRY(olg__emit2(cx, "Or", e1, e2, &any)); /* [m, r] */
  OLG_TRY(olg__emit_cast(cx, any, OLG_INT64, &any));
  return olg__emit_reduce(cx, OLG_REDUCE_MAX, any, (const int64_t[]){0}, 1, 0, flag);
}

/* c[i] = number of flags at positions <= i (int64 [r]). */
static olg_status count_upto(olg_lower *cx, olg_value flag, int64_t r, olg_value *out) {
  int64_t *u = ints(cx, (size_t)(r * r)), dims[2] = {r, r};
  if (!u) return OLG_ERR_NOMEM;
  for (int64_t k = 0; k < r; k++)
    for (int64_t i = 0; i < r; i++) u[k * r + i] = k <= i;
  olg_value uv, fc, prod;
  OLG_TRY(olg__const_tensor(cx, OLG_INT64, 2, dims, u, (size_t)(r * r) * 8, &uv));
  OLG_TRY(olg__emit_reshape_static(cx, flag, (const int64_t[]){r, 1}, 2, &fc));
  OLG_TRY(olg__emit2(cx, "Mul", fc, uv, &prod));
  return olg__emit_reduce(cx, OLG_REDUCE_SUM, prod, (const int64_t[]){0}, 1, 0, out);
}

static olg_status iota(olg_lower *cx, int64_t n, int64_t base, olg_value *out) {
  int64_t *v = ints(cx, (size_t)n);
  if (!v) return OLG_ERR_NOMEM;
  for (int64_t i = 0; i < n; i++) v[i] = base + i;
  return olg__const_i64s(cx, v, (size_t)n, out);
}

/* The shape d (int64 [r]) with the flagged dims (m of them) dropped: [r - m]. */
static olg_status drop_flagged(olg_lower *cx, olg_value d, olg_value flag, int64_t r, int64_t m,
                               olg_value *out) {
  if (r - m <= 0) return olg__const_i64s(cx, &r, 0, out);
  olg_value c, at, opos, ocol, sel, one, keep;
  OLG_TRY(count_upto(cx, flag, r, &c));
  OLG_TRY(iota(cx, r, 0, &at));
  OLG_TRY(olg__emit2(cx, "Sub", at, c, &opos)); /* an unlisted dim's output position */
  OLG_TRY(iota(cx, r - m, 0, &ocol));
  OLG_TRY(olg__emit_reshape_static(cx, ocol, (const int64_t[]){r - m, 1}, 2, &ocol));
  OLG_TRY(olg__emit2(cx, "Equal", ocol, opos, &sel)); /* [r - m, r] */
  OLG_TRY(olg__emit_cast(cx, sel, OLG_INT64, &sel));
  OLG_TRY(olg__const_i64(cx, 1, &one));
  OLG_TRY(olg__emit2(cx, "Sub", one, flag, &keep));
  OLG_TRY(olg__emit2(cx, "Mul", keep, d, &keep));
  OLG_TRY(olg__emit2(cx, "Mul", sel, keep, &sel));
  return olg__emit_reduce(cx, OLG_REDUCE_SUM, sel, (const int64_t[]){1}, 1, 0, out);
}

/* Reshape to a computed shape: a 0 in it copies the input's dim below 14. */
static olg_status reshape_to(olg_lower *cx, olg_value x, olg_value shape, olg_value *out) {
  int64_t xd[OLG_MAX_RANK];
  int32_t xr;
  bool nonzero = olg__static_shape(cx, x, xd, &xr);
  for (int32_t i = 0; nonzero && i < xr; i++) nonzero = xd[i] > 0;
  return olg__emit_reshape_allowzero(cx, x, shape, nonzero ? OLG_ZERO_QUIET : OLG_ZERO_WARN, out);
}

static olg_status known_rank(olg_lower *cx, const char *op, olg_value x, int64_t *r) {
  *r = olg__rank(cx, x);
  if (*r < 0 || *r > OLG_MAX_RANK / 2)
    return olg__unsupportedf(cx, 13, "%s with run-time axes of a tensor whose rank is not known (or over %d)",
                             op, OLG_MAX_RANK / 2);
  return OLG_OK;
}

olg_status olg__emit_reduce_dyn(olg_lower *cx, olg_reduce_kind kind, olg_value x, olg_value axes,
                                int keepdims, int noop, olg_value *out) {
  int64_t r, m;
  olg_value flag = OLG_NO_VALUE;
  OLG_TRY(known_rank(cx, "a reduction", x, &r));
  OLG_TRY(axes_flags(cx, "a reduction", axes, r, &m, &flag));
  if (m == 0) {
    if (noop) return olg__emit_reduce_none(cx, kind, x, out);
    return olg__emit_reduce(cx, kind, x, NULL, 0, keepdims, out);
  }
  if (r == 0) return olg__emit_reduce(cx, kind, x, NULL, 0, keepdims, out);
  olg_value d, one, a, b, t, ab, shape2, y, bs[OLG_MAX_RANK];
  OLG_TRY(olg__shape(cx, x, &d));
  OLG_TRY(olg__const_i64(cx, 1, &one));
  OLG_TRY(olg__emit2(cx, "Sub", one, d, &t));  /* 1 - d */
  OLG_TRY(olg__emit2(cx, "Mul", flag, t, &t));
  OLG_TRY(olg__emit2(cx, "Add", d, t, &a));    /* listed: 1, else d */
  OLG_TRY(olg__emit2(cx, "Sub", d, one, &t));  /* d - 1 */
  OLG_TRY(olg__emit2(cx, "Mul", flag, t, &t));
  OLG_TRY(olg__emit2(cx, "Add", one, t, &b));  /* listed: d, else 1 */
  OLG_TRY(olg__emit_reshape_static(cx, a, (const int64_t[]){r, 1}, 2, &bs[0]));
  OLG_TRY(olg__emit_reshape_static(cx, b, (const int64_t[]){r, 1}, 2, &bs[1]));
  OLG_TRY(olg__emit_concat(cx, bs, 2, 1, &ab));
  OLG_TRY(olg__emit_reshape_static(cx, ab, (const int64_t[]){2 * r}, 1, &shape2));
  OLG_TRY(reshape_to(cx, x, shape2, &y));
  int64_t odd[OLG_MAX_RANK];
  for (int64_t i = 0; i < r; i++) odd[i] = 2 * i + 1;
  OLG_TRY(olg__emit_reduce(cx, kind, y, odd, (size_t)r, 0, &y)); /* keepdims' shape: a */
  if (keepdims) {
    *out = y;
    return OLG_OK;
  }
  olg_value s;
  OLG_TRY(drop_flagged(cx, a, flag, r, m, &s));
  return reshape_to(cx, y, s, out);
}

olg_status olg__emit_squeeze_dyn(olg_lower *cx, olg_value x, olg_value axes, olg_value *out) {
  int64_t r, m;
  olg_value flag = OLG_NO_VALUE, d, s;
  OLG_TRY(known_rank(cx, "Squeeze", x, &r));
  OLG_TRY(axes_flags(cx, "Squeeze", axes, r, &m, &flag));
  if (m == 0) return olg__emit_squeeze(cx, x, NULL, 0, out);
  if (m > r) return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "Squeeze: more axes than dims");
  OLG_TRY(olg__shape(cx, x, &d));
  OLG_TRY(drop_flagged(cx, d, flag, r, m, &s));
  return reshape_to(cx, x, s, out);
}

olg_status olg__emit_unsqueeze_dyn(olg_lower *cx, olg_value x, olg_value axes, olg_value *out) {
  int64_t r, m, big;
  olg_value flag = OLG_NO_VALUE;
  OLG_TRY(known_rank(cx, "Unsqueeze", x, &r));
  if (olg__rank(cx, axes) != 1 || (m = olg__dim(cx, axes, 0)) < 0)
    return olg_lower_unsupported(cx, "Unsqueeze with run-time axes whose count is not known", 13);
  big = r + m;
  if (m == 0) {
    *out = x;
    return OLG_OK;
  }
  if (big > OLG_MAX_RANK) return olg_lower_error(cx, OLG_ERR_LIMIT, "Unsqueeze: rank too large");
  OLG_TRY(axes_flags(cx, "Unsqueeze", axes, big, &m, &flag));
  /* output dim j: listed -> 1 (entry 0 of [1, d...]), else input dim j - c_j (entry j - c_j + 1) */
  olg_value c, at1, idx, one, keep, d, pieces[2], padded, s;
  OLG_TRY(count_upto(cx, flag, big, &c));
  OLG_TRY(iota(cx, big, 1, &at1));
  OLG_TRY(olg__emit2(cx, "Sub", at1, c, &idx));
  OLG_TRY(olg__const_i64(cx, 1, &one));
  OLG_TRY(olg__emit2(cx, "Sub", one, flag, &keep));
  OLG_TRY(olg__emit2(cx, "Mul", idx, keep, &idx));
  OLG_TRY(olg__const_i64s(cx, (const int64_t[]){1}, 1, &pieces[0]));
  OLG_TRY(olg__shape(cx, x, &d));
  pieces[1] = d;
  OLG_TRY(olg__concat_ints(cx, pieces, 2, &padded));
  OLG_TRY(olg__emit_gather(cx, padded, idx, 0, &s));
  return reshape_to(cx, x, s, out);
}

/* 0 .. n-1 (n a 1-element int64 <= bound) from ramp = 0 .. bound (a constant): ramp tiled n
 * times is k mod (bound + 1) at position k; as [bound + 1, n] its first row is 0 .. n-1. */
static olg_status arange_from(olg_lower *cx, olg_value ramp, int64_t bound, olg_value n,
                              olg_value *out) {
  olg_value t;
  int64_t b0 = 0, e0 = 1, z = 0;
  OLG_TRY(olg__emit_reshape_static(cx, n, (const int64_t[]){1}, 1, &n));
  OLG_TRY(olg__emit2(cx, "Tile", ramp, n, &t));
  OLG_TRY(olg__emit_reshape_static(cx, t, (const int64_t[]){bound + 1, -1}, 2, &t));
  OLG_TRY(olg__emit_slice(cx, t, &b0, &e0, &z, NULL, 1, &t));
  return olg__emit_reshape_static(cx, t, (const int64_t[]){-1}, 1, out);
}

olg_status olg__emit_arange_bounded(olg_lower *cx, olg_value n, int64_t bound, olg_value *out) {
  olg_value ramp;
  OLG_TRY(olg__emit_cast(cx, n, OLG_INT64, &n));
  OLG_TRY(iota(cx, bound + 1, 0, &ramp));
  return arange_from(cx, ramp, bound, n, out);
}

olg_status olg__emit_split_dyn(olg_lower *cx, olg_value x, int64_t axis, olg_value sizes,
                               size_t n_out, olg_value *outs) {
  int64_t r = olg__rank(cx, x);
  if (r < 0) return olg_lower_unsupported(cx, "Split with run-time sizes of a tensor whose rank is not known", 13);
  int64_t ax = olg__norm_axis(axis, r), n = (int64_t)n_out;
  if (ax < 0) return olg__axes_error(cx, "Split", &axis, 1, r);
  bool slice = olg__opset(cx) >= 10;
  int64_t dim = olg__dim(cx, x, (int32_t)ax);
  if (!slice && dim < 0)
    return olg_lower_unsupported(cx, "Split with run-time sizes of a dim whose size is not known", 10);
  if (olg__rank(cx, sizes) != 1 || olg__dim(cx, sizes, 0) != n)
    return olg_lower_error(cx, OLG_ERR_INVALID_MODEL, "Split: split must have one entry per output");
  olg_value ends, starts, ramp = OLG_NO_VALUE;
  OLG_TRY(olg__emit_cast(cx, sizes, OLG_INT64, &sizes));
  OLG_TRY(count_upto(cx, sizes, n, &ends)); /* cumulative sums: sum of sizes[k] for k <= i */
  OLG_TRY(olg__emit2(cx, "Sub", ends, sizes, &starts));
  if (!slice) OLG_TRY(iota(cx, dim + 1, 0, &ramp));
  for (int64_t k = 0; k < n; k++) {
    olg_value st, en, sz;
    int64_t b = k, e = k + 1, z = 0;
    OLG_TRY(olg__emit_slice(cx, starts, &b, &e, &z, NULL, 1, &st));
    if (slice) {
      olg_value av;
      OLG_TRY(olg__emit_slice(cx, ends, &b, &e, &z, NULL, 1, &en));
      OLG_TRY(olg__const_i64s(cx, &ax, 1, &av));
      OLG_TRY(olg__emit_slice_dyn(cx, x, st, en, av, OLG_NO_VALUE, &outs[k]));
      continue;
    }
    olg_value t, idx;
    OLG_TRY(olg__emit_slice(cx, sizes, &b, &e, &z, NULL, 1, &sz));
    OLG_TRY(arange_from(cx, ramp, dim, sz, &t));
    OLG_TRY(olg__emit2(cx, "Add", t, st, &idx));
    OLG_TRY(olg__emit_gather(cx, x, idx, ax, &outs[k]));
  }
  return OLG_OK;
}

/* Slice below 10 with run-time starts/ends/axes/steps, for a tensor whose dims are known: per
 * dim i, the bounds of the axis listed as i (F[k, i] = 1; 0 .. d and step 1 when none), made
 * non-negative and clamped as Slice-10 does (in float: exact for dims below 2^24; bounds like
 * INT64_MAX clamp to the dim), count = max(0, ceil((end - start) / step)), then a Gather of
 * start + step * arange(count) along each dim. */
olg_status olg__emit_slice_gather(olg_lower *cx, olg_value x, olg_value starts, olg_value ends,
                                  olg_value axes, olg_value steps, olg_value *out) {
  int64_t xd[OLG_MAX_RANK], m;
  int32_t r;
  if (!olg__static_shape(cx, x, xd, &r) || r == 0)
    return olg_lower_unsupported(cx, "Slice with bounds computed at run time of a tensor whose shape is not known", 10);
  for (int32_t i = 0; i < r; i++)
    if (xd[i] >= (1 << 24))
      return olg_lower_unsupported(cx, "Slice with bounds computed at run time along a dim of 2^24 or more", 10);
  if (olg__rank(cx, starts) != 1 || (m = olg__dim(cx, starts, 0)) < 0 || m > OLG_MAX_RANK)
    return olg_lower_unsupported(cx, "Slice with run-time bounds whose count is not known", 10);
  olg_value f, fl, one, d, sv[3], listed;
  int64_t *dd = ints(cx, (size_t)r);
  if (!dd) return OLG_ERR_NOMEM;
  for (int32_t i = 0; i < r; i++) dd[i] = xd[i];
  /* F [m, r]: axis k is dim i */
  if (axes == OLG_NO_VALUE) {
    int64_t *fv = ints(cx, (size_t)(m * r)), dims[2] = {m, r};
    if (!fv) return OLG_ERR_NOMEM;
    for (int64_t k = 0; k < m; k++)
      for (int64_t i = 0; i < r; i++) fv[k * r + i] = k == i;
    OLG_TRY(olg__const_tensor(cx, OLG_INT64, 2, dims, fv, (size_t)(m * r) * 8, &f));
  } else {
    int64_t *pos = ints(cx, (size_t)r), *neg = ints(cx, (size_t)r), dims[2] = {1, r};
    if (!pos || !neg) return OLG_ERR_NOMEM;
    for (int64_t i = 0; i < r; i++) {
      pos[i] = i;
      neg[i] = i - r;
    }
    olg_value col, p, n, e1, e2;
    OLG_TRY(olg__emit_cast(cx, axes, OLG_INT64, &col));
    OLG_TRY(olg__emit_reshape_static(cx, col, (const int64_t[]){m, 1}, 2, &col));
    OLG_TRY(olg__const_tensor(cx, OLG_INT64, 2, dims, pos, (size_t)r * 8, &p));
    OLG_TRY(olg__const_tensor(cx, OLG_INT64, 2, dims, neg, (size_t)r * 8, &n));
    OLG_TRY(olg__emit2(cx, "Equal", col, p, &e1));
    OLG_TRY(olg__emit2(cx, "Equal", col, n, &e2));
    OLG_TRY(olg__emit2(cx, "Or", e1, e2, &f));
    OLG_TRY(olg__emit_cast(cx, f, OLG_INT64, &f));
  }
  OLG_TRY(olg__emit_reduce(cx, OLG_REDUCE_MAX, f, (const int64_t[]){0}, 1, 0, &listed));
  OLG_TRY(olg__const_i64(cx, 1, &one));
  OLG_TRY(olg__emit2(cx, "Sub", one, listed, &fl)); /* unlisted: 1 */
  OLG_TRY(olg__const_i64s(cx, dd, (size_t)r, &d));
  olg_value in[3] = {starts, ends, steps}, dflt[3];
  OLG_TRY(olg__const_i64s(cx, (const int64_t[]){0}, 1, &dflt[0]));
  dflt[1] = d;
  dflt[2] = one;
  for (int j = 0; j < 3; j++) { /* per dim: the listed axis' value, else the default */
    olg_value v, col, t;
    if (in[j] == OLG_NO_VALUE) {
      OLG_TRY(olg__const_i64(cx, 1, &sv[j]));
      OLG_TRY(olg__emit2(cx, "Mul", listed, sv[j], &sv[j]));
      OLG_TRY(olg__emit2(cx, "Add", sv[j], fl, &sv[j]));
      OLG_TRY(olg__emit_cast(cx, sv[j], OLG_FLOAT, &sv[j]));
      continue;
    }
    OLG_TRY(olg__emit_cast(cx, in[j], OLG_INT64, &v));
    OLG_TRY(olg__emit_reshape_static(cx, v, (const int64_t[]){m, 1}, 2, &col));
    OLG_TRY(olg__emit2(cx, "Mul", f, col, &t));
    OLG_TRY(olg__emit_reduce(cx, OLG_REDUCE_SUM, t, (const int64_t[]){0}, 1, 0, &t));
    OLG_TRY(olg__emit2(cx, "Mul", fl, dflt[j], &v));
    OLG_TRY(olg__emit2(cx, "Add", t, v, &t));
    OLG_TRY(olg__emit_cast(cx, t, OLG_FLOAT, &sv[j]));
  }
  /* in float: pos = step > 0; s += d where s < 0 (e too); s in [0, d - 1 + pos],
   * e in [pos - 1, d - 1 + pos] */
  olg_value zf, onef, pos, neg, dfl, hi, elo, s = sv[0], e = sv[1], st = sv[2], cnt;
  float *zeros = olg__lower_alloc(cx, (size_t)r * sizeof *zeros);
  if (!zeros) return OLG_ERR_NOMEM;
  memset(zeros, 0, (size_t)r * sizeof *zeros);
  OLG_TRY(olg__const_f32s(cx, zeros, (size_t)r, &zf)); /* Max-6/Min-6 do not broadcast */
  OLG_TRY(olg__const_f32s(cx, (const float[]){1}, 1, &onef));
  OLG_TRY(olg__emit_cast(cx, d, OLG_FLOAT, &dfl));
  OLG_TRY(olg__emit2(cx, "Greater", st, zf, &pos));
  OLG_TRY(olg__emit_cast(cx, pos, OLG_FLOAT, &pos));
  OLG_TRY(olg__emit2(cx, "Sub", dfl, onef, &hi));
  OLG_TRY(olg__emit2(cx, "Add", hi, pos, &hi));
  OLG_TRY(olg__emit2(cx, "Sub", pos, onef, &elo));
  olg_value *b[2] = {&s, &e};
  for (int j = 0; j < 2; j++) {
    OLG_TRY(olg__emit2(cx, "Less", *b[j], zf, &neg));
    OLG_TRY(olg__emit_cast(cx, neg, OLG_FLOAT, &neg));
    OLG_TRY(olg__emit2(cx, "Mul", neg, dfl, &neg));
    OLG_TRY(olg__emit2(cx, "Add", *b[j], neg, b[j]));
    OLG_TRY(olg__emit(cx, "Max", (const olg_value[]){*b[j], j ? elo : zf}, 2, b[j]));
    OLG_TRY(olg__emit(cx, "Min", (const olg_value[]){*b[j], hi}, 2, b[j]));
  }
  OLG_TRY(olg__emit2(cx, "Sub", e, s, &cnt));
  OLG_TRY(olg__emit2(cx, "Div", cnt, st, &cnt));
  OLG_TRY(olg__emit1(cx, "Ceil", cnt, &cnt));
  OLG_TRY(olg__emit(cx, "Max", (const olg_value[]){cnt, zf}, 2, &cnt));
  OLG_TRY(olg__emit_cast(cx, cnt, OLG_INT64, &cnt));
  OLG_TRY(olg__emit_cast(cx, s, OLG_INT64, &s));
  OLG_TRY(olg__emit_cast(cx, st, OLG_INT64, &st));
  olg_value y = x;
  for (int64_t i = 0; i < r; i++) {
    olg_value n_i, s_i, st_i, idx;
    int64_t b0 = i, e0 = i + 1, z = 0;
    OLG_TRY(olg__emit_slice(cx, cnt, &b0, &e0, &z, NULL, 1, &n_i));
    OLG_TRY(olg__emit_slice(cx, s, &b0, &e0, &z, NULL, 1, &s_i));
    OLG_TRY(olg__emit_slice(cx, st, &b0, &e0, &z, NULL, 1, &st_i));
    OLG_TRY(olg__emit_arange_bounded(cx, n_i, xd[i], &idx));
    OLG_TRY(olg__emit2(cx, "Mul", idx, st_i, &idx));
    OLG_TRY(olg__emit2(cx, "Add", idx, s_i, &idx));
    OLG_TRY(olg__emit_gather(cx, y, idx, i, &y));
  }
  *out = y;
  return OLG_OK;
}

/* 0 .. n-1 (int64) for a run-time count n (one element, any int type): Range (11), the NonZero
 * of n ones (9), refused naming 9 below. */
olg_status olg__emit_arange_rt(olg_lower *cx, olg_value n, olg_value *out) {
  int opset = olg__opset(cx);
  olg_value zero, one;
  OLG_TRY(olg__emit_cast(cx, n, OLG_INT64, &n));
  if (opset >= 11) {
    OLG_TRY(olg__emit_reshape_static(cx, n, NULL, 0, &n));
    OLG_TRY(olg__const_i64(cx, 0, &zero));
    OLG_TRY(olg__const_i64(cx, 1, &one));
    return olg__emit(cx, "Range", (const olg_value[]){zero, n, one}, 3, out);
  }
  if (opset < 9) return olg_lower_unsupported(cx, "a range of a length computed at run time", 9);
  olg_value ones, idx;
  OLG_TRY(olg__emit_reshape_static(cx, n, (const int64_t[]){1}, 1, &n));
  OLG_TRY(olg__emit_full(cx, n, OLG_INT64, 1, &ones));
  OLG_TRY(olg__emit1(cx, "NonZero", ones, &idx));
  return olg__emit_reshape_static(cx, idx, (const int64_t[]){-1}, 1, out);
}
