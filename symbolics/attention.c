/* onnxlegal — attention: scaled_dot_product_attention and _native_multi_head_attention.
 *
 *   scaled_dot_product_attention(Tensor query, Tensor key, Tensor value, Tensor? attn_mask=None,
 *       float dropout_p=0.0, bool is_causal=False, float? scale=None, bool enable_gqa=False)
 *     (PyTorch 2.x; 1.13 does not have it). attn_mask: bool (True takes part) or float (added);
 *     is_causal: query i sees keys j <= i (top-left); scale default 1/sqrt(E); a query row that
 *     sees no key gives zeros (PyTorch >= 2.5's safe softmax, and Attention-23's rule).
 *   _native_multi_head_attention(Tensor query, Tensor key, Tensor value, int embed_dim,
 *       int num_head, Tensor qkv_weight, Tensor qkv_bias, Tensor proj_weight, Tensor proj_bias,
 *       Tensor? mask=None, bool need_weights=True, bool average_attn_weights=True,
 *       int? mask_type=None) -> (Tensor, Tensor)
 *     (PyTorch 1.13, batch first). mask True = masked out: (B, S) key padding (mask_type 1) or
 *     (B, H, L, S) (mask_type 2), a non-bool mask meaning "non-zero"; a fully masked row is NaN,
 *     as PyTorch's softmax gives.
 *
 * scaled_dot_product_attention is Attention-23 where that op means the same (4-D inputs, or 3-D
 * and 2-D ones given a head axis; equal batch and head dims or grouped-query heads; a bool mask
 * or one of the inputs' dtype); elsewhere, and below opset 23, the exact decomposition
 * MatMul / Mul / Add (mask) / Softmax / MatMul, with the "safe" softmax
 * exp(x - max) / max(sum, tiny) when anything is masked, so that a row with no key is zero
 * rather than NaN. Both are built from ops that exist at opset 7 (a bool mask becomes a bias
 * with Where from 9, Log(Cast(mask)) below: log 1 = 0, log 0 = -inf, exactly). */
#include <float.h>
#include <math.h>
#include <string.h>

#include "emit.h"
#include "emit_src.h"
#include "symbolics.h"


/* The largest rotary_embedding_dim / 2 that the interleaved decomposition's index constants take */
#define OLG_MAX_ROTARY_HALF 4096

/* What the target offers attention, asked of its schema: Where (9), Trilu (14), Attention (23). */
typedef struct att_caps {
  bool where, trilu, attention;
} att_caps;

static att_caps target_caps(const olg_lower *cx) {
  return (att_caps){olg__target_has(cx, "Where"), olg__target_has(cx, "Trilu"),
                    olg__target_has(cx, "Attention")};
}

/* The additive bias of a bool mask: 0 where `keep` (the mask, or its negation when
 * true_means_masked), -inf elsewhere: Where, or Log of the mask as 0/1. */
static olg_status bool_mask_bias(olg_lower *cx, att_caps c, olg_value mask,
                                 bool true_means_masked, olg_dtype dt, olg_value *out) {
  if (olg__dtype(cx, mask) != OLG_BOOL) OLG_TRY(olg__emit_cast(cx, mask, OLG_BOOL, &mask));
  if (c.where) {
    olg_value zero, ninf, in[3];
    OLG_TRY(olg__const_scalar(cx, dt, 0.0, &zero));
    OLG_TRY(olg__const_scalar(cx, dt, -INFINITY, &ninf));
    in[0] = mask;
    in[1] = true_means_masked ? ninf : zero;
    in[2] = true_means_masked ? zero : ninf;
    return olg__emit(cx, "Where", in, 3, out);
  }
  olg_value keep = mask, f;
  if (true_means_masked) OLG_TRY(olg__emit1(cx, "Not", mask, &keep));
  OLG_TRY(olg__emit_cast(cx, keep, dt, &f));
  return olg__emit1(cx, "Log", f, out);
}

/* Softmax over the last axis that gives 0, not NaN, for a row of -inf only:
 * e = exp(x - max(rowmax, lowest)); e / max(rowsum, tiny). An ordinary row has rowsum >= 1, so
 * it is the usual softmax. */
static olg_status safe_softmax(olg_lower *cx, olg_value x, olg_dtype dt, olg_value *out) {
  const int64_t last = -1;
  int32_t rank = olg__rank(cx, x);
  int64_t ax = rank > 0 ? rank - 1 : last;
  olg_value m, e, s;
  OLG_TRY(olg__emit_reduce(cx, OLG_REDUCE_MAX, x, &ax, 1, 1, &m));
  OLG_TRY(olg__emit_clip_f(cx, m, 1, dt == OLG_DOUBLE ? -DBL_MAX : -FLT_MAX, 0, 0, &m));
  OLG_TRY(olg__emit2(cx, "Sub", x, m, &e));
  OLG_TRY(olg__emit1(cx, "Exp", e, &e));
  OLG_TRY(olg__emit_reduce(cx, OLG_REDUCE_SUM, e, &ax, 1, 1, &s));
  OLG_TRY(olg__emit_clip_f(cx, s, 1, dt == OLG_DOUBLE ? DBL_MIN : FLT_MIN, 0, 0, &s));
  return olg__emit2(cx, "Div", e, s, out);
}

/* x with its last two axes swapped. */
static olg_status transpose_last2(olg_lower *cx, olg_value x, olg_value *out) {
  int32_t r = olg__rank(cx, x);
  if (r < 2) return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "attention inputs need rank >= 2");
  int64_t perm[OLG_MAX_RANK];
  for (int32_t i = 0; i < r; i++) perm[i] = i;
  perm[r - 2] = r - 1;
  perm[r - 1] = r - 2;
  return olg__emit_transpose(cx, x, perm, (size_t)r, out);
}

typedef struct sdpa {
  olg_value q, k, v, mask; /* mask OLG_NO_VALUE when none */
  int causal, gqa;
  bool has_scale;
  double scale;
  olg_dtype dt;
  int32_t rq, rk, rv;
  att_caps caps;
  /* ONNX Attention's: the causal frontier j <= i + offset, offset the past keys' count (a
   * constant, or off_v a 0-D int64 of run-time value); nonpad: [B] valid keys per batch
   * (OLG_NO_VALUE: all); softcap (0: none); *qk gets the scores at qk_mode (when qk). */
  int64_t off;
  olg_value off_v, nonpad;
  double softcap;
  int qk_mode;
  olg_value *qk;
} sdpa;

/* [B, 1, L or 1, S] bool of nonpad's keys: j < nonpad[b], and with `causal` also
 * j <= i + nonpad[b] - L (Attention-24's external cache); L and S known. Compared in float. */
static olg_status nonpad_keep(olg_lower *cx, const sdpa *a, bool causal, olg_value *out) {
  int64_t L = olg__dim(cx, a->q, -2), S = olg__dim(cx, a->k, -2);
  if (L < 0 || S < 0 || (causal ? L * S : S) > ((int64_t)1 << 24))
    return olg_lower_unsupported(cx, "Attention's nonpad_kv_seqlen where the query and key "
                                     "lengths are not known at export time", 24);
  int64_t rows = causal ? L : 1;
  size_t n = (size_t)(rows * S);
  float *d = olg__lower_alloc(cx, (n ? n : 1) * sizeof *d);
  if (!d) return OLG_ERR_NOMEM;
  for (int64_t i = 0; i < rows; i++) /* key j is kept where d < threshold */
    for (int64_t j = 0; j < S; j++) d[i * S + j] = causal ? (float)(j - i) : (float)j;
  olg_value dv, len, thr, keep;
  int64_t dims[3] = {1, rows, S};
  OLG_TRY(olg__const_tensor_kept(cx, OLG_FLOAT, 3, dims, d, n * sizeof *d, &dv));
  OLG_TRY(olg__emit_cast(cx, a->nonpad, OLG_FLOAT, &len));
  OLG_TRY(olg__emit_unsqueeze(cx, len, (const int64_t[]){1, 2}, 2, &len)); /* [B, 1, 1] */
  thr = len;
  if (causal) { /* j - i < len - L + 1 */
    olg_value c;
    OLG_TRY(olg__const_scalar(cx, OLG_FLOAT, (double)(1 - L), &c));
    OLG_TRY(olg__emit2(cx, "Add", len, c, &thr));
  }
  OLG_TRY(olg__emit2(cx, "Less", dv, thr, &keep));
  return olg__emit_unsqueeze(cx, keep, (const int64_t[]){1}, 1, out);
}

/* The causal bias [L, S]: 0 where j <= i + offset, -inf above: a constant when L, S and the
 * offset are known, else Log(Trilu(ones, offset)) (Trilu is opset 14). */
static olg_status causal_bias(olg_lower *cx, const sdpa *a, olg_value *out) {
  int64_t L = olg__dim(cx, a->q, -2), S = olg__dim(cx, a->k, -2);
  if (L >= 0 && S >= 0 && a->off_v == OLG_NO_VALUE) {
    if (L * S > ((int64_t)1 << 26))
      return olg_lower_error(cx, OLG_ERR_LIMIT, "the causal mask is too large for a constant");
    size_t n = (size_t)(L * S), esz = a->dt == OLG_DOUBLE ? 8 : 4;
    void *buf = olg__lower_alloc(cx, (n ? n : 1) * esz);
    if (!buf) return OLG_ERR_NOMEM;
    for (int64_t i = 0; i < L; i++)
      for (int64_t j = 0; j < S; j++) {
        double v = j <= i + a->off ? 0.0 : -INFINITY;
        if (a->dt == OLG_DOUBLE) ((double *)buf)[i * S + j] = v;
        else ((float *)buf)[i * S + j] = (float)v;
      }
    int64_t dims[2] = {L, S};
    return olg__const_tensor_kept(cx, a->dt == OLG_DOUBLE ? OLG_DOUBLE : OLG_FLOAT, 2, dims, buf,
                             n * esz, out);
  }
  if (!a->caps.trilu)
    return olg_lower_unsupported(cx, "a causal mask whose sizes are not known at export time "
                                     "(Trilu)", 14);
  olg_value pieces[2], shape, ones, tri;
  OLG_TRY(olg__dim_tensor(cx, a->q, olg__rank(cx, a->q) - 2, &pieces[0]));
  OLG_TRY(olg__dim_tensor(cx, a->k, olg__rank(cx, a->k) - 2, &pieces[1]));
  OLG_TRY(olg__concat_ints(cx, pieces, 2, &shape));
  OLG_TRY(olg__emit_full(cx, shape, a->dt, 1.0, &ones));
  olg_node_id nd;
  OLG_TRY(olg_lower_emit_begin(cx, "", "Trilu", &nd));
  OLG_TRY(olg_lower_emit_input(cx, nd, ones));
  if (a->off_v != OLG_NO_VALUE || a->off) {
    olg_value k = a->off_v;
    if (k == OLG_NO_VALUE) OLG_TRY(olg__const_scalar(cx, OLG_INT64, (double)a->off, &k));
    OLG_TRY(olg_lower_emit_input(cx, nd, k));
  }
  OLG_TRY(olg_lower_emit_attr_int(cx, nd, "upper", 0));
  OLG_TRY(olg_lower_emit_end(cx, nd, 1, &tri));
  return olg__emit1(cx, "Log", tri, out);
}

/* Grouped-query attention: key/value heads repeated (repeat_interleave) to the query's heads. */
static olg_status repeat_kv_heads(olg_lower *cx, olg_value x, int64_t hq, olg_value *out) {
  int64_t d[OLG_MAX_RANK];
  int32_t r;
  if (!olg__static_shape(cx, x, d, &r) || r != 4)
    return olg_lower_unsupported(cx, "grouped-query attention (enable_gqa) of inputs whose shape "
                                     "is not static 4-D, below Attention-23", 23);
  int64_t hk = d[1];
  if (hk == hq) return *out = x, OLG_OK;
  if (hk <= 0 || hq % hk)
    return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "enable_gqa: the query heads are not a "
                                                    "multiple of the key/value heads");
  olg_value u, shape;
  OLG_TRY(olg__emit_unsqueeze(cx, x, (const int64_t[]){2}, 1, &u));
  int64_t big[5] = {d[0], hk, hq / hk, d[2], d[3]};
  OLG_TRY(olg__const_i64s(cx, big, 5, &shape));
  OLG_TRY(olg__emit_expand(cx, u, shape, &u));
  int64_t fin[4] = {d[0], hq, d[2], d[3]};
  return olg__emit_reshape_static(cx, u, fin, 4, out);
}

static olg_status sdpa_decomposed(olg_lower *cx, const sdpa *a, olg_value *y) {
  olg_value k = a->k, v = a->v, kt, s, sc;
  if (a->gqa) {
    int64_t hq = olg__dim(cx, a->q, 1);
    if (a->rq != 4 || hq < 0)
      return olg_lower_unsupported(cx, "grouped-query attention (enable_gqa) of inputs whose "
                                       "shape is not static 4-D, below Attention-23", 23);
    OLG_TRY(repeat_kv_heads(cx, k, hq, &k));
    OLG_TRY(repeat_kv_heads(cx, v, hq, &v));
  }
  OLG_TRY(transpose_last2(cx, k, &kt));
  OLG_TRY(olg__emit2(cx, "MatMul", a->q, kt, &s));
  if (a->has_scale) {
    OLG_TRY(olg__const_scalar(cx, a->dt, a->scale, &sc));
  } else {
    int64_t e = olg__dim(cx, a->q, -1);
    if (e > 0) {
      OLG_TRY(olg__const_scalar(cx, a->dt, 1.0 / sqrt((double)e), &sc));
    } else { /* 1 / sqrt(E) from the run-time shape */
      olg_value ed, one;
      OLG_TRY(olg__dim_tensor(cx, a->q, a->rq - 1, &ed));
      OLG_TRY(olg__emit_cast(cx, ed, a->dt, &ed));
      OLG_TRY(olg__emit1(cx, "Sqrt", ed, &ed));
      OLG_TRY(olg__const_scalar(cx, a->dt, 1.0, &one));
      OLG_TRY(olg__emit2(cx, "Div", one, ed, &sc));
    }
  }
  OLG_TRY(olg__emit2(cx, "Mul", s, sc, &s));
  if (a->qk && a->qk_mode == 0) *a->qk = s;
  if (a->softcap > 0) { /* softcap * tanh(s / softcap) */
    olg_value c;
    OLG_TRY(olg__const_scalar(cx, a->dt, a->softcap, &c));
    OLG_TRY(olg__emit2(cx, "Div", s, c, &s));
    OLG_TRY(olg__emit1(cx, "Tanh", s, &s));
    OLG_TRY(olg__emit2(cx, "Mul", s, c, &s));
  }
  if (a->qk && a->qk_mode == 1) *a->qk = s;
  bool masked = false;
  if (a->nonpad != OLG_NO_VALUE) { /* padding keys, and the external cache's causal frontier */
    olg_value keep, nb;
    OLG_TRY(nonpad_keep(cx, a, a->causal, &keep));
    OLG_TRY(bool_mask_bias(cx, a->caps, keep, false, a->dt, &nb));
    OLG_TRY(olg__emit2(cx, "Add", s, nb, &s));
    masked = true;
  } else if (a->causal) {
    olg_value cb;
    OLG_TRY(causal_bias(cx, a, &cb));
    OLG_TRY(olg__emit2(cx, "Add", s, cb, &s));
    masked = true;
  }
  if (a->mask != OLG_NO_VALUE) {
    olg_value mb = a->mask;
    if (olg__dtype(cx, mb) == OLG_BOOL) OLG_TRY(bool_mask_bias(cx, a->caps, mb, false, a->dt, &mb));
    else OLG_TRY(olg__emit_cast(cx, mb, a->dt, &mb));
    OLG_TRY(olg__emit2(cx, "Add", s, mb, &s));
    masked = true;
  }
  if (a->qk && a->qk_mode == 2) *a->qk = s;
  olg_value p;
  if (masked) OLG_TRY(safe_softmax(cx, s, a->dt, &p));
  else OLG_TRY(olg__emit_softmax(cx, OLG_SOFTMAX, s, -1, &p));
  if (a->qk && a->qk_mode == 3) *a->qk = p;
  return olg__emit2(cx, "MatMul", p, v, y);
}

/* Attention-23 applies when the inputs have (or can be given) its 4-D layout and their batch
 * and head dims agree (heads: equal, or grouped when enable_gqa). */
static bool sdpa_native_fits(olg_lower *cx, const sdpa *a) {
  if (a->rq != a->rk || a->rq != a->rv || a->rq < 2 || a->rq > 4) return false;
  if (a->mask != OLG_NO_VALUE) {
    olg_dtype mt = olg__dtype(cx, a->mask);
    if (mt != OLG_BOOL && mt != a->dt) return false;
    if (olg__rank(cx, a->mask) > a->rq) return false;
  }
  if (olg__dtype(cx, a->k) != a->dt || olg__dtype(cx, a->v) != a->dt) return false;
  for (int32_t i = 0; i < a->rq - 2; i++) {
    int64_t dq = olg__dim(cx, a->q, i), dk = olg__dim(cx, a->k, i), dv = olg__dim(cx, a->v, i);
    if (dk != dv) return false;
    bool head = a->rq == 4 && i == 1;
    if (head && a->gqa) {
      if (dq < 0 || dk <= 0 || dq % dk) return false;
    } else if (dq != dk) {
      return false; /* broadcast, or unknown and maybe different */
    }
    if (dq < 0 && !head) {
      const char *pq = NULL, *pk = NULL;
      olg_lower_value_dim(cx, a->q, i, &pq);
      olg_lower_value_dim(cx, a->k, i, &pk);
      if (!pq || !pk || strcmp(pq, pk) != 0) return false;
    }
  }
  return true;
}

static olg_status sdpa_native(olg_lower *cx, const sdpa *a, olg_value *y) {
  olg_value q = a->q, k = a->k, v = a->v, m = a->mask;
  int64_t add[2] = {0, 1};
  size_t n_add = (size_t)(4 - a->rq); /* 3-D: a head axis at 1; 2-D: batch and head */
  if (n_add) {
    const int64_t *axes = n_add == 1 ? &add[1] : add;
    OLG_TRY(olg__emit_unsqueeze(cx, q, axes, n_add, &q));
    OLG_TRY(olg__emit_unsqueeze(cx, k, axes, n_add, &k));
    OLG_TRY(olg__emit_unsqueeze(cx, v, axes, n_add, &v));
    if (m != OLG_NO_VALUE && n_add == 1 && olg__rank(cx, m) == 3)
      OLG_TRY(olg__emit_unsqueeze(cx, m, &add[1], 1, &m));
  }
  olg_node_id nd;
  OLG_TRY(olg_lower_emit_begin(cx, "", "Attention", &nd));
  OLG_TRY(olg_lower_emit_input(cx, nd, q));
  OLG_TRY(olg_lower_emit_input(cx, nd, k));
  OLG_TRY(olg_lower_emit_input(cx, nd, v));
  if (m != OLG_NO_VALUE) OLG_TRY(olg_lower_emit_input(cx, nd, m));
  if (a->causal) OLG_TRY(olg_lower_emit_attr_int(cx, nd, "is_causal", 1));
  if (a->has_scale) OLG_TRY(olg_lower_emit_attr_float(cx, nd, "scale", a->scale));
  olg_value out;
  OLG_TRY(olg_lower_emit_end(cx, nd, 1, &out));
  if (n_add) return olg__emit_squeeze(cx, out, n_add == 1 ? &add[1] : add, n_add, y);
  return *y = out, OLG_OK;
}

/* aten::scaled_dot_product_attention(Tensor query, Tensor key, Tensor value,
 *     Tensor? attn_mask=None, float dropout_p=0.0, bool is_causal=False, *, float? scale=None,
 *     bool enable_gqa=False) */
static olg_status sdpa_lower(olg_lower *cx, att_caps c) {
  sdpa a;
  memset(&a, 0, sizeof a);
  a.off_v = a.nonpad = OLG_NO_VALUE;
  a.caps = c;
  double dropout;
  olg_value y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &a.q));
  OLG_TRY(olg_lower_arg_value(cx, 1, &a.k));
  OLG_TRY(olg_lower_arg_value(cx, 2, &a.v));
  OLG_TRY(olg__arg_value_or_none(cx, 3, &a.mask));
  OLG_TRY(olg__arg_float_or(cx, 4, 0.0, &dropout));
  OLG_TRY(olg__arg_bool_or(cx, 5, 0, &a.causal));
  a.has_scale = !olg_lower_arg_is_none(cx, 6);
  if (a.has_scale) OLG_TRY(olg_lower_arg_float(cx, 6, &a.scale));
  OLG_TRY(olg__arg_bool_or(cx, 7, 0, &a.gqa));
  if (dropout != 0.0)
    return olg_lower_unsupported(cx, "scaled_dot_product_attention with dropout_p != 0 (inference "
                                     "graphs have no dropout)", -1);
  a.dt = olg__dtype(cx, a.q);
  if (!olg__is_float(a.dt))
    return olg_lower_error(cx, OLG_ERR_TYPE, "scaled_dot_product_attention: query must be "
                                             "floating-point");
  a.rq = olg__rank(cx, a.q);
  a.rk = olg__rank(cx, a.k);
  a.rv = olg__rank(cx, a.v);
  if (a.rq < 2 || a.rk < 2 || a.rv < 2)
    return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "scaled_dot_product_attention: query, key "
                                                    "and value need a known rank >= 2");
  if (a.mask != OLG_NO_VALUE && olg__dtype(cx, a.mask) != OLG_BOOL &&
      !olg__is_float(olg__dtype(cx, a.mask)))
    return olg_lower_error(cx, OLG_ERR_TYPE, "scaled_dot_product_attention: attn_mask must be "
                                             "bool or floating-point");
  if (c.attention && sdpa_native_fits(cx, &a)) {
    OLG_TRY(sdpa_native(cx, &a, &y));
  } else {
    if (c.attention)
      OLG_TRY(olg_lower_decompose(cx, "scaled_dot_product_attention with inputs Attention-23 does "
                                      "not take (ranks above 4, broadcast batch or head dims, a "
                                      "mask of another dtype)", -1));
    OLG_TRY(sdpa_decomposed(cx, &a, &y));
  }
  return olg_lower_bind_output(cx, 0, y);
}

/* Attention-23 where it fits; else decomposed, masks by Where (9) or Log below, a causal mask
 * of run-time size by Trilu (14) */
olg_status olg__sym_scaled_dot_product_attention(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return sdpa_lower(cx, target_caps(cx));
}

/* ---- _native_multi_head_attention ---- */

/* x [B, T, E] @ w[rows)^T + b[rows): the projection by rows [r0, r0 + n) of w and b. */
static olg_status project(olg_lower *cx, olg_value x, olg_value w, olg_value b, int64_t r0,
                          int64_t n, bool whole, olg_value *out) {
  olg_value ws = w, bs = b, wt, y;
  if (!whole) {
    int64_t s = r0, e = r0 + n, ax = 0;
    OLG_TRY(olg__emit_slice(cx, w, &s, &e, &ax, NULL, 1, &ws));
    OLG_TRY(olg__emit_slice(cx, b, &s, &e, &ax, NULL, 1, &bs));
  }
  OLG_TRY(olg__emit_transpose(cx, ws, (const int64_t[]){1, 0}, 2, &wt));
  OLG_TRY(olg__emit2(cx, "MatMul", x, wt, &y));
  return olg__emit2(cx, "Add", y, bs, out);
}

/* [B, T, E] -> [B, H, T, E / H] */
static olg_status split_heads(olg_lower *cx, olg_value x, int64_t h, int64_t dh, olg_value *out) {
  olg_value r;
  int64_t dims[4] = {0, 0, h, dh};
  OLG_TRY(olg__emit_reshape_static(cx, x, dims, 4, &r));
  return olg__emit_transpose(cx, r, (const int64_t[]){0, 2, 1, 3}, 4, out);
}

static olg_status mha_lower(olg_lower *cx, att_caps c) {
  olg_value q, k, v, w, b, pw, pb, mask, y;
  int64_t e, h;
  int need_weights, average;
  OLG_TRY(olg_lower_arg_value(cx, 0, &q));
  OLG_TRY(olg_lower_arg_value(cx, 1, &k));
  OLG_TRY(olg_lower_arg_value(cx, 2, &v));
  OLG_TRY(olg_lower_arg_int(cx, 3, &e));
  OLG_TRY(olg_lower_arg_int(cx, 4, &h));
  OLG_TRY(olg_lower_arg_value(cx, 5, &w));
  OLG_TRY(olg_lower_arg_value(cx, 6, &b));
  OLG_TRY(olg_lower_arg_value(cx, 7, &pw));
  OLG_TRY(olg_lower_arg_value(cx, 8, &pb));
  OLG_TRY(olg__arg_value_or_none(cx, 9, &mask));
  OLG_TRY(olg__arg_bool_or(cx, 10, 1, &need_weights));
  OLG_TRY(olg__arg_bool_or(cx, 11, 1, &average));
  olg_dtype dt = olg__dtype(cx, q);
  if (!olg__is_float(dt))
    return olg_lower_error(cx, OLG_ERR_TYPE, "_native_multi_head_attention: query must be "
                                             "floating-point");
  if (olg__rank(cx, q) != 3 || olg__rank(cx, k) != 3 || olg__rank(cx, v) != 3)
    return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "_native_multi_head_attention expects "
                                                    "batch-first 3-D query, key and value");
  if (h <= 0 || e <= 0 || e % h)
    return olg__errf(cx, OLG_ERR_INVALID_ARG, "_native_multi_head_attention: embed_dim %lld is "
                     "not a multiple of num_head %lld", (long long)e, (long long)h);
  int64_t dh = e / h;
  /* the projections: one MatMul with the packed weight when query, key and value are one tensor */
  olg_value qp, kp, vp;
  if (q == k && k == v) {
    olg_value qkv, parts[3];
    OLG_TRY(project(cx, q, w, b, 0, 3 * e, true, &qkv));
    OLG_TRY(olg__emit_split(cx, qkv, 2, (const int64_t[]){e, e, e}, 3, parts));
    qp = parts[0];
    kp = parts[1];
    vp = parts[2];
  } else {
    OLG_TRY(project(cx, q, w, b, 0, e, false, &qp));
    OLG_TRY(project(cx, k, w, b, e, e, false, &kp));
    OLG_TRY(project(cx, v, w, b, 2 * e, e, false, &vp));
  }
  olg_value qh, kh, vh, kt, s, sc, p, att;
  OLG_TRY(split_heads(cx, qp, h, dh, &qh));
  OLG_TRY(split_heads(cx, kp, h, dh, &kh));
  OLG_TRY(split_heads(cx, vp, h, dh, &vh));
  OLG_TRY(olg__const_scalar(cx, dt, 1.0 / sqrt((double)dh), &sc)); /* q scaled before q k^T */
  OLG_TRY(olg__emit2(cx, "Mul", qh, sc, &qh));
  OLG_TRY(transpose_last2(cx, kh, &kt));
  OLG_TRY(olg__emit2(cx, "MatMul", qh, kt, &s));
  if (mask != OLG_NO_VALUE) {
    olg_value mb;
    int32_t mr = olg__rank(cx, mask);
    if (mr == 2) { /* key padding [B, S] -> [B, 1, 1, S] */
      OLG_TRY(olg__emit_unsqueeze(cx, mask, (const int64_t[]){1, 2}, 2, &mask));
    } else if (mr == 3) { /* [B, L, S] -> [B, 1, L, S] */
      OLG_TRY(olg__emit_unsqueeze(cx, mask, (const int64_t[]){1}, 1, &mask));
    } else if (mr != 4) {
      return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "_native_multi_head_attention: the mask "
                                                      "must be [B, S], [B, L, S] or [B, H, L, S]");
    }
    OLG_TRY(bool_mask_bias(cx, c, mask, true, dt, &mb));
    OLG_TRY(olg__emit2(cx, "Add", s, mb, &s));
  }
  OLG_TRY(olg__emit_softmax(cx, OLG_SOFTMAX, s, -1, &p));
  OLG_TRY(olg__emit2(cx, "MatMul", p, vh, &att));
  OLG_TRY(olg__emit_transpose(cx, att, (const int64_t[]){0, 2, 1, 3}, 4, &att));
  OLG_TRY(olg__emit_reshape_static(cx, att, (const int64_t[]){0, 0, e}, 3, &att));
  OLG_TRY(project(cx, att, pw, pb, 0, e, true, &y));
  OLG_TRY(olg_lower_bind_output(cx, 0, y));
  if (olg_lower_output_count(cx) > 1 && olg_lower_output_used(cx, 1)) {
    if (!need_weights)
      return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "_native_multi_head_attention: the weights "
                                                      "output is used but need_weights is false");
    olg_value wts = p;
    if (average) {
      int64_t ax = 1;
      OLG_TRY(olg__emit_reduce(cx, OLG_REDUCE_MEAN, p, &ax, 1, 0, &wts));
    }
    OLG_TRY(olg_lower_bind_output(cx, 1, wts));
  }
  return OLG_OK;
}

olg_status olg__sym_native_multi_head_attention(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return mha_lower(cx, target_caps(cx));
}

/* ONNX Attention (23, 24) below 23: the same decomposition, for all it expresses: 4-D Q, K, V
 * (or 3-D ones with q_num_heads / kv_num_heads), a bool or float mask, is_causal (bottom-right:
 * offset by the past keys, or per batch by nonpad_kv_seqlen), scale, softcap, the KV cache
 * (past_key/past_value concatenated into present_key/present_value), nonpad_kv_seqlen (keys
 * from it on masked out) and qk_matmul_output at each of its modes. */
static olg_status onnx_attention_lower(olg_lower *cx, att_caps c) {
  sdpa a;
  memset(&a, 0, sizeof a);
  a.off_v = a.nonpad = OLG_NO_VALUE;
  a.caps = c;
  OLG_TRY(olg_lower_arg_value(cx, 0, &a.q));
  OLG_TRY(olg_lower_arg_value(cx, 1, &a.k));
  OLG_TRY(olg_lower_arg_value(cx, 2, &a.v));
  OLG_TRY(olg__arg_value_or_none(cx, 3, &a.mask));
  olg_value past_k = OLG_NO_VALUE, past_v = OLG_NO_VALUE, qk = OLG_NO_VALUE;
  OLG_TRY(olg__arg_value_or_none(cx, 4, &past_k));
  OLG_TRY(olg__arg_value_or_none(cx, 5, &past_v));
  OLG_TRY(olg__arg_value_or_none(cx, 6, &a.nonpad));
  if ((past_k == OLG_NO_VALUE) != (past_v == OLG_NO_VALUE))
    return olg_lower_error(cx, OLG_ERR_INVALID_MODEL, "Attention: past_key and past_value go "
                                                      "together");
  if (past_k != OLG_NO_VALUE && a.nonpad != OLG_NO_VALUE)
    return olg_lower_error(cx, OLG_ERR_INVALID_MODEL, "Attention: a past_key cache and "
                                                      "nonpad_kv_seqlen do not go together");
  a.softcap = olg__src_attr_float(cx, "softcap", 0.0);
  a.qk_mode = (int)olg__src_attr_int(cx, "qk_matmul_output_mode", 0);
  if (a.qk_mode < 0 || a.qk_mode > 3)
    return olg_lower_error(cx, OLG_ERR_INVALID_MODEL, "Attention: qk_matmul_output_mode must be "
                                                      "0 to 3");
  if (olg_lower_output_count(cx) > 3 && olg_lower_output_used(cx, 3)) a.qk = &qk;
  /* mode 2 shows the masked scores: ONNX Runtime writes the float lowest where a bool mask or the
   * causal frontier masks, the spec -inf; not decomposed until they agree */
  if (a.qk && a.qk_mode == 2 &&
      (olg__src_attr_int(cx, "is_causal", 0) || a.nonpad != OLG_NO_VALUE ||
       (a.mask != OLG_NO_VALUE && olg__dtype(cx, a.mask) == OLG_BOOL)))
    return olg_lower_unsupported(cx, "Attention's qk_matmul_output in mode 2 with a bool mask, "
                                     "is_causal or nonpad_kv_seqlen (ONNX Runtime and the spec "
                                     "disagree on the masked values)", 23);
  a.dt = olg__dtype(cx, a.q);
  if (!olg__is_float(a.dt))
    return olg_lower_error(cx, OLG_ERR_TYPE, "Attention: Q must be floating-point");
  if (olg_lower_src_attr_has(cx, "softmax_precision") &&
      olg__src_attr_int(cx, "softmax_precision", 0) != (int64_t)a.dt)
    return olg_lower_unsupported(cx, "Attention with a softmax_precision other than the inputs' "
                                     "dtype", 23);
  if (a.mask != OLG_NO_VALUE && olg__dtype(cx, a.mask) != OLG_BOOL &&
      olg__dtype(cx, a.mask) != a.dt)
    return olg_lower_error(cx, OLG_ERR_TYPE, "Attention: attn_mask must be bool or of Q's dtype");
  a.causal = olg__src_attr_int(cx, "is_causal", 0) != 0;
  a.has_scale = olg_lower_src_attr_has(cx, "scale");
  a.scale = olg__src_attr_float(cx, "scale", 0.0);
  int32_t r = olg__rank(cx, a.q);
  bool three_d = r == 3;
  if (three_d) { /* [B, T, H*E] -> [B, H, T, E] */
    int64_t hq = olg__src_attr_int(cx, "q_num_heads", 0), hk = olg__src_attr_int(cx, "kv_num_heads", 0);
    if (hq <= 0 || hk <= 0)
      return olg_lower_error(cx, OLG_ERR_INVALID_MODEL, "Attention: 3-D inputs need q_num_heads "
                                                        "and kv_num_heads");
    OLG_TRY(split_heads(cx, a.q, hq, -1, &a.q));
    OLG_TRY(split_heads(cx, a.k, hk, -1, &a.k));
    OLG_TRY(split_heads(cx, a.v, hk, -1, &a.v));
  } else if (r != 4 || olg__rank(cx, a.k) != 4 || olg__rank(cx, a.v) != 4) {
    return olg_lower_error(cx, OLG_ERR_INVALID_MODEL, "Attention: Q, K and V must be 3-D or 4-D");
  }
  if (past_k != OLG_NO_VALUE) { /* present = past ++ incoming, along the sequence */
    olg_value kk[2] = {past_k, a.k}, vv[2] = {past_v, a.v};
    OLG_TRY(olg__emit_concat(cx, kk, 2, 2, &a.k));
    OLG_TRY(olg__emit_concat(cx, vv, 2, 2, &a.v));
    a.off = olg__dim(cx, past_k, 2);
    if (a.off < 0) {
      OLG_TRY(olg__dim_tensor(cx, past_k, 2, &a.off_v));
      OLG_TRY(olg__emit_reshape_static(cx, a.off_v, NULL, 0, &a.off_v)); /* 0-D, as Trilu's k */
      a.off = 0;
    }
  }
  a.rq = a.rk = a.rv = 4;
  olg_value present_k = past_k != OLG_NO_VALUE ? a.k : OLG_NO_VALUE;
  olg_value present_v = past_k != OLG_NO_VALUE ? a.v : OLG_NO_VALUE;
  int64_t hq = olg__dim(cx, a.q, 1), hk = olg__dim(cx, a.k, 1);
  a.gqa = hq != hk;
  olg_value y;
  OLG_TRY(sdpa_decomposed(cx, &a, &y));
  if (three_d) { /* [B, H, T, Ev] -> [B, T, H*Ev] */
    OLG_TRY(olg__emit_transpose(cx, y, (const int64_t[]){0, 2, 1, 3}, 4, &y));
    OLG_TRY(olg__emit_reshape_static(cx, y, (const int64_t[]){0, 0, -1}, 3, &y));
  }
  /* present_key/value: the cache's K and V (the incoming ones without a past) */
  olg_value outs[4] = {y, present_k, present_v, qk};
  for (size_t i = 0; i < 4 && i < olg_lower_output_count(cx); i++) {
    if (i && !olg_lower_output_used(cx, i)) continue;
    if (outs[i] == OLG_NO_VALUE)
      return olg_lower_error(cx, OLG_ERR_INVALID_MODEL, "Attention: present_key and "
                                                        "present_value need past_key and past_value");
    OLG_TRY(olg_lower_bind_output(cx, i, outs[i]));
  }
  return OLG_OK;
}

olg_status olg__sym_onnx_attention_decomposed(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return onnx_attention_lower(cx, target_caps(cx));
}

/* From 23: passed through where the target's Attention takes the node's inputs (nonpad_kv_seqlen
 * is 24's), else decomposed */
olg_status olg__sym_onnx_attention(olg_lower *cx, olg_node_id src, void *ud) {
  size_t n = olg_lower_arg_count(cx);
  while (n > 0 && olg_lower_arg_is_none(cx, n - 1)) n--;
  const olg_schema *ts = olg__target_schema(cx, "Attention");
  if (ts && (ts->max_inputs == OLG_SCHEMA_UNBOUNDED || (int)n <= ts->max_inputs))
    return olg__sym_onnx_passthrough(cx, src, ud);
  OLG_TRY(olg_lower_decompose(cx, "Attention with inputs of a later version", 24));
  return onnx_attention_lower(cx, target_caps(cx));
}

/* ---- ONNX RotaryEmbedding (23) below 23 ----
 * The spec's algorithm in ops of opset 7: X as [B, S, H, D] (a 4-D input transposed, a 3-D one
 * reshaped by num_heads), the caches gathered by position_ids (or taken as [B, S, D'/2]) and
 * unsqueezed at the head axis; the rotated part split in halves (Slice) or in even and odd
 * elements (Gather), real = cos x1 - sin x2, imag = sin x1 + cos x2, put back (Concat, or
 * interleaved by a Concat on a new last axis and a Reshape), the unrotated rest appended. The
 * head size must be known at export time. */
static olg_status rotary_halves(olg_lower *cx, olg_value xr, int64_t half, bool interleaved,
                                olg_value *x1, olg_value *x2) {
  if (!interleaved) {
    OLG_TRY(olg__emit_slice(cx, xr, (const int64_t[]){0}, &half, (const int64_t[]){3}, NULL, 1, x1));
    int64_t end = 2 * half;
    return olg__emit_slice(cx, xr, &half, &end, (const int64_t[]){3}, NULL, 1, x2);
  }
  int64_t idx[2][OLG_MAX_ROTARY_HALF];
  for (int64_t i = 0; i < half; i++) {
    idx[0][i] = 2 * i;
    idx[1][i] = 2 * i + 1;
  }
  olg_value even, odd;
  OLG_TRY(olg__const_i64s(cx, idx[0], (size_t)half, &even));
  OLG_TRY(olg__const_i64s(cx, idx[1], (size_t)half, &odd));
  OLG_TRY(olg__emit_gather(cx, xr, even, 3, x1));
  return olg__emit_gather(cx, xr, odd, 3, x2);
}

static olg_status rotary_decomposed(olg_lower *cx) {
  olg_value x, cosc, sinc, pos = OLG_NO_VALUE, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg_lower_arg_value(cx, 1, &cosc));
  OLG_TRY(olg_lower_arg_value(cx, 2, &sinc));
  OLG_TRY(olg__arg_value_or_none(cx, 3, &pos));
  bool interleaved = olg__src_attr_int(cx, "interleaved", 0) != 0;
  int64_t heads = olg__src_attr_int(cx, "num_heads", 0);
  int64_t rot = olg__src_attr_int(cx, "rotary_embedding_dim", 0);
  int32_t r = olg__rank(cx, x);
  int64_t d;
  if (r == 4) {
    d = olg__dim(cx, x, 3);
    OLG_TRY(olg__emit_transpose(cx, x, (const int64_t[]){0, 2, 1, 3}, 4, &x));
  } else if (r == 3) {
    int64_t hidden = olg__dim(cx, x, 2);
    if (heads <= 0)
      return olg_lower_error(cx, OLG_ERR_INVALID_MODEL, "RotaryEmbedding: a 3-D input needs num_heads");
    if (hidden > 0 && hidden % heads)
      return olg__errf(cx, OLG_ERR_INVALID_MODEL, "RotaryEmbedding: hidden size %lld is not a "
                       "multiple of num_heads %lld", (long long)hidden, (long long)heads);
    d = hidden > 0 ? hidden / heads : -1;
    if (d > 0) OLG_TRY(olg__emit_reshape_static(cx, x, (const int64_t[]){0, 0, heads, d}, 4, &x));
  } else {
    return olg_lower_error(cx, OLG_ERR_INVALID_MODEL, "RotaryEmbedding: X must be 3-D or 4-D "
                                                      "(of known rank)");
  }
  if (d <= 0)
    return olg_lower_unsupported(cx, "RotaryEmbedding whose head size is not known at export "
                                     "time, below RotaryEmbedding-23", 23);
  if (rot == 0) rot = d;
  if (rot < 0 || rot > d || rot % 2 || rot / 2 > OLG_MAX_ROTARY_HALF)
    return olg__errf(cx, OLG_ERR_INVALID_MODEL, "RotaryEmbedding: rotary_embedding_dim %lld does "
                     "not fit a head size of %lld (even, at most the head size, at most %d)",
                     (long long)rot, (long long)d, 2 * OLG_MAX_ROTARY_HALF);
  OLG_TRY(olg_lower_decompose(cx, "RotaryEmbedding as Slice/Gather/Mul/Concat", 23));
  int64_t half = rot / 2;
  if (pos != OLG_NO_VALUE) { /* [P, D'/2] -> [B, S, D'/2] */
    OLG_TRY(olg__emit_gather(cx, cosc, pos, 0, &cosc));
    OLG_TRY(olg__emit_gather(cx, sinc, pos, 0, &sinc));
  }
  OLG_TRY(olg__emit_unsqueeze(cx, cosc, (const int64_t[]){2}, 1, &cosc));
  OLG_TRY(olg__emit_unsqueeze(cx, sinc, (const int64_t[]){2}, 1, &sinc));
  olg_value xr = x, xp = OLG_NO_VALUE, x1, x2, a, b, re, im;
  if (rot < d) {
    OLG_TRY(olg__emit_slice(cx, x, (const int64_t[]){0}, &rot, (const int64_t[]){3}, NULL, 1, &xr));
    OLG_TRY(olg__emit_slice(cx, x, &rot, &d, (const int64_t[]){3}, NULL, 1, &xp));
  }
  OLG_TRY(rotary_halves(cx, xr, half, interleaved, &x1, &x2));
  OLG_TRY(olg__emit2(cx, "Mul", cosc, x1, &a));
  OLG_TRY(olg__emit2(cx, "Mul", sinc, x2, &b));
  OLG_TRY(olg__emit2(cx, "Sub", a, b, &re));
  OLG_TRY(olg__emit2(cx, "Mul", sinc, x1, &a));
  OLG_TRY(olg__emit2(cx, "Mul", cosc, x2, &b));
  OLG_TRY(olg__emit2(cx, "Add", a, b, &im));
  if (interleaved) {
    olg_value pair[2];
    OLG_TRY(olg__emit_unsqueeze(cx, re, (const int64_t[]){4}, 1, &pair[0]));
    OLG_TRY(olg__emit_unsqueeze(cx, im, (const int64_t[]){4}, 1, &pair[1]));
    OLG_TRY(olg__emit_concat(cx, pair, 2, 4, &y));
    OLG_TRY(olg__emit_reshape_static(cx, y, (const int64_t[]){0, 0, 0, rot}, 4, &y));
  } else {
    olg_value pair[2] = {re, im};
    OLG_TRY(olg__emit_concat(cx, pair, 2, 3, &y));
  }
  if (xp != OLG_NO_VALUE) {
    olg_value parts[2] = {y, xp};
    OLG_TRY(olg__emit_concat(cx, parts, 2, 3, &y));
  }
  if (r == 4) OLG_TRY(olg__emit_transpose(cx, y, (const int64_t[]){0, 2, 1, 3}, 4, &y));
  else OLG_TRY(olg__emit_reshape_static(cx, y, (const int64_t[]){0, 0, -1}, 3, &y));
  return olg_lower_bind_output(cx, 0, y);
}

olg_status olg__sym_onnx_rotary_embedding_decomposed(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  return rotary_decomposed(cx);
}
