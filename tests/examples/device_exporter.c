/* A device-side exporter, built from the amalgamation alone (issue 24): a board's converter
 * that vendors onnxlegal as one file builds y = Relu(x @ W + b) from weights it holds, legalizes
 * it down to the opset its runtime speaks (11), checks it, and serializes it into a fixed
 * buffer of its own (no file system needed), then hands the bytes on: here, to the file named
 * on the command line. With -DOLG_WITH_NANOPB (nanopb's encoder linked in) it serializes with
 * the writer that allocates nothing; otherwise with the default writer. Built with
 * -DOLG_CONFIG_MINIMAL -DOLG_WITH_NANOPB (the builder and the nanopb writer alone, issue 24) it
 * writes the model at opset 17 as built, without legalize and check.
 *   cc -std=c11 -I build/amalgamation device_exporter.c build/amalgamation/onnxlegal.c -lm
 * tests/py/test_amalgamation.py builds it both ways, runs it and checks what it wrote. */
#include <stdio.h>
#include <string.h>

#include "onnxlegal/onnxlegal.h"
#ifdef OLG_WITH_NANOPB
#include "onnxlegal/nanopb.h"
#endif

/* The device's output buffer: the model must fit, or the export fails cleanly. */
static unsigned char out_buf[16384];
static size_t out_len;

static int to_buffer(void *ud, const void *p, size_t n) {
  (void)ud;
  if (n > sizeof out_buf - out_len) return 1; /* full: the writer stops with OLG_ERR_CALLBACK */
  memcpy(out_buf + out_len, p, n);
  out_len += n;
  return 0;
}

static int fail(const char *what, olg_status s) {
  fprintf(stderr, "device_exporter: %s: %s: %s\n", what, olg_status_name(s), olg_last_error());
  return 1;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: device_exporter OUT.onnx\n");
    return 2;
  }
  static const float W[4 * 3] = {1, -1, 0.5f, 2, -3, 1, 0, 0.25f, 4, -2, 1, 0};
  static const float b[3] = {0.5f, -0.5f, 0};
  olg_model *m = NULL, *out = NULL;
  olg_registry *reg = NULL;
  olg_status s = olg_model_new(&m, NULL);
  if (s) return fail("new", s);
  olg_graph *g = olg_model_graph(m);
  const int64_t xdims[2] = {OLG_DIM_UNKNOWN, 4}, wdims[2] = {4, 3}, bdims[1] = {3};
  const char *xparams[2] = {"batch", NULL};
  const char *yname[1] = {"y"};
  olg_value x, w, bv, xw, xwb, y;
  olg_node_id n;
  if ((s = olg_model_set_opset(m, "", 17)) ||
      (s = olg_graph_add_input(g, "x", OLG_FLOAT, 2, xdims, xparams, &x)) ||
      (s = olg_graph_add_initializer(g, "W", OLG_FLOAT, 2, wdims, W, sizeof W, OLG_DATA_BORROW,
                                     NULL, NULL, &w)) ||
      (s = olg_graph_add_initializer(g, "b", OLG_FLOAT, 1, bdims, b, sizeof b, OLG_DATA_BORROW,
                                     NULL, NULL, &bv)) ||
      (s = olg_node_begin(g, "", "MatMul", "mm", &n)) || (s = olg_node_arg_value(g, n, x)) ||
      (s = olg_node_arg_value(g, n, w)) || (s = olg_node_end(g, n, 1, NULL, &xw)) ||
      (s = olg_node_begin(g, "", "Add", "add", &n)) || (s = olg_node_arg_value(g, n, xw)) ||
      (s = olg_node_arg_value(g, n, bv)) || (s = olg_node_end(g, n, 1, NULL, &xwb)) ||
      (s = olg_node_begin(g, "", "Relu", "relu", &n)) || (s = olg_node_arg_value(g, n, xwb)) ||
      (s = olg_node_end(g, n, 1, yname, &y)) || (s = olg_graph_add_output(g, y)))
    return fail("build", s);
#ifdef OLG_CONFIG_NO_LEGALIZE
  /* the minimal configuration (onnxlegal/config.h): the runtime takes opset 17 as built, and
   * with no shape inference the output's type and the graph's name are the exporter's to say */
  const int64_t ydims[2] = {OLG_DIM_UNKNOWN, 3};
  if ((s = olg_value_set_type(g, y, OLG_FLOAT, 2, ydims, xparams)) ||
      (s = olg_graph_set_name(g, "device")))
    return fail("type", s);
  out = m;
  m = NULL;
#else
  olg_legalize_options lo;
  olg_legalize_options_init(&lo);
  if ((s = olg_registry_new_builtin(&reg, NULL)) || (s = olg_legalize_options_set_opset(&lo, 11)) ||
      (s = olg_legalize(m, reg, &lo, &out, NULL)))
    return fail("legalize", s);
  if ((s = olg_check(out, NULL, NULL))) return fail("check", s);
#endif
#ifdef OLG_WITH_NANOPB
  const char *writer = "nanopb";
  s = olg_model_write_nanopb(out, to_buffer, NULL);
#else
  const char *writer = "default";
  s = olg_model_write_callback(out, to_buffer, NULL, NULL);
#endif
  if (s) return fail("write", s);
  olg_model_free(out);
  olg_model_free(m);
  olg_registry_free(reg);
  FILE *f = fopen(argv[1], "wb");
  if (!f || fwrite(out_buf, 1, out_len, f) != out_len || fclose(f) != 0) {
    perror(argv[1]);
    return 1;
  }
  printf("exported %zu bytes with the %s writer\n", out_len, writer);
  return 0;
}
