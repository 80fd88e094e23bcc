/* Tests of olg_lower_emit_end_at (lib/lower_versioned.c): a caller's symbolic writes Unsqueeze as
 * defined at 13 (axes as an input); at opset 13 the node is kept as written, at 9 it is converted
 * to Unsqueeze-1's encoding (axes as an attribute), named under the caller's node; an unknown
 * version, a closed node and a custom-domain node are refused as bad arguments. */
#include "../harness.h"
#include "../lowering_helpers.h"

static olg_status sym_unsq13(olg_lower *cx, olg_node_id src, void *ud) {
  (void)src;
  int version = *(const int *)ud;
  olg_value x, axes, y;
  const int64_t ax[1] = {0};
  olg_node_id n;
  olg_status s;
  if ((s = olg_lower_arg_value(cx, 0, &x)) || (s = olg_lower_emit_const_ints(cx, ax, 1, &axes)) ||
      (s = olg_lower_emit_begin(cx, "", "Unsqueeze", &n)) || (s = olg_lower_emit_input(cx, n, x)) ||
      (s = olg_lower_emit_input(cx, n, axes)) || (s = olg_lower_emit_end_at(cx, n, version, 1, &y)))
    return s;
  return olg_lower_bind_output(cx, 0, y);
}

static olg_model *unsq_model(void) {
  olg_model *m;
  if (olg_model_new(&m, NULL)) return NULL;
  olg_graph *g = olg_model_graph(m);
  const int64_t dims[1] = {3};
  olg_value x, y;
  olg_node_id n;
  if (olg_graph_set_name(g, "g") || olg_graph_add_input(g, "x", OLG_FLOAT, 1, dims, NULL, &x) ||
      olg_node_begin(g, "t", "unsq", "layer", &n) || olg_node_arg_value(g, n, x)) {
    olg_model_free(m);
    return NULL;
  }
  const char *names[1] = {"y"};
  if (olg_node_end(g, n, 1, names, &y) || olg_graph_add_output(g, y)) {
    olg_model_free(m);
    return NULL;
  }
  return m;
}

static int unsqueeze_inputs(const olg_graph *g, int *has_axes_attr, const char **name) {
  for (size_t i = 0; i < olg_graph_node_count(g); i++) {
    if (strcmp(olg_node_op(g, (olg_node_id)i), "Unsqueeze")) continue;
    *has_axes_attr = 0;
    for (size_t k = 0; k < olg_node_attr_count(g, (olg_node_id)i); k++)
      *has_axes_attr |= strcmp(olg_node_attr_name(g, (olg_node_id)i, k), "axes") == 0;
    *name = olg_node_name(g, (olg_node_id)i);
    return (int)olg_node_input_count(g, (olg_node_id)i);
  }
  return -1;
}

TEST(versioned_unsqueeze13_kept_at_13_converted_at_9) {
  static const int v13 = 13;
  olg_registry *r = NULL;
  CHECK_OK(olg_registry_new_builtin(&r, NULL));
  CHECK_OK(olg_registry_add_ex(r, "t", "unsq", OLG_LOWER_OPSET_MIN, OLG_LOWERING_NATIVE, sym_unsq13,
                               (void *)&v13));
  olg_model *src = unsq_model();
  CHECK(src);
  for (int target = 9; target <= 13; target += 4) {
    olg_legalize_options o = OLG_LEGALIZE_OPTIONS_INIT;
    o.opset = target;
    olg_model *out = NULL;
    CHECK_OK(olg_legalize(src, r, &o, &out, NULL));
    const olg_graph *g = olg_model_graph_const(out);
    int attr = 0;
    const char *name = "";
    int n_in = unsqueeze_inputs(g, &attr, &name);
    CHECK_EQ(n_in, target >= 13 ? 2 : 1);
    CHECK_EQ(attr, target < 13);
    CHECK(strncmp(name, "layer/", 6) == 0);
    CHECK_OK(olg_check(out, NULL, NULL));
    olg_model_free(out);
  }
  olg_model_free(src);
  olg_registry_free(r);
}

static int bad_version = 12; /* Unsqueeze has versions 1, 11, 13, 21: 12 is 11's, valid */
static int no_version = 0;

TEST(versioned_bad_arguments) {
  olg_registry *r = NULL;
  CHECK_OK(olg_registry_new_builtin(&r, NULL));
  CHECK_OK(olg_registry_add_ex(r, "t", "unsq", OLG_LOWER_OPSET_MIN, OLG_LOWERING_NATIVE, sym_unsq13,
                               &no_version));
  olg_model *src = unsq_model();
  CHECK(src);
  olg_legalize_options o = OLG_LEGALIZE_OPTIONS_INIT;
  o.opset = 13;
  olg_model *out = NULL;
  olg_diags *d;
  CHECK_OK(olg_diags_new(&d, NULL));
  CHECK(olg_legalize(src, r, &o, &out, d) != OLG_OK);
  CHECK(diags_mention(d, "ONNX has no Unsqueeze at opset 0"));
  olg_diags_free(d);
  /* version 12 is Unsqueeze-11's: axes as an attribute there, but this node gives an input */
  CHECK_OK(olg_registry_add_ex(r, "t", "unsq", OLG_LOWER_OPSET_MIN, OLG_LOWERING_NATIVE, sym_unsq13,
                               &bad_version));
  CHECK_OK(olg_diags_new(&d, NULL));
  CHECK(olg_legalize(src, r, &o, &out, d) != OLG_OK);
  CHECK(olg_diags_error_count(d) > 0);
  olg_diags_free(d);
  olg_model_free(src);
  olg_registry_free(r);
}
