/* onnxlegal — graph surgery for the rewrites that run after lowering (lib/profile.h). */
#include "passes/passes.h"

/* Makes `by` stand for `old` everywhere: uses through subst, and, when old is a graph output,
 * the output list under old's name (by takes the name, or an Identity carries it). */
olg_status olg__replace_value(olg_lower *cx, olg_value old, olg_value by, olg_value *subst) {
  olg_graph *g = cx->dst;
  subst[old] = by;
  if (!(g->values[old].flags & OLG_VF_OUTPUT)) return OLG_OK;
  const char *name = g->values[old].name;
  const char *tmp = olg__graph_unique_name(g, name);
  if (!tmp) return OLG_ERR_NOMEM;
  OLG_TRY(olg__value_rename(g, old, tmp));
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
