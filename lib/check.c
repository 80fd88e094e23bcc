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

#include "check_impl.h"

OLG_API void olg_check_options_init(olg_check_options *o) {
  if (o) *o = (olg_check_options)OLG_CHECK_OPTIONS_INIT;
}

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
    olg_status s = olg__diags_add_node(c->d, sev, code, c->g, nd, nd ? opset : -1, msg);
    if (s && !c->fatal) c->fatal = s;
  }
  if (c->fatal || (c->max_errors && c->errors >= c->max_errors)) c->stop = true;
}

void olg__ck_report(ck *c, olg_severity sev, const char *code, const olg_node *nd, int64_t opset,
                   const char *fmt, ...) OLG_PRINTF(6, 7);
void olg__ck_report(ck *c, olg_severity sev, const char *code, const olg_node *nd, int64_t opset,
                   const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vreport(c, sev, code, nd, opset, fmt, ap);
  va_end(ap);
}

/* "Add-14", "com.x.Foo-1": the op and its version, as diagnostics name it */
const char *olg__ck_op_label(const olg_node *nd, int64_t opset, char *buf, size_t n) {
  bool dom = nd->domain && *nd->domain && strcmp(nd->domain, "ai.onnx") != 0;
  snprintf(buf, n, "%s%s%s-%lld", dom ? nd->domain : "", dom ? "." : "", nd->op, (long long)opset);
  return buf;
}

const char *olg__ck_attr_type_name(int t) {
  static const char *const names[] = {"UNDEFINED", "FLOAT", "INT", "STRING", "TENSOR", "GRAPH",
                                      "FLOATS", "INTS", "STRINGS", "TENSORS", "GRAPHS",
                                      "SPARSE_TENSOR", "SPARSE_TENSORS", "TYPE_PROTO",
                                      "TYPE_PROTOS"};
  return t >= 0 && t < (int)(sizeof names / sizeof *names) ? names[t] : "UNKNOWN";
}

bool olg__ck_is_default_domain(const char *d) {
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

static void check_model_header(ck *c) {
  const olg_model *m = c->m;
  int64_t ir = m->ir_version;
  if (ir <= 0) {
    olg__ck_report(c, OLG_ERROR, "OLG-CHECK-IR-VERSION", NULL, -1,
           "the model has no ir_version (it is %lld); set it, e.g. to %d", (long long)ir,
           OLG_IR_VERSION_LATEST);
    return;
  }
  if (ir > OLG_IR_VERSION_LATEST)
    olg__ck_report(c, OLG_ERROR, "OLG-CHECK-IR-VERSION", NULL, -1,
           "ir_version %lld is newer than the newest this library knows (%d)", (long long)ir,
           OLG_IR_VERSION_LATEST);
  if (ir < 3 && m->n_opsets > 0)
    olg__ck_report(c, OLG_ERROR, "OLG-CHECK-IR-VERSION", NULL, -1,
           "a model with ir_version %lld (< 3) may not have opset_import; use ir_version >= 3",
           (long long)ir);
  if (ir >= 3 && m->n_opsets == 0)
    olg__ck_report(c, OLG_ERROR, "OLG-CHECK-OPSET-MISSING", NULL, -1,
           "a model with ir_version >= 3 must import an opset of the default domain (opset_import is empty)");
  for (uint32_t i = 0; i < m->n_opsets; i++) {
    const char *dom = m->opsets[i].domain;
    int64_t v = m->opsets[i].version;
    const olg_schema_domain *sd = olg_schema_domain_find(dom);
    bool ml = strcmp(dom, "ai.onnx.ml") == 0;
    if (!sd) continue; /* a custom domain: any version */
    int64_t newest = sd->max_defined > sd->max_released ? sd->max_defined : sd->max_released;
    const char *shown = olg__ck_is_default_domain(dom) ? "the default domain" : dom;
    if (v < 1 || v > newest) {
      olg__ck_report(c, OLG_ERROR, "OLG-CHECK-OPSET-VERSION", NULL, -1,
             "opset %lld of %s does not exist; its opsets are 1..%lld", (long long)v, shown,
             (long long)newest);
      continue;
    }
    if (v > sd->max_released)
      olg__ck_report(c, OLG_WARNING, "OLG-CHECK-OPSET-VERSION", NULL, -1,
             "opset %lld of %s is still in development (the newest released is %d); runtimes may refuse it",
             (long long)v, shown, sd->max_released);
    int64_t need = olg__ck_is_default_domain(dom) ? ir_for_onnx_opset(v) : ml ? olg__ir_for_ml_opset(v) : 7;
    /* an IR older than the opset's: IR.md pairs each opset with the IR released with it, but
       onnx's checker and ONNX Runtime accept the older IR (ONNX's own test data has ir_version 5
       at opset 11), so a warning unless strict */
    if (ir >= 3 && ir < need)
      olg__ck_report(c, c->strict ? OLG_ERROR : OLG_WARNING, "OLG-CHECK-IR-OLD", NULL, -1,
             "ir_version %lld is older than IR %lld, which was released with opset %lld of %s; set ir_version to %lld (onnxlegal convert writes it)",
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

/* The same through the checker's map when it answers for g (linear in the nesting depth):
 * the definitions of name in the enclosing graphs, innermost first, are the records the walk
 * stops at or steps over. */
static int resolve_outer_in(const ck *c, const olg_graph *g, const scope *sc, const char *name,
                            const olg_graph **where, olg_node_id *late_producer) {
  if (!olg__iscopes_covers(c->isc, g)) return resolve_outer(sc, name, where, late_producer);
  for (int32_t k = olg__iscopes_outer(c->isc, name); k >= 0; k = olg__iscopes_next(c->isc, k)) {
    const olg_graph *eg;
    olg_node_id limit;
    const olg_value_rec *pr = olg__iscopes_entry(c->isc, k, &eg, &limit);
    if (value_defined_here(pr, 0)) return 0;
    if (pr->producer >= 0) {
      if (pr->producer < limit) return 0;
      *where = eg;
      *late_producer = pr->producer;
      return 2;
    }
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
    olg__ck_report(c, OLG_ERROR, "OLG-CHECK-NAME-UNDEFINED", nd, opset, "input %d refers to no value (id %d)",
           input_index, (int)v);
    return;
  }
  const olg_value_rec *r = &g->values[v];
  if (value_defined_here(r, n)) return;
  char buf[300];
  if (r->producer >= 0) {
    olg__ck_report(c, OLG_ERROR, "OLG-CHECK-NAME-ORDER", nd, opset,
           "input %d '%s' is used before %s defines it: nodes must be in topological order (move this node after it)",
           input_index, r->name, node_desc(g, r->producer, buf, sizeof buf));
    return;
  }
  if (!sc) {
    olg__ck_report(c, OLG_ERROR, "OLG-CHECK-NAME-UNDEFINED", nd, opset,
           "input %d '%s' is not a graph input, an initializer or the output of any node of graph '%s'",
           input_index, r->name, g->name);
    return;
  }
  const olg_graph *where = NULL;
  olg_node_id late = -1;
  int k = resolve_outer_in(c, g, sc, r->name, &where, &late);
  if (k == 1)
    olg__ck_report(c, OLG_ERROR, "OLG-CHECK-OUTER-UNDEFINED", nd, opset,
           "input %d '%s' is defined neither in subgraph '%s' nor in any enclosing graph",
           input_index, r->name, g->name);
  else if (k == 2)
    olg__ck_report(c, OLG_ERROR, "OLG-CHECK-OUTER-UNDEFINED", nd, opset,
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

static bool defined_in_scopes_in(const ck *c, const olg_graph *g, const scope *sc,
                                 const char *name) {
  if (!olg__iscopes_covers(c->isc, g)) return defined_in_scopes(sc, name);
  for (int32_t k = olg__iscopes_outer(c->isc, name); k >= 0; k = olg__iscopes_next(c->isc, k)) {
    const olg_graph *eg;
    olg_node_id limit;
    /* two statements: in one call, limit could be read before the entry sets it (the order
       in which arguments are evaluated is unspecified; gcc -O2 read it first) */
    const olg_value_rec *r = olg__iscopes_entry(c->isc, k, &eg, &limit);
    if (value_defined_here(r, limit)) return true;
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
    if (olg__dup_is_input_default(first, second)) {
      bool fi = first->flags & OLG_VF_INPUT;
      const olg_value_rec *in = fi ? first : second, *init = fi ? second : first;
      if (init->init >= 0) check_type_vs_init(c, g, in, g->inits[init->init].t);
      continue;
    }
    char a[300], b[300];
    const olg_node *nd = second->producer >= 0 ? &g->nodes[second->producer] : NULL;
    olg__ck_report(c, OLG_ERROR, "OLG-CHECK-NAME-DUPLICATE", nd, -1,
           "'%s' is defined twice in graph '%s': as %s and again as %s; every name must be defined once (SSA)",
           second->name, g->name, first ? def_kind(g, first, a, sizeof a) : "?",
           def_kind(g, second, b, sizeof b));
  }
}

/* ---------------------------------------------------------------------------------------- */
/* Types */

bool olg__ck_type_present(const olg_type *t) {
  return t && t->kind != OLG_TYPE_NONE;
}

/* "tensor(float)", "seq(tensor(int64))": the type as schema type strings write it; false when
 * a part is unknown. */
bool olg__ck_type_string(const olg_type *t, char *buf, size_t n) {
  if (!t) return false;
  switch (t->kind) {
  case OLG_TYPE_TENSOR:
  case OLG_TYPE_SPARSE_TENSOR: {
    olg_dtype dt = olg__type_elem(t);
    const char *e = t->has_elem && dt ? olg_dtype_name(dt) : NULL;
    if (!e) return false;
    snprintf(buf, n, "%s(%s)", t->kind == OLG_TYPE_TENSOR ? "tensor" : "sparse_tensor", e);
    return true;
  }
  case OLG_TYPE_SEQUENCE:
  case OLG_TYPE_OPTIONAL: {
    char in[128];
    if (!olg__ck_type_string(olg__type_inner(t), in, sizeof in)) return false;
    snprintf(buf, n, "%s(%s)", t->kind == OLG_TYPE_SEQUENCE ? "seq" : "optional", in);
    return true;
  }
  case OLG_TYPE_MAP: {
    char in[128];
    const char *k = olg_dtype_name(olg__type_key(t));
    const olg_type *v = olg__type_inner(t);
    /* schema strings write a map's tensor value by its element type alone ("map(int64,
     * float)" for map(int64, tensor(float)), as ONNX parses them) */
    const char *ve = v && v->kind == OLG_TYPE_TENSOR && v->has_elem
                         ? olg_dtype_name(olg__type_elem(v)) : NULL;
    if (k && ve) {
      snprintf(buf, n, "map(%s, %s)", k, ve);
      return true;
    }
    if (!k || !olg__ck_type_string(olg__type_inner(t), in, sizeof in)) return false;
    snprintf(buf, n, "map(%s, %s)", k, in);
    return true;
  }
  case OLG_TYPE_OPAQUE: { /* no ONNX op takes one: spelled for the message that says so */
    const char *d = olg__type_opaque_domain(t), *nm = olg__type_opaque_name(t);
    snprintf(buf, n, "opaque(%s, %s)", d ? d : "", nm ? nm : "");
    return true;
  }
  default:
    return false;
  }
}

const char *olg__io_type_defect(const olg_type *t) {
  if (!olg__ck_type_present(t))
    return "has no type; the main graph's inputs and outputs must be typed (e.g. float[N,3])";
  switch (t->kind) {
  case OLG_TYPE_TENSOR:
  case OLG_TYPE_SPARSE_TENSOR: {
    olg_dtype e = olg__type_elem(t);
    if (!t->has_elem) return "is a tensor without element type";
    if (e <= 0 || e > OLG_DTYPE_MAX) return "is a tensor of an undefined element type";
    if (!t->has_shape)
      return "has no shape; give its rank, with symbolic or unknown dims where they vary";
    return NULL;
  }
  case OLG_TYPE_SEQUENCE:
  case OLG_TYPE_OPTIONAL: {
    const olg_type *in = olg__type_inner(t);
    bool seq = t->kind == OLG_TYPE_SEQUENCE;
    if (!in) return seq ? "is a sequence without element type" : "is an optional without element type";
    olg_dtype e = in->kind == OLG_TYPE_TENSOR && in->has_elem ? olg__type_elem(in) : OLG_FLOAT;
    if (e <= 0 || e > OLG_DTYPE_MAX)
      return seq ? "is a sequence of tensors of an undefined element type"
                 : "is an optional tensor of an undefined element type";
    return NULL;
  }
  case OLG_TYPE_MAP:
    return olg__type_key(t) && olg__type_inner(t) ? NULL : "is a map without key or value type";
  default:
    return NULL;
  }
}

static void check_io_type(ck *c, const olg_graph *g, const olg_value_rec *r, const char *what) {
  const char *defect = olg__io_type_defect(&r->type);
  if (defect)
    olg__ck_report(c, OLG_ERROR, "OLG-CHECK-GRAPH-IO-TYPE", NULL, -1, "%s '%s' of graph '%s' %s",
                   what, r->name, g->name, defect);
}

static void check_type_vs_init(ck *c, const olg_graph *g, const olg_value_rec *in, const olg_tensor *t) {
  const olg_type *ty = &in->type;
  if (!olg__ck_type_present(ty)) return;
  char a[200];
  if (ty->kind != OLG_TYPE_TENSOR) {
    olg__ck_report(c, OLG_ERROR, "OLG-CHECK-INIT-TYPE", NULL, -1,
           "graph input '%s' of graph '%s' is declared %s but its initializer is a tensor",
           in->name, g->name, olg__type_text(ty, a, sizeof a));
    return;
  }
  olg_dtype e = olg__type_elem(ty);
  if (ty->has_elem && e && e != t->dtype) {
    olg__ck_report(c, OLG_ERROR, "OLG-CHECK-INIT-TYPE", NULL, -1,
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
    olg__ck_report(c, OLG_ERROR, "OLG-CHECK-INIT-TYPE", NULL, -1,
           "graph input '%s' of graph '%s' is declared %s but its initializer has shape [%s]",
           in->name, g->name, olg__type_text(ty, a, sizeof a), d);
  }
}

bool olg__init_defect(const olg_tensor *t, char *why, size_t n) {
  if (t->dtype <= 0 || t->dtype > OLG_DTYPE_MAX) {
    snprintf(why, n, "has element type %d, which is undefined", t->dtype);
    return true;
  }
  uint64_t numel;
  if (!olg__shape_numel(t->rank, t->dims, &numel)) {
    snprintf(why, n, "has negative dims or too many elements");
    return true;
  }
  if (t->encoding != OLG_ENC_EXTERNAL && t->dtype != OLG_STRING && (t->data || numel) &&
      olg_dtype_nbytes(t->dtype, numel) != (t->data ? t->nbytes : 0)) {
    snprintf(why, n, "holds %zu bytes; %s with %llu elements needs %zu", t->data ? t->nbytes : 0,
             olg_dtype_name(t->dtype), (unsigned long long)numel, olg_dtype_nbytes(t->dtype, numel));
    return true;
  }
  if (t->dtype == OLG_STRING && t->n_strings != numel && t->encoding != OLG_ENC_EXTERNAL) {
    snprintf(why, n, "holds %zu strings; its shape needs %llu", t->n_strings,
             (unsigned long long)numel);
    return true;
  }
  return false;
}

static void check_initializers(ck *c, const olg_graph *g) {
  for (uint32_t i = 0; i < g->n_inits && !c->stop; i++) {
    const olg_tensor *t = g->inits[i].t;
    const olg_value_rec *r = &g->values[g->inits[i].v];
    if (!r->name || !*r->name) {
      olg__ck_report(c, OLG_ERROR, "OLG-CHECK-NAME-EMPTY", NULL, -1,
             "initializer %u of graph '%s' has no name; initializers must be named", i, g->name);
      continue;
    }
    char why[200];
    if (olg__init_defect(t, why, sizeof why)) {
      olg__ck_report(c, OLG_ERROR, "OLG-CHECK-INIT-DATA", NULL, -1,
                     "initializer '%s' of graph '%s' %s", r->name, g->name, why);
      if (t->dtype <= 0 || t->dtype > OLG_DTYPE_MAX) continue;
    }
    if (c->m->ir_version >= 1 && c->m->ir_version <= 3 && !(r->flags & OLG_VF_INPUT)) {
      /* an input of the same name may be a separate record (see check_dups) */
      bool paired = false;
      for (uint32_t k = 0; k < g->inputs.n && !paired; k++)
        paired = strcmp(g->values[g->inputs.p[k]].name, r->name) == 0;
      if (!paired)
        olg__ck_report(c, OLG_ERROR, "OLG-CHECK-INIT-NOT-INPUT", NULL, -1,
               "initializer '%s' of graph '%s' is not a graph input; with ir_version %lld (<= 3) every initializer must be listed as an input too (or use ir_version >= 4)",
               r->name, g->name, (long long)c->m->ir_version);
    }
    if (r->flags & OLG_VF_INPUT) check_type_vs_init(c, g, r, t);
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
    olg__ck_report(c, OLG_ERROR, "OLG-CHECK-DEPTH", nd, opset,
           "the subgraphs of this node are " OLG_DEPTH_WORDS, OLG_MAX_GRAPH_DEPTH, OLG_MAX_GRAPH_DEPTH);
    if (!c->fatal) c->fatal = OLG_ERR_LIMIT;
    c->stop = true;
    return;
  }
  olg__iscopes_set_limit(c->isc, n); /* g's names defined before n are visible inside */
  for (uint32_t i = 0; i < nd->n_attrs && !c->stop; i++) {
    const olg_attr *a = &nd->attrs[i];
    if (a->type == OLG_ATTR_GRAPH && a->g) check_graph(c, a->g, &inner, infer_nodes);
    else if (a->type == OLG_ATTR_GRAPHS)
      for (size_t k = 0; k < a->n && !c->stop; k++)
        if (a->graphs[k]) check_graph(c, a->graphs[k], &inner, infer_nodes);
  }
}

/* Checks one node; returns whether it may be inferred (no error of its own). */
bool olg__ck_check_node(ck *c, olg_graph *g, const scope *sc, olg_node_id n, int64_t *opset_out,
                       const olg_schema **schema_out) {
  const olg_node *nd = &g->nodes[n];
  size_t before = c->errors;
  const char *dom = nd->domain ? nd->domain : "";
  int64_t opset = olg__domain_opset(c->m, dom);
  *opset_out = opset;
  *schema_out = NULL;
  if (nd->n_args == 0 && nd->n_outputs == 0)
    olg__ck_report(c, OLG_ERROR, "OLG-CHECK-NODE-EMPTY", nd, opset,
           "the node has neither inputs nor outputs; remove it");
  bool literal = false;
  for (uint32_t i = 0; i < nd->n_args; i++) {
    const olg_arg *a = &nd->args[i];
    if (a->kind == OLG_ARG_VALUE) check_use(c, g, sc, n, a->u.v, (int)i, opset);
    else if (a->kind == OLG_ARG_VALUES) {
      literal = true;
      for (size_t k = 0; k < a->n; k++)
        if (a->u.vals[k] != OLG_NO_VALUE) check_use(c, g, sc, n, a->u.vals[k], (int)i, opset);
    } else if (a->kind != OLG_ARG_NONE) {
      literal = true;
    }
  }
  /* SSA across scopes: a subgraph's node may not redefine an outer name */
  if (sc)
    for (uint32_t i = 0; i < nd->n_outputs; i++) {
      olg_value v = nd->outputs[i];
      if (v == OLG_NO_VALUE) continue;
      if (defined_in_scopes_in(c, g, sc, g->values[v].name))
        olg__ck_report(c, OLG_ERROR, "OLG-CHECK-NAME-DUPLICATE", nd, opset,
               "output %u '%s' of subgraph '%s' reuses a name of an enclosing graph; every name must be defined once (rename it)",
               i, g->values[v].name, g->name);
    }
  if (literal || (*dom && olg__ck_is_source_domain(dom))) {
    olg__ck_report(c, c->allow_unlowered ? OLG_WARNING : OLG_ERROR, "OLG-CHECK-NOT-LOWERED", nd, opset,
           "%s%s%s is a source-framework node%s; it is not ONNX until legalized (olg_legalize lowers it to ONNX ops)",
           *dom ? dom : "", *dom ? "::" : "", nd->op,
           literal ? " with literal positional arguments" : "");
    return false;
  }
  const olg_schema_domain *sd = olg_schema_domain_find(dom);
  if (opset < 0) {
    const char *shown = olg__ck_is_default_domain(dom) ? "the default domain ''" : dom;
    olg__ck_report(c, OLG_ERROR, "OLG-CHECK-DOMAIN-UNDECLARED", nd, opset,
           "%s is not imported by the model; add it to opset_import (e.g. %s version %d)",
           shown, *dom ? dom : "\"\"", sd ? sd->max_released : 1);
    return false;
  }
  if (!sd) return c->errors == before; /* a declared custom domain: its ops are the caller's */
  if (sd->n_ops == 0) {
    if (!c->noted_no_schema) {
      c->noted_no_schema = true;
      olg__ck_report(c, OLG_NOTE, "OLG-CHECK-OP-NO-SCHEMA", nd, opset,
             "this build has no schemas for domain %s: the signatures of its nodes are not checked", dom);
    }
    return c->errors == before;
  }
  if (opset > INT32_MAX) opset = INT32_MAX;
  const olg_schema *s = olg_schema_find(dom, nd->op, (int)opset);
  if (!s && olg__ck_is_default_domain(dom) && olg__ck_is_experimental(nd->op)) {
    olg__ck_report(c, OLG_WARNING, "OLG-CHECK-OP-EXPERIMENTAL", nd, opset,
           "%s is an experimental op of early ONNX releases, in no released opset; runtimes may refuse it",
           nd->op);
    return false;
  }
  if (!s) {
    olg__ck_op_missing(c, nd, opset, dom);
    return false;
  }
  if (s->deprecated) {
    olg__ck_op_removed(c, nd, opset, s);
    return false;
  }
  *schema_out = s;
  olg__ck_check_signature(c, nd, opset, s);
  if (olg__ck_has_subgraphs(nd)) olg__ck_check_subgraph_arity(c, nd, opset, s);
  return c->errors == before;
}

static void check_graph_body(ck *c, olg_graph *g, const scope *sc, bool infer_nodes);

static void check_graph(ck *c, olg_graph *g, const scope *sc, bool infer_nodes) {
  olg_status s = c->isc ? olg__iscopes_push(c->isc, g) : OLG_OK;
  if (s) {
    if (!c->fatal) c->fatal = s;
    c->stop = true;
  } else {
    const olg_graph *outer = c->g;
    c->g = g;
    check_graph_body(c, g, sc, infer_nodes);
    c->g = outer;
  }
  if (c->isc) olg__iscopes_pop(c->isc);
}

static void check_graph_body(ck *c, olg_graph *g, const scope *sc, bool infer_nodes) {
  bool main_graph = sc == NULL;
  if (!g->name || !*g->name)
    olg__ck_report(c, OLG_ERROR, "OLG-CHECK-GRAPH-NAME", NULL, -1,
           "a %s has no name; every graph must be named", main_graph ? "main graph" : "subgraph");
  for (uint32_t i = 0; i < g->inputs.n && !c->stop; i++) {
    const olg_value_rec *r = &g->values[g->inputs.p[i]];
    if (!r->name || !*r->name)
      olg__ck_report(c, OLG_ERROR, "OLG-CHECK-NAME-EMPTY", NULL, -1, "input %u of graph '%s' has no name", i, g->name);
    else if (main_graph)
      check_io_type(c, g, r, "input");
  }
  for (uint32_t i = 0; i < g->outputs.n && !c->stop; i++) {
    const olg_value_rec *r = &g->values[g->outputs.p[i]];
    if (!r->name || !*r->name)
      olg__ck_report(c, OLG_ERROR, "OLG-CHECK-NAME-EMPTY", NULL, -1, "output %u of graph '%s' has no name", i, g->name);
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
    bool ok = olg__ck_check_node(c, g, sc, (olg_node_id)n, &opset, &s);
    bool subs = olg__ck_has_subgraphs(nd);
    if (c->full && infer_nodes && ok && opset >= 0 && c->notes && !olg__infer_has_rule(nd->domain, nd->op))
      olg__ck_report(c, OLG_NOTE, "OLG-INFER-UNSUPPORTED", nd, opset,
             "no shape inference for %s%s%s: its outputs stay untyped, and what depends on them unchecked",
             *nd->domain ? nd->domain : "", *nd->domain ? "." : "", nd->op);
    if (c->full && infer_nodes && ok && opset >= 0) {
      /* infers this node (and, through its rule, its subgraphs) before their checks; what
         inference reports goes straight to the diagnostics and is counted from there */
      size_t had = olg_diags_error_count(c->d);
      olg_status st = olg__infer_node_in(c->isc, g, (olg_node_id)n, opset, c->d);
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
    if (s && ok) olg__ck_check_type_constraints(c, g, nd, opset, s);
  }
  for (uint32_t i = 0; i < g->outputs.n && !c->stop; i++) {
    const olg_value_rec *r = &g->values[g->outputs.p[i]];
    if (!r->name || !*r->name) continue;
    if (r->flags & (OLG_VF_INPUT | OLG_VF_INITIALIZER) || r->producer >= 0) continue;
    if (sc) {
      const olg_graph *where = NULL;
      olg_node_id late = -1;
      if (resolve_outer_in(c, g, sc, r->name, &where, &late) == 0) continue;
      olg__ck_report(c, OLG_ERROR, "OLG-CHECK-OUTER-UNDEFINED", NULL, -1,
             "output '%s' of subgraph '%s' is defined neither in it nor (before its node) in an enclosing graph",
             r->name, g->name);
      continue;
    }
    olg__ck_report(c, OLG_ERROR, "OLG-CHECK-NAME-UNDEFINED", NULL, -1,
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
  const olg_value_more *more; /* inference changes it (sym, known), in the scratch arena */
} saved_value;

typedef struct snapshot {
  saved_value *p;
  size_t n, cap;
  olg_arena arena;
} snapshot;

/* Inference's memo of the dims it made (olg_model.dims_memo) names the arena in use: forgotten
 * when the arena is swapped. */
static void dims_memo_clear(olg_model *m) {
  memset(m->dims_memo, 0, sizeof m->dims_memo);
  memset(m->dims_memo_rank, 0, sizeof m->dims_memo_rank);
  memset(m->grown, 0, sizeof m->grown); /* so does the node builder's (a freed block's address) */
}

static olg_status snapshot_take(olg_model *m, snapshot *sn) {
  memset(sn, 0, sizeof *sn);
  size_t need = 0;
  for (uint32_t gi = 0; gi < m->n_graphs; gi++) {
    const olg_graph *g = m->graphs[gi];
    for (uint32_t v = 0; v < g->n_values; v++) {
      const olg_value_rec *r = &g->values[v];
      if (r->type.kind != OLG_TYPE_NONE || r->more) need++;
    }
  }
  sn->cap = need ? need : 1;
  sn->p = olg__malloc(&m->alloc, sn->cap * sizeof *sn->p);
  if (!sn->p) return OLG_ERR_NOMEM;
  for (uint32_t gi = 0; gi < m->n_graphs; gi++) {
    const olg_graph *g = m->graphs[gi];
    for (uint32_t v = 0; v < g->n_values; v++) {
      const olg_value_rec *r = &g->values[v];
      if (r->type.kind != OLG_TYPE_NONE || r->more)
        sn->p[sn->n++] = (saved_value){gi, (olg_value)v, r->type, r->more};
    }
  }
  /* inference allocates in the model's arena: give it a scratch arena, freed afterwards */
  sn->arena = m->arena;
  olg_arena_init(&m->arena, &m->alloc);
  dims_memo_clear(m); /* what it names lives in the other arena */
  return OLG_OK;
}

static void snapshot_restore(olg_model *m, snapshot *sn) {
  for (uint32_t gi = 0; gi < m->n_graphs; gi++) {
    olg_graph *g = m->graphs[gi];
    for (uint32_t v = 0; v < g->n_values; v++) {
      olg_value_rec *r = &g->values[v];
      memset(&r->type, 0, sizeof r->type);
      r->type.rank = OLG_RANK_UNKNOWN;
      r->more = NULL;
    }
  }
  for (size_t i = 0; i < sn->n; i++) {
    const saved_value *s = &sn->p[i];
    olg_value_rec *r = &m->graphs[s->graph]->values[s->v];
    r->type = s->type;
    r->more = s->more;
  }
  olg_arena_free(&m->arena);
  m->arena = sn->arena;
  dims_memo_clear(m); /* it named the scratch arena's dims */
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

static olg_status check_model(olg_model *m, olg_check_options o, olg_diags *diags);

/* A model with functions is checked with every call expanded (function.c): each body is then
 * checked, and its types inferred, at each call site, under the call's name. */
OLG_API olg_status olg_check(const olg_model *cm, const olg_check_options *opts, olg_diags *diags) {
  if (!cm) return olg__err(OLG_ERR_INVALID_ARG, "olg_check: model is NULL");
  olg_check_options o;
  olg_status s = read_options(opts, &o);
  if (s) return s;
  if (!cm->n_functions) /* written only in full mode, and restored before returning */
    return check_model((olg_model *)cm, o, diags);
  olg_model *inlined;
  olg_node failed = {0};
  if ((s = olg__inline_copy(cm, &inlined, &failed))) {
    if (s != OLG_ERR_INVALID_MODEL && s != OLG_ERR_UNSUPPORTED) return s;
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", olg_last_error());
    if (diags)
      olg_diags_add(diags, OLG_ERROR, "OLG-CHECK-FUNCTION", failed.name, failed.domain, failed.op,
                    -1, msg);
    return olg__err(OLG_ERR_INVALID_MODEL, "the model is not valid: %s", msg);
  }
  s = check_model(inlined, o, diags);
  olg_model_free(inlined);
  return s;
}

static olg_status check_model(olg_model *m, olg_check_options o, olg_diags *diags) {
  olg_status s;
  olg_diags *own = NULL;
  if (!diags) {
    /* the verdict needs what inference reports too: collect it privately */
    if ((s = olg_diags_new(&own, &m->alloc))) return s;
    diags = own;
  }
  ck c = {m, diags, o.full != 0, o.allow_unlowered != 0, o.notes != 0, o.strict != 0,
          o.max_errors, 0, OLG_OK, false, false, NULL, NULL};
  snapshot sn;
  if (c.full && (s = snapshot_take(m, &sn))) {
    olg_diags_free(own);
    return s;
  }
  check_model_header(&c);
  if (!c.stop && (s = olg__iscopes_new(&m->alloc, &c.isc))) {
    c.fatal = s;
    c.stop = true;
  }
  if (!c.stop) check_graph(&c, m->graph, NULL, true);
  olg__iscopes_free(c.isc);
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
