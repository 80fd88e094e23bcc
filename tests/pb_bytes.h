/* A growable byte buffer for the serializer tests: a sink for the writers (which can be told to
 * fail, and watches how it is called), and hand-made protobuf for the readers. */
#ifndef OLG_TEST_PB_BYTES_H
#define OLG_TEST_PB_BYTES_H
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct pbuf {
  uint8_t *p;
  size_t n, cap;
  long calls, fail_at; /* the sink fails its fail_at-th call and every later one (0: never) */
  size_t largest;      /* the longest run given in one call */
  const void *saw;     /* a pointer the sink watches for: saw_direct when it came as one run */
  size_t saw_n;
  bool saw_direct;
} pbuf;

static inline void pbuf_add(pbuf *b, const void *p, size_t n) {
  if (b->n + n > b->cap) {
    size_t c = b->cap ? b->cap : 256;
    while (c < b->n + n) c *= 2;
    b->p = realloc(b->p, c);
    if (!b->p) abort();
    b->cap = c;
  }
  if (n) memcpy(b->p + b->n, p, n);
  b->n += n;
}

static inline void pbuf_free(pbuf *b) {
  free(b->p);
  memset(b, 0, sizeof *b);
}

/* An olg_write_fn. */
static inline int pbuf_sink(void *ud, const void *p, size_t n) {
  pbuf *b = ud;
  b->calls++;
  if (b->fail_at && b->calls >= b->fail_at) return 1;
  if (n > b->largest) b->largest = n;
  if (b->saw && p == b->saw && n == b->saw_n) b->saw_direct = true;
  pbuf_add(b, p, n);
  return 0;
}

static inline bool pbuf_same(const pbuf *a, const pbuf *b) {
  return a->n == b->n && (a->n == 0 || memcmp(a->p, b->p, a->n) == 0);
}

/* Protobuf by hand: a varint, a tag, an int field, a bytes field, a string field, and a
 * sub-message (appended as field no, then freed). */
static inline void pv(pbuf *b, uint64_t v) {
  uint8_t t[10];
  int n = 0;
  while (v >= 0x80) {
    t[n++] = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  t[n++] = (uint8_t)v;
  pbuf_add(b, t, (size_t)n);
}
static inline void ptag(pbuf *b, uint32_t no, int wt) { pv(b, (uint64_t)no << 3 | (unsigned)wt); }
static inline void pint(pbuf *b, uint32_t no, uint64_t v) {
  ptag(b, no, 0);
  pv(b, v);
}
static inline void pbytes(pbuf *b, uint32_t no, const void *p, size_t n) {
  ptag(b, no, 2);
  pv(b, n);
  pbuf_add(b, p, n);
}
static inline void pstr(pbuf *b, uint32_t no, const char *s) { pbytes(b, no, s, strlen(s)); }
static inline void pmsg(pbuf *b, uint32_t no, pbuf *sub) {
  pbytes(b, no, sub->p, sub->n);
  pbuf_free(sub);
}

#endif
