/* onnxlegal — the lowering context's emission (olg_lower_emit_*, olg_lower_bind_output): every
 * emitted ONNX node is checked against the target opset's schema and inferred at once. */
#include <stdio.h>
#include <stdarg.h>
#include <string.h>

#include "check_impl.h"
#include "infer.h"
#include "lower.h"
#include "passes/passes.h"
#include "schema.h"

/* ------------------------------------------------------------------------------------------ */
/* Emission */

/* The k-th node of op for this source node (counted from 0): its name is "<base>/<Op>_<k>". */
static uint32_t op_use(olg_lower *cx, const char *op) {
  uint32_t k = 0, j = 0;
  while (j < cx->n_op_uses && strcmp(cx->op_uses[j].op, op) != 0) j++;
  if (j < cx->n_op_uses) k = cx->op_uses[j].n++;
  else if (j < 16 && strlen(op) < sizeof cx->op_uses[0].op) {
    strcpy(cx->op_uses[j].op, op);
    cx->op_uses[j].n = 1;
    cx->n_op_uses++;
  } else {
    k = cx->n_emitted;
  }
  cx->n_emitted++;
  return k;
}

OLG_API olg_status olg_lower_emit_begin(olg_lower *cx, const char *domain, const char *op,
                                        olg_node_id *out) {
  if (!cx || !op || !*op || !out)
    return olg__err(OLG_ERR_INVALID_ARG, "olg_lower_emit_begin: NULL argument");
  if (domain && *domain && strcmp(domain, "ai.onnx") == 0) domain = ""; /* mostly "" */
  char buf[512];
  const char *base = cx->name_base && *cx->name_base ? cx->name_base : NULL;
  /* the k-th node of an op for this source node: "<base>/<Op>", then "<base>/<Op>_<k>"; the
     first of the source node's own op keeps its name (a tool that names nodes finds it; not
     a node emitted at a named version, whose stand-in source node is of the op it emits) */
  uint32_t k = op_use(cx, op);
  const olg_node *sn = cx->cur_node;
  const char *sn_domain = sn && strcmp(sn->domain, "ai.onnx") ? sn->domain : ""; /* as domain */
  if (base && !k && sn && !cx->versioned_depth && !strcmp(sn->op, op) &&
      !strcmp(sn_domain, domain ? domain : ""))
    return olg__node_begin_fresh(cx->dst, domain ? domain : "", op, base, out);
  /* "%s/%s", "%s/%s_%u" or "%s_%u"; a name that does not fit buf is built in the arena (cut
     short, a body's "<body>/<Op>" could equal its parent's "<node>/<Op>", and so would the
     value names generated from them) */
  size_t need = (base ? strlen(base) + 1 : 0) + strlen(op) + 22;
  char *p = need <= sizeof buf ? buf : olg__arena_alloc_str(cx->dst_model, need);
  if (!p) return OLG_ERR_NOMEM;
  olg_sbuf sb = {p, 0, need <= sizeof buf ? sizeof buf : need};
  p[0] = 0;
  if (base) {
    olg__sb_str(&sb, base);
    olg__sb_mem(&sb, "/", 1);
  }
  olg__sb_str(&sb, op);
  if (!base || k) {
    olg__sb_mem(&sb, "_", 1);
    olg__sb_u64(&sb, base ? k : cx->dst->n_nodes + cx->dst->n_interned);
  }
  /* two source nodes may share a name (a module called twice): keep emitted names unique */
  return olg__node_begin_fresh(cx->dst, domain ? domain : "", op, p, out);
}

OLG_API olg_status olg_lower_emit_input(olg_lower *cx, olg_node_id n, olg_value v) {
  if (!cx) return olg__err(OLG_ERR_INVALID_ARG, "olg_lower_emit_input: cx is NULL");
  return v == OLG_NO_VALUE ? olg_node_arg_none(cx->dst, n) : olg__node_add_value(cx->dst, n, v);
}
OLG_API olg_status olg_lower_emit_attr_int(olg_lower *cx, olg_node_id n, const char *name,
                                           int64_t v) {
  return cx ? olg_node_attr_int(cx->dst, n, name, v) : OLG_ERR_INVALID_ARG;
}
OLG_API olg_status olg_lower_emit_attr_float(olg_lower *cx, olg_node_id n, const char *name,
                                             double v) {
  return cx ? olg_node_attr_float(cx->dst, n, name, (float)v) : OLG_ERR_INVALID_ARG;
}
OLG_API olg_status olg_lower_emit_attr_string(olg_lower *cx, olg_node_id n, const char *name,
                                              const char *s) {
  return cx ? olg_node_attr_string(cx->dst, n, name, s) : OLG_ERR_INVALID_ARG;
}
OLG_API olg_status olg_lower_emit_attr_ints(olg_lower *cx, olg_node_id n, const char *name,
                                            const int64_t *v, size_t len) {
  return cx ? olg_node_attr_ints(cx->dst, n, name, v, len) : OLG_ERR_INVALID_ARG;
}
OLG_API olg_status olg_lower_emit_attr_floats(olg_lower *cx, olg_node_id n, const char *name,
                                              const float *v, size_t len) {
  return cx ? olg_node_attr_floats(cx->dst, n, name, v, len) : OLG_ERR_INVALID_ARG;
}
OLG_API olg_status olg_lower_emit_attr_strings(olg_lower *cx, olg_node_id n, const char *name,
                                               const char *const *v, size_t len) {
  return cx ? olg_node_attr_strings(cx->dst, n, name, v, len) : OLG_ERR_INVALID_ARG;
}
OLG_API olg_status olg_lower_emit_attr_tensor(olg_lower *cx, olg_node_id n, const char *name,
                                              olg_dtype dtype, int32_t rank, const int64_t *dims,
                                              const void *data, size_t nbytes) {
  return cx ? olg_node_attr_tensor(cx->dst, n, name, dtype, rank, dims, data, nbytes)
            : OLG_ERR_INVALID_ARG;
}
OLG_API olg_status olg_lower_emit_attr_graph(olg_lower *cx, olg_node_id n, const char *name,
                                             olg_graph *sub) {
  return cx ? olg_node_attr_graph(cx->dst, n, name, sub) : OLG_ERR_INVALID_ARG;
}
OLG_API olg_status olg_lower_emit_subgraph(olg_lower *cx, olg_graph **out) {
  return cx ? olg_model_new_subgraph(cx->dst_model, out) : OLG_ERR_INVALID_ARG;
}

/* Checks an emitted ONNX node against the schema of the target opset, which it gives back for
 * the output check after inference. */
static olg_status check_kind(olg_lower *cx, const olg_node *nd, const olg_schema *s, bool input,
                             int pos, olg_value v);

/* An emitted node whose input or output `pos` has dtype t that its version s does not take: the
 * refusal names the first later version that takes it (float8 at Cast-19, int4 at Cast-21), or
 * says that none does. */
static olg_status dtype_refused(olg_lower *cx, const olg_node *nd, const olg_schema *s, bool input,
                                int pos, const char *name, olg_dtype t) {
  size_t nv;
  const olg_schema *vs = olg_schema_versions(s->domain, s->name, &nv);
  for (size_t k = 0; vs && k < nv; k++) {
    if (vs[k].deprecated || vs[k].since_version <= s->since_version) continue;
    const olg_formal *g = input ? olg_schema_input_formal(&vs[k], pos) : olg_schema_output_formal(&vs[k], pos);
    if (g && olg_schema_formal_allows_dtype(g, t))
      return olg__unsupportedf(cx, vs[k].since_version, "%s with %s %d ('%s') of type %s (%s-%d "
                               "does not take it)", nd->op, input ? "input" : "output", pos, name,
                               olg_dtype_name(t), nd->op, s->since_version);
  }
  return olg__errf(cx, OLG_ERR_INVALID_MODEL, "emitted %s-%d with %s %d ('%s') of type %s, which "
                   "it does not take at opset %d", nd->op, s->since_version,
                   input ? "input" : "output", pos, name, olg_dtype_name(t), cx->opset);
}

/* The dtype of formal f's literal type "tensor(<dtype>)", OLG_UNDEFINED for a constraint's name.
 * Asked for every emitted input: a literal allows exactly one dtype, so a formal allowing several
 * is a constraint without parsing; the last answer is remembered (the formals are the generated
 * tables', static, so their strings can be told apart by address). */
static olg_dtype literal_dtype(const olg_formal *f) {
  static _Thread_local const char *last;
  static _Thread_local olg_dtype last_t;
  uint32_t m = f->tensor_dtypes;
  if (m & (m - 1)) return OLG_UNDEFINED;
  if (f->type_str != last) last_t = olg_schema_tensor_type_dtype(f->type_str), last = f->type_str;
  return last_t;
}

static olg_status check_schema(olg_lower *cx, const olg_node *nd, const olg_schema **found) {
  const olg_schema *s = olg_schema_find("", nd->op, cx->opset);
  *found = s;
  if (!s || s->deprecated) {
    size_t nv;
    const olg_schema *vs = olg_schema_versions("", nd->op, &nv);
    int first = -1;
    for (size_t i = 0; vs && i < nv; i++)
      if (!vs[i].deprecated) { first = vs[i].since_version; break; }
    return olg__errf(cx, OLG_ERR_INVALID_MODEL,
                     "emitted %s, which does not exist at opset %d (first version: %d; a bug in "
                     "the symbolic)",
                     nd->op, cx->opset, first);
  }
  int n_in = (int)nd->n_args;
  while (n_in > 0 && nd->args[n_in - 1].kind == OLG_ARG_NONE) n_in--; /* trailing omitted */
  if (n_in < s->min_inputs || (s->max_inputs != OLG_SCHEMA_UNBOUNDED && n_in > s->max_inputs))
    return olg__errf(cx, OLG_ERR_INVALID_MODEL,
                     "emitted %s-%d with %d inputs; it takes %d to %d (a bug in the symbolic)",
                     nd->op, s->since_version, n_in, s->min_inputs, s->max_inputs);
  int n_out = (int)nd->n_outputs;
  if (n_out < s->min_outputs || (s->max_outputs != OLG_SCHEMA_UNBOUNDED && n_out > s->max_outputs))
    return olg__errf(cx, OLG_ERR_INVALID_MODEL,
                     "emitted %s-%d with %d outputs; it has %d to %d (a bug in the symbolic)",
                     nd->op, s->since_version, n_out, s->min_outputs, s->max_outputs);
  for (uint32_t i = 0; i < nd->n_attrs; i++) {
    const olg_attr_schema *as = olg_schema_attr(s, nd->attrs[i].name);
    if (!as)
      return olg__errf(cx, OLG_ERR_INVALID_MODEL,
                       "emitted %s-%d with attribute '%s', which it does not have at opset %d",
                       nd->op, s->since_version, nd->attrs[i].name, cx->opset);
    if (as->type != nd->attrs[i].type)
      return olg__errf(cx, OLG_ERR_INVALID_MODEL,
                       "emitted %s-%d with attribute '%s' of type %d; the schema wants %d",
                       nd->op, s->since_version, nd->attrs[i].name, nd->attrs[i].type, as->type);
    /* a value the version does not allow (a negative axis below 11, a later mode): what
       olg_check would reject, refused here with the opset that takes it */
    int from = olg__attr_value_allowed_from(s, &nd->attrs[i]);
    if (from < 0)
      return olg__errf(cx, OLG_ERR_INVALID_MODEL,
                       "%s-%d with attribute '%s' of a value no version of it takes", nd->op,
                       s->since_version, nd->attrs[i].name);
    if (from)
      return olg__unsupportedf(cx, from, "%s-%d with this value of attribute '%s'", nd->op,
                               s->since_version, nd->attrs[i].name);
  }
  for (int i = 0; i < s->n_attrs; i++)
    if (s->attrs[i].required && !olg__node_attr(nd, s->attrs[i].name))
      return olg__errf(cx, OLG_ERR_INVALID_MODEL,
                       "emitted %s-%d without its required attribute '%s'", nd->op,
                       s->since_version, s->attrs[i].name);
  /* input dtypes: allowed by the formal, and equal across inputs bound to one constraint */
  struct seen_t { const char *c; olg_dtype t; int at; } seen[8];
  int n_seen = 0;
  for (int i = 0; i < (int)nd->n_args; i++) {
    const olg_arg *a = &nd->args[i];
    if (a->kind == OLG_ARG_NONE) {
      const olg_formal *f = olg_schema_input_formal(s, i);
      if (f && f->option == OLG_FORMAL_SINGLE)
        return olg__errf(cx, OLG_ERR_INVALID_MODEL, "emitted %s-%d with required input %d ('%s') omitted",
                         nd->op, s->since_version, i, f->name);
      continue;
    }
    if (a->kind != OLG_ARG_VALUE) continue;
    const olg_formal *f = olg_schema_input_formal(s, i);
    /* a tensor where the formal takes tensors (or where there is no formal) is what check_kind
       passes: the usual case, not asked */
    if (cx->dst->values[a->u.v].type.kind != OLG_TYPE_TENSOR || (f && !f->tensor_dtypes))
      OLG_TRY(check_kind(cx, nd, s, true, i, a->u.v));
    olg_dtype t = olg__dtype(cx, a->u.v);
    if (!f || t == OLG_UNDEFINED || !f->tensor_dtypes) continue;
    if (!olg_schema_formal_allows_dtype(f, t))
      return dtype_refused(cx, nd, s, true, i, f->name, t);
    if (!f->homogeneous || literal_dtype(f) != OLG_UNDEFINED) continue;
    int k = 0;
    while (k < n_seen && strcmp(seen[k].c, f->type_str) != 0) k++;
    if (k < n_seen && seen[k].t != t)
      return olg__errf(cx, OLG_ERR_INVALID_MODEL,
                       "emitted %s-%d with inputs %d and %d of types %s and %s, bound to the "
                       "same type constraint %s",
                       nd->op, s->since_version, seen[k].at, i, olg_dtype_name(seen[k].t),
                       olg_dtype_name(t), f->type_str);
    if (k == n_seen && n_seen < 8) seen[n_seen++] = (struct seen_t){f->type_str, t, i};
  }
  return OLG_OK;
}

/* Sequence, optional and map values: an op takes them only from the version whose formal
 * lists such a type (Identity from 14 for sequences, 16 for optionals; If and Loop likewise). */
static const char *kind_prefix(uint8_t kind) {
  return kind == OLG_TYPE_SEQUENCE ? "seq(" : kind == OLG_TYPE_OPTIONAL ? "optional("
       : kind == OLG_TYPE_MAP ? "map(" : kind == OLG_TYPE_SPARSE_TENSOR ? "sparse_tensor("
       : kind == OLG_TYPE_OPAQUE ? "opaque(" : NULL; /* (no op of the default domain takes one) */
}

static bool formal_takes(const olg_schema *s, const olg_formal *f, const char *pre) {
  int na;
  const char *const *al = olg_schema_formal_types(s, f, &na);
  for (int i = 0; i < na; i++)
    if (strncmp(al[i], pre, strlen(pre)) == 0) return true;
  return false;
}

/* Whether formal f of s lists the type ts ("seq(tensor(float))") among those it takes. */
static bool formal_takes_type(const olg_schema *s, const olg_formal *f, const char *ts) {
  int na;
  const char *const *al = olg_schema_formal_types(s, f, &na);
  for (int i = 0; i < na; i++)
    if (strcmp(al[i], ts) == 0) return true;
  return false;
}

/* OLG_OK, or the refusal naming the lowest opset whose version of the op takes the value's
 * kind (and, a sequence or optional, its whole type) at that position. */
static olg_status check_kind(olg_lower *cx, const olg_node *nd, const olg_schema *s, bool input,
                             int pos, olg_value v) {
  const char *pre = kind_prefix(cx->dst->values[v].type.kind);
  const olg_formal *f = input ? olg_schema_input_formal(s, pos) : olg_schema_output_formal(s, pos);
  /* a formal with tensor dtypes takes tensors (tensor_dtypes: the "tensor(...)" of its types) */
  if (input && f && cx->dst->values[v].type.kind == OLG_TYPE_TENSOR && !f->tensor_dtypes &&
      !formal_takes(s, f, "tensor("))
    /* a tensor where only sequences (or maps, optionals) go: a source model that is not valid */
    return olg__errf(cx, OLG_ERR_INVALID_MODEL, "%s-%d with a tensor as %s %d ('%s'), which "
                     "takes no tensor", nd->op, s->since_version, input ? "input" : "output", pos,
                     f->name);
  if (!pre || !f) return OLG_OK;
  /* the kind, then the whole type: SequenceMap-17 takes sequences, not one of float8 tensors */
  char ts[160];
  const char *want = pre;
  if (formal_takes(s, f, pre)) {
    if (!olg__ck_type_string(&cx->dst->values[v].type, ts, sizeof ts) ||
        formal_takes_type(s, f, ts))
      return OLG_OK;
    want = ts;
  }
  size_t nv;
  const olg_schema *vs = olg_schema_versions(s->domain, s->name, &nv);
  int from = 0;
  for (size_t i = 0; vs && i < nv && !from; i++) {
    if (vs[i].since_version <= s->since_version || vs[i].deprecated) continue;
    const olg_formal *g = input ? olg_schema_input_formal(&vs[i], pos) : olg_schema_output_formal(&vs[i], pos);
    if (g && (want == pre ? formal_takes(&vs[i], g, pre) : formal_takes_type(&vs[i], g, ts)))
      from = vs[i].since_version;
  }
  if (want == ts)
    return olg__unsupportedf(cx, from ? from : -1, "%s with %s %d ('%s') of type %s (%s-%d does "
                             "not take it)", nd->op, input ? "input" : "output", pos, f->name,
                             ts, s->name, s->since_version);
  uint8_t k = cx->dst->values[v].type.kind;
  const char *what = k == OLG_TYPE_SEQUENCE ? "a sequence" : k == OLG_TYPE_OPTIONAL ? "an optional"
                   : k == OLG_TYPE_MAP ? "a map" : k == OLG_TYPE_OPAQUE ? "an opaque value"
                   : "a sparse tensor";
  return olg__unsupportedf(cx, from ? from : -1, "%s with %s as %s %d ('%s'; %s-%d takes none)",
                           nd->op, what, input ? "input" : "output", pos, f->name, s->name,
                           s->since_version);
}

static olg_status note_custom_domain(olg_lower *cx, const char *domain) {
  for (uint32_t i = 0; i < cx->n_custom; i++)
    if (strcmp(cx->custom_domains[i], domain) == 0) return OLG_OK;
  olg_status s = olg__grow(&cx->dst_model->alloc, (void **)&cx->custom_domains, &cx->cap_custom,
                           (size_t)cx->n_custom + 1, sizeof *cx->custom_domains);
  if (s) return s;
  cx->custom_domains[cx->n_custom++] = domain;
  return OLG_OK;
}

/* After inference: every output's dtype must be one the schema allows at the target opset. */
static olg_status check_outputs(olg_lower *cx, const olg_node *nd, const olg_schema *s) {
  for (uint32_t i = 0; i < nd->n_outputs; i++) {
    if (nd->outputs[i] == OLG_NO_VALUE) continue;
    if (cx->dst->values[nd->outputs[i]].type.kind != OLG_TYPE_TENSOR) /* a tensor output passes */
      OLG_TRY(check_kind(cx, nd, s, false, (int)i, nd->outputs[i]));
    olg_dtype t = olg__dtype(cx, nd->outputs[i]);
    const olg_formal *f = olg_schema_output_formal(s, (int)i);
    if (!f || t == OLG_UNDEFINED || !f->tensor_dtypes) continue;
    if (!olg_schema_formal_allows_dtype(f, t))
      return dtype_refused(cx, nd, s, false, (int)i, f->name, t);
  }
  return OLG_OK;
}

OLG_API olg_status olg_lower_emit_end(olg_lower *cx, olg_node_id n, size_t n_out,
                                      olg_value *outs) {
  if (!cx) return olg__err(OLG_ERR_INVALID_ARG, "olg_lower_emit_end: cx is NULL");
  olg_status s = olg_node_end(cx->dst, n, n_out, NULL, outs);
  if (s) return s;
  const olg_node *nd = &cx->dst->nodes[n];
  if (!*nd->domain) {
    const olg_schema *schema;
    OLG_TRY(check_schema(cx, nd, &schema));
    s = olg__infer_node_emitted(cx->dst, n, cx->opset, NULL); /* reported below, once, as the lowering's */
    if (s == OLG_ERR_NOMEM) return s;
    if (s)
      return olg__errf(cx, OLG_ERR_INVALID_MODEL, "emitted %s: %s", nd->op, olg_last_error());
    return check_outputs(cx, &cx->dst->nodes[n], schema);
  }
  OLG_TRY(note_custom_domain(cx, nd->domain));
  void *ud;
  olg_shape_fn fn = olg__registry_shape_fn(cx->reg, nd->domain, nd->op, &ud);
  if (fn && fn(cx->dst, n, ud) != OLG_OK)
    return olg__errf(cx, OLG_ERR_CALLBACK, "the shape function of %s::%s failed: %s", nd->domain,
                     nd->op, olg_last_error());
  return OLG_OK;
}

olg_status olg__lower_initializer(olg_lower *cx, olg_dtype dtype, int32_t rank,
                                  const int64_t *dims, const void *data, size_t nbytes,
                                  olg_data_mode mode, olg_value *out) {
  char buf[512];
  snprintf(buf, sizeof buf, "%s/Constant", cx->name_base && *cx->name_base ? cx->name_base : "const");
  const char *name = olg__graph_unique_name(cx->dst, buf);
  if (!name) return OLG_ERR_NOMEM;
  return olg_graph_add_initializer(cx->dst, name, dtype, rank, dims, data, nbytes, mode, NULL,
                                   NULL, out);
}

/* ------------------------------------------------------------------------------------------ */
/* Constants, interned per target graph: an equal one emitted again (dtype, dims, bytes) is the
 * first one's value, found in O(1), so that no Constant is made, checked and inferred again for
 * the cleanup to merge. Large ones are left to the cleanup's merge (hashing them costs more than
 * a duplicate does), as are those of a source node whose output is a graph output or read by a
 * subgraph: such a value keeps a Constant of its own (it may be renamed), as the merge did. */

#define INTERN_MAX_BYTES 4096

typedef struct olg_consts {
  uint32_t cap, n; /* cap a power of two; load <= 1/2 */
  struct olg_const_slot { uint32_t h; olg_value v; } *slot;
} olg_consts;

static uint32_t const_hash(olg_dtype dtype, int32_t rank, const int64_t *dims, const void *data,
                           size_t nbytes) {
  uint64_t h = 1469598103934665603ull ^ ((uint64_t)dtype << 32 | (uint32_t)rank);
  const unsigned char *b = data;
  for (int32_t i = 0; i < rank; i++) h = (h ^ (uint64_t)dims[i]) * 0x100000001b3ull;
  size_t i = 0;
  for (; i + 8 <= nbytes; i += 8) {
    uint64_t w;
    memcpy(&w, b + i, 8);
    h = (h ^ w) * 0x100000001b3ull;
    h ^= h >> 29;
  }
  for (; i < nbytes; i++) h = (h ^ b[i]) * 0x100000001b3ull;
  h ^= h >> 32;
  h *= 0xd6e8feb86659fd93ull;
  return (uint32_t)(h ^ (h >> 32));
}

/* The interned Constant value v, while it still is one with these contents. */
static bool const_is(const olg_graph *g, olg_value v, olg_dtype dtype, int32_t rank,
                     const int64_t *dims, const void *data, size_t nbytes) {
  if (v < 0 || (uint32_t)v >= g->n_values || g->values[v].producer < 0) return false;
  const olg_node *nd = &g->nodes[g->values[v].producer];
  if (nd->state != OLG_NODE_DONE || nd->n_attrs != 1 || nd->attrs[0].type != OLG_ATTR_TENSOR)
    return false;
  const olg_tensor *t = nd->attrs[0].t;
  if (!t || t->dtype != dtype || t->rank != rank || t->nbytes != nbytes) return false;
  if (rank && memcmp(t->dims, dims, (size_t)rank * sizeof *dims)) return false;
  return nbytes == 0 || (t->data && memcmp(t->data, data, nbytes) == 0);
}

static olg_status consts_grow(olg_lower *cx, olg_graph *g) {
  const olg_allocator *al = &cx->dst_model->alloc;
  olg_consts *c = g->consts;
  uint32_t cap = 64;
  if (!c) { /* sized from the source: most nodes emit at most a constant or two */
    while (cap < cx->src->n_nodes / 4 && cap < (1u << 30)) cap *= 2;
    if (!(c = olg__calloc(al, 1, sizeof *c))) return OLG_ERR_NOMEM;
    g->consts = c;
  } else {
    if (c->cap >= (1u << 30)) return olg__err(OLG_ERR_LIMIT, "too many constants");
    cap = c->cap * 2;
  }
  struct olg_const_slot *s = olg__malloc(al, (size_t)cap * sizeof *s);
  if (!s) return OLG_ERR_NOMEM;
  for (uint32_t i = 0; i < cap; i++) s[i].v = OLG_NO_VALUE;
  for (uint32_t i = 0; i < c->cap; i++) {
    if (c->slot[i].v == OLG_NO_VALUE) continue;
    uint32_t k = c->slot[i].h & (cap - 1);
    while (s[k].v != OLG_NO_VALUE) k = (k + 1) & (cap - 1);
    s[k] = c->slot[i];
  }
  olg__free(al, c->slot, (size_t)c->cap * sizeof *c->slot);
  c->slot = s;
  c->cap = cap;
  return OLG_OK;
}

void olg__lower_consts_node(olg_lower *cx, const olg_node *nd) {
  if (cx->versioned_depth) return; /* lowered at a named version: the caller's node decides */
  cx->intern_off = false;
  for (uint32_t i = 0; i < nd->n_outputs && !cx->intern_off; i++)
    cx->intern_off = nd->outputs[i] != OLG_NO_VALUE && cx->pinned && cx->pinned[nd->outputs[i]];
}

void olg__lower_consts_free(olg_graph *g) {
  if (!g || !g->consts) return;
  const olg_allocator *al = &g->model->alloc;
  olg__free(al, g->consts->slot, (size_t)g->consts->cap * sizeof *g->consts->slot);
  olg__free(al, g->consts, sizeof *g->consts);
  g->consts = NULL;
}

olg_status olg__lower_constant(olg_lower *cx, olg_dtype dtype, int32_t rank, const int64_t *dims,
                               const void *data, size_t nbytes, olg_data_mode mode,
                               olg_value *out) {
  olg_graph *g = cx->dst;
  /* only while a source node is lowered: the driver's own passes may rename what they emit */
  bool intern = cx->cur_node && !cx->intern_off && nbytes <= INTERN_MAX_BYTES &&
                dtype != OLG_STRING && (data || !nbytes);
  uint32_t h = 0, k = 0;
  if (intern) {
    if (!g->consts || (g->consts->n + 1) * 2 > g->consts->cap) OLG_TRY(consts_grow(cx, g));
    olg_consts *c = g->consts;
    h = const_hash(dtype, rank, dims, data, nbytes);
    for (k = h & (c->cap - 1); c->slot[k].v != OLG_NO_VALUE; k = (k + 1) & (c->cap - 1)) {
      if (c->slot[k].h != h || !const_is(g, c->slot[k].v, dtype, rank, dims, data, nbytes)) continue;
      /* the Constant not made still takes its number, so that every later name is the same */
      (void)op_use(cx, "Constant");
      if (g->first_hit == UINT32_MAX) g->first_hit = g->n_nodes;
      g->n_interned++;
      g->next_auto++;
      *out = c->slot[k].v;
      return OLG_OK;
    }
  }
  olg_node_id n;
  OLG_TRY(olg_lower_emit_begin(cx, "", "Constant", &n));
  if (mode == OLG_DATA_COPY) {
    OLG_TRY(olg_lower_emit_attr_tensor(cx, n, "value", dtype, rank, dims, data, nbytes));
  } else {
    olg_attr a = {.name = "value", .type = OLG_ATTR_TENSOR};
    OLG_TRY(olg__tensor_new(g->model, NULL, dtype, rank, dims, data, nbytes, OLG_DATA_BORROW,
                            NULL, NULL, &a.t));
    OLG_TRY(olg__node_add_attr(g, n, &a));
  }
  OLG_TRY(olg_lower_emit_end(cx, n, 1, out));
  /* the contents are known whatever inference does with a Constant */
  olg_value_rec *r = &g->values[*out];
  if (!olg__value_known(r)) OLG_TRY(olg__value_set_known(g->model, r, g->nodes[n].attrs[0].t));
  if (intern) {
    g->consts->slot[k] = (struct olg_const_slot){h, *out};
    g->consts->n++;
  }
  return OLG_OK;
}

olg_status olg__lower_copy_type(olg_model *m, olg_type *to, const olg_type *from) {
  *to = *from;
  if (olg__type_drop_extra(m, to)) return OLG_ERR_NOMEM;
  if (from->kind == OLG_TYPE_TENSOR && from->has_shape && from->rank > 0) {
    to->dims = olg__arena_dup(m, from->dims, (size_t)from->rank * sizeof *from->dims);
    if (!to->dims) return OLG_ERR_NOMEM;
    for (int32_t i = 0; i < from->rank; i++) {
      if (from->dims[i].param && !(to->dims[i].param = olg__strdup(m, from->dims[i].param)))
        return OLG_ERR_NOMEM;
      if (from->dims[i].denotation &&
          !(to->dims[i].denotation = olg__strdup(m, from->dims[i].denotation)))
        return OLG_ERR_NOMEM;
    }
  }
  return OLG_OK; /* nested types (sequence, map, optional) are borrowed from the source */
}

/* The reader's verbatim copies of what of a doc string (field doc_no) and metadata entries holds
 * a NUL, from src_extra into *out (NULL: none). */
static olg_status verbatim_about(olg_lower *cx, const void *src_extra, uint32_t doc_no,
                                 const void **out) {
  *out = NULL;
#ifndef OLG_CONFIG_NO_READER
  return src_extra ? olg__pbr_copy_more(cx->dst_model, src_extra, doc_no, out) : OLG_OK;
#else
  (void)cx, (void)src_extra, (void)doc_no;
  return OLG_OK;
#endif
}

/* sr's doc string and metadata_props (borrowed; what holds a NUL copied verbatim) on tr. */
static olg_status keep_value_about(olg_lower *cx, olg_value_rec *tr, const olg_value_rec *sr) {
  const olg_value_more *sm = sr->more;
  const void *x;
  if (!sm || (!sm->doc_string && !sm->n_metadata && !sm->extra)) return OLG_OK;
  OLG_TRY(verbatim_about(cx, sm->extra, 3, &x)); /* ValueInfoProto.doc_string */
  if (!sm->doc_string && !sm->n_metadata && !x) return OLG_OK;
  olg_value_more vm = tr->more ? *tr->more : (olg_value_more){0};
  vm.doc_string = sm->doc_string;
  vm.metadata = sm->metadata;
  vm.n_metadata = sm->n_metadata;
  if (x) vm.extra = x;
  return olg__value_set_more(cx->dst_model, tr, &vm);
}

olg_status olg__lower_value_info(olg_lower *cx) {
  const olg_graph *sg = cx->src;
  olg_graph *g = cx->dst;
  for (uint32_t i = 0; i < sg->value_info.n; i++) {
    olg_value sv = sg->value_info.p[i], tv = cx->map[sv];
    const olg_value_rec *sr = &sg->values[sv];
    if (tv == OLG_NO_VALUE || strcmp(g->values[tv].name, sr->name) != 0 ||
        (g->values[tv].flags & (OLG_VF_INPUT | OLG_VF_OUTPUT | OLG_VF_INITIALIZER)))
      continue;
    olg_value_rec *tr = &g->values[tv];
    olg_dtype se = olg__type_elem(&sr->type), te = olg__type_elem(&tr->type);
    if (sr->type.kind != OLG_TYPE_NONE && tr->type.kind != OLG_TYPE_NONE &&
        (tr->type.kind != sr->type.kind || (se && te && se != te) ||
         olg__shapes_contradict(&sr->type, &tr->type))) {
      /* the value is not what the entry says (a source contradicting itself): said by the
         lowering's cross-check of a value something reads, here of one nothing does */
      if (!cx->uses || !cx->uses[sv]) {
        char msg[320];
        snprintf(msg, sizeof msg, "the value_info entry of '%.200s' contradicts the type the value "
                 "lowers to: it is not carried", sr->name);
        olg__lower_diag(cx, OLG_WARNING, "OLG-LOWER-WARNING", OLG_OK, msg);
      }
      continue;
    }
    if (sr->type.kind != OLG_TYPE_NONE)
      OLG_TRY(olg__lower_copy_type(cx->dst_model, &tr->type, &sr->type));
    OLG_TRY(keep_value_about(cx, tr, sr));
    OLG_TRY(olg_graph_add_value_info(g, tv));
  }
  /* the graph's inputs and outputs (bound by now, under the source's names) */
  const olg_idvec *io[2] = {&sg->inputs, &sg->outputs};
  for (int k = 0; k < 2; k++)
    for (uint32_t i = 0; i < io[k]->n; i++) {
      const olg_value_rec *sr = &sg->values[io[k]->p[i]];
      olg_value tv = sr->more && *sr->name ? olg__graph_lookup(g, sr->name) : -1;
      if (tv >= 0 && (g->values[tv].flags & (k ? OLG_VF_OUTPUT : OLG_VF_INPUT)))
        OLG_TRY(keep_value_about(cx, &g->values[tv], sr));
    }
  return OLG_OK;
}

#ifndef OLG_CONFIG_NO_READER /* what the reader kept */
/* v of cx->dst protected from renaming and merging (cx->protect grown to the graph's values). */
static olg_status protect_value(olg_lower *cx, olg_value v) {
  olg_graph *g = cx->dst;
  if (!cx->protect || (uint32_t)v >= cx->n_protect) {
    uint8_t *p = olg__arena_alloc(cx->dst_model, g->n_values);
    if (!p) return OLG_ERR_NOMEM;
    memset(p, 0, g->n_values);
    if (cx->protect) memcpy(p, cx->protect, cx->n_protect);
    cx->protect = p;
    cx->n_protect = g->n_values;
  }
  cx->protect[v] = 1;
  return OLG_OK;
}

/* The value of cx->dst named by the bytes b, or -1 (none; empty; holding a NUL). */
static olg_value lookup_bytes(const olg_lower *cx, olg_bytes b) {
  size_t len = b.n;
  uint32_t h = olg__name_hash(b.p, &len);
  return b.n && len == b.n ? olg__graph_lookup_h(cx->dst, b.p, len, h) : -1;
}

/* The annotations lower_annotations keeps: raw field indices of the source graph's extra, and
 * the names each names (its tensor first). */
struct olg_annots {
  uint32_t *kept;
  olg_bytes **names;
  uint32_t *n_names;
  uint32_t n;
};

/* "the quantization_annotation of tensor '<nm[0]>' is dropped: <why>" */
static void annotation_dropped(olg_lower *cx, const olg_bytes *nm, const char *why, olg_bytes what) {
  char msg[640];
  snprintf(msg, sizeof msg, "the quantization_annotation of tensor '%.*s' is dropped: %s'%.*s' %s",
           (int)(nm[0].n > 200 ? 200 : nm[0].n), nm[0].p, what.p == nm[0].p ? "" : "its parameter tensor ",
           (int)(what.n > 200 ? 200 : what.n), what.p, why);
  olg__lower_diag(cx, OLG_WARNING, "OLG-LOWER-WARNING", OLG_OK, msg);
}

static olg_status lower_annotations(olg_lower *cx) {
  const void *sx = cx->src->extra;
  uint32_t n_raw = olg__pbr_n_raw(sx);
  if (!n_raw) return OLG_OK;
  olg_model *m = cx->dst_model;
  /* the entries kept and their names: a first walk, so that the roots take one array (an
     annotation per tensor of a large quantized model) */
  struct olg_annots *a = olg__arena_alloc(m, sizeof *a);
  if (!a) return OLG_ERR_NOMEM;
  a->kept = olg__arena_alloc(m, (size_t)n_raw * sizeof *a->kept);
  a->names = olg__arena_alloc(m, (size_t)n_raw * sizeof *a->names);
  a->n_names = olg__arena_alloc(m, (size_t)n_raw * sizeof *a->n_names);
  if (!a->kept || !a->names || !a->n_names) return OLG_ERR_NOMEM;
  a->n = 0;
  size_t n_roots = 0;
  for (uint32_t k = 0; k < n_raw; k++) {
    olg_bytes *nm;
    uint32_t n;
    OLG_TRY(olg__pbr_annotation(m, sx, k, &nm, &n));
    uint32_t missing = n;
    for (uint32_t i = 0; i < n && missing == n; i++)
      if (lookup_bytes(cx, nm[i]) < 0) missing = i;
    if (missing < n) {
      annotation_dropped(cx, nm, "is not a tensor of the converted graph", nm[missing]);
      continue;
    }
    if (!n) continue; /* not an annotation */
    a->names[a->n] = nm;
    a->n_names[a->n] = n;
    a->kept[a->n++] = k;
    n_roots += n;
  }
  if (n_roots > UINT32_MAX) return olg__err(OLG_ERR_LIMIT, "too many quantization annotations");
  olg_value *roots = n_roots ? olg__arena_alloc(m, n_roots * sizeof *roots) : NULL;
  if (n_roots && !roots) return OLG_ERR_NOMEM;
  n_roots = 0;
  for (uint32_t k = 0; k < a->n; k++)
    for (uint32_t i = 0; i < a->n_names[k]; i++) {
      olg_value v = lookup_bytes(cx, a->names[k][i]);
      OLG_TRY(protect_value(cx, v));
      roots[n_roots++] = v;
    }
  cx->roots = roots;
  cx->n_roots = (uint32_t)n_roots;
  cx->annots = a;
  return OLG_OK;
}

olg_status olg__lower_annotations_finish(olg_lower *cx) {
  struct olg_annots *a = cx->annots;
  if (!a) return OLG_OK;
  cx->annots = NULL;
  uint32_t n = 0;
  for (uint32_t k = 0; k < a->n; k++) {
    /* a rewrite of the target profile may have replaced a tensor (its producer gone) */
    uint32_t i = 0;
    for (; i < a->n_names[k]; i++) {
      olg_value v = lookup_bytes(cx, a->names[k][i]);
      const olg_value_rec *r = v >= 0 ? &cx->dst->values[v] : NULL;
      if (!r || (r->producer < 0 && !(r->flags & (OLG_VF_INPUT | OLG_VF_INITIALIZER | OLG_VF_OUTER))))
        break;
    }
    if (i < a->n_names[k]) {
      annotation_dropped(cx, a->names[k], "is no longer computed under its name (the target "
                         "profile's rewrite replaced it)", a->names[k][i]);
      continue;
    }
    a->kept[n++] = a->kept[k];
  }
  return olg__pbr_carry_raws(cx->dst_model, cx->src->extra, a->kept, n, &cx->dst->extra);
}

/* A warning that what the reader kept of the source is not in the target, about node first (the
 * first it concerns; NULL: the graph or the model). */
static void dropped(olg_lower *cx, const olg_node *first, const char *fmt, ...) OLG_PRINTF(3, 4);
static void dropped(olg_lower *cx, const olg_node *first, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  olg__lower_diag_at(cx, first, OLG_WARNING, "OLG-LOWER-WARNING", OLG_OK, fmt, ap);
  va_end(ap);
}
#endif

olg_status olg__lower_note_dropped(olg_lower *cx) {
#ifndef OLG_CONFIG_NO_READER
  const olg_graph *sg = cx->src;
  const char *gname = sg->name && *sg->name ? sg->name : "(unnamed)";
  uint32_t no = 0, n;
  if (!cx->parent) { /* the model's own fields, once */
    const void *mx = cx->src_model->extra;
    if ((n = olg__pbr_count_raw(mx, 20, NULL)))
      dropped(cx, NULL, "the model's training_info (%u entr%s) is dropped: a conversion does not "
              "convert its graphs (onnx's converter drops it too)", n, n == 1 ? "y" : "ies");
    if ((n = olg__pbr_count_raw(mx, 26, NULL)))
      dropped(cx, NULL, "the model's configuration (%u device configuration%s) is dropped: a "
              "conversion does not carry multi-device placement", n, n == 1 ? "" : "s");
    if ((n = olg__pbr_count_raw(mx, 0, &no)))
      dropped(cx, NULL, "%u field%s of the ModelProto unknown to this library (the first numbered "
              "%u) %s dropped", n, n == 1 ? "" : "s", no, n == 1 ? "is" : "are");
  }
  if ((n = olg__pbr_count_raw(sg->extra, 0, &no)))
    dropped(cx, NULL, "%u field%s of graph '%s' unknown to this library (the first numbered %u) %s "
            "dropped", n, n == 1 ? "" : "s", gname, no, n == 1 ? "is" : "are");
  /* a node's and a value's: counted over the graph, said once (a field on every node of a large
     graph is one warning, not a million) */
  uint32_t n_dev = 0, n_unknown = 0, no_unknown = 0;
  const olg_node *first_dev = NULL, *first_unknown = NULL;
  for (uint32_t i = 0; i < sg->n_nodes; i++) {
    const olg_node *nd = &sg->nodes[i];
    const void *x = nd->more ? nd->more->extra : NULL;
    if (x && olg__pbr_count_raw(x, 10, NULL) && !n_dev++) first_dev = nd;
    n = x ? olg__pbr_count_raw(x, 0, &no) : 0; /* in the node, or else in an attribute */
    for (uint32_t j = 0; j < nd->n_attrs && !n; j++)
      if (nd->attrs[j].extra) n = olg__pbr_count_raw(nd->attrs[j].extra, 0, &no);
    if (n && !n_unknown++) first_unknown = nd, no_unknown = no;
  }
  if (n_dev)
    dropped(cx, first_dev, "the device_configurations of %u node%s of graph '%s' (this one the "
            "first) %s dropped: a conversion does not carry multi-device placement", n_dev,
            n_dev == 1 ? "" : "s", gname, n_dev == 1 ? "is" : "are");
  if (n_unknown)
    dropped(cx, first_unknown, "%u node%s of graph '%s' (this one the first) hold%s fields unknown "
            "to this library (the first numbered %u), in the node or an attribute, which are "
            "dropped", n_unknown,
            n_unknown == 1 ? "" : "s", gname, n_unknown == 1 ? "s" : "", no_unknown);
  n_unknown = 0;
  const char *first_value = NULL;
  for (uint32_t v = 0; v < sg->n_values; v++) {
    const olg_value_more *vm = sg->values[v].more;
    if (vm && vm->extra && olg__pbr_count_raw(vm->extra, 0, &no) && !n_unknown++)
      first_value = sg->values[v].name, no_unknown = no;
  }
  if (n_unknown)
    dropped(cx, NULL, "%u value description%s of graph '%s' (the first of '%s') hold%s fields "
            "unknown to this library (the first numbered %u), which are dropped", n_unknown,
            n_unknown == 1 ? "" : "s", gname, first_value, n_unknown == 1 ? "s" : "", no_unknown);
#else
  (void)cx;
#endif
  return OLG_OK;
}

#ifdef OLG_CONFIG_NO_READER
olg_status olg__lower_annotations_finish(olg_lower *cx) {
  (void)cx;
  return OLG_OK;
}
#endif

olg_status olg__lower_graph_about(olg_lower *cx) {
  const olg_graph *sg = cx->src;
  olg_graph *g = cx->dst;
  /* borrowed, as a node's are (keep_about) */
  if (!g->doc_string) g->doc_string = sg->doc_string; /* the main graph's is set already */
  g->metadata = sg->metadata;
  g->n_metadata = sg->n_metadata;
#ifndef OLG_CONFIG_NO_READER
  OLG_TRY(olg__pbr_copy_more(cx->dst_model, sg->extra, 10, &g->extra)); /* GraphProto.doc_string */
  return lower_annotations(cx);
#else
  return OLG_OK;
#endif
}

/* The source node's doc string and metadata_props on each node emitted for it (as onnx's
 * converter keeps them: the dynamo exporter's scopes and stack traces are there), but for a
 * Constant the lowering made for an operand (interned: other nodes may share it). Borrowed, as
 * the kept names are: the source outlives the target (olg_legalize's contract); what holds a NUL
 * is copied verbatim, once for all of them. */
static olg_status keep_about(olg_lower *cx, const olg_node *nd, uint32_t first_node) {
  const olg_node_more *sm = nd->more;
  const void *x;
  if (!sm || (!sm->doc_string && !sm->n_metadata && !sm->extra)) return OLG_OK;
  OLG_TRY(verbatim_about(cx, sm->extra, 6, &x)); /* NodeProto.doc_string; shared, read only */
  if (!sm->doc_string && !sm->n_metadata && !x) return OLG_OK;
  bool constant = !*nd->domain && !strcmp(nd->op, "Constant");
  olg_graph *g = cx->dst;
  for (uint32_t k = first_node; k < g->n_nodes; k++) {
    olg_node *dn = &g->nodes[k];
    if (dn->state == OLG_NODE_DEAD || (!constant && !*dn->domain && !strcmp(dn->op, "Constant")))
      continue;
    olg_node_more nm = dn->more ? *dn->more : (olg_node_more){0};
    nm.doc_string = sm->doc_string;
    nm.metadata = sm->metadata;
    nm.n_metadata = sm->n_metadata;
    if (x) nm.extra = x;
    OLG_TRY(olg__node_set_more(cx->dst_model, dn, &nm));
  }
  return OLG_OK;
}

olg_status olg__lower_keep_names(olg_lower *cx, const olg_node *nd, uint32_t first_value,
                                 uint32_t first_node) {
  if (cx->probing || cx->versioned_depth) return OLG_OK;
  OLG_TRY(keep_about(cx, nd, first_node));
  if (!strcmp(nd->domain, "aten") || !strcmp(nd->domain, "prim")) return OLG_OK;
  olg_graph *g = cx->dst;
  /* a subgraph emitted here may read by name what was computed before its node (not its node's
     own outputs): those keep the name it reads */
  olg_node_id last_sub = -1;
  for (uint32_t k = first_node; k < g->n_nodes; k++)
    if (olg__has_subgraph(&g->nodes[k])) last_sub = (olg_node_id)k;
  for (uint32_t i = 0; i < nd->n_outputs; i++) {
    olg_value sv = nd->outputs[i], tv = sv == OLG_NO_VALUE ? OLG_NO_VALUE : cx->map[sv];
    if (tv == OLG_NO_VALUE || (uint32_t)tv < first_value || g->values[tv].producer < last_sub)
      continue;
    bool took;
    OLG_TRY(olg__value_take_name(g, tv, cx->src->values[sv].name, &took));
  }
  return OLG_OK;
}

void olg__lower_keep_names_ahead(const olg_lower *cx, const olg_node *nd) {
  const olg_valmap *vm = &cx->dst->kept;
  if (!vm->cap) return;
  for (uint32_t i = 0; i < nd->n_outputs && i < 4; i++)
    if (nd->outputs[i] != OLG_NO_VALUE) {
      size_t n = SIZE_MAX;
      __builtin_prefetch(&vm->slots[olg__name_hash(cx->src->values[nd->outputs[i]].name, &n) & (vm->cap - 1)]);
    }
}

OLG_API olg_status olg_lower_bind_output(olg_lower *cx, size_t i, olg_value v) {
  if (!cx || !cx->cur_node) return olg__err(OLG_ERR_INVALID_ARG, "olg_lower_bind_output: no node is being lowered");
  if (i >= cx->cur_node->n_outputs)
    return olg__errf(cx, OLG_ERR_RANGE, "bind_output: output %zu out of range (the node has %u)",
                     i, cx->cur_node->n_outputs);
  if (v < 0 || (uint32_t)v >= cx->dst->n_values)
    return olg__errf(cx, OLG_ERR_INVALID_ARG, "bind_output: output %zu bound to no value", i);
  olg_value sv = cx->cur_node->outputs[i];
  if (sv != OLG_NO_VALUE) cx->map[sv] = v;
  return OLG_OK;
}

/* Every source node asks for its domain's opset, and the nodes share the domain strings (the
 * default domain is one literal): the source model does not change during a lowering. */
int64_t olg__src_opset_of(olg_lower *cx, const char *domain) {
  if (cx->opset_memo_model == cx->src_model && cx->opset_memo_domain == domain && domain)
    return cx->opset_memo_version;
  int64_t v = olg_model_opset(cx->src_model, domain);
  cx->opset_memo_model = cx->src_model;
  cx->opset_memo_domain = domain;
  cx->opset_memo_version = v;
  return v;
}
