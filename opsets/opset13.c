/* onnxlegal — what the exporter registers or changes at opset 13 (see opsets/opsets.h). */
#include "opsets.h"
#include "../symbolics/symbolics.h"

const olg_symbolic_reg olg__opset13[] = {
    /* ---- ONNX domain (symbolics/onnx.c): axes and split sizes as inputs, Softmax along one axis ---- */
    {"", "ReduceSum", olg__sym_onnx_reduce_axes_input, OLG_LOWERING_NATIVE},
    {"", "Squeeze", olg__sym_onnx_squeeze_opset13, OLG_LOWERING_NATIVE},
    {"", "Unsqueeze", olg__sym_onnx_squeeze_opset13, OLG_LOWERING_NATIVE},
    {"", "Split", olg__sym_onnx_split_opset13, OLG_LOWERING_NATIVE},
    {"", "Softmax", olg__sym_onnx_softmax_opset13, OLG_LOWERING_NATIVE},
    {"", "LogSoftmax", olg__sym_onnx_softmax_opset13, OLG_LOWERING_NATIVE},
    {"", "Hardmax", olg__sym_onnx_softmax_opset13, OLG_LOWERING_NATIVE},

    {NULL, NULL, NULL, 0}};
