/* onnxlegal — what the exporter registers or changes at opset 18 (see opsets/opsets.h). */
#include "opsets.h"
#include "../symbolics/symbolics.h"

const olg_symbolic_reg olg__opset18[] = {
    /* ---- convolution and pooling (symbolics/conv.c): Col2Im-18 ---- */
    {"", "Col2Im", olg__sym_onnx_col2im, OLG_LOWERING_NATIVE},
    {"aten", "col2im", olg__sym_col2im, OLG_LOWERING_NATIVE},

    /* ---- activations (symbolics/activation.c): Mish-18 ---- */
    {"", "Mish", olg__sym_onnx_mish, OLG_LOWERING_NATIVE},
    {"aten", "mish", olg__sym_mish, OLG_LOWERING_NATIVE},

    /* ---- elementwise logic (symbolics/elementwise.c): BitwiseNot-18 ---- */
    {"", "BitwiseAnd", olg__sym_onnx_bitwise_and, OLG_LOWERING_NATIVE},
    {"", "BitwiseNot", olg__sym_onnx_bitwise_not, OLG_LOWERING_NATIVE},
    {"", "BitwiseOr", olg__sym_onnx_bitwise_or, OLG_LOWERING_NATIVE},
    {"", "BitwiseXor", olg__sym_onnx_bitwise_xor, OLG_LOWERING_NATIVE},

    /* ---- ONNX domain (symbolics/onnx.c): axes as inputs ---- */
    {"", "ReduceL1", olg__sym_onnx_reduce_axes_input, OLG_LOWERING_NATIVE},
    {"", "ReduceL2", olg__sym_onnx_reduce_axes_input, OLG_LOWERING_NATIVE},
    {"", "ReduceLogSum", olg__sym_onnx_reduce_axes_input, OLG_LOWERING_NATIVE},
    {"", "ReduceLogSumExp", olg__sym_onnx_reduce_axes_input, OLG_LOWERING_NATIVE},
    {"", "ReduceMax", olg__sym_onnx_reduce_axes_input, OLG_LOWERING_NATIVE},
    {"", "ReduceMean", olg__sym_onnx_reduce_axes_input, OLG_LOWERING_NATIVE},
    {"", "ReduceMin", olg__sym_onnx_reduce_axes_input, OLG_LOWERING_NATIVE},
    {"", "ReduceProd", olg__sym_onnx_reduce_axes_input, OLG_LOWERING_NATIVE},
    {"", "ReduceSumSquare", olg__sym_onnx_reduce_axes_input, OLG_LOWERING_NATIVE},

    /* ---- scatters (symbolics/scatter.c): ScatterElements' reductions max and min ---- */
    {"aten", "scatter_reduce", olg__sym_scatter_reduce, OLG_LOWERING_NATIVE},

    {NULL, NULL, NULL, 0}};
