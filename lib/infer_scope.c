/* onnxlegal — shape and type inference: which enclosing graph defines a name a subgraph reads,
 * in O(1) whatever the nesting. olg__resolve walks the enclosing graphs, one lookup each, which
 * made inference quadratic in the nesting depth (If nested 1,000 deep); while infer_graph
 * recurses through the bodies it keeps one map instead, name -> a stack of the definitions of
 * the graphs it is in (each graph pushes its names when it starts and pops them when it ends). */
#include <string.h>

#include "infer_impl.h"

struct olg_iscopes {
  const olg_allocator *al;
  const char **keys; /* open addressing, cap a power of two */
  int32_t *head;     /* per key: its newest entry, or -1 */
  uint32_t cap, n_keys;
  struct ientry { int32_t prev; uint32_t key; uint32_t level; olg_value v; const olg_graph *g; } *e;
  uint32_t n, cap_e;
  /* the graphs pushed, innermost last; ok: each is the parent of the next, from the main graph
   * on (the map then answers as the walk would; otherwise the walk is used) */
  struct ilevel { const olg_graph *g; uint32_t first; bool ok; olg_node_id limit; } *lv;
  uint32_t n_lv, cap_lv;
};

static uint32_t hash_name(const char *s) {
  uint32_t h = 2166136261u;
  for (; *s; s++) h = (h ^ (uint8_t)*s) * 16777619u;
  return h;
}

static uint32_t slot_of(const olg_iscopes *sc, const char *name) {
  uint32_t i = hash_name(name) & (sc->cap - 1);
  for (;; i = (i + 1) & (sc->cap - 1)) {
    olg__count_probe();
    if (!sc->keys[i] || strcmp(sc->keys[i], name) == 0) return i;
  }
}

olg_status olg__iscopes_new(const olg_allocator *al, olg_iscopes **out) {
  *out = olg__calloc(al, 1, sizeof **out);
  if (!*out) return OLG_ERR_NOMEM;
  (*out)->al = al;
  return OLG_OK;
}

void olg__iscopes_free(olg_iscopes *sc) {
  if (!sc) return;
  const olg_allocator *al = sc->al;
  olg__free(al, sc->keys, (size_t)sc->cap * sizeof *sc->keys);
  olg__free(al, sc->head, (size_t)sc->cap * sizeof *sc->head);
  olg__free(al, sc->e, (size_t)sc->cap_e * sizeof *sc->e);
  olg__free(al, sc->lv, (size_t)sc->cap_lv * sizeof *sc->lv);
  olg__free(al, sc, sizeof *sc);
}

static olg_status grow_keys(olg_iscopes *sc) {
  uint32_t nc = sc->cap ? sc->cap * 2 : 64;
  const char **keys = olg__calloc(sc->al, nc, sizeof *keys);
  int32_t *head = keys ? olg__malloc(sc->al, (size_t)nc * sizeof *head) : NULL;
  uint32_t *moved = head && sc->cap ? olg__malloc(sc->al, (size_t)sc->cap * sizeof *moved) : NULL;
  if (!head || (sc->cap && !moved)) {
    olg__free(sc->al, keys, (size_t)nc * sizeof *keys);
    olg__free(sc->al, head, (size_t)nc * sizeof *head);
    return OLG_ERR_NOMEM;
  }
  for (uint32_t j = 0; j < sc->cap; j++) {
    if (!sc->keys[j]) continue;
    uint32_t i = hash_name(sc->keys[j]) & (nc - 1);
    while (keys[i]) i = (i + 1) & (nc - 1);
    keys[i] = sc->keys[j];
    head[i] = sc->head[j];
    moved[j] = i;
  }
  for (uint32_t k = 0; k < sc->n; k++) sc->e[k].key = moved[sc->e[k].key];
  olg__free(sc->al, moved, (size_t)sc->cap * sizeof *moved);
  olg__free(sc->al, sc->keys, (size_t)sc->cap * sizeof *sc->keys);
  olg__free(sc->al, sc->head, (size_t)sc->cap * sizeof *sc->head);
  sc->keys = keys;
  sc->head = head;
  sc->cap = nc;
  return OLG_OK;
}

/* Pushes g's definitions: the records the walk of olg__resolve stops at (the record its name
 * map gives, when that is not itself a reference further out). */
olg_status olg__iscopes_push(olg_iscopes *sc, const olg_graph *g) {
  if (sc->n_lv == sc->cap_lv) {
    uint32_t nc = sc->cap_lv ? sc->cap_lv * 2 : 16;
    struct ilevel *lv = olg__realloc(sc->al, sc->lv, (size_t)sc->cap_lv * sizeof *lv, (size_t)nc * sizeof *lv);
    if (!lv) return OLG_ERR_NOMEM;
    sc->lv = lv;
    sc->cap_lv = nc;
  }
  const struct ilevel *up = sc->n_lv ? &sc->lv[sc->n_lv - 1] : NULL;
  bool ok = up ? up->ok && g->parent == up->g : !g->parent;
  sc->lv[sc->n_lv++] = (struct ilevel){g, sc->n, ok, -1};
  if (!ok) return OLG_OK; /* the walk answers for this graph and those inside it */
  for (uint32_t v = 0; v < g->n_values; v++) {
    const olg_value_rec *r = &g->values[v];
    if (!r->name || !*r->name || olg__is_outer_ref(g, r) ||
        olg__graph_lookup(g, r->name) != (olg_value)v)
      continue;
    if ((sc->n_keys + 1) * 2 > sc->cap && grow_keys(sc)) return OLG_ERR_NOMEM;
    if (sc->n == sc->cap_e) {
      uint32_t nc = sc->cap_e ? sc->cap_e * 2 : 64;
      struct ientry *e = olg__realloc(sc->al, sc->e, (size_t)sc->cap_e * sizeof *e, (size_t)nc * sizeof *e);
      if (!e) return OLG_ERR_NOMEM;
      sc->e = e;
      sc->cap_e = nc;
    }
    uint32_t i = slot_of(sc, r->name);
    if (!sc->keys[i]) {
      sc->keys[i] = r->name;
      sc->head[i] = -1;
      sc->n_keys++;
    }
    sc->e[sc->n] = (struct ientry){sc->head[i], i, sc->n_lv - 1, (olg_value)v, g};
    sc->head[i] = (int32_t)sc->n++;
  }
  return OLG_OK;
}

void olg__iscopes_pop(olg_iscopes *sc) {
  if (!sc->n_lv) return;
  uint32_t first = sc->lv[--sc->n_lv].first;
  while (sc->n > first) {
    const struct ientry *e = &sc->e[--sc->n];
    sc->head[e->key] = e->prev;
  }
}

olg_value_rec *olg__resolve_in(const olg_iscopes *sc, const olg_graph *g, olg_value v) {
  olg_value_rec *r = &g->values[v];
  if (!sc || !sc->n_lv || sc->lv[sc->n_lv - 1].g != g || !sc->lv[sc->n_lv - 1].ok)
    return olg__resolve(g, v, NULL);
  if (!olg__is_outer_ref(g, r) || !*r->name || (r->flags & OLG_VF_RESOLVED)) return r;
  if (!sc->cap) return r;
  uint32_t i = slot_of(sc, r->name);
  if (!sc->keys[i]) return r;
  int32_t k = sc->head[i];
  while (k >= 0 && sc->e[k].g == g) k = sc->e[k].prev;
  return k >= 0 ? &((olg_graph *)sc->e[k].g)->values[sc->e[k].v] : r;
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
  if (!sc->cap || !name) return -1;
  uint32_t i = slot_of(sc, name);
  if (!sc->keys[i]) return -1;
  int32_t k = sc->head[i];
  while (k >= 0 && sc->e[k].level == sc->n_lv - 1) k = sc->e[k].prev;
  return k;
}

int32_t olg__iscopes_next(const olg_iscopes *sc, int32_t k) { return sc->e[k].prev; }

const olg_value_rec *olg__iscopes_entry(const olg_iscopes *sc, int32_t k, const olg_graph **g,
                                        olg_node_id *limit) {
  const struct ientry *e = &sc->e[k];
  *g = e->g;
  *limit = sc->lv[e->level].limit;
  return &e->g->values[e->v];
}
