/* onnxlegal — legalization: a source graph (aten ops, ONNX ops at any opset, custom ops) in,
 * pure ONNX at a target opset out; and the lowering context that symbolic functions use.
 *
 *   olg_registry *r;  olg_registry_new_builtin(&r, NULL);  olg_registry_freeze(r);
 *   olg_legalize_options o = OLG_LEGALIZE_OPTIONS_INIT;  o.opset = 13;
 *   olg_model *out;   olg_status s = olg_legalize(src, r, &o, &out, diags);
 *
 * What olg_legalize does (DESIGN.md §1): walks the source graph in topological order; each node
 * goes through the registry to the symbolic function registered for the highest since-opset <=
 * the target opset, which emits ONNX nodes; every emitted node is checked against the schema
 * tables of the target opset (op exists, arity, attribute names and types, input dtypes) and its
 * outputs are inferred as it is emitted, so the next symbolic sees its inputs with known dtypes,
 * shapes and (small) constant contents. Then the target-profile rewrites, then cleanup
 * (constant folding of small shape computations, identity removal, CSE of identical Constant
 * nodes, dead-node elimination). Every stage is linear in the size of the graph.
 *
 * Errors: lowering goes on past a failing node, so that one call reports EVERY unsupported op at
 * every node where it occurs; each diagnostic names the node, the op, the target opset and,
 * when there is one, the lowest opset that works. Then the call fails (*out is NULL).
 *
 * Stable diagnostic codes of legalization (severity in brackets: E error, W warning); the
 * emitted nodes' schema checks report the OLG-CHECK-* codes of check.h:
 *
 *   OLG-LOWER-UNSUPPORTED-OP    [E] no symbolic for the op at the target opset: names the
 *                                   lowest opset that works, or says that none does
 *   OLG-LOWER-UNSUPPORTED       [E] the op is supported, but not with these arguments at this
 *                                   opset (olg_lower_unsupported; names the opset that works)
 *   OLG-LOWER-DECOMPOSITION     [E] the op needs a decomposition at this opset and
 *                                   decompositions are turned off (names the native opset)
 *   OLG-LOWER-TYPE              [E] an argument of the wrong kind or type (a tensor where a
 *                                   literal is needed, a literal of another type)
 *   OLG-LOWER-UNBOUND           [E] a symbolic left an output that the graph uses unbound
 *   OLG-LOWER-FAILED            [E] a symbolic failed without saying why (its status and the
 *                                   last error message are reported)
 *   OLG-LOWER-ERROR             [E] a symbolic's own error (olg_lower_error)
 *   OLG-LOWER-NOMEM             [E] memory ran out while lowering the node
 *   OLG-LOWER-GRAPH             [E] the source model is invalid (a defect olg_check reports
 *                                   too: a cycle, a name defined twice, a name used but defined
 *                                   nowhere, a required input or output left empty): the
 *                                   reason, naming the node; the call fails with
 *                                   OLG_ERR_INVALID_MODEL
 *   OLG-LOWER-FUNCTION          [E] a call of a model-local function cannot be inlined
 *                                   (recursion, an undefined name in the body, another opset):
 *                                   names the call node and the function
 *   OLG-LOWER-WARNING           [W] a symbolic's warning (olg_lower_warning): the result is
 *                                   valid, but e.g. an approximation or a dropped hint
 *   per-node report notes (olg_legalize_options.report), one per lowered source node
 *   OLG-LOWER-KEPT              [N] the node was kept as it is (same op, domain, arguments)
 *   OLG-LOWER-REENCODED         [N] the node became the same op in another form (e.g. an
 *                                   input made an attribute) or other native ops
 *   OLG-LOWER-DECOMPOSED        [N] the node became an exact decomposition into other ops
 *   target profiles (olg_legalize_options.profile, olg_profile_check; docs/profiles.md)
 *   OLG-PROFILE-VIOLATION       [E] olg_profile_check: a node breaks a rule of the profile;
 *                                   names the rule, what the runtime accepts, what would fix it
 *   OLG-PROFILE-REFUSED         [E] olg_legalize: a node breaks a profile rule that has no
 *                                   exact rewrite (or whose rewrite declined); names the rule
 *   OLG-PROFILE-FIXED           [N] olg_legalize with report: a profile rule's rewrite fired on
 *                                   the node; names the rule and what was done
 */
#ifndef ONNXLEGAL_LEGALIZE_H
#define ONNXLEGAL_LEGALIZE_H
#include <stddef.h>
#include <stdint.h>
#include "diag.h"
#include "graph.h"
#include "registry.h"
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Options. Every member's zero value means its default, so a zeroed struct with `size` set (or
 * a NULL pointer) asks for the defaults. New members are only ever appended. */
typedef struct olg_legalize_options {
  size_t size;        /* sizeof(olg_legalize_options) */
  int64_t opset;      /* target opset of the default domain, OLG_LOWER_OPSET_MIN..MAX
                         (registry.h); 0: OLG_LEGALIZE_DEFAULT_OPSET */
  int64_t ir_version; /* 0: the IR version released with the opset (olg_ir_version_for_opset) */
  int keep_initializers_as_inputs; /* list initializers among the graph inputs too; forced on
                                      when the IR version is < 4, where ONNX requires it */
  int no_constant_folding;         /* keep small constant shape computations as nodes */
  int no_decompositions;           /* refuse an op that needs a decomposition at this opset;
                                      the diagnostic names the lowest native opset */
  const char *profile;             /* NULL or "": none; else a built-in profile's name (the
                                      runtime's rules, docs/profiles.md): "ort" (ONNX Runtime
                                      1.30, CPU), "tensorrt", "openvino" (olg_profile_builtin_name
                                      lists them). Copied during the call only. */
  const olg_allocator *allocator;  /* for the output model; NULL: the source model's */
  int report;                      /* add one OLG_NOTE per lowered source node to diags, saying
                                      how it was lowered: code OLG-LOWER-KEPT (the same op, as
                                      it was), OLG-LOWER-REENCODED ("as: Op, Op" -- other ops or
                                      attributes, no decomposition) or OLG-LOWER-DECOMPOSED
                                      ("into: Op, Op"); "as: -" when no node was emitted;
                                      with a profile, also an OLG-PROFILE-FIXED note per
                                      profile rule that fired, naming the rule and the node */
  const struct olg_profile *profile_object; /* a profile object (olg_profile_new or
                                      olg_profile_builtin); when set, it is used instead of
                                      `profile`. Borrowed during the call only. */
  int fold_weights;                /* 1: fold weights as torch.onnx's do_constant_folding does:
                                      each inference BatchNormalization into the Conv, Gemm or
                                      MatMul before it (known weights and statistics; computed
                                      in double, cast back), and byte-equal initializers merged.
                                      0: off (the default). Ignored when constant folding is
                                      off. */
  int keep_functions;              /* 1: keep the model-local functions that the main graph
                                      calls, their bodies converted to the target, one copy per
                                      call-site signature (input dtypes and ranks, attribute
                                      values): `MLP`, then `MLP__2`, ... (lib/function_keep.c).
                                      Functions need IR 8 (opset >= 15): below, the calls are
                                      inlined as without it and an OLG-LOWER-WARNING says so.
                                      0: every call is inlined (the default). */
} olg_legalize_options;
#define OLG_LEGALIZE_DEFAULT_OPSET 17
#define OLG_LEGALIZE_OPTIONS_INIT                                                          \
  {sizeof(olg_legalize_options), 0, 0, 0, 0, 0, OLG_NULLPTR, OLG_NULLPTR, 0, OLG_NULLPTR, 0, 0}
OLG_API void olg_legalize_options_init(olg_legalize_options *opts);

/* Options on the heap, for bindings that do not lay out C structs (ctypes): new gives the
 * defaults; the setters take any options pointer except set_profile, which copies the string
 * and takes only pointers from olg_legalize_options_new (as does _free). */
OLG_API olg_status olg_legalize_options_new(olg_legalize_options **out);
OLG_API void olg_legalize_options_free(olg_legalize_options *opts);
OLG_API olg_status olg_legalize_options_set_opset(olg_legalize_options *opts, int64_t opset);
OLG_API olg_status olg_legalize_options_set_ir_version(olg_legalize_options *opts,
                                                       int64_t ir_version);
/* Each flag: 1 on, 0 off (defaults: initializers not inputs, folding on, decompositions on). */
OLG_API olg_status olg_legalize_options_set_flags(olg_legalize_options *opts,
                                                  int keep_initializers_as_inputs,
                                                  int constant_folding, int decompositions);
/* 1: the per-node report notes (the report member above); 0: none (the default). */
OLG_API olg_status olg_legalize_options_set_report(olg_legalize_options *opts, int report);
/* 1: fold weights (the fold_weights member above); 0: do not (the default). */
OLG_API olg_status olg_legalize_options_set_fold_weights(olg_legalize_options *opts,
                                                         int fold_weights);
/* 1: keep the functions (the keep_functions member above); 0: inline them (the default). */
OLG_API olg_status olg_legalize_options_set_keep_functions(olg_legalize_options *opts,
                                                           int keep_functions);
/* NULL or "" clears the profile. */
OLG_API olg_status olg_legalize_options_set_profile(olg_legalize_options *opts,
                                                    const char *profile);

/* ---- target profiles (docs/profiles.md) ----
 * A profile is what a runtime accepts beyond valid ONNX at the target opset: rules per (op,
 * since-version range) -- the dtypes of a type constraint or an input, that an input be known
 * at conversion time, ranks, or that the op is not supported at all -- each with a name and,
 * optionally, a rewrite that makes a violating node legal. olg_legalize applies the rewrites of
 * the profile it is given (a node that breaks a rule without a rewrite, or whose rewrite
 * declines, is refused with the rule named: diagnostic OLG-PROFILE-REFUSED); olg_profile_check
 * reports every violation of a model (OLG-PROFILE-VIOLATION). */
typedef struct olg_profile olg_profile;

/* The built-in profile named name ("ort", "tensorrt", ...), or NULL. Never freed. */
OLG_API const olg_profile *olg_profile_builtin(const char *name);
/* The name of built-in profile i (0-based), or NULL past the last. */
OLG_API const char *olg_profile_builtin_name(size_t i);
/* A new, empty profile named name (copied; not "" nor a built-in's name). base, if not NULL, is
 * a profile whose rules also apply (a built-in, or one of the caller's that outlives this one). */
OLG_API olg_status olg_profile_new(olg_profile **out, const char *name, const olg_profile *base);
OLG_API void olg_profile_free(olg_profile *p);
OLG_API const char *olg_profile_name(const olg_profile *p);

/* Rules. rule: the rule's name, quoted by the diagnostics ("myrt/no-int8-where"); op: an ONNX-
 * domain op; since..until: the op's since-versions it covers (until 0: every later one). */
/* The op is not supported at those versions. */
OLG_API olg_status olg_profile_add_op_rule(olg_profile *p, const char *rule, const char *op,
                                           int since, int until);
/* The dtypes accepted for the inputs and outputs bound to type constraint `constraint` ("T"), or
 * when constraint is NULL, for input `slot` (output k: slot -1-k). */
OLG_API olg_status olg_profile_add_type_rule(olg_profile *p, const char *rule, const char *op,
                                             int since, int until, const char *constraint,
                                             int slot, const olg_dtype *types, size_t n_types);
/* Input `input`, when present, must be known at conversion time (initializer or constant). */
OLG_API olg_status olg_profile_add_known_input_rule(olg_profile *p, const char *rule,
                                                    const char *op, int since, int until,
                                                    int input);
/* The rank of input `slot` (output k: -1-k) must lie in [min_rank, max_rank]. */
OLG_API olg_status olg_profile_add_rank_rule(olg_profile *p, const char *rule, const char *op,
                                             int since, int until, int slot, int min_rank,
                                             int max_rank);
/* A rewrite for every rule of p named rule: called during olg_legalize with the lowering context
 * (emit with olg_lower_emit_*, names derive from the node's) and the violating node of
 * olg_lower_target(cx); it makes the node's outputs stand for new values with
 * olg_lower_replace_value and returns OLG_OK, or returns OLG_ERR_UNSUPPORTED (after
 * olg_lower_warning, optionally, saying why) to refuse. Rules without a rewrite refuse. */
typedef olg_status (*olg_profile_rewrite_fn)(olg_lower *cx, olg_node_id node, const char *rule,
                                             void *ud);
OLG_API olg_status olg_profile_set_rewrite(olg_profile *p, const char *rule,
                                           olg_profile_rewrite_fn fn, void *ud);
/* Checks every node of m (subgraphs too) against p: each violation an error
 * OLG-PROFILE-VIOLATION in diags (node, rule, what would fix it). Runs olg_infer_shapes on m
 * first, so the rules see the dtypes and ranks (m is annotated as that call does). Returns
 * OLG_ERR_INVALID_MODEL when there is a violation, OLG_OK when none. */
OLG_API olg_status olg_profile_check(olg_model *m, const olg_profile *p, olg_diags *diags);
/* Options: a profile object instead of a name (NULL clears it); borrowed until the options are
 * freed or set again. */
OLG_API olg_status olg_legalize_options_set_profile_object(olg_legalize_options *opts,
                                                           const olg_profile *p);

/* The IR version released with an opset of the default domain (1-8: 3; 9: 4; 10: 5; 11: 6;
 * 12-14: 7; 15-18: 8; 19-20: 9; 21-22: 10; 23: 11; 24: 12; 25-27: 13), or -1 outside
 * 1..OLG_LOWER_OPSET_MAX. */
OLG_API int64_t olg_ir_version_for_opset(int64_t opset);

/* Legalizes src into a new model *out at the target opset. opts may be NULL (defaults); diags
 * may be NULL (then only olg_last_error says what failed), else every finding is appended.
 *
 * Names: the values that a source node computes keep their names in *out, and a node lowered to
 * its own op keeps its name; values and nodes a lowering adds are named after the source node
 * ("<node>/<Op>", "<node>/<Op>_<k>"). A source name that *out already holds (one a lowering made
 * up before) is not taken twice: that value gets a generated name.
 *
 * Ownership: the output model BORROWS the source model's initializer data, the tensors of its
 * Constant nodes, the names of the values it keeps and the doc strings and metadata_props of
 * nodes and value_info (no tensor bytes and none of those strings are copied): src must outlive
 * *out and must not change while *out is in use. Shapes and attributes are copied. The registry
 * is only read, so a frozen registry may serve several threads at once. On failure *out is NULL
 * and nothing leaks. */
OLG_API olg_status olg_legalize(const olg_model *src, const olg_registry *r,
                                const olg_legalize_options *opts, olg_model **out,
                                olg_diags *diags);

/* olg_legalize for a source the caller gives up (a model it read only to convert): src belongs
 * to the call, which frees it whatever it returns; on success *out keeps what it borrows from it
 * (initializer data, Constant tensors) and frees that with itself. The output is olg_legalize's,
 * byte for byte; what changes is memory: the call gives back the source's name map and the
 * records of the nodes it has lowered as it goes, so a large graph does not hold two whole
 * graphs at once (a million-node chain 13->17: about 100 MiB less at the peak). It does so for
 * the main graph when it has no subgraphs, every node lowers, and no code of the caller can see
 * the source (no symbolic added with olg_registry_add*, no profile made by olg_profile_new);
 * otherwise it behaves as olg_legalize followed by freeing src. */
OLG_API olg_status olg_legalize_consume(olg_model *src, const olg_registry *r,
                                        const olg_legalize_options *opts, olg_model **out,
                                        olg_diags *diags);

/* ========================================================================================== */
/* The lowering context: what a symbolic function (registry.h) may ask and do. Valid only
 * during the call of the symbolic function it is given to. Source node = the node being
 * lowered; target values/nodes = ids in the graph being built (olg_lower_target). */

/* Kinds of a source node's positional argument (the numbering is part of the ABI). */
enum {
  OLG_ARGKIND_NONE = 0,   /* none (an omitted optional), or an index past the last argument */
  OLG_ARGKIND_VALUE = 1,  /* a tensor */
  OLG_ARGKIND_VALUES = 2, /* a list of tensors (Tensor[], Tensor?[], or int[] with dynamic items) */
  OLG_ARGKIND_INT = 3,
  OLG_ARGKIND_FLOAT = 4,
  OLG_ARGKIND_BOOL = 5,
  OLG_ARGKIND_STRING = 6,
  OLG_ARGKIND_INTS = 7,
  OLG_ARGKIND_FLOATS = 8
};

/* ---- the setting ---- */
/* The target opset of the default domain. */
OLG_API int64_t olg_lower_opset(const olg_lower *cx);
/* The opset the source model imports for the source node's domain, or -1 (e.g. for "aten"). */
OLG_API int64_t olg_lower_source_opset(const olg_lower *cx);
/* The target profile ("" when none). */
OLG_API const char *olg_lower_profile(const olg_lower *cx);
/* 1 when decompositions are allowed. */
OLG_API int olg_lower_decompositions_allowed(const olg_lower *cx);
/* The source graph (read it with graph.h; never change it) and the target graph being built. */
OLG_API const olg_graph *olg_lower_source(const olg_lower *cx);
OLG_API olg_graph *olg_lower_target(olg_lower *cx);

/* ---- the source node ---- */
OLG_API const char *olg_lower_node_name(const olg_lower *cx);   /* "" when unnamed */
OLG_API const char *olg_lower_node_domain(const olg_lower *cx); /* "" for ONNX */
OLG_API const char *olg_lower_node_op(const olg_lower *cx);
OLG_API size_t olg_lower_arg_count(const olg_lower *cx);
/* An OLG_ARGKIND_* (NONE for i >= count). */
OLG_API int olg_lower_arg_kind(const olg_lower *cx, size_t i);
/* 1 when argument i is none or absent. */
OLG_API int olg_lower_arg_is_none(const olg_lower *cx, size_t i);
/* Argument i as a LOWERED tensor: the target value that stands for it, with known dtype and
 * shape. Fails with OLG_ERR_TYPE (and a diagnostic) when the argument is not a tensor. A literal
 * is not turned into a tensor here; see olg_lower_arg_as_tensor. */
OLG_API olg_status olg_lower_arg_value(olg_lower *cx, size_t i, olg_value *out);
/* Argument i as a list of lowered tensors (entries may be OLG_NO_VALUE for a None in Tensor?[]).
 * *vals stays valid until the legalize call ends. A single tensor is a list of one. */
OLG_API olg_status olg_lower_arg_values(olg_lower *cx, size_t i, const olg_value **vals,
                                        size_t *n);
/* Literals. Each accepts the literal kind and also a tensor whose contents are known and of
 * the right size (a front end may pass a traced scalar as a tensor):
 *   int:    INT, BOOL, or a known one-element integer tensor;
 *   float:  FLOAT, INT, BOOL, or a known one-element tensor;
 *   bool:   BOOL, INT;
 *   string: STRING;
 *   ints:   INTS, INT (a list of one, as PyTorch's int[N] accepts), VALUES whose every item is
 *           a known scalar, or a known 0-D/1-D integer tensor;
 *   floats: FLOATS, INTS, FLOAT, INT.
 * Fails with OLG_ERR_TYPE (and a diagnostic naming the argument) otherwise, OLG_ERR_UNSUPPORTED
 * when the value exists but is not known at lowering time. Arrays stay valid until the
 * legalize call ends. */
OLG_API olg_status olg_lower_arg_int(olg_lower *cx, size_t i, int64_t *out);
OLG_API olg_status olg_lower_arg_float(olg_lower *cx, size_t i, double *out);
OLG_API olg_status olg_lower_arg_bool(olg_lower *cx, size_t i, int *out);
OLG_API olg_status olg_lower_arg_string(olg_lower *cx, size_t i, const char **out);
OLG_API olg_status olg_lower_arg_ints(olg_lower *cx, size_t i, const int64_t **vals, size_t *n);
OLG_API olg_status olg_lower_arg_floats(olg_lower *cx, size_t i, const double **vals, size_t *n);
/* Argument i as a target tensor whatever its kind: a tensor as is; INT/BOOL/FLOAT as a 0-D
 * constant of dtype (OLG_UNDEFINED: int64 for INT, bool for BOOL, float for FLOAT); INTS/FLOATS
 * as a 1-D constant; VALUES of scalars (a dynamic int[]) as a 1-D int64 tensor (Concat of
 * Unsqueeze/Reshape, folded when known). */
OLG_API olg_status olg_lower_arg_as_tensor(olg_lower *cx, size_t i, olg_dtype dtype,
                                           olg_value *out);
/* Named attributes of the source node (ONNX-domain and custom-domain nodes).
 * OLG_ERR_NOT_FOUND when absent, OLG_ERR_TYPE when of another type. */
OLG_API int olg_lower_src_attr_has(const olg_lower *cx, const char *name);
OLG_API olg_status olg_lower_src_attr_int(olg_lower *cx, const char *name, int64_t *out);
OLG_API olg_status olg_lower_src_attr_float(olg_lower *cx, const char *name, double *out);
OLG_API olg_status olg_lower_src_attr_string(olg_lower *cx, const char *name, const char **out);
OLG_API olg_status olg_lower_src_attr_ints(olg_lower *cx, const char *name, const int64_t **vals,
                                           size_t *n);
OLG_API olg_status olg_lower_src_attr_floats(olg_lower *cx, const char *name,
                                             const float **vals, size_t *n);
/* Outputs of the source node: how many, and whether output i is used by anything (a node or a
 * graph output) — an unused output need not be bound. */
OLG_API size_t olg_lower_output_count(const olg_lower *cx);
OLG_API int olg_lower_output_used(const olg_lower *cx, size_t i);

/* ---- target values (what inference knows) ---- */
OLG_API olg_dtype olg_lower_value_dtype(const olg_lower *cx, olg_value v); /* OLG_UNDEFINED */
OLG_API int32_t olg_lower_value_rank(const olg_lower *cx, olg_value v); /* OLG_RANK_UNKNOWN */
/* dim i: >= 0 when fixed, OLG_DIM_UNKNOWN otherwise (then *param, if not NULL, gets the symbolic
 * name or NULL). */
OLG_API int64_t olg_lower_value_dim(const olg_lower *cx, olg_value v, int32_t i,
                                    const char **param);
/* 1 when the value's contents are known at lowering time (initializer, Constant, or computed by
 * inference). */
OLG_API int olg_lower_value_known(const olg_lower *cx, olg_value v);
/* Known contents as raw bytes, elements in the host's byte order (the tensor's own memory, not
 * a copy). */
OLG_API olg_status olg_lower_value_data(const olg_lower *cx, olg_value v, const void **data,
                                        size_t *nbytes);
/* Known contents of an integer or bool tensor, converted to int64 (valid until the legalize
 * call ends). OLG_ERR_UNSUPPORTED when not known, OLG_ERR_TYPE when not integer. */
OLG_API olg_status olg_lower_value_ints(olg_lower *cx, olg_value v, const int64_t **vals,
                                        size_t *n);

/* ---- emitting into the target graph ---- */
/* Starts a node. domain NULL or "" is ONNX; any other domain is a custom one (its opset_import
 * is added to the output model; see olg_registry_set_domain_version). Its name is derived from
 * the source node's: "<source name>/<op>" (e.g. "layer1.0.conv1/Conv"), made unique with a
 * suffix; a source node without a name gets "<op>_<n>". */
OLG_API olg_status olg_lower_emit_begin(olg_lower *cx, const char *domain, const char *op,
                                        olg_node_id *out);
/* Appends an input (OLG_NO_VALUE: an omitted optional input). */
OLG_API olg_status olg_lower_emit_input(olg_lower *cx, olg_node_id n, olg_value v);
OLG_API olg_status olg_lower_emit_attr_int(olg_lower *cx, olg_node_id n, const char *name,
                                           int64_t v);
OLG_API olg_status olg_lower_emit_attr_float(olg_lower *cx, olg_node_id n, const char *name,
                                             double v);
OLG_API olg_status olg_lower_emit_attr_string(olg_lower *cx, olg_node_id n, const char *name,
                                              const char *s);
OLG_API olg_status olg_lower_emit_attr_ints(olg_lower *cx, olg_node_id n, const char *name,
                                            const int64_t *v, size_t len);
OLG_API olg_status olg_lower_emit_attr_floats(olg_lower *cx, olg_node_id n, const char *name,
                                              const float *v, size_t len);
OLG_API olg_status olg_lower_emit_attr_strings(olg_lower *cx, olg_node_id n, const char *name,
                                               const char *const *v, size_t len);
OLG_API olg_status olg_lower_emit_attr_tensor(olg_lower *cx, olg_node_id n, const char *name,
                                              olg_dtype dtype, int32_t rank, const int64_t *dims,
                                              const void *data, size_t nbytes);
/* A subgraph attribute: sub from olg_lower_emit_subgraph, attached once. */
OLG_API olg_status olg_lower_emit_attr_graph(olg_lower *cx, olg_node_id n, const char *name,
                                             olg_graph *sub);
OLG_API olg_status olg_lower_emit_subgraph(olg_lower *cx, olg_graph **out);
/* Closes the node with n_out outputs (outs, may be NULL, gets their ids), then checks it against
 * the schema of the target opset (ONNX domain) and infers its outputs (the ONNX inference, or the
 * custom domain's shape function). A schema violation fails with OLG_ERR_INVALID_MODEL and a
 * diagnostic: that is a bug in the symbolic, not in the user's model. */
OLG_API olg_status olg_lower_emit_end(olg_lower *cx, olg_node_id n, size_t n_out,
                                      olg_value *outs);
/* As olg_lower_emit_end, for a default-domain node written as the op was defined at opset
 * `version` (its attributes and inputs as that version has them: Unsqueeze-13 with axes as an
 * input, GridSample-20 with mode "linear"): when the target's version of the op is the same, the
 * node is kept as it is; otherwise it is lowered to the target opset by the conversions
 * `olg_legalize` applies to an ONNX node of that version (re-encoded, or decomposed exactly), its
 * nodes named under the source node's name, or refused with a diagnostic that names the op, the
 * version, the source node's op, the target and the lowest opset that works. A symbolic written
 * this way works at every target the conversions reach, with no opset test of its own. */
OLG_API olg_status olg_lower_emit_end_at(olg_lower *cx, olg_node_id n, int version, size_t n_out,
                                         olg_value *outs);
/* A constant tensor (a Constant node; data copied; its contents are known to later symbolics). */
OLG_API olg_status olg_lower_emit_const(olg_lower *cx, olg_dtype dtype, int32_t rank,
                                        const int64_t *dims, const void *data, size_t nbytes,
                                        olg_value *out);
/* A 1-D int64 constant. */
OLG_API olg_status olg_lower_emit_const_ints(olg_lower *cx, const int64_t *v, size_t n,
                                             olg_value *out);
/* Makes target value v stand for output i of the source node. v may be any target value,
 * including another symbolic's output or a graph input (an identity op binds its input). */
OLG_API olg_status olg_lower_bind_output(olg_lower *cx, size_t i, olg_value v);

/* During a profile rewrite (olg_profile_set_rewrite): makes target value by stand for old
 * everywhere (graph outputs included); old's producer is removed when nothing else uses it.
 * OLG_ERR_INVALID_ARG outside a profile rewrite. */
OLG_API olg_status olg_lower_replace_value(olg_lower *cx, olg_value old, olg_value by);

/* ---- diagnostics ---- */
/* Adds an error naming the source node, its op and the target opset; returns code (so
 * `return olg_lower_error(cx, OLG_ERR_UNSUPPORTED, "...")`). */
OLG_API olg_status olg_lower_error(olg_lower *cx, olg_status code, const char *message);
OLG_API olg_status olg_lower_warning(olg_lower *cx, const char *message);
/* "aten::grid_sampler (node 'x'): <what> is not supported at opset 13; it needs opset >=
 * <min_opset>" — min_opset -1 when no opset works. Returns OLG_ERR_UNSUPPORTED. */
OLG_API olg_status olg_lower_unsupported(olg_lower *cx, const char *what, int min_opset);
/* A symbolic calls this before it emits a decomposition it chose at lowering time (e.g.
 * adaptive pooling whose sizes do not divide). OLG_OK when decompositions are allowed; else a
 * diagnostic "<what> needs a decomposition at opset N; natively from opset <native_opset>"
 * (native_opset -1: never) and OLG_ERR_UNSUPPORTED. */
OLG_API olg_status olg_lower_decompose(olg_lower *cx, const char *what, int native_opset);

#ifdef __cplusplus
}
#endif
#endif
