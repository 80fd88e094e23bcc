/* onnxlegal — the emit helpers of ops whose ONNX encoding changed across opsets (symbolics/emit.h):
 * Squeeze/Unsqueeze, Reduce*, Slice, Pad, Split, Clip, Resize/Upsample, Dropout,
 * BatchNormalization, TopK, Softmax, GridSample, ScatterElements/ScatterND.
 *
 * Each helper knows how every opset from 7 to 27 encodes one meaning; the opset numbers below
 * are the since-versions of the operator changelog (onnx-spec/Changelog.md). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "emit.h"
#include "emit_math.h"
#include "emit_axes.h"
#include "emit_interp.h"

static bool streq(const char *a, const char *b) { return strcmp(a, b) == 0; }

static olg_status squeeze_like(olg_lower *cx, const char *op, olg_value x, const int64_t *axes,
                               size_t n, int64_t rank, olg_value *out) {
  int opset = olg__opset(cx);
  int64_t ax[OLG_MAX_RANK];
  if (n > OLG_MAX_RANK) return olg__errf(cx, OLG_ERR_LIMIT, "%s: too many axes", op);
  if (!olg__norm_axes(axes, n, rank, opset < 11, ax)) return olg__axes_error(cx, op, axes, n, rank);
  olg_node_id nd;
  if (opset >= 13) {
    olg_value av = OLG_NO_VALUE;
    if (n) OLG_TRY(olg__const_i64s(cx, ax, n, &av));
    OLG_TRY(olg_lower_emit_begin(cx, "", op, &nd));
    OLG_TRY(olg_lower_emit_input(cx, nd, x));
    if (n) OLG_TRY(olg_lower_emit_input(cx, nd, av));
  } else {
    OLG_TRY(olg_lower_emit_begin(cx, "", op, &nd));
    OLG_TRY(olg_lower_emit_input(cx, nd, x));
    if (n) OLG_TRY(olg_lower_emit_attr_ints(cx, nd, "axes", ax, n));
  }
  return olg_lower_emit_end(cx, nd, 1, out);
}

olg_status olg__emit_squeeze(olg_lower *cx, olg_value x, const int64_t *axes, size_t n,
                             olg_value *out) {
  return squeeze_like(cx, "Squeeze", x, axes, n, olg__rank(cx, x), out);
}

olg_status olg__emit_unsqueeze(olg_lower *cx, olg_value x, const int64_t *axes, size_t n,
                               olg_value *out) {
  if (!n) return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "Unsqueeze without axes");
  int32_t r = olg__rank(cx, x);
  return squeeze_like(cx, "Unsqueeze", x, axes, n, r >= 0 ? r + (int64_t)n : -1, out);
}

static const char *reduce_op(olg_reduce_kind k) {
  static const char *const ops[] = {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin",
                                    "ReduceProd", "ReduceL1", "ReduceL2", "ReduceLogSum",
                                    "ReduceLogSumExp", "ReduceSumSquare"};
  return ops[k];
}

olg_status olg__emit_reduce(olg_lower *cx, olg_reduce_kind kind, olg_value x,
                            const int64_t *axes, size_t n, int keepdims, olg_value *out) {
  int opset = olg__opset(cx);
  const char *op = reduce_op(kind);
  bool as_input = opset >= (kind == OLG_REDUCE_SUM ? 13 : 18);
  int64_t ax[OLG_MAX_RANK];
  if (n > OLG_MAX_RANK) return olg__errf(cx, OLG_ERR_LIMIT, "%s: too many axes", op);
  int32_t rank = olg__rank(cx, x);
  if (!olg__norm_axes(axes, n, rank, opset < 11, ax)) return olg__axes_error(cx, op, axes, n, rank);
  olg_value av = OLG_NO_VALUE;
  if (as_input && n) OLG_TRY(olg__const_i64s(cx, ax, n, &av));
  /* Max and Min pick a value: where the target's version does not take x's dtype (bool before
   * ReduceMax/Min-20, narrow ints before 12), they pick it in a wider carrier exactly */
  olg_dtype t = olg__dtype(cx, x), ct = t;
  if ((kind == OLG_REDUCE_MAX || kind == OLG_REDUCE_MIN) && t != OLG_UNDEFINED) {
    OLG_TRY(olg__compute_dtype(cx, op, 0, t, &ct));
    if (ct != t) OLG_TRY(olg__emit_cast(cx, x, ct, &x));
  }
  olg_node_id nd;
  olg_value y;
  OLG_TRY(olg_lower_emit_begin(cx, "", op, &nd));
  OLG_TRY(olg_lower_emit_input(cx, nd, x));
  if (as_input && n) OLG_TRY(olg_lower_emit_input(cx, nd, av));
  if (!as_input && n) OLG_TRY(olg_lower_emit_attr_ints(cx, nd, "axes", ax, n));
  OLG_TRY(olg_lower_emit_attr_int(cx, nd, "keepdims", keepdims ? 1 : 0));
  OLG_TRY(olg_lower_emit_end(cx, nd, 1, &y));
  return ct == t ? (*out = y, OLG_OK) : olg__emit_cast(cx, y, t, out);
}

olg_status olg__emit_reduce_none(olg_lower *cx, olg_reduce_kind kind, olg_value x, olg_value *out) {
  olg_value t;
  switch (kind) {
  case OLG_REDUCE_L1: return olg__emit1(cx, "Abs", x, out);
  case OLG_REDUCE_L2: /* sqrt(x*x), as the reduction computes it (not Abs: x*x may overflow) */
    OLG_TRY(olg__emit2(cx, "Mul", x, x, &t));
    return olg__emit1(cx, "Sqrt", t, out);
  case OLG_REDUCE_LOG_SUM: return olg__emit1(cx, "Log", x, out);
  case OLG_REDUCE_LOG_SUM_EXP:
    OLG_TRY(olg__emit1(cx, "Exp", x, &t));
    return olg__emit1(cx, "Log", t, out);
  case OLG_REDUCE_SUM_SQUARE: return olg__emit2(cx, "Mul", x, x, out);
  default: *out = x; return OLG_OK;
  }
}

/* Slice-1 has no steps. Where an axis with a step has a size known at export time, the
 * elements it keeps are known too: take them with a Gather of constant indices (exact, as
 * Slice-10 would), after a Slice-1 of the unit-step axes. */
static olg_status slice_steps_by_gather(olg_lower *cx, olg_value x, const int64_t *starts,
                                        const int64_t *ends, const int64_t *ax,
                                        const int64_t *steps, size_t n, olg_value *out) {
  int64_t us[OLG_MAX_RANK], ue[OLG_MAX_RANK], ua[OLG_MAX_RANK];
  size_t nu = 0;
  for (size_t i = 0; i < n; i++) {
    if (steps[i] == 0) return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "Slice: a step of 0");
    if (steps[i] != 1) {
      if (olg__dim(cx, x, (int32_t)ax[i]) < 0)
        return olg_lower_unsupported(cx, "Slice with a step other than 1 on a dim whose size is "
                                         "not known at export time", 10);
      continue;
    }
    us[nu] = starts[i];
    ue[nu] = ends[i];
    ua[nu++] = ax[i];
  }
  olg_value y = x;
  if (nu) OLG_TRY(olg__emit_slice(cx, x, us, ue, ua, NULL, nu, &y));
  for (size_t i = 0; i < n; i++) {
    if (steps[i] == 1) continue;
    int64_t dim = olg__dim(cx, x, (int32_t)ax[i]), st = steps[i];
    /* ONNX Slice's clamping: positive steps keep [0, dim], negative ones [-1, dim - 1] */
    int64_t b = starts[i] < 0 ? starts[i] + dim : starts[i];
    int64_t e = ends[i] < 0 ? ends[i] + dim : ends[i];
    int64_t lo = st > 0 ? 0 : -1, hi = st > 0 ? dim : dim - 1;
    b = b < 0 ? 0 : b > hi ? hi : b; /* a start clamps to [0, hi] either way */
    e = e < lo ? lo : e > hi ? hi : e;
    size_t k = 0;
    for (int64_t j = b; st > 0 ? j < e : j > e; j += st) k++;
    int64_t *idx = olg__lower_alloc(cx, (k ? k : 1) * sizeof *idx);
    if (!idx) return OLG_ERR_NOMEM;
    k = 0;
    for (int64_t j = b; st > 0 ? j < e : j > e; j += st) idx[k++] = j;
    olg_value iv;
    OLG_TRY(olg__const_i64s(cx, idx, k, &iv));
    OLG_TRY(olg__emit_gather(cx, y, iv, ax[i], &y));
  }
  *out = y;
  return OLG_OK;
}

olg_status olg__emit_slice(olg_lower *cx, olg_value x, const int64_t *starts,
                           const int64_t *ends, const int64_t *axes, const int64_t *steps,
                           size_t n, olg_value *out) {
  int opset = olg__opset(cx);
  if (n > OLG_MAX_RANK) return olg_lower_error(cx, OLG_ERR_LIMIT, "Slice: too many axes");
  int64_t ax[OLG_MAX_RANK];
  for (size_t i = 0; i < n; i++) ax[i] = axes ? axes[i] : (int64_t)i;
  int32_t rank = olg__rank(cx, x);
  if (!olg__norm_axes(ax, n, rank, opset < 11, ax)) return olg__axes_error(cx, "Slice", ax, n, rank);
  bool unit_steps = true;
  for (size_t i = 0; steps && i < n; i++) unit_steps = unit_steps && steps[i] == 1;
  if (opset < 10 && !unit_steps) return slice_steps_by_gather(cx, x, starts, ends, ax, steps, n, out);
  if (opset < 10) {
    olg_node_id nd;
    OLG_TRY(olg_lower_emit_begin(cx, "", "Slice", &nd));
    OLG_TRY(olg_lower_emit_input(cx, nd, x));
    OLG_TRY(olg_lower_emit_attr_ints(cx, nd, "starts", starts, n));
    OLG_TRY(olg_lower_emit_attr_ints(cx, nd, "ends", ends, n));
    OLG_TRY(olg_lower_emit_attr_ints(cx, nd, "axes", ax, n));
    return olg_lower_emit_end(cx, nd, 1, out);
  }
  olg_value in[5] = {x, OLG_NO_VALUE, OLG_NO_VALUE, OLG_NO_VALUE, OLG_NO_VALUE};
  OLG_TRY(olg__const_i64s(cx, starts, n, &in[1]));
  OLG_TRY(olg__const_i64s(cx, ends, n, &in[2]));
  OLG_TRY(olg__const_i64s(cx, ax, n, &in[3]));
  if (!unit_steps) OLG_TRY(olg__const_i64s(cx, steps, n, &in[4]));
  return olg__emit(cx, "Slice", in, unit_steps ? 4 : 5, out);
}

olg_status olg__emit_slice_dyn(olg_lower *cx, olg_value x, olg_value starts, olg_value ends,
                               olg_value axes, olg_value steps, olg_value *out) {
  const int64_t *s, *e, *a = NULL, *st = NULL;
  size_t ns, ne, na = 0, nst = 0;
  bool known = olg__known_ints(cx, starts, &s, &ns) && olg__known_ints(cx, ends, &e, &ne) &&
               (axes == OLG_NO_VALUE || olg__known_ints(cx, axes, &a, &na)) &&
               (steps == OLG_NO_VALUE || olg__known_ints(cx, steps, &st, &nst));
  if (known && ns == ne && (!a || na == ns) && (!st || nst == ns))
    return olg__emit_slice(cx, x, s, e, a, st, ns, out);
  if (olg__opset(cx) < 10) /* Gathers of computed ranges (emit_axes.c) */
    return olg__emit_slice_gather(cx, x, starts, ends, axes, steps, out);
  olg_value in[5] = {x, starts, ends, axes, steps};
  size_t n = steps != OLG_NO_VALUE ? 5 : axes != OLG_NO_VALUE ? 4 : 3;
  for (size_t i = 1; i < n; i++)
    if (in[i] != OLG_NO_VALUE) OLG_TRY(olg__emit_cast(cx, in[i], OLG_INT64, &in[i]));
  return olg__emit(cx, "Slice", in, n, out);
}

/* Pad-19's wrap below 19: dim by dim, the last `begin` elements before x and the first `end`
 * after it (Slice and Concat); pads beyond the dim's size take whole copies too, so the dims
 * padded must be known. Output j of a dim of size L is x[(j - begin) mod L], as Pad-19 says. */
olg_status olg__emit_pad_wrap(olg_lower *cx, olg_value x, const int64_t *pads, size_t n_pads,
                              bool within_dims, olg_value *out) {
  if (olg__opset(cx) >= 19) return olg__emit_pad(cx, x, "wrap", pads, n_pads, 0, out);
  int32_t rank = olg__rank(cx, x);
  if (rank < 0 || n_pads != 2 * (size_t)rank)
    return olg_lower_unsupported(cx, "Pad with mode 'wrap' of an input of unknown rank", 19);
  for (size_t i = 0; i < n_pads; i++)
    if (pads[i] < 0) return olg_lower_unsupported(cx, "Pad with mode 'wrap' and negative pads", 19);
  OLG_TRY(olg_lower_decompose(cx, "Pad with mode 'wrap' (Slice and Concat)", 19));
  olg_value y = x;
  for (int32_t d = 0; d < rank; d++) {
    int64_t b = pads[d], e = pads[rank + d], a = d, L = olg__dim(cx, x, d);
    if (!b && !e) continue;
    if (within_dims && L < 0) { /* the caller guarantees b, e <= L */
      olg_value parts[3];
      size_t n = 0;
      int64_t s = -b, big = INT64_MAX, zero = 0;
      if (b) OLG_TRY(olg__emit_slice(cx, y, &s, &big, &a, NULL, 1, &parts[n++]));
      parts[n++] = y;
      if (e) OLG_TRY(olg__emit_slice(cx, y, &zero, &e, &a, NULL, 1, &parts[n++]));
      OLG_TRY(olg__emit_concat(cx, parts, n, d, &y));
      continue;
    }
    if (L <= 0)
      return olg_lower_unsupported(cx, "Pad with mode 'wrap' of a dim whose size is not known", 19);
    if (b > 64 * L || e > 64 * L)
      return olg__errf(cx, OLG_ERR_LIMIT, "Pad with mode 'wrap': pads over 64 times the dim");
    olg_value parts[132];
    size_t n = 0;
    int64_t zero = 0, big = INT64_MAX;
    if (b % L) {
      int64_t s = -(b % L);
      OLG_TRY(olg__emit_slice(cx, y, &s, &big, &a, NULL, 1, &parts[n++]));
    }
    for (int64_t k = 0; k < b / L; k++) parts[n++] = y;
    parts[n++] = y;
    for (int64_t k = 0; k < e / L; k++) parts[n++] = y;
    if (e % L) {
      int64_t en = e % L;
      OLG_TRY(olg__emit_slice(cx, y, &zero, &en, &a, NULL, 1, &parts[n++]));
    }
    OLG_TRY(olg__emit_concat(cx, parts, n, d, &y));
  }
  return (*out = y, OLG_OK);
}

olg_status olg__emit_pad(olg_lower *cx, olg_value x, const char *mode, const int64_t *pads,
                         size_t n_pads, double value, olg_value *out) {
  int opset = olg__opset(cx);
  if (!mode || !*mode) mode = "constant";
  if (strcmp(mode, "wrap") == 0 && opset < 19) return olg__emit_pad_wrap(cx, x, pads, n_pads, false, out);
  if (strcmp(mode, "constant") && strcmp(mode, "reflect") && strcmp(mode, "edge") &&
      strcmp(mode, "wrap"))
    return olg__errf(cx, OLG_ERR_INVALID_ARG, "Pad: unknown mode '%s'", mode);
  olg_dtype t = olg__dtype(cx, x);
  if (opset < 11) {
    /* Pad-2 takes float types only: pad other types in double (exact up to 2^53) */
    olg_value xin = x;
    if (t != OLG_UNDEFINED && !olg__is_float(t) && t != OLG_BFLOAT16)
      OLG_TRY(olg__emit_cast(cx, x, OLG_DOUBLE, &xin));
    olg_node_id nd;
    OLG_TRY(olg_lower_emit_begin(cx, "", "Pad", &nd));
    OLG_TRY(olg_lower_emit_input(cx, nd, xin));
    OLG_TRY(olg_lower_emit_attr_ints(cx, nd, "pads", pads, n_pads));
    OLG_TRY(olg_lower_emit_attr_string(cx, nd, "mode", mode));
    if (strcmp(mode, "constant") == 0 && value != 0)
      OLG_TRY(olg_lower_emit_attr_float(cx, nd, "value", value));
    olg_value y;
    OLG_TRY(olg_lower_emit_end(cx, nd, 1, &y));
    return xin != x ? olg__emit_cast(cx, y, t, out) : (*out = y, OLG_OK);
  }
  olg_value in[3] = {x, OLG_NO_VALUE, OLG_NO_VALUE};
  OLG_TRY(olg__const_i64s(cx, pads, n_pads, &in[1]));
  size_t n = 2;
  if (strcmp(mode, "constant") == 0 && value != 0) {
    OLG_TRY(olg__const_like(cx, x, value, &in[2]));
    n = 3;
  }
  olg_node_id nd;
  OLG_TRY(olg_lower_emit_begin(cx, "", "Pad", &nd));
  for (size_t i = 0; i < n; i++) OLG_TRY(olg_lower_emit_input(cx, nd, in[i]));
  OLG_TRY(olg_lower_emit_attr_string(cx, nd, "mode", mode));
  return olg_lower_emit_end(cx, nd, 1, out);
}

olg_status olg__emit_pad_dyn(olg_lower *cx, olg_value x, const char *mode, olg_value pads,
                             olg_value value, olg_value *out) {
  const int64_t *p;
  size_t n;
  double v = 0;
  bool pads_known = olg__known_ints(cx, pads, &p, &n);
  bool value_known = value == OLG_NO_VALUE || olg__known_scalar(cx, value, &v);
  if (pads_known && value_known) return olg__emit_pad(cx, x, mode, p, n, v, out);
  if (!mode || !*mode) mode = "constant";
  if (!olg__target_has_input(cx, "Pad", "pads") || (strcmp(mode, "wrap") == 0 && olg__opset(cx) < 19))
    return olg__emit_pad_gather(cx, x, mode, pads, value, out);
  olg_value in[3] = {x, pads, value};
  OLG_TRY(olg__emit_cast(cx, pads, OLG_INT64, &in[1]));
  if (value != OLG_NO_VALUE) OLG_TRY(olg__emit_cast_like(cx, value, x, &in[2]));
  olg_node_id nd;
  OLG_TRY(olg_lower_emit_begin(cx, "", "Pad", &nd));
  for (size_t i = 0; i < (value != OLG_NO_VALUE ? 3u : 2u); i++)
    OLG_TRY(olg_lower_emit_input(cx, nd, in[i]));
  OLG_TRY(olg_lower_emit_attr_string(cx, nd, "mode", mode));
  return olg_lower_emit_end(cx, nd, 1, out);
}

olg_status olg__emit_pad_axes(olg_lower *cx, olg_value x, const char *mode, olg_value pads,
                              olg_value value, olg_value axes, olg_value *out) {
  int opset = olg__opset(cx);
  const int64_t *a = NULL, *p = NULL;
  size_t na = 0, np = 0;
  int32_t rank = olg__rank(cx, x);
  bool axes_known = olg__known_ints(cx, axes, &a, &na);
  bool pads_known = olg__known_ints(cx, pads, &p, &np);
  if (axes_known && rank >= 0 && rank <= OLG_MAX_RANK) {
    for (size_t i = 0; i < na; i++)
      if (olg__norm_axis(a[i], rank) < 0) return olg__axes_error(cx, "Pad", a + i, 1, rank);
    if (pads_known && np != 2 * na)
      return olg_lower_error(cx, OLG_ERR_INVALID_MODEL, "Pad: pads are not twice the axes");
  }
  if (axes_known && pads_known && rank >= 0 && rank <= OLG_MAX_RANK) {
    int64_t full[2 * OLG_MAX_RANK] = {0};
    for (size_t i = 0; i < na; i++) {
      int64_t ax = olg__norm_axis(a[i], rank);
      full[ax] = p[i];
      full[ax + rank] = p[i + na];
    }
    OLG_TRY(olg__const_i64s(cx, full, 2 * (size_t)rank, &pads));
    return olg__emit_pad_dyn(cx, x, mode, pads, value, out);
  }
  if (opset >= 18) {
    olg_node_id nd;
    OLG_TRY(olg_lower_emit_begin(cx, "", "Pad", &nd));
    olg_value in[4] = {x, pads, value, axes};
    OLG_TRY(olg__emit_cast(cx, pads, OLG_INT64, &in[1]));
    if (value != OLG_NO_VALUE) OLG_TRY(olg__emit_cast_like(cx, value, x, &in[2]));
    for (int i = 0; i < 4; i++) OLG_TRY(olg_lower_emit_input(cx, nd, in[i]));
    OLG_TRY(olg_lower_emit_attr_string(cx, nd, "mode", mode && *mode ? mode : "constant"));
    return olg_lower_emit_end(cx, nd, 1, out);
  }
  if (rank < 0 || rank > OLG_MAX_RANK)
    return olg_lower_unsupported(cx, "Pad with axes and run-time pads of an input of unknown rank", 18);
  if (!olg__target_has(cx, "NonZero")) /* Scatter-9 below, and Pad by Gathers */
    return olg_lower_unsupported(cx, "Pad with axes and pads computed at run time", 9);
  /* the full pads at run time: zeros with the given pads scattered at axes and axes + rank */
  olg_value zeros, idx, r, ax, ax2, pv;
  int64_t z[2 * OLG_MAX_RANK] = {0};
  OLG_TRY(olg__const_i64s(cx, z, 2 * (size_t)rank, &zeros));
  OLG_TRY(olg__emit_cast(cx, axes, OLG_INT64, &ax));
  if (!axes_known || na) {
    OLG_TRY(olg__const_i64(cx, rank, &r));
    if (!axes_known) { /* negative axes count from the end: (a + rank) mod rank */
      olg_value q;
      OLG_TRY(olg__emit2(cx, "Add", ax, r, &ax));
      if (olg__target_has(cx, "Mod")) {
        OLG_TRY(olg__emit2(cx, "Mod", ax, r, &ax));
      } else { /* a + rank >= 0: truncating Div floors */
        OLG_TRY(olg__emit2(cx, "Div", ax, r, &q));
        OLG_TRY(olg__emit2(cx, "Mul", q, r, &q));
        OLG_TRY(olg__emit2(cx, "Sub", ax, q, &ax));
      }
    } else {
      int64_t *norm = olg__lower_alloc(cx, (na ? na : 1) * sizeof *norm);
      if (!norm) return OLG_ERR_NOMEM;
      for (size_t i = 0; i < na; i++) norm[i] = olg__norm_axis(a[i], rank);
      OLG_TRY(olg__const_i64s(cx, norm, na, &ax));
    }
    OLG_TRY(olg__emit2(cx, "Add", ax, r, &ax2));
  } else {
    ax2 = ax;
  }
  olg_value both[2] = {ax, ax2};
  OLG_TRY(olg__concat_ints(cx, both, 2, &idx));
  OLG_TRY(olg__emit_cast(cx, pads, OLG_INT64, &pv));
  OLG_TRY(olg__emit_scatter_elements(cx, zeros, idx, pv, 0, NULL, &pads));
  return olg__emit_pad_dyn(cx, x, mode, pads, value, out);
}

olg_status olg__emit_split(olg_lower *cx, olg_value x, int64_t axis, const int64_t *sizes,
                           size_t n_out, olg_value *outs) {
  int opset = olg__opset(cx);
  int32_t rank = olg__rank(cx, x);
  if (rank >= 0) {
    int64_t a = olg__norm_axis(axis, rank);
    if (a < 0) return olg__axes_error(cx, "Split", &axis, 1, rank);
    axis = a;
  } else if (axis < 0 && opset < 11) {
    return olg__axes_error(cx, "Split", &axis, 1, rank);
  }
  if (n_out == 0) return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "Split into 0 parts");
  olg_value sv = OLG_NO_VALUE;
  if (sizes && opset >= 13) OLG_TRY(olg__const_i64s(cx, sizes, n_out, &sv));
  olg_node_id nd;
  OLG_TRY(olg_lower_emit_begin(cx, "", "Split", &nd));
  OLG_TRY(olg_lower_emit_input(cx, nd, x));
  if (sv != OLG_NO_VALUE) OLG_TRY(olg_lower_emit_input(cx, nd, sv));
  OLG_TRY(olg_lower_emit_attr_int(cx, nd, "axis", axis));
  if (sizes && opset < 13) OLG_TRY(olg_lower_emit_attr_ints(cx, nd, "split", sizes, n_out));
  if (!sizes && opset >= 18) OLG_TRY(olg_lower_emit_attr_int(cx, nd, "num_outputs", (int64_t)n_out));
  return olg_lower_emit_end(cx, nd, n_out, outs);
}

/* A bound as a 0-D tensor of x's dtype. */
static olg_status clip_bound(olg_lower *cx, olg_value b, olg_dtype t, olg_value *out) {
  if (b == OLG_NO_VALUE) {
    *out = OLG_NO_VALUE;
    return OLG_OK;
  }
  double v;
  if (olg__known_scalar(cx, b, &v)) return olg__const_scalar(cx, t, v, out);
  OLG_TRY(olg__emit_cast(cx, b, t, &b));
  if (olg__rank(cx, b) != 0) OLG_TRY(olg__emit_reshape_static(cx, b, NULL, 0, &b));
  *out = b;
  return OLG_OK;
}

olg_status olg__emit_clip(olg_lower *cx, olg_value x, olg_value lo, olg_value hi,
                          olg_value *out) {
  int opset = olg__opset(cx);
  olg_dtype t = olg__dtype(cx, x);
  /* Before 12 runtimes implement Clip for float only (ONNX Runtime has no double Clip-6/11):
   * other types use Where (>= 9), or float when that is exact (<= 16 bits) */
  bool fl = t == OLG_FLOAT || t == OLG_UNDEFINED;
  if (opset >= 12 || (opset == 11 && fl)) {
    olg_value l, h;
    OLG_TRY(clip_bound(cx, lo, t == OLG_UNDEFINED ? OLG_FLOAT : t, &l));
    OLG_TRY(clip_bound(cx, hi, t == OLG_UNDEFINED ? OLG_FLOAT : t, &h));
    olg_value in[3] = {x, l, h};
    return olg__emit(cx, "Clip", in, h != OLG_NO_VALUE ? 3 : l != OLG_NO_VALUE ? 2 : 1, out);
  }
  double l = -INFINITY, h = INFINITY;
  bool dyn = (lo != OLG_NO_VALUE && !olg__known_scalar(cx, lo, &l)) ||
             (hi != OLG_NO_VALUE && !olg__known_scalar(cx, hi, &h));
  bool where = olg__target_has(cx, "Where");
  if ((!fl || dyn) && (where || dyn)) {
    /* Where(x < lo, lo, x), then the same with hi: exact for every type, and for bounds known
     * only at run time before Clip-11 took them as inputs (NaN stays NaN, as in Clip); below 9
     * Where is a Gather pick and integers compare by their difference (up to 32 bits) */
    if (!where && olg__is_int(t) && olg_dtype_bits(t) > 32)
      return olg__unsupportedf(cx, 9, "Clip of %s with bounds computed at run time", olg_dtype_name(t));
    olg_value y = x, b, c;
    if (lo != OLG_NO_VALUE) {
      OLG_TRY(clip_bound(cx, lo, t, &b));
      OLG_TRY(olg__emit_compare(cx, OLG_CMP_LT, y, b, &c));
      OLG_TRY(olg__emit_where(cx, c, b, y, &y));
    }
    if (hi != OLG_NO_VALUE) {
      OLG_TRY(clip_bound(cx, hi, t, &b));
      OLG_TRY(olg__emit_compare(cx, OLG_CMP_GT, y, b, &c));
      OLG_TRY(olg__emit_where(cx, c, b, y, &y));
    }
    *out = y;
    return OLG_OK;
  }
  /* Clip-6 at opsets 7, 8 (and float Clip-11): other types in float, exact up to 16 bits */
  olg_value xin = x;
  if (!fl && (olg_dtype_bits(t) > 16 || t == OLG_BFLOAT16))
    return olg__unsupportedf(cx, 9, "Clip of %s", olg_dtype_name(t));
  if (!fl) OLG_TRY(olg__emit_cast(cx, x, OLG_FLOAT, &xin));
  olg_value y;
  if (dyn) {
    if (opset < 11) return olg_lower_unsupported(cx, "Clip with bounds computed at run time", 11);
    olg_value lv, hv;
    OLG_TRY(clip_bound(cx, lo, OLG_FLOAT, &lv));
    OLG_TRY(clip_bound(cx, hi, OLG_FLOAT, &hv));
    olg_value in[3] = {xin, lv, hv};
    OLG_TRY(olg__emit(cx, "Clip", in, hv != OLG_NO_VALUE ? 3 : 2, &y));
  } else if (opset >= 11) {
    olg_value lv = OLG_NO_VALUE, hv = OLG_NO_VALUE;
    olg_dtype ct = fl ? (t == OLG_UNDEFINED ? OLG_FLOAT : t) : OLG_FLOAT;
    if (lo != OLG_NO_VALUE) OLG_TRY(olg__const_scalar(cx, ct, l, &lv));
    if (hi != OLG_NO_VALUE) OLG_TRY(olg__const_scalar(cx, ct, h, &hv));
    olg_value in[3] = {xin, lv, hv};
    OLG_TRY(olg__emit(cx, "Clip", in, hv != OLG_NO_VALUE ? 3 : lv != OLG_NO_VALUE ? 2 : 1, &y));
  } else {
    olg_node_id nd;
    OLG_TRY(olg_lower_emit_begin(cx, "", "Clip", &nd));
    OLG_TRY(olg_lower_emit_input(cx, nd, xin));
    /* Clip-6's attributes are float: keep the bound inside float's range */
    if (lo != OLG_NO_VALUE) OLG_TRY(olg_lower_emit_attr_float(cx, nd, "min", l < -3.4e38 ? -3.4e38 : l));
    if (hi != OLG_NO_VALUE) OLG_TRY(olg_lower_emit_attr_float(cx, nd, "max", h > 3.4e38 ? 3.4e38 : h));
    OLG_TRY(olg_lower_emit_end(cx, nd, 1, &y));
  }
  return xin != x ? olg__emit_cast(cx, y, t, out) : (*out = y, OLG_OK);
}

olg_status olg__emit_clip_f(olg_lower *cx, olg_value x, int has_lo, double lo, int has_hi,
                            double hi, olg_value *out) {
  olg_dtype t = olg__dtype(cx, x);
  olg_dtype bt = olg__is_float(t) ? t : OLG_DOUBLE;
  olg_value l = OLG_NO_VALUE, h = OLG_NO_VALUE;
  if (has_lo) OLG_TRY(olg__const_scalar(cx, bt, lo, &l));
  if (has_hi) OLG_TRY(olg__const_scalar(cx, bt, hi, &h));
  return olg__emit_clip(cx, x, l, h, out);
}

/* ---- Resize / Upsample ---- */


/* A float32 scale s with floor(in * s) == size, as Upsample and Resize-10 compute the output. */
static float exact_scale(int64_t in, int64_t size) {
  float s = (float)size / (float)in;
  for (int i = 0; i < 64 && olg__f64_sat_i64(floorf((float)in * s)) < size; i++) s = nextafterf(s, INFINITY);
  for (int i = 0; i < 64 && olg__f64_sat_i64(floorf((float)in * s)) > size; i++) s = nextafterf(s, 0);
  return s;
}

/* Every axis keeps or grows its size: known scales >= 1, or known sizes >= the known dims. */
static bool resize_upsamples(olg_lower *cx, olg_value x, const olg_resize_params *p) {
  const int64_t *sz = p->out_sizes ? p->out_sizes : p->sizes;
  size_t n = p->n;
  if (!sz && p->sizes_v != OLG_NO_VALUE && !olg__known_ints(cx, p->sizes_v, &sz, &n)) return false;
  if (sz) {
    if (olg__rank(cx, x) != (int32_t)n) return false;
    for (size_t i = 0; i < n; i++) {
      int64_t d = olg__dim(cx, x, (int32_t)i);
      if (d < 0 || sz[i] < d) return false;
    }
    if (!p->out_sizes) return true;
  }
  if (!p->scales) return false; /* run-time scales */
  for (size_t i = 0; i < p->n; i++)
    if (!(p->scales[i] >= 1)) return false;
  return true;
}

olg_status olg__emit_resize(olg_lower *cx, olg_value x, const olg_resize_params *p,
                            olg_value *out) {
  int opset = olg__opset(cx);
  const char *mode = p->mode && *p->mode ? p->mode : "nearest";
  const char *ctm = p->coordinate_transformation_mode && *p->coordinate_transformation_mode
                        ? p->coordinate_transformation_mode
                        : "half_pixel";
  const char *nm = p->nearest_mode && *p->nearest_mode ? p->nearest_mode : "round_prefer_floor";
  double cubic_a = p->cubic_coeff_a ? p->cubic_coeff_a : -0.75;
  if (!streq(mode, "nearest") && !streq(mode, "linear") && !streq(mode, "cubic"))
    return olg__errf(cx, OLG_ERR_INVALID_ARG, "Resize: unknown mode '%s'", mode);
  /* keep_aspect_ratio_policy below 18 at run time (emit_interp.c): its scale and its rounded
   * sizes, which no Resize below 18 takes together: tables computed at run time */
  if (p->scales_v != OLG_NO_VALUE && p->sizes_v != OLG_NO_VALUE && !p->keep_aspect)
    return olg__emit_resize_runtime(cx, x, p, "Resize with keep_aspect_ratio_policy and sizes or "
                                    "input dims known only at run time", out);
  int n_given = (p->scales != NULL) + (p->sizes != NULL) + (p->scales_v != OLG_NO_VALUE) +
                (p->sizes_v != OLG_NO_VALUE);
  if (n_given != 1)
    return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "Resize: give exactly one of scales or sizes");
  /* what the tables (emit_interp.c) need: a static shape, scales or sizes and roi known */
  int64_t dims[OLG_MAX_RANK];
  int32_t rank;
  bool tables = olg__static_shape(cx, x, dims, &rank) &&
                (p->scales || p->sizes || olg__known(cx, p->sizes_v) || olg__known(cx, p->scales_v)) &&
                (!p->has_roi || olg__known(cx, p->roi_v));
  /* output sizes other than the scales' floor: index and weight tables with both */
  for (size_t i = 0; p->out_sizes && p->scales && i < p->n; i++)
    if (!p->sizes && olg__f64_sat_i64(floorf(p->scales[i] * (float)olg__dim(cx, x, (int32_t)i))) !=
                         p->out_sizes[i])
      return olg__emit_resize_tables(cx, x, p, out);
  /* antialias widens the filter only where an axis shrinks (linear, cubic): up-sampling, or in
   * nearest mode, it is antialias=0; below 18 the widened filter is a table */
  bool antialias = p->antialias && !streq(mode, "nearest") && !resize_upsamples(cx, x, p);
  if (antialias && opset < 18) {
    if (!tables || p->has_roi)
      return olg_lower_unsupported(cx, "Resize with antialias down-sampling (decomposed only with "
                                       "constant scales or sizes, a static shape and no roi)", 18);
    return olg__emit_resize_tables(cx, x, p, out);
  }
  if (streq(ctm, "half_pixel_symmetric") && opset < 19) {
    /* decomposed exactly, tables computed at conversion time from constant scales or sizes and
     * a static shape, else at run time (emit_interp_rt.c) */
    return olg__emit_resize_tables(cx, x, p, out);
  }

  if (opset >= 13 && streq(ctm, "tf_half_pixel_for_nn")) {
    /* removed at 13: its source coordinate (x + 0.5) / s is half_pixel's plus 0.5 (exact in
     * float below 2^23), so its rounding is half_pixel's shifted by a half: round_prefer_floor
     * of it is ceil of half_pixel's, floor of it round_prefer_ceil of half_pixel's */
    if (streq(mode, "nearest") && streq(nm, "round_prefer_floor")) nm = "ceil";
    else if (streq(mode, "nearest") && streq(nm, "floor")) nm = "round_prefer_ceil";
    else
      return olg__unsupportedf(cx, -1, "Resize %s with coordinate_transformation_mode "
                               "'tf_half_pixel_for_nn'%s%s (removed at 13)", mode,
                               streq(mode, "nearest") ? " and nearest_mode " : "",
                               streq(mode, "nearest") ? nm : "");
    ctm = "half_pixel";
  }
  if (opset >= 11) {
    olg_value roi = OLG_NO_VALUE, scales = p->scales_v, sizes = p->sizes_v;
    if (p->scales) OLG_TRY(olg__const_f32s(cx, p->scales, p->n, &scales));
    if (p->sizes) OLG_TRY(olg__const_i64s(cx, p->sizes, p->n, &sizes));
    if (scales != OLG_NO_VALUE) OLG_TRY(olg__emit_cast(cx, scales, OLG_FLOAT, &scales));
    if (sizes != OLG_NO_VALUE) OLG_TRY(olg__emit_cast(cx, sizes, OLG_INT64, &sizes));
    if (p->has_roi) OLG_TRY(olg__emit_cast(cx, p->roi_v, OLG_FLOAT, &roi));
    if (opset < 13) { /* roi and scales are required inputs: empty when unused */
      if (roi == OLG_NO_VALUE) OLG_TRY(olg__const_f32s(cx, NULL, 0, &roi));
      if (scales == OLG_NO_VALUE) OLG_TRY(olg__const_f32s(cx, NULL, 0, &scales));
    }
    olg_node_id nd;
    OLG_TRY(olg_lower_emit_begin(cx, "", "Resize", &nd));
    OLG_TRY(olg_lower_emit_input(cx, nd, x));
    OLG_TRY(olg_lower_emit_input(cx, nd, roi));
    OLG_TRY(olg_lower_emit_input(cx, nd, scales));
    if (sizes != OLG_NO_VALUE) OLG_TRY(olg_lower_emit_input(cx, nd, sizes));
    OLG_TRY(olg_lower_emit_attr_string(cx, nd, "mode", mode));
    OLG_TRY(olg_lower_emit_attr_string(cx, nd, "coordinate_transformation_mode", ctm));
    if (streq(mode, "nearest")) OLG_TRY(olg_lower_emit_attr_string(cx, nd, "nearest_mode", nm));
    if (streq(mode, "cubic")) OLG_TRY(olg_lower_emit_attr_float(cx, nd, "cubic_coeff_a", cubic_a));
    if (p->exclude_outside) OLG_TRY(olg_lower_emit_attr_int(cx, nd, "exclude_outside", 1));
    if (antialias) OLG_TRY(olg_lower_emit_attr_int(cx, nd, "antialias", 1));
    if (p->extrapolation_value != 0)
      OLG_TRY(olg_lower_emit_attr_float(cx, nd, "extrapolation_value", p->extrapolation_value));
    if (p->keep_aspect) OLG_TRY(olg_lower_emit_attr_string(cx, nd, "keep_aspect_ratio_policy", p->keep_aspect));
    if (p->axes) OLG_TRY(olg_lower_emit_attr_ints(cx, nd, "axes", p->axes, p->n_axes));
    return olg_lower_emit_end(cx, nd, 1, out);
  }

  /* Upsample-7/9 and Resize-10: asymmetric coordinates; nearest rounds down when up-sampling
   * (up when down-sampling); linear. Anything else: tables computed here (emit_interp.c). */
  bool down = false;
  for (size_t i = 0; p->scales && i < p->n; i++) down = down || p->scales[i] < 1;
  if (p->has_roi || streq(mode, "cubic") || !streq(ctm, "asymmetric") || p->exclude_outside ||
      (streq(mode, "nearest") && (!streq(nm, "floor") || down || (!p->scales && !p->legacy_nearest))))
    return olg__emit_resize_tables(cx, x, p, out);
  float *sc = NULL;
  size_t n = p->n;
  olg_value scales_v = p->scales_v;
  if (p->scales) {
    sc = (float *)p->scales;
  } else if (p->sizes || p->sizes_v != OLG_NO_VALUE) {
    const int64_t *sz = p->sizes;
    int64_t dims[OLG_MAX_RANK];
    int32_t rank;
    if ((!sz && !olg__known_ints(cx, p->sizes_v, &sz, &n)) ||
        !olg__static_shape(cx, x, dims, &rank) || (size_t)rank != n)
      return olg__emit_resize_tables(cx, x, p, out); /* computed at run time there */
    sc = olg__lower_alloc(cx, (n ? n : 1) * sizeof *sc);
    if (!sc) return OLG_ERR_NOMEM;
    for (size_t i = 0; i < n; i++) {
      if (dims[i] == 0) return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "Resize of an empty dim");
      sc[i] = exact_scale(dims[i], sz[i]);
    }
  } else if (opset < 9) {
    const int64_t *dummy;
    (void)dummy;
    const float *known = olg__tensor_f32(cx, olg__known(cx, scales_v), &n);
    if (!known) return olg_lower_unsupported(cx, "Upsample with scales computed at run time", 9);
    sc = (float *)known;
  }
  for (size_t i = 0; sc && opset < 10 && i < n; i++)
    if (sc[i] < 1) return olg__emit_resize_tables(cx, x, p, out); /* Upsample: scales >= 1 */
  /* Upsample-9 fails on run-time scales below 1, which only Upsample's own scales exclude:
   * Resize's run-time scales go through tables computed at run time */
  if (!sc && opset < 10 && !p->legacy_nearest) return olg__emit_resize_tables(cx, x, p, out);
  const char *umode = streq(mode, "linear") ? "linear" : "nearest";
  olg_node_id nd;
  if (opset < 9) {
    OLG_TRY(olg_lower_emit_begin(cx, "", "Upsample", &nd));
    OLG_TRY(olg_lower_emit_input(cx, nd, x));
    OLG_TRY(olg_lower_emit_attr_floats(cx, nd, "scales", sc, n));
  } else {
    if (sc) OLG_TRY(olg__const_f32s(cx, sc, n, &scales_v));
    else OLG_TRY(olg__emit_cast(cx, scales_v, OLG_FLOAT, &scales_v));
    OLG_TRY(olg_lower_emit_begin(cx, "", opset >= 10 ? "Resize" : "Upsample", &nd));
    OLG_TRY(olg_lower_emit_input(cx, nd, x));
    OLG_TRY(olg_lower_emit_input(cx, nd, scales_v));
  }
  OLG_TRY(olg_lower_emit_attr_string(cx, nd, "mode", umode));
  return olg_lower_emit_end(cx, nd, 1, out);
}

olg_status olg__emit_dropout(olg_lower *cx, olg_value x, olg_value *out) {
  return olg__emit_identity(cx, x, out);
}

olg_status olg__emit_batchnorm(olg_lower *cx, olg_value x, olg_value scale, olg_value bias,
                               olg_value mean, olg_value var, double epsilon, double momentum,
                               olg_value *out) {
  olg_node_id nd;
  OLG_TRY(olg_lower_emit_begin(cx, "", "BatchNormalization", &nd));
  olg_value in[5] = {x, scale, bias, mean, var};
  for (int i = 0; i < 5; i++) OLG_TRY(olg_lower_emit_input(cx, nd, in[i]));
  OLG_TRY(olg_lower_emit_attr_float(cx, nd, "epsilon", epsilon));
  OLG_TRY(olg_lower_emit_attr_float(cx, nd, "momentum", momentum));
  return olg_lower_emit_end(cx, nd, 1, out);
}

olg_status olg__emit_topk(olg_lower *cx, olg_value x, olg_value k_v, int64_t k, int64_t axis,
                          int largest, int sorted, olg_value *values, olg_value *indices) {
  (void)sorted; /* sorted output satisfies sorted=0 too */
  int opset = olg__opset(cx);
  int32_t rank = olg__rank(cx, x);
  if (rank >= 0) {
    int64_t a = olg__norm_axis(axis, rank);
    if (a < 0) return olg__axes_error(cx, "TopK", &axis, 1, rank);
    axis = a;
  } else if (axis < 0 && opset < 11) {
    return olg__axes_error(cx, "TopK", &axis, 1, rank);
  }
  if (k_v != OLG_NO_VALUE) {
    double kd;
    if (olg__known_scalar(cx, k_v, &kd)) {
      if (!olg__f64_to_i64(kd, &k)) /* INT64_MAX is 2^63 as a double: not cast */
        return olg__errf(cx, OLG_ERR_INVALID_ARG, "TopK: k %g out of range", kd);
      k_v = OLG_NO_VALUE;
    } else if (opset < 10) { /* all of the dim sorted, then its first k by a Gather */
      int64_t d = rank >= 0 ? olg__dim(cx, x, (int32_t)axis) : -1;
      if (d < 0) return olg_lower_unsupported(cx, "TopK with k computed at run time along a dim whose size is not known", 10);
      olg_value v, i, first;
      OLG_TRY(olg__emit_topk(cx, x, OLG_NO_VALUE, d, axis, largest, sorted, &v, &i));
      OLG_TRY(olg__emit_arange_bounded(cx, k_v, d, &first));
      if (values) OLG_TRY(olg__emit_gather(cx, v, first, axis, values));
      if (indices) OLG_TRY(olg__emit_gather(cx, i, first, axis, indices));
      return OLG_OK;
    }
  }
  olg_value xin = x;
  olg_dtype t = olg__dtype(cx, x);
  bool negate = !largest && opset < 11;
  if (negate) {
    if (t == OLG_UINT8 || t == OLG_UINT16 || t == OLG_UINT32 || t == OLG_UINT64)
      return olg_lower_unsupported(cx, "TopK of the smallest unsigned values", 11);
    OLG_TRY(olg__emit1(cx, "Neg", x, &xin));
  }
  olg_node_id nd;
  olg_value outs[2];
  if (opset < 10) {
    OLG_TRY(olg_lower_emit_begin(cx, "", "TopK", &nd));
    OLG_TRY(olg_lower_emit_input(cx, nd, xin));
    OLG_TRY(olg_lower_emit_attr_int(cx, nd, "k", k));
  } else {
    olg_value kv = k_v;
    if (kv == OLG_NO_VALUE) OLG_TRY(olg__const_i64s(cx, &k, 1, &kv));
    else {
      OLG_TRY(olg__emit_cast(cx, kv, OLG_INT64, &kv));
      if (olg__rank(cx, kv) != 1) OLG_TRY(olg__emit_reshape_static(cx, kv, (const int64_t[]){1}, 1, &kv));
    }
    OLG_TRY(olg_lower_emit_begin(cx, "", "TopK", &nd));
    OLG_TRY(olg_lower_emit_input(cx, nd, xin));
    OLG_TRY(olg_lower_emit_input(cx, nd, kv));
    if (opset >= 11 && !largest) OLG_TRY(olg_lower_emit_attr_int(cx, nd, "largest", 0));
  }
  OLG_TRY(olg_lower_emit_attr_int(cx, nd, "axis", axis));
  OLG_TRY(olg_lower_emit_end(cx, nd, 2, outs));
  if (negate) OLG_TRY(olg__emit1(cx, "Neg", outs[0], &outs[0]));
  if (values) *values = outs[0];
  if (indices) *indices = outs[1];
  return OLG_OK;
}

/* The type TopK sorts t in, exactly: below 11 TopK takes float types only (other types go
 * through double, exact up to 2^53); from 11 runtimes implement float, double, int32 and int64,
 * so the narrower types (bool, 8/16-bit ints, half floats) are widened. */
olg_dtype olg__topk_dtype(const olg_lower *cx, olg_dtype t) {
  if (t == OLG_UNDEFINED || t == OLG_FLOAT || t == OLG_DOUBLE) return t;
  if (t == OLG_FLOAT16 || t == OLG_BFLOAT16) return OLG_FLOAT;
  if (olg__opset(cx) < 11) return OLG_DOUBLE;
  if (t == OLG_INT32 || t == OLG_INT64) return t;
  return t == OLG_UINT64 ? OLG_DOUBLE : OLG_INT64;
}

olg_status olg__topk_k_whole_dim(olg_lower *cx, olg_value x, int64_t axis, int64_t *k,
                                 olg_value *k_v) {
  *k = olg__dim(cx, x, (int32_t)axis);
  *k_v = OLG_NO_VALUE;
  if (*k >= 0) return OLG_OK;
  if (olg__opset(cx) < 10)
    return olg_lower_unsupported(cx, "sorting along a dim whose size is not known (TopK's k "
                                     "as an input)", 10);
  return olg__dim_tensor(cx, x, axis, k_v);
}

olg_status olg__emit_softmax(olg_lower *cx, olg_softmax_kind kind, olg_value x, int64_t axis,
                             olg_value *out) {
  static const char *const ops[] = {"Softmax", "LogSoftmax", "Hardmax"};
  const char *op = ops[kind];
  int opset = olg__opset(cx);
  int32_t rank = olg__rank(cx, x);
  if (opset >= 13) {
    olg_node_id nd;
    OLG_TRY(olg_lower_emit_begin(cx, "", op, &nd));
    OLG_TRY(olg_lower_emit_input(cx, nd, x));
    OLG_TRY(olg_lower_emit_attr_int(cx, nd, "axis", axis));
    return olg_lower_emit_end(cx, nd, 1, out);
  }
  if (rank < 0)
    return olg__unsupportedf(cx, 13, "%s of an input whose rank is unknown", op);
  int64_t a = olg__norm_axis(axis, rank);
  if (a < 0) return olg__axes_error(cx, op, &axis, 1, rank);
  /* below 13 the op flattens to 2-D at axis: the same as one axis only when it is the last */
  olg_value xin = x;
  int64_t perm[OLG_MAX_RANK];
  bool moved = a != rank - 1;
  if (moved) {
    if (rank > OLG_MAX_RANK) return olg_lower_error(cx, OLG_ERR_LIMIT, "softmax: rank too large");
    for (int32_t i = 0; i < rank; i++) perm[i] = i;
    perm[a] = rank - 1;
    perm[rank - 1] = a;
    OLG_TRY(olg__emit_transpose(cx, x, perm, (size_t)rank, &xin));
  }
  olg_node_id nd;
  olg_value y;
  OLG_TRY(olg_lower_emit_begin(cx, "", op, &nd));
  OLG_TRY(olg_lower_emit_input(cx, nd, xin));
  OLG_TRY(olg_lower_emit_attr_int(cx, nd, "axis", rank - 1));
  OLG_TRY(olg_lower_emit_end(cx, nd, 1, &y));
  if (!moved) {
    *out = y;
    return OLG_OK;
  }
  return olg__emit_transpose(cx, y, perm, (size_t)rank, out); /* a swap is its own inverse */
}

olg_status olg__emit_softmax_2d(olg_lower *cx, olg_softmax_kind kind, olg_value x, int64_t axis,
                                olg_value *out) {
  static const char *const ops[] = {"Softmax", "LogSoftmax", "Hardmax"};
  int32_t rank = olg__rank(cx, x);
  if (olg__opset(cx) < 13) { /* the op's own meaning */
    /* a negative axis (taken from version 11; ONNX Runtime runs it at any) counted from the
       front where the rank is known: legal at every target */
    if (axis < 0 && rank >= 0) axis += rank;
    olg_node_id nd;
    OLG_TRY(olg_lower_emit_begin(cx, "", ops[kind], &nd));
    OLG_TRY(olg_lower_emit_input(cx, nd, x));
    OLG_TRY(olg_lower_emit_attr_int(cx, nd, "axis", axis));
    return olg_lower_emit_end(cx, nd, 1, out);
  }
  if (rank >= 0 && olg__norm_axis(axis, rank) == rank - 1) return olg__emit_softmax(cx, kind, x, -1, out);
  /* Flatten, along the last axis, Reshape back */
  olg_value flat, shape, s2;
  OLG_TRY(olg__emit_flatten(cx, x, axis, &flat));
  OLG_TRY(olg__emit_softmax(cx, kind, flat, 1, &s2));
  OLG_TRY(olg__shape(cx, x, &shape));
  return olg__emit_reshape(cx, s2, shape, out);
}

olg_status olg__emit_grid_sample(olg_lower *cx, olg_value x, olg_value grid, const char *mode,
                                 const char *padding, int align_corners, olg_value *out) {
  int opset = olg__opset(cx);
  bool v20 = opset >= 20;
  if (!v20 && olg__rank(cx, x) != 4) /* N-D from 20 */
    return olg_lower_unsupported(cx, "GridSample of an input that is not 4-D", 20);
  if (opset < 16) return olg_lower_unsupported(cx, "GridSample", 16);
  if (!mode || streq(mode, "bilinear") || streq(mode, "linear")) mode = v20 ? "linear" : "bilinear";
  else if (streq(mode, "bicubic") || streq(mode, "cubic")) mode = v20 ? "cubic" : "bicubic";
  else if (!streq(mode, "nearest")) return olg__errf(cx, OLG_ERR_INVALID_ARG, "GridSample: unknown mode '%s'", mode);
  if (!padding) padding = "zeros";
  if (!streq(padding, "zeros") && !streq(padding, "border") && !streq(padding, "reflection"))
    return olg__errf(cx, OLG_ERR_INVALID_ARG, "GridSample: unknown padding mode '%s'", padding);
  olg_node_id nd;
  OLG_TRY(olg_lower_emit_begin(cx, "", "GridSample", &nd));
  OLG_TRY(olg_lower_emit_input(cx, nd, x));
  OLG_TRY(olg_lower_emit_input(cx, nd, grid));
  OLG_TRY(olg_lower_emit_attr_string(cx, nd, "mode", mode));
  OLG_TRY(olg_lower_emit_attr_string(cx, nd, "padding_mode", padding));
  OLG_TRY(olg_lower_emit_attr_int(cx, nd, "align_corners", align_corners ? 1 : 0));
  return olg_lower_emit_end(cx, nd, 1, out);
}

bool olg__grid_sample_takes_rank(const olg_lower *cx, int32_t rank) {
  int opset = olg__opset(cx);
  return opset >= 20 || (opset >= 16 && rank == 4);
}

/* The opset a Scatter reduction needs (0: none needed), -1 for an unknown one. */
static int scatter_reduction_opset(const char *reduction) {
  if (!reduction || !*reduction || streq(reduction, "none")) return 0;
  if (streq(reduction, "add") || streq(reduction, "mul")) return 16;
  if (streq(reduction, "max") || streq(reduction, "min")) return 18;
  return -1;
}

bool olg__scatter_takes_reduction(const olg_lower *cx, const char *reduction) {
  int need = scatter_reduction_opset(reduction);
  return need >= 0 && need <= olg__opset(cx);
}

static olg_status scatter_like(olg_lower *cx, const char *op, olg_value data, olg_value indices,
                               olg_value updates, const int64_t *axis, const char *reduction,
                               olg_value *out) {
  int need = scatter_reduction_opset(reduction);
  if (need < 0) return olg__errf(cx, OLG_ERR_INVALID_ARG, "%s: unknown reduction '%s'", op, reduction);
  if (need > olg__opset(cx))
    return olg__unsupportedf(cx, need, "%s with reduction '%s'", op, reduction);
  olg_dtype it = olg__dtype(cx, indices);
  if (it != OLG_INT64 && it != OLG_INT32) OLG_TRY(olg__emit_cast(cx, indices, OLG_INT64, &indices));
  olg_node_id nd;
  OLG_TRY(olg_lower_emit_begin(cx, "", op, &nd));
  OLG_TRY(olg_lower_emit_input(cx, nd, data));
  OLG_TRY(olg_lower_emit_input(cx, nd, indices));
  OLG_TRY(olg_lower_emit_input(cx, nd, updates));
  if (axis) OLG_TRY(olg_lower_emit_attr_int(cx, nd, "axis", *axis));
  if (need) OLG_TRY(olg_lower_emit_attr_string(cx, nd, "reduction", reduction));
  return olg_lower_emit_end(cx, nd, 1, out);
}

olg_status olg__emit_scatter_elements(olg_lower *cx, olg_value data, olg_value indices,
                                      olg_value updates, int64_t axis, const char *reduction,
                                      olg_value *out) {
  int opset = olg__opset(cx);
  if (opset < 9) return olg_lower_unsupported(cx, "ScatterElements (Scatter)", 9);
  int32_t rank = olg__rank(cx, data);
  if (rank >= 0) {
    int64_t a = olg__norm_axis(axis, rank);
    if (a < 0) return olg__axes_error(cx, "ScatterElements", &axis, 1, rank);
    axis = a;
  } else if (axis < 0 && opset < 11) {
    return olg__axes_error(cx, "Scatter", &axis, 1, rank);
  }
  return scatter_like(cx, opset >= 11 ? "ScatterElements" : "Scatter", data, indices, updates,
                      &axis, reduction, out);
}

olg_status olg__emit_scatter_nd(olg_lower *cx, olg_value data, olg_value indices,
                                olg_value updates, const char *reduction, olg_value *out) {
  if (olg__opset(cx) < 11) return olg_lower_unsupported(cx, "ScatterND", 11);
  return scatter_like(cx, "ScatterND", data, indices, updates, NULL, reduction, out);
}
