/* The validator (olg_check): every diagnostic code on a graph built through the C API. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "../harness.h"
#include "infer.h"
#include "ir.h"

/* ---- small builders ---- */

static olg_model *new_model(int64_t opset) {
  olg_model *m = NULL;
  if (olg_model_new(&m, NULL)) return NULL;
  if (olg_model_set_opset(m, "", opset) || olg_graph_set_name(olg_model_graph(m), "g")) {
    olg_model_free(m);
    return NULL;
  }
  return m;
}

static olg_value input(olg_graph *g, const char *name, olg_dtype dt, int32_t rank, const int64_t *dims) {
  olg_value v = OLG_NO_VALUE;
  olg_graph_add_input(g, name, dt, rank, dims, NULL, &v);
  return v;
}

/* op(domain "") with the given inputs and one output named out (NULL: generated). */
static olg_node_id node(olg_graph *g, const char *op, int nin, const olg_value *in, const char *out,
                        olg_value *res) {
  olg_node_id n = -1;
  if (olg_node_begin(g, "", op, op, &n)) return -1;
  for (int i = 0; i < nin; i++)
    if (olg_node_arg_value(g, n, in[i])) return -1;
  const char *names[1] = {out};
  if (olg_node_end(g, n, 1, names, res)) return -1;
  return n;
}

/* Runs olg_check; returns the status and leaves the diagnostics in *d (caller frees). */
static olg_status run_check(olg_model *m, int full, olg_diags **d) {
  olg_check_options o = OLG_CHECK_OPTIONS_INIT;
  o.full = full;
  if (olg_diags_new(d, NULL)) return OLG_ERR_NOMEM;
  return olg_check(m, &o, *d);
}

/* The index of the first diagnostic with this code, or -1. */
static long find_code(const olg_diags *d, const char *code) {
  for (size_t i = 0; i < olg_diags_count(d); i++)
    if (strcmp(olg_diag_code(d, i), code) == 0) return (long)i;
  return -1;
}

static int msg_has(const char *msg, const char *frag) { return !frag || strstr(msg, frag) != NULL; }

/* Asserts that the check fails with `code` among its errors and that the message holds `frag`. */
#define EXPECT_CODE(m, full, code, frag)                                                    \
  do {                                                                                      \
    olg_diags *d_ = NULL;                                                                   \
    olg_status s__ = run_check((m), (full), &d_);                                           \
    long at_ = find_code(d_, (code));                                                       \
    if (s__ != OLG_ERR_INVALID_MODEL || at_ < 0 ||                                          \
        !msg_has(olg_diag_message(d_, (size_t)at_), (frag))) {                              \
      olg_test_fail(__FILE__, __LINE__, "wanted %s with \"%s\"; got %s, %zu diagnostics%s%s", \
                    (code), (frag) ? (frag) : "", olg_status_name(s__), olg_diags_count(d_),  \
                    olg_diags_count(d_) ? ", first: " : "",                                 \
                    olg_diags_count(d_) ? olg_diag_message(d_, 0) : "");                    \
      olg_diags_free(d_);                                                                   \
      olg_model_free(m);                                                                    \
      return;                                                                               \
    }                                                                                       \
    olg_diags_free(d_);                                                                     \
  } while (0)

#define EXPECT_VALID(m, full)                                                               \
  do {                                                                                      \
    olg_diags *d_ = NULL;                                                                   \
    olg_status s__ = run_check((m), (full), &d_);                                           \
    if (s__ != OLG_OK) {                                                                    \
      olg_test_fail(__FILE__, __LINE__, "wanted a valid model; got %s: %s", olg_status_name(s__), \
                    olg_diags_count(d_) ? olg_diag_message(d_, 0) : olg_last_error());      \
      olg_diags_free(d_);                                                                   \
      olg_model_free(m);                                                                    \
      return;                                                                               \
    }                                                                                       \
    olg_diags_free(d_);                                                                     \
  } while (0)

static const int64_t d23[2] = {2, 3};

/* x[2,3] -> Relu -> y (typed output) */
static olg_model *relu_model(int64_t opset) {
  olg_model *m = new_model(opset);
  if (!m) return NULL;
  olg_graph *g = olg_model_graph(m);
  olg_value x = input(g, "x", OLG_FLOAT, 2, d23), y;
  if (node(g, "Relu", 1, &x, "y", &y) < 0 || olg_value_set_type(g, y, OLG_FLOAT, 2, d23, NULL) ||
      olg_graph_add_output(g, y)) {
    olg_model_free(m);
    return NULL;
  }
  return m;
}

TEST(check_valid_model) {
  olg_model *m = relu_model(14);
  CHECK(m != NULL);
  EXPECT_VALID(m, 0);
  EXPECT_VALID(m, 1);
  /* without a diagnostics list, the verdict alone */
  CHECK_OK(olg_check(m, NULL, NULL));
  olg_model_free(m);
}

TEST(check_options_init) {
  olg_check_options a = OLG_CHECK_OPTIONS_INIT, b;
  memset(&b, 0x5a, sizeof b);
  olg_check_options_init(&b);
  CHECK_EQ(a.size, sizeof a);
  CHECK_EQ(b.size, sizeof b);
  CHECK_EQ(a.full, b.full);
  CHECK_EQ(a.allow_unlowered, b.allow_unlowered);
  CHECK_EQ(a.max_errors, b.max_errors);
  CHECK_EQ(a.notes, b.notes);
  CHECK_EQ(a.notes, 1);
  olg_check_options bad = {0};
  CHECK_STATUS(olg_check(NULL, NULL, NULL), OLG_ERR_INVALID_ARG);
  olg_model *m = relu_model(14);
  CHECK_STATUS(olg_check(m, &bad, NULL), OLG_ERR_INVALID_ARG);
  olg_model_free(m);
}

TEST(check_graph_name_and_io_types) {
  olg_model *m = relu_model(14);
  CHECK_OK(olg_graph_set_name(olg_model_graph(m), ""));
  EXPECT_CODE(m, 0, "OLG-CHECK-GRAPH-NAME", "no name");
  olg_model_free(m);

  m = relu_model(14);
  olg_graph *g = olg_model_graph(m);
  olg_value y;
  CHECK_OK(olg_graph_find_value(g, "y", &y));
  g->values[y].type = (olg_type){0};
  EXPECT_CODE(m, 0, "OLG-CHECK-GRAPH-IO-TYPE", "'y'");
  olg_model_free(m);

  m = relu_model(14);
  g = olg_model_graph(m);
  CHECK_OK(olg_graph_find_value(g, "y", &y));
  CHECK_OK(olg_value_set_type(g, y, OLG_FLOAT, OLG_RANK_UNKNOWN, NULL, NULL));
  EXPECT_CODE(m, 0, "OLG-CHECK-GRAPH-IO-TYPE", "no shape");
  olg_model_free(m);
}

TEST(check_ir_and_opsets) {
  olg_model *m = relu_model(14);
  m->ir_version = 0;
  EXPECT_CODE(m, 0, "OLG-CHECK-IR-VERSION", "no ir_version");
  m->ir_version = OLG_IR_VERSION_LATEST + 1;
  EXPECT_CODE(m, 0, "OLG-CHECK-IR-VERSION", "newer");
  olg_model_free(m);

  m = relu_model(14);
  CHECK_OK(olg_model_set_opset(m, "", 99));
  EXPECT_CODE(m, 0, "OLG-CHECK-OPSET-VERSION", "does not exist");
  olg_model_free(m);

  /* an IR older than the one released with the opset: a warning naming the IR to set (onnx's
     checker and ONNX Runtime accept it), an error with strict */
  m = relu_model(14);
  CHECK_OK(olg_model_set_ir_version(m, 6));
  olg_diags *d;
  CHECK_OK(run_check(m, 0, &d));
  long at = find_code(d, "OLG-CHECK-IR-OLD");
  CHECK(at >= 0);
  CHECK_EQ(olg_diag_severity(d, (size_t)at), OLG_WARNING);
  CHECK(strstr(olg_diag_message(d, (size_t)at), "set ir_version to 7") != NULL);
  CHECK_EQ(find_code(d, "OLG-CHECK-IR-VERSION"), -1);
  olg_diags_free(d);
  olg_check_options o = OLG_CHECK_OPTIONS_INIT;
  o.strict = 1;
  CHECK_OK(olg_diags_new(&d, NULL));
  CHECK_STATUS(olg_check(m, &o, d), OLG_ERR_INVALID_MODEL);
  CHECK_EQ(olg_diags_count(d), 1);
  CHECK_STR(olg_diag_code(d, 0), "OLG-CHECK-IR-OLD");
  CHECK_EQ(olg_diag_severity(d, 0), OLG_ERROR);
  olg_diags_free(d);
  /* a caller built before strict existed (a struct that ends at notes): the default, lenient */
  olg_check_options old = OLG_CHECK_OPTIONS_INIT;
  old.strict = 1; /* beyond the size the caller declares: not read */
  old.size = offsetof(olg_check_options, strict);
  CHECK_OK(olg_check(m, &old, NULL));
  olg_model_free(m);

  m = relu_model(14);
  m->n_opsets = 0;
  EXPECT_CODE(m, 0, "OLG-CHECK-OPSET-MISSING", NULL);
  olg_model_free(m);
}

TEST(check_op_unknown_and_removed) {
  olg_model *m = new_model(15);
  olg_graph *g = olg_model_graph(m);
  olg_value x = input(g, "x", OLG_FLOAT, 4, (const int64_t[]){1, 1, 2, 2}), y, grid;
  grid = input(g, "grid", OLG_FLOAT, 4, (const int64_t[]){1, 2, 2, 2});
  CHECK(node(g, "GridSample", 2, (olg_value[]){x, grid}, "y", &y) >= 0);
  EXPECT_CODE(m, 0, "OLG-CHECK-OP-UNKNOWN", "introduced in opset 16");
  olg_model_free(m);

  m = new_model(14);
  g = olg_model_graph(m);
  x = input(g, "x", OLG_FLOAT, 1, (const int64_t[]){3});
  CHECK(node(g, "Frobnicate", 1, &x, "y", &y) >= 0);
  EXPECT_CODE(m, 0, "OLG-CHECK-OP-UNKNOWN", "no operator 'Frobnicate'");
  olg_model_free(m);

  m = new_model(11);
  g = olg_model_graph(m);
  x = input(g, "x", OLG_FLOAT, 4, (const int64_t[]){1, 1, 2, 2});
  olg_value sc = input(g, "scales", OLG_FLOAT, 1, (const int64_t[]){4});
  CHECK(node(g, "Upsample", 2, (olg_value[]){x, sc}, "y", &y) >= 0);
  EXPECT_CODE(m, 0, "OLG-CHECK-OP-REMOVED", "use Resize");
  olg_model_free(m);
}

/* x[2,3,4] -> op <attr = v> -> y, at the opset */
static olg_model *axis_model(int64_t opset, const char *op, const char *attr, int64_t v, bool ints,
                             const int64_t *ydims) {
  olg_model *m = new_model(opset);
  if (!m) return NULL;
  olg_graph *g = olg_model_graph(m);
  olg_value x = input(g, "x", OLG_FLOAT, 3, (const int64_t[]){2, 3, 4}), y;
  olg_node_id n;
  const char *names[1] = {"y"};
  if (olg_node_begin(g, "", op, "n0", &n) || olg_node_arg_value(g, n, x) ||
      (ints ? olg_node_attr_ints(g, n, attr, &v, 1) : olg_node_attr_int(g, n, attr, v)) ||
      olg_node_end(g, n, 1, names, &y) || olg_value_set_type(g, y, OLG_FLOAT, 3, ydims, NULL) ||
      olg_graph_add_output(g, y)) {
    olg_model_free(m);
    return NULL;
  }
  return m;
}

TEST(check_negative_axis_before_11) {
  /* LogSoftmax-1 at opset 6 with axis -1: a warning (onnx's checker and ONNX Runtime accept it)
     naming node, op, opset and the fix; an error with strict; fine at 11 */
  olg_model *m = axis_model(6, "LogSoftmax", "axis", -1, false, (const int64_t[]){2, 3, 4});
  CHECK(m != NULL);
  olg_diags *d;
  for (int full = 0; full <= 1; full++) {
    CHECK_OK(run_check(m, full, &d));
    long at = find_code(d, "OLG-CHECK-AXIS-NEGATIVE");
    CHECK(at >= 0);
    CHECK_EQ(olg_diag_severity(d, (size_t)at), OLG_WARNING);
    CHECK_STR(olg_diag_node(d, (size_t)at), "n0");
    CHECK_STR(olg_diag_op(d, (size_t)at), "LogSoftmax");
    CHECK_EQ(olg_diag_opset(d, (size_t)at), 6);
    CHECK(strstr(olg_diag_message(d, (size_t)at),
                 "the axis -1 needs opset >= 11 at this op (LogSoftmax-11); write it as rank-1") != NULL);
    CHECK_EQ(find_code(d, "OLG-CHECK-ATTR-VALUE"), -1);
    olg_diags_free(d);
  }
  olg_check_options o = OLG_CHECK_OPTIONS_INIT;
  CHECK_OK(olg_check_options_set_strict(&o, 1));
  CHECK_EQ(o.strict, 1);
  CHECK_OK(olg_diags_new(&d, NULL));
  CHECK_STATUS(olg_check(m, &o, d), OLG_ERR_INVALID_MODEL);
  CHECK_EQ(olg_diags_count(d), 1);
  CHECK_STR(olg_diag_code(d, 0), "OLG-CHECK-AXIS-NEGATIVE");
  CHECK_EQ(olg_diag_severity(d, 0), OLG_ERROR);
  olg_diags_free(d);
  CHECK_STATUS(olg_check_options_set_strict(NULL, 1), OLG_ERR_INVALID_ARG);
  olg_model_free(m);

  /* axes of a Reduce op, -2 */
  m = axis_model(9, "ReduceSum", "axes", -2, true, (const int64_t[]){2, 1, 4});
  CHECK(m != NULL);
  CHECK_OK(run_check(m, 1, &d));
  long at = find_code(d, "OLG-CHECK-AXIS-NEGATIVE");
  CHECK(at >= 0 && strstr(olg_diag_message(d, (size_t)at), "write it as rank-2") != NULL);
  olg_diags_free(d);
  olg_model_free(m);

  /* from 11 a negative axis is the spec's: nothing said */
  m = axis_model(11, "LogSoftmax", "axis", -1, false, (const int64_t[]){2, 3, 4});
  CHECK(m != NULL);
  CHECK_OK(run_check(m, 1, &d));
  CHECK_EQ(find_code(d, "OLG-CHECK-AXIS-NEGATIVE"), -1);
  olg_diags_free(d);
  olg_model_free(m);
}

TEST(check_attributes) {
  /* Squeeze-13 takes axes as an input */
  olg_model *m = new_model(13);
  olg_graph *g = olg_model_graph(m);
  olg_value x = input(g, "x", OLG_FLOAT, 2, (const int64_t[]){1, 3}), y;
  olg_node_id n = node(g, "Squeeze", 1, &x, "y", &y);
  CHECK(n >= 0);
  g->nodes[n].state = OLG_NODE_OPEN; /* reopen to add the attribute */
  CHECK_OK(olg_node_attr_ints(g, n, "axes", (const int64_t[]){0}, 1));
  g->nodes[n].state = OLG_NODE_DONE;
  EXPECT_CODE(m, 0, "OLG-CHECK-ATTR-UNKNOWN", "attribute 'axes' of Squeeze-13 is not allowed: since opset 13 axes is an input");
  olg_model_free(m);

  /* wrong type, missing required */
  m = new_model(13);
  g = olg_model_graph(m);
  x = input(g, "x", OLG_FLOAT, 1, (const int64_t[]){3});
  CHECK_OK(olg_node_begin(g, "", "Concat", "cat", &n));
  CHECK_OK(olg_node_arg_value(g, n, x));
  CHECK_OK(olg_node_attr_float(g, n, "axis", 0.0f));
  CHECK_OK(olg_node_end(g, n, 1, NULL, NULL));
  EXPECT_CODE(m, 0, "OLG-CHECK-ATTR-TYPE", "attribute 'axis' of Concat-13 has type FLOAT; it must be INT");
  olg_model_free(m);

  m = new_model(13);
  g = olg_model_graph(m);
  x = input(g, "x", OLG_FLOAT, 1, (const int64_t[]){3});
  CHECK(node(g, "Concat", 1, &x, "y", &y) >= 0);
  EXPECT_CODE(m, 0, "OLG-CHECK-ATTR-MISSING", "requires attribute 'axis' (INT)");
  olg_model_free(m);

  /* an attribute added in a later version of the op */
  m = new_model(12);
  g = olg_model_graph(m);
  x = input(g, "x", OLG_FLOAT, 1, (const int64_t[]){3});
  CHECK_OK(olg_node_begin(g, "", "Shape", "sh", &n));
  CHECK_OK(olg_node_arg_value(g, n, x));
  CHECK_OK(olg_node_attr_int(g, n, "start", 1));
  CHECK_OK(olg_node_end(g, n, 1, NULL, NULL));
  EXPECT_CODE(m, 0, "OLG-CHECK-ATTR-UNKNOWN", "added in Shape-15");
  olg_model_free(m);

  /* internal symbols (__x) are not checked */
  m = relu_model(14);
  g = olg_model_graph(m);
  g->nodes[0].state = OLG_NODE_OPEN;
  CHECK_OK(olg_node_attr_int(g, 0, "__debug", 1));
  g->nodes[0].state = OLG_NODE_DONE;
  EXPECT_VALID(m, 0);
  olg_model_free(m);
}

TEST(check_arity) {
  olg_model *m = new_model(14);
  olg_graph *g = olg_model_graph(m);
  olg_value x = input(g, "x", OLG_FLOAT, 1, (const int64_t[]){3}), y;
  CHECK(node(g, "Add", 1, &x, "y", &y) >= 0);
  EXPECT_CODE(m, 0, "OLG-CHECK-INPUT-COUNT", "Add-14 takes 2 inputs; this node has 1");
  olg_model_free(m);

  m = new_model(14);
  g = olg_model_graph(m);
  x = input(g, "x", OLG_FLOAT, 1, (const int64_t[]){3});
  olg_node_id n;
  CHECK_OK(olg_node_begin(g, "", "Add", "add", &n));
  CHECK_OK(olg_node_arg_none(g, n));
  CHECK_OK(olg_node_arg_value(g, n, x));
  CHECK_OK(olg_node_end(g, n, 1, NULL, NULL));
  EXPECT_CODE(m, 0, "OLG-CHECK-INPUT-MISSING", "input 0 'A' of Add-14 is required");
  olg_model_free(m);

  m = new_model(14);
  g = olg_model_graph(m);
  x = input(g, "x", OLG_FLOAT, 1, (const int64_t[]){3});
  CHECK_OK(olg_node_begin(g, "", "Relu", "r", &n));
  CHECK_OK(olg_node_arg_value(g, n, x));
  CHECK_OK(olg_node_end(g, n, 2, NULL, NULL));
  EXPECT_CODE(m, 0, "OLG-CHECK-OUTPUT-COUNT", NULL);
  olg_model_free(m);

  m = new_model(14);
  g = olg_model_graph(m);
  CHECK_OK(olg_node_begin(g, "", "Relu", "r", &n));
  CHECK_OK(olg_node_end(g, n, 0, NULL, NULL));
  EXPECT_CODE(m, 0, "OLG-CHECK-NODE-EMPTY", NULL);
  olg_model_free(m);
}

TEST(check_type_constraints) {
  olg_model *m = new_model(14);
  olg_graph *g = olg_model_graph(m);
  olg_value a = input(g, "a", OLG_FLOAT, 1, (const int64_t[]){3});
  olg_value b = input(g, "b", OLG_INT64, 1, (const int64_t[]){3}), y;
  CHECK(node(g, "Add", 2, (olg_value[]){a, b}, "y", &y) >= 0);
  EXPECT_CODE(m, 0, "OLG-CHECK-TYPE-MISMATCH", "input 0 'a' (float) and input 1 'b' (int64) of Add-14 are both bound to T");
  olg_model_free(m);

  m = new_model(14);
  g = olg_model_graph(m);
  a = input(g, "a", OLG_STRING, 1, (const int64_t[]){3});
  CHECK(node(g, "Abs", 1, &a, "y", &y) >= 0);
  EXPECT_CODE(m, 0, "OLG-CHECK-TYPE-CONSTRAINT", "input 0 'a' of Abs-13 is string; type constraint T allows");
  olg_model_free(m);

  /* an integer Constant before opset 9: the node itself fixes its output type */
  m = new_model(8);
  g = olg_model_graph(m);
  olg_node_id n;
  const int64_t one = 1, dim1 = 1;
  CHECK_OK(olg_node_begin(g, "", "Constant", "c", &n));
  CHECK_OK(olg_node_attr_tensor(g, n, "value", OLG_INT64, 1, &dim1, &one, sizeof one));
  CHECK_OK(olg_node_end(g, n, 1, NULL, NULL));
  EXPECT_CODE(m, 0, "OLG-CHECK-TYPE-CONSTRAINT", "int64 is allowed from Constant-9 (opset >= 9)");
  olg_model_free(m);
}

TEST(check_names) {
  /* used before its producer */
  olg_model *m = new_model(14);
  olg_graph *g = olg_model_graph(m);
  olg_value x = input(g, "x", OLG_FLOAT, 1, (const int64_t[]){3}), t, y;
  CHECK_OK(olg_graph_add_value(g, "t", &t));
  CHECK(node(g, "Relu", 1, &t, "y", &y) >= 0);
  olg_node_id n;
  CHECK_OK(olg_node_begin(g, "", "Neg", "neg", &n));
  CHECK_OK(olg_node_arg_value(g, n, x));
  CHECK_OK(olg_node_end_with(g, n, 1, &t));
  EXPECT_CODE(m, 0, "OLG-CHECK-NAME-ORDER", "'t' is used before node 'neg' (Neg) defines it");
  olg_model_free(m);

  /* never defined */
  m = new_model(14);
  g = olg_model_graph(m);
  CHECK_OK(olg_graph_add_value(g, "ghost", &t));
  CHECK(node(g, "Relu", 1, &t, "y", &y) >= 0);
  EXPECT_CODE(m, 0, "OLG-CHECK-NAME-UNDEFINED", "'ghost'");
  olg_model_free(m);

  /* graph output never produced */
  m = new_model(14);
  g = olg_model_graph(m);
  CHECK_OK(olg_graph_add_value(g, "out", &t));
  CHECK_OK(olg_value_set_type(g, t, OLG_FLOAT, 0, NULL, NULL));
  CHECK_OK(olg_graph_add_output(g, t));
  EXPECT_CODE(m, 0, "OLG-CHECK-NAME-UNDEFINED", "output 'out'");
  olg_model_free(m);

  /* defined twice (as a reader keeps it) */
  m = relu_model(14);
  g = olg_model_graph(m);
  CHECK_OK(olg_node_begin(g, "", "Neg", "neg2", &n));
  CHECK_OK(olg_graph_find_value(g, "x", &x));
  CHECK_OK(olg_node_arg_value(g, n, x));
  CHECK_OK(olg__graph_add_value(g, "y", true, &t));
  CHECK_OK(olg_node_end_with(g, n, 1, &t));
  EXPECT_CODE(m, 0, "OLG-CHECK-NAME-DUPLICATE", "'y' is defined twice");
  olg_model_free(m);
}

/* Makes input x of the main graph also an initializer: float data of dims [2, d[1]] (at most 8
 * elements), whatever x's declared type says (the builder API would refuse a mismatch). */
static olg_status attach_initializer(olg_model *m, olg_value x, const int64_t d[2], const float *data) {
  olg_graph *g = olg_model_graph(m);
  olg_tensor *t;
  olg_status s = olg__tensor_new(m, "x", OLG_FLOAT, 2, d, data, (size_t)(d[0] * d[1]) * sizeof *data,
                                 OLG_DATA_COPY, NULL, NULL, &t);
  if (!s) s = olg__value_set_known(m, &g->values[x], t);
  if (!s) s = olg__grow(&m->alloc, (void **)&g->inits, &g->cap_inits, g->n_inits + 1, sizeof *g->inits);
  if (s) return s;
  g->values[x].flags |= OLG_VF_INITIALIZER;
  g->values[x].init = (int32_t)g->n_inits;
  g->inits[g->n_inits++] = (struct olg_init){x, t};
  return OLG_OK;
}

TEST(check_initializers) {
  olg_model *m = relu_model(14);
  olg_graph *g = olg_model_graph(m);
  const float w[3] = {1, 2, 3};
  olg_value v, y;
  CHECK_OK(olg_graph_add_initializer(g, "w", OLG_FLOAT, 1, (const int64_t[]){3}, w, sizeof w,
                                     OLG_DATA_COPY, NULL, NULL, &v));
  CHECK(node(g, "Neg", 1, &v, "nw", &y) >= 0);
  EXPECT_VALID(m, 1);
  /* IR 3: an initializer must also be an input */
  CHECK_OK(olg_model_set_ir_version(m, 3));
  CHECK_OK(olg_model_set_opset(m, "", 8));
  EXPECT_CODE(m, 0, "OLG-CHECK-INIT-NOT-INPUT", "'w'");
  olg_model_free(m);

  /* an input whose initializer disagrees with its declaration */
  m = relu_model(14);
  g = olg_model_graph(m);
  olg_value x;
  CHECK_OK(olg_graph_find_value(g, "x", &x));
  float w8[8] = {0};
  CHECK_OK(attach_initializer(m, x, (const int64_t[]){2, 4}, w8));
  EXPECT_CODE(m, 0, "OLG-CHECK-INIT-TYPE", "initializer has shape [2,4]");
  olg_model_free(m);

  /* the same with an initializer smaller than its input declares, checked in full: inference
     does not compute with contents that do not fit the input's shape (it read past their end) */
  m = new_model(14);
  g = olg_model_graph(m);
  x = input(g, "x", OLG_FLOAT, 2, (const int64_t[]){2, 42});
  CHECK(node(g, "Neg", 1, &x, "y", &y) >= 0);
  CHECK_OK(olg_graph_add_output(g, y));
  CHECK_OK(attach_initializer(m, x, (const int64_t[]){2, 2}, w8));
  EXPECT_CODE(m, 1, "OLG-CHECK-INIT-TYPE", "initializer has shape [2,2]");
  olg_model_free(m);
}

TEST(check_domains_and_source_nodes) {
  olg_model *m = relu_model(14);
  olg_graph *g = olg_model_graph(m);
  olg_value x, y;
  olg_node_id n;
  CHECK_OK(olg_graph_find_value(g, "x", &x));
  CHECK_OK(olg_node_begin(g, "com.example", "Foo", "foo", &n));
  CHECK_OK(olg_node_arg_value(g, n, x));
  CHECK_OK(olg_node_end(g, n, 1, NULL, &y));
  EXPECT_CODE(m, 0, "OLG-CHECK-DOMAIN-UNDECLARED", "com.example is not imported");
  CHECK_OK(olg_model_set_opset(m, "com.example", 1));
  EXPECT_VALID(m, 0); /* a declared custom domain passes */
  EXPECT_VALID(m, 1);
  olg_model_free(m);

  m = relu_model(14);
  g = olg_model_graph(m);
  CHECK_OK(olg_graph_find_value(g, "x", &x));
  CHECK_OK(olg_node_begin(g, "aten", "softmax", "layer.softmax", &n));
  CHECK_OK(olg_node_arg_value(g, n, x));
  CHECK_OK(olg_node_arg_int(g, n, -1));
  CHECK_OK(olg_node_arg_none(g, n));
  CHECK_OK(olg_node_end(g, n, 1, NULL, &y));
  EXPECT_CODE(m, 0, "OLG-CHECK-NOT-LOWERED", "aten::softmax is a source-framework node with literal positional arguments");
  olg_check_options o = OLG_CHECK_OPTIONS_INIT;
  o.allow_unlowered = 1;
  olg_diags *d;
  CHECK_OK(olg_diags_new(&d, NULL));
  CHECK_OK(olg_check(m, &o, d));
  CHECK_EQ(olg_diag_severity(d, (size_t)find_code(d, "OLG-CHECK-NOT-LOWERED")), OLG_WARNING);
  CHECK_STR(olg_diag_node(d, (size_t)find_code(d, "OLG-CHECK-NOT-LOWERED")), "layer.softmax");
  olg_diags_free(d);
  olg_model_free(m);
}

/* If with branches that read outer values */
static olg_model *if_model(int late_capture, const char *captured) {
  olg_model *m = new_model(14);
  olg_graph *g = olg_model_graph(m), *th, *el;
  olg_value x = input(g, "x", OLG_FLOAT, 1, (const int64_t[]){3});
  olg_value c = input(g, "c", OLG_BOOL, 0, NULL), nx, r, cap, o;
  if (!late_capture && node(g, "Neg", 1, &x, "nx", &nx) < 0) return NULL;
  if (olg_model_new_subgraph(m, &th) || olg_model_new_subgraph(m, &el)) return NULL;
  olg_graph_set_name(th, "then");
  olg_graph_set_name(el, "else");
  olg_graph *br[2] = {th, el};
  for (int k = 0; k < 2; k++) {
    if (olg_graph_add_value(br[k], k ? "x" : captured, &cap)) return NULL;
    if (node(br[k], "Identity", 1, &cap, k ? "oe" : "ot", &o) < 0) return NULL;
    if (olg_graph_add_output(br[k], o)) return NULL;
  }
  olg_node_id n;
  if (olg_node_begin(g, "", "If", "if", &n) || olg_node_arg_value(g, n, c) ||
      olg_node_attr_graph(g, n, "then_branch", th) || olg_node_attr_graph(g, n, "else_branch", el) ||
      olg_node_end(g, n, 1, (const char *[]){"r"}, &r))
    return NULL;
  if (late_capture && node(g, "Neg", 1, &x, "nx", &nx) < 0) return NULL;
  if (olg_value_set_type(g, r, OLG_FLOAT, 1, (const int64_t[]){3}, NULL) || olg_graph_add_output(g, r))
    return NULL;
  return m;
}

TEST(check_subgraphs) {
  olg_model *m = if_model(0, "nx");
  CHECK(m != NULL);
  EXPECT_VALID(m, 0);
  EXPECT_VALID(m, 1);
  /* full mode inferred the branches and the If output, then put everything back */
  olg_graph *g = olg_model_graph(m);
  olg_value nx;
  CHECK_OK(olg_graph_find_value(g, "nx", &nx));
  CHECK_EQ(g->values[nx].type.kind, OLG_TYPE_NONE);
  olg_model_free(m);

  m = if_model(0, "nowhere");
  EXPECT_CODE(m, 0, "OLG-CHECK-OUTER-UNDEFINED", "'nowhere' is defined neither in subgraph 'then' nor in any enclosing graph");
  olg_model_free(m);

  m = if_model(1, "nx");
  EXPECT_CODE(m, 0, "OLG-CHECK-OUTER-UNDEFINED", "follows the node that owns the subgraph");
  olg_model_free(m);

  /* branch output counts must match the node's */
  m = if_model(0, "nx");
  g = olg_model_graph(m);
  olg_graph *th = g->nodes[1].attrs[0].g;
  olg_value extra;
  CHECK_OK(olg_graph_find_value(th, "ot", &extra));
  th->outputs.n = 0;
  EXPECT_CODE(m, 0, "OLG-CHECK-SUBGRAPH", "then_branch of If-13 has 0 outputs but the node has 1");
  olg_model_free(m);

  /* a branch's node output named as a value of the main graph defined before the If (SSA across
     scopes): optimized builds missed it, reading the scope's limit before the entry set it */
  m = if_model(0, "x");
  g = olg_model_graph(m);
  th = g->nodes[1].attrs[0].g;
  CHECK_OK(olg_graph_find_value(th, "ot", &extra));
  CHECK_OK(olg__value_rename(th, extra, "nx"));
  for (int full = 0; full < 2; full++)
    EXPECT_CODE(m, full, "OLG-CHECK-NAME-DUPLICATE",
                "output 0 'nx' of subgraph 'then' reuses a name of an enclosing graph");
  olg_model_free(m);
}

TEST(check_full_mode_reports_contradictions) {
  olg_model *m = relu_model(14);
  olg_graph *g = olg_model_graph(m);
  olg_value y;
  CHECK_OK(olg_graph_find_value(g, "y", &y));
  CHECK_OK(olg_value_set_type(g, y, OLG_FLOAT, 2, (const int64_t[]){2, 4}, NULL));
  EXPECT_VALID(m, 0); /* the light check does not infer */
  EXPECT_CODE(m, 1, "OLG-INFER-MISMATCH", "output 'y': inferred float[2,3], but it is declared float[2,4]");
  /* the declared type is still there afterwards */
  CHECK_EQ(g->values[y].type.dims[1].value, 4);
  olg_model_free(m);

  m = new_model(14);
  g = olg_model_graph(m);
  olg_value a = input(g, "a", OLG_FLOAT, 1, (const int64_t[]){3});
  olg_value b = input(g, "b", OLG_FLOAT, 1, (const int64_t[]){4});
  CHECK(node(g, "Add", 2, (olg_value[]){a, b}, "y", &y) >= 0);
  CHECK_OK(olg_value_set_type(g, y, OLG_FLOAT, 1, (const int64_t[]){3}, NULL));
  CHECK_OK(olg_graph_add_output(g, y));
  EXPECT_CODE(m, 1, "OLG-INFER-INVALID", "shapes do not broadcast: dim 0 is 3 in one input and 4 in the other");
  olg_model_free(m);
}

TEST(check_reports_every_error_and_max_errors) {
  olg_model *m = new_model(14);
  olg_graph *g = olg_model_graph(m);
  olg_value x = input(g, "x", OLG_FLOAT, 1, (const int64_t[]){3}), y;
  for (int i = 0; i < 5; i++) CHECK(node(g, "Add", 1, &x, NULL, &y) >= 0);
  olg_diags *d;
  CHECK_STATUS(run_check(m, 0, &d), OLG_ERR_INVALID_MODEL);
  CHECK_EQ(olg_diags_error_count(d), 5);
  olg_diags_free(d);
  olg_check_options o = OLG_CHECK_OPTIONS_INIT;
  o.max_errors = 2;
  CHECK_OK(olg_diags_new(&d, NULL));
  CHECK_STATUS(olg_check(m, &o, d), OLG_ERR_INVALID_MODEL);
  CHECK_EQ(olg_diags_error_count(d), 2);
  CHECK_STR(olg_diag_op(d, 0), "Add");
  CHECK_EQ(olg_diag_opset(d, 0), 14);
  olg_diags_free(d);
  CHECK_STATUS(olg_check(m, NULL, NULL), OLG_ERR_INVALID_MODEL);
  olg_model_free(m);
}

/* Fault injection: every allocation of a full check (model, diagnostics, inference) may fail. */
static olg_status scenario_full_check(void *ud, const olg_allocator *a) {
  (void)ud;
  olg_model_options mo = OLG_MODEL_OPTIONS_INIT;
  mo.allocator = a;
  olg_model *m = NULL;
  olg_diags *d = NULL;
  olg_status s = olg_model_new(&m, &mo);
  if (s) return s;
  olg_graph *g = olg_model_graph(m);
  olg_value x, sh, y, r;
  olg_node_id n;
  const int64_t dims[3] = {OLG_DIM_UNKNOWN, 3, 4};
  const char *params[3] = {"N", NULL, NULL};
  if ((s = olg_model_set_opset(m, "", 14)) || (s = olg_graph_set_name(g, "g")) ||
      (s = olg_graph_add_input(g, "x", OLG_FLOAT, 3, dims, params, &x)) ||
      (s = olg_node_begin(g, "", "Shape", "shape", &n)) || (s = olg_node_arg_value(g, n, x)) ||
      (s = olg_node_end(g, n, 1, NULL, &sh)) || (s = olg_node_begin(g, "", "Reshape", "reshape", &n)) ||
      (s = olg_node_arg_value(g, n, x)) || (s = olg_node_arg_value(g, n, sh)) ||
      (s = olg_node_end(g, n, 1, NULL, &y)) || (s = olg_node_begin(g, "", "Relu", "relu", &n)) ||
      (s = olg_node_arg_value(g, n, y)) || (s = olg_node_end(g, n, 1, (const char *[]){"r"}, &r)) ||
      (s = olg_value_set_type(g, r, OLG_FLOAT, 3, dims, params)) || (s = olg_graph_add_output(g, r)) ||
      (s = olg_diags_new(&d, a)))
    goto out;
  olg_check_options o = OLG_CHECK_OPTIONS_INIT;
  o.full = 1;
  s = olg_check(m, &o, d);
  if (!s && olg_diags_count(d) != 0) s = OLG_ERR_STATE;
  if (!s) s = olg_check(m, NULL, NULL);
  if (!s) s = olg_infer_shapes(m, NULL, d);
  if (!s && (olg_value_rank(g, y) != 3 || olg_value_dtype(g, y) != OLG_FLOAT)) s = OLG_ERR_STATE;
out:
  olg_diags_free(d);
  olg_model_free(m);
  return s;
}

TEST(check_fail_each_allocation) {
  CHECK_FAIL_EACH_ALLOCATION(scenario_full_check, NULL);
}

/* Full check of a model read from a file with the failing allocator: subgraphs (If) and
 * sequences (SequenceInsert) go through inference helpers that return NULL for "unknown" too. */
static olg_status scenario_check_file(void *ud, const olg_allocator *a) {
  olg_read_options ro = OLG_READ_OPTIONS_INIT;
  ro.allocator = a;
  olg_model *m = NULL;
  olg_diags *d = NULL;
  olg_status s = olg_model_read_file(&m, (const char *)ud, &ro);
  if (s) return s;
  if ((s = olg_diags_new(&d, a))) goto out;
  olg_check_options o = OLG_CHECK_OPTIONS_INIT;
  o.full = 1;
  s = olg_check(m, &o, d);
  if (!s && olg_diags_lost(d)) s = OLG_ERR_NOMEM;
out:
  olg_diags_free(d);
  olg_model_free(m);
  return s;
}

#define TESTDATA_NODE "/usr/share/libonnx-testdata/data/node/"

TEST(check_fail_each_allocation_subgraphs_and_sequences) {
  static const char *const models[] = {TESTDATA_NODE "test_if/model.onnx",
                                       TESTDATA_NODE "test_sequence_insert_at_back/model.onnx",
                                       TESTDATA_NODE "test_loop13_seq/model.onnx"};
  for (size_t i = 0; i < sizeof models / sizeof *models; i++) {
    FILE *f = fopen(models[i], "rb");
    if (!f) {
      printf("skip: %s is not installed (libonnx-testdata)\n", models[i]);
      continue;
    }
    fclose(f);
    CHECK_FAIL_EACH_ALLOCATION(scenario_check_file, (void *)models[i]);
  }
}

/* Add of a float and an int64 Constant (their outputs untyped: typed from the tensors while
 * checked): the mismatch named is theirs. The first binding's type lived in a temporary that was
 * gone by the second input, which then looked like int64 and clashed with the output instead. */
TEST(check_type_mismatch_of_constant_outputs) {
  olg_model *m;
  CHECK_OK(olg_model_new(&m, NULL));
  CHECK_OK(olg_model_set_opset(m, "", 17));
  olg_graph *g = olg_model_graph(m);
  CHECK_OK(olg_graph_set_name(g, "g"));
  static const float f = 1;
  static const int64_t i = 2;
  olg_node_id n;
  olg_value c1, c2, y;
  CHECK_OK(olg_node_begin(g, "", "Constant", "k1", &n));
  CHECK_OK(olg_node_attr_tensor(g, n, "value", OLG_FLOAT, 0, NULL, &f, sizeof f));
  CHECK_OK(olg_node_end(g, n, 1, (const char *[]){"c1"}, &c1));
  CHECK_OK(olg_node_begin(g, "", "Constant", "k2", &n));
  CHECK_OK(olg_node_attr_tensor(g, n, "value", OLG_INT64, 0, NULL, &i, sizeof i));
  CHECK_OK(olg_node_end(g, n, 1, (const char *[]){"c2"}, &c2));
  CHECK_OK(olg_node_begin(g, "", "Add", "add", &n));
  CHECK_OK(olg_node_arg_value(g, n, c1));
  CHECK_OK(olg_node_arg_value(g, n, c2));
  CHECK_OK(olg_node_end(g, n, 1, (const char *[]){"y"}, &y));
  CHECK_OK(olg_value_set_type(g, y, OLG_FLOAT, 0, NULL, NULL));
  CHECK_OK(olg_graph_add_output(g, y));
  olg_diags *d;
  CHECK_OK(olg_diags_new(&d, NULL));
  olg_check_options co = OLG_CHECK_OPTIONS_INIT;
  CHECK(olg_check(m, &co, d) == OLG_ERR_INVALID_MODEL);
  int k = find_code(d, "OLG-CHECK-TYPE-MISMATCH");
  CHECK(k >= 0);
  if (k >= 0)
    CHECK(strstr(olg_diag_message(d, (size_t)k), "input 0 'c1' (float) and input 1 'c2' (int64)") != NULL);
  olg_diags_free(d);
  olg_model_free(m);
}
