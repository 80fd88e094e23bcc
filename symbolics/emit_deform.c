/* onnxlegal — DeformConv (19) decomposed, for the opsets before it (emit_nn.h), 2-D.
 *
 * Every kernel tap of every output position samples the input at its place moved by the offset,
 * bilinearly: the four neighbours of the point, each weighted by its share and counted only
 * inside the input (the spec's zero outside; ORT's and torchvision's rule comes to the same),
 * read with one Gather on the flattened input per neighbour; the mask scales the sample. The
 * samples, laid out as im2col columns [N, group, C/group * K, oH*oW], meet the weights
 * [group, oC/group, C/group * K] in one MatMul. Ops of opset 7 only (Floor, Gather, MatMul,
 * Less/Greater on floats); shapes must be known, half types compute in float. */
#include <string.h>

#include "emit_math.h"
#include "emit_nn.h"

/* A constant int64 tensor */
static olg_status const_i64_nd(olg_lower *cx, int32_t rank, const int64_t *dims, const int64_t *v,
                               size_t n, olg_value *out) {
  return olg__const_tensor(cx, OLG_INT64, rank, dims, v, n * sizeof *v, out);
}

/* (in + pb + pe - (d * (k - 1) + 1)) / s + 1, the output size along an axis; 0 when a stride
 * or dilation is below 1, a pad negative, or a step overflows (the caller refuses it). */
static int64_t deform_out(int64_t in, int64_t pb, int64_t pe, int64_t d, int64_t k, int64_t s) {
  int64_t span, sum;
  if (s < 1 || d < 1 || pb < 0 || pe < 0 || __builtin_mul_overflow(d, k - 1, &span) ||
      __builtin_add_overflow(span, 1, &span) || __builtin_add_overflow(in, pb, &sum) ||
      __builtin_add_overflow(sum, pe, &sum) || sum < span)
    return 0;
  return (sum - span) / s + 1;
}

olg_status olg__emit_deform_conv(olg_lower *cx, olg_value x, olg_value w, olg_value off,
                                 olg_value b, olg_value mask, const olg_deform_conv *p,
                                 olg_value *out) {
  int64_t xd[OLG_MAX_RANK], wd[OLG_MAX_RANK];
  int32_t xr, wr;
  if (!olg__static_shape(cx, x, xd, &xr) || !olg__static_shape(cx, w, wd, &wr))
    return olg__unsupportedf(cx, 19, "DeformConv whose input or weight shape is not known");
  if (xr != 4 || wr != 4)
    return olg__unsupportedf(cx, 19, "DeformConv of %d spatial axes (the decomposition takes 2)",
                             xr - 2);
  int64_t n = xd[0], c = xd[1], h = xd[2], wi = xd[3], oc = wd[0], kh = p->kernel[0],
          kw = p->kernel[1], grp = p->group, og = p->offset_group;
  int64_t wg; /* every product and sum checked: dims and attributes come from the model */
  if (grp < 1 || og < 1 || c % grp || c % og || oc % grp || __builtin_mul_overflow(wd[1], grp, &wg) ||
      wg != c || kh < 1 || kw < 1)
    return olg__errf(cx, OLG_ERR_INVALID_MODEL, "DeformConv: channels %lld, weight [%lld, %lld], "
                     "group %lld and offset_group %lld do not agree", (long long)c, (long long)oc,
                     (long long)wd[1], (long long)grp, (long long)og);
  int64_t oh = deform_out(h, p->pads[0], p->pads[2], p->dilations[0], kh, p->strides[0]);
  int64_t ow = deform_out(wi, p->pads[1], p->pads[3], p->dilations[1], kw, p->strides[1]);
  int64_t k, np, nc, nchw, knp, cg = c / og;
  if (oh < 1 || ow < 1 || __builtin_mul_overflow(kh, kw, &k) || __builtin_mul_overflow(oh, ow, &np) ||
      __builtin_mul_overflow(n, c, &nc) || __builtin_mul_overflow(nc, h, &nchw) ||
      __builtin_mul_overflow(nchw, wi, &nchw) || __builtin_mul_overflow(k, np, &knp) ||
      nchw > (int64_t)1 << 24 || knp > (int64_t)1 << 24 || nc > (int64_t)1 << 20 || c > (int64_t)1 << 20)
    return olg__unsupportedf(cx, 19, "DeformConv of output %lldx%lld or input [%lld, %lld, %lld, "
                             "%lld] (the decomposition's tables grow with them)", (long long)oh,
                             (long long)ow, (long long)n, (long long)c, (long long)h, (long long)wi);
  olg_dtype t = olg__dtype(cx, x), ct = t == OLG_DOUBLE ? OLG_DOUBLE : OLG_FLOAT;
  if (t != ct) { /* float16, bfloat16: sampled and summed in float */
    OLG_TRY(olg__emit_cast(cx, x, ct, &x));
    OLG_TRY(olg__emit_cast(cx, w, ct, &w));
    OLG_TRY(olg__emit_cast(cx, off, ct, &off));
    if (b != OLG_NO_VALUE) OLG_TRY(olg__emit_cast(cx, b, ct, &b));
    if (mask != OLG_NO_VALUE) OLG_TRY(olg__emit_cast(cx, mask, ct, &mask));
  }
  /* the offsets: [N, og*K*2, oH, oW] -> dy, dx as [N, og, 1, K, P] */
  olg_value offr, dy, dx;
  OLG_TRY(olg__emit_reshape_static(cx, off, (const int64_t[]){n, og, k, 2, np}, 5, &offr));
  const int64_t ax3 = 3, z = 0, one = 1, two = 2;
  OLG_TRY(olg__emit_slice(cx, offr, &z, &one, &ax3, NULL, 1, &dy));
  OLG_TRY(olg__emit_slice(cx, offr, &one, &two, &ax3, NULL, 1, &dx));
  const int64_t pshape[5] = {n, og, 1, k, np};
  OLG_TRY(olg__emit_reshape_static(cx, dy, pshape, 5, &dy));
  OLG_TRY(olg__emit_reshape_static(cx, dx, pshape, 5, &dx));
  /* where each tap of each output position reads without offset: [K, P] */
  double *by = olg__lower_alloc(cx, (size_t)(k * np) * sizeof *by);
  double *bx = olg__lower_alloc(cx, (size_t)(k * np) * sizeof *bx);
  int64_t *base = olg__lower_alloc(cx, (size_t)(n * c) * sizeof *base);
  if (!by || !bx || !base) return OLG_ERR_NOMEM;
  for (int64_t i = 0; i < kh; i++)
    for (int64_t j = 0; j < kw; j++)
      for (int64_t y = 0; y < oh; y++)
        for (int64_t q = 0; q < ow; q++) {
          int64_t at = (i * kw + j) * np + y * ow + q;
          by[at] = (double)(y * p->strides[0] - p->pads[0] + i * p->dilations[0]);
          bx[at] = (double)(q * p->strides[1] - p->pads[1] + j * p->dilations[1]);
        }
  for (int64_t i = 0; i < n * c; i++) base[i] = i * h * wi; /* (n, g, cg) in channel order */
  olg_value cby, cbx, cbase, py, px, y0, x0, ly, lx, hy, hx, onec;
  const int64_t kp[2] = {k, np};
  OLG_TRY(olg__const_real(cx, ct, 2, kp, by, (size_t)(k * np), &cby));
  OLG_TRY(olg__const_real(cx, ct, 2, kp, bx, (size_t)(k * np), &cbx));
  OLG_TRY(const_i64_nd(cx, 5, (const int64_t[]){n, og, cg, 1, 1}, base, (size_t)(n * c), &cbase));
  OLG_TRY(olg__emit2(cx, "Add", dy, cby, &py));
  OLG_TRY(olg__emit2(cx, "Add", dx, cbx, &px));
  OLG_TRY(olg__emit1(cx, "Floor", py, &y0));
  OLG_TRY(olg__emit1(cx, "Floor", px, &x0));
  OLG_TRY(olg__emit2(cx, "Sub", py, y0, &ly)); /* the far neighbour's share */
  OLG_TRY(olg__emit2(cx, "Sub", px, x0, &lx));
  OLG_TRY(olg__const_scalar(cx, ct, 1.0, &onec));
  OLG_TRY(olg__emit2(cx, "Sub", onec, ly, &hy)); /* the near one's */
  OLG_TRY(olg__emit2(cx, "Sub", onec, lx, &hx));
  olg_value xf, acc = OLG_NO_VALUE, m1, lim_h, lim_w, wconst;
  OLG_TRY(olg__emit_reshape_static(cx, x, (const int64_t[]){n * c * h * wi}, 1, &xf));
  OLG_TRY(olg__const_scalar(cx, ct, -1.0, &m1));
  OLG_TRY(olg__const_scalar(cx, ct, (double)h, &lim_h));
  OLG_TRY(olg__const_scalar(cx, ct, (double)wi, &lim_w));
  OLG_TRY(olg__const_i64(cx, wi, &wconst));
  for (int a = 0; a < 2; a++)
    for (int e = 0; e < 2; e++) {
      olg_value yc = y0, xc = x0, v1, v2, ok, okf, wt, yi, xi, idx, s;
      if (a) OLG_TRY(olg__emit2(cx, "Add", y0, onec, &yc));
      if (e) OLG_TRY(olg__emit2(cx, "Add", x0, onec, &xc));
      /* inside: -1 < yc < H and -1 < xc < W (yc, xc are whole numbers) */
      OLG_TRY(olg__emit2(cx, "Greater", yc, m1, &v1));
      OLG_TRY(olg__emit2(cx, "Less", yc, lim_h, &v2));
      OLG_TRY(olg__emit2(cx, "And", v1, v2, &ok));
      OLG_TRY(olg__emit2(cx, "Greater", xc, m1, &v1));
      OLG_TRY(olg__emit2(cx, "And", ok, v1, &ok));
      OLG_TRY(olg__emit2(cx, "Less", xc, lim_w, &v2));
      OLG_TRY(olg__emit2(cx, "And", ok, v2, &ok));
      OLG_TRY(olg__emit_cast(cx, ok, ct, &okf));
      OLG_TRY(olg__emit2(cx, "Mul", a ? ly : hy, e ? lx : hx, &wt));
      OLG_TRY(olg__emit2(cx, "Mul", wt, okf, &wt));
      /* outside, read element 0 of the channel (weighted 0) */
      OLG_TRY(olg__emit2(cx, "Mul", yc, okf, &yi));
      OLG_TRY(olg__emit2(cx, "Mul", xc, okf, &xi));
      OLG_TRY(olg__emit_cast(cx, yi, OLG_INT64, &yi));
      OLG_TRY(olg__emit_cast(cx, xi, OLG_INT64, &xi));
      OLG_TRY(olg__emit2(cx, "Mul", yi, wconst, &idx));
      OLG_TRY(olg__emit2(cx, "Add", idx, xi, &idx));
      OLG_TRY(olg__emit2(cx, "Add", idx, cbase, &idx)); /* [N, og, C/og, K, P] */
      OLG_TRY(olg__emit_gather(cx, xf, idx, 0, &s));
      OLG_TRY(olg__emit2(cx, "Mul", s, wt, &s));
      if (acc == OLG_NO_VALUE) acc = s;
      else OLG_TRY(olg__emit2(cx, "Add", acc, s, &acc));
    }
  if (mask != OLG_NO_VALUE) {
    OLG_TRY(olg__emit_reshape_static(cx, mask, pshape, 5, &mask));
    OLG_TRY(olg__emit2(cx, "Mul", acc, mask, &acc));
  }
  olg_value cols, wm, y;
  OLG_TRY(olg__emit_reshape_static(cx, acc, (const int64_t[]){n, grp, c / grp * k, np}, 4, &cols));
  OLG_TRY(olg__emit_reshape_static(cx, w, (const int64_t[]){grp, oc / grp, c / grp * k}, 3, &wm));
  OLG_TRY(olg__emit2(cx, "MatMul", wm, cols, &y));
  OLG_TRY(olg__emit_reshape_static(cx, y, (const int64_t[]){n, oc, oh, ow}, 4, &y));
  if (b != OLG_NO_VALUE) {
    OLG_TRY(olg__emit_reshape_static(cx, b, (const int64_t[]){oc, 1, 1}, 3, &b));
    OLG_TRY(olg__emit2(cx, "Add", y, b, &y));
  }
  if (t != ct) OLG_TRY(olg__emit_cast(cx, y, t, &y));
  *out = y;
  return OLG_OK;
}
