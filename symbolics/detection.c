/* onnxlegal — torchvision's detection ops (domain "torchvision", as torch.ops.torchvision.* appear
 * in a trace): nms as NonMaxSuppression (from 10; at 9 as its conversion, Loops), roi_align as
 * RoiAlign (from opset 10).
 *
 * nms(boxes [N,4] x1y1x2y2, scores [N], iou_threshold) -> kept indices [K], by decreasing score:
 * NonMaxSuppression over one batch and one class, every box allowed (max_output_boxes_per_class
 * INT64_MAX, no score threshold), whose selected [K,3] rows hold the box index in column 2.
 * roi_align(input, rois [K,5] (batch index, x1, y1, x2, y2), spatial_scale, pooled_height,
 * pooled_width, sampling_ratio, aligned): RoiAlign with mode avg; sampling_ratio < 1 is torchvision's
 * adaptive count, RoiAlign's 0. aligned=False is RoiAlign's output_half_pixel (its behaviour at
 * 10, named from 16 where the default became half_pixel); aligned=True is half_pixel, native from
 * 16 (output_half_pixel keeps a roi at least 1 wide, which a shift of the boxes cannot undo),
 * below by gathers (olg__emit_roi_align) when the sampling ratio is fixed.
 *
 * The ONNX RoiAlign where the target's cannot say it (none below 10, no half_pixel below 16): by
 * gathers for a fixed sampling_ratio; 0 (a grid sized per roi at run time) stays refused. */
#include <stdint.h>
#include <string.h>

#include "emit.h"
#include "emit_roi.h"
#include "emit_src.h"
#include "symbolics.h"

/* loops: below 10, NonMaxSuppression-10 emitted at its version, which its conversion (nms.c)
 * writes as Loops. */
static olg_status tv_nms(olg_lower *cx, bool loops) {
  olg_value boxes, scores, b3, s3, max_out, iou_v, sel, col, keep;
  double iou;
  OLG_TRY(olg_lower_arg_value(cx, 0, &boxes));
  OLG_TRY(olg_lower_arg_value(cx, 1, &scores));
  OLG_TRY(olg__arg_float_or(cx, 2, 0.5, &iou));
  static const int64_t ax0 = 0, ax01[2] = {0, 1};
  OLG_TRY(olg__emit_unsqueeze(cx, boxes, &ax0, 1, &b3));
  OLG_TRY(olg__emit_unsqueeze(cx, scores, ax01, 2, &s3));
  static const int64_t all = INT64_MAX;
  const float thr = (float)iou;
  OLG_TRY(olg__const_i64s(cx, &all, 1, &max_out));
  OLG_TRY(olg__const_f32s(cx, &thr, 1, &iou_v));
  const olg_value in[4] = {b3, s3, max_out, iou_v};
  if (!loops) {
    OLG_TRY(olg__emit(cx, "NonMaxSuppression", in, 4, &sel));
  } else {
    olg_node_id n;
    OLG_TRY(olg_lower_emit_begin(cx, "", "NonMaxSuppression", &n));
    for (int k = 0; k < 4; k++) OLG_TRY(olg_lower_emit_input(cx, n, in[k]));
    OLG_TRY(olg_lower_emit_end_at(cx, n, 10, 1, &sel));
  }
  OLG_TRY(olg__const_i64(cx, 2, &col));
  OLG_TRY(olg__emit_gather(cx, sel, col, 1, &keep));
  return olg_lower_bind_output(cx, 0, keep);
}

olg_status olg__sym_tv_nms(olg_lower *cx, olg_node_id src, void *ud) {
  (void)src;
  (void)ud;
  return tv_nms(cx, false);
}

olg_status olg__sym_tv_nms_loops(olg_lower *cx, olg_node_id src, void *ud) {
  (void)src;
  (void)ud;
  return tv_nms(cx, true);
}

static olg_status roi_align(olg_lower *cx, bool name_mode) {
  olg_value x, rois, bidx, boxes, col, out;
  double scale;
  int64_t ph, pw, sr;
  int aligned;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg_lower_arg_value(cx, 1, &rois));
  OLG_TRY(olg__arg_float_or(cx, 2, 1.0, &scale));
  OLG_TRY(olg__arg_int_or(cx, 3, 1, &ph));
  OLG_TRY(olg__arg_int_or(cx, 4, 1, &pw));
  OLG_TRY(olg__arg_int_or(cx, 5, -1, &sr));
  OLG_TRY(olg__arg_bool_or(cx, 6, 0, &aligned));
  if (aligned && !name_mode && sr <= 0)
    return olg_lower_unsupported(cx, "torchvision::roi_align with aligned=True (RoiAlign's "
                                     "half_pixel mode) and an adaptive sampling ratio (a grid "
                                     "sized per roi at run time)", 16);
  static const int64_t s1 = 1, e5 = 5, ax1 = 1;
  OLG_TRY(olg__const_i64(cx, 0, &col));
  OLG_TRY(olg__emit_gather(cx, rois, col, 1, &bidx));
  OLG_TRY(olg__emit_cast(cx, bidx, OLG_INT64, &bidx));
  OLG_TRY(olg__emit_slice(cx, rois, &s1, &e5, &ax1, NULL, 1, &boxes));
  if (aligned && !name_mode) {
    const olg_roi_align p = {ph, pw, sr, scale, true, false};
    OLG_TRY(olg__emit_roi_align(cx, x, boxes, bidx, &p, &out));
    return olg_lower_bind_output(cx, 0, out);
  }
  olg_node_id n;
  OLG_TRY(olg_lower_emit_begin(cx, "", "RoiAlign", &n));
  OLG_TRY(olg_lower_emit_input(cx, n, x));
  OLG_TRY(olg_lower_emit_input(cx, n, boxes));
  OLG_TRY(olg_lower_emit_input(cx, n, bidx));
  OLG_TRY(olg_lower_emit_attr_string(cx, n, "mode", "avg"));
  OLG_TRY(olg_lower_emit_attr_int(cx, n, "output_height", ph));
  OLG_TRY(olg_lower_emit_attr_int(cx, n, "output_width", pw));
  OLG_TRY(olg_lower_emit_attr_int(cx, n, "sampling_ratio", sr > 0 ? sr : 0));
  OLG_TRY(olg_lower_emit_attr_float(cx, n, "spatial_scale", (float)scale));
  if (name_mode)
    OLG_TRY(olg_lower_emit_attr_string(cx, n, "coordinate_transformation_mode",
                                       aligned ? "half_pixel" : "output_half_pixel"));
  OLG_TRY(olg_lower_emit_end(cx, n, 1, &out));
  return olg_lower_bind_output(cx, 0, out);
}

olg_status olg__sym_tv_roi_align(olg_lower *cx, olg_node_id src, void *ud) {
  (void)src;
  (void)ud;
  return roi_align(cx, olg__target_has_attr(cx, "RoiAlign", "coordinate_transformation_mode"));
}


olg_status olg__sym_onnx_roi_align(olg_lower *cx, olg_node_id src, void *ud) {
  const char *coords = olg__src_roialign_coordinates(cx);
  const char *mode = olg__src_attr_string(cx, "mode", "avg");
  bool half = strcmp(coords, "half_pixel") == 0, max_mode = strcmp(mode, "max") == 0;
  if (!half && strcmp(coords, "output_half_pixel") != 0)
    return olg__errf(cx, OLG_ERR_INVALID_ARG, "RoiAlign: coordinate_transformation_mode '%s' is "
                     "not half_pixel or output_half_pixel", coords);
  if (!max_mode && strcmp(mode, "avg") != 0)
    return olg__errf(cx, OLG_ERR_INVALID_ARG, "RoiAlign: mode '%s' is not avg or max", mode);
  if (olg__target_has(cx, "RoiAlign") &&
      (!half || olg__target_has_attr(cx, "RoiAlign", "coordinate_transformation_mode")))
    return olg__sym_onnx_passthrough(cx, src, ud);
  olg_roi_align p = {olg__src_attr_int(cx, "output_height", 1),
                     olg__src_attr_int(cx, "output_width", 1),
                     olg__src_attr_int(cx, "sampling_ratio", 0),
                     olg__src_attr_float(cx, "spatial_scale", 1.0), half, max_mode};
  if (p.sampling <= 0)
    return olg_lower_unsupported(cx, half ? "RoiAlign in half_pixel mode with sampling_ratio 0 (a "
                                            "grid sized per roi at run time)"
                                          : "RoiAlign with sampling_ratio 0 (a grid sized per roi "
                                            "at run time)", half ? 16 : 10);
  olg_value x, rois, bidx, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg_lower_arg_value(cx, 1, &rois));
  OLG_TRY(olg_lower_arg_value(cx, 2, &bidx));
  OLG_TRY(olg__emit_roi_align(cx, x, rois, bidx, &p, &y));
  return olg_lower_bind_output(cx, 0, y);
}
