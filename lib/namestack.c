/* onnxlegal — names to stacks of entries (lib/namestack.h). */
#include "namestack.h"

#include <string.h>

#include "ir.h" /* olg__count_probe: tests count the probes to check the walks stay linear */
#include "util.h"

static uint32_t hash_name(const char *s) {
  uint32_t h = 2166136261u;
  for (; *s; s++) h = (h ^ (uint8_t)*s) * 16777619u;
  return h;
}

static uint32_t slot_of(const olg_namestack *s, const char *name) {
  uint32_t i = hash_name(name) & (s->cap - 1);
  for (;; i = (i + 1) & (s->cap - 1)) {
    olg__count_probe();
    if (!s->keys[i] || strcmp(s->keys[i], name) == 0) return i;
  }
}

/* Doubles the key table; the entries' slots move with their keys. */
static olg_status grow_keys(olg_namestack *s) {
  uint32_t nc = s->cap ? s->cap * 2 : 64;
  const char **keys = olg__calloc(s->al, nc, sizeof *keys);
  int32_t *head = keys ? olg__malloc(s->al, (size_t)nc * sizeof *head) : NULL;
  uint32_t *moved = head && s->cap ? olg__malloc(s->al, (size_t)s->cap * sizeof *moved) : NULL;
  if (!head || (s->cap && !moved)) {
    olg__free(s->al, keys, (size_t)nc * sizeof *keys);
    olg__free(s->al, head, (size_t)nc * sizeof *head);
    return OLG_ERR_NOMEM;
  }
  for (uint32_t j = 0; j < s->cap; j++) {
    if (!s->keys[j]) continue;
    uint32_t i = hash_name(s->keys[j]) & (nc - 1);
    while (keys[i]) i = (i + 1) & (nc - 1);
    keys[i] = s->keys[j];
    head[i] = s->head[j];
    moved[j] = i;
  }
  for (uint32_t k = 0; k < s->n; k++) s->e[k].key = moved[s->e[k].key];
  olg__free(s->al, moved, (size_t)s->cap * sizeof *moved);
  olg__free(s->al, s->keys, (size_t)s->cap * sizeof *s->keys);
  olg__free(s->al, s->head, (size_t)s->cap * sizeof *s->head);
  s->keys = keys;
  s->head = head;
  s->cap = nc;
  return OLG_OK;
}

olg_status olg__ns_push(olg_namestack *s, const char *name, uint32_t tag, int32_t v,
                        const void *p) {
  if ((s->n_keys + 1) * 2 > s->cap && grow_keys(s)) return OLG_ERR_NOMEM;
  if (s->n == s->cap_e) {
    uint32_t nc = s->cap_e ? s->cap_e * 2 : 64;
    olg_ns_entry *e = olg__realloc(s->al, s->e, (size_t)s->cap_e * sizeof *e, (size_t)nc * sizeof *e);
    if (!e) return OLG_ERR_NOMEM;
    s->e = e;
    s->cap_e = nc;
  }
  uint32_t i = slot_of(s, name);
  if (!s->keys[i]) {
    s->keys[i] = name;
    s->head[i] = -1;
    s->n_keys++;
  }
  s->e[s->n] = (olg_ns_entry){s->head[i], i, tag, v, p};
  s->head[i] = (int32_t)s->n++;
  return OLG_OK;
}

void olg__ns_pop_to(olg_namestack *s, uint32_t n) {
  while (s->n > n) {
    const olg_ns_entry *e = &s->e[--s->n];
    s->head[e->key] = e->prev;
  }
}

int32_t olg__ns_find(const olg_namestack *s, const char *name) {
  if (!s->cap || !name) return -1;
  uint32_t i = slot_of(s, name);
  return s->keys[i] ? s->head[i] : -1;
}

void olg__ns_free(olg_namestack *s) {
  if (!s) return;
  olg__free(s->al, s->keys, (size_t)s->cap * sizeof *s->keys);
  olg__free(s->al, s->head, (size_t)s->cap * sizeof *s->head);
  olg__free(s->al, s->e, (size_t)s->cap_e * sizeof *s->e);
  s->keys = NULL;
  s->head = NULL;
  s->e = NULL;
  s->cap = s->n_keys = s->n = s->cap_e = 0;
}
