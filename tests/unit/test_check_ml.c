/* The validator (olg_check) on ai.onnx.ml nodes: with the ML schema tables present their
 * signatures are checked like those of the default domain (no OLG-CHECK-OP-NO-SCHEMA note). */
#include <string.h>

#include "../harness.h"
#include "onnxlegal/check.h"

static const int64_t d3[1] = {3};
static const int64_t d23[2] = {2, 3};

/* x (dtype, dims) -> ai.onnx.ml.op -> y, at default opset 17 and ai.onnx.ml opset `ml`. */
static olg_model *ml_model(int64_t ml, const char *op, olg_dtype in_dt, int32_t rank,
                           const int64_t *dims, olg_graph **g_out, olg_node_id *n_out) {
  olg_model *m = NULL;
  if (olg_model_new(&m, NULL)) return NULL;
  olg_graph *g = olg_model_graph(m);
  olg_value x;
  olg_node_id n;
  if (olg_model_set_opset(m, "", 17) || olg_model_set_opset(m, "ai.onnx.ml", ml) ||
      olg_graph_set_name(g, "g") || olg_graph_add_input(g, "x", in_dt, rank, dims, NULL, &x) ||
      olg_node_begin(g, "ai.onnx.ml", op, "n0", &n) || olg_node_arg_value(g, n, x)) {
    olg_model_free(m);
    return NULL;
  }
  *g_out = g;
  *n_out = n;
  return m;
}

/* Ends node n with one output "y" typed (dt, rank, dims) and makes it the graph output. */
static olg_status finish(olg_graph *g, olg_node_id n, olg_dtype dt, int32_t rank,
                         const int64_t *dims) {
  const char *names[1] = {"y"};
  olg_value y;
  olg_status s = olg_node_end(g, n, 1, names, &y);
  if (!s) s = olg_value_set_type(g, y, dt, rank, dims, NULL);
  if (!s) s = olg_graph_add_output(g, y);
  return s;
}

/* The check's verdict and whether a diagnostic with `code` holds `frag` (frag NULL: any). */
static olg_status check_for(olg_model *m, const char *code, const char *frag, int *found,
                            int *no_schema_note) {
  olg_diags *d = NULL;
  olg_check_options o = OLG_CHECK_OPTIONS_INIT;
  *found = 0;
  *no_schema_note = 0;
  if (olg_diags_new(&d, NULL)) return OLG_ERR_NOMEM;
  olg_status s = olg_check(m, &o, d);
  for (size_t i = 0; i < olg_diags_count(d); i++) {
    if (code && strcmp(olg_diag_code(d, i), code) == 0 &&
        (!frag || strstr(olg_diag_message(d, i), frag)))
      *found = 1;
    if (strcmp(olg_diag_code(d, i), "OLG-CHECK-OP-NO-SCHEMA") == 0) *no_schema_note = 1;
  }
  olg_diags_free(d);
  return s;
}

TEST(check_ml_label_encoder_valid) {
  olg_graph *g;
  olg_node_id n;
  olg_model *m = ml_model(2, "LabelEncoder", OLG_STRING, 1, d3, &g, &n);
  CHECK(m != NULL);
  const char *keys[2] = {"a", "b"};
  CHECK_OK(olg_node_attr_strings(g, n, "keys_strings", keys, 2));
  CHECK_OK(olg_node_attr_ints(g, n, "values_int64s", (const int64_t[]){1, 2}, 2));
  CHECK_OK(olg_node_attr_int(g, n, "default_int64", -1));
  CHECK_OK(finish(g, n, OLG_INT64, 1, d3));
  int found, note;
  CHECK_OK(check_for(m, NULL, NULL, &found, &note));
  CHECK(!note);
  olg_model_free(m);
}

TEST(check_ml_attribute_of_a_later_version) {
  /* keys_strings belongs to LabelEncoder-2; at ai.onnx.ml 1 the op is LabelEncoder-1 */
  olg_graph *g;
  olg_node_id n;
  olg_model *m = ml_model(1, "LabelEncoder", OLG_STRING, 1, d3, &g, &n);
  CHECK(m != NULL);
  const char *keys[1] = {"a"};
  CHECK_OK(olg_node_attr_strings(g, n, "keys_strings", keys, 1));
  CHECK_OK(finish(g, n, OLG_INT64, 1, d3));
  int found, note;
  CHECK_STATUS(check_for(m, "OLG-CHECK-ATTR-UNKNOWN", "keys_strings", &found, &note),
               OLG_ERR_INVALID_MODEL);
  CHECK(found && !note);
  olg_model_free(m);
}

TEST(check_ml_required_attribute) {
  olg_graph *g;
  olg_node_id n;
  olg_model *m = ml_model(3, "LinearRegressor", OLG_FLOAT, 2, d23, &g, &n);
  CHECK(m != NULL);
  CHECK_OK(finish(g, n, OLG_FLOAT, 2, (const int64_t[]){2, 1}));
  int found, note;
  CHECK_OK(check_for(m, NULL, NULL, &found, &note)); /* no required attribute */
  olg_model_free(m);

  m = ml_model(3, "LinearClassifier", OLG_FLOAT, 2, d23, &g, &n);
  CHECK(m != NULL);
  CHECK_OK(olg_node_attr_ints(g, n, "classlabels_ints", (const int64_t[]){0, 1}, 2));
  CHECK_OK(finish(g, n, OLG_INT64, 1, (const int64_t[]){2}));
  CHECK_STATUS(check_for(m, "OLG-CHECK-ATTR-MISSING", "coefficients", &found, &note),
               OLG_ERR_INVALID_MODEL);
  CHECK(found && !note);
  olg_model_free(m);
}

TEST(check_ml_type_constraint) {
  olg_graph *g;
  olg_node_id n;
  olg_model *m = ml_model(3, "Binarizer", OLG_STRING, 1, d3, &g, &n);
  CHECK(m != NULL);
  CHECK_OK(finish(g, n, OLG_STRING, 1, d3));
  int found, note;
  CHECK_STATUS(check_for(m, "OLG-CHECK-TYPE-CONSTRAINT", "ai.onnx.ml.Binarizer-1", &found, &note),
               OLG_ERR_INVALID_MODEL);
  CHECK(found && !note);
  olg_model_free(m);

  /* TreeEnsemble-5 with float16, which its T allows */
  m = ml_model(5, "TreeEnsemble", OLG_FLOAT16, 2, d23, &g, &n);
  CHECK(m != NULL);
  CHECK_OK(olg_node_attr_ints(g, n, "tree_roots", (const int64_t[]){0}, 1));
  CHECK_OK(olg_node_attr_ints(g, n, "nodes_featureids", (const int64_t[]){0}, 1));
  CHECK_OK(olg_node_attr_tensor(g, n, "nodes_modes", OLG_UINT8, 1, (const int64_t[]){1},
                                (const uint8_t[]){0}, 1));
  CHECK_OK(olg_node_attr_tensor(g, n, "nodes_splits", OLG_FLOAT16, 1, (const int64_t[]){1},
                                (const uint16_t[]){0}, 2));
  CHECK_OK(olg_node_attr_ints(g, n, "nodes_truenodeids", (const int64_t[]){0}, 1));
  CHECK_OK(olg_node_attr_ints(g, n, "nodes_falsenodeids", (const int64_t[]){1}, 1));
  CHECK_OK(olg_node_attr_ints(g, n, "nodes_trueleafs", (const int64_t[]){1}, 1));
  CHECK_OK(olg_node_attr_ints(g, n, "nodes_falseleafs", (const int64_t[]){1}, 1));
  CHECK_OK(olg_node_attr_ints(g, n, "leaf_targetids", (const int64_t[]){0, 0}, 2));
  CHECK_OK(olg_node_attr_tensor(g, n, "leaf_weights", OLG_FLOAT16, 1, (const int64_t[]){2},
                                (const uint16_t[]){0, 0}, 4));
  CHECK_OK(olg_node_attr_int(g, n, "n_targets", 1));
  CHECK_OK(finish(g, n, OLG_FLOAT16, 2, (const int64_t[]){2, 1}));
  CHECK_OK(check_for(m, NULL, NULL, &found, &note));
  olg_model_free(m);
}

TEST(check_ml_op_versions) {
  /* TreeEnsemble begins at ai.onnx.ml 5 */
  olg_graph *g;
  olg_node_id n;
  olg_model *m = ml_model(4, "TreeEnsemble", OLG_FLOAT, 2, d23, &g, &n);
  CHECK(m != NULL);
  CHECK_OK(finish(g, n, OLG_FLOAT, 2, (const int64_t[]){2, 1}));
  int found, note;
  CHECK_STATUS(check_for(m, "OLG-CHECK-OP-UNKNOWN", "introduced in opset 5", &found, &note),
               OLG_ERR_INVALID_MODEL);
  CHECK(found && !note);
  olg_model_free(m);

  /* TreeEnsembleRegressor is deprecated from ai.onnx.ml 5 */
  m = ml_model(5, "TreeEnsembleRegressor", OLG_FLOAT, 2, d23, &g, &n);
  CHECK(m != NULL);
  CHECK_OK(olg_node_attr_int(g, n, "n_targets", 1));
  CHECK_OK(finish(g, n, OLG_FLOAT, 2, (const int64_t[]){2, 1}));
  CHECK_STATUS(check_for(m, "OLG-CHECK-OP-REMOVED", "deprecated from opset 5", &found, &note),
               OLG_ERR_INVALID_MODEL);
  CHECK(found);
  olg_model_free(m);

  /* ... and valid at 3 */
  m = ml_model(3, "TreeEnsembleRegressor", OLG_FLOAT, 2, d23, &g, &n);
  CHECK(m != NULL);
  CHECK_OK(olg_node_attr_int(g, n, "n_targets", 1));
  CHECK_OK(finish(g, n, OLG_FLOAT, 2, (const int64_t[]){2, 1}));
  CHECK_OK(check_for(m, NULL, NULL, &found, &note));
  olg_model_free(m);

  /* an unknown ML op, and an ML opset that does not exist */
  m = ml_model(3, "Frobnicator", OLG_FLOAT, 1, d3, &g, &n);
  CHECK(m != NULL);
  CHECK_OK(finish(g, n, OLG_FLOAT, 1, d3));
  CHECK_STATUS(check_for(m, "OLG-CHECK-OP-UNKNOWN", "ai.onnx.ml has no operator 'Frobnicator'",
                         &found, &note),
               OLG_ERR_INVALID_MODEL);
  CHECK(found && !note);
  olg_model_free(m);

  m = ml_model(6, "Binarizer", OLG_FLOAT, 1, d3, &g, &n);
  CHECK(m != NULL);
  CHECK_OK(finish(g, n, OLG_FLOAT, 1, d3));
  CHECK_STATUS(check_for(m, "OLG-CHECK-OPSET-VERSION", "its opsets are 1..5", &found, &note),
               OLG_ERR_INVALID_MODEL);
  CHECK(found);
  olg_model_free(m);
}

TEST(check_ml_arity) {
  /* FeatureVectorizer: one or more inputs; ArrayFeatureExtractor: exactly two */
  olg_graph *g;
  olg_node_id n;
  olg_model *m = ml_model(1, "ArrayFeatureExtractor", OLG_FLOAT, 2, d23, &g, &n);
  CHECK(m != NULL);
  CHECK_OK(finish(g, n, OLG_FLOAT, 2, d23));
  int found, note;
  CHECK_STATUS(check_for(m, "OLG-CHECK-INPUT-COUNT", NULL, &found, &note), OLG_ERR_INVALID_MODEL);
  CHECK(found && !note);
  olg_model_free(m);

  m = ml_model(1, "FeatureVectorizer", OLG_INT32, 2, d23, &g, &n);
  CHECK(m != NULL);
  olg_value x2;
  CHECK_OK(olg_graph_add_input(g, "x2", OLG_INT32, 2, d23, NULL, &x2));
  CHECK_OK(olg_node_arg_value(g, n, x2));
  CHECK_OK(finish(g, n, OLG_FLOAT, 2, (const int64_t[]){2, 6}));
  CHECK_OK(check_for(m, NULL, NULL, &found, &note));
  olg_model_free(m);
}
