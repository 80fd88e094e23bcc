/* onnxlegal — interpolation by tables computed at conversion time (internal), defined in
 * symbolics/emit_interp.c. aten::upsample_* (symbolics/interpolate.c, PyTorch's tables) and ONNX
 * Resize/Upsample below opset 11 (olg__emit_resize, ONNX's tables) share the emission: per axis,
 * a Gather of the source indices (nearest) or a MatMul with the interpolation matrix (linear,
 * cubic), exact at every opset. */
#ifndef OLG_SYMBOLICS_EMIT_INTERP_H
#define OLG_SYMBOLICS_EMIT_INTERP_H
#include <stdbool.h>
#include <stdint.h>

#include "emit.h"

/* The interpolation of one axis of x: for each of the `out` output positions, n_taps (source
 * index, weight) pairs; w NULL means one tap of weight 1 (nearest). valid (may be NULL): false
 * where the output position takes the extrapolation value instead (tf_crop_and_resize). */
typedef struct olg_interp_axis {
  int64_t axis;
  int64_t in, out;
  int n_taps;
  int64_t *idx; /* out * n_taps */
  double *w;    /* out * n_taps, or NULL */
  bool *valid;  /* out, or NULL */
} olg_interp_axis;

/* True when the table maps every position onto itself with weight 1. */
bool olg__interp_axis_identity(const olg_interp_axis *t);

/* y = x interpolated along each of the n axes by its table: Gather for nearest tables, MatMul
 * with the [out, in] matrix otherwise (float and double inputs only); positions that are not
 * valid on some axis get `extrapolation`. max_matrix bounds the elements of one matrix embedded
 * as a constant; min_opset is the opset named when a matrix is larger (-1: none). */
olg_status olg__emit_interp_tables(olg_lower *cx, olg_value x, const olg_interp_axis *t, int n,
                                   double extrapolation, int64_t max_matrix, int min_opset,
                                   olg_value *out);

/* ONNX Resize's meaning (opset 11-19 attributes, olg_resize_params) by tables, for an input of
 * static shape with scales or sizes (and roi) known at conversion time; otherwise the tables
 * computed at run time (olg__emit_resize_runtime). What olg__emit_resize uses below 11 where Upsample cannot express it. */
olg_status olg__emit_resize_tables(olg_lower *cx, olg_value x, const olg_resize_params *p,
                                   olg_value *out);

/* The same tables computed by the model at run time (emit_interp_rt.c), for scales, sizes, roi
 * or resized dims known only then: from opset 9 (NonZero, ConstantOfShape, Where); `what` names
 * what is run-time in a refusal. What olg__emit_resize_tables does where it cannot fold them. */
olg_status olg__emit_resize_runtime(olg_lower *cx, olg_value x, const olg_resize_params *p,
                                    const char *what, olg_value *out);

#endif
