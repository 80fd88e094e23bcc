/* Nesting and size limits: one nesting limit for every stage (OLG_MAX_SUBGRAPH_DEPTH, issue 30
 * item 5). If nested that deep through the API checks, infers, converts, writes, reads back and
 * prints; one level deeper (and 100, 10,000 deep) every stage refuses with OLG_ERR_LIMIT and the
 * same words (no stack overflow, also under ASan). A 1,000,000-node chain goes through check,
 * inference and legalize. Speed: bench/nesting.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../harness.h"
#include "../nested_if.h"
#include "ir.h"

/* the words of every stage's refusal, naming the limit */
static bool says_limit(const char *msg) {
  char want[64];
  snprintf(want, sizeof want, "nested more than %d graphs deep", OLG_MAX_SUBGRAPH_DEPTH);
  return strstr(msg, want) != NULL;
}

/* The writer and the text printer: the model at the limit is written, read back and printed;
 * deeper, both refuse with the words of the other stages. */
static void check_write_print(olg_model *m, olg_status want) {
  test_buf b = {0};
  CHECK_EQ(olg_model_write_callback(m, test_buf_sink, &b, NULL), want);
  if (want) CHECK(says_limit(olg_last_error()));
  else {
    olg_model *back = NULL;
    CHECK_OK(olg_model_read_memory(&back, b.p, b.n, NULL));
    olg_model_free(back);
  }
  b.n = 0;
  CHECK_EQ(olg_model_print_text(m, test_buf_sink, &b), want);
  if (want) CHECK(says_limit(olg_last_error()));
  free(b.p);
}

static void check_depth(long depth, olg_status want) {
  olg_model *m = NULL;
  CHECK_OK(nested_if_model(depth, &m));
  olg_diags *d;
  CHECK_OK(olg_diags_new(&d, NULL));
  olg_check_options co = OLG_CHECK_OPTIONS_INIT;
  co.full = 1;
  CHECK_EQ(olg_check(m, &co, d), want);
  if (want) {
    bool named = false; /* the diagnostic names the node whose subgraphs go too deep */
    for (size_t i = 0; i < olg_diags_count(d); i++)
      named = named || (strcmp(olg_diag_code(d, i), "OLG-CHECK-DEPTH") == 0 &&
                        strcmp(olg_diag_op(d, i), "If") == 0 && *olg_diag_node(d, i) &&
                        says_limit(olg_diag_message(d, i)));
    CHECK(named);
  }
  co.full = 0;
  CHECK_EQ(olg_check(m, &co, NULL), want);
  CHECK_EQ(olg_infer_shapes(m, NULL, NULL), want);
  olg_registry *r;
  CHECK_OK(olg_registry_new_builtin(&r, NULL));
  olg_legalize_options lo = OLG_LEGALIZE_OPTIONS_INIT;
  lo.opset = 17;
  olg_model *out = NULL;
  olg_status s = olg_legalize(m, r, &lo, &out, NULL);
  CHECK_EQ(s, want);
  if (want) CHECK(says_limit(olg_last_error()));
  else {
    CHECK_OK(olg_check(out, &co, NULL));
    check_write_print(out, OLG_OK);
  }
  check_write_print(m, want);
  olg_model_free(out);
  olg_registry_free(r);
  olg_diags_free(d);
  olg_model_free(m);
}

TEST(depth_nested_if_10000_refused) { check_depth(10000, OLG_ERR_LIMIT); }
TEST(depth_nested_if_100_refused) { check_depth(100, OLG_ERR_LIMIT); }
TEST(depth_nested_if_past_limit_refused) { check_depth(OLG_MAX_SUBGRAPH_DEPTH + 1, OLG_ERR_LIMIT); }
TEST(depth_nested_if_at_limit_lowered) { check_depth(OLG_MAX_SUBGRAPH_DEPTH, OLG_OK); }
TEST(depth_one_limit_for_every_stage) { CHECK_EQ(OLG_MAX_GRAPH_DEPTH, OLG_MAX_SUBGRAPH_DEPTH); }

TEST(depth_flat_chain_1000000) {
  olg_model *m;
  CHECK_OK(olg_model_new(&m, NULL));
  olg_graph *g = olg_model_graph(m);
  olg_value v;
  CHECK_OK(olg_model_set_opset(m, "", 13));
  CHECK_OK(olg_graph_set_name(g, "chain"));
  CHECK_OK(olg_graph_add_input(g, "x", OLG_FLOAT, 2, (const int64_t[]){2, 3}, NULL, &v));
  for (long k = 0; k < 1000000; k++) {
    olg_node_id n;
    CHECK_OK(olg_node_begin(g, "", "Relu", NULL, &n));
    CHECK_OK(olg_node_arg_value(g, n, v));
    CHECK_OK(olg_node_end(g, n, 1, NULL, &v));
  }
  CHECK_OK(olg_value_set_type(g, v, OLG_FLOAT, 2, (const int64_t[]){2, 3}, NULL));
  CHECK_OK(olg_graph_add_output(g, v));
  olg_check_options co = OLG_CHECK_OPTIONS_INIT;
  co.full = 1;
  CHECK_OK(olg_check(m, &co, NULL));
  CHECK_OK(olg_infer_shapes(m, NULL, NULL));
  olg_registry *r;
  CHECK_OK(olg_registry_new_builtin(&r, NULL));
  olg_legalize_options lo = OLG_LEGALIZE_OPTIONS_INIT;
  lo.opset = 17;
  olg_model *out = NULL;
  CHECK_OK(olg_legalize(m, r, &lo, &out, NULL));
  CHECK_EQ(olg_graph_node_count(olg_model_graph(out)), (size_t)1000000);
  olg_model_free(out);
  olg_registry_free(r);
  olg_model_free(m);
}

/* Linear in the nesting depth, counted rather than timed: the probes of the name maps and memo
 * tables (olg__probes) that check (full), inference and legalize make on If nested 6 and 48 deep
 * (within the nesting limit). Linear work grows 8x from one to the other, quadratic work 64x;
 * the bound allows 12x (legalize measures about 10x at these small depths). */
enum { STAGE_CHECK, STAGE_INFER, STAGE_LEGALIZE };

static void probes_at(long depth, int stage, uint64_t *n) {
  olg_model *m = NULL;
  CHECK_OK(nested_if_model(depth, &m));
  olg_registry *r;
  CHECK_OK(olg_registry_new_builtin(&r, NULL));
  olg_check_options co = OLG_CHECK_OPTIONS_INIT;
  co.full = 1;
  olg_legalize_options lo = OLG_LEGALIZE_OPTIONS_INIT;
  lo.opset = 17;
  olg_model *out = NULL;
  uint64_t before = olg__probes;
  if (stage == STAGE_CHECK) CHECK_OK(olg_check(m, &co, NULL));
  else if (stage == STAGE_INFER) CHECK_OK(olg_infer_shapes(m, NULL, NULL));
  else CHECK_OK(olg_legalize(m, r, &lo, &out, NULL));
  *n = olg__probes - before;
  olg_model_free(out);
  olg_registry_free(r);
  olg_model_free(m);
}

static void check_linear(int stage) {
  uint64_t a = 0, b = 0;
  probes_at(6, stage, &a);
  probes_at(48, stage, &b);
  if (getenv("OLG_PRINT_PROBES") || b > 12 * a)
    fprintf(stderr, "  probes at depth 6: %llu, at 48: %llu\n", (unsigned long long)a,
            (unsigned long long)b);
  CHECK(a > 0);
  CHECK(b <= 12 * a); /* linear: 8x, quadratic: 64x */
}

TEST(depth_linear_work_check) { check_linear(STAGE_CHECK); }
TEST(depth_linear_work_infer) { check_linear(STAGE_INFER); }
TEST(depth_linear_work_legalize) { check_linear(STAGE_LEGALIZE); }
