/* onnxlegal — rearranging a tensor's elements: unflatten, repeat, tile, flip, roll, split,
 * split_with_sizes, chunk, unbind, meshgrid, tril, triu, pad, constant_pad_nd (the basics are in
 * shape.c, advanced indexing in index.c). Arguments as in PyTorch 1.13's schemas. */
#include <string.h>

#include "emit.h"
#include "emit_math.h"
#include "symbolics.h"


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
  OLG_TRY(olg__input_rank(cx, x, &rank));
  OLG_TRY(olg__dim_arg(cx, 1, 0, rank, &d));
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
  OLG_TRY(olg__input_rank(cx, x, &rank));
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
static olg_status flip(olg_lower *cx, bool slice_steps) {
  olg_value x, y;
  int32_t rank;
  const int64_t *dl;
  size_t n;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg__input_rank(cx, x, &rank));
  OLG_TRY(olg_lower_arg_ints(cx, 1, &dl, &n));
  if (n > (size_t)rank) return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "flip: too many dims");
  int64_t axes[OLG_MAX_RANK], starts[OLG_MAX_RANK], ends[OLG_MAX_RANK], steps[OLG_MAX_RANK];
  for (size_t i = 0; i < n; i++) {
    OLG_TRY(olg__norm_dim(cx, dl[i], rank, &axes[i]));
    starts[i] = -1;
    ends[i] = INT64_MIN; /* clamped to "before the first" */
    steps[i] = -1;
  }
  if (!n) return bind(cx, x);
  if (slice_steps) {
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

/* Slice with step -1 (10: Slice's steps input); before, a Gather of reversed indices per dim */
olg_status olg__sym_flip(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return flip(cx, olg__target_has_input(cx, "Slice", "steps"));
}

/* ONNX ReverseSequence (10) below 10: the first lens[b] steps of each batch entry reversed. x
 * flattened to [T * B, rest] rows (time and batch axes 0 and 1, either way round, T and B known),
 * each output row gathers row src(t, b) of the same batch entry, src = t < len ? len - 1 - t : t
 * (compares and olg__emit_where; a Gather pick below 9). */
olg_status olg__sym_onnx_reverse_sequence(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, lens, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg_lower_arg_value(cx, 1, &lens));
  int64_t ta = olg__src_attr_int(cx, "time_axis", 0), ba = olg__src_attr_int(cx, "batch_axis", 1);
  int32_t rank = olg__rank(cx, x);
  if (!((ta == 0 && ba == 1) || (ta == 1 && ba == 0)))
    return olg_lower_error(cx, OLG_ERR_INVALID_MODEL, "ReverseSequence: time_axis and batch_axis must be 0 and 1");
  int64_t t = rank >= 2 ? olg__dim(cx, x, (int32_t)ta) : -1, b = rank >= 2 ? olg__dim(cx, x, (int32_t)ba) : -1;
  if (t < 0 || b < 0)
    return olg_lower_unsupported(cx, "ReverseSequence of an input whose time and batch sizes are not known", 10);
  if (t > (1 << 24) || b > (1 << 24) || t * b > (1 << 24))
    return olg_lower_error(cx, OLG_ERR_LIMIT, "ReverseSequence: too many steps for the decomposition");
  OLG_TRY(olg_lower_decompose(cx, "ReverseSequence as a Gather of rows", 10));
  int64_t *tp = alloc_ints(cx, (size_t)t), *bp = alloc_ints(cx, (size_t)b);
  if (!tp || !bp) return OLG_ERR_NOMEM;
  for (int64_t i = 0; i < t; i++) tp[i] = i;
  for (int64_t i = 0; i < b; i++) bp[i] = i;
  /* [T, 1] and [1, B] when time is axis 0; [1, T] and [B, 1] otherwise */
  int64_t tdims[2] = {ta == 0 ? t : 1, ta == 0 ? 1 : t}, bdims[2] = {ta == 0 ? 1 : b, ta == 0 ? b : 1};
  olg_value tv, bv, len, one, inside, rev, srcv, lin, stride, flat, shape;
  OLG_TRY(olg__const_tensor_kept(cx, OLG_INT64, 2, tdims, tp, (size_t)t * sizeof *tp, &tv));
  OLG_TRY(olg__const_tensor_kept(cx, OLG_INT64, 2, bdims, bp, (size_t)b * sizeof *bp, &bv));
  OLG_TRY(olg__emit_cast(cx, lens, OLG_INT64, &len));
  OLG_TRY(olg__emit_reshape_static(cx, len, bdims, 2, &len));
  OLG_TRY(olg__const_i64(cx, 1, &one));
  OLG_TRY(olg__emit_compare(cx, OLG_CMP_LT, tv, len, &inside));
  OLG_TRY(olg__emit2(cx, "Sub", len, one, &rev));
  OLG_TRY(olg__emit2(cx, "Sub", rev, tv, &rev));
  OLG_TRY(olg__emit_where(cx, inside, rev, tv, &srcv));
  /* the row of (src, b) in the flattened [T*B] or [B*T] order */
  OLG_TRY(olg__const_i64(cx, ta == 0 ? b : t, &stride));
  OLG_TRY(olg__emit2(cx, "Mul", ta == 0 ? srcv : bv, stride, &lin));
  OLG_TRY(olg__emit2(cx, "Add", lin, ta == 0 ? bv : srcv, &lin));
  OLG_TRY(olg__emit_reshape_static(cx, lin, (const int64_t[]){-1}, 1, &lin));
  OLG_TRY(olg__emit_reshape_static(cx, x, (const int64_t[]){t * b, -1}, 2, &flat)); /* any dtype */
  OLG_TRY(olg__emit_gather(cx, flat, lin, 0, &y));
  OLG_TRY(olg__shape(cx, x, &shape));
  OLG_TRY(olg__emit_reshape(cx, y, shape, &y));
  return bind(cx, y);
}

/* x rolled by `shift` along axis: Concat(the last s elements, the others), s = shift mod size. A
 * size not known at export time is read at run time (Mod-10, Slice-10). */
static olg_status roll_one(olg_lower *cx, bool dyn_slice, olg_value x, int64_t shift,
                           int64_t axis, olg_value *out) {
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
  if (!dyn_slice)
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
static olg_status roll(olg_lower *cx, bool dyn_slice) {
  olg_value x, y;
  int32_t rank;
  const int64_t *sh, *dl;
  size_t ns, nd;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg__input_rank(cx, x, &rank));
  OLG_TRY(olg_lower_arg_ints(cx, 1, &sh, &ns));
  OLG_TRY(olg__arg_ints_or_empty(cx, 2, &dl, &nd));
  if (!nd) {
    if (ns != 1) return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "roll: one shift without dims");
    olg_value flat, shape;
    OLG_TRY(olg__emit_reshape_static(cx, x, (const int64_t[]){-1}, 1, &flat));
    OLG_TRY(roll_one(cx, dyn_slice, flat, sh[0], 0, &y));
    OLG_TRY(olg__shape(cx, x, &shape));
    OLG_TRY(olg__emit_reshape(cx, y, shape, &y));
    return bind(cx, y);
  }
  if (ns != nd) return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "roll: shifts and dims differ in length");
  y = x;
  for (size_t i = 0; i < nd; i++) {
    int64_t d = 0;
    OLG_TRY(olg__norm_dim(cx, dl[i], rank, &d));
    OLG_TRY(roll_one(cx, dyn_slice, y, sh[i], d, &y));
  }
  return bind(cx, y);
}

/* a dim whose size is not known needs Mod-10 and Slice-10 (starts/ends as inputs) */
olg_status olg__sym_roll(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return roll(cx, olg__target_has(cx, "Mod") && olg__target_has_input(cx, "Slice", "starts"));
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
  olg_value *outs = olg__lower_values(cx, NULL, 0, n);
  if (!outs) return OLG_ERR_NOMEM;
  OLG_TRY(olg__emit_split(cx, x, axis, sizes, n, outs));
  return bind_all(cx, outs, n);
}

/* n parts of `step` elements along axis (the last part takes the rest), by Slice; step a known
 * int or a 1-element tensor computed at run time. */
static olg_status split_by_slices(olg_lower *cx, olg_value x, int64_t axis, int64_t step,
                                  olg_value step_v, size_t n) {
  olg_value *outs = olg__lower_values(cx, NULL, 0, n);
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
  size_t n = size == 0 ? 1 : (size_t)(size / step + (size % step != 0)); /* no size + step */
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
  OLG_TRY(olg__input_rank(cx, x, &rank));
  OLG_TRY(olg__dim_arg(cx, 2, 0, rank, &axis));
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
static olg_status chunk(olg_lower *cx, bool dyn_slice) {
  olg_value x;
  int32_t rank;
  int64_t axis, chunks;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg__input_rank(cx, x, &rank));
  OLG_TRY(olg_lower_arg_int(cx, 1, &chunks));
  OLG_TRY(olg__dim_arg(cx, 2, 0, rank, &axis));
  if (chunks <= 0) return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "chunk: chunks must be positive");
  int64_t size = olg__dim(cx, x, (int32_t)axis);
  /* ceil(size / chunks), without size + chunks - 1 (past int64 for a huge chunks) */
  if (size >= 0) return split_even(cx, x, axis, size ? size / chunks + (size % chunks != 0) : 1);
  if (!dyn_slice)
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

/* a dim whose size is not known needs Slice-10 (starts/ends as inputs) */
olg_status olg__sym_chunk(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return chunk(cx, olg__target_has_input(cx, "Slice", "starts"));
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
  OLG_TRY(olg__input_rank(cx, x, &rank));
  OLG_TRY(olg_lower_arg_ints(cx, 1, &sizes, &n));
  OLG_TRY(olg__dim_arg(cx, 2, 0, rank, &axis));
  return split_by_sizes(cx, x, axis, sizes, n);
}

/* aten::unbind.int(Tensor self, int dim=0): Split into parts of 1, each squeezed. */
olg_status olg__sym_unbind(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x;
  int32_t rank;
  int64_t axis;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg__input_rank(cx, x, &rank));
  OLG_TRY(olg__dim_arg(cx, 1, 0, rank, &axis));
  size_t n = olg_lower_output_count(cx);
  int64_t size = olg__dim(cx, x, (int32_t)axis);
  if (size >= 0 && (size_t)size != n)
    return olg__errf(cx, OLG_ERR_INVALID_ARG, "unbind of a dim of %lld into %zu outputs",
                     (long long)size, n);
  olg_value *outs = olg__lower_values(cx, NULL, 0, n);
  int64_t *ones = alloc_ints(cx, n);
  if (!outs || !ones) return OLG_ERR_NOMEM;
  for (size_t i = 0; i < n; i++) ones[i] = 1;
  if (n == 1) outs[0] = x;
  else OLG_TRY(olg__emit_split(cx, x, axis, ones, n, outs));
  for (size_t i = 0; i < n; i++) OLG_TRY(olg__emit_squeeze(cx, outs[i], &axis, 1, &outs[i]));
  return bind_all(cx, outs, n);
}

/* ------------------------------------------------------------------------------------------ */
/* meshgrid, tril, triu */

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

/* What the target offers tril / triu: Where (9), Range (11), Trilu (14). */
typedef struct trilu_caps {
  bool where, range, trilu;
  olg_value kdyn; /* ONNX Trilu's k computed at run time (a 0-D int64), else OLG_NO_VALUE */
} trilu_caps;

/* tril / triu: Trilu; else a static mask with Where, or (no Where) a Gather from the last two
 * dims flattened and padded with one zero; sizes not known need Range. */
static olg_status trilu_dyn(olg_lower *cx, olg_value x, int32_t rank, olg_value kv, int upper,
                           trilu_caps c);

/* The target's trilu_caps, k known at conversion time. */
/* A static mask or index map of rows x cols elements is made at conversion time only up to
 * 2^24 of them (128 MiB of int64); past that (or past INT64_MAX) the Range form is the one. */
#define TRILU_STATIC_MAX ((int64_t)1 << 24)
static bool trilu_static(int64_t rows, int64_t cols) {
  int64_t n;
  return rows >= 0 && cols >= 0 && !__builtin_mul_overflow(rows, cols, &n) && n <= TRILU_STATIC_MAX;
}

static trilu_caps trilu_target(const olg_lower *cx) {
  return (trilu_caps){olg__target_has(cx, "Where"), olg__target_has(cx, "Range"),
                      olg__target_has(cx, "Trilu"), OLG_NO_VALUE};
}

static olg_status trilu(olg_lower *cx, int upper, trilu_caps c) {
  olg_value x, y;
  int32_t rank;
  int64_t k;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg__input_rank(cx, x, &rank));
  if (rank < 2) return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "tril/triu need at least 2 dims");
  if (c.kdyn != OLG_NO_VALUE) return trilu_dyn(cx, x, rank, c.kdyn, upper, c);
  OLG_TRY(olg__arg_int_or(cx, 1, 0, &k));
  if (c.trilu) {
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
  if (!trilu_static(rows, cols)) {
    if (!c.range)
      return olg_lower_unsupported(cx, "tril/triu of a matrix whose size is not known or over 2^24 "
                                       "elements (Range)", 11);
    olg_value in[3], ri, ci, diff, kv;
    OLG_TRY(olg__const_i64(cx, 0, &in[0]));
    OLG_TRY(olg__const_i64(cx, 1, &in[2]));
    OLG_TRY(dim_scalar(cx, x, rank - 2, &in[1]));
    OLG_TRY(olg__emit(cx, "Range", in, 3, &ri));
    OLG_TRY(olg__emit_unsqueeze(cx, ri, (const int64_t[]){1}, 1, &ri));
    OLG_TRY(dim_scalar(cx, x, rank - 1, &in[1]));
    OLG_TRY(olg__emit(cx, "Range", in, 3, &ci));
    OLG_TRY(olg__emit2(cx, "Sub", ci, ri, &diff)); /* [rows, cols]: j - i */
    /* j - i lies within +-2^62 (dims are below it): k clamped there, k -+ 1 cannot overflow */
    int64_t kc = k < -((int64_t)1 << 62) ? -((int64_t)1 << 62) : k > ((int64_t)1 << 62) ? ((int64_t)1 << 62) : k;
    OLG_TRY(olg__const_i64(cx, upper ? kc - 1 : kc + 1, &kv));
    OLG_TRY(olg__emit2(cx, upper ? "Greater" : "Less", diff, kv, &mask));
  } else if (c.where) {
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

/* tril/triu with k a 0-D (or 1-element) int64 computed at run time: the kept positions are
 * those with j - i <= k (tril) or >= k (triu), a mask compared at run time. From 9 Where of that
 * mask; at 7-8 (no Where, Greater/Less on floats only) the Gather of the static form with its
 * index map computed: position p where kept, else the appended zero (exact for inf/NaN). */
static olg_status trilu_dyn(olg_lower *cx, olg_value x, int32_t rank, olg_value kv, int upper,
                           trilu_caps c) {
  if (c.trilu) {
    olg_value y;
    olg_node_id nd;
    OLG_TRY(olg_lower_emit_begin(cx, "", "Trilu", &nd));
    OLG_TRY(olg_lower_emit_input(cx, nd, x));
    OLG_TRY(olg_lower_emit_input(cx, nd, kv));
    OLG_TRY(olg_lower_emit_attr_int(cx, nd, "upper", upper));
    OLG_TRY(olg_lower_emit_end(cx, nd, 1, &y));
    return bind(cx, y);
  }
  int64_t rows = olg__dim(cx, x, rank - 2), cols = olg__dim(cx, x, rank - 1);
  olg_value diff, drop, y, zero;
  if (!trilu_static(rows, cols)) {
    if (!c.range)
      return olg_lower_unsupported(cx, "Trilu with k computed at run time of a matrix whose size is not known or over 2^24 elements (Range)", 11);
    olg_value in[3], ri, ci;
    OLG_TRY(olg__const_i64(cx, 0, &in[0]));
    OLG_TRY(olg__const_i64(cx, 1, &in[2]));
    OLG_TRY(dim_scalar(cx, x, rank - 2, &in[1]));
    OLG_TRY(olg__emit(cx, "Range", in, 3, &ri));
    OLG_TRY(olg__emit_unsqueeze(cx, ri, (const int64_t[]){1}, 1, &ri));
    OLG_TRY(dim_scalar(cx, x, rank - 1, &in[1]));
    OLG_TRY(olg__emit(cx, "Range", in, 3, &ci));
    OLG_TRY(olg__emit2(cx, "Sub", ci, ri, &diff)); /* [rows, cols]: j - i */
  } else {
    int64_t n = rows * cols, dims[2] = {rows, cols};
    int64_t *d = alloc_ints(cx, (size_t)n);
    if (!d) return OLG_ERR_NOMEM;
    for (int64_t p = 0; p < n; p++) d[p] = p % cols - p / cols;
    if (c.where) {
      OLG_TRY(olg__const_tensor_kept(cx, OLG_INT64, 2, dims, d, (size_t)n * sizeof *d, &diff));
    } else {
      float *f = olg__lower_alloc(cx, (size_t)(n ? n : 1) * sizeof *f);
      if (!f) return OLG_ERR_NOMEM;
      for (int64_t p = 0; p < n; p++) f[p] = (float)d[p];
      OLG_TRY(olg__const_f32s(cx, f, (size_t)n, &diff)); /* flat: [rows * cols] */
      OLG_TRY(olg__emit_cast(cx, kv, OLG_FLOAT, &kv));
    }
  }
  /* drop = j - i > k (tril) or j - i < k (triu) */
  OLG_TRY(olg__emit2(cx, upper ? "Less" : "Greater", diff, kv, &drop));
  if (c.where) {
    OLG_TRY(olg__const_like(cx, x, 0, &zero));
    OLG_TRY(olg__emit(cx, "Where", (const olg_value[]){drop, zero, x}, 3, &y));
    return bind(cx, y);
  }
  /* [..., rows * cols + 1] with a zero last; map = p + drop * (n - p) */
  int64_t lead[OLG_MAX_RANK + 1], n = rows * cols, xd[OLG_MAX_RANK];
  int32_t xr;
  for (int32_t i = 0; i < rank - 2; i++) lead[i] = 0; /* copies the dim */
  lead[rank - 2] = n;
  olg_value flat, padded, pos, gap, map;
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
  int64_t *pv = alloc_ints(cx, (size_t)n), *gv = alloc_ints(cx, (size_t)n);
  if (!pv || !gv) return OLG_ERR_NOMEM;
  for (int64_t p = 0; p < n; p++) {
    pv[p] = p;
    gv[p] = n - p;
  }
  OLG_TRY(olg__const_i64s(cx, pv, (size_t)n, &pos));
  OLG_TRY(olg__const_i64s(cx, gv, (size_t)n, &gap));
  OLG_TRY(olg__emit_cast(cx, drop, OLG_INT64, &drop));
  OLG_TRY(olg__emit2(cx, "Mul", drop, gap, &map));
  OLG_TRY(olg__emit2(cx, "Add", map, pos, &map));
  OLG_TRY(olg__emit_gather(cx, padded, map, rank - 2, &y));
  lead[rank - 2] = rows;
  lead[rank - 1] = cols;
  OLG_TRY(olg__emit_reshape_static(cx, y, lead, (size_t)rank, &y));
  return bind(cx, y);
}

/* aten::tril(Tensor self, int diagonal=0), aten::triu(Tensor self, int diagonal=0): below 9 a
 * Gather; Where-9 a static mask; Range-11 a mask computed at run time; Trilu-14 */
olg_status olg__sym_tril(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return trilu(cx, 0, trilu_target(cx));
}

olg_status olg__sym_triu(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return trilu(cx, 1, trilu_target(cx));
}

/* ONNX Trilu (14) below 14: the same lowering as tril/triu, for a k known at conversion time
 * (upper from the attribute); at 7, 8 a Gather, from 9 a mask with Where, from 11 Range. */
static olg_status onnx_trilu(olg_lower *cx, trilu_caps c) {
  if (!olg_lower_arg_is_none(cx, 1)) {
    olg_value kv;
    OLG_TRY(olg_lower_arg_value(cx, 1, &kv));
    if (!olg_lower_value_known(cx, kv)) c.kdyn = kv;
  }
  return trilu(cx, (int)olg__src_attr_int(cx, "upper", 1), c);
}

olg_status olg__sym_onnx_trilu(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return onnx_trilu(cx, trilu_target(cx));
}

/* ------------------------------------------------------------------------------------------ */
/* pad, constant_pad_nd */

/* PyTorch's pad list (pairs for the last dim first; negative crops) applied to x in mode
 * "constant", "reflect", "replicate" or "circular". Cropping is done first by Slice (the same
 * as PyTorch, where a dim is cropped on one side and padded on the other at most), so the Pad
 * has only non-negative pads. */
static olg_status pad_common(olg_lower *cx, olg_value x, const int64_t *p,
                             size_t np, const char *mode, double value, olg_value *out) {
  int32_t rank;
  OLG_TRY(olg__input_rank(cx, x, &rank));
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
    if (begin[d] == INT64_MIN) /* a crop of 2^63: not negated */
      return olg__errf(cx, OLG_ERR_INVALID_ARG, "pad: a pad of %lld", (long long)begin[d]);
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
  int64_t pads[2 * OLG_MAX_RANK];
  for (int32_t d = 0; d < rank; d++) {
    pads[d] = begin[d];
    pads[rank + d] = end[d];
  }
  if (strcmp(onnx_mode, "wrap") == 0) /* circular: every pad is at most its dim */
    return olg__emit_pad_wrap(cx, y, pads, 2 * (size_t)rank, true, out);
  return olg__emit_pad(cx, y, onnx_mode, pads, 2 * (size_t)rank, value, out);
}

/* The pad amounts of argument i computed at run time (a list of ints some of which are tensors):
 * Pad takes them as an input from 11, where ONNX's negative amounts crop as PyTorch's do; below,
 * Gathers of computed indices (olg__emit_pad_dyn, from 9). */
static olg_status pad_dynamic(olg_lower *cx, olg_value x, size_t i,
                              const char *mode, double value, olg_value *out) {
  const olg_value *vals;
  size_t n;
  int32_t rank;
  OLG_TRY(olg__input_rank(cx, x, &rank));
  OLG_TRY(olg_lower_arg_values(cx, i, &vals, &n));
  if (n % 2 || n / 2 > (size_t)rank)
    return olg__errf(cx, OLG_ERR_INVALID_ARG, "pad: %zu values for a tensor of rank %d", n, rank);
  const char *onnx_mode = strcmp(mode, "replicate") == 0  ? "edge"
                          : strcmp(mode, "circular") == 0 ? "wrap"
                                                          : mode;
  if (strcmp(onnx_mode, "constant") && strcmp(onnx_mode, "reflect") && strcmp(onnx_mode, "edge") &&
      strcmp(onnx_mode, "wrap"))
    return olg__errf(cx, OLG_ERR_INVALID_ARG, "pad: unknown mode '%s'", mode);
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
static olg_status pad_arg(olg_lower *cx, olg_value x, const char *mode,
                          double value, olg_value *out) {
  if (olg_lower_arg_kind(cx, 1) == OLG_ARGKIND_VALUES && !olg__arg_values_known(cx, 1))
    return pad_dynamic(cx, x, 1, mode, value, out);
  const int64_t *p;
  size_t n;
  OLG_TRY(olg_lower_arg_ints(cx, 1, &p, &n));
  return pad_common(cx, x, p, n, mode, value, out);
}

/* aten::pad(Tensor self, int[] pad, str mode="constant", float? value=None) */
static olg_status pad(olg_lower *cx) {
  olg_value x, y;
  const char *mode;
  double value;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg__arg_string_or(cx, 2, "constant", &mode));
  OLG_TRY(olg__arg_float_or(cx, 3, 0, &value));
  OLG_TRY(pad_arg(cx, x, mode, value, &y));
  return bind(cx, y);
}

/* amounts computed at run time: Pad-11's pads input, Gathers below (from 9); circular is Pad-19's
 * 'wrap', before it Slice and Concat (olg__emit_pad_wrap) */
olg_status olg__sym_pad(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return pad(cx);
}

/* aten::constant_pad_nd(Tensor self, int[] pad, Scalar value=0) */
static olg_status constant_pad_nd(olg_lower *cx) {
  olg_value x, y;
  double value;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg__arg_float_or(cx, 2, 0, &value));
  OLG_TRY(pad_arg(cx, x, "constant", value, &y));
  return bind(cx, y);
}

olg_status olg__sym_constant_pad_nd(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return constant_pad_nd(cx);
}

