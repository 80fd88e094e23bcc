/* onnxlegal — signal processing: the window functions
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
