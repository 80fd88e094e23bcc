/* onnxlegal — the tensorrt target profile's rewrites: TensorRT cannot gather on a shape tensor,
 * so Gather(Shape(x), i) becomes a slice of the shape. */
#include <string.h>

#include "profiles.h"
#include "../lib/passes/passes.h"
#include "../symbolics/emit.h"

/* Gather(Shape(x), i) with a known scalar or one-element i becomes a Shape slice. */
olg_status olg__tensorrt_rewrite(olg_lower *cx, olg_value *subst) {
  olg_graph *g = cx->dst;
  uint32_t n_nodes = g->n_nodes; /* nodes added here are Shape/Slice/Squeeze: no Gathers */
  for (uint32_t i = 0; i < n_nodes; i++) {
    olg_node *nd = &g->nodes[i];
    if (nd->state != OLG_NODE_DONE || *nd->domain || strcmp(nd->op, "Gather") != 0) continue;
    if (nd->n_args < 2 || nd->args[0].kind != OLG_ARG_VALUE || nd->args[1].kind != OLG_ARG_VALUE)
      continue;
    if (olg__node_attr(nd, "axis") && olg__node_attr(nd, "axis")->i != 0) continue;
    olg_value data = nd->args[0].u.v, idx = nd->args[1].u.v;
    int32_t p = g->values[data].producer;
    if (p < 0 || strcmp(g->nodes[p].op, "Shape") != 0 || *g->nodes[p].domain) continue;
    if (olg__is_protected(cx, nd->outputs[0])) continue;
    const int64_t *iv;
    size_t ni;
    int32_t irank = olg__rank(cx, idx);
    if (!olg__known_ints(cx, idx, &iv, &ni) || ni != 1 || irank > 1 || irank < 0) continue;
    const olg_node *sh = &g->nodes[p];
    int64_t rank = olg__rank(cx, sh->args[0].u.v);
    int64_t start = 0, end = INT64_MAX;
    const olg_attr *a = olg__node_attr(sh, "start");
    if (a) start = a->i;
    if ((a = olg__node_attr(sh, "end"))) end = a->i;
    if (start < 0 || end < 0 || iv[0] < 0) {
      if (rank < 0) continue;
      if (start < 0) start += rank;
      if (end < 0) end += rank;
    }
    int64_t at = iv[0];
    if (at < 0) {
      int64_t len = olg__dim(cx, data, 0);
      if (len < 0) continue;
      at += len;
    }
    cx->name_base = nd->name;
    cx->n_emitted = 0;
    cx->n_op_uses = 0;
    olg_value r;
    OLG_TRY(olg__shape_range(cx, sh->args[0].u.v, start + at, start + at + 1, &r));
    if (irank == 0) OLG_TRY(olg__emit_squeeze(cx, r, (const int64_t[]){0}, 1, &r));
    OLG_TRY(olg__replace_value(cx, g->nodes[i].outputs[0], r, subst));
    g->nodes[i].state = OLG_NODE_DEAD; /* emitting may have moved the node array */
  }
  return OLG_OK;
}
