/* onnxlegal — inference rules: element-wise ops, reductions, casts, random and quantization
 * ops; and the evaluation of small known tensors that carries shape computations through. */
#include <math.h>
#include <string.h>

#include "infer_impl.h"

/* ---------------------------------------------------------------------------------------- */
/* Evaluation of small known tensors */

typedef struct kin {
  const olg_tensor *t;
  int32_t rank;
  int64_t dims[OLG_INFER_MAX_RANK];
  bool is_f;
} kin;

static bool read_num(const olg_tensor *t, uint64_t k, bool as_f, int64_t *iv, double *fv);

/* Reads elements through olg__in_ints / olg__in_doubles one at a time would copy; instead the
 * evaluator indexes the tensors directly. */
static bool kin_load(const olg_icx *cx, int i, kin *k) {
  const olg_tensor *t = olg__in_known(cx, i);
  if (!t || t->dtype == OLG_STRING || olg_dtype_bits(t->dtype) < 8 || t->rank > OLG_INFER_MAX_RANK)
    return false;
  uint64_t ne;
  if (!olg__shape_numel(t->rank, t->dims, &ne) || ne > OLG_INFER_MAX_KNOWN) return false;
  k->t = t;
  k->rank = t->rank;
  for (int32_t j = 0; j < t->rank; j++) k->dims[j] = t->dims[j];
  k->is_f = olg__dtype_is_float(t->dtype);
  if (k->is_f && t->dtype != OLG_FLOAT && t->dtype != OLG_DOUBLE && t->dtype != OLG_FLOAT16 &&
      t->dtype != OLG_BFLOAT16)
    return false;
  if (!k->is_f && !olg__dtype_is_int(t->dtype) && t->dtype != OLG_BOOL) return false;
  return true;
}

static float h2f(uint16_t h) {
  uint32_t sign = (uint32_t)(h >> 15), exp = (h >> 10) & 0x1f, man = h & 0x3ff;
  float f = exp == 0 ? ldexpf((float)man, -24)
          : exp == 31 ? (man ? NAN : INFINITY)
          : ldexpf((float)(man | 0x400), (int)exp - 25);
  return sign ? -f : f;
}

static bool read_num(const olg_tensor *t, uint64_t k, bool as_f, int64_t *iv, double *fv) {
  const unsigned char *p = t->data;
  double d = 0;
  int64_t i = 0;
  bool isf = false;
  switch (t->dtype) {
#define RI(T) { T v; memcpy(&v, p + k * sizeof(T), sizeof(T)); i = (int64_t)v; break; }
  case OLG_INT64: RI(int64_t)
  case OLG_INT32: RI(int32_t)
  case OLG_INT16: RI(int16_t)
  case OLG_INT8: RI(int8_t)
  case OLG_UINT8: RI(uint8_t)
  case OLG_UINT16: RI(uint16_t)
  case OLG_UINT32: RI(uint32_t)
  case OLG_UINT64: RI(uint64_t)
#undef RI
  case OLG_BOOL: i = p[k] != 0; break;
  case OLG_FLOAT: { float v; memcpy(&v, p + k * 4, 4); d = v; isf = true; break; }
  case OLG_DOUBLE: { memcpy(&d, p + k * 8, 8); isf = true; break; }
  case OLG_FLOAT16: { uint16_t v; memcpy(&v, p + k * 2, 2); d = h2f(v); isf = true; break; }
  case OLG_BFLOAT16: {
    uint16_t v; memcpy(&v, p + k * 2, 2);
    uint32_t u = (uint32_t)v << 16; float f; memcpy(&f, &u, 4); d = f; isf = true; break;
  }
  default:
    return false;
  }
  if (as_f) *fv = isf ? d : (double)i;
  else if (!isf) *iv = i;
  else if (!olg__double_to_int(d, OLG_INT64, iv)) return false; /* not representable: no fold */
  return true;
}

static bool is_compare(olg_eval_op op) {
  return op == OLG_EV_EQUAL || op == OLG_EV_LESS || op == OLG_EV_GREATER ||
         op == OLG_EV_LESS_EQ || op == OLG_EV_GREATER_EQ;
}

static int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
  return q;
}

/* false: not computable (division by zero, unsupported op for the domain) */
static bool eval_i(olg_eval_op op, const int64_t *x, int nx, int64_t *out) {
  int64_t a = x[0], b = nx > 1 ? x[1] : 0;
  switch (op) {
  case OLG_EV_ADD: *out = (int64_t)((uint64_t)a + (uint64_t)b); return true;
  case OLG_EV_SUB: *out = (int64_t)((uint64_t)a - (uint64_t)b); return true;
  case OLG_EV_MUL: *out = (int64_t)((uint64_t)a * (uint64_t)b); return true;
  case OLG_EV_DIV:
    if (b == 0 || (a == INT64_MIN && b == -1)) return false;
    *out = a / b; /* integer Div truncates, as C does */
    return true;
  case OLG_EV_MOD: /* Mod with fmod=0: the result has the sign of the divisor */
    if (b == 0 || (a == INT64_MIN && b == -1)) return false;
    /* q * b may pass int64 (b = INT64_MIN, q = -1); the result never does */
    *out = (int64_t)((uint64_t)a - (uint64_t)floor_div(a, b) * (uint64_t)b);
    return true;
  case OLG_EV_FMOD:
    if (b == 0 || (a == INT64_MIN && b == -1)) return false;
    *out = a % b;
    return true;
  case OLG_EV_MIN: *out = a < b ? a : b; return true;
  case OLG_EV_MAX: *out = a > b ? a : b; return true;
  case OLG_EV_EQUAL: *out = a == b; return true;
  case OLG_EV_LESS: *out = a < b; return true;
  case OLG_EV_GREATER: *out = a > b; return true;
  case OLG_EV_LESS_EQ: *out = a <= b; return true;
  case OLG_EV_GREATER_EQ: *out = a >= b; return true;
  case OLG_EV_AND: *out = a && b; return true;
  case OLG_EV_OR: *out = a || b; return true;
  case OLG_EV_XOR: *out = (!a) != (!b); return true;
  case OLG_EV_NOT: *out = !a; return true;
  case OLG_EV_NEG: *out = (int64_t)(0 - (uint64_t)a); return true;
  case OLG_EV_ABS: *out = a < 0 ? (int64_t)(0 - (uint64_t)a) : a; return true;
  case OLG_EV_SIGN: *out = (a > 0) - (a < 0); return true;
  case OLG_EV_RELU: *out = a > 0 ? a : 0; return true;
  case OLG_EV_WHERE: *out = a ? x[1] : x[2]; return true;
  case OLG_EV_IDENTITY: case OLG_EV_CEIL: case OLG_EV_FLOOR: *out = a; return true;
  case OLG_EV_POW: {
    if (b < 0) return false;
    int64_t r = 1;
    for (int64_t e = 0; e < b && e < 64; e++) r = (int64_t)((uint64_t)r * (uint64_t)a);
    *out = r;
    return true;
  }
  default:
    return false;
  }
}

static bool eval_f(olg_eval_op op, const double *x, int nx, double *out) {
  double a = x[0], b = nx > 1 ? x[1] : 0;
  switch (op) {
  case OLG_EV_ADD: *out = a + b; return true;
  case OLG_EV_SUB: *out = a - b; return true;
  case OLG_EV_MUL: *out = a * b; return true;
  case OLG_EV_DIV: *out = a / b; return true;
  case OLG_EV_FMOD: *out = fmod(a, b); return true;
  case OLG_EV_MIN: *out = a < b ? a : b; return true;
  case OLG_EV_MAX: *out = a > b ? a : b; return true;
  case OLG_EV_EQUAL: *out = a == b; return true;
  case OLG_EV_LESS: *out = a < b; return true;
  case OLG_EV_GREATER: *out = a > b; return true;
  case OLG_EV_LESS_EQ: *out = a <= b; return true;
  case OLG_EV_GREATER_EQ: *out = a >= b; return true;
  case OLG_EV_NEG: *out = -a; return true;
  case OLG_EV_ABS: *out = fabs(a); return true;
  case OLG_EV_SIGN: *out = (a > 0) - (a < 0); return true;
  case OLG_EV_RELU: *out = a > 0 ? a : 0; return true;
  case OLG_EV_CEIL: *out = ceil(a); return true;
  case OLG_EV_FLOOR: *out = floor(a); return true;
  case OLG_EV_SQRT: *out = sqrt(a); return true;
  case OLG_EV_RECIPROCAL: *out = 1.0 / a; return true;
  case OLG_EV_POW: *out = pow(a, b); return true;
  case OLG_EV_IDENTITY: *out = a; return true;
  case OLG_EV_WHERE: *out = a != 0 ? x[1] : x[2]; return true;
  default:
    return false;
  }
}

olg_status olg__eval_elementwise(olg_icx *cx, olg_eval_op op, const olg_ishape *os,
                                 olg_dtype out_dt) {
  int nin = op == OLG_EV_WHERE ? 3 : (op == OLG_EV_NOT || op == OLG_EV_NEG || op == OLG_EV_ABS ||
                                       op == OLG_EV_SIGN || op == OLG_EV_CEIL ||
                                       op == OLG_EV_FLOOR || op == OLG_EV_SQRT ||
                                       op == OLG_EV_RECIPROCAL || op == OLG_EV_IDENTITY ||
                                       op == OLG_EV_RELU)
                                          ? 1 : 2;
  kin in[3];
  int64_t numel;
  if (!os || os->rank < 0 || !olg__shape_numel_known(os, &numel) || numel > OLG_INFER_MAX_KNOWN)
    return OLG_OK;
  if (olg__nin(cx) < nin || out_dt == OLG_UNDEFINED) return OLG_OK;
  bool any_f = false;
  for (int i = 0; i < nin; i++) {
    if (!kin_load(cx, i, &in[i])) return OLG_OK;
    if (in[i].rank > os->rank) return OLG_OK;
    /* contents that do not broadcast to the output's shape (an initializer of another shape
       than its input declares: the checker reports it) are not computed with, never read past */
    for (int32_t k = 0; k < in[i].rank; k++)
      if (in[i].dims[k] != 1 && in[i].dims[k] != os->d[k + os->rank - in[i].rank].value) return OLG_OK;
    if (op == OLG_EV_WHERE ? i > 0 && in[i].is_f : in[i].is_f) any_f = true;
  }
  bool out_f = olg__dtype_is_float(out_dt);
  if (out_f && out_dt != OLG_FLOAT && out_dt != OLG_DOUBLE) return OLG_OK;
  bool use_f = any_f || out_f;
  if (!use_f && !(olg__dtype_is_int(out_dt) || out_dt == OLG_BOOL)) return OLG_OK;
  int64_t odims[OLG_INFER_MAX_RANK];
  for (int32_t k = 0; k < os->rank; k++) odims[k] = os->d[k].value;
  int64_t *iv = NULL;
  double *fv = NULL;
  size_t n = (size_t)numel;
  if (use_f && !is_compare(op) && out_f) fv = olg__arena_alloc(cx->m, (n ? n : 1) * sizeof *fv);
  else iv = olg__arena_alloc(cx->m, (n ? n : 1) * sizeof *iv);
  if (!iv && !fv) return OLG_ERR_NOMEM;
  int64_t idx[OLG_INFER_MAX_RANK] = {0};
  for (size_t o = 0; o < n; o++) {
    int64_t xi[3];
    double xf[3];
    for (int i = 0; i < nin; i++) {
      /* the flat index of input i for output index idx, broadcasting from the right */
      uint64_t flat = 0;
      for (int32_t k = 0; k < in[i].rank; k++) {
        int32_t ok = k + (os->rank - in[i].rank);
        int64_t dk = in[i].dims[k];
        flat = flat * (uint64_t)dk + (uint64_t)(dk == 1 ? 0 : idx[ok]);
      }
      bool as_f = use_f && !(op == OLG_EV_WHERE && i == 0);
      if (!read_num(in[i].t, flat, as_f, &xi[i], &xf[i])) return OLG_OK;
      if (!as_f && use_f) xf[i] = (double)xi[i];
    }
    if (use_f) {
      double r;
      if (op == OLG_EV_WHERE) xf[0] = (double)xi[0];
      if (!eval_f(op, xf, nin, &r)) return OLG_OK;
      if (fv) fv[o] = r;
      else if (is_compare(op)) iv[o] = r != 0;
      /* a value the integer type cannot hold (NaN, 1e30 -> int64): undefined in ONNX and in
         C, so the node is left to run time */
      else if (!olg__double_to_int(r, out_dt, &iv[o])) return OLG_OK;
    } else {
      int64_t r;
      if (!eval_i(op, xi, nin, &r)) return OLG_OK;
      iv[o] = r;
    }
    for (int32_t k = os->rank - 1; k >= 0; k--) {
      if (++idx[k] < odims[k]) break;
      idx[k] = 0;
    }
  }
  if (fv) return olg__set_out_doubles(cx, 0, out_dt, os->rank, odims, fv, n);
  return olg__set_out_ints(cx, 0, out_dt, os->rank, odims, iv, n);
}

olg_status olg__eval_syms(olg_icx *cx, olg_eval_op op, olg_dtype out_dt) {
  if (!olg__dtype_is_int(out_dt)) return OLG_OK;
  olg_dim a[OLG_INFER_MAX_RANK], b[OLG_INFER_MAX_RANK], r[OLG_INFER_MAX_RANK];
  size_t na, nb;
  if (!olg__in_syms(cx, 0, a, OLG_INFER_MAX_RANK, &na)) return OLG_OK;
  if (!olg__in_syms(cx, 1, b, OLG_INFER_MAX_RANK, &nb)) return OLG_OK;
  if (na != nb && na != 1 && nb != 1) return OLG_OK;
  size_t n = na > nb ? na : nb;
  int32_t rank = olg__in_rank(cx, 0) > olg__in_rank(cx, 1) ? olg__in_rank(cx, 0) : olg__in_rank(cx, 1);
  if (rank < 0 || rank > 1) return OLG_OK;
  for (size_t k = 0; k < n; k++) {
    olg_dim x = a[na == 1 ? 0 : k], y = b[nb == 1 ? 0 : k];
    bool xn = !x.param && x.value != OLG_SYM_UNKNOWN, yn = !y.param && y.value != OLG_SYM_UNKNOWN;
    r[k] = (olg_dim){OLG_SYM_UNKNOWN, NULL, NULL};
    if (xn && yn) {
      int64_t xs[2] = {x.value, y.value}, res;
      if (eval_i(op, xs, 2, &res)) r[k] = olg__dnum(res);
    } else if (x.param && yn) {
      if ((op == OLG_EV_ADD || op == OLG_EV_SUB) && y.value == 0) r[k] = x;
      if ((op == OLG_EV_MUL || op == OLG_EV_DIV) && y.value == 1) r[k] = x;
      if (op == OLG_EV_MUL && y.value == 0) r[k] = olg__dnum(0);
    } else if (y.param && xn) {
      if (op == OLG_EV_ADD && x.value == 0) r[k] = y;
      if (op == OLG_EV_MUL && x.value == 1) r[k] = y;
      if (op == OLG_EV_MUL && x.value == 0) r[k] = olg__dnum(0);
    } else if (x.param && y.param && strcmp(x.param, y.param) == 0) {
      if (op == OLG_EV_SUB) r[k] = olg__dnum(0);
      if (op == OLG_EV_DIV) r[k] = olg__dnum(1);
      if (op == OLG_EV_MIN || op == OLG_EV_MAX) r[k] = x;
    }
  }
  return olg__set_out_syms(cx, 0, out_dt, rank, r, n);
}

/* ---------------------------------------------------------------------------------------- */
/* Helpers */

static olg_status same_as_input(olg_icx *cx, int out, int in, olg_dtype dt) {
  olg_ishape s;
  olg__in_shape(cx, in, &s);
  return olg__set_out(cx, out, dt, &s);
}

/* Legacy broadcasting (opset < 7): with broadcast=1, B is broadcast to A, so the output has A's
 * shape; without it the shapes are equal. */
static olg_status legacy_binary_shape(olg_icx *cx, olg_ishape *out) {
  olg_ishape a, b;
  olg__in_shape(cx, 0, &a);
  olg__in_shape(cx, 1, &b);
  if (olg__attr_i(cx, "broadcast", 0)) {
    *out = a;
    return OLG_OK;
  }
  if (a.rank >= 0 && b.rank >= 0 && a.rank == b.rank) {
    for (int32_t k = 0; k < a.rank; k++)
      if (a.d[k].value >= 0 && b.d[k].value >= 0 && a.d[k].value != b.d[k].value)
        return olg__fail(cx, "inputs must have the same shape without broadcast=1 (opset %lld); dim %d is %lld and %lld",
                         (long long)cx->opset, (int)k, (long long)a.d[k].value, (long long)b.d[k].value);
    for (int32_t k = 0; k < a.rank; k++)
      if (a.d[k].value < 0 && !a.d[k].param) a.d[k] = b.d[k];
  }
  *out = a.rank >= 0 ? a : b;
  return OLG_OK;
}

static olg_status binary_shape(olg_icx *cx, olg_ishape *out) {
  if (cx->opset < 7) return legacy_binary_shape(cx, out);
  /* the usual node: two shapes that broadcast, read where they are (no copies) */
  if (olg__broadcast_types(olg__in_type(cx, 0), olg__in_type(cx, 1), out)) return OLG_OK;
  olg_ishape a, b;
  olg__in_shape(cx, 0, &a);
  olg__in_shape(cx, 1, &b);
  return olg__broadcast(cx, &a, &b, out);
}

static olg_eval_op op_of(const char *op) {
  static const struct { const char *name; olg_eval_op op; } t[] = {
    {"Add", OLG_EV_ADD}, {"Sub", OLG_EV_SUB}, {"Mul", OLG_EV_MUL}, {"Div", OLG_EV_DIV},
    {"Max", OLG_EV_MAX}, {"Min", OLG_EV_MIN}, {"Equal", OLG_EV_EQUAL}, {"Less", OLG_EV_LESS},
    {"Greater", OLG_EV_GREATER}, {"LessOrEqual", OLG_EV_LESS_EQ},
    {"GreaterOrEqual", OLG_EV_GREATER_EQ}, {"And", OLG_EV_AND}, {"Or", OLG_EV_OR},
    {"Xor", OLG_EV_XOR}, {"Not", OLG_EV_NOT}, {"Neg", OLG_EV_NEG}, {"Abs", OLG_EV_ABS},
    {"Sign", OLG_EV_SIGN}, {"Ceil", OLG_EV_CEIL}, {"Floor", OLG_EV_FLOOR},
    {"Sqrt", OLG_EV_SQRT}, {"Reciprocal", OLG_EV_RECIPROCAL}, {"Pow", OLG_EV_POW},
    {"Identity", OLG_EV_IDENTITY}, {"Relu", OLG_EV_RELU},
  };
  for (size_t i = 0; i < sizeof t / sizeof *t; i++)
    if (strcmp(t[i].name, op) == 0) return t[i].op;
  return (olg_eval_op)-1;
}

static olg_dtype first_dtype(const olg_icx *cx, int n) {
  for (int i = 0; i < n && i < olg__nin(cx); i++) {
    olg_dtype d = olg__in_dtype(cx, i);
    if (d) return d;
  }
  return OLG_UNDEFINED;
}

/* ---------------------------------------------------------------------------------------- */
/* Rules */

/* Whether input i has contents to compute with (known or partly known). */
static bool has_contents(const olg_icx *cx, int i) {
  const olg_value_rec *r = olg__in(cx, i);
  return r && (olg__value_known(r) || olg__value_sym(r));
}

OLG_INFER_RULE(olg__inf_unary) {
  olg_ishape s;
  olg__in_shape(cx, 0, &s);
  olg_dtype dt = olg__in_dtype(cx, 0);
  olg_status st = olg__set_out(cx, 0, dt, &s);
  if (st || !has_contents(cx, 0)) return st;
  olg_eval_op op = op_of(cx->nd->op);
  if ((int)op >= 0) return olg__eval_elementwise(cx, op, &s, dt);
  return OLG_OK;
}

OLG_INFER_RULE(olg__inf_unary_bool) { return same_as_input(cx, 0, 0, OLG_BOOL); }

OLG_INFER_RULE(olg__inf_isinf) { return same_as_input(cx, 0, 0, OLG_BOOL); }

OLG_INFER_RULE(olg__inf_identity) {
  const olg_value_rec *r = olg__in(cx, 0);
  if (!r) return OLG_OK;
  olg_status s;
  if (r->type.kind != OLG_TYPE_NONE && (s = olg__set_out_type(cx, 0, &r->type))) return s;
  if (olg__value_known(r)) return olg__set_out_known(cx, 0, olg__value_known(r));
  if (olg__value_sym(r)) {
    int32_t rank = olg__in_rank(cx, 0);
    return olg__set_out_syms(cx, 0, olg__in_dtype(cx, 0), rank, olg__value_sym(r),
                             olg__value_n_sym(r));
  }
  return OLG_OK;
}

OLG_INFER_RULE(olg__inf_binary) {
  olg_ishape s;
  olg_status st = binary_shape(cx, &s);
  if (st) return st;
  olg_dtype dt = first_dtype(cx, 2);
  if ((st = olg__set_out(cx, 0, dt, &s))) return st;
  if (!has_contents(cx, 0) || !has_contents(cx, 1)) return OLG_OK;
  olg_eval_op op = op_of(cx->nd->op);
  if ((int)op < 0) return OLG_OK;
  if (olg__in_known(cx, 0) && olg__in_known(cx, 1)) return olg__eval_elementwise(cx, op, &s, dt);
  return olg__eval_syms(cx, op, dt);
}

OLG_INFER_RULE(olg__inf_mod) {
  olg_ishape s;
  olg_status st = binary_shape(cx, &s);
  if (st) return st;
  olg_dtype dt = first_dtype(cx, 2);
  if ((st = olg__set_out(cx, 0, dt, &s))) return st;
  return olg__eval_elementwise(cx, olg__attr_i(cx, "fmod", 0) ? OLG_EV_FMOD : OLG_EV_MOD, &s, dt);
}

OLG_INFER_RULE(olg__inf_pow) {
  olg_ishape s;
  olg_status st = binary_shape(cx, &s);
  if (st) return st;
  olg_dtype dt = olg__in_dtype(cx, 0);
  if ((st = olg__set_out(cx, 0, dt, &s))) return st;
  return olg__eval_elementwise(cx, OLG_EV_POW, &s, dt);
}

OLG_INFER_RULE(olg__inf_bitshift) {
  olg_ishape s;
  olg_status st = binary_shape(cx, &s);
  if (st) return st;
  return olg__set_out(cx, 0, first_dtype(cx, 2), &s);
}

OLG_INFER_RULE(olg__inf_compare) {
  olg_ishape s;
  olg_status st = binary_shape(cx, &s);
  if (st) return st;
  if ((st = olg__set_out(cx, 0, OLG_BOOL, &s))) return st;
  if (!olg__in_known(cx, 0) || !olg__in_known(cx, 1)) return OLG_OK;
  olg_eval_op op = op_of(cx->nd->op);
  return (int)op >= 0 ? olg__eval_elementwise(cx, op, &s, OLG_BOOL) : OLG_OK;
}

OLG_INFER_RULE(olg__inf_logical) { return olg__inf_compare(cx); }

OLG_INFER_RULE(olg__inf_not) {
  olg_ishape s;
  olg__in_shape(cx, 0, &s);
  olg_status st = olg__set_out(cx, 0, OLG_BOOL, &s);
  if (st) return st;
  return olg__eval_elementwise(cx, OLG_EV_NOT, &s, OLG_BOOL);
}

OLG_INFER_RULE(olg__inf_variadic) {
  int n = olg__nin(cx);
  olg_ishape acc;
  olg_status st;
  if (n == 0) return OLG_OK;
  olg__in_shape(cx, 0, &acc);
  for (int i = 1; i < n; i++) {
    olg_ishape b;
    olg__in_shape(cx, i, &b);
    if (cx->opset < 8) {
      /* no broadcasting before opset 8: equal shapes */
      if (acc.rank < 0) acc = b;
      continue;
    }
    if ((st = olg__broadcast(cx, &acc, &b, &acc))) return st;
  }
  olg_dtype dt = first_dtype(cx, n);
  if ((st = olg__set_out(cx, 0, dt, &acc))) return st;
  if (!has_contents(cx, 0)) return OLG_OK;
  olg_eval_op op = op_of(cx->nd->op);
  if (n == 2 && (op == OLG_EV_MAX || op == OLG_EV_MIN)) {
    if (olg__in_known(cx, 0) && olg__in_known(cx, 1)) return olg__eval_elementwise(cx, op, &acc, dt);
    return olg__eval_syms(cx, op, dt);
  }
  if (n == 1) return olg__eval_elementwise(cx, OLG_EV_IDENTITY, &acc, dt);
  return OLG_OK;
}

OLG_INFER_RULE(olg__inf_where) {
  olg_ishape c, x, y, t, s;
  olg_status st;
  olg__in_shape(cx, 0, &c);
  olg__in_shape(cx, 1, &x);
  olg__in_shape(cx, 2, &y);
  if ((st = olg__broadcast(cx, &c, &x, &t)) || (st = olg__broadcast(cx, &t, &y, &s))) return st;
  olg_dtype dt = olg__in_dtype(cx, 1) ? olg__in_dtype(cx, 1) : olg__in_dtype(cx, 2);
  if ((st = olg__set_out(cx, 0, dt, &s))) return st;
  return olg__eval_elementwise(cx, OLG_EV_WHERE, &s, dt);
}

OLG_INFER_RULE(olg__inf_prelu) {
  olg_ishape x, sl, b;
  olg__in_shape(cx, 0, &x);
  olg__in_shape(cx, 1, &sl);
  if (cx->opset >= 7 && x.rank >= 0 && sl.rank >= 0) {
    /* slope broadcasts to X (unidirectionally): check it does */
    olg_status st = olg__broadcast(cx, &x, &sl, &b);
    if (st) return st;
  }
  return olg__set_out(cx, 0, olg__in_dtype(cx, 0), &x);
}

OLG_INFER_RULE(olg__inf_clip) {
  olg_ishape s;
  olg__in_shape(cx, 0, &s);
  return olg__set_out(cx, 0, olg__in_dtype(cx, 0), &s);
}

OLG_INFER_RULE(olg__inf_shrink) { return olg__inf_clip(cx); }
OLG_INFER_RULE(olg__inf_hardmax) { return olg__inf_clip(cx); }
OLG_INFER_RULE(olg__inf_trilu) { return olg__inf_clip(cx); }
OLG_INFER_RULE(olg__inf_cumsum) { return olg__inf_clip(cx); }

OLG_INFER_RULE(olg__inf_softmax) {
  olg_ishape s;
  olg__in_shape(cx, 0, &s);
  if (s.rank >= 0) {
    int32_t ax;
    int64_t axis = olg__attr_i(cx, "axis", cx->opset >= 13 ? -1 : 1);
    olg_status st = s.rank ? olg__axis(cx, axis, s.rank, "axis", &ax) : OLG_OK;
    if (st) return st;
  }
  return olg__set_out(cx, 0, olg__in_dtype(cx, 0), &s);
}

/* Cast's 'to' is an int from opset 6, a string ("FLOAT") before. */
static olg_dtype cast_to(const olg_icx *cx) {
  const olg_attr *a = olg__attr(cx, "to");
  if (!a) return OLG_UNDEFINED;
  if (a->type == OLG_ATTR_INT) return a->i > 0 && a->i <= OLG_DTYPE_MAX ? (olg_dtype)a->i : OLG_UNDEFINED;
  if (a->type == OLG_ATTR_STRING) {
    char buf[32];
    size_t n = a->s.n < sizeof buf - 1 ? a->s.n : sizeof buf - 1;
    for (size_t i = 0; i < n; i++) {
      char c = a->s.p[i];
      buf[i] = (char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    }
    buf[n] = 0;
    return olg_dtype_from_name(buf);
  }
  return OLG_UNDEFINED;
}

static olg_status cast_known(olg_icx *cx, olg_dtype to, const olg_ishape *s) {
  if (olg__in_known(cx, 0)) return olg__eval_elementwise(cx, OLG_EV_IDENTITY, s, to);
  const olg_value_rec *r = olg__in(cx, 0);
  if (r && olg__value_sym(r) && olg__dtype_is_int(to) && olg__dtype_is_int(olg__in_dtype(cx, 0)))
    return olg__set_out_syms(cx, 0, to, olg__in_rank(cx, 0), olg__value_sym(r),
                             olg__value_n_sym(r));
  return OLG_OK;
}

OLG_INFER_RULE(olg__inf_cast) {
  olg_ishape s;
  olg__in_shape(cx, 0, &s);
  olg_dtype to = cast_to(cx);
  olg_status st = olg__set_out(cx, 0, to, &s);
  if (st || !to) return st;
  return cast_known(cx, to, &s);
}

OLG_INFER_RULE(olg__inf_castlike) {
  olg_ishape s;
  olg__in_shape(cx, 0, &s);
  olg_dtype to = olg__in_dtype(cx, 1);
  olg_status st = olg__set_out(cx, 0, to, &s);
  if (st || !to) return st;
  return cast_known(cx, to, &s);
}

/* Reductions: axes from the attribute, or (ReduceSum from 13, the others from 18) input 1. */
OLG_INFER_RULE(olg__inf_reduce) {
  olg_ishape x, out;
  olg_dtype dt = olg__in_dtype(cx, 0);
  bool keep = olg__attr_i(cx, "keepdims", 1) != 0;
  bool noop = olg__attr_i(cx, "noop_with_empty_axes", 0) != 0;
  int64_t axes[OLG_INFER_MAX_RANK];
  size_t n_axes = 0;
  bool axes_known = true, axes_given = false;
  const int64_t *ap;
  size_t an;
  if (olg__attr_ints(cx, "axes", &ap, &an)) {
    axes_given = an > 0;
    if (an > OLG_INFER_MAX_RANK) axes_known = false;
    else { memcpy(axes, ap, an * sizeof *ap); n_axes = an; }
  } else if (olg__nin(cx) > 1 && olg__in(cx, 1)) {
    axes_given = true;
    if (!olg__in_ints(cx, 1, axes, OLG_INFER_MAX_RANK, &n_axes)) axes_known = false;
    else axes_given = n_axes > 0;
  }
  if (!olg__in_shape(cx, 0, &x)) return olg__set_out(cx, 0, dt, NULL);
  if (!axes_given) {
    if (noop) return olg__set_out(cx, 0, dt, &x);
    olg__shape_rank(&out, keep ? x.rank : 0);
    for (int32_t k = 0; k < out.rank; k++) out.d[k] = olg__dnum(1);
    return olg__set_out(cx, 0, dt, &out);
  }
  if (!axes_known) {
    if (keep) {
      olg__shape_rank(&out, x.rank);
      return olg__set_out(cx, 0, dt, &out);
    }
    olg_ishape as;
    if (olg__in_shape(cx, 1, &as) && as.rank == 1 && olg__dknown(&as.d[0])) {
      olg__shape_rank(&out, x.rank - as.d[0].value);
      return olg__set_out(cx, 0, dt, &out);
    }
    return olg__set_out(cx, 0, dt, NULL);
  }
  bool red[OLG_INFER_MAX_RANK] = {false};
  for (size_t i = 0; i < n_axes; i++) {
    int32_t a;
    olg_status st = olg__axis(cx, axes[i], x.rank, "reduction axis", &a);
    if (st) return st;
    red[a] = true;
  }
  out.rank = 0;
  for (int32_t k = 0; k < x.rank; k++) {
    if (!red[k]) out.d[out.rank++] = x.d[k];
    else if (keep) out.d[out.rank++] = olg__dnum(1);
  }
  return olg__set_out(cx, 0, dt, &out);
}

OLG_INFER_RULE(olg__inf_argmax) {
  olg_ishape x, out;
  if (!olg__in_shape(cx, 0, &x)) return olg__set_out(cx, 0, OLG_INT64, NULL);
  int32_t a;
  olg_status st = olg__axis(cx, olg__attr_i(cx, "axis", 0), x.rank, "axis", &a);
  if (st) return st;
  bool keep = olg__attr_i(cx, "keepdims", 1) != 0;
  out.rank = 0;
  for (int32_t k = 0; k < x.rank; k++) {
    if (k != a) out.d[out.rank++] = x.d[k];
    else if (keep) out.d[out.rank++] = olg__dnum(1);
  }
  return olg__set_out(cx, 0, OLG_INT64, &out);
}

OLG_INFER_RULE(olg__inf_topk) {
  olg_ishape x;
  olg_dtype dt = olg__in_dtype(cx, 0);
  olg_status st;
  if (!olg__in_shape(cx, 0, &x)) {
    if ((st = olg__set_out(cx, 0, dt, NULL))) return st;
    return olg__set_out(cx, 1, OLG_INT64, NULL);
  }
  int32_t a;
  if ((st = olg__axis(cx, olg__attr_i(cx, "axis", -1), x.rank, "axis", &a))) return st;
  int64_t k = -1, kv[1];
  size_t n;
  if (cx->opset < 10) k = olg__attr_i(cx, "k", -1);
  else if (olg__in_ints(cx, 1, kv, 1, &n) && n == 1) k = kv[0];
  if (k >= 0) {
    if (olg__dknown(&x.d[a]) && k > x.d[a].value)
      return olg__fail(cx, "k = %lld exceeds the size %lld of axis %d", (long long)k,
                       (long long)x.d[a].value, (int)a);
    x.d[a] = olg__dnum(k);
  } else {
    x.d[a] = olg__dunk();
  }
  if ((st = olg__set_out(cx, 0, dt, &x))) return st;
  return olg__set_out(cx, 1, OLG_INT64, &x);
}

OLG_INFER_RULE(olg__inf_dropout) {
  olg_ishape s;
  olg__in_shape(cx, 0, &s);
  olg_dtype dt = olg__in_dtype(cx, 0);
  olg_status st = olg__set_out(cx, 0, dt, &s);
  if (st) return st;
  return olg__set_out(cx, 1, cx->opset >= 10 ? OLG_BOOL : dt, &s); /* mask: T before 10 */
}

OLG_INFER_RULE(olg__inf_det) {
  olg_ishape x;
  if (!olg__in_shape(cx, 0, &x)) return olg__set_out(cx, 0, olg__in_dtype(cx, 0), NULL);
  if (x.rank < 2) return olg__fail(cx, "input must have rank >= 2 (square matrices), not %d", (int)x.rank);
  if (olg__dknown(&x.d[x.rank - 1]) && olg__dknown(&x.d[x.rank - 2]) &&
      x.d[x.rank - 1].value != x.d[x.rank - 2].value)
    return olg__fail(cx, "the last two dims must be equal (square matrices): %lld and %lld",
                     (long long)x.d[x.rank - 2].value, (long long)x.d[x.rank - 1].value);
  x.rank -= 2;
  return olg__set_out(cx, 0, olg__in_dtype(cx, 0), &x);
}

static olg_dtype dtype_attr(const olg_icx *cx, olg_dtype def) {
  const olg_attr *a = olg__attr(cx, "dtype");
  if (a && a->type == OLG_ATTR_INT && a->i > 0 && a->i <= OLG_DTYPE_MAX) return (olg_dtype)a->i;
  return def;
}

OLG_INFER_RULE(olg__inf_random_like) {
  return same_as_input(cx, 0, 0, dtype_attr(cx, olg__in_dtype(cx, 0)));
}

OLG_INFER_RULE(olg__inf_bernoulli) { return olg__inf_random_like(cx); }

OLG_INFER_RULE(olg__inf_eyelike) { return olg__inf_random_like(cx); }

OLG_INFER_RULE(olg__inf_random) {
  const int64_t *p;
  size_t n;
  olg_ishape s;
  olg__shape_unknown(&s);
  if (olg__attr_ints(cx, "shape", &p, &n) && olg__shape_rank(&s, (int64_t)n))
    for (size_t k = 0; k < n; k++) s.d[k] = p[k] >= 0 ? olg__dnum(p[k]) : olg__dunk();
  return olg__set_out(cx, 0, dtype_attr(cx, OLG_FLOAT), &s);
}

OLG_INFER_RULE(olg__inf_multinomial) {
  olg_ishape x, s;
  olg__shape_unknown(&s);
  if (olg__in_shape(cx, 0, &x)) {
    if (x.rank != 2) return olg__fail(cx, "input must be 2-D [batch, classes], not rank %d", (int)x.rank);
    olg__shape_rank(&s, 2);
    s.d[0] = x.d[0];
    s.d[1] = olg__dnum(olg__attr_i(cx, "sample_size", 1));
  }
  return olg__set_out(cx, 0, dtype_attr(cx, OLG_INT32), &s);
}

OLG_INFER_RULE(olg__inf_quantize) {
  olg_dtype dt = olg__in_dtype(cx, 2);
  if (!dt) dt = (olg_dtype)olg__attr_i(cx, "output_dtype", 0);
  if (!dt && (olg__nin(cx) < 3 || !olg__in(cx, 2))) dt = OLG_UINT8;
  return same_as_input(cx, 0, 0, dt);
}

OLG_INFER_RULE(olg__inf_dequantize) {
  /* from opset 19 the output has the scale's type; float before */
  olg_dtype dt = OLG_FLOAT;
  if (cx->opset >= 19 && olg__in_dtype(cx, 1)) dt = olg__in_dtype(cx, 1);
  if (cx->opset >= 23) {
    olg_dtype od = (olg_dtype)olg__attr_i(cx, "output_dtype", 0);
    if (od) dt = od;
  }
  return same_as_input(cx, 0, 0, dt);
}

OLG_INFER_RULE(olg__inf_dyn_quantize) {
  olg_ishape scalar = {.rank = 0};
  olg_status st = same_as_input(cx, 0, 0, OLG_UINT8);
  if (!st) st = olg__set_out(cx, 1, OLG_FLOAT, &scalar);
  if (!st) st = olg__set_out(cx, 2, OLG_UINT8, &scalar);
  return st;
}

OLG_INFER_RULE(olg__inf_bitcast) {
  const olg_attr *a = olg__attr(cx, "to");
  olg_dtype to = a && a->type == OLG_ATTR_INT && a->i > 0 && a->i <= OLG_DTYPE_MAX ? (olg_dtype)a->i : 0;
  return same_as_input(cx, 0, 0, to);
}

OLG_INFER_RULE(olg__inf_string_concat) {
  olg_ishape s;
  olg_status st = binary_shape(cx, &s);
  if (st) return st;
  return olg__set_out(cx, 0, OLG_STRING, &s);
}

OLG_INFER_RULE(olg__inf_string_split) {
  olg_ishape x, y;
  olg_status st;
  if (!olg__in_shape(cx, 0, &x)) {
    if ((st = olg__set_out(cx, 0, OLG_STRING, NULL))) return st;
    return olg__set_out(cx, 1, OLG_INT64, NULL);
  }
  y = x;
  if (y.rank + 1 <= OLG_INFER_MAX_RANK) y.d[y.rank++] = olg__dunk();
  else olg__shape_unknown(&y);
  if ((st = olg__set_out(cx, 0, OLG_STRING, &y))) return st;
  return olg__set_out(cx, 1, OLG_INT64, &x);
}

OLG_INFER_RULE(olg__inf_image_decoder) {
  olg_ishape out;
  olg__shape_rank(&out, 3);
  char fmt[16];
  olg__attr_s(cx, "pixel_format", "RGB", fmt, sizeof fmt);
  out.d[2] = olg__dnum(strcmp(fmt, "Grayscale") == 0 ? 1 : 3);
  return olg__set_out(cx, 0, OLG_UINT8, &out);
}
