/* onnxlegal — what the exporter registers or changes at opset 9 (see opsets/opsets.h). */
#include "opsets.h"
#include "../symbolics/symbolics.h"

const olg_symbolic_reg olg__opset09[] = {
    /* ---- ONNX domain ---- */
    {"", "Scatter", olg__sym_onnx_scatter, OLG_LOWERING_NATIVE},        /* Scatter-9 */
    {"", "ScatterElements", olg__sym_onnx_scatter, OLG_LOWERING_NATIVE}, /* as Scatter below 11 */

    {NULL, NULL, NULL, 0}};
