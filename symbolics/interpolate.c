/* onnxlegal — interpolation: upsample_nearest1d/2d/3d, upsample_linear1d, upsample_bilinear2d,
 * upsample_trilinear3d, upsample_bicubic2d. Both aten overloads of each are accepted:
 *
 *   upsample_bilinear2d(Tensor self, int[2] output_size, bool align_corners,
 *                       float? scales_h=None, float? scales_w=None)
 *   upsample_bilinear2d.vec(Tensor input, int[]? output_size, bool align_corners,
 *                           float[]? scale_factors)
 *
 * (nearest has no align_corners). They are told apart by the kind of the first scale argument:
 * a list is the .vec overload, a float (or none) one scale per spatial dim.
 *
 * What PyTorch 1.13 computes (aten/src/ATen/native/UpSample.h, UpSampleKernel.cpp), per spatial
 * axis, in the input's precision (float for float inputs, double for double):
 *   output size  = output_size, else floor(in * scale) in double;
 *   ratio        = align_corners ? (in-1)/(out-1) (0 when out == 1)
 *                : scale given ? 1/scale : in/out;
 *   nearest      src = min(floor(ratio * dst), in - 1);
 *   linear       src = align_corners ? ratio * dst : max(ratio * (dst + 0.5) - 0.5, 0), taps
 *                floor(src) and the next one (clamped), weights 1 - frac, frac; an axis whose
 *                size does not change is copied;
 *   cubic        src as linear without the clamp at 0, four taps floor(src)-1 .. floor(src)+2
 *                clamped to the edge, Keys weights with A = -0.75.
 *
 * Lowering. Where every spatial size is known at export time, the index and weight tables are
 * computed here exactly as above, so the choice of encoding can be checked, not hoped for:
 * - nearest: Resize (opset >= 11, asymmetric coordinates, floor) or Upsample / Resize-10 (opsets
 *   7-10, scales chosen so that floor(in * scale) is the wanted size) when the runtime's index
 *   formula (dst / scale, rounded down) reproduces PyTorch's table; otherwise a Gather of the
 *   computed indices per axis (exact at every opset).
 * - linear / cubic: Resize from opset 11 (coordinate mode align_corners, or half_pixel: it is
 *   pytorch_half_pixel except for an output of length 1, where only half_pixel agrees with
 *   PyTorch), with sizes, or with the given scales when PyTorch's ratio is 1/scale and not
 *   in/out. Opsets 7-10 have no encoding of PyTorch's coordinates: an exact decomposition into
 *   one MatMul per axis with the interpolation matrix (DESIGN.md §4).
 * Where the spatial sizes are only known at run time, Resize (>= 11) takes the sizes or scales
 * as tensors; below 11 only nearest with integer scales is expressible (Upsample). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "emit.h"
#include "symbolics.h"

enum { INTERP_NEAREST, INTERP_LINEAR, INTERP_CUBIC };

/* The most output elements along one axis for which tables are computed here. */
#define INTERP_MAX_AXIS_LEN ((int64_t)1 << 24)
/* The most elements of one interpolation matrix embedded as a constant (64 MiB of float). */
#define INTERP_MAX_MATRIX ((int64_t)1 << 24)

typedef struct interp {
  bool resize11; /* Resize-11 (PyTorch's coordinates, sizes) is there: the target's schema */
  int mode, ns; /* INTERP_*, number of spatial dims (1..3) */
  int align_corners;
  olg_value x;
  bool dbl;               /* double input: PyTorch computes the tables in double */
  int64_t in[3];          /* spatial input dims, OLG_DIM_UNKNOWN when not known */
  bool in_static;         /* every spatial input dim known */
  bool has_sizes;         /* output_size given */
  bool sizes_known;       /* ... and known at export time (out[] valid) */
  olg_value sizes_v;      /* output_size as a 1-D int64 tensor when not known */
  bool has_scale[3];      /* scale given (> 0) for that axis */
  double scale[3];
  int64_t out[3];         /* output dims when known */
} interp;

static const char *mode_name(int mode) {
  return mode == INTERP_NEAREST ? "nearest" : mode == INTERP_LINEAR ? "linear" : "cubic";
}

/* ---- arguments ---- */

static olg_status parse_scales(olg_lower *cx, size_t s0, interp *ip) {
  int k = olg_lower_arg_kind(cx, s0);
  if (k == OLG_ARGKIND_FLOATS || k == OLG_ARGKIND_INTS) { /* .vec: float[]? scale_factors */
    const double *p;
    size_t n;
    OLG_TRY(olg_lower_arg_floats(cx, s0, &p, &n));
    if (n != (size_t)ip->ns)
      return olg__errf(cx, OLG_ERR_INVALID_ARG, "scale_factors has %zu entries for %d spatial dims",
                       n, ip->ns);
    for (int a = 0; a < ip->ns; a++) {
      ip->has_scale[a] = p[a] > 0;
      ip->scale[a] = p[a];
    }
    return OLG_OK;
  }
  for (int a = 0; a < ip->ns; a++) { /* float? scales_d / scales_h / scales_w */
    double s;
    OLG_TRY(olg__arg_float_or(cx, s0 + (size_t)a, 0, &s));
    ip->has_scale[a] = s > 0;
    ip->scale[a] = s;
  }
  return OLG_OK;
}

static olg_status parse(olg_lower *cx, int mode, int ns, interp *ip) {
  memset(ip, 0, sizeof *ip);
  ip->mode = mode;
  ip->ns = ns;
  ip->sizes_v = OLG_NO_VALUE;
  OLG_TRY(olg_lower_arg_value(cx, 0, &ip->x));
  int32_t rank = olg__rank(cx, ip->x);
  if (rank != ns + 2)
    return olg__errf(cx, OLG_ERR_INVALID_ARG, "expects a %d-D input (N, C, %d spatial dims), got %s",
                     ns + 2, ns, rank < 0 ? "an input of unknown rank" : "another rank");
  olg_dtype t = olg__dtype(cx, ip->x);
  ip->dbl = t == OLG_DOUBLE;
  if (mode != INTERP_NEAREST && !olg__is_float(t))
    return olg__errf(cx, OLG_ERR_TYPE, "%s interpolation of a %s tensor (PyTorch interpolates "
                     "floating-point tensors only)", mode_name(mode), olg_dtype_name(t));
  ip->in_static = true;
  for (int a = 0; a < ns; a++) {
    ip->in[a] = olg__dim(cx, ip->x, 2 + a);
    ip->in_static = ip->in_static && ip->in[a] >= 0;
  }
  if (mode != INTERP_NEAREST) OLG_TRY(olg__arg_bool_or(cx, 2, 0, &ip->align_corners));
  OLG_TRY(parse_scales(cx, mode == INTERP_NEAREST ? 2 : 3, ip));

  if (!olg_lower_arg_is_none(cx, 1)) {
    olg_value sv;
    const int64_t *p;
    size_t n;
    ip->has_sizes = true;
    OLG_TRY(olg_lower_arg_as_tensor(cx, 1, OLG_INT64, &sv));
    if (olg__known_ints(cx, sv, &p, &n)) {
      if (n != (size_t)ns)
        return olg__errf(cx, OLG_ERR_INVALID_ARG, "output_size has %zu entries for %d spatial dims",
                         n, ns);
      for (int a = 0; a < ns; a++) {
        if (p[a] <= 0)
          return olg__errf(cx, OLG_ERR_INVALID_ARG, "output_size[%d] is %lld; it must be positive",
                           a, (long long)p[a]);
        ip->out[a] = p[a];
      }
      ip->sizes_known = true;
    } else {
      if (olg__rank(cx, sv) != 1 || olg__dim(cx, sv, 0) != ns)
        return olg__errf(cx, OLG_ERR_INVALID_ARG, "output_size must hold %d sizes", ns);
      ip->sizes_v = sv;
    }
  } else {
    for (int a = 0; a < ns; a++)
      if (!ip->has_scale[a])
        return olg__errf(cx, OLG_ERR_INVALID_ARG,
                         "neither output_size nor a positive scale is given for spatial dim %d", a);
    if (ip->in_static) {
      ip->sizes_known = true;
      for (int a = 0; a < ns; a++) { /* PyTorch: (int64_t)(double(in) * scale) */
        double o = floor((double)ip->in[a] * ip->scale[a]);
        if (o < 1 || o > 9.2e18)
          return olg__errf(cx, OLG_ERR_INVALID_ARG, "scale %g makes spatial dim %d of size %lld empty",
                           ip->scale[a], a, (long long)ip->in[a]);
        ip->out[a] = (int64_t)o;
      }
    }
  }
  return OLG_OK;
}

/* ---- PyTorch's tables, in its precision ---- */

/* v rounded to the precision PyTorch computes in. Every operation below is one double operation
 * on values of that precision, then rounded: for float that is the float result exactly (the
 * double rounding of +, -, *, / is innocuous from 24 to 53 bits). */
static double rnd(const interp *ip, double v) { return ip->dbl ? v : (double)(float)v; }

/* area_pixel_compute_scale */
static double ratio(const interp *ip, int a) {
  int64_t in = ip->in[a], out = ip->out[a];
  if (ip->mode != INTERP_NEAREST && ip->align_corners)
    return out > 1 ? rnd(ip, rnd(ip, (double)(in - 1)) / rnd(ip, (double)(out - 1))) : 0.0;
  if (ip->has_scale[a]) return rnd(ip, 1.0 / ip->scale[a]);
  return rnd(ip, rnd(ip, (double)in) / rnd(ip, (double)out));
}

/* area_pixel_compute_source_index */
static double source_index(const interp *ip, double r, int64_t dst, bool cubic) {
  if (ip->align_corners) return rnd(ip, r * rnd(ip, (double)dst));
  double s = rnd(ip, rnd(ip, r * rnd(ip, (double)dst + 0.5)) - 0.5);
  return !cubic && s < 0 ? 0.0 : s;
}

/* The interpolation of one axis: for each output position, n_taps (index, weight) pairs. */
typedef struct axis_table {
  int64_t in, out;
  int n_taps;      /* 1 nearest, 2 linear, 4 cubic */
  int64_t *idx;    /* out * n_taps */
  double *w;       /* out * n_taps (NULL for nearest) */
} axis_table;

static bool table_is_identity(const axis_table *t) {
  if (t->in != t->out) return false;
  for (int64_t i = 0; i < t->out; i++) {
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

static void cubic_coefficients(const interp *ip, double t, double c[4]) {
  const double A = -0.75;
  double x1 = t, x2 = rnd(ip, 1.0 - t);
  double a1 = rnd(ip, x1 + 1.0), a2 = rnd(ip, x2 + 1.0);
  /* cubic_convolution2(x) = ((A x - 5A) x + 8A) x - 4A ; cubic_convolution1(x) = ((A+2) x - (A+3)) x x + 1 */
  c[0] = rnd(ip, ((A * a1 - 5 * A) * a1 + 8 * A) * a1 - 4 * A);
  c[1] = rnd(ip, ((A + 2) * x1 - (A + 3)) * x1 * x1 + 1);
  c[2] = rnd(ip, ((A + 2) * x2 - (A + 3)) * x2 * x2 + 1);
  c[3] = rnd(ip, ((A * a2 - 5 * A) * a2 + 8 * A) * a2 - 4 * A);
}

static olg_status build_table(olg_lower *cx, const interp *ip, int a, axis_table *t) {
  int64_t in = ip->in[a], out = ip->out[a];
  if (out > INTERP_MAX_AXIS_LEN || in > INTERP_MAX_AXIS_LEN)
    return olg__errf(cx, OLG_ERR_LIMIT, "spatial dim %d: sizes %lld -> %lld are too large", a,
                     (long long)in, (long long)out);
  t->in = in;
  t->out = out;
  t->n_taps = ip->mode == INTERP_NEAREST ? 1 : ip->mode == INTERP_LINEAR ? 2 : 4;
  t->idx = olg__lower_alloc(cx, (size_t)(out * t->n_taps) * sizeof *t->idx);
  if (!t->idx) return OLG_ERR_NOMEM;
  t->w = NULL;
  if (ip->mode != INTERP_NEAREST) {
    t->w = olg__lower_alloc(cx, (size_t)(out * t->n_taps) * sizeof *t->w);
    if (!t->w) return OLG_ERR_NOMEM;
  }
  double r = ratio(ip, a);
  for (int64_t i = 0; i < out; i++) {
    if (ip->mode == INTERP_NEAREST) {
      /* floorf(scale * dst): floorf takes a float even for double inputs */
      double v = rnd(ip, r * rnd(ip, (double)i));
      int64_t j = olg__f64_sat_i64(floorf((float)v));
      t->idx[i] = j < in - 1 ? (j < 0 ? 0 : j) : in - 1;
    } else if (ip->mode == INTERP_LINEAR) {
      int64_t *ix = &t->idx[2 * i];
      double *w = &t->w[2 * i];
      if (in == out) { /* compute_source_index_and_lambda: same size, copied */
        ix[0] = ix[1] = i;
        w[0] = 1;
        w[1] = 0;
        continue;
      }
      double src = source_index(ip, r, i, false);
      int64_t i0 = olg__f64_sat_i64(src);
      ix[0] = i0 < in ? i0 : in - 1;
      ix[1] = i0 < in - 1 ? i0 + 1 : ix[0];
      w[1] = rnd(ip, src - (double)i0);
      w[0] = rnd(ip, 1.0 - w[1]);
    } else {
      double src = source_index(ip, r, i, true);
      int64_t i0 = olg__f64_sat_i64(floorf((float)src));
      double c[4];
      cubic_coefficients(ip, rnd(ip, src - (double)i0), c);
      for (int k = 0; k < 4; k++) {
        int64_t j = i0 - 1 + k;
        t->idx[4 * i + k] = j < 0 ? 0 : j > in - 1 ? in - 1 : j;
        t->w[4 * i + k] = c[k];
      }
    }
  }
  return OLG_OK;
}

/* ---- what a runtime computes for a nearest Resize / Upsample (to compare with the table) ---- */

/* floor(in * s) as a runtime computes the output size from a float scale. */
static int64_t runtime_out(int64_t in, float s) { return olg__f64_sat_i64(floorf((float)in * s)); }

/* True when dst / s rounded down (asymmetric coordinates; floor, or truncation for Upsample,
 * which is the same for s >= 1), clamped to the input, is the table for every dst. */
static bool runtime_nearest_matches(const axis_table *t, float s) {
  if (!(s > 0) || runtime_out(t->in, s) != t->out) return false;
  for (int64_t i = 0; i < t->out; i++) {
    float x = (float)i / s;
    int64_t j = olg__f64_sat_i64(floorf(x));
    j = j < 0 ? 0 : j > t->in - 1 ? t->in - 1 : j;
    if (j != t->idx[i]) return false;
  }
  return true;
}

/* A float scale s with floor(in * s) == out (the nearest float to out/in, nudged). */
static bool exact_scale(int64_t in, int64_t out, float start, float *s) {
  float v = start;
  for (int i = 0; i < 64 && runtime_out(in, v) < out; i++) v = nextafterf(v, INFINITY);
  for (int i = 0; i < 64 && runtime_out(in, v) > out; i++) v = nextafterf(v, 0);
  *s = v;
  return runtime_out(in, v) == out;
}

/* ---- emission ---- */

/* [N, C] of x followed by the spatial output sizes (known, or the sizes_v tensor). */
static olg_status full_sizes(olg_lower *cx, const interp *ip, olg_value *out) {
  olg_value pieces[2];
  OLG_TRY(olg__shape_range(cx, ip->x, 0, 2, &pieces[0]));
  if (ip->sizes_known) OLG_TRY(olg__const_i64s(cx, ip->out, (size_t)ip->ns, &pieces[1]));
  else pieces[1] = ip->sizes_v;
  return olg__concat_ints(cx, pieces, 2, out);
}

static olg_status emit_resize_sizes(olg_lower *cx, const interp *ip, olg_resize_params *p,
                                    olg_value *y) {
  int64_t dims[OLG_MAX_RANK];
  int32_t rank;
  if (ip->sizes_known && olg__static_shape(cx, ip->x, dims, &rank)) {
    for (int a = 0; a < ip->ns; a++) dims[2 + a] = ip->out[a];
    p->sizes = dims;
    p->n = (size_t)rank;
    return olg__emit_resize(cx, ip->x, p, y);
  }
  OLG_TRY(full_sizes(cx, ip, &p->sizes_v));
  return olg__emit_resize(cx, ip->x, p, y);
}

static olg_status emit_resize_scales(olg_lower *cx, const interp *ip, olg_resize_params *p,
                                     const float *spatial, olg_value *y) {
  float sc[5] = {1, 1, 1, 1, 1};
  for (int a = 0; a < ip->ns; a++) sc[2 + a] = spatial[a];
  p->scales = sc;
  p->n = (size_t)ip->ns + 2;
  return olg__emit_resize(cx, ip->x, p, y);
}

/* Nearest: one Gather of the computed indices per axis that moves. */
static olg_status emit_gather_tables(olg_lower *cx, const interp *ip, const axis_table *t,
                                     olg_value *y) {
  olg_value v = ip->x;
  for (int a = 0; a < ip->ns; a++) {
    if (table_is_identity(&t[a])) continue;
    olg_value idx;
    OLG_TRY(olg__const_i64s(cx, t[a].idx, (size_t)t[a].out, &idx));
    OLG_TRY(olg__emit_gather(cx, v, idx, 2 + a, &v));
  }
  *y = v;
  return OLG_OK;
}

/* The interpolation matrix of one axis, [out, in] (transposed: [in, out]), built directly in
 * the input's dtype (float or double). */
static olg_status axis_matrix(olg_lower *cx, const axis_table *t, olg_dtype dtype, bool transposed,
                              olg_value *out) {
  size_t n = (size_t)(t->in * t->out), esz = dtype == OLG_DOUBLE ? sizeof(double) : sizeof(float);
  void *m = olg__lower_alloc(cx, (n ? n : 1) * esz); /* zeroed */
  if (!m) return OLG_ERR_NOMEM;
  for (int64_t i = 0; i < t->out; i++)
    for (int k = 0; k < t->n_taps; k++) {
      int64_t j = t->idx[i * t->n_taps + k];
      size_t at = transposed ? (size_t)(j * t->out + i) : (size_t)(i * t->in + j);
      double w = t->w[i * t->n_taps + k];
      if (dtype == OLG_DOUBLE) ((double *)m)[at] += w;
      else ((float *)m)[at] += (float)w; /* taps clamped onto one input add up, as PyTorch's sum */
    }
  int64_t dims[2] = {transposed ? t->in : t->out, transposed ? t->out : t->in};
  return olg__const_tensor_kept(cx, dtype, 2, dims, m, n * esz, out);
}

/* Linear / cubic below opset 11: y = x multiplied along each spatial axis by its interpolation
 * matrix. The last axis is x @ M^T, the one before M @ x (MatMul broadcasts the leading dims);
 * the depth axis of a 3-D input is brought next to the end by a Reshape that merges H and W. */
static olg_status emit_matmul_tables(olg_lower *cx, const interp *ip, const axis_table *t,
                                     olg_value *y) {
  olg_dtype dt = olg__dtype(cx, ip->x);
  if (dt != OLG_FLOAT && dt != OLG_DOUBLE)
    return olg__errf(cx, OLG_ERR_TYPE, "the interpolation-matrix decomposition handles float and "
                     "double inputs, not %s", olg_dtype_name(dt));
  for (int a = 0; a < ip->ns; a++)
    if (t[a].in * t[a].out > INTERP_MAX_MATRIX)
      return olg__unsupportedf(cx, ip->resize11 ? -1 : 11, "an interpolation matrix of "
                               "%lld x %lld elements (spatial dim %d) is too large to embed",
                               (long long)t[a].out, (long long)t[a].in, a);
  olg_value v = ip->x, m;
  int ns = ip->ns;
  int64_t cur[3];
  for (int a = 0; a < ns; a++) cur[a] = ip->in[a];
  for (int a = ns - 1; a >= 0; a--) {
    if (table_is_identity(&t[a])) continue;
    if (a == ns - 1) { /* the last axis */
      OLG_TRY(axis_matrix(cx, &t[a], dt, true, &m));
      OLG_TRY(olg__emit2(cx, "MatMul", v, m, &v));
    } else if (a == ns - 2) {
      OLG_TRY(axis_matrix(cx, &t[a], dt, false, &m));
      OLG_TRY(olg__emit2(cx, "MatMul", m, v, &v));
    } else { /* depth of a 3-D input: [N, C, D, H*W] */
      int64_t merged[4] = {0, 0, cur[0], cur[1] * cur[2]};
      OLG_TRY(olg__emit_reshape_static(cx, v, merged, 4, &v));
      OLG_TRY(axis_matrix(cx, &t[a], dt, false, &m));
      OLG_TRY(olg__emit2(cx, "MatMul", m, v, &v));
      int64_t back[5] = {0, 0, t[a].out, cur[1], cur[2]};
      OLG_TRY(olg__emit_reshape_static(cx, v, back, 5, &v));
    }
    cur[a] = t[a].out;
  }
  *y = v;
  return OLG_OK;
}

/* ---- the plans ---- */

static olg_status lower_static(olg_lower *cx, const interp *ip, olg_value *y) {
  axis_table t[3];
  for (int a = 0; a < ip->ns; a++) OLG_TRY(build_table(cx, ip, a, &t[a]));
  bool identity = true, same_shape = true;
  for (int a = 0; a < ip->ns; a++) {
    identity = identity && table_is_identity(&t[a]);
    same_shape = same_shape && t[a].in == t[a].out;
  }
  if (identity) return *y = ip->x, OLG_OK;
  /* A Resize that keeps the shape is a copy in ONNX Runtime, whatever its scales say, and it has
   * no double Resize kernel: PyTorch's meaning then comes from the exact decompositions. */
  if (same_shape || ip->dbl) {
    OLG_TRY(olg_lower_decompose(cx, same_shape ? "an interpolation that keeps the shape but moves "
                                                 "the samples (a given scale)"
                                               : "an interpolation of a double tensor", -1));
    return ip->mode == INTERP_NEAREST ? emit_gather_tables(cx, ip, t, y)
                                      : emit_matmul_tables(cx, ip, t, y);
  }
  olg_resize_params p = OLG_RESIZE_PARAMS_INIT;
  p.mode = mode_name(ip->mode);

  if (ip->mode == INTERP_NEAREST) {
    p.coordinate_transformation_mode = "asymmetric";
    p.nearest_mode = "floor";
    float s[3];
    bool ok = true;
    if (ip->resize11) {
      /* sizes: the runtime's scale is out/in */
      for (int a = 0; a < ip->ns && ok; a++)
        ok = runtime_nearest_matches(&t[a], (float)t[a].out / (float)t[a].in);
      if (ok) return emit_resize_sizes(cx, ip, &p, y);
      /* the given scales */
      ok = true;
      for (int a = 0; a < ip->ns && ok; a++) {
        s[a] = ip->has_scale[a] ? (float)ip->scale[a] : (float)t[a].out / (float)t[a].in;
        ok = runtime_nearest_matches(&t[a], s[a]);
      }
      if (ok) return emit_resize_scales(cx, ip, &p, s, y);
      OLG_TRY(olg_lower_decompose(cx, "nearest interpolation whose indices no Resize scale "
                                      "reproduces (a Gather of the computed indices)", -1));
      return emit_gather_tables(cx, ip, t, y);
    }
    /* Upsample / Resize-10: scales >= 1, and a scale whose floor(in * s) is the size */
    for (int a = 0; a < ip->ns && ok; a++)
      ok = t[a].out >= t[a].in &&
           exact_scale(t[a].in, t[a].out, (float)t[a].out / (float)t[a].in, &s[a]) &&
           runtime_nearest_matches(&t[a], s[a]);
    if (ok) return emit_resize_scales(cx, ip, &p, s, y);
    OLG_TRY(olg_lower_decompose(cx, "nearest interpolation whose indices Upsample cannot "
                                    "reproduce (a Gather of the computed indices)", -1));
    return emit_gather_tables(cx, ip, t, y);
  }

  if (!ip->resize11) return emit_matmul_tables(cx, ip, t, y);

  p.coordinate_transformation_mode = ip->align_corners ? "align_corners" : "half_pixel";
  if (ip->mode == INTERP_CUBIC) p.cubic_coeff_a = -0.75;
  /* sizes give the runtime the ratio in/out; PyTorch uses 1/scale when a scale is given */
  bool plain = true;
  for (int a = 0; a < ip->ns; a++) {
    bool copied = ip->mode == INTERP_LINEAR && t[a].in == t[a].out;
    if (ip->has_scale[a] && !ip->align_corners && !copied &&
        rnd(ip, 1.0 / ip->scale[a]) != rnd(ip, rnd(ip, (double)t[a].in) / rnd(ip, (double)t[a].out)))
      plain = false;
  }
  if (plain) return emit_resize_sizes(cx, ip, &p, y);
  float s[3];
  for (int a = 0; a < ip->ns; a++) {
    bool copied = ip->mode == INTERP_LINEAR && t[a].in == t[a].out;
    float start = copied ? 1.0f : ip->has_scale[a] ? (float)ip->scale[a]
                                                   : (float)t[a].out / (float)t[a].in;
    if (!exact_scale(t[a].in, t[a].out, start, &s[a]))
      return olg__errf(cx, OLG_ERR_UNSUPPORTED, "no float scale resizes spatial dim %d from %lld "
                       "to %lld", a, (long long)t[a].in, (long long)t[a].out);
  }
  return emit_resize_scales(cx, ip, &p, s, y);
}

/* Spatial sizes known only at run time. */
static olg_status lower_dynamic(olg_lower *cx, const interp *ip, olg_value *y) {
  bool all_scales = true, int_scales = true;
  float s[3];
  for (int a = 0; a < ip->ns; a++) {
    all_scales = all_scales && ip->has_scale[a];
    s[a] = (float)ip->scale[a];
    int_scales = int_scales && ip->scale[a] >= 1 && ip->scale[a] == floor(ip->scale[a]);
  }
  olg_resize_params p = OLG_RESIZE_PARAMS_INIT;
  p.mode = mode_name(ip->mode);
  if (ip->mode == INTERP_NEAREST) {
    p.coordinate_transformation_mode = "asymmetric";
    p.nearest_mode = "floor";
    if (!ip->resize11) {
      if (ip->has_sizes || !all_scales || !int_scales)
        return olg_lower_unsupported(cx, "nearest interpolation of an input whose spatial sizes "
                                         "are not known at export time, other than by integer "
                                         "scale factors", 11);
      return emit_resize_scales(cx, ip, &p, s, y);
    }
  } else {
    if (!ip->resize11)
      return olg__unsupportedf(cx, 11, "%s interpolation of an input whose spatial sizes are not "
                               "known at export time (below opset 11 it is decomposed with "
                               "interpolation matrices, which need them)", mode_name(ip->mode));
    p.coordinate_transformation_mode = ip->align_corners ? "align_corners" : "half_pixel";
    if (ip->mode == INTERP_CUBIC) p.cubic_coeff_a = -0.75;
  }
  if (ip->has_sizes) return emit_resize_sizes(cx, ip, &p, y);
  return emit_resize_scales(cx, ip, &p, s, y);
}

static olg_status lower_interp(olg_lower *cx, int mode, int ns) {
  interp ip;
  olg_value y;
  OLG_TRY(parse(cx, mode, ns, &ip));
  /* Resize-11 brought the coordinate transformations (and sizes) PyTorch's modes need */
  ip.resize11 = olg__target_has_attr(cx, "Resize", "coordinate_transformation_mode");
  if (ip.in_static && ip.sizes_known) OLG_TRY(lower_static(cx, &ip, &y));
  else OLG_TRY(lower_dynamic(cx, &ip, &y));
  return olg_lower_bind_output(cx, 0, y);
}


/* Resize-11 (PyTorch's coordinate modes, sizes) where the target has it; below, Upsample /
 * Resize-10 where they match PyTorch, else gathers or interpolation matrices */
olg_status olg__sym_upsample_nearest1d(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return lower_interp(cx, INTERP_NEAREST, 1);
}

olg_status olg__sym_upsample_nearest2d(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return lower_interp(cx, INTERP_NEAREST, 2);
}

olg_status olg__sym_upsample_nearest3d(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return lower_interp(cx, INTERP_NEAREST, 3);
}

olg_status olg__sym_upsample_linear1d(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return lower_interp(cx, INTERP_LINEAR, 1);
}

olg_status olg__sym_upsample_bilinear2d(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return lower_interp(cx, INTERP_LINEAR, 2);
}

olg_status olg__sym_upsample_trilinear3d(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return lower_interp(cx, INTERP_LINEAR, 3);
}

olg_status olg__sym_upsample_bicubic2d(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return lower_interp(cx, INTERP_CUBIC, 2);
}
