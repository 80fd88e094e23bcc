/* onnxlegal — NonMaxSuppression-10 below 10, as Loops (from 9: Where, Compress, ConstantOfShape).
 *
 * The selection has no fixed-size form, so it is computed as ONNX Runtime's kernel does it, box by
 * box: per (batch, class), the boxes whose score passes score_threshold (strictly; all when absent)
 * are taken by decreasing score, the lower index first among equal scores (the kernel's priority
 * queue orders by (score, -index)), each kept unless a kept box overlaps it by IoU >
 * iou_threshold, at most max_output_boxes_per_class (absent or <= 0: none). A kept box suppresses
 * at once every box whose IoU with it exceeds the threshold: the same as testing each taken box
 * against the kept ones, since the kernel's IoU is symmetric (max, min, a sum of the two areas),
 * computed with its formula in float. The rows [batch, class, box] come in the kernel's order:
 * batch, then class, then the order taken. */
#include <math.h>
#include <stdint.h>

#include "emit.h"
#include "symbolics.h"

static olg_status ci(olg_lower *c, int64_t v, olg_value *o) { return olg__const_i64(c, v, o); }
static olg_status cf(olg_lower *c, double v, olg_value *o) {
  return olg__const_scalar(c, OLG_FLOAT, v, o);
}
static olg_status at(olg_lower *c, olg_value x, olg_value i, olg_value *o) {
  return olg__emit_gather(c, x, i, 0, o);
}
static olg_status op2(olg_lower *c, const char *op, olg_value a, olg_value b, olg_value *o) {
  return olg__emit2(c, op, a, b, o);
}
/* The boxes' extents and areas as the kernel's BoxInfo holds them (center_point_box 0: [y1, x1,
 * y2, x2], corners in any order, area from the extents; 1: [x_center, y_center, width, height],
 * area width * height). bx: [N, 4]. e: x min, x max, y min, y max, area. */
static olg_status extents(olg_lower *c, olg_value bx, int64_t center, olg_value e[5]) {
  olg_value col[4];
  for (int64_t k = 0; k < 4; k++) {
    olg_value kv;
    OLG_TRY(ci(c, k, &kv));
    OLG_TRY(olg__emit_gather(c, bx, kv, 1, &col[k]));
  }
  if (center) {
    olg_value two, hw, hh;
    OLG_TRY(cf(c, 2.0, &two));
    OLG_TRY(op2(c, "Div", col[2], two, &hw));
    OLG_TRY(op2(c, "Div", col[3], two, &hh));
    OLG_TRY(op2(c, "Sub", col[0], hw, &e[0]));
    OLG_TRY(op2(c, "Add", col[0], hw, &e[1]));
    OLG_TRY(op2(c, "Sub", col[1], hh, &e[2]));
    OLG_TRY(op2(c, "Add", col[1], hh, &e[3]));
    return op2(c, "Mul", col[2], col[3], &e[4]);
  }
  OLG_TRY(op2(c, "Min", col[1], col[3], &e[0]));
  OLG_TRY(op2(c, "Max", col[1], col[3], &e[1]));
  OLG_TRY(op2(c, "Min", col[0], col[2], &e[2]));
  OLG_TRY(op2(c, "Max", col[0], col[2], &e[3]));
  olg_value w, h;
  OLG_TRY(op2(c, "Sub", e[1], e[0], &w));
  OLG_TRY(op2(c, "Sub", e[3], e[2], &h));
  return op2(c, "Mul", h, w, &e[4]);
}

/* Which boxes kept box p suppresses: the kernel's SuppressByIOU (e: the extents, thr 0-D). */
static olg_status suppressed_by(olg_lower *c, const olg_value e[5], olg_value p, olg_value thr,
                                olg_value *out) {
  olg_value pe[5], lo[2], hi[2], ok, t, zero, inter, uni, iou;
  for (int k = 0; k < 5; k++) OLG_TRY(at(c, e[k], p, &pe[k]));
  OLG_TRY(cf(c, 0.0, &zero));
  for (int k = 0; k < 2; k++) {
    OLG_TRY(op2(c, "Max", pe[2 * k], e[2 * k], &lo[k]));
    OLG_TRY(op2(c, "Min", pe[2 * k + 1], e[2 * k + 1], &hi[k]));
    OLG_TRY(op2(c, "Greater", hi[k], lo[k], &t));
    if (k) OLG_TRY(op2(c, "And", ok, t, &ok));
    else ok = t;
  }
  OLG_TRY(op2(c, "Sub", hi[0], lo[0], &hi[0]));
  OLG_TRY(op2(c, "Sub", hi[1], lo[1], &hi[1]));
  OLG_TRY(op2(c, "Mul", hi[0], hi[1], &inter));
  OLG_TRY(op2(c, "Greater", inter, zero, &t));
  OLG_TRY(op2(c, "And", ok, t, &ok));
  OLG_TRY(op2(c, "Add", e[4], pe[4], &uni));
  OLG_TRY(op2(c, "Sub", uni, inter, &uni));
  OLG_TRY(op2(c, "Div", inter, uni, &iou));
  OLG_TRY(op2(c, "Greater", iou, thr, &t));
  return op2(c, "And", ok, t, out);
}

/* dim axis of x as a 0-D int64 */
static olg_status dim0d(olg_lower *c, olg_value x, int64_t axis, olg_value *o) {
  olg_value d;
  OLG_TRY(olg__dim_tensor(c, x, axis, &d));
  return olg__emit_reshape_static(c, d, NULL, 0, o);
}

typedef struct nms_in {
  olg_value scores, boxes, ncls, nbox, ar, maxo, thr, st; /* st OLG_NO_VALUE: no threshold */
  int64_t center;
} nms_in;

/* One (batch, class): the body of the outer Loop over k = batch * classes + class. Its scan
 * outputs: batch, class, the box indices in the order taken and whether each was kept (padded
 * to N). */
static olg_status per_class(olg_lower *cx, const nms_in *o, olg_value trip, olg_value *res) {
  olg_loop_body b;
  olg_value iter, cond, scores, boxes, ncls, nbox, ar, maxo, thr, st = OLG_NO_VALUE;
  OLG_TRY(olg__loop_body_begin(cx, &b, NULL, 0, &iter, &cond, NULL));
  olg_lower *c = &b.sub;
  OLG_TRY(olg__loop_outer(&b, o->scores, &scores));
  OLG_TRY(olg__loop_outer(&b, o->boxes, &boxes));
  OLG_TRY(olg__loop_outer(&b, o->ncls, &ncls));
  OLG_TRY(olg__loop_outer(&b, o->nbox, &nbox));
  OLG_TRY(olg__loop_outer(&b, o->ar, &ar));
  OLG_TRY(olg__loop_outer(&b, o->maxo, &maxo));
  OLG_TRY(olg__loop_outer(&b, o->thr, &thr));
  if (o->st != OLG_NO_VALUE) OLG_TRY(olg__loop_outer(&b, o->st, &st));
  olg_value bi, ci_, t, sc, bx, e[5], mask = OLG_NO_VALUE;
  OLG_TRY(op2(c, "Div", iter, ncls, &bi));
  OLG_TRY(op2(c, "Mul", bi, ncls, &t));
  OLG_TRY(op2(c, "Sub", iter, t, &ci_));
  OLG_TRY(at(c, scores, bi, &sc));
  OLG_TRY(at(c, sc, ci_, &sc));
  OLG_TRY(at(c, boxes, bi, &bx));
  OLG_TRY(extents(c, bx, o->center, e));
  if (st != OLG_NO_VALUE) OLG_TRY(op2(c, "Greater", sc, st, &mask));

  /* take the candidates one by one: trip count their number, so each iteration has one */
  olg_value zero, len, nshape, rem0, supp0, pops, kept;
  OLG_TRY(ci(c, 0, &zero));
  OLG_TRY(olg__shape(c, sc, &nshape));
  OLG_TRY(olg__emit_full(c, nshape, OLG_BOOL, 0, &supp0));
  if (mask != OLG_NO_VALUE) {
    olg_value mf;
    rem0 = mask;
    OLG_TRY(olg__emit_cast(c, mask, OLG_FLOAT, &mf)); /* ReduceSum-1 takes no integers */
    OLG_TRY(olg__emit_reduce(c, OLG_REDUCE_SUM, mf, NULL, 0, 0, &len));
    OLG_TRY(olg__emit_cast(c, len, OLG_INT64, &len));
  } else {
    OLG_TRY(olg__emit_full(c, nshape, OLG_BOOL, 1, &rem0));
    len = nbox;
  }
  {
    const olg_value init[3] = {rem0, supp0, zero};
    olg_loop_body qb;
    olg_value qin[3], qcond, qres[5];
    OLG_TRY(olg__loop_body_begin(c, &qb, init, 3, NULL, &qcond, qin));
    olg_lower *q = &qb.sub;
    olg_value qar, qsc, qmaxo, qthr, qe[5], ninf, big, w[3], mx, lt, gt, cand, t, pf, p;
    OLG_TRY(olg__loop_outer(&qb, ar, &qar));
    OLG_TRY(olg__loop_outer(&qb, sc, &qsc));
    OLG_TRY(olg__loop_outer(&qb, maxo, &qmaxo));
    OLG_TRY(olg__loop_outer(&qb, thr, &qthr));
    for (int k = 0; k < 5; k++) OLG_TRY(olg__loop_outer(&qb, e[k], &qe[k]));
    /* the best remaining score, then the lowest index holding it (Equal takes no floats
     * before 11: neither less nor greater; ReduceMin no integers: indices as floats, exact) */
    OLG_TRY(cf(q, -INFINITY, &ninf));
    w[0] = qin[0]; w[1] = qsc; w[2] = ninf;
    OLG_TRY(olg__emit(q, "Where", w, 3, &mx));
    OLG_TRY(olg__emit_reduce(q, OLG_REDUCE_MAX, mx, NULL, 0, 0, &mx));
    OLG_TRY(op2(q, "Less", qsc, mx, &lt));
    OLG_TRY(op2(q, "Greater", qsc, mx, &gt));
    OLG_TRY(op2(q, "Or", lt, gt, &t));
    OLG_TRY(olg__emit1(q, "Not", t, &t));
    OLG_TRY(op2(q, "And", qin[0], t, &cand));
    OLG_TRY(olg__emit_cast(q, qar, OLG_FLOAT, &pf));
    OLG_TRY(cf(q, INFINITY, &big));
    w[0] = cand; w[1] = pf; w[2] = big;
    OLG_TRY(olg__emit(q, "Where", w, 3, &pf));
    OLG_TRY(olg__emit_reduce(q, OLG_REDUCE_MIN, pf, NULL, 0, 0, &pf));
    OLG_TRY(olg__emit_cast(q, pf, OLG_INT64, &p));
    olg_value taken, rem, sp, nsp, room, sel, seli, cnt, sup, supp;
    OLG_TRY(op2(q, "Equal", qar, p, &taken));
    OLG_TRY(olg__emit1(q, "Not", taken, &taken));
    OLG_TRY(op2(q, "And", qin[0], taken, &rem));
    OLG_TRY(at(q, qin[1], p, &sp));
    OLG_TRY(olg__emit1(q, "Not", sp, &nsp));
    OLG_TRY(op2(q, "Less", qin[2], qmaxo, &room));
    OLG_TRY(op2(q, "And", nsp, room, &sel));
    OLG_TRY(olg__emit_cast(q, sel, OLG_INT64, &seli));
    OLG_TRY(op2(q, "Add", qin[2], seli, &cnt));
    OLG_TRY(suppressed_by(q, qe, p, qthr, &sup));
    OLG_TRY(op2(q, "And", sup, sel, &sup));
    OLG_TRY(op2(q, "Or", qin[1], sup, &supp));
    const olg_value outs[6] = {qcond, rem, supp, cnt, p, sel};
    OLG_TRY(olg__loop_emit(&qb, len, OLG_NO_VALUE, init, 3, outs, 6, qres));
    pops = qres[3];
    kept = qres[4];
  }

  /* padded to N, so that every iteration's scan outputs have one shape */
  olg_value pad, pad1, fill, fillb;
  OLG_TRY(op2(c, "Sub", nbox, len, &pad));
  static const int64_t ax0 = 0;
  OLG_TRY(olg__emit_unsqueeze(c, pad, &ax0, 1, &pad1));
  OLG_TRY(olg__emit_full(c, pad1, OLG_INT64, -1, &fill));
  OLG_TRY(olg__emit_full(c, pad1, OLG_BOOL, 0, &fillb));
  const olg_value pp[2] = {pops, fill}, kk[2] = {kept, fillb};
  OLG_TRY(olg__emit_concat(c, pp, 2, 0, &pops));
  OLG_TRY(olg__emit_concat(c, kk, 2, 0, &kept));
  const olg_value outs[5] = {cond, bi, ci_, pops, kept};
  return olg__loop_emit(&b, trip, OLG_NO_VALUE, NULL, 0, outs, 5, res);
}

olg_status olg__sym_onnx_nms(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  nms_in o;
  olg_value boxes, scores, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &boxes));
  OLG_TRY(olg_lower_arg_value(cx, 1, &scores));
  o.center = olg__src_attr_int(cx, "center_point_box", 0);
  if (olg_lower_arg_count(cx) < 3 || olg_lower_arg_is_none(cx, 2)) {
    /* max_output_boxes_per_class absent is 0: nothing is selected */
    static const int64_t d0[2] = {0, 3};
    OLG_TRY(olg__const_tensor(cx, OLG_INT64, 2, d0, NULL, 0, &y));
    return olg_lower_bind_output(cx, 0, y);
  }
  olg_value m, zero, neg, t;
  OLG_TRY(olg_lower_arg_value(cx, 2, &m));
  OLG_TRY(olg__emit_reshape_static(cx, m, NULL, 0, &m));
  OLG_TRY(ci(cx, 0, &zero));
  OLG_TRY(op2(cx, "Less", m, zero, &neg));
  const olg_value w[3] = {neg, zero, m};
  OLG_TRY(olg__emit(cx, "Where", w, 3, &o.maxo));
  if (olg_lower_arg_count(cx) > 3 && !olg_lower_arg_is_none(cx, 3)) {
    OLG_TRY(olg_lower_arg_value(cx, 3, &t));
    OLG_TRY(olg__emit_reshape_static(cx, t, NULL, 0, &o.thr));
  } else {
    OLG_TRY(cf(cx, 0.0, &o.thr));
  }
  o.st = OLG_NO_VALUE;
  if (olg_lower_arg_count(cx) > 4 && !olg_lower_arg_is_none(cx, 4)) {
    OLG_TRY(olg_lower_arg_value(cx, 4, &t));
    OLG_TRY(olg__emit_reshape_static(cx, t, NULL, 0, &o.st));
  }
  o.scores = scores;
  o.boxes = boxes;
  olg_value nb, nc, trip;
  OLG_TRY(dim0d(cx, boxes, 0, &nb));
  OLG_TRY(dim0d(cx, scores, 1, &nc));
  OLG_TRY(dim0d(cx, boxes, 1, &o.nbox));
  o.ncls = nc;
  OLG_TRY(op2(cx, "Mul", nb, nc, &trip));
  OLG_TRY(olg__emit_arange_dim(cx, boxes, 1, &o.ar));
  olg_value res[4];
  OLG_TRY(per_class(cx, &o, trip, res));
  /* rows [batch, class, box] of every (batch, class), kept ones only, in order */
  olg_value shp, cols[3], rows, flat, keep;
  OLG_TRY(olg__shape(cx, res[2], &shp));
  static const int64_t ax1 = 1, ax2 = 2;
  for (int k = 0; k < 2; k++) {
    OLG_TRY(olg__emit_unsqueeze(cx, res[k], &ax1, 1, &cols[k]));
    OLG_TRY(olg__emit_expand(cx, cols[k], shp, &cols[k]));
  }
  cols[2] = res[2];
  for (int k = 0; k < 3; k++) OLG_TRY(olg__emit_unsqueeze(cx, cols[k], &ax2, 1, &cols[k]));
  OLG_TRY(olg__emit_concat(cx, cols, 3, 2, &rows));
  static const int64_t d2[2] = {-1, 3}, d1 = -1;
  OLG_TRY(olg__emit_reshape_static(cx, rows, d2, 2, &flat));
  OLG_TRY(olg__emit_reshape_static(cx, res[3], &d1, 1, &keep));
  OLG_TRY(olg__emit_compress(cx, flat, keep, 0, &y));
  return olg_lower_bind_output(cx, 0, y);
}
