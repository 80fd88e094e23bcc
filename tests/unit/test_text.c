/* The text and Graphviz printers. */
#include <stdlib.h>

#include "../harness.h"

typedef struct membuf {
  char *p;
  size_t n, cap;
  long calls, fail_at; /* fail the fail_at-th call (1-based; 0 never) */
} membuf;

static int mem_write(void *ud, const void *data, size_t n) {
  membuf *b = ud;
  if (++b->calls == b->fail_at) return 1;
  if (b->n + n + 1 > b->cap) {
    size_t nc = (b->n + n + 1) * 2;
    char *q = realloc(b->p, nc);
    if (!q) return 1;
    b->p = q;
    b->cap = nc;
  }
  memcpy(b->p + b->n, data, n);
  b->n += n;
  b->p[b->n] = 0;
  return 0;
}

/* x[N,3] -> Add(w) -> Transpose<perm> -> If(cond){then: Identity, else: Neg} -> y; plus an
 * aten source node with literal arguments. */
static olg_status build(olg_model *m) {
  static const float w[6] = {1, 2.5f, -3, 4e-5f, 5, 6};
  olg_graph *g = olg_model_graph(m), *then_g, *else_g;
  olg_status s;
  olg_value x, wv, c, t, tt, y, r, o1, o2, a;
  olg_node_id n;
  const int64_t dims[2] = {OLG_DIM_UNKNOWN, 3}, wd[2] = {2, 3};
  const char *params[2] = {"N", NULL};
  const int64_t perm[2] = {1, 0}, lit[2] = {1, 2};
  const double fl[2] = {0.5, 2};
  if ((s = olg_model_set_opset(m, "", 17)) || (s = olg_model_set_opset(m, "com.microsoft", 1))) return s;
  if ((s = olg_model_set_string(m, OLG_MODEL_PRODUCER_NAME, "test \"q\""))) return s;
  if ((s = olg_graph_set_name(g, "main"))) return s;
  if ((s = olg_graph_add_input(g, "x", OLG_FLOAT, 2, dims, params, &x))) return s;
  if ((s = olg_graph_add_input(g, "cond", OLG_BOOL, 0, NULL, NULL, &c))) return s;
  if ((s = olg_graph_add_initializer(g, "w", OLG_FLOAT, 2, wd, w, sizeof w, OLG_DATA_BORROW, NULL, NULL, &wv))) return s;
  if ((s = olg_node_begin(g, "", "Add", NULL, &n)) || (s = olg_node_arg_value(g, n, x)) ||
      (s = olg_node_arg_value(g, n, wv)) || (s = olg_node_end(g, n, 1, (const char *[]){"t"}, &t)))
    return s;
  if ((s = olg_node_begin(g, "", "Transpose", "tr.0", &n)) || (s = olg_node_arg_value(g, n, t)) ||
      (s = olg_node_attr_ints(g, n, "perm", perm, 2)) || (s = olg_node_end(g, n, 1, (const char *[]){"tt"}, &tt)))
    return s;
  if ((s = olg_model_new_subgraph(m, &then_g)) || (s = olg_model_new_subgraph(m, &else_g))) return s;
  if ((s = olg_graph_set_name(then_g, "then_g"))) return s;
  /* a branch reads the outer "tt" through a value of its own with that name */
  olg_value cap;
  if ((s = olg_graph_add_value(then_g, "tt", &cap))) return s;
  if ((s = olg_node_begin(then_g, "", "Identity", NULL, &n))) return s;
  if ((s = olg_node_arg_value(then_g, n, cap)) || (s = olg_node_end(then_g, n, 1, (const char *[]){"o1"}, &o1)))
    return s;
  if ((s = olg_value_set_type(then_g, o1, OLG_FLOAT, 2, (const int64_t[]){3, OLG_DIM_UNKNOWN}, (const char *[]){NULL, "N"})))
    return s;
  if ((s = olg_graph_add_output(then_g, o1))) return s;
  if ((s = olg_graph_add_value(else_g, "tt", &cap))) return s;
  if ((s = olg_node_begin(else_g, "", "Neg", NULL, &n)) || (s = olg_node_arg_value(else_g, n, cap)) ||
      (s = olg_node_end(else_g, n, 1, (const char *[]){"o2"}, &o2)) || (s = olg_graph_add_output(else_g, o2)))
    return s;
  if ((s = olg_node_begin(g, "", "If", NULL, &n)) || (s = olg_node_arg_value(g, n, c)) ||
      (s = olg_node_attr_graph(g, n, "then_branch", then_g)) ||
      (s = olg_node_attr_graph(g, n, "else_branch", else_g)) ||
      (s = olg_node_end(g, n, 1, (const char *[]){"r"}, &r)))
    return s;
  if ((s = olg_node_begin(g, "com.microsoft", "Foo", NULL, &n)) || (s = olg_node_arg_value(g, n, r)) ||
      (s = olg_node_arg_none(g, n)) || (s = olg_node_arg_value(g, n, x)) ||
      (s = olg_node_attr_float(g, n, "alpha", 1.0f)) || (s = olg_node_attr_string(g, n, "mode", "a\"b\\c")) ||
      (s = olg_node_attr_tensor(g, n, "value", OLG_INT64, 1, (const int64_t[]){2}, lit, sizeof lit)) ||
      (s = olg_node_end(g, n, 1, (const char *[]){"y"}, &y)))
    return s;
  if ((s = olg_node_begin(g, "aten", "foo", "mod.sub", &n)) || (s = olg_node_arg_value(g, n, y)) ||
      (s = olg_node_arg_none(g, n)) || (s = olg_node_arg_int(g, n, -3)) || (s = olg_node_arg_bool(g, n, 1)) ||
      (s = olg_node_arg_float(g, n, 2)) || (s = olg_node_arg_string(g, n, "mean")) ||
      (s = olg_node_arg_ints(g, n, lit, 2)) || (s = olg_node_arg_floats(g, n, fl, 2)) ||
      (s = olg_node_arg_values(g, n, (const olg_value[]){x, OLG_NO_VALUE}, 2)) ||
      (s = olg_node_end(g, n, 1, (const char *[]){"a"}, &a)))
    return s;
  if ((s = olg_graph_add_output(g, y)) || (s = olg_graph_add_output(g, a))) return s;
  return OLG_OK;
}

TEST(print_text_shows_every_part) {
  olg_model *m;
  CHECK_OK(olg_model_new(&m, NULL));
  CHECK_OK(build(m));
  membuf b = {0};
  CHECK_OK(olg_model_print_text(m, mem_write, &b));
  const char *want[] = {
    "ir_version: 8", "opset_import: [\"\" : 17, \"com.microsoft\" : 1]",
    "producer_name: \"test \\\"q\\\"\"",
    "main (float[N,3] x, bool cond) => (y, a)",
    "float[2,3] w = {1, 2.5, -3, 3.9999999e-05, 5, 6}",
    "t = Add (x, w)",
    "[\"tr.0\"] tt = Transpose <perm = [1, 0]> (t)",
    "r = If <then_branch = then_g () => (float[3,N] o1)",
    "o1 = Identity (tt)",
    "else_branch = else_branch () => (o2)",
    "y = com.microsoft.Foo <alpha = 1.0, mode = \"a\\\"b\\\\c\", value = int64[2] {1, 2}> (r,, x)",
    "[\"mod.sub\"] a = aten.foo (y, none, -3, true, 2.0, \"mean\", [1, 2], [0.5, 2.0], [x, none])",
  };
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
    if (!strstr(b.p, want[i])) {
      olg_test_fail(__FILE__, __LINE__, "missing <%s> in:\n%s", want[i], b.p);
      break;
    }
  free(b.p);
  olg_model_free(m);
}

TEST(print_dot_escapes_and_links) {
  olg_model *m;
  CHECK_OK(olg_model_new(&m, NULL));
  CHECK_OK(build(m));
  olg_graph *g = olg_model_graph(m);
  olg_value q;
  olg_node_id n;
  /* a name with a quote, a backslash, a newline and a stray non-UTF-8 byte */
  CHECK_OK(olg_graph_add_input(g, "we\"ird\\na\nme\xff", OLG_FLOAT, OLG_RANK_UNKNOWN, NULL, NULL, &q));
  CHECK_OK(olg_node_begin(g, "", "Relu", NULL, &n));
  CHECK_OK(olg_node_arg_value(g, n, q));
  CHECK_OK(olg_node_end(g, n, 1, NULL, NULL));
  membuf b = {0};
  CHECK_OK(olg_model_print_dot(m, mem_write, &b));
  CHECK(strncmp(b.p, "digraph \"main\" {", 16) == 0);
  CHECK(strstr(b.p, "label=\"we\\\"ird\\\\na\\nme?\\nfloat[]\"") != NULL);
  CHECK(strstr(b.p, "label=\"com.microsoft.Foo\"") != NULL);
  CHECK(strstr(b.p, "label=\"If\\nsubgraphs: then_branch, else_branch\"") != NULL);
  CHECK(strstr(b.p, "-> n1 [label=\"t\"]") != NULL);
  CHECK(strstr(b.p, "in0 -> n0 [label=\"x\\nfloat[N,3]\"]") != NULL);
  free(b.p);
  olg_model_free(m);
}

/* A model against itself: every node kept, nothing removed; the arguments are checked. */
TEST(print_dot_diff_of_a_model_against_itself) {
  olg_model *m;
  CHECK_OK(olg_model_new(&m, NULL));
  CHECK_OK(build(m));
  membuf b = {0};
  CHECK_OK(olg_model_print_dot_diff(m, m, mem_write, &b));
  CHECK(strncmp(b.p, "digraph \"main\" {", 16) == 0);
  CHECK(strstr(b.p, "label=\"5 kept, 0 rewritten, 0 added, 0 removed\"") != NULL);
  CHECK(strstr(b.p, "cluster_removed") == NULL);
  CHECK(strstr(b.p, "fillcolor=\"#eeeeee\", label=\"Transpose\\ntr.0\"") != NULL);
  free(b.p);
  membuf d = {0};
  d.fail_at = 1;
  CHECK_STATUS(olg_model_print_dot_diff(m, m, mem_write, &d), OLG_ERR_CALLBACK);
  free(d.p);
  CHECK_STATUS(olg_model_print_dot_diff(NULL, m, mem_write, &b), OLG_ERR_INVALID_ARG);
  CHECK_STATUS(olg_model_print_dot_diff(m, NULL, mem_write, &b), OLG_ERR_INVALID_ARG);
  CHECK_STATUS(olg_model_print_dot_diff(m, m, NULL, NULL), OLG_ERR_INVALID_ARG);
  olg_model_free(m);
}

TEST(print_callback_failure_is_reported) {
  olg_model *m;
  CHECK_OK(olg_model_new(&m, NULL));
  CHECK_OK(build(m));
  membuf b = {0};
  b.fail_at = 1;
  CHECK_STATUS(olg_model_print_text(m, mem_write, &b), OLG_ERR_CALLBACK);
  CHECK(strstr(olg_last_error(), "olg_model_print_text") != NULL);
  membuf d = {0};
  d.fail_at = 1;
  CHECK_STATUS(olg_model_print_dot(m, mem_write, &d), OLG_ERR_CALLBACK);
  CHECK_STATUS(olg_model_print_text(NULL, mem_write, &b), OLG_ERR_INVALID_ARG);
  CHECK_STATUS(olg_model_print_dot(m, NULL, NULL), OLG_ERR_INVALID_ARG);
  free(b.p);
  free(d.p);
  olg_model_free(m);
}

static int discard(void *ud, const void *data, size_t n) {
  (void)ud; (void)data; (void)n;
  return 0;
}

static olg_status print_scenario(void *ud, const olg_allocator *a) {
  (void)ud;
  olg_model_options o = OLG_MODEL_OPTIONS_INIT;
  o.allocator = a;
  olg_model *m;
  olg_status s = olg_model_new(&m, &o);
  if (s) return s;
  if (!(s = build(m)) && !(s = olg_model_print_text(m, discard, NULL)) &&
      !(s = olg_model_print_dot(m, discard, NULL)))
    s = olg_model_print_dot_diff(m, m, discard, NULL);
  olg_model_free(m);
  return s;
}

TEST(print_fails_cleanly_on_each_allocation) {
  CHECK_FAIL_EACH_ALLOCATION(print_scenario, NULL);
}

/* A large tensor streams through many callback calls and every element arrives. */
TEST(print_text_streams_large_data) {
  olg_model *m;
  CHECK_OK(olg_model_new(&m, NULL));
  enum { N = 20000 };
  int32_t *data = malloc(N * sizeof *data);
  CHECK(data != NULL);
  for (int i = 0; i < N; i++) data[i] = i - 7;
  CHECK_OK(olg_model_set_opset(m, "", 17));
  CHECK_OK(olg_graph_add_initializer(olg_model_graph(m), "big", OLG_INT32, 1, (const int64_t[]){N}, data,
                                     N * sizeof *data, OLG_DATA_BORROW, NULL, NULL, NULL));
  membuf b = {0};
  CHECK_OK(olg_model_print_text(m, mem_write, &b));
  CHECK(b.calls > 10);
  CHECK(strstr(b.p, "int32[20000] big = {-7, -6, -5,") != NULL);
  CHECK(strstr(b.p, ", 19991, 19992}") != NULL);
  free(b.p);
  free(data);
  olg_model_free(m);
}

/* The heap write options (for bindings): defaults, copied strings, clearing. */
TEST(write_options_on_the_heap) {
  olg_write_options *o;
  CHECK_OK(olg_write_options_new(&o));
  CHECK_EQ(o->size, sizeof(olg_write_options));
  CHECK_EQ(o->external_data_threshold, 1024);
  CHECK(o->external_data == NULL && o->external_data_dir == NULL);
  char name[16] = "w.bin";
  CHECK_OK(olg_write_options_set_external_data(o, name, 77));
  name[0] = 'X'; /* the options hold a copy */
  CHECK_STR(o->external_data, "w.bin");
  CHECK_EQ(o->external_data_threshold, 77);
  CHECK_OK(olg_write_options_set_external_data_dir(o, "/tmp"));
  CHECK_STR(o->external_data_dir, "/tmp");
  CHECK_OK(olg_write_options_set_external_data(o, NULL, 5));
  CHECK(o->external_data == NULL);
  CHECK_STATUS(olg_write_options_set_external_data(NULL, "a", 1), OLG_ERR_INVALID_ARG);
  CHECK_STATUS(olg_write_options_new(NULL), OLG_ERR_INVALID_ARG);
  olg_write_options_free(o);
  olg_write_options_free(NULL);
}
