/* Tests of weight folding (olg_legalize_options.fold_weights, lib/passes/fold.c) from C: an
 * aten conv2d + batch_norm folds into one Conv whose weights and bias are the exact fold
 * (computed here in double), byte-equal initializers merge, nothing folds when the option is
 * off or when the options struct predates the member, and every allocation failure is
 * reported. The numbers of folded models against ONNX Runtime and torch: tests/py/test_fold.py. */
#include <math.h>
#include <stdlib.h>

#include "../harness.h"
#include "../lowering_helpers.h"

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

static const float W[2 * 3] = {0.5f, -1.0f, 2.0f, 0.25f, 1.5f, -0.75f}; /* [2,3,1,1] */
static const float GAMMA[2] = {1.5f, 0.5f}, BETA[2] = {0.25f, -1.0f};
static const float MEAN[2] = {0.1f, -0.3f}, VAR[2] = {2.0f, 0.5f};
static const float SAME_A[2] = {3.0f, 4.0f}, SAME_B[2] = {3.0f, 4.0f};
#define EPS 1e-3

/* x: float[1,3,4,4] -> conv2d(x, W) -> batch_norm (inference) -> y; y + ca + cb -> z, where
 * ca and cb are byte-equal initializers. */
static olg_status fold_model(olg_model **out, const olg_allocator *a) {
  olg_model_options mo = OLG_MODEL_OPTIONS_INIT;
  mo.allocator = a;
  olg_model *m;
  olg_status s = olg_model_new(&m, &mo);
  if (s) return s;
  olg_graph *g = olg_model_graph(m);
  olg_value x, w, ga, be, mu, va, ca, cb, c, y, t, z;
  olg_node_id n;
  const int64_t dims[4] = {1, 3, 4, 4}, wdims[4] = {2, 3, 1, 1}, two = 2;
  const int64_t cdims[4] = {1, 2, 1, 1};
#define INIT(name, arr, rank, d, out) \
  (s = olg_graph_add_initializer(g, name, OLG_FLOAT, rank, d, arr, sizeof arr, OLG_DATA_BORROW, \
                                 NULL, NULL, out))
  if ((s = olg_graph_add_input(g, "x", OLG_FLOAT, 4, dims, NULL, &x)) ||
      INIT("w", W, 4, wdims, &w) || INIT("gamma", GAMMA, 1, &two, &ga) ||
      INIT("beta", BETA, 1, &two, &be) || INIT("mean", MEAN, 1, &two, &mu) ||
      INIT("var", VAR, 1, &two, &va) || INIT("ca", SAME_A, 4, cdims, &ca) ||
      INIT("cb", SAME_B, 4, cdims, &cb) ||
      NODE("conv2d", "conv") || VAL(x) || VAL(w) || NONE || INTS(1, 1) || INTS(0, 0) ||
      INTS(1, 1) || INT(1) || END(1, &c) ||
      NODE("batch_norm", "bn") || VAL(c) || VAL(ga) || VAL(be) || VAL(mu) || VAL(va) ||
      BOOL(0) || FLT(0.1) || FLT(EPS) || BOOL(1) || END(1, &y) ||
      NODE("add", "add_a") || VAL(y) || VAL(ca) || INT(1) || END(1, &t) ||
      NODE("add", "add_b") || VAL(t) || VAL(cb) || INT(1) || END(1, &z) ||
      (s = olg_graph_add_output(g, z))) {
    olg_model_free(m);
    return s;
  }
#undef INIT
  *out = m;
  return OLG_OK;
}

static olg_status legalize_fold(const olg_model *src, const olg_registry *r, int fold,
                                size_t size, const olg_allocator *a, olg_model **out) {
  olg_legalize_options o = OLG_LEGALIZE_OPTIONS_INIT;
  o.opset = 13;
  o.fold_weights = fold;
  o.allocator = a;
  if (size) o.size = size;
  return olg_legalize(src, r, &o, out, NULL);
}

TEST(fold_batchnorm_into_conv_exactly_and_merge_equal_initializers) {
  olg_registry *r = builtin();
  CHECK(r);
  olg_model *src, *out;
  CHECK_OK(fold_model(&src, NULL));
  CHECK_OK(legalize_fold(src, r, 1, 0, NULL, &out));
  const olg_graph *g = olg_model_graph_const(out);
  CHECK_EQ(count_op(g, "BatchNormalization"), 0);
  CHECK_EQ(count_op(g, "Conv"), 1);
  CHECK_EQ(count_op(g, "Add"), 2);
  /* the folded weights and bias: 2 initializers, and ca/cb merged into one */
  CHECK_EQ(olg_graph_initializer_count(g), 3);
  olg_node_id conv = 0;
  for (size_t i = 0; i < olg_graph_node_count(g); i++)
    if (strcmp(olg_node_op(g, (olg_node_id)i), "Conv") == 0) conv = (olg_node_id)i;
  CHECK_EQ(olg_node_input_count(g, conv), 3);
  const void *wd, *bd;
  size_t wn, bn;
  CHECK_OK(olg_value_data(g, olg_node_input_at(g, conv, 1), &wd, &wn));
  CHECK_OK(olg_value_data(g, olg_node_input_at(g, conv, 2), &bd, &bn));
  CHECK_EQ(wn, sizeof W);
  CHECK_EQ(bn, 2 * sizeof(float));
  for (int c = 0; c < 2; c++) {
    double sc = (double)GAMMA[c] / sqrt((double)VAR[c] + EPS);
    for (int k = 0; k < 3; k++) CHECK(((const float *)wd)[c * 3 + k] == (float)(W[c * 3 + k] * sc));
    CHECK(((const float *)bd)[c] == (float)(BETA[c] - MEAN[c] * sc));
  }
  /* both Adds read the same constant */
  olg_value first = OLG_NO_VALUE;
  for (size_t i = 0; i < olg_graph_node_count(g); i++) {
    if (strcmp(olg_node_op(g, (olg_node_id)i), "Add")) continue;
    olg_value v = olg_node_input_at(g, (olg_node_id)i, 1);
    if (first == OLG_NO_VALUE) first = v;
    CHECK_EQ(v, first);
  }
  CHECK_OK(olg_check(out, NULL, NULL));
  olg_model_free(out);
  /* off, or a struct from before the member (its size stops short of it): nothing folded */
  CHECK_OK(legalize_fold(src, r, 0, 0, NULL, &out));
  CHECK_EQ(count_op(olg_model_graph_const(out), "BatchNormalization"), 1);
  olg_model_free(out);
  CHECK_OK(legalize_fold(src, r, 1, offsetof(olg_legalize_options, fold_weights), NULL, &out));
  CHECK_EQ(count_op(olg_model_graph_const(out), "BatchNormalization"), 1);
  olg_model_free(out);
  /* the heap options' setter */
  olg_legalize_options *ho;
  CHECK_OK(olg_legalize_options_new(&ho));
  CHECK_OK(olg_legalize_options_set_opset(ho, 13));
  CHECK_OK(olg_legalize_options_set_fold_weights(ho, 1));
  CHECK_OK(olg_legalize(src, r, ho, &out, NULL));
  CHECK_EQ(count_op(olg_model_graph_const(out), "BatchNormalization"), 0);
  olg_model_free(out);
  olg_legalize_options_free(ho);
  CHECK_STATUS(olg_legalize_options_set_fold_weights(NULL, 1), OLG_ERR_INVALID_ARG);
  olg_model_free(src);
  olg_registry_free(r);
}

static olg_status fold_scenario(void *ud, const olg_allocator *a) {
  olg_model *src, *out;
  olg_status s = fold_model(&src, a);
  if (s) return s;
  s = legalize_fold(src, ud, 1, 0, a, &out);
  if (!s) olg_model_free(out);
  olg_model_free(src);
  return s;
}

TEST(fold_every_allocation_failure) {
  olg_registry *r = builtin();
  CHECK(r);
  CHECK_FAIL_EACH_ALLOCATION(fold_scenario, r);
  olg_registry_free(r);
}
