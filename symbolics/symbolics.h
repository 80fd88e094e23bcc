/* onnxlegal — declarations of the built-in symbolic functions (internal), one section per family
 * file symbolics/<family>.c. Each is an olg_symbolic_fn, registered in opsets/opsetNN.c. */
#ifndef OLG_SYMBOLICS_H
#define OLG_SYMBOLICS_H
#include "onnxlegal/registry.h"

#define OLG_SYMBOLIC(name) olg_status name(olg_lower *cx, olg_node_id src, void *ud)

/* ---- shape and indexing basics (symbolics/shape.c) ---- */
OLG_SYMBOLIC(olg__sym_view);          /* view, reshape, _reshape_alias-like */
OLG_SYMBOLIC(olg__sym_flatten);
OLG_SYMBOLIC(olg__sym_permute);
OLG_SYMBOLIC(olg__sym_transpose);
OLG_SYMBOLIC(olg__sym_identity);      /* contiguous, detach, clone, dropout family in inference */
OLG_SYMBOLIC(olg__sym_squeeze);
OLG_SYMBOLIC(olg__sym_unsqueeze);
OLG_SYMBOLIC(olg__sym_expand);
OLG_SYMBOLIC(olg__sym_expand_as);
OLG_SYMBOLIC(olg__sym_cat);
OLG_SYMBOLIC(olg__sym_stack);
OLG_SYMBOLIC(olg__sym_slice);
OLG_SYMBOLIC(olg__sym_select);
OLG_SYMBOLIC(olg__sym_narrow);
OLG_SYMBOLIC(olg__sym_size);
OLG_SYMBOLIC(olg__sym_numel);
OLG_SYMBOLIC(olg__sym_to);
OLG_SYMBOLIC(olg__sym_type_as);

/* ---- ONNX domain: pass-through and re-encoding (symbolics/onnx.c) ---- */
OLG_SYMBOLIC(olg__sym_onnx_passthrough); /* the fallback for every ONNX op without a row */
OLG_SYMBOLIC(olg__sym_onnx_squeeze);     /* Squeeze, Unsqueeze */
OLG_SYMBOLIC(olg__sym_onnx_reduce);      /* Reduce* */
OLG_SYMBOLIC(olg__sym_onnx_slice);
OLG_SYMBOLIC(olg__sym_onnx_pad);
OLG_SYMBOLIC(olg__sym_onnx_split);
OLG_SYMBOLIC(olg__sym_onnx_clip);
OLG_SYMBOLIC(olg__sym_onnx_resize);      /* Resize, Upsample */
OLG_SYMBOLIC(olg__sym_onnx_dropout);
OLG_SYMBOLIC(olg__sym_onnx_batchnorm);
OLG_SYMBOLIC(olg__sym_onnx_topk);
OLG_SYMBOLIC(olg__sym_onnx_softmax);     /* Softmax, LogSoftmax, Hardmax */
OLG_SYMBOLIC(olg__sym_onnx_constant);    /* value_int(s)/value_float(s) (12+) as a tensor */
OLG_SYMBOLIC(olg__sym_onnx_scatter);     /* Scatter (9, removed at 11) <-> ScatterElements */

/* ---- interpolation (symbolics/interpolate.c) ---- */
OLG_SYMBOLIC(olg__sym_upsample_nearest1d); /* both overloads: per-dim scales and .vec */
OLG_SYMBOLIC(olg__sym_upsample_nearest2d);
OLG_SYMBOLIC(olg__sym_upsample_nearest3d);
OLG_SYMBOLIC(olg__sym_upsample_linear1d);
OLG_SYMBOLIC(olg__sym_upsample_bilinear2d);
OLG_SYMBOLIC(olg__sym_upsample_trilinear3d);
OLG_SYMBOLIC(olg__sym_upsample_bicubic2d);

/* ---- convolution and pooling (symbolics/conv.c, symbolics/pool.c) ---- */
OLG_SYMBOLIC(olg__sym_conv);               /* conv1d/2d/3d (ints or 'same'/'valid'), _convolution_mode */
OLG_SYMBOLIC(olg__sym_conv_transpose);     /* conv_transpose1d/2d/3d */
OLG_SYMBOLIC(olg__sym_convolution);        /* _convolution, convolution (transposed or not) */
OLG_SYMBOLIC(olg__sym_pixel_shuffle);      /* DepthToSpace CRD (11) or Reshape/Transpose */
OLG_SYMBOLIC(olg__sym_pixel_unshuffle);
OLG_SYMBOLIC(olg__sym_im2col);
OLG_SYMBOLIC(olg__sym_col2im);             /* Col2Im (18) or one-hot ConvTranspose */
OLG_SYMBOLIC(olg__sym_max_pool);           /* max_pool1d/2d/3d and *_with_indices */
OLG_SYMBOLIC(olg__sym_avg_pool);           /* avg_pool1d/2d/3d */
OLG_SYMBOLIC(olg__sym_adaptive_avg_pool);  /* adaptive_avg_pool1d/2d/3d, _adaptive_avg_pool2d/3d */
OLG_SYMBOLIC(olg__sym_adaptive_max_pool);  /* adaptive_max_pool1d/2d/3d (values, indices) */

/* ---- normalization (symbolics/norm.c) ---- */
OLG_SYMBOLIC(olg__sym_batch_norm);
OLG_SYMBOLIC(olg__sym_instance_norm);
OLG_SYMBOLIC(olg__sym_layer_norm_decomposed);        /* < 17 */
OLG_SYMBOLIC(olg__sym_layer_norm);                   /* LayerNormalization-17 */
OLG_SYMBOLIC(olg__sym_native_layer_norm_decomposed); /* < 17; out, mean, rstd */
OLG_SYMBOLIC(olg__sym_native_layer_norm);
OLG_SYMBOLIC(olg__sym_group_norm_decomposed);        /* < 21: InstanceNormalization */
OLG_SYMBOLIC(olg__sym_group_norm);                   /* GroupNormalization-21 */
OLG_SYMBOLIC(olg__sym_native_group_norm_decomposed);
OLG_SYMBOLIC(olg__sym_native_group_norm);
OLG_SYMBOLIC(olg__sym_rms_norm_decomposed);          /* < 23 */
OLG_SYMBOLIC(olg__sym_rms_norm);                     /* RMSNormalization-23 */
OLG_SYMBOLIC(olg__sym_local_response_norm);

#endif
