/* onnxlegal — what the exporter registers or changes at opset 11 (see opsets/opsets.h). */
#include "opsets.h"
#include "../symbolics/symbolics.h"

const olg_symbolic_reg olg__opset11[] = {
    /* ---- interpolation (symbolics/interpolate.c): Resize-11 has PyTorch's coordinates ---- */
    {"aten", "upsample_bicubic2d", olg__sym_upsample_bicubic2d, OLG_LOWERING_NATIVE},
    {"aten", "upsample_bilinear2d", olg__sym_upsample_bilinear2d, OLG_LOWERING_NATIVE},
    {"aten", "upsample_linear1d", olg__sym_upsample_linear1d, OLG_LOWERING_NATIVE},
    {"aten", "upsample_trilinear3d", olg__sym_upsample_trilinear3d, OLG_LOWERING_NATIVE},

    /* ---- convolution and pooling (symbolics/conv.c): DepthToSpace-11 has mode CRD ---- */
    {"aten", "pixel_shuffle", olg__sym_pixel_shuffle, OLG_LOWERING_NATIVE},

    /* ---- elementwise math (symbolics/elementwise.c): Round-11 ---- */
    {"aten", "round", olg__sym_round, OLG_LOWERING_NATIVE},

    /* ---- shape basics (symbolics/shape.c): Gather-11 takes negative indices ---- */
    {"aten", "select", olg__sym_select_opset11, OLG_LOWERING_NATIVE},

    /* ---- rearranging (symbolics/arrange.c): Pad-11 pads input, Range-11 ---- */

    /* ---- tensor creation (symbolics/creation.c): Range-11 ---- */

    /* ---- linear algebra (symbolics/linalg.c): Gemm-11's C is optional; Det-11 ---- */
    {"aten", "det", olg__sym_det, OLG_LOWERING_NATIVE},
    {"aten", "linalg_det", olg__sym_det, OLG_LOWERING_NATIVE},

    /* ---- reductions (symbolics/reduce.c): CumSum-11 ---- */
    {"aten", "cumsum", olg__sym_cumsum, OLG_LOWERING_NATIVE},

    /* ---- shape and indexing (symbolics/index.c): GatherElements-11, ScatterND-11 ---- */
    {"aten", "gather", olg__sym_gather, OLG_LOWERING_NATIVE},
    {"aten", "index_put", olg__sym_index_put, OLG_LOWERING_NATIVE},

    /* ---- ONNX domain (symbolics/onnx.c): ScatterElements-11 ---- */
    {"", "ScatterND", olg__sym_onnx_scatter, OLG_LOWERING_NATIVE},

    {NULL, NULL, NULL, 0}};
