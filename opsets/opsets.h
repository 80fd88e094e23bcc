/* onnxlegal — the per-opset registration tables (internal).
 *
 * opsets/opsetNN.c holds what the exporter registers or changes AT opset NN, nothing else: a
 * changelog of the exporter. A row registers fn for (domain, op) from opset NN on, until a row
 * for the same op in a later file replaces it (dispatch picks the highest since <= target):
 *
 *   const olg_symbolic_reg olg__opset11[] = {
 *     {"aten", "upsample_bilinear2d", olg__sym_upsample_linear, OLG_LOWERING_NATIVE},
 *     {"aten", "index_put", olg__sym_index_put, OLG_LOWERING_NATIVE}, // ScatterND-11
 *     {NULL, NULL, NULL, 0}};
 *
 * A row with OLG_LOWERING_NONE and fn NULL says the op stops being expressible from that opset.
 * Rows are grouped by family (one comment line per family), sorted by op inside a family.
 * Adding an opset = adding opsets/opsetNN.c and one line to olg__opset_tables (opsets.c). */
#ifndef OLG_OPSETS_H
#define OLG_OPSETS_H
#include "onnxlegal/registry.h"

typedef struct olg_symbolic_reg {
  const char *domain;
  const char *op;
  olg_symbolic_fn fn;
  int lowering; /* olg_lowering */
} olg_symbolic_reg;

typedef struct olg_opset_table {
  int opset;
  const olg_symbolic_reg *regs;
} olg_opset_table;

/* Every table, ascending opset, ended by {0, NULL}. */
extern const olg_opset_table olg__opset_tables[];

#define OLG_OPSET_TABLE(nn) extern const olg_symbolic_reg olg__opset##nn[]
OLG_OPSET_TABLE(07); OLG_OPSET_TABLE(08); OLG_OPSET_TABLE(09); OLG_OPSET_TABLE(10);
OLG_OPSET_TABLE(11); OLG_OPSET_TABLE(12); OLG_OPSET_TABLE(13); OLG_OPSET_TABLE(14);
OLG_OPSET_TABLE(15); OLG_OPSET_TABLE(16); OLG_OPSET_TABLE(17); OLG_OPSET_TABLE(18);
OLG_OPSET_TABLE(19); OLG_OPSET_TABLE(20); OLG_OPSET_TABLE(21); OLG_OPSET_TABLE(22);
OLG_OPSET_TABLE(23); OLG_OPSET_TABLE(24); OLG_OPSET_TABLE(25); OLG_OPSET_TABLE(26);
OLG_OPSET_TABLE(27);

#endif
