/* The protobuf reader and writer: round trips of built models, kept unknown fields, malformed
 * input, allocation and sink failures, nesting limits, external data. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../harness.h"
#include "ir.h"
/* protobuf-c's parser cross-checks the writer here, unless the build has no protobuf-c for its
 * target (OLG_TEST_NO_PROTOBUF_C: make TEST_PROTOBUF_C=0, as make test-cross builds) */
#ifndef OLG_TEST_NO_PROTOBUF_C
#include "onnx.pb-c.h"
#endif
#include "serialize/pb.h"
#include "../pb_bytes.h"

/* ---------------------------------------------------------------------------------------- */
/* The writer to memory and back (tests/pb_bytes.h has the buffer and hand-made protobuf) */

static olg_status write_mem(const olg_model *m, pbuf *out) {
  memset(out, 0, sizeof *out);
  return olg_model_write_callback(m, pbuf_sink, out, NULL);
}

static olg_status read_mem(olg_model **m, const pbuf *b) {
  return olg_model_read_memory(m, b->p, b->n, NULL);
}


/* ---------------------------------------------------------------------------------------- */
/* Comparing two models' IR */

static char why[1024];

static bool differ(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  return false;
}

static bool same_str(const char *a, const char *b) {
  return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static bool same_type(const olg_type *a, const olg_type *b, const char *where) {
  if (!a || !b) return a == b ? true : differ("%s: one type is missing", where);
  if (a->kind != b->kind || a->has_elem != b->has_elem || olg__type_elem(a) != olg__type_elem(b) ||
      a->has_shape != b->has_shape || a->rank != b->rank ||
      olg__type_key(a) != olg__type_key(b) ||
      !same_str(olg__type_denotation(a), olg__type_denotation(b)) ||
      !same_str(olg__type_opaque_domain(a), olg__type_opaque_domain(b)) ||
      !same_str(olg__type_opaque_name(a), olg__type_opaque_name(b)))
    return differ("%s: types differ (kind %d/%d elem %d/%d rank %d/%d)", where, a->kind, b->kind,
                  olg__type_elem(a), olg__type_elem(b), a->rank, b->rank);
  for (int32_t i = 0; a->has_shape && i < a->rank; i++)
    if (a->dims[i].value != b->dims[i].value || !same_str(a->dims[i].param, b->dims[i].param) ||
        !same_str(a->dims[i].denotation, b->dims[i].denotation))
      return differ("%s: dim %d differs", where, (int)i);
  const olg_type *ai = olg__type_inner(a), *bi = olg__type_inner(b);
  if (!ai != !bi) return differ("%s: inner type", where);
  return !ai || same_type(ai, bi, where);
}

static bool same_tensor(const olg_tensor *a, const olg_tensor *b) {
  const char *n = a->name ? a->name : "(unnamed)";
  if (!same_str(a->name, b->name) || !same_str(a->doc_string, b->doc_string))
    return differ("tensor %s: name or doc", n);
  if (a->dtype != b->dtype || a->rank != b->rank || a->nbytes != b->nbytes)
    return differ("tensor %s: dtype %d/%d rank %d/%d nbytes %zu/%zu", n, a->dtype, b->dtype,
                  a->rank, b->rank, a->nbytes, b->nbytes);
  for (int32_t i = 0; i < a->rank; i++)
    if (a->dims[i] != b->dims[i]) return differ("tensor %s: dims[%d]", n, (int)i);
  if (a->nbytes && memcmp(a->data, b->data, a->nbytes) != 0) return differ("tensor %s: data", n);
  if (a->n_strings != b->n_strings) return differ("tensor %s: string count", n);
  for (size_t i = 0; i < a->n_strings; i++)
    if (a->strings[i].n != b->strings[i].n ||
        memcmp(a->strings[i].p, b->strings[i].p, a->strings[i].n) != 0)
      return differ("tensor %s: string %zu", n, i);
  return true;
}

static bool same_kvs(const olg_kv *a, size_t na, const olg_kv *b, size_t nb, const char *where) {
  if (na != nb) return differ("%s: %zu/%zu metadata entries", where, na, nb);
  for (size_t i = 0; i < na; i++)
    if (!same_str(a[i].key, b[i].key) || !same_str(a[i].value, b[i].value))
      return differ("%s: metadata %zu", where, i);
  return true;
}

static bool same_graph(const olg_graph *a, const olg_graph *b);

static bool same_span_ptr(const void *a, const void *b) {
  const olg_pb_span *x = a, *y = b;
  if (!x || !y) return x == y;
  return x->n == y->n && memcmp(x->p, y->p, x->n) == 0;
}

static bool same_attr(const olg_attr *a, const olg_attr *b, const char *node) {
  if (!same_str(a->name, b->name) || a->type != b->type)
    return differ("node %s: attribute %s/%s type %d/%d", node, a->name, b->name, a->type, b->type);
  if (!same_str(a->ref_attr_name, b->ref_attr_name) || !same_str(a->doc_string, b->doc_string))
    return differ("node %s attr %s: ref_attr_name or doc", node, a->name);
  switch (a->type) {
  case OLG_ATTR_FLOAT: if (memcmp(&a->f, &b->f, 4)) return differ("attr %s: f", a->name); break;
  case OLG_ATTR_INT: if (a->i != b->i) return differ("attr %s: i", a->name); break;
  case OLG_ATTR_STRING:
    if (a->s.n != b->s.n || memcmp(a->s.p, b->s.p, a->s.n)) return differ("attr %s: s", a->name);
    break;
  case OLG_ATTR_TENSOR: return same_tensor(a->t, b->t);
  case OLG_ATTR_GRAPH: return same_graph(a->g, b->g);
  case OLG_ATTR_TYPE_PROTO: return same_type(a->tp, b->tp, a->name);
  case OLG_ATTR_SPARSE_TENSOR:
    if (!same_span_ptr(a->sparse, b->sparse)) return differ("attr %s: sparse", a->name);
    break;
  default:
    if (a->n != b->n) return differ("attr %s: %zu/%zu elements", a->name, a->n, b->n);
    for (size_t i = 0; i < a->n; i++) {
      bool ok = true;
      switch (a->type) {
      case OLG_ATTR_FLOATS: ok = !memcmp(&a->floats[i], &b->floats[i], 4); break;
      case OLG_ATTR_INTS: ok = a->ints[i] == b->ints[i]; break;
      case OLG_ATTR_STRINGS:
        ok = a->strings[i].n == b->strings[i].n && !memcmp(a->strings[i].p, b->strings[i].p, a->strings[i].n);
        break;
      case OLG_ATTR_TENSORS: ok = same_tensor(a->tensors[i], b->tensors[i]); break;
      case OLG_ATTR_GRAPHS: ok = same_graph(a->graphs[i], b->graphs[i]); break;
      case OLG_ATTR_TYPE_PROTOS: ok = same_type(a->tps[i], b->tps[i], a->name); break;
      case OLG_ATTR_SPARSE_TENSORS: ok = same_span_ptr(a->sparses[i], b->sparses[i]); break;
      default: break;
      }
      if (!ok) return why[0] ? false : differ("attr %s: element %zu", a->name, i);
    }
  }
  return true;
}

static const char *vname(const olg_graph *g, olg_value v) {
  return v == OLG_NO_VALUE ? "" : g->values[v].name;
}

static bool same_list(const olg_graph *a, const olg_idvec *la, const olg_graph *b,
                      const olg_idvec *lb, const char *what) {
  if (la->n != lb->n) return differ("graph %s: %u/%u %s", a->name, la->n, lb->n, what);
  for (uint32_t i = 0; i < la->n; i++) {
    const olg_value_rec *x = &a->values[la->p[i]], *y = &b->values[lb->p[i]];
    if (strcmp(x->name, y->name) != 0) return differ("graph %s: %s %u: %s/%s", a->name, what, i, x->name, y->name);
    if (!same_type(&x->type, &y->type, x->name) ||
        !same_str(olg__value_doc(x), olg__value_doc(y)) ||
        !same_kvs(olg__value_metadata(x), olg__value_n_metadata(x), olg__value_metadata(y),
                  olg__value_n_metadata(y), x->name))
      return false;
  }
  return true;
}

static bool same_graph(const olg_graph *a, const olg_graph *b) {
  if (!a || !b) return a == b ? true : differ("a graph is missing");
  why[0] = 0;
  if (strcmp(a->name, b->name) != 0 || !same_str(a->doc_string, b->doc_string))
    return differ("graph %s/%s: name or doc", a->name, b->name);
  if (!same_list(a, &a->inputs, b, &b->inputs, "inputs") ||
      !same_list(a, &a->outputs, b, &b->outputs, "outputs") ||
      !same_list(a, &a->value_info, b, &b->value_info, "value_info"))
    return false;
  if (a->n_inits != b->n_inits) return differ("graph %s: initializers", a->name);
  for (uint32_t i = 0; i < a->n_inits; i++)
    if (!same_tensor(a->inits[i].t, b->inits[i].t)) return false;
  if (!same_kvs(a->metadata, a->n_metadata, b->metadata, b->n_metadata, a->name)) return false;
  uint32_t j = 0;
  for (uint32_t i = 0; i < a->n_nodes; i++) {
    const olg_node *x = &a->nodes[i];
    if (x->state == OLG_NODE_DEAD) continue;
    if (j >= b->n_nodes) return differ("graph %s: fewer nodes", a->name);
    const olg_node *y = &b->nodes[j++];
    if (strcmp(x->op, y->op) || strcmp(x->domain, y->domain) || strcmp(x->name, y->name) ||
        !same_str(olg__node_doc(x), olg__node_doc(y)) ||
        !same_str(olg__node_overload(x), olg__node_overload(y)))
      return differ("graph %s: node %u: %s::%s '%s' vs %s::%s '%s'", a->name, i, x->domain, x->op,
                    x->name, y->domain, y->op, y->name);
    if (x->n_args != y->n_args || x->n_outputs != y->n_outputs || x->n_attrs != y->n_attrs)
      return differ("node %s: counts", x->name);
    for (uint32_t k = 0; k < x->n_args; k++) {
      const char *p = x->args[k].kind == OLG_ARG_VALUE ? vname(a, x->args[k].u.v) : "";
      const char *q = y->args[k].kind == OLG_ARG_VALUE ? vname(b, y->args[k].u.v) : "";
      if (strcmp(p, q)) return differ("node %s: input %u: %s/%s", x->name, k, p, q);
    }
    for (uint32_t k = 0; k < x->n_outputs; k++)
      if (strcmp(vname(a, x->outputs[k]), vname(b, y->outputs[k])))
        return differ("node %s: output %u", x->name, k);
    for (uint32_t k = 0; k < x->n_attrs; k++)
      if (!same_attr(&x->attrs[k], &y->attrs[k], x->name)) return false;
    if (!same_kvs(olg__node_metadata(x), olg__node_n_metadata(x), olg__node_metadata(y),
                  olg__node_n_metadata(y), x->name))
      return false;
  }
  if (j != b->n_nodes) return differ("graph %s: more nodes", a->name);
  return true;
}

static bool same_model(const olg_model *a, const olg_model *b) {
  why[0] = 0;
  if (a->ir_version != b->ir_version || a->n_opsets != b->n_opsets ||
      strcmp(a->producer_name, b->producer_name) || strcmp(a->producer_version, b->producer_version) ||
      strcmp(a->domain, b->domain) || strcmp(a->doc_string, b->doc_string) ||
      a->has_model_version != b->has_model_version || a->model_version != b->model_version)
    return differ("model header");
  for (uint32_t i = 0; i < a->n_opsets; i++)
    if (strcmp(a->opsets[i].domain, b->opsets[i].domain) || a->opsets[i].version != b->opsets[i].version)
      return differ("opset %u", i);
  if (!same_kvs(a->metadata, a->n_metadata, b->metadata, b->n_metadata, "model")) return false;
  return same_graph(a->graph, b->graph);
}

/* ---------------------------------------------------------------------------------------- */
/* A model that uses every part of the format */

static float f32_data[6] = {1.5f, -2.0f, 0.0f, -0.0f, 3.25f, 1e-30f};

/* SparseTensorProto bytes: values float [2] at indices [1, 4] of a [5] tensor */
static void sparse_bytes(pbuf *b, const char *name) {
  pbuf v = {0}, ix = {0};
  float vals[2] = {7, 8};
  int64_t idx[2] = {1, 4};
  pint(&v, 1, 2);
  pint(&v, 2, OLG_FLOAT);
  pstr(&v, 8, name);
  pbytes(&v, 9, vals, sizeof vals);
  pint(&ix, 1, 2);
  pint(&ix, 2, OLG_INT64);
  pbytes(&ix, 9, idx, sizeof idx);
  pmsg(b, 1, &v);
  pmsg(b, 2, &ix);
  pint(b, 3, 5);
}

static olg_status subgraph_neg(olg_model *m, const char *name, const char *outer, const char *out,
                               olg_graph **res) {
  olg_graph *g;
  olg_status s;
  if ((s = olg_model_new_subgraph(m, &g)) || (s = olg_graph_set_name(g, name))) return s;
  olg_value x, y;
  olg_node_id n;
  /* the outer value is captured by name */
  if ((s = olg__graph_add_value(g, outer, false, &x))) return s;
  g->values[x].flags |= OLG_VF_OUTER;
  if ((s = olg_node_begin(g, "", "Neg", "neg", &n)) || (s = olg_node_arg_value(g, n, x))) return s;
  const char *names[1] = {out};
  if ((s = olg_node_end(g, n, 1, names, &y))) return s;
  const int64_t d[2] = {OLG_DIM_UNKNOWN, 3};
  const char *p[2] = {"batch", NULL};
  if ((s = olg_value_set_type(g, y, OLG_FLOAT, 2, d, p)) || (s = olg_graph_add_output(g, y))) return s;
  *res = g;
  return OLG_OK;
}

static olg_type *new_tensor_type(olg_model *m, olg_dtype dt, int32_t rank, const int64_t *dims,
                                 const char *const *params) {
  olg_type *t = olg__arena_alloc(m, sizeof *t);
  if (!t) return NULL;
  t->kind = OLG_TYPE_TENSOR;
  t->has_elem = true;
  if (olg__type_set_elem(m, t, dt)) return NULL;
  t->rank = rank;
  t->has_shape = rank >= 0;
  if (rank > 0) {
    if (!(t->dims = olg__arena_alloc(m, (size_t)rank * sizeof *t->dims))) return NULL;
    for (int32_t i = 0; i < rank; i++) {
      t->dims[i].value = dims[i];
      t->dims[i].param = params && params[i] ? olg__strdup(m, params[i]) : NULL;
    }
  }
  return t;
}

static uint8_t all_dtype_data[OLG_DTYPE_MAX + 1][128];

static olg_status build_rich(olg_model *m) {
  olg_graph *g = olg_model_graph(m);
  olg_status s;
  if ((s = olg_model_set_opset(m, "", 17)) || (s = olg_model_set_opset(m, "com.example", 1)) ||
      (s = olg_model_set_string(m, OLG_MODEL_PRODUCER_NAME, "test")) ||
      (s = olg_model_set_string(m, OLG_MODEL_PRODUCER_VERSION, "1.0")) ||
      (s = olg_model_set_string(m, OLG_MODEL_DOMAIN, "org.test")) ||
      (s = olg_model_set_string(m, OLG_MODEL_DOC_STRING, "a model with everything")) ||
      (s = olg_model_set_model_version(m, 42)) || (s = olg_model_set_metadata(m, "author", "me")) ||
      (s = olg_model_set_metadata(m, "empty", "")) || (s = olg_graph_set_name(g, "main")) ||
      (s = olg_graph_set_doc_string(g, "the main graph")))
    return s;
  olg_value x, cond, trip;
  const int64_t xd[2] = {OLG_DIM_UNKNOWN, 3};
  const char *xp[2] = {"batch", NULL};
  if ((s = olg_graph_add_input(g, "x", OLG_FLOAT, 2, xd, xp, &x)) ||
      (s = olg_graph_add_input(g, "cond", OLG_BOOL, 0, NULL, NULL, &cond)) ||
      (s = olg_graph_add_input(g, "trip", OLG_INT64, 0, NULL, NULL, &trip)))
    return s;
  olg_value_more *xm = olg__value_more_own(m, &g->values[x]);
  if (!xm) return OLG_ERR_NOMEM;
  xm->doc_string = "the input";
  /* an initializer of every dtype */
  for (int dt = 1; dt <= OLG_DTYPE_MAX; dt++) {
    if (dt == OLG_STRING) continue;
    const int64_t d[1] = {5};
    size_t nb = olg_dtype_nbytes(dt, 5);
    for (size_t i = 0; i < nb; i++)
      all_dtype_data[dt][i] = dt == OLG_BOOL ? (uint8_t)(i & 1) : (uint8_t)(i * 37 + (size_t)dt);
    char name[64];
    snprintf(name, sizeof name, "init_%s", olg_dtype_name(dt));
    if ((s = olg_graph_add_initializer(g, name, dt, 1, d, all_dtype_data[dt], nb, OLG_DATA_BORROW,
                                       NULL, NULL, NULL)))
      return s;
  }
  const char *strs[3] = {"a\0b", "", "x\0\0z"};
  const size_t lens[3] = {3, 0, 4};
  const int64_t sd[1] = {3};
  olg_value sv, w;
  if ((s = olg_graph_add_string_initializer(g, "strings", 1, sd, strs, lens, &sv))) return s;
  const int64_t wd[2] = {2, 3};
  if ((s = olg_graph_add_initializer(g, "w", OLG_FLOAT, 2, wd, f32_data, sizeof f32_data,
                                     OLG_DATA_BORROW, NULL, NULL, &w)))
    return s;
  /* y = x + w */
  olg_node_id n;
  olg_value y;
  if ((s = olg_node_begin(g, "", "Add", "add0", &n)) || (s = olg_node_arg_value(g, n, x)) ||
      (s = olg_node_arg_value(g, n, w)))
    return s;
  const char *yn[1] = {"y"};
  if ((s = olg_node_end(g, n, 1, yn, &y)) || (s = olg_graph_add_value_info(g, y))) return s;
  if ((s = olg_value_set_type(g, y, OLG_FLOAT, 2, xd, xp))) return s;
  olg_kv *meta = olg__arena_alloc(m, 2 * sizeof *meta);
  if (!meta) return OLG_ERR_NOMEM;
  meta[0] = (olg_kv){"k1", "v1"};
  meta[1] = (olg_kv){"k2", ""};
  if ((s = olg__node_set_more(m, &g->nodes[n], &(olg_node_more){.doc_string = "adds",
                                                                 .metadata = meta,
                                                                 .n_metadata = 2})) ||
      (s = olg__value_set_more(m, &g->values[y], &(olg_value_more){.metadata = meta,
                                                                    .n_metadata = 1})))
    return s;

  /* every attribute type, on a custom-domain node */
  if ((s = olg_node_begin(g, "com.example", "AllAttrs", "all", &n)) ||
      (s = olg_node_arg_value(g, n, y)) || (s = olg_node_arg_none(g, n)) ||
      (s = olg_node_arg_value(g, n, sv)))
    return s;
  const int64_t ints[4] = {1, -1, INT64_MAX, INT64_MIN};
  const float floats[3] = {0.5f, -1e30f, 3.0f};
  const char *sl[2] = {"alpha", ""};
  if ((s = olg_node_attr_int(g, n, "i", -7)) || (s = olg_node_attr_float(g, n, "f", -0.25f)) ||
      (s = olg_node_attr_bytes(g, n, "s", "nul\0inside", 10)) ||
      (s = olg_node_attr_ints(g, n, "ints", ints, 4)) ||
      (s = olg_node_attr_floats(g, n, "floats", floats, 3)) ||
      (s = olg_node_attr_strings(g, n, "strings", sl, 2)) ||
      (s = olg_node_attr_ints(g, n, "no_ints", NULL, 0)))
    return s;
  const int64_t td[1] = {3};
  const uint8_t i4[2] = {0x7f, 0x08};
  if ((s = olg_node_attr_tensor(g, n, "t", OLG_INT4, 1, td, i4, 2))) return s;
  olg_graph *sub1, *sub2, *sub3;
  if ((s = subgraph_neg(m, "g_one", "x", "o1", &sub1)) || (s = olg_node_attr_graph(g, n, "g", sub1)) ||
      (s = subgraph_neg(m, "g_two", "x", "o2", &sub2)) ||
      (s = subgraph_neg(m, "g_three", "y", "o3", &sub3)))
    return s;
  olg_graph *subs[2] = {sub2, sub3};
  if ((s = olg_node_attr_graphs(g, n, "gs", subs, 2))) return s;
  /* the kinds the public API does not build: through the IR */
  olg_attr a;
  olg_tensor *t1, *t2;
  const uint16_t h[2] = {0x3c00, 0xc000};
  const double dd[1] = {2.5};
  if ((s = olg__tensor_new(m, "th", OLG_FLOAT16, 1, (const int64_t[]){2}, h, 4, OLG_DATA_COPY, NULL, NULL, &t1)) ||
      (s = olg__tensor_new(m, NULL, OLG_DOUBLE, 0, NULL, dd, 8, OLG_DATA_COPY, NULL, NULL, &t2)))
    return s;
  olg_tensor **ts = olg__arena_alloc(m, 2 * sizeof *ts);
  if (!ts) return OLG_ERR_NOMEM;
  ts[0] = t1;
  ts[1] = t2;
  memset(&a, 0, sizeof a);
  a.name = "tensors";
  a.type = OLG_ATTR_TENSORS;
  a.n = 2;
  a.tensors = ts;
  if ((s = olg__node_add_attr(g, n, &a))) return s;
  olg_type *tt = new_tensor_type(m, OLG_FLOAT, 2, xd, xp);
  olg_type *seq = olg__arena_alloc(m, sizeof *seq), *map = olg__arena_alloc(m, sizeof *map),
           *opt = olg__arena_alloc(m, sizeof *opt), *opq = olg__arena_alloc(m, sizeof *opq),
           *sp = new_tensor_type(m, OLG_FLOAT, 1, (const int64_t[]){5}, NULL);
  if (!tt || !seq || !map || !opt || !opq || !sp) return OLG_ERR_NOMEM;
  sp->kind = OLG_TYPE_SPARSE_TENSOR;
  static const olg_type_more seq_more = {.denotation = "seq"},
                             opq_more = {.opaque_domain = "d", .opaque_name = "n"};
  *seq = (olg_type){.kind = OLG_TYPE_SEQUENCE, .rank = OLG_RANK_UNKNOWN, .more = &seq_more};
  *map = (olg_type){.kind = OLG_TYPE_MAP, .rank = OLG_RANK_UNKNOWN};
  *opt = (olg_type){.kind = OLG_TYPE_OPTIONAL, .rank = OLG_RANK_UNKNOWN};
  if ((s = olg__type_set_inner(m, seq, tt)) || (s = olg__type_set_key(m, map, OLG_INT64)) ||
      (s = olg__type_set_inner(m, map, seq)) || (s = olg__type_set_inner(m, opt, map)))
    return s;
  *opq = (olg_type){.kind = OLG_TYPE_OPAQUE, .rank = OLG_RANK_UNKNOWN, .more = &opq_more};
  memset(&a, 0, sizeof a);
  a.name = "tp";
  a.type = OLG_ATTR_TYPE_PROTO;
  a.tp = opt;
  if ((s = olg__node_add_attr(g, n, &a))) return s;
  olg_type **tps = olg__arena_alloc(m, 3 * sizeof *tps);
  if (!tps) return OLG_ERR_NOMEM;
  tps[0] = tt;
  tps[1] = opq;
  tps[2] = sp;
  memset(&a, 0, sizeof a);
  a.name = "tps";
  a.type = OLG_ATTR_TYPE_PROTOS;
  a.n = 3;
  a.tps = tps;
  if ((s = olg__node_add_attr(g, n, &a))) return s;
  /* sparse tensors are kept as SparseTensorProto bytes */
  pbuf sb = {0};
  sparse_bytes(&sb, "sv");
  olg_pb_span *span = olg__arena_alloc(m, 2 * sizeof *span);
  const void **sps = olg__arena_alloc(m, 2 * sizeof *sps);
  uint8_t *copy = olg__arena_dup(m, sb.p, sb.n);
  size_t sbn = sb.n;
  pbuf_free(&sb);
  if (!span || !sps || !copy) return OLG_ERR_NOMEM;
  span[0] = span[1] = (olg_pb_span){copy, sbn};
  sps[0] = &span[0];
  sps[1] = &span[1];
  memset(&a, 0, sizeof a);
  a.name = "sparse";
  a.type = OLG_ATTR_SPARSE_TENSOR;
  a.sparse = &span[0];
  if ((s = olg__node_add_attr(g, n, &a))) return s;
  memset(&a, 0, sizeof a);
  a.name = "sparses";
  a.type = OLG_ATTR_SPARSE_TENSORS;
  a.n = 2;
  a.sparses = sps;
  if ((s = olg__node_add_attr(g, n, &a))) return s;
  memset(&a, 0, sizeof a);
  a.name = "ref";
  a.type = OLG_ATTR_FLOAT;
  a.ref_attr_name = "alpha";
  a.doc_string = "from the caller";
  if ((s = olg__node_add_attr(g, n, &a))) return s;
  const char *an[2] = {"all_out", ""};
  olg_value outs[2];
  if ((s = olg_node_end(g, n, 2, an, outs))) return s;
  olg_node_more *nm = olg__node_more_own(m, &g->nodes[n]);
  if (!nm) return OLG_ERR_NOMEM;
  nm->overload = "v2";

  /* If with then/else, Loop with a body */
  olg_graph *then_g, *else_g, *body;
  if ((s = subgraph_neg(m, "then", "x", "t_out", &then_g)) ||
      (s = subgraph_neg(m, "else", "y", "e_out", &else_g)))
    return s;
  olg_value if_out;
  if ((s = olg_node_begin(g, "", "If", "if0", &n)) || (s = olg_node_arg_value(g, n, cond)) ||
      (s = olg_node_attr_graph(g, n, "then_branch", then_g)) ||
      (s = olg_node_attr_graph(g, n, "else_branch", else_g)) ||
      (s = olg_node_end(g, n, 1, (const char *[]){"if_out"}, &if_out)))
    return s;
  if ((s = olg_model_new_subgraph(m, &body)) || (s = olg_graph_set_name(body, "body"))) return s;
  olg_value it, bc, carried, bc_out, c_out;
  const int64_t cd[2] = {OLG_DIM_UNKNOWN, 3};
  const char *cp[2] = {"batch", NULL};
  if ((s = olg_graph_add_input(body, "iter", OLG_INT64, 0, NULL, NULL, &it)) ||
      (s = olg_graph_add_input(body, "bcond", OLG_BOOL, 0, NULL, NULL, &bc)) ||
      (s = olg_graph_add_input(body, "carried", OLG_FLOAT, 2, cd, cp, &carried)))
    return s;
  olg_value wb;
  if ((s = olg__graph_add_value(body, "w", false, &wb))) return s;
  body->values[wb].flags |= OLG_VF_OUTER;
  if ((s = olg_node_begin(body, "", "Identity", "", &n)) || (s = olg_node_arg_value(body, n, bc)) ||
      (s = olg_node_end(body, n, 1, (const char *[]){"bcond_out"}, &bc_out)) ||
      (s = olg_node_begin(body, "", "Add", "", &n)) || (s = olg_node_arg_value(body, n, carried)) ||
      (s = olg_node_arg_value(body, n, wb)) ||
      (s = olg_node_end(body, n, 1, (const char *[]){"carried_out"}, &c_out)) ||
      (s = olg_graph_add_output(body, bc_out)) || (s = olg_graph_add_output(body, c_out)))
    return s;
  olg_value loop_out;
  if ((s = olg_node_begin(g, "", "Loop", "loop0", &n)) || (s = olg_node_arg_value(g, n, trip)) ||
      (s = olg_node_arg_value(g, n, cond)) || (s = olg_node_arg_value(g, n, x)) ||
      (s = olg_node_attr_graph(g, n, "body", body)) ||
      (s = olg_node_end(g, n, 1, (const char *[]){"loop_out"}, &loop_out)))
    return s;
  if ((s = olg_graph_add_output(g, if_out)) || (s = olg_graph_add_output(g, loop_out)) ||
      (s = olg_graph_add_output(g, outs[0])))
    return s;
  /* a typed output with a symbolic dim and a sequence-typed value_info */
  if ((s = olg_value_set_type(g, loop_out, OLG_FLOAT, 2, xd, xp))) return s;
  g->values[outs[0]].type = *seq;
  return olg_graph_add_value_info(g, outs[0]);
}

TEST(serialize_round_trip_rich_model) {
  olg_model *m, *m2, *m3;
  CHECK_OK(olg_model_new(&m, NULL));
  CHECK_OK(build_rich(m));
  pbuf b1, b2;
  CHECK_OK(write_mem(m, &b1));
  CHECK_OK(read_mem(&m2, &b1));
  bool same = same_model(m, m2);
  if (!same) olg_test_fail(__FILE__, __LINE__, "read back differs: %s", why);
  /* a second round gives the same bytes */
  CHECK_OK(write_mem(m2, &b2));
  CHECK(pbuf_same(&b1, &b2));
#ifndef OLG_TEST_NO_PROTOBUF_C
  /* and the bytes are a ModelProto for protobuf-c's own parser too */
  Onnx__ModelProto *pm = onnx__model_proto__unpack(NULL, b1.n, b1.p);
  CHECK(pm != NULL);
  CHECK_EQ(pm->ir_version, olg_model_ir_version(m)); /* opset 17: IR 8 */
  CHECK_EQ(pm->n_opset_import, 2);
  CHECK_STR(pm->producer_name, "test");
  CHECK_EQ(pm->model_version, 42);
  CHECK_EQ(pm->n_metadata_props, 2);
  Onnx__GraphProto *pg = pm->graph;
  CHECK_EQ(pg->n_initializer, OLG_DTYPE_MAX + 1);
  CHECK_EQ(pg->n_node, 4);
  CHECK_STR(pg->node[1]->op_type, "AllAttrs");
  CHECK_STR(pg->node[1]->domain, "com.example");
  CHECK_STR(pg->node[1]->input[1], "");
  CHECK_EQ(pg->node[1]->n_attribute, 16);
  for (size_t i = 0; i < pg->n_initializer; i++) {
    Onnx__TensorProto *t = pg->initializer[i];
    if (t->data_type == OLG_STRING) {
      CHECK_EQ(t->n_string_data, 3);
      CHECK(t->string_data[0].len == 3 && memcmp(t->string_data[0].data, "a\0b", 3) == 0);
      CHECK(t->string_data[2].len == 4 && memcmp(t->string_data[2].data, "x\0\0z", 4) == 0);
    } else if (strcmp(t->name, "w") != 0) {
      CHECK_EQ(t->raw_data.len, olg_dtype_nbytes(t->data_type, 5));
      uint8_t le[256]; /* the file's bytes: little-endian */
      CHECK(t->raw_data.len <= sizeof le);
      olg__swap_bytes(le, all_dtype_data[t->data_type], t->raw_data.len,
                      olg__wire_swap_unit(t->data_type));
      CHECK(memcmp(t->raw_data.data, le, t->raw_data.len) == 0);
    }
  }
  CHECK_STR(pg->input[0]->type->tensor_type->shape->dim[0]->dim_param, "batch");
  onnx__model_proto__free_unpacked(pm, NULL);
#endif
  /* what the reader made of it */
  olg_graph *g2 = olg_model_graph(m2);
  olg_value v;
  CHECK_OK(olg_graph_find_value(g2, "init_int4", &v));
  const void *data;
  size_t nb;
  CHECK_OK(olg_value_data(g2, v, &data, &nb));
  CHECK_EQ(nb, 3);
  CHECK(memcmp(data, all_dtype_data[OLG_INT4], 3) == 0);
  /* tensor data points into the input, not a copy */
  CHECK((const uint8_t *)data >= b1.p && (const uint8_t *)data < b1.p + b1.n);
  CHECK_EQ(g2->values[v].flags & OLG_VF_INITIALIZER, OLG_VF_INITIALIZER);
  const olg_node *loop = &g2->nodes[3];
  CHECK_STR(loop->op, "Loop");
  const olg_graph *body = loop->attrs[0].g;
  CHECK(body->parent == g2 && body->attached);
  olg_value bw = olg__graph_lookup(body, "w");
  CHECK(bw >= 0 && (body->values[bw].flags & OLG_VF_OUTER));
  CHECK(!(body->values[olg__graph_lookup(body, "carried")].flags & OLG_VF_OUTER));
  olg_model_free(m2);
  /* and a third time from the re-read model, compared with the built one */
  CHECK_OK(read_mem(&m3, &b2));
  same = same_model(m, m3);
  if (!same) olg_test_fail(__FILE__, __LINE__, "second read differs: %s", why);
  olg_model_free(m3);
  olg_model_free(m);
  pbuf_free(&b1);
  pbuf_free(&b2);
}

TEST(serialize_write_fd_and_file) {
  olg_model *m, *m2;
  CHECK_OK(olg_model_new(&m, NULL));
  CHECK_OK(build_rich(m));
  pbuf b;
  CHECK_OK(write_mem(m, &b));
  const char *path = test_tmp_path("ser_rich.onnx");
  CHECK_OK(olg_model_write_file(m, path, NULL));
  CHECK_OK(olg_model_read_file(&m2, path, NULL));
  CHECK(same_model(m, m2));
  pbuf b2;
  CHECK_OK(write_mem(m2, &b2));
  CHECK(pbuf_same(&b, &b2));
  olg_model_free(m2);
  pbuf_free(&b2);
  int fd = open(test_tmp_path("ser_rich_fd.onnx"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  CHECK(fd >= 0);
  CHECK_OK(olg_model_write_fd(m, fd, NULL));
  close(fd);
  CHECK_OK(olg_model_read_file(&m2, test_tmp_path("ser_rich_fd.onnx"), NULL));
  CHECK(same_model(m, m2));
  olg_model_free(m2);
  /* no temporary file is left beside the written one */
  char cmd[600];
  snprintf(cmd, sizeof cmd, "ls '%s' | grep -c tmp- > /dev/null", test_tmp_path(""));
  CHECK(system(cmd) != 0);
  /* a directory that does not exist */
  CHECK_STATUS(olg_model_write_file(m, "/nonexistent-dir/x.onnx", NULL), OLG_ERR_IO);
  CHECK_STATUS(olg_model_read_file(&m2, "/nonexistent-dir/x.onnx", NULL), OLG_ERR_NOT_FOUND);
  CHECK(m2 == NULL);
  olg_model_free(m);
  pbuf_free(&b);
}

TEST(serialize_refuses_unlowered_nodes) {
  olg_model *m;
  CHECK_OK(olg_model_new(&m, NULL));
  olg_graph *g = olg_model_graph(m);
  olg_value x, y;
  olg_node_id n;
  CHECK_OK(olg_graph_add_input(g, "x", OLG_FLOAT, 1, (const int64_t[]){4}, NULL, &x));
  CHECK_OK(olg_node_begin(g, "aten", "softmax", "layer1.softmax", &n));
  CHECK_OK(olg_node_arg_value(g, n, x));
  CHECK_OK(olg_node_arg_int(g, n, -1));
  CHECK_OK(olg_node_end(g, n, 1, NULL, &y));
  pbuf b;
  CHECK_STATUS(write_mem(m, &b), OLG_ERR_UNSUPPORTED);
  CHECK(strstr(olg_last_error(), "layer1.softmax") != NULL);
  CHECK(strstr(olg_last_error(), "aten::softmax") != NULL);
  CHECK(strstr(olg_last_error(), "#1 (int)") != NULL);
  CHECK_EQ(b.n, 0); /* nothing written: the first run found it */
  pbuf_free(&b);
  /* an open node */
  CHECK_OK(olg_node_begin(g, "", "Relu", "open", &n));
  g->nodes[0].state = OLG_NODE_DEAD;
  CHECK_STATUS(write_mem(m, &b), OLG_ERR_STATE);
  CHECK(strstr(olg_last_error(), "open") != NULL);
  pbuf_free(&b);
  olg_model_free(m);
}

/* ---------------------------------------------------------------------------------------- */
/* Allocation and sink failures */

static olg_status build_write_scenario(void *ud, const olg_allocator *a) {
  (void)ud;
  olg_model_options mo = OLG_MODEL_OPTIONS_INIT;
  mo.allocator = a;
  olg_model *m;
  olg_status s = olg_model_new(&m, &mo);
  if (s) return s;
  pbuf b = {0};
  s = build_rich(m);
  if (!s) s = olg_model_write_callback(m, pbuf_sink, &b, NULL);
  pbuf_free(&b);
  olg_model_free(m);
  return s;
}

static olg_status read_scenario(void *ud, const olg_allocator *a) {
  const pbuf *b = ud;
  olg_read_options o = OLG_READ_OPTIONS_INIT;
  o.allocator = a;
  olg_model *m;
  olg_status s = olg_model_read_memory(&m, b->p, b->n, &o);
  if (s) return s;
  pbuf out = {0};
  s = olg_model_write_callback(m, pbuf_sink, &out, NULL);
  if (!s && !pbuf_same(&out, b)) s = olg__err(OLG_ERR_STATE, "round trip differs");
  pbuf_free(&out);
  olg_model_free(m);
  return s;
}

TEST(serialize_every_allocation_failure_reported) {
  CHECK_FAIL_EACH_ALLOCATION(build_write_scenario, NULL);
  olg_model *m;
  CHECK_OK(olg_model_new(&m, NULL));
  CHECK_OK(build_rich(m));
  pbuf b;
  CHECK_OK(write_mem(m, &b));
  olg_model_free(m);
  CHECK_FAIL_EACH_ALLOCATION(read_scenario, &b);
  pbuf_free(&b);
}

TEST(serialize_sink_failure_at_every_call) {
  olg_model *m;
  CHECK_OK(olg_model_new(&m, NULL));
  CHECK_OK(build_rich(m));
  long calls = 0;
  for (long k = 1;; k++) {
    pbuf b = {0};
    b.fail_at = k;
    olg_status s = olg_model_write_callback(m, pbuf_sink, &b, NULL);
    pbuf_free(&b);
    if (s == OLG_OK) {
      calls = k - 1;
      break;
    }
    CHECK_STATUS(s, OLG_ERR_CALLBACK);
    CHECK(strstr(olg_last_error(), "callback") != NULL);
  }
  CHECK(calls >= 1);
  olg_model_free(m);
}

/* ---------------------------------------------------------------------------------------- */
/* Hand-made input: what the IR does not hold is kept, byte for byte */

/* A TensorProto for an initializer: dims, data_type, name, raw_data (canonical order). */
static void tensor_raw(pbuf *t, const char *name, int dt, const int64_t *dims, int rank,
                       const void *raw, size_t n) {
  for (int i = 0; i < rank; i++) pint(t, 1, (uint64_t)dims[i]);
  pint(t, 2, (uint64_t)dt);
  pstr(t, 8, name);
  pbytes(t, 9, raw, n);
}

static void vi_tensor(pbuf *vi, const char *name, int dt, const int64_t *dims, int rank) {
  pbuf ty = {0}, tt = {0}, sh = {0};
  for (int i = 0; i < rank; i++) {
    pbuf d = {0};
    pint(&d, 1, (uint64_t)dims[i]);
    pmsg(&sh, 1, &d);
  }
  pint(&tt, 1, (uint64_t)dt);
  pmsg(&tt, 2, &sh);
  pmsg(&ty, 1, &tt);
  pstr(vi, 1, name);
  pmsg(vi, 2, &ty);
}

/* Wraps a graph into a model: ir_version 8, the graph, opset 17. */
static void model_of(pbuf *model, pbuf *graph, pbuf *model_tail) {
  pbuf os = {0};
  pint(model, 1, 8);
  pmsg(model, 7, graph);
  pstr(&os, 1, "");
  pint(&os, 2, 17);
  pmsg(model, 8, &os);
  if (model_tail) {
    pbuf_add(model, model_tail->p, model_tail->n);
    pbuf_free(model_tail);
  }
}

/* read + write must give the same bytes back */
static bool round_trips(const pbuf *in) {
  olg_model *m;
  olg_status s = olg_model_read_memory(&m, in->p, in->n, NULL);
  if (s) return differ("read: %s: %s", olg_status_name(s), olg_last_error());
  pbuf out;
  s = write_mem(m, &out);
  olg_model_free(m);
  if (s) return differ("write: %s", olg_last_error());
  bool ok = pbuf_same(in, &out);
  if (!ok) {
    size_t i = 0;
    while (i < in->n && i < out.n && in->p[i] == out.p[i]) i++;
    differ("bytes differ at %zu (in %zu bytes, out %zu)", i, in->n, out.n);
  }
  pbuf_free(&out);
  return ok;
}

#define CHECK_ROUND_TRIP(b)                                                               \
  do {                                                                                    \
    if (!round_trips(b)) { olg_test_fail(__FILE__, __LINE__, "round trip: %s", why); return; } \
  } while (0)

TEST(serialize_keeps_unknown_and_uninterpreted_fields) {
  /* unknown fields (numbers 100+, every wire type) at every level, and the known fields the IR
   * does not interpret: functions, training_info, configuration, sparse_initializer,
   * quantization_annotation, device_configurations, segment, tensor metadata_props */
  pbuf unk = {0};
  pint(&unk, 100, 5);
  pstr(&unk, 101, "opaque");
  ptag(&unk, 102, 5);
  pbuf_add(&unk, "\1\2\3\4", 4);
  ptag(&unk, 103, 1);
  pbuf_add(&unk, "\1\2\3\4\5\6\7\10", 8);
  ptag(&unk, 104, 3); /* a group with a varint inside */
  pint(&unk, 1, 9);
  ptag(&unk, 104, 4);
#define UNK(b) pbuf_add((b), unk.p, unk.n)
  pbuf g = {0}, node = {0}, attr = {0}, t = {0}, vi = {0}, vo = {0}, seg = {0}, kv = {0};
  /* node with an attribute carrying a tensor with a segment */
  pstr(&node, 1, "x");
  pstr(&node, 1, "w");
  pstr(&node, 2, "y");
  pstr(&node, 3, "n0");
  pstr(&node, 4, "Custom");
  pstr(&attr, 1, "value");
  int64_t d2[1] = {2};
  float two[2] = {1, 2};
  pint(&t, 1, 2);
  pint(&t, 2, OLG_FLOAT);
  pint(&seg, 1, 0);
  pint(&seg, 2, 2);
  UNK(&seg);
  pmsg(&t, 3, &seg);
  pbytes(&t, 9, two, 8);
  pstr(&kv, 1, "tk");
  pstr(&kv, 2, "tv");
  pmsg(&t, 16, &kv);
  UNK(&t);
  pmsg(&attr, 5, &t);
  pint(&attr, 20, OLG_ATTR_TENSOR);
  UNK(&attr);
  pmsg(&node, 5, &attr);
  pstr(&node, 7, "com.x");
  pbuf dc = {0}, shs = {0};
  pstr(&dc, 1, "cfg");
  pstr(&shs, 1, "y");
  pint(&shs, 2, 0);
  pint(&shs, 2, 1);
  pmsg(&dc, 2, &shs);
  pint(&dc, 3, 1);
  pmsg(&node, 10, &dc);
  UNK(&node);
  pmsg(&g, 1, &node);
  pstr(&g, 2, "g");
  pbuf w = {0};
  tensor_raw(&w, "w", OLG_FLOAT, d2, 1, two, 8);
  UNK(&w);
  pmsg(&g, 5, &w);
  vi_tensor(&vi, "x", OLG_FLOAT, d2, 1);
  UNK(&vi);
  pmsg(&g, 11, &vi);
  vi_tensor(&vo, "y", OLG_FLOAT, d2, 1);
  pmsg(&g, 12, &vo);
  pbuf qa = {0}, qkv = {0};
  pstr(&qa, 1, "w");
  pstr(&qkv, 1, "SCALE_TENSOR");
  pstr(&qkv, 2, "w_scale");
  pmsg(&qa, 2, &qkv);
  pmsg(&g, 14, &qa);
  pbuf sp = {0};
  sparse_bytes(&sp, "sp");
  pmsg(&g, 15, &sp);
  UNK(&g);
  /* model-level: functions, training_info, configuration */
  pbuf tail = {0}, fn = {0}, fnode = {0}, tinfo = {0}, tg = {0}, cfg = {0};
  pstr(&fn, 1, "MyFn");
  pstr(&fn, 4, "a");
  pstr(&fn, 5, "b");
  pstr(&fnode, 1, "a");
  pstr(&fnode, 2, "b");
  pstr(&fnode, 4, "Relu");
  pmsg(&fn, 7, &fnode);
  pstr(&fn, 10, "com.x");
  pstr(&tg, 2, "init_graph");
  pmsg(&tinfo, 1, &tg);
  pstr(&cfg, 1, "cfg");
  pint(&cfg, 2, 2);
  pstr(&cfg, 3, "gpu0");
  pstr(&cfg, 3, "gpu1");
  pmsg(&tail, 20, &tinfo);
  pmsg(&tail, 25, &fn);
  pmsg(&tail, 26, &cfg);
  UNK(&tail);
  pbuf model = {0};
  model_of(&model, &g, &tail);
  CHECK_ROUND_TRIP(&model);
  /* the interpreted part is still interpreted */
  olg_model *m;
  CHECK_OK(read_mem(&m, &model));
  olg_graph *gr = olg_model_graph(m);
  CHECK_EQ(gr->n_nodes, 1);
  CHECK_STR(gr->nodes[0].op, "Custom");
  CHECK_EQ(gr->nodes[0].attrs[0].type, OLG_ATTR_TENSOR);
  CHECK_EQ(gr->nodes[0].attrs[0].t->nbytes, 8);
  /* the sparse initializer defines a value */
  olg_value spv = olg__graph_lookup(gr, "sp");
  CHECK(spv >= 0 && gr->values[spv].type.kind == OLG_TYPE_SPARSE_TENSOR);
  olg_model_free(m);
  pbuf_free(&model);
  pbuf_free(&unk);
#undef UNK
}

TEST(serialize_keeps_what_the_ir_conventions_cannot_tell) {
  pbuf g = {0}, n1 = {0}, n2 = {0}, a = {0}, a2 = {0}, a3 = {0};
  /* a node with present-but-empty name and domain; one without op_type */
  pstr(&n1, 1, "x");
  pstr(&n1, 2, "y");
  pstr(&n1, 3, "");
  pstr(&n1, 4, "Relu");
  pstr(&n1, 7, "");
  pmsg(&g, 1, &n1);
  pstr(&n2, 1, "y");
  pstr(&n2, 2, "z");
  /* an attribute without a type (old files), one whose fields disagree with its type, one
   * with a type that is not an AttributeType */
  pstr(&a, 1, "alpha");
  ptag(&a, 2, 5);
  pbuf_add(&a, "\0\0\200\77", 4);
  pmsg(&n2, 5, &a);
  pstr(&a2, 1, "mixed");
  pint(&a2, 3, 0);
  pint(&a2, 8, 1);
  pint(&a2, 8, 2);
  pint(&a2, 20, OLG_ATTR_FLOAT);
  pmsg(&n2, 5, &a2);
  pstr(&a3, 1, "odd");
  pint(&a3, 3, 4);
  pint(&a3, 20, 99);
  pmsg(&n2, 5, &a3);
  pmsg(&g, 1, &n2);
  pstr(&g, 2, "");
  /* input x; output z twice with different descriptions; a value_info without a type for y; a
   * TypeProto with a negative dim and one with a dim_param and denotation */
  pbuf vx = {0}, vz1 = {0}, vz2 = {0}, vy = {0};
  int64_t neg[2] = {-1, 4};
  vi_tensor(&vx, "x", OLG_FLOAT, neg, 2);
  pmsg(&g, 11, &vx);
  vi_tensor(&vz1, "z", OLG_FLOAT, (int64_t[]){4}, 1);
  pmsg(&g, 12, &vz1);
  vi_tensor(&vz2, "z", OLG_DOUBLE, NULL, 0);
  pstr(&vz2, 3, "again");
  pmsg(&g, 12, &vz2);
  pstr(&vy, 1, "y");
  pmsg(&g, 13, &vy);
  pbuf model = {0};
  model_of(&model, &g, NULL);
  CHECK_ROUND_TRIP(&model);
  olg_model *m;
  CHECK_OK(read_mem(&m, &model));
  olg_graph *gr = olg_model_graph(m);
  CHECK_EQ(gr->nodes[1].attrs[0].type, OLG_ATTR_FLOAT); /* inferred */
  CHECK(gr->nodes[1].attrs[0].f == 1.0f);
  CHECK_EQ(gr->nodes[1].attrs[1].type, OLG_ATTR_FLOAT);
  CHECK_EQ(gr->outputs.n, 2);
  CHECK_EQ(gr->outputs.p[0], gr->outputs.p[1]); /* one value, listed twice */
  /* x's TypeProto (dim -1) is kept as it was; an edit of the type wins over it, even when the
   * editor carries the extra along (as inference does) */
  olg_value x = olg__graph_lookup(gr, "x");
  CHECK(olg__type_extra(&gr->values[x].type) != NULL);
  const olg_type_more *kept = gr->values[x].type.more; /* no denotation: only the extra */
  CHECK_OK(olg_value_set_type(gr, x, OLG_FLOAT16, 2, (const int64_t[]){5, 4}, NULL));
  gr->values[x].type.more = kept;
  pbuf out;
  CHECK_OK(write_mem(m, &out));
#ifndef OLG_TEST_NO_PROTOBUF_C
  Onnx__ModelProto *pm = onnx__model_proto__unpack(NULL, out.n, out.p);
  CHECK(pm != NULL);
  Onnx__TypeProto__Tensor *tt = pm->graph->input[0]->type->tensor_type;
  CHECK_EQ(tt->elem_type, OLG_FLOAT16);
  CHECK_EQ(tt->shape->dim[0]->dim_value, 5);
  onnx__model_proto__free_unpacked(pm, NULL);
#endif
  pbuf_free(&out);
  olg_model_free(m);
  pbuf_free(&model);
}

/* An element type is kept in a byte (olg_type.elem8); a code that does not fit (unknown: above
 * 254, or negative) is kept in the type's side record, so that every stage reads it whole and
 * the writer gives it back as it was, in a tensor type and nested in sequence, optional and map
 * types, as a map's key too. */
TEST(serialize_element_types_beyond_a_byte) {
  static const int codes[] = {254, 255, 256, 1000, INT32_MAX, -1, -300};
  for (size_t k = 0; k < sizeof codes / sizeof *codes; k++) {
    int code = codes[k];
    pbuf g = {0}, n = {0}, vx = {0}, vy = {0}, vs = {0}, vm = {0};
    pstr(&n, 1, "x");
    pstr(&n, 2, "y");
    pstr(&n, 3, "n");
    pstr(&n, 4, "Identity");
    pmsg(&g, 1, &n);
    pstr(&g, 2, "g");
    vi_tensor(&vx, "x", code, (const int64_t[]){2}, 1);
    pmsg(&g, 11, &vx);
    vi_tensor(&vy, "y", code, (const int64_t[]){2}, 1);
    pmsg(&g, 12, &vy);
    /* s: seq(tensor(code)); m: map(code, optional(tensor(code))) */
    pbuf tt = {0}, ty = {0}, sq = {0}, sty = {0};
    pint(&tt, 1, (uint64_t)code);
    pmsg(&ty, 1, &tt);
    pmsg(&sq, 1, &ty);
    pmsg(&sty, 4, &sq);
    pstr(&vs, 1, "s");
    pmsg(&vs, 2, &sty);
    pmsg(&g, 13, &vs);
    pbuf tt2 = {0}, ty2 = {0}, op = {0}, oty = {0}, mp = {0}, mty = {0};
    pint(&tt2, 1, (uint64_t)code);
    pmsg(&ty2, 1, &tt2);
    pmsg(&op, 1, &ty2);
    pmsg(&oty, 9, &op);
    pint(&mp, 1, (uint64_t)code);
    pmsg(&mp, 2, &oty);
    pmsg(&mty, 5, &mp);
    pstr(&vm, 1, "m");
    pmsg(&vm, 2, &mty);
    pmsg(&g, 13, &vm);
    pbuf model = {0};
    model_of(&model, &g, NULL);
    CHECK_ROUND_TRIP(&model);
    olg_model *m;
    CHECK_OK(read_mem(&m, &model));
    pbuf_free(&model);
    olg_graph *gr = olg_model_graph(m);
    olg_value x = olg__graph_lookup(gr, "x"), y = olg__graph_lookup(gr, "y");
    CHECK_EQ(olg_value_dtype(gr, x), code);
    CHECK_EQ(gr->values[x].type.elem8, code >= 0 && code < 255 ? code : OLG_TYPE_ELEM_WIDE);
    const olg_type *st = &gr->values[olg__graph_lookup(gr, "s")].type;
    CHECK(st->kind == OLG_TYPE_SEQUENCE && olg__type_inner(st) != NULL);
    CHECK_EQ(olg__type_elem(olg__type_inner(st)), code);
    const olg_type *mt = &gr->values[olg__graph_lookup(gr, "m")].type, *mv = olg__type_inner(mt);
    CHECK_EQ(olg__type_key(mt), code);
    CHECK(mv != NULL && mv->kind == OLG_TYPE_OPTIONAL && olg__type_inner(mv) != NULL);
    CHECK_EQ(olg__type_elem(olg__type_inner(mv)), code);
    /* copy on write: a copy's new element type leaves the original's side record alone */
    olg_type t = gr->values[x].type;
    CHECK_OK(olg__type_set_elem(m, &t, OLG_FLOAT));
    CHECK(t.elem8 == OLG_FLOAT && (!t.more || !t.more->elem));
    CHECK_EQ(olg_value_dtype(gr, x), code);
    CHECK_OK(olg__type_set_elem(m, &t, code));
    CHECK_EQ(olg__type_elem(&t), code);
    /* the checker names it undefined; inference carries it through */
    CHECK_STATUS(olg_check(m, NULL, NULL), OLG_ERR_INVALID_MODEL);
    olg_status s = olg_infer_shapes(m, NULL, NULL);
    CHECK(s == OLG_OK || s == OLG_ERR_INVALID_MODEL);
    CHECK_EQ(olg_value_dtype(gr, y), code);
    olg_model_free(m);
  }
}

TEST(serialize_typed_data_fields) {
  /* int32_data for int8/uint16/float16/bool/int4, int64_data, uint64_data for uint32,
   * double_data, float_data written unpacked: decoded into elements in the host's byte order
   * (want: little-endian, swapped on a big-endian host) */
  pbuf g = {0};
  struct { const char *name; int dt; int64_t n; int field; int64_t vals[4]; int nv; uint8_t want[8]; size_t nb; } cases[] = {
    {"i8", OLG_INT8, 3, 5, {-1, 5, -128}, 3, {0xff, 5, 0x80}, 3},
    {"u16", OLG_UINT16, 2, 5, {65535, 2}, 2, {0xff, 0xff, 2, 0}, 4},
    {"f16", OLG_FLOAT16, 1, 5, {0x3c00}, 1, {0x00, 0x3c}, 2},
    {"b", OLG_BOOL, 3, 5, {1, 0, 1}, 3, {1, 0, 1}, 3},
    {"i4", OLG_INT4, 3, 5, {0x7f, 0x08}, 2, {0x7f, 0x08}, 2},
    {"u2", OLG_UINT2, 5, 5, {0xe4, 0x03}, 2, {0xe4, 0x03}, 2},
    {"i64", OLG_INT64, 1, 7, {-2}, 1, {0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, 8},
    {"u32", OLG_UINT32, 2, 11, {4000000000LL, 7}, 2, {0x00, 0x28, 0x6b, 0xee, 7, 0, 0, 0}, 8},
  };
  size_t nc = sizeof cases / sizeof cases[0];
  for (size_t i = 0; i < nc; i++) {
    pbuf t = {0}, pk = {0};
    pint(&t, 1, (uint64_t)cases[i].n);
    pint(&t, 2, (uint64_t)cases[i].dt);
    for (int k = 0; k < cases[i].nv; k++) pv(&pk, (uint64_t)cases[i].vals[k]);
    pmsg(&t, (uint32_t)cases[i].field, &pk);
    pstr(&t, 8, cases[i].name);
    pmsg(&g, 5, &t);
  }
  /* double_data packed, float_data as separate fixed32 fields (unpacked) */
  pbuf td = {0}, tf = {0};
  double dv[2] = {1.5, -2.25};
  pint(&td, 1, 2);
  pint(&td, 2, OLG_DOUBLE);
  pstr(&td, 8, "d");
  uint8_t dle[16], fle[8];  /* little-endian on the wire */
  olg__swap_bytes(dle, dv, 16, olg__wire_swap_unit(OLG_DOUBLE));
  pbytes(&td, 10, dle, 16);
  pmsg(&g, 5, &td);
  float fv[2] = {0.5f, 4.0f};
  olg__swap_bytes(fle, fv, 8, olg__wire_swap_unit(OLG_FLOAT));
  pint(&tf, 1, 2);
  pint(&tf, 2, OLG_FLOAT);
  for (int k = 0; k < 2; k++) {
    ptag(&tf, 4, 5);
    pbuf_add(&tf, fle + 4 * k, 4);
  }
  pstr(&tf, 8, "f");
  pmsg(&g, 5, &tf);
  pbuf model = {0};
  model_of(&model, &g, NULL);
  olg_model *m;
  CHECK_OK(read_mem(&m, &model));
  olg_graph *gr = olg_model_graph(m);
  CHECK_EQ(gr->n_inits, nc + 2);
  for (size_t i = 0; i < nc; i++) {
    const olg_tensor *t = gr->inits[i].t;
    uint8_t want[8];
    olg__swap_bytes(want, cases[i].want, cases[i].nb, olg__wire_swap_unit(cases[i].dt));
    if (t->nbytes != cases[i].nb || memcmp(t->data, want, cases[i].nb) != 0) {
      olg_test_fail(__FILE__, __LINE__, "tensor %s: native bytes differ", cases[i].name);
      return;
    }
    CHECK(t->encoding == (cases[i].field == 5 ? OLG_ENC_INT32 : cases[i].field == 7 ? OLG_ENC_INT64 : OLG_ENC_UINT64));
  }
  CHECK(memcmp(gr->inits[nc].t->data, dv, 16) == 0);
  CHECK(memcmp(gr->inits[nc + 1].t->data, fv, 8) == 0);
  /* written back in the same fields (float_data packed now: the same message) */
  pbuf out;
  CHECK_OK(write_mem(m, &out));
  olg_model *m2;
  CHECK_OK(read_mem(&m2, &out));
  CHECK(same_model(m, m2));
  CHECK_EQ(m2->graph->inits[nc + 1].t->encoding, OLG_ENC_FLOAT);
#ifndef OLG_TEST_NO_PROTOBUF_C
  Onnx__ModelProto *pm = onnx__model_proto__unpack(NULL, out.n, out.p);
  CHECK(pm != NULL);
  CHECK_EQ(pm->graph->initializer[0]->n_int32_data, 3);
  CHECK_EQ(pm->graph->initializer[0]->int32_data[0], -1);
  CHECK_EQ(pm->graph->initializer[6]->int64_data[0], -2);
  CHECK_EQ(pm->graph->initializer[7]->uint64_data[0], 4000000000LL);
  CHECK_EQ(pm->graph->initializer[nc + 1]->n_float_data, 2);
  onnx__model_proto__free_unpacked(pm, NULL);
#endif
  olg_model_free(m2);
  olg_model_free(m);
  pbuf_free(&out);
  pbuf_free(&model);
  /* a value the canonical form would change (int8 held as 300) is kept as it was */
  pbuf g2 = {0}, t = {0}, pk = {0};
  pint(&t, 1, 1);
  pint(&t, 2, OLG_INT8);
  pv(&pk, 300);
  pmsg(&t, 5, &pk);
  pstr(&t, 8, "odd");
  pmsg(&g2, 5, &t);
  model_of(&model, &g2, NULL);
  CHECK_ROUND_TRIP(&model);
  pbuf_free(&model);
}

/* ---------------------------------------------------------------------------------------- */
/* Malformed input */

static void expect_refused(const char *file, int line, const pbuf *b, olg_status want,
                           const char *needle) {
  olg_model *m = (olg_model *)1;
  olg_status s = olg_model_read_memory(&m, b->p, b->n, NULL);
  if (s != want)
    olg_test_fail(file, line, "read gave %s, wanted %s (%s)", olg_status_name(s),
                  olg_status_name(want), olg_last_error());
  else if (m != NULL)
    olg_test_fail(file, line, "the model pointer was not cleared");
  else if (needle && !strstr(olg_last_error(), needle))
    olg_test_fail(file, line, "message '%s' does not mention '%s'", olg_last_error(), needle);
}
#define REFUSED(b, want, needle)                                                         \
  do {                                                                                   \
    expect_refused(__FILE__, __LINE__, (b), (want), (needle));                           \
    if (olg_test_failed()) return;                                                       \
  } while (0)

TEST(serialize_refuses_every_truncation) {
  olg_model *m;
  CHECK_OK(olg_model_new(&m, NULL));
  CHECK_OK(build_rich(m));
  pbuf b;
  CHECK_OK(write_mem(m, &b));
  olg_model_free(m);
  /* the top-level field boundaries: a cut there leaves a well-formed (shorter) ModelProto */
  bool *boundary = calloc(b.n + 1, 1);
  size_t graph_end = 0;
  for (size_t p = 0; p < b.n;) {
    uint64_t tag = 0, v = 0;
    unsigned sh = 0;
    while (b.p[p] & 0x80) tag |= (uint64_t)(b.p[p++] & 0x7f) << (sh += 7, sh - 7);
    tag |= (uint64_t)b.p[p++] << sh;
    if ((tag & 7) == 0) {
      while (b.p[p++] & 0x80) {}
    } else {
      sh = 0;
      while (b.p[p] & 0x80) v |= (uint64_t)(b.p[p++] & 0x7f) << (sh += 7, sh - 7);
      v |= (uint64_t)b.p[p++] << sh;
      p += v;
    }
    boundary[p] = true;
    if ((tag >> 3) == 7) graph_end = p;
  }
  size_t accepted = 0;
  for (size_t len = 0; len < b.n; len++) {
    pbuf cut = {.p = b.p, .n = len, .cap = len};
    olg_status s = olg_model_read_memory(&m, cut.p, cut.n, NULL);
    if (s == OLG_OK) {
      olg_model_free(m);
      if (!boundary[len] || len < graph_end) {
        olg_test_fail(__FILE__, __LINE__, "a cut at %zu bytes of %zu was accepted", len, b.n);
        break;
      }
      accepted++;
    } else if (s != OLG_ERR_PARSE || !strstr(olg_last_error(), "byte ")) {
      olg_test_fail(__FILE__, __LINE__, "cut at %zu: %s: %s", len, olg_status_name(s), olg_last_error());
      break;
    }
  }
  free(boundary);
  CHECK(accepted >= 1); /* after the graph: opset_import, metadata_props */
  pbuf_free(&b);
}

TEST(serialize_refuses_malformed_wire_format) {
  pbuf b = {0};
  /* a varint of 11 bytes */
  ptag(&b, 1, 0);
  for (int i = 0; i < 10; i++) pbuf_add(&b, "\xff", 1);
  pbuf_add(&b, "\x01", 1);
  REFUSED(&b, OLG_ERR_PARSE, "longer than 10 bytes");
  pbuf_free(&b);
  /* a length past the end */
  ptag(&b, 7, 2);
  pv(&b, 100);
  pbuf_add(&b, "\x0a\x00\x12\x00\x00", 5);
  REFUSED(&b, OLG_ERR_PARSE, "past the end");
  pbuf_free(&b);
  /* wire types 7 and 6 */
  pint(&b, 1, 8);
  ptag(&b, 3, 7);
  REFUSED(&b, OLG_ERR_PARSE, "wire type 7");
  pbuf_free(&b);
  ptag(&b, 200, 6);
  REFUSED(&b, OLG_ERR_PARSE, "wire type 6");
  pbuf_free(&b);
  /* a known field with the wrong wire type: ir_version as bytes, NodeProto.input as a varint */
  pstr(&b, 1, "8");
  REFUSED(&b, OLG_ERR_PARSE, "ModelProto.ir_version (field 1): wire type length-delimited, expected varint");
  pbuf_free(&b);
  pbuf g = {0}, n = {0};
  pint(&n, 1, 3);
  pmsg(&g, 1, &n);
  model_of(&b, &g, NULL);
  REFUSED(&b, OLG_ERR_PARSE, "NodeProto.input");
  pbuf_free(&b);
  /* field number 0; an end-group without a group; a group never closed */
  ptag(&b, 0, 0);
  pv(&b, 1);
  REFUSED(&b, OLG_ERR_PARSE, "field number 0");
  pbuf_free(&b);
  ptag(&b, 300, 4);
  REFUSED(&b, OLG_ERR_PARSE, "end-group");
  pbuf_free(&b);
  ptag(&b, 300, 3);
  pint(&b, 1, 1);
  REFUSED(&b, OLG_ERR_PARSE, "not closed");
  pbuf_free(&b);
  /* a bad varint inside a packed field */
  pbuf t = {0};
  pint(&t, 2, OLG_INT64);
  ptag(&t, 7, 2);
  pv(&t, 2);
  pbuf_add(&t, "\x81\x81", 2);
  pmsg(&g, 5, &t);
  model_of(&b, &g, NULL);
  REFUSED(&b, OLG_ERR_PARSE, "int64_data: packed varint truncated");
  pbuf_free(&b);
  /* an empty input, and no graph */
  REFUSED(&b, OLG_ERR_PARSE, "no graph");
  pint(&b, 1, 8);
  REFUSED(&b, OLG_ERR_PARSE, "no graph");
  pbuf_free(&b);
  /* a malformed part the IR keeps uninterpreted (a function's node) is refused too */
  pbuf fn = {0}, fnode = {0}, tail = {0};
  pstr(&fn, 1, "F");
  pint(&fnode, 4, 1); /* op_type as a varint */
  pmsg(&fn, 7, &fnode);
  pmsg(&tail, 25, &fn);
  model_of(&b, &g, &tail);
  REFUSED(&b, OLG_ERR_PARSE, "NodeProto.op_type");
  pbuf_free(&b);
}

/* A node's output and attribute counts share a word with its state (olg_node is 64 bytes):
 * past their limits a node is refused, never cut short. */
TEST(serialize_refuses_nodes_past_the_count_limits) {
  pbuf b = {0}, g = {0}, nd = {0};
  pstr(&nd, 4, "Split");
  for (uint32_t i = 0; i <= OLG_NODE_MAX_OUTPUTS; i++) pstr(&nd, 2, "o");
  pmsg(&g, 1, &nd);
  model_of(&b, &g, NULL);
  REFUSED(&b, OLG_ERR_LIMIT, "65536 outputs");
  pbuf_free(&b);
  pstr(&nd, 4, "Split");
  for (uint32_t i = 0; i < OLG_NODE_MAX_OUTPUTS; i++) pstr(&nd, 2, "o");
  pmsg(&g, 1, &nd);
  model_of(&b, &g, NULL);
  olg_model *m;
  CHECK_OK(olg_model_read_memory(&m, b.p, b.n, NULL));
  CHECK_EQ(olg_model_graph(m)->nodes[0].n_outputs, OLG_NODE_MAX_OUTPUTS);
  olg_model_free(m);
  pbuf_free(&b);
  pbuf a = {0};
  pstr(&nd, 4, "Custom");
  pstr(&a, 1, "k");
  pint(&a, 3, 1);
  pint(&a, 20, OLG_ATTR_INT);
  for (uint32_t i = 0; i <= OLG_NODE_MAX_ATTRS; i++) pbytes(&nd, 5, a.p, a.n);
  pbuf_free(&a);
  pmsg(&g, 1, &nd);
  model_of(&b, &g, NULL);
  REFUSED(&b, OLG_ERR_LIMIT, "16384 attributes");
  pbuf_free(&b);
}

TEST(serialize_refuses_bad_tensors) {
  pbuf b = {0}, g = {0}, t = {0};
  /* dims whose product overflows */
  pint(&t, 1, (uint64_t)1 << 62);
  pint(&t, 1, (uint64_t)1 << 62);
  pint(&t, 2, OLG_FLOAT);
  pstr(&t, 8, "huge");
  pmsg(&g, 5, &t);
  model_of(&b, &g, NULL);
  REFUSED(&b, OLG_ERR_LIMIT, "huge");
  pbuf_free(&b);
  /* a negative dim */
  pint(&t, 1, (uint64_t)-3);
  pint(&t, 2, OLG_FLOAT);
  pstr(&t, 8, "neg");
  pmsg(&g, 5, &t);
  model_of(&b, &g, NULL);
  REFUSED(&b, OLG_ERR_PARSE, "dims[0] is -3");
  pbuf_free(&b);
  /* raw_data of the wrong size */
  float six[5] = {0};
  tensor_raw(&t, "short", OLG_FLOAT, (int64_t[]){2, 3}, 2, six, sizeof six);
  pmsg(&g, 5, &t);
  model_of(&b, &g, NULL);
  REFUSED(&b, OLG_ERR_PARSE, "raw_data is 20 bytes, float of 6 elements needs 24");
  pbuf_free(&b);
  /* a typed field with the wrong count */
  pbuf pk = {0};
  pint(&t, 1, 3);
  pint(&t, 2, OLG_INT64);
  pv(&pk, 1);
  pv(&pk, 2);
  pmsg(&t, 7, &pk);
  pstr(&t, 8, "few");
  pmsg(&g, 5, &t);
  model_of(&b, &g, NULL);
  REFUSED(&b, OLG_ERR_PARSE, "int64_data has 2 values");
  pbuf_free(&b);
  /* an attribute with two tensors (protobuf would merge them: not supported) */
  pbuf n = {0}, a = {0}, t1 = {0}, t2 = {0};
  pstr(&a, 1, "value");
  pint(&t1, 2, OLG_FLOAT);
  pint(&t2, 2, OLG_FLOAT);
  pmsg(&a, 5, &t1);
  pmsg(&a, 5, &t2);
  pmsg(&n, 5, &a);
  pstr(&n, 4, "Constant");
  pmsg(&g, 1, &n);
  model_of(&b, &g, NULL);
  REFUSED(&b, OLG_ERR_UNSUPPORTED, "AttributeProto.t appears twice");
  pbuf_free(&b);
}

/* A model of `levels` nested subgraphs: each graph has one Loop whose body is the next. */
static void nested_model(pbuf *model, int levels) {
  pbuf g = {0};
  pstr(&g, 2, "innermost");
  for (int i = 0; i < levels; i++) {
    pbuf a = {0}, n = {0}, outer = {0};
    pstr(&a, 1, "body");
    pmsg(&a, 6, &g);
    pint(&a, 20, OLG_ATTR_GRAPH);
    pstr(&n, 4, "Loop");
    pmsg(&n, 5, &a);
    pmsg(&outer, 1, &n);
    g = outer;
  }
  memset(model, 0, sizeof *model);
  model_of(model, &g, NULL);
}

static olg_status nest_api(olg_model *m, olg_graph *g, int levels) {
  for (int i = 0; i < levels; i++) {
    olg_graph *sub;
    olg_node_id n;
    olg_status s;
    if ((s = olg_model_new_subgraph(m, &sub)) || (s = olg_node_begin(g, "", "Loop", NULL, &n)) ||
        (s = olg_node_attr_graph(g, n, "body", sub)) || (s = olg_node_end(g, n, 0, NULL, NULL)))
      return s;
    g = sub;
  }
  return OLG_OK;
}

TEST(serialize_nesting_limits) {
  pbuf b;
  nested_model(&b, 200); /* the one nesting limit of every stage (OLG_MAX_SUBGRAPH_DEPTH) */
  REFUSED(&b, OLG_ERR_LIMIT, "nested more than 50 graphs deep");
  pbuf_free(&b);
  nested_model(&b, OLG_MAX_SUBGRAPH_DEPTH + 1);
  REFUSED(&b, OLG_ERR_LIMIT, "nested more than 50 graphs deep");
  pbuf_free(&b);
  nested_model(&b, 50);
  CHECK_ROUND_TRIP(&b);
  pbuf_free(&b);
  /* deep TypeProto nesting: sequence of sequence of ... */
  pbuf ty = {0};
  pint(&ty, 6, 0); /* placeholder replaced below */
  pbuf_free(&ty);
  pbuf inner = {0}, tt = {0};
  pint(&tt, 1, OLG_FLOAT);
  pmsg(&inner, 1, &tt);
  for (int i = 0; i < 300; i++) {
    pbuf seq = {0}, outer = {0};
    pmsg(&seq, 1, &inner);
    pmsg(&outer, 4, &seq);
    inner = outer;
  }
  pbuf vi = {0}, g = {0};
  pstr(&vi, 1, "x");
  pmsg(&vi, 2, &inner);
  pmsg(&g, 11, &vi);
  model_of(&b, &g, NULL);
  REFUSED(&b, OLG_ERR_LIMIT, "TypeProto");
  pbuf_free(&b);
  /* the writer refuses what it could not read back */
  olg_model *m;
  CHECK_OK(olg_model_new(&m, NULL));
  CHECK_OK(nest_api(m, olg_model_graph(m), 70));
  CHECK_STATUS(write_mem(m, &b), OLG_ERR_LIMIT);
  pbuf_free(&b);
  olg_model_free(m);
  CHECK_OK(olg_model_new(&m, NULL));
  CHECK_OK(nest_api(m, olg_model_graph(m), 40));
  CHECK_OK(write_mem(m, &b));
  CHECK_ROUND_TRIP(&b);
  pbuf_free(&b);
  olg_model_free(m);
}

TEST(serialize_names_and_values) {
  /* a node input used before the node that makes it, a name defined twice, an outer capture,
   * an input that is also an initializer (old IR) */
  pbuf g = {0}, n1 = {0}, n2 = {0}, n3 = {0}, vx = {0}, vz = {0}, w = {0};
  pstr(&n1, 1, "later");
  pstr(&n1, 2, "z");
  pstr(&n1, 4, "Relu");
  pmsg(&g, 1, &n1);
  pstr(&n2, 1, "x");
  pstr(&n2, 2, "later");
  pstr(&n2, 4, "Relu");
  pmsg(&g, 1, &n2);
  pstr(&n3, 1, "w");
  pstr(&n3, 2, "later");
  pstr(&n3, 2, "");
  pstr(&n3, 4, "Dup");
  pmsg(&g, 1, &n3);
  float two[2] = {1, 2};
  tensor_raw(&w, "x", OLG_FLOAT, (int64_t[]){2}, 1, two, 8);
  pmsg(&g, 5, &w);
  /* an initializer described in value_info by its name alone: no type is added on write */
  pbuf k = {0};
  tensor_raw(&k, "k", OLG_FLOAT, (int64_t[]){2}, 1, two, 8);
  pmsg(&g, 5, &k);
  vi_tensor(&vx, "x", OLG_FLOAT, (int64_t[]){2}, 1);
  pmsg(&g, 11, &vx);
  vi_tensor(&vz, "z", OLG_FLOAT, (int64_t[]){2}, 1);
  pmsg(&g, 12, &vz);
  pbuf vk = {0};
  pstr(&vk, 1, "k");
  pmsg(&g, 13, &vk);
  pbuf b = {0};
  model_of(&b, &g, NULL);
  CHECK_ROUND_TRIP(&b);
  olg_model *m;
  CHECK_OK(read_mem(&m, &b));
  olg_graph *gr = olg_model_graph(m);
  olg_value x = olg__graph_lookup(gr, "x"), later = olg__graph_lookup(gr, "later");
  CHECK((gr->values[x].flags & (OLG_VF_INPUT | OLG_VF_INITIALIZER)) == (OLG_VF_INPUT | OLG_VF_INITIALIZER));
  CHECK_EQ(gr->values[x].init, 0);
  CHECK_EQ(gr->values[later].producer, 1); /* the forward reference is the value node 1 makes */
  CHECK_EQ(gr->nodes[0].args[0].u.v, later);
  CHECK_EQ(gr->dups.n, 1); /* 'later' made again by node 2 */
  CHECK(gr->values[gr->dups.p[0]].flags & OLG_VF_DUPLICATE);
  CHECK_EQ(gr->nodes[2].outputs[1], OLG_NO_VALUE);
  olg_value w_ = olg__graph_lookup(gr, "w");
  CHECK(w_ >= 0 && !(gr->values[w_].flags & OLG_VF_OUTER)); /* main graph: just undefined */
  olg_model_free(m);
  pbuf_free(&b);
}

/* ---------------------------------------------------------------------------------------- */
/* External data */

static const char *ext_dir(void) {
  static char dir[512];
  snprintf(dir, sizeof dir, "%s", test_tmp_path("ser_ext"));
  mkdir(dir, 0755);
  return dir;
}

static void path_in(char *out, size_t cap, const char *dir, const char *name) {
  snprintf(out, cap, "%s/%s", dir, name);
}

static uint8_t big[3][5000];

static olg_status build_ext_model(olg_model *m) {
  olg_graph *g = olg_model_graph(m);
  olg_status s;
  for (int k = 0; k < 3; k++) {
    for (size_t i = 0; i < sizeof big[k]; i++) big[k][i] = (uint8_t)(i * 7 + (size_t)k);
    char name[16];
    snprintf(name, sizeof name, "big%d", k);
    if ((s = olg_graph_add_initializer(g, name, OLG_UINT8, 1, (const int64_t[]){5000}, big[k],
                                       5000, OLG_DATA_BORROW, NULL, NULL, NULL)))
      return s;
  }
  const float small[2] = {1, 2};
  if ((s = olg_graph_add_initializer(g, "small", OLG_FLOAT, 1, (const int64_t[]){2}, small, 8,
                                     OLG_DATA_COPY, NULL, NULL, NULL)))
    return s;
  olg_node_id n;
  float cst[300];
  for (int i = 0; i < 300; i++) cst[i] = (float)i;
  if ((s = olg_node_begin(g, "", "Constant", "c", &n)) ||
      (s = olg_node_attr_tensor(g, n, "value", OLG_FLOAT, 1, (const int64_t[]){300}, cst, sizeof cst)) ||
      (s = olg_node_end(g, n, 1, (const char *[]){"c_out"}, NULL)))
    return s;
  return olg_model_set_opset(m, "", 17);
}

TEST(serialize_external_data_round_trip) {
  const char *dir = ext_dir();
  char path[700], data[700];
  path_in(path, sizeof path, dir, "model.onnx");
  path_in(data, sizeof data, dir, "model.data");
  unlink(data);
  olg_model *m, *m2;
  CHECK_OK(olg_model_new(&m, NULL));
  CHECK_OK(build_ext_model(m));
  olg_write_options wo = OLG_WRITE_OPTIONS_INIT;
  wo.external_data = "model.data";
  wo.external_data_threshold = 1024;
  CHECK_OK(olg_model_write_file(m, path, &wo));
  struct stat st;
  CHECK(stat(data, &st) == 0);
  CHECK(st.st_size >= 3 * 5000 + 1200);
  CHECK(stat(path, &st) == 0);
  CHECK(st.st_size < 1000); /* the weights are not inline */
  CHECK_OK(olg_model_read_file(&m2, path, NULL));
  CHECK(same_model(m, m2));
  const olg_tensor *t = m2->graph->inits[1].t;
  CHECK(t->external_loaded);
  CHECK_EQ(t->owner, OLG_OWNER_MAPPED);
  CHECK_EQ(t->n_external, 3);
  CHECK_STR(t->external[0].key, "location");
  CHECK_STR(t->external[0].value, "model.data");
  CHECK(!m2->graph->inits[3].t->external_loaded); /* 8 bytes: below the threshold */
  CHECK(m2->graph->nodes[0].attrs[0].t->external_loaded); /* a Constant's 1200 bytes */
  /* written without the option: inline again, equal to the model without external data */
  pbuf inline_from_ext, inline_direct;
  CHECK_OK(write_mem(m2, &inline_from_ext));
  CHECK_OK(write_mem(m, &inline_direct));
  CHECK(pbuf_same(&inline_from_ext, &inline_direct));
  olg_model_free(m2);
  /* references only: kept as they are, and written back as references */
  olg_read_options ro = OLG_READ_OPTIONS_INIT;
  ro.load_external_data = 0;
  CHECK_OK(olg_model_read_file(&m2, path, &ro));
  t = m2->graph->inits[0].t;
  CHECK_EQ(t->encoding, OLG_ENC_EXTERNAL);
  CHECK(t->data == NULL && !t->external_loaded);
  pbuf refs;
  CHECK_OK(write_mem(m2, &refs));
  olg_model_free(m2);
  int fd = open(path, O_RDONLY);
  CHECK(fd >= 0);
  uint8_t file[1000];
  ssize_t k = read(fd, file, sizeof file);
  close(fd);
  CHECK(k > 0 && (size_t)k == refs.n && memcmp(file, refs.p, refs.n) == 0);
  pbuf_free(&refs);
  /* from memory: refused without a directory, found with one */
  CHECK_OK(olg_model_read_file(&m2, path, &ro));
  pbuf mem;
  CHECK_OK(write_mem(m2, &mem));
  olg_model_free(m2);
  REFUSED(&mem, OLG_ERR_INVALID_ARG, "no directory");
  ro.load_external_data = 1;
  ro.external_data_dir = dir;
  CHECK_OK(olg_model_read_memory(&m2, mem.p, mem.n, &ro));
  CHECK(same_model(m, m2));
  olg_model_free(m2);
  /* write_callback with external data needs the directory */
  pbuf cb = {0};
  CHECK_STATUS(olg_model_write_callback(m, pbuf_sink, &cb, &wo), OLG_ERR_INVALID_ARG);
  wo.external_data_dir = dir;
  wo.external_data = "cb.data";
  CHECK_OK(olg_model_write_callback(m, pbuf_sink, &cb, &wo));
  CHECK_OK(olg_model_read_memory(&m2, cb.p, cb.n, &ro));
  CHECK(same_model(m, m2));
  olg_model_free(m2);
  pbuf_free(&cb);
  pbuf_free(&mem);
  pbuf_free(&inline_from_ext);
  pbuf_free(&inline_direct);
  olg_model_free(m);
}

/* Reading (with external data mapped) and writing (with an external data file) under every
 * allocation failure: nothing leaks, neither memory nor mappings nor temporary files. */
static int count_lines(const char *cmd) {
  FILE *f = popen(cmd, "r");
  int n = 0, c;
  if (!f) return -1;
  while ((c = fgetc(f)) != EOF) n += c == '\n';
  pclose(f);
  return n;
}

/* The mappings of files in dir: only those can leak here. (Counting every mapping was flaky:
 * ASan's allocator maps new regions of its own as the heap grows.) */
static int maps_now(const char *dir) {
  FILE *f = fopen("/proc/self/maps", "r");
  char line[1024];
  int n = 0;
  if (!f) return -1;
  while (fgets(line, sizeof line, f)) n += strstr(line, dir) != NULL;
  fclose(f);
  return n;
}

static bool ext_leak;

static olg_status ext_scenario(void *ud, const olg_allocator *a) {
  const char *dir = ud;
  char in[700], out[700];
  path_in(in, sizeof in, dir, "model.onnx");
  path_in(out, sizeof out, dir, "fault.onnx");
  int before = maps_now(dir);
  olg_read_options ro = OLG_READ_OPTIONS_INIT;
  ro.allocator = a;
  olg_model *m;
  olg_status s = olg_model_read_file(&m, in, &ro);
  if (s) {
    if (maps_now(dir) != before) ext_leak = true;
    return s;
  }
  olg_write_options wo = OLG_WRITE_OPTIONS_INIT;
  wo.external_data = "fault.data";
  s = olg_model_write_file(m, out, &wo);
  olg_model_free(m);
  if (maps_now(dir) != before) ext_leak = true;
  return s;
}

TEST(serialize_external_data_allocation_failures) {
  const char *dir = ext_dir();
  char path[700], cmd[800];
  path_in(path, sizeof path, dir, "model.onnx");
  olg_model *m;
  CHECK_OK(olg_model_new(&m, NULL));
  CHECK_OK(build_ext_model(m));
  olg_write_options wo = OLG_WRITE_OPTIONS_INIT;
  wo.external_data = "model.data";
  CHECK_OK(olg_model_write_file(m, path, &wo));
  olg_model_free(m);
  char fault[700];
  path_in(fault, sizeof fault, dir, "fault.onnx");
  unlink(fault);
  path_in(fault, sizeof fault, dir, "fault.data");
  unlink(fault);
  snprintf(cmd, sizeof cmd, "ls -a '%s'", dir);
  int files = count_lines(cmd);
  ext_leak = false;
  CHECK_FAIL_EACH_ALLOCATION(ext_scenario, (void *)dir);
  CHECK(!ext_leak);
  /* the last run wrote fault.onnx and fault.data; no temporary file is left */
  CHECK(files > 0);
  CHECK_EQ(count_lines(cmd), files + 2);
  snprintf(cmd, sizeof cmd, "ls -a '%s' | grep tmp-", dir);
  CHECK_EQ(count_lines(cmd), 0);
}

/* A model whose one initializer points at external data with the given entries. */
static void ext_ref_model(pbuf *b, const char *location, const char *offset, const char *length) {
  pbuf g = {0}, t = {0};
  pint(&t, 1, 4);
  pint(&t, 2, OLG_UINT8);
  pstr(&t, 8, "e");
  const char *keys[3] = {"location", "offset", "length"}, *vals[3] = {location, offset, length};
  for (int i = 0; i < 3; i++) {
    if (!vals[i]) continue;
    pbuf kv = {0};
    pstr(&kv, 1, keys[i]);
    pstr(&kv, 2, vals[i]);
    pmsg(&t, 13, &kv);
  }
  pint(&t, 14, 1);
  pmsg(&g, 5, &t);
  memset(b, 0, sizeof *b);
  model_of(b, &g, NULL);
}

static void expect_ext(const char *file, int line, const char *dir, const char *loc,
                       const char *offset, const char *length, olg_status want, const char *needle) {
  pbuf b;
  ext_ref_model(&b, loc, offset, length);
  olg_read_options ro = OLG_READ_OPTIONS_INIT;
  ro.external_data_dir = dir;
  olg_model *m;
  olg_status s = olg_model_read_memory(&m, b.p, b.n, &ro);
  if (s != want)
    olg_test_fail(file, line, "location '%s': %s, wanted %s (%s)", loc, olg_status_name(s),
                  olg_status_name(want), olg_last_error());
  else if (needle && !strstr(olg_last_error(), needle))
    olg_test_fail(file, line, "location '%s': message '%s' lacks '%s'", loc, olg_last_error(), needle);
  if (!s) olg_model_free(m);
  pbuf_free(&b);
}
#define EXT(loc, off, len, want, needle)                                                 \
  do {                                                                                   \
    expect_ext(__FILE__, __LINE__, dir, (loc), (off), (len), (want), (needle));           \
    if (olg_test_failed()) return;                                                       \
  } while (0)

TEST(serialize_external_data_refusals) {
  const char *dir = ext_dir();
  char p[700], sub[700], outside[700];
  path_in(p, sizeof p, dir, "four.bin");
  FILE *f = fopen(p, "wb");
  CHECK(f != NULL);
  fwrite("\1\2\3\4\5\6", 1, 6, f);
  fclose(f);
  path_in(sub, sizeof sub, dir, "sub");
  mkdir(sub, 0755);
  path_in(p, sizeof p, dir, "sub/x.bin");
  f = fopen(p, "wb");
  CHECK(f != NULL);
  fwrite("abcd", 1, 4, f);
  fclose(f);
  EXT("four.bin", "2", "4", OLG_OK, NULL);
  EXT("sub/x.bin", NULL, NULL, OLG_OK, NULL);
  EXT("./four.bin", "0", "4", OLG_OK, NULL);
  EXT("../x", NULL, NULL, OLG_ERR_INVALID_MODEL, "contains '..'");
  EXT("sub/../four.bin", "0", "4", OLG_ERR_INVALID_MODEL, "contains '..'");
  EXT("/etc/passwd", NULL, NULL, OLG_ERR_INVALID_MODEL, "absolute path");
  EXT("", NULL, NULL, OLG_ERR_PARSE, "without a location");
  EXT("sub//x.bin", NULL, NULL, OLG_ERR_INVALID_MODEL, "empty path component");
  EXT("missing.bin", NULL, NULL, OLG_ERR_IO, "missing.bin");
  EXT("sub", NULL, NULL, OLG_ERR_INVALID_MODEL, "not a regular file");
  /* offsets and lengths */
  EXT("four.bin", "3", "4", OLG_ERR_PARSE, "past the end");
  EXT("four.bin", "7", NULL, OLG_ERR_PARSE, "past the end");
  EXT("four.bin", "-1", "4", OLG_ERR_PARSE, "not a non-negative integer");
  EXT("four.bin", "0", "5", OLG_ERR_PARSE, "needs 4");
  EXT("four.bin", "x", "4", OLG_ERR_PARSE, "not a non-negative integer");
  /* symbolic links: to a file outside, and a directory link on the way */
  snprintf(outside, sizeof outside, "%s/../ser_outside.bin", dir);
  f = fopen(outside, "wb");
  CHECK(f != NULL);
  fwrite("SECRET", 1, 6, f);
  fclose(f);
  path_in(p, sizeof p, dir, "link.bin");
  unlink(p);
  CHECK(symlink(outside, p) == 0);
  EXT("link.bin", "0", "4", OLG_ERR_INVALID_MODEL, "symbolic link");
  path_in(p, sizeof p, dir, "linkdir");
  unlink(p);
  CHECK(symlink("/tmp", p) == 0);
  EXT("linkdir/x", "0", "4", OLG_ERR_INVALID_MODEL, "symbolic link");
  /* the writer refuses such names too */
  olg_model *m;
  CHECK_OK(olg_model_new(&m, NULL));
  CHECK_OK(build_ext_model(m));
  olg_write_options wo = OLG_WRITE_OPTIONS_INIT;
  pbuf b = {0};
  wo.external_data_dir = dir;
  const char *bad[4] = {"../x.bin", "/tmp/abs.bin", "a/../b.bin", "linkdir/x.bin"};
  for (int i = 0; i < 4; i++) {
    wo.external_data = bad[i];
    CHECK_STATUS(olg_model_write_callback(m, pbuf_sink, &b, &wo), OLG_ERR_INVALID_ARG);
  }
  CHECK_EQ(b.n, 0);
  olg_model_free(m);
}

TEST(serialize_external_references_kept_with_odd_inline_data) {
  /* found by fuzzing: an external tensor that also carries raw_data, read without loading, lost
   * its references when written */
  pbuf b, g = {0}, t = {0}, kv = {0};
  pint(&t, 1, 4);
  pint(&t, 2, OLG_UINT8);
  pstr(&t, 8, "e");
  pbytes(&t, 9, "\1\2", 2);
  pstr(&kv, 1, "location");
  pstr(&kv, 2, "nowhere.bin");
  pmsg(&t, 13, &kv);
  pint(&t, 14, 1);
  pmsg(&g, 5, &t);
  memset(&b, 0, sizeof b);
  model_of(&b, &g, NULL);
  olg_read_options ro = OLG_READ_OPTIONS_INIT;
  ro.load_external_data = 0;
  olg_model *m;
  CHECK_OK(olg_model_read_memory(&m, b.p, b.n, &ro));
  CHECK_EQ(m->graph->inits[0].t->encoding, OLG_ENC_EXTERNAL);
  pbuf out;
  CHECK_OK(write_mem(m, &out));
  CHECK(pbuf_same(&b, &out));
  olg_model_free(m);
  pbuf_free(&out);
  pbuf_free(&b);
}

/* ---------------------------------------------------------------------------------------- */
/* The schema: the decoder's view of every message agrees with protobuf-c's descriptors */

#ifndef OLG_TEST_NO_PROTOBUF_C
TEST(serialize_schema_descriptors) {
  /* spot checks of the generated descriptors the reader relies on */
  const ProtobufCFieldDescriptor *fd;
  fd = protobuf_c_message_descriptor_get_field(&onnx__tensor_proto__descriptor, 5);
  CHECK(fd && strcmp(fd->name, "int32_data") == 0 && (fd->flags & PROTOBUF_C_FIELD_FLAG_PACKED));
  fd = protobuf_c_message_descriptor_get_field(&onnx__attribute_proto__descriptor, 8);
  CHECK(fd && strcmp(fd->name, "ints") == 0 && !(fd->flags & PROTOBUF_C_FIELD_FLAG_PACKED));
  fd = protobuf_c_message_descriptor_get_field(&onnx__model_proto__descriptor, 26);
  CHECK(fd && strcmp(fd->name, "configuration") == 0);
  CHECK(protobuf_c_message_descriptor_get_field(&onnx__graph_proto__descriptor, 3) == NULL);
  fd = protobuf_c_message_descriptor_get_field(&onnx__attribute_proto__descriptor, 21);
  CHECK(fd && strcmp(fd->name, "ref_attr_name") == 0);
}
#endif
