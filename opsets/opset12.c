/* onnxlegal — what the exporter registers or changes at opset 12 (see opsets/opsets.h). */
#include "opsets.h"
#include "../symbolics/symbolics.h"

const olg_symbolic_reg olg__opset12[] = {
    /* ---- activations (symbolics/activation.c): Celu-12 ---- */
    {"aten", "celu", olg__sym_celu, OLG_LOWERING_NATIVE},

    /* ---- elementwise comparison (symbolics/elementwise.c): LessOrEqual/GreaterOrEqual-12 ---- */
    {"aten", "ge", olg__sym_ge, OLG_LOWERING_NATIVE},
    {"aten", "le", olg__sym_le, OLG_LOWERING_NATIVE},

    /* ---- linear algebra (symbolics/linalg.c): Einsum-12 ---- */
    {"aten", "einsum", olg__sym_einsum, OLG_LOWERING_NATIVE},

    {NULL, NULL, NULL, 0}};
