/* onnxlegal — emit helpers of the activations that ONNX gained late (Mish-18, Gelu-20, Swish-24):
 * one emitter per meaning, shared by the aten op and the ONNX op (symbolics/activation.c;
 * internal). Defined in symbolics/emit_act.c. */
#ifndef OLG_SYMBOLICS_EMIT_ACT_H
#define OLG_SYMBOLICS_EMIT_ACT_H
#include <stdbool.h>

#include "emit.h"

/* Each emits the native op where the target's version takes x's dtype, else the formula
 * PyTorch computes. `decomposed` (NULL where the caller always accepts the formula, as aten ops
 * do) names the decomposition for olg_lower_decompose, which refuses it when decompositions are
 * off. */

/* Gelu; else none: x * 0.5 * (1 + erf(x / sqrt 2)) (Erf from 9), tanh: 0.5 * x * (1 + tanh(sqrt(2/pi)
 * * (x + 0.044715 * x^3))). */
olg_status olg__emit_gelu(olg_lower *cx, olg_value x, bool tanh_mode, const char *decomposed,
                          olg_value *out);
/* Swish (native_ok: where the target has it); else x * sigmoid(alpha * x). */
olg_status olg__emit_swish(olg_lower *cx, olg_value x, double alpha, const char *decomposed,
                           bool native_ok, olg_value *out);
/* Mish; else x * tanh(softplus(x)). */
olg_status olg__emit_mish(olg_lower *cx, olg_value x, const char *decomposed, olg_value *out);

#endif
