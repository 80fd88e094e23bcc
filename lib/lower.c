/* onnxlegal — the lowering context (legalize.h, olg_lower_*): diagnostics, the setting and the
 * source node being lowered, its arguments and attributes, what is known about values. Emission
 * is in lower_emit.c, the driver that runs the symbolics in legalize.c. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lower.h"

/* ------------------------------------------------------------------------------------------ */
/* Diagnostics */

static const char *src_domain_label(const olg_lower *cx) {
  return cx->cur_node ? (*cx->cur_node->domain ? cx->cur_node->domain : "onnx") : "";
}

/* A diagnostic about the current node; min_opset (-1: none) is the lowest opset that works. */
olg_status olg__lower_diag_min(olg_lower *cx, olg_severity sev, const char *code,
                               olg_status status, const char *message, int min_opset) {
  const olg_node *nd = cx->cur_node;
  char buf[1024];
  if (nd && *nd->name)
    snprintf(buf, sizeof buf, "%s::%s (node '%s') at opset %d: %s", src_domain_label(cx), nd->op,
             nd->name, cx->opset, message);
  else if (nd) /* unnamed: its index in the graph says which */
    snprintf(buf, sizeof buf, "%s::%s (unnamed node #%d) at opset %d: %s", src_domain_label(cx),
             nd->op, (int)cx->cur, cx->opset, message);
  else
    snprintf(buf, sizeof buf, "at opset %d: %s", cx->opset, message);
  if (sev == OLG_ERROR) {
    cx->cur_reported = true;
    cx->n_errors++; /* counts every error of the call */
    olg__err(status, "%s", buf);
  }
  if (cx->diags) {
    /* the message alone: the diagnostic's fields (node, index, output, op, opset) say where */
    size_t before = olg_diags_count(cx->diags);
    olg__diags_add_node(cx->diags, sev, code, cx->src, nd, cx->opset, message); /* a failure is
                                                                     counted by diags as lost */
    if (min_opset > 0) olg__diags_set_last_min_opset(cx->diags, before, min_opset);
  }
  return status;
}

olg_status olg__lower_diag_at(olg_lower *cx, const olg_node *nd, olg_severity sev, const char *code,
                              olg_status status, const char *fmt, va_list ap) {
  char buf[768];
  vsnprintf(buf, sizeof buf, fmt, ap);
  const olg_node *was = cx->cur_node;
  olg_node_id was_id = cx->cur;
  cx->cur_node = nd;
  if (nd) cx->cur = (olg_node_id)(nd - cx->src->nodes);
  olg_status s = olg__lower_diag_min(cx, sev, code, status, buf, -1);
  cx->cur_node = was;
  cx->cur = was_id;
  return s;
}

olg_status olg__lower_diag(olg_lower *cx, olg_severity sev, const char *code, olg_status status,
                           const char *message) {
  return olg__lower_diag_min(cx, sev, code, status, message, -1);
}

OLG_API olg_status olg_lower_error(olg_lower *cx, olg_status code, const char *message) {
  if (!cx) return olg__err(OLG_ERR_INVALID_ARG, "olg_lower_error: cx is NULL");
  if (code == OLG_OK) code = OLG_ERR_UNSUPPORTED;
  const char *dc = code == OLG_ERR_UNSUPPORTED ? "OLG-LOWER-UNSUPPORTED"
                   : code == OLG_ERR_TYPE      ? "OLG-LOWER-TYPE"
                   : code == OLG_ERR_NOMEM     ? "OLG-LOWER-NOMEM"
                                               : "OLG-LOWER-ERROR";
  return olg__lower_diag(cx, OLG_ERROR, dc, code, message ? message : "");
}

OLG_API olg_status olg_lower_warning(olg_lower *cx, const char *message) {
  if (!cx) return olg__err(OLG_ERR_INVALID_ARG, "olg_lower_warning: cx is NULL");
  olg__lower_diag(cx, OLG_WARNING, "OLG-LOWER-WARNING", OLG_OK, message ? message : "");
  return OLG_OK;
}

OLG_API olg_status olg_lower_unsupported(olg_lower *cx, const char *what, int min_opset) {
  if (!cx) return olg__err(OLG_ERR_INVALID_ARG, "olg_lower_unsupported: cx is NULL");
  char buf[768];
  if (min_opset > 0)
    snprintf(buf, sizeof buf, "%s is not supported at opset %d; it needs opset >= %d", what,
             cx->opset, min_opset);
  else
    snprintf(buf, sizeof buf, "%s is not supported at opset %d, nor at any opset from %d to %d",
             what, cx->opset, OLG_LOWER_OPSET_MIN, OLG_LOWER_OPSET_MAX);
  return olg__lower_diag_min(cx, OLG_ERROR, "OLG-LOWER-UNSUPPORTED", OLG_ERR_UNSUPPORTED, buf,
                             min_opset);
}

OLG_API olg_status olg_lower_decompose(olg_lower *cx, const char *what, int native_opset) {
  if (!cx) return olg__err(OLG_ERR_INVALID_ARG, "olg_lower_decompose: cx is NULL");
  if (cx->allow_decompositions) {
    cx->cur_decomposed = true;
    return OLG_OK;
  }
  char buf[768];
  if (native_opset > 0)
    snprintf(buf, sizeof buf,
             "%s needs a decomposition at opset %d, and decompositions are turned off; it is "
             "native from opset %d",
             what, cx->opset, native_opset);
  else
    snprintf(buf, sizeof buf,
             "%s needs a decomposition at opset %d, and decompositions are turned off; no opset "
             "has it natively",
             what, cx->opset);
  return olg__lower_diag_min(cx, OLG_ERROR, "OLG-LOWER-DECOMPOSITION", OLG_ERR_UNSUPPORTED, buf,
                             native_opset);
}

olg_status olg__errf(olg_lower *cx, olg_status code, const char *fmt, ...) {
  char buf[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return olg_lower_error(cx, code, buf);
}

olg_status olg__unsupportedf(olg_lower *cx, int min_opset, const char *fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return olg_lower_unsupported(cx, buf, min_opset);
}

void *olg__lower_alloc(olg_lower *cx, size_t n) { return olg__arena_alloc(cx->dst_model, n ? n : 1); }

/* A byte string as a C string: a model read from a file holds its strings in the mapped bytes,
 * not NUL-terminated, so they are copied (into the target's arena). */
static const char *c_string(olg_lower *cx, olg_bytes b) {
  return olg__strndup(cx->dst_model, b.p ? b.p : "", b.n);
}


/* ------------------------------------------------------------------------------------------ */
/* The setting and the source node */

OLG_API int64_t olg_lower_opset(const olg_lower *cx) { return cx ? cx->opset : -1; }
OLG_API int64_t olg_lower_source_opset(const olg_lower *cx) { return cx ? cx->cur_src_opset : -1; }
OLG_API const char *olg_lower_profile(const olg_lower *cx) { return cx ? cx->profile : ""; }
OLG_API int olg_lower_decompositions_allowed(const olg_lower *cx) {
  return cx ? cx->allow_decompositions : 0;
}
OLG_API const olg_graph *olg_lower_source(const olg_lower *cx) { return cx ? cx->src : NULL; }
OLG_API olg_graph *olg_lower_target(olg_lower *cx) { return cx ? cx->dst : NULL; }
OLG_API const char *olg_lower_node_name(const olg_lower *cx) {
  return cx && cx->cur_node ? cx->cur_node->name : "";
}
OLG_API const char *olg_lower_node_domain(const olg_lower *cx) {
  return cx && cx->cur_node ? cx->cur_node->domain : "";
}
OLG_API const char *olg_lower_node_op(const olg_lower *cx) {
  return cx && cx->cur_node ? cx->cur_node->op : "";
}
OLG_API size_t olg_lower_arg_count(const olg_lower *cx) {
  return cx && cx->cur_node ? cx->cur_node->n_args : 0;
}
const olg_node *olg__src_node(const olg_lower *cx) { return cx->cur_node; }

static const olg_arg *arg_at(const olg_lower *cx, size_t i) {
  if (!cx || !cx->cur_node || i >= cx->cur_node->n_args) return NULL;
  return &cx->cur_node->args[i];
}

OLG_API int olg_lower_arg_kind(const olg_lower *cx, size_t i) {
  const olg_arg *a = arg_at(cx, i);
  return a ? a->kind : OLG_ARGKIND_NONE;
}

OLG_API int olg_lower_arg_is_none(const olg_lower *cx, size_t i) {
  const olg_arg *a = arg_at(cx, i);
  return !a || a->kind == OLG_ARG_NONE;
}

static const char *kind_name(int k) {
  static const char *const names[] = {"none", "tensor", "tensor list", "int",      "float",
                                      "bool", "string", "int list",    "float list"};
  return k >= 0 && k <= 8 ? names[k] : "?";
}

static olg_status arg_type_error(olg_lower *cx, size_t i, const char *want) {
  return olg__errf(cx, OLG_ERR_TYPE, "argument %zu must be %s, not %s", i, want,
                   kind_name(olg_lower_arg_kind(cx, i)));
}

static olg_value map_value(const olg_lower *cx, olg_value sv) {
  if (sv < 0 || (uint32_t)sv >= cx->src->n_values) return OLG_NO_VALUE;
  return cx->map[sv];
}

OLG_API olg_status olg_lower_arg_value(olg_lower *cx, size_t i, olg_value *out) {
  if (!cx || !out) return olg__err(OLG_ERR_INVALID_ARG, "olg_lower_arg_value: NULL argument");
  const olg_arg *a = arg_at(cx, i);
  if (!a || a->kind != OLG_ARG_VALUE) return arg_type_error(cx, i, "a tensor");
  olg_value v = map_value(cx, a->u.v);
  if (v == OLG_NO_VALUE)
    return olg__errf(cx, OLG_ERR_STATE, "argument %zu ('%s') has no lowered value", i,
                     cx->src->values[a->u.v].name);
  *out = v;
  return OLG_OK;
}

OLG_API olg_status olg_lower_arg_values(olg_lower *cx, size_t i, const olg_value **vals,
                                        size_t *n) {
  if (!cx || !vals || !n) return olg__err(OLG_ERR_INVALID_ARG, "olg_lower_arg_values: NULL argument");
  const olg_arg *a = arg_at(cx, i);
  if (a && a->kind == OLG_ARG_VALUE) {
    olg_value *p = olg__lower_alloc(cx, sizeof *p);
    if (!p) return OLG_ERR_NOMEM;
    OLG_TRY(olg_lower_arg_value(cx, i, p));
    *vals = p;
    *n = 1;
    return OLG_OK;
  }
  if (!a || a->kind != OLG_ARG_VALUES) return arg_type_error(cx, i, "a tensor list");
  size_t k = a->n;
  olg_value *p = olg__lower_alloc(cx, (k ? k : 1) * sizeof *p);
  if (!p) return OLG_ERR_NOMEM;
  for (size_t j = 0; j < k; j++) {
    olg_value sv = a->u.vals[j];
    if (sv == OLG_NO_VALUE) {
      p[j] = OLG_NO_VALUE;
      continue;
    }
    p[j] = map_value(cx, sv);
    if (p[j] == OLG_NO_VALUE)
      return olg__errf(cx, OLG_ERR_STATE, "argument %zu item %zu ('%s') has no lowered value", i,
                       j, cx->src->values[sv].name);
  }
  *vals = p;
  *n = k;
  return OLG_OK;
}

/* ---- known contents ---- */

const olg_tensor *olg__known(const olg_lower *cx, olg_value v) {
  const olg_value_rec *r = v >= 0 && (uint32_t)v < cx->dst->n_values ? &cx->dst->values[v] : NULL;
  const olg_tensor *t = r ? olg__value_known(r) : NULL;
  if (!t) return NULL;
  if (t->dtype != OLG_STRING && !t->data && t->nbytes) return NULL; /* external, not loaded */
  return t;
}

static bool is_int_dtype(olg_dtype t) {
  switch (t) {
  case OLG_INT8: case OLG_INT16: case OLG_INT32: case OLG_INT64: case OLG_UINT8: case OLG_UINT16:
  case OLG_UINT32: case OLG_UINT64: case OLG_BOOL:
    return true;
  default:
    return false;
  }
}

static bool tensor_numel(const olg_tensor *t, size_t *n) {
  uint64_t k;
  if (!olg__shape_numel(t->rank, t->dims, &k) || k > SIZE_MAX / 8) return false;
  *n = (size_t)k;
  return true;
}

/* Element j of an integer tensor as int64. */
static int64_t int_elem(const olg_tensor *t, size_t j) {
  const unsigned char *p = t->data;
  switch (t->dtype) {
  case OLG_INT8: return ((const int8_t *)p)[j];
  case OLG_UINT8: case OLG_BOOL: return p[j];
  case OLG_INT16: { int16_t v; memcpy(&v, p + 2 * j, 2); return v; }
  case OLG_UINT16: { uint16_t v; memcpy(&v, p + 2 * j, 2); return v; }
  case OLG_INT32: { int32_t v; memcpy(&v, p + 4 * j, 4); return v; }
  case OLG_UINT32: { uint32_t v; memcpy(&v, p + 4 * j, 4); return v; }
  case OLG_INT64: case OLG_UINT64: { int64_t v; memcpy(&v, p + 8 * j, 8); return v; }
  default: return 0;
  }
}

static double half_to_double(uint16_t h) {
  int e = (h >> 10) & 31, m = h & 1023;
  double v = e == 0 ? m / 16777216.0 : e == 31 ? (m ? 0.0 / 0.0 : 1.0 / 0.0)
                                               : (1024 + m) * (double)(1u << e) / 33554432.0;
  return (h & 0x8000) ? -v : v;
}

/* Element j of a numeric tensor as double; false for a dtype it does not read. */
static bool num_elem(const olg_tensor *t, size_t j, double *out) {
  const unsigned char *p = t->data;
  if (is_int_dtype(t->dtype)) {
    *out = (double)int_elem(t, j);
    return true;
  }
  switch (t->dtype) {
  case OLG_FLOAT: { float v; memcpy(&v, p + 4 * j, 4); *out = v; return true; }
  case OLG_DOUBLE: { double v; memcpy(&v, p + 8 * j, 8); *out = v; return true; }
  case OLG_FLOAT16: { uint16_t v; memcpy(&v, p + 2 * j, 2); *out = half_to_double(v); return true; }
  case OLG_BFLOAT16: {
    uint16_t v; memcpy(&v, p + 2 * j, 2);
    uint32_t w = (uint32_t)v << 16; float f; memcpy(&f, &w, 4); *out = f; return true;
  }
  default: return false;
  }
}

bool olg__arg_values_known(olg_lower *cx, size_t i) {
  const olg_value *vals;
  size_t n;
  if (olg_lower_arg_kind(cx, i) != OLG_ARGKIND_VALUES ||
      olg_lower_arg_values(cx, i, &vals, &n) != OLG_OK)
    return false;
  for (size_t j = 0; j < n; j++) {
    const int64_t *p;
    size_t m;
    if (vals[j] == OLG_NO_VALUE || !olg__known_ints(cx, vals[j], &p, &m) || m != 1) return false;
  }
  return true;
}

bool olg__known_ints(olg_lower *cx, olg_value v, const int64_t **p, size_t *n) {
  const olg_tensor *t = olg__known(cx, v);
  size_t k;
  if (!t || !is_int_dtype(t->dtype) || !tensor_numel(t, &k)) return false;
  if (t->dtype == OLG_INT64 && ((uintptr_t)t->data % 8) == 0) {
    *p = t->data;
    *n = k;
    return true;
  }
  int64_t *q = olg__lower_alloc(cx, (k ? k : 1) * sizeof *q);
  if (!q) return false;
  for (size_t j = 0; j < k; j++) q[j] = int_elem(t, j);
  *p = q;
  *n = k;
  return true;
}

const float *olg__tensor_f32(olg_lower *cx, const olg_tensor *t, size_t *n) {
  if (!t || t->dtype != OLG_FLOAT || !t->data) return NULL;
  *n = t->nbytes / 4;
  if ((uintptr_t)t->data % _Alignof(float) == 0) return t->data;
  float *q = olg__lower_alloc(cx, t->nbytes);
  if (q) memcpy(q, t->data, t->nbytes);
  return q;
}

bool olg__known_scalar(olg_lower *cx, olg_value v, double *out) {
  const olg_tensor *t = olg__known(cx, v);
  size_t k;
  if (!t || !tensor_numel(t, &k) || k != 1) return false;
  return num_elem(t, 0, out);
}

OLG_API int olg_lower_value_known(const olg_lower *cx, olg_value v) {
  return cx && olg__known(cx, v) != NULL;
}

OLG_API olg_status olg_lower_value_data(const olg_lower *cx, olg_value v, const void **data,
                                        size_t *nbytes) {
  if (!cx || !data || !nbytes) return olg__err(OLG_ERR_INVALID_ARG, "olg_lower_value_data: NULL argument");
  const olg_tensor *t = olg__known(cx, v);
  if (!t) return olg__err(OLG_ERR_UNSUPPORTED, "value %d: contents not known at lowering time", (int)v);
  *data = t->data;
  *nbytes = t->nbytes;
  return OLG_OK;
}

OLG_API olg_status olg_lower_value_ints(olg_lower *cx, olg_value v, const int64_t **vals,
                                        size_t *n) {
  if (!cx || !vals || !n) return olg__err(OLG_ERR_INVALID_ARG, "olg_lower_value_ints: NULL argument");
  const olg_tensor *t = olg__known(cx, v);
  if (!t) return olg__err(OLG_ERR_UNSUPPORTED, "value %d: contents not known at lowering time", (int)v);
  if (!is_int_dtype(t->dtype))
    return olg__err(OLG_ERR_TYPE, "value %d: contents are %s, not integers", (int)v,
                    olg_dtype_name(t->dtype));
  if (!olg__known_ints(cx, v, vals, n)) return OLG_ERR_NOMEM;
  return OLG_OK;
}

/* ---- literals ---- */

OLG_API olg_status olg_lower_arg_int(olg_lower *cx, size_t i, int64_t *out) {
  if (!cx || !out) return olg__err(OLG_ERR_INVALID_ARG, "olg_lower_arg_int: NULL argument");
  const olg_arg *a = arg_at(cx, i);
  if (a && (a->kind == OLG_ARG_INT || a->kind == OLG_ARG_BOOL)) {
    *out = a->u.i;
    return OLG_OK;
  }
  if (a && a->kind == OLG_ARG_VALUE) {
    olg_value v = map_value(cx, a->u.v);
    const int64_t *p;
    size_t n;
    if (v != OLG_NO_VALUE && olg__known_ints(cx, v, &p, &n) && n == 1) {
      *out = p[0];
      return OLG_OK;
    }
    if (v != OLG_NO_VALUE && !olg__known(cx, v))
      return olg__errf(cx, OLG_ERR_UNSUPPORTED,
                       "argument %zu must be an int known at export time; it is computed at run "
                       "time",
                       i);
  }
  return arg_type_error(cx, i, "an int");
}

OLG_API olg_status olg_lower_arg_float(olg_lower *cx, size_t i, double *out) {
  if (!cx || !out) return olg__err(OLG_ERR_INVALID_ARG, "olg_lower_arg_float: NULL argument");
  const olg_arg *a = arg_at(cx, i);
  if (a && a->kind == OLG_ARG_FLOAT) {
    *out = a->u.f;
    return OLG_OK;
  }
  if (a && (a->kind == OLG_ARG_INT || a->kind == OLG_ARG_BOOL)) {
    *out = (double)a->u.i;
    return OLG_OK;
  }
  if (a && a->kind == OLG_ARG_VALUE) {
    olg_value v = map_value(cx, a->u.v);
    if (v != OLG_NO_VALUE && olg__known_scalar(cx, v, out)) return OLG_OK;
    if (v != OLG_NO_VALUE && !olg__known(cx, v))
      return olg__errf(cx, OLG_ERR_UNSUPPORTED,
                       "argument %zu must be a number known at export time; it is computed at "
                       "run time",
                       i);
  }
  return arg_type_error(cx, i, "a float");
}

OLG_API olg_status olg_lower_arg_bool(olg_lower *cx, size_t i, int *out) {
  if (!cx || !out) return olg__err(OLG_ERR_INVALID_ARG, "olg_lower_arg_bool: NULL argument");
  const olg_arg *a = arg_at(cx, i);
  if (a && (a->kind == OLG_ARG_BOOL || a->kind == OLG_ARG_INT)) {
    *out = a->u.i != 0;
    return OLG_OK;
  }
  int64_t v;
  if (a && a->kind == OLG_ARG_VALUE && olg_lower_arg_int(cx, i, &v) == OLG_OK) {
    *out = v != 0;
    return OLG_OK;
  }
  return arg_type_error(cx, i, "a bool");
}

OLG_API olg_status olg_lower_arg_string(olg_lower *cx, size_t i, const char **out) {
  if (!cx || !out) return olg__err(OLG_ERR_INVALID_ARG, "olg_lower_arg_string: NULL argument");
  const olg_arg *a = arg_at(cx, i);
  if (!a || a->kind != OLG_ARG_STRING) return arg_type_error(cx, i, "a string");
  if (!(*out = c_string(cx, olg__arg_bytes(a)))) return OLG_ERR_NOMEM;
  return OLG_OK;
}

OLG_API olg_status olg_lower_arg_ints(olg_lower *cx, size_t i, const int64_t **vals, size_t *n) {
  if (!cx || !vals || !n) return olg__err(OLG_ERR_INVALID_ARG, "olg_lower_arg_ints: NULL argument");
  const olg_arg *a = arg_at(cx, i);
  if (a && a->kind == OLG_ARG_INTS) {
    *vals = a->u.ints;
    *n = a->n;
    return OLG_OK;
  }
  if (a && (a->kind == OLG_ARG_INT || a->kind == OLG_ARG_BOOL)) {
    *vals = &a->u.i;
    *n = 1;
    return OLG_OK;
  }
  if (a && a->kind == OLG_ARG_VALUES) {
    size_t k = a->n;
    int64_t *p = olg__lower_alloc(cx, (k ? k : 1) * sizeof *p);
    if (!p) return OLG_ERR_NOMEM;
    for (size_t j = 0; j < k; j++) {
      olg_value v = a->u.vals[j] == OLG_NO_VALUE ? OLG_NO_VALUE : map_value(cx, a->u.vals[j]);
      const int64_t *q;
      size_t m;
      if (v == OLG_NO_VALUE || !olg__known_ints(cx, v, &q, &m) || m != 1)
        return olg__errf(cx, OLG_ERR_UNSUPPORTED,
                         "argument %zu item %zu must be an int known at export time", i, j);
      p[j] = q[0];
    }
    *vals = p;
    *n = k;
    return OLG_OK;
  }
  if (a && a->kind == OLG_ARG_VALUE) {
    olg_value v = map_value(cx, a->u.v);
    if (v != OLG_NO_VALUE && olg__rank(cx, v) <= 1 && olg__known_ints(cx, v, vals, n))
      return OLG_OK;
    if (v != OLG_NO_VALUE && !olg__known(cx, v))
      return olg__errf(cx, OLG_ERR_UNSUPPORTED,
                       "argument %zu must be an int list known at export time", i);
  }
  return arg_type_error(cx, i, "an int list");
}

OLG_API olg_status olg_lower_arg_floats(olg_lower *cx, size_t i, const double **vals, size_t *n) {
  if (!cx || !vals || !n) return olg__err(OLG_ERR_INVALID_ARG, "olg_lower_arg_floats: NULL argument");
  const olg_arg *a = arg_at(cx, i);
  if (a && a->kind == OLG_ARG_FLOATS) {
    *vals = a->u.floats;
    *n = a->n;
    return OLG_OK;
  }
  if (a && a->kind == OLG_ARG_FLOAT) {
    *vals = &a->u.f;
    *n = 1;
    return OLG_OK;
  }
  if (a && (a->kind == OLG_ARG_INTS || a->kind == OLG_ARG_INT)) {
    const int64_t *p;
    size_t k;
    OLG_TRY(olg_lower_arg_ints(cx, i, &p, &k));
    double *q = olg__lower_alloc(cx, (k ? k : 1) * sizeof *q);
    if (!q) return OLG_ERR_NOMEM;
    for (size_t j = 0; j < k; j++) q[j] = (double)p[j];
    *vals = q;
    *n = k;
    return OLG_OK;
  }
  return arg_type_error(cx, i, "a float list");
}

/* ---- source attributes ---- */

static const olg_attr *src_attr(const olg_lower *cx, const char *name) {
  return cx && cx->cur_node && name ? olg__node_attr(cx->cur_node, name) : NULL;
}

OLG_API int olg_lower_src_attr_has(const olg_lower *cx, const char *name) {
  return src_attr(cx, name) != NULL;
}

static olg_status src_attr_typed(olg_lower *cx, const char *name, int type, const olg_attr **out) {
  if (!cx || !name) return olg__err(OLG_ERR_INVALID_ARG, "olg_lower_src_attr: NULL argument");
  const olg_attr *a = src_attr(cx, name);
  if (!a) return olg__err(OLG_ERR_NOT_FOUND, "node '%s' has no attribute '%s'",
                          cx->cur_node ? cx->cur_node->name : "", name);
  if (a->type != type)
    return olg__err(OLG_ERR_TYPE, "node '%s': attribute '%s' has type %d, not %d",
                    cx->cur_node->name, name, a->type, type);
  *out = a;
  return OLG_OK;
}

OLG_API olg_status olg_lower_src_attr_int(olg_lower *cx, const char *name, int64_t *out) {
  const olg_attr *a;
  OLG_TRY(src_attr_typed(cx, name, OLG_ATTR_INT, &a));
  if (out) *out = a->i;
  return OLG_OK;
}
OLG_API olg_status olg_lower_src_attr_float(olg_lower *cx, const char *name, double *out) {
  const olg_attr *a;
  OLG_TRY(src_attr_typed(cx, name, OLG_ATTR_FLOAT, &a));
  if (out) *out = a->f;
  return OLG_OK;
}
OLG_API olg_status olg_lower_src_attr_string(olg_lower *cx, const char *name, const char **out) {
  const olg_attr *a;
  OLG_TRY(src_attr_typed(cx, name, OLG_ATTR_STRING, &a));
  const char *p = c_string(cx, a->s);
  if (!p) return OLG_ERR_NOMEM;
  if (out) *out = p;
  return OLG_OK;
}
OLG_API olg_status olg_lower_src_attr_ints(olg_lower *cx, const char *name, const int64_t **vals,
                                           size_t *n) {
  const olg_attr *a;
  OLG_TRY(src_attr_typed(cx, name, OLG_ATTR_INTS, &a));
  if (vals) *vals = a->ints;
  if (n) *n = a->n;
  return OLG_OK;
}
OLG_API olg_status olg_lower_src_attr_floats(olg_lower *cx, const char *name,
                                             const float **vals, size_t *n) {
  const olg_attr *a;
  OLG_TRY(src_attr_typed(cx, name, OLG_ATTR_FLOATS, &a));
  if (vals) *vals = a->floats;
  if (n) *n = a->n;
  return OLG_OK;
}

int64_t olg__src_attr_int(const olg_lower *cx, const char *name, int64_t dflt) {
  const olg_attr *a = src_attr(cx, name);
  return a && a->type == OLG_ATTR_INT ? a->i : dflt;
}
double olg__src_attr_float(const olg_lower *cx, const char *name, double dflt) {
  const olg_attr *a = src_attr(cx, name);
  return a && a->type == OLG_ATTR_FLOAT ? a->f : dflt;
}
const char *olg__src_attr_string(olg_lower *cx, const char *name, const char *dflt) {
  const olg_attr *a = src_attr(cx, name);
  if (!a || a->type != OLG_ATTR_STRING) return dflt;
  const char *p = c_string(cx, a->s);
  return p ? p : dflt; /* out of memory: the emission that follows reports it */
}
bool olg__src_attr_ints(const olg_lower *cx, const char *name, const int64_t **p, size_t *n) {
  const olg_attr *a = src_attr(cx, name);
  if (!a || a->type != OLG_ATTR_INTS) return false;
  *p = a->ints;
  *n = a->n;
  return true;
}

OLG_API size_t olg_lower_output_count(const olg_lower *cx) {
  return cx && cx->cur_node ? cx->cur_node->n_outputs : 0;
}

OLG_API int olg_lower_output_used(const olg_lower *cx, size_t i) {
  if (!cx || !cx->cur_node || i >= cx->cur_node->n_outputs) return 0;
  olg_value sv = cx->cur_node->outputs[i];
  return sv != OLG_NO_VALUE && cx->uses[sv] > 0;
}

/* ---- target values ---- */


int64_t olg__dim(const olg_lower *cx, olg_value v, int32_t i) {
  int32_t rank = olg__rank(cx, v);
  if (rank < 0) return OLG_DIM_UNKNOWN;
  if (i < 0) i += rank;
  if (i < 0 || i >= rank) return OLG_DIM_UNKNOWN;
  return cx->dst->values[v].type.dims[i].value;
}

bool olg__static_shape(const olg_lower *cx, olg_value v, int64_t *dims, int32_t *rank) {
  int32_t r = olg__rank(cx, v);
  if (r < 0 || r > OLG_MAX_RANK) return false;
  for (int32_t i = 0; i < r; i++) {
    dims[i] = cx->dst->values[v].type.dims[i].value;
    if (dims[i] < 0) return false;
  }
  *rank = r;
  return true;
}

OLG_API olg_dtype olg_lower_value_dtype(const olg_lower *cx, olg_value v) { return olg__dtype(cx, v); }
OLG_API int32_t olg_lower_value_rank(const olg_lower *cx, olg_value v) { return olg__rank(cx, v); }
OLG_API int64_t olg_lower_value_dim(const olg_lower *cx, olg_value v, int32_t i,
                                    const char **param) {
  if (param) *param = NULL;
  int32_t rank = olg__rank(cx, v);
  if (i < 0 || i >= rank) return OLG_DIM_UNKNOWN;
  const olg_dim *d = &cx->dst->values[v].type.dims[i];
  if (param && d->value < 0) *param = d->param;
  return d->value;
}
