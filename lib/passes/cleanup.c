/* onnxlegal — the cleanup after lowering: the target profile's rewrites, constant folding,
 * identity removal, CSE of Constants, dead nodes and the final topological order. */
#include <stdio.h>
#include <string.h>

#include "passes/passes.h"
#include "profile.h"
#include "schema.h"

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
        for (size_t k = 0; k < a->n; k++)
          ((olg_value *)a->u.vals)[k] = resolve(subst, a->u.vals[k]);
    }
  }
}

/* Folds node i if it has a single output that inference made known (and small) into a
 * Constant, in place (the node keeps its id and output). */
static olg_status fold_one(olg_lower *cx, uint32_t i) {
  olg_graph *g = cx->dst;
  olg_node *nd = &g->nodes[i];
  if (nd->state != OLG_NODE_DONE || *nd->domain || nd->n_outputs != 1 ||
      (nd->op[0] == 'C' && strcmp(nd->op, "Constant") == 0) || olg__has_subgraph(nd))
    return OLG_OK;
  olg_value out = nd->outputs[0];
  if (out == OLG_NO_VALUE) return OLG_OK;
  const olg_tensor *t = olg__known(cx, out);
  if (!t || t->dtype == OLG_STRING || t->nbytes > 4096 * 8) return OLG_OK;
  if (cx->opset < 9 && t->dtype != OLG_FLOAT && t->dtype != OLG_DOUBLE && t->dtype != OLG_FLOAT16) {
    /* Constant-1 takes float types only: the folded value becomes an initializer, which
     * takes over the output's value (and name) */
    if (g->values[out].flags & OLG_VF_OUTPUT) return OLG_OK;
    if (cx->parent) return OLG_OK; /* a subgraph's initializer must be its input too (IR 3) */
    olg_tensor *it = olg__arena_dup(cx->dst_model, t, sizeof *it);
    if (!it) return OLG_ERR_NOMEM;
    it->owner = OLG_OWNER_BORROWED; /* the bytes live in this model's arena or source */
    it->name = g->values[out].name;
    if (g->n_inits >= OLG_MAX_INITS) return OLG_OK; /* stays a Constant */
    olg_value_rec *r = &g->values[out];
    OLG_TRY(olg__grow(&cx->dst_model->alloc, (void **)&g->inits, &g->cap_inits,
                      (size_t)g->n_inits + 1, sizeof *g->inits));
    r = &g->values[out];
    r->producer = -1;
    r->flags |= OLG_VF_INITIALIZER;
    OLG_TRY(olg__value_set_known(cx->dst_model, r, it));
    r->init = (int32_t)g->n_inits;
    g->inits[g->n_inits++] = (struct olg_init){out, it};
    nd = &g->nodes[i];
    nd->state = OLG_NODE_DEAD;
    return OLG_OK;
  }
  olg_attr a = {0};
  a.name = "value";
  a.type = OLG_ATTR_TENSOR;
  a.t = (olg_tensor *)t;
  olg_attr *attrs = olg__arena_dup(cx->dst_model, &a, sizeof a);
  if (!attrs) return OLG_ERR_NOMEM;
  nd->op = "Constant";
  nd->args = NULL;
  nd->n_args = 0;
  nd->attrs = attrs;
  nd->n_attrs = 1;
  return OLG_OK;
}

/* Node i, an Identity nothing needs under its own name: its readers read its input. */
static bool remove_identity(const olg_lower *cx, olg_graph *g, uint32_t i, olg_value *subst) {
  olg_node *nd = &g->nodes[i];
  if (nd->state != OLG_NODE_DONE || *nd->domain || nd->op[0] != 'I' || strcmp(nd->op, "Identity") != 0)
    return false; /* (the first letter: asked for every node, it rules out most) */
  if (nd->n_args != 1 || nd->args[0].kind != OLG_ARG_VALUE || nd->n_outputs != 1) return false;
  olg_value out = nd->outputs[0];
  if (out == OLG_NO_VALUE || (g->values[out].flags & OLG_VF_OUTPUT) || olg__is_protected(cx, out))
    return false;
  subst[out] = nd->args[0].u.v;
  nd->state = OLG_NODE_DEAD;
  return true;
}

/* Node i, a Constant whose tensor an earlier Constant holds (tab: a hash table of those, cap
 * a power of two): merged into that one. */
static bool cse_constant(olg_lower *cx, olg_graph *g, uint32_t i, int32_t *tab, uint32_t cap,
                         olg_value *subst) {
  olg_node *nd = &g->nodes[i];
  if (nd->state != OLG_NODE_DONE || *nd->domain || nd->op[0] != 'C' || strcmp(nd->op, "Constant") != 0 ||
      nd->n_attrs != 1 || nd->attrs[0].type != OLG_ATTR_TENSOR || nd->n_outputs != 1)
    return false;
  const olg_tensor *t = nd->attrs[0].t;
  if (!t || t->dtype == OLG_STRING || (!t->data && t->nbytes)) return false;
  if ((g->values[nd->outputs[0]].flags & OLG_VF_OUTPUT) || olg__is_protected(cx, nd->outputs[0]))
    return false;
  uint64_t h = olg__tensor_hash(t);
  for (uint32_t k = (uint32_t)h & (cap - 1);; k = (k + 1) & (cap - 1)) {
    if (tab[k] < 0) {
      tab[k] = (int32_t)i;
      break;
    }
    const olg_node *o = &g->nodes[tab[k]];
    if (olg__tensor_same(o->attrs[0].t, t)) {
      subst[nd->outputs[0]] = o->outputs[0];
      nd->state = OLG_NODE_DEAD;
      return true;
    }
  }
  return false;
}

/* Folding, Identity removal and the merging of Constants in one walk over the nodes (each a
 * pass of its own read every node three times): a node is folded first, so that an Identity
 * or a node folded into a Constant merges with the Constants before it, as three passes in
 * that order would do. *changed: some value is substituted by another. */
static olg_status fold_and_dedup(olg_lower *cx, olg_value *subst, bool *changed) {
  olg_graph *g = cx->dst;
  const olg_allocator *al = &cx->dst_model->alloc;
  uint32_t cap = 16;
  while (cap < g->n_nodes * 2u) cap *= 2;
  int32_t *tab = olg__malloc(al, (size_t)cap * sizeof *tab);
  if (!tab) return OLG_ERR_NOMEM;
  for (uint32_t i = 0; i < cap; i++) tab[i] = -1;
  olg_status s = OLG_OK;
  for (uint32_t i = 0; i < g->n_nodes; i++) {
    if (cx->fold && (s = fold_one(cx, i))) break;
    if (remove_identity(cx, g, i, subst) || cse_constant(cx, g, i, tab, cap, subst)) *changed = true;
  }
  olg__free(al, tab, (size_t)cap * sizeof *tab);
  return s;
}


/* Removes dead nodes and rewrites the node array in topological order. */
static olg_status dce_and_compact(olg_lower *cx) {
  olg_graph *g = cx->dst;
  const olg_allocator *al = &cx->dst_model->alloc;
  uint32_t n = g->n_nodes;
  if (!n) return OLG_OK;
  olg_node_id *order = olg__malloc(al, (size_t)n * sizeof *order);
  uint8_t *live_val = NULL;
  int32_t *newid = NULL;
  olg_status s = order ? olg__graph_order(g, al, cx->reads, order, NULL) : OLG_ERR_NOMEM;
  if (s) goto done;
  /* after the order: its temporaries and these are not live at once (the peak of a large graph) */
  live_val = olg__calloc(al, g->n_values ? g->n_values : 1, 1);
  newid = olg__malloc(al, (size_t)n * sizeof *newid);
  if (!live_val || !newid) {
    s = OLG_ERR_NOMEM;
    goto done;
  }
  uint32_t n_live = 0;
  for (uint32_t i = 0; i < g->outputs.n; i++) live_val[g->outputs.p[i]] = 1;
  for (uint32_t i = 0; i < cx->n_roots; i++) live_val[cx->roots[i]] = 1;
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
        for (size_t q = 0; q < a->n; q++)
          if (a->u.vals[q] >= 0) live_val[a->u.vals[q]] = 1;
    }
    for (uint32_t j = 0; j < nd->n_attrs; j++) {
      const olg_attr *a = &nd->attrs[j];
      if (a->type == OLG_ATTR_GRAPH && (s = olg__mark_subgraph_refs(cx->reads, g, a->g, live_val)))
        goto done;
      for (size_t q = 0; a->type == OLG_ATTR_GRAPHS && q < a->n; q++)
        if ((s = olg__mark_subgraph_refs(cx->reads, g, a->graphs[q], live_val))) goto done;
    }
  }
  /* the live nodes move to their place in the order within g->nodes, following the cycles of
     the permutation (dead nodes take the places past the live ones): a second node array would
     be the peak's largest temporary at a million nodes, and a lowering that interns a Constant
     puts it ahead of earlier ids (Kahn's queue starts with every node without inputs) */
  uint32_t m = 0;
  for (uint32_t k = 0; k < n_order; k++)
    if (newid[order[k]] >= 0) newid[order[k]] = (int32_t)m++;
  for (uint32_t i = 0, d = m; i < n; i++)
    if (newid[i] < 0) newid[i] = (int32_t)d++;
  for (uint32_t i = 0; i < n; i++) {
    /* newid[j] < 0 after this loop: node j already moved (~newid[j] keeps its new id) */
    if (newid[i] < 0 || (uint32_t)newid[i] == i) {
      if (newid[i] >= 0) newid[i] = ~newid[i];
      continue;
    }
    olg_node carry = g->nodes[i];
    uint32_t j = i;
    while (newid[j] >= 0) {
      uint32_t to = (uint32_t)newid[j];
      newid[j] = ~newid[j];
      olg_node t = g->nodes[to];
      g->nodes[to] = carry;
      carry = t;
      j = to;
    }
  }
  for (uint32_t i = 0; i < n; i++) {
    newid[i] = ~newid[i];
    if ((uint32_t)newid[i] >= m) newid[i] = -1;
  }
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
      OLG_TRY(olg__value_set_known(cx->dst_model, r, NULL));
      continue;
    }
    r->init = (int32_t)k;
    g->inits[k++] = g->inits[i];
  }
  g->n_inits = k;
  /* value_info entries (olg__lower_value_info) of values no node computes any more */
  k = 0;
  for (uint32_t i = 0; i < g->value_info.n; i++) {
    olg_value_rec *r = &g->values[g->value_info.p[i]];
    if (r->producer >= 0 || (r->flags & (OLG_VF_INPUT | OLG_VF_INITIALIZER)))
      g->value_info.p[k++] = g->value_info.p[i];
    else
      r->flags &= ~(uint32_t)OLG_VF_VALUE_INFO;
  }
  g->value_info.n = k;
  (void)n_live;
done:
  olg__free(al, order, (size_t)n * sizeof *order);
  olg__free(al, live_val, g->n_values ? g->n_values : 1);
  olg__free(al, newid, (size_t)n * sizeof *newid);
  return s;
}

/* A subgraph's initializers as Constant nodes ahead of its others, each keeping its value (name,
 * contents): at IR 3 every initializer must be an input of its graph too, and a subgraph's inputs
 * are its op's to say (an If branch has none). Before Constant-9 a Constant holds floating types
 * alone: an initializer of another type is refused, naming the opset that takes it. */
static olg_status inits_as_constants(olg_lower *cx) {
  olg_graph *g = cx->dst;
  olg_model *m = cx->dst_model;
  const olg_schema *cs = olg_schema_find("", "Constant", cx->opset);
  const olg_formal *f = cs ? olg_schema_output_formal(cs, 0) : NULL;
  uint32_t k = 0;
  for (uint32_t i = 0; i < g->n_inits; i++) {
    const olg_value_rec *r = &g->values[g->inits[i].v];
    if (r->flags & OLG_VF_INPUT) continue;
    olg_dtype dt = g->inits[i].t->dtype;
    if (f && !olg_schema_formal_allows_dtype(f, dt)) {
      char what[600];
      const char *tn = olg_dtype_name(dt) ? olg_dtype_name(dt) : "?";
      snprintf(what, sizeof what, "initializer '%s' of subgraph '%s' (%s): at IR 3 a subgraph's "
               "initializer must be a Constant node, and a Constant of %s", r->name, g->name, tn, tn);
      return olg_lower_unsupported(cx, what, 9);
    }
    k++;
  }
  if (!k) return OLG_OK;
  if (g->n_nodes > UINT32_MAX / 2 - k) return olg__err(OLG_ERR_LIMIT, "too many nodes");
  OLG_TRY(olg__grow(&m->alloc, (void **)&g->nodes, &g->cap_nodes, (size_t)g->n_nodes + k, sizeof *g->nodes));
  memmove(g->nodes + k, g->nodes, (size_t)g->n_nodes * sizeof *g->nodes);
  for (uint32_t v = 0; v < g->n_values; v++)
    if (g->values[v].producer >= 0) g->values[v].producer += (olg_node_id)k;
  g->n_nodes += k;
  uint32_t kept = 0, made = 0;
  for (uint32_t i = 0; i < g->n_inits; i++) {
    olg_value v = g->inits[i].v;
    olg_value_rec *r = &g->values[v];
    if (r->flags & OLG_VF_INPUT) { /* an input with a default (IR 3's own way): stays */
      r->init = (int32_t)kept;
      g->inits[kept++] = g->inits[i];
      continue;
    }
    olg_attr *a = olg__arena_alloc(m, sizeof *a);
    olg_value *out = olg__arena_alloc(m, sizeof *out);
    if (!a || !out) return OLG_ERR_NOMEM;
    *a = (olg_attr){.name = "value", .type = OLG_ATTR_TENSOR, .t = g->inits[i].t};
    *out = v;
    g->nodes[made] = (olg_node){.domain = "", .op = "Constant", .name = "", .outputs = out,
                                .attrs = a, .n_outputs = 1, .n_attrs = 1, .state = OLG_NODE_DONE};
    r->producer = (olg_node_id)made++;
    r->flags &= ~(uint32_t)OLG_VF_INITIALIZER;
    r->init = -1;
  }
  g->n_inits = kept;
  return OLG_OK;
}

/* Marks the values of the target graph that its subgraphs read by name. */
olg_status olg__compute_protect(olg_lower *cx) {
  olg_graph *g = cx->dst;
  bool any = false;
  for (uint32_t i = 0; i < g->n_nodes && !any; i++)
    any = g->nodes[i].state == OLG_NODE_DONE && olg__has_subgraph(&g->nodes[i]);
  if (!any) return OLG_OK;
  cx->n_protect = g->n_values;
  cx->protect = olg__arena_alloc(cx->dst_model, g->n_values ? g->n_values : 1);
  if (!cx->protect) return OLG_ERR_NOMEM;
  for (uint32_t i = 0; i < g->n_nodes; i++) {
    const olg_node *nd = &g->nodes[i];
    if (nd->state != OLG_NODE_DONE) continue;
    for (uint32_t j = 0; j < nd->n_attrs; j++) {
      const olg_attr *a = &nd->attrs[j];
      if (a->type == OLG_ATTR_GRAPH) OLG_TRY(olg__mark_subgraph_refs(cx->reads, g, a->g, cx->protect));
      for (size_t k = 0; a->type == OLG_ATTR_GRAPHS && k < a->n; k++)
        OLG_TRY(olg__mark_subgraph_refs(cx->reads, g, a->graphs[k], cx->protect));
    }
  }
  return OLG_OK;
}

olg_status olg__cleanup(olg_lower *cx) {
  olg_graph *g = cx->dst;
  const olg_allocator *al = &cx->dst_model->alloc;
  cx->cur_node = NULL;
  if (cx->fold_weights) OLG_TRY(olg__fold_weights(cx)); /* passes/fold.c: adds values */
  uint32_t n_vals = g->n_values ? g->n_values : 1; /* what subst holds (freed with that size) */
  olg_value *subst = olg__malloc(al, (size_t)n_vals * sizeof *subst);
  if (!subst) return OLG_ERR_NOMEM;
  for (uint32_t v = 0; v < n_vals; v++) subst[v] = (olg_value)v;
  olg_status s = OLG_OK;
  if (cx->prof) {
    /* the profile's fixes emit nodes (new values): the engine grows subst for them */
    cx->subst = subst;
    cx->subst_cap = n_vals;
    s = olg__profile_rewrite(cx);
    subst = cx->subst;
    n_vals = cx->subst_cap;
    cx->subst = NULL;
    cx->subst_cap = 0;
    if (s) goto done;
    if (g->n_values > n_vals) { /* the engine checks each fix's growth: cannot happen */
      s = olg__err(OLG_ERR_LIMIT, "%s rewrite: too many new values", cx->prof->name);
      goto done;
    }
    apply_subst(g, subst);
  }
  /* the source -> target map served the lowering and the rewrites: not kept for the peak */
  olg__free(al, cx->map, (size_t)cx->map_len * sizeof *cx->map);
  cx->map = NULL;
  bool changed = false;
  if ((s = fold_and_dedup(cx, subst, &changed))) goto done;
  if (changed) apply_subst(g, subst); /* else the arguments are as they were */
  olg__free(al, subst, (size_t)n_vals * sizeof *subst);
  if ((s = dce_and_compact(cx))) return s;
  if (cx->parent && cx->dst_model->ir_version < 4 && (s = inits_as_constants(cx))) return s;
  return olg__lower_annotations_finish(cx);
done:
  olg__free(al, subst, (size_t)n_vals * sizeof *subst);
  return s;
}

