/* onnxlegal — the openvino target profile: the ops OpenVINO's ONNX frontend imports, and exact
 * decompositions of those it does not.
 *
 * Source: openvinotoolkit/openvino src/frontends/onnx/docs/supported_ops.md at 0ae60f0 (the
 * default-domain rows with a supported version; rows with none, and ONNX ops it does not list,
 * are unsupported). Rule (docs/profiles.md):
 *   openvino/unsupported-op   Bernoulli, Det (static, up to 3x3), LpPool, MaxUnpool, Swish, Optional* (built in the
 *                             graph) decomposed exactly; Det, DeformConv, MelWeightMatrix,
 *                             string ops, TfIdfVectorizer, ... refused (folded when constant) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tensorrt.h"

/* the default-domain rows with a supported version (sorted, for bsearch) */
static const char *const ov_supported[] = {
    "ATen", "Abs", "Acos", "Acosh", "Add", "Affine", "AffineGrid", "And", "ArgMax", "ArgMin",
    "Asin", "Asinh", "Atan", "Atanh", "Attention", "AveragePool", "BatchNormalization",
    "BitShift", "BitwiseAnd", "BitwiseNot", "BitwiseOr", "BitwiseXor", "BlackmanWindow", "Cast",
    "CastLike", "Ceil", "Celu", "CenterCropPad", "Clip", "Col2Im", "Compress", "Concat",
    "ConcatFromSequence", "Constant", "ConstantFill", "ConstantOfShape", "Conv", "ConvInteger",
    "ConvTranspose", "Cos", "Cosh", "Crop", "CumSum", "DFT", "DepthToSpace", "DequantizeLinear",
    "Div", "Dropout", "DynamicQuantizeLinear", "Einsum", "Elu", "Equal", "Erf", "Exp", "Expand",
    "EyeLike", "Flatten", "Floor", "GRU", "Gather", "GatherElements", "GatherND", "Gelu", "Gemm",
    "GlobalAveragePool", "GlobalLpPool", "GlobalMaxPool", "Greater", "GreaterOrEqual",
    "GridSample", "GroupNormalization", "HammingWindow", "HannWindow", "HardSigmoid", "HardSwish",
    "Hardmax", "Identity", "If", "ImageScaler", "InstanceNormalization", "IsFinite", "IsInf",
    "IsNaN", "LRN", "LSTM", "LayerNormalization", "LeakyRelu", "Less", "LessOrEqual", "Log",
    "LogSoftmax", "Loop", "LpNormalization", "MatMul", "MatMulInteger", "Max", "MaxPool",
    "MaxRoiPool", "Mean", "MeanVarianceNormalization", "Min", "Mish", "Mod", "Mul", "Multinomial",
    "Neg", "NegativeLogLikelihoodLoss", "NonMaxSuppression", "NonZero", "Not", "OneHot", "Or",
    "PRelu", "Pad", "Pow", "QLinearConv", "QLinearMatMul", "QuantizeLinear", "RMSNormalization",
    "RNN", "RandomNormal", "RandomNormalLike", "RandomUniform", "RandomUniformLike", "Range",
    "Reciprocal", "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceMax",
    "ReduceMean", "ReduceMin", "ReduceProd", "ReduceSum", "ReduceSumSquare", "Relu", "Reshape",
    "Resize", "ReverseSequence", "RoiAlign", "RotaryEmbedding", "Round", "STFT", "Scan",
    "Scatter", "ScatterElements", "ScatterND", "Selu", "SequenceAt", "SequenceConstruct",
    "SequenceEmpty", "SequenceErase", "SequenceInsert", "SequenceLength", "Shape", "Shrink",
    "Sigmoid", "Sign", "SimplifiedLayerNormalization", "Sin", "Sinh", "Size", "Slice", "Softmax",
    "SoftmaxCrossEntropyLoss", "Softplus", "Softsign", "SpaceToDepth", "Split", "SplitToSequence",
    "Sqrt", "Squeeze", "Sub", "Sum", "Tan", "Tanh", "ThresholdedRelu", "Tile", "TopK",
    "Transpose", "Trilu", "Unique", "Unsqueeze", "Upsample", "Where", "Xor"};

static int cmp_name(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool ov_unsupported_match(olg_prule_site *st) {
  const olg_node *nd = &st->g->nodes[st->node];
  if (*nd->domain) return false;
  const char *op = nd->op;
  if (bsearch(&op, ov_supported, sizeof ov_supported / sizeof *ov_supported,
              sizeof *ov_supported, cmp_name))
    return false;
  snprintf(st->msg, sizeof st->msg, "%s: OpenVINO's ONNX frontend has no translator for it", op);
  return true;
}

/* Swish(x) = x * Sigmoid(alpha * x) (opset 24). */
static olg_status swish(olg_prule_site *st) {
  olg_lower *cx = st->cx;
  olg_value x = olg__prof_input(olg__prof_graph(cx), st->node, 0), a, ax, s, y;
  double alpha = olg__prof_attr_f(&olg__prof_graph(cx)->nodes[st->node], "alpha", 1.0f);
  if (alpha == 1.0) ax = x;
  else {
    OLG_TRY(olg__const_like(cx, x, alpha, &a));
    OLG_TRY(olg__emit2(cx, "Mul", a, x, &ax));
  }
  OLG_TRY(olg__emit1(cx, "Sigmoid", ax, &s));
  OLG_TRY(olg__emit2(cx, "Mul", x, s, &y));
  snprintf(st->msg, sizeof st->msg, "Swish made x * Sigmoid(alpha * x)");
  return olg__prof_replace_outputs(st, &y, 1);
}

static olg_status ov_unsupported_fix(olg_prule_site *st) {
  const char *op = olg__prof_graph(st->cx)->nodes[st->node].op;
  if (olg__prof_folds(st)) {
    snprintf(st->msg, sizeof st->msg, "its inputs are constants: folded into a Constant");
    return OLG_OK;
  }
  if (strcmp(op, "Bernoulli") == 0) return olg__prof_bernoulli(st);
  if (strcmp(op, "MaxUnpool") == 0) return olg__prof_maxunpool(st);
  if (strcmp(op, "LpPool") == 0) return olg__prof_lppool(st);
  if (strcmp(op, "Det") == 0) return olg__prof_det(st);
  if (strcmp(op, "Swish") == 0) return swish(st);
  if (strncmp(op, "Optional", 8) == 0) {
    bool done = false;
    OLG_TRY(olg__prof_optional(st, &done));
    if (done) return OLG_OK;
  }
  return olg__prof_decline(st, "none exact for %s here", op);
}

static const olg_prule openvino_rules[] = {
    {.name = "openvino/unsupported-op", .op = NULL, .kind = OLG_PRULE_MATCH,
     .match = ov_unsupported_match, .fix = ov_unsupported_fix,
     .hint = "Bernoulli, Det (up to 3x3), LpPool, MaxUnpool, Swish and Optional* built in the graph are "
             "decomposed, constant ones folded; the others have no exact rewrite here"},
};

static const olg_prule_table openvino_tables[] = {
    {openvino_rules, 1, false,
     "openvino src/frontends/onnx/docs/supported_ops.md at 0ae60f0 (default domain)"},
};

const olg_profile olg__profile_openvino = {
    .name = "openvino",
    .title = "OpenVINO's ONNX frontend",
    .tables = openvino_tables,
    .n_tables = 1,
    .magic = OLG_PROFILE_MAGIC,
};
