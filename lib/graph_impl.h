/* onnxlegal — the IR building API's internal interface, shared by its parts (internal):
 * graph.c (arena strings, models, graphs, values, topological order), graph_names.c (the name
 * maps, made-up names) and graph_node.c (nodes). */
#ifndef OLG_GRAPH_IMPL_H
#define OLG_GRAPH_IMPL_H
#include <string.h>

#include "ir.h"

/* graph_names.c */
int32_t olg__g_namemap_get(const olg_namemap *nm, const char *key);
int32_t olg__g_namemap_get_h(const olg_namemap *nm, const char *key, size_t n, uint32_t h);
olg_status olg__g_namemap_put(const olg_allocator *a, olg_namemap *nm, const char *key,
                              int32_t id);
olg_status olg__g_namemap_reserve(const olg_allocator *a, olg_namemap *nm, uint32_t n);
void olg__g_namemap_free(const olg_allocator *a, olg_namemap *nm);
/* Puts key hashed h (olg__name_hash), which is not in the map yet. */
olg_status olg__g_namemap_put_h(const olg_allocator *a, olg_namemap *nm, const char *key,
                                int32_t id, uint32_t h);
/* The value map (ir.h, olg_valmap), whose keys are values[id].name. */
/* The id of the value named by the n bytes at p (no NUL among them) hashed h, or -1. */
olg_value olg__g_valmap_get_h(const olg_valmap *vm, const olg_value_rec *values, const char *p,
                              size_t n, uint32_t h);
olg_status olg__g_valmap_reserve(const olg_allocator *a, olg_valmap *vm, uint32_t n);
/* The id of the value named by the n bytes at p (no NUL among them) hashed h in a map with a
 * free slot, or -1 with *at the free slot where a probe for it ended. */
static inline olg_value olg__g_valmap_probe(const olg_valmap *vm, const olg_value_rec *values,
                                            const char *p, size_t n, uint32_t h, uint32_t *at) {
  uint32_t mask = vm->cap - 1, i = h & mask;
  for (;; i = (i + 1) & mask) {
    olg__count_probe();
    olg_val_slot e = vm->slots[i];
    if (!e.id1) break;
    if (e.hash == h) {
      const char *k = values[e.id1 - 1].name;
      if (memcmp(k, p, n) == 0 && !k[n]) return (olg_value)(e.id1 - 1);
    }
  }
  *at = i;
  return -1;
}
/* The id of the value named by the n bytes at p (n > 0, no NUL among them) hashed h, or -1 once
 * a slot for value id (whose name they are, to be filled in before the next lookup) is put; *st
 * says whether that failed. */
olg_value olg__g_valmap_get_or_put(const olg_allocator *a, olg_valmap *vm,
                                   const olg_value_rec *values, const char *p, size_t n,
                                   uint32_t h, olg_value id, olg_status *st);
/* Puts value id, whose name hashes to h and is not in the map: no name is read, so the record
 * may be filled in after (but before the next lookup). */
olg_status olg__g_valmap_put_h(const olg_allocator *a, olg_valmap *vm, uint32_t h, olg_value id);
/* Removes the slot of value id whose name hashed to h, if there (backward-shift deletion). */
void olg__g_valmap_del(olg_valmap *vm, uint32_t h, olg_value id);
void olg__g_valmap_free(const olg_allocator *a, olg_valmap *vm);
/* Removes value id's slot (its name hashed h) from the map that holds it: names or kept. */
void olg__g_valmap_del_named(olg_graph *g, uint32_t h, olg_value id);
/* Drops the most recently added value (rollback of a failed multi-step add). */
void olg__g_graph_pop_value(olg_graph *g);
/* The number k a name of n bytes at p ends in, "<x>_<k>" (k <= UINT32_MAX), as generated
 * names do; false when it does not. */
bool olg__g_name_number(const char *p, size_t n, uint32_t *k);
/* Whether a node of g is named by the n bytes at p (hashed h by olg__name_hash). */
bool olg__g_node_name_taken(const olg_graph *g, const char *p, size_t n, uint32_t h);
/* Puts the name at p (n bytes hashed h, not taken, living as long as g) among g's node names. */
olg_status olg__g_node_name_put(olg_graph *g, const char *p, size_t n, uint32_t h);

/* graph.c */
/* r's name, made by olg__graph_add_value_auto, leaves g->auto_names (renamed or dropped). */
void olg__g_forget_auto_name(olg_graph *g, olg_value_rec *r);
/* The value whose olg__graph_add_value_auto name is the n bytes at p, or -1 (at once if none was
 * made): the number after the last '_' indexes g->auto_names, the name there must be p's. */
olg_value olg__g_auto_lookup(const olg_graph *g, const char *p, size_t n);

#endif
