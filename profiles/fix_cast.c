/* onnxlegal — the cast-around fix shared by the profiles: a node whose type constraint holds a
 * dtype the runtime has no implementation for runs in a wider dtype that it has, with Casts
 * before and after. Only where that gives exactly what the node gives in the narrow dtype, for
 * every value the dtype can hold:
 * - the widening itself is exact (int8 -> int16/int32/int64, float16 -> float, ...; never a
 *   narrowing such as double -> float);
 * - the op only selects, compares or moves values (Where, Max, Min, Concat, Gather, ...): the
 *   result in the wide type is one of the (exactly widened) inputs, so casting back is exact;
 * - or it is integer Add/Sub/Mul, which wrap alike (the low bits of the wide result are the
 *   narrow result, and Cast back keeps the low bits);
 * - or it is + - * / or Sqrt on a float type widened to one of at least 2p+2 bits of precision
 *   (float16/bfloat16 -> float, float -> double), where rounding twice gives the correctly
 *   rounded narrow result (Figueroa's theorem). */
#include <stdio.h>
#include <string.h>

#include "profiles.h"
#include "../lib/passes/passes.h"
#include "../lib/schema.h"
#include "../symbolics/emit.h"

/* Ops whose results are input values (or comparisons of them), whatever the type. */
static const char *const selecting[] = {
    "ArgMax", "ArgMin", "Clip", "Concat", "DepthToSpace", "Equal", "Expand", "Flatten", "Gather",
    "GatherElements", "GatherND", "Greater", "GreaterOrEqual", "Identity", "Less", "LessOrEqual",
    "Max", "Min", "Pad", "ReduceMax", "ReduceMin", "Reshape", "Scatter", "ScatterElements",
    "ScatterND", "Slice", "SpaceToDepth", "Split", "Squeeze", "Tile", "TopK", "Transpose",
    "Unsqueeze", "Where"};
/* Integer ops that wrap alike in a wider integer type. */
static const char *const wrapping[] = {"Add", "Mul", "Sub"};
/* Float ops correctly rounded after a widening of at least 2p+2 bits. */
static const char *const rounding[] = {"Add", "Div", "Mul", "Sqrt", "Sub"};

static bool listed(const char *op, const char *const *list, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (strcmp(op, list[i]) == 0) return true;
  return false;
}
#define LISTED(op, l) listed(op, l, sizeof l / sizeof l[0])

static bool is_int(olg_dtype t) {
  return t == OLG_INT8 || t == OLG_UINT8 || t == OLG_INT16 || t == OLG_UINT16 || t == OLG_INT32 ||
         t == OLG_UINT32 || t == OLG_INT64 || t == OLG_UINT64;
}

/* The dtypes t widens to exactly, narrowest first, ended by OLG_UNDEFINED. */
static const olg_dtype *widenings(olg_dtype t) {
  static const olg_dtype i8[] = {OLG_INT16, OLG_INT32, OLG_INT64, OLG_UNDEFINED};
  static const olg_dtype u8[] = {OLG_INT16, OLG_UINT16, OLG_INT32, OLG_UINT32, OLG_INT64, OLG_UINT64, OLG_UNDEFINED};
  static const olg_dtype i16[] = {OLG_INT32, OLG_INT64, OLG_UNDEFINED};
  static const olg_dtype u16[] = {OLG_INT32, OLG_UINT32, OLG_INT64, OLG_UINT64, OLG_UNDEFINED};
  static const olg_dtype i32[] = {OLG_INT64, OLG_UNDEFINED};
  static const olg_dtype u32[] = {OLG_INT64, OLG_UINT64, OLG_UNDEFINED};
  static const olg_dtype f16[] = {OLG_FLOAT, OLG_DOUBLE, OLG_UNDEFINED};
  static const olg_dtype f32[] = {OLG_DOUBLE, OLG_UNDEFINED};
  static const olg_dtype b[] = {OLG_UINT8, OLG_INT32, OLG_INT64, OLG_UNDEFINED};
  static const olg_dtype none[] = {OLG_UNDEFINED};
  switch (t) {
  case OLG_INT8: return i8;
  case OLG_UINT8: return u8;
  case OLG_INT16: return i16;
  case OLG_UINT16: return u16;
  case OLG_INT32: return i32;
  case OLG_UINT32: return u32;
  case OLG_FLOAT16:
  case OLG_BFLOAT16: return f16;
  case OLG_FLOAT: return f32;
  case OLG_BOOL: return b;
  default: return none;
  }
}

/* Whether computing op in u and casting back to t is exact for every value of t. */
static bool exact_for(const char *op, olg_dtype t, olg_dtype u) {
  if (LISTED(op, selecting)) return true;
  if (is_int(t) && is_int(u) && LISTED(op, wrapping)) return true;
  if (LISTED(op, rounding))
    return ((t == OLG_FLOAT16 || t == OLG_BFLOAT16) && (u == OLG_FLOAT || u == OLG_DOUBLE)) ||
           (t == OLG_FLOAT && u == OLG_DOUBLE);
  return false;
}

olg_status olg__fix_cast_around(olg_prule_site *st) {
  olg_lower *cx = st->cx;
  olg_graph *g = olg__prof_graph(cx);
  const olg_prule *r = st->rule;
  const olg_node *nd = &g->nodes[st->node];
  const olg_schema *s = olg_schema_find("", nd->op, (int)olg_lower_opset(cx));
  olg_dtype t = st->dtype;
  if (!s || !r->tc || t == OLG_UNDEFINED) {
    snprintf(st->msg, sizeof st->msg, "no type constraint to cast around");
    return OLG_ERR_UNSUPPORTED;
  }
  /* the slots bound to the constraint */
  uint32_t n_in = nd->n_args, n_out = nd->n_outputs;
  bool tc_buf[128] = {false};
  bool *in_tc = (size_t)n_in + n_out <= 128 ? tc_buf : olg__lower_alloc(cx, (size_t)n_in + n_out);
  if (!in_tc) return OLG_ERR_NOMEM;
  bool *out_tc = in_tc + n_in;
  for (uint32_t i = 0; i < n_in; i++) {
    const olg_formal *f = olg_schema_input_formal(s, (int)i);
    in_tc[i] = f && strcmp(f->type_str, r->tc) == 0 && nd->args[i].kind == OLG_ARG_VALUE;
  }
  for (uint32_t k = 0; k < n_out; k++) {
    const olg_formal *f = olg_schema_output_formal(s, (int)k);
    out_tc[k] = f && strcmp(f->type_str, r->tc) == 0;
  }
  /* the narrowest exact widening the runtime and the schema accept */
  olg_dtype u = OLG_UNDEFINED;
  const olg_type_constraint *tcs = olg_schema_constraint(s, r->tc);
  for (const olg_dtype *w = widenings(t); *w != OLG_UNDEFINED && u == OLG_UNDEFINED; w++)
    if ((r->types >> *w & 1) && tcs && (tcs->tensor_dtypes >> *w & 1)) u = *w;
  if (u == OLG_UNDEFINED) {
    snprintf(st->msg, sizeof st->msg, "no accepted type holds every %s value exactly", olg_dtype_name(t));
    return OLG_ERR_UNSUPPORTED;
  }
  if (!exact_for(nd->op, t, u)) {
    snprintf(st->msg, sizeof st->msg, "%s in %s then cast back to %s is not exact for every value",
             nd->op, olg_dtype_name(u), olg_dtype_name(t));
    return OLG_ERR_UNSUPPORTED;
  }
  for (uint32_t i = 0; i < n_in; i++)
    if (in_tc[i] && olg__dtype(cx, g->nodes[st->node].args[i].u.v) != t) {
      snprintf(st->msg, sizeof st->msg, "the inputs of constraint %s differ in dtype", r->tc);
      return OLG_ERR_UNSUPPORTED;
    }
  for (uint32_t k = 0; k < n_out; k++)
    if (out_tc[k] && olg__is_protected(cx, g->nodes[st->node].outputs[k])) {
      snprintf(st->msg, sizeof st->msg, "an output is read by name by a subgraph");
      return OLG_ERR_UNSUPPORTED;
    }
  /* the inputs, cast where bound to the constraint (emitting may move the node array) */
  olg_value in_buf[64], out_buf[64], *ins = olg__lower_values(cx, in_buf, 64, n_in),
                                     *outs = olg__lower_values(cx, out_buf, 64, n_out);
  if (!ins || !outs) return OLG_ERR_NOMEM;
  for (uint32_t i = 0; i < n_in; i++) {
    const olg_arg *a = &g->nodes[st->node].args[i];
    ins[i] = a->kind == OLG_ARG_VALUE ? a->u.v : OLG_NO_VALUE;
    if (in_tc[i]) OLG_TRY(olg__emit_cast(cx, ins[i], u, &ins[i]));
  }
  char op[64];
  snprintf(op, sizeof op, "%s", g->nodes[st->node].op);
  olg_node_id n;
  OLG_TRY(olg_lower_emit_begin(cx, "", op, &n));
  for (uint32_t i = 0; i < n_in; i++) OLG_TRY(olg_lower_emit_input(cx, n, ins[i]));
  for (uint32_t j = 0; j < g->nodes[st->node].n_attrs; j++) {
    olg_attr a = g->nodes[st->node].attrs[j]; /* arrays in the target model's arena: shared */
    OLG_TRY(olg__node_add_attr(g, n, &a));
  }
  OLG_TRY(olg_lower_emit_end(cx, n, n_out, outs));
  for (uint32_t k = 0; k < n_out; k++) {
    olg_value old = g->nodes[st->node].outputs[k], by = outs[k];
    if (old == OLG_NO_VALUE) continue;
    if (out_tc[k]) OLG_TRY(olg__emit_cast(cx, by, t, &by));
    OLG_TRY(olg__prof_replace(cx, old, by));
  }
  g->nodes[st->node].state = OLG_NODE_DEAD;
  snprintf(st->msg, sizeof st->msg, "%s in %s: Cast to %s before, back to %s after (exact)", op,
           olg_dtype_name(u), olg_dtype_name(u), olg_dtype_name(t));
  return OLG_OK;
}
