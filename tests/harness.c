/* onnxlegal — the C unit-test runner. Usage: unit [SUBSTRING...] runs the tests whose name or
 * file contains one of the substrings (all when none). */
#include "harness.h"

#include <stdarg.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct test_case {
  const char *name, *file;
  olg_test_fn fn;
} test_case;

static test_case *tests;
static size_t n_tests, cap_tests;
static int current_failed;

void olg_test_register(const char *name, const char *file, olg_test_fn fn) {
  if (n_tests == cap_tests) {
    cap_tests = cap_tests ? cap_tests * 2 : 64;
    tests = realloc(tests, cap_tests * sizeof *tests);
    if (!tests) abort();
  }
  tests[n_tests++] = (test_case){name, file, fn};
}

void olg_test_fail(const char *file, int line, const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "  %s:%d: ", file, line);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  current_failed = 1;
}

int olg_test_failed(void) { return current_failed; }

static void *ta_alloc(void *ud, size_t n) {
  test_alloc *t = ud;
  t->calls++;
  if ((t->fail_at && t->calls == t->fail_at) || (t->fail_from && t->calls >= t->fail_from)) {
    t->failed = 1;
    return NULL;
  }
  void *p = malloc(n);
  if (p) {
    t->live_blocks++;
    t->live_bytes += (long long)n;
  }
  return p;
}

static void *ta_realloc(void *ud, void *p, size_t o, size_t n) {
  test_alloc *t = ud;
  t->calls++;
  if ((t->fail_at && t->calls == t->fail_at) || (t->fail_from && t->calls >= t->fail_from)) {
    t->failed = 1;
    return NULL;
  }
  void *q = realloc(p, n);
  if (q) t->live_bytes += (long long)n - (long long)o;
  return q;
}

static void ta_free(void *ud, void *p, size_t n) {
  test_alloc *t = ud;
  if (!p) return;
  t->live_blocks--;
  t->live_bytes -= (long long)n;
  free(p);
}

void test_alloc_init(test_alloc *t, long fail_at) {
  memset(t, 0, sizeof *t);
  t->a = (olg_allocator){sizeof(olg_allocator), ta_alloc, ta_realloc, ta_free, t};
  t->fail_at = fail_at;
}

long test_fail_each_allocation(const char *file, int line, test_scenario fn, void *ud) {
  for (long k = 1; k < 1000000; k++) {
    test_alloc t;
    test_alloc_init(&t, k);
    olg_status s = fn(ud, &t.a);
    if (t.live_blocks != 0 || t.live_bytes != 0) {
      olg_test_fail(file, line, "allocation %ld failing: %ld blocks (%lld bytes) leaked", k,
                    t.live_blocks, t.live_bytes);
      return -1;
    }
    if (!t.failed) {
      if (s != OLG_OK) {
        olg_test_fail(file, line, "scenario failed without an injected failure: %s: %s",
                      olg_status_name(s), olg_last_error());
        return -1;
      }
      return k;
    }
    if (s == OLG_OK) {
      olg_test_fail(file, line, "allocation %ld failed but the scenario reported success", k);
      return -1;
    }
  }
  olg_test_fail(file, line, "scenario never completed");
  return -1;
}

/* malloc fault injection: see CHECK_FAIL_EACH_MALLOC. Inactive (a plain call through) unless
 * test_fail_each_malloc is running, so other tests and threads are unaffected. */
void *__real_malloc(size_t n);
void *__real_calloc(size_t k, size_t n);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t k, size_t n);
void *__wrap_realloc(void *p, size_t n);
void __wrap_free(void *p);

static struct {
  int active, failed, all;
  long calls, fail_at, live;
} wm;

static int wm_fail(void) {
  if (wm.all) {
    wm.calls++;
    return 1;
  }
  if (!wm.active) return 0;
  if (++wm.calls == wm.fail_at) {
    wm.failed = 1;
    return 1;
  }
  return 0;
}

void *__wrap_malloc(size_t n) {
  if (wm_fail()) return NULL;
  void *p = __real_malloc(n);
  if (p && wm.active) wm.live++;
  return p;
}

void *__wrap_calloc(size_t k, size_t n) {
  if (wm_fail()) return NULL;
  void *p = __real_calloc(k, n);
  if (p && wm.active) wm.live++;
  return p;
}

void *__wrap_realloc(void *p, size_t n) {
  if (wm_fail()) return NULL;
  void *q = __real_realloc(p, n);
  if (q && !p && wm.active) wm.live++;
  return q;
}

void __wrap_free(void *p) {
  if (p && wm.active) wm.live--;
  __real_free(p);
}

long test_fail_each_malloc(const char *file, int line, test_scenario fn, void *ud) {
  for (long k = 1; k < 100000; k++) {
    wm.active = 1;
    wm.failed = 0;
    wm.calls = wm.live = 0;
    wm.fail_at = k;
    olg_status s = fn(ud, NULL);
    wm.active = 0;
    if (wm.live != 0) {
      olg_test_fail(file, line, "malloc call %ld failing: %ld blocks leaked", k, wm.live);
      return -1;
    }
    if (!wm.failed) {
      if (s != OLG_OK) {
        olg_test_fail(file, line, "scenario failed without an injected failure: %s: %s",
                      olg_status_name(s), olg_last_error());
        return -1;
      }
      return k;
    }
    if (s == OLG_OK) {
      olg_test_fail(file, line, "malloc call %ld failed but the scenario reported success", k);
      return -1;
    }
  }
  olg_test_fail(file, line, "scenario never completed");
  return -1;
}

long test_malloc_fail_all(int on) {
  long n = wm.calls;
  wm.all = on;
  wm.calls = 0;
  return n;
}

/* A directory of this run's own (mkdtemp under $TMPDIR, else /tmp), so that runs never see each
 * other's files (make test and make sanitize at once, a file left by a crashed run); removed at
 * the end when every test passed. OLG_TEST_TMP names a directory to use (and keep) instead. */
static char tmp_dir[256];
static int tmp_dir_made;

const char *test_tmp_path(const char *name) {
  static char path[512];
  if (!tmp_dir[0]) {
    const char *keep = getenv("OLG_TEST_TMP");
    if (keep && *keep) {
      snprintf(tmp_dir, sizeof tmp_dir, "%s", keep);
      char cmd[300];
      snprintf(cmd, sizeof cmd, "mkdir -p '%s'", tmp_dir);
      if (system(cmd) != 0) abort();
    } else {
      const char *base = getenv("TMPDIR");
      snprintf(tmp_dir, sizeof tmp_dir, "%s/olg-unit-XXXXXX", base && *base ? base : "/tmp");
      if (!mkdtemp(tmp_dir)) abort();
      tmp_dir_made = 1;
    }
  }
  snprintf(path, sizeof path, "%s/%s", tmp_dir, name);
  return path;
}

static void remove_tmp_dir(int keep) {
  if (!tmp_dir_made) return;
  if (keep) {
    fprintf(stderr, "temporary files kept in %s\n", tmp_dir);
    return;
  }
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_dir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmp_dir);
}

int test_buf_sink(void *ud, const void *data, size_t n) {
  test_buf *b = ud;
  if (b->n + n > b->cap) {
    size_t c = b->cap ? b->cap * 2 : 1024;
    while (c < b->n + n) c *= 2;
    unsigned char *q = realloc(b->p, c);
    if (!q) return 1;
    b->p = q;
    b->cap = c;
  }
  if (n) memcpy(b->p + b->n, data, n);
  b->n += n;
  return 0;
}

int main(int argc, char **argv) {
  size_t passed = 0, failed = 0;
  for (size_t i = 0; i < n_tests; i++) {
    int want = argc < 2;
    for (int a = 1; a < argc && !want; a++)
      want = strstr(tests[i].name, argv[a]) || strstr(tests[i].file, argv[a]);
    if (!want) continue;
    current_failed = 0;
    olg_clear_error();
    tests[i].fn();
    if (current_failed) {
      fprintf(stderr, "FAIL %s (%s)\n", tests[i].name, tests[i].file);
      failed++;
    } else {
      passed++;
    }
  }
  free(tests);
  remove_tmp_dir(failed != 0);
  printf("%zu passed, %zu failed\n", passed, failed);
  return failed ? 1 : 0;
}
