/* onnxlegal — shape and type inference (internal interface).
 *
 * The lowering calls olg__infer_node for every node it emits; the validator's full mode and
 * olg_infer_shapes call olg__infer_graph. Types are written into the values' olg_type, and
 * small constant contents into olg_value_more.known (or, partly known shape computations over
 * symbolic dims, olg_value_more.sym), all allocated in the model's arena. Inferred types may
 * share their dims arrays with other values (an output with its input's shape): never change a
 * dims array in place, give the value a new one. */
#ifndef OLG_INFER_H
#define OLG_INFER_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ir.h"

/* Infers dtype and shape (and, when small and computable, the contents) of node n's outputs
 * at `opset` (the opset of the node's domain), from its inputs' types and known contents
 * (olg__value_known). Sets the outputs' olg_type (and the known contents of propagated constants,
 * allocated in the model's arena) when it can; leaves unknown what it cannot. Where an output
 * already has a type (declared), checks agreement and reports a contradiction to diags
 * (may be NULL) with code OLG-INFER-MISMATCH. Returns OLG_OK unless memory fails or the
 * inputs make the node impossible (then OLG_ERR_INVALID_MODEL with the reason, which is also
 * added to diags, when not NULL, with code OLG-INFER-INVALID: callers need not add it). */
olg_status olg__infer_node(olg_graph *g, olg_node_id n, int64_t opset, olg_diags *diags);

/* The same for a node the lowering just emitted: its subgraphs, lowered first, had each node
 * inferred as it was emitted, so they are not inferred again (which made nesting quadratic). */
olg_status olg__infer_node_emitted(olg_graph *g, olg_node_id n, int64_t opset, olg_diags *diags);

/* Infers a whole graph (topological order, subgraphs included). Every impossible node is
 * reported to diags; the result is then OLG_ERR_INVALID_MODEL (after all nodes were tried). */
olg_status olg__infer_graph(olg_graph *g, const olg_model *m, olg_diags *diags);

/* Same, with the knobs of olg_check_options: notes (report ops without an inference rule as
 * OLG-INFER-UNSUPPORTED) and max_errors (stop after that many errors in diags; 0: never). */
olg_status olg__infer_graph_ex(olg_graph *g, const olg_model *m, olg_diags *diags, bool notes,
                               size_t max_errors);

/* lib/infer_scope.c: the definitions of the enclosing graphs, for the subgraphs inference
 * recurses into (linear in the nesting depth). */
typedef struct olg_iscopes olg_iscopes;
olg_status olg__iscopes_new(const olg_allocator *al, olg_iscopes **out);
void olg__iscopes_free(olg_iscopes *sc);
olg_status olg__iscopes_push(olg_iscopes *sc, const olg_graph *g);
void olg__iscopes_pop(olg_iscopes *sc);
/* What olg__resolve(g, v) gives, through the map when g is the innermost graph pushed. */
olg_value_rec *olg__resolve_in(const olg_iscopes *sc, const olg_graph *g, olg_value v);
/* For the checker (check.c): the innermost graph's node whose subgraphs are checked; whether the
 * map answers for g (g innermost, each graph the parent of the next); the definitions of a name
 * in the enclosing graphs, innermost first (-1: none), each with its graph and that graph's
 * limit node. */
void olg__iscopes_set_limit(olg_iscopes *sc, olg_node_id limit);
bool olg__iscopes_covers(const olg_iscopes *sc, const olg_graph *g);
int32_t olg__iscopes_outer(const olg_iscopes *sc, const char *name);
int32_t olg__iscopes_next(const olg_iscopes *sc, int32_t k);
const olg_value_rec *olg__iscopes_entry(const olg_iscopes *sc, int32_t k, const olg_graph **g,
                                        olg_node_id *limit);

/* olg__infer_node, with the map of the enclosing graphs' definitions the caller keeps (the
 * checker), passed on to the subgraphs the node's rule infers. */
olg_status olg__infer_node_in(olg_iscopes *sc, olg_graph *g, olg_node_id n, int64_t opset,
                              olg_diags *diags);

/* The record that defines value v of graph g: v's own record, or for a subgraph's reference to
 * a name of an enclosing graph (a value without producer that is neither input nor
 * initializer), the enclosing graph's record of that name. *owner (may be NULL) gets the graph
 * that holds the result. Returns v's own record when no enclosing graph has the name. */
olg_value_rec *olg__resolve(const olg_graph *g, olg_value v, const olg_graph **owner);

/* True when v of g is a reference to an enclosing graph's value (see olg__resolve). */
bool olg__is_outer_ref(const olg_graph *g, const olg_value_rec *r);

/* The opset imported by m for a node's domain ("" and "ai.onnx" are the default domain),
 * or -1. */
int64_t olg__domain_opset(const olg_model *m, const char *domain);

/* Writes a type as text ("float[N,3]", "seq(int64[?])", "?" when unknown) into buf. */
const char *olg__type_text(const olg_type *t, char *buf, size_t n);
/* What makes t unfit as the type of a main graph's input or output ("has no type; ...", "is a
 * tensor without element type", ...), or NULL: olg_check reports it, legalize refuses it. */
const char *olg__io_type_defect(const olg_type *t);
/* True when initializer t cannot be a valid initializer (undefined element type, bad dims, data
 * that does not match them), with why ("has element type 0, which is undefined", ...). */
bool olg__init_defect(const olg_tensor *t, char *why, size_t n);

/* True when the node's op has an inference rule in that domain. */
bool olg__infer_has_rule(const char *domain, const char *op);

#endif
