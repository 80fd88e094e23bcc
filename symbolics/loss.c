/* onnxlegal — losses: ONNX NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (12) below 12.
 *
 * NLL: loss[n, d...] = -input[n, target[n, d...], d...] * weight[target] (0 where the target is
 * ignore_index); reduction none, sum, or mean = sum / sum of the weights of the targets not
 * ignored. The pick is a Gather from the flattened input at n*C*D + target*D + d (a constant
 * base plus target * D): exact at every opset, for static shapes. An ignored target picks
 * element 0 and is zeroed by olg__emit_where (Where-9, a Gather pick below), since input * 0 is
 * not 0 for an infinite input. SoftmaxCrossEntropyLoss is the NLL of LogSoftmax over axis 1. */
#include <string.h>

#include "emit.h"
#include "emit_math.h"
#include "symbolics.h"
#include "emit_nn.h"

/* NLL of log-probabilities lp [N, C, d...] (static shape) and target [N, d...]; weight may be
 * OLG_NO_VALUE; has_ii with ii the ignore_index. */
static olg_status nll(olg_lower *cx, olg_value lp, olg_value target, olg_value weight,
                      const char *reduction, bool has_ii, int64_t ii, olg_value *out) {
  int64_t dims[OLG_MAX_RANK];
  int32_t rank;
  if (!olg__static_shape(cx, lp, dims, &rank) || rank < 2)
    return olg_lower_unsupported(cx, "NegativeLogLikelihoodLoss of an input whose shape is not known", 12);
  bool sum = strcmp(reduction, "sum") == 0, mean = strcmp(reduction, "mean") == 0;
  if (!sum && !mean && strcmp(reduction, "none") != 0)
    return olg_lower_error(cx, OLG_ERR_INVALID_MODEL, "reduction must be none, sum or mean");
  int64_t n = dims[0], c = dims[1], d = 1;
  for (int32_t i = 2; i < rank; i++) d *= dims[i];
  /* base[n, d...] = n*C*D + d, shaped as the target */
  int64_t tdims[OLG_MAX_RANK];
  tdims[0] = n;
  for (int32_t i = 2; i < rank; i++) tdims[i - 1] = dims[i];
  size_t cnt = (size_t)(n * d);
  int64_t *base = olg__lower_alloc(cx, (cnt ? cnt : 1) * sizeof *base);
  if (!base) return OLG_ERR_NOMEM;
  for (int64_t i = 0; i < n; i++)
    for (int64_t j = 0; j < d; j++) base[i * d + j] = i * c * d + j;
  olg_value bv, t, ign = OLG_NO_VALUE, zero_i, idx, flat, picked, loss, dv;
  OLG_TRY(olg__const_tensor_kept(cx, OLG_INT64, rank - 1, tdims, base, cnt * sizeof *base, &bv));
  OLG_TRY(olg__emit_cast(cx, target, OLG_INT64, &t));
  if (has_ii) {
    olg_value iiv;
    OLG_TRY(olg__const_i64(cx, ii, &iiv));
    OLG_TRY(olg__emit2(cx, "Equal", t, iiv, &ign));
    OLG_TRY(olg__const_i64(cx, 0, &zero_i));
    OLG_TRY(olg__emit_where(cx, ign, zero_i, t, &t));
  }
  OLG_TRY(olg__const_i64(cx, d, &dv));
  OLG_TRY(olg__emit2(cx, "Mul", t, dv, &idx));
  OLG_TRY(olg__emit2(cx, "Add", idx, bv, &idx));
  OLG_TRY(olg__emit_reshape_static(cx, lp, (const int64_t[]){-1}, 1, &flat));
  OLG_TRY(olg__emit_gather(cx, flat, idx, 0, &picked));
  OLG_TRY(olg__emit1(cx, "Neg", picked, &loss));
  olg_value w = OLG_NO_VALUE, zero;
  if (weight != OLG_NO_VALUE) {
    OLG_TRY(olg__emit_gather(cx, weight, t, 0, &w));
    OLG_TRY(olg__emit2(cx, "Mul", loss, w, &loss));
  }
  if (has_ii) {
    OLG_TRY(olg__const_like(cx, loss, 0, &zero));
    OLG_TRY(olg__emit_where(cx, ign, zero, loss, &loss));
    if (mean) { /* the weights (or ones) of the targets not ignored */
      olg_value one = OLG_NO_VALUE;
      if (w == OLG_NO_VALUE) OLG_TRY(olg__const_like(cx, loss, 1, &one));
      OLG_TRY(olg__emit_where(cx, ign, zero, w != OLG_NO_VALUE ? w : one, &w));
    }
  }
  if (!sum && !mean) {
    *out = loss;
    return OLG_OK;
  }
  OLG_TRY(olg__emit_reduce(cx, OLG_REDUCE_SUM, loss, NULL, 0, 0, &loss));
  if (sum) {
    *out = loss;
    return OLG_OK;
  }
  olg_value den;
  if (w != OLG_NO_VALUE) {
    OLG_TRY(olg__emit_reduce(cx, OLG_REDUCE_SUM, w, NULL, 0, 0, &den));
  } else {
    OLG_TRY(olg__const_like(cx, loss, (double)(n * d), &den));
  }
  return olg__emit2(cx, "Div", loss, den, out);
}

static olg_status loss_attrs(olg_lower *cx, const char **reduction, bool *has_ii, int64_t *ii) {
  *reduction = olg__src_attr_string(cx, "reduction", "mean");
  *has_ii = olg_lower_src_attr_has(cx, "ignore_index");
  *ii = olg__src_attr_int(cx, "ignore_index", 0);
  return OLG_OK;
}

/* NegativeLogLikelihoodLoss (12) below 12 */
static olg_status nll_loss(olg_lower *cx) {
  olg_value x, t, w, y;
  const char *reduction;
  bool has_ii;
  int64_t ii;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg_lower_arg_value(cx, 1, &t));
  OLG_TRY(olg__arg_value_or_none(cx, 2, &w));
  OLG_TRY(loss_attrs(cx, &reduction, &has_ii, &ii));
  OLG_TRY(nll(cx, x, t, w, reduction, has_ii, ii, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* SoftmaxCrossEntropyLoss (12) below 12: log_prob = LogSoftmax over axis 1, then NLL. */
static olg_status sce_loss(olg_lower *cx) {
  olg_value x, t, w, outs[2];
  const char *reduction;
  bool has_ii;
  int64_t ii;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg_lower_arg_value(cx, 1, &t));
  OLG_TRY(olg__arg_value_or_none(cx, 2, &w));
  OLG_TRY(loss_attrs(cx, &reduction, &has_ii, &ii));
  OLG_TRY(olg__emit_softmax(cx, OLG_LOG_SOFTMAX, x, 1, &outs[1]));
  OLG_TRY(nll(cx, outs[1], t, w, reduction, has_ii, ii, &outs[0]));
  size_t n_out = olg_lower_output_count(cx) > 1 && olg_lower_output_used(cx, 1) ? 2 : 1;
  return olg__bind_outputs(cx, outs, n_out);
}

olg_status olg__sym_onnx_nll_loss(olg_lower *cx, olg_node_id src, void *ud) {
  (void)src, (void)ud;
  return nll_loss(cx);
}

olg_status olg__sym_onnx_sce_loss(olg_lower *cx, olg_node_id src, void *ud) {
  (void)src, (void)ud;
  return sce_loss(cx);
}
