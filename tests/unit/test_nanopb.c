/* The nanopb writer (lib/serialize/nanopb_writer.c): the same bytes as the default writer for
 * built models (every attribute type, subgraphs, every dtype, every data field) and for read
 * models whose kept fields it must re-emit; no allocation; sink failures; refusals; nesting.
 * Only in builds with nanopb (make NANOPB=1); elsewhere this file holds no test. */
#include "../harness.h"

#ifdef OLG_WITH_NANOPB
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"
#include "onnxlegal/nanopb.h"
#include "serialize/pb.h"
#include "../pb_bytes.h"

/* ---------------------------------------------------------------------------------------- */
/* The comparison */

static char why[512];

/* Writes m with both writers; true when both succeed with the same bytes (the default writer's
 * output in *out when given). */
static bool writers_agree(const olg_model *m, pbuf *out) {
  pbuf a = {0}, b = {0};
  olg_status sa = olg_model_write_callback(m, pbuf_sink, &a, NULL);
  if (sa) {
    snprintf(why, sizeof why, "default writer: %s: %s", olg_status_name(sa), olg_last_error());
    pbuf_free(&a);
    return false;
  }
  olg_status sb = olg_model_write_nanopb(m, pbuf_sink, &b);
  bool ok = false;
  if (sb) {
    snprintf(why, sizeof why, "nanopb writer: %s: %s", olg_status_name(sb), olg_last_error());
  } else if (a.n != b.n || memcmp(a.p, b.p, a.n) != 0) {
    size_t i = 0;
    while (i < a.n && i < b.n && a.p[i] == b.p[i]) i++;
    snprintf(why, sizeof why, "bytes differ at offset %zu (default %zu bytes, nanopb %zu)", i,
             a.n, b.n);
  } else {
    ok = a.n > 0;
    if (!ok) snprintf(why, sizeof why, "nothing written");
  }
  if (ok && out) {
    *out = a;
    a.p = NULL;
  }
  pbuf_free(&a);
  pbuf_free(&b);
  return ok;
}

#define CHECK_AGREE(m, out)                                                               \
  do {                                                                                    \
    if (!writers_agree((m), (out))) {                                                     \
      olg_test_fail(__FILE__, __LINE__, "writers disagree: %s", why);                     \
      return;                                                                             \
    }                                                                                     \
  } while (0)

/* Reads bytes, and checks both writers agree on the model read (and its default output). */
static bool read_and_agree(const pbuf *in, pbuf *out, const olg_read_options *ro) {
  olg_model *m;
  olg_status s = olg_model_read_memory(&m, in->p, in->n, ro);
  if (s) {
    snprintf(why, sizeof why, "read: %s: %s", olg_status_name(s), olg_last_error());
    return false;
  }
  bool ok = writers_agree(m, out);
  olg_model_free(m);
  return ok;
}

#define CHECK_READ_AGREE(in, out, ro)                                                     \
  do {                                                                                    \
    if (!read_and_agree((in), (out), (ro))) {                                             \
      olg_test_fail(__FILE__, __LINE__, "read model: %s", why);                           \
      return;                                                                             \
    }                                                                                     \
  } while (0)

/* ---------------------------------------------------------------------------------------- */
/* A built model with every part the IR can express */

static olg_status neg_subgraph(olg_model *m, const char *name, const char *outer,
                               const char *out, olg_graph **res) {
  olg_graph *g;
  olg_status s;
  if ((s = olg_model_new_subgraph(m, &g)) || (s = olg_graph_set_name(g, name))) return s;
  olg_value x, y;
  olg_node_id n;
  if ((s = olg__graph_add_value(g, outer, false, &x))) return s;
  g->values[x].flags |= OLG_VF_OUTER;
  if ((s = olg_node_begin(g, "", "Neg", "neg", &n)) || (s = olg_node_arg_value(g, n, x)) ||
      (s = olg_node_end(g, n, 1, (const char *[]){out}, &y)))
    return s;
  const int64_t d[2] = {OLG_DIM_UNKNOWN, 3};
  const char *p[2] = {"batch", NULL};
  if ((s = olg_value_set_type(g, y, OLG_FLOAT, 2, d, p)) || (s = olg_graph_add_output(g, y)))
    return s;
  *res = g;
  return OLG_OK;
}

static olg_type *tensor_type(olg_model *m, olg_dtype dt, int32_t rank, const int64_t *dims) {
  olg_type *t = olg__arena_alloc(m, sizeof *t);
  if (!t) return NULL;
  *t = (olg_type){.kind = OLG_TYPE_TENSOR, .has_elem = true, .rank = rank,
                  .has_shape = rank >= 0};
  if (olg__type_set_elem(m, t, dt)) return NULL;
  if (rank > 0) {
    if (!(t->dims = olg__arena_alloc(m, (size_t)rank * sizeof *t->dims))) return NULL;
    for (int32_t i = 0; i < rank; i++) t->dims[i].value = dims[i];
    t->dims[0].denotation = "DATA_BATCH";
  }
  return t;
}

static uint8_t dtype_bytes[OLG_DTYPE_MAX + 1][96];

/* A tensor whose data goes to a typed field (encoding), or raw. */
static olg_status typed_init(olg_graph *g, const char *name, olg_dtype dt, int64_t n,
                             const void *data, size_t nbytes, uint8_t encoding) {
  olg_value v;
  olg_status s = olg_graph_add_initializer(g, name, dt, 1, (const int64_t[]){n}, data, nbytes,
                                           OLG_DATA_BORROW, NULL, NULL, &v);
  if (s) return s;
  g->inits[g->n_inits - 1].t->encoding = encoding;
  return OLG_OK;
}

static olg_status build_everything(olg_model *m) {
  olg_graph *g = olg_model_graph(m);
  olg_status s;
  if ((s = olg_model_set_opset(m, "", 17)) || (s = olg_model_set_opset(m, "com.example", 1)) ||
      (s = olg_model_set_string(m, OLG_MODEL_PRODUCER_NAME, "nanopb-test")) ||
      (s = olg_model_set_string(m, OLG_MODEL_PRODUCER_VERSION, "2")) ||
      (s = olg_model_set_string(m, OLG_MODEL_DOMAIN, "org.test")) ||
      (s = olg_model_set_string(m, OLG_MODEL_DOC_STRING, "every part")) ||
      (s = olg_model_set_model_version(m, 7)) || (s = olg_model_set_metadata(m, "k", "v")) ||
      (s = olg_model_set_metadata(m, "empty", "")) || (s = olg_graph_set_name(g, "main")) ||
      (s = olg_graph_set_doc_string(g, "main graph")))
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
  /* every dtype, raw */
  for (int dt = 1; dt <= OLG_DTYPE_MAX; dt++) {
    if (dt == OLG_STRING || !olg_dtype_name(dt)) continue;
    size_t nb = olg_dtype_nbytes(dt, 5);
    if (!nb || nb > sizeof dtype_bytes[dt]) continue;
    for (size_t i = 0; i < nb; i++)
      dtype_bytes[dt][i] = dt == OLG_BOOL ? (uint8_t)(i & 1) : (uint8_t)(i * 53 + (size_t)dt * 7);
    char name[64];
    snprintf(name, sizeof name, "raw_%s", olg_dtype_name(dt));
    if ((s = olg_graph_add_initializer(g, name, dt, 1, (const int64_t[]){5}, dtype_bytes[dt], nb,
                                       OLG_DATA_BORROW, NULL, NULL, NULL)))
      return s;
  }
  /* every typed data field, with values that need 10-byte varints and sign extension */
  static const float f4[3] = {1.5f, -0.0f, 1e-30f};
  static const int8_t i8[4] = {-1, 127, -128, 0};
  static const int16_t i16[2] = {-300, 32767};
  static const int32_t i32[3] = {INT32_MIN, -1, INT32_MAX};
  static const uint16_t u16[2] = {65535, 0x3c00};
  static const uint8_t u8[3] = {255, 0, 1};
  static const int64_t i64[3] = {INT64_MIN, -2, INT64_MAX};
  static const double f8[2] = {2.5, -1e300};
  static const uint64_t u64[2] = {UINT64_MAX, 1};
  static const uint32_t u32[2] = {4000000000u, 7};
  if ((s = typed_init(g, "t_float", OLG_FLOAT, 3, f4, sizeof f4, OLG_ENC_FLOAT)) ||
      (s = typed_init(g, "t_int8", OLG_INT8, 4, i8, sizeof i8, OLG_ENC_INT32)) ||
      (s = typed_init(g, "t_int16", OLG_INT16, 2, i16, sizeof i16, OLG_ENC_INT32)) ||
      (s = typed_init(g, "t_int32", OLG_INT32, 3, i32, sizeof i32, OLG_ENC_INT32)) ||
      (s = typed_init(g, "t_uint16", OLG_UINT16, 2, u16, sizeof u16, OLG_ENC_INT32)) ||
      (s = typed_init(g, "t_half", OLG_FLOAT16, 2, u16, sizeof u16, OLG_ENC_INT32)) ||
      (s = typed_init(g, "t_uint8", OLG_UINT8, 3, u8, sizeof u8, OLG_ENC_INT32)) ||
      (s = typed_init(g, "t_int64", OLG_INT64, 3, i64, sizeof i64, OLG_ENC_INT64)) ||
      (s = typed_init(g, "t_double", OLG_DOUBLE, 2, f8, sizeof f8, OLG_ENC_DOUBLE)) ||
      (s = typed_init(g, "t_uint64", OLG_UINT64, 2, u64, sizeof u64, OLG_ENC_UINT64)) ||
      (s = typed_init(g, "t_uint32", OLG_UINT32, 2, u32, sizeof u32, OLG_ENC_UINT64)) ||
      /* a typed field that cannot hold the dtype: written raw */
      (s = typed_init(g, "t_mismatch", OLG_INT32, 3, i32, sizeof i32, OLG_ENC_INT64)) ||
      /* empty, and no data field at all */
      (s = typed_init(g, "t_empty", OLG_FLOAT, 0, NULL, 0, OLG_ENC_FLOAT)) ||
      (s = typed_init(g, "t_none", OLG_FLOAT, 0, NULL, 0, OLG_ENC_NONE)))
    return s;
  g->inits[g->n_inits - 1].t->doc_string = "no data";
  const char *strs[3] = {"a\0b", "", "x\0\0z"};
  const size_t lens[3] = {3, 0, 4};
  olg_value sv, w;
  if ((s = olg_graph_add_string_initializer(g, "strings", 1, (const int64_t[]){3}, strs, lens,
                                            &sv)))
    return s;
  static const float wdata[6] = {1, 2, 3, 4, 5, 6};
  if ((s = olg_graph_add_initializer(g, "w", OLG_FLOAT, 2, (const int64_t[]){2, 3}, wdata,
                                     sizeof wdata, OLG_DATA_BORROW, NULL, NULL, &w)))
    return s;
  /* an external reference kept as it is (data not loaded) */
  olg_tensor *ext;
  if ((s = olg__tensor_new(m, "ext", OLG_FLOAT, 1, (const int64_t[]){0}, NULL, 0, OLG_DATA_BORROW,
                           NULL, NULL, &ext)))
    return s;
  ext->dims[0] = 4;
  olg_kv *ekv = olg__arena_alloc(m, 3 * sizeof *ekv);
  if (!ekv) return OLG_ERR_NOMEM;
  ekv[0] = (olg_kv){"location", "weights.bin"};
  ekv[1] = (olg_kv){"offset", "64"};
  ekv[2] = (olg_kv){"length", "16"};
  ext->encoding = OLG_ENC_EXTERNAL;
  ext->external = ekv;
  ext->n_external = 3;
  if ((s = olg__graph_add_init(g, ext, false, NULL))) return s;

  olg_node_id n;
  olg_value y;
  if ((s = olg_node_begin(g, "", "Add", "add0", &n)) || (s = olg_node_arg_value(g, n, x)) ||
      (s = olg_node_arg_value(g, n, w)) || (s = olg_node_end(g, n, 1, (const char *[]){"y"}, &y)) ||
      (s = olg_value_set_type(g, y, OLG_FLOAT, 2, xd, xp)) || (s = olg_graph_add_value_info(g, y)))
    return s;
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
  g->metadata = meta;
  g->n_metadata = 2;

  /* every attribute type on one node; an omitted input; two outputs, one omitted */
  if ((s = olg_node_begin(g, "com.example", "AllAttrs", "all", &n)) ||
      (s = olg_node_arg_value(g, n, y)) || (s = olg_node_arg_none(g, n)) ||
      (s = olg_node_arg_values(g, n, (const olg_value[]){sv, OLG_NO_VALUE, x}, 3)))
    return s;
  const int64_t ints[4] = {1, -1, INT64_MAX, INT64_MIN};
  const float floats[3] = {0.5f, -1e30f, -0.0f};
  const char *sl[2] = {"alpha", ""};
  const uint8_t i4[2] = {0x7f, 0x08};
  if ((s = olg_node_attr_int(g, n, "i", -7)) || (s = olg_node_attr_float(g, n, "f", -0.25f)) ||
      (s = olg_node_attr_bytes(g, n, "s", "nul\0inside", 10)) ||
      (s = olg_node_attr_ints(g, n, "ints", ints, 4)) ||
      (s = olg_node_attr_floats(g, n, "floats", floats, 3)) ||
      (s = olg_node_attr_strings(g, n, "strings", sl, 2)) ||
      (s = olg_node_attr_ints(g, n, "no_ints", NULL, 0)) ||
      (s = olg_node_attr_tensor(g, n, "t", OLG_INT4, 1, (const int64_t[]){3}, i4, 2)))
    return s;
  olg_graph *g1, *g2, *g3;
  if ((s = neg_subgraph(m, "g_one", "x", "o1", &g1)) || (s = olg_node_attr_graph(g, n, "g", g1)) ||
      (s = neg_subgraph(m, "g_two", "x", "o2", &g2)) ||
      (s = neg_subgraph(m, "g_three", "y", "o3", &g3)) ||
      (s = olg_node_attr_graphs(g, n, "gs", (olg_graph *[]){g2, g3}, 2)))
    return s;
  /* the attribute kinds the public API does not build: through the IR */
  olg_tensor *th, *td;
  const uint16_t h[2] = {0x3c00, 0xc000};
  const double dd[1] = {2.5};
  if ((s = olg__tensor_new(m, "th", OLG_FLOAT16, 1, (const int64_t[]){2}, h, 4, OLG_DATA_COPY,
                           NULL, NULL, &th)) ||
      (s = olg__tensor_new(m, NULL, OLG_DOUBLE, 0, NULL, dd, 8, OLG_DATA_COPY, NULL, NULL, &td)))
    return s;
  td->encoding = OLG_ENC_DOUBLE;
  olg_tensor **ts = olg__arena_alloc(m, 2 * sizeof *ts);
  if (!ts) return OLG_ERR_NOMEM;
  ts[0] = th;
  ts[1] = td;
  olg_attr a = {.name = "tensors", .type = OLG_ATTR_TENSORS, .n = 2, .tensors = ts};
  if ((s = olg__node_add_attr(g, n, &a))) return s;
  olg_type *tt = tensor_type(m, OLG_FLOAT, 2, (const int64_t[]){4, 3});
  olg_type *seq = olg__arena_alloc(m, sizeof *seq), *map = olg__arena_alloc(m, sizeof *map),
           *opt = olg__arena_alloc(m, sizeof *opt), *opq = olg__arena_alloc(m, sizeof *opq),
           *sp = tensor_type(m, OLG_FLOAT, 1, (const int64_t[]){5}),
           *unranked = tensor_type(m, OLG_INT64, -1, NULL);
  if (!tt || !seq || !map || !opt || !opq || !sp || !unranked) return OLG_ERR_NOMEM;
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
  a = (olg_attr){.name = "tp", .type = OLG_ATTR_TYPE_PROTO, .tp = opt};
  if ((s = olg__node_add_attr(g, n, &a))) return s;
  olg_type **tps = olg__arena_alloc(m, 4 * sizeof *tps);
  if (!tps) return OLG_ERR_NOMEM;
  tps[0] = tt;
  tps[1] = opq;
  tps[2] = sp;
  tps[3] = unranked;
  a = (olg_attr){.name = "tps", .type = OLG_ATTR_TYPE_PROTOS, .n = 4, .tps = tps};
  if ((s = olg__node_add_attr(g, n, &a))) return s;
  /* sparse tensors are kept as SparseTensorProto bytes */
  pbuf sb = {0}, vals = {0};
  pint(&vals, 1, 2);
  pint(&vals, 2, OLG_FLOAT);
  pbytes(&vals, 9, "\0\0\200\77\0\0\0\100", 8);
  pmsg(&sb, 1, &vals);
  pint(&sb, 3, 5);
  olg_pb_span *span = olg__arena_alloc(m, sizeof *span);
  const void **sps = olg__arena_alloc(m, 2 * sizeof *sps);
  uint8_t *copy = olg__arena_dup(m, sb.p, sb.n);
  size_t sbn = sb.n;
  pbuf_free(&sb);
  if (!span || !sps || !copy) return OLG_ERR_NOMEM;
  *span = (olg_pb_span){copy, sbn};
  sps[0] = sps[1] = span;
  a = (olg_attr){.name = "sparse", .type = OLG_ATTR_SPARSE_TENSOR, .sparse = span};
  if ((s = olg__node_add_attr(g, n, &a))) return s;
  a = (olg_attr){.name = "sparses", .type = OLG_ATTR_SPARSE_TENSORS, .n = 2, .sparses = sps};
  if ((s = olg__node_add_attr(g, n, &a))) return s;
  a = (olg_attr){.name = "ref", .type = OLG_ATTR_FLOAT, .ref_attr_name = "alpha",
                 .doc_string = "from the caller"};
  if ((s = olg__node_add_attr(g, n, &a))) return s;
  olg_value outs[2];
  if ((s = olg_node_end(g, n, 2, (const char *[]){"all_out", ""}, outs))) return s;
  olg_node_more *nm = olg__node_more_own(m, &g->nodes[n]);
  if (!nm) return OLG_ERR_NOMEM;
  nm->overload = "v2";

  /* If with both branches; Loop whose body holds an If whose branch holds a Loop */
  olg_graph *then_g, *else_g, *body, *inner_then, *inner_else, *innermost, *innermost2;
  olg_value if_out, loop_out;
  if ((s = neg_subgraph(m, "then", "x", "t_out", &then_g)) ||
      (s = neg_subgraph(m, "else", "y", "e_out", &else_g)) ||
      (s = olg_node_begin(g, "", "If", "if0", &n)) || (s = olg_node_arg_value(g, n, cond)) ||
      (s = olg_node_attr_graph(g, n, "then_branch", then_g)) ||
      (s = olg_node_attr_graph(g, n, "else_branch", else_g)) ||
      (s = olg_node_end(g, n, 1, (const char *[]){"if_out"}, &if_out)))
    return s;
  if ((s = olg_model_new_subgraph(m, &body)) || (s = olg_graph_set_name(body, "body"))) return s;
  olg_value it, bc, carried, bc_out, c_out, inner_if;
  if ((s = olg_graph_add_input(body, "iter", OLG_INT64, 0, NULL, NULL, &it)) ||
      (s = olg_graph_add_input(body, "bcond", OLG_BOOL, 0, NULL, NULL, &bc)) ||
      (s = olg_graph_add_input(body, "carried", OLG_FLOAT, 2, xd, xp, &carried)))
    return s;
  if ((s = neg_subgraph(m, "inner_then", "carried", "it_out", &inner_then)) ||
      (s = olg_model_new_subgraph(m, &inner_else)) ||
      (s = olg_graph_set_name(inner_else, "inner_else")) ||
      (s = neg_subgraph(m, "innermost", "carried", "im_out", &innermost)) ||
      (s = neg_subgraph(m, "innermost2", "iter", "im2_out", &innermost2)))
    return s;
  {
    olg_value ic, io;
    olg_node_id k;
    if ((s = olg__graph_add_value(inner_else, "bcond", false, &ic))) return s;
    inner_else->values[ic].flags |= OLG_VF_OUTER;
    if ((s = olg_node_begin(inner_else, "", "If", "deep_if", &k)) ||
        (s = olg_node_arg_value(inner_else, k, ic)) ||
        (s = olg_node_attr_graph(inner_else, k, "then_branch", innermost)) ||
        (s = olg_node_attr_graph(inner_else, k, "else_branch", innermost2)) ||
        (s = olg_node_end(inner_else, k, 1, (const char *[]){"ie_out"}, &io)) ||
        (s = olg_graph_add_output(inner_else, io)))
      return s;
  }
  if ((s = olg_node_begin(body, "", "Identity", "", &n)) || (s = olg_node_arg_value(body, n, bc)) ||
      (s = olg_node_end(body, n, 1, (const char *[]){"bcond_out"}, &bc_out)) ||
      (s = olg_node_begin(body, "", "If", "", &n)) || (s = olg_node_arg_value(body, n, bc)) ||
      (s = olg_node_attr_graph(body, n, "then_branch", inner_then)) ||
      (s = olg_node_attr_graph(body, n, "else_branch", inner_else)) ||
      (s = olg_node_end(body, n, 1, (const char *[]){"inner_if"}, &inner_if)) ||
      (s = olg_node_begin(body, "", "Add", "", &n)) || (s = olg_node_arg_value(body, n, inner_if)) ||
      (s = olg_node_arg_value(body, n, carried)) ||
      (s = olg_node_end(body, n, 1, (const char *[]){"carried_out"}, &c_out)) ||
      (s = olg_graph_add_output(body, bc_out)) || (s = olg_graph_add_output(body, c_out)))
    return s;
  if ((s = olg_node_begin(g, "", "Loop", "loop0", &n)) || (s = olg_node_arg_value(g, n, trip)) ||
      (s = olg_node_arg_value(g, n, cond)) || (s = olg_node_arg_value(g, n, x)) ||
      (s = olg_node_attr_graph(g, n, "body", body)) ||
      (s = olg_node_end(g, n, 1, (const char *[]){"loop_out"}, &loop_out)))
    return s;
  /* a dead node is not written */
  olg_node_id dead;
  olg_value dv;
  if ((s = olg_node_begin(g, "", "Relu", "dead", &dead)) || (s = olg_node_arg_value(g, dead, x)) ||
      (s = olg_node_end(g, dead, 1, (const char *[]){"dead_out"}, &dv)))
    return s;
  g->nodes[dead].state = OLG_NODE_DEAD;
  if ((s = olg_graph_add_output(g, if_out)) || (s = olg_graph_add_output(g, loop_out)) ||
      (s = olg_graph_add_output(g, outs[0])) ||
      (s = olg_value_set_type(g, loop_out, OLG_FLOAT, 2, xd, xp)))
    return s;
  g->values[outs[0]].type = *seq;
  return olg_graph_add_value_info(g, outs[0]);
}

TEST(nanopb_built_model_same_bytes) {
  olg_model *m;
  CHECK_OK(olg_model_new(&m, NULL));
  CHECK_OK(build_everything(m));
  pbuf out;
  CHECK_AGREE(m, &out);
  /* the model read back carries the reader's extras (kept TypeProtos, presence flags): the
   * writers agree on it too, and it is the same bytes again */
  pbuf again;
  olg_read_options ro = OLG_READ_OPTIONS_INIT;
  ro.load_external_data = 0; /* "ext" is a reference to a file that is not there */
  CHECK_READ_AGREE(&out, &again, &ro);
  CHECK_EQ(again.n, out.n);
  CHECK(memcmp(again.p, out.p, out.n) == 0);
  pbuf_free(&again);
  pbuf_free(&out);
  olg_model_free(m);
}

/* ---------------------------------------------------------------------------------------- */
/* Read models: what the reader kept in `extra` */

/* Unknown fields of every wire type; groups only when `group` (the writers re-read a kept
 * key/value or opset entry to check it, and take one with a group for stale). */
static pbuf unknown_fields(bool group) {
  pbuf u = {0};
  pint(&u, 100, 5);
  pstr(&u, 101, "opaque");
  ptag(&u, 102, 5);
  pbuf_add(&u, "\1\2\3\4", 4);
  ptag(&u, 103, 1);
  pbuf_add(&u, "\1\2\3\4\5\6\7\10", 8);
  if (group) {
    ptag(&u, 104, 3); /* a group with a varint inside */
    pint(&u, 1, 9);
    ptag(&u, 104, 4);
  }
  return u;
}

static void vi_tensor(pbuf *vi, const char *name, int dt, const int64_t *dims, int rank,
                      const pbuf *unk) {
  pbuf ty = {0}, tt = {0}, sh = {0};
  for (int i = 0; i < rank; i++) {
    pbuf d = {0};
    pint(&d, 1, (uint64_t)dims[i]);
    if (unk) pbuf_add(&d, unk->p, unk->n);
    pmsg(&sh, 1, &d);
  }
  pint(&tt, 1, (uint64_t)dt);
  pmsg(&tt, 2, &sh);
  pmsg(&ty, 1, &tt);
  if (unk) pbuf_add(&ty, unk->p, unk->n);
  pstr(vi, 1, name);
  pmsg(vi, 2, &ty);
}

static void model_of(pbuf *model, pbuf *head, pbuf *graph, pbuf *tail) {
  pbuf os = {0};
  pint(model, 1, 8);
  if (head) {
    pbuf_add(model, head->p, head->n);
    pbuf_free(head);
  }
  pmsg(model, 7, graph);
  pstr(&os, 1, "");
  pint(&os, 2, 17);
  pmsg(model, 8, &os);
  if (tail) {
    pbuf_add(model, tail->p, tail->n);
    pbuf_free(tail);
  }
}

/* A model with unknown fields at every level, the known fields the IR does not interpret, the
 * presence quirks the IR's conventions cannot tell, typed data fields as read, kept key/value
 * and opset entries with unknown fields, and an output listed twice with different contents. */
static void kept_model(pbuf *model) {
  pbuf unk = unknown_fields(true), flat = unknown_fields(false);
#define UNK(b) pbuf_add((b), unk.p, unk.n)
  pbuf g = {0}, node = {0}, attr = {0}, t = {0}, seg = {0}, kv = {0};
  pstr(&node, 1, "x");
  pstr(&node, 1, "w");
  pstr(&node, 2, "y");
  pstr(&node, 3, "");
  pstr(&node, 4, "Custom");
  pstr(&attr, 1, "value");
  float two[2] = {1, 2};
  pint(&t, 1, 2);
  pint(&t, 2, OLG_FLOAT);
  pint(&seg, 1, 0);
  pint(&seg, 2, 2);
  UNK(&seg);
  pmsg(&t, 3, &seg);
  pbytes(&t, 4, two, 8); /* float_data */
  pint(&t, 14, 0);       /* data_location DEFAULT, present */
  pstr(&kv, 1, "tk");
  pstr(&kv, 2, "tv");
  pmsg(&t, 16, &kv);
  UNK(&t);
  pmsg(&attr, 5, &t);
  pint(&attr, 20, OLG_ATTR_TENSOR);
  UNK(&attr);
  pmsg(&node, 5, &attr);
  /* an attribute without a type, one whose fields disagree with its type, one whose type is not
   * an AttributeType, one with several list fields */
  pbuf a1 = {0}, a2 = {0}, a3 = {0}, a4 = {0};
  pstr(&a1, 1, "alpha");
  ptag(&a1, 2, 5);
  pbuf_add(&a1, "\0\0\200\77", 4);
  pmsg(&node, 5, &a1);
  pstr(&a2, 1, "mixed");
  pint(&a2, 3, 0);
  pint(&a2, 8, 1);
  pint(&a2, 8, 2);
  pint(&a2, 20, OLG_ATTR_FLOAT);
  pmsg(&node, 5, &a2);
  pstr(&a3, 1, "odd");
  pint(&a3, 3, 4);
  pint(&a3, 20, 99);
  pmsg(&node, 5, &a3);
  pstr(&a4, 1, "lists");
  pint(&a4, 8, 3);
  pstr(&a4, 9, "s");
  pint(&a4, 20, OLG_ATTR_INTS);
  pmsg(&node, 5, &a4);
  pstr(&node, 7, "");
  pbuf dc = {0}, nkv = {0};
  pstr(&nkv, 1, "nk"); /* a key/value entry the IR's strings cannot hold exactly */
  pbuf_add(&nkv, flat.p, flat.n);
  pmsg(&node, 9, &nkv);
  pstr(&dc, 1, "cfg");
  pint(&dc, 3, 1);
  pmsg(&node, 10, &dc);
  UNK(&node);
  pmsg(&g, 1, &node);
  pbuf n2 = {0}; /* no op_type */
  pstr(&n2, 1, "y");
  pstr(&n2, 2, "z");
  pmsg(&g, 1, &n2);
  pstr(&g, 2, "");
  /* typed data fields as read */
  pbuf ti = {0}, pk = {0}, t64 = {0}, pk64 = {0}, tu = {0}, pku = {0}, tdd = {0}, ts = {0};
  pint(&ti, 1, 3);
  pint(&ti, 2, OLG_INT8);
  pv(&pk, (uint64_t)-1);
  pv(&pk, 300); /* not canonical for int8: kept as it was */
  pv(&pk, 5);
  pmsg(&ti, 5, &pk);
  pstr(&ti, 8, "i8");
  pmsg(&g, 5, &ti);
  pint(&t64, 1, 1);
  pint(&t64, 2, OLG_INT64);
  pv(&pk64, (uint64_t)-2);
  pmsg(&t64, 7, &pk64);
  pstr(&t64, 8, "i64");
  pmsg(&g, 5, &t64);
  pint(&tu, 1, 1);
  pint(&tu, 2, OLG_UINT32);
  pv(&pku, 4000000000u);
  pstr(&tu, 8, "u32");
  pmsg(&tu, 11, &pku);
  pmsg(&g, 5, &tu);
  double dv[2] = {1.5, -2.25};
  pint(&tdd, 1, 2);
  pint(&tdd, 2, OLG_DOUBLE);
  pstr(&tdd, 8, "d");
  pbytes(&tdd, 10, dv, 16);
  pmsg(&g, 5, &tdd);
  pint(&ts, 1, 2);
  pint(&ts, 2, OLG_STRING);
  pbytes(&ts, 6, "a\0b", 3);
  pstr(&ts, 6, "");
  pstr(&ts, 8, "s");
  pmsg(&g, 5, &ts);
  pbuf w = {0};
  pint(&w, 1, 2);
  pint(&w, 2, OLG_FLOAT);
  pstr(&w, 8, "w");
  pbytes(&w, 9, two, 8);
  UNK(&w);
  pmsg(&g, 5, &w);
  /* an external reference with data not loaded */
  pbuf te = {0}, e1 = {0}, e2 = {0};
  pint(&te, 1, 2);
  pint(&te, 2, OLG_FLOAT);
  pstr(&te, 8, "ext");
  pstr(&e1, 1, "location");
  pstr(&e1, 2, "data.bin");
  pmsg(&te, 13, &e1);
  pstr(&e2, 1, "length");
  pstr(&e2, 2, "8");
  pmsg(&te, 13, &e2);
  pint(&te, 14, 1);
  pmsg(&g, 5, &te);
  pstr(&g, 10, "doc");
  pbuf vx = {0}, vz1 = {0}, vz2 = {0}, vy = {0};
  const int64_t d2[1] = {2};
  vi_tensor(&vx, "x", OLG_FLOAT, d2, 1, &unk);
  UNK(&vx);
  pmsg(&g, 11, &vx);
  vi_tensor(&vz1, "z", OLG_FLOAT, d2, 1, NULL);
  pmsg(&g, 12, &vz1);
  vi_tensor(&vz2, "z", OLG_DOUBLE, NULL, 0, NULL);
  pstr(&vz2, 3, "again");
  pmsg(&g, 12, &vz2);
  pstr(&vy, 1, "y");
  pmsg(&g, 13, &vy);
  pbuf qa = {0}, qkv = {0};
  pstr(&qa, 1, "w");
  pstr(&qkv, 1, "SCALE_TENSOR");
  pstr(&qkv, 2, "w_scale");
  pmsg(&qa, 2, &qkv);
  pmsg(&g, 14, &qa);
  pbuf gkv = {0};
  pstr(&gkv, 1, "gk");
  pstr(&gkv, 2, "gv");
  pmsg(&g, 16, &gkv);
  UNK(&g);
  /* model level: functions, training_info, configuration, metadata, an opset entry with an
   * unknown field, present-but-empty strings */
  pbuf head = {0}, tail = {0}, fn = {0}, fnode = {0}, tinfo = {0}, tg = {0}, cfg = {0}, os = {0},
       mkv = {0};
  pstr(&head, 2, "");
  pstr(&head, 3, "");
  pstr(&head, 4, "");
  pstr(&head, 6, "");
  pstr(&fn, 1, "MyFn");
  pstr(&fnode, 1, "a");
  pstr(&fnode, 4, "Relu");
  pmsg(&fn, 7, &fnode);
  pstr(&tg, 2, "init_graph");
  pmsg(&tinfo, 1, &tg);
  pstr(&cfg, 1, "cfg");
  pint(&cfg, 2, 2);
  pstr(&os, 1, "com.x");
  pint(&os, 2, 3);
  pbuf_add(&os, flat.p, flat.n);
  pmsg(&tail, 8, &os);
  pstr(&mkv, 1, "author");
  pstr(&mkv, 2, "me");
  pmsg(&tail, 14, &mkv);
  pmsg(&tail, 20, &tinfo);
  pmsg(&tail, 25, &fn);
  pmsg(&tail, 26, &cfg);
  UNK(&tail);
  memset(model, 0, sizeof *model);
  model_of(model, &head, &g, &tail);
  pbuf_free(&unk);
  pbuf_free(&flat);
#undef UNK
}

TEST(nanopb_kept_fields_same_bytes) {
  pbuf in, out;
  kept_model(&in);
  /* the external data file: loaded, its tensor is written inline by both */
  const char *data = test_tmp_path("data.bin");
  FILE *f = fopen(data, "wb");
  CHECK(f != NULL);
  CHECK_EQ(fwrite("\0\0\200\77\0\0\0\100", 1, 8, f), 8);
  CHECK_EQ(fclose(f), 0);
  char dir[512];
  snprintf(dir, sizeof dir, "%s", data);
  *strrchr(dir, '/') = 0;
  olg_read_options ro = OLG_READ_OPTIONS_INIT;
  ro.external_data_dir = dir;
  CHECK_READ_AGREE(&in, &out, &ro);
  pbuf_free(&out);
  /* not loaded: the references are kept, and the default writer gives the input back, so both
   * writers give the file byte for byte */
  ro.load_external_data = 0;
  CHECK_READ_AGREE(&in, &out, &ro);
  CHECK_EQ(out.n, in.n);
  CHECK(memcmp(out.p, in.p, in.n) == 0);
  pbuf_free(&out);
  /* edits win over what was kept: a changed type, metadata, opset and data */
  olg_model *m;
  CHECK_OK(olg_model_read_memory(&m, in.p, in.n, &ro));
  olg_graph *g = olg_model_graph(m);
  olg_value x = olg__graph_lookup(g, "x");
  CHECK(x >= 0 && olg__type_extra(&g->values[x].type));
  const olg_type_more *kept = g->values[x].type.more; /* no denotation: only the extra */
  CHECK_OK(olg_value_set_type(g, x, OLG_FLOAT16, 2, (const int64_t[]){5, 4}, NULL));
  g->values[x].type.more = kept;
  CHECK_OK(olg_model_set_opset(m, "com.x", 4));
  CHECK(olg__node_n_metadata(&g->nodes[0]) == 1);
  g->nodes[0].more->metadata[0].value = "now set";
  static const float other[2] = {9, 8};
  g->inits[5].t->data = other; /* "w": its kept raw_data is stale now */
  CHECK_AGREE(m, NULL);
  olg_model_free(m);
  pbuf_free(&in);
}

/* ---------------------------------------------------------------------------------------- */
/* No allocation */

TEST(nanopb_allocates_nothing) {
  test_alloc ta;
  test_alloc_init(&ta, 0);
  olg_model_options mo = OLG_MODEL_OPTIONS_INIT;
  mo.allocator = &ta.a;
  olg_model *m;
  CHECK_OK(olg_model_new(&m, &mo));
  CHECK_OK(build_everything(m));
  long calls = ta.calls, blocks = ta.live_blocks;
  pbuf b = {0};
  CHECK_OK(olg_model_write_nanopb(m, pbuf_sink, &b));
  CHECK(b.n > 1000);
  CHECK_EQ(ta.calls, calls);
  CHECK_EQ(ta.live_blocks, blocks);
  pbuf_free(&b);
  /* the counter does see a writer that allocates: the default one (its length vector and
   * staging buffer come from the model's allocator) */
  CHECK_OK(olg_model_write_callback(m, pbuf_sink, &b, NULL));
  CHECK(ta.calls > calls);
  pbuf_free(&b);
  /* and an allocator that fails every call changes nothing for the nanopb writer */
  ta.fail_at = ta.calls + 1;
  calls = ta.calls;
  CHECK_OK(olg_model_write_nanopb(m, pbuf_sink, &b));
  CHECK_EQ(ta.calls, calls);
  CHECK(!ta.failed);
  pbuf_free(&b);
  ta.fail_at = 0;
  olg_model_free(m);
  CHECK_EQ(ta.live_blocks, 0);
}

/* ---------------------------------------------------------------------------------------- */
/* The sink */

TEST(nanopb_sink_failure_stops_the_writer) {
  olg_model *m;
  CHECK_OK(olg_model_new(&m, NULL));
  CHECK_OK(build_everything(m));
  pbuf full = {0};
  CHECK_OK(olg_model_write_nanopb(m, pbuf_sink, &full));
  long total_calls = full.calls;
  CHECK(total_calls >= 2);
  CHECK(full.largest <= 1024); /* no tensor reaches the staging size: every run was staged */
  for (long k = 1; k <= total_calls; k++) {
    pbuf b = {0};
    b.fail_at = k;
    olg_clear_error();
    CHECK_STATUS(olg_model_write_nanopb(m, pbuf_sink, &b), OLG_ERR_CALLBACK);
    CHECK_EQ(b.calls, k); /* not called again after it failed */
    CHECK(strstr(olg_last_error(), "write callback failed") != NULL);
    /* what it took before failing is the start of the model */
    CHECK(b.n < full.n && (b.n == 0 || memcmp(b.p, full.p, b.n) == 0));
    pbuf_free(&b);
  }
  pbuf_free(&full);
  olg_model_free(m);
}

TEST(nanopb_large_runs_not_copied) {
  /* a tensor larger than the staging buffer goes to the sink from the tensor's own memory */
  static float big[3000];
  for (size_t i = 0; i < 3000; i++) big[i] = (float)i * 0.5f;
  olg_model *m;
  CHECK_OK(olg_model_new(&m, NULL));
  olg_graph *g = olg_model_graph(m);
  CHECK_OK(olg_model_set_opset(m, "", 17));
  olg_value w;
  CHECK_OK(olg_graph_add_initializer(g, "big", OLG_FLOAT, 1, (const int64_t[]){3000}, big,
                                     sizeof big, OLG_DATA_BORROW, NULL, NULL, &w));
  CHECK_OK(olg_graph_add_output(g, w));
  CHECK_AGREE(m, NULL);
  pbuf b = {0};
  b.saw = big;
  b.saw_n = sizeof big;
  CHECK_OK(olg_model_write_nanopb(m, pbuf_sink, &b));
  if (!OLG_BIG_ENDIAN) { /* a big-endian host swaps the floats through a buffer on the stack */
    CHECK(b.saw_direct);
    CHECK(b.calls < 10);
  }
  pbuf_free(&b);
  olg_model_free(m);
}

/* ---------------------------------------------------------------------------------------- */
/* Refusals: the same as the default writer's, before the sink sees a byte */

static void expect_refused(const char *file, int line, const olg_model *m, olg_status want,
                           const char *msg) {
  pbuf a = {0}, b = {0};
  olg_status sa = olg_model_write_callback(m, pbuf_sink, &a, NULL);
  olg_status sb = olg_model_write_nanopb(m, pbuf_sink, &b);
  if (sa != want || sb != want)
    olg_test_fail(file, line, "default writer %s, nanopb writer %s, wanted %s",
                  olg_status_name(sa), olg_status_name(sb), olg_status_name(want));
  else if (b.calls)
    olg_test_fail(file, line, "the sink was called %ld times before the refusal", b.calls);
  else if (!strstr(olg_last_error(), msg))
    olg_test_fail(file, line, "message \"%s\" lacks \"%s\"", olg_last_error(), msg);
  pbuf_free(&a);
  pbuf_free(&b);
}
#define EXPECT_REFUSED(m, want, msg) expect_refused(__FILE__, __LINE__, (m), (want), (msg))

static olg_status nest(olg_model *m, olg_graph *g, int levels) {
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

TEST(nanopb_refusals) {
  CHECK_STATUS(olg_model_write_nanopb(NULL, pbuf_sink, NULL), OLG_ERR_INVALID_ARG);
  olg_model *m;
  CHECK_OK(olg_model_new(&m, NULL));
  CHECK_STATUS(olg_model_write_nanopb(m, NULL, NULL), OLG_ERR_INVALID_ARG);
  olg_graph *g = olg_model_graph(m);
  olg_value x, y;
  olg_node_id n;
  CHECK_OK(olg_graph_add_input(g, "x", OLG_FLOAT, 1, (const int64_t[]){4}, NULL, &x));
  CHECK_OK(olg_node_begin(g, "aten", "relu", "act", &n));
  CHECK_OK(olg_node_arg_value(g, n, x));
  CHECK_OK(olg_node_arg_int(g, n, 1));
  CHECK_OK(olg_node_end(g, n, 1, (const char *[]){"y"}, &y));
  EXPECT_REFUSED(m, OLG_ERR_UNSUPPORTED, "must be lowered");
  olg_model_free(m);
  /* an open node */
  CHECK_OK(olg_model_new(&m, NULL));
  g = olg_model_graph(m);
  CHECK_OK(olg_graph_add_input(g, "x", OLG_FLOAT, 1, (const int64_t[]){4}, NULL, &x));
  CHECK_OK(olg_node_begin(g, "", "Relu", "open", &n));
  EXPECT_REFUSED(m, OLG_ERR_STATE, "still open");
  olg_model_free(m);
  /* a value id the graph does not have */
  CHECK_OK(olg_model_new(&m, NULL));
  g = olg_model_graph(m);
  CHECK_OK(olg_graph_add_input(g, "x", OLG_FLOAT, 1, (const int64_t[]){4}, NULL, &x));
  CHECK_OK(olg_node_begin(g, "", "Relu", "bad", &n));
  CHECK_OK(olg_node_arg_value(g, n, x));
  CHECK_OK(olg_node_end(g, n, 1, (const char *[]){"y"}, &y));
  g->nodes[n].args[0].u.v = 999;
  EXPECT_REFUSED(m, OLG_ERR_INVALID_MODEL, "value id 999");
  olg_model_free(m);
  /* nesting: refused where the default writer refuses (what the reader could not read back) */
  CHECK_OK(olg_model_new(&m, NULL));
  CHECK_OK(nest(m, olg_model_graph(m), 70));
  EXPECT_REFUSED(m, OLG_ERR_LIMIT, "nested more than 50 graphs deep");
  olg_model_free(m);
}

TEST(nanopb_deep_nesting_same_bytes) {
  /* subgraphs as deep as every stage allows (OLG_MAX_SUBGRAPH_DEPTH), each with a tensor
   * attribute whose packed int64 data is re-encoded at every level above it */
  olg_model *m;
  CHECK_OK(olg_model_new(&m, NULL));
  olg_graph *g = olg_model_graph(m);
  static const int64_t vals[4] = {-1, 1, INT64_MIN, 300};
  for (int i = 0; i < OLG_MAX_SUBGRAPH_DEPTH; i++) {
    olg_graph *sub;
    olg_node_id n;
    CHECK_OK(olg_model_new_subgraph(m, &sub));
    CHECK_OK(olg_node_begin(g, "", "Loop", NULL, &n));
    CHECK_OK(olg_node_attr_graph(g, n, "body", sub));
    CHECK_OK(olg_node_attr_tensor(g, n, "t", OLG_INT64, 1, (const int64_t[]){4}, vals,
                                  sizeof vals));
    g->nodes[n].attrs[1].t->encoding = OLG_ENC_INT64;
    CHECK_OK(olg_node_end(g, n, 0, NULL, NULL));
    g = sub;
  }
  CHECK_AGREE(m, NULL);
  olg_model_free(m);
}

#endif /* OLG_WITH_NANOPB */
