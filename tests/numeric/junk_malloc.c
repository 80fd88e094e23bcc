/* LD_PRELOAD shim for tests/py/test_numeric.py: every block malloc, posix_memalign, memalign and
 * aligned_alloc hand out is filled with 0xff bytes (NaN as float and double, -1 as integers), so
 * a reference that reads memory it never wrote gets NaN every time instead of whatever the heap
 * happened to hold (PyTorch 1.13's CPU baddbmm with beta=0 did, and flaked under load). calloc and
 * realloc are glibc's own. The blocks still come from glibc (its __libc_* entry points), so free
 * stays glibc's. */
#include <errno.h>
#include <stddef.h>
#include <string.h>

extern void *__libc_malloc(size_t n);
extern void *__libc_memalign(size_t align, size_t n);

static void *junk(void *p, size_t n) {
  if (p) memset(p, 0xff, n);
  return p;
}

void *malloc(size_t n) { return junk(__libc_malloc(n), n); }
void *memalign(size_t align, size_t n) { return junk(__libc_memalign(align, n), n); }
void *aligned_alloc(size_t align, size_t n) { return junk(__libc_memalign(align, n), n); }

int posix_memalign(void **out, size_t align, size_t n) {
  if (align < sizeof(void *) || (align & (align - 1))) return EINVAL;
  void *p = junk(__libc_memalign(align, n), n);
  if (!p) return ENOMEM;
  *out = p;
  return 0;
}
