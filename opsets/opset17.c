/* onnxlegal — what the exporter registers or changes at opset 17 (see opsets/opsets.h). */
#include "opsets.h"
#include "../symbolics/symbolics.h"

const olg_symbolic_reg olg__opset17[] = {
    /* ---- normalization (symbolics/norm.c): LayerNormalization-17 ---- */
    {"aten", "layer_norm", olg__sym_layer_norm, OLG_LOWERING_NATIVE},
    {"aten", "native_layer_norm", olg__sym_native_layer_norm, OLG_LOWERING_NATIVE},

    /* ---- ONNX domain ---- */
    {"", "DFT", olg__sym_onnx_dft, OLG_LOWERING_NATIVE}, /* axis: attribute; an input from 20 */

    {NULL, NULL, NULL, 0}};
