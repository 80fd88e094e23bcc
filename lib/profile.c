/* onnxlegal — the profile engine (lib/profile.h): finds the rules of a node, decides whether the
 * node violates each, and either reports the violation (check) or applies the rule's fix
 * (rewrite), refusing with the rule named where there is none. Linear in the graph: a node's
 * rules are found by binary search in the sorted tables. */
#include <stdio.h>
#include <string.h>

#include "profile.h"
#include "passes/passes.h"
#include "schema.h"
#include "util.h"

int olg__profile_op_version(const char *op, int opset) {
  const olg_schema *s = olg_schema_find("", op, opset);
  return s && !s->deprecated ? s->since_version : 0;
}

/* The known contents of v as int64 (integer tensors of at most 64 elements), or false. */
static bool known_ints(const olg_graph *g, olg_value v, int64_t *out, size_t *n) {
  if (v < 0 || (uint32_t)v >= g->n_values) return false;
  const olg_value_rec *r = &g->values[v];
  const olg_tensor *t = olg__value_known(r);
  if (!t && r->init >= 0) t = g->inits[r->init].t;
  if (!t || !t->data) return false;
  size_t es = t->dtype == OLG_INT64 ? 8 : t->dtype == OLG_INT32 ? 4 : 0;
  if (!es || t->nbytes % es || t->nbytes / es > 64) return false;
  *n = t->nbytes / es;
  for (size_t i = 0; i < *n; i++) {
    if (es == 8) memcpy(&out[i], (const char *)t->data + 8 * i, 8);
    else {
      int32_t x;
      memcpy(&x, (const char *)t->data + 4 * i, 4);
      out[i] = x;
    }
  }
  return true;
}

static bool is_known(const olg_graph *g, olg_value v) {
  if (v < 0 || (uint32_t)v >= g->n_values) return false;
  const olg_value_rec *r = &g->values[v];
  if (olg__value_known(r) || r->init >= 0 || (r->flags & OLG_VF_INITIALIZER)) return true;
  return r->producer >= 0 && strcmp(g->nodes[r->producer].op, "Constant") == 0 &&
         !*g->nodes[r->producer].domain;
}

static olg_value slot_value(const olg_node *nd, int32_t slot) {
  if (slot >= 0)
    return (uint32_t)slot < nd->n_args && nd->args[slot].kind == OLG_ARG_VALUE ? nd->args[slot].u.v
                                                                                : OLG_NO_VALUE;
  uint32_t k = (uint32_t)(-1 - slot);
  return k < nd->n_outputs ? nd->outputs[k] : OLG_NO_VALUE;
}

static olg_dtype value_dtype(const olg_graph *g, olg_value v) {
  if (v < 0 || (uint32_t)v >= g->n_values) return OLG_UNDEFINED;
  const olg_type *t = &g->values[v].type;
  return t->kind == OLG_TYPE_TENSOR && t->has_elem ? olg__type_elem(t) : OLG_UNDEFINED;
}

static int32_t value_rank(const olg_graph *g, olg_value v) {
  if (v < 0 || (uint32_t)v >= g->n_values) return OLG_RANK_UNKNOWN;
  const olg_type *t = &g->values[v].type;
  return t->kind == OLG_TYPE_TENSOR && t->has_shape ? t->rank : OLG_RANK_UNKNOWN;
}

static void types_list(uint32_t mask, char *buf, size_t cap) {
  size_t len = 0;
  buf[0] = 0;
  for (int d = 1; d <= OLG_DTYPE_MAX && len < cap; d++)
    if (mask >> d & 1) {
      int k = snprintf(buf + len, cap - len, "%s%s", len ? ", " : "", olg_dtype_name(d));
      if (k < 0) return;
      len += (size_t)k;
    }
  if (!len) snprintf(buf, cap, "none");
}

static const char *slot_name(int32_t slot, char *buf, size_t cap) {
  if (slot >= 0) snprintf(buf, cap, "input %d", (int)slot);
  else snprintf(buf, cap, "output %d", (int)(-1 - slot));
  return buf;
}

/* Whether the node at site violates site->rule; when it does, site's slot/dtype/value and desc
 * say how. */
static bool violates(olg_prule_site *st, char *desc, size_t cap) {
  const olg_prule *r = st->rule;
  const olg_node *nd = &st->g->nodes[st->node];
  char sb[32];
  desc[0] = 0;
  st->slot = OLG_PSLOT_NONE;
  st->dtype = OLG_UNDEFINED;
  st->value = 0;
  switch (r->kind) {
  case OLG_PRULE_OP:
    snprintf(desc, cap, "%s-%d is not supported%s%s", nd->op, st->version, r->what ? ": " : "",
             r->what ? r->what : "");
    return true;
  case OLG_PRULE_TYPES: {
    const olg_schema *s = r->tc ? olg_schema_find("", nd->op, st->opset) : NULL;
    int n_slots = r->tc ? (int)nd->n_args + (int)nd->n_outputs : 1;
    for (int k = 0; k < n_slots; k++) {
      int32_t slot = r->slot;
      if (r->tc) {
        slot = k < (int)nd->n_args ? k : OLG_PSLOT_OUT(k - (int)nd->n_args);
        const olg_formal *f = slot >= 0 ? olg_schema_input_formal(s, slot)
                                        : olg_schema_output_formal(s, -1 - slot);
        if (!f || strcmp(f->type_str, r->tc) != 0) continue;
      }
      olg_dtype t = value_dtype(st->g, slot_value(nd, slot));
      if (t == OLG_UNDEFINED || t > OLG_DTYPE_MAX || (r->types >> t & 1)) continue;
      char acc[256];
      types_list(r->types, acc, sizeof acc);
      st->slot = slot;
      st->dtype = t;
      snprintf(desc, cap, "%s-%d of %s (%s%s%s): accepted %s%s%s", nd->op, st->version,
               olg_dtype_name(t), slot_name(slot, sb, sizeof sb), r->tc ? ", constraint " : "",
               r->tc ? r->tc : "", acc, r->what ? "; " : "", r->what ? r->what : "");
      return true;
    }
    return false;
  }
  case OLG_PRULE_ATTR: {
    const olg_attr *a = olg__node_attr(nd, r->attr);
    if (!a && !r->has_dflt) return false;
    bool is_str = r->svals != NULL;
    if (a && a->type != (is_str ? OLG_ATTR_STRING : OLG_ATTR_INT)) return false;
    if (is_str) {
      const char *v = a ? NULL : r->dflt_s;
      size_t vn = a ? a->s.n : strlen(v);
      const char *vp = a ? (const char *)a->s.p : v;
      for (uint32_t i = 0; i < r->n_vals; i++)
        if (strlen(r->svals[i]) == vn && memcmp(r->svals[i], vp, vn) == 0) return false;
      snprintf(desc, cap, "%s-%d with %s='%.*s'%s: not accepted%s%s", nd->op, st->version,
               r->attr, (int)(vn > 200 ? 200 : vn), vp, a ? "" : " (its default)",
               r->what ? "; " : "", r->what ? r->what : "");
      return true;
    }
    int64_t v = a ? a->i : r->dflt_i;
    for (uint32_t i = 0; i < r->n_vals; i++)
      if (r->ivals[i] == v) return false;
    st->value = v;
    snprintf(desc, cap, "%s-%d with %s=%lld%s: not accepted%s%s", nd->op, st->version, r->attr,
             (long long)v, a ? "" : " (its default)", r->what ? "; " : "", r->what ? r->what : "");
    return true;
  }
  case OLG_PRULE_KNOWN: {
    olg_value v = slot_value(nd, r->slot);
    if (v == OLG_NO_VALUE || is_known(st->g, v)) return false;
    st->slot = r->slot;
    snprintf(desc, cap, "%s-%d: %s is computed at run time; it must be an initializer or a constant%s%s",
             nd->op, st->version, slot_name(r->slot, sb, sizeof sb), r->what ? "; " : "",
             r->what ? r->what : "");
    return true;
  }
  case OLG_PRULE_RANK: {
    int32_t rk = value_rank(st->g, slot_value(nd, r->slot));
    if (rk == OLG_RANK_UNKNOWN || (rk >= r->lo && rk <= r->hi)) return false;
    st->slot = r->slot;
    st->value = rk;
    snprintf(desc, cap, "%s-%d: %s has rank %d; accepted ranks %lld to %lld%s%s", nd->op,
             st->version, slot_name(r->slot, sb, sizeof sb), (int)rk, (long long)r->lo,
             (long long)r->hi, r->what ? "; " : "", r->what ? r->what : "");
    return true;
  }
  case OLG_PRULE_LIMIT: {
    int64_t vals[64];
    size_t n = 0;
    if (r->attr) {
      const olg_attr *a = olg__node_attr(nd, r->attr);
      if (a && a->type == OLG_ATTR_INT) vals[0] = a->i, n = 1;
      else if (a && a->type == OLG_ATTR_INTS)
        for (n = 0; n < a->n && n < 64; n++) vals[n] = a->ints[n];
    } else {
      olg_value v = slot_value(nd, r->slot);
      if (v == OLG_NO_VALUE || !known_ints(st->g, v, vals, &n)) n = 0;
    }
    for (size_t i = 0; i < n; i++) {
      if (vals[i] >= r->lo && vals[i] <= r->hi) continue;
      st->slot = r->attr ? OLG_PSLOT_NONE : r->slot;
      st->value = vals[i];
      snprintf(desc, cap, "%s-%d: %s%s = %lld is outside %lld..%lld%s%s", nd->op, st->version,
               r->attr ? "attribute " : "", r->attr ? r->attr : slot_name(r->slot, sb, sizeof sb),
               (long long)vals[i], (long long)r->lo, (long long)r->hi, r->what ? "; " : "",
               r->what ? r->what : "");
      return true;
    }
    return false;
  }
  case OLG_PRULE_MATCH:
    st->msg[0] = 0;
    if (!r->match || !r->match(st)) return false;
    snprintf(desc, cap, "%s%s%s", st->msg[0] ? st->msg : nd->op,
             r->what && st->msg[0] ? "; " : "", r->what && st->msg[0] ? r->what : "");
    return true;
  default:
    return false;
  }
}

/* Calls visit(site, desc) for every rule of p (and its bases) that the node violates, in
 * order; visit returns true to stop (the node was replaced). Returns the status visit set. */
typedef olg_status (*visit_fn)(olg_prule_site *st, const char *desc, bool *stop, void *ud);

static olg_status node_rules(const olg_profile *p, olg_prule_site *st, visit_fn visit, void *ud) {
  const olg_node *nd = &st->g->nodes[st->node];
  bool onnx = !*nd->domain;
  st->version = onnx ? olg__profile_op_version(nd->op, st->opset) : 0;
  char desc[768];
  for (const olg_profile *q = p; q; q = q->base) {
    size_t nt = q->n_tables + (q->n_own ? 1 : 0);
    for (size_t t = 0; t < nt; t++) {
      const olg_prule_table *tb = t < q->n_tables ? &q->tables[t] : &q->own_table;
      size_t lo = 0, hi = tb->n;
      if (tb->sorted) { /* the first row of nd->op */
        if (!onnx) continue;
        while (lo < hi) {
          size_t mid = lo + (hi - lo) / 2;
          if (strcmp(tb->rules[mid].op, nd->op) < 0) lo = mid + 1;
          else hi = mid;
        }
        hi = tb->n;
      }
      for (size_t i = lo; i < hi; i++) {
        const olg_prule *r = &tb->rules[i];
        if (r->op) {
          int c = strcmp(r->op, nd->op);
          if (tb->sorted && c != 0) break;
          if (c != 0 || !onnx) continue;
          if (st->version < r->since || (r->until && st->version > r->until)) continue;
        }
        st->rule = r;
        if (!violates(st, desc, sizeof desc)) continue;
        bool stop = false;
        OLG_TRY(visit(st, desc, &stop, ud));
        if (stop) return OLG_OK;
        nd = &st->g->nodes[st->node]; /* a visit may have grown the node array */
      }
    }
  }
  return OLG_OK;
}

/* ---- the check ---------------------------------------------------------------------------- */

typedef struct check_state {
  olg_diags *d;
  size_t n;
} check_state;

static olg_status check_visit(olg_prule_site *st, const char *desc, bool *stop, void *ud) {
  (void)stop;
  check_state *cs = ud;
  const olg_node *nd = &st->g->nodes[st->node];
  char msg[1400];
  snprintf(msg, sizeof msg, "rule %s: %s%s%s", st->rule->name, desc,
           st->rule->hint ? "; fix: " : (st->rule->fix || st->rule->user_fix) ? "" : "; no rewrite: ",
           st->rule->hint ? st->rule->hint
                          : (st->rule->fix || st->rule->user_fix) ? "" : "the conversion refuses it");
  cs->n++;
  if (cs->d) /* a violation is never lost silently: no memory to say it fails the check */
    return olg__diags_add_node(cs->d, OLG_ERROR, "OLG-PROFILE-VIOLATION", st->g, nd, st->opset,
                               msg);
  return OLG_OK;
}

static olg_status check_graph(const olg_profile *p, const olg_graph *g, int opset,
                              check_state *cs, int depth) {
  if (depth > OLG_MAX_GRAPH_DEPTH) return OLG_OK; /* the reader bounds nesting already */
  olg_prule_site st;
  memset(&st, 0, sizeof st);
  st.g = g;
  st.opset = opset;
  st.profile = p;
  for (uint32_t i = 0; i < g->n_nodes; i++) {
    const olg_node *nd = &g->nodes[i];
    if (nd->state != OLG_NODE_DONE) continue;
    st.node = (olg_node_id)i;
    OLG_TRY(node_rules(p, &st, check_visit, cs));
    for (uint32_t j = 0; j < nd->n_attrs; j++) {
      const olg_attr *a = &nd->attrs[j];
      if (a->type == OLG_ATTR_GRAPH && a->g) OLG_TRY(check_graph(p, a->g, opset, cs, depth + 1));
      for (size_t k = 0; a->type == OLG_ATTR_GRAPHS && k < a->n; k++)
        if (a->graphs[k]) OLG_TRY(check_graph(p, a->graphs[k], opset, cs, depth + 1));
    }
  }
  return OLG_OK;
}

olg_status olg__profile_check_graph(const olg_profile *p, const olg_graph *g, int opset,
                                    olg_diags *d, size_t *n_violations) {
  check_state cs = {d, 0};
  olg_status s = check_graph(p, g, opset, &cs, 0);
  if (n_violations) *n_violations = cs.n;
  return s;
}

/* Whether a rule of p about op at since-version v refuses what site st found (the op itself,
 * or st->dtype for st->rule's constraint). */
static bool still_refused(const olg_profile *p, const olg_prule_site *st, const char *op, int v) {
  const olg_prule *want = st->rule;
  for (const olg_profile *q = p; q; q = q->base) {
    size_t nt = q->n_tables + (q->n_own ? 1 : 0);
    for (size_t t = 0; t < nt; t++) {
      const olg_prule_table *tb = t < q->n_tables ? &q->tables[t] : &q->own_table;
      for (size_t i = 0; i < tb->n; i++) { /* only at a refusal: a scan is fine */
        const olg_prule *r = &tb->rules[i];
        if (!r->op || strcmp(r->op, op) != 0 || v < r->since || (r->until && v > r->until)) continue;
        if (r->kind == OLG_PRULE_OP) return true;
        if (want->kind == OLG_PRULE_TYPES && r->kind == OLG_PRULE_TYPES && want->tc && r->tc &&
            strcmp(want->tc, r->tc) == 0 && !(r->types >> st->dtype & 1))
          return true;
      }
    }
  }
  return false;
}

/* The lowest opset above st's where the op has a version that p does not refuse for what st
 * found; -1 when none (or for rules other than no-kernel and types). */
static int lowest_opset_that_works(const olg_profile *p, const olg_prule_site *st, const char *op) {
  if (st->rule->kind != OLG_PRULE_OP && st->rule->kind != OLG_PRULE_TYPES) return -1;
  for (int o = st->opset + 1; o <= OLG_LOWER_OPSET_MAX; o++) {
    const olg_schema *s = olg_schema_find("", op, o);
    if (!s || s->deprecated) return -1;
    if (s->since_version == st->version) continue;
    const olg_formal *f = NULL;
    for (int k = 0; st->rule->tc && k < s->n_inputs && !f; k++)
      if (strcmp(s->inputs[k].type_str, st->rule->tc) == 0) f = &s->inputs[k];
    if (st->rule->kind == OLG_PRULE_TYPES && (!f || !olg_schema_formal_allows_dtype(f, st->dtype)))
      continue;
    if (!still_refused(p, st, op, s->since_version)) return o;
  }
  return -1;
}

/* ---- the rewrite -------------------------------------------------------------------------- */

typedef struct rewrite_state {
  size_t n_refused, n_fixed;
} rewrite_state;

/* Room in cx->subst for the values a fix may add. */
static olg_status subst_room(olg_lower *cx) {
  uint32_t need = cx->dst->n_values + OLG_PROFILE_FIX_VALUES;
  if (need <= cx->subst_cap) return OLG_OK;
  uint32_t cap = need + need / 2;
  const olg_allocator *al = &cx->dst_model->alloc;
  olg_value *p = olg__realloc(al, cx->subst, (size_t)cx->subst_cap * sizeof *p, (size_t)cap * sizeof *p);
  if (!p) return olg__err(OLG_ERR_NOMEM, "profile rewrite: out of memory");
  for (uint32_t v = cx->subst_cap; v < cap; v++) p[v] = (olg_value)v;
  cx->subst = p;
  cx->subst_cap = cap;
  return OLG_OK;
}

static olg_status rewrite_visit(olg_prule_site *st, const char *desc, bool *stop, void *ud) {
  rewrite_state *rs = ud;
  olg_lower *cx = st->cx;
  const olg_prule *r = st->rule;
  olg_status s = OLG_ERR_UNSUPPORTED;
  st->msg[0] = 0;
  /* names of emitted nodes derive from the violating node's */
  char name[256];
  snprintf(name, sizeof name, "%s", cx->dst->nodes[st->node].name);
  char op[64];
  snprintf(op, sizeof op, "%s", cx->dst->nodes[st->node].op);
  if (r->fix || r->user_fix) {
    OLG_TRY(subst_room(cx));
    uint32_t n_vals = cx->dst->n_values;
    cx->name_base = olg__strdup(cx->dst_model, name);
    if (!cx->name_base) return OLG_ERR_NOMEM;
    cx->n_emitted = 0;
    cx->n_op_uses = 0;
    if (r->fix) s = r->fix(st);
    else s = r->user_fix(cx, st->node, r->name, r->ud);
    cx->name_base = NULL;
    if (cx->dst->n_values > n_vals + OLG_PROFILE_FIX_VALUES)
      return olg__err(OLG_ERR_LIMIT, "profile rule %s: the rewrite of '%s' added more than %d values",
                      r->name, name, OLG_PROFILE_FIX_VALUES);
    if (s && s != OLG_ERR_UNSUPPORTED) return s;
  }
  char msg[1400];
  if (s == OLG_OK) {
    rs->n_fixed++;
    olg_node *nd = &cx->dst->nodes[st->node];
    bool replaced = nd->state == OLG_NODE_DONE;
    for (uint32_t k = 0; k < nd->n_outputs && replaced; k++)
      replaced = nd->outputs[k] == OLG_NO_VALUE || cx->subst[nd->outputs[k]] != nd->outputs[k];
    if (replaced) nd->state = OLG_NODE_DEAD; /* every output stands for another: it is gone */
    *stop = nd->state != OLG_NODE_DONE;
    if (!cx->report || !cx->diags) return OLG_OK;
    snprintf(msg, sizeof msg, "rule %s: %s; fixed: %s", r->name, desc,
             st->msg[0] ? st->msg : r->hint ? r->hint : "rewritten");
    size_t before = olg_diags_count(cx->diags);
    OLG_TRY(olg_diags_add(cx->diags, OLG_NOTE, "OLG-PROFILE-FIXED", name, "", op, cx->opset, msg));
    olg__diags_set_last_node(cx->diags, before, cx->dst, &cx->dst->nodes[st->node]);
    return OLG_OK;
  }
  rs->n_refused++;
  cx->n_errors++;
  snprintf(msg, sizeof msg, "rule %s of profile '%s': %s; %s%s", r->name, st->profile->name, desc,
           st->msg[0] ? "no exact rewrite: " : "no rewrite for this rule",
           st->msg[0] ? st->msg : "");
  if (cx->diags) {
    size_t before = olg_diags_count(cx->diags);
    OLG_TRY(olg_diags_add(cx->diags, OLG_ERROR, "OLG-PROFILE-REFUSED", name, "", op, cx->opset, msg));
    olg__diags_set_last_node(cx->diags, before, cx->dst, &cx->dst->nodes[st->node]);
    int lo = lowest_opset_that_works(st->profile, st, op);
    if (lo > 0) olg__diags_set_last_min_opset(cx->diags, before, lo);
  }
  return OLG_OK;
}

olg_status olg__profile_rewrite(olg_lower *cx) {
  const olg_profile *p = cx->prof;
  if (!p) return OLG_OK;
  olg_graph *g = cx->dst;
  rewrite_state rs = {0, 0};
  olg_prule_site st;
  memset(&st, 0, sizeof st);
  st.cx = cx;
  st.g = g;
  st.opset = cx->opset;
  st.profile = p;
  /* nodes a fix adds are checked too (a cast it emits must be legal as well); fixes emit legal
   * nodes, so this ends, but a bound keeps a faulty caller-defined fix from looping */
  uint64_t budget = 4 * (uint64_t)g->n_nodes + 4096;
  for (uint32_t i = 0; i < g->n_nodes; i++) {
    if (g->nodes[i].state != OLG_NODE_DONE) continue;
    if (rs.n_fixed > budget)
      return olg__err(OLG_ERR_LIMIT, "profile '%s': the rewrites do not converge (%llu fixes)",
                      p->name, (unsigned long long)rs.n_fixed);
    st.node = (olg_node_id)i;
    OLG_TRY(node_rules(p, &st, rewrite_visit, &rs));
  }
  if (rs.n_refused)
    return olg__err(OLG_ERR_UNSUPPORTED,
                    "profile '%s': %zu node(s) break a rule that has no exact rewrite (see the diagnostics)",
                    p->name, rs.n_refused);
  return OLG_OK;
}

/* ---- the accessors of fixes (profile.h) ---- */

olg_graph *olg__prof_graph(olg_lower *cx) { return cx->dst; }

bool olg__prof_folding(const olg_lower *cx) { return cx->fold; }

olg_status olg__prof_replace(olg_lower *cx, olg_value old, olg_value by) {
  return olg__replace_value(cx, old, by, cx->subst);
}
