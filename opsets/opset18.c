/* onnxlegal — what the exporter registers or changes at opset 18 (see opsets/opsets.h). */
#include "opsets.h"
#include "../symbolics/symbolics.h"

const olg_symbolic_reg olg__opset18[] = {
    {NULL, NULL, NULL, 0}};
