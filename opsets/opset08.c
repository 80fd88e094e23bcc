/* onnxlegal — what the exporter registers or changes at opset 8 (see opsets/opsets.h). */
#include "opsets.h"
#include "../symbolics/symbolics.h"

const olg_symbolic_reg olg__opset08[] = {
    /* ---- ONNX domain: Scan-8 (batch axis first), re-encoded where the target's Scan has
     * none (symbolics/onnx.c) ---- */
    {"", "Scan", olg__sym_onnx_scan, OLG_LOWERING_NATIVE},

    {NULL, NULL, NULL, 0}};
