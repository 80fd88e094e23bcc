/* onnxlegal — the symbolic registry: which function lowers which source op, at which opset.
 *
 * A symbolic function lowers one node of the source graph (an aten op, an ONNX op at its source
 * opset, or a caller's custom op) into ONNX nodes at the target opset, through the lowering
 * context of legalize.h. The registry maps (domain, op) to a list of registrations, each valid
 * from a "since" opset of the default ONNX domain:
 *
 *     aten::layer_norm   since 7: decomposition (ReduceMean/Sub/Pow/Sqrt/Div)
 *                        since 17: native (LayerNormalization)
 *
 * Dispatch at target opset T picks the registration with the highest since <= T. A registration
 * made with OLG_LOWERING_NONE (and no function) marks the op as not expressible from that opset
 * on, until a later registration.
 *
 * Overrides: every (domain, op, since) key holds a stack. The built-in registrations
 * (olg_registry_new_builtin) are at the bottom; olg_registry_add pushes on top and wins;
 * olg_registry_remove pops the top, so removing a caller's override restores the built-in.
 *
 * Threads: a registry is built by one thread. olg_registry_freeze makes it read-only (add,
 * remove and set_* then fail with OLG_ERR_STATE); a frozen registry may be used by any number
 * of concurrent olg_legalize calls. Every call here is O(log n) or O(1) in the number of
 * registrations, except the iteration helpers, which are O(1) per step.
 *
 * Everything crosses as ints, pointers, C strings and function pointers (ctypes-friendly).
 * Domain "" and "ai.onnx" are the same (the default ONNX domain). */
#ifndef ONNXLEGAL_REGISTRY_H
#define ONNXLEGAL_REGISTRY_H
#include <stddef.h>
#include <stdint.h>
#include "alloc.h"
#include "graph.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct olg_registry olg_registry;
/* The lowering context given to a symbolic function; see legalize.h for its accessors. */
typedef struct olg_lower olg_lower;

/* Lowers the source node `src` (an id in the source graph, olg_lower_source(cx)). It reads the
 * node's arguments through olg_lower_arg_*, emits nodes through olg_lower_emit_*, binds every
 * output the graph uses with olg_lower_bind_output, and returns OLG_OK. On failure it returns a
 * non-OK status after adding a diagnostic (olg_lower_error / olg_lower_unsupported) that says
 * what is not supported and what would work; a status returned without a diagnostic is
 * reported with a generic one. `ud` is the pointer given at registration. */
typedef olg_status (*olg_symbolic_fn)(olg_lower *cx, olg_node_id src, void *ud);

/* Infers the output types of a node of a caller's custom domain, in graph g (the target graph
 * being built): read the inputs with olg_value_dtype / olg_value_rank / olg_value_dim and set
 * each output with olg_value_set_type. ONNX-domain nodes are inferred by the library. */
typedef olg_status (*olg_shape_fn)(olg_graph *g, olg_node_id node, void *ud);

/* How an op lowers at an opset. */
typedef enum olg_lowering {
  OLG_LOWERING_NONE = 0,      /* not expressible at this opset */
  OLG_LOWERING_NATIVE = 1,    /* with ONNX ops that mean the op directly */
  OLG_LOWERING_DECOMPOSED = 2 /* with an exact decomposition into other ops (DESIGN.md §4);
                                 refused when decompositions are turned off */
} olg_lowering;

/* The oldest and newest target opsets of the default domain the built-ins are written for. */
#define OLG_LOWER_OPSET_MIN 7
#define OLG_LOWER_OPSET_MAX 27

/* An empty registry. allocator may be NULL (malloc); it is copied and must outlive the registry. */
OLG_API olg_status olg_registry_new(olg_registry **out, const olg_allocator *allocator);
/* A registry holding every built-in symbolic (the opsets/opsetNN.c tables), not frozen, so the
 * caller can add to it. */
OLG_API olg_status olg_registry_new_builtin(olg_registry **out, const olg_allocator *allocator);
/* NULL is a no-op. The registry must not be in use by an olg_legalize call. */
OLG_API void olg_registry_free(olg_registry *r);
/* Makes the registry read-only and shareable by threads. Idempotent. */
OLG_API olg_status olg_registry_freeze(olg_registry *r);
OLG_API int olg_registry_is_frozen(const olg_registry *r);

/* Registers fn for (domain, op) from since_opset on, as a native lowering (OLG_LOWERING_NATIVE).
 * It overrides any registration at the same key until removed. since_opset is in 1..1000;
 * use OLG_LOWER_OPSET_MIN for "every opset". domain and op are copied. */
OLG_API olg_status olg_registry_add(olg_registry *r, const char *domain, const char *op,
                                    int since_opset, olg_symbolic_fn fn, void *ud);
/* As olg_registry_add, with the kind given: OLG_LOWERING_NATIVE or OLG_LOWERING_DECOMPOSED with
 * a function, or OLG_LOWERING_NONE with fn NULL ("not expressible from since_opset on"). */
OLG_API olg_status olg_registry_add_ex(olg_registry *r, const char *domain, const char *op,
                                       int since_opset, int lowering, olg_symbolic_fn fn,
                                       void *ud);
/* Removes the most recent registration at (domain, op, since_opset), restoring the one below it
 * (for a caller's override of a built-in: the built-in). OLG_ERR_NOT_FOUND when there is none. */
OLG_API olg_status olg_registry_remove(olg_registry *r, const char *domain, const char *op,
                                       int since_opset);

/* Registers the shape-inference function of a custom-domain op (replacing an earlier one);
 * it runs on every node of (domain, op) that a symbolic emits. domain must not be the ONNX
 * domain. */
OLG_API olg_status olg_registry_add_shape_fn(olg_registry *r, const char *domain, const char *op,
                                             olg_shape_fn fn, void *ud);
/* The opset version written in the output model's opset_import for a custom domain that
 * emitted nodes use (default 1). */
OLG_API olg_status olg_registry_set_domain_version(olg_registry *r, const char *domain,
                                                   int64_t version);

/* ---- queries (for tools, tests, bindings; a frozen registry answers from any thread) ---- */

/* The registration used at target opset `opset`: *since gets its since-opset, *lowering its
 * kind (either pointer may be NULL). OLG_ERR_NOT_FOUND when (domain, op) has no registration at
 * or below opset, or the one found is OLG_LOWERING_NONE (then *since and *lowering are still
 * set). */
OLG_API olg_status olg_registry_find(const olg_registry *r, const char *domain, const char *op,
                                     int opset, int *since, int *lowering);
/* How (domain, op) lowers at opset: an olg_lowering value (OLG_LOWERING_NONE when it does not). */
OLG_API int olg_registry_lowering(const olg_registry *r, const char *domain, const char *op,
                                  int opset);
/* The lowest opset in [OLG_LOWER_OPSET_MIN, OLG_LOWER_OPSET_MAX] at which (domain, op) lowers
 * at all (native_only 0) or natively (native_only 1), or -1 when there is none. This is the
 * "lowest opset that works" of diagnostics. */
OLG_API int olg_registry_min_opset(const olg_registry *r, const char *domain, const char *op,
                                   int native_only);
/* The registered (domain, op) pairs, sorted by domain then op; i in 0..count-1. The strings
 * live as long as the registry and are not changed by later additions. */
OLG_API size_t olg_registry_op_count(const olg_registry *r);
OLG_API olg_status olg_registry_op_at(const olg_registry *r, size_t i, const char **domain,
                                      const char **op);

#ifdef __cplusplus
}
#endif
#endif
