/* onnxlegal — the opset-aware emit helpers (symbolics/emit.h) and the context calls built on
 * them (olg_lower_emit_const*, olg_lower_arg_as_tensor).
 *
 * Each helper knows how every opset from 7 to 27 encodes one meaning; the opset numbers below
 * are the since-versions of the operator changelog (onnx-spec/Changelog.md). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "emit.h"

int olg__opset(const olg_lower *cx) { return (int)olg_lower_opset(cx); }

int64_t olg__norm_axis(int64_t axis, int64_t rank) {
  if (rank < 0) return -1;
  if (axis < 0) axis += rank;
  return axis >= 0 && axis < rank ? axis : -1;
}

bool olg__is_float(olg_dtype t) {
  return t == OLG_FLOAT || t == OLG_DOUBLE || t == OLG_FLOAT16 || t == OLG_BFLOAT16;
}

/* ------------------------------------------------------------------------------------------ */
/* Arguments */

olg_status olg__arg_int_or(olg_lower *cx, size_t i, int64_t dflt, int64_t *out) {
  if (olg_lower_arg_is_none(cx, i)) {
    *out = dflt;
    return OLG_OK;
  }
  return olg_lower_arg_int(cx, i, out);
}

olg_status olg__arg_float_or(olg_lower *cx, size_t i, double dflt, double *out) {
  if (olg_lower_arg_is_none(cx, i)) {
    *out = dflt;
    return OLG_OK;
  }
  return olg_lower_arg_float(cx, i, out);
}

olg_status olg__arg_bool_or(olg_lower *cx, size_t i, int dflt, int *out) {
  if (olg_lower_arg_is_none(cx, i)) {
    *out = dflt;
    return OLG_OK;
  }
  return olg_lower_arg_bool(cx, i, out);
}

olg_status olg__arg_string_or(olg_lower *cx, size_t i, const char *dflt, const char **out) {
  if (olg_lower_arg_is_none(cx, i)) {
    *out = dflt;
    return OLG_OK;
  }
  return olg_lower_arg_string(cx, i, out);
}

olg_status olg__arg_ints_or_empty(olg_lower *cx, size_t i, const int64_t **p, size_t *n) {
  if (olg_lower_arg_is_none(cx, i)) {
    *p = NULL;
    *n = 0;
    return OLG_OK;
  }
  return olg_lower_arg_ints(cx, i, p, n);
}

olg_status olg__arg_value_or_none(olg_lower *cx, size_t i, olg_value *out) {
  if (olg_lower_arg_is_none(cx, i)) {
    *out = OLG_NO_VALUE;
    return OLG_OK;
  }
  return olg_lower_arg_value(cx, i, out);
}

olg_dtype olg__dtype_from_torch(int64_t st) {
  switch (st) {
  case 0: return OLG_UINT8;
  case 1: return OLG_INT8;
  case 2: return OLG_INT16;
  case 3: return OLG_INT32;
  case 4: return OLG_INT64;
  case 5: return OLG_FLOAT16;
  case 6: return OLG_FLOAT;
  case 7: return OLG_DOUBLE;
  case 9: return OLG_COMPLEX64;
  case 10: return OLG_COMPLEX128;
  case 11: return OLG_BOOL;
  case 15: return OLG_BFLOAT16;
  default: return OLG_UNDEFINED;
  }
}

int64_t olg__dtype_to_torch(olg_dtype t) {
  for (int64_t st = 0; st <= 15; st++)
    if (olg__dtype_from_torch(st) == t && t != OLG_UNDEFINED) return st;
  return -1;
}

olg_status olg__arg_scalar_type_or(olg_lower *cx, size_t i, olg_dtype dflt, olg_dtype *out) {
  if (olg_lower_arg_is_none(cx, i)) {
    *out = dflt;
    return OLG_OK;
  }
  int64_t st;
  OLG_TRY(olg_lower_arg_int(cx, i, &st));
  olg_dtype t = olg__dtype_from_torch(st);
  if (t == OLG_UNDEFINED)
    return olg__errf(cx, OLG_ERR_TYPE, "argument %zu: PyTorch dtype %lld has no ONNX type", i,
                     (long long)st);
  *out = t;
  return OLG_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* Generic emission */

olg_status olg__emit_n(olg_lower *cx, const char *op, const olg_value *in, size_t n_in,
                       size_t n_out, olg_value *outs) {
  olg_node_id n;
  OLG_TRY(olg_lower_emit_begin(cx, "", op, &n));
  for (size_t i = 0; i < n_in; i++) OLG_TRY(olg_lower_emit_input(cx, n, in[i]));
  return olg_lower_emit_end(cx, n, n_out, outs);
}

olg_status olg__emit(olg_lower *cx, const char *op, const olg_value *in, size_t n_in,
                     olg_value *out) {
  return olg__emit_n(cx, op, in, n_in, 1, out);
}

olg_status olg__emit1(olg_lower *cx, const char *op, olg_value x, olg_value *out) {
  return olg__emit(cx, op, &x, 1, out);
}

olg_status olg__emit2(olg_lower *cx, const char *op, olg_value a, olg_value b, olg_value *out) {
  olg_value in[2] = {a, b};
  return olg__emit(cx, op, in, 2, out);
}

/* ------------------------------------------------------------------------------------------ */
/* Constants */

static uint16_t float_to_half(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000, e = (x >> 23) & 0xff, m = x & 0x7fffff;
  if (e == 0xff) return (uint16_t)(sign | 0x7c00 | (m ? 0x200 : 0));
  int32_t he = (int32_t)e - 127 + 15;
  if (he >= 31) return (uint16_t)(sign | 0x7c00);
  if (he <= 0) {
    if (he < -10) return (uint16_t)sign;
    m |= 0x800000;
    uint32_t shift = (uint32_t)(14 - he);
    uint32_t hm = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (hm & 1))) hm++;
    return (uint16_t)(sign | hm);
  }
  uint32_t hm = m >> 13, rem = m & 0x1fff;
  uint32_t h = sign | ((uint32_t)he << 10) | hm;
  if (rem > 0x1000 || (rem == 0x1000 && (hm & 1))) h++; /* may carry into the exponent: right */
  return (uint16_t)h;
}

static uint16_t float_to_bf16(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  if ((x & 0x7fffffff) > 0x7f800000) return (uint16_t)((x >> 16) | 0x40);
  x += 0x7fff + ((x >> 16) & 1);
  return (uint16_t)(x >> 16);
}

/* Writes v as one element of dtype t at p; false for a dtype it cannot write. */
static bool put_scalar(olg_dtype t, double v, void *p) {
  switch (t) {
  case OLG_FLOAT: { float f = (float)v; memcpy(p, &f, 4); return true; }
  case OLG_DOUBLE: memcpy(p, &v, 8); return true;
  case OLG_FLOAT16: { uint16_t h = float_to_half((float)v); memcpy(p, &h, 2); return true; }
  case OLG_BFLOAT16: { uint16_t h = float_to_bf16((float)v); memcpy(p, &h, 2); return true; }
  case OLG_BOOL: *(uint8_t *)p = v != 0; return true;
  case OLG_INT8: *(int8_t *)p = (int8_t)v; return true;
  case OLG_UINT8: *(uint8_t *)p = (uint8_t)v; return true;
  case OLG_INT16: { int16_t x = (int16_t)v; memcpy(p, &x, 2); return true; }
  case OLG_UINT16: { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); return true; }
  case OLG_INT32: { int32_t x = (int32_t)v; memcpy(p, &x, 4); return true; }
  case OLG_UINT32: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); return true; }
  case OLG_INT64: { int64_t x = (int64_t)v; memcpy(p, &x, 8); return true; }
  case OLG_UINT64: { uint64_t x = (uint64_t)v; memcpy(p, &x, 8); return true; }
  default: return false;
  }
}

static olg_status const_tensor(olg_lower *cx, olg_dtype dtype, int32_t rank, const int64_t *dims,
                               const void *data, size_t nbytes, olg_data_mode mode,
                               olg_value *out) {
  if (olg__opset(cx) < 9 && dtype != OLG_FLOAT && dtype != OLG_DOUBLE && dtype != OLG_FLOAT16)
    return olg__lower_initializer(cx, dtype, rank, dims, data, nbytes, mode, out); /* Constant-1 */
  olg_node_id n;
  OLG_TRY(olg_lower_emit_begin(cx, "", "Constant", &n));
  if (mode == OLG_DATA_COPY) {
    OLG_TRY(olg_lower_emit_attr_tensor(cx, n, "value", dtype, rank, dims, data, nbytes));
  } else {
    olg_attr a = {.name = "value", .type = OLG_ATTR_TENSOR};
    OLG_TRY(olg__tensor_new(olg_lower_target(cx)->model, NULL, dtype, rank, dims, data, nbytes,
                            OLG_DATA_BORROW, NULL, NULL, &a.t));
    OLG_TRY(olg__node_add_attr(olg_lower_target(cx), n, &a));
  }
  OLG_TRY(olg_lower_emit_end(cx, n, 1, out));
  /* the contents are known whatever inference does with a Constant */
  olg_graph *g = olg_lower_target(cx);
  olg_value_rec *r = &g->values[*out];
  if (!r->known) r->known = g->nodes[n].attrs[0].t;
  return OLG_OK;
}

olg_status olg__const_tensor(olg_lower *cx, olg_dtype dtype, int32_t rank, const int64_t *dims,
                             const void *data, size_t nbytes, olg_value *out) {
  return const_tensor(cx, dtype, rank, dims, data, nbytes, OLG_DATA_COPY, out);
}

olg_status olg__const_tensor_kept(olg_lower *cx, olg_dtype dtype, int32_t rank,
                                  const int64_t *dims, const void *data, size_t nbytes,
                                  olg_value *out) {
  return const_tensor(cx, dtype, rank, dims, data, nbytes, OLG_DATA_BORROW, out);
}

OLG_API olg_status olg_lower_emit_const(olg_lower *cx, olg_dtype dtype, int32_t rank,
                                        const int64_t *dims, const void *data, size_t nbytes,
                                        olg_value *out) {
  if (!cx || !out) return olg__err(OLG_ERR_INVALID_ARG, "olg_lower_emit_const: NULL argument");
  return olg__const_tensor(cx, dtype, rank, dims, data, nbytes, out);
}

olg_status olg__const_i64s(olg_lower *cx, const int64_t *v, size_t n, olg_value *out) {
  int64_t dims[1] = {(int64_t)n};
  return olg__const_tensor(cx, OLG_INT64, 1, dims, v, n * sizeof *v, out);
}

OLG_API olg_status olg_lower_emit_const_ints(olg_lower *cx, const int64_t *v, size_t n,
                                             olg_value *out) {
  if (!cx || !out || (n && !v))
    return olg__err(OLG_ERR_INVALID_ARG, "olg_lower_emit_const_ints: NULL argument");
  return olg__const_i64s(cx, v, n, out);
}

olg_status olg__const_i64(olg_lower *cx, int64_t v, olg_value *out) {
  return olg__const_tensor(cx, OLG_INT64, 0, NULL, &v, sizeof v, out);
}

olg_status olg__const_f32s(olg_lower *cx, const float *v, size_t n, olg_value *out) {
  int64_t dims[1] = {(int64_t)n};
  return olg__const_tensor(cx, OLG_FLOAT, 1, dims, v, n * sizeof *v, out);
}

olg_status olg__const_scalar(olg_lower *cx, olg_dtype dtype, double v, olg_value *out) {
  unsigned char buf[8];
  if (!put_scalar(dtype, v, buf))
    return olg__errf(cx, OLG_ERR_TYPE, "cannot make a %s constant", olg_dtype_name(dtype));
  return olg__const_tensor(cx, dtype, 0, NULL, buf, olg_dtype_nbytes(dtype, 1), out);
}

olg_status olg__const_like(olg_lower *cx, olg_value x, double v, olg_value *out) {
  olg_dtype t = olg__dtype(cx, x);
  return olg__const_scalar(cx, t == OLG_UNDEFINED ? OLG_FLOAT : t, v, out);
}

/* ------------------------------------------------------------------------------------------ */
/* Shapes as tensors */

olg_status olg__shape_range(olg_lower *cx, olg_value x, int64_t start, int64_t end,
                            olg_value *out) {
  int32_t rank = olg__rank(cx, x);
  if (rank >= 0) { /* normalize as Shape-15 does, then try the static answer */
    if (start < 0) start += rank;
    if (end < 0) end += rank;
    if (start < 0) start = 0;
    if (end > rank) end = rank;
    if (start > rank) start = rank;
    if (end < start) end = start;
    int64_t dims[OLG_MAX_RANK];
    bool known = rank <= OLG_MAX_RANK;
    for (int64_t i = start; known && i < end; i++) known = (dims[i - start] = olg__dim(cx, x, (int32_t)i)) >= 0;
    if (known) return olg__const_i64s(cx, dims, (size_t)(end - start), out);
  }
  bool whole = start == 0 && (end == INT64_MAX || (rank >= 0 && end >= rank));
  if (whole || olg__opset(cx) >= 15) {
    olg_node_id n;
    OLG_TRY(olg_lower_emit_begin(cx, "", "Shape", &n));
    OLG_TRY(olg_lower_emit_input(cx, n, x));
    if (!whole && start != 0) OLG_TRY(olg_lower_emit_attr_int(cx, n, "start", start));
    if (!whole && end != INT64_MAX) OLG_TRY(olg_lower_emit_attr_int(cx, n, "end", end));
    return olg_lower_emit_end(cx, n, 1, out);
  }
  olg_value shape;
  OLG_TRY(olg__emit1(cx, "Shape", x, &shape));
  return olg__emit_slice(cx, shape, &start, &end, NULL, NULL, 1, out);
}

olg_status olg__shape(olg_lower *cx, olg_value x, olg_value *out) {
  return olg__shape_range(cx, x, 0, INT64_MAX, out);
}

olg_status olg__dim_tensor(olg_lower *cx, olg_value x, int64_t axis, olg_value *out) {
  int32_t rank = olg__rank(cx, x);
  if (rank >= 0) {
    int64_t a = olg__norm_axis(axis, rank);
    if (a < 0) return olg__errf(cx, OLG_ERR_RANGE, "dim %lld out of range for rank %d", (long long)axis, rank);
    axis = a;
  }
  return olg__shape_range(cx, x, axis, axis == -1 ? INT64_MAX : axis + 1, out);
}

olg_status olg__concat_ints(olg_lower *cx, const olg_value *pieces, size_t n, olg_value *out) {
  if (n == 1) {
    *out = pieces[0];
    return OLG_OK;
  }
  size_t total = 0;
  bool known = true;
  for (size_t i = 0; i < n && known; i++) {
    const int64_t *p;
    size_t k;
    known = olg__known_ints(cx, pieces[i], &p, &k);
    total += k;
  }
  if (known) {
    int64_t *all = olg__lower_alloc(cx, (total ? total : 1) * sizeof *all);
    if (!all) return OLG_ERR_NOMEM;
    size_t at = 0;
    for (size_t i = 0; i < n; i++) {
      const int64_t *p;
      size_t k;
      olg__known_ints(cx, pieces[i], &p, &k);
      memcpy(all + at, p, k * sizeof *p);
      at += k;
    }
    return olg__const_i64s(cx, all, total, out);
  }
  return olg__emit_concat(cx, pieces, n, 0, out);
}

/* ------------------------------------------------------------------------------------------ */
/* Opset-aware encoders */

/* axes normalized against rank (when known); false when an axis is out of range, or negative
 * with the rank unknown and need_nonneg. */
static bool norm_axes(const int64_t *axes, size_t n, int64_t rank, bool need_nonneg, int64_t *out) {
  for (size_t i = 0; i < n; i++) {
    int64_t a = axes[i];
    if (rank >= 0) {
      a = olg__norm_axis(a, rank);
      if (a < 0) return false;
    } else if (a < 0 && need_nonneg) {
      return false;
    }
    out[i] = a;
  }
  return true;
}

static olg_status axes_error(olg_lower *cx, const char *op, const int64_t *axes, size_t n,
                             int64_t rank) {
  char buf[256];
  int k = snprintf(buf, sizeof buf, "%s: axes [", op);
  for (size_t i = 0; i < n && k < (int)sizeof buf - 24; i++)
    k += snprintf(buf + k, sizeof buf - (size_t)k, "%s%lld", i ? ", " : "", (long long)axes[i]);
  if (rank >= 0)
    snprintf(buf + k, sizeof buf - (size_t)k, "] out of range for rank %lld", (long long)rank);
  else
    snprintf(buf + k, sizeof buf - (size_t)k, "] negative with the rank unknown");
  return olg_lower_error(cx, OLG_ERR_RANGE, buf);
}

static olg_status squeeze_like(olg_lower *cx, const char *op, olg_value x, const int64_t *axes,
                               size_t n, int64_t rank, olg_value *out) {
  int opset = olg__opset(cx);
  int64_t ax[OLG_MAX_RANK];
  if (n > OLG_MAX_RANK) return olg__errf(cx, OLG_ERR_LIMIT, "%s: too many axes", op);
  if (!norm_axes(axes, n, rank, opset < 11, ax)) return axes_error(cx, op, axes, n, rank);
  olg_node_id nd;
  if (opset >= 13) {
    olg_value av = OLG_NO_VALUE;
    if (n) OLG_TRY(olg__const_i64s(cx, ax, n, &av));
    OLG_TRY(olg_lower_emit_begin(cx, "", op, &nd));
    OLG_TRY(olg_lower_emit_input(cx, nd, x));
    if (n) OLG_TRY(olg_lower_emit_input(cx, nd, av));
  } else {
    OLG_TRY(olg_lower_emit_begin(cx, "", op, &nd));
    OLG_TRY(olg_lower_emit_input(cx, nd, x));
    if (n) OLG_TRY(olg_lower_emit_attr_ints(cx, nd, "axes", ax, n));
  }
  return olg_lower_emit_end(cx, nd, 1, out);
}

olg_status olg__emit_squeeze(olg_lower *cx, olg_value x, const int64_t *axes, size_t n,
                             olg_value *out) {
  return squeeze_like(cx, "Squeeze", x, axes, n, olg__rank(cx, x), out);
}

olg_status olg__emit_unsqueeze(olg_lower *cx, olg_value x, const int64_t *axes, size_t n,
                               olg_value *out) {
  if (!n) return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "Unsqueeze without axes");
  int32_t r = olg__rank(cx, x);
  return squeeze_like(cx, "Unsqueeze", x, axes, n, r >= 0 ? r + (int64_t)n : -1, out);
}

static const char *reduce_op(olg_reduce_kind k) {
  static const char *const ops[] = {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin",
                                    "ReduceProd", "ReduceL1", "ReduceL2", "ReduceLogSum",
                                    "ReduceLogSumExp", "ReduceSumSquare"};
  return ops[k];
}

olg_status olg__emit_reduce(olg_lower *cx, olg_reduce_kind kind, olg_value x,
                            const int64_t *axes, size_t n, int keepdims, olg_value *out) {
  int opset = olg__opset(cx);
  const char *op = reduce_op(kind);
  bool as_input = opset >= (kind == OLG_REDUCE_SUM ? 13 : 18);
  int64_t ax[OLG_MAX_RANK];
  if (n > OLG_MAX_RANK) return olg__errf(cx, OLG_ERR_LIMIT, "%s: too many axes", op);
  int32_t rank = olg__rank(cx, x);
  if (!norm_axes(axes, n, rank, opset < 11, ax)) return axes_error(cx, op, axes, n, rank);
  olg_value av = OLG_NO_VALUE;
  if (as_input && n) OLG_TRY(olg__const_i64s(cx, ax, n, &av));
  olg_node_id nd;
  OLG_TRY(olg_lower_emit_begin(cx, "", op, &nd));
  OLG_TRY(olg_lower_emit_input(cx, nd, x));
  if (as_input && n) OLG_TRY(olg_lower_emit_input(cx, nd, av));
  if (!as_input && n) OLG_TRY(olg_lower_emit_attr_ints(cx, nd, "axes", ax, n));
  OLG_TRY(olg_lower_emit_attr_int(cx, nd, "keepdims", keepdims ? 1 : 0));
  return olg_lower_emit_end(cx, nd, 1, out);
}

/* Slice-1 has no steps. Where an axis with a step has a size known at export time, the
 * elements it keeps are known too: take them with a Gather of constant indices (exact, as
 * Slice-10 would), after a Slice-1 of the unit-step axes. */
static olg_status slice_steps_by_gather(olg_lower *cx, olg_value x, const int64_t *starts,
                                        const int64_t *ends, const int64_t *ax,
                                        const int64_t *steps, size_t n, olg_value *out) {
  int64_t us[OLG_MAX_RANK], ue[OLG_MAX_RANK], ua[OLG_MAX_RANK];
  size_t nu = 0;
  for (size_t i = 0; i < n; i++) {
    if (steps[i] == 0) return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "Slice: a step of 0");
    if (steps[i] != 1) {
      if (olg__dim(cx, x, (int32_t)ax[i]) < 0)
        return olg_lower_unsupported(cx, "Slice with a step other than 1 on a dim whose size is "
                                         "not known at export time", 10);
      continue;
    }
    us[nu] = starts[i];
    ue[nu] = ends[i];
    ua[nu++] = ax[i];
  }
  olg_value y = x;
  if (nu) OLG_TRY(olg__emit_slice(cx, x, us, ue, ua, NULL, nu, &y));
  for (size_t i = 0; i < n; i++) {
    if (steps[i] == 1) continue;
    int64_t dim = olg__dim(cx, x, (int32_t)ax[i]), st = steps[i];
    /* ONNX Slice's clamping: positive steps keep [0, dim], negative ones [-1, dim - 1] */
    int64_t b = starts[i] < 0 ? starts[i] + dim : starts[i];
    int64_t e = ends[i] < 0 ? ends[i] + dim : ends[i];
    int64_t lo = st > 0 ? 0 : -1, hi = st > 0 ? dim : dim - 1;
    b = b < 0 ? 0 : b > hi ? hi : b; /* a start clamps to [0, hi] either way */
    e = e < lo ? lo : e > hi ? hi : e;
    size_t k = 0;
    for (int64_t j = b; st > 0 ? j < e : j > e; j += st) k++;
    int64_t *idx = olg__lower_alloc(cx, (k ? k : 1) * sizeof *idx);
    if (!idx) return OLG_ERR_NOMEM;
    k = 0;
    for (int64_t j = b; st > 0 ? j < e : j > e; j += st) idx[k++] = j;
    olg_value iv;
    OLG_TRY(olg__const_i64s(cx, idx, k, &iv));
    OLG_TRY(olg__emit_gather(cx, y, iv, ax[i], &y));
  }
  *out = y;
  return OLG_OK;
}

olg_status olg__emit_slice(olg_lower *cx, olg_value x, const int64_t *starts,
                           const int64_t *ends, const int64_t *axes, const int64_t *steps,
                           size_t n, olg_value *out) {
  int opset = olg__opset(cx);
  if (n > OLG_MAX_RANK) return olg_lower_error(cx, OLG_ERR_LIMIT, "Slice: too many axes");
  int64_t ax[OLG_MAX_RANK];
  for (size_t i = 0; i < n; i++) ax[i] = axes ? axes[i] : (int64_t)i;
  int32_t rank = olg__rank(cx, x);
  if (!norm_axes(ax, n, rank, opset < 11, ax)) return axes_error(cx, "Slice", ax, n, rank);
  bool unit_steps = true;
  for (size_t i = 0; steps && i < n; i++) unit_steps = unit_steps && steps[i] == 1;
  if (opset < 10 && !unit_steps) return slice_steps_by_gather(cx, x, starts, ends, ax, steps, n, out);
  if (opset < 10) {
    olg_node_id nd;
    OLG_TRY(olg_lower_emit_begin(cx, "", "Slice", &nd));
    OLG_TRY(olg_lower_emit_input(cx, nd, x));
    OLG_TRY(olg_lower_emit_attr_ints(cx, nd, "starts", starts, n));
    OLG_TRY(olg_lower_emit_attr_ints(cx, nd, "ends", ends, n));
    OLG_TRY(olg_lower_emit_attr_ints(cx, nd, "axes", ax, n));
    return olg_lower_emit_end(cx, nd, 1, out);
  }
  olg_value in[5] = {x, OLG_NO_VALUE, OLG_NO_VALUE, OLG_NO_VALUE, OLG_NO_VALUE};
  OLG_TRY(olg__const_i64s(cx, starts, n, &in[1]));
  OLG_TRY(olg__const_i64s(cx, ends, n, &in[2]));
  OLG_TRY(olg__const_i64s(cx, ax, n, &in[3]));
  if (!unit_steps) OLG_TRY(olg__const_i64s(cx, steps, n, &in[4]));
  return olg__emit(cx, "Slice", in, unit_steps ? 4 : 5, out);
}

olg_status olg__emit_slice_dyn(olg_lower *cx, olg_value x, olg_value starts, olg_value ends,
                               olg_value axes, olg_value steps, olg_value *out) {
  const int64_t *s, *e, *a = NULL, *st = NULL;
  size_t ns, ne, na = 0, nst = 0;
  bool known = olg__known_ints(cx, starts, &s, &ns) && olg__known_ints(cx, ends, &e, &ne) &&
               (axes == OLG_NO_VALUE || olg__known_ints(cx, axes, &a, &na)) &&
               (steps == OLG_NO_VALUE || olg__known_ints(cx, steps, &st, &nst));
  if (known && ns == ne && (!a || na == ns) && (!st || nst == ns))
    return olg__emit_slice(cx, x, s, e, a, st, ns, out);
  if (olg__opset(cx) < 10)
    return olg_lower_unsupported(cx, "Slice with bounds computed at run time", 10);
  olg_value in[5] = {x, starts, ends, axes, steps};
  size_t n = steps != OLG_NO_VALUE ? 5 : axes != OLG_NO_VALUE ? 4 : 3;
  for (size_t i = 1; i < n; i++)
    if (in[i] != OLG_NO_VALUE) OLG_TRY(olg__emit_cast(cx, in[i], OLG_INT64, &in[i]));
  return olg__emit(cx, "Slice", in, n, out);
}

olg_status olg__emit_pad(olg_lower *cx, olg_value x, const char *mode, const int64_t *pads,
                         size_t n_pads, double value, olg_value *out) {
  int opset = olg__opset(cx);
  if (!mode || !*mode) mode = "constant";
  if (strcmp(mode, "wrap") == 0 && opset < 19)
    return olg_lower_unsupported(cx, "Pad with mode 'wrap' (circular)", 19);
  if (strcmp(mode, "constant") && strcmp(mode, "reflect") && strcmp(mode, "edge") &&
      strcmp(mode, "wrap"))
    return olg__errf(cx, OLG_ERR_INVALID_ARG, "Pad: unknown mode '%s'", mode);
  olg_dtype t = olg__dtype(cx, x);
  if (opset < 11) {
    /* Pad-2 takes float types only: pad other types in double (exact up to 2^53) */
    olg_value xin = x;
    if (t != OLG_UNDEFINED && !olg__is_float(t) && t != OLG_BFLOAT16)
      OLG_TRY(olg__emit_cast(cx, x, OLG_DOUBLE, &xin));
    olg_node_id nd;
    OLG_TRY(olg_lower_emit_begin(cx, "", "Pad", &nd));
    OLG_TRY(olg_lower_emit_input(cx, nd, xin));
    OLG_TRY(olg_lower_emit_attr_ints(cx, nd, "pads", pads, n_pads));
    OLG_TRY(olg_lower_emit_attr_string(cx, nd, "mode", mode));
    if (strcmp(mode, "constant") == 0 && value != 0)
      OLG_TRY(olg_lower_emit_attr_float(cx, nd, "value", value));
    olg_value y;
    OLG_TRY(olg_lower_emit_end(cx, nd, 1, &y));
    return xin != x ? olg__emit_cast(cx, y, t, out) : (*out = y, OLG_OK);
  }
  olg_value in[3] = {x, OLG_NO_VALUE, OLG_NO_VALUE};
  OLG_TRY(olg__const_i64s(cx, pads, n_pads, &in[1]));
  size_t n = 2;
  if (strcmp(mode, "constant") == 0 && value != 0) {
    OLG_TRY(olg__const_like(cx, x, value, &in[2]));
    n = 3;
  }
  olg_node_id nd;
  OLG_TRY(olg_lower_emit_begin(cx, "", "Pad", &nd));
  for (size_t i = 0; i < n; i++) OLG_TRY(olg_lower_emit_input(cx, nd, in[i]));
  OLG_TRY(olg_lower_emit_attr_string(cx, nd, "mode", mode));
  return olg_lower_emit_end(cx, nd, 1, out);
}

olg_status olg__emit_pad_dyn(olg_lower *cx, olg_value x, const char *mode, olg_value pads,
                             olg_value value, olg_value *out) {
  const int64_t *p;
  size_t n;
  double v = 0;
  bool pads_known = olg__known_ints(cx, pads, &p, &n);
  bool value_known = value == OLG_NO_VALUE || olg__known_scalar(cx, value, &v);
  if (pads_known && value_known) return olg__emit_pad(cx, x, mode, p, n, v, out);
  if (olg__opset(cx) < 11)
    return olg_lower_unsupported(cx, "Pad with pads or value computed at run time", 11);
  if (!mode || !*mode) mode = "constant";
  if (strcmp(mode, "wrap") == 0 && olg__opset(cx) < 19)
    return olg_lower_unsupported(cx, "Pad with mode 'wrap' (circular)", 19);
  olg_value in[3] = {x, pads, value};
  OLG_TRY(olg__emit_cast(cx, pads, OLG_INT64, &in[1]));
  if (value != OLG_NO_VALUE) OLG_TRY(olg__emit_cast_like(cx, value, x, &in[2]));
  olg_node_id nd;
  OLG_TRY(olg_lower_emit_begin(cx, "", "Pad", &nd));
  for (size_t i = 0; i < (value != OLG_NO_VALUE ? 3u : 2u); i++)
    OLG_TRY(olg_lower_emit_input(cx, nd, in[i]));
  OLG_TRY(olg_lower_emit_attr_string(cx, nd, "mode", mode));
  return olg_lower_emit_end(cx, nd, 1, out);
}

olg_status olg__emit_split(olg_lower *cx, olg_value x, int64_t axis, const int64_t *sizes,
                           size_t n_out, olg_value *outs) {
  int opset = olg__opset(cx);
  int32_t rank = olg__rank(cx, x);
  if (rank >= 0) {
    int64_t a = olg__norm_axis(axis, rank);
    if (a < 0) return axes_error(cx, "Split", &axis, 1, rank);
    axis = a;
  } else if (axis < 0 && opset < 11) {
    return axes_error(cx, "Split", &axis, 1, rank);
  }
  if (n_out == 0) return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "Split into 0 parts");
  olg_value sv = OLG_NO_VALUE;
  if (sizes && opset >= 13) OLG_TRY(olg__const_i64s(cx, sizes, n_out, &sv));
  olg_node_id nd;
  OLG_TRY(olg_lower_emit_begin(cx, "", "Split", &nd));
  OLG_TRY(olg_lower_emit_input(cx, nd, x));
  if (sv != OLG_NO_VALUE) OLG_TRY(olg_lower_emit_input(cx, nd, sv));
  OLG_TRY(olg_lower_emit_attr_int(cx, nd, "axis", axis));
  if (sizes && opset < 13) OLG_TRY(olg_lower_emit_attr_ints(cx, nd, "split", sizes, n_out));
  if (!sizes && opset >= 18) OLG_TRY(olg_lower_emit_attr_int(cx, nd, "num_outputs", (int64_t)n_out));
  return olg_lower_emit_end(cx, nd, n_out, outs);
}

/* A bound as a 0-D tensor of x's dtype. */
static olg_status clip_bound(olg_lower *cx, olg_value b, olg_dtype t, olg_value *out) {
  if (b == OLG_NO_VALUE) {
    *out = OLG_NO_VALUE;
    return OLG_OK;
  }
  double v;
  if (olg__known_scalar(cx, b, &v)) return olg__const_scalar(cx, t, v, out);
  OLG_TRY(olg__emit_cast(cx, b, t, &b));
  if (olg__rank(cx, b) != 0) OLG_TRY(olg__emit_reshape_static(cx, b, NULL, 0, &b));
  *out = b;
  return OLG_OK;
}

olg_status olg__emit_clip(olg_lower *cx, olg_value x, olg_value lo, olg_value hi,
                          olg_value *out) {
  int opset = olg__opset(cx);
  olg_dtype t = olg__dtype(cx, x);
  /* Before 12 runtimes implement Clip for float only (ONNX Runtime has no double Clip-6/11):
   * other types use Where (>= 9), or float when that is exact (<= 16 bits) */
  bool fl = t == OLG_FLOAT || t == OLG_UNDEFINED;
  if (opset >= 12 || (opset == 11 && fl)) {
    olg_value l, h;
    OLG_TRY(clip_bound(cx, lo, t == OLG_UNDEFINED ? OLG_FLOAT : t, &l));
    OLG_TRY(clip_bound(cx, hi, t == OLG_UNDEFINED ? OLG_FLOAT : t, &h));
    olg_value in[3] = {x, l, h};
    return olg__emit(cx, "Clip", in, h != OLG_NO_VALUE ? 3 : l != OLG_NO_VALUE ? 2 : 1, out);
  }
  double l = -INFINITY, h = INFINITY;
  bool dyn = (lo != OLG_NO_VALUE && !olg__known_scalar(cx, lo, &l)) ||
             (hi != OLG_NO_VALUE && !olg__known_scalar(cx, hi, &h));
  if (!fl && opset >= 9) {
    /* Where(x < lo, lo, x), then the same with hi: exact for every type */
    olg_value y = x, b, c;
    if (lo != OLG_NO_VALUE) {
      OLG_TRY(clip_bound(cx, lo, t, &b));
      OLG_TRY(olg__emit2(cx, "Less", y, b, &c));
      OLG_TRY(olg__emit(cx, "Where", (const olg_value[]){c, b, y}, 3, &y));
    }
    if (hi != OLG_NO_VALUE) {
      OLG_TRY(clip_bound(cx, hi, t, &b));
      OLG_TRY(olg__emit2(cx, "Greater", y, b, &c));
      OLG_TRY(olg__emit(cx, "Where", (const olg_value[]){c, b, y}, 3, &y));
    }
    *out = y;
    return OLG_OK;
  }
  /* Clip-6 at opsets 7, 8 (and float Clip-11): other types in float, exact up to 16 bits */
  olg_value xin = x;
  if (!fl && (olg_dtype_bits(t) > 16 || t == OLG_BFLOAT16))
    return olg__unsupportedf(cx, 9, "Clip of %s", olg_dtype_name(t));
  if (!fl) OLG_TRY(olg__emit_cast(cx, x, OLG_FLOAT, &xin));
  olg_value y;
  if (dyn) {
    if (opset < 11) return olg_lower_unsupported(cx, "Clip with bounds computed at run time", 11);
    olg_value lv, hv;
    OLG_TRY(clip_bound(cx, lo, OLG_FLOAT, &lv));
    OLG_TRY(clip_bound(cx, hi, OLG_FLOAT, &hv));
    olg_value in[3] = {xin, lv, hv};
    OLG_TRY(olg__emit(cx, "Clip", in, hv != OLG_NO_VALUE ? 3 : 2, &y));
  } else if (opset >= 11) {
    olg_value lv = OLG_NO_VALUE, hv = OLG_NO_VALUE;
    olg_dtype ct = fl ? (t == OLG_UNDEFINED ? OLG_FLOAT : t) : OLG_FLOAT;
    if (lo != OLG_NO_VALUE) OLG_TRY(olg__const_scalar(cx, ct, l, &lv));
    if (hi != OLG_NO_VALUE) OLG_TRY(olg__const_scalar(cx, ct, h, &hv));
    olg_value in[3] = {xin, lv, hv};
    OLG_TRY(olg__emit(cx, "Clip", in, hv != OLG_NO_VALUE ? 3 : lv != OLG_NO_VALUE ? 2 : 1, &y));
  } else {
    olg_node_id nd;
    OLG_TRY(olg_lower_emit_begin(cx, "", "Clip", &nd));
    OLG_TRY(olg_lower_emit_input(cx, nd, xin));
    /* Clip-6's attributes are float: keep the bound inside float's range */
    if (lo != OLG_NO_VALUE) OLG_TRY(olg_lower_emit_attr_float(cx, nd, "min", l < -3.4e38 ? -3.4e38 : l));
    if (hi != OLG_NO_VALUE) OLG_TRY(olg_lower_emit_attr_float(cx, nd, "max", h > 3.4e38 ? 3.4e38 : h));
    OLG_TRY(olg_lower_emit_end(cx, nd, 1, &y));
  }
  return xin != x ? olg__emit_cast(cx, y, t, out) : (*out = y, OLG_OK);
}

olg_status olg__emit_clip_f(olg_lower *cx, olg_value x, int has_lo, double lo, int has_hi,
                            double hi, olg_value *out) {
  olg_dtype t = olg__dtype(cx, x);
  olg_dtype bt = olg__is_float(t) ? t : OLG_DOUBLE;
  olg_value l = OLG_NO_VALUE, h = OLG_NO_VALUE;
  if (has_lo) OLG_TRY(olg__const_scalar(cx, bt, lo, &l));
  if (has_hi) OLG_TRY(olg__const_scalar(cx, bt, hi, &h));
  return olg__emit_clip(cx, x, l, h, out);
}

/* ---- Resize / Upsample ---- */

static bool streq(const char *a, const char *b) { return strcmp(a, b) == 0; }

/* A float32 scale s with floor(in * s) == size, as Upsample and Resize-10 compute the output. */
static float exact_scale(int64_t in, int64_t size) {
  float s = (float)size / (float)in;
  for (int i = 0; i < 64 && (int64_t)floorf((float)in * s) < size; i++) s = nextafterf(s, INFINITY);
  for (int i = 0; i < 64 && (int64_t)floorf((float)in * s) > size; i++) s = nextafterf(s, 0);
  return s;
}

olg_status olg__emit_resize(olg_lower *cx, olg_value x, const olg_resize_params *p,
                            olg_value *out) {
  int opset = olg__opset(cx);
  const char *mode = p->mode && *p->mode ? p->mode : "nearest";
  const char *ctm = p->coordinate_transformation_mode && *p->coordinate_transformation_mode
                        ? p->coordinate_transformation_mode
                        : "half_pixel";
  const char *nm = p->nearest_mode && *p->nearest_mode ? p->nearest_mode : "round_prefer_floor";
  double cubic_a = p->cubic_coeff_a ? p->cubic_coeff_a : -0.75;
  if (!streq(mode, "nearest") && !streq(mode, "linear") && !streq(mode, "cubic"))
    return olg__errf(cx, OLG_ERR_INVALID_ARG, "Resize: unknown mode '%s'", mode);
  int n_given = (p->scales != NULL) + (p->sizes != NULL) + (p->scales_v != OLG_NO_VALUE) +
                (p->sizes_v != OLG_NO_VALUE);
  if (n_given != 1)
    return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "Resize: give exactly one of scales or sizes");
  if (p->antialias && opset < 18) return olg_lower_unsupported(cx, "Resize with antialias", 18);
  if (streq(ctm, "half_pixel_symmetric") && opset < 19)
    return olg_lower_unsupported(cx, "Resize with coordinate_transformation_mode 'half_pixel_symmetric'", 19);

  if (opset >= 11) {
    olg_value roi = OLG_NO_VALUE, scales = p->scales_v, sizes = p->sizes_v;
    if (p->scales) OLG_TRY(olg__const_f32s(cx, p->scales, p->n, &scales));
    if (p->sizes) OLG_TRY(olg__const_i64s(cx, p->sizes, p->n, &sizes));
    if (scales != OLG_NO_VALUE) OLG_TRY(olg__emit_cast(cx, scales, OLG_FLOAT, &scales));
    if (sizes != OLG_NO_VALUE) OLG_TRY(olg__emit_cast(cx, sizes, OLG_INT64, &sizes));
    if (p->has_roi) OLG_TRY(olg__emit_cast(cx, p->roi_v, OLG_FLOAT, &roi));
    if (opset < 13) { /* roi and scales are required inputs: empty when unused */
      if (roi == OLG_NO_VALUE) OLG_TRY(olg__const_f32s(cx, NULL, 0, &roi));
      if (scales == OLG_NO_VALUE) OLG_TRY(olg__const_f32s(cx, NULL, 0, &scales));
    }
    olg_node_id nd;
    OLG_TRY(olg_lower_emit_begin(cx, "", "Resize", &nd));
    OLG_TRY(olg_lower_emit_input(cx, nd, x));
    OLG_TRY(olg_lower_emit_input(cx, nd, roi));
    OLG_TRY(olg_lower_emit_input(cx, nd, scales));
    if (sizes != OLG_NO_VALUE) OLG_TRY(olg_lower_emit_input(cx, nd, sizes));
    OLG_TRY(olg_lower_emit_attr_string(cx, nd, "mode", mode));
    OLG_TRY(olg_lower_emit_attr_string(cx, nd, "coordinate_transformation_mode", ctm));
    if (streq(mode, "nearest")) OLG_TRY(olg_lower_emit_attr_string(cx, nd, "nearest_mode", nm));
    if (streq(mode, "cubic")) OLG_TRY(olg_lower_emit_attr_float(cx, nd, "cubic_coeff_a", cubic_a));
    if (p->exclude_outside) OLG_TRY(olg_lower_emit_attr_int(cx, nd, "exclude_outside", 1));
    if (p->antialias) OLG_TRY(olg_lower_emit_attr_int(cx, nd, "antialias", 1));
    if (p->extrapolation_value != 0)
      OLG_TRY(olg_lower_emit_attr_float(cx, nd, "extrapolation_value", p->extrapolation_value));
    return olg_lower_emit_end(cx, nd, 1, out);
  }

  /* Upsample-7/9 and Resize-10: asymmetric coordinates; nearest rounds down */
  if (p->has_roi) return olg_lower_unsupported(cx, "Resize with tf_crop_and_resize", 11);
  if (streq(mode, "cubic"))
    return olg_lower_unsupported(cx, "Resize with mode 'cubic'", 11);
  if (!streq(ctm, "asymmetric"))
    return olg__unsupportedf(cx, 11, "Resize with coordinate_transformation_mode '%s'", ctm);
  if (streq(mode, "nearest") && !streq(nm, "floor"))
    return olg__unsupportedf(cx, 11, "Resize nearest with nearest_mode '%s'", nm);
  if (p->exclude_outside) return olg_lower_unsupported(cx, "Resize with exclude_outside", 11);
  float *sc = NULL;
  size_t n = p->n;
  olg_value scales_v = p->scales_v;
  if (p->scales) {
    sc = (float *)p->scales;
  } else if (p->sizes || p->sizes_v != OLG_NO_VALUE) {
    const int64_t *sz = p->sizes;
    if (!sz && !olg__known_ints(cx, p->sizes_v, &sz, &n))
      return olg_lower_unsupported(cx, "Resize to sizes computed at run time", 11);
    int64_t dims[OLG_MAX_RANK];
    int32_t rank;
    if (!olg__static_shape(cx, x, dims, &rank) || (size_t)rank != n)
      return olg_lower_unsupported(cx, "Resize to sizes of an input whose shape is not static", 11);
    sc = olg__lower_alloc(cx, (n ? n : 1) * sizeof *sc);
    if (!sc) return OLG_ERR_NOMEM;
    for (size_t i = 0; i < n; i++) {
      if (dims[i] == 0) return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "Resize of an empty dim");
      sc[i] = exact_scale(dims[i], sz[i]);
    }
  } else if (opset < 9) {
    const int64_t *dummy;
    (void)dummy;
    const olg_tensor *t = olg__known(cx, scales_v);
    if (!t || t->dtype != OLG_FLOAT)
      return olg_lower_unsupported(cx, "Upsample with scales computed at run time", 9);
    n = t->nbytes / 4;
    sc = (float *)t->data;
  }
  const char *umode = streq(mode, "linear") ? "linear" : "nearest";
  olg_node_id nd;
  if (opset < 9) {
    OLG_TRY(olg_lower_emit_begin(cx, "", "Upsample", &nd));
    OLG_TRY(olg_lower_emit_input(cx, nd, x));
    OLG_TRY(olg_lower_emit_attr_floats(cx, nd, "scales", sc, n));
  } else {
    if (sc) OLG_TRY(olg__const_f32s(cx, sc, n, &scales_v));
    else OLG_TRY(olg__emit_cast(cx, scales_v, OLG_FLOAT, &scales_v));
    OLG_TRY(olg_lower_emit_begin(cx, "", opset >= 10 ? "Resize" : "Upsample", &nd));
    OLG_TRY(olg_lower_emit_input(cx, nd, x));
    OLG_TRY(olg_lower_emit_input(cx, nd, scales_v));
  }
  OLG_TRY(olg_lower_emit_attr_string(cx, nd, "mode", umode));
  return olg_lower_emit_end(cx, nd, 1, out);
}

olg_status olg__emit_dropout(olg_lower *cx, olg_value x, olg_value *out) {
  return olg__emit_identity(cx, x, out);
}

olg_status olg__emit_batchnorm(olg_lower *cx, olg_value x, olg_value scale, olg_value bias,
                               olg_value mean, olg_value var, double epsilon, double momentum,
                               olg_value *out) {
  olg_node_id nd;
  OLG_TRY(olg_lower_emit_begin(cx, "", "BatchNormalization", &nd));
  olg_value in[5] = {x, scale, bias, mean, var};
  for (int i = 0; i < 5; i++) OLG_TRY(olg_lower_emit_input(cx, nd, in[i]));
  OLG_TRY(olg_lower_emit_attr_float(cx, nd, "epsilon", epsilon));
  OLG_TRY(olg_lower_emit_attr_float(cx, nd, "momentum", momentum));
  return olg_lower_emit_end(cx, nd, 1, out);
}

olg_status olg__emit_topk(olg_lower *cx, olg_value x, olg_value k_v, int64_t k, int64_t axis,
                          int largest, int sorted, olg_value *values, olg_value *indices) {
  (void)sorted; /* sorted output satisfies sorted=0 too */
  int opset = olg__opset(cx);
  int32_t rank = olg__rank(cx, x);
  if (rank >= 0) {
    int64_t a = olg__norm_axis(axis, rank);
    if (a < 0) return axes_error(cx, "TopK", &axis, 1, rank);
    axis = a;
  } else if (axis < 0 && opset < 11) {
    return axes_error(cx, "TopK", &axis, 1, rank);
  }
  if (k_v != OLG_NO_VALUE) {
    double kd;
    if (olg__known_scalar(cx, k_v, &kd)) {
      k = (int64_t)kd;
      k_v = OLG_NO_VALUE;
    } else if (opset < 10) {
      return olg_lower_unsupported(cx, "TopK with k computed at run time", 10);
    }
  }
  olg_value xin = x;
  olg_dtype t = olg__dtype(cx, x);
  bool negate = !largest && opset < 11;
  if (negate) {
    if (t == OLG_UINT8 || t == OLG_UINT16 || t == OLG_UINT32 || t == OLG_UINT64)
      return olg_lower_unsupported(cx, "TopK of the smallest unsigned values", 11);
    OLG_TRY(olg__emit1(cx, "Neg", x, &xin));
  }
  olg_node_id nd;
  olg_value outs[2];
  if (opset < 10) {
    OLG_TRY(olg_lower_emit_begin(cx, "", "TopK", &nd));
    OLG_TRY(olg_lower_emit_input(cx, nd, xin));
    OLG_TRY(olg_lower_emit_attr_int(cx, nd, "k", k));
  } else {
    olg_value kv = k_v;
    if (kv == OLG_NO_VALUE) OLG_TRY(olg__const_i64s(cx, &k, 1, &kv));
    else {
      OLG_TRY(olg__emit_cast(cx, kv, OLG_INT64, &kv));
      if (olg__rank(cx, kv) != 1) OLG_TRY(olg__emit_reshape_static(cx, kv, (const int64_t[]){1}, 1, &kv));
    }
    OLG_TRY(olg_lower_emit_begin(cx, "", "TopK", &nd));
    OLG_TRY(olg_lower_emit_input(cx, nd, xin));
    OLG_TRY(olg_lower_emit_input(cx, nd, kv));
    if (opset >= 11 && !largest) OLG_TRY(olg_lower_emit_attr_int(cx, nd, "largest", 0));
  }
  OLG_TRY(olg_lower_emit_attr_int(cx, nd, "axis", axis));
  OLG_TRY(olg_lower_emit_end(cx, nd, 2, outs));
  if (negate) OLG_TRY(olg__emit1(cx, "Neg", outs[0], &outs[0]));
  if (values) *values = outs[0];
  if (indices) *indices = outs[1];
  return OLG_OK;
}

olg_status olg__emit_softmax(olg_lower *cx, olg_softmax_kind kind, olg_value x, int64_t axis,
                             olg_value *out) {
  static const char *const ops[] = {"Softmax", "LogSoftmax", "Hardmax"};
  const char *op = ops[kind];
  int opset = olg__opset(cx);
  int32_t rank = olg__rank(cx, x);
  if (opset >= 13) {
    olg_node_id nd;
    OLG_TRY(olg_lower_emit_begin(cx, "", op, &nd));
    OLG_TRY(olg_lower_emit_input(cx, nd, x));
    OLG_TRY(olg_lower_emit_attr_int(cx, nd, "axis", axis));
    return olg_lower_emit_end(cx, nd, 1, out);
  }
  if (rank < 0)
    return olg__unsupportedf(cx, 13, "%s of an input whose rank is unknown", op);
  int64_t a = olg__norm_axis(axis, rank);
  if (a < 0) return axes_error(cx, op, &axis, 1, rank);
  /* below 13 the op flattens to 2-D at axis: the same as one axis only when it is the last */
  olg_value xin = x;
  int64_t perm[OLG_MAX_RANK];
  bool moved = a != rank - 1;
  if (moved) {
    if (rank > OLG_MAX_RANK) return olg_lower_error(cx, OLG_ERR_LIMIT, "softmax: rank too large");
    for (int32_t i = 0; i < rank; i++) perm[i] = i;
    perm[a] = rank - 1;
    perm[rank - 1] = a;
    OLG_TRY(olg__emit_transpose(cx, x, perm, (size_t)rank, &xin));
  }
  olg_node_id nd;
  olg_value y;
  OLG_TRY(olg_lower_emit_begin(cx, "", op, &nd));
  OLG_TRY(olg_lower_emit_input(cx, nd, xin));
  OLG_TRY(olg_lower_emit_attr_int(cx, nd, "axis", rank - 1));
  OLG_TRY(olg_lower_emit_end(cx, nd, 1, &y));
  if (!moved) {
    *out = y;
    return OLG_OK;
  }
  return olg__emit_transpose(cx, y, perm, (size_t)rank, out); /* a swap is its own inverse */
}

olg_status olg__emit_grid_sample(olg_lower *cx, olg_value x, olg_value grid, const char *mode,
                                 const char *padding, int align_corners, olg_value *out) {
  int opset = olg__opset(cx);
  bool v20 = opset >= 20;
  if (!v20 && olg__rank(cx, x) != 4) /* N-D from 20 */
    return olg_lower_unsupported(cx, "GridSample of an input that is not 4-D", 20);
  if (opset < 16) return olg_lower_unsupported(cx, "GridSample", 16);
  if (!mode || streq(mode, "bilinear") || streq(mode, "linear")) mode = v20 ? "linear" : "bilinear";
  else if (streq(mode, "bicubic") || streq(mode, "cubic")) mode = v20 ? "cubic" : "bicubic";
  else if (!streq(mode, "nearest")) return olg__errf(cx, OLG_ERR_INVALID_ARG, "GridSample: unknown mode '%s'", mode);
  if (!padding) padding = "zeros";
  if (!streq(padding, "zeros") && !streq(padding, "border") && !streq(padding, "reflection"))
    return olg__errf(cx, OLG_ERR_INVALID_ARG, "GridSample: unknown padding mode '%s'", padding);
  olg_node_id nd;
  OLG_TRY(olg_lower_emit_begin(cx, "", "GridSample", &nd));
  OLG_TRY(olg_lower_emit_input(cx, nd, x));
  OLG_TRY(olg_lower_emit_input(cx, nd, grid));
  OLG_TRY(olg_lower_emit_attr_string(cx, nd, "mode", mode));
  OLG_TRY(olg_lower_emit_attr_string(cx, nd, "padding_mode", padding));
  OLG_TRY(olg_lower_emit_attr_int(cx, nd, "align_corners", align_corners ? 1 : 0));
  return olg_lower_emit_end(cx, nd, 1, out);
}

olg_status olg__emit_cast(olg_lower *cx, olg_value x, olg_dtype to, olg_value *out) {
  if (olg__dtype(cx, x) == to) {
    *out = x;
    return OLG_OK;
  }
  olg_node_id nd;
  OLG_TRY(olg_lower_emit_begin(cx, "", "Cast", &nd));
  OLG_TRY(olg_lower_emit_input(cx, nd, x));
  OLG_TRY(olg_lower_emit_attr_int(cx, nd, "to", to));
  return olg_lower_emit_end(cx, nd, 1, out);
}

olg_status olg__emit_cast_like(olg_lower *cx, olg_value x, olg_value like, olg_value *out) {
  olg_dtype t = olg__dtype(cx, like);
  if (t == OLG_UNDEFINED) {
    *out = x;
    return OLG_OK;
  }
  return olg__emit_cast(cx, x, t, out);
}

olg_status olg__emit_gather(olg_lower *cx, olg_value x, olg_value indices, int64_t axis,
                            olg_value *out) {
  int32_t rank = olg__rank(cx, x);
  if (rank >= 0) {
    int64_t a = olg__norm_axis(axis, rank);
    if (a < 0) return axes_error(cx, "Gather", &axis, 1, rank);
    axis = a;
  } else if (axis < 0 && olg__opset(cx) < 11) {
    return axes_error(cx, "Gather", &axis, 1, rank);
  }
  olg_dtype it = olg__dtype(cx, indices);
  if (it != OLG_INT64 && it != OLG_INT32) OLG_TRY(olg__emit_cast(cx, indices, OLG_INT64, &indices));
  olg_node_id nd;
  OLG_TRY(olg_lower_emit_begin(cx, "", "Gather", &nd));
  OLG_TRY(olg_lower_emit_input(cx, nd, x));
  OLG_TRY(olg_lower_emit_input(cx, nd, indices));
  OLG_TRY(olg_lower_emit_attr_int(cx, nd, "axis", axis));
  return olg_lower_emit_end(cx, nd, 1, out);
}

/* The opset a Scatter reduction needs (0: none needed), -1 for an unknown one. */
static int scatter_reduction_opset(const char *reduction) {
  if (!reduction || !*reduction || streq(reduction, "none")) return 0;
  if (streq(reduction, "add") || streq(reduction, "mul")) return 16;
  if (streq(reduction, "max") || streq(reduction, "min")) return 18;
  return -1;
}

static olg_status scatter_like(olg_lower *cx, const char *op, olg_value data, olg_value indices,
                               olg_value updates, const int64_t *axis, const char *reduction,
                               olg_value *out) {
  int need = scatter_reduction_opset(reduction);
  if (need < 0) return olg__errf(cx, OLG_ERR_INVALID_ARG, "%s: unknown reduction '%s'", op, reduction);
  if (need > olg__opset(cx))
    return olg__unsupportedf(cx, need, "%s with reduction '%s'", op, reduction);
  olg_dtype it = olg__dtype(cx, indices);
  if (it != OLG_INT64 && it != OLG_INT32) OLG_TRY(olg__emit_cast(cx, indices, OLG_INT64, &indices));
  olg_node_id nd;
  OLG_TRY(olg_lower_emit_begin(cx, "", op, &nd));
  OLG_TRY(olg_lower_emit_input(cx, nd, data));
  OLG_TRY(olg_lower_emit_input(cx, nd, indices));
  OLG_TRY(olg_lower_emit_input(cx, nd, updates));
  if (axis) OLG_TRY(olg_lower_emit_attr_int(cx, nd, "axis", *axis));
  if (need) OLG_TRY(olg_lower_emit_attr_string(cx, nd, "reduction", reduction));
  return olg_lower_emit_end(cx, nd, 1, out);
}

olg_status olg__emit_scatter_elements(olg_lower *cx, olg_value data, olg_value indices,
                                      olg_value updates, int64_t axis, const char *reduction,
                                      olg_value *out) {
  int opset = olg__opset(cx);
  if (opset < 9) return olg_lower_unsupported(cx, "ScatterElements (Scatter)", 9);
  int32_t rank = olg__rank(cx, data);
  if (rank >= 0) {
    int64_t a = olg__norm_axis(axis, rank);
    if (a < 0) return axes_error(cx, "ScatterElements", &axis, 1, rank);
    axis = a;
  } else if (axis < 0 && opset < 11) {
    return axes_error(cx, "Scatter", &axis, 1, rank);
  }
  return scatter_like(cx, opset >= 11 ? "ScatterElements" : "Scatter", data, indices, updates,
                      &axis, reduction, out);
}

olg_status olg__emit_scatter_nd(olg_lower *cx, olg_value data, olg_value indices,
                                olg_value updates, const char *reduction, olg_value *out) {
  if (olg__opset(cx) < 11) return olg_lower_unsupported(cx, "ScatterND", 11);
  return scatter_like(cx, "ScatterND", data, indices, updates, NULL, reduction, out);
}

olg_status olg__emit_reshape(olg_lower *cx, olg_value x, olg_value shape, olg_value *out) {
  OLG_TRY(olg__emit_cast(cx, shape, OLG_INT64, &shape));
  return olg__emit2(cx, "Reshape", x, shape, out);
}

olg_status olg__emit_reshape_static(olg_lower *cx, olg_value x, const int64_t *dims, size_t n,
                                    olg_value *out) {
  int64_t xd[OLG_MAX_RANK];
  int32_t xr;
  if (olg__static_shape(cx, x, xd, &xr) && (size_t)xr == n) {
    bool same = true;
    for (size_t i = 0; i < n && same; i++) same = dims[i] == xd[i];
    if (same) {
      *out = x;
      return OLG_OK;
    }
  }
  olg_value s;
  OLG_TRY(olg__const_i64s(cx, dims, n, &s));
  return olg__emit2(cx, "Reshape", x, s, out);
}

olg_status olg__emit_transpose(olg_lower *cx, olg_value x, const int64_t *perm, size_t n,
                               olg_value *out) {
  bool ident = true;
  for (size_t i = 0; i < n && ident; i++) ident = perm[i] == (int64_t)i;
  if (ident && (int32_t)n == olg__rank(cx, x)) {
    *out = x;
    return OLG_OK;
  }
  olg_node_id nd;
  OLG_TRY(olg_lower_emit_begin(cx, "", "Transpose", &nd));
  OLG_TRY(olg_lower_emit_input(cx, nd, x));
  OLG_TRY(olg_lower_emit_attr_ints(cx, nd, "perm", perm, n));
  return olg_lower_emit_end(cx, nd, 1, out);
}

olg_status olg__emit_concat(olg_lower *cx, const olg_value *vals, size_t n, int64_t axis,
                            olg_value *out) {
  if (n == 0) return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "Concat of nothing");
  if (n == 1) {
    *out = vals[0];
    return OLG_OK;
  }
  int32_t rank = -1;
  for (size_t i = 0; i < n && rank < 0; i++) rank = olg__rank(cx, vals[i]);
  if (rank >= 0) {
    int64_t a = olg__norm_axis(axis, rank);
    if (a < 0) return axes_error(cx, "Concat", &axis, 1, rank);
    axis = a;
  } else if (axis < 0 && olg__opset(cx) < 11) {
    return axes_error(cx, "Concat", &axis, 1, rank);
  }
  olg_node_id nd;
  OLG_TRY(olg_lower_emit_begin(cx, "", "Concat", &nd));
  for (size_t i = 0; i < n; i++) OLG_TRY(olg_lower_emit_input(cx, nd, vals[i]));
  OLG_TRY(olg_lower_emit_attr_int(cx, nd, "axis", axis));
  return olg_lower_emit_end(cx, nd, 1, out);
}

olg_status olg__emit_expand(olg_lower *cx, olg_value x, olg_value shape, olg_value *out) {
  OLG_TRY(olg__emit_cast(cx, shape, OLG_INT64, &shape));
  if (olg__opset(cx) >= 8) return olg__emit2(cx, "Expand", x, shape, out);
  /* opset 7: Tile (Tile-6) after a Reshape to the target rank, for a known shape */
  const int64_t *t;
  size_t tn;
  int64_t xd[OLG_MAX_RANK];
  int32_t xr = olg__rank(cx, x);
  if (!olg__known_ints(cx, shape, &t, &tn) || xr < 0 || tn > OLG_MAX_RANK)
    return olg_lower_unsupported(cx, "Expand to a shape computed at run time", 8);
  size_t rank = tn > (size_t)xr ? tn : (size_t)xr;
  int64_t tgt[OLG_MAX_RANK], src[OLG_MAX_RANK], reps[OLG_MAX_RANK];
  for (size_t i = 0; i < rank; i++) {
    size_t ti = i + tn - rank, xi = i + (size_t)xr - rank;
    tgt[i] = i + tn >= rank ? t[ti] : 1;
    src[i] = i + (size_t)xr >= rank ? olg__dim(cx, x, (int32_t)xi) : 1;
  }
  for (size_t i = 0; i < rank; i++) {
    reps[i] = 1;
    if (tgt[i] == 1 || tgt[i] == src[i]) continue;
    if (src[i] != 1)
      return olg_lower_unsupported(cx, "Expand of an input whose dims are not known", 8);
    reps[i] = tgt[i];
  }
  olg_value y = x;
  if ((size_t)xr < rank) { /* new leading dims of 1 */
    for (size_t i = 0; i < rank - (size_t)xr; i++) xd[i] = (int64_t)i;
    OLG_TRY(olg__emit_unsqueeze(cx, x, xd, rank - (size_t)xr, &y));
  }
  bool any = false;
  for (size_t i = 0; i < rank; i++) any = any || reps[i] != 1;
  if (!any) {
    *out = y;
    return OLG_OK;
  }
  olg_value rv;
  OLG_TRY(olg__const_i64s(cx, reps, rank, &rv));
  return olg__emit2(cx, "Tile", y, rv, out);
}

olg_status olg__emit_flatten(olg_lower *cx, olg_value x, int64_t axis, olg_value *out) {
  int32_t rank = olg__rank(cx, x);
  if (axis < 0) {
    if (rank < 0) {
      if (olg__opset(cx) < 11) return axes_error(cx, "Flatten", &axis, 1, rank);
    } else {
      axis += rank;
    }
  }
  if (rank >= 0 && (axis < 0 || axis > rank)) return axes_error(cx, "Flatten", &axis, 1, rank);
  olg_node_id nd;
  OLG_TRY(olg_lower_emit_begin(cx, "", "Flatten", &nd));
  OLG_TRY(olg_lower_emit_input(cx, nd, x));
  OLG_TRY(olg_lower_emit_attr_int(cx, nd, "axis", axis));
  return olg_lower_emit_end(cx, nd, 1, out);
}

olg_status olg__emit_full(olg_lower *cx, olg_value shape, olg_dtype dtype, double v,
                          olg_value *out) {
  const int64_t *d;
  size_t n;
  int opset = olg__opset(cx);
  if (olg__known_ints(cx, shape, &d, &n) && n <= OLG_MAX_RANK) {
    uint64_t numel;
    if (!olg__shape_numel((int32_t)n, d, &numel))
      return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "full: negative or overflowing shape");
    if (numel <= 4096 || opset < 9) {
      size_t es = olg_dtype_nbytes(dtype, 1);
      unsigned char one[8];
      if (!put_scalar(dtype, v, one) || es > 8)
        return olg__errf(cx, OLG_ERR_TYPE, "full: cannot make a %s tensor", olg_dtype_name(dtype));
      size_t nb = (size_t)numel * es;
      unsigned char *buf = olg__lower_alloc(cx, nb ? nb : 1);
      if (!buf) return OLG_ERR_NOMEM;
      for (uint64_t i = 0; i < numel; i++) memcpy(buf + i * es, one, es);
      return olg__const_tensor_kept(cx, dtype, (int32_t)n, d, buf, nb, out);
    }
  }
  if (opset < 8) {
    /* Tile-6 takes its repeats at run time: one element of the target rank, tiled by the shape */
    int64_t len = olg__dim(cx, shape, 0), ones[OLG_MAX_RANK];
    unsigned char one[8];
    if (olg__rank(cx, shape) != 1 || len < 0 || len > OLG_MAX_RANK)
      return olg_lower_unsupported(cx, "a filled tensor of a run-time shape of unknown rank", 8);
    if (!put_scalar(dtype, v, one))
      return olg__errf(cx, OLG_ERR_TYPE, "full: cannot make a %s tensor", olg_dtype_name(dtype));
    for (int64_t i = 0; i < len; i++) ones[i] = 1;
    olg_value c, reps;
    OLG_TRY(olg__const_tensor(cx, dtype, (int32_t)len, ones, one, olg_dtype_nbytes(dtype, 1), &c));
    OLG_TRY(olg__emit_cast(cx, shape, OLG_INT64, &reps));
    return olg__emit2(cx, "Tile", c, reps, out);
  }
  if (opset < 9) {
    olg_value s;
    OLG_TRY(olg__const_scalar(cx, dtype, v, &s));
    return olg__emit_expand(cx, s, shape, out);
  }
  unsigned char one[8];
  if (!put_scalar(dtype, v, one))
    return olg__errf(cx, OLG_ERR_TYPE, "full: cannot make a %s tensor", olg_dtype_name(dtype));
  OLG_TRY(olg__emit_cast(cx, shape, OLG_INT64, &shape));
  olg_node_id nd;
  OLG_TRY(olg_lower_emit_begin(cx, "", "ConstantOfShape", &nd));
  OLG_TRY(olg_lower_emit_input(cx, nd, shape));
  int64_t one_dim[1] = {1};
  OLG_TRY(olg_lower_emit_attr_tensor(cx, nd, "value", dtype, 1, one_dim, one,
                                     olg_dtype_nbytes(dtype, 1)));
  return olg_lower_emit_end(cx, nd, 1, out);
}

olg_status olg__emit_identity(olg_lower *cx, olg_value x, olg_value *out) {
  return olg__emit1(cx, "Identity", x, out);
}

/* ------------------------------------------------------------------------------------------ */
/* olg_lower_arg_as_tensor */

OLG_API olg_status olg_lower_arg_as_tensor(olg_lower *cx, size_t i, olg_dtype dtype,
                                           olg_value *out) {
  if (!cx || !out) return olg__err(OLG_ERR_INVALID_ARG, "olg_lower_arg_as_tensor: NULL argument");
  int k = olg_lower_arg_kind(cx, i);
  switch (k) {
  case OLG_ARGKIND_VALUE:
    OLG_TRY(olg_lower_arg_value(cx, i, out));
    return dtype ? olg__emit_cast(cx, *out, dtype, out) : OLG_OK;
  case OLG_ARGKIND_INT: case OLG_ARGKIND_BOOL: case OLG_ARGKIND_FLOAT: {
    double v;
    OLG_TRY(olg_lower_arg_float(cx, i, &v));
    olg_dtype t = dtype ? dtype : k == OLG_ARGKIND_INT ? OLG_INT64 : k == OLG_ARGKIND_BOOL ? OLG_BOOL : OLG_FLOAT;
    if (k == OLG_ARGKIND_INT && (t == OLG_INT64 || t == OLG_UINT64)) {
      int64_t iv;
      OLG_TRY(olg_lower_arg_int(cx, i, &iv));
      return olg__const_tensor(cx, t, 0, NULL, &iv, 8, out);
    }
    return olg__const_scalar(cx, t, v, out);
  }
  case OLG_ARGKIND_INTS: {
    const int64_t *p;
    size_t n;
    OLG_TRY(olg_lower_arg_ints(cx, i, &p, &n));
    if (!dtype || dtype == OLG_INT64) return olg__const_i64s(cx, p, n, out);
    olg_value v;
    OLG_TRY(olg__const_i64s(cx, p, n, &v));
    return olg__emit_cast(cx, v, dtype, out);
  }
  case OLG_ARGKIND_FLOATS: {
    const double *p;
    size_t n;
    OLG_TRY(olg_lower_arg_floats(cx, i, &p, &n));
    olg_dtype t = dtype ? dtype : OLG_FLOAT;
    size_t es = olg_dtype_nbytes(t, 1);
    unsigned char *buf = olg__lower_alloc(cx, n * es);
    if (!buf) return OLG_ERR_NOMEM;
    for (size_t j = 0; j < n; j++)
      if (!put_scalar(t, p[j], buf + j * es))
        return olg__errf(cx, OLG_ERR_TYPE, "cannot make a %s constant", olg_dtype_name(t));
    int64_t dims[1] = {(int64_t)n};
    return olg__const_tensor_kept(cx, t, 1, dims, buf, n * es, out);
  }
  case OLG_ARGKIND_VALUES: {
    const olg_value *vals;
    size_t n;
    OLG_TRY(olg_lower_arg_values(cx, i, &vals, &n));
    olg_value *pieces = olg__lower_alloc(cx, (n ? n : 1) * sizeof *pieces);
    if (!pieces) return OLG_ERR_NOMEM;
    for (size_t j = 0; j < n; j++) {
      if (vals[j] == OLG_NO_VALUE)
        return olg__errf(cx, OLG_ERR_TYPE, "argument %zu item %zu is none", i, j);
      olg_value v;
      OLG_TRY(olg__emit_cast(cx, vals[j], OLG_INT64, &v));
      int32_t r = olg__rank(cx, v);
      if (r == 0) OLG_TRY(olg__emit_unsqueeze(cx, v, (const int64_t[]){0}, 1, &v));
      else if (r != 1) OLG_TRY(olg__emit_reshape_static(cx, v, (const int64_t[]){1}, 1, &v));
      pieces[j] = v;
    }
    if (!n) OLG_TRY(olg__const_i64s(cx, NULL, 0, out));
    else OLG_TRY(olg__concat_ints(cx, pieces, n, out));
    return dtype && dtype != OLG_INT64 ? olg__emit_cast(cx, *out, dtype, out) : OLG_OK;
  }
  default:
    return olg__errf(cx, OLG_ERR_TYPE, "argument %zu is none, not a tensor", i);
  }
}
