/* onnxlegal — what the exporter registers or changes at opset 23 (see opsets/opsets.h). */
#include "opsets.h"
#include "../symbolics/symbolics.h"

const olg_symbolic_reg olg__opset23[] = {
    /* ---- normalization (symbolics/norm.c): RMSNormalization-23 ---- */
    {"", "RMSNormalization", olg__sym_onnx_rms_norm, OLG_LOWERING_NATIVE},
    {"aten", "rms_norm", olg__sym_rms_norm, OLG_LOWERING_NATIVE},

    /* ---- attention (symbolics/attention.c): Attention-23 ---- */
    {"aten", "scaled_dot_product_attention", olg__sym_scaled_dot_product_attention,
     OLG_LOWERING_NATIVE},

    /* ---- attention, ONNX domain: Attention-23 (24's at 23; decomposed below); RotaryEmbedding
       passed through from 23 (its row at 7 ends there) ---- */
    {"", "Attention", olg__sym_onnx_attention, OLG_LOWERING_NATIVE},

    {NULL, NULL, NULL, 0}};
