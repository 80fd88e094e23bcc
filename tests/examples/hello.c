/* The README's C example: build y = Relu(x @ W + b) and write it as model.onnx.
 * Build against an installed library:  cc hello.c $(pkg-config --cflags --libs onnxlegal) */
#include <onnxlegal/onnxlegal.h>
#include <stdio.h>

static int fail(olg_status s) {
  fprintf(stderr, "hello: %s: %s\n", olg_status_name(s), olg_last_error());
  return 1;
}

int main(int argc, char **argv) {
  const char *path = argc > 1 ? argv[1] : "model.onnx";
  static const float W[4 * 2] = {1, -1, 0.5f, 2, -3, 1, 0, 0.25f};
  static const float b[2] = {0.5f, -0.5f};
  olg_model *m;
  olg_status s = olg_model_new(&m, NULL);
  if (s) return fail(s);
  olg_graph *g = olg_model_graph(m);
  const int64_t xdims[2] = {OLG_DIM_UNKNOWN, 4}, wdims[2] = {4, 2}, bdims[1] = {2};
  const char *xparams[2] = {"batch", NULL};
  olg_value x, w, bias, xw, y;
  olg_node_id n;
  const char *yname[1] = {"y"};
  if ((s = olg_model_set_opset(m, "", 17)) ||
      (s = olg_model_set_string(m, OLG_MODEL_PRODUCER_NAME, "hello.c")) ||
      (s = olg_graph_set_name(g, "hello")) ||
      (s = olg_graph_add_input(g, "x", OLG_FLOAT, 2, xdims, xparams, &x)) ||
      /* weights are borrowed: static data outlives the model */
      (s = olg_graph_add_initializer(g, "W", OLG_FLOAT, 2, wdims, W, sizeof W, OLG_DATA_BORROW, NULL, NULL, &w)) ||
      (s = olg_graph_add_initializer(g, "b", OLG_FLOAT, 1, bdims, b, sizeof b, OLG_DATA_BORROW, NULL, NULL, &bias)) ||
      (s = olg_node_begin(g, "", "Gemm", "fc", &n)) || (s = olg_node_arg_value(g, n, x)) ||
      (s = olg_node_arg_value(g, n, w)) || (s = olg_node_arg_value(g, n, bias)) ||
      (s = olg_node_end(g, n, 1, NULL, &xw)) ||
      (s = olg_node_begin(g, "", "Relu", "act", &n)) || (s = olg_node_arg_value(g, n, xw)) ||
      (s = olg_node_end(g, n, 1, yname, &y)) ||
      (s = olg_value_set_type(g, y, OLG_FLOAT, 2, (const int64_t[]){OLG_DIM_UNKNOWN, 2}, xparams)) ||
      (s = olg_graph_add_output(g, y)) ||
      (s = olg_model_write_file(m, path, NULL))) {
    olg_model_free(m);
    return fail(s);
  }
  olg_model_free(m);
  printf("wrote %s\n", path);
  return 0;
}
