/* Allocation-failure injection beyond the per-module tests: legalizing ONNX models with
 * subgraphs (If, nested If, Loop carrying a sequence, Scan), the tensorrt profile, the nanopb
 * writer (in NANOPB builds), and the heap option objects with their setters (malloc injection,
 * harness.h). Every injected failure must be reported (never OLG_OK with a missing result) and
 * leave nothing allocated; the run without a failure must succeed and give the right result. */
#include "../harness.h"

#include <stdlib.h>
#include <string.h>

#ifdef OLG_WITH_NANOPB
#include "onnxlegal/nanopb.h"
#endif

/* The models made by tests/fuzz/make_seeds.py (with the onnx package) and committed as seeds:
 * sequence-typed graph inputs cannot be declared through the C API. */
static int load(const char *name, test_buf *out) {
  char path[256];
  snprintf(path, sizeof path, "tests/fuzz/corpus/pipeline/%s", name);
  FILE *f = fopen(path, "rb");
  memset(out, 0, sizeof *out);
  if (!f) return 0;
  unsigned char chunk[4096];
  size_t k;
  while ((k = fread(chunk, 1, sizeof chunk, f)) > 0)
    if (test_buf_sink(out, chunk, k)) break;
  fclose(f);
  return out->n > 0;
}

static int count_op(const olg_graph *g, const char *op) {
  int k = 0;
  for (size_t i = 0; i < olg_graph_node_count(g); i++) k += !strcmp(olg_node_op(g, (olg_node_id)i), op);
  return k;
}

static olg_registry *frozen_builtin(void) {
  olg_registry *r = NULL;
  if (olg_registry_new_builtin(&r, NULL) || olg_registry_freeze(r)) {
    olg_registry_free(r);
    return NULL;
  }
  return r;
}

/* ---- ONNX models with subgraphs and sequences -------------------------------------------- */

typedef struct sub_job {
  const olg_registry *r;
  test_buf bytes;
  int64_t opset;
  const char *profile;
  int full_check; /* also olg_check (full) of the result, under injection too */
  olg_model *keep; /* set by the last (clean) run, for the caller to inspect; else NULL */
  olg_model *keep_src;
} sub_job;

/* read -> legalize -> check (full) -> write, every allocation through a. */
static olg_status legalize_read_model(void *ud, const olg_allocator *a) {
  sub_job *j = ud;
  olg_read_options ro = OLG_READ_OPTIONS_INIT;
  ro.allocator = a;
  olg_model *src, *out = NULL;
  olg_status s = olg_model_read_memory(&src, j->bytes.p, j->bytes.n, &ro);
  if (s) return s;
  olg_diags *d;
  s = olg_diags_new(&d, a);
  if (!s) {
    olg_legalize_options o = OLG_LEGALIZE_OPTIONS_INIT;
    o.opset = j->opset;
    o.profile = j->profile;
    o.allocator = a;
    s = olg_legalize(src, j->r, &o, &out, d);
    if (!s && !out) {
      olg_test_fail(__FILE__, __LINE__, "OLG_OK without a model");
      s = OLG_ERR_STATE;
    }
    if (!s && j->full_check) {
      olg_check_options co = OLG_CHECK_OPTIONS_INIT;
      co.full = 1;
      s = olg_check(out, &co, d);
    }
    if (!s) {
      test_buf w = {0};
      s = olg_model_write_callback(out, test_buf_sink, &w, NULL);
      free(w.p);
    }
    if (s && !a) /* the clean run: say why */
      for (size_t i = 0; i < olg_diags_count(d); i++)
        fprintf(stderr, "    %s %s '%s': %s\n", olg_diag_code(d, i), olg_diag_op(d, i),
                olg_diag_node(d, i), olg_diag_message(d, i));
    olg_diags_free(d);
  }
  if (!s && j->keep == NULL && a == NULL) {
    j->keep = out;
    j->keep_src = src;
    return s;
  }
  olg_model_free(out);
  olg_model_free(src);
  return s;
}

static void legalize_each_failure(const char *file, int line, const char *model, int64_t opset,
                                  const char *profile, const char *want_op) {
  sub_job j = {frozen_builtin(), {0}, opset, profile, 1, NULL, NULL};
  if (!j.r || !load(model, &j.bytes)) {
    olg_test_fail(file, line, "%s: no registry or no tests/fuzz/corpus/pipeline/%s", model, model);
    goto done;
  }
  /* the clean run first, outside injection: it must legalize and keep the op */
  olg_status s = legalize_read_model(&j, NULL);
  if (s) {
    olg_test_fail(file, line, "%s at opset %lld: %s: %s", model, (long long)opset,
                  olg_status_name(s), olg_last_error());
    goto done;
  }
  if (want_op && count_op(olg_model_graph_const(j.keep), want_op) == 0)
    olg_test_fail(file, line, "%s at opset %lld: no %s in the result", model, (long long)opset,
                  want_op);
  if (test_fail_each_allocation(file, line, legalize_read_model, &j) < 0) goto done;
done:
  olg_model_free(j.keep);
  olg_model_free(j.keep_src);
  free(j.bytes.p);
  olg_registry_free((olg_registry *)j.r);
}

TEST(alloc_fail_legalize_if) {
  legalize_each_failure(__FILE__, __LINE__, "hand-if", 7, NULL, "If");
  legalize_each_failure(__FILE__, __LINE__, "hand-if", 16, NULL, "If");
}

/* a model with two calls of a function, one nested call, attribute references: inlined */
TEST(alloc_fail_legalize_functions) {
  legalize_each_failure(__FILE__, __LINE__, "hand-functions", 9, NULL, "MatMul");
}

/* read -> check (full: every call of a function expanded and inferred) */
static olg_status check_scenario(void *ud, const olg_allocator *a) {
  test_buf *bytes = ud;
  olg_read_options ro = OLG_READ_OPTIONS_INIT;
  ro.allocator = a;
  olg_model *m;
  olg_status s = olg_model_read_memory(&m, bytes->p, bytes->n, &ro);
  if (s) return s;
  olg_diags *d;
  if (!(s = olg_diags_new(&d, a))) {
    s = olg_check(m, NULL, d);
    olg_diags_free(d);
  }
  olg_model_free(m);
  return s;
}

TEST(alloc_fail_check_of_a_model_with_functions) {
  test_buf bytes;
  CHECK(load("hand-functions", &bytes));
  CHECK_FAIL_EACH_ALLOCATION(check_scenario, &bytes);
  free(bytes.p);
}

TEST(alloc_fail_legalize_nested_if) {
  legalize_each_failure(__FILE__, __LINE__, "hand-if-nested4", 13, NULL, "If");
}

TEST(alloc_fail_legalize_loop_with_sequence) {
  legalize_each_failure(__FILE__, __LINE__, "hand-loop-seq", 13, NULL, "Loop");
  /* openvino: a profile whose rules accept the sequence ops (tensorrt refuses them) */
  legalize_each_failure(__FILE__, __LINE__, "hand-loop-seq", 17, "openvino", "Loop");
}

TEST(alloc_fail_legalize_scan) {
  legalize_each_failure(__FILE__, __LINE__, "hand-scan", 9, NULL, "Scan");
  legalize_each_failure(__FILE__, __LINE__, "hand-scan", 21, NULL, "Scan");
}

/* ---- the tensorrt profile ----------------------------------------------------------------- */

/* ONNX at opset 13, x float[N,3,4] (N symbolic): y = Reshape(x, Concat(Gather(Shape(x), 0)
 * unsqueezed, [-1])): Shape -> Gather without a profile; with tensorrt, Shape(start, end) at
 * 15+ or Shape -> Slice below. */
static olg_status dyn_view_model(olg_model **out, const olg_allocator *a) {
  olg_model_options mo = OLG_MODEL_OPTIONS_INIT;
  mo.allocator = a;
  olg_model *m;
  olg_status s = olg_model_new(&m, &mo);
  if (s) return s;
  olg_graph *g = olg_model_graph(m);
  const int64_t dims[3] = {OLG_DIM_UNKNOWN, 3, 4}, zero = 0, minus1[1] = {-1}, one = 1;
  const char *params[3] = {"N", NULL, NULL};
  olg_value x, shp, idx, n0, axes, n1, m1, cat, y;
  olg_node_id n;
#define T(expr) if ((s = (expr))) goto fail
  T(olg_model_set_opset(m, "", 13));
  T(olg_graph_set_name(g, "dyn_view"));
  T(olg_graph_add_input(g, "x", OLG_FLOAT, 3, dims, params, &x));
  T(olg_node_begin(g, "", "Shape", "shape", &n));
  T(olg_node_arg_value(g, n, x));
  T(olg_node_end(g, n, 1, NULL, &shp));
  T(olg_node_begin(g, "", "Constant", "idx", &n));
  T(olg_node_attr_tensor(g, n, "value", OLG_INT64, 0, NULL, &zero, sizeof zero));
  T(olg_node_end(g, n, 1, NULL, &idx));
  T(olg_node_begin(g, "", "Gather", "gather", &n));
  T(olg_node_arg_value(g, n, shp)); T(olg_node_arg_value(g, n, idx));
  T(olg_node_end(g, n, 1, NULL, &n0));
  T(olg_node_begin(g, "", "Constant", "axes", &n));
  T(olg_node_attr_tensor(g, n, "value", OLG_INT64, 1, &one, &zero, sizeof zero));
  T(olg_node_end(g, n, 1, NULL, &axes));
  T(olg_node_begin(g, "", "Unsqueeze", "unsq", &n));
  T(olg_node_arg_value(g, n, n0)); T(olg_node_arg_value(g, n, axes));
  T(olg_node_end(g, n, 1, NULL, &n1));
  T(olg_node_begin(g, "", "Constant", "m1", &n));
  T(olg_node_attr_tensor(g, n, "value", OLG_INT64, 1, &one, minus1, sizeof minus1));
  T(olg_node_end(g, n, 1, NULL, &m1));
  T(olg_node_begin(g, "", "Concat", "cat", &n));
  T(olg_node_arg_value(g, n, n1)); T(olg_node_arg_value(g, n, m1));
  T(olg_node_attr_int(g, n, "axis", 0));
  T(olg_node_end(g, n, 1, NULL, &cat));
  T(olg_node_begin(g, "", "Reshape", "reshape", &n));
  T(olg_node_arg_value(g, n, x)); T(olg_node_arg_value(g, n, cat));
  T(olg_node_end(g, n, 1, NULL, &y));
  T(olg_graph_add_output(g, y));
#undef T
  *out = m;
  return OLG_OK;
fail:
  olg_model_free(m);
  return s;
}

typedef struct trt_job {
  const olg_registry *r;
  int64_t opset;
  int gathers; /* Gather nodes in the result of the clean run */
} trt_job;

static olg_status tensorrt_scenario(void *ud, const olg_allocator *a) {
  trt_job *j = ud;
  olg_model *src, *out;
  olg_status s = dyn_view_model(&src, a);
  if (s) return s;
  olg_diags *d;
  s = olg_diags_new(&d, a);
  if (!s) {
    olg_legalize_options o = OLG_LEGALIZE_OPTIONS_INIT;
    o.opset = j->opset;
    o.profile = "tensorrt";
    s = olg_legalize(src, j->r, &o, &out, d);
    if (!s) {
      j->gathers = count_op(olg_model_graph_const(out), "Gather");
      test_buf w = {0};
      s = olg_model_write_callback(out, test_buf_sink, &w, NULL);
      free(w.p);
      olg_model_free(out);
    }
    olg_diags_free(d);
  }
  olg_model_free(src);
  return s;
}

TEST(alloc_fail_tensorrt_profile) {
  olg_registry *r = frozen_builtin();
  CHECK(r);
  static const int64_t opsets[3] = {9, 13, 17};
  for (int i = 0; i < 3; i++) {
    trt_job j = {r, opsets[i], -1};
    /* the rewrite happens: a plain legalize has a Gather on the shape, tensorrt none */
    olg_model *src, *out;
    CHECK_OK(dyn_view_model(&src, NULL));
    olg_legalize_options o = OLG_LEGALIZE_OPTIONS_INIT;
    o.opset = opsets[i];
    CHECK_OK(olg_legalize(src, r, &o, &out, NULL));
    int plain = count_op(olg_model_graph_const(out), "Gather");
    olg_model_free(out);
    olg_model_free(src);
    CHECK(plain > 0);
    CHECK_FAIL_EACH_ALLOCATION(tensorrt_scenario, &j);
    CHECK_EQ(j.gathers, 0);
  }
  olg_registry_free(r);
}

/* ---- the nanopb writer -------------------------------------------------------------------- */

#ifdef OLG_WITH_NANOPB
typedef struct np_job {
  const olg_registry *r;
  test_buf bytes;
} np_job;

/* read -> legalize (13) -> both writers, the same bytes; the nanopb writer allocates nothing,
 * so the failures land in the reader and legalize, and a failing sink stops it cleanly. */
static olg_status nanopb_scenario(void *ud, const olg_allocator *a) {
  np_job *j = ud;
  olg_read_options ro = OLG_READ_OPTIONS_INIT;
  ro.allocator = a;
  olg_model *src, *out;
  olg_status s = olg_model_read_memory(&src, j->bytes.p, j->bytes.n, &ro);
  if (s) return s;
  const olg_model *models[2] = {src, NULL};
  olg_legalize_options o = OLG_LEGALIZE_OPTIONS_INIT;
  o.opset = 13;
  s = olg_legalize(src, j->r, &o, &out, NULL);
  if (!s) models[1] = out;
  for (int i = 0; i < 2 && !s; i++) {
    test_buf w1 = {0}, w2 = {0};
    s = olg_model_write_callback(models[i], test_buf_sink, &w1, NULL);
    if (!s) s = olg_model_write_nanopb(models[i], test_buf_sink, &w2);
    if (!s && (w1.n != w2.n || memcmp(w1.p, w2.p, w1.n) != 0)) {
      olg_test_fail(__FILE__, __LINE__, "the writers disagree: %zu vs %zu bytes", w1.n, w2.n);
      s = OLG_ERR_STATE;
    }
    free(w1.p);
    free(w2.p);
  }
  if (models[1]) olg_model_free(out);
  olg_model_free(src);
  return s;
}

TEST(alloc_fail_nanopb_writer_on_subgraphs) {
  static const char *const names[5] = {"hand-if", "hand-if-nested4", "hand-loop-seq", "hand-scan",
                                       "hand-functions"};
  np_job j = {frozen_builtin(), {0}};
  CHECK(j.r);
  for (int i = 0; i < 5 && !olg_test_failed(); i++) {
    if (!load(names[i], &j.bytes)) {
      olg_test_fail(__FILE__, __LINE__, "no tests/fuzz/corpus/pipeline/%s", names[i]);
      break;
    }
    if (test_fail_each_allocation(__FILE__, __LINE__, nanopb_scenario, &j) < 0) {
      olg_test_fail(__FILE__, __LINE__, "model %s", names[i]);
    }
    free(j.bytes.p);
    j.bytes.p = NULL;
  }
  free(j.bytes.p);
  olg_registry_free((olg_registry *)j.r);
}

/* The writer's promise (issue 24): once the model is built, with every allocation failing (the
 * model's allocator hook, and the library's own malloc, calloc and realloc), the nanopb writer
 * still writes the file the default writer wrote before, byte for byte. The sink is a FILE
 * opened beforehand (its buffer is libc's, not the library's). */
static int file_sink(void *ud, const void *p, size_t n) { return fwrite(p, 1, n, ud) != n; }

static int same_files(const char *a, const char *b) {
  FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
  int same = fa && fb;
  while (same) {
    unsigned char ba[4096], bb[4096];
    size_t na = fread(ba, 1, sizeof ba, fa), nb = fread(bb, 1, sizeof bb, fb);
    if (na != nb || memcmp(ba, bb, na) != 0) same = 0;
    if (na == 0) break;
  }
  if (fa) fclose(fa);
  if (fb) fclose(fb);
  return same;
}

static void nanopb_same_file_under_failure(const char *what, const olg_model *m, test_alloc *ta) {
  char a[512], b[512];
  snprintf(a, sizeof a, "%s", test_tmp_path("np_default.onnx"));
  snprintf(b, sizeof b, "%s", test_tmp_path("np_nanopb.onnx"));
  olg_status s = olg_model_write_file(m, a, NULL);
  if (s) {
    olg_test_fail(__FILE__, __LINE__, "%s: default writer: %s", what, olg_status_name(s));
    return;
  }
  FILE *f = fopen(b, "wb");
  if (!f) {
    olg_test_fail(__FILE__, __LINE__, "%s: cannot open %s", what, b);
    return;
  }
  long calls = ta->calls;
  ta->fail_from = calls + 1;
  test_malloc_fail_all(1);
  s = olg_model_write_nanopb(m, file_sink, f);
  long mallocs = test_malloc_fail_all(0);
  ta->fail_from = 0;
  int closed = fclose(f) == 0;
  if (s || !closed || ta->calls != calls || ta->failed || mallocs != 0)
    olg_test_fail(__FILE__, __LINE__, "%s: nanopb writer: %s, %ld allocator calls, %ld mallocs",
                  what, olg_status_name(s), ta->calls - calls, mallocs);
  else if (!same_files(a, b))
    olg_test_fail(__FILE__, __LINE__, "%s: the nanopb writer's file differs", what);
}

TEST(alloc_fail_nanopb_writer_writes_same_file_when_all_fail) {
  test_alloc ta;
  test_alloc_init(&ta, 0);
  olg_registry *r = frozen_builtin();
  CHECK(r);
  olg_model *m = NULL;
  CHECK_OK(dyn_view_model(&m, &ta.a));
  nanopb_same_file_under_failure("built", m, &ta);
  olg_model_free(m);
  static const char *const names[5] = {"hand-if", "hand-if-nested4", "hand-loop-seq", "hand-scan",
                                       "hand-functions"};
  for (int i = 0; i < 5 && !olg_test_failed(); i++) {
    test_buf bytes;
    if (!load(names[i], &bytes)) {
      olg_test_fail(__FILE__, __LINE__, "no tests/fuzz/corpus/pipeline/%s", names[i]);
      break;
    }
    olg_read_options ro = OLG_READ_OPTIONS_INIT;
    ro.allocator = &ta.a;
    olg_model *src = NULL, *out = NULL;
    olg_status s = olg_model_read_memory(&src, bytes.p, bytes.n, &ro);
    free(bytes.p);
    if (s) {
      olg_test_fail(__FILE__, __LINE__, "%s: read: %s", names[i], olg_status_name(s));
      break;
    }
    nanopb_same_file_under_failure(names[i], src, &ta); /* kept fields re-emitted */
    olg_legalize_options o = OLG_LEGALIZE_OPTIONS_INIT;
    o.opset = 13;
    if (!(s = olg_legalize(src, r, &o, &out, NULL)))
      nanopb_same_file_under_failure(names[i], out, &ta);
    else
      olg_test_fail(__FILE__, __LINE__, "%s: legalize: %s", names[i], olg_status_name(s));
    olg_model_free(out);
    olg_model_free(src);
  }
  olg_registry_free(r);
  CHECK_EQ(ta.live_blocks, 0);
}
#endif

/* ---- the heap option objects and their setters (malloc injection) ------------------------ */

/* Every setter, then the options used: a legalize (default allocator: malloc, injected too),
 * a check and a write with external data to a file in the scratch directory. */
static olg_status options_scenario(void *ud, const olg_allocator *a) {
  (void)a;
  const olg_registry *r = ud;
  olg_legalize_options *lo = NULL;
  olg_write_options *wo = NULL;
  olg_check_options *co = NULL;
  olg_model *src = NULL, *out = NULL;
  olg_status s;
  if ((s = olg_legalize_options_new(&lo))) goto done;
  if ((s = olg_legalize_options_set_opset(lo, 15))) goto done;
  if ((s = olg_legalize_options_set_ir_version(lo, 8))) goto done;
  if ((s = olg_legalize_options_set_flags(lo, 1, 0, 1))) goto done;
  if ((s = olg_legalize_options_set_profile(lo, "tensorrt"))) goto done;
  if ((s = olg_legalize_options_set_profile(lo, "tensorrt"))) goto done; /* replaces */
  if ((s = olg_write_options_new(&wo))) goto done;
  if ((s = olg_write_options_set_external_data(wo, "alloc_fail_ext.bin", 0))) goto done;
  if ((s = olg_write_options_set_external_data_dir(wo, test_tmp_path("")))) goto done;
  if ((s = olg_check_options_new(&co))) goto done;
  if ((s = olg_check_options_set(co, 1, 0, 0, 1))) goto done;
  if ((s = dyn_view_model(&src, NULL))) goto done;
  if ((s = olg_legalize(src, r, lo, &out, NULL))) goto done;
  if ((s = olg_check(out, co, NULL))) goto done;
  test_buf w = {0};
  s = olg_model_write_callback(out, test_buf_sink, &w, wo);
  free(w.p);
done:
  olg_model_free(out);
  olg_model_free(src);
  olg_check_options_free(co);
  olg_write_options_free(wo);
  olg_legalize_options_free(lo);
  return s;
}

TEST(alloc_fail_option_setters) {
  olg_registry *r = frozen_builtin();
  CHECK(r);
  (void)test_tmp_path(""); /* the scratch directory exists before injection starts */
  CHECK_FAIL_EACH_MALLOC(options_scenario, r);
  olg_registry_free(r);
}
