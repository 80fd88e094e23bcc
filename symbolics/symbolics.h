/* onnxlegal — declarations of the built-in symbolic functions (internal), one section per family
 * file symbolics/<family>.c. Each is an olg_symbolic_fn, registered in opsets/opsetNN.c. */
#ifndef OLG_SYMBOLICS_H
#define OLG_SYMBOLICS_H
#include "onnxlegal/registry.h"

/* Declares a symbolic function; definitions spell the signature out, so that readers and tag
 * tools see each one by name:  olg_status olg__sym_view(olg_lower *cx, olg_node_id src, void *ud) */
#define OLG_SYMBOLIC(name) olg_status name(olg_lower *cx, olg_node_id src, void *ud)

/* ---- shape and indexing basics (symbolics/shape.c) ---- */
OLG_SYMBOLIC(olg__sym_view);          /* view, reshape, _reshape_alias-like */
OLG_SYMBOLIC(olg__sym_flatten);
OLG_SYMBOLIC(olg__sym_permute);
OLG_SYMBOLIC(olg__sym_transpose);
OLG_SYMBOLIC(olg__sym_identity);      /* contiguous, detach, clone, lift_fresh(_copy), dropout in inference */
OLG_SYMBOLIC(olg__sym_squeeze);
OLG_SYMBOLIC(olg__sym_unsqueeze);
OLG_SYMBOLIC(olg__sym_expand);
OLG_SYMBOLIC(olg__sym_expand_as);
OLG_SYMBOLIC(olg__sym_cat);
OLG_SYMBOLIC(olg__sym_stack);
OLG_SYMBOLIC(olg__sym_slice);
OLG_SYMBOLIC(olg__sym_select);
OLG_SYMBOLIC(olg__sym_select_opset11); /* Gather-11: negative indices */
OLG_SYMBOLIC(olg__sym_narrow);
OLG_SYMBOLIC(olg__sym_size);
OLG_SYMBOLIC(olg__sym_numel);
OLG_SYMBOLIC(olg__sym_to);
OLG_SYMBOLIC(olg__sym_type_as);

/* ---- rearranging and indexing (symbolics/arrange.c, symbolics/index.c) ---- */
OLG_SYMBOLIC(olg__sym_unflatten);
OLG_SYMBOLIC(olg__sym_repeat);
OLG_SYMBOLIC(olg__sym_tile);
OLG_SYMBOLIC(olg__sym_flip);          /* Slice step -1 (10), else Gather of reversed indices */
OLG_SYMBOLIC(olg__sym_roll);
OLG_SYMBOLIC(olg__sym_split);         /* split.Tensor (int size) and split.sizes */
OLG_SYMBOLIC(olg__sym_split_with_sizes);
OLG_SYMBOLIC(olg__sym_chunk);
OLG_SYMBOLIC(olg__sym_unbind);
OLG_SYMBOLIC(olg__sym_index);         /* advanced indexing: Gather of a linear index */
OLG_SYMBOLIC(olg__sym_index_select);
OLG_SYMBOLIC(olg__sym_index_put);     /* ScatterND (11), Scatter-9, Gather remap (7) */
OLG_SYMBOLIC(olg__sym_gather);        /* GatherElements (11), else static linear Gather */
OLG_SYMBOLIC(olg__sym_scatter);       /* src/value, reduce */
OLG_SYMBOLIC(olg__sym_scatter_add);
OLG_SYMBOLIC(olg__sym_scatter_reduce); /* sum, prod, mean, amax, amin; include_self */
OLG_SYMBOLIC(olg__sym_nonzero);
OLG_SYMBOLIC(olg__sym_meshgrid);
OLG_SYMBOLIC(olg__sym_tril);          /* Trilu (14), else a mask (Where) or a Gather */
OLG_SYMBOLIC(olg__sym_triu);
OLG_SYMBOLIC(olg__sym_onnx_gather_elements);        /* ONNX GatherElements below 11 */
OLG_SYMBOLIC(olg__sym_onnx_trilu);         /* ONNX Trilu below 14, as tril/triu */
OLG_SYMBOLIC(olg__sym_one_hot);       /* OneHot (9), else Equal */
OLG_SYMBOLIC(olg__sym_embedding);
OLG_SYMBOLIC(olg__sym_pad);           /* constant, reflect, replicate, circular */
OLG_SYMBOLIC(olg__sym_constant_pad_nd);

/* ---- tensor creation (symbolics/creation.c) ---- */
OLG_SYMBOLIC(olg__sym_arange);
OLG_SYMBOLIC(olg__sym_zeros);
OLG_SYMBOLIC(olg__sym_ones);
OLG_SYMBOLIC(olg__sym_empty);         /* empty.memory_format: zeros (any contents are valid) */
OLG_SYMBOLIC(olg__sym_full);
OLG_SYMBOLIC(olg__sym_zeros_like);
OLG_SYMBOLIC(olg__sym_ones_like);
OLG_SYMBOLIC(olg__sym_full_like);
OLG_SYMBOLIC(olg__sym_new_zeros);
OLG_SYMBOLIC(olg__sym_new_ones);
OLG_SYMBOLIC(olg__sym_new_full);
OLG_SYMBOLIC(olg__sym_linspace);
OLG_SYMBOLIC(olg__sym_onnx_constant_of_shape); /* ONNX ConstantOfShape at 7-8: Tile */
OLG_SYMBOLIC(olg__sym_onnx_range);        /* ONNX Range below 11: known inputs folded */
OLG_SYMBOLIC(olg__sym_onnx_eye_like);     /* ONNX EyeLike at 7-8: a constant */
OLG_SYMBOLIC(olg__sym_onnx_bernoulli);    /* ONNX Bernoulli below 15: RandomUniformLike < p */
OLG_SYMBOLIC(olg__sym_bernoulli);         /* bernoulli(self), bernoulli.p(self, p) */

/* ---- sorting (symbolics/sort.c) ---- */
OLG_SYMBOLIC(olg__sym_topk);
OLG_SYMBOLIC(olg__sym_sort);
OLG_SYMBOLIC(olg__sym_argsort);

/* ---- torchvision's detection ops (symbolics/detection.c) ---- */
olg_status olg__sym_tv_nms(olg_lower *cx, olg_node_id src, void *ud);
olg_status olg__sym_tv_nms_loops(olg_lower *cx, olg_node_id src, void *ud); /* at 9 */
/* NonMaxSuppression-10 below 10, as Loops (symbolics/nms.c) */
olg_status olg__sym_onnx_nms(olg_lower *cx, olg_node_id src, void *ud);
/* Unique-11 below 11 by pairwise comparison (symbolics/unique.c) */
olg_status olg__sym_onnx_unique(olg_lower *cx, olg_node_id src, void *ud);
olg_status olg__sym_tv_roi_align(olg_lower *cx, olg_node_id src, void *ud);
olg_status olg__sym_onnx_roi_align(olg_lower *cx, olg_node_id src, void *ud); /* RoiAlign where the target's cannot say it: by gathers */

/* ---- ONNX domain: pass-through and re-encoding (symbolics/onnx.c) ---- */
OLG_SYMBOLIC(olg__sym_onnx_passthrough); /* the fallback for every ONNX op without a row (emit_src.c) */
OLG_SYMBOLIC(olg__sym_onnx_layer_norm); /* LayerNormalization below 17 (norm.c) */
OLG_SYMBOLIC(olg__sym_onnx_group_norm); /* GroupNormalization-21 where the target has it (norm.c) */
OLG_SYMBOLIC(olg__sym_onnx_nll_loss); /* NegativeLogLikelihoodLoss below 12 (loss.c) */
OLG_SYMBOLIC(olg__sym_onnx_sce_loss); /* SoftmaxCrossEntropyLoss below 12 */
OLG_SYMBOLIC(olg__sym_onnx_arg_extreme); /* ArgMax/ArgMin select_last_index below 12 (onnx.c) */
OLG_SYMBOLIC(olg__sym_onnx_cast_around); /* Min/Max/Pow/Sum/Mean of a type the target lacks (onnx.c) */
OLG_SYMBOLIC(olg__sym_onnx_scan); /* Scan-8 at 9+: the batch axis of 1 squeezed (onnx.c) */
OLG_SYMBOLIC(olg__sym_onnx_pool_ceil);   /* MaxPool/AveragePool ceil_mode below 10 (onnx.c) */
OLG_SYMBOLIC(olg__sym_onnx_window_pool); /* AveragePool-19 dilations, LpPool-18 dilations/ceil_mode decomposed (onnx.c) */
OLG_SYMBOLIC(olg__sym_onnx_squeeze);     /* Squeeze, Unsqueeze */
OLG_SYMBOLIC(olg__sym_onnx_reduce);      /* Reduce* */
OLG_SYMBOLIC(olg__sym_onnx_reduce_axes_input); /* ReduceSum 13+, the others 18+ */
OLG_SYMBOLIC(olg__sym_onnx_slice);
OLG_SYMBOLIC(olg__sym_onnx_center_crop_pad);
OLG_SYMBOLIC(olg__sym_onnx_tensor_scatter);
OLG_SYMBOLIC(olg__sym_onnx_causal_conv_with_state); /* CausalConvWithState (27) below 27: Conv */
OLG_SYMBOLIC(olg__sym_onnx_linear_attention);       /* LinearAttention (27) below 27: unrolled */
OLG_SYMBOLIC(olg__sym_onnx_quantize_linear);   /* passed through, or computed (quant.c) */
OLG_SYMBOLIC(olg__sym_onnx_dequantize_linear); /* passed through, or computed (quant.c) */ /* TensorScatter (24) below 24: ScatterElements */ /* CenterCropPad (18) below 18: Slice and Pad */
OLG_SYMBOLIC(olg__sym_onnx_cast_4bit); /* Cast from/to int4, uint4 below 21 (quant.c) */
OLG_SYMBOLIC(olg__sym_onnx_conv_integer);   /* ConvInteger, MatMulInteger, QLinearConv, */
OLG_SYMBOLIC(olg__sym_onnx_matmul_integer); /* QLinearMatMul below 10, DynamicQuantizeLinear */
OLG_SYMBOLIC(olg__sym_onnx_qlinear_conv);   /* below 11: computed exactly (quant_int.c) */
OLG_SYMBOLIC(olg__sym_onnx_qlinear_matmul);
OLG_SYMBOLIC(olg__sym_onnx_dynamic_quantize_linear);
OLG_SYMBOLIC(olg__sym_onnx_pad);
OLG_SYMBOLIC(olg__sym_onnx_split);
OLG_SYMBOLIC(olg__sym_onnx_clip);
OLG_SYMBOLIC(olg__sym_onnx_resize);      /* Resize, Upsample */
OLG_SYMBOLIC(olg__sym_onnx_dropout);
OLG_SYMBOLIC(olg__sym_onnx_batchnorm); /* norm.c: training_mode kept, else batch statistics */
OLG_SYMBOLIC(olg__sym_onnx_topk);
OLG_SYMBOLIC(olg__sym_onnx_softmax);     /* Softmax, LogSoftmax, Hardmax */
OLG_SYMBOLIC(olg__sym_onnx_flatten);     /* a negative axis counted from the front below 11 */
OLG_SYMBOLIC(olg__sym_onnx_constant);    /* value_int(s)/value_float(s) (12+) as a tensor */
/* index.c: Scatter (9, removed at 11) <-> ScatterElements, and ScatterND: aten scatter's and
 * index_put's lowering; reductions add/mul below 16 as a row scatter, max/min from 18 */
OLG_SYMBOLIC(olg__sym_onnx_scatter);
OLG_SYMBOLIC(olg__sym_onnx_shape);       /* start/end (15) -> Shape + Slice */
OLG_SYMBOLIC(olg__sym_onnx_reshape);     /* allowzero (14) */
OLG_SYMBOLIC(olg__sym_onnx_castlike);    /* CastLike (15) -> Cast */
OLG_SYMBOLIC(olg__sym_onnx_gelu);       /* Gelu (20), else aten gelu's formula */
OLG_SYMBOLIC(olg__sym_onnx_mish);       /* Mish (18), else x * Tanh(Softplus(x)) */
OLG_SYMBOLIC(olg__sym_onnx_swish);      /* Swish (24), else x * Sigmoid(alpha * x) */
OLG_SYMBOLIC(olg__sym_onnx_hardswish);   /* HardSwish (14) -> x * HardSigmoid */
OLG_SYMBOLIC(olg__sym_onnx_dft);         /* olg__emit_dft: the op (17, axis input 20), MatMuls below */

/* ---- signal processing (symbolics/signal.c) ---- */
OLG_SYMBOLIC(olg__sym_onnx_window); /* Hann/Hamming/BlackmanWindow below 17 */
/* torch.fft through olg__emit_dft (complex values carried with a last dim of 2) */
OLG_SYMBOLIC(olg__sym_fft_fft);
OLG_SYMBOLIC(olg__sym_fft_ifft);
OLG_SYMBOLIC(olg__sym_fft_rfft);
OLG_SYMBOLIC(olg__sym_fft_irfft);
OLG_SYMBOLIC(olg__sym_fft_fftn);
OLG_SYMBOLIC(olg__sym_fft_ifftn);
OLG_SYMBOLIC(olg__sym_fft_rfftn);
OLG_SYMBOLIC(olg__sym_fft_irfftn);
OLG_SYMBOLIC(olg__sym_fft_fft2);
OLG_SYMBOLIC(olg__sym_fft_ifft2);
OLG_SYMBOLIC(olg__sym_fft_rfft2);
OLG_SYMBOLIC(olg__sym_fft_irfft2);

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
OLG_SYMBOLIC(olg__sym_col2im);      /* Col2Im (18) or one-hot ConvTranspose */
OLG_SYMBOLIC(olg__sym_onnx_col2im); /* the same emitter (conv.c), N-d */
OLG_SYMBOLIC(olg__sym_onnx_deform_conv); /* DeformConv (19) decomposed before 19, 2-D */
OLG_SYMBOLIC(olg__sym_max_pool);           /* max_pool1d/2d/3d and *_with_indices */
OLG_SYMBOLIC(olg__sym_onnx_max_pool);      /* MaxPool below 10: dilations, ceil_mode */
OLG_SYMBOLIC(olg__sym_avg_pool);           /* avg_pool1d/2d/3d */
OLG_SYMBOLIC(olg__sym_adaptive_avg_pool);  /* adaptive_avg_pool1d/2d/3d, _adaptive_avg_pool2d/3d */
OLG_SYMBOLIC(olg__sym_adaptive_max_pool);  /* adaptive_max_pool1d/2d/3d (values, indices) */

/* ---- normalization (symbolics/norm.c) ---- */
OLG_SYMBOLIC(olg__sym_batch_norm);      /* batch_norm, native_batch_norm */
OLG_SYMBOLIC(olg__sym_instance_norm);
OLG_SYMBOLIC(olg__sym_layer_norm);        /* LayerNormalization where the target has it */
OLG_SYMBOLIC(olg__sym_native_layer_norm); /* out, mean, rstd */
OLG_SYMBOLIC(olg__sym_group_norm);        /* GroupNormalization-21, else InstanceNormalization */
OLG_SYMBOLIC(olg__sym_native_group_norm);
OLG_SYMBOLIC(olg__sym_rms_norm);      /* RMSNormalization-23, else the formula */
OLG_SYMBOLIC(olg__sym_onnx_rms_norm); /* the same emitter (emit_nn.c) */
OLG_SYMBOLIC(olg__sym_local_response_norm);

/* ---- activations (symbolics/activation.c) ---- */
OLG_SYMBOLIC(olg__sym_onnx_celu);                      /* ONNX Celu below 12 */
OLG_SYMBOLIC(olg__sym_onnx_thresholded_relu);          /* ONNX ThresholdedRelu below 10 */
OLG_SYMBOLIC(olg__sym_relu);
OLG_SYMBOLIC(olg__sym_relu6);
OLG_SYMBOLIC(olg__sym_leaky_relu);
OLG_SYMBOLIC(olg__sym_elu);
OLG_SYMBOLIC(olg__sym_selu);
OLG_SYMBOLIC(olg__sym_celu);          /* the formula */
OLG_SYMBOLIC(olg__sym_gelu); /* Gelu-20, else the formula ('none' needs Erf-9) */
OLG_SYMBOLIC(olg__sym_silu); /* x * sigmoid(x) */
OLG_SYMBOLIC(olg__sym_mish); /* Mish-18, else x * tanh(softplus(x)) */
OLG_SYMBOLIC(olg__sym_hardswish);     /* x * HardSigmoid(x) */
OLG_SYMBOLIC(olg__sym_hardsigmoid);
OLG_SYMBOLIC(olg__sym_hardtanh);
OLG_SYMBOLIC(olg__sym_sigmoid);
OLG_SYMBOLIC(olg__sym_tanh);
OLG_SYMBOLIC(olg__sym_softplus);
OLG_SYMBOLIC(olg__sym_softsign);
OLG_SYMBOLIC(olg__sym_prelu);
OLG_SYMBOLIC(olg__sym_glu);
OLG_SYMBOLIC(olg__sym_threshold);
OLG_SYMBOLIC(olg__sym_log_sigmoid);
OLG_SYMBOLIC(olg__sym_softmax);
OLG_SYMBOLIC(olg__sym_log_softmax);
OLG_SYMBOLIC(olg__sym_softmax_half_to_float);     /* _softmax(self, dim, half_to_float) */
OLG_SYMBOLIC(olg__sym_log_softmax_half_to_float); /* _log_softmax */
OLG_SYMBOLIC(olg__sym_dropout);       /* dropout, feature_dropout, alpha_dropout, ... */

/* ---- ONNX elementwise ops below their opset or type (symbolics/onnx_math.c) ---- */
OLG_SYMBOLIC(olg__sym_onnx_mod);        /* Mod below 10 */
OLG_SYMBOLIC(olg__sym_onnx_gemm);       /* Gemm without C below 11 */
OLG_SYMBOLIC(olg__sym_onnx_int_arith);  /* Add/Sub/Mul/Div of 8-/16-bit integers below 14 */
OLG_SYMBOLIC(olg__sym_onnx_compare);    /* Equal of floats < 11, GreaterOrEqual/LessOrEqual < 12 */
OLG_SYMBOLIC(olg__sym_onnx_isnan);      /* IsNaN below 9 */
OLG_SYMBOLIC(olg__sym_onnx_where); /* Where below 9: a Gather pick */
OLG_SYMBOLIC(olg__sym_onnx_shrink); /* Shrink below 9 (activation.c) */
OLG_SYMBOLIC(olg__sym_hardshrink);
OLG_SYMBOLIC(olg__sym_softshrink);
OLG_SYMBOLIC(olg__sym_onnx_mvn); /* MeanVarianceNormalization below 9 (norm.c) */
OLG_SYMBOLIC(olg__sym_det); /* ONNX Det below 11, aten linalg_det/det (linalg.c) */
OLG_SYMBOLIC(olg__sym_onnx_reverse_sequence); /* ReverseSequence below 10 (arrange.c) */
OLG_SYMBOLIC(olg__sym_onnx_rnn_layout); /* RNN/GRU/LSTM layout 1 below 14 (rnn.c) */
OLG_SYMBOLIC(olg__sym_to_copy); /* aten _to_copy (shape.c) */
OLG_SYMBOLIC(olg__sym_onnx_isinf);      /* IsInf below 10 */

/* ---- elementwise math, comparison, logic (symbolics/elementwise.c) ---- */
OLG_SYMBOLIC(olg__sym_add);
OLG_SYMBOLIC(olg__sym_sub);
OLG_SYMBOLIC(olg__sym_rsub);
OLG_SYMBOLIC(olg__sym_mul);
OLG_SYMBOLIC(olg__sym_div);           /* div (rounding modes), true_divide */
OLG_SYMBOLIC(olg__sym_floor_divide);
OLG_SYMBOLIC(olg__sym_remainder);
OLG_SYMBOLIC(olg__sym_fmod);
OLG_SYMBOLIC(olg__sym_pow);
OLG_SYMBOLIC(olg__sym_sqrt);
OLG_SYMBOLIC(olg__sym_rsqrt);
OLG_SYMBOLIC(olg__sym_exp);
OLG_SYMBOLIC(olg__sym_log);
OLG_SYMBOLIC(olg__sym_log2);
OLG_SYMBOLIC(olg__sym_log1p);
OLG_SYMBOLIC(olg__sym_abs);
OLG_SYMBOLIC(olg__sym_neg);
OLG_SYMBOLIC(olg__sym_reciprocal);
OLG_SYMBOLIC(olg__sym_sign);
OLG_SYMBOLIC(olg__sym_floor);
OLG_SYMBOLIC(olg__sym_ceil);
OLG_SYMBOLIC(olg__sym_round);         /* Round-11, else half-to-even from Floor; aten's and ONNX's */
OLG_SYMBOLIC(olg__sym_trunc);
OLG_SYMBOLIC(olg__sym_clamp);
OLG_SYMBOLIC(olg__sym_clamp_min);
OLG_SYMBOLIC(olg__sym_clamp_max);
OLG_SYMBOLIC(olg__sym_minimum);       /* also min.other */
OLG_SYMBOLIC(olg__sym_maximum);       /* also max.other */
OLG_SYMBOLIC(olg__sym_sin);
OLG_SYMBOLIC(olg__sym_cos);
OLG_SYMBOLIC(olg__sym_tan);
OLG_SYMBOLIC(olg__sym_asin);
OLG_SYMBOLIC(olg__sym_acos);
OLG_SYMBOLIC(olg__sym_atan);
OLG_SYMBOLIC(olg__sym_sinh); /* the op (9), else its formula; aten's and ONNX's */
OLG_SYMBOLIC(olg__sym_cosh);
OLG_SYMBOLIC(olg__sym_asinh);
OLG_SYMBOLIC(olg__sym_bitshift);
OLG_SYMBOLIC(olg__sym_onnx_depth_to_space); /* conv.c: mode CRD below 11 */
OLG_SYMBOLIC(olg__sym_onnx_stft);           /* signal.c: below 17 */
OLG_SYMBOLIC(olg__sym_onnx_mel_weight_matrix); /* signal.c: below 17, computed in the graph */
OLG_SYMBOLIC(olg__sym_stft);                /* signal.c: aten stft */
OLG_SYMBOLIC(olg__sym_window); /* signal.c: aten hann_window, blackman_window */
OLG_SYMBOLIC(olg__sym_onnx_gather_nd);      /* index.c: below 11, batch_dims below 12 */ /* aten's shifts and ONNX BitShift (below 11) */
OLG_SYMBOLIC(olg__sym_acosh);
OLG_SYMBOLIC(olg__sym_atanh);
OLG_SYMBOLIC(olg__sym_erf);           /* Erf-9 */
OLG_SYMBOLIC(olg__sym_where);         /* Where-9 */
OLG_SYMBOLIC(olg__sym_masked_fill);
OLG_SYMBOLIC(olg__sym_addcmul);
OLG_SYMBOLIC(olg__sym_lerp);
OLG_SYMBOLIC(olg__sym_eq);
OLG_SYMBOLIC(olg__sym_ne);
OLG_SYMBOLIC(olg__sym_lt);
OLG_SYMBOLIC(olg__sym_le);
OLG_SYMBOLIC(olg__sym_gt);
OLG_SYMBOLIC(olg__sym_ge);
OLG_SYMBOLIC(olg__sym_logical_and);
OLG_SYMBOLIC(olg__sym_logical_or);
OLG_SYMBOLIC(olg__sym_logical_xor);
OLG_SYMBOLIC(olg__sym_logical_not);
OLG_SYMBOLIC(olg__sym_bitwise_not);   /* Not; BitwiseNot-18, else -1 - x */
OLG_SYMBOLIC(olg__sym_bitwise_and); /* And for bools; BitwiseAnd-18, else bits in int64 */
OLG_SYMBOLIC(olg__sym_bitwise_or);  /* the same with Or */
OLG_SYMBOLIC(olg__sym_bitwise_xor); /* the same with Xor */
OLG_SYMBOLIC(olg__sym_onnx_bitwise_and); /* BitwiseAnd-18, else bits in int64 (emit_bits.c) */
OLG_SYMBOLIC(olg__sym_onnx_bitwise_or);  /* BitwiseOr-18, the same */
OLG_SYMBOLIC(olg__sym_onnx_bitwise_xor); /* BitwiseXor-18, the same */
OLG_SYMBOLIC(olg__sym_onnx_bitwise_not); /* BitwiseNot-18, else -1 - x or max - x */
OLG_SYMBOLIC(olg__sym_isnan);         /* IsNaN-9, else from Less/Greater */
OLG_SYMBOLIC(olg__sym_isinf);         /* IsInf-10, else |x| > the largest finite */

/* ---- reductions (symbolics/reduce.c) ---- */
OLG_SYMBOLIC(olg__sym_sum);
OLG_SYMBOLIC(olg__sym_mean);
OLG_SYMBOLIC(olg__sym_prod);
OLG_SYMBOLIC(olg__sym_amax);
OLG_SYMBOLIC(olg__sym_amin);
OLG_SYMBOLIC(olg__sym_max);           /* all, .dim (values, indices), .other */
OLG_SYMBOLIC(olg__sym_min);
OLG_SYMBOLIC(olg__sym_argmax);
OLG_SYMBOLIC(olg__sym_argmin);
OLG_SYMBOLIC(olg__sym_any);           /* Cast + ReduceMax (DESIGN.md 4) */
OLG_SYMBOLIC(olg__sym_all);           /* Cast + ReduceMin */
OLG_SYMBOLIC(olg__sym_std);
OLG_SYMBOLIC(olg__sym_var);
OLG_SYMBOLIC(olg__sym_norm);
OLG_SYMBOLIC(olg__sym_frobenius_norm);
OLG_SYMBOLIC(olg__sym_linalg_vector_norm);
OLG_SYMBOLIC(olg__sym_logsumexp);
OLG_SYMBOLIC(olg__sym_cumsum);        /* CumSum-11, else MatMul by a triangle of ones */
OLG_SYMBOLIC(olg__sym_cumprod);      /* CumProd-26, else Where and ReduceProd over a triangle */
OLG_SYMBOLIC(olg__sym_onnx_cumprod); /* the same emitter (reduce.c) */
OLG_SYMBOLIC(olg__sym_onnx_cumsum);    /* ONNX CumSum below 11: a triangle of ones */

/* ---- linear algebra (symbolics/linalg.c) ---- */
OLG_SYMBOLIC(olg__sym_matmul);        /* matmul, mm, bmm */
OLG_SYMBOLIC(olg__sym_addmm);
OLG_SYMBOLIC(olg__sym_baddbmm);
OLG_SYMBOLIC(olg__sym_linear);
OLG_SYMBOLIC(olg__sym_einsum);        /* Einsum-12 */
OLG_SYMBOLIC(olg__sym_onnx_einsum);   /* ONNX Einsum below 12: as einsum's decomposition */
OLG_SYMBOLIC(olg__sym_t);

/* ---- sampling (symbolics/sample.c) ---- */
OLG_SYMBOLIC(olg__sym_grid_sampler);          /* grid_sampler, grid_sampler_2d, grid_sampler_3d */
OLG_SYMBOLIC(olg__sym_affine_grid_generator);

/* ---- attention (symbolics/attention.c) ---- */
OLG_SYMBOLIC(olg__sym_scaled_dot_product_attention);
OLG_SYMBOLIC(olg__sym_native_multi_head_attention); /* _native_multi_head_attention */

/* ---- recurrence (symbolics/rnn.c) ---- */
OLG_SYMBOLIC(olg__sym_lstm);
OLG_SYMBOLIC(olg__sym_gru);
OLG_SYMBOLIC(olg__sym_rnn_tanh);
OLG_SYMBOLIC(olg__sym_rnn_relu);

/* ---- sampling and attention, ONNX domain below the native opset (sample.c, attention.c) ---- */
OLG_SYMBOLIC(olg__sym_onnx_grid_sample); /* GridSample: re-encoded from 16 (N-D 20), else decomposed */
OLG_SYMBOLIC(olg__sym_onnx_affine_grid_decomposed); /* AffineGrid below 20 */
OLG_SYMBOLIC(olg__sym_onnx_attention_decomposed);   /* Attention below 23 */
OLG_SYMBOLIC(olg__sym_onnx_attention); /* from 23: passed through, or decomposed (24's inputs at 23) */
OLG_SYMBOLIC(olg__sym_onnx_rotary_embedding_decomposed); /* RotaryEmbedding (23) below 23 */

#endif
