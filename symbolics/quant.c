/* onnxlegal — ONNX QuantizeLinear and DequantizeLinear at opsets whose versions lack what a node
 * uses: below 10 (no such op), per-axis scales below 13, blocked scales (block_size) and
 * output_dtype below 21. The node is passed through where the target's version has every
 * attribute it carries (and axis where the scale is per-axis); elsewhere it is computed exactly
 * with the target's ops:
 *   DequantizeLinear: y = (x - zero_point) * scale, the difference taken in float (int32 in
 *     int32), which holds every int8/uint8/int16/uint16 value exactly, as ONNX Runtime does;
 *   QuantizeLinear:  y = saturate(round_half_even(x / scale) + zero_point) (olg__emit_round:
 *     Round from 11, below it Floor and comparisons, exact on float32), the saturation a Clip to
 *     the type's range before the Cast.
 * The scale (and zero point) is broadcast along `axis`: a per-axis 1-D scale reshaped to
 * [D, 1, ..., 1]; a blocked one repeated block_size times along the axis and cut to the input's
 * size (the input's shape must then be known at export time). float8, int4 and float16 scales
 * are not decomposed (their types do not exist at the opsets concerned). */
#include <string.h>

#include "emit.h"
#include "emit_math.h"
#include "emit_src.h"
#include "../lib/lower.h"
#include "../lib/schema.h"
#include "symbolics.h"

#define UNUSED_SRC (void)src; (void)ud

/* The node's attributes all exist in the target's version, and so do axis (a per-axis scale) and
 * block_size (a blocked one): the pass-through writes it as it is. */
static bool target_takes_node(olg_lower *cx, const char *op, bool per_axis, bool blocked) {
  const olg_schema *ts = olg__target_schema(cx, op);
  if (!ts || ts->deprecated) return false;
  if ((per_axis && !olg_schema_attr(ts, "axis")) || (blocked && !olg_schema_attr(ts, "block_size")))
    return false;
  const olg_node *nd = olg__src_node(cx);
  for (uint32_t i = 0; i < nd->n_attrs; i++)
    if (!olg_schema_attr(ts, nd->attrs[i].name)) return false;
  return true;
}

/* p (the scale or zero point, of element type its own) broadcast against x of rank r along
 * axis a: per-tensor as it is, per-axis [D] -> [D, 1...], blocked repeated by b along a. */
static olg_status broadcast_param(olg_lower *cx, olg_value p, olg_value x, int32_t r, int64_t a,
                                  int64_t block, olg_value *out) {
  int32_t pr = olg__rank(cx, p);
  if (block > 0) {
    int64_t xd[OLG_MAX_RANK], pd[OLG_MAX_RANK];
    int32_t xr, prr;
    if (!olg__static_shape(cx, x, xd, &xr) || !olg__static_shape(cx, p, pd, &prr) || prr != xr)
      return olg_lower_unsupported(cx, "blocked quantization of an input or scale whose shape is "
                                       "not known at export time", 21);
    if (pd[a] * block < xd[a] || (pd[a] - 1) * block >= xd[a])
      return olg_lower_error(cx, OLG_ERR_INVALID_MODEL, "blocked quantization: the scale's size "
                                                        "along axis is not ceil(D / block_size)");
    int64_t big[OLG_MAX_RANK + 1], flat[OLG_MAX_RANK];
    for (int32_t i = 0, k = 0; i < xr; i++) {
      big[k++] = pd[i];
      if (i == a) big[k++] = block;
      flat[i] = i == a ? pd[i] * block : pd[i];
    }
    olg_value u, shape;
    int64_t ax = a + 1;
    OLG_TRY(olg__emit_unsqueeze(cx, p, &ax, 1, &u));
    OLG_TRY(olg__const_i64s(cx, big, (size_t)xr + 1, &shape));
    OLG_TRY(olg__emit_expand(cx, u, shape, &u));
    OLG_TRY(olg__emit_reshape_static(cx, u, flat, (size_t)xr, &u));
    if (flat[a] == xd[a]) return *out = u, OLG_OK;
    int64_t zero = 0;
    return olg__emit_slice(cx, u, &zero, &xd[a], &a, NULL, 1, out);
  }
  int64_t n = pr == 1 ? olg__dim(cx, p, 0) : 1;
  if (pr <= 0 || n == 1 || r - 1 - a <= 0) return *out = p, OLG_OK;
  int64_t axes[OLG_MAX_RANK];
  for (int32_t i = 0; i < r - 1 - a; i++) axes[i] = i + 1;
  return olg__emit_unsqueeze(cx, p, axes, (size_t)(r - 1 - a), out);
}

/* What both ops read: x, scale, the zero point (OLG_NO_VALUE: none), the axis (normalized by
 * decomposable), the block size, and whether the scale is per-axis or blocked. */
typedef struct qdq {
  olg_value x, scale, zp;
  int32_t rank;
  int64_t axis, block;
  bool per_axis, blocked;
} qdq;

static olg_status read_qdq(olg_lower *cx, qdq *q) {
  OLG_TRY(olg_lower_arg_value(cx, 0, &q->x));
  OLG_TRY(olg_lower_arg_value(cx, 1, &q->scale));
  OLG_TRY(olg__arg_value_or_none(cx, 2, &q->zp));
  q->rank = olg__rank(cx, q->x);
  q->axis = olg__src_attr_int(cx, "axis", 1);
  q->block = olg__src_attr_int(cx, "block_size", 0);
  int32_t sr = olg__rank(cx, q->scale);
  int64_t sn = sr == 1 ? olg__dim(cx, q->scale, 0) : sr == 0 ? 1 : -1;
  q->blocked = q->block > 0;
  q->per_axis = !q->blocked && sr >= 1 && sn != 1;
  return OLG_OK;
}

/* What the computed form needs of the node (the pass-through takes everything its version does). */
static olg_status decomposable(olg_lower *cx, qdq *q) {
  if (q->per_axis || q->blocked) {
    if (q->rank < 0) return olg_lower_unsupported(cx, "per-axis quantization of an input of unknown rank", 13);
    if (q->axis < 0) q->axis += q->rank;
    if (q->axis < 0 || q->axis >= q->rank)
      return olg_lower_error(cx, OLG_ERR_INVALID_MODEL, "quantization axis out of range");
  }
  if (q->block < 0) return olg_lower_error(cx, OLG_ERR_INVALID_MODEL, "block_size must be >= 0");
  olg_dtype st = olg__dtype(cx, q->scale);
  if (st != OLG_FLOAT) /* float16, bfloat16 scales: from 19, where the op is passed through */
    return olg__unsupportedf(cx, olg__lowest_opset_taking(olg_lower_node_op(cx), 1, st),
                             "%s with a %s scale", olg_lower_node_op(cx), olg_dtype_name(st));
  return OLG_OK;
}

/* Reads the node; passes it through (*passed) where the target's version takes it, else checks
 * that the computed form can express it. */
static olg_status begin_qdq(olg_lower *cx, olg_node_id src, void *ud, qdq *q, bool *passed) {
  OLG_TRY(read_qdq(cx, q));
  *passed = target_takes_node(cx, olg_lower_node_op(cx), q->per_axis, q->blocked);
  if (*passed) return olg__sym_onnx_passthrough(cx, src, ud);
  return decomposable(cx, q);
}

olg_status olg__sym_onnx_dequantize_linear(olg_lower *cx, olg_node_id src, void *ud) {
  qdq q;
  olg_value y, zf = OLG_NO_VALUE, s;
  bool passed;
  olg_status st = begin_qdq(cx, src, ud, &q, &passed);
  if (st || passed) return st;
  olg_dtype t = olg__dtype(cx, q.x);
  if (t != OLG_INT8 && t != OLG_UINT8 && t != OLG_INT16 && t != OLG_UINT16 && t != OLG_INT32)
    return olg__unsupportedf(cx, olg__lowest_opset_taking("DequantizeLinear", 0, t),
                             "DequantizeLinear of %s", olg_dtype_name(t));
  OLG_TRY(olg_lower_decompose(cx, "DequantizeLinear as (x - zero_point) * scale",
                              q.blocked ? 21 : q.per_axis ? 13 : 10));
  OLG_TRY(broadcast_param(cx, q.scale, q.x, q.rank, q.axis, q.block, &s));
  if (q.zp != OLG_NO_VALUE) OLG_TRY(broadcast_param(cx, q.zp, q.x, q.rank, q.axis, q.block, &zf));
  if (t == OLG_INT32) { /* the difference in int32, as the kernels take it */
    if (zf != OLG_NO_VALUE) OLG_TRY(olg__emit2(cx, "Sub", q.x, zf, &y));
    else y = q.x;
    OLG_TRY(olg__emit_cast(cx, y, OLG_FLOAT, &y));
  } else {
    OLG_TRY(olg__emit_cast(cx, q.x, OLG_FLOAT, &y));
    if (zf != OLG_NO_VALUE) {
      OLG_TRY(olg__emit_cast(cx, zf, OLG_FLOAT, &zf));
      OLG_TRY(olg__emit2(cx, "Sub", y, zf, &y));
    }
  }
  OLG_TRY(olg__emit2(cx, "Mul", y, s, &y));
  return olg_lower_bind_output(cx, 0, y);
}

olg_status olg__sym_onnx_quantize_linear(olg_lower *cx, olg_node_id src, void *ud) {
  qdq q;
  olg_value y, zf = OLG_NO_VALUE, s;
  bool passed;
  olg_status st = begin_qdq(cx, src, ud, &q, &passed);
  if (st || passed) return st;
  olg_dtype t = q.zp != OLG_NO_VALUE ? olg__dtype(cx, q.zp)
              : (olg_dtype)olg__src_attr_int(cx, "output_dtype", OLG_UINT8);
  if (t == OLG_UNDEFINED) t = OLG_UINT8;
  double lo, hi;
  switch (t) {
  case OLG_UINT8: lo = 0, hi = 255; break;
  case OLG_INT8: lo = -128, hi = 127; break;
  case OLG_UINT16: lo = 0, hi = 65535; break;
  case OLG_INT16: lo = -32768, hi = 32767; break;
  default:
    return olg__unsupportedf(cx, olg__lowest_opset_taking("QuantizeLinear", 2, t),
                             "QuantizeLinear to %s", olg_dtype_name(t));
  }
  if (olg__dtype(cx, q.x) != OLG_FLOAT)
    return olg__unsupportedf(cx, -1, "QuantizeLinear of %s below the version that has it",
                             olg_dtype_name(olg__dtype(cx, q.x)));
  OLG_TRY(olg_lower_decompose(cx, "QuantizeLinear as saturate(round(x / scale) + zero_point)",
                              q.blocked || olg_lower_src_attr_has(cx, "output_dtype") ? 21
                              : q.per_axis ? 13 : 10));
  OLG_TRY(broadcast_param(cx, q.scale, q.x, q.rank, q.axis, q.block, &s));
  OLG_TRY(olg__emit2(cx, "Div", q.x, s, &y));
  OLG_TRY(olg__emit_round(cx, y, &y)); /* half to even; emulated below Round-11 */
  if (q.zp != OLG_NO_VALUE) {
    OLG_TRY(broadcast_param(cx, q.zp, q.x, q.rank, q.axis, q.block, &zf));
    OLG_TRY(olg__emit_cast(cx, zf, OLG_FLOAT, &zf));
    OLG_TRY(olg__emit2(cx, "Add", y, zf, &y));
  }
  OLG_TRY(olg__emit_clip_f(cx, y, 1, lo, 1, hi, &y));
  OLG_TRY(olg__emit_cast(cx, y, t, &y));
  return olg_lower_bind_output(cx, 0, y);
}
