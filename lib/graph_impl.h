/* onnxlegal — the IR building API's internal interface, shared by its parts (internal):
 * graph.c (arena strings, the name map, models, graphs, values, topological order) and
 * graph_node.c (nodes). */
#ifndef OLG_GRAPH_IMPL_H
#define OLG_GRAPH_IMPL_H
#include "ir.h"

/* graph.c */
int32_t olg__g_namemap_get(const olg_namemap *nm, const char *key);
int32_t olg__g_namemap_get_h(const olg_namemap *nm, const char *key, size_t n, uint32_t h);
olg_status olg__g_namemap_put(const olg_allocator *a, olg_namemap *nm, const char *key,
                              int32_t id);
olg_status olg__g_namemap_reserve(const olg_allocator *a, olg_namemap *nm, uint32_t n);
void olg__g_namemap_free(const olg_allocator *a, olg_namemap *nm);
/* Drops the most recently added value (rollback of a failed multi-step add). */
void olg__g_graph_pop_value(olg_graph *g);

#endif
