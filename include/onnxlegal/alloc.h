/* onnxlegal — the caller-supplied allocator. */
#ifndef ONNXLEGAL_ALLOC_H
#define ONNXLEGAL_ALLOC_H
#include <stddef.h>
#include "version.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Every allocation the library makes for an object goes through the allocator given when the
 * object was created (a model, a registry, a diagnostics list). Any call may return NULL; the
 * library then fails with OLG_ERR_NOMEM and leaks nothing. realloc may be NULL: the library then
 * uses alloc + copy + free. */
typedef struct olg_allocator {
  size_t size; /* sizeof(olg_allocator), for growth */
  void *(*alloc)(void *ud, size_t n);
  void *(*realloc)(void *ud, void *p, size_t old_n, size_t new_n);
  void (*free)(void *ud, void *p, size_t n);
  void *ud;
} olg_allocator;

#define OLG_ALLOCATOR_INIT {sizeof(olg_allocator), OLG_NULLPTR, OLG_NULLPTR, OLG_NULLPTR, OLG_NULLPTR}

#ifdef __cplusplus
}
#endif
#endif
