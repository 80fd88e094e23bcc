/* `make tsan`: 8 threads legalize and write with ONE frozen registry, under ThreadSanitizer.
 *
 * The sources: a graph of aten ops built here (with an initializer, so the outputs borrow its
 * bytes), and the backend test models with subgraphs and sequences (If, Loop, Scan) when
 * libonnx-testdata is installed. Each is legalized to opsets 7..27 once on the main thread, for
 * reference bytes (or a reference failure). Then 8 threads, each starting at another place in
 * the (model, opset, profile) list, legalize the SHARED sources to every entry, check the result
 * (full, with inference: the result is the thread's own), write it to memory and compare the
 * bytes with the reference: the work is the same whatever the interleaving. TSan reports any race
 * (TSAN_OPTIONS=halt_on_error=1 makes the first one fatal); a difference in bytes or status is a
 * failure here. Exit 0 only when every thread agreed with the reference. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "onnxlegal/onnxlegal.h"

#define THREADS 8
#define MAX_MODELS 16
#define OPSET_MIN 7
#define OPSET_MAX 27
#define N_OPSETS (OPSET_MAX - OPSET_MIN + 1)

typedef struct buf {
  uint8_t *p;
  size_t n, cap;
} buf;

static int keep(void *ud, const void *p, size_t n) {
  buf *b = ud;
  if (b->n + n > b->cap) {
    size_t c = b->cap ? b->cap * 2 : 4096;
    while (c < b->n + n) c *= 2;
    uint8_t *q = realloc(b->p, c);
    if (!q) return 1;
    b->p = q;
    b->cap = c;
  }
  memcpy(b->p + b->n, p, n);
  b->n += n;
  return 0;
}

typedef struct job {
  int model, opset, tensorrt;
  olg_status want;
  buf bytes;
} job;

static const olg_registry *registry;
static olg_model *models[MAX_MODELS];
static const char *model_names[MAX_MODELS];
static int n_models;
static job *jobs;
static int n_jobs;

/* Legalize, check (full) and write one job's work; the bytes go to *out. */
static olg_status run(const job *j, buf *out) {
  olg_legalize_options o = OLG_LEGALIZE_OPTIONS_INIT;
  o.opset = j->opset;
  o.profile = j->tensorrt ? "tensorrt" : NULL;
  olg_model *m;
  olg_status s = olg_legalize(models[j->model], registry, &o, &m, NULL);
  if (s) return s;
  olg_check_options co = OLG_CHECK_OPTIONS_INIT;
  co.full = 1;
  olg_status c = olg_check(m, &co, NULL);
  /* the verdict is part of what must agree: fold it into the bytes */
  s = keep(out, &c, sizeof c) ? OLG_ERR_NOMEM : OLG_OK;
  if (!s) s = olg_model_write_callback(m, keep, out, NULL);
  olg_model_free(m);
  return s;
}

typedef struct worker {
  int id;
  long done, failures;
} worker;

static void *work(void *p) {
  worker *w = p;
  for (int k = 0; k < n_jobs; k++) {
    const job *j = &jobs[(k + w->id * n_jobs / THREADS) % n_jobs];
    buf b = {0};
    olg_status s = run(j, &b);
    if (s != j->want || (s == OLG_OK && (b.n != j->bytes.n || memcmp(b.p, j->bytes.p, b.n)))) {
      fprintf(stderr, "thread %d: %s at opset %d%s: %s, %zu bytes; alone: %s, %zu bytes\n", w->id,
              model_names[j->model], j->opset, j->tensorrt ? " (tensorrt)" : "",
              olg_status_name(s), b.n, olg_status_name(j->want), j->bytes.n);
      w->failures++;
    }
    free(b.p);
    w->done++;
  }
  return NULL;
}

/* x float[2,3,4,4], w an initializer:  y = relu(conv2d(x, w)); z = layer_norm(y, [4]);
 * v = view(z, [2, -1]); s = softmax(v, 1); outputs s and max(v, 1). */
static const float wdata[3 * 3 * 3 * 3] = {0.5f, -1.f, 2.f};
static olg_status aten_model(olg_model **out) {
  olg_model *m;
  olg_status s = olg_model_new(&m, NULL);
  if (s) return s;
  olg_graph *g = olg_model_graph(m);
  olg_value x, w, c, r, ln, v, sm, mx[2];
  olg_node_id n;
  const int64_t xd[4] = {2, 3, 4, 4}, wd[4] = {3, 3, 3, 3}, one[2] = {1, 1}, zero[2] = {0, 0},
                lnd[1] = {2}, vd[2] = {2, -1};
#define T(expr) if ((s = (expr))) goto fail
  T(olg_graph_add_input(g, "x", OLG_FLOAT, 4, xd, NULL, &x));
  T(olg_graph_add_initializer(g, "w", OLG_FLOAT, 4, wd, wdata, sizeof wdata, OLG_DATA_BORROW, NULL,
                              NULL, &w));
  T(olg_node_begin(g, "aten", "conv2d", "conv", &n));
  T(olg_node_arg_value(g, n, x)); T(olg_node_arg_value(g, n, w)); T(olg_node_arg_none(g, n));
  T(olg_node_arg_ints(g, n, one, 2)); T(olg_node_arg_ints(g, n, zero, 2));
  T(olg_node_arg_ints(g, n, one, 2)); T(olg_node_arg_int(g, n, 1));
  T(olg_node_end(g, n, 1, NULL, &c));
  T(olg_node_begin(g, "aten", "relu", "relu", &n));
  T(olg_node_arg_value(g, n, c));
  T(olg_node_end(g, n, 1, NULL, &r));
  T(olg_node_begin(g, "aten", "layer_norm", "ln", &n));
  T(olg_node_arg_value(g, n, r)); T(olg_node_arg_ints(g, n, lnd, 1));
  T(olg_node_arg_none(g, n)); T(olg_node_arg_none(g, n)); T(olg_node_arg_float(g, n, 1e-5));
  T(olg_node_arg_bool(g, n, 1));
  T(olg_node_end(g, n, 1, NULL, &ln));
  T(olg_node_begin(g, "aten", "view", "view", &n));
  T(olg_node_arg_value(g, n, ln)); T(olg_node_arg_ints(g, n, vd, 2));
  T(olg_node_end(g, n, 1, NULL, &v));
  T(olg_node_begin(g, "aten", "softmax", "softmax", &n));
  T(olg_node_arg_value(g, n, v)); T(olg_node_arg_int(g, n, 1)); T(olg_node_arg_none(g, n));
  T(olg_node_end(g, n, 1, NULL, &sm));
  T(olg_node_begin(g, "aten", "max", "max", &n));
  T(olg_node_arg_value(g, n, v)); T(olg_node_arg_int(g, n, 1)); T(olg_node_arg_bool(g, n, 0));
  T(olg_node_end(g, n, 2, NULL, mx));
  T(olg_graph_add_output(g, sm));
  T(olg_graph_add_output(g, mx[0]));
  T(olg_graph_add_output(g, mx[1]));
#undef T
  *out = m;
  return OLG_OK;
fail:
  olg_model_free(m);
  return s;
}

static const char *const testdata[] = {
    "node/test_if", "node/test_loop11", "node/test_scan9_sum", "node/test_loop13_seq",
    "node/test_sequence_insert_at_back", "node/test_range_float_type_positive_delta_expanded",
    "node/test_layer_normalization_4d_axis0", "pytorch-converted/test_Conv2d",
    "simple/test_expand_shape_model1",
};

int main(int argc, char **argv) {
  const char *dir = argc > 1 ? argv[1] : "/usr/share/libonnx-testdata/data";
  olg_registry *r;
  if (olg_registry_new_builtin(&r, NULL) || olg_registry_freeze(r)) {
    fprintf(stderr, "tsan: registry: %s\n", olg_last_error());
    return 1;
  }
  registry = r;
  if (aten_model(&models[0])) {
    fprintf(stderr, "tsan: building the aten model: %s\n", olg_last_error());
    return 1;
  }
  model_names[n_models++] = "aten chain";
  for (size_t i = 0; i < sizeof testdata / sizeof *testdata && n_models < MAX_MODELS; i++) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s/model.onnx", dir, testdata[i]);
    if (access(path, R_OK) != 0) continue;
    if (olg_model_read_file(&models[n_models], path, NULL) != OLG_OK) {
      fprintf(stderr, "tsan: reading %s: %s\n", path, olg_last_error());
      return 1;
    }
    model_names[n_models++] = testdata[i];
  }
  if (n_models == 1) printf("tsan: %s has no test models: the aten model only\n", dir);

  n_jobs = n_models * N_OPSETS * 2;
  jobs = calloc((size_t)n_jobs, sizeof *jobs);
  if (!jobs) return 1;
  int n_ok = 0;
  for (int i = 0; i < n_jobs; i++) {
    job *j = &jobs[i];
    j->model = i / (N_OPSETS * 2);
    j->opset = OPSET_MIN + i / 2 % N_OPSETS;
    j->tensorrt = i & 1;
    j->want = run(j, &j->bytes);
    n_ok += j->want == OLG_OK;
  }
  if (n_ok < n_jobs / 4) {
    fprintf(stderr, "tsan: too few jobs legalize alone (%d of %d): the test would prove little\n",
            n_ok, n_jobs);
    return 1;
  }

  pthread_t t[THREADS];
  worker w[THREADS];
  for (int i = 0; i < THREADS; i++) {
    w[i] = (worker){i, 0, 0};
    if (pthread_create(&t[i], NULL, work, &w[i]) != 0) {
      fprintf(stderr, "tsan: pthread_create failed\n");
      return 1;
    }
  }
  long done = 0, failures = 0;
  for (int i = 0; i < THREADS; i++) {
    pthread_join(t[i], NULL);
    done += w[i].done;
    failures += w[i].failures;
  }
  printf("tsan: %d threads, %d models, opsets %d..%d with and without the tensorrt profile: "
         "%ld legalize+check+write runs (%d legalize), %ld differ from the single-threaded run\n",
         THREADS, n_models, OPSET_MIN, OPSET_MAX, done, n_ok, failures);
  for (int i = 0; i < n_jobs; i++) free(jobs[i].bytes.p);
  free(jobs);
  for (int i = 0; i < n_models; i++) olg_model_free(models[i]);
  olg_registry_free(r);
  return failures ? 1 : 0;
}
