/* onnxlegal — the name maps of a graph (values, and node names) and the names a graph makes up
 * for new values and nodes (graph_impl.h): apart from graph.c for its size. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "graph_impl.h"

/* ---------------------------------------------------------------------------------------- */
/* Name map: a word-at-a-time hash (below), linear probing, load <= 1/2. A slot holds key, hash
 * and id together: a probe of a large map costs one cache line. */

#if defined(__OPTIMIZE_SIZE__)
/* Built for size (-Os: the minimal configuration's 64 KiB): a byte at a time (FNV-1a), with the
 * same final mix. The value differs from the word-at-a-time one; it is never stored. */
uint32_t olg__name_hash(const char *p, size_t *n) {
  uint64_t h = 14695981039346656037u;
  size_t i = 0;
  for (; i < *n && p[i]; i++) h = (h ^ (uint8_t)p[i]) * 1099511628211u;
  *n = i;
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdu;
  h ^= h >> 33;
  return (uint32_t)h;
}
#else
static inline uint64_t load64(const char *p) {
  uint64_t w;
  memcpy(&w, p, 8);
  return w;
}

static inline uint32_t load32(const char *p) {
  uint32_t w;
  memcpy(&w, p, 4);
  return w;
}

/* The hash of len bytes at p: sixteen at a time (two multiplies that do not wait on each other
 * and one zero test for both words), then the last 1 to 15 in the words that end with them.
 * With check, a word that holds a zero byte stops it (false: *nul says so). */
static inline uint64_t hash_words(const char *p, size_t len, bool check, bool *nul) {
  const uint64_t k1 = 0xc2b2ae3d27d4eb4fu, k2 = 0x94d049bb133111ebu;
  const uint64_t lo = 0x0101010101010101u, hi = 0x8080808080808080u;
  uint64_t h = olg__name_hash_seed(len), a, b;
  size_t i = 0;
  for (; i + 16 <= len; i += 16) {
    a = load64(p + i), b = load64(p + i + 8);
    if (check && (((a - lo) & ~a) | ((b - lo) & ~b)) & hi) return *nul = true, 0;
    h = ((h ^ a) * k1) ^ (b * k2);
    h ^= h >> 31;
  }
  if (i < len) { /* 1 to 15 bytes left, len >= 8 */
    a = load64(p + (len - i > 8 ? i : len - 8)), b = load64(p + len - 8);
    if (check && (((a - lo) & ~a) | ((b - lo) & ~b)) & hi) return *nul = true, 0;
    h = ((h ^ a) * k1) ^ (b * k2);
  }
  return h;
}

/* The hash depends on the bytes up to the end (the first NUL or *n) and their count alone, not
 * on how the end was given: a word at a time where the byte loop it replaced took ~7
 * instructions a byte (names of exported models are long). Words are loaded in host order:
 * the value differs between hosts, never within a process. Only bytes before *n are read. */
uint32_t olg__name_hash_any(const char *p, size_t *n) {
  size_t len = *n;
  bool given = len != SIZE_MAX, nul = false; /* not given: a C string, whose end is known */
  if (!given) len = strlen(p);
  uint64_t h;
  if (len >= 8) {
    h = given ? hash_words(p, len, true, &nul) : hash_words(p, len, false, &nul);
  } else {
    h = olg__name_hash_seed(len);
    uint64_t x;
    if (len >= 4) {
      uint32_t a = load32(p), b = load32(p + len - 4);
      nul = given && (olg__has_zero32(a) || olg__has_zero32(b));
      x = (uint64_t)a << 32 | b;
    } else { /* 0 to 3 bytes: the first, middle and last cover them */
      uint8_t a = len ? (uint8_t)p[0] : 1, b = len ? (uint8_t)p[len / 2] : 1,
              c = len ? (uint8_t)p[len - 1] : 1;
      nul = given && (!a || !b || !c);
      x = (uint64_t)a << 16 | (uint64_t)b << 8 | c;
    }
    h = (h ^ x) * 0xc2b2ae3d27d4eb4fu;
  }
  if (nul) {
    /* a NUL among the bytes (rare: a name from a file with a NUL in it): the hash of the bytes
       before it, which hold none */
    size_t i = 0;
    while (p[i]) i++;
    *n = i;
    return olg__name_hash_any(p, n);
  }
  *n = len;
  return olg__name_hash_end(h);
}
#endif

static uint32_t hash_str(const char *s) { return olg__name_hash(s, &(size_t){SIZE_MAX}); }

_Thread_local uint64_t olg__probes;

/* key: n bytes without NUL, h: their olg__name_hash. */
int32_t olg__g_namemap_get_h(const olg_namemap *nm, const char *key, size_t n, uint32_t h) {
  if (!nm->cap) return -1;
  uint32_t mask = nm->cap - 1;
  for (uint32_t i = h & mask;; i = (i + 1) & mask) {
    olg__count_probe();
    const olg_name_slot *e = &nm->slots[i];
    if (!e->key) return -1;
    if (e->hash == h && memcmp(e->key, key, n) == 0 && !e->key[n]) return e->id;
  }
}

#ifndef OLG_CONFIG_NO_CHECK /* the function inliner's: the minimal configuration's 64 KiB */
int32_t olg__g_namemap_get(const olg_namemap *nm, const char *key) {
  size_t n = SIZE_MAX;
  uint32_t h = olg__name_hash(key, &n);
  return olg__g_namemap_get_h(nm, key, n, h);
}
#endif

/* Room for n names at load 1/2 (a lowering knows about how many it will add). */
olg_status olg__g_namemap_reserve(const olg_allocator *a, olg_namemap *nm, uint32_t n) {
  if (n > (1u << 30)) return olg__err(OLG_ERR_LIMIT, "too many names");
  uint32_t nc = nm->cap ? nm->cap : 8;
  while (nc < 2 * n) nc *= 2;
  if (nc == nm->cap) return OLG_OK;
  olg_name_slot *slots = olg__calloc(a, nc, sizeof *slots);
  if (!slots) return OLG_ERR_NOMEM;
  for (uint32_t j = 0; j < nm->cap; j++) {
    if (!nm->slots[j].key) continue;
    uint32_t i = nm->slots[j].hash & (nc - 1);
    while (slots[i].key) i = (i + 1) & (nc - 1);
    slots[i] = nm->slots[j];
  }
  olg__free(a, nm->slots, (size_t)nm->cap * sizeof *nm->slots);
  nm->slots = slots;
  nm->cap = nc;
  return OLG_OK;
}

olg_status olg__g_namemap_put_h(const olg_allocator *a, olg_namemap *nm, const char *key,
                                int32_t id, uint32_t h) {
  if ((nm->n + 1) * 2 > nm->cap) {
    if (nm->cap >= (1u << 31)) return olg__err(OLG_ERR_LIMIT, "too many names");
    olg_status s = olg__g_namemap_reserve(a, nm, nm->cap ? nm->cap : 4);
    if (s) return s;
  }
  uint32_t mask = nm->cap - 1, i = h & mask;
  while (nm->slots[i].key) i = (i + 1) & mask;
  nm->slots[i] = (olg_name_slot){key, h, id};
  nm->n++;
  return OLG_OK;
}

#ifndef OLG_CONFIG_NO_CHECK /* the function inliner's */
olg_status olg__g_namemap_put(const olg_allocator *a, olg_namemap *nm, const char *key, int32_t id) {
  return olg__g_namemap_put_h(a, nm, key, id, hash_str(key));
}
#endif

void olg__g_namemap_free(const olg_allocator *a, olg_namemap *nm) {
  olg__free(a, nm->slots, (size_t)nm->cap * sizeof *nm->slots);
  memset(nm, 0, sizeof *nm);
}

/* ---------------------------------------------------------------------------------------- */
/* The value map (ir.h, olg_valmap): the same probing, the key of a slot being the name of its
 * value record. */

olg_value olg__g_valmap_get_h(const olg_valmap *vm, const olg_value_rec *values, const char *p,
                              size_t n, uint32_t h) {
  uint32_t at; /* (a map has a free slot: it is never more than half full) */
  return vm->cap ? olg__g_valmap_probe(vm, values, p, n, h, &at) : -1;
}

#if !defined(OLG_CONFIG_NO_READER) || !defined(OLG_CONFIG_NO_LEGALIZE) /* the reader's, the lowering's */
/* The id of the value named by the n bytes at p (hashed h), or -1 once a slot for value id is put
 * (*st says whether that failed): one probe sequence where a lookup then a put took two (each a
 * cache miss in the map of a million-node graph). */
olg_value olg__g_valmap_get_or_put(const olg_allocator *a, olg_valmap *vm,
                                   const olg_value_rec *values, const char *p, size_t n,
                                   uint32_t h, olg_value id, olg_status *st) {
  *st = OLG_OK;
  if (id < 0 || id >= INT32_MAX) {
    *st = olg__err(OLG_ERR_LIMIT, "too many values");
    return -1;
  }
  if ((vm->n + 1) * 2 > vm->cap) {
    if (vm->cap >= (1u << 31)) {
      *st = olg__err(OLG_ERR_LIMIT, "too many names");
      return -1;
    }
    if ((*st = olg__g_valmap_reserve(a, vm, vm->cap ? vm->cap : 4))) return -1;
  }
  uint32_t i = 0;
  olg_value v = olg__g_valmap_probe(vm, values, p, n, h, &i);
  if (v >= 0) return v;
  vm->slots[i] = (olg_val_slot){h, (uint32_t)id + 1};
  vm->n++;
  return -1;
}
#endif

olg_status olg__g_valmap_reserve(const olg_allocator *a, olg_valmap *vm, uint32_t n) {
  if (n > (1u << 30)) return olg__err(OLG_ERR_LIMIT, "too many names");
  uint32_t nc = vm->cap ? vm->cap : 8;
  while (nc < 2 * n) nc *= 2;
  if (nc == vm->cap) return OLG_OK;
  olg_val_slot *slots = olg__calloc(a, nc, sizeof *slots);
  if (!slots) return OLG_ERR_NOMEM;
  for (uint32_t j = 0; j < vm->cap; j++) { /* by the stored hashes: no name is read */
    if (!vm->slots[j].id1) continue;
    uint32_t i = vm->slots[j].hash & (nc - 1);
    while (slots[i].id1) i = (i + 1) & (nc - 1);
    slots[i] = vm->slots[j];
  }
  olg__free(a, vm->slots, (size_t)vm->cap * sizeof *vm->slots);
  vm->slots = slots;
  vm->cap = nc;
  return OLG_OK;
}

olg_status olg__g_valmap_put_h(const olg_allocator *a, olg_valmap *vm, uint32_t h, olg_value id) {
  if (id < 0 || id >= INT32_MAX) return olg__err(OLG_ERR_LIMIT, "too many values");
  if ((vm->n + 1) * 2 > vm->cap) {
    if (vm->cap >= (1u << 31)) return olg__err(OLG_ERR_LIMIT, "too many names");
    olg_status s = olg__g_valmap_reserve(a, vm, vm->cap ? vm->cap : 4);
    if (s) return s;
  }
  uint32_t mask = vm->cap - 1, i = h & mask;
  while (vm->slots[i].id1) i = (i + 1) & mask;
  vm->slots[i] = (olg_val_slot){h, (uint32_t)id + 1};
  vm->n++;
  return OLG_OK;
}

void olg__g_valmap_del(olg_valmap *vm, uint32_t h, olg_value id) {
  if (!vm->cap || id < 0) return;
  uint32_t mask = vm->cap - 1, i = h & mask, id1 = (uint32_t)id + 1;
  olg_val_slot *e = vm->slots;
  while (e[i].id1 && (e[i].id1 != id1 || e[i].hash != h)) i = (i + 1) & mask;
  if (!e[i].id1) return;
  vm->n--;
  for (uint32_t j = i;;) {
    e[i].id1 = 0;
    for (;;) {
      j = (j + 1) & mask;
      if (!e[j].id1) return;
      uint32_t k = e[j].hash & mask; /* the slot's own hash: no name is read */
      /* the entry at j may move to i unless its home k lies cyclically in (i, j] */
      if ((i <= j) ? (i < k && k <= j) : (i < k || k <= j)) continue;
      break;
    }
    e[i] = e[j];
    i = j;
  }
}

void olg__g_valmap_free(const olg_allocator *a, olg_valmap *vm) {
  olg__free(a, vm->slots, (size_t)vm->cap * sizeof *vm->slots);
  memset(vm, 0, sizeof *vm);
}

void olg__g_valmap_del_named(olg_graph *g, uint32_t h, olg_value id) {
  olg__g_valmap_del(&g->names, h, id);
  olg__g_valmap_del(&g->kept, h, id);
}

/* Drops the most recently added value (rollback of a failed multi-step add): its slot leaves the
 * map while the record still holds its name. */
void olg__g_graph_pop_value(olg_graph *g) {
  olg_value id = (olg_value)g->n_values - 1;
  olg_value_rec *r = &g->values[id];
  if (r->flags & OLG_VF_AUTO_NAME) olg__g_forget_auto_name(g, r);
  else if (*r->name && !(r->flags & OLG_VF_DUPLICATE)) olg__g_valmap_del_named(g, hash_str(r->name), id);
  g->n_values--;
}

/* ---------------------------------------------------------------------------------------- */
/* Made-up names */

const char *olg__graph_unique_name(olg_graph *g, const char *base) {
  char buf[64];
  for (;;) {
    const char *b = base && *base ? base : "v";
    size_t bl = strlen(b);
    olg_sbuf sb = {buf, 0, sizeof buf}; /* "_%llu" */
    olg__sb_mem(&sb, "_", 1);
    olg__sb_u64(&sb, g->next_auto++);
    int k = (int)sb.n;
    char *p = olg__arena_alloc_str(g->model, bl + (size_t)k + 1);
    if (!p) return NULL;
    memcpy(p, b, bl);
    memcpy(p + bl, buf, (size_t)k + 1);
    if (olg__graph_lookup(g, p) < 0) return p;
  }
}

/* The number k of a name "<x>_<k>" (k up to UINT32_MAX), as generated names end. */
bool olg__g_name_number(const char *p, size_t n, uint32_t *k) {
  size_t i = n;
  uint64_t v = 0, scale = 1;
  while (i > 0 && p[i - 1] >= '0' && p[i - 1] <= '9' && n - i < 10) {
    v += (uint64_t)(p[i - 1] - '0') * scale;
    scale *= 10;
    i--;
  }
  if (i == n || i == 0 || p[i - 1] != '_' || v > UINT32_MAX) return false;
  *k = (uint32_t)v;
  return true;
}

/* The two below with the name's number parsed by the caller (numbered: olg__g_name_number's
 * answer, k its number): a claim asks both for one name. */
static bool name_taken_k(const olg_graph *g, const char *p, size_t n, uint32_t h, bool numbered,
                         uint32_t k) {
  if (olg__g_namemap_get_h(&g->node_names, p, n, h) >= 0) return true;
  if (!numbered || k >= g->n_numbered_node_names) return false;
  const char *q = g->numbered_node_names[k];
  return q && memcmp(q, p, n) == 0 && !q[n];
}

static olg_status name_put_k(olg_graph *g, const char *p, uint32_t h, bool numbered, uint32_t k) {
  const olg_allocator *a = &g->model->alloc;
  /* the store stays within four times the node count and some (a lowering's "<Op>_<k>" counts
     nodes and Constants); k is checked against its length only, as the node count may drop */
  if (numbered && k < 4 * ((uint64_t)g->n_nodes + 1024) &&
      (k >= g->n_numbered_node_names || !g->numbered_node_names[k])) {
    if (k >= g->n_numbered_node_names) {
      olg_status s = olg__grow(a, (void **)&g->numbered_node_names, &g->cap_numbered_node_names,
                               (size_t)k + 1, sizeof *g->numbered_node_names);
      if (s) return s;
      memset(g->numbered_node_names + g->n_numbered_node_names, 0,
             (k + 1 - g->n_numbered_node_names) * sizeof *g->numbered_node_names);
      g->n_numbered_node_names = k + 1;
    }
    g->numbered_node_names[k] = p;
    return OLG_OK;
  }
  return olg__g_namemap_put_h(a, &g->node_names, p, (int32_t)g->n_nodes, h);
}

bool olg__g_node_name_taken(const olg_graph *g, const char *p, size_t n, uint32_t h) {
  uint32_t k = 0;
  bool numbered = olg__g_name_number(p, n, &k);
  return name_taken_k(g, p, n, h, numbered, k);
}

olg_status olg__g_node_name_put(olg_graph *g, const char *p, size_t n, uint32_t h) {
  uint32_t k = 0;
  bool numbered = olg__g_name_number(p, n, &k);
  return name_put_k(g, p, h, numbered, k);
}

#ifndef OLG_CONFIG_NO_LEGALIZE /* (olg__node_begin_fresh's, the lowering's) */
/* want, or want#2, want#3, ...: the first that no node has, taken for the next node. */
olg_status olg__graph_claim_node_name(olg_graph *g, const char *want, const char **out) {
  size_t wl = strlen(want);
  if (wl) {
    uint32_t h = olg__name_hash(want, &(size_t){wl}), k = 0;
    bool numbered = olg__g_name_number(want, wl, &k); /* once for both */
    if (!name_taken_k(g, want, wl, h, numbered, k)) {
      const char *p = olg__strndup(g->model, want, wl);
      if (!p) return OLG_ERR_NOMEM;
      *out = p;
      return name_put_k(g, p, h, numbered, k);
    }
  }
  for (uint64_t k = 2;; k++) {
    char suffix[32];
    olg_sbuf sb = {suffix, 0, sizeof suffix}; /* "#%llu" */
    olg__sb_mem(&sb, "#", 1);
    olg__sb_u64(&sb, k);
    char *p = olg__arena_alloc_str(g->model, wl + sb.n + 1);
    if (!p) return OLG_ERR_NOMEM;
    memcpy(p, want, wl);
    memcpy(p + wl, suffix, sb.n + 1);
    size_t n = wl + sb.n;
    uint32_t h = olg__name_hash(p, &(size_t){n});
    if (!olg__g_node_name_taken(g, p, n, h)) {
      *out = p;
      return olg__g_node_name_put(g, p, n, h);
    }
  }
}
#endif

#ifndef OLG_CONFIG_NO_CHECK /* the function inliner's */
static bool node_name_free(const olg_graph *g, const char *p) {
  size_t n = SIZE_MAX;
  uint32_t h = olg__name_hash(p, &n);
  return !olg__g_node_name_taken(g, p, n, h);
}

const char *olg__graph_fresh_node_name(olg_graph *g, const char *want) {
  if (!want) want = "";
  if (*want && node_name_free(g, want)) return olg__strdup(g->model, want);
  size_t wl = strlen(want);
  for (uint64_t k = 2;; k++) {
    char suffix[32];
    olg_sbuf sb = {suffix, 0, sizeof suffix}; /* "#%llu" */
    olg__sb_mem(&sb, "#", 1);
    olg__sb_u64(&sb, k);
    int sl = (int)sb.n;
    char *p = olg__arena_alloc_str(g->model, wl + (size_t)sl + 1);
    if (!p) return NULL;
    memcpy(p, want, wl);
    memcpy(p + wl, suffix, (size_t)sl + 1);
    if (node_name_free(g, p)) return p;
  }
}
#endif

#ifndef OLG_CONFIG_NO_LEGALIZE /* the lowering's */
olg_status olg__value_rename(olg_graph *g, olg_value v, const char *name) {
  olg_value_rec *r = olg__value(g, v);
  if (!r) return OLG_ERR_INVALID_ARG;
  if (!name || !*name) return olg__err(OLG_ERR_INVALID_ARG, "value '%s': the new name is empty", r->name);
  if (strcmp(r->name, name) == 0) return OLG_OK;
  size_t n = SIZE_MAX;
  uint32_t h = olg__name_hash(name, &n);
  if (olg__graph_lookup_h(g, name, n, h) >= 0)
    return olg__err(OLG_ERR_DUPLICATE, "a value named '%s' already exists in graph '%s'", name, g->name);
  const char *nm = olg__strndup(g->model, name, n);
  if (!nm) return OLG_ERR_NOMEM;
  /* the new name's slot, then the old one's removed by its hash and the id while the record
     still holds the old name (were the two hashes equal, either slot may go: they are alike) */
  olg_status s = olg__g_valmap_put_h(&g->model->alloc, &g->names, h, v);
  if (s) return s;
  if (r->flags & OLG_VF_AUTO_NAME)
    olg__g_forget_auto_name(g, r);
  else if (*r->name && !(r->flags & OLG_VF_DUPLICATE))
    olg__g_valmap_del_named(g, olg__name_hash(r->name, &(size_t){SIZE_MAX}), v);
  r->name = nm;
  return OLG_OK;
}

olg_status olg__value_take_name(olg_graph *g, olg_value v, const char *name, bool *took) {
  olg_value_rec *r = &g->values[v];
  size_t n = SIZE_MAX;
  uint32_t h = olg__name_hash(name, &n);
  *took = false;
  if (!n || !(r->flags & OLG_VF_AUTO_NAME) || g->names_dropped || olg__g_auto_lookup(g, name, n) >= 0 ||
      olg__g_valmap_get_h(&g->names, g->values, name, n, h) >= 0)
    return OLG_OK;
  olg_status s;
  /* room for every value the graph has room for: a lowering's target is sized from its source
     (olg__graph_reserve_like), and the map then never grows while a lookahead prefetches */
  if (!g->kept.cap && (s = olg__g_valmap_reserve(&g->model->alloc, &g->kept, g->cap_values)))
    return s;
  /* the slot is v's from here: the record takes the name before the next lookup */
  if (olg__g_valmap_get_or_put(&g->model->alloc, &g->kept, g->values, name, n, h, v, &s) >= 0 || s)
    return s;
  uint32_t k;
  if (olg__g_name_number(name, n, &k)) g->kept_k[k / 64 % 8] |= 1ull << (k % 64);
  olg__g_forget_auto_name(g, r); /* by the old name's number */
  r->name = name;
  *took = true;
  return OLG_OK;
}
#endif

const char *olg__strfmt(olg_model *m, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0) {
    olg__err(OLG_ERR_INVALID_ARG, "olg__strfmt: '%s' does not format", fmt);
    return NULL;
  }
  char *p = olg__arena_alloc_str(m, (size_t)n + 1);
  if (!p) return NULL;
  va_start(ap, fmt);
  vsnprintf(p, (size_t)n + 1, fmt, ap);
  va_end(ap);
  return p;
}
