/* onnxlegal — nodes of the IR and their building API: begin, arguments, attributes, end
 * (graph_impl.h). */
#include <stdio.h>
#include <string.h>

#include "graph_impl.h"
#include "onnxlegal/config.h"
#include "schema.h"

/* ---------------------------------------------------------------------------------------- */
/* Nodes */

/* The node's fields once its name nm (in the arena, or "") is g's: node_names done. */
static olg_node_id node_push(olg_graph *g, const char *d, const char *o, const char *nm) {
  olg_node *nd = &g->nodes[g->n_nodes];
  memset(nd, 0, sizeof *nd);
  nd->domain = d;
  nd->op = o;
  nd->name = nm;
  nd->state = OLG_NODE_OPEN;
  return (olg_node_id)g->n_nodes++;
}

/* The default domain is the literal "", not a copy per node. */
static const char *domain_dup(olg_model *m, const char *domain) {
  return !domain || !*domain ? "" : olg__strdup(m, domain);
}

/* An ONNX op's name is the schema tables' static copy, not a copy per node. */
static const char *op_dup(olg_model *m, const char *domain, const char *op) {
#ifndef OLG_CONFIG_NO_CHECK
  const char *k = olg__schema_op_static(domain ? domain : "", op);
  if (k) return k;
#else
  (void)domain;
#endif
  return olg__strdup(m, op);
}

/* Room for one more node, and its domain and op as the graph keeps them. */
static olg_status node_room(olg_graph *g, const char *domain, const char *op, const char **d,
                            const char **o) {
  olg_model *m = g->model;
  olg_status s = olg__grow(&m->alloc, (void **)&g->nodes, &g->cap_nodes, (size_t)g->n_nodes + 1,
                           sizeof *g->nodes);
  if (s) return s;
  *d = domain_dup(m, domain);
  *o = op_dup(m, domain, op);
  return *d && *o ? OLG_OK : OLG_ERR_NOMEM;
}

OLG_API olg_status olg_node_begin(olg_graph *g, const char *domain, const char *op,
                                  const char *name, olg_node_id *out) {
  if (!g || !op || !*op || !out)
    return olg__err(OLG_ERR_INVALID_ARG, "olg_node_begin: a graph, an op name and out are required");
  olg_model *m = g->model;
  const char *d, *o;
  olg_status s = node_room(g, domain, op, &d, &o);
  if (s) return s;
  /* no name is the literal "", not a copy per node (as the default domain) */
  const char *nm = name && *name ? olg__strdup(m, name) : "";
  if (!nm) return OLG_ERR_NOMEM;
  if (*nm) {
    size_t nl = SIZE_MAX;
    uint32_t h = olg__name_hash(nm, &nl);
    /* a name another node has already stays that node's (names may repeat) */
    if (!olg__g_node_name_taken(g, nm, nl, h) && (s = olg__g_node_name_put(g, nm, nl, h)))
      return s;
  }
  *out = node_push(g, d, o, nm);
  return OLG_OK;
}

#ifndef OLG_CONFIG_NO_LEGALIZE /* the lowering's alone: the minimal configuration's 64 KiB */
olg_status olg__node_begin_fresh(olg_graph *g, const char *domain, const char *op,
                                 const char *want, olg_node_id *out) {
  const char *d, *o;
  olg_status s = node_room(g, domain, op, &d, &o);
  if (s) return s;
  /* last: nothing can fail once the name is the next node's */
  const char *nm = NULL;
  if ((s = olg__graph_claim_node_name(g, want, &nm))) return s;
  *out = node_push(g, d, o, nm);
  return OLG_OK;
}
#endif

static olg_node *open_node(olg_graph *g, olg_node_id n) {
  olg_node *nd = olg__node(g, n);
  if (nd && nd->state != OLG_NODE_OPEN) {
    olg__err(OLG_ERR_STATE, "node %d (%s '%s') is already closed", (int)n, nd->op, nd->name);
    return NULL;
  }
  return nd;
}

/* Whether nd's arguments are the array noted last (grown_find's first look, arena_grow's answer)
 * with room left: the usual case of a node's arguments added one after another. */
static inline bool args_have_room(const olg_model *m, const olg_node *nd) {
  const struct olg_grown *e = &m->grown[(m->grown_next - 1) % (sizeof m->grown / sizeof *m->grown)];
  return nd->args && e->p == nd->args && e->cap > nd->n_args;
}

/* The entry of m->grown for the array at p, or NULL (the array is then taken as full). */
static struct olg_grown *grown_find(olg_model *m, const void *p) {
  if (!p) return NULL;
  /* newest first: the array being appended to is mostly the one noted last */
  const uint32_t n = sizeof m->grown / sizeof *m->grown;
  for (uint32_t i = 0, k = m->grown_next + n - 1; i < n; i++, k--)
    if (m->grown[k % n].p == p) return &m->grown[k % n];
  return NULL;
}

/* Notes that the array at p has room for cap elements, in e (the entry of the array it
 * replaces) or in the oldest entry. */
static void grown_note(olg_model *m, struct olg_grown *e, const void *p, uint32_t cap) {
  if (!e) e = &m->grown[m->grown_next++ % (sizeof m->grown / sizeof *m->grown)];
  e->p = p;
  e->cap = cap;
}

/* Arrays of a node grow in the arena: in place while the array is the arena's latest block (a
 * node's arguments are mostly added one after another), else into a new block, the old one
 * abandoned, which doubles at most the memory of the final array. Two to start with: most
 * nodes take one or two (four was half unused on a million emitted nodes). The node holds the
 * count n alone; the room is m->grown's (olg_model), n when it is not there. */
static olg_status arena_grow(olg_model *m, void **pp, uint32_t n, size_t elem) {
  struct olg_grown *e = grown_find(m, *pp);
  uint32_t cap = e && e->cap > n ? e->cap : n;
  if (n < cap) return OLG_OK;
  uint32_t nc = cap ? cap * 2 : 2;
  if (!(cap && olg_arena_extend(&m->arena, *pp, (size_t)cap * elem, (size_t)nc * elem))) {
    void *q = olg__arena_alloc(m, (size_t)nc * elem);
    if (!q) return OLG_ERR_NOMEM;
    if (n) memcpy(q, *pp, (size_t)n * elem);
    *pp = q;
  }
  grown_note(m, e, *pp, nc);
  return OLG_OK;
}

#ifndef OLG_CONFIG_NO_LEGALIZE /* the lowering's alone */
olg_status olg__node_reserve_args(olg_graph *g, olg_node_id n, uint32_t count) {
  olg_node *nd = open_node(g, n);
  if (!nd) return OLG_ERR_STATE;
  if (nd->args || !count) return OLG_OK;
  /* exactly: a node that knows its count takes one block (arena_grow may double past it) */
  if (!(nd->args = olg__arena_alloc(g->model, (size_t)count * sizeof *nd->args))) return OLG_ERR_NOMEM;
  grown_note(g->model, NULL, nd->args, count);
  return OLG_OK;
}
#endif

olg_status olg__node_add_arg(olg_graph *g, olg_node_id n, const olg_arg *a) {
  olg_node *nd = open_node(g, n);
  if (!nd) return OLG_ERR_STATE;
  if (args_have_room(g->model, nd)) {
    nd->args[nd->n_args++] = *a;
    return OLG_OK;
  }
  olg_status s = arena_grow(g->model, (void **)&nd->args, nd->n_args, sizeof *nd->args);
  if (s) return s;
  nd->args[nd->n_args++] = *a;
  return OLG_OK;
}

/* Literal and list arguments are for source-framework nodes (aten, a caller's domain): a node of
 * a domain ONNX defines (the default domain, ai.onnx.ml) takes values only, so the writer, check
 * and legalize would each refuse it later; refused here, when the caller can still see where. */
#ifdef OLG_CONFIG_NO_CHECK
/* Built without the schema tables (onnxlegal/config.h): the domains they hold, by name. */
static bool onnx_domain(const char *d) {
  static const char *const known[] = {"", "ai.onnx", "ai.onnx.ml", "ai.onnx.preview",
                                      "ai.onnx.preview.training"};
  for (size_t i = 0; i < sizeof known / sizeof *known; i++)
    if (strcmp(d, known[i]) == 0) return true;
  return false;
}
#else
#define onnx_domain(d) (olg_schema_domain_find(d) != NULL)
#endif

static olg_status onnx_takes_values_only(olg_graph *g, olg_node_id n, const char *what) {
  const olg_node *nd = g ? olg__node(g, n) : NULL;
  if (!nd || !onnx_domain(nd->domain)) return OLG_OK; /* the add says what is wrong */
  return olg__err(OLG_ERR_TYPE,
                  "node '%s' (%s%s%s): an ONNX node takes values only, not %s (a list of values "
                  "is one argument per value; a literal is an attribute)",
                  nd->name, *nd->domain ? nd->domain : "", *nd->domain ? "::" : "", nd->op, what);
}

/* An argument holds a 32-bit length (lib/ir.h): a longer list or string is refused here, where
 * the caller can see which, rather than truncated. */
static olg_status arg_too_long(size_t len, const char *fn) {
  return olg__err(OLG_ERR_LIMIT, "%s: %zu elements, more than an argument holds (%lu)", fn, len,
                  (unsigned long)OLG_ARG_MAX_LEN);
}

#ifndef OLG_CONFIG_NO_LEGALIZE /* the lowering's alone: the minimal configuration's 64 KiB */
olg_status olg__node_add_value(olg_graph *g, olg_node_id n, olg_value v) {
  /* olg__node_add_arg's first case without the two calls; the rest as the API does */
  if (v >= 0 && (uint32_t)v < g->n_values && n >= 0 && (uint32_t)n < g->n_nodes) {
    olg_node *nd = &g->nodes[n];
    if (nd->state == OLG_NODE_OPEN && args_have_room(g->model, nd)) {
      nd->args[nd->n_args++] = (olg_arg){.kind = OLG_ARG_VALUE, .u.v = v};
      return OLG_OK;
    }
  }
  return olg_node_arg_value(g, n, v);
}
#endif

OLG_API olg_status olg_node_arg_value(olg_graph *g, olg_node_id n, olg_value v) {
  if (v == OLG_NO_VALUE) return olg_node_arg_none(g, n);
  if (!olg__value(g, v)) return OLG_ERR_INVALID_ARG;
  olg_arg a = {.kind = OLG_ARG_VALUE, .u.v = v};
  return olg__node_add_arg(g, n, &a);
}

OLG_API olg_status olg_node_arg_values(olg_graph *g, olg_node_id n, const olg_value *v, size_t len) {
  olg_status refused = onnx_takes_values_only(g, n, "a list of values");
  if (refused) return refused;
  if (len && !v) return olg__err(OLG_ERR_INVALID_ARG, "olg_node_arg_values: values is NULL");
  if (len > OLG_ARG_MAX_LEN) return arg_too_long(len, "olg_node_arg_values");
  for (size_t i = 0; i < len; i++)
    if (v[i] != OLG_NO_VALUE && !olg__value(g, v[i])) return OLG_ERR_INVALID_ARG;
  olg_value *p = len ? olg__arena_dup(g->model, v, len * sizeof *v) : NULL;
  if (len && !p) return OLG_ERR_NOMEM;
  olg_arg a = {.kind = OLG_ARG_VALUES, .n = (uint32_t)len, .u.vals = p};
  return olg__node_add_arg(g, n, &a);
}

OLG_API olg_status olg_node_arg_none(olg_graph *g, olg_node_id n) {
  olg_arg a = {.kind = OLG_ARG_NONE};
  return olg__node_add_arg(g, n, &a);
}

OLG_API olg_status olg_node_arg_int(olg_graph *g, olg_node_id n, int64_t v) {
  olg_status refused = onnx_takes_values_only(g, n, "an int literal");
  if (refused) return refused;
  olg_arg a = {.kind = OLG_ARG_INT, .u.i = v};
  return olg__node_add_arg(g, n, &a);
}

OLG_API olg_status olg_node_arg_float(olg_graph *g, olg_node_id n, double v) {
  olg_status refused = onnx_takes_values_only(g, n, "a float literal");
  if (refused) return refused;
  olg_arg a = {.kind = OLG_ARG_FLOAT, .u.f = v};
  return olg__node_add_arg(g, n, &a);
}

OLG_API olg_status olg_node_arg_bool(olg_graph *g, olg_node_id n, int v) {
  olg_status refused = onnx_takes_values_only(g, n, "a bool literal");
  if (refused) return refused;
  olg_arg a = {.kind = OLG_ARG_BOOL, .u.i = v != 0};
  return olg__node_add_arg(g, n, &a);
}

OLG_API olg_status olg_node_arg_string(olg_graph *g, olg_node_id n, const char *s) {
  olg_status refused = onnx_takes_values_only(g, n, "a string literal");
  if (refused) return refused;
  if (!g || !s) return olg__err(OLG_ERR_INVALID_ARG, "olg_node_arg_string: NULL argument");
  size_t len = strlen(s);
  if (len > OLG_ARG_MAX_LEN) return arg_too_long(len, "olg_node_arg_string");
  const char *p = olg__strndup(g->model, s, len);
  if (!p) return OLG_ERR_NOMEM;
  olg_arg a = {.kind = OLG_ARG_STRING, .n = (uint32_t)len, .u.s = p};
  return olg__node_add_arg(g, n, &a);
}

OLG_API olg_status olg_node_arg_ints(olg_graph *g, olg_node_id n, const int64_t *v, size_t len) {
  olg_status refused = onnx_takes_values_only(g, n, "a list of ints");
  if (refused) return refused;
  if (!g || (len && !v)) return olg__err(OLG_ERR_INVALID_ARG, "olg_node_arg_ints: NULL argument");
  if (len > OLG_ARG_MAX_LEN) return arg_too_long(len, "olg_node_arg_ints");
  int64_t *p = len ? olg__arena_dup(g->model, v, len * sizeof *v) : NULL;
  if (len && !p) return OLG_ERR_NOMEM;
  olg_arg a = {.kind = OLG_ARG_INTS, .n = (uint32_t)len, .u.ints = p};
  return olg__node_add_arg(g, n, &a);
}

OLG_API olg_status olg_node_arg_floats(olg_graph *g, olg_node_id n, const double *v, size_t len) {
  olg_status refused = onnx_takes_values_only(g, n, "a list of floats");
  if (refused) return refused;
  if (!g || (len && !v)) return olg__err(OLG_ERR_INVALID_ARG, "olg_node_arg_floats: NULL argument");
  if (len > OLG_ARG_MAX_LEN) return arg_too_long(len, "olg_node_arg_floats");
  double *p = len ? olg__arena_dup(g->model, v, len * sizeof *v) : NULL;
  if (len && !p) return OLG_ERR_NOMEM;
  olg_arg a = {.kind = OLG_ARG_FLOATS, .n = (uint32_t)len, .u.floats = p};
  return olg__node_add_arg(g, n, &a);
}

const olg_attr *olg__node_attr(const olg_node *node, const char *name) {
  for (uint32_t i = 0; i < node->n_attrs; i++)
    if (strcmp(node->attrs[i].name, name) == 0) return &node->attrs[i];
  return NULL;
}

olg_status olg__node_add_attr(olg_graph *g, olg_node_id n, const olg_attr *a) {
  olg_node *nd = olg__node(g, n);
  if (!nd) return OLG_ERR_INVALID_ARG;
  if (nd->state == OLG_NODE_DEAD) return olg__err(OLG_ERR_STATE, "node %d is removed", (int)n);
  if (nd->n_attrs >= OLG_NODE_MAX_ATTRS)
    return olg__err(OLG_ERR_LIMIT, "node '%s' (%s): more than %u attributes", nd->name, nd->op,
                    OLG_NODE_MAX_ATTRS);
  olg_status s = arena_grow(g->model, (void **)&nd->attrs, nd->n_attrs, sizeof *nd->attrs);
  if (s) return s;
  nd->attrs[nd->n_attrs++] = *a;
  return OLG_OK;
}

/* Starts a public attribute: checks the node and name, copies the name. */
static olg_status attr_start(olg_graph *g, olg_node_id n, const char *name, uint8_t type, olg_attr *a) {
  olg_node *nd = olg__node(g, n);
  if (!nd) return OLG_ERR_INVALID_ARG;
  if (!name || !*name) return olg__err(OLG_ERR_INVALID_ARG, "node '%s' (%s): attribute name is empty", nd->name, nd->op);
  if (olg__node_attr(nd, name))
    return olg__err(OLG_ERR_DUPLICATE, "node '%s' (%s): attribute '%s' is already set", nd->name, nd->op, name);
  memset(a, 0, sizeof *a);
  a->type = type;
  a->name = olg__strdup(g->model, name);
  return a->name ? OLG_OK : OLG_ERR_NOMEM;
}

OLG_API olg_status olg_node_attr_int(olg_graph *g, olg_node_id n, const char *name, int64_t v) {
  olg_attr a;
  olg_status s = attr_start(g, n, name, OLG_ATTR_INT, &a);
  if (s) return s;
  a.i = v;
  return olg__node_add_attr(g, n, &a);
}

OLG_API olg_status olg_node_attr_float(olg_graph *g, olg_node_id n, const char *name, float v) {
  olg_attr a;
  olg_status s = attr_start(g, n, name, OLG_ATTR_FLOAT, &a);
  if (s) return s;
  a.f = v;
  return olg__node_add_attr(g, n, &a);
}

OLG_API olg_status olg_node_attr_bytes(olg_graph *g, olg_node_id n, const char *name,
                                       const void *p, size_t len) {
  if (len && !p) return olg__err(OLG_ERR_INVALID_ARG, "olg_node_attr_bytes: data is NULL");
  olg_attr a;
  olg_status s = attr_start(g, n, name, OLG_ATTR_STRING, &a);
  if (s) return s;
  a.s.p = olg__strndup(g->model, p ? p : "", len);
  a.s.n = len;
  if (!a.s.p) return OLG_ERR_NOMEM;
  return olg__node_add_attr(g, n, &a);
}

OLG_API olg_status olg_node_attr_string(olg_graph *g, olg_node_id n, const char *name, const char *str) {
  if (!str) return olg__err(OLG_ERR_INVALID_ARG, "olg_node_attr_string: string is NULL");
  return olg_node_attr_bytes(g, n, name, str, strlen(str));
}

OLG_API olg_status olg_node_attr_ints(olg_graph *g, olg_node_id n, const char *name,
                                      const int64_t *v, size_t len) {
  if (len && !v) return olg__err(OLG_ERR_INVALID_ARG, "olg_node_attr_ints: values is NULL");
  olg_attr a;
  olg_status s = attr_start(g, n, name, OLG_ATTR_INTS, &a);
  if (s) return s;
  a.n = len;
  a.ints = len ? olg__arena_dup(g->model, v, len * sizeof *v) : NULL;
  if (len && !a.ints) return OLG_ERR_NOMEM;
  return olg__node_add_attr(g, n, &a);
}

OLG_API olg_status olg_node_attr_floats(olg_graph *g, olg_node_id n, const char *name,
                                        const float *v, size_t len) {
  if (len && !v) return olg__err(OLG_ERR_INVALID_ARG, "olg_node_attr_floats: values is NULL");
  olg_attr a;
  olg_status s = attr_start(g, n, name, OLG_ATTR_FLOATS, &a);
  if (s) return s;
  a.n = len;
  a.floats = len ? olg__arena_dup(g->model, v, len * sizeof *v) : NULL;
  if (len && !a.floats) return OLG_ERR_NOMEM;
  return olg__node_add_attr(g, n, &a);
}

OLG_API olg_status olg_node_attr_strings(olg_graph *g, olg_node_id n, const char *name,
                                         const char *const *v, size_t len) {
  if (len && !v) return olg__err(OLG_ERR_INVALID_ARG, "olg_node_attr_strings: values is NULL");
  olg_attr a;
  olg_status s = attr_start(g, n, name, OLG_ATTR_STRINGS, &a);
  if (s) return s;
  olg_bytes *b = len ? olg__arena_alloc(g->model, len * sizeof *b) : NULL;
  if (len && !b) return OLG_ERR_NOMEM;
  for (size_t i = 0; i < len; i++) {
    if (!v[i]) return olg__err(OLG_ERR_INVALID_ARG, "olg_node_attr_strings: string %zu is NULL", i);
    b[i].n = strlen(v[i]);
    b[i].p = olg__strndup(g->model, v[i], b[i].n);
    if (!b[i].p) return OLG_ERR_NOMEM;
  }
  a.n = len;
  a.strings = b;
  return olg__node_add_attr(g, n, &a);
}

OLG_API olg_status olg_node_attr_tensor(olg_graph *g, olg_node_id n, const char *name,
                                        olg_dtype dtype, int32_t rank, const int64_t *dims,
                                        const void *data, size_t nbytes) {
  olg_attr a;
  olg_status s = attr_start(g, n, name, OLG_ATTR_TENSOR, &a);
  if (s) return s;
  s = olg__tensor_new(g->model, NULL, dtype, rank, dims, data, nbytes, OLG_DATA_COPY, NULL, NULL, &a.t);
  if (s) return s;
  return olg__node_add_attr(g, n, &a);
}

static olg_status check_subgraph(olg_graph *g, olg_graph *sub) {
  if (!sub || sub->model != g->model)
    return olg__err(OLG_ERR_INVALID_ARG, "subgraph is NULL or belongs to another model");
  if (sub == g->model->graph || sub->attached)
    return olg__err(OLG_ERR_STATE, "graph '%s' is the main graph or is already attached", sub->name);
  for (olg_graph *p = g; p; p = p->parent)
    if (p == sub) return olg__err(OLG_ERR_INVALID_ARG, "graph '%s' would contain itself", sub->name);
  return OLG_OK;
}

OLG_API olg_status olg_node_attr_graph(olg_graph *g, olg_node_id n, const char *name, olg_graph *sub) {
  if (!g) return olg__err(OLG_ERR_INVALID_ARG, "olg_node_attr_graph: graph is NULL");
  olg_status s = check_subgraph(g, sub);
  if (s) return s;
  olg_attr a;
  s = attr_start(g, n, name, OLG_ATTR_GRAPH, &a);
  if (s) return s;
  a.g = sub;
  s = olg__node_add_attr(g, n, &a);
  if (s) return s;
  sub->attached = true;
  sub->parent = g;
  return OLG_OK;
}

OLG_API olg_status olg_node_attr_graphs(olg_graph *g, olg_node_id n, const char *name,
                                        olg_graph *const *subs, size_t len) {
  if (!g || (len && !subs)) return olg__err(OLG_ERR_INVALID_ARG, "olg_node_attr_graphs: NULL argument");
  for (size_t i = 0; i < len; i++) {
    olg_status s = check_subgraph(g, subs[i]);
    if (s) return s;
    for (size_t j = 0; j < i; j++)
      if (subs[j] == subs[i]) return olg__err(OLG_ERR_INVALID_ARG, "a subgraph is listed twice");
  }
  olg_attr a;
  olg_status s = attr_start(g, n, name, OLG_ATTR_GRAPHS, &a);
  if (s) return s;
  olg_graph **p = len ? olg__arena_dup(g->model, subs, len * sizeof *subs) : NULL;
  if (len && !p) return OLG_ERR_NOMEM;
  a.n = len;
  a.graphs = p;
  s = olg__node_add_attr(g, n, &a);
  if (s) return s;
  for (size_t i = 0; i < len; i++) {
    subs[i]->attached = true;
    subs[i]->parent = g;
  }
  return OLG_OK;
}

static olg_status node_close(olg_graph *g, olg_node_id n, olg_node *nd, size_t n_out,
                             const char *const *names, const olg_value *existing, olg_value *outs) {
  olg_model *m = g->model;
  if (n_out > OLG_NODE_MAX_OUTPUTS)
    return olg__err(OLG_ERR_LIMIT, "node '%s' (%s): %zu outputs, more than %u", nd->name, nd->op,
                    n_out, OLG_NODE_MAX_OUTPUTS);
  olg_value *o = n_out ? olg__arena_alloc(m, n_out * sizeof *o) : NULL;
  if (n_out && !o) return OLG_ERR_NOMEM;
  /* Validate everything before changing anything, so a failure leaves the node open. */
  if (existing) {
    for (size_t i = 0; i < n_out; i++) {
      if (existing[i] == OLG_NO_VALUE) continue;
      const olg_value_rec *r = olg__value(g, existing[i]);
      if (!r) return OLG_ERR_INVALID_ARG;
      if (r->producer >= 0 || (r->flags & (OLG_VF_INPUT | OLG_VF_INITIALIZER)))
        return olg__err(OLG_ERR_DUPLICATE, "node '%s' (%s): value '%s' is already defined",
                        nd->name, nd->op, r->name);
    }
    memcpy(o, existing, n_out * sizeof *o);
  } else {
    uint32_t first = g->n_values;
    for (size_t i = 0; i < n_out; i++) {
      const char *nm = names ? names[i] : NULL;
      if (nm && !*nm) {
        o[i] = OLG_NO_VALUE;
        continue;
      }
      olg_status s;
      if (nm) {
        s = olg__graph_add_value(g, nm, false, &o[i]);
      } else {
        s = olg__graph_add_value_auto(g, *nd->name ? nd->name : nd->op, &o[i]);
      }
      if (s) {
        while (g->n_values > first) olg__g_graph_pop_value(g);
        return s;
      }
    }
  }
  for (size_t i = 0; i < n_out; i++) {
    if (o[i] == OLG_NO_VALUE) continue;
    g->values[o[i]].producer = n;
  }
  nd->outputs = o;
  nd->n_outputs = n_out & OLG_NODE_MAX_OUTPUTS; /* checked above */
  nd->state = OLG_NODE_DONE;
  if (outs && n_out) memcpy(outs, o, n_out * sizeof *o);
  return OLG_OK;
}

OLG_API olg_status olg_node_end(olg_graph *g, olg_node_id n, size_t n_out,
                                const char *const *names, olg_value *outs) {
  olg_node *nd = open_node(g, n);
  if (!nd) return OLG_ERR_STATE;
  return node_close(g, n, nd, n_out, names, NULL, outs);
}

OLG_API olg_status olg_node_end_with(olg_graph *g, olg_node_id n, size_t n_out,
                                     const olg_value *outs) {
  olg_node *nd = open_node(g, n);
  if (!nd) return OLG_ERR_STATE;
  if (n_out && !outs) return olg__err(OLG_ERR_INVALID_ARG, "olg_node_end_with: outs is NULL");
  return node_close(g, n, nd, n_out, NULL, outs, NULL);
}

OLG_API const char *olg_node_domain(const olg_graph *g, olg_node_id n) {
  const olg_node *nd = olg__node(g, n);
  return nd ? nd->domain : NULL;
}
OLG_API const char *olg_node_op(const olg_graph *g, olg_node_id n) {
  const olg_node *nd = olg__node(g, n);
  return nd ? nd->op : NULL;
}
OLG_API const char *olg_node_name(const olg_graph *g, olg_node_id n) {
  const olg_node *nd = olg__node(g, n);
  return nd ? nd->name : NULL;
}
OLG_API size_t olg_node_input_count(const olg_graph *g, olg_node_id n) {
  const olg_node *nd = olg__node(g, n);
  return nd ? nd->n_args : 0;
}
OLG_API olg_value olg_node_input_at(const olg_graph *g, olg_node_id n, size_t i) {
  const olg_node *nd = olg__node(g, n);
  return nd && i < nd->n_args && nd->args[i].kind == OLG_ARG_VALUE ? nd->args[i].u.v : OLG_NO_VALUE;
}
OLG_API size_t olg_node_output_count(const olg_graph *g, olg_node_id n) {
  const olg_node *nd = olg__node(g, n);
  return nd ? nd->n_outputs : 0;
}
OLG_API olg_value olg_node_output_at(const olg_graph *g, olg_node_id n, size_t i) {
  const olg_node *nd = olg__node(g, n);
  return nd && i < nd->n_outputs ? nd->outputs[i] : OLG_NO_VALUE;
}
OLG_API size_t olg_node_attr_count(const olg_graph *g, olg_node_id n) {
  const olg_node *nd = olg__node(g, n);
  return nd ? nd->n_attrs : 0;
}
OLG_API const char *olg_node_attr_name(const olg_graph *g, olg_node_id n, size_t i) {
  const olg_node *nd = olg__node(g, n);
  return nd && i < nd->n_attrs ? nd->attrs[i].name : NULL;
}
