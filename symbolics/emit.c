/* onnxlegal — the opset-aware emit helpers (symbolics/emit.h) and the context calls built on
 * them (olg_lower_emit_const*, olg_lower_arg_as_tensor).
 *
 * Each helper knows how every opset from 7 to 27 encodes one meaning; the opset numbers below
 * are the since-versions of the operator changelog (onnx-spec/Changelog.md). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../lib/schema.h"
#include "emit.h"

int olg__opset(const olg_lower *cx) { return (int)olg_lower_opset(cx); }

olg_status olg__bind_outputs(olg_lower *cx, const olg_value *outs, size_t n) {
  for (size_t i = 0; i < olg_lower_output_count(cx); i++) {
    if (i < n) OLG_TRY(olg_lower_bind_output(cx, i, outs[i]));
    else if (olg_lower_output_used(cx, i))
      return olg__errf(cx, OLG_ERR_UNSUPPORTED, "output %zu of this op is not supported when used", i);
  }
  return OLG_OK;
}

static const olg_schema *target_schema(const olg_lower *cx, const char *op) {
  const olg_schema *s = olg_schema_find("", op, olg__opset(cx));
  return s && !s->deprecated ? s : NULL;
}

bool olg__target_has(const olg_lower *cx, const char *op) { return target_schema(cx, op); }

bool olg__target_has_attr(const olg_lower *cx, const char *op, const char *attr) {
  const olg_schema *s = target_schema(cx, op);
  return s && olg_schema_attr(s, attr);
}

bool olg__target_has_input(const olg_lower *cx, const char *op, const char *input) {
  const olg_schema *s = target_schema(cx, op);
  for (int i = 0; s && i < s->n_inputs; i++)
    if (!strcmp(s->inputs[i].name, input)) return true;
  return false;
}

bool olg__target_input_optional(const olg_lower *cx, const char *op, const char *input) {
  const olg_schema *s = target_schema(cx, op);
  for (int i = 0; s && i < s->n_inputs; i++)
    if (!strcmp(s->inputs[i].name, input)) return s->inputs[i].option == OLG_FORMAL_OPTIONAL;
  return false;
}

int64_t olg__norm_axis(int64_t axis, int64_t rank) {
  if (rank < 0) return -1;
  if (axis < 0) axis += rank;
  return axis >= 0 && axis < rank ? axis : -1;
}

bool olg__is_float(olg_dtype t) {
  return t == OLG_FLOAT || t == OLG_DOUBLE || t == OLG_FLOAT16 || t == OLG_BFLOAT16;
}

bool olg__f64_to_i64(double v, int64_t *out) {
  /* -2^63 is exact in a double; 2^63 is the first value past INT64_MAX */
  if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0)) return false;
  *out = (int64_t)v;
  return true;
}

int64_t olg__f64_sat_i64(double v) {
  int64_t r;
  if (olg__f64_to_i64(v, &r)) return r;
  return v != v ? 0 : v < 0 ? INT64_MIN : INT64_MAX;
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

olg_status olg__input_rank(olg_lower *cx, olg_value x, int32_t *rank) {
  *rank = olg__rank(cx, x);
  if (*rank < 0)
    return olg_lower_error(cx, OLG_ERR_UNSUPPORTED,
                           "the rank of the input is not known at export time");
  if (*rank > OLG_MAX_RANK) return olg_lower_error(cx, OLG_ERR_LIMIT, "rank above 16");
  return OLG_OK;
}

olg_status olg__norm_dim(olg_lower *cx, int64_t d, int64_t rank, int64_t *out) {
  int64_t n = olg__norm_axis(d, rank);
  if (n < 0)
    return olg__errf(cx, OLG_ERR_RANGE, "dim %lld is out of range for rank %lld", (long long)d,
                     (long long)rank);
  *out = n;
  return OLG_OK;
}

olg_status olg__dim_arg(olg_lower *cx, size_t i, int64_t dflt, int64_t rank, int64_t *out) {
  int64_t d;
  OLG_TRY(olg__arg_int_or(cx, i, dflt, &d));
  return olg__norm_dim(cx, d, rank, out);
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
  case OLG_INT8: *(int8_t *)p = (int8_t)olg__f64_sat_i64(v); return true;
  case OLG_UINT8: *(uint8_t *)p = (uint8_t)olg__f64_sat_i64(v); return true;
  case OLG_INT16: { int16_t x = (int16_t)olg__f64_sat_i64(v); memcpy(p, &x, 2); return true; }
  case OLG_UINT16: { uint16_t x = (uint16_t)olg__f64_sat_i64(v); memcpy(p, &x, 2); return true; }
  case OLG_INT32: { int32_t x = (int32_t)olg__f64_sat_i64(v); memcpy(p, &x, 4); return true; }
  case OLG_UINT32: { uint32_t x = (uint32_t)olg__f64_sat_i64(v); memcpy(p, &x, 4); return true; }
  case OLG_INT64: { int64_t x = olg__f64_sat_i64(v); memcpy(p, &x, 8); return true; }
  case OLG_UINT64: {
    uint64_t x = !(v >= 9223372036854775808.0) ? (uint64_t)olg__f64_sat_i64(v)
                 : v < 18446744073709551616.0  ? (uint64_t)v
                                               : UINT64_MAX;
    memcpy(p, &x, 8);
    return true;
  }
  default: return false;
  }
}

static olg_status const_tensor(olg_lower *cx, olg_dtype dtype, int32_t rank, const int64_t *dims,
                               const void *data, size_t nbytes, olg_data_mode mode,
                               olg_value *out);

/* An integer or bool constant as a double Constant cast to dtype; OLG_ERR_UNSUPPORTED (nothing
 * emitted) when a value is not exactly a double or the type is not an integer or bool. */
static olg_status const_via_double(olg_lower *cx, olg_dtype dtype, int32_t rank,
                                   const int64_t *dims, const void *data, size_t nbytes,
                                   olg_value *out) {
  size_t es = olg_dtype_nbytes(dtype, 1);
  if (!es || nbytes % es) return OLG_ERR_UNSUPPORTED;
  size_t n = nbytes / es;
  double *d = olg__lower_alloc(cx, (n ? n : 1) * sizeof *d);
  if (!d) return OLG_ERR_NOMEM;
  const unsigned char *p = data;
  for (size_t i = 0; i < n; i++, p += es) {
    switch (dtype) {
      case OLG_INT64: { int64_t v; memcpy(&v, p, 8); if (v > (INT64_C(1) << 53) || v < -(INT64_C(1) << 53)) return OLG_ERR_UNSUPPORTED; d[i] = (double)v; break; }
      case OLG_UINT64: { uint64_t v; memcpy(&v, p, 8); if (v > (UINT64_C(1) << 53)) return OLG_ERR_UNSUPPORTED; d[i] = (double)v; break; }
      case OLG_INT32: { int32_t v; memcpy(&v, p, 4); d[i] = v; break; }
      case OLG_UINT32: { uint32_t v; memcpy(&v, p, 4); d[i] = v; break; }
      case OLG_INT16: { int16_t v; memcpy(&v, p, 2); d[i] = v; break; }
      case OLG_UINT16: { uint16_t v; memcpy(&v, p, 2); d[i] = v; break; }
      case OLG_INT8: d[i] = (int8_t)*p; break;
      case OLG_UINT8: d[i] = *p; break;
      case OLG_BOOL: d[i] = *p != 0; break;
      default: return OLG_ERR_UNSUPPORTED;
    }
  }
  olg_value c;
  OLG_TRY(const_tensor(cx, OLG_DOUBLE, rank, dims, d, n * sizeof *d, OLG_DATA_BORROW, &c));
  OLG_TRY(olg__emit_cast(cx, c, dtype, out));
  /* the contents stay known to later symbolics, as a Constant's are */
  olg_graph *g = olg_lower_target(cx);
  if (!olg__value_known(&g->values[*out])) {
    olg_tensor *t;
    OLG_TRY(olg__tensor_new(g->model, NULL, dtype, rank, dims, data, nbytes, OLG_DATA_COPY, NULL,
                            NULL, &t));
    OLG_TRY(olg__value_set_known(g->model, &g->values[*out], t));
  }
  return OLG_OK;
}

static olg_status const_tensor(olg_lower *cx, olg_dtype dtype, int32_t rank, const int64_t *dims,
                               const void *data, size_t nbytes, olg_data_mode mode,
                               olg_value *out) {
  if (olg__opset(cx) < 9 && dtype != OLG_FLOAT && dtype != OLG_DOUBLE && dtype != OLG_FLOAT16) {
    /* Constant-1 takes float types only. In a subgraph an initializer would have to be one of
       its inputs too (IR 3), which If/Loop bodies cannot add: there the values go as a double
       Constant and a Cast, exact when they are (integers up to 2^53, bools) */
    if (cx->parent) {
      olg_status st = const_via_double(cx, dtype, rank, dims, data, nbytes, out);
      if (st != OLG_ERR_UNSUPPORTED) return st;
    }
    return olg__lower_initializer(cx, dtype, rank, dims, data, nbytes, mode, out);
  }
  return olg__lower_constant(cx, dtype, rank, dims, data, nbytes, mode, out);
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
/* Axes */

/* axes normalized against rank (when known); false when an axis is out of range, or negative
 * with the rank unknown and need_nonneg. */
bool olg__norm_axes(const int64_t *axes, size_t n, int64_t rank, bool need_nonneg, int64_t *out) {
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

olg_status olg__axes_error(olg_lower *cx, const char *op, const int64_t *axes, size_t n,
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

/* ------------------------------------------------------------------------------------------ */
/* Encoders whose encoding never changed much (the others: symbolics/emit_encode.c) */

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

/* op(a, b) with attribute axis: Compress and Gather */
static olg_status emit2_axis(olg_lower *cx, const char *op, olg_value a, olg_value b, int64_t axis,
                             olg_value *out) {
  olg_node_id nd;
  OLG_TRY(olg_lower_emit_begin(cx, "", op, &nd));
  OLG_TRY(olg_lower_emit_input(cx, nd, a));
  OLG_TRY(olg_lower_emit_input(cx, nd, b));
  OLG_TRY(olg_lower_emit_attr_int(cx, nd, "axis", axis));
  return olg_lower_emit_end(cx, nd, 1, out);
}

olg_status olg__emit_compress(olg_lower *cx, olg_value x, olg_value condition, int64_t axis,
                              olg_value *out) {
  return emit2_axis(cx, "Compress", x, condition, axis, out);
}

olg_status olg__emit_gather(olg_lower *cx, olg_value x, olg_value indices, int64_t axis,
                            olg_value *out) {
  int32_t rank = olg__rank(cx, x);
  if (rank >= 0) {
    int64_t a = olg__norm_axis(axis, rank);
    if (a < 0) return olg__axes_error(cx, "Gather", &axis, 1, rank);
    axis = a;
  } else if (axis < 0 && olg__opset(cx) < 11) {
    return olg__axes_error(cx, "Gather", &axis, 1, rank);
  }
  olg_dtype it = olg__dtype(cx, indices);
  if (it != OLG_INT64 && it != OLG_INT32) OLG_TRY(olg__emit_cast(cx, indices, OLG_INT64, &indices));
  return emit2_axis(cx, "Gather", x, indices, axis, out);
}

olg_status olg__emit_reshape(olg_lower *cx, olg_value x, olg_value shape, olg_value *out) {
  OLG_TRY(olg__emit_cast(cx, shape, OLG_INT64, &shape));
  return olg__emit2(cx, "Reshape", x, shape, out);
}

olg_status olg__emit_reshape_allowzero(olg_lower *cx, olg_value x, olg_value shape,
                                      olg_zero_size zero, olg_value *out) {
  if (olg__opset(cx) < 14) { /* no allowzero: a 0 copies the input's dim */
    if (zero == OLG_ZERO_KNOWN) return olg_lower_unsupported(cx, "a reshape to a size of 0", 14);
    if (zero == OLG_ZERO_WARN)
      OLG_TRY(olg_lower_warning(cx, "a run-time size of 0 would copy the input's dim below "
                                    "opset 14 (Reshape's allowzero)"));
    return olg__emit_reshape(cx, x, shape, out);
  }
  olg_node_id nd;
  OLG_TRY(olg_lower_emit_begin(cx, "", "Reshape", &nd));
  OLG_TRY(olg_lower_emit_input(cx, nd, x));
  OLG_TRY(olg_lower_emit_input(cx, nd, shape));
  OLG_TRY(olg_lower_emit_attr_int(cx, nd, "allowzero", 1));
  return olg_lower_emit_end(cx, nd, 1, out);
}

/* A 0 in an allowzero shape is a size of 0, so a valid input then has no elements; Reshape
 * before 14 copies the input's dim for a 0 instead. So the input is first tiled to
 * [e_0 .. e_r-1, N] (e_i 0 where the shape's entry is 0, else 1; N its element count): the dims
 * a 0 copies are then 0, and without a 0 the N elements are the input's, in order. */
olg_status olg__emit_reshape_zero_exact(olg_lower *cx, olg_value x, olg_value shape, olg_value *out) {
  olg_value zero, one, e, ones, flat, reps, v, u;
  OLG_TRY(olg__emit_cast(cx, shape, OLG_INT64, &shape));
  OLG_TRY(olg__const_i64(cx, 0, &zero));
  OLG_TRY(olg__emit2(cx, "Equal", shape, zero, &e));
  OLG_TRY(olg__emit1(cx, "Not", e, &e));
  OLG_TRY(olg__emit_cast(cx, e, OLG_INT64, &e));
  OLG_TRY(olg__emit2(cx, "Equal", shape, shape, &ones)); /* the shape's length, at run time */
  OLG_TRY(olg__emit_cast(cx, ones, OLG_INT64, &ones));
  OLG_TRY(olg__const_i64s(cx, (const int64_t[]){-1}, 1, &flat));
  OLG_TRY(olg__const_i64s(cx, (const int64_t[]){1}, 1, &one));
  OLG_TRY(olg__emit_concat(cx, (const olg_value[]){ones, flat}, 2, 0, &v));
  OLG_TRY(olg__emit2(cx, "Reshape", x, v, &v)); /* [1 .. 1, N] */
  OLG_TRY(olg__emit_concat(cx, (const olg_value[]){e, one}, 2, 0, &reps));
  OLG_TRY(olg__emit2(cx, "Tile", v, reps, &u));
  return olg__emit2(cx, "Reshape", u, shape, out);
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
    if (a < 0) return olg__axes_error(cx, "Concat", &axis, 1, rank);
    axis = a;
  } else if (axis < 0 && olg__opset(cx) < 11) {
    return olg__axes_error(cx, "Concat", &axis, 1, rank);
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
      if (olg__opset(cx) < 11) return olg__axes_error(cx, "Flatten", &axis, 1, rank);
    } else {
      axis += rank;
    }
  }
  if (rank >= 0 && (axis < 0 || axis > rank)) return olg__axes_error(cx, "Flatten", &axis, 1, rank);
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
      if (numel > ((uint64_t)1 << 30) / es) /* a shape from a file may be anything */
        return olg__unsupportedf(cx, 9, "a filled %s tensor of %llu elements, over 1 GiB, as a "
                                 "constant (ConstantOfShape makes it at run time)",
                                 olg_dtype_name(dtype), (unsigned long long)numel);
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
