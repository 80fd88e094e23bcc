/* onnxlegal — reductions: sum, mean, prod, amax, amin, max / min (all, dim with indices, or of
 * two tensors), argmax, argmin, any, all, std, var, norm (+ frobenius_norm, linalg_vector_norm,
 * which torch.norm traces to), logsumexp, cumsum. Arguments as in PyTorch 1.13's schemas;
 * overloads told apart by argument count and kinds. ReduceX axes go through olg__emit_reduce
 * (an attribute or an input, by opset). */
#include <math.h>
#include <string.h>

#include "emit_math.h"
#include "symbolics.h"


static const char *reduce_name(olg_reduce_kind k) {
  static const char *const ops[] = {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin",
                                    "ReduceProd", "ReduceL1", "ReduceL2", "ReduceLogSum",
                                    "ReduceLogSumExp", "ReduceSumSquare"};
  return ops[k];
}

/* A reduction in x's dtype, through a carrier where the opset's op does not take it. */
static olg_status reduce(olg_lower *cx, olg_reduce_kind kind, olg_value x, const int64_t *axes,
                         size_t n, int keepdim, olg_value *out) {
  olg_dtype t = olg__dtype(cx, x), ct;
  OLG_TRY(olg__compute_dtype(cx, reduce_name(kind), 0, t, &ct));
  olg_value xin, y;
  OLG_TRY(olg__emit_cast(cx, x, ct, &xin));
  OLG_TRY(olg__emit_reduce(cx, kind, xin, axes, n, keepdim, &y));
  return olg__emit_cast(cx, y, t, out);
}

/* One dim argument (int), normalized. */
static olg_status one_dim(olg_lower *cx, size_t i, int32_t rank, int64_t *out) {
  int64_t d;
  OLG_TRY(olg_lower_arg_int(cx, i, &d));
  int64_t r = rank == 0 ? 1 : rank; /* a 0-D tensor takes dim 0 / -1 */
  int64_t n = olg__norm_axis(d, r);
  if (n < 0) return olg__errf(cx, OLG_ERR_RANGE, "dim %lld is out of range for rank %d", (long long)d, rank);
  *out = n;
  return OLG_OK;
}

/* The input of sum/prod/cumsum: cast to dtype when given, else integers and bools to int64. */
static olg_status accumulate_input(olg_lower *cx, size_t dtype_arg, olg_value *x) {
  olg_dtype dt;
  OLG_TRY(olg_lower_arg_value(cx, 0, x));
  OLG_TRY(olg__arg_scalar_type_or(cx, dtype_arg, OLG_UNDEFINED, &dt));
  if (dt == OLG_UNDEFINED && !olg__is_float(olg__dtype(cx, *x))) dt = OLG_INT64;
  return dt != OLG_UNDEFINED ? olg__emit_cast(cx, *x, dt, x) : OLG_OK;
}

/* sum / mean / prod: (self, *, dtype) or (self, dim, keepdim=False, *, dtype) */
static olg_status sum_like(olg_lower *cx, olg_reduce_kind kind) {
  bool dim_form = olg_lower_arg_count(cx) > 2;
  olg_value x, y;
  OLG_TRY(accumulate_input(cx, dim_form ? 3 : 1, &x));
  if (kind == OLG_REDUCE_MEAN && !olg__is_float(olg__dtype(cx, x)))
    return olg__errf(cx, OLG_ERR_TYPE, "mean of a %s tensor (give a float dtype)",
                     olg_dtype_name(olg__dtype(cx, x)));
  int32_t rank;
  OLG_TRY(olg__input_rank(cx, x, &rank));
  int64_t axes[OLG_MAX_RANK];
  size_t n = 0;
  bool all = true;
  int keepdim = 0;
  if (dim_form) {
    if (kind == OLG_REDUCE_PROD) { /* prod.dim_int: one int */
      OLG_TRY(one_dim(cx, 1, rank, &axes[0]));
      n = rank ? 1 : 0;
      all = rank == 0;
    } else {
      OLG_TRY(olg__reduce_dims(cx, 1, rank, axes, &n, &all));
    }
    OLG_TRY(olg__arg_bool_or(cx, 2, 0, &keepdim));
  }
  if (rank == 0) return olg_lower_bind_output(cx, 0, x);
  OLG_TRY(reduce(cx, kind, x, all ? NULL : axes, all ? 0 : n, keepdim, &y));
  return olg_lower_bind_output(cx, 0, y);
}

olg_status olg__sym_sum(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return sum_like(cx, OLG_REDUCE_SUM);
}

olg_status olg__sym_mean(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return sum_like(cx, OLG_REDUCE_MEAN);
}

olg_status olg__sym_prod(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return sum_like(cx, OLG_REDUCE_PROD);
}

/* aten::amax / amin(self, int[1] dim=[], bool keepdim=False) */
static olg_status amax_like(olg_lower *cx, bool max) {
  olg_value x, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  int32_t rank;
  OLG_TRY(olg__input_rank(cx, x, &rank));
  int64_t axes[OLG_MAX_RANK];
  size_t n;
  bool all;
  int keepdim;
  OLG_TRY(olg__reduce_dims(cx, 1, rank, axes, &n, &all));
  OLG_TRY(olg__arg_bool_or(cx, 2, 0, &keepdim));
  if (rank == 0) return olg_lower_bind_output(cx, 0, x);
  OLG_TRY(reduce(cx, max ? OLG_REDUCE_MAX : OLG_REDUCE_MIN, x, axes, n, keepdim, &y));
  return olg_lower_bind_output(cx, 0, y);
}

olg_status olg__sym_amax(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return amax_like(cx, true);
}

olg_status olg__sym_amin(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return amax_like(cx, false);
}

/* ArgMax / ArgMin of x along axis (int64 indices), through a carrier dtype. */
static olg_status arg_extreme(olg_lower *cx, bool max, olg_value x, int64_t axis, int keepdim,
                              olg_value *out) {
  const char *op = max ? "ArgMax" : "ArgMin";
  olg_dtype ct;
  OLG_TRY(olg__compute_dtype(cx, op, 0, olg__dtype(cx, x), &ct));
  OLG_TRY(olg__emit_cast(cx, x, ct, &x));
  olg_node_id nd;
  OLG_TRY(olg_lower_emit_begin(cx, "", op, &nd));
  OLG_TRY(olg_lower_emit_input(cx, nd, x));
  OLG_TRY(olg_lower_emit_attr_int(cx, nd, "axis", axis));
  OLG_TRY(olg_lower_emit_attr_int(cx, nd, "keepdims", keepdim ? 1 : 0));
  return olg_lower_emit_end(cx, nd, 1, out);
}

/* aten::max / min: (self) over everything; .other(self, Tensor other) = maximum / minimum;
 * .dim(self, int dim, bool keepdim=False) -> (values, indices), the first extreme's index */
static olg_status max_like(olg_lower *cx, olg_node_id src, void *ud, bool max) {
  (void)src; (void)ud;
  olg_value x, y, idx;
  if (olg_lower_arg_kind(cx, 1) == OLG_ARGKIND_VALUE) { /* as maximum / minimum */
    olg_dtype t;
    olg_value a, b;
    OLG_TRY(olg__binary_operands(cx, 0, 1, &t, &a, &b));
    OLG_TRY(olg__emit_max_min(cx, max, a, b, &y));
    return olg_lower_bind_output(cx, 0, y);
  }
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  int32_t rank;
  OLG_TRY(olg__input_rank(cx, x, &rank));
  olg_reduce_kind kind = max ? OLG_REDUCE_MAX : OLG_REDUCE_MIN;
  if (olg_lower_arg_is_none(cx, 1)) {
    if (rank == 0) return olg_lower_bind_output(cx, 0, x);
    OLG_TRY(reduce(cx, kind, x, NULL, 0, 0, &y));
    return olg_lower_bind_output(cx, 0, y);
  }
  int64_t d;
  int keepdim;
  OLG_TRY(one_dim(cx, 1, rank, &d));
  OLG_TRY(olg__arg_bool_or(cx, 2, 0, &keepdim));
  if (rank == 0) {
    OLG_TRY(olg_lower_bind_output(cx, 0, x));
    OLG_TRY(olg__const_i64(cx, 0, &idx));
    return olg_lower_bind_output(cx, 1, idx);
  }
  OLG_TRY(reduce(cx, kind, x, &d, 1, keepdim, &y));
  OLG_TRY(olg_lower_bind_output(cx, 0, y));
  if (olg_lower_output_count(cx) < 2 || !olg_lower_output_used(cx, 1)) return OLG_OK;
  OLG_TRY(arg_extreme(cx, max, x, d, keepdim, &idx));
  return olg_lower_bind_output(cx, 1, idx);
}

olg_status olg__sym_max(olg_lower *cx, olg_node_id src, void *ud) { return max_like(cx, src, ud, true); }

olg_status olg__sym_min(olg_lower *cx, olg_node_id src, void *ud) { return max_like(cx, src, ud, false); }

/* aten::argmax / argmin(self, int? dim=None, bool keepdim=False); dim None: of the flattened
 * tensor (keepdim then gives every dim 1) */
static olg_status argmax_like(olg_lower *cx, bool max) {
  olg_value x, y;
  int keepdim;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg__arg_bool_or(cx, 2, 0, &keepdim));
  int32_t rank;
  OLG_TRY(olg__input_rank(cx, x, &rank));
  if (olg_lower_arg_is_none(cx, 1) || rank == 0) {
    if (!olg_lower_arg_is_none(cx, 1)) {
      int64_t d;
      OLG_TRY(one_dim(cx, 1, rank, &d));
    }
    olg_value flat;
    OLG_TRY(olg__emit_reshape_static(cx, x, (const int64_t[]){-1}, 1, &flat));
    OLG_TRY(arg_extreme(cx, max, flat, 0, 0, &y));
    if (keepdim && rank > 0) {
      int64_t ones[OLG_MAX_RANK];
      for (int32_t i = 0; i < rank; i++) ones[i] = 1;
      OLG_TRY(olg__emit_reshape_static(cx, y, ones, (size_t)rank, &y));
    }
    return olg_lower_bind_output(cx, 0, y);
  }
  int64_t d;
  OLG_TRY(one_dim(cx, 1, rank, &d));
  OLG_TRY(arg_extreme(cx, max, x, d, keepdim, &y));
  return olg_lower_bind_output(cx, 0, y);
}

olg_status olg__sym_argmax(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return argmax_like(cx, true);
}

olg_status olg__sym_argmin(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return argmax_like(cx, false);
}

/* aten::any / all: (self) or .dim(self, int dim, bool keepdim=False). No ONNX reduction of bools
 * before opset 20: the truth (nonzero) as int32, ReduceMax (any) / ReduceMin (all), back to
 * bool — or uint8 for a uint8 input, as PyTorch returns. */
static olg_status any_like(olg_lower *cx, bool any) {
  olg_value x, b, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  olg_dtype out_t = olg__dtype(cx, x) == OLG_UINT8 ? OLG_UINT8 : OLG_BOOL;
  int32_t rank;
  OLG_TRY(olg__input_rank(cx, x, &rank));
  int64_t d = 0;
  int keepdim = 0;
  bool all = olg_lower_arg_count(cx) < 2 || olg_lower_arg_is_none(cx, 1);
  if (!all) {
    OLG_TRY(one_dim(cx, 1, rank, &d));
    OLG_TRY(olg__arg_bool_or(cx, 2, 0, &keepdim));
  }
  OLG_TRY(olg__emit_cast(cx, x, OLG_BOOL, &b));
  if (rank == 0) {
    OLG_TRY(olg__emit_cast(cx, b, out_t, &y));
    return olg_lower_bind_output(cx, 0, y);
  }
  OLG_TRY(olg__emit_cast(cx, b, OLG_INT32, &b));
  OLG_TRY(olg__emit_reduce(cx, any ? OLG_REDUCE_MAX : OLG_REDUCE_MIN, b, all ? NULL : &d,
                           all ? 0 : 1, keepdim, &y));
  OLG_TRY(olg__emit_cast(cx, y, out_t, &y));
  return olg_lower_bind_output(cx, 0, y);
}

olg_status olg__sym_any(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return any_like(cx, true);
}

olg_status olg__sym_all(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return any_like(cx, false);
}

/* The number of elements reduced (as a 0-D tensor of x's dtype). */
static olg_status reduced_count(olg_lower *cx, olg_value x, const int64_t *axes, size_t n,
                                bool all, int32_t rank, olg_value *out) {
  double count = 1;
  bool known = true;
  for (int32_t i = 0; i < rank && known; i++) {
    bool in = all;
    for (size_t j = 0; j < n && !in; j++) in = axes[j] == i;
    if (!in) continue;
    int64_t d = olg__dim(cx, x, i);
    known = d >= 0;
    count *= (double)d;
  }
  if (known) return olg__const_like(cx, x, count, out);
  olg_value shape, dims;
  OLG_TRY(olg__shape(cx, x, &shape));
  if (!all) {
    olg_value idx;
    OLG_TRY(olg__const_i64s(cx, axes, n, &idx));
    OLG_TRY(olg__emit_gather(cx, shape, idx, 0, &dims));
  } else {
    dims = shape;
  }
  OLG_TRY(olg__emit_reduce(cx, OLG_REDUCE_PROD, dims, NULL, 0, 0, &dims));
  return olg__emit_cast_like(cx, dims, x, out);
}

/* aten::var / std: (self, bool unbiased=True); .dim(self, int[1]? dim, bool unbiased=True,
 * bool keepdim=False); .correction(self, int[1]? dim, *, int? correction, bool keepdim=False).
 * Two passes: sum((x - mean)^2) / max(N - correction, 0). */
static olg_status var_like(olg_lower *cx, bool std) {
  olg_value x, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  if (!olg__is_float(olg__dtype(cx, x))) OLG_TRY(olg__emit_cast(cx, x, OLG_FLOAT, &x));
  int32_t rank;
  OLG_TRY(olg__input_rank(cx, x, &rank));
  int64_t axes[OLG_MAX_RANK];
  size_t n = 0;
  bool all = true;
  int keepdim = 0;
  double correction = 1;
  if (olg_lower_arg_count(cx) <= 2 && olg_lower_arg_kind(cx, 1) != OLG_ARGKIND_INTS &&
      olg_lower_arg_kind(cx, 1) != OLG_ARGKIND_INT) {
    int unbiased;
    OLG_TRY(olg__arg_bool_or(cx, 1, 1, &unbiased));
    correction = unbiased ? 1 : 0;
  } else {
    OLG_TRY(olg__reduce_dims(cx, 1, rank, axes, &n, &all));
    if (olg_lower_arg_kind(cx, 2) == OLG_ARGKIND_BOOL) {
      int unbiased;
      OLG_TRY(olg_lower_arg_bool(cx, 2, &unbiased));
      correction = unbiased ? 1 : 0;
    } else {
      OLG_TRY(olg__arg_float_or(cx, 2, 1, &correction));
    }
    OLG_TRY(olg__arg_bool_or(cx, 3, 0, &keepdim));
  }
  const int64_t *ax = all ? NULL : axes;
  size_t nax = all ? 0 : n;
  olg_value mean, d, ss, count, c;
  if (rank == 0) {
    OLG_TRY(olg__emit_math2(cx, "Sub", x, x, &ss));
  } else {
    OLG_TRY(reduce(cx, OLG_REDUCE_MEAN, x, ax, nax, 1, &mean));
    OLG_TRY(olg__emit_math2(cx, "Sub", x, mean, &d));
    OLG_TRY(olg__emit_math2(cx, "Mul", d, d, &d));
    OLG_TRY(reduce(cx, OLG_REDUCE_SUM, d, ax, nax, keepdim, &ss));
  }
  OLG_TRY(reduced_count(cx, x, axes, n, all, rank, &count));
  double cnt;
  if (olg__known_scalar(cx, count, &cnt)) {
    OLG_TRY(olg__const_like(cx, x, fmax(cnt - correction, 0), &count));
  } else {
    OLG_TRY(olg__const_like(cx, x, correction, &c));
    OLG_TRY(olg__emit_math2(cx, "Sub", count, c, &count));
    OLG_TRY(olg__emit_clip_f(cx, count, 1, 0, 0, 0, &count));
  }
  OLG_TRY(olg__emit_math2(cx, "Div", ss, count, &y));
  if (std) OLG_TRY(olg__emit_math1(cx, "Sqrt", y, &y));
  return olg_lower_bind_output(cx, 0, y);
}

olg_status olg__sym_var(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return var_like(cx, false);
}

olg_status olg__sym_std(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return var_like(cx, true);
}

/* The p-norm of x over axes: ReduceL2 (p 2), ReduceL1 (1), max / min of |x| (+-inf), the count
 * of nonzeros (0), else (sum |x|^p)^(1/p). */
static olg_status p_norm(olg_lower *cx, olg_value x, double p, const int64_t *axes, size_t n,
                         int keepdim, olg_value *out) {
  if (!olg__is_float(olg__dtype(cx, x)))
    return olg__errf(cx, OLG_ERR_TYPE, "norm of a %s tensor (give a float dtype)",
                     olg_dtype_name(olg__dtype(cx, x)));
  if (olg__rank(cx, x) == 0) { /* |x|, or [x != 0] for p = 0 */
    axes = NULL;
    n = 0;
  }
  if (p == 2) return reduce(cx, OLG_REDUCE_L2, x, axes, n, keepdim, out);
  if (p == 1) return reduce(cx, OLG_REDUCE_L1, x, axes, n, keepdim, out);
  olg_value ax, y;
  if (p == 0) {
    olg_value zero, nz;
    OLG_TRY(olg__const_like(cx, x, 0, &zero));
    OLG_TRY(olg__emit_compare(cx, OLG_CMP_NE, x, zero, &nz));
    OLG_TRY(olg__emit_cast_like(cx, nz, x, &nz));
    return reduce(cx, OLG_REDUCE_SUM, nz, axes, n, keepdim, out);
  }
  OLG_TRY(olg__emit_math1(cx, "Abs", x, &ax));
  if (isinf(p)) return reduce(cx, p > 0 ? OLG_REDUCE_MAX : OLG_REDUCE_MIN, ax, axes, n, keepdim, out);
  olg_value pv, ip;
  OLG_TRY(olg__const_like(cx, x, p, &pv));
  OLG_TRY(olg__const_like(cx, x, 1.0 / p, &ip));
  OLG_TRY(olg__emit_math2(cx, "Pow", ax, pv, &y));
  OLG_TRY(reduce(cx, OLG_REDUCE_SUM, y, axes, n, keepdim, &y));
  return olg__emit_math2(cx, "Pow", y, ip, out);
}

/* aten::norm: .Scalar(self, p=2); .ScalarOpt_dim(self, p?, int[1] dim, bool keepdim=False);
 * .ScalarOpt_dtype(self, p?, *, dtype); .ScalarOpt_dim_dtype(self, p?, dim, keepdim, *, dtype).
 * Argument 2 is the dims when a list, the dtype when an int. */
olg_status olg__sym_norm(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, y;
  double p;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg__arg_float_or(cx, 1, 2, &p));
  int32_t rank;
  OLG_TRY(olg__input_rank(cx, x, &rank));
  int64_t axes[OLG_MAX_RANK];
  size_t n = 0;
  bool all = true;
  int keepdim = 0;
  olg_dtype dt = OLG_UNDEFINED;
  if (olg_lower_arg_kind(cx, 2) == OLG_ARGKIND_INT) {
    OLG_TRY(olg__arg_scalar_type_or(cx, 2, OLG_UNDEFINED, &dt));
  } else {
    OLG_TRY(olg__reduce_dims(cx, 2, rank, axes, &n, &all));
    OLG_TRY(olg__arg_bool_or(cx, 3, 0, &keepdim));
    OLG_TRY(olg__arg_scalar_type_or(cx, 4, OLG_UNDEFINED, &dt));
  }
  if (dt != OLG_UNDEFINED) OLG_TRY(olg__emit_cast(cx, x, dt, &x));
  OLG_TRY(p_norm(cx, x, p, all ? NULL : axes, all ? 0 : n, keepdim, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* aten::frobenius_norm(self) / .dim(self, int[1] dim, bool keepdim=False): what torch.norm with
 * p='fro' (and its default) traces to */
olg_status olg__sym_frobenius_norm(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  int32_t rank;
  OLG_TRY(olg__input_rank(cx, x, &rank));
  int64_t axes[OLG_MAX_RANK];
  size_t n;
  bool all;
  int keepdim;
  OLG_TRY(olg__reduce_dims(cx, 1, rank, axes, &n, &all));
  OLG_TRY(olg__arg_bool_or(cx, 2, 0, &keepdim));
  OLG_TRY(p_norm(cx, x, 2, axes, n, keepdim, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* aten::linalg_vector_norm(self, ord=2, int[1]? dim=None, bool keepdim=False, *, dtype=None) */
olg_status olg__sym_linalg_vector_norm(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, y;
  double p;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg__arg_float_or(cx, 1, 2, &p));
  int32_t rank;
  OLG_TRY(olg__input_rank(cx, x, &rank));
  int64_t axes[OLG_MAX_RANK];
  size_t n;
  bool all;
  int keepdim;
  olg_dtype dt;
  OLG_TRY(olg__reduce_dims(cx, 2, rank, axes, &n, &all));
  OLG_TRY(olg__arg_bool_or(cx, 3, 0, &keepdim));
  OLG_TRY(olg__arg_scalar_type_or(cx, 4, OLG_UNDEFINED, &dt));
  if (dt != OLG_UNDEFINED) OLG_TRY(olg__emit_cast(cx, x, dt, &x));
  OLG_TRY(p_norm(cx, x, p, axes, n, keepdim, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* aten::logsumexp(self, int[1] dim, bool keepdim=False); integers as float32 */
olg_status olg__sym_logsumexp(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  if (!olg__is_float(olg__dtype(cx, x))) OLG_TRY(olg__emit_cast(cx, x, OLG_FLOAT, &x));
  int32_t rank;
  OLG_TRY(olg__input_rank(cx, x, &rank));
  int64_t axes[OLG_MAX_RANK];
  size_t n;
  bool all;
  int keepdim;
  OLG_TRY(olg__reduce_dims(cx, 1, rank, axes, &n, &all));
  OLG_TRY(olg__arg_bool_or(cx, 2, 0, &keepdim));
  if (rank == 0) return olg_lower_bind_output(cx, 0, x);
  OLG_TRY(reduce(cx, OLG_REDUCE_LOG_SUM_EXP, x, axes, n, keepdim, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* The largest dim a cumsum below opset 11 multiplies by an n x n triangle of ones. */
#define CUMSUM_MATMUL_MAX 4096

/* The cumulative sum of x along dim d below CumSum-11, for a dim of known size n: the dim moved
 * last times a triangle of ones, y[..., j] = sum of x[..., i] over i <= j (i < j exclusive;
 * i >= j, i > j reversed). */
static olg_status cumsum_matmul(olg_lower *cx, olg_value x, int32_t rank, int64_t d,
                                bool exclusive, bool reverse, olg_value *out) {
  olg_value y;
  olg_dtype t = olg__dtype(cx, x), ct;
  int64_t size = olg__dim(cx, x, (int32_t)d);
  if (size < 0)
    return olg_lower_unsupported(cx, "cumsum along a dim whose size is not known (below CumSum-11)", 11);
  if (size > CUMSUM_MATMUL_MAX)
    return olg__unsupportedf(cx, 11, "cumsum along a dim of %lld (below CumSum-11, up to %d)",
                             (long long)size, CUMSUM_MATMUL_MAX);
  OLG_TRY(olg__compute_dtype(cx, "MatMul", 0, t, &ct));
  size_t es = olg_dtype_nbytes(ct, 1);
  unsigned char *tri = olg__lower_alloc(cx, (size_t)(size * size) * es + 1);
  if (!tri) return OLG_ERR_NOMEM;
  for (int64_t i = 0; i < size; i++)
    for (int64_t j = 0; j < size; j++) {
      unsigned char *p = tri + (size_t)(i * size + j) * es;
      bool in = reverse ? (exclusive ? i > j : i >= j) : (exclusive ? i < j : i <= j);
      double one = in;
      if (ct == OLG_FLOAT) { float f = (float)one; memcpy(p, &f, 4); }
      else if (ct == OLG_DOUBLE) memcpy(p, &one, 8);
      else if (ct == OLG_INT64) { int64_t v = (int64_t)one; memcpy(p, &v, 8); }
      else if (ct == OLG_INT32) { int32_t v = (int32_t)one; memcpy(p, &v, 4); }
      else return olg__unsupportedf(cx, 11, "cumsum of %s tensors", olg_dtype_name(t));
    }
  olg_value u, xin;
  int64_t dims[2] = {size, size};
  OLG_TRY(olg__const_tensor_kept(cx, ct, 2, dims, tri, (size_t)(size * size) * es, &u));
  int64_t perm[OLG_MAX_RANK];
  for (int32_t i = 0; i < rank; i++) perm[i] = i;
  perm[d] = rank - 1;
  perm[rank - 1] = d;
  OLG_TRY(olg__emit_cast(cx, x, ct, &xin));
  OLG_TRY(olg__emit_transpose(cx, xin, perm, (size_t)rank, &xin));
  OLG_TRY(olg__emit2(cx, "MatMul", xin, u, &y));
  OLG_TRY(olg__emit_transpose(cx, y, perm, (size_t)rank, &y));
  return olg__emit_cast(cx, y, t, out);
}

/* cumsum/cumprod(self, int dim, *, ScalarType? dtype=None): the input (cast as accumulate_input
 * does), its rank and the dim. */
static olg_status cumulative_args(olg_lower *cx, olg_value *x, int32_t *rank, int64_t *d) {
  OLG_TRY(accumulate_input(cx, 2, x));
  OLG_TRY(olg__input_rank(cx, *x, rank));
  return one_dim(cx, 1, *rank, d);
}

/* aten::cumsum(self, int dim, *, ScalarType? dtype=None): CumSum-11; below, cumsum_matmul. */
static olg_status cumsum(olg_lower *cx, bool has_cumsum) {
  olg_value x, y;
  int32_t rank;
  int64_t d;
  OLG_TRY(cumulative_args(cx, &x, &rank, &d));
  if (rank == 0) return olg_lower_bind_output(cx, 0, x);
  olg_dtype t = olg__dtype(cx, x), ct;
  if (has_cumsum) {
    olg_value axis, xin;
    OLG_TRY(olg__compute_dtype(cx, "CumSum", 0, t, &ct));
    OLG_TRY(olg__emit_cast(cx, x, ct, &xin));
    OLG_TRY(olg__const_i64(cx, d, &axis));
    OLG_TRY(olg__emit2(cx, "CumSum", xin, axis, &y));
    OLG_TRY(olg__emit_cast(cx, y, t, &y));
    return olg_lower_bind_output(cx, 0, y);
  }
  OLG_TRY(cumsum_matmul(cx, x, rank, d, false, false, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* ONNX CumSum (11) below 11: cumsum_matmul along the axis, with exclusive and reverse. An axis
 * computed at run time: the sums along every axis, stacked twice (so that axis + rank indexes
 * a negative axis too) and the one wanted taken by a Gather. */
olg_status olg__sym_onnx_cumsum(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, av, y;
  int32_t rank;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg_lower_arg_value(cx, 1, &av));
  OLG_TRY(olg__input_rank(cx, x, &rank));
  bool ex = olg__src_attr_int(cx, "exclusive", 0) != 0, rev = olg__src_attr_int(cx, "reverse", 0) != 0;
  if (rank == 0) return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "CumSum of a 0-D tensor");
  double a;
  if (olg__known_scalar(cx, av, &a) || rank == 1) {
    /* an axis past int64 (INT64_MAX is 2^63 as a double) or NaN is out of range, not cast */
    int64_t ai, d = rank == 1 ? 0 : olg__f64_to_i64(a, &ai) ? olg__norm_axis(ai, rank) : -1;
    if (d < 0) return olg_lower_error(cx, OLG_ERR_RANGE, "CumSum: axis out of range");
    OLG_TRY(cumsum_matmul(cx, x, rank, d, ex, rev, &y));
    return olg_lower_bind_output(cx, 0, y);
  }
  olg_value each[2 * OLG_MAX_RANK], all, idx, rv;
  for (int32_t i = 0; i < rank; i++) {
    OLG_TRY(cumsum_matmul(cx, x, rank, i, ex, rev, &each[i]));
    OLG_TRY(olg__emit_unsqueeze(cx, each[i], (const int64_t[]){0}, 1, &each[i]));
    each[i + rank] = each[i];
  }
  OLG_TRY(olg__emit_concat(cx, each, 2 * (size_t)rank, 0, &all));
  OLG_TRY(olg__emit_cast(cx, av, OLG_INT64, &idx));
  OLG_TRY(olg__emit_reshape_static(cx, idx, NULL, 0, &idx));
  OLG_TRY(olg__const_i64(cx, rank, &rv));
  OLG_TRY(olg__emit2(cx, "Add", idx, rv, &idx));
  OLG_TRY(olg__emit_gather(cx, all, idx, 0, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* CumSum (11); below, MatMul by a triangle */
olg_status olg__sym_cumsum(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return cumsum(cx, olg__target_has(cx, "CumSum"));
}

/* ---- cumulative product: aten::cumprod and ONNX CumProd (26), one emitter ----
 * CumProd where the target's version takes the dtype; below, along a dim of known size n: x
 * unsqueezed before the dim, a constant [n, n] mask (j <= i; j < i exclusive; j >= i, j > i in
 * reverse) picking x or 1 by Where (opset 9), and a ReduceProd over the second of the two dims. */
#define OLG_MAX_CUMPROD_DIM 2048

static olg_status emit_cumprod(olg_lower *cx, olg_value x, int32_t rank, int64_t d, bool ex,
                               bool rev, const char *decomposed, olg_value *out) {
  if (olg__op_takes(cx, "CumProd", 0, olg__dtype(cx, x))) {
    olg_value axis;
    olg_node_id nd;
    OLG_TRY(olg__const_i64(cx, d, &axis));
    OLG_TRY(olg_lower_emit_begin(cx, "", "CumProd", &nd));
    OLG_TRY(olg_lower_emit_input(cx, nd, x));
    OLG_TRY(olg_lower_emit_input(cx, nd, axis));
    if (ex) OLG_TRY(olg_lower_emit_attr_int(cx, nd, "exclusive", 1));
    if (rev) OLG_TRY(olg_lower_emit_attr_int(cx, nd, "reverse", 1));
    return olg_lower_emit_end(cx, nd, 1, out);
  }
  int64_t n = olg__dim(cx, x, d);
  if (n < 0 || n > OLG_MAX_CUMPROD_DIM)
    return olg__unsupportedf(cx, 26, "a cumulative product along a dim whose size is not known at "
                             "export time or is over %d", OLG_MAX_CUMPROD_DIM);
  if (!olg__op_takes(cx, "Where", 1, olg__dtype(cx, x)))
    return olg_lower_unsupported(cx, "a cumulative product (as Where and ReduceProd)",
                                 olg__lowest_opset_taking("Where", 1, olg__dtype(cx, x)));
  if (decomposed) OLG_TRY(olg_lower_decompose(cx, decomposed, 26));
  size_t nn = (size_t)(n * n);
  uint8_t *keep = olg__lower_alloc(cx, nn ? nn : 1);
  if (!keep) return OLG_ERR_NOMEM;
  for (int64_t i = 0; i < n; i++)
    for (int64_t j = 0; j < n; j++)
      keep[i * n + j] = rev ? (ex ? j > i : j >= i) : (ex ? j < i : j <= i);
  int64_t mdims[OLG_MAX_RANK + 1] = {n, n};
  for (int32_t k = 0; k < rank - 1 - d; k++) mdims[2 + k] = 1;
  olg_value mask, xe, one, in[3], w;
  OLG_TRY(olg__const_tensor_kept(cx, OLG_BOOL, 2 + rank - 1 - (int32_t)d, mdims, keep, nn, &mask));
  OLG_TRY(olg__emit_unsqueeze(cx, x, &d, 1, &xe));
  OLG_TRY(olg__const_like(cx, x, 1.0, &one));
  in[0] = mask;
  in[1] = xe;
  in[2] = one;
  OLG_TRY(olg__emit(cx, "Where", in, 3, &w));
  int64_t j = d + 1;
  return olg__emit_reduce(cx, OLG_REDUCE_PROD, w, &j, 1, 0, out);
}

/* aten::cumprod(self, int dim, *, ScalarType? dtype=None) */
olg_status olg__sym_cumprod(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, y;
  int32_t rank;
  int64_t d;
  OLG_TRY(cumulative_args(cx, &x, &rank, &d));
  if (rank == 0) return olg_lower_bind_output(cx, 0, x);
  OLG_TRY(emit_cumprod(cx, x, rank, d, false, false, NULL, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* ONNX CumProd (26): the axis a constant input, exclusive and reverse attributes */
olg_status olg__sym_onnx_cumprod(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, av, y;
  int32_t rank;
  double a;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg_lower_arg_value(cx, 1, &av));
  OLG_TRY(olg__input_rank(cx, x, &rank));
  if (rank == 0) return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "CumProd of a 0-D tensor");
  bool ex = olg__src_attr_int(cx, "exclusive", 0) != 0, rev = olg__src_attr_int(cx, "reverse", 0) != 0;
  if (!olg__known_scalar(cx, av, &a) && rank != 1) {
    if (olg__op_takes(cx, "CumProd", 0, olg__dtype(cx, x))) return olg__sym_onnx_passthrough(cx, src, ud);
    return olg_lower_unsupported(cx, "CumProd with an axis computed at run time", 26);
  }
  int64_t ai, d = rank == 1 ? 0 : olg__f64_to_i64(a, &ai) ? olg__norm_axis(ai, rank) : -1;
  if (d < 0) return olg_lower_error(cx, OLG_ERR_RANGE, "CumProd: axis out of range");
  OLG_TRY(emit_cumprod(cx, x, rank, d, ex, rev, "CumProd as Where and ReduceProd over a triangle", &y));
  return olg_lower_bind_output(cx, 0, y);
}
