/* A caller's op written once for every opset (issue 26): my::RMSNorm(x, scale) with attribute
 * epsilon, y = x / sqrt(mean(x^2 over the last axis) + epsilon) * scale. The symbolic writes
 * ReduceMean as defined at opset 18 (axes as an input) and never tests the target opset: the
 * library keeps it from 18 and re-encodes it below (axes as an attribute).
 *
 *   rms_norm_once OPSET OUT.onnx     writes the model [2,3,8] -> [2,3,8] converted to OPSET */
#include <stdio.h>
#include <stdlib.h>

#include <onnxlegal/onnxlegal.h>

#define TRY(e)                                                                             \
  do {                                                                                     \
    olg_status s_ = (e);                                                                   \
    if (s_) return s_;                                                                     \
  } while (0)

static olg_status emit1(olg_lower *cx, const char *op, olg_value a, olg_value b, olg_value *out) {
  olg_node_id n;
  TRY(olg_lower_emit_begin(cx, "", op, &n));
  TRY(olg_lower_emit_input(cx, n, a));
  if (b != OLG_NO_VALUE) TRY(olg_lower_emit_input(cx, n, b));
  return olg_lower_emit_end(cx, n, 1, out);
}

static olg_status rms_norm(olg_lower *cx, olg_node_id src, void *ud) {
  (void)src;
  (void)ud;
  olg_value x, scale, two, eps, axes, sq, mean, var, root, normed, y;
  double epsilon = 1e-6;
  if (olg_lower_src_attr_has(cx, "epsilon")) TRY(olg_lower_src_attr_float(cx, "epsilon", &epsilon));
  const float two_f = 2.0f, eps_f = (float)epsilon;
  const int64_t last[1] = {-1};
  TRY(olg_lower_arg_value(cx, 0, &x));
  TRY(olg_lower_arg_value(cx, 1, &scale));
  TRY(olg_lower_emit_const(cx, OLG_FLOAT, 0, NULL, &two_f, sizeof two_f, &two));
  TRY(olg_lower_emit_const(cx, OLG_FLOAT, 0, NULL, &eps_f, sizeof eps_f, &eps));
  TRY(olg_lower_emit_const_ints(cx, last, 1, &axes));
  TRY(emit1(cx, "Pow", x, two, &sq));
  olg_node_id n; /* ReduceMean-18: axes as an input; the library converts it for each target */
  TRY(olg_lower_emit_begin(cx, "", "ReduceMean", &n));
  TRY(olg_lower_emit_input(cx, n, sq));
  TRY(olg_lower_emit_input(cx, n, axes));
  TRY(olg_lower_emit_attr_int(cx, n, "keepdims", 1));
  TRY(olg_lower_emit_end_at(cx, n, 18, 1, &mean));
  TRY(emit1(cx, "Add", mean, eps, &var));
  TRY(emit1(cx, "Sqrt", var, OLG_NO_VALUE, &root));
  TRY(emit1(cx, "Div", x, root, &normed));
  TRY(emit1(cx, "Mul", normed, scale, &y));
  return olg_lower_bind_output(cx, 0, y);
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: rms_norm_once OPSET OUT.onnx\n");
    return 2;
  }
  olg_model *m = NULL, *out = NULL;
  olg_registry *r = NULL;
  olg_diags *d = NULL;
  static const float scale[8] = {1, 0.5f, 2, 1, 1.5f, 1, 0.25f, 3};
  const int64_t xdims[3] = {2, 3, 8}, sdims[1] = {8};
  olg_value x, s, y;
  olg_node_id node;
  const char *names[1] = {"y"};
  olg_status st = olg_model_new(&m, NULL);
  if (!st) st = olg_graph_set_name(olg_model_graph(m), "rms");
  if (!st) st = olg_graph_add_input(olg_model_graph(m), "x", OLG_FLOAT, 3, xdims, NULL, &x);
  if (!st) st = olg_graph_add_initializer(olg_model_graph(m), "scale", OLG_FLOAT, 1, sdims, scale,
                                          sizeof scale, OLG_DATA_BORROW, NULL, NULL, &s);
  if (!st) st = olg_node_begin(olg_model_graph(m), "my", "RMSNorm", "block.norm", &node);
  if (!st) st = olg_node_arg_value(olg_model_graph(m), node, x);
  if (!st) st = olg_node_arg_value(olg_model_graph(m), node, s);
  if (!st) st = olg_node_attr_float(olg_model_graph(m), node, "epsilon", 1e-5);
  if (!st) st = olg_node_end(olg_model_graph(m), node, 1, names, &y);
  if (!st) st = olg_graph_add_output(olg_model_graph(m), y);
  if (!st) st = olg_registry_new_builtin(&r, NULL);
  if (!st) st = olg_registry_add(r, "my", "RMSNorm", OLG_LOWER_OPSET_MIN, rms_norm, NULL);
  if (!st) st = olg_diags_new(&d, NULL);
  if (!st) {
    olg_legalize_options o = OLG_LEGALIZE_OPTIONS_INIT;
    o.opset = atoi(argv[1]);
    st = olg_legalize(m, r, &o, &out, d);
    for (size_t i = 0; i < olg_diags_count(d); i++) {
      char line[1024];
      olg_diag_format(d, i, line, sizeof line);
      fprintf(stderr, "%s\n", line);
    }
  }
  if (!st) st = olg_model_write_file(out, argv[2], NULL);
  if (st) fprintf(stderr, "rms_norm_once: %s: %s\n", olg_status_name(st), olg_last_error());
  olg_model_free(out);
  olg_model_free(m);
  olg_registry_free(r);
  olg_diags_free(d);
  return st ? 1 : 0;
}
