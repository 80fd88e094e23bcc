/* onnxlegal — olg_legalize: the driver, and the lowering context's accessors and emission.
 *
 * The driver (DESIGN.md §1): source inputs and initializers are carried over (initializer data
 * borrowed, not copied); source nodes are lowered in topological order through the registry,
 * each emitted node checked against the target opset's schema and inferred as it is emitted;
 * a node whose symbolic fails is reported and lowering goes on, so one call reports every
 * unsupported node; then graph outputs are bound under their source names, the target profile's
 * rewrites run, and the cleanup (constant folding, identity removal, CSE of Constants, dead
 * nodes) leaves the nodes in topological order. Every pass is linear in the graph. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "infer.h"
#include "lower.h"
#include "schema.h"
#include "../symbolics/emit.h"
#include "../symbolics/symbolics.h"

/* ------------------------------------------------------------------------------------------ */
/* Options */

OLG_API void olg_legalize_options_init(olg_legalize_options *o) {
  if (o) *o = (olg_legalize_options)OLG_LEGALIZE_OPTIONS_INIT;
}

OLG_API int64_t olg_ir_version_for_opset(int64_t opset) {
  static const int8_t ir[28] = {-1, 3, 3, 3, 3, 3, 3, 3, 3, 4,  5,  6,  7,  7,
                                7,  8, 8, 8, 8, 9, 9, 10, 10, 11, 12, 13, 13, 13};
  return opset >= 1 && opset <= 27 ? ir[opset] : -1;
}

/* ------------------------------------------------------------------------------------------ */
/* Diagnostics */

static const char *src_domain_label(const olg_lower *cx) {
  return cx->cur_node ? (*cx->cur_node->domain ? cx->cur_node->domain : "onnx") : "";
}

olg_status olg__lower_diag(olg_lower *cx, olg_severity sev, const char *code, olg_status status,
                           const char *message) {
  const olg_node *nd = cx->cur_node;
  char buf[1024];
  if (nd)
    snprintf(buf, sizeof buf, "%s::%s (node '%s') at opset %d: %s", src_domain_label(cx), nd->op,
             nd->name, cx->opset, message);
  else
    snprintf(buf, sizeof buf, "at opset %d: %s", cx->opset, message);
  if (sev == OLG_ERROR) {
    cx->cur_reported = true;
    cx->n_errors++; /* counts every error of the call */
    olg__err(status, "%s", buf);
  }
  if (cx->diags)
    olg_diags_add(cx->diags, sev, code, nd ? nd->name : "", nd ? nd->domain : "",
                  nd ? nd->op : "", cx->opset, buf); /* a failure is counted by diags as lost */
  return status;
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
  return olg__lower_diag(cx, OLG_ERROR, "OLG-LOWER-UNSUPPORTED", OLG_ERR_UNSUPPORTED, buf);
}

OLG_API olg_status olg_lower_decompose(olg_lower *cx, const char *what, int native_opset) {
  if (!cx) return olg__err(OLG_ERR_INVALID_ARG, "olg_lower_decompose: cx is NULL");
  if (cx->allow_decompositions) return OLG_OK;
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
  return olg__lower_diag(cx, OLG_ERROR, "OLG-LOWER-DECOMPOSITION", OLG_ERR_UNSUPPORTED, buf);
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
  size_t k = a->u.vals.n;
  olg_value *p = olg__lower_alloc(cx, (k ? k : 1) * sizeof *p);
  if (!p) return OLG_ERR_NOMEM;
  for (size_t j = 0; j < k; j++) {
    olg_value sv = a->u.vals.p[j];
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
  if (!r || !r->known) return NULL;
  const olg_tensor *t = r->known;
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
  if (!(*out = c_string(cx, a->u.s))) return OLG_ERR_NOMEM;
  return OLG_OK;
}

OLG_API olg_status olg_lower_arg_ints(olg_lower *cx, size_t i, const int64_t **vals, size_t *n) {
  if (!cx || !vals || !n) return olg__err(OLG_ERR_INVALID_ARG, "olg_lower_arg_ints: NULL argument");
  const olg_arg *a = arg_at(cx, i);
  if (a && a->kind == OLG_ARG_INTS) {
    *vals = a->u.ints.p;
    *n = a->u.ints.n;
    return OLG_OK;
  }
  if (a && (a->kind == OLG_ARG_INT || a->kind == OLG_ARG_BOOL)) {
    *vals = &a->u.i;
    *n = 1;
    return OLG_OK;
  }
  if (a && a->kind == OLG_ARG_VALUES) {
    size_t k = a->u.vals.n;
    int64_t *p = olg__lower_alloc(cx, (k ? k : 1) * sizeof *p);
    if (!p) return OLG_ERR_NOMEM;
    for (size_t j = 0; j < k; j++) {
      olg_value v = a->u.vals.p[j] == OLG_NO_VALUE ? OLG_NO_VALUE : map_value(cx, a->u.vals.p[j]);
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
    *vals = a->u.floats.p;
    *n = a->u.floats.n;
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

static const olg_value_rec *dst_rec(const olg_lower *cx, olg_value v) {
  return cx && v >= 0 && (uint32_t)v < cx->dst->n_values ? &cx->dst->values[v] : NULL;
}

olg_dtype olg__dtype(const olg_lower *cx, olg_value v) {
  const olg_value_rec *r = dst_rec(cx, v);
  return r && r->type.kind == OLG_TYPE_TENSOR && r->type.has_elem ? r->type.elem : OLG_UNDEFINED;
}

int32_t olg__rank(const olg_lower *cx, olg_value v) {
  const olg_value_rec *r = dst_rec(cx, v);
  return r && r->type.kind == OLG_TYPE_TENSOR && r->type.has_shape ? r->type.rank
                                                                   : OLG_RANK_UNKNOWN;
}

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

/* ------------------------------------------------------------------------------------------ */
/* Emission */

OLG_API olg_status olg_lower_emit_begin(olg_lower *cx, const char *domain, const char *op,
                                        olg_node_id *out) {
  if (!cx || !op || !*op || !out)
    return olg__err(OLG_ERR_INVALID_ARG, "olg_lower_emit_begin: NULL argument");
  if (domain && strcmp(domain, "ai.onnx") == 0) domain = "";
  char buf[512];
  const char *base = cx->name_base && *cx->name_base ? cx->name_base : NULL;
  /* the k-th node of an op for this source node: "<base>/<Op>", then "<base>/<Op>_<k>" */
  uint32_t k = 0, j = 0;
  while (j < cx->n_op_uses && strcmp(cx->op_uses[j].op, op) != 0) j++;
  if (j < cx->n_op_uses) k = cx->op_uses[j].n++;
  else if (j < 16 && strlen(op) < sizeof cx->op_uses[0].op) {
    strcpy(cx->op_uses[j].op, op);
    cx->op_uses[j].n = 1;
    cx->n_op_uses++;
  } else {
    k = cx->n_emitted;
  }
  if (base && k == 0)
    snprintf(buf, sizeof buf, "%s/%s", base, op);
  else if (base)
    snprintf(buf, sizeof buf, "%s/%s_%u", base, op, k);
  else
    snprintf(buf, sizeof buf, "%s_%u", op, cx->dst->n_nodes);
  cx->n_emitted++;
  /* two source nodes may share a name (a module called twice): keep emitted names unique */
  const char *name = olg__graph_fresh_node_name(cx->dst, buf);
  if (!name) return OLG_ERR_NOMEM;
  return olg_node_begin(cx->dst, domain ? domain : "", op, name, out);
}

OLG_API olg_status olg_lower_emit_input(olg_lower *cx, olg_node_id n, olg_value v) {
  if (!cx) return olg__err(OLG_ERR_INVALID_ARG, "olg_lower_emit_input: cx is NULL");
  return v == OLG_NO_VALUE ? olg_node_arg_none(cx->dst, n) : olg_node_arg_value(cx->dst, n, v);
}
OLG_API olg_status olg_lower_emit_attr_int(olg_lower *cx, olg_node_id n, const char *name,
                                           int64_t v) {
  return cx ? olg_node_attr_int(cx->dst, n, name, v) : OLG_ERR_INVALID_ARG;
}
OLG_API olg_status olg_lower_emit_attr_float(olg_lower *cx, olg_node_id n, const char *name,
                                             double v) {
  return cx ? olg_node_attr_float(cx->dst, n, name, (float)v) : OLG_ERR_INVALID_ARG;
}
OLG_API olg_status olg_lower_emit_attr_string(olg_lower *cx, olg_node_id n, const char *name,
                                              const char *s) {
  return cx ? olg_node_attr_string(cx->dst, n, name, s) : OLG_ERR_INVALID_ARG;
}
OLG_API olg_status olg_lower_emit_attr_ints(olg_lower *cx, olg_node_id n, const char *name,
                                            const int64_t *v, size_t len) {
  return cx ? olg_node_attr_ints(cx->dst, n, name, v, len) : OLG_ERR_INVALID_ARG;
}
OLG_API olg_status olg_lower_emit_attr_floats(olg_lower *cx, olg_node_id n, const char *name,
                                              const float *v, size_t len) {
  return cx ? olg_node_attr_floats(cx->dst, n, name, v, len) : OLG_ERR_INVALID_ARG;
}
OLG_API olg_status olg_lower_emit_attr_strings(olg_lower *cx, olg_node_id n, const char *name,
                                               const char *const *v, size_t len) {
  return cx ? olg_node_attr_strings(cx->dst, n, name, v, len) : OLG_ERR_INVALID_ARG;
}
OLG_API olg_status olg_lower_emit_attr_tensor(olg_lower *cx, olg_node_id n, const char *name,
                                              olg_dtype dtype, int32_t rank, const int64_t *dims,
                                              const void *data, size_t nbytes) {
  return cx ? olg_node_attr_tensor(cx->dst, n, name, dtype, rank, dims, data, nbytes)
            : OLG_ERR_INVALID_ARG;
}
OLG_API olg_status olg_lower_emit_attr_graph(olg_lower *cx, olg_node_id n, const char *name,
                                             olg_graph *sub) {
  return cx ? olg_node_attr_graph(cx->dst, n, name, sub) : OLG_ERR_INVALID_ARG;
}
OLG_API olg_status olg_lower_emit_subgraph(olg_lower *cx, olg_graph **out) {
  return cx ? olg_model_new_subgraph(cx->dst_model, out) : OLG_ERR_INVALID_ARG;
}

/* Checks an emitted ONNX node against the schema of the target opset, which it gives back for
 * the output check after inference. */
static olg_status check_schema(olg_lower *cx, const olg_node *nd, const olg_schema **found) {
  const olg_schema *s = olg_schema_find("", nd->op, cx->opset);
  *found = s;
  if (!s || s->deprecated) {
    size_t nv;
    const olg_schema *vs = olg_schema_versions("", nd->op, &nv);
    int first = -1;
    for (size_t i = 0; vs && i < nv; i++)
      if (!vs[i].deprecated) { first = vs[i].since_version; break; }
    return olg__errf(cx, OLG_ERR_INVALID_MODEL,
                     "emitted %s, which does not exist at opset %d (first version: %d; a bug in "
                     "the symbolic)",
                     nd->op, cx->opset, first);
  }
  int n_in = (int)nd->n_args;
  while (n_in > 0 && nd->args[n_in - 1].kind == OLG_ARG_NONE) n_in--; /* trailing omitted */
  if (n_in < s->min_inputs || (s->max_inputs != OLG_SCHEMA_UNBOUNDED && n_in > s->max_inputs))
    return olg__errf(cx, OLG_ERR_INVALID_MODEL,
                     "emitted %s-%d with %d inputs; it takes %d to %d (a bug in the symbolic)",
                     nd->op, s->since_version, n_in, s->min_inputs, s->max_inputs);
  int n_out = (int)nd->n_outputs;
  if (n_out < s->min_outputs || (s->max_outputs != OLG_SCHEMA_UNBOUNDED && n_out > s->max_outputs))
    return olg__errf(cx, OLG_ERR_INVALID_MODEL,
                     "emitted %s-%d with %d outputs; it has %d to %d (a bug in the symbolic)",
                     nd->op, s->since_version, n_out, s->min_outputs, s->max_outputs);
  for (uint32_t i = 0; i < nd->n_attrs; i++) {
    const olg_attr_schema *as = olg_schema_attr(s, nd->attrs[i].name);
    if (!as)
      return olg__errf(cx, OLG_ERR_INVALID_MODEL,
                       "emitted %s-%d with attribute '%s', which it does not have at opset %d",
                       nd->op, s->since_version, nd->attrs[i].name, cx->opset);
    if (as->type != nd->attrs[i].type)
      return olg__errf(cx, OLG_ERR_INVALID_MODEL,
                       "emitted %s-%d with attribute '%s' of type %d; the schema wants %d",
                       nd->op, s->since_version, nd->attrs[i].name, nd->attrs[i].type, as->type);
  }
  for (int i = 0; i < s->n_attrs; i++)
    if (s->attrs[i].required && !olg__node_attr(nd, s->attrs[i].name))
      return olg__errf(cx, OLG_ERR_INVALID_MODEL,
                       "emitted %s-%d without its required attribute '%s'", nd->op,
                       s->since_version, s->attrs[i].name);
  /* input dtypes: allowed by the formal, and equal across inputs bound to one constraint */
  struct seen_t { const char *c; olg_dtype t; int at; } seen[8];
  int n_seen = 0;
  for (int i = 0; i < (int)nd->n_args; i++) {
    const olg_arg *a = &nd->args[i];
    if (a->kind == OLG_ARG_NONE) {
      const olg_formal *f = olg_schema_input_formal(s, i);
      if (f && f->option == OLG_FORMAL_SINGLE)
        return olg__errf(cx, OLG_ERR_INVALID_MODEL, "emitted %s-%d with required input %d ('%s') omitted",
                         nd->op, s->since_version, i, f->name);
      continue;
    }
    if (a->kind != OLG_ARG_VALUE) continue;
    olg_dtype t = olg__dtype(cx, a->u.v);
    const olg_formal *f = olg_schema_input_formal(s, i);
    if (!f || t == OLG_UNDEFINED || !f->tensor_dtypes) continue;
    if (!olg_schema_formal_allows_dtype(f, t))
      return olg__errf(cx, OLG_ERR_INVALID_MODEL,
                       "emitted %s-%d with input %d ('%s') of type %s, which it does not accept "
                       "at opset %d",
                       nd->op, s->since_version, i, f->name, olg_dtype_name(t), cx->opset);
    if (!f->homogeneous || olg_schema_tensor_type_dtype(f->type_str) != OLG_UNDEFINED) continue;
    int k = 0;
    while (k < n_seen && strcmp(seen[k].c, f->type_str) != 0) k++;
    if (k < n_seen && seen[k].t != t)
      return olg__errf(cx, OLG_ERR_INVALID_MODEL,
                       "emitted %s-%d with inputs %d and %d of types %s and %s, bound to the "
                       "same type constraint %s",
                       nd->op, s->since_version, seen[k].at, i, olg_dtype_name(seen[k].t),
                       olg_dtype_name(t), f->type_str);
    if (k == n_seen && n_seen < 8) seen[n_seen++] = (struct seen_t){f->type_str, t, i};
  }
  return OLG_OK;
}

static olg_status note_custom_domain(olg_lower *cx, const char *domain) {
  for (uint32_t i = 0; i < cx->n_custom; i++)
    if (strcmp(cx->custom_domains[i], domain) == 0) return OLG_OK;
  olg_status s = olg__grow(&cx->dst_model->alloc, (void **)&cx->custom_domains, &cx->cap_custom,
                           (size_t)cx->n_custom + 1, sizeof *cx->custom_domains);
  if (s) return s;
  cx->custom_domains[cx->n_custom++] = domain;
  return OLG_OK;
}

/* After inference: every output's dtype must be one the schema allows at the target opset. */
static olg_status check_outputs(olg_lower *cx, const olg_node *nd, const olg_schema *s) {
  for (uint32_t i = 0; i < nd->n_outputs; i++) {
    if (nd->outputs[i] == OLG_NO_VALUE) continue;
    olg_dtype t = olg__dtype(cx, nd->outputs[i]);
    const olg_formal *f = olg_schema_output_formal(s, (int)i);
    if (!f || t == OLG_UNDEFINED || !f->tensor_dtypes) continue;
    if (!olg_schema_formal_allows_dtype(f, t))
      return olg__errf(cx, OLG_ERR_INVALID_MODEL,
                       "emitted %s-%d with output %u ('%s') of type %s, which it does not allow "
                       "at opset %d",
                       nd->op, s->since_version, i, f->name, olg_dtype_name(t), cx->opset);
  }
  return OLG_OK;
}

OLG_API olg_status olg_lower_emit_end(olg_lower *cx, olg_node_id n, size_t n_out,
                                      olg_value *outs) {
  if (!cx) return olg__err(OLG_ERR_INVALID_ARG, "olg_lower_emit_end: cx is NULL");
  olg_status s = olg_node_end(cx->dst, n, n_out, NULL, outs);
  if (s) return s;
  const olg_node *nd = &cx->dst->nodes[n];
  if (!*nd->domain) {
    const olg_schema *schema;
    OLG_TRY(check_schema(cx, nd, &schema));
    s = olg__infer_node(cx->dst, n, cx->opset, NULL); /* reported below, once, as the lowering's */
    if (s == OLG_ERR_NOMEM) return s;
    if (s)
      return olg__errf(cx, OLG_ERR_INVALID_MODEL, "emitted %s: %s", nd->op, olg_last_error());
    return check_outputs(cx, &cx->dst->nodes[n], schema);
  }
  OLG_TRY(note_custom_domain(cx, nd->domain));
  void *ud;
  olg_shape_fn fn = olg__registry_shape_fn(cx->reg, nd->domain, nd->op, &ud);
  if (fn && fn(cx->dst, n, ud) != OLG_OK)
    return olg__errf(cx, OLG_ERR_CALLBACK, "the shape function of %s::%s failed: %s", nd->domain,
                     nd->op, olg_last_error());
  return OLG_OK;
}

olg_status olg__lower_initializer(olg_lower *cx, olg_dtype dtype, int32_t rank,
                                  const int64_t *dims, const void *data, size_t nbytes,
                                  olg_data_mode mode, olg_value *out) {
  char buf[512];
  snprintf(buf, sizeof buf, "%s/Constant", cx->name_base && *cx->name_base ? cx->name_base : "const");
  const char *name = olg__graph_unique_name(cx->dst, buf);
  if (!name) return OLG_ERR_NOMEM;
  return olg_graph_add_initializer(cx->dst, name, dtype, rank, dims, data, nbytes, mode, NULL,
                                   NULL, out);
}

OLG_API olg_status olg_lower_bind_output(olg_lower *cx, size_t i, olg_value v) {
  if (!cx || !cx->cur_node) return olg__err(OLG_ERR_INVALID_ARG, "olg_lower_bind_output: no node is being lowered");
  if (i >= cx->cur_node->n_outputs)
    return olg__errf(cx, OLG_ERR_RANGE, "bind_output: output %zu out of range (the node has %u)",
                     i, cx->cur_node->n_outputs);
  if (v < 0 || (uint32_t)v >= cx->dst->n_values)
    return olg__errf(cx, OLG_ERR_INVALID_ARG, "bind_output: output %zu bound to no value", i);
  olg_value sv = cx->cur_node->outputs[i];
  if (sv != OLG_NO_VALUE) cx->map[sv] = v;
  return OLG_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* The driver */

static olg_status copy_type(olg_model *m, olg_type *to, const olg_type *from) {
  *to = *from;
  to->extra = NULL;
  if (from->kind == OLG_TYPE_TENSOR && from->has_shape && from->rank > 0) {
    to->dims = olg__arena_dup(m, from->dims, (size_t)from->rank * sizeof *from->dims);
    if (!to->dims) return OLG_ERR_NOMEM;
    for (int32_t i = 0; i < from->rank; i++) {
      if (from->dims[i].param && !(to->dims[i].param = olg__strdup(m, from->dims[i].param)))
        return OLG_ERR_NOMEM;
      if (from->dims[i].denotation &&
          !(to->dims[i].denotation = olg__strdup(m, from->dims[i].denotation)))
        return OLG_ERR_NOMEM;
    }
  }
  return OLG_OK; /* nested types (sequence, map, optional) are borrowed from the source */
}

/* The reason a node cannot be dispatched, as a diagnostic. */
static void report_no_symbolic(olg_lower *cx, const olg_node *nd, olg_status why) {
  const char *dom = *nd->domain ? nd->domain : "onnx";
  int lo = olg_registry_min_opset(cx->reg, nd->domain, nd->op, 0);
  char buf[512];
  if (lo > cx->opset)
    snprintf(buf, sizeof buf, "%s::%s is not supported at opset %d; the lowest opset that works is %d",
             dom, nd->op, cx->opset, lo);
  else if (lo > 0 && why == OLG_ERR_UNSUPPORTED)
    snprintf(buf, sizeof buf, "%s::%s cannot be expressed at opset %d (it works from opset %d up to a later change)",
             dom, nd->op, cx->opset, lo);
  else
    snprintf(buf, sizeof buf, "no symbolic is registered for %s::%s at any opset from %d to %d", dom,
             nd->op, OLG_LOWER_OPSET_MIN, OLG_LOWER_OPSET_MAX);
  olg__lower_diag(cx, OLG_ERROR, "OLG-LOWER-UNSUPPORTED-OP", OLG_ERR_UNSUPPORTED, buf);
}

/* Copies the declared type of the source value onto the target value when inference left it
 * unknown; warns when the two contradict (the front end's declaration is a cross-check). */
static olg_status cross_check(olg_lower *cx, olg_value sv, olg_value tv) {
  const olg_type *st = &cx->src->values[sv].type;
  olg_value_rec *tr = &cx->dst->values[tv];
  if (st->kind != OLG_TYPE_TENSOR) return OLG_OK;
  if (tr->type.kind == OLG_TYPE_NONE) {
    if (tr->flags & (OLG_VF_INPUT | OLG_VF_INITIALIZER)) return OLG_OK;
    return copy_type(cx->dst_model, &tr->type, st);
  }
  if (tr->type.kind != OLG_TYPE_TENSOR) return OLG_OK;
  if ((!tr->type.has_shape || tr->type.rank < 0) && st->has_shape && st->rank >= 0 &&
      !(tr->flags & (OLG_VF_INPUT | OLG_VF_INITIALIZER))) {
    /* inference could not tell (a data-dependent rank): the front end's declaration stands */
    olg_dtype elem = tr->type.has_elem ? tr->type.elem : st->elem;
    OLG_TRY(copy_type(cx->dst_model, &tr->type, st));
    tr->type.elem = elem;
    tr->type.has_elem = elem != OLG_UNDEFINED;
    return OLG_OK;
  }
  char msg[256];
  if (st->has_elem && st->elem && tr->type.has_elem && tr->type.elem && st->elem != tr->type.elem) {
    snprintf(msg, sizeof msg, "output '%s' is declared %s but lowers to %s",
             cx->src->values[sv].name, olg_dtype_name(st->elem), olg_dtype_name(tr->type.elem));
    return olg_lower_warning(cx, msg);
  }
  if (st->has_shape && tr->type.has_shape && st->rank >= 0 && tr->type.rank >= 0) {
    bool bad = st->rank != tr->type.rank;
    for (int32_t i = 0; !bad && i < st->rank; i++)
      bad = st->dims[i].value >= 0 && tr->type.dims[i].value >= 0 &&
            st->dims[i].value != tr->type.dims[i].value;
    if (bad) {
      snprintf(msg, sizeof msg, "output '%s': the declared shape differs from the lowered one",
               cx->src->values[sv].name);
      return olg_lower_warning(cx, msg);
    }
  }
  return OLG_OK;
}

/* lower_node's result for a node left alone because an input failed to lower upstream (its
 * dispatch was still checked and reported) */
#define LOWER_SKIPPED 1

static olg_status lower_node(olg_lower *cx, olg_node_id id) {
  const olg_node *nd = &cx->src->nodes[id];
  cx->cur = id;
  cx->cur_node = nd;
  cx->cur_src_opset = olg_model_opset(cx->src_model, nd->domain);
  cx->name_base = *nd->name ? nd->name : NULL;
  if (!cx->name_base && cx->scope) { /* unnamed, in a subgraph: "<scope>/<index>", unique */
    char buf[512];
    snprintf(buf, sizeof buf, "%s/%d", cx->scope, (int)id);
    if (!(cx->name_base = olg__strdup(cx->dst_model, buf))) return OLG_ERR_NOMEM;
  }
  cx->n_emitted = 0;
  cx->n_op_uses = 0;
  cx->cur_reported = false;

  olg_symbolic_fn fn;
  void *ud;
  int lowering;
  olg_status s = olg__registry_dispatch(cx->reg, nd->domain, nd->op, cx->opset, &fn, &ud, &lowering);
  if (s) {
    report_no_symbolic(cx, nd, s);
    return OLG_ERR_UNSUPPORTED;
  }
  if (lowering == OLG_LOWERING_DECOMPOSED && !cx->allow_decompositions) {
    char what[256];
    snprintf(what, sizeof what, "%s::%s", *nd->domain ? nd->domain : "onnx", nd->op);
    return olg_lower_decompose(cx, what, olg_registry_min_opset(cx->reg, nd->domain, nd->op, 1));
  }
  /* an input left unlowered by an earlier failure: the dispatch was checked, go no further */
  for (uint32_t i = 0; i < nd->n_args; i++) {
    const olg_arg *a = &nd->args[i];
    if (a->kind == OLG_ARG_VALUE && cx->map[a->u.v] == OLG_NO_VALUE) return LOWER_SKIPPED;
    if (a->kind == OLG_ARG_VALUES)
      for (size_t j = 0; j < a->u.vals.n; j++)
        if (a->u.vals.p[j] != OLG_NO_VALUE && cx->map[a->u.vals.p[j]] == OLG_NO_VALUE)
          return LOWER_SKIPPED;
  }
  s = fn(cx, id, ud);
  if (s == OLG_ERR_NOMEM) return s;
  if (s) {
    if (!cx->cur_reported) {
      char buf[512];
      snprintf(buf, sizeof buf, "the symbolic failed: %s (%s)", olg_last_error(), olg_status_name(s));
      olg__lower_diag(cx, OLG_ERROR, "OLG-LOWER-FAILED", s, buf);
    }
    return s;
  }
  for (uint32_t i = 0; i < nd->n_outputs; i++) {
    olg_value sv = nd->outputs[i];
    if (sv == OLG_NO_VALUE || !cx->uses[sv]) continue;
    if (cx->map[sv] == OLG_NO_VALUE) {
      char buf[256];
      snprintf(buf, sizeof buf, "the symbolic did not bind output %u ('%s'), which is used", i,
               cx->src->values[sv].name);
      return olg__lower_diag(cx, OLG_ERROR, "OLG-LOWER-UNBOUND", OLG_ERR_STATE, buf);
    }
    s = cross_check(cx, sv, cx->map[sv]);
    if (s) return s;
  }
  return OLG_OK;
}

static void count_use(olg_lower *cx, olg_value v) {
  if (v >= 0 && (uint32_t)v < cx->src->n_values) cx->uses[v]++;
}

/* Carries the source graph's inputs and initializers over. */
static olg_status carry_inputs(olg_lower *cx) {
  const olg_graph *sg = cx->src;
  for (uint32_t i = 0; i < sg->inputs.n; i++) {
    olg_value sv = sg->inputs.p[i];
    const olg_value_rec *r = &sg->values[sv];
    if (r->flags & OLG_VF_INITIALIZER) continue; /* an IR < 4 style input with a default */
    olg_value tv;
    OLG_TRY(olg__graph_add_value(cx->dst, r->name, false, &tv));
    OLG_TRY(copy_type(cx->dst_model, &cx->dst->values[tv].type, &r->type));
    cx->dst->values[tv].flags |= OLG_VF_INPUT;
    OLG_TRY(olg__idvec_push(cx->dst_model, &cx->dst->inputs, tv));
    cx->map[sv] = tv;
  }
  for (uint32_t i = 0; i < sg->n_inits; i++) {
    const olg_tensor *st = sg->inits[i].t;
    olg_tensor *t = olg__arena_dup(cx->dst_model, st, sizeof *t);
    if (!t) return OLG_ERR_NOMEM;
    /* borrowed: data, dims, strings and external-data keys stay the source model's */
    t->owner = OLG_OWNER_BORROWED;
    t->release = NULL;
    t->release_ud = NULL;
    olg_value tv;
    OLG_TRY(olg__graph_add_init(cx->dst, t, false, &tv));
    cx->map[sg->inits[i].v] = tv;
  }
  return OLG_OK;
}

static bool is_protected(const olg_lower *cx, olg_value v) {
  return cx->protect && v >= 0 && (uint32_t)v < cx->n_protect && cx->protect[v];
}

static olg_status bind_graph_outputs(olg_lower *cx) {
  const olg_graph *sg = cx->src;
  olg_graph *g = cx->dst;
  cx->cur_node = NULL;
  for (uint32_t i = 0; i < sg->outputs.n; i++) {
    olg_value sv = sg->outputs.p[i];
    const char *name = sg->values[sv].name;
    olg_value tv = cx->map[sv];
    if (tv == OLG_NO_VALUE)
      return olg__errf(cx, OLG_ERR_INVALID_MODEL, "graph output '%s' has no lowered value", name);
    olg_value_rec *tr = &g->values[tv];
    if (strcmp(tr->name, name) != 0 || (tr->flags & OLG_VF_OUTPUT)) {
      bool can_rename = tr->producer >= 0 && !is_protected(cx, tv) &&
                        !(tr->flags & (OLG_VF_INPUT | OLG_VF_INITIALIZER | OLG_VF_OUTPUT));
      olg_value other = olg__graph_lookup(g, name);
      if (other >= 0 && other != tv) {
        const olg_value_rec *orr = &g->values[other];
        if ((orr->flags & (OLG_VF_INPUT | OLG_VF_INITIALIZER | OLG_VF_OUTPUT)) ||
            is_protected(cx, other) || orr->producer < 0)
          return olg__errf(cx, OLG_ERR_DUPLICATE, "graph output '%s' clashes with an input or initializer of that name", name);
        const char *fresh = olg__graph_unique_name(g, name);
        if (!fresh) return OLG_ERR_NOMEM;
        OLG_TRY(olg__value_rename(g, other, fresh)); /* a generated name that took the source's */
      }
      if (can_rename) {
        OLG_TRY(olg__value_rename(g, tv, name));
      } else {
        char nb[512];
        snprintf(nb, sizeof nb, "%s/Identity", name);
        olg_node_id n;
        OLG_TRY(olg_node_begin(g, "", "Identity", nb, &n));
        OLG_TRY(olg_node_arg_value(g, n, tv));
        const char *names[1] = {name};
        olg_value nv;
        OLG_TRY(olg_node_end(g, n, 1, names, &nv));
        OLG_TRY(copy_type(cx->dst_model, &g->values[nv].type, &g->values[tv].type));
        tv = nv;
        tr = &g->values[tv];
      }
    }
    if (tr->type.kind == OLG_TYPE_NONE || (tr->type.kind == OLG_TYPE_TENSOR && !tr->type.has_elem))
      OLG_TRY(copy_type(cx->dst_model, &tr->type, &sg->values[sv].type));
    tr->flags |= OLG_VF_OUTPUT;
    OLG_TRY(olg__idvec_push(cx->dst_model, &g->outputs, tv));
  }
  return OLG_OK;
}

/* ---- target profile: tensorrt ---- */

/* Makes `by` stand for `old` everywhere: uses through subst, and, when old is a graph output,
 * the output list under old's name (by takes the name, or an Identity carries it). */
static olg_status replace_value(olg_lower *cx, olg_value old, olg_value by, olg_value *subst) {
  olg_graph *g = cx->dst;
  subst[old] = by;
  if (!(g->values[old].flags & OLG_VF_OUTPUT)) return OLG_OK;
  const char *name = g->values[old].name;
  const char *tmp = olg__graph_unique_name(g, name);
  if (!tmp) return OLG_ERR_NOMEM;
  OLG_TRY(olg__value_rename(g, old, tmp));
  olg_value_rec *br = &g->values[by];
  if (br->producer < 0 || (br->flags & (OLG_VF_INPUT | OLG_VF_INITIALIZER | OLG_VF_OUTPUT))) {
    olg_node_id n;
    OLG_TRY(olg_node_begin(g, "", "Identity", name, &n));
    OLG_TRY(olg_node_arg_value(g, n, by));
    olg_value nv;
    OLG_TRY(olg_node_end(g, n, 1, (const char *const[]){name}, &nv));
    g->values[nv].type = g->values[by].type;
    by = nv;
  } else {
    OLG_TRY(olg__value_rename(g, by, name));
  }
  g->values[old].flags &= ~(uint32_t)OLG_VF_OUTPUT;
  g->values[by].flags |= OLG_VF_OUTPUT;
  for (uint32_t i = 0; i < g->outputs.n; i++)
    if (g->outputs.p[i] == old) g->outputs.p[i] = by;
  return OLG_OK;
}

/* Gather(Shape(x), i) with a known scalar or one-element i becomes a Shape slice. */
static olg_status rewrite_shape_gathers(olg_lower *cx, olg_value *subst) {
  olg_graph *g = cx->dst;
  uint32_t n_nodes = g->n_nodes; /* nodes added here are Shape/Slice/Squeeze: no Gathers */
  for (uint32_t i = 0; i < n_nodes; i++) {
    olg_node *nd = &g->nodes[i];
    if (nd->state != OLG_NODE_DONE || *nd->domain || strcmp(nd->op, "Gather") != 0) continue;
    if (nd->n_args < 2 || nd->args[0].kind != OLG_ARG_VALUE || nd->args[1].kind != OLG_ARG_VALUE)
      continue;
    if (olg__node_attr(nd, "axis") && olg__node_attr(nd, "axis")->i != 0) continue;
    olg_value data = nd->args[0].u.v, idx = nd->args[1].u.v;
    int32_t p = g->values[data].producer;
    if (p < 0 || strcmp(g->nodes[p].op, "Shape") != 0 || *g->nodes[p].domain) continue;
    if (is_protected(cx, nd->outputs[0])) continue;
    const int64_t *iv;
    size_t ni;
    int32_t irank = olg__rank(cx, idx);
    if (!olg__known_ints(cx, idx, &iv, &ni) || ni != 1 || irank > 1 || irank < 0) continue;
    const olg_node *sh = &g->nodes[p];
    int64_t rank = olg__rank(cx, sh->args[0].u.v);
    int64_t start = 0, end = INT64_MAX;
    const olg_attr *a = olg__node_attr(sh, "start");
    if (a) start = a->i;
    if ((a = olg__node_attr(sh, "end"))) end = a->i;
    if (start < 0 || end < 0 || iv[0] < 0) {
      if (rank < 0) continue;
      if (start < 0) start += rank;
      if (end < 0) end += rank;
    }
    int64_t at = iv[0];
    if (at < 0) {
      int64_t len = olg__dim(cx, data, 0);
      if (len < 0) continue;
      at += len;
    }
    cx->name_base = nd->name;
    cx->n_emitted = 0;
    cx->n_op_uses = 0;
    olg_value r;
    OLG_TRY(olg__shape_range(cx, sh->args[0].u.v, start + at, start + at + 1, &r));
    if (irank == 0) OLG_TRY(olg__emit_squeeze(cx, r, (const int64_t[]){0}, 1, &r));
    OLG_TRY(replace_value(cx, g->nodes[i].outputs[0], r, subst));
    g->nodes[i].state = OLG_NODE_DEAD; /* emitting may have moved the node array */
  }
  return OLG_OK;
}

/* ---- cleanup ---- */

static olg_value resolve(const olg_value *subst, olg_value v) {
  while (v >= 0 && subst[v] != v) v = subst[v];
  return v;
}

static void apply_subst(olg_graph *g, const olg_value *subst) {
  for (uint32_t i = 0; i < g->n_nodes; i++) {
    olg_node *nd = &g->nodes[i];
    if (nd->state != OLG_NODE_DONE) continue;
    for (uint32_t j = 0; j < nd->n_args; j++) {
      olg_arg *a = &nd->args[j];
      if (a->kind == OLG_ARG_VALUE) a->u.v = resolve(subst, a->u.v);
      else if (a->kind == OLG_ARG_VALUES)
        for (size_t k = 0; k < a->u.vals.n; k++)
          ((olg_value *)a->u.vals.p)[k] = resolve(subst, a->u.vals.p[k]);
    }
  }
}

static bool has_subgraph(const olg_node *nd) {
  for (uint32_t i = 0; i < nd->n_attrs; i++)
    if (nd->attrs[i].type == OLG_ATTR_GRAPH || nd->attrs[i].type == OLG_ATTR_GRAPHS) return true;
  return false;
}

/* Folds single-output nodes whose output inference made known (and small) into Constants, in
 * place (the node keeps its id and output). */
static olg_status fold_constants(olg_lower *cx) {
  olg_graph *g = cx->dst;
  for (uint32_t i = 0; i < g->n_nodes; i++) {
    olg_node *nd = &g->nodes[i];
    if (nd->state != OLG_NODE_DONE || *nd->domain || nd->n_outputs != 1 ||
        strcmp(nd->op, "Constant") == 0 || has_subgraph(nd))
      continue;
    olg_value out = nd->outputs[0];
    if (out == OLG_NO_VALUE) continue;
    const olg_tensor *t = olg__known(cx, out);
    if (!t || t->dtype == OLG_STRING || t->nbytes > 4096 * 8) continue;
    if (cx->opset < 9 && t->dtype != OLG_FLOAT && t->dtype != OLG_DOUBLE && t->dtype != OLG_FLOAT16) {
      /* Constant-1 takes float types only: the folded value becomes an initializer, which
       * takes over the output's value (and name) */
      if (g->values[out].flags & OLG_VF_OUTPUT) continue;
      olg_tensor *it = olg__arena_dup(cx->dst_model, t, sizeof *it);
      if (!it) return OLG_ERR_NOMEM;
      it->owner = OLG_OWNER_BORROWED; /* the bytes live in this model's arena or source */
      it->name = g->values[out].name;
      olg_value_rec *r = &g->values[out];
      OLG_TRY(olg__grow(&cx->dst_model->alloc, (void **)&g->inits, &g->cap_inits,
                        (size_t)g->n_inits + 1, sizeof *g->inits));
      r = &g->values[out];
      r->producer = -1;
      r->flags |= OLG_VF_INITIALIZER;
      r->known = it;
      r->init = (int32_t)g->n_inits;
      g->inits[g->n_inits++] = (struct olg_init){out, it};
      nd = &g->nodes[i];
      nd->state = OLG_NODE_DEAD;
      continue;
    }
    olg_attr a = {0};
    a.name = "value";
    a.type = OLG_ATTR_TENSOR;
    a.t = (olg_tensor *)t;
    olg_attr *attrs = olg__arena_dup(cx->dst_model, &a, sizeof a);
    if (!attrs) return OLG_ERR_NOMEM;
    nd->op = "Constant";
    nd->args = NULL;
    nd->n_args = nd->cap_args = 0;
    nd->attrs = attrs;
    nd->n_attrs = nd->cap_attrs = 1;
  }
  return OLG_OK;
}

static void remove_identities(const olg_lower *cx, olg_graph *g, olg_value *subst) {
  for (uint32_t i = 0; i < g->n_nodes; i++) {
    olg_node *nd = &g->nodes[i];
    if (nd->state != OLG_NODE_DONE || *nd->domain || strcmp(nd->op, "Identity") != 0) continue;
    if (nd->n_args != 1 || nd->args[0].kind != OLG_ARG_VALUE || nd->n_outputs != 1) continue;
    olg_value out = nd->outputs[0];
    if (out == OLG_NO_VALUE || (g->values[out].flags & OLG_VF_OUTPUT) || is_protected(cx, out))
      continue;
    subst[out] = nd->args[0].u.v;
    nd->state = OLG_NODE_DEAD;
  }
}

static uint64_t hash_bytes(uint64_t h, const void *p, size_t n) {
  const unsigned char *b = p;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ull;
  return h;
}

static bool same_tensor(const olg_tensor *a, const olg_tensor *b) {
  if (a->dtype != b->dtype || a->rank != b->rank || a->nbytes != b->nbytes) return false;
  if (a->rank && memcmp(a->dims, b->dims, (size_t)a->rank * sizeof *a->dims)) return false;
  return a->nbytes == 0 || (a->data && b->data && memcmp(a->data, b->data, a->nbytes) == 0);
}

/* Merges Constant nodes with identical tensors (hash table over the Constants). */
static olg_status cse_constants(olg_lower *cx, olg_value *subst) {
  olg_graph *g = cx->dst;
  const olg_allocator *al = &cx->dst_model->alloc;
  uint32_t cap = 16;
  while (cap < g->n_nodes * 2u) cap *= 2;
  int32_t *tab = olg__malloc(al, (size_t)cap * sizeof *tab);
  if (!tab) return OLG_ERR_NOMEM;
  for (uint32_t i = 0; i < cap; i++) tab[i] = -1;
  for (uint32_t i = 0; i < g->n_nodes; i++) {
    olg_node *nd = &g->nodes[i];
    if (nd->state != OLG_NODE_DONE || *nd->domain || strcmp(nd->op, "Constant") != 0 ||
        nd->n_attrs != 1 || nd->attrs[0].type != OLG_ATTR_TENSOR || nd->n_outputs != 1)
      continue;
    const olg_tensor *t = nd->attrs[0].t;
    if (!t || t->dtype == OLG_STRING || (!t->data && t->nbytes)) continue;
    if ((g->values[nd->outputs[0]].flags & OLG_VF_OUTPUT) || is_protected(cx, nd->outputs[0]))
      continue;
    uint64_t h = hash_bytes(1469598103934665603ull, &t->dtype, sizeof t->dtype);
    h = hash_bytes(h, t->dims, (size_t)t->rank * sizeof *t->dims);
    h = hash_bytes(h, t->data, t->nbytes);
    for (uint32_t k = (uint32_t)h & (cap - 1);; k = (k + 1) & (cap - 1)) {
      if (tab[k] < 0) {
        tab[k] = (int32_t)i;
        break;
      }
      const olg_node *o = &g->nodes[tab[k]];
      if (same_tensor(o->attrs[0].t, t)) {
        subst[nd->outputs[0]] = o->outputs[0];
        nd->state = OLG_NODE_DEAD;
        break;
      }
    }
  }
  olg__free(al, tab, (size_t)cap * sizeof *tab);
  return OLG_OK;
}

/* Marks the names a subgraph reads from enclosing graphs as live in g. */
static void mark_subgraph_refs(olg_graph *g, const olg_graph *sub, uint8_t *live_val) {
  for (uint32_t i = 0; i < sub->n_nodes; i++) {
    const olg_node *nd = &sub->nodes[i];
    for (uint32_t j = 0; j < nd->n_args; j++) {
      const olg_arg *a = &nd->args[j];
      size_t cnt = a->kind == OLG_ARG_VALUE ? 1 : a->kind == OLG_ARG_VALUES ? a->u.vals.n : 0;
      for (size_t k = 0; k < cnt; k++) {
        olg_value v = a->kind == OLG_ARG_VALUE ? a->u.v : a->u.vals.p[k];
        if (v < 0) continue;
        const olg_value_rec *r = &sub->values[v];
        if (r->producer >= 0 || (r->flags & (OLG_VF_INPUT | OLG_VF_INITIALIZER))) continue;
        olg_value ov = olg__graph_lookup(g, r->name);
        if (ov >= 0) live_val[ov] = 1;
      }
    }
    for (uint32_t j = 0; j < nd->n_attrs; j++) {
      const olg_attr *a = &nd->attrs[j];
      if (a->type == OLG_ATTR_GRAPH && a->g) mark_subgraph_refs(g, a->g, live_val);
      for (size_t k = 0; a->type == OLG_ATTR_GRAPHS && k < a->n; k++)
        mark_subgraph_refs(g, a->graphs[k], live_val);
    }
  }
}

static bool is_outer_ref(const olg_value_rec *r) {
  return r->producer < 0 && !(r->flags & (OLG_VF_INPUT | OLG_VF_INITIALIZER));
}

/* The producers a node depends on: its value arguments' and, for a node with subgraphs, those
 * of the values the subgraphs read by name from this graph (implicit inputs, which the graph's
 * own topological order does not see). fn(ud, producer) for each, duplicates possible. */
static void subgraph_producers(const olg_graph *g, const olg_graph *sub,
                               void (*fn)(void *, int32_t), void *ud) {
  for (uint32_t i = 0; i < sub->n_nodes; i++) {
    const olg_node *nd = &sub->nodes[i];
    if (nd->state != OLG_NODE_DONE) continue;
    for (uint32_t j = 0; j < nd->n_args; j++) {
      const olg_arg *a = &nd->args[j];
      size_t cnt = a->kind == OLG_ARG_VALUE ? 1 : a->kind == OLG_ARG_VALUES ? a->u.vals.n : 0;
      for (size_t k = 0; k < cnt; k++) {
        olg_value v = a->kind == OLG_ARG_VALUE ? a->u.v : a->u.vals.p[k];
        if (v < 0 || !is_outer_ref(&sub->values[v])) continue;
        olg_value ov = olg__graph_lookup(g, sub->values[v].name);
        if (ov >= 0 && g->values[ov].producer >= 0) fn(ud, g->values[ov].producer);
      }
    }
    for (uint32_t j = 0; j < nd->n_attrs; j++) {
      const olg_attr *a = &nd->attrs[j];
      if (a->type == OLG_ATTR_GRAPH && a->g) subgraph_producers(g, a->g, fn, ud);
      for (size_t k = 0; a->type == OLG_ATTR_GRAPHS && k < a->n; k++)
        subgraph_producers(g, a->graphs[k], fn, ud);
    }
  }
}

static void node_producers(const olg_graph *g, const olg_node *nd, void (*fn)(void *, int32_t),
                           void *ud) {
  for (uint32_t j = 0; j < nd->n_args; j++) {
    const olg_arg *a = &nd->args[j];
    size_t cnt = a->kind == OLG_ARG_VALUE ? 1 : a->kind == OLG_ARG_VALUES ? a->u.vals.n : 0;
    for (size_t k = 0; k < cnt; k++) {
      olg_value v = a->kind == OLG_ARG_VALUE ? a->u.v : a->u.vals.p[k];
      if (v >= 0 && g->values[v].producer >= 0) fn(ud, g->values[v].producer);
    }
  }
  for (uint32_t j = 0; j < nd->n_attrs; j++) {
    const olg_attr *a = &nd->attrs[j];
    if (a->type == OLG_ATTR_GRAPH && a->g) subgraph_producers(g, a->g, fn, ud);
    for (size_t k = 0; a->type == OLG_ATTR_GRAPHS && k < a->n; k++)
      subgraph_producers(g, a->graphs[k], fn, ud);
  }
}

struct topo {
  const olg_graph *g;
  uint32_t *indeg, *off;
  int32_t *adj;
  int32_t cur;
  size_t n_edges;
};

static void topo_count(void *ud, int32_t p) {
  struct topo *t = ud;
  if (t->g->nodes[p].state != OLG_NODE_DONE) return;
  t->indeg[t->cur]++;
  t->off[p + 1]++;
  t->n_edges++;
}

static void topo_fill(void *ud, int32_t p) {
  struct topo *t = ud;
  if (t->g->nodes[p].state == OLG_NODE_DONE) t->adj[t->off[p]++] = t->cur;
}

/* A topological order of g that counts subgraph reads as edges (Kahn, linear in nodes plus
 * edges); order[k] = -1 past the last live node. */
static olg_status graph_order(const olg_graph *g, const olg_allocator *al, olg_node_id *order) {
  uint32_t n = g->n_nodes;
  if (!n) return OLG_OK;
  struct topo t = {g, olg__calloc(al, n, sizeof(uint32_t)), olg__calloc(al, (size_t)n + 1, sizeof(uint32_t)),
                   NULL, 0, 0};
  olg_status s = OLG_OK;
  if (!t.indeg || !t.off) { s = OLG_ERR_NOMEM; goto done; }
  for (uint32_t i = 0; i < n; i++) {
    if (g->nodes[i].state != OLG_NODE_DONE) continue;
    t.cur = (int32_t)i;
    node_producers(g, &g->nodes[i], topo_count, &t);
  }
  t.adj = olg__malloc(al, (t.n_edges ? t.n_edges : 1) * sizeof *t.adj);
  if (!t.adj) { s = OLG_ERR_NOMEM; goto done; }
  for (uint32_t i = 0; i < n; i++) t.off[i + 1] += t.off[i];
  for (uint32_t i = 0; i < n; i++) {
    if (g->nodes[i].state != OLG_NODE_DONE) continue;
    t.cur = (int32_t)i;
    node_producers(g, &g->nodes[i], topo_fill, &t);
  }
  uint32_t head = 0, tail = 0, live = 0;
  for (uint32_t i = 0; i < n; i++) {
    if (g->nodes[i].state != OLG_NODE_DONE) continue;
    live++;
    if (!t.indeg[i]) order[tail++] = (olg_node_id)i;
  }
  while (head < tail) {
    olg_node_id p = order[head++];
    uint32_t b = p ? t.off[p - 1] : 0, e = t.off[p];
    for (uint32_t k = b; k < e; k++)
      if (--t.indeg[t.adj[k]] == 0) order[tail++] = t.adj[k];
  }
  if (tail < live)
    for (uint32_t i = 0; i < n && !s; i++)
      if (g->nodes[i].state == OLG_NODE_DONE && t.indeg[i])
        s = olg__err(OLG_ERR_INVALID_MODEL, "graph '%s' has a cycle through node '%s' (%s)",
                     g->name, g->nodes[i].name, g->nodes[i].op);
  for (uint32_t i = tail; i < n; i++) order[i] = -1;
done:
  olg__free(al, t.indeg, (size_t)n * sizeof(uint32_t));
  olg__free(al, t.off, ((size_t)n + 1) * sizeof(uint32_t));
  olg__free(al, t.adj, (t.n_edges ? t.n_edges : 1) * sizeof *t.adj);
  return s;
}

/* Removes dead nodes and rewrites the node array in topological order. */
static olg_status dce_and_compact(olg_lower *cx) {
  olg_graph *g = cx->dst;
  const olg_allocator *al = &cx->dst_model->alloc;
  uint32_t n = g->n_nodes;
  if (!n) return OLG_OK;
  olg_node_id *order = olg__malloc(al, (size_t)n * sizeof *order);
  uint8_t *live_val = olg__calloc(al, g->n_values ? g->n_values : 1, 1);
  int32_t *newid = olg__malloc(al, (size_t)n * sizeof *newid);
  olg_node *nodes = olg__malloc(al, (size_t)n * sizeof *nodes);
  olg_status s = OLG_OK;
  if (!order || !live_val || !newid || !nodes) {
    s = OLG_ERR_NOMEM;
    goto done;
  }
  s = graph_order(g, al, order);
  if (s) goto done;
  uint32_t n_live = 0;
  for (uint32_t i = 0; i < g->outputs.n; i++) live_val[g->outputs.p[i]] = 1;
  for (uint32_t i = 0; i < n; i++) newid[i] = -1;
  uint32_t n_order = 0;
  while (n_order < n && order[n_order] >= 0) n_order++;
  for (uint32_t k = n_order; k-- > 0;) {
    olg_node *nd = &g->nodes[order[k]];
    bool live = false;
    for (uint32_t j = 0; j < nd->n_outputs && !live; j++)
      live = nd->outputs[j] != OLG_NO_VALUE && live_val[nd->outputs[j]];
    if (!live) {
      nd->state = OLG_NODE_DEAD;
      continue;
    }
    newid[order[k]] = 0;
    n_live++;
    for (uint32_t j = 0; j < nd->n_args; j++) {
      const olg_arg *a = &nd->args[j];
      if (a->kind == OLG_ARG_VALUE) live_val[a->u.v] = 1;
      else if (a->kind == OLG_ARG_VALUES)
        for (size_t q = 0; q < a->u.vals.n; q++)
          if (a->u.vals.p[q] >= 0) live_val[a->u.vals.p[q]] = 1;
    }
    for (uint32_t j = 0; j < nd->n_attrs; j++) {
      const olg_attr *a = &nd->attrs[j];
      if (a->type == OLG_ATTR_GRAPH && a->g) mark_subgraph_refs(g, a->g, live_val);
      for (size_t q = 0; a->type == OLG_ATTR_GRAPHS && q < a->n; q++)
        mark_subgraph_refs(g, a->graphs[q], live_val);
    }
  }
  uint32_t m = 0;
  for (uint32_t k = 0; k < n_order; k++) {
    olg_node_id id = order[k];
    if (newid[id] < 0) continue;
    newid[id] = (int32_t)m;
    nodes[m++] = g->nodes[id];
  }
  memcpy(g->nodes, nodes, (size_t)m * sizeof *nodes);
  g->n_nodes = m;
  for (uint32_t v = 0; v < g->n_values; v++) {
    olg_value_rec *r = &g->values[v];
    if (r->producer >= 0) {
      int32_t nid = newid[r->producer];
      if (nid < 0) r->producer = -1;
      else r->producer = nid;
    }
  }
  /* initializers nothing reads any more (weights of folded nodes, unused parameters) go too */
  uint32_t k = 0;
  for (uint32_t i = 0; i < g->n_inits; i++) {
    olg_value v = g->inits[i].v;
    olg_value_rec *r = &g->values[v];
    if (!live_val[v] && !(r->flags & (OLG_VF_INPUT | OLG_VF_OUTPUT))) {
      r->flags &= ~(uint32_t)OLG_VF_INITIALIZER;
      r->init = -1;
      r->known = NULL;
      continue;
    }
    r->init = (int32_t)k;
    g->inits[k++] = g->inits[i];
  }
  g->n_inits = k;
  (void)n_live;
done:
  olg__free(al, order, (size_t)n * sizeof *order);
  olg__free(al, live_val, g->n_values ? g->n_values : 1);
  olg__free(al, newid, (size_t)n * sizeof *newid);
  olg__free(al, nodes, (size_t)n * sizeof *nodes);
  return s;
}

static olg_status cleanup(olg_lower *cx, bool trt) {
  olg_graph *g = cx->dst;
  const olg_allocator *al = &cx->dst_model->alloc;
  cx->cur_node = NULL;
  olg_value *subst = olg__malloc(al, (g->n_values ? g->n_values : 1) * sizeof *subst);
  if (!subst) return OLG_ERR_NOMEM;
  uint32_t n_vals = g->n_values;
  for (uint32_t v = 0; v < n_vals; v++) subst[v] = (olg_value)v;
  olg_status s = OLG_OK;
  if (trt) {
    /* the rewrite emits nodes (new values): give it room for them */
    olg_value *big = olg__realloc(al, subst, n_vals * sizeof *subst,
                                  ((size_t)n_vals * 2 + 64) * sizeof *subst);
    if (!big) { s = OLG_ERR_NOMEM; goto done; }
    subst = big;
    uint32_t cap = n_vals * 2 + 64;
    for (uint32_t v = n_vals; v < cap; v++) subst[v] = (olg_value)v;
    uint32_t before = g->n_values;
    s = rewrite_shape_gathers(cx, subst);
    if (s) { n_vals = cap; goto done; }
    if (g->n_values > cap) { /* each rewrite adds at most 3 values per Gather: cannot happen */
      n_vals = cap;
      s = olg__err(OLG_ERR_LIMIT, "tensorrt rewrite: too many new values");
      goto done;
    }
    (void)before;
    n_vals = cap;
    apply_subst(g, subst);
  }
  if (cx->fold) {
    s = fold_constants(cx);
    if (s) goto done;
  }
  remove_identities(cx, g, subst);
  s = cse_constants(cx, subst);
  if (s) goto done;
  apply_subst(g, subst);
  s = dce_and_compact(cx);
done:
  olg__free(al, subst, (size_t)n_vals * sizeof *subst);
  return s;
}


/* ---- graphs and subgraphs ---- */

/* Counts, for values of cx->src, the references by name from the subgraphs (at any depth) of
 * graph `sub`, so that a value only a subgraph reads still counts as used. */
static void count_subgraph_refs(olg_lower *cx, const olg_graph *sub) {
  for (uint32_t i = 0; i < sub->n_nodes; i++) {
    const olg_node *nd = &sub->nodes[i];
    if (nd->state != OLG_NODE_DONE) continue;
    for (uint32_t j = 0; j < nd->n_args; j++) {
      const olg_arg *a = &nd->args[j];
      size_t cnt = a->kind == OLG_ARG_VALUE ? 1 : a->kind == OLG_ARG_VALUES ? a->u.vals.n : 0;
      for (size_t k = 0; k < cnt; k++) {
        olg_value v = a->kind == OLG_ARG_VALUE ? a->u.v : a->u.vals.p[k];
        if (v < 0 || !is_outer_ref(&sub->values[v])) continue;
        olg_value sv = olg__graph_lookup(cx->src, sub->values[v].name);
        if (sv >= 0) cx->uses[sv]++;
      }
    }
    for (uint32_t j = 0; j < nd->n_attrs; j++) {
      const olg_attr *a = &nd->attrs[j];
      if (a->type == OLG_ATTR_GRAPH && a->g) count_subgraph_refs(cx, a->g);
      for (size_t k = 0; a->type == OLG_ATTR_GRAPHS && k < a->n; k++)
        count_subgraph_refs(cx, a->graphs[k]);
    }
  }
}

/* A subgraph's reference to an enclosing graph's value: found by name in the enclosing source
 * graphs, it becomes a reference by the TARGET name of the value that stands for it (typed as
 * that value, for the symbolics and inference of the subgraph). */
static olg_status resolve_outer_ref(olg_lower *cx, olg_value sv) {
  const char *name = cx->src->values[sv].name;
  for (olg_lower *p = cx->parent; p; p = p->parent) {
    olg_value psv = olg__graph_lookup(p->src, name);
    if (psv < 0) continue;
    olg_value ptv = p->map[psv];
    if (ptv == OLG_NO_VALUE) return OLG_OK; /* not lowered: the node that reads it is skipped */
    const olg_value_rec *pr = &p->dst->values[ptv];
    olg_value tv = olg__graph_lookup(cx->dst, pr->name);
    if (tv < 0) {
      OLG_TRY(olg__graph_add_value(cx->dst, pr->name, false, &tv));
      pr = &p->dst->values[ptv];
      olg_value_rec *r = &cx->dst->values[tv];
      r->type = pr->type; /* the arena's: shared, never changed in place */
      r->known = pr->known;
      r->flags |= OLG_VF_OUTER;
    }
    cx->map[sv] = tv;
    return OLG_OK;
  }
  return OLG_OK;
}

/* Marks the values of the target graph that its subgraphs read by name. */
static olg_status compute_protect(olg_lower *cx) {
  olg_graph *g = cx->dst;
  bool any = false;
  for (uint32_t i = 0; i < g->n_nodes && !any; i++)
    any = g->nodes[i].state == OLG_NODE_DONE && has_subgraph(&g->nodes[i]);
  if (!any) return OLG_OK;
  cx->n_protect = g->n_values;
  cx->protect = olg__arena_alloc(cx->dst_model, g->n_values ? g->n_values : 1);
  if (!cx->protect) return OLG_ERR_NOMEM;
  for (uint32_t i = 0; i < g->n_nodes; i++) {
    const olg_node *nd = &g->nodes[i];
    if (nd->state != OLG_NODE_DONE) continue;
    for (uint32_t j = 0; j < nd->n_attrs; j++) {
      const olg_attr *a = &nd->attrs[j];
      if (a->type == OLG_ATTR_GRAPH && a->g) mark_subgraph_refs(g, a->g, cx->protect);
      for (size_t k = 0; a->type == OLG_ATTR_GRAPHS && k < a->n; k++)
        mark_subgraph_refs(g, a->graphs[k], cx->protect);
    }
  }
  return OLG_OK;
}

/* Lowers cx->src into cx->dst: inputs and initializers, every node in topological order, the
 * outputs under their source names, the profile's rewrites and the cleanup. *n_failed counts
 * the nodes that could not be lowered (each reported); the graph is unusable then. */
static olg_status lower_graph(olg_lower *cx, bool trt, size_t *n_failed) {
  const olg_graph *sg = cx->src;
  const olg_allocator *al = &cx->dst_model->alloc;
  size_t nv = sg->n_values ? sg->n_values : 1, nn = sg->n_nodes ? sg->n_nodes : 1;
  olg_status s = OLG_OK;
  *n_failed = 0;
  cx->map = olg__malloc(al, nv * sizeof *cx->map);
  cx->uses = olg__calloc(al, nv, sizeof *cx->uses);
  olg_node_id *order = olg__malloc(al, nn * sizeof *order);
  if (!cx->map || !cx->uses || !order) {
    s = OLG_ERR_NOMEM;
    goto done;
  }
  for (size_t i = 0; i < nv; i++) cx->map[i] = OLG_NO_VALUE;
  for (uint32_t i = 0; i < sg->n_nodes; i++) {
    const olg_node *nd = &sg->nodes[i];
    if (nd->state != OLG_NODE_DONE) continue;
    for (uint32_t j = 0; j < nd->n_args; j++) {
      const olg_arg *a = &nd->args[j];
      if (a->kind == OLG_ARG_VALUE) count_use(cx, a->u.v);
      else if (a->kind == OLG_ARG_VALUES)
        for (size_t k = 0; k < a->u.vals.n; k++) count_use(cx, a->u.vals.p[k]);
    }
    for (uint32_t j = 0; j < nd->n_attrs; j++) {
      const olg_attr *a = &nd->attrs[j];
      if (a->type == OLG_ATTR_GRAPH && a->g) count_subgraph_refs(cx, a->g);
      for (size_t k = 0; a->type == OLG_ATTR_GRAPHS && k < a->n; k++)
        count_subgraph_refs(cx, a->graphs[k]);
    }
  }
  for (uint32_t i = 0; i < sg->outputs.n; i++) count_use(cx, sg->outputs.p[i]);
  if ((s = carry_inputs(cx))) goto done;
  if (cx->parent) /* the names a subgraph reads from enclosing graphs */
    for (uint32_t v = 0; v < sg->n_values; v++)
      if (cx->uses[v] && cx->map[v] == OLG_NO_VALUE && is_outer_ref(&sg->values[v]) &&
          (s = resolve_outer_ref(cx, (olg_value)v)))
        goto done;
  if ((s = graph_order(sg, al, order))) goto done;
  for (uint32_t k = 0; k < sg->n_nodes && order[k] >= 0; k++) {
    s = lower_node(cx, order[k]);
    if (s == OLG_ERR_NOMEM) goto done;
    *n_failed += s != OLG_OK && s != LOWER_SKIPPED;
  }
  s = OLG_OK;
  cx->cur_node = NULL;
  cx->name_base = NULL;
  if (*n_failed || cx->n_errors) goto done;
  if ((s = compute_protect(cx)) || (s = bind_graph_outputs(cx))) goto done;
  s = cleanup(cx, trt);
done:
  olg__free(al, cx->map, nv * sizeof *cx->map);
  olg__free(al, cx->uses, nv * sizeof *cx->uses);
  olg__free(al, order, nn * sizeof *order);
  cx->map = NULL;
  cx->uses = NULL;
  return s;
}

olg_status olg__lower_subgraph(olg_lower *cx, const olg_graph *src_sub, const char *attr,
                               olg_graph **out) {
  olg_graph *g;
  OLG_TRY(olg_model_new_subgraph(cx->dst_model, &g));
  g->parent = cx->dst; /* for the inference of outer references; attaching sets it again */
  if (src_sub->name && *src_sub->name) OLG_TRY(olg_graph_set_name(g, src_sub->name));
  char buf[512];
  const char *outer = cx->name_base && *cx->name_base ? cx->name_base : olg_lower_node_op(cx);
  snprintf(buf, sizeof buf, "%s/%s", outer, attr);
  const char *scope = olg__strdup(cx->dst_model, buf);
  if (!scope) return OLG_ERR_NOMEM;
  olg_lower sub = *cx; /* the setting; the per-graph state is reset */
  sub.src = src_sub;
  sub.dst = g;
  sub.parent = cx;
  sub.scope = scope;
  sub.cur = -1;
  sub.cur_node = NULL;
  sub.name_base = NULL;
  sub.n_errors = 0;
  sub.protect = NULL;
  sub.n_protect = 0;
  size_t n_failed;
  olg_status s = lower_graph(&sub, strcmp(cx->profile, "tensorrt") == 0, &n_failed);
  cx->custom_domains = sub.custom_domains; /* the list may have grown */
  cx->n_custom = sub.n_custom;
  cx->cap_custom = sub.cap_custom;
  cx->n_errors += sub.n_errors;
  if (sub.n_errors) cx->cur_reported = true; /* the subgraph's nodes said what failed */
  if (s) return s;
  if (n_failed || sub.n_errors)
    return olg__err(OLG_ERR_UNSUPPORTED, "%zu node(s) of subgraph '%s' could not be lowered",
                    n_failed, attr);
  *out = g;
  return OLG_OK;
}

OLG_API olg_status olg_legalize(const olg_model *src, const olg_registry *r,
                                const olg_legalize_options *opts, olg_model **out,
                                olg_diags *diags) {
  if (!out) return olg__err(OLG_ERR_INVALID_ARG, "olg_legalize: out is NULL");
  *out = NULL;
  if (!src || !r) return olg__err(OLG_ERR_INVALID_ARG, "olg_legalize: the source model and the registry are required");
  olg_legalize_options o = OLG_LEGALIZE_OPTIONS_INIT;
  if (opts) {
    if (opts->size < offsetof(olg_legalize_options, ir_version))
      return olg__err(OLG_ERR_INVALID_ARG, "olg_legalize: options.size is not set");
    memcpy(&o, opts, opts->size < sizeof o ? opts->size : sizeof o);
    o.size = sizeof o;
  }
  if (!o.opset) o.opset = OLG_LEGALIZE_DEFAULT_OPSET;
  if (o.opset < OLG_LOWER_OPSET_MIN || o.opset > OLG_LOWER_OPSET_MAX)
    return olg__err(OLG_ERR_UNSUPPORTED, "olg_legalize: target opset %lld is outside %d..%d",
                    (long long)o.opset, OLG_LOWER_OPSET_MIN, OLG_LOWER_OPSET_MAX);
  int64_t ir = o.ir_version ? o.ir_version : olg_ir_version_for_opset(o.opset);
  if (ir < 3 || ir > OLG_IR_VERSION_LATEST)
    return olg__err(OLG_ERR_UNSUPPORTED, "olg_legalize: IR version %lld is outside 3..%d",
                    (long long)ir, OLG_IR_VERSION_LATEST);
  const char *profile = o.profile ? o.profile : "";
  bool trt = strcmp(profile, "tensorrt") == 0;
  if (*profile && !trt)
    return olg__err(OLG_ERR_INVALID_ARG, "olg_legalize: unknown target profile '%s' (known: tensorrt)", profile);

  olg_model_options mo = OLG_MODEL_OPTIONS_INIT;
  mo.allocator = o.allocator ? o.allocator : &src->alloc;
  mo.ir_version = ir;
  olg_model *dm;
  olg_status s = olg_model_new(&dm, &mo);
  if (s) return s;
  const olg_graph *sg = src->graph;
  olg_lower cx = {0};
  cx.src_model = src;
  cx.src = sg;
  cx.dst_model = dm;
  cx.dst = dm->graph;
  cx.reg = r;
  cx.diags = diags;
  cx.opset = (int)o.opset;
  cx.allow_decompositions = !o.no_decompositions;
  cx.fold = !o.no_constant_folding;
  cx.profile = profile;
  cx.cur = -1;
  const olg_allocator *al = &dm->alloc;
  if ((s = olg_model_set_opset(dm, "", o.opset)) ||
      (s = olg_model_set_string(dm, OLG_MODEL_PRODUCER_NAME, "onnxlegal")) ||
      (s = olg_model_set_string(dm, OLG_MODEL_PRODUCER_VERSION, olg_version_string())) ||
      (s = olg_graph_set_name(cx.dst, *sg->name ? sg->name : "main")))
    goto fail;
  if (src->doc_string && *src->doc_string &&
      (s = olg_model_set_string(dm, OLG_MODEL_DOC_STRING, src->doc_string)))
    goto fail;
  size_t n_failed; /* nodes, each reported at least once; those downstream are not counted */
  s = lower_graph(&cx, trt, &n_failed);
  if (s) goto fail;
  if (n_failed || cx.n_errors) {
    s = olg__err(OLG_ERR_UNSUPPORTED,
                 "olg_legalize: %zu node(s) could not be lowered to opset %d%s", n_failed,
                 cx.opset, diags ? " (see the diagnostics)" : "");
    goto fail;
  }
  bool init_inputs = o.keep_initializers_as_inputs || ir < 4;
  if (init_inputs) {
    olg_graph *g = cx.dst;
    for (uint32_t i = 0; i < g->n_inits; i++) {
      olg_value v = g->inits[i].v;
      if (g->values[v].flags & OLG_VF_INPUT) continue;
      g->values[v].flags |= OLG_VF_INPUT;
      if ((s = olg__idvec_push(dm, &g->inputs, v))) goto fail;
    }
  }
  for (uint32_t i = 0; i < cx.n_custom; i++)
    if ((s = olg_model_set_opset(dm, cx.custom_domains[i],
                                 olg__registry_domain_version(r, cx.custom_domains[i]))))
      goto fail;
  olg__free(al, cx.custom_domains, (size_t)cx.cap_custom * sizeof *cx.custom_domains);
  *out = dm;
  return OLG_OK;
fail:
  olg__free(al, cx.custom_domains, (size_t)cx.cap_custom * sizeof *cx.custom_domains);
  olg_model_free(dm);
  return s;
}
