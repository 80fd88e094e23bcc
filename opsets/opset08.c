/* onnxlegal — what the exporter registers or changes at opset 8 (see opsets/opsets.h). */
#include "opsets.h"
#include "../symbolics/symbolics.h"

const olg_symbolic_reg olg__opset08[] = {
    /* ---- ONNX domain: Scan-8 (batch axis first); re-encoded at 9 (symbolics/onnx.c) ---- */
    {"", "Scan", olg__sym_onnx_passthrough, OLG_LOWERING_NATIVE},

    {NULL, NULL, NULL, 0}};
