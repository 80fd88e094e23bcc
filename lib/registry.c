/* onnxlegal — the symbolic registry (include/onnxlegal/registry.h).
 *
 * Ops are kept in an array sorted by (domain, op): lookups are binary searches, and iteration
 * in sorted order is free. Each op holds its registrations in insertion order; the one used at
 * opset T is the last inserted among those with the highest since <= T, which makes every
 * (op, since) key a stack (a caller's add shadows the built-in; remove pops it). An op has a
 * handful of registrations, so scanning them is O(1) in practice. A registration serves the
 * opsets [since, until): past `until` (the built-in rows of a decomposition end at the op's
 * native opset) an ONNX op is the pass-through's again, and any other op has no symbolic. The built-in registry (the
 * opsets/ tables and the ONNX pass-through) is made in opsets/builtin.c: the core names no
 * symbolic. */
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>

#include "lower.h"
#include "util.h"

typedef struct reg_entry {
  int since;
  int until; /* the first opset the row no longer serves (0: none): from there an ONNX op is
                passed through again (the built-in registry's decompositions below the native
                opset carry it, opsets/opsets.h) */
  int lowering;
  olg_symbolic_fn fn;
  void *ud;
} reg_entry;

typedef struct reg_op {
  const char *domain, *op;
  reg_entry *e;
  uint32_t n, cap;
} reg_op;

typedef struct reg_shape {
  const char *domain, *op;
  olg_shape_fn fn;
  void *ud;
} reg_shape;

typedef struct reg_domain {
  const char *domain;
  int64_t version;
} reg_domain;

struct olg_registry {
  olg_allocator alloc;
  olg_arena arena; /* the strings */
  reg_op *ops;
  uint32_t n_ops, cap_ops;
  reg_shape *shapes;
  uint32_t n_shapes, cap_shapes;
  reg_domain *domains;
  uint32_t n_domains, cap_domains;
  olg_symbolic_fn onnx_fallback; /* for ONNX ops without a registration (built-in registry) */
  const olg_profile *const *profiles; /* found by name in a legalize (built-in registry) */
  int frozen;
  /* a caller added a symbolic (olg_registry_add*): code outside the library may then read the
     source of a lowering (olg_lower_source), which olg_legalize_consume must keep whole */
  int caller_symbolics;
  /* what olg__registry_dispatch answers may have changed when this changes: a number no
     registry had before (gen_next), so that a registry freed and another made at its address
     are told apart */
  uint64_t gen;
};

static _Atomic uint64_t gen_next = 1;
static void new_gen(olg_registry *r) { r->gen = atomic_fetch_add(&gen_next, 1); }

static const char *norm_domain(const char *d) {
  if (!d || (*d && strcmp(d, "ai.onnx") == 0)) return "";
  return d;
}

static int key_cmp(const char *d1, const char *o1, const char *d2, const char *o2) {
  int c = d1 == d2 || (!*d1 && !*d2) ? 0 : strcmp(d1, d2); /* mostly both "" */
  return c ? c : o1 == o2 ? 0 : strcmp(o1, o2);
}

/* The rows found last, per thread, by the address of the op name (a lowering dispatches the
 * same few ops, each by one copy of its name; hashing the name cost as much as the compare): a
 * lowering asks for some that are not there too (the binary search's strcmps were 3% of a
 * chain's conversion). A row is taken only when it still holds the key (keys are unique), a miss only
 * when the key still falls between the rows around it: a registry changed or freed since is
 * harmless. */
static _Thread_local struct { const olg_registry *r; long i; } reg_op_memo[32];

/* Index of (domain, op), or -(insertion point) - 1. */
static long find_op(const olg_registry *r, const char *domain, const char *op) {
  uint32_t h = (uint32_t)((uintptr_t)op ^ (uintptr_t)op >> 6) & 31u;
  long mi = reg_op_memo[h].i, n = (long)r->n_ops;
  if (reg_op_memo[h].r == r && mi >= 0 && mi < n &&
      key_cmp(r->ops[mi].domain, r->ops[mi].op, domain, op) == 0)
    return mi;
  long at = -mi - 1; /* a miss remembered: still one when the key falls between its neighbours */
  if (reg_op_memo[h].r == r && mi < 0 && at <= n &&
      (at == 0 || key_cmp(r->ops[at - 1].domain, r->ops[at - 1].op, domain, op) < 0) &&
      (at == n || key_cmp(r->ops[at].domain, r->ops[at].op, domain, op) > 0))
    return mi;
  long lo = 0, hi = (long)r->n_ops - 1;
  while (lo <= hi) {
    long mid = (lo + hi) / 2;
    int c = key_cmp(r->ops[mid].domain, r->ops[mid].op, domain, op);
    if (c == 0) {
      reg_op_memo[h].r = r;
      reg_op_memo[h].i = mid;
      return mid;
    }
    if (c < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  reg_op_memo[h].r = r;
  reg_op_memo[h].i = -lo - 1;
  return -lo - 1;
}

static const char *reg_strdup(olg_registry *r, const char *s) {
  size_t n = strlen(s) + 1;
  char *p = olg_arena_alloc(&r->arena, n);
  if (!p) {
    olg__err(OLG_ERR_NOMEM, "out of memory (registry string)");
    return NULL;
  }
  memcpy(p, s, n);
  return p;
}

OLG_API olg_status olg_registry_new(olg_registry **out, const olg_allocator *allocator) {
  if (!out) return olg__err(OLG_ERR_INVALID_ARG, "olg_registry_new: out is NULL");
  *out = NULL;
  olg_allocator a;
  olg_status s = olg__alloc_init(&a, allocator);
  if (s) return s;
  olg_registry *r = olg__calloc(&a, 1, sizeof *r);
  if (!r) return OLG_ERR_NOMEM;
  r->alloc = a;
  olg_arena_init(&r->arena, &r->alloc);
  new_gen(r);
  *out = r;
  return OLG_OK;
}

OLG_API void olg_registry_free(olg_registry *r) {
  if (!r) return;
  const olg_allocator *a = &r->alloc;
  for (uint32_t i = 0; i < r->n_ops; i++)
    olg__free(a, r->ops[i].e, (size_t)r->ops[i].cap * sizeof(reg_entry));
  olg__free(a, r->ops, (size_t)r->cap_ops * sizeof *r->ops);
  olg__free(a, r->shapes, (size_t)r->cap_shapes * sizeof *r->shapes);
  olg__free(a, r->domains, (size_t)r->cap_domains * sizeof *r->domains);
  olg_arena_free(&r->arena);
  olg_allocator copy = r->alloc;
  olg__free(&copy, r, sizeof *r);
}

OLG_API olg_status olg_registry_freeze(olg_registry *r) {
  if (!r) return olg__err(OLG_ERR_INVALID_ARG, "olg_registry_freeze: registry is NULL");
  r->frozen = 1;
  return OLG_OK;
}

OLG_API int olg_registry_is_frozen(const olg_registry *r) { return r ? r->frozen : 0; }

static olg_status check_mutable(const olg_registry *r, const char *fn) {
  if (!r) return olg__err(OLG_ERR_INVALID_ARG, "%s: registry is NULL", fn);
  if (r->frozen) return olg__err(OLG_ERR_STATE, "%s: the registry is frozen (read-only)", fn);
  return OLG_OK;
}

static olg_status add_entry(olg_registry *r, const char *domain, const char *op, int since,
                            int until, int lowering, olg_symbolic_fn fn, void *ud) {
  new_gen(r);
  domain = norm_domain(domain);
  long i = find_op(r, domain, op);
  if (i < 0) {
    long at = -i - 1;
    olg_status s = olg__grow(&r->alloc, (void **)&r->ops, &r->cap_ops, (size_t)r->n_ops + 1,
                             sizeof *r->ops);
    if (s) return s;
    const char *d = reg_strdup(r, domain), *o = d ? reg_strdup(r, op) : NULL;
    if (!o) return OLG_ERR_NOMEM;
    memmove(&r->ops[at + 1], &r->ops[at], (size_t)(r->n_ops - (uint32_t)at) * sizeof *r->ops);
    r->ops[at] = (reg_op){d, o, NULL, 0, 0};
    r->n_ops++;
    i = at;
  }
  reg_op *ro = &r->ops[i];
  olg_status s = olg__grow(&r->alloc, (void **)&ro->e, &ro->cap, (size_t)ro->n + 1, sizeof *ro->e);
  if (s) {
    if (!ro->n) { /* keep no empty op behind */
      memmove(&r->ops[i], &r->ops[i + 1], (size_t)(r->n_ops - (uint32_t)i - 1) * sizeof *r->ops);
      r->n_ops--;
    }
    return s;
  }
  ro->e[ro->n++] = (reg_entry){since, until, lowering, fn, ud};
  return OLG_OK;
}

olg_status olg__registry_add_range(olg_registry *r, const char *domain, const char *op,
                                  int since_opset, int until_opset, int lowering,
                                  olg_symbolic_fn fn, void *ud) {
  olg_status s = check_mutable(r, "olg_registry_add");
  if (s) return s;
  if (!op || !*op) return olg__err(OLG_ERR_INVALID_ARG, "olg_registry_add: the op name is empty");
  if (since_opset < 1 || since_opset > 1000)
    return olg__err(OLG_ERR_RANGE, "olg_registry_add: %s::%s: since_opset %d is not in 1..1000",
                    norm_domain(domain), op, since_opset);
  if (lowering == OLG_LOWERING_NONE ? fn != NULL
                                    : (lowering != OLG_LOWERING_NATIVE &&
                                       lowering != OLG_LOWERING_DECOMPOSED) || !fn)
    return olg__err(OLG_ERR_INVALID_ARG,
                    "olg_registry_add: %s::%s: lowering %d needs %s function", norm_domain(domain),
                    op, lowering, lowering == OLG_LOWERING_NONE ? "no" : "a");
  if (until_opset && until_opset <= since_opset)
    return olg__err(OLG_ERR_RANGE, "olg_registry_add: %s::%s: serves opsets %d to %d (empty)",
                    norm_domain(domain), op, since_opset, until_opset - 1);
  return add_entry(r, domain, op, since_opset, until_opset, lowering, fn, ud);
}

OLG_API olg_status olg_registry_add_ex(olg_registry *r, const char *domain, const char *op,
                                       int since_opset, int lowering, olg_symbolic_fn fn,
                                       void *ud) {
  olg_status s = olg__registry_add_range(r, domain, op, since_opset, 0, lowering, fn, ud);
  if (!s) r->caller_symbolics = 1;
  return s;
}

OLG_API olg_status olg_registry_add(olg_registry *r, const char *domain, const char *op,
                                    int since_opset, olg_symbolic_fn fn, void *ud) {
  return olg_registry_add_ex(r, domain, op, since_opset, OLG_LOWERING_NATIVE, fn, ud);
}

OLG_API olg_status olg_registry_remove(olg_registry *r, const char *domain, const char *op,
                                       int since_opset) {
  olg_status s = check_mutable(r, "olg_registry_remove");
  if (s) return s;
  if (!op) return olg__err(OLG_ERR_INVALID_ARG, "olg_registry_remove: op is NULL");
  domain = norm_domain(domain);
  long i = find_op(r, domain, op);
  if (i >= 0) {
    reg_op *ro = &r->ops[i];
    for (uint32_t k = ro->n; k-- > 0;) {
      if (ro->e[k].since != since_opset) continue;
      new_gen(r);
      memmove(&ro->e[k], &ro->e[k + 1], (size_t)(ro->n - k - 1) * sizeof *ro->e);
      ro->n--;
      if (!ro->n) { /* the op's strings stay in the arena; op_at pointers handed out stay valid */
        olg__free(&r->alloc, ro->e, (size_t)ro->cap * sizeof *ro->e);
        memmove(&r->ops[i], &r->ops[i + 1], (size_t)(r->n_ops - (uint32_t)i - 1) * sizeof *r->ops);
        r->n_ops--;
      }
      return OLG_OK;
    }
  }
  return olg__err(OLG_ERR_NOT_FOUND, "olg_registry_remove: no registration of %s::%s since opset %d",
                  domain, op, since_opset);
}

OLG_API olg_status olg_registry_add_shape_fn(olg_registry *r, const char *domain, const char *op,
                                             olg_shape_fn fn, void *ud) {
  olg_status s = check_mutable(r, "olg_registry_add_shape_fn");
  if (s) return s;
  domain = norm_domain(domain);
  if (!*domain || !op || !*op || !fn)
    return olg__err(OLG_ERR_INVALID_ARG,
                    "olg_registry_add_shape_fn: a custom (non-ONNX) domain, an op and a function "
                    "are required");
  for (uint32_t i = 0; i < r->n_shapes; i++) {
    if (key_cmp(r->shapes[i].domain, r->shapes[i].op, domain, op) == 0) {
      r->shapes[i].fn = fn;
      r->shapes[i].ud = ud;
      return OLG_OK;
    }
  }
  s = olg__grow(&r->alloc, (void **)&r->shapes, &r->cap_shapes, (size_t)r->n_shapes + 1,
                sizeof *r->shapes);
  if (s) return s;
  const char *d = reg_strdup(r, domain), *o = d ? reg_strdup(r, op) : NULL;
  if (!o) return OLG_ERR_NOMEM;
  r->shapes[r->n_shapes++] = (reg_shape){d, o, fn, ud};
  return OLG_OK;
}

OLG_API olg_status olg_registry_set_domain_version(olg_registry *r, const char *domain,
                                                   int64_t version) {
  olg_status s = check_mutable(r, "olg_registry_set_domain_version");
  if (s) return s;
  domain = norm_domain(domain);
  if (!*domain || version < 1)
    return olg__err(OLG_ERR_INVALID_ARG,
                    "olg_registry_set_domain_version: a custom domain and a version >= 1 are "
                    "required");
  for (uint32_t i = 0; i < r->n_domains; i++) {
    if (strcmp(r->domains[i].domain, domain) == 0) {
      r->domains[i].version = version;
      return OLG_OK;
    }
  }
  s = olg__grow(&r->alloc, (void **)&r->domains, &r->cap_domains, (size_t)r->n_domains + 1,
                sizeof *r->domains);
  if (s) return s;
  const char *d = reg_strdup(r, domain);
  if (!d) return OLG_ERR_NOMEM;
  r->domains[r->n_domains++] = (reg_domain){d, version};
  return OLG_OK;
}

/* ---- lookups ---- */

/* The registration that serves (domain, op) at opset: the last inserted among those with the
 * highest since <= opset, or NULL. *ended is set when that registration stops before opset
 * (its until): the op is then the pass-through's, if it is an ONNX op of a registry with one. */
static const reg_entry *lookup(const olg_registry *r, const char *domain, const char *op,
                               int opset, bool *ended) {
  *ended = false;
  long i = find_op(r, norm_domain(domain), op);
  if (i < 0) return NULL;
  const reg_op *ro = &r->ops[i];
  const reg_entry *best = NULL;
  for (uint32_t k = 0; k < ro->n; k++)
    if (ro->e[k].since <= opset && (!best || ro->e[k].since >= best->since)) best = &ro->e[k];
  if (best && best->until && opset >= best->until) *ended = true;
  return best;
}

/* 1 when an ended registration of (domain, op) hands it to the pass-through. */
static bool passed_on(const olg_registry *r, const char *domain) {
  return !*norm_domain(domain) && r->onnx_fallback;
}

OLG_API olg_status olg_registry_find(const olg_registry *r, const char *domain, const char *op,
                                     int opset, int *since, int *lowering) {
  if (!r || !op) return olg__err(OLG_ERR_INVALID_ARG, "olg_registry_find: NULL argument");
  bool ended;
  const reg_entry *e = lookup(r, domain, op, opset, &ended);
  int k = !e ? OLG_LOWERING_NONE
             : !ended ? e->lowering
             : passed_on(r, domain) ? OLG_LOWERING_NATIVE : OLG_LOWERING_NONE;
  if (since) /* past its until, the pass-through serves from there */
    *since = !e ? -1 : !ended ? e->since : passed_on(r, domain) ? e->until : -1;
  if (lowering) *lowering = k;
  if (k == OLG_LOWERING_NONE)
    return olg__err(OLG_ERR_NOT_FOUND, "no symbolic for %s::%s at opset %d", norm_domain(domain),
                    op, opset);
  return OLG_OK;
}

OLG_API int olg_registry_lowering(const olg_registry *r, const char *domain, const char *op,
                                  int opset) {
  if (!r || !op) return OLG_LOWERING_NONE;
  bool ended;
  const reg_entry *e = lookup(r, domain, op, opset, &ended);
  if (!e) return OLG_LOWERING_NONE;
  if (ended) return passed_on(r, domain) ? OLG_LOWERING_NATIVE : OLG_LOWERING_NONE;
  return e->lowering;
}

OLG_API int olg_registry_min_opset(const olg_registry *r, const char *domain, const char *op,
                                   int native_only) {
  for (int v = OLG_LOWER_OPSET_MIN; v <= OLG_LOWER_OPSET_MAX; v++) {
    int k = olg_registry_lowering(r, domain, op, v);
    if (k == OLG_LOWERING_NATIVE || (k == OLG_LOWERING_DECOMPOSED && !native_only)) return v;
  }
  return -1;
}

OLG_API size_t olg_registry_op_count(const olg_registry *r) { return r ? r->n_ops : 0; }

OLG_API olg_status olg_registry_op_at(const olg_registry *r, size_t i, const char **domain,
                                      const char **op) {
  if (!r || i >= r->n_ops)
    return olg__err(OLG_ERR_RANGE, "olg_registry_op_at: index %zu out of range", i);
  if (domain) *domain = r->ops[i].domain;
  if (op) *op = r->ops[i].op;
  return OLG_OK;
}

/* ---- for the driver and the built-in registry (lower.h) ---- */

void olg__registry_set_onnx_fallback(olg_registry *r, olg_symbolic_fn fn) {
  r->onnx_fallback = fn;
  new_gen(r);
}
bool olg__registry_caller_symbolics(const olg_registry *r) { return r->caller_symbolics != 0; }

void olg__registry_set_profiles(olg_registry *r, const olg_profile *const *profiles) {
  r->profiles = profiles;
}

const olg_profile *const *olg__registry_profiles(const olg_registry *r) {
  static const olg_profile *const none[] = {NULL};
  return r->profiles ? r->profiles : none;
}

static olg_status dispatch(const olg_registry *r, const char *domain, const char *op, int opset,
                           olg_symbolic_fn *fn, void **ud, int *lowering) {
  bool ended;
  const reg_entry *e = lookup(r, domain, op, opset, &ended);
  if (e && ended && passed_on(r, domain)) { /* the row ended at the op's native opset */
    *fn = r->onnx_fallback;
    *ud = NULL;
    *lowering = OLG_LOWERING_NATIVE;
    return OLG_OK;
  }
  if (e && !ended) {
    *fn = e->fn;
    *ud = e->ud;
    *lowering = e->lowering;
    return e->lowering == OLG_LOWERING_NONE ? OLG_ERR_UNSUPPORTED : OLG_OK;
  }
  /* an ONNX op with rows of its own only from a later opset is not passed through below them:
   * the caller reports it with the lowest opset that works */
  if (!*norm_domain(domain) && r->onnx_fallback && find_op(r, "", op) < 0) {
    *fn = r->onnx_fallback;
    *ud = NULL;
    *lowering = OLG_LOWERING_NATIVE;
    return OLG_OK;
  }
  *fn = NULL;
  *ud = NULL;
  *lowering = OLG_LOWERING_NONE;
  return OLG_ERR_NOT_FOUND;
}

/* The answers for the default domain given last, per thread, by the address of the op name,
 * the opset and the registry in its state then (gen): a lowering asks for every node, mostly
 * the same few ops (the lookup was 4% of converting a chain). The name is kept and compared: the
 * copy asked with may have been freed and its address given to another name since. A dispatch
 * has no other effect, so its answer, repeated, is the same. */
static _Thread_local struct {
  const olg_registry *r;
  uint64_t gen;
  const char *op;
  int opset, lowering;
  olg_status s;
  olg_symbolic_fn fn;
  void *ud;
  char name[24];
} disp_memo[64];

olg_status olg__registry_dispatch(const olg_registry *r, const char *domain, const char *op,
                                  int opset, olg_symbolic_fn *fn, void **ud, int *lowering) {
  if (*norm_domain(domain)) return dispatch(r, domain, op, opset, fn, ud, lowering);
  unsigned a = ((unsigned)((uintptr_t)op ^ (uintptr_t)op >> 6) ^ (unsigned)opset * 13u) & 63u;
  if (disp_memo[a].r == r && disp_memo[a].gen == r->gen && disp_memo[a].op == op &&
      disp_memo[a].opset == opset && strcmp(disp_memo[a].name, op) == 0) {
    *fn = disp_memo[a].fn, *ud = disp_memo[a].ud, *lowering = disp_memo[a].lowering;
    return disp_memo[a].s;
  }
  olg_status s = dispatch(r, domain, op, opset, fn, ud, lowering);
  size_t n = strlen(op);
  if (n < sizeof disp_memo[a].name) {
    disp_memo[a].r = r, disp_memo[a].gen = r->gen, disp_memo[a].op = op;
    disp_memo[a].opset = opset, disp_memo[a].s = s;
    disp_memo[a].fn = *fn, disp_memo[a].ud = *ud, disp_memo[a].lowering = *lowering;
    memcpy(disp_memo[a].name, op, n + 1);
  }
  return s;
}

olg_shape_fn olg__registry_shape_fn(const olg_registry *r, const char *domain, const char *op,
                                    void **ud) {
  domain = norm_domain(domain);
  for (uint32_t i = 0; i < r->n_shapes; i++) {
    if (key_cmp(r->shapes[i].domain, r->shapes[i].op, domain, op) == 0) {
      *ud = r->shapes[i].ud;
      return r->shapes[i].fn;
    }
  }
  return NULL;
}

int64_t olg__registry_domain_version(const olg_registry *r, const char *domain) {
  domain = norm_domain(domain);
  for (uint32_t i = 0; i < r->n_domains; i++)
    if (strcmp(r->domains[i].domain, domain) == 0) return r->domains[i].version;
  return 1;
}
