/* onnxlegal — the passes over a target graph after lowering (internal): shared by the driver
 * (legalize.c), the cleanup (passes/cleanup.c) and the profiles' rewrites (profiles/), which
 * include it as "../lib/passes/passes.h". */
#ifndef OLG_PASSES_H
#define OLG_PASSES_H
#include <stdbool.h>

#include "../lower.h"

/* A target value that subgraphs read by name: never renamed or merged away. */
static inline bool olg__is_protected(const olg_lower *cx, olg_value v) {
  return cx->protect && v >= 0 && (uint32_t)v < cx->n_protect && cx->protect[v];
}

/* passes/walk.c */
bool olg__has_subgraph(const olg_node *nd);
/* Marks the names a subgraph reads from enclosing graphs as live in g. */
void olg__mark_subgraph_refs(olg_graph *g, const olg_graph *sub, uint8_t *live_val);
/* A value a subgraph reads by name from an enclosing graph. */
bool olg__reads_by_name(const olg_value_rec *r);
/* A topological order of g that counts subgraph reads as edges; order[k] = -1 past the last
 * live node. */
olg_status olg__graph_order(const olg_graph *g, const olg_allocator *al, olg_node_id *order);

/* passes/cleanup.c: the profile's rewrites (cx->prof; lib/profile.h), then the cleanup. */
olg_status olg__cleanup(olg_lower *cx);

/* passes/rewrite.c: makes `by` stand for `old` everywhere: uses through subst, and, when old is
 * a graph output, the output list under old's name (by takes the name, or an Identity carries
 * it). For the profiles' rewrites. */
olg_status olg__replace_value(olg_lower *cx, olg_value old, olg_value by, olg_value *subst);

#endif
