/* onnxlegal — the list of per-opset registration tables, from OLG_OPSETS (opsets/opsets.h). */
#include "onnxlegal/legalize.h"
#include "opsets.h"

#define OLG_OPSET_ROW_(nn, n, ir) {n, ir, olg__opset##nn},
const olg_opset_table olg__opset_tables[] = {OLG_OPSETS(OLG_OPSET_ROW_){0, 0, NULL}};
#undef OLG_OPSET_ROW_

#define OLG_OPSET_COUNT_(nn, n, ir) +1
#define OLG_OPSET_SUM_(nn, n, ir) +(n)
enum {
  OPSET_COUNT = 0 OLG_OPSETS(OLG_OPSET_COUNT_),
  OPSET_SUM = 0 OLG_OPSETS(OLG_OPSET_SUM_)
};
#undef OLG_OPSET_COUNT_
#undef OLG_OPSET_SUM_

/* The list is every opset from OLG_LOWER_OPSET_MIN to OLG_LOWER_OPSET_MAX (the public constants
 * of onnxlegal/registry.h): a new opset needs both its line here and the constant raised. */
_Static_assert(OPSET_COUNT == OLG_LOWER_OPSET_MAX - OLG_LOWER_OPSET_MIN + 1 &&
                   2 * OPSET_SUM == OPSET_COUNT * (OLG_LOWER_OPSET_MIN + OLG_LOWER_OPSET_MAX),
               "OLG_OPSETS (opsets/opsets.h) and OLG_LOWER_OPSET_MIN/MAX (registry.h) disagree");

int olg__opsets_first(void) { return olg__opset_tables[0].opset; }
int olg__opsets_last(void) { return olg__opset_tables[OPSET_COUNT - 1].opset; }

/* Public (onnxlegal/legalize.h); defined here, from the list, so that lib/ needs no table. */
OLG_API int64_t olg_ir_version_for_opset(int64_t opset) { return olg__opset_ir_version(opset); }

int64_t olg__opset_ir_version(int64_t opset) {
  if (opset < 1 || opset > olg__opsets_last()) return -1;
  if (opset < olg__opsets_first()) return olg__opset_tables[0].ir_version;
  for (const olg_opset_table *t = olg__opset_tables; t->regs; t++)
    if (t->opset == opset) return t->ir_version;
  return -1;
}
