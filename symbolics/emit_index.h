/* onnxlegal — indexing emitters (emit_index.c) that index.c (advanced indexing, gather) and
 * scatter.c (scatter, scatter_add, scatter_reduce, ScatterElements/ScatterND) share. */
#ifndef OLG_SYMBOLICS_EMIT_INDEX_H
#define OLG_SYMBOLICS_EMIT_INDEX_H

#include "emit.h"

static inline int64_t *olg__ix_alloc_ints(olg_lower *cx, size_t n) {
  return olg__lower_alloc(cx, (n ? n : 1) * sizeof(int64_t));
}

/* dim `axis` of x as a 0-D int64 (a constant when known). */
static inline olg_status olg__ix_dim_scalar(olg_lower *cx, olg_value x, int64_t axis, olg_value *out) {
  int64_t d = olg__dim(cx, x, (int32_t)axis);
  if (d >= 0) return olg__const_i64(cx, d, out);
  OLG_TRY(olg__dim_tensor(cx, x, axis, out));
  return olg__emit_reshape_static(cx, *out, NULL, 0, out);
}

/* Binds y to the node's (only) output. */
static inline olg_status olg__ix_bind(olg_lower *cx, olg_value y) {
  return olg_lower_bind_output(cx, 0, y);
}

/* What the target offers indexing: Where, NonZero, OneHot, Scatter-9 and integer Less (9);
 * ScatterND, ScatterElements of any type, GatherElements, Range and Gather's negative indices
 * (11); ScatterND/ScatterElements reductions 'add'/'mul' (16), 'max'/'min' (18). */
typedef struct ix_caps {
  bool where_nonzero, scatter_nd, scatter_reduce, scatter_minmax;
} ix_caps;

ix_caps olg__ix_target(const olg_lower *cx);

typedef enum scatter_mode { SCATTER_SET, SCATTER_ADD, SCATTER_MUL, SCATTER_MAX, SCATTER_MIN } scatter_mode;
/* Each mode's ONNX reduction name ("none", "add", "mul", "max", "min") */
extern const char *const olg__ix_reduction[];
/* Whether the target's ScatterND/ScatterElements do this mode themselves */
bool olg__ix_native(ix_caps c, scatter_mode m);
/* The opset where ScatterElements/ScatterND first take the mode's reduction */
int olg__ix_mode_opset(scatter_mode m);
/* Scatter-9 (opsets 9, 10) takes numeric types only; ScatterElements-11 takes every type. */
bool olg__ix_scatter9_type(olg_dtype t);

/* Row scatter: data [P, R...] (P rows; -1 when not known), rows lin [N] (in [0, P)), updates
 * [N, R...]: ScatterND where the target has the mode, else Scatter-9 or a decomposition. */
olg_status olg__ix_scatter_rows(olg_lower *cx, ix_caps c, olg_value data, olg_value lin, olg_value upd,
                                scatter_mode mode, int64_t p, olg_value *out);

/* idx as int64 with negative entries counted from the end of dim `axis` of x (a constant when
 * idx and the dim are known; Less, Mul and Add otherwise). */
olg_status olg__ix_wrap_index(olg_lower *cx, ix_caps c, olg_value x, int64_t axis, olg_value idx,
                              olg_value *out);

/* For gather/scatter along axis with static shapes: the flat position in x (shape xd) of each
 * element of index (shape id). */
olg_status olg__ix_elements_linear(olg_lower *cx, const int64_t *xd, const int64_t *id, int32_t r,
                                   int64_t axis, olg_value index, olg_value *out);

#endif
