/* onnxlegal — helpers of the ONNX-domain family (symbolics/onnx.c; internal), defined in
 * symbolics/emit_src.c: reading a source ONNX node's ENCODING, which depends on its source
 * opset (an attribute that became an input, a semantics change under the same signature), and
 * re-emitting a node as it is at the target opset. What the target offers is not asked here:
 * that is the job of the per-opset symbolics registered in opsets/opsetNN.c. */
#ifndef OLG_SYMBOLICS_EMIT_SRC_H
#define OLG_SYMBOLICS_EMIT_SRC_H
#include <stdbool.h>
#include <stdint.h>

#include "emit.h"
#include "../lib/schema.h"


/* Attribute-or-input: the ints (axes, split) of the source node, from attribute attr when its
 * version predates `since` (where the attribute became input i), else from input i. *present
 * says whether there are any; *dyn gets a run-time value when the input is not known. */
olg_status olg__src_ints_attr_or_input(olg_lower *cx, const char *attr, size_t i, int since,
                                       const int64_t **p, size_t *n, bool *present,
                                       olg_value *dyn);

/* Slice below 10: starts/ends/axes are attributes (inputs, with steps, from 10). */
bool olg__src_slice_in_attrs(const olg_lower *cx);
/* Pad below 11: pads/value are attributes (inputs from 11, axes from 18). */
bool olg__src_pad_in_attrs(const olg_lower *cx);
/* Clip below 11: min/max are attributes (inputs from 11). */
bool olg__src_clip_in_attrs(const olg_lower *cx);
/* Upsample, and Resize-10: scales only, asymmetric coordinates (the coordinate attributes,
 * roi and sizes from Resize-11). */
bool olg__src_resize_legacy(const olg_lower *cx);
/* Dropout below 7 in training mode (is_test 0; the attribute is gone at 7). */
bool olg__src_dropout_is_test_training(olg_lower *cx);
/* The dtype of Dropout's mask: the input's below 10, bool since. */
olg_dtype olg__src_dropout_mask_dtype(olg_lower *cx, olg_value x);
/* TopK from 10: k is input 1 (an attribute below). */
bool olg__src_topk_k_input(const olg_lower *cx);
/* Softmax, LogSoftmax, Hardmax below 13: the input flattened to 2-D at axis (default 1). */
bool olg__src_softmax_is_flat(const olg_lower *cx);
/* Argument i of the source node is a value its front end declared complex (complex64/128): a
 * complex value carried as a real tensor with a last dim of 2 (symbolics/emit_dft.h). */
bool olg__src_arg_complex(const olg_lower *cx, size_t i);
/* DFT below 20: axis is an attribute (default 1); an input (default -2) from 20. */
bool olg__src_dft_axis_attr(const olg_lower *cx);
/* Split from 18 without split sizes: num_outputs parts, ceil-sized, the last smaller. */
bool olg__src_split_ceil_parts(const olg_lower *cx, bool sizes_present);
/* GroupNormalization below 21: scale and bias per group ([num_groups]; per channel from 21). */
bool olg__src_groupnorm_per_group(const olg_lower *cx);
/* RoiAlign's coordinate_transformation_mode: the attribute, else its default at the source
 * opset (half_pixel from 16; the versions before work as output_half_pixel). */
const char *olg__src_roialign_coordinates(olg_lower *cx);
/* Scan-8: a batch axis first and sequence_lens (gone at 9). */
bool olg__src_scan_has_batch(const olg_lower *cx);

/* A source pool node's kernel_shape (1 to 3 axes; an error when missing), strides, pads and
 * dilations (NULL and 0 when absent), their lengths checked against the kernel's. */
typedef struct olg_src_pool {
  const int64_t *k, *s, *p, *d;
  size_t nk, ns, np, nd;
} olg_src_pool;
olg_status olg__src_pool_attrs(olg_lower *cx, olg_src_pool *out);

/* The target opset's schema of the ONNX op, or NULL. */
const olg_schema *olg__target_schema(const olg_lower *cx, const char *op);
/* Output i of the source node is read only by ONNX nodes of the ops listed: neither a graph
 * output (whose type is the model's interface) nor read by any other node or a subgraph. */
bool olg__src_output_read_only_by(olg_lower *cx, size_t i, const char *const *ops, size_t n_ops);

#endif
