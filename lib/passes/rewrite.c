/* onnxlegal — graph surgery for the rewrites that run after lowering (lib/profile.h). */
#include "passes/passes.h"

/* Whether by, standing for old, takes old's name: a value a rewrite made (its name generated,
 * computed by a node, nothing of the graph's own) for one with a name of its source (a tool that
 * names tensors still finds it). Not a value subgraphs read by name: they read old's. */
static bool takes_name(const olg_lower *cx, olg_value old, olg_value by) {
  const olg_value_rec *o = &cx->dst->values[old], *b = &cx->dst->values[by];
  uint32_t own = OLG_VF_INPUT | OLG_VF_INITIALIZER | OLG_VF_OUTPUT;
  return !(o->flags & OLG_VF_AUTO_NAME) && *o->name && (b->flags & OLG_VF_AUTO_NAME) &&
         b->producer >= 0 && !(b->flags & own) && !olg__is_protected(cx, old) &&
         !olg__is_protected(cx, by);
}

/* Makes `by` stand for `old` everywhere: uses through subst; when old is a graph output, the
 * output list under old's name (by takes the name, or an Identity carries it); otherwise by
 * takes old's name where takes_name says so. */
olg_status olg__replace_value(olg_lower *cx, olg_value old, olg_value by, olg_value *subst) {
  olg_graph *g = cx->dst;
  subst[old] = by;
  bool output = g->values[old].flags & OLG_VF_OUTPUT;
  if (!output && !takes_name(cx, old, by)) return OLG_OK;
  const char *name = g->values[old].name;
  const char *tmp = olg__graph_unique_name(g, name);
  if (!tmp) return OLG_ERR_NOMEM;
  OLG_TRY(olg__value_rename(g, old, tmp));
  if (!output) return olg__value_rename(g, by, name);
  olg_value_rec *br = &g->values[by];
  if (br->producer < 0 || (br->flags & (OLG_VF_INPUT | OLG_VF_INITIALIZER | OLG_VF_OUTPUT))) {
    olg_node_id n;
    OLG_TRY(olg_node_begin(g, "", "Identity", name, &n));
    OLG_TRY(olg_node_arg_value(g, n, by));
    olg_value nv;
    OLG_TRY(olg_node_end(g, n, 1, (const char *const[]){name}, &nv));
    g->values[nv].type = g->values[by].type;
    by = nv;
  } else {
    OLG_TRY(olg__value_rename(g, by, name));
  }
  g->values[old].flags &= ~(uint32_t)OLG_VF_OUTPUT;
  g->values[by].flags |= OLG_VF_OUTPUT;
  for (uint32_t i = 0; i < g->outputs.n; i++)
    if (g->outputs.p[i] == old) g->outputs.p[i] = by;
  return OLG_OK;
}
