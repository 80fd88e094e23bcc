/* onnxlegal — what the exporter registers or changes at opset 15 (see opsets/opsets.h). */
#include "opsets.h"
#include "../symbolics/symbolics.h"

const olg_symbolic_reg olg__opset15[] = {
    {NULL, NULL, NULL, 0}};
