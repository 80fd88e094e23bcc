/* onnxlegal — what the exporter registers or changes at opset 16 (see opsets/opsets.h). */
#include "opsets.h"
#include "../symbolics/symbolics.h"

const olg_symbolic_reg olg__opset16[] = {
    {NULL, NULL, NULL, 0}};
