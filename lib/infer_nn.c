/* onnxlegal — inference rules: convolutions, pooling, normalizations, matrix products,
 * recurrent cells, attention, sampling and losses. */
#include <stdbool.h>
#include <math.h>
#include <string.h>

#include "infer_impl.h"

#define MAXR OLG_INFER_MAX_RANK

/* Spatial attributes of Conv/Pool-like ops for n spatial axes. */
typedef struct spatial {
  int n;
  int64_t k[MAXR], s[MAXR], d[MAXR], pb[MAXR], pe[MAXR], op[MAXR];
  bool k_known[MAXR];
  int auto_pad; /* 0 NOTSET, 1 SAME_UPPER, 2 SAME_LOWER, 3 VALID */
} spatial;

static olg_status read_ints(olg_icx *cx, const char *name, int64_t *dst, int n, int64_t def,
                            int mult) {
  const int64_t *p;
  size_t an;
  for (int i = 0; i < n * mult; i++) dst[i] = def;
  if (!olg__attr_ints(cx, name, &p, &an)) return OLG_OK;
  if (an == 0) return OLG_OK;
  if ((int)an != n * mult)
    return olg__fail(cx, "attribute '%s' has %zu entries; %d spatial axes need %d", name, an, n, n * mult);
  memcpy(dst, p, an * sizeof *p);
  return OLG_OK;
}

/* kernel_from_w: index of the weight input whose dims [2:] give the kernel, or -1. */
static olg_status spatial_attrs(olg_icx *cx, int n, int kernel_from_w, bool kernel_required,
                                spatial *sp) {
  olg_status st;
  sp->n = n;
  const int64_t *p;
  size_t an;
  for (int i = 0; i < n; i++) sp->k_known[i] = false;
  if (olg__attr_ints(cx, "kernel_shape", &p, &an)) {
    if ((int)an != n)
      return olg__fail(cx, "kernel_shape has %zu entries; the input has %d spatial axes", an, n);
    for (int i = 0; i < n; i++) {
      if (p[i] <= 0)
        return olg__fail(cx, "kernel_shape[%d] is %lld; kernel sizes must be > 0", i, (long long)p[i]);
      sp->k[i] = p[i];
      sp->k_known[i] = true;
    }
  } else if (kernel_from_w >= 0) {
    olg_ishape w;
    if (olg__in_shape(cx, kernel_from_w, &w) && w.rank == n + 2)
      for (int i = 0; i < n; i++) {
        sp->k[i] = w.d[i + 2].value;
        sp->k_known[i] = w.d[i + 2].value >= 0;
      }
  } else if (kernel_required) {
    return olg__fail(cx, "the required attribute kernel_shape is missing");
  }
  int64_t pads[2 * MAXR];
  if ((st = read_ints(cx, "strides", sp->s, n, 1, 1)) || (st = read_ints(cx, "dilations", sp->d, n, 1, 1)) ||
      (st = read_ints(cx, "pads", pads, n, 0, 2)) || (st = read_ints(cx, "output_padding", sp->op, n, 0, 1)))
    return st;
  for (int i = 0; i < n; i++) {
    sp->pb[i] = pads[i];
    sp->pe[i] = pads[i + n];
    if (sp->s[i] <= 0) return olg__fail(cx, "stride %d is %lld; strides must be > 0", i, (long long)sp->s[i]);
    if (sp->d[i] <= 0) return olg__fail(cx, "dilation %d is %lld; dilations must be > 0", i, (long long)sp->d[i]);
    if (sp->pb[i] < 0 || sp->pe[i] < 0) return olg__fail(cx, "pads must be >= 0");
  }
  char ap[32];
  olg__attr_s(cx, "auto_pad", "NOTSET", ap, sizeof ap);
  sp->auto_pad = strcmp(ap, "SAME_UPPER") == 0 ? 1 : strcmp(ap, "SAME_LOWER") == 0 ? 2
               : strcmp(ap, "VALID") == 0 ? 3 : 0;
  return OLG_OK;
}

/* Output size of one spatial axis of a sliding window (Conv, pooling). */
static olg_status window_out(olg_icx *cx, const spatial *sp, int i, olg_dim in, bool ceil_mode,
                             olg_dim *out) {
  if (in.value < 0 || (!sp->k_known[i] && sp->auto_pad != 1 && sp->auto_pad != 2)) {
    *out = olg__dunk();
    return OLG_OK;
  }
  int64_t x = in.value, s = sp->s[i];
  /* every step is checked: a hostile kernel, dilation, pad or stride near INT64_MAX leaves the
     dim unknown instead of overflowing */
  int64_t t, dk, pads, padded, o;
  if (sp->auto_pad == 1 || sp->auto_pad == 2) {
    *out = olg__add_i64(x, s - 1, &t) ? olg__dnum(t / s) : olg__dunk();
    return OLG_OK;
  }
  if (!olg__sub_i64(sp->k[i], 1, &t) || !olg__mul_i64(sp->d[i], t, &dk) || !olg__add_i64(dk, 1, &dk) ||
      !olg__add_i64(sp->pb[i], sp->pe[i], &pads) ||
      !olg__add_i64(x, sp->auto_pad == 3 ? 0 : pads, &padded)) {
    *out = olg__dunk();
    return OLG_OK;
  }
  if (padded < dk)
    return olg__fail(cx, "spatial axis %d: the input (%lld, padded %lld) is smaller than the window (%lld)",
                     i, (long long)x, (long long)padded, (long long)dk);
  /* padded >= dk here, and s > 0: padded - dk and the quotients cannot overflow */
  o = (padded - dk) / s + 1;
  if (ceil_mode && (padded - dk) % s != 0) o++;
  /* a window that would start in the end padding is dropped (x + pb <= padded: no overflow;
     a start past INT64_MAX is past it too) */
  int64_t start;
  if (ceil_mode && (!olg__mul_i64(o - 1, s, &start) || start >= x + (sp->auto_pad == 3 ? 0 : sp->pb[i])))
    o--;
  *out = olg__dnum(o);
  return OLG_OK;
}

static olg_status conv_like(olg_icx *cx, int xi, int wi, olg_dtype dt) {
  olg_ishape x, w, out;
  bool hx = olg__in_shape(cx, xi, &x), hw = olg__in_shape(cx, wi, &w);
  if (!hx) {
    if (hw && w.rank >= 3 && olg__shape_rank(&out, w.rank)) {
      out.d[1] = w.d[0];
      return olg__set_out(cx, 0, dt, &out);
    }
    return olg__set_out(cx, 0, dt, NULL);
  }
  if (x.rank < 3) return olg__fail(cx, "input must be [N, C, spatial...] (rank >= 3), not rank %d", (int)x.rank);
  int n = x.rank - 2;
  if (hw && w.rank != x.rank)
    return olg__fail(cx, "weight has rank %d, the input rank %d: they must be equal", (int)w.rank, (int)x.rank);
  int64_t group = olg__attr_i(cx, "group", 1);
  if (group <= 0) return olg__fail(cx, "group must be > 0, not %lld", (long long)group);
  int64_t wc;
  if (hw && x.d[1].value >= 0 && w.d[1].value >= 0 &&
      (!olg__mul_i64(w.d[1].value, group, &wc) || x.d[1].value != wc))
    return olg__fail(cx, "the input has %lld channels but the weight expects W dim 1 (%lld) x group (%lld)",
                     (long long)x.d[1].value, (long long)w.d[1].value, (long long)group);
  spatial sp;
  olg_status st = spatial_attrs(cx, n, wi, false, &sp);
  if (st) return st;
  out.rank = x.rank;
  out.d[0] = x.d[0];
  out.d[1] = hw ? w.d[0] : olg__dunk();
  for (int i = 0; i < n; i++)
    if ((st = window_out(cx, &sp, i, x.d[i + 2], false, &out.d[i + 2]))) return st;
  return olg__set_out(cx, 0, dt, &out);
}

OLG_INFER_RULE(olg__inf_conv) { return conv_like(cx, 0, 1, olg__in_dtype(cx, 0)); }
OLG_INFER_RULE(olg__inf_conv_integer) { return conv_like(cx, 0, 1, OLG_INT32); }
OLG_INFER_RULE(olg__inf_deform_conv) { return conv_like(cx, 0, 1, olg__in_dtype(cx, 0)); }

OLG_INFER_RULE(olg__inf_qlinear_conv) {
  olg_dtype dt = olg__in_dtype(cx, 7);
  if (!dt) dt = olg__in_dtype(cx, 0);
  return conv_like(cx, 0, 3, dt);
}

OLG_INFER_RULE(olg__inf_conv_transpose) {
  olg_ishape x, w, out;
  olg_dtype dt = olg__in_dtype(cx, 0);
  bool hx = olg__in_shape(cx, 0, &x), hw = olg__in_shape(cx, 1, &w);
  if (!hx) return olg__set_out(cx, 0, dt, NULL);
  if (x.rank < 3) return olg__fail(cx, "input must be [N, C, spatial...] (rank >= 3), not rank %d", (int)x.rank);
  int n = x.rank - 2;
  int64_t group = olg__attr_i(cx, "group", 1);
  if (hw && w.rank != x.rank)
    return olg__fail(cx, "weight has rank %d, the input rank %d: they must be equal", (int)w.rank, (int)x.rank);
  if (hw && x.d[1].value >= 0 && w.d[0].value >= 0 && x.d[1].value != w.d[0].value)
    return olg__fail(cx, "the input has %lld channels but the weight's dim 0 is %lld", (long long)x.d[1].value, (long long)w.d[0].value);
  spatial sp;
  olg_status st = spatial_attrs(cx, n, 1, false, &sp);
  if (st) return st;
  out.rank = x.rank;
  out.d[0] = x.d[0];
  out.d[1] = hw ? olg__dim_mul(w.d[1], olg__dnum(group)) : olg__dunk();
  const int64_t *os;
  size_t on;
  if (olg__attr_ints(cx, "output_shape", &os, &on)) {
    if ((int)on != n && (int)on != n + 2)
      return olg__fail(cx, "output_shape has %zu entries; it needs %d (spatial) or %d", on, n, n + 2);
    const int64_t *sp_out = (int)on == n ? os : os + 2;
    for (int i = 0; i < n; i++) out.d[i + 2] = olg__dnum(sp_out[i]);
    return olg__set_out(cx, 0, dt, &out);
  }
  for (int i = 0; i < n; i++) {
    olg_dim in = x.d[i + 2];
    if (in.value < 0 || !sp.k_known[i]) { out.d[i + 2] = olg__dunk(); continue; }
    int64_t o, t, pads = 0;
    if (sp.auto_pad == 1 || sp.auto_pad == 2) {
      out.d[i + 2] = olg__mul_i64(in.value, sp.s[i], &o) ? olg__dnum(o) : olg__dunk();
      continue;
    }
    /* s * (in - 1) + output_padding + (k - 1) * d + 1 - pads, every step checked: on overflow
       the dim is unknown */
    if ((sp.auto_pad != 3 && !olg__add_i64(sp.pb[i], sp.pe[i], &pads)) ||
        !olg__mul_i64(sp.s[i], in.value - 1, &o) || !olg__add_i64(o, sp.op[i], &o) ||
        !olg__sub_i64(sp.k[i], 1, &t) || !olg__mul_i64(t, sp.d[i], &t) || !olg__add_i64(o, t, &o) ||
        !olg__add_i64(o, 1, &o) || !olg__sub_i64(o, pads, &o)) {
      out.d[i + 2] = olg__dunk();
      continue;
    }
    if (o < 0) return olg__fail(cx, "spatial axis %d would have a negative size (%lld)", i, (long long)o);
    out.d[i + 2] = olg__dnum(o);
  }
  return olg__set_out(cx, 0, dt, &out);
}

OLG_INFER_RULE(olg__inf_pool) {
  olg_ishape x, out;
  olg_dtype dt = olg__in_dtype(cx, 0);
  olg_status st;
  if (!olg__in_shape(cx, 0, &x)) {
    if ((st = olg__set_out(cx, 0, dt, NULL))) return st;
    return olg__set_out(cx, 1, OLG_INT64, NULL);
  }
  if (x.rank < 3) return olg__fail(cx, "input must be [N, C, spatial...] (rank >= 3), not rank %d", (int)x.rank);
  int n = x.rank - 2;
  spatial sp;
  if ((st = spatial_attrs(cx, n, -1, true, &sp))) return st;
  bool ceil_mode = olg__attr_i(cx, "ceil_mode", 0) != 0;
  out.rank = x.rank;
  out.d[0] = x.d[0];
  out.d[1] = x.d[1];
  for (int i = 0; i < n; i++)
    if ((st = window_out(cx, &sp, i, x.d[i + 2], ceil_mode, &out.d[i + 2]))) return st;
  if ((st = olg__set_out(cx, 0, dt, &out))) return st;
  return olg__set_out(cx, 1, OLG_INT64, &out); /* MaxPool's Indices */
}

OLG_INFER_RULE(olg__inf_global_pool) {
  olg_ishape x;
  olg_dtype dt = olg__in_dtype(cx, 0);
  if (!olg__in_shape(cx, 0, &x)) return olg__set_out(cx, 0, dt, NULL);
  if (x.rank < 2) return olg__fail(cx, "input must be [N, C, spatial...], not rank %d", (int)x.rank);
  for (int32_t k = 2; k < x.rank; k++) x.d[k] = olg__dnum(1);
  return olg__set_out(cx, 0, dt, &x);
}

OLG_INFER_RULE(olg__inf_max_unpool) {
  olg_ishape x, out;
  olg_dtype dt = olg__in_dtype(cx, 0);
  if (!olg__in_shape(cx, 0, &x)) return olg__set_out(cx, 0, dt, NULL);
  if (x.rank < 3) return olg__fail(cx, "input must be [N, C, spatial...], not rank %d", (int)x.rank);
  int64_t os[MAXR];
  size_t on;
  if (olg__nin(cx) > 2 && olg__in(cx, 2)) {
    olg_ishape o;
    if (olg__in_ints(cx, 2, os, MAXR, &on) && olg__shape_rank(&o, (int64_t)on)) {
      for (size_t k = 0; k < on; k++) o.d[k] = olg__dnum(os[k]);
      return olg__set_out(cx, 0, dt, &o);
    }
    olg__shape_rank(&o, x.rank);
    return olg__set_out(cx, 0, dt, &o);
  }
  int n = x.rank - 2;
  spatial sp;
  olg_status st = spatial_attrs(cx, n, -1, true, &sp);
  if (st) return st;
  out.rank = x.rank;
  out.d[0] = x.d[0];
  out.d[1] = x.d[1];
  for (int i = 0; i < n; i++) {
    olg_dim in = x.d[i + 2];
    int64_t o;
    bool ok = in.value >= 0 && olg__mul_i64(in.value - 1, sp.s[i], &o) && olg__add_i64(o, sp.k[i], &o) &&
              olg__sub_i64(o, sp.pb[i], &o) && olg__sub_i64(o, sp.pe[i], &o) && o >= 0;
    out.d[i + 2] = ok ? olg__dnum(o) : olg__dunk(); /* unknown on overflow */
  }
  return olg__set_out(cx, 0, dt, &out);
}

OLG_INFER_RULE(olg__inf_roi_pool) {
  olg_ishape x, r, out;
  olg_dtype dt = olg__in_dtype(cx, 0);
  const int64_t *p;
  size_t n;
  olg__shape_rank(&out, 4);
  if (olg__in_shape(cx, 0, &x) && x.rank == 4) out.d[1] = x.d[1];
  if (olg__in_shape(cx, 1, &r) && r.rank == 2) out.d[0] = r.d[0];
  if (olg__attr_ints(cx, "pooled_shape", &p, &n) && n == 2) {
    out.d[2] = olg__dnum(p[0]);
    out.d[3] = olg__dnum(p[1]);
  }
  return olg__set_out(cx, 0, dt, &out);
}

OLG_INFER_RULE(olg__inf_roi_align) {
  olg_ishape x, r, out;
  olg_dtype dt = olg__in_dtype(cx, 0);
  olg__shape_rank(&out, 4);
  if (olg__in_shape(cx, 0, &x)) {
    if (x.rank != 4) return olg__fail(cx, "X must be 4-D [N,C,H,W], not rank %d", (int)x.rank);
    out.d[1] = x.d[1];
  }
  if (olg__in_shape(cx, 1, &r)) { /* rois [num_rois, 4]: a dim 0 to read only then */
    if (r.rank != 2) return olg__fail(cx, "rois must be 2-D [num_rois, 4], not rank %d", (int)r.rank);
    out.d[0] = r.d[0];
  }
  out.d[2] = olg__dnum(olg__attr_i(cx, "output_height", 1));
  out.d[3] = olg__dnum(olg__attr_i(cx, "output_width", 1));
  return olg__set_out(cx, 0, dt, &out);
}

OLG_INFER_RULE(olg__inf_batchnorm) {
  olg_ishape x, c;
  olg_dtype dt = olg__in_dtype(cx, 0);
  bool hx = olg__in_shape(cx, 0, &x);
  olg_status st = olg__set_out(cx, 0, dt, hx ? &x : NULL);
  if (st) return st;
  olg__shape_rank(&c, 1);
  if (hx && x.rank >= 2) c.d[0] = x.d[1];
  else if (olg__in_shape(cx, 1, &c) && c.rank != 1) olg__shape_rank(&c, 1);
  /* running mean / var (training mode) and, before opset 14, saved mean / var */
  olg_dtype mdt = olg__in_dtype(cx, 3) ? olg__in_dtype(cx, 3) : dt;
  for (int i = 1; i < olg__nout(cx); i++)
    if ((st = olg__set_out(cx, i, mdt, &c))) return st;
  return OLG_OK;
}

OLG_INFER_RULE(olg__inf_layernorm) {
  olg_ishape x;
  olg_dtype dt = olg__in_dtype(cx, 0);
  bool hx = olg__in_shape(cx, 0, &x);
  olg_status st = olg__set_out(cx, 0, dt, hx ? &x : NULL);
  if (st || olg__nout(cx) < 2) return st;
  olg_dtype sdt = (olg_dtype)olg__attr_i(cx, "stash_type", 1);
  if (!hx) {
    if ((st = olg__set_out(cx, 1, sdt, NULL))) return st;
    return olg__set_out(cx, 2, sdt, NULL);
  }
  int32_t ax;
  if ((st = olg__axis(cx, olg__attr_i(cx, "axis", -1), x.rank, "axis", &ax))) return st;
  for (int32_t k = ax; k < x.rank; k++) x.d[k] = olg__dnum(1);
  if ((st = olg__set_out(cx, 1, sdt, &x))) return st;
  return olg__set_out(cx, 2, sdt, &x);
}

/* Output: input 0's type. */
static olg_status same_as_input0(olg_icx *cx) {
  olg_ishape x;
  olg__in_shape(cx, 0, &x);
  return olg__set_out(cx, 0, olg__in_dtype(cx, 0), &x);
}

/* GroupNormalization: scale and bias are 1-D, of num_groups values at version 18 and of C (the
 * channels, x's dim 1) from 21 (lib/meaning.c); num_groups divides C. ONNX Runtime refuses
 * any other length, so check does too where the lengths are known. */
OLG_INFER_RULE(olg__inf_groupnorm) {
  olg_ishape x, p;
  int64_t groups = olg__attr_i(cx, "num_groups", 0);
  int64_t c = olg__in_shape(cx, 0, &x) && x.rank >= 2 ? x.d[1].value : -1;
  if (groups <= 0) return olg__fail(cx, "num_groups is %lld; it must be >= 1", (long long)groups);
  if (c >= 0 && c % groups)
    return olg__fail(cx, "num_groups %lld does not divide the %lld channels of X (dim 1)",
                     (long long)groups, (long long)c);
  bool per_channel = cx->opset >= 21;
  int64_t want = per_channel ? c : groups;
  static const char *const name[] = {"scale", "bias"};
  for (int i = 1; i <= 2; i++) {
    if (!olg__in_shape(cx, i, &p)) continue;
    if (p.rank != 1)
      return olg__fail(cx, "%s has rank %d; it must be 1-D", name[i - 1], (int)p.rank);
    if (want >= 0 && p.d[0].value >= 0 && p.d[0].value != want)
      return olg__fail(cx, "%s has %lld values; GroupNormalization-%d takes one per %s (%lld)%s",
                       name[i - 1], (long long)p.d[0].value, per_channel ? 21 : 18,
                       per_channel ? "channel" : "group", (long long)want,
                       per_channel && p.d[0].value == groups
                           ? ": one per group is GroupNormalization-18's (opset 18-20)"
                           : "");
  }
  return same_as_input0(cx);
}

OLG_INFER_RULE(olg__inf_rms_norm) { return same_as_input0(cx); }
OLG_INFER_RULE(olg__inf_lrn) { return same_as_input0(cx); }
OLG_INFER_RULE(olg__inf_rotary) { return same_as_input0(cx); }

static olg_status matmul_shape(olg_icx *cx, int ai, int bi, olg_dtype dt) {
  olg_ishape a, b, out;
  if (!olg__in_shape(cx, ai, &a) || !olg__in_shape(cx, bi, &b)) return olg__set_out(cx, 0, dt, NULL);
  if (a.rank == 0 || b.rank == 0) return olg__fail(cx, "MatMul inputs must have rank >= 1 (scalars are not matrices)");
  bool a1 = a.rank == 1, b1 = b.rank == 1;
  /* 1-D operands are promoted to [1, K] and [K, 1] and the added dim removed afterwards */
  if (a1) { a.rank = 2; a.d[1] = a.d[0]; a.d[0] = olg__dnum(1); }
  if (b1) { b.rank = 2; b.d[1] = olg__dnum(1); }
  const olg_dim *ka = &a.d[a.rank - 1], *kb = &b.d[b.rank - 2];
  if (ka->value >= 0 && kb->value >= 0 && ka->value != kb->value)
    return olg__fail(cx, "inner dims differ: %lld (last of A) and %lld (second to last of B)", (long long)ka->value, (long long)kb->value);
  olg_ishape ba = a, bb = b;
  ba.rank -= 2;
  bb.rank -= 2;
  olg_status st = olg__broadcast(cx, &ba, &bb, &out);
  if (st) return st;
  if (!a1) out.d[out.rank++] = a.d[a.rank - 2];
  if (!b1) out.d[out.rank++] = b.d[b.rank - 1];
  return olg__set_out(cx, 0, dt, &out);
}

OLG_INFER_RULE(olg__inf_matmul) {
  olg_dtype dt = olg__in_dtype(cx, 0) ? olg__in_dtype(cx, 0) : olg__in_dtype(cx, 1);
  return matmul_shape(cx, 0, 1, dt);
}
OLG_INFER_RULE(olg__inf_matmul_integer) { return matmul_shape(cx, 0, 1, OLG_INT32); }
OLG_INFER_RULE(olg__inf_qlinear_matmul) {
  olg_dtype dt = olg__in_dtype(cx, 7);
  return matmul_shape(cx, 0, 3, dt ? dt : olg__in_dtype(cx, 0));
}

OLG_INFER_RULE(olg__inf_gemm) {
  olg_ishape a, b, out;
  olg_dtype dt = olg__in_dtype(cx, 0) ? olg__in_dtype(cx, 0) : olg__in_dtype(cx, 1);
  olg__shape_rank(&out, 2);
  bool ta = olg__attr_i(cx, "transA", 0) != 0, tb = olg__attr_i(cx, "transB", 0) != 0;
  bool ha = olg__in_shape(cx, 0, &a), hb = olg__in_shape(cx, 1, &b);
  if (ha && a.rank != 2) return olg__fail(cx, "A must be 2-D, not rank %d", (int)a.rank);
  if (hb && b.rank != 2) return olg__fail(cx, "B must be 2-D, not rank %d", (int)b.rank);
  if (ha) out.d[0] = a.d[ta ? 1 : 0];
  if (hb) out.d[1] = b.d[tb ? 0 : 1];
  if (ha && hb) {
    const olg_dim *k1 = &a.d[ta ? 0 : 1], *k2 = &b.d[tb ? 1 : 0];
    if (k1->value >= 0 && k2->value >= 0 && k1->value != k2->value)
      return olg__fail(cx, "inner dims differ: %lld (A%s) and %lld (B%s)", (long long)k1->value, ta ? "^T" : "", (long long)k2->value, tb ? "^T" : "");
  }
  olg_ishape c;
  if (olg__nin(cx) > 2 && olg__in_shape(cx, 2, &c) && cx->opset >= 7) {
    olg_ishape chk;
    olg_status st = olg__broadcast(cx, &out, &c, &chk);
    if (st) return st;
    /* C broadcasts to [M, N] (unidirectionally): what it fixes, it fixes */
    if (chk.rank == 2) {
      for (int k = 0; k < 2; k++)
        if (out.d[k].value < 0 && chk.d[k].value > 1) out.d[k] = chk.d[k];
    }
  }
  return olg__set_out(cx, 0, dt, &out);
}

/* How many ellipses ("...") the term p holds; -1 when a '.' stands outside one. */
static int einsum_ellipses(const char *p) {
  int n = 0;
  for (const char *q = p; *q; q++) {
    if (*q != '.') continue;
    if (q[1] != '.' || q[2] != '.') return -1;
    n++;
    q += 2;
  }
  return n;
}

OLG_INFER_RULE(olg__inf_einsum) {
  const olg_attr *eq = olg__attr(cx, "equation");
  olg_dtype dt = olg__in_dtype(cx, 0);
  if (!eq || eq->type != OLG_ATTR_STRING) return olg__set_out(cx, 0, dt, NULL);
  char e[512];
  size_t len = eq->s.n < sizeof e - 1 ? eq->s.n : sizeof e - 1, j = 0;
  for (size_t i = 0; i < len; i++)
    if (eq->s.p[i] != ' ') e[j++] = eq->s.p[i];
  e[j] = 0;
  olg_dim letter[128];
  bool seen[128] = {false};
  int count[128] = {0};
  olg_ishape ell;         /* the dims the ellipsis stands for (broadcast over the inputs) */
  ell.rank = 0;
  bool ell_known = true;
  char *arrow = strstr(e, "->");
  if (arrow) *arrow = 0;
  int nin = olg__nin(cx), term = 0;
  char *p = e;
  while (term < nin) {
    char *comma = strchr(p, ',');
    if (comma) *comma = 0;
    olg_ishape s;
    bool hs = olg__in_shape(cx, term, &s);
    int n_letters = 0, n_ell = einsum_ellipses(p);
    /* a second ellipsis (or a stray '.') would walk the dims past the input's rank */
    if (n_ell < 0 || n_ell > 1)
      return olg__fail(cx, "term %d of the equation has %s; a term holds at most one ellipsis (...)",
                       term, n_ell < 0 ? "a '.' outside an ellipsis" : "more than one ellipsis");
    bool has_ell = n_ell == 1;
    for (char *q = p; *q; q++)
      if (*q != '.') n_letters++;
    if (hs && !has_ell && n_letters != s.rank)
      return olg__fail(cx, "term %d of the equation has %d letters but input %d has rank %d", term, n_letters, term, (int)s.rank);
    int32_t ell_rank = hs ? s.rank - n_letters : -1;
    if (has_ell && hs && ell_rank < 0)
      return olg__fail(cx, "term %d of the equation needs rank >= %d, input %d has %d", term, n_letters, term, (int)s.rank);
    int32_t dim = 0;
    for (char *q = p; *q; q++) {
      if (*q == '.') {
        if (q[1] == '.' && q[2] == '.') {
          if (hs) {
            olg_ishape part;
            part.rank = ell_rank;
            for (int32_t k = 0; k < ell_rank; k++) part.d[k] = s.d[dim + k];
            olg_status st = olg__broadcast(cx, &ell, &part, &ell);
            if (st) return st;
            dim += ell_rank;
          } else {
            ell_known = false;
          }
          q += 2;
        }
        continue;
      }
      unsigned char c = (unsigned char)*q;
      if (c >= 128) return olg__set_out(cx, 0, dt, NULL);
      olg_dim d = hs ? s.d[dim] : olg__dunk();
      if (!seen[c]) {
        letter[c] = d;
        seen[c] = true;
      } else if (d.value >= 0 && letter[c].value >= 0 && d.value != letter[c].value &&
                 d.value != 1 && letter[c].value != 1) {
        return olg__fail(cx, "label '%c' has sizes %lld and %lld", c, (long long)letter[c].value, (long long)d.value);
      } else if (letter[c].value < 0 || letter[c].value == 1) {
        if (d.value >= 0 || d.param) letter[c] = d;
      }
      count[c]++;
      dim++;
    }
    term++;
    if (!comma) break;
    p = comma + 1;
  }
  olg_ishape out;
  out.rank = 0;
  if (arrow) {
    int n_ell = einsum_ellipses(arrow + 2);
    if (n_ell < 0 || n_ell > 1)
      return olg__fail(cx, "the output term of the equation has %s; it holds at most one ellipsis (...)",
                       n_ell < 0 ? "a '.' outside an ellipsis" : "more than one ellipsis");
    for (char *q = arrow + 2; *q; q++) {
      if (*q == '.') {
        if (!ell_known) return olg__set_out(cx, 0, dt, NULL);
        for (int32_t k = 0; k < ell.rank && out.rank < MAXR; k++) out.d[out.rank++] = ell.d[k];
        q += 2;
        continue;
      }
      unsigned char c = (unsigned char)*q;
      if (c >= 128 || !seen[c]) return olg__fail(cx, "output label '%c' does not appear in the inputs", *q);
      if (out.rank >= MAXR) return olg__set_out(cx, 0, dt, NULL);
      out.d[out.rank++] = letter[c];
    }
  } else {
    /* implicit output: the ellipsis dims, then the labels seen once, in alphabetical order */
    if (!ell_known) return olg__set_out(cx, 0, dt, NULL);
    for (int32_t k = 0; k < ell.rank; k++) out.d[out.rank++] = ell.d[k];
    for (int c = 0; c < 128; c++)
      if (seen[c] && count[c] == 1 && out.rank < MAXR) out.d[out.rank++] = letter[c];
  }
  return olg__set_out(cx, 0, dt, &out);
}

OLG_INFER_RULE(olg__inf_rnn) {
  olg_ishape x, y, yh;
  olg_dtype dt = olg__in_dtype(cx, 0);
  int64_t hidden = olg__attr_i(cx, "hidden_size", -1);
  char dir[32];
  olg__attr_s(cx, "direction", "forward", dir, sizeof dir);
  int64_t nd = strcmp(dir, "bidirectional") == 0 ? 2 : 1;
  bool layout = olg__attr_i(cx, "layout", 0) != 0;
  olg_dim seq = olg__dunk(), batch = olg__dunk();
  if (olg__in_shape(cx, 0, &x)) {
    if (x.rank != 3) return olg__fail(cx, "X must be 3-D, not rank %d", (int)x.rank);
    seq = x.d[layout ? 1 : 0];
    batch = x.d[layout ? 0 : 1];
  }
  olg_dim h = hidden >= 0 ? olg__dnum(hidden) : olg__dunk();
  if (hidden < 0) {
    olg_ishape r;
    if (olg__in_shape(cx, 2, &r) && r.rank == 3) h = r.d[2];
  }
  olg__shape_rank(&y, 4);
  olg__shape_rank(&yh, 3);
  if (layout) {
    y.d[0] = batch; y.d[1] = seq; y.d[2] = olg__dnum(nd); y.d[3] = h;
    yh.d[0] = batch; yh.d[1] = olg__dnum(nd); yh.d[2] = h;
  } else {
    y.d[0] = seq; y.d[1] = olg__dnum(nd); y.d[2] = batch; y.d[3] = h;
    yh.d[0] = olg__dnum(nd); yh.d[1] = batch; yh.d[2] = h;
  }
  olg_status st;
  if ((st = olg__set_out(cx, 0, dt, &y)) || (st = olg__set_out(cx, 1, dt, &yh)) ||
      (st = olg__set_out(cx, 2, dt, &yh)))
    return st;
  return OLG_OK;
}

OLG_INFER_RULE(olg__inf_attention) {
  olg_ishape q, k, v, pk, y, present_k, present_v, qk;
  olg_dtype dt = olg__in_dtype(cx, 0);
  bool hq = olg__in_shape(cx, 0, &q), hk = olg__in_shape(cx, 1, &k), hv = olg__in_shape(cx, 2, &v);
  olg_status st;
  if (!hq) return olg__set_out(cx, 0, dt, NULL);
  if (q.rank != 3 && q.rank != 4) return olg__fail(cx, "Q must be 3-D or 4-D, not rank %d", (int)q.rank);
  olg_dim batch = q.d[0], qheads, qseq, kvheads = olg__dunk(), kvseq = olg__dunk(), vhead = olg__dunk(), head = olg__dunk();
  int64_t qn = olg__attr_i(cx, "q_num_heads", -1), kvn = olg__attr_i(cx, "kv_num_heads", -1);
  if (q.rank == 4) {
    qheads = q.d[1];
    qseq = q.d[2];
    head = q.d[3];
    if (hk && k.rank == 4) { kvheads = k.d[1]; kvseq = k.d[2]; }
    if (hv && v.rank == 4) vhead = v.d[3];
  } else {
    if (qn <= 0 || kvn <= 0) return olg__fail(cx, "3-D inputs need the attributes q_num_heads and kv_num_heads");
    qheads = olg__dnum(qn);
    kvheads = olg__dnum(kvn);
    qseq = q.d[1];
    if (hk && k.rank == 3) kvseq = k.d[1];
    if (hv && v.rank == 3 && v.d[2].value >= 0) vhead = olg__dnum(v.d[2].value / kvn);
    if (q.d[2].value >= 0) head = olg__dnum(q.d[2].value / qn);
  }
  olg_dim total = kvseq;
  if (olg__nin(cx) > 4 && olg__in_shape(cx, 4, &pk) && pk.rank == 4) {
    int64_t t;
    total = kvseq.value >= 0 && pk.d[2].value >= 0 && olg__add_i64(kvseq.value, pk.d[2].value, &t)
          ? olg__dnum(t) : olg__dunk();
  }
  if (q.rank == 4) {
    olg__shape_rank(&y, 4);
    y.d[0] = batch; y.d[1] = qheads; y.d[2] = qseq; y.d[3] = vhead;
  } else {
    olg__shape_rank(&y, 3);
    y.d[0] = batch; y.d[1] = qseq; y.d[2] = olg__dim_mul(qheads, vhead);
  }
  olg__shape_rank(&present_k, 4);
  present_k.d[0] = batch; present_k.d[1] = kvheads; present_k.d[2] = total; present_k.d[3] = head;
  present_v = present_k;
  present_v.d[3] = vhead;
  olg__shape_rank(&qk, 4);
  qk.d[0] = batch; qk.d[1] = qheads; qk.d[2] = qseq; qk.d[3] = total;
  if ((st = olg__set_out(cx, 0, dt, &y)) || (st = olg__set_out(cx, 1, dt, &present_k)) ||
      (st = olg__set_out(cx, 2, olg__in_dtype(cx, 2), &present_v)) || (st = olg__set_out(cx, 3, dt, &qk)))
    return st;
  return OLG_OK;
}

OLG_INFER_RULE(olg__inf_grid_sample) {
  olg_ishape x, g, out;
  olg_dtype dt = olg__in_dtype(cx, 0);
  bool hx = olg__in_shape(cx, 0, &x), hg = olg__in_shape(cx, 1, &g);
  if (!hx && !hg) return olg__set_out(cx, 0, dt, NULL);
  int32_t r = hx ? x.rank : g.rank;
  if (r < 3) return olg__fail(cx, "X must be [N, C, spatial...], not rank %d", (int)r);
  if (hx && hg && g.rank != x.rank)
    return olg__fail(cx, "grid has rank %d, X rank %d: they must be equal", (int)g.rank, (int)x.rank);
  olg__shape_rank(&out, r);
  if (hx) { out.d[0] = x.d[0]; out.d[1] = x.d[1]; }
  if (hg) {
    if (out.d[0].value < 0) out.d[0] = g.d[0];
    for (int32_t k = 1; k < r - 1; k++) out.d[k + 1] = g.d[k];
  }
  return olg__set_out(cx, 0, dt, &out);
}

OLG_INFER_RULE(olg__inf_affine_grid) {
  olg_ishape th, out;
  olg_dtype dt = olg__in_dtype(cx, 0);
  olg_dim sz[5];
  size_t n;
  if (!olg__in_syms(cx, 1, sz, 5, &n) || (n != 4 && n != 5)) {
    if (olg__in_shape(cx, 0, &th) && th.rank == 3 && th.d[1].value >= 0 && th.d[1].value <= MAXR && olg__shape_rank(&out, th.d[1].value + 2)) {
      out.d[0] = th.d[0];
      out.d[out.rank - 1] = th.d[1];
      return olg__set_out(cx, 0, dt, &out);
    }
    return olg__set_out(cx, 0, dt, NULL);
  }
  olg__shape_rank(&out, (int64_t)n);
  out.d[0] = sz[0].param ? (olg_dim){OLG_DIM_UNKNOWN, sz[0].param, NULL} : sz[0].value >= 0 ? olg__dnum(sz[0].value) : olg__dunk();
  for (size_t k = 2; k < n; k++)
    out.d[k - 1] = sz[k].param ? (olg_dim){OLG_DIM_UNKNOWN, sz[k].param, NULL} : sz[k].value >= 0 ? olg__dnum(sz[k].value) : olg__dunk();
  out.d[n - 1] = olg__dnum((int64_t)n - 2);
  return olg__set_out(cx, 0, dt, &out);
}

OLG_INFER_RULE(olg__inf_nms) {
  olg_ishape out;
  olg__shape_rank(&out, 2);
  out.d[1] = olg__dnum(3);
  return olg__set_out(cx, 0, OLG_INT64, &out);
}

OLG_INFER_RULE(olg__inf_col2im) {
  olg_ishape x, out;
  olg_dtype dt = olg__in_dtype(cx, 0);
  int64_t img[MAXR], blk[MAXR];
  size_t ni, nb;
  bool hi = olg__in_ints(cx, 1, img, MAXR, &ni), hb = olg__in_ints(cx, 2, blk, MAXR, &nb);
  olg_ishape is;
  if (!hi) {
    if (olg__in_shape(cx, 1, &is) && is.rank == 1 && is.d[0].value >= 0 && is.d[0].value <= MAXR && olg__shape_rank(&out, is.d[0].value + 2))
      return olg__set_out(cx, 0, dt, &out);
    return olg__set_out(cx, 0, dt, NULL);
  }
  if (!olg__shape_rank(&out, (int64_t)ni + 2)) return olg__set_out(cx, 0, dt, NULL);
  if (olg__in_shape(cx, 0, &x) && x.rank == 3) {
    out.d[0] = x.d[0];
    if (hb && x.d[1].value >= 0) {
      int64_t p = 1;
      for (size_t k = 0; k < nb && p > 0; k++)
        if (__builtin_mul_overflow(p, blk[k], &p)) p = 0; /* no block size fits: dim 1 unknown */
      if (p > 0 && x.d[1].value % p == 0) out.d[1] = olg__dnum(x.d[1].value / p);
    }
  }
  for (size_t k = 0; k < ni; k++) out.d[k + 2] = olg__dnum(img[k]);
  return olg__set_out(cx, 0, dt, &out);
}

OLG_INFER_RULE(olg__inf_nll_loss) {
  olg_ishape t, scalar = {.rank = 0};
  olg_dtype dt = olg__in_dtype(cx, 0);
  char red[16];
  olg__attr_s(cx, "reduction", "mean", red, sizeof red);
  if (strcmp(red, "none") != 0) return olg__set_out(cx, 0, dt, &scalar);
  olg__in_shape(cx, 1, &t);
  return olg__set_out(cx, 0, dt, &t);
}

OLG_INFER_RULE(olg__inf_sce_loss) {
  olg_ishape t, x, scalar = {.rank = 0};
  olg_dtype dt = olg__in_dtype(cx, 0);
  char red[16];
  olg_status st;
  olg__attr_s(cx, "reduction", "mean", red, sizeof red);
  if (strcmp(red, "none") != 0) st = olg__set_out(cx, 0, dt, &scalar);
  else {
    olg__in_shape(cx, 1, &t);
    st = olg__set_out(cx, 0, dt, &t);
  }
  if (st) return st;
  olg__in_shape(cx, 0, &x);
  return olg__set_out(cx, 1, dt, &x);
}
