/* onnxlegal — what the exporter registers or changes at opset 11 (see opsets/opsets.h). */
#include "opsets.h"
#include "../symbolics/symbolics.h"

const olg_symbolic_reg olg__opset11[] = {
    /* ---- interpolation (symbolics/interpolate.c): Resize-11 has PyTorch's coordinates ---- */
    {"aten", "upsample_bicubic2d", olg__sym_upsample_bicubic2d_opset11, OLG_LOWERING_NATIVE},
    {"aten", "upsample_bilinear2d", olg__sym_upsample_bilinear2d_opset11, OLG_LOWERING_NATIVE},
    {"aten", "upsample_linear1d", olg__sym_upsample_linear1d_opset11, OLG_LOWERING_NATIVE},
    {"aten", "upsample_nearest1d", olg__sym_upsample_nearest1d_opset11, OLG_LOWERING_NATIVE},
    {"aten", "upsample_nearest2d", olg__sym_upsample_nearest2d_opset11, OLG_LOWERING_NATIVE},
    {"aten", "upsample_nearest3d", olg__sym_upsample_nearest3d_opset11, OLG_LOWERING_NATIVE},
    {"aten", "upsample_trilinear3d", olg__sym_upsample_trilinear3d_opset11, OLG_LOWERING_NATIVE},

    /* ---- convolution and pooling (symbolics/conv.c): DepthToSpace-11 has mode CRD ---- */
    {"aten", "pixel_shuffle", olg__sym_pixel_shuffle_opset11, OLG_LOWERING_NATIVE},

    /* ---- elementwise math (symbolics/elementwise.c): Round-11 ---- */
    {"aten", "round", olg__sym_round_opset11, OLG_LOWERING_NATIVE},

    /* ---- shape basics (symbolics/shape.c): Gather-11 takes negative indices ---- */
    {"aten", "select", olg__sym_select_opset11, OLG_LOWERING_NATIVE},

    /* ---- rearranging (symbolics/arrange.c): Pad-11 pads input, Range-11 ---- */
    {"aten", "constant_pad_nd", olg__sym_constant_pad_nd_opset11, OLG_LOWERING_NATIVE},
    {"aten", "pad", olg__sym_pad_opset11, OLG_LOWERING_NATIVE},
    {"aten", "tril", olg__sym_tril_opset11, OLG_LOWERING_DECOMPOSED},
    {"", "Trilu", olg__sym_onnx_trilu_opset11, OLG_LOWERING_DECOMPOSED | OLG_UNTIL(14)},
    {"aten", "triu", olg__sym_triu_opset11, OLG_LOWERING_DECOMPOSED},

    /* ---- tensor creation (symbolics/creation.c): Range-11 ---- */
    {"aten", "arange", olg__sym_arange_opset11, OLG_LOWERING_NATIVE},

    /* ---- linear algebra (symbolics/linalg.c): Gemm-11's C is optional ---- */
    {"aten", "linear", olg__sym_linear_opset11, OLG_LOWERING_NATIVE},

    /* ---- sampling (symbolics/sample.c): Range-11 for a batch size known at run time ---- */
    {"aten", "grid_sampler", olg__sym_grid_sampler_opset11, OLG_LOWERING_DECOMPOSED},
    {"aten", "grid_sampler_2d", olg__sym_grid_sampler_opset11, OLG_LOWERING_DECOMPOSED},
    {"aten", "grid_sampler_3d", olg__sym_grid_sampler_opset11, OLG_LOWERING_DECOMPOSED},
    {"", "GridSample", olg__sym_onnx_grid_sample_decomposed_opset11, OLG_LOWERING_DECOMPOSED},

    /* ---- reductions (symbolics/reduce.c): CumSum-11 ---- */
    {"aten", "cumsum", olg__sym_cumsum_opset11, OLG_LOWERING_NATIVE},

    /* ---- shape and indexing (symbolics/index.c): GatherElements-11, ScatterND-11 ---- */
    {"aten", "gather", olg__sym_gather_opset11, OLG_LOWERING_NATIVE},
    {"aten", "index", olg__sym_index_opset11, OLG_LOWERING_NATIVE},
    {"aten", "index_put", olg__sym_index_put_opset11, OLG_LOWERING_NATIVE},
    {"aten", "scatter", olg__sym_scatter_opset11, OLG_LOWERING_NATIVE},
    {"aten", "scatter_add", olg__sym_scatter_add_opset11, OLG_LOWERING_DECOMPOSED},

    /* ---- ONNX domain (symbolics/onnx.c): ScatterElements-11 ---- */
    {"", "Scatter", olg__sym_onnx_scatter_opset11, OLG_LOWERING_NATIVE},
    {"", "ScatterElements", olg__sym_onnx_scatter_opset11, OLG_LOWERING_NATIVE},
    {"", "ScatterND", olg__sym_onnx_scatter_opset11, OLG_LOWERING_NATIVE},

    {NULL, NULL, NULL, 0}};
