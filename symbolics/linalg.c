/* onnxlegal — linear algebra: matmul, mm, bmm, addmm, baddbmm, linear, einsum, t. Arguments as
 * in PyTorch 1.13's schemas. MatMul takes integers from opset 9 (below: a double carrier for
 * 32-bit and narrower integers, int64 refused); Gemm serves float 2-D products with a bias. */
#include <string.h>

#include "arith.h"
#include "symbolics.h"

#define UNUSED_SRC (void)src; (void)ud

/* a @ b in their common dtype. */
static olg_status matmul(olg_lower *cx, olg_value a, olg_value b, olg_value *out) {
  olg_dtype t = olg__promote_types(olg__dtype(cx, a), olg__dtype(cx, b));
  OLG_TRY(olg__emit_cast(cx, a, t, &a));
  OLG_TRY(olg__emit_cast(cx, b, t, &b));
  return olg__emit_math2(cx, "MatMul", a, b, out);
}

/* aten::matmul(self, other), mm(self, mat2), bmm(self, mat2): numpy's matmul, as MatMul */
OLG_SYMBOLIC(olg__sym_matmul) {
  UNUSED_SRC;
  olg_value a, b, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &a));
  OLG_TRY(olg_lower_arg_value(cx, 1, &b));
  OLG_TRY(matmul(cx, a, b, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* x * k (argument i, a Scalar) in x's dtype; x itself when k is 1. */
static olg_status scaled(olg_lower *cx, olg_value x, double k, olg_value *out) {
  if (k == 1) return (*out = x, OLG_OK);
  olg_value kv;
  OLG_TRY(olg__const_like(cx, x, k, &kv));
  return olg__emit_math2(cx, "Mul", x, kv, out);
}

/* beta * self + alpha * (a @ b); self ignored when beta is 0 (PyTorch does not propagate its
 * NaN or inf then). A float 2-D product becomes one Gemm. */
static olg_status add_product(olg_lower *cx, bool batched) {
  olg_value s, a, b, y;
  double beta, alpha;
  OLG_TRY(olg_lower_arg_value(cx, 0, &s));
  OLG_TRY(olg_lower_arg_value(cx, 1, &a));
  OLG_TRY(olg_lower_arg_value(cx, 2, &b));
  OLG_TRY(olg__arg_float_or(cx, 3, 1, &beta));
  OLG_TRY(olg__arg_float_or(cx, 4, 1, &alpha));
  olg_dtype t = olg__promote_types(olg__dtype(cx, s), olg__promote_types(olg__dtype(cx, a), olg__dtype(cx, b)));
  OLG_TRY(olg__emit_cast(cx, s, t, &s));
  OLG_TRY(olg__emit_cast(cx, a, t, &a));
  OLG_TRY(olg__emit_cast(cx, b, t, &b));
  if (!batched && beta != 0 && olg__is_float(t) && olg__rank(cx, a) == 2 && olg__rank(cx, b) == 2 &&
      olg__rank(cx, s) <= 2 && olg__op_takes(cx, "Gemm", 0, t)) {
    olg_value in[3] = {a, b, s};
    olg_node_id nd;
    OLG_TRY(olg_lower_emit_begin(cx, "", "Gemm", &nd));
    for (int i = 0; i < 3; i++) OLG_TRY(olg_lower_emit_input(cx, nd, in[i]));
    if (alpha != 1) OLG_TRY(olg_lower_emit_attr_float(cx, nd, "alpha", alpha));
    if (beta != 1) OLG_TRY(olg_lower_emit_attr_float(cx, nd, "beta", beta));
    OLG_TRY(olg_lower_emit_end(cx, nd, 1, &y));
    return olg_lower_bind_output(cx, 0, y);
  }
  OLG_TRY(matmul(cx, a, b, &y));
  OLG_TRY(scaled(cx, y, alpha, &y));
  if (beta != 0) {
    OLG_TRY(scaled(cx, s, beta, &s));
    OLG_TRY(olg__emit_math2(cx, "Add", s, y, &y));
  }
  return olg_lower_bind_output(cx, 0, y);
}

/* aten::addmm(self, mat1, mat2, *, beta=1, alpha=1) */
OLG_SYMBOLIC(olg__sym_addmm) {
  UNUSED_SRC;
  return add_product(cx, false);
}

/* aten::baddbmm(self, batch1, batch2, *, beta=1, alpha=1) */
OLG_SYMBOLIC(olg__sym_baddbmm) {
  UNUSED_SRC;
  return add_product(cx, true);
}

/* aten::linear(input, weight, bias=None) = input @ weight^T + bias: Gemm (transB) for a 2-D
 * float input (without a bias only from Gemm-11, where C became optional); else MatMul with the
 * weight transposed, and Add. */
OLG_SYMBOLIC(olg__sym_linear) {
  UNUSED_SRC;
  olg_value x, w, bias, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg_lower_arg_value(cx, 1, &w));
  OLG_TRY(olg__arg_value_or_none(cx, 2, &bias));
  olg_dtype t = olg__dtype(cx, x);
  OLG_TRY(olg__emit_cast(cx, w, t, &w));
  if (bias != OLG_NO_VALUE) OLG_TRY(olg__emit_cast(cx, bias, t, &bias));
  int32_t wr = olg__rank(cx, w);
  if (olg__rank(cx, x) == 2 && wr == 2 && olg__is_float(t) &&
      (bias != OLG_NO_VALUE || olg__opset(cx) >= 11) &&
      olg__op_takes(cx, "Gemm", 0, t)) {
    olg_value in[3] = {x, w, bias};
    olg_node_id nd;
    OLG_TRY(olg_lower_emit_begin(cx, "", "Gemm", &nd));
    for (int i = 0; i < (bias != OLG_NO_VALUE ? 3 : 2); i++) OLG_TRY(olg_lower_emit_input(cx, nd, in[i]));
    OLG_TRY(olg_lower_emit_attr_int(cx, nd, "transB", 1));
    OLG_TRY(olg_lower_emit_end(cx, nd, 1, &y));
    return olg_lower_bind_output(cx, 0, y);
  }
  if (wr < 0) return olg_lower_error(cx, OLG_ERR_UNSUPPORTED, "linear: the weight's rank is not known");
  if (wr == 2) OLG_TRY(olg__emit_transpose(cx, w, (const int64_t[]){1, 0}, 2, &w));
  OLG_TRY(matmul(cx, x, w, &y));
  if (bias != OLG_NO_VALUE) OLG_TRY(olg__emit_math2(cx, "Add", y, bias, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* aten::einsum(str equation, Tensor[] tensors, *, int[]? path=None): Einsum-12 (spaces, which
 * PyTorch allows, removed). */
OLG_SYMBOLIC(olg__sym_einsum) {
  UNUSED_SRC;
  const char *eq;
  const olg_value *vals;
  size_t n;
  OLG_TRY(olg_lower_arg_string(cx, 0, &eq));
  OLG_TRY(olg_lower_arg_values(cx, 1, &vals, &n));
  if (!n) return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "einsum of no tensors");
  size_t len = strlen(eq);
  char *e = olg__lower_alloc(cx, len + 1);
  if (!e) return OLG_ERR_NOMEM;
  size_t k = 0;
  for (size_t i = 0; i < len; i++)
    if (eq[i] != ' ' && eq[i] != '\t') e[k++] = eq[i];
  e[k] = 0;
  olg_dtype t = OLG_UNDEFINED, ct;
  for (size_t i = 0; i < n; i++) {
    if (vals[i] == OLG_NO_VALUE) return olg_lower_error(cx, OLG_ERR_TYPE, "einsum: a tensor is none");
    t = olg__promote_types(t, olg__dtype(cx, vals[i]));
  }
  OLG_TRY(olg__compute_dtype(cx, "Einsum", 0, t, &ct));
  olg_node_id nd;
  olg_value *in = olg__lower_alloc(cx, n * sizeof *in);
  if (!in) return OLG_ERR_NOMEM;
  for (size_t i = 0; i < n; i++) OLG_TRY(olg__emit_cast(cx, vals[i], ct, &in[i]));
  olg_value y;
  OLG_TRY(olg_lower_emit_begin(cx, "", "Einsum", &nd));
  for (size_t i = 0; i < n; i++) OLG_TRY(olg_lower_emit_input(cx, nd, in[i]));
  OLG_TRY(olg_lower_emit_attr_string(cx, nd, "equation", e));
  OLG_TRY(olg_lower_emit_end(cx, nd, 1, &y));
  OLG_TRY(olg__emit_cast(cx, y, t, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* aten::t(self): the transpose of a 2-D tensor; 0-D and 1-D unchanged */
OLG_SYMBOLIC(olg__sym_t) {
  UNUSED_SRC;
  olg_value x, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  int32_t r = olg__rank(cx, x);
  if (r < 0) return olg_lower_error(cx, OLG_ERR_UNSUPPORTED, "t: the rank of the input is not known");
  if (r > 2) return olg__errf(cx, OLG_ERR_INVALID_ARG, "t: a tensor of rank %d (at most 2)", r);
  if (r < 2) return olg_lower_bind_output(cx, 0, x);
  OLG_TRY(olg__emit_transpose(cx, x, (const int64_t[]){1, 0}, 2, &y));
  return olg_lower_bind_output(cx, 0, y);
}
