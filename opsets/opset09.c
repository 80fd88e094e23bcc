/* onnxlegal — what the exporter registers or changes at opset 9 (see opsets/opsets.h). */
#include "opsets.h"
#include "../symbolics/symbolics.h"

const olg_symbolic_reg olg__opset09[] = {
    /* ---- ONNX domain: IsNaN-9; ThresholdedRelu by Where-9 ---- */

    /* ---- shape basics (symbolics/shape.c): Compress-9 squeezes a dim of unknown size ---- */

    /* ---- rearranging (symbolics/arrange.c): a static mask with Where-9 ---- */

    /* ---- ONNX domain ---- */
    {"", "NonMaxSuppression", olg__sym_onnx_nms, OLG_LOWERING_DECOMPOSED | OLG_UNTIL(10)}, /* Loops (nms.c) */
    {"", "Scatter", olg__sym_onnx_scatter, OLG_LOWERING_NATIVE},        /* Scatter-9 */
    {"", "ScatterElements", olg__sym_onnx_scatter, OLG_LOWERING_NATIVE}, /* as Scatter below 11 */
    {"", "ScatterND", olg__sym_onnx_scatter, OLG_LOWERING_DECOMPOSED}, /* a row scatter (index.c) */
    {"", "Unique", olg__sym_onnx_unique, OLG_LOWERING_DECOMPOSED | OLG_UNTIL(11)}, /* unique.c */

    /* ---- activations (symbolics/activation.c): Where-9 ---- */

    /* ---- elementwise math (symbolics/elementwise.c): Sinh/Cosh/Asinh/Acosh/Atanh/Erf/IsNaN/
     * Sign/Where-9 ---- */
    {"aten", "acosh", olg__sym_acosh, OLG_LOWERING_NATIVE},
    {"aten", "asinh", olg__sym_asinh, OLG_LOWERING_NATIVE},
    {"aten", "atanh", olg__sym_atanh, OLG_LOWERING_NATIVE},
    {"aten", "cosh", olg__sym_cosh, OLG_LOWERING_NATIVE},
    {"aten", "erf", olg__sym_erf, OLG_LOWERING_NATIVE},
    {"aten", "isnan", olg__sym_isnan, OLG_LOWERING_NATIVE},
    {"aten", "masked_fill", olg__sym_masked_fill, OLG_LOWERING_NATIVE},
    {"aten", "sign", olg__sym_sign, OLG_LOWERING_NATIVE},
    {"aten", "sinh", olg__sym_sinh, OLG_LOWERING_NATIVE},
    {"aten", "where", olg__sym_where, OLG_LOWERING_NATIVE},

    /* ---- shape and indexing (symbolics/index.c): NonZero-9, OneHot-9, Scatter-9 ---- */
    {"aten", "nonzero", olg__sym_nonzero, OLG_LOWERING_NATIVE},
    {"aten", "one_hot", olg__sym_one_hot, OLG_LOWERING_NATIVE},
    {"aten", "scatter", olg__sym_scatter, OLG_LOWERING_NATIVE},

    /* ---- torchvision (symbolics/detection.c): nms as NonMaxSuppression-10's conversion ---- */
    {"torchvision", "nms", olg__sym_tv_nms_loops, OLG_LOWERING_DECOMPOSED}, /* opset10.c: native from 10 */

    {NULL, NULL, NULL, 0}};
