/* onnxlegal — what the exporter registers or changes at opset 8 (see opsets/opsets.h). */
#include "opsets.h"
#include "../symbolics/symbolics.h"

const olg_symbolic_reg olg__opset08[] = {
    /* ---- pooling (symbolics/pool.c): MaxPool-8 has the indices output ---- */
    {"aten", "adaptive_max_pool1d", olg__sym_adaptive_max_pool_opset8, OLG_LOWERING_NATIVE},
    {"aten", "adaptive_max_pool2d", olg__sym_adaptive_max_pool_opset8, OLG_LOWERING_NATIVE},
    {"aten", "adaptive_max_pool3d", olg__sym_adaptive_max_pool_opset8, OLG_LOWERING_NATIVE},
    {"aten", "max_pool1d", olg__sym_max_pool_opset8, OLG_LOWERING_NATIVE},
    {"aten", "max_pool1d_with_indices", olg__sym_max_pool_opset8, OLG_LOWERING_NATIVE},
    {"aten", "max_pool2d", olg__sym_max_pool_opset8, OLG_LOWERING_NATIVE},
    {"aten", "max_pool2d_with_indices", olg__sym_max_pool_opset8, OLG_LOWERING_NATIVE},
    {"aten", "max_pool3d", olg__sym_max_pool_opset8, OLG_LOWERING_NATIVE},
    {"aten", "max_pool3d_with_indices", olg__sym_max_pool_opset8, OLG_LOWERING_NATIVE},

    /* ---- ONNX domain: Scan-8 (batch axis first); re-encoded at 9 (symbolics/onnx.c) ---- */
    {"", "Scan", olg__sym_onnx_passthrough, OLG_LOWERING_NATIVE},

    {NULL, NULL, NULL, 0}};
