/* onnxlegal — what the exporter registers or changes at opset 20 (see opsets/opsets.h). */
#include "opsets.h"
#include "../symbolics/symbolics.h"

const olg_symbolic_reg olg__opset20[] = {
    /* ---- activations (symbolics/activation.c): Gelu-20 ---- */
    {"", "Gelu", olg__sym_onnx_gelu, OLG_LOWERING_NATIVE},
    {"aten", "gelu", olg__sym_gelu, OLG_LOWERING_NATIVE},

    /* ---- sampling (symbolics/sample.c): GridSample-20 (N-D), AffineGrid-20 ---- */
    {"aten", "affine_grid_generator", olg__sym_affine_grid_generator, OLG_LOWERING_NATIVE},
    {"aten", "grid_sampler_3d", olg__sym_grid_sampler, OLG_LOWERING_NATIVE},

    {NULL, NULL, NULL, 0}};
