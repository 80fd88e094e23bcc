/* onnxlegal — sorting: topk, sort, argsort, all through TopK (olg__emit_topk hides k as an
 * attribute below 10 and largest=0 below 11).
 *
 * Order of ties: ONNX's TopK puts the lower index first among equal values, for largest and
 * smallest alike (and the Neg used for the smallest below 11 keeps that); that is the order of a
 * stable sort, ascending or descending, so sort's indices match PyTorch's stable sort. PyTorch's
 * topk leaves the order of ties unspecified. */
#include <string.h>

#include "emit.h"
#include "symbolics.h"


/* TopK of x in a type it can sort exactly; the values come back in x's type. */
static olg_status topk_cast(olg_lower *cx, olg_value x, olg_value k_v, int64_t k, int64_t axis,
                            int largest, int want_values, olg_value *values, olg_value *indices) {
  olg_dtype t = olg__dtype(cx, x);
  olg_value xin = x, v = OLG_NO_VALUE, i = OLG_NO_VALUE;
  OLG_TRY(olg__emit_cast(cx, x, olg__topk_dtype(cx, t), &xin));
  OLG_TRY(olg__emit_topk(cx, xin, k_v, k, axis, largest, 1, &v, &i));
  if (want_values && xin != x) OLG_TRY(olg__emit_cast(cx, v, t, &v));
  if (values) *values = v;
  if (indices) *indices = i;
  return OLG_OK;
}

static olg_status rank_axis(olg_lower *cx, olg_value x, int64_t dim, int64_t *axis) {
  int32_t rank = olg__rank(cx, x);
  if (rank < 0) {
    *axis = dim;
    return OLG_OK;
  }
  if (rank == 0) return olg_lower_unsupported(cx, "sorting a 0-D tensor", -1);
  int64_t a = olg__norm_axis(dim, rank);
  if (a < 0) return olg__errf(cx, OLG_ERR_RANGE, "dim %lld out of range for rank %d", (long long)dim, rank);
  *axis = a;
  return OLG_OK;
}

/* aten::topk(Tensor self, int k, int dim=-1, bool largest=True, bool sorted=True). k may be a
 * run-time int (a TopK input from opset 10). sorted=False leaves the order to the
 * implementation: sorted output is one such order. */
olg_status olg__sym_topk(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, k_v = OLG_NO_VALUE, v, i;
  int64_t k = 0, dim, axis;
  int largest;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  if (olg_lower_arg_kind(cx, 1) == OLG_ARGKIND_VALUE) {
    OLG_TRY(olg_lower_arg_value(cx, 1, &k_v));
  } else {
    OLG_TRY(olg_lower_arg_int(cx, 1, &k));
  }
  OLG_TRY(olg__arg_int_or(cx, 2, -1, &dim));
  OLG_TRY(olg__arg_bool_or(cx, 3, 1, &largest));
  OLG_TRY(rank_axis(cx, x, dim, &axis));
  OLG_TRY(topk_cast(cx, x, k_v, k, axis, largest, 1, &v, &i));
  OLG_TRY(olg_lower_bind_output(cx, 0, v));
  return olg_lower_output_count(cx) > 1 ? olg_lower_bind_output(cx, 1, i) : OLG_OK;
}

/* A full sort along axis: TopK with k = the dim's size (a constant when known, else a Shape
 * slice, which TopK takes as an input from 10). */
static olg_status full_sort(olg_lower *cx, olg_value x, int64_t dim, int descending,
                            int want_values, olg_value *values, olg_value *indices) {
  int64_t axis;
  OLG_TRY(rank_axis(cx, x, dim, &axis));
  int64_t k;
  olg_value k_v;
  OLG_TRY(olg__topk_k_whole_dim(cx, x, axis, &k, &k_v));
  return topk_cast(cx, x, k_v, k, axis, descending, want_values, values, indices);
}

/* The (dim, descending) of aten::sort(self, int dim=-1, bool descending=False) or
 * aten::sort.stable(self, *, bool? stable, int dim=-1, bool descending=False); argsort has the
 * same two overloads. The stable overload has four arguments. */
static olg_status sort_args(olg_lower *cx, int64_t *dim, int *descending) {
  size_t at = olg_lower_arg_count(cx) >= 4 ? 2 : 1;
  OLG_TRY(olg__arg_int_or(cx, at, -1, dim));
  return olg__arg_bool_or(cx, at + 1, 0, descending);
}

olg_status olg__sym_sort(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, v, i;
  int64_t dim;
  int desc;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(sort_args(cx, &dim, &desc));
  OLG_TRY(full_sort(cx, x, dim, desc, 1, &v, &i));
  OLG_TRY(olg_lower_bind_output(cx, 0, v));
  return olg_lower_output_count(cx) > 1 ? olg_lower_bind_output(cx, 1, i) : OLG_OK;
}

olg_status olg__sym_argsort(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, i;
  int64_t dim;
  int desc;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(sort_args(cx, &dim, &desc));
  OLG_TRY(full_sort(cx, x, dim, desc, 0, NULL, &i));
  return olg_lower_bind_output(cx, 0, i);
}
