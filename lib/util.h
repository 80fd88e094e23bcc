/* onnxlegal — internal utilities: allocation through the caller's allocator, an arena, errors. */
#ifndef OLG_UTIL_H
#define OLG_UTIL_H
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "onnxlegal/alloc.h"
#include "onnxlegal/status.h"

#if defined(__GNUC__)
#define OLG_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define OLG_UNUSED __attribute__((unused))
/* a static function of a hot path inlined where the compiler would not (its callers are two) */
#define OLG_ALWAYS_INLINE __attribute__((always_inline)) inline
#else
#define OLG_PRINTF(a, b)
#define OLG_UNUSED
#define OLG_ALWAYS_INLINE inline
#endif

/* diag.c: sets the lowest working opset of the diagnostic added last, if the list grew past
 * count_before (a diagnostic lost for want of memory is left alone). */
struct olg_diags;
/* Appends note to the message of each error diagnostic from index `from` on. */
void olg__diags_append_note(struct olg_diags *d, size_t from, const char *note);
void olg__diags_set_last_min_opset(struct olg_diags *d, size_t count_before, int64_t min_opset);
/* The errors from index `from` on that state old_min as the lowest opset that works state
 * new_min instead, their message followed by note (legalize.c, after probing that opset). */
void olg__diags_restate_min(struct olg_diags *d, size_t from, int64_t old_min, int64_t new_min,
                            const char *note);

/* Sets the thread-local error message and returns the status, so that `return olg__err(...)`. */
olg_status olg__err(olg_status s, const char *fmt, ...) OLG_PRINTF(2, 3);
olg_status olg__verr(olg_status s, const char *fmt, va_list ap);
/* Prefixes the current message with context ("reading x.onnx: ..."), keeps the status. */
olg_status olg__err_prefix(olg_status s, const char *fmt, ...) OLG_PRINTF(2, 3);

/* The default allocator (malloc) when a is NULL; otherwise a copy with missing parts checked. */
olg_status olg__alloc_init(olg_allocator *dst, const olg_allocator *a);
void *olg__malloc(const olg_allocator *a, size_t n);
void *olg__calloc(const olg_allocator *a, size_t count, size_t size);
void *olg__realloc(const olg_allocator *a, void *p, size_t old_n, size_t new_n);
void olg__free(const olg_allocator *a, void *p, size_t n);
/* Maps in at once the pages of bytes [from, to) of p (allocated from a), which the caller is
 * about to write through; a no-op for a caller's allocator and for small ranges. */
void olg__prefault(const olg_allocator *a, void *p, size_t from, size_t to);

/* Grows *pp (of elements of size elem, capacity *cap) to hold at least need elements, doubling;
 * appending one by one, maps in the next OLG_PREFAULT_STEP bytes of the room as it is reached.
 * Returns OLG_ERR_NOMEM with the message set, leaving *pp intact on failure. */
olg_status olg__grow_to(const olg_allocator *a, void **pp, uint32_t *cap, size_t need,
                        size_t elem);
#define OLG_PREFAULT_STEP 65536
#if defined(__OPTIMIZE_SIZE__)
#define olg__grow olg__grow_to
#else
/* olg__grow_to with its common case inline (an append per value a reader or lowering makes):
 * room, and no step of it reached. */
static inline olg_status olg__grow(const olg_allocator *a, void **pp, uint32_t *cap, size_t need,
                                   size_t elem) {
  if (need && need <= *cap &&
      (need - 1) * elem / OLG_PREFAULT_STEP == need * elem / OLG_PREFAULT_STEP)
    return OLG_OK;
  return olg__grow_to(a, pp, cap, need, elem);
}
#endif

/* A bump allocator in chunks; everything is freed at once. */
typedef struct olg_arena_chunk olg_arena_chunk;
typedef struct olg_arena {
  const olg_allocator *alloc;
  olg_arena_chunk *head;
  char *cur, *end;
  size_t total; /* bytes held, for statistics */
  bool grow;    /* chunks as large as the arena so far (util.c, ARENA_CHUNK_MAX) */
  uint32_t failures; /* allocations refused so far: lets a caller see a failure a callee took
                        for "unknown" (inference rules, whose helpers return NULL for both) */
} olg_arena;
void olg_arena_init(olg_arena *ar, const olg_allocator *a);
void *olg_arena_alloc(olg_arena *ar, size_t n); /* zeroed, 8-aligned, NULL on failure */
/* n bytes for a string's characters and NUL: not zeroed, not aligned; NULL on failure. */
char *olg_arena_alloc_str(olg_arena *ar, size_t n);
/* p (old_n bytes, the arena's latest block) grown to new_n in place, zeroed past old_n; NULL
 * when p is not the latest block or the chunk has no room (then allocate and copy). */
void *olg_arena_extend(olg_arena *ar, void *p, size_t old_n, size_t new_n);
/* The arena's usual case, for hot paths that cannot afford the calls: n bytes at the given
 * alignment in the current chunk, where olg_arena_alloc(_str) would put them (not zeroed), or
 * NULL when the chunk has no room (then those calls, which open a chunk). */
static inline char *olg_arena_take(olg_arena *ar, size_t n, size_t align) {
  if (!ar->cur) return NULL;
  char *p = (char *)(((uintptr_t)ar->cur + align - 1) & ~(uintptr_t)(align - 1));
  if (p > ar->end || (size_t)(ar->end - p) < n) return NULL;
  ar->cur = p + n;
  return p;
}
void olg_arena_free(olg_arena *ar);

/* Checked arithmetic. */
static inline bool olg__mul_u64(uint64_t a, uint64_t b, uint64_t *out) {
  return !__builtin_mul_overflow(a, b, out);
}
static inline bool olg__add_u64(uint64_t a, uint64_t b, uint64_t *out) {
  return !__builtin_add_overflow(a, b, out);
}

/* A string built piece by piece into a fixed buffer, cut as snprintf cuts (at cap - 1): for
 * the names made per node, where snprintf's format parsing was a tenth of a conversion's
 * instructions. */
typedef struct olg_sbuf {
  char *p;
  size_t n, cap; /* cap >= 1 */
} olg_sbuf;
/* The position and the buffer in locals: written through b->p, a char store that may alias
 * b->n, clang 14 -O2 cut "Add_10" to "Add_1" (the digits of olg__sb_u64 after a first piece). */
static inline void olg__sb_mem(olg_sbuf *b, const char *s, size_t l) {
  size_t n = b->n, room = b->cap - 1 - n;
  char *p = b->p;
  if (l > room) l = room;
  for (size_t i = 0; i < l; i++) p[n + i] = s[i];
  p[n + l] = 0;
  b->n = n + l;
}
static inline void olg__sb_str(olg_sbuf *b, const char *s) {
  size_t l = 0;
  while (s[l]) l++;
  olg__sb_mem(b, s, l);
}
static inline void olg__sb_u64(olg_sbuf *b, uint64_t v) {
  char d[20];
  int k = 20;
  do d[--k] = (char)('0' + v % 10); while ((v /= 10) != 0);
  olg__sb_mem(b, d + k, (size_t)(20 - k));
}

#endif
