/* Tests of the math families (symbolics/{elementwise,activation,reduce,linalg}.c): PyTorch's
 * type promotion, the choice between native ops and decompositions per opset, refusals that name
 * the lowest opset that works, decompositions turned off, and allocation failures. The numbers
 * themselves are checked against PyTorch by tests/numeric/cases_*.py. */
#include <stdlib.h>

#include "../harness.h"
#include "../lowering_helpers.h"
#include "../../symbolics/emit_math.h"

TEST(math_promote_types_as_torch) {
  CHECK_EQ(olg__promote_types(OLG_UINT8, OLG_INT8), OLG_INT16);
  CHECK_EQ(olg__promote_types(OLG_INT8, OLG_UINT8), OLG_INT16);
  CHECK_EQ(olg__promote_types(OLG_UINT8, OLG_INT32), OLG_INT32);
  CHECK_EQ(olg__promote_types(OLG_BOOL, OLG_INT32), OLG_INT32);
  CHECK_EQ(olg__promote_types(OLG_INT64, OLG_FLOAT16), OLG_FLOAT16);
  CHECK_EQ(olg__promote_types(OLG_FLOAT16, OLG_BFLOAT16), OLG_FLOAT);
  CHECK_EQ(olg__promote_types(OLG_FLOAT, OLG_DOUBLE), OLG_DOUBLE);
  CHECK_EQ(olg__promote_types(OLG_INT32, OLG_INT64), OLG_INT64);
  CHECK_EQ(olg__promote_types(OLG_UNDEFINED, OLG_INT16), OLG_INT16);
  CHECK_EQ(olg__promote_types(OLG_BOOL, OLG_BOOL), OLG_BOOL);
}

/* x: float[2,3], xi: int32[2,3] ->
 *   a = add(xi, 2.5, 1)              float (an int tensor and a Python float)
 *   q = div(x, a, "floor"); r = round(q); e = eq(r, x)    bool
 *   c = cumsum(x, 1, None); s = sum(c, [0], false, None)
 *   p = softmax(x, 0, None)
 *   m, mi = max(x, 1, false)          values, int64 indices
 *   k = lt(xi, 3)                     integers compared (Less takes ints from 9)
 * outputs a, e, s, p, m, mi, k */
static olg_status chain_model(olg_model **out, const olg_allocator *al) {
  olg_model_options mo = OLG_MODEL_OPTIONS_INIT;
  mo.allocator = al;
  olg_model *m;
  olg_status s = olg_model_new(&m, &mo);
  if (s) return s;
  olg_graph *g = olg_model_graph(m);
  olg_value x, xi, a, q, r, e, c, sm, p, mv[2], k;
  olg_node_id n;
  int64_t dims[2] = {2, 3}, dim0 = 0;
#define T(expr) if ((s = (expr))) goto fail
  T(olg_graph_add_input(g, "x", OLG_FLOAT, 2, dims, NULL, &x));
  T(olg_graph_add_input(g, "xi", OLG_INT32, 2, dims, NULL, &xi));
  T(olg_node_begin(g, "aten", "add", "add", &n));
  T(olg_node_arg_value(g, n, xi)); T(olg_node_arg_float(g, n, 2.5)); T(olg_node_arg_int(g, n, 1));
  T(olg_node_end(g, n, 1, NULL, &a));
  T(olg_node_begin(g, "aten", "div", "div", &n));
  T(olg_node_arg_value(g, n, x)); T(olg_node_arg_value(g, n, a)); T(olg_node_arg_string(g, n, "floor"));
  T(olg_node_end(g, n, 1, NULL, &q));
  T(olg_node_begin(g, "aten", "round", "round", &n));
  T(olg_node_arg_value(g, n, q));
  T(olg_node_end(g, n, 1, NULL, &r));
  T(olg_node_begin(g, "aten", "eq", "eq", &n));
  T(olg_node_arg_value(g, n, r)); T(olg_node_arg_value(g, n, x));
  T(olg_node_end(g, n, 1, NULL, &e));
  T(olg_node_begin(g, "aten", "cumsum", "cumsum", &n));
  T(olg_node_arg_value(g, n, x)); T(olg_node_arg_int(g, n, 1)); T(olg_node_arg_none(g, n));
  T(olg_node_end(g, n, 1, NULL, &c));
  T(olg_node_begin(g, "aten", "sum", "sum", &n));
  T(olg_node_arg_value(g, n, c)); T(olg_node_arg_ints(g, n, &dim0, 1));
  T(olg_node_arg_bool(g, n, 0)); T(olg_node_arg_none(g, n));
  T(olg_node_end(g, n, 1, NULL, &sm));
  T(olg_node_begin(g, "aten", "softmax", "softmax", &n));
  T(olg_node_arg_value(g, n, x)); T(olg_node_arg_int(g, n, 0)); T(olg_node_arg_none(g, n));
  T(olg_node_end(g, n, 1, NULL, &p));
  T(olg_node_begin(g, "aten", "max", "max", &n));
  T(olg_node_arg_value(g, n, x)); T(olg_node_arg_int(g, n, 1)); T(olg_node_arg_bool(g, n, 0));
  T(olg_node_end(g, n, 2, NULL, mv));
  T(olg_node_begin(g, "aten", "lt", "lt", &n));
  T(olg_node_arg_value(g, n, xi)); T(olg_node_arg_int(g, n, 3));
  T(olg_node_end(g, n, 1, NULL, &k));
  olg_value outs[7] = {a, e, sm, p, mv[0], mv[1], k};
  for (int i = 0; i < 7; i++) T(olg_graph_add_output(g, outs[i]));
#undef T
  *out = m;
  return OLG_OK;
fail:
  olg_model_free(m);
  return s;
}

static olg_status legalize_at(const olg_model *src, const olg_registry *r, int opset,
                              int decompositions, olg_model **out, olg_diags *d) {
  olg_legalize_options o = OLG_LEGALIZE_OPTIONS_INIT;
  o.opset = opset;
  o.no_decompositions = !decompositions;
  return olg_legalize(src, r, &o, out, d);
}

TEST(math_chain_at_every_opset) {
  olg_registry *r = builtin();
  CHECK(r);
  olg_model *src, *out;
  CHECK_OK(chain_model(&src, NULL));
  static const olg_dtype want[7] = {OLG_FLOAT, OLG_BOOL, OLG_FLOAT, OLG_FLOAT,
                                    OLG_FLOAT, OLG_INT64, OLG_BOOL};
  for (int opset = 7; opset <= 27; opset++) {
    CHECK_OK(legalize_at(src, r, opset, 1, &out, NULL));
    const olg_graph *g = olg_model_graph_const(out);
    CHECK_EQ(olg_graph_output_count(g), 7);
    for (size_t i = 0; i < 7; i++) CHECK_EQ(olg_value_dtype(g, olg_graph_output_at(g, i)), want[i]);
    /* the native op where the opset has it, the decomposition below */
    CHECK_EQ(count_op(g, "Round") > 0, opset >= 11);
    CHECK_EQ(count_op(g, "CumSum") > 0, opset >= 11);
    CHECK_EQ(count_op(g, "Equal") > 0, opset >= 11);
    CHECK_EQ(count_op(g, "IsNaN") > 0, opset >= 9 && opset < 11); /* float eq below 11 */
    CHECK(count_op(g, "ArgMax") == 1 && count_op(g, "ReduceMax") == 1);
    CHECK_OK(olg_check(out, NULL, NULL));
    olg_model_free(out);
  }
  olg_model_free(src);
  olg_registry_free(r);
}

/* A one-node model: op(x) with x float[2,3] (for einsum, the diagonal "ii->i" of a 3x3 x, which
 * decomposes below Einsum-12: refused only with decompositions off). */
static olg_status unary_model(olg_model **out, const char *op) {
  olg_model *m;
  olg_status s = olg_model_new(&m, NULL);
  if (s) return s;
  olg_graph *g = olg_model_graph(m);
  olg_value x, y;
  olg_node_id n;
  int64_t dims[2] = {strcmp(op, "einsum") == 0 ? 3 : 2, 3};
  olg_graph_add_input(g, "x", OLG_FLOAT, 2, dims, NULL, &x);
  olg_node_begin(g, "aten", op, "node", &n);
  if (strcmp(op, "einsum") == 0) {
    olg_node_arg_string(g, n, "ii->i");
    olg_node_arg_values(g, n, &x, 1);
    olg_node_arg_none(g, n);
  } else if (strcmp(op, "where") == 0) {
    olg_value c;
    olg_graph_add_input(g, "c", OLG_BOOL, 2, dims, NULL, &c);
    olg_node_arg_value(g, n, c);
    olg_node_arg_value(g, n, x);
    olg_node_arg_float(g, n, 0.5);
  } else {
    olg_node_arg_value(g, n, x);
  }
  s = olg_node_end(g, n, 1, NULL, &y);
  if (!s) s = olg_graph_add_output(g, y);
  if (s) {
    olg_model_free(m);
    return s;
  }
  *out = m;
  return OLG_OK;
}

/* The refusal names the op and the lowest opset that works. */
static void check_refused(const char *op, int opset, int decompositions, const char *needle) {
  olg_registry *r = builtin();
  olg_model *src, *out = (olg_model *)1;
  olg_diags *d;
  CHECK(r);
  CHECK_OK(unary_model(&src, op));
  CHECK_OK(olg_diags_new(&d, NULL));
  CHECK_STATUS(legalize_at(src, r, opset, decompositions, &out, d), OLG_ERR_UNSUPPORTED);
  CHECK(out == NULL);
  int found = 0;
  for (size_t i = 0; i < olg_diags_count(d); i++) {
    const char *msg = olg_diag_message(d, i);
    if (strstr(msg, needle) && strstr(msg, op)) found = 1;
  }
  if (!found && olg_diags_count(d)) fprintf(stderr, "  got: %s\n", olg_diag_message(d, 0));
  CHECK(found);
  olg_diags_free(d);
  olg_model_free(src);
  olg_registry_free(r);
}

TEST(math_refusals_name_the_lowest_opset) {
  check_refused("erf", 8, 1, "9");
  check_refused("where", 8, 1, "9");
  check_refused("einsum", 11, 0, "native from opset 12"); /* any einsum, decompositions off */
  check_refused("gelu", 8, 1, "opset >= 9");            /* approximate='none' needs Erf */
  check_refused("round", 10, 0, "native from opset 11"); /* decompositions turned off */
  check_refused("hardswish", 13, 0, "native from opset 14");
  check_refused("mish", 17, 0, "native from opset 18");
}

static olg_status chain_scenario(void *ud, const olg_allocator *a) {
  const olg_registry *r = ud;
  olg_model *src, *out;
  olg_status s = chain_model(&src, a);
  if (s) return s;
  olg_diags *dg = NULL;
  s = olg_diags_new(&dg, a);
  for (int opset = 7; !s && opset <= 11; opset += 2) {
    s = legalize_at(src, r, opset, 1, &out, dg);
    if (!s) olg_model_free(out);
  }
  if (dg) olg_diags_free(dg);
  olg_model_free(src);
  return s;
}

TEST(math_every_allocation_failure) {
  olg_registry *r = builtin();
  CHECK(r);
  CHECK_FAIL_EACH_ALLOCATION(chain_scenario, r);
  olg_registry_free(r);
}
