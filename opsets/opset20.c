/* onnxlegal — what the exporter registers or changes at opset 20 (see opsets/opsets.h). */
#include "opsets.h"
#include "../symbolics/symbolics.h"

const olg_symbolic_reg olg__opset20[] = {
    /* ---- activations (symbolics/activation.c): Gelu-20 ---- */
    {"aten", "gelu", olg__sym_gelu, OLG_LOWERING_NATIVE},

    {NULL, NULL, NULL, 0}};
