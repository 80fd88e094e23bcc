/* onnxlegal — lookups in the generated ONNX schema tables (lib/schemas_gen.c).
 *
 * The ops are sorted by (domain, name) and grouped by domain, so a lookup finds the
 * domain among a handful of rows, binary-searches the op names of that domain, then
 * walks back over the op's few versions. No allocation; the one state is a small per-thread
 * memo of the ops found last (see find_op). */
#include "schema.h"

#include <stdbool.h>
#include <string.h>

#include "onnxlegal/ops.h"

_Static_assert(OLG_DTYPE_MAX < 32, "tensor_dtypes masks hold one bit per dtype in 32 bits");

#define T (&olg__schema_tables)

static int is_default_domain(const char *domain) {
  return domain == NULL || domain[0] == '\0' || strcmp(domain, "ai.onnx") == 0;
}

const olg_schema_domain *olg_schema_domain_find(const char *domain) {
  if (is_default_domain(domain)) domain = "";
  if (!*domain && T->n_domains && !*T->domains[0].domain) return &T->domains[0]; /* the usual */
  for (int i = 0; i < T->n_domains; i++)
    if (strcmp(T->domains[i].domain, domain) == 0) return &T->domains[i];
  return NULL;
}

int olg_schema_domain_max_opset(const char *domain) {
  const olg_schema_domain *d = olg_schema_domain_find(domain);
  return d ? d->max_released : -1;
}

/* Ops found, by a hash of their name: a lowering asks for the same few ops again and again
 * (several times per node), and the binary search's strcmps were a tenth of converting a
 * million-node chain. Per thread: no lock, no race; entries point into the static tables. */
static _Thread_local const olg_schema_op *op_memo[64];

/* The default domain's ops found last by the address of the name asked with (the same node's op
 * is asked for several times in a row): hashing the name costs more than comparing it. */
static _Thread_local struct { const char *op; const olg_schema_op *m; } op_by_addr[64];

static const olg_schema_op *find_op(const char *domain, const char *op) {
  const olg_schema_domain *d;
  int lo, hi;

  bool def = op && (domain == NULL || domain[0] == '\0');
  /* (the low bits folded with higher ones: names are packed byte by byte, a few bytes apart,
     and blocks apart at like offsets; each gets a slot of its own) */
  unsigned a = (unsigned)((uintptr_t)op ^ (uintptr_t)op >> 6) & 63u;
  if (def && op_by_addr[a].op == op &&
      (op_by_addr[a].m->name == op || strcmp(op_by_addr[a].m->name, op) == 0))
    return op_by_addr[a].m;
  if (op == NULL || (d = olg_schema_domain_find(domain)) == NULL) return NULL;
  uint32_t h = 2166136261u;
  for (const char *c = op; *c; c++) h = (h ^ (uint8_t)*c) * 16777619u;
  const olg_schema_op **slot = &op_memo[(h ^ (uint32_t)(d - T->domains) * 0x9e3779b9u) >> 26];
  const olg_schema_op *m = *slot;
  if (m && m >= T->ops + d->first_op && m < T->ops + d->first_op + d->n_ops &&
      (m->name == op || strcmp(m->name, op) == 0)) { /* nodes mostly hold the table's copy */
    if (def) op_by_addr[a].op = op, op_by_addr[a].m = m;
    return m;
  }
  lo = d->first_op;
  hi = d->first_op + d->n_ops; /* [lo, hi) */
  while (lo < hi) {
    int mid = lo + (hi - lo) / 2;
    int c = strcmp(T->ops[mid].name, op);
    if (c == 0) {
      if (def) op_by_addr[a].op = op, op_by_addr[a].m = &T->ops[mid];
      return *slot = &T->ops[mid];
    }
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return NULL;
}

/* The answers for the default domain found last, per thread, by the address of the name asked
 * with and the opset (a node's op is asked for several times, by the reader's copy of the name
 * or the table's). An entry holds the table's name: asked by that very address it is the name
 * (nothing else lives there), asked by another copy it is compared (a copy freed since may
 * hold another name). */
static _Thread_local struct {
  const char *op, *name;
  int opset;
  const olg_schema *s;
} find_memo[64];

const olg_schema *olg_schema_find(const char *domain, const char *op, int opset) {
  bool def = op && (domain == NULL || domain[0] == '\0');
  unsigned a = ((unsigned)((uintptr_t)op ^ (uintptr_t)op >> 6) ^ (unsigned)opset * 13u) & 63u;
  if (def && find_memo[a].op == op && find_memo[a].opset == opset &&
      (find_memo[a].name == op || strcmp(find_memo[a].name, op) == 0))
    return find_memo[a].s;
  const olg_schema_op *o = find_op(domain, op);
  if (o == NULL) return NULL;
  const olg_schema *s = NULL;
  for (int i = o->first + o->count - 1; i >= o->first && !s; i--)
    if (T->schemas[i].since_version <= opset) s = &T->schemas[i];
  if (def) {
    find_memo[a].op = op, find_memo[a].name = o->name;
    find_memo[a].opset = opset, find_memo[a].s = s;
  }
  return s;
}

const olg_schema *olg_schema_versions(const char *domain, const char *op, size_t *n) {
  const olg_schema_op *o = find_op(domain, op);
  if (n) *n = o ? (size_t)o->count : 0;
  return o ? &T->schemas[o->first] : NULL;
}

const char *olg__schema_op_static(const char *domain, const char *op) {
  const olg_schema_op *o = find_op(domain, op);
  return o ? o->name : NULL;
}

size_t olg_schema_count(void) {
  return (size_t)T->n_schemas;
}

const olg_schema *olg_schema_at(size_t i) {
  return i < (size_t)T->n_schemas ? &T->schemas[i] : NULL;
}

const olg_attr_schema *olg_schema_attr(const olg_schema *s, const char *name) {
  if (s == NULL || name == NULL) return NULL;
  for (int i = 0; i < s->n_attrs; i++)
    if (strcmp(s->attrs[i].name, name) == 0) return &s->attrs[i];
  return NULL;
}

const olg_type_constraint *olg_schema_constraint(const olg_schema *s, const char *name) {
  if (s == NULL || name == NULL) return NULL;
  for (int i = 0; i < s->n_constraints; i++)
    if (strcmp(s->constraints[i].name, name) == 0) return &s->constraints[i];
  return NULL;
}

const char *const *olg_schema_formal_types(const olg_schema *s, const olg_formal *f, int *n) {
  const olg_type_constraint *c;

  if (f == NULL) {
    if (n) *n = 0;
    return NULL;
  }
  c = olg_schema_constraint(s, f->type_str);
  if (c != NULL) {
    if (n) *n = c->n_allowed;
    return c->allowed;
  }
  if (n) *n = 1;
  return &f->type_str;
}

olg_dtype olg_schema_tensor_type_dtype(const char *type_str) {
  static const char prefix[] = "tensor(";
  size_t plen = sizeof prefix - 1, len;
  char elem[32];

  if (type_str == NULL || strncmp(type_str, prefix, plen) != 0) return OLG_UNDEFINED;
  len = strlen(type_str);
  if (len < plen + 2 || type_str[len - 1] != ')' || len - plen - 1 >= sizeof elem)
    return OLG_UNDEFINED;
  memcpy(elem, type_str + plen, len - plen - 1);
  elem[len - plen - 1] = '\0';
  return olg_dtype_from_name(elem);
}

/* ---- the public queries (onnxlegal/ops.h) ---- */

OLG_API int olg_schema_domain_opset(const char *domain) { return olg_schema_domain_max_opset(domain); }

OLG_API size_t olg_schema_op_count(const char *domain) {
  const olg_schema_domain *d = olg_schema_domain_find(domain);
  return d ? (size_t)d->n_ops : 0;
}

OLG_API const char *olg_schema_op_name(const char *domain, size_t i) {
  const olg_schema_domain *d = olg_schema_domain_find(domain);
  return d && i < (size_t)d->n_ops ? T->ops[(size_t)d->first_op + i].name : NULL;
}

OLG_API size_t olg_schema_op_versions(const char *domain, const char *op, int *since, size_t cap) {
  size_t n = 0;
  const olg_schema *v = olg_schema_versions(domain, op, &n);
  for (size_t i = 0; v && since && i < n && i < cap; i++) since[i] = v[i].since_version;
  return n;
}

OLG_API int olg_schema_op_defined_at(const char *domain, const char *op, int64_t opset) {
  if (opset < 1 || opset > 100000) return 0;
  const olg_schema *s = olg_schema_find(domain, op, (int)opset);
  return s && !s->deprecated;
}
