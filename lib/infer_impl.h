/* onnxlegal — shape and type inference: what the per-op rules share (lib/infer*.c only).
 *
 * A rule reads its node's inputs (types, shapes, known contents) and attributes through an
 * olg_icx and sets its outputs with olg__set_out*; it returns OLG_OK, OLG_ERR_NOMEM, or
 * olg__fail(...) when the inputs make the node impossible. Shapes are handled as olg_ishape,
 * a fixed-capacity stack value; a rank above OLG_INFER_MAX_RANK is treated as unknown. */
#ifndef OLG_INFER_IMPL_H
#define OLG_INFER_IMPL_H
#include "infer.h"
#include "schema.h"

#define OLG_INFER_MAX_RANK 32
/* Propagated constants (shape computations) are computed up to this many elements. */
#define OLG_INFER_MAX_KNOWN 4096

typedef struct olg_ishape {
  int32_t rank; /* OLG_RANK_UNKNOWN: nothing known (dims unused) */
  olg_dim d[OLG_INFER_MAX_RANK];
} olg_ishape;

typedef struct olg_icx {
  olg_graph *g;
  olg_model *m;
  olg_node *nd;
  olg_node_id id;
  int64_t opset;
  olg_diags *diags;
  size_t max_errors; /* for subgraphs inferred by a rule */
  bool notes;
  bool bodies_done; /* the node's subgraphs are inferred already (the lowering emits a node
                       after its bodies, each node of which it inferred): not again */
  int depth;        /* how many subgraphs deep the node is, counted from where inference began */
  olg_iscopes *sc;  /* the enclosing graphs' definitions (infer_graph's), or NULL */
} olg_icx;

typedef olg_status (*olg_infer_fn)(olg_icx *cx);

/* ---- inputs ---- */
static inline int olg__nin(const olg_icx *cx) { return (int)cx->nd->n_args; }
static inline int olg__nout(const olg_icx *cx) { return (int)cx->nd->n_outputs; }
/* The resolved record of input i, or NULL when absent (omitted, or beyond the inputs). Inline,
 * as are the two below: asked several times for each input of every node inferred. A main
 * graph's value that is no outer reference is itself (olg__resolve_in not called). */
static inline const olg_value_rec *olg__in(const olg_icx *cx, int i) {
  if (i < 0 || (uint32_t)i >= cx->nd->n_args) return NULL;
  const olg_arg *a = &cx->nd->args[i];
  if (a->kind != OLG_ARG_VALUE || a->u.v < 0 || (uint32_t)a->u.v >= cx->g->n_values) return NULL;
  const olg_value_rec *r = &cx->g->values[a->u.v];
  if (!cx->g->parent && !(r->flags & OLG_VF_OUTER)) return r;
  return olg__resolve_in(cx->sc, cx->g, a->u.v);
}
/* Its type when it has one, else NULL. */
static inline const olg_type *olg__in_type(const olg_icx *cx, int i) {
  const olg_value_rec *r = olg__in(cx, i);
  return r && r->type.kind != OLG_TYPE_NONE ? &r->type : NULL;
}
/* The element type of tensor input i, or OLG_UNDEFINED. */
static inline olg_dtype olg__in_dtype(const olg_icx *cx, int i) {
  const olg_type *t = olg__in_type(cx, i);
  return t && t->kind == OLG_TYPE_TENSOR && t->has_elem ? olg__type_elem(t) : OLG_UNDEFINED;
}
/* The shape of tensor input i; false (s->rank = OLG_RANK_UNKNOWN) when its rank is unknown. */
bool olg__in_shape(const olg_icx *cx, int i, olg_ishape *s);
int32_t olg__in_rank(const olg_icx *cx, int i);
/* Known contents of input i (initializer, Constant, propagated), when loaded. */
const olg_tensor *olg__in_known(const olg_icx *cx, int i);
/* Fully known integer contents of input i (any integer or bool dtype), at most cap elements:
 * true and *n set; false when not known or larger. */
bool olg__in_ints(const olg_icx *cx, int i, int64_t *buf, size_t cap, size_t *n);
/* Fully known contents as doubles (float, double, float16, bfloat16 and integers). */
bool olg__in_doubles(const olg_icx *cx, int i, double *buf, size_t cap, size_t *n);
/* Contents of a 0-D or 1-D integer input as known in part: each element a number, a dim_param
 * or unknown (see OLG_SYM_UNKNOWN). True when at least the element count is known. */
bool olg__in_syms(const olg_icx *cx, int i, olg_dim *buf, size_t cap, size_t *n);

/* ---- attributes ---- */
const olg_attr *olg__attr(const olg_icx *cx, const char *name);
int64_t olg__attr_i(const olg_icx *cx, const char *name, int64_t def);
float olg__attr_f(const olg_icx *cx, const char *name, float def);
/* INTS attribute: true and *p, *n set when present. */
bool olg__attr_ints(const olg_icx *cx, const char *name, const int64_t **p, size_t *n);
/* STRING attribute compared with s ("" when absent: then def is compared). */
bool olg__attr_is(const olg_icx *cx, const char *name, const char *def, const char *s);
/* STRING attribute copied into buf (NUL-terminated, cut to fit); def when absent. */
const char *olg__attr_s(const olg_icx *cx, const char *name, const char *def, char *buf, size_t n);

/* ---- outputs ---- */
/* Sets output i to a tensor of element type dt (OLG_UNDEFINED: unknown) and shape s (NULL or
 * rank OLG_RANK_UNKNOWN: unknown), merged with what the output declares. */
olg_status olg__set_out(olg_icx *cx, int i, olg_dtype dt, const olg_ishape *s);
/* Sets output i to any type (sequences, optionals, maps), merged likewise. */
olg_status olg__set_out_type(olg_icx *cx, int i, const olg_type *t);
/* Output i is the tensor t (its type and its contents). t must live as long as the model. */
olg_status olg__set_out_known(olg_icx *cx, int i, const olg_tensor *t);
/* Output i has the integer contents v (n elements, dims given) of integer dtype dt: sets type
 * and known (copied into the arena). */
olg_status olg__set_out_ints(olg_icx *cx, int i, olg_dtype dt, int32_t rank, const int64_t *dims,
                             const int64_t *v, size_t n);
/* Same with floating-point contents. */
olg_status olg__set_out_doubles(olg_icx *cx, int i, olg_dtype dt, int32_t rank,
                                const int64_t *dims, const double *v, size_t n);
/* Output i is an integer tensor of dtype dt, rank 0 (scalar) or 1, whose contents are known in
 * part (v: n elements as in olg__in_syms): sets type and sym (or known when all are numbers). */
olg_status olg__set_out_syms(olg_icx *cx, int i, olg_dtype dt, int32_t rank, const olg_dim *v,
                             size_t n);
/* The inputs make the node impossible: OLG_ERR_INVALID_MODEL with the reason, also added to
 * diags as OLG-INFER-INVALID. */
olg_status olg__fail(olg_icx *cx, const char *fmt, ...) OLG_PRINTF(2, 3);

/* ---- types ---- */
olg_type *olg__type_new(olg_icx *cx); /* zeroed, in the arena; NULL (error set) on failure */
/* A tensor type from dtype and shape, in the arena. */
olg_type *olg__type_tensor(olg_icx *cx, olg_dtype dt, const olg_ishape *s);
/* seq(inner) / optional(inner); inner may be NULL (unknown element type). */
olg_type *olg__type_wrap(olg_icx *cx, olg_type_kind kind, const olg_type *inner);
/* Shape of a tensor type (false when not a tensor or rank unknown). */
bool olg__type_shape(const olg_type *t, olg_ishape *s);

/* ---- shapes ---- */
static inline olg_dim olg__dnum(int64_t v) { olg_dim d = {v, NULL, NULL}; return d; }
static inline olg_dim olg__dunk(void) { olg_dim d = {OLG_DIM_UNKNOWN, NULL, NULL}; return d; }
static inline bool olg__dknown(const olg_dim *d) { return d->value >= 0; }
/* Same number, or same dim_param. */
bool olg__dim_same(const olg_dim *a, const olg_dim *b);
static inline void olg__shape_unknown(olg_ishape *s) { s->rank = OLG_RANK_UNKNOWN; }
/* Rank r, every dim unknown; false when r exceeds OLG_INFER_MAX_RANK (then rank unknown). */
bool olg__shape_rank(olg_ishape *s, int64_t r);
/* Product of the dims when all are known (false on unknown or overflow). */
bool olg__shape_numel_known(const olg_ishape *s, int64_t *n);
/* Multidirectional (numpy) broadcasting of a and b into out; fails on incompatible dims. */
olg_status olg__broadcast(olg_icx *cx, const olg_ishape *a, const olg_ishape *b, olg_ishape *out);
/* olg__broadcast of olg__type_shape(a) and olg__type_shape(b), read in place: false when either
 * has no shape of a known rank, or the dims do not broadcast (olg__broadcast then says why). */
bool olg__broadcast_types(const olg_type *a, const olg_type *b, olg_ishape *out);
/* Normalizes axis into [0, rank) (negative counts from the end); fails when out of range. */
olg_status olg__axis(olg_icx *cx, int64_t axis, int32_t rank, const char *what, int32_t *out);
/* Sum and product of dims: known when both are known; a dim plus 0 or times 1 is itself. */
olg_dim olg__dim_add(olg_dim a, int64_t b);
olg_dim olg__dim_mul(olg_dim a, olg_dim b);
/* Checked int64 arithmetic for every dim and size a rule computes from attributes or inputs a
 * hostile model controls: false on overflow (the rule then leaves the dim unknown). */
static inline bool olg__add_i64(int64_t a, int64_t b, int64_t *o) { return !__builtin_add_overflow(a, b, o); }
static inline bool olg__sub_i64(int64_t a, int64_t b, int64_t *o) { return !__builtin_sub_overflow(a, b, o); }
static inline bool olg__mul_i64(int64_t a, int64_t b, int64_t *o) { return !__builtin_mul_overflow(a, b, o); }
/* d truncated toward zero as an integer of dtype dt (bool: d != 0), in *out; false when d is NaN
 * or does not fit dt: ONNX leaves such a conversion undefined, so it is not folded. */
bool olg__double_to_int(double d, olg_dtype dt, int64_t *out);

/* ---- elementwise evaluation of small known tensors (lib/infer_eval.c) ---- */
typedef enum olg_eval_op {
  OLG_EV_ADD, OLG_EV_SUB, OLG_EV_MUL, OLG_EV_DIV, OLG_EV_MOD, OLG_EV_FMOD, OLG_EV_MIN, OLG_EV_MAX,
  OLG_EV_EQUAL, OLG_EV_LESS, OLG_EV_GREATER, OLG_EV_LESS_EQ, OLG_EV_GREATER_EQ,
  OLG_EV_AND, OLG_EV_OR, OLG_EV_XOR, OLG_EV_NOT, OLG_EV_NEG, OLG_EV_ABS, OLG_EV_WHERE,
  OLG_EV_IDENTITY, OLG_EV_SIGN, OLG_EV_CEIL, OLG_EV_FLOOR, OLG_EV_SQRT, OLG_EV_RECIPROCAL,
  OLG_EV_POW, OLG_EV_RELU
} olg_eval_op;
/* When every input is known and small, computes the output (shape out_shape, already inferred,
 * dtype out_dt) and records it as output 0's contents; otherwise does nothing. */
olg_status olg__eval_elementwise(olg_icx *cx, olg_eval_op op, const olg_ishape *out_shape,
                                 olg_dtype out_dt);
/* For elementwise ops on partly known 1-D integer values (shape arithmetic over symbolic
 * dims): output 0 gets the element-wise result, symbolic where it stays symbolic. */
olg_status olg__eval_syms(olg_icx *cx, olg_eval_op op, olg_dtype out_dt);

/* dtype helpers */
bool olg__dtype_is_int(olg_dtype t);   /* integer types, bool excluded */
bool olg__dtype_is_float(olg_dtype t); /* float, double, float16, bfloat16, float8s, float4 */

/* ---- subgraphs ---- */
/* The graph of attribute name, or NULL. */
olg_graph *olg__attr_graph(const olg_icx *cx, const char *name);
/* Types input i of sub with t (merged with its declared type; t may be NULL). */
olg_status olg__set_graph_input(olg_icx *cx, olg_graph *sub, int i, const olg_type *t);
/* Infers a subgraph of this node (its nodes at the model's opsets). */
olg_status olg__infer_subgraph(olg_icx *cx, olg_graph *sub);
/* The type of output i of sub, or NULL. */
const olg_type *olg__graph_output_type(const olg_graph *sub, int i);

/* ---- the rules, by family (one file each) ---- */
/* Shared by the parts of the driver and of the shape rules. */
/* infer.c: rank dims copied into the model's arena */
olg_dim *olg__infer_dims_dup(olg_model *m, const olg_dim *d, int32_t rank);
/* infer_merge.c: the inferred type i merged into what the value holds (e) as *r; *conflict when
 * they contradict */
olg_status olg__infer_merge_type(olg_icx *cx, const olg_type *e, const olg_type *i, olg_type *r,
                                 bool *conflict);
/* infer_shape.c: an element of a shape value that is a known number; the dim it stands for */
bool olg__infer_sym_is_num(const olg_dim *d);
olg_dim olg__infer_dim_from_sym(const olg_dim *s);

#define OLG_INFER_RULE(fn) olg_status fn(olg_icx *cx)
/* lib/infer_elem.c */
OLG_INFER_RULE(olg__inf_unary);       /* same type and shape as input 0 */
OLG_INFER_RULE(olg__inf_unary_bool);  /* bool, shape of input 0 (IsNaN, IsInf) */
OLG_INFER_RULE(olg__inf_binary);      /* broadcast, type of input 0; arithmetic propagation */
OLG_INFER_RULE(olg__inf_compare);     /* broadcast, bool */
OLG_INFER_RULE(olg__inf_logical);     /* broadcast, bool (And, Or, Xor) */
OLG_INFER_RULE(olg__inf_variadic);    /* Sum, Mean, Max, Min: broadcast all */
OLG_INFER_RULE(olg__inf_where);
OLG_INFER_RULE(olg__inf_not);
OLG_INFER_RULE(olg__inf_prelu);
OLG_INFER_RULE(olg__inf_clip);
OLG_INFER_RULE(olg__inf_cast);
OLG_INFER_RULE(olg__inf_castlike);
OLG_INFER_RULE(olg__inf_reduce);
OLG_INFER_RULE(olg__inf_argmax);
OLG_INFER_RULE(olg__inf_softmax);
OLG_INFER_RULE(olg__inf_dropout);
OLG_INFER_RULE(olg__inf_identity);
OLG_INFER_RULE(olg__inf_cumsum);
OLG_INFER_RULE(olg__inf_topk);
OLG_INFER_RULE(olg__inf_bitshift);
OLG_INFER_RULE(olg__inf_mod);
OLG_INFER_RULE(olg__inf_pow);
OLG_INFER_RULE(olg__inf_shrink);
OLG_INFER_RULE(olg__inf_hardmax);
OLG_INFER_RULE(olg__inf_det);
OLG_INFER_RULE(olg__inf_trilu);
OLG_INFER_RULE(olg__inf_random_like);
OLG_INFER_RULE(olg__inf_random);
OLG_INFER_RULE(olg__inf_multinomial);
OLG_INFER_RULE(olg__inf_bernoulli);
OLG_INFER_RULE(olg__inf_quantize);
OLG_INFER_RULE(olg__inf_dequantize);
OLG_INFER_RULE(olg__inf_dyn_quantize);
OLG_INFER_RULE(olg__inf_eyelike);
OLG_INFER_RULE(olg__inf_isinf);
OLG_INFER_RULE(olg__inf_bitcast);
OLG_INFER_RULE(olg__inf_string_concat);
OLG_INFER_RULE(olg__inf_string_split);
OLG_INFER_RULE(olg__inf_image_decoder);
/* lib/infer_nn.c */
OLG_INFER_RULE(olg__inf_conv);
OLG_INFER_RULE(olg__inf_conv_integer);
OLG_INFER_RULE(olg__inf_qlinear_conv);
OLG_INFER_RULE(olg__inf_conv_transpose);
OLG_INFER_RULE(olg__inf_pool);
OLG_INFER_RULE(olg__inf_global_pool);
OLG_INFER_RULE(olg__inf_max_unpool);
OLG_INFER_RULE(olg__inf_roi_pool);
OLG_INFER_RULE(olg__inf_roi_align);
OLG_INFER_RULE(olg__inf_batchnorm);
OLG_INFER_RULE(olg__inf_layernorm);
OLG_INFER_RULE(olg__inf_groupnorm);
OLG_INFER_RULE(olg__inf_matmul);
OLG_INFER_RULE(olg__inf_matmul_integer);
OLG_INFER_RULE(olg__inf_qlinear_matmul);
OLG_INFER_RULE(olg__inf_gemm);
OLG_INFER_RULE(olg__inf_einsum);
OLG_INFER_RULE(olg__inf_rnn);
OLG_INFER_RULE(olg__inf_attention);
OLG_INFER_RULE(olg__inf_grid_sample);
OLG_INFER_RULE(olg__inf_affine_grid);
OLG_INFER_RULE(olg__inf_lrn);
OLG_INFER_RULE(olg__inf_nms);
OLG_INFER_RULE(olg__inf_deform_conv);
OLG_INFER_RULE(olg__inf_col2im);
OLG_INFER_RULE(olg__inf_nll_loss);
OLG_INFER_RULE(olg__inf_sce_loss);
OLG_INFER_RULE(olg__inf_rms_norm);
OLG_INFER_RULE(olg__inf_rotary);
/* lib/infer_shape.c */
OLG_INFER_RULE(olg__inf_shape);
OLG_INFER_RULE(olg__inf_size);
OLG_INFER_RULE(olg__inf_reshape);
OLG_INFER_RULE(olg__inf_flatten);
OLG_INFER_RULE(olg__inf_transpose);
OLG_INFER_RULE(olg__inf_squeeze);
OLG_INFER_RULE(olg__inf_unsqueeze);
OLG_INFER_RULE(olg__inf_concat);
OLG_INFER_RULE(olg__inf_split);
OLG_INFER_RULE(olg__inf_slice);
OLG_INFER_RULE(olg__inf_gather);
OLG_INFER_RULE(olg__inf_gather_elements);
OLG_INFER_RULE(olg__inf_gather_nd);
OLG_INFER_RULE(olg__inf_scatter);
OLG_INFER_RULE(olg__inf_expand);
OLG_INFER_RULE(olg__inf_tile);
OLG_INFER_RULE(olg__inf_pad);
OLG_INFER_RULE(olg__inf_resize);
OLG_INFER_RULE(olg__inf_upsample);
OLG_INFER_RULE(olg__inf_depth_to_space);
OLG_INFER_RULE(olg__inf_space_to_depth);
/* lib/infer_const.c */
OLG_INFER_RULE(olg__inf_constant);
OLG_INFER_RULE(olg__inf_constant_of_shape);
OLG_INFER_RULE(olg__inf_range);
OLG_INFER_RULE(olg__inf_nonzero);
OLG_INFER_RULE(olg__inf_onehot);
OLG_INFER_RULE(olg__inf_compress);
OLG_INFER_RULE(olg__inf_unique);
OLG_INFER_RULE(olg__inf_reverse_sequence);
OLG_INFER_RULE(olg__inf_center_crop_pad);
OLG_INFER_RULE(olg__inf_string_normalizer);
OLG_INFER_RULE(olg__inf_tfidf);
/* lib/infer_ctrl.c */
OLG_INFER_RULE(olg__inf_if);
OLG_INFER_RULE(olg__inf_loop);
OLG_INFER_RULE(olg__inf_scan);
OLG_INFER_RULE(olg__inf_sequence_map);
OLG_INFER_RULE(olg__inf_seq_empty);
OLG_INFER_RULE(olg__inf_seq_construct);
OLG_INFER_RULE(olg__inf_seq_insert);
OLG_INFER_RULE(olg__inf_seq_at);
OLG_INFER_RULE(olg__inf_seq_erase);
OLG_INFER_RULE(olg__inf_seq_length);
OLG_INFER_RULE(olg__inf_split_to_seq);
OLG_INFER_RULE(olg__inf_concat_from_seq);
OLG_INFER_RULE(olg__inf_optional);
OLG_INFER_RULE(olg__inf_optional_get);
OLG_INFER_RULE(olg__inf_optional_has);
OLG_INFER_RULE(olg__inf_dft);
OLG_INFER_RULE(olg__inf_stft);
OLG_INFER_RULE(olg__inf_window);
OLG_INFER_RULE(olg__inf_mel);
OLG_INFER_RULE(olg__inf_adagrad);
OLG_INFER_RULE(olg__inf_adam);
OLG_INFER_RULE(olg__inf_gradient);

#endif
