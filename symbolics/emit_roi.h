/* onnxlegal — RoiAlign by gathers (symbolics/emit_roi.c; internal): for the targets whose RoiAlign
 * cannot say what is asked (none below 10; no half_pixel below 16), shared by the ONNX op and
 * torchvision::roi_align (symbolics/detection.c). */
#ifndef OLG_SYMBOLICS_EMIT_ROI_H
#define OLG_SYMBOLICS_EMIT_ROI_H
#include <stdbool.h>
#include <stdint.h>

#include "emit.h"

typedef struct olg_roi_align {
  int64_t out_h, out_w;  /* output_height, output_width */
  int64_t sampling;      /* sampling_ratio: > 0 (0, adaptive per roi, is refused here) */
  double spatial_scale;
  bool half_pixel;       /* coordinate_transformation_mode half_pixel, else output_half_pixel */
  bool max_mode;         /* mode max (ONNX Runtime's: the largest weighted corner), else avg */
} olg_roi_align;

/* Y [K, C, out_h, out_w] of RoiAlign(x [N, C, H, W], rois [K, 4] (x1, y1, x2, y2), batch
 * indices [K] int64), as ONNX Runtime's kernel computes it: sampling points, clamping and
 * weights in x's float type. */
olg_status olg__emit_roi_align(olg_lower *cx, olg_value x, olg_value rois, olg_value bidx,
                               const olg_roi_align *p, olg_value *out);

#endif
