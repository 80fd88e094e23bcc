/* onnxlegal — the validator: each node against the schema of its op at the imported opset
 * (arity, omitted inputs, attributes and their payloads and ranges, type constraints,
 * control-flow subgraph signatures) (check_impl.h). */
#include <stdio.h>
#include <string.h>

#include "check_impl.h"

/* ---------------------------------------------------------------------------------------- */
/* Nodes against their schema */

static const char *const experimental_ops[] = {
  "ATen", "Affine", "ConstantFill", "Crop", "DynamicSlice", "GRUUnit", "GivenTensorFill",
  "ImageScaler", "ParametricSoftplus", "Scale", "ScaledTanh",
};

bool olg__ck_is_experimental(const char *op) {
  for (size_t i = 0; i < sizeof experimental_ops / sizeof *experimental_ops; i++)
    if (strcmp(op, experimental_ops[i]) == 0) return true;
  return false;
}

/* Source-framework domains: nodes there are not ONNX until lowered. */
bool olg__ck_is_source_domain(const char *d) {
  return strcmp(d, "aten") == 0 || strcmp(d, "prim") == 0;
}

void olg__ck_op_missing(ck *c, const olg_node *nd, int64_t opset, const char *domain) {
  size_t nv;
  const olg_schema *v = olg_schema_versions(domain, nd->op, &nv);
  const char *shown = olg__ck_is_default_domain(domain) ? "the default domain" : domain;
  char lab[200];
  if (!v) {
    olg__ck_report(c, OLG_ERROR, "OLG-CHECK-OP-UNKNOWN", nd, opset,
           "%s has no operator '%s' (op names are case-sensitive)", shown, nd->op);
    return;
  }
  olg__ck_report(c, OLG_ERROR, "OLG-CHECK-OP-UNKNOWN", nd, opset,
         "%s does not exist at opset %lld of %s; it was introduced in opset %d (import opset >= %d)",
         olg__ck_op_label(nd, opset, lab, sizeof lab), (long long)opset, shown, v[0].since_version,
         v[0].since_version);
}

void olg__ck_op_removed(ck *c, const olg_node *nd, int64_t opset, const olg_schema *s) {
  const char *hint = "";
  if (strcmp(s->name, "Upsample") == 0) hint = "; use Resize";
  else if (strcmp(s->name, "Scatter") == 0) hint = "; use ScatterElements";
  size_t nv;
  const olg_schema *v = olg_schema_versions(s->domain, s->name, &nv);
  int newer = 0;
  for (size_t i = 0; i < nv; i++)
    if (v[i].since_version > s->since_version && !v[i].deprecated) { newer = v[i].since_version; break; }
  char extra[96] = "";
  if (newer) snprintf(extra, sizeof extra, "; it is defined again from opset %d", newer);
  olg__ck_report(c, OLG_ERROR, "OLG-CHECK-OP-REMOVED", nd, opset,
         "%s is deprecated from opset %d and not valid at opset %lld%s%s", s->name,
         s->since_version, (long long)opset, hint, extra);
}

/* Why an attribute is unknown, and what would be right. */
static void attr_unknown(ck *c, const olg_node *nd, int64_t opset, const olg_schema *s,
                         const char *name) {
  char lab[200];
  olg__ck_op_label(nd, s->since_version, lab, sizeof lab);
  for (int i = 0; i < s->n_inputs; i++)
    if (strcmp(s->inputs[i].name, name) == 0) {
      olg__ck_report(c, OLG_ERROR, "OLG-CHECK-ATTR-UNKNOWN", nd, opset,
             "attribute '%s' of %s is not allowed: since opset %d %s is an input (input %d)",
             name, lab, s->since_version, name, i);
      return;
    }
  size_t nv;
  const olg_schema *v = olg_schema_versions(s->domain, s->name, &nv);
  const olg_schema *older = NULL, *newer = NULL;
  for (size_t i = 0; i < nv; i++) {
    if (!olg_schema_attr(&v[i], name)) continue;
    if (v[i].since_version < s->since_version) older = &v[i];
    else if (!newer && v[i].since_version > s->since_version) newer = &v[i];
  }
  if (newer) {
    olg__ck_report(c, OLG_ERROR, "OLG-CHECK-ATTR-UNKNOWN", nd, opset,
           "attribute '%s' of %s is not allowed: it was added in %s-%d (needs opset >= %d)",
           name, lab, s->name, newer->since_version, newer->since_version);
    return;
  }
  if (older) {
    olg__ck_report(c, OLG_ERROR, "OLG-CHECK-ATTR-UNKNOWN", nd, opset,
           "attribute '%s' of %s is not allowed: %s-%d had it, %s-%d removed it",
           name, lab, s->name, older->since_version, s->name, s->since_version);
    return;
  }
  char list[512];
  size_t at = 0;
  list[0] = 0;
  for (int i = 0; i < s->n_attrs && at < sizeof list - 40; i++)
    at += (size_t)snprintf(list + at, sizeof list - at, "%s%s", i ? ", " : "", s->attrs[i].name);
  olg__ck_report(c, OLG_ERROR, "OLG-CHECK-ATTR-UNKNOWN", nd, opset,
         "attribute '%s' of %s is not allowed: %s%s", name, lab,
         s->n_attrs ? "its attributes are " : "it has no attributes", list);
}

/* A type made for a check, with room for its side record (an element type above 254). */
typedef struct tmp_type {
  olg_type t;
  olg_type_more more;
} tmp_type;

/* The dtype a value is known to have, for constraint checks: its type, or for the output of a
 * Constant the element type of its tensor (which the node itself fixes). */
static const olg_type *checked_type(const ck *c, const olg_graph *g, olg_value v, tmp_type *tmp) {
  const olg_value_rec *r = olg__resolve_in(c->isc, g, v); /* the map: linear in nesting */
  if (olg__ck_type_present(&r->type)) return &r->type;
  if (r->producer >= 0 && r->producer < (olg_node_id)g->n_nodes) {
    const olg_node *p = &g->nodes[r->producer];
    if (strcmp(p->op, "Constant") == 0 && olg__ck_is_default_domain(p->domain)) {
      const olg_attr *a = olg__node_attr(p, "value");
      if (a && a->type == OLG_ATTR_TENSOR && a->t) {
        memset(tmp, 0, sizeof *tmp);
        tmp->t.kind = OLG_TYPE_TENSOR;
        tmp->t.has_elem = true;
        tmp->t.rank = OLG_RANK_UNKNOWN;
        olg_dtype dt = a->t->dtype;
        if (dt >= 0 && dt < OLG_TYPE_ELEM_WIDE) {
          tmp->t.elem8 = (uint8_t)dt;
        } else {
          tmp->t.elem8 = OLG_TYPE_ELEM_WIDE;
          tmp->more.elem = dt;
          tmp->t.more = &tmp->more;
        }
        return &tmp->t;
      }
    }
  }
  return NULL;
}

/* The list of allowed types of a constraint, shortened for a message. */
static const char *allowed_list(const olg_schema *s, const olg_formal *f, char *buf, size_t n) {
  int na;
  const char *const *al = olg_schema_formal_types(s, f, &na);
  size_t at = 0;
  buf[0] = 0;
  for (int i = 0; i < na && at < n - 48; i++) {
    const char *t = al[i];
    /* "tensor(float)" -> "float" for brevity */
    char tmp[96];
    size_t l = strlen(t);
    if (strncmp(t, "tensor(", 7) == 0 && l > 8) {
      snprintf(tmp, sizeof tmp, "%.*s", (int)(l - 8), t + 7);
      t = tmp;
    }
    at += (size_t)snprintf(buf + at, n - at, "%s%s", i ? ", " : "", t);
  }
  if (at >= n - 48) snprintf(buf + at, n - at, ", ...");
  return buf;
}

/* The first version of the op whose formal at position `pos` allows dtype (for hints). */
static int version_allowing(const olg_schema *s, bool is_input, int pos, olg_dtype dt, int *until) {
  size_t nv;
  const olg_schema *v = olg_schema_versions(s->domain, s->name, &nv);
  int from = 0;
  *until = 0;
  for (size_t i = 0; i < nv; i++) {
    const olg_formal *f = is_input ? olg_schema_input_formal(&v[i], pos) : olg_schema_output_formal(&v[i], pos);
    bool ok = f && olg_schema_formal_allows_dtype(f, dt);
    if (ok && !from && v[i].since_version > s->since_version) from = v[i].since_version;
    if (ok && v[i].since_version < s->since_version) *until = v[i].since_version;
  }
  return from;
}

/* What the first value bound to a type constraint was, by value: the type checked may live in
 * a temporary of check_formal_type (a Constant's output typed from its tensor). */
typedef struct binding {
  bool set;
  bool tensor;
  olg_dtype elem;  /* tensor */
  char str[160];   /* otherwise: the type as olg__ck_type_string writes it */
  int pos;
  bool is_input;
  const char *name;
} binding;

static void check_formal_type(ck *c, const olg_graph *g, const olg_node *nd, int64_t opset,
                              const olg_schema *s, bool is_input, int pos, olg_value v,
                              binding *bound) {
  tmp_type tmp;
  const olg_type *t = checked_type(c, g, v, &tmp);
  if (!t) return;
  const olg_formal *f = is_input ? olg_schema_input_formal(s, pos) : olg_schema_output_formal(s, pos);
  if (!f) return;
  const olg_value_rec *r = &g->values[v];
  const char *what = is_input ? "input" : "output";
  char lab[200], tbuf[160], al[600];
  const char *ts = tbuf; /* the type as messages show it; no formatting unless needed */
  bool tensor = t->kind == OLG_TYPE_TENSOR;
  olg_dtype elem = olg__type_elem(t);
  if (tensor && !(t->has_elem && elem)) return;
  bool ok;
  if (tensor) {
    ok = olg_schema_formal_allows_dtype(f, elem);
    ts = olg_dtype_name(elem) ? olg_dtype_name(elem) : "?";
  } else {
    if (!olg__ck_type_string(t, tbuf, sizeof tbuf)) return;
    int na;
    const char *const *alw = olg_schema_formal_types(s, f, &na);
    ok = false;
    for (int i = 0; i < na && !ok; i++) ok = strcmp(alw[i], ts) == 0;
  }
  const olg_type_constraint *tc = olg_schema_constraint(s, f->type_str);
  if (!ok) {
    char hint[512] = "";
    if (tensor) {
      int until, from = version_allowing(s, is_input, pos, elem, &until);
      if (from) snprintf(hint, sizeof hint, "; %s is allowed from %s-%d (opset >= %d)", ts, s->name, from, from);
      else if (until) snprintf(hint, sizeof hint, "; %s was allowed up to %s-%d", ts, s->name, until);
    }
    olg__ck_report(c, OLG_ERROR, "OLG-CHECK-TYPE-CONSTRAINT", nd, opset,
           "%s %d '%s' of %s is %s; %s %s allows %s%s", what, pos, r->name, olg__ck_op_label(nd, s->since_version, lab, sizeof lab), ts,
           tc ? "type constraint" : "it must be", f->type_str, allowed_list(s, f, al, sizeof al), hint);
    return;
  }
  if (!tc || !f->homogeneous) return;
  int ci = (int)(tc - s->constraints);
  if (ci < 0 || ci >= s->n_constraints) return;
  binding *b = &bound[ci];
  if (!b->set) {
    *b = (binding){.set = true, .tensor = tensor, .elem = tensor ? elem : OLG_UNDEFINED,
                   .pos = pos, .is_input = is_input, .name = r->name};
    if (!tensor) snprintf(b->str, sizeof b->str, "%s", ts);
    return;
  }
  const char *bs = b->str;
  bool same;
  if (tensor && b->tensor) {
    same = b->elem == elem;
    bs = olg_dtype_name(b->elem) ? olg_dtype_name(b->elem) : "?";
  } else { /* a tensor and something else never match */
    same = !b->tensor && !tensor && strcmp(b->str, ts) == 0;
    if (b->tensor) bs = olg_dtype_name(b->elem) ? olg_dtype_name(b->elem) : "?";
  }
  if (!same)
    olg__ck_report(c, OLG_ERROR, "OLG-CHECK-TYPE-MISMATCH", nd, opset,
           "%s %d '%s' (%s) and %s %d '%s' (%s) of %s are both bound to %s, so they must have the same type",
           b->is_input ? "input" : "output", b->pos, b->name, bs, what, pos, r->name, ts, olg__ck_op_label(nd, s->since_version, lab, sizeof lab), tc->name);
}

void olg__ck_check_type_constraints(ck *c, const olg_graph *g, const olg_node *nd, int64_t opset,
                                   const olg_schema *s) {
  binding bound[16];
  if (s->n_constraints > 16) return;
  for (int i = 0; i < s->n_constraints; i++) bound[i].set = false;
  for (uint32_t i = 0; i < nd->n_args; i++)
    if (nd->args[i].kind == OLG_ARG_VALUE)
      check_formal_type(c, g, nd, opset, s, true, (int)i, nd->args[i].u.v, bound);
  for (uint32_t i = 0; i < nd->n_outputs; i++)
    if (nd->outputs[i] != OLG_NO_VALUE)
      check_formal_type(c, g, nd, opset, s, false, (int)i, nd->outputs[i], bound);
}

/* Whether an attribute carries the payload its type names (a graph for GRAPH, ...); an API-built
 * or hand-made model can lack it, and every later stage would trip on the NULL. */
static bool attr_has_payload(const olg_attr *a) {
  switch (a->type) {
  case OLG_ATTR_GRAPH: return a->g != NULL;
  case OLG_ATTR_TENSOR: {
    if (!a->t) return false;
    /* the data must cover the dims (or be external) */
    const olg_tensor *t = a->t;
    uint64_t ne;
    if (t->encoding == OLG_ENC_EXTERNAL || t->dtype == OLG_STRING || t->dtype <= 0 ||
        t->dtype > OLG_DTYPE_MAX || !olg__shape_numel(t->rank, t->dims, &ne))
      return true;
    return !ne || (t->data && t->nbytes >= olg_dtype_nbytes(t->dtype, ne));
  }
  case OLG_ATTR_TYPE_PROTO: return a->tp != NULL;
  case OLG_ATTR_SPARSE_TENSOR: return a->sparse != NULL;
  case OLG_ATTR_GRAPHS:
    for (size_t k = 0; k < a->n; k++)
      if (!a->graphs || !a->graphs[k]) return false;
    return true;
  default: return true;
  }
}

static void check_attr_value(ck *c, const olg_node *nd, int64_t opset, const olg_schema *s,
                             const olg_attr *a);

/* Arity, omitted inputs, attributes. */
void olg__ck_check_signature(ck *c, const olg_node *nd, int64_t opset, const olg_schema *s) {
  char lab[200];
  int nin = (int)nd->n_args, nout = (int)nd->n_outputs;
  if (nin < s->min_inputs || (s->max_inputs != OLG_SCHEMA_UNBOUNDED && nin > s->max_inputs)) {
    if (s->max_inputs == OLG_SCHEMA_UNBOUNDED)
      olg__ck_report(c, OLG_ERROR, "OLG-CHECK-INPUT-COUNT", nd, opset,
             "%s takes at least %d inputs; this node has %d", olg__ck_op_label(nd, s->since_version, lab, sizeof lab), s->min_inputs, nin);
    else if (s->min_inputs == s->max_inputs)
      olg__ck_report(c, OLG_ERROR, "OLG-CHECK-INPUT-COUNT", nd, opset,
             "%s takes %d input%s; this node has %d", olg__ck_op_label(nd, s->since_version, lab, sizeof lab), s->min_inputs, s->min_inputs == 1 ? "" : "s", nin);
    else
      olg__ck_report(c, OLG_ERROR, "OLG-CHECK-INPUT-COUNT", nd, opset,
             "%s takes %d to %d inputs; this node has %d", olg__ck_op_label(nd, s->since_version, lab, sizeof lab), s->min_inputs, s->max_inputs, nin);
  }
  if (nout < s->min_outputs || (s->max_outputs != OLG_SCHEMA_UNBOUNDED && nout > s->max_outputs)) {
    if (s->max_outputs == OLG_SCHEMA_UNBOUNDED)
      olg__ck_report(c, OLG_ERROR, "OLG-CHECK-OUTPUT-COUNT", nd, opset,
             "%s gives at least %d outputs; this node has %d", olg__ck_op_label(nd, s->since_version, lab, sizeof lab), s->min_outputs, nout);
    else
      olg__ck_report(c, OLG_ERROR, "OLG-CHECK-OUTPUT-COUNT", nd, opset,
             "%s gives %d to %d outputs; this node has %d", olg__ck_op_label(nd, s->since_version, lab, sizeof lab), s->min_outputs, s->max_outputs, nout);
  }
  for (int i = 0; i < nin; i++) {
    const olg_formal *f = olg_schema_input_formal(s, i);
    if (f && f->option == OLG_FORMAL_SINGLE && nd->args[i].kind == OLG_ARG_NONE)
      olg__ck_report(c, OLG_ERROR, "OLG-CHECK-INPUT-MISSING", nd, opset,
             "input %d '%s' of %s is required, but it is empty", i, f->name, olg__ck_op_label(nd, s->since_version, lab, sizeof lab));
  }
  for (int i = 0; i < nout; i++) {
    const olg_formal *f = olg_schema_output_formal(s, i);
    if (f && f->option == OLG_FORMAL_SINGLE && nd->outputs[i] == OLG_NO_VALUE)
      olg__ck_report(c, OLG_ERROR, "OLG-CHECK-OUTPUT-MISSING", nd, opset,
             "output %d '%s' of %s is required, but it is empty", i, f->name, olg__ck_op_label(nd, s->since_version, lab, sizeof lab));
  }
  for (uint32_t i = 0; i < nd->n_attrs; i++) {
    const olg_attr *a = &nd->attrs[i];
    for (uint32_t j = 0; j < i; j++)
      if (strcmp(nd->attrs[j].name, a->name) == 0) {
        olg__ck_report(c, OLG_ERROR, "OLG-CHECK-ATTR-DUPLICATE", nd, opset,
               "attribute '%s' of %s is given twice", a->name, olg__ck_op_label(nd, s->since_version, lab, sizeof lab));
        break;
      }
    if (a->ref_attr_name && *a->ref_attr_name)
      olg__ck_report(c, OLG_ERROR, "OLG-CHECK-ATTR-REF", nd, opset,
             "attribute '%s' of %s refers to function attribute '%s', but this node is not in a function body; give the value itself",
             a->name, olg__ck_op_label(nd, s->since_version, lab, sizeof lab), a->ref_attr_name);
    if (a->name[0] == '_' && a->name[1] == '_') continue; /* internal symbols: not checked */
    const olg_attr_schema *as = olg_schema_attr(s, a->name);
    if (!as) {
      attr_unknown(c, nd, opset, s, a->name);
      continue;
    }
    if (a->type != as->type)
      olg__ck_report(c, OLG_ERROR, "OLG-CHECK-ATTR-TYPE", nd, opset,
             "attribute '%s' of %s has type %s; it must be %s", a->name, olg__ck_op_label(nd, s->since_version, lab, sizeof lab),
             olg__ck_attr_type_name(a->type), olg__ck_attr_type_name(as->type));
    else if (!attr_has_payload(a))
      olg__ck_report(c, OLG_ERROR, "OLG-CHECK-ATTR-PAYLOAD", nd, opset,
             "attribute '%s' of %s has type %s but carries no %s", a->name,
             olg__ck_op_label(nd, s->since_version, lab, sizeof lab), olg__ck_attr_type_name(a->type),
             a->type == OLG_ATTR_GRAPH ? "graph" : a->type == OLG_ATTR_TENSOR ? (a->t ? "data for its dims" : "tensor")
             : a->type == OLG_ATTR_TYPE_PROTO ? "type" : "sparse tensor");
    else
      check_attr_value(c, nd, opset, s, a);
  }
  for (int i = 0; i < s->n_attrs; i++) {
    const olg_attr_schema *as = &s->attrs[i];
    if (as->required && !olg__node_attr(nd, as->name))
      olg__ck_report(c, OLG_ERROR, "OLG-CHECK-ATTR-MISSING", nd, opset,
             "%s requires attribute '%s' (%s), which is missing", olg__ck_op_label(nd, s->since_version, lab, sizeof lab), as->name,
             olg__ck_attr_type_name(as->type));
  }
}

/* Attribute values whose allowed range changes with the op's version (Changelog.md): one row
 * per (op, versions, attribute, rule). Versions are the schema's since_version: a row holds for
 * since <= v < until (until 0: no end). Negative axes, for one, came with the version-11
 * redefinitions of these ops; before them an axis counts from the front only. */
enum { RANGE_NONNEG = 1, RANGE_ONE_OF = 2 };

typedef struct attr_range {
  const char *op;
  int since, until;
  const char *attr;
  int rule;
  const char *const *allowed; /* RANGE_ONE_OF: NULL-terminated */
  int neg_from;               /* RANGE_NONNEG: the version that allows negative values */
  bool refused;               /* RANGE_NONNEG: onnx's checker and ONNX Runtime refuse a negative
                                 value too (Flatten-1/9): an error OLG-CHECK-ATTR-VALUE, not the
                                 warning OLG-CHECK-AXIS-NEGATIVE */
} attr_range;

static const char *const pad_modes_2[] = {"constant", "reflect", "edge", NULL};
static const char *const pad_modes_19[] = {"constant", "reflect", "edge", "wrap", NULL};
static const char *const upsample_modes_1[] = {"nearest", "bilinear", NULL};
static const char *const upsample_modes_7[] = {"nearest", "linear", NULL};
static const char *const resize_modes_10[] = {"nearest", "linear", NULL};
static const char *const resize_modes_11[] = {"nearest", "linear", "cubic", NULL};
static const char *const resize_ctm_11[] = {"half_pixel", "pytorch_half_pixel", "align_corners",
                                            "asymmetric", "tf_half_pixel_for_nn",
                                            "tf_crop_and_resize", NULL};
static const char *const resize_ctm_13[] = {"half_pixel", "pytorch_half_pixel", "align_corners",
                                            "asymmetric", "tf_crop_and_resize", NULL};
static const char *const resize_ctm_19[] = {"half_pixel", "half_pixel_symmetric",
                                            "pytorch_half_pixel", "align_corners", "asymmetric",
                                            "tf_crop_and_resize", NULL};

#define NONNEG_BELOW_11(op, attr) {op, 1, 11, attr, RANGE_NONNEG, NULL, 11, false}
static const attr_range attr_ranges[] = {
  NONNEG_BELOW_11("ArgMax", "axis"), NONNEG_BELOW_11("ArgMin", "axis"),
  NONNEG_BELOW_11("Compress", "axis"), NONNEG_BELOW_11("Concat", "axis"),
  {"Flatten", 1, 11, "axis", RANGE_NONNEG, NULL, 11, true}, NONNEG_BELOW_11("Hardmax", "axis"),
  NONNEG_BELOW_11("LogSoftmax", "axis"), NONNEG_BELOW_11("Softmax", "axis"),
  NONNEG_BELOW_11("ReduceL1", "axes"), NONNEG_BELOW_11("ReduceL2", "axes"),
  NONNEG_BELOW_11("ReduceLogSum", "axes"), NONNEG_BELOW_11("ReduceLogSumExp", "axes"),
  NONNEG_BELOW_11("ReduceMax", "axes"), NONNEG_BELOW_11("ReduceMean", "axes"),
  NONNEG_BELOW_11("ReduceMin", "axes"), NONNEG_BELOW_11("ReduceProd", "axes"),
  NONNEG_BELOW_11("ReduceSum", "axes"), NONNEG_BELOW_11("ReduceSumSquare", "axes"),
  NONNEG_BELOW_11("Scan", "scan_input_axes"), NONNEG_BELOW_11("Scan", "scan_output_axes"),
  NONNEG_BELOW_11("Slice", "axes"), /* the attribute of Slice-1 (an input from Slice-10) */
  NONNEG_BELOW_11("Split", "axis"), NONNEG_BELOW_11("Squeeze", "axes"),
  NONNEG_BELOW_11("Unsqueeze", "axes"),
  {"Pad", 1, 19, "mode", RANGE_ONE_OF, pad_modes_2, 0, false},
  {"Pad", 19, 0, "mode", RANGE_ONE_OF, pad_modes_19, 0, false},
  {"Upsample", 1, 7, "mode", RANGE_ONE_OF, upsample_modes_1, 0, false},
  {"Upsample", 7, 0, "mode", RANGE_ONE_OF, upsample_modes_7, 0, false},
  {"Resize", 10, 11, "mode", RANGE_ONE_OF, resize_modes_10, 0, false},
  {"Resize", 11, 0, "mode", RANGE_ONE_OF, resize_modes_11, 0, false},
  {"Resize", 11, 13, "coordinate_transformation_mode", RANGE_ONE_OF, resize_ctm_11, 0, false},
  {"Resize", 13, 19, "coordinate_transformation_mode", RANGE_ONE_OF, resize_ctm_13, 0, false},
  {"Resize", 19, 0, "coordinate_transformation_mode", RANGE_ONE_OF, resize_ctm_19, 0, false},
};
#undef NONNEG_BELOW_11

/* The first version of the op at or after `from` whose row (if any) allows string v. */
static int string_allowed_from(const char *op, const char *attr, int from, const char *v, size_t n) {
  for (size_t i = 0; i < sizeof attr_ranges / sizeof *attr_ranges; i++) {
    const attr_range *r = &attr_ranges[i];
    if (r->rule != RANGE_ONE_OF || r->since < from || strcmp(r->op, op) || strcmp(r->attr, attr)) continue;
    for (const char *const *p = r->allowed; *p; p++)
      if (strlen(*p) == n && memcmp(*p, v, n) == 0) return r->since;
  }
  return 0;
}

int olg__attr_value_allowed_from(const olg_schema *s, const olg_attr *a) {
  /* an element-type attribute (Cast's to, the Random* ops' and Bernoulli's dtype, the window
   * ops' output_datatype, QuantizeLinear's output_dtype where 0 means "from the zero point")
   * must name a defined type at every version */
  if (a->type == OLG_ATTR_INT && (strcmp(a->name, "to") == 0 || strcmp(a->name, "dtype") == 0 ||
                                  strcmp(a->name, "output_datatype") == 0 ||
                                  strcmp(a->name, "output_dtype") == 0)) {
    int64_t lo = strcmp(a->name, "output_dtype") == 0 ? 0 : 1;
    if (a->i < lo || a->i > OLG_DTYPE_MAX) return -1;
  }
  for (size_t i = 0; i < sizeof attr_ranges / sizeof *attr_ranges; i++) {
    const attr_range *r = &attr_ranges[i];
    if (s->since_version < r->since || (r->until && s->since_version >= r->until)) continue;
    if (strcmp(r->op, s->name) != 0 || strcmp(r->attr, a->name) != 0) continue;
    if (r->rule == RANGE_NONNEG) {
      size_t n = a->type == OLG_ATTR_INT ? 1 : a->type == OLG_ATTR_INTS ? a->n : 0;
      for (size_t k = 0; k < n; k++)
        if ((a->type == OLG_ATTR_INT ? a->i : a->ints[k]) < 0) return r->neg_from;
    } else if (r->rule == RANGE_ONE_OF && a->type == OLG_ATTR_STRING) {
      bool ok = false;
      for (const char *const *p = r->allowed; *p && !ok; p++)
        ok = strlen(*p) == a->s.n && memcmp(*p, a->s.p ? a->s.p : "", a->s.n) == 0;
      if (!ok) {
        int later = string_allowed_from(s->name, a->name, s->since_version + 1, a->s.p ? a->s.p : "", a->s.n);
        return later ? later : -1;
      }
    }
  }
  return 0;
}

bool olg__attr_value_in_some_version(const olg_schema *s, const olg_attr *a) {
  if (olg__attr_value_allowed_from(s, a) >= 0) return true;
  return a->type == OLG_ATTR_STRING &&
         string_allowed_from(s->name, a->name, 0, a->s.p ? a->s.p : "", a->s.n) > 0;
}

static void check_attr_value(ck *c, const olg_node *nd, int64_t opset, const olg_schema *s,
                             const olg_attr *a) {
  if (!olg__ck_is_default_domain(nd->domain)) return;
  char lab[200];
  if (a->type == OLG_ATTR_INT && olg__attr_value_allowed_from(s, a) < 0) {
    olg__ck_report(c, OLG_ERROR, "OLG-CHECK-ATTR-VALUE", nd, opset,
                   "attribute '%s' of %s is %lld, which is not a tensor element type", a->name,
                   olg__ck_op_label(nd, s->since_version, lab, sizeof lab), (long long)a->i);
    return;
  }
  for (size_t i = 0; i < sizeof attr_ranges / sizeof *attr_ranges; i++) {
    const attr_range *r = &attr_ranges[i];
    if (s->since_version < r->since || (r->until && s->since_version >= r->until)) continue;
    if (strcmp(r->op, s->name) != 0 || strcmp(r->attr, a->name) != 0) continue;
    if (r->rule == RANGE_NONNEG) {
      size_t n = a->type == OLG_ATTR_INT ? 1 : a->type == OLG_ATTR_INTS ? a->n : 0;
      for (size_t k = 0; k < n; k++) {
        int64_t v = a->type == OLG_ATTR_INT ? a->i : a->ints[k];
        if (v >= 0) continue;
        if (r->refused) {
          olg__ck_report(c, OLG_ERROR, "OLG-CHECK-ATTR-VALUE", nd, opset,
                 "attribute '%s' of %s is %lld; a negative %s is allowed from %s-%d (opset >= %d), below it count from the front (0 .. rank)",
                 a->name, olg__ck_op_label(nd, s->since_version, lab, sizeof lab), (long long)v, a->name,
                 s->name, r->neg_from, r->neg_from);
          break;
        }
        /* what onnx's checker and ONNX Runtime accept (the test data's pytorch-converted models
           have axis -1 at opset 6): a warning unless strict */
        olg__ck_report(c, c->strict ? OLG_ERROR : OLG_WARNING, "OLG-CHECK-AXIS-NEGATIVE", nd, opset,
               "attribute '%s' of %s is %lld: the axis %lld needs opset >= %d at this op (%s-%d); write it as rank%lld (counted from the front), or convert the model to opset %d or later",
               a->name, olg__ck_op_label(nd, s->since_version, lab, sizeof lab), (long long)v,
               (long long)v, r->neg_from, s->name, r->neg_from, (long long)v, r->neg_from);
        break;
      }
    } else if (r->rule == RANGE_ONE_OF && a->type == OLG_ATTR_STRING) {
      bool ok = false;
      for (const char *const *p = r->allowed; *p && !ok; p++)
        ok = strlen(*p) == a->s.n && memcmp(*p, a->s.p ? a->s.p : "", a->s.n) == 0;
      if (ok) continue;
      char list[300];
      size_t at = 0;
      list[0] = 0;
      for (const char *const *p = r->allowed; *p && at < sizeof list - 40; p++)
        at += (size_t)snprintf(list + at, sizeof list - at, "%s%s", p == r->allowed ? "" : ", ", *p);
      int later = string_allowed_from(s->name, a->name, s->since_version + 1, a->s.p ? a->s.p : "", a->s.n);
      char hint[96] = "";
      if (later) snprintf(hint, sizeof hint, "; it is allowed from %s-%d (opset >= %d)", s->name, later, later);
      olg__ck_report(c, OLG_ERROR, "OLG-CHECK-ATTR-VALUE", nd, opset,
             "attribute '%s' of %s is '%.*s'; it must be one of %s%s", a->name,
             olg__ck_op_label(nd, s->since_version, lab, sizeof lab), (int)(a->s.n > 64 ? 64 : a->s.n),
             a->s.p ? a->s.p : "", list, hint);
    }
  }
}

bool olg__ck_has_subgraphs(const olg_node *nd) {
  for (uint32_t i = 0; i < nd->n_attrs; i++)
    if (nd->attrs[i].type == OLG_ATTR_GRAPH || nd->attrs[i].type == OLG_ATTR_GRAPHS) return true;
  return false;
}

/* The k-th mismatch (from 0) between a control-flow node of the default domain and its
 * subgraphs' signatures (If's branches, Loop's and Scan's body), said in buf; false when there
 * is no k-th one. check reports each; legalize refuses a node with any (lib/legalize.c). */
bool olg__subgraph_arity_fault(const olg_node *nd, int64_t opset, int since, int k, char *buf,
                               size_t n) {
  /* every fault is of a graph attribute: a node without attributes has none (most nodes) */
  if (!nd->n_attrs || !olg__ck_is_default_domain(nd->domain)) return false;
  char lab[200] = ""; /* made only for a fault: this runs on every node of check and legalize */
  int found = 0;
#define FAULT(...)                                                                        \
  do {                                                                                    \
    if (found++ == k) {                                                                   \
      olg__ck_op_label(nd, since, lab, sizeof lab);                                       \
      snprintf(buf, n, __VA_ARGS__);                                                      \
      return true;                                                                        \
    }                                                                                     \
  } while (0)
  if (strcmp(nd->op, "If") == 0) {
    static const char *const br[2] = {"then_branch", "else_branch"};
    for (int b = 0; b < 2; b++) {
      const olg_attr *a = olg__node_attr(nd, br[b]);
      if (a && a->type == OLG_ATTR_GRAPH && a->g && a->g->outputs.n != nd->n_outputs)
        FAULT("%s of %s has %u outputs but the node has %u; they must match", br[b], lab,
              a->g->outputs.n, nd->n_outputs);
    }
  } else if (strcmp(nd->op, "Loop") == 0) {
    const olg_attr *a = olg__node_attr(nd, "body");
    if (a && a->type == OLG_ATTR_GRAPH && a->g && nd->n_args >= 2) {
      uint32_t nc = nd->n_args - 2;
      if (a->g->inputs.n != nc + 2)
        FAULT("the body of %s has %u inputs; with %u loop-carried values it needs %u (iteration number, condition, then the loop-carried values)",
              lab, a->g->inputs.n, nc, nc + 2);
      else if (a->g->outputs.n < nc + 1)
        FAULT("the body of %s has %u outputs; it needs at least %u (condition, then %u loop-carried values)",
              lab, a->g->outputs.n, nc + 1, nc);
      else if (nd->n_outputs != a->g->outputs.n - 1)
        FAULT("%s has %u outputs; its body gives %u (loop-carried and scan outputs after the condition)",
              lab, nd->n_outputs, a->g->outputs.n - 1);
    }
  } else if (strcmp(nd->op, "Scan") == 0 && opset >= 9) {
    const olg_attr *a = olg__node_attr(nd, "body");
    if (a && a->type == OLG_ATTR_GRAPH && a->g) {
      if (a->g->inputs.n != nd->n_args)
        FAULT("the body of %s has %u inputs; the node has %u (states then scan inputs), they must match",
              lab, a->g->inputs.n, nd->n_args);
      if (a->g->outputs.n != nd->n_outputs)
        FAULT("the body of %s has %u outputs; the node has %u, they must match", lab,
              a->g->outputs.n, nd->n_outputs);
    }
  }
#undef FAULT
  return false;
}

/* Subgraph signatures of the control-flow ops (also checked by inference in full mode). */
void olg__ck_check_subgraph_arity(ck *c, const olg_node *nd, int64_t opset, const olg_schema *s) {
  char msg[512];
  for (int k = 0; olg__subgraph_arity_fault(nd, opset, s->since_version, k, msg, sizeof msg); k++)
    olg__ck_report(c, OLG_ERROR, "OLG-CHECK-SUBGRAPH", nd, opset, "%s", msg);
}
