/* onnxlegal — indexing: index, index_select, index_put, gather, nonzero, one_hot, embedding
 * (the scatters are in scatter.c). Arguments as in PyTorch 1.13's schemas.
 *
 * Advanced indexing (index, index_put) goes through one plan: boolean masks become index
 * tensors (NonZero, or computed here when the mask is known), the indexed dims are moved first
 * and flattened into one, and the index tensors become one linear index (their broadcast shape
 * B). index is then one Gather; index_put one row scatter (scatter.c), accumulate its reduction
 * 'add'. */
#include <string.h>

#include "emit_index.h"
#include "symbolics.h"

static bool is_int_type(olg_dtype t) {
  return t == OLG_INT8 || t == OLG_INT16 || t == OLG_INT32 || t == OLG_INT64 || t == OLG_UINT8 ||
         t == OLG_UINT16 || t == OLG_UINT32 || t == OLG_UINT64;
}

/* ------------------------------------------------------------------------------------------ */
/* The advanced-indexing plan shared by index and index_put */

typedef struct index_plan {
  int32_t rank;                /* of x */
  olg_value idx[OLG_MAX_RANK]; /* per dim of x: its index tensor, or OLG_NO_VALUE */
  int64_t dims[OLG_MAX_RANK];  /* the indexed dims, ascending */
  int32_t k;                   /* how many */
  bool adjacent;               /* consecutive dims: the result keeps B where they were */
} index_plan;

/* The k index tensors (1-D, one per dim of the mask) of the true entries of a boolean mask, in
 * row-major order as PyTorch (and NonZero) gives them. */
static olg_status mask_indices(olg_lower *cx, ix_caps c, olg_value mask, int32_t k, olg_value *cols) {
  const int64_t *p;
  size_t n;
  int64_t dims[OLG_MAX_RANK];
  int32_t r;
  if (olg__known_ints(cx, mask, &p, &n) && olg__static_shape(cx, mask, dims, &r) && r == k) {
    size_t count = 0;
    for (size_t i = 0; i < n; i++) count += p[i] != 0;
    for (int32_t m = 0; m < k; m++) {
      int64_t *c = olg__ix_alloc_ints(cx, count);
      if (!c) return OLG_ERR_NOMEM;
      int64_t inner = 1;
      for (int32_t j = m + 1; j < k; j++) inner *= dims[j];
      size_t at = 0;
      for (size_t i = 0; i < n; i++)
        if (p[i]) c[at++] = ((int64_t)i / inner) % dims[m];
      OLG_TRY(olg__const_i64s(cx, c, count, &cols[m]));
    }
    return OLG_OK;
  }
  if (!c.where_nonzero)
    return olg_lower_unsupported(cx, "indexing with a boolean mask computed at run time (NonZero)", 9);
  olg_value m = mask, nz;
  OLG_TRY(olg__emit_cast(cx, m, OLG_BOOL, &m));
  OLG_TRY(olg__emit1(cx, "NonZero", m, &nz)); /* [k, n] */
  for (int32_t j = 0; j < k; j++) {
    olg_value row;
    OLG_TRY(olg__const_i64(cx, j, &row));
    OLG_TRY(olg__emit_gather(cx, nz, row, 0, &cols[j]));
  }
  return OLG_OK;
}

/* Reads aten::index's / index_put's Tensor?[] indices (argument i) against x. */
static olg_status plan_indices(olg_lower *cx, ix_caps c, olg_value x, size_t i, index_plan *pl) {
  const olg_value *vals;
  size_t n;
  memset(pl, 0, sizeof *pl);
  OLG_TRY(olg_lower_arg_values(cx, i, &vals, &n));
  OLG_TRY(olg__input_rank(cx, x, &pl->rank));
  for (int32_t d = 0; d < OLG_MAX_RANK; d++) pl->idx[d] = OLG_NO_VALUE;
  int32_t d = 0;
  for (size_t j = 0; j < n; j++) {
    olg_value v = vals[j];
    if (v == OLG_NO_VALUE) {
      d++;
      continue;
    }
    olg_dtype t = olg__dtype(cx, v);
    int32_t vr = olg__rank(cx, v);
    if (vr < 0) return olg_lower_error(cx, OLG_ERR_UNSUPPORTED, "an index tensor's rank is not known");
    if (t == OLG_BOOL || t == OLG_UINT8) { /* a mask stands for one index per dim it covers */
      if (vr == 0) return olg_lower_unsupported(cx, "indexing with a 0-D boolean", -1);
      if (d + vr > pl->rank) return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "a mask covers more dims than the tensor has");
      for (int32_t m = 0; m < vr; m++) {
        int64_t md = olg__dim(cx, v, m), xd = olg__dim(cx, x, d + m);
        if (md >= 0 && xd >= 0 && md != xd)
          return olg__errf(cx, OLG_ERR_INVALID_ARG, "mask dim %d is %lld, the tensor's is %lld", m,
                           (long long)md, (long long)xd);
      }
      OLG_TRY(mask_indices(cx, c, v, vr, pl->idx + d));
      d += vr;
      continue;
    }
    if (!is_int_type(t)) return olg__errf(cx, OLG_ERR_TYPE, "an index tensor of %s", olg_dtype_name(t));
    if (d >= pl->rank) return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "too many indices");
    pl->idx[d++] = v;
  }
  if (d > pl->rank) return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "too many indices");
  for (int32_t j = 0; j < pl->rank; j++)
    if (pl->idx[j] != OLG_NO_VALUE) pl->dims[pl->k++] = j;
  pl->adjacent = pl->k > 0 && pl->dims[pl->k - 1] - pl->dims[0] == pl->k - 1;
  return OLG_OK;
}

/* The linear index into the indexed dims flattened (row-major): sum of idx_m * stride_m, in
 * the broadcast shape B of the index tensors. *rows gets the product of the indexed dims'
 * sizes, -1 when one is not known. */
static olg_status linear_index(olg_lower *cx, ix_caps c, olg_value x, const index_plan *pl, olg_value *out,
                               int64_t *rows) {
  olg_value lin = OLG_NO_VALUE, stride_v = OLG_NO_VALUE;
  int64_t stride = 1; /* while every size so far is known */
  for (int32_t m = pl->k - 1; m >= 0; m--) {
    int64_t d = pl->dims[m];
    olg_value w, term;
    OLG_TRY(olg__ix_wrap_index(cx, c, x, d, pl->idx[d], &w));
    if (stride_v != OLG_NO_VALUE) {
      OLG_TRY(olg__emit2(cx, "Mul", w, stride_v, &term));
    } else if (stride != 1) {
      olg_value s;
      OLG_TRY(olg__const_i64(cx, stride, &s));
      OLG_TRY(olg__emit2(cx, "Mul", w, s, &term));
    } else {
      term = w;
    }
    if (lin == OLG_NO_VALUE) lin = term;
    else OLG_TRY(olg__emit2(cx, "Add", lin, term, &lin));
    int64_t size = olg__dim(cx, x, (int32_t)d);
    if (stride_v == OLG_NO_VALUE && size >= 0) {
      stride *= size;
    } else {
      olg_value sz;
      OLG_TRY(olg__ix_dim_scalar(cx, x, d, &sz));
      if (stride_v == OLG_NO_VALUE) {
        olg_value s;
        OLG_TRY(olg__const_i64(cx, stride, &s));
        stride_v = s;
      }
      OLG_TRY(olg__emit2(cx, "Mul", stride_v, sz, &stride_v));
    }
  }
  *rows = stride_v == OLG_NO_VALUE ? stride : -1;
  *out = lin;
  return OLG_OK;
}

/* x with its indexed dims moved first (perm gets the permutation) and flattened into one:
 * [rows, the other dims in order]. *xt gets the transposed x. */
static olg_status indexed_rows(olg_lower *cx, olg_value x, const index_plan *pl, int64_t *perm,
                               olg_value *xt, olg_value *flat) {
  int32_t n = 0;
  for (int32_t m = 0; m < pl->k; m++) perm[n++] = pl->dims[m];
  for (int32_t d = 0; d < pl->rank; d++)
    if (pl->idx[d] == OLG_NO_VALUE) perm[n++] = d;
  OLG_TRY(olg__emit_transpose(cx, x, perm, (size_t)pl->rank, xt));
  olg_value pieces[2], shape;
  OLG_TRY(olg__const_i64s(cx, (const int64_t[]){-1}, 1, &pieces[0]));
  OLG_TRY(olg__shape_range(cx, *xt, pl->k, pl->rank, &pieces[1]));
  OLG_TRY(olg__concat_ints(cx, pieces, 2, &shape));
  const int64_t *p;
  size_t ns;
  if (olg__known_ints(cx, shape, &p, &ns)) return olg__emit_reshape_static(cx, *xt, p, ns, flat);
  return olg__emit_reshape(cx, *xt, shape, flat);
}

/* The permutation that moves the b dims at position `at` of a tensor of rank r to the front
 * (fwd) — or back from the front to `at` (!fwd). */
static void move_block(int64_t *perm, int32_t r, int32_t at, int32_t b, bool fwd) {
  int32_t n = 0;
  if (fwd) {
    for (int32_t i = 0; i < b; i++) perm[n++] = at + i;
    for (int32_t i = 0; i < at; i++) perm[n++] = i;
  } else {
    for (int32_t i = 0; i < at; i++) perm[n++] = b + i;
    for (int32_t i = 0; i < b; i++) perm[n++] = i;
  }
  for (int32_t i = at + b; i < r; i++) perm[n++] = i;
}

/* x indexed by the plan's index tensors (PyTorch's advanced indexing): the one emitter of aten
 * index and ONNX GatherND below its opset. */
static olg_status emit_index_plan(olg_lower *cx, ix_caps c, olg_value x, const index_plan *plan,
                                  olg_value *out) {
  const index_plan pl = *plan;
  olg_value y;
  if (pl.k == 0) return (*out = x, OLG_OK);
  if (pl.k == 1) { /* Gather keeps the dims around the index where they are, as PyTorch does */
    int64_t d = pl.dims[0];
    olg_value idx = pl.idx[d];
    if (!c.scatter_nd) OLG_TRY(olg__ix_wrap_index(cx, c, x, d, idx, &idx)); /* Gather-11 wraps */
    return olg__emit_gather(cx, x, idx, d, out);
  }
  olg_value lin, xt, flat;
  int64_t rows, perm[OLG_MAX_RANK];
  OLG_TRY(linear_index(cx, c, x, &pl, &lin, &rows));
  OLG_TRY(indexed_rows(cx, x, &pl, perm, &xt, &flat));
  OLG_TRY(olg__emit_gather(cx, flat, lin, 0, &y)); /* [B, other dims] */
  int32_t b = olg__rank(cx, lin);
  if (pl.adjacent && pl.dims[0] > 0) { /* B goes where the indexed dims were */
    if (b < 0) return olg_lower_error(cx, OLG_ERR_UNSUPPORTED, "the index tensors' rank is not known");
    int32_t r = b + pl.rank - pl.k;
    int64_t p2[OLG_MAX_RANK];
    if (r > OLG_MAX_RANK) return olg_lower_error(cx, OLG_ERR_LIMIT, "rank above 16");
    move_block(p2, r, (int32_t)pl.dims[0], b, false);
    OLG_TRY(olg__emit_transpose(cx, y, p2, (size_t)r, &y));
  }
  *out = y;
  return OLG_OK;
}

/* aten::index.Tensor(Tensor self, Tensor?[] indices) (and .Tensor_hacked_twin) */
static olg_status index_tensor(olg_lower *cx, ix_caps c) {
  olg_value x, y;
  index_plan pl;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(plan_indices(cx, c, x, 1, &pl));
  OLG_TRY(emit_index_plan(cx, c, x, &pl, &y));
  return olg__ix_bind(cx, y);
}

/* ONNX GatherND(data, indices; batch_dims b, 12), registered below 12: data's first b dims
 * walked together with indices' (an arange of each, known size), then the next k (indices'
 * last dim) indexed by indices[..., j] -- aten's advanced indexing of dims 0 .. b+k-1. Kept as
 * GatherND where the target's takes it (11 for b = 0). */
olg_status olg__sym_onnx_gather_nd(olg_lower *cx, olg_node_id src, void *ud) {
  int64_t b = olg__src_attr_int(cx, "batch_dims", 0);
  if (b == 0 && olg__target_has(cx, "GatherND")) return olg__sym_onnx_passthrough(cx, src, ud);
  olg_value x, ind, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg_lower_arg_value(cx, 1, &ind));
  int32_t rx = olg__rank(cx, x), ri = olg__rank(cx, ind);
  int64_t k = ri > 0 ? olg__dim(cx, ind, ri - 1) : -1;
  if (rx < 0 || ri < 1 || k < 0)
    return olg_lower_unsupported(cx, "GatherND with the ranks or the index length not known at "
                                     "export time", b ? 12 : 11);
  if (b < 0 || b >= ri || b + k > rx || rx > OLG_MAX_RANK)
    return olg_lower_error(cx, OLG_ERR_INVALID_MODEL, "GatherND: batch_dims or the index length "
                                                      "does not fit the inputs' ranks");
  index_plan pl = {.rank = rx, .k = (int32_t)(b + k), .adjacent = true};
  for (int32_t d = 0; d < rx; d++) pl.idx[d] = OLG_NO_VALUE;
  for (int64_t i = 0; i < b; i++) { /* arange(B_i), shaped [1.., B_i, ..1] over indices' dims */
    int64_t n = olg__dim(cx, x, (int32_t)i), dims[OLG_MAX_RANK];
    if (n < 0)
      return olg_lower_unsupported(cx, "GatherND with a batch dim not known at export time", 12);
    int64_t *seq = olg__ix_alloc_ints(cx, (size_t)n);
    if (!seq) return OLG_ERR_NOMEM;
    for (int64_t v = 0; v < n; v++) seq[v] = v;
    for (int32_t d = 0; d < ri - 1; d++) dims[d] = d == i ? n : 1;
    OLG_TRY(olg__const_tensor_kept(cx, OLG_INT64, ri - 1, dims, seq, (size_t)n * sizeof *seq,
                                   &pl.idx[i]));
    pl.dims[i] = i;
  }
  for (int64_t j = 0; j < k; j++) {
    olg_value jv;
    OLG_TRY(olg__const_i64(cx, j, &jv));
    OLG_TRY(olg__emit_gather(cx, ind, jv, ri - 1, &pl.idx[b + j]));
    pl.dims[b + j] = b + j;
  }
  OLG_TRY(emit_index_plan(cx, olg__ix_target(cx), x, &pl, &y));
  return olg__ix_bind(cx, y);
}

olg_status olg__sym_index(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return index_tensor(cx, olg__ix_target(cx));
}

/* aten::index_select(Tensor self, int dim, Tensor index) */
olg_status olg__sym_index_select(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, idx, y;
  int32_t rank;
  int64_t d;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg_lower_arg_value(cx, 2, &idx));
  OLG_TRY(olg__input_rank(cx, x, &rank));
  if (rank == 0) { /* a 0-D tensor: index 0 only, the result is the tensor itself */
    return olg__ix_bind(cx, x);
  }
  OLG_TRY(olg__dim_arg(cx, 1, 0, rank, &d));
  if (olg__rank(cx, idx) == 0) OLG_TRY(olg__emit_unsqueeze(cx, idx, (const int64_t[]){0}, 1, &idx));
  OLG_TRY(olg__emit_gather(cx, x, idx, d, &y));
  return olg__ix_bind(cx, y);
}

/* aten::embedding(Tensor weight, Tensor indices, int padding_idx=-1, bool scale_grad_by_freq,
 * bool sparse): a Gather of rows; padding_idx only matters to gradients. */
olg_status olg__sym_embedding(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value w, idx, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &w));
  OLG_TRY(olg_lower_arg_value(cx, 1, &idx));
  OLG_TRY(olg__emit_gather(cx, w, idx, 0, &y));
  return olg__ix_bind(cx, y);
}

/* x[mask] = v (or += v) with v broadcasting along the masked rows by itself: Where(mask, v, x).
 * *done is false when the shape of the case does not allow it. */
static olg_status index_put_where(olg_lower *cx, ix_caps c, olg_value x, olg_value v, int accumulate,
                                  bool *done, olg_value *out) {
  const olg_value *vals;
  size_t n;
  *done = false;
  if (!c.where_nonzero) return OLG_OK;
  OLG_TRY(olg_lower_arg_values(cx, 1, &vals, &n));
  int32_t rank = olg__rank(cx, x), at = -1;
  olg_value mask = OLG_NO_VALUE;
  for (size_t j = 0; j < n; j++) {
    if (vals[j] == OLG_NO_VALUE) continue;
    if (mask != OLG_NO_VALUE) return OLG_OK; /* more than one index */
    mask = vals[j];
    at = (int32_t)j;
  }
  olg_dtype mt = mask != OLG_NO_VALUE ? olg__dtype(cx, mask) : OLG_UNDEFINED;
  if (mt != OLG_BOOL && mt != OLG_UINT8) return OLG_OK;
  int32_t k = olg__rank(cx, mask), vr = olg__rank(cx, v);
  if (rank < 0 || k < 1 || vr < 0 || at + k > rank) return OLG_OK;
  int32_t tail = rank - at - k; /* dims after the mask */
  /* v must not depend on the masked-row dim: its dims beyond the tail must all be 1 */
  int32_t extra = vr > tail ? vr - tail : 0;
  int64_t axes[OLG_MAX_RANK];
  for (int32_t i = 0; i < extra; i++) {
    if (olg__dim(cx, v, i) != 1) return OLG_OK;
    axes[i] = i;
  }
  olg_value vv = v, m, y;
  if (extra) OLG_TRY(olg__emit_squeeze(cx, v, axes, (size_t)extra, &vv));
  OLG_TRY(olg__emit_cast(cx, mask, OLG_BOOL, &m));
  if (tail) {
    for (int32_t i = 0; i < tail; i++) axes[i] = k + i;
    OLG_TRY(olg__emit_unsqueeze(cx, m, axes, (size_t)tail, &m));
  }
  if (accumulate) OLG_TRY(olg__emit2(cx, "Add", x, vv, &vv)); /* only where the mask is set */
  OLG_TRY(olg__emit(cx, "Where", (const olg_value[]){m, vv, x}, 3, &y));
  *done = true;
  *out = y;
  return OLG_OK;
}

/* aten::index_put(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False) (and
 * index_put_, _index_put_impl_: the front end makes them functional). */
static olg_status index_put(olg_lower *cx, ix_caps c) {
  olg_value x, v, y;
  int accumulate;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg_lower_arg_value(cx, 2, &v));
  OLG_TRY(olg__arg_bool_or(cx, 3, 0, &accumulate));
  OLG_TRY(olg__emit_cast_like(cx, v, x, &v));
  bool done;
  OLG_TRY(index_put_where(cx, c, x, v, accumulate, &done, &y));
  if (done) return olg__ix_bind(cx, y);
  index_plan pl;
  OLG_TRY(plan_indices(cx, c, x, 1, &pl));
  if (pl.k == 0) { /* x[...] = v */
    olg_value shape;
    OLG_TRY(olg__shape(cx, x, &shape));
    if (accumulate) OLG_TRY(olg__emit2(cx, "Add", x, v, &y));
    else OLG_TRY(olg__emit_expand(cx, v, shape, &y));
    return olg__ix_bind(cx, y);
  }
  if (accumulate && !c.scatter_reduce)
    OLG_TRY(olg_lower_decompose(cx, "index_put with accumulate=True (ScatterND's reduction "
                                    "'add')", 16));
  olg_value lin, xt, flat, bshape, target, vt, vrows, rest, pieces[3], shape;
  int64_t rows, perm[OLG_MAX_RANK], vperm[OLG_MAX_RANK];
  OLG_TRY(linear_index(cx, c, x, &pl, &lin, &rows));
  OLG_TRY(indexed_rows(cx, x, &pl, perm, &xt, &flat));
  int32_t b = olg__rank(cx, lin);
  if (b < 0) return olg_lower_error(cx, OLG_ERR_UNSUPPORTED, "the index tensors' rank is not known");
  /* the values broadcast to x[indices]'s shape (PyTorch's layout), then as [B, other dims] */
  OLG_TRY(olg__shape(cx, lin, &bshape));
  bool move = pl.adjacent && pl.dims[0] > 0;
  if (pl.adjacent) {
    OLG_TRY(olg__shape_range(cx, x, 0, pl.dims[0], &pieces[0]));
    pieces[1] = bshape;
    OLG_TRY(olg__shape_range(cx, x, pl.dims[pl.k - 1] + 1, pl.rank, &pieces[2]));
    OLG_TRY(olg__concat_ints(cx, pieces, 3, &target));
  } else {
    pieces[0] = bshape;
    OLG_TRY(olg__shape_range(cx, xt, pl.k, pl.rank, &pieces[1]));
    OLG_TRY(olg__concat_ints(cx, pieces, 2, &target));
  }
  const int64_t *tk;
  size_t tn;
  int64_t vd[OLG_MAX_RANK];
  int32_t vr;
  bool same = olg__known_ints(cx, target, &tk, &tn) && olg__static_shape(cx, v, vd, &vr) &&
              (size_t)vr == tn;
  for (size_t i = 0; same && i < tn; i++) same = vd[i] == tk[i];
  vt = v;
  if (!same) OLG_TRY(olg__emit_expand(cx, v, target, &vt));
  int32_t r_out = b + pl.rank - pl.k;
  if (move) {
    if (r_out > OLG_MAX_RANK) return olg_lower_error(cx, OLG_ERR_LIMIT, "rank above 16");
    move_block(vperm, r_out, (int32_t)pl.dims[0], b, true);
    OLG_TRY(olg__emit_transpose(cx, vt, vperm, (size_t)r_out, &vt));
  }
  OLG_TRY(olg__const_i64s(cx, (const int64_t[]){-1}, 1, &pieces[0]));
  OLG_TRY(olg__shape_range(cx, xt, pl.k, pl.rank, &rest));
  pieces[1] = rest;
  OLG_TRY(olg__concat_ints(cx, pieces, 2, &shape));
  OLG_TRY(olg__emit_reshape(cx, vt, shape, &vrows));
  OLG_TRY(olg__emit_reshape_static(cx, lin, (const int64_t[]){-1}, 1, &lin));
  OLG_TRY(olg__ix_scatter_rows(cx, c, flat, lin, vrows, accumulate ? SCATTER_ADD : SCATTER_SET, rows, &y));
  OLG_TRY(olg__shape(cx, xt, &shape));
  OLG_TRY(olg__emit_reshape(cx, y, shape, &y));
  int64_t inv[OLG_MAX_RANK];
  for (int32_t i = 0; i < pl.rank; i++) inv[perm[i]] = i;
  OLG_TRY(olg__emit_transpose(cx, y, inv, (size_t)pl.rank, &y));
  return olg__ix_bind(cx, y);
}

olg_status olg__sym_index_put(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return index_put(cx, olg__ix_target(cx));
}

/* ------------------------------------------------------------------------------------------ */
/* gather (the scatters are in scatter.c) */

/* aten::gather(Tensor self, int dim, Tensor index, *, bool sparse_grad=False):
 * GatherElements (11); below, a Gather of the flattened input at positions computed from
 * static shapes. */
static olg_status gather(olg_lower *cx, ix_caps c, bool onnx) {
  olg_value x, idx, y;
  int32_t rank;
  int64_t axis;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg_lower_arg_value(cx, onnx ? 1 : 2, &idx));
  OLG_TRY(olg__input_rank(cx, x, &rank));
  if (rank == 0) return olg__ix_bind(cx, x);
  if (onnx) { /* GatherElements: axis an attribute, negative indices count from the end */
    axis = olg__norm_axis(olg__src_attr_int(cx, "axis", 0), rank);
    if (axis < 0) return olg__errf(cx, OLG_ERR_RANGE, "GatherElements: axis out of range for rank %d", rank);
    if (!c.scatter_nd) {
      OLG_TRY(olg_lower_decompose(cx, "GatherElements as a Gather of the flattened input", 11));
      OLG_TRY(olg__ix_wrap_index(cx, c, x, axis, idx, &idx));
    }
  } else {
    OLG_TRY(olg__dim_arg(cx, 1, 0, rank, &axis));
  }
  if (c.scatter_nd) { /* GatherElements-11 */
    olg_node_id nd;
    olg_dtype it = olg__dtype(cx, idx);
    if (it != OLG_INT64 && it != OLG_INT32) OLG_TRY(olg__emit_cast(cx, idx, OLG_INT64, &idx));
    OLG_TRY(olg_lower_emit_begin(cx, "", "GatherElements", &nd));
    OLG_TRY(olg_lower_emit_input(cx, nd, x));
    OLG_TRY(olg_lower_emit_input(cx, nd, idx));
    OLG_TRY(olg_lower_emit_attr_int(cx, nd, "axis", axis));
    OLG_TRY(olg_lower_emit_end(cx, nd, 1, &y));
    return olg__ix_bind(cx, y);
  }
  int64_t xd[OLG_MAX_RANK], id[OLG_MAX_RANK];
  int32_t xr, ir;
  if (!olg__static_shape(cx, x, xd, &xr) || !olg__static_shape(cx, idx, id, &ir) || ir != xr)
    return olg_lower_unsupported(cx, "gather of tensors whose shapes are not known "
                                     "(GatherElements)", 11);
  olg_value lin, flat;
  OLG_TRY(olg__ix_elements_linear(cx, xd, id, xr, axis, idx, &lin));
  OLG_TRY(olg__emit_reshape_static(cx, x, (const int64_t[]){-1}, 1, &flat));
  OLG_TRY(olg__emit_gather(cx, flat, lin, 0, &y));
  return olg__ix_bind(cx, y);
}

olg_status olg__sym_gather(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return gather(cx, olg__ix_target(cx), false);
}

/* ONNX GatherElements below 11: the same decomposition, negative indices wrapped first */
olg_status olg__sym_onnx_gather_elements(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return gather(cx, olg__ix_target(cx), true);
}

/* ------------------------------------------------------------------------------------------ */
/* nonzero, one_hot */

/* aten::nonzero(Tensor self): NonZero gives [rank, n], PyTorch [n, rank]. */
olg_status olg__sym_nonzero(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  olg_dtype t = olg__dtype(cx, x);
  /* runtimes implement NonZero for a few types; != 0 keeps the meaning for every other */
  if (t != OLG_BOOL && t != OLG_FLOAT && t != OLG_INT32 && t != OLG_INT64 && t != OLG_UINT8)
    OLG_TRY(olg__emit_cast(cx, x, OLG_BOOL, &x));
  OLG_TRY(olg__emit1(cx, "NonZero", x, &y));
  OLG_TRY(olg__emit_transpose(cx, y, (const int64_t[]){1, 0}, 2, &y));
  return olg__ix_bind(cx, y);
}

/* aten::one_hot(Tensor self, int num_classes=-1): int64 output. OneHot (9); below, Equal with
 * the class numbers. num_classes -1 means max + 1, read at run time unless known. */
static olg_status one_hot(olg_lower *cx, ix_caps caps) {
  olg_value x, y, depth = OLG_NO_VALUE;
  int64_t c;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg__arg_int_or(cx, 1, -1, &c));
  OLG_TRY(olg__emit_cast(cx, x, OLG_INT64, &x));
  int32_t rank = olg__rank(cx, x);
  if (rank < 0) return olg_lower_error(cx, OLG_ERR_UNSUPPORTED, "the rank of the input is not known");
  const int64_t *p;
  size_t n;
  if (c < 0 && olg__known_ints(cx, x, &p, &n)) {
    c = 0;
    for (size_t i = 0; i < n; i++) c = p[i] + 1 > c ? p[i] + 1 : c;
  }
  if (c < 0) {
    if (!caps.where_nonzero)
      return olg_lower_unsupported(cx, "one_hot with num_classes=-1 of indices computed at run "
                                       "time (OneHot)", 9);
    olg_value one;
    OLG_TRY(olg__emit_reduce(cx, OLG_REDUCE_MAX, x, NULL, 0, 1, &depth));
    OLG_TRY(olg__emit_reshape_static(cx, depth, (const int64_t[]){1}, 1, &depth));
    OLG_TRY(olg__const_i64s(cx, (const int64_t[]){1}, 1, &one));
    OLG_TRY(olg__emit2(cx, "Add", depth, one, &depth));
  }
  if (caps.where_nonzero) { /* OneHot-9 */
    olg_value vals;
    olg_node_id nd;
    if (depth == OLG_NO_VALUE) OLG_TRY(olg__const_i64s(cx, &c, 1, &depth));
    OLG_TRY(olg__const_i64s(cx, (const int64_t[]){0, 1}, 2, &vals));
    OLG_TRY(olg_lower_emit_begin(cx, "", "OneHot", &nd));
    OLG_TRY(olg_lower_emit_input(cx, nd, x));
    OLG_TRY(olg_lower_emit_input(cx, nd, depth));
    OLG_TRY(olg_lower_emit_input(cx, nd, vals));
    OLG_TRY(olg_lower_emit_attr_int(cx, nd, "axis", -1));
    OLG_TRY(olg_lower_emit_end(cx, nd, 1, &y));
    return olg__ix_bind(cx, y);
  }
  if (c > ((int64_t)1 << 27)) /* the class list is a constant: 1 GiB while it is made */
    return olg__unsupportedf(cx, 9, "one_hot of %lld classes, more than 2^27, as a constant "
                             "(OneHot takes the count at run time)", (long long)c);
  int64_t *classes = olg__ix_alloc_ints(cx, (size_t)c);
  if (!classes) return OLG_ERR_NOMEM;
  for (int64_t i = 0; i < c; i++) classes[i] = i;
  olg_value cv, xe;
  OLG_TRY(olg__const_i64s(cx, classes, (size_t)c, &cv));
  int64_t last = rank;
  OLG_TRY(olg__emit_unsqueeze(cx, x, &last, 1, &xe));
  OLG_TRY(olg__emit2(cx, "Equal", xe, cv, &y));
  OLG_TRY(olg__emit_cast(cx, y, OLG_INT64, &y));
  return olg__ix_bind(cx, y);
}

olg_status olg__sym_one_hot(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return one_hot(cx, olg__ix_target(cx));
}

