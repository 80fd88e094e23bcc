/* onnxlegal — the tensorrt target profile (TensorRT's ONNX parser): its rules. Today one:
 * TensorRT cannot gather on a shape tensor, so Gather(Shape(x), i) becomes a slice of the
 * shape. */
#include <stdio.h>
#include <string.h>

#include "profiles.h"
#include "../lib/passes/passes.h"
#include "../symbolics/emit.h"

/* Gather (axis 0) whose data is a Shape's output. */
static bool shape_gather_match(olg_prule_site *st) {
  const olg_graph *g = st->g;
  const olg_node *nd = &g->nodes[st->node];
  if (nd->n_args < 2 || nd->args[0].kind != OLG_ARG_VALUE || nd->args[1].kind != OLG_ARG_VALUE)
    return false;
  const olg_attr *ax = olg__node_attr(nd, "axis");
  if (ax && ax->i != 0) return false;
  olg_value data = nd->args[0].u.v;
  if (data < 0 || (uint32_t)data >= g->n_values) return false;
  int32_t p = g->values[data].producer;
  if (p < 0 || strcmp(g->nodes[p].op, "Shape") != 0 || *g->nodes[p].domain) return false;
  snprintf(st->msg, sizeof st->msg, "Gather on the shape tensor '%s' (TensorRT cannot gather on a shape tensor)",
           g->values[data].name);
  return true;
}

/* Gather(Shape(x), i) with a known scalar or one-element i becomes a Shape slice. */
static olg_status shape_gather_fix(olg_prule_site *st) {
  olg_lower *cx = st->cx;
  olg_graph *g = cx->dst;
  olg_node *nd = &g->nodes[st->node];
  olg_value data = nd->args[0].u.v, idx = nd->args[1].u.v, out = nd->outputs[0];
  const olg_node *sh = &g->nodes[g->values[data].producer];
  olg_value x = sh->args[0].u.v;
  if (olg__is_protected(cx, out)) {
    snprintf(st->msg, sizeof st->msg, "its output is read by name by a subgraph");
    return OLG_ERR_UNSUPPORTED;
  }
  const int64_t *iv;
  size_t ni;
  int32_t irank = olg__rank(cx, idx);
  if (!olg__known_ints(cx, idx, &iv, &ni) || ni != 1 || irank > 1 || irank < 0) {
    snprintf(st->msg, sizeof st->msg, "the index is not a known scalar");
    return OLG_ERR_UNSUPPORTED;
  }
  int64_t rank = olg__rank(cx, x);
  int64_t start = 0, end = INT64_MAX;
  const olg_attr *a = olg__node_attr(sh, "start");
  if (a) start = a->i;
  if ((a = olg__node_attr(sh, "end"))) end = a->i;
  if (start < 0 || end < 0 || iv[0] < 0) {
    if (rank < 0) {
      snprintf(st->msg, sizeof st->msg, "a negative index or bound on a shape of unknown rank");
      return OLG_ERR_UNSUPPORTED;
    }
    if (start < 0) start += rank;
    if (end < 0) end += rank;
  }
  int64_t at = iv[0];
  if (at < 0) {
    int64_t len = olg__dim(cx, data, 0);
    if (len < 0) {
      snprintf(st->msg, sizeof st->msg, "a negative index into a shape of unknown length");
      return OLG_ERR_UNSUPPORTED;
    }
    at += len;
  }
  olg_value r;
  OLG_TRY(olg__shape_range(cx, x, start + at, start + at + 1, &r));
  if (irank == 0) OLG_TRY(olg__emit_squeeze(cx, r, (const int64_t[]){0}, 1, &r));
  OLG_TRY(olg__replace_value(cx, out, r, cx->subst));
  snprintf(st->msg, sizeof st->msg, "a slice of the shape (Shape with start/end, or Shape then Slice)");
  return OLG_OK;
}

static const olg_prule tensorrt_rules[] = {
    {.name = "tensorrt/shape-gather", .op = "Gather", .since = 1, .kind = OLG_PRULE_MATCH,
     .match = shape_gather_match, .fix = shape_gather_fix,
     .hint = "slice the shape instead (Shape start/end at 15+, Shape then Slice below)"},
};

static const olg_prule_table tensorrt_tables[] = {
    {tensorrt_rules, sizeof tensorrt_rules / sizeof tensorrt_rules[0], true,
     "onnx-tensorrt docs/operators.md (TensorRT 10): shape tensors"},
};

const olg_profile olg__profile_tensorrt = {
    .name = "tensorrt",
    .title = "TensorRT 10's ONNX parser",
    .tables = tensorrt_tables,
    .n_tables = sizeof tensorrt_tables / sizeof tensorrt_tables[0],
    .magic = OLG_PROFILE_MAGIC,
};
