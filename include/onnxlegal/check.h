/* onnxlegal — the validator (is this graph legal ONNX at its opsets?) and shape and type
 * inference.
 *
 * olg_check reports every problem it finds, node by node, into an olg_diags list; it stops early
 * only when max_errors is reached. Each diagnostic carries a stable code (below), the node's
 * name, op, domain and opset, and a message that says what is wrong and what would be right.
 *
 * Stable diagnostic codes (severity in brackets: E error, W warning, N note). Codes are never
 * renamed or reused; new ones are only added.
 *
 *   model
 *   OLG-CHECK-IR-VERSION        [E] ir_version unset, or newer than this library knows
 *   OLG-CHECK-IR-OLD            [W] ir_version older than the one released with an imported
 *                                   opset (runtimes may refuse the pairing; onnx's checker and
 *                                   ONNX Runtime accept it): the message names the IR version to
 *                                   set ([E] with strict; convert writes the opset's IR version)
 *   OLG-CHECK-OPSET-MISSING     [E] no opset_import although ir_version >= 3
 *   OLG-CHECK-OPSET-VERSION     [E] an imported opset of a known domain is < 1 or newer than
 *                                   any defined version of that domain
 *                               [W] the imported opset is defined but not yet released (28)
 *   graphs and names
 *   OLG-CHECK-GRAPH-NAME        [E] a graph without a name
 *   OLG-CHECK-NAME-EMPTY        [E] a graph input, output or initializer without a name
 *   OLG-CHECK-FUNCTION          [E] a model-local function cannot be expanded at a call
 *                                   (recursion, an undefined name in its body, another opset
 *                                   than the model's): names the call and the function
 *   OLG-CHECK-NAME-UNDEFINED    [E] a node input or graph output names no value of the graph
 *   OLG-CHECK-NAME-ORDER        [E] a value used before the node that defines it (nodes must
 *                                   be in topological order)
 *   OLG-CHECK-NAME-DUPLICATE    [E] a name defined twice (graph input, initializer, node output;
 *                                   a subgraph's node output may not reuse an outer name either)
 *   OLG-CHECK-OUTER-UNDEFINED   [E] a subgraph uses a name that no enclosing graph defines
 *                                   before the node that owns the subgraph
 *   OLG-CHECK-GRAPH-IO-TYPE     [E] a main-graph input or output without a type (or a tensor
 *                                   type without element type or shape)
 *   OLG-CHECK-NODE-EMPTY        [E] a node with neither inputs nor outputs
 *   initializers
 *   OLG-CHECK-INIT-TYPE         [E] an initializer disagrees with the type its graph input
 *                                   declares (element type, rank or a dim)
 *   OLG-CHECK-INIT-NOT-INPUT    [E] ir_version <= 3 and an initializer that is not a graph input
 *   OLG-CHECK-INIT-DATA         [E] an initializer without element type, or whose data size
 *                                   does not match its dims
 *   nodes against the schema of their op
 *   OLG-CHECK-DOMAIN-UNDECLARED [E] a node's domain is not in the model's opset_import
 *   OLG-CHECK-OP-UNKNOWN        [E] no such op in the domain at the imported opset
 *   OLG-CHECK-OP-REMOVED        [E] the op is deprecated (removed) at the imported opset
 *   OLG-CHECK-OP-EXPERIMENTAL   [W] an experimental op of old ONNX releases (ATen, Crop, ...)
 *   OLG-CHECK-OP-NO-SCHEMA      [N] a known domain whose schemas this build lacks (ai.onnx.ml):
 *                                   the node's signature is not checked
 *   OLG-CHECK-NOT-LOWERED       [E] a source-framework node (e.g. domain "aten", literal
 *                                   positional arguments): legalize the graph first
 *                                   ([W] with allow_unlowered)
 *   OLG-CHECK-INPUT-COUNT       [E] fewer or more inputs than the op takes
 *   OLG-CHECK-OUTPUT-COUNT      [E] fewer or more outputs than the op gives
 *   OLG-CHECK-INPUT-MISSING     [E] a required (single) input is omitted ("")
 *   OLG-CHECK-OUTPUT-MISSING    [E] a required (single) output is omitted ("")
 *   OLG-CHECK-ATTR-UNKNOWN      [E] an attribute the op does not have at that opset
 *   OLG-CHECK-ATTR-TYPE         [E] an attribute of the wrong type
 *   OLG-CHECK-ATTR-MISSING      [E] a required attribute is absent
 *   OLG-CHECK-ATTR-PAYLOAD      [E] an attribute without the payload its type names (a GRAPH
 *                                   attribute without graph, e.g. an If without then_branch)
 *   OLG-CHECK-ATTR-VALUE        [E] an attribute value outside what the op's version allows
 *                                   (an unknown Resize mode, a negative axis of Flatten below
 *                                   opset 11, which runtimes refuse too)
 *   OLG-CHECK-AXIS-NEGATIVE     [W] a negative axis at a version of the op that counts axes
 *                                   from the front only (below opset 11; onnx's checker and ONNX
 *                                   Runtime accept it; Flatten's they refuse: ATTR-VALUE): the message names the opset that allows
 *                                   it and the fix, rank-k ([E] with strict; convert rewrites it)
 *   OLG-CHECK-DEPTH             [E] subgraphs nested deeper than the library follows
 *                                   (OLG_MAX_SUBGRAPH_DEPTH, the limit of every stage)
 *   OLG-CHECK-ATTR-DUPLICATE    [E] an attribute given twice on one node
 *   OLG-CHECK-ATTR-REF          [E] an attribute that refers to a function's attribute
 *                                   (ref_attr_name) outside a function body
 *   OLG-CHECK-TYPE-CONSTRAINT   [E] an input or output type not allowed by its formal's
 *                                   type constraint (or fixed type)
 *   OLG-CHECK-TYPE-MISMATCH     [E] inputs/outputs bound to the same type variable have
 *                                   different types
 *   OLG-CHECK-SUBGRAPH          [E] a subgraph whose inputs or outputs do not fit its op
 *                                   (If branches, Loop and Scan bodies)
 *   inference (full mode, and olg_infer_shapes)
 *   OLG-INFER-MISMATCH          [E] an inferred type or shape contradicts the declared one
 *   OLG-INFER-INVALID           [E] the inputs make the node impossible (shapes that do not
 *                                   broadcast, an axis out of range, ...)
 *   OLG-INFER-UNSUPPORTED       [N] no inference rule for the op: its outputs stay unknown
 *   the command-line tool (onnxlegal check)
 *   OLG-CHECK-PARSE             [E] the file is not a well-formed model (it could not be read)
 */
#ifndef ONNXLEGAL_CHECK_H
#define ONNXLEGAL_CHECK_H
#include <stddef.h>
#include <stdint.h>
#include "diag.h"
#include "graph.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct olg_check_options {
  size_t size; /* sizeof(olg_check_options) */
  /* Run shape and type inference too and report contradictions with the declared types and
   * impossible nodes (OLG-INFER-*); type constraints are then checked on inferred types as
   * well. Default 0. */
  int full;
  /* Report source-framework nodes (not yet lowered) as warnings instead of errors, to check a
   * graph before legalization. Default 0. */
  int allow_unlowered;
  /* Stop after this many errors (0: report all). Default 0. */
  size_t max_errors;
  /* Report notes (OLG-CHECK-OP-NO-SCHEMA, OLG-INFER-UNSUPPORTED). Default 1. */
  int notes;
  /* Report as errors what runtimes accept although the spec does not (OLG-CHECK-IR-OLD,
   * OLG-CHECK-AXIS-NEGATIVE); warnings otherwise. Default 0. (Added after notes: a caller
   * built against an older struct, with a smaller size, gets the default.) */
  int strict;
} olg_check_options;
#define OLG_CHECK_OPTIONS_INIT {sizeof(olg_check_options), 0, 0, 0, 1, 0}
/* Sets *opts to the defaults, as OLG_CHECK_OPTIONS_INIT does. */
OLG_API void olg_check_options_init(olg_check_options *opts);
/* Check options on the heap, for bindings that do not lay out C structs (ctypes): _new gives
 * the defaults, _set sets every member (flags: 1 on, 0 off), _free releases (NULL is a no-op).
 * Only pointers from olg_check_options_new may be given to _free. */
OLG_API olg_status olg_check_options_new(olg_check_options **out);
OLG_API void olg_check_options_free(olg_check_options *opts);
OLG_API olg_status olg_check_options_set(olg_check_options *opts, int full, int allow_unlowered,
                                         size_t max_errors, int notes);
/* Sets the strict member (1 on, 0 off), which olg_check_options_set leaves as it is. */
OLG_API olg_status olg_check_options_set_strict(olg_check_options *opts, int strict);

/* Validates the model. Returns OLG_OK when it is valid (warnings and notes may be in diags),
 * OLG_ERR_INVALID_MODEL when it found errors (all of them are in diags, not only the first),
 * and another code when it could not finish (OLG_ERR_NOMEM, OLG_ERR_INVALID_ARG).
 * opts may be NULL (defaults); diags may be NULL (then only the verdict is returned).
 * With opts->full, the model is annotated during the call and restored before it returns:
 * the model must not be used by another thread meanwhile. */
OLG_API olg_status olg_check(const olg_model *m, const olg_check_options *opts, olg_diags *diags);

/* Infers the element type and shape of every value it can, in every graph of the model, and
 * records them on the values (olg_value_dtype, olg_value_rank, olg_value_dim read them back);
 * small integer values computed from constants (shape computations) are recorded too, so that
 * e.g. Reshape after Shape/Gather/Concat gets an exact shape. Declared types are kept and
 * refined; a contradiction is reported to diags (OLG-INFER-MISMATCH) and the inferred type
 * wins. Returns OLG_OK, or OLG_ERR_INVALID_MODEL when some node is impossible (reported to
 * diags), or another code on failure. opts (may be NULL) is read for max_errors and notes. */
OLG_API olg_status olg_infer_shapes(olg_model *m, const olg_check_options *opts, olg_diags *diags);

#ifdef __cplusplus
}
#endif
#endif
