/* onnxlegal — the tensorrt target profile: what TensorRT 10's ONNX parser (onnx-tensorrt)
 * accepts beyond valid ONNX, and the exact rewrites into it.
 *
 * Source: onnx-tensorrt docs/operators.md and onnxOpImporters.cpp at 96e7811 ("ONNX-TensorRT
 * 10.1 GA release", 2024-06-17; the document covers opsets 9-20, the profile applies its table
 * at every target opset). Rules (docs/profiles.md):
 *   tensorrt/shape-gather       no Gather on a shape tensor          -> a Shape slice
 *   tensorrt/axes-initializer   Reduce*, Slice, Squeeze, Unsqueeze, Pad axes, CumSum axis,
 *                               OneHot depth must be weights         -> folded, else refused
 *   tensorrt/topk-sorted        sorted=1                             -> set (sorted=0 allows it)
 *   tensorrt/topk-k             K known and below 3840               -> refused
 *   tensorrt/scatternd-reduction  no reduction attribute at all      -> dropped when "none"
 *   tensorrt/int64-narrow       known int64 indices that fit       -> int32, the range the proof
 *   tensorrt/gridsample-4d      4-D input only                       -> refused
 *   tensorrt/resize-*           profiles/tensorrt_resize.c
 *   tensorrt/unsupported-op     ops the table marks N or lacks       -> Bernoulli, MaxUnpool,
 *                               Optional*, Det (up to 3x3) decomposed; constants folded;
 *                               else refused */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tensorrt.h"

/* ---- reading the graph ---- */

olg_value olg__prof_input(const olg_graph *g, olg_node_id i, uint32_t k) {
  const olg_node *nd = &g->nodes[i];
  if (k >= nd->n_args || nd->args[k].kind != OLG_ARG_VALUE) return OLG_NO_VALUE;
  return nd->args[k].u.v;
}

const olg_tensor *olg__prof_known(const olg_graph *g, olg_value v) {
  if (v < 0 || (uint32_t)v >= g->n_values) return NULL;
  const olg_value_rec *r = &g->values[v];
  if (olg__value_known(r)) return olg__value_known(r);
  if (r->init >= 0) return g->inits[r->init].t;
  if (r->producer >= 0 && !*g->nodes[r->producer].domain &&
      strcmp(g->nodes[r->producer].op, "Constant") == 0) {
    const olg_attr *a = olg__node_attr(&g->nodes[r->producer], "value");
    if (a && a->type == OLG_ATTR_TENSOR) return a->t;
  }
  return NULL;
}

bool olg__prof_known_ints(const olg_graph *g, olg_value v, int64_t *out, size_t cap,
                          size_t *n) {
  const olg_tensor *t = olg__prof_known(g, v);
  if (!t || !t->data) return false;
  size_t es = t->dtype == OLG_INT64 ? 8 : t->dtype == OLG_INT32 ? 4 : 0;
  if (!es || t->nbytes % es || t->nbytes / es > cap) return false;
  *n = t->nbytes / es;
  for (size_t k = 0; k < *n; k++) {
    if (es == 8) memcpy(&out[k], (const char *)t->data + 8 * k, 8);
    else {
      int32_t x;
      memcpy(&x, (const char *)t->data + 4 * k, 4);
      out[k] = x;
    }
  }
  return true;
}

int32_t olg__prof_rank(const olg_graph *g, olg_value v) {
  if (v < 0 || (uint32_t)v >= g->n_values) return OLG_RANK_UNKNOWN;
  const olg_type *t = &g->values[v].type;
  return t->kind == OLG_TYPE_TENSOR && t->has_shape ? t->rank : OLG_RANK_UNKNOWN;
}

bool olg__prof_static_shape(const olg_graph *g, olg_value v, int64_t *dims, int32_t *rank) {
  int32_t r = olg__prof_rank(g, v);
  if (r < 0 || r > OLG_MAX_RANK) return false;
  for (int32_t d = 0; d < r; d++) {
    dims[d] = g->values[v].type.dims[d].value;
    if (dims[d] < 0) return false;
  }
  *rank = r;
  return true;
}

int64_t olg__prof_attr_i(const olg_node *nd, const char *name, int64_t dflt) {
  const olg_attr *a = olg__node_attr(nd, name);
  return a && a->type == OLG_ATTR_INT ? a->i : dflt;
}

float olg__prof_attr_f(const olg_node *nd, const char *name, float dflt) {
  const olg_attr *a = olg__node_attr(nd, name);
  return a && a->type == OLG_ATTR_FLOAT ? a->f : dflt;
}

bool olg__prof_attr_is(const olg_node *nd, const char *name, const char *dflt, const char *s) {
  const olg_attr *a = olg__node_attr(nd, name);
  if (!a || a->type != OLG_ATTR_STRING) return strcmp(dflt, s) == 0;
  return a->s.n == strlen(s) && (!a->s.n || memcmp(a->s.p, s, a->s.n) == 0);
}

void olg__prof_attr_s(const olg_node *nd, const char *name, const char *dflt, char *buf,
                      size_t cap) {
  const olg_attr *a = olg__node_attr(nd, name);
  if (!a || a->type != OLG_ATTR_STRING) snprintf(buf, cap, "%s", dflt);
  else snprintf(buf, cap, "%.*s", (int)a->s.n, a->s.p ? a->s.p : "");
}

/* ---- rewriting ---- */

olg_status olg__prof_decline(olg_prule_site *st, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(st->msg, sizeof st->msg, fmt, ap);
  va_end(ap);
  return OLG_ERR_UNSUPPORTED;
}

bool olg__prof_folds(olg_prule_site *st) {
  olg_lower *cx = st->cx;
  const olg_node *nd = &olg__prof_graph(cx)->nodes[st->node];
  if (!olg__prof_folding(cx) || nd->n_outputs != 1 || nd->outputs[0] == OLG_NO_VALUE) return false;
  const olg_tensor *t = olg__known(cx, nd->outputs[0]);
  return t && t->dtype != OLG_STRING && t->nbytes <= 4096 * 8; /* passes/cleanup.c's bound */
}

static olg_status copy_attr(olg_lower *cx, olg_node_id nid, const olg_attr *a) {
  switch (a->type) {
  case OLG_ATTR_INT: return olg_lower_emit_attr_int(cx, nid, a->name, a->i);
  case OLG_ATTR_FLOAT: return olg_lower_emit_attr_float(cx, nid, a->name, a->f);
  case OLG_ATTR_STRING: {
    char *s = olg__lower_alloc(cx, a->s.n + 1);
    if (!s) return OLG_ERR_NOMEM;
    if (a->s.n) memcpy(s, a->s.p, a->s.n);
    return olg_lower_emit_attr_string(cx, nid, a->name, s);
  }
  case OLG_ATTR_INTS: return olg_lower_emit_attr_ints(cx, nid, a->name, a->ints, a->n);
  case OLG_ATTR_FLOATS: return olg_lower_emit_attr_floats(cx, nid, a->name, a->floats, a->n);
  default:
    return olg__errf(cx, OLG_ERR_UNSUPPORTED, "profile rewrite: cannot copy attribute '%s'",
                     a->name);
  }
}

olg_status olg__prof_clone_begin(olg_prule_site *st, const char *const *skip, olg_node_id *nid) {
  olg_lower *cx = st->cx;
  olg_graph *g = olg__prof_graph(cx);
  olg_node_id i = st->node;
  OLG_TRY(olg_lower_emit_begin(cx, g->nodes[i].domain, g->nodes[i].op, nid));
  for (uint32_t k = 0; k < g->nodes[i].n_args; k++)
    OLG_TRY(olg_lower_emit_input(cx, *nid, olg__prof_input(g, i, k)));
  for (uint32_t k = 0; k < g->nodes[i].n_attrs; k++) {
    const olg_attr *a = &g->nodes[i].attrs[k];
    bool skipped = false;
    for (const char *const *s = skip; s && *s; s++) skipped |= strcmp(*s, a->name) == 0;
    if (!skipped) OLG_TRY(copy_attr(cx, *nid, a));
  }
  return OLG_OK;
}

olg_status olg__prof_replace_outputs(olg_prule_site *st, const olg_value *vals, size_t n) {
  olg_lower *cx = st->cx;
  for (size_t k = 0; k < n; k++) {
    olg_value old = olg__prof_graph(cx)->nodes[st->node].outputs[k];
    if (old != OLG_NO_VALUE && vals[k] != OLG_NO_VALUE)
      OLG_TRY(olg__prof_replace(cx, old, vals[k]));
  }
  return OLG_OK;
}

olg_status olg__prof_clone_end(olg_prule_site *st, olg_node_id nid) {
  olg_value outs[8];
  size_t n = olg__prof_graph(st->cx)->nodes[st->node].n_outputs;
  if (n > 8) return olg__prof_decline(st, "a node of more than 8 outputs");
  OLG_TRY(olg_lower_emit_end(st->cx, nid, n, outs));
  return olg__prof_replace_outputs(st, outs, n);
}

/* ---- tensorrt/shape-gather ---- */

/* Gather (axis 0) whose data is a Shape's output. */
static bool shape_gather_match(olg_prule_site *st) {
  const olg_graph *g = st->g;
  const olg_node *nd = &g->nodes[st->node];
  if (nd->n_args < 2 || nd->args[0].kind != OLG_ARG_VALUE || nd->args[1].kind != OLG_ARG_VALUE)
    return false;
  const olg_attr *ax = olg__node_attr(nd, "axis");
  if (ax && ax->i != 0) return false;
  olg_value data = nd->args[0].u.v;
  if (data < 0 || (uint32_t)data >= g->n_values) return false;
  int32_t p = g->values[data].producer;
  if (p < 0 || strcmp(g->nodes[p].op, "Shape") != 0 || *g->nodes[p].domain) return false;
  snprintf(st->msg, sizeof st->msg, "Gather on the shape tensor '%s' (TensorRT cannot gather on a shape tensor)",
           g->values[data].name);
  return true;
}

/* Gather(Shape(x), i) with a known scalar or one-element i becomes a Shape slice. */
static olg_status shape_gather_fix(olg_prule_site *st) {
  olg_lower *cx = st->cx;
  olg_graph *g = olg__prof_graph(cx);
  olg_node *nd = &g->nodes[st->node];
  olg_value data = nd->args[0].u.v, idx = nd->args[1].u.v, out = nd->outputs[0];
  const olg_node *sh = &g->nodes[g->values[data].producer];
  olg_value x = sh->args[0].u.v;
  if (olg__is_protected(cx, out)) return olg__prof_decline(st, "its output is read by name by a subgraph");
  const int64_t *iv;
  size_t ni;
  int32_t irank = olg__rank(cx, idx);
  if (!olg__known_ints(cx, idx, &iv, &ni) || ni != 1 || irank > 1 || irank < 0)
    return olg__prof_decline(st, "the index is not a known scalar");
  int64_t rank = olg__rank(cx, x);
  int64_t start = 0, end = INT64_MAX;
  const olg_attr *a = olg__node_attr(sh, "start");
  if (a) start = a->i;
  if ((a = olg__node_attr(sh, "end"))) end = a->i;
  if (start < 0 || end < 0 || iv[0] < 0) {
    if (rank < 0) return olg__prof_decline(st, "a negative index or bound on a shape of unknown rank");
    if (start < 0) start += rank;
    if (end < 0) end += rank;
  }
  int64_t at = iv[0];
  if (at < 0) {
    int64_t len = olg__dim(cx, data, 0);
    if (len < 0) return olg__prof_decline(st, "a negative index into a shape of unknown length");
    at += len;
  }
  olg_value r;
  OLG_TRY(olg__shape_range(cx, x, start + at, start + at + 1, &r));
  if (irank == 0) OLG_TRY(olg__emit_squeeze(cx, r, (const int64_t[]){0}, 1, &r));
  OLG_TRY(olg__prof_replace(cx, out, r));
  snprintf(st->msg, sizeof st->msg, "a slice of the shape (Shape with start/end, or Shape then Slice)");
  return OLG_OK;
}

/* ---- TopK, ScatterND ---- */

/* sorted=0 allows any order, the sorted one included: the same node with sorted=1. */
static olg_status topk_sorted_fix(olg_prule_site *st) {
  olg_node_id nid;
  static const char *const skip[] = {"sorted", NULL};
  OLG_TRY(olg__prof_clone_begin(st, skip, &nid));
  snprintf(st->msg, sizeof st->msg, "sorted=1 (a sorted result is one that sorted=0 allows)");
  return olg__prof_clone_end(st, nid);
}

/* The parser refuses a `reduction` attribute whatever its value. */
static bool scatternd_match(olg_prule_site *st) {
  const olg_attr *a = olg__node_attr(&st->g->nodes[st->node], "reduction");
  if (!a) return false;
  snprintf(st->msg, sizeof st->msg, "ScatterND with reduction='%.*s' (TensorRT's parser rejects "
           "the attribute)", (int)(a->s.n > 64 ? 64 : a->s.n), a->s.p ? a->s.p : "");
  return true;
}

static olg_status scatternd_fix(olg_prule_site *st) {
  if (!olg__prof_attr_is(&olg__prof_graph(st->cx)->nodes[st->node], "reduction", "none", "none"))
    return olg__prof_decline(st, "a reduction is not an overwrite when indices repeat");
  olg_node_id nid;
  static const char *const skip[] = {"reduction", NULL};
  OLG_TRY(olg__prof_clone_begin(st, skip, &nid));
  snprintf(st->msg, sizeof st->msg, "reduction='none' dropped (the default)");
  return olg__prof_clone_end(st, nid);
}

/* ---- tensorrt/int64-narrow ---- */

/* The index inputs whose type constraint takes int32 as well as int64 (Tind of Gather,
 * GatherElements, ScatterElements; CumSum's axis): narrowed only where every value is known and
 * fits, so the node computes the same. (Slice's inputs are not: its lowering re-encodes them
 * as int64.) */
typedef struct narrow_slots {
  const char *op;
  uint32_t first, last; /* inputs narrowed together (one type constraint) */
} narrow_slots;

static const narrow_slots trt_narrow[] = {{"CumSum", 1, 1}, {"Gather", 1, 1},
                                          {"GatherElements", 1, 1}, {"ScatterElements", 1, 1}};

#define NARROW_MAX_ELEMS (1u << 20)

/* The inputs of node i to narrow: *first..*last when every present one is a known int64 whose
 * values lie in int32's range (lo/hi: the range found, the proof). */
static bool narrowable(const olg_graph *g, olg_node_id i, uint32_t *first, uint32_t *last,
                       int64_t *lo, int64_t *hi) {
  const olg_node *nd = &g->nodes[i];
  const narrow_slots *ns = NULL;
  for (size_t k = 0; k < sizeof trt_narrow / sizeof *trt_narrow; k++)
    if (strcmp(trt_narrow[k].op, nd->op) == 0) ns = &trt_narrow[k];
  if (!ns) return false;
  bool any = false;
  *lo = INT64_MAX;
  *hi = INT64_MIN;
  for (uint32_t k = ns->first; k <= ns->last; k++) {
    olg_value v = olg__prof_input(g, i, k);
    if (v == OLG_NO_VALUE) continue;
    const olg_tensor *t = olg__prof_known(g, v);
    if (!t || t->dtype != OLG_INT64 || !t->data || t->nbytes % 8 ||
        t->nbytes / 8 > NARROW_MAX_ELEMS)
      return false;
    for (size_t e = 0; e < t->nbytes / 8; e++) {
      int64_t x;
      memcpy(&x, (const char *)t->data + 8 * e, 8);
      if (x < INT32_MIN || x > INT32_MAX) return false;
      if (x < *lo) *lo = x;
      if (x > *hi) *hi = x;
    }
    any = true;
  }
  *first = ns->first;
  *last = ns->last;
  return any;
}

static bool narrow_match(olg_prule_site *st) {
  uint32_t first, last;
  int64_t lo, hi;
  if (!narrowable(st->g, st->node, &first, &last, &lo, &hi)) return false;
  snprintf(st->msg, sizeof st->msg, "%s's int64 input%s %u%s%.0u hold%s values in [%lld, %lld]: "
           "int32 holds them", st->g->nodes[st->node].op, first == last ? "" : "s", first,
           first == last ? "" : "..", first == last ? 0u : last, first == last ? "s" : "",
           (long long)lo, (long long)hi);
  return true;
}

/* Each narrowed input becomes an int32 Constant of the same values; the node's outputs keep
 * their types (the index type is a constraint of its own). */
static olg_status narrow_fix(olg_prule_site *st) {
  olg_lower *cx = st->cx;
  uint32_t first, last;
  int64_t lo, hi;
  if (!narrowable(olg__prof_graph(cx), st->node, &first, &last, &lo, &hi))
    return olg__prof_decline(st, "the values are not all known int64 within int32's range");
  for (uint32_t k = first; k <= last; k++) {
    olg_value v = olg__prof_input(olg__prof_graph(cx), st->node, k);
    if (v == OLG_NO_VALUE) continue;
    const olg_tensor *t = olg__prof_known(olg__prof_graph(cx), v);
    size_t n = t->nbytes / 8;
    int32_t *d = olg__lower_alloc(cx, n * 4 + 4);
    if (!d) return OLG_ERR_NOMEM;
    for (size_t e = 0; e < n; e++) {
      int64_t x;
      memcpy(&x, (const char *)t->data + 8 * e, 8);
      d[e] = (int32_t)x;
    }
    olg_value nv;
    OLG_TRY(olg__const_tensor_kept(cx, OLG_INT32, t->rank, t->dims, d, n * 4, &nv));
    olg__prof_graph(cx)->nodes[st->node].args[k].u.v = nv; /* the node reads the int32 copy */
  }
  snprintf(st->msg, sizeof st->msg, "inputs %u..%u narrowed to int32: proof: every value is "
           "known, in [%lld, %lld], within int32's [%d, %d]", first, last, (long long)lo,
           (long long)hi, INT32_MIN, INT32_MAX);
  return OLG_OK;
}

/* ---- unsupported ops ---- */

/* onnx-tensorrt docs/operators.md at 96e7811: the rows marked Y (sorted, for bsearch). */
static const char *const trt_supported[] = {
    "Abs", "Acos", "Acosh", "Add", "And", "ArgMax", "ArgMin", "Asin", "Asinh", "Atan", "Atanh",
    "AveragePool", "BatchNormalization", "Cast", "CastLike", "Ceil", "Celu", "Clip", "Concat",
    "Constant", "ConstantOfShape", "Conv", "ConvTranspose", "Cos", "Cosh", "CumSum",
    "DeformConv", "DepthToSpace", "DequantizeLinear", "Div", "Dropout", "Einsum", "Elu",
    "Equal", "Erf", "Exp", "Expand", "EyeLike", "Flatten", "Floor", "GRU", "Gather",
    "GatherElements", "GatherND", "Gelu", "Gemm", "GlobalAveragePool", "GlobalLpPool",
    "GlobalMaxPool", "Greater", "GreaterOrEqual", "GridSample", "GroupNormalization",
    "HardSigmoid", "HardSwish", "Hardmax", "Identity", "If", "ImageScaler",
    "InstanceNormalization", "IsInf", "IsNaN", "LRN", "LSTM", "LayerNormalization",
    "LeakyRelu", "Less", "LessOrEqual", "Log", "LogSoftmax", "Loop", "LpNormalization",
    "LpPool", "MatMul", "Max", "MaxPool", "Mean", "MeanVarianceNormalization", "Min", "Mish",
    "Mod", "Mul", "Neg", "NonMaxSuppression", "NonZero", "Not", "OneHot", "Or", "PRelu", "Pad",
    "ParametricSoftplus", "Pow", "QuantizeLinear", "RNN", "RandomNormal", "RandomNormalLike",
    "RandomUniform", "RandomUniformLike", "Range", "Reciprocal", "ReduceL1", "ReduceL2",
    "ReduceLogSum", "ReduceLogSumExp", "ReduceMax", "ReduceMean", "ReduceMin", "ReduceProd",
    "ReduceSum", "ReduceSumSquare", "Relu", "Reshape", "Resize", "ReverseSequence", "RoiAlign",
    "Round", "ScaledTanh", "Scan", "Scatter", "ScatterElements", "ScatterND", "Selu", "Shape",
    "Shrink", "Sigmoid", "Sign", "Sin", "Sinh", "Size", "Slice", "Softmax", "Softplus",
    "Softsign", "SpaceToDepth", "Split", "Sqrt", "Squeeze", "Sub", "Sum", "Tan", "Tanh",
    "ThresholdedRelu", "Tile", "TopK", "Transpose", "Trilu", "Unsqueeze", "Upsample", "Where",
    "Xor"};

static int cmp_name(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static bool trt_unsupported_match(olg_prule_site *st) {
  const olg_node *nd = &st->g->nodes[st->node];
  if (*nd->domain) return false;
  const char *op = nd->op;
  if (bsearch(&op, trt_supported, sizeof trt_supported / sizeof *trt_supported,
              sizeof *trt_supported, cmp_name))
    return false;
  snprintf(st->msg, sizeof st->msg, "%s: TensorRT's ONNX parser has no importer for it", op);
  return true;
}

static olg_status trt_unsupported_fix(olg_prule_site *st) {
  const char *op = olg__prof_graph(st->cx)->nodes[st->node].op;
  if (olg__prof_folds(st)) {
    snprintf(st->msg, sizeof st->msg, "its inputs are constants: folded into a Constant");
    return OLG_OK;
  }
  if (strcmp(op, "Bernoulli") == 0) return olg__prof_bernoulli(st);
  if (strcmp(op, "MaxUnpool") == 0) return olg__prof_maxunpool(st);
  if (strcmp(op, "Det") == 0) return olg__prof_det(st);
  bool done = false;
  if (strncmp(op, "Optional", 8) == 0) {
    OLG_TRY(olg__prof_optional(st, &done));
    if (done) return OLG_OK;
  }
  return olg__prof_decline(st, "none exact for %s here", op);
}

/* ---- the table ---- */

#define TRT_KNOWN(op_, since_, slot_, what_)                                                     \
  {.name = "tensorrt/axes-initializer", .op = op_, .since = since_, .kind = OLG_PRULE_KNOWN,     \
   .slot = slot_, .what = what_ " must be an initializer (TensorRT reads it when building)",     \
   .hint = "make it a constant (a value computed from constants is folded by convert)"},

/* sorted by op (the engine binary-searches the table) */
static const olg_prule tensorrt_rules[] = {
    TRT_KNOWN("CumSum", 11, 1, "axis")
    {.name = "tensorrt/int64-narrow", .op = "CumSum", .since = 11, .kind = OLG_PRULE_MATCH,
     .match = narrow_match, .fix = narrow_fix, .hint = "narrowed to int32 (every value fits)"},
    {.name = "tensorrt/shape-gather", .op = "Gather", .since = 1, .kind = OLG_PRULE_MATCH,
     .match = shape_gather_match, .fix = shape_gather_fix,
     .hint = "slice the shape instead (Shape start/end at 15+, Shape then Slice below)"},
    {.name = "tensorrt/int64-narrow", .op = "Gather", .since = 1, .kind = OLG_PRULE_MATCH,
     .match = narrow_match, .fix = narrow_fix, .hint = "narrowed to int32 (every value fits)"},
    {.name = "tensorrt/int64-narrow", .op = "GatherElements", .since = 1,
     .kind = OLG_PRULE_MATCH, .match = narrow_match, .fix = narrow_fix,
     .hint = "narrowed to int32 (every value fits)"},
    {.name = "tensorrt/gridsample-4d", .op = "GridSample", .since = 16, .kind = OLG_PRULE_RANK,
     .slot = 0, .lo = 4, .hi = 4, .what = "TensorRT samples 4-D inputs only",
     .hint = "none exact (reshape to 4-D by hand where the sampling allows)"},
    TRT_KNOWN("OneHot", 9, 1, "depth")
    TRT_KNOWN("Pad", 18, 3, "axes")
    TRT_KNOWN("ReduceL1", 18, 1, "axes")
    TRT_KNOWN("ReduceL2", 18, 1, "axes")
    TRT_KNOWN("ReduceLogSum", 18, 1, "axes")
    TRT_KNOWN("ReduceLogSumExp", 18, 1, "axes")
    TRT_KNOWN("ReduceMax", 18, 1, "axes")
    TRT_KNOWN("ReduceMean", 18, 1, "axes")
    TRT_KNOWN("ReduceMin", 18, 1, "axes")
    TRT_KNOWN("ReduceProd", 18, 1, "axes")
    TRT_KNOWN("ReduceSum", 13, 1, "axes")
    TRT_KNOWN("ReduceSumSquare", 18, 1, "axes")
    {.name = "tensorrt/int64-narrow", .op = "ScatterElements", .since = 1,
     .kind = OLG_PRULE_MATCH, .match = narrow_match, .fix = narrow_fix,
     .hint = "narrowed to int32 (every value fits)"},
    {.name = "tensorrt/scatternd-reduction", .op = "ScatterND", .since = 16,
     .kind = OLG_PRULE_MATCH, .match = scatternd_match, .fix = scatternd_fix,
     .hint = "drop reduction='none'; other reductions have no exact rewrite"},
    TRT_KNOWN("Slice", 10, 3, "axes")
    TRT_KNOWN("Squeeze", 13, 1, "axes")
    {.name = "tensorrt/topk-k", .op = "TopK", .since = 1, .until = 1, .kind = OLG_PRULE_LIMIT,
     .attr = "k", .lo = 0, .hi = 3839, .what = "TensorRT's TopK takes K below 3840",
     .hint = "none exact (split the TopK by hand)"},
    {.name = "tensorrt/topk-k", .op = "TopK", .since = 10, .kind = OLG_PRULE_KNOWN, .slot = 1,
     .what = "K must be an initializer", .hint = "make K a constant below 3840"},
    {.name = "tensorrt/topk-k", .op = "TopK", .since = 10, .kind = OLG_PRULE_LIMIT, .slot = 1,
     .lo = 0, .hi = 3839, .what = "TensorRT's TopK takes K below 3840",
     .hint = "none exact (split the TopK by hand)"},
    {.name = "tensorrt/topk-sorted", .op = "TopK", .since = 11, .kind = OLG_PRULE_ATTR,
     .attr = "sorted", .ivals = (const int64_t[]){1}, .n_vals = 1, .has_dflt = true, .dflt_i = 1,
     .fix = topk_sorted_fix, .what = "TensorRT's TopK sorts",
     .hint = "sorted=1 (a sorted result is one that sorted=0 allows)"},
    TRT_KNOWN("Unsqueeze", 13, 1, "axes")
};

static const olg_prule tensorrt_any_rules[] = {
    {.name = "tensorrt/unsupported-op", .op = NULL, .kind = OLG_PRULE_MATCH,
     .match = trt_unsupported_match, .fix = trt_unsupported_fix,
     .hint = "Bernoulli, Det (up to 3x3), MaxUnpool and Optional* built in the graph are decomposed, constant "
             "ones folded; the others have no exact rewrite here"},
};

static const olg_prule_table tensorrt_tables[] = {
    {tensorrt_rules, sizeof tensorrt_rules / sizeof tensorrt_rules[0], true,
     "onnx-tensorrt 96e7811 (10.1 GA) docs/operators.md, Restrictions column"},
    {olg__trt_resize_rules, OLG_TRT_N_RESIZE_RULES, true, "onnx-tensorrt 96e7811 (10.1 GA) onnxOpImporters.cpp importResize"},
    {tensorrt_any_rules, 1, false, "onnx-tensorrt 96e7811 (10.1 GA) docs/operators.md, Supported"},
};

const olg_profile olg__profile_tensorrt = {
    .name = "tensorrt",
    .title = "TensorRT 10's ONNX parser (onnx-tensorrt 10.1)",
    .tables = tensorrt_tables,
    .n_tables = sizeof tensorrt_tables / sizeof tensorrt_tables[0],
    .magic = OLG_PROFILE_MAGIC,
};
