/* onnxlegal — what the exporter registers or changes at opset 24 (see opsets/opsets.h). */
#include "opsets.h"
#include "../symbolics/symbolics.h"

const olg_symbolic_reg olg__opset24[] = {
    /* ---- activations (symbolics/activation.c): Swish-24 ---- */
    {"", "Swish", olg__sym_onnx_swish, OLG_LOWERING_NATIVE},
    {NULL, NULL, NULL, 0}};
