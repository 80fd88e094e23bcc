/* onnxlegal — ONNX-domain ops of opset 18 and later that have no aten counterpart, below their
 * opset: CenterCropPad (18) as Slice and Pad, TensorScatter (24, the KV-cache update) as
 * ScatterElements, CausalConvWithState (27) as Concat/Pad, a depthwise Conv and Slice,
 * LinearAttention (27) as its recurrence unrolled over the time steps. Each is registered at 7
 * and handed to the pass-through at its own opset (opsets/opsetNN.c). */
#include <math.h>
#include <string.h>

#include "emit.h"
#include "emit_act.h"
#include "emit_math.h"
#include "emit_nn.h"
#include "../lib/lower.h"
#include "symbolics.h"


/* CenterCropPad (18) below 18: on dims known at export time, a Slice of the centred window
 * (start rounded down) where the target is smaller, a zero Pad (the odd pixel at the end) where
 * it is larger. */
olg_status olg__sym_onnx_center_crop_pad(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, sv, y;
  const int64_t *want, *axes = NULL;
  size_t n, na = 0;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg_lower_arg_value(cx, 1, &sv));
  if (!olg__known_ints(cx, sv, &want, &n))
    return olg_lower_unsupported(cx, "CenterCropPad with a shape computed at run time", 18);
  int32_t r = olg__rank(cx, x);
  bool has_axes = olg__src_attr_ints(cx, "axes", &axes, &na);
  if (r < 0 || r > OLG_MAX_RANK)
    return olg_lower_unsupported(cx, "CenterCropPad of an input of unknown rank", 18);
  if ((has_axes ? na : (size_t)r) != n)
    return olg__errf(cx, OLG_ERR_INVALID_MODEL, "CenterCropPad: shape has %zu values for %zu axes",
                     n, has_axes ? na : (size_t)r);
  int64_t starts[OLG_MAX_RANK], ends[OLG_MAX_RANK], sax[OLG_MAX_RANK], pads[2 * OLG_MAX_RANK] = {0};
  size_t ns = 0;
  bool pad = false;
  for (size_t i = 0; i < n; i++) {
    int64_t a = has_axes ? axes[i] : (int64_t)i;
    if (a < 0) a += r;
    int64_t d = a >= 0 && a < r ? olg__dim(cx, x, (int32_t)a) : -1;
    if (a < 0 || a >= r || want[i] < 0)
      return olg_lower_error(cx, OLG_ERR_INVALID_MODEL, "CenterCropPad: an axis or a size is out of range");
    if (d < 0)
      return olg_lower_unsupported(cx, "CenterCropPad of a dim whose size is not known at export "
                                       "time", 18);
    if (want[i] < d) {
      starts[ns] = (d - want[i]) / 2;
      ends[ns] = starts[ns] + want[i];
      sax[ns++] = a;
    } else if (want[i] > d) {
      pads[a] = (want[i] - d) / 2;
      pads[a + r] = want[i] - d - pads[a];
      pad = true;
    }
  }
  OLG_TRY(olg_lower_decompose(cx, "CenterCropPad as Slice and Pad", 18));
  y = x;
  if (ns) OLG_TRY(olg__emit_slice(cx, y, starts, ends, sax, NULL, ns, &y));
  if (pad) OLG_TRY(olg__emit_pad(cx, y, "constant", pads, 2 * (size_t)r, 0.0, &y));
  if (!ns && !pad) OLG_TRY(olg__emit_identity(cx, x, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* TensorScatter (24) below 24: the update written at write_indices[b] + s (mod the cache's
 * length in circular mode) along the sequence axis is a ScatterElements (Scatter from 9) whose
 * indices are that position broadcast over the update's shape. The update's sequence length (and
 * in circular mode the cache's) must be known at export time. */
olg_status olg__sym_onnx_tensor_scatter(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value past, upd, w = OLG_NO_VALUE, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &past));
  OLG_TRY(olg_lower_arg_value(cx, 1, &upd));
  OLG_TRY(olg__arg_value_or_none(cx, 2, &w));
  int32_t r = olg__rank(cx, upd);
  int64_t axis = olg__src_attr_int(cx, "axis", -2);
  if (r < 2 || r > OLG_MAX_RANK)
    return olg_lower_unsupported(cx, "TensorScatter of an update whose rank is not known", 24);
  if (axis < 0) axis += r;
  if (axis <= 0 || axis >= r)
    return olg_lower_error(cx, OLG_ERR_INVALID_MODEL, "TensorScatter: axis must name a dim other "
                                                      "than the batch dim");
  const char *mode = olg__src_attr_string(cx, "mode", "linear");
  bool circular = strcmp(mode, "circular") == 0;
  if (!circular && strcmp(mode, "linear") != 0)
    return olg__errf(cx, OLG_ERR_INVALID_MODEL, "TensorScatter: unknown mode '%s'", mode);
  int64_t len = olg__dim(cx, upd, (int32_t)axis), max = olg__dim(cx, past, (int32_t)axis);
  if (len < 0 || (circular && max <= 0))
    return olg_lower_unsupported(cx, "TensorScatter whose update length (or, circular, cache "
                                     "length) is not known at export time", 24);
  if (len > ((int64_t)1 << 24))
    return olg_lower_error(cx, OLG_ERR_LIMIT, "TensorScatter: the update is too long");
  OLG_TRY(olg_lower_decompose(cx, "TensorScatter as ScatterElements", 24));
  int64_t *ar = olg__lower_alloc(cx, (size_t)(len ? len : 1) * sizeof *ar);
  if (!ar) return OLG_ERR_NOMEM;
  for (int64_t i = 0; i < len; i++) ar[i] = i;
  olg_value idx;
  OLG_TRY(olg__const_tensor_kept(cx, OLG_INT64, 2, (const int64_t[]){1, len}, ar,
                                 (size_t)len * sizeof *ar, &idx)); /* [1, L] */
  if (w != OLG_NO_VALUE) { /* [B, 1] + [1, L] */
    olg_value wb;
    OLG_TRY(olg__emit_cast(cx, w, OLG_INT64, &wb));
    OLG_TRY(olg__emit_unsqueeze(cx, wb, (const int64_t[]){1}, 1, &wb));
    OLG_TRY(olg__emit2(cx, "Add", wb, idx, &idx));
  }
  if (circular) { /* i - (i / M) * M: the indices are >= 0, so Div is a floor */
    olg_value m, q;
    OLG_TRY(olg__const_scalar(cx, OLG_INT64, (double)max, &m));
    OLG_TRY(olg__emit2(cx, "Div", idx, m, &q));
    OLG_TRY(olg__emit2(cx, "Mul", q, m, &q));
    OLG_TRY(olg__emit2(cx, "Sub", idx, q, &idx));
  }
  int64_t ax[OLG_MAX_RANK]; /* [B, L] to rank r: unsqueezed at every dim but 0 and axis */
  size_t na = 0;
  for (int64_t i = 1; i < r; i++)
    if (i != axis) ax[na++] = i;
  if (na) OLG_TRY(olg__emit_unsqueeze(cx, idx, ax, na, &idx));
  olg_value shape;
  OLG_TRY(olg__shape(cx, upd, &shape));
  OLG_TRY(olg__emit_expand(cx, idx, shape, &idx));
  OLG_TRY(olg__emit_scatter_elements(cx, past, idx, upd, axis, NULL, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* CausalConvWithState (27) below 27: the padded sequence P = Concat(past_state, input) along
 * the length (a zero Pad of k - 1 in front without past_state), y = Conv(P, weight, bias) with
 * group = channels and no padding (the weight is already (C, 1, k)), SiLU y * sigmoid(y) when
 * asked (in float for float16/bfloat16, as the spec's reference), and present_state the last
 * k - 1 positions of P. The channel count and the kernel size must be known at export time
 * (Conv's group and the pad are attributes or constants). */
olg_status olg__sym_onnx_causal_conv_with_state(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, w, b = OLG_NO_VALUE, past = OLG_NO_VALUE, p, y, st;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg_lower_arg_value(cx, 1, &w));
  OLG_TRY(olg__arg_value_or_none(cx, 2, &b));
  OLG_TRY(olg__arg_value_or_none(cx, 3, &past));
  const char *act = olg__src_attr_string(cx, "activation", "none");
  bool silu = strcmp(act, "silu") == 0 || strcmp(act, "swish") == 0;
  if (!silu && strcmp(act, "none") != 0)
    return olg__errf(cx, OLG_ERR_INVALID_MODEL, "CausalConvWithState: unknown activation '%s'", act);
  int32_t rx = olg__rank(cx, x), rw = olg__rank(cx, w);
  if ((rx >= 0 && rx != 3) || (rw >= 0 && rw != 3))
    return olg_lower_error(cx, OLG_ERR_INVALID_MODEL, "CausalConvWithState: input and weight must "
                                                      "be rank 3");
  int64_t c = olg__dim(cx, w, 0), k = olg__dim(cx, w, 2);
  if (c < 0) c = olg__dim(cx, x, 1);
  if (c <= 0 || k <= 0)
    return olg_lower_unsupported(cx, "CausalConvWithState whose channel count or kernel size is "
                                     "not known at export time", 27);
  OLG_TRY(olg_lower_decompose(cx, "CausalConvWithState as Concat, a depthwise Conv and Slice", 27));
  if (k == 1) p = x; /* nothing carried: past_state is (B, C, 0) */
  else if (past != OLG_NO_VALUE) OLG_TRY(olg__emit_concat(cx, (const olg_value[]){past, x}, 2, 2, &p));
  else OLG_TRY(olg__emit_pad(cx, x, "constant", (const int64_t[]){0, 0, k - 1, 0, 0, 0}, 6, 0.0, &p));
  olg_node_id nd;
  OLG_TRY(olg_lower_emit_begin(cx, "", "Conv", &nd));
  OLG_TRY(olg_lower_emit_input(cx, nd, p));
  OLG_TRY(olg_lower_emit_input(cx, nd, w));
  if (b != OLG_NO_VALUE) OLG_TRY(olg_lower_emit_input(cx, nd, b));
  OLG_TRY(olg_lower_emit_attr_ints(cx, nd, "kernel_shape", &k, 1));
  OLG_TRY(olg_lower_emit_attr_int(cx, nd, "group", c));
  OLG_TRY(olg_lower_emit_end(cx, nd, 1, &y));
  if (silu) {
    olg_dtype t = olg__dtype(cx, y);
    olg_value f;
    OLG_TRY(olg__emit_cast(cx, y, OLG_FLOAT, &f));
    OLG_TRY(olg__emit_swish(cx, f, 1.0, NULL, false, &f));
    OLG_TRY(t != OLG_UNDEFINED ? olg__emit_cast(cx, f, t, &y) : olg__emit_cast_like(cx, f, x, &y));
  }
  /* the last k - 1 positions (k == 1: none; a start past the end is clamped to it) */
  OLG_TRY(olg__emit_slice(cx, p, (const int64_t[]){k > 1 ? -(k - 1) : INT64_MAX},
                          (const int64_t[]){INT64_MAX}, (const int64_t[]){2}, NULL, 1, &st));
  return olg__bind_outputs(cx, (const olg_value[]){y, st}, 2);
}

/* LinearAttention (27) below 27: the recurrence, step by step over the T time steps (T known at
 * export time; unrolled), in the state's dtype (past_state's, else the query's). Per KV head,
 * S (d_k, d_v) is updated by
 *   linear:      S = S + k v^T
 *   gated:       S = exp(g) S + k v^T
 *   delta:       S = S + beta k (v - S^T k)^T
 *   gated_delta: S' = exp(g) S; S = S' + beta k (v - S'^T k)^T
 * (g per key dim or per head, beta per head or one) and the g = q_num_heads / kv_num_heads query
 * heads sharing it read o = scale q^T S. Without past_state the first step starts from zero (its
 * terms in S are left out). */
olg_status olg__sym_onnx_linear_attention(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value q, k, v, past = OLG_NO_VALUE, dec = OLG_NO_VALUE, beta = OLG_NO_VALUE;
  OLG_TRY(olg_lower_arg_value(cx, 0, &q));
  OLG_TRY(olg_lower_arg_value(cx, 1, &k));
  OLG_TRY(olg_lower_arg_value(cx, 2, &v));
  OLG_TRY(olg__arg_value_or_none(cx, 3, &past));
  OLG_TRY(olg__arg_value_or_none(cx, 4, &dec));
  OLG_TRY(olg__arg_value_or_none(cx, 5, &beta));
  int64_t hq = olg__src_attr_int(cx, "q_num_heads", 0), hkv = olg__src_attr_int(cx, "kv_num_heads", 0);
  if (hq <= 0 || hkv <= 0 || hq % hkv != 0)
    return olg_lower_error(cx, OLG_ERR_INVALID_MODEL, "LinearAttention: q_num_heads must be a "
                                                      "positive multiple of kv_num_heads");
  const char *rule = olg__src_attr_string(cx, "update_rule", "gated_delta");
  bool gated = strcmp(rule, "gated") == 0 || strcmp(rule, "gated_delta") == 0;
  bool delta = strcmp(rule, "delta") == 0 || strcmp(rule, "gated_delta") == 0;
  if (!gated && !delta && strcmp(rule, "linear") != 0)
    return olg__errf(cx, OLG_ERR_INVALID_MODEL, "LinearAttention: unknown update_rule '%s'", rule);
  if ((gated && dec == OLG_NO_VALUE) || (delta && beta == OLG_NO_VALUE))
    return olg__errf(cx, OLG_ERR_INVALID_MODEL, "LinearAttention: update_rule '%s' needs %s", rule,
                     gated && dec == OLG_NO_VALUE ? "decay" : "beta");
  if (olg__rank(cx, q) != 3 || olg__rank(cx, k) != 3 || olg__rank(cx, v) != 3)
    return olg_lower_unsupported(cx, "LinearAttention whose query, key or value is not known to be "
                                     "rank 3", 27);
  int64_t steps = olg__dim(cx, q, 1), dk = -1;
  if (olg__dim(cx, q, 2) >= 0) dk = olg__dim(cx, q, 2) / hq;
  else if (olg__dim(cx, k, 2) >= 0) dk = olg__dim(cx, k, 2) / hkv;
  double scale = olg__src_attr_float(cx, "scale", 0.0);
  if (steps < 0 || (scale == 0.0 && dk <= 0))
    return olg_lower_unsupported(cx, "LinearAttention whose sequence length (or, with the default "
                                     "scale, head size) is not known at export time", 27);
  if (steps == 0)
    return olg_lower_unsupported(cx, "LinearAttention of no time step", 27);
  if (steps > 1024)
    return olg_lower_unsupported(cx, "LinearAttention over more than 1024 time steps (unrolled)", 27);
  if (scale == 0.0) scale = 1.0 / sqrt((double)dk);
  OLG_TRY(olg_lower_decompose(cx, "LinearAttention as its recurrence unrolled over time", 27));
  olg_dtype ot = olg__dtype(cx, q), t = past != OLG_NO_VALUE ? olg__dtype(cx, past) : ot;
  if (t == OLG_UNDEFINED)
    return olg_lower_unsupported(cx, "LinearAttention whose dtype is not known", 27);
  olg_value Q, K, V, E = OLG_NO_VALUE, Bt = OLG_NO_VALUE, S = past;
  OLG_TRY(olg__emit_cast(cx, q, t, &Q));
  OLG_TRY(olg__emit_cast(cx, k, t, &K));
  OLG_TRY(olg__emit_cast(cx, v, t, &V));
  OLG_TRY(olg__emit_reshape_static(cx, Q, (const int64_t[]){0, 0, hkv, hq / hkv, -1}, 5, &Q));
  OLG_TRY(olg__emit_reshape_static(cx, K, (const int64_t[]){0, 0, hkv, -1}, 4, &K)); /* B,T,H,dk */
  OLG_TRY(olg__emit_reshape_static(cx, V, (const int64_t[]){0, 0, hkv, -1}, 4, &V)); /* B,T,H,dv */
  if (gated) { /* exp(g): (B, T, H, d_k or 1) */
    OLG_TRY(olg__emit_cast(cx, dec, t, &E));
    OLG_TRY(olg__emit_reshape_static(cx, E, (const int64_t[]){0, 0, hkv, -1}, 4, &E));
    OLG_TRY(olg__emit_math1(cx, "Exp", E, &E));
  }
  if (delta) OLG_TRY(olg__emit_cast(cx, beta, t, &Bt)); /* (B, T, H or 1) */
  olg_value *outs = olg__lower_alloc(cx, (size_t)steps * sizeof *outs);
  if (!outs) return OLG_ERR_NOMEM;
  for (int64_t i = 0; i < steps; i++) {
    olg_value idx, kt, kc, vr, upd, ot_;
    OLG_TRY(olg__const_i64(cx, i, &idx));
    OLG_TRY(olg__emit_gather(cx, K, idx, 1, &kt));                             /* B,H,dk */
    OLG_TRY(olg__emit_unsqueeze(cx, kt, (const int64_t[]){3}, 1, &kc));        /* B,H,dk,1 */
    OLG_TRY(olg__emit_gather(cx, V, idx, 1, &vr));
    OLG_TRY(olg__emit_unsqueeze(cx, vr, (const int64_t[]){2}, 1, &vr));        /* B,H,1,dv */
    if (gated && S != OLG_NO_VALUE) {
      olg_value et;
      OLG_TRY(olg__emit_gather(cx, E, idx, 1, &et));
      OLG_TRY(olg__emit_unsqueeze(cx, et, (const int64_t[]){3}, 1, &et));      /* B,H,dk|1,1 */
      OLG_TRY(olg__emit_math2(cx, "Mul", S, et, &S));
    }
    if (delta) {
      olg_value bt, u = vr;
      if (S != OLG_NO_VALUE) { /* v - S^T k, as the row k^T S */
        olg_value kr, ks;
        OLG_TRY(olg__emit_unsqueeze(cx, kt, (const int64_t[]){2}, 1, &kr));    /* B,H,1,dk */
        OLG_TRY(olg__emit_math2(cx, "MatMul", kr, S, &ks));
        OLG_TRY(olg__emit_math2(cx, "Sub", vr, ks, &u));
      }
      OLG_TRY(olg__emit_gather(cx, Bt, idx, 1, &bt));
      OLG_TRY(olg__emit_unsqueeze(cx, bt, (const int64_t[]){2, 3}, 2, &bt));   /* B,H|1,1,1 */
      OLG_TRY(olg__emit_math2(cx, "Mul", u, bt, &u));
      OLG_TRY(olg__emit_math2(cx, "Mul", kc, u, &upd));
    } else {
      OLG_TRY(olg__emit_math2(cx, "Mul", kc, vr, &upd));
    }
    if (S != OLG_NO_VALUE) OLG_TRY(olg__emit_math2(cx, "Add", S, upd, &S));
    else S = upd;
    OLG_TRY(olg__emit_gather(cx, Q, idx, 1, &ot_));                            /* B,H,g,dk */
    OLG_TRY(olg__emit_math2(cx, "MatMul", ot_, S, &ot_));                      /* B,H,g,dv */
    OLG_TRY(olg__emit_unsqueeze(cx, ot_, (const int64_t[]){1}, 1, &outs[i])); /* B,1,H,g,dv */
  }
  olg_value o, sc; /* (B, T, H, g, d_v) -> (B, T, H_q * d_v), scaled */
  OLG_TRY(olg__emit_concat(cx, outs, (size_t)steps, 1, &o));
  OLG_TRY(olg__emit_reshape_static(cx, o, (const int64_t[]){0, 0, -1}, 3, &o));
  OLG_TRY(olg__const_real(cx, t, 0, NULL, (const double[]){scale}, 1, &sc));
  OLG_TRY(olg__emit_math2(cx, "Mul", o, sc, &o));
  if (ot != OLG_UNDEFINED) OLG_TRY(olg__emit_cast(cx, o, ot, &o));
  return olg__bind_outputs(cx, (const olg_value[]){o, S}, 2);
}
