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
 * size (the input's shape must then be known at export time).
 * int4/uint4 (21) below 21: an int4 initializer (weights, zero points) is unpacked at export time
 * into int8/uint8 holding the same values; a 4-bit value computed inside the graph (QuantizeLinear
 * or Cast to int4) is carried as int8/uint8 holding the 4-bit value, which every op that takes
 * int4 reads the same. A 4-bit graph input or output has no type below 21: refused naming 21.
 * DequantizeLinear's float16 scale (19) below 19: computed in float (the product of an 8-bit
 * integer and a half is exact there) and rounded once to float16, as ONNX Runtime does. float8
 * types are not decomposed (they do not exist at the opsets concerned). */
#include <string.h>

#include "emit.h"
#include "emit_math.h"
#include "emit_src.h"
#include "../lib/lower.h"
#include "../lib/schema.h"
#include "symbolics.h"


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

static bool is_4bit(olg_dtype t) { return t == OLG_INT4 || t == OLG_UINT4; }

/* Why a type is refused: the float8 types do not exist before opset 19, so no model below it
 * can hold the quantized value. */
static const char *why_not(olg_dtype t) {
  bool f8 = (t >= OLG_FLOAT8E4M3FN && t <= OLG_FLOAT8E5M2FNUZ) || t == OLG_FLOAT8E8M0;
  return f8 ? " (the float8 types do not exist below opset 19)" : "";
}

/* The target's op takes v's type at input i (an unknown type is left to the pass-through). */
static bool takes_type(olg_lower *cx, const char *op, int i, olg_value v) {
  olg_dtype t = olg__dtype(cx, v);
  return v == OLG_NO_VALUE || t == OLG_UNDEFINED || olg__op_takes(cx, op, i, t);
}

/* v of int4/uint4 as int8/uint8 holding the same values: known contents (an initializer)
 * unpacked at export time, two values a byte, low nibble first. Other types: v itself. */
static olg_status unpack4(olg_lower *cx, olg_value v, olg_value *out) {
  olg_dtype t = v == OLG_NO_VALUE ? OLG_UNDEFINED : olg__dtype(cx, v);
  if (!is_4bit(t)) return *out = v, OLG_OK;
  const olg_tensor *k = olg__known(cx, v);
  if (!k)
    return olg__unsupportedf(cx, 21, "%s of a %s graph input (no 4-bit type below 21)",
                             olg_lower_node_op(cx), olg_dtype_name(t));
  size_t n = 1;
  for (int32_t i = 0; i < k->rank; i++) n *= (size_t)k->dims[i];
  if (k->nbytes < (n + 1) / 2)
    return olg_lower_error(cx, OLG_ERR_INVALID_MODEL, "a 4-bit tensor shorter than its shape");
  int8_t *q = olg__lower_alloc(cx, n ? n : 1);
  if (!q) return OLG_ERR_NOMEM;
  const uint8_t *b = k->data;
  for (size_t j = 0; j < n; j++) {
    int e = j & 1 ? b[j / 2] >> 4 : b[j / 2] & 15;
    q[j] = (int8_t)(t == OLG_INT4 && e >= 8 ? e - 16 : e);
  }
  return olg__const_tensor_kept(cx, t == OLG_INT4 ? OLG_INT8 : OLG_UINT8, k->rank, k->dims, q, n,
                                out);
}

/* A 4-bit output carried as int8/uint8 must reach only ops that read it as the value it holds
 * (DequantizeLinear, Cast): not a graph output, whose type would change, nor a CastLike or a
 * reshaping op, which would pass the carrier's type on. */
static olg_status carried_inside(olg_lower *cx, olg_dtype t) {
  static const char *const readers[] = {"DequantizeLinear", "Cast"};
  if (is_4bit(t) && !olg__src_output_read_only_by(cx, 0, readers, 2))
    return olg__unsupportedf(cx, 21, "%s to %s read by a graph output or by an op other than "
                             "DequantizeLinear and Cast (no 4-bit type below 21)",
                             olg_lower_node_op(cx), olg_dtype_name(t));
  return OLG_OK;
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
    /* ceil(D / block) without multiplying by block, which may be near INT64_MAX */
    if (pd[a] != xd[a] / block + (xd[a] % block != 0))
      return olg_lower_error(cx, OLG_ERR_INVALID_MODEL, "blocked quantization: the scale's size "
                                                        "along axis is not ceil(D / block_size)");
    /* a block past D is one block of D: the repeated scale is D long, not block long */
    if (block > xd[a] && xd[a] > 0) block = xd[a];
    if (pd[a] > INT64_MAX / block)
      return olg_lower_error(cx, OLG_ERR_LIMIT, "blocked quantization: the repeated scale passes int64");
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
static olg_status decomposable(olg_lower *cx, qdq *q, bool half_scale) {
  if (q->per_axis || q->blocked) {
    if (q->rank < 0) return olg_lower_unsupported(cx, "per-axis quantization of an input of unknown rank", 13);
    if (q->axis < 0) q->axis += q->rank;
    if (q->axis < 0 || q->axis >= q->rank)
      return olg_lower_error(cx, OLG_ERR_INVALID_MODEL, "quantization axis out of range");
  }
  if (q->block < 0) return olg_lower_error(cx, OLG_ERR_INVALID_MODEL, "block_size must be >= 0");
  olg_dtype st = olg__dtype(cx, q->scale);
  if (st != OLG_FLOAT && !(half_scale && st == OLG_FLOAT16)) /* from 19: passed through there */
    return olg__unsupportedf(cx, olg__lowest_opset_taking(olg_lower_node_op(cx), 1, st),
                             "%s with a %s scale", olg_lower_node_op(cx), olg_dtype_name(st));
  return OLG_OK;
}

/* Reads the node; passes it through (*passed) where the target's version takes it, else checks
 * that the computed form can express it. */
static bool target_takes(olg_lower *cx, const char *op, const qdq *q) {
  return target_takes_node(cx, op, q->per_axis, q->blocked) && takes_type(cx, op, 0, q->x) &&
         takes_type(cx, op, 1, q->scale) && takes_type(cx, op, 2, q->zp);
}

/* The node with its inputs in (4-bit ones unpacked) and its attributes (all int) as they are. */
static olg_status emit_native(olg_lower *cx, const qdq *q, olg_value *out) {
  const olg_node *nd = olg__src_node(cx);
  olg_node_id id;
  OLG_TRY(olg_lower_emit_begin(cx, NULL, nd->op, &id));
  OLG_TRY(olg_lower_emit_input(cx, id, q->x));
  OLG_TRY(olg_lower_emit_input(cx, id, q->scale));
  if (q->zp != OLG_NO_VALUE) OLG_TRY(olg_lower_emit_input(cx, id, q->zp));
  for (uint32_t i = 0; i < nd->n_attrs; i++)
    OLG_TRY(olg_lower_emit_attr_int(cx, id, nd->attrs[i].name, nd->attrs[i].i));
  return olg_lower_emit_end(cx, id, 1, out);
}

static bool int_attrs_only(olg_lower *cx) {
  const olg_node *nd = olg__src_node(cx);
  for (uint32_t i = 0; i < nd->n_attrs; i++)
    if (nd->attrs[i].type != OLG_ATTR_INT) return false;
  return true;
}

/* Reads the node; passes it through (*passed) where the target's version takes it, else checks
 * that the computed form can express it. DequantizeLinear of 4-bit initializers is emitted as it
 * is with them unpacked (*passed) where the target's version takes that. */
static olg_status begin_qdq(olg_lower *cx, olg_node_id src, void *ud, qdq *q, bool *passed) {
  const char *op = olg_lower_node_op(cx);
  bool dq = op[0] == 'D';
  OLG_TRY(read_qdq(cx, q));
  *passed = target_takes(cx, op, q);
  if (*passed) return olg__sym_onnx_passthrough(cx, src, ud);
  if (dq) OLG_TRY(unpack4(cx, q->x, &q->x));
  OLG_TRY(unpack4(cx, q->zp, &q->zp));
  if (dq && int_attrs_only(cx) && target_takes(cx, op, q)) {
    olg_value y;
    *passed = true;
    OLG_TRY(emit_native(cx, q, &y));
    return olg_lower_bind_output(cx, 0, y);
  }
  return decomposable(cx, q, dq);
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
                             "DequantizeLinear of %s%s", olg_dtype_name(t), why_not(t));
  OLG_TRY(olg_lower_decompose(cx, "DequantizeLinear as (x - zero_point) * scale",
                              q.blocked ? 21 : q.per_axis ? 13 : 10));
  OLG_TRY(broadcast_param(cx, q.scale, q.x, q.rank, q.axis, q.block, &s));
  olg_dtype out_t = olg__dtype(cx, s);
  OLG_TRY(olg__emit_cast(cx, s, OLG_FLOAT, &s)); /* a float16 scale: in float, rounded once */
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
  OLG_TRY(olg__emit_cast(cx, y, out_t, &y));
  return olg_lower_bind_output(cx, 0, y);
}

olg_status olg__sym_onnx_quantize_linear(olg_lower *cx, olg_node_id src, void *ud) {
  qdq q;
  olg_value y, zf = OLG_NO_VALUE, s;
  bool passed;
  olg_status st = begin_qdq(cx, src, ud, &q, &passed);
  if (st || passed) return st;
  olg_value zp_src;
  OLG_TRY(olg__arg_value_or_none(cx, 2, &zp_src)); /* its type before unpacking */
  olg_dtype t = zp_src != OLG_NO_VALUE ? olg__dtype(cx, zp_src)
              : (olg_dtype)olg__src_attr_int(cx, "output_dtype", OLG_UINT8);
  if (t == OLG_UNDEFINED) t = OLG_UINT8;
  OLG_TRY(carried_inside(cx, t));
  bool four = is_4bit(t);
  double lo, hi;
  switch (t) {
  case OLG_UINT4: lo = 0, hi = 15, t = OLG_UINT8; break;
  case OLG_INT4: lo = -8, hi = 7, t = OLG_INT8; break;
  case OLG_UINT8: lo = 0, hi = 255; break;
  case OLG_INT8: lo = -128, hi = 127; break;
  case OLG_UINT16: lo = 0, hi = 65535; break;
  case OLG_INT16: lo = -32768, hi = 32767; break;
  default:
    return olg__unsupportedf(cx, olg__lowest_opset_taking("QuantizeLinear", 2, t),
                             "QuantizeLinear to %s%s", olg_dtype_name(t), why_not(t));
  }
  if (olg__dtype(cx, q.x) != OLG_FLOAT)
    return olg__unsupportedf(cx, -1, "QuantizeLinear of %s below the version that has it",
                             olg_dtype_name(olg__dtype(cx, q.x)));
  OLG_TRY(olg_lower_decompose(cx, "QuantizeLinear as saturate(round(x / scale) + zero_point)",
                              q.blocked || four || olg_lower_src_attr_has(cx, "output_dtype") ? 21
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

/* x rounded half away from zero, as ONNX Runtime rounds a float cast to int4:
 * Floor(|x|) + (fraction >= 0.5), the sign restored. */
static olg_status round_half_away(olg_lower *cx, olg_value x, olg_value *out) {
  olg_value a, t, f, c, ge, neg, sign;
  OLG_TRY(olg__emit1(cx, "Abs", x, &a));
  OLG_TRY(olg__emit1(cx, "Floor", a, &t));
  OLG_TRY(olg__emit2(cx, "Sub", a, t, &f)); /* exact */
  OLG_TRY(olg__const_scalar(cx, OLG_FLOAT, 0.5, &c));
  OLG_TRY(olg__emit_compare(cx, OLG_CMP_GE, f, c, &ge));
  OLG_TRY(olg__emit_cast(cx, ge, OLG_FLOAT, &ge));
  OLG_TRY(olg__emit2(cx, "Add", t, ge, &t));
  OLG_TRY(olg__emit_is_negative(cx, x, &neg));
  OLG_TRY(olg__emit_cast(cx, neg, OLG_FLOAT, &neg));
  OLG_TRY(olg__const_scalar(cx, OLG_FLOAT, -2, &c));
  OLG_TRY(olg__emit2(cx, "Mul", neg, c, &sign));
  OLG_TRY(olg__const_scalar(cx, OLG_FLOAT, 1, &c));
  OLG_TRY(olg__emit2(cx, "Add", sign, c, &sign)); /* 1 - 2 [x < 0] */
  return olg__emit2(cx, "Mul", t, sign, out);
}

/* Cast from or to int4/uint4 below 21 (other Casts are passed through). From: the 4-bit value's
 * int8/uint8 carrier cast as it is. To: as ONNX Runtime casts (the spec leaves a float out of
 * range undefined), a float rounded half away from zero, then the low 4 bits kept (integers
 * wrap, as the spec has it), held in int8/uint8; in float, exact for the float16 and 8/16-bit
 * integer inputs taken here. */
olg_status olg__sym_onnx_cast_4bit(olg_lower *cx, olg_node_id src, void *ud) {
  olg_value x, y, c, w;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  olg_dtype to = (olg_dtype)olg__src_attr_int(cx, "to", 0), from = olg__dtype(cx, x);
  if (!is_4bit(to) && !is_4bit(from)) return olg__sym_onnx_passthrough(cx, src, ud);
  OLG_TRY(unpack4(cx, x, &x));
  if (!is_4bit(to)) {
    OLG_TRY(olg__emit_cast(cx, x, to, &y));
    return olg_lower_bind_output(cx, 0, y);
  }
  OLG_TRY(carried_inside(cx, to));
  from = olg__dtype(cx, x);
  bool real = from == OLG_FLOAT || from == OLG_FLOAT16;
  if (!real && from != OLG_INT8 && from != OLG_UINT8 && from != OLG_INT16 && from != OLG_UINT16 &&
      from != OLG_BOOL)
    return olg__unsupportedf(cx, 21, "Cast of %s to %s", olg_dtype_name(from), olg_dtype_name(to));
  OLG_TRY(olg_lower_decompose(cx, "Cast to a 4-bit type as int8/uint8 holding the value", 21));
  OLG_TRY(olg__emit_cast(cx, x, OLG_FLOAT, &y));
  if (real) OLG_TRY(round_half_away(cx, y, &y));
  w = y;
  if (to == OLG_INT4) { /* y - 16 floor((y + 8) / 16): into [-8, 8) */
    OLG_TRY(olg__const_scalar(cx, OLG_FLOAT, 8, &c));
    OLG_TRY(olg__emit2(cx, "Add", y, c, &w));
  }
  OLG_TRY(olg__const_scalar(cx, OLG_FLOAT, 0.0625, &c));
  OLG_TRY(olg__emit2(cx, "Mul", w, c, &w));
  OLG_TRY(olg__emit1(cx, "Floor", w, &w));
  OLG_TRY(olg__const_scalar(cx, OLG_FLOAT, 16, &c));
  OLG_TRY(olg__emit2(cx, "Mul", w, c, &w));
  OLG_TRY(olg__emit2(cx, "Sub", y, w, &y));
  OLG_TRY(olg__emit_cast(cx, y, to == OLG_INT4 ? OLG_INT8 : OLG_UINT8, &y));
  return olg_lower_bind_output(cx, 0, y);
}
