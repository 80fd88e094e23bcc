/* onnxlegal — math emit helpers (internal), defined in symbolics/emit_math.c, used by the
 * elementwise, activation, reduction, linear-algebra ... families.
 *
 * Two concerns every elementwise symbolic has:
 * - PyTorch's type promotion: the result dtype of an op on tensors and Python scalars
 *   (olg__result_type), with every operand then brought to that dtype (olg__arg_cast);
 * - ONNX's type constraints, which at old opsets exclude integer or half types from many ops
 *   (Max-8: floats only; Relu-6: floats; Less-7: floats; Pow-7: floats...). olg__emit_math
 *   computes in the operand dtype when the target opset's op accepts it, else in a wider dtype
 *   that holds every value exactly (a "carrier": int8 -> int32, float16 -> float, int32 ->
 *   double, ...), casting back after; where no carrier is exact (int64 on a floats-only op) it
 *   refuses, naming the lowest opset whose op takes the dtype. */
#ifndef OLG_SYMBOLICS_EMIT_MATH_H
#define OLG_SYMBOLICS_EMIT_MATH_H
#include "emit.h"

/* Integer dtypes (bool excluded), and the unsigned ones among them. */
bool olg__is_int(olg_dtype t);
bool olg__is_unsigned(olg_dtype t);
/* torch.promote_types for two dtypes (OLG_UNDEFINED gives the other). */
olg_dtype olg__promote_types(olg_dtype a, olg_dtype b);
/* PyTorch's result dtype of the source node's arguments args[0..n) (tensors of rank > 0 take
 * precedence over 0-D tensors, which take precedence over Python scalars, within a category:
 * bool < integer < floating). None arguments are skipped. */
olg_status olg__result_type(olg_lower *cx, const size_t *args, size_t n, olg_dtype *out);
/* Argument i as a tensor of dtype t: a tensor cast to t, a literal (or Scalar) as a 0-D
 * constant of t. */
olg_status olg__arg_cast(olg_lower *cx, size_t i, olg_dtype t, olg_value *out);
/* Arguments ia and ib brought to their common result dtype *t (olg__result_type + arg_cast). */
olg_status olg__binary_operands(olg_lower *cx, size_t ia, size_t ib, olg_dtype *t, olg_value *a,
                                olg_value *b);

/* True when `op` at the target opset takes dtype t at input `input` (no diagnostic). */
bool olg__op_takes(const olg_lower *cx, const char *op, int input, olg_dtype t);
/* The lowest opset whose `op` takes dtype t at input `input` (-1: none). */
int olg__lowest_opset_taking(const char *op, int input, olg_dtype t);
/* The dtype in which `op` at the target opset computes on operands of dtype t at input
 * `input`: t itself, or an exact carrier; else a diagnostic naming the lowest opset whose op
 * accepts t, and OLG_ERR_UNSUPPORTED. */
olg_status olg__compute_dtype(olg_lower *cx, const char *op, int input, olg_dtype t,
                              olg_dtype *out);
/* Emits `op` (no attributes) on inputs that share one dtype t, computing in
 * olg__compute_dtype(op, t): t is read from the first input whose type constraint has a choice
 * (Where's bool condition is skipped), and only the inputs of that same constraint are cast to
 * the carrier. The output is cast back to t unless it is bool. */
olg_status olg__emit_math(olg_lower *cx, const char *op, const olg_value *in, size_t n,
                          olg_value *out);
olg_status olg__emit_math1(olg_lower *cx, const char *op, olg_value x, olg_value *out);
olg_status olg__emit_math2(olg_lower *cx, const char *op, olg_value a, olg_value b,
                           olg_value *out);

/* Comparisons of two tensors of one dtype, exact at every opset (NaN compares unequal and
 * unordered, as in PyTorch): Equal, Less/Greater (integers at 7-8 by the sign of the
 * difference), LessOrEqual/GreaterOrEqual (from 12; below without the Not(Greater) NaN trap). */
typedef enum olg_cmp { OLG_CMP_EQ, OLG_CMP_NE, OLG_CMP_LT, OLG_CMP_LE, OLG_CMP_GT, OLG_CMP_GE }
    olg_cmp;
olg_status olg__emit_compare(olg_lower *cx, olg_cmp op, olg_value a, olg_value b,
                             olg_value *out);
/* Bitwise ops of integer tensors (emit_bits.c): BitwiseAnd/Or/Xor/Not from opset 18, exact
 * int64 arithmetic below (Unsqueeze and ReduceSum over the last axis need a known rank below
 * 11). a and b share one integer dtype; the result has it. */
typedef enum olg_bits_op { OLG_BITS_AND, OLG_BITS_OR, OLG_BITS_XOR } olg_bits_op;
olg_status olg__emit_bitwise(olg_lower *cx, olg_bits_op op, olg_value a, olg_value b,
                             olg_value *out);
olg_status olg__emit_bitwise_not(olg_lower *cx, olg_value x, olg_value *out);
/* x << y (left) or x >> y of integer tensors of one dtype (broadcast; C's shifts: arithmetic
 * for signed types): BitShift (11) where the target's takes the dtype, else int64 arithmetic,
 * exact for shifts 0 to 62 (ONNX and C leave shifts of the width or more undefined). */
olg_status olg__emit_bitshift(olg_lower *cx, bool left, olg_value x, olg_value y, olg_value *out);
/* isnan of a float tensor (IsNaN-9; below, x is neither < +inf nor > -inf). */
olg_status olg__emit_isnan(olg_lower *cx, olg_value x, olg_value *out);
/* Where(cond, a, b) with a and b of one dtype (Where-9; below, for shapes known at conversion
 * time and up to 2^16 elements, a Gather from Concat(b, a); else refused naming 9). */
olg_status olg__emit_where(olg_lower *cx, olg_value cond, olg_value a, olg_value b,
                           olg_value *out);
/* Max (max true) or Min of two tensors of one dtype, broadcasting (Max-6/Min-6 at opset 7 do
 * not broadcast: both are expanded to the common static shape there). */
olg_status olg__emit_max_min(olg_lower *cx, bool max, olg_value a, olg_value b, olg_value *out);
/* x < 0 as a bool tensor, for any numeric dtype at any opset. */
olg_status olg__emit_is_negative(olg_lower *cx, olg_value x, olg_value *out);
/* [x > 0] - [x < 0] in x's dtype (0 for NaN, as PyTorch's CPU sign), at every opset. */
olg_status olg__emit_sign_cmp(olg_lower *cx, olg_value x, olg_value *out);
/* op (Sinh, Cosh, Asinh, Acosh, Atanh) of a float tensor x: the op where the target has it,
 * else its formula (Sinh/Cosh from Exp, the inverses from Log and Sqrt) computed in double,
 * where the small arguments keep their precision, and cast back. */
olg_status olg__emit_hyperbolic(olg_lower *cx, const char *op, olg_value x, olg_value *out);
/* a ** e of integer tensors (broadcast; a's dtype), exact with C's wrap-around where the
 * target's Pow lacks the type: square-and-multiply in int64 over the exponent's bits (all 63,
 * or those of a known exponent), Where (9) choosing; a negative exponent gives what 1 / a^|e|
 * truncates to (a^|e| for a = +-1, else 0). */
olg_status olg__emit_int_pow(olg_lower *cx, olg_value a, olg_value e, olg_value *out);
/* Round half to even of a float tensor: Round (11), else olg__emit_round_even_floor. */
olg_status olg__emit_round(olg_lower *cx, olg_value x, olg_value *out);
/* Round half to even from Floor, at every opset: r + [f > 0.5] + [f == 0.5] * (r odd). */
olg_status olg__emit_round_even_floor(olg_lower *cx, olg_value x, olg_value *out);
/* Rounding toward zero of a float tensor (no ONNX op: Floor(|x|) with the sign restored). */
olg_status olg__emit_trunc(olg_lower *cx, olg_value x, olg_value *out);
/* Integer division of a by b truncated (*q), its remainder r = a - q*b (sign of a), and, when adj
 * is not NULL, where Python's sign rule needs r + b (r != 0 with a sign other than b's). */
olg_status olg__emit_int_trunc_rem(olg_lower *cx, olg_value a, olg_value b, olg_value *q,
                                   olg_value *r, olg_value *adj);
/* The remainder of a by b (one dtype, not bool): python, the divisor's sign (aten::remainder,
 * ONNX Mod fmod=0); else the dividend's (aten::fmod, Mod fmod=1). has_mod: Mod-10 is there
 * (below, integers by truncating Div and a sign fix-up, floats through double). */
olg_status olg__emit_remainder(olg_lower *cx, bool has_mod, bool python, olg_value a, olg_value b,
                               olg_value *out);
/* floor(a / b) of one dtype t (not bool), as PyTorch's floor division: has_mod, Mod-10 is there
 * (double's quotient PyTorch's fmod-based way); else floats through double, ints by a truncating
 * Div and a sign fix-up. */
olg_status olg__emit_floor_div(olg_lower *cx, bool has_mod, olg_dtype t, olg_value a, olg_value b,
                               olg_value *out);
/* A 0-D constant of x's dtype: olg__const_like, named for symmetry. */
#define olg__scalar_like olg__const_like

/* A reduction's dims: argument i as int[1]? (none, [] or absent: every dim), normalized
 * against rank; *all is set when every dim is reduced (then *n is 0). */
olg_status olg__reduce_dims(olg_lower *cx, size_t i, int32_t rank, int64_t *dims, size_t *n,
                            bool *all);

#endif
