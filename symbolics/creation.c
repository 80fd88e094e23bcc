/* onnxlegal — tensor creation: arange, zeros, ones, full, zeros_like, ones_like, full_like,
 * new_zeros, new_ones, new_full, linspace, bernoulli. Arguments as in PyTorch 1.13's schemas; the trailing
 * layout/device/pin_memory/memory_format arguments mean nothing in a graph and are ignored, the
 * dtype is honoured.
 *
 * What is known at export time becomes a constant computed here the way PyTorch computes it
 * (arange and linspace with PyTorch's own formulas); run-time values use Range (11) or
 * ConstantOfShape/Expand. */
#include <math.h>
#include <string.h>

#include "emit.h"
#include "emit_axes.h"
#include "emit_math.h"
#include "symbolics.h"


/* A Scalar argument: a literal, a known one-element tensor, or a run-time tensor. */
typedef struct scalar_arg {
  bool known;
  bool is_float; /* the Scalar holds a floating value (a float literal or a float tensor) */
  bool is_bool;
  double v;      /* when known */
  olg_value t;   /* when not known: the tensor (any shape of one element) */
} scalar_arg;

static olg_status read_scalar(olg_lower *cx, size_t i, double dflt, scalar_arg *s) {
  memset(s, 0, sizeof *s);
  s->t = OLG_NO_VALUE;
  int k = olg_lower_arg_kind(cx, i);
  if (k == OLG_ARGKIND_NONE) {
    s->known = true;
    s->v = dflt;
    return OLG_OK;
  }
  if (k == OLG_ARGKIND_VALUE) {
    olg_value v;
    OLG_TRY(olg_lower_arg_value(cx, i, &v));
    olg_dtype t = olg__dtype(cx, v);
    s->is_float = olg__is_float(t);
    s->is_bool = t == OLG_BOOL;
    if (olg__known_scalar(cx, v, &s->v)) {
      s->known = true;
      return OLG_OK;
    }
    s->t = v;
    return OLG_OK;
  }
  s->known = true;
  s->is_float = k == OLG_ARGKIND_FLOAT;
  s->is_bool = k == OLG_ARGKIND_BOOL;
  if (k == OLG_ARGKIND_INT) { /* keep int64 exact; a double holds ints up to 2^53 exactly */
    int64_t iv;
    OLG_TRY(olg_lower_arg_int(cx, i, &iv));
    s->v = (double)iv;
    return OLG_OK;
  }
  return olg_lower_arg_float(cx, i, &s->v);
}

/* The dtype PyTorch gives a tensor filled with this Scalar when no dtype is asked for. */
static olg_dtype scalar_default_dtype(const scalar_arg *s) {
  return s->is_bool ? OLG_BOOL : s->is_float ? OLG_FLOAT : OLG_INT64;
}

/* A size argument (int[] literal, a list of run-time ints, or a 1-D tensor) as a 1-D int64. */
static olg_status size_arg(olg_lower *cx, size_t i, olg_value *out) {
  int k = olg_lower_arg_kind(cx, i);
  if (k == OLG_ARGKIND_INTS || k == OLG_ARGKIND_INT) {
    const int64_t *p;
    size_t n;
    OLG_TRY(olg_lower_arg_ints(cx, i, &p, &n));
    for (size_t j = 0; j < n; j++)
      if (p[j] < 0)
        return olg__errf(cx, OLG_ERR_INVALID_ARG, "negative size %lld", (long long)p[j]);
    return olg__const_i64s(cx, p, n, out);
  }
  OLG_TRY(olg_lower_arg_as_tensor(cx, i, OLG_INT64, out));
  if (olg__rank(cx, *out) == 0) OLG_TRY(olg__emit_unsqueeze(cx, *out, (const int64_t[]){0}, 1, out));
  return OLG_OK;
}

/* A tensor of `shape` filled with the Scalar s, of dtype t. */
static olg_status fill(olg_lower *cx, olg_value shape, olg_dtype t, const scalar_arg *s,
                       olg_value *out) {
  if (s->known) return olg__emit_full(cx, shape, t, s->v, out);
  olg_value v;
  OLG_TRY(olg__emit_cast(cx, s->t, t, &v));
  if (olg__rank(cx, v) != 0) OLG_TRY(olg__emit_reshape_static(cx, v, NULL, 0, &v));
  return olg__emit_expand(cx, v, shape, out);
}

/* aten::zeros(SymInt[] size, *, ScalarType? dtype, Layout?, Device?, bool? pin_memory),
 * aten::ones (same), and their .names overloads (str[]? names after size): PyTorch's default
 * dtype is float32. */
static olg_status zeros_ones(olg_lower *cx, double v) {
  olg_value shape, y;
  OLG_TRY(size_arg(cx, 0, &shape));
  size_t dt_at = olg_lower_arg_count(cx) >= 6 ? 2 : 1; /* .names has one argument more */
  olg_dtype t;
  OLG_TRY(olg__arg_scalar_type_or(cx, dt_at, OLG_FLOAT, &t));
  OLG_TRY(olg__emit_full(cx, shape, t, v, &y));
  return olg_lower_bind_output(cx, 0, y);
}

olg_status olg__sym_zeros(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return zeros_ones(cx, 0);
}

/* aten::empty.memory_format(SymInt[] size, *, ScalarType? dtype, Layout?, Device?,
 * bool? pin_memory, MemoryFormat? memory_format): uninitialized memory in PyTorch, so any
 * contents are valid: zeros of the size and dtype (float32 by default). */
olg_status olg__sym_empty(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value shape, y;
  OLG_TRY(size_arg(cx, 0, &shape));
  olg_dtype t;
  OLG_TRY(olg__arg_scalar_type_or(cx, 1, OLG_FLOAT, &t));
  OLG_TRY(olg__emit_full(cx, shape, t, 0, &y));
  return olg_lower_bind_output(cx, 0, y);
}

olg_status olg__sym_ones(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return zeros_ones(cx, 1);
}

/* aten::full(SymInt[] size, Scalar fill_value, *, ScalarType? dtype, ...) and .names: without a
 * dtype, the fill value's kind decides (bool, int64, or float32). */
olg_status olg__sym_full(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value shape, y;
  scalar_arg s;
  OLG_TRY(size_arg(cx, 0, &shape));
  OLG_TRY(read_scalar(cx, 1, 0, &s));
  size_t dt_at = olg_lower_arg_count(cx) >= 7 ? 3 : 2;
  olg_dtype t;
  OLG_TRY(olg__arg_scalar_type_or(cx, dt_at, scalar_default_dtype(&s), &t));
  OLG_TRY(fill(cx, shape, t, &s, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* aten::zeros_like / ones_like(Tensor self, *, ScalarType? dtype, ...): self's dtype by default. */
static olg_status like(olg_lower *cx, const scalar_arg *s, size_t dt_at) {
  olg_value x, shape, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  olg_dtype t;
  OLG_TRY(olg__arg_scalar_type_or(cx, dt_at, olg__dtype(cx, x), &t));
  if (t == OLG_UNDEFINED) return olg_lower_error(cx, OLG_ERR_UNSUPPORTED, "the input's dtype is not known");
  OLG_TRY(olg__shape(cx, x, &shape));
  OLG_TRY(fill(cx, shape, t, s, &y));
  return olg_lower_bind_output(cx, 0, y);
}

olg_status olg__sym_zeros_like(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  scalar_arg s = {true, false, false, 0, OLG_NO_VALUE};
  return like(cx, &s, 1);
}

olg_status olg__sym_ones_like(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  scalar_arg s = {true, false, false, 1, OLG_NO_VALUE};
  return like(cx, &s, 1);
}

/* aten::full_like(Tensor self, Scalar fill_value, *, ScalarType? dtype, ...), and
 * aten::fill.Scalar / fill.Tensor(Tensor self, value) (the functional form of fill_; a value
 * tensor of one element, cast to self's dtype). */
olg_status olg__sym_full_like(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  scalar_arg s;
  OLG_TRY(read_scalar(cx, 1, 0, &s));
  return like(cx, &s, 2);
}

/* aten::new_zeros / new_ones(Tensor self, SymInt[] size, *, ScalarType? dtype, ...),
 * aten::new_full(Tensor self, SymInt[] size, Scalar fill_value, *, ScalarType? dtype, ...):
 * self's dtype by default. */
static olg_status new_filled(olg_lower *cx, const scalar_arg *s, size_t dt_at) {
  olg_value x, shape, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(size_arg(cx, 1, &shape));
  olg_dtype t;
  OLG_TRY(olg__arg_scalar_type_or(cx, dt_at, olg__dtype(cx, x), &t));
  if (t == OLG_UNDEFINED) return olg_lower_error(cx, OLG_ERR_UNSUPPORTED, "the input's dtype is not known");
  OLG_TRY(fill(cx, shape, t, s, &y));
  return olg_lower_bind_output(cx, 0, y);
}

olg_status olg__sym_new_zeros(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  scalar_arg s = {true, false, false, 0, OLG_NO_VALUE};
  return new_filled(cx, &s, 2);
}

olg_status olg__sym_new_ones(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  scalar_arg s = {true, false, false, 1, OLG_NO_VALUE};
  return new_filled(cx, &s, 2);
}

olg_status olg__sym_new_full(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  scalar_arg s;
  OLG_TRY(read_scalar(cx, 2, 0, &s));
  return new_filled(cx, &s, 3);
}

/* ------------------------------------------------------------------------------------------ */
/* arange and linspace */

static bool is_int_type(olg_dtype t) {
  return t == OLG_INT8 || t == OLG_INT16 || t == OLG_INT32 || t == OLG_INT64 || t == OLG_UINT8 ||
         t == OLG_UINT16 || t == OLG_UINT32 || t == OLG_UINT64;
}

/* A 1-D constant of n elements of dtype t from doubles (ints truncated toward zero, floats
 * rounded to nearest). */
static olg_status const_vector(olg_lower *cx, olg_dtype t, const double *vals, int64_t n,
                               olg_value *out) {
  size_t es = olg_dtype_nbytes(t, 1);
  if (!es || es > 8) return olg__errf(cx, OLG_ERR_TYPE, "cannot make a %s tensor", olg_dtype_name(t));
  unsigned char *buf = olg__lower_alloc(cx, (size_t)(n ? n : 1) * es);
  if (!buf) return OLG_ERR_NOMEM;
  for (int64_t i = 0; i < n; i++) {
    double v = vals[i];
    switch (t) {
    case OLG_FLOAT: { float f = (float)v; memcpy(buf + i * 4, &f, 4); break; }
    case OLG_DOUBLE: memcpy(buf + i * 8, &v, 8); break;
    case OLG_INT64: { int64_t x = olg__f64_sat_i64(v); memcpy(buf + i * 8, &x, 8); break; }
    case OLG_INT32: { int32_t x = (int32_t)olg__f64_sat_i64(v); memcpy(buf + i * 4, &x, 4); break; }
    case OLG_INT16: { int16_t x = (int16_t)olg__f64_sat_i64(v); memcpy(buf + i * 2, &x, 2); break; }
    case OLG_INT8: { int8_t x = (int8_t)olg__f64_sat_i64(v); buf[i] = (unsigned char)x; break; }
    case OLG_UINT8: buf[i] = (unsigned char)olg__f64_sat_i64(v); break;
    default:
      return olg__errf(cx, OLG_ERR_TYPE, "a constant range of %s is not supported",
                       olg_dtype_name(t));
    }
  }
  int64_t dims[1] = {n};
  return olg__const_tensor_kept(cx, t, 1, dims, buf, (size_t)n * es, out);
}

/* aten::arange(Scalar end, *, dtype, layout, device, pin_memory),
 * aten::arange.start(Scalar start, Scalar end, *, dtype, ...),
 * aten::arange.start_step(Scalar start, Scalar end, Scalar step=1, *, dtype, ...).
 * The overload is told by the number of arguments (5, 6, 7 as the schemas list them; a front
 * end that leaves the keyword-only ones out gives 1, 2 or 3 numbers, 4 = start, end, step,
 * dtype). */
static olg_status arange(olg_lower *cx, bool has_range) {
  size_t n = olg_lower_arg_count(cx);
  size_t n_num = n >= 7 ? 3 : n == 6 ? 2 : n == 5 ? 1 : n == 4 ? 3 : n;
  if (n_num < 1 || n_num > 3) return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "arange: no end given");
  scalar_arg a[3]; /* start, end, step */
  if (n_num == 1) {
    a[0] = (scalar_arg){true, false, false, 0, OLG_NO_VALUE};
    OLG_TRY(read_scalar(cx, 0, 0, &a[1]));
    a[2] = (scalar_arg){true, false, false, 1, OLG_NO_VALUE};
  } else {
    OLG_TRY(read_scalar(cx, 0, 0, &a[0]));
    OLG_TRY(read_scalar(cx, 1, 0, &a[1]));
    if (n_num == 3) OLG_TRY(read_scalar(cx, 2, 1, &a[2]));
    else a[2] = (scalar_arg){true, false, false, 1, OLG_NO_VALUE};
  }
  bool any_float = a[0].is_float || a[1].is_float || a[2].is_float;
  olg_dtype t;
  OLG_TRY(olg__arg_scalar_type_or(cx, n_num, any_float ? OLG_FLOAT : OLG_INT64, &t));
  bool int_out = is_int_type(t);
  if (!int_out && !olg__is_float(t))
    return olg__errf(cx, OLG_ERR_UNSUPPORTED, "arange of %s", olg_dtype_name(t));
  olg_value y;
  if (a[0].known && a[1].known && a[2].known) {
    /* PyTorch (RangeFactories.cpp): integer outputs compute in int64 from the truncated
     * scalars, others in double; size = ceil((end - start) / step) */
    double start = a[0].v, end = a[1].v, step = a[2].v;
    int64_t istart = 0, istep = 0, iend;
    if (int_out) {
      /* the int64 arithmetic below must not overflow: |bounds| < 2^53 keeps every element
       * (at most 1e8 steps from start, inside [start, end]) exact and in range */
      const double lim = 9007199254740992.0;
      if (!(fabs(start) < lim && fabs(end) < lim && fabs(step) < lim))
        return olg__errf(cx, OLG_ERR_RANGE, "arange: start %g, end %g, step %g out of range for %s",
                         start, end, step, olg_dtype_name(t));
      (void)olg__f64_to_i64(start, &istart);
      (void)olg__f64_to_i64(end, &iend);
      (void)olg__f64_to_i64(step, &istep);
      start = (double)istart;
      end = (double)iend;
      step = (double)istep;
    }
    if (step == 0) return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "arange: step must be nonzero");
    double size_d = ceil((end - start) / step);
    if (!(size_d >= 0) || size_d > 1e8)
      return olg__errf(cx, OLG_ERR_INVALID_ARG, "arange: bad size %g", size_d);
    int64_t size = (int64_t)size_d;
    double *vals = olg__lower_alloc(cx, (size_t)(size ? size : 1) * sizeof *vals);
    if (!vals) return OLG_ERR_NOMEM;
    for (int64_t i = 0; i < size; i++) {
      if (int_out) vals[i] = (double)(istart + istep * i);
      else vals[i] = start + step * (double)i; /* accscalar (double), rounded once */
    }
    OLG_TRY(const_vector(cx, t, vals, size, &y));
    return olg_lower_bind_output(cx, 0, y);
  }
  if (!has_range)
    return olg_lower_unsupported(cx, "arange with bounds computed at run time (Range)", 11);
  /* Range takes float, double, int16, int32, int64: compute in int64 or in the float type */
  olg_dtype ct = int_out ? OLG_INT64 : (t == OLG_DOUBLE ? OLG_DOUBLE : OLG_FLOAT);
  olg_value in[3];
  for (int i = 0; i < 3; i++) {
    if (a[i].known) {
      OLG_TRY(olg__const_scalar(cx, ct, a[i].v, &in[i]));
    } else {
      olg_value v = a[i].t;
      if (olg__rank(cx, v) != 0) OLG_TRY(olg__emit_reshape_static(cx, v, NULL, 0, &v));
      OLG_TRY(olg__emit_cast(cx, v, ct, &in[i]));
    }
  }
  OLG_TRY(olg__emit(cx, "Range", in, 3, &y));
  OLG_TRY(olg__emit_cast(cx, y, t, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* bounds computed at run time need Range (11) */
olg_status olg__sym_arange(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return arange(cx, olg__target_has(cx, "Range"));
}

/* aten::linspace(Scalar start, Scalar end, int steps, *, ScalarType? dtype, ...). PyTorch 1.13
 * (RangeFactoriesKernel.cpp): step = (end - start) / (steps - 1), computed in the output type
 * (double for integer outputs); element i is start + step * i in the first half
 * (i < steps / 2) and end - step * (steps - 1 - i) in the second, so both ends are exact. */
olg_status olg__sym_linspace(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  scalar_arg a, b;
  int64_t steps;
  OLG_TRY(read_scalar(cx, 0, 0, &a));
  OLG_TRY(read_scalar(cx, 1, 0, &b));
  OLG_TRY(olg_lower_arg_int(cx, 2, &steps));
  if (steps < 0) return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "linspace: negative steps");
  olg_dtype t;
  OLG_TRY(olg__arg_scalar_type_or(cx, 3, OLG_FLOAT, &t));
  bool int_out = is_int_type(t);
  if (!int_out && t != OLG_FLOAT && t != OLG_DOUBLE)
    return olg__errf(cx, OLG_ERR_UNSUPPORTED, "linspace of %s", olg_dtype_name(t));
  int64_t half = steps / 2;
  olg_value y;
  /* either path makes a constant of steps doubles (the values, or the run-time path's index
     vectors): 1 GiB of them while it is made */
  if (steps > ((int64_t)1 << 27))
    return olg__errf(cx, OLG_ERR_LIMIT, "linspace: %lld steps, more than 2^27, as a constant",
                     (long long)steps);
  if (a.known && b.known) {
    double *vals = olg__lower_alloc(cx, (size_t)(steps ? steps : 1) * sizeof *vals);
    if (!vals) return OLG_ERR_NOMEM;
    if (steps == 1) vals[0] = a.v;
    if (steps > 1 && t == OLG_FLOAT) { /* float arithmetic, as scalar_t = float */
      float s0 = (float)a.v, s1 = (float)b.v, st = (s1 - s0) / (float)(steps - 1);
      for (int64_t i = 0; i < steps; i++)
        vals[i] = i < half ? (double)(s0 + st * (float)i) : (double)(s1 - st * (float)(steps - 1 - i));
    } else if (steps > 1) { /* double, or integers with a double step from truncated ends */
      double s0 = int_out ? (double)olg__f64_sat_i64(a.v) : a.v;
      double s1 = int_out ? (double)olg__f64_sat_i64(b.v) : b.v;
      double st = (s1 - s0) / (double)(steps - 1);
      for (int64_t i = 0; i < steps; i++)
        vals[i] = i < half ? s0 + st * (double)i : s1 - st * (double)(steps - 1 - i);
    }
    OLG_TRY(const_vector(cx, t, vals, steps, &y));
    return olg_lower_bind_output(cx, 0, y);
  }
  /* run-time ends, static steps: the two halves from constant index vectors, then Concat */
  olg_dtype ct = t == OLG_FLOAT ? OLG_FLOAT : OLG_DOUBLE;
  olg_value s0, s1;
  const scalar_arg *ab[2] = {&a, &b};
  olg_value *sv[2] = {&s0, &s1};
  for (int i = 0; i < 2; i++) {
    if (ab[i]->known) {
      OLG_TRY(olg__const_scalar(cx, ct, int_out ? (double)olg__f64_sat_i64(ab[i]->v) : ab[i]->v, sv[i]));
      continue;
    }
    olg_value v = ab[i]->t;
    if (olg__rank(cx, v) != 0) OLG_TRY(olg__emit_reshape_static(cx, v, NULL, 0, &v));
    if (int_out) OLG_TRY(olg__emit_cast(cx, v, OLG_INT64, &v)); /* truncation, as to<int64_t> */
    OLG_TRY(olg__emit_cast(cx, v, ct, sv[i]));
  }
  if (steps <= 1) {
    if (steps == 0) {
      OLG_TRY(const_vector(cx, t, NULL, 0, &y));
    } else {
      OLG_TRY(olg__emit_unsqueeze(cx, s0, (const int64_t[]){0}, 1, &y));
      OLG_TRY(olg__emit_cast(cx, y, t, &y));
    }
    return olg_lower_bind_output(cx, 0, y);
  }
  olg_value diff, den, st, lo_i, hi_i, lo, hi;
  OLG_TRY(olg__emit2(cx, "Sub", s1, s0, &diff));
  OLG_TRY(olg__const_scalar(cx, ct, (double)(steps - 1), &den));
  OLG_TRY(olg__emit2(cx, "Div", diff, den, &st));
  double *iv = olg__lower_alloc(cx, (size_t)steps * sizeof *iv);
  if (!iv) return OLG_ERR_NOMEM;
  for (int64_t i = 0; i < steps; i++) iv[i] = i < half ? (double)i : (double)(steps - 1 - i);
  OLG_TRY(const_vector(cx, ct, iv, half, &lo_i));
  OLG_TRY(const_vector(cx, ct, iv + half, steps - half, &hi_i));
  olg_value pieces[2];
  if (half > 0) {
    OLG_TRY(olg__emit2(cx, "Mul", st, lo_i, &lo));
    OLG_TRY(olg__emit2(cx, "Add", s0, lo, &pieces[0]));
  }
  OLG_TRY(olg__emit2(cx, "Mul", st, hi_i, &hi));
  OLG_TRY(olg__emit2(cx, "Sub", s1, hi, &pieces[1]));
  OLG_TRY(olg__emit_concat(cx, half > 0 ? pieces : pieces + 1, half > 0 ? 2 : 1, 0, &y));
  OLG_TRY(olg__emit_cast(cx, y, t, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* ONNX ConstantOfShape (9) at 7-8: the value (one element of any type, float 0 when absent)
 * as a tensor of the shape's rank with every dim 1, tiled by the shape (Tile-6 takes its
 * repeats at run time); a 0-D shape gives the value itself. Exact for every type. */
olg_status olg__sym_onnx_constant_of_shape(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value shape, c, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &shape));
  const olg_attr *a = olg__node_attr(olg__src_node(cx), "value");
  static const float zero = 0;
  olg_dtype dt = OLG_FLOAT;
  const void *data = &zero;
  size_t nb = sizeof zero;
  if (a) {
    if (a->type != OLG_ATTR_TENSOR || !a->t || a->t->dtype == OLG_STRING ||
        (!a->t->data && a->t->nbytes) || olg_dtype_nbytes(a->t->dtype, 1) != a->t->nbytes)
      return olg_lower_error(cx, OLG_ERR_INVALID_MODEL, "ConstantOfShape: 'value' must be a one-element tensor");
    dt = a->t->dtype;
    data = a->t->data;
    nb = a->t->nbytes;
  }
  int64_t len = olg__dim(cx, shape, 0), ones[OLG_MAX_RANK];
  if (olg__rank(cx, shape) != 1 || len < 0 || len > OLG_MAX_RANK)
    return olg_lower_unsupported(cx, "ConstantOfShape of a shape whose length is not known", 9);
  for (int64_t i = 0; i < len; i++) ones[i] = 1;
  OLG_TRY(olg__const_tensor(cx, dt, (int32_t)len, ones, data, nb, &c));
  if (len == 0) return olg_lower_bind_output(cx, 0, c);
  OLG_TRY(olg__emit2(cx, "Tile", c, shape, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* The largest Range folded into a constant. */
#define RANGE_FOLD_MAX (1 << 20)

/* ONNX Range (11) below 11. Inputs known at conversion time fold to a constant computed as
 * Range does (in the inputs' type: int64 arithmetic for integers, float for float). From 9, run
 * time inputs: n = max(ceil((limit - start) / delta), 0) in double, 0 .. n-1 as the NonZero of
 * n ones (ConstantOfShape-9), then start + i * delta. */
static olg_status onnx_range(olg_lower *cx, bool has_nonzero) {
  olg_value in[3], y;
  double v[3];
  bool known = true;
  for (size_t i = 0; i < 3; i++) {
    OLG_TRY(olg_lower_arg_value(cx, i, &in[i]));
    known = known && olg__known_scalar(cx, in[i], &v[i]);
  }
  olg_dtype t = olg__dtype(cx, in[0]);
  bool is_int = t == OLG_INT16 || t == OLG_INT32 || t == OLG_INT64;
  if (!is_int && t != OLG_FLOAT && t != OLG_DOUBLE)
    return olg__errf(cx, OLG_ERR_TYPE, "Range of %s", olg_dtype_name(t));
  if (known) {
    if (v[2] == 0) return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "Range: delta must be nonzero");
    double n = ceil((v[1] - v[0]) / v[2]);
    if (!(n <= RANGE_FOLD_MAX)) return olg__errf(cx, OLG_ERR_INVALID_ARG, "Range: %g elements", n);
    int64_t len = n > 0 ? (int64_t)n : 0;
    double *vals = olg__lower_alloc(cx, (size_t)(len ? len : 1) * sizeof *vals);
    if (!vals) return OLG_ERR_NOMEM;
    for (int64_t i = 0; i < len; i++) {
      if (is_int) vals[i] = (double)((int64_t)v[0] + i * (int64_t)v[2]);
      else if (t == OLG_FLOAT) vals[i] = (float)((float)v[0] + (float)i * (float)v[2]);
      else vals[i] = v[0] + (double)i * v[2];
    }
    OLG_TRY(const_vector(cx, t, vals, len, &y));
    return olg_lower_bind_output(cx, 0, y);
  }
  if (!has_nonzero) return olg_lower_unsupported(cx, "Range of inputs computed at run time", 9);
  olg_value d[3], cnt, idx;
  for (size_t i = 0; i < 3; i++) {
    OLG_TRY(olg__emit_reshape_static(cx, in[i], NULL, 0, &in[i]));
    OLG_TRY(olg__emit_cast(cx, in[i], OLG_DOUBLE, &d[i]));
  }
  OLG_TRY(olg__emit2(cx, "Sub", d[1], d[0], &cnt));
  OLG_TRY(olg__emit2(cx, "Div", cnt, d[2], &cnt));
  OLG_TRY(olg__emit1(cx, "Ceil", cnt, &cnt));
  OLG_TRY(olg__emit1(cx, "Relu", cnt, &cnt));
  OLG_TRY(olg__emit_cast(cx, cnt, OLG_INT64, &cnt));
  OLG_TRY(olg__emit_arange_rt(cx, cnt, &idx));
  olg_dtype ct = is_int ? OLG_INT64 : t;
  olg_value s, dl;
  OLG_TRY(olg__emit_cast(cx, idx, ct, &idx));
  OLG_TRY(olg__emit_cast(cx, in[0], ct, &s));
  OLG_TRY(olg__emit_cast(cx, in[2], ct, &dl));
  OLG_TRY(olg__emit2(cx, "Mul", idx, dl, &y));
  OLG_TRY(olg__emit2(cx, "Add", y, s, &y));
  OLG_TRY(olg__emit_cast(cx, y, t, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* run-time inputs need NonZero-9 and ConstantOfShape-9 */
olg_status olg__sym_onnx_range(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return onnx_range(cx, olg__target_has(cx, "NonZero") && olg__target_has(cx, "ConstantOfShape"));
}

/* ONNX EyeLike (9) at 7-8: for an input of known 2-D shape, the constant with ones on the k-th
 * diagonal (dtype: the attribute, else the input's). */
olg_status olg__sym_onnx_eye_like(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  int64_t dims[OLG_MAX_RANK];
  int32_t rank;
  int64_t n; /* the product checked: [2^32, 2^32] wrapped to 0 elements */
  if (!olg__static_shape(cx, x, dims, &rank) || rank != 2 ||
      __builtin_mul_overflow(dims[0], dims[1], &n) || n > RANGE_FOLD_MAX)
    return olg_lower_unsupported(cx, "EyeLike of an input whose shape is not known or has more "
                                     "than 2^20 elements", 9);
  olg_dtype t = (olg_dtype)olg__src_attr_int(cx, "dtype", olg__dtype(cx, x));
  int64_t k = olg__src_attr_int(cx, "k", 0);
  double *vals = olg__lower_alloc(cx, (size_t)(n ? n : 1) * sizeof *vals);
  if (!vals) return OLG_ERR_NOMEM;
  for (int64_t i = 0; i < n; i++) vals[i] = i % dims[1] - i / dims[1] == k;
  OLG_TRY(const_vector(cx, t, vals, n, &y));
  OLG_TRY(olg__emit_reshape_static(cx, y, dims, 2, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* Bernoulli: 1 with probability p, drawn as PyTorch's exporters draw it: U < p for U uniform in
 * [0, 1) (RandomUniformLike, the seed kept), cast to dtype. The numbers drawn are the runtime's,
 * as with Bernoulli itself. Not Bernoulli, even where the target has it: onnx's function body
 * for it, which ONNX Runtime runs, compares Greater(U, p) and draws 1 with probability 1 - p,
 * contrary to the operator's definition and onnx's reference implementation. */
olg_status olg__emit_bernoulli(olg_lower *cx, olg_value p, olg_dtype to, bool has_seed,
                               double seed, olg_value *out) {
  olg_dtype t = olg__dtype(cx, p);
  if (!olg__is_float(t))
    return olg__unsupportedf(cx, -1, "Bernoulli of %s probabilities (they are floating)",
                             olg_dtype_name(t) ? olg_dtype_name(t) : "?");
  /* RandomUniformLike draws float16, float and double: bfloat16 probabilities compare as float */
  if (t != OLG_FLOAT16 && t != OLG_FLOAT && t != OLG_DOUBLE) OLG_TRY(olg__emit_cast(cx, p, OLG_FLOAT, &p));
  olg_node_id nd;
  olg_value u, keep;
  OLG_TRY(olg_lower_emit_begin(cx, "", "RandomUniformLike", &nd));
  OLG_TRY(olg_lower_emit_input(cx, nd, p));
  if (has_seed) OLG_TRY(olg_lower_emit_attr_float(cx, nd, "seed", seed));
  OLG_TRY(olg_lower_emit_end(cx, nd, 1, &u));
  OLG_TRY(olg__emit_compare(cx, OLG_CMP_LT, u, p, &keep));
  return to == OLG_BOOL ? (*out = keep, OLG_OK) : olg__emit_cast(cx, keep, to, out);
}

/* ONNX Bernoulli (15): below 15 by RandomUniformLike */
olg_status olg__sym_onnx_bernoulli(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value p, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &p));
  OLG_TRY(olg_lower_decompose(cx, "Bernoulli as RandomUniformLike < p", 15));
  OLG_TRY(olg__emit_bernoulli(cx, p, (olg_dtype)olg__src_attr_int(cx, "dtype", olg__dtype(cx, p)),
                         olg_lower_src_attr_has(cx, "seed"), olg__src_attr_float(cx, "seed", 0), &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* aten::bernoulli(self, generator=None): 1 with probability self, in self's dtype;
 * aten::bernoulli.p(self, float p, generator=None) and bernoulli.Tensor(self, Tensor p,
 * generator=None): with probability p, shaped as self. U < p at every opset (see
 * olg__emit_bernoulli). A generator (a seeded torch.Generator) is not a graph value: refused. */
olg_status olg__sym_bernoulli(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, p = OLG_NO_VALUE, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  olg_dtype t = olg__dtype(cx, x);
  size_t gen = 1;
  int k = olg_lower_arg_kind(cx, 1);
  if (k == OLG_ARGKIND_VALUE) OLG_TRY(olg_lower_arg_value(cx, 1, &p));
  if (k == OLG_ARGKIND_FLOAT || (k == OLG_ARGKIND_VALUE && olg__is_float(olg__dtype(cx, p)))) {
    olg_value shape, filled;
    double pv = 0;
    if (k == OLG_ARGKIND_FLOAT) {
      OLG_TRY(olg_lower_arg_float(cx, 1, &pv));
      if (!(pv >= 0 && pv <= 1)) return olg__unsupportedf(cx, -1, "bernoulli with p = %g (not in [0, 1])", pv);
    }
    OLG_TRY(olg__shape(cx, x, &shape));
    OLG_TRY(olg__emit_full(cx, shape, t, pv, &filled));
    if (k == OLG_ARGKIND_VALUE) { /* p broadcast to self's shape: p + zeros */
      OLG_TRY(olg__emit_cast(cx, p, t, &p));
      OLG_TRY(olg__emit2(cx, "Add", p, filled, &filled));
    }
    p = filled;
    gen = 2;
  } else {
    p = x;
  }
  if (olg_lower_arg_count(cx) > gen && olg_lower_arg_kind(cx, gen) != OLG_ARGKIND_NONE)
    return olg_lower_unsupported(cx, "bernoulli with a generator", -1);
  OLG_TRY(olg__emit_bernoulli(cx, p, t, false, 0, &y));
  return olg_lower_bind_output(cx, 0, y);
}
