/* onnxlegal — the list of per-opset registration tables (opsets/opsets.h). Adding an opset is
 * adding opsets/opsetNN.c, its OLG_OPSET_TABLE line in opsets.h and its line here. */
#include "opsets.h"

const olg_opset_table olg__opset_tables[] = {
    {7, olg__opset07},
    {8, olg__opset08},
    {9, olg__opset09},
    {10, olg__opset10},
    {11, olg__opset11},
    {12, olg__opset12},
    {13, olg__opset13},
    {14, olg__opset14},
    {15, olg__opset15},
    {16, olg__opset16},
    {17, olg__opset17},
    {18, olg__opset18},
    {19, olg__opset19},
    {20, olg__opset20},
    {21, olg__opset21},
    {22, olg__opset22},
    {23, olg__opset23},
    {24, olg__opset24},
    {25, olg__opset25},
    {26, olg__opset26},
    {27, olg__opset27},
    {0, NULL}};
