/* onnxlegal — the emit helpers of the convolution, pooling and normalization families
 * (symbolics/emit_nn.h): spatial arguments, unbatched inputs, real constants, scaled dims. */
#include <string.h>

#include "emit_math.h"
#include "emit_nn.h"

int olg__op_spatial_dims(const olg_lower *cx) {
  const char *op = olg_lower_node_op(cx);
  for (const char *p = op; *p; p++)
    if (p[0] >= '1' && p[0] <= '3' && p[1] == 'd' && (p[2] == 0 || p[2] == '_')) return p[0] - '0';
  return -1;
}

olg_status olg__spatial_arg(olg_lower *cx, size_t i, int n, const int64_t *dflt, const char *what,
                            int64_t *out) {
  const int64_t *p;
  size_t m;
  OLG_TRY(olg__arg_ints_or_empty(cx, i, &p, &m));
  if (m == 0) {
    if (!dflt) return olg__errf(cx, OLG_ERR_INVALID_ARG, "%s is required", what);
    memcpy(out, dflt, (size_t)n * sizeof *out);
    return OLG_OK;
  }
  if (m != 1 && m != (size_t)n)
    return olg__errf(cx, OLG_ERR_INVALID_ARG, "%s has %zu entries; %d spatial axes need %d", what,
                     m, n, n);
  for (int j = 0; j < n; j++) out[j] = p[m == 1 ? 0 : j];
  return OLG_OK;
}

olg_status olg__batch_in(olg_lower *cx, olg_value x, int n, const char *op, olg_value *xb,
                         bool *unbatched) {
  int32_t rank = olg__rank(cx, x);
  *unbatched = false;
  if (rank == n + 2) {
    *xb = x;
    return OLG_OK;
  }
  if (rank == n + 1) {
    *unbatched = true;
    return olg__emit_unsqueeze(cx, x, (const int64_t[]){0}, 1, xb);
  }
  if (rank < 0)
    return olg__errf(cx, OLG_ERR_UNSUPPORTED, "%s: the rank of the input is not known at export time",
                     op);
  return olg__errf(cx, OLG_ERR_INVALID_ARG,
                   "%s: the input has rank %d; %d spatial axes need rank %d (or %d unbatched)", op,
                   rank, n, n + 2, n + 1);
}

olg_status olg__batch_out(olg_lower *cx, olg_value y, bool unbatched, olg_value *out) {
  if (!unbatched) {
    *out = y;
    return OLG_OK;
  }
  return olg__emit_squeeze(cx, y, (const int64_t[]){0}, 1, out);
}

olg_status olg__const_real(olg_lower *cx, olg_dtype t, int32_t rank, const int64_t *dims,
                           const double *v, size_t count, olg_value *out) {
  if (t == OLG_DOUBLE)
    return olg__const_tensor(cx, OLG_DOUBLE, rank, dims, v, count * sizeof *v, out);
  float *f = olg__lower_alloc(cx, (count ? count : 1) * sizeof *f);
  if (!f) return OLG_ERR_NOMEM;
  for (size_t i = 0; i < count; i++) f[i] = (float)v[i];
  OLG_TRY(olg__const_tensor_kept(cx, OLG_FLOAT, rank, dims, f, count * sizeof *f, out));
  if (t == OLG_FLOAT || t == OLG_UNDEFINED) return OLG_OK;
  return olg__emit_cast(cx, *out, t, out);
}

olg_status olg__dim_scaled(olg_lower *cx, olg_value x, int64_t axis, int64_t mul, int64_t div,
                           olg_value *out) {
  int64_t d = olg__dim(cx, x, (int32_t)axis);
  if (d >= 0) {
    int64_t v = d * mul / div;
    return olg__const_i64s(cx, &v, 1, out);
  }
  olg_value v, c;
  OLG_TRY(olg__dim_tensor(cx, x, axis, &v));
  if (mul != 1) {
    OLG_TRY(olg__const_i64s(cx, &mul, 1, &c));
    OLG_TRY(olg__emit2(cx, "Mul", v, c, &v));
  }
  if (div != 1) {
    OLG_TRY(olg__const_i64s(cx, &div, 1, &c));
    OLG_TRY(olg__emit2(cx, "Div", v, c, &v));
  }
  *out = v;
  return OLG_OK;
}


olg_status olg__emit_rms_norm(olg_lower *cx, olg_value x, olg_value scale,
                              const olg_rms_norm_params *p, const char *decomposed, olg_value *out) {
  olg_dtype t = olg__dtype(cx, x);
  olg_value y;
  bool native = olg__op_takes(cx, "RMSNormalization", 0, t) &&
                (scale == OLG_NO_VALUE || olg__op_takes(cx, "RMSNormalization", 1, olg__dtype(cx, scale)));
  if (native) {
    olg_value s = scale;
    if (s == OLG_NO_VALUE) OLG_TRY(olg__const_like(cx, x, 1.0, &s)); /* broadcasts */
    olg_node_id nd;
    OLG_TRY(olg_lower_emit_begin(cx, "", "RMSNormalization", &nd));
    OLG_TRY(olg_lower_emit_input(cx, nd, x));
    OLG_TRY(olg_lower_emit_input(cx, nd, s));
    OLG_TRY(olg_lower_emit_attr_int(cx, nd, "axis", p->axis));
    OLG_TRY(olg_lower_emit_attr_float(cx, nd, "epsilon", p->eps));
    if (p->stash != OLG_FLOAT) OLG_TRY(olg_lower_emit_attr_int(cx, nd, "stash_type", p->stash));
    return olg_lower_emit_end(cx, nd, 1, out);
  }
  if (decomposed)
    OLG_TRY(olg_lower_decompose(cx, decomposed, olg__lowest_opset_taking("RMSNormalization", 0, t)));
  int32_t rank = olg__rank(cx, x);
  if (rank < 0 || p->axis < 0 || p->axis >= rank)
    return olg_lower_error(cx, OLG_ERR_UNSUPPORTED, "RMS normalization as its formula needs the "
                                                    "rank of the input known at export time");
  int64_t axes[OLG_MAX_RANK];
  size_t n = 0;
  for (int64_t a = p->axis; a < rank; a++) axes[n++] = a;
  olg_value xs, sq, ms, e, den;
  OLG_TRY(olg__emit_cast(cx, x, p->stash, &xs));
  OLG_TRY(olg__emit2(cx, "Mul", xs, xs, &sq));
  OLG_TRY(olg__emit_reduce(cx, OLG_REDUCE_MEAN, sq, axes, n, 1, &ms));
  OLG_TRY(olg__const_like(cx, xs, p->eps, &e));
  OLG_TRY(olg__emit2(cx, "Add", ms, e, &ms));
  OLG_TRY(olg__emit1(cx, "Sqrt", ms, &den));
  OLG_TRY(olg__emit2(cx, "Div", xs, den, &y));
  OLG_TRY(olg__emit_cast(cx, y, t, &y));
  if (scale == OLG_NO_VALUE) return (*out = y, OLG_OK);
  /* Y has scale's dtype (RMSNormalization's V) */
  OLG_TRY(olg__emit_cast(cx, y, olg__dtype(cx, scale), &y));
  return olg__emit2(cx, "Mul", y, scale, out);
}
