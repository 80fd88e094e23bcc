/* onnxlegal — scatters: aten scatter, scatter_add and scatter_reduce, ONNX Scatter /
 * ScatterElements / ScatterND. Below the target's native scatter (or its reduction) a scatter
 * becomes a row scatter of static shapes (emit_index.c): ScatterND, Scatter-9 with the row index
 * repeated along each row, a Gather from Concat(data, updates) with a map of which row each output
 * row takes, or for a reduction a one-hot [P, N] mask of which update writes which row (a MatMul
 * for add; Where and a reduction over N for mul, max, min). */
#include <string.h>

#include "emit_index.h"
#include "emit_math.h"
#include "symbolics.h"

/* What a decomposition of each mode's reduction is called in diagnostics */
static const char *const reduction_what[] = {"scatter", "scatter with reduction 'add'",
                                             "scatter with reduction 'mul'",
                                             "scatter with reduction 'max'",
                                             "scatter with reduction 'min'"};

/* scatter / scatter_add / scatter_reduce: ScatterElements (Scatter-9; a reduction from 16 or 18);
 * below, the flattened row scatter of static shapes. */
static olg_status scatter_common(olg_lower *cx, ix_caps c, olg_value x, int64_t axis, olg_value idx,
                                 olg_value upd, scatter_mode mode, olg_value *out) {
  int native = mode == SCATTER_SET ? 9 : olg__ix_mode_opset(mode);
  bool has_native = mode == SCATTER_SET ? c.where_nonzero : olg__ix_native(c, mode);
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
  if (has_native && (c.scatter_nd || olg__ix_scatter9_type(olg__dtype(cx, x))))
    return olg__emit_scatter_elements(cx, x, idx, upd, axis, olg__ix_reduction[mode], out);
  if (mode != SCATTER_SET)
    OLG_TRY(olg_lower_decompose(cx, reduction_what[mode], native));
  else if (has_native) /* a bool tensor at 9, 10 */
    OLG_TRY(olg_lower_decompose(cx, "scatter of a bool tensor (Scatter-9 takes numbers)", 11));
  if (!olg__static_shape(cx, x, xd, &xr) || !istat || ir != xr)
    return olg__unsupportedf(cx, native, "scatter%s of tensors whose shapes are not known",
                             mode == SCATTER_SET ? "" : " with a reduction");
  if (xr == 0) return olg_lower_unsupported(cx, "scatter into a 0-D tensor", -1);
  olg_value lin, flat, uflat, y;
  uint64_t p;
  if (!olg__shape_numel(xr, xd, &p)) return olg_lower_error(cx, OLG_ERR_LIMIT, "scatter: size overflows");
  OLG_TRY(olg__ix_elements_linear(cx, xd, id, xr, axis, idx, &lin));
  OLG_TRY(olg__emit_reshape_static(cx, lin, (const int64_t[]){-1}, 1, &lin));
  OLG_TRY(olg__emit_reshape_static(cx, x, (const int64_t[]){-1}, 1, &flat));
  OLG_TRY(olg__emit_reshape_static(cx, upd, (const int64_t[]){-1}, 1, &uflat));
  OLG_TRY(olg__ix_scatter_rows(cx, c, flat, lin, uflat, mode, (int64_t)p, &y));
  return olg__emit_reshape_static(cx, y, xd, (size_t)xr, out);
}

/* aten::scatter.src(Tensor self, int dim, Tensor index, Tensor src),
 * .value(self, dim, index, Scalar value), .reduce(self, dim, index, src, *, str reduce),
 * .value_reduce(self, dim, index, value, *, str reduce); reduce is 'add' or 'multiply'. */
static olg_status scatter(olg_lower *cx, ix_caps c) {
  olg_value x, idx, upd, y;
  int32_t rank;
  int64_t axis;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg_lower_arg_value(cx, 2, &idx));
  OLG_TRY(olg__input_rank(cx, x, &rank));
  if (rank == 0) return olg_lower_unsupported(cx, "scatter into a 0-D tensor", -1);
  OLG_TRY(olg__dim_arg(cx, 1, 0, rank, &axis));
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
  OLG_TRY(scatter_common(cx, c, x, axis, idx, upd, mode, &y));
  return olg__ix_bind(cx, y);
}

olg_status olg__sym_scatter(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return scatter(cx, olg__ix_target(cx));
}

/* aten::scatter_add(Tensor self, int dim, Tensor index, Tensor src) */
static olg_status scatter_add(olg_lower *cx, ix_caps c) {
  olg_value x, idx, upd, y;
  int32_t rank;
  int64_t axis;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg_lower_arg_value(cx, 2, &idx));
  OLG_TRY(olg_lower_arg_value(cx, 3, &upd));
  OLG_TRY(olg__input_rank(cx, x, &rank));
  if (rank == 0) return olg_lower_unsupported(cx, "scatter_add into a 0-D tensor", -1);
  OLG_TRY(olg__dim_arg(cx, 1, 0, rank, &axis));
  OLG_TRY(scatter_common(cx, c, x, axis, idx, upd, SCATTER_ADD, &y));
  return olg__ix_bind(cx, y);
}

olg_status olg__sym_scatter_add(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return scatter_add(cx, olg__ix_target(cx));
}

/* A tensor of idx's shape filled with v, of x's dtype */
static olg_status fill_like_index(olg_lower *cx, olg_value x, olg_value idx, double v, olg_value *out) {
  olg_value s, shape;
  OLG_TRY(olg__const_like(cx, x, v, &s));
  OLG_TRY(olg__shape(cx, idx, &shape));
  return olg__emit_expand(cx, s, shape, out);
}

/* aten::scatter_reduce.two(Tensor self, int dim, Tensor index, Tensor src, str reduce, *,
 * bool include_self=True); reduce sum, prod, mean, amax, amin: the scatter of that reduction.
 * include_self=False: the positions index reaches first set (a plain scatter) to the updates
 * (amax, amin: whichever duplicate lands, the reduction takes them all) or to the reduction's
 * identity (sum, prod), then reduced as with it. mean: that sum over the count of the values it
 * took (one for self, if included), floor-divided for integers as PyTorch does. */
static olg_status scatter_reduce(olg_lower *cx, ix_caps c) {
  static const char *const names[] = {"sum", "prod", "amax", "amin", "mean"};
  static const scatter_mode modes[] = {SCATTER_ADD, SCATTER_MUL, SCATTER_MAX, SCATTER_MIN, SCATTER_ADD};
  olg_value x, idx, upd, base, y;
  int32_t rank;
  int64_t axis;
  const char *red;
  int include_self;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg_lower_arg_value(cx, 2, &idx));
  OLG_TRY(olg_lower_arg_value(cx, 3, &upd));
  OLG_TRY(olg_lower_arg_string(cx, 4, &red));
  OLG_TRY(olg__arg_bool_or(cx, 5, 1, &include_self));
  OLG_TRY(olg__input_rank(cx, x, &rank));
  if (rank == 0) return olg_lower_unsupported(cx, "scatter_reduce into a 0-D tensor", -1);
  OLG_TRY(olg__dim_arg(cx, 1, 0, rank, &axis));
  size_t k = 0;
  while (k < sizeof names / sizeof *names && strcmp(red, names[k]) != 0) k++;
  if (k == sizeof names / sizeof *names)
    return olg__errf(cx, OLG_ERR_INVALID_ARG, "scatter_reduce: unknown reduce '%s'", red);
  scatter_mode mode = modes[k];
  bool mean = k == 4;
  olg_dtype t = olg__dtype(cx, x);
  if (t == OLG_BOOL) return olg_lower_unsupported(cx, "scatter_reduce of bool", -1);
  OLG_TRY(olg__emit_cast_like(cx, upd, x, &upd));
  base = x;
  if (!include_self) {
    olg_value fill = upd;
    if (mode == SCATTER_ADD || mode == SCATTER_MUL)
      OLG_TRY(fill_like_index(cx, x, idx, mode == SCATTER_ADD ? 0 : 1, &fill));
    OLG_TRY(scatter_common(cx, c, x, axis, idx, fill, SCATTER_SET, &base));
  }
  OLG_TRY(scatter_common(cx, c, base, axis, idx, upd, mode, &y));
  if (mean) {
    olg_value one, shape, ones, count, cbase;
    OLG_TRY(olg__const_like(cx, x, 1, &one));
    OLG_TRY(olg__shape(cx, x, &shape));
    OLG_TRY(olg__emit_expand(cx, one, shape, &cbase));
    if (!include_self) {
      olg_value zeros;
      OLG_TRY(fill_like_index(cx, x, idx, 0, &zeros));
      OLG_TRY(scatter_common(cx, c, cbase, axis, idx, zeros, SCATTER_SET, &cbase));
    }
    OLG_TRY(fill_like_index(cx, x, idx, 1, &ones));
    OLG_TRY(scatter_common(cx, c, cbase, axis, idx, ones, SCATTER_ADD, &count));
    if (olg__is_float(t)) OLG_TRY(olg__emit2(cx, "Div", y, count, &y));
    else OLG_TRY(olg__emit_floor_div(cx, olg__target_has(cx, "Mod"), t, y, count, &y));
  }
  return olg__ix_bind(cx, y);
}

olg_status olg__sym_scatter_reduce(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return scatter_reduce(cx, olg__ix_target(cx));
}

/* ONNX Scatter (9) / ScatterElements (11) and ScatterND (11): aten scatter's and index_put's
 * meaning. Reductions below their opset ('add'/'mul' 16, 'max'/'min' 18) as row scatters. ScatterND's rows: data as [prod(d0..dk-1), rest], the linear row of
 * each index tuple from the dims known at export time (non-negative indices). */
static olg_status onnx_scatter(olg_lower *cx, olg_node_id src, void *ud, ix_caps c) {
  bool nd = strcmp(olg_lower_node_op(cx), "ScatterND") == 0;
  olg_value x, idx, upd, y;
  for (size_t i = 0; i < 3; i++) OLG_TRY(olg_lower_arg_value(cx, i, i == 0 ? &x : i == 1 ? &idx : &upd));
  const char *red = olg__src_attr_string(cx, "reduction", "none");
  scatter_mode mode = SCATTER_SET;
  while (strcmp(red, olg__ix_reduction[mode]) != 0)
    if (++mode > SCATTER_MIN)
      return olg__errf(cx, OLG_ERR_INVALID_MODEL, "%s: unknown reduction '%s'", olg_lower_node_op(cx), red);
  if (!nd) {
    int32_t rank;
    int64_t axis = olg__src_attr_int(cx, "axis", 0);
    OLG_TRY(olg__input_rank(cx, x, &rank));
    if (rank > 0 && axis < 0) axis += rank;
    /* negative indices count from the end from ScatterElements-11; below it, wrapped here */
    if (!c.scatter_nd && rank > 0) OLG_TRY(olg__ix_wrap_index(cx, c, x, axis, idx, &idx));
    OLG_TRY(scatter_common(cx, c, x, axis, idx, upd, mode, &y));
    return olg__ix_bind(cx, y);
  }
  if (olg__ix_native(c, mode)) return olg__sym_onnx_passthrough(cx, src, ud);
  int64_t xd[OLG_MAX_RANK], rows = 1, k = olg__dim(cx, idx, -1);
  int32_t xr;
  if (!olg__static_shape(cx, x, xd, &xr) || k < 1 || k > xr)
    return olg__unsupportedf(cx, olg__ix_mode_opset(mode), "ScatterND%s of data whose shape "
                             "(or an index tuple's length) is not known at export time",
                             mode == SCATTER_SET ? "" : " with a reduction");
  OLG_TRY(olg_lower_decompose(cx, "ScatterND as a row scatter", olg__ix_mode_opset(mode)));
  olg_value lin = OLG_NO_VALUE, flat, uflat, shape;
  for (int64_t j = k - 1, stride = 1; j >= 0; stride *= xd[j--]) {
    olg_value col, s;
    OLG_TRY(olg__const_i64(cx, j, &col));
    OLG_TRY(olg__emit_gather(cx, idx, col, olg__rank(cx, idx) - 1, &col));
    OLG_TRY(olg__ix_wrap_index(cx, c, x, j, col, &col)); /* a negative index counts from the end */
    OLG_TRY(olg__const_i64(cx, stride, &s));
    OLG_TRY(olg__emit2(cx, "Mul", col, s, &col));
    if (lin == OLG_NO_VALUE) lin = col;
    else OLG_TRY(olg__emit2(cx, "Add", lin, col, &lin));
  }
  for (int64_t j = 0; j < k; j++) rows *= xd[j];
  int64_t fdims[OLG_MAX_RANK + 1] = {rows}, udims[OLG_MAX_RANK + 1] = {-1};
  for (int32_t j = (int32_t)k; j < xr; j++) fdims[1 + j - k] = udims[1 + j - k] = xd[j];
  OLG_TRY(olg__emit_reshape_static(cx, lin, (const int64_t[]){-1}, 1, &lin));
  OLG_TRY(olg__emit_reshape_static(cx, x, fdims, (size_t)(1 + xr - k), &flat));
  OLG_TRY(olg__emit_reshape_static(cx, upd, udims, (size_t)(1 + xr - k), &uflat));
  OLG_TRY(olg__ix_scatter_rows(cx, c, flat, lin, uflat, mode, rows, &y));
  OLG_TRY(olg__const_i64s(cx, xd, (size_t)xr, &shape));
  OLG_TRY(olg__emit_reshape(cx, y, shape, &y));
  return olg__ix_bind(cx, y);
}

olg_status olg__sym_onnx_scatter(olg_lower *cx, olg_node_id src, void *ud) {
    return onnx_scatter(cx, src, ud, olg__ix_target(cx));
}
