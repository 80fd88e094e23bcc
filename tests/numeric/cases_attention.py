"""Numeric cases of the attention family (symbolics/attention.c).

scaled_dot_product_attention has PyTorch 2.x's signature (query, key, value, attn_mask,
dropout_p, is_causal, scale, enable_gqa); torch 1.13 lacks it, so the reference is NumPy, with
PyTorch >= 2.5's semantics: a query row that sees no key gives zeros (its safe softmax).
Attention-23 from opset 23 where it applies; the MatMul/Softmax decomposition elsewhere.

_native_multi_head_attention is compared with torch 1.13's own op (batch first; mask True =
masked out, (B, S) key padding with mask_type 1, (B, H, L, S) with mask_type 2)."""
import numpy as np
import torch

from harness import Case, Dyn, Init

rng = np.random.default_rng(23)


def f32(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def sdpa_ref(q, k, v, mask=None, dropout_p=0.0, is_causal=False, scale=None, enable_gqa=False):
    assert dropout_p == 0.0
    q, k, v = (np.asarray(t, np.float64) for t in (q, k, v))
    if enable_gqa and q.shape[-3] != k.shape[-3]:
        rep = q.shape[-3] // k.shape[-3]
        k, v = np.repeat(k, rep, axis=-3), np.repeat(v, rep, axis=-3)
    L, S = q.shape[-2], k.shape[-2]
    sc = 1 / np.sqrt(q.shape[-1]) if scale is None else scale
    bias = np.zeros((L, S))
    if is_causal:
        bias = np.where(np.tril(np.ones((L, S), bool)), 0.0, -np.inf)
    if mask is not None:
        bias = bias + (np.where(mask, 0.0, -np.inf) if mask.dtype == bool else mask)
    s = (q @ np.swapaxes(k, -1, -2)) * sc + bias
    m = s.max(-1, keepdims=True)
    none = np.isneginf(m)
    e = np.exp(s - np.where(none, 0, m))
    p = np.where(none, 0, e / np.where(none, 1, e.sum(-1, keepdims=True)))
    return (p @ v).astype(np.float32)


def sdpa(*args, **kw):
    return Case("scaled_dot_product_attention", list(args), sdpa_ref, torch=False, **kw)


B, H, L, S, E = 2, 3, 4, 6, 5
q4, k4, v4 = f32(B, H, L, E), f32(B, H, S, E), f32(B, H, S, 7)
bmask = rng.random((L, S)) > 0.4
bmask[1, :] = False  # a query that sees no key
fmask = f32(B, 1, L, S)

CASES = [
    sdpa(q4, k4, v4),
    sdpa(q4, k4, v4, None, 0.0, False, 0.3),
    sdpa(q4, k4, v4, None, 0.0, True),                       # causal, L < S (top-left)
    sdpa(q4, k4[:, :, :L], v4[:, :, :L], None, 0.0, True),   # causal, square
    sdpa(q4, k4, v4, bmask),                                  # bool mask, a fully masked row
    sdpa(q4, k4, v4, fmask),                                  # float mask, added
    sdpa(q4, k4, v4, bmask, 0.0, True, 0.5),                  # both, and a scale
    sdpa(q4, k4, v4, rng.random((B, H, L, S)) > 0.3),         # a full 4-D mask
    # 3-D and 2-D inputs (a head axis added for Attention-23), a 3-D mask
    sdpa(f32(B, L, E), f32(B, S, E), f32(B, S, E), rng.random((B, L, S)) > 0.3),
    sdpa(f32(L, E), f32(S, E), f32(S, 3), None, 0.0, True),
    # 5-D inputs and a key/value batch broadcast: decomposed even at 23
    sdpa(f32(2, 2, 2, L, E), f32(2, 2, 2, S, E), f32(2, 2, 2, S, E)),
    sdpa(q4, k4[:1], v4[:1]),
    # grouped-query attention: 6 query heads over 2 key/value heads
    sdpa(f32(B, 6, L, E), f32(B, 2, S, E), f32(B, 2, S, E), None, 0.0, False, None, True),
    sdpa(f32(B, 6, L, E), f32(B, 2, S, E), f32(B, 2, S, E), bmask, 0.0, True, None, True),
    # sizes known at run time: the head size (1/sqrt(E) computed), the sequence lengths
    sdpa(Dyn(q4, [B, H, L, "E"]), Dyn(k4, [B, H, S, "E"]), v4),
    sdpa(Dyn(q4, ["B", H, "L", E]), Dyn(k4, ["B", H, "S", E]), Dyn(v4, ["B", H, "S", 7]),
         None, 0.0, True, min_opset=14),
]

# ---- _native_multi_head_attention (torch 1.13's own op is the reference) ----
mha = torch.ops.aten._native_multi_head_attention
Bm, T, Em, Hm = 2, 4, 6, 2
xq, xk, xv = f32(Bm, T, Em), f32(Bm, T, Em), f32(Bm, T, Em)
W, b, P, pb = f32(3 * Em, Em) * 0.5, f32(3 * Em), f32(Em, Em) * 0.5, f32(Em)
kpm = np.array([[False, False, True, False], [False, True, True, False]])
full = rng.random((Bm, Hm, T, T)) > 0.6
full[0, 1, 2, :] = True  # a fully masked row: NaN, as torch gives


def mha_out(*a):
    return mha(*a)[0]


CASES += [
    Case("_native_multi_head_attention",
         [xq, xk, xv, Em, Hm, Init(W), Init(b), Init(P), Init(pb), None, True, True, None], mha),
    Case("_native_multi_head_attention",
         [xq, xk, xv, Em, Hm, Init(W), Init(b), Init(P), Init(pb), None, True, False, None], mha),
    Case("_native_multi_head_attention",
         [xq, xk, xv, Em, Hm, W, b, P, pb, None, False, True, None], mha_out),
    Case("_native_multi_head_attention",
         [xq, xk, xv, Em, Hm, Init(W), Init(b), Init(P), Init(pb), kpm, True, False, 1], mha),
    Case("_native_multi_head_attention",
         [xq, xk, xv, Em, Hm, Init(W), Init(b), Init(P), Init(pb), full, True, True, 2], mha),
    Case("_native_multi_head_attention",
         [Dyn(xq, ["B", "T", Em]), Dyn(xk, ["B", "T", Em]), Dyn(xv, ["B", "T", Em]), 6, 3,
          Init(W), Init(b), Init(P), Init(pb), None, True, False, None], mha),
]

# ---- ONNX-domain Attention (23) legalized to every opset: passed through from 23, the same
# decomposition below (4-D, or 3-D with q_num_heads / kv_num_heads) ----


def onnx_attention_3d(hq, hk, **kw):
    def ref(q, k, v, *mask):
        B, T, _ = q.shape
        S = k.shape[1]
        q4 = q.reshape(B, T, hq, -1).transpose(0, 2, 1, 3)
        k4 = k.reshape(B, S, hk, -1).transpose(0, 2, 1, 3)
        v4 = v.reshape(B, S, hk, -1).transpose(0, 2, 1, 3)
        y = sdpa_ref(q4, k4, v4, mask[0] if mask else None, enable_gqa=True, **kw)
        return y.transpose(0, 2, 1, 3).reshape(B, T, -1)
    return ref


CASES += [
    Case("Attention", [q4, k4, v4, bmask], lambda q, k, v, m: sdpa_ref(q, k, v, m, is_causal=True),
         domain="", torch=False, attrs={"is_causal": 1}, source_opset=23),
    Case("Attention", [q4, k4, v4, fmask], lambda q, k, v, m: sdpa_ref(q, k, v, m, scale=0.25),
         domain="", torch=False, attrs={"scale": 0.25}, source_opset=23),
    Case("Attention", [f32(2, L, 4 * 3), f32(2, S, 2 * 3), f32(2, S, 2 * 5)],
         onnx_attention_3d(4, 2), domain="", torch=False,
         attrs={"q_num_heads": 4, "kv_num_heads": 2}, source_opset=23),
]
