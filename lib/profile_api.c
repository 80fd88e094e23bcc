/* onnxlegal — target profiles in the public API (onnxlegal/legalize.h): the built-in ones by
 * name, caller-defined ones (rules on the heap, rewrites as callbacks), and the check of a
 * model against a profile. */
#include <stdlib.h>
#include <string.h>

#include "onnxlegal/check.h"
#include "passes/passes.h"
#include "profile.h"
#include "util.h"

static char *dup_str(const char *s) {
  if (!s) return NULL;
  size_t n = strlen(s) + 1;
  char *p = malloc(n);
  if (p) memcpy(p, s, n);
  return p;
}

olg_status olg__profile_new(olg_profile **out, const char *name, const olg_profile *base,
                            bool builtin_name) {
  if (!out) return olg__err(OLG_ERR_INVALID_ARG, "olg_profile_new: out is NULL");
  *out = NULL;
  if (!name || !*name) return olg__err(OLG_ERR_INVALID_ARG, "olg_profile_new: a profile needs a name");
  if (builtin_name || strcmp(name, "none") == 0)
    return olg__err(OLG_ERR_INVALID_ARG, "olg_profile_new: '%s' is the name of a built-in profile", name);
  if (base && base->magic != OLG_PROFILE_MAGIC)
    return olg__err(OLG_ERR_INVALID_ARG, "olg_profile_new: base is not a profile");
  olg_profile *p = calloc(1, sizeof *p);
  char *nm = dup_str(name);
  if (!p || !nm) {
    free(p);
    free(nm);
    return olg__err(OLG_ERR_NOMEM, "olg_profile_new: out of memory");
  }
  p->name = nm;
  p->title = nm;
  p->base = base;
  p->magic = OLG_PROFILE_MAGIC;
  p->caller_defined = 1;
  *out = p;
  return OLG_OK;
}

/* Caller-defined profiles only: built-in ones are static. */
static bool is_own(const olg_profile *p) {
  return p && p->magic == OLG_PROFILE_MAGIC && p->caller_defined;
}

OLG_API void olg_profile_free(olg_profile *p) {
  if (!is_own(p)) return;
  for (size_t i = 0; i < p->n_own; i++) {
    free((char *)p->own[i].name);
    free((char *)p->own[i].op);
    free((char *)p->own[i].tc);
  }
  free(p->own);
  free((char *)p->name);
  p->magic = 0;
  free(p);
}

OLG_API const char *olg_profile_name(const olg_profile *p) {
  return p && p->magic == OLG_PROFILE_MAGIC ? p->name : NULL;
}

/* Appends a rule (strings copied); the common checks of every add_*_rule. */
static olg_status add_rule(olg_profile *p, const char *fn, const char *rule, const char *op,
                           int since, int until, const olg_prule *tmpl) {
  if (!is_own(p)) return olg__err(OLG_ERR_INVALID_ARG, "%s: not a caller-defined profile", fn);
  if (!rule || !*rule || !op || !*op)
    return olg__err(OLG_ERR_INVALID_ARG, "%s: the rule and the op need names", fn);
  if (since < 1 || (until && until < since) || since > INT16_MAX || until > INT16_MAX)
    return olg__err(OLG_ERR_INVALID_ARG, "%s: rule '%s': versions %d..%d are not a range", fn, rule,
                    since, until);
  if (p->n_own == p->cap_own) {
    size_t cap = p->cap_own ? p->cap_own * 2 : 8;
    olg_prule *n = realloc(p->own, cap * sizeof *n);
    if (!n) return olg__err(OLG_ERR_NOMEM, "%s: out of memory", fn);
    p->own = n;
    p->cap_own = cap;
  }
  olg_prule r = *tmpl;
  r.name = dup_str(rule);
  r.op = dup_str(op);
  r.tc = tmpl->tc ? dup_str(tmpl->tc) : NULL;
  r.since = (int16_t)since;
  r.until = (int16_t)until;
  if (!r.name || !r.op || (tmpl->tc && !r.tc)) {
    free((char *)r.name);
    free((char *)r.op);
    free((char *)r.tc);
    return olg__err(OLG_ERR_NOMEM, "%s: out of memory", fn);
  }
  /* a rewrite set before for this rule name applies to the new rule too */
  for (size_t i = 0; i < p->n_own; i++)
    if (strcmp(p->own[i].name, rule) == 0 && p->own[i].user_fix) {
      r.user_fix = p->own[i].user_fix;
      r.ud = p->own[i].ud;
    }
  p->own[p->n_own++] = r;
  p->own_table.rules = p->own;
  p->own_table.n = p->n_own;
  p->own_table.sorted = false;
  p->own_table.source = "caller-defined";
  return OLG_OK;
}

OLG_API olg_status olg_profile_add_op_rule(olg_profile *p, const char *rule, const char *op,
                                           int since, int until) {
  olg_prule t = {.kind = OLG_PRULE_OP};
  return add_rule(p, "olg_profile_add_op_rule", rule, op, since, until, &t);
}

OLG_API olg_status olg_profile_add_type_rule(olg_profile *p, const char *rule, const char *op,
                                             int since, int until, const char *constraint,
                                             int slot, const olg_dtype *types, size_t n_types) {
  olg_prule t = {.kind = OLG_PRULE_TYPES, .tc = constraint && *constraint ? constraint : NULL,
                 .slot = slot};
  if (n_types && !types)
    return olg__err(OLG_ERR_INVALID_ARG, "olg_profile_add_type_rule: types is NULL");
  for (size_t i = 0; i < n_types; i++) {
    if (types[i] <= OLG_UNDEFINED || types[i] > OLG_DTYPE_MAX)
      return olg__err(OLG_ERR_INVALID_ARG, "olg_profile_add_type_rule: rule '%s': %d is not a dtype",
                      rule ? rule : "?", (int)types[i]);
    t.types |= 1u << types[i];
  }
  return add_rule(p, "olg_profile_add_type_rule", rule, op, since, until, &t);
}

OLG_API olg_status olg_profile_add_known_input_rule(olg_profile *p, const char *rule,
                                                    const char *op, int since, int until,
                                                    int input) {
  if (input < 0)
    return olg__err(OLG_ERR_INVALID_ARG, "olg_profile_add_known_input_rule: input %d is not an input", input);
  olg_prule t = {.kind = OLG_PRULE_KNOWN, .slot = input};
  return add_rule(p, "olg_profile_add_known_input_rule", rule, op, since, until, &t);
}

OLG_API olg_status olg_profile_add_rank_rule(olg_profile *p, const char *rule, const char *op,
                                             int since, int until, int slot, int min_rank,
                                             int max_rank) {
  if (min_rank < 0 || max_rank < min_rank)
    return olg__err(OLG_ERR_INVALID_ARG, "olg_profile_add_rank_rule: ranks %d..%d are not a range",
                    min_rank, max_rank);
  olg_prule t = {.kind = OLG_PRULE_RANK, .slot = slot, .lo = min_rank, .hi = max_rank};
  return add_rule(p, "olg_profile_add_rank_rule", rule, op, since, until, &t);
}

OLG_API olg_status olg_profile_set_rewrite(olg_profile *p, const char *rule,
                                           olg_profile_rewrite_fn fn, void *ud) {
  if (!is_own(p)) return olg__err(OLG_ERR_INVALID_ARG, "olg_profile_set_rewrite: not a caller-defined profile");
  if (!rule) return olg__err(OLG_ERR_INVALID_ARG, "olg_profile_set_rewrite: rule is NULL");
  size_t n = 0;
  for (size_t i = 0; i < p->n_own; i++)
    if (strcmp(p->own[i].name, rule) == 0) {
      p->own[i].user_fix = fn;
      p->own[i].ud = ud;
      n++;
    }
  if (!n) return olg__err(OLG_ERR_NOT_FOUND, "olg_profile_set_rewrite: profile '%s' has no rule '%s'", p->name, rule);
  return OLG_OK;
}

OLG_API olg_status olg_profile_check(olg_model *m, const olg_profile *p, olg_diags *diags) {
  if (!m || !p || p->magic != OLG_PROFILE_MAGIC)
    return olg__err(OLG_ERR_INVALID_ARG, "olg_profile_check: a model and a profile are required");
  olg_status s = olg_infer_shapes(m, NULL, NULL); /* the rules need dtypes; findings are olg_check's */
  if (s && s != OLG_ERR_INVALID_MODEL && s != OLG_ERR_UNSUPPORTED) return s;
  int64_t opset = olg_model_opset(m, "");
  size_t n = 0;
  s = olg__profile_check_graph(p, m->graph, (int)(opset > 0 ? opset : 1), diags, &n);
  if (s) return s;
  if (n) return olg__err(OLG_ERR_INVALID_MODEL, "profile '%s': %zu violation(s)", p->name, n);
  return OLG_OK;
}

OLG_API olg_status olg_legalize_options_set_profile_object(olg_legalize_options *opts,
                                                           const olg_profile *p) {
  if (!opts) return olg__err(OLG_ERR_INVALID_ARG, "olg_legalize_options_set_profile_object: options are NULL");
  if (opts->size < offsetof(olg_legalize_options, profile_object) + sizeof opts->profile_object)
    return olg__err(OLG_ERR_INVALID_ARG, "olg_legalize_options_set_profile_object: the options struct predates profile objects");
  if (p && p->magic != OLG_PROFILE_MAGIC)
    return olg__err(OLG_ERR_INVALID_ARG, "olg_legalize_options_set_profile_object: not a profile");
  opts->profile_object = p;
  return OLG_OK;
}

OLG_API olg_status olg_lower_replace_value(olg_lower *cx, olg_value old, olg_value by) {
  if (!cx || !cx->subst)
    return olg__err(OLG_ERR_INVALID_ARG, "olg_lower_replace_value: only during a profile rewrite");
  olg_graph *g = cx->dst;
  if (old < 0 || by < 0 || (uint32_t)old >= g->n_values || (uint32_t)by >= g->n_values ||
      (uint32_t)by >= cx->subst_cap)
    return olg__err(OLG_ERR_INVALID_ARG, "olg_lower_replace_value: no such values (%d, %d)", (int)old, (int)by);
  return olg__replace_value(cx, old, by, cx->subst);
}
