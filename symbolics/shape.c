/* onnxlegal — shape and indexing basics: view, reshape, flatten, permute, transpose, contiguous,
 * squeeze, unsqueeze, expand, expand_as, cat, stack, slice, select, narrow, size, numel, to,
 * type_as (and the identities: detach, clone, ...). Arguments as in PyTorch 1.13's schemas. */
#include <string.h>

#include "emit.h"
#include "symbolics.h"


/* aten::contiguous, detach, clone, alias, dropout-like no-ops: the output is the input. */
olg_status olg__sym_identity(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  return olg_lower_bind_output(cx, 0, x);
}

/* A shape given as int[] (static, may hold one -1) or as a list of run-time ints. PyTorch's 0 is
 * a real size 0, ONNX's 0 copies a dim: allowzero (14) keeps PyTorch's meaning. */
static olg_status reshape_to_arg(olg_lower *cx, olg_value x, size_t i, olg_value *out) {
  int k = olg_lower_arg_kind(cx, i);
  const int64_t *dims;
  size_t n;
  bool zero = false;
  olg_value shape;
  if (k == OLG_ARGKIND_INTS || k == OLG_ARGKIND_INT ||
      olg__arg_values_known(cx, i)) {
    OLG_TRY(olg_lower_arg_ints(cx, i, &dims, &n));
    for (size_t j = 0; j < n; j++) zero = zero || dims[j] == 0;
    if (!zero) return olg__emit_reshape_static(cx, x, dims, n, out);
    OLG_TRY(olg__const_i64s(cx, dims, n, &shape));
  } else {
    OLG_TRY(olg_lower_arg_as_tensor(cx, i, OLG_INT64, &shape));
    zero = true; /* a run-time size may be 0 */
  }
  /* a literal 0 is known; one computed at run time is possible (sizes of 0 are rare: below 14
   * accepted with a warning) */
  bool literal = k == OLG_ARGKIND_INTS || k == OLG_ARGKIND_INT;
  return olg__emit_reshape_allowzero(cx, x, shape, literal ? OLG_ZERO_KNOWN : OLG_ZERO_WARN, out);
}

/* aten::view(Tensor self, SymInt[] size), aten::reshape(Tensor self, SymInt[] shape),
 * aten::_reshape_alias(Tensor self, SymInt[] size, SymInt[] stride) */
olg_status olg__sym_view(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  if (olg_lower_arg_kind(cx, 1) != OLG_ARGKIND_INTS && olg_lower_arg_kind(cx, 1) != OLG_ARGKIND_VALUES &&
      olg_lower_arg_kind(cx, 1) != OLG_ARGKIND_INT && olg_lower_arg_kind(cx, 1) != OLG_ARGKIND_VALUE)
    return olg_lower_unsupported(cx, "view with a dtype (a bit cast)", -1);
  OLG_TRY(reshape_to_arg(cx, x, 1, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* aten::flatten(Tensor self, int start_dim=0, int end_dim=-1) */
olg_status olg__sym_flatten(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, y;
  int32_t rank;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg__input_rank(cx, x, &rank));
  if (rank == 0) { /* a 0-D tensor flattens to one element */
    OLG_TRY(olg__emit_reshape_static(cx, x, (const int64_t[]){1}, 1, &y));
    return olg_lower_bind_output(cx, 0, y);
  }
  int64_t s, e;
  OLG_TRY(olg__dim_arg(cx, 1, 0, rank, &s));
  OLG_TRY(olg__dim_arg(cx, 2, -1, rank, &e));
  if (s > e) return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "flatten: start_dim after end_dim");
  if (s == e) return olg_lower_bind_output(cx, 0, x);
  if (s == 1 && e == rank - 1) {
    OLG_TRY(olg__emit_flatten(cx, x, 1, &y)); /* what every runtime knows best */
    return olg_lower_bind_output(cx, 0, y);
  }
  /* [dims before s (0: copied), -1, dims after e] */
  int64_t dims[OLG_MAX_RANK];
  size_t n = 0;
  bool known_tail = true;
  for (int64_t i = 0; i < s; i++) dims[n++] = 0;
  dims[n++] = -1;
  for (int64_t i = e + 1; i < rank; i++) {
    dims[n] = olg__dim(cx, x, (int32_t)i);
    known_tail = known_tail && dims[n] > 0;
    n++;
  }
  if (known_tail) {
    OLG_TRY(olg__emit_reshape_static(cx, x, dims, n, &y));
    return olg_lower_bind_output(cx, 0, y);
  }
  olg_value pieces[2];
  OLG_TRY(olg__const_i64s(cx, dims, (size_t)s + 1, &pieces[0]));
  OLG_TRY(olg__shape_range(cx, x, e + 1, rank, &pieces[1]));
  olg_value shape;
  OLG_TRY(olg__concat_ints(cx, pieces, 2, &shape));
  OLG_TRY(olg__emit_reshape(cx, x, shape, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* aten::permute(Tensor self, int[] dims) */
olg_status olg__sym_permute(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, y;
  int32_t rank;
  const int64_t *dims;
  size_t n;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg_lower_arg_ints(cx, 1, &dims, &n));
  OLG_TRY(olg__input_rank(cx, x, &rank));
  if (n != (size_t)rank)
    return olg__errf(cx, OLG_ERR_INVALID_ARG, "permute: %zu dims for a tensor of rank %d", n, rank);
  int64_t perm[OLG_MAX_RANK];
  for (size_t i = 0; i < n; i++) {
    perm[i] = olg__norm_axis(dims[i], rank);
    if (perm[i] < 0) return olg__errf(cx, OLG_ERR_RANGE, "permute: dim %lld out of range", (long long)dims[i]);
  }
  OLG_TRY(olg__emit_transpose(cx, x, perm, n, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* aten::transpose(Tensor self, int dim0, int dim1) */
olg_status olg__sym_transpose(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, y;
  int32_t rank;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg__input_rank(cx, x, &rank));
  if (rank == 0) return olg_lower_bind_output(cx, 0, x); /* PyTorch allows dims 0/-1 of a scalar */
  int64_t a, b;
  OLG_TRY(olg__dim_arg(cx, 1, 0, rank, &a));
  OLG_TRY(olg__dim_arg(cx, 2, 0, rank, &b));
  int64_t perm[OLG_MAX_RANK];
  for (int32_t i = 0; i < rank; i++) perm[i] = i;
  perm[a] = b;
  perm[b] = a;
  OLG_TRY(olg__emit_transpose(cx, x, perm, (size_t)rank, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* Squeezes dim d whose size is not known: drop it from the shape when it is 1 (Compress-9 of the
 * shape by a mask, then Reshape) — exact, and without an If. */
static olg_status squeeze_dynamic(olg_lower *cx, olg_value x, int64_t d, int32_t rank,
                                  olg_value *out) {
  olg_value shape, one, eq, isd, both, keep, newshape;
  OLG_TRY(olg__shape(cx, x, &shape));
  OLG_TRY(olg__const_i64s(cx, (const int64_t[]){1}, 1, &one));
  OLG_TRY(olg__emit2(cx, "Equal", shape, one, &eq));
  uint8_t mask[OLG_MAX_RANK] = {0};
  mask[d] = 1;
  int64_t dims[1] = {rank};
  OLG_TRY(olg__const_tensor(cx, OLG_BOOL, 1, dims, mask, (size_t)rank, &isd));
  OLG_TRY(olg__emit2(cx, "And", eq, isd, &both));
  OLG_TRY(olg__emit1(cx, "Not", both, &keep));
  OLG_TRY(olg__emit_compress(cx, shape, keep, 0, &newshape));
  return olg__emit_reshape_allowzero(cx, x, newshape, OLG_ZERO_QUIET, out);
}

/* aten::squeeze(Tensor self), aten::squeeze.dim(Tensor self, int dim); has_compress: a dim whose
 * size is not known can be squeezed (Compress, opset 9) */
static olg_status squeeze(olg_lower *cx, bool has_compress) {
  olg_value x, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  int32_t rank = olg__rank(cx, x);
  if (olg_lower_arg_is_none(cx, 1)) {
    /* every dim of size 1: name them when all dims are known (Squeeze without axes otherwise) */
    int64_t axes[OLG_MAX_RANK], d[OLG_MAX_RANK];
    int32_t r;
    size_t n = 0;
    if (olg__static_shape(cx, x, d, &r)) {
      for (int32_t i = 0; i < r; i++)
        if (d[i] == 1) axes[n++] = i;
      if (!n) return olg_lower_bind_output(cx, 0, x);
      OLG_TRY(olg__emit_squeeze(cx, x, axes, n, &y));
    } else {
      OLG_TRY(olg__emit_squeeze(cx, x, NULL, 0, &y));
    }
    return olg_lower_bind_output(cx, 0, y);
  }
  OLG_TRY(olg__input_rank(cx, x, &rank));
  if (rank == 0) return olg_lower_bind_output(cx, 0, x);
  const int64_t *dl;
  size_t nd;
  OLG_TRY(olg_lower_arg_ints(cx, 1, &dl, &nd));
  int64_t axes[OLG_MAX_RANK];
  size_t n = 0;
  for (size_t i = 0; i < nd; i++) {
    int64_t d = olg__norm_axis(dl[i], rank);
    if (d < 0) return olg__errf(cx, OLG_ERR_RANGE, "squeeze: dim %lld out of range", (long long)dl[i]);
    int64_t size = olg__dim(cx, x, (int32_t)d);
    if (size == 1) axes[n++] = d;
    else if (size < 0) {
      if (nd != 1)
        return olg_lower_unsupported(cx, "squeeze of several dims whose sizes are not known", -1);
      OLG_TRY(olg_lower_decompose(cx, "squeeze of a dim whose size is not known", -1));
      if (!has_compress)
        return olg_lower_unsupported(cx, "squeeze of a dim whose size is not known", 9);
      OLG_TRY(squeeze_dynamic(cx, x, d, rank, &y));
      return olg_lower_bind_output(cx, 0, y);
    } /* a dim that is not 1: PyTorch leaves it, so does this */
  }
  if (!n) return olg_lower_bind_output(cx, 0, x);
  OLG_TRY(olg__emit_squeeze(cx, x, axes, n, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* a dim whose size is not known needs Compress (9) */
olg_status olg__sym_squeeze(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return squeeze(cx, olg__target_has(cx, "Compress"));
}

/* aten::unsqueeze(Tensor self, int dim) */
olg_status olg__sym_unsqueeze(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, y;
  int64_t d;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg_lower_arg_int(cx, 1, &d));
  int32_t rank = olg__rank(cx, x);
  if (rank >= 0) {
    int64_t n = olg__norm_axis(d, rank + 1);
    if (n < 0) return olg__errf(cx, OLG_ERR_RANGE, "unsqueeze: dim %lld out of range", (long long)d);
    d = n;
  }
  OLG_TRY(olg__emit_unsqueeze(cx, x, &d, 1, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* aten::expand(Tensor self, SymInt[] size, *, bool implicit=False). A -1 keeps the input's dim:
 * as a target of 1, which ONNX's two-way broadcast resolves to the input's dim — exact whether
 * or not that dim is known. */
olg_status olg__sym_expand(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, y, shape;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  const int64_t *dims;
  size_t n;
  int k = olg_lower_arg_kind(cx, 1);
  if (k == OLG_ARGKIND_INTS || k == OLG_ARGKIND_INT ||
      olg__arg_values_known(cx, 1)) {
    OLG_TRY(olg_lower_arg_ints(cx, 1, &dims, &n));
    int64_t *t = olg__lower_alloc(cx, (n ? n : 1) * sizeof *t);
    if (!t) return OLG_ERR_NOMEM;
    for (size_t i = 0; i < n; i++) t[i] = dims[i] == -1 ? 1 : dims[i];
    OLG_TRY(olg__const_i64s(cx, t, n, &shape));
  } else if (k == OLG_ARGKIND_VALUES) {
    const olg_value *vals;
    OLG_TRY(olg_lower_arg_values(cx, 1, &vals, &n));
    olg_value *pieces = olg__lower_alloc(cx, (n ? n : 1) * sizeof *pieces);
    if (!pieces) return OLG_ERR_NOMEM;
    for (size_t i = 0; i < n; i++) {
      const int64_t *p;
      size_t m;
      if (olg__known_ints(cx, vals[i], &p, &m) && m == 1) {
        int64_t v = p[0] == -1 ? 1 : p[0];
        OLG_TRY(olg__const_i64s(cx, &v, 1, &pieces[i]));
      } else { /* a run-time size; PyTorch writes -1 only as a literal */
        olg_value v;
        OLG_TRY(olg__emit_cast(cx, vals[i], OLG_INT64, &v));
        OLG_TRY(olg__emit_reshape_static(cx, v, (const int64_t[]){1}, 1, &pieces[i]));
      }
    }
    OLG_TRY(olg__concat_ints(cx, pieces, n, &shape));
  } else {
    OLG_TRY(olg_lower_arg_as_tensor(cx, 1, OLG_INT64, &shape));
  }
  OLG_TRY(olg__emit_expand(cx, x, shape, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* aten::expand_as(Tensor self, Tensor other) */
olg_status olg__sym_expand_as(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, other, shape, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg_lower_arg_value(cx, 1, &other));
  OLG_TRY(olg__shape(cx, other, &shape));
  OLG_TRY(olg__emit_expand(cx, x, shape, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* aten::cat(Tensor[] tensors, int dim=0). PyTorch skips 1-D empty tensors among others. */
olg_status olg__sym_cat(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  const olg_value *vals;
  size_t n;
  OLG_TRY(olg_lower_arg_values(cx, 0, &vals, &n));
  int64_t dim;
  OLG_TRY(olg__arg_int_or(cx, 1, 0, &dim));
  olg_value *keep = olg__lower_alloc(cx, (n ? n : 1) * sizeof *keep);
  if (!keep) return OLG_ERR_NOMEM;
  int32_t rank = -1;
  for (size_t i = 0; i < n; i++) {
    int32_t r = olg__rank(cx, vals[i]);
    if (!(r == 1 && olg__dim(cx, vals[i], 0) == 0) && r > rank) rank = r;
  }
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    if (vals[i] == OLG_NO_VALUE) return olg_lower_error(cx, OLG_ERR_TYPE, "cat: a tensor is none");
    if (rank > 1 && olg__rank(cx, vals[i]) == 1 && olg__dim(cx, vals[i], 0) == 0) continue;
    keep[m++] = vals[i];
  }
  if (!m) return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "cat of no tensors");
  olg_value y;
  OLG_TRY(olg__emit_concat(cx, keep, m, dim, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* aten::stack(Tensor[] tensors, int dim=0) */
olg_status olg__sym_stack(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  const olg_value *vals;
  size_t n;
  OLG_TRY(olg_lower_arg_values(cx, 0, &vals, &n));
  if (!n) return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "stack of no tensors");
  int64_t dim;
  OLG_TRY(olg__arg_int_or(cx, 1, 0, &dim));
  int32_t rank = -1;
  for (size_t i = 0; i < n && rank < 0; i++) rank = olg__rank(cx, vals[i]);
  if (rank >= 0) {
    int64_t d = olg__norm_axis(dim, rank + 1);
    if (d < 0) return olg__errf(cx, OLG_ERR_RANGE, "stack: dim %lld out of range", (long long)dim);
    dim = d;
  }
  olg_value *u = olg__lower_alloc(cx, n * sizeof *u);
  if (!u) return OLG_ERR_NOMEM;
  for (size_t i = 0; i < n; i++) OLG_TRY(olg__emit_unsqueeze(cx, vals[i], &dim, 1, &u[i]));
  olg_value y;
  OLG_TRY(olg__emit_concat(cx, u, n, dim, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* A 1-element int64 tensor from argument i: a literal, or a run-time 0-D/1-D int. */
static olg_status int_piece(olg_lower *cx, size_t i, int64_t dflt, olg_value *out, bool *known,
                            int64_t *val) {
  int k = olg_lower_arg_kind(cx, i);
  if (k == OLG_ARGKIND_VALUE) {
    olg_value v;
    OLG_TRY(olg_lower_arg_value(cx, i, &v));
    const int64_t *p;
    size_t n;
    if (olg__known_ints(cx, v, &p, &n) && n == 1) {
      *known = true;
      *val = p[0];
      return olg__const_i64s(cx, val, 1, out);
    }
    *known = false;
    OLG_TRY(olg__emit_cast(cx, v, OLG_INT64, &v));
    return olg__emit_reshape_static(cx, v, (const int64_t[]){1}, 1, out);
  }
  OLG_TRY(olg__arg_int_or(cx, i, dflt, val));
  *known = true;
  return olg__const_i64s(cx, val, 1, out);
}

/* aten::slice(Tensor self, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1) */
olg_status olg__sym_slice(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  int64_t dim, step;
  OLG_TRY(olg__arg_int_or(cx, 1, 0, &dim));
  OLG_TRY(olg__arg_int_or(cx, 4, 1, &step));
  if (step <= 0) return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "slice: step must be positive");
  int32_t rank = olg__rank(cx, x);
  if (rank >= 0) {
    int64_t d = olg__norm_axis(dim, rank);
    if (d < 0) return olg__errf(cx, OLG_ERR_RANGE, "slice: dim %lld out of range", (long long)dim);
    dim = d;
  }
  olg_value sv, ev;
  bool sk, ek;
  int64_t s, e;
  OLG_TRY(int_piece(cx, 2, 0, &sv, &sk, &s));
  OLG_TRY(int_piece(cx, 3, INT64_MAX, &ev, &ek, &e));
  if (sk && ek) {
    if (s == 0 && e == INT64_MAX && step == 1) return olg_lower_bind_output(cx, 0, x);
    OLG_TRY(olg__emit_slice(cx, x, &s, &e, &dim, &step, 1, &y));
  } else {
    olg_value av, stv = OLG_NO_VALUE;
    OLG_TRY(olg__const_i64s(cx, &dim, 1, &av));
    if (step != 1) OLG_TRY(olg__const_i64s(cx, &step, 1, &stv));
    OLG_TRY(olg__emit_slice_dyn(cx, x, sv, ev, av, stv, &y));
  }
  return olg_lower_bind_output(cx, 0, y);
}

/* aten::select(Tensor self, int dim, int index); gather_neg: Gather takes negative indices
 * (opset 11) */
static olg_status select_at(olg_lower *cx, bool gather_neg) {
  olg_value x, y, idx;
  int32_t rank;
  int64_t dim;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg__input_rank(cx, x, &rank));
  OLG_TRY(olg__dim_arg(cx, 1, 0, rank, &dim));
  int64_t index;
  bool known;
  OLG_TRY(int_piece(cx, 2, 0, &idx, &known, &index));
  if (known) {
    int64_t size = olg__dim(cx, x, (int32_t)dim);
    if (index < 0 && size >= 0) index += size;
    if (index < 0 && !gather_neg) { /* slice the one element and squeeze */
      int64_t end = index + 1 == 0 ? INT64_MAX : index + 1;
      OLG_TRY(olg__emit_slice(cx, x, &index, &end, &dim, NULL, 1, &y));
      OLG_TRY(olg__emit_squeeze(cx, y, &dim, 1, &y));
      return olg_lower_bind_output(cx, 0, y);
    }
    OLG_TRY(olg__const_i64(cx, index, &idx));
  } else {
    if (!gather_neg)
      OLG_TRY(olg_lower_warning(cx, "select with a run-time index: a negative index needs opset 11"));
    OLG_TRY(olg__emit_reshape_static(cx, idx, NULL, 0, &idx)); /* 0-D: the dim goes away */
  }
  OLG_TRY(olg__emit_gather(cx, x, idx, dim, &y));
  return olg_lower_bind_output(cx, 0, y);
}

olg_status olg__sym_select(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return select_at(cx, false);
}

/* Gather-11: negative indices, also computed at run time */
olg_status olg__sym_select_opset11(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return select_at(cx, true);
}

/* aten::narrow(Tensor self, int dim, int start, int length) (start may be a Tensor) */
olg_status olg__sym_narrow(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, y, sv;
  int32_t rank;
  int64_t dim, length, start;
  bool known;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg__input_rank(cx, x, &rank));
  OLG_TRY(olg__dim_arg(cx, 1, 0, rank, &dim));
  OLG_TRY(olg_lower_arg_int(cx, 3, &length));
  /* torch refuses these at run time (and start + length could pass int64) */
  if (length < 0)
    return olg__errf(cx, OLG_ERR_INVALID_ARG, "aten::narrow: length %lld is negative",
                     (long long)length);
  OLG_TRY(int_piece(cx, 2, 0, &sv, &known, &start));
  if (known) {
    int64_t size = olg__dim(cx, x, (int32_t)dim);
    if (size >= 0 &&
        (start < -size || start > size || length > size - (start < 0 ? start + size : start)))
      return olg__errf(cx, OLG_ERR_RANGE, "aten::narrow: start %lld and length %lld are "
                       "outside dim %lld of size %lld", (long long)start, (long long)length,
                       (long long)dim, (long long)size);
    if (start < 0 && size >= 0) start += size;
    /* an end past int64 (a dim of unknown size) is its end: Slice clamps */
    int64_t end = start > INT64_MAX - length ? INT64_MAX : start + length;
    if (start < 0 && end >= 0) end = INT64_MAX; /* to the end of a dim of unknown size */
    OLG_TRY(olg__emit_slice(cx, x, &start, &end, &dim, NULL, 1, &y));
  } else {
    olg_value len, ev, av;
    OLG_TRY(olg__const_i64s(cx, &length, 1, &len));
    OLG_TRY(olg__emit2(cx, "Add", sv, len, &ev));
    OLG_TRY(olg__const_i64s(cx, &dim, 1, &av));
    OLG_TRY(olg__emit_slice_dyn(cx, x, sv, ev, av, OLG_NO_VALUE, &y));
  }
  return olg_lower_bind_output(cx, 0, y);
}

/* aten::size(Tensor self) -> int[], aten::size.int(Tensor self, int dim) -> int (a 0-D int64) */
olg_status olg__sym_size(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  if (olg_lower_arg_is_none(cx, 1)) {
    OLG_TRY(olg__shape(cx, x, &y));
    return olg_lower_bind_output(cx, 0, y);
  }
  int64_t dim;
  OLG_TRY(olg_lower_arg_int(cx, 1, &dim));
  OLG_TRY(olg__dim_tensor(cx, x, dim, &y));
  OLG_TRY(olg__emit_squeeze(cx, y, (const int64_t[]){0}, 1, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* aten::numel(Tensor self) -> int (a 0-D int64) */
olg_status olg__sym_numel(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  int64_t d[OLG_MAX_RANK];
  int32_t r;
  if (olg__static_shape(cx, x, d, &r)) {
    uint64_t n;
    if (!olg__shape_numel(r, d, &n)) return olg_lower_error(cx, OLG_ERR_LIMIT, "numel overflows");
    OLG_TRY(olg__const_i64(cx, (int64_t)n, &y));
  } else {
    OLG_TRY(olg__emit1(cx, "Size", x, &y));
  }
  return olg_lower_bind_output(cx, 0, y);
}

/* aten::to: .dtype(self, ScalarType dtype, bool non_blocking, bool copy, MemoryFormat?),
 * .other(self, Tensor other, ...), .device(self, Device device, ScalarType dtype, ...),
 * .prim_dtype(self, int? dtype, ...), .prim_Device(self, Device? device, int? dtype, ...),
 * .prim_other(self, bool non_blocking, bool copy). Told apart by the kinds of arguments 1, 2. */
olg_status olg__sym_to(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  int k1 = olg_lower_arg_kind(cx, 1), k2 = olg_lower_arg_kind(cx, 2);
  olg_dtype t = OLG_UNDEFINED;
  if (k1 == OLG_ARGKIND_VALUE) {
    olg_value other;
    OLG_TRY(olg_lower_arg_value(cx, 1, &other));
    t = olg__dtype(cx, other);
  } else if (k1 == OLG_ARGKIND_INT) {
    OLG_TRY(olg__arg_scalar_type_or(cx, 1, OLG_UNDEFINED, &t));
  } else if ((k1 == OLG_ARGKIND_STRING || k1 == OLG_ARGKIND_NONE) && k2 == OLG_ARGKIND_INT) {
    OLG_TRY(olg__arg_scalar_type_or(cx, 2, OLG_UNDEFINED, &t));
  }
  if (t == OLG_UNDEFINED) return olg_lower_bind_output(cx, 0, x); /* device or copy only */
  OLG_TRY(olg__emit_cast(cx, x, t, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* aten::_to_copy(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None,
 * bool? pin_memory=None, bool non_blocking=False, MemoryFormat? memory_format=None), what
 * make_fx / torch.export write for .to(dtype) and .clone() across devices: a Cast to dtype, or
 * the identity */
olg_status olg__sym_to_copy(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, y;
  olg_dtype t = OLG_UNDEFINED;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  if (olg_lower_arg_count(cx) > 1 && !olg_lower_arg_is_none(cx, 1))
    OLG_TRY(olg__arg_scalar_type_or(cx, 1, OLG_UNDEFINED, &t));
  if (t == OLG_UNDEFINED) return olg_lower_bind_output(cx, 0, x);
  OLG_TRY(olg__emit_cast(cx, x, t, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* aten::type_as(Tensor self, Tensor other) */
olg_status olg__sym_type_as(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, other, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg_lower_arg_value(cx, 1, &other));
  if (olg__dtype(cx, other) == OLG_UNDEFINED)
    return olg_lower_error(cx, OLG_ERR_UNSUPPORTED, "type_as: the other tensor's dtype is not known");
  OLG_TRY(olg__emit_cast_like(cx, x, other, &y));
  return olg_lower_bind_output(cx, 0, y);
}
