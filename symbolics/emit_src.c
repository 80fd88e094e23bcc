/* onnxlegal — ONNX-domain helpers (symbolics/emit_src.h): the source node's encoding, read by
 * its source opset, and olg__sym_onnx_passthrough, which re-emits a node as it is wherever the
 * op and its attributes exist at the target opset (the fallback of every ONNX op without a row
 * of its own). The opset comparisons of the ONNX family live here: they decode or encode. */
#include <stdio.h>
#include <string.h>

#include "emit_nn.h"
#include "emit_src.h"
#include "../lib/lower.h"
#include "../lib/schema.h"
#include "symbolics.h"

/* The source opset of the node's domain (the target's when the model imports none). */
static int src_opset(const olg_lower *cx) {
  int64_t s = olg_lower_source_opset(cx);
  return s > 0 ? (int)s : olg__opset(cx);
}

bool olg__src_slice_in_attrs(const olg_lower *cx) { return src_opset(cx) < 10; }
bool olg__src_pad_in_attrs(const olg_lower *cx) { return src_opset(cx) < 11; }
bool olg__src_clip_in_attrs(const olg_lower *cx) { return src_opset(cx) < 11; }
bool olg__src_resize_legacy(const olg_lower *cx) {
  return strcmp(olg_lower_node_op(cx), "Upsample") == 0 || src_opset(cx) < 11;
}
bool olg__src_dropout_is_test_training(olg_lower *cx) {
  return olg__src_attr_int(cx, "is_test", 1) == 0 && src_opset(cx) < 7;
}
olg_dtype olg__src_dropout_mask_dtype(olg_lower *cx, olg_value x) {
  return src_opset(cx) < 10 ? olg__dtype(cx, x) : OLG_BOOL;
}
bool olg__src_topk_k_input(const olg_lower *cx) { return src_opset(cx) >= 10; }
bool olg__src_softmax_is_flat(const olg_lower *cx) { return src_opset(cx) < 13; }
bool olg__src_dft_axis_attr(const olg_lower *cx) { return src_opset(cx) < 20; }
bool olg__src_arg_complex(const olg_lower *cx, size_t i) {
  const olg_node *nd = olg__src_node(cx);
  const olg_graph *g = olg_lower_source(cx);
  if (!nd || !g || i >= nd->n_args || nd->args[i].kind != OLG_ARG_VALUE) return false;
  olg_value v = nd->args[i].u.v;
  if (v < 0 || (uint32_t)v >= g->n_values) return false;
  const olg_type *t = &g->values[v].type;
  olg_dtype e = olg__type_elem(t);
  return t->kind == OLG_TYPE_TENSOR && t->has_elem && (e == OLG_COMPLEX64 || e == OLG_COMPLEX128);
}
bool olg__src_split_ceil_parts(const olg_lower *cx, bool sizes_present) {
  return !sizes_present && src_opset(cx) >= 18;
}
bool olg__src_scan_has_batch(const olg_lower *cx) { return src_opset(cx) < 9; }
bool olg__src_groupnorm_per_group(const olg_lower *cx) { return src_opset(cx) < 21; }

const char *olg__src_roialign_coordinates(olg_lower *cx) {
  return olg__src_attr_string(cx, "coordinate_transformation_mode",
                              src_opset(cx) >= 16 ? "half_pixel" : "output_half_pixel");
}

const olg_schema *olg__target_schema(const olg_lower *cx, const char *op) {
  return olg_schema_find("", op, olg__opset(cx));
}

static bool op_listed(const olg_node *c, const char *const *ops, size_t n_ops) {
  for (size_t j = 0; j < n_ops; j++)
    if (!c->domain[0] && strcmp(c->op, ops[j]) == 0) return true;
  return false;
}

bool olg__src_output_read_only_by(olg_lower *cx, size_t i, const char *const *ops, size_t n_ops) {
  const olg_node *nd = cx->cur_node;
  if (!nd || i >= nd->n_outputs || nd->outputs[i] == OLG_NO_VALUE) return true;
  olg_value v = nd->outputs[i];
  const olg_graph *g = cx->src;
  if (cx->read_by_ops != ops || cx->read_by_src != g || cx->n_read_by != g->n_values) {
    /* one walk counts, per value, its reads by nodes of the ops listed (a graph with many 4-bit
       nodes asks once per node: a walk each was quadratic). In the target's arena: a context
       copied and restored (a probe, a versioned or a loop body's lowering) loses no memory and
       takes the count only for the source it was made from. Nodes a consuming lowering gave
       back (zeroed, olg_legalize_consume) come before the current one: they read no later
       node's outputs, the only ones asked about from here on */
    uint32_t *cnt = olg__arena_alloc(cx->dst_model, (g->n_values ? g->n_values : 1) * sizeof *cnt);
    if (!cnt) return false; /* refused as if read by another op: the caller names the reason */
    cx->read_by = cnt;
    for (uint32_t k = 0; k < g->n_nodes; k++) {
      const olg_node *c = &g->nodes[k];
      if (c->state != OLG_NODE_DONE || !op_listed(c, ops, n_ops)) continue;
      for (uint32_t j = 0; j < c->n_args; j++) {
        const olg_arg *a = &c->args[j];
        size_t n = a->kind == OLG_ARG_VALUE ? 1 : a->kind == OLG_ARG_VALUES ? a->n : 0;
        for (size_t m = 0; m < n; m++) {
          olg_value r = a->kind == OLG_ARG_VALUE ? a->u.v : a->u.vals[m];
          if (r >= 0 && (uint32_t)r < g->n_values) cnt[r]++;
        }
      }
    }
    cx->read_by_ops = ops, cx->read_by_src = g, cx->n_read_by = g->n_values;
  }
  /* the uses counted also take in graph-output listings and subgraphs' reads */
  return (uint32_t)v < cx->n_read_by && cx->read_by[v] == cx->uses[v];
}

olg_status olg__src_ints_attr_or_input(olg_lower *cx, const char *attr, size_t i, int since,
                                       const int64_t **p, size_t *n, bool *present,
                                       olg_value *dyn) {
  *dyn = OLG_NO_VALUE;
  *present = false;
  *p = NULL;
  *n = 0;
  if (src_opset(cx) < since) {
    *present = olg__src_attr_ints(cx, attr, p, n);
    return OLG_OK;
  }
  if (olg_lower_arg_is_none(cx, i)) return OLG_OK;
  olg_value v;
  OLG_TRY(olg__arg_value(cx, i, &v));
  *present = true;
  if (!olg__known_ints(cx, v, p, n)) *dyn = v;
  return OLG_OK;
}

/* ------------------------------------------------------------------------------------------ */

/* the exceptions: an attribute whose default is NOT what the versions without it do
 * (RoiAlign-10 works as output_half_pixel, RoiAlign-16's default is half_pixel): dropped going
 * down only when it holds that value (a node that leaves it out is refused there), and written
 * out going up (olg__sym_onnx_passthrough) */
static const struct { const char *op, *attr, *implied; } older[] = {
    {"RoiAlign", "coordinate_transformation_mode", "output_half_pixel"},
    {"Resize", "coordinate_transformation_mode", "asymmetric"},
};

/* The first version of op that has attribute attr (-1: none). */
static int attr_since(const char *op, const char *attr, olg_attr_type type) {
  size_t nv;
  const olg_schema *vs = olg_schema_versions("", op, &nv);
  for (size_t k = 0; vs && k < nv; k++) {
    const olg_attr_schema *a = olg_schema_attr(&vs[k], attr);
    if (a && a->type == type && !vs[k].deprecated) return vs[k].since_version;
  }
  return -1;
}

/* A source node that leaves out an attribute of older[] means the attribute's default; a target
 * version without the attribute means the older behaviour: refused, as copying it would change
 * its meaning (RoiAlign-16 to 10-15). */
static olg_status default_changes_meaning(olg_lower *cx, const olg_node *nd, const olg_schema *ts,
                                          int so) {
  for (size_t k = 0; k < sizeof older / sizeof older[0]; k++) {
    if (nd->op[0] != older[k].op[0] || strcmp(nd->op, older[k].op) != 0 || olg_schema_attr(ts, older[k].attr))
      continue; /* (the first letter: asked for every node, it rules out most rows) */
    bool given = false;
    for (uint32_t i = 0; i < nd->n_attrs; i++) given |= strcmp(nd->attrs[i].name, older[k].attr) == 0;
    const olg_schema *ss = olg_schema_find("", nd->op, so);
    const olg_attr_schema *as = ss ? olg_schema_attr(ss, older[k].attr) : NULL;
    if (given || !as || !as->default_str || strcmp(as->default_str, older[k].implied) == 0) continue;
    return olg__unsupportedf(cx, attr_since(nd->op, older[k].attr, as->type),
                             "%s with the default %s='%s' (the versions before it work as '%s')",
                             nd->op, older[k].attr, as->default_str, older[k].implied);
  }
  return OLG_OK;
}

/* 1 when attribute a of node nd (at source opset so) holds its schema's default, which is what
 * a version without the attribute does (an attribute is only ever added with a default that
 * keeps the older behaviour: MaxPool's ceil_mode 0, ArgMax's select_last_index 0 -- all but
 * the few of older[] above, checked against onnx's schema history): such an attribute may be left
 * out at a target that lacks it. Ints and strings compare exactly; float
 * defaults are printed rounded, so floats never qualify. dilations of all 1 are the default of
 * every op that has them (the spec prints no default, as it depends on the rank). */
static bool implied_default(const olg_node *nd, const olg_attr *a, int so) {
  for (size_t k = 0; k < sizeof older / sizeof older[0]; k++)
    if (strcmp(nd->op, older[k].op) == 0 && strcmp(a->name, older[k].attr) == 0)
      return a->type == OLG_ATTR_STRING && a->s.n == strlen(older[k].implied) &&
             memcmp(a->s.p, older[k].implied, a->s.n) == 0;
  if (a->type == OLG_ATTR_INTS && strcmp(a->name, "dilations") == 0) {
    for (size_t k = 0; k < a->n; k++)
      if (a->ints[k] != 1) return false;
    return true;
  }
  const olg_schema *ss = olg_schema_find("", nd->op, so);
  const olg_attr_schema *as = ss ? olg_schema_attr(ss, a->name) : NULL;
  if (!as || as->type != a->type || !as->default_str) return false;
  if (a->type == OLG_ATTR_INT) {
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", (long long)a->i);
    return strcmp(buf, as->default_str) == 0;
  }
  if (a->type == OLG_ATTR_STRING)
    return a->s.n == strlen(as->default_str) && memcmp(a->s.p, as->default_str, a->s.n) == 0;
  return false;
}

/* 1 when the op's "axis" attribute counts the dims of input 0 (not of the output, as OneHot's
 * does, nor of a sequence's elements). */
static bool axis_of_input0(const char *op) {
  static const char *const other[] = {"OneHot", "ConcatFromSequence", "SplitToSequence", "Scan",
                                      "Unsqueeze"};
  for (size_t i = 0; i < sizeof other / sizeof other[0]; i++)
    if (strcmp(op, other[i]) == 0) return false;
  return true;
}

olg_status olg__sym_onnx_passthrough(olg_lower *cx, olg_node_id src, void *ud) {
  (void)src;
  (void)ud;
  const olg_node *nd = olg__src_node(cx);
  int target = olg__opset(cx);
  const olg_schema *ts = olg_schema_find("", nd->op, target);
  if (!ts || ts->deprecated) {
    size_t nv;
    const olg_schema *vs = olg_schema_versions("", nd->op, &nv);
    if (!vs) return olg__unsupportedf(cx, -1, "%s (not an ONNX operator)", nd->op);
    int first = -1, last = -1;
    for (size_t i = 0; i < nv; i++) {
      if (!vs[i].deprecated && first < 0) first = vs[i].since_version;
      if (vs[i].deprecated && first > 0 && last < 0) last = vs[i].since_version;
    }
    if (first > target) return olg__unsupportedf(cx, first, "%s", nd->op);
    return olg__errf(cx, OLG_ERR_UNSUPPORTED,
                     "%s was removed at opset %d; it exists at opsets %d to %d", nd->op, last,
                     first, last - 1);
  }
  /* the same node means something else across a listed version change (lib/meaning.c):
   * never copied over it; the op needs a row of its own that converts it */
  const olg_meaning_change *mc = olg_meaning_crossed(nd->op, src_opset(cx), target);
  if (mc)
    return olg__errf(cx, OLG_ERR_UNSUPPORTED,
                     "%s written at opset %d is not converted to opset %d: its meaning changes "
                     "at opset %d (%s), and no row converts it", nd->op, src_opset(cx), target,
                     mc->after, mc->what);
  uint64_t dropped = 0; /* attributes that only restate what the target's version implies */
  for (uint32_t i = 0; i < nd->n_attrs; i++) {
    const olg_attr_schema *as = olg_schema_attr(ts, nd->attrs[i].name);
    if (!as && i < 64 && implied_default(nd, &nd->attrs[i], src_opset(cx))) {
      dropped |= (uint64_t)1 << i;
      continue;
    }
    if (!as || as->type != nd->attrs[i].type) {
      /* which version brought it: say the lowest opset that works */
      int from = attr_since(nd->op, nd->attrs[i].name, nd->attrs[i].type);
      return olg__unsupportedf(cx, from > target ? from : -1, "%s with attribute '%s'", nd->op,
                               nd->attrs[i].name);
    }
  }
  OLG_TRY(default_changes_meaning(cx, nd, ts, src_opset(cx)));
  int n_in = (int)nd->n_args;
  while (n_in > 0 && nd->args[n_in - 1].kind == OLG_ARG_NONE) n_in--;
  for (int i = 0; i < n_in; i++) { /* a type the op takes only from a later version */
    olg_value v;
    if (nd->args[i].kind != OLG_ARG_VALUE || olg__arg_value(cx, (size_t)i, &v)) continue;
    olg_dtype t = olg__dtype(cx, v);
    const olg_formal *f = olg_schema_input_formal(ts, i);
    if (t == OLG_UNDEFINED || !f || !f->tensor_dtypes || olg_schema_formal_allows_dtype(f, t)) continue;
    size_t nv;
    const olg_schema *vs = olg_schema_versions("", nd->op, &nv);
    int from = -1;
    for (size_t k = 0; vs && k < nv && from < 0; k++) {
      const olg_formal *g = vs[k].deprecated ? NULL : olg_schema_input_formal(&vs[k], i);
      if (vs[k].since_version > target && g && olg_schema_formal_allows_dtype(g, t))
        from = vs[k].since_version;
    }
    return olg__unsupportedf(cx, from, "%s of %s (input %d)", nd->op, olg_dtype_name(t), i);
  }
  if (ts->max_inputs != OLG_SCHEMA_UNBOUNDED && n_in > ts->max_inputs)
    return olg__unsupportedf(cx, -1, "%s with %d inputs (it takes at most %d at this opset)",
                             nd->op, n_in, ts->max_inputs);
  olg_graph *g = olg_lower_target(cx);
  olg_node_id n;
  olg_value in0 = OLG_NO_VALUE;
  /* a Loop body's input k (k >= 2) is the carried value whose initial value is input k: an
     untyped body input takes that value's type (lib/legalize.c, take_outer_type) */
  bool loop = nd->op[0] == 'L' && strcmp(nd->op, "Loop") == 0;
  olg_value *ins = loop ? olg__lower_alloc(cx, (size_t)(n_in > 0 ? n_in : 1) * sizeof *ins) : NULL;
  if (loop && !ins) return OLG_ERR_NOMEM;
  OLG_TRY(olg_node_begin(g, "", nd->op, nd->name, &n));
  if (n_in > 0) OLG_TRY(olg__node_reserve_args(g, n, (uint32_t)n_in));
  for (int i = 0; i < n_in; i++) {
    olg_value v = OLG_NO_VALUE;
    if (nd->args[i].kind != OLG_ARG_NONE) OLG_TRY(olg__arg_value(cx, (size_t)i, &v));
    if (i == 0) in0 = v;
    if (ins) ins[i] = i >= 2 ? v : OLG_NO_VALUE;
    OLG_TRY(olg_lower_emit_input(cx, n, v));
  }
  for (uint32_t i = 0; i < nd->n_attrs; i++) {
    const olg_attr *a = &nd->attrs[i];
    if (i < 64 && (dropped >> i & 1)) continue;
    if (a->type == OLG_ATTR_GRAPH) { /* a body: lowered to the target opset too */
      olg_graph *sub;
      cx->sub_in_from = ins;
      cx->n_sub_in_from = ins ? (size_t)n_in : 0;
      olg_status s = olg__lower_subgraph(cx, a->g, a->name, &sub);
      cx->sub_in_from = NULL;
      cx->n_sub_in_from = 0;
      OLG_TRY(s);
      OLG_TRY(olg_node_attr_graph(g, n, a->name, sub));
    } else if (a->type == OLG_ATTR_GRAPHS) {
      olg_graph **subs = olg__lower_alloc(cx, (a->n ? a->n : 1) * sizeof *subs);
      if (!subs) return OLG_ERR_NOMEM;
      for (size_t k = 0; k < a->n; k++) OLG_TRY(olg__lower_subgraph(cx, a->graphs[k], a->name, &subs[k]));
      OLG_TRY(olg_node_attr_graphs(g, n, a->name, subs, a->n));
    } else if (a->type == OLG_ATTR_INT && a->i < 0 && strcmp(a->name, "axis") == 0 &&
               axis_of_input0(nd->op) && n_in > 0 && olg__rank(cx, in0) >= 0) {
      /* a negative axis counted from input 0's rank: positive, legal at every opset (most ops
       * took negative axes only from 11) */
      OLG_TRY(olg_node_attr_int(g, n, "axis", a->i + olg__rank(cx, in0)));
    } else {
      OLG_TRY(olg__node_add_attr(g, n, a)); /* borrowed from the source model */
    }
  }
  for (size_t k = 0; k < sizeof older / sizeof older[0]; k++) {
    /* going up to the version that brought the attribute: what the older version did, said */
    if (nd->op[0] != older[k].op[0] || strcmp(nd->op, older[k].op) != 0 || !olg_schema_attr(ts, older[k].attr)) continue;
    const olg_schema *ss = olg_schema_find("", nd->op, src_opset(cx));
    bool has = false;
    for (uint32_t i = 0; i < nd->n_attrs; i++) has |= strcmp(nd->attrs[i].name, older[k].attr) == 0;
    if (!has && ss && !olg_schema_attr(ss, older[k].attr))
      OLG_TRY(olg_node_attr_string(g, n, older[k].attr, older[k].implied));
  }
  size_t n_out = nd->n_outputs;
  while (n_out > 0 && nd->outputs[n_out - 1] == OLG_NO_VALUE) n_out--;
  olg_value buf[64], *outs = olg__lower_values(cx, buf, 64, n_out);
  if (!outs) return OLG_ERR_NOMEM;
  OLG_TRY(olg_lower_emit_end(cx, n, n_out, outs));
  return olg__bind_outputs(cx, outs, n_out);
}

olg_status olg__src_pool_attrs(olg_lower *cx, olg_src_pool *a) {
  *a = (olg_src_pool){0};
  if (!olg__src_attr_ints(cx, "kernel_shape", &a->k, &a->nk) || a->nk < 1 || a->nk > OLG_MAX_SPATIAL)
    return olg_lower_error(cx, OLG_ERR_INVALID_MODEL, "kernel_shape missing or of more than 3 axes");
  olg__src_attr_ints(cx, "strides", &a->s, &a->ns);
  olg__src_attr_ints(cx, "pads", &a->p, &a->np);
  olg__src_attr_ints(cx, "dilations", &a->d, &a->nd);
  if ((a->ns && a->ns != a->nk) || (a->np && a->np != 2 * a->nk) || (a->nd && a->nd != a->nk))
    return olg_lower_error(cx, OLG_ERR_INVALID_MODEL, "strides, pads or dilations of the wrong length");
  return OLG_OK;
}
