/* onnxlegal — what the exporter registers or changes at opset 10 (see opsets/opsets.h). */
#include "opsets.h"
#include "../symbolics/symbolics.h"

const olg_symbolic_reg olg__opset10[] = {
    /* ---- elementwise math (symbolics/elementwise.c): Mod-10, IsInf-10 ---- */
    {"aten", "fmod", olg__sym_fmod, OLG_LOWERING_NATIVE},
    {"aten", "isinf", olg__sym_isinf, OLG_LOWERING_NATIVE},
    {"aten", "remainder", olg__sym_remainder, OLG_LOWERING_NATIVE},

    /* ---- shape and indexing (symbolics/index.c): Slice-10 steps ---- */
    {"aten", "flip", olg__sym_flip, OLG_LOWERING_NATIVE},

    {NULL, NULL, NULL, 0}};
