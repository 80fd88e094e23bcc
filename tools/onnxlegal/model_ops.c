/* The ops a model uses, each with the lowest target opset it can be converted to: shared by
 * `onnxlegal info MODEL` and `onnxlegal ops MODEL`. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

typedef struct op_key {
  const char *domain, *op;
  size_t count;
} op_key;

static int cmp_key(const void *a, const void *b) {
  const op_key *x = a, *y = b;
  int c = strcmp(x->domain, y->domain);
  return c ? c : strcmp(x->op, y->op);
}

static int cmp_count(const void *a, const void *b) {
  const op_key *x = a, *y = b;
  if (x->count != y->count) return x->count < y->count ? 1 : -1;
  return cmp_key(a, b);
}

/* The lowest target opset (OLG_LOWER_OPSET_MIN..MAX) at which the op converts at all (*any) and
 * natively (*native); -1 when none. A registered op: as the registry says; an ONNX op without a
 * row of its own is passed through from the first opset that defines it. */
static void lowest(const olg_registry *r, const char *domain, const char *op, int *any,
                   int *native) {
  *any = olg_registry_min_opset(r, domain, op, 0);
  *native = olg_registry_min_opset(r, domain, op, 1);
  int since, kind;
  if (olg_registry_find(r, domain, op, OLG_LOWER_OPSET_MAX, &since, &kind) == OLG_ERR_NOT_FOUND &&
      *any < 0 && (!*domain || strcmp(domain, "ai.onnx") == 0)) {
    int since = 0;
    if (olg_schema_op_versions("", op, &since, 1)) {
      int first = since < OLG_LOWER_OPSET_MIN ? OLG_LOWER_OPSET_MIN : since;
      if (first <= OLG_LOWER_OPSET_MAX) *any = *native = first;
    }
  }
}

int cli_print_model_ops(const olg_model *m, int table) {
  const olg_graph *g = olg_model_graph_const(m);
  size_t n_nodes = olg_graph_node_count(g);
  op_key *keys = n_nodes ? malloc(n_nodes * sizeof *keys) : NULL;
  olg_registry *r = NULL;
  olg_status s = n_nodes && !keys ? OLG_ERR_NOMEM : olg_registry_new_builtin(&r, NULL);
  if (s) {
    free(keys);
    fprintf(stderr, "onnxlegal: %s\n", s == OLG_ERR_NOMEM ? "out of memory" : olg_last_error());
    return CLI_USAGE;
  }
  for (size_t i = 0; i < n_nodes; i++) {
    keys[i].domain = olg_node_domain(g, (olg_node_id)i);
    keys[i].op = olg_node_op(g, (olg_node_id)i);
    keys[i].count = 1;
  }
  if (n_nodes) qsort(keys, n_nodes, sizeof *keys, cmp_key);
  size_t n_ops = 0;
  for (size_t i = 0; i < n_nodes; i++) {
    if (n_ops && cmp_key(&keys[n_ops - 1], &keys[i]) == 0) keys[n_ops - 1].count++;
    else keys[n_ops++] = keys[i];
  }
  if (n_ops) qsort(keys, n_ops, sizeof *keys, cmp_count);
  /* What the registry says is per op; a node's arguments may need more (MaxPool with
   * ceil_mode: 10). One legalization at the lowest opset reports every node refused there
   * with the lowest opset that works for it (olg_diag_min_opset): each op needs the highest. */
  int *node_need = n_ops ? calloc(n_ops, sizeof *node_need) : NULL;
  olg_diags *d = NULL;
  if (n_ops && node_need && olg_registry_freeze(r) == OLG_OK && olg_diags_new(&d, NULL) == OLG_OK) {
    olg_legalize_options lo = OLG_LEGALIZE_OPTIONS_INIT;
    lo.opset = OLG_LOWER_OPSET_MIN;
    olg_model *out = NULL;
    if (olg_legalize(m, r, &lo, &out, d) != OLG_OK) {
      for (size_t k = 0; k < olg_diags_count(d); k++) {
        if (olg_diag_severity(d, k) != OLG_ERROR) continue;
        const char *dom = olg_diag_domain(d, k), *op = olg_diag_op(d, k);
        if (strcmp(dom, "ai.onnx") == 0 || strcmp(dom, "onnx") == 0) dom = "";
        int64_t need = olg_diag_min_opset(d, k);
        for (size_t j = 0; j < n_ops; j++) {
          if (strcmp(keys[j].op, op) != 0) continue;
          const char *kd = strcmp(keys[j].domain, "ai.onnx") == 0 ? "" : keys[j].domain;
          if (strcmp(kd, dom) != 0) continue;
          if (need < 0) node_need[j] = -1;
          else if (node_need[j] >= 0 && need > node_need[j]) node_need[j] = (int)need;
        }
      }
    }
    olg_model_free(out);
  }
  olg_diags_free(d);
  olg_clear_error();
  int needs = -1; /* the lowest opset the whole model converts to */
  int blocked = 0;
  if (table)
    printf("%-36s %6s  %-12s %s\n", "op", "nodes", "lowest opset", "natively from");
  else
    printf("nodes: %zu\n", n_nodes);
  for (size_t i = 0; i < n_ops; i++) {
    int any, native;
    lowest(r, keys[i].domain, keys[i].op, &any, &native);
    if (node_need && node_need[i] < 0) any = native = -1;
    else if (node_need && any >= 0 && node_need[i] > any) {
      any = node_need[i];
      if (native >= 0 && native < any) native = any;
    }
    if (any < 0) blocked = 1;
    else if (any > needs) needs = any;
    char name[300], lo[32], nat[32];
    snprintf(name, sizeof name, "%s%s%s", keys[i].domain, *keys[i].domain ? "." : "", keys[i].op);
    if (table) {
      snprintf(lo, sizeof lo, "%d", any);
      snprintf(nat, sizeof nat, "%d", native);
      printf("%-36s %6zu  %-12s %s\n", name, keys[i].count, any < 0 ? "none" : lo,
             native < 0 ? "never" : native == any ? "same" : nat);
    } else if (any < 0) {
      printf("  %s: %zu (no conversion)\n", name, keys[i].count);
    } else if (native != any) {
      printf("  %s: %zu (opset >= %d, natively >= %d)\n", name, keys[i].count, any, native);
    } else {
      printf("  %s: %zu (opset >= %d)\n", name, keys[i].count, any);
    }
  }
  if (blocked)
    printf("%s: some ops convert to no opset from %d to %d\n", table ? "lowest opset" : "converts to",
           OLG_LOWER_OPSET_MIN, OLG_LOWER_OPSET_MAX);
  else if (n_ops)
    printf("%s %d\n", table ? "lowest opset for the whole model:" : "converts to: opset >=", needs);
  free(node_need);
  free(keys);
  olg_registry_free(r);
  return CLI_OK;
}
