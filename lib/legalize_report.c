/* onnxlegal — the per-node report of olg_legalize (olg_legalize_options.report): one note per
 * lowered source node saying whether it was kept as it was, re-encoded (other ops or attributes
 * of the same meaning) or decomposed, and into which ops. */
#include <stdio.h>
#include <string.h>

#include "lower.h"

static bool put_op(char *buf, size_t cap, size_t *len, bool *any, const char *op) {
  int k = snprintf(buf + *len, cap - *len, "%s%s", *any ? ", " : "", op);
  if (k < 0 || (size_t)k >= cap - *len) {
    if (cap >= 4) memcpy(buf + cap - 4, "...", 4);
    return false;
  }
  *len += (size_t)k;
  *any = true;
  return true;
}

/* Appends the distinct ops of nodes [first, g->n_nodes) of g to buf, in order of emission. */
static void list_ops(const olg_graph *g, uint32_t first, char *buf, size_t cap) {
  size_t len = strlen(buf);
  bool any = false;
  /* a Constant an earlier node had already made (interned) is listed where it was asked for */
  uint32_t hit = g->first_hit != UINT32_MAX && g->first_hit >= first ? g->first_hit : UINT32_MAX;
  bool hit_listed = false;
  for (uint32_t i = first; i <= g->n_nodes; i++) {
    if (i == hit) {
      bool seen = false;
      for (uint32_t j = first; j < i && !seen; j++) seen = strcmp(g->nodes[j].op, "Constant") == 0;
      if (!seen && !put_op(buf, cap, &len, &any, "Constant")) return;
      hit_listed = true;
    }
    if (i == g->n_nodes) break;
    const char *op = g->nodes[i].op;
    bool seen = hit_listed && strcmp(op, "Constant") == 0;
    /* quadratic in the ops one source node emits (a few dozen at most), never in the graph */
    for (uint32_t j = first; j < i && !seen; j++) seen = strcmp(g->nodes[j].op, op) == 0;
    if (!seen && !put_op(buf, cap, &len, &any, op)) return;
  }
  if (!any && len + 2 <= cap) memcpy(buf + len, "-", 2); /* bound to an existing value */
}

void olg__lower_report_node(olg_lower *cx, olg_node_id id, uint32_t first) {
  const olg_node *src = &cx->src->nodes[id];
  const olg_graph *g = cx->dst;
  const char *code, *lead;
  bool kept = false;
  if (!cx->cur_decomposed && g->n_nodes == first + 1 && g->first_hit == UINT32_MAX) {
    const olg_node *t = &g->nodes[first];
    kept = strcmp(t->op, src->op) == 0 && strcmp(t->domain, src->domain) == 0 &&
           t->n_attrs == src->n_attrs && t->n_args == src->n_args;
  }
  if (cx->cur_decomposed) code = "OLG-LOWER-DECOMPOSED", lead = "into: ";
  else if (kept) code = "OLG-LOWER-KEPT", lead = "as: ";
  else code = "OLG-LOWER-REENCODED", lead = "as: ";
  char buf[512];
  snprintf(buf, sizeof buf, "%s", lead);
  list_ops(g, first, buf, sizeof buf);
  olg__diags_add_node(cx->diags, OLG_NOTE, code, cx->src, src, cx->opset, buf);
}
