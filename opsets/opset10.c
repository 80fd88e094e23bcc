/* onnxlegal — what the exporter registers or changes at opset 10 (see opsets/opsets.h). */
#include "opsets.h"
#include "../symbolics/symbolics.h"

const olg_symbolic_reg olg__opset10[] = {
    /* ---- ONNX domain: QuantizeLinear-10, DequantizeLinear-10, passed through where the version
       has what the node uses (per-axis from 13, blocked from 21), else computed (quant.c) ---- */
    {"", "DequantizeLinear", olg__sym_onnx_dequantize_linear, OLG_LOWERING_NATIVE},
    {"", "QuantizeLinear", olg__sym_onnx_quantize_linear, OLG_LOWERING_NATIVE},

    /* ---- elementwise math (symbolics/elementwise.c): Mod-10, IsInf-10 ---- */
    {"aten", "fmod", olg__sym_fmod, OLG_LOWERING_NATIVE},
    {"aten", "isinf", olg__sym_isinf, OLG_LOWERING_NATIVE},
    {"aten", "remainder", olg__sym_remainder, OLG_LOWERING_NATIVE},

    /* ---- rearranging (symbolics/arrange.c): Slice-10 steps and run-time bounds, Mod-10 ---- */
    {"aten", "flip", olg__sym_flip, OLG_LOWERING_NATIVE},

    /* ---- torchvision (symbolics/detection.c): NonMaxSuppression-10, RoiAlign-10 ---- */
    {"torchvision", "nms", olg__sym_tv_nms, OLG_LOWERING_NATIVE},
    {"torchvision", "roi_align", olg__sym_tv_roi_align, OLG_LOWERING_NATIVE},

    /* ---- ONNX domain: AveragePool's dilations (19) decomposed; MaxPool of 8-bit integers (12)
       in float, which holds them (onnx.c) ---- */
    {"", "AveragePool", olg__sym_onnx_window_pool, OLG_LOWERING_NATIVE | OLG_UNTIL(19)},
    {"", "MaxPool", olg__sym_onnx_cast_around, OLG_LOWERING_NATIVE | OLG_UNTIL(12)},

    {NULL, NULL, NULL, 0}};
