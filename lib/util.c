/* onnxlegal — errors, allocation and the arena. */
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __linux__
#include <sys/mman.h>
#endif

#define OLG_ERRBUF 2048
static _Thread_local char errbuf[OLG_ERRBUF];

olg_status olg__verr(olg_status s, const char *fmt, va_list ap) {
  vsnprintf(errbuf, sizeof errbuf, fmt, ap);
  return s;
}

olg_status olg__err(olg_status s, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  olg__verr(s, fmt, ap);
  va_end(ap);
  return s;
}

olg_status olg__err_prefix(olg_status s, const char *fmt, ...) {
  char old[OLG_ERRBUF];
  memcpy(old, errbuf, sizeof old);
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(errbuf, sizeof errbuf, fmt, ap);
  va_end(ap);
  if (k >= 0 && (size_t)k < sizeof errbuf - 3) {
    /* append ": old", cut to fit (truncation is intended) */
    size_t at = (size_t)k, room = sizeof errbuf - at - 1;
    const char sep[] = ": ";
    size_t on = strlen(old);
    memcpy(errbuf + at, sep, 2);
    at += 2;
    room -= 2;
    if (on > room) on = room;
    memcpy(errbuf + at, old, on);
    errbuf[at + on] = 0;
  }
  return s;
}

OLG_API const char *olg_last_error(void) { return errbuf; }
OLG_API void olg_clear_error(void) { errbuf[0] = 0; }

OLG_API const char *olg_status_name(olg_status s) {
  switch (s) {
  case OLG_OK: return "OLG_OK";
  case OLG_ERR_NOMEM: return "OLG_ERR_NOMEM";
  case OLG_ERR_INVALID_ARG: return "OLG_ERR_INVALID_ARG";
  case OLG_ERR_IO: return "OLG_ERR_IO";
  case OLG_ERR_PARSE: return "OLG_ERR_PARSE";
  case OLG_ERR_NOT_FOUND: return "OLG_ERR_NOT_FOUND";
  case OLG_ERR_DUPLICATE: return "OLG_ERR_DUPLICATE";
  case OLG_ERR_UNSUPPORTED: return "OLG_ERR_UNSUPPORTED";
  case OLG_ERR_INVALID_MODEL: return "OLG_ERR_INVALID_MODEL";
  case OLG_ERR_RANGE: return "OLG_ERR_RANGE";
  case OLG_ERR_STATE: return "OLG_ERR_STATE";
  case OLG_ERR_LIMIT: return "OLG_ERR_LIMIT";
  case OLG_ERR_CALLBACK: return "OLG_ERR_CALLBACK";
  case OLG_ERR_TYPE: return "OLG_ERR_TYPE";
  default: return "OLG_ERR_UNKNOWN";
  }
}

static void *std_alloc(void *ud, size_t n) { (void)ud; return malloc(n); }
static void *std_realloc(void *ud, void *p, size_t o, size_t n) { (void)ud; (void)o; return realloc(p, n); }
static void std_free(void *ud, void *p, size_t n) { (void)ud; (void)n; free(p); }

/* Bytes [from, to) of p, from the default allocator, are about to be written from end to end:
 * have the kernel map their pages in one call, not one page fault per 4 KiB (a million-node
 * conversion took ~110k faults, a quarter of its time). Only whole pages inside the range, only
 * for malloc's memory (a caller's allocator may hand out memory that must not be touched early),
 * and only where it pays (64 KiB and up); a kernel without MADV_POPULATE_WRITE (Linux < 5.14)
 * says EINVAL and the pages fault in as before.
 * A range of HUGE_STEP and more (a large graph's node, value and name-map arrays) first asks
 * for transparent huge pages on the 2 MiB pages inside it: the kernel then zeroes and maps
 * 2 MiB at a time, not 4 KiB (populating 176 MB took 0.016-0.024 s, not 0.046-0.13; reading the
 * 1M-node chain 0.159 -> 0.125 s of CPU). Only memory about to be written from end to end, so
 * no page is made resident that would not be; where THP is off ("never") the kernel ignores
 * it, and a huge page it cannot find falls back to small ones. */
#define PREFAULT_STEP OLG_PREFAULT_STEP
#define HUGE_STEP ((size_t)4 << 20)
#define HUGE_PAGE ((uintptr_t)2 << 20)
/* olg__prefault; lazy: the huge pages are only asked for, each mapped in (2 MiB, one fault) when
 * first written, so that an arena chunk's unused end is not resident. */
static void map_in(const olg_allocator *a, void *p, size_t from, size_t to, bool lazy) {
#if defined(__linux__)
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
  if (!p || a->alloc != std_alloc || to < from || to - from < PREFAULT_STEP) return;
  uintptr_t lo = ((uintptr_t)p + from + 4095) & ~(uintptr_t)4095;
  uintptr_t hi = ((uintptr_t)p + to) & ~(uintptr_t)4095;
#ifdef MADV_HUGEPAGE
  uintptr_t huge_lo = (lo + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1), huge_hi = hi & ~(HUGE_PAGE - 1);
  if (to - from >= HUGE_STEP && huge_hi > huge_lo) {
    (void)madvise((void *)huge_lo, huge_hi - huge_lo, MADV_HUGEPAGE);
    if (lazy) { /* the small pages before them, used first, at once */
      if (huge_lo > lo) (void)madvise((void *)lo, huge_lo - lo, MADV_POPULATE_WRITE);
      return;
    }
  }
#endif
  if (hi > lo) (void)madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
#else
  (void)a, (void)p, (void)from, (void)to, (void)lazy;
#endif
}

void olg__prefault(const olg_allocator *a, void *p, size_t from, size_t to) {
  map_in(a, p, from, to, false);
}

olg_status olg__alloc_init(olg_allocator *dst, const olg_allocator *a) {
  if (!a) {
    *dst = (olg_allocator){sizeof(olg_allocator), std_alloc, std_realloc, std_free, NULL};
    return OLG_OK;
  }
  if (a->size < offsetof(olg_allocator, ud) + sizeof(void *) || !a->alloc || !a->free)
    return olg__err(OLG_ERR_INVALID_ARG, "allocator: size, alloc and free must be set");
  *dst = *a;
  dst->size = sizeof(olg_allocator);
  return OLG_OK;
}

void *olg__malloc(const olg_allocator *a, size_t n) {
  void *p = a->alloc(a->ud, n ? n : 1);
  if (!p) olg__err(OLG_ERR_NOMEM, "out of memory (%zu bytes)", n);
  olg__prefault(a, p, 0, n); /* the library's large blocks are arrays sized to their use */
  return p;
}

void *olg__calloc(const olg_allocator *a, size_t count, size_t size) {
  uint64_t n;
  if (!olg__mul_u64(count, size, &n) || n > SIZE_MAX) {
    olg__err(OLG_ERR_NOMEM, "allocation size overflows");
    return NULL;
  }
  if (a->alloc == std_alloc) {
    /* libc's calloc writes no zeros over a large block fresh from the kernel (a million-node
       graph's name map and reader state: 21 MB that memset wrote again) */
    void *p = calloc(1, n ? (size_t)n : 1);
    if (!p) olg__err(OLG_ERR_NOMEM, "out of memory (%zu bytes)", (size_t)n);
    olg__prefault(a, p, 0, (size_t)n);
    return p;
  }
  void *p = olg__malloc(a, (size_t)n);
  if (p) memset(p, 0, (size_t)n);
  return p;
}

void *olg__realloc(const olg_allocator *a, void *p, size_t old_n, size_t new_n) {
  if (!p) return olg__malloc(a, new_n);
  void *q;
  if (a->realloc) {
    q = a->realloc(a->ud, p, old_n ? old_n : 1, new_n ? new_n : 1);
  } else {
    q = a->alloc(a->ud, new_n ? new_n : 1);
    if (q) {
      memcpy(q, p, old_n < new_n ? old_n : new_n);
      a->free(a->ud, p, old_n ? old_n : 1);
    }
  }
  if (!q) olg__err(OLG_ERR_NOMEM, "out of memory (%zu bytes)", new_n);
  return q;
}

/* olg__malloc gives a request of 0 bytes one byte: the size passed back is the same. */
void olg__free(const olg_allocator *a, void *p, size_t n) {
  if (p) a->free(a->ud, p, n ? n : 1);
}

olg_status olg__grow_to(const olg_allocator *a, void **pp, uint32_t *cap, size_t need,
                        size_t elem) {
  if (need <= *cap) {
    /* appending one by one: map the next 64 KiB of the room in one call as it is reached */
    size_t at = need ? (need - 1) * elem : 0;
    if (need && at / PREFAULT_STEP != (at + elem) / PREFAULT_STEP) {
      size_t from = (at + elem) & ~(size_t)(PREFAULT_STEP - 1), to = (size_t)*cap * elem;
      if (to > from + PREFAULT_STEP) to = from + PREFAULT_STEP;
      olg__prefault(a, *pp, from, to);
    }
    return OLG_OK;
  }
  if (need > UINT32_MAX / 2) return olg__err(OLG_ERR_LIMIT, "too many elements (%zu)", need);
  size_t nc = *cap ? (size_t)*cap * 2 : 8;
  while (nc < need) nc *= 2;
  void *q = olg__realloc(a, *pp, (size_t)*cap * elem, nc * elem);
  if (!q) return OLG_ERR_NOMEM;
  *pp = q;
  *cap = (uint32_t)nc;
  return OLG_OK;
}

struct olg_arena_chunk {
  olg_arena_chunk *next;
  size_t size; /* bytes of the whole chunk, for free */
};

/* An arena that grows (the reader's, olg_arena.grow) takes from the default allocator chunks as
 * large as the arena so far, from ARENA_CHUNK to ARENA_CHUNK_MAX: a large graph's names and
 * argument blocks (45 MB at a million nodes) then sit in a few chunks mapped with huge pages as
 * they are written, not in 700 of 64 KiB mapped 4 KiB at a time (reading the 1M-node chain:
 * 0.125 -> 0.113 s of CPU, best of 15; peak RSS +3 MB). Other arenas (a lowering's, which
 * fills while other blocks are freed) keep to ARENA_CHUNK, which reuses the heap's holes: growing
 * there cost 17 MB of a 1M-node conversion's peak and saved no time. So does a caller's
 * allocator (a device's pool). */
#define ARENA_CHUNK (64 * 1024)
#define ARENA_CHUNK_MAX ((size_t)8 << 20)
#define ARENA_ALIGN 8
#define ARENA_HDR ((sizeof(olg_arena_chunk) + 15) & ~(size_t)15)

void olg_arena_init(olg_arena *ar, const olg_allocator *a) {
  memset(ar, 0, sizeof *ar);
  ar->alloc = a;
}

/* n bytes at the next multiple of align (1 or 8) in the current chunk, or in a new one; not
 * zeroed. Chunk ends are multiples of 8 from their start, so an aligned cur never passes end. */
static void *arena_bump(olg_arena *ar, size_t n, size_t align) {
  size_t need = (n + align - 1) & ~(align - 1);
  if (need < n) { ar->failures++; return NULL; }
  char *p = ar->cur ? (char *)(((uintptr_t)ar->cur + align - 1) & ~(uintptr_t)(align - 1)) : NULL;
  if (!p || p > ar->end || (size_t)(ar->end - p) < need) {
    /* Large requests get a chunk of their own, so the current chunk's free space is kept. */
    size_t chunk = !ar->grow || ar->alloc->alloc != std_alloc || ar->total < ARENA_CHUNK ? ARENA_CHUNK
                   : ar->total > ARENA_CHUNK_MAX ? ARENA_CHUNK_MAX : ar->total;
    size_t size = need > ARENA_CHUNK / 4 ? need + ARENA_HDR : chunk;
    if (size < need) { ar->failures++; return NULL; }
    size = (size + 7) & ~(size_t)7;
    olg_arena_chunk *c = ar->alloc->alloc(ar->alloc->ud, size);
    if (!c) { ar->failures++; return NULL; }
    map_in(ar->alloc, c, 0, size, true); /* bumped through to its end, or near it */
    c->size = size;
    ar->total += size;
    if (need > ARENA_CHUNK / 4 && ar->head) {
      /* keep bumping in the current chunk: link the big one behind the head */
      c->next = ar->head->next;
      ar->head->next = c;
      return (char *)c + ARENA_HDR;
    }
    c->next = ar->head;
    ar->head = c;
    p = (char *)c + ARENA_HDR;
    ar->end = (char *)c + size;
  }
  ar->cur = p + need;
  return p;
}

/* 8-aligned (nothing the IR keeps needs more), not 16: a node's one output id, a short array,
 * took 16 bytes. */
void *olg_arena_alloc(olg_arena *ar, size_t n) {
  void *p = arena_bump(ar, n, ARENA_ALIGN);
  if (p) memset(p, 0, n);
  return p;
}

/* Strings are most of a large graph's arena blocks (a name per value and node): packed. */
char *olg_arena_alloc_str(olg_arena *ar, size_t n) { return arena_bump(ar, n, 1); }

void *olg_arena_extend(olg_arena *ar, void *p, size_t old_n, size_t new_n) {
  size_t o = (old_n + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1),
         need = (new_n + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
  if (!p || need < new_n || new_n < old_n || (char *)p + o != ar->cur ||
      (size_t)(ar->end - (char *)p) < need)
    return NULL;
  ar->cur = (char *)p + need;
  memset((char *)p + old_n, 0, new_n - old_n);
  return p;
}

void olg_arena_free(olg_arena *ar) {
  olg_arena_chunk *c = ar->head;
  while (c) {
    olg_arena_chunk *nx = c->next;
    ar->alloc->free(ar->alloc->ud, c, c->size);
    c = nx;
  }
  ar->head = NULL;
  ar->cur = ar->end = NULL;
  ar->total = 0;
}
