/* onnxlegal — a map from names to stacks of entries (internal), for the walks that recurse
 * through subgraphs and ask which enclosing graph defines a name: each graph pushes its names
 * when the walk enters it and pops them when it leaves, so a lookup is O(1) whatever the
 * nesting (walking the enclosing graphs made those walks quadratic in the depth). Used by
 * legalize (lib/legalize.c) and by inference and check (lib/infer_scope.c). */
#ifndef OLG_NAMESTACK_H
#define OLG_NAMESTACK_H
#include <stdint.h>

#include "onnxlegal/alloc.h"
#include "onnxlegal/status.h"

typedef struct olg_ns_entry {
  int32_t prev;  /* the older entry of the same name, or -1 */
  uint32_t key;  /* its slot in keys */
  uint32_t tag;  /* the caller's: which level pushed it, ... */
  int32_t v;     /* the caller's: a value id, ... */
  const void *p; /* the caller's: a graph, a level, ... */
} olg_ns_entry;

typedef struct olg_namestack {
  const olg_allocator *al;
  const char **keys; /* open addressing, cap a power of two; names are borrowed */
  int32_t *head;     /* per key: its newest entry, or -1 */
  uint32_t cap, n_keys;
  olg_ns_entry *e; /* every entry, oldest first */
  uint32_t n, cap_e;
} olg_namestack;

/* Pushes an entry for name (borrowed: it must outlive the entry). OLG_ERR_NOMEM leaves s as it
 * was. */
olg_status olg__ns_push(olg_namestack *s, const char *name, uint32_t tag, int32_t v,
                        const void *p);
/* Pops the newest entries until n are left. */
void olg__ns_pop_to(olg_namestack *s, uint32_t n);
/* The newest entry of name (an index into s->e, older ones by .prev), or -1. */
int32_t olg__ns_find(const olg_namestack *s, const char *name);
void olg__ns_free(olg_namestack *s);

#endif
