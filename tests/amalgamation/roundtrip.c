/* Built against the amalgamation alone (tests/py/test_amalgamation.py): a graph built at opset
 * 17, legalized to 11 with the built-in registry, checked, written, read back, and written again
 * byte for byte. Prints "ok <bytes>" on success. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnxlegal/onnxlegal.h"

static int fail(const char *what, olg_status s) {
  fprintf(stderr, "roundtrip: %s: %s: %s\n", what, olg_status_name(s), olg_last_error());
  return 1;
}

static char *slurp(const char *path, long *n) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  *n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *p = malloc((size_t)*n + 1);
  if (p && fread(p, 1, (size_t)*n, f) != (size_t)*n) {
    free(p);
    p = NULL;
  }
  fclose(f);
  return p;
}

int main(int argc, char **argv) {
  const char *a = argc > 2 ? argv[1] : "a.onnx", *b = argc > 2 ? argv[2] : "b.onnx";
  static const float W[4 * 2] = {1, -1, 0.5f, 2, -3, 1, 0, 0.25f};
  static const float bias[2] = {0.5f, -0.5f};
  olg_model *m, *out, *back;
  olg_status s = olg_model_new(&m, NULL);
  if (s) return fail("new", s);
  olg_graph *g = olg_model_graph(m);
  const int64_t xdims[2] = {OLG_DIM_UNKNOWN, 4}, wdims[2] = {4, 2}, bdims[1] = {2};
  const char *xparams[2] = {"batch", NULL};
  olg_value x, w, bv, xw, y;
  olg_node_id n;
  const char *yname[1] = {"y"};
  if ((s = olg_model_set_opset(m, "", 17)) ||
      (s = olg_graph_add_input(g, "x", OLG_FLOAT, 2, xdims, xparams, &x)) ||
      (s = olg_graph_add_initializer(g, "W", OLG_FLOAT, 2, wdims, W, sizeof W, OLG_DATA_BORROW,
                                     NULL, NULL, &w)) ||
      (s = olg_graph_add_initializer(g, "b", OLG_FLOAT, 1, bdims, bias, sizeof bias,
                                     OLG_DATA_BORROW, NULL, NULL, &bv)) ||
      (s = olg_node_begin(g, "", "Gemm", "fc", &n)) || (s = olg_node_arg_value(g, n, x)) ||
      (s = olg_node_arg_value(g, n, w)) || (s = olg_node_arg_value(g, n, bv)) ||
      (s = olg_node_end(g, n, 1, NULL, &xw)) ||
      (s = olg_node_begin(g, "", "Gelu", "act", &n)) || (s = olg_node_arg_value(g, n, xw)) ||
      (s = olg_node_end(g, n, 1, yname, &y)) || (s = olg_graph_add_output(g, y)))
    return fail("build", s);
  olg_registry *reg;
  if ((s = olg_registry_new_builtin(&reg, NULL))) return fail("registry", s);
  olg_legalize_options lo;
  olg_legalize_options_init(&lo);
  if ((s = olg_legalize_options_set_opset(&lo, 11))) return fail("options", s);
  if ((s = olg_legalize(m, reg, &lo, &out, NULL))) return fail("legalize", s);
  /* Gelu is an op of opset 20: olg_check at 11 passes only when it was decomposed */
  if ((s = olg_check(out, NULL, NULL))) return fail("check", s);
  if ((s = olg_model_write_file(out, a, NULL))) return fail("write", s);
  if ((s = olg_model_read_file(&back, a, NULL))) return fail("read", s);
  if ((s = olg_check(back, NULL, NULL))) return fail("check after reading", s);
  if ((s = olg_model_write_file(back, b, NULL))) return fail("write again", s);
  long na = 0, nb = 0;
  char *pa = slurp(a, &na), *pb = slurp(b, &nb);
  int same = pa && pb && na == nb && memcmp(pa, pb, (size_t)na) == 0;
  free(pa);
  free(pb);
  olg_model_free(back);
  olg_model_free(out);
  olg_model_free(m);
  olg_registry_free(reg);
  if (!same) {
    fprintf(stderr, "roundtrip: %s and %s differ\n", a, b);
    return 1;
  }
  printf("ok %ld\n", na);
  return 0;
}
