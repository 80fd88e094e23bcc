/* onnxlegal — model-local functions (FunctionProto): the API that lists and adds them. Inlining
 * is in function_inline.c (a configuration without the checker leaves it out: onnxlegal/config.h). */
#include <stdio.h>
#include <string.h>

#include "graph_impl.h"

/* ---------------------------------------------------------------------------------------- */
/* The API */

OLG_API size_t olg_model_function_count(const olg_model *m) { return m ? m->n_functions : 0; }

OLG_API olg_status olg_model_function_at(const olg_model *m, size_t i, const char **domain,
                                         const char **name, olg_graph **body) {
  if (!m || i >= m->n_functions)
    return olg__err(OLG_ERR_INVALID_ARG, "olg_model_function_at: index %zu is out of range (%u functions)",
                    i, m ? m->n_functions : 0);
  const olg_function *fn = &m->functions[i];
  if (domain) *domain = fn->domain;
  if (name) *name = fn->name;
  if (body) *body = fn->body;
  return OLG_OK;
}

OLG_API olg_status olg_graph_add_formal_input(olg_graph *body, olg_value v) {
  olg_value_rec *r = body ? olg__value(body, v) : NULL;
  if (!r) return body ? OLG_ERR_INVALID_ARG : olg__err(OLG_ERR_INVALID_ARG, "olg_graph_add_formal_input: body is NULL");
  if (r->flags & (OLG_VF_INPUT | OLG_VF_INITIALIZER) || r->producer >= 0)
    return olg__err(OLG_ERR_DUPLICATE, "'%s' is already an input, an initializer or a node's output", r->name);
  olg_status s = olg__idvec_push(body->model, &body->inputs, v);
  if (s) return s;
  r->flags |= OLG_VF_INPUT;
  return OLG_OK;
}

const olg_function *olg__find_function(const olg_model *m, const char *domain, const char *name,
                                      const char *overload) {
  for (uint32_t i = 0; i < m->n_functions; i++) {
    const olg_function *fn = &m->functions[i];
    if (!strcmp(fn->domain, domain) && !strcmp(fn->name, name) &&
        !strcmp(fn->overload ? fn->overload : "", overload ? overload : ""))
      return fn;
  }
  return NULL;
}

OLG_API olg_status olg_model_add_function(olg_model *m, const char *domain, const char *name,
                                          olg_graph *body, const char *const *attributes,
                                          size_t n_attributes) {
  if (!m || !domain || !name || !*name || !body || (n_attributes && !attributes))
    return olg__err(OLG_ERR_INVALID_ARG, "olg_model_add_function: a model, a domain, a name and a body are required");
  if (body->model != m || body == m->graph || body->attached)
    return olg__err(OLG_ERR_INVALID_ARG, "olg_model_add_function: the body must be an unattached subgraph of the model (olg_model_new_subgraph)");
  if (olg__find_function(m, domain, name, NULL))
    return olg__err(OLG_ERR_DUPLICATE, "olg_model_add_function: the model has a function %s::%s already",
                    domain, name);
  for (uint32_t i = 0; i < m->n_functions; i++)
    if (m->functions[i].body == body)
      return olg__err(OLG_ERR_INVALID_ARG, "olg_model_add_function: the body is function %s::%s's already",
                      m->functions[i].domain, m->functions[i].name);
  if (n_attributes > UINT32_MAX / 2) return olg__err(OLG_ERR_LIMIT, "olg_model_add_function: too many attributes");
  olg_function fn = {0};
  fn.domain = olg__strdup(m, domain);
  fn.name = olg__strdup(m, name);
  fn.body = body;
  fn.n_attr_names = (uint32_t)n_attributes;
  fn.attr_names = n_attributes ? olg__arena_alloc(m, n_attributes * sizeof *fn.attr_names) : NULL;
  /* the body is written at the model's opsets: they are its imports */
  fn.n_opsets = m->n_opsets;
  fn.opsets = m->n_opsets ? olg__arena_dup(m, m->opsets, m->n_opsets * sizeof *m->opsets) : NULL;
  if (!fn.domain || !fn.name || (n_attributes && !fn.attr_names) || (m->n_opsets && !fn.opsets))
    return OLG_ERR_NOMEM;
  for (size_t i = 0; i < n_attributes; i++)
    if (!attributes[i] || !(fn.attr_names[i] = olg__strdup(m, attributes[i])))
      return attributes[i] ? OLG_ERR_NOMEM
                           : olg__err(OLG_ERR_INVALID_ARG, "olg_model_add_function: attribute name %zu is NULL", i);
  olg_status s = olg__grow(&m->alloc, (void **)&m->functions, &m->cap_functions,
                           (size_t)m->n_functions + 1, sizeof *m->functions);
  if (s) return s;
  if (!*body->name && (s = olg_graph_set_name(body, name))) return s;
  m->functions[m->n_functions++] = fn;
  return OLG_OK;
}
