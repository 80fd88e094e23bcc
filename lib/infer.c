/* onnxlegal — shape and type inference: the driver, the rule table, and the helpers the rules
 * share (inputs, attributes, broadcasting); merging an inferred type into a declared one is
 * infer_merge.c. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "infer_impl.h"

/* ---------------------------------------------------------------------------------------- */
/* Scopes */

bool olg__is_outer_ref(const olg_graph *g, const olg_value_rec *r) {
  if (r->flags & OLG_VF_OUTER) return true;
  /* a sparse initializer is defined where it is: no producer, no input/initializer flag */
  return g->parent && r->producer < 0 && !(r->flags & (OLG_VF_INPUT | OLG_VF_INITIALIZER)) &&
         r->type.kind != OLG_TYPE_SPARSE_TENSOR;
}

olg_value_rec *olg__resolve(const olg_graph *g, olg_value v, const olg_graph **owner) {
  olg_value_rec *r = &g->values[v];
  if (owner) *owner = g;
  if (!olg__is_outer_ref(g, r) || !*r->name || (r->flags & OLG_VF_RESOLVED)) return r;
  for (const olg_graph *p = g->parent; p; p = p->parent) {
    olg_value pv = olg__graph_lookup(p, r->name);
    if (pv < 0) continue;
    olg_value_rec *pr = &p->values[pv];
    if (olg__is_outer_ref(p, pr)) continue;
    if (owner) *owner = p;
    return pr;
  }
  return r;
}

static bool is_default_domain(const char *d) {
  return !d || !*d || strcmp(d, "ai.onnx") == 0;
}

int64_t olg__domain_opset(const olg_model *m, const char *domain) {
  bool def = is_default_domain(domain);
  for (uint32_t i = 0; i < m->n_opsets; i++) {
    const char *d = m->opsets[i].domain;
    if (def ? is_default_domain(d) : strcmp(d, domain) == 0) return m->opsets[i].version;
  }
  return -1;
}

/* ---------------------------------------------------------------------------------------- */
/* Type text */

static size_t put(char *buf, size_t n, size_t at, const char *s) {
  size_t l = strlen(s);
  if (at < n) {
    size_t k = l < n - at - 1 ? l : n - at - 1;
    memcpy(buf + at, s, k);
    buf[at + k] = 0;
  }
  return at + l;
}

static size_t type_str(const olg_type *t, char *buf, size_t n, size_t at) {
  char tmp[32];
  if (!t || t->kind == OLG_TYPE_NONE) return put(buf, n, at, "?");
  switch (t->kind) {
  case OLG_TYPE_TENSOR:
  case OLG_TYPE_SPARSE_TENSOR: {
    if (t->kind == OLG_TYPE_SPARSE_TENSOR) at = put(buf, n, at, "sparse ");
    olg_dtype dt = olg__type_elem(t);
    const char *e = t->has_elem && dt ? olg_dtype_name(dt) : NULL;
    at = put(buf, n, at, e ? e : "?");
    if (!t->has_shape) return put(buf, n, at, "[...]");
    at = put(buf, n, at, "[");
    for (int32_t i = 0; i < t->rank; i++) {
      if (i) at = put(buf, n, at, ",");
      const olg_dim *d = &t->dims[i];
      if (d->value >= 0) {
        snprintf(tmp, sizeof tmp, "%lld", (long long)d->value);
        at = put(buf, n, at, tmp);
      } else {
        at = put(buf, n, at, d->param ? d->param : "?");
      }
    }
    return put(buf, n, at, "]");
  }
  case OLG_TYPE_SEQUENCE:
  case OLG_TYPE_OPTIONAL:
    at = put(buf, n, at, t->kind == OLG_TYPE_SEQUENCE ? "seq(" : "optional(");
    at = type_str(olg__type_inner(t), buf, n, at);
    return put(buf, n, at, ")");
  case OLG_TYPE_MAP: {
    const char *k = olg_dtype_name(olg__type_key(t));
    at = put(buf, n, at, "map(");
    at = put(buf, n, at, k ? k : "?");
    at = put(buf, n, at, ",");
    at = type_str(olg__type_inner(t), buf, n, at);
    return put(buf, n, at, ")");
  }
  default:
    return put(buf, n, at, "opaque");
  }
}

const char *olg__type_text(const olg_type *t, char *buf, size_t n) {
  if (n) buf[0] = 0;
  type_str(t, buf, n, 0);
  return buf;
}

/* ---------------------------------------------------------------------------------------- */
/* dtypes */

bool olg__dtype_is_int(olg_dtype t) {
  switch (t) {
  case OLG_UINT8: case OLG_INT8: case OLG_UINT16: case OLG_INT16: case OLG_INT32: case OLG_INT64:
  case OLG_UINT32: case OLG_UINT64: case OLG_UINT4: case OLG_INT4: case OLG_UINT2: case OLG_INT2:
    return true;
  default:
    return false;
  }
}

bool olg__dtype_is_float(olg_dtype t) {
  switch (t) {
  case OLG_FLOAT: case OLG_DOUBLE: case OLG_FLOAT16: case OLG_BFLOAT16: case OLG_FLOAT8E4M3FN:
  case OLG_FLOAT8E4M3FNUZ: case OLG_FLOAT8E5M2: case OLG_FLOAT8E5M2FNUZ: case OLG_FLOAT4E2M1:
  case OLG_FLOAT8E8M0:
    return true;
  default:
    return false;
  }
}

/* ---------------------------------------------------------------------------------------- */
/* Inputs */

bool olg__type_shape(const olg_type *t, olg_ishape *s) {
  s->rank = OLG_RANK_UNKNOWN;
  if (!t || (t->kind != OLG_TYPE_TENSOR && t->kind != OLG_TYPE_SPARSE_TENSOR) || !t->has_shape ||
      t->rank < 0 || t->rank > OLG_INFER_MAX_RANK)
    return false;
  s->rank = t->rank;
  for (int32_t k = 0; k < t->rank; k++) {
    s->d[k] = t->dims[k];
    s->d[k].denotation = NULL;
    if (s->d[k].value < 0) s->d[k].value = OLG_DIM_UNKNOWN;
  }
  return true;
}

bool olg__in_shape(const olg_icx *cx, int i, olg_ishape *s) {
  return olg__type_shape(olg__in_type(cx, i), s);
}

int32_t olg__in_rank(const olg_icx *cx, int i) {
  const olg_type *t = olg__in_type(cx, i);
  return t && t->kind == OLG_TYPE_TENSOR && t->has_shape ? t->rank : OLG_RANK_UNKNOWN;
}

const olg_tensor *olg__in_known(const olg_icx *cx, int i) {
  const olg_value_rec *r = olg__in(cx, i);
  const olg_tensor *t = r ? olg__value_known(r) : NULL;
  if (!t) return NULL;
  if (t->dtype != OLG_STRING && !t->data && t->nbytes) return NULL; /* external, not loaded */
  /* contents count only when the data covers the dims: an API-built initializer may declare
     elements it has no bytes for (the reader refuses such a tensor, the checker reports it) */
  uint64_t ne;
  if (!olg__shape_numel(t->rank, t->dims, &ne)) return NULL;
  if (t->dtype == OLG_STRING) return t->n_strings >= ne ? t : NULL;
  if (ne && (!t->data || t->nbytes < olg_dtype_nbytes(t->dtype, ne))) return NULL;
  return t;
}

static float half_to_float(uint16_t h) {
  uint32_t sign = (uint32_t)(h >> 15) << 31, exp = (h >> 10) & 0x1f, man = h & 0x3ff;
  float f;
  if (exp == 0) {
    f = ldexpf((float)man, -24);
  } else if (exp == 31) {
    f = man ? NAN : INFINITY;
  } else {
    f = ldexpf((float)(man | 0x400), (int)exp - 25);
  }
  return sign ? -f : f;
}

/* Element k of a known tensor as int64 (integers, bool) or double (floats); false for other
 * dtypes. Data may be unaligned (mapped files): read through memcpy. */
static bool elem_i64(const olg_tensor *t, uint64_t k, int64_t *out) {
  const unsigned char *p = t->data;
  switch (t->dtype) {
#define RD(T) { T v; memcpy(&v, p + k * sizeof(T), sizeof(T)); *out = (int64_t)v; return true; }
  case OLG_INT64: RD(int64_t)
  case OLG_INT32: RD(int32_t)
  case OLG_INT16: RD(int16_t)
  case OLG_INT8: RD(int8_t)
  case OLG_UINT8: RD(uint8_t)
  case OLG_UINT16: RD(uint16_t)
  case OLG_UINT32: RD(uint32_t)
  case OLG_UINT64: RD(uint64_t)
  case OLG_BOOL: { *out = p[k] != 0; return true; }
#undef RD
  default:
    return false;
  }
}

static bool elem_f64(const olg_tensor *t, uint64_t k, double *out) {
  const unsigned char *p = t->data;
  switch (t->dtype) {
  case OLG_FLOAT: { float v; memcpy(&v, p + k * 4, 4); *out = v; return true; }
  case OLG_DOUBLE: { double v; memcpy(&v, p + k * 8, 8); *out = v; return true; }
  case OLG_FLOAT16: { uint16_t v; memcpy(&v, p + k * 2, 2); *out = half_to_float(v); return true; }
  case OLG_BFLOAT16: {
    uint16_t v; memcpy(&v, p + k * 2, 2);
    uint32_t u = (uint32_t)v << 16; float f; memcpy(&f, &u, 4); *out = f; return true;
  }
  default: {
    int64_t i;
    if (!elem_i64(t, k, &i)) return false;
    *out = t->dtype == OLG_UINT64 ? (double)(uint64_t)i : (double)i;
    return true;
  }
  }
}

static bool tensor_numel(const olg_tensor *t, uint64_t *n) {
  return olg__shape_numel(t->rank, t->dims, n);
}

bool olg__in_ints(const olg_icx *cx, int i, int64_t *buf, size_t cap, size_t *n) {
  const olg_value_rec *r = olg__in(cx, i);
  const olg_tensor *v = r ? olg__value_known(r) : NULL;
  /* the usual: an int64 vector (axes, a shape) whose bytes cover it, read at once; the checks
     below (olg__in_known's too) pass it alike */
  if (v && v->dtype == OLG_INT64 && v->rank == 1 && v->data && v->dims[0] >= 0 &&
      (uint64_t)v->dims[0] <= cap && v->nbytes / sizeof *buf >= (uint64_t)v->dims[0]) {
    memcpy(buf, v->data, (size_t)v->dims[0] * sizeof *buf);
    *n = (size_t)v->dims[0];
    return true;
  }
  const olg_tensor *t = olg__in_known(cx, i);
  uint64_t ne;
  if (!t || t->dtype == OLG_STRING || !tensor_numel(t, &ne) || ne > cap) return false;
  if (!olg__dtype_is_int(t->dtype) && t->dtype != OLG_BOOL) return false;
  if (olg_dtype_bits(t->dtype) < 8) return false; /* packed sub-byte types: not for shapes */
  for (uint64_t k = 0; k < ne; k++)
    if (!elem_i64(t, k, &buf[k])) return false;
  *n = (size_t)ne;
  return true;
}

bool olg__in_doubles(const olg_icx *cx, int i, double *buf, size_t cap, size_t *n) {
  const olg_tensor *t = olg__in_known(cx, i);
  uint64_t ne;
  if (!t || t->dtype == OLG_STRING || !tensor_numel(t, &ne) || ne > cap) return false;
  if (olg_dtype_bits(t->dtype) < 8) return false;
  for (uint64_t k = 0; k < ne; k++)
    if (!elem_f64(t, k, &buf[k])) return false;
  *n = (size_t)ne;
  return true;
}

bool olg__in_syms(const olg_icx *cx, int i, olg_dim *buf, size_t cap, size_t *n) {
  const olg_value_rec *r = olg__in(cx, i);
  if (!r) return false;
  int64_t tmp[OLG_INFER_MAX_RANK * 2];
  size_t k;
  if (cap <= sizeof tmp / sizeof tmp[0] && olg__in_ints(cx, i, tmp, cap, &k)) {
    if (olg__in_rank(cx, i) > 1) return false;
    for (size_t j = 0; j < k; j++) buf[j] = olg__dnum(tmp[j]);
    *n = k;
    return true;
  }
  const olg_dim *sym = olg__value_sym(r);
  if (sym) {
    size_t ns = olg__value_n_sym(r);
    if (ns > cap) return false;
    memcpy(buf, sym, ns * sizeof *buf);
    *n = ns;
    return true;
  }
  /* the element count alone, from a static 1-D shape */
  olg_ishape s;
  if (!olg__in_shape(cx, i, &s) || s.rank > 1) return false;
  int64_t ne = 1;
  if (s.rank == 1) {
    if (!olg__dknown(&s.d[0]) || (uint64_t)s.d[0].value > cap) return false;
    ne = s.d[0].value;
  }
  for (int64_t j = 0; j < ne; j++) buf[j] = (olg_dim){OLG_SYM_UNKNOWN, NULL, NULL};
  *n = (size_t)ne;
  return true;
}

/* ---------------------------------------------------------------------------------------- */
/* Attributes */

const olg_attr *olg__attr(const olg_icx *cx, const char *name) {
  return olg__node_attr(cx->nd, name);
}

int64_t olg__attr_i(const olg_icx *cx, const char *name, int64_t def) {
  const olg_attr *a = olg__attr(cx, name);
  return a && a->type == OLG_ATTR_INT ? a->i : def;
}

float olg__attr_f(const olg_icx *cx, const char *name, float def) {
  const olg_attr *a = olg__attr(cx, name);
  return a && a->type == OLG_ATTR_FLOAT ? a->f : def;
}

bool olg__attr_ints(const olg_icx *cx, const char *name, const int64_t **p, size_t *n) {
  const olg_attr *a = olg__attr(cx, name);
  if (!a || a->type != OLG_ATTR_INTS) return false;
  static const int64_t none[1] = {0};
  *p = a->ints ? a->ints : none; /* an empty list may have no array: callers memcpy from it */
  *n = a->ints ? a->n : 0;
  return true;
}

bool olg__attr_is(const olg_icx *cx, const char *name, const char *def, const char *s) {
  const olg_attr *a = olg__attr(cx, name);
  if (!a || a->type != OLG_ATTR_STRING) return strcmp(def, s) == 0;
  size_t l = strlen(s);
  return a->s.n == l && memcmp(a->s.p, s, l) == 0;
}

const char *olg__attr_s(const olg_icx *cx, const char *name, const char *def, char *buf,
                        size_t n) {
  const olg_attr *a = olg__attr(cx, name);
  const char *p = def;
  size_t l = strlen(def);
  if (a && a->type == OLG_ATTR_STRING) {
    p = a->s.p ? a->s.p : "";
    l = a->s.n;
  }
  if (!n) return buf;
  if (l >= n) l = n - 1;
  memcpy(buf, p, l);
  buf[l] = 0;
  return buf;
}

/* ---------------------------------------------------------------------------------------- */
/* Shapes */

bool olg__dim_same(const olg_dim *a, const olg_dim *b) {
  if (a->value >= 0 || b->value >= 0) return a->value == b->value;
  return a->param && b->param && strcmp(a->param, b->param) == 0;
}

bool olg__shape_rank(olg_ishape *s, int64_t r) {
  if (r < 0 || r > OLG_INFER_MAX_RANK) {
    s->rank = OLG_RANK_UNKNOWN;
    return false;
  }
  s->rank = (int32_t)r;
  for (int32_t k = 0; k < s->rank; k++) s->d[k] = olg__dunk();
  return true;
}

bool olg__shape_numel_known(const olg_ishape *s, int64_t *n) {
  if (s->rank < 0) return false;
  uint64_t p = 1;
  for (int32_t k = 0; k < s->rank; k++) {
    if (!olg__dknown(&s->d[k]) || !olg__mul_u64(p, (uint64_t)s->d[k].value, &p)) return false;
  }
  if (p > INT64_MAX) return false;
  *n = (int64_t)p;
  return true;
}

olg_dim olg__dim_add(olg_dim a, int64_t b) {
  if (b == 0) return a;
  int64_t r;
  if (a.value >= 0 && olg__add_i64(a.value, b, &r) && r >= 0) return olg__dnum(r);
  return olg__dunk();
}

bool olg__double_to_int(double d, olg_dtype dt, int64_t *out) {
  if (isnan(d)) return false;
  if (dt == OLG_BOOL) { *out = d != 0; return true; }
  d = trunc(d);
  double lo, hi; /* the range is [lo, hi): both bounds are exact in a double */
  switch (dt) {
  case OLG_INT8: lo = -128.0; hi = 128.0; break;
  case OLG_INT16: lo = -32768.0; hi = 32768.0; break;
  case OLG_INT32: lo = -2147483648.0; hi = 2147483648.0; break;
  case OLG_INT64: lo = -9223372036854775808.0; hi = 9223372036854775808.0; break;
  case OLG_UINT8: lo = 0; hi = 256.0; break;
  case OLG_UINT16: lo = 0; hi = 65536.0; break;
  case OLG_UINT32: lo = 0; hi = 4294967296.0; break;
  case OLG_UINT64: lo = 0; hi = 18446744073709551616.0; break;
  default: return false;
  }
  if (!(d >= lo && d < hi)) return false;
  /* uint64 above INT64_MAX keeps its bits in the int64 the callers store */
  *out = dt == OLG_UINT64 ? (int64_t)(uint64_t)d : (int64_t)d;
  return true;
}

olg_dim olg__dim_mul(olg_dim a, olg_dim b) {
  if (a.value == 1) return b;
  if (b.value == 1) return a;
  if (a.value == 0 || b.value == 0) return olg__dnum(0);
  if (a.value > 0 && b.value > 0) {
    uint64_t p;
    if (olg__mul_u64((uint64_t)a.value, (uint64_t)b.value, &p) && p <= INT64_MAX)
      return olg__dnum((int64_t)p);
  }
  return olg__dunk();
}

static const char *dim_text(const olg_dim *d, char *buf, size_t n) {
  if (d->value >= 0) snprintf(buf, n, "%lld", (long long)d->value);
  else snprintf(buf, n, "%s", d->param ? d->param : "?");
  return buf;
}

/* One dim of a broadcast: da against db (olg__type_shape's: no denotation, a negative value
 * OLG_DIM_UNKNOWN). False when they do not broadcast. */
static inline bool broadcast_dim(const olg_dim *da, const olg_dim *db, olg_dim *o) {
  if (da->value >= 0 && db->value >= 0) {
    if (da->value == db->value || db->value == 1) *o = *da;
    else if (da->value == 1) *o = *db;
    else return false;
  } else if (da->value > 1) {
    *o = *da;
  } else if (db->value > 1) {
    *o = *db;
  } else if (da->value == 1) {
    *o = *db;
  } else if (db->value == 1) {
    *o = *da;
  } else if (da->value == 0 || db->value == 0) {
    *o = olg__dnum(0); /* 0 broadcasts with 1 only; the other is then 1 or an error */
  } else if (olg__dim_same(da, db)) {
    *o = *da;
  } else {
    *o = olg__dunk();
  }
  return true;
}

olg_status olg__broadcast(olg_icx *cx, const olg_ishape *a, const olg_ishape *b, olg_ishape *out) {
  if (a->rank < 0 || b->rank < 0) {
    out->rank = OLG_RANK_UNKNOWN;
    return OLG_OK;
  }
  int32_t r = a->rank > b->rank ? a->rank : b->rank;
  olg_ishape res;
  res.rank = r;
  for (int32_t k = 0; k < r; k++) {
    int32_t ia = k - (r - a->rank), ib = k - (r - b->rank);
    olg_dim da = ia >= 0 ? a->d[ia] : olg__dnum(1), db = ib >= 0 ? b->d[ib] : olg__dnum(1);
    if (!broadcast_dim(&da, &db, &res.d[k])) {
      char x[32], y[32];
      return olg__fail(cx, "shapes do not broadcast: dim %d is %s in one input and %s in the other",
                       (int)k, dim_text(&da, x, sizeof x), dim_text(&db, y, sizeof y));
    }
  }
  /* the rank's dims only: the rest of an olg_ishape is unused, and the whole is 772 bytes */
  out->rank = r;
  memcpy(out->d, res.d, (size_t)r * sizeof *res.d);
  return OLG_OK;
}

/* A dim of a type as olg__type_shape reads it. */
static inline olg_dim shape_dim(const olg_dim *d) {
  olg_dim o = {d->value < 0 ? OLG_DIM_UNKNOWN : d->value, d->param, NULL};
  return o;
}

bool olg__broadcast_types(const olg_type *a, const olg_type *b, olg_ishape *out) {
  if (!a || !b || (a->kind != OLG_TYPE_TENSOR && a->kind != OLG_TYPE_SPARSE_TENSOR) ||
      (b->kind != OLG_TYPE_TENSOR && b->kind != OLG_TYPE_SPARSE_TENSOR) || !a->has_shape ||
      !b->has_shape || a->rank < 0 || a->rank > OLG_INFER_MAX_RANK || b->rank < 0 ||
      b->rank > OLG_INFER_MAX_RANK)
    return false;
  int32_t r = a->rank > b->rank ? a->rank : b->rank;
  for (int32_t k = 0; k < r; k++) {
    int32_t ia = k - (r - a->rank), ib = k - (r - b->rank);
    olg_dim da = ia >= 0 ? shape_dim(&a->dims[ia]) : olg__dnum(1),
            db = ib >= 0 ? shape_dim(&b->dims[ib]) : olg__dnum(1);
    if (!broadcast_dim(&da, &db, &out->d[k])) return false;
  }
  out->rank = r;
  return true;
}

olg_status olg__axis(olg_icx *cx, int64_t axis, int32_t rank, const char *what, int32_t *out) {
  if (axis < -(int64_t)rank || axis >= (int64_t)rank)
    return olg__fail(cx, "%s %lld is out of range for rank %d (allowed: %d..%d)", what,
                     (long long)axis, (int)rank, -(int)rank, (int)rank - 1);
  *out = (int32_t)(axis < 0 ? axis + rank : axis);
  return OLG_OK;
}

/* ---------------------------------------------------------------------------------------- */
/* Failure */

static const char *node_label(const olg_icx *cx, char *buf, size_t n) {
  const olg_node *nd = cx->nd;
  snprintf(buf, n, "%s%s%s-%lld%s%s%s", *nd->domain ? nd->domain : "", *nd->domain ? "." : "",
           nd->op, (long long)cx->opset, *nd->name ? " '" : "", nd->name, *nd->name ? "'" : "");
  return buf;
}

olg_status olg__fail(olg_icx *cx, const char *fmt, ...) {
  char msg[1024], lab[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (cx->diags) {
    olg_status s = olg__diags_add_node(cx->diags, OLG_ERROR, "OLG-INFER-INVALID", cx->g, cx->nd,
                                       cx->opset, msg);
    if (s) return s;
  }
  return olg__err(OLG_ERR_INVALID_MODEL, "%s: %s", node_label(cx, lab, sizeof lab), msg);
}

/* ---------------------------------------------------------------------------------------- */
/* Types in the arena */

olg_type *olg__type_new(olg_icx *cx) {
  olg_type *t = olg__arena_alloc(cx->m, sizeof *t);
  if (t) t->rank = OLG_RANK_UNKNOWN;
  return t;
}

olg_dim *olg__infer_dims_dup(olg_model *m, const olg_dim *d, int32_t rank) {
  if (rank <= 0) return NULL;
  size_t nb = (size_t)rank * sizeof *d;
  for (int k = 0; k < 4; k++) /* byte-equal: the same numbers, names and denotations */
    if (m->dims_memo_rank[k] == rank && memcmp(m->dims_memo[k], d, nb) == 0)
      return (olg_dim *)m->dims_memo[k];
  olg_dim *p = olg__arena_alloc(m, nb);
  if (!p) return NULL;
  memcpy(p, d, nb);
  uint32_t k = m->dims_memo_next++ & 3;
  m->dims_memo[k] = p;
  m->dims_memo_rank[k] = rank;
  return p;
}

olg_type *olg__type_tensor(olg_icx *cx, olg_dtype dt, const olg_ishape *s) {
  olg_type *t = olg__type_new(cx);
  if (!t) return NULL;
  t->kind = OLG_TYPE_TENSOR;
  t->has_elem = dt != OLG_UNDEFINED;
  if (olg__type_set_elem(cx->m, t, dt)) return NULL;
  if (s && s->rank >= 0) {
    t->has_shape = true;
    t->rank = s->rank;
    if (s->rank > 0 && !(t->dims = olg__infer_dims_dup(cx->m, s->d, s->rank))) return NULL;
  }
  return t;
}

/* t and the types nested in it, in the arena. A value's type lives in its graph's value array,
 * which moves when the graph grows (a lowering emitting into it): a sequence or optional type
 * made of an input's type must not point there (it did, and a later write read freed memory). */
static olg_type *arena_type(olg_icx *cx, const olg_type *t) {
  olg_type *c = olg__arena_dup(cx->m, t, sizeof *t);
  const olg_type *in = olg__type_inner(t), *cin;
  if (c && in && (!(cin = arena_type(cx, in)) || olg__type_set_inner(cx->m, c, cin))) return NULL;
  return c;
}

olg_type *olg__type_wrap(olg_icx *cx, olg_type_kind kind, const olg_type *inner) {
  olg_type *t = olg__type_new(cx);
  if (!t) return NULL;
  t->kind = (uint8_t)kind;
  const olg_type *in;
  if (inner && (!(in = arena_type(cx, inner)) || olg__type_set_inner(cx->m, t, in))) return NULL;
  return t;
}

/* ---------------------------------------------------------------------------------------- */
/* Subgraphs */

olg_graph *olg__attr_graph(const olg_icx *cx, const char *name) {
  const olg_attr *a = olg__attr(cx, name);
  return a && a->type == OLG_ATTR_GRAPH ? a->g : NULL;
}

olg_status olg__set_graph_input(olg_icx *cx, olg_graph *sub, int i, const olg_type *t) {
  if (!t || i < 0 || (uint32_t)i >= sub->inputs.n) return OLG_OK;
  olg_value_rec *r = &sub->values[sub->inputs.p[i]];
  olg_type res;
  bool conflict = false;
  olg_status s = olg__infer_merge_type(cx, &r->type, t, &res, &conflict);
  if (s) return s;
  if (conflict) return OLG_OK; /* a subgraph may declare a more general or a different input;
                                  what it declares stays (the checker reports real clashes) */
  r->type = res;
  return OLG_OK;
}

const olg_type *olg__graph_output_type(const olg_graph *sub, int i) {
  if (i < 0 || (uint32_t)i >= sub->outputs.n) return NULL;
  const olg_value_rec *r = olg__resolve(sub, sub->outputs.p[i], NULL);
  return r->type.kind != OLG_TYPE_NONE ? &r->type : NULL;
}

static olg_status infer_graph(olg_graph *g, const olg_model *m, olg_diags *diags, bool notes,
                              size_t max_errors, int depth, olg_iscopes *sc);

olg_status olg__infer_subgraph(olg_icx *cx, olg_graph *sub) {
  if (!sub) return OLG_OK; /* no body (the checker reports it): nothing to infer from */
  if (cx->bodies_done) return OLG_OK; /* inferred node by node as they were emitted */
  /* inference recurses through the bodies: bounded by the nesting, not the stack */
  int depth = cx->depth + 1;
  if (depth > OLG_MAX_GRAPH_DEPTH) {
    char msg[256];
    snprintf(msg, sizeof msg, "the subgraphs of this node are " OLG_DEPTH_WORDS, OLG_MAX_GRAPH_DEPTH,
             OLG_MAX_GRAPH_DEPTH);
    if (cx->diags) {
      olg_status ds = olg__diags_add_node(cx->diags, OLG_ERROR, "OLG-CHECK-DEPTH", cx->g, cx->nd,
                                          cx->opset, msg);
      if (ds) return ds;
    }
    return olg__err(OLG_ERR_LIMIT, "node '%s' (%s): %s", cx->nd->name, cx->nd->op, msg);
  }
  olg_status s = infer_graph(sub, cx->m, cx->diags, cx->notes, cx->max_errors, depth, cx->sc);
  /* an impossible node inside the body was reported there; the outer node is not impossible
     by itself, so only memory failures propagate */
  return s == OLG_ERR_INVALID_MODEL ? OLG_OK : s;
}

/* ---------------------------------------------------------------------------------------- */
/* The rule table: sorted by op name, looked up by binary search. */

typedef struct rule {
  const char *op;
  olg_infer_fn fn;
} rule;

static const rule onnx_rules[] = {
  {"Abs", olg__inf_unary}, {"Acos", olg__inf_unary}, {"Acosh", olg__inf_unary},
  {"Add", olg__inf_binary}, {"AffineGrid", olg__inf_affine_grid}, {"And", olg__inf_logical},
  {"ArgMax", olg__inf_argmax}, {"ArgMin", olg__inf_argmax}, {"Asin", olg__inf_unary},
  {"Asinh", olg__inf_unary}, {"Atan", olg__inf_unary}, {"Atanh", olg__inf_unary},
  {"Attention", olg__inf_attention}, {"AveragePool", olg__inf_pool},
  {"BatchNormalization", olg__inf_batchnorm}, {"Bernoulli", olg__inf_bernoulli},
  {"BitCast", olg__inf_bitcast},
  {"BitShift", olg__inf_bitshift}, {"BitwiseAnd", olg__inf_binary},
  {"BitwiseNot", olg__inf_unary}, {"BitwiseOr", olg__inf_binary},
  {"BitwiseXor", olg__inf_binary}, {"BlackmanWindow", olg__inf_window},
  {"Cast", olg__inf_cast}, {"CastLike", olg__inf_castlike}, {"Ceil", olg__inf_unary},
  {"Celu", olg__inf_unary}, {"CenterCropPad", olg__inf_center_crop_pad},
  {"Clip", olg__inf_clip}, {"Col2Im", olg__inf_col2im}, {"Compress", olg__inf_compress},
  {"Concat", olg__inf_concat}, {"ConcatFromSequence", olg__inf_concat_from_seq},
  {"Constant", olg__inf_constant}, {"ConstantOfShape", olg__inf_constant_of_shape},
  {"Conv", olg__inf_conv}, {"ConvInteger", olg__inf_conv_integer},
  {"ConvTranspose", olg__inf_conv_transpose}, {"Cos", olg__inf_unary}, {"Cosh", olg__inf_unary},
  {"CumProd", olg__inf_cumsum}, {"CumSum", olg__inf_cumsum}, {"DFT", olg__inf_dft}, {"DeformConv", olg__inf_deform_conv},
  {"DepthToSpace", olg__inf_depth_to_space}, {"DequantizeLinear", olg__inf_dequantize},
  {"Det", olg__inf_det}, {"Div", olg__inf_binary}, {"Dropout", olg__inf_dropout},
  {"DynamicQuantizeLinear", olg__inf_dyn_quantize}, {"Einsum", olg__inf_einsum},
  {"Elu", olg__inf_unary}, {"Equal", olg__inf_compare}, {"Erf", olg__inf_unary},
  {"Exp", olg__inf_unary}, {"Expand", olg__inf_expand}, {"EyeLike", olg__inf_eyelike},
  {"Flatten", olg__inf_flatten}, {"Floor", olg__inf_unary}, {"GRU", olg__inf_rnn},
  {"Gather", olg__inf_gather}, {"GatherElements", olg__inf_gather_elements},
  {"GatherND", olg__inf_gather_nd}, {"Gelu", olg__inf_unary}, {"Gemm", olg__inf_gemm},
  {"GlobalAveragePool", olg__inf_global_pool}, {"GlobalLpPool", olg__inf_global_pool},
  {"GlobalMaxPool", olg__inf_global_pool}, {"Greater", olg__inf_compare},
  {"GreaterOrEqual", olg__inf_compare}, {"GridSample", olg__inf_grid_sample},
  {"GroupNormalization", olg__inf_groupnorm}, {"HammingWindow", olg__inf_window},
  {"HannWindow", olg__inf_window}, {"HardSigmoid", olg__inf_unary},
  {"HardSwish", olg__inf_unary}, {"Hardmax", olg__inf_hardmax}, {"Identity", olg__inf_identity},
  {"If", olg__inf_if}, {"ImageDecoder", olg__inf_image_decoder},
  {"InstanceNormalization", olg__inf_unary},
  {"IsInf", olg__inf_isinf}, {"IsNaN", olg__inf_unary_bool}, {"LRN", olg__inf_lrn},
  {"LSTM", olg__inf_rnn}, {"LayerNormalization", olg__inf_layernorm},
  {"LeakyRelu", olg__inf_unary}, {"Less", olg__inf_compare}, {"LessOrEqual", olg__inf_compare},
  {"Log", olg__inf_unary}, {"LogSoftmax", olg__inf_softmax}, {"Loop", olg__inf_loop},
  {"LpNormalization", olg__inf_unary}, {"LpPool", olg__inf_pool}, {"MatMul", olg__inf_matmul},
  {"MatMulInteger", olg__inf_matmul_integer}, {"Max", olg__inf_variadic},
  {"MaxPool", olg__inf_pool}, {"MaxRoiPool", olg__inf_roi_pool},
  {"MaxUnpool", olg__inf_max_unpool}, {"Mean", olg__inf_variadic},
  {"MeanVarianceNormalization", olg__inf_unary}, {"MelWeightMatrix", olg__inf_mel},
  {"Min", olg__inf_variadic}, {"Mish", olg__inf_unary}, {"Mod", olg__inf_mod},
  {"Mul", olg__inf_binary}, {"Multinomial", olg__inf_multinomial}, {"Neg", olg__inf_unary},
  {"NegativeLogLikelihoodLoss", olg__inf_nll_loss}, {"NonMaxSuppression", olg__inf_nms},
  {"NonZero", olg__inf_nonzero}, {"Not", olg__inf_not}, {"OneHot", olg__inf_onehot},
  {"Optional", olg__inf_optional}, {"OptionalGetElement", olg__inf_optional_get},
  {"OptionalHasElement", olg__inf_optional_has}, {"Or", olg__inf_logical},
  {"PRelu", olg__inf_prelu}, {"Pad", olg__inf_pad}, {"Pow", olg__inf_pow},
  {"QLinearConv", olg__inf_qlinear_conv}, {"QLinearMatMul", olg__inf_qlinear_matmul},
  {"QuantizeLinear", olg__inf_quantize}, {"RMSNormalization", olg__inf_rms_norm},
  {"RNN", olg__inf_rnn}, {"RandomNormal", olg__inf_random},
  {"RandomNormalLike", olg__inf_random_like}, {"RandomUniform", olg__inf_random},
  {"RandomUniformLike", olg__inf_random_like}, {"Range", olg__inf_range},
  {"Reciprocal", olg__inf_unary}, {"ReduceL1", olg__inf_reduce}, {"ReduceL2", olg__inf_reduce},
  {"ReduceLogSum", olg__inf_reduce}, {"ReduceLogSumExp", olg__inf_reduce},
  {"ReduceMax", olg__inf_reduce}, {"ReduceMean", olg__inf_reduce},
  {"ReduceMin", olg__inf_reduce}, {"ReduceProd", olg__inf_reduce},
  {"ReduceSum", olg__inf_reduce}, {"ReduceSumSquare", olg__inf_reduce},
  {"RegexFullMatch", olg__inf_unary_bool}, {"Relu", olg__inf_unary}, {"Reshape", olg__inf_reshape},
  {"Resize", olg__inf_resize}, {"ReverseSequence", olg__inf_reverse_sequence},
  {"RoiAlign", olg__inf_roi_align}, {"RotaryEmbedding", olg__inf_rotary},
  {"Round", olg__inf_unary}, {"STFT", olg__inf_stft}, {"Scan", olg__inf_scan},
  {"Scatter", olg__inf_scatter}, {"ScatterElements", olg__inf_scatter},
  {"ScatterND", olg__inf_scatter}, {"Selu", olg__inf_unary},
  {"SequenceAt", olg__inf_seq_at}, {"SequenceConstruct", olg__inf_seq_construct},
  {"SequenceEmpty", olg__inf_seq_empty}, {"SequenceErase", olg__inf_seq_erase},
  {"SequenceInsert", olg__inf_seq_insert}, {"SequenceLength", olg__inf_seq_length},
  {"SequenceMap", olg__inf_sequence_map}, {"Shape", olg__inf_shape},
  {"Shrink", olg__inf_shrink}, {"Sigmoid", olg__inf_unary}, {"Sign", olg__inf_unary},
  {"Sin", olg__inf_unary}, {"Sinh", olg__inf_unary}, {"Size", olg__inf_size},
  {"Slice", olg__inf_slice}, {"Softmax", olg__inf_softmax},
  {"SoftmaxCrossEntropyLoss", olg__inf_sce_loss}, {"Softplus", olg__inf_unary},
  {"Softsign", olg__inf_unary}, {"SpaceToDepth", olg__inf_space_to_depth},
  {"Split", olg__inf_split}, {"SplitToSequence", olg__inf_split_to_seq},
  {"Sqrt", olg__inf_unary}, {"Squeeze", olg__inf_squeeze},
  {"StringConcat", olg__inf_string_concat},
  {"StringNormalizer", olg__inf_string_normalizer}, {"StringSplit", olg__inf_string_split}, {"Sub", olg__inf_binary},
  {"Sum", olg__inf_variadic}, {"SwiGLU", olg__inf_clip}, {"Swish", olg__inf_unary}, {"Tan", olg__inf_unary},
  {"Tanh", olg__inf_unary}, {"TensorScatter", olg__inf_clip},
  {"TfIdfVectorizer", olg__inf_tfidf},
  {"ThresholdedRelu", olg__inf_unary}, {"Tile", olg__inf_tile}, {"TopK", olg__inf_topk},
  {"Transpose", olg__inf_transpose}, {"Trilu", olg__inf_trilu}, {"Unique", olg__inf_unique},
  {"Unsqueeze", olg__inf_unsqueeze}, {"Upsample", olg__inf_upsample}, {"Where", olg__inf_where},
  {"Xor", olg__inf_logical},
};

static const rule training_rules[] = {
  {"Adagrad", olg__inf_adagrad}, {"Adam", olg__inf_adam}, {"Gradient", olg__inf_gradient},
  {"Momentum", olg__inf_adagrad},
};

/* The rows found last, per thread, by the address of the op name: every emitted node asks for
 * its rule, mostly the same few ops, each by one copy of its name (the binary search's strcmps
 * were 1% of a chain's conversion; hashing the name, another 1%). A row is taken only when it
 * belongs to this table and holds the op. */
static _Thread_local const rule *rule_memo[64];

static const rule *find_in(const rule *t, size_t n, const char *op) {
  const rule **slot = &rule_memo[((uintptr_t)op ^ (uintptr_t)op >> 6) & 63u];
  const rule *m = *slot;
  if (m && m >= t && m < t + n && (m->op == op || strcmp(m->op, op) == 0)) return m->fn ? m : NULL;
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    int c = strcmp(t[mid].op, op);
    if (c == 0) return *slot = &t[mid], t[mid].fn ? &t[mid] : NULL;
    if (c < 0) lo = mid + 1;
    else hi = mid;
  }
  return NULL;
}

static const rule *find_rule(const char *domain, const char *op) {
  if (is_default_domain(domain))
    return find_in(onnx_rules, sizeof onnx_rules / sizeof *onnx_rules, op);
  if (strcmp(domain, "ai.onnx.preview.training") == 0)
    return find_in(training_rules, sizeof training_rules / sizeof *training_rules, op);
  return NULL;
}

bool olg__infer_has_rule(const char *domain, const char *op) {
  return find_rule(domain, op) != NULL;
}

/* For the unit tests: the table is sorted (binary search relies on it). */
bool olg__infer_table_sorted(void);
bool olg__infer_table_sorted(void) {
  for (size_t i = 1; i < sizeof onnx_rules / sizeof *onnx_rules; i++)
    if (strcmp(onnx_rules[i - 1].op, onnx_rules[i].op) >= 0) return false;
  for (size_t i = 1; i < sizeof training_rules / sizeof *training_rules; i++)
    if (strcmp(training_rules[i - 1].op, training_rules[i].op) >= 0) return false;
  return true;
}

/* ---------------------------------------------------------------------------------------- */
/* Driver */

static olg_status infer_node(olg_graph *g, olg_node_id n, int64_t opset, olg_diags *diags,
                             bool notes, size_t max_errors, int depth, bool bodies_done,
                             olg_iscopes *sc) {
  if (!g || n < 0 || (uint32_t)n >= g->n_nodes)
    return olg__err(OLG_ERR_INVALID_ARG, "olg__infer_node: no node %d", (int)n);
  olg_node *nd = &g->nodes[n];
  if (nd->state != OLG_NODE_DONE) return OLG_OK;
  const rule *r = find_rule(nd->domain, nd->op);
  if (!r) return OLG_OK;
  olg_icx cx = {g, g->model, nd, n, opset, diags, max_errors, notes, bodies_done, depth, sc};
  /* a rule's helpers return NULL both for "not known" and for a refused allocation (a type
     union, a wrapped type): the arena's failure count tells them apart, so that no failure
     passes for an unknown type */
  uint32_t failures = g->model->arena.failures;
  olg_status s = r->fn(&cx);
  if (!s && g->model->arena.failures != failures)
    s = olg__err(OLG_ERR_NOMEM, "out of memory inferring node '%s' (%s)", nd->name, nd->op);
  return s;
}

olg_status olg__infer_node(olg_graph *g, olg_node_id n, int64_t opset, olg_diags *diags) {
  return infer_node(g, n, opset, diags, false, 0, 0, false, NULL);
}

olg_status olg__infer_node_in(olg_iscopes *sc, olg_graph *g, olg_node_id n, int64_t opset,
                              olg_diags *diags) {
  return infer_node(g, n, opset, diags, false, 0, 0, false, sc);
}

olg_status olg__infer_node_emitted(olg_graph *g, olg_node_id n, int64_t opset, olg_diags *diags) {
  return infer_node(g, n, opset, diags, false, 0, 0, true, NULL);
}

/* True when every explicit input of every node is produced by an earlier node (file order is
 * then a topological order, and implicit subgraph captures are in order too). */
static bool ids_in_order(const olg_graph *g) {
  for (uint32_t n = 0; n < g->n_nodes; n++) {
    const olg_node *nd = &g->nodes[n];
    if (nd->state != OLG_NODE_DONE) continue;
    for (uint32_t i = 0; i < nd->n_args; i++) {
      const olg_arg *a = &nd->args[i];
      if (a->kind == OLG_ARG_VALUE) {
        if (g->values[a->u.v].producer >= (olg_node_id)n) return false;
      } else if (a->kind == OLG_ARG_VALUES) {
        for (size_t j = 0; j < a->n; j++) {
          olg_value v = a->u.vals[j];
          if (v >= 0 && g->values[v].producer >= (olg_node_id)n) return false;
        }
      }
    }
  }
  return true;
}

olg_status olg__infer_graph_ex(olg_graph *g, const olg_model *m, olg_diags *diags, bool notes,
                               size_t max_errors) {
  if (!g || !m) return olg__err(OLG_ERR_INVALID_ARG, "olg__infer_graph: NULL argument");
  olg_iscopes *sc;
  olg_status s = olg__iscopes_new(&g->model->alloc, &sc);
  if (s) return s;
  s = infer_graph(g, m, diags, notes, max_errors, 0, sc);
  olg__iscopes_free(sc);
  return s;
}

static olg_status infer_graph_body(olg_graph *g, const olg_model *m, olg_diags *diags, bool notes,
                                   size_t max_errors, int depth, olg_iscopes *sc);

static olg_status infer_graph(olg_graph *g, const olg_model *m, olg_diags *diags, bool notes,
                              size_t max_errors, int depth, olg_iscopes *sc) {
  if (!g || !m) return olg__err(OLG_ERR_INVALID_ARG, "olg__infer_graph: NULL argument");
  olg_status st = sc ? olg__iscopes_push(sc, g) : OLG_OK; /* popped on every way out */
  if (!st) st = infer_graph_body(g, m, diags, notes, max_errors, depth, sc);
  if (sc) olg__iscopes_pop(sc);
  return st;
}

static olg_status infer_graph_body(olg_graph *g, const olg_model *m, olg_diags *diags, bool notes,
                                   size_t max_errors, int depth, olg_iscopes *sc) {
  olg_node_id *order = NULL;
  size_t n = g->n_nodes;
  const olg_allocator *al = &g->model->alloc;
  if (!ids_in_order(g)) {
    order = olg__malloc(al, (n ? n : 1) * sizeof *order);
    if (!order) return OLG_ERR_NOMEM;
    olg_status s = olg_graph_topo_order(g, order);
    if (s) {
      olg__free(al, order, (n ? n : 1) * sizeof *order);
      return s;
    }
  }
  bool failed = false;
  olg_status result = OLG_OK;
  /* one opset lookup per distinct domain pointer run: most graphs use one domain */
  const char *last_domain = NULL;
  int64_t last_opset = -1;
  for (size_t k = 0; k < n; k++) {
    olg_node_id id = order ? order[k] : (olg_node_id)k;
    if (id < 0) continue;
    const olg_node *nd = &g->nodes[id];
    if (nd->state != OLG_NODE_DONE) continue;
    int64_t opset;
    if (last_domain && (nd->domain == last_domain || strcmp(nd->domain, last_domain) == 0)) {
      opset = last_opset;
    } else {
      opset = olg__domain_opset(m, nd->domain);
      if (opset < 0 && is_default_domain(nd->domain)) opset = OLG_ONNX_OPSET_RELEASED;
      last_domain = nd->domain;
      last_opset = opset;
    }
    if (!find_rule(nd->domain, nd->op)) {
      if (notes && diags && opset >= 0) {
        char msg[300];
        snprintf(msg, sizeof msg, "no shape inference for %s%s%s: its outputs stay untyped",
                 *nd->domain ? nd->domain : "", *nd->domain ? "." : "", nd->op);
        olg_status s = olg__diags_add_node(diags, OLG_NOTE, "OLG-INFER-UNSUPPORTED", g, nd, opset, msg);
        if (s) { result = s; break; }
      }
      continue;
    }
    if (opset < 0) continue;
    olg_status s = infer_node(g, id, opset, diags, notes, max_errors, depth, false, sc);
    if (s == OLG_ERR_INVALID_MODEL) {
      failed = true;
      if (max_errors && diags && olg_diags_error_count(diags) >= max_errors) break;
      continue;
    }
    if (s) { result = s; break; }
  }
  if (order) olg__free(al, order, (n ? n : 1) * sizeof *order);
  if (result) return result;
  return failed ? olg__err(OLG_ERR_INVALID_MODEL, "graph '%s': some nodes are impossible (see the diagnostics)", g->name)
                : OLG_OK;
}

olg_status olg__infer_graph(olg_graph *g, const olg_model *m, olg_diags *diags) {
  return olg__infer_graph_ex(g, m, diags, false, 0);
}
