/* onnxlegal — normalization: batch_norm, instance_norm, layer_norm, native_layer_norm, group_norm,
 * native_group_norm, rms_norm, local_response_norm. Arguments as in PyTorch 1.13's schemas (rms_norm
 * and local_response_norm as newer PyTorch / torch.nn.functional define them).
 *
 * The native ops (LayerNormalization-17, GroupNormalization-21, RMSNormalization-23) compute
 * their statistics in float (stash_type 1): a double input takes the decomposition, which stays in
 * double as PyTorch does. GroupNormalization-18 is never emitted: opset 21 redefined its scale
 * and bias (per group at 18, per channel at 21; lib/meaning.c), and 18's is deprecated. An ONNX
 * GroupNormalization node of either version shares group_norm_decomposed below 21. */
#include <float.h>
#include <string.h>

#include "emit.h"
#include "emit_math.h"
#include "emit_nn.h"
#include "emit_src.h"
#include "symbolics.h"


static olg_status known_rank(olg_lower *cx, olg_value x, int32_t min_rank, int32_t *rank) {
  *rank = olg__rank(cx, x);
  if (*rank < 0)
    return olg_lower_error(cx, OLG_ERR_UNSUPPORTED,
                           "the rank of the input is not known at export time");
  if (*rank < min_rank || *rank > OLG_MAX_RANK)
    return olg__errf(cx, OLG_ERR_INVALID_ARG, "the input has rank %d; it needs rank %d to %d",
                     *rank, min_rank, OLG_MAX_RANK);
  return OLG_OK;
}

/* Tensor argument i cast to x's dtype, or (none) a tensor of `shape` filled with `fill`. */
static olg_status param_or_fill(olg_lower *cx, size_t i, olg_value x, olg_value shape, double fill,
                                olg_value *out) {
  olg_value v;
  OLG_TRY(olg__arg_value_or_none(cx, i, &v));
  if (v == OLG_NO_VALUE) return olg__emit_full(cx, shape, olg__dtype(cx, x), fill, out);
  return olg__emit_cast_like(cx, v, x, out);
}

/* Tensor argument i cast to x's dtype, or OLG_NO_VALUE. */
static olg_status param_or_none(olg_lower *cx, size_t i, olg_value x, olg_value *out) {
  OLG_TRY(olg__arg_value_or_none(cx, i, out));
  if (*out == OLG_NO_VALUE) return OLG_OK;
  return olg__emit_cast_like(cx, *out, x, out);
}

/* A per-channel [C] tensor as [C, 1, ..., 1], to broadcast against [N, C, spatial...]. */
static olg_status channel_view(olg_lower *cx, olg_value p, int32_t rank, olg_value *out) {
  if (rank <= 2) {
    *out = p;
    return OLG_OK;
  }
  int64_t axes[OLG_MAX_RANK];
  for (int32_t i = 0; i < rank - 2; i++) axes[i] = i + 1;
  return olg__emit_unsqueeze(cx, p, axes, (size_t)rank - 2, out);
}

/* y = (x - mean) / sqrt(var + eps) over axes (biased variance), as PyTorch normalizes; mean,
 * rstd = 1/sqrt(var + eps) and var kept (keepdims) when asked. */
static olg_status normalize_var(olg_lower *cx, olg_value x, const int64_t *axes, size_t n,
                                double eps, olg_value *y, olg_value *mean, olg_value *rstd,
                                olg_value *var_out) {
  olg_value m, d, sq, var, e, den;
  OLG_TRY(olg__emit_reduce(cx, OLG_REDUCE_MEAN, x, axes, n, 1, &m));
  OLG_TRY(olg__emit2(cx, "Sub", x, m, &d));
  OLG_TRY(olg__emit2(cx, "Mul", d, d, &sq));
  OLG_TRY(olg__emit_reduce(cx, OLG_REDUCE_MEAN, sq, axes, n, 1, &var));
  if (var_out) *var_out = var;
  OLG_TRY(olg__const_like(cx, x, eps, &e));
  OLG_TRY(olg__emit2(cx, "Add", var, e, &var));
  OLG_TRY(olg__emit1(cx, "Sqrt", var, &den));
  OLG_TRY(olg__emit2(cx, "Div", d, den, y));
  if (mean) *mean = m;
  if (rstd) OLG_TRY(olg__emit1(cx, "Reciprocal", den, rstd));
  return OLG_OK;
}

static olg_status normalize(olg_lower *cx, olg_value x, const int64_t *axes, size_t n, double eps,
                            olg_value *y, olg_value *mean, olg_value *rstd) {
  return normalize_var(cx, x, axes, n, eps, y, mean, rstd, NULL);
}

/* y * w + b, either may be OLG_NO_VALUE. */
static olg_status affine(olg_lower *cx, olg_value y, olg_value w, olg_value b, olg_value *out) {
  if (w != OLG_NO_VALUE) OLG_TRY(olg__emit2(cx, "Mul", y, w, &y));
  if (b != OLG_NO_VALUE) OLG_TRY(olg__emit2(cx, "Add", y, b, &y));
  *out = y;
  return OLG_OK;
}

/* InstanceNormalization of x with per-channel scale w and bias b. */
static olg_status emit_instance_norm(olg_lower *cx, olg_value x, olg_value w, olg_value b,
                                     double eps, olg_value *out) {
  olg_node_id nd;
  OLG_TRY(olg_lower_emit_begin(cx, "", "InstanceNormalization", &nd));
  OLG_TRY(olg_lower_emit_input(cx, nd, x));
  OLG_TRY(olg_lower_emit_input(cx, nd, w));
  OLG_TRY(olg_lower_emit_input(cx, nd, b));
  OLG_TRY(olg_lower_emit_attr_float(cx, nd, "epsilon", eps));
  return olg_lower_emit_end(cx, nd, 1, out);
}

/* Inference with running statistics: BatchNormalization (weight/bias default to 1/0). The
 * arguments from `first` on are weight, bias, running_mean, running_var. */
static olg_status running_stats_norm(olg_lower *cx, olg_value x, size_t first, double momentum,
                                     double eps, olg_value *y) {
  olg_value c, w, b, mean, var;
  if (olg_lower_arg_is_none(cx, first + 2) || olg_lower_arg_is_none(cx, first + 3))
    return olg_lower_error(cx, OLG_ERR_INVALID_ARG,
                           "running_mean and running_var are required without batch statistics");
  OLG_TRY(olg__dim_tensor(cx, x, 1, &c));
  OLG_TRY(param_or_fill(cx, first, x, c, 1.0, &w));
  OLG_TRY(param_or_fill(cx, first + 1, x, c, 0.0, &b));
  OLG_TRY(param_or_none(cx, first + 2, x, &mean));
  OLG_TRY(param_or_none(cx, first + 3, x, &var));
  /* ONNX's momentum weighs the running value, PyTorch's the batch value (unused in inference) */
  return olg__emit_batchnorm(cx, x, w, b, mean, var, eps, 1.0 - momentum, y);
}

/* Batch normalization with the batch's own statistics, over every axis of x [N, C, ...] but the
 * channel axis: the one emitter of aten batch_norm(training=True) and ONNX BatchNormalization in
 * training mode where the target's has no training_mode. y, then * w + b per channel ([C];
 * either may be OLG_NO_VALUE); mean, var and rstd, when not NULL, get the batch's per-channel
 * mean, population variance and 1 / sqrt(var + eps), [C]. */
static olg_status emit_batch_stats_norm(olg_lower *cx, olg_value x, int32_t rank, olg_value w,
                                        olg_value b, double eps, olg_value *y, olg_value *mean,
                                        olg_value *var, olg_value *rstd) {
  int64_t axes[OLG_MAX_RANK];
  size_t n = 0;
  for (int32_t i = 0; i < rank; i++)
    if (i != 1) axes[n++] = i;
  olg_value m, v, r;
  OLG_TRY(normalize_var(cx, x, axes, n, eps, y, &m, rstd ? &r : NULL, &v));
  if (w != OLG_NO_VALUE) OLG_TRY(channel_view(cx, w, rank, &w));
  if (b != OLG_NO_VALUE) OLG_TRY(channel_view(cx, b, rank, &b));
  OLG_TRY(affine(cx, *y, w, b, y));
  static const int64_t flat[] = {-1}; /* [1, C, 1, ...] -> [C] */
  if (mean) OLG_TRY(olg__emit_reshape_static(cx, m, flat, 1, mean));
  if (var) OLG_TRY(olg__emit_reshape_static(cx, v, flat, 1, var));
  if (rstd) OLG_TRY(olg__emit_reshape_static(cx, r, flat, 1, rstd));
  return OLG_OK;
}

/* aten::batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean,
 * Tensor? running_var, bool training, float momentum, float eps, bool cudnn_enabled), and
 * aten::native_batch_norm (the same first 8 arguments) -> (out, save_mean, save_rstd).
 * training=False: BatchNormalization with the running statistics. training=True normalizes with
 * the batch's statistics (what PyTorch outputs then): ReduceMean/Sub/Mul/Sqrt/Div; native's
 * save_mean and save_rstd are then the batch mean and 1 / sqrt(var + eps), [C]. Without training
 * PyTorch's save_mean and save_rstd are empty [0] tensors: refused where used. */
olg_status olg__sym_batch_norm(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, outs[3] = {OLG_NO_VALUE, OLG_NO_VALUE, OLG_NO_VALUE};
  int32_t rank;
  int training;
  double momentum, eps;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(known_rank(cx, x, 2, &rank));
  OLG_TRY(olg__arg_bool_or(cx, 5, 0, &training));
  OLG_TRY(olg__arg_float_or(cx, 6, 0.1, &momentum));
  OLG_TRY(olg__arg_float_or(cx, 7, 1e-5, &eps));
  size_t n_out = olg_lower_output_count(cx);
  if (training) {
    olg_value w, b;
    bool stats = (n_out > 1 && olg_lower_output_used(cx, 1)) ||
                 (n_out > 2 && olg_lower_output_used(cx, 2));
    OLG_TRY(olg_lower_decompose(cx, "batch_norm with training=True (batch statistics)", -1));
    OLG_TRY(param_or_none(cx, 1, x, &w));
    OLG_TRY(param_or_none(cx, 2, x, &b));
    OLG_TRY(emit_batch_stats_norm(cx, x, rank, w, b, eps, &outs[0], stats ? &outs[1] : NULL,
                                  NULL, stats ? &outs[2] : NULL));
    return olg__bind_outputs(cx, outs, stats ? 3 : 1);
  }
  for (size_t i = 1; i < n_out; i++)
    if (olg_lower_output_used(cx, i))
      return olg__errf(cx, OLG_ERR_UNSUPPORTED,
                       "native_batch_norm's %s is an empty [0] tensor without training and "
                       "cannot be used", i == 1 ? "save_mean" : "save_rstd");
  OLG_TRY(running_stats_norm(cx, x, 1, momentum, eps, &outs[0]));
  return olg_lower_bind_output(cx, 0, outs[0]);
}

/* ONNX BatchNormalization, every version: inference with the given statistics through the
 * emitter aten's batch_norm uses (olg__emit_batchnorm); training (training_mode 1, from 14; is_test
 * 0 before 7) kept where the target's BatchNormalization has training_mode, else the batch
 * statistics as aten batch_norm(training=True) computes them, in float for a half input (as the
 * op's ReduceMean/ReduceVar), and the running statistics
 * running = input * momentum + current * (1 - momentum). */
olg_status olg__sym_onnx_batchnorm(olg_lower *cx, olg_node_id src, void *ud) {
  olg_value in[5], outs[3] = {OLG_NO_VALUE, OLG_NO_VALUE, OLG_NO_VALUE};
  for (size_t i = 0; i < 5; i++) OLG_TRY(olg_lower_arg_value(cx, i, &in[i]));
  double eps = olg__src_attr_float(cx, "epsilon", 1e-5);
  double momentum = olg__src_attr_float(cx, "momentum", 0.9);
  bool training_mode = olg__src_attr_int(cx, "training_mode", 0) != 0;
  bool training = training_mode || olg__src_attr_int(cx, "is_test", 1) == 0;
  if (olg__src_attr_int(cx, "spatial", 1) == 0)
    return olg_lower_unsupported(cx, "BatchNormalization with spatial=0", -1);
  size_t n_out = olg_lower_output_count(cx);
  for (size_t i = training ? 3 : 1; i < n_out; i++)
    if (olg_lower_output_used(cx, i))
      return olg_lower_unsupported(cx, training ? "BatchNormalization-6's saved mean and variance"
                                                : "BatchNormalization's training outputs", -1);
  if (!training) {
    OLG_TRY(olg__emit_batchnorm(cx, in[0], in[1], in[2], in[3], in[4], eps, momentum, &outs[0]));
    return olg_lower_bind_output(cx, 0, outs[0]);
  }
  if (training_mode && olg__target_has_attr(cx, "BatchNormalization", "training_mode"))
    return olg__sym_onnx_passthrough(cx, src, ud);
  int32_t rank;
  OLG_TRY(known_rank(cx, in[0], 2, &rank));
  olg_dtype t = olg__dtype(cx, in[0]), ts = olg__dtype(cx, in[3]);
  olg_value x = in[0], w = in[1], b = in[2], mean, var;
  if (t == OLG_FLOAT16 || t == OLG_BFLOAT16) OLG_TRY(olg__emit_cast(cx, x, OLG_FLOAT, &x));
  OLG_TRY(olg__emit_cast_like(cx, w, x, &w));
  OLG_TRY(olg__emit_cast_like(cx, b, x, &b));
  OLG_TRY(olg_lower_decompose(cx, "BatchNormalization in training mode (batch statistics)", 14));
  OLG_TRY(emit_batch_stats_norm(cx, x, rank, w, b, eps, &outs[0], &mean, &var, NULL));
  OLG_TRY(olg__emit_cast_like(cx, outs[0], in[0], &outs[0]));
  bool running = (n_out > 1 && olg_lower_output_used(cx, 1)) || (n_out > 2 && olg_lower_output_used(cx, 2));
  for (int k = 0; running && k < 2; k++) {
    olg_value cur = k ? var : mean, m, m1, r, c;
    OLG_TRY(olg__emit_cast(cx, cur, ts, &cur));
    OLG_TRY(olg__const_like(cx, cur, momentum, &m));
    OLG_TRY(olg__const_like(cx, cur, 1.0 - momentum, &m1));
    OLG_TRY(olg__emit2(cx, "Mul", in[3 + k], m, &r));
    OLG_TRY(olg__emit2(cx, "Mul", cur, m1, &c));
    OLG_TRY(olg__emit2(cx, "Add", r, c, &outs[1 + k]));
  }
  return olg__bind_outputs(cx, outs, running ? 3 : 1);
}

/* aten::instance_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean,
 * Tensor? running_var, bool use_input_stats, float momentum, float eps, bool cudnn_enabled).
 * use_input_stats: InstanceNormalization (weight/bias default to 1/0); otherwise the running
 * statistics, as batch_norm in inference. */
olg_status olg__sym_instance_norm(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, y;
  int32_t rank;
  int use_stats;
  double momentum, eps;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(known_rank(cx, x, 3, &rank));
  OLG_TRY(olg__arg_bool_or(cx, 5, 1, &use_stats));
  OLG_TRY(olg__arg_float_or(cx, 6, 0.1, &momentum));
  OLG_TRY(olg__arg_float_or(cx, 7, 1e-5, &eps));
  if (!use_stats) {
    OLG_TRY(running_stats_norm(cx, x, 1, momentum, eps, &y));
    return olg_lower_bind_output(cx, 0, y);
  }
  olg_value c, w, b;
  OLG_TRY(olg__dim_tensor(cx, x, 1, &c));
  OLG_TRY(param_or_fill(cx, 1, x, c, 1.0, &w));
  OLG_TRY(param_or_fill(cx, 2, x, c, 0.0, &b));
  OLG_TRY(emit_instance_norm(cx, x, w, b, eps, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* ------------------------------------------------------------------------------------------ */
/* layer_norm, native_layer_norm */

/* Whether the target's LayerNormalization serves an input of dtype t. It computes the
 * statistics in float (stash_type 1): a double input is decomposed, which keeps PyTorch's
 * precision. */
static bool layer_norm_native(const olg_lower *cx, olg_dtype t) {
  return t != OLG_DOUBLE && olg__op_takes(cx, "LayerNormalization", 0, t);
}

/* Layer normalization of x (rank known) over the axes from p->axis to the last, then * w + b
 * (b may be OLG_NO_VALUE; w too, where the target's LayerNormalization does not serve x):
 * outs[0] the result, and with want_stats outs[1] the mean and outs[2] the reciprocal standard
 * deviation, the reduced axes kept as 1. The one emitter of aten layer_norm/native_layer_norm
 * and ONNX LayerNormalization: LayerNormalization where the target has it for x's dtype, else
 * ReduceMean/Sub/Mul/Sqrt/Div (DESIGN.md §4), in float for a half x when stash_float (the
 * statistics then float, as the op's). */
typedef struct layer_norm_params {
  int64_t axis;
  double eps;
  bool want_stats;
  bool stash_float;
} layer_norm_params;

static olg_status emit_layer_norm(olg_lower *cx, olg_value x, olg_value w, olg_value b,
                                  int32_t rank, const layer_norm_params *p, olg_value *outs) {
  size_t n_out = p->want_stats ? 3 : 1;
  olg_dtype t = olg__dtype(cx, x);
  if (layer_norm_native(cx, t) && w != OLG_NO_VALUE) {
    olg_node_id nd;
    OLG_TRY(olg_lower_emit_begin(cx, "", "LayerNormalization", &nd));
    OLG_TRY(olg_lower_emit_input(cx, nd, x));
    OLG_TRY(olg_lower_emit_input(cx, nd, w));
    if (b != OLG_NO_VALUE) OLG_TRY(olg_lower_emit_input(cx, nd, b));
    OLG_TRY(olg_lower_emit_attr_int(cx, nd, "axis", p->axis));
    OLG_TRY(olg_lower_emit_attr_float(cx, nd, "epsilon", p->eps));
    return olg_lower_emit_end(cx, nd, n_out, outs);
  }
  if (t == OLG_DOUBLE && olg__target_has(cx, "LayerNormalization"))
    OLG_TRY(olg_lower_decompose(cx, "layer normalization of a double tensor", -1));
  bool half = p->stash_float && (t == OLG_FLOAT16 || t == OLG_BFLOAT16);
  if (half) {
    OLG_TRY(olg__emit_cast(cx, x, OLG_FLOAT, &x));
    if (w != OLG_NO_VALUE) OLG_TRY(olg__emit_cast(cx, w, OLG_FLOAT, &w));
    if (b != OLG_NO_VALUE) OLG_TRY(olg__emit_cast(cx, b, OLG_FLOAT, &b));
  }
  int64_t axes[OLG_MAX_RANK];
  size_t n = (size_t)(rank - p->axis);
  for (size_t i = 0; i < n; i++) axes[i] = p->axis + (int64_t)i;
  OLG_TRY(normalize(cx, x, axes, n, p->eps, &outs[0], &outs[1], p->want_stats ? &outs[2] : NULL));
  OLG_TRY(affine(cx, outs[0], w, b, &outs[0]));
  return half ? olg__emit_cast(cx, outs[0], t, &outs[0]) : OLG_OK;
}

/* Whether outputs 1 or 2 (mean, rstd) of the source node are read. */
static bool stats_used(olg_lower *cx) {
  size_t n = olg_lower_output_count(cx);
  return (n > 1 && olg_lower_output_used(cx, 1)) || (n > 2 && olg_lower_output_used(cx, 2));
}

/* aten::layer_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, Tensor? bias=None,
 * float eps=1e-05, bool cudnn_enable=True); native_layer_norm(input, normalized_shape, weight,
 * bias, eps) -> (out, mean, rstd), mean and rstd shaped as the input with the normalized dims 1. */
static olg_status layer_norm(olg_lower *cx, bool stats_op) {
  olg_value x, w, b, outs[3];
  int32_t rank;
  const int64_t *shape;
  size_t n;
  layer_norm_params p = {0};
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(known_rank(cx, x, 1, &rank));
  OLG_TRY(olg_lower_arg_ints(cx, 1, &shape, &n));
  OLG_TRY(olg__arg_float_or(cx, 4, 1e-5, &p.eps));
  if (n == 0 || n > (size_t)rank)
    return olg__errf(cx, OLG_ERR_INVALID_ARG,
                     "normalized_shape has %zu dims for an input of rank %d", n, rank);
  for (size_t i = 0; i < n; i++) {
    int64_t d = olg__dim(cx, x, (int32_t)(rank - (int32_t)n + (int32_t)i));
    if (d >= 0 && d != shape[i])
      return olg_lower_error(cx, OLG_ERR_INVALID_ARG,
                             "normalized_shape does not match the input's last dims");
  }
  p.want_stats = stats_op && stats_used(cx);
  p.axis = rank - (int64_t)n;
  if (layer_norm_native(cx, olg__dtype(cx, x))) { /* LayerNormalization requires its Scale */
    olg_value sv;
    OLG_TRY(olg__const_i64s(cx, shape, n, &sv));
    OLG_TRY(param_or_fill(cx, 2, x, sv, 1.0, &w));
  } else {
    OLG_TRY(param_or_none(cx, 2, x, &w));
  }
  OLG_TRY(param_or_none(cx, 3, x, &b));
  OLG_TRY(emit_layer_norm(cx, x, w, b, rank, &p, outs));
  return olg__bind_outputs(cx, outs, p.want_stats ? 3 : 1);
}

olg_status olg__sym_layer_norm(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return layer_norm(cx, false);
}

olg_status olg__sym_native_layer_norm(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return layer_norm(cx, true);
}

/* ONNX LayerNormalization(X, Scale, B; axis (default -1), epsilon, stash_type), registered
 * below 17 (from 17 the node is passed through): Scale and B broadcast over the normalized
 * axes; the statistics in float for a float16/bfloat16 input (stash_type 1, the default), and
 * the outputs Mean and InvStdDev (float then) keep the reduced axes as 1, as the op's do. */
olg_status olg__sym_onnx_layer_norm(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, w, b, outs[3];
  int32_t rank;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(known_rank(cx, x, 1, &rank));
  OLG_TRY(olg_lower_arg_value(cx, 1, &w));
  OLG_TRY(olg__arg_value_or_none(cx, 2, &b));
  layer_norm_params p = {olg__norm_axis(olg__src_attr_int(cx, "axis", -1), rank),
                         olg__src_attr_float(cx, "epsilon", 1e-5), stats_used(cx), true};
  if (p.axis < 0) return olg_lower_error(cx, OLG_ERR_INVALID_MODEL, "LayerNormalization: axis out of range");
  if (olg__src_attr_int(cx, "stash_type", 1) != 1)
    return olg_lower_unsupported(cx, "LayerNormalization with a stash_type other than float", 17);
  OLG_TRY(emit_layer_norm(cx, x, w, b, rank, &p, outs));
  return olg__bind_outputs(cx, outs, p.want_stats ? 3 : 1);
}

/* ------------------------------------------------------------------------------------------ */
/* group_norm, native_group_norm */

/* GroupNormalization-21 (per-channel scale and bias w, b). */
static olg_status emit_group_norm_native(olg_lower *cx, olg_value x, olg_value w, olg_value b,
                                         double eps, int64_t groups, olg_value *out) {
  olg_node_id nd;
  OLG_TRY(olg_lower_emit_begin(cx, "", "GroupNormalization", &nd));
  OLG_TRY(olg_lower_emit_input(cx, nd, x));
  OLG_TRY(olg_lower_emit_input(cx, nd, w));
  OLG_TRY(olg_lower_emit_input(cx, nd, b));
  OLG_TRY(olg_lower_emit_attr_float(cx, nd, "epsilon", eps));
  OLG_TRY(olg_lower_emit_attr_int(cx, nd, "num_groups", groups));
  return olg_lower_emit_end(cx, nd, 1, out);
}

/* x [N, C, ...] normalized per group of channels, as PyTorch and GroupNormalization do:
 * reshaped to [N, G, C/G * ...], normalized over the last axis, wg and bg (per group, [G];
 * either may be OLG_NO_VALUE) applied there, and back to x's shape: outs[0]. With want_stats,
 * outs[1] and outs[2] get mean and rstd [N, G]. */
static olg_status group_norm_decomposed(olg_lower *cx, olg_value x, int64_t groups, double eps,
                                        olg_value wg, olg_value bg, bool want_stats,
                                        olg_value outs[3]) {
  olg_value xr, yr, shape, cv;
  OLG_TRY(olg__emit_reshape_static(cx, x, (const int64_t[]){0, groups, -1}, 3, &xr));
  if (want_stats || olg__dtype(cx, x) == OLG_DOUBLE) {
    /* the statistics are outputs (or double, which ONNX Runtime's InstanceNormalization lacks) */
    OLG_TRY(normalize(cx, xr, (const int64_t[]){2}, 1, eps, &yr, &outs[1],
                      want_stats ? &outs[2] : NULL));
    if (want_stats) {
      OLG_TRY(olg__emit_squeeze(cx, outs[1], (const int64_t[]){2}, 1, &outs[1]));
      OLG_TRY(olg__emit_squeeze(cx, outs[2], (const int64_t[]){2}, 1, &outs[2]));
    }
  } else {
    /* InstanceNormalization over [N, G, L] is the group statistics' normalization */
    olg_value ones, zeros;
    OLG_TRY(olg__const_i64s(cx, &groups, 1, &cv));
    OLG_TRY(olg__emit_full(cx, cv, olg__dtype(cx, x), 1.0, &ones));
    OLG_TRY(olg__emit_full(cx, cv, olg__dtype(cx, x), 0.0, &zeros));
    OLG_TRY(emit_instance_norm(cx, xr, ones, zeros, eps, &yr));
  }
  if (wg != OLG_NO_VALUE) OLG_TRY(olg__emit_reshape_static(cx, wg, (const int64_t[]){groups, 1}, 2, &wg));
  if (bg != OLG_NO_VALUE) OLG_TRY(olg__emit_reshape_static(cx, bg, (const int64_t[]){groups, 1}, 2, &bg));
  OLG_TRY(affine(cx, yr, wg, bg, &yr));
  OLG_TRY(olg__shape(cx, x, &shape));
  return olg__emit_reshape(cx, yr, shape, &outs[0]);
}

/* aten::group_norm(Tensor input, int num_groups, Tensor? weight=None, Tensor? bias=None,
 * float eps=1e-05, bool cudnn_enabled=True);
 * aten::native_group_norm(Tensor input, Tensor? weight, Tensor? bias, SymInt N, SymInt C,
 * SymInt HxW, int group, float eps) -> (out, mean [N, group], rstd [N, group]). */
static olg_status group_norm(olg_lower *cx, bool native, bool stats_op) {
  size_t wi = stats_op ? 1 : 2, gi = stats_op ? 6 : 1, ei = stats_op ? 7 : 4;
  olg_value x, w, b, outs[3];
  int32_t rank;
  int64_t groups;
  double eps;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(known_rank(cx, x, 2, &rank));
  OLG_TRY(olg_lower_arg_int(cx, gi, &groups));
  OLG_TRY(olg__arg_float_or(cx, ei, 1e-5, &eps));
  int64_t c = olg__dim(cx, x, 1);
  if (groups <= 0 || (c >= 0 && c % groups))
    return olg__errf(cx, OLG_ERR_INVALID_ARG, "%lld groups do not divide %lld channels",
                     (long long)groups, (long long)c);
  bool want_stats = stats_op && stats_used(cx);
  olg_value cv;
  if (native && !want_stats && olg__dtype(cx, x) != OLG_DOUBLE) {
    OLG_TRY(olg__dim_tensor(cx, x, 1, &cv));
    OLG_TRY(param_or_fill(cx, wi, x, cv, 1.0, &w));
    OLG_TRY(param_or_fill(cx, wi + 1, x, cv, 0.0, &b));
    OLG_TRY(emit_group_norm_native(cx, x, w, b, eps, groups, outs));
    return olg__bind_outputs(cx, outs, 1);
  }
  if (native) /* GroupNormalization has no mean/rstd outputs, and computes in float */
    OLG_TRY(olg_lower_decompose(cx, want_stats ? "native_group_norm's mean and rstd"
                                               : "group_norm of a double tensor", -1));
  OLG_TRY(group_norm_decomposed(cx, x, groups, eps, OLG_NO_VALUE, OLG_NO_VALUE, want_stats,
                                outs));
  OLG_TRY(param_or_none(cx, wi, x, &w));
  OLG_TRY(param_or_none(cx, wi + 1, x, &b));
  if (w != OLG_NO_VALUE) OLG_TRY(channel_view(cx, w, rank, &w));
  if (b != OLG_NO_VALUE) OLG_TRY(channel_view(cx, b, rank, &b));
  OLG_TRY(affine(cx, outs[0], w, b, &outs[0]));
  return olg__bind_outputs(cx, outs, want_stats ? 3 : 1);
}

/* GroupNormalization-21 where the target has it (its per-channel scale and bias came with
 * stash_type, which a schema query shows: GroupNormalization-18 is per group), else Reshape +
 * InstanceNormalization + Reshape + affine (DESIGN.md §4). */
static bool group_norm_native(const olg_lower *cx) {
  return olg__target_has_attr(cx, "GroupNormalization", "stash_type");
}

olg_status olg__sym_group_norm(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return group_norm(cx, group_norm_native(cx), false);
}

olg_status olg__sym_native_group_norm(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return group_norm(cx, group_norm_native(cx), true);
}

/* ONNX GroupNormalization(X, scale, bias; epsilon, num_groups, stash_type from 21). Version 18
 * takes scale and bias per group ([G]), 21 per channel ([C]) (lib/meaning.c): a version-18 node
 * is never copied to 21. */

/* p [G] repeated per channel: p[c / (C/G)] for c in [0, C), C known or read at run time. */
static olg_status per_channel(olg_lower *cx, olg_value p, olg_value x, int64_t groups,
                              olg_value *out) {
  olg_value pg, shape;
  int64_t c = olg__dim(cx, x, 1);
  OLG_TRY(olg__emit_reshape_static(cx, p, (const int64_t[]){groups, 1}, 2, &pg));
  if (c >= 0) {
    OLG_TRY(olg__const_i64s(cx, (const int64_t[]){groups, c / groups}, 2, &shape));
  } else {
    olg_value pieces[2], cv;
    OLG_TRY(olg__dim_tensor(cx, x, 1, &cv));
    OLG_TRY(olg__const_i64s(cx, &groups, 1, &pieces[0]));
    OLG_TRY(olg__emit2(cx, "Div", cv, pieces[0], &pieces[1]));
    OLG_TRY(olg__concat_ints(cx, pieces, 2, &shape));
  }
  OLG_TRY(olg__emit_expand(cx, pg, shape, &pg));
  return olg__emit_reshape_static(cx, pg, (const int64_t[]){-1}, 1, out);
}

static bool group_norm_native(const olg_lower *cx);

static olg_status onnx_group_norm(olg_lower *cx, olg_node_id src, void *ud, bool native) {
  olg_value x, w, b, outs[3];
  int32_t rank;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(known_rank(cx, x, 2, &rank));
  OLG_TRY(olg_lower_arg_value(cx, 1, &w));
  OLG_TRY(olg_lower_arg_value(cx, 2, &b));
  int64_t groups = olg__src_attr_int(cx, "num_groups", 0);
  double eps = olg__src_attr_float(cx, "epsilon", 1e-5);
  int64_t c = olg__dim(cx, x, 1);
  if (groups <= 0 || (c >= 0 && c % groups))
    return olg__errf(cx, OLG_ERR_INVALID_MODEL, "GroupNormalization: num_groups %lld does not "
                     "divide %lld channels", (long long)groups, (long long)c);
  bool per_group = olg__src_groupnorm_per_group(cx);
  if (native) {
    if (!per_group) return olg__sym_onnx_passthrough(cx, src, ud); /* 21 and later: as it is */
    OLG_TRY(per_channel(cx, w, x, groups, &w));
    OLG_TRY(per_channel(cx, b, x, groups, &b));
    OLG_TRY(emit_group_norm_native(cx, x, w, b, eps, groups, outs));
    return olg__bind_outputs(cx, outs, 1);
  }
  /* stash_type (21; 18 computes as 21's default, float): the type the statistics are computed
   * in -- here the whole decomposition, cast back to X's type at the end */
  olg_dtype t = olg__dtype(cx, x), stash = (olg_dtype)olg__src_attr_int(cx, "stash_type", 1);
  if (stash != OLG_FLOAT && stash != OLG_DOUBLE && stash != OLG_FLOAT16 && stash != OLG_BFLOAT16)
    return olg__errf(cx, OLG_ERR_INVALID_MODEL, "GroupNormalization: stash_type %d is not a "
                     "floating-point type", (int)stash);
  bool recast = t != OLG_UNDEFINED && t != stash;
  if (recast) {
    OLG_TRY(olg__emit_cast(cx, x, stash, &x));
    OLG_TRY(olg__emit_cast(cx, w, stash, &w));
    OLG_TRY(olg__emit_cast(cx, b, stash, &b));
  }
  if (per_group) {
    OLG_TRY(group_norm_decomposed(cx, x, groups, eps, w, b, false, outs));
  } else {
    OLG_TRY(group_norm_decomposed(cx, x, groups, eps, OLG_NO_VALUE, OLG_NO_VALUE, false, outs));
    OLG_TRY(channel_view(cx, w, rank, &w));
    OLG_TRY(channel_view(cx, b, rank, &b));
    OLG_TRY(affine(cx, outs[0], w, b, &outs[0]));
  }
  if (recast) OLG_TRY(olg__emit_cast(cx, outs[0], t, &outs[0]));
  return olg__bind_outputs(cx, outs, 1);
}

/* GroupNormalization-21 where the target has it (a version-18 node's scale and bias repeated
 * per channel), else Reshape + InstanceNormalization + affine + Reshape, scale and bias per
 * group (version 18) or per channel (version 21). */
olg_status olg__sym_onnx_group_norm(olg_lower *cx, olg_node_id src, void *ud) {
  return onnx_group_norm(cx, src, ud, group_norm_native(cx));
}

/* ------------------------------------------------------------------------------------------ */
/* rms_norm */

/* aten::rms_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, float? eps=None)
 * (newer PyTorch): x / sqrt(mean(x^2) + eps) * weight; eps none is the dtype's epsilon. The
 * statistics in float (double for a double input), as RMSNormalization's stash_type. */
olg_status olg__sym_rms_norm(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, w, y;
  int32_t rank;
  const int64_t *shape;
  size_t n;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(known_rank(cx, x, 1, &rank));
  OLG_TRY(olg_lower_arg_ints(cx, 1, &shape, &n));
  if (n == 0 || n > (size_t)rank)
    return olg__errf(cx, OLG_ERR_INVALID_ARG,
                     "normalized_shape has %zu dims for an input of rank %d", n, rank);
  olg_dtype dt = olg__dtype(cx, x);
  double eps = dt == OLG_DOUBLE ? DBL_EPSILON : dt == OLG_FLOAT16 ? 0.0009765625
             : dt == OLG_BFLOAT16 ? 0.0078125 : (double)FLT_EPSILON;
  OLG_TRY(olg__arg_float_or(cx, 3, eps, &eps));
  OLG_TRY(param_or_none(cx, 2, x, &w));
  olg_rms_norm_params p = {rank - (int64_t)n, eps, dt == OLG_DOUBLE ? OLG_DOUBLE : OLG_FLOAT};
  OLG_TRY(olg__emit_rms_norm(cx, x, w, &p, NULL, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* ONNX MeanVarianceNormalization (9) below 9, as its function body: (X - E[X]) /
 * (sqrt(E[X^2] - E[X]^2) + 1e-9) over axes (default 0, 2, 3) */
olg_status olg__sym_onnx_mvn(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  static const int64_t dflt[] = {0, 2, 3};
  const int64_t *axes = dflt;
  size_t n = 3;
  olg_value x, m, m2, sq, e2, var, d, e, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  olg__src_attr_ints(cx, "axes", &axes, &n);
  OLG_TRY(olg__emit_reduce(cx, OLG_REDUCE_MEAN, x, axes, n, 1, &m));
  OLG_TRY(olg__emit2(cx, "Mul", m, m, &m2));
  OLG_TRY(olg__emit2(cx, "Mul", x, x, &sq));
  OLG_TRY(olg__emit_reduce(cx, OLG_REDUCE_MEAN, sq, axes, n, 1, &e2));
  OLG_TRY(olg__emit2(cx, "Sub", e2, m2, &var));
  OLG_TRY(olg__emit1(cx, "Sqrt", var, &var));
  OLG_TRY(olg__const_like(cx, x, 1e-9, &e));
  OLG_TRY(olg__emit2(cx, "Add", var, e, &var));
  OLG_TRY(olg__emit2(cx, "Sub", x, m, &d));
  OLG_TRY(olg__emit2(cx, "Div", d, var, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* ONNX RMSNormalization (23): axis, epsilon and stash_type attributes */
olg_status olg__sym_onnx_rms_norm(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, s, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg_lower_arg_value(cx, 1, &s));
  int32_t rank = olg__rank(cx, x);
  int64_t axis = olg__src_attr_int(cx, "axis", -1);
  if (axis < 0 && rank >= 0) axis += rank;
  if (rank >= 0 && (axis < 0 || axis >= rank)) /* unknown rank: a negative axis, for the native op */
    return olg__errf(cx, OLG_ERR_INVALID_ARG, "RMSNormalization: axis %lld is out of range for "
                     "an input of rank %d", (long long)olg__src_attr_int(cx, "axis", -1), rank);
  int64_t stash = olg__src_attr_int(cx, "stash_type", OLG_FLOAT);
  if (stash != OLG_FLOAT && stash != OLG_DOUBLE && stash != OLG_FLOAT16 && stash != OLG_BFLOAT16)
    return olg__errf(cx, OLG_ERR_INVALID_ARG, "RMSNormalization: stash_type %lld is not a "
                     "floating-point type", (long long)stash);
  olg_rms_norm_params p = {axis, olg__src_attr_float(cx, "epsilon", 1e-5), (olg_dtype)stash};
  OLG_TRY(olg__emit_rms_norm(cx, x, s, &p, "RMSNormalization as Mul/ReduceMean/Add/Sqrt/Div", &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* ------------------------------------------------------------------------------------------ */
/* local_response_norm */

/* local_response_norm(Tensor input, int size, float alpha=1e-4, float beta=0.75, float k=1.0)
 * (torch.nn.functional): x / (k + alpha/size * sum of x^2 over channels [c - size/2,
 * c + (size-1)/2])^beta. ONNX's LRN centres an even window the other way ([c - (size-1)/2,
 * c + size/2]) and ONNX Runtime runs it on 4-D inputs only: LRN for an odd size on 4-D, else
 * what PyTorch itself computes, an AveragePool over the channel axis (count_include_pad). */
olg_status olg__sym_local_response_norm(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, y;
  int32_t rank;
  int64_t size;
  double alpha, beta, k;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(known_rank(cx, x, 3, &rank));
  OLG_TRY(olg_lower_arg_int(cx, 1, &size));
  OLG_TRY(olg__arg_float_or(cx, 2, 1e-4, &alpha));
  OLG_TRY(olg__arg_float_or(cx, 3, 0.75, &beta));
  OLG_TRY(olg__arg_float_or(cx, 4, 1.0, &k));
  if (size <= 0) return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "size must be > 0");
  if (size % 2 == 1 && rank == 4) {
    olg_node_id nd;
    OLG_TRY(olg_lower_emit_begin(cx, "", "LRN", &nd));
    OLG_TRY(olg_lower_emit_input(cx, nd, x));
    OLG_TRY(olg_lower_emit_attr_int(cx, nd, "size", size));
    OLG_TRY(olg_lower_emit_attr_float(cx, nd, "alpha", alpha));
    OLG_TRY(olg_lower_emit_attr_float(cx, nd, "beta", beta));
    OLG_TRY(olg_lower_emit_attr_float(cx, nd, "bias", k));
    OLG_TRY(olg_lower_emit_end(cx, nd, 1, &y));
    return olg_lower_bind_output(cx, 0, y);
  }
  OLG_TRY(olg_lower_decompose(cx, "local_response_norm with an even size or a rank other than 4 "
                                  "(AveragePool over the channels)", -1));
  /* x^2 as [N, 1, C, spatial...] (rank 3, 4) or [N, 1, C, D, rest] (rank >= 5, as PyTorch) */
  olg_value sq, u, avg;
  OLG_TRY(olg__emit2(cx, "Mul", x, x, &sq));
  int32_t pr; /* rank of u */
  if (rank <= 4) {
    OLG_TRY(olg__emit_unsqueeze(cx, sq, (const int64_t[]){1}, 1, &u));
    pr = rank + 1;
  } else {
    olg_value p[4];
    OLG_TRY(olg__dim_tensor(cx, x, 0, &p[0]));
    OLG_TRY(olg__const_i64s(cx, (const int64_t[]){1}, 1, &p[1]));
    OLG_TRY(olg__shape_range(cx, x, 1, 3, &p[2]));
    OLG_TRY(olg__const_i64s(cx, (const int64_t[]){-1}, 1, &p[3]));
    olg_value shape;
    OLG_TRY(olg__concat_ints(cx, p, 4, &shape));
    OLG_TRY(olg__emit_reshape(cx, sq, shape, &u));
    pr = 5;
  }
  int ns = pr - 2;
  int64_t kern[OLG_MAX_RANK], strides[OLG_MAX_RANK], pads[2 * OLG_MAX_RANK];
  for (int i = 0; i < ns; i++) {
    kern[i] = i == 0 ? size : 1;
    strides[i] = 1;
    pads[i] = i == 0 ? size / 2 : 0;
    pads[i + ns] = i == 0 ? (size - 1) / 2 : 0;
  }
  olg_node_id nd;
  OLG_TRY(olg_lower_emit_begin(cx, "", "AveragePool", &nd));
  OLG_TRY(olg_lower_emit_input(cx, nd, u));
  OLG_TRY(olg_lower_emit_attr_ints(cx, nd, "kernel_shape", kern, (size_t)ns));
  OLG_TRY(olg_lower_emit_attr_ints(cx, nd, "strides", strides, (size_t)ns));
  if (size > 1) {
    OLG_TRY(olg_lower_emit_attr_ints(cx, nd, "pads", pads, 2 * (size_t)ns));
    OLG_TRY(olg_lower_emit_attr_int(cx, nd, "count_include_pad", 1));
  }
  OLG_TRY(olg_lower_emit_end(cx, nd, 1, &avg));
  if (rank <= 4) {
    OLG_TRY(olg__emit_squeeze(cx, avg, (const int64_t[]){1}, 1, &avg));
  } else {
    olg_value shape;
    OLG_TRY(olg__shape(cx, x, &shape));
    OLG_TRY(olg__emit_reshape(cx, avg, shape, &avg));
  }
  olg_value a, kv, bv, div;
  OLG_TRY(olg__const_like(cx, x, alpha, &a));
  OLG_TRY(olg__const_like(cx, x, k, &kv));
  OLG_TRY(olg__const_like(cx, x, beta, &bv));
  OLG_TRY(olg__emit2(cx, "Mul", avg, a, &div));
  OLG_TRY(olg__emit2(cx, "Add", div, kv, &div));
  OLG_TRY(olg__emit2(cx, "Pow", div, bv, &div));
  OLG_TRY(olg__emit2(cx, "Div", x, div, &y));
  return olg_lower_bind_output(cx, 0, y);
}
