/* onnxlegal — inlining the model-local functions (FunctionProto; the API that adds them is in
 * function.c).
 *
 * Inlining builds a graph anew from a source graph, node by node; a node that calls a function
 * of the model (same domain, name and overload) is replaced by the function's body: its values
 * renamed under the call's name ("mlp1/MatMul_out"), its formal inputs bound to the call's
 * arguments and its formal outputs to the call's outputs, its attribute references
 * (ref_attr_name) bound to the call's attributes or the function's defaults (or dropped, as
 * ONNX says, when neither has one), and calls in the body expanded the same way. Value ids of
 * the source graph are kept (its values are copied first, in order), so the copy's inputs,
 * outputs and initializers are the source's; tensors, types and strings are borrowed. Subgraphs
 * of the main graph are copied the same way, so calls inside them are expanded too. Everything is
 * linear in the size of the result. Refused, with the function named: recursion, a function
 * that imports a domain at another version than the model, a body that reads a name it does not
 * define. A subgraph inside a body (an If, Loop or Scan of the body) is copied at each call
 * with its own names under the call's prefix too ("mlp1/then_out"), its reads of the body's
 * names following their renaming (to the call's arguments and outputs), its attribute
 * references bound and its calls expanded. */
#include <stdio.h>
#include <string.h>

#include "graph_impl.h"

/* ---------------------------------------------------------------------------------------- */
/* Inlining */

#define MAX_CALL_DEPTH 64 /* nested calls; deeper is refused (no input exhausts the stack) */
#define UNSET ((olg_value)-2)

typedef struct inliner {
  const olg_model *fm; /* whose functions are called */
  olg_model *dm;       /* where the result is built */
  const olg_function *stack[MAX_CALL_DEPTH];
  int depth;
  const olg_node *failed; /* the call whose expansion failed */
  olg_namemap by_key;     /* "domain\x1fname\x1foverload" -> function index: one probe a node */
  bool long_keys;         /* a function's key is too long for the map: a miss is scanned too */
  const olg_graph *keep_in;     /* keep_as[i]: node i of this graph is a call kept as it is, */
  const char *const *keep_as;   /* calling the function of that name (function_keep.c) */
  bool inits_as_constants;      /* the top graph's initializers become Constant nodes */
} inliner;

/* The lookup key of (domain, name, overload) in buf; false when it does not fit. */
static bool call_key(char *buf, size_t cap, const char *domain, const char *name,
                     const char *overload) {
  int n = snprintf(buf, cap, "%s\x1f%s\x1f%s", domain, name, overload ? overload : "");
  return n >= 0 && (size_t)n < cap;
}

static olg_status inliner_init(inliner *x, const olg_model *fm, olg_model *dm) {
  *x = (inliner){fm, dm, {0}, 0, NULL, {0}, false, NULL, NULL, false};
  for (uint32_t i = 0; i < fm->n_functions; i++) {
    const olg_function *fn = &fm->functions[i];
    char key[1024];
    if (!call_key(key, sizeof key, fn->domain, fn->name, fn->overload)) {
      x->long_keys = true; /* found by a scan */
      continue;
    }
    if (olg__g_namemap_get(&x->by_key, key) >= 0) continue; /* the first of a key is called */
    const char *k = olg__strdup(dm, key);
    olg_status s = k ? olg__g_namemap_put(&dm->alloc, &x->by_key, k, (int32_t)i) : OLG_ERR_NOMEM;
    if (s) return s;
  }
  return OLG_OK;
}

static const olg_function *callee(const inliner *x, const olg_node *nd) {
  if (!x->fm->n_functions) return NULL;
  char key[1024];
  if (!call_key(key, sizeof key, nd->domain, nd->op, olg__node_overload(nd)))
    return olg__find_function(x->fm, nd->domain, nd->op, olg__node_overload(nd));
  int32_t i = olg__g_namemap_get(&x->by_key, key);
  if (i >= 0) return &x->fm->functions[i];
  return x->long_keys ? olg__find_function(x->fm, nd->domain, nd->op, olg__node_overload(nd))
                      : NULL;
}

static const char *join(olg_model *m, const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  char *p = olg__arena_alloc(m, la + lb + 2);
  if (!p) return NULL;
  memcpy(p, a, la);
  p[la] = '/';
  memcpy(p + la + 1, b, lb + 1);
  return p;
}

/* Appends a finished node to g (its arrays already in the model's arena). */
static olg_status push_node(olg_graph *g, const olg_node *proto, olg_node_id *out) {
  olg_model *m = g->model;
  olg_status s = olg__grow(&m->alloc, (void **)&g->nodes, &g->cap_nodes, (size_t)g->n_nodes + 1,
                           sizeof *g->nodes);
  if (s) return s;
  olg_node_id id = (olg_node_id)g->n_nodes;
  if (proto->name && *proto->name) {
    size_t n = SIZE_MAX;
    uint32_t h = olg__name_hash(proto->name, &n);
    if (!olg__g_node_name_taken(g, proto->name, n, h) &&
        (s = olg__g_node_name_put(g, proto->name, n, h)))
      return s;
  }
  g->nodes[g->n_nodes++] = *proto;
  for (uint32_t i = 0; i < proto->n_outputs; i++) {
    olg_value v = proto->outputs[i];
    if (v < 0) continue;
    g->values[v].producer = id;
  }
  if (out) *out = id;
  return OLG_OK;
}

static olg_status copy_graph(inliner *x, const olg_graph *sg, olg_graph *dg, int depth);

/* dg's input, output and value_info lists and its next automatic name from sg's (the values
 * keep their ids). */
static olg_status copy_graph_lists(olg_model *m, const olg_graph *sg, olg_graph *dg) {
  olg_status s;
  const olg_idvec *from[3] = {&sg->inputs, &sg->outputs, &sg->value_info};
  olg_idvec *to[3] = {&dg->inputs, &dg->outputs, &dg->value_info};
  for (int l = 0; l < 3; l++)
    for (uint32_t i = 0; i < from[l]->n; i++)
      if ((s = olg__idvec_push(m, to[l], from[l]->p[i]))) return s;
  dg->next_auto = sg->next_auto;
  return OLG_OK;
}

/* The node's attributes with each subgraph copied (and its calls expanded) into x->dm. */
static olg_status copy_subgraph_attrs(inliner *x, olg_graph *dg, olg_node *nd, int depth) {
  bool any = false;
  for (uint32_t i = 0; i < nd->n_attrs && !any; i++)
    any = nd->attrs[i].type == OLG_ATTR_GRAPH || nd->attrs[i].type == OLG_ATTR_GRAPHS;
  if (!any) return OLG_OK;
  olg_attr *attrs = olg__arena_dup(x->dm, nd->attrs, nd->n_attrs * sizeof *attrs);
  if (!attrs) return OLG_ERR_NOMEM;
  for (uint32_t i = 0; i < nd->n_attrs; i++) {
    olg_attr *a = &attrs[i];
    size_t n = a->type == OLG_ATTR_GRAPH ? 1 : a->type == OLG_ATTR_GRAPHS ? a->n : 0;
    if (!n || (a->type == OLG_ATTR_GRAPH && !a->g)) continue;
    olg_graph **gs = olg__arena_alloc(x->dm, n * sizeof *gs);
    if (!gs) return OLG_ERR_NOMEM;
    for (size_t k = 0; k < n; k++) {
      const olg_graph *src = a->type == OLG_ATTR_GRAPH ? a->g : a->graphs[k];
      if (!src) continue;
      olg_status s = olg_model_new_subgraph(x->dm, &gs[k]);
      if (s || (s = copy_graph(x, src, gs[k], depth + 1))) return s;
      gs[k]->parent = dg;
      gs[k]->attached = true;
    }
    if (a->type == OLG_ATTR_GRAPH) a->g = gs[0];
    else a->graphs = gs;
  }
  nd->attrs = attrs;
  return OLG_OK;
}

/* Where the names of a body resolve while it is expanded at one call: the body itself (map:
 * body value -> value of the graph the call is expanded into) or, up from it, a subgraph of the
 * body being copied (whose copy keeps its value ids). */
typedef struct body_scope {
  const struct body_scope *up;
  const olg_graph *src;
  olg_graph *dst;
  const olg_value *map; /* the body's scope only */
  const olg_function *fn;
  const olg_attr *ca; /* the call's attributes, already bound */
  uint32_t n_ca;
  const char *prefix;
} body_scope;

static olg_status copy_body_graph(inliner *x, const body_scope *up, const olg_graph *sg,
                                  olg_graph *dg, int depth);

/* The attributes of body node bn, references bound to the call's (already bound) attributes or
 * the function's defaults; a reference to neither is dropped. A subgraph is copied with its
 * names under the call's prefix, its reads of the body's names following their renaming. */
static olg_status bind_attrs(inliner *x, const body_scope *sc, const olg_node *bn, olg_node *out,
                             int depth) {
  const olg_function *fn = sc->fn;
  olg_attr *attrs = bn->n_attrs ? olg__arena_alloc(x->dm, bn->n_attrs * sizeof *attrs) : NULL;
  if (bn->n_attrs && !attrs) return OLG_ERR_NOMEM;
  uint32_t n = 0;
  for (uint32_t i = 0; i < bn->n_attrs; i++) {
    const olg_attr *a = &bn->attrs[i];
    if (a->type == OLG_ATTR_GRAPH || a->type == OLG_ATTR_GRAPHS) {
      size_t k = a->type == OLG_ATTR_GRAPH ? 1 : a->n;
      olg_graph **gs = olg__arena_alloc(x->dm, (k ? k : 1) * sizeof *gs);
      if (!gs) return OLG_ERR_NOMEM;
      attrs[n] = *a;
      for (size_t j = 0; j < k; j++) {
        const olg_graph *src = a->type == OLG_ATTR_GRAPH ? a->g : a->graphs[j];
        if (!src) continue;
        olg_status s = olg_model_new_subgraph(x->dm, &gs[j]);
        if (s || (s = copy_body_graph(x, sc, src, gs[j], depth + 1))) return s;
        gs[j]->parent = sc->dst;
        gs[j]->attached = true;
      }
      if (a->type == OLG_ATTR_GRAPH) attrs[n].g = gs[0];
      else attrs[n].graphs = gs;
      n++;
      continue;
    }
    if (!a->ref_attr_name) {
      attrs[n++] = *a;
      continue;
    }
    const olg_attr *v = NULL;
    for (uint32_t k = 0; k < sc->n_ca && !v; k++)
      if (!strcmp(sc->ca[k].name, a->ref_attr_name)) v = &sc->ca[k];
    for (uint32_t k = 0; k < fn->n_attr_defaults && !v; k++)
      if (!strcmp(fn->attr_defaults[k].name, a->ref_attr_name)) v = &fn->attr_defaults[k];
    if (!v) continue;
    if (a->type != OLG_ATTR_UNDEFINED && v->type != a->type)
      return olg__err(OLG_ERR_INVALID_MODEL, "function %s::%s: node '%s' (%s) takes attribute "
                      "'%s' from the function's '%s', which the call gives with another type",
                      fn->domain, fn->name, bn->name, bn->op, a->name, a->ref_attr_name);
    attrs[n] = *v;
    attrs[n].name = a->name;
    attrs[n].ref_attr_name = NULL;
    n++;
  }
  out->attrs = attrs;
  out->n_attrs = n & OLG_NODE_MAX_ATTRS; /* n <= the body node's own count */
  return OLG_OK;
}

/* The name, in the copy, of what a subgraph of a body reads from outside itself: a name of an
 * enclosing subgraph of the body (as copied) or of the body (as bound at the call). */
static olg_status resolve_outer(const body_scope *sc, const char *name, const char **out) {
  for (const body_scope *s = sc; s; s = s->up) {
    olg_value v = olg__graph_lookup(s->src, name);
    if (v < 0) continue;
    if (s->map) {
      olg_value d = s->map[v];
      if (d == UNSET || d == OLG_NO_VALUE) break;
      *out = s->dst->values[d].name;
      return OLG_OK;
    }
    if (s->src->values[v].flags & OLG_VF_OUTER) continue;
    *out = s->dst->values[v].name;
    return OLG_OK;
  }
  return olg__err(OLG_ERR_INVALID_MODEL, "function %s::%s: a subgraph of its body reads '%s', "
                  "which is not a formal input given by the call nor produced before it",
                  sc->fn->domain, sc->fn->name, name);
}

/* The function's imports must agree with the model's: its body's nodes are read at the
 * model's opsets once inlined. A domain the model lacks is imported at the function's version. */
static olg_status agree_opsets(inliner *x, const olg_function *fn) {
  for (uint32_t i = 0; i < fn->n_opsets; i++) {
    const olg_opset *os = &fn->opsets[i];
    int64_t mv = olg_model_opset(x->dm, os->domain);
    if (mv < 0) {
          olg_status s = olg_model_set_opset(x->dm, os->domain, os->version);
      if (s) return s;
    } else if (mv != os->version) {
      return olg__err(OLG_ERR_UNSUPPORTED, "function %s::%s imports %s at opset %lld and the "
                      "model at %lld: its body cannot be inlined as it is (convert the function "
                      "to the model's opset first)", fn->domain, fn->name,
                      *os->domain ? os->domain : "ai.onnx", (long long)os->version, (long long)mv);
    }
  }
  return OLG_OK;
}

/* A value of dg for body value bv: the call's output it is bound to, else a new value named
 * under the call's prefix. */
static olg_status body_value(olg_graph *dg, const olg_graph *body, olg_value bv,
                             const int32_t *out_slot, const olg_value *outs, uint32_t n_outs,
                             const char *prefix, olg_value *out) {
  int32_t k = out_slot[bv];
  if (k >= 0 && (uint32_t)k < n_outs && outs[k] >= 0) {
    *out = outs[k];
    return OLG_OK;
  }
  const char *want = join(dg->model, prefix, body->values[bv].name);
  if (!want) return OLG_ERR_NOMEM;
  if (olg__graph_lookup(dg, want) >= 0 && !(want = olg__graph_unique_name(dg, want)))
    return OLG_ERR_NOMEM;
  return olg__graph_add_value(dg, want, false, out);
}

static olg_status expand_call(inliner *x, olg_graph *dg, const olg_function *fn,
                              const olg_value *args, uint32_t n_args, const olg_value *outs,
                              uint32_t n_outs, const olg_attr *ca, uint32_t n_ca,
                              const char *prefix);

/* A node of a body (or of a subgraph of it) into dg: its attributes bound (sc), a call in it
 * expanded, else the node appended under the call's prefix. */
static olg_status emit_body_node(inliner *x, olg_graph *dg, const body_scope *sc,
                                 const olg_node *bn, olg_node *nd, int depth) {
  olg_model *m = x->dm;
  olg_status s = bind_attrs(x, sc, bn, nd, depth);
  if (s) return s;
  const char *local = *bn->name ? bn->name : bn->op;
  const char *name = join(m, sc->prefix, local);
  if (!name) return OLG_ERR_NOMEM;
  const olg_function *inner = callee(x, bn);
  if (inner) {
    olg_value *iargs = olg__arena_alloc(m, (nd->n_args ? nd->n_args : 1) * sizeof *iargs);
    if (!iargs) return OLG_ERR_NOMEM;
    for (uint32_t i = 0; i < nd->n_args; i++)
      iargs[i] = nd->args[i].kind == OLG_ARG_VALUE ? nd->args[i].u.v : OLG_NO_VALUE;
    return expand_call(x, dg, inner, iargs, nd->n_args, nd->outputs, nd->n_outputs, nd->attrs,
                       nd->n_attrs, name);
  }
  if (!(nd->name = olg__graph_fresh_node_name(dg, name))) return OLG_ERR_NOMEM;
  nd->state = OLG_NODE_DONE;
  return push_node(dg, nd, NULL);
}

/* Expands body node bn of the function (its arguments and outputs mapped through sc->map). */
static olg_status expand_body_node(inliner *x, olg_graph *dg, const body_scope *sc,
                                   const olg_node *bn, olg_value *map, const int32_t *out_slot,
                                   const olg_value *outs, uint32_t n_outs) {
  const olg_function *fn = sc->fn;
  const olg_graph *body = fn->body;
  olg_model *m = x->dm;
  olg_node nd = *bn;
  olg_status ds = olg__node_drop_extra(m, &nd);
  if (ds) return ds;
  nd.args = bn->n_args ? olg__arena_alloc(m, bn->n_args * sizeof *nd.args) : NULL;
  nd.outputs = bn->n_outputs ? olg__arena_alloc(m, bn->n_outputs * sizeof *nd.outputs) : NULL;
  if ((bn->n_args && !nd.args) || (bn->n_outputs && !nd.outputs)) return OLG_ERR_NOMEM;
  for (uint32_t i = 0; i < bn->n_args; i++) {
    nd.args[i] = bn->args[i];
    if (bn->args[i].kind == OLG_ARG_VALUES) { /* a framework node's list (aten Tensor[], int[]) */
      size_t n = bn->args[i].n;
      olg_value *vs = n ? olg__arena_alloc(m, n * sizeof *vs) : NULL;
      if (n && !vs) return OLG_ERR_NOMEM;
      for (size_t j = 0; j < n; j++) {
        olg_value bv = bn->args[i].u.vals[j];
        if (bv >= 0 && map[bv] == UNSET)
          return olg__err(OLG_ERR_INVALID_MODEL, "function %s::%s: node '%s' (%s) reads '%s', "
                          "which is not a formal input of the function nor produced before it",
                          fn->domain, fn->name, bn->name, bn->op, body->values[bv].name);
        vs[j] = bv >= 0 ? map[bv] : OLG_NO_VALUE;
      }
      nd.args[i].u.vals = vs;
      continue;
    }
    if (bn->args[i].kind != OLG_ARG_VALUE) continue;
    olg_value bv = bn->args[i].u.v;
    if (map[bv] == UNSET)
      return olg__err(OLG_ERR_INVALID_MODEL, "function %s::%s: node '%s' (%s) reads '%s', which "
                      "is not a formal input of the function nor produced before it", fn->domain,
                      fn->name, bn->name, bn->op, body->values[bv].name);
    nd.args[i].kind = map[bv] == OLG_NO_VALUE ? OLG_ARG_NONE : OLG_ARG_VALUE;
    nd.args[i].u.v = map[bv];
  }
  for (uint32_t i = 0; i < bn->n_outputs; i++) {
    olg_value bv = bn->outputs[i];
    nd.outputs[i] = OLG_NO_VALUE;
    if (bv < 0) continue;
    olg_status s = body_value(dg, body, bv, out_slot, outs, n_outs, sc->prefix, &nd.outputs[i]);
    if (s) return s;
    map[bv] = nd.outputs[i];
  }
  return emit_body_node(x, dg, sc, bn, &nd, 0);
}

/* dg takes sg's name, doc string, metadata and kept fields (borrowed: they outlive both) */
static void copy_graph_header(const olg_graph *sg, olg_graph *dg) {
  dg->name = sg->name;
  dg->doc_string = sg->doc_string;
  dg->metadata = sg->metadata;
  dg->n_metadata = sg->n_metadata;
  dg->extra = sg->extra;
}

/* dg (empty, of x->dm) becomes sg, a subgraph of a body being expanded at a call: its own names
 * under the call's prefix, what it reads from the body (or from an enclosing subgraph of it)
 * named as the copy names it, attribute references bound, calls expanded. Ids are sg's. */
static olg_status copy_body_graph(inliner *x, const body_scope *up, const olg_graph *sg,
                                  olg_graph *dg, int depth) {
  if (depth > OLG_MAX_GRAPH_DEPTH)
    return olg__err(OLG_ERR_LIMIT, "the subgraphs are " OLG_DEPTH_WORDS, OLG_MAX_GRAPH_DEPTH,
                    OLG_MAX_GRAPH_DEPTH);
  olg_model *m = x->dm;
  olg_status s;
  body_scope sc = *up;
  sc.up = up;
  sc.src = sg;
  sc.dst = dg;
  sc.map = NULL;
  copy_graph_header(sg, dg);
  for (uint32_t v = 0; v < sg->n_values; v++) {
    const olg_value_rec *r = &sg->values[v];
    const char *name = NULL;
    if (r->flags & OLG_VF_OUTER) {
      if ((s = resolve_outer(up, r->name, &name))) return s;
    } else if (!(name = join(m, up->prefix, r->name))) {
      return OLG_ERR_NOMEM;
    }
    olg_value nv;
    if ((s = olg__graph_add_value(dg, name, true, &nv))) return s;
    if (nv != (olg_value)v)
      return olg__err(OLG_ERR_STATE, "inlining: graph '%s' is not empty", dg->name);
    olg_value_rec *d = &dg->values[nv];
    uint32_t dup = d->flags & OLG_VF_DUPLICATE;
    name = d->name;
    *d = *r;
    d->name = name;
    d->flags = (r->flags & ~(uint32_t)(OLG_VF_DUPLICATE | OLG_VF_AUTO_NAME)) | dup; /* named by add_value */
    d->producer = -1;
  }
  if (sg->n_inits) {
    if ((s = olg__grow(&m->alloc, (void **)&dg->inits, &dg->cap_inits, sg->n_inits, sizeof *dg->inits)))
      return s;
    for (uint32_t i = 0; i < sg->n_inits; i++) { /* the tensor renamed with its value */
      olg_tensor *t = olg__arena_dup(m, sg->inits[i].t, sizeof *t);
      if (!t) return OLG_ERR_NOMEM;
      t->name = dg->values[sg->inits[i].v].name;
      dg->inits[i].v = sg->inits[i].v;
      dg->inits[i].t = t;
      if ((s = olg__value_set_known(dg->model, &dg->values[sg->inits[i].v], t))) return s;
    }
    dg->n_inits = sg->n_inits;
  }
  if ((s = copy_graph_lists(m, sg, dg))) return s;
  for (uint32_t i = 0; i < sg->n_nodes; i++) {
    const olg_node *bn = &sg->nodes[i];
    if (bn->state == OLG_NODE_DEAD) continue;
    if (bn->state != OLG_NODE_DONE)
      return olg__err(OLG_ERR_STATE, "node '%s' (%s) in graph '%s' is still open", bn->name,
                      bn->op, sg->name);
    olg_node nd = *bn;
    if ((s = olg__node_drop_extra(x->dm, &nd))) return s;
    if ((s = emit_body_node(x, dg, &sc, bn, &nd, depth))) return s;
  }
  return OLG_OK;
}

static olg_status expand_call(inliner *x, olg_graph *dg, const olg_function *fn,
                              const olg_value *args, uint32_t n_args, const olg_value *outs,
                              uint32_t n_outs, const olg_attr *ca, uint32_t n_ca,
                              const char *prefix) {
  for (int i = 0; i < x->depth; i++)
    if (x->stack[i] == fn)
      return olg__err(OLG_ERR_INVALID_MODEL, "function %s::%s calls itself (through %d "
                      "call(s)): a recursive function cannot be inlined", fn->domain, fn->name,
                      x->depth - i);
  if (x->depth == MAX_CALL_DEPTH)
    return olg__err(OLG_ERR_LIMIT, "function %s::%s: calls nested deeper than %d", fn->domain,
                    fn->name, MAX_CALL_DEPTH);
  olg_status s = agree_opsets(x, fn);
  if (s) return s;
  const olg_graph *body = fn->body;
  const olg_allocator *al = &x->dm->alloc;
  size_t nv = body->n_values ? body->n_values : 1;
  olg_value *map = olg__malloc(al, nv * sizeof *map);
  int32_t *out_slot = olg__malloc(al, nv * sizeof *out_slot);
  if (!map || !out_slot) {
    s = OLG_ERR_NOMEM;
    goto done;
  }
  for (size_t i = 0; i < nv; i++) {
    map[i] = UNSET;
    out_slot[i] = -1;
  }
  for (uint32_t i = 0; i < body->inputs.n; i++)
    map[body->inputs.p[i]] = i < n_args ? args[i] : OLG_NO_VALUE;
  for (uint32_t k = body->outputs.n; k-- > 0;) out_slot[body->outputs.p[k]] = (int32_t)k;
  x->stack[x->depth++] = fn;
  body_scope sc = {NULL, body, dg, map, fn, ca, n_ca, prefix};
  for (uint32_t i = 0; i < body->n_nodes && !s; i++) {
    const olg_node *bn = &body->nodes[i];
    if (bn->state != OLG_NODE_DONE) continue;
    s = expand_body_node(x, dg, &sc, bn, map, out_slot, outs, n_outs);
  }
  x->depth--;
  /* a formal output that is an input, or listed twice: an Identity gives the call's output */
  for (uint32_t k = 0; k < body->outputs.n && k < n_outs && !s; k++) {
    olg_value bv = body->outputs.p[k], from = map[bv];
    if (outs[k] < 0 || from == outs[k]) continue;
    if (from == UNSET || from == OLG_NO_VALUE) {
      s = olg__err(OLG_ERR_INVALID_MODEL, "function %s::%s: output '%s' is not produced by its "
                   "body", fn->domain, fn->name, body->values[bv].name);
      break;
    }
    olg_node nd = {0};
    nd.domain = "";
    nd.op = "Identity";
    nd.n_args = 1;
    nd.n_outputs = 1;
    nd.args = olg__arena_alloc(x->dm, sizeof *nd.args);
    nd.outputs = olg__arena_alloc(x->dm, sizeof *nd.outputs);
    const char *want = join(x->dm, prefix, body->values[bv].name);
    if (!nd.args || !nd.outputs || !want || !(nd.name = olg__graph_fresh_node_name(dg, want))) {
      s = OLG_ERR_NOMEM;
      break;
    }
    nd.args[0].kind = OLG_ARG_VALUE;
    nd.args[0].u.v = from;
    nd.outputs[0] = outs[k];
    nd.state = OLG_NODE_DONE;
    s = push_node(dg, &nd, NULL);
  }
done:
  olg__free(al, map, nv * sizeof *map);
  olg__free(al, out_slot, nv * sizeof *out_slot);
  return s;
}

/* dg (empty, of x->dm) becomes sg with every call expanded. */
static olg_status copy_graph(inliner *x, const olg_graph *sg, olg_graph *dg, int depth) {
  if (depth > OLG_MAX_GRAPH_DEPTH)
    return olg__err(OLG_ERR_LIMIT, "the subgraphs are " OLG_DEPTH_WORDS, OLG_MAX_GRAPH_DEPTH,
                    OLG_MAX_GRAPH_DEPTH);
  olg_model *m = x->dm;
  olg_status s;
  copy_graph_header(sg, dg);
  for (uint32_t v = 0; v < sg->n_values; v++) {
    const olg_value_rec *r = &sg->values[v];
    olg_value nv;
    if ((s = olg__graph_add_value(dg, r->name, true, &nv))) return s;
    if (nv != (olg_value)v) /* the ids are the source's: inputs, outputs and inits rely on it */
      return olg__err(OLG_ERR_STATE, "inlining: graph '%s' is not empty", dg->name);
    olg_value_rec *d = &dg->values[nv];
    uint32_t dup = d->flags & OLG_VF_DUPLICATE;
    const char *name = d->name;
    *d = *r;
    d->name = name;
    d->flags = (r->flags & ~(uint32_t)(OLG_VF_DUPLICATE | OLG_VF_AUTO_NAME)) | dup; /* named by add_value */
    d->producer = -1;
  }
  bool as_constants = x->inits_as_constants && depth == 0;
  if (sg->n_inits && !as_constants) {
    if ((s = olg__grow(&m->alloc, (void **)&dg->inits, &dg->cap_inits, sg->n_inits, sizeof *dg->inits)))
      return s;
    memcpy(dg->inits, sg->inits, sg->n_inits * sizeof *dg->inits);
    dg->n_inits = sg->n_inits;
  }
  for (uint32_t i = 0; i < sg->n_inits && as_constants; i++) { /* a function body has none */
    olg_value v = sg->inits[i].v;
    olg_node nd = {0};
    nd.domain = "";
    nd.op = "Constant";
    nd.n_outputs = 1;
    nd.n_attrs = 1;
    nd.outputs = olg__arena_alloc(m, sizeof *nd.outputs);
    nd.attrs = olg__arena_alloc(m, sizeof *nd.attrs);
    if (!nd.outputs || !nd.attrs || !(nd.name = olg__graph_fresh_node_name(dg, dg->values[v].name)))
      return OLG_ERR_NOMEM;
    nd.outputs[0] = v;
    nd.attrs[0].name = "value";
    nd.attrs[0].type = OLG_ATTR_TENSOR;
    nd.attrs[0].t = sg->inits[i].t;
    nd.state = OLG_NODE_DONE;
    dg->values[v].flags &= ~(uint32_t)(OLG_VF_INITIALIZER | OLG_VF_INPUT);
    dg->values[v].init = -1;
    if ((s = push_node(dg, &nd, NULL))) return s;
  }
  if ((s = copy_graph_lists(m, sg, dg))) return s;
  for (uint32_t i = 0; i < sg->n_nodes; i++) {
    const olg_node *nd = &sg->nodes[i];
    if (nd->state == OLG_NODE_DEAD) continue;
    if (nd->state != OLG_NODE_DONE)
      return olg__err(OLG_ERR_STATE, "node '%s' (%s) in graph '%s' is still open", nd->name,
                      nd->op, sg->name);
    const char *kept = x->keep_as && sg == x->keep_in ? x->keep_as[i] : NULL;
    const olg_function *fn = kept ? NULL : callee(x, nd);
    if (!fn) {
      olg_node copy = *nd;
      if (kept) copy.op = kept;
      if ((s = copy_subgraph_attrs(x, dg, &copy, depth)) || (s = push_node(dg, &copy, NULL)))
        return s;
      continue;
    }
    olg_value *args = olg__arena_alloc(m, (nd->n_args ? nd->n_args : 1) * sizeof *args);
    if (!args) return OLG_ERR_NOMEM;
    for (uint32_t k = 0; k < nd->n_args; k++) {
      const olg_arg *a = &nd->args[k];
      if (a->kind != OLG_ARG_VALUE && a->kind != OLG_ARG_NONE)
        return olg__err(OLG_ERR_INVALID_MODEL, "node '%s' calls function %s::%s with a literal "
                        "argument #%u", nd->name, fn->domain, fn->name, k);
      args[k] = a->kind == OLG_ARG_VALUE ? a->u.v : OLG_NO_VALUE;
    }
    char idx[32];
    snprintf(idx, sizeof idx, "%s_%u", nd->op, i);
    const char *prefix = olg__strdup(m, *nd->name ? nd->name : idx);
    if (!prefix) return OLG_ERR_NOMEM;
    if ((s = expand_call(x, dg, fn, args, nd->n_args, nd->outputs, nd->n_outputs, nd->attrs,
                         nd->n_attrs, prefix))) {
      if (!x->failed) x->failed = nd;
      char why[768]; /* the message is rewritten: a copy of it first */
      snprintf(why, sizeof why, "%s", olg_last_error());
      return olg__err(s, "node '%s' (%s::%s): %s", nd->name, fn->domain, fn->name, why);
    }
  }
  return OLG_OK;
}

/* A new model borrowing src's data, with every call of src's functions expanded: src must
 * outlive it. On failure, *failed (may be NULL) gets the call that could not be expanded (its
 * strings are src's), or is left alone when no call is to blame. */
olg_status olg__inline_copy(const olg_model *src, olg_model **out, olg_node *failed) {
  return olg__inline_copy_keep(src, NULL, out, failed);
}

olg_status olg__copy_graph_into(olg_model *dm, const olg_graph *sg, olg_graph *dg) {
  inliner x = {.fm = sg->model, .dm = dm, .inits_as_constants = true};
  if (sg->model->n_functions)
    return olg__err(OLG_ERR_STATE, "olg__copy_graph_into: the source model has functions");
  return copy_graph(&x, sg, dg, 0);
}

olg_status olg__inline_copy_keep(const olg_model *src, const char *const *keep_as,
                                 olg_model **out, olg_node *failed) {
  *out = NULL;
  olg_model_options mo = OLG_MODEL_OPTIONS_INIT;
  mo.allocator = &src->alloc;
  mo.ir_version = src->ir_version ? src->ir_version : OLG_IR_VERSION_LATEST;
  olg_model *dm;
  olg_status s = olg_model_new(&dm, &mo);
  if (s) return s;
  dm->ir_version_auto = false;
  for (uint32_t i = 0; i < src->n_opsets && !s; i++)
    s = olg_model_set_opset(dm, src->opsets[i].domain, src->opsets[i].version);
  dm->ir_version = src->ir_version; /* after the opsets, which may move it */
  dm->producer_name = src->producer_name;
  dm->producer_version = src->producer_version;
  if (!s) s = olg__model_copy_about(dm, src);
  inliner x = {.fm = src, .dm = dm};
  if (!s) s = inliner_init(&x, src, dm);
  x.keep_in = src->graph;
  x.keep_as = keep_as;
  if (!s) s = copy_graph(&x, src->graph, dm->graph, 0);
  olg__g_namemap_free(&dm->alloc, &x.by_key);
  if (s) {
    if (failed && x.failed) *failed = *x.failed; /* a copy: dm's arrays die with it, not its strings */
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", olg_last_error());
    olg_model_free(dm);
    return olg__err(s, "%s", msg);
  }
  *out = dm;
  return OLG_OK;
}

OLG_API olg_status olg_model_inline_functions(olg_model *m) {
  if (!m) return olg__err(OLG_ERR_INVALID_ARG, "olg_model_inline_functions: model is NULL");
  if (!m->n_functions) return OLG_OK;
  olg_graph *g;
  olg_status s = olg_model_new_subgraph(m, &g);
  if (s) return s;
  inliner x = {.fm = m, .dm = m};
  if (!(s = inliner_init(&x, m, m))) s = copy_graph(&x, m->graph, g, 0);
  olg__g_namemap_free(&m->alloc, &x.by_key);
  if (s) return s; /* m->graph is unchanged then */
  m->graph = g;
  m->n_functions = 0;
  return OLG_OK;
}

olg_status olg__model_copy_about(olg_model *dst, const olg_model *src) {
  olg_status s = OLG_OK;
  if (src->domain && *src->domain) s = olg_model_set_string(dst, OLG_MODEL_DOMAIN, src->domain);
  dst->doc_len = src->doc_len; /* not 0: a doc holding a NUL, copied whole */
  if (!s && src->doc_len)
    s = (dst->doc_string = olg__strndup(dst, src->doc_string, src->doc_len)) ? OLG_OK : OLG_ERR_NOMEM;
  else if (!s && src->doc_string && *src->doc_string)
    s = olg_model_set_string(dst, OLG_MODEL_DOC_STRING, src->doc_string);
  dst->model_version = src->model_version, dst->has_model_version = src->has_model_version;
  /* appended as they are: olg_model_set_metadata's search per key is quadratic in many */
  if (s || (s = olg__grow(&dst->alloc, (void **)&dst->metadata, &dst->cap_metadata,
                          (size_t)dst->n_metadata + src->n_metadata, sizeof *dst->metadata)))
    return s;
  uint32_t at = dst->n_metadata;
  for (uint32_t i = 0; i < src->n_metadata; i++) {
    olg_kv kv = {olg__strdup(dst, src->metadata[i].key), olg__strdup(dst, src->metadata[i].value)};
    if (!kv.key || !kv.value) return OLG_ERR_NOMEM;
    dst->metadata[dst->n_metadata++] = kv;
  }
#ifndef OLG_CONFIG_NO_READER /* what the IR's C strings cut (a NUL inside) the reader kept whole */
  return olg__pbr_copy_about(dst, src, at);
#else
  (void)at;
  return OLG_OK;
#endif
}
