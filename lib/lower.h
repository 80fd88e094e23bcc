/* onnxlegal — the lowering context and the registry's internal interface (internal).
 *
 * The core's side of lowering, for the layers above it (symbolics/, opsets/, profiles/), which
 * include it as "../lib/lower.h" (docs/architecture.md: what each part may include):
 * - the lowering context's internal accessors (defined in lib/lower.c, next to the public
 *   olg_lower_* of onnxlegal/legalize.h) and OLG_TRY / OLG_MAX_RANK;
 * - struct olg_lower, which only the lowering context (lib/lower.c, lib/lower_emit.c), the
 *   driver (lib/legalize.c), the passes (lib/passes/) and the emit helpers (symbolics/emit*.c)
 *   look inside; symbolic functions use the accessors and the emit helpers;
 * - the registry's internal interface (lib/registry.c), for the driver and the built-in
 *   registry (opsets/builtin.c). */
#ifndef OLG_LOWER_H
#define OLG_LOWER_H
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ir.h"
#include "onnxlegal/legalize.h"
#include "onnxlegal/registry.h"

/* Returns from the enclosing function when expr is not OLG_OK. */
#define OLG_TRY(expr)                  \
  do {                                 \
    olg_status olg_try_s_ = (expr);    \
    if (olg_try_s_) return olg_try_s_; \
  } while (0)

/* The most dimensions the helpers handle in stack buffers. */
#define OLG_MAX_RANK 16

/* ------------------------------------------------------------------------------------------ */
/* What is known about target values (never fail; no diagnostic). lib/lower.c */

/* olg__dtype (OLG_UNDEFINED when unknown) and olg__rank (OLG_RANK_UNKNOWN when unknown): inline,
 * below struct olg_lower */
/* Dim i (negative i counts from the end); OLG_DIM_UNKNOWN when unknown or out of range. */
int64_t olg__dim(const olg_lower *cx, olg_value v, int32_t i);
/* True when the rank and every dim are known; fills dims[0..rank) (cap OLG_MAX_RANK). */
bool olg__static_shape(const olg_lower *cx, olg_value v, int64_t *dims, int32_t *rank);
/* True when v's contents are known and integer/bool; *p valid until the legalize call ends. */
bool olg__known_ints(olg_lower *cx, olg_value v, const int64_t **p, size_t *n);
/* A FLOAT tensor's elements to read as floats: its data when 4-aligned, else a copy in the
 * target's arena (data read from a file is where the file put it: raw_data at any offset).
 * NULL when t is not FLOAT with data, or on failure. */
const float *olg__tensor_f32(olg_lower *cx, const olg_tensor *t, size_t *n);
/* True when argument i is a list of values whose items are all known scalars (an int[] with
 * only export-time items). A probe: unlike olg_lower_arg_ints it records no diagnostic, so a
 * symbolic can try the static path and fall back to the run-time one. */
bool olg__arg_values_known(olg_lower *cx, size_t i);
/* True when v is known and has exactly one element; its value converted to double. */
bool olg__known_scalar(olg_lower *cx, olg_value v, double *out);
/* The tensor behind a known value, or NULL. */
const olg_tensor *olg__known(const olg_lower *cx, olg_value v);

/* ------------------------------------------------------------------------------------------ */
/* The source node (ONNX-domain symbolics read its attributes; a missing one gives dflt). */

int64_t olg__src_attr_int(const olg_lower *cx, const char *name, int64_t dflt);
double olg__src_attr_float(const olg_lower *cx, const char *name, double dflt);
const char *olg__src_attr_string(olg_lower *cx, const char *name, const char *dflt);
/* false when absent. */
bool olg__src_attr_ints(const olg_lower *cx, const char *name, const int64_t **p, size_t *n);
/* The source node's IR (read only). */
const olg_node *olg__src_node(const olg_lower *cx);

/* ------------------------------------------------------------------------------------------ */
/* Diagnostics, printf-style (see olg_lower_error / olg_lower_unsupported), and memory. */

olg_status olg__errf(olg_lower *cx, olg_status code, const char *fmt, ...) OLG_PRINTF(3, 4);
olg_status olg__unsupportedf(olg_lower *cx, int min_opset, const char *fmt, ...) OLG_PRINTF(3, 4);
/* Allocation from the target model's arena (zeroed; error set on failure). */
void *olg__lower_alloc(olg_lower *cx, size_t n);
/* Room for n values (a node's outputs or inputs, as many as it has): the caller's buf of
 * n_buf when they fit (most nodes: nothing taken from the arena per node), else the arena. */
static inline olg_value *olg__lower_values(olg_lower *cx, olg_value *buf, size_t n_buf, size_t n) {
  if (buf && n <= n_buf) return buf;
  if (n > SIZE_MAX / sizeof(olg_value)) {
    olg__errf(cx, OLG_ERR_NOMEM, "%zu values", n);
    return NULL;
  }
  return olg__lower_alloc(cx, (n ? n : 1) * sizeof(olg_value));
}
/* An initializer of the target graph, named after the source node; mode says whether the data
 * is copied (OLG_DATA_COPY) or borrowed (OLG_DATA_BORROW, data outliving the target model).
 * lib/lower_emit.c */
olg_status olg__lower_initializer(olg_lower *cx, olg_dtype dtype, int32_t rank,
                                  const int64_t *dims, const void *data, size_t nbytes,
                                  olg_data_mode mode, olg_value *out);
/* A Constant node of the target graph (mode as above), interned: an equal constant emitted
 * before in the same graph is given back instead (lib/lower_emit.c). Its value is known. */
olg_status olg__lower_constant(olg_lower *cx, olg_dtype dtype, int32_t rank, const int64_t *dims,
                               const void *data, size_t nbytes, olg_data_mode mode,
                               olg_value *out);
/* Sets cx->intern_off for source node nd, about to be lowered. */
void olg__lower_consts_node(olg_lower *cx, const olg_node *nd);
/* *from into *to, a type of the target: its shape and dim names copied (olg_legalize's
 * contract), its serializer's extra dropped. */
olg_status olg__lower_copy_type(olg_model *m, olg_type *to, const olg_type *from);
/* Two tensor types whose known shapes cannot be one: ranks differ, or a dim both know differs. */
static inline bool olg__shapes_contradict(const olg_type *a, const olg_type *b) {
  if (!a->has_shape || !b->has_shape || a->rank < 0 || b->rank < 0) return false;
  if (a->rank != b->rank) return true;
  for (int32_t i = 0; i < a->rank; i++)
    if (a->dims[i].value >= 0 && b->dims[i].value >= 0 && a->dims[i].value != b->dims[i].value)
      return true;
  return false;
}
/* The source graph's value_info entries whose value the target keeps under its name (and, as far
 * as known, of the same type), with their doc strings and metadata_props (borrowed): listed in
 * the target's value_info with the source's type, as onnx's converter keeps them; the cleanup
 * drops those whose value it removes. The graph inputs' and outputs' doc strings and
 * metadata_props too. After the graph's outputs are bound. */
olg_status olg__lower_value_info(olg_lower *cx);
/* What describes the source graph, on the target: its doc string and metadata_props (borrowed;
 * what holds a NUL copied as read), and its quantization_annotation entries whose tensors the
 * target holds under the same names, carried as read: those tensors protected and kept by the
 * cleanup. An entry naming a tensor the target lacks goes, with a warning that says which. */
olg_status olg__lower_graph_about(olg_lower *cx);
/* Warnings for what the reader kept of the source graph (and, for the main graph, of the model)
 * that a conversion does not carry: training_info, multi-device configuration, fields unknown to
 * this library; each kind said once per graph. Before the graph's nodes are lowered (a consumed
 * source gives them back as it goes). */
olg_status olg__lower_note_dropped(olg_lower *cx);
/* The end of the cleanup: the annotations olg__lower_graph_about kept whose tensors the graph
 * still defines under their names are carried as read; one whose tensor a rewrite replaced
 * goes, with a warning (lib/lower_emit.c). */
olg_status olg__lower_annotations_finish(olg_lower *cx);
/* After source node nd lowered (its first emitted value and node given): its outputs keep their
 * source names in the target where the lowering made them, values of its own that were given
 * generated names; tools that name tensors (calibration caches, per-tensor precision, layerwise
 * comparisons with the source, quantizers' exclusion lists) find them in the converted model. A
 * name the target holds already, a value from before (an interned Constant, an input passed
 * through), a front end's node (aten, prim), and a value computed before a node with subgraphs
 * that the lowering emitted (they may read it by the name it had) keep the generated name. The
 * name is the source's string, not copied: the target keeps its source (olg_legalize's
 * contract). Each node emitted for nd (but an operand Constant) takes nd's doc string and
 * metadata_props, borrowed too. */
olg_status olg__lower_keep_names(olg_lower *cx, const olg_node *nd, uint32_t first_value,
                                 uint32_t first_node);
/* A lookahead: asks for the slots of the kept-name map that source node nd's outputs will take
 * (a cache miss each in a large graph's map), a few nodes before nd is lowered. */
void olg__lower_keep_names_ahead(const olg_lower *cx, const olg_node *nd);
/* olg_model_opset(cx->src_model, domain), remembered for the last (model, domain pointer). */
int64_t olg__src_opset_of(olg_lower *cx, const char *domain);
/* Drops the table of g's interned Constants, once its nodes are lowered (NULL is fine). */
void olg__lower_consts_free(olg_graph *g);

/* ------------------------------------------------------------------------------------------ */
/* The context */

struct olg_profile;

typedef struct olg_reads_memo olg_reads_memo; /* passes/walk.c */
typedef struct olg_scopes olg_scopes;         /* legalize.c */

struct olg_lower {
  const olg_model *src_model;
  const olg_graph *src;
  olg_model *dst_model;
  olg_graph *dst;
  const olg_registry *reg;
  olg_diags *diags;
  int opset;
  bool allow_decompositions;
  bool fold;
  bool fold_weights; /* olg_legalize_options.fold_weights (passes/fold.c) */
  bool report;         /* a note per lowered source node (olg_legalize_options.report) */
  const char *profile; /* never NULL */
  const struct olg_profile *prof; /* the profile's rules (lib/profile.h); NULL: none */

  olg_value *map;   /* source value -> target value (OLG_NO_VALUE: not lowered) */
  uint32_t map_len; /* map's elements (the source's value count when it was made) */
  uint32_t *uses;   /* source value -> consumers + graph-output listings */
  /* olg_legalize_consume: the source graph, which the call owns and no code outside the library
     can read (no caller symbolic or profile): the lowering gives back its name map and the
     records of the nodes it is done with (legalize_consume.c). NULL otherwise. */
  olg_graph *src_release;
  uint32_t src_released; /* nodes of src_release given back so far (a prefix of the array) */
  /* olg__src_output_read_only_by: per value of read_by_src, its reads by nodes of the ops
     read_by_ops lists (in the target's arena; counted again for another source or list) */
  uint32_t *read_by;
  uint32_t n_read_by;
  const char *const *read_by_ops;
  const olg_graph *read_by_src;

  /* the node being lowered (-1 during the driver's own passes) */
  olg_node_id cur;
  const olg_node *cur_node;
  int64_t cur_src_opset;
  /* the source opset of the domain asked last (olg__src_opset_of): mostly the same per node */
  const olg_model *opset_memo_model;
  const char *opset_memo_domain;
  int64_t opset_memo_version;
  const char *name_base;  /* emitted nodes are named "<name_base>/<Op>" */
  uint32_t n_emitted;     /* nodes emitted for the current source node */
  struct olg_op_use { char op[48]; uint32_t n; } op_uses[16]; /* for "<base>/<Op>_<k>" */
  uint32_t n_op_uses;
  size_t n_errors;        /* error diagnostics added during the call */
  size_t n_invalid;       /* of those, defects of the source model (OLG-LOWER-GRAPH) */
  bool cur_reported;      /* the current symbolic added an error diagnostic */
  bool cur_decomposed;    /* the current node's lowering is a decomposition */
  bool intern_off;        /* the current node has an output the graph lists or a subgraph
                             reads: its Constants are not interned (olg__lower_constant) */
  uint8_t *pinned;        /* source value -> a graph output or read by name by a subgraph
                             (NULL: none known) */
  bool probing;           /* running a refused node's symbolic at a higher opset, to find the
                             lowest that works (legalize.c): its refusals are not chased */
  int versioned_depth;    /* nodes emitted at a named version, being lowered inside one another
                             (lower_versioned.c): bounded */

  /* custom domains the emitted nodes use, for opset_import */
  const char **custom_domains;
  uint32_t n_custom, cap_custom;

  /* subgraphs (If, Loop, Scan bodies) are lowered by a context of their own */
  struct olg_lower *parent; /* NULL for the main graph */
  const char *scope;        /* name prefix for the unnamed nodes of a subgraph, or NULL */
  uint8_t *protect;         /* target values that subgraphs read by name: never renamed or
                               merged away (NULL: none) */
  uint32_t n_protect;
  /* target values the cleanup keeps though no output needs them: those the graph's carried
     quantization annotations name (olg__lower_annotations) */
  const olg_value *roots;
  uint32_t n_roots;
  struct olg_annots *annots; /* those annotations, carried once the cleanup is done */

  /* during the profile's rewrite (lib/profile.h): the substitution the fixes record with
   * olg__replace_value, and its room (the engine grows it) */
  olg_value *subst;
  uint32_t subst_cap;

  /* for the subgraph about to be lowered by olg__lower_subgraph: the values of cx->dst whose
     types its untyped inputs take, by position (a Loop body's carried inputs take their initial
     values' element type and rank, dims unknown); NULL: none. Set by the symbolic around the call. */
  const olg_value *sub_in_from;
  size_t n_sub_in_from;

  int depth;                /* subgraphs deep: 0 for the main graph */
  olg_reads_memo *reads;    /* shared by every level of one olg_legalize (passes/walk.c) */
  olg_scopes *scopes;       /* the same: which enclosing graph defines a name (legalize.c) */
  bool scopes_pushed;       /* this level's source names are in scopes (once a subgraph asks) */
  struct olg_keep *keep;    /* keep_functions: the kept calls and their bodies (function_keep.c) */
};

/* What is known of target value v: asked several times for every argument of every node (the
 * symbolics, the emitted node's check), so inline. */
static inline const olg_value_rec *olg__dst_rec(const olg_lower *cx, olg_value v) {
  return cx && v >= 0 && (uint32_t)v < cx->dst->n_values ? &cx->dst->values[v] : NULL;
}
static inline olg_dtype olg__dtype(const olg_lower *cx, olg_value v) {
  const olg_value_rec *r = olg__dst_rec(cx, v);
  return r && r->type.kind == OLG_TYPE_TENSOR && r->type.has_elem ? olg__type_elem(&r->type)
                                                                   : OLG_UNDEFINED;
}
/* olg_lower_arg_value where argument i is a lowered value (the usual case, asked for every
 * argument of every node passed through), without the call; the API call says what else. */
static inline olg_status olg__arg_value(olg_lower *cx, size_t i, olg_value *out) {
  const olg_node *nd = cx->cur_node;
  if (nd && i < nd->n_args && nd->args[i].kind == OLG_ARG_VALUE) {
    olg_value sv = nd->args[i].u.v;
    if (sv >= 0 && (uint32_t)sv < cx->src->n_values && cx->map[sv] != OLG_NO_VALUE)
      return *out = cx->map[sv], OLG_OK;
  }
  return olg_lower_arg_value(cx, i, out);
}
static inline int32_t olg__rank(const olg_lower *cx, olg_value v) {
  const olg_value_rec *r = olg__dst_rec(cx, v);
  return r && r->type.kind == OLG_TYPE_TENSOR && r->type.has_shape ? r->type.rank
                                                                   : OLG_RANK_UNKNOWN;
}

/* function_keep.c: olg_legalize with keep_functions. prepare converts the body of each kept
 * function per call signature and sets dm->keep to the source with every other call inlined;
 * keep_lower passes a kept call through (false: nd is not one); finish adds the kept functions
 * to dm; free (NULL is fine) releases what finish did not take. */
typedef struct olg_keep olg_keep;
olg_status olg__keep_prepare(const olg_model *src, const olg_registry *r,
                             const olg_legalize_options *o, olg_diags *diags, olg_model *dm,
                             olg_keep **out);
bool olg__keep_lower(olg_lower *cx, const olg_node *nd, olg_status *out);
olg_status olg__keep_finish(olg_model *dm, olg_keep *k);
void olg__keep_free(olg_keep *k);

/* legalize.c: lowers source node id of cx->src into cx->dst (dispatch, symbolic, the outputs
 * bound and cross-checked): OLG_OK, 1 (skipped: an input failed upstream) or the failure,
 * reported. The driver's step for each node, and a versioned emission's (lower_versioned.c). */
olg_status olg__lower_node(olg_lower *cx, olg_node_id id);

/* legalize.c: lowers a subgraph of the source node being lowered (an attribute `attr` of an ONNX
 * If/Loop/Scan) into a new subgraph of the target model, to be attached to the emitted node. */
olg_status olg__lower_subgraph(olg_lower *cx, const olg_graph *src_sub, const char *attr,
                               olg_graph **out);

/* ------------------------------------------------------------------------------------------ */
/* The registry (lib/registry.c) */

/* The symbolic for (domain, op) at opset: OLG_OK with *fn; OLG_ERR_UNSUPPORTED for an explicit
 * "not expressible" row; OLG_ERR_NOT_FOUND when nothing is registered (ONNX ops fall back on
 * the pass-through in a built-in registry). No message is set. */
olg_status olg__registry_dispatch(const olg_registry *r, const char *domain, const char *op,
                                  int opset, olg_symbolic_fn *fn, void **ud, int *lowering);
olg_shape_fn olg__registry_shape_fn(const olg_registry *r, const char *domain, const char *op,
                                    void **ud);
int64_t olg__registry_domain_version(const olg_registry *r, const char *domain);
/* The function every ONNX op without a registration of its own dispatches to (a built-in
 * registry's pass-through, set by olg_registry_new_builtin in opsets/builtin.c). */
void olg__registry_set_onnx_fallback(olg_registry *r, olg_symbolic_fn fn);
/* A caller added a symbolic to r (olg_registry_add, olg_registry_add_ex). */
bool olg__registry_caller_symbolics(const olg_registry *r);
/* The profiles a legalize with this registry finds by name (options.profile): a NULL-ended
 * list handed to the core by olg_registry_new_builtin (the built-in profiles of profiles/);
 * none in a registry made by olg_registry_new. */
void olg__registry_set_profiles(olg_registry *r, const olg_profile *const *profiles);
const olg_profile *const *olg__registry_profiles(const olg_registry *r);
/* olg_registry_add_ex for the opsets [since_opset, until_opset) (until 0: no end); past them
 * an ONNX op is the pass-through's again (opsets/builtin.c's rows). */
olg_status olg__registry_add_range(olg_registry *r, const char *domain, const char *op,
                                  int since_opset, int until_opset, int lowering,
                                  olg_symbolic_fn fn, void *ud);

/* legalize_report.c: the report note of source node id, whose emitted nodes are the target
 * graph's from index first_emitted on. */
void olg__lower_report_node(olg_lower *cx, olg_node_id id, uint32_t first_emitted);

/* lower.c: the diagnostic machinery shared with emit.c; _min also records the lowest opset
 * that works (-1: none) */
olg_status olg__lower_diag(olg_lower *cx, olg_severity sev, const char *code, olg_status status,
                           const char *message);
olg_status olg__lower_diag_min(olg_lower *cx, olg_severity sev, const char *code,
                               olg_status status, const char *message, int min_opset);
/* A diagnostic formatted from fmt and ap, about source node nd of cx->src (NULL: the graph),
 * whatever node is being lowered: the driver's own findings. */
olg_status olg__lower_diag_at(olg_lower *cx, const olg_node *nd, olg_severity sev, const char *code,
                              olg_status status, const char *fmt, va_list ap) OLG_PRINTF(6, 0);

/* Pushes cx's source names for the scope lookups of its subgraphs, once (legalize.c). */
olg_status olg__scopes_ensure(olg_lower *cx);

/* olg_legalize; owned: src again when the call owns it (olg_legalize_consume), else NULL. */
olg_status olg__legalize(const olg_model *src, olg_model *owned, const olg_registry *r,
                         const olg_legalize_options *opts, olg_model **out, olg_diags *diags);
/* legalize_consume.c: what olg_legalize_consume gives back of its source while lowering
 * (cx->src_release). After the order is known and before the first node: */
void olg__consume_begin(olg_lower *cx);
/* After node id of the source (lowered: it lowered without a fault): */
void olg__consume_node(olg_lower *cx, olg_node_id id, bool lowered);
/* Once the graph outputs are bound, before the cleanup: the node and value records. */
void olg__consume_end(olg_lower *cx);

#endif
