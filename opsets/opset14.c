/* onnxlegal — what the exporter registers or changes at opset 14 (see opsets/opsets.h). */
#include "opsets.h"
#include "../symbolics/symbolics.h"

const olg_symbolic_reg olg__opset14[] = {
    /* ---- activations (symbolics/activation.c): HardSwish-14 ---- */
    {"aten", "hardswish", olg__sym_hardswish, OLG_LOWERING_NATIVE},

    /* ---- rearranging (symbolics/arrange.c): Trilu-14 ---- */
    {"aten", "tril", olg__sym_tril, OLG_LOWERING_NATIVE},
    {"aten", "triu", olg__sym_triu, OLG_LOWERING_NATIVE},

    {NULL, NULL, NULL, 0}};
