/* onnxlegal — what the exporter registers or changes at opset 13 (see opsets/opsets.h). */
#include "opsets.h"
#include "../symbolics/symbolics.h"

const olg_symbolic_reg olg__opset13[] = {
    /* ---- ONNX domain (symbolics/onnx.c): ReduceSum's axes as an input ---- */
    {"", "ReduceSum", olg__sym_onnx_reduce_axes_input, OLG_LOWERING_NATIVE},

    {NULL, NULL, NULL, 0}};
