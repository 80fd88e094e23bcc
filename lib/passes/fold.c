/* onnxlegal — weight folding after lowering (olg_legalize_options.fold_weights), what
 * torch.onnx's do_constant_folding does to a model's parameters:
 * - a BatchNormalization (inference form) whose input is a Conv, Gemm or MatMul that nothing
 *   else reads, with known weights and statistics, is folded into that node's weights: the
 *   scaled weights and the new bias are computed in double and cast to the weights' type
 *   (float or double), once per channel;
 * - initializers with the same type, shape and bytes are merged into the first of them.
 * Both are linear in the graph and the weights; the source's tensors are never written (the
 * folded weights are new initializers in the target model's arena; the old ones fall to the
 * cleanup's dead-initializer sweep when nothing else reads them). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "passes/passes.h"

/* True when v may be rewired: a value of this graph that no subgraph reads by name and that
 * is no graph output. */
static bool private_value(const olg_lower *cx, const olg_graph *g, olg_value v) {
  if (v < 0 || (uint32_t)v >= g->n_values) return false;
  const olg_value_rec *r = &g->values[v];
  return !(r->flags & (OLG_VF_OUTPUT | OLG_VF_INPUT | OLG_VF_OUTER)) &&
         !olg__is_protected(cx, v) && !olg__reads_by_name(r);
}

/* A known float/double tensor, contiguous, with data. */
static const olg_tensor *known_real(const olg_lower *cx, const olg_graph *g, olg_value v) {
  if (v < 0 || (uint32_t)v >= g->n_values) return NULL;
  if (g->values[v].flags & (OLG_VF_INPUT | OLG_VF_OUTER)) return NULL; /* may be overridden */
  const olg_tensor *t = olg__known(cx, v);
  if (!t || (t->dtype != OLG_FLOAT && t->dtype != OLG_DOUBLE) || (t->nbytes && !t->data))
    return NULL;
  return t;
}

/* Element i, at any alignment: an initializer read from a file is where the file put it. */
static double get(const olg_tensor *t, size_t i) {
  if (t->dtype == OLG_FLOAT) {
    float f;
    memcpy(&f, (const char *)t->data + 4 * i, 4);
    return f;
  }
  double d;
  memcpy(&d, (const char *)t->data + 8 * i, 8);
  return d;
}

static void put(olg_dtype dt, void *p, size_t i, double x) {
  if (dt == OLG_FLOAT) ((float *)p)[i] = (float)x;
  else ((double *)p)[i] = x;
}

static size_t numel(const olg_tensor *t) {
  size_t n = 1;
  for (int32_t i = 0; i < t->rank; i++) n *= (size_t)t->dims[i];
  return n;
}

/* A rank-1 known tensor of m elements of dtype dt. */
static const olg_tensor *vec(const olg_lower *cx, const olg_graph *g, const olg_node *nd,
                             uint32_t i, olg_dtype dt, int64_t m) {
  if (i >= nd->n_args || nd->args[i].kind != OLG_ARG_VALUE) return NULL;
  const olg_tensor *t = known_real(cx, g, nd->args[i].u.v);
  return t && t->dtype == dt && t->rank == 1 && t->dims[0] == m ? t : NULL;
}

/* A new initializer of g named after base, data in the model's arena (*data to fill). */
static olg_status new_init(olg_lower *cx, const char *base, olg_dtype dt, int32_t rank,
                           const int64_t *dims, size_t n, void **data, olg_value *out) {
  olg_graph *g = cx->dst;
  size_t nbytes = n * (dt == OLG_FLOAT ? 4 : 8);
  *data = olg__arena_alloc(cx->dst_model, nbytes ? nbytes : 1);
  if (!*data) return OLG_ERR_NOMEM;
  char buf[256];
  snprintf(buf, sizeof buf, "%s_folded", base && *base ? base : "weight");
  const char *name = olg__graph_unique_name(g, buf);
  if (!name) return OLG_ERR_NOMEM;
  return olg_graph_add_initializer(g, name, dt, rank, dims, *data, nbytes, OLG_DATA_BORROW,
                                   NULL, NULL, out);
}

static double attr_float(const olg_node *nd, const char *name, double dflt) {
  const olg_attr *a = olg__node_attr(nd, name);
  return a && a->type == OLG_ATTR_FLOAT ? (double)a->f : dflt;
}

static int64_t attr_int(const olg_node *nd, const char *name, int64_t dflt) {
  const olg_attr *a = olg__node_attr(nd, name);
  return a && a->type == OLG_ATTR_INT ? a->i : dflt;
}

/* Folds BatchNormalization node bn into the node p that produces its input x. */
static olg_status fold_bn(olg_lower *cx, olg_node_id bn_id, olg_node_id p_id, const uint32_t *uses,
                          bool *done) {
  olg_graph *g = cx->dst;
  const olg_node *bn = &g->nodes[bn_id];
  const olg_node *p = &g->nodes[p_id];
  *done = false;
  olg_value x = bn->args[0].u.v;
  if (p->n_args < 2 || p->args[1].kind != OLG_ARG_VALUE) return OLG_OK;
  const olg_tensor *w = known_real(cx, g, p->args[1].u.v);
  if (!w || w->rank < 2) return OLG_OK;
  olg_dtype dt = w->dtype;
  int kind = strcmp(p->op, "Conv") == 0 ? 0 : strcmp(p->op, "Gemm") == 0 ? 1 : 2;
  bool trans_b = kind == 1 && attr_int(p, "transB", 0) != 0;
  /* the output channel: W's dim 0 (Conv; Gemm with transB), else its last dim */
  int64_t m = kind == 0 || trans_b ? w->dims[0] : w->dims[w->rank - 1];
  if (kind == 0 && w->rank < 3) return OLG_OK;
  if (kind == 1 && w->rank != 2) return OLG_OK;
  if (kind == 2 && (w->rank != 2 || olg__rank(cx, x) != 2)) return OLG_OK;
  if (kind == 1 && attr_int(p, "transA", 0) != 0 && olg__rank(cx, x) != 2) return OLG_OK;
  const olg_tensor *scale = vec(cx, g, bn, 1, dt, m), *beta = vec(cx, g, bn, 2, dt, m);
  const olg_tensor *mean = vec(cx, g, bn, 3, dt, m), *var = vec(cx, g, bn, 4, dt, m);
  if (!scale || !beta || !mean || !var || m <= 0) return OLG_OK;
  /* the existing bias: Conv's B, Gemm's C (rank 1 of m, with beta), none for MatMul */
  const olg_tensor *bias = NULL;
  double gemm_beta = 1.0;
  if (kind != 2 && p->n_args > 2 && p->args[2].kind == OLG_ARG_VALUE) {
    bias = vec(cx, g, p, 2, dt, m);
    if (!bias) return OLG_OK; /* a bias of another shape (Gemm's C broadcast over rows) */
  }
  if (kind == 1) gemm_beta = attr_float(p, "beta", 1.0);
  (void)uses;
  double eps = attr_float(bn, "epsilon", 1e-5);
  size_t n = numel(w);
  size_t per = n / (size_t)m; /* Conv: elements per output channel */
  void *wd, *bd;
  olg_value nw, nb;
  OLG_TRY(new_init(cx, g->values[p->args[1].u.v].name, dt, w->rank, w->dims, n, &wd, &nw));
  int64_t mdim = m;
  OLG_TRY(new_init(cx, kind == 2 ? g->values[bn->args[2].u.v].name
                    : bias ? g->values[p->args[2].u.v].name : p->name,
                   dt, 1, &mdim, (size_t)m, &bd, &nb));
  p = &g->nodes[p_id]; /* adding values may not move nodes, but be safe */
  bn = &g->nodes[bn_id];
  for (int64_t c = 0; c < m; c++) {
    double s = get(scale, (size_t)c) / sqrt(get(var, (size_t)c) + eps);
    double b0 = bias ? gemm_beta * get(bias, (size_t)c) : 0.0;
    put(dt, bd, (size_t)c, (b0 - get(mean, (size_t)c)) * s + get(beta, (size_t)c));
    if (kind == 0 || trans_b) {
      for (size_t k = 0; k < per; k++) {
        size_t i = (size_t)c * per + k;
        put(dt, wd, i, get(w, i) * s);
      }
    } else {
      size_t rows = n / (size_t)m;
      for (size_t r = 0; r < rows; r++) {
        size_t i = r * (size_t)m + (size_t)c;
        put(dt, wd, i, get(w, i) * s);
      }
    }
  }
  olg_node *pw = &g->nodes[p_id];
  pw->args[1].u.v = nw;
  olg_node *bw = &g->nodes[bn_id];
  if (kind == 2) {
    /* MatMul keeps its shape; the BatchNormalization becomes the bias' Add */
    bw->op = "Add";
    bw->args[1].u.v = nb;
    bw->n_args = 2;
    bw->n_attrs = 0;
    *done = true;
    return OLG_OK;
  }
  if (pw->n_args > 2) {
    pw->args[2].kind = OLG_ARG_VALUE;
    pw->args[2].u.v = nb;
  } else {
    /* a closed node's arguments live in the arena: a longer copy takes their place */
    olg_arg *args = olg__arena_alloc(cx->dst_model, 3 * sizeof *args);
    if (!args) return OLG_ERR_NOMEM;
    memcpy(args, pw->args, (size_t)pw->n_args * sizeof *args);
    args[2].kind = OLG_ARG_VALUE;
    args[2].u.v = nb;
    pw->args = args;
    pw->n_args = 3;
  }
  if (kind == 1) {
    for (uint32_t k = 0; k < pw->n_attrs; k++)
      if (strcmp(pw->attrs[k].name, "beta") == 0) pw->attrs[k].f = 1.0f; /* in the new C */
  }
  /* the folded node produces the BatchNormalization's output (its name, graph output or not) */
  olg_value y = bw->outputs[0];
  pw->outputs[0] = y;
  g->values[y].producer = p_id;
  g->values[x].producer = -1;
  bw->state = OLG_NODE_DEAD;
  *done = true;
  return OLG_OK;
}

static olg_status fold_batchnorms(olg_lower *cx) {
  olg_graph *g = cx->dst;
  const olg_allocator *al = &cx->dst_model->alloc;
  uint32_t nv = g->n_values ? g->n_values : 1;
  uint32_t *uses = olg__calloc(al, nv, sizeof *uses);
  if (!uses) return OLG_ERR_NOMEM;
  for (uint32_t i = 0; i < g->n_nodes; i++) {
    const olg_node *nd = &g->nodes[i];
    if (nd->state != OLG_NODE_DONE) continue;
    for (uint32_t j = 0; j < nd->n_args; j++) {
      const olg_arg *a = &nd->args[j];
      if (a->kind == OLG_ARG_VALUE && a->u.v >= 0 && (uint32_t)a->u.v < nv) uses[a->u.v]++;
      else if (a->kind == OLG_ARG_VALUES)
        for (size_t k = 0; k < a->n; k++)
          if (a->u.vals[k] >= 0 && (uint32_t)a->u.vals[k] < nv) uses[a->u.vals[k]]++;
    }
  }
  olg_status s = OLG_OK;
  uint32_t n_nodes = g->n_nodes; /* folding adds values, never nodes */
  for (uint32_t i = 0; i < n_nodes && !s; i++) {
    const olg_node *bn = &g->nodes[i];
    if (bn->state != OLG_NODE_DONE || *bn->domain || strcmp(bn->op, "BatchNormalization") != 0 ||
        bn->n_args != 5 || bn->args[0].kind != OLG_ARG_VALUE || bn->n_outputs < 1)
      continue;
    bool extra_out = false;
    for (uint32_t k = 1; k < bn->n_outputs; k++) extra_out |= bn->outputs[k] != OLG_NO_VALUE;
    if (extra_out || attr_int(bn, "training_mode", 0) != 0 || bn->outputs[0] == OLG_NO_VALUE)
      continue;
    if (olg__node_attr(bn, "spatial") && attr_int(bn, "spatial", 1) != 1) continue;
    olg_value x = bn->args[0].u.v;
    if (x < 0 || (uint32_t)x >= nv || uses[x] != 1 || !private_value(cx, g, x)) continue;
    olg_node_id pid = g->values[x].producer;
    if (pid < 0) continue;
    const olg_node *p = &g->nodes[pid];
    if (p->state != OLG_NODE_DONE || *p->domain || p->n_outputs != 1 || p->outputs[0] != x ||
        (strcmp(p->op, "Conv") && strcmp(p->op, "Gemm") && strcmp(p->op, "MatMul")))
      continue;
    bool done;
    s = fold_bn(cx, (olg_node_id)i, pid, uses, &done);
  }
  olg__free(al, uses, (size_t)nv * sizeof *uses);
  return s;
}

static olg_value resolve(const olg_value *subst, uint32_t n, olg_value v) {
  return v >= 0 && (uint32_t)v < n ? subst[v] : v;
}

/* Merges byte-equal initializers: every read of a later one reads the first. */
static olg_status merge_initializers(olg_lower *cx) {
  olg_graph *g = cx->dst;
  const olg_allocator *al = &cx->dst_model->alloc;
  uint32_t ni = g->n_inits, nv = g->n_values;
  if (ni < 2) return OLG_OK;
  uint32_t cap = 16;
  while (cap < ni * 2u) cap *= 2;
  int32_t *tab = olg__malloc(al, (size_t)cap * sizeof *tab);
  olg_value *subst = olg__malloc(al, (size_t)nv * sizeof *subst);
  if (!tab || !subst) {
    olg__free(al, tab, (size_t)cap * sizeof *tab);
    olg__free(al, subst, (size_t)nv * sizeof *subst);
    return OLG_ERR_NOMEM;
  }
  for (uint32_t i = 0; i < cap; i++) tab[i] = -1;
  for (uint32_t v = 0; v < nv; v++) subst[v] = (olg_value)v;
  bool any = false;
  for (uint32_t i = 0; i < ni; i++) {
    olg_value v = g->inits[i].v;
    const olg_tensor *t = g->inits[i].t;
    if (!t || t->dtype == OLG_STRING || (t->nbytes && !t->data) || !private_value(cx, g, v))
      continue;
    uint64_t h = olg__tensor_hash(t);
    for (uint32_t k = (uint32_t)h & (cap - 1);; k = (k + 1) & (cap - 1)) {
      if (tab[k] < 0) {
        tab[k] = (int32_t)i;
        break;
      }
      if (olg__tensor_same(g->inits[tab[k]].t, t)) {
        subst[v] = g->inits[tab[k]].v;
        any = true;
        break;
      }
    }
  }
  for (uint32_t i = 0; any && i < g->n_nodes; i++) {
    olg_node *nd = &g->nodes[i];
    if (nd->state != OLG_NODE_DONE) continue;
    for (uint32_t j = 0; j < nd->n_args; j++) {
      olg_arg *a = &nd->args[j];
      if (a->kind == OLG_ARG_VALUE) a->u.v = resolve(subst, nv, a->u.v);
      else if (a->kind == OLG_ARG_VALUES)
        for (size_t k = 0; k < a->n; k++)
          ((olg_value *)a->u.vals)[k] = resolve(subst, nv, a->u.vals[k]);
    }
  }
  olg__free(al, tab, (size_t)cap * sizeof *tab);
  olg__free(al, subst, (size_t)nv * sizeof *subst);
  return OLG_OK;
}

olg_status olg__fold_weights(olg_lower *cx) {
  OLG_TRY(fold_batchnorms(cx));
  return merge_initializers(cx);
}
