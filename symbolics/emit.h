/* onnxlegal — the helpers symbolic functions are written with (internal).
 *
 * A symbolic function (registry.h) lowers one source node:
 *
 *   olg_status olg__sym_flatten(olg_lower *cx, olg_node_id src, void *ud) {
 *     (void)src; (void)ud;
 *     olg_value x, y;
 *     int64_t start, end;
 *     OLG_TRY(olg_lower_arg_value(cx, 0, &x));          // already lowered: dtype/shape known
 *     OLG_TRY(olg__arg_int_or(cx, 1, 0, &start));       // aten::flatten(Tensor self,
 *     OLG_TRY(olg__arg_int_or(cx, 2, -1, &end));        //   int start_dim=0, int end_dim=-1)
 *     ... olg__emit_reshape_static(cx, x, dims, n, &y) ...
 *     return olg_lower_bind_output(cx, 0, y);
 *   }
 *
 * Rules:
 * - Arguments are positional, exactly as PyTorch 1.13's op schema lists them
 *   (torch._C._jit_get_all_schemas()); a trailing argument may be absent: treat it as its
 *   schema default (the olg__arg_*_or helpers do).
 * - Never switch on the opset to choose an ONNX encoding: the olg__emit_* helpers below hide
 *   every encoding that changed across opsets (attribute vs input, Upsample vs Resize, ...).
 *   Choosing between a native op and a decomposition IS the symbolic's business: register the
 *   two at their opsets in opsets/opsetNN.c, or, when the choice depends on the arguments, call
 *   olg_lower_decompose() before emitting the decomposition.
 * - Every emitted node is checked against the target opset's schema and inferred at once, so a
 *   symbolic can ask the dtype, shape and (small) constant contents of anything it emitted.
 * - On a failure, add a diagnostic (olg_lower_error, olg_lower_unsupported, olg__errf,
 *   olg__unsupportedf) and return its status. An argument combination that works only from some
 *   opset must name that opset: olg__unsupportedf(cx, 11, "dynamic repeats").
 * - All memory comes from the target model (olg__lower_alloc): nothing to free.
 *
 * Registration: add the function's declaration to symbolics/symbolics.h (your family's
 * section) and one row per opset where it starts to apply to opsets/opsetNN.c (see
 * opsets/opsets.h). Define the function before adding rows, so the tree always links. */
#ifndef OLG_SYMBOLICS_EMIT_H
#define OLG_SYMBOLICS_EMIT_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../lib/ir.h"
#include "../lib/lower.h" /* OLG_TRY, OLG_MAX_RANK, what is known of values, olg__errf, olg__src_attr_* */
#include "onnxlegal/legalize.h"
#include "onnxlegal/registry.h"

/* ------------------------------------------------------------------------------------------ */
/* Small helpers (what is known about values, diagnostics, allocation: lib/lower.h) */

/* axis in [-rank, rank) normalized to [0, rank); -1 when out of range. */
int64_t olg__norm_axis(int64_t axis, int64_t rank);
/* True for float16/float/double/bfloat16. */
bool olg__is_float(olg_dtype t);
/* v truncated toward zero into *out; false when v is NaN or outside int64 (where a C cast is
 * undefined: scalars and scales come from the caller's model). */
bool olg__f64_to_i64(double v, int64_t *out);
/* v truncated toward zero and saturated to int64 (NaN gives 0): for writing a double into an
 * integer tensor, never an undefined cast. */
int64_t olg__f64_sat_i64(double v);
/* The target opset (olg_lower_opset, as an int). Only emit helper files (symbolics/emit*.c) ask
 * it: what changes with the opset is either an encoding (an emit helper's job) or a different
 * symbolic registered in opsets/opsetNN.c. */
int olg__opset(const olg_lower *cx);
/* Binds outs[0..n) to the source node's outputs; an output past n that is used is refused
 * (OLG_ERR_UNSUPPORTED naming it), an unused one is left unbound. */
olg_status olg__bind_outputs(olg_lower *cx, const olg_value *outs, size_t n);
/* A symbolic (olg_symbolic_fn) that reads neither its source node id nor its user data. */
#define UNUSED_SRC (void)src; (void)ud
/* What the target's default domain offers, asked of its schema (not of the opset number): a
 * symbolic that has a native and a decomposed form asks these instead of being split into
 * per-opset capability functions. has: the op exists (not deprecated) at the target;
 * has_attr / has_input: its version at the target defines that attribute / input (by name). */
bool olg__target_has(const olg_lower *cx, const char *op);
bool olg__target_has_attr(const olg_lower *cx, const char *op, const char *attr);
bool olg__target_has_input(const olg_lower *cx, const char *op, const char *input);
/* The target's `op` defines `input` (by name) as optional. */
bool olg__target_input_optional(const olg_lower *cx, const char *op, const char *input);
/* axes normalized against rank (when known) into out; false when an axis is out of range, or
 * negative with the rank unknown and need_nonneg. */
bool olg__norm_axes(const int64_t *axes, size_t n, int64_t rank, bool need_nonneg, int64_t *out);
/* The OLG_ERR_RANGE diagnostic "op: axes [..] out of range for rank r". */
olg_status olg__axes_error(olg_lower *cx, const char *op, const int64_t *axes, size_t n,
                           int64_t rank);

/* ------------------------------------------------------------------------------------------ */
/* Arguments with the schema's defaults: a none or absent argument gives dflt. */

olg_status olg__arg_int_or(olg_lower *cx, size_t i, int64_t dflt, int64_t *out);
/* x's rank, refused when it is not known at export time or above OLG_MAX_RANK. */
olg_status olg__input_rank(olg_lower *cx, olg_value x, int32_t *rank);
/* A PyTorch dim made non-negative for rank, refused (naming it) when out of range. */
olg_status olg__norm_dim(olg_lower *cx, int64_t d, int64_t rank, int64_t *out);
/* Positional argument i as a dim (default dflt), made non-negative for rank. */
olg_status olg__dim_arg(olg_lower *cx, size_t i, int64_t dflt, int64_t rank, int64_t *out);
olg_status olg__arg_float_or(olg_lower *cx, size_t i, double dflt, double *out);
olg_status olg__arg_bool_or(olg_lower *cx, size_t i, int dflt, int *out);
olg_status olg__arg_string_or(olg_lower *cx, size_t i, const char *dflt, const char **out);
/* none/absent: *p = NULL, *n = 0. */
olg_status olg__arg_ints_or_empty(olg_lower *cx, size_t i, const int64_t **p, size_t *n);
/* none/absent: OLG_NO_VALUE; else as olg_lower_arg_value. */
olg_status olg__arg_value_or_none(olg_lower *cx, size_t i, olg_value *out);
/* A dtype argument (PyTorch's ScalarType number, as aten::to / aten::zeros take it) as an
 * olg_dtype; none gives dflt. Fails with OLG_ERR_TYPE for a ScalarType ONNX has no type for. */
olg_status olg__arg_scalar_type_or(olg_lower *cx, size_t i, olg_dtype dflt, olg_dtype *out);
/* PyTorch ScalarType number -> olg_dtype (OLG_UNDEFINED when none matches), and back (-1). */
olg_dtype olg__dtype_from_torch(int64_t scalar_type);
int64_t olg__dtype_to_torch(olg_dtype t);

/* ------------------------------------------------------------------------------------------ */
/* Generic emission: an op whose encoding never changed (Add, Relu, MatMul, Shape, Where, ...).
 * For attributes use olg_lower_emit_begin / olg_lower_emit_attr_* / olg_lower_emit_end. */

/* One node, n_in inputs (OLG_NO_VALUE for an omitted optional), one output. */
olg_status olg__emit(olg_lower *cx, const char *op, const olg_value *in, size_t n_in,
                     olg_value *out);
olg_status olg__emit1(olg_lower *cx, const char *op, olg_value x, olg_value *out);
olg_status olg__emit2(olg_lower *cx, const char *op, olg_value a, olg_value b, olg_value *out);
/* As olg__emit, with n_out outputs. */
olg_status olg__emit_n(olg_lower *cx, const char *op, const olg_value *in, size_t n_in,
                       size_t n_out, olg_value *outs);

/* ------------------------------------------------------------------------------------------ */
/* Constants (Constant nodes; contents known; identical ones are merged by the cleanup). */

olg_status olg__const_i64(olg_lower *cx, int64_t v, olg_value *out);          /* 0-D int64 */
olg_status olg__const_i64s(olg_lower *cx, const int64_t *v, size_t n, olg_value *out); /* 1-D */
olg_status olg__const_f32s(olg_lower *cx, const float *v, size_t n, olg_value *out);   /* 1-D */
/* A 0-D constant of dtype holding v (converted; float16/bfloat16 rounded to nearest even). */
olg_status olg__const_scalar(olg_lower *cx, olg_dtype dtype, double v, olg_value *out);
/* A 0-D constant of x's dtype (float when unknown). */
olg_status olg__const_like(olg_lower *cx, olg_value x, double v, olg_value *out);
/* Any tensor: data copied (nbytes must match). Below opset 9, where Constant takes float types
 * only, other types become initializers (olg__lower_initializer). */
olg_status olg__const_tensor(olg_lower *cx, olg_dtype dtype, int32_t rank, const int64_t *dims,
                             const void *data, size_t nbytes, olg_value *out);
/* The same for data that lives as long as the target model — memory from olg__lower_alloc, or a
 * tensor of the source model (which must outlive the target): borrowed, not copied, so a
 * constant computed at export time (reordered RNN weights, interpolation matrices) or read from
 * the source is held once. The data must not change afterwards. */
olg_status olg__const_tensor_kept(olg_lower *cx, olg_dtype dtype, int32_t rank,
                                  const int64_t *dims, const void *data, size_t nbytes,
                                  olg_value *out);

/* ------------------------------------------------------------------------------------------ */
/* Shapes as tensors (int64, 1-D). Static parts become constants; dynamic parts use Shape. */

olg_status olg__shape(olg_lower *cx, olg_value x, olg_value *out);
/* dims [start, end) of x's shape (end may be INT64_MAX): Shape(start,end) at opset >= 15, else
 * Shape + Slice; a constant when those dims are known. */
olg_status olg__shape_range(olg_lower *cx, olg_value x, int64_t start, int64_t end,
                            olg_value *out);
/* dim `axis` of x as a 1-D tensor of one element. */
olg_status olg__dim_tensor(olg_lower *cx, olg_value x, int64_t axis, olg_value *out);
/* Concatenates 1-D int64 pieces (Concat axis 0; folded when all are known). */
olg_status olg__concat_ints(olg_lower *cx, const olg_value *pieces, size_t n, olg_value *out);

/* ------------------------------------------------------------------------------------------ */
/* Opset-aware encoders. Each emits the meaning at the target opset, whatever the encoding there.
 * Axes are ONNX axes (negative allowed where the target op allows it; the helpers normalize
 * when the rank is known, which older opsets need). Where an opset cannot express the request
 * (a dynamic value where an attribute is needed, a mode that does not exist yet), the helper
 * adds a diagnostic naming the opset that would work and returns OLG_ERR_UNSUPPORTED. */

/* Squeeze: attribute axes < 13, input >= 13. n == 0: every dim of size 1 (no axes). */
olg_status olg__emit_squeeze(olg_lower *cx, olg_value x, const int64_t *axes, size_t n,
                             olg_value *out);
/* Unsqueeze: attribute axes < 13, input >= 13. axes refer to the OUTPUT rank. */
olg_status olg__emit_unsqueeze(olg_lower *cx, olg_value x, const int64_t *axes, size_t n,
                               olg_value *out);

typedef enum olg_reduce_kind {
  OLG_REDUCE_SUM, OLG_REDUCE_MEAN, OLG_REDUCE_MAX, OLG_REDUCE_MIN, OLG_REDUCE_PROD,
  OLG_REDUCE_L1, OLG_REDUCE_L2, OLG_REDUCE_LOG_SUM, OLG_REDUCE_LOG_SUM_EXP,
  OLG_REDUCE_SUM_SQUARE
} olg_reduce_kind;
/* ReduceX over axes (axes NULL and n 0: all axes): ReduceSum's axes are an input >= 13, the
 * others' >= 18, attributes before. */
olg_status olg__emit_reduce(olg_lower *cx, olg_reduce_kind kind, olg_value x,
                            const int64_t *axes, size_t n, int keepdims, olg_value *out);

/* A reduction over no axes (noop_with_empty_axes with empty axes): the identity for Sum, Mean,
 * Max, Min and Prod, but the composite reductions keep their element-wise steps (Changelog,
 * Reduce*-18: ReduceLogSum gives Log(x), ReduceSumSquare x*x; ONNX Runtime agrees). */
olg_status olg__emit_reduce_none(olg_lower *cx, olg_reduce_kind kind, olg_value x, olg_value *out);

/* Slice with static starts/ends/axes/steps (axes NULL: 0..n-1; steps NULL: all 1). Attributes
 * < 10 (where a step other than 1 is refused: "needs opset >= 10"), inputs >= 10. Ends may be
 * INT64_MAX / INT64_MIN (clamped as ONNX does). */
olg_status olg__emit_slice(olg_lower *cx, olg_value x, const int64_t *starts,
                           const int64_t *ends, const int64_t *axes, const int64_t *steps,
                           size_t n, olg_value *out);
/* Slice with 1-D int64 tensors (axes/steps may be OLG_NO_VALUE). Below opset 10 they must be
 * known. */
olg_status olg__emit_slice_dyn(olg_lower *cx, olg_value x, olg_value starts, olg_value ends,
                               olg_value axes, olg_value steps, olg_value *out);

/* Pad. mode: "constant", "reflect", "edge", "wrap" (below 19 olg__emit_pad_wrap). pads in ONNX's
 * layout (x1_begin, x2_begin, ..., x1_end, x2_end, ...), 2*rank entries (negative: crop).
 * Attributes pads/value < 11, inputs >= 11 (constant_value of x's dtype). */
olg_status olg__emit_pad(olg_lower *cx, olg_value x, const char *mode, const int64_t *pads,
                         size_t n_pads, double value, olg_value *out);
/* Pad's mode 'wrap' (PyTorch's circular): Pad-19, below it Slice and Concat dim by dim (pads
 * non-negative; the padded dims known, or within_dims: the caller guarantees every pad is at most
 * its dim's size, as PyTorch's circular does). */
olg_status olg__emit_pad_wrap(olg_lower *cx, olg_value x, const int64_t *pads, size_t n_pads,
                              bool within_dims, olg_value *out);
/* Pad-18's axes: the pads (2 * len(axes), begins then ends) of the listed axes spread over every
 * axis; pads, axes and value may be known or run-time values. Run-time ones are kept as Pad-18's
 * axes input from 18, spread at run time (ScatterElements, Scatter-9) below; refused below 9. */
olg_status olg__emit_pad_axes(olg_lower *cx, olg_value x, const char *mode, olg_value pads,
                              olg_value value, olg_value axes, olg_value *out);
/* pads as a 1-D int64 tensor (run-time ones below 11, or with 'wrap' below 19, by
 * olg__emit_pad_gather); value OLG_NO_VALUE for 0. */
olg_status olg__emit_pad_dyn(olg_lower *cx, olg_value x, const char *mode, olg_value pads,
                             olg_value value, olg_value *out);
/* Pad with run-time pads (and value) as one Gather per axis of computed source indices, every
 * mode, from 9 (emit_pad_rt.c); the rank must be known. */
olg_status olg__emit_pad_gather(olg_lower *cx, olg_value x, const char *mode, olg_value pads,
                                olg_value value, olg_value *out);

/* Split along axis into n_out outputs: sizes (n_out entries) or NULL for equal parts (the dim
 * must then divide, or at opset >= 18 the last part is smaller). split attribute < 13, input
 * >= 13, num_outputs >= 18 when sizes is NULL. */
olg_status olg__emit_split(olg_lower *cx, olg_value x, int64_t axis, const int64_t *sizes,
                           size_t n_out, olg_value *outs);

/* Clip to [lo, hi]; either bound may be OLG_NO_VALUE. Attributes (float) < 11 — the bounds must
 * be known scalars there, and x float; inputs >= 11. Integer x below 12 becomes Max/Min. */
olg_status olg__emit_clip(olg_lower *cx, olg_value x, olg_value lo, olg_value hi,
                          olg_value *out);
/* With literal bounds (has_lo/has_hi 0: unbounded). */
olg_status olg__emit_clip_f(olg_lower *cx, olg_value x, int has_lo, double lo, int has_hi,
                            double hi, olg_value *out);

/* Resize / Upsample. Fill what applies; zero means the default. */
typedef struct olg_resize_params {
  const char *mode;               /* "nearest" (default), "linear", "cubic" */
  const char *coordinate_transformation_mode; /* default "half_pixel"; also "align_corners",
                                     "asymmetric", "pytorch_half_pixel", "half_pixel_symmetric"
                                     (>= 19), "tf_crop_and_resize" */
  const char *nearest_mode;       /* default "round_prefer_floor"; PyTorch nearest is "floor" */
  double cubic_coeff_a;           /* 0: -0.75 (PyTorch's value; ONNX's default is -0.75 too) */
  int exclude_outside;
  int antialias;                  /* >= 18 */
  /* Exactly one of: scales (one per dim of x, floats) or sizes (one per dim of x). */
  const float *scales;
  const int64_t *sizes;
  size_t n;                       /* entries in scales or sizes (= rank of x) */
  /* Or, dynamic: a 1-D float tensor of scales or 1-D int64 tensor of sizes (rank entries). */
  olg_value scales_v, sizes_v;    /* OLG_NO_VALUE when unused (set both explicitly); both set
                                     only by keep_aspect_ratio_policy below 18 (run-time tables) */
  /* tf_crop_and_resize (11+): roi (1-D float, 2*rank) when has_roi, and the value outside */
  int has_roi;
  olg_value roi_v;
  double extrapolation_value;
  /* nearest as Upsample and Resize-10 compute it whatever the scales (down when up-sampling,
   * up when down-sampling): a source Upsample/Resize-10 with run-time scales is then re-emitted
   * as Upsample-9/Resize-10 with them, exactly */
  int legacy_nearest;
  /* with scales: the output sizes, where they are not floor(in * scale) (Resize-18's
   * keep_aspect_ratio_policy rounds them); the coordinates still follow the scales */
  const int64_t *out_sizes;
  /* Resize-18 only (targets >= 18): keep_aspect_ratio_policy and axes as they are, over sizes_v
   * of n_axes entries (or rank without axes), computed at run time */
  const char *keep_aspect;
  const int64_t *axes;
  size_t n_axes;
} olg_resize_params;
#define OLG_RESIZE_PARAMS_INIT {0, 0, 0, 0, 0, 0, 0, 0, 0, OLG_NO_VALUE, OLG_NO_VALUE, 0, 0, 0, 0, 0, 0, 0, 0}
/* Upsample-7 (scales attribute, modes nearest/linear with asymmetric coordinates only), Upsample-9
 * (scales input), Resize-10 (scales input, asymmetric only), Resize-11 (roi, scales, sizes;
 * coordinate modes, nearest_mode, cubic), Resize-13 (roi optional), Resize-18 (antialias,
 * axes, keep_aspect_ratio_policy), Resize-19 (half_pixel_symmetric). Below 11 only what
 * Upsample/Resize-10 can express is accepted (modes nearest/linear, asymmetric coordinates,
 * and for nearest the floor rounding); sizes there become scales, chosen so that
 * floor(in * scale) is exactly the size (DESIGN.md §4). Anything else names opset 11. */
olg_status olg__emit_resize(olg_lower *cx, olg_value x, const olg_resize_params *p,
                            olg_value *out);
/* Resize-18's keep_aspect_ratio_policy ("not_larger", "not_smaller") over constant sizes (for
 * axes, or every axis when axes is NULL) and known dims of x: sets p's scales (the policy's one
 * scale on the resized axes, 1 elsewhere) and out_sizes (emit_interp.c). */
/* Resize-18's axes: scales or sizes of `axes` spread over every axis of x into p (constants
 * when known, else scattered at run time from 9) (emit_interp.c). */
olg_status olg__resize_spread_axes(olg_lower *cx, olg_value x, olg_value scales, olg_value sizes,
                                   const int64_t *axes, size_t na, olg_resize_params *p);
olg_status olg__resize_keep_aspect(olg_lower *cx, olg_value x, olg_value sizes, const int64_t *axes,
                                  size_t na, const char *policy, olg_resize_params *p);

/* Dropout in inference: the identity (no node) — bound directly by the caller. Provided so
 * ONNX-domain Dropout at any opset re-encodes: emits Identity when a node is wanted. */
olg_status olg__emit_dropout(olg_lower *cx, olg_value x, olg_value *out);

/* BatchNormalization in inference mode (one output): consumed_inputs/is_test/spatial as the
 * old versions need (< 7 not targeted), training_mode absent. */
olg_status olg__emit_batchnorm(olg_lower *cx, olg_value x, olg_value scale, olg_value bias,
                               olg_value mean, olg_value var, double epsilon, double momentum,
                               olg_value *out);

/* TopK along axis: k an attribute < 10 (must be known there), an input >= 10 (1-D int64 of one
 * element); largest/sorted exist >= 11 (largest 0 below 11 is emulated with Neg for
 * signed/float types; sorted 0 is always satisfied by sorted output). k_v may be OLG_NO_VALUE
 * with k given; outs: values, indices (either may be NULL). */
olg_status olg__emit_topk(olg_lower *cx, olg_value x, olg_value k_v, int64_t k, int64_t axis,
                          int largest, int sorted, olg_value *values, olg_value *indices);

/* The dtype TopK sorts t in exactly at the target opset: below 11 TopK takes float types only
 * (others through double, exact up to 2^53); from 11 float, double, int32, int64 (narrower
 * types widened). */
olg_dtype olg__topk_dtype(const olg_lower *cx, olg_dtype t);
/* k for a TopK over the whole dim `axis` of x: *k when the size is known, else *k_v (TopK's k
 * input, opset 10; refused below naming 10). */
olg_status olg__topk_k_whole_dim(olg_lower *cx, olg_value x, int64_t axis, int64_t *k,
                                 olg_value *k_v);

typedef enum olg_softmax_kind { OLG_SOFTMAX, OLG_LOG_SOFTMAX, OLG_HARDMAX } olg_softmax_kind;
/* Softmax over ONE axis (PyTorch's meaning). Below 13, where ONNX flattens to 2-D at `axis`,
 * that is the same only when axis is the last; otherwise a Transpose moves the axis last and
 * back. Needs the rank known below 13. */
olg_status olg__emit_softmax(olg_lower *cx, olg_softmax_kind kind, olg_value x, int64_t axis,
                             olg_value *out);
/* The same of x flattened to 2-D at axis (the ops' meaning below 13): the op itself below 13,
 * from 13 along the last axis when axis is the last, else Flatten, the op, Reshape back. */
olg_status olg__emit_softmax_2d(olg_lower *cx, olg_softmax_kind kind, olg_value x, int64_t axis,
                                olg_value *out);

/* GridSample (16+). mode "linear"/"bilinear", "nearest", "cubic"/"bicubic" (either spelling:
 * 16 says bilinear/bicubic, 20 renamed them linear/cubic); padding "zeros", "border",
 * "reflection". Below 16: "needs opset >= 16"; an input that is not 4-D needs 20. */
olg_status olg__emit_grid_sample(olg_lower *cx, olg_value x, olg_value grid, const char *mode,
                                 const char *padding, int align_corners, olg_value *out);
/* The target's GridSample takes an input of this rank: 4-D from 16, any rank from 20 (the
 * schema does not say: GridSample-20 widened its text, not its signature). */
bool olg__grid_sample_takes_rank(const olg_lower *cx, int32_t rank);

/* Cast to dtype; returns x itself (no node) when it already has that dtype. */
olg_status olg__emit_cast(olg_lower *cx, olg_value x, olg_dtype to, olg_value *out);
/* Cast to the dtype of like. */
olg_status olg__emit_cast_like(olg_lower *cx, olg_value x, olg_value like, olg_value *out);

/* ScatterElements along axis: Scatter-9 below 11, ScatterElements-11 from 11. reduction NULL or
 * "none"; "add"/"mul" need opset 16, "max"/"min" 18 (a diagnostic names the opset). Below 9
 * there is none: refused naming 9. */
olg_status olg__emit_scatter_elements(olg_lower *cx, olg_value data, olg_value indices,
                                      olg_value updates, int64_t axis, const char *reduction,
                                      olg_value *out);
/* ScatterND (11); reduction as above ("add"/"mul" 16, "max"/"min" 18). */
/* Whether the target's ScatterElements/ScatterND take this reduction (a name the schema does
 * not list: 'add'/'mul' came with the attribute at 16, 'max'/'min' at 18). */
bool olg__scatter_takes_reduction(const olg_lower *cx, const char *reduction);
olg_status olg__emit_scatter_nd(olg_lower *cx, olg_value data, olg_value indices,
                                olg_value updates, const char *reduction, olg_value *out);
/* Compress(x, condition) along axis: the slices of x where the 1-D bool condition holds. */
olg_status olg__emit_compress(olg_lower *cx, olg_value x, olg_value condition, int64_t axis,
                              olg_value *out);
/* Gather along axis (indices any int tensor). */
olg_status olg__emit_gather(olg_lower *cx, olg_value x, olg_value indices, int64_t axis,
                            olg_value *out);
/* Reshape to a 1-D int64 shape tensor (0 copies the input dim, -1 infers one; allowzero 0). */
olg_status olg__emit_reshape(olg_lower *cx, olg_value x, olg_value shape, olg_value *out);
/* Reshape whose 0 entries mean a size of 0, as PyTorch's (allowzero=1, opset 14). Below 14,
 * where a 0 copies the input's dim: OLG_ZERO_KNOWN (a 0 is in the shape) refuses naming 14;
 * OLG_ZERO_WARN (a 0 may come at run time) warns and reshapes; OLG_ZERO_QUIET reshapes. */
typedef enum olg_zero_size { OLG_ZERO_QUIET, OLG_ZERO_WARN, OLG_ZERO_KNOWN } olg_zero_size;
olg_status olg__emit_reshape_allowzero(olg_lower *cx, olg_value x, olg_value shape,
                                      olg_zero_size zero, olg_value *out);
/* Reshape with allowzero=1 by a Reshape without it (any opset): exact for a shape known only
 * at run time, 0 entries included. */
olg_status olg__emit_reshape_zero_exact(olg_lower *cx, olg_value x, olg_value shape, olg_value *out);
olg_status olg__emit_reshape_static(olg_lower *cx, olg_value x, const int64_t *dims, size_t n,
                                    olg_value *out);
olg_status olg__emit_transpose(olg_lower *cx, olg_value x, const int64_t *perm, size_t n,
                               olg_value *out);
/* Concat along axis (n >= 1; n == 1 returns the value itself). */
olg_status olg__emit_concat(olg_lower *cx, const olg_value *vals, size_t n, int64_t axis,
                            olg_value *out);
/* Broadcasts x to shape (1-D int64 tensor), numpy rules. Expand >= 8; at 7, for a known shape,
 * Tile (after Reshape to the target rank). */
olg_status olg__emit_expand(olg_lower *cx, olg_value x, olg_value shape, olg_value *out);
/* Flatten to 2-D at axis (Flatten; axis may be negative >= 11 only: normalized here). */
olg_status olg__emit_flatten(olg_lower *cx, olg_value x, int64_t axis, olg_value *out);
/* 1 with probability p (floating), in dtype to: U < p for U uniform in [0, 1) (RandomUniformLike,
 * the seed kept where has_seed), cast to `to`; as PyTorch's exporters draw it, not Bernoulli (see
 * symbolics/creation.c). ONNX Bernoulli below 15, aten::bernoulli, the TensorRT profile's fix. */
olg_status olg__emit_bernoulli(olg_lower *cx, olg_value p, olg_dtype to, bool has_seed,
                               double seed, olg_value *out);
/* A tensor of shape (1-D int64 tensor) filled with v of dtype: ConstantOfShape >= 9; a
 * Constant when the shape is known; below 9 with a dynamic shape, Expand of a scalar (8) or
 * Tile of a one-element tensor (7). */
olg_status olg__emit_full(olg_lower *cx, olg_value shape, olg_dtype dtype, double v,
                          olg_value *out);
/* Identity (when a node is needed to carry a name; usually bind the input instead). */
olg_status olg__emit_identity(olg_lower *cx, olg_value x, olg_value *out);

/* ------------------------------------------------------------------------------------------ */
/* Loop bodies a symbolic builds (emit_loop.c): emit into &b.sub with the helpers above. */

typedef struct olg_loop_body {
  olg_lower sub;    /* the body's lowering context (its target graph is the body) */
  olg_lower *outer; /* the context the Loop is emitted into */
  olg_graph *g;     /* the body */
  olg_value dummy_init, dummy_in; /* Loop-1 carries one value at least: a 0 when none */
} olg_loop_body;
/* A body with inputs iteration (int64 0-D), condition (bool 0-D) and one carried value per
 * init[k], typed as init[k] (dtype and rank). iter/cond may be NULL. */
olg_status olg__loop_body_begin(olg_lower *cx, olg_loop_body *b, const olg_value *init, size_t n,
                                olg_value *iter, olg_value *cond, olg_value *carried);
/* Outer value v (of b->outer's graph) as the body reads it, by name. */
olg_status olg__loop_outer(olg_loop_body *b, olg_value v, olg_value *out);
/* Closes the body with outputs body_outs (the condition, n_carried carried values, then scan
 * outputs) and emits the Loop (trip / cond OLG_NO_VALUE: omitted) into b->outer; outs gets the
 * n_carried final values, then the scan outputs. */
olg_status olg__loop_emit(olg_loop_body *b, olg_value trip, olg_value cond, const olg_value *init,
                          size_t n_carried, const olg_value *body_outs, size_t n_body_outs,
                          olg_value *outs);
/* 0 .. dim(x, axis) - 1 as a 1-D int64: a constant when the dim is known, else (Range is 11) a
 * Loop's iteration numbers. */
olg_status olg__emit_arange_dim(olg_lower *cx, olg_value x, int64_t axis, olg_value *out);

#endif
