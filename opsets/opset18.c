/* onnxlegal — what the exporter registers or changes at opset 18 (see opsets/opsets.h). */
#include "opsets.h"
#include "../symbolics/symbolics.h"

const olg_symbolic_reg olg__opset18[] = {
    /* ---- convolution and pooling (symbolics/conv.c): Col2Im-18 ---- */
    {"aten", "col2im", olg__sym_col2im_opset18, OLG_LOWERING_NATIVE},

    /* ---- activations (symbolics/activation.c): Mish-18 ---- */
    {"aten", "mish", olg__sym_mish_opset18, OLG_LOWERING_NATIVE},

    /* ---- elementwise logic (symbolics/elementwise.c): BitwiseNot-18 ---- */
    {"aten", "bitwise_not", olg__sym_bitwise_not_opset18, OLG_LOWERING_NATIVE},

    {NULL, NULL, NULL, 0}};
