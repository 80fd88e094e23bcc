/* libFuzzer target for the protobuf reader and writer.
 *
 * Any input: read it; when it reads, write it. Then an oracle: the written bytes must read back
 * and write again to the very same bytes (the writer's output is the reader's fixed point), so a
 * disagreement between the two aborts as a crash would. Sanitizers catch the rest (overflows,
 * leaks, undefined behaviour). Half the inputs (by their last byte) are read with external data
 * kept as references; the others ask for it to be loaded, which read_memory refuses (no dir).
 *
 *   make fuzz                                    builds build/fuzz/fuzz_reader (clang)
 *   build/fuzz/fuzz_reader -max_total_time=120 build/fuzz/corpus SEED_DIR...
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnxlegal/onnxlegal.h"

typedef struct sinkbuf {
  uint8_t *p;
  size_t n, cap;
} sinkbuf;

static int discard(void *ud, const void *p, size_t n) {
  (void)ud;
  (void)p;
  (void)n;
  return 0;
}

static int keep(void *ud, const void *p, size_t n) {
  sinkbuf *b = ud;
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

static void die(const char *what) {
  fprintf(stderr, "fuzz_reader: %s: %s\n", what, olg_last_error());
  abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  olg_read_options ro = OLG_READ_OPTIONS_INIT;
  ro.load_external_data = size && (data[size - 1] & 1) ? 0 : 1;
  olg_model *m;
  if (olg_model_read_memory(&m, data, size, &ro) != OLG_OK) return 0;
  if (olg_model_write_callback(m, discard, NULL, NULL) != OLG_OK) die("writing what was read");
  sinkbuf a = {0}, b = {0};
  if (olg_model_write_callback(m, keep, &a, NULL) != OLG_OK) die("writing to memory");
  olg_model *m2;
  ro.load_external_data = 0;
  if (olg_model_read_memory(&m2, a.p, a.n, &ro) != OLG_OK) die("reading what was written");
  if (olg_model_write_callback(m2, keep, &b, NULL) != OLG_OK) die("writing the re-read model");
  if (a.n != b.n || memcmp(a.p, b.p, a.n) != 0) {
    fprintf(stderr, "fuzz_reader: the second write differs (%zu vs %zu bytes)\n", a.n, b.n);
    abort();
  }
  olg_model_free(m2);
  olg_model_free(m);
  free(a.p);
  free(b.p);
  return 0;
}
