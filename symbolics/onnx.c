/* onnxlegal — ONNX-domain source nodes: an ONNX node at its source opset is read into its meaning
 * and re-emitted at the target opset. Up- and down-conversion are the same mechanism.
 *
 * olg__sym_onnx_passthrough serves every op without a row of its own: the node is copied when
 * the op exists at the target opset and every attribute it carries exists there with the same
 * type (additive changes: new types, new optional attributes). The ops whose ENCODING changed
 * (an attribute became an input, semantics changed under the same signature) have a row and a
 * function here that reads the source encoding and re-emits through the emit helpers. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "emit.h"
#include "emit_nn.h"
#include "../lib/lower.h"
#include "../lib/schema.h"
#include "symbolics.h"

#define UNUSED_SRC (void)src; (void)ud

/* The source opset of the node's domain (the target's when the model imports none). */
static int src_opset(const olg_lower *cx) {
  int64_t s = olg_lower_source_opset(cx);
  return s > 0 ? (int)s : olg__opset(cx);
}

static olg_status in_value(olg_lower *cx, size_t i, olg_value *out) {
  return olg__arg_value_or_none(cx, i, out);
}

/* Binds the source outputs to outs[0..n) (and fails if a further source output is used). */
static olg_status bind_all(olg_lower *cx, const olg_value *outs, size_t n) {
  for (size_t i = 0; i < olg_lower_output_count(cx); i++) {
    if (i < n) OLG_TRY(olg_lower_bind_output(cx, i, outs[i]));
    else if (olg_lower_output_used(cx, i))
      return olg__errf(cx, OLG_ERR_UNSUPPORTED, "output %zu of this op is not supported when used", i);
  }
  return OLG_OK;
}

/* ------------------------------------------------------------------------------------------ */

/* 1 when attribute a of node nd (at source opset so) holds its schema's default, which is what
 * a version without the attribute does (an attribute is only ever added with a default that
 * keeps the older behaviour: MaxPool's ceil_mode 0, ArgMax's select_last_index 0 -- all but
 * the few listed below, checked against onnx's schema history): such an attribute may be left
 * out at a target that lacks it. Ints and strings compare exactly; float
 * defaults are printed rounded, so floats never qualify. dilations of all 1 are the default of
 * every op that has them (the spec prints no default, as it depends on the rank). */
static bool implied_default(const olg_node *nd, const olg_attr *a, int so) {
  /* the exceptions: an attribute whose default is NOT what the versions without it do
   * (RoiAlign-10 works as output_half_pixel, RoiAlign-16's default is half_pixel) */
  static const struct { const char *op, *attr, *implied; } older[] = {
      {"RoiAlign", "coordinate_transformation_mode", "output_half_pixel"},
      {"Resize", "coordinate_transformation_mode", "asymmetric"},
  };
  for (size_t k = 0; k < sizeof older / sizeof older[0]; k++)
    if (strcmp(nd->op, older[k].op) == 0 && strcmp(a->name, older[k].attr) == 0)
      return a->type == OLG_ATTR_STRING && a->s.n == strlen(older[k].implied) &&
             memcmp(a->s.p, older[k].implied, a->s.n) == 0;
  if (a->type == OLG_ATTR_INTS && strcmp(a->name, "dilations") == 0) {
    for (size_t k = 0; k < a->n; k++)
      if (a->ints[k] != 1) return false;
    return true;
  }
  const olg_schema *ss = olg_schema_find("", nd->op, so);
  const olg_attr_schema *as = ss ? olg_schema_attr(ss, a->name) : NULL;
  if (!as || as->type != a->type || !as->default_str) return false;
  if (a->type == OLG_ATTR_INT) {
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", (long long)a->i);
    return strcmp(buf, as->default_str) == 0;
  }
  if (a->type == OLG_ATTR_STRING)
    return a->s.n == strlen(as->default_str) && memcmp(a->s.p, as->default_str, a->s.n) == 0;
  return false;
}

/* 1 when the op's "axis" attribute counts the dims of input 0 (not of the output, as OneHot's
 * does, nor of a sequence's elements). */
static bool axis_of_input0(const char *op) {
  static const char *const other[] = {"OneHot", "ConcatFromSequence", "SplitToSequence", "Scan",
                                      "Unsqueeze"};
  for (size_t i = 0; i < sizeof other / sizeof other[0]; i++)
    if (strcmp(op, other[i]) == 0) return false;
  return true;
}

olg_status olg__sym_onnx_passthrough(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  const olg_node *nd = olg__src_node(cx);
  int target = olg__opset(cx);
  const olg_schema *ts = olg_schema_find("", nd->op, target);
  if (!ts || ts->deprecated) {
    size_t nv;
    const olg_schema *vs = olg_schema_versions("", nd->op, &nv);
    if (!vs) return olg__unsupportedf(cx, -1, "%s (not an ONNX operator)", nd->op);
    int first = -1, last = -1;
    for (size_t i = 0; i < nv; i++) {
      if (!vs[i].deprecated && first < 0) first = vs[i].since_version;
      if (vs[i].deprecated && first > 0 && last < 0) last = vs[i].since_version;
    }
    if (first > target) return olg__unsupportedf(cx, first, "%s", nd->op);
    return olg__errf(cx, OLG_ERR_UNSUPPORTED,
                     "%s was removed at opset %d; it exists at opsets %d to %d", nd->op, last,
                     first, last - 1);
  }
  uint64_t dropped = 0; /* attributes that only restate what the target's version implies */
  for (uint32_t i = 0; i < nd->n_attrs; i++) {
    const olg_attr_schema *as = olg_schema_attr(ts, nd->attrs[i].name);
    if (!as && i < 64 && implied_default(nd, &nd->attrs[i], src_opset(cx))) {
      dropped |= (uint64_t)1 << i;
      continue;
    }
    if (!as || as->type != nd->attrs[i].type) {
      /* which version brought it: say the lowest opset that works */
      size_t nv;
      const olg_schema *vs = olg_schema_versions("", nd->op, &nv);
      int from = -1;
      for (size_t k = 0; vs && k < nv && from < 0; k++) {
        const olg_attr_schema *a = olg_schema_attr(&vs[k], nd->attrs[i].name);
        if (a && a->type == nd->attrs[i].type && !vs[k].deprecated) from = vs[k].since_version;
      }
      return olg__unsupportedf(cx, from > target ? from : -1, "%s with attribute '%s'", nd->op,
                               nd->attrs[i].name);
    }
  }
  if (strcmp(nd->op, "Scan") == 0 && (src_opset(cx) < 9) != (target < 9))
    return olg__unsupportedf(cx, src_opset(cx) < 9 ? 8 : 9,
                             "Scan-%d converted across opset 9 (Scan-8's batch axis and "
                             "sequence_lens are gone at 9)", src_opset(cx) < 9 ? 8 : 9);
  int n_in = (int)nd->n_args;
  while (n_in > 0 && nd->args[n_in - 1].kind == OLG_ARG_NONE) n_in--;
  for (int i = 0; i < n_in; i++) { /* a type the op takes only from a later version */
    olg_value v;
    if (nd->args[i].kind != OLG_ARG_VALUE || olg_lower_arg_value(cx, (size_t)i, &v)) continue;
    olg_dtype t = olg__dtype(cx, v);
    const olg_formal *f = olg_schema_input_formal(ts, i);
    if (t == OLG_UNDEFINED || !f || !f->tensor_dtypes || olg_schema_formal_allows_dtype(f, t)) continue;
    size_t nv;
    const olg_schema *vs = olg_schema_versions("", nd->op, &nv);
    int from = -1;
    for (size_t k = 0; vs && k < nv && from < 0; k++) {
      const olg_formal *g = vs[k].deprecated ? NULL : olg_schema_input_formal(&vs[k], i);
      if (vs[k].since_version > target && g && olg_schema_formal_allows_dtype(g, t))
        from = vs[k].since_version;
    }
    return olg__unsupportedf(cx, from, "%s of %s (input %d)", nd->op, olg_dtype_name(t), i);
  }
  if (ts->max_inputs != OLG_SCHEMA_UNBOUNDED && n_in > ts->max_inputs)
    return olg__unsupportedf(cx, -1, "%s with %d inputs (it takes at most %d at this opset)",
                             nd->op, n_in, ts->max_inputs);
  olg_graph *g = olg_lower_target(cx);
  olg_node_id n;
  olg_value in0 = OLG_NO_VALUE;
  OLG_TRY(olg_node_begin(g, "", nd->op, nd->name, &n));
  for (int i = 0; i < n_in; i++) {
    olg_value v = OLG_NO_VALUE;
    if (nd->args[i].kind != OLG_ARG_NONE) OLG_TRY(olg_lower_arg_value(cx, (size_t)i, &v));
    if (i == 0) in0 = v;
    OLG_TRY(olg_lower_emit_input(cx, n, v));
  }
  for (uint32_t i = 0; i < nd->n_attrs; i++) {
    const olg_attr *a = &nd->attrs[i];
    if (i < 64 && (dropped >> i & 1)) continue;
    if (a->type == OLG_ATTR_GRAPH) { /* a body: lowered to the target opset too */
      olg_graph *sub;
      OLG_TRY(olg__lower_subgraph(cx, a->g, a->name, &sub));
      OLG_TRY(olg_node_attr_graph(g, n, a->name, sub));
    } else if (a->type == OLG_ATTR_GRAPHS) {
      olg_graph **subs = olg__lower_alloc(cx, (a->n ? a->n : 1) * sizeof *subs);
      if (!subs) return OLG_ERR_NOMEM;
      for (size_t k = 0; k < a->n; k++) OLG_TRY(olg__lower_subgraph(cx, a->graphs[k], a->name, &subs[k]));
      OLG_TRY(olg_node_attr_graphs(g, n, a->name, subs, a->n));
    } else if (a->type == OLG_ATTR_INT && a->i < 0 && strcmp(a->name, "axis") == 0 &&
               axis_of_input0(nd->op) && n_in > 0 && olg__rank(cx, in0) >= 0) {
      /* a negative axis counted from input 0's rank: positive, legal at every opset (most ops
       * took negative axes only from 11) */
      OLG_TRY(olg_node_attr_int(g, n, "axis", a->i + olg__rank(cx, in0)));
    } else {
      OLG_TRY(olg__node_add_attr(g, n, a)); /* borrowed from the source model */
    }
  }
  size_t n_out = nd->n_outputs;
  while (n_out > 0 && nd->outputs[n_out - 1] == OLG_NO_VALUE) n_out--;
  olg_value outs[64];
  if (n_out > 64) return olg_lower_error(cx, OLG_ERR_LIMIT, "more than 64 outputs");
  OLG_TRY(olg_lower_emit_end(cx, n, n_out, outs));
  return bind_all(cx, outs, n_out);
}

/* ------------------------------------------------------------------------------------------ */
/* Attribute-or-input: the axes (etc.) of a node, from the attribute (source opset < since) or
 * from input i. *dyn gets a run-time value when the input is not known. */
static olg_status ints_attr_or_input(olg_lower *cx, const char *attr, size_t i, int since,
                                     const int64_t **p, size_t *n, bool *present, olg_value *dyn) {
  *dyn = OLG_NO_VALUE;
  *present = false;
  *p = NULL;
  *n = 0;
  if (src_opset(cx) < since) {
    *present = olg__src_attr_ints(cx, attr, p, n);
    return OLG_OK;
  }
  if (olg_lower_arg_is_none(cx, i)) return OLG_OK;
  olg_value v;
  OLG_TRY(olg_lower_arg_value(cx, i, &v));
  *present = true;
  if (!olg__known_ints(cx, v, p, n)) *dyn = v;
  return OLG_OK;
}

/* Squeeze, Unsqueeze: axes attribute < 13, input >= 13 */
olg_status olg__sym_onnx_squeeze(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  const char *op = olg_lower_node_op(cx);
  bool unsq = strcmp(op, "Unsqueeze") == 0;
  olg_value x, y, dyn;
  const int64_t *axes;
  size_t n;
  bool present;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(ints_attr_or_input(cx, "axes", 1, 13, &axes, &n, &present, &dyn));
  if (dyn != OLG_NO_VALUE) {
    if (olg__opset(cx) < 13) return olg__unsupportedf(cx, 13, "%s with axes computed at run time", op);
    OLG_TRY(olg__emit2(cx, op, x, dyn, &y));
  } else if (unsq) {
    OLG_TRY(olg__emit_unsqueeze(cx, x, axes, n, &y));
  } else {
    OLG_TRY(olg__emit_squeeze(cx, x, axes, n, &y));
  }
  return olg_lower_bind_output(cx, 0, y);
}

static bool reduce_kind(const char *op, olg_reduce_kind *k) {
  static const char *const ops[] = {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin",
                                    "ReduceProd", "ReduceL1", "ReduceL2", "ReduceLogSum",
                                    "ReduceLogSumExp", "ReduceSumSquare"};
  for (int i = 0; i < 10; i++)
    if (strcmp(op, ops[i]) == 0) {
      *k = (olg_reduce_kind)i;
      return true;
    }
  return false;
}

/* Reduce*: axes attribute below 13 (ReduceSum) or 18 (the others), input from then on */
olg_status olg__sym_onnx_reduce(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  const char *op = olg_lower_node_op(cx);
  olg_reduce_kind kind;
  if (!reduce_kind(op, &kind)) return olg__errf(cx, OLG_ERR_INVALID_ARG, "%s is not a reduction", op);
  int since = kind == OLG_REDUCE_SUM ? 13 : 18;
  olg_value x, y, dyn;
  const int64_t *axes;
  size_t n;
  bool present;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(ints_attr_or_input(cx, "axes", 1, since, &axes, &n, &present, &dyn));
  int64_t keepdims = olg__src_attr_int(cx, "keepdims", 1);
  int64_t noop = olg__src_attr_int(cx, "noop_with_empty_axes", 0);
  if (dyn != OLG_NO_VALUE) {
    if (olg__opset(cx) < since) return olg__unsupportedf(cx, since, "%s with axes computed at run time", op);
    olg_node_id nd;
    OLG_TRY(olg_lower_emit_begin(cx, "", op, &nd));
    OLG_TRY(olg_lower_emit_input(cx, nd, x));
    OLG_TRY(olg_lower_emit_input(cx, nd, dyn));
    OLG_TRY(olg_lower_emit_attr_int(cx, nd, "keepdims", keepdims));
    if (noop) OLG_TRY(olg_lower_emit_attr_int(cx, nd, "noop_with_empty_axes", 1));
    OLG_TRY(olg_lower_emit_end(cx, nd, 1, &y));
    return olg_lower_bind_output(cx, 0, y);
  }
  if (noop && n == 0) return olg_lower_bind_output(cx, 0, x); /* reduces nothing */
  OLG_TRY(olg__emit_reduce(cx, kind, x, axes, n, (int)keepdims, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* Slice: attributes starts/ends/axes < 10, inputs (and steps) >= 10 */
olg_status olg__sym_onnx_slice(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  if (src_opset(cx) < 10) {
    const int64_t *s, *e, *a = NULL;
    size_t ns = 0, ne = 0, na = 0;
    if (!olg__src_attr_ints(cx, "starts", &s, &ns) || !olg__src_attr_ints(cx, "ends", &e, &ne) ||
        ns != ne)
      return olg_lower_error(cx, OLG_ERR_INVALID_MODEL, "Slice: starts/ends missing or of different lengths");
    if (olg__src_attr_ints(cx, "axes", &a, &na) && na != ns)
      return olg_lower_error(cx, OLG_ERR_INVALID_MODEL, "Slice: axes of a different length");
    OLG_TRY(olg__emit_slice(cx, x, s, e, na ? a : NULL, NULL, ns, &y));
  } else {
    olg_value in[5];
    for (size_t i = 1; i < 5; i++) OLG_TRY(in_value(cx, i, &in[i]));
    OLG_TRY(olg__emit_slice_dyn(cx, x, in[1], in[2], in[3], in[4], &y));
  }
  return olg_lower_bind_output(cx, 0, y);
}

/* Pad: attributes pads/mode/value < 11; inputs pads, constant_value >= 11, axes >= 18 */
olg_status olg__sym_onnx_pad(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  const char *mode = olg__src_attr_string(cx, "mode", "constant");
  if (src_opset(cx) < 11) {
    const int64_t *p;
    size_t n;
    if (!olg__src_attr_ints(cx, "pads", &p, &n) && !olg__src_attr_ints(cx, "paddings", &p, &n))
      return olg_lower_error(cx, OLG_ERR_INVALID_MODEL, "Pad without pads");
    OLG_TRY(olg__emit_pad(cx, x, mode, p, n, olg__src_attr_float(cx, "value", 0), &y));
    return olg_lower_bind_output(cx, 0, y);
  }
  olg_value pads, value, axes;
  OLG_TRY(olg_lower_arg_value(cx, 1, &pads));
  OLG_TRY(in_value(cx, 2, &value));
  OLG_TRY(in_value(cx, 3, &axes));
  if (axes != OLG_NO_VALUE) { /* spread the pads of the listed axes over every axis */
    const int64_t *a, *p;
    size_t na, np;
    int32_t rank = olg__rank(cx, x);
    if (!olg__known_ints(cx, axes, &a, &na) || !olg__known_ints(cx, pads, &p, &np) || rank < 0 ||
        np != 2 * na || rank > OLG_MAX_RANK) {
      if (olg__opset(cx) < 18) return olg_lower_unsupported(cx, "Pad with run-time axes", 18);
      olg_node_id nd;
      OLG_TRY(olg_lower_emit_begin(cx, "", "Pad", &nd));
      olg_value in[4] = {x, pads, value, axes};
      for (int i = 0; i < 4; i++) OLG_TRY(olg_lower_emit_input(cx, nd, in[i]));
      OLG_TRY(olg_lower_emit_attr_string(cx, nd, "mode", mode));
      OLG_TRY(olg_lower_emit_end(cx, nd, 1, &y));
      return olg_lower_bind_output(cx, 0, y);
    }
    int64_t full[2 * OLG_MAX_RANK] = {0};
    for (size_t i = 0; i < na; i++) {
      int64_t ax = olg__norm_axis(a[i], rank);
      if (ax < 0) return olg_lower_error(cx, OLG_ERR_RANGE, "Pad: axis out of range");
      full[ax] = p[i];
      full[ax + rank] = p[i + na];
    }
    OLG_TRY(olg__const_i64s(cx, full, 2 * (size_t)rank, &pads));
  }
  OLG_TRY(olg__emit_pad_dyn(cx, x, mode, pads, value, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* Split: split attribute < 13, input >= 13, num_outputs >= 18 */
olg_status olg__sym_onnx_split(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, dyn;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  size_t n_out = olg_lower_output_count(cx);
  const int64_t *sizes;
  size_t n;
  bool present;
  OLG_TRY(ints_attr_or_input(cx, "split", 1, 13, &sizes, &n, &present, &dyn));
  int64_t axis = olg__src_attr_int(cx, "axis", 0);
  if (dyn != OLG_NO_VALUE) { /* run-time sizes: an input from 13 on */
    if (olg__opset(cx) < 13) return olg_lower_unsupported(cx, "Split with sizes computed at run time", 13);
    olg_value outs[64];
    if (n_out > 64) return olg_lower_error(cx, OLG_ERR_LIMIT, "Split into more than 64 parts");
    olg_node_id nd;
    OLG_TRY(olg__emit_cast(cx, dyn, OLG_INT64, &dyn));
    OLG_TRY(olg_lower_emit_begin(cx, "", "Split", &nd));
    OLG_TRY(olg_lower_emit_input(cx, nd, x));
    OLG_TRY(olg_lower_emit_input(cx, nd, dyn));
    OLG_TRY(olg_lower_emit_attr_int(cx, nd, "axis", axis));
    OLG_TRY(olg_lower_emit_end(cx, nd, n_out, outs));
    return bind_all(cx, outs, n_out);
  }
  if (present && n != n_out) return olg_lower_error(cx, OLG_ERR_INVALID_MODEL, "Split: split has the wrong length");
  int64_t *own = NULL;
  if (!present && src_opset(cx) >= 18 && olg__opset(cx) < 18) {
    /* num_outputs: ceil-sized parts, the last smaller; below 18 they must be spelled out */
    int64_t d = olg__dim(cx, x, (int32_t)axis);
    if (d < 0) return olg_lower_unsupported(cx, "Split with num_outputs of a dim whose size is not known", 18);
    int64_t part = (d + (int64_t)n_out - 1) / (int64_t)n_out;
    if (d % (int64_t)n_out) {
      own = olg__lower_alloc(cx, n_out * sizeof *own);
      if (!own) return OLG_ERR_NOMEM;
      for (size_t i = 0; i < n_out; i++) own[i] = i + 1 < n_out ? part : d - part * (int64_t)(n_out - 1);
      sizes = own;
      present = true;
    }
  }
  olg_value outs[64];
  if (n_out > 64) return olg_lower_error(cx, OLG_ERR_LIMIT, "Split into more than 64 parts");
  OLG_TRY(olg__emit_split(cx, x, axis, present ? sizes : NULL, n_out, outs));
  return bind_all(cx, outs, n_out);
}

/* Clip: attributes min/max < 11, inputs >= 11 */
olg_status olg__sym_onnx_clip(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  if (src_opset(cx) < 11) {
    const olg_node *nd = olg__src_node(cx);
    bool has_lo = olg__node_attr(nd, "min") != NULL, has_hi = olg__node_attr(nd, "max") != NULL;
    OLG_TRY(olg__emit_clip_f(cx, x, has_lo, olg__src_attr_float(cx, "min", 0), has_hi,
                             olg__src_attr_float(cx, "max", 0), &y));
  } else {
    olg_value lo, hi;
    OLG_TRY(in_value(cx, 1, &lo));
    OLG_TRY(in_value(cx, 2, &hi));
    OLG_TRY(olg__emit_clip(cx, x, lo, hi, &y));
  }
  return olg_lower_bind_output(cx, 0, y);
}

/* Upsample (7: scales attribute; 9: scales input) and Resize (10: scales; 11+: roi, scales,
 * sizes and the coordinate attributes; 18: axes, antialias). */
olg_status olg__sym_onnx_resize(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  const char *op = olg_lower_node_op(cx);
  int so = src_opset(cx);
  bool legacy = strcmp(op, "Upsample") == 0 || so < 11;
  olg_value x, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  olg_resize_params p = OLG_RESIZE_PARAMS_INIT;
  int32_t rank = olg__rank(cx, x);
  p.mode = olg__src_attr_string(cx, "mode", "nearest");
  if (legacy) {
    /* asymmetric coordinates; nearest rounds down when up-sampling, up when down-sampling */
    p.coordinate_transformation_mode = "asymmetric";
    p.nearest_mode = "floor";
    const olg_node *nd = olg__src_node(cx);
    const olg_attr *sa = olg__node_attr(nd, "scales");
    if (sa && sa->type == OLG_ATTR_FLOATS) {
      p.scales = sa->floats;
      p.n = sa->n;
    } else {
      OLG_TRY(olg_lower_arg_value(cx, 1, &p.scales_v));
      const olg_tensor *t = olg__known(cx, p.scales_v);
      if (t && t->dtype == OLG_FLOAT && t->data) {
        p.scales = t->data;
        p.n = t->nbytes / 4;
        p.scales_v = OLG_NO_VALUE;
      }
    }
    bool down = false;
    for (size_t i = 0; p.scales && i < p.n; i++) down = down || p.scales[i] < 1;
    if (down) p.nearest_mode = "ceil";
    if (strcmp(p.mode, "bilinear") == 0) p.mode = "linear"; /* Upsample-7 spelled it so too */
  } else {
    p.coordinate_transformation_mode = olg__src_attr_string(cx, "coordinate_transformation_mode", "half_pixel");
    p.nearest_mode = olg__src_attr_string(cx, "nearest_mode", "round_prefer_floor");
    p.cubic_coeff_a = olg__src_attr_float(cx, "cubic_coeff_a", -0.75);
    p.exclude_outside = (int)olg__src_attr_int(cx, "exclude_outside", 0);
    p.antialias = (int)olg__src_attr_int(cx, "antialias", 0);
    if (strcmp(p.coordinate_transformation_mode, "tf_crop_and_resize") == 0) {
      p.has_roi = 1;
      OLG_TRY(olg_lower_arg_value(cx, 1, &p.roi_v));
      p.extrapolation_value = olg__src_attr_float(cx, "extrapolation_value", 0);
    }
    if (strcmp(olg__src_attr_string(cx, "keep_aspect_ratio_policy", "stretch"), "stretch") != 0)
      return olg_lower_unsupported(cx, "Resize with keep_aspect_ratio_policy other than stretch", -1);
    olg_value scales, sizes;
    OLG_TRY(in_value(cx, 2, &scales));
    OLG_TRY(in_value(cx, 3, &sizes));
    if (scales != OLG_NO_VALUE && olg__rank(cx, scales) == 1 && olg__dim(cx, scales, 0) == 0)
      scales = OLG_NO_VALUE; /* an empty scales stands for "use sizes" (11, 12) */
    const int64_t *axes;
    size_t na = 0;
    bool has_axes = olg__src_attr_ints(cx, "axes", &axes, &na);
    if (has_axes) { /* spell scales/sizes out for every axis */
      if (rank < 0 || rank > OLG_MAX_RANK) return olg_lower_unsupported(cx, "Resize with axes of an input of unknown rank", -1);
      const olg_tensor *t = scales != OLG_NO_VALUE ? olg__known(cx, scales) : NULL;
      const int64_t *sz;
      size_t nsz;
      if (t && t->dtype == OLG_FLOAT && t->nbytes / 4 == na) {
        float *full = olg__lower_alloc(cx, (size_t)rank * sizeof *full);
        if (!full) return OLG_ERR_NOMEM;
        for (int32_t i = 0; i < rank; i++) full[i] = 1;
        for (size_t i = 0; i < na; i++) {
          float f;
          memcpy(&f, (const char *)t->data + 4 * i, 4);
          full[olg__norm_axis(axes[i], rank)] = f;
        }
        p.scales = full;
        p.n = (size_t)rank;
      } else if (sizes != OLG_NO_VALUE && olg__known_ints(cx, sizes, &sz, &nsz) && nsz == na) {
        int64_t *full = olg__lower_alloc(cx, (size_t)rank * sizeof *full);
        if (!full) return OLG_ERR_NOMEM;
        for (int32_t i = 0; i < rank; i++) {
          full[i] = olg__dim(cx, x, i);
          if (full[i] < 0) return olg_lower_unsupported(cx, "Resize with axes of an input of unknown shape", -1);
        }
        for (size_t i = 0; i < na; i++) full[olg__norm_axis(axes[i], rank)] = sz[i];
        p.sizes = full;
        p.n = (size_t)rank;
      } else {
        return olg_lower_unsupported(cx, "Resize with axes and run-time scales or sizes", -1);
      }
    } else if (sizes != OLG_NO_VALUE) {
      const int64_t *sz;
      size_t nsz;
      if (olg__known_ints(cx, sizes, &sz, &nsz)) {
        p.sizes = sz;
        p.n = nsz;
      } else {
        p.sizes_v = sizes;
      }
    } else if (scales != OLG_NO_VALUE) {
      const olg_tensor *t = olg__known(cx, scales);
      if (t && t->dtype == OLG_FLOAT && t->data) {
        p.scales = t->data;
        p.n = t->nbytes / 4;
      } else {
        p.scales_v = scales;
      }
    }
  }
  OLG_TRY(olg__emit_resize(cx, x, &p, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* Dropout at every version: in inference the output is the input and the mask all true. A
 * training_mode input that may be true (12+) is kept as a Dropout node. */
olg_status olg__sym_onnx_dropout(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  if (!olg_lower_arg_is_none(cx, 2)) {
    olg_value tm, ratio = OLG_NO_VALUE, outs[2];
    OLG_TRY(olg_lower_arg_value(cx, 2, &tm));
    double v;
    if (!olg__known_scalar(cx, tm, &v) || v != 0) {
      if (olg__opset(cx) < 12) return olg_lower_unsupported(cx, "Dropout in training mode", 12);
      OLG_TRY(in_value(cx, 1, &ratio));
      olg_node_id nd;
      OLG_TRY(olg_lower_emit_begin(cx, "", "Dropout", &nd));
      OLG_TRY(olg_lower_emit_input(cx, nd, x));
      OLG_TRY(olg_lower_emit_input(cx, nd, ratio));
      OLG_TRY(olg_lower_emit_input(cx, nd, tm));
      if (olg_lower_src_attr_has(cx, "seed"))
        OLG_TRY(olg_lower_emit_attr_int(cx, nd, "seed", olg__src_attr_int(cx, "seed", 0)));
      size_t n_out = olg_lower_output_count(cx) > 1 && olg_lower_output_used(cx, 1) ? 2 : 1;
      OLG_TRY(olg_lower_emit_end(cx, nd, n_out, outs));
      return bind_all(cx, outs, n_out);
    }
  }
  if (olg__src_attr_int(cx, "is_test", 1) == 0 && src_opset(cx) < 7)
    return olg_lower_unsupported(cx, "Dropout in training mode", -1);
  OLG_TRY(olg_lower_bind_output(cx, 0, x));
  if (olg_lower_output_count(cx) > 1 && olg_lower_output_used(cx, 1)) {
    olg_value shape, mask;
    OLG_TRY(olg__shape(cx, x, &shape));
    /* the mask was the input's type before 10, bool since */
    OLG_TRY(olg__emit_full(cx, shape, src_opset(cx) < 10 ? olg__dtype(cx, x) : OLG_BOOL, 1, &mask));
    OLG_TRY(olg_lower_bind_output(cx, 1, mask));
  }
  return OLG_OK;
}

/* BatchNormalization in inference mode, whatever its version's attributes */
olg_status olg__sym_onnx_batchnorm(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value in[5], y;
  for (size_t i = 0; i < 5; i++) OLG_TRY(olg_lower_arg_value(cx, i, &in[i]));
  if (olg__src_attr_int(cx, "training_mode", 0)) { /* the same node from 14 on */
    if (olg__opset(cx) < 14) return olg_lower_unsupported(cx, "BatchNormalization in training mode", 14);
    return olg__sym_onnx_passthrough(cx, src, ud);
  }
  if (olg__src_attr_int(cx, "is_test", 1) == 0)
    return olg_lower_unsupported(cx, "BatchNormalization in training mode (is_test 0)", 14);
  if (olg__src_attr_int(cx, "spatial", 1) == 0)
    return olg_lower_unsupported(cx, "BatchNormalization with spatial=0", -1);
  for (size_t i = 1; i < olg_lower_output_count(cx); i++)
    if (olg_lower_output_used(cx, i))
      return olg_lower_unsupported(cx, "BatchNormalization's training outputs", -1);
  OLG_TRY(olg__emit_batchnorm(cx, in[0], in[1], in[2], in[3], in[4],
                              olg__src_attr_float(cx, "epsilon", 1e-5),
                              olg__src_attr_float(cx, "momentum", 0.9), &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* TopK: k attribute < 10, input >= 10; largest/sorted >= 11 */
olg_status olg__sym_onnx_topk(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, kv = OLG_NO_VALUE, outs[2];
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  int64_t k = olg__src_attr_int(cx, "k", -1);
  if (src_opset(cx) >= 10) OLG_TRY(olg_lower_arg_value(cx, 1, &kv));
  OLG_TRY(olg__emit_topk(cx, x, kv, k, olg__src_attr_int(cx, "axis", -1),
                         (int)olg__src_attr_int(cx, "largest", 1),
                         (int)olg__src_attr_int(cx, "sorted", 1), &outs[0], &outs[1]));
  return bind_all(cx, outs, 2);
}

/* Softmax, LogSoftmax, Hardmax: below 13 the input is flattened to 2-D at axis (default 1);
 * from 13 the op works along one axis (default -1). */
olg_status olg__sym_onnx_softmax(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  const char *op = olg_lower_node_op(cx);
  olg_softmax_kind kind = strcmp(op, "LogSoftmax") == 0 ? OLG_LOG_SOFTMAX
                          : strcmp(op, "Hardmax") == 0  ? OLG_HARDMAX
                                                        : OLG_SOFTMAX;
  olg_value x, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  bool src_flat = src_opset(cx) < 13, dst_flat = olg__opset(cx) < 13;
  int64_t axis = olg__src_attr_int(cx, "axis", src_flat ? 1 : -1);
  int32_t rank = olg__rank(cx, x);
  if (!src_flat) {
    OLG_TRY(olg__emit_softmax(cx, kind, x, axis, &y));
    return olg_lower_bind_output(cx, 0, y);
  }
  if (dst_flat) { /* the same meaning on both sides */
    olg_node_id nd;
    OLG_TRY(olg_lower_emit_begin(cx, "", op, &nd));
    OLG_TRY(olg_lower_emit_input(cx, nd, x));
    OLG_TRY(olg_lower_emit_attr_int(cx, nd, "axis", axis));
    OLG_TRY(olg_lower_emit_end(cx, nd, 1, &y));
    return olg_lower_bind_output(cx, 0, y);
  }
  if (rank >= 0 && olg__norm_axis(axis, rank) == rank - 1) {
    OLG_TRY(olg__emit_softmax(cx, kind, x, -1, &y));
    return olg_lower_bind_output(cx, 0, y);
  }
  /* the 2-D meaning at 13+: Flatten, along the last axis, Reshape back */
  olg_value flat, shape, s2;
  OLG_TRY(olg__emit_flatten(cx, x, axis, &flat));
  OLG_TRY(olg__emit_softmax(cx, kind, flat, 1, &s2));
  OLG_TRY(olg__shape(cx, x, &shape));
  OLG_TRY(olg__emit_reshape(cx, s2, shape, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* Constant: value_float(s)/value_int(s)/value_string(s) exist from 12; carried as a tensor. */
/* Flatten: through the emit helper, which counts a negative axis from the front below
 * opset 11 (where Flatten takes none) when the rank is known, and refuses otherwise. */
olg_status olg__sym_onnx_flatten(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg__emit_flatten(cx, x, olg__src_attr_int(cx, "axis", 1), &y));
  return olg_lower_bind_output(cx, 0, y);
}

olg_status olg__sym_onnx_constant(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  const olg_node *nd = olg__src_node(cx);
  olg_value y;
  if (nd->n_attrs != 1) return olg_lower_error(cx, OLG_ERR_INVALID_MODEL, "Constant needs exactly one attribute");
  const olg_attr *a = &nd->attrs[0];
  if (a->type == OLG_ATTR_TENSOR && !a->t) /* an API-built or hand-made node: no payload */
    return olg_lower_error(cx, OLG_ERR_INVALID_MODEL, "Constant attribute 'value' carries no tensor");
  if (strcmp(a->name, "value") == 0 && a->type == OLG_ATTR_TENSOR && a->t->dtype != OLG_STRING) {
    if (!a->t->data && a->t->nbytes) return olg_lower_unsupported(cx, "a Constant with unloaded external data", -1);
    OLG_TRY(olg__const_tensor_kept(cx, a->t->dtype, a->t->rank, a->t->dims, a->t->data, a->t->nbytes, &y));
  } else if (strcmp(a->name, "value_float") == 0) {
    OLG_TRY(olg__const_scalar(cx, OLG_FLOAT, a->f, &y));
  } else if (strcmp(a->name, "value_int") == 0) {
    OLG_TRY(olg__const_i64(cx, a->i, &y));
  } else if (strcmp(a->name, "value_ints") == 0) {
    OLG_TRY(olg__const_i64s(cx, a->ints, a->n, &y));
  } else if (strcmp(a->name, "value_floats") == 0) {
    OLG_TRY(olg__const_f32s(cx, a->floats, a->n, &y));
  } else {
    return olg_lower_unsupported(cx, "this Constant encoding (strings, sparse)", -1);
  }
  return olg_lower_bind_output(cx, 0, y);
}

/* Scatter (9, removed at 11) and ScatterElements (11+): the same meaning. */
olg_status olg__sym_onnx_scatter(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value in[3], y;
  for (size_t i = 0; i < 3; i++) OLG_TRY(olg_lower_arg_value(cx, i, &in[i]));
  int opset = olg__opset(cx);
  if (opset < 9) return olg_lower_unsupported(cx, "Scatter", 9);
  const char *red = olg__src_attr_string(cx, "reduction", "none");
  bool reduce = strcmp(red, "none") != 0;
  int need = !reduce ? 0 : (strcmp(red, "add") == 0 || strcmp(red, "mul") == 0) ? 16 : 18;
  if (reduce && opset < need) return olg__unsupportedf(cx, need, "ScatterElements with reduction '%s'", red);
  olg_node_id nd;
  OLG_TRY(olg_lower_emit_begin(cx, "", opset >= 11 ? "ScatterElements" : "Scatter", &nd));
  for (int i = 0; i < 3; i++) OLG_TRY(olg_lower_emit_input(cx, nd, in[i]));
  OLG_TRY(olg_lower_emit_attr_int(cx, nd, "axis", olg__src_attr_int(cx, "axis", 0)));
  if (reduce) OLG_TRY(olg_lower_emit_attr_string(cx, nd, "reduction", red));
  OLG_TRY(olg_lower_emit_end(cx, nd, 1, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* GridSample: modes "bilinear"/"bicubic" (16) were renamed "linear"/"cubic" at 20, which also
 * takes N-D inputs (16 takes 4-D only). */
olg_status olg__sym_onnx_grid_sample(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, grid, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg_lower_arg_value(cx, 1, &grid));
  OLG_TRY(olg__emit_grid_sample(cx, x, grid, olg__src_attr_string(cx, "mode", "linear"),
                                olg__src_attr_string(cx, "padding_mode", "zeros"),
                                (int)olg__src_attr_int(cx, "align_corners", 0), &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* Shape: start/end (15+) become Shape + Slice below 15 */
olg_status olg__sym_onnx_shape(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg__shape_range(cx, x, olg__src_attr_int(cx, "start", 0),
                           olg__src_attr_int(cx, "end", INT64_MAX), &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* Reshape: allowzero (14+) matters only when the shape holds a 0 */
olg_status olg__sym_onnx_reshape(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, shape, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg_lower_arg_value(cx, 1, &shape));
  int64_t allowzero = olg__src_attr_int(cx, "allowzero", 0);
  if (allowzero && olg__opset(cx) < 14) {
    const int64_t *d;
    size_t n;
    if (!olg__known_ints(cx, shape, &d, &n))
      return olg_lower_unsupported(cx, "Reshape with allowzero and a run-time shape", 14);
    for (size_t i = 0; i < n; i++)
      if (d[i] == 0) return olg_lower_unsupported(cx, "Reshape to a size of 0 (allowzero)", 14);
    allowzero = 0;
  }
  olg_node_id nd;
  OLG_TRY(olg_lower_emit_begin(cx, "", "Reshape", &nd));
  OLG_TRY(olg_lower_emit_input(cx, nd, x));
  OLG_TRY(olg_lower_emit_input(cx, nd, shape));
  if (allowzero) OLG_TRY(olg_lower_emit_attr_int(cx, nd, "allowzero", 1));
  OLG_TRY(olg_lower_emit_end(cx, nd, 1, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* CastLike (15) below 15: Cast to the other input's type */
olg_status olg__sym_onnx_castlike(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, like, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(olg_lower_arg_value(cx, 1, &like));
  if (olg__dtype(cx, like) == OLG_UNDEFINED)
    return olg_lower_unsupported(cx, "CastLike to a type not known at export time", 15);
  OLG_TRY(olg__emit_cast_like(cx, x, like, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* HardSwish (14) below 14: x * HardSigmoid(x; alpha 1/6, beta 0.5) */
olg_status olg__sym_onnx_hardswish(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, hs, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  olg_node_id nd;
  OLG_TRY(olg_lower_emit_begin(cx, "", "HardSigmoid", &nd));
  OLG_TRY(olg_lower_emit_input(cx, nd, x));
  OLG_TRY(olg_lower_emit_attr_float(cx, nd, "alpha", 1.0 / 6.0));
  OLG_TRY(olg_lower_emit_attr_float(cx, nd, "beta", 0.5));
  OLG_TRY(olg_lower_emit_end(cx, nd, 1, &hs));
  OLG_TRY(olg__emit2(cx, "Mul", x, hs, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* DFT: axis an attribute (17, default 1), an input from 20 (default -2) */
olg_status olg__sym_onnx_dft(olg_lower *cx, olg_node_id src, void *ud) {
  UNUSED_SRC;
  olg_value x, len, y;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  OLG_TRY(in_value(cx, 1, &len));
  int64_t axis;
  if (src_opset(cx) < 20) {
    axis = olg__src_attr_int(cx, "axis", 1);
  } else if (olg_lower_arg_is_none(cx, 2)) {
    axis = -2;
  } else {
    olg_value av;
    const int64_t *p;
    size_t n;
    OLG_TRY(olg_lower_arg_value(cx, 2, &av));
    if (!olg__known_ints(cx, av, &p, &n) || n != 1) {
      if (olg__opset(cx) < 20) return olg_lower_unsupported(cx, "DFT with a run-time axis", 20);
      axis = INT64_MIN;
    } else {
      axis = p[0];
    }
  }
  int32_t rank = olg__rank(cx, x);
  if (axis < 0 && axis != INT64_MIN) {
    if (rank < 0) return olg_lower_unsupported(cx, "DFT with a negative axis of an input of unknown rank", 20);
    axis += rank;
  }
  olg_node_id nd;
  olg_value av = OLG_NO_VALUE;
  if (olg__opset(cx) >= 20) {
    if (axis == INT64_MIN) OLG_TRY(olg_lower_arg_value(cx, 2, &av));
    else OLG_TRY(olg__const_i64(cx, axis, &av));
  }
  OLG_TRY(olg_lower_emit_begin(cx, "", "DFT", &nd));
  OLG_TRY(olg_lower_emit_input(cx, nd, x));
  OLG_TRY(olg_lower_emit_input(cx, nd, len));
  if (av != OLG_NO_VALUE) OLG_TRY(olg_lower_emit_input(cx, nd, av));
  else OLG_TRY(olg_lower_emit_attr_int(cx, nd, "axis", axis));
  if (olg__src_attr_int(cx, "inverse", 0)) OLG_TRY(olg_lower_emit_attr_int(cx, nd, "inverse", 1));
  if (olg__src_attr_int(cx, "onesided", 0)) OLG_TRY(olg_lower_emit_attr_int(cx, nd, "onesided", 1));
  OLG_TRY(olg_lower_emit_end(cx, nd, 1, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* ArgMax/ArgMin with select_last_index 1 (12) below 12: the first extreme of the input reversed
 * along the axis (a Gather of d-1..0, the dim known), counted back from d-1. Exact. */
olg_status olg__sym_onnx_arg_extreme(olg_lower *cx, olg_node_id src, void *ud) {
  if (!olg__src_attr_int(cx, "select_last_index", 0)) return olg__sym_onnx_passthrough(cx, src, ud);
  const char *op = olg_lower_node_op(cx);
  olg_value x, rev, idx, y, last;
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  int32_t rank = olg__rank(cx, x);
  int64_t axis = olg__norm_axis(olg__src_attr_int(cx, "axis", 0), rank);
  int64_t keepdims = olg__src_attr_int(cx, "keepdims", 1);
  int64_t d = rank >= 0 && axis >= 0 ? olg__dim(cx, x, (int32_t)axis) : -1;
  if (d <= 0) return olg__unsupportedf(cx, 12, "%s with select_last_index along a dim whose size is not known", op);
  int64_t *r = olg__lower_alloc(cx, (size_t)d * sizeof *r);
  if (!r) return OLG_ERR_NOMEM;
  for (int64_t i = 0; i < d; i++) r[i] = d - 1 - i;
  OLG_TRY(olg__const_tensor_kept(cx, OLG_INT64, 1, &d, r, (size_t)d * sizeof *r, &idx));
  OLG_TRY(olg__emit_gather(cx, x, idx, axis, &rev));
  olg_node_id nd;
  OLG_TRY(olg_lower_emit_begin(cx, "", op, &nd));
  OLG_TRY(olg_lower_emit_input(cx, nd, rev));
  OLG_TRY(olg_lower_emit_attr_int(cx, nd, "axis", axis));
  OLG_TRY(olg_lower_emit_attr_int(cx, nd, "keepdims", keepdims));
  OLG_TRY(olg_lower_emit_end(cx, nd, 1, &y));
  OLG_TRY(olg__const_i64(cx, d - 1, &last));
  OLG_TRY(olg__emit2(cx, "Sub", last, y, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* An input type the target's version of the op does not take (Min/Max of int32 before 12, Pow
 * of int before 12, bfloat16 before 13): the op computed in a wider type it takes, float for
 * float16/bfloat16, double for 8-, 16- and 32-bit integers (both exact for every value of the
 * narrower type), and the result cast back -- the same numbers wherever the result fits the
 * type. 64-bit integers do not fit a double: refused as the pass-through refuses them. */
static olg_dtype wider(olg_dtype t) {
  switch (t) {
  case OLG_FLOAT16: case OLG_BFLOAT16: return OLG_FLOAT;
  case OLG_INT8: case OLG_INT16: case OLG_INT32: case OLG_UINT8: case OLG_UINT16: case OLG_UINT32:
    return OLG_DOUBLE;
  default: return OLG_UNDEFINED;
  }
}

olg_status olg__sym_onnx_cast_around(olg_lower *cx, olg_node_id src, void *ud) {
  const olg_node *nd = olg__src_node(cx);
  const olg_schema *ts = olg_schema_find("", nd->op, olg__opset(cx));
  int n_in = (int)nd->n_args;
  if (!ts || n_in > 64 || nd->n_outputs != 1) return olg__sym_onnx_passthrough(cx, src, ud);
  olg_value in[64];
  bool cast_any = false;
  olg_dtype out_t = OLG_UNDEFINED;
  for (int i = 0; i < n_in; i++) {
    in[i] = OLG_NO_VALUE;
    if (nd->args[i].kind != OLG_ARG_VALUE) continue;
    OLG_TRY(olg_lower_arg_value(cx, (size_t)i, &in[i]));
    olg_dtype t = olg__dtype(cx, in[i]);
    if (i == 0) out_t = t;
    const olg_formal *f = olg_schema_input_formal(ts, i);
    if (t == OLG_UNDEFINED || !f || !f->tensor_dtypes || olg_schema_formal_allows_dtype(f, t)) continue;
    olg_dtype w = wider(t);
    const olg_schema *cs = olg_schema_find("", "Cast", olg__opset(cx));
    const olg_formal *ci = cs ? olg_schema_input_formal(cs, 0) : NULL;
    if (w == OLG_UNDEFINED || !olg_schema_formal_allows_dtype(f, w) || !ci ||
        (ci->tensor_dtypes && !olg_schema_formal_allows_dtype(ci, t)))
      return olg__sym_onnx_passthrough(cx, src, ud); /* refused there, naming the opset */
    OLG_TRY(olg__emit_cast(cx, in[i], w, &in[i]));
    cast_any = true;
  }
  if (!cast_any) return olg__sym_onnx_passthrough(cx, src, ud);
  OLG_TRY(olg_lower_decompose(cx, "an input type this opset's version lacks (computed wider)", -1));
  olg_node_id n;
  olg_value y;
  OLG_TRY(olg_lower_emit_begin(cx, "", nd->op, &n));
  for (int i = 0; i < n_in; i++) OLG_TRY(olg_lower_emit_input(cx, n, in[i]));
  for (uint32_t i = 0; i < nd->n_attrs; i++) OLG_TRY(olg__node_add_attr(olg_lower_target(cx), n, &nd->attrs[i]));
  OLG_TRY(olg_lower_emit_end(cx, n, 1, &y));
  OLG_TRY(olg__emit_cast(cx, y, out_t, &y));
  return olg_lower_bind_output(cx, 0, y);
}

/* Scan-8 at a target of 9 or more: Scan-8 carries a batch axis first (on states, scan inputs and
 * outputs) and an optional sequence_lens; Scan-9 has neither. With a batch of 1 and no
 * sequence_lens, the batch axis is squeezed off the inputs and put back on the outputs around
 * a Scan-9 with the same body (lowered to the target too). */
olg_status olg__sym_onnx_scan(olg_lower *cx, olg_node_id src, void *ud) {
  if (src_opset(cx) >= 9) return olg__sym_onnx_passthrough(cx, src, ud);
  const olg_node *nd = olg__src_node(cx);
  const olg_attr *body = olg__node_attr(nd, "body");
  int64_t n_scan = olg__src_attr_int(cx, "num_scan_inputs", -1);
  size_t n_args = nd->n_args, n_out = nd->n_outputs;
  if (!body || body->type != OLG_ATTR_GRAPH || n_scan < 1 || n_args < 1 + (size_t)n_scan ||
      n_args > 65 || n_out > 64)
    return olg_lower_error(cx, OLG_ERR_INVALID_MODEL, "Scan-8: body, num_scan_inputs or inputs missing");
  if (!olg_lower_arg_is_none(cx, 0))
    return olg_lower_unsupported(cx, "Scan-8 with sequence_lens at opset 9 or later", 8);
  olg_value in[64], outs[64];
  static const int64_t zero = 0;
  for (size_t i = 1; i < n_args; i++) {
    olg_value v;
    OLG_TRY(olg_lower_arg_value(cx, i, &v));
    if (olg__rank(cx, v) < 1 || olg__dim(cx, v, 0) != 1)
      return olg_lower_unsupported(cx, "Scan-8 with a batch other than 1 at opset 9 or later", 8);
    OLG_TRY(olg__emit_squeeze(cx, v, &zero, 1, &in[i - 1]));
  }
  olg_graph *sub;
  OLG_TRY(olg__lower_subgraph(cx, body->g, "body", &sub));
  olg_node_id n;
  OLG_TRY(olg_lower_emit_begin(cx, "", "Scan", &n));
  for (size_t i = 0; i + 1 < n_args; i++) OLG_TRY(olg_lower_emit_input(cx, n, in[i]));
  OLG_TRY(olg_lower_emit_attr_graph(cx, n, "body", sub));
  OLG_TRY(olg_lower_emit_attr_int(cx, n, "num_scan_inputs", n_scan));
  const int64_t *dirs;
  size_t nd_dirs;
  if (olg__src_attr_ints(cx, "directions", &dirs, &nd_dirs))
    OLG_TRY(olg_lower_emit_attr_ints(cx, n, "scan_input_directions", dirs, nd_dirs));
  OLG_TRY(olg_lower_emit_end(cx, n, n_out, outs));
  for (size_t i = 0; i < n_out; i++) {
    if (!olg_lower_output_used(cx, i)) continue;
    olg_value y;
    OLG_TRY(olg__emit_unsqueeze(cx, outs[i], &zero, 1, &y));
    OLG_TRY(olg_lower_bind_output(cx, i, y));
  }
  return OLG_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* ONNX MaxPool / AveragePool with ceil_mode below opset 10 (where the attribute arrived): the
 * ceil rule (a last window may start past the input only if it starts before the end padding,
 * as PyTorch and ONNX Runtime count) becomes extra end padding under the floor rule. MaxPool
 * never picks padding; AveragePool with count_include_pad 0 divides by the real elements the
 * window covers, so the extra padding changes nothing but the size. Needs the spatial sizes. */
olg_status olg__sym_onnx_pool_ceil(olg_lower *cx, olg_node_id src, void *ud) {
  const char *op = olg_lower_node_op(cx);
  bool avg = strcmp(op, "AveragePool") == 0;
  if (!olg__src_attr_int(cx, "ceil_mode", 0) ||
      strcmp(olg__src_attr_string(cx, "auto_pad", "NOTSET"), "NOTSET") != 0 ||
      (avg && olg__src_attr_int(cx, "count_include_pad", 0)))
    return olg__sym_onnx_passthrough(cx, src, ud); /* as it is, or refused naming opset 10 */
  olg_value x, outs[2];
  OLG_TRY(olg_lower_arg_value(cx, 0, &x));
  const int64_t *k, *s = NULL, *p = NULL, *d = NULL;
  size_t nk, ns = 0, np = 0, nd = 0;
  if (!olg__src_attr_ints(cx, "kernel_shape", &k, &nk) || nk < 1 || nk > OLG_MAX_SPATIAL)
    return olg_lower_error(cx, OLG_ERR_INVALID_MODEL, "kernel_shape missing or of more than 3 axes");
  olg__src_attr_ints(cx, "strides", &s, &ns);
  olg__src_attr_ints(cx, "pads", &p, &np);
  olg__src_attr_ints(cx, "dilations", &d, &nd);
  if ((ns && ns != nk) || (np && np != 2 * nk) || (nd && nd != nk))
    return olg_lower_error(cx, OLG_ERR_INVALID_MODEL, "strides, pads or dilations of the wrong length");
  int64_t pads[2 * OLG_MAX_SPATIAL], strides[OLG_MAX_SPATIAL];
  for (size_t j = 0; j < nk; j++) {
    int64_t in = olg__dim(cx, x, (int32_t)j + 2), st = ns ? s[j] : 1, dil = nd ? d[j] : 1;
    int64_t pb = np ? p[j] : 0, pe = np ? p[j + nk] : 0;
    if (dil != 1) return olg_lower_unsupported(cx, "MaxPool with dilations", 10);
    if (in < 0) return olg__unsupportedf(cx, 10, "%s with ceil_mode of an input whose spatial size is not known", op);
    if (st <= 0 || k[j] <= 0) return olg_lower_error(cx, OLG_ERR_INVALID_MODEL, "kernel_shape and strides must be > 0");
    int64_t num = in + pb + pe - (k[j] - 1) - 1;
    if (num < 0) return olg_lower_error(cx, OLG_ERR_INVALID_MODEL, "the padded input is smaller than the window");
    int64_t o = (num + st - 1) / st + 1;
    if ((o - 1) * st >= in + pb) o--;
    int64_t extra = (o - 1) * st + k[j] - (in + pb + pe);
    pads[j] = pb;
    pads[j + nk] = pe + (extra > 0 ? extra : 0);
    strides[j] = st;
  }
  olg_node_id n;
  OLG_TRY(olg_lower_emit_begin(cx, "", op, &n));
  OLG_TRY(olg_lower_emit_input(cx, n, x));
  OLG_TRY(olg_lower_emit_attr_ints(cx, n, "kernel_shape", k, nk));
  OLG_TRY(olg_lower_emit_attr_ints(cx, n, "strides", strides, nk));
  OLG_TRY(olg_lower_emit_attr_ints(cx, n, "pads", pads, 2 * nk));
  if (!avg && olg__src_attr_int(cx, "storage_order", 0))
    OLG_TRY(olg_lower_emit_attr_int(cx, n, "storage_order", 1));
  size_t n_out = !avg && olg_lower_output_count(cx) > 1 && olg_lower_output_used(cx, 1) ? 2 : 1;
  OLG_TRY(olg_lower_emit_end(cx, n, n_out, outs));
  for (size_t i = 0; i < n_out; i++) OLG_TRY(olg_lower_bind_output(cx, i, outs[i]));
  return OLG_OK;
}
