/* Tests of target profiles through the public API: the built-in ort profile's cast-around (Where
 * on int8 at opset 9 runs in int32), its refusal naming the rule (Max-6 on double), the check of
 * a model, and caller-defined profiles: a type rule with and without a rewrite callback, an op
 * rule, a built-in base. */
#include <stdlib.h>

#include "../harness.h"
#include "profile.h"
#include "../lowering_helpers.h"

#define OLG_TRY_T(expr)          \
  do {                           \
    olg_status t_ = (expr);      \
    if (t_) return t_;           \
  } while (0)

/* c: bool[3], x, y: dt[3] -> op(c?, x, y) named "n" -> z, at opset `opset` (an ONNX model). */
static olg_status two_input_model_a(olg_model **out, const char *op, int with_cond, olg_dtype dt,
                                    int opset, const olg_allocator *a) {
  olg_model *m;
  olg_model_options mo = OLG_MODEL_OPTIONS_INIT;
  mo.allocator = a;
  olg_status s = olg_model_new(&m, &mo);
  if (s) return s;
  olg_graph *g = olg_model_graph(m);
  olg_value c = OLG_NO_VALUE, x, y, z;
  olg_node_id n;
  int64_t dims[1] = {3};
  const char *names[1] = {"z"};
  if ((s = olg_model_set_opset(m, "", opset)) ||
      (with_cond && (s = olg_graph_add_input(g, "c", OLG_BOOL, 1, dims, NULL, &c))) ||
      (s = olg_graph_add_input(g, "x", dt, 1, dims, NULL, &x)) ||
      (s = olg_graph_add_input(g, "y", dt, 1, dims, NULL, &y)) ||
      (s = olg_node_begin(g, "", op, "n", &n)) ||
      (with_cond && (s = olg_node_arg_value(g, n, c))) || (s = olg_node_arg_value(g, n, x)) ||
      (s = olg_node_arg_value(g, n, y)) || (s = olg_node_end(g, n, 1, names, &z)) ||
      (s = olg_graph_add_output(g, z))) {
    olg_model_free(m);
    return s;
  }
  *out = m;
  return OLG_OK;
}

static olg_status two_input_model(olg_model **out, const char *op, int with_cond, olg_dtype dt,
                                  int opset) {
  return two_input_model_a(out, op, with_cond, dt, opset, NULL);
}

static int has_diag(const olg_diags *d, const char *code, const char *needle) {
  for (size_t i = 0; i < olg_diags_count(d); i++)
    if (strcmp(olg_diag_code(d, i), code) == 0 && strstr(olg_diag_message(d, i), needle)) return 1;
  return 0;
}

static olg_status convert(const olg_model *src, const char *profile, const olg_profile *obj,
                          int opset, olg_model **out, olg_diags *d) {
  olg_registry *r = builtin();
  olg_legalize_options o = OLG_LEGALIZE_OPTIONS_INIT;
  o.opset = opset;
  o.profile = profile;
  o.profile_object = obj;
  o.report = 1;
  olg_status s = r ? olg_legalize(src, r, &o, out, d) : OLG_ERR_NOMEM;
  olg_registry_free(r); /* the output does not borrow from the registry */
  return s;
}

TEST(profile_ort_casts_where_int8_around) {
  olg_model *src, *out;
  olg_diags *d;
  CHECK_OK(olg_diags_new(&d, NULL));
  CHECK_OK(two_input_model(&src, "Where", 1, OLG_INT8, 9));
  CHECK_STATUS(olg_profile_check(src, olg_profile_builtin("ort"), d), OLG_ERR_INVALID_MODEL);
  CHECK(has_diag(d, "OLG-PROFILE-VIOLATION", "ort/kernel-type"));
  olg_diags_clear(d);
  CHECK_OK(convert(src, "ort", NULL, 9, &out, d));
  const olg_graph *g = olg_model_graph_const(out);
  CHECK_EQ(count_op(g, "Cast"), 3);
  CHECK_EQ(count_op(g, "Where"), 1);
  CHECK_EQ(olg_value_dtype(g, olg_graph_output_at(g, 0)), OLG_INT8);
  CHECK_STR(olg_value_name(g, olg_graph_output_at(g, 0)), "z");
  CHECK(has_diag(d, "OLG-PROFILE-FIXED", "int32"));
  olg_diags_clear(d);
  CHECK_OK(olg_profile_check(out, olg_profile_builtin("ort"), d)); /* no violation left */
  olg_model_free(out);
  /* without a profile: kept as is */
  CHECK_OK(convert(src, NULL, NULL, 9, &out, NULL));
  CHECK_EQ(count_op(olg_model_graph_const(out), "Cast"), 0);
  olg_model_free(out);
  olg_model_free(src);
  olg_diags_free(d);
}

/* A caller's symbolic that copies a Where node (for a registry made empty). */
static olg_status pass_where(olg_lower *cx, olg_node_id src, void *ud) {
  (void)src;
  (void)ud;
  olg_node_id n;
  olg_status s = olg_lower_emit_begin(cx, "", "Where", &n);
  for (size_t i = 0; !s && i < 3; i++) {
    olg_value v;
    s = olg_lower_arg_value(cx, i, &v);
    if (!s) s = olg_lower_emit_input(cx, n, v);
  }
  olg_value y;
  if (!s) s = olg_lower_emit_end(cx, n, 1, &y);
  if (!s) s = olg_lower_bind_output(cx, 0, y);
  return s;
}

/* The profiles found by name are the registry's: a built-in registry has the built-in ones; a
 * registry made empty has none and says what to pass instead; profile_object works with both. */
TEST(profile_by_name_is_the_registry_s) {
  olg_model *src, *out = NULL;
  olg_registry *empty;
  CHECK_OK(two_input_model(&src, "Where", 1, OLG_INT8, 9));
  CHECK_OK(olg_registry_new(&empty, NULL));
  CHECK_OK(olg_registry_add(empty, "", "Where", 7, pass_where, NULL));
  olg_legalize_options o = OLG_LEGALIZE_OPTIONS_INIT;
  o.opset = 9;
  o.profile = "ort";
  CHECK_STATUS(olg_legalize(src, empty, &o, &out, NULL), OLG_ERR_INVALID_ARG);
  CHECK(out == NULL);
  CHECK(strstr(olg_last_error(), "unknown target profile 'ort'") != NULL);
  CHECK(strstr(olg_last_error(), "profile_object") != NULL);
  o.profile = NULL;
  o.profile_object = olg_profile_builtin("ort");
  CHECK_OK(olg_legalize(src, empty, &o, &out, NULL));
  CHECK_EQ(count_op(olg_model_graph_const(out), "Cast"), 3); /* the ort fix ran */
  olg_model_free(out);
  CHECK_OK(convert(src, "ort", NULL, 9, &out, NULL)); /* the built-in registry finds it */
  olg_model_free(out);
  olg_registry_free(empty);
  olg_model_free(src);
}

TEST(profile_ort_refuses_max_double_at_7) {
  olg_model *src, *out = NULL;
  olg_diags *d;
  CHECK_OK(olg_diags_new(&d, NULL));
  CHECK_OK(two_input_model(&src, "Max", 0, OLG_DOUBLE, 7));
  CHECK_STATUS(convert(src, "ort", NULL, 7, &out, d), OLG_ERR_UNSUPPORTED);
  CHECK(out == NULL);
  CHECK(has_diag(d, "OLG-PROFILE-REFUSED", "ort/kernel-type"));
  olg_diags_clear(d);
  CHECK_OK(convert(src, "ort", NULL, 8, &out, d)); /* Max-8 has a double kernel */
  olg_model_free(out);
  olg_model_free(src);
  olg_diags_free(d);
}

/* A caller's rewrite: Add on int8 computed in int32 (wraps alike), outputs cast back. */
static olg_status add_in_int32(olg_lower *cx, olg_node_id node, const char *rule, void *ud) {
  (void)rule;
  ++*(int *)ud;
  olg_graph *g = olg_lower_target(cx);
  olg_value a = olg_node_input_at(g, node, 0), b = olg_node_input_at(g, node, 1);
  olg_value old = olg_node_output_at(g, node, 0), ca, cb, sum, back;
  olg_node_id n;
  OLG_TRY_T(olg_lower_emit_begin(cx, "", "Cast", &n));
  OLG_TRY_T(olg_lower_emit_input(cx, n, a));
  OLG_TRY_T(olg_lower_emit_attr_int(cx, n, "to", OLG_INT32));
  OLG_TRY_T(olg_lower_emit_end(cx, n, 1, &ca));
  OLG_TRY_T(olg_lower_emit_begin(cx, "", "Cast", &n));
  OLG_TRY_T(olg_lower_emit_input(cx, n, b));
  OLG_TRY_T(olg_lower_emit_attr_int(cx, n, "to", OLG_INT32));
  OLG_TRY_T(olg_lower_emit_end(cx, n, 1, &cb));
  OLG_TRY_T(olg_lower_emit_begin(cx, "", "Add", &n));
  OLG_TRY_T(olg_lower_emit_input(cx, n, ca));
  OLG_TRY_T(olg_lower_emit_input(cx, n, cb));
  OLG_TRY_T(olg_lower_emit_end(cx, n, 1, &sum));
  OLG_TRY_T(olg_lower_emit_begin(cx, "", "Cast", &n));
  OLG_TRY_T(olg_lower_emit_input(cx, n, sum));
  OLG_TRY_T(olg_lower_emit_attr_int(cx, n, "to", OLG_INT8));
  OLG_TRY_T(olg_lower_emit_end(cx, n, 1, &back));
  return olg_lower_replace_value(cx, old, back);
}

TEST(profile_caller_defined_rules_and_rewrite) {
  olg_profile *p;
  CHECK_STATUS(olg_profile_new(&p, "ort", NULL), OLG_ERR_INVALID_ARG); /* a built-in's name */
  CHECK_OK(olg_profile_new(&p, "myrt", NULL));
  CHECK_STR(olg_profile_name(p), "myrt");
  const olg_dtype ok[] = {OLG_FLOAT, OLG_INT32};
  CHECK_OK(olg_profile_add_type_rule(p, "myrt/add-types", "Add", 7, 0, "T", 0, ok, 2));
  CHECK_STATUS(olg_profile_add_type_rule(p, "myrt/bad", "Add", 7, 0, "T", 0, (const olg_dtype[]){99}, 1),
               OLG_ERR_INVALID_ARG);
  CHECK_STATUS(olg_profile_set_rewrite(p, "myrt/none", add_in_int32, NULL), OLG_ERR_NOT_FOUND);
  olg_model *src, *out = NULL;
  olg_diags *d;
  CHECK_OK(olg_diags_new(&d, NULL));
  CHECK_OK(two_input_model(&src, "Add", 0, OLG_INT8, 14));
  CHECK_STATUS(olg_profile_check(src, p, d), OLG_ERR_INVALID_MODEL);
  CHECK(has_diag(d, "OLG-PROFILE-VIOLATION", "myrt/add-types"));
  /* no rewrite yet: refused, naming the rule */
  olg_diags_clear(d);
  CHECK_STATUS(convert(src, NULL, p, 14, &out, d), OLG_ERR_UNSUPPORTED);
  CHECK(has_diag(d, "OLG-PROFILE-REFUSED", "myrt/add-types"));
  /* with the rewrite */
  int calls = 0;
  CHECK_OK(olg_profile_set_rewrite(p, "myrt/add-types", add_in_int32, &calls));
  olg_diags_clear(d);
  CHECK_OK(convert(src, NULL, p, 14, &out, d));
  CHECK_EQ(calls, 1);
  const olg_graph *g = olg_model_graph_const(out);
  CHECK_EQ(count_op(g, "Cast"), 3);
  CHECK_EQ(olg_value_dtype(g, olg_graph_output_at(g, 0)), OLG_INT8);
  CHECK(has_diag(d, "OLG-PROFILE-FIXED", "myrt/add-types"));
  olg_diags_clear(d);
  CHECK_OK(olg_profile_check(out, p, d));
  olg_model_free(out);
  /* an op rule, and a base: ort's rules apply too */
  olg_profile *q;
  CHECK_OK(olg_profile_new(&q, "mine", olg_profile_builtin("ort")));
  CHECK_OK(olg_profile_add_op_rule(q, "mine/no-add", "Add", 7, 0));
  olg_diags_clear(d);
  CHECK_STATUS(olg_profile_check(src, q, d), OLG_ERR_INVALID_MODEL);
  CHECK(has_diag(d, "OLG-PROFILE-VIOLATION", "mine/no-add"));
  olg_model *w;
  CHECK_OK(two_input_model(&w, "Where", 1, OLG_INT8, 9));
  olg_diags_clear(d);
  CHECK_STATUS(olg_profile_check(w, q, d), OLG_ERR_INVALID_MODEL);
  CHECK(has_diag(d, "OLG-PROFILE-VIOLATION", "ort/kernel-type"));
  CHECK(!has_diag(d, "OLG-PROFILE-VIOLATION", "mine/no-add"));
  olg_model_free(w);
  olg_profile_free(q);
  olg_profile_free(p);
  olg_model_free(src);
  olg_diags_free(d);
  CHECK(olg_profile_builtin("nope") == NULL);
  CHECK_STR(olg_profile_builtin_name(0), "ort");
  CHECK(olg_profile_builtin_name(100) == NULL);
}

/* Every allocation of a conversion with the ort profile's cast-around, and of its check. */
static olg_status ort_scenario(void *ud, const olg_allocator *a) {
  const olg_registry *r = ud;
  olg_model *src, *out;
  olg_status s = two_input_model_a(&src, "Where", 1, OLG_INT8, 9, a);
  if (s) return s;
  olg_diags *dg;
  s = olg_diags_new(&dg, a);
  if (!s) {
    olg_legalize_options o = OLG_LEGALIZE_OPTIONS_INIT;
    o.opset = 9;
    o.profile = "ort";
    o.report = 1;
    s = olg_legalize(src, r, &o, &out, dg);
    if (!s) {
      s = olg_profile_check(out, olg_profile_builtin("ort"), dg);
      olg_model_free(out);
    }
    /* a report note that found no memory is counted, not dropped silently */
    if (!s && olg_diags_lost(dg)) s = OLG_ERR_NOMEM;
    olg_diags_free(dg);
  }
  olg_model_free(src);
  return s;
}

TEST(profile_every_allocation_failure) {
  olg_registry *r = builtin();
  CHECK(r);
  CHECK_FAIL_EACH_ALLOCATION(ort_scenario, r);
  olg_registry_free(r);
}

/* Every malloc of a caller-defined profile's making. */
static olg_status caller_profile_scenario(void *ud, const olg_allocator *a) {
  (void)ud;
  (void)a;
  olg_profile *p;
  olg_status s = olg_profile_new(&p, "myrt", olg_profile_builtin("ort"));
  if (s) return s;
  const olg_dtype ok[] = {OLG_FLOAT};
  for (int i = 0; i < 12 && !s; i++) /* past the first growth of the rule array */
    s = olg_profile_add_type_rule(p, i % 2 ? "myrt/a" : "myrt/b", "Add", 7 + i, 0, "T", 0, ok, 1);
  if (!s) s = olg_profile_add_op_rule(p, "myrt/c", "Relu", 7, 0);
  olg_profile_free(p);
  return s;
}

TEST(profile_api_every_malloc_failure) {
  CHECK_FAIL_EACH_MALLOC(caller_profile_scenario, NULL);
}

/* A table that says it is sorted is sorted (strcmp by op, no NULL op): the engine finds a
 * node's rules by binary search in it, so one row out of order would silently not apply. */
TEST(profile_sorted_tables_are_sorted) {
  for (size_t i = 0; olg_profile_builtin_name(i); i++) {
    const olg_profile *p = olg_profile_builtin(olg_profile_builtin_name(i));
    CHECK(p != NULL);
    for (size_t t = 0; t < p->n_tables; t++) {
      const olg_prule_table *tb = &p->tables[t];
      for (size_t k = 0; tb->sorted && k < tb->n; k++) {
        CHECK(tb->rules[k].op != NULL);
        if (k) CHECK(strcmp(tb->rules[k - 1].op, tb->rules[k].op) <= 0);
      }
    }
  }
}

