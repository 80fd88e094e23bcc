/* Tests of olg_legalize and the lowering context: dispatch, naming, diagnostics for every
 * unsupported node, caller extension with a custom domain and shape function, ONNX-domain
 * re-encoding, the tensorrt profile, initializers borrowed, allocation failures. */
#include <stdlib.h>

#include "../harness.h"
#include "../lowering_helpers.h"

static int find_node(const olg_graph *g, const char *op) {
  for (size_t i = 0; i < olg_graph_node_count(g); i++)
    if (strcmp(olg_node_op(g, (olg_node_id)i), op) == 0) return (int)i;
  return -1;
}

static olg_status legalize_at(const olg_model *src, const olg_registry *r, int opset,
                              olg_model **out, olg_diags *d) {
  olg_legalize_options o = OLG_LEGALIZE_OPTIONS_INIT;
  o.opset = opset;
  return olg_legalize(src, r, &o, out, d);
}

/* x: float[2,3,4] -> aten::view(x, [6, -1]) named "layer1.view" -> y */
static olg_status view_model(olg_model **out, const olg_allocator *a) {
  olg_model_options mo = OLG_MODEL_OPTIONS_INIT;
  mo.allocator = a;
  olg_model *m;
  olg_status s = olg_model_new(&m, &mo);
  if (s) return s;
  olg_graph *g = olg_model_graph(m);
  olg_value x, y;
  olg_node_id n;
  int64_t dims[3] = {2, 3, 4}, size[2] = {6, -1};
  const char *names[1] = {"y"};
  if ((s = olg_graph_add_input(g, "x", OLG_FLOAT, 3, dims, NULL, &x)) ||
      (s = olg_node_begin(g, "aten", "view", "layer1.view", &n)) ||
      (s = olg_node_arg_value(g, n, x)) || (s = olg_node_arg_ints(g, n, size, 2)) ||
      (s = olg_node_end(g, n, 1, names, &y)) || (s = olg_graph_add_output(g, y))) {
    olg_model_free(m);
    return s;
  }
  *out = m;
  return OLG_OK;
}

TEST(legalize_view_names_and_types) {
  olg_registry *r = builtin();
  CHECK(r);
  olg_model *src, *out;
  CHECK_OK(view_model(&src, NULL));
  for (int opset = 7; opset <= 27; opset++) {
    CHECK_OK(legalize_at(src, r, opset, &out, NULL));
    const olg_graph *g = olg_model_graph_const(out);
    CHECK_EQ(olg_model_opset(out, ""), opset);
    int k = find_node(g, "Reshape");
    CHECK(k >= 0);
    CHECK_STR(olg_node_name(g, k), "layer1.view/Reshape");
    CHECK_EQ(olg_graph_output_count(g), 1);
    olg_value y = olg_graph_output_at(g, 0);
    CHECK_STR(olg_value_name(g, y), "y");
    CHECK_EQ(olg_value_dtype(g, y), OLG_FLOAT);
    CHECK_EQ(olg_value_rank(g, y), 2);
    int64_t d;
    CHECK_OK(olg_value_dim(g, y, 1, &d, NULL));
    CHECK_EQ(d, 4);
    CHECK_EQ(olg_model_ir_version(out), olg_ir_version_for_opset(opset));
    olg_model_free(out);
  }
  olg_model_free(src);
  olg_registry_free(r);
}

/* Three unsupported nodes (two ops), one downstream of another: all three are reported in one
 * call, each with its node name; the downstream supported node adds nothing. */
TEST(legalize_reports_every_unsupported_node) {
  olg_registry *r = builtin();
  olg_model *m, *out = (olg_model *)1;
  CHECK_OK(olg_model_new(&m, NULL));
  olg_graph *g = olg_model_graph(m);
  olg_value x, a, b, c, d;
  olg_node_id n;
  int64_t dims[2] = {2, 3};
  CHECK_OK(olg_graph_add_input(g, "x", OLG_FLOAT, 2, dims, NULL, &x));
  CHECK_OK(olg_node_begin(g, "aten", "frobnicate", "f1", &n));
  CHECK_OK(olg_node_arg_value(g, n, x));
  CHECK_OK(olg_node_end(g, n, 1, NULL, &a));
  CHECK_OK(olg_node_begin(g, "aten", "frobnicate", "f2", &n));
  CHECK_OK(olg_node_arg_value(g, n, a));
  CHECK_OK(olg_node_end(g, n, 1, NULL, &b));
  CHECK_OK(olg_node_begin(g, "aten", "contiguous", "ok", &n));
  CHECK_OK(olg_node_arg_value(g, n, b));
  CHECK_OK(olg_node_end(g, n, 1, NULL, &c));
  CHECK_OK(olg_node_begin(g, "aten", "quux", "q1", &n));
  CHECK_OK(olg_node_arg_value(g, n, x));
  CHECK_OK(olg_node_end(g, n, 1, NULL, &d));
  CHECK_OK(olg_graph_add_output(g, c));
  CHECK_OK(olg_graph_add_output(g, d));
  olg_diags *dg;
  CHECK_OK(olg_diags_new(&dg, NULL));
  CHECK_STATUS(legalize_at(m, r, 13, &out, dg), OLG_ERR_UNSUPPORTED);
  CHECK(out == NULL);
  CHECK_EQ(olg_diags_error_count(dg), 3);
  int seen_f1 = 0, seen_f2 = 0, seen_q1 = 0;
  for (size_t i = 0; i < olg_diags_count(dg); i++) {
    const char *node = olg_diag_node(dg, i);
    seen_f1 += strcmp(node, "f1") == 0;
    seen_f2 += strcmp(node, "f2") == 0;
    seen_q1 += strcmp(node, "q1") == 0;
    CHECK_EQ(olg_diag_opset(dg, i), 13);
    CHECK(strstr(olg_diag_message(dg, i), "aten::") != NULL);
  }
  CHECK(seen_f1 == 1 && seen_f2 == 1 && seen_q1 == 1);
  olg_diags_free(dg);
  olg_model_free(m);
  olg_registry_free(r);
}

/* ---- caller extension: mmcv::MSDeformAttn into its own domain, with a shape function ---- */

/* MSDeformAttn(value [N,S,M,D], spatial_shapes [L,2], sampling_locations [N,Lq,M,L,P,2],
 * attention_weights [N,Lq,M,L,P]) -> [N, Lq, M*D] */
static olg_status msda_symbolic(olg_lower *cx, olg_node_id src, void *ud) {
  (void)src;
  int *calls = ud;
  (*calls)++;
  olg_node_id n;
  olg_status s = olg_lower_emit_begin(cx, "mmcv", "MSDeformAttn", &n);
  for (size_t i = 0; !s && i < 4; i++) {
    olg_value v;
    s = olg_lower_arg_value(cx, i, &v);
    if (!s) s = olg_lower_emit_input(cx, n, v);
  }
  olg_value y;
  if (!s) s = olg_lower_emit_end(cx, n, 1, &y);
  if (!s) s = olg_lower_bind_output(cx, 0, y);
  return s;
}

static olg_status msda_shape(olg_graph *g, olg_node_id n, void *ud) {
  (void)ud;
  olg_value value = olg_node_input_at(g, n, 0), loc = olg_node_input_at(g, n, 2);
  int64_t N, M, D, Lq;
  olg_status s = olg_value_dim(g, value, 0, &N, NULL);
  if (!s) s = olg_value_dim(g, value, 2, &M, NULL);
  if (!s) s = olg_value_dim(g, value, 3, &D, NULL);
  if (!s) s = olg_value_dim(g, loc, 1, &Lq, NULL);
  if (s) return s;
  int64_t dims[3] = {N, Lq, M >= 0 && D >= 0 ? M * D : -1};
  return olg_value_set_type(g, olg_node_output_at(g, n, 0), olg_value_dtype(g, value), 3, dims, NULL);
}

static olg_model *msda_model(void) {
  olg_model *m;
  if (olg_model_new(&m, NULL)) return NULL;
  olg_graph *g = olg_model_graph(m);
  olg_value in[4], y;
  int64_t d0[4] = {1, 30, 8, 32}, d1[2] = {2, 2}, d2[6] = {1, 10, 8, 2, 4, 2}, d3[5] = {1, 10, 8, 2, 4};
  olg_graph_add_input(g, "value", OLG_FLOAT, 4, d0, NULL, &in[0]);
  olg_graph_add_input(g, "shapes", OLG_INT64, 2, d1, NULL, &in[1]);
  olg_graph_add_input(g, "loc", OLG_FLOAT, 6, d2, NULL, &in[2]);
  olg_graph_add_input(g, "attn", OLG_FLOAT, 5, d3, NULL, &in[3]);
  olg_node_id n;
  olg_node_begin(g, "mmcv", "MSDeformAttn", "encoder.layers.0.attn", &n);
  for (int i = 0; i < 4; i++) olg_node_arg_value(g, n, in[i]);
  const char *names[1] = {"out"};
  olg_node_end(g, n, 1, names, &y);
  olg_graph_add_output(g, y);
  return m;
}

TEST(legalize_caller_custom_domain_with_shape_fn) {
  olg_registry *r;
  CHECK_OK(olg_registry_new_builtin(&r, NULL));
  int calls = 0;
  CHECK_OK(olg_registry_add(r, "mmcv", "MSDeformAttn", 7, msda_symbolic, &calls));
  CHECK_OK(olg_registry_add_shape_fn(r, "mmcv", "MSDeformAttn", msda_shape, NULL));
  CHECK_OK(olg_registry_set_domain_version(r, "mmcv", 2));
  CHECK_OK(olg_registry_freeze(r));
  olg_model *m = msda_model(), *out;
  CHECK(m);
  CHECK_OK(legalize_at(m, r, 16, &out, NULL));
  CHECK_EQ(calls, 1);
  CHECK_EQ(olg_model_opset(out, "mmcv"), 2);
  const olg_graph *g = olg_model_graph_const(out);
  int k = find_node(g, "MSDeformAttn");
  CHECK(k >= 0);
  CHECK_STR(olg_node_domain(g, k), "mmcv");
  CHECK_STR(olg_node_name(g, k), "encoder.layers.0.attn"); /* the op passed through keeps its name */
  olg_value y = olg_graph_output_at(g, 0);
  CHECK_STR(olg_value_name(g, y), "out");
  int64_t d;
  CHECK_OK(olg_value_dim(g, y, 2, &d, NULL));
  CHECK_EQ(d, 256);
  olg_model_free(out);
  olg_model_free(m);
  olg_registry_free(r);
}

TEST(legalize_no_decompositions_names_native_opset) {
  olg_registry *r;
  CHECK_OK(olg_registry_new_builtin(&r, NULL));
  int calls = 0;
  CHECK_OK(olg_registry_add_ex(r, "mmcv", "MSDeformAttn", 7, OLG_LOWERING_DECOMPOSED, msda_symbolic, &calls));
  CHECK_OK(olg_registry_add(r, "mmcv", "MSDeformAttn", 16, msda_symbolic, &calls));
  olg_model *m = msda_model(), *out;
  olg_diags *dg;
  CHECK_OK(olg_diags_new(&dg, NULL));
  olg_legalize_options o = OLG_LEGALIZE_OPTIONS_INIT;
  o.opset = 11;
  o.no_decompositions = 1;
  CHECK_STATUS(olg_legalize(m, r, &o, &out, dg), OLG_ERR_UNSUPPORTED);
  CHECK_EQ(olg_diags_error_count(dg), 1);
  CHECK(strstr(olg_diag_message(dg, 0), "native from opset 16") != NULL);
  CHECK_EQ(calls, 0);
  o.no_decompositions = 0;
  CHECK_OK(olg_legalize(m, r, &o, &out, NULL));
  CHECK_EQ(calls, 1);
  olg_model_free(out);
  /* removing the caller's registrations: the op is unknown again, and said so */
  CHECK_OK(olg_registry_remove(r, "mmcv", "MSDeformAttn", 16));
  CHECK_OK(olg_registry_remove(r, "mmcv", "MSDeformAttn", 7));
  olg_diags_clear(dg);
  CHECK_STATUS(olg_legalize(m, r, &o, &out, dg), OLG_ERR_UNSUPPORTED);
  CHECK(strstr(olg_diag_message(dg, 0), "no symbolic is registered for mmcv::MSDeformAttn") != NULL);
  olg_diags_free(dg);
  olg_model_free(m);
  olg_registry_free(r);
}

/* A symbolic that knows only the next limit: below 12 it names 12, below 16 it names 16. */
static olg_status staged_symbolic(olg_lower *cx, olg_node_id src, void *ud) {
  (*(int *)ud)++;
  if (olg_lower_opset(cx) < 12) return olg_lower_unsupported(cx, "staged", 12);
  if (olg_lower_opset(cx) < 16) return olg_lower_unsupported(cx, "staged with this attribute", 16);
  return msda_symbolic(cx, src, &(int){0});
}

/* The refusal at 9 states 16, where the node converts, not 12, where it is refused again (the
 * symbolic is run at 12, then 16); one diagnostic, its message saying 16 too (issue 20). */
TEST(legalize_refusal_states_the_lowest_opset_that_converts) {
  olg_registry *r;
  CHECK_OK(olg_registry_new_builtin(&r, NULL));
  int calls = 0;
  CHECK_OK(olg_registry_add(r, "mmcv", "MSDeformAttn", 7, staged_symbolic, &calls));
  olg_model *m = msda_model(), *out;
  olg_diags *dg;
  CHECK_OK(olg_diags_new(&dg, NULL));
  CHECK_STATUS(legalize_at(m, r, 9, &out, dg), OLG_ERR_UNSUPPORTED);
  CHECK_EQ(olg_diags_error_count(dg), 1);
  CHECK_EQ(olg_diag_min_opset(dg, 0), 16);
  CHECK_EQ(olg_diag_opset(dg, 0), 9);
  CHECK(strstr(olg_diag_message(dg, 0), "the lowest opset that works is 16") != NULL);
  CHECK_EQ(calls, 3); /* at 9, then probed at 12 and 16 */
  olg_diags_clear(dg);
  CHECK_STATUS(legalize_at(m, r, 13, &out, dg), OLG_ERR_UNSUPPORTED);
  CHECK_EQ(olg_diag_min_opset(dg, 0), 16);
  CHECK_OK(legalize_at(m, r, 16, &out, NULL));
  olg_model_free(out);
  olg_diags_free(dg);
  olg_model_free(m);
  olg_registry_free(r);
}

/* squeeze of a dim of 3 is a no-op (PyTorch's meaning); the output is still named y */
TEST(legalize_squeeze_non_one_dim) {
  olg_registry *r = builtin();
  olg_model *m, *out;
  CHECK_OK(olg_model_new(&m, NULL));
  olg_graph *g = olg_model_graph(m);
  olg_value x, y;
  olg_node_id n;
  int64_t dims[2] = {2, 3};
  const char *names[1] = {"y"};
  CHECK_OK(olg_graph_add_input(g, "x", OLG_FLOAT, 2, dims, NULL, &x));
  CHECK_OK(olg_node_begin(g, "aten", "squeeze", "sq", &n));
  CHECK_OK(olg_node_arg_value(g, n, x));
  CHECK_OK(olg_node_arg_int(g, n, 1));
  CHECK_OK(olg_node_end(g, n, 1, names, &y));
  CHECK_OK(olg_graph_add_output(g, y));
  CHECK_OK(legalize_at(m, r, 9, &out, NULL));
  const olg_graph *og = olg_model_graph_const(out);
  CHECK_EQ(olg_graph_node_count(og), 1);
  CHECK_STR(olg_node_op(og, 0), "Identity");
  CHECK_STR(olg_value_name(og, olg_graph_output_at(og, 0)), "y");
  olg_model_free(out);
  olg_model_free(m);
  olg_registry_free(r);
}

/* ONNX Squeeze read at opset 11 (axes attribute) and written at 13 (axes input) and back */
TEST(legalize_onnx_squeeze_up_and_down) {
  olg_registry *r = builtin();
  olg_model *m, *out;
  CHECK_OK(olg_model_new(&m, NULL));
  CHECK_OK(olg_model_set_opset(m, "", 11));
  olg_graph *g = olg_model_graph(m);
  olg_value x, y;
  olg_node_id n;
  int64_t dims[3] = {2, 1, 3}, axes[1] = {1};
  const char *names[1] = {"y"};
  CHECK_OK(olg_graph_add_input(g, "x", OLG_FLOAT, 3, dims, NULL, &x));
  CHECK_OK(olg_node_begin(g, "", "Squeeze", "sq", &n));
  CHECK_OK(olg_node_arg_value(g, n, x));
  CHECK_OK(olg_node_attr_ints(g, n, "axes", axes, 1));
  CHECK_OK(olg_node_end(g, n, 1, names, &y));
  CHECK_OK(olg_graph_add_output(g, y));
  CHECK_OK(legalize_at(m, r, 13, &out, NULL));
  const olg_graph *og = olg_model_graph_const(out);
  int k = find_node(og, "Squeeze");
  CHECK(k >= 0);
  CHECK_EQ(olg_node_input_count(og, k), 2);
  CHECK_EQ(olg_node_attr_count(og, k), 0);
  CHECK_EQ(olg_value_rank(og, olg_graph_output_at(og, 0)), 2);
  olg_model_free(out);
  CHECK_OK(legalize_at(m, r, 7, &out, NULL));
  og = olg_model_graph_const(out);
  k = find_node(og, "Squeeze");
  CHECK(k >= 0);
  CHECK_EQ(olg_node_input_count(og, k), 1);
  CHECK_STR(olg_node_attr_name(og, k, 0), "axes");
  olg_model_free(out);
  olg_model_free(m);
  olg_registry_free(r);
}

/* x -> BitCast-26 (to int32) -> y: no earlier op reinterprets bits, so it converts nowhere
 * below 26 */
static olg_status bitcast26_model(olg_model **out) {
  olg_model *m;
  olg_status s = olg_model_new(&m, NULL);
  if (s) return s;
  olg_graph *g = olg_model_graph(m);
  olg_value x, y;
  olg_node_id n;
  int64_t dims[1] = {4};
  if ((s = olg_model_set_opset(m, "", 26)) ||
      (s = olg_graph_add_input(g, "x", OLG_FLOAT, 1, dims, NULL, &x)) ||
      (s = olg_node_begin(g, "", "BitCast", "bits", &n)) || (s = olg_node_arg_value(g, n, x)) ||
      (s = olg_node_attr_int(g, n, "to", OLG_INT32)) || (s = olg_node_end(g, n, 1, NULL, &y)) ||
      (s = olg_graph_add_output(g, y))) {
    olg_model_free(m);
    return s;
  }
  *out = m;
  return OLG_OK;
}

/* An ONNX op that does not exist at the target: the diagnostic names the first opset */
TEST(legalize_onnx_op_too_new) {
  olg_registry *r = builtin();
  olg_model *m, *out;
  CHECK_OK(bitcast26_model(&m));
  olg_diags *dg;
  CHECK_OK(olg_diags_new(&dg, NULL));
  CHECK_STATUS(legalize_at(m, r, 17, &out, dg), OLG_ERR_UNSUPPORTED);
  CHECK(strstr(olg_diag_message(dg, 0), "needs opset >= 26") != NULL);
  CHECK_OK(legalize_at(m, r, 26, &out, NULL));
  CHECK(find_node(olg_model_graph_const(out), "BitCast") >= 0);
  olg_model_free(out);
  olg_diags_free(dg);
  olg_model_free(m);
  olg_registry_free(r);
}

/* Diagnostics that could not be kept (their allocation failed) are said to be lost in the
 * error message, not left for "see the diagnostics" to find nothing */
TEST(legalize_lost_diagnostics_are_said) {
  olg_registry *r = builtin();
  olg_model *m, *out = NULL;
  CHECK_OK(bitcast26_model(&m));
  test_alloc ta;
  test_alloc_init(&ta, 0);
  olg_diags *dg;
  CHECK_OK(olg_diags_new(&dg, &ta.a));
  ta.fail_at = ta.calls + 1; /* the diagnostic's own allocation fails */
  CHECK_STATUS(legalize_at(m, r, 17, &out, dg), OLG_ERR_UNSUPPORTED);
  CHECK(olg_diags_lost(dg) >= 1);
  CHECK(strstr(olg_last_error(), "were lost: out of memory") != NULL);
  olg_diags_free(dg);
  olg_model_free(m);
  olg_registry_free(r);
}

/* tensorrt: Shape -> Gather becomes a Shape slice; without the profile the Gather stays */
TEST(legalize_tensorrt_no_gather_on_shapes) {
  olg_registry *r = builtin();
  olg_model *m, *out;
  CHECK_OK(olg_model_new(&m, NULL));
  CHECK_OK(olg_model_set_opset(m, "", 13));
  olg_graph *g = olg_model_graph(m);
  olg_value x, s, i0, y;
  olg_node_id n;
  int64_t dims[2] = {-1, 3}, zero = 0;
  const char *params[2] = {"N", NULL}, *names[1] = {"y"};
  CHECK_OK(olg_graph_add_input(g, "x", OLG_FLOAT, 2, dims, params, &x));
  CHECK_OK(olg_graph_add_initializer(g, "i0", OLG_INT64, 0, NULL, &zero, 8, OLG_DATA_COPY, NULL, NULL, &i0));
  CHECK_OK(olg_node_begin(g, "", "Shape", "shape", &n));
  CHECK_OK(olg_node_arg_value(g, n, x));
  CHECK_OK(olg_node_end(g, n, 1, NULL, &s));
  CHECK_OK(olg_node_begin(g, "", "Gather", "gather", &n));
  CHECK_OK(olg_node_arg_value(g, n, s));
  CHECK_OK(olg_node_arg_value(g, n, i0));
  CHECK_OK(olg_node_end(g, n, 1, names, &y));
  CHECK_OK(olg_graph_add_output(g, y));
  for (int opset = 13; opset <= 16; opset += 3) {
    CHECK_OK(legalize_at(m, r, opset, &out, NULL));
    CHECK(find_node(olg_model_graph_const(out), "Gather") >= 0);
    olg_model_free(out);
    olg_legalize_options o = OLG_LEGALIZE_OPTIONS_INIT;
    o.opset = opset;
    o.profile = "tensorrt";
    CHECK_OK(olg_legalize(m, r, &o, &out, NULL));
    const olg_graph *og = olg_model_graph_const(out);
    CHECK_EQ(find_node(og, "Gather"), -1);
    CHECK(find_node(og, "Shape") >= 0);
    CHECK_EQ(find_node(og, "Slice") >= 0, opset < 15);
    olg_value oy = olg_graph_output_at(og, 0);
    CHECK_STR(olg_value_name(og, oy), "y");
    CHECK_EQ(olg_value_rank(og, oy), 0);
    olg_model_free(out);
  }
  olg_legalize_options o = OLG_LEGALIZE_OPTIONS_INIT;
  o.profile = "tensorrt-9000";
  CHECK_STATUS(olg_legalize(m, r, &o, &out, NULL), OLG_ERR_INVALID_ARG);
  olg_model_free(m);
  olg_registry_free(r);
}

/* A model read from a file borrows its initializers where the file put them: raw_data at any
 * offset. Resize's known scales at an odd address are read as such (under `make sanitize`,
 * UBSan's alignment check failed on the float loads of Resize's and Upsample's lowerings). */
TEST(legalize_known_scales_at_an_odd_address) {
  olg_registry *r = builtin();
  olg_model *m, *out;
  CHECK_OK(olg_model_new(&m, NULL));
  CHECK_OK(olg_model_set_opset(m, "", 13));
  olg_graph *g = olg_model_graph(m);
  static const float scales[4] = {1, 1, 2, 3};
  static _Alignas(8) unsigned char bytes[1 + sizeof scales];
  memcpy(bytes + 1, scales, sizeof scales);
  olg_value x, sc, y;
  olg_node_id n;
  int64_t dims[4] = {1, 1, 2, 2}, four = 4;
  const char *names[1] = {"y"};
  CHECK_OK(olg_graph_add_input(g, "x", OLG_FLOAT, 4, dims, NULL, &x));
  CHECK_OK(olg_graph_add_initializer(g, "scales", OLG_FLOAT, 1, &four, bytes + 1, sizeof scales,
                                     OLG_DATA_BORROW, NULL, NULL, &sc));
  CHECK_OK(olg_node_begin(g, "", "Resize", "resize", &n));
  CHECK_OK(olg_node_arg_value(g, n, x));
  CHECK_OK(olg_node_arg_none(g, n));
  CHECK_OK(olg_node_arg_value(g, n, sc));
  CHECK_OK(olg_node_attr_string(g, n, "coordinate_transformation_mode", "asymmetric"));
  CHECK_OK(olg_node_attr_string(g, n, "nearest_mode", "floor"));
  CHECK_OK(olg_node_end(g, n, 1, names, &y));
  CHECK_OK(olg_graph_add_output(g, y));
  static const struct { int opset; const char *op; } want[] = {{7, "Upsample"}, {9, "Upsample"},
                                                              {11, "Resize"}, {13, "Resize"}};
  for (size_t k = 0; k < sizeof want / sizeof *want; k++) {
    CHECK_OK(legalize_at(m, r, want[k].opset, &out, NULL));
    const olg_graph *og = olg_model_graph_const(out);
    CHECK(find_node(og, want[k].op) >= 0);
    olg_value oy = olg_graph_output_at(og, 0);
    CHECK_EQ(olg_value_rank(og, oy), 4);
    int64_t h, w;
    CHECK_OK(olg_value_dim(og, oy, 2, &h, NULL));
    CHECK_OK(olg_value_dim(og, oy, 3, &w, NULL));
    CHECK(h == 4 && w == 6);
    olg_model_free(out);
  }
  olg_model_free(m);
  olg_registry_free(r);
}

/* Initializers: borrowed (same bytes), listed as inputs where IR < 4 needs it */
TEST(legalize_initializers_borrowed) {
  olg_registry *r = builtin();
  olg_model *m, *out;
  CHECK_OK(olg_model_new(&m, NULL));
  olg_graph *g = olg_model_graph(m);
  static float w[6] = {1, 2, 3, 4, 5, 6};
  olg_value wv, y;
  olg_node_id n;
  int64_t dims[2] = {2, 3}, size[1] = {-1};
  CHECK_OK(olg_graph_add_initializer(g, "w", OLG_FLOAT, 2, dims, w, sizeof w, OLG_DATA_BORROW, NULL, NULL, &wv));
  CHECK_OK(olg_node_begin(g, "aten", "view", "v", &n));
  CHECK_OK(olg_node_arg_value(g, n, wv));
  CHECK_OK(olg_node_arg_ints(g, n, size, 1));
  CHECK_OK(olg_node_end(g, n, 1, NULL, &y));
  CHECK_OK(olg_graph_add_output(g, y));
  olg_legalize_options o = OLG_LEGALIZE_OPTIONS_INIT;
  o.opset = 13;
  o.no_constant_folding = 1;
  CHECK_OK(olg_legalize(m, r, &o, &out, NULL));
  const olg_graph *og = olg_model_graph_const(out);
  CHECK_EQ(olg_graph_initializer_count(og), 1);
  const void *data;
  size_t nb;
  CHECK_OK(olg_value_data(og, olg_graph_initializer_at(og, 0), &data, &nb));
  CHECK(data == (const void *)w);
  CHECK_EQ(olg_graph_input_count(og), 0);
  olg_model_free(out);
  o.opset = 8; /* IR 3 */
  CHECK_OK(olg_legalize(m, r, &o, &out, NULL));
  og = olg_model_graph_const(out);
  CHECK_EQ(olg_model_ir_version(out), 3);
  /* every initializer is an input too: w, and the int64 shape (Constant-1 is float-only) */
  CHECK_EQ(olg_graph_initializer_count(og), 2);
  CHECK_EQ(olg_graph_input_count(og), 2);
  CHECK_STR(olg_value_name(og, olg_graph_input_at(og, 0)), "w");
  olg_model_free(out);
  olg_model_free(m);
  /* default opset 17, folded: the view of a small integer constant is a constant */
  CHECK_OK(olg_model_new(&m, NULL));
  g = olg_model_graph(m);
  static const int64_t iw[6] = {1, 2, 3, 4, 5, 6};
  CHECK_OK(olg_graph_add_initializer(g, "iw", OLG_INT64, 2, dims, iw, sizeof iw, OLG_DATA_BORROW, NULL, NULL, &wv));
  CHECK_OK(olg_node_begin(g, "aten", "view", "v2", &n));
  CHECK_OK(olg_node_arg_value(g, n, wv));
  CHECK_OK(olg_node_arg_ints(g, n, size, 1));
  CHECK_OK(olg_node_end(g, n, 1, NULL, &y));
  CHECK_OK(olg_graph_add_output(g, y));
  CHECK_OK(olg_legalize(m, r, NULL, &out, NULL));
  og = olg_model_graph_const(out);
  CHECK_EQ(olg_model_opset(out, ""), 17);
  CHECK_EQ(olg_graph_node_count(og), 1);
  CHECK_STR(olg_node_op(og, 0), "Constant");
  CHECK_EQ(olg_graph_initializer_count(og), 0); /* iw was folded away: not carried over */
  olg_model_free(out);
  olg_model_free(m);
  olg_registry_free(r);
}

static olg_status legalize_scenario(void *ud, const olg_allocator *a) {
  const olg_registry *r = ud;
  olg_model *src, *out;
  olg_status s = view_model(&src, a);
  if (s) return s;
  olg_diags *dg;
  s = olg_diags_new(&dg, a);
  if (!s) {
    olg_legalize_options o = OLG_LEGALIZE_OPTIONS_INIT;
    o.opset = 9;
    s = olg_legalize(src, r, &o, &out, dg);
    if (!s) olg_model_free(out);
    olg_diags_free(dg);
  }
  olg_model_free(src);
  return s;
}

TEST(legalize_every_allocation_failure) {
  olg_registry *r = builtin();
  CHECK(r);
  CHECK_FAIL_EACH_ALLOCATION(legalize_scenario, r);
  olg_registry_free(r);
}

/* A frozen registry serves concurrent olg_legalize calls (run under TSan/ASan to see races). */
#include <pthread.h>

struct thread_job {
  const olg_registry *r;
  const olg_model *src;
  int opset;
  olg_status s;
  int reshape_found;
};

static void *legalize_thread(void *p) {
  struct thread_job *j = p;
  for (int k = 0; k < 20 && !j->s; k++) {
    olg_model *out;
    j->s = legalize_at(j->src, j->r, j->opset, &out, NULL);
    if (!j->s) {
      j->reshape_found = find_node(olg_model_graph_const(out), "Reshape") >= 0;
      olg_model_free(out);
    }
  }
  return NULL;
}

TEST(legalize_frozen_registry_shared_by_threads) {
  olg_registry *r = builtin();
  olg_model *src;
  CHECK_OK(view_model(&src, NULL));
  pthread_t t[4];
  struct thread_job jobs[4];
  for (int i = 0; i < 4; i++) {
    jobs[i] = (struct thread_job){r, src, 9 + 4 * i, OLG_OK, 0};
    CHECK(pthread_create(&t[i], NULL, legalize_thread, &jobs[i]) == 0);
  }
  for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
  for (int i = 0; i < 4; i++) {
    CHECK_OK(jobs[i].s);
    CHECK(jobs[i].reshape_found);
  }
  olg_model_free(src);
  olg_registry_free(r);
}

/* A module called twice gives two source nodes with one name; ONNX Runtime refuses a graph whose
 * node names repeat, so the emitted names must differ. */
TEST(legalize_node_names_unique_when_source_names_repeat) {
  olg_model *src, *out = NULL;
  CHECK_OK(olg_model_new(&src, NULL));
  olg_graph *g = olg_model_graph(src);
  const int64_t dims[1] = {4};
  olg_value v;
  CHECK_OK(olg_graph_add_input(g, "x", OLG_FLOAT, 1, dims, NULL, &v));
  for (int i = 0; i < 3; i++) {
    olg_node_id n;
    CHECK_OK(olg_node_begin(g, "aten", "relu", "layer1.relu", &n));
    CHECK_OK(olg_node_arg_value(g, n, v));
    CHECK_OK(olg_node_end(g, n, 1, NULL, &v));
  }
  CHECK_OK(olg_graph_add_output(g, v));
  olg_registry *r = builtin();
  CHECK(r);
  olg_diags *d;
  CHECK_OK(olg_diags_new(&d, NULL));
  CHECK_OK(olg_legalize(src, r, NULL, &out, d));
  const olg_graph *og = olg_model_graph_const(out);
  CHECK_EQ(olg_graph_node_count(og), 3);
  CHECK_STR(olg_node_name(og, 0), "layer1.relu/Relu");
  CHECK_STR(olg_node_name(og, 1), "layer1.relu/Relu#2");
  CHECK_STR(olg_node_name(og, 2), "layer1.relu/Relu#3");
  olg_model_free(out);
  olg_diags_free(d);
  olg_registry_free(r);
  olg_model_free(src);
}

/* An ONNX node of op (src opset) on x float[2,4,2] and the int64 scalar INT64_MAX as its input
 * 1 (axis, k, dft_length) or 2 (DFT-20's axis), legalized to `to`. */
static olg_status int64_max_scalar_model(const char *op, int src, int at, int to,
                                         const olg_registry *r, olg_diags *d) {
  olg_model *m = NULL, *out = NULL;
  olg_status s = olg_model_new(&m, NULL);
  if (s) return s;
  olg_graph *g = olg_model_graph(m);
  olg_value x, big, y;
  olg_node_id n;
  int64_t dims[3] = {2, 4, 2}, v = INT64_MAX;
  if (!(s = olg_model_set_opset(m, "", src)) &&
      !(s = olg_graph_add_input(g, "x", OLG_FLOAT, 3, dims, NULL, &x)) &&
      !(s = olg_graph_add_initializer(g, "big", OLG_INT64, 0, NULL, &v, 8, OLG_DATA_COPY, NULL,
                                      NULL, &big)) &&
      !(s = olg_node_begin(g, "", op, op, &n)) && !(s = olg_node_arg_value(g, n, x)) &&
      !(s = olg_node_arg_value(g, n, at == 1 ? big : OLG_NO_VALUE)) &&
      (at != 2 || !(s = olg_node_arg_value(g, n, big))) &&
      !(s = olg_node_end(g, n, 1, NULL, &y)) && !(s = olg_graph_add_output(g, y)))
    s = legalize_at(m, r, to, &out, d);
  olg_model_free(out);
  olg_model_free(m);
  return s;
}

/* A known axis, k or DFT length of INT64_MAX reached the lowerings as the double 2^63 and was
 * cast back to int64 (undefined behaviour: these fail under `make sanitize` without the fix);
 * each is refused as out of range. */
TEST(legalize_int64_max_scalars_refused) {
  olg_registry *r = builtin();
  CHECK(r);
  static const struct { const char *op; int src, at, to; } c[] = {
      {"CumSum", 11, 1, 10}, {"CumProd", 26, 1, 25}, {"TopK", 11, 1, 10}, {"DFT", 20, 2, 16},
      {"DFT", 17, 1, 16}};
  for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
    olg_diags *d;
    CHECK_OK(olg_diags_new(&d, NULL));
    CHECK(int64_max_scalar_model(c[i].op, c[i].src, c[i].at, c[i].to, r, d) != OLG_OK);
    int found = 0;
    for (size_t k = 0; k < olg_diags_count(d); k++)
      found |= strstr(olg_diag_message(d, k), "out of range") != NULL;
    CHECK(found);
    olg_diags_free(d);
  }
  olg_registry_free(r);
}

/* AveragePool-10 with ceil_mode below 10, and AveragePool-19 with dilations below 19 (the
 * grouped-Conv decomposition), of pads near INT64_MAX: the window arithmetic passed int64
 * (undefined behaviour; inference leaves such dims unknown). Refused as past the bounds. */
TEST(legalize_pool_huge_pads_refused) {
  olg_registry *r = builtin();
  CHECK(r);
  for (int c = 0; c < 2; c++) {
    olg_model *m, *out = NULL;
    CHECK_OK(olg_model_new(&m, NULL));
    olg_graph *g = olg_model_graph(m);
    CHECK_OK(olg_model_set_opset(m, "", c ? 19 : 10));
    olg_value x, y;
    olg_node_id n;
    CHECK_OK(olg_graph_add_input(g, "x", OLG_FLOAT, 4, (const int64_t[]){1, 1, 8, 8}, NULL, &x));
    CHECK_OK(olg_node_begin(g, "", "AveragePool", "pool", &n));
    CHECK_OK(olg_node_arg_value(g, n, x));
    CHECK_OK(olg_node_attr_ints(g, n, "kernel_shape", (const int64_t[]){2, 2}, 2));
    CHECK_OK(olg_node_attr_ints(g, n, "pads", (const int64_t[]){0, 0, INT64_MAX - 1, 0}, 4));
    if (c) CHECK_OK(olg_node_attr_ints(g, n, "dilations", (const int64_t[]){2, 1}, 2));
    else CHECK_OK(olg_node_attr_int(g, n, "ceil_mode", 1));
    CHECK_OK(olg_node_end(g, n, 1, NULL, &y));
    CHECK_OK(olg_graph_add_output(g, y));
    olg_diags *d;
    CHECK_OK(olg_diags_new(&d, NULL));
    CHECK(legalize_at(m, r, c ? 18 : 9, &out, d) != OLG_OK);
    int found = 0;
    for (size_t k = 0; k < olg_diags_count(d); k++)
      found |= strstr(olg_diag_message(d, k), "past 2^31") != NULL;
    CHECK(found);
    olg_diags_free(d);
    olg_model_free(m);
  }
  olg_registry_free(r);
}
