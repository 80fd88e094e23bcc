/* The testdata round trip of `make test-cross` (tests/cross/run.py), built for the host and for
 * each cross target and run under qemu-user there. Usage: roundtrip LIST, LIST a file of model
 * paths, one a line. For each model: read it, write it (the default writer; the nanopb writer
 * too in builds with it) and compare the bytes with the file's; then legalize it to opsets 13
 * and 17, check the result (full, with inference), write it, read that back, check it again and
 * write it again byte for byte. One line per model and target says what happened, with a hash
 * of the bytes written: run.py compares the lines of a cross run with the host's, so that a
 * value read or written with the wrong byte order or alignment shows as a different hash even
 * where both runs pass. Exits non-zero when a round trip breaks an invariant on this host (a
 * second write that differs, a legalized model failing check). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnxlegal/onnxlegal.h"
#ifdef OLG_WITH_NANOPB
#include "onnxlegal/nanopb.h"
#endif

typedef struct buf {
  unsigned char *p;
  size_t n, cap;
} buf;

static int sink(void *ud, const void *p, size_t n) {
  buf *b = ud;
  if (b->n + n > b->cap) {
    size_t c = b->cap ? b->cap : 4096;
    while (c < b->n + n) c *= 2;
    unsigned char *q = realloc(b->p, c);
    if (!q) return 1;
    b->p = q;
    b->cap = c;
  }
  memcpy(b->p + b->n, p, n);
  b->n += n;
  return 0;
}

static int slurp(const char *path, buf *b) {
  FILE *f = fopen(path, "rb");
  if (!f) return 0;
  unsigned char chunk[65536];
  size_t k;
  int ok = 1;
  while ((k = fread(chunk, 1, sizeof chunk, f)) > 0)
    if (sink(b, chunk, k)) ok = 0;
  fclose(f);
  return ok;
}

/* FNV-1a, 64 bits */
static uint64_t hash(const buf *b) {
  uint64_t h = 14695981039346656037ULL;
  for (size_t i = 0; i < b->n; i++) h = (h ^ b->p[i]) * 1099511628211ULL;
  return h;
}

static int same(const buf *a, const buf *b) {
  return a->n == b->n && (a->n == 0 || memcmp(a->p, b->p, a->n) == 0);
}

static int broken; /* invariants broken on this host */

static void legalize_one(const char *name, const olg_model *src, const olg_registry *r,
                         int64_t opset) {
  olg_legalize_options lo;
  olg_legalize_options_init(&lo);
  olg_legalize_options_set_opset(&lo, opset);
  olg_model *out = NULL, *back = NULL;
  buf w1 = {0}, w2 = {0};
  olg_check_options co = OLG_CHECK_OPTIONS_INIT;
  co.full = 1;
  olg_status s = olg_legalize(src, r, &lo, &out, NULL);
  if (s) {
    printf("%s -> %d: legalize %s\n", name, (int)opset, olg_status_name(s));
    return;
  }
  const char *what = "check";
  if (!(s = olg_check(out, &co, NULL)) && !(what = "write", s = olg_model_write_callback(out, sink, &w1, NULL)) &&
      !(what = "read back", s = olg_model_read_memory(&back, w1.p, w1.n, NULL)) &&
      !(what = "check back", s = olg_check(back, &co, NULL)))
    what = "write back", s = olg_model_write_callback(back, sink, &w2, NULL);
  if (s) {
    printf("%s -> %d: %s %s\n", name, (int)opset, what, olg_status_name(s));
    broken++;
  } else if (!same(&w1, &w2)) {
    printf("%s -> %d: second write differs (%zu, %zu bytes)\n", name, (int)opset, w1.n, w2.n);
    broken++;
  } else {
    printf("%s -> %d: ok %zu %016llx\n", name, (int)opset, w1.n, (unsigned long long)hash(&w1));
  }
  free(w1.p);
  free(w2.p);
  olg_model_free(back);
  olg_model_free(out);
}

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: roundtrip LIST\n");
    return 2;
  }
  FILE *list = fopen(argv[1], "r");
  if (!list) {
    perror(argv[1]);
    return 2;
  }
  olg_registry *r = NULL;
  if (olg_registry_new_builtin(&r, NULL) || olg_registry_freeze(r)) {
    fprintf(stderr, "roundtrip: registry: %s\n", olg_last_error());
    return 2;
  }
  char path[4096];
  long models = 0, identical = 0;
  while (fgets(path, sizeof path, list)) {
    path[strcspn(path, "\r\n")] = 0;
    if (!path[0]) continue;
    models++;
    buf file = {0}, w = {0};
    olg_model *m = NULL;
    olg_status s;
    if (!slurp(path, &file)) {
      printf("%s: unreadable\n", path);
      broken++;
      continue;
    }
    if ((s = olg_model_read_memory(&m, file.p, file.n, NULL))) {
      printf("%s: read %s\n", path, olg_status_name(s));
      free(file.p);
      continue;
    }
    if ((s = olg_model_write_callback(m, sink, &w, NULL))) {
      printf("%s: write %s\n", path, olg_status_name(s));
      broken++;
    } else {
      int eq = same(&file, &w);
      identical += eq;
#ifdef OLG_WITH_NANOPB
      buf w2 = {0};
      if (olg_model_write_nanopb(m, sink, &w2) || !same(&w, &w2)) {
        printf("%s: the nanopb writer differs\n", path);
        broken++;
      }
      free(w2.p);
#endif
      printf("%s: written %s %zu %016llx\n", path, eq ? "as the file" : "differently", w.n,
             (unsigned long long)hash(&w));
      legalize_one(path, m, r, 13);
      legalize_one(path, m, r, 17);
    }
    free(w.p);
    free(file.p);
    olg_model_free(m);
  }
  fclose(list);
  olg_registry_free(r);
  fprintf(stderr, "roundtrip: %ld models, %ld written as the file, %d broken\n", models, identical,
          broken);
  return broken ? 1 : 0;
}
