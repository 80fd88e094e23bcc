/* onnxlegal — a symbolic's node written at an ONNX version of its choosing (issue 26).
 *
 * A caller's symbolic should not have to know how each opset encodes an op: it may write a
 * default-domain node as the op was defined at some opset (Unsqueeze-13 with axes as an input,
 * GridSample-20 with mode "linear") and close it with olg_lower_emit_end_at. When the target's
 * version of the op is that same version, the node is kept as it is (the cost of a plain emit).
 * Otherwise the node is taken out of the target graph and lowered to the target opset as
 * `convert` lowers a node of a model written at that version: it becomes the one node of a small
 * source graph (its inputs standing for the target values it reads), and olg__lower_node runs the
 * registry's ONNX conversions on it into the same target graph, emitted under the caller's node
 * name. Those conversions may emit versioned nodes in turn: the nesting is bounded. */
#include <stdio.h>
#include <string.h>

#include "lower.h"
#include "schema.h"

#define MAX_VERSIONED_DEPTH 8

/* The versions of op at `version` and at the target are one (same schema, no change of meaning
 * listed between them): nothing to convert. */
static bool same_version(const olg_lower *cx, const char *op, int version) {
  const olg_schema *a = olg_schema_find("", op, version), *b = olg_schema_find("", op, cx->opset);
  return a && a == b;
}

/* A value of g standing for target value v (named as v, typed as v). */
static olg_status stand_in(olg_lower *cx, olg_graph *g, olg_value v, olg_value *out) {
  const olg_value_rec *r = &cx->dst->values[v];
  olg_value sv = olg__graph_lookup(g, r->name);
  if (sv >= 0) {
    *out = sv;
    return OLG_OK;
  }
  OLG_TRY(olg__graph_add_value(g, r->name, false, &sv));
  olg_value_rec *sr = &g->values[sv];
  r = &cx->dst->values[v];
  sr->type = r->type; /* the arena's: shared, never changed in place */
  OLG_TRY(olg__value_set_more(g->model, sr, &(olg_value_more){
      .known = olg__value_known(r), .sym = olg__value_sym(r), .n_sym = (int32_t)olg__value_n_sym(r)}));
  sr->flags |= OLG_VF_INPUT;
  *out = sv;
  return OLG_OK;
}

OLG_API olg_status olg_lower_emit_end_at(olg_lower *cx, olg_node_id n, int version, size_t n_out,
                                         olg_value *outs) {
  if (!cx) return olg__err(OLG_ERR_INVALID_ARG, "olg_lower_emit_end_at: cx is NULL");
  olg_node *nd = olg__node(cx->dst, n);
  if (!nd) return OLG_ERR_INVALID_ARG;
  if (nd->state != OLG_NODE_OPEN)
    return olg__err(OLG_ERR_STATE, "olg_lower_emit_end_at: node %d (%s) is not open", (int)n, nd->op);
  if (*nd->domain)
    return olg__err(OLG_ERR_INVALID_ARG, "olg_lower_emit_end_at: %s::%s is not an ONNX op: only a "
                    "default-domain node has versions to convert between", nd->domain, nd->op);
  if (version < 1 || !olg_schema_find("", nd->op, version))
    return olg__err(OLG_ERR_INVALID_ARG, "olg_lower_emit_end_at: ONNX has no %s at opset %d",
                    nd->op, version);
  if (same_version(cx, nd->op, version)) return olg_lower_emit_end(cx, n, n_out, outs);
  if (cx->versioned_depth >= MAX_VERSIONED_DEPTH)
    return olg__errf(cx, OLG_ERR_LIMIT, "nodes emitted at a named version nest deeper than %d "
                     "(a conversion that emits what it converts?)", MAX_VERSIONED_DEPTH);

  /* the node, moved into a source model of its own at `version` (freed when it is lowered:
   * what the lowering emits copies its strings and borrows only the target's arena) */
  olg_model_options mo = OLG_MODEL_OPTIONS_INIT;
  mo.allocator = &cx->dst_model->alloc;
  /* sub's subgraphs resolve enclosing names through cx's source graph, not sub's stand-in
     one: cx's names are pushed, sub's never (it pops nothing) */
  OLG_TRY(olg__scopes_ensure(cx));
  olg_value souts_buf[64], *souts = olg__lower_values(cx, souts_buf, 64, n_out);
  if (!souts) return OLG_ERR_NOMEM;
  olg_model *sm;
  OLG_TRY(olg_model_new(&sm, &mo));
  const olg_allocator *al = &cx->dst_model->alloc;
  olg_graph *g = sm->graph;
  size_t nv = 1;
  olg_lower sub = *cx;
  sub.map = NULL;
  sub.uses = NULL;
  sub.pinned = NULL; /* indexed by the caller's source values */
  olg_node_id sn;
  olg_status s = olg_model_set_opset(sm, "", version);
  if (!s) s = olg_node_begin(g, "", nd->op, cx->name_base && *cx->name_base ? cx->name_base : "", &sn);
  for (uint32_t i = 0; !s && i < cx->dst->nodes[n].n_args; i++) {
    const olg_arg *a = &cx->dst->nodes[n].args[i];
    olg_value sv = OLG_NO_VALUE;
    if (a->kind == OLG_ARG_VALUE && a->u.v != OLG_NO_VALUE) s = stand_in(cx, g, a->u.v, &sv);
    if (!s) s = sv == OLG_NO_VALUE ? olg_node_arg_none(g, sn) : olg_node_arg_value(g, sn, sv);
  }
  if (s) goto done;
  nd = &cx->dst->nodes[n];
  g->nodes[sn].attrs = nd->attrs; /* the target arena's, as emitted */
  g->nodes[sn].n_attrs = nd->n_attrs;
  nd->state = OLG_NODE_DEAD; /* never closed: its lowering stands for it */
  if ((s = olg_node_end(g, sn, n_out, NULL, souts))) goto done;

  /* lowered as the driver lowers a node of a model at `version`, into the same target graph */
  nv = g->n_values ? g->n_values : 1;
  sub.src_model = sm;
  sub.src = g;
  sub.map = olg__malloc(al, nv * sizeof *sub.map);
  sub.uses = olg__malloc(al, nv * sizeof *sub.uses);
  if (!sub.map || !sub.uses) {
    s = OLG_ERR_NOMEM;
    goto done;
  }
  for (uint32_t v = 0; v < g->n_values; v++) {
    sub.map[v] = OLG_NO_VALUE;
    sub.uses[v] = 1; /* every output the caller asked for must be bound */
  }
  nd = &cx->dst->nodes[n];
  for (uint32_t i = 0; i < nd->n_args; i++)
    if (nd->args[i].kind == OLG_ARG_VALUE && nd->args[i].u.v != OLG_NO_VALUE)
      sub.map[olg__graph_lookup(g, cx->dst->values[nd->args[i].u.v].name)] = nd->args[i].u.v;
  sub.versioned_depth = cx->versioned_depth + 1;
  sub.scope = NULL;
  sub.n_errors = 0;
  sub.probing = cx->probing;
  size_t before = olg_diags_count(cx->diags);
  s = olg__lower_node(&sub, sn);
  if (s == 1) s = OLG_ERR_UNSUPPORTED; /* skipped: cannot happen with every input mapped */
  if (s && cx->diags) { /* the refusal names the caller's op too */
    char note[300];
    snprintf(note, sizeof note, " (emitted as %s-%d by the symbolic of %s%s%s)", g->nodes[sn].op,
             version, *olg_lower_node_domain(cx) ? olg_lower_node_domain(cx) : "",
             *olg_lower_node_domain(cx) ? "::" : "", olg_lower_node_op(cx));
    olg__diags_append_note(cx->diags, before, note);
  }
  for (size_t i = 0; !s && outs && i < n_out; i++)
    outs[i] = souts[i] == OLG_NO_VALUE ? OLG_NO_VALUE : sub.map[souts[i]];
done:
  cx->custom_domains = sub.custom_domains; /* the list may have grown */
  cx->n_custom = sub.n_custom;
  cx->cap_custom = sub.cap_custom;
  cx->n_errors += sub.n_errors;
  if (sub.n_errors) cx->cur_reported = true;
  olg__free(al, sub.map, nv * sizeof *sub.map);
  olg__free(al, sub.uses, nv * sizeof *sub.uses);
  olg_model_free(sm);
  return s;
}
