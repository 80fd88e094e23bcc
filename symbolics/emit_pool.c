/* onnxlegal — a window pool the target's AveragePool or LpPool cannot take, decomposed exactly:
 * AveragePool-19's dilations below 19, LpPool-18's dilations and ceil_mode below 18.
 *
 * The window sums are a grouped Conv with a kernel of ones (one group per channel) at the
 * pool's strides, dilations and pads, the end pads grown so that the floor rule gives the
 * ceil rule's output size; AveragePool then divides by the taps counted per output position
 * (a constant: the taps inside the input, or inside the padded input with count_include_pad),
 * LpPool sums |x|^p and takes the p-th root. ONNX Runtime counts and sizes so (a last window
 * under ceil_mode starts inside the input or its begin padding). Needs the channels and the
 * spatial sizes known. */
#include <math.h>
#include <string.h>

#include "emit.h"
#include "emit_nn.h"
#include "../lib/lower.h"

bool olg__window_pool_decomposes(const olg_lower *cx, const olg_window_pool *w) {
  int opset = olg__opset(cx);
  bool dilated = false;
  for (size_t j = 0; j < w->nk; j++) dilated = dilated || w->dilations[j] != 1;
  if (w->lp) return opset < 18 && (dilated || w->ceil_mode);
  return opset < 19 && dilated;
}

olg_status olg__emit_window_pool(olg_lower *cx, olg_value x, const olg_window_pool *w,
                                 olg_value *out) {
  const char *op = w->lp ? "LpPool" : "AveragePool";
  int native = w->lp ? 18 : 19;
  size_t nk = w->nk;
  int32_t rank = olg__rank(cx, x);
  if (w->auto_pad)
    return olg__unsupportedf(cx, native, "%s with %s and auto_pad", op,
                             w->lp ? "dilations or ceil_mode" : "dilations");
  if (rank != (int32_t)nk + 2 || nk < 1 || nk > OLG_MAX_SPATIAL)
    return olg__unsupportedf(cx, native, "%s of an input of unknown rank (decomposed)", op);
  int64_t C = olg__dim(cx, x, 1), in[OLG_MAX_SPATIAL], o[OLG_MAX_SPATIAL];
  int64_t pads[2 * OLG_MAX_SPATIAL];
  if (C <= 0)
    return olg__unsupportedf(cx, native, "%s decomposed of an input whose channels are not known", op);
  size_t total = 1;
  for (size_t j = 0; j < nk; j++) {
    in[j] = olg__dim(cx, x, (int32_t)j + 2);
    if (in[j] < 0)
      return olg__unsupportedf(cx, native, "%s decomposed of an input whose spatial size is not known", op);
    int64_t k = w->kernel[j], s = w->strides[j], d = w->dilations[j];
    int64_t pb = w->pads[j], pe = w->pads[j + nk];
    if (k <= 0 || s <= 0 || d <= 0 || pb < 0 || pe < 0)
      return olg_lower_error(cx, OLG_ERR_INVALID_MODEL, "kernel_shape, strides and dilations must be > 0");
    if (k > OLG_POOL_ARG_MAX || s > OLG_POOL_ARG_MAX || d > OLG_POOL_ARG_MAX ||
        pb > OLG_POOL_ARG_MAX || pe > OLG_POOL_ARG_MAX || in[j] > OLG_POOL_IN_MAX)
      return olg_lower_error(cx, OLG_ERR_LIMIT, "kernel_shape, strides, dilations or pads past "
                                                "2^31, or an input dim past 2^40");
    int64_t ke = d * (k - 1) + 1, num = in[j] + pb + pe - ke;
    if (num < 0) return olg_lower_error(cx, OLG_ERR_INVALID_MODEL, "the padded input is smaller than the window");
    o[j] = num / s + 1;
    if (w->ceil_mode) {
      o[j] = (num + s - 1) / s + 1;
      if ((o[j] - 1) * s >= in[j] + pb) o[j]--;
    }
    int64_t need = (o[j] - 1) * s + ke - in[j] - pb;
    pads[j] = pb;
    pads[j + nk] = need > pe ? need : pe;
    if (o[j] > ((int64_t)1 << 24)) return olg_lower_error(cx, OLG_ERR_LIMIT, "pool output too large");
    total *= (size_t)o[j];
  }
  OLG_TRY(olg_lower_decompose(cx, w->lp ? "LpPool by |x|^p, a grouped Conv of ones and the p-th root"
                                        : "AveragePool by a grouped Conv of ones divided by the taps counted",
                              native));
  olg_dtype t = olg__dtype(cx, x);
  olg_value v = x, ones, y;
  if (w->lp && w->p != 1) {
    olg_value pw;
    OLG_TRY(olg__emit1(cx, "Abs", x, &v));
    OLG_TRY(olg__const_real(cx, t, 0, NULL, (const double[]){(double)w->p}, 1, &pw));
    OLG_TRY(olg__emit2(cx, "Pow", v, pw, &v));
  } else if (w->lp) {
    OLG_TRY(olg__emit1(cx, "Abs", x, &v));
  }
  /* the kernel: [C, 1, k...] of ones */
  int64_t wdims[2 + OLG_MAX_SPATIAL] = {C, 1};
  size_t nw = (size_t)C;
  for (size_t j = 0; j < nk; j++) {
    wdims[2 + j] = w->kernel[j];
    nw *= (size_t)w->kernel[j];
  }
  double *wv = olg__lower_alloc(cx, nw * sizeof *wv);
  if (!wv) return OLG_ERR_NOMEM;
  for (size_t i = 0; i < nw; i++) wv[i] = 1;
  OLG_TRY(olg__const_real(cx, t, (int32_t)nk + 2, wdims, wv, nw, &ones));
  olg_node_id nd;
  OLG_TRY(olg_lower_emit_begin(cx, "", "Conv", &nd));
  OLG_TRY(olg_lower_emit_input(cx, nd, v));
  OLG_TRY(olg_lower_emit_input(cx, nd, ones));
  OLG_TRY(olg_lower_emit_attr_ints(cx, nd, "kernel_shape", w->kernel, nk));
  OLG_TRY(olg_lower_emit_attr_ints(cx, nd, "strides", w->strides, nk));
  OLG_TRY(olg_lower_emit_attr_ints(cx, nd, "dilations", w->dilations, nk));
  OLG_TRY(olg_lower_emit_attr_ints(cx, nd, "pads", pads, 2 * nk));
  OLG_TRY(olg_lower_emit_attr_int(cx, nd, "group", C));
  OLG_TRY(olg_lower_emit_end(cx, nd, 1, &y));
  if (w->lp) {
    if (w->p == 1) return (*out = y, OLG_OK);
    olg_value inv;
    OLG_TRY(olg__const_real(cx, t, 0, NULL, (const double[]){1.0 / (double)w->p}, 1, &inv));
    return olg__emit2(cx, "Pow", y, inv, out);
  }
  /* the taps counted per output position: a product over the axes */
  int64_t cnt[OLG_MAX_SPATIAL][64];
  int64_t *cn[OLG_MAX_SPATIAL];
  for (size_t j = 0; j < nk; j++) {
    cn[j] = o[j] <= 64 ? cnt[j] : olg__lower_alloc(cx, (size_t)o[j] * sizeof(int64_t));
    if (!cn[j]) return OLG_ERR_NOMEM;
    int64_t lo = w->count_include_pad ? -w->pads[j] : 0;
    int64_t hi = w->count_include_pad ? in[j] + w->pads[j + nk] : in[j];
    for (int64_t i = 0; i < o[j]; i++) {
      int64_t c = 0;
      for (int64_t tp = 0; tp < w->kernel[j]; tp++) {
        int64_t q = i * w->strides[j] - w->pads[j] + tp * w->dilations[j];
        c += q >= lo && q < hi;
      }
      cn[j][i] = c ? c : 1; /* no tap: the sum is 0, and so is the average */
    }
  }
  double *cv = olg__lower_alloc(cx, total * sizeof *cv);
  if (!cv) return OLG_ERR_NOMEM;
  for (size_t i = 0; i < total; i++) {
    size_t r = i;
    double c = 1;
    for (size_t j = nk; j-- > 0;) {
      c *= (double)cn[j][r % (size_t)o[j]];
      r /= (size_t)o[j];
    }
    cv[i] = c;
  }
  olg_value counts;
  OLG_TRY(olg__const_real(cx, t, (int32_t)nk, o, cv, total, &counts));
  return olg__emit2(cx, "Div", y, counts, out);
}
