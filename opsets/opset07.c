/* onnxlegal — what the exporter registers or changes at opset 7 (see opsets/opsets.h). */
#include "opsets.h"
#include "../symbolics/symbolics.h"

const olg_symbolic_reg olg__opset07[] = {
    /* ---- shape and indexing basics (symbolics/shape.c) ---- */
    {"aten", "_reshape_alias", olg__sym_view, OLG_LOWERING_NATIVE},
    {"aten", "alias", olg__sym_identity, OLG_LOWERING_NATIVE},
    {"aten", "cat", olg__sym_cat, OLG_LOWERING_NATIVE},
    {"aten", "clone", olg__sym_identity, OLG_LOWERING_NATIVE},
    {"aten", "contiguous", olg__sym_identity, OLG_LOWERING_NATIVE},
    {"aten", "detach", olg__sym_identity, OLG_LOWERING_NATIVE},
    {"aten", "expand", olg__sym_expand, OLG_LOWERING_NATIVE},
    {"aten", "expand_as", olg__sym_expand_as, OLG_LOWERING_NATIVE},
    {"aten", "flatten", olg__sym_flatten, OLG_LOWERING_NATIVE},
    {"aten", "narrow", olg__sym_narrow, OLG_LOWERING_NATIVE},
    {"aten", "numel", olg__sym_numel, OLG_LOWERING_NATIVE},
    {"aten", "permute", olg__sym_permute, OLG_LOWERING_NATIVE},
    {"aten", "reshape", olg__sym_view, OLG_LOWERING_NATIVE},
    {"aten", "select", olg__sym_select, OLG_LOWERING_NATIVE},
    {"aten", "size", olg__sym_size, OLG_LOWERING_NATIVE},
    {"aten", "slice", olg__sym_slice, OLG_LOWERING_NATIVE},
    {"aten", "squeeze", olg__sym_squeeze, OLG_LOWERING_NATIVE},
    {"aten", "stack", olg__sym_stack, OLG_LOWERING_NATIVE},
    {"aten", "to", olg__sym_to, OLG_LOWERING_NATIVE},
    {"aten", "transpose", olg__sym_transpose, OLG_LOWERING_NATIVE},
    {"aten", "type_as", olg__sym_type_as, OLG_LOWERING_NATIVE},
    {"aten", "unsqueeze", olg__sym_unsqueeze, OLG_LOWERING_NATIVE},
    {"aten", "view", olg__sym_view, OLG_LOWERING_NATIVE},

    /* ---- ONNX domain: re-encoding where the encoding changed (symbolics/onnx.c); every
       other ONNX op is passed through where it exists (olg__sym_onnx_passthrough) ---- */
    {"", "BatchNormalization", olg__sym_onnx_batchnorm, OLG_LOWERING_NATIVE},
    {"", "Clip", olg__sym_onnx_clip, OLG_LOWERING_NATIVE},
    {"", "Constant", olg__sym_onnx_constant, OLG_LOWERING_NATIVE},
    {"", "Dropout", olg__sym_onnx_dropout, OLG_LOWERING_NATIVE},
    {"", "Hardmax", olg__sym_onnx_softmax, OLG_LOWERING_NATIVE},
    {"", "LogSoftmax", olg__sym_onnx_softmax, OLG_LOWERING_NATIVE},
    {"", "Pad", olg__sym_onnx_pad, OLG_LOWERING_NATIVE},
    {"", "ReduceL1", olg__sym_onnx_reduce, OLG_LOWERING_NATIVE},
    {"", "ReduceL2", olg__sym_onnx_reduce, OLG_LOWERING_NATIVE},
    {"", "ReduceLogSum", olg__sym_onnx_reduce, OLG_LOWERING_NATIVE},
    {"", "ReduceLogSumExp", olg__sym_onnx_reduce, OLG_LOWERING_NATIVE},
    {"", "ReduceMax", olg__sym_onnx_reduce, OLG_LOWERING_NATIVE},
    {"", "ReduceMean", olg__sym_onnx_reduce, OLG_LOWERING_NATIVE},
    {"", "ReduceMin", olg__sym_onnx_reduce, OLG_LOWERING_NATIVE},
    {"", "ReduceProd", olg__sym_onnx_reduce, OLG_LOWERING_NATIVE},
    {"", "ReduceSum", olg__sym_onnx_reduce, OLG_LOWERING_NATIVE},
    {"", "ReduceSumSquare", olg__sym_onnx_reduce, OLG_LOWERING_NATIVE},
    {"", "Resize", olg__sym_onnx_resize, OLG_LOWERING_NATIVE},
    {"", "Slice", olg__sym_onnx_slice, OLG_LOWERING_NATIVE},
    {"", "Softmax", olg__sym_onnx_softmax, OLG_LOWERING_NATIVE},
    {"", "Split", olg__sym_onnx_split, OLG_LOWERING_NATIVE},
    {"", "Squeeze", olg__sym_onnx_squeeze, OLG_LOWERING_NATIVE},
    {"", "TopK", olg__sym_onnx_topk, OLG_LOWERING_NATIVE},
    {"", "Unsqueeze", olg__sym_onnx_squeeze, OLG_LOWERING_NATIVE},
    {"", "Upsample", olg__sym_onnx_resize, OLG_LOWERING_NATIVE},

    /* ---- interpolation (symbolics/interpolate.c) ---- */
    {"aten", "upsample_bicubic2d", olg__sym_upsample_bicubic2d, OLG_LOWERING_DECOMPOSED},
    {"aten", "upsample_bilinear2d", olg__sym_upsample_bilinear2d, OLG_LOWERING_DECOMPOSED},
    {"aten", "upsample_linear1d", olg__sym_upsample_linear1d, OLG_LOWERING_DECOMPOSED},
    {"aten", "upsample_nearest1d", olg__sym_upsample_nearest1d, OLG_LOWERING_NATIVE},
    {"aten", "upsample_nearest2d", olg__sym_upsample_nearest2d, OLG_LOWERING_NATIVE},
    {"aten", "upsample_nearest3d", olg__sym_upsample_nearest3d, OLG_LOWERING_NATIVE},
    {"aten", "upsample_trilinear3d", olg__sym_upsample_trilinear3d, OLG_LOWERING_DECOMPOSED},

    {NULL, NULL, NULL, 0}};
