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

