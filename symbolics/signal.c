/* onnxlegal — signal processing ONNX ops below their opset: DFT (17, below), the window functions
 * HannWindow, HammingWindow, BlackmanWindow (17). Each is the generalized cosine window
 *   w[n] = a0 - a1 cos(2 pi n / N) + a2 cos(4 pi n / N),  n = 0 .. size-1,
 * N = size (periodic, the default) or size - 1 (symmetric), computed in float as the ops'
 * function bodies in the ONNX spec compute it, then cast to output_datatype. A size known at
 * conversion time folds to a constant; a run-time size needs a run-time range (NonZero-9,
 * Range-11). */
#include <math.h>
#include <string.h>

#include "emit.h"
#include "emit_axes.h"
#include "emit_src.h"
#include "symbolics.h"


typedef struct { float a0, a1, a2; } window_coeffs;

static bool window_kind(const char *op, window_coeffs *c) {
  if (strcmp(op, "HannWindow") == 0) *c = (window_coeffs){0.5f, 0.5f, 0.0f};
  else if (strcmp(op, "HammingWindow") == 0) *c = (window_coeffs){25.0f / 46, 21.0f / 46, 0.0f};
  else if (strcmp(op, "BlackmanWindow") == 0) *c = (window_coeffs){0.42f, 0.5f, 0.08f};
  else return false;
  return true;
}

/* The largest window folded into a constant. */
#define WINDOW_FOLD_MAX (1 << 20)

static olg_status window(olg_lower *cx) {
  const char *op = olg_lower_node_op(cx);
  window_coeffs c;
  if (!window_kind(op, &c)) return olg__errf(cx, OLG_ERR_INVALID_ARG, "%s is not a window function", op);
  olg_value sz, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &sz));
  int64_t periodic = olg__src_attr_int(cx, "periodic", 1);
  olg_dtype to = (olg_dtype)olg__src_attr_int(cx, "output_datatype", OLG_FLOAT);
  double n;
  const float tau = 6.2831854820251465f;
  if (olg__known_scalar(cx, sz, &n)) {
    if (n < 0 || n > WINDOW_FOLD_MAX)
      return olg__errf(cx, OLG_ERR_INVALID_ARG, "%s: size %g out of range", op, n);
    int64_t len = (int64_t)n;
    float *w = olg__lower_alloc(cx, (size_t)(len ? len : 1) * sizeof *w);
    if (!w) return OLG_ERR_NOMEM;
    float size_fp = periodic ? (float)len : (float)len - 1.0f, inc = tau / size_fp;
    for (int64_t i = 0; i < len; i++) {
      float ang = (float)i * inc;
      w[i] = c.a0 - c.a1 * cosf(ang) + c.a2 * cosf(ang * 2.0f);
    }
    OLG_TRY(olg__const_f32s(cx, w, (size_t)len, &y));
  } else {
    olg_value fsz, one, two, t, size_fp, inc, rng, ang, cos1, cos2, k;
    OLG_TRY(olg__emit_cast(cx, sz, OLG_FLOAT, &fsz));
    OLG_TRY(olg__emit_reshape_static(cx, fsz, NULL, 0, &fsz));
    OLG_TRY(olg__const_scalar(cx, OLG_FLOAT, 1, &one));
    OLG_TRY(olg__const_scalar(cx, OLG_FLOAT, 2, &two));
    OLG_TRY(olg__const_scalar(cx, OLG_FLOAT, tau, &t));
    size_fp = fsz;
    if (!periodic) OLG_TRY(olg__emit2(cx, "Sub", fsz, one, &size_fp));
    OLG_TRY(olg__emit2(cx, "Div", t, size_fp, &inc));
    OLG_TRY(olg__emit_arange_rt(cx, sz, &rng));
    OLG_TRY(olg__emit_cast(cx, rng, OLG_FLOAT, &rng));
    OLG_TRY(olg__emit2(cx, "Mul", rng, inc, &ang));
    OLG_TRY(olg__emit1(cx, "Cos", ang, &cos1));
    OLG_TRY(olg__const_scalar(cx, OLG_FLOAT, c.a1, &k));
    OLG_TRY(olg__emit2(cx, "Mul", k, cos1, &cos1));
    OLG_TRY(olg__const_scalar(cx, OLG_FLOAT, c.a0, &k));
    OLG_TRY(olg__emit2(cx, "Sub", k, cos1, &y));
    if (c.a2 != 0) {
      OLG_TRY(olg__emit2(cx, "Mul", ang, two, &cos2));
      OLG_TRY(olg__emit1(cx, "Cos", cos2, &cos2));
      OLG_TRY(olg__const_scalar(cx, OLG_FLOAT, c.a2, &k));
      OLG_TRY(olg__emit2(cx, "Mul", k, cos2, &cos2));
      OLG_TRY(olg__emit2(cx, "Add", y, cos2, &y));
    }
  }
  OLG_TRY(olg__emit_cast(cx, y, to, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* HannWindow, HammingWindow, BlackmanWindow below 17 */
olg_status olg__sym_onnx_window(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return window(cx);
}

/* ------------------------------------------------------------------------------------------ */
/* DFT (17) below 17: along an axis of known size n (the signal's, or a known dft_length equal
 * to it), the transform as two MatMuls by constant n x n cosine and sine matrices (double,
 * rounded to the signal's float type once):
 *   forward  Re = a C + b S,          Im = b C - a S
 *   inverse  Re = (a C - b S) / n,    Im = (a S + b C) / n
 * with a, b the real and imaginary parts (b absent for a real signal); onesided keeps the first
 * n/2 + 1 frequencies. The axis is moved last for the MatMuls and back. */

/* The largest axis transformed by MatMul. */
#define DFT_MATMUL_MAX 4096

static olg_status dft_matrix(olg_lower *cx, olg_dtype t, int64_t n, int64_t m, bool sine,
                             double scale, olg_value *out) {
  size_t es = olg_dtype_nbytes(t, 1), cnt = (size_t)(n * m);
  unsigned char *buf = olg__lower_alloc(cx, (cnt ? cnt : 1) * es);
  if (!buf) return OLG_ERR_NOMEM;
  const double two_pi = 6.283185307179586476925286766559;
  for (int64_t j = 0; j < n; j++)
    for (int64_t k = 0; k < m; k++) {
      double ang = two_pi * (double)((j * k) % n) / (double)n;
      double v = (sine ? sin(ang) : cos(ang)) * scale;
      if (t == OLG_DOUBLE) memcpy(buf + (size_t)(j * m + k) * es, &v, 8);
      else { float f = (float)v; memcpy(buf + (size_t)(j * m + k) * es, &f, 4); }
    }
  int64_t dims[2] = {n, m};
  return olg__const_tensor_kept(cx, t, 2, dims, buf, cnt * es, out);
}

olg_status olg__sym_onnx_dft_decomposed(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, len = OLG_NO_VALUE, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  if (!olg_lower_arg_is_none(cx, 1)) OLG_TRY(olg_lower_arg_value(cx, 1, &len));
  int32_t rank;
  OLG_TRY(olg__input_rank(cx, x, &rank));
  int64_t axis = -2;
  if (olg__src_dft_axis_attr(cx)) {
    axis = olg__src_attr_int(cx, "axis", 1);
  } else if (!olg_lower_arg_is_none(cx, 2)) {
    olg_value av;
    double a;
    OLG_TRY(olg_lower_arg_value(cx, 2, &av));
    if (!olg__known_scalar(cx, av, &a)) return olg_lower_unsupported(cx, "DFT with a run-time axis", 20);
    axis = (int64_t)a;
  }
  if (rank < 2) return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "DFT of a tensor of fewer than 2 dims");
  int64_t ax = olg__norm_axis(axis, rank - 1); /* the last dim holds the components */
  if (ax < 0) return olg__axes_error(cx, "DFT", &axis, 1, rank - 1);
  int64_t n = olg__dim(cx, x, (int32_t)ax), comps = olg__dim(cx, x, rank - 1);
  bool inverse = olg__src_attr_int(cx, "inverse", 0) != 0, onesided = olg__src_attr_int(cx, "onesided", 0) != 0;
  olg_dtype t = olg__dtype(cx, x);
  if (n < 1 || n > DFT_MATMUL_MAX || (comps != 1 && comps != 2))
    return olg_lower_unsupported(cx, "DFT along a dim whose size is not known (or over 4096)", 17);
  if (t != OLG_FLOAT && t != OLG_DOUBLE) return olg__unsupportedf(cx, 17, "DFT of %s", olg_dtype_name(t));
  if (len != OLG_NO_VALUE) {
    double l;
    if (!olg__known_scalar(cx, len, &l) || (int64_t)l != n)
      return olg_lower_unsupported(cx, "DFT with a dft_length other than the signal's length", 17);
  }
  if (onesided && (inverse || comps == 2))
    return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "DFT: onesided takes a real forward transform");
  int64_t m = onesided ? n / 2 + 1 : n;
  double scale = inverse ? 1.0 / (double)n : 1.0;
  int64_t perm[OLG_MAX_RANK];
  for (int32_t i = 0; i < rank - 1; i++) perm[i] = i;
  perm[ax] = rank - 2;
  perm[rank - 2] = ax;
  olg_value part[2], c, s, ac, as, bc, bs, re, im, outs[2];
  for (int64_t p = 0; p < comps; p++) {
    int64_t b0 = p, e0 = p + 1, a0 = rank - 1;
    OLG_TRY(olg__emit_slice(cx, x, &b0, &e0, &a0, NULL, 1, &part[p]));
    OLG_TRY(olg__emit_squeeze(cx, part[p], &a0, 1, &part[p]));
    OLG_TRY(olg__emit_transpose(cx, part[p], perm, (size_t)rank - 1, &part[p]));
  }
  OLG_TRY(dft_matrix(cx, t, n, m, false, scale, &c));
  OLG_TRY(dft_matrix(cx, t, n, m, true, scale, &s));
  OLG_TRY(olg__emit2(cx, "MatMul", part[0], c, &ac));
  OLG_TRY(olg__emit2(cx, "MatMul", part[0], s, &as));
  if (comps == 2) {
    OLG_TRY(olg__emit2(cx, "MatMul", part[1], c, &bc));
    OLG_TRY(olg__emit2(cx, "MatMul", part[1], s, &bs));
    OLG_TRY(olg__emit2(cx, inverse ? "Sub" : "Add", ac, bs, &re));
    OLG_TRY(olg__emit2(cx, inverse ? "Add" : "Sub", inverse ? as : bc, inverse ? bc : as, &im));
  } else {
    re = ac;
    if (inverse) im = as;
    else OLG_TRY(olg__emit1(cx, "Neg", as, &im));
  }
  outs[0] = re;
  outs[1] = im;
  for (int i = 0; i < 2; i++) {
    int64_t last = rank - 1;
    OLG_TRY(olg__emit_transpose(cx, outs[i], perm, (size_t)rank - 1, &outs[i]));
    OLG_TRY(olg__emit_unsqueeze(cx, outs[i], &last, 1, &outs[i]));
  }
  OLG_TRY(olg__emit_concat(cx, outs, 2, rank - 1, &y));
  return olg_lower_bind_output(cx, 0, y);
}
