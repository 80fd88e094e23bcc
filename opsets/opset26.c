/* onnxlegal — what the exporter registers or changes at opset 26 (see opsets/opsets.h). */
#include "opsets.h"
#include "../symbolics/symbolics.h"

const olg_symbolic_reg olg__opset26[] = {
    /* ---- reductions (symbolics/reduce.c): CumProd-26 ---- */
    {"", "CumProd", olg__sym_onnx_cumprod, OLG_LOWERING_NATIVE},
    {"aten", "cumprod", olg__sym_cumprod, OLG_LOWERING_NATIVE},
    {NULL, NULL, NULL, 0}};
