/* onnxlegal — olg_legalize with keep_functions: the model-local functions that the main graph
 * calls are kept in the output, their bodies converted to the target.
 *
 * A body is untyped and its attributes may be references, so a body is converted for one
 * call-site signature: the dtype and rank of each argument at the call (from inference on an
 * inlined copy of the source) and the values of the attributes the call gives. Calls of one
 * function that agree on it share one kept copy; each further signature is a copy of its own,
 * named "<name>__2", "<name>__3", ... in the order of the first call of each (the first keeps the
 * function's name). A call whose signature cannot be told (an argument of unknown dtype or rank,
 * a tensor or graph attribute), calls inside subgraphs of the main graph and calls nested in
 * bodies are inlined as without the option.
 *
 * Each signature's body is converted by olg_legalize itself, on a model whose main graph is one
 * call of the function with those inputs (dims unknown, so nothing is folded for one shape) and
 * attributes: the converted main graph, its initializers made Constant nodes, is the kept body
 * (its opset imports are the output's: the target's default domain). Its attribute references
 * come back where the converted body still holds the source body's node with the referenced
 * attribute, of the value the signature binds: exact, since every call of that copy binds that
 * value; elsewhere (a node rewritten for the target) the value stays a literal. The function
 * still declares all its attributes. In the main graph a kept call is passed through, typed
 * with the converted body's output types. */
#include <stdio.h>
#include <string.h>

#include "lower.h"

typedef struct keep_sig {
  const olg_function *fn;
  const olg_node *call; /* the first call of this signature, in src's main graph */
  const olg_model *inl; /* the inlined, inferred copy: the arguments' types */
  const char *name;     /* the kept function's name */
  olg_model *conv;      /* the converted body, as the main graph of this model */
} keep_sig;

struct olg_keep {
  const olg_model *src;
  olg_model *inl;
  keep_sig *sigs;
  uint32_t n, cap;
  const char **keep_as; /* per node of src's main graph */
  uint32_t n_keep_as;
  olg_diags *diags; /* the call's, for what a kept function does not carry */
  int64_t opset;
};

static bool attr_equal(const olg_attr *a, const olg_attr *b) {
  if (a->type != b->type || strcmp(a->name, b->name)) return false;
  switch (a->type) {
  case OLG_ATTR_FLOAT: return a->f == b->f || (a->f != a->f && b->f != b->f);
  case OLG_ATTR_INT: return a->i == b->i;
  case OLG_ATTR_STRING: return a->s.n == b->s.n && !memcmp(a->s.p, b->s.p, a->s.n);
  case OLG_ATTR_INTS: return a->n == b->n && !memcmp(a->ints, b->ints, a->n * sizeof *a->ints);
  case OLG_ATTR_FLOATS: return a->n == b->n && !memcmp(a->floats, b->floats, a->n * sizeof *a->floats);
  case OLG_ATTR_STRINGS:
    if (a->n != b->n) return false;
    for (size_t i = 0; i < a->n; i++)
      if (a->strings[i].n != b->strings[i].n || memcmp(a->strings[i].p, b->strings[i].p, a->strings[i].n))
        return false;
    return true;
  default: return false;
  }
}

static bool attr_simple(const olg_attr *a) {
  return !a->ref_attr_name && (a->type == OLG_ATTR_FLOAT || a->type == OLG_ATTR_INT ||
                               a->type == OLG_ATTR_STRING || a->type == OLG_ATTR_INTS ||
                               a->type == OLG_ATTR_FLOATS || a->type == OLG_ATTR_STRINGS);
}

/* The type of call argument i in the inferred copy: a tensor of known dtype and rank, or NULL
 * (an omitted argument gives a type of kind NONE). */
static const olg_type *arg_type(const olg_model *inl, const olg_node *nd, uint32_t i) {
  static const olg_type none = {0};
  if (nd->args[i].kind == OLG_ARG_NONE) return &none;
  if (nd->args[i].kind != OLG_ARG_VALUE) return NULL;
  const olg_type *t = &inl->graph->values[nd->args[i].u.v].type;
  return t->kind == OLG_TYPE_TENSOR && t->has_elem && olg__type_elem(t) && t->has_shape ? t : NULL;
}

static bool same_signature(const keep_sig *k, const olg_function *fn, const olg_node *nd) {
  const olg_node *c = k->call;
  if (k->fn != fn || c->n_args != nd->n_args || c->n_attrs != nd->n_attrs) return false;
  for (uint32_t i = 0; i < nd->n_args; i++) {
    const olg_type *a = arg_type(k->inl, c, i), *b = arg_type(k->inl, nd, i);
    if (a->kind != b->kind ||
        (a->kind && (olg__type_elem(a) != olg__type_elem(b) || a->rank != b->rank)))
      return false;
  }
  for (uint32_t i = 0; i < nd->n_attrs; i++) {
    bool found = false;
    for (uint32_t j = 0; j < c->n_attrs && !found; j++) found = attr_equal(&nd->attrs[i], &c->attrs[j]);
    if (!found) return false;
  }
  return true;
}

/* Whether node nd of the main graph is a call that can be kept: its signature told. */
static const olg_function *keepable(const olg_keep *k, const olg_node *nd) {
  if (nd->state != OLG_NODE_DONE) return NULL;
  const olg_function *fn =
      olg__find_function(k->src, nd->domain, nd->op, olg__node_overload(nd));
  if (!fn || nd->n_args > fn->body->inputs.n) return NULL;
  for (uint32_t i = 0; i < nd->n_args; i++)
    if (!arg_type(k->inl, nd, i)) return NULL;
  for (uint32_t i = 0; i < nd->n_attrs; i++)
    if (!attr_simple(&nd->attrs[i])) return NULL;
  return fn;
}

static const char *sig_name(olg_keep *k, olg_model *dm, const olg_function *fn) {
  unsigned n = 0;
  for (uint32_t i = 0; i < k->n; i++) n += k->sigs[i].fn == fn;
  if (!n) return fn->name;
  for (unsigned j = n + 1;; j++) {
    const char *buf = olg__strfmt(dm, "%s__%u", fn->name, j);
    if (!buf) return NULL;
    bool taken = olg__find_function(k->src, fn->domain, buf, NULL) != NULL;
    for (uint32_t i = 0; i < k->n && !taken; i++)
      taken = !strcmp(k->sigs[i].name, buf) && !strcmp(k->sigs[i].fn->domain, fn->domain);
    if (!taken) return buf;
  }
}

/* The end of m's chain of kept models. */
static olg_model **chain_end(olg_model *m) {
  while (m->keep) m = m->keep;
  return &m->keep;
}

/* Converts the body of sig's function at its signature: sig->conv. */
static olg_status convert_body(keep_sig *sig, const olg_model *src, const olg_registry *r,
                               const olg_legalize_options *o, olg_diags *diags) {
  const olg_function *fn = sig->fn;
  const olg_graph *body = fn->body;
  const olg_node *call = sig->call;
  olg_model_options mo = OLG_MODEL_OPTIONS_INIT;
  mo.allocator = &src->alloc;
  mo.ir_version = src->ir_version ? src->ir_version : OLG_IR_VERSION_LATEST;
  olg_model *w;
  olg_status s = olg_model_new(&w, &mo);
  if (s) return s;
  w->ir_version_auto = false;
  for (uint32_t i = 0; i < src->n_opsets && !s; i++)
    s = olg_model_set_opset(w, src->opsets[i].domain, src->opsets[i].version);
  w->ir_version = src->ir_version;
  olg_graph *g = w->graph;
  olg_node_id n;
  if (!s) s = olg_graph_set_name(g, fn->name);
  olg_value *args = NULL;
  size_t n_args = call->n_args ? call->n_args : 1, n_out = body->outputs.n;
  const char **names = NULL;
  if (!s && (!(args = olg__arena_alloc(w, n_args * sizeof *args)) ||
             !(names = olg__arena_alloc(w, (n_out ? n_out : 1) * sizeof *names))))
    s = OLG_ERR_NOMEM;
  for (uint32_t i = 0; i < call->n_args && !s; i++) {
    const olg_type *t = arg_type(sig->inl, call, i);
    args[i] = OLG_NO_VALUE;
    if (!t->kind) continue;
    int64_t dims[64];
    if (t->rank > (int32_t)(sizeof dims / sizeof *dims)) {
      s = olg__err(OLG_ERR_LIMIT, "rank %d", (int)t->rank);
      break;
    }
    for (int32_t d = 0; d < t->rank; d++) dims[d] = OLG_DIM_UNKNOWN;
    s = olg_graph_add_input(g, body->values[body->inputs.p[i]].name, olg__type_elem(t), t->rank,
                            dims, NULL, &args[i]);
  }
  if (!s) s = olg_node_begin(g, fn->domain, fn->name, fn->name, &n);
  for (uint32_t i = 0; i < call->n_args && !s; i++)
    s = args[i] == OLG_NO_VALUE ? olg_node_arg_none(g, n) : olg_node_arg_value(g, n, args[i]);
  for (uint32_t i = 0; i < call->n_attrs && !s; i++) s = olg__node_add_attr(g, n, &call->attrs[i]);
  for (size_t i = 0; i < n_out; i++) names[i] = body->values[body->outputs.p[i]].name;
  olg_value *outs = NULL;
  if (!s && !(outs = olg__arena_alloc(w, (n_out ? n_out : 1) * sizeof *outs))) s = OLG_ERR_NOMEM;
  if (!s) s = olg_node_end(g, n, n_out, names, outs);
  olg_node_more *more = s ? NULL : olg__node_more_own(w, &g->nodes[n]);
  if (more) more->overload = fn->overload;
  else if (!s) s = OLG_ERR_NOMEM;
  for (size_t i = 0; i < n_out && !s; i++) s = olg_graph_add_output(g, outs[i]);
  if (s) {
    olg_model_free(w);
    return s;
  }
  w->functions = src->functions; /* borrowed for the inlining: never freed with w */
  w->n_functions = src->n_functions;
  olg_legalize_options o2 = *o;
  o2.keep_functions = 0;
  o2.keep_initializers_as_inputs = 0;
  s = olg_legalize(w, r, &o2, &sig->conv, diags);
  w->functions = NULL;
  w->n_functions = 0;
  if (s) {
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", olg_last_error());
    olg_model_free(w);
    return olg__err(s, "function %s::%s, kept for call '%s': its body cannot be converted: %s",
                    fn->domain, fn->name, call->name, msg);
  }
  *chain_end(sig->conv) = w; /* the converted body borrows from w */
  return OLG_OK;
}

void olg__keep_free(olg_keep *k) {
  if (!k) return;
  const olg_allocator *al = &k->src->alloc;
  for (uint32_t i = 0; i < k->n; i++) olg_model_free(k->sigs[i].conv);
  olg_model_free(k->inl);
  olg__free(al, k->sigs, (size_t)k->cap * sizeof *k->sigs);
  olg__free(al, k->keep_as, (size_t)k->n_keep_as * sizeof *k->keep_as);
  olg__free(al, k, sizeof *k);
}

olg_status olg__keep_prepare(const olg_model *src, const olg_registry *r,
                             const olg_legalize_options *o, olg_diags *diags, olg_model *dm,
                             olg_keep **out) {
  *out = NULL;
  const olg_allocator *al = &src->alloc;
  olg_keep *k = olg__malloc(al, sizeof *k);
  if (!k) return OLG_ERR_NOMEM;
  memset(k, 0, sizeof *k);
  k->src = src;
  k->diags = diags;
  k->opset = o->opset;
  const olg_graph *mg = src->graph;
  olg_status s = olg__inline_copy(src, &k->inl, NULL);
  if (!s) {
    olg_diags *scratch = NULL; /* inference's findings are check's business, not convert's */
    if (!(s = olg_diags_new(&scratch, al))) {
      s = olg_infer_shapes(k->inl, NULL, scratch);
      if (s != OLG_ERR_NOMEM) s = OLG_OK;
      olg_diags_free(scratch);
    }
  }
  k->n_keep_as = mg->n_nodes ? mg->n_nodes : 1;
  if (!s && !(k->keep_as = olg__malloc(al, (size_t)k->n_keep_as * sizeof *k->keep_as)))
    s = OLG_ERR_NOMEM;
  if (k->keep_as) memset(k->keep_as, 0, (size_t)k->n_keep_as * sizeof *k->keep_as);
  for (uint32_t i = 0; i < mg->n_nodes && !s; i++) {
    const olg_node *nd = &mg->nodes[i];
    const olg_function *fn = keepable(k, nd);
    if (!fn) continue;
    keep_sig *sig = NULL;
    for (uint32_t j = 0; j < k->n && !sig; j++)
      if (same_signature(&k->sigs[j], fn, nd)) sig = &k->sigs[j];
    if (!sig) {
      const char *name = sig_name(k, dm, fn);
      if (!name || (s = olg__grow(al, (void **)&k->sigs, &k->cap, (size_t)k->n + 1, sizeof *k->sigs)))
        s = s ? s : OLG_ERR_NOMEM;
      if (s) break;
      sig = &k->sigs[k->n++];
      *sig = (keep_sig){fn, nd, k->inl, name, NULL};
      if ((s = convert_body(sig, src, r, o, diags))) {
        if (diags)
          olg_diags_add(diags, OLG_ERROR, "OLG-LOWER-FUNCTION", nd->name, nd->domain, nd->op,
                        o->opset, olg_last_error());
        break;
      }
    }
    k->keep_as[i] = sig->name;
  }
  olg_node failed = {0};
  if (!s && (s = olg__inline_copy_keep(src, k->keep_as, &dm->keep, &failed))) {
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", olg_last_error());
    if (diags)
      olg_diags_add(diags, OLG_ERROR, "OLG-LOWER-FUNCTION", failed.name, failed.domain,
                    failed.op, o->opset, msg);
    s = olg__err(s, "%s", msg);
  }
  if (s) {
    olg__keep_free(k);
    return s;
  }
  *out = k;
  return OLG_OK;
}

static olg_status dup_type(olg_model *m, olg_type *to, const olg_type *from) {
  *to = *from;
  if (from->kind != OLG_TYPE_TENSOR) return OLG_OK; /* kept functions take tensors only */
  if (olg__type_set_inner(m, to, NULL)) return OLG_ERR_NOMEM;
  if (from->has_shape && from->rank > 0 &&
      !(to->dims = olg__arena_dup(m, from->dims, (size_t)from->rank * sizeof *from->dims)))
    return OLG_ERR_NOMEM;
  return OLG_OK;
}

bool olg__keep_lower(olg_lower *cx, const olg_node *nd, olg_status *out) {
  const olg_keep *k = cx->keep;
  const keep_sig *sig = NULL;
  for (uint32_t i = 0; i < k->n && !sig; i++)
    if (!strcmp(k->sigs[i].name, nd->op) && !strcmp(k->sigs[i].fn->domain, nd->domain))
      sig = &k->sigs[i];
  if (!sig) return false;
  olg_node_id n;
  olg_status s = olg_lower_emit_begin(cx, nd->domain, nd->op, &n);
  for (uint32_t i = 0; i < nd->n_args && !s; i++) {
    olg_value v = OLG_NO_VALUE;
    if (nd->args[i].kind == OLG_ARG_VALUE) s = olg_lower_arg_value(cx, i, &v);
    if (!s) s = olg_lower_emit_input(cx, n, v);
  }
  for (uint32_t i = 0; i < nd->n_attrs && !s; i++) s = olg__node_add_attr(cx->dst, n, &nd->attrs[i]);
  olg_value buf[64], *outs = olg__lower_values(cx, buf, 64, nd->n_outputs);
  const olg_graph *cg = sig->conv->graph;
  if (!s && !outs) s = OLG_ERR_NOMEM;
  if (!s && nd->n_outputs > cg->outputs.n)
    s = olg__err(OLG_ERR_LIMIT, "call '%s' of %s::%s: %u outputs", nd->name, nd->domain, nd->op,
                 nd->n_outputs);
  if (!s) s = olg_lower_emit_end(cx, n, nd->n_outputs, outs);
  for (uint32_t i = 0; i < nd->n_outputs && !s; i++) {
    s = dup_type(cx->dst_model, &cx->dst->values[outs[i]].type,
                 &cg->values[cg->outputs.p[i]].type);
    if (!s) s = olg_lower_bind_output(cx, i, outs[i]);
  }
  *out = s;
  return true;
}

/* The value the signature binds to the function's attribute `ref`, or NULL. */
static const olg_attr *bound(const keep_sig *sig, const char *ref) {
  for (uint32_t i = 0; i < sig->call->n_attrs; i++)
    if (!strcmp(sig->call->attrs[i].name, ref)) return &sig->call->attrs[i];
  for (uint32_t i = 0; i < sig->fn->n_attr_defaults; i++)
    if (!strcmp(sig->fn->attr_defaults[i].name, ref)) return &sig->fn->attr_defaults[i];
  return NULL;
}

/* The references of the source body back on the converted body's nodes of the same op that
 * hold the attribute at the bound value. */
static olg_status restore_refs(olg_model *dm, const keep_sig *sig, olg_graph *g) {
  const olg_graph *body = sig->fn->body;
  for (uint32_t i = 0; i < body->n_nodes; i++) {
    const olg_node *bn = &body->nodes[i];
    for (uint32_t a = 0; a < bn->n_attrs; a++) {
      const olg_attr *ra = &bn->attrs[a];
      const olg_attr *v = ra->ref_attr_name ? bound(sig, ra->ref_attr_name) : NULL;
      if (!v || !attr_simple(v)) continue;
      olg_attr want = *v;
      want.name = ra->name;
      for (uint32_t j = 0; j < g->n_nodes; j++) {
        olg_node *gn = &g->nodes[j];
        if (strcmp(gn->op, bn->op) || strcmp(gn->domain, bn->domain)) continue;
        for (uint32_t b = 0; b < gn->n_attrs; b++) {
          if (!attr_equal(&gn->attrs[b], &want)) continue;
          olg_attr *copy = olg__arena_dup(dm, gn->attrs, gn->n_attrs * sizeof *copy);
          if (!copy) return OLG_ERR_NOMEM;
          olg_attr ref = {0};
          ref.name = ra->name;
          ref.type = want.type;
          ref.ref_attr_name = ra->ref_attr_name;
          copy[b] = ref;
          gn->attrs = copy;
        }
      }
    }
  }
  return OLG_OK;
}

olg_status olg__keep_finish(olg_model *dm, olg_keep *k) {
  for (uint32_t i = 0; i < k->n; i++) {
    keep_sig *sig = &k->sigs[i];
    const olg_function *fn = sig->fn;
    int64_t v = olg_model_opset(k->src, fn->domain);
    olg_status s = olg_model_set_opset(dm, fn->domain, v > 0 ? v : 1);
    olg_graph *g;
    if (!s) s = olg_model_new_subgraph(dm, &g);
    if (!s) s = olg__copy_graph_into(dm, sig->conv->graph, g);
    if (!s) s = olg_graph_set_name(g, sig->name);
    if (!s) s = restore_refs(dm, sig, g);
    if (!s) s = olg_model_add_function(dm, fn->domain, sig->name, g, fn->attr_names, fn->n_attr_names);
    if (s) return s;
    olg_function *kf = &dm->functions[dm->n_functions - 1];
    kf->attr_defaults = fn->attr_defaults;
    kf->n_attr_defaults = fn->n_attr_defaults;
    kf->doc_string = fn->doc_string;
    kf->metadata = fn->metadata; /* borrowed, as the doc string is */
    kf->n_metadata = fn->n_metadata;
#ifndef OLG_CONFIG_NO_READER
    /* what holds a NUL, as read (FunctionProto.doc_string is field 8) */
    if ((s = olg__pbr_copy_more(dm, fn->extra, 8, &kf->extra))) return s;
    uint32_t n_vi = olg__pbr_count_raw(fn->extra, 12, NULL);
    bool said = false; /* a function kept for several call signatures: said once */
    for (uint32_t j = 0; j < i && !said; j++) said = k->sigs[j].fn == fn;
    if (n_vi && k->diags && !said) {
      char msg[512];
      snprintf(msg, sizeof msg, "the value_info of function '%.100s' (%u entr%s) is dropped: the "
               "conversion renames its body's values", fn->name, n_vi, n_vi == 1 ? "y" : "ies");
      olg_diags_add(k->diags, OLG_WARNING, "OLG-LOWER-WARNING", NULL, fn->domain, fn->name,
                    k->opset, msg);
    }
#endif
    *chain_end(dm) = sig->conv; /* the kept body borrows from it */
    sig->conv = NULL;
  }
  return OLG_OK;
}
