/* Builds, through the public API, a model whose If nodes nest `depth` deep: the then_branch of
 * each If holds the next If, the innermost then_branch and every else_branch pass x through.
 * Shared by the unit tests (deep nesting refused, no overflow) and bench/nesting.c (time per
 * depth). Inputs c (bool scalar) and x (float[2]); output y_0. */
#ifndef OLG_TESTS_NESTED_IF_H
#define OLG_TESTS_NESTED_IF_H
#include <stdio.h>
#include "onnxlegal/onnxlegal.h"

/* a subgraph "<name>" whose output "<out>" is Identity of the outer value "x" */
static olg_status nested_if_pass(olg_model *m, const char *name, const char *out, olg_graph **gout) {
  olg_graph *g;
  olg_value x, y;
  olg_node_id n;
  olg_status s;
  if ((s = olg_model_new_subgraph(m, &g)) || (s = olg_graph_set_name(g, name)) ||
      (s = olg_graph_add_value(g, "x", &x)) || (s = olg_node_begin(g, "", "Identity", out, &n)) ||
      (s = olg_node_arg_value(g, n, x)) || (s = olg_node_end(g, n, 1, (const char *[]){out}, &y)) ||
      (s = olg_graph_add_output(g, y)))
    return s;
  *gout = g;
  return OLG_OK;
}

/* an If in g reading the outer (or, in the main graph, input) value c, output "<out>" */
static olg_status nested_if_node(olg_graph *g, olg_value c, olg_graph *then_g, olg_graph *else_g,
                                 const char *out, olg_value *y) {
  olg_node_id n;
  olg_status s;
  if ((s = olg_node_begin(g, "", "If", out, &n)) || (s = olg_node_arg_value(g, n, c)) ||
      (s = olg_node_attr_graph(g, n, "then_branch", then_g)) ||
      (s = olg_node_attr_graph(g, n, "else_branch", else_g)) ||
      (s = olg_node_end(g, n, 1, (const char *[]){out}, y)))
    return s;
  return OLG_OK;
}

static olg_status nested_if_model(long depth, olg_model **out) {
  olg_model *m;
  olg_status s = olg_model_new(&m, NULL);
  if (s) return s;
  char name[64], oname[64];
  olg_graph *inner = NULL, *els;
  olg_value c, y;
  /* bottom-up: the innermost then_branch first, each level wraps the one below */
  snprintf(name, sizeof name, "then_%ld", depth);
  snprintf(oname, sizeof oname, "y_%ld", depth);
  if ((s = nested_if_pass(m, name, oname, &inner))) goto fail;
  for (long k = depth - 1; k >= 1; k--) {
    olg_graph *g;
    snprintf(name, sizeof name, "else_%ld", k + 1);
    snprintf(oname, sizeof oname, "e_%ld", k + 1);
    if ((s = nested_if_pass(m, name, oname, &els))) goto fail;
    snprintf(name, sizeof name, "then_%ld", k);
    snprintf(oname, sizeof oname, "y_%ld", k);
    if ((s = olg_model_new_subgraph(m, &g)) || (s = olg_graph_set_name(g, name)) ||
        (s = olg_graph_add_value(g, "c", &c)) || (s = nested_if_node(g, c, inner, els, oname, &y)) ||
        (s = olg_graph_add_output(g, y)))
      goto fail;
    inner = g;
  }
  olg_graph *g = olg_model_graph(m);
  olg_value x;
  if ((s = olg_model_set_opset(m, "", 13)) || (s = olg_graph_set_name(g, "main")) ||
      (s = olg_graph_add_input(g, "c", OLG_BOOL, 0, NULL, NULL, &c)) ||
      (s = olg_graph_add_input(g, "x", OLG_FLOAT, 1, (const int64_t[]){2}, NULL, &x)) ||
      (s = nested_if_pass(m, "else_1", "e_1", &els)) ||
      (s = nested_if_node(g, c, inner, els, "y_0", &y)) ||
      (s = olg_value_set_type(g, y, OLG_FLOAT, 1, (const int64_t[]){2}, NULL)) ||
      (s = olg_graph_add_output(g, y)))
    goto fail;
  *out = m;
  return OLG_OK;
fail:
  olg_model_free(m);
  return s;
}

#endif
