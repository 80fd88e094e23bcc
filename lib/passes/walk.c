/* onnxlegal — walks over a target graph shared by the driver and the cleanup: subgraph
 * references by name, and a topological order that counts them as edges. */
#include "lower.h"
#include "passes/passes.h"

bool olg__has_subgraph(const olg_node *nd) {
  for (uint32_t i = 0; i < nd->n_attrs; i++)
    if (nd->attrs[i].type == OLG_ATTR_GRAPH || nd->attrs[i].type == OLG_ATTR_GRAPHS) return true;
  return false;
}


/* Marks the names a subgraph reads from enclosing graphs as live in g. The walks below recurse
 * through nested subgraphs: no deeper than the lowering goes (OLG_MAX_GRAPH_DEPTH), so that no
 * input exhausts the stack. */
static void mark_refs(olg_graph *g, const olg_graph *sub, uint8_t *live_val, int depth) {
  if (depth > OLG_MAX_GRAPH_DEPTH) return;
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
      if (a->type == OLG_ATTR_GRAPH && a->g) mark_refs(g, a->g, live_val, depth + 1);
      for (size_t k = 0; a->type == OLG_ATTR_GRAPHS && k < a->n; k++)
        if (a->graphs[k]) mark_refs(g, a->graphs[k], live_val, depth + 1);
    }
  }
}

void olg__mark_subgraph_refs(olg_graph *g, const olg_graph *sub, uint8_t *live_val) {
  mark_refs(g, sub, live_val, 1);
}

bool olg__reads_by_name(const olg_value_rec *r) {
  return r->producer < 0 && !(r->flags & (OLG_VF_INPUT | OLG_VF_INITIALIZER));
}

/* The producers a node depends on: its value arguments' and, for a node with subgraphs, those
 * of the values the subgraphs read by name from this graph (implicit inputs, which the graph's
 * own topological order does not see). fn(ud, producer) for each, duplicates possible. */
static void subgraph_producers(const olg_graph *g, const olg_graph *sub,
                               void (*fn)(void *, int32_t), void *ud, int depth) {
  if (depth > OLG_MAX_GRAPH_DEPTH) return;
  for (uint32_t i = 0; i < sub->n_nodes; i++) {
    const olg_node *nd = &sub->nodes[i];
    if (nd->state != OLG_NODE_DONE) continue;
    for (uint32_t j = 0; j < nd->n_args; j++) {
      const olg_arg *a = &nd->args[j];
      size_t cnt = a->kind == OLG_ARG_VALUE ? 1 : a->kind == OLG_ARG_VALUES ? a->u.vals.n : 0;
      for (size_t k = 0; k < cnt; k++) {
        olg_value v = a->kind == OLG_ARG_VALUE ? a->u.v : a->u.vals.p[k];
        if (v < 0 || !olg__reads_by_name(&sub->values[v])) continue;
        olg_value ov = olg__graph_lookup(g, sub->values[v].name);
        if (ov >= 0 && g->values[ov].producer >= 0) fn(ud, g->values[ov].producer);
      }
    }
    for (uint32_t j = 0; j < nd->n_attrs; j++) {
      const olg_attr *a = &nd->attrs[j];
      if (a->type == OLG_ATTR_GRAPH && a->g) subgraph_producers(g, a->g, fn, ud, depth + 1);
      for (size_t k = 0; a->type == OLG_ATTR_GRAPHS && k < a->n; k++)
        if (a->graphs[k]) subgraph_producers(g, a->graphs[k], fn, ud, depth + 1);
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
    if (a->type == OLG_ATTR_GRAPH && a->g) subgraph_producers(g, a->g, fn, ud, 1);
    for (size_t k = 0; a->type == OLG_ATTR_GRAPHS && k < a->n; k++)
      if (a->graphs[k]) subgraph_producers(g, a->graphs[k], fn, ud, 1);
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
olg_status olg__graph_order(const olg_graph *g, const olg_allocator *al, olg_node_id *order) {
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
