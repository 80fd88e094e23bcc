/* onnxlegal — interpolation by tables computed at conversion time (see emit_interp.h).
 *
 * ONNX Resize's tables follow what the spec defines and ONNX Runtime computes (float arithmetic
 * for the source coordinate, so that a nearest index lands where the runtime's does):
 *   half_pixel          (x + 0.5) / s - 0.5
 *   pytorch_half_pixel  out > 1 ? (x + 0.5) / s - 0.5 : 0
 *   align_corners       out == 1 ? 0 : x * (in - 1) / (out - 1)
 *   asymmetric          x / s
 *   tf_half_pixel_for_nn (x + 0.5) / s
 *   tf_crop_and_resize  out > 1 ? start * (in - 1) + x * (end - start) * (in - 1) / (out - 1)
 *                                : (start + end) / 2 * (in - 1); outside [0, in - 1]: the
 *                       extrapolation value
 *   half_pixel_symmetric in/2 * (1 - out / (s * in)) + (x + 0.5) / s - 0.5
 * with s the given scale, or out / in when sizes are given; the output size is sizes, or
 * floor(in * s). nearest rounds by nearest_mode and clamps; linear clamps the coordinate to
 * [0, in - 1] and blends floor and the next (clamped); cubic takes floor - 1 .. floor + 2 with
 * Keys' weights of coefficient A, clamped to the edge, or (exclude_outside) the outside taps
 * dropped and the rest renormalized. N-D linear and cubic are the products of the per-axis
 * weights, so one axis after the other computes them (to float rounding). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "emit_interp.h"
#include "../lib/lower.h"

static bool streq(const char *a, const char *b) { return strcmp(a, b) == 0; }

bool olg__interp_axis_identity(const olg_interp_axis *t) {
  if (t->in != t->out) return false;
  for (int64_t i = 0; i < t->out; i++) {
    if (t->valid && !t->valid[i]) return false;
    double wsum = 0;
    for (int k = 0; k < t->n_taps; k++) {
      int64_t j = t->idx[i * t->n_taps + k];
      double w = t->w ? t->w[i * t->n_taps + k] : 1.0;
      if (w != 0 && j != i) return false;
      wsum += w;
    }
    if (wsum != 1.0) return false;
  }
  return true;
}

/* The [out, in] matrix of a table (transposed: [in, out]) in dtype (float or double); rows of
 * invalid positions are zero. */
static olg_status axis_matrix(olg_lower *cx, const olg_interp_axis *t, olg_dtype dtype,
                              bool transposed, olg_value *out) {
  size_t n = (size_t)(t->in * t->out), esz = dtype == OLG_DOUBLE ? sizeof(double) : sizeof(float);
  void *m = olg__lower_alloc(cx, (n ? n : 1) * esz); /* zeroed */
  if (!m) return OLG_ERR_NOMEM;
  for (int64_t i = 0; i < t->out; i++) {
    if (t->valid && !t->valid[i]) continue;
    for (int k = 0; k < t->n_taps; k++) {
      int64_t j = t->idx[i * t->n_taps + k];
      size_t at = transposed ? (size_t)(j * t->out + i) : (size_t)(i * t->in + j);
      double w = t->w ? t->w[i * t->n_taps + k] : 1.0;
      if (dtype == OLG_DOUBLE) ((double *)m)[at] += w;
      else ((float *)m)[at] += (float)w; /* taps clamped onto one input add up */
    }
  }
  int64_t dims[2] = {transposed ? t->in : t->out, transposed ? t->out : t->in};
  return olg__const_tensor_kept(cx, dtype, 2, dims, m, n * esz, out);
}

/* The elements of an extrapolation term (one per output element, embedded) */
#define INTERP_MAX_TERM ((uint64_t)1 << 24)

/* extrapolation where any axis is invalid, 0 elsewhere, in the output's static shape */
static olg_status extrapolation_term(olg_lower *cx, const olg_interp_axis *t, int n, int32_t rank,
                                     const int64_t *odims, olg_dtype dtype, double v,
                                     olg_value *out) {
  uint64_t total;
  if (!olg__shape_numel(rank, odims, &total) || total > INTERP_MAX_TERM)
    return olg_lower_error(cx, OLG_ERR_LIMIT, "Resize: extrapolation over too large an output");
  size_t esz = dtype == OLG_DOUBLE ? sizeof(double) : sizeof(float);
  void *m = olg__lower_alloc(cx, (total ? total : 1) * esz);
  if (!m) return OLG_ERR_NOMEM;
  for (uint64_t f = 0; f < total; f++) {
    uint64_t rem = f;
    int64_t pos[OLG_MAX_RANK];
    for (int32_t d = rank - 1; d >= 0; d--) {
      pos[d] = (int64_t)(rem % (uint64_t)odims[d]);
      rem /= (uint64_t)odims[d];
    }
    bool valid = true;
    for (int a = 0; a < n && valid; a++)
      if (t[a].valid && !t[a].valid[pos[t[a].axis]]) valid = false;
    double e = valid ? 0.0 : v;
    if (dtype == OLG_DOUBLE) ((double *)m)[f] = e;
    else ((float *)m)[f] = (float)e;
  }
  return olg__const_tensor_kept(cx, dtype, rank, odims, m, (size_t)total * esz, out);
}

olg_status olg__emit_interp_tables(olg_lower *cx, olg_value x, const olg_interp_axis *t, int n,
                                   double extrapolation, int64_t max_matrix, int min_opset,
                                   olg_value *out) {
  int32_t rank = olg__rank(cx, x);
  if (rank < 1 || rank > OLG_MAX_RANK)
    return olg_lower_error(cx, OLG_ERR_UNSUPPORTED, "interpolation of an input of unknown rank");
  olg_dtype dt = olg__dtype(cx, x), ct = dt;
  bool matrices = false, any_invalid = false;
  for (int a = 0; a < n; a++) {
    if (olg__interp_axis_identity(&t[a])) continue;
    matrices = matrices || t[a].w || t[a].valid;
    any_invalid = any_invalid || t[a].valid;
    if ((t[a].w || t[a].valid) && t[a].in * t[a].out > max_matrix)
      return olg__unsupportedf(cx, min_opset, "an interpolation matrix of %lld x %lld elements "
                               "(axis %lld) is too large to embed", (long long)t[a].out,
                               (long long)t[a].in, (long long)t[a].axis);
  }
  olg_value v = x;
  if (matrices) {
    if (dt == OLG_FLOAT16 || dt == OLG_BFLOAT16) ct = OLG_FLOAT; /* rounded back at the end */
    else if (dt != OLG_FLOAT && dt != OLG_DOUBLE)
      return olg__unsupportedf(cx, min_opset, "interpolation by matrices of a %s tensor "
                               "(float types only)", olg_dtype_name(dt));
    OLG_TRY(olg__emit_cast(cx, v, ct, &v));
  }
  int64_t odims[OLG_MAX_RANK];
  for (int32_t d = 0; d < rank; d++) odims[d] = olg__dim(cx, x, d);
  for (int a = 0; a < n; a++) {
    const olg_interp_axis *ta = &t[a];
    int64_t ax = ta->axis;
    odims[ax] = ta->out;
    if (olg__interp_axis_identity(ta)) continue;
    if (!ta->w && !ta->valid) { /* nearest: a Gather of the source indices */
      olg_value idx;
      OLG_TRY(olg__const_i64s(cx, ta->idx, (size_t)ta->out, &idx));
      OLG_TRY(olg__emit_gather(cx, v, idx, ax, &v));
      continue;
    }
    olg_value m;
    if (ax == rank - 2) { /* M @ x: MatMul broadcasts the leading dims */
      OLG_TRY(axis_matrix(cx, ta, ct, false, &m));
      OLG_TRY(olg__emit2(cx, "MatMul", m, v, &v));
      continue;
    }
    int64_t perm[OLG_MAX_RANK];
    for (int32_t d = 0; d < rank; d++) perm[d] = d;
    perm[ax] = rank - 1;
    perm[rank - 1] = ax;
    if (ax != rank - 1) OLG_TRY(olg__emit_transpose(cx, v, perm, (size_t)rank, &v));
    OLG_TRY(axis_matrix(cx, ta, ct, true, &m)); /* x @ M^T on the last axis */
    OLG_TRY(olg__emit2(cx, "MatMul", v, m, &v));
    if (ax != rank - 1) OLG_TRY(olg__emit_transpose(cx, v, perm, (size_t)rank, &v));
  }
  if (any_invalid && extrapolation != 0) {
    bool known = true;
    for (int32_t d = 0; d < rank; d++) known = known && odims[d] >= 0;
    if (!known)
      return olg__unsupportedf(cx, min_opset, "an extrapolation value over an output whose "
                               "shape is not static");
    olg_value e;
    OLG_TRY(extrapolation_term(cx, t, n, rank, odims, ct, extrapolation, &e));
    OLG_TRY(olg__emit2(cx, "Add", v, e, &v));
  }
  return olg__emit_cast(cx, v, dt, out);
}

/* ---- ONNX Resize's tables ---- */

/* Resize by tables: the elements of one axis's matrix, the entries of all its tables */
#define RESIZE_MAX_MATRIX ((int64_t)1 << 24)
#define RESIZE_MAX_TABLE ((int64_t)1 << 24)

typedef struct resize_axis_in {
  const char *ctm, *mode, *nm;
  float s;             /* scale */
  int64_t in, out;
  float roi0, roi1;    /* tf_crop_and_resize */
  double a;            /* cubic coefficient */
  int exclude_outside;
  bool sizes;          /* the scale came from sizes: out / in */
  bool antialias;      /* Resize-18's antialias on an axis that shrinks */
} resize_axis_in;

/* x / s: by the scale, or when sizes are given as x * (in / out) (ONNX Runtime finds source 3.5
 * for output 2 of 7 -> 4, as in / out = 1.75 does, where a float division by 4/7 gives
 * 3.4999998: the nearest index at such a tie follows the runtime). */
static float by_scale(const resize_axis_in *r, float x) {
  return r->sizes ? x * ((float)r->in / (float)r->out) : x / r->s;
}

static float source_coord(const resize_axis_in *r, float x) {
  float s = r->s, L = (float)r->in, O = (float)r->out;
  if (streq(r->ctm, "half_pixel")) return by_scale(r, x + 0.5f) - 0.5f;
  if (streq(r->ctm, "pytorch_half_pixel")) return r->out > 1 ? by_scale(r, x + 0.5f) - 0.5f : 0.0f;
  if (streq(r->ctm, "align_corners")) return r->out == 1 ? 0.0f : x * (L - 1) / (O - 1);
  if (streq(r->ctm, "tf_half_pixel_for_nn")) return by_scale(r, x + 0.5f);
  if (streq(r->ctm, "tf_crop_and_resize"))
    return r->out > 1 ? r->roi0 * (L - 1) + x * (r->roi1 - r->roi0) * (L - 1) / (O - 1)
                      : 0.5f * (r->roi0 + r->roi1) * (L - 1);
  if (streq(r->ctm, "half_pixel_symmetric")) {
    float adj = O / (s * L), center = L / 2;
    return center * (1 - adj) + by_scale(r, x + 0.5f) - 0.5f;
  }
  return by_scale(r, x); /* asymmetric */
}

static int64_t nearest_index(const char *nm, float xo) {
  if (streq(nm, "floor")) return (int64_t)floorf(xo);
  if (streq(nm, "ceil")) return (int64_t)ceilf(xo);
  if (streq(nm, "round_prefer_ceil")) return (int64_t)roundf(xo);
  if (xo == (float)(int64_t)xo + 0.5f) return (int64_t)floorf(xo); /* round_prefer_floor */
  return (int64_t)roundf(xo);
}

static void cubic_coeffs(double s, double A, double c[4]) {
  s = fabs(s);
  c[0] = ((A * (s + 1) - 5 * A) * (s + 1) + 8 * A) * (s + 1) - 4 * A;
  c[1] = ((A + 2) * s - (A + 3)) * s * s + 1;
  c[2] = ((A + 2) * (1 - s) - (A + 3)) * (1 - s) * (1 - s) + 1;
  c[3] = ((A * (2 - s) - 5 * A) * (2 - s) + 8 * A) * (2 - s) - 4 * A;
}

/* Resize-18's antialias filters (Pillow's, as ONNX Runtime takes them): the triangle for linear,
 * the cubic kernel with coefficient a for cubic. */
static float aa_filter(bool cubic, float a, float x) {
  if (x < 0.0f) x = -x;
  if (!cubic) return x < 1.0f ? 1.0f - x : 0.0f;
  if (x < 1.0f) return ((a + 2.0f) * x - (a + 3.0f)) * x * x + 1;
  if (x < 2.0f) return (((x - 5.0f) * x + 8.f) * x - 4.f) * a;
  return 0.0f;
}

/* The tables of one Resize are built at conversion time, out x taps (index, weight) entries per
 * axis, before olg__emit_interp_tables bounds what it embeds: their sum is bounded by
 * RESIZE_MAX_TABLE first, or a Resize to 2^24 on several axes (each within the per-axis range)
 * allocates gigabytes before any refusal. *budget: the entries the Resize has left. */
static olg_status table_budget(olg_lower *cx, const resize_axis_in *r, int64_t axis, int64_t taps,
                               int64_t *budget) {
  if (r->out > *budget / taps)
    return olg__unsupportedf(cx, 11, "Resize whose conversion-time tables hold more than "
                             "the %lld entries the decomposition embeds (axis %lld: %lld "
                             "positions x %lld taps)", (long long)RESIZE_MAX_TABLE,
                             (long long)axis, (long long)r->out, (long long)taps);
  *budget -= r->out * taps;
  return OLG_OK;
}

/* An axis that shrinks with antialias: the filter widened by 1 / scale over the taps around each
 * source coordinate, normalized to sum 1; without exclude_outside the taps outside the input are
 * folded onto the edge taps. The windows and float arithmetic follow ONNX Runtime's. */
static olg_status antialias_table(olg_lower *cx, const resize_axis_in *r, olg_interp_axis *t,
                                  int64_t *budget) {
  int64_t L = r->in, O = r->out;
  bool cubic = streq(r->mode, "cubic");
  float rscale = r->sizes ? (float)r->out / (float)r->in : r->s, scale = 1.0f / rscale;
  float support = (scale >= 1.0f ? (cubic ? 2.0f : 1.0f) * scale : (cubic ? 2.0f : 1.0f));
  float inv_scale = scale >= 1.0f ? 1.0f / scale : 1.0f;
  int64_t win = (int64_t)ceilf(support) * 2 + 1;
  if (win > 4096) return olg_lower_error(cx, OLG_ERR_LIMIT, "Resize: antialias window too large");
  OLG_TRY(table_budget(cx, r, t->axis, win, budget));
  float *buf = olg__lower_alloc(cx, (size_t)win * sizeof *buf);
  t->in = L;
  t->out = O;
  t->n_taps = (int)win;
  t->idx = olg__lower_alloc(cx, (size_t)(O * win) * sizeof *t->idx);
  t->w = olg__lower_alloc(cx, (size_t)(O * win) * sizeof *t->w);
  t->valid = NULL;
  if (!buf || !t->idx || !t->w) return OLG_ERR_NOMEM;
  for (int64_t i = 0; i < O; i++) {
    float center = 0.5f + (scale == 1.0f ? (float)i : source_coord(r, (float)i));
    int64_t xmin_real = (int64_t)floorf(center - support + 0.5f);
    int64_t xmax_real = (int64_t)floorf(center + support + 0.5f);
    int64_t span = xmax_real - xmin_real;
    xmax_real = xmin_real + (span < 0 ? 0 : span > win ? win : span);
    int64_t xmin_cut = xmin_real < 0 ? 0 : xmin_real > L ? L : xmin_real;
    int64_t xmax_cut = xmax_real < 0 ? 0 : xmax_real > L ? L : xmax_real;
    int64_t xmin = r->exclude_outside ? xmin_cut : xmin_real;
    int64_t len = (r->exclude_outside ? xmax_cut : xmax_real) - xmin;
    float total = 0.0f;
    for (int64_t x = 0; x < win; x++) buf[x] = 0.0f;
    for (int64_t x = 0; x < len; x++) {
      float w = aa_filter(cubic, (float)r->a, ((float)(x + xmin) - center + 0.5f) * inv_scale);
      buf[x] = w;
      total += w;
    }
    if (!r->exclude_outside && xmin_cut < xmax_cut) {
      int64_t neg = -xmin < 0 ? 0 : -xmin > len - 1 ? len - 1 : -xmin;
      for (int64_t x = 0; x < neg; x++) buf[neg] += buf[x];
      int64_t bnd = len + xmin - L < 0 ? 0 : len + xmin - L > len - 1 ? len - 1 : len + xmin - L;
      for (int64_t x = len - bnd; x < len; x++) buf[len - bnd - 1] += buf[x];
      for (int64_t x = 0; (neg | bnd) > 0 && x < xmax_cut - xmin_cut; x++) buf[x] = buf[x + neg];
    }
    float inv_total = total == 0.0f ? 1.0f : 1.0f / total;
    for (int64_t k = 0; k < win; k++) {
      bool in = k < xmax_cut - xmin_cut;
      t->idx[i * win + k] = in ? xmin_cut + k : 0;
      t->w[i * win + k] = in ? (double)(buf[k] * inv_total) : 0.0;
    }
  }
  return OLG_OK;
}

static olg_status resize_table(olg_lower *cx, const resize_axis_in *r, olg_interp_axis *t,
                               int64_t *budget) {
  bool nearest = streq(r->mode, "nearest"), linear = streq(r->mode, "linear");
  bool crop = streq(r->ctm, "tf_crop_and_resize");
  int64_t L = r->in, O = r->out;
  /* an axis interpolated by a matrix that cannot be the identity (in != out) is refused by
   * olg__emit_interp_tables past RESIZE_MAX_MATRIX anyway: refused before its tables */
  if ((r->antialias || crop || !nearest) && L != O && L * O > RESIZE_MAX_MATRIX)
    return olg__unsupportedf(cx, 11, "an interpolation matrix of %lld x %lld elements (axis %lld) "
                             "is too large to embed", (long long)O, (long long)L,
                             (long long)t->axis);
  if (r->antialias) return antialias_table(cx, r, t, budget);
  t->in = L;
  t->out = O;
  t->n_taps = nearest ? 1 : linear ? 2 : 4;
  OLG_TRY(table_budget(cx, r, t->axis, t->n_taps, budget));
  t->idx = olg__lower_alloc(cx, (size_t)(O * t->n_taps) * sizeof *t->idx);
  t->w = nearest ? NULL : olg__lower_alloc(cx, (size_t)(O * t->n_taps) * sizeof *t->w);
  t->valid = crop ? olg__lower_alloc(cx, (size_t)O * sizeof *t->valid) : NULL;
  if (!t->idx || (!nearest && !t->w) || (crop && !t->valid)) return OLG_ERR_NOMEM;
  for (int64_t i = 0; i < O; i++) {
    float xo = source_coord(r, (float)i);
    if (crop) {
      t->valid[i] = xo >= 0 && xo <= (float)(L - 1); /* a NaN (from a NaN roi) is outside: never cast */
      if (!t->valid[i]) { /* the row stays zero: any in-range taps */
        for (int k = 0; k < t->n_taps; k++) {
          t->idx[i * t->n_taps + k] = 0;
          if (t->w) t->w[i * t->n_taps + k] = 0;
        }
        continue;
      }
    }
    if (nearest) {
      int64_t j = nearest_index(r->nm, xo);
      t->idx[i] = j < 0 ? 0 : j > L - 1 ? L - 1 : j;
    } else if (linear) {
      float c = xo < 0 ? 0.0f : xo > (float)(L - 1) ? (float)(L - 1) : xo;
      int64_t i1 = (int64_t)c < L - 1 ? (int64_t)c : L - 1, i2 = i1 + 1 < L - 1 ? i1 + 1 : L - 1;
      float d1 = fabsf(c - (float)i1), d2 = fabsf(c - (float)i2);
      if (i1 == i2) d1 = d2 = 0.5f;
      t->idx[2 * i] = i1;
      t->idx[2 * i + 1] = i2;
      t->w[2 * i] = d2;
      t->w[2 * i + 1] = d1;
    } else {
      double fl = floor((double)xo), c[4], sum = 0;
      cubic_coeffs((double)xo - fl, r->a, c);
      for (int k = 0; k < 4; k++) {
        int64_t j = (int64_t)fl - 1 + k;
        bool inside = j >= 0 && j <= L - 1;
        if (r->exclude_outside && !inside) c[k] = 0;
        sum += c[k];
        t->idx[4 * i + k] = j < 0 ? 0 : j > L - 1 ? L - 1 : j;
      }
      for (int k = 0; k < 4; k++) t->w[4 * i + k] = r->exclude_outside && sum != 0 ? c[k] / sum : c[k];
    }
  }
  return OLG_OK;
}

/* A known float/double/float16 tensor's n values as floats; false when not known. */
static bool known_floats(olg_lower *cx, olg_value v, float *out, size_t n) {
  const olg_tensor *t = v == OLG_NO_VALUE ? NULL : olg__known(cx, v);
  if (!t || !t->data) return false;
  if (t->dtype == OLG_FLOAT && t->nbytes == 4 * n) {
    memcpy(out, t->data, 4 * n);
    return true;
  }
  if (t->dtype == OLG_DOUBLE && t->nbytes == 8 * n) {
    for (size_t i = 0; i < n; i++) { /* at any alignment (data as a file put it) */
      double d;
      memcpy(&d, (const char *)t->data + 8 * i, 8);
      out[i] = (float)d;
    }
    return true;
  }
  return false;
}

/* Sizes computed at run time from x's own shape on some axes (torch writes Concat(Shape(x)[:2],
 * [H, W]) for a dynamic batch): known where inference knows the number, and on an axis whose
 * element is x's own symbolic dim there, the input's size kept (same[d]). */
static bool sizes_from_shape(olg_lower *cx, olg_value x, olg_value sizes, size_t n, int64_t *sz,
                             bool *same) {
  const olg_value_rec *sr = &cx->dst->values[sizes];
  const olg_value_rec *xr = &cx->dst->values[x];
  const olg_dim *sym = olg__value_sym(sr);
  if (!sym || olg__value_n_sym(sr) != n) return false;
  for (size_t d = 0; d < n; d++) {
    const olg_dim *e = &sym[d], *xd = &xr->type.dims[d];
    same[d] = false;
    if (e->param) {
      if (!xd->param || strcmp(xd->param, e->param)) return false;
      same[d] = true;
      sz[d] = -1;
    } else if (e->value >= 0) {
      sz[d] = e->value;
    } else {
      return false;
    }
  }
  return true;
}

olg_status olg__emit_resize_tables(olg_lower *cx, olg_value x, const olg_resize_params *p,
                                   olg_value *out) {
  int64_t dims[OLG_MAX_RANK];
  int32_t rank = olg__rank(cx, x);
  if (rank < 1 || rank > OLG_MAX_RANK)
    return olg_lower_unsupported(cx, "Resize of an input whose rank is not known (decomposed "
                                     "with tables computed from its shape)", 11);
  /* an axis of unknown size is fine where the resize keeps it (a dynamic batch) */
  for (int32_t d = 0; d < rank; d++) dims[d] = olg__dim(cx, x, d);
  size_t n = (size_t)rank;
  float sc[OLG_MAX_RANK], roi[2 * OLG_MAX_RANK];
  int64_t sz[OLG_MAX_RANK];
  bool has_sizes = false, same[OLG_MAX_RANK] = {false};
  if (p->scales) {
    if (p->n != n) return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "Resize: scales do not match the rank");
    memcpy(sc, p->scales, n * sizeof *sc);
  } else if (p->sizes) {
    if (p->n != n) return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "Resize: sizes do not match the rank");
    memcpy(sz, p->sizes, n * sizeof *sz);
    has_sizes = true;
  } else if (p->sizes_v != OLG_NO_VALUE) {
    const int64_t *k;
    size_t nk;
    if (olg__known_ints(cx, p->sizes_v, &k, &nk)) {
      if (nk != n) return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "Resize: sizes do not match the rank");
      memcpy(sz, k, n * sizeof *sz);
    } else if (!sizes_from_shape(cx, x, p->sizes_v, n, sz, same)) {
      return olg__emit_resize_runtime(cx, x, p, "Resize to sizes computed at run time", out);
    }
    has_sizes = true;
  } else if (!known_floats(cx, p->scales_v, sc, n)) {
    return olg__emit_resize_runtime(cx, x, p, "Resize with scales computed at run time", out);
  }
  const char *ctm = p->coordinate_transformation_mode && *p->coordinate_transformation_mode
                        ? p->coordinate_transformation_mode : "half_pixel";
  bool crop = streq(ctm, "tf_crop_and_resize");
  if (crop && p->antialias)
    return olg_lower_unsupported(cx, "Resize with antialias and tf_crop_and_resize (decomposed)", 18);
  if (crop && !known_floats(cx, p->roi_v, roi, 2 * n))
    return olg__emit_resize_runtime(cx, x, p, "Resize with tf_crop_and_resize and a roi computed "
                                    "at run time", out);
  /* every axis's sizes first, then their tables: tf_crop_and_resize's extrapolation term spans
     the whole output, bounded before a table is built (one of 2^24 positions took a second) */
  resize_axis_in ra[OLG_MAX_RANK];
  int32_t axes[OLG_MAX_RANK];
  int nt = 0;
  uint64_t numel = 1;
  bool numel_known = true, extrapolates = false;
  for (int32_t d = 0; d < rank; d++) {
    if (same[d] || (dims[d] < 0 && !crop && !has_sizes && sc[d] == 1.0f)) { /* kept */
      numel_known = numel_known && dims[d] >= 0;
      if (numel_known && !olg__mul_u64(numel, (uint64_t)dims[d], &numel)) numel = UINT64_MAX;
      continue;
    }
    if (dims[d] < 0) {
      char what[96];
      snprintf(what, sizeof what, "Resize along axis %d, whose size is not known at export time",
               (int)d);
      return olg__emit_resize_runtime(cx, x, p, what, out);
    }
    resize_axis_in r = {ctm, p->mode && *p->mode ? p->mode : "nearest",
                        p->nearest_mode && *p->nearest_mode ? p->nearest_mode : "round_prefer_floor",
                        0, dims[d], 0, 0, 1, p->cubic_coeff_a ? p->cubic_coeff_a : -0.75,
                        p->exclude_outside, false, false};
    if (has_sizes) {
      r.out = sz[d];
      r.s = (float)sz[d] / (float)dims[d];
      r.sizes = true;
    } else {
      r.s = sc[d];
      float o = sc[d] * (float)dims[d];
      if (!(o >= 0) || o > 9e15f) return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "Resize: bad scale");
      r.out = p->out_sizes ? p->out_sizes[d] : (int64_t)o;
    }
    if (r.out <= 0 || dims[d] <= 0 || r.out > ((int64_t)1 << 24) || dims[d] > ((int64_t)1 << 24))
      return olg__errf(cx, OLG_ERR_LIMIT, "Resize: axis %d from %lld to %lld is out of the range "
                       "of the decomposition", d, (long long)dims[d], (long long)r.out);
    r.antialias = p->antialias && !streq(r.mode, "nearest") && (r.sizes ? r.out < r.in : r.s < 1.0f);
    if (crop) {
      r.roi0 = roi[d];
      r.roi1 = roi[n + (size_t)d];
    }
    if (!olg__mul_u64(numel, (uint64_t)r.out, &numel)) numel = UINT64_MAX;
    if (!crop && r.out == r.in && r.s == 1.0f) continue; /* every mode maps x to x */
    /* an axis that changes size, or whose roi reaches outside the input, is not the identity:
       its table needs the extrapolation term (source_coord is monotonic in x, so its ends say
       whether any position falls outside) */
    if (crop && !extrapolates && p->extrapolation_value != 0) {
      float lo = source_coord(&r, 0.0f), hi = source_coord(&r, (float)(r.out - 1));
      float top = (float)(r.in - 1);
      extrapolates = r.out != r.in || !(lo >= 0 && lo <= top && hi >= 0 && hi <= top);
    }
    axes[nt] = d;
    ra[nt++] = r;
  }
  if (extrapolates && numel_known && numel > INTERP_MAX_TERM)
    return olg__unsupportedf(cx, 11, "Resize with tf_crop_and_resize and an extrapolation value "
                             "over an output of %llu elements (the decomposition embeds at most "
                             "%lld)", (unsigned long long)numel, (long long)INTERP_MAX_TERM);
  olg_interp_axis t[OLG_MAX_RANK];
  int64_t budget = RESIZE_MAX_TABLE;
  for (int k = 0; k < nt; k++) {
    t[k].axis = axes[k];
    OLG_TRY(resize_table(cx, &ra[k], &t[k], &budget));
  }
  OLG_TRY(olg_lower_decompose(cx, "Resize by index and weight tables computed at conversion time "
                                  "(Gather / MatMul per axis)", 11));
  return olg__emit_interp_tables(cx, x, t, nt, p->extrapolation_value, RESIZE_MAX_MATRIX, 11, out);
}

/* keep_aspect_ratio_policy below 18 with sizes or resized dims known only at run time: the
 * model computes the policy's scale and sizes in ONNX Runtime's float steps (sizes[i] / in,
 * ReduceMin / ReduceMax, round(scale * in) halves up), spread over every axis (scale 1 and the
 * input's size elsewhere); both go to the run-time tables (emit_encode.c), as a Resize with
 * these sizes would take out / in as its scale, not the policy's */
static olg_status keep_aspect_runtime(olg_lower *cx, olg_value x, olg_value sizes,
                                      const int64_t *axes, size_t na, const char *policy,
                                      olg_resize_params *p) {
  int32_t rank = olg__rank(cx, x);
  if (!axes) na = (size_t)rank;
  if (na < 1 || na > (size_t)rank)
    return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "Resize: sizes do not match the axes");
  int64_t ax[OLG_MAX_RANK], zero = 0;
  float ones[OLG_MAX_RANK];
  for (size_t i = 0; i < na; i++) {
    ax[i] = axes ? olg__norm_axis(axes[i], rank) : (int64_t)i;
    if (ax[i] < 0) return olg__axes_error(cx, "Resize", axes + i, 1, rank);
  }
  for (int32_t i = 0; i < rank; i++) ones[i] = 1;
  olg_value idx, shp, in, sz, s, t, fl, up, half, base;
  OLG_TRY(olg__const_i64s(cx, ax, na, &idx));
  OLG_TRY(olg__shape(cx, x, &shp));
  OLG_TRY(olg__emit_gather(cx, shp, idx, 0, &in));
  OLG_TRY(olg__emit_cast(cx, in, OLG_FLOAT, &in));
  OLG_TRY(olg__emit_cast(cx, sizes, OLG_FLOAT, &sz));
  OLG_TRY(olg__emit2(cx, "Div", sz, in, &t));
  OLG_TRY(olg__emit_reduce(cx, strcmp(policy, "not_larger") == 0 ? OLG_REDUCE_MIN : OLG_REDUCE_MAX,
                           t, &zero, 1, 1, &s));
  /* round of a positive product, halves up: floor plus (fraction >= 0.5), the fraction exact */
  OLG_TRY(olg__emit2(cx, "Mul", s, in, &t));
  OLG_TRY(olg__emit1(cx, "Floor", t, &fl));
  OLG_TRY(olg__emit2(cx, "Sub", t, fl, &t));
  OLG_TRY(olg__const_scalar(cx, OLG_FLOAT, 0.5, &half));
  OLG_TRY(olg__emit2(cx, "Less", t, half, &up));
  OLG_TRY(olg__emit1(cx, "Not", up, &up));
  OLG_TRY(olg__emit_cast(cx, up, OLG_FLOAT, &up));
  OLG_TRY(olg__emit2(cx, "Add", fl, up, &t));
  OLG_TRY(olg__emit_cast(cx, t, OLG_INT64, &t));
  OLG_TRY(olg__emit_scatter_elements(cx, shp, idx, t, 0, NULL, &p->sizes_v));
  OLG_TRY(olg__const_f32s(cx, ones, na, &t));
  OLG_TRY(olg__emit2(cx, "Mul", s, t, &t));
  OLG_TRY(olg__const_f32s(cx, ones, (size_t)rank, &base));
  OLG_TRY(olg__emit_scatter_elements(cx, base, idx, t, 0, NULL, &p->scales_v));
  p->n = (size_t)rank;
  return OLG_OK;
}

/* Resize-18's keep_aspect_ratio_policy (not_larger / not_smaller) over constant sizes and an
 * input whose resized dims are known: one scale for every resized axis, the min (max) of
 * sizes[i] / in[d] in float, and out[d] = round(scale * in[d]) (halves up), as ONNX Runtime
 * computes them; the coordinates follow that scale. Resolved here to constant scales (1 on the
 * other axes) and, where round differs from the floor a scale gives, the output sizes too. */
olg_status olg__resize_keep_aspect(olg_lower *cx, olg_value x, olg_value sizes, const int64_t *axes,
                                  size_t na, const char *policy, olg_resize_params *p) {
  int32_t rank = olg__rank(cx, x);
  const int64_t *sz;
  size_t nsz;
  /* with tf_crop_and_resize's roi it is left to Resize-18 itself */
  bool known = rank >= 1 && rank <= OLG_MAX_RANK && !p->has_roi && olg__known_ints(cx, sizes, &sz, &nsz);
  for (size_t i = 0; known && i < (axes ? na : (size_t)rank); i++) {
    int64_t d = axes ? olg__norm_axis(axes[i], rank) : (int64_t)i;
    known = d < 0 || olg__dim(cx, x, (int32_t)d) > 0;
  }
  if (!known && !olg__target_has_attr(cx, "Resize", "keep_aspect_ratio_policy")) {
    /* before Resize-18 the model computes it (keep_aspect_runtime) */
    if (p->has_roi || rank < 1 || rank > OLG_MAX_RANK)
      return olg_lower_unsupported(cx, p->has_roi ? "Resize with keep_aspect_ratio_policy and "
                                                    "tf_crop_and_resize"
                                                  : "Resize with keep_aspect_ratio_policy of an "
                                                    "input of unknown rank", 18);
    return keep_aspect_runtime(cx, x, sizes, axes, na, policy, p);
  }
  if (!known) { /* Resize-18 computes it at run time */
    p->keep_aspect = policy;
    p->axes = axes;
    p->n_axes = axes ? na : 0;
    p->sizes_v = sizes;
    return OLG_OK;
  }
  if (!axes) na = (size_t)rank;
  if (nsz != na) return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "Resize: sizes do not match the axes");
  float *sc = olg__lower_alloc(cx, (size_t)rank * sizeof *sc);
  int64_t *out = olg__lower_alloc(cx, (size_t)rank * sizeof *out);
  if (!sc || !out) return OLG_ERR_NOMEM;
  bool larger = strcmp(policy, "not_larger") == 0;
  float s = larger ? INFINITY : 0;
  for (size_t i = 0; i < na; i++) {
    int64_t d = axes ? olg__norm_axis(axes[i], rank) : (int64_t)i;
    if (d < 0) return olg__axes_error(cx, "Resize", axes + i, 1, rank);
    int64_t in = olg__dim(cx, x, (int32_t)d);
    if (in <= 0)
      return olg_lower_unsupported(cx, "Resize with keep_aspect_ratio_policy of an input whose "
                                       "resized dims are not known", -1);
    float r = (float)sz[i] / (float)in;
    s = larger ? fminf(s, r) : fmaxf(s, r);
  }
  for (int32_t d = 0; d < rank; d++) {
    sc[d] = 1;
    out[d] = olg__dim(cx, x, d);
  }
  for (size_t i = 0; i < na; i++) {
    int64_t d = axes ? olg__norm_axis(axes[i], rank) : (int64_t)i;
    sc[d] = s;
    out[d] = (int64_t)roundf(s * (float)olg__dim(cx, x, (int32_t)d));
  }
  p->scales = sc;
  p->out_sizes = out;
  p->n = (size_t)rank;
  return OLG_OK;
}

/* Resize-18's axes: scales or sizes given for `axes` only, spelled out for every axis of x (1,
 * or the input's dim, elsewhere): folded when they and the shape are known, else scattered at
 * run time into ones or Shape(x) (ScatterElements). */
olg_status olg__resize_spread_axes(olg_lower *cx, olg_value x, olg_value scales, olg_value sizes,
                                   const int64_t *axes, size_t na, olg_resize_params *p) {
  int opset = olg__opset(cx);
  int32_t rank = olg__rank(cx, x);
  if (rank < 0 || rank > OLG_MAX_RANK)
    return olg_lower_unsupported(cx, "Resize with axes of an input of unknown rank", -1);
  if (na > (size_t)rank) return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "Resize: more axes than dims");
  int64_t ax[OLG_MAX_RANK];
  for (size_t i = 0; i < na; i++) {
    ax[i] = olg__norm_axis(axes[i], rank);
    if (ax[i] < 0) return olg__axes_error(cx, "Resize", axes + i, 1, rank);
  }
  const olg_tensor *t = scales != OLG_NO_VALUE ? olg__known(cx, scales) : NULL;
  const int64_t *sz;
  size_t nsz;
  if (scales != OLG_NO_VALUE && t && t->dtype == OLG_FLOAT && t->data && t->nbytes / 4 == na) {
    float *full = olg__lower_alloc(cx, (size_t)rank * sizeof *full);
    if (!full) return OLG_ERR_NOMEM;
    for (int32_t i = 0; i < rank; i++) full[i] = 1;
    for (size_t i = 0; i < na; i++) memcpy(&full[ax[i]], (const char *)t->data + 4 * i, 4);
    p->scales = full;
    p->n = (size_t)rank;
    return OLG_OK;
  }
  int64_t dims[OLG_MAX_RANK];
  int32_t r2;
  if (scales == OLG_NO_VALUE && sizes != OLG_NO_VALUE && olg__known_ints(cx, sizes, &sz, &nsz) &&
      nsz == na && olg__static_shape(cx, x, dims, &r2)) {
    int64_t *full = olg__lower_alloc(cx, (size_t)rank * sizeof *full);
    if (!full) return OLG_ERR_NOMEM;
    memcpy(full, dims, (size_t)rank * sizeof *full);
    for (size_t i = 0; i < na; i++) full[ax[i]] = sz[i];
    p->sizes = full;
    p->n = (size_t)rank;
    return OLG_OK;
  }
  /* at run time: scattered (Scatter from 9); below 11 the resize itself is then computed by
   * run-time tables (emit_interp_rt.c) where Upsample-9 / Resize-10 cannot express it */
  if (opset < 9)
    return olg_lower_unsupported(cx, "Resize with axes and run-time scales or sizes", 9);
  olg_value base, idx, v;
  OLG_TRY(olg__const_i64s(cx, ax, na, &idx));
  if (scales != OLG_NO_VALUE) {
    float ones[OLG_MAX_RANK];
    for (int32_t i = 0; i < rank; i++) ones[i] = 1;
    OLG_TRY(olg__const_f32s(cx, ones, (size_t)rank, &base));
    OLG_TRY(olg__emit_cast(cx, scales, OLG_FLOAT, &v));
    return olg__emit_scatter_elements(cx, base, idx, v, 0, NULL, &p->scales_v);
  }
  OLG_TRY(olg__shape(cx, x, &base));
  OLG_TRY(olg__emit_cast(cx, sizes, OLG_INT64, &v));
  return olg__emit_scatter_elements(cx, base, idx, v, 0, NULL, &p->sizes_v);
}
