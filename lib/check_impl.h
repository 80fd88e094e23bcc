/* onnxlegal — the validator's internal interface, shared by its parts (internal): check.c
 * (reporting, the model, names, types, graphs, full mode) and olg__ck_check_node.c (each node against
 * its schema). */
#ifndef OLG_CHECK_IMPL_H
#define OLG_CHECK_IMPL_H
#include <stdbool.h>
#include <stddef.h>

#include "infer.h"
#include "onnxlegal/check.h"
#include "schema.h"

typedef struct scope {
  const olg_graph *g;
  olg_node_id limit; /* names of g are visible when defined before this node */
  const struct scope *up;
  int depth; /* 1 for a subgraph of the main graph */
} scope;

typedef struct ck {
  olg_model *m; /* written only in full mode, and restored */
  olg_diags *d;
  bool full, allow_unlowered, notes;
  bool strict; /* OLG-CHECK-IR-OLD, OLG-CHECK-AXIS-NEGATIVE as errors */
  size_t max_errors;
  size_t errors;
  olg_status fatal; /* OLG_ERR_NOMEM while recording */
  bool stop;
  bool noted_no_schema; /* OLG-CHECK-OP-NO-SCHEMA once per run */
  olg_iscopes *isc;     /* the definitions of the graphs being checked (infer_scope.c) */
  const olg_graph *g;   /* the graph being checked: a diagnostic's node index and output */
} ck;

/* check.c */
void olg__ck_report(ck *c, olg_severity sev, const char *code, const olg_node *nd, int64_t opset,
                    const char *fmt, ...) OLG_PRINTF(6, 7);
const char *olg__ck_op_label(const olg_node *nd, int64_t opset, char *buf, size_t n);
const char *olg__ck_attr_type_name(int t);
bool olg__ck_is_default_domain(const char *d);
bool olg__ck_type_present(const olg_type *t);
bool olg__ck_type_string(const olg_type *t, char *buf, size_t n);
bool olg__ck_check_node(ck *c, olg_graph *g, const scope *sc, olg_node_id n, int64_t *opset_out,
                        const olg_schema **schema_out);

/* check_node.c */
bool olg__ck_is_experimental(const char *op);
bool olg__ck_is_source_domain(const char *d);
void olg__ck_op_missing(ck *c, const olg_node *nd, int64_t opset, const char *domain);
void olg__ck_op_removed(ck *c, const olg_node *nd, int64_t opset, const olg_schema *s);
void olg__ck_check_type_constraints(ck *c, const olg_graph *g, const olg_node *nd, int64_t opset,
                                    const olg_schema *s);
void olg__ck_check_signature(ck *c, const olg_node *nd, int64_t opset, const olg_schema *s);
bool olg__ck_has_subgraphs(const olg_node *nd);
void olg__ck_check_subgraph_arity(ck *c, const olg_node *nd, int64_t opset, const olg_schema *s);
bool olg__subgraph_arity_fault(const olg_node *nd, int64_t opset, int since, int k, char *buf,
                               size_t n);

#endif
