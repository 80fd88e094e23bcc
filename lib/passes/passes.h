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
/* What the walks below know of the graphs they summarized, for one olg_legalize (each graph's
 * names read by name at any depth, computed once: linear in the nesting depth). */
olg_status olg__reads_memo_new(const olg_allocator *al, olg_reads_memo **out);
void olg__reads_memo_free(olg_reads_memo *m);
/* Marks the names a subgraph reads from enclosing graphs as live in g. */
olg_status olg__mark_subgraph_refs(olg_reads_memo *m, olg_graph *g, const olg_graph *sub,
                                   uint8_t *live_val);
/* For each name sub reads by name (of OLG_NODE_DONE nodes, at any depth, once each):
 * fn(ud, name). */
olg_status olg__subgraph_reads(olg_reads_memo *m, const olg_graph *sub,
                               void (*fn)(void *, const char *), void *ud);
/* A value a subgraph reads by name from an enclosing graph. */
bool olg__reads_by_name(const olg_value_rec *r);
/* A topological order of g that counts subgraph reads as edges; order (g->n_nodes entries, also
 * the walk's scratch) has -1 past the last live node. On a cycle, OLG_ERR_INVALID_MODEL naming a node that waits on it, and *fault (when
 * not NULL) that node's id. */
olg_status olg__graph_order(const olg_graph *g, const olg_allocator *al, olg_reads_memo *m,
                            olg_node_id *order, olg_node_id *fault);

/* passes/fold.c: BatchNormalization into Conv/Gemm/MatMul, byte-equal initializers merged
 * (cx->fold_weights; called by the cleanup before anything else). */
olg_status olg__fold_weights(olg_lower *cx);

/* passes/cleanup.c: the profile's rewrites (cx->prof; lib/profile.h), then the cleanup. */
olg_status olg__cleanup(olg_lower *cx);
/* Marks the values of the target graph that its subgraphs read by name (cx->protect), which the
 * cleanup leaves in place (called by the driver before the cleanup). */
olg_status olg__compute_protect(olg_lower *cx);

/* passes/rewrite.c: makes `by` stand for `old` everywhere: uses through subst, and, when old is
 * a graph output, the output list under old's name (by takes the name, or an Identity carries
 * it). For the profiles' rewrites. */
olg_status olg__replace_value(olg_lower *cx, olg_value old, olg_value by, olg_value *subst);

/* A hash of a tensor's type, dims and bytes, and whether two tensors are equal in all three
 * (lib/passes/walk.c): merges of equal Constants and initializers. */
uint64_t olg__tensor_hash(const olg_tensor *t);
bool olg__tensor_same(const olg_tensor *a, const olg_tensor *b);

#endif
