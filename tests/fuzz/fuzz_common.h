/* Shared by the libFuzzer targets of tests/fuzz: a growable byte sink, a discarding sink, the
 * frozen built-in registry (made once per process, freed at exit so that LeakSanitizer sees
 * nothing), and the oracle's abort. Each target is one .c file including this header. */
#ifndef OLG_FUZZ_COMMON_H
#define OLG_FUZZ_COMMON_H
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnxlegal/onnxlegal.h"

typedef struct fz_buf {
  uint8_t *p;
  size_t n, cap;
} fz_buf;

static inline int fz_discard(void *ud, const void *p, size_t n) {
  (void)ud;
  (void)p;
  (void)n;
  return 0;
}

static inline int fz_keep(void *ud, const void *p, size_t n) {
  fz_buf *b = ud;
  if (b->n + n > b->cap) {
    size_t c = b->cap ? b->cap * 2 : 4096;
    while (c < b->n + n) c *= 2;
    uint8_t *q = realloc(b->p, c);
    if (!q) return 1;
    b->p = q;
    b->cap = c;
  }
  if (n) memcpy(b->p + b->n, p, n);
  b->n += n;
  return 0;
}

static inline void fz_buf_free(fz_buf *b) {
  free(b->p);
  b->p = NULL;
  b->n = b->cap = 0;
}

/* An oracle failed: abort, so that libFuzzer keeps the input as a crash. */
#define FZ_DIE(...)                                                                   \
  do {                                                                                \
    fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                                   \
    fprintf(stderr, __VA_ARGS__);                                                     \
    fprintf(stderr, " (last error: %s)\n", olg_last_error());                        \
    abort();                                                                          \
  } while (0)

static olg_registry *fz_registry_;
static void fz_registry_release(void) { olg_registry_free(fz_registry_); }

/* The built-in registry, frozen, shared by every input. */
static inline const olg_registry *fz_registry(void) {
  if (!fz_registry_) {
    if (olg_registry_new_builtin(&fz_registry_, NULL) != OLG_OK ||
        olg_registry_freeze(fz_registry_) != OLG_OK)
      FZ_DIE("cannot make the built-in registry");
    atexit(fz_registry_release);
  }
  return fz_registry_;
}

/* A status any public call may return; anything else is a bug (an uninitialised or made-up
 * code reaching the caller). */
static inline void fz_status_known(olg_status s, const char *what) {
  if (s > 0 || s < OLG_ERR_TYPE) FZ_DIE("%s returned the unknown status %d", what, s);
}

/* Writes m to memory with the default writer; on success reads the bytes back (references to
 * external data kept) and writes them again: the writer's output is the reader's fixed point. */
static inline void fz_write_read_back(const olg_model *m, const char *what) {
  fz_buf a = {0}, b = {0};
  olg_status s = olg_model_write_callback(m, fz_keep, &a, NULL);
  fz_status_known(s, what);
  if (s == OLG_OK) {
    olg_read_options ro = OLG_READ_OPTIONS_INIT;
    ro.load_external_data = 0;
    olg_model *m2;
    if (olg_model_read_memory(&m2, a.p, a.n, &ro) != OLG_OK)
      FZ_DIE("%s: reading what was written (%zu bytes)", what, a.n);
    if (olg_model_write_callback(m2, fz_keep, &b, NULL) != OLG_OK)
      FZ_DIE("%s: writing the re-read model", what);
    if (a.n != b.n || memcmp(a.p, b.p, a.n) != 0)
      FZ_DIE("%s: the second write differs (%zu vs %zu bytes)", what, a.n, b.n);
    olg_model_free(m2);
  }
  fz_buf_free(&a);
  fz_buf_free(&b);
}

#endif
