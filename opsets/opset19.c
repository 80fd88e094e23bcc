/* onnxlegal — what the exporter registers or changes at opset 19 (see opsets/opsets.h). */
#include "opsets.h"
#include "../symbolics/symbolics.h"

const olg_symbolic_reg olg__opset19[] = {
    /* ---- rearranging (symbolics/arrange.c): Pad-19 mode 'wrap' (circular) ---- */

    {NULL, NULL, NULL, 0}};
