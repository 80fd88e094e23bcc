/* onnxlegal — Loop bodies built by a symbolic (an op with no fixed-size decomposition written as
 * a Loop: NonMaxSuppression below 10). The body is emitted through a lowering context of its own
 * whose target graph is the body, so every emit helper works in it (schema check, inference). */
#include <stdio.h>
#include <string.h>

#include "emit.h"

olg_status olg__loop_body_begin(olg_lower *cx, olg_loop_body *b, const olg_value *init, size_t n,
                                olg_value *iter, olg_value *cond, olg_value *carried) {
  memset(b, 0, sizeof *b);
  if (cx->depth + 1 > OLG_MAX_GRAPH_DEPTH)
    return olg__errf(cx, OLG_ERR_LIMIT, "Loop bodies nested more than %d deep", OLG_MAX_GRAPH_DEPTH);
  olg_graph *g;
  OLG_TRY(olg_model_new_subgraph(cx->dst_model, &g));
  g->parent = cx->dst; /* inference of the names the body reads from outside */
  const char *base = cx->name_base && *cx->name_base ? cx->name_base : olg_lower_node_op(cx);
  /* a name no value of the graph has (nor will: the body's own names start with it), so that
   * the names in the body, generated under it, stay unique across the scopes (SSA) */
  const char *body_base = olg__strfmt(cx->dst_model, "%s/Loop_body", base);
  if (!body_base) return OLG_ERR_NOMEM;
  const char *name = olg__graph_unique_name(cx->dst, body_base);
  if (!name) return OLG_ERR_NOMEM;
  OLG_TRY(olg_graph_set_name(g, name));
  b->outer = cx;
  b->g = g;
  b->sub = *cx;
  b->sub.dst = g;
  b->sub.parent = cx;
  b->sub.depth = cx->depth + 1;
  b->sub.scope = name;
  b->sub.name_base = name; /* the body's nodes are "<name>/<Op>", "<name>/<Op>_<k>" */
  b->sub.n_op_uses = 0;
  b->sub.protect = NULL;
  b->sub.n_protect = 0;
  b->sub.n_errors = 0;
  b->dummy_init = b->dummy_in = OLG_NO_VALUE;
  if (n == 0) OLG_TRY(olg__const_i64(cx, 0, &b->dummy_init));
  size_t nin = n ? n : 1;
  for (size_t k = 0; k < nin + 2; k++) {
    olg_value v = k < 2 ? OLG_NO_VALUE : n ? init[k - 2] : b->dummy_init;
    olg_dtype t = k == 0 ? OLG_INT64 : k == 1 ? OLG_BOOL : olg__dtype(cx, v);
    int32_t rank = k < 2 ? 0 : olg__rank(cx, v);
    int64_t dims[OLG_MAX_RANK];
    for (int32_t d = 0; d < rank && d < OLG_MAX_RANK; d++) dims[d] = OLG_DIM_UNKNOWN;
    const char *in_name = olg__strfmt(cx->dst_model, "%s/in%zu", name, k);
    if (!in_name) return OLG_ERR_NOMEM;
    olg_value in;
    OLG_TRY(olg_graph_add_input(g, in_name, t, rank, rank > 0 ? dims : NULL, NULL, &in));
    if (k == 0 && iter) *iter = in;
    if (k == 1 && cond) *cond = in;
    if (k >= 2 && n) carried[k - 2] = in;
    if (k >= 2 && !n) b->dummy_in = in;
  }
  return OLG_OK;
}

olg_status olg__loop_outer(olg_loop_body *b, olg_value v, olg_value *out) {
  const olg_graph *og = b->outer->dst;
  const olg_value_rec *r = &og->values[v];
  olg_value tv = olg__graph_lookup(b->g, r->name);
  if (tv < 0) {
    OLG_TRY(olg__graph_add_value(b->g, r->name, false, &tv));
    r = &og->values[v];
    olg_value_rec *t = &b->g->values[tv];
    t->type = r->type; /* the arena's: shared, never changed in place */
    /* its known contents left out: read at run time, nothing is folded into the body */
    OLG_TRY(olg__value_set_sym(b->g->model, t, olg__value_sym(r), olg__value_n_sym(r)));
    t->flags |= OLG_VF_OUTER | OLG_VF_RESOLVED;
  }
  *out = tv;
  return OLG_OK;
}

olg_status olg__loop_emit(olg_loop_body *b, olg_value trip, olg_value cond, const olg_value *init,
                          size_t n_carried, const olg_value *body_outs, size_t n_body_outs,
                          olg_value *outs) {
  olg_lower *cx = b->outer, *sc = &b->sub;
  bool dummy = b->dummy_in != OLG_NO_VALUE;
  for (size_t k = 0; k < n_body_outs + dummy; k++) {
    olg_value v = !dummy || k == 0 ? body_outs[k] : k == 1 ? b->dummy_in : body_outs[k - 1];
    bool again = sc->dst->values[v].flags & OLG_VF_OUTER;
    for (size_t j = 0; j < k && !again; j++)
      again = (!dummy || j == 0 ? body_outs[j] : j == 1 ? b->dummy_in : body_outs[j - 1]) == v;
    for (size_t j = 0; j < olg_graph_input_count(b->g) && !again; j++)
      again = olg_graph_input_at(b->g, j) == v;
    /* a body output is a value of its own (an input or a repeated one passes through Identity) */
    if (again) OLG_TRY(olg__emit1(sc, "Identity", v, &v));
    OLG_TRY(olg_graph_add_output(b->g, v));
  }
  cx->n_emitted = sc->n_emitted; /* the body's emissions count for the source node */
  cx->custom_domains = sc->custom_domains;
  cx->n_custom = sc->n_custom;
  cx->cap_custom = sc->cap_custom;
  cx->n_errors += sc->n_errors;
  olg_node_id n;
  OLG_TRY(olg_lower_emit_begin(cx, "", "Loop", &n));
  OLG_TRY(olg_lower_emit_input(cx, n, trip));
  OLG_TRY(olg_lower_emit_input(cx, n, cond));
  if (dummy) OLG_TRY(olg_lower_emit_input(cx, n, b->dummy_init));
  for (size_t k = 0; k < n_carried; k++) OLG_TRY(olg_lower_emit_input(cx, n, init[k]));
  OLG_TRY(olg_lower_emit_attr_graph(cx, n, "body", b->g));
  if (!dummy) return olg_lower_emit_end(cx, n, n_body_outs - 1, outs);
  olg_value *all = olg__lower_alloc(cx, n_body_outs * sizeof *all);
  if (!all) return OLG_ERR_NOMEM;
  OLG_TRY(olg_lower_emit_end(cx, n, n_body_outs, all));
  for (size_t k = 1; k < n_body_outs; k++) outs[k - 1] = all[k];
  return OLG_OK;
}

olg_status olg__emit_arange_dim(olg_lower *cx, olg_value x, int64_t axis, olg_value *out) {
  int64_t d = olg__dim(cx, x, (int32_t)axis);
  if (d >= 0 && d <= 65536) {
    int64_t *v = olg__lower_alloc(cx, (size_t)(d ? d : 1) * sizeof *v);
    if (!v) return OLG_ERR_NOMEM;
    for (int64_t i = 0; i < d; i++) v[i] = i;
    return olg__const_i64s(cx, v, (size_t)d, out);
  }
  /* Range is 11: below it, a Loop's iteration numbers as its scan output */
  olg_value n;
  OLG_TRY(olg__dim_tensor(cx, x, axis, &n));
  OLG_TRY(olg__emit_reshape_static(cx, n, NULL, 0, &n));
  olg_loop_body b;
  olg_value it, cd;
  OLG_TRY(olg__loop_body_begin(cx, &b, NULL, 0, &it, &cd, NULL));
  const olg_value outs[2] = {cd, it};
  return olg__loop_emit(&b, n, OLG_NO_VALUE, NULL, 0, outs, 2, out);
}
