/* onnxlegal — what the exporter registers or changes at opset 21 (see opsets/opsets.h). */
#include "opsets.h"
#include "../symbolics/symbolics.h"

const olg_symbolic_reg olg__opset21[] = {
    /* ---- normalization (symbolics/norm.c): GroupNormalization-21 (18's is not PyTorch's) ---- */
    {"aten", "group_norm", olg__sym_group_norm, OLG_LOWERING_NATIVE},
    {"aten", "native_group_norm", olg__sym_native_group_norm, OLG_LOWERING_NATIVE},

    /* ---- ONNX domain (symbolics/norm.c): GroupNormalization-21; 18's per-group scale and bias
       repeated per channel (lib/meaning.c: never passed through) ---- */
    {"", "GroupNormalization", olg__sym_onnx_group_norm, OLG_LOWERING_NATIVE},

    {NULL, NULL, NULL, 0}};
