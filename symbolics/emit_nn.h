/* onnxlegal — emit helpers of the convolution, pooling and normalization families
 * (symbolics/conv.c, pool.c, norm.c; internal). Defined in symbolics/emit_nn.c. */
#ifndef OLG_SYMBOLICS_EMIT_NN_H
#define OLG_SYMBOLICS_EMIT_NN_H
#include <stdbool.h>
#include <stdint.h>

#include "emit.h"

/* PyTorch's convolutions and pools have 1, 2 or 3 spatial axes. */
#define OLG_MAX_SPATIAL 3

/* The number of spatial axes named by the source op ("max_pool2d_with_indices" -> 2), or -1. */
int olg__op_spatial_dims(const olg_lower *cx);

/* A per-spatial-axis int[] argument (PyTorch's int[N]): a single int or a list of one is
 * repeated for the n axes; none or an empty list gives dflt (NULL: the argument is required). */
olg_status olg__spatial_arg(olg_lower *cx, size_t i, int n, const int64_t *dflt, const char *what,
                            int64_t *out);

/* PyTorch accepts an unbatched input ([C, spatial...], rank n+1) where ONNX wants [N, C, ...]:
 * olg__batch_in gives x with a leading 1 in that case (and sets *unbatched), olg__batch_out
 * removes it again. A rank other than n+1 or n+2 is an error naming `op`. */
olg_status olg__batch_in(olg_lower *cx, olg_value x, int n, const char *op, olg_value *xb,
                         bool *unbatched);
olg_status olg__batch_out(olg_lower *cx, olg_value y, bool unbatched, olg_value *out);

/* A constant of the real dtype t (float, double; float16/bfloat16 through a Cast) holding
 * v[0..count) in the shape dims[0..rank). */
olg_status olg__const_real(olg_lower *cx, olg_dtype t, int32_t rank, const int64_t *dims,
                           const double *v, size_t count, olg_value *out);

/* A 1-D int64 tensor of one element: dim `axis` of x times mul, divided by div (a constant
 * when the dim is known, else Shape arithmetic). */
olg_status olg__dim_scaled(olg_lower *cx, olg_value x, int64_t axis, int64_t mul, int64_t div,
                           olg_value *out);


/* RMS normalization over the dims from `axis` on (>= 0; negative only when x's rank is unknown): x / sqrt(mean(x^2) + eps)
 * computed in `stash` and cast back to x's dtype, times scale (OLG_NO_VALUE: none), for aten
 * rms_norm and ONNX RMSNormalization. RMSNormalization where the target's version takes the
 * dtypes, else the formula; `decomposed` as olg__emit_gelu's (emit_act.h). */
typedef struct olg_rms_norm_params {
  int64_t axis;
  double eps;
  olg_dtype stash;
} olg_rms_norm_params;
olg_status olg__emit_rms_norm(olg_lower *cx, olg_value x, olg_value scale,
                              const olg_rms_norm_params *p, const char *decomposed, olg_value *out);

/* A window pool (emit_pool.c): AveragePool (lp 0) or LpPool (lp 1, exponent p) with its
 * attributes spelled out for the nk spatial axes (pads: nk begins then nk ends). */
typedef struct olg_window_pool {
  int lp;
  int64_t p;
  size_t nk;
  int64_t kernel[OLG_MAX_SPATIAL], strides[OLG_MAX_SPATIAL], dilations[OLG_MAX_SPATIAL];
  int64_t pads[2 * OLG_MAX_SPATIAL];
  int ceil_mode, count_include_pad, auto_pad; /* auto_pad: other than NOTSET */
} olg_window_pool;
/* A pooling window's kernel, stride, dilation and pads are refused past OLG_POOL_ARG_MAX, its
 * input dim past OLG_POOL_IN_MAX: below them no window arithmetic (aten's or ONNX's) passes int64. */
#define OLG_POOL_ARG_MAX ((int64_t)1 << 31)
#define OLG_POOL_IN_MAX ((int64_t)1 << 40)
/* The target's op cannot take it: AveragePool with dilations below 19, LpPool with dilations or
 * ceil_mode below 18. */
bool olg__window_pool_decomposes(const olg_lower *cx, const olg_window_pool *w);
/* Such a pool decomposed exactly (Conv of ones per channel; AveragePool divided by the taps
 * counted, LpPool as (sum |x|^p)^(1/p)); needs the channels and spatial sizes known, else
 * refused naming the op's own opset (19, 18). */
olg_status olg__emit_window_pool(olg_lower *cx, olg_value x, const olg_window_pool *w,
                                 olg_value *out);

/* DeformConv (19) of 2 spatial axes decomposed (emit_deform.c): bilinear samples by Gather,
 * MatMul with the weights; b and mask may be OLG_NO_VALUE. The input's and weight's shapes must
 * be known, else refused naming 19. */
typedef struct olg_deform_conv {
  int64_t kernel[2], strides[2], dilations[2], pads[4];
  int64_t group, offset_group;
} olg_deform_conv;
olg_status olg__emit_deform_conv(olg_lower *cx, olg_value x, olg_value w, olg_value off,
                                 olg_value b, olg_value mask, const olg_deform_conv *p,
                                 olg_value *out);
#endif
