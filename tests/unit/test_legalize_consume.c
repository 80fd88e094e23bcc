/* Tests of olg_legalize_consume: the same bytes as olg_legalize whatever it gives back of the
 * source on the way (long chains, read from bytes or built; subgraphs; caller symbolics and
 * profiles; refusals, whose diagnostics outlive the source; every allocation failure). */
#include <stdlib.h>
#include <unistd.h>

#include "../harness.h"
#include "../lowering_helpers.h"
#include "ir.h" /* the consumed source, at the end of the result's chain of kept models */

static olg_status serialize(const olg_model *m, test_buf *b) {
  memset(b, 0, sizeof *b);
  return olg_model_write_callback(m, test_buf_sink, b, NULL);
}

static olg_value add_node(olg_graph *g, const char *op, olg_value a, olg_value b) {
  olg_node_id n;
  olg_value out = OLG_NO_VALUE;
  if (olg_node_begin(g, "", op, NULL, &n) || olg_node_arg_value(g, n, a) ||
      (b != OLG_NO_VALUE && olg_node_arg_value(g, n, b)) || olg_node_end(g, n, 1, NULL, &out))
    return OLG_NO_VALUE;
  return out;
}

/* x: float[2,8] -> (Add b, Relu, Mul s, Unsqueeze 0, Squeeze 0) * reps, opset 13; with_if: an If
 * on a bool input picks the chain's end or x. NULL when it cannot be built. */
static olg_model *chain_model(int reps, int with_if) {
  static const float w[8] = {0.5f, -1, 2, 0.25f, 1, -0.5f, 3, 0};
  static const int64_t ax[1] = {0};
  olg_model *m;
  if (olg_model_new(&m, NULL)) return NULL;
  olg_graph *g = olg_model_graph(m);
  olg_value x, b, s, a, cur, c, r;
  int64_t dims[2] = {2, 8}, wd[1] = {8}, ad[1] = {1};
  if (olg_model_set_opset(m, "", 13) || olg_graph_add_input(g, "x", OLG_FLOAT, 2, dims, NULL, &x) ||
      olg_graph_add_initializer(g, "b", OLG_FLOAT, 1, wd, w, sizeof w, OLG_DATA_BORROW, NULL, NULL, &b) ||
      olg_graph_add_initializer(g, "s", OLG_FLOAT, 1, wd, w, sizeof w, OLG_DATA_BORROW, NULL, NULL, &s) ||
      olg_graph_add_initializer(g, "ax", OLG_INT64, 1, ad, ax, sizeof ax, OLG_DATA_BORROW, NULL, NULL, &a))
    goto fail;
  cur = x;
  for (int i = 0; i < reps && cur != OLG_NO_VALUE; i++) {
    cur = add_node(g, "Add", cur, b);
    cur = add_node(g, "Relu", cur, OLG_NO_VALUE);
    cur = add_node(g, "Mul", cur, s);
    cur = add_node(g, "Unsqueeze", cur, a);
    cur = add_node(g, "Squeeze", cur, a);
  }
  if (cur == OLG_NO_VALUE) goto fail;
  if (with_if) {
    olg_graph *br[2];
    olg_node_id n;
    if (olg_graph_add_input(g, "c", OLG_BOOL, 0, NULL, NULL, &c)) goto fail;
    for (int k = 0; k < 2; k++) {
      olg_value in, o;
      if (olg_model_new_subgraph(m, &br[k]) || olg_graph_set_name(br[k], k ? "else" : "then") ||
          olg_graph_add_value(br[k], k ? "x" : olg_value_name(g, cur), &in) ||
          (o = add_node(br[k], "Identity", in, OLG_NO_VALUE)) == OLG_NO_VALUE ||
          olg_graph_add_output(br[k], o))
        goto fail;
    }
    if (olg_node_begin(g, "", "If", "pick", &n) || olg_node_arg_value(g, n, c) ||
        olg_node_attr_graph(g, n, "then_branch", br[0]) ||
        olg_node_attr_graph(g, n, "else_branch", br[1]) || olg_node_end(g, n, 1, NULL, &r) ||
        olg_value_set_type(g, r, OLG_FLOAT, 2, dims, NULL))
      goto fail;
    cur = r;
  }
  if (olg_graph_add_output(g, cur)) goto fail;
  return m;
fail:
  olg_model_free(m);
  return NULL;
}

/* make() twice: converted by olg_legalize and by olg_legalize_consume, the bytes compared;
 * released: whether the consumed source (kept at the end of the result's chain) was given back
 * (its records and name map gone) or kept whole. */
static void same_bytes(const char *file, int line, olg_model *(*make)(void *), void *ud,
                       const olg_registry *r, const olg_legalize_options *o, int released) {
  olg_model *src = make(ud), *a = NULL, *b = NULL;
  if (!src) {
    olg_test_fail(file, line, "the source cannot be made");
    return;
  }
  test_buf ba = {0}, bb = {0};
  olg_status s1 = olg_legalize(src, r, o, &a, NULL);
  if (!s1) s1 = serialize(a, &ba);
  olg_model_free(a); /* before src: it borrows src's tensors */
  olg_model_free(src);
  src = make(ud);
  olg_status s2 = src ? olg_legalize_consume(src, r, o, &b, NULL) : OLG_ERR_NOMEM;
  if (!s2) s2 = serialize(b, &bb);
  const olg_model *kept = b;
  while (kept && kept->keep) kept = kept->keep;
  if (!s2 && (kept == b || (kept->graph->n_nodes == 0 && kept->graph->names_dropped) != released))
    olg_test_fail(file, line, "the source was %sgiven back", released ? "not " : "");
  olg_model_free(b);
  if (s1 || s2)
    olg_test_fail(file, line, "olg_legalize: %s, olg_legalize_consume: %s", olg_status_name(s1),
                  olg_status_name(s2));
  else if (ba.n != bb.n || memcmp(ba.p, bb.p, ba.n) != 0)
    olg_test_fail(file, line, "the outputs differ (%zu and %zu bytes)", ba.n, bb.n);
  free(ba.p);
  free(bb.p);
}
#define SAME_BYTES(make, ud, r, o, released) same_bytes(__FILE__, __LINE__, make, ud, r, o, released)

static olg_model *make_chain(void *ud) { return chain_model(*(int *)ud, 0); }
static olg_model *make_chain_if(void *ud) { return chain_model(*(int *)ud, 1); }

/* The chain written at opset 13 to a file and read back: the reader's arrays, sized exactly,
 * the bytes mapped (the model keeps the mapping; the file goes at once). */
static olg_model *make_read(void *ud) {
  olg_model *m = chain_model(*(int *)ud, 0), *back = NULL;
  char path[] = "/tmp/olg_consume_XXXXXX";
  int fd = m ? mkstemp(path) : -1;
  if (fd < 0) {
    olg_model_free(m);
    return NULL;
  }
  close(fd);
  olg_status s = olg_model_write_file(m, path, NULL);
  olg_model_free(m);
  if (!s) s = olg_model_read_file(&back, path, NULL);
  unlink(path);
  return s ? NULL : back;
}

TEST(legalize_consume_same_bytes_as_legalize) {
  olg_registry *r = builtin();
  CHECK(r);
  olg_legalize_options o = OLG_LEGALIZE_OPTIONS_INIT;
  /* 8000 repeats: 40000 nodes, past two release steps of the node records */
  int reps[] = {1, 3, 8000};
  int opsets[] = {17, 11, 21};
  for (size_t i = 0; i < sizeof reps / sizeof *reps; i++)
    for (size_t k = 0; k < sizeof opsets / sizeof *opsets; k++) {
      o.opset = opsets[k];
      SAME_BYTES(make_chain, &reps[i], r, &o, 1);
      SAME_BYTES(make_read, &reps[i], r, &o, 1);
      SAME_BYTES(make_chain_if, &reps[i], r, &o, 0); /* a subgraph looks names up */
    }
  SAME_BYTES(make_chain, &reps[2], r, NULL, 1);
  olg_registry_free(r);
}

static olg_status relu_as_is(olg_lower *cx, olg_node_id src, void *ud) {
  (void)src;
  ++*(int *)ud;
  olg_node_id n;
  olg_value x, y;
  olg_status s = olg_lower_emit_begin(cx, "", "Relu", &n);
  if (!s) s = olg_lower_arg_value(cx, 0, &x);
  if (!s) s = olg_lower_emit_input(cx, n, x);
  if (!s) s = olg_lower_emit_end(cx, n, 1, &y);
  if (!s) s = olg_lower_bind_output(cx, 0, y);
  return s;
}

TEST(legalize_consume_with_caller_symbolic_and_profile) {
  int reps = 5000, calls = 0;
  olg_registry *r = NULL;
  CHECK_OK(olg_registry_new_builtin(&r, NULL));
  CHECK_OK(olg_registry_add(r, "", "Relu", 14, relu_as_is, &calls));
  CHECK_OK(olg_registry_freeze(r));
  olg_legalize_options o = OLG_LEGALIZE_OPTIONS_INIT;
  o.opset = 17;
  SAME_BYTES(make_chain, &reps, r, &o, 0); /* the symbolic may read the source */
  CHECK_EQ(calls, 2 * reps); /* the caller's symbolic saw both conversions */
  olg_profile *p = NULL;
  CHECK_OK(olg_profile_new(&p, "mine", olg_profile_builtin("ort")));
  o.profile_object = p;
  olg_registry *rb = builtin();
  SAME_BYTES(make_chain, &reps, rb, &o, 0); /* the profile may have rewrites of the caller's */
  o.profile_object = olg_profile_builtin("ort");
  SAME_BYTES(make_chain, &reps, rb, &o, 1);
  olg_profile_free(p);
  olg_registry_free(rb);
  olg_registry_free(r);
}

TEST(legalize_consume_refusal_frees_the_source_and_keeps_the_diagnostics) {
  olg_registry *r = builtin();
  int reps = 20000;
  olg_model *m = chain_model(reps, 0), *out = (olg_model *)1;
  CHECK(m != NULL);
  olg_graph *g = olg_model_graph(m);
  olg_node_id n;
  olg_value x;
  CHECK_OK(olg_graph_find_value(g, "x", &x));
  CHECK_OK(olg_node_begin(g, "acme", "Frobnicate", "late.frob", &n));
  CHECK_OK(olg_node_arg_value(g, n, x));
  olg_value y;
  CHECK_OK(olg_node_end(g, n, 1, NULL, &y));
  CHECK_OK(olg_graph_add_output(g, y));
  olg_diags *d;
  CHECK_OK(olg_diags_new(&d, NULL));
  olg_legalize_options o = OLG_LEGALIZE_OPTIONS_INIT;
  o.opset = 17;
  CHECK(olg_legalize_consume(m, r, &o, &out, d) == OLG_ERR_UNSUPPORTED);
  CHECK(out == NULL);
  /* read after the source is gone: the diagnostics hold their own copies */
  CHECK(olg_diags_error_count(d) >= 1);
  int found = 0;
  for (size_t i = 0; i < olg_diags_count(d); i++)
    found |= strcmp(olg_diag_node(d, i), "late.frob") == 0 && strcmp(olg_diag_op(d, i), "Frobnicate") == 0;
  CHECK(found);
  olg_diags_free(d);
  CHECK(olg_legalize_consume(NULL, r, &o, &out, NULL) == OLG_ERR_INVALID_ARG);
  olg_registry_free(r);
}

static olg_status consume_scenario(void *ud, const olg_allocator *a) {
  const olg_registry *r = ud;
  olg_model_options mo = OLG_MODEL_OPTIONS_INIT;
  mo.allocator = a;
  olg_model *m, *out;
  olg_status s = olg_model_new(&m, &mo);
  if (s) return s;
  olg_graph *g = olg_model_graph(m);
  olg_value x, y;
  olg_node_id n;
  int64_t dims[2] = {2, 3};
  if ((s = olg_model_set_opset(m, "", 13)) ||
      (s = olg_graph_add_input(g, "x", OLG_FLOAT, 2, dims, NULL, &x)) ||
      (s = olg_node_begin(g, "", "Relu", "r", &n)) || (s = olg_node_arg_value(g, n, x)) ||
      (s = olg_node_end(g, n, 1, (const char *[]){"y"}, &y)) || (s = olg_graph_add_output(g, y))) {
    olg_model_free(m);
    return s;
  }
  olg_legalize_options o = OLG_LEGALIZE_OPTIONS_INIT;
  o.opset = 17;
  s = olg_legalize_consume(m, r, &o, &out, NULL); /* m is the call's now */
  if (!s) olg_model_free(out);
  return s;
}

TEST(legalize_consume_every_allocation_failure) {
  olg_registry *r = builtin();
  CHECK(r);
  CHECK_FAIL_EACH_ALLOCATION(consume_scenario, r);
  olg_registry_free(r);
}
