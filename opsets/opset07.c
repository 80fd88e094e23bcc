/* onnxlegal — what the exporter registers or changes at opset 7 (see opsets/opsets.h). */
#include "opsets.h"
#include "../symbolics/symbolics.h"

const olg_symbolic_reg olg__opset07[] = {
    /* ---- ONNX indexing below its opset (symbolics/index.c) ---- */
    {"", "GatherElements", olg__sym_onnx_gather_elements, OLG_LOWERING_DECOMPOSED | OLG_UNTIL(11)},
    {"", "GatherND", olg__sym_onnx_gather_nd, OLG_LOWERING_DECOMPOSED | OLG_UNTIL(12)},
    /* a row scatter (symbolics/scatter.c); a multiplying, max or min one needs Where (9) */
    {"", "Scatter", olg__sym_onnx_scatter, OLG_LOWERING_DECOMPOSED},
    {"", "ScatterElements", olg__sym_onnx_scatter, OLG_LOWERING_DECOMPOSED},
    {"", "ScatterND", olg__sym_onnx_scatter, OLG_LOWERING_DECOMPOSED},

    /* ---- ONNX elementwise ops below their opset or type (onnx_math.c, activation.c) ---- */
    {"", "Acosh", olg__sym_acosh, OLG_LOWERING_DECOMPOSED | OLG_UNTIL(9)}, /* elementwise.c */
    {"", "Add", olg__sym_onnx_int_arith, OLG_LOWERING_NATIVE | OLG_UNTIL(14)}, /* 8-/16-bit ints: wider, wrapped */
    {"", "Asinh", olg__sym_asinh, OLG_LOWERING_DECOMPOSED | OLG_UNTIL(9)},
    {"", "Atanh", olg__sym_atanh, OLG_LOWERING_DECOMPOSED | OLG_UNTIL(9)},
    {"", "BitShift", olg__sym_bitshift, OLG_LOWERING_DECOMPOSED | OLG_UNTIL(11)},
    {"", "Celu", olg__sym_onnx_celu, OLG_LOWERING_DECOMPOSED | OLG_UNTIL(12)},
    {"", "Cosh", olg__sym_cosh, OLG_LOWERING_DECOMPOSED | OLG_UNTIL(9)},
    {"", "Div", olg__sym_onnx_int_arith, OLG_LOWERING_NATIVE | OLG_UNTIL(14)},
    {"", "Equal", olg__sym_onnx_compare, OLG_LOWERING_NATIVE | OLG_UNTIL(11)},       /* floats: from 11 */
    {"", "Gemm", olg__sym_onnx_gemm, OLG_LOWERING_NATIVE | OLG_UNTIL(11)},          /* no C: a zero C */
    {"", "GreaterOrEqual", olg__sym_onnx_compare, OLG_LOWERING_DECOMPOSED | OLG_UNTIL(12)},
    {"", "IsInf", olg__sym_onnx_isinf, OLG_LOWERING_DECOMPOSED | OLG_UNTIL(10)},
    {"", "IsNaN", olg__sym_onnx_isnan, OLG_LOWERING_DECOMPOSED | OLG_UNTIL(9)},
    {"", "LessOrEqual", olg__sym_onnx_compare, OLG_LOWERING_DECOMPOSED | OLG_UNTIL(12)},
    {"", "Mod", olg__sym_onnx_mod, OLG_LOWERING_DECOMPOSED | OLG_UNTIL(10)},
    {"", "Mul", olg__sym_onnx_int_arith, OLG_LOWERING_NATIVE | OLG_UNTIL(14)},
    {"", "Round", olg__sym_round, OLG_LOWERING_DECOMPOSED | OLG_UNTIL(11)},
    {"", "Sign", olg__sym_sign, OLG_LOWERING_DECOMPOSED | OLG_UNTIL(9)},
    {"", "Sinh", olg__sym_sinh, OLG_LOWERING_DECOMPOSED | OLG_UNTIL(9)},
    {"", "Sub", olg__sym_onnx_int_arith, OLG_LOWERING_NATIVE | OLG_UNTIL(14)},
    {"", "ThresholdedRelu", olg__sym_onnx_thresholded_relu, OLG_LOWERING_DECOMPOSED | OLG_UNTIL(10)},
    {"", "Where", olg__sym_onnx_where, OLG_LOWERING_DECOMPOSED | OLG_UNTIL(9)}, /* a Gather pick */

    /* ---- shape and indexing basics (symbolics/shape.c) ---- */
    {"aten", "_reshape_alias", olg__sym_view, OLG_LOWERING_NATIVE},
    {"aten", "_to_copy", olg__sym_to_copy, OLG_LOWERING_NATIVE},
    {"aten", "_unsafe_view", olg__sym_view, OLG_LOWERING_NATIVE},
    {"aten", "alias", olg__sym_identity, OLG_LOWERING_NATIVE},
    {"aten", "cat", olg__sym_cat, OLG_LOWERING_NATIVE},
    {"aten", "clone", olg__sym_identity, OLG_LOWERING_NATIVE},
    {"aten", "contiguous", olg__sym_identity, OLG_LOWERING_NATIVE},
    {"aten", "detach", olg__sym_identity, OLG_LOWERING_NATIVE},
    {"aten", "expand", olg__sym_expand, OLG_LOWERING_NATIVE},
    {"aten", "expand_as", olg__sym_expand_as, OLG_LOWERING_NATIVE},
    {"aten", "flatten", olg__sym_flatten, OLG_LOWERING_NATIVE},
    {"aten", "lift_fresh", olg__sym_identity, OLG_LOWERING_NATIVE},
    {"aten", "lift_fresh_copy", olg__sym_identity, OLG_LOWERING_NATIVE},
    {"aten", "narrow", olg__sym_narrow, OLG_LOWERING_NATIVE},
    {"aten", "numel", olg__sym_numel, OLG_LOWERING_NATIVE},
    {"aten", "permute", olg__sym_permute, OLG_LOWERING_NATIVE},
    {"aten", "reshape", olg__sym_view, OLG_LOWERING_NATIVE},
    {"aten", "select", olg__sym_select, OLG_LOWERING_NATIVE},
    {"aten", "size", olg__sym_size, OLG_LOWERING_NATIVE},
    {"aten", "slice", olg__sym_slice, OLG_LOWERING_NATIVE},
    {"aten", "squeeze", olg__sym_squeeze, OLG_LOWERING_NATIVE},
    {"aten", "stack", olg__sym_stack, OLG_LOWERING_NATIVE},
    {"aten", "to", olg__sym_to, OLG_LOWERING_NATIVE},
    {"aten", "transpose", olg__sym_transpose, OLG_LOWERING_NATIVE},
    {"aten", "type_as", olg__sym_type_as, OLG_LOWERING_NATIVE},
    {"aten", "unsqueeze", olg__sym_unsqueeze, OLG_LOWERING_NATIVE},
    {"aten", "view", olg__sym_view, OLG_LOWERING_NATIVE},

    /* ---- ONNX domain: re-encoding where the encoding changed (symbolics/onnx.c); every
       other ONNX op is passed through where it exists (olg__sym_onnx_passthrough) ---- */
    {"", "ArgMax", olg__sym_onnx_arg_extreme, OLG_LOWERING_NATIVE | OLG_UNTIL(12)}, /* select_last_index: reversed */
    {"", "ArgMin", olg__sym_onnx_arg_extreme, OLG_LOWERING_NATIVE | OLG_UNTIL(12)}, /* select_last_index: reversed */
    {"", "AveragePool", olg__sym_onnx_pool_ceil, OLG_LOWERING_NATIVE | OLG_UNTIL(10)}, /* ceil_mode as padding */
    {"", "BatchNormalization", olg__sym_onnx_batchnorm, OLG_LOWERING_NATIVE}, /* norm.c */
    {"", "Bernoulli", olg__sym_onnx_bernoulli, OLG_LOWERING_DECOMPOSED | OLG_UNTIL(15)}, /* creation.c */
    {"", "BitwiseAnd", olg__sym_onnx_bitwise_and, OLG_LOWERING_DECOMPOSED}, /* native from 18 (emit_bits.c) */
    {"", "BitwiseNot", olg__sym_onnx_bitwise_not, OLG_LOWERING_DECOMPOSED},
    {"", "BitwiseOr", olg__sym_onnx_bitwise_or, OLG_LOWERING_DECOMPOSED},
    {"", "BitwiseXor", olg__sym_onnx_bitwise_xor, OLG_LOWERING_DECOMPOSED},
    {"", "CastLike", olg__sym_onnx_castlike, OLG_LOWERING_DECOMPOSED | OLG_UNTIL(15)},
    {"", "Clip", olg__sym_onnx_clip, OLG_LOWERING_NATIVE},
    {"", "Constant", olg__sym_onnx_constant, OLG_LOWERING_NATIVE},
    {"", "ConstantOfShape", olg__sym_onnx_constant_of_shape, OLG_LOWERING_DECOMPOSED | OLG_UNTIL(9)},
    {"", "CumProd", olg__sym_onnx_cumprod, OLG_LOWERING_DECOMPOSED}, /* native from 26 (reduce.c) */
    {"", "CumSum", olg__sym_onnx_cumsum, OLG_LOWERING_DECOMPOSED | OLG_UNTIL(11)}, /* reduce.c */
    {"", "DepthToSpace", olg__sym_onnx_depth_to_space, OLG_LOWERING_DECOMPOSED | OLG_UNTIL(11)}, /* conv.c: CRD */
    {"", "Det", olg__sym_det, OLG_LOWERING_DECOMPOSED | OLG_UNTIL(11)}, /* linalg.c: Leibniz, n <= 5 */
    {"", "Dropout", olg__sym_onnx_dropout, OLG_LOWERING_NATIVE},
    {"", "Einsum", olg__sym_onnx_einsum, OLG_LOWERING_DECOMPOSED | OLG_UNTIL(12)}, /* linalg.c */
    {"", "EyeLike", olg__sym_onnx_eye_like, OLG_LOWERING_DECOMPOSED | OLG_UNTIL(9)}, /* creation.c */
    {"", "Flatten", olg__sym_onnx_flatten, OLG_LOWERING_NATIVE},
    {"", "GRU", olg__sym_onnx_rnn_layout, OLG_LOWERING_NATIVE | OLG_UNTIL(14)}, /* rnn.c: layout 1 transposed */
    {"", "Gelu", olg__sym_onnx_gelu, OLG_LOWERING_DECOMPOSED}, /* native from 20 (activation.c) */
    {"", "GroupNormalization", olg__sym_onnx_group_norm, OLG_LOWERING_DECOMPOSED}, /* 18's scale per group: norm.c */
    {"", "HardSwish", olg__sym_onnx_hardswish, OLG_LOWERING_DECOMPOSED | OLG_UNTIL(14)},
    {"", "Hardmax", olg__sym_onnx_softmax, OLG_LOWERING_NATIVE},
    {"", "LSTM", olg__sym_onnx_rnn_layout, OLG_LOWERING_NATIVE | OLG_UNTIL(14)},
    {"", "LayerNormalization", olg__sym_onnx_layer_norm, OLG_LOWERING_DECOMPOSED | OLG_UNTIL(17)},
    {"", "LogSoftmax", olg__sym_onnx_softmax, OLG_LOWERING_NATIVE},
    {"", "LpPool", olg__sym_onnx_window_pool, OLG_LOWERING_NATIVE | OLG_UNTIL(18)}, /* dilations, ceil_mode (18) decomposed */
    {"", "Max", olg__sym_onnx_cast_around, OLG_LOWERING_NATIVE},  /* types: computed wider */
    {"", "MaxPool", olg__sym_onnx_max_pool, OLG_LOWERING_NATIVE | OLG_UNTIL(10)},     /* pool.c: ceil_mode as padding, dilations gathered */
    {"", "Mean", olg__sym_onnx_cast_around, OLG_LOWERING_NATIVE},
    {"", "MeanVarianceNormalization", olg__sym_onnx_mvn, OLG_LOWERING_DECOMPOSED | OLG_UNTIL(9)}, /* norm.c */
    {"", "Min", olg__sym_onnx_cast_around, OLG_LOWERING_NATIVE},
    {"", "Mish", olg__sym_onnx_mish, OLG_LOWERING_DECOMPOSED}, /* native from 18 (activation.c) */
    {"", "NegativeLogLikelihoodLoss", olg__sym_onnx_nll_loss, OLG_LOWERING_DECOMPOSED | OLG_UNTIL(12)},
    {"", "Pad", olg__sym_onnx_pad, OLG_LOWERING_NATIVE},
    {"", "Pow", olg__sym_onnx_cast_around, OLG_LOWERING_NATIVE},
    {"", "RMSNormalization", olg__sym_onnx_rms_norm, OLG_LOWERING_DECOMPOSED}, /* native from 23 (norm.c) */
    {"", "RNN", olg__sym_onnx_rnn_layout, OLG_LOWERING_NATIVE | OLG_UNTIL(14)},
    {"", "Range", olg__sym_onnx_range, OLG_LOWERING_DECOMPOSED | OLG_UNTIL(11)}, /* NonZero-9 */
    {"", "ReduceL1", olg__sym_onnx_reduce, OLG_LOWERING_NATIVE},
    {"", "ReduceL2", olg__sym_onnx_reduce, OLG_LOWERING_NATIVE},
    {"", "ReduceLogSum", olg__sym_onnx_reduce, OLG_LOWERING_NATIVE},
    {"", "ReduceLogSumExp", olg__sym_onnx_reduce, OLG_LOWERING_NATIVE},
    {"", "ReduceMax", olg__sym_onnx_reduce, OLG_LOWERING_NATIVE},
    {"", "ReduceMean", olg__sym_onnx_reduce, OLG_LOWERING_NATIVE},
    {"", "ReduceMin", olg__sym_onnx_reduce, OLG_LOWERING_NATIVE},
    {"", "ReduceProd", olg__sym_onnx_reduce, OLG_LOWERING_NATIVE},
    {"", "ReduceSum", olg__sym_onnx_reduce, OLG_LOWERING_NATIVE},
    {"", "ReduceSumSquare", olg__sym_onnx_reduce, OLG_LOWERING_NATIVE},
    {"", "Reshape", olg__sym_onnx_reshape, OLG_LOWERING_NATIVE},
    {"", "Resize", olg__sym_onnx_resize, OLG_LOWERING_NATIVE},
    {"", "ReverseSequence", olg__sym_onnx_reverse_sequence, OLG_LOWERING_DECOMPOSED | OLG_UNTIL(10)}, /* arrange.c */
    {"", "Shape", olg__sym_onnx_shape, OLG_LOWERING_NATIVE},
    {"", "Shrink", olg__sym_onnx_shrink, OLG_LOWERING_DECOMPOSED | OLG_UNTIL(9)}, /* activation.c */
    {"", "Slice", olg__sym_onnx_slice, OLG_LOWERING_NATIVE},
    {"", "Softmax", olg__sym_onnx_softmax, OLG_LOWERING_NATIVE},
    {"", "SoftmaxCrossEntropyLoss", olg__sym_onnx_sce_loss, OLG_LOWERING_DECOMPOSED | OLG_UNTIL(12)},
    {"", "Split", olg__sym_onnx_split, OLG_LOWERING_NATIVE},
    {"", "Squeeze", olg__sym_onnx_squeeze, OLG_LOWERING_NATIVE},
    {"", "Sum", olg__sym_onnx_cast_around, OLG_LOWERING_NATIVE},
    {"", "Swish", olg__sym_onnx_swish, OLG_LOWERING_DECOMPOSED}, /* native from 24 (activation.c) */
    {"", "TopK", olg__sym_onnx_topk, OLG_LOWERING_NATIVE},
    {"", "Trilu", olg__sym_onnx_trilu, OLG_LOWERING_DECOMPOSED | OLG_UNTIL(14)},
    {"", "Unsqueeze", olg__sym_onnx_squeeze, OLG_LOWERING_NATIVE},
    {"", "Upsample", olg__sym_onnx_resize, OLG_LOWERING_NATIVE},

    /* ---- interpolation (symbolics/interpolate.c) ---- */
    {"aten", "upsample_bicubic2d", olg__sym_upsample_bicubic2d, OLG_LOWERING_DECOMPOSED},
    {"aten", "upsample_bilinear2d", olg__sym_upsample_bilinear2d, OLG_LOWERING_DECOMPOSED},
    {"aten", "upsample_linear1d", olg__sym_upsample_linear1d, OLG_LOWERING_DECOMPOSED},
    {"aten", "upsample_nearest1d", olg__sym_upsample_nearest1d, OLG_LOWERING_NATIVE},
    {"aten", "upsample_nearest2d", olg__sym_upsample_nearest2d, OLG_LOWERING_NATIVE},
    {"aten", "upsample_nearest3d", olg__sym_upsample_nearest3d, OLG_LOWERING_NATIVE},
    {"aten", "upsample_trilinear3d", olg__sym_upsample_trilinear3d, OLG_LOWERING_DECOMPOSED},

    /* ---- convolution and pooling (symbolics/conv.c, symbolics/pool.c) ---- */
    {"", "Cast", olg__sym_onnx_cast_4bit, OLG_LOWERING_NATIVE | OLG_UNTIL(21)}, /* int4 (quant.c) */
    {"", "CausalConvWithState", olg__sym_onnx_causal_conv_with_state, OLG_LOWERING_DECOMPOSED | OLG_UNTIL(27)},
    {"", "CenterCropPad", olg__sym_onnx_center_crop_pad, OLG_LOWERING_DECOMPOSED | OLG_UNTIL(18)},
    {"", "Col2Im", olg__sym_onnx_col2im, OLG_LOWERING_DECOMPOSED}, /* the same, native from 18 */
    {"", "ConvInteger", olg__sym_onnx_conv_integer, OLG_LOWERING_DECOMPOSED | OLG_UNTIL(10)}, /* quant_int.c */
    {"", "DeformConv", olg__sym_onnx_deform_conv, OLG_LOWERING_DECOMPOSED | OLG_UNTIL(19)}, /* emit_deform.c */
    {"", "DequantizeLinear", olg__sym_onnx_dequantize_linear, OLG_LOWERING_DECOMPOSED}, /* from 10 */
    {"", "DynamicQuantizeLinear", olg__sym_onnx_dynamic_quantize_linear, OLG_LOWERING_DECOMPOSED | OLG_UNTIL(11)},
    {"", "LinearAttention", olg__sym_onnx_linear_attention, OLG_LOWERING_DECOMPOSED | OLG_UNTIL(27)},
    {"", "MatMulInteger", olg__sym_onnx_matmul_integer, OLG_LOWERING_DECOMPOSED | OLG_UNTIL(10)},
    {"", "QLinearConv", olg__sym_onnx_qlinear_conv, OLG_LOWERING_DECOMPOSED | OLG_UNTIL(10)},
    {"", "QLinearMatMul", olg__sym_onnx_qlinear_matmul, OLG_LOWERING_DECOMPOSED | OLG_UNTIL(10)},
    {"", "QuantizeLinear", olg__sym_onnx_quantize_linear, OLG_LOWERING_DECOMPOSED}, /* from 10 (quant.c) */
    {"", "TensorScatter", olg__sym_onnx_tensor_scatter, OLG_LOWERING_DECOMPOSED | OLG_UNTIL(24)},
    {"aten", "_adaptive_avg_pool2d", olg__sym_adaptive_avg_pool, OLG_LOWERING_NATIVE},
    {"aten", "_adaptive_avg_pool3d", olg__sym_adaptive_avg_pool, OLG_LOWERING_NATIVE},
    {"aten", "_convolution", olg__sym_convolution, OLG_LOWERING_NATIVE},
    {"aten", "_convolution_mode", olg__sym_conv, OLG_LOWERING_NATIVE},
    {"aten", "adaptive_avg_pool1d", olg__sym_adaptive_avg_pool, OLG_LOWERING_NATIVE},
    {"aten", "adaptive_avg_pool2d", olg__sym_adaptive_avg_pool, OLG_LOWERING_NATIVE},
    {"aten", "adaptive_avg_pool3d", olg__sym_adaptive_avg_pool, OLG_LOWERING_NATIVE},
    {"aten", "adaptive_max_pool1d", olg__sym_adaptive_max_pool, OLG_LOWERING_NATIVE},
    {"aten", "adaptive_max_pool2d", olg__sym_adaptive_max_pool, OLG_LOWERING_NATIVE},
    {"aten", "adaptive_max_pool3d", olg__sym_adaptive_max_pool, OLG_LOWERING_NATIVE},
    {"aten", "avg_pool1d", olg__sym_avg_pool, OLG_LOWERING_NATIVE},
    {"aten", "avg_pool2d", olg__sym_avg_pool, OLG_LOWERING_NATIVE},
    {"aten", "avg_pool3d", olg__sym_avg_pool, OLG_LOWERING_NATIVE},
    {"aten", "col2im", olg__sym_col2im, OLG_LOWERING_DECOMPOSED}, /* one-hot ConvTranspose */
    {"aten", "conv1d", olg__sym_conv, OLG_LOWERING_NATIVE},
    {"aten", "conv2d", olg__sym_conv, OLG_LOWERING_NATIVE},
    {"aten", "conv3d", olg__sym_conv, OLG_LOWERING_NATIVE},
    {"aten", "conv_transpose1d", olg__sym_conv_transpose, OLG_LOWERING_NATIVE},
    {"aten", "conv_transpose2d", olg__sym_conv_transpose, OLG_LOWERING_NATIVE},
    {"aten", "conv_transpose3d", olg__sym_conv_transpose, OLG_LOWERING_NATIVE},
    {"aten", "convolution", olg__sym_convolution, OLG_LOWERING_NATIVE},
    {"aten", "im2col", olg__sym_im2col, OLG_LOWERING_NATIVE},
    {"aten", "max_pool1d", olg__sym_max_pool, OLG_LOWERING_NATIVE},
    {"aten", "max_pool1d_with_indices", olg__sym_max_pool, OLG_LOWERING_NATIVE},
    {"aten", "max_pool2d", olg__sym_max_pool, OLG_LOWERING_NATIVE},
    {"aten", "max_pool2d_with_indices", olg__sym_max_pool, OLG_LOWERING_NATIVE},
    {"aten", "max_pool3d", olg__sym_max_pool, OLG_LOWERING_NATIVE},
    {"aten", "max_pool3d_with_indices", olg__sym_max_pool, OLG_LOWERING_NATIVE},
    {"aten", "pixel_shuffle", olg__sym_pixel_shuffle, OLG_LOWERING_DECOMPOSED},
    {"aten", "pixel_unshuffle", olg__sym_pixel_unshuffle, OLG_LOWERING_NATIVE},

    /* ---- normalization (symbolics/norm.c) ---- */
    {"aten", "batch_norm", olg__sym_batch_norm, OLG_LOWERING_NATIVE},
    {"aten", "group_norm", olg__sym_group_norm, OLG_LOWERING_DECOMPOSED},
    {"aten", "instance_norm", olg__sym_instance_norm, OLG_LOWERING_NATIVE},
    {"aten", "layer_norm", olg__sym_layer_norm, OLG_LOWERING_DECOMPOSED},
    {"aten", "local_response_norm", olg__sym_local_response_norm, OLG_LOWERING_NATIVE},
    {"aten", "native_batch_norm", olg__sym_batch_norm, OLG_LOWERING_NATIVE},
    {"aten", "native_group_norm", olg__sym_native_group_norm, OLG_LOWERING_DECOMPOSED},
    {"aten", "native_layer_norm", olg__sym_native_layer_norm, OLG_LOWERING_DECOMPOSED},
    {"aten", "rms_norm", olg__sym_rms_norm, OLG_LOWERING_DECOMPOSED},

    /* ---- activations (symbolics/activation.c); the dropout family is the identity ---- */
    {"aten", "_log_softmax", olg__sym_log_softmax_half_to_float, OLG_LOWERING_NATIVE},
    {"aten", "_softmax", olg__sym_softmax_half_to_float, OLG_LOWERING_NATIVE},
    {"aten", "alpha_dropout", olg__sym_dropout, OLG_LOWERING_NATIVE},
    {"aten", "celu", olg__sym_celu, OLG_LOWERING_DECOMPOSED},
    {"aten", "dropout", olg__sym_dropout, OLG_LOWERING_NATIVE},
    {"aten", "elu", olg__sym_elu, OLG_LOWERING_NATIVE},
    {"aten", "feature_alpha_dropout", olg__sym_dropout, OLG_LOWERING_NATIVE},
    {"aten", "feature_dropout", olg__sym_dropout, OLG_LOWERING_NATIVE},
    {"aten", "gelu", olg__sym_gelu, OLG_LOWERING_DECOMPOSED}, /* 'none' needs Erf-9 */
    {"aten", "glu", olg__sym_glu, OLG_LOWERING_NATIVE},
    {"aten", "hardshrink", olg__sym_hardshrink, OLG_LOWERING_NATIVE}, /* Shrink, Where picks below 9 */
    {"aten", "hardsigmoid", olg__sym_hardsigmoid, OLG_LOWERING_NATIVE},
    {"aten", "hardswish", olg__sym_hardswish, OLG_LOWERING_DECOMPOSED},
    {"aten", "hardtanh", olg__sym_hardtanh, OLG_LOWERING_NATIVE},
    {"aten", "leaky_relu", olg__sym_leaky_relu, OLG_LOWERING_NATIVE},
    {"aten", "log_sigmoid", olg__sym_log_sigmoid, OLG_LOWERING_NATIVE},
    {"aten", "log_softmax", olg__sym_log_softmax, OLG_LOWERING_NATIVE},
    {"aten", "mish", olg__sym_mish, OLG_LOWERING_DECOMPOSED},
    {"aten", "prelu", olg__sym_prelu, OLG_LOWERING_NATIVE},
    {"aten", "relu", olg__sym_relu, OLG_LOWERING_NATIVE},
    {"aten", "relu6", olg__sym_relu6, OLG_LOWERING_NATIVE},
    {"aten", "selu", olg__sym_selu, OLG_LOWERING_NATIVE},
    {"aten", "sigmoid", olg__sym_sigmoid, OLG_LOWERING_NATIVE},
    {"aten", "silu", olg__sym_silu, OLG_LOWERING_NATIVE},
    {"aten", "softmax", olg__sym_softmax, OLG_LOWERING_NATIVE},
    {"aten", "softplus", olg__sym_softplus, OLG_LOWERING_NATIVE},
    {"aten", "softshrink", olg__sym_softshrink, OLG_LOWERING_NATIVE},
    {"aten", "softsign", olg__sym_softsign, OLG_LOWERING_NATIVE},
    {"aten", "tanh", olg__sym_tanh, OLG_LOWERING_NATIVE},
    {"aten", "threshold", olg__sym_threshold, OLG_LOWERING_NATIVE},

    /* ---- elementwise math, comparison, logic (symbolics/elementwise.c) ---- */
    {"aten", "__and__", olg__sym_bitwise_and, OLG_LOWERING_NATIVE},
    {"aten", "__lshift__", olg__sym_bitshift, OLG_LOWERING_DECOMPOSED},
    {"aten", "__or__", olg__sym_bitwise_or, OLG_LOWERING_NATIVE},
    {"aten", "__rshift__", olg__sym_bitshift, OLG_LOWERING_DECOMPOSED},
    {"aten", "__xor__", olg__sym_bitwise_xor, OLG_LOWERING_NATIVE},
    {"aten", "abs", olg__sym_abs, OLG_LOWERING_NATIVE},
    {"aten", "acos", olg__sym_acos, OLG_LOWERING_NATIVE},
    {"aten", "acosh", olg__sym_acosh, OLG_LOWERING_DECOMPOSED},
    {"aten", "add", olg__sym_add, OLG_LOWERING_NATIVE},
    {"aten", "addcmul", olg__sym_addcmul, OLG_LOWERING_NATIVE},
    {"aten", "asin", olg__sym_asin, OLG_LOWERING_NATIVE},
    {"aten", "asinh", olg__sym_asinh, OLG_LOWERING_DECOMPOSED},
    {"aten", "atan", olg__sym_atan, OLG_LOWERING_NATIVE},
    {"aten", "atanh", olg__sym_atanh, OLG_LOWERING_DECOMPOSED},
    {"aten", "bitwise_and", olg__sym_bitwise_and, OLG_LOWERING_NATIVE},
    {"aten", "bitwise_left_shift", olg__sym_bitshift, OLG_LOWERING_DECOMPOSED},
    {"aten", "bitwise_not", olg__sym_bitwise_not, OLG_LOWERING_NATIVE},
    {"aten", "bitwise_or", olg__sym_bitwise_or, OLG_LOWERING_NATIVE},
    {"aten", "bitwise_right_shift", olg__sym_bitshift, OLG_LOWERING_DECOMPOSED},
    {"aten", "bitwise_xor", olg__sym_bitwise_xor, OLG_LOWERING_NATIVE},
    {"aten", "ceil", olg__sym_ceil, OLG_LOWERING_NATIVE},
    {"aten", "clamp", olg__sym_clamp, OLG_LOWERING_NATIVE},
    {"aten", "clamp_max", olg__sym_clamp_max, OLG_LOWERING_NATIVE},
    {"aten", "clamp_min", olg__sym_clamp_min, OLG_LOWERING_NATIVE},
    {"aten", "cos", olg__sym_cos, OLG_LOWERING_NATIVE},
    {"aten", "cosh", olg__sym_cosh, OLG_LOWERING_DECOMPOSED},
    {"aten", "div", olg__sym_div, OLG_LOWERING_NATIVE},
    {"aten", "eq", olg__sym_eq, OLG_LOWERING_NATIVE},
    {"aten", "exp", olg__sym_exp, OLG_LOWERING_NATIVE},
    {"aten", "floor", olg__sym_floor, OLG_LOWERING_NATIVE},
    {"aten", "floor_divide", olg__sym_floor_divide, OLG_LOWERING_NATIVE},
    {"aten", "fmod", olg__sym_fmod, OLG_LOWERING_DECOMPOSED},
    {"aten", "ge", olg__sym_ge, OLG_LOWERING_DECOMPOSED},
    {"aten", "gt", olg__sym_gt, OLG_LOWERING_NATIVE},
    {"aten", "isinf", olg__sym_isinf, OLG_LOWERING_DECOMPOSED},
    {"aten", "isnan", olg__sym_isnan, OLG_LOWERING_DECOMPOSED},
    {"aten", "le", olg__sym_le, OLG_LOWERING_DECOMPOSED},
    {"aten", "lerp", olg__sym_lerp, OLG_LOWERING_NATIVE},
    {"aten", "log", olg__sym_log, OLG_LOWERING_NATIVE},
    {"aten", "log1p", olg__sym_log1p, OLG_LOWERING_NATIVE},
    {"aten", "log2", olg__sym_log2, OLG_LOWERING_NATIVE},
    {"aten", "logical_and", olg__sym_logical_and, OLG_LOWERING_NATIVE},
    {"aten", "logical_not", olg__sym_logical_not, OLG_LOWERING_NATIVE},
    {"aten", "logical_or", olg__sym_logical_or, OLG_LOWERING_NATIVE},
    {"aten", "logical_xor", olg__sym_logical_xor, OLG_LOWERING_NATIVE},
    {"aten", "lt", olg__sym_lt, OLG_LOWERING_NATIVE},
    {"aten", "maximum", olg__sym_maximum, OLG_LOWERING_NATIVE},
    {"aten", "minimum", olg__sym_minimum, OLG_LOWERING_NATIVE},
    {"aten", "mul", olg__sym_mul, OLG_LOWERING_NATIVE},
    {"aten", "ne", olg__sym_ne, OLG_LOWERING_NATIVE},
    {"aten", "neg", olg__sym_neg, OLG_LOWERING_NATIVE},
    {"aten", "pow", olg__sym_pow, OLG_LOWERING_NATIVE},
    {"aten", "reciprocal", olg__sym_reciprocal, OLG_LOWERING_NATIVE},
    {"aten", "remainder", olg__sym_remainder, OLG_LOWERING_DECOMPOSED},
    {"aten", "round", olg__sym_round, OLG_LOWERING_DECOMPOSED},
    {"aten", "rsqrt", olg__sym_rsqrt, OLG_LOWERING_NATIVE},
    {"aten", "rsub", olg__sym_rsub, OLG_LOWERING_NATIVE},
    {"aten", "sign", olg__sym_sign, OLG_LOWERING_DECOMPOSED},
    {"aten", "sin", olg__sym_sin, OLG_LOWERING_NATIVE},
    {"aten", "sinh", olg__sym_sinh, OLG_LOWERING_DECOMPOSED},
    {"aten", "sqrt", olg__sym_sqrt, OLG_LOWERING_NATIVE},
    {"aten", "sub", olg__sym_sub, OLG_LOWERING_NATIVE},
    {"aten", "tan", olg__sym_tan, OLG_LOWERING_NATIVE},
    {"aten", "true_divide", olg__sym_div, OLG_LOWERING_NATIVE},
    {"aten", "trunc", olg__sym_trunc, OLG_LOWERING_NATIVE},

    /* ---- reductions (symbolics/reduce.c) ---- */
    {"aten", "all", olg__sym_all, OLG_LOWERING_DECOMPOSED}, /* no bool reduction: Cast + ReduceMin */
    {"aten", "amax", olg__sym_amax, OLG_LOWERING_NATIVE},
    {"aten", "amin", olg__sym_amin, OLG_LOWERING_NATIVE},
    {"aten", "any", olg__sym_any, OLG_LOWERING_DECOMPOSED}, /* Cast + ReduceMax */
    {"aten", "argmax", olg__sym_argmax, OLG_LOWERING_NATIVE},
    {"aten", "argmin", olg__sym_argmin, OLG_LOWERING_NATIVE},
    {"aten", "cumprod", olg__sym_cumprod, OLG_LOWERING_DECOMPOSED}, /* Where/ReduceProd (9) */
    {"aten", "cumsum", olg__sym_cumsum, OLG_LOWERING_DECOMPOSED}, /* MatMul by a triangle */
    {"aten", "frobenius_norm", olg__sym_frobenius_norm, OLG_LOWERING_NATIVE},
    {"aten", "linalg_vector_norm", olg__sym_linalg_vector_norm, OLG_LOWERING_NATIVE},
    {"aten", "logsumexp", olg__sym_logsumexp, OLG_LOWERING_NATIVE},
    {"aten", "max", olg__sym_max, OLG_LOWERING_NATIVE},
    {"aten", "mean", olg__sym_mean, OLG_LOWERING_NATIVE},
    {"aten", "min", olg__sym_min, OLG_LOWERING_NATIVE},
    {"aten", "norm", olg__sym_norm, OLG_LOWERING_NATIVE},
    {"aten", "prod", olg__sym_prod, OLG_LOWERING_NATIVE},
    {"aten", "std", olg__sym_std, OLG_LOWERING_NATIVE},
    {"aten", "sum", olg__sym_sum, OLG_LOWERING_NATIVE},
    {"aten", "var", olg__sym_var, OLG_LOWERING_NATIVE},

    /* ---- linear algebra (symbolics/linalg.c) ---- */
    {"aten", "addmm", olg__sym_addmm, OLG_LOWERING_NATIVE},
    {"aten", "baddbmm", olg__sym_baddbmm, OLG_LOWERING_NATIVE},
    {"aten", "bmm", olg__sym_matmul, OLG_LOWERING_NATIVE},
    {"aten", "det", olg__sym_det, OLG_LOWERING_DECOMPOSED}, /* Det-11 */
    {"aten", "einsum", olg__sym_einsum, OLG_LOWERING_DECOMPOSED}, /* MatMul/ReduceSum below 12 */
    {"aten", "linalg_det", olg__sym_det, OLG_LOWERING_DECOMPOSED},
    {"aten", "linear", olg__sym_linear, OLG_LOWERING_NATIVE},
    {"aten", "matmul", olg__sym_matmul, OLG_LOWERING_NATIVE},
    {"aten", "mm", olg__sym_matmul, OLG_LOWERING_NATIVE},
    {"aten", "t", olg__sym_t, OLG_LOWERING_NATIVE},

    /* ---- sampling (symbolics/sample.c): Gather-based decomposition ---- */
    {"aten", "affine_grid_generator", olg__sym_affine_grid_generator, OLG_LOWERING_DECOMPOSED},
    {"aten", "grid_sampler", olg__sym_grid_sampler, OLG_LOWERING_DECOMPOSED},
    {"aten", "grid_sampler_2d", olg__sym_grid_sampler, OLG_LOWERING_DECOMPOSED},
    {"aten", "grid_sampler_3d", olg__sym_grid_sampler, OLG_LOWERING_DECOMPOSED},

    /* ---- attention (symbolics/attention.c): MatMul/Softmax ---- */
    {"aten", "_native_multi_head_attention", olg__sym_native_multi_head_attention,
     OLG_LOWERING_NATIVE},
    {"aten", "scaled_dot_product_attention", olg__sym_scaled_dot_product_attention,
     OLG_LOWERING_DECOMPOSED},

    /* ---- recurrence (symbolics/rnn.c): LSTM-7, GRU-7, RNN-7 ---- */
    {"aten", "gru", olg__sym_gru, OLG_LOWERING_NATIVE},
    {"aten", "lstm", olg__sym_lstm, OLG_LOWERING_NATIVE},
    {"aten", "rnn_relu", olg__sym_rnn_relu, OLG_LOWERING_NATIVE},
    {"aten", "rnn_tanh", olg__sym_rnn_tanh, OLG_LOWERING_NATIVE},

    /* ---- shape and indexing (symbolics/index.c) ---- */
    {"aten", "chunk", olg__sym_chunk, OLG_LOWERING_NATIVE},
    {"aten", "constant_pad_nd", olg__sym_constant_pad_nd, OLG_LOWERING_NATIVE},
    {"aten", "embedding", olg__sym_embedding, OLG_LOWERING_NATIVE},
    {"aten", "flip", olg__sym_flip, OLG_LOWERING_DECOMPOSED}, /* Gather of reversed indices */
    {"aten", "gather", olg__sym_gather, OLG_LOWERING_DECOMPOSED}, /* Gather at static positions */
    {"aten", "index", olg__sym_index, OLG_LOWERING_NATIVE},
    {"aten", "index_put", olg__sym_index_put, OLG_LOWERING_DECOMPOSED}, /* Gather from Concat(data, values) */
    {"aten", "index_select", olg__sym_index_select, OLG_LOWERING_NATIVE},
    {"aten", "meshgrid", olg__sym_meshgrid, OLG_LOWERING_NATIVE},
    {"aten", "one_hot", olg__sym_one_hot, OLG_LOWERING_DECOMPOSED}, /* Equal */
    {"aten", "pad", olg__sym_pad, OLG_LOWERING_NATIVE},
    {"aten", "repeat", olg__sym_repeat, OLG_LOWERING_NATIVE},
    {"aten", "roll", olg__sym_roll, OLG_LOWERING_NATIVE},
    {"aten", "scatter", olg__sym_scatter, OLG_LOWERING_DECOMPOSED}, /* Gather from Concat(data, src) */
    {"aten", "scatter_add", olg__sym_scatter_add, OLG_LOWERING_DECOMPOSED}, /* one-hot MatMul */
    {"aten", "scatter_reduce", olg__sym_scatter_reduce, OLG_LOWERING_DECOMPOSED}, /* scatter.c */
    {"aten", "split", olg__sym_split, OLG_LOWERING_NATIVE},
    {"aten", "split_with_sizes", olg__sym_split_with_sizes, OLG_LOWERING_NATIVE},
    {"aten", "tile", olg__sym_tile, OLG_LOWERING_NATIVE},
    {"aten", "tril", olg__sym_tril, OLG_LOWERING_DECOMPOSED}, /* a static mask */
    {"aten", "triu", olg__sym_triu, OLG_LOWERING_DECOMPOSED}, /* a static mask */
    {"aten", "unbind", olg__sym_unbind, OLG_LOWERING_NATIVE},
    {"aten", "unflatten", olg__sym_unflatten, OLG_LOWERING_NATIVE},

    /* ---- tensor creation (symbolics/creation.c) ---- */
    {"aten", "arange", olg__sym_arange, OLG_LOWERING_NATIVE}, /* a constant; Range from 11 for run-time bounds */
    {"aten", "bernoulli", olg__sym_bernoulli, OLG_LOWERING_NATIVE}, /* U < p (RandomUniformLike) */
    {"aten", "empty", olg__sym_empty, OLG_LOWERING_NATIVE}, /* zeros: any contents are valid */
    {"aten", "fill", olg__sym_full_like, OLG_LOWERING_NATIVE}, /* fill_ made functional */
    {"aten", "full", olg__sym_full, OLG_LOWERING_NATIVE},
    {"aten", "full_like", olg__sym_full_like, OLG_LOWERING_NATIVE},
    {"aten", "linspace", olg__sym_linspace, OLG_LOWERING_NATIVE},
    {"aten", "new_full", olg__sym_new_full, OLG_LOWERING_NATIVE},
    {"aten", "new_ones", olg__sym_new_ones, OLG_LOWERING_NATIVE},
    {"aten", "new_zeros", olg__sym_new_zeros, OLG_LOWERING_NATIVE},
    {"aten", "ones", olg__sym_ones, OLG_LOWERING_NATIVE},
    {"aten", "ones_like", olg__sym_ones_like, OLG_LOWERING_NATIVE},
    {"aten", "zeros", olg__sym_zeros, OLG_LOWERING_NATIVE},
    {"aten", "zeros_like", olg__sym_zeros_like, OLG_LOWERING_NATIVE},

    /* ---- sorting (symbolics/sort.c) ---- */
    {"aten", "argsort", olg__sym_argsort, OLG_LOWERING_NATIVE},
    {"aten", "sort", olg__sym_sort, OLG_LOWERING_NATIVE},
    {"aten", "topk", olg__sym_topk, OLG_LOWERING_NATIVE},

    /* ---- sampling and attention, ONNX domain: the decompositions below the native opset ---- */
    {"", "AffineGrid", olg__sym_onnx_affine_grid_decomposed, OLG_LOWERING_DECOMPOSED | OLG_UNTIL(20)},
    {"", "Attention", olg__sym_onnx_attention_decomposed, OLG_LOWERING_DECOMPOSED},
    {"", "GridSample", olg__sym_onnx_grid_sample, OLG_LOWERING_DECOMPOSED},
    {"", "RoiAlign", olg__sym_onnx_roi_align, OLG_LOWERING_DECOMPOSED | OLG_UNTIL(16)},
    {"", "RotaryEmbedding", olg__sym_onnx_rotary_embedding_decomposed, OLG_LOWERING_DECOMPOSED | OLG_UNTIL(23)},

    /* ---- window functions (symbolics/signal.c), DFT (olg__emit_dft) ---- */
    {"", "BlackmanWindow", olg__sym_onnx_window, OLG_LOWERING_DECOMPOSED | OLG_UNTIL(17)},
    {"", "DFT", olg__sym_onnx_dft, OLG_LOWERING_DECOMPOSED},
    {"", "HammingWindow", olg__sym_onnx_window, OLG_LOWERING_DECOMPOSED | OLG_UNTIL(17)},
    {"", "HannWindow", olg__sym_onnx_window, OLG_LOWERING_DECOMPOSED | OLG_UNTIL(17)},
    {"", "MelWeightMatrix", olg__sym_onnx_mel_weight_matrix, OLG_LOWERING_DECOMPOSED | OLG_UNTIL(17)},
    {"", "STFT", olg__sym_onnx_stft, OLG_LOWERING_DECOMPOSED | OLG_UNTIL(17)},

    /* ---- torch.fft (symbolics/signal.c): MatMuls, the DFT op from 17 (irfft: MatMuls) ---- */
    {"aten", "blackman_window", olg__sym_window, OLG_LOWERING_DECOMPOSED},
    {"aten", "fft_fft", olg__sym_fft_fft, OLG_LOWERING_DECOMPOSED},
    {"aten", "fft_fft2", olg__sym_fft_fft2, OLG_LOWERING_DECOMPOSED},
    {"aten", "fft_fftn", olg__sym_fft_fftn, OLG_LOWERING_DECOMPOSED},
    {"aten", "fft_ifft", olg__sym_fft_ifft, OLG_LOWERING_DECOMPOSED},
    {"aten", "fft_ifft2", olg__sym_fft_ifft2, OLG_LOWERING_DECOMPOSED},
    {"aten", "fft_ifftn", olg__sym_fft_ifftn, OLG_LOWERING_DECOMPOSED},
    {"aten", "fft_irfft", olg__sym_fft_irfft, OLG_LOWERING_DECOMPOSED},
    {"aten", "fft_irfft2", olg__sym_fft_irfft2, OLG_LOWERING_DECOMPOSED},
    {"aten", "fft_irfftn", olg__sym_fft_irfftn, OLG_LOWERING_DECOMPOSED},
    {"aten", "fft_rfft", olg__sym_fft_rfft, OLG_LOWERING_DECOMPOSED},
    {"aten", "fft_rfft2", olg__sym_fft_rfft2, OLG_LOWERING_DECOMPOSED},
    {"aten", "fft_rfftn", olg__sym_fft_rfftn, OLG_LOWERING_DECOMPOSED},
    {"aten", "hann_window", olg__sym_window, OLG_LOWERING_DECOMPOSED},
    {"aten", "stft", olg__sym_stft, OLG_LOWERING_DECOMPOSED},

    {NULL, NULL, NULL, 0}};
