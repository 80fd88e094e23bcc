/* Tests of the interpolation, sampling, attention and recurrence symbolics (symbolics/
 * interpolate.c, sample.c, attention.c, rnn.c): which encoding each opset gets, the refusals
 * and what they name, and every allocation failure on the way. The numbers are checked against
 * PyTorch by tests/numeric/cases_{interpolate,sample,attention,rnn}.py. */
#include <stdlib.h>

#include "../harness.h"
#include "../lowering_helpers.h"

static olg_status legalize_at(const olg_model *src, const olg_registry *r, int opset,
                              int no_decompositions, olg_model **out, olg_diags *d) {
  olg_legalize_options o = OLG_LEGALIZE_OPTIONS_INIT;
  o.opset = opset;
  o.no_decompositions = no_decompositions;
  return olg_legalize(src, r, &o, out, d);
}

/* Whether some error diagnostic mentions `text`. */
static olg_status new_model(olg_model **m, const olg_allocator *a) {
  olg_model_options mo = OLG_MODEL_OPTIONS_INIT;
  mo.allocator = a;
  return olg_model_new(m, &mo);
}

/* aten::upsample_bilinear2d(x [1, 2, 5, 5], [9, 9], align_corners) -> y: the seed. */
static olg_status bilinear_model(olg_model **out, int align_corners) {
  olg_model *m;
  olg_status s = new_model(&m, NULL);
  if (s) return s;
  olg_graph *g = olg_model_graph(m);
  olg_value x, y;
  olg_node_id n;
  int64_t dims[4] = {1, 2, 5, 5}, size[2] = {9, 9};
  if ((s = olg_graph_add_input(g, "x", OLG_FLOAT, 4, dims, NULL, &x)) ||
      (s = olg_node_begin(g, "aten", "upsample_bilinear2d", "up", &n)) ||
      (s = olg_node_arg_value(g, n, x)) || (s = olg_node_arg_ints(g, n, size, 2)) ||
      (s = olg_node_arg_bool(g, n, align_corners)) || (s = olg_node_arg_none(g, n)) ||
      (s = olg_node_arg_none(g, n)) || (s = olg_node_end(g, n, 1, NULL, &y)) ||
      (s = olg_graph_add_output(g, y))) {
    olg_model_free(m);
    return s;
  }
  *out = m;
  return OLG_OK;
}

TEST(upsample_bilinear_seed_every_opset) {
  olg_registry *r = builtin();
  CHECK(r);
  for (int ac = 0; ac <= 1; ac++) {
    olg_model *src, *out;
    CHECK_OK(bilinear_model(&src, ac));
    for (int opset = 7; opset <= 27; opset++) {
      CHECK_OK(legalize_at(src, r, opset, 0, &out, NULL));
      const olg_graph *g = olg_model_graph_const(out);
      if (opset < 11) { /* the interpolation matrices: one MatMul per axis */
        CHECK_EQ(count_op(g, "MatMul"), 2);
        CHECK_EQ(count_op(g, "Upsample") + count_op(g, "Resize"), 0);
      } else {
        CHECK_EQ(count_op(g, "Resize"), 1);
        CHECK_EQ(count_op(g, "MatMul"), 0);
      }
      olg_value y = olg_graph_output_at(g, 0);
      int64_t d;
      CHECK_OK(olg_value_dim(g, y, 3, &d, NULL));
      CHECK_EQ(d, 9);
      olg_model_free(out);
    }
    /* without decompositions, opsets 7-10 are refused, naming 11 */
    olg_diags *dg;
    CHECK_OK(olg_diags_new(&dg, NULL));
    out = (olg_model *)1;
    CHECK_STATUS(legalize_at(src, r, 9, 1, &out, dg), OLG_ERR_UNSUPPORTED);
    CHECK(out == NULL);
    CHECK(diags_mention(dg, "opset 11"));
    olg_diags_free(dg);
    olg_model_free(src);
  }
  olg_registry_free(r);
}

/* aten::upsample_nearest2d.vec(x [1, 1, H, W], None, [sh, sw]); H, W < 0: symbolic. */
static olg_status nearest_model(olg_model **out, int64_t h, int64_t w, double sh, double sw) {
  olg_model *m;
  olg_status s = new_model(&m, NULL);
  if (s) return s;
  olg_graph *g = olg_model_graph(m);
  olg_value x, y;
  olg_node_id n;
  int64_t dims[4] = {1, 1, h < 0 ? OLG_DIM_UNKNOWN : h, w < 0 ? OLG_DIM_UNKNOWN : w};
  const char *params[4] = {NULL, NULL, h < 0 ? "H" : NULL, w < 0 ? "W" : NULL};
  double scales[2] = {sh, sw};
  if ((s = olg_graph_add_input(g, "x", OLG_FLOAT, 4, dims, params, &x)) ||
      (s = olg_node_begin(g, "aten", "upsample_nearest2d", "near", &n)) ||
      (s = olg_node_arg_value(g, n, x)) || (s = olg_node_arg_none(g, n)) ||
      (s = olg_node_arg_floats(g, n, scales, 2)) || (s = olg_node_end(g, n, 1, NULL, &y)) ||
      (s = olg_graph_add_output(g, y))) {
    olg_model_free(m);
    return s;
  }
  *out = m;
  return OLG_OK;
}

TEST(upsample_nearest_encodings) {
  olg_registry *r = builtin();
  CHECK(r);
  olg_model *src, *out;
  /* integer scales: Upsample-7/9, Resize-10, Resize-11+ */
  CHECK_OK(nearest_model(&src, 3, 4, 2.0, 3.0));
  CHECK_OK(legalize_at(src, r, 7, 0, &out, NULL));
  CHECK_EQ(count_op(olg_model_graph_const(out), "Upsample"), 1);
  olg_model_free(out);
  CHECK_OK(legalize_at(src, r, 10, 0, &out, NULL));
  CHECK_EQ(count_op(olg_model_graph_const(out), "Resize"), 1);
  olg_model_free(out);
  olg_model_free(src);
  /* a downscale: Upsample cannot (its scales are >= 1), a Gather of the indices can */
  CHECK_OK(nearest_model(&src, 6, 4, 0.5, 1.0));
  CHECK_OK(legalize_at(src, r, 9, 0, &out, NULL));
  CHECK_EQ(count_op(olg_model_graph_const(out), "Upsample"), 0);
  CHECK_EQ(count_op(olg_model_graph_const(out), "Gather"), 1);
  olg_model_free(out);
  olg_model_free(src);
  /* spatial sizes unknown: integer scales still work below 11, 1.5 does not */
  CHECK_OK(nearest_model(&src, -1, -1, 2.0, 2.0));
  CHECK_OK(legalize_at(src, r, 9, 0, &out, NULL));
  CHECK_EQ(count_op(olg_model_graph_const(out), "Upsample"), 1);
  olg_model_free(out);
  olg_model_free(src);
  CHECK_OK(nearest_model(&src, -1, -1, 1.5, 2.0));
  olg_diags *dg;
  CHECK_OK(olg_diags_new(&dg, NULL));
  CHECK_STATUS(legalize_at(src, r, 10, 0, &out, dg), OLG_ERR_UNSUPPORTED);
  CHECK(diags_mention(dg, "opset >= 11"));
  olg_diags_free(dg);
  CHECK_OK(legalize_at(src, r, 11, 0, &out, NULL));
  CHECK_EQ(count_op(olg_model_graph_const(out), "Resize"), 1);
  olg_model_free(out);
  olg_model_free(src);
  olg_registry_free(r);
}

/* aten::grid_sampler(x [N, 2, 4, 5] or [N, 2, 3, 4, 5], grid, mode, padding, False);
 * n < 0: a symbolic batch. */
static olg_status grid_model(olg_model **out, int rank, int64_t n_batch, int64_t mode) {
  olg_model *m;
  olg_status s = new_model(&m, NULL);
  if (s) return s;
  olg_graph *g = olg_model_graph(m);
  olg_value x, gr, y;
  olg_node_id n;
  int64_t nb = n_batch < 0 ? OLG_DIM_UNKNOWN : n_batch;
  int64_t xd[5] = {nb, 2, 3, 4, 5}, gd[5] = {nb, 2, 3, 2, 3};
  const char *params[5] = {n_batch < 0 ? "N" : NULL, NULL, NULL, NULL, NULL};
  if (rank == 4) {
    xd[2] = 4;
    xd[3] = 5;
    gd[3] = 2;
  }
  if ((s = olg_graph_add_input(g, "x", OLG_FLOAT, rank, xd, params, &x)) ||
      (s = olg_graph_add_input(g, "grid", OLG_FLOAT, rank, gd, params, &gr)) ||
      (s = olg_node_begin(g, "aten", "grid_sampler", "gs", &n)) ||
      (s = olg_node_arg_value(g, n, x)) || (s = olg_node_arg_value(g, n, gr)) ||
      (s = olg_node_arg_int(g, n, mode)) || (s = olg_node_arg_int(g, n, 0)) ||
      (s = olg_node_arg_bool(g, n, 0)) || (s = olg_node_end(g, n, 1, NULL, &y)) ||
      (s = olg_graph_add_output(g, y))) {
    olg_model_free(m);
    return s;
  }
  *out = m;
  return OLG_OK;
}

TEST(grid_sampler_native_and_decomposed) {
  olg_registry *r = builtin();
  CHECK(r);
  olg_model *src, *out;
  CHECK_OK(grid_model(&src, 4, 2, 0));
  int opsets[] = {7, 11, 15, 16, 20};
  for (size_t i = 0; i < sizeof opsets / sizeof *opsets; i++) {
    CHECK_OK(legalize_at(src, r, opsets[i], 0, &out, NULL));
    const olg_graph *g = olg_model_graph_const(out);
    if (opsets[i] >= 16) {
      CHECK_EQ(count_op(g, "GridSample"), 1);
    } else { /* the seed: grid_sample below 16; four corners gathered */
      CHECK_EQ(count_op(g, "GridSample"), 0);
      CHECK_EQ(count_op(g, "Gather"), 2 + 4);
    }
    olg_model_free(out);
  }
  olg_model_free(src);
  /* 5-D: GridSample-20, decomposed before (naming 20 when decompositions are off) */
  CHECK_OK(grid_model(&src, 5, 2, 1));
  CHECK_OK(legalize_at(src, r, 16, 0, &out, NULL));
  CHECK_EQ(count_op(olg_model_graph_const(out), "GridSample"), 0);
  olg_model_free(out);
  CHECK_OK(legalize_at(src, r, 20, 0, &out, NULL));
  CHECK_EQ(count_op(olg_model_graph_const(out), "GridSample"), 1);
  olg_model_free(out);
  olg_diags *dg;
  CHECK_OK(olg_diags_new(&dg, NULL));
  CHECK_STATUS(legalize_at(src, r, 17, 1, &out, dg), OLG_ERR_UNSUPPORTED);
  CHECK(diags_mention(dg, "opset 20"));
  olg_diags_free(dg);
  olg_model_free(src);
  /* a symbolic batch: Range (11) builds the batch offsets; below 11 it is refused naming 11 */
  CHECK_OK(grid_model(&src, 4, -1, 0));
  CHECK_OK(olg_diags_new(&dg, NULL));
  CHECK_STATUS(legalize_at(src, r, 10, 0, &out, dg), OLG_ERR_UNSUPPORTED);
  CHECK(diags_mention(dg, "opset >= 11"));
  olg_diags_free(dg);
  CHECK_OK(legalize_at(src, r, 11, 0, &out, NULL));
  CHECK_EQ(count_op(olg_model_graph_const(out), "Range"), 1);
  olg_model_free(out);
  olg_model_free(src);
  olg_registry_free(r);
}

/* aten::lstm(x [5, 3, 4], [h0, c0], params, True, 1, 0.0, False, False, False): the weights as
 * initializers (init) or as graph inputs. */
static const float lstm_w[16 * 4 + 16 * 4 + 16 + 16] = {0};
static olg_status lstm_model(olg_model **out, int init, const olg_allocator *a) {
  olg_model *m;
  olg_status s = new_model(&m, a);
  if (s) return s;
  olg_graph *g = olg_model_graph(m);
  olg_value x, h[2], p[4], y[3];
  olg_node_id n;
  int64_t xd[3] = {5, 3, 4}, hd[3] = {1, 3, 4}, wd[2] = {16, 4}, bd[1] = {16};
  const int64_t *pd[4] = {wd, wd, bd, bd};
  const int32_t pr[4] = {2, 2, 1, 1};
  const size_t off[4] = {0, 64, 128, 144}, len[4] = {64, 64, 16, 16};
  const char *pn[4] = {"w_ih", "w_hh", "b_ih", "b_hh"};
  if ((s = olg_graph_add_input(g, "x", OLG_FLOAT, 3, xd, NULL, &x)) ||
      (s = olg_graph_add_input(g, "h0", OLG_FLOAT, 3, hd, NULL, &h[0])) ||
      (s = olg_graph_add_input(g, "c0", OLG_FLOAT, 3, hd, NULL, &h[1])))
    goto fail;
  for (int i = 0; i < 4; i++) {
    s = init ? olg_graph_add_initializer(g, pn[i], OLG_FLOAT, pr[i], pd[i], lstm_w + off[i],
                                         len[i] * sizeof(float), OLG_DATA_BORROW, NULL, NULL, &p[i])
             : olg_graph_add_input(g, pn[i], OLG_FLOAT, pr[i], pd[i], NULL, &p[i]);
    if (s) goto fail;
  }
  if ((s = olg_node_begin(g, "aten", "lstm", "rnn", &n)) || (s = olg_node_arg_value(g, n, x)) ||
      (s = olg_node_arg_values(g, n, h, 2)) || (s = olg_node_arg_values(g, n, p, 4)) ||
      (s = olg_node_arg_bool(g, n, 1)) || (s = olg_node_arg_int(g, n, 1)) ||
      (s = olg_node_arg_float(g, n, 0.0)) || (s = olg_node_arg_bool(g, n, 0)) ||
      (s = olg_node_arg_bool(g, n, 0)) || (s = olg_node_arg_bool(g, n, 0)) ||
      (s = olg_node_end(g, n, 3, NULL, y)))
    goto fail;
  for (int i = 0; i < 3; i++)
    if ((s = olg_graph_add_output(g, y[i]))) goto fail;
  *out = m;
  return OLG_OK;
fail:
  olg_model_free(m);
  return s;
}

TEST(lstm_gates_reordered_at_export_time_or_in_the_graph) {
  olg_registry *r = builtin();
  CHECK(r);
  for (int init = 0; init <= 1; init++) {
    olg_model *src, *out;
    CHECK_OK(lstm_model(&src, init, NULL));
    for (int opset = 7; opset <= 27; opset += 4) {
      CHECK_OK(legalize_at(src, r, opset, 0, &out, NULL));
      const olg_graph *g = olg_model_graph_const(out);
      CHECK_EQ(count_op(g, "LSTM"), 1);
      /* known weights: new constants; run-time weights: Split into gates and Concat back */
      CHECK_EQ(count_op(g, "Split") > 0, !init);
      CHECK_EQ(olg_graph_output_count(g), 3);
      olg_model_free(out);
    }
    olg_model_free(src);
  }
  olg_registry_free(r);
}

/* aten::scaled_dot_product_attention(q [2, 3, 4, 5], k, v [2, 3, 6, 5], mask bool [4, 6]) */
static olg_status sdpa_model(olg_model **out, const olg_allocator *a, olg_model *into) {
  olg_model *m = into;
  olg_status s = OLG_OK;
  if (!m && (s = new_model(&m, a))) return s;
  olg_graph *g = olg_model_graph(m);
  olg_value q, k, v, mask, y;
  olg_node_id n;
  int64_t qd[4] = {2, 3, 4, 5}, kd[4] = {2, 3, 6, 5}, md[2] = {4, 6};
  if ((s = olg_graph_add_input(g, "q", OLG_FLOAT, 4, qd, NULL, &q)) ||
      (s = olg_graph_add_input(g, "k", OLG_FLOAT, 4, kd, NULL, &k)) ||
      (s = olg_graph_add_input(g, "v", OLG_FLOAT, 4, kd, NULL, &v)) ||
      (s = olg_graph_add_input(g, "mask", OLG_BOOL, 2, md, NULL, &mask)) ||
      (s = olg_node_begin(g, "aten", "scaled_dot_product_attention", "attn", &n)) ||
      (s = olg_node_arg_value(g, n, q)) || (s = olg_node_arg_value(g, n, k)) ||
      (s = olg_node_arg_value(g, n, v)) || (s = olg_node_arg_value(g, n, mask)) ||
      (s = olg_node_arg_float(g, n, 0.0)) || (s = olg_node_arg_bool(g, n, 1)) ||
      (s = olg_node_end(g, n, 1, NULL, &y)) || (s = olg_graph_add_output(g, y))) {
    if (!into) olg_model_free(m);
    return s;
  }
  *out = m;
  return OLG_OK;
}

TEST(sdpa_attention23_or_decomposed) {
  olg_registry *r = builtin();
  CHECK(r);
  olg_model *src, *out;
  CHECK_OK(sdpa_model(&src, NULL, NULL));
  for (int opset = 7; opset <= 27; opset++) {
    CHECK_OK(legalize_at(src, r, opset, 0, &out, NULL));
    const olg_graph *g = olg_model_graph_const(out);
    CHECK_EQ(count_op(g, "Attention"), opset >= 23);
    CHECK_EQ(count_op(g, "MatMul"), opset >= 23 ? 0 : 2);
    CHECK_EQ(count_op(g, "Where"), opset >= 9 && opset < 23); /* the bool mask as a bias */
    olg_model_free(out);
  }
  olg_diags *dg;
  CHECK_OK(olg_diags_new(&dg, NULL));
  CHECK_STATUS(legalize_at(src, r, 17, 1, &out, dg), OLG_ERR_UNSUPPORTED);
  CHECK(diags_mention(dg, "opset 23"));
  olg_diags_free(dg);
  olg_model_free(src);
  olg_registry_free(r);
}

/* An allocator that refuses any single block over 16 MiB and keeps the largest one asked for. */
typedef struct capped {
  olg_allocator a;
  size_t largest;
} capped;
static void *capped_alloc(void *ud, size_t n) {
  capped *c = ud;
  if (n > c->largest) c->largest = n;
  return n > ((size_t)16 << 20) ? NULL : malloc(n);
}
static void capped_free(void *ud, void *p, size_t n) { (void)ud; (void)n; free(p); }

/* Resize-13 (mode) of x [1, 1, 5, 6] to sizes. */
static olg_status resize_model(olg_model **out, const char *mode, const int64_t sizes[4]) {
  olg_model *m;
  olg_status s = new_model(&m, NULL);
  if (s) return s;
  olg_graph *g = olg_model_graph(m);
  olg_value x, sz, y;
  olg_node_id n;
  int64_t dims[4] = {1, 1, 5, 6}, four = 4;
  if ((s = olg_model_set_opset(m, "", 13)) ||
      (s = olg_graph_add_input(g, "x", OLG_FLOAT, 4, dims, NULL, &x)) ||
      (s = olg_graph_add_initializer(g, "sizes", OLG_INT64, 1, &four, sizes, 4 * sizeof *sizes,
                                     OLG_DATA_COPY, NULL, NULL, &sz)) ||
      (s = olg_node_begin(g, "", "Resize", "resize", &n)) || (s = olg_node_arg_value(g, n, x)) ||
      (s = olg_node_arg_none(g, n)) || (s = olg_node_arg_none(g, n)) ||
      (s = olg_node_arg_value(g, n, sz)) || (s = olg_node_attr_string(g, n, "mode", mode)) ||
      (s = olg_node_end(g, n, 1, NULL, &y)) || (s = olg_graph_add_output(g, y))) {
    olg_model_free(m);
    return s;
  }
  *out = m;
  return OLG_OK;
}

/* Below 11 Resize decomposes by tables built at conversion time; one too large to embed is
 * refused before its tables are built (they had taken 2 x 128 MiB for the cubic case, 1 GiB for
 * the fuzzer's three nodes), naming opset 11, where Resize is native. */
TEST(resize_tables_too_large_refused_before_built) {
  olg_registry *r = builtin();
  CHECK(r);
  static const struct {
    const char *mode;
    int64_t sizes[4];
    const char *why;
  } cases[] = {
      /* a 4194304 x 6 matrix: past the per-matrix bound */
      {"cubic", {1, 1, 5, (int64_t)1 << 22}, "too large to embed"},
      /* two nearest axes, each within the per-axis bound (2^24), not together: refused at the
         second, whose table (120 MiB) is not built */
      {"nearest", {1, 1, (int64_t)1 << 20, ((int64_t)1 << 24) - ((int64_t)1 << 19)},
       "entries the decomposition embeds"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    olg_model *src, *out = NULL;
    CHECK_OK(resize_model(&src, cases[i].mode, cases[i].sizes));
    capped c = {{sizeof(olg_allocator), capped_alloc, NULL, capped_free, NULL}, 0};
    c.a.ud = &c;
    olg_legalize_options o = OLG_LEGALIZE_OPTIONS_INIT;
    o.opset = 10;
    o.allocator = &c.a;
    olg_diags *dg;
    CHECK_OK(olg_diags_new(&dg, NULL));
    CHECK_STATUS(olg_legalize(src, r, &o, &out, dg), OLG_ERR_UNSUPPORTED);
    CHECK(out == NULL);
    CHECK(diags_mention(dg, cases[i].why));
    CHECK(diags_mention(dg, "opset >= 11"));
    CHECK(c.largest <= ((size_t)16 << 20));
    olg_diags_free(dg);
    o.opset = 11; /* native */
    o.allocator = NULL;
    CHECK_OK(olg_legalize(src, r, &o, &out, NULL));
    CHECK_EQ(count_op(olg_model_graph_const(out), "Resize"), 1);
    olg_model_free(out);
    olg_model_free(src);
  }
  olg_registry_free(r);
}

/* One model with a node of each family, legalized at opset 9 (decompositions everywhere) with
 * every allocation failing in turn. */
static olg_status family_scenario(void *ud, const olg_allocator *a) {
  const olg_registry *r = ud;
  olg_model *m, *out;
  olg_status s = lstm_model(&m, 1, a);
  if (s) return s;
  olg_graph *g = olg_model_graph(m);
  olg_value x, gr, y;
  olg_node_id n;
  int64_t xd[4] = {1, 2, 5, 5}, gd[4] = {1, 3, 4, 2}, size[2] = {9, 9};
  if ((s = olg_graph_add_input(g, "img", OLG_FLOAT, 4, xd, NULL, &x)) ||
      (s = olg_graph_add_input(g, "grid", OLG_FLOAT, 4, gd, NULL, &gr)) ||
      (s = olg_node_begin(g, "aten", "upsample_bicubic2d", "up", &n)) ||
      (s = olg_node_arg_value(g, n, x)) || (s = olg_node_arg_ints(g, n, size, 2)) ||
      (s = olg_node_arg_bool(g, n, 0)) || (s = olg_node_end(g, n, 1, NULL, &y)) ||
      (s = olg_graph_add_output(g, y)) ||
      (s = olg_node_begin(g, "aten", "grid_sampler", "gs", &n)) ||
      (s = olg_node_arg_value(g, n, x)) || (s = olg_node_arg_value(g, n, gr)) ||
      (s = olg_node_arg_int(g, n, 2)) || (s = olg_node_arg_int(g, n, 2)) ||
      (s = olg_node_arg_bool(g, n, 1)) || (s = olg_node_end(g, n, 1, NULL, &y)) ||
      (s = olg_graph_add_output(g, y)) || (s = sdpa_model(&m, a, m))) {
    olg_model_free(m);
    return s;
  }
  /* 3-D: trilinear (its depth axis goes through a Reshape), nearest with a downscale (a Gather),
   * and an affine grid (MatMul over the base grid) */
  olg_value v, th, y3[3];
  int64_t vd[5] = {1, 2, 3, 4, 5}, td[3] = {1, 3, 4}, s3[3] = {5, 2, 7}, asz[5] = {1, 2, 3, 4, 5};
  static const double sc3[3] = {2.0, 0.5, 1.5};
  if ((s = olg_graph_add_input(g, "vol", OLG_FLOAT, 5, vd, NULL, &v)) ||
      (s = olg_graph_add_input(g, "theta", OLG_FLOAT, 3, td, NULL, &th)) ||
      (s = olg_node_begin(g, "aten", "upsample_trilinear3d", "tri", &n)) ||
      (s = olg_node_arg_value(g, n, v)) || (s = olg_node_arg_ints(g, n, s3, 3)) ||
      (s = olg_node_arg_bool(g, n, 1)) || (s = olg_node_end(g, n, 1, NULL, &y3[0])) ||
      (s = olg_node_begin(g, "aten", "upsample_nearest3d", "near", &n)) ||
      (s = olg_node_arg_value(g, n, v)) || (s = olg_node_arg_none(g, n)) ||
      (s = olg_node_arg_floats(g, n, sc3, 3)) || (s = olg_node_end(g, n, 1, NULL, &y3[1])) ||
      (s = olg_node_begin(g, "aten", "affine_grid_generator", "aff", &n)) ||
      (s = olg_node_arg_value(g, n, th)) || (s = olg_node_arg_ints(g, n, asz, 5)) ||
      (s = olg_node_arg_bool(g, n, 0)) || (s = olg_node_end(g, n, 1, NULL, &y3[2]))) {
    olg_model_free(m);
    return s;
  }
  for (int i = 0; i < 3 && !s; i++) s = olg_graph_add_output(g, y3[i]);
  olg_diags *dg;
  if (!s) s = olg_diags_new(&dg, a);
  if (!s) {
    s = legalize_at(m, r, 9, 0, &out, dg);
    if (!s) olg_model_free(out);
    olg_diags_free(dg);
  }
  olg_model_free(m);
  return s;
}

TEST(family_every_allocation_failure) {
  olg_registry *r = builtin();
  CHECK(r);
  CHECK_OK(family_scenario(r, NULL)); /* it works when nothing fails */
  CHECK_FAIL_EACH_ALLOCATION(family_scenario, r);
  olg_registry_free(r);
}

/* grid_sampler decomposed (below 16) with a known batch of 2^31: its batch offsets, a constant,
 * asked for 16 GiB (found by tests/fuzz/mutate.py through GridSample at 7). Past 2^24 they come
 * from Range (11), refused naming 11 below; a padded input past int64 elements (a batch of
 * 2^60) is refused, its flat positions having overflowed int64. */
TEST(grid_sampler_huge_batch) {
  olg_registry *r = builtin();
  CHECK(r);
  olg_model *src, *out = NULL;
  olg_diags *dg;
  CHECK_OK(grid_model(&src, 4, (int64_t)1 << 31, 0));
  CHECK_OK(olg_diags_new(&dg, NULL));
  CHECK_STATUS(legalize_at(src, r, 10, 0, &out, dg), OLG_ERR_UNSUPPORTED);
  CHECK(out == NULL);
  CHECK(diags_mention(dg, "with a batch over 2^24 (its offsets need Range)"));
  CHECK_EQ(olg_diag_min_opset(dg, 0), 11);
  olg_diags_free(dg);
  CHECK_OK(legalize_at(src, r, 11, 0, &out, NULL));
  CHECK_EQ(count_op(olg_model_graph_const(out), "Range"), 1);
  olg_model_free(out);
  olg_model_free(src);
  CHECK_OK(grid_model(&src, 4, (int64_t)1 << 60, 0));
  CHECK_OK(olg_diags_new(&dg, NULL));
  CHECK_STATUS(legalize_at(src, r, 11, 0, &out, dg), OLG_ERR_LIMIT);
  CHECK(diags_mention(dg, "the padded input has more elements than int64 counts"));
  CHECK(strstr(olg_last_error(), "aten::grid_sampler (node 'gs') at opset 11") != NULL);
  olg_diags_free(dg);
  olg_model_free(src);
  olg_registry_free(r);
}
