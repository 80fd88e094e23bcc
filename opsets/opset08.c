/* onnxlegal — what the exporter registers or changes at opset 8 (see opsets/opsets.h). */
#include "opsets.h"
#include "../symbolics/symbolics.h"

const olg_symbolic_reg olg__opset08[] = {
    {NULL, NULL, NULL, 0}};
