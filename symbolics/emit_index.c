/* onnxlegal — the indexing emitters that index.c (advanced indexing, gather) and scatter.c (the
 * scatters) share: what the target offers, the row scatter, the flat positions of an
 * elements-wise gather or scatter. */
#include <string.h>

#include "emit_index.h"
#include "emit_math.h"

ix_caps olg__ix_target(const olg_lower *cx) {
  return (ix_caps){olg__target_has(cx, "NonZero"), olg__target_has(cx, "ScatterND"),
                   olg__target_has_attr(cx, "ScatterElements", "reduction"),
                   olg__scatter_takes_reduction(cx, "max")};
}

/* idx as int64 with negative entries counted from the end of dim `axis` of x. */
olg_status olg__ix_wrap_index(olg_lower *cx, ix_caps c, olg_value x, int64_t axis, olg_value idx,
                              olg_value *out) {
  OLG_TRY(olg__emit_cast(cx, idx, OLG_INT64, &idx));
  const int64_t *p;
  size_t n;
  int64_t size = olg__dim(cx, x, (int32_t)axis), dims[OLG_MAX_RANK];
  int32_t r;
  if (olg__known_ints(cx, idx, &p, &n) && olg__static_shape(cx, idx, dims, &r)) {
    bool neg = false;
    for (size_t i = 0; i < n; i++) neg = neg || p[i] < 0;
    if (!neg) return (*out = idx, OLG_OK);
    if (size >= 0) {
      int64_t *q = olg__ix_alloc_ints(cx, n);
      if (!q) return OLG_ERR_NOMEM;
      for (size_t i = 0; i < n; i++) q[i] = p[i] < 0 ? p[i] + size : p[i];
      return olg__const_tensor_kept(cx, OLG_INT64, r, dims, q, n * sizeof *q, out);
    }
  }
  olg_value sz, zero, neg, negi, add;
  OLG_TRY(olg__ix_dim_scalar(cx, x, axis, &sz));
  if (c.where_nonzero) { /* Less-9 compares integers */
    OLG_TRY(olg__const_i64(cx, 0, &zero));
    OLG_TRY(olg__emit2(cx, "Less", idx, zero, &neg));
  } else { /* Less-7 compares float types only; a double holds the index exactly */
    olg_value d;
    OLG_TRY(olg__emit_cast(cx, idx, OLG_DOUBLE, &d));
    OLG_TRY(olg__const_scalar(cx, OLG_DOUBLE, 0, &zero));
    OLG_TRY(olg__emit2(cx, "Less", d, zero, &neg));
  }
  OLG_TRY(olg__emit_cast(cx, neg, OLG_INT64, &negi));
  OLG_TRY(olg__emit2(cx, "Mul", negi, sz, &add));
  return olg__emit2(cx, "Add", idx, add, out);
}

/* For gather/scatter along axis with static shapes: the flat position in x (shape xd) of each
 * element of index (shape id): index * stride[axis] + the (constant) offset of its position. */
olg_status olg__ix_elements_linear(olg_lower *cx, const int64_t *xd, const int64_t *id, int32_t r,
                                   int64_t axis, olg_value index, olg_value *out) {
  int64_t stride[OLG_MAX_RANK];
  uint64_t n;
  if (r < 1 || r > OLG_MAX_RANK || axis < 0 || axis >= r) /* a hostile axis (the fuzzer's) */
    return olg__errf(cx, OLG_ERR_INVALID_MODEL, "axis %lld is out of range for rank %d",
                     (long long)axis, (int)r);
  /* strides and x's size in int64 (a declared [2^40, 2^40, ...] had overflowed them) */
  int64_t numel = 1;
  for (int32_t i = r - 1; i >= 0; i--) {
    stride[i] = numel;
    if (__builtin_mul_overflow(numel, xd[i], &numel))
      return olg__errf(cx, OLG_ERR_LIMIT, "the input's shape (dim %d of %lld) has more elements "
                       "than int64 counts: no flat positions for a static decomposition", (int)i,
                       (long long)xd[i]);
  }
  for (int32_t i = 0; i < r; i++)
    if (i != axis && id[i] > xd[i])
      return olg__errf(cx, OLG_ERR_INVALID_ARG, "index dim %d (%lld) is larger than the input's "
                       "(%lld)", i, (long long)id[i], (long long)xd[i]);
  if (!olg__shape_numel(r, id, &n) || n > (1u << 24))
    return olg_lower_error(cx, OLG_ERR_LIMIT, "index too large for a static decomposition");
  int64_t *base = olg__ix_alloc_ints(cx, (size_t)n);
  if (!base) return OLG_ERR_NOMEM;
  for (uint64_t f = 0; f < n; f++) {
    uint64_t rem = f;
    int64_t off = 0;
    for (int32_t i = r - 1; i >= 0; i--) {
      int64_t c = (int64_t)(rem % (uint64_t)id[i]);
      rem /= (uint64_t)id[i];
      if (i != axis) off += c * stride[i];
    }
    base[f] = off;
  }
  olg_value idx, bv, s;
  OLG_TRY(olg__emit_cast(cx, index, OLG_INT64, &idx));
  if (stride[axis] != 1) {
    OLG_TRY(olg__const_i64(cx, stride[axis], &s));
    OLG_TRY(olg__emit2(cx, "Mul", idx, s, &idx));
  }
  OLG_TRY(olg__const_tensor_kept(cx, OLG_INT64, r, id, base, (size_t)n * sizeof *base, &bv));
  return olg__emit2(cx, "Add", idx, bv, out);
}

/* ------------------------------------------------------------------------------------------ */
/* Row scatters: data [P, R...], rows lin [N] (in [0, P)), updates [N, R...] */

const char *const olg__ix_reduction[] = {"none", "add", "mul", "max", "min"};

/* Whether the target's ScatterND/ScatterElements do this mode themselves */
bool olg__ix_native(ix_caps c, scatter_mode m) {
  return m == SCATTER_SET ? c.scatter_nd : m <= SCATTER_MUL ? c.scatter_reduce : c.scatter_minmax;
}

/* The opset where ScatterElements/ScatterND first take the mode's reduction */
int olg__ix_mode_opset(scatter_mode m) { return m == SCATTER_SET ? 11 : m <= SCATTER_MUL ? 16 : 18; }

/* 0..P-1 as a 1-D int64: a constant when P is known, else Range (11) over dim 0 of data. */
static olg_status row_range(olg_lower *cx, ix_caps c, olg_value data, int64_t p, int need_opset,
                            olg_value *out) {
  if (p >= 0) {
    int64_t *a = olg__ix_alloc_ints(cx, (size_t)p);
    if (!a) return OLG_ERR_NOMEM;
    for (int64_t i = 0; i < p; i++) a[i] = i;
    return olg__const_i64s(cx, a, (size_t)p, out);
  }
  if (!c.scatter_nd) /* Range-11 */
    return olg_lower_unsupported(cx, "a scatter into dims whose sizes are not known", need_opset);
  olg_value in[3];
  OLG_TRY(olg__const_i64(cx, 0, &in[0]));
  OLG_TRY(olg__ix_dim_scalar(cx, data, 0, &in[1]));
  OLG_TRY(olg__const_i64(cx, 1, &in[2]));
  return olg__emit(cx, "Range", in, 3, out);
}

/* The compute type of the one-hot MatMul: float types as they are (float16 through float),
 * integers through double (exact up to 2^53). */
static olg_dtype matmul_type(olg_dtype t) {
  return t == OLG_FLOAT || t == OLG_DOUBLE ? t : olg__is_float(t) ? OLG_FLOAT : OLG_DOUBLE;
}

/* Scatter-9 (opsets 9, 10) takes numeric types only; ScatterElements-11 takes every type. */
bool olg__ix_scatter9_type(olg_dtype t) { return t != OLG_BOOL && t != OLG_STRING && t != OLG_UNDEFINED; }

olg_status olg__ix_scatter_rows(olg_lower *cx, ix_caps c, olg_value data, olg_value lin, olg_value upd,
                                scatter_mode mode, int64_t p, olg_value *out) {
  int32_t ur = olg__rank(cx, upd);
  if (ur < 1) return olg_lower_error(cx, OLG_ERR_UNSUPPORTED, "scatter: the updates' rank is not known");
  if (olg__ix_native(c, mode)) {
    olg_value idx;
    OLG_TRY(olg__emit_unsqueeze(cx, lin, (const int64_t[]){1}, 1, &idx));
    return olg__emit_scatter_nd(cx, data, idx, upd, olg__ix_reduction[mode], out);
  }
  if (mode == SCATTER_SET && c.where_nonzero && olg__ix_scatter9_type(olg__dtype(cx, data))) {
    /* Scatter-9: the row index repeated along the row */
    olg_value idx = lin, shape;
    if (ur > 1) {
      int64_t axes[OLG_MAX_RANK];
      for (int32_t i = 1; i < ur; i++) axes[i - 1] = i;
      OLG_TRY(olg__emit_unsqueeze(cx, lin, axes, (size_t)ur - 1, &idx));
      OLG_TRY(olg__shape(cx, upd, &shape));
      OLG_TRY(olg__emit_expand(cx, idx, shape, &idx));
    }
    return olg__emit_scatter_elements(cx, data, idx, upd, 0, "none", out);
  }
  const int64_t *lk;
  size_t nl;
  if (mode == SCATTER_SET && p >= 0 && olg__known_ints(cx, lin, &lk, &nl)) {
    /* known rows: output row i is data row i or update row j (the last that writes it) */
    int64_t *map = olg__ix_alloc_ints(cx, (size_t)p);
    if (!map) return OLG_ERR_NOMEM;
    for (int64_t i = 0; i < p; i++) map[i] = i;
    for (size_t j = 0; j < nl; j++) {
      if (lk[j] < 0 || lk[j] >= p)
        return olg__errf(cx, OLG_ERR_RANGE, "index %lld is out of range for %lld rows",
                         (long long)lk[j], (long long)p);
      map[lk[j]] = p + (int64_t)j;
    }
    olg_value both[2] = {data, upd}, cat, mv;
    OLG_TRY(olg__emit_concat(cx, both, 2, 0, &cat));
    OLG_TRY(olg__const_i64s(cx, map, (size_t)p, &mv));
    return olg__emit_gather(cx, cat, mv, 0, out);
  }
  /* which[p, n]: update n writes row p */
  olg_value ar, col, row, which;
  OLG_TRY(row_range(cx, c, data, p, mode == SCATTER_SET ? 9 : 11, &ar));
  OLG_TRY(olg__emit_unsqueeze(cx, ar, (const int64_t[]){1}, 1, &col));
  OLG_TRY(olg__emit_unsqueeze(cx, lin, (const int64_t[]){0}, 1, &row));
  OLG_TRY(olg__emit2(cx, "Equal", col, row, &which));
  olg_dtype t = olg__dtype(cx, data);
  if (mode == SCATTER_SET) {
    /* map[p] = p, or P + the first update that writes row p; then Gather rows of
     * Concat(data, updates) */
    olg_value wf, hit, first, pv, shifted, delta, gain, map, cat;
    olg_node_id nd;
    OLG_TRY(olg__emit_cast(cx, which, OLG_FLOAT, &wf));
    OLG_TRY(olg__emit_reduce(cx, OLG_REDUCE_MAX, wf, (const int64_t[]){1}, 1, 0, &hit));
    OLG_TRY(olg__emit_cast(cx, hit, OLG_INT64, &hit));
    OLG_TRY(olg_lower_emit_begin(cx, "", "ArgMax", &nd));
    OLG_TRY(olg_lower_emit_input(cx, nd, wf));
    OLG_TRY(olg_lower_emit_attr_int(cx, nd, "axis", 1));
    OLG_TRY(olg_lower_emit_attr_int(cx, nd, "keepdims", 0));
    OLG_TRY(olg_lower_emit_end(cx, nd, 1, &first));
    if (p >= 0) OLG_TRY(olg__const_i64(cx, p, &pv));
    else OLG_TRY(olg__ix_dim_scalar(cx, data, 0, &pv));
    OLG_TRY(olg__emit2(cx, "Add", first, pv, &shifted));
    OLG_TRY(olg__emit2(cx, "Sub", shifted, ar, &delta));
    OLG_TRY(olg__emit2(cx, "Mul", delta, hit, &gain));
    OLG_TRY(olg__emit2(cx, "Add", ar, gain, &map));
    olg_value both[2] = {data, upd};
    OLG_TRY(olg__emit_concat(cx, both, 2, 0, &cat));
    return olg__emit_gather(cx, cat, map, 0, out);
  }
  if (mode == SCATTER_ADD) {
    /* data + which @ updates (updates as [N, R]) */
    if (t == OLG_BOOL) return olg_lower_unsupported(cx, "an accumulating scatter of bool", -1);
    olg_dtype ct = matmul_type(t);
    olg_value wc, u2, sum, shape;
    OLG_TRY(olg__emit_cast(cx, which, ct, &wc));
    if (ur == 1) OLG_TRY(olg__emit_unsqueeze(cx, upd, (const int64_t[]){1}, 1, &u2));
    else OLG_TRY(olg__emit_reshape_static(cx, upd, (const int64_t[]){0, -1}, 2, &u2));
    OLG_TRY(olg__emit_cast(cx, u2, ct, &u2));
    OLG_TRY(olg__emit2(cx, "MatMul", wc, u2, &sum));
    OLG_TRY(olg__shape(cx, data, &shape));
    OLG_TRY(olg__emit_reshape(cx, sum, shape, &sum));
    OLG_TRY(olg__emit_cast(cx, sum, t, &sum));
    return olg__emit2(cx, "Add", data, sum, out);
  }
  /* multiply: data * ReduceProd over n of Where(which, update n, 1); max, min: ReduceMax/Min
   * over n of Where(which, update n, the data row), so that the data row takes part and a row no
   * update writes keeps its value. [P, N, R...] elements: quadratic, as the one-hot MatMul. */
  if (olg__dim(cx, lin, 0) == 0) return olg__emit_identity(cx, data, out); /* no update */
  olg_value wb = which, ue, ident, w, red;
  if (ur > 1) {
    int64_t axes[OLG_MAX_RANK];
    for (int32_t i = 0; i < ur - 1; i++) axes[i] = 2 + i;
    OLG_TRY(olg__emit_unsqueeze(cx, which, axes, (size_t)ur - 1, &wb));
  }
  OLG_TRY(olg__emit_unsqueeze(cx, upd, (const int64_t[]){0}, 1, &ue));
  if (mode == SCATTER_MUL) OLG_TRY(olg__const_like(cx, data, 1, &ident));
  else OLG_TRY(olg__emit_unsqueeze(cx, data, (const int64_t[]){1}, 1, &ident));
  OLG_TRY(olg__emit_where(cx, wb, ue, ident, &w)); /* below 9 a Gather pick of static shapes */
  olg_reduce_kind kind = mode == SCATTER_MUL ? OLG_REDUCE_PROD : mode == SCATTER_MAX ? OLG_REDUCE_MAX
                                                                                     : OLG_REDUCE_MIN;
  OLG_TRY(olg__emit_reduce(cx, kind, w, (const int64_t[]){1}, 1, 0, &red));
  if (mode != SCATTER_MUL) {
    *out = red;
    return OLG_OK;
  }
  return olg__emit2(cx, "Mul", data, red, out);
}
