/* onnxlegal — olg_legalize: the driver.
 *
 * The driver (DESIGN.md §1): source inputs and initializers are carried over (initializer data
 * borrowed, not copied); source nodes are lowered in topological order through the registry,
 * each emitted node checked against the target opset's schema and inferred as it is emitted
 * (lower_emit.c); a node whose symbolic fails is reported and lowering goes on, so one call
 * reports every unsupported node; then graph outputs are bound under their source names, the
 * target profile's rewrites run (profiles/), and the cleanup (passes/cleanup.c: constant
 * folding, identity removal, CSE of Constants, dead nodes) leaves the nodes in topological
 * order. Every pass is linear in the graph. The options and the IR-version table are in
 * legalize_options.c, the lowering context's accessors in lower.c. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "check_impl.h"
#include "infer.h"
#include "lower.h"
#include "passes/passes.h"
#include "namestack.h"
#include "profile.h"
#include "schema.h"

/* ------------------------------------------------------------------------------------------ */
/* The driver */

/* A defect of the source model (what olg_check refuses too): reported as OLG-LOWER-GRAPH on
 * node nd (NULL: the graph), counted, so that olg_legalize fails with OLG_ERR_INVALID_MODEL and
 * no front end calls it unsupported or a bug of the library. */
static olg_status graph_fault(olg_lower *cx, const olg_node *nd, const char *fmt, ...)
    OLG_PRINTF(3, 4);
static olg_status graph_fault(olg_lower *cx, const olg_node *nd, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  cx->n_invalid++;
  olg_status s = olg__lower_diag_at(cx, nd, OLG_ERROR, "OLG-LOWER-GRAPH", OLG_ERR_INVALID_MODEL, fmt, ap);
  va_end(ap);
  return s;
}

/* The lowest opset above `above` at which the registry has a lowering for the node's op;
 * -1: none. */
static int registered_above(const olg_registry *r, const olg_node *nd, int above) {
  for (int v = above + 1; v <= OLG_LOWER_OPSET_MAX; v++) {
    int k = olg_registry_lowering(r, nd->domain, nd->op, v);
    if (k == OLG_LOWERING_NATIVE || k == OLG_LOWERING_DECOMPOSED) return v;
  }
  return -1;
}

/* The reason a node cannot be dispatched, as a diagnostic. */
static void report_no_symbolic(olg_lower *cx, const olg_node *nd, olg_status why) {
  const char *dom = *nd->domain ? nd->domain : "onnx";
  int lo = olg_registry_min_opset(cx->reg, nd->domain, nd->op, 0);
  int above = registered_above(cx->reg, nd, cx->opset); /* what the diagnostic states */
  char buf[512];
  if (lo > cx->opset)
    snprintf(buf, sizeof buf, "%s::%s is not supported at opset %d; the lowest opset that works is %d",
             dom, nd->op, cx->opset, lo);
  else if (lo > 0 && why == OLG_ERR_UNSUPPORTED && above > 0)
    snprintf(buf, sizeof buf, "%s::%s cannot be expressed at opset %d (it works from opset %d up to a later change, and again from %d)",
             dom, nd->op, cx->opset, lo, above);
  else if (lo > 0 && why == OLG_ERR_UNSUPPORTED)
    snprintf(buf, sizeof buf, "%s::%s cannot be expressed at opset %d (it works from opset %d up to a later change)",
             dom, nd->op, cx->opset, lo);
  else
    snprintf(buf, sizeof buf, "no symbolic is registered for %s::%s at any opset from %d to %d", dom,
             nd->op, OLG_LOWER_OPSET_MIN, OLG_LOWER_OPSET_MAX);
  olg__lower_diag_min(cx, OLG_ERROR, "OLG-LOWER-UNSUPPORTED-OP", OLG_ERR_UNSUPPORTED, buf, above);
}

/* Same rank, no contradiction: a dim that inference left unknown (or symbolic) takes the
 * declared one when that is more precise, so that a conversion never knows less than its input
 * said (static-shape runtimes need those dims). The dims array is replaced, not changed in place
 * (it may be shared). */
static olg_status merge_declared_dims(olg_lower *cx, const olg_type *st, olg_value_rec *tr) {
  if (tr->flags & (OLG_VF_INPUT | OLG_VF_INITIALIZER)) return OLG_OK;
  bool gain = false;
  for (int32_t i = 0; i < st->rank && !gain; i++) {
    const olg_dim *sd = &st->dims[i], *td = &tr->type.dims[i];
    gain = td->value < 0 && (sd->value >= 0 || (sd->param && !td->param));
  }
  if (!gain) return OLG_OK;
  olg_dim *dims = olg__arena_dup(cx->dst_model, tr->type.dims, (size_t)st->rank * sizeof *dims);
  if (!dims) return OLG_ERR_NOMEM;
  for (int32_t i = 0; i < st->rank; i++) {
    const olg_dim *sd = &st->dims[i];
    if (dims[i].value >= 0 || !(sd->value >= 0 || (sd->param && !dims[i].param))) continue;
    dims[i].value = sd->value;
    dims[i].param = sd->param ? olg__strdup(cx->dst_model, sd->param) : NULL;
    if (sd->param && !dims[i].param) return OLG_ERR_NOMEM;
  }
  tr->type.dims = dims;
  return OLG_OK;
}

/* Copies the declared type of the source value onto the target value when inference left it
 * unknown, or the declared dims it left unknown; warns when the two contradict (the front end's
 * declaration is a cross-check). */
static olg_status cross_check(olg_lower *cx, olg_value sv, olg_value tv) {
  const olg_type *st = &cx->src->values[sv].type;
  olg_value_rec *tr = &cx->dst->values[tv];
  if (st->kind != OLG_TYPE_TENSOR) return OLG_OK;
  if (tr->type.kind == OLG_TYPE_NONE) {
    if (tr->flags & (OLG_VF_INPUT | OLG_VF_INITIALIZER)) return OLG_OK;
    return olg__lower_copy_type(cx->dst_model, &tr->type, st);
  }
  if (tr->type.kind != OLG_TYPE_TENSOR) return OLG_OK;
  if ((!tr->type.has_shape || tr->type.rank < 0) && st->has_shape && st->rank >= 0 &&
      !(tr->flags & (OLG_VF_INPUT | OLG_VF_INITIALIZER))) {
    /* inference could not tell (a data-dependent rank): the front end's declaration stands */
    olg_dtype elem = tr->type.has_elem ? olg__type_elem(&tr->type) : olg__type_elem(st);
    OLG_TRY(olg__lower_copy_type(cx->dst_model, &tr->type, st));
    OLG_TRY(olg__type_set_elem(cx->dst_model, &tr->type, elem));
    tr->type.has_elem = elem != OLG_UNDEFINED;
    return OLG_OK;
  }
  char msg[256];
  olg_dtype se = olg__type_elem(st), te = olg__type_elem(&tr->type);
  /* a 4-bit value below 21 is carried as int8/uint8 on purpose (symbolics/quant.c) */
  bool carried = (se == OLG_INT4 && te == OLG_INT8) || (se == OLG_UINT4 && te == OLG_UINT8) ||
                 /* a complex value as real, imaginary in a last dim of 2 (symbolics/emit_dft.h) */
                 (se == OLG_COMPLEX64 && te == OLG_FLOAT) || (se == OLG_COMPLEX128 && te == OLG_DOUBLE);
  if (st->has_elem && se && tr->type.has_elem && te && se != te && !carried) {
    snprintf(msg, sizeof msg, "output '%s' is declared %s but lowers to %s",
             cx->src->values[sv].name, olg_dtype_name(se), olg_dtype_name(te));
    return olg_lower_warning(cx, msg);
  }
  if (st->has_shape && tr->type.has_shape && st->rank >= 0 && tr->type.rank >= 0) {
    if (olg__shapes_contradict(st, &tr->type)) {
      snprintf(msg, sizeof msg, "output '%s': the declared shape differs from the lowered one",
               cx->src->values[sv].name);
      return olg_lower_warning(cx, msg);
    }
    return merge_declared_dims(cx, st, tr);
  }
  return OLG_OK;
}

/* lower_node's result for a node left alone because an input failed to lower upstream (its
 * dispatch was still checked and reported) */
#define LOWER_SKIPPED 1

/* Dispatches the source node at cx->opset and runs its symbolic: OLG_OK, LOWER_SKIPPED (an
 * input failed upstream), or the failure, reported. */
static olg_status dispatch_run(olg_lower *cx, olg_node_id id, const olg_node *nd) {
  olg_symbolic_fn fn;
  void *ud;
  int lowering;
  olg_status s;
  if (cx->keep && olg__keep_lower(cx, nd, &s)) return s; /* a kept function's call */
  s = olg__registry_dispatch(cx->reg, nd->domain, nd->op, cx->opset, &fn, &ud, &lowering);
  if (s) {
    report_no_symbolic(cx, nd, s);
    return OLG_ERR_UNSUPPORTED;
  }
  cx->cur_decomposed = lowering == OLG_LOWERING_DECOMPOSED;
  if (lowering == OLG_LOWERING_DECOMPOSED && !cx->allow_decompositions) {
    char what[256];
    snprintf(what, sizeof what, "%s::%s", *nd->domain ? nd->domain : "onnx", nd->op);
    return olg_lower_decompose(cx, what, olg_registry_min_opset(cx->reg, nd->domain, nd->op, 1));
  }
  /* an input left unlowered by an earlier failure: the dispatch was checked, go no further */
  for (uint32_t i = 0; i < nd->n_args; i++) {
    const olg_arg *a = &nd->args[i];
    if (a->kind == OLG_ARG_VALUE && cx->map[a->u.v] == OLG_NO_VALUE) return LOWER_SKIPPED;
    if (a->kind == OLG_ARG_VALUES)
      for (size_t j = 0; j < a->n; j++)
        if (a->u.vals[j] != OLG_NO_VALUE && cx->map[a->u.vals[j]] == OLG_NO_VALUE)
          return LOWER_SKIPPED;
  }
  s = fn(cx, id, ud);
  if (s == OLG_ERR_NOMEM || s == OLG_ERR_LIMIT) return s; /* reported where it arose */
  if (s && !cx->cur_reported) {
    char buf[512];
    snprintf(buf, sizeof buf, "the symbolic failed: %s (%s)", olg_last_error(), olg_status_name(s));
    olg__lower_diag(cx, OLG_ERROR, "OLG-LOWER-FAILED", s, buf);
  }
  return s;
}

/* The largest lowest-opset-that-works stated by the errors from index `from` on; -1: none. */
static int stated_min(const olg_diags *d, size_t from) {
  int m = -1;
  for (size_t i = from; i < olg_diags_count(d); i++)
    if (olg_diag_severity(d, i) == OLG_ERROR && olg_diag_min_opset(d, i) > m)
      m = (int)olg_diag_min_opset(d, i);
  return m;
}

/* A refusal states the lowest opset that works from what the op's registration or the symbolic
 * knows at the target (the op's first version, a limit of this opset), yet this node's attributes
 * or types may need a later one (ScatterND-18's reduction='max' is refused at 16 as at 9): the
 * symbolic is run again at the stated opset, and at the one its refusal there states, until it
 * converts, and the refusal states that one. Only on the refusal path, at most one run per opset;
 * what the runs emit stays in a target graph the failure discards, their diagnostics are dropped. */
static void restate_lowest(olg_lower *cx, olg_node_id id, const olg_node *nd, size_t before) {
  int stated = cx->diags ? stated_min(cx->diags, before) : -1;
  if (stated <= cx->opset || stated > OLG_LOWER_OPSET_MAX) return;
  for (size_t i = before; i < olg_diags_count(cx->diags); i++) /* it names where it is native, */
    if (!strcmp(olg_diag_code(cx->diags, i), "OLG-LOWER-DECOMPOSITION")) return; /* not run */
  olg_diags *pd;
  if (olg_diags_new(&pd, &cx->dst_model->alloc)) return;
  olg_lower save = *cx;
  int m = stated, works = 0;
  while (m > 0 && m <= OLG_LOWER_OPSET_MAX && !works) {
    olg_diags_clear(pd);
    cx->opset = m;
    cx->diags = pd;
    cx->probing = true;
    cx->n_emitted = 0;
    cx->n_op_uses = 0;
    cx->cur_reported = false;
    olg_status s = dispatch_run(cx, id, nd);
    for (uint32_t i = 0; i < nd->n_outputs; i++) /* downstream nodes stay skipped */
      if (nd->outputs[i] != OLG_NO_VALUE) cx->map[nd->outputs[i]] = OLG_NO_VALUE;
    if (s == OLG_OK) works = m;
    else if (s == OLG_ERR_NOMEM || s == OLG_ERR_LIMIT || s == LOWER_SKIPPED) break;
    else m = stated_min(pd, 0) > m ? stated_min(pd, 0) : -1; /* no later opset named: unknown */
  }
  olg_lower now = *cx;
  *cx = save;
  cx->custom_domains = now.custom_domains; /* the list may have grown */
  cx->n_custom = now.n_custom;
  cx->cap_custom = now.cap_custom;
  olg_diags_free(pd);
  if (works > stated) {
    char note[160];
    snprintf(note, sizeof note, "; for this node's attributes and types, the lowest opset that works is %d",
             works);
    olg__diags_restate_min(cx->diags, before, stated, works, note);
  }
}

static olg_lower *scopes_find(const olg_lower *cx, const char *name);

/* A Loop's or Scan's body input declared with another type than the value the node feeds it:
 * the lowered body would compute with the declared one, which a model check rejects. The
 * element type (Loop: its carried values, from input 2, whose shape may change from one
 * iteration to the next; Scan: every input), and for Scan the shape too: a state's is the outer
 * value's, a scan input's the outer value's without its scan axis (Scan-9: scan_input_axes,
 * default 0; Scan-8: the batch axis 0 of every input and the sequence axis 1 of scan inputs,
 * whose input 0 is sequence_lens). */
static olg_status body_input_types(olg_lower *cx, const olg_node *nd) {
  if (nd->op[0] != 'L' && nd->op[0] != 'S') return OLG_OK; /* asked for every node */
  bool loop = strcmp(nd->op, "Loop") == 0, scan8 = !loop && cx->cur_src_opset < 9;
  if (!loop && strcmp(nd->op, "Scan") != 0) return OLG_OK;
  const olg_attr *a = olg__node_attr(nd, "body");
  if (!a || a->type != OLG_ATTR_GRAPH || !a->g) return OLG_OK;
  const olg_graph *b = a->g;
  const olg_attr *m_attr = olg__node_attr(nd, "num_scan_inputs"), *axes = NULL;
  int64_t n_scan = m_attr && m_attr->type == OLG_ATTR_INT ? m_attr->i : 0;
  if (!loop && !scan8) axes = olg__node_attr(nd, "scan_input_axes");
  uint32_t first = scan8 ? 1 : 0, n_states = nd->n_args - first - (uint32_t)n_scan;
  if (!loop && (n_scan < 0 || (uint64_t)n_scan + first > nd->n_args)) return OLG_OK;
  for (uint32_t i = loop ? 2 : 0; i + first < nd->n_args && i < b->inputs.n; i++) {
    const olg_arg *arg = &nd->args[i + first];
    if (arg->kind != OLG_ARG_VALUE) continue;
    olg_value v = arg->u.v;
    const olg_type *outer = cx->map[v] != OLG_NO_VALUE ? &cx->dst->values[cx->map[v]].type
                                                        : &cx->src->values[v].type;
    const olg_value_rec *br = &b->values[b->inputs.p[i]];
    const olg_type *in = &br->type;
    if (outer->kind != OLG_TYPE_TENSOR || in->kind != OLG_TYPE_TENSOR) continue;
    olg_dtype oe = olg__type_elem(outer), ie = olg__type_elem(in);
    if (outer->has_elem && in->has_elem && oe && ie && oe != ie)
      return graph_fault(cx, nd, "input %u '%s' is %s, but the body takes it as '%s' of %s",
                         i + first, cx->src->values[v].name, olg_dtype_name(oe),
                         br->name, olg_dtype_name(ie));
    if (loop || !outer->has_shape || !in->has_shape) continue;
    int64_t drop[2] = {-1, -1}; /* the outer axes the body does not see */
    bool scanned = i >= n_states;
    if (scan8) {
      drop[0] = 0;
      if (scanned) drop[1] = 1;
    } else if (scanned) {
      int64_t k = i - n_states, ax = 0;
      if (axes && axes->type == OLG_ATTR_INTS && (size_t)k < axes->n) ax = axes->ints[k];
      drop[0] = ax < 0 ? ax + outer->rank : ax;
    }
    int32_t want = outer->rank - (drop[0] >= 0) - (drop[1] >= 0);
    bool differ = want != in->rank;
    for (int32_t d = 0, j = 0; !differ && d < outer->rank; d++) {
      if (d == drop[0] || d == drop[1]) continue;
      int64_t od = outer->dims[d].value, id = in->dims[j++].value;
      differ = od >= 0 && id >= 0 && od != id;
    }
    if (differ) {
      char got[160], decl[160];
      olg__type_text(outer, got, sizeof got);
      olg__type_text(in, decl, sizeof decl);
      return graph_fault(cx, nd, "input %u '%s' is %s, which the body sees %s, but it declares "
                         "'%s' as %s", i + first, cx->src->values[v].name, got,
                         scanned ? "without its scan axis" : "as it is", br->name, decl);
    }
  }
  return OLG_OK;
}

/* Defects of the source node itself, refused before its symbolic runs (which would otherwise
 * emit the defect and blame itself): an input no graph defines, a required input or output
 * left empty or missing (olg_check's wording), a subgraph input declared otherwise than the
 * node feeds it. An input of a node that failed upstream is not a defect: the node is skipped. */
static bool output_read(const olg_lower *cx, const olg_node *nd) {
  for (uint32_t o = 0; o < nd->n_outputs; o++)
    if (nd->outputs[o] != OLG_NO_VALUE && cx->uses[nd->outputs[o]]) return true;
  return false;
}

static olg_status node_defects(olg_lower *cx, const olg_node *nd) {
  olg_status s = OLG_OK;
  for (uint32_t i = 0; i < nd->n_args; i++) {
    const olg_arg *a = &nd->args[i];
    size_t n = a->kind == OLG_ARG_VALUE ? 1 : a->kind == OLG_ARG_VALUES ? a->n : 0;
    for (size_t j = 0; j < n; j++) {
      olg_value v = a->kind == OLG_ARG_VALUE ? a->u.v : a->u.vals[j];
      if (v < 0 || (uint32_t)v >= cx->src->n_values || cx->map[v] != OLG_NO_VALUE) continue;
      const olg_value_rec *r = &cx->src->values[v];
      /* as onnx's checker; a node nothing reads goes with the cleanup, whatever it takes */
      if (r->type.kind == OLG_TYPE_SPARSE_TENSOR && r->producer < 0 && output_read(cx, nd))
        s = graph_fault(cx, nd, "input %u '%s' is a sparse initializer (a sparse_tensor), which a "
                        "conversion does not carry: ONNX's ops take dense tensors; store it as a "
                        "dense initializer", i, r->name);
      if (!olg__reads_by_name(r) || r->type.kind == OLG_TYPE_SPARSE_TENSOR || !*r->name ||
          scopes_find(cx, r->name))
        continue;
      s = graph_fault(cx, nd, "input %u '%s' is not a graph input, an initializer or the output of any node of graph '%s'%s",
                      i, r->name, cx->src->name, cx->parent ? " or of an enclosing graph" : "");
    }
  }
  if (s || (*nd->domain && strcmp(nd->domain, "ai.onnx") != 0) || cx->cur_src_opset <= 0) return s;
  const olg_schema *sc = olg_schema_find("", nd->op, cx->cur_src_opset);
  if (!sc) return OLG_OK; /* an op the opset does not have: the dispatch says so */
  char why[512]; /* a control-flow node whose subgraphs do not fit it (check's rule) */
  if (olg__subgraph_arity_fault(nd, cx->cur_src_opset, sc->since_version, 0, why, sizeof why))
    return graph_fault(cx, nd, "%s", why);
  int nin = (int)nd->n_args, nout = (int)nd->n_outputs;
  if (nin < sc->min_inputs)
    return graph_fault(cx, nd, "%s-%d takes at least %d input%s; this node has %d", nd->op,
                       sc->since_version, sc->min_inputs, sc->min_inputs == 1 ? "" : "s", nin);
  for (int i = 0; i < nin; i++) {
    const olg_formal *f = olg_schema_input_formal(sc, i);
    if (f && f->option == OLG_FORMAL_SINGLE && nd->args[i].kind == OLG_ARG_NONE)
      return graph_fault(cx, nd, "input %d '%s' of %s-%d is required, but it is empty", i,
                         f->name, nd->op, sc->since_version);
  }
  for (int i = 0; i < nout; i++) {
    const olg_formal *f = olg_schema_output_formal(sc, i);
    if (f && f->option == OLG_FORMAL_SINGLE && nd->outputs[i] == OLG_NO_VALUE)
      return graph_fault(cx, nd, "output %d '%s' of %s-%d is required, but it is empty", i,
                         f->name, nd->op, sc->since_version);
  }
  /* a value no version takes (a mode misspelt, an element type of no number): a decomposition
     would read it as its default, a silent wrong model */
  for (uint32_t i = 0; i < nd->n_attrs; i++)
    if (!olg__attr_value_in_some_version(sc, &nd->attrs[i]))
      return graph_fault(cx, nd, "attribute '%s' of %s-%d has a value no version of it takes",
                         nd->attrs[i].name, nd->op, sc->since_version);
  return body_input_types(cx, nd);
}

olg_status olg__lower_node(olg_lower *cx, olg_node_id id) {
  const olg_node *nd = &cx->src->nodes[id];
  cx->cur = id;
  cx->cur_node = nd;
  cx->cur_src_opset = olg__src_opset_of(cx, nd->domain);
  cx->name_base = *nd->name ? nd->name : NULL;
  if (!cx->name_base && cx->scope) { /* unnamed, in a subgraph: "<scope>/<index>", unique */
    if (!(cx->name_base = olg__strfmt(cx->dst_model, "%s/%d", cx->scope, (int)id))) return OLG_ERR_NOMEM;
  }
  cx->n_emitted = 0;
  cx->n_op_uses = 0;
  cx->cur_reported = false;
  olg__lower_consts_node(cx, nd);

  size_t before = olg_diags_count(cx->diags);
  olg_status s = node_defects(cx, nd);
  if (s) return s;
  uint32_t first_value = cx->dst->n_values, first_node = cx->dst->n_nodes;
  s = dispatch_run(cx, id, nd);
  if (s == OLG_ERR_NOMEM || s == OLG_ERR_LIMIT || s == LOWER_SKIPPED) return s;
  if (s) {
    if (!cx->probing) restate_lowest(cx, id, nd, before);
    return s;
  }
  for (uint32_t i = 0; i < nd->n_outputs; i++) {
    olg_value sv = nd->outputs[i];
    if (sv == OLG_NO_VALUE || !cx->uses[sv]) continue;
    if (cx->map[sv] == OLG_NO_VALUE) {
      char buf[256];
      snprintf(buf, sizeof buf, "the symbolic did not bind output %u ('%s'), which is used", i,
               cx->src->values[sv].name);
      return olg__lower_diag(cx, OLG_ERROR, "OLG-LOWER-UNBOUND", OLG_ERR_STATE, buf);
    }
    s = cross_check(cx, sv, cx->map[sv]);
    if (s) return s;
  }
  return olg__lower_keep_names(cx, nd, first_value, first_node);
}

static void count_use(olg_lower *cx, olg_value v) {
  if (v >= 0 && (uint32_t)v < cx->src->n_values) cx->uses[v]++;
}

/* A subgraph input declared without a type (a front end's Loop body input) takes the type of
 * the enclosing value the symbolic named for it: element type and rank, every dim unknown (a
 * carried value may change size from one iteration to the next). */
static olg_status take_outer_type(olg_lower *cx, uint32_t i, olg_type *to) {
  const olg_lower *p = cx->parent;
  if (!p || i >= p->n_sub_in_from || p->sub_in_from[i] == OLG_NO_VALUE) return OLG_OK;
  if (to->kind != OLG_TYPE_TENSOR || to->has_shape || (to->has_elem && olg__type_elem(to)))
    return OLG_OK;
  const olg_value_rec *from = olg__value(p->dst, p->sub_in_from[i]);
  if (!from || from->type.kind == OLG_TYPE_NONE) return OLG_OK;
  OLG_TRY(olg__lower_copy_type(cx->dst_model, to, &from->type));
  if (to->kind == OLG_TYPE_TENSOR && to->has_shape)
    for (int32_t d = 0; d < to->rank; d++)
      to->dims[d] = (olg_dim){.value = OLG_DIM_UNKNOWN, .param = NULL, .denotation = NULL};
  return OLG_OK;
}

/* Carries the source graph's inputs and initializers over. */
static olg_status carry_inputs(olg_lower *cx) {
  const olg_graph *sg = cx->src;
  for (uint32_t i = 0; i < sg->inputs.n; i++) {
    olg_value sv = sg->inputs.p[i];
    const olg_value_rec *r = &sg->values[sv];
    if (r->flags & OLG_VF_INITIALIZER) continue; /* an IR < 4 style input with a default */
    if (!r->name || !*r->name) /* a name that is empty (or began with a NUL byte) */
      return graph_fault(cx, NULL, "input %u of graph '%s' has no name", i, sg->name);
    const char *defect = cx->parent ? NULL : olg__io_type_defect(&r->type);
    if (defect) /* carried over, it would make a model olg_check refuses */
      return graph_fault(cx, NULL, "input '%s' of graph '%s' %s", r->name, sg->name, defect);
    olg_value tv;
    OLG_TRY(olg__graph_add_value(cx->dst, r->name, false, &tv));
    OLG_TRY(olg__lower_copy_type(cx->dst_model, &cx->dst->values[tv].type, &r->type));
    OLG_TRY(take_outer_type(cx, i, &cx->dst->values[tv].type));
    cx->dst->values[tv].flags |= OLG_VF_INPUT;
    OLG_TRY(olg__idvec_push(cx->dst_model, &cx->dst->inputs, tv));
    cx->map[sv] = tv;
  }
  for (uint32_t i = 0; i < sg->n_inits; i++) {
    const olg_tensor *st = sg->inits[i].t;
    char why[200];
    if (olg__init_defect(st, why, sizeof why)) /* olg_check would refuse the result */
      return graph_fault(cx, NULL, "initializer '%s' of graph '%s' %s",
                         sg->values[sg->inits[i].v].name, sg->name, why);
    olg_tensor *t = olg__arena_dup(cx->dst_model, st, sizeof *t);
    if (!t) return OLG_ERR_NOMEM;
    /* borrowed: data, dims, strings and external-data keys stay the source model's */
    t->owner = OLG_OWNER_BORROWED;
    t->release = NULL;
    t->release_ud = NULL;
    olg_value tv;
    OLG_TRY(olg__graph_add_init(cx->dst, t, false, &tv));
    cx->map[sg->inits[i].v] = tv;
  }
  return OLG_OK;
}

/* A graph output that is another named value needs an Identity; before Identity-21 it does not
 * take every tensor type (uint4, float8, ...): refused, naming the opset that works, rather than
 * written as a model olg_check refuses. */
static olg_status identity_takes(olg_lower *cx, const char *output, const olg_type *t) {
  if (t->kind != OLG_TYPE_TENSOR || !t->has_elem) return OLG_OK;
  olg_dtype elem = olg__type_elem(t);
  const olg_schema *s = olg_schema_find("", "Identity", cx->opset);
  const olg_formal *f = s ? olg_schema_input_formal(s, 0) : NULL;
  if (!f || olg_schema_formal_allows_dtype(f, elem)) return OLG_OK;
  size_t nv;
  const olg_schema *vs = olg_schema_versions("", "Identity", &nv);
  int from = 0;
  for (size_t i = 0; i < nv && !from; i++) {
    const olg_formal *vf = olg_schema_input_formal(&vs[i], 0);
    if (vs[i].since_version > cx->opset && vf && olg_schema_formal_allows_dtype(vf, elem))
      from = vs[i].since_version;
  }
  char what[600];
  const char *tn = olg_dtype_name(elem) ? olg_dtype_name(elem) : "?";
  snprintf(what, sizeof what, "graph output '%s', a copy of another value: Identity of %s", output,
           tn);
  return olg_lower_unsupported(cx, what, from);
}

static olg_status bind_graph_outputs(olg_lower *cx) {
  const olg_graph *sg = cx->src;
  olg_graph *g = cx->dst;
  cx->cur_node = NULL;
  for (uint32_t i = 0; i < sg->outputs.n; i++) {
    olg_value sv = sg->outputs.p[i];
    const char *name = sg->values[sv].name;
    if (!name || !*name)
      return graph_fault(cx, NULL, "output %u of graph '%s' has no name", i, sg->name);
    olg_value tv = cx->map[sv];
    if (tv == OLG_NO_VALUE && olg__reads_by_name(&sg->values[sv]))
      return graph_fault(cx, NULL, "output '%s' of graph '%s' is not produced by any node, nor an input or initializer%s",
                         name, sg->name, cx->parent ? " of it or of an enclosing graph" : "");
    if (tv == OLG_NO_VALUE) { /* its node was not lowered, and said why */
      const olg_node *p = &sg->nodes[sg->values[sv].producer];
      return olg__errf(cx, OLG_ERR_STATE, "graph output '%s': node '%s' (%s), which computes it, was not lowered",
                       name, p->name, p->op);
    }
    /* a value listed again as an output (IR.md asks names to be defined once, and an output
       entry defines nothing: ONNX allows it): the same target value, listed again */
    olg_value prev = olg__graph_lookup(g, name);
    if (prev >= 0 && (g->values[prev].flags & OLG_VF_OUTPUT)) {
      OLG_TRY(olg__idvec_push(cx->dst_model, &g->outputs, prev));
      continue;
    }
    olg_value_rec *tr = &g->values[tv];
    if (strcmp(tr->name, name) != 0 || (tr->flags & OLG_VF_OUTPUT)) {
      bool can_rename = tr->producer >= 0 && !olg__is_protected(cx, tv) &&
                        !(tr->flags & (OLG_VF_INPUT | OLG_VF_INITIALIZER | OLG_VF_OUTPUT));
      olg_value other = olg__graph_lookup(g, name);
      if (other >= 0 && other != tv) {
        const olg_value_rec *orr = &g->values[other];
        if ((orr->flags & (OLG_VF_INPUT | OLG_VF_INITIALIZER | OLG_VF_OUTPUT)) ||
            olg__is_protected(cx, other) || orr->producer < 0)
          return graph_fault(cx, NULL, "graph output '%s' clashes with an input or initializer of that name", name);
        const char *fresh = olg__graph_unique_name(g, name);
        if (!fresh) return OLG_ERR_NOMEM;
        OLG_TRY(olg__value_rename(g, other, fresh)); /* a generated name that took the source's */
      }
      if (can_rename) {
        OLG_TRY(olg__value_rename(g, tv, name));
      } else {
        OLG_TRY(identity_takes(cx, name, &tr->type));
        const char *nb = olg__strfmt(cx->dst_model, "%s/Identity", name); /* any length */
        if (!nb) return OLG_ERR_NOMEM;
        olg_node_id n;
        OLG_TRY(olg_node_begin(g, "", "Identity", nb, &n));
        OLG_TRY(olg_node_arg_value(g, n, tv));
        const char *names[1] = {name};
        olg_value nv;
        OLG_TRY(olg_node_end(g, n, 1, names, &nv));
        OLG_TRY(olg__lower_copy_type(cx->dst_model, &g->values[nv].type, &g->values[tv].type));
        tv = nv;
        tr = &g->values[tv];
      }
    }
    if (tr->type.kind == OLG_TYPE_NONE || (tr->type.kind == OLG_TYPE_TENSOR && !tr->type.has_elem))
      OLG_TRY(olg__lower_copy_type(cx->dst_model, &tr->type, &sg->values[sv].type));
    tr->flags |= OLG_VF_OUTPUT;
    OLG_TRY(olg__idvec_push(cx->dst_model, &g->outputs, tv));
  }
  return OLG_OK;
}

/* ---- graphs and subgraphs ---- */

/* Counts, for values of cx->src, the references by name from the subgraphs (at any depth) of
 * a node, so that a value only a subgraph reads still counts as used (each name once: only
 * whether a value is used matters). */
static void count_ref(void *ud, const char *name) {
  olg_lower *cx = ud;
  olg_value sv = olg__graph_lookup(cx->src, name);
  if (sv >= 0) {
    cx->uses[sv]++;
    cx->pinned[sv] = 1;
  }
}

/* Which enclosing source graph defines a name, in O(1) whatever the nesting: one map shared by
 * the levels of one olg_legalize, name -> a stack of the levels whose source graph holds it
 * (each level pushes its graph's names when it starts and pops them when it ends). Walking the
 * enclosing graphs for each read was quadratic in the nesting depth. */
struct olg_scopes {
  olg_namestack ns; /* entries: .p the level (olg_lower) whose source graph holds the name */
};

static olg_status scopes_push(olg_lower *cx) {
  const olg_graph *g = cx->src;
  for (uint32_t v = 0; v < g->n_values; v++) {
    const char *name = g->values[v].name;
    if (name && *name) OLG_TRY(olg__ns_push(&cx->scopes->ns, name, 0, (int32_t)v, cx));
  }
  return OLG_OK;
}

olg_status olg__scopes_ensure(olg_lower *cx) { /* first the flag: a failed push is popped too */
  return cx->scopes_pushed || !cx->scopes ? OLG_OK : (cx->scopes_pushed = true, scopes_push(cx));
}

/* Pops what cx pushed (its entries are the newest). */
static void scopes_pop(olg_lower *cx) {
  olg_namestack *ns = &cx->scopes->ns;
  uint32_t n = ns->n;
  while (n && ns->e[n - 1].p == cx) n--;
  olg__ns_pop_to(ns, n);
  cx->scopes_pushed = false;
}

/* The innermost enclosing level (not cx itself) whose source graph holds name, or NULL. */
static olg_lower *scopes_find(const olg_lower *cx, const char *name) {
  const olg_namestack *ns = &cx->scopes->ns;
  int32_t k = olg__ns_find(ns, name);
  while (k >= 0 && ns->e[k].p == cx) k = ns->e[k].prev;
  return k >= 0 ? (olg_lower *)ns->e[k].p : NULL;
}

/* A subgraph's reference to an enclosing graph's value: found by name in the enclosing source
 * graphs, it becomes a reference by the TARGET name of the value that stands for it (typed as
 * that value, for the symbolics and inference of the subgraph). */
static olg_status resolve_outer_ref(olg_lower *cx, olg_value sv) {
  const char *name = cx->src->values[sv].name;
  for (olg_lower *p = scopes_find(cx, name); p; p = NULL) {
    olg_value psv = olg__graph_lookup(p->src, name);
    if (psv < 0) continue;
    olg_value ptv = p->map[psv];
    if (ptv == OLG_NO_VALUE) return OLG_OK; /* not lowered: the node that reads it is skipped */
    const olg_value_rec *pr = &p->dst->values[ptv];
    olg_value tv = olg__graph_lookup(cx->dst, pr->name);
    if (tv < 0) {
      OLG_TRY(olg__graph_add_value(cx->dst, pr->name, false, &tv));
      pr = &p->dst->values[ptv];
      olg_value_rec *r = &cx->dst->values[tv];
      r->type = pr->type; /* the arena's: shared, never changed in place */
      OLG_TRY(olg__value_set_more(cx->dst->model, r, &(olg_value_more){
          .known = olg__value_known(pr), .sym = olg__value_sym(pr), .n_sym = (int32_t)olg__value_n_sym(pr)}));
      r->flags |= OLG_VF_OUTER | OLG_VF_RESOLVED;
    }
    cx->map[sv] = tv;
    return OLG_OK;
  }
  return OLG_OK;
}

/* A name defined twice in the source (a reader keeps both, see olg_graph.dups): which node's
 * value a use means is ambiguous, so the graph is refused, naming the second definition, as
 * olg_check does. A graph input with an initializer of the same name (its default) is fine. */
static olg_status refuse_duplicates(olg_lower *cx) {
  const olg_graph *sg = cx->src;
  olg_status s = OLG_OK;
  for (uint32_t i = 0; i < sg->dups.n; i++) {
    const olg_value_rec *second = &sg->values[sg->dups.p[i]];
    olg_value fv = olg__graph_lookup(sg, second->name);
    const olg_value_rec *first = fv >= 0 ? &sg->values[fv] : NULL;
    if (olg__dup_is_input_default(first, second)) continue;
    char by[300] = "a graph input or initializer";
    if (first && first->producer >= 0) {
      const olg_node *p = &sg->nodes[first->producer];
      snprintf(by, sizeof by, "node '%s' (%s)", p->name, p->op);
    } else if (first && (first->flags & OLG_VF_INITIALIZER)) {
      snprintf(by, sizeof by, "an initializer");
    } else if (first && (first->flags & OLG_VF_INPUT)) {
      snprintf(by, sizeof by, "a graph input");
    }
    s = graph_fault(cx, second->producer >= 0 ? &sg->nodes[second->producer] : NULL,
                    "'%s' is defined twice in graph '%s' (first by %s); every name must be defined once (SSA)",
                    second->name, sg->name, by);
  }
  return s;
}

/* Lowers cx->src into cx->dst: inputs and initializers, every node in topological order, the
 * outputs under their source names, the profile's rewrites and the cleanup. *n_failed counts
 * the nodes that could not be lowered (each reported); the graph is unusable then. */
static olg_status lower_graph(olg_lower *cx, size_t *n_failed) {
  const olg_graph *sg = cx->src;
  const olg_allocator *al = &cx->dst_model->alloc;
  size_t nv = sg->n_values ? sg->n_values : 1, nn = sg->n_nodes ? sg->n_nodes : 1;
  olg_status s = OLG_OK;
  *n_failed = 0;
  cx->map = olg__malloc(al, nv * sizeof *cx->map);
  cx->map_len = (uint32_t)nv;
  cx->uses = olg__calloc(al, nv, sizeof *cx->uses);
  cx->pinned = olg__calloc(al, nv, 1);
  olg_node_id *order = olg__malloc(al, nn * sizeof *order);
  if (!cx->map || !cx->uses || !cx->pinned || !order) {
    s = OLG_ERR_NOMEM;
    goto done;
  }
  for (size_t i = 0; i < nv; i++) cx->map[i] = OLG_NO_VALUE;
  /* most nodes lower to about one node: a large graph gets the source's counts at once */
  if (sg->n_nodes >= 4096 && (s = olg__graph_reserve_like(cx->dst, sg)))
    goto done;
  /* a small body (an If's branch, a Loop's): its own counts, not arrays of 8 it leaves empty */
  if (sg->n_nodes < 4096 && cx->dst->parent && !cx->dst->n_nodes && !cx->dst->cap_nodes &&
      (s = olg__graph_reserve(cx->dst, sg->n_values ? sg->n_values : 1, 0,
                              sg->n_nodes ? sg->n_nodes : 1, 0)))
    goto done;
  for (uint32_t i = 0; i < sg->n_nodes; i++) {
    const olg_node *nd = &sg->nodes[i];
    if (nd->state != OLG_NODE_DONE) continue;
    for (uint32_t j = 0; j < nd->n_args; j++) {
      const olg_arg *a = &nd->args[j];
      if (a->kind == OLG_ARG_VALUE) count_use(cx, a->u.v);
      else if (a->kind == OLG_ARG_VALUES)
        for (size_t k = 0; k < a->n; k++) count_use(cx, a->u.vals[k]);
    }
    for (uint32_t j = 0; j < nd->n_attrs; j++) {
      const olg_attr *a = &nd->attrs[j];
      if (a->type == OLG_ATTR_GRAPH && (s = olg__subgraph_reads(cx->reads, a->g, count_ref, cx)))
        goto done;
      for (size_t k = 0; a->type == OLG_ATTR_GRAPHS && k < a->n; k++)
        if ((s = olg__subgraph_reads(cx->reads, a->graphs[k], count_ref, cx))) goto done;
    }
  }
  for (uint32_t i = 0; i < sg->outputs.n; i++) count_use(cx, sg->outputs.p[i]);
  for (uint32_t i = 0; i < sg->outputs.n; i++) if (sg->outputs.p[i] >= 0) cx->pinned[sg->outputs.p[i]] = 1;
  if (sg->dups.n && refuse_duplicates(cx)) {
    *n_failed = 1; /* reported; the caller says the graph could not be lowered */
    goto done;
  }
  if ((s = carry_inputs(cx))) goto done;
  /* a level's names are pushed when its first subgraph starts: only subgraphs look them up */
  if (cx->parent && (s = olg__scopes_ensure(cx->parent))) goto done;
  if (cx->parent) /* the names a subgraph reads from enclosing graphs */
    for (uint32_t v = 0; v < sg->n_values; v++)
      if (cx->uses[v] && cx->map[v] == OLG_NO_VALUE && olg__reads_by_name(&sg->values[v]) &&
          (s = resolve_outer_ref(cx, (olg_value)v)))
        goto done;
  olg_node_id fault = -1;
  if ((s = olg__graph_order(sg, al, cx->reads, order, &fault))) {
    if (s == OLG_ERR_INVALID_MODEL && fault >= 0) { /* the diagnostic names the node */
      char msg[512];
      snprintf(msg, sizeof msg, "%s", olg_last_error());
      cx->cur_node = &sg->nodes[fault];
      olg__lower_diag_min(cx, OLG_ERROR, "OLG-LOWER-GRAPH", s, msg, -1);
    }
    goto done;
  }
  if ((s = olg__lower_note_dropped(cx))) goto done;
  olg__consume_begin(cx);
  for (uint32_t k = 0; k < sg->n_nodes && order[k] >= 0; k++) {
    uint32_t first = cx->dst->n_nodes;
    if (k + 4 < sg->n_nodes && order[k + 4] >= 0) olg__lower_keep_names_ahead(cx, &sg->nodes[order[k + 4]]);
    cx->dst->first_hit = UINT32_MAX;
    s = olg__lower_node(cx, order[k]);
    if (s == OLG_ERR_NOMEM || s == OLG_ERR_LIMIT) goto done;
    if (s == OLG_OK && cx->report && cx->diags) olg__lower_report_node(cx, order[k], first);
    *n_failed += s != OLG_OK && s != LOWER_SKIPPED;
    olg__consume_node(cx, order[k], s == OLG_OK);
  }
  s = OLG_OK;
  cx->cur_node = NULL;
  cx->name_base = NULL;
  olg__lower_consts_free(cx->dst); /* every node is lowered */
  if (*n_failed || cx->n_errors) goto done;
  if ((s = olg__compute_protect(cx)) || (s = bind_graph_outputs(cx)) ||
      (s = olg__lower_value_info(cx)) || (s = olg__lower_graph_about(cx)))
    goto done;
  olg__consume_end(cx);
  olg__free(al, cx->uses, nv * sizeof *cx->uses); /* done with: not kept for the cleanup's peak */
  olg__free(al, cx->pinned, nv), olg__free(al, order, nn * sizeof *order);
  cx->uses = NULL, cx->pinned = NULL, order = NULL;
  s = olg__cleanup(cx);
  if (!s && cx->parent) /* the copies served this graph's lowering: later, resolve by walking */
    for (uint32_t v = 0; v < cx->dst->n_values; v++)
      cx->dst->values[v].flags &= ~(uint32_t)OLG_VF_RESOLVED;
done:
  if (cx->scopes_pushed) scopes_pop(cx);
  olg__lower_consts_free(cx->dst);
  olg__free(al, cx->map, nv * sizeof *cx->map);
  olg__free(al, cx->uses, nv * sizeof *cx->uses);
  olg__free(al, cx->pinned, nv);
  olg__free(al, order, nn * sizeof *order);
  cx->map = NULL, cx->uses = NULL, cx->pinned = NULL;
  return s;
}

olg_status olg__lower_subgraph(olg_lower *cx, const olg_graph *src_sub, const char *attr,
                               olg_graph **out) {
  *out = NULL;
  if (!src_sub) /* an API-built node (the reader and olg_check refuse it): no body to lower */
    return olg__errf(cx, OLG_ERR_INVALID_MODEL, "attribute '%s' carries no graph (a required body is missing)",
                     attr ? attr : "?");
  /* lowering a subgraph recurses (symbolic -> subgraph -> symbolic): bounded, not the stack */
  int depth = cx->depth + 1;
  if (depth > OLG_MAX_GRAPH_DEPTH)
    return olg__errf(cx, OLG_ERR_LIMIT, "the subgraphs of this node are " OLG_DEPTH_WORDS,
                     OLG_MAX_GRAPH_DEPTH, OLG_MAX_GRAPH_DEPTH);
  olg_graph *g;
  OLG_TRY(olg_model_new_subgraph(cx->dst_model, &g));
  g->parent = cx->dst; /* for the inference of outer references; attaching sets it again */
  const char *outer = cx->name_base && *cx->name_base ? cx->name_base : olg_lower_node_op(cx);
  const char *scope = olg__strfmt(cx->dst_model, "%s/%s", outer, attr);
  if (!scope) return OLG_ERR_NOMEM;
  /* every graph must be named (olg_check): an unnamed source body is named by its place */
  OLG_TRY(olg_graph_set_name(g, src_sub->name && *src_sub->name ? src_sub->name : scope));
  olg_lower sub = *cx; /* the setting; the per-graph state is reset */
  sub.scopes_pushed = false;
  sub.src = src_sub;
  sub.dst = g;
  sub.parent = cx;
  sub.depth = depth;
  sub.scope = scope;
  sub.cur = -1;
  sub.cur_node = NULL;
  sub.name_base = NULL;
  sub.n_errors = 0;
  sub.n_invalid = 0;
  sub.protect = NULL;
  sub.n_protect = 0;
  sub.roots = NULL;
  sub.n_roots = 0;
  sub.annots = NULL;
  sub.sub_in_from = NULL;
  sub.n_sub_in_from = 0;
  size_t n_failed;
  olg_status s = lower_graph(&sub, &n_failed);
  cx->custom_domains = sub.custom_domains; /* the list may have grown */
  cx->n_custom = sub.n_custom;
  cx->cap_custom = sub.cap_custom;
  cx->n_errors += sub.n_errors;
  cx->n_invalid += sub.n_invalid;
  if (sub.n_errors) cx->cur_reported = true; /* the subgraph's nodes said what failed */
  if (s) return s;
  if (n_failed || sub.n_errors)
    return olg__err(sub.n_invalid ? OLG_ERR_INVALID_MODEL : OLG_ERR_UNSUPPORTED,
                    "%zu node(s) of subgraph '%s' could not be lowered%s", n_failed, attr,
                    sub.n_invalid ? ": the subgraph is invalid" : "");
  *out = g;
  return OLG_OK;
}

olg_status olg__legalize(const olg_model *src, olg_model *owned, const olg_registry *r,
                         const olg_legalize_options *opts, olg_model **out, olg_diags *diags) {
  if (!out) return olg__err(OLG_ERR_INVALID_ARG, "olg_legalize: out is NULL");
  *out = NULL;
  if (!src || !r) return olg__err(OLG_ERR_INVALID_ARG, "olg_legalize: the source model and the registry are required");
  olg_legalize_options o = OLG_LEGALIZE_OPTIONS_INIT;
  if (opts) {
    if (opts->size < offsetof(olg_legalize_options, ir_version))
      return olg__err(OLG_ERR_INVALID_ARG, "olg_legalize: options.size is not set");
    memcpy(&o, opts, opts->size < sizeof o ? opts->size : sizeof o);
    o.size = sizeof o;
  }
  if (!o.opset) o.opset = OLG_LEGALIZE_DEFAULT_OPSET;
  if (o.opset < OLG_LOWER_OPSET_MIN || o.opset > OLG_LOWER_OPSET_MAX)
    return olg__err(OLG_ERR_INVALID_ARG, "olg_legalize: target opset %lld is outside %d..%d",
                    (long long)o.opset, OLG_LOWER_OPSET_MIN, OLG_LOWER_OPSET_MAX);
  int64_t ir = o.ir_version ? o.ir_version : olg_ir_version_for_opset(o.opset);
  if (ir < 3 || ir > OLG_IR_VERSION_LATEST)
    return olg__err(OLG_ERR_UNSUPPORTED, "olg_legalize: IR version %lld is outside 3..%d",
                    (long long)ir, OLG_IR_VERSION_LATEST);
  const char *profile = o.profile ? o.profile : "";
  const olg_profile *prof = NULL;
  if (o.profile_object) { /* an older, shorter struct leaves it NULL */
    prof = o.profile_object; /* a caller-defined profile; it wins over the name */
    if (prof->magic != OLG_PROFILE_MAGIC)
      return olg__err(OLG_ERR_INVALID_ARG, "olg_legalize: options.profile_object is not a profile");
    profile = prof->name;
  } else if (*profile) { /* by name: the registry's (the built-in ones, in a built-in registry) */
    const olg_profile *const *known = olg__registry_profiles(r);
    for (const olg_profile *const *p = known; *p && !prof; p++)
      if (strcmp((*p)->name, profile) == 0) prof = *p;
    if (!prof) {
      char names[256] = "";
      for (const olg_profile *const *p = known; *p; p++)
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
                 p == known ? "" : ", ", (*p)->name);
      return olg__err(OLG_ERR_INVALID_ARG,
                      "olg_legalize: unknown target profile '%s' (known: %s)", profile,
                      *known ? names
                             : "none in this registry: a registry made by olg_registry_new finds "
                               "no profile by name; pass options.profile_object, e.g. "
                               "olg_profile_builtin(name)");
    }
  }

  olg_model_options mo = OLG_MODEL_OPTIONS_INIT;
  mo.allocator = o.allocator ? o.allocator : &src->alloc;
  mo.ir_version = ir;
  olg_model *dm;
  olg_status s = olg_model_new(&dm, &mo);
  if (s) return s;
  /* calls of model-local functions are expanded first: the driver then sees ONNX nodes only
     (and, with keep_functions, calls of the kept functions, whose bodies are converted) */
  olg_keep *kept = NULL;
  if (src->n_functions && o.keep_functions && ir >= 8) {
    if ((s = olg__keep_prepare(src, r, &o, diags, dm, &kept))) {
      olg_model_free(dm);
      return s;
    }
    src = dm->keep;
  } else if (src->n_functions) {
    olg_node failed = {0};
    if (o.keep_functions && diags) /* an older, shorter struct leaves it 0 */
      olg_diags_add(diags, OLG_WARNING, "OLG-LOWER-WARNING", NULL, NULL, NULL, o.opset,
                    "keep_functions: the target's IR version has no functions (IR 8, opset 15, "
                    "has them): every call is inlined");
    if ((s = olg__inline_copy(src, &dm->keep, &failed))) {
      char msg[1024];
      snprintf(msg, sizeof msg, "%s", olg_last_error());
      if (diags)
        olg_diags_add(diags, OLG_ERROR, "OLG-LOWER-FUNCTION", failed.name, failed.domain,
                      failed.op, o.opset, msg);
      olg_model_free(dm);
      return olg__err(s, "olg_legalize: %s", msg);
    }
    src = dm->keep;
  }
  const olg_graph *sg = src->graph;
  olg_lower cx = {0};
  cx.src_model = src;
  cx.src = sg;
  cx.dst_model = dm;
  cx.dst = dm->graph;
  cx.reg = r;
  cx.diags = diags;
  cx.opset = (int)o.opset;
  cx.allow_decompositions = !o.no_decompositions;
  cx.fold = !o.no_constant_folding;
  cx.fold_weights = cx.fold && o.fold_weights; /* an older, shorter struct leaves it 0 */
  cx.report = o.report != 0; /* an older, shorter struct leaves it 0 */
  cx.profile = profile;
  cx.prof = prof;
  cx.cur = -1;
  cx.keep = kept;
  if (owned && src == owned && !olg__registry_caller_symbolics(r) && !(prof && prof->caller_defined))
    cx.src_release = owned->graph; /* nothing outside the library reads it: given back as lowered */
  const olg_allocator *al = &dm->alloc;
  if ((s = olg_model_set_opset(dm, "", o.opset)) ||
      (s = olg_model_set_string(dm, OLG_MODEL_PRODUCER_NAME, "onnxlegal")) ||
      (s = olg_model_set_string(dm, OLG_MODEL_PRODUCER_VERSION, olg_version_string())) ||
      (s = olg_graph_set_name(cx.dst, *sg->name ? sg->name : "main")) ||
      (s = olg__model_copy_about(dm, src)) || (s = olg_graph_set_doc_string(cx.dst, sg->doc_string)))
    goto fail;
  size_t n_failed; /* nodes, each reported at least once; those downstream are not counted */
  if ((s = olg__reads_memo_new(al, &cx.reads))) goto fail;
  olg_scopes scopes = {0};
  scopes.ns.al = al;
  cx.scopes = &scopes;
  s = lower_graph(&cx, &n_failed);
  olg__reads_memo_free(cx.reads);
  olg__ns_free(&scopes.ns);
  cx.reads = NULL;
  cx.scopes = NULL;
  if (s && s != OLG_ERR_NOMEM && !cx.n_errors) {
    /* a fault of the graph as a whole (a cycle, ...): its reason in the diagnostics too, which
       is what the tool, Python and C++ show */
    char msg[512];
    snprintf(msg, sizeof msg, "%s", olg_last_error());
    cx.cur_node = NULL;
    olg__lower_diag_min(&cx, OLG_ERROR, "OLG-LOWER-GRAPH", s, msg, -1);
  }
  if (s) goto fail;
  if (n_failed || cx.n_errors) {
    size_t lost = olg_diags_lost(diags);
    char lost_note[96] = "";
    if (lost) /* the diagnostics could not all be kept: say so, not "see" what is not there */
      snprintf(lost_note, sizeof lost_note, "; %zu diagnostic(s) were lost: out of memory", lost);
    if (cx.n_invalid) /* a defect of the model, not a limit of the library */
      s = olg__err(OLG_ERR_INVALID_MODEL, "olg_legalize: the model is invalid (%zu defect%s%s)%s",
                   cx.n_invalid, cx.n_invalid == 1 ? "" : "s",
                   diags ? "; see the diagnostics" : "", lost_note);
    else
      s = olg__err(OLG_ERR_UNSUPPORTED,
                   "olg_legalize: %zu node(s) could not be lowered to opset %d%s%s", n_failed,
                   cx.opset, diags ? " (see the diagnostics)" : "", lost_note);
    goto fail;
  }
  bool init_inputs = o.keep_initializers_as_inputs || ir < 4;
  if (init_inputs) {
    olg_graph *g = cx.dst;
    for (uint32_t i = 0; i < g->n_inits; i++) {
      olg_value v = g->inits[i].v;
      if (g->values[v].flags & OLG_VF_INPUT) continue;
      g->values[v].flags |= OLG_VF_INPUT;
      if ((s = olg__idvec_push(dm, &g->inputs, v))) goto fail;
    }
  }
  for (uint32_t i = 0; i < cx.n_custom; i++)
    if ((s = olg_model_set_opset(dm, cx.custom_domains[i],
                                 olg__registry_domain_version(r, cx.custom_domains[i]))))
      goto fail;
  if (kept && (s = olg__keep_finish(dm, kept))) goto fail;
  olg__keep_free(kept);
  olg__free(al, cx.custom_domains, (size_t)cx.cap_custom * sizeof *cx.custom_domains);
  *out = dm;
  return OLG_OK;
fail:
  olg__keep_free(kept);
  olg__free(al, cx.custom_domains, (size_t)cx.cap_custom * sizeof *cx.custom_domains);
  olg_model_free(dm);
  return s;
}

OLG_API olg_status olg_legalize(const olg_model *src, const olg_registry *r,
                                const olg_legalize_options *opts, olg_model **out,
                                olg_diags *diags) {
  return olg__legalize(src, NULL, r, opts, out, diags);
}
