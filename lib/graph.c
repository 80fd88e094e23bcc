/* onnxlegal — models, graphs, values and nodes: the IR and its building API. */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "graph_impl.h"
#include "lower.h"
#include "onnxlegal/config.h"

/* ---------------------------------------------------------------------------------------- */
/* Arena strings */

void *olg__arena_alloc(olg_model *m, size_t n) {
  void *p = olg_arena_alloc(&m->arena, n);
  if (!p) olg__err(OLG_ERR_NOMEM, "out of memory (%zu bytes)", n);
  return p;
}

char *olg__arena_alloc_str(olg_model *m, size_t n) {
  char *p = olg_arena_alloc_str(&m->arena, n);
  if (!p) olg__err(OLG_ERR_NOMEM, "out of memory (%zu bytes)", n);
  return p;
}

void *olg__arena_dup(olg_model *m, const void *p, size_t n) {
  void *q = olg__arena_alloc(m, n);
  if (q && n) memcpy(q, p, n);
  return q;
}

const char *olg__strndup(olg_model *m, const char *s, size_t n) {
  if (!s || n == SIZE_MAX) return NULL;
  char *p = olg__arena_alloc_str(m, n + 1);
  if (!p) return NULL;
  memcpy(p, s, n);
  p[n] = 0;
  return p;
}

const char *olg__strdup(olg_model *m, const char *s) {
  return s ? olg__strndup(m, s, strlen(s)) : NULL;
}

/* ---------------------------------------------------------------------------------------- */
/* Models */

OLG_API void olg_model_options_init(olg_model_options *o) {
  if (o) *o = (olg_model_options)OLG_MODEL_OPTIONS_INIT;
}

static olg_status graph_create(olg_model *m, olg_graph **out) {
  olg_status s = olg__grow(&m->alloc, (void **)&m->graphs, &m->cap_graphs, (size_t)m->n_graphs + 1,
                           sizeof *m->graphs);
  if (s) return s;
  olg_graph *g = olg__calloc(&m->alloc, 1, sizeof *g);
  if (!g) return OLG_ERR_NOMEM;
  g->model = m;
  g->name = "";
  m->graphs[m->n_graphs++] = g;
  *out = g;
  return OLG_OK;
}

static void graph_destroy(olg_model *m, olg_graph *g) {
  const olg_allocator *a = &m->alloc;
  olg__free(a, g->values, (size_t)g->cap_values * sizeof *g->values);
  olg__free(a, g->nodes, (size_t)g->cap_nodes * sizeof *g->nodes);
  olg__free(a, g->inputs.p, (size_t)g->inputs.cap * sizeof(int32_t));
  olg__free(a, g->outputs.p, (size_t)g->outputs.cap * sizeof(int32_t));
  olg__free(a, g->value_info.p, (size_t)g->value_info.cap * sizeof(int32_t));
  olg__free(a, g->dups.p, (size_t)g->dups.cap * sizeof(int32_t));
  olg__free(a, g->inits, (size_t)g->cap_inits * sizeof *g->inits);
  olg__g_valmap_free(a, &g->names);
  olg__g_valmap_free(a, &g->kept);
  olg__free(a, g->auto_names.p, (size_t)g->auto_names.cap * sizeof(int32_t));
  olg__g_namemap_free(a, &g->node_names);
  olg__free(a, g->numbered_node_names, (size_t)g->cap_numbered_node_names * sizeof(char *));
#ifndef OLG_CONFIG_NO_LEGALIZE /* onnxlegal/config.h: no lowering, no constants */
  olg__lower_consts_free(g); /* a lowering that stopped half-way */
#endif
  olg__free(a, g, sizeof *g);
}

OLG_API olg_status olg_model_new(olg_model **out, const olg_model_options *opts) {
  if (!out) return olg__err(OLG_ERR_INVALID_ARG, "olg_model_new: out is NULL");
  *out = NULL;
  if (opts && opts->size < sizeof(size_t))
    return olg__err(OLG_ERR_INVALID_ARG, "olg_model_new: options.size is not set");
  olg_allocator a;
  olg_status s = olg__alloc_init(&a, opts ? opts->allocator : NULL);
  if (s) return s;
  olg_model *m = olg__calloc(&a, 1, sizeof *m);
  if (!m) return OLG_ERR_NOMEM;
  m->alloc = a;
  olg_arena_init(&m->arena, &m->alloc);
  m->ir_version = opts && opts->ir_version ? opts->ir_version : OLG_IR_VERSION_LATEST;
  m->ir_version_auto = !(opts && opts->ir_version);
  m->producer_name = m->producer_version = m->domain = m->doc_string = "";
  s = graph_create(m, &m->graph);
  if (s) {
    olg_model_free(m);
    return s;
  }
  *out = m;
  return OLG_OK;
}

OLG_API void olg_model_free(olg_model *m) {
  if (!m) return;
  for (uint32_t i = 0; i < m->n_owned; i++) {
    olg_tensor *t = m->owned[i];
    if (t->owner == OLG_OWNER_RELEASE && t->release)
      t->release(t->release_ud, t->data, t->nbytes);
    else if (t->owner == OLG_OWNER_ALLOCATED)
      olg__free(&m->alloc, (void *)t->data, t->nbytes);
  }
  olg__free(&m->alloc, m->owned, (size_t)m->cap_owned * sizeof *m->owned);
  for (olg_mapping *mp = m->mappings; mp; mp = mp->next) munmap(mp->addr, mp->len);
  for (uint32_t i = 0; i < m->n_graphs; i++) graph_destroy(m, m->graphs[i]);
  olg__free(&m->alloc, m->graphs, (size_t)m->cap_graphs * sizeof *m->graphs);
  olg__free(&m->alloc, m->opsets, (size_t)m->cap_opsets * sizeof *m->opsets);
  olg__free(&m->alloc, m->metadata, (size_t)m->cap_metadata * sizeof *m->metadata);
  olg__free(&m->alloc, m->functions, (size_t)m->cap_functions * sizeof *m->functions);
  olg_model_free(m->keep);
  olg_arena_free(&m->arena); /* after the mappings list, which lives in it */
  olg_allocator a = m->alloc;
  olg__free(&a, m, sizeof *m);
}

olg_status olg__model_own_tensor(olg_model *m, olg_tensor *t) {
  olg_status s = olg__grow(&m->alloc, (void **)&m->owned, &m->cap_owned, (size_t)m->n_owned + 1,
                           sizeof *m->owned);
  if (s) return s;
  m->owned[m->n_owned++] = t;
  return OLG_OK;
}

OLG_API olg_graph *olg_model_graph(olg_model *m) { return m ? m->graph : NULL; }
OLG_API const olg_graph *olg_model_graph_const(const olg_model *m) { return m ? m->graph : NULL; }

/* The IR version released with opset v of ai.onnx.ml: here, beside the model's header, so that
 * a configuration without the checker (onnxlegal/config.h) keeps it. */
int64_t olg__ir_for_ml_opset(int64_t v) {
  if (v <= 1) return 3;
  if (v == 2) return 6;
  if (v == 3) return 8;
  if (v == 4) return 9;
  return 10;
}

OLG_API olg_status olg_model_set_ir_version(olg_model *m, int64_t v) {
  if (!m || v < 1) return olg__err(OLG_ERR_INVALID_ARG, "olg_model_set_ir_version: bad argument");
  m->ir_version = v;
  m->ir_version_auto = false;
  return OLG_OK;
}
OLG_API int64_t olg_model_ir_version(const olg_model *m) { return m ? m->ir_version : 0; }

static const char *norm_domain(const char *d) {
  return !d || strcmp(d, "ai.onnx") == 0 ? "" : d;
}

OLG_API olg_status olg_model_set_opset(olg_model *m, const char *domain, int64_t version) {
  if (!m || version < 1) return olg__err(OLG_ERR_INVALID_ARG, "olg_model_set_opset: bad argument");
  const char *d = norm_domain(domain);
  if (m->ir_version_auto && !*d && olg_ir_version_for_opset(version) > 0)
    m->ir_version = olg_ir_version_for_opset(version);
  /* the IR must be as new as every imported opset needs (ai.onnx.ml's too; the checker
     refuses an older one) */
  int64_t ml = strcmp(d, "ai.onnx.ml") == 0 ? version : olg_model_opset(m, "ai.onnx.ml");
  if (m->ir_version_auto && ml > 0 && olg__ir_for_ml_opset(ml) > m->ir_version)
    m->ir_version = olg__ir_for_ml_opset(ml);
  for (uint32_t i = 0; i < m->n_opsets; i++) {
    if (strcmp(norm_domain(m->opsets[i].domain), d) == 0) {
      m->opsets[i].version = version;
      return OLG_OK;
    }
  }
  olg_status s = olg__grow(&m->alloc, (void **)&m->opsets, &m->cap_opsets, (size_t)m->n_opsets + 1,
                           sizeof *m->opsets);
  if (s) return s;
  const char *dd = olg__strdup(m, domain ? domain : "");
  if (!dd) return OLG_ERR_NOMEM;
  m->opsets[m->n_opsets++] = (olg_opset){dd, version};
  return OLG_OK;
}

OLG_API int64_t olg_model_opset(const olg_model *m, const char *domain) {
  if (!m) return -1;
  const char *d = norm_domain(domain);
  for (uint32_t i = 0; i < m->n_opsets; i++)
    if (strcmp(norm_domain(m->opsets[i].domain), d) == 0) return m->opsets[i].version;
  return -1;
}

OLG_API size_t olg_model_opset_count(const olg_model *m) { return m ? m->n_opsets : 0; }

OLG_API olg_status olg_model_opset_at(const olg_model *m, size_t i, const char **domain,
                                      int64_t *version) {
  if (!m || i >= m->n_opsets) return olg__err(OLG_ERR_RANGE, "opset index %zu out of range", i);
  if (domain) *domain = m->opsets[i].domain;
  if (version) *version = m->opsets[i].version;
  return OLG_OK;
}

static const char **model_field(olg_model *m, olg_model_field f) {
  switch (f) {
  case OLG_MODEL_PRODUCER_NAME: return &m->producer_name;
  case OLG_MODEL_PRODUCER_VERSION: return &m->producer_version;
  case OLG_MODEL_DOMAIN: return &m->domain;
  case OLG_MODEL_DOC_STRING: return &m->doc_string;
  default: return NULL;
  }
}

OLG_API olg_status olg_model_set_string(olg_model *m, olg_model_field f, const char *s) {
  if (!m) return olg__err(OLG_ERR_INVALID_ARG, "olg_model_set_string: model is NULL");
  const char **slot = model_field(m, f);
  if (!slot) return olg__err(OLG_ERR_INVALID_ARG, "olg_model_set_string: unknown field %d", (int)f);
  const char *p = olg__strdup(m, s ? s : "");
  if (!p) return OLG_ERR_NOMEM;
  *slot = p;
  if (f == OLG_MODEL_DOC_STRING) m->doc_len = 0;
  return OLG_OK;
}

OLG_API const char *olg_model_string(const olg_model *m, olg_model_field f) {
  if (!m) return "";
  const char **slot = model_field((olg_model *)m, f);
  return slot && *slot ? *slot : "";
}

OLG_API olg_status olg_model_set_model_version(olg_model *m, int64_t v) {
  if (!m) return olg__err(OLG_ERR_INVALID_ARG, "olg_model_set_model_version: model is NULL");
  m->model_version = v;
  m->has_model_version = true;
  return OLG_OK;
}
OLG_API int64_t olg_model_model_version(const olg_model *m) { return m ? m->model_version : 0; }

OLG_API olg_status olg_model_set_metadata(olg_model *m, const char *key, const char *value) {
  if (!m || !key || !value) return olg__err(OLG_ERR_INVALID_ARG, "olg_model_set_metadata: NULL argument");
  const char *v = olg__strdup(m, value);
  if (!v) return OLG_ERR_NOMEM;
  for (uint32_t i = 0; i < m->n_metadata; i++) {
    if (strcmp(m->metadata[i].key, key) == 0) {
      m->metadata[i].value = v;
      return OLG_OK;
    }
  }
  const char *k = olg__strdup(m, key);
  if (!k) return OLG_ERR_NOMEM;
  olg_status s = olg__grow(&m->alloc, (void **)&m->metadata, &m->cap_metadata,
                           (size_t)m->n_metadata + 1, sizeof *m->metadata);
  if (s) return s;
  m->metadata[m->n_metadata++] = (olg_kv){k, v};
  return OLG_OK;
}

OLG_API size_t olg_model_metadata_count(const olg_model *m) { return m ? m->n_metadata : 0; }

OLG_API olg_status olg_model_metadata_at(const olg_model *m, size_t i, const char **key,
                                         const char **value) {
  if (!m || i >= m->n_metadata) return olg__err(OLG_ERR_RANGE, "metadata index %zu out of range", i);
  if (key) *key = m->metadata[i].key;
  if (value) *value = m->metadata[i].value;
  return OLG_OK;
}

/* ---------------------------------------------------------------------------------------- */
/* Graphs */

OLG_API olg_status olg_model_new_subgraph(olg_model *m, olg_graph **out) {
  if (!m || !out) return olg__err(OLG_ERR_INVALID_ARG, "olg_model_new_subgraph: NULL argument");
  return graph_create(m, out);
}

OLG_API olg_model *olg_graph_model(olg_graph *g) { return g ? g->model : NULL; }

OLG_API olg_status olg_graph_set_name(olg_graph *g, const char *name) {
  if (!g) return olg__err(OLG_ERR_INVALID_ARG, "olg_graph_set_name: graph is NULL");
  const char *p = olg__strdup(g->model, name ? name : "");
  if (!p) return OLG_ERR_NOMEM;
  g->name = p;
  return OLG_OK;
}
OLG_API const char *olg_graph_name(const olg_graph *g) { return g && g->name ? g->name : ""; }

OLG_API olg_status olg_graph_set_doc_string(olg_graph *g, const char *doc) {
  if (!g) return olg__err(OLG_ERR_INVALID_ARG, "olg_graph_set_doc_string: graph is NULL");
  const char *p = olg__strdup(g->model, doc);
  if (doc && !p) return OLG_ERR_NOMEM;
  g->doc_string = p;
  return OLG_OK;
}
OLG_API const char *olg_graph_doc_string(const olg_graph *g) {
  return g && g->doc_string ? g->doc_string : "";
}

olg_status olg__idvec_push(olg_model *m, olg_idvec *v, int32_t id) {
  olg_status s = olg__grow(&m->alloc, (void **)&v->p, &v->cap, (size_t)v->n + 1, sizeof *v->p);
  if (s) return s;
  v->p[v->n++] = id;
  return OLG_OK;
}

olg_value_rec *olg__value(const olg_graph *g, olg_value v) {
  if (!g || v < 0 || (uint32_t)v >= g->n_values) {
    olg__err(OLG_ERR_INVALID_ARG, "no value with id %d in graph '%s'", (int)v, g ? g->name : "?");
    return NULL;
  }
  return &g->values[v];
}

olg_node *olg__node(const olg_graph *g, olg_node_id n) {
  if (!g || n < 0 || (uint32_t)n >= g->n_nodes) {
    olg__err(OLG_ERR_INVALID_ARG, "no node with id %d in graph '%s'", (int)n, g ? g->name : "?");
    return NULL;
  }
  return &g->nodes[n];
}

olg_value olg__g_auto_lookup(const olg_graph *g, const char *p, size_t n) {
  uint32_t k;
  if (!g->auto_names.n || !olg__g_name_number(p, n, &k) || k >= g->auto_names.n) return -1;
  olg_value v = g->auto_names.p[k];
  if (v < 0) return -1;
  const char *nm = g->values[v].name;
  return memcmp(nm, p, n) == 0 && !nm[n] ? v : -1;
}

olg_value olg__graph_lookup_scan(const olg_graph *g, const char *p, size_t n) {
  if (!n) return -1; /* the map holds no empty name */
  for (uint32_t v = 0; v < g->n_values; v++) {
    const olg_value_rec *r = &g->values[v];
    if (!(r->flags & OLG_VF_DUPLICATE) && strncmp(r->name, p, n) == 0 && !r->name[n]) return (olg_value)v;
  }
  return -1;
}

olg_value olg__graph_lookup(const olg_graph *g, const char *name) {
  size_t n = SIZE_MAX;
  uint32_t h = olg__name_hash(name, &n);
  return olg__graph_lookup_h(g, name, n, h);
}

olg_value olg__graph_lookup_h(const olg_graph *g, const char *p, size_t n, uint32_t h) {
  if (g->names_dropped) return olg__graph_lookup_scan(g, p, n);
  olg_value v = olg__g_valmap_get_h(&g->names, g->values, p, n, h);
  if (v < 0 && g->kept.cap) v = olg__g_valmap_get_h(&g->kept, g->values, p, n, h);
  return v >= 0 ? v : olg__g_auto_lookup(g, p, n);
}

void olg__g_forget_auto_name(olg_graph *g, olg_value_rec *r) {
  uint32_t k;
  if (olg__g_name_number(r->name, strlen(r->name), &k) && k < g->auto_names.n)
    g->auto_names.p[k] = -1;
  r->flags &= ~(uint32_t)OLG_VF_AUTO_NAME;
}

#if !defined(OLG_CONFIG_NO_READER) || !defined(OLG_CONFIG_NO_LEGALIZE) /* they know the counts */
olg_status olg__graph_reserve(olg_graph *g, uint32_t n_values, uint32_t n_named, uint32_t n_nodes,
                              uint32_t n_named_nodes) {
  const olg_allocator *a = &g->model->alloc;
  if (n_values > UINT32_MAX / 2 || n_nodes > UINT32_MAX / 2)
    return olg__err(OLG_ERR_LIMIT, "too many elements");
  olg_status s = OLG_OK;
  if (n_values > g->cap_values) { /* exactly: olg__grow's power of two may double it */
    void *p = olg__realloc(a, g->values, (size_t)g->cap_values * sizeof *g->values,
                           (size_t)n_values * sizeof *g->values);
    if (!p) return OLG_ERR_NOMEM;
    olg__prefault(a, p, (size_t)g->cap_values * sizeof *g->values, (size_t)n_values * sizeof *g->values);
    g->values = p;
    g->cap_values = n_values;
  }
  if (n_nodes > g->cap_nodes) {
    void *p = olg__realloc(a, g->nodes, (size_t)g->cap_nodes * sizeof *g->nodes,
                           (size_t)n_nodes * sizeof *g->nodes);
    if (!p) return OLG_ERR_NOMEM;
    olg__prefault(a, p, (size_t)g->cap_nodes * sizeof *g->nodes, (size_t)n_nodes * sizeof *g->nodes);
    g->nodes = p;
    g->cap_nodes = n_nodes;
  }
  if (n_named) s = olg__g_valmap_reserve(a, &g->names, n_named);
  if (!s && n_named_nodes) s = olg__g_namemap_reserve(a, &g->node_names, n_named_nodes);
  return s;
}
#endif

#ifndef OLG_CONFIG_NO_LEGALIZE /* the lowering's: the minimal configuration's 64 KiB */
void olg__graph_drop_names(olg_graph *g) {
  olg__g_valmap_free(&g->model->alloc, &g->names);
  olg__g_valmap_free(&g->model->alloc, &g->kept);
  g->names_dropped = true;
}

olg_status olg__graph_reserve_like(olg_graph *g, const olg_graph *src) {
  if (src->n_values > UINT32_MAX / 2 || src->n_nodes > UINT32_MAX / 2)
    return olg__err(OLG_ERR_LIMIT, "too many elements");
  return olg__graph_reserve(g, src->n_values + 64, 0, src->n_nodes + 64, src->node_names.n);
}
#endif

static inline olg_status value_append(olg_graph *g, const char *nm, bool dup, olg_value *out);

/* "<base>_<k>" in the arena for the next k (next_auto), its length and hash. */
static char *auto_name(olg_graph *g, const char *base, size_t bl, size_t *n, uint32_t *h) {
  /* the number two digits at a time ("%llu"): one per emitted value, where the digit loop was
     a fifth of the call */
  static const char pairs[] = "0001020304050607080910111213141516171819"
                              "2021222324252627282930313233343536373839"
                              "4041424344454647484950515253545556575859"
                              "6061626364656667686970717273747576777879"
                              "8081828384858687888990919293949596979899";
  char d[20];
  int k = 20;
  uint64_t v = g->next_auto++;
  while (v >= 100) {
    unsigned q = (unsigned)(v % 100);
    v /= 100;
    d[--k] = pairs[2 * q + 1], d[--k] = pairs[2 * q];
  }
  if (v >= 10) d[--k] = pairs[2 * v + 1], d[--k] = pairs[2 * v];
  else d[--k] = (char)('0' + v);
  size_t dl = (size_t)(20 - k);
  char *p = olg__arena_alloc_str(g->model, bl + dl + 2);
  if (!p) return NULL;
  memcpy(p, base, bl);
  p[bl] = '_';
  memcpy(p + bl + 1, d + k, dl);
  p[bl + 1 + dl] = 0;
  *n = bl + 1 + dl;
  *h = olg__name_hash(p, &(size_t){*n});
  return p;
}

olg_status olg__graph_add_value_auto(olg_graph *g, const char *base, olg_value *out) {
  olg_model *m = g->model;
  if (!base || !*base) base = "v";
  size_t bl = strlen(base);
  olg_status s; /* (the values' room: value_append's, which is undone on failure) */
  for (;;) {
    size_t n;
    uint32_t h;
    uint64_t k = g->next_auto;
    char *p = auto_name(g, base, bl, &n, &h);
    if (!p) return OLG_ERR_NOMEM;
    if (olg__g_valmap_get_h(&g->names, g->values, p, n, h) >= 0) continue; /* a name given elsewhere */
    if ((g->kept_k[k / 64 % 8] >> (k % 64) & 1) && olg__g_valmap_get_h(&g->kept, g->values, p, n, h) >= 0)
      continue; /* a source's name */
    if (k >= INT32_MAX) return olg__err(OLG_ERR_LIMIT, "too many generated names");
    while (g->auto_names.n < k)
      if ((s = olg__idvec_push(m, &g->auto_names, -1))) return s;
    if ((s = olg__idvec_push(m, &g->auto_names, (int32_t)g->n_values))) return s;
    if ((s = value_append(g, p, false, out))) {
      g->auto_names.n--;
      return s;
    }
    g->values[*out].flags |= OLG_VF_AUTO_NAME;
    return OLG_OK;
  }
}

#ifndef OLG_CONFIG_NO_CHECK /* the checker's and the lowering's */
bool olg__dup_is_input_default(const olg_value_rec *first, const olg_value_rec *second) {
  if (!first || !second || first->producer >= 0 || second->producer >= 0) return false;
  /* input only, or initializer only: a record that is both (the reader merged the pair) already
     holds the default, so a further initializer is a second definition */
  uint32_t io = OLG_VF_INPUT | OLG_VF_INITIALIZER;
  uint32_t f = first->flags & io, s = second->flags & io;
  return (f == OLG_VF_INPUT && s == OLG_VF_INITIALIZER) ||
         (f == OLG_VF_INITIALIZER && s == OLG_VF_INPUT);
}
#endif

static inline olg_status value_append(olg_graph *g, const char *nm, bool dup, olg_value *out) {
  olg_model *m = g->model;
  olg_status s = olg__grow(&m->alloc, (void **)&g->values, &g->cap_values, (size_t)g->n_values + 1,
                           sizeof *g->values);
  if (s) return s;
  olg_value_rec *r = &g->values[g->n_values];
  memset(r, 0, sizeof *r);
  r->name = nm;
  r->producer = -1;
  r->init = -1;
  r->type.rank = OLG_RANK_UNKNOWN;
  r->flags = dup ? OLG_VF_DUPLICATE : 0;
  *out = (olg_value)g->n_values++;
  return OLG_OK;
}

#ifndef OLG_CONFIG_NO_READER /* the reader's alone: the minimal configuration's 64 KiB */
olg_status olg__graph_add_value_new(olg_graph *g, const char *p, size_t n, uint32_t h,
                                    olg_value *out) {
  olg_model *m = g->model;
  const char *nm = olg__strndup(m, p, n);
  if (!nm) return OLG_ERR_NOMEM;
  /* the record first: the map then never names a value that is not there */
  olg_status s = olg__grow(&m->alloc, (void **)&g->values, &g->cap_values, (size_t)g->n_values + 1,
                           sizeof *g->values);
  /* the slot names the record that value_append fills next: a put reads no name */
  if (!s && n) s = olg__g_valmap_put_h(&m->alloc, &g->names, h, (olg_value)g->n_values);
  return s ? s : value_append(g, nm, false, out);
}

/* olg__strndup with room in the arena's current chunk taken inline: a reader's copy of each
 * value's name took four calls to the bump. */
static inline const char *name_dup(olg_model *m, const char *p, size_t n) {
  char *q = n < 4096 ? olg_arena_take(&m->arena, n + 1, 1) : NULL;
  if (!q) return olg__strndup(m, p, n);
  memcpy(q, p, n);
  q[n] = 0;
  return q;
}

olg_status olg__graph_get_or_add_value(olg_graph *g, const char *p, size_t n, uint32_t h,
                                       olg_value *out, bool *added) {
  *added = false;
  if (!n || g->names_dropped || g->auto_names.n || g->kept.cap) { /* more than the map's */
    if ((*out = olg__graph_lookup_h(g, p, n, h)) >= 0) return OLG_OK;
    *added = true;
    return olg__graph_add_value_new(g, p, n, h, out);
  }
  olg_model *m = g->model;
  olg_value id = (olg_value)g->n_values;
  olg_status s;
  uint32_t at = 0;
  olg_value v;
  if ((g->names.n + 1) * 2 <= g->names.cap && g->n_values < g->cap_values) {
    /* room in the map and the records (a reader's every value): the probe inline, the record
       before the slot (nothing to take back) */
    if ((v = olg__g_valmap_probe(&g->names, g->values, p, n, h, &at)) >= 0) return *out = v, OLG_OK;
    const char *nm = name_dup(m, p, n);
    if (!nm || (s = value_append(g, nm, false, out))) return nm ? s : OLG_ERR_NOMEM;
    g->names.slots[at] = (olg_val_slot){h, (uint32_t)id + 1};
    g->names.n++;
    return *added = true, OLG_OK;
  }
  /* the slot names the record value_append fills next; it leaves the map if that fails */
  v = olg__g_valmap_get_or_put(&m->alloc, &g->names, g->values, p, n, h, id, &s);
  if (v >= 0) *out = v;
  if (s || v >= 0) return s; /* (v is -1 on failure) */
  const char *nm = name_dup(m, p, n);
  if (!nm || (s = value_append(g, nm, false, out))) {
    olg__g_valmap_del(&g->names, h, id);
    return nm ? s : OLG_ERR_NOMEM;
  }
  *added = true;
  return OLG_OK;
}
#endif

olg_status olg__graph_add_value(olg_graph *g, const char *name, bool allow_duplicate,
                                olg_value *out) {
  olg_model *m = g->model;
  const char *nm = name ? olg__strdup(m, name) : olg__graph_unique_name(g, NULL);
  if (!nm) return OLG_ERR_NOMEM;
  bool dup = false;
  size_t n = SIZE_MAX;
  uint32_t h = olg__name_hash(nm, &n);
  if (*nm && olg__graph_lookup_h(g, nm, n, h) >= 0) {
    if (!allow_duplicate)
      return olg__err(OLG_ERR_DUPLICATE, "a value named '%s' already exists in graph '%s'", nm,
                      g->name);
    dup = true;
  }
  olg_status s = olg__grow(&m->alloc, (void **)&g->values, &g->cap_values, (size_t)g->n_values + 1,
                           sizeof *g->values);
  if (s) return s;
  olg_value id = (olg_value)g->n_values;
  if (*nm && !dup && (s = olg__g_valmap_put_h(&m->alloc, &g->names, h, id))) return s;
  if (dup && (s = olg__idvec_push(m, &g->dups, id))) return s;
  return value_append(g, nm, dup, out);
}

static olg_status set_tensor_type(olg_graph *g, olg_value_rec *r, olg_dtype dtype, int32_t rank,
                                  const int64_t *dims, const char *const *params) {
  if (dtype < 0 || dtype > OLG_DTYPE_MAX)
    return olg__err(OLG_ERR_INVALID_ARG, "value '%s': unknown dtype %d", r->name, dtype);
  if (rank < OLG_RANK_UNKNOWN || (rank > 0 && !dims && !params))
    return olg__err(OLG_ERR_INVALID_ARG, "value '%s': rank %d without dims", r->name, (int)rank);
  olg_dim *d = NULL;
  if (rank > 0) {
    d = olg__arena_alloc(g->model, (size_t)rank * sizeof *d);
    if (!d) return OLG_ERR_NOMEM;
    for (int32_t i = 0; i < rank; i++) {
      d[i].value = dims ? dims[i] : OLG_DIM_UNKNOWN;
      if (d[i].value < OLG_DIM_UNKNOWN)
        return olg__err(OLG_ERR_INVALID_ARG, "value '%s': dim %d is %lld", r->name, (int)i,
                        (long long)d[i].value);
      if (params && params[i] && d[i].value < 0) {
        d[i].param = olg__strdup(g->model, params[i]);
        if (!d[i].param) return OLG_ERR_NOMEM;
      }
    }
  }
  r->type = (olg_type){0};
  r->type.kind = OLG_TYPE_TENSOR;
  r->type.has_elem = true;
  r->type.elem8 = (uint8_t)dtype; /* 0..OLG_DTYPE_MAX: checked above */
  r->type.has_shape = rank >= 0;
  r->type.rank = rank;
  r->type.dims = d;
  return OLG_OK;
}

OLG_API olg_status olg_graph_add_input(olg_graph *g, const char *name, olg_dtype dtype,
                                       int32_t rank, const int64_t *dims,
                                       const char *const *dim_params, olg_value *out) {
  if (!g || !name || !*name) return olg__err(OLG_ERR_INVALID_ARG, "olg_graph_add_input: a graph and a non-empty name are required");
  olg_value v;
  olg_status s = olg__graph_add_value(g, name, false, &v);
  if (s) return s;
  olg_value_rec *r = &g->values[v];
  s = set_tensor_type(g, r, dtype, rank, dims, dim_params);
  if (!s) s = olg__idvec_push(g->model, &g->inputs, v);
  if (s) {
    olg__g_graph_pop_value(g);
    return s;
  }
  r->flags |= OLG_VF_INPUT;
  if (out) *out = v;
  return OLG_OK;
}

OLG_API olg_status olg_graph_add_value(olg_graph *g, const char *name, olg_value *out) {
  if (!g || !out) return olg__err(OLG_ERR_INVALID_ARG, "olg_graph_add_value: NULL argument");
  return olg__graph_add_value(g, name, false, out);
}

OLG_API olg_status olg_graph_add_output(olg_graph *g, olg_value v) {
  olg_value_rec *r = olg__value(g, v);
  if (!r) return OLG_ERR_INVALID_ARG;
  if (r->flags & OLG_VF_OUTPUT)
    return olg__err(OLG_ERR_DUPLICATE, "value '%s' is already a graph output", r->name);
  olg_status s = olg__idvec_push(g->model, &g->outputs, v);
  if (s) return s;
  r->flags |= OLG_VF_OUTPUT;
  return OLG_OK;
}

OLG_API olg_status olg_graph_add_value_info(olg_graph *g, olg_value v) {
  olg_value_rec *r = olg__value(g, v);
  if (!r) return OLG_ERR_INVALID_ARG;
  if (r->flags & OLG_VF_VALUE_INFO) return OLG_OK;
  olg_status s = olg__idvec_push(g->model, &g->value_info, v);
  if (s) return s;
  r->flags |= OLG_VF_VALUE_INFO;
  return OLG_OK;
}

bool olg__shape_numel(int32_t rank, const int64_t *dims, uint64_t *out) {
  uint64_t n = 1;
  for (int32_t i = 0; i < rank; i++) {
    if (dims[i] < 0 || !olg__mul_u64(n, (uint64_t)dims[i], &n)) return false;
  }
  *out = n;
  return true;
}

olg_status olg__tensor_new(olg_model *m, const char *name, olg_dtype dtype, int32_t rank,
                           const int64_t *dims, const void *data, size_t nbytes,
                           olg_data_mode mode, olg_release_fn release, void *ud,
                           olg_tensor **out) {
  olg_status s = OLG_OK;
  olg_tensor *t = NULL;
  uint64_t numel;
  if (dtype <= 0 || dtype > OLG_DTYPE_MAX || dtype == OLG_STRING) {
    s = olg__err(OLG_ERR_TYPE, "tensor '%s': dtype %d cannot hold raw data", name ? name : "", dtype);
    goto fail;
  }
  if (rank < 0 || (rank > 0 && !dims)) {
    s = olg__err(OLG_ERR_INVALID_ARG, "tensor '%s': bad rank %d", name ? name : "", (int)rank);
    goto fail;
  }
  if (!olg__shape_numel(rank, dims, &numel)) {
    s = olg__err(OLG_ERR_LIMIT, "tensor '%s': dims are negative or their product overflows",
                 name ? name : "");
    goto fail;
  }
  if (olg_dtype_nbytes(dtype, numel) != nbytes) {
    s = olg__err(OLG_ERR_INVALID_ARG, "tensor '%s': %zu bytes given, %s[%llu] needs %zu",
                 name ? name : "", nbytes, olg_dtype_name(dtype), (unsigned long long)numel,
                 olg_dtype_nbytes(dtype, numel));
    goto fail;
  }
  if (nbytes && !data) {
    s = olg__err(OLG_ERR_INVALID_ARG, "tensor '%s': data is NULL", name ? name : "");
    goto fail;
  }
  if (mode != OLG_DATA_BORROW && mode != OLG_DATA_COPY && mode != OLG_DATA_OWN) {
    s = olg__err(OLG_ERR_INVALID_ARG, "tensor '%s': unknown data mode %d", name ? name : "", (int)mode);
    goto fail;
  }
  t = olg__arena_alloc(m, sizeof *t);
  if (!t) { s = OLG_ERR_NOMEM; goto fail; }
  t->name = name ? olg__strdup(m, name) : NULL;
  t->dims = rank ? olg__arena_dup(m, dims, (size_t)rank * sizeof *dims) : NULL;
  if ((name && !t->name) || (rank && !t->dims)) { s = OLG_ERR_NOMEM; goto fail; }
  t->dtype = dtype;
  t->has_dtype = true;
  t->rank = rank;
  t->nbytes = nbytes;
  t->encoding = OLG_ENC_RAW;
  if (mode == OLG_DATA_COPY) {
    void *p = olg__malloc(&m->alloc, nbytes);
    if (!p) { s = OLG_ERR_NOMEM; goto fail; }
    if (nbytes) memcpy(p, data, nbytes);
    t->data = p;
    t->owner = OLG_OWNER_ALLOCATED;
    s = olg__model_own_tensor(m, t);
    if (s) { olg__free(&m->alloc, p, nbytes); return s; }
  } else if (mode == OLG_DATA_OWN) {
    t->data = data;
    t->owner = OLG_OWNER_RELEASE;
    t->release = release;
    t->release_ud = ud;
    s = olg__model_own_tensor(m, t);
    if (s) goto fail;
  } else {
    t->data = data;
    t->owner = OLG_OWNER_BORROWED;
  }
  *out = t;
  return OLG_OK;
fail:
  /* ownership passes even on failure: release what the caller handed over */
  if (mode == OLG_DATA_OWN && release) release(ud, data, nbytes);
  return s;
}

olg_status olg__graph_add_init(olg_graph *g, olg_tensor *t, bool allow_duplicate,
                               olg_value *out) {
  olg_model *m = g->model;
  if (g->n_inits >= OLG_MAX_INITS) return olg__too_many_inits(g);
  olg_status s = olg__grow(&m->alloc, (void **)&g->inits, &g->cap_inits, (size_t)g->n_inits + 1,
                           sizeof *g->inits);
  if (s) return s;
  olg_value v;
  s = olg__graph_add_value(g, t->name ? t->name : "", allow_duplicate, &v);
  if (s) return s;
  olg_value_rec *r = &g->values[v];
  r->type = (olg_type){0};
  r->type.kind = OLG_TYPE_TENSOR;
  r->type.has_elem = true;
  if ((s = olg__type_set_elem(m, &r->type, t->dtype))) return s;
  r->type.has_shape = true;
  r->type.rank = t->rank;
  if (t->rank) {
    r->type.dims = olg__arena_alloc(m, (size_t)t->rank * sizeof(olg_dim));
    if (!r->type.dims) return OLG_ERR_NOMEM;
    for (int32_t i = 0; i < t->rank; i++) r->type.dims[i].value = t->dims[i];
  }
  if ((s = olg__value_set_known(g->model, r, t))) return s;
  r->flags |= OLG_VF_INITIALIZER;
  r->init = (int32_t)g->n_inits;
  g->inits[g->n_inits++] = (struct olg_init){v, t};
  if (out) *out = v;
  return OLG_OK;
}

OLG_API olg_status olg_graph_add_initializer(olg_graph *g, const char *name, olg_dtype dtype,
                                             int32_t rank, const int64_t *dims, const void *data,
                                             size_t nbytes, olg_data_mode mode,
                                             olg_release_fn release, void *ud, olg_value *out) {
  if (!g || !name || !*name) {
    if (mode == OLG_DATA_OWN && release) release(ud, data, nbytes);
    return olg__err(OLG_ERR_INVALID_ARG, "olg_graph_add_initializer: a graph and a non-empty name are required");
  }
  if (olg__graph_lookup(g, name) >= 0) {
    if (mode == OLG_DATA_OWN && release) release(ud, data, nbytes);
    return olg__err(OLG_ERR_DUPLICATE, "a value named '%s' already exists in graph '%s'", name, g->name);
  }
  olg_tensor *t;
  olg_status s = olg__tensor_new(g->model, name, dtype, rank, dims, data, nbytes, mode, release, ud, &t);
  if (s) return s;
  /* From here the tensor is registered with the model (if owned), which releases it at free. */
  return olg__graph_add_init(g, t, false, out);
}

OLG_API olg_status olg_graph_add_string_initializer(olg_graph *g, const char *name, int32_t rank,
                                                    const int64_t *dims,
                                                    const char *const *strings,
                                                    const size_t *lengths, olg_value *out) {
  if (!g || !name || !*name || rank < 0 || (rank && !dims))
    return olg__err(OLG_ERR_INVALID_ARG, "olg_graph_add_string_initializer: bad argument");
  uint64_t numel;
  if (!olg__shape_numel(rank, dims, &numel) || numel > SIZE_MAX / sizeof(olg_bytes))
    return olg__err(OLG_ERR_LIMIT, "string tensor '%s': bad dims", name);
  if (numel && !strings)
    return olg__err(OLG_ERR_INVALID_ARG, "string tensor '%s': strings is NULL", name);
  if (olg__graph_lookup(g, name) >= 0)
    return olg__err(OLG_ERR_DUPLICATE, "a value named '%s' already exists in graph '%s'", name, g->name);
  olg_model *m = g->model;
  olg_tensor *t = olg__arena_alloc(m, sizeof *t);
  if (!t) return OLG_ERR_NOMEM;
  t->name = olg__strdup(m, name);
  t->dims = rank ? olg__arena_dup(m, dims, (size_t)rank * sizeof *dims) : NULL;
  t->strings = numel ? olg__arena_alloc(m, (size_t)numel * sizeof *t->strings) : NULL;
  if (!t->name || (rank && !t->dims) || (numel && !t->strings)) return OLG_ERR_NOMEM;
  for (uint64_t i = 0; i < numel; i++) {
    size_t len = lengths ? lengths[i] : strlen(strings[i]);
    t->strings[i].p = olg__strndup(m, strings[i], len);
    if (!t->strings[i].p) return OLG_ERR_NOMEM;
    t->strings[i].n = len;
  }
  t->n_strings = (size_t)numel;
  t->dtype = OLG_STRING;
  t->has_dtype = true;
  t->rank = rank;
  t->encoding = OLG_ENC_STRING;
  return olg__graph_add_init(g, t, false, out);
}

OLG_API size_t olg_graph_input_count(const olg_graph *g) { return g ? g->inputs.n : 0; }
OLG_API olg_value olg_graph_input_at(const olg_graph *g, size_t i) {
  return g && i < g->inputs.n ? g->inputs.p[i] : OLG_NO_VALUE;
}
OLG_API size_t olg_graph_output_count(const olg_graph *g) { return g ? g->outputs.n : 0; }
OLG_API olg_value olg_graph_output_at(const olg_graph *g, size_t i) {
  return g && i < g->outputs.n ? g->outputs.p[i] : OLG_NO_VALUE;
}
OLG_API size_t olg_graph_initializer_count(const olg_graph *g) { return g ? g->n_inits : 0; }
OLG_API olg_value olg_graph_initializer_at(const olg_graph *g, size_t i) {
  return g && i < g->n_inits ? g->inits[i].v : OLG_NO_VALUE;
}
OLG_API size_t olg_graph_value_count(const olg_graph *g) { return g ? g->n_values : 0; }
OLG_API size_t olg_graph_node_count(const olg_graph *g) { return g ? g->n_nodes : 0; }

OLG_API olg_status olg_graph_find_value(const olg_graph *g, const char *name, olg_value *out) {
  if (!g || !name || !out) return olg__err(OLG_ERR_INVALID_ARG, "olg_graph_find_value: NULL argument");
  olg_value v = olg__graph_lookup(g, name);
  if (v < 0) return olg__err(OLG_ERR_NOT_FOUND, "no value named '%s' in graph '%s'", name, g->name);
  *out = v;
  return OLG_OK;
}

/* ---------------------------------------------------------------------------------------- */
/* Values */

OLG_API const char *olg_value_name(const olg_graph *g, olg_value v) {
  const olg_value_rec *r = olg__value(g, v);
  return r ? r->name : NULL;
}

OLG_API olg_dtype olg_value_dtype(const olg_graph *g, olg_value v) {
  const olg_value_rec *r = olg__value(g, v);
  return r && r->type.kind == OLG_TYPE_TENSOR ? olg__type_elem(&r->type) : OLG_UNDEFINED;
}

OLG_API int32_t olg_value_rank(const olg_graph *g, olg_value v) {
  const olg_value_rec *r = olg__value(g, v);
  return r && r->type.kind == OLG_TYPE_TENSOR && r->type.has_shape ? r->type.rank : OLG_RANK_UNKNOWN;
}

OLG_API olg_status olg_value_dim(const olg_graph *g, olg_value v, int32_t i, int64_t *dim,
                                 const char **param) {
  const olg_value_rec *r = olg__value(g, v);
  if (!r) return OLG_ERR_INVALID_ARG;
  if (r->type.kind != OLG_TYPE_TENSOR || !r->type.has_shape || i < 0 || i >= r->type.rank)
    return olg__err(OLG_ERR_RANGE, "value '%s' has no dim %d", r->name, (int)i);
  if (dim) *dim = r->type.dims[i].value;
  if (param) *param = r->type.dims[i].param;
  return OLG_OK;
}

OLG_API olg_status olg_value_set_type(olg_graph *g, olg_value v, olg_dtype dtype, int32_t rank,
                                      const int64_t *dims, const char *const *dim_params) {
  olg_value_rec *r = olg__value(g, v);
  if (!r) return OLG_ERR_INVALID_ARG;
  return set_tensor_type(g, r, dtype, rank, dims, dim_params);
}

OLG_API olg_status olg_value_producer(const olg_graph *g, olg_value v, olg_node_id *node,
                                      int32_t *slot) {
  const olg_value_rec *r = olg__value(g, v);
  if (!r) return OLG_ERR_INVALID_ARG;
  if (r->producer < 0) return olg__err(OLG_ERR_NOT_FOUND, "value '%s' has no producer", r->name);
  if (node) *node = r->producer;
  if (slot) { /* where the producer's outputs name it (a few: a scan is cheaper than a field) */
    const olg_node *nd = &g->nodes[r->producer];
    uint32_t i = 0;
    while (i < nd->n_outputs && nd->outputs[i] != v) i++;
    *slot = (int32_t)i;
  }
  return OLG_OK;
}

OLG_API olg_status olg_value_data(const olg_graph *g, olg_value v, const void **data,
                                  size_t *nbytes) {
  const olg_value_rec *r = olg__value(g, v);
  if (!r) return OLG_ERR_INVALID_ARG;
  if (r->init < 0) return olg__err(OLG_ERR_NOT_FOUND, "value '%s' is not an initializer", r->name);
  const olg_tensor *t = g->inits[r->init].t;
  if (data) *data = t->data;
  if (nbytes) *nbytes = t->nbytes;
  return OLG_OK;
}

/* ---------------------------------------------------------------------------------------- */
/* Topological order (Kahn). Edges come from value arguments whose producer is a node of this
 * graph; subgraph captures are not edges of this graph. Dead nodes are left out. */

static void for_each_input(const olg_node *nd, void (*fn)(olg_value, void *), void *ud) {
  for (uint32_t i = 0; i < nd->n_args; i++) {
    const olg_arg *a = &nd->args[i];
    if (a->kind == OLG_ARG_VALUE) fn(a->u.v, ud);
    else if (a->kind == OLG_ARG_VALUES)
      for (size_t j = 0; j < a->n; j++)
        if (a->u.vals[j] != OLG_NO_VALUE) fn(a->u.vals[j], ud);
  }
}

struct topo_cx {
  const olg_graph *g;
  uint32_t *indeg;
  uint32_t *off;   /* CSR offsets of consumers by producer node */
  int32_t *adj;
  olg_node_id cur;
};

static void count_edge(olg_value v, void *ud) {
  struct topo_cx *c = ud;
  int32_t p = c->g->values[v].producer;
  if (p >= 0 && c->g->nodes[p].state == OLG_NODE_DONE) {
    c->indeg[c->cur]++;
    c->off[p + 1]++;
  }
}

static void fill_edge(olg_value v, void *ud) {
  struct topo_cx *c = ud;
  int32_t p = c->g->values[v].producer;
  if (p >= 0 && c->g->nodes[p].state == OLG_NODE_DONE) c->adj[c->off[p]++] = c->cur;
}

OLG_API olg_status olg_graph_topo_order(const olg_graph *g, olg_node_id *order) {
  if (!g || (g->n_nodes && !order)) return olg__err(OLG_ERR_INVALID_ARG, "olg_graph_topo_order: NULL argument");
  const olg_allocator *al = &g->model->alloc;
  uint32_t n = g->n_nodes;
  if (!n) return OLG_OK;
  size_t n_edges = 0;
  for (uint32_t i = 0; i < n; i++) {
    const olg_node *nd = &g->nodes[i];
    for (uint32_t j = 0; j < nd->n_args; j++)
      n_edges += nd->args[j].kind == OLG_ARG_VALUE ? 1 : nd->args[j].kind == OLG_ARG_VALUES ? nd->args[j].n : 0;
  }
  struct topo_cx c = {g, olg__calloc(al, n, sizeof(uint32_t)), olg__calloc(al, (size_t)n + 1, sizeof(uint32_t)),
                      olg__malloc(al, (n_edges ? n_edges : 1) * sizeof(int32_t)), 0};
  olg_status s = OLG_OK;
  if (!c.indeg || !c.off || !c.adj) { s = OLG_ERR_NOMEM; goto done; }
  for (uint32_t i = 0; i < n; i++) {
    if (g->nodes[i].state != OLG_NODE_DONE) continue;
    c.cur = (olg_node_id)i;
    for_each_input(&g->nodes[i], count_edge, &c);
  }
  for (uint32_t i = 0; i < n; i++) c.off[i + 1] += c.off[i];
  for (uint32_t i = 0; i < n; i++) {
    if (g->nodes[i].state != OLG_NODE_DONE) continue;
    c.cur = (olg_node_id)i;
    for_each_input(&g->nodes[i], fill_edge, &c);
  }
  /* off[p] now points at the end of p's list; its start is off[p-1] (0 for p == 0) */
  uint32_t head = 0, tail = 0, live = 0;
  for (uint32_t i = 0; i < n; i++) {
    if (g->nodes[i].state != OLG_NODE_DONE) continue;
    live++;
    if (!c.indeg[i]) order[tail++] = (olg_node_id)i;
  }
  while (head < tail) {
    olg_node_id p = order[head++];
    uint32_t b = p ? c.off[p - 1] : 0, e = c.off[p];
    for (uint32_t k = b; k < e; k++)
      if (--c.indeg[c.adj[k]] == 0) order[tail++] = c.adj[k];
  }
  if (tail < live) {
    for (uint32_t i = 0; i < n; i++) {
      if (g->nodes[i].state == OLG_NODE_DONE && c.indeg[i]) {
        s = olg__err(OLG_ERR_INVALID_MODEL, "graph '%s' has a cycle through node '%s' (%s)",
                     g->name, g->nodes[i].name, g->nodes[i].op);
        break;
      }
    }
  }
  for (uint32_t i = tail; i < n; i++) order[i] = -1;
done:
  olg__free(al, c.indeg, (size_t)n * sizeof(uint32_t));
  olg__free(al, c.off, ((size_t)n + 1) * sizeof(uint32_t));
  olg__free(al, c.adj, (n_edges ? n_edges : 1) * sizeof(int32_t));
  return s;
}
