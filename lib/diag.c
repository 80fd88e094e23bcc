/* onnxlegal — the diagnostics list. */
#include <stdarg.h>
#include <string.h>

#include <stdio.h>

#include "onnxlegal/diag.h"
#include "ir.h"
#include "util.h"

typedef struct olg_diag {
  int severity;
  int64_t opset;
  int64_t min_opset; /* the lowest opset that works, for a lowering refusal; -1 otherwise */
  int64_t node_index; /* the node's place in its graph; -1 unknown */
  const char *code, *node, *domain, *op, *message;
  const char *output; /* the node's first output ("" unknown) */
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

static const char *diags_dup(olg_diags *d, const char *s) {
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
  olg_diag g = {(int)sev, opset, -1, -1, diags_dup(d, code), diags_dup(d, node),
                diags_dup(d, domain), diags_dup(d, op), diags_dup(d, message), ""};
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
OLG_API int64_t olg_diag_node_index(const olg_diags *d, size_t i) { return at(d, i) ? at(d, i)->node_index : -1; }
OLG_API const char *olg_diag_output(const olg_diags *d, size_t i) { return at(d, i) ? at(d, i)->output : NULL; }

/* Appends to [buf, cap) at *n, as snprintf would (the length counted past cap). */
static void put(char *buf, size_t cap, size_t *n, const char *fmt, ...) OLG_PRINTF(4, 5);
static void put(char *buf, size_t cap, size_t *n, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(*n < cap ? buf + *n : NULL, *n < cap ? cap - *n : 0, fmt, ap);
  va_end(ap);
  if (k > 0) *n += (size_t)k;
}

OLG_API size_t olg_diag_format(const olg_diags *d, size_t i, char *buf, size_t cap) {
  const olg_diag *g = at(d, i);
  size_t n = 0;
  if (buf && cap) buf[0] = 0;
  if (!buf) cap = 0;
  if (!g) return 0;
  static const char *const sev[] = {"note", "warning", "error"};
  put(buf, cap, &n, "%s %s", g->severity >= 0 && g->severity <= 2 ? sev[g->severity] : "?", g->code);
  bool where = *g->node || g->node_index >= 0 || *g->output || *g->op;
  if (where) {
    put(buf, cap, &n, ": ");
    if (*g->node) put(buf, cap, &n, "node '%s' ", g->node);
    else if (g->node_index >= 0) put(buf, cap, &n, "node #%lld ", (long long)g->node_index);
    put(buf, cap, &n, "(");
    const char *sep = "";
    if (*g->op) {
      put(buf, cap, &n, "%s%s%s", *g->domain ? g->domain : "", *g->domain ? "::" : "", g->op);
      sep = ", ";
    }
    if (*g->output) {
      put(buf, cap, &n, "%soutput '%s'", sep, g->output);
      sep = ", ";
    }
    if (g->opset >= 0) put(buf, cap, &n, "%sopset %lld", sep, (long long)g->opset);
    put(buf, cap, &n, ")");
  }
  put(buf, cap, &n, ": %s", g->message);
  if (g->min_opset > 0) put(buf, cap, &n, " [lowest opset that works: %lld]", (long long)g->min_opset);
  return n;
}

/* The checker's and the lowering's (no check implies no legalize): left out with them, for the
 * minimal configuration's 64 KiB (onnxlegal/config.h). */
#ifndef OLG_CONFIG_NO_CHECK
void olg__diags_set_last_node(olg_diags *d, size_t count_before, const olg_graph *g,
                              const olg_node *nd) {
  if (!d || d->n <= count_before || !g || !nd) return;
  olg_diag *last = &d->items[d->n - 1];
  if (nd >= g->nodes && nd < g->nodes + g->n_nodes) last->node_index = nd - g->nodes;
  for (uint32_t k = 0; k < nd->n_outputs; k++) {
    olg_value v = nd->outputs[k];
    if (v < 0 || (uint32_t)v >= g->n_values) continue;
    const char *out = diags_dup(d, g->values[v].name);
    if (out) last->output = out; /* without memory, it is only left unknown */
    break;
  }
}

olg_status olg__diags_add_node(olg_diags *d, olg_severity sev, const char *code, const olg_graph *g,
                               const olg_node *nd, int64_t opset, const char *message) {
  size_t before = olg_diags_count(d);
  olg_status s = olg_diags_add(d, sev, code, nd ? nd->name : "", nd ? nd->domain : "",
                               nd ? nd->op : "", opset, message);
  if (!s) olg__diags_set_last_node(d, before, g, nd);
  return s;
}

#endif

#ifndef OLG_CONFIG_NO_LEGALIZE /* the lowering's alone */
void olg__diags_set_last_min_opset(olg_diags *d, size_t count_before, int64_t min_opset) {
  if (d && d->n > count_before) d->items[d->n - 1].min_opset = min_opset;
}

/* note appended to g's message; without room the message stays as it was */
static void append_to_message(olg_diags *d, olg_diag *g, const char *note) {
  size_t a = strlen(g->message), b = strlen(note);
  char *m = olg_arena_alloc(&d->arena, a + b + 1);
  if (!m) return;
  memcpy(m, g->message, a);
  memcpy(m + a, note, b + 1);
  g->message = m;
}

void olg__diags_append_note(olg_diags *d, size_t from, const char *note) {
  for (size_t i = from; d && i < d->n; i++)
    if (d->items[i].severity == OLG_ERROR) append_to_message(d, &d->items[i], note);
}

void olg__diags_restate_min(olg_diags *d, size_t from, int64_t old_min, int64_t new_min,
                            const char *note) {
  for (size_t i = from; d && i < d->n; i++) {
    olg_diag *g = &d->items[i];
    if (g->severity != OLG_ERROR || g->min_opset != old_min) continue;
    append_to_message(d, g, note); /* the field is right even when the message cannot say it */
    g->min_opset = new_min;
  }
}
#endif
