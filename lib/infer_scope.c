/* onnxlegal — shape and type inference: which enclosing graph defines a name a subgraph reads,
 * in O(1) whatever the nesting. olg__resolve walks the enclosing graphs, one lookup each, which
 * made inference quadratic in the nesting depth (If nested 1,000 deep); while infer_graph
 * recurses through the bodies it keeps one map instead, name -> a stack of the definitions of
 * the graphs it is in (each graph pushes its names when it starts and pops them when it ends). */

#include "infer_impl.h"
#include "namestack.h"

struct olg_iscopes {
  olg_namestack ns; /* entries: .tag the level, .v the value, .p its graph */
  /* the graphs pushed, innermost last; ok: each is the parent of the next, from the main graph
   * on (the map then answers as the walk would; otherwise the walk is used) */
  struct ilevel { const olg_graph *g; uint32_t first; bool ok; olg_node_id limit; } *lv;
  uint32_t n_lv, cap_lv;
};

olg_status olg__iscopes_new(const olg_allocator *al, olg_iscopes **out) {
  *out = olg__calloc(al, 1, sizeof **out);
  if (!*out) return OLG_ERR_NOMEM;
  (*out)->ns.al = al;
  return OLG_OK;
}

void olg__iscopes_free(olg_iscopes *sc) {
  if (!sc) return;
  const olg_allocator *al = sc->ns.al;
  olg__ns_free(&sc->ns);
  olg__free(al, sc->lv, (size_t)sc->cap_lv * sizeof *sc->lv);
  olg__free(al, sc, sizeof *sc);
}

/* Whether a node of g holds a subgraph: only a subgraph reads g's entries in the map (g's own
 * lookups skip them), so a graph without one pushes none (a 1M-node chain hashed every name
 * once more for nothing). A model of one graph has none without looking at its nodes. */
static bool holds_subgraphs(const olg_graph *g) {
  if (g->model && g->model->n_graphs <= 1) return false;
  for (uint32_t i = 0; i < g->n_nodes; i++)
    for (uint32_t a = 0; a < g->nodes[i].n_attrs; a++) {
      uint8_t t = g->nodes[i].attrs[a].type;
      if (t == OLG_ATTR_GRAPH || t == OLG_ATTR_GRAPHS) return true;
    }
  return false;
}

/* Pushes g's definitions: the records the walk of olg__resolve stops at (the record its name
 * map gives, when that is not itself a reference further out). */
olg_status olg__iscopes_push(olg_iscopes *sc, const olg_graph *g) {
  if (sc->n_lv == sc->cap_lv) {
    uint32_t nc = sc->cap_lv ? sc->cap_lv * 2 : 16;
    struct ilevel *lv = olg__realloc(sc->ns.al, sc->lv, (size_t)sc->cap_lv * sizeof *lv, (size_t)nc * sizeof *lv);
    if (!lv) return OLG_ERR_NOMEM;
    sc->lv = lv;
    sc->cap_lv = nc;
  }
  const struct ilevel *up = sc->n_lv ? &sc->lv[sc->n_lv - 1] : NULL;
  bool ok = up ? up->ok && g->parent == up->g : !g->parent;
  sc->lv[sc->n_lv++] = (struct ilevel){g, sc->ns.n, ok, -1};
  if (!ok || !holds_subgraphs(g)) return OLG_OK; /* the walk answers for this graph and those
                                                    inside it; no subgraph reads its entries */
  for (uint32_t v = 0; v < g->n_values; v++) {
    const olg_value_rec *r = &g->values[v];
    if (!r->name || !*r->name || olg__is_outer_ref(g, r) ||
        olg__graph_lookup(g, r->name) != (olg_value)v)
      continue;
    if (olg__ns_push(&sc->ns, r->name, sc->n_lv - 1, (olg_value)v, g)) return OLG_ERR_NOMEM;
  }
  return OLG_OK;
}

void olg__iscopes_pop(olg_iscopes *sc) {
  if (!sc->n_lv) return;
  olg__ns_pop_to(&sc->ns, sc->lv[--sc->n_lv].first);
}

olg_value_rec *olg__resolve_in(const olg_iscopes *sc, const olg_graph *g, olg_value v) {
  olg_value_rec *r = &g->values[v];
  /* a main graph's value that is no outer reference is itself (olg__is_outer_ref): the one case
     of every emitted node's inputs, asked for several times per node */
  if (!g->parent && !(r->flags & OLG_VF_OUTER)) return r;
  if (!sc || !sc->n_lv || sc->lv[sc->n_lv - 1].g != g || !sc->lv[sc->n_lv - 1].ok)
    return olg__resolve(g, v, NULL);
  if (!olg__is_outer_ref(g, r) || !*r->name || (r->flags & OLG_VF_RESOLVED)) return r;
  const olg_ns_entry *e = sc->ns.e;
  int32_t k = olg__ns_find(&sc->ns, r->name);
  while (k >= 0 && e[k].p == g) k = e[k].prev;
  return k >= 0 ? &((olg_graph *)e[k].p)->values[e[k].v] : r;
}

/* ---- for the checker: the same map, with the node of each enclosing graph whose subgraphs
 * are being checked (its names are visible when defined before it) ---- */

void olg__iscopes_set_limit(olg_iscopes *sc, olg_node_id limit) {
  if (sc && sc->n_lv) sc->lv[sc->n_lv - 1].limit = limit;
}

bool olg__iscopes_covers(const olg_iscopes *sc, const olg_graph *g) {
  return sc && sc->n_lv && sc->lv[sc->n_lv - 1].g == g && sc->lv[sc->n_lv - 1].ok;
}

int32_t olg__iscopes_outer(const olg_iscopes *sc, const char *name) {
  int32_t k = olg__ns_find(&sc->ns, name);
  while (k >= 0 && sc->ns.e[k].tag == sc->n_lv - 1) k = sc->ns.e[k].prev;
  return k;
}

int32_t olg__iscopes_next(const olg_iscopes *sc, int32_t k) { return sc->ns.e[k].prev; }

const olg_value_rec *olg__iscopes_entry(const olg_iscopes *sc, int32_t k, const olg_graph **g,
                                        olg_node_id *limit) {
  const olg_ns_entry *e = &sc->ns.e[k];
  *g = e->p;
  *limit = sc->lv[e->tag].limit;
  return &((const olg_graph *)e->p)->values[e->v];
}
