/* onnxlegal — the list of per-opset registration tables, from OLG_OPSETS (opsets/opsets.h). */
#include "opsets.h"

#define OLG_OPSET_ROW_(nn, n) {n, olg__opset##nn},
const olg_opset_table olg__opset_tables[] = {OLG_OPSETS(OLG_OPSET_ROW_){0, NULL}};
#undef OLG_OPSET_ROW_

#define OLG_OPSET_COUNT_(nn, n) +1
#define OLG_OPSET_SUM_(nn, n) +(n)
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
