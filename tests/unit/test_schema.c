/* onnxlegal — the ONNX schema tables (lib/schema.h, lib/schemas_gen.c). */
#include "../harness.h"
#include "schema.h"

#include <string.h>

TEST(schema_find_picks_newest_version_at_opset) {
  const olg_schema *s = olg_schema_find("", "Conv", 11);
  CHECK(s != NULL);
  CHECK_STR(s->name, "Conv");
  CHECK_EQ(s->since_version, 11);
  CHECK_EQ(olg_schema_find("", "Squeeze", 12)->since_version, 11);
  CHECK_EQ(olg_schema_find("", "Squeeze", 13)->since_version, 13);
  CHECK_EQ(olg_schema_find("", "Resize", 19)->since_version, 19);
  CHECK_EQ(olg_schema_find("", "Resize", 12)->since_version, 11);
  CHECK_EQ(olg_schema_find("", "Resize", 10)->since_version, 10);
  CHECK(olg_schema_find("", "Resize", 9) == NULL); /* Resize begins at 10 */
  CHECK_EQ(olg_schema_find("", "Abs", 1)->since_version, 1);
  CHECK(olg_schema_find("", "Abs", 0) == NULL);
  CHECK_EQ(olg_schema_find("", "Abs", 1000)->since_version, 13);
  /* opset 28 is in the tables (in development) */
  CHECK_EQ(olg_schema_find("", "SwiGLU", OLG_ONNX_OPSET_DEV)->since_version, 28);
  CHECK(olg_schema_find("", "SwiGLU", OLG_ONNX_OPSET_RELEASED) == NULL);
}

TEST(schema_domains) {
  const olg_schema *a = olg_schema_find("", "Relu", 14);
  CHECK(a != NULL);
  CHECK(olg_schema_find("ai.onnx", "Relu", 14) == a);
  CHECK(olg_schema_find(NULL, "Relu", 14) == a);
  CHECK(olg_schema_find("", "relu", 14) == NULL); /* op names are case-sensitive */
  CHECK(olg_schema_find("", "NoSuchOp", 14) == NULL);
  CHECK(olg_schema_find("", NULL, 14) == NULL);
  CHECK(olg_schema_find("com.example", "Relu", 14) == NULL);
  CHECK(olg_schema_find("ai.onnx.preview.training", "Relu", 14) == NULL);
  CHECK_EQ(olg_schema_find("ai.onnx.preview.training", "Adam", 1)->since_version, 1);
  CHECK_EQ(olg_schema_domain_max_opset(""), OLG_ONNX_OPSET_RELEASED);
  CHECK_EQ(olg_schema_domain_max_opset("ai.onnx"), 27);
  CHECK_EQ(olg_schema_domain_max_opset("ai.onnx.ml"), 5);
  CHECK_EQ(olg_schema_domain_max_opset("com.example"), -1);
  CHECK_EQ(olg_schema_domain_find("")->max_defined, OLG_ONNX_OPSET_DEV);
}

TEST(schema_ai_onnx_ml) {
  /* every version of ai.onnx.ml, 1..5, from tools/data/ai_onnx_ml_schemas.json */
  const olg_schema_domain *d = olg_schema_domain_find("ai.onnx.ml");
  CHECK(d != NULL);
  CHECK_EQ(d->max_released, 5);
  CHECK_EQ(d->max_defined, 5);
  CHECK_EQ(d->n_ops, 19);
  const olg_schema *s = olg_schema_find("ai.onnx.ml", "LabelEncoder", 2);
  CHECK(s != NULL && s->since_version == 2 && !s->deprecated);
  CHECK_EQ(olg_schema_find("ai.onnx.ml", "LabelEncoder", 3)->since_version, 2);
  CHECK_EQ(olg_schema_find("ai.onnx.ml", "LabelEncoder", 1)->since_version, 1);
  CHECK_EQ(olg_schema_find("ai.onnx.ml", "LabelEncoder", 5)->since_version, 4);
  CHECK(olg_schema_attr(s, "keys_strings") != NULL);
  CHECK(olg_schema_attr(olg_schema_find("ai.onnx.ml", "LabelEncoder", 1), "keys_strings") == NULL);
  CHECK(olg_schema_attr(olg_schema_find("ai.onnx.ml", "LabelEncoder", 4), "keys_tensor") != NULL);
  CHECK(olg_schema_attr(s, "keys_tensor") == NULL);
  /* LabelEncoder-4 widened T1 to int16/int32/double */
  CHECK(olg_schema_formal_allows_dtype(olg_schema_find("ai.onnx.ml", "LabelEncoder", 4)->inputs,
                                       OLG_DOUBLE));
  CHECK(!olg_schema_formal_allows_dtype(s->inputs, OLG_DOUBLE));

  s = olg_schema_find("ai.onnx.ml", "TreeEnsembleClassifier", 3);
  CHECK(s != NULL && s->since_version == 3 && !s->deprecated);
  CHECK_EQ(s->n_outputs, 2);
  CHECK_STR(s->outputs[1].type_str, "tensor(float)");
  CHECK_EQ(olg_schema_attr(s, "nodes_values_as_tensor")->type, OLG_SCHEMA_ATTR_TENSOR);
  CHECK_EQ(olg_schema_find("ai.onnx.ml", "TreeEnsembleClassifier", 2)->since_version, 1);
  CHECK(olg_schema_find("ai.onnx.ml", "TreeEnsembleClassifier", 5)->deprecated);
  CHECK(olg_schema_find("ai.onnx.ml", "TreeEnsembleRegressor", 5)->deprecated);
  s = olg_schema_find("ai.onnx.ml", "TreeEnsemble", 5);
  CHECK(s != NULL && s->since_version == 5);
  CHECK(olg_schema_find("ai.onnx.ml", "TreeEnsemble", 4) == NULL);
  CHECK(olg_schema_attr(s, "tree_roots")->required);
  CHECK(olg_schema_formal_allows_dtype(s->inputs, OLG_FLOAT16));

  /* required attribute, variadic input, map and seq(map) constraints */
  CHECK(olg_schema_attr(olg_schema_find("ai.onnx.ml", "LinearClassifier", 1), "coefficients")->required);
  s = olg_schema_find("ai.onnx.ml", "FeatureVectorizer", 1);
  CHECK(s->inputs[0].option == OLG_FORMAL_VARIADIC && s->max_inputs == OLG_SCHEMA_UNBOUNDED);
  CHECK_EQ(s->min_inputs, 1);
  const olg_type_constraint *tc = olg_schema_constraint(olg_schema_find("ai.onnx.ml", "ZipMap", 1), "T");
  CHECK(tc != NULL && tc->n_allowed == 2 && tc->tensor_dtypes == 0);
  CHECK_STR(tc->allowed[1], "seq(map(int64, float))");
  tc = olg_schema_constraint(olg_schema_find("ai.onnx.ml", "CastMap", 1), "T1");
  CHECK_STR(tc->allowed[0], "map(int64, string)");

  /* unknown ML ops, and ML ops looked up in another domain */
  CHECK(olg_schema_find("ai.onnx.ml", "NoSuchMlOp", 3) == NULL);
  CHECK(olg_schema_find("ai.onnx.ml", "labelEncoder", 3) == NULL);
  CHECK(olg_schema_find("ai.onnx.ml", "Relu", 3) == NULL);
  CHECK(olg_schema_find("", "LabelEncoder", 17) == NULL);
  CHECK(olg_schema_find("ai.onnx.ml", "ZipMap", 0) == NULL);
}

TEST(schema_deprecated_rows) {
  const olg_schema *s = olg_schema_find("", "Upsample", 9);
  CHECK(s != NULL && s->since_version == 9 && !s->deprecated);
  s = olg_schema_find("", "Upsample", 13);
  CHECK(s != NULL && s->since_version == 10 && s->deprecated);
  CHECK(olg_schema_find("", "Scatter", 11)->deprecated);
  CHECK(olg_schema_find("", "GroupNormalization", 18)->deprecated);
  CHECK(!olg_schema_find("", "GroupNormalization", 21)->deprecated);
}

TEST(schema_signature_details) {
  const olg_schema *s = olg_schema_find("", "Conv", 11);
  const olg_attr_schema *a = olg_schema_attr(s, "group");
  CHECK(a != NULL);
  CHECK_EQ(a->type, OLG_SCHEMA_ATTR_INT);
  CHECK(!a->required);
  CHECK_STR(a->default_str, "1");
  CHECK_EQ(olg_schema_attr(s, "kernel_shape")->type, OLG_SCHEMA_ATTR_INTS);
  CHECK(olg_schema_attr(s, "nope") == NULL);
  CHECK_EQ(s->min_inputs, 2);
  CHECK_EQ(s->max_inputs, 3);
  CHECK_EQ(s->inputs[2].option, OLG_FORMAL_OPTIONAL);
  CHECK(olg_schema_input_formal(s, 3) == NULL);
  CHECK(olg_schema_formal_allows_dtype(&s->inputs[0], OLG_FLOAT));
  CHECK(!olg_schema_formal_allows_dtype(&s->inputs[0], OLG_INT64));

  /* Squeeze: axes an attribute before 13, an optional int64 input from 13 */
  s = olg_schema_find("", "Squeeze", 11);
  CHECK_EQ(olg_schema_attr(s, "axes")->type, OLG_SCHEMA_ATTR_INTS);
  s = olg_schema_find("", "Squeeze", 13);
  CHECK_EQ(s->n_attrs, 0);
  CHECK_EQ(s->n_inputs, 2);
  CHECK_STR(s->inputs[1].type_str, "tensor(int64)");
  CHECK(olg_schema_formal_allows_dtype(olg_schema_input_formal(s, 1), OLG_INT64));
  CHECK(!olg_schema_formal_allows_dtype(olg_schema_input_formal(s, 1), OLG_INT32));
  int n = 0;
  const char *const *types = olg_schema_formal_types(s, &s->inputs[1], &n);
  CHECK_EQ(n, 1);
  CHECK_STR(types[0], "tensor(int64)");

  /* Concat: one variadic input, any number of actual inputs bind to it */
  s = olg_schema_find("", "Concat", 13);
  CHECK_EQ(s->min_inputs, 1);
  CHECK_EQ(s->max_inputs, OLG_SCHEMA_UNBOUNDED);
  CHECK(olg_schema_input_formal(s, 7) == &s->inputs[0]);
  CHECK_EQ(s->inputs[0].option, OLG_FORMAL_VARIADIC);
  CHECK_EQ(s->inputs[0].min_arity, 1);
  CHECK(olg_schema_attr(s, "axis")->required);

  /* Loop: heterogeneous variadic with no minimum after two optional inputs */
  s = olg_schema_find("", "Loop", 21);
  CHECK_EQ(s->min_inputs, 2);
  CHECK_EQ(s->inputs[2].option, OLG_FORMAL_VARIADIC);
  CHECK_EQ(s->inputs[2].homogeneous, 0);
  CHECK_EQ(s->inputs[2].min_arity, 0);
  CHECK_EQ(olg_schema_attr(s, "body")->type, OLG_SCHEMA_ATTR_GRAPH);
  const olg_type_constraint *v = olg_schema_constraint(s, "V");
  CHECK(v != NULL && v->n_allowed > 0);
  int seen_seq = 0, seen_opt = 0;
  for (int i = 0; i < v->n_allowed; i++) {
    seen_seq |= strcmp(v->allowed[i], "seq(tensor(float))") == 0;
    seen_opt |= strcmp(v->allowed[i], "optional(seq(tensor(float)))") == 0;
  }
  CHECK(seen_seq && seen_opt);
}

TEST(schema_tensor_type_dtype) {
  CHECK_EQ(olg_schema_tensor_type_dtype("tensor(float)"), OLG_FLOAT);
  CHECK_EQ(olg_schema_tensor_type_dtype("tensor(int64)"), OLG_INT64);
  CHECK_EQ(olg_schema_tensor_type_dtype("tensor(float8e4m3fnuz)"), OLG_FLOAT8E4M3FNUZ);
  CHECK_EQ(olg_schema_tensor_type_dtype("tensor(int2)"), OLG_INT2);
  CHECK_EQ(olg_schema_tensor_type_dtype("seq(tensor(float))"), 0);
  CHECK_EQ(olg_schema_tensor_type_dtype("sparse_tensor(float)"), 0);
  CHECK_EQ(olg_schema_tensor_type_dtype("optional(tensor(float))"), 0);
  CHECK_EQ(olg_schema_tensor_type_dtype("map(int64, float)"), 0);
  CHECK_EQ(olg_schema_tensor_type_dtype("tensor(float"), 0);
  CHECK_EQ(olg_schema_tensor_type_dtype("tensor()"), 0);
  CHECK_EQ(olg_schema_tensor_type_dtype("tensor(nosuchtype)"), 0);
  CHECK_EQ(olg_schema_tensor_type_dtype("T"), 0);
  CHECK_EQ(olg_schema_tensor_type_dtype(NULL), 0);
}

static uint32_t mask_of(const char *const *types, int n) {
  uint32_t m = 0;
  for (int i = 0; i < n; i++) {
    int d = olg_schema_tensor_type_dtype(types[i]);
    if (d) m |= 1u << d;
  }
  return m;
}

/* The whole table is well formed, and the dtype masks the generator computed agree with
 * the type strings as this library parses them. */
TEST(schema_table_invariants) {
  size_t n = olg_schema_count();
  CHECK(n > 600);
  CHECK(olg_schema_at(n) == NULL);
  for (size_t i = 0; i < n; i++) {
    const olg_schema *s = olg_schema_at(i);
    if (i > 0) {
      const olg_schema *p = olg_schema_at(i - 1);
      int c = strcmp(p->domain, s->domain);
      if (c == 0) c = strcmp(p->name, s->name);
      CHECK(c < 0 || (c == 0 && p->since_version < s->since_version));
    }
    CHECK(olg_schema_find(s->domain, s->name, s->since_version) == s);
    size_t nv = 0;
    const olg_schema *first = olg_schema_versions(s->domain, s->name, &nv);
    CHECK(first != NULL && first <= s && s < first + nv);
    CHECK(s->min_inputs >= 0 &&
          (s->max_inputs == OLG_SCHEMA_UNBOUNDED || s->max_inputs >= s->min_inputs));
    CHECK(s->min_outputs >= 0 &&
          (s->max_outputs == OLG_SCHEMA_UNBOUNDED || s->max_outputs >= s->min_outputs));
    for (int k = 0; k < s->n_constraints; k++) {
      const olg_type_constraint *c = &s->constraints[k];
      CHECK(c->allowed[c->n_allowed] == NULL);
      CHECK_EQ(c->tensor_dtypes, mask_of(c->allowed, c->n_allowed));
    }
    for (int side = 0; side < 2; side++) {
      const olg_formal *f = side ? s->outputs : s->inputs;
      int nf = side ? s->n_outputs : s->n_inputs;
      for (int k = 0; k < nf; k++) {
        int nt = 0;
        const char *const *types = olg_schema_formal_types(s, &f[k], &nt);
        CHECK(types != NULL && nt > 0);
        /* a formal names a constraint of its schema or spells a type */
        CHECK(olg_schema_constraint(s, f[k].type_str) != NULL || strchr(f[k].type_str, '('));
        CHECK_EQ(f[k].tensor_dtypes, mask_of(types, nt));
        CHECK(f[k].option != OLG_FORMAL_VARIADIC || k == nf - 1);
      }
    }
  }
}
