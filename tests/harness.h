/* onnxlegal — the C unit-test harness. Each file under tests/unit defines TEST(name) functions;
 * they register themselves and tests/harness.c runs them, ending with "N passed, N failed". */
#ifndef OLG_TEST_HARNESS_H
#define OLG_TEST_HARNESS_H
#include <stdio.h>
#include <string.h>

#include "onnxlegal/onnxlegal.h"

typedef void (*olg_test_fn)(void);
void olg_test_register(const char *name, const char *file, olg_test_fn fn);
void olg_test_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Non-zero when the current test has failed (for loops that should stop early). */
int olg_test_failed(void);

#define TEST(name)                                                                      \
  static void test_##name(void);                                                        \
  __attribute__((constructor)) static void register_##name(void) {                      \
    olg_test_register(#name, __FILE__, test_##name);                                    \
  }                                                                                     \
  static void test_##name(void)

#define CHECK(cond)                                                                     \
  do {                                                                                  \
    if (!(cond)) { olg_test_fail(__FILE__, __LINE__, "CHECK(%s)", #cond); return; }     \
  } while (0)

#define CHECK_OK(expr)                                                                  \
  do {                                                                                  \
    olg_status s_ = (expr);                                                             \
    if (s_ != OLG_OK) {                                                                 \
      olg_test_fail(__FILE__, __LINE__, "%s -> %s: %s", #expr, olg_status_name(s_),     \
                    olg_last_error());                                                  \
      return;                                                                           \
    }                                                                                   \
  } while (0)

#define CHECK_STATUS(expr, want)                                                        \
  do {                                                                                  \
    olg_status s_ = (expr);                                                             \
    if (s_ != (want)) {                                                                 \
      olg_test_fail(__FILE__, __LINE__, "%s -> %s, wanted %s (%s)", #expr,              \
                    olg_status_name(s_), olg_status_name(want), olg_last_error());      \
      return;                                                                           \
    }                                                                                   \
  } while (0)

#define CHECK_EQ(a, b)                                                                  \
  do {                                                                                  \
    long long a_ = (long long)(a), b_ = (long long)(b);                                 \
    if (a_ != b_) {                                                                     \
      olg_test_fail(__FILE__, __LINE__, "%s == %s: %lld != %lld", #a, #b, a_, b_);      \
      return;                                                                           \
    }                                                                                   \
  } while (0)

#define CHECK_STR(a, b)                                                                 \
  do {                                                                                  \
    const char *a_ = (a), *b_ = (b);                                                    \
    if (!a_ || !b_ || strcmp(a_, b_) != 0) {                                            \
      olg_test_fail(__FILE__, __LINE__, "%s == %s: \"%s\" != \"%s\"", #a, #b,           \
                    a_ ? a_ : "(null)", b_ ? b_ : "(null)");                            \
      return;                                                                           \
    }                                                                                   \
  } while (0)

/* An allocator that counts, tracks live bytes, and fails the fail_at-th allocation (1-based;
 * 0 never fails). Used to prove that every allocation failure is reported and leaks nothing. */
typedef struct test_alloc {
  olg_allocator a;
  long calls, fail_at;
  long live_blocks;
  long long live_bytes;
  int failed; /* the injected failure happened */
  long fail_from; /* every allocation from this call on fails (1-based; 0 never) */
} test_alloc;
void test_alloc_init(test_alloc *t, long fail_at);

/* Runs scenario(ud, allocator) with the 1st, 2nd, ... allocation failing in turn until it runs
 * through without meeting the failure. Each failing run must return a non-OK status (never
 * crash) and leave no live block. Returns the number of runs, or -1 after reporting a failure. */
typedef olg_status (*test_scenario)(void *ud, const olg_allocator *a);
long test_fail_each_allocation(const char *file, int line, test_scenario fn, void *ud);
#define CHECK_FAIL_EACH_ALLOCATION(fn, ud)                                              \
  do {                                                                                  \
    if (test_fail_each_allocation(__FILE__, __LINE__, fn, ud) < 0) return;              \
  } while (0)

/* The same for the library's calls of malloc, calloc and realloc themselves (the heap option
 * objects, which take no allocator): the unit binary is linked with -Wl,--wrap=malloc,... and
 * the wrappers fail the k-th call, counting live blocks, only while such a scenario runs. The
 * allocator given to the scenario is NULL. */
long test_fail_each_malloc(const char *file, int line, test_scenario fn, void *ud);
#define CHECK_FAIL_EACH_MALLOC(fn, ud)                                                  \
  do {                                                                                  \
    if (test_fail_each_malloc(__FILE__, __LINE__, fn, ud) < 0) return;                  \
  } while (0)

/* While on, every malloc, calloc and realloc the library calls fails (the wrappers above;
 * counted in the return value of the call that turns it off). */
long test_malloc_fail_all(int on);

/* A path under the test's scratch directory (created on first use). */
const char *test_tmp_path(const char *name);

/* A growing in-memory buffer and an olg_write_fn appending to it (free p when done). */
typedef struct test_buf {
  unsigned char *p;
  size_t n, cap;
} test_buf;
int test_buf_sink(void *ud, const void *data, size_t n);

#endif
