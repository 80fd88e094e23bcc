/* onnxlegal — emit helpers of Gelu, Swish and Mish (see emit_act.h). Whether the target has the
 * native op is asked of its schema (the version at the target opset and the dtypes it takes). */
#include <math.h>

#include "emit_act.h"
#include "emit_math.h"

static olg_status native_or_decompose(olg_lower *cx, const char *op, olg_value x,
                                      const char *decomposed, bool *native) {
  olg_dtype t = olg__dtype(cx, x);
  *native = olg__op_takes(cx, op, 0, t);
  if (*native || !decomposed) return OLG_OK;
  return olg_lower_decompose(cx, decomposed, olg__lowest_opset_taking(op, 0, t));
}

static olg_status scale(olg_lower *cx, olg_value x, double k, olg_value *out) {
  olg_value kv;
  if (k == 1.0) return (*out = x, OLG_OK);
  OLG_TRY(olg__const_like(cx, x, k, &kv));
  return olg__emit_math2(cx, "Mul", x, kv, out);
}

static olg_status one_node(olg_lower *cx, const char *op, olg_value x, const char *sattr,
                           const char *sval, const char *fattr, double fval, olg_value *out) {
  olg_node_id nd;
  OLG_TRY(olg_lower_emit_begin(cx, "", op, &nd));
  OLG_TRY(olg_lower_emit_input(cx, nd, x));
  if (sattr) OLG_TRY(olg_lower_emit_attr_string(cx, nd, sattr, sval));
  if (fattr) OLG_TRY(olg_lower_emit_attr_float(cx, nd, fattr, fval));
  return olg_lower_emit_end(cx, nd, 1, out);
}

olg_status olg__emit_gelu(olg_lower *cx, olg_value x, bool tanh_mode, const char *decomposed,
                          olg_value *out) {
  bool native;
  OLG_TRY(native_or_decompose(cx, "Gelu", x, decomposed, &native));
  if (native) return one_node(cx, "Gelu", x, tanh_mode ? "approximate" : NULL, "tanh", NULL, 0, out);
  olg_value inner, half, one;
  if (tanh_mode) {
    olg_value x3;
    OLG_TRY(olg__emit_math2(cx, "Mul", x, x, &x3));
    OLG_TRY(olg__emit_math2(cx, "Mul", x3, x, &x3));
    OLG_TRY(scale(cx, x3, 0.044715, &x3));
    OLG_TRY(olg__emit_math2(cx, "Add", x, x3, &inner));
    OLG_TRY(scale(cx, inner, M_SQRT2 * M_2_SQRTPI * 0.5, &inner));
    OLG_TRY(olg__emit_math1(cx, "Tanh", inner, &inner));
  } else {
    if (!olg__op_takes(cx, "Erf", 0, olg__dtype(cx, x)))
      return olg_lower_unsupported(cx, "gelu with approximate='none' (it needs Erf)",
                                   olg__lowest_opset_taking("Erf", 0, olg__dtype(cx, x)));
    OLG_TRY(scale(cx, x, M_SQRT1_2, &inner));
    OLG_TRY(olg__emit_math1(cx, "Erf", inner, &inner));
  }
  OLG_TRY(olg__const_like(cx, inner, 1, &one));
  OLG_TRY(olg__emit_math2(cx, "Add", inner, one, &inner));
  OLG_TRY(scale(cx, x, 0.5, &half));
  return olg__emit_math2(cx, "Mul", half, inner, out);
}

olg_status olg__emit_swish(olg_lower *cx, olg_value x, double alpha, const char *decomposed,
                           bool native_ok, olg_value *out) {
  bool native = false;
  if (native_ok) OLG_TRY(native_or_decompose(cx, "Swish", x, decomposed, &native));
  if (native) return one_node(cx, "Swish", x, NULL, NULL, alpha != 1.0 ? "alpha" : NULL, alpha, out);
  olg_value ax, s;
  OLG_TRY(scale(cx, x, alpha, &ax));
  OLG_TRY(olg__emit_math1(cx, "Sigmoid", ax, &s));
  return olg__emit_math2(cx, "Mul", x, s, out);
}

olg_status olg__emit_mish(olg_lower *cx, olg_value x, const char *decomposed, olg_value *out) {
  bool native;
  OLG_TRY(native_or_decompose(cx, "Mish", x, decomposed, &native));
  if (native) return olg__emit_math1(cx, "Mish", x, out);
  olg_value y;
  OLG_TRY(olg__emit_math1(cx, "Softplus", x, &y));
  OLG_TRY(olg__emit_math1(cx, "Tanh", y, &y));
  return olg__emit_math2(cx, "Mul", x, y, out);
}
