/* onnxlegal — RoiAlign by gathers (symbolics/emit_roi.h).
 *
 * With a fixed sampling ratio G every roi has out_h x G rows and out_w x G columns of sampling
 * points, so the op is a few tensors [K, out_h, G, out_w, G]: the points' coordinates (start +
 * p * bin + (i + 0.5) * bin / G, in the kernel's order of operations), each clamped into the
 * map, its four neighbours' flat indices into x laid out [N*H*W, C], their bilinear weights
 * zeroed where the point lies outside [-1, H] x [-1, W]; one Gather per corner, then per bin the
 * sum over its G x G points divided by G*G (avg), or the largest weighted corner of the largest
 * point (max, as ONNX Runtime computes it). Every op exists from opset 7; a feature map whose
 * height or width is known only at run time is clamped to by run-time bounds (Where, from 9). */
#include "emit_roi.h"

/* Column c of rois: [K, 1]. */
static olg_status roi_col(olg_lower *cx, olg_value rois, int64_t c, olg_value *out) {
  const int64_t s = c, e = c + 1, ax = 1;
  return olg__emit_slice(cx, rois, &s, &e, &ax, NULL, 1, out);
}

/* 0 .. n-1 (plus one half) in dtype dt, shaped [1, n, 1] (along 1) or [1, 1, n] (along 2). */
static olg_status ramp(olg_lower *cx, olg_dtype dt, int64_t n, int along, bool half,
                       olg_value *out) {
  int64_t *v = olg__lower_alloc(cx, (size_t)n * sizeof *v);
  if (!v) return OLG_ERR_NOMEM;
  for (int64_t i = 0; i < n; i++) v[i] = i;
  const int64_t dims[3] = {1, along == 1 ? n : 1, along == 2 ? n : 1};
  OLG_TRY(olg__const_tensor_kept(cx, OLG_INT64, 3, dims, v, (size_t)n * sizeof *v, out));
  OLG_TRY(olg__emit_cast(cx, *out, dt, out));
  if (!half) return OLG_OK;
  olg_value h;
  OLG_TRY(olg__const_scalar(cx, dt, 0.5, &h));
  return olg__emit2(cx, "Add", *out, h, out);
}

/* The sampling points of one axis, [K, n, G]: the low and high neighbours (int64), their
 * weights (1 - frac, frac) and the mask (1 inside [-1, size], else 0). */
typedef struct axis_pts { olg_value lo, hi, w_lo, w_hi, mask; } axis_pts;

static olg_status axis_points(olg_lower *cx, olg_dtype dt, olg_value start, olg_value bin,
                              int64_t n, int64_t g, olg_value size_t_, int64_t size_known,
                              axis_pts *o) {
  static const int64_t ax2 = 2;
  olg_value s3, b3, cell, sub, gv, pts, t, below, above, out_of, lo_f, hi_f, c, one, m1, top;
  OLG_TRY(olg__emit_unsqueeze(cx, start, &ax2, 1, &s3));
  OLG_TRY(olg__emit_unsqueeze(cx, bin, &ax2, 1, &b3));
  OLG_TRY(ramp(cx, dt, n, 1, false, &cell));
  OLG_TRY(ramp(cx, dt, g, 2, true, &sub));
  OLG_TRY(olg__const_scalar(cx, dt, (double)g, &gv));
  OLG_TRY(olg__emit2(cx, "Mul", cell, b3, &t));
  OLG_TRY(olg__emit2(cx, "Add", s3, t, &pts));
  OLG_TRY(olg__emit2(cx, "Mul", sub, b3, &t));
  OLG_TRY(olg__emit2(cx, "Div", t, gv, &t));
  OLG_TRY(olg__emit2(cx, "Add", pts, t, &pts));
  OLG_TRY(olg__const_scalar(cx, dt, -1.0, &m1));
  OLG_TRY(olg__emit2(cx, "Less", pts, m1, &below));
  OLG_TRY(olg__emit2(cx, "Greater", pts, size_t_, &above));
  OLG_TRY(olg__emit2(cx, "Or", below, above, &out_of));
  OLG_TRY(olg__emit1(cx, "Not", out_of, &out_of));
  OLG_TRY(olg__emit_cast(cx, out_of, dt, &o->mask));
  OLG_TRY(olg__const_scalar(cx, dt, 1.0, &one));
  if (size_known >= 1) {
    OLG_TRY(olg__emit_clip_f(cx, pts, 1, 0.0, 1, (double)(size_known - 1), &c));
    OLG_TRY(olg__emit1(cx, "Floor", c, &lo_f));
    OLG_TRY(olg__emit2(cx, "Add", lo_f, one, &hi_f));
    OLG_TRY(olg__emit_clip_f(cx, hi_f, 0, 0.0, 1, (double)(size_known - 1), &hi_f));
  } else {
    olg_value zero;
    OLG_TRY(olg__const_scalar(cx, dt, 0.0, &zero));
    OLG_TRY(olg__emit2(cx, "Sub", size_t_, one, &top));
    OLG_TRY(olg__emit_clip(cx, pts, zero, top, &c));
    OLG_TRY(olg__emit1(cx, "Floor", c, &lo_f));
    OLG_TRY(olg__emit2(cx, "Add", lo_f, one, &hi_f));
    OLG_TRY(olg__emit_clip(cx, hi_f, OLG_NO_VALUE, top, &hi_f));
  }
  OLG_TRY(olg__emit2(cx, "Sub", c, lo_f, &o->w_hi));
  OLG_TRY(olg__emit2(cx, "Sub", one, o->w_hi, &o->w_lo));
  OLG_TRY(olg__emit_cast(cx, lo_f, OLG_INT64, &o->lo));
  return olg__emit_cast(cx, hi_f, OLG_INT64, &o->hi);
}

olg_status olg__emit_roi_align(olg_lower *cx, olg_value x, olg_value rois, olg_value bidx,
                               const olg_roi_align *p, olg_value *out) {
  int64_t xd[OLG_MAX_RANK];
  int32_t xr = -1;
  bool shaped = olg__static_shape(cx, x, xd, &xr);
  if (olg__rank(cx, x) != 4)
    return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "RoiAlign expects a 4-D input [N, C, H, W]");
  if (p->sampling <= 0 || p->out_h <= 0 || p->out_w <= 0)
    return olg_lower_error(cx, OLG_ERR_INVALID_ARG, "RoiAlign by gathers needs a sampling ratio "
                                                    "and output sizes above 0");
  olg_dtype dt = olg__dtype(cx, x);
  if (!olg__is_float(dt)) return olg_lower_error(cx, OLG_ERR_TYPE, "RoiAlign expects a float input");
  const int64_t g = p->sampling;
  /* the map's height and width: as x's type for the coordinates, int64 for the indices */
  olg_value h_i, w_i, h_t, w_t, hw_i;
  int64_t hk = shaped ? xd[2] : -1, wk = shaped ? xd[3] : -1;
  OLG_TRY(olg__dim_tensor(cx, x, 2, &h_i));
  OLG_TRY(olg__dim_tensor(cx, x, 3, &w_i));
  OLG_TRY(olg__emit_cast(cx, h_i, dt, &h_t));
  OLG_TRY(olg__emit_cast(cx, w_i, dt, &w_t));
  OLG_TRY(olg__emit2(cx, "Mul", h_i, w_i, &hw_i));

  /* the roi in map coordinates, as the kernel: corner * scale - offset; sizes clamped to 1
   * only without half_pixel */
  olg_value corner[4], scale, off = OLG_NO_VALUE;
  OLG_TRY(olg__const_scalar(cx, dt, (double)(float)p->spatial_scale, &scale));
  if (p->half_pixel) OLG_TRY(olg__const_scalar(cx, dt, 0.5, &off));
  for (int k = 0; k < 4; k++) {
    OLG_TRY(roi_col(cx, rois, k, &corner[k]));
    OLG_TRY(olg__emit2(cx, "Mul", corner[k], scale, &corner[k]));
    if (p->half_pixel) OLG_TRY(olg__emit2(cx, "Sub", corner[k], off, &corner[k]));
  }
  olg_value rw, rh, bw, bh, nv;
  OLG_TRY(olg__emit2(cx, "Sub", corner[2], corner[0], &rw));
  OLG_TRY(olg__emit2(cx, "Sub", corner[3], corner[1], &rh));
  if (!p->half_pixel) {
    OLG_TRY(olg__emit_clip_f(cx, rw, 1, 1.0, 0, 0.0, &rw));
    OLG_TRY(olg__emit_clip_f(cx, rh, 1, 1.0, 0, 0.0, &rh));
  }
  OLG_TRY(olg__const_scalar(cx, dt, (double)p->out_h, &nv));
  OLG_TRY(olg__emit2(cx, "Div", rh, nv, &bh));
  OLG_TRY(olg__const_scalar(cx, dt, (double)p->out_w, &nv));
  OLG_TRY(olg__emit2(cx, "Div", rw, nv, &bw));

  axis_pts ys, xs;
  OLG_TRY(axis_points(cx, dt, corner[1], bh, p->out_h, g, h_t, hk, &ys));
  OLG_TRY(axis_points(cx, dt, corner[0], bw, p->out_w, g, w_t, wk, &xs));
  /* rows [K, out_h, G, 1, 1], columns [K, 1, 1, out_w, G] */
  static const int64_t ax34[2] = {3, 4}, ax12[2] = {1, 2}, ax1234[4] = {1, 2, 3, 4}, ax5 = 5;
  olg_value *yv[5] = {&ys.lo, &ys.hi, &ys.w_lo, &ys.w_hi, &ys.mask};
  olg_value *xv[5] = {&xs.lo, &xs.hi, &xs.w_lo, &xs.w_hi, &xs.mask};
  for (int k = 0; k < 5; k++) {
    OLG_TRY(olg__emit_unsqueeze(cx, *yv[k], ax34, 2, yv[k]));
    OLG_TRY(olg__emit_unsqueeze(cx, *xv[k], ax12, 2, xv[k]));
  }
  olg_value base, mask, xf, shape, minus1, c_dim;
  OLG_TRY(olg__emit_cast(cx, bidx, OLG_INT64, &base));
  OLG_TRY(olg__emit2(cx, "Mul", base, hw_i, &base));
  OLG_TRY(olg__emit_unsqueeze(cx, base, ax1234, 4, &base));
  OLG_TRY(olg__emit2(cx, "Mul", ys.lo, w_i, &ys.lo));
  OLG_TRY(olg__emit2(cx, "Mul", ys.hi, w_i, &ys.hi));
  OLG_TRY(olg__emit2(cx, "Add", ys.lo, base, &ys.lo));
  OLG_TRY(olg__emit2(cx, "Add", ys.hi, base, &ys.hi));
  OLG_TRY(olg__emit2(cx, "Mul", ys.mask, xs.mask, &mask));
  /* x as rows of channels: [N*H*W, C] */
  OLG_TRY(olg__emit_transpose(cx, x, (const int64_t[]){0, 2, 3, 1}, 4, &xf));
  OLG_TRY(olg__const_i64s(cx, (const int64_t[]){-1}, 1, &minus1));
  OLG_TRY(olg__dim_tensor(cx, x, 1, &c_dim));
  OLG_TRY(olg__concat_ints(cx, (const olg_value[]){minus1, c_dim}, 2, &shape));
  OLG_TRY(olg__emit_reshape(cx, xf, shape, &xf));

  /* the corners in the kernel's order: (lo, lo), (lo, hi), (hi, lo), (hi, hi) */
  olg_value acc = OLG_NO_VALUE;
  for (int k = 0; k < 4; k++) {
    olg_value row = k < 2 ? ys.lo : ys.hi, col = k % 2 ? xs.hi : xs.lo;
    olg_value wy = k < 2 ? ys.w_lo : ys.w_hi, wx = k % 2 ? xs.w_hi : xs.w_lo;
    olg_value idx, w, v;
    OLG_TRY(olg__emit2(cx, "Add", row, col, &idx));
    OLG_TRY(olg__emit_gather(cx, xf, idx, 0, &v)); /* [K, out_h, G, out_w, G, C] */
    OLG_TRY(olg__emit2(cx, "Mul", wy, wx, &w));
    OLG_TRY(olg__emit2(cx, "Mul", w, mask, &w));
    OLG_TRY(olg__emit_unsqueeze(cx, w, &ax5, 1, &w));
    OLG_TRY(olg__emit2(cx, "Mul", w, v, &v));
    if (k == 0) acc = v;
    else OLG_TRY(olg__emit2(cx, p->max_mode ? "Max" : "Add", acc, v, &acc));
  }
  static const int64_t ax24[2] = {2, 4};
  olg_value y;
  if (p->max_mode) {
    OLG_TRY(olg__emit_reduce(cx, OLG_REDUCE_MAX, acc, ax24, 2, 0, &y));
  } else {
    olg_value count;
    OLG_TRY(olg__emit_reduce(cx, OLG_REDUCE_SUM, acc, ax24, 2, 0, &y));
    OLG_TRY(olg__const_scalar(cx, dt, (double)(g * g), &count));
    OLG_TRY(olg__emit2(cx, "Div", y, count, &y));
  }
  return olg__emit_transpose(cx, y, (const int64_t[]){0, 3, 1, 2}, 4, out);
}
