/* onnxlegal — ONNX-domain source nodes: an ONNX node at its source opset is read into its meaning
 * and re-emitted at the target opset. Up- and down-conversion are the same mechanism.
 *
 * olg__sym_onnx_passthrough serves every op without a row of its own: the node is copied when
 * the op exists at the target opset and every attribute it carries exists there with the same
 * type (additive changes: new types, new optional attributes). The ops whose ENCODING changed
 * (an attribute became an input, semantics changed under the same signature) have a row and a
 * function here that reads the source encoding and re-emits through the emit helpers.
 * The source encoding is decoded by the helpers of emit_src.c; what the TARGET offers (an input
 * that became possible, a training mode) is asked of its schema (olg__target_has_input, ...). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "emit.h"
#include "emit_axes.h"
#include "emit_math.h"
#include "emit_nn.h"
#include "emit_src.h"
#include "../lib/lower.h"
#include "../lib/schema.h"
#include "emit_dft.h"
#include "symbolics.h"


static olg_status in_value(olg_lower *cx, size_t i, olg_value *out) {
  return olg__arg_value_or_none(cx, i, out);
}

/* ------------------------------------------------------------------------------------------ */

/* ------------------------------------------------------------------------------------------ */
/* Squeeze, Unsqueeze: axes attribute < 13, input >= 13. Run-time axes are kept where the target
 * takes the axes as an input (13+). */
olg_status olg__sym_onnx_squeeze(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  const char *op = olg_lower_node_op(cx);
  bool unsq = strcmp(op, "Unsqueeze") == 0;
  olg_value x, y, dyn;
  const int64_t *axes;
  size_t n;
  bool present;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg__src_ints_attr_or_input(cx, "axes", 1, 13, &axes, &n, &present, &dyn));
  if (dyn != OLG_NO_VALUE) {
    /* asked here only: known axes (the usual case) go through the emitters at any opset;
       without an axes input, an exact Reshape to the shape computed from the axes */
    if (!olg__target_has_input(cx, op, "axes")) {
      OLG_TRY(olg_lower_decompose(cx, unsq ? "Unsqueeze with run-time axes" : "Squeeze with run-time axes", 13));
      OLG_TRY(unsq ? olg__emit_unsqueeze_dyn(cx, x, dyn, &y) : olg__emit_squeeze_dyn(cx, x, dyn, &y));
    } else {
      OLG_TRY(olg__emit2(cx, op, x, dyn, &y));
    }
  } else if (unsq) {
    OLG_TRY(olg__emit_unsqueeze(cx, x, axes, n, &y));
  } else {
    OLG_TRY(olg__emit_squeeze(cx, x, axes, n, &y));
  }
  return olg_lower_bind_output(cx, 0, y);
}

static bool reduce_kind(const char *op, olg_reduce_kind *k) {
  static const char *const ops[] = {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin",
                                    "ReduceProd", "ReduceL1", "ReduceL2", "ReduceLogSum",
                                    "ReduceLogSumExp", "ReduceSumSquare"};
  for (int i = 0; i < 10; i++)
    if (strcmp(op, ops[i]) == 0) {
      *k = (olg_reduce_kind)i;
      return true;
    }
  return false;
}

/* Reduce*: axes attribute below 13 (ReduceSum) or 18 (the others), input from then on.
 * axes_input: the target's version of this op takes the axes as an input. */
static olg_status reduce(olg_lower *cx, bool axes_input) {
  const char *op = olg_lower_node_op(cx);
  olg_reduce_kind kind;
  if (!reduce_kind(op, &kind)) return olg__errf(cx, OLG_ERR_INVALID_ARG, "%s is not a reduction", op);
  int since = kind == OLG_REDUCE_SUM ? 13 : 18;
  olg_value x, y, dyn;
  const int64_t *axes;
  size_t n;
  bool present;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg__src_ints_attr_or_input(cx, "axes", 1, since, &axes, &n, &present, &dyn));
  int64_t keepdims = olg__src_attr_int(cx, "keepdims", 1);
  int64_t noop = olg__src_attr_int(cx, "noop_with_empty_axes", 0);
  if (dyn != OLG_NO_VALUE) {
    if (!axes_input) { /* reshaped so that the listed dims are reduced (emit_axes.c) */
      OLG_TRY(olg_lower_decompose(cx, "a reduction with run-time axes", since));
      OLG_TRY(olg__emit_reduce_dyn(cx, kind, x, dyn, (int)keepdims, (int)noop, &y));
      return olg_lower_bind_output(cx, 0, y);
    }
    olg_node_id nd;
    OLG_TRY(olg_lower_emit_begin(cx, "", op, &nd));
    OLG_TRY(olg_lower_emit_input(cx, nd, x));
    OLG_TRY(olg_lower_emit_input(cx, nd, dyn));
    OLG_TRY(olg_lower_emit_attr_int(cx, nd, "keepdims", keepdims));
    if (noop) OLG_TRY(olg_lower_emit_attr_int(cx, nd, "noop_with_empty_axes", 1));
    OLG_TRY(olg_lower_emit_end(cx, nd, 1, &y));
    return olg_lower_bind_output(cx, 0, y);
  }
  if (noop && n == 0) OLG_TRY(olg__emit_reduce_none(cx, kind, x, &y)); /* reduces nothing */
  else OLG_TRY(olg__emit_reduce(cx, kind, x, axes, n, (int)keepdims, &y));
  return olg_lower_bind_output(cx, 0, y);
}

olg_status olg__sym_onnx_reduce(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return reduce(cx, false);
}

/* registered for ReduceSum at 13 and for the other reductions at 18 */
olg_status olg__sym_onnx_reduce_axes_input(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return reduce(cx, true);
}

/* Slice: attributes starts/ends/axes < 10, inputs (and steps) >= 10 */
olg_status olg__sym_onnx_slice(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  if (olg__src_slice_in_attrs(cx)) {
    const int64_t *s, *e, *a = NULL;
    size_t ns = 0, ne = 0, na = 0;
    if (!olg__src_attr_ints(cx, "starts", &s, &ns) || !olg__src_attr_ints(cx, "ends", &e, &ne) ||
        ns != ne)
      return olg_lower_error(cx, OLG_ERR_INVALID_MODEL, "Slice: starts/ends missing or of different lengths");
    if (olg__src_attr_ints(cx, "axes", &a, &na) && na != ns)
      return olg_lower_error(cx, OLG_ERR_INVALID_MODEL, "Slice: axes of a different length");
    OLG_TRY(olg__emit_slice(cx, x, s, e, na ? a : NULL, NULL, ns, &y));
  } else {
    olg_value in[5];
    for (size_t i = 1; i < 5; i++) OLG_TRY(in_value(cx, i, &in[i]));
    OLG_TRY(olg__emit_slice_dyn(cx, x, in[1], in[2], in[3], in[4], &y));
  }
  return olg_lower_bind_output(cx, 0, y);
}

/* Pad: attributes pads/mode/value < 11; inputs pads, constant_value >= 11, axes >= 18 (spread
 * over every axis, or kept, by olg__emit_pad_axes). */
olg_status olg__sym_onnx_pad(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  const char *mode = olg__src_attr_string(cx, "mode", "constant");
  if (olg__src_pad_in_attrs(cx)) {
    const int64_t *p;
    size_t n;
    if (!olg__src_attr_ints(cx, "pads", &p, &n) && !olg__src_attr_ints(cx, "paddings", &p, &n))
      return olg_lower_error(cx, OLG_ERR_INVALID_MODEL, "Pad without pads");
    OLG_TRY(olg__emit_pad(cx, x, mode, p, n, olg__src_attr_float(cx, "value", 0), &y));
    return olg_lower_bind_output(cx, 0, y);
  }
  olg_value pads, value, axes;
  OLG_TRY(olg_lower_arg_value(cx, 1, &pads));
  OLG_TRY(in_value(cx, 2, &value));
  OLG_TRY(in_value(cx, 3, &axes));
  if (axes != OLG_NO_VALUE) /* spread the pads of the listed axes over every axis */
    OLG_TRY(olg__emit_pad_axes(cx, x, mode, pads, value, axes, &y));
  else
    OLG_TRY(olg__emit_pad_dyn(cx, x, mode, pads, value, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* What the target's Split offers: the sizes as an input (13+), num_outputs (18+). */
typedef struct {
  bool sizes_input, num_outputs;
} split_caps;

/* Split: split attribute < 13, input >= 13, num_outputs >= 18 */
olg_status olg__sym_onnx_split(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  split_caps c = {olg__target_has_input(cx, "Split", "split"),
                  olg__target_has_attr(cx, "Split", "num_outputs")};
  olg_value x, dyn;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  size_t n_out = olg_lower_output_count(cx);
  if (!n_out) return olg_lower_error(cx, OLG_ERR_INVALID_MODEL, "Split with no outputs");
  const int64_t *sizes;
  size_t n;
  bool present;
  OLG_TRY(olg__src_ints_attr_or_input(cx, "split", 1, 13, &sizes, &n, &present, &dyn));
  int64_t axis = olg__src_attr_int(cx, "axis", 0);
  if (dyn != OLG_NO_VALUE) { /* run-time sizes: an input from 13 on */
    olg_value buf[64], *outs = olg__lower_values(cx, buf, 64, n_out);
    if (!outs) return OLG_ERR_NOMEM;
    if (!c.sizes_input) { /* Slice (10+) or Gather of a run-time range per part (emit_axes.c) */
      OLG_TRY(olg_lower_decompose(cx, "Split with run-time sizes", 13));
      OLG_TRY(olg__emit_split_dyn(cx, x, axis, dyn, n_out, outs));
      return olg__bind_outputs(cx, outs, n_out);
    }
    olg_node_id nd;
    OLG_TRY(olg__emit_cast(cx, dyn, OLG_INT64, &dyn));
    OLG_TRY(olg_lower_emit_begin(cx, "", "Split", &nd));
    OLG_TRY(olg_lower_emit_input(cx, nd, x));
    OLG_TRY(olg_lower_emit_input(cx, nd, dyn));
    OLG_TRY(olg_lower_emit_attr_int(cx, nd, "axis", axis));
    OLG_TRY(olg_lower_emit_end(cx, nd, n_out, outs));
    return olg__bind_outputs(cx, outs, n_out);
  }
  if (present && n != n_out) return olg_lower_error(cx, OLG_ERR_INVALID_MODEL, "Split: split has the wrong length");
  int64_t *own = NULL;
  if (olg__src_split_ceil_parts(cx, present) && !c.num_outputs) {
    /* num_outputs: ceil-sized parts, the last smaller; below 18 they must be spelled out */
    int64_t d = olg__dim(cx, x, (int32_t)axis);
    if (d < 0) return olg_lower_unsupported(cx, "Split with num_outputs of a dim whose size is not known", 18);
    int64_t part = (d + (int64_t)n_out - 1) / (int64_t)n_out;
    if (d % (int64_t)n_out) {
      own = olg__lower_alloc(cx, n_out * sizeof *own);
      if (!own) return OLG_ERR_NOMEM;
      for (size_t i = 0; i < n_out; i++) own[i] = i + 1 < n_out ? part : d - part * (int64_t)(n_out - 1);
      sizes = own;
      present = true;
    }
  }
  olg_value buf[64], *outs = olg__lower_values(cx, buf, 64, n_out);
  if (!outs) return OLG_ERR_NOMEM;
  OLG_TRY(olg__emit_split(cx, x, axis, present ? sizes : NULL, n_out, outs));
  return olg__bind_outputs(cx, outs, n_out);
}

/* Clip: attributes min/max < 11, inputs >= 11 */
olg_status olg__sym_onnx_clip(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  if (olg__src_clip_in_attrs(cx)) {
    const olg_node *nd = olg__src_node(cx);
    bool has_lo = olg__node_attr(nd, "min") != NULL, has_hi = olg__node_attr(nd, "max") != NULL;
    OLG_TRY(olg__emit_clip_f(cx, x, has_lo, olg__src_attr_float(cx, "min", 0), has_hi,
                             olg__src_attr_float(cx, "max", 0), &y));
  } else {
    olg_value lo, hi;
    OLG_TRY(in_value(cx, 1, &lo));
    OLG_TRY(in_value(cx, 2, &hi));
    OLG_TRY(olg__emit_clip(cx, x, lo, hi, &y));
  }
  return olg_lower_bind_output(cx, 0, y);
}

/* Upsample (7: scales attribute; 9: scales input) and Resize (10: scales; 11+: roi, scales,
 * sizes and the coordinate attributes; 18: axes, antialias). */
olg_status olg__sym_onnx_resize(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  bool legacy = olg__src_resize_legacy(cx);
  olg_value x, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  olg_resize_params p = OLG_RESIZE_PARAMS_INIT;
  p.mode = olg__src_attr_string(cx, "mode", "nearest");
  if (legacy) {
    /* asymmetric coordinates; nearest rounds down when up-sampling, up when down-sampling */
    p.coordinate_transformation_mode = "asymmetric";
    p.nearest_mode = "floor";
    p.legacy_nearest = 1;
    const olg_node *nd = olg__src_node(cx);
    const olg_attr *sa = olg__node_attr(nd, "scales");
    if (sa && sa->type == OLG_ATTR_FLOATS) {
      p.scales = sa->floats;
      p.n = sa->n;
    } else {
      OLG_TRY(olg_lower_arg_value(cx, 1, &p.scales_v));
      if ((p.scales = olg__tensor_f32(cx, olg__known(cx, p.scales_v), &p.n)))
        p.scales_v = OLG_NO_VALUE;
    }
    bool down = false;
    for (size_t i = 0; p.scales && i < p.n; i++) down = down || p.scales[i] < 1;
    if (down) p.nearest_mode = "ceil";
    if (strcmp(p.mode, "bilinear") == 0) p.mode = "linear"; /* Upsample-7 spelled it so too */
  } else {
    p.coordinate_transformation_mode = olg__src_attr_string(cx, "coordinate_transformation_mode", "half_pixel");
    p.nearest_mode = olg__src_attr_string(cx, "nearest_mode", "round_prefer_floor");
    p.cubic_coeff_a = olg__src_attr_float(cx, "cubic_coeff_a", -0.75);
    p.exclude_outside = (int)olg__src_attr_int(cx, "exclude_outside", 0);
    p.antialias = (int)olg__src_attr_int(cx, "antialias", 0);
    if (strcmp(p.coordinate_transformation_mode, "tf_crop_and_resize") == 0) {
      p.has_roi = 1;
      OLG_TRY(olg_lower_arg_value(cx, 1, &p.roi_v));
      p.extrapolation_value = olg__src_attr_float(cx, "extrapolation_value", 0);
    }
    const char *policy = olg__src_attr_string(cx, "keep_aspect_ratio_policy", "stretch");
    bool keep_aspect = strcmp(policy, "stretch") != 0;
    if (keep_aspect && strcmp(policy, "not_larger") != 0 && strcmp(policy, "not_smaller") != 0)
      return olg__errf(cx, OLG_ERR_INVALID_ARG, "Resize: unknown keep_aspect_ratio_policy '%s'", policy);
    olg_value scales, sizes;
    OLG_TRY(in_value(cx, 2, &scales));
    OLG_TRY(in_value(cx, 3, &sizes));
    if (scales != OLG_NO_VALUE && olg__rank(cx, scales) == 1 && olg__dim(cx, scales, 0) == 0)
      scales = OLG_NO_VALUE; /* an empty scales stands for "use sizes" (11, 12) */
    const int64_t *axes;
    size_t na = 0;
    bool has_axes = olg__src_attr_ints(cx, "axes", &axes, &na);
    if (keep_aspect && sizes != OLG_NO_VALUE) {
      OLG_TRY(olg__resize_keep_aspect(cx, x, sizes, has_axes ? axes : NULL, na, policy, &p));
    } else if (has_axes) { /* spell scales/sizes out for every axis */
      OLG_TRY(olg__resize_spread_axes(cx, x, scales, sizes, axes, na, &p));
    } else if (sizes != OLG_NO_VALUE) {
      const int64_t *sz;
      size_t nsz;
      if (olg__known_ints(cx, sizes, &sz, &nsz)) {
        p.sizes = sz;
        p.n = nsz;
      } else {
        p.sizes_v = sizes;
      }
    } else if (scales != OLG_NO_VALUE) {
      if (!(p.scales = olg__tensor_f32(cx, olg__known(cx, scales), &p.n))) p.scales_v = scales;
    }
  }
  OLG_TRY(olg__emit_resize(cx, x, &p, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* Dropout-12's training mode below 12, as its kernel draws it: keep = U >= ratio for U uniform
 * in [0, 1) (RandomUniformLike, the seed kept), y = x * keep / (1 - ratio); where training_mode
 * is false at run time, y = x and the mask all true (Where; a Gather pick below 9). The numbers
 * drawn are the runtime's, as with Dropout itself; a ratio of 0 keeps everything. */
static olg_status dropout_training(olg_lower *cx, olg_value x, olg_value ratio, olg_value tm,
                                   olg_value *outs) {
  olg_dtype t = olg__dtype(cx, x);
  if (!olg__is_float(t)) return olg__unsupportedf(cx, 12, "Dropout in training mode of %s", olg_dtype_name(t));
  OLG_TRY(olg_lower_decompose(cx, "Dropout in training mode by RandomUniformLike", 12));
  olg_value u, r, one, keep, kf, scale, y, off, all;
  olg_node_id nd;
  OLG_TRY(olg_lower_emit_begin(cx, "", "RandomUniformLike", &nd));
  OLG_TRY(olg_lower_emit_input(cx, nd, x));
  if (olg_lower_src_attr_has(cx, "seed"))
    OLG_TRY(olg_lower_emit_attr_float(cx, nd, "seed", (double)olg__src_attr_int(cx, "seed", 0)));
  OLG_TRY(olg_lower_emit_end(cx, nd, 1, &u));
  if (ratio == OLG_NO_VALUE) OLG_TRY(olg__const_like(cx, x, 0.5, &r));
  else OLG_TRY(olg__emit_cast_like(cx, ratio, x, &r));
  OLG_TRY(olg__emit_compare(cx, OLG_CMP_LT, u, r, &keep));
  OLG_TRY(olg__emit1(cx, "Not", keep, &keep));
  OLG_TRY(olg__const_like(cx, x, 1, &one));
  OLG_TRY(olg__emit2(cx, "Sub", one, r, &scale));
  OLG_TRY(olg__emit2(cx, "Div", one, scale, &scale));
  OLG_TRY(olg__emit_cast(cx, keep, t, &kf));
  OLG_TRY(olg__emit2(cx, "Mul", x, kf, &y));
  OLG_TRY(olg__emit2(cx, "Mul", y, scale, &y));
  outs[0] = y, outs[1] = keep;
  double v;
  if (olg__known_scalar(cx, tm, &v)) return OLG_OK; /* known true */
  OLG_TRY(olg__emit_cast(cx, tm, OLG_BOOL, &tm));
  OLG_TRY(olg__emit_where(cx, tm, y, x, &outs[0]));
  OLG_TRY(olg__emit1(cx, "Not", tm, &off));
  OLG_TRY(olg__emit2(cx, "Or", keep, off, &all));
  outs[1] = all;
  return OLG_OK;
}

/* Dropout at every version: in inference the output is the input and the mask all true. A
 * training_mode input that may be true (12+) is kept as a Dropout node when the target has
 * one (training: 12+), decomposed below. */
olg_status olg__sym_onnx_dropout(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  bool training = olg__target_has_input(cx, "Dropout", "training_mode");
  olg_value x;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  if (!olg_lower_arg_is_none(cx, 2)) {
    olg_value tm, ratio = OLG_NO_VALUE, outs[2];
    OLG_TRY(olg_lower_arg_value(cx, 2, &tm));
    double v, r;
    OLG_TRY(in_value(cx, 1, &ratio));
    /* training with a ratio of 0 drops nothing: the identity, all kept (torch writes it) */
    bool keeps_all = ratio != OLG_NO_VALUE && olg__known_scalar(cx, ratio, &r) && r == 0;
    if ((!olg__known_scalar(cx, tm, &v) || v != 0) && !keeps_all) {
      if (!training) {
        OLG_TRY(dropout_training(cx, x, ratio, tm, outs));
        return olg__bind_outputs(cx, outs, olg_lower_output_count(cx) > 1 && olg_lower_output_used(cx, 1) ? 2 : 1);
      }
      olg_node_id nd;
      OLG_TRY(olg_lower_emit_begin(cx, "", "Dropout", &nd));
      OLG_TRY(olg_lower_emit_input(cx, nd, x));
      OLG_TRY(olg_lower_emit_input(cx, nd, ratio));
      OLG_TRY(olg_lower_emit_input(cx, nd, tm));
      if (olg_lower_src_attr_has(cx, "seed"))
        OLG_TRY(olg_lower_emit_attr_int(cx, nd, "seed", olg__src_attr_int(cx, "seed", 0)));
      size_t n_out = olg_lower_output_count(cx) > 1 && olg_lower_output_used(cx, 1) ? 2 : 1;
      OLG_TRY(olg_lower_emit_end(cx, nd, n_out, outs));
      return olg__bind_outputs(cx, outs, n_out);
    }
  }
  if (olg__src_dropout_is_test_training(cx))
    return olg_lower_unsupported(cx, "Dropout in training mode", -1);
  OLG_TRY(olg_lower_bind_output(cx, 0, x));
  if (olg_lower_output_count(cx) > 1 && olg_lower_output_used(cx, 1)) {
    olg_value shape, mask;
    OLG_TRY(olg__shape(cx, x, &shape));
    /* the mask was the input's type before 10, bool since */
    OLG_TRY(olg__emit_full(cx, shape, olg__src_dropout_mask_dtype(cx, x), 1, &mask));
    OLG_TRY(olg_lower_bind_output(cx, 1, mask));
  }
  return OLG_OK;
}

/* TopK: k attribute < 10, input >= 10; largest/sorted >= 11 */
olg_status olg__sym_onnx_topk(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, kv = OLG_NO_VALUE, outs[2];
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  int64_t k = olg__src_attr_int(cx, "k", -1);
  if (olg__src_topk_k_input(cx)) OLG_TRY(olg_lower_arg_value(cx, 1, &kv));
  OLG_TRY(olg__emit_topk(cx, x, kv, k, olg__src_attr_int(cx, "axis", -1),
                         (int)olg__src_attr_int(cx, "largest", 1),
                         (int)olg__src_attr_int(cx, "sorted", 1), &outs[0], &outs[1]));
  return olg__bind_outputs(cx, outs, 2);
}

/* Softmax, LogSoftmax, Hardmax: below 13 the input is flattened to 2-D at axis (default 1);
 * from 13 the op works along one axis (default -1). The source's meaning is re-emitted by the
 * emit helpers, which know the target's. */
olg_status olg__sym_onnx_softmax(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  const char *op = olg_lower_node_op(cx);
  olg_softmax_kind kind = strcmp(op, "LogSoftmax") == 0 ? OLG_LOG_SOFTMAX
                          : strcmp(op, "Hardmax") == 0  ? OLG_HARDMAX
                                                        : OLG_SOFTMAX;
  olg_value x, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  bool src_flat = olg__src_softmax_is_flat(cx);
  int64_t axis = olg__src_attr_int(cx, "axis", src_flat ? 1 : -1);
  if (src_flat) OLG_TRY(olg__emit_softmax_2d(cx, kind, x, axis, &y));
  else OLG_TRY(olg__emit_softmax(cx, kind, x, axis, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* Flatten: through the emit helper, which counts a negative axis from the front below
 * opset 11 (where Flatten takes none) when the rank is known, and refuses otherwise. */
olg_status olg__sym_onnx_flatten(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg__emit_flatten(cx, x, olg__src_attr_int(cx, "axis", 1), &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* Constant: value_float(s)/value_int(s)/value_string(s) exist from 12; carried as a tensor. */
olg_status olg__sym_onnx_constant(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  const olg_node *nd = olg__src_node(cx);
  olg_value y;
  if (nd->n_attrs != 1) return olg_lower_error(cx, OLG_ERR_INVALID_MODEL, "Constant needs exactly one attribute");
  const olg_attr *a = &nd->attrs[0];
  if (a->type == OLG_ATTR_TENSOR && !a->t) /* an API-built or hand-made node: no payload */
    return olg_lower_error(cx, OLG_ERR_INVALID_MODEL, "Constant attribute 'value' carries no tensor");
  if (strcmp(a->name, "value") == 0 && a->type == OLG_ATTR_TENSOR && a->t->dtype != OLG_STRING) {
    if (!a->t->data && a->t->nbytes) return olg_lower_unsupported(cx, "a Constant with unloaded external data", -1);
    OLG_TRY(olg__const_tensor_kept(cx, a->t->dtype, a->t->rank, a->t->dims, a->t->data, a->t->nbytes, &y));
  } else if (strcmp(a->name, "value_float") == 0) {
    OLG_TRY(olg__const_scalar(cx, OLG_FLOAT, a->f, &y));
  } else if (strcmp(a->name, "value_int") == 0) {
    OLG_TRY(olg__const_i64(cx, a->i, &y));
  } else if (strcmp(a->name, "value_ints") == 0) {
    OLG_TRY(olg__const_i64s(cx, a->ints, a->n, &y));
  } else if (strcmp(a->name, "value_floats") == 0) {
    OLG_TRY(olg__const_f32s(cx, a->floats, a->n, &y));
  } else {
    return olg_lower_unsupported(cx, "this Constant encoding (strings, sparse)", -1);
  }
  return olg_lower_bind_output(cx, 0, y);
}

/* Shape: start/end (15+) become Shape + Slice below 15 */
olg_status olg__sym_onnx_shape(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg__shape_range(cx, x, olg__src_attr_int(cx, "start", 0),
                           olg__src_attr_int(cx, "end", INT64_MAX), &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* Reshape: allowzero (14+) matters only when the shape holds a 0; where the target has no
 * allowzero it is folded away when the shape is known to hold none, else the input is tiled
 * so that the dims a 0 copies are 0 (olg__emit_reshape_zero_exact). */
olg_status olg__sym_onnx_reshape(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  bool has_allowzero = olg__target_has_attr(cx, "Reshape", "allowzero");
  olg_value x, shape, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg_lower_arg_value(cx, 1, &shape));
  int64_t allowzero = olg__src_attr_int(cx, "allowzero", 0);
  if (allowzero && !has_allowzero) {
    const int64_t *d;
    size_t n;
    bool zero = !olg__known_ints(cx, shape, &d, &n);
    for (size_t i = 0; !zero && i < n; i++) zero = d[i] == 0;
    if (zero) {
      OLG_TRY(olg__emit_reshape_zero_exact(cx, x, shape, &y));
      return olg_lower_bind_output(cx, 0, y);
    }
    allowzero = 0;
  }
  olg_node_id nd;
  OLG_TRY(olg_lower_emit_begin(cx, "", "Reshape", &nd));
  OLG_TRY(olg_lower_emit_input(cx, nd, x));
  OLG_TRY(olg_lower_emit_input(cx, nd, shape));
  if (allowzero) OLG_TRY(olg_lower_emit_attr_int(cx, nd, "allowzero", 1));
  OLG_TRY(olg_lower_emit_end(cx, nd, 1, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* CastLike (15) below 15: Cast to the other input's type */
olg_status olg__sym_onnx_castlike(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, like, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg_lower_arg_value(cx, 1, &like));
  if (olg__dtype(cx, like) == OLG_UNDEFINED)
    return olg_lower_unsupported(cx, "CastLike to a type not known at export time", 15);
  OLG_TRY(olg__emit_cast_like(cx, x, like, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* HardSwish (14) below 14: x * HardSigmoid(x; alpha 1/6, beta 0.5) */
olg_status olg__sym_onnx_hardswish(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, hs, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  olg_node_id nd;
  OLG_TRY(olg_lower_emit_begin(cx, "", "HardSigmoid", &nd));
  OLG_TRY(olg_lower_emit_input(cx, nd, x));
  OLG_TRY(olg_lower_emit_attr_float(cx, nd, "alpha", 1.0 / 6.0));
  OLG_TRY(olg_lower_emit_attr_float(cx, nd, "beta", 0.5));
  OLG_TRY(olg_lower_emit_end(cx, nd, 1, &hs));
  OLG_TRY(olg__emit2(cx, "Mul", x, hs, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* DFT (17; axis an attribute, default 1; an input from 20, default -2): read here, emitted by
 * olg__emit_dft (the op where the target has it, in the encoding it takes; else MatMuls). */
olg_status olg__sym_onnx_dft(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_dft p = {OLG_DFT_C2C, 1, OLG_NO_VALUE, false, false, OLG_NO_VALUE, 1.0};
  olg_value x, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(in_value(cx, 1, &p.length));
  int64_t axis = -2;
  if (olg__src_dft_axis_attr(cx)) {
    axis = olg__src_attr_int(cx, "axis", 1);
  } else if (!olg_lower_arg_is_none(cx, 2)) {
    olg_value av;
    const int64_t *k;
    size_t n;
    OLG_TRY(olg_lower_arg_value(cx, 2, &av));
    if (olg__known_ints(cx, av, &k, &n) && n == 1) axis = k[0];
    else p.axis_value = av;
  }
  if (p.axis_value == OLG_NO_VALUE && axis < 0) {
    int32_t rank = olg__rank(cx, x);
    if (rank < 0) return olg_lower_unsupported(cx, "DFT with a negative axis of an input of unknown rank", 20);
    axis += rank;
  }
  p.axis = axis;
  p.inverse = olg__src_attr_int(cx, "inverse", 0) != 0;
  p.onesided = olg__src_attr_int(cx, "onesided", 0) != 0;
  OLG_TRY(olg__emit_dft(cx, &p, x, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* ArgMax/ArgMin with select_last_index 1 (12) below 12: the first extreme of the input reversed
 * along the axis (a Gather of d-1..0, the dim known), counted back from d-1. Exact. */
olg_status olg__sym_onnx_arg_extreme(olg_lower *cx, olg_node_id src, void *ud) {
  if (!olg__src_attr_int(cx, "select_last_index", 0)) return olg__sym_onnx_passthrough(cx, src, ud);
  const char *op = olg_lower_node_op(cx);
  olg_value x, rev, idx, y, last;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  int32_t rank = olg__rank(cx, x);
  int64_t axis = olg__norm_axis(olg__src_attr_int(cx, "axis", 0), rank);
  int64_t keepdims = olg__src_attr_int(cx, "keepdims", 1);
  int64_t d = rank >= 0 && axis >= 0 ? olg__dim(cx, x, (int32_t)axis) : -1;
  if (d <= 0) return olg__unsupportedf(cx, 12, "%s with select_last_index along a dim whose size is not known", op);
  int64_t *r = olg__lower_alloc(cx, (size_t)d * sizeof *r);
  if (!r) return OLG_ERR_NOMEM;
  for (int64_t i = 0; i < d; i++) r[i] = d - 1 - i;
  OLG_TRY(olg__const_tensor_kept(cx, OLG_INT64, 1, &d, r, (size_t)d * sizeof *r, &idx));
  OLG_TRY(olg__emit_gather(cx, x, idx, axis, &rev));
  olg_node_id nd;
  OLG_TRY(olg_lower_emit_begin(cx, "", op, &nd));
  OLG_TRY(olg_lower_emit_input(cx, nd, rev));
  OLG_TRY(olg_lower_emit_attr_int(cx, nd, "axis", axis));
  OLG_TRY(olg_lower_emit_attr_int(cx, nd, "keepdims", keepdims));
  OLG_TRY(olg_lower_emit_end(cx, nd, 1, &y));
  OLG_TRY(olg__const_i64(cx, d - 1, &last));
  OLG_TRY(olg__emit2(cx, "Sub", last, y, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* An input type the target's version of the op does not take (Min/Max of int32 before 12, Pow
 * of int before 12, bfloat16 before 13): the op computed in a wider type it takes, float for
 * float16/bfloat16, double for 8-, 16- and 32-bit integers (both exact for every value of the
 * narrower type), and the result cast back -- the same numbers wherever the result fits the
 * type. 64-bit integers do not fit a double: refused as the pass-through refuses them. */
static olg_dtype wider(olg_dtype t, const char *op) {
  /* Max/Min/MaxPool only select: float holds every 8- and 16-bit integer, and ONNX Runtime's
   * Max-6 and Min-6 have float kernels only */
  bool select = strcmp(op, "Max") == 0 || strcmp(op, "Min") == 0 || strcmp(op, "MaxPool") == 0;
  switch (t) {
  case OLG_INT8: case OLG_INT16: case OLG_UINT8: case OLG_UINT16:
    return select ? OLG_FLOAT : OLG_DOUBLE;
  case OLG_FLOAT16: case OLG_BFLOAT16: return OLG_FLOAT;
  case OLG_INT32: case OLG_UINT32:
    return OLG_DOUBLE;
  default: return OLG_UNDEFINED;
  }
}

/* Max/Min of a type the target's version lacks and no wider type holds (64-bit integers):
 * selected pairwise, Where(Greater(a, b), a, b), exact and broadcasting as Max/Min do. NO when
 * the target cannot (Where from 9). */
static olg_status select_pairwise(olg_lower *cx, const olg_node *nd, olg_value *in, int n_in,
                                  olg_value *out) {
  bool max = strcmp(nd->op, "Max") == 0;
  olg_value m = in[0];
  for (int i = 1; i < n_in; i++) {
    olg_value c, a = in[i];
    OLG_TRY(olg__emit2(cx, max ? "Greater" : "Less", m, a, &c));
    olg_node_id n;
    OLG_TRY(olg_lower_emit_begin(cx, "", "Where", &n));
    OLG_TRY(olg_lower_emit_input(cx, n, c));
    OLG_TRY(olg_lower_emit_input(cx, n, m));
    OLG_TRY(olg_lower_emit_input(cx, n, a));
    OLG_TRY(olg_lower_emit_end(cx, n, 1, &m));
  }
  *out = m;
  return OLG_OK;
}

/* Pow whose base or exponent type the target's version lacks, or whose exponent type differs
 * from the base's before Pow-12 allowed it: computed in double and cast to the base's type.
 * That is what ONNX Runtime does for a float base and an integer exponent (std::pow promotes
 * both to double) and, for 8- to 32-bit integer bases, exact (double holds every result that
 * fits the type). A 64-bit integer base with an integer exponent: square-and-multiply in int64
 * (olg__emit_int_pow); with a float exponent in double too, as ONNX Runtime computes it
 * (std::pow converts the base to double). */
static olg_status pow_in_double(olg_lower *cx, olg_node_id src, void *ud, const olg_node *nd,
                                olg_value b, olg_value e) {
  olg_dtype tb = olg__dtype(cx, b), te = olg__dtype(cx, e);
  const olg_schema *ts = olg__target_schema(cx, "Pow");
  const olg_formal *fb = ts ? olg_schema_input_formal(ts, 0) : NULL;
  const olg_formal *fe = ts ? olg_schema_input_formal(ts, 1) : NULL;
  bool same_t = fb && fe && strcmp(fb->type_str, fe->type_str) == 0;
  if (tb == OLG_UNDEFINED || te == OLG_UNDEFINED ||
      (olg__op_takes(cx, "Pow", 0, tb) && olg__op_takes(cx, "Pow", 1, te) && (!same_t || tb == te)))
    return olg__sym_onnx_passthrough(cx, src, ud);
  if ((tb == OLG_INT64 || tb == OLG_UINT64) && olg__is_int(te)) {
    olg_value y;
    OLG_TRY(olg_lower_decompose(cx, "Pow of 64-bit integers (square-and-multiply)", 12));
    OLG_TRY(olg__emit_int_pow(cx, b, e, &y));
    return olg_lower_bind_output(cx, 0, y);
  }
  if (!olg__op_takes(cx, "Pow", 0, OLG_DOUBLE) ||
      !olg__op_takes(cx, "Cast", 0, tb) || !olg__op_takes(cx, "Cast", 0, te))
    return olg__sym_onnx_passthrough(cx, src, ud); /* refused there, naming the opset */
  (void)nd;
  OLG_TRY(olg_lower_decompose(cx, "Pow of types this opset's version lacks (computed in double)", -1));
  olg_value y;
  OLG_TRY(olg__emit_cast(cx, b, OLG_DOUBLE, &b));
  OLG_TRY(olg__emit_cast(cx, e, OLG_DOUBLE, &e));
  OLG_TRY(olg__emit2(cx, "Pow", b, e, &y));
  OLG_TRY(olg__emit_cast(cx, y, tb, &y));
  return olg_lower_bind_output(cx, 0, y);
}

olg_status olg__sym_onnx_cast_around(olg_lower *cx, olg_node_id src, void *ud) {
  const olg_node *nd = olg__src_node(cx);
  const olg_schema *ts = olg__target_schema(cx, nd->op);
  int n_in = (int)nd->n_args;
  if (!ts || nd->n_outputs != 1) return olg__sym_onnx_passthrough(cx, src, ud);
  if (strcmp(nd->op, "Pow") == 0 && n_in == 2 && nd->args[0].kind == OLG_ARG_VALUE &&
      nd->args[1].kind == OLG_ARG_VALUE) {
    olg_value b, e;
    OLG_TRY(olg_lower_arg_value(cx, 0, &b));
    OLG_TRY(olg_lower_arg_value(cx, 1, &e));
    return pow_in_double(cx, src, ud, nd, b, e);
  }
  olg_value buf[64], *in = olg__lower_values(cx, buf, 64, (size_t)n_in);
  if (!in) return OLG_ERR_NOMEM;
  bool cast_any = false;
  olg_dtype out_t = OLG_UNDEFINED;
  for (int i = 0; i < n_in; i++) {
    in[i] = OLG_NO_VALUE;
    if (nd->args[i].kind != OLG_ARG_VALUE) continue;
    OLG_TRY(olg_lower_arg_value(cx, (size_t)i, &in[i]));
    olg_dtype t = olg__dtype(cx, in[i]);
    if (i == 0) out_t = t;
    const olg_formal *f = olg_schema_input_formal(ts, i);
    if (t == OLG_UNDEFINED || !f || !f->tensor_dtypes || olg_schema_formal_allows_dtype(f, t)) continue;
    olg_dtype w = wider(t, nd->op);
    const olg_schema *cs = olg__target_schema(cx, "Cast");
    const olg_formal *ci = cs ? olg_schema_input_formal(cs, 0) : NULL;
    bool select = strcmp(nd->op, "Max") == 0 || strcmp(nd->op, "Min") == 0;
    if (w == OLG_UNDEFINED && select && n_in >= 1 && olg__op_takes(cx, "Where", 1, t) &&
        olg__op_takes(cx, strcmp(nd->op, "Max") == 0 ? "Greater" : "Less", 0, t)) {
      for (int k = 0; k < n_in; k++) /* every input the same type (Max/Min's T) */
        if (nd->args[k].kind != OLG_ARG_VALUE) return olg__sym_onnx_passthrough(cx, src, ud);
      for (int k = 0; k < n_in; k++) OLG_TRY(olg_lower_arg_value(cx, (size_t)k, &in[k]));
      OLG_TRY(olg_lower_decompose(cx, "Max/Min of a type this opset's version lacks (selected "
                                      "pairwise by Where)", -1));
      olg_value y;
      OLG_TRY(select_pairwise(cx, nd, in, n_in, &y));
      return olg_lower_bind_output(cx, 0, y);
    }
    if (w == OLG_UNDEFINED || !olg_schema_formal_allows_dtype(f, w) || !ci ||
        (ci->tensor_dtypes && !olg_schema_formal_allows_dtype(ci, t)))
      return olg__sym_onnx_passthrough(cx, src, ud); /* refused there, naming the opset */
    OLG_TRY(olg__emit_cast(cx, in[i], w, &in[i]));
    cast_any = true;
  }
  if (!cast_any) return olg__sym_onnx_passthrough(cx, src, ud);
  OLG_TRY(olg_lower_decompose(cx, "an input type this opset's version lacks (computed wider)", -1));
  olg_node_id n;
  olg_value y;
  OLG_TRY(olg_lower_emit_begin(cx, "", nd->op, &n));
  for (int i = 0; i < n_in; i++) OLG_TRY(olg_lower_emit_input(cx, n, in[i]));
  for (uint32_t i = 0; i < nd->n_attrs; i++) OLG_TRY(olg__node_add_attr(olg_lower_target(cx), n, &nd->attrs[i]));
  OLG_TRY(olg_lower_emit_end(cx, n, 1, &y));
  OLG_TRY(olg__emit_cast(cx, y, out_t, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* Scan: Scan-8 at a target of 9 or more: Scan-8 carries a batch axis first (on states, scan inputs and
 * outputs) and an optional sequence_lens; Scan-9 has neither. With a batch of 1 and no
 * sequence_lens, the batch axis is squeezed off the inputs and put back on the outputs around
 * a Scan-9 with the same body (lowered to the target too). */
olg_status olg__sym_onnx_scan(olg_lower *cx, olg_node_id src, void *ud) {
  /* the target's Scan is Scan-8 (batch axis, sequence_lens) or the source's is Scan-9+: as it
     is (the pass-through refuses Scan-9 at 8, a meaning change, lib/meaning.c) */
  if (!olg__src_scan_has_batch(cx) || olg__target_has_input(cx, "Scan", "sequence_lens"))
    return olg__sym_onnx_passthrough(cx, src, ud);
  const olg_node *nd = olg__src_node(cx);
  const olg_attr *body = olg__node_attr(nd, "body");
  int64_t n_scan = olg__src_attr_int(cx, "num_scan_inputs", -1);
  size_t n_args = nd->n_args, n_out = nd->n_outputs;
  if (!body || body->type != OLG_ATTR_GRAPH || n_scan < 1 || n_args < 1 + (size_t)n_scan)
    return olg_lower_error(cx, OLG_ERR_INVALID_MODEL, "Scan-8: body, num_scan_inputs or inputs missing");
  if (!olg_lower_arg_is_none(cx, 0))
    return olg_lower_unsupported(cx, "Scan-8 with sequence_lens at opset 9 or later", 8);
  olg_value in_buf[64], out_buf[64], *in = olg__lower_values(cx, in_buf, 64, n_args),
                                     *outs = olg__lower_values(cx, out_buf, 64, n_out);
  if (!in || !outs) return OLG_ERR_NOMEM;
  static const int64_t zero = 0;
  for (size_t i = 1; i < n_args; i++) {
    olg_value v;
    OLG_TRY(olg_lower_arg_value(cx, i, &v));
    if (olg__rank(cx, v) < 1 || olg__dim(cx, v, 0) != 1)
      return olg_lower_unsupported(cx, "Scan-8 with a batch other than 1 at opset 9 or later", 8);
    OLG_TRY(olg__emit_squeeze(cx, v, &zero, 1, &in[i - 1]));
  }
  olg_graph *sub;
  OLG_TRY(olg__lower_subgraph(cx, body->g, "body", &sub));
  olg_node_id n;
  OLG_TRY(olg_lower_emit_begin(cx, "", "Scan", &n));
  for (size_t i = 0; i + 1 < n_args; i++) OLG_TRY(olg_lower_emit_input(cx, n, in[i]));
  OLG_TRY(olg_lower_emit_attr_graph(cx, n, "body", sub));
  OLG_TRY(olg_lower_emit_attr_int(cx, n, "num_scan_inputs", n_scan));
  const int64_t *dirs;
  size_t nd_dirs;
  if (olg__src_attr_ints(cx, "directions", &dirs, &nd_dirs))
    OLG_TRY(olg_lower_emit_attr_ints(cx, n, "scan_input_directions", dirs, nd_dirs));
  OLG_TRY(olg_lower_emit_end(cx, n, n_out, outs));
  for (size_t i = 0; i < n_out; i++) {
    if (!olg_lower_output_used(cx, i)) continue;
    olg_value y;
    OLG_TRY(olg__emit_unsqueeze(cx, outs[i], &zero, 1, &y));
    OLG_TRY(olg_lower_bind_output(cx, i, y));
  }
  return OLG_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* AveragePool's dilations (19) and LpPool's dilations and ceil_mode (18), which the target's op
 * cannot take, decomposed exactly (olg__emit_window_pool); *done when so. */
static olg_status window_pool(olg_lower *cx, bool *done) {
  *done = false;
  olg_window_pool w;
  memset(&w, 0, sizeof w);
  w.lp = strcmp(olg_lower_node_op(cx), "LpPool") == 0;
  const int64_t *k, *s = NULL, *p = NULL, *d = NULL;
  size_t nk, ns = 0, np = 0, nd = 0;
  if (!olg__src_attr_ints(cx, "kernel_shape", &k, &nk) || nk < 1 || nk > OLG_MAX_SPATIAL)
    return OLG_OK; /* as it is, or refused there */
  olg__src_attr_ints(cx, "strides", &s, &ns);
  olg__src_attr_ints(cx, "pads", &p, &np);
  olg__src_attr_ints(cx, "dilations", &d, &nd);
  if ((ns && ns != nk) || (np && np != 2 * nk) || (nd && nd != nk))
    return olg_lower_error(cx, OLG_ERR_INVALID_MODEL, "strides, pads or dilations of the wrong length");
  w.nk = nk;
  for (size_t j = 0; j < nk; j++) {
    w.kernel[j] = k[j];
    w.strides[j] = ns ? s[j] : 1;
    w.dilations[j] = nd ? d[j] : 1;
    w.pads[j] = np ? p[j] : 0;
    w.pads[j + nk] = np ? p[j + nk] : 0;
  }
  w.p = olg__src_attr_int(cx, "p", 2);
  w.ceil_mode = (int)olg__src_attr_int(cx, "ceil_mode", 0);
  w.count_include_pad = (int)olg__src_attr_int(cx, "count_include_pad", 0);
  w.auto_pad = strcmp(olg__src_attr_string(cx, "auto_pad", "NOTSET"), "NOTSET") != 0;
  if (!olg__window_pool_decomposes(cx, &w)) return OLG_OK;
  olg_value x, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg__emit_window_pool(cx, x, &w, &y));
  *done = true;
  return olg_lower_bind_output(cx, 0, y);
}

/* AveragePool from 10, LpPool: as they are, or decomposed where the target's op cannot take
 * their dilations (ceil_mode for LpPool). */
olg_status olg__sym_onnx_window_pool(olg_lower *cx, olg_node_id src, void *ud) {
  bool done;
  OLG_TRY(window_pool(cx, &done));
  return done ? OLG_OK : olg__sym_onnx_passthrough(cx, src, ud);
}

/* ONNX AveragePool with ceil_mode below opset 10 (where the attribute arrived): the ceil rule (a
 * last window may start past the input only if it starts before the end padding, as PyTorch and
 * ONNX Runtime count) becomes extra end padding under the floor rule; with count_include_pad 0
 * the average divides by the real elements the window covers, so the extra padding changes
 * nothing but the size. Needs the spatial sizes. (MaxPool's: pool.c.) */
olg_status olg__sym_onnx_pool_ceil(olg_lower *cx, olg_node_id src, void *ud) {
  bool done;
  OLG_TRY(window_pool(cx, &done));
  if (done) return OLG_OK;
  if (!olg__src_attr_int(cx, "ceil_mode", 0) ||
      strcmp(olg__src_attr_string(cx, "auto_pad", "NOTSET"), "NOTSET") != 0 ||
      olg__src_attr_int(cx, "count_include_pad", 0))
    return olg__sym_onnx_passthrough(cx, src, ud); /* as it is, or refused naming opset 10 */
  olg_value x, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  olg_src_pool pa;
  OLG_TRY(olg__src_pool_attrs(cx, &pa));
  const int64_t *k = pa.k, *s = pa.s, *p = pa.p;
  size_t nk = pa.nk, ns = pa.ns, np = pa.np;
  int64_t pads[2 * OLG_MAX_SPATIAL], strides[OLG_MAX_SPATIAL];
  for (size_t j = 0; j < nk; j++) {
    int64_t in = olg__dim(cx, x, (int32_t)j + 2), st = ns ? s[j] : 1;
    int64_t pb = np ? p[j] : 0, pe = np ? p[j + nk] : 0;
    if (in < 0) return olg_lower_unsupported(cx, "AveragePool with ceil_mode of an input whose spatial size is not known", 10);
    if (st <= 0 || k[j] <= 0) return olg_lower_error(cx, OLG_ERR_INVALID_MODEL, "kernel_shape and strides must be > 0");
    if (st > (int64_t)1 << 31 || k[j] > (int64_t)1 << 31 || pb < 0 || pe < 0 || pb > (int64_t)1 << 31 ||
        pe > (int64_t)1 << 31 || in > (int64_t)1 << 40) /* else the window arithmetic passes int64 */
      return olg_lower_error(cx, OLG_ERR_LIMIT, "AveragePool: kernel_shape, strides or pads negative or "
                                                "past 2^31, or an input dim past 2^40");
    int64_t num = in + pb + pe - (k[j] - 1) - 1;
    if (num < 0) return olg_lower_error(cx, OLG_ERR_INVALID_MODEL, "the padded input is smaller than the window");
    int64_t o = (num + st - 1) / st + 1;
    if ((o - 1) * st >= in + pb) o--;
    int64_t extra = (o - 1) * st + k[j] - (in + pb + pe);
    pads[j] = pb;
    pads[j + nk] = pe + (extra > 0 ? extra : 0);
    strides[j] = st;
  }
  olg_node_id n;
  OLG_TRY(olg_lower_emit_begin(cx, "", "AveragePool", &n));
  OLG_TRY(olg_lower_emit_input(cx, n, x));
  OLG_TRY(olg_lower_emit_attr_ints(cx, n, "kernel_shape", k, nk));
  OLG_TRY(olg_lower_emit_attr_ints(cx, n, "strides", strides, nk));
  OLG_TRY(olg_lower_emit_attr_ints(cx, n, "pads", pads, 2 * nk));
  OLG_TRY(olg_lower_emit_end(cx, n, 1, &y));
  return olg_lower_bind_output(cx, 0, y);
}
