/* onnxlegal — the lowering context and the registry's internal interface (internal).
 * Only the lowering context (lib/lower.c, lib/lower_emit.c), the driver (lib/legalize.c), the
 * passes (lib/passes/), lib/registry.c and symbolics/emit.c look inside struct olg_lower;
 * symbolic functions use legalize.h and symbolics/emit.h. */
#ifndef OLG_LOWER_H
#define OLG_LOWER_H
#include <stdbool.h>

#include "ir.h"
#include "onnxlegal/legalize.h"
#include "onnxlegal/registry.h"

struct olg_lower {
  const olg_model *src_model;
  const olg_graph *src;
  olg_model *dst_model;
  olg_graph *dst;
  const olg_registry *reg;
  olg_diags *diags;
  int opset;
  bool allow_decompositions;
  bool fold;
  const char *profile; /* never NULL */

  olg_value *map;   /* source value -> target value (OLG_NO_VALUE: not lowered) */
  uint32_t *uses;   /* source value -> consumers + graph-output listings */

  /* the node being lowered (-1 during the driver's own passes) */
  olg_node_id cur;
  const olg_node *cur_node;
  int64_t cur_src_opset;
  const char *name_base;  /* emitted nodes are named "<name_base>/<Op>" */
  uint32_t n_emitted;     /* nodes emitted for the current source node */
  struct olg_op_use { char op[48]; uint32_t n; } op_uses[16]; /* for "<base>/<Op>_<k>" */
  uint32_t n_op_uses;
  size_t n_errors;        /* error diagnostics added during the call */
  bool cur_reported;      /* the current symbolic added an error diagnostic */

  /* custom domains the emitted nodes use, for opset_import */
  const char **custom_domains;
  uint32_t n_custom, cap_custom;

  /* subgraphs (If, Loop, Scan bodies) are lowered by a context of their own */
  struct olg_lower *parent; /* NULL for the main graph */
  const char *scope;        /* name prefix for the unnamed nodes of a subgraph, or NULL */
  uint8_t *protect;         /* target values that subgraphs read by name: never renamed or
                               merged away (NULL: none) */
  uint32_t n_protect;
};

/* legalize.c: lowers a subgraph of the source node being lowered (an attribute `attr` of an ONNX
 * If/Loop/Scan) into a new subgraph of the target model, to be attached to the emitted node. */
olg_status olg__lower_subgraph(olg_lower *cx, const olg_graph *src_sub, const char *attr,
                               olg_graph **out);

/* registry.c */
/* The symbolic for (domain, op) at opset: OLG_OK with *fn; OLG_ERR_UNSUPPORTED for an explicit
 * "not expressible" row; OLG_ERR_NOT_FOUND when nothing is registered (ONNX ops fall back on
 * the pass-through in a built-in registry). No message is set. */
olg_status olg__registry_dispatch(const olg_registry *r, const char *domain, const char *op,
                                  int opset, olg_symbolic_fn *fn, void **ud, int *lowering);
olg_shape_fn olg__registry_shape_fn(const olg_registry *r, const char *domain, const char *op,
                                    void **ud);
int64_t olg__registry_domain_version(const olg_registry *r, const char *domain);

/* lower.c: the diagnostic machinery shared with emit.c */
olg_status olg__lower_diag(olg_lower *cx, olg_severity sev, const char *code, olg_status status,
                           const char *message);

#endif
