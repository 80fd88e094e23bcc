/* onnxlegal — the one DFT emitter (symbolics/emit_dft.h): ONNX DFT where the target has it, else
 * the transform as MatMuls by constant matrices along an axis of known size.
 *
 * With a, b the real and imaginary parts along the axis (b absent for a real signal), L the
 * transform's length, C[j][k] = cos(2 pi j k / L) and S[j][k] = sin(2 pi j k / L):
 *   forward  Re = a C + b S,          Im = b C - a S
 *   inverse  Re = (a C - b S) / L,    Im = (a S + b C) / L
 *   C2R      y  = (a C' - b S') / L   with C', S' the rows k of C, S weighted by 2 (by 1 for
 *            k = 0 and k = L/2), the Hermitian half of a real signal's spectrum
 * The matrices are computed in double and rounded to the signal's float type once. A signal
 * longer than L is cut to L (a Slice); a shorter one meets only the first rows of the matrices
 * (zero padding). onesided keeps the first L/2 + 1 columns. The axis is moved last for the
 * MatMuls and back. */
#include <math.h>
#include <string.h>

#include "emit_axes.h"
#include "emit_dft.h"

/* The largest length transformed by MatMul. */
#define DFT_MATMUL_MAX 4096

static olg_status dft_matrix(olg_lower *cx, olg_dtype t, int64_t rows, int64_t cols, int64_t period,
                             bool sine, bool hermitian, double scale, olg_value *out) {
  size_t es = olg_dtype_nbytes(t, 1), cnt = (size_t)(rows * cols);
  unsigned char *buf = olg__lower_alloc(cx, (cnt ? cnt : 1) * es);
  if (!buf) return OLG_ERR_NOMEM;
  const double two_pi = 6.283185307179586476925286766559;
  for (int64_t j = 0; j < rows; j++) {
    double w = hermitian && j != 0 && 2 * j != period ? 2.0 : 1.0;
    for (int64_t k = 0; k < cols; k++) {
      double ang = two_pi * (double)((j * k) % period) / (double)period;
      double v = (sine ? sin(ang) : cos(ang)) * scale * w;
      if (t == OLG_DOUBLE) memcpy(buf + (size_t)(j * cols + k) * es, &v, 8);
      else { float f = (float)v; memcpy(buf + (size_t)(j * cols + k) * es, &f, 4); }
    }
  }
  int64_t dims[2] = {rows, cols};
  return olg__const_tensor_kept(cx, t, 2, dims, buf, cnt * es, out);
}

/* The cosine and sine matrices [rows, cols] of a length known only at run time (lv, int64),
 * computed in the graph as dft_matrix computes them: the angle 2 pi ((j k) mod L) / L in t,
 * cols L (L/2 + 1 onesided), rows the first min(n, L) of the signal (nv its size). */
static olg_status dft_matrices_rt(olg_lower *cx, olg_dtype t, olg_value lv, olg_value nv, bool onesided,
                                  double scale, bool inverse, olg_value *rows_v, olg_value *c, olg_value *s) {
  olg_value two, cols, j, k, jk, q, lt, ang, f, less;
  OLG_TRY(olg__emit_cast(cx, lv, OLG_INT64, &lv));
  OLG_TRY(olg__emit_reshape_static(cx, lv, NULL, 0, &lv));
  OLG_TRY(olg__emit_reshape_static(cx, nv, NULL, 0, &nv));
  OLG_TRY(olg__emit2(cx, "Less", nv, lv, &less));
  OLG_TRY(olg__emit(cx, "Where", (const olg_value[]){less, nv, lv}, 3, rows_v));
  cols = lv;
  if (onesided) {
    olg_value one;
    OLG_TRY(olg__const_i64(cx, 2, &two));
    OLG_TRY(olg__const_i64(cx, 1, &one));
    OLG_TRY(olg__emit2(cx, "Div", lv, two, &cols));
    OLG_TRY(olg__emit2(cx, "Add", cols, one, &cols));
  }
  OLG_TRY(olg__emit_arange_rt(cx, *rows_v, &j));
  OLG_TRY(olg__emit_arange_rt(cx, cols, &k));
  OLG_TRY(olg__emit_unsqueeze(cx, j, (const int64_t[]){1}, 1, &j));
  OLG_TRY(olg__emit_unsqueeze(cx, k, (const int64_t[]){0}, 1, &k));
  OLG_TRY(olg__emit2(cx, "Mul", j, k, &jk));
  OLG_TRY(olg__emit2(cx, "Div", jk, lv, &q)); /* (j k) mod L, both >= 0 (Mod is 10+) */
  OLG_TRY(olg__emit2(cx, "Mul", q, lv, &q));
  OLG_TRY(olg__emit2(cx, "Sub", jk, q, &jk));
  OLG_TRY(olg__emit_cast(cx, jk, t, &ang));
  OLG_TRY(olg__emit_cast(cx, lv, t, &lt));
  OLG_TRY(olg__const_scalar(cx, t, 6.283185307179586476925286766559, &two));
  OLG_TRY(olg__emit2(cx, "Mul", ang, two, &ang));
  OLG_TRY(olg__emit2(cx, "Div", ang, lt, &ang));
  OLG_TRY(olg__emit1(cx, "Cos", ang, c));
  OLG_TRY(olg__emit1(cx, "Sin", ang, s));
  if (scale != 1.0) {
    OLG_TRY(olg__const_scalar(cx, t, scale, &f));
    OLG_TRY(olg__emit2(cx, "Mul", *c, f, c));
    OLG_TRY(olg__emit2(cx, "Mul", *s, f, s));
  }
  if (inverse) {
    OLG_TRY(olg__emit2(cx, "Div", *c, lt, c));
    OLG_TRY(olg__emit2(cx, "Div", *s, lt, s));
  }
  return OLG_OK;
}

static olg_status emit_native(olg_lower *cx, const olg_dft *p, olg_value x, olg_value *out) {
  bool axis_input = olg__target_has_input(cx, "DFT", "axis");
  olg_value av = OLG_NO_VALUE, y;
  if (p->axis_value != OLG_NO_VALUE) {
    if (!axis_input) return olg_lower_unsupported(cx, "DFT with a run-time axis", 20);
    av = p->axis_value;
  } else if (axis_input) {
    OLG_TRY(olg__const_i64(cx, p->axis, &av));
  }
  olg_node_id nd;
  OLG_TRY(olg_lower_emit_begin(cx, "", "DFT", &nd));
  OLG_TRY(olg_lower_emit_input(cx, nd, x));
  OLG_TRY(olg_lower_emit_input(cx, nd, p->length));
  if (av != OLG_NO_VALUE) OLG_TRY(olg_lower_emit_input(cx, nd, av));
  else OLG_TRY(olg_lower_emit_attr_int(cx, nd, "axis", p->axis));
  if (p->inverse) OLG_TRY(olg_lower_emit_attr_int(cx, nd, "inverse", 1));
  if (p->onesided) OLG_TRY(olg_lower_emit_attr_int(cx, nd, "onesided", 1));
  OLG_TRY(olg_lower_emit_end(cx, nd, 1, &y));
  if (p->scale != 1.0) {
    olg_value s;
    OLG_TRY(olg__const_like(cx, y, p->scale, &s));
    OLG_TRY(olg__emit2(cx, "Mul", y, s, &y));
  }
  *out = y;
  return OLG_OK;
}

olg_status olg__emit_dft(olg_lower *cx, const olg_dft *p, olg_value x, olg_value *out) {
  bool c2r = p->kind == OLG_DFT_C2R;
  if (p->onesided && (c2r || p->inverse))
    return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "DFT: onesided takes a forward transform");
  if (!c2r && olg__target_has(cx, "DFT")) return emit_native(cx, p, x, out);
  int need = c2r ? 0 : 17; /* the opset whose DFT takes what the decomposition cannot */
  if (p->axis_value != OLG_NO_VALUE) {
    double a;
    if (!olg__known_scalar(cx, p->axis_value, &a)) return olg_lower_unsupported(cx, "DFT with a run-time axis", 20);
    olg_dft q = *p;
    q.axis_value = OLG_NO_VALUE;
    if (!olg__f64_to_i64(a, &q.axis)) /* INT64_MAX is 2^63 as a double: not cast */
      return olg__errf(cx, OLG_ERR_INVALID_ARG, "DFT: axis %g out of range", a);
    int32_t r = olg__rank(cx, x);
    if (q.axis < 0 && r > 0) q.axis += r;
    return olg__emit_dft(cx, &q, x, out);
  }
  int32_t rank;
  OLG_TRY(olg__input_rank(cx, x, &rank));
  if (rank < 2) return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "DFT of a tensor of fewer than 2 dims");
  int64_t ax = p->axis;
  if (ax < 0 || ax >= rank - 1) return olg__axes_error(cx, "DFT", &p->axis, 1, rank - 1);
  olg_dtype t = olg__dtype(cx, x);
  int64_t n = olg__dim(cx, x, (int32_t)ax), comps = olg__dim(cx, x, rank - 1);
  if (comps != 1 && comps != 2)
    return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "DFT: the last dim must be 1 (real) or 2 (complex)");
  if (c2r && comps != 2) return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "a complex-to-real DFT of a real signal");
  if (t != OLG_FLOAT && t != OLG_DOUBLE) return olg__unsupportedf(cx, need, "DFT of %s", olg_dtype_name(t));
  double l;
  bool rt = p->length != OLG_NO_VALUE && !olg__known_scalar(cx, p->length, &l);
  if (rt && c2r) return olg__unsupportedf(cx, need, "a complex-to-real DFT of a length not known at conversion time");
  if (n < 1 && !rt) return olg__unsupportedf(cx, need, "DFT along a dim whose size is not known at conversion time");
  int64_t len = c2r ? 2 * (n - 1) : n;
  if (p->length != OLG_NO_VALUE && !rt && !olg__f64_to_i64(l, &len)) /* not cast past int64 */
    return olg__errf(cx, OLG_ERR_INVALID_ARG, "DFT: length %g out of range", l);
  if (!rt && len < 1) return olg__errf(cx, OLG_ERR_INVALID_ARG, "DFT: length %lld is not positive", (long long)len);
  /* rows: what of the input meets the matrices; cols: the output's length along the axis */
  int64_t rows = c2r ? len / 2 + 1 : len, cols = c2r ? len : p->onesided ? len / 2 + 1 : len;
  if (rows > n) rows = n;
  if (!rt && (len > DFT_MATMUL_MAX || n > DFT_MATMUL_MAX))
    return olg__unsupportedf(cx, need, "DFT of length %lld by MatMul (over %d)", (long long)len, DFT_MATMUL_MAX);
  double scale = p->scale * (p->inverse ? 1.0 / (double)len : 1.0);
  int64_t perm[OLG_MAX_RANK];
  for (int32_t i = 0; i < rank - 1; i++) perm[i] = i;
  perm[ax] = rank - 2;
  perm[rank - 2] = ax;
  olg_value part[2], c, s, ac, as, bc, bs, re, im, outs[2], y, rows_v = OLG_NO_VALUE, nv;
  if (rt) { /* the matrices computed at run time; the signal cut to min(n, L) by a Gather */
    OLG_TRY(olg__dim_tensor(cx, x, ax, &nv));
    OLG_TRY(dft_matrices_rt(cx, t, p->length, nv, p->onesided, p->scale, p->inverse, &rows_v, &c, &s));
    OLG_TRY(olg__emit_arange_rt(cx, rows_v, &rows_v));
  }
  for (int64_t q = 0; q < comps; q++) {
    int64_t b0 = q, e0 = q + 1, a0 = rank - 1;
    OLG_TRY(olg__emit_slice(cx, x, &b0, &e0, &a0, NULL, 1, &part[q]));
    OLG_TRY(olg__emit_squeeze(cx, part[q], &a0, 1, &part[q]));
    if (rt) {
      OLG_TRY(olg__emit_gather(cx, part[q], rows_v, ax, &part[q]));
    } else if (rows < n) {
      int64_t z = 0;
      OLG_TRY(olg__emit_slice(cx, part[q], &z, &rows, &ax, NULL, 1, &part[q]));
    }
    OLG_TRY(olg__emit_transpose(cx, part[q], perm, (size_t)rank - 1, &part[q]));
  }
  if (!rt) {
    OLG_TRY(dft_matrix(cx, t, rows, cols, len, false, c2r, scale, &c));
    OLG_TRY(dft_matrix(cx, t, rows, cols, len, true, c2r, scale, &s));
  }
  OLG_TRY(olg__emit2(cx, "MatMul", part[0], c, &ac));
  if (c2r) {
    OLG_TRY(olg__emit2(cx, "MatMul", part[1], s, &bs));
    OLG_TRY(olg__emit2(cx, "Sub", ac, bs, &y));
    return olg__emit_transpose(cx, y, perm, (size_t)rank - 1, out);
  }
  OLG_TRY(olg__emit2(cx, "MatMul", part[0], s, &as));
  if (comps == 2) {
    OLG_TRY(olg__emit2(cx, "MatMul", part[1], c, &bc));
    OLG_TRY(olg__emit2(cx, "MatMul", part[1], s, &bs));
    OLG_TRY(olg__emit2(cx, p->inverse ? "Sub" : "Add", ac, bs, &re));
    OLG_TRY(olg__emit2(cx, p->inverse ? "Add" : "Sub", p->inverse ? as : bc, p->inverse ? bc : as, &im));
  } else {
    re = ac;
    if (p->inverse) im = as;
    else OLG_TRY(olg__emit1(cx, "Neg", as, &im));
  }
  outs[0] = re;
  outs[1] = im;
  for (int i = 0; i < 2; i++) {
    int64_t last = rank - 1;
    OLG_TRY(olg__emit_transpose(cx, outs[i], perm, (size_t)rank - 1, &outs[i]));
    OLG_TRY(olg__emit_unsqueeze(cx, outs[i], &last, 1, &outs[i]));
  }
  OLG_TRY(olg__emit_concat(cx, outs, 2, rank - 1, out));
  return OLG_OK;
}
