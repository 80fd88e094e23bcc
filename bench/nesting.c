/* Time of check (full), inference and legalize on If nested N deep and on a flat chain of N
 * Relu nodes, built through the API (tests/nested_if.h): `make bench-nesting` prints one line
 * per size, to show that the time grows linearly. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../tests/nested_if.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t); /* CPU time: the machine may be shared */
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static olg_status chain_model(long n, olg_model **out) {
  olg_model *m;
  olg_status s = olg_model_new(&m, NULL);
  if (s) return s;
  olg_graph *g = olg_model_graph(m);
  olg_value v;
  if ((s = olg_model_set_opset(m, "", 13)) || (s = olg_graph_set_name(g, "chain")) ||
      (s = olg_graph_add_input(g, "x", OLG_FLOAT, 2, (const int64_t[]){2, 3}, NULL, &v)))
    goto fail;
  for (long k = 0; k < n; k++) {
    olg_node_id nd;
    if ((s = olg_node_begin(g, "", "Relu", NULL, &nd)) || (s = olg_node_arg_value(g, nd, v)) ||
        (s = olg_node_end(g, nd, 1, NULL, &v)))
      goto fail;
  }
  if ((s = olg_value_set_type(g, v, OLG_FLOAT, 2, (const int64_t[]){2, 3}, NULL)) ||
      (s = olg_graph_add_output(g, v)))
    goto fail;
  *out = m;
  return OLG_OK;
fail:
  olg_model_free(m);
  return s;
}

static void run(const char *what, long n, olg_model *m, olg_registry *r) {
  olg_check_options co = OLG_CHECK_OPTIONS_INIT;
  co.full = 1;
  double t0 = now();
  olg_status sc = olg_check(m, &co, NULL);
  double t1 = now();
  olg_status si = olg_infer_shapes(m, NULL, NULL);
  double t2 = now();
  olg_legalize_options lo = OLG_LEGALIZE_OPTIONS_INIT;
  lo.opset = 17;
  olg_model *out = NULL;
  olg_status sl = olg_legalize(m, r, &lo, &out, NULL);
  double t3 = now();
  printf("%-6s n=%-8ld check %.3fs (%s)  infer %.3fs (%s)  legalize %.3fs (%s)\n", what, n,
         t1 - t0, olg_status_name(sc), t2 - t1, olg_status_name(si), t3 - t2, olg_status_name(sl));
  olg_model_free(out);
}

int main(int argc, char **argv) {
  olg_registry *r;
  if (olg_registry_new_builtin(&r, NULL)) return 2;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    long n = strtol(a + (a[0] == 'c' ? 1 : 0), NULL, 10);
    olg_model *m;
    olg_status s = a[0] == 'c' ? chain_model(n, &m) : nested_if_model(n, &m);
    if (s) {
      fprintf(stderr, "building %s: %s\n", a, olg_last_error());
      return 1;
    }
    run(a[0] == 'c' ? "chain" : "nested", n, m, r);
    olg_model_free(m);
  }
  olg_registry_free(r);
  return 0;
}
