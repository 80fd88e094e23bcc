/* onnxlegal — what the exporter registers or changes at opset 16 (see opsets/opsets.h). */
#include "opsets.h"
#include "../symbolics/symbolics.h"

const olg_symbolic_reg olg__opset16[] = {
    /* ---- sampling (symbolics/sample.c): GridSample-16 (4-D) ---- */
    /* RoiAlign-16's coordinate_transformation_mode: roi_align's aligned=True (detection.c) */
    {"aten", "grid_sampler", olg__sym_grid_sampler, OLG_LOWERING_NATIVE},
    {"aten", "grid_sampler_2d", olg__sym_grid_sampler, OLG_LOWERING_NATIVE},

    /* ---- ONNX domain (symbolics/sample.c) ---- */
    {"", "GridSample", olg__sym_onnx_grid_sample, OLG_LOWERING_NATIVE}, /* 5-D decomposed */

    /* ---- shape and indexing (symbolics/index.c): ScatterElements-16 reduction ---- */
    {"aten", "scatter_add", olg__sym_scatter_add, OLG_LOWERING_NATIVE},

    /* ---- ONNX domain (symbolics/onnx.c): ScatterElements reduction add/mul ---- */

    {NULL, NULL, NULL, 0}};
