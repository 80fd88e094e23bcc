/* Tests of the convolution, pooling and normalization symbolics (symbolics/conv.c, pool.c,
 * norm.c) from C: one source graph exercising the decompositions (adaptive pooling to 3x5,
 * per-cell indices, avg_pool ceil_mode factors, group_norm, even-size LRN, col2im, pixel_shuffle,
 * im2col, layer/rms norm) legalizes and checks at every opset from 7 to 27, survives every
 * allocation failure, and refusals name the opset that works. The numbers are checked against
 * PyTorch by tests/numeric/cases_{conv,pool,norm}.py. */
#include <stdlib.h>

#include "../harness.h"
#include "../lowering_helpers.h"

static const float WEIGHT[4 * 4 * 3 * 3] = {0.5f, -0.25f, 1.0f}; /* the rest zero */

/* Adds aten::<op> with the args pushed by the caller between begin and end. */
#define NODE(op, name) (s = olg_node_begin(g, "aten", op, name, &n))
#define VAL(v) (s = olg_node_arg_value(g, n, v))
#define INTS(...) \
  (s = olg_node_arg_ints(g, n, (const int64_t[]){__VA_ARGS__}, \
                         sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t)))
#define INT(v) (s = olg_node_arg_int(g, n, v))
#define FLT(v) (s = olg_node_arg_float(g, n, v))
#define BOOL(v) (s = olg_node_arg_bool(g, n, v))
#define NONE (s = olg_node_arg_none(g, n))
#define END(k, outs) (s = olg_node_end(g, n, k, NULL, outs))

/* x: float[1,4,7,11] (dynamic batch when dyn) through a chain of family ops; every result is a
 * graph output. */
static olg_status family_model(olg_model **out, const olg_allocator *a, int dyn) {
  olg_model_options mo = OLG_MODEL_OPTIONS_INIT;
  mo.allocator = a;
  olg_model *m;
  olg_status s = olg_model_new(&m, &mo);
  if (s) return s;
  olg_graph *g = olg_model_graph(m);
  olg_value x, w, c, o[2], outs[32];
  size_t no = 0;
  olg_node_id n;
  const int64_t dims[4] = {dyn ? OLG_DIM_UNKNOWN : 1, 4, 7, 11}, wdims[4] = {4, 4, 3, 3};
  const char *params[4] = {"N", NULL, NULL, NULL};
  if ((s = olg_graph_add_input(g, "x", OLG_FLOAT, 4, dims, dyn ? params : NULL, &x)) ||
      (s = olg_graph_add_initializer(g, "w", OLG_FLOAT, 4, wdims, WEIGHT, sizeof WEIGHT,
                                     OLG_DATA_BORROW, NULL, NULL, &w)) ||
      /* conv2d(x, w, None, 1, 'same', 1, 1) */
      NODE("conv2d", "conv") || VAL(x) || VAL(w) || NONE || INTS(1, 1) ||
      (s = olg_node_arg_string(g, n, "same")) || INTS(1, 1) || INT(1) || END(1, &c) ||
      NODE("adaptive_avg_pool2d", "aap") || VAL(c) || INTS(3, 5) || END(1, &outs[no++]) ||
      NODE("adaptive_max_pool2d", "amp") || VAL(c) || INTS(3, 5) || END(2, o) ||
      ((outs[no++] = o[0]), (outs[no++] = o[1]), 0) ||
      NODE("avg_pool2d", "ap") || VAL(c) || INTS(3, 3) || INTS(2, 2) || INTS(1, 1) || BOOL(1) ||
      BOOL(1) || NONE || END(1, &outs[no++]) ||
      NODE("max_pool2d", "mp") || VAL(c) || INTS(2, 2) || INTS(2, 2) || INTS(1, 0) ||
      INTS(1, 1) || BOOL(1) || END(1, &outs[no++]) ||
      NODE("group_norm", "gn") || VAL(c) || INT(2) || NONE || NONE || FLT(1e-5) || BOOL(1) ||
      END(1, &outs[no++]) ||
      NODE("local_response_norm", "lrn") || VAL(c) || INT(4) || FLT(1e-4) || FLT(0.75) ||
      FLT(1.0) || END(1, &outs[no++]) ||
      NODE("native_layer_norm", "ln") || VAL(c) || INTS(11) || NONE || NONE || FLT(1e-5) ||
      END(3, &outs[no]) || ((no += 3), 0) ||
      NODE("rms_norm", "rms") || VAL(c) || INTS(7, 11) || NONE || NONE || END(1, &outs[no++]) ||
      NODE("pixel_shuffle", "ps") || VAL(c) || INT(2) || END(1, &outs[no++]) ||
      NODE("im2col", "i2c") || VAL(c) || INTS(2, 2) || INTS(1, 1) || INTS(0, 0) || INTS(1, 1) ||
      END(1, &o[0]) ||
      /* col2im(im2col(c)) sums every element as often as blocks cover it */
      NODE("col2im", "c2i") || VAL(o[0]) || INTS(7, 11) || INTS(2, 2) || INTS(1, 1) ||
      INTS(0, 0) || INTS(1, 1) || END(1, &outs[no++]) ||
      NODE("batch_norm", "bn") || VAL(c) || NONE || NONE || NONE || NONE || BOOL(1) ||
      FLT(0.1) || FLT(1e-5) || BOOL(1) || END(1, &outs[no++])) {
    olg_model_free(m);
    return s;
  }
  for (size_t i = 0; i < no; i++)
    if ((s = olg_graph_add_output(g, outs[i]))) {
      olg_model_free(m);
      return s;
    }
  *out = m;
  return OLG_OK;
}

static olg_status legalize_at(const olg_model *src, const olg_registry *r, int opset, int decomp,
                              olg_model **out, olg_diags *d) {
  olg_legalize_options o = OLG_LEGALIZE_OPTIONS_INIT;
  o.opset = opset;
  o.no_decompositions = !decomp;
  return olg_legalize(src, r, &o, out, d);
}

TEST(family_legalizes_and_checks_at_every_opset) {
  olg_registry *r = builtin();
  CHECK(r);
  for (int dyn = 0; dyn <= 1; dyn++) {
    olg_model *src, *out;
    CHECK_OK(family_model(&src, NULL, dyn));
    for (int opset = 7; opset <= 27; opset++) {
      olg_diags *d;
      CHECK_OK(olg_diags_new(&d, NULL));
      olg_status s = legalize_at(src, r, opset, 1, &out, d);
      if (s) {
        for (size_t i = 0; i < olg_diags_count(d); i++)
          fprintf(stderr, "  opset %d: %s\n", opset, olg_diag_message(d, i));
      }
      CHECK_OK(s);
      olg_diags_clear(d);
      s = olg_check(out, NULL, d);
      if (s)
        for (size_t i = 0; i < olg_diags_count(d); i++)
          fprintf(stderr, "  check at %d: %s\n", opset, olg_diag_message(d, i));
      CHECK_OK(s);
      const olg_graph *g = olg_model_graph_const(out);
      CHECK_EQ(olg_graph_output_count(g), 14);
      /* the native ops from the opsets that have them, the decompositions below */
      CHECK_EQ(count_op(g, "LayerNormalization"), opset >= 17);
      CHECK_EQ(count_op(g, "GroupNormalization"), opset >= 21);
      CHECK_EQ(count_op(g, "RMSNormalization"), opset >= 23);
      CHECK_EQ(count_op(g, "Col2Im"), opset >= 18);
      CHECK_EQ(count_op(g, "DepthToSpace"), opset >= 11);
      CHECK_EQ(count_op(g, "InstanceNormalization"), opset < 21);
      CHECK(count_op(g, "ArgMax") == 15); /* the 3x5 cells of adaptive_max_pool's indices */
      CHECK(count_op(g, "MatMul") == 2);  /* 7x11 -> 3x5: one averaging MatMul per axis */
      olg_model_free(out);
      olg_diags_free(d);
    }
    olg_model_free(src);
  }
  olg_registry_free(r);
}

static olg_status family_scenario(void *ud, const olg_allocator *a) {
  const olg_registry *r = ud;
  olg_model *src, *out;
  olg_status s = family_model(&src, a, 1);
  if (s) return s;
  olg_diags *dg;
  s = olg_diags_new(&dg, a);
  for (int opset = 9; !s && opset <= 23; opset += 14) {
    olg_legalize_options o = OLG_LEGALIZE_OPTIONS_INIT;
    o.opset = opset;
    o.allocator = a;
    s = olg_legalize(src, r, &o, &out, dg);
    if (!s) olg_model_free(out);
  }
  if (dg) olg_diags_free(dg);
  olg_model_free(src);
  return s;
}

TEST(family_every_allocation_failure) {
  olg_registry *r = builtin();
  CHECK(r);
  CHECK_FAIL_EACH_ALLOCATION(family_scenario, r);
  olg_registry_free(r);
}

/* One node, its diagnostics: refused at `opset` with a message naming `lowest`. */
static void expect_refusal(const olg_model *src, const olg_registry *r, int opset, int decomp,
                           const char *needle) {
  olg_model *out = NULL;
  olg_diags *d;
  CHECK_OK(olg_diags_new(&d, NULL));
  CHECK_STATUS(legalize_at(src, r, opset, decomp, &out, d), OLG_ERR_UNSUPPORTED);
  CHECK(out == NULL);
  int found = 0;
  for (size_t i = 0; i < olg_diags_count(d); i++)
    found = found || strstr(olg_diag_message(d, i), needle) != NULL;
  if (!found)
    for (size_t i = 0; i < olg_diags_count(d); i++)
      fprintf(stderr, "  %s\n", olg_diag_message(d, i));
  CHECK(found);
  olg_diags_free(d);
}

/* max_pool2d(x, [2,2], [1,1], [0,0], dilation) and max_pool2d_with_indices, x of a height
 * unknown at export time (below opsets 10 and 8 only known sizes decompose). */
static olg_status pool_model(olg_model **out, const char *op, int64_t dilation, int n_out) {
  olg_model *m;
  olg_status s = olg_model_new(&m, NULL);
  if (s) return s;
  olg_graph *g = olg_model_graph(m);
  olg_value x, y[2];
  olg_node_id n;
  const int64_t dims[4] = {1, 2, OLG_DIM_UNKNOWN, 6};
  const char *params[4] = {NULL, NULL, "H", NULL};
  if ((s = olg_graph_add_input(g, "x", OLG_FLOAT, 4, dims, params, &x)) || NODE(op, "p") ||
      VAL(x) || INTS(2, 2) || INTS(1, 1) || INTS(0, 0) || INTS(dilation, dilation) ||
      BOOL(0) || END((size_t)n_out, y) || (s = olg_graph_add_output(g, y[0])) ||
      (n_out == 2 && (s = olg_graph_add_output(g, y[1])))) {
    olg_model_free(m);
    return s;
  }
  *out = m;
  return OLG_OK;
}

TEST(family_refusals_name_the_opset_that_works) {
  olg_registry *r = builtin();
  CHECK(r);
  olg_model *m;
  CHECK_OK(pool_model(&m, "max_pool2d", 2, 1));
  expect_refusal(m, r, 9, 1,
                 "max_pool with dilation on a spatial size unknown at export time is not "
                 "supported at opset 9; it needs opset >= 10");
  olg_model_free(m);
  CHECK_OK(pool_model(&m, "max_pool2d_with_indices", 1, 2));
  expect_refusal(m, r, 7, 1, "max_pool with indices on a spatial size unknown at export time is "
                             "not supported at opset 7; it needs opset >= 8");
  olg_model_free(m);
  /* decompositions turned off: the native opsets are named */
  CHECK_OK(family_model(&m, NULL, 0));
  expect_refusal(m, r, 16, 0, "native from opset 17");   /* layer_norm */
  expect_refusal(m, r, 20, 0, "native from opset 21");   /* group_norm */
  expect_refusal(m, r, 13, 0, "native from opset 18");   /* col2im */
  expect_refusal(m, r, 26, 0, "adaptive_avg_pool to a size that does not divide");
  olg_model_free(m);
  olg_registry_free(r);
}

/* adaptive pooling to an output_size near INT64_MAX (or from a huge input): the bins' bounds
 * (o + 1) * in, their count and the averaging matrix in x out passed int64 or size_t. Refused
 * (OLG_ERR_LIMIT) past 2^20 along an axis, and a matrix past 2^24 values. */
TEST(adaptive_pool_huge_sizes_refused) {
  olg_registry *r = builtin();
  CHECK(r);
  static const struct { const char *op; int64_t in, out; } c[] = {
      {"adaptive_avg_pool2d", 7, INT64_MAX}, {"adaptive_max_pool2d", 7, (int64_t)1 << 40},
      {"adaptive_avg_pool2d", (int64_t)1 << 33, 3}, {"adaptive_avg_pool2d", 99999, 99998}};
  for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
    olg_model *m, *out = NULL;
    CHECK_OK(olg_model_new(&m, NULL));
    olg_graph *g = olg_model_graph(m);
    olg_value x, y[2];
    olg_node_id n;
    olg_status s;
    CHECK_OK(olg_graph_add_input(g, "x", OLG_FLOAT, 4, (const int64_t[]){1, 1, 5, c[i].in}, NULL, &x));
    CHECK_OK(NODE(c[i].op, "ap"));
    CHECK_OK(VAL(x));
    CHECK_OK(INTS(5, c[i].out));
    CHECK_OK(END(strstr(c[i].op, "max") ? 2 : 1, y));
    CHECK_OK(olg_graph_add_output(g, y[0]));
    olg_diags *d;
    CHECK_OK(olg_diags_new(&d, NULL));
    CHECK(legalize_at(m, r, 13, 1, &out, d) != OLG_OK);
    int found = 0;
    for (size_t k = 0; k < olg_diags_count(d); k++)
      found |= strstr(olg_diag_message(d, k), "past 2^") != NULL;
    CHECK(found);
    olg_diags_free(d);
    olg_model_free(m);
  }
  olg_registry_free(r);
}

/* im2col with a padding or dilation near INT64_MAX: the block count passed int64; and blocks
 * whose index grid would pass 2^24 values. Refused. */
TEST(im2col_huge_arguments_refused) {
  olg_registry *r = builtin();
  CHECK(r);
  static const int64_t args[][4] = {/* kernel, dilation, padding, stride of both axes */
                                    {2, INT64_MAX / 2, 0, 1}, {2, 1, INT64_MAX / 2, 1},
                                    {1 << 13, 1, 1 << 20, 1}};
  for (size_t i = 0; i < sizeof args / sizeof *args; i++) {
    olg_model *m, *out = NULL;
    CHECK_OK(olg_model_new(&m, NULL));
    olg_graph *g = olg_model_graph(m);
    olg_value x, y;
    olg_node_id n;
    olg_status s;
    CHECK_OK(olg_graph_add_input(g, "x", OLG_FLOAT, 4, (const int64_t[]){1, 1, 8, 8}, NULL, &x));
    CHECK_OK(NODE("im2col", "i2c"));
    CHECK_OK(VAL(x));
    for (int a = 0; a < 4; a++) CHECK_OK(INTS(args[i][a], args[i][a]));
    CHECK_OK(END(1, &y));
    CHECK_OK(olg_graph_add_output(g, y));
    olg_diags *d;
    CHECK_OK(olg_diags_new(&d, NULL));
    CHECK(legalize_at(m, r, 13, 1, &out, d) != OLG_OK);
    int found = 0;
    for (size_t k = 0; k < olg_diags_count(d); k++)
      found |= strstr(olg_diag_message(d, k), "overflow int64") != NULL ||
               strstr(olg_diag_message(d, k), "past 2^24") != NULL;
    CHECK(found);
    olg_diags_free(d);
    olg_model_free(m);
  }
  olg_registry_free(r);
}

/* conv2d with padding='same' and a dilation near INT64_MAX (or below 1): the total padding
 * dilation * (kernel - 1) passed int64 (or came out negative). Refused. */
TEST(conv_same_huge_dilation_refused) {
  olg_registry *r = builtin();
  CHECK(r);
  static const int64_t dil[] = {INT64_MAX / 2 + 1, -3};
  for (size_t i = 0; i < sizeof dil / sizeof *dil; i++) {
    olg_model *m, *out = NULL;
    CHECK_OK(olg_model_new(&m, NULL));
    olg_graph *g = olg_model_graph(m);
    olg_value x, w, y;
    olg_node_id n;
    olg_status s;
    CHECK_OK(olg_graph_add_input(g, "x", OLG_FLOAT, 4, (const int64_t[]){1, 4, 8, 8}, NULL, &x));
    CHECK_OK(olg_graph_add_input(g, "w", OLG_FLOAT, 4, (const int64_t[]){4, 4, 3, 3}, NULL, &w));
    CHECK_OK(NODE("conv2d", "conv"));
    CHECK_OK(VAL(x));
    CHECK_OK(VAL(w));
    CHECK_OK(NONE);
    CHECK_OK(INTS(1, 1));
    CHECK_OK(olg_node_arg_string(g, n, "same"));
    CHECK_OK(INTS(dil[i], 1));
    CHECK_OK(INT(1));
    CHECK_OK(END(1, &y));
    CHECK_OK(olg_graph_add_output(g, y));
    olg_diags *d;
    CHECK_OK(olg_diags_new(&d, NULL));
    CHECK(legalize_at(m, r, 13, 1, &out, d) != OLG_OK);
    int found = 0;
    for (size_t k = 0; k < olg_diags_count(d); k++)
      found |= strstr(olg_diag_message(d, k), "is out of range") != NULL;
    CHECK(found);
    olg_diags_free(d);
    olg_model_free(m);
  }
  olg_registry_free(r);
}
