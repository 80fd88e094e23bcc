/* onnxlegal — the validator: is a model legal ONNX at the opsets it imports?
 *
 * One pass over every graph in node order (which ONNX requires to be topological), with the
 * scopes of the enclosing graphs visible to subgraphs. Per node: one schema lookup (binary
 * search), attribute and formal checks bounded by the op's signature, name checks through the
 * graphs' hash maps. Every problem is reported (up to max_errors), each with a stable code
 * (listed in include/onnxlegal/check.h). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "infer.h"
#include "onnxlegal/check.h"
#include "schema.h"

OLG_API void olg_check_options_init(olg_check_options *o) {
  if (o) *o = (olg_check_options)OLG_CHECK_OPTIONS_INIT;
}

typedef struct scope {
  const olg_graph *g;
  olg_node_id limit; /* names of g are visible when defined before this node */
  const struct scope *up;
  int depth; /* 1 for a subgraph of the main graph */
} scope;

typedef struct ck {
  olg_model *m; /* written only in full mode, and restored */
  olg_diags *d;
  bool full, allow_unlowered, notes;
  size_t max_errors;
  size_t errors;
  olg_status fatal; /* OLG_ERR_NOMEM while recording */
  bool stop;
  bool noted_no_schema; /* OLG-CHECK-OP-NO-SCHEMA once per run */
} ck;

/* ---------------------------------------------------------------------------------------- */
/* Reporting */

static void vreport(ck *c, olg_severity sev, const char *code, const olg_node *nd, int64_t opset,
                    const char *fmt, va_list ap) {
  if (c->stop) return;
  if (sev == OLG_NOTE && !c->notes) return;
  char msg[1024];
  vsnprintf(msg, sizeof msg, fmt, ap);
  if (sev == OLG_ERROR) c->errors++;
  if (c->d) {
    olg_status s = olg_diags_add(c->d, sev, code, nd ? nd->name : "", nd ? nd->domain : "",
                                 nd ? nd->op : "", nd ? opset : -1, msg);
    if (s && !c->fatal) c->fatal = s;
  }
  if (c->fatal || (c->max_errors && c->errors >= c->max_errors)) c->stop = true;
}

static void report(ck *c, olg_severity sev, const char *code, const olg_node *nd, int64_t opset,
                   const char *fmt, ...) OLG_PRINTF(6, 7);
static void report(ck *c, olg_severity sev, const char *code, const olg_node *nd, int64_t opset,
                   const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vreport(c, sev, code, nd, opset, fmt, ap);
  va_end(ap);
}

/* "Add-14", "com.x.Foo-1": the op and its version, as diagnostics name it */
static const char *op_label(const olg_node *nd, int64_t opset, char *buf, size_t n) {
  bool dom = nd->domain && *nd->domain && strcmp(nd->domain, "ai.onnx") != 0;
  snprintf(buf, n, "%s%s%s-%lld", dom ? nd->domain : "", dom ? "." : "", nd->op, (long long)opset);
  return buf;
}

static const char *attr_type_name(int t) {
  static const char *const names[] = {"UNDEFINED", "FLOAT", "INT", "STRING", "TENSOR", "GRAPH",
                                      "FLOATS", "INTS", "STRINGS", "TENSORS", "GRAPHS",
                                      "SPARSE_TENSOR", "SPARSE_TENSORS", "TYPE_PROTO",
                                      "TYPE_PROTOS"};
  return t >= 0 && t < (int)(sizeof names / sizeof *names) ? names[t] : "UNKNOWN";
}

static bool is_default_domain(const char *d) {
  return !d || !*d || strcmp(d, "ai.onnx") == 0;
}

/* ---------------------------------------------------------------------------------------- */
/* Model level */

/* The IR version released with each opset of the default domain (IR.md / Versioning.md). */
static int64_t ir_for_onnx_opset(int64_t v) {
  if (v <= 8) return 3;
  if (v == 9) return 4;
  if (v == 10) return 5;
  if (v == 11) return 6;
  if (v <= 14) return 7;
  if (v <= 18) return 8;
  if (v <= 20) return 9;
  if (v <= 22) return 10;
  if (v == 23) return 11;
  if (v == 24) return 12;
  return 13;
}

int64_t olg__ir_for_ml_opset(int64_t v) {
  if (v <= 1) return 3;
  if (v == 2) return 6;
  if (v == 3) return 8;
  if (v == 4) return 9;
  return 10;
}

static void check_model_header(ck *c) {
  const olg_model *m = c->m;
  int64_t ir = m->ir_version;
  if (ir <= 0) {
    report(c, OLG_ERROR, "OLG-CHECK-IR-VERSION", NULL, -1,
           "the model has no ir_version (it is %lld); set it, e.g. to %d", (long long)ir,
           OLG_IR_VERSION_LATEST);
    return;
  }
  if (ir > OLG_IR_VERSION_LATEST)
    report(c, OLG_ERROR, "OLG-CHECK-IR-VERSION", NULL, -1,
           "ir_version %lld is newer than the newest this library knows (%d)", (long long)ir,
           OLG_IR_VERSION_LATEST);
  if (ir < 3 && m->n_opsets > 0)
    report(c, OLG_ERROR, "OLG-CHECK-IR-VERSION", NULL, -1,
           "a model with ir_version %lld (< 3) may not have opset_import; use ir_version >= 3",
           (long long)ir);
  if (ir >= 3 && m->n_opsets == 0)
    report(c, OLG_ERROR, "OLG-CHECK-OPSET-MISSING", NULL, -1,
           "a model with ir_version >= 3 must import an opset of the default domain (opset_import is empty)");
  for (uint32_t i = 0; i < m->n_opsets; i++) {
    const char *dom = m->opsets[i].domain;
    int64_t v = m->opsets[i].version;
    const olg_schema_domain *sd = olg_schema_domain_find(dom);
    bool ml = strcmp(dom, "ai.onnx.ml") == 0;
    if (!sd) continue; /* a custom domain: any version */
    int64_t newest = sd->max_defined > sd->max_released ? sd->max_defined : sd->max_released;
    const char *shown = is_default_domain(dom) ? "the default domain" : dom;
    if (v < 1 || v > newest) {
      report(c, OLG_ERROR, "OLG-CHECK-OPSET-VERSION", NULL, -1,
             "opset %lld of %s does not exist; its opsets are 1..%lld", (long long)v, shown,
             (long long)newest);
      continue;
    }
    if (v > sd->max_released)
      report(c, OLG_WARNING, "OLG-CHECK-OPSET-VERSION", NULL, -1,
             "opset %lld of %s is still in development (the newest released is %d); runtimes may refuse it",
             (long long)v, shown, sd->max_released);
    int64_t need = is_default_domain(dom) ? ir_for_onnx_opset(v) : ml ? olg__ir_for_ml_opset(v) : 7;
    /* an IR older than the opset's cannot express what the opset's ops may carry (IR.md
       pairs each opset with the IR released with it): runtimes refuse such models */
    if (ir >= 3 && ir < need)
      report(c, OLG_ERROR, "OLG-CHECK-IR-VERSION", NULL, -1,
             "ir_version %lld is older than IR %lld, which was released with opset %lld of %s; set ir_version to %lld or more",
             (long long)ir, (long long)need, (long long)v, shown, (long long)need);
  }
}

/* ---------------------------------------------------------------------------------------- */
/* Names */

static bool value_defined_here(const olg_value_rec *r, olg_node_id before) {
  if (r->flags & (OLG_VF_INPUT | OLG_VF_INITIALIZER)) return true;
  /* a sparse initializer: typed SPARSE_TENSOR, without producer */
  if (r->producer < 0 && !(r->flags & OLG_VF_OUTER) && r->type.kind == OLG_TYPE_SPARSE_TENSOR)
    return true;
  return r->producer >= 0 && r->producer < before;
}

/* Resolves an outer name through the scopes; 0 found, 1 not found, 2 defined too late. */
static int resolve_outer(const scope *sc, const char *name, const olg_graph **where,
                         olg_node_id *late_producer) {
  for (const scope *s = sc; s; s = s->up) {
    olg_value pv = olg__graph_lookup(s->g, name);
    if (pv < 0) continue;
    const olg_value_rec *pr = &s->g->values[pv];
    if (value_defined_here(pr, 0)) return 0; /* input, initializer, sparse initializer */
    if (pr->producer >= 0) {
      if (pr->producer < s->limit) return 0;
      *where = s->g;
      *late_producer = pr->producer;
      return 2;
    }
    /* itself a reference to a graph further out */
  }
  return 1;
}

static const char *node_desc(const olg_graph *g, olg_node_id n, char *buf, size_t sz) {
  const olg_node *p = &g->nodes[n];
  if (*p->name) snprintf(buf, sz, "node '%s' (%s)", p->name, p->op);
  else snprintf(buf, sz, "node #%d (%s)", (int)n, p->op);
  return buf;
}

/* Checks that input value v of node n (in graph g, scopes sc) is defined before n. */
static void check_use(ck *c, const olg_graph *g, const scope *sc, olg_node_id n, olg_value v,
                      int input_index, int64_t opset) {
  const olg_node *nd = &g->nodes[n];
  if (v < 0 || (uint32_t)v >= g->n_values) {
    report(c, OLG_ERROR, "OLG-CHECK-NAME-UNDEFINED", nd, opset, "input %d refers to no value (id %d)",
           input_index, (int)v);
    return;
  }
  const olg_value_rec *r = &g->values[v];
  if (value_defined_here(r, n)) return;
  char buf[300];
  if (r->producer >= 0) {
    report(c, OLG_ERROR, "OLG-CHECK-NAME-ORDER", nd, opset,
           "input %d '%s' is used before %s defines it: nodes must be in topological order (move this node after it)",
           input_index, r->name, node_desc(g, r->producer, buf, sizeof buf));
    return;
  }
  if (!sc) {
    report(c, OLG_ERROR, "OLG-CHECK-NAME-UNDEFINED", nd, opset,
           "input %d '%s' is not a graph input, an initializer or the output of any node of graph '%s'",
           input_index, r->name, g->name);
    return;
  }
  const olg_graph *where = NULL;
  olg_node_id late = -1;
  int k = resolve_outer(sc, r->name, &where, &late);
  if (k == 1)
    report(c, OLG_ERROR, "OLG-CHECK-OUTER-UNDEFINED", nd, opset,
           "input %d '%s' is defined neither in subgraph '%s' nor in any enclosing graph",
           input_index, r->name, g->name);
  else if (k == 2)
    report(c, OLG_ERROR, "OLG-CHECK-OUTER-UNDEFINED", nd, opset,
           "input %d '%s' of subgraph '%s' comes from %s of graph '%s', which follows the node that owns the subgraph; define it before that node",
           input_index, r->name, g->name, node_desc(where, late, buf, sizeof buf), where->name);
}

static bool defined_in_scopes(const scope *sc, const char *name) {
  for (const scope *s = sc; s; s = s->up) {
    olg_value pv = olg__graph_lookup(s->g, name);
    if (pv < 0) continue;
    const olg_value_rec *pr = &s->g->values[pv];
    if (value_defined_here(pr, s->limit)) return true;
  }
  return false;
}

static const char *def_kind(const olg_graph *g, const olg_value_rec *r, char *buf, size_t n) {
  if (r->producer >= 0) {
    char nb[256];
    snprintf(buf, n, "output of %s", node_desc(g, r->producer, nb, sizeof nb));
  } else if (r->flags & OLG_VF_INITIALIZER) {
    snprintf(buf, n, "initializer");
  } else if (r->flags & OLG_VF_INPUT) {
    snprintf(buf, n, "graph input");
  } else {
    snprintf(buf, n, "value");
  }
  return buf;
}

/* Duplicates recorded by the reader: a second definition of a name. A graph input that also
 * has an initializer (its default) is not a duplicate; its types must agree. */
static void check_type_vs_init(ck *c, const olg_graph *g, const olg_value_rec *in, const olg_tensor *t);

static void check_dups(ck *c, const olg_graph *g) {
  for (uint32_t i = 0; i < g->dups.n && !c->stop; i++) {
    const olg_value_rec *second = &g->values[g->dups.p[i]];
    olg_value fv = olg__graph_lookup(g, second->name);
    const olg_value_rec *first = fv >= 0 ? &g->values[fv] : NULL;
    if (first) {
      bool fi = (first->flags & OLG_VF_INPUT) && first->producer < 0 && !(first->flags & OLG_VF_INITIALIZER);
      bool si = (second->flags & OLG_VF_INPUT) && second->producer < 0 && !(second->flags & OLG_VF_INITIALIZER);
      bool fz = (first->flags & OLG_VF_INITIALIZER) && !(first->flags & OLG_VF_INPUT) && first->producer < 0;
      bool sz = (second->flags & OLG_VF_INITIALIZER) && !(second->flags & OLG_VF_INPUT) && second->producer < 0;
      if ((fi && sz) || (fz && si)) {
        const olg_value_rec *in = fi ? first : second, *init = fi ? second : first;
        if (init->init >= 0) check_type_vs_init(c, g, in, g->inits[init->init].t);
        continue;
      }
    }
    char a[300], b[300];
    const olg_node *nd = second->producer >= 0 ? &g->nodes[second->producer] : NULL;
    report(c, OLG_ERROR, "OLG-CHECK-NAME-DUPLICATE", nd, -1,
           "'%s' is defined twice in graph '%s': as %s and again as %s; every name must be defined once (SSA)",
           second->name, g->name, first ? def_kind(g, first, a, sizeof a) : "?",
           def_kind(g, second, b, sizeof b));
  }
}

/* ---------------------------------------------------------------------------------------- */
/* Types */

static bool type_present(const olg_type *t) {
  return t && t->kind != OLG_TYPE_NONE;
}

/* "tensor(float)", "seq(tensor(int64))": the type as schema type strings write it; false when
 * a part is unknown. */
static bool type_string(const olg_type *t, char *buf, size_t n) {
  if (!t) return false;
  switch (t->kind) {
  case OLG_TYPE_TENSOR:
  case OLG_TYPE_SPARSE_TENSOR: {
    const char *e = t->has_elem && t->elem ? olg_dtype_name(t->elem) : NULL;
    if (!e) return false;
    snprintf(buf, n, "%s(%s)", t->kind == OLG_TYPE_TENSOR ? "tensor" : "sparse_tensor", e);
    return true;
  }
  case OLG_TYPE_SEQUENCE:
  case OLG_TYPE_OPTIONAL: {
    char in[128];
    if (!type_string(t->inner, in, sizeof in)) return false;
    snprintf(buf, n, "%s(%s)", t->kind == OLG_TYPE_SEQUENCE ? "seq" : "optional", in);
    return true;
  }
  case OLG_TYPE_MAP: {
    char in[128];
    const char *k = olg_dtype_name(t->key);
    const olg_type *v = t->inner;
    /* schema strings write a map's tensor value by its element type alone ("map(int64,
     * float)" for map(int64, tensor(float)), as ONNX parses them) */
    if (k && v && v->kind == OLG_TYPE_TENSOR && v->has_elem && olg_dtype_name(v->elem)) {
      snprintf(buf, n, "map(%s, %s)", k, olg_dtype_name(v->elem));
      return true;
    }
    if (!k || !type_string(t->inner, in, sizeof in)) return false;
    snprintf(buf, n, "map(%s, %s)", k, in);
    return true;
  }
  default:
    return false;
  }
}

static void check_io_type(ck *c, const olg_graph *g, const olg_value_rec *r, const char *what) {
  const olg_type *t = &r->type;
  char buf[200];
  if (!type_present(t)) {
    report(c, OLG_ERROR, "OLG-CHECK-GRAPH-IO-TYPE", NULL, -1,
           "%s '%s' of graph '%s' has no type; the main graph's inputs and outputs must be typed (e.g. float[N,3])",
           what, r->name, g->name);
    return;
  }
  switch (t->kind) {
  case OLG_TYPE_TENSOR:
  case OLG_TYPE_SPARSE_TENSOR:
    if (!t->has_elem)
      report(c, OLG_ERROR, "OLG-CHECK-GRAPH-IO-TYPE", NULL, -1,
             "%s '%s' of graph '%s' is a tensor without element type", what, r->name, g->name);
    else if (!t->has_shape)
      report(c, OLG_ERROR, "OLG-CHECK-GRAPH-IO-TYPE", NULL, -1,
             "%s '%s' of graph '%s' (%s) has no shape; give its rank, with symbolic or unknown dims where they vary",
             what, r->name, g->name, olg__type_text(t, buf, sizeof buf));
    break;
  case OLG_TYPE_SEQUENCE:
  case OLG_TYPE_OPTIONAL:
    if (!t->inner)
      report(c, OLG_ERROR, "OLG-CHECK-GRAPH-IO-TYPE", NULL, -1,
             "%s '%s' of graph '%s' is a %s without element type", what, r->name, g->name,
             t->kind == OLG_TYPE_SEQUENCE ? "sequence" : "optional");
    break;
  case OLG_TYPE_MAP:
    if (!t->key || !t->inner)
      report(c, OLG_ERROR, "OLG-CHECK-GRAPH-IO-TYPE", NULL, -1,
             "%s '%s' of graph '%s' is a map without key or value type", what, r->name, g->name);
    break;
  default:
    break;
  }
}

static void check_type_vs_init(ck *c, const olg_graph *g, const olg_value_rec *in, const olg_tensor *t) {
  const olg_type *ty = &in->type;
  if (!type_present(ty)) return;
  char a[200];
  if (ty->kind != OLG_TYPE_TENSOR) {
    report(c, OLG_ERROR, "OLG-CHECK-INIT-TYPE", NULL, -1,
           "graph input '%s' of graph '%s' is declared %s but its initializer is a tensor",
           in->name, g->name, olg__type_text(ty, a, sizeof a));
    return;
  }
  if (ty->has_elem && ty->elem && ty->elem != t->dtype) {
    report(c, OLG_ERROR, "OLG-CHECK-INIT-TYPE", NULL, -1,
           "graph input '%s' of graph '%s' is declared %s but its initializer holds %s",
           in->name, g->name, olg__type_text(ty, a, sizeof a),
           olg_dtype_name(t->dtype) ? olg_dtype_name(t->dtype) : "?");
    return;
  }
  if (!ty->has_shape) return;
  bool bad = ty->rank != t->rank;
  for (int32_t k = 0; !bad && k < t->rank; k++)
    if (ty->dims[k].value >= 0 && ty->dims[k].value != t->dims[k]) bad = true;
  if (bad) {
    char d[200];
    size_t at = 0;
    d[0] = 0;
    for (int32_t k = 0; k < t->rank && at < sizeof d - 24; k++)
      at += (size_t)snprintf(d + at, sizeof d - at, "%s%lld", k ? "," : "", (long long)t->dims[k]);
    report(c, OLG_ERROR, "OLG-CHECK-INIT-TYPE", NULL, -1,
           "graph input '%s' of graph '%s' is declared %s but its initializer has shape [%s]",
           in->name, g->name, olg__type_text(ty, a, sizeof a), d);
  }
}

static void check_initializers(ck *c, const olg_graph *g) {
  for (uint32_t i = 0; i < g->n_inits && !c->stop; i++) {
    const olg_tensor *t = g->inits[i].t;
    const olg_value_rec *r = &g->values[g->inits[i].v];
    if (!r->name || !*r->name) {
      report(c, OLG_ERROR, "OLG-CHECK-NAME-EMPTY", NULL, -1,
             "initializer %u of graph '%s' has no name; initializers must be named", i, g->name);
      continue;
    }
    if (t->dtype <= 0 || t->dtype > OLG_DTYPE_MAX) {
      report(c, OLG_ERROR, "OLG-CHECK-INIT-DATA", NULL, -1,
             "initializer '%s' of graph '%s' has element type %d, which is undefined", r->name,
             g->name, t->dtype);
      continue;
    }
    uint64_t numel;
    if (!olg__shape_numel(t->rank, t->dims, &numel)) {
      report(c, OLG_ERROR, "OLG-CHECK-INIT-DATA", NULL, -1,
             "initializer '%s' of graph '%s' has negative dims or too many elements", r->name, g->name);
      continue;
    }
    if (t->encoding != OLG_ENC_EXTERNAL && t->dtype != OLG_STRING &&
        (t->data || numel) && olg_dtype_nbytes(t->dtype, numel) != (t->data ? t->nbytes : 0))
      report(c, OLG_ERROR, "OLG-CHECK-INIT-DATA", NULL, -1,
             "initializer '%s' of graph '%s' holds %zu bytes; %s with %llu elements needs %zu",
             r->name, g->name, t->data ? t->nbytes : 0, olg_dtype_name(t->dtype), (unsigned long long)numel,
             olg_dtype_nbytes(t->dtype, numel));
    else if (t->dtype == OLG_STRING && t->n_strings != numel && t->encoding != OLG_ENC_EXTERNAL)
      report(c, OLG_ERROR, "OLG-CHECK-INIT-DATA", NULL, -1,
             "initializer '%s' of graph '%s' holds %zu strings; its shape needs %llu", r->name,
             g->name, t->n_strings, (unsigned long long)numel);
    if (c->m->ir_version >= 1 && c->m->ir_version <= 3 && !(r->flags & OLG_VF_INPUT)) {
      /* an input of the same name may be a separate record (see check_dups) */
      bool paired = false;
      for (uint32_t k = 0; k < g->inputs.n && !paired; k++)
        paired = strcmp(g->values[g->inputs.p[k]].name, r->name) == 0;
      if (!paired)
        report(c, OLG_ERROR, "OLG-CHECK-INIT-NOT-INPUT", NULL, -1,
               "initializer '%s' of graph '%s' is not a graph input; with ir_version %lld (<= 3) every initializer must be listed as an input too (or use ir_version >= 4)",
               r->name, g->name, (long long)c->m->ir_version);
    }
    if (r->flags & OLG_VF_INPUT) check_type_vs_init(c, g, r, t);
  }
}

/* ---------------------------------------------------------------------------------------- */
/* Nodes against their schema */

static const char *const experimental_ops[] = {
  "ATen", "Affine", "ConstantFill", "Crop", "DynamicSlice", "GRUUnit", "GivenTensorFill",
  "ImageScaler", "ParametricSoftplus", "Scale", "ScaledTanh",
};

static bool is_experimental(const char *op) {
  for (size_t i = 0; i < sizeof experimental_ops / sizeof *experimental_ops; i++)
    if (strcmp(op, experimental_ops[i]) == 0) return true;
  return false;
}

/* Source-framework domains: nodes there are not ONNX until lowered. */
static bool is_source_domain(const char *d) {
  return strcmp(d, "aten") == 0 || strcmp(d, "prim") == 0;
}

static void op_missing(ck *c, const olg_node *nd, int64_t opset, const char *domain) {
  size_t nv;
  const olg_schema *v = olg_schema_versions(domain, nd->op, &nv);
  const char *shown = is_default_domain(domain) ? "the default domain" : domain;
  char lab[200];
  if (!v) {
    report(c, OLG_ERROR, "OLG-CHECK-OP-UNKNOWN", nd, opset,
           "%s has no operator '%s' (op names are case-sensitive)", shown, nd->op);
    return;
  }
  report(c, OLG_ERROR, "OLG-CHECK-OP-UNKNOWN", nd, opset,
         "%s does not exist at opset %lld of %s; it was introduced in opset %d (import opset >= %d)",
         op_label(nd, opset, lab, sizeof lab), (long long)opset, shown, v[0].since_version,
         v[0].since_version);
}

static void op_removed(ck *c, const olg_node *nd, int64_t opset, const olg_schema *s) {
  const char *hint = "";
  if (strcmp(s->name, "Upsample") == 0) hint = "; use Resize";
  else if (strcmp(s->name, "Scatter") == 0) hint = "; use ScatterElements";
  size_t nv;
  const olg_schema *v = olg_schema_versions(s->domain, s->name, &nv);
  int newer = 0;
  for (size_t i = 0; i < nv; i++)
    if (v[i].since_version > s->since_version && !v[i].deprecated) { newer = v[i].since_version; break; }
  char extra[96] = "";
  if (newer) snprintf(extra, sizeof extra, "; it is defined again from opset %d", newer);
  report(c, OLG_ERROR, "OLG-CHECK-OP-REMOVED", nd, opset,
         "%s is deprecated from opset %d and not valid at opset %lld%s%s", s->name,
         s->since_version, (long long)opset, hint, extra);
}

/* Why an attribute is unknown, and what would be right. */
static void attr_unknown(ck *c, const olg_node *nd, int64_t opset, const olg_schema *s,
                         const char *name) {
  char lab[200];
  op_label(nd, s->since_version, lab, sizeof lab);
  for (int i = 0; i < s->n_inputs; i++)
    if (strcmp(s->inputs[i].name, name) == 0) {
      report(c, OLG_ERROR, "OLG-CHECK-ATTR-UNKNOWN", nd, opset,
             "attribute '%s' of %s is not allowed: since opset %d %s is an input (input %d)",
             name, lab, s->since_version, name, i);
      return;
    }
  size_t nv;
  const olg_schema *v = olg_schema_versions(s->domain, s->name, &nv);
  const olg_schema *older = NULL, *newer = NULL;
  for (size_t i = 0; i < nv; i++) {
    if (!olg_schema_attr(&v[i], name)) continue;
    if (v[i].since_version < s->since_version) older = &v[i];
    else if (!newer && v[i].since_version > s->since_version) newer = &v[i];
  }
  if (newer) {
    report(c, OLG_ERROR, "OLG-CHECK-ATTR-UNKNOWN", nd, opset,
           "attribute '%s' of %s is not allowed: it was added in %s-%d (needs opset >= %d)",
           name, lab, s->name, newer->since_version, newer->since_version);
    return;
  }
  if (older) {
    report(c, OLG_ERROR, "OLG-CHECK-ATTR-UNKNOWN", nd, opset,
           "attribute '%s' of %s is not allowed: %s-%d had it, %s-%d removed it",
           name, lab, s->name, older->since_version, s->name, s->since_version);
    return;
  }
  char list[512];
  size_t at = 0;
  list[0] = 0;
  for (int i = 0; i < s->n_attrs && at < sizeof list - 40; i++)
    at += (size_t)snprintf(list + at, sizeof list - at, "%s%s", i ? ", " : "", s->attrs[i].name);
  report(c, OLG_ERROR, "OLG-CHECK-ATTR-UNKNOWN", nd, opset,
         "attribute '%s' of %s is not allowed: %s%s", name, lab,
         s->n_attrs ? "its attributes are " : "it has no attributes", list);
}

/* The dtype a value is known to have, for constraint checks: its type, or for the output of a
 * Constant the element type of its tensor (which the node itself fixes). */
static const olg_type *checked_type(const olg_graph *g, olg_value v, olg_type *tmp) {
  const olg_value_rec *r = olg__resolve(g, v, NULL);
  if (type_present(&r->type)) return &r->type;
  if (r->producer >= 0 && r->producer < (olg_node_id)g->n_nodes) {
    const olg_node *p = &g->nodes[r->producer];
    if (strcmp(p->op, "Constant") == 0 && is_default_domain(p->domain)) {
      const olg_attr *a = olg__node_attr(p, "value");
      if (a && a->type == OLG_ATTR_TENSOR && a->t) {
        memset(tmp, 0, sizeof *tmp);
        tmp->kind = OLG_TYPE_TENSOR;
        tmp->has_elem = true;
        tmp->elem = a->t->dtype;
        tmp->rank = OLG_RANK_UNKNOWN;
        return tmp;
      }
    }
  }
  return NULL;
}

/* The list of allowed types of a constraint, shortened for a message. */
static const char *allowed_list(const olg_schema *s, const olg_formal *f, char *buf, size_t n) {
  int na;
  const char *const *al = olg_schema_formal_types(s, f, &na);
  size_t at = 0;
  buf[0] = 0;
  for (int i = 0; i < na && at < n - 48; i++) {
    const char *t = al[i];
    /* "tensor(float)" -> "float" for brevity */
    char tmp[96];
    size_t l = strlen(t);
    if (strncmp(t, "tensor(", 7) == 0 && l > 8) {
      snprintf(tmp, sizeof tmp, "%.*s", (int)(l - 8), t + 7);
      t = tmp;
    }
    at += (size_t)snprintf(buf + at, n - at, "%s%s", i ? ", " : "", t);
  }
  if (at >= n - 48) snprintf(buf + at, n - at, ", ...");
  return buf;
}

/* The first version of the op whose formal at position `pos` allows dtype (for hints). */
static int version_allowing(const olg_schema *s, bool is_input, int pos, olg_dtype dt, int *until) {
  size_t nv;
  const olg_schema *v = olg_schema_versions(s->domain, s->name, &nv);
  int from = 0;
  *until = 0;
  for (size_t i = 0; i < nv; i++) {
    const olg_formal *f = is_input ? olg_schema_input_formal(&v[i], pos) : olg_schema_output_formal(&v[i], pos);
    bool ok = f && olg_schema_formal_allows_dtype(f, dt);
    if (ok && !from && v[i].since_version > s->since_version) from = v[i].since_version;
    if (ok && v[i].since_version < s->since_version) *until = v[i].since_version;
  }
  return from;
}

typedef struct binding {
  const olg_type *t;
  int pos;
  bool is_input;
  const char *name;
} binding;

static void check_formal_type(ck *c, const olg_graph *g, const olg_node *nd, int64_t opset,
                              const olg_schema *s, bool is_input, int pos, olg_value v,
                              binding *bound) {
  olg_type tmp;
  const olg_type *t = checked_type(g, v, &tmp);
  if (!t) return;
  const olg_formal *f = is_input ? olg_schema_input_formal(s, pos) : olg_schema_output_formal(s, pos);
  if (!f) return;
  const olg_value_rec *r = &g->values[v];
  const char *what = is_input ? "input" : "output";
  char lab[200], tbuf[160], al[600];
  const char *ts = tbuf; /* the type as messages show it; no formatting unless needed */
  bool tensor = t->kind == OLG_TYPE_TENSOR;
  if (tensor && !(t->has_elem && t->elem)) return;
  bool ok;
  if (tensor) {
    ok = olg_schema_formal_allows_dtype(f, t->elem);
    ts = olg_dtype_name(t->elem) ? olg_dtype_name(t->elem) : "?";
  } else {
    if (!type_string(t, tbuf, sizeof tbuf)) return;
    int na;
    const char *const *alw = olg_schema_formal_types(s, f, &na);
    ok = false;
    for (int i = 0; i < na && !ok; i++) ok = strcmp(alw[i], ts) == 0;
  }
  const olg_type_constraint *tc = olg_schema_constraint(s, f->type_str);
  if (!ok) {
    char hint[512] = "";
    if (tensor) {
      int until, from = version_allowing(s, is_input, pos, t->elem, &until);
      if (from) snprintf(hint, sizeof hint, "; %s is allowed from %s-%d (opset >= %d)", ts, s->name, from, from);
      else if (until) snprintf(hint, sizeof hint, "; %s was allowed up to %s-%d", ts, s->name, until);
    }
    report(c, OLG_ERROR, "OLG-CHECK-TYPE-CONSTRAINT", nd, opset,
           "%s %d '%s' of %s is %s; %s %s allows %s%s", what, pos, r->name, op_label(nd, s->since_version, lab, sizeof lab), ts,
           tc ? "type constraint" : "it must be", f->type_str, allowed_list(s, f, al, sizeof al), hint);
    return;
  }
  if (!tc || !f->homogeneous) return;
  int ci = (int)(tc - s->constraints);
  if (ci < 0 || ci >= s->n_constraints) return;
  binding *b = &bound[ci];
  if (!b->t) {
    *b = (binding){t, pos, is_input, r->name};
    return;
  }
  char bbuf[160];
  const char *bs = bbuf;
  bool same;
  if (tensor && b->t->kind == OLG_TYPE_TENSOR) {
    same = b->t->elem == t->elem;
    bs = olg_dtype_name(b->t->elem) ? olg_dtype_name(b->t->elem) : "?";
  } else {
    same = type_string(b->t, bbuf, sizeof bbuf) && strcmp(bbuf, ts) == 0;
  }
  if (!same)
    report(c, OLG_ERROR, "OLG-CHECK-TYPE-MISMATCH", nd, opset,
           "%s %d '%s' (%s) and %s %d '%s' (%s) of %s are both bound to %s, so they must have the same type",
           b->is_input ? "input" : "output", b->pos, b->name, bs, what, pos, r->name, ts, op_label(nd, s->since_version, lab, sizeof lab), tc->name);
}

static void check_type_constraints(ck *c, const olg_graph *g, const olg_node *nd, int64_t opset,
                                   const olg_schema *s) {
  binding bound[16];
  if (s->n_constraints > 16) return;
  memset(bound, 0, sizeof bound);
  for (uint32_t i = 0; i < nd->n_args; i++)
    if (nd->args[i].kind == OLG_ARG_VALUE)
      check_formal_type(c, g, nd, opset, s, true, (int)i, nd->args[i].u.v, bound);
  for (uint32_t i = 0; i < nd->n_outputs; i++)
    if (nd->outputs[i] != OLG_NO_VALUE)
      check_formal_type(c, g, nd, opset, s, false, (int)i, nd->outputs[i], bound);
}

/* Whether an attribute carries the payload its type names (a graph for GRAPH, ...); an API-built
 * or hand-made model can lack it, and every later stage would trip on the NULL. */
static bool attr_has_payload(const olg_attr *a) {
  switch (a->type) {
  case OLG_ATTR_GRAPH: return a->g != NULL;
  case OLG_ATTR_TENSOR: {
    if (!a->t) return false;
    /* the data must cover the dims (or be external) */
    const olg_tensor *t = a->t;
    uint64_t ne;
    if (t->encoding == OLG_ENC_EXTERNAL || t->dtype == OLG_STRING || t->dtype <= 0 ||
        t->dtype > OLG_DTYPE_MAX || !olg__shape_numel(t->rank, t->dims, &ne))
      return true;
    return !ne || (t->data && t->nbytes >= olg_dtype_nbytes(t->dtype, ne));
  }
  case OLG_ATTR_TYPE_PROTO: return a->tp != NULL;
  case OLG_ATTR_SPARSE_TENSOR: return a->sparse != NULL;
  case OLG_ATTR_GRAPHS:
    for (size_t k = 0; k < a->n; k++)
      if (!a->graphs || !a->graphs[k]) return false;
    return true;
  default: return true;
  }
}

static void check_attr_value(ck *c, const olg_node *nd, int64_t opset, const olg_schema *s,
                             const olg_attr *a);

/* Arity, omitted inputs, attributes. */
static void check_signature(ck *c, const olg_node *nd, int64_t opset, const olg_schema *s) {
  char lab[200];
  int nin = (int)nd->n_args, nout = (int)nd->n_outputs;
  if (nin < s->min_inputs || (s->max_inputs != OLG_SCHEMA_UNBOUNDED && nin > s->max_inputs)) {
    if (s->max_inputs == OLG_SCHEMA_UNBOUNDED)
      report(c, OLG_ERROR, "OLG-CHECK-INPUT-COUNT", nd, opset,
             "%s takes at least %d inputs; this node has %d", op_label(nd, s->since_version, lab, sizeof lab), s->min_inputs, nin);
    else if (s->min_inputs == s->max_inputs)
      report(c, OLG_ERROR, "OLG-CHECK-INPUT-COUNT", nd, opset,
             "%s takes %d input%s; this node has %d", op_label(nd, s->since_version, lab, sizeof lab), s->min_inputs, s->min_inputs == 1 ? "" : "s", nin);
    else
      report(c, OLG_ERROR, "OLG-CHECK-INPUT-COUNT", nd, opset,
             "%s takes %d to %d inputs; this node has %d", op_label(nd, s->since_version, lab, sizeof lab), s->min_inputs, s->max_inputs, nin);
  }
  if (nout < s->min_outputs || (s->max_outputs != OLG_SCHEMA_UNBOUNDED && nout > s->max_outputs)) {
    if (s->max_outputs == OLG_SCHEMA_UNBOUNDED)
      report(c, OLG_ERROR, "OLG-CHECK-OUTPUT-COUNT", nd, opset,
             "%s gives at least %d outputs; this node has %d", op_label(nd, s->since_version, lab, sizeof lab), s->min_outputs, nout);
    else
      report(c, OLG_ERROR, "OLG-CHECK-OUTPUT-COUNT", nd, opset,
             "%s gives %d to %d outputs; this node has %d", op_label(nd, s->since_version, lab, sizeof lab), s->min_outputs, s->max_outputs, nout);
  }
  for (int i = 0; i < nin; i++) {
    const olg_formal *f = olg_schema_input_formal(s, i);
    if (f && f->option == OLG_FORMAL_SINGLE && nd->args[i].kind == OLG_ARG_NONE)
      report(c, OLG_ERROR, "OLG-CHECK-INPUT-MISSING", nd, opset,
             "input %d '%s' of %s is required, but it is empty", i, f->name, op_label(nd, s->since_version, lab, sizeof lab));
  }
  for (int i = 0; i < nout; i++) {
    const olg_formal *f = olg_schema_output_formal(s, i);
    if (f && f->option == OLG_FORMAL_SINGLE && nd->outputs[i] == OLG_NO_VALUE)
      report(c, OLG_ERROR, "OLG-CHECK-OUTPUT-MISSING", nd, opset,
             "output %d '%s' of %s is required, but it is empty", i, f->name, op_label(nd, s->since_version, lab, sizeof lab));
  }
  for (uint32_t i = 0; i < nd->n_attrs; i++) {
    const olg_attr *a = &nd->attrs[i];
    for (uint32_t j = 0; j < i; j++)
      if (strcmp(nd->attrs[j].name, a->name) == 0) {
        report(c, OLG_ERROR, "OLG-CHECK-ATTR-DUPLICATE", nd, opset,
               "attribute '%s' of %s is given twice", a->name, op_label(nd, s->since_version, lab, sizeof lab));
        break;
      }
    if (a->ref_attr_name && *a->ref_attr_name)
      report(c, OLG_ERROR, "OLG-CHECK-ATTR-REF", nd, opset,
             "attribute '%s' of %s refers to function attribute '%s', but this node is not in a function body; give the value itself",
             a->name, op_label(nd, s->since_version, lab, sizeof lab), a->ref_attr_name);
    if (a->name[0] == '_' && a->name[1] == '_') continue; /* internal symbols: not checked */
    const olg_attr_schema *as = olg_schema_attr(s, a->name);
    if (!as) {
      attr_unknown(c, nd, opset, s, a->name);
      continue;
    }
    if (a->type != as->type)
      report(c, OLG_ERROR, "OLG-CHECK-ATTR-TYPE", nd, opset,
             "attribute '%s' of %s has type %s; it must be %s", a->name, op_label(nd, s->since_version, lab, sizeof lab),
             attr_type_name(a->type), attr_type_name(as->type));
    else if (!attr_has_payload(a))
      report(c, OLG_ERROR, "OLG-CHECK-ATTR-PAYLOAD", nd, opset,
             "attribute '%s' of %s has type %s but carries no %s", a->name,
             op_label(nd, s->since_version, lab, sizeof lab), attr_type_name(a->type),
             a->type == OLG_ATTR_GRAPH ? "graph" : a->type == OLG_ATTR_TENSOR ? (a->t ? "data for its dims" : "tensor")
             : a->type == OLG_ATTR_TYPE_PROTO ? "type" : "sparse tensor");
    else
      check_attr_value(c, nd, opset, s, a);
  }
  for (int i = 0; i < s->n_attrs; i++) {
    const olg_attr_schema *as = &s->attrs[i];
    if (as->required && !olg__node_attr(nd, as->name))
      report(c, OLG_ERROR, "OLG-CHECK-ATTR-MISSING", nd, opset,
             "%s requires attribute '%s' (%s), which is missing", op_label(nd, s->since_version, lab, sizeof lab), as->name,
             attr_type_name(as->type));
  }
}

/* Attribute values whose allowed range changes with the op's version (Changelog.md): one row
 * per (op, versions, attribute, rule). Versions are the schema's since_version: a row holds for
 * since <= v < until (until 0: no end). Negative axes, for one, came with the version-11
 * redefinitions of these ops; before them an axis counts from the front only. */
enum { RANGE_NONNEG = 1, RANGE_ONE_OF = 2 };

typedef struct attr_range {
  const char *op;
  int since, until;
  const char *attr;
  int rule;
  const char *const *allowed; /* RANGE_ONE_OF: NULL-terminated */
  int neg_from;               /* RANGE_NONNEG: the version that allows negative values */
} attr_range;

static const char *const pad_modes_2[] = {"constant", "reflect", "edge", NULL};
static const char *const pad_modes_19[] = {"constant", "reflect", "edge", "wrap", NULL};
static const char *const upsample_modes_1[] = {"nearest", "bilinear", NULL};
static const char *const upsample_modes_7[] = {"nearest", "linear", NULL};
static const char *const resize_modes_10[] = {"nearest", "linear", NULL};
static const char *const resize_modes_11[] = {"nearest", "linear", "cubic", NULL};
static const char *const resize_ctm_11[] = {"half_pixel", "pytorch_half_pixel", "align_corners",
                                            "asymmetric", "tf_half_pixel_for_nn",
                                            "tf_crop_and_resize", NULL};
static const char *const resize_ctm_13[] = {"half_pixel", "pytorch_half_pixel", "align_corners",
                                            "asymmetric", "tf_crop_and_resize", NULL};
static const char *const resize_ctm_19[] = {"half_pixel", "half_pixel_symmetric",
                                            "pytorch_half_pixel", "align_corners", "asymmetric",
                                            "tf_crop_and_resize", NULL};

#define NONNEG_BELOW_11(op, attr) {op, 1, 11, attr, RANGE_NONNEG, NULL, 11}
static const attr_range attr_ranges[] = {
  NONNEG_BELOW_11("ArgMax", "axis"), NONNEG_BELOW_11("ArgMin", "axis"),
  NONNEG_BELOW_11("Compress", "axis"), NONNEG_BELOW_11("Concat", "axis"),
  NONNEG_BELOW_11("Flatten", "axis"), NONNEG_BELOW_11("Hardmax", "axis"),
  NONNEG_BELOW_11("LogSoftmax", "axis"), NONNEG_BELOW_11("Softmax", "axis"),
  NONNEG_BELOW_11("ReduceL1", "axes"), NONNEG_BELOW_11("ReduceL2", "axes"),
  NONNEG_BELOW_11("ReduceLogSum", "axes"), NONNEG_BELOW_11("ReduceLogSumExp", "axes"),
  NONNEG_BELOW_11("ReduceMax", "axes"), NONNEG_BELOW_11("ReduceMean", "axes"),
  NONNEG_BELOW_11("ReduceMin", "axes"), NONNEG_BELOW_11("ReduceProd", "axes"),
  NONNEG_BELOW_11("ReduceSum", "axes"), NONNEG_BELOW_11("ReduceSumSquare", "axes"),
  NONNEG_BELOW_11("Scan", "scan_input_axes"), NONNEG_BELOW_11("Scan", "scan_output_axes"),
  NONNEG_BELOW_11("Slice", "axes"), /* the attribute of Slice-1 (an input from Slice-10) */
  NONNEG_BELOW_11("Split", "axis"), NONNEG_BELOW_11("Squeeze", "axes"),
  NONNEG_BELOW_11("Unsqueeze", "axes"),
  {"Pad", 1, 19, "mode", RANGE_ONE_OF, pad_modes_2, 0},
  {"Pad", 19, 0, "mode", RANGE_ONE_OF, pad_modes_19, 0},
  {"Upsample", 1, 7, "mode", RANGE_ONE_OF, upsample_modes_1, 0},
  {"Upsample", 7, 0, "mode", RANGE_ONE_OF, upsample_modes_7, 0},
  {"Resize", 10, 11, "mode", RANGE_ONE_OF, resize_modes_10, 0},
  {"Resize", 11, 0, "mode", RANGE_ONE_OF, resize_modes_11, 0},
  {"Resize", 11, 13, "coordinate_transformation_mode", RANGE_ONE_OF, resize_ctm_11, 0},
  {"Resize", 13, 19, "coordinate_transformation_mode", RANGE_ONE_OF, resize_ctm_13, 0},
  {"Resize", 19, 0, "coordinate_transformation_mode", RANGE_ONE_OF, resize_ctm_19, 0},
};
#undef NONNEG_BELOW_11

/* The first version of the op at or after `from` whose row (if any) allows string v. */
static int string_allowed_from(const char *op, const char *attr, int from, const char *v, size_t n) {
  for (size_t i = 0; i < sizeof attr_ranges / sizeof *attr_ranges; i++) {
    const attr_range *r = &attr_ranges[i];
    if (r->rule != RANGE_ONE_OF || r->since < from || strcmp(r->op, op) || strcmp(r->attr, attr)) continue;
    for (const char *const *p = r->allowed; *p; p++)
      if (strlen(*p) == n && memcmp(*p, v, n) == 0) return r->since;
  }
  return 0;
}

static void check_attr_value(ck *c, const olg_node *nd, int64_t opset, const olg_schema *s,
                             const olg_attr *a) {
  if (!is_default_domain(nd->domain)) return;
  char lab[200];
  for (size_t i = 0; i < sizeof attr_ranges / sizeof *attr_ranges; i++) {
    const attr_range *r = &attr_ranges[i];
    if (s->since_version < r->since || (r->until && s->since_version >= r->until)) continue;
    if (strcmp(r->op, s->name) != 0 || strcmp(r->attr, a->name) != 0) continue;
    if (r->rule == RANGE_NONNEG) {
      size_t n = a->type == OLG_ATTR_INT ? 1 : a->type == OLG_ATTR_INTS ? a->n : 0;
      for (size_t k = 0; k < n; k++) {
        int64_t v = a->type == OLG_ATTR_INT ? a->i : a->ints[k];
        if (v >= 0) continue;
        report(c, OLG_ERROR, "OLG-CHECK-ATTR-VALUE", nd, opset,
               "attribute '%s' of %s is %lld; a negative %s is allowed from %s-%d (opset >= %d), below it count from the front (0 .. rank-1)",
               a->name, op_label(nd, s->since_version, lab, sizeof lab), (long long)v, a->name,
               s->name, r->neg_from, r->neg_from);
        break;
      }
    } else if (r->rule == RANGE_ONE_OF && a->type == OLG_ATTR_STRING) {
      bool ok = false;
      for (const char *const *p = r->allowed; *p && !ok; p++)
        ok = strlen(*p) == a->s.n && memcmp(*p, a->s.p ? a->s.p : "", a->s.n) == 0;
      if (ok) continue;
      char list[300];
      size_t at = 0;
      list[0] = 0;
      for (const char *const *p = r->allowed; *p && at < sizeof list - 40; p++)
        at += (size_t)snprintf(list + at, sizeof list - at, "%s%s", p == r->allowed ? "" : ", ", *p);
      int later = string_allowed_from(s->name, a->name, s->since_version + 1, a->s.p ? a->s.p : "", a->s.n);
      char hint[96] = "";
      if (later) snprintf(hint, sizeof hint, "; it is allowed from %s-%d (opset >= %d)", s->name, later, later);
      report(c, OLG_ERROR, "OLG-CHECK-ATTR-VALUE", nd, opset,
             "attribute '%s' of %s is '%.*s'; it must be one of %s%s", a->name,
             op_label(nd, s->since_version, lab, sizeof lab), (int)(a->s.n > 64 ? 64 : a->s.n),
             a->s.p ? a->s.p : "", list, hint);
    }
  }
}

static bool has_subgraphs(const olg_node *nd) {
  for (uint32_t i = 0; i < nd->n_attrs; i++)
    if (nd->attrs[i].type == OLG_ATTR_GRAPH || nd->attrs[i].type == OLG_ATTR_GRAPHS) return true;
  return false;
}

/* Subgraph signatures of the control-flow ops (also checked by inference in full mode). */
static void check_subgraph_arity(ck *c, const olg_node *nd, int64_t opset, const olg_schema *s) {
  if (!is_default_domain(nd->domain)) return;
  char lab[200];
  if (strcmp(nd->op, "If") == 0) {
    static const char *const br[2] = {"then_branch", "else_branch"};
    for (int k = 0; k < 2; k++) {
      const olg_attr *a = olg__node_attr(nd, br[k]);
      if (a && a->type == OLG_ATTR_GRAPH && a->g && a->g->outputs.n != nd->n_outputs)
        report(c, OLG_ERROR, "OLG-CHECK-SUBGRAPH", nd, opset,
               "%s of %s has %u outputs but the node has %u; they must match", br[k], op_label(nd, s->since_version, lab, sizeof lab),
               a->g->outputs.n, nd->n_outputs);
    }
  } else if (strcmp(nd->op, "Loop") == 0) {
    const olg_attr *a = olg__node_attr(nd, "body");
    if (a && a->type == OLG_ATTR_GRAPH && a->g && nd->n_args >= 2) {
      uint32_t nc = nd->n_args - 2;
      if (a->g->inputs.n != nc + 2)
        report(c, OLG_ERROR, "OLG-CHECK-SUBGRAPH", nd, opset,
               "the body of %s has %u inputs; with %u loop-carried values it needs %u (iteration number, condition, then the loop-carried values)",
               op_label(nd, s->since_version, lab, sizeof lab), a->g->inputs.n, nc, nc + 2);
      else if (a->g->outputs.n < nc + 1)
        report(c, OLG_ERROR, "OLG-CHECK-SUBGRAPH", nd, opset,
               "the body of %s has %u outputs; it needs at least %u (condition, then %u loop-carried values)",
               op_label(nd, s->since_version, lab, sizeof lab), a->g->outputs.n, nc + 1, nc);
      else if (nd->n_outputs != a->g->outputs.n - 1)
        report(c, OLG_ERROR, "OLG-CHECK-SUBGRAPH", nd, opset,
               "%s has %u outputs; its body gives %u (loop-carried and scan outputs after the condition)",
               op_label(nd, s->since_version, lab, sizeof lab), nd->n_outputs, a->g->outputs.n - 1);
    }
  } else if (strcmp(nd->op, "Scan") == 0 && opset >= 9) {
    const olg_attr *a = olg__node_attr(nd, "body");
    if (a && a->type == OLG_ATTR_GRAPH && a->g) {
      if (a->g->inputs.n != nd->n_args)
        report(c, OLG_ERROR, "OLG-CHECK-SUBGRAPH", nd, opset,
               "the body of %s has %u inputs; the node has %u (states then scan inputs), they must match",
               op_label(nd, s->since_version, lab, sizeof lab), a->g->inputs.n, nd->n_args);
      if (a->g->outputs.n != nd->n_outputs)
        report(c, OLG_ERROR, "OLG-CHECK-SUBGRAPH", nd, opset,
               "the body of %s has %u outputs; the node has %u, they must match", op_label(nd, s->since_version, lab, sizeof lab),
               a->g->outputs.n, nd->n_outputs);
    }
  }
}

/* ---------------------------------------------------------------------------------------- */
/* Graphs */

static void check_graph(ck *c, olg_graph *g, const scope *sc, bool infer_nodes);

static void check_subgraphs(ck *c, olg_graph *g, const scope *sc, olg_node_id n, bool infer_nodes) {
  const olg_node *nd = &g->nodes[n];
  scope inner = {g, n, sc, sc ? sc->depth + 1 : 1};
  if (inner.depth > OLG_MAX_GRAPH_DEPTH) {
    /* checking recurses into subgraphs: bounded here rather than by the stack */
    int64_t opset = olg__domain_opset(c->m, nd->domain ? nd->domain : "");
    report(c, OLG_ERROR, "OLG-CHECK-DEPTH", nd, opset,
           "the subgraphs of this node are nested more than %d graphs deep; the library follows at most %d",
           OLG_MAX_GRAPH_DEPTH, OLG_MAX_GRAPH_DEPTH);
    if (!c->fatal) c->fatal = OLG_ERR_LIMIT;
    c->stop = true;
    return;
  }
  for (uint32_t i = 0; i < nd->n_attrs && !c->stop; i++) {
    const olg_attr *a = &nd->attrs[i];
    if (a->type == OLG_ATTR_GRAPH && a->g) check_graph(c, a->g, &inner, infer_nodes);
    else if (a->type == OLG_ATTR_GRAPHS)
      for (size_t k = 0; k < a->n && !c->stop; k++)
        if (a->graphs[k]) check_graph(c, a->graphs[k], &inner, infer_nodes);
  }
}

/* Checks one node; returns whether it may be inferred (no error of its own). */
static bool check_node(ck *c, olg_graph *g, const scope *sc, olg_node_id n, int64_t *opset_out,
                       const olg_schema **schema_out) {
  const olg_node *nd = &g->nodes[n];
  size_t before = c->errors;
  const char *dom = nd->domain ? nd->domain : "";
  int64_t opset = olg__domain_opset(c->m, dom);
  *opset_out = opset;
  *schema_out = NULL;
  if (nd->n_args == 0 && nd->n_outputs == 0)
    report(c, OLG_ERROR, "OLG-CHECK-NODE-EMPTY", nd, opset,
           "the node has neither inputs nor outputs; remove it");
  bool literal = false;
  for (uint32_t i = 0; i < nd->n_args; i++) {
    const olg_arg *a = &nd->args[i];
    if (a->kind == OLG_ARG_VALUE) check_use(c, g, sc, n, a->u.v, (int)i, opset);
    else if (a->kind == OLG_ARG_VALUES) {
      literal = true;
      for (size_t k = 0; k < a->u.vals.n; k++)
        if (a->u.vals.p[k] != OLG_NO_VALUE) check_use(c, g, sc, n, a->u.vals.p[k], (int)i, opset);
    } else if (a->kind != OLG_ARG_NONE) {
      literal = true;
    }
  }
  /* SSA across scopes: a subgraph's node may not redefine an outer name */
  if (sc)
    for (uint32_t i = 0; i < nd->n_outputs; i++) {
      olg_value v = nd->outputs[i];
      if (v == OLG_NO_VALUE) continue;
      if (defined_in_scopes(sc, g->values[v].name))
        report(c, OLG_ERROR, "OLG-CHECK-NAME-DUPLICATE", nd, opset,
               "output %u '%s' of subgraph '%s' reuses a name of an enclosing graph; every name must be defined once (rename it)",
               i, g->values[v].name, g->name);
    }
  if (literal || (*dom && is_source_domain(dom))) {
    report(c, c->allow_unlowered ? OLG_WARNING : OLG_ERROR, "OLG-CHECK-NOT-LOWERED", nd, opset,
           "%s%s%s is a source-framework node%s; it is not ONNX until legalized (olg_legalize lowers it to ONNX ops)",
           *dom ? dom : "", *dom ? "::" : "", nd->op,
           literal ? " with literal positional arguments" : "");
    return false;
  }
  const olg_schema_domain *sd = olg_schema_domain_find(dom);
  if (opset < 0) {
    const char *shown = is_default_domain(dom) ? "the default domain ''" : dom;
    report(c, OLG_ERROR, "OLG-CHECK-DOMAIN-UNDECLARED", nd, opset,
           "%s is not imported by the model; add it to opset_import (e.g. %s version %d)",
           shown, *dom ? dom : "\"\"", sd ? sd->max_released : 1);
    return false;
  }
  if (!sd) return c->errors == before; /* a declared custom domain: its ops are the caller's */
  if (sd->n_ops == 0) {
    if (!c->noted_no_schema) {
      c->noted_no_schema = true;
      report(c, OLG_NOTE, "OLG-CHECK-OP-NO-SCHEMA", nd, opset,
             "this build has no schemas for domain %s: the signatures of its nodes are not checked", dom);
    }
    return c->errors == before;
  }
  if (opset > INT32_MAX) opset = INT32_MAX;
  const olg_schema *s = olg_schema_find(dom, nd->op, (int)opset);
  if (!s && is_default_domain(dom) && is_experimental(nd->op)) {
    report(c, OLG_WARNING, "OLG-CHECK-OP-EXPERIMENTAL", nd, opset,
           "%s is an experimental op of early ONNX releases, in no released opset; runtimes may refuse it",
           nd->op);
    return false;
  }
  if (!s) {
    op_missing(c, nd, opset, dom);
    return false;
  }
  if (s->deprecated) {
    op_removed(c, nd, opset, s);
    return false;
  }
  *schema_out = s;
  check_signature(c, nd, opset, s);
  if (has_subgraphs(nd)) check_subgraph_arity(c, nd, opset, s);
  return c->errors == before;
}

static void check_graph(ck *c, olg_graph *g, const scope *sc, bool infer_nodes) {
  bool main_graph = sc == NULL;
  if (!g->name || !*g->name)
    report(c, OLG_ERROR, "OLG-CHECK-GRAPH-NAME", NULL, -1,
           "a %s has no name; every graph must be named", main_graph ? "main graph" : "subgraph");
  for (uint32_t i = 0; i < g->inputs.n && !c->stop; i++) {
    const olg_value_rec *r = &g->values[g->inputs.p[i]];
    if (!r->name || !*r->name)
      report(c, OLG_ERROR, "OLG-CHECK-NAME-EMPTY", NULL, -1, "input %u of graph '%s' has no name", i, g->name);
    else if (main_graph)
      check_io_type(c, g, r, "input");
  }
  for (uint32_t i = 0; i < g->outputs.n && !c->stop; i++) {
    const olg_value_rec *r = &g->values[g->outputs.p[i]];
    if (!r->name || !*r->name)
      report(c, OLG_ERROR, "OLG-CHECK-NAME-EMPTY", NULL, -1, "output %u of graph '%s' has no name", i, g->name);
    else if (main_graph)
      check_io_type(c, g, r, "output");
  }
  check_initializers(c, g);
  check_dups(c, g);
  for (uint32_t n = 0; n < g->n_nodes && !c->stop; n++) {
    olg_node *nd = &g->nodes[n];
    if (nd->state != OLG_NODE_DONE) continue;
    int64_t opset;
    const olg_schema *s;
    bool ok = check_node(c, g, sc, (olg_node_id)n, &opset, &s);
    bool subs = has_subgraphs(nd);
    if (c->full && infer_nodes && ok && opset >= 0 && c->notes && !olg__infer_has_rule(nd->domain, nd->op))
      report(c, OLG_NOTE, "OLG-INFER-UNSUPPORTED", nd, opset,
             "no shape inference for %s%s%s: its outputs stay untyped, and what depends on them unchecked",
             *nd->domain ? nd->domain : "", *nd->domain ? "." : "", nd->op);
    if (c->full && infer_nodes && ok && opset >= 0) {
      /* infers this node (and, through its rule, its subgraphs) before their checks; what
         inference reports goes straight to the diagnostics and is counted from there */
      size_t had = olg_diags_error_count(c->d);
      olg_status st = olg__infer_node(g, (olg_node_id)n, opset, c->d);
      if (st && st != OLG_ERR_INVALID_MODEL) {
        c->fatal = st;
        c->stop = true;
        return;
      }
      if (subs && !olg__infer_has_rule(nd->domain, nd->op)) {
        /* a custom op's subgraphs: inferred on their own */
        for (uint32_t i = 0; i < nd->n_attrs && !st; i++) {
          const olg_attr *a = &nd->attrs[i];
          if (a->type == OLG_ATTR_GRAPH && a->g) {
            st = olg__infer_graph(a->g, c->m, c->d);
            if (st == OLG_ERR_INVALID_MODEL) st = OLG_OK;
          }
        }
        if (st) {
          c->fatal = st;
          c->stop = true;
          return;
        }
      }
      c->errors += olg_diags_error_count(c->d) - had;
      if (c->max_errors && c->errors >= c->max_errors) c->stop = true;
    }
    if (subs) check_subgraphs(c, g, sc, (olg_node_id)n, false);
    if (s && ok) check_type_constraints(c, g, nd, opset, s);
  }
  for (uint32_t i = 0; i < g->outputs.n && !c->stop; i++) {
    const olg_value_rec *r = &g->values[g->outputs.p[i]];
    if (!r->name || !*r->name) continue;
    if (r->flags & (OLG_VF_INPUT | OLG_VF_INITIALIZER) || r->producer >= 0) continue;
    if (sc) {
      const olg_graph *where = NULL;
      olg_node_id late = -1;
      if (resolve_outer(sc, r->name, &where, &late) == 0) continue;
      report(c, OLG_ERROR, "OLG-CHECK-OUTER-UNDEFINED", NULL, -1,
             "output '%s' of subgraph '%s' is defined neither in it nor (before its node) in an enclosing graph",
             r->name, g->name);
      continue;
    }
    report(c, OLG_ERROR, "OLG-CHECK-NAME-UNDEFINED", NULL, -1,
           "output '%s' of graph '%s' is not produced by any node, nor an input or initializer",
           r->name, g->name);
  }
}

/* ---------------------------------------------------------------------------------------- */
/* Full mode: inference annotates the model; everything is put back afterwards. */

typedef struct saved_value {
  uint32_t graph;
  olg_value v;
  olg_type type;
  const olg_tensor *known;
  const olg_dim *sym;
  int32_t n_sym;
} saved_value;

typedef struct snapshot {
  saved_value *p;
  size_t n, cap;
  olg_arena arena;
} snapshot;

static olg_status snapshot_take(olg_model *m, snapshot *sn) {
  memset(sn, 0, sizeof *sn);
  size_t need = 0;
  for (uint32_t gi = 0; gi < m->n_graphs; gi++) {
    const olg_graph *g = m->graphs[gi];
    for (uint32_t v = 0; v < g->n_values; v++) {
      const olg_value_rec *r = &g->values[v];
      if (r->type.kind != OLG_TYPE_NONE || r->known || r->sym) need++;
    }
  }
  sn->cap = need ? need : 1;
  sn->p = olg__malloc(&m->alloc, sn->cap * sizeof *sn->p);
  if (!sn->p) return OLG_ERR_NOMEM;
  for (uint32_t gi = 0; gi < m->n_graphs; gi++) {
    const olg_graph *g = m->graphs[gi];
    for (uint32_t v = 0; v < g->n_values; v++) {
      const olg_value_rec *r = &g->values[v];
      if (r->type.kind != OLG_TYPE_NONE || r->known || r->sym)
        sn->p[sn->n++] = (saved_value){gi, (olg_value)v, r->type, r->known, r->sym, r->n_sym};
    }
  }
  /* inference allocates in the model's arena: give it a scratch arena, freed afterwards */
  sn->arena = m->arena;
  olg_arena_init(&m->arena, &m->alloc);
  return OLG_OK;
}

static void snapshot_restore(olg_model *m, snapshot *sn) {
  for (uint32_t gi = 0; gi < m->n_graphs; gi++) {
    olg_graph *g = m->graphs[gi];
    for (uint32_t v = 0; v < g->n_values; v++) {
      olg_value_rec *r = &g->values[v];
      memset(&r->type, 0, sizeof r->type);
      r->type.rank = OLG_RANK_UNKNOWN;
      r->known = NULL;
      r->sym = NULL;
      r->n_sym = 0;
    }
  }
  for (size_t i = 0; i < sn->n; i++) {
    const saved_value *s = &sn->p[i];
    olg_value_rec *r = &m->graphs[s->graph]->values[s->v];
    r->type = s->type;
    r->known = s->known;
    r->sym = s->sym;
    r->n_sym = s->n_sym;
  }
  olg_arena_free(&m->arena);
  m->arena = sn->arena;
  olg__free(&m->alloc, sn->p, sn->cap * sizeof *sn->p);
}

/* ---------------------------------------------------------------------------------------- */

static olg_status read_options(const olg_check_options *opts, olg_check_options *o) {
  *o = (olg_check_options)OLG_CHECK_OPTIONS_INIT;
  if (!opts) return OLG_OK;
  if (opts->size < sizeof(size_t) + sizeof(int))
    return olg__err(OLG_ERR_INVALID_ARG, "olg_check_options.size is not set (use OLG_CHECK_OPTIONS_INIT)");
  /* copy what the caller's version of the struct has */
  size_t n = opts->size < sizeof *o ? opts->size : sizeof *o;
  memcpy(o, opts, n);
  o->size = sizeof *o;
  return OLG_OK;
}

OLG_API olg_status olg_check(const olg_model *cm, const olg_check_options *opts, olg_diags *diags) {
  if (!cm) return olg__err(OLG_ERR_INVALID_ARG, "olg_check: model is NULL");
  olg_check_options o;
  olg_status s = read_options(opts, &o);
  if (s) return s;
  olg_model *m = (olg_model *)cm; /* written only in full mode, and restored before returning */
  olg_diags *own = NULL;
  if (!diags) {
    /* the verdict needs what inference reports too: collect it privately */
    if ((s = olg_diags_new(&own, &m->alloc))) return s;
    diags = own;
  }
  ck c = {m, diags, o.full != 0, o.allow_unlowered != 0, o.notes != 0, o.max_errors, 0, OLG_OK,
          false, false};
  snapshot sn;
  if (c.full && (s = snapshot_take(m, &sn))) {
    olg_diags_free(own);
    return s;
  }
  check_model_header(&c);
  if (!c.stop) check_graph(&c, m->graph, NULL, true);
  if (c.full) snapshot_restore(m, &sn);
  olg_diags_free(own);
  if (own) diags = NULL;
  if (c.fatal == OLG_ERR_LIMIT)
    return olg__err(c.fatal, "olg_check: the model goes beyond a limit of the library (%zu errors found so far%s)",
                    c.errors, diags ? "; see the diagnostics" : "");
  if (c.fatal == OLG_ERR_NOMEM) return olg__err(c.fatal, "olg_check: out of memory (%zu errors found so far)", c.errors);
  if (c.fatal) return c.fatal; /* the message is the failing stage's */
  if (c.errors)
    return olg__err(OLG_ERR_INVALID_MODEL, "the model is not valid: %zu error%s%s", c.errors,
                    c.errors == 1 ? "" : "s", diags ? " (see the diagnostics)" : "");
  return OLG_OK;
}

OLG_API olg_status olg_infer_shapes(olg_model *m, const olg_check_options *opts, olg_diags *diags) {
  if (!m) return olg__err(OLG_ERR_INVALID_ARG, "olg_infer_shapes: model is NULL");
  olg_check_options o;
  olg_status s = read_options(opts, &o);
  if (s) return s;
  return olg__infer_graph_ex(m->graph, m, diags, o.notes != 0 && diags, o.max_errors);
}
