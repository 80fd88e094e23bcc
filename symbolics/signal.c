/* onnxlegal — signal processing: MelWeightMatrix, STFT, torch.fft and the window functions
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
#include "emit_dft.h"
#include "emit_src.h"
#include "symbolics.h"


typedef struct { float a0, a1, a2; } window_coeffs;

static bool window_kind(const char *op, window_coeffs *c) {
  if (strcmp(op, "HannWindow") == 0 || strcmp(op, "hann_window") == 0)
    *c = (window_coeffs){0.5f, 0.5f, 0.0f};
  else if (strcmp(op, "HammingWindow") == 0) *c = (window_coeffs){25.0f / 46, 21.0f / 46, 0.0f};
  else if (strcmp(op, "BlackmanWindow") == 0 || strcmp(op, "blackman_window") == 0)
    *c = (window_coeffs){0.42f, 0.5f, 0.08f};
  else return false;
  return true;
}

/* The largest window folded into a constant. */
#define WINDOW_FOLD_MAX (1 << 20)

/* The window of ONNX HannWindow/HammingWindow/BlackmanWindow(size; periodic, output_datatype)
 * or aten hann_window/blackman_window(int window_length, bool periodic=True, *, dtype): one
 * emitter, the argument readers apart. (aten hamming_window's alpha 0.54 and beta 0.46 are not
 * ONNX's 25/46 and 21/46: not registered.) */
static olg_status window(olg_lower *cx, bool aten) {
  const char *op = olg_lower_node_op(cx);
  window_coeffs c;
  if (!window_kind(op, &c)) return olg__errf(cx, OLG_ERR_INVALID_ARG, "%s is not a window function", op);
  olg_value sz, y;
  int64_t periodic;
  olg_dtype to;
  if (aten) {
    int64_t len;
    int per;
    OLG_TRY(olg_lower_arg_int(cx, 0, &len));
    OLG_TRY(olg__const_i64(cx, len, &sz));
    OLG_TRY(olg__arg_bool_or(cx, 1, 1, &per));
    OLG_TRY(olg__arg_scalar_type_or(cx, 2, OLG_FLOAT, &to));
    periodic = per;
  } else {
    OLG_TRY(olg_lower_arg_value(cx, 0, &sz));
    periodic = olg__src_attr_int(cx, "periodic", 1);
    to = (olg_dtype)olg__src_attr_int(cx, "output_datatype", OLG_FLOAT);
  }
  double n;
  const float tau = 6.2831854820251465f;
  if (olg__known_scalar(cx, sz, &n)) {
    if (!(n >= 0 && n <= WINDOW_FOLD_MAX)) /* NaN too */
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
  return window(cx, false);
}

olg_status olg__sym_window(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return window(cx, true);
}


/* (a - b) / (c - d), the differences cast to ct: an edge of a triangular filter. */
static olg_status diff_ratio(olg_lower *cx, olg_value a, olg_value b, olg_value c, olg_value d,
                             olg_dtype ct, olg_value *out) {
  olg_value num, den;
  OLG_TRY(olg__emit2(cx, "Sub", a, b, &num));
  OLG_TRY(olg__emit2(cx, "Sub", c, d, &den));
  OLG_TRY(olg__emit_cast(cx, num, ct, &num));
  OLG_TRY(olg__emit_cast(cx, den, ct, &den));
  return olg__emit2(cx, "Div", num, den, out);
}

/* MelWeightMatrix(num_mel_bins M, dft_length N, sample_rate, lower_edge_hertz, upper_edge_hertz;
 * output_datatype) below 17, computed in the graph (from 9: Range, Where) as ONNX Runtime's
 * kernel computes it, its inputs known or not. The M + 2 triangle edges, in double:
 *   mel(f) = 2595 log10(1 + f / 700), step = (mel(hi) - mel(lo)) / (M + 2) (M + 2, not M + 1,
 *   as the kernel divides), b[i] = floor((N + 1) * 700 (10^((mel(lo) + i step) / 2595) - 1) / sr)
 * and column i of the [N / 2 + 1, M] matrix, l, c, h = b[i], b[i + 1], b[i + 2]:
 *   1 at row c, (j - l) / (c - l) for l <= j < c, (h - j) / (h - c) for c < j < h, else 0,
 * divided in float (double for a double output) and cast, as the kernel's T divides: an integer
 * output is 1 at row c only. */
olg_status olg__sym_onnx_mel_weight_matrix(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value a[5];
  for (size_t i = 0; i < 5; i++) {
    OLG_TRY(olg_lower_arg_value(cx, i, &a[i]));
    OLG_TRY(olg__emit_cast(cx, a[i], i < 3 ? OLG_INT64 : OLG_DOUBLE, &a[i]));
    OLG_TRY(olg__emit_reshape_static(cx, a[i], NULL, 0, &a[i]));
  }
  olg_dtype to = (olg_dtype)olg__src_attr_int(cx, "output_datatype", OLG_FLOAT);
  olg_dtype ct = to == OLG_DOUBLE ? OLG_DOUBLE : OLG_FLOAT;
  olg_value one, two, k, m2, lm, hm, step, i, e, b, idx, l, c, h, nb, j, up, dn, v, w, y;
  olg_value mel[2];
  const double ln10 = 2.302585092994045684017991454684;
  for (int q = 0; q < 2; q++) { /* mel(lo), mel(hi) */
    OLG_TRY(olg__const_scalar(cx, OLG_DOUBLE, 700, &k));
    OLG_TRY(olg__emit2(cx, "Div", a[3 + q], k, &v));
    OLG_TRY(olg__const_scalar(cx, OLG_DOUBLE, 1, &k));
    OLG_TRY(olg__emit2(cx, "Add", v, k, &v));
    OLG_TRY(olg__emit1(cx, "Log", v, &v));
    OLG_TRY(olg__const_scalar(cx, OLG_DOUBLE, ln10, &k));
    OLG_TRY(olg__emit2(cx, "Div", v, k, &v));
    OLG_TRY(olg__const_scalar(cx, OLG_DOUBLE, 2595, &k));
    OLG_TRY(olg__emit2(cx, "Mul", v, k, &mel[q]));
  }
  lm = mel[0];
  hm = mel[1];
  OLG_TRY(olg__const_i64(cx, 1, &one));
  OLG_TRY(olg__const_i64(cx, 2, &two));
  OLG_TRY(olg__emit2(cx, "Add", a[0], two, &m2));
  OLG_TRY(olg__emit2(cx, "Sub", hm, lm, &step));
  OLG_TRY(olg__emit_cast(cx, m2, OLG_DOUBLE, &v));
  OLG_TRY(olg__emit2(cx, "Div", step, v, &step));
  OLG_TRY(olg__emit_arange_rt(cx, m2, &i));
  OLG_TRY(olg__emit_cast(cx, i, OLG_DOUBLE, &i));
  OLG_TRY(olg__emit2(cx, "Mul", step, i, &v));
  OLG_TRY(olg__emit2(cx, "Add", lm, v, &v));
  OLG_TRY(olg__const_scalar(cx, OLG_DOUBLE, 2595, &k));
  OLG_TRY(olg__emit2(cx, "Div", v, k, &e));
  OLG_TRY(olg__const_scalar(cx, OLG_DOUBLE, 10, &k));
  OLG_TRY(olg__emit2(cx, "Pow", k, e, &v));
  OLG_TRY(olg__const_scalar(cx, OLG_DOUBLE, 1, &k));
  OLG_TRY(olg__emit2(cx, "Sub", v, k, &v));
  OLG_TRY(olg__const_scalar(cx, OLG_DOUBLE, 700, &k));
  OLG_TRY(olg__emit2(cx, "Mul", k, v, &v)); /* the edges in hertz */
  OLG_TRY(olg__emit2(cx, "Add", a[1], one, &w));
  OLG_TRY(olg__emit_cast(cx, w, OLG_DOUBLE, &w));
  OLG_TRY(olg__emit2(cx, "Mul", w, v, &v));
  OLG_TRY(olg__emit_cast(cx, a[2], OLG_DOUBLE, &w));
  OLG_TRY(olg__emit2(cx, "Div", v, w, &v));
  OLG_TRY(olg__emit1(cx, "Floor", v, &v));
  OLG_TRY(olg__emit_cast(cx, v, OLG_INT64, &b));
  OLG_TRY(olg__emit_arange_rt(cx, a[0], &idx));
  OLG_TRY(olg__emit_gather(cx, b, idx, 0, &l));
  OLG_TRY(olg__emit2(cx, "Add", idx, one, &idx));
  OLG_TRY(olg__emit_gather(cx, b, idx, 0, &c));
  OLG_TRY(olg__emit2(cx, "Add", idx, one, &idx));
  OLG_TRY(olg__emit_gather(cx, b, idx, 0, &h));
  OLG_TRY(olg__emit_unsqueeze(cx, l, (const int64_t[]){0}, 1, &l)); /* [1, M] */
  OLG_TRY(olg__emit_unsqueeze(cx, c, (const int64_t[]){0}, 1, &c));
  OLG_TRY(olg__emit_unsqueeze(cx, h, (const int64_t[]){0}, 1, &h));
  OLG_TRY(olg__emit2(cx, "Div", a[1], two, &nb));
  OLG_TRY(olg__emit2(cx, "Add", nb, one, &nb));
  OLG_TRY(olg__emit_arange_rt(cx, nb, &j));
  OLG_TRY(olg__emit_unsqueeze(cx, j, (const int64_t[]){1}, 1, &j)); /* [N / 2 + 1, 1] */
  /* the rising edge (j - l) / (c - l) and the falling one (h - j) / (h - c) */
  olg_value m1, m2b, zero, onef;
  OLG_TRY(diff_ratio(cx, j, l, c, l, ct, &up));
  OLG_TRY(diff_ratio(cx, h, j, h, c, ct, &dn));
  OLG_TRY(olg__const_scalar(cx, ct, 0, &zero));
  OLG_TRY(olg__const_scalar(cx, ct, 1, &onef));
  OLG_TRY(olg__emit2(cx, "Greater", j, c, &m1)); /* c < j < h */
  OLG_TRY(olg__emit2(cx, "Less", j, h, &m2b));
  OLG_TRY(olg__emit2(cx, "And", m1, m2b, &m1));
  OLG_TRY(olg__emit(cx, "Where", (const olg_value[]){m1, dn, zero}, 3, &y));
  OLG_TRY(olg__emit2(cx, "Less", j, l, &m1)); /* l <= j < c */
  OLG_TRY(olg__emit1(cx, "Not", m1, &m1));
  OLG_TRY(olg__emit2(cx, "Less", j, c, &m2b));
  OLG_TRY(olg__emit2(cx, "And", m1, m2b, &m1));
  OLG_TRY(olg__emit(cx, "Where", (const olg_value[]){m1, up, y}, 3, &y));
  OLG_TRY(olg__emit2(cx, "Equal", j, c, &m1));
  OLG_TRY(olg__emit(cx, "Where", (const olg_value[]){m1, onef, y}, 3, &y));
  OLG_TRY(olg__emit_cast(cx, y, to, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* ------------------------------------------------------------------------------------------ */
/* torch.fft: aten::fft_fft/ifft/rfft/irfft (Tensor self, int? n, int dim=-1, str? norm) and the
 * n-D forms fft_fftn/ifftn/rfftn/irfftn (int[1]? s, int[1]? dim: all, or the last len(s)) and
 * fft_fft2/... (dim [-2, -1]), through olg__emit_dft, one axis at a time. A complex value is
 * carried as a real tensor with a last dim of 2 (the front end declares the source value
 * complex: olg__src_arg_complex); a real input gets a last dim of 1. rfft transforms its last
 * dim onesided first, irfft its last dim complex-to-real last. norm scales each axis of length
 * L: "backward" 1 forward and 1/L inverse, "forward" the other way round, "ortho" 1/sqrt(L). */
typedef enum { FFT_C2C, FFT_R2C, FFT_C2R } fft_kind;

static olg_status fft(olg_lower *cx, fft_kind kind, bool inverse, int nd_dims) {
  olg_value x, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  bool cplx = olg__src_arg_complex(cx, 0);
  int32_t rank;
  OLG_TRY(olg__input_rank(cx, x, &rank));
  int32_t lr = cplx ? rank - 1 : rank; /* the logical (complex) rank */
  if (lr < 1) /* (torch's fft wants a dim; a complex one of rank 0 made lr -1: no bound on dims) */
    return olg__errf(cx, OLG_ERR_INVALID_ARG, "fft of a %stensor of rank %d (it takes one of rank "
                     ">= 1)", cplx ? "complex " : "", (int)lr);
  if (kind == FFT_R2C && cplx)
    return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "rfft of a complex tensor (torch takes real input only)");
  if (!cplx) {
    int64_t last = rank;
    OLG_TRY(olg__emit_unsqueeze(cx, x, &last, 1, &x));
    if (kind == FFT_C2R) { /* a real spectrum: imaginary parts 0 */
      olg_value z, parts[2];
      OLG_TRY(olg__const_like(cx, x, 0.0, &z));
      parts[0] = x;
      OLG_TRY(olg__emit2(cx, "Mul", x, z, &parts[1]));
      OLG_TRY(olg__emit_concat(cx, parts, 2, rank, &x));
    }
  }
  int64_t dims[OLG_MAX_RANK], lens[OLG_MAX_RANK];
  size_t nd = 1;
  if (nd_dims == 0) { /* 1-D: int? n, int dim */
    int64_t n, d;
    if (olg_lower_arg_is_none(cx, 1)) n = -1;
    else OLG_TRY(olg_lower_arg_int(cx, 1, &n));
    OLG_TRY(olg__arg_int_or(cx, 2, -1, &d));
    dims[0] = d;
    lens[0] = n;
  } else {
    const int64_t *s = NULL, *dv = NULL;
    size_t ns = 0, ndv = 0;
    if (!olg_lower_arg_is_none(cx, 1)) OLG_TRY(olg_lower_arg_ints(cx, 1, &s, &ns));
    if (!olg_lower_arg_is_none(cx, 2)) OLG_TRY(olg_lower_arg_ints(cx, 2, &dv, &ndv));
    static const int64_t last2[2] = {-2, -1};
    if (!dv && nd_dims == 2) { dv = last2; ndv = 2; }
    if (s && dv && ns != ndv)
      return olg__errf(cx, OLG_ERR_INVALID_ARG, "fft: s has %zu lengths for %zu dims", ns, ndv);
    nd = dv ? ndv : s ? ns : (size_t)lr;
    if (nd < 1 || nd > (size_t)lr) return olg__errf(cx, OLG_ERR_INVALID_ARG, "fft over %zu dims of a rank-%d tensor", nd, lr);
    for (size_t k = 0; k < nd; k++) {
      dims[k] = dv ? dv[k] : (int64_t)(lr - (int32_t)nd + (int32_t)k);
      lens[k] = s && s[k] != -1 ? s[k] : -1;
    }
  }
  for (size_t k = 0; k < nd; k++) {
    int64_t a = olg__norm_axis(dims[k], lr);
    if (a < 0) return olg__axes_error(cx, "fft", &dims[k], 1, lr);
    dims[k] = a;
  }
  const char *norm;
  OLG_TRY(olg__arg_string_or(cx, 3, "backward", &norm));
  int nm = strcmp(norm, "backward") == 0 ? 0 : strcmp(norm, "forward") == 0 ? 1 : strcmp(norm, "ortho") == 0 ? 2 : -1;
  if (nm < 0) return olg__errf(cx, OLG_ERR_INVALID_ARG, "fft: norm \"%s\" (backward, forward or ortho)", norm);
  /* the order: rfft's onesided axis first, irfft's complex-to-real axis last */
  size_t order[OLG_MAX_RANK];
  for (size_t k = 0; k < nd; k++) order[k] = k;
  if (kind == FFT_R2C) {
    order[0] = nd - 1;
    for (size_t k = 1; k < nd; k++) order[k] = k - 1;
  }
  for (size_t j = 0; j < nd; j++) {
    size_t k = order[j];
    bool special = (kind == FFT_R2C && j == 0) || (kind == FFT_C2R && j == nd - 1);
    olg_dft p = {special && kind == FFT_C2R ? OLG_DFT_C2R : OLG_DFT_C2C, dims[k], OLG_NO_VALUE,
                 inverse, special && kind == FFT_R2C, OLG_NO_VALUE, 1.0};
    int64_t size = olg__dim(cx, x, (int32_t)dims[k]);
    int64_t len = lens[k] >= 0 ? lens[k] : p.kind == OLG_DFT_C2R ? (size > 0 ? 2 * (size - 1) : -1) : size;
    if (lens[k] >= 0 || p.kind == OLG_DFT_C2R) {
      if (len < 1) return olg__unsupportedf(cx, 0, "irfft along a dim whose size is not known at conversion time");
      OLG_TRY(olg__const_i64(cx, len, &p.length));
    }
    if (nm != 0) {
      if (len < 1) return olg__unsupportedf(cx, 0, "fft with norm \"%s\" along a dim whose size is not known", norm);
      double f = nm == 2 ? sqrt((double)len) : (double)len;
      p.scale = inverse ? f : 1.0 / f; /* the inverse's 1/L is olg__emit_dft's */
    }
    OLG_TRY(olg__emit_dft(cx, &p, x, &x));
  }
  y = x;
  return olg_lower_bind_output(cx, 0, y);
}

olg_status olg__sym_fft_fft(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return fft(cx, FFT_C2C, false, 0);
}
olg_status olg__sym_fft_ifft(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return fft(cx, FFT_C2C, true, 0);
}
olg_status olg__sym_fft_rfft(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return fft(cx, FFT_R2C, false, 0);
}
olg_status olg__sym_fft_irfft(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return fft(cx, FFT_C2R, true, 0);
}
olg_status olg__sym_fft_fftn(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return fft(cx, FFT_C2C, false, 1);
}
olg_status olg__sym_fft_ifftn(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return fft(cx, FFT_C2C, true, 1);
}
olg_status olg__sym_fft_rfftn(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return fft(cx, FFT_R2C, false, 1);
}
olg_status olg__sym_fft_irfftn(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return fft(cx, FFT_C2R, true, 1);
}
olg_status olg__sym_fft_fft2(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return fft(cx, FFT_C2C, false, 2);
}
olg_status olg__sym_fft_ifft2(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return fft(cx, FFT_C2C, true, 2);
}
olg_status olg__sym_fft_rfft2(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return fft(cx, FFT_R2C, false, 2);
}
olg_status olg__sym_fft_irfft2(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return fft(cx, FFT_C2R, true, 2);
}

/* ------------------------------------------------------------------------------------------ */
/* STFT */

/* Frames of x [B, L, c] (c 1: real, 2: complex), flen long every step (L known), times win
 * ([flen], or OLG_NO_VALUE), each transformed (onesided: n/2 + 1 bins): [B, frames, bins, 2].
 * The one emitter of ONNX STFT and aten stft: the frames by one Gather of a constant index
 * table, the transform by olg__emit_dft (the DFT op from 17, MatMuls below). */
/* The frame index table [nf, flen] of a frame step known only at run time (stepv, 0-D):
 * f * step + t for f < (len - flen) / step + 1, the frames counted by olg__emit_arange_rt (9).
 * flv: a frame length known only at run time (then t too is a run-time range), or OLG_NO_VALUE. */
static olg_status frame_table_rt(olg_lower *cx, olg_value stepv, int64_t len, int64_t flen,
                                 olg_value flv, olg_value *out) {
  olg_value sv, num, one, nf, f, tv;
  OLG_TRY(olg__emit_cast(cx, stepv, OLG_INT64, &sv));
  OLG_TRY(olg__emit_reshape_static(cx, sv, NULL, 0, &sv));
  OLG_TRY(olg__const_i64(cx, 1, &one));
  if (flv != OLG_NO_VALUE) {
    OLG_TRY(olg__const_i64(cx, len, &num));
    OLG_TRY(olg__emit2(cx, "Sub", num, flv, &num));
    OLG_TRY(olg__emit_arange_rt(cx, flv, &tv));
    OLG_TRY(olg__emit_unsqueeze(cx, tv, (const int64_t[]){0}, 1, &tv));
  } else {
    int64_t *tp = olg__lower_alloc(cx, (size_t)flen * sizeof *tp);
    if (!tp) return OLG_ERR_NOMEM;
    for (int64_t t = 0; t < flen; t++) tp[t] = t;
    OLG_TRY(olg__const_i64(cx, len - flen, &num));
    OLG_TRY(olg__const_tensor_kept(cx, OLG_INT64, 2, (const int64_t[]){1, flen}, tp,
                                   (size_t)flen * sizeof *tp, &tv));
  }
  OLG_TRY(olg__emit2(cx, "Div", num, sv, &nf)); /* both >= 0: truncation floors */
  OLG_TRY(olg__emit2(cx, "Add", nf, one, &nf));
  OLG_TRY(olg__emit_arange_rt(cx, nf, &f));
  OLG_TRY(olg__emit_unsqueeze(cx, f, (const int64_t[]){1}, 1, &f));
  OLG_TRY(olg__emit2(cx, "Mul", f, sv, &f));
  return olg__emit2(cx, "Add", f, tv, out);
}

/* step < 0: the step is stepv, known only at run time (frames counted at run time, from 9).
 * flv: the frame length known only at run time (flen then unused): the frames and the DFT's
 * matrices computed at run time (9). */
static olg_status emit_stft(olg_lower *cx, olg_value x, int64_t step, olg_value stepv, int64_t flen,
                            olg_value flv, olg_value win, bool onesided, double scale, olg_value *out) {
  int64_t len = olg__dim(cx, x, 1);
  if (len < 0)
    return olg__unsupportedf(cx, 17, "STFT of a signal whose length is not known at conversion "
                                     "time (the frames are gathered by a constant table)");
  if ((step < 1 && stepv == OLG_NO_VALUE) || (flv == OLG_NO_VALUE && (flen < 1 || flen > len)))
    return olg__errf(cx, OLG_ERR_INVALID_ARG, "STFT: frame step %lld and frame length %lld for a "
                     "signal of %lld", (long long)step, (long long)flen, (long long)len);
  olg_value iv, frames;
  if (flv != OLG_NO_VALUE) {
    OLG_TRY(olg__emit_cast(cx, flv, OLG_INT64, &flv));
    OLG_TRY(olg__emit_reshape_static(cx, flv, NULL, 0, &flv));
    if (step >= 1) OLG_TRY(olg__const_i64(cx, step, &stepv));
  }
  if (step < 1 || flv != OLG_NO_VALUE) {
    OLG_TRY(frame_table_rt(cx, stepv, len, flen, flv, &iv));
  } else {
    int64_t nf = (len - flen) / step + 1;
    if (nf > (1 << 20) / flen)
      return olg__unsupportedf(cx, 17, "STFT of more than 2^20 frame samples (decomposed)");
    int64_t *idx = olg__lower_alloc(cx, (size_t)(nf * flen) * sizeof *idx);
    if (!idx) return OLG_ERR_NOMEM;
    for (int64_t f = 0; f < nf; f++)
      for (int64_t t = 0; t < flen; t++) idx[f * flen + t] = f * step + t;
    OLG_TRY(olg__const_tensor_kept(cx, OLG_INT64, 2, (const int64_t[]){nf, flen}, idx,
                                   (size_t)(nf * flen) * sizeof *idx, &iv));
  }
  OLG_TRY(olg__emit_gather(cx, x, iv, 1, &frames)); /* [B, nf, flen, c] */
  if (win != OLG_NO_VALUE) {
    OLG_TRY(olg__emit_cast_like(cx, win, frames, &win));
    OLG_TRY(olg__emit_reshape_static(cx, win, (const int64_t[]){1, 1, flv != OLG_NO_VALUE ? -1 : flen, 1},
                                     4, &win));
    OLG_TRY(olg__emit2(cx, "Mul", frames, win, &frames));
  }
  olg_dft p = {OLG_DFT_C2C, 2, OLG_NO_VALUE, false, onesided, flv, scale};
  return olg__emit_dft(cx, &p, frames, out);
}

/* ONNX STFT(signal [B, L, 1|2], frame_step, window?, frame_length?; onesided), registered below
 * 17: a frame step known only at run time counts the frames at run time (9); a frame length
 * (frame_length, or the window's size) known only at run time also computes the frames' index
 * table and the DFT's matrices at run time (9). */
olg_status olg__sym_onnx_stft(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, stepv, win, flv, y;
  double step, fl = -1;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg_lower_arg_value(cx, 1, &stepv));
  OLG_TRY(olg__arg_value_or_none(cx, 2, &win));
  OLG_TRY(olg__arg_value_or_none(cx, 3, &flv));
  bool step_known = olg__known_scalar(cx, stepv, &step);
  if (!step_known) step = -1; /* the frames counted at run time */
  int64_t wl = win != OLG_NO_VALUE ? olg__dim(cx, win, 0) : -1;
  olg_value flrt = OLG_NO_VALUE; /* the frame length, known only at run time */
  if (flv != OLG_NO_VALUE && !olg__known_scalar(cx, flv, &fl)) {
    if (wl >= 1) fl = (double)wl; /* the window's length is the frame length */
    else flrt = flv;
  }
  if (fl < 0 && flrt == OLG_NO_VALUE) fl = (double)wl;
  /* NaN, beyond any signal either way, or a known step below 1 (which would count the frames
     at run time by it): out of range, and not converted to int64 (compared with the window's
     length below: checked before) */
  if ((step_known && !(step >= 1 && step <= 0x1p40)) || !(fl >= -0x1p40 && fl <= 0x1p40))
    return olg__errf(cx, OLG_ERR_INVALID_ARG, "STFT: frame step %g or frame length %g out of range",
                     step, fl);
  if (fl < 1 && flrt == OLG_NO_VALUE && win != OLG_NO_VALUE) { /* the window's size, at run time */
    OLG_TRY(olg__dim_tensor(cx, win, 0, &flrt));
  } else if (flrt == OLG_NO_VALUE && (fl < 1 || (wl >= 0 && wl != (int64_t)fl))) {
    return olg_lower_unsupported(cx, "STFT without a frame length or a window, or whose frame "
                                     "length differs from the window's", 17);
  }
  bool onesided = olg__src_attr_int(cx, "onesided", 1) != 0;
  OLG_TRY(emit_stft(cx, x, (int64_t)step, step < 1 ? stepv : OLG_NO_VALUE, (int64_t)fl, flrt, win,
                    onesided, 1.0, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* aten::stft(Tensor self [L] or [B, L], int n_fft, int? hop_length=None, int? win_length=None,
 * Tensor? window=None, bool normalized=False, bool? onesided=None, bool? return_complex=None):
 * torch's result [B, n_fft/2 + 1 (onesided) or n_fft, frames] complex, carried as [..., 2] (the
 * same tensor whether return_complex or view_as_real). A window shorter than n_fft is padded
 * with zeros on both sides, as torch centres it; torch.stft's center padding is a pad node of
 * its own before this one. */
olg_status olg__sym_stft(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  if (olg__src_arg_complex(cx, 0))
    return olg_lower_unsupported(cx, "stft of a complex signal (a onesided real transform only)", -1);
  olg_value x, win, y;
  int64_t n_fft, hop, wlen;
  int normalized, onesided;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg_lower_arg_int(cx, 1, &n_fft));
  OLG_TRY(olg__arg_int_or(cx, 2, n_fft / 4, &hop));
  OLG_TRY(olg__arg_int_or(cx, 3, n_fft, &wlen));
  OLG_TRY(olg__arg_value_or_none(cx, 4, &win));
  OLG_TRY(olg__arg_bool_or(cx, 5, 0, &normalized));
  OLG_TRY(olg__arg_bool_or(cx, 6, 1, &onesided));
  int32_t rank = olg__rank(cx, x);
  if (rank != 1 && rank != 2)
    return olg__errf(cx, OLG_ERR_INVALID_ARG, "stft of a rank-%d signal (1 or 2)", rank);
  if (n_fft < 1 || wlen < 1 || wlen > n_fft)
    return olg__errf(cx, OLG_ERR_INVALID_ARG, "stft: n_fft %lld, win_length %lld",
                     (long long)n_fft, (long long)wlen);
  if (win != OLG_NO_VALUE && wlen < n_fft) { /* centred in n_fft */
    int64_t left = (n_fft - wlen) / 2, pads[2] = {left, n_fft - wlen - left};
    OLG_TRY(olg__emit_pad(cx, win, "constant", pads, 2, 0.0, &win));
  } else if (win == OLG_NO_VALUE && wlen < n_fft) { /* a rectangular window of wlen, centred */
    int64_t left = (n_fft - wlen) / 2;
    float *w = olg__lower_alloc(cx, (size_t)n_fft * sizeof *w);
    if (!w) return OLG_ERR_NOMEM;
    for (int64_t i = 0; i < n_fft; i++) w[i] = i >= left && i < left + wlen ? 1.0f : 0.0f;
    OLG_TRY(olg__const_f32s(cx, w, (size_t)n_fft, &win));
  }
  if (rank == 1) OLG_TRY(olg__emit_unsqueeze(cx, x, (const int64_t[]){0}, 1, &x));
  OLG_TRY(olg__emit_unsqueeze(cx, x, (const int64_t[]){2}, 1, &x)); /* [B, L, 1] */
  OLG_TRY(emit_stft(cx, x, hop, OLG_NO_VALUE, n_fft, OLG_NO_VALUE, win, onesided != 0,
                    normalized ? 1.0 / sqrt((double)n_fft) : 1.0, &y));
  OLG_TRY(olg__emit_transpose(cx, y, (const int64_t[]){0, 2, 1, 3}, 4, &y)); /* [B, bins, nf, 2] */
  if (rank == 1) OLG_TRY(olg__emit_squeeze(cx, y, (const int64_t[]){0}, 1, &y));
  return olg_lower_bind_output(cx, 0, y);
}
