/* onnxlegal — the math emit helpers of symbolics/emit_math.h: PyTorch's type promotion, the
 * carrier dtypes of ops whose type constraints changed across opsets, comparisons, isnan,
 * Where, Max/Min, trunc and round, exact at every target opset. Encoding choices by opset live
 * here, not in the family files that call them (elementwise.c, activation.c, reduce.c, ...). */
#include <float.h>
#include <math.h>
#include <string.h>

#include "emit_math.h"
#include "../lib/schema.h"

/* ------------------------------------------------------------------------------------------ */
/* Type promotion (PyTorch's c10 rules) */

bool olg__is_unsigned(olg_dtype t) {
  return t == OLG_UINT8 || t == OLG_UINT16 || t == OLG_UINT32 || t == OLG_UINT64;
}

bool olg__is_int(olg_dtype t) {
  return olg__is_unsigned(t) || t == OLG_INT8 || t == OLG_INT16 || t == OLG_INT32 || t == OLG_INT64;
}

olg_dtype olg__promote_types(olg_dtype a, olg_dtype b) {
  if (a == OLG_UNDEFINED) return b;
  if (b == OLG_UNDEFINED || a == b) return a;
  if (a == OLG_BOOL) return b;
  if (b == OLG_BOOL) return a;
  bool fa = olg__is_float(a), fb = olg__is_float(b);
  if (fa && fb) {
    if ((a == OLG_FLOAT16 && b == OLG_BFLOAT16) || (a == OLG_BFLOAT16 && b == OLG_FLOAT16))
      return OLG_FLOAT;
    return olg_dtype_bits(a) >= olg_dtype_bits(b) ? a : b;
  }
  if (fa) return a;
  if (fb) return b;
  if (olg__is_unsigned(a) == olg__is_unsigned(b)) return olg_dtype_bits(a) >= olg_dtype_bits(b) ? a : b;
  olg_dtype s = olg__is_unsigned(a) ? b : a, u = olg__is_unsigned(a) ? a : b;
  if (olg_dtype_bits(s) > olg_dtype_bits(u)) return s;
  switch (olg_dtype_bits(u)) { /* uint8 + int8 = int16, as torch */
  case 8: return OLG_INT16;
  case 16: return OLG_INT32;
  default: return OLG_INT64;
  }
}

/* c10's combine_categories: the higher-priority group wins unless the lower one is of a higher
 * category (bool < integer < floating). */
static olg_dtype combine_categories(olg_dtype higher, olg_dtype lower) {
  if (olg__is_float(higher)) return higher;
  if (higher == OLG_BOOL || olg__is_float(lower)) return olg__promote_types(higher, lower);
  return higher != OLG_UNDEFINED ? higher : lower;
}

olg_status olg__result_type(olg_lower *cx, const size_t *args, size_t n, olg_dtype *out) {
  olg_dtype dim = OLG_UNDEFINED, zero = OLG_UNDEFINED, wrapped = OLG_UNDEFINED;
  for (size_t k = 0; k < n; k++) {
    size_t i = args[k];
    switch (olg_lower_arg_kind(cx, i)) {
    case OLG_ARGKIND_NONE: break;
    case OLG_ARGKIND_VALUE: {
      olg_value v;
      OLG_TRY(olg_lower_arg_value(cx, i, &v));
      olg_dtype t = olg__dtype(cx, v);
      if (t == OLG_UNDEFINED)
        return olg__errf(cx, OLG_ERR_UNSUPPORTED, "the dtype of argument %zu is not known", i);
      if (olg__rank(cx, v) == 0) zero = olg__promote_types(zero, t);
      else dim = olg__promote_types(dim, t);
      break;
    }
    case OLG_ARGKIND_INT: wrapped = olg__promote_types(wrapped, OLG_INT64); break;
    case OLG_ARGKIND_FLOAT: wrapped = olg__promote_types(wrapped, OLG_FLOAT); break;
    case OLG_ARGKIND_BOOL: wrapped = olg__promote_types(wrapped, OLG_BOOL); break;
    default:
      return olg__errf(cx, OLG_ERR_TYPE, "argument %zu must be a tensor or a number", i);
    }
  }
  *out = combine_categories(dim, combine_categories(zero, wrapped));
  if (*out == OLG_UNDEFINED)
    return olg_lower_error(cx, OLG_ERR_TYPE, "no tensor or number to take a dtype from");
  return OLG_OK;
}

olg_status olg__arg_cast(olg_lower *cx, size_t i, olg_dtype t, olg_value *out) {
  int k = olg_lower_arg_kind(cx, i);
  if (k == OLG_ARGKIND_VALUE) {
    OLG_TRY(olg_lower_arg_value(cx, i, out));
    return olg__emit_cast(cx, *out, t, out);
  }
  if (k == OLG_ARGKIND_INT && t == OLG_INT64) { /* exact beyond 2^53 */
    int64_t v;
    OLG_TRY(olg_lower_arg_int(cx, i, &v));
    return olg__const_tensor(cx, t, 0, NULL, &v, sizeof v, out);
  }
  double v;
  OLG_TRY(olg_lower_arg_float(cx, i, &v));
  return olg__const_scalar(cx, t, v, out);
}

/* Arguments ia and ib brought to their result dtype *t. */
olg_status olg__binary_operands(olg_lower *cx, size_t ia, size_t ib, olg_dtype *t,
                                olg_value *a, olg_value *b) {
  size_t args[2] = {ia, ib};
  OLG_TRY(olg__result_type(cx, args, 2, t));
  OLG_TRY(olg__arg_cast(cx, ia, *t, a));
  return olg__arg_cast(cx, ib, *t, b);
}

/* ------------------------------------------------------------------------------------------ */
/* Carriers: computing where the op does not take the dtype */

static bool op_takes(const char *op, int opset, int input, olg_dtype t) {
  const olg_schema *s = olg_schema_find("", op, opset);
  if (!s || s->deprecated) return false;
  const olg_formal *f = olg_schema_input_formal(s, input);
  return f && olg_schema_formal_allows_dtype(f, t);
}

bool olg__op_takes(const olg_lower *cx, const char *op, int input, olg_dtype t) {
  return op_takes(op, olg__opset(cx), input, t);
}

int olg__lowest_opset_taking(const char *op, int input, olg_dtype t) {
  for (int o = OLG_LOWER_OPSET_MIN; o <= OLG_LOWER_OPSET_MAX; o++)
    if (op_takes(op, o, input, t)) return o;
  return -1;
}

olg_status olg__compute_dtype(olg_lower *cx, const char *op, int input, olg_dtype t,
                              olg_dtype *out) {
  int opset = olg__opset(cx);
  if (op_takes(op, opset, input, t)) {
    *out = t;
    return OLG_OK;
  }
  /* wider types that hold every value of t exactly, best first */
  static const olg_dtype halfs[] = {OLG_FLOAT, OLG_DOUBLE, 0};
  static const olg_dtype floats[] = {OLG_DOUBLE, 0};
  static const olg_dtype bools[] = {OLG_INT32, OLG_INT64, OLG_FLOAT, OLG_DOUBLE, 0};
  static const olg_dtype smalls[] = {OLG_INT32, OLG_INT64, OLG_DOUBLE, OLG_FLOAT, 0};
  static const olg_dtype words[] = {OLG_INT64, OLG_DOUBLE, 0};
  static const olg_dtype none[] = {0};
  const olg_dtype *c = none;
  switch (t) {
  case OLG_FLOAT16: case OLG_BFLOAT16: c = halfs; break;
  case OLG_FLOAT: c = floats; break;
  case OLG_BOOL: c = bools; break;
  case OLG_INT8: case OLG_UINT8: case OLG_INT16: case OLG_UINT16: c = smalls; break;
  case OLG_INT32: case OLG_UINT32: c = words; break;
  default: break;
  }
  for (; *c; c++)
    if (op_takes(op, opset, input, *c)) {
      *out = *c;
      return OLG_OK;
    }
  return olg__unsupportedf(cx, olg__lowest_opset_taking(op, input, t), "%s of %s tensors", op,
                           olg_dtype_name(t));
}

olg_status olg__emit_math(olg_lower *cx, const char *op, const olg_value *in, size_t n,
                          olg_value *out) {
  const olg_schema *s = olg_schema_find("", op, olg__opset(cx));
  if (!s || s->deprecated || n > 8)
    return olg__unsupportedf(cx, olg__lowest_opset_taking(op, 0, OLG_FLOAT), "ONNX %s", op);
  /* the first input whose type is a constraint with a choice is the common type */
  int typed = -1;
  const char *tstr = NULL;
  for (size_t i = 0; i < n && typed < 0; i++) {
    const olg_formal *f = olg_schema_input_formal(s, (int)i);
    if (f && (f->tensor_dtypes & (f->tensor_dtypes - 1))) {
      typed = (int)i;
      tstr = f->type_str;
    }
  }
  if (typed < 0) return olg__emit(cx, op, in, n, out);
  olg_dtype t = olg__dtype(cx, in[typed]), ct;
  if (t == OLG_UNDEFINED) return olg__emit(cx, op, in, n, out);
  OLG_TRY(olg__compute_dtype(cx, op, typed, t, &ct));
  if (ct == t) return olg__emit(cx, op, in, n, out);
  olg_value cin[8];
  for (size_t i = 0; i < n; i++) {
    const olg_formal *f = olg_schema_input_formal(s, (int)i);
    cin[i] = in[i];
    if (in[i] != OLG_NO_VALUE && f && strcmp(f->type_str, tstr) == 0)
      OLG_TRY(olg__emit_cast(cx, in[i], ct, &cin[i]));
  }
  olg_value y;
  OLG_TRY(olg__emit(cx, op, cin, n, &y));
  if (olg__dtype(cx, y) == OLG_BOOL && t != OLG_BOOL) {
    *out = y;
    return OLG_OK;
  }
  return olg__emit_cast(cx, y, t, out);
}

olg_status olg__emit_math1(olg_lower *cx, const char *op, olg_value x, olg_value *out) {
  return olg__emit_math(cx, op, &x, 1, out);
}

olg_status olg__emit_math2(olg_lower *cx, const char *op, olg_value a, olg_value b,
                           olg_value *out) {
  olg_value in[2] = {a, b};
  return olg__emit_math(cx, op, in, 2, out);
}

/* ------------------------------------------------------------------------------------------ */
/* Comparisons, NaN, Where, trunc */

static olg_status const_f(olg_lower *cx, olg_dtype t, double v, olg_value *out) {
  return olg__const_scalar(cx, t, v, out);
}

/* x is not NaN: x < +inf or x > -inf (exact at every opset, IsNaN not needed). */
static olg_status not_nan(olg_lower *cx, olg_value x, olg_value *out) {
  double v;
  if (olg__known_scalar(cx, x, &v) && !isnan(v)) return olg__const_scalar(cx, OLG_BOOL, 1, out);
  if (olg__opset(cx) >= 9) {
    OLG_TRY(olg__emit_isnan(cx, x, out));
    return olg__emit1(cx, "Not", *out, out);
  }
  olg_dtype t = olg__dtype(cx, x);
  olg_value pinf, ninf, lt, gt;
  OLG_TRY(const_f(cx, t, INFINITY, &pinf));
  OLG_TRY(const_f(cx, t, -INFINITY, &ninf));
  OLG_TRY(olg__emit_math2(cx, "Less", x, pinf, &lt));
  OLG_TRY(olg__emit_math2(cx, "Greater", x, ninf, &gt));
  return olg__emit2(cx, "Or", lt, gt, out);
}

olg_status olg__emit_isnan(olg_lower *cx, olg_value x, olg_value *out) {
  if (olg__opset(cx) >= 9) return olg__emit_math1(cx, "IsNaN", x, out);
  OLG_TRY(not_nan(cx, x, out));
  return olg__emit1(cx, "Not", *out, out);
}

/* Less or Greater of two tensors of one dtype. Integers at opsets 7-8, where the ops take only
 * floats: the sign of the difference in int64, which Cast to float keeps exactly. */
static olg_status less_greater(olg_lower *cx, const char *op, olg_value a, olg_value b,
                               olg_value *out) {
  olg_dtype t = olg__dtype(cx, a);
  if ((olg__is_int(t) || t == OLG_BOOL) && !op_takes(op, olg__opset(cx), 0, t) &&
      !op_takes(op, olg__opset(cx), 0, OLG_INT32)) {
    olg_value a64, b64, d, zero;
    OLG_TRY(olg_lower_decompose(cx, "an order comparison of integer tensors", 9));
    OLG_TRY(olg__emit_cast(cx, a, OLG_INT64, &a64));
    OLG_TRY(olg__emit_cast(cx, b, OLG_INT64, &b64));
    OLG_TRY(olg__emit2(cx, "Sub", a64, b64, &d));
    OLG_TRY(olg__emit_cast(cx, d, OLG_FLOAT, &d));
    OLG_TRY(const_f(cx, OLG_FLOAT, 0, &zero));
    return olg__emit2(cx, op, d, zero, out);
  }
  return olg__emit_math2(cx, op, a, b, out);
}

static olg_status equal(olg_lower *cx, olg_value a, olg_value b, olg_value *out) {
  olg_dtype t = olg__dtype(cx, a);
  if (olg__is_int(t) && !op_takes("Equal", olg__opset(cx), 0, t) &&
      op_takes("Equal", olg__opset(cx), 0, OLG_INT64)) {
    /* integers Equal lacks (before 11): as int64, a one-to-one cast (uint64 wraps) */
    OLG_TRY(olg__emit_cast(cx, a, OLG_INT64, &a));
    OLG_TRY(olg__emit_cast(cx, b, OLG_INT64, &b));
    return olg__emit_math2(cx, "Equal", a, b, out);
  }
  if (!olg__is_float(t) || op_takes("Equal", olg__opset(cx), 0, t))
    return olg__emit_math2(cx, "Equal", a, b, out);
  /* floats below 11: neither less nor greater, and neither is NaN */
  olg_value lt, gt, either, ordered, na, nb, both;
  OLG_TRY(olg_lower_decompose(cx, "equality of float tensors", 11));
  OLG_TRY(less_greater(cx, "Less", a, b, &lt));
  OLG_TRY(less_greater(cx, "Greater", a, b, &gt));
  OLG_TRY(olg__emit2(cx, "Or", lt, gt, &either));
  OLG_TRY(olg__emit1(cx, "Not", either, &ordered));
  OLG_TRY(not_nan(cx, a, &na));
  OLG_TRY(not_nan(cx, b, &nb));
  OLG_TRY(olg__emit2(cx, "And", na, nb, &both));
  return olg__emit2(cx, "And", ordered, both, out);
}

/* a <= b (le) or a >= b. */
static olg_status less_equal(olg_lower *cx, bool le, olg_value a, olg_value b, olg_value *out) {
  int opset = olg__opset(cx);
  olg_dtype t = olg__dtype(cx, a);
  if (opset >= 12) return olg__emit_math2(cx, le ? "LessOrEqual" : "GreaterOrEqual", a, b, out);
  olg_value strict, eq, inv;
  if (!olg__is_float(t)) { /* no NaN: not greater */
    OLG_TRY(less_greater(cx, le ? "Greater" : "Less", a, b, &inv));
    return olg__emit1(cx, "Not", inv, out);
  }
  if (op_takes("Equal", opset, 0, t)) {
    OLG_TRY(less_greater(cx, le ? "Less" : "Greater", a, b, &strict));
    OLG_TRY(olg__emit_math2(cx, "Equal", a, b, &eq));
    return olg__emit2(cx, "Or", strict, eq, out);
  }
  /* Not(Greater) is true for NaN: and it with "neither is NaN" */
  olg_value na, nb, both;
  OLG_TRY(less_greater(cx, le ? "Greater" : "Less", a, b, &inv));
  OLG_TRY(olg__emit1(cx, "Not", inv, &inv));
  OLG_TRY(not_nan(cx, a, &na));
  OLG_TRY(not_nan(cx, b, &nb));
  OLG_TRY(olg__emit2(cx, "And", na, nb, &both));
  return olg__emit2(cx, "And", inv, both, out);
}

olg_status olg__emit_compare(olg_lower *cx, olg_cmp op, olg_value a, olg_value b,
                             olg_value *out) {
  switch (op) {
  case OLG_CMP_EQ: return equal(cx, a, b, out);
  case OLG_CMP_NE:
    OLG_TRY(equal(cx, a, b, out));
    return olg__emit1(cx, "Not", *out, out);
  case OLG_CMP_LT: return less_greater(cx, "Less", a, b, out);
  case OLG_CMP_GT: return less_greater(cx, "Greater", a, b, out);
  case OLG_CMP_LE: return less_equal(cx, true, a, b, out);
  case OLG_CMP_GE: return less_equal(cx, false, a, b, out);
  }
  return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "unknown comparison");
}

/* The broadcast of static dims da (rank ra) and db (rank rb) into dims; false if they do not
 * broadcast. */
static bool broadcast_dims(const int64_t *da, int32_t ra, const int64_t *db, int32_t rb, int64_t *dims,
                           int32_t *rank) {
  int32_t r = ra > rb ? ra : rb;
  for (int32_t i = 0; i < r; i++) {
    int64_t x = i - (r - ra) >= 0 ? da[i - (r - ra)] : 1, y = i - (r - rb) >= 0 ? db[i - (r - rb)] : 1;
    if (x != y && x != 1 && y != 1) return false;
    dims[i] = x == 1 ? y : x;
  }
  *rank = r;
  return true;
}

static bool broadcast_shape(const olg_lower *cx, olg_value a, olg_value b, int64_t *dims,
                            int32_t *rank) {
  int64_t da[OLG_MAX_RANK], db[OLG_MAX_RANK];
  int32_t ra, rb;
  if (!olg__static_shape(cx, a, da, &ra) || !olg__static_shape(cx, b, db, &rb)) return false;
  return broadcast_dims(da, ra, db, rb, dims, rank);
}

/* Where below 9: a Gather from Concat(b, a) flattened at i + cond[i] * N, shapes known at
 * conversion time (the positions 0..N-1 are a constant: up to 2^16 elements). A pick, exact for
 * every value and type, as Where itself. */
static olg_status where_by_gather(olg_lower *cx, olg_value cond, olg_value a, olg_value b,
                                  olg_value *out) {
  int64_t ab[OLG_MAX_RANK], dc[OLG_MAX_RANK], dims[OLG_MAX_RANK];
  int32_t rab, rc, r;
  uint64_t n;
  if (!broadcast_shape(cx, a, b, ab, &rab) || !olg__static_shape(cx, cond, dc, &rc) ||
      !broadcast_dims(ab, rab, dc, rc, dims, &r))
    return olg_lower_unsupported(cx, "Where (an elementwise choice) of shapes not known", 9);
  if (!olg__shape_numel(r, dims, &n) || n > (1u << 16))
    return olg_lower_unsupported(cx, "Where (an elementwise choice) of more than 65536 elements", 9);
  int64_t *pos = olg__lower_alloc(cx, (n ? n : 1) * sizeof *pos);
  if (!pos) return OLG_ERR_NOMEM;
  for (uint64_t i = 0; i < n; i++) pos[i] = (int64_t)i;
  olg_value shape, parts[2], cat, idx, pv, nv;
  OLG_TRY(olg__const_i64s(cx, dims, (size_t)r, &shape));
  OLG_TRY(olg__emit_expand(cx, b, shape, &parts[0]));
  OLG_TRY(olg__emit_expand(cx, a, shape, &parts[1]));
  OLG_TRY(olg__emit_expand(cx, cond, shape, &cond));
  for (int i = 0; i < 2; i++) OLG_TRY(olg__emit_reshape_static(cx, parts[i], (const int64_t[]){-1}, 1, &parts[i]));
  OLG_TRY(olg__emit_concat(cx, parts, 2, 0, &cat));
  OLG_TRY(olg__emit_cast(cx, cond, OLG_INT64, &idx));
  OLG_TRY(olg__const_i64(cx, (int64_t)n, &nv));
  OLG_TRY(olg__emit2(cx, "Mul", idx, nv, &idx));
  OLG_TRY(olg__const_tensor_kept(cx, OLG_INT64, r, dims, pos, (size_t)n * sizeof *pos, &pv));
  OLG_TRY(olg__emit2(cx, "Add", idx, pv, &idx));
  return olg__emit_gather(cx, cat, idx, 0, out);
}

olg_status olg__emit_where(olg_lower *cx, olg_value cond, olg_value a, olg_value b,
                           olg_value *out) {
  OLG_TRY(olg__emit_cast(cx, cond, OLG_BOOL, &cond));
  if (!olg__target_has(cx, "Where")) return where_by_gather(cx, cond, a, b, out);
  olg_value in[3] = {cond, a, b};
  return olg__emit_math(cx, "Where", in, 3, out);
}

/* x < 0 as a bool tensor, for any numeric dtype at any opset. */
olg_status olg__emit_is_negative(olg_lower *cx, olg_value x, olg_value *out) {
  olg_value zero;
  OLG_TRY(olg__const_like(cx, x, 0, &zero));
  return less_greater(cx, "Less", x, zero, out);
}

olg_status olg__emit_trunc(olg_lower *cx, olg_value x, olg_value *out) {
  /* Floor(|x|) * (1 - 2*[x < 0]): keeps inf, NaN and the sign of -0.5 -> -0 */
  olg_value ax, fl, neg, m, two, one, s;
  OLG_TRY(olg__emit_math1(cx, "Abs", x, &ax));
  OLG_TRY(olg__emit_math1(cx, "Floor", ax, &fl));
  OLG_TRY(olg__emit_is_negative(cx, x, &neg));
  OLG_TRY(olg__emit_cast_like(cx, neg, x, &m));
  OLG_TRY(olg__const_like(cx, x, 2, &two));
  OLG_TRY(olg__const_like(cx, x, 1, &one));
  OLG_TRY(olg__emit_math2(cx, "Mul", m, two, &m));
  OLG_TRY(olg__emit_math2(cx, "Sub", one, m, &s));
  return olg__emit_math2(cx, "Mul", fl, s, out);
}

olg_status olg__reduce_dims(olg_lower *cx, size_t i, int32_t rank, int64_t *dims, size_t *n,
                            bool *all) {
  const int64_t *p = NULL;
  size_t k = 0;
  *n = 0;
  *all = false;
  if (!olg_lower_arg_is_none(cx, i)) OLG_TRY(olg_lower_arg_ints(cx, i, &p, &k));
  if (!k) {
    *all = true;
    return OLG_OK;
  }
  if (rank < 0)
    return olg_lower_error(cx, OLG_ERR_UNSUPPORTED, "the rank of the input is not known");
  if (k > OLG_MAX_RANK) return olg_lower_error(cx, OLG_ERR_LIMIT, "too many dims");
  for (size_t j = 0; j < k; j++) {
    int64_t d = rank == 0 && (p[j] == 0 || p[j] == -1) ? 0 : olg__norm_axis(p[j], rank);
    if (d < 0)
      return olg__errf(cx, OLG_ERR_RANGE, "dim %lld is out of range for rank %d",
                       (long long)p[j], rank);
    for (size_t m = 0; m < *n; m++)
      if (dims[m] == d) return olg__errf(cx, OLG_ERR_INVALID_ARG, "dim %lld repeated", (long long)d);
    dims[(*n)++] = d;
  }
  if (rank == 0) { /* the one "dim" of a 0-D tensor: nothing to reduce */
    *n = 0;
    *all = true;
  }
  return OLG_OK;
}


/* Round half to even of a float tensor without Round-11: r = floor(x), f = x - r (exact);
 * r + [f > 0.5] + [f == 0.5] * (r odd). Oddness from r clipped to +-2^24 (every float there is
 * an integer; keeps inf finite); f is NaN for +-inf, where both masks are 0 or the odd test
 * gives 0. */
olg_status olg__emit_round_even_floor(olg_lower *cx, olg_value x, olg_value *out) {
  olg_value r, f, half, gt, lt, eq, rc, h, fh, odd, two, y;
  OLG_TRY(olg__emit_math1(cx, "Floor", x, &r));
  OLG_TRY(olg__emit_math2(cx, "Sub", x, r, &f));
  OLG_TRY(olg__const_like(cx, x, 0.5, &half));
  OLG_TRY(less_greater(cx, "Greater", f, half, &gt));
  OLG_TRY(less_greater(cx, "Less", f, half, &lt));
  OLG_TRY(olg__emit2(cx, "Or", gt, lt, &eq));
  OLG_TRY(olg__emit1(cx, "Not", eq, &eq)); /* f == 0.5, or f NaN (x infinite) */
  OLG_TRY(olg__emit_clip_f(cx, r, 1, -16777216.0, 1, 16777216.0, &rc));
  OLG_TRY(olg__emit_math2(cx, "Mul", rc, half, &h));
  OLG_TRY(olg__emit_math1(cx, "Floor", h, &fh));
  OLG_TRY(olg__const_like(cx, x, 2, &two));
  OLG_TRY(olg__emit_math2(cx, "Mul", fh, two, &fh));
  OLG_TRY(olg__emit_math2(cx, "Sub", rc, fh, &odd)); /* 0 or 1 */
  OLG_TRY(olg__emit_cast_like(cx, eq, x, &eq));
  OLG_TRY(olg__emit_math2(cx, "Mul", eq, odd, &odd));
  OLG_TRY(olg__emit_cast_like(cx, gt, x, &gt));
  OLG_TRY(olg__emit_math2(cx, "Add", r, gt, &y));
  return olg__emit_math2(cx, "Add", y, odd, out);
}

/* The broadcast shape of a and b when both are static. */
olg_status olg__emit_max_min(olg_lower *cx, bool max, olg_value a, olg_value b, olg_value *out) {
  olg_dtype t = olg__dtype(cx, a);
  if (t == OLG_BOOL) return olg__emit2(cx, max ? "Or" : "And", a, b, out);
  if (olg__is_int(t) && !op_takes(max ? "Max" : "Min", olg__opset(cx), 0, t)) {
    /* integers before Max-12: a + (b - a) * [b > a] (or [b < a]), exact, broadcasting */
    olg_value d, m;
    OLG_TRY(less_greater(cx, max ? "Greater" : "Less", b, a, &m));
    OLG_TRY(olg__emit_cast(cx, m, t, &m));
    OLG_TRY(olg__emit_math2(cx, "Sub", b, a, &d));
    OLG_TRY(olg__emit_math2(cx, "Mul", d, m, &d));
    return olg__emit_math2(cx, "Add", a, d, out);
  }
  if (olg__opset(cx) < 8) { /* Max-6/Min-6 do not broadcast: expand both to the common shape */
    int64_t dims[OLG_MAX_RANK], da[OLG_MAX_RANK], db[OLG_MAX_RANK];
    int32_t r, ra, rb;
    if (!broadcast_shape(cx, a, b, dims, &r))
      return olg_lower_unsupported(cx, "Max/Min of tensors whose shapes are not static", 8);
    olg_value shape;
    OLG_TRY(olg__const_i64s(cx, dims, (size_t)r, &shape));
    olg__static_shape(cx, a, da, &ra);
    olg__static_shape(cx, b, db, &rb);
    if (ra != r || memcmp(da, dims, (size_t)r * sizeof *dims)) OLG_TRY(olg__emit_expand(cx, a, shape, &a));
    if (rb != r || memcmp(db, dims, (size_t)r * sizeof *dims)) OLG_TRY(olg__emit_expand(cx, b, shape, &b));
  }
  return olg__emit_math2(cx, max ? "Max" : "Min", a, b, out);
}


olg_status olg__emit_sign_cmp(olg_lower *cx, olg_value x, olg_value *out) {
  olg_dtype t = olg__dtype(cx, x);
  olg_value zero, pos, neg;
  OLG_TRY(olg__const_like(cx, x, 0, &zero));
  OLG_TRY(olg__emit_compare(cx, OLG_CMP_GT, x, zero, &pos));
  OLG_TRY(olg__emit_compare(cx, OLG_CMP_LT, x, zero, &neg));
  OLG_TRY(olg__emit_cast(cx, pos, t, &pos));
  OLG_TRY(olg__emit_cast(cx, neg, t, &neg));
  return olg__emit_math2(cx, "Sub", pos, neg, out);
}

/* sinh = (e^x - e^-x) / 2, cosh = (e^x + e^-x) / 2; asinh = s * ln(|x| + sqrt(x^2 + 1)), odd so
 * that a negative x does not cancel, its sign s = [x > 0] - [x < 0] (Sign starts at 9); acosh = ln(x + sqrt(x^2 - 1)); atanh = ln((1 + x) / (1 - x)) / 2. */
olg_status olg__emit_hyperbolic(olg_lower *cx, const char *op, olg_value x, olg_value *out) {
  if (olg__target_has(cx, op)) return olg__emit_math1(cx, op, x, out);
  olg_dtype t = olg__dtype(cx, x);
  olg_value d, a, b, one, half, y;
  OLG_TRY(t == OLG_DOUBLE ? (d = x, OLG_OK) : olg__emit_cast(cx, x, OLG_DOUBLE, &d));
  OLG_TRY(olg__const_like(cx, d, 1.0, &one));
  OLG_TRY(olg__const_like(cx, d, 0.5, &half));
  if (!strcmp(op, "Sinh") || !strcmp(op, "Cosh")) {
    OLG_TRY(olg__emit_math1(cx, "Exp", d, &a));
    OLG_TRY(olg__emit_math1(cx, "Neg", d, &b));
    OLG_TRY(olg__emit_math1(cx, "Exp", b, &b));
    OLG_TRY(olg__emit_math2(cx, op[0] == 'S' ? "Sub" : "Add", a, b, &y));
    OLG_TRY(olg__emit_math2(cx, "Mul", y, half, &y));
  } else if (!strcmp(op, "Atanh")) {
    OLG_TRY(olg__emit_math2(cx, "Add", one, d, &a));
    OLG_TRY(olg__emit_math2(cx, "Sub", one, d, &b));
    OLG_TRY(olg__emit_math2(cx, "Div", a, b, &y));
    OLG_TRY(olg__emit_math1(cx, "Log", y, &y));
    OLG_TRY(olg__emit_math2(cx, "Mul", y, half, &y));
  } else if (!strcmp(op, "Asinh") || !strcmp(op, "Acosh")) {
    bool asinh = op[1] == 's';
    olg_value m = d, s = OLG_NO_VALUE;
    if (asinh) {
      OLG_TRY(olg__emit_math1(cx, "Abs", d, &m));
      OLG_TRY(olg__emit_sign_cmp(cx, d, &s));
    }
    OLG_TRY(olg__emit_math2(cx, "Mul", d, d, &a));
    OLG_TRY(olg__emit_math2(cx, asinh ? "Add" : "Sub", a, one, &a));
    OLG_TRY(olg__emit_math1(cx, "Sqrt", a, &a));
    OLG_TRY(olg__emit_math2(cx, "Add", m, a, &y));
    OLG_TRY(olg__emit_math1(cx, "Log", y, &y));
    if (asinh) OLG_TRY(olg__emit_math2(cx, "Mul", y, s, &y));
  } else {
    return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "olg__emit_hyperbolic: not a hyperbolic op");
  }
  return t == OLG_DOUBLE ? (*out = y, OLG_OK) : olg__emit_cast(cx, y, t, out);
}

olg_status olg__emit_int_pow(olg_lower *cx, olg_value a, olg_value e, olg_value *out) {
  olg_dtype t = olg__dtype(cx, a);
  if (!olg__target_has(cx, "Where"))
    return olg_lower_unsupported(cx, "an integer power of a 64-bit integer (Where)", 9);
  olg_value ai, ei, q, r, p, one, two, zero;
  OLG_TRY(t == OLG_INT64 ? (ai = a, OLG_OK) : olg__emit_cast(cx, a, OLG_INT64, &ai));
  OLG_TRY(olg__emit_cast(cx, e, OLG_INT64, &ei));
  int bits = 63;
  const int64_t *k;
  size_t n;
  if (olg__known_ints(cx, ei, &k, &n)) { /* only as many steps as the largest |e| has bits */
    uint64_t m = 0;
    for (size_t i = 0; i < n; i++) m |= k[i] < 0 ? 0 - (uint64_t)k[i] : (uint64_t)k[i];
    for (bits = 1; bits < 63 && (m >> bits); bits++) {
    }
  }
  OLG_TRY(olg__const_i64(cx, 1, &one));
  OLG_TRY(olg__const_i64(cx, 2, &two));
  OLG_TRY(olg__const_i64(cx, 0, &zero));
  OLG_TRY(olg__emit1(cx, "Abs", ei, &q));
  OLG_TRY(olg__emit2(cx, "Mul", ai, zero, &r)); /* ones in the broadcast shape of a and e */
  OLG_TRY(olg__emit2(cx, "Add", r, one, &r));
  OLG_TRY(olg__emit2(cx, "Mul", q, zero, &p));
  OLG_TRY(olg__emit2(cx, "Add", p, ai, &p));
  for (int b = 0; b < bits; b++) {
    olg_value half, low, set, rp;
    OLG_TRY(olg__emit2(cx, "Div", q, two, &half));
    OLG_TRY(olg__emit2(cx, "Mul", half, two, &low));
    OLG_TRY(olg__emit2(cx, "Sub", q, low, &low)); /* this bit of |e| */
    OLG_TRY(olg__emit2(cx, "Equal", low, one, &set));
    OLG_TRY(olg__emit2(cx, "Mul", r, p, &rp));
    OLG_TRY(olg__emit_where(cx, set, rp, r, &r));
    if (b + 1 < bits) OLG_TRY(olg__emit2(cx, "Mul", p, p, &p));
    q = half;
  }
  olg_value neg, unit, absa, keep;
  OLG_TRY(olg__emit_is_negative(cx, ei, &neg));
  OLG_TRY(olg__emit1(cx, "Abs", ai, &absa));
  OLG_TRY(olg__emit2(cx, "Equal", absa, one, &unit));
  OLG_TRY(olg__emit_where(cx, unit, r, zero, &keep));
  OLG_TRY(olg__emit_where(cx, neg, keep, r, &r));
  return t == OLG_INT64 ? (*out = r, OLG_OK) : olg__emit_cast(cx, r, t, out);
}

olg_status olg__emit_round(olg_lower *cx, olg_value x, olg_value *out) {
  if (olg__opset(cx) >= 11) return olg__emit_math1(cx, "Round", x, out);
  return olg__emit_round_even_floor(cx, x, out);
}

/* ---- remainders (aten::remainder / aten::fmod and ONNX Mod share them) ---- */

/* The remainder r = a - trunc(a/b)*b of integers (Div truncates), and whether Python's sign
 * rule needs r + b: r != 0 with a sign other than b's. */
olg_status olg__emit_int_trunc_rem(olg_lower *cx, olg_value a, olg_value b, olg_value *q,
                                    olg_value *r, olg_value *adj) {
  olg_value qb;
  OLG_TRY(olg__emit_math2(cx, "Div", a, b, q));
  OLG_TRY(olg__emit_math2(cx, "Mul", *q, b, &qb));
  OLG_TRY(olg__emit_math2(cx, "Sub", a, qb, r));
  if (!adj) return OLG_OK;
  olg_value zero, nz, rneg, bneg, diff;
  OLG_TRY(olg__const_like(cx, a, 0, &zero));
  OLG_TRY(olg__emit_compare(cx, OLG_CMP_NE, *r, zero, &nz));
  OLG_TRY(olg__emit_is_negative(cx, *r, &rneg));
  OLG_TRY(olg__emit_is_negative(cx, b, &bneg));
  OLG_TRY(olg__emit2(cx, "Xor", rneg, bneg, &diff));
  return olg__emit2(cx, "And", nz, diff, adj);
}

/* fmod (python 0) or Python's remainder (python 1) of floats. float32/float16 in double, where
 * a - q*b is exact; double with Mod-10 (fmod=1; has_mod) and PyTorch's sign fix-up. */
static olg_status rem_float(olg_lower *cx, bool has_mod, bool python, olg_value a, olg_value b,
                            olg_value *out) {
  olg_dtype t = olg__dtype(cx, a);
  olg_value q, qb, r;
  if (t == OLG_DOUBLE && has_mod) {
    olg_node_id nd;
    OLG_TRY(olg_lower_emit_begin(cx, "", "Mod", &nd));
    OLG_TRY(olg_lower_emit_input(cx, nd, a));
    OLG_TRY(olg_lower_emit_input(cx, nd, b));
    OLG_TRY(olg_lower_emit_attr_int(cx, nd, "fmod", 1));
    OLG_TRY(olg_lower_emit_end(cx, nd, 1, &r));
    if (!python) return (*out = r, OLG_OK);
    olg_value zero, nz, rneg, bneg, diff, adj, rb;
    OLG_TRY(olg__const_like(cx, a, 0, &zero));
    OLG_TRY(olg__emit_compare(cx, OLG_CMP_NE, r, zero, &nz));
    OLG_TRY(olg__emit_is_negative(cx, r, &rneg));
    OLG_TRY(olg__emit_is_negative(cx, b, &bneg));
    OLG_TRY(olg__emit2(cx, "Xor", rneg, bneg, &diff));
    OLG_TRY(olg__emit2(cx, "And", nz, diff, &adj));
    OLG_TRY(olg__emit2(cx, "Add", r, b, &rb));
    return olg__emit_where(cx, adj, rb, r, out);
  }
  olg_value ad = a, bd = b;
  if (t != OLG_DOUBLE) {
    OLG_TRY(olg__emit_cast(cx, a, OLG_DOUBLE, &ad));
    OLG_TRY(olg__emit_cast(cx, b, OLG_DOUBLE, &bd));
  }
  OLG_TRY(olg__emit2(cx, "Div", ad, bd, &q));
  if (python) OLG_TRY(olg__emit1(cx, "Floor", q, &q));
  else OLG_TRY(olg__emit_trunc(cx, q, &q));
  OLG_TRY(olg__emit2(cx, "Mul", q, bd, &qb));
  OLG_TRY(olg__emit2(cx, "Sub", ad, qb, &r));
  return olg__emit_cast(cx, r, t, out);
}

olg_status olg__emit_remainder(olg_lower *cx, bool has_mod, bool python, olg_value a, olg_value b,
                               olg_value *out) {
  olg_dtype t = olg__dtype(cx, a);
  olg_value y;
  if (t == OLG_BOOL) return olg_lower_error(cx, OLG_ERR_TYPE, "remainder of bool tensors");
  if (olg__is_float(t)) {
    OLG_TRY(rem_float(cx, has_mod, python, a, b, &y));
  } else if (has_mod) { /* Mod-10: fmod 0 takes the divisor's sign */
    olg_node_id nd;
    olg_dtype ct;
    OLG_TRY(olg__compute_dtype(cx, "Mod", 0, t, &ct));
    olg_value ac, bc;
    OLG_TRY(olg__emit_cast(cx, a, ct, &ac));
    OLG_TRY(olg__emit_cast(cx, b, ct, &bc));
    OLG_TRY(olg_lower_emit_begin(cx, "", "Mod", &nd));
    OLG_TRY(olg_lower_emit_input(cx, nd, ac));
    OLG_TRY(olg_lower_emit_input(cx, nd, bc));
    OLG_TRY(olg_lower_emit_attr_int(cx, nd, "fmod", python ? 0 : 1));
    OLG_TRY(olg_lower_emit_end(cx, nd, 1, &y));
    OLG_TRY(olg__emit_cast(cx, y, t, &y));
  } else {
    olg_value q, r, adj;
    OLG_TRY(olg__emit_int_trunc_rem(cx, a, b, &q, &r, python ? &adj : NULL));
    y = r;
    if (python) {
      olg_value m;
      OLG_TRY(olg__emit_cast(cx, adj, t, &m));
      OLG_TRY(olg__emit_math2(cx, "Mul", m, b, &m));
      OLG_TRY(olg__emit_math2(cx, "Add", r, m, &y));
    }
  }
  *out = y;
  return OLG_OK;
}

/* floor(a / b) for floats: float32 and float16 in double, where the quotient's floor is exact
 * (a quotient of 24-bit mantissas is never within 2^-53 of an integer it is not); double as
 * PyTorch computes it (fmod-based) when Mod (opset 10) is there (has_mod), else Floor(Div). */
static olg_status floor_div_float(olg_lower *cx, bool has_mod, olg_value a, olg_value b,
                                  olg_value *out) {
  olg_dtype t = olg__dtype(cx, a);
  olg_value q;
  if (t != OLG_DOUBLE || !has_mod) {
    olg_value ad, bd;
    OLG_TRY(olg__emit_cast(cx, a, OLG_DOUBLE, &ad));
    OLG_TRY(olg__emit_cast(cx, b, OLG_DOUBLE, &bd));
    OLG_TRY(olg__emit2(cx, "Div", ad, bd, &q));
    OLG_TRY(olg__emit1(cx, "Floor", q, &q));
    return olg__emit_cast(cx, q, t, out);
  }
  /* mod = fmod(a, b); div = (a - mod) / b, less 1 when mod and b differ in sign; its floor,
   * plus 1 when div - floor(div) > 0.5; a / b where b is 0 */
  olg_node_id nd;
  olg_value mod, div, zero, half, one, nz, mneg, bneg, diff, adj, fl, frac, up, bz, raw;
  OLG_TRY(olg_lower_emit_begin(cx, "", "Mod", &nd));
  OLG_TRY(olg_lower_emit_input(cx, nd, a));
  OLG_TRY(olg_lower_emit_input(cx, nd, b));
  OLG_TRY(olg_lower_emit_attr_int(cx, nd, "fmod", 1));
  OLG_TRY(olg_lower_emit_end(cx, nd, 1, &mod));
  OLG_TRY(olg__emit2(cx, "Sub", a, mod, &div));
  OLG_TRY(olg__emit2(cx, "Div", div, b, &div));
  OLG_TRY(olg__const_like(cx, a, 0, &zero));
  OLG_TRY(olg__const_like(cx, a, 0.5, &half));
  OLG_TRY(olg__const_like(cx, a, 1, &one));
  OLG_TRY(olg__emit_compare(cx, OLG_CMP_NE, mod, zero, &nz));
  OLG_TRY(olg__emit_is_negative(cx, mod, &mneg));
  OLG_TRY(olg__emit_is_negative(cx, b, &bneg));
  OLG_TRY(olg__emit2(cx, "Xor", mneg, bneg, &diff));
  OLG_TRY(olg__emit2(cx, "And", nz, diff, &adj));
  OLG_TRY(olg__emit_cast(cx, adj, t, &adj));
  OLG_TRY(olg__emit2(cx, "Sub", div, adj, &div));
  OLG_TRY(olg__emit1(cx, "Floor", div, &fl));
  OLG_TRY(olg__emit2(cx, "Sub", div, fl, &frac));
  OLG_TRY(olg__emit2(cx, "Greater", frac, half, &up));
  OLG_TRY(olg__emit_cast(cx, up, t, &up));
  OLG_TRY(olg__emit2(cx, "Add", fl, up, &fl));
  OLG_TRY(olg__emit_compare(cx, OLG_CMP_EQ, b, zero, &bz));
  OLG_TRY(olg__emit2(cx, "Div", a, b, &raw));
  return olg__emit_where(cx, bz, raw, fl, out);
}

olg_status olg__emit_floor_div(olg_lower *cx, bool has_mod, olg_dtype t, olg_value a, olg_value b,
                               olg_value *out) {
  if (olg__is_float(t)) return floor_div_float(cx, has_mod, a, b, out);
  if (t == OLG_BOOL) return olg_lower_error(cx, OLG_ERR_TYPE, "floor division of bool tensors");
  olg_value q, r, adj;
  OLG_TRY(olg__emit_int_trunc_rem(cx, a, b, &q, &r, &adj));
  OLG_TRY(olg__emit_cast(cx, adj, t, &adj));
  return olg__emit_math2(cx, "Sub", q, adj, out);
}
