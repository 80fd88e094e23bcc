/* onnxlegal — what the exporter registers or changes at opset 17 (see opsets/opsets.h). */
#include "opsets.h"
#include "../symbolics/symbolics.h"

const olg_symbolic_reg olg__opset17[] = {
    /* ---- normalization (symbolics/norm.c): LayerNormalization-17 ---- */
    {"aten", "layer_norm", olg__sym_layer_norm, OLG_LOWERING_NATIVE},
    {"aten", "native_layer_norm", olg__sym_native_layer_norm, OLG_LOWERING_NATIVE},

    /* ---- torch.fft through the DFT op (symbolics/signal.c; irfft stays MatMuls) ---- */
    {"aten", "fft_fft", olg__sym_fft_fft, OLG_LOWERING_NATIVE},
    {"aten", "fft_fft2", olg__sym_fft_fft2, OLG_LOWERING_NATIVE},
    {"aten", "fft_fftn", olg__sym_fft_fftn, OLG_LOWERING_NATIVE},
    {"aten", "fft_ifft", olg__sym_fft_ifft, OLG_LOWERING_NATIVE},
    {"aten", "fft_ifft2", olg__sym_fft_ifft2, OLG_LOWERING_NATIVE},
    {"aten", "fft_ifftn", olg__sym_fft_ifftn, OLG_LOWERING_NATIVE},
    {"aten", "fft_rfft", olg__sym_fft_rfft, OLG_LOWERING_NATIVE},
    {"aten", "fft_rfft2", olg__sym_fft_rfft2, OLG_LOWERING_NATIVE},
    {"aten", "fft_rfftn", olg__sym_fft_rfftn, OLG_LOWERING_NATIVE},

    /* ---- ONNX domain ---- */
    {"", "DFT", olg__sym_onnx_dft, OLG_LOWERING_NATIVE}, /* axis: attribute; an input from 20 */

    {NULL, NULL, NULL, 0}};
