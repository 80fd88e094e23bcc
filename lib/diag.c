/* onnxlegal — the diagnostics list. */
#include <string.h>

#include "onnxlegal/diag.h"
#include "util.h"

typedef struct olg_diag {
  int severity;
  int64_t opset;
  int64_t min_opset; /* the lowest opset that works, for a lowering refusal; -1 otherwise */
  const char *code, *node, *domain, *op, *message;
} olg_diag;

struct olg_diags {
  olg_allocator alloc;
  olg_arena arena; /* the strings */
  olg_diag *items;
  uint32_t n, cap;
  size_t errors, lost;
};

OLG_API olg_status olg_diags_new(olg_diags **out, const olg_allocator *allocator) {
  if (!out) return olg__err(OLG_ERR_INVALID_ARG, "olg_diags_new: out is NULL");
  *out = NULL;
  olg_allocator a;
  olg_status s = olg__alloc_init(&a, allocator);
  if (s) return s;
  olg_diags *d = olg__calloc(&a, 1, sizeof *d);
  if (!d) return OLG_ERR_NOMEM;
  d->alloc = a;
  olg_arena_init(&d->arena, &d->alloc);
  *out = d;
  return OLG_OK;
}

OLG_API void olg_diags_clear(olg_diags *d) {
  if (!d) return;
  olg_arena_free(&d->arena);
  d->n = 0;
  d->errors = d->lost = 0;
}

OLG_API void olg_diags_free(olg_diags *d) {
  if (!d) return;
  olg_arena_free(&d->arena);
  olg__free(&d->alloc, d->items, (size_t)d->cap * sizeof *d->items);
  olg_allocator a = d->alloc;
  olg__free(&a, d, sizeof *d);
}

OLG_API size_t olg_diags_count(const olg_diags *d) { return d ? d->n : 0; }
OLG_API size_t olg_diags_error_count(const olg_diags *d) { return d ? d->errors : 0; }
OLG_API size_t olg_diags_lost(const olg_diags *d) { return d ? d->lost : 0; }

static const char *dup(olg_diags *d, const char *s) {
  if (!s) s = "";
  size_t n = strlen(s);
  char *p = olg_arena_alloc(&d->arena, n + 1);
  if (p) memcpy(p, s, n + 1);
  return p;
}

OLG_API olg_status olg_diags_add(olg_diags *d, olg_severity sev, const char *code,
                                 const char *node, const char *domain, const char *op,
                                 int64_t opset, const char *message) {
  if (!d) return olg__err(OLG_ERR_INVALID_ARG, "olg_diags_add: diags is NULL");
  if (sev == OLG_ERROR) d->errors++; /* counted even when it cannot be stored */
  olg_diag g = {(int)sev, opset, -1, dup(d, code), dup(d, node), dup(d, domain), dup(d, op),
                dup(d, message)};
  if (!g.code || !g.node || !g.domain || !g.op || !g.message ||
      olg__grow(&d->alloc, (void **)&d->items, &d->cap, (size_t)d->n + 1, sizeof *d->items)) {
    d->lost++;
    return olg__err(OLG_ERR_NOMEM, "out of memory recording a diagnostic");
  }
  d->items[d->n++] = g;
  return OLG_OK;
}

static const olg_diag *at(const olg_diags *d, size_t i) {
  return d && i < d->n ? &d->items[i] : NULL;
}
OLG_API int olg_diag_severity(const olg_diags *d, size_t i) { return at(d, i) ? at(d, i)->severity : -1; }
OLG_API const char *olg_diag_code(const olg_diags *d, size_t i) { return at(d, i) ? at(d, i)->code : NULL; }
OLG_API const char *olg_diag_node(const olg_diags *d, size_t i) { return at(d, i) ? at(d, i)->node : NULL; }
OLG_API const char *olg_diag_domain(const olg_diags *d, size_t i) { return at(d, i) ? at(d, i)->domain : NULL; }
OLG_API const char *olg_diag_op(const olg_diags *d, size_t i) { return at(d, i) ? at(d, i)->op : NULL; }
OLG_API int64_t olg_diag_opset(const olg_diags *d, size_t i) { return at(d, i) ? at(d, i)->opset : -1; }
OLG_API const char *olg_diag_message(const olg_diags *d, size_t i) { return at(d, i) ? at(d, i)->message : NULL; }
OLG_API int64_t olg_diag_min_opset(const olg_diags *d, size_t i) { return at(d, i) ? at(d, i)->min_opset : -1; }

void olg__diags_set_last_min_opset(olg_diags *d, size_t count_before, int64_t min_opset) {
  if (d && d->n > count_before) d->items[d->n - 1].min_opset = min_opset;
}
