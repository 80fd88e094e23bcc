/* Time of every stage on If nested N deep and on a flat chain of N Relu nodes, built through
 * the API (tests/nested_if.h): check (full), inference, legalize (to 17), the text printer, DOT,
 * the writer and the reader. `make bench-nesting` prints one line per size and, from the
 * second size of a kind on, the growth per doubling of each stage's time (2.0 is linear, 4.0
 * quadratic). Each stage is repeated until it has used 0.2 s of CPU, so that small sizes are
 * measured too. Every stage refuses subgraphs nested deeper than OLG_MAX_SUBGRAPH_DEPTH (50):
 * times past that are of the refusal. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* ---- the stages: each runs once on the model and returns its status ---- */

typedef struct buf {
  unsigned char *p;
  size_t n, cap;
} buf;

static int sink_count(void *ud, const void *data, size_t n) {
  (void)data;
  *(size_t *)ud += n;
  return 0;
}

static int sink_buf(void *ud, const void *data, size_t n) {
  buf *b = ud;
  if (b->n + n > b->cap) {
    size_t nc = (b->n + n) * 2;
    unsigned char *p = realloc(b->p, nc);
    if (!p) return 1;
    b->p = p;
    b->cap = nc;
  }
  memcpy(b->p + b->n, data, n);
  b->n += n;
  return 0;
}

typedef struct ctx {
  olg_model *m;
  olg_registry *r;
  buf wire; /* the model written, for the reader */
} ctx;

static olg_status st_check(ctx *c) {
  olg_check_options co = OLG_CHECK_OPTIONS_INIT;
  co.full = 1;
  return olg_check(c->m, &co, NULL);
}
static olg_status st_infer(ctx *c) { return olg_infer_shapes(c->m, NULL, NULL); }
static olg_status st_legalize(ctx *c) {
  olg_legalize_options lo = OLG_LEGALIZE_OPTIONS_INIT;
  lo.opset = 17;
  olg_model *out = NULL;
  olg_status s = olg_legalize(c->m, c->r, &lo, &out, NULL);
  olg_model_free(out);
  return s;
}
static olg_status st_text(ctx *c) {
  size_t n = 0;
  return olg_model_print_text(c->m, sink_count, &n);
}
static olg_status st_dot(ctx *c) {
  size_t n = 0;
  return olg_model_print_dot(c->m, sink_count, &n);
}
static olg_status st_write(ctx *c) {
  c->wire.n = 0;
  return olg_model_write_callback(c->m, sink_buf, &c->wire, NULL);
}
static olg_status st_read(ctx *c) {
  if (!c->wire.n) return OLG_ERR_STATE; /* the writer refused: nothing to read */
  olg_model *m = NULL;
  olg_status s = olg_model_read_memory(&m, c->wire.p, c->wire.n, NULL);
  olg_model_free(m);
  return s;
}

static const struct stage {
  const char *name;
  olg_status (*run)(ctx *);
} stages[] = {{"check", st_check}, {"infer", st_infer}, {"legalize", st_legalize},
              {"text", st_text},   {"dot", st_dot},     {"write", st_write},
              {"read", st_read}};
#define N_STAGES (sizeof stages / sizeof stages[0])

/* CPU seconds per run of stage k, repeated until 0.2 s are used */
static double time_stage(ctx *c, size_t k, olg_status *st) {
  int runs = 0;
  double t0 = now(), t;
  do {
    *st = stages[k].run(c);
    runs++;
  } while ((t = now() - t0) < 0.2);
  return t / runs;
}

int main(int argc, char **argv) {
  olg_registry *r;
  if (olg_registry_new_builtin(&r, NULL)) return 2;
  double prev[N_STAGES] = {0};
  long prev_n = 0;
  char prev_kind = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    char kind = a[0] == 'c' ? 'c' : 'n';
    long n = strtol(a + (kind == 'c'), NULL, 10);
    ctx c = {0};
    c.r = r;
    olg_status s = kind == 'c' ? chain_model(n, &c.m) : nested_if_model(n, &c.m);
    if (s) {
      fprintf(stderr, "building %s: %s\n", a, olg_last_error());
      return 1;
    }
    bool growth = prev_kind == kind && prev_n > 0 && n > prev_n;
    printf("%-6s n=%-8ld", kind == 'c' ? "chain" : "nested", n);
    double t[N_STAGES];
    for (size_t k = 0; k < N_STAGES; k++) {
      olg_status st;
      t[k] = time_stage(&c, k, &st);
      printf("  %s %.4fs%s", stages[k].name, t[k], st ? "(refused)" : "");
    }
    printf("\n");
    if (growth) { /* time ratio per doubling of n: (t/t_prev)^(1/log2(n/n_prev)) */
      printf("%-6s %-10s", "", "x/doubling");
      for (size_t k = 0; k < N_STAGES; k++)
        printf("  %s %.2f", stages[k].name,
               pow(t[k] / prev[k], 1.0 / log2((double)n / (double)prev_n)));
      printf("\n");
    }
    memcpy(prev, t, sizeof prev);
    prev_n = n;
    prev_kind = kind;
    free(c.wire.p);
    olg_model_free(c.m);
  }
  olg_registry_free(r);
  return 0;
}
