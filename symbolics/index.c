/* onnxlegal — shape and indexing beyond the basics of shape.c: unflatten, repeat, tile, flip,
 * roll, split, split_with_sizes, chunk, unbind, index, index_select, index_put, gather, scatter,
 * scatter_add, nonzero, meshgrid, tril, triu, one_hot, embedding, pad, constant_pad_nd.
 * Arguments as in PyTorch 1.13's schemas.
 *
 * Advanced indexing (index, index_put) goes through one plan: boolean masks become index
 * tensors (NonZero, or computed here when the mask is known), the indexed dims are moved first
 * and flattened into one, and the index tensors become one linear index (their broadcast shape
 * B). index is then one Gather; index_put one row scatter: ScatterND (11), Scatter-9 with the
 * index broadcast along each row (9, 10), or a Gather from Concat(data, values) with a map of
 * which row each output row takes (7, 8; computed here for known indices, with Equal/ArgMax at
 * run time otherwise). accumulate is ScatterND's reduction 'add' (16), below that a one-hot
 * MatMul added to the data. */
#include <string.h>

#include "emit.h"
#include "symbolics.h"

#define UNUSED_SRC (void)src; (void)ud

static olg_status input_rank(olg_lower *cx, olg_value x, int32_t *rank) {
  *rank = olg__rank(cx, x);
  if (*rank < 0)
    return olg_lower_error(cx, OLG_ERR_UNSUPPORTED,
                           "the rank of the input is not known at export time");
  if (*rank > OLG_MAX_RANK) return olg_lower_error(cx, OLG_ERR_LIMIT, "rank above 16");
  return OLG_OK;
}

static olg_status norm_dim(olg_lower *cx, int64_t d, int64_t rank, int64_t *out) {
  int64_t n = olg__norm_axis(d, rank);
  if (n < 0)
    return olg__errf(cx, OLG_ERR_RANGE, "dim %lld is out of range for rank %lld", (long long)d,
                     (long long)rank);
  *out = n;
  return OLG_OK;
}

static olg_status dim_arg(olg_lower *cx, size_t i, int64_t dflt, int64_t rank, int64_t *out) {
  int64_t d;
  OLG_TRY(olg__arg_int_or(cx, i, dflt, &d));
  return norm_dim(cx, d, rank, out);
}

static bool is_int_type(olg_dtype t) {
  return t == OLG_INT8 || t == OLG_INT16 || t == OLG_INT32 || t == OLG_INT64 || t == OLG_UINT8 ||
         t == OLG_UINT16 || t == OLG_UINT32 || t == OLG_UINT64;
}

static olg_value *alloc_values(olg_lower *cx, size_t n) {
  olg_value *v = olg__lower_alloc(cx, (n ? n : 1) * sizeof *v);
  return v;
}

static int64_t *alloc_ints(olg_lower *cx, size_t n) {
  return olg__lower_alloc(cx, (n ? n : 1) * sizeof(int64_t));
}

/* dim `axis` of x as a 0-D int64 (a constant when known). */
static olg_status dim_scalar(olg_lower *cx, olg_value x, int64_t axis, olg_value *out) {
  int64_t d = olg__dim(cx, x, (int32_t)axis);
  if (d >= 0) return olg__const_i64(cx, d, out);
  OLG_TRY(olg__dim_tensor(cx, x, axis, out));
  return olg__emit_reshape_static(cx, *out, NULL, 0, out);
}

/* Binds y to the node's (only) output. */
static olg_status bind(olg_lower *cx, olg_value y) { return olg_lower_bind_output(cx, 0, y); }

/* ------------------------------------------------------------------------------------------ */
/* unflatten, repeat, tile, flip, roll */

/* aten::unflatten.int(Tensor self, int dim, int[] sizes) */
olg_status olg__sym_unflatten(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, y;
  int32_t rank;
  int64_t d;
  const int64_t *sz;
  size_t n;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(input_rank(cx, x, &rank));
  OLG_TRY(dim_arg(cx, 1, 0, rank, &d));
  OLG_TRY(olg_lower_arg_ints(cx, 2, &sz, &n));
  if (!n || (size_t)rank - 1 + n > OLG_MAX_RANK)
    return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "unflatten: bad sizes");
  for (size_t i = 0; i < n; i++)
    if (sz[i] == 0 || sz[i] < -1) /* ONNX's 0 would copy a dim */
      return olg_lower_unsupported(cx, "unflatten to a size of 0", -1);
  int64_t dims[OLG_MAX_RANK];
  size_t m = 0;
  bool known = true;
  for (int64_t i = 0; i < d; i++) known = known && (dims[m++] = olg__dim(cx, x, (int32_t)i)) >= 0;
  for (size_t i = 0; i < n; i++) dims[m++] = sz[i];
  for (int64_t i = d + 1; i < rank; i++) known = known && (dims[m++] = olg__dim(cx, x, (int32_t)i)) >= 0;
  if (known) {
    OLG_TRY(olg__emit_reshape_static(cx, x, dims, m, &y));
    return bind(cx, y);
  }
  olg_value pieces[3], shape;
  OLG_TRY(olg__shape_range(cx, x, 0, d, &pieces[0]));
  OLG_TRY(olg__const_i64s(cx, sz, n, &pieces[1]));
  OLG_TRY(olg__shape_range(cx, x, d + 1, rank, &pieces[2]));
  OLG_TRY(olg__concat_ints(cx, pieces, 3, &shape));
  OLG_TRY(olg__emit_reshape(cx, x, shape, &y));
  return bind(cx, y);
}

/* Tile x by the repeats of argument i (a list at least as long as the rank, as PyTorch's
 * repeat wants; tile pads it with leading 1s first). */
static olg_status tile_by(olg_lower *cx, bool pad_front, olg_value *out) {
  olg_value x, reps;
  int32_t rank;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(input_rank(cx, x, &rank));
  int k = olg_lower_arg_kind(cx, 1);
  size_t n;
  if (k == OLG_ARGKIND_INTS || k == OLG_ARGKIND_INT || olg__arg_values_known(cx, 1)) {
    const int64_t *p;
    OLG_TRY(olg_lower_arg_ints(cx, 1, &p, &n));
    int64_t r[OLG_MAX_RANK];
    if (n > OLG_MAX_RANK) return olg_lower_error(cx, OLG_ERR_LIMIT, "too many repeats");
    size_t lead = pad_front && n < (size_t)rank ? (size_t)rank - n : 0;
    for (size_t i = 0; i < lead; i++) r[i] = 1;
    for (size_t i = 0; i < n; i++) {
      if (p[i] < 0) return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "negative repeat");
      r[lead + i] = p[i];
    }
    n += lead;
    OLG_TRY(olg__const_i64s(cx, r, n, &reps));
  } else {
    OLG_TRY(olg_lower_arg_as_tensor(cx, 1, OLG_INT64, &reps));
    int64_t len = olg__dim(cx, reps, 0);
    if (olg__rank(cx, reps) != 1 || len < 0)
      return olg_lower_error(cx, OLG_ERR_UNSUPPORTED, "the number of repeats is not known");
    n = (size_t)len;
    if (pad_front && n < (size_t)rank) {
      int64_t ones[OLG_MAX_RANK];
      for (size_t i = 0; i < (size_t)rank - n; i++) ones[i] = 1;
      olg_value pieces[2];
      OLG_TRY(olg__const_i64s(cx, ones, (size_t)rank - n, &pieces[0]));
      pieces[1] = reps;
      OLG_TRY(olg__concat_ints(cx, pieces, 2, &reps));
      n = (size_t)rank;
    }
  }
  if (n < (size_t)rank)
    return olg__errf(cx, OLG_ERR_INVALID_ARG, "repeat: %zu repeats for a tensor of rank %d", n, rank);
  if (n > OLG_MAX_RANK) return olg_lower_error(cx, OLG_ERR_LIMIT, "too many repeats");
  if (n > (size_t)rank) { /* new leading dims of 1 */
    int64_t axes[OLG_MAX_RANK];
    for (size_t i = 0; i < n - (size_t)rank; i++) axes[i] = (int64_t)i;
    OLG_TRY(olg__emit_unsqueeze(cx, x, axes, n - (size_t)rank, &x));
  }
  return olg__emit2(cx, "Tile", x, reps, out);
}

/* aten::repeat(Tensor self, SymInt[] repeats) */
olg_status olg__sym_repeat(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value y;
  OLG_TRY(tile_by(cx, false, &y));
  return bind(cx, y);
}

/* aten::tile(Tensor self, int[] dims) */
olg_status olg__sym_tile(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value y;
  OLG_TRY(tile_by(cx, true, &y));
  return bind(cx, y);
}

/* aten::flip(Tensor self, int[] dims): Slice with step -1 (10); below, Gather with the reversed
 * indices of each dim, which must then be known. */
olg_status olg__sym_flip(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, y;
  int32_t rank;
  const int64_t *dl;
  size_t n;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(input_rank(cx, x, &rank));
  OLG_TRY(olg_lower_arg_ints(cx, 1, &dl, &n));
  if (n > (size_t)rank) return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "flip: too many dims");
  int64_t axes[OLG_MAX_RANK], starts[OLG_MAX_RANK], ends[OLG_MAX_RANK], steps[OLG_MAX_RANK];
  for (size_t i = 0; i < n; i++) {
    OLG_TRY(norm_dim(cx, dl[i], rank, &axes[i]));
    starts[i] = -1;
    ends[i] = INT64_MIN; /* clamped to "before the first" */
    steps[i] = -1;
  }
  if (!n) return bind(cx, x);
  if (olg__opset(cx) >= 10) {
    OLG_TRY(olg__emit_slice(cx, x, starts, ends, axes, steps, n, &y));
    return bind(cx, y);
  }
  y = x;
  for (size_t i = 0; i < n; i++) {
    int64_t size = olg__dim(cx, x, (int32_t)axes[i]);
    if (size < 0)
      return olg_lower_unsupported(cx, "flip of a dim whose size is not known (Slice with step -1)", 10);
    int64_t *rev = alloc_ints(cx, (size_t)size);
    if (!rev) return OLG_ERR_NOMEM;
    for (int64_t j = 0; j < size; j++) rev[j] = size - 1 - j;
    olg_value iv;
    OLG_TRY(olg__const_i64s(cx, rev, (size_t)size, &iv));
    OLG_TRY(olg__emit_gather(cx, y, iv, axes[i], &y));
  }
  return bind(cx, y);
}

/* x rolled by `shift` along axis: Concat(the last s elements, the others), s = shift mod size. A
 * size not known at export time is read at run time (Mod-10, Slice-10). */
static olg_status roll_one(olg_lower *cx, olg_value x, int64_t shift, int64_t axis,
                           olg_value *out) {
  int64_t size = olg__dim(cx, x, (int32_t)axis);
  olg_value parts[2];
  if (size >= 0) {
    if (size == 0) return (*out = x, OLG_OK);
    int64_t s = ((shift % size) + size) % size;
    if (!s) return (*out = x, OLG_OK);
    int64_t a0 = size - s, a1 = size, b0 = 0, b1 = size - s;
    OLG_TRY(olg__emit_slice(cx, x, &a0, &a1, &axis, NULL, 1, &parts[0]));
    OLG_TRY(olg__emit_slice(cx, x, &b0, &b1, &axis, NULL, 1, &parts[1]));
    return olg__emit_concat(cx, parts, 2, axis, out);
  }
  if (olg__opset(cx) < 10)
    return olg_lower_unsupported(cx, "roll along a dim whose size is not known (Mod, Slice with "
                                     "run-time bounds)", 10);
  olg_value sz, sh, s, start, zero, big, av;
  OLG_TRY(olg__dim_tensor(cx, x, axis, &sz));
  OLG_TRY(olg__const_i64s(cx, &shift, 1, &sh));
  OLG_TRY(olg__emit2(cx, "Mod", sh, sz, &s)); /* integer Mod takes the divisor's sign: >= 0 */
  OLG_TRY(olg__emit2(cx, "Sub", sz, s, &start));
  OLG_TRY(olg__const_i64s(cx, (const int64_t[]){0}, 1, &zero));
  OLG_TRY(olg__const_i64s(cx, (const int64_t[]){INT64_MAX}, 1, &big));
  OLG_TRY(olg__const_i64s(cx, &axis, 1, &av));
  OLG_TRY(olg__emit_slice_dyn(cx, x, start, big, av, OLG_NO_VALUE, &parts[0]));
  OLG_TRY(olg__emit_slice_dyn(cx, x, zero, start, av, OLG_NO_VALUE, &parts[1]));
  return olg__emit_concat(cx, parts, 2, axis, out);
}

/* aten::roll(Tensor self, int[1] shifts, int[1] dims=[]): no dims rolls the flattened tensor. */
olg_status olg__sym_roll(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, y;
  int32_t rank;
  const int64_t *sh, *dl;
  size_t ns, nd;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(input_rank(cx, x, &rank));
  OLG_TRY(olg_lower_arg_ints(cx, 1, &sh, &ns));
  OLG_TRY(olg__arg_ints_or_empty(cx, 2, &dl, &nd));
  if (!nd) {
    if (ns != 1) return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "roll: one shift without dims");
    olg_value flat, shape;
    OLG_TRY(olg__emit_reshape_static(cx, x, (const int64_t[]){-1}, 1, &flat));
    OLG_TRY(roll_one(cx, flat, sh[0], 0, &y));
    OLG_TRY(olg__shape(cx, x, &shape));
    OLG_TRY(olg__emit_reshape(cx, y, shape, &y));
    return bind(cx, y);
  }
  if (ns != nd) return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "roll: shifts and dims differ in length");
  y = x;
  for (size_t i = 0; i < nd; i++) {
    int64_t d = 0;
    OLG_TRY(norm_dim(cx, dl[i], rank, &d));
    OLG_TRY(roll_one(cx, y, sh[i], d, &y));
  }
  return bind(cx, y);
}

/* ------------------------------------------------------------------------------------------ */
/* split, split_with_sizes, chunk, unbind: as many outputs as the source node has */

static olg_status bind_all(olg_lower *cx, const olg_value *outs, size_t n) {
  for (size_t i = 0; i < n; i++) OLG_TRY(olg_lower_bind_output(cx, i, outs[i]));
  return OLG_OK;
}

static olg_status split_by_sizes(olg_lower *cx, olg_value x, int64_t axis, const int64_t *sizes,
                                 size_t n) {
  size_t n_out = olg_lower_output_count(cx);
  if (n != n_out)
    return olg__errf(cx, OLG_ERR_INVALID_ARG, "split into %zu parts, but the node has %zu outputs",
                     n, n_out);
  int64_t size = olg__dim(cx, x, (int32_t)axis), total = 0;
  for (size_t i = 0; i < n; i++) {
    if (sizes[i] < 0) return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "split: negative size");
    total += sizes[i];
  }
  if (size >= 0 && total != size)
    return olg__errf(cx, OLG_ERR_INVALID_ARG, "split sizes sum to %lld, the dim is %lld",
                     (long long)total, (long long)size);
  if (n == 1) return olg_lower_bind_output(cx, 0, x);
  olg_value *outs = alloc_values(cx, n);
  if (!outs) return OLG_ERR_NOMEM;
  OLG_TRY(olg__emit_split(cx, x, axis, sizes, n, outs));
  return bind_all(cx, outs, n);
}

/* n parts of `step` elements along axis (the last part takes the rest), by Slice; step a known
 * int or a 1-element tensor computed at run time. */
static olg_status split_by_slices(olg_lower *cx, olg_value x, int64_t axis, int64_t step,
                                  olg_value step_v, size_t n) {
  olg_value *outs = alloc_values(cx, n);
  if (!outs) return OLG_ERR_NOMEM;
  olg_value av, big;
  if (step_v != OLG_NO_VALUE) {
    OLG_TRY(olg__const_i64s(cx, &axis, 1, &av));
    OLG_TRY(olg__const_i64s(cx, (const int64_t[]){INT64_MAX}, 1, &big));
  }
  for (size_t i = 0; i < n; i++) {
    if (step_v == OLG_NO_VALUE) {
      int64_t s = (int64_t)i * step, e = i + 1 == n ? INT64_MAX : (int64_t)(i + 1) * step;
      OLG_TRY(olg__emit_slice(cx, x, &s, &e, &axis, NULL, 1, &outs[i]));
      continue;
    }
    olg_value k0, k1, s, e;
    OLG_TRY(olg__const_i64s(cx, (const int64_t[]){(int64_t)i}, 1, &k0));
    OLG_TRY(olg__emit2(cx, "Mul", step_v, k0, &s));
    if (i + 1 == n) {
      e = big;
    } else {
      OLG_TRY(olg__const_i64s(cx, (const int64_t[]){(int64_t)i + 1}, 1, &k1));
      OLG_TRY(olg__emit2(cx, "Mul", step_v, k1, &e));
    }
    OLG_TRY(olg__emit_slice_dyn(cx, x, s, e, av, OLG_NO_VALUE, &outs[i]));
  }
  return bind_all(cx, outs, n);
}

/* Parts of `step` elements (the last smaller) along axis. */
static olg_status split_even(olg_lower *cx, olg_value x, int64_t axis, int64_t step) {
  size_t n_out = olg_lower_output_count(cx);
  if (step <= 0) return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "split: size must be positive");
  int64_t size = olg__dim(cx, x, (int32_t)axis);
  if (size < 0) return split_by_slices(cx, x, axis, step, OLG_NO_VALUE, n_out);
  size_t n = size == 0 ? 1 : (size_t)((size + step - 1) / step);
  int64_t *sizes = alloc_ints(cx, n);
  if (!sizes) return OLG_ERR_NOMEM;
  for (size_t i = 0; i < n; i++) {
    int64_t left = size - (int64_t)i * step;
    sizes[i] = left < step ? left : step;
  }
  return split_by_sizes(cx, x, axis, sizes, n);
}

/* aten::split.Tensor(Tensor self, int split_size, int dim=0),
 * aten::split.sizes / aten::split(Tensor self, int[] split_size, int dim=0) */
olg_status olg__sym_split(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x;
  int32_t rank;
  int64_t axis;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(input_rank(cx, x, &rank));
  OLG_TRY(dim_arg(cx, 2, 0, rank, &axis));
  int k = olg_lower_arg_kind(cx, 1);
  bool one_int = k == OLG_ARGKIND_INT;
  if (k == OLG_ARGKIND_VALUE) {
    olg_value v;
    OLG_TRY(olg_lower_arg_value(cx, 1, &v));
    one_int = olg__rank(cx, v) == 0;
  }
  if (one_int) {
    int64_t step;
    OLG_TRY(olg_lower_arg_int(cx, 1, &step));
    return split_even(cx, x, axis, step);
  }
  const int64_t *sizes;
  size_t n;
  OLG_TRY(olg_lower_arg_ints(cx, 1, &sizes, &n));
  return split_by_sizes(cx, x, axis, sizes, n);
}

/* aten::chunk(Tensor self, int chunks, int dim=0): parts of ceil(size / chunks), so there may
 * be fewer than chunks (the node's outputs say how many). */
olg_status olg__sym_chunk(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x;
  int32_t rank;
  int64_t axis, chunks;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(input_rank(cx, x, &rank));
  OLG_TRY(olg_lower_arg_int(cx, 1, &chunks));
  OLG_TRY(dim_arg(cx, 2, 0, rank, &axis));
  if (chunks <= 0) return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "chunk: chunks must be positive");
  int64_t size = olg__dim(cx, x, (int32_t)axis);
  if (size >= 0) return split_even(cx, x, axis, size ? (size + chunks - 1) / chunks : 1);
  if (olg__opset(cx) < 10)
    return olg_lower_unsupported(cx, "chunk of a dim whose size is not known (Slice with run-time "
                                     "bounds)", 10);
  olg_value sz, add, c, step;
  OLG_TRY(olg__dim_tensor(cx, x, axis, &sz));
  OLG_TRY(olg__const_i64s(cx, (const int64_t[]){chunks - 1}, 1, &add));
  OLG_TRY(olg__const_i64s(cx, &chunks, 1, &c));
  OLG_TRY(olg__emit2(cx, "Add", sz, add, &sz));
  OLG_TRY(olg__emit2(cx, "Div", sz, c, &step));
  return split_by_slices(cx, x, axis, 0, step, olg_lower_output_count(cx));
}

/* aten::split_with_sizes(Tensor self, int[] split_sizes, int dim=0) */
olg_status olg__sym_split_with_sizes(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x;
  int32_t rank;
  int64_t axis;
  const int64_t *sizes;
  size_t n;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(input_rank(cx, x, &rank));
  OLG_TRY(olg_lower_arg_ints(cx, 1, &sizes, &n));
  OLG_TRY(dim_arg(cx, 2, 0, rank, &axis));
  return split_by_sizes(cx, x, axis, sizes, n);
}

/* aten::unbind.int(Tensor self, int dim=0): Split into parts of 1, each squeezed. */
olg_status olg__sym_unbind(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x;
  int32_t rank;
  int64_t axis;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(input_rank(cx, x, &rank));
  OLG_TRY(dim_arg(cx, 1, 0, rank, &axis));
  size_t n = olg_lower_output_count(cx);
  int64_t size = olg__dim(cx, x, (int32_t)axis);
  if (size >= 0 && (size_t)size != n)
    return olg__errf(cx, OLG_ERR_INVALID_ARG, "unbind of a dim of %lld into %zu outputs",
                     (long long)size, n);
  olg_value *outs = alloc_values(cx, n);
  int64_t *ones = alloc_ints(cx, n);
  if (!outs || !ones) return OLG_ERR_NOMEM;
  for (size_t i = 0; i < n; i++) ones[i] = 1;
  if (n == 1) outs[0] = x;
  else OLG_TRY(olg__emit_split(cx, x, axis, ones, n, outs));
  for (size_t i = 0; i < n; i++) OLG_TRY(olg__emit_squeeze(cx, outs[i], &axis, 1, &outs[i]));
  return bind_all(cx, outs, n);
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
static olg_status mask_indices(olg_lower *cx, olg_value mask, int32_t k, olg_value *cols) {
  const int64_t *p;
  size_t n;
  int64_t dims[OLG_MAX_RANK];
  int32_t r;
  if (olg__known_ints(cx, mask, &p, &n) && olg__static_shape(cx, mask, dims, &r) && r == k) {
    size_t count = 0;
    for (size_t i = 0; i < n; i++) count += p[i] != 0;
    for (int32_t m = 0; m < k; m++) {
      int64_t *c = alloc_ints(cx, count);
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
  if (olg__opset(cx) < 9)
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
static olg_status plan_indices(olg_lower *cx, olg_value x, size_t i, index_plan *pl) {
  const olg_value *vals;
  size_t n;
  memset(pl, 0, sizeof *pl);
  OLG_TRY(olg_lower_arg_values(cx, i, &vals, &n));
  OLG_TRY(input_rank(cx, x, &pl->rank));
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
      OLG_TRY(mask_indices(cx, v, vr, pl->idx + d));
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

/* idx as int64 with negative entries counted from the end of dim `axis` of x. */
static olg_status wrap_index(olg_lower *cx, olg_value x, int64_t axis, olg_value idx,
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
      int64_t *q = alloc_ints(cx, n);
      if (!q) return OLG_ERR_NOMEM;
      for (size_t i = 0; i < n; i++) q[i] = p[i] < 0 ? p[i] + size : p[i];
      return olg__const_tensor_kept(cx, OLG_INT64, r, dims, q, n * sizeof *q, out);
    }
  }
  olg_value sz, zero, neg, negi, add;
  OLG_TRY(dim_scalar(cx, x, axis, &sz));
  if (olg__opset(cx) >= 9) {
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

/* The linear index into the indexed dims flattened (row-major): sum of idx_m * stride_m, in
 * the broadcast shape B of the index tensors. *rows gets the product of the indexed dims'
 * sizes, -1 when one is not known. */
static olg_status linear_index(olg_lower *cx, olg_value x, const index_plan *pl, olg_value *out,
                               int64_t *rows) {
  olg_value lin = OLG_NO_VALUE, stride_v = OLG_NO_VALUE;
  int64_t stride = 1; /* while every size so far is known */
  for (int32_t m = pl->k - 1; m >= 0; m--) {
    int64_t d = pl->dims[m];
    olg_value w, term;
    OLG_TRY(wrap_index(cx, x, d, pl->idx[d], &w));
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
      OLG_TRY(dim_scalar(cx, x, d, &sz));
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

/* aten::index.Tensor(Tensor self, Tensor?[] indices) (and .Tensor_hacked_twin) */
olg_status olg__sym_index(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, y;
  index_plan pl;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(plan_indices(cx, x, 1, &pl));
  if (pl.k == 0) return bind(cx, x);
  if (pl.k == 1) { /* Gather keeps the dims around the index where they are, as PyTorch does */
    int64_t d = pl.dims[0];
    olg_value idx = pl.idx[d];
    if (olg__opset(cx) < 11) OLG_TRY(wrap_index(cx, x, d, idx, &idx)); /* Gather-11 wraps */
    OLG_TRY(olg__emit_gather(cx, x, idx, d, &y));
    return bind(cx, y);
  }
  olg_value lin, xt, flat;
  int64_t rows, perm[OLG_MAX_RANK];
  OLG_TRY(linear_index(cx, x, &pl, &lin, &rows));
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
  return bind(cx, y);
}

/* aten::index_select(Tensor self, int dim, Tensor index) */
olg_status olg__sym_index_select(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, idx, y;
  int32_t rank;
  int64_t d;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg_lower_arg_value(cx, 2, &idx));
  OLG_TRY(input_rank(cx, x, &rank));
  if (rank == 0) { /* a 0-D tensor: index 0 only, the result is the tensor itself */
    return bind(cx, x);
  }
  OLG_TRY(dim_arg(cx, 1, 0, rank, &d));
  if (olg__rank(cx, idx) == 0) OLG_TRY(olg__emit_unsqueeze(cx, idx, (const int64_t[]){0}, 1, &idx));
  OLG_TRY(olg__emit_gather(cx, x, idx, d, &y));
  return bind(cx, y);
}

/* aten::embedding(Tensor weight, Tensor indices, int padding_idx=-1, bool scale_grad_by_freq,
 * bool sparse): a Gather of rows; padding_idx only matters to gradients. */
olg_status olg__sym_embedding(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value w, idx, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &w));
  OLG_TRY(olg_lower_arg_value(cx, 1, &idx));
  OLG_TRY(olg__emit_gather(cx, w, idx, 0, &y));
  return bind(cx, y);
}

/* ------------------------------------------------------------------------------------------ */
/* Row scatters: data [P, R...], rows lin [N] (in [0, P)), updates [N, R...] */

typedef enum scatter_mode { SCATTER_SET, SCATTER_ADD, SCATTER_MUL } scatter_mode;
static const char *const scatter_reduction[] = {"none", "add", "mul"};

/* 0..P-1 as a 1-D int64: a constant when P is known, else Range (11) over dim 0 of data. */
static olg_status row_range(olg_lower *cx, olg_value data, int64_t p, int need_opset,
                            olg_value *out) {
  if (p >= 0) {
    int64_t *a = alloc_ints(cx, (size_t)p);
    if (!a) return OLG_ERR_NOMEM;
    for (int64_t i = 0; i < p; i++) a[i] = i;
    return olg__const_i64s(cx, a, (size_t)p, out);
  }
  if (olg__opset(cx) < 11)
    return olg_lower_unsupported(cx, "a scatter into dims whose sizes are not known", need_opset);
  olg_value in[3];
  OLG_TRY(olg__const_i64(cx, 0, &in[0]));
  OLG_TRY(dim_scalar(cx, data, 0, &in[1]));
  OLG_TRY(olg__const_i64(cx, 1, &in[2]));
  return olg__emit(cx, "Range", in, 3, out);
}

/* The compute type of the one-hot MatMul: float types as they are (float16 through float),
 * integers through double (exact up to 2^53). */
static olg_dtype matmul_type(olg_dtype t) {
  return t == OLG_FLOAT || t == OLG_DOUBLE ? t : olg__is_float(t) ? OLG_FLOAT : OLG_DOUBLE;
}

/* Scatter-9 (opsets 9, 10) takes numeric types only; ScatterElements-11 takes every type. */
static bool scatter9_type(olg_dtype t) { return t != OLG_BOOL && t != OLG_STRING && t != OLG_UNDEFINED; }

static olg_status scatter_rows(olg_lower *cx, olg_value data, olg_value lin, olg_value upd,
                               scatter_mode mode, int64_t p, olg_value *out) {
  int opset = olg__opset(cx);
  int32_t ur = olg__rank(cx, upd);
  if (ur < 1) return olg_lower_error(cx, OLG_ERR_UNSUPPORTED, "scatter: the updates' rank is not known");
  if (opset >= (mode == SCATTER_SET ? 11 : 16)) {
    olg_value idx;
    OLG_TRY(olg__emit_unsqueeze(cx, lin, (const int64_t[]){1}, 1, &idx));
    return olg__emit_scatter_nd(cx, data, idx, upd, scatter_reduction[mode], out);
  }
  if (mode == SCATTER_SET && opset >= 9 && scatter9_type(olg__dtype(cx, data))) {
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
    int64_t *map = alloc_ints(cx, (size_t)p);
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
  if (mode == SCATTER_MUL && opset < 9)
    return olg_lower_unsupported(cx, "a scatter that multiplies (Where)", 9);
  /* which[p, n]: update n writes row p */
  olg_value ar, col, row, which;
  OLG_TRY(row_range(cx, data, p, mode == SCATTER_SET ? 9 : 11, &ar));
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
    else OLG_TRY(dim_scalar(cx, data, 0, &pv));
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
  /* multiply: data * ReduceProd over n of Where(which, update n, 1) */
  olg_value wb = which, ue, one, w, prod;
  if (ur > 1) {
    int64_t axes[OLG_MAX_RANK];
    for (int32_t i = 0; i < ur - 1; i++) axes[i] = 2 + i;
    OLG_TRY(olg__emit_unsqueeze(cx, which, axes, (size_t)ur - 1, &wb));
  }
  OLG_TRY(olg__emit_unsqueeze(cx, upd, (const int64_t[]){0}, 1, &ue));
  OLG_TRY(olg__const_like(cx, data, 1, &one));
  OLG_TRY(olg__emit(cx, "Where", (const olg_value[]){wb, ue, one}, 3, &w));
  OLG_TRY(olg__emit_reduce(cx, OLG_REDUCE_PROD, w, (const int64_t[]){1}, 1, 0, &prod));
  return olg__emit2(cx, "Mul", data, prod, out);
}

/* x[mask] = v (or += v) with v broadcasting along the masked rows by itself: Where(mask, v, x).
 * *done is false when the shape of the case does not allow it. */
static olg_status index_put_where(olg_lower *cx, olg_value x, olg_value v, int accumulate,
                                  bool *done, olg_value *out) {
  const olg_value *vals;
  size_t n;
  *done = false;
  if (olg__opset(cx) < 9) return OLG_OK;
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
olg_status olg__sym_index_put(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, v, y;
  int accumulate;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg_lower_arg_value(cx, 2, &v));
  OLG_TRY(olg__arg_bool_or(cx, 3, 0, &accumulate));
  OLG_TRY(olg__emit_cast_like(cx, v, x, &v));
  bool done;
  OLG_TRY(index_put_where(cx, x, v, accumulate, &done, &y));
  if (done) return bind(cx, y);
  index_plan pl;
  OLG_TRY(plan_indices(cx, x, 1, &pl));
  if (pl.k == 0) { /* x[...] = v */
    olg_value shape;
    OLG_TRY(olg__shape(cx, x, &shape));
    if (accumulate) OLG_TRY(olg__emit2(cx, "Add", x, v, &y));
    else OLG_TRY(olg__emit_expand(cx, v, shape, &y));
    return bind(cx, y);
  }
  if (accumulate && olg__opset(cx) < 16)
    OLG_TRY(olg_lower_decompose(cx, "index_put with accumulate=True (ScatterND's reduction "
                                    "'add')", 16));
  olg_value lin, xt, flat, bshape, target, vt, vrows, rest, pieces[3], shape;
  int64_t rows, perm[OLG_MAX_RANK], vperm[OLG_MAX_RANK];
  OLG_TRY(linear_index(cx, x, &pl, &lin, &rows));
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
  OLG_TRY(scatter_rows(cx, flat, lin, vrows, accumulate ? SCATTER_ADD : SCATTER_SET, rows, &y));
  OLG_TRY(olg__shape(cx, xt, &shape));
  OLG_TRY(olg__emit_reshape(cx, y, shape, &y));
  int64_t inv[OLG_MAX_RANK];
  for (int32_t i = 0; i < pl.rank; i++) inv[perm[i]] = i;
  OLG_TRY(olg__emit_transpose(cx, y, inv, (size_t)pl.rank, &y));
  return bind(cx, y);
}

/* ------------------------------------------------------------------------------------------ */
/* gather, scatter, scatter_add */

/* For gather/scatter along axis with static shapes: the flat position in x (shape xd) of each
 * element of index (shape id): index * stride[axis] + the (constant) offset of its position. */
static olg_status elements_linear(olg_lower *cx, const int64_t *xd, const int64_t *id,
                                  int32_t r, int64_t axis, olg_value index, olg_value *out) {
  int64_t stride[OLG_MAX_RANK];
  uint64_t n;
  stride[r - 1] = 1;
  for (int32_t i = r - 2; i >= 0; i--) stride[i] = stride[i + 1] * xd[i + 1];
  for (int32_t i = 0; i < r; i++)
    if (i != axis && id[i] > xd[i])
      return olg__errf(cx, OLG_ERR_INVALID_ARG, "index dim %d (%lld) is larger than the input's "
                       "(%lld)", i, (long long)id[i], (long long)xd[i]);
  if (!olg__shape_numel(r, id, &n) || n > (1u << 24))
    return olg_lower_error(cx, OLG_ERR_LIMIT, "index too large for a static decomposition");
  int64_t *base = alloc_ints(cx, (size_t)n);
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

/* aten::gather(Tensor self, int dim, Tensor index, *, bool sparse_grad=False):
 * GatherElements (11); below, a Gather of the flattened input at positions computed from
 * static shapes. */
olg_status olg__sym_gather(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, idx, y;
  int32_t rank;
  int64_t axis;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg_lower_arg_value(cx, 2, &idx));
  OLG_TRY(input_rank(cx, x, &rank));
  if (rank == 0) return bind(cx, x);
  OLG_TRY(dim_arg(cx, 1, 0, rank, &axis));
  if (olg__opset(cx) >= 11) {
    olg_node_id nd;
    olg_dtype it = olg__dtype(cx, idx);
    if (it != OLG_INT64 && it != OLG_INT32) OLG_TRY(olg__emit_cast(cx, idx, OLG_INT64, &idx));
    OLG_TRY(olg_lower_emit_begin(cx, "", "GatherElements", &nd));
    OLG_TRY(olg_lower_emit_input(cx, nd, x));
    OLG_TRY(olg_lower_emit_input(cx, nd, idx));
    OLG_TRY(olg_lower_emit_attr_int(cx, nd, "axis", axis));
    OLG_TRY(olg_lower_emit_end(cx, nd, 1, &y));
    return bind(cx, y);
  }
  int64_t xd[OLG_MAX_RANK], id[OLG_MAX_RANK];
  int32_t xr, ir;
  if (!olg__static_shape(cx, x, xd, &xr) || !olg__static_shape(cx, idx, id, &ir) || ir != xr)
    return olg_lower_unsupported(cx, "gather of tensors whose shapes are not known "
                                     "(GatherElements)", 11);
  olg_value lin, flat;
  OLG_TRY(elements_linear(cx, xd, id, xr, axis, idx, &lin));
  OLG_TRY(olg__emit_reshape_static(cx, x, (const int64_t[]){-1}, 1, &flat));
  OLG_TRY(olg__emit_gather(cx, flat, lin, 0, &y));
  return bind(cx, y);
}

/* scatter / scatter_add: ScatterElements (Scatter-9; a reduction from 16); below, the flattened
 * row scatter of static shapes. */
static olg_status scatter_common(olg_lower *cx, olg_value x, int64_t axis, olg_value idx,
                                 olg_value upd, scatter_mode mode, olg_value *out) {
  int opset = olg__opset(cx);
  int native = mode == SCATTER_SET ? 9 : 16;
  OLG_TRY(olg__emit_cast_like(cx, upd, x, &upd));
  /* PyTorch reads src only where index reaches: cut src to index's shape */
  int64_t ud[OLG_MAX_RANK], id[OLG_MAX_RANK], xd[OLG_MAX_RANK];
  int32_t ur, ir, xr;
  bool ustat = olg__static_shape(cx, upd, ud, &ur), istat = olg__static_shape(cx, idx, id, &ir);
  if (!(ustat && istat && ur == ir && memcmp(ud, id, (size_t)ir * sizeof *id) == 0)) {
    int32_t r = olg__rank(cx, idx);
    if (r < 0 || r != olg__rank(cx, upd))
      return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "scatter: src and index differ in rank");
    int64_t zeros[OLG_MAX_RANK] = {0}, axes[OLG_MAX_RANK];
    for (int32_t i = 0; i < r; i++) axes[i] = i;
    if (istat) {
      OLG_TRY(olg__emit_slice(cx, upd, zeros, id, axes, NULL, (size_t)r, &upd));
    } else {
      olg_value s, e, a;
      OLG_TRY(olg__const_i64s(cx, zeros, (size_t)r, &s));
      OLG_TRY(olg__shape(cx, idx, &e));
      OLG_TRY(olg__const_i64s(cx, axes, (size_t)r, &a));
      OLG_TRY(olg__emit_slice_dyn(cx, upd, s, e, a, OLG_NO_VALUE, &upd));
    }
  }
  if (opset >= native && (opset >= 11 || scatter9_type(olg__dtype(cx, x))))
    return olg__emit_scatter_elements(cx, x, idx, upd, axis, scatter_reduction[mode], out);
  if (mode != SCATTER_SET)
    OLG_TRY(olg_lower_decompose(cx, mode == SCATTER_ADD ? "scatter with reduction 'add'"
                                                        : "scatter with reduction 'multiply'", 16));
  else if (opset >= native) /* a bool tensor at 9, 10 */
    OLG_TRY(olg_lower_decompose(cx, "scatter of a bool tensor (Scatter-9 takes numbers)", 11));
  if (!olg__static_shape(cx, x, xd, &xr) || !istat || ir != xr)
    return olg__unsupportedf(cx, native, "scatter%s of tensors whose shapes are not known",
                             mode == SCATTER_SET ? "" : " with a reduction");
  if (xr == 0) return olg_lower_unsupported(cx, "scatter into a 0-D tensor", -1);
  olg_value lin, flat, uflat, y;
  uint64_t p;
  if (!olg__shape_numel(xr, xd, &p)) return olg_lower_error(cx, OLG_ERR_LIMIT, "scatter: size overflows");
  OLG_TRY(elements_linear(cx, xd, id, xr, axis, idx, &lin));
  OLG_TRY(olg__emit_reshape_static(cx, lin, (const int64_t[]){-1}, 1, &lin));
  OLG_TRY(olg__emit_reshape_static(cx, x, (const int64_t[]){-1}, 1, &flat));
  OLG_TRY(olg__emit_reshape_static(cx, upd, (const int64_t[]){-1}, 1, &uflat));
  OLG_TRY(scatter_rows(cx, flat, lin, uflat, mode, (int64_t)p, &y));
  return olg__emit_reshape_static(cx, y, xd, (size_t)xr, out);
}

/* aten::scatter.src(Tensor self, int dim, Tensor index, Tensor src),
 * .value(self, dim, index, Scalar value), .reduce(self, dim, index, src, *, str reduce),
 * .value_reduce(self, dim, index, value, *, str reduce); reduce is 'add' or 'multiply'. */
olg_status olg__sym_scatter(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, idx, upd, y;
  int32_t rank;
  int64_t axis;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg_lower_arg_value(cx, 2, &idx));
  OLG_TRY(input_rank(cx, x, &rank));
  if (rank == 0) return olg_lower_unsupported(cx, "scatter into a 0-D tensor", -1);
  OLG_TRY(dim_arg(cx, 1, 0, rank, &axis));
  scatter_mode mode = SCATTER_SET;
  if (!olg_lower_arg_is_none(cx, 4)) {
    const char *red;
    OLG_TRY(olg_lower_arg_string(cx, 4, &red));
    if (strcmp(red, "add") == 0) mode = SCATTER_ADD;
    else if (strcmp(red, "multiply") == 0) mode = SCATTER_MUL;
    else return olg__errf(cx, OLG_ERR_INVALID_ARG, "scatter: unknown reduce '%s'", red);
  }
  bool is_src = olg_lower_arg_kind(cx, 3) == OLG_ARGKIND_VALUE;
  if (is_src) {
    OLG_TRY(olg_lower_arg_value(cx, 3, &upd));
    is_src = olg__rank(cx, upd) == olg__rank(cx, idx) && olg__rank(cx, idx) > 0;
  }
  if (!is_src) { /* a Scalar: one value for every index */
    olg_value s, shape;
    olg_dtype t = olg__dtype(cx, x);
    if (olg_lower_arg_kind(cx, 3) == OLG_ARGKIND_VALUE) {
      OLG_TRY(olg_lower_arg_value(cx, 3, &s));
      OLG_TRY(olg__emit_cast(cx, s, t, &s));
      OLG_TRY(olg__emit_reshape_static(cx, s, NULL, 0, &s));
    } else {
      double v;
      OLG_TRY(olg_lower_arg_float(cx, 3, &v));
      OLG_TRY(olg__const_scalar(cx, t, v, &s));
    }
    OLG_TRY(olg__shape(cx, idx, &shape));
    OLG_TRY(olg__emit_expand(cx, s, shape, &upd));
  }
  OLG_TRY(scatter_common(cx, x, axis, idx, upd, mode, &y));
  return bind(cx, y);
}

/* aten::scatter_add(Tensor self, int dim, Tensor index, Tensor src) */
olg_status olg__sym_scatter_add(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, idx, upd, y;
  int32_t rank;
  int64_t axis;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg_lower_arg_value(cx, 2, &idx));
  OLG_TRY(olg_lower_arg_value(cx, 3, &upd));
  OLG_TRY(input_rank(cx, x, &rank));
  if (rank == 0) return olg_lower_unsupported(cx, "scatter_add into a 0-D tensor", -1);
  OLG_TRY(dim_arg(cx, 1, 0, rank, &axis));
  OLG_TRY(scatter_common(cx, x, axis, idx, upd, SCATTER_ADD, &y));
  return bind(cx, y);
}

/* ------------------------------------------------------------------------------------------ */
/* nonzero, meshgrid, tril, triu, one_hot */

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
  return bind(cx, y);
}

/* aten::meshgrid(Tensor[] tensors), aten::meshgrid.indexing(Tensor[] tensors, *, str indexing):
 * 'ij' (the default) or 'xy' (the first two dims swapped). */
olg_status olg__sym_meshgrid(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  const olg_value *vals;
  size_t n;
  const char *indexing;
  OLG_TRY(olg_lower_arg_values(cx, 0, &vals, &n));
  OLG_TRY(olg__arg_string_or(cx, 1, "ij", &indexing));
  if (strcmp(indexing, "ij") && strcmp(indexing, "xy"))
    return olg__errf(cx, OLG_ERR_INVALID_ARG, "meshgrid: unknown indexing '%s'", indexing);
  if (!n || n > OLG_MAX_RANK) return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "meshgrid: bad tensor count");
  size_t pos[OLG_MAX_RANK];
  for (size_t i = 0; i < n; i++) pos[i] = i;
  if (strcmp(indexing, "xy") == 0 && n >= 2) {
    pos[0] = 1;
    pos[1] = 0;
  }
  olg_value pieces[OLG_MAX_RANK], shape;
  for (size_t i = 0; i < n; i++) {
    int32_t r = olg__rank(cx, vals[i]);
    if (r > 1 || r < 0) return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "meshgrid takes 0-D or 1-D tensors");
    if (r == 0) OLG_TRY(olg__const_i64s(cx, (const int64_t[]){1}, 1, &pieces[pos[i]]));
    else OLG_TRY(olg__dim_tensor(cx, vals[i], 0, &pieces[pos[i]]));
  }
  OLG_TRY(olg__concat_ints(cx, pieces, n, &shape));
  for (size_t i = 0; i < n; i++) {
    int64_t dims[OLG_MAX_RANK];
    olg_value y;
    for (size_t j = 0; j < n; j++) dims[j] = j == pos[i] ? -1 : 1;
    OLG_TRY(olg__emit_reshape_static(cx, vals[i], dims, n, &y));
    OLG_TRY(olg__emit_expand(cx, y, shape, &y));
    OLG_TRY(olg_lower_bind_output(cx, i, y));
  }
  return OLG_OK;
}

static bool keep_tri(int64_t i, int64_t j, int64_t k, int upper) {
  return upper ? j - i >= k : j - i <= k;
}

/* tril / triu: Trilu (14); below, a static mask with Where (9), or (7, 8) a Gather from the
 * last two dims flattened and padded with one zero; sizes not known need Range (11). */
static olg_status trilu(olg_lower *cx, int upper) {
  olg_value x, y;
  int32_t rank;
  int64_t k;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(input_rank(cx, x, &rank));
  OLG_TRY(olg__arg_int_or(cx, 1, 0, &k));
  if (rank < 2) return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "tril/triu need at least 2 dims");
  int opset = olg__opset(cx);
  if (opset >= 14) {
    olg_value kv;
    olg_node_id nd;
    OLG_TRY(olg__const_i64(cx, k, &kv));
    OLG_TRY(olg_lower_emit_begin(cx, "", "Trilu", &nd));
    OLG_TRY(olg_lower_emit_input(cx, nd, x));
    OLG_TRY(olg_lower_emit_input(cx, nd, kv));
    OLG_TRY(olg_lower_emit_attr_int(cx, nd, "upper", upper));
    OLG_TRY(olg_lower_emit_end(cx, nd, 1, &y));
    return bind(cx, y);
  }
  int64_t rows = olg__dim(cx, x, rank - 2), cols = olg__dim(cx, x, rank - 1);
  olg_value zero, mask;
  if (rows < 0 || cols < 0) {
    if (opset < 11)
      return olg_lower_unsupported(cx, "tril/triu of a matrix whose size is not known (Range)", 11);
    olg_value in[3], ri, ci, diff, kv;
    OLG_TRY(olg__const_i64(cx, 0, &in[0]));
    OLG_TRY(olg__const_i64(cx, 1, &in[2]));
    OLG_TRY(dim_scalar(cx, x, rank - 2, &in[1]));
    OLG_TRY(olg__emit(cx, "Range", in, 3, &ri));
    OLG_TRY(olg__emit_unsqueeze(cx, ri, (const int64_t[]){1}, 1, &ri));
    OLG_TRY(dim_scalar(cx, x, rank - 1, &in[1]));
    OLG_TRY(olg__emit(cx, "Range", in, 3, &ci));
    OLG_TRY(olg__emit2(cx, "Sub", ci, ri, &diff)); /* [rows, cols]: j - i */
    OLG_TRY(olg__const_i64(cx, upper ? k - 1 : k + 1, &kv));
    OLG_TRY(olg__emit2(cx, upper ? "Greater" : "Less", diff, kv, &mask));
  } else if (opset >= 9) {
    uint8_t *m = olg__lower_alloc(cx, (size_t)(rows * cols) + 1);
    if (!m) return OLG_ERR_NOMEM;
    for (int64_t i = 0; i < rows; i++)
      for (int64_t j = 0; j < cols; j++) m[i * cols + j] = keep_tri(i, j, k, upper);
    int64_t dims[2] = {rows, cols};
    OLG_TRY(olg__const_tensor_kept(cx, OLG_BOOL, 2, dims, m, (size_t)(rows * cols), &mask));
  } else {
    /* [..., rows * cols + 1] with a zero last; map each position to itself or to the zero */
    int64_t lead[OLG_MAX_RANK + 1], n = rows * cols, xd[OLG_MAX_RANK];
    int32_t xr;
    for (int32_t i = 0; i < rank - 2; i++) lead[i] = 0; /* copies the dim */
    lead[rank - 2] = n;
    olg_value flat, padded, mv;
    OLG_TRY(olg__emit_reshape_static(cx, x, lead, (size_t)rank - 1, &flat));
    if (olg__static_shape(cx, x, xd, &xr)) { /* a zero column by Concat: any dtype */
      olg_value both[2], zshape;
      xd[rank - 2] = 1;
      both[0] = flat;
      OLG_TRY(olg__const_i64s(cx, xd, (size_t)rank - 1, &zshape));
      OLG_TRY(olg__emit_full(cx, zshape, olg__dtype(cx, x), 0, &both[1]));
      OLG_TRY(olg__emit_concat(cx, both, 2, rank - 2, &padded));
    } else {
      int64_t pads[2 * OLG_MAX_RANK] = {0};
      pads[2 * (rank - 1) - 1] = 1;
      OLG_TRY(olg__emit_pad(cx, flat, "constant", pads, 2 * ((size_t)rank - 1), 0, &padded));
    }
    int64_t *map = alloc_ints(cx, (size_t)n);
    if (!map) return OLG_ERR_NOMEM;
    for (int64_t p = 0; p < n; p++) map[p] = keep_tri(p / cols, p % cols, k, upper) ? p : n;
    OLG_TRY(olg__const_i64s(cx, map, (size_t)n, &mv));
    OLG_TRY(olg__emit_gather(cx, padded, mv, rank - 2, &y));
    lead[rank - 2] = rows;
    lead[rank - 1] = cols;
    OLG_TRY(olg__emit_reshape_static(cx, y, lead, (size_t)rank, &y));
    return bind(cx, y);
  }
  OLG_TRY(olg__const_like(cx, x, 0, &zero));
  OLG_TRY(olg__emit(cx, "Where", (const olg_value[]){mask, x, zero}, 3, &y));
  return bind(cx, y);
}

/* aten::tril(Tensor self, int diagonal=0) */
olg_status olg__sym_tril(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return trilu(cx, 0);
}

/* aten::triu(Tensor self, int diagonal=0) */
olg_status olg__sym_triu(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return trilu(cx, 1);
}

/* aten::one_hot(Tensor self, int num_classes=-1): int64 output. OneHot (9); below, Equal with
 * the class numbers. num_classes -1 means max + 1, read at run time unless known. */
olg_status olg__sym_one_hot(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
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
  int opset = olg__opset(cx);
  if (c < 0) {
    if (opset < 9)
      return olg_lower_unsupported(cx, "one_hot with num_classes=-1 of indices computed at run "
                                       "time (OneHot)", 9);
    olg_value one;
    OLG_TRY(olg__emit_reduce(cx, OLG_REDUCE_MAX, x, NULL, 0, 1, &depth));
    OLG_TRY(olg__emit_reshape_static(cx, depth, (const int64_t[]){1}, 1, &depth));
    OLG_TRY(olg__const_i64s(cx, (const int64_t[]){1}, 1, &one));
    OLG_TRY(olg__emit2(cx, "Add", depth, one, &depth));
  }
  if (opset >= 9) {
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
    return bind(cx, y);
  }
  int64_t *classes = alloc_ints(cx, (size_t)c);
  if (!classes) return OLG_ERR_NOMEM;
  for (int64_t i = 0; i < c; i++) classes[i] = i;
  olg_value cv, xe;
  OLG_TRY(olg__const_i64s(cx, classes, (size_t)c, &cv));
  int64_t last = rank;
  OLG_TRY(olg__emit_unsqueeze(cx, x, &last, 1, &xe));
  OLG_TRY(olg__emit2(cx, "Equal", xe, cv, &y));
  OLG_TRY(olg__emit_cast(cx, y, OLG_INT64, &y));
  return bind(cx, y);
}

/* ------------------------------------------------------------------------------------------ */
/* pad, constant_pad_nd */

/* PyTorch's pad list (pairs for the last dim first; negative crops) applied to x in mode
 * "constant", "reflect", "replicate" or "circular". Cropping is done first by Slice (the same
 * as PyTorch, where a dim is cropped on one side and padded on the other at most), so the Pad
 * has only non-negative pads. */
static olg_status pad_common(olg_lower *cx, olg_value x, const int64_t *p, size_t np,
                             const char *mode, double value, olg_value *out) {
  int32_t rank;
  OLG_TRY(input_rank(cx, x, &rank));
  if (np % 2 || np / 2 > (size_t)rank)
    return olg__errf(cx, OLG_ERR_INVALID_ARG, "pad: %zu values for a tensor of rank %d", np, rank);
  int64_t begin[OLG_MAX_RANK] = {0}, end[OLG_MAX_RANK] = {0};
  for (size_t i = 0; i < np / 2; i++) {
    begin[rank - 1 - (int32_t)i] = p[2 * i];
    end[rank - 1 - (int32_t)i] = p[2 * i + 1];
  }
  int64_t cs[OLG_MAX_RANK], ce[OLG_MAX_RANK], ca[OLG_MAX_RANK];
  size_t nc = 0;
  for (int32_t d = 0; d < rank; d++) {
    if (begin[d] >= 0 && end[d] >= 0) continue;
    cs[nc] = begin[d] < 0 ? -begin[d] : 0;
    ce[nc] = end[d] < 0 ? end[d] : INT64_MAX;
    ca[nc++] = d;
    if (begin[d] < 0) begin[d] = 0;
    if (end[d] < 0) end[d] = 0;
  }
  olg_value y = x;
  if (nc) OLG_TRY(olg__emit_slice(cx, x, cs, ce, ca, NULL, nc, &y));
  bool any = false;
  for (int32_t d = 0; d < rank; d++) any = any || begin[d] || end[d];
  if (!any) return (*out = y, OLG_OK);
  const char *onnx_mode;
  if (strcmp(mode, "constant") == 0) onnx_mode = "constant";
  else if (strcmp(mode, "reflect") == 0) onnx_mode = "reflect";
  else if (strcmp(mode, "replicate") == 0) onnx_mode = "edge";
  else if (strcmp(mode, "circular") == 0) onnx_mode = "wrap";
  else return olg__errf(cx, OLG_ERR_INVALID_ARG, "pad: unknown mode '%s'", mode);
  if (strcmp(onnx_mode, "wrap") == 0 && olg__opset(cx) < 19) {
    /* circular: the last `begin` elements before, the first `end` after, dim by dim */
    OLG_TRY(olg_lower_decompose(cx, "pad with mode 'circular' (Pad's 'wrap')", 19));
    for (int32_t d = 0; d < rank; d++) {
      olg_value parts[3];
      size_t n = 0;
      int64_t a = d;
      if (begin[d]) {
        int64_t s = -begin[d], e = INT64_MAX;
        OLG_TRY(olg__emit_slice(cx, y, &s, &e, &a, NULL, 1, &parts[n++]));
      }
      if (!begin[d] && !end[d]) continue;
      parts[n++] = y;
      if (end[d]) {
        int64_t s = 0, e = end[d];
        OLG_TRY(olg__emit_slice(cx, y, &s, &e, &a, NULL, 1, &parts[n++]));
      }
      OLG_TRY(olg__emit_concat(cx, parts, n, d, &y));
    }
    return (*out = y, OLG_OK);
  }
  int64_t pads[2 * OLG_MAX_RANK];
  for (int32_t d = 0; d < rank; d++) {
    pads[d] = begin[d];
    pads[rank + d] = end[d];
  }
  return olg__emit_pad(cx, y, onnx_mode, pads, 2 * (size_t)rank, value, out);
}

/* The pad amounts of argument i computed at run time (a list of ints some of which are tensors):
 * Pad takes them as an input from 11, where ONNX's negative amounts crop as PyTorch's do. */
static olg_status pad_dynamic(olg_lower *cx, olg_value x, size_t i, const char *mode,
                              double value, olg_value *out) {
  const olg_value *vals;
  size_t n;
  int32_t rank;
  OLG_TRY(input_rank(cx, x, &rank));
  OLG_TRY(olg_lower_arg_values(cx, i, &vals, &n));
  if (n % 2 || n / 2 > (size_t)rank)
    return olg__errf(cx, OLG_ERR_INVALID_ARG, "pad: %zu values for a tensor of rank %d", n, rank);
  const char *onnx_mode = strcmp(mode, "replicate") == 0  ? "edge"
                          : strcmp(mode, "circular") == 0 ? "wrap"
                                                          : mode;
  if (strcmp(onnx_mode, "constant") && strcmp(onnx_mode, "reflect") && strcmp(onnx_mode, "edge") &&
      strcmp(onnx_mode, "wrap"))
    return olg__errf(cx, OLG_ERR_INVALID_ARG, "pad: unknown mode '%s'", mode);
  if (olg__opset(cx) < 11)
    return olg_lower_unsupported(cx, "pad with amounts computed at run time (Pad's pads input)", 11);
  olg_value pieces[2 * OLG_MAX_RANK], pads, zero, v = OLG_NO_VALUE;
  OLG_TRY(olg__const_i64s(cx, (const int64_t[]){0}, 1, &zero));
  for (int32_t d = 0; d < 2 * rank; d++) pieces[d] = zero;
  for (size_t j = 0; j < n; j++) { /* pairs for the last dim first: (begin, end) */
    int32_t d = rank - 1 - (int32_t)(j / 2);
    olg_value item = vals[j];
    if (item == OLG_NO_VALUE) return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "pad: an amount is none");
    OLG_TRY(olg__emit_cast(cx, item, OLG_INT64, &item));
    OLG_TRY(olg__emit_reshape_static(cx, item, (const int64_t[]){1}, 1, &item));
    pieces[j % 2 ? rank + d : d] = item;
  }
  OLG_TRY(olg__concat_ints(cx, pieces, 2 * (size_t)rank, &pads));
  if (value != 0) OLG_TRY(olg__const_like(cx, x, value, &v));
  return olg__emit_pad_dyn(cx, x, onnx_mode, pads, v, out);
}

/* pad / constant_pad_nd with their pad list at argument 1. */
static olg_status pad_arg(olg_lower *cx, olg_value x, const char *mode, double value,
                          olg_value *out) {
  if (olg_lower_arg_kind(cx, 1) == OLG_ARGKIND_VALUES && !olg__arg_values_known(cx, 1))
    return pad_dynamic(cx, x, 1, mode, value, out);
  const int64_t *p;
  size_t n;
  OLG_TRY(olg_lower_arg_ints(cx, 1, &p, &n));
  return pad_common(cx, x, p, n, mode, value, out);
}

/* aten::pad(Tensor self, int[] pad, str mode="constant", float? value=None) */
olg_status olg__sym_pad(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, y;
  const char *mode;
  double value;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg__arg_string_or(cx, 2, "constant", &mode));
  OLG_TRY(olg__arg_float_or(cx, 3, 0, &value));
  OLG_TRY(pad_arg(cx, x, mode, value, &y));
  return bind(cx, y);
}

/* aten::constant_pad_nd(Tensor self, int[] pad, Scalar value=0) */
olg_status olg__sym_constant_pad_nd(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, y;
  double value;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg__arg_float_or(cx, 2, 0, &value));
  OLG_TRY(pad_arg(cx, x, "constant", value, &y));
  return bind(cx, y);
}
