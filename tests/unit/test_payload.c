/* Input hardening (issue 13): the reader refuses what a later stage would trip on -- attributes
 * without the payload their type names, tensors whose data does not cover their dims -- naming
 * where it is; external data and model files that are not regular files are refused at once;
 * the graph-building API refuses the same; the text printer never follows a missing payload and
 * bounds its recursion; DOT never recurses. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "../harness.h"
#include "ir.h"
#include "../pb_bytes.h"

/* ---------------------------------------------------------------------------------------- */
/* Hand-made models */

/* ir_version 8, the graph, opset 17 */
static void model_of(pbuf *model, pbuf *graph) {
  pbuf os = {0};
  memset(model, 0, sizeof *model);
  pint(model, 1, 8);
  pmsg(model, 7, graph);
  pstr(&os, 1, "");
  pint(&os, 2, 17);
  pmsg(model, 8, &os);
}

/* A graph "g" with one node "n1" (op Foo, input x, output y) carrying the given attribute. */
static void one_attr_model(pbuf *model, pbuf *attr) {
  pbuf g = {0}, n = {0};
  pstr(&n, 1, "x");
  pstr(&n, 2, "y");
  pstr(&n, 3, "n1");
  pstr(&n, 4, "Foo");
  pmsg(&n, 5, attr);
  pstr(&n, 7, "com.x");
  pmsg(&g, 1, &n);
  pstr(&g, 2, "g");
  model_of(model, &g);
}

/* A graph "g" with the given TensorProto as its only initializer. */
static void one_init_model(pbuf *model, pbuf *tensor) {
  pbuf g = {0};
  pstr(&g, 2, "g");
  pmsg(&g, 5, tensor);
  model_of(model, &g);
}

static void expect_read(const char *file, int line, pbuf *b, olg_status want, const char *needle) {
  olg_model *m = NULL;
  olg_status s = olg_model_read_memory(&m, b->p, b->n, NULL);
  if (s != want)
    olg_test_fail(file, line, "read gave %s, wanted %s (%s)", olg_status_name(s),
                  olg_status_name(want), olg_last_error());
  else if (needle && !strstr(olg_last_error(), needle))
    olg_test_fail(file, line, "message '%s' does not say '%s'", olg_last_error(), needle);
  if (!s) olg_model_free(m);
  pbuf_free(b);
}
#define READ_AS(b, want, needle)                                                         \
  do {                                                                                   \
    expect_read(__FILE__, __LINE__, (b), (want), (needle));                              \
    if (olg_test_failed()) return;                                                       \
  } while (0)

/* ---------------------------------------------------------------------------------------- */
/* Attributes */

TEST(reader_refuses_attributes_without_their_payload) {
  static const struct { int type; const char *says; } cases[] = {
    {OLG_ATTR_STRING, "has type STRING and no s"},
    {OLG_ATTR_TENSOR, "has type TENSOR and no t"},
    {OLG_ATTR_GRAPH, "has type GRAPH and no g"},
    {OLG_ATTR_SPARSE_TENSOR, "has type SPARSE_TENSOR and no sparse_tensor"},
    {OLG_ATTR_TYPE_PROTO, "has type TYPE_PROTO and no tp"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    pbuf a = {0}, b;
    pstr(&a, 1, "a");
    pint(&a, 20, (uint64_t)cases[i].type);
    one_attr_model(&b, &a);
    READ_AS(&b, OLG_ERR_PARSE, "attribute 'a' of node 'n1' (Foo) in graph 'g'");
    pstr(&a, 1, "a");
    pint(&a, 20, (uint64_t)cases[i].type);
    one_attr_model(&b, &a);
    READ_AS(&b, OLG_ERR_PARSE, cases[i].says);
  }
  /* another payload than the type names is no payload */
  pbuf a = {0}, b;
  pstr(&a, 1, "a");
  pint(&a, 3, 7);
  pint(&a, 20, OLG_ATTR_GRAPH);
  one_attr_model(&b, &a);
  READ_AS(&b, OLG_ERR_PARSE, "has type GRAPH and no g");
  /* a reference to a function's attribute outside a function: said so */
  pstr(&a, 1, "a");
  pstr(&a, 21, "outer_a");
  pint(&a, 20, OLG_ATTR_TENSOR);
  one_attr_model(&b, &a);
  READ_AS(&b, OLG_ERR_PARSE, "only valid inside a function");
}

TEST(reader_accepts_empty_lists_and_unset_scalars) {
  /* every list type may be empty; a FLOAT or INT left out reads as 0 (protobuf's default) */
  static const int types[] = {OLG_ATTR_FLOATS, OLG_ATTR_INTS, OLG_ATTR_STRINGS, OLG_ATTR_TENSORS,
                              OLG_ATTR_GRAPHS, OLG_ATTR_SPARSE_TENSORS, OLG_ATTR_TYPE_PROTOS,
                              OLG_ATTR_FLOAT, OLG_ATTR_INT};
  for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
    pbuf a = {0}, b;
    pstr(&a, 1, "a");
    pint(&a, 20, (uint64_t)types[i]);
    one_attr_model(&b, &a);
    olg_model *m;
    CHECK_OK(olg_model_read_memory(&m, b.p, b.n, NULL));
    const olg_attr *at = &m->graph->nodes[0].attrs[0];
    CHECK_EQ(at->type, types[i]);
    CHECK_EQ(at->n, 0);
    /* and the printers show them */
    pbuf out = {0};
    olg_status s = olg_model_print_text(m, pbuf_sink, &out);
    pbuf_free(&out);
    if (!s) s = olg_model_print_dot(m, pbuf_sink, &out);
    pbuf_free(&out);
    olg_model_free(m);
    CHECK_OK(s);
    pbuf_free(&b);
  }
  /* an attribute with neither type nor value (old files leave the type out): UNDEFINED, which
   * the text shows as a comment */
  {
    pbuf a0 = {0}, b0, out = {0};
    pstr(&a0, 1, "bare");
    one_attr_model(&b0, &a0);
    olg_model *m;
    CHECK_OK(olg_model_read_memory(&m, b0.p, b0.n, NULL));
    pbuf_free(&b0);
    CHECK_EQ(m->graph->nodes[0].attrs[0].type, OLG_ATTR_UNDEFINED);
    olg_status s = olg_model_print_text(m, pbuf_sink, &out);
    pbuf_add(&out, "", 1);
    bool said = strstr((const char *)out.p, "attribute bare of the next node has no type and no value") != NULL;
    pbuf_free(&out);
    olg_model_free(m);
    CHECK_OK(s);
    CHECK(said);
  }
  /* an empty string is a string */
  pbuf a = {0}, b;
  pstr(&a, 1, "a");
  pstr(&a, 4, "");
  pint(&a, 20, OLG_ATTR_STRING);
  one_attr_model(&b, &a);
  READ_AS(&b, OLG_OK, NULL);
}

/* A subgraph's messages name it; its parent's resume after it. */
TEST(reader_names_the_graph_node_and_attribute) {
  /* outer graph "outer": node "branch" (If) with then_branch = graph "inner" (node "deep" (Neg)
   * whose attribute "a" has type TENSOR and no tensor) */
  pbuf inner = {0}, deep = {0}, a = {0}, tb = {0}, node = {0}, outer = {0}, b;
  pstr(&a, 1, "a");
  pint(&a, 20, OLG_ATTR_TENSOR);
  pstr(&deep, 4, "Neg");
  pstr(&deep, 3, "deep");
  pmsg(&deep, 5, &a);
  pmsg(&inner, 1, &deep);
  pstr(&inner, 2, "inner");
  pstr(&tb, 1, "then_branch");
  pmsg(&tb, 6, &inner);
  pint(&tb, 20, OLG_ATTR_GRAPH);
  pstr(&node, 1, "c");
  pstr(&node, 3, "branch");
  pstr(&node, 4, "If");
  pmsg(&node, 5, &tb);
  pmsg(&outer, 1, &node);
  pstr(&outer, 2, "outer");
  model_of(&b, &outer);
  READ_AS(&b, OLG_ERR_PARSE, "attribute 'a' of node 'deep' (Neg) in graph 'inner' has type TENSOR");

  /* the subgraph is fine; the If's next attribute (a tensor without data) is not */
  pbuf t = {0}, x = {0};
  memset(&inner, 0, sizeof inner);
  pstr(&inner, 2, "inner");
  pstr(&tb, 1, "then_branch");
  pmsg(&tb, 6, &inner);
  pint(&tb, 20, OLG_ATTR_GRAPH);
  pint(&t, 2, OLG_FLOAT);
  pstr(&x, 1, "x");
  pmsg(&x, 5, &t);
  pint(&x, 20, OLG_ATTR_TENSOR);
  pstr(&node, 1, "c");
  pstr(&node, 3, "branch");
  pstr(&node, 4, "If");
  pmsg(&node, 5, &tb);
  pmsg(&node, 5, &x);
  pmsg(&outer, 1, &node);
  pstr(&outer, 2, "outer");
  model_of(&b, &outer);
  READ_AS(&b, OLG_ERR_PARSE,
          "tensor of attribute 'x' of node 'branch' (If) in graph 'outer': 1 element of float "
          "declared and no data");

  /* an initializer of a subgraph */
  pbuf w = {0};
  memset(&inner, 0, sizeof inner);
  pstr(&inner, 2, "inner");
  pint(&w, 1, 3);
  pint(&w, 2, OLG_INT64);
  pstr(&w, 8, "w");
  pmsg(&inner, 5, &w);
  pstr(&tb, 1, "then_branch");
  pmsg(&tb, 6, &inner);
  pint(&tb, 20, OLG_ATTR_GRAPH);
  pstr(&node, 4, "If");
  pmsg(&node, 5, &tb);
  pmsg(&outer, 1, &node);
  pstr(&outer, 2, "outer");
  model_of(&b, &outer);
  READ_AS(&b, OLG_ERR_PARSE, "initializer 'w' of graph 'inner': 3 elements of int64 declared and no data");

  /* a node without a name is named by its place in the graph */
  pbuf n0 = {0}, n1 = {0}, g = {0};
  pstr(&n0, 4, "Relu");
  pmsg(&g, 1, &n0);
  pstr(&a, 1, "to");
  pint(&a, 20, OLG_ATTR_STRING);
  pstr(&n1, 4, "Cast");
  pmsg(&n1, 5, &a);
  pmsg(&g, 1, &n1);
  pstr(&g, 2, "g");
  model_of(&b, &g);
  READ_AS(&b, OLG_ERR_PARSE, "attribute 'to' of node #1 (Cast) in graph 'g' has type STRING");
}

/* ---------------------------------------------------------------------------------------- */
/* Tensor data */

TEST(reader_refuses_tensors_whose_data_does_not_cover_their_dims) {
  pbuf t = {0}, b, pk = {0};
  /* one int64 element declared, no data (the repro of issue 13: a NULL read in inference) */
  pint(&t, 2, OLG_INT64);
  pstr(&t, 8, "starts");
  one_init_model(&b, &t);
  READ_AS(&b, OLG_ERR_PARSE, "initializer 'starts' of graph 'g': 1 element of int64 declared and no data");
  /* no element, no data: fine */
  pint(&t, 1, 0);
  pint(&t, 2, OLG_FLOAT);
  pstr(&t, 8, "empty");
  one_init_model(&b, &t);
  READ_AS(&b, OLG_OK, NULL);
  /* no data type and no data, with elements */
  pint(&t, 1, 2);
  pstr(&t, 8, "untyped");
  one_init_model(&b, &t);
  READ_AS(&b, OLG_ERR_PARSE, "2 elements of element type 0 declared and no data");
  /* two data fields */
  pint(&t, 1, 1);
  pint(&t, 2, OLG_FLOAT);
  pstr(&t, 8, "two");
  pbytes(&t, 4, "\0\0\0\0", 4);
  pbytes(&t, 9, "\0\0\0\0", 4);
  one_init_model(&b, &t);
  READ_AS(&b, OLG_ERR_PARSE, "data in both float_data and raw_data");
  /* a field the element type does not go in */
  pint(&t, 2, OLG_INT64);
  pstr(&t, 8, "wrongfield");
  pbytes(&t, 4, "\0\0\0\0", 4);
  one_init_model(&b, &t);
  READ_AS(&b, OLG_ERR_PARSE, "float_data cannot hold int64");
  pint(&t, 2, OLG_FLOAT);
  pstr(&t, 8, "strs");
  pstr(&t, 6, "a");
  one_init_model(&b, &t);
  READ_AS(&b, OLG_ERR_PARSE, "string_data cannot hold float");
  pint(&t, 2, OLG_STRING);
  pstr(&t, 8, "rawstr");
  pbytes(&t, 9, "ab", 2);
  one_init_model(&b, &t);
  READ_AS(&b, OLG_ERR_PARSE, "raw_data for a string tensor");
  /* raw data for an element type of unknown size */
  pint(&t, 2, 99);
  pstr(&t, 8, "odd");
  pbytes(&t, 9, "ab", 2);
  one_init_model(&b, &t);
  READ_AS(&b, OLG_ERR_PARSE, "element type 99, whose size is unknown");
  /* a segment does not excuse partial data */
  pbuf seg = {0};
  pint(&t, 1, 4);
  pint(&t, 2, OLG_FLOAT);
  pint(&seg, 1, 0);
  pint(&seg, 2, 2);
  pmsg(&t, 3, &seg);
  pstr(&t, 8, "part");
  pbytes(&t, 9, "\0\0\0\0\0\0\0\0", 8);
  one_init_model(&b, &t);
  READ_AS(&b, OLG_ERR_PARSE, "raw_data is 8 bytes, float of 4 elements needs 16");
  pint(&t, 1, 3);
  pint(&t, 2, OLG_INT64);
  pint(&seg, 1, 0);
  pint(&seg, 2, 1);
  pmsg(&t, 3, &seg);
  pstr(&t, 8, "part64");
  pv(&pk, 5);
  pmsg(&t, 7, &pk);
  one_init_model(&b, &t);
  READ_AS(&b, OLG_ERR_PARSE, "int64_data has 1 values, int64 of 3 elements needs 3");
  /* a whole tensor with a segment is kept */
  pint(&t, 1, 2);
  pint(&t, 2, OLG_FLOAT);
  pint(&seg, 1, 0);
  pint(&seg, 2, 2);
  pmsg(&t, 3, &seg);
  pstr(&t, 8, "whole");
  pbytes(&t, 9, "\0\0\0\0\0\0\0\0", 8);
  one_init_model(&b, &t);
  READ_AS(&b, OLG_OK, NULL);
  /* an attribute's tensor (the repro's Constant) */
  pbuf a = {0};
  pint(&t, 2, OLG_INT64);
  pstr(&a, 1, "value");
  pmsg(&a, 5, &t);
  pint(&a, 20, OLG_ATTR_TENSOR);
  one_attr_model(&b, &a);
  READ_AS(&b, OLG_ERR_PARSE, "tensor of attribute 'value' of node 'n1' (Foo) in graph 'g': 1 element");
  /* and in a TENSORS list */
  pint(&t, 1, 2);
  pint(&t, 2, OLG_FLOAT);
  pstr(&t, 8, "listed");
  pstr(&a, 1, "ts");
  pmsg(&a, 10, &t);
  pint(&a, 20, OLG_ATTR_TENSORS);
  one_attr_model(&b, &a);
  READ_AS(&b, OLG_ERR_PARSE, "tensor 'listed' of attribute 'ts' of node 'n1' (Foo) in graph 'g'");
}

/* ---------------------------------------------------------------------------------------- */
/* Files that are not regular: refused at once, never waited on */

/* A hang here would be the bug: the alarm turns it into a loud failure instead. */
static void guard_on(void) { alarm(60); }
static void guard_off(void) { alarm(0); }

static void ext_model(pbuf *b, const char *location) {
  pbuf t = {0}, kv = {0};
  pint(&t, 1, 4);
  pint(&t, 2, OLG_UINT8);
  pstr(&t, 8, "e");
  pstr(&kv, 1, "location");
  pstr(&kv, 2, location);
  pmsg(&t, 13, &kv);
  pint(&t, 14, 1);
  one_init_model(b, &t);
}

static void expect_ext(const char *file, int line, const char *dir, const char *loc,
                       const char *needle) {
  pbuf b;
  ext_model(&b, loc);
  olg_read_options ro = OLG_READ_OPTIONS_INIT;
  ro.external_data_dir = dir;
  olg_model *m = NULL;
  guard_on();
  olg_status s = olg_model_read_memory(&m, b.p, b.n, &ro);
  guard_off();
  if (s != OLG_ERR_INVALID_MODEL)
    olg_test_fail(file, line, "'%s': %s (%s), wanted OLG_ERR_INVALID_MODEL", loc,
                  olg_status_name(s), olg_last_error());
  else if (!strstr(olg_last_error(), needle) || !strstr(olg_last_error(), "initializer 'e' of graph 'g'"))
    olg_test_fail(file, line, "'%s': message '%s' lacks '%s' or the initializer", loc,
                  olg_last_error(), needle);
  if (!s) olg_model_free(m);
  pbuf_free(&b);
}
#define EXT_REFUSED(loc, needle)                                                         \
  do {                                                                                   \
    expect_ext(__FILE__, __LINE__, dir, (loc), (needle));                                \
    if (olg_test_failed()) return;                                                       \
  } while (0)

TEST(external_data_that_is_not_a_regular_file_is_refused_at_once) {
  char dir[600], p[700];
  snprintf(dir, sizeof dir, "%s", test_tmp_path("payload_ext"));
  mkdir(dir, 0755);
  /* a FIFO no one writes to: opening it for reading would block forever */
  snprintf(p, sizeof p, "%s/pipe", dir);
  unlink(p);
  CHECK(mkfifo(p, 0644) == 0);
  EXT_REFUSED("pipe", "is not a regular file (a FIFO)");
  EXT_REFUSED("pipe/x", "goes through something that is not a directory");
  /* a socket (open gives ENXIO), a directory */
  snprintf(p, sizeof p, "%s/sock", dir);
  unlink(p);
  int sfd = socket(AF_UNIX, SOCK_STREAM, 0);
  CHECK(sfd >= 0);
  struct sockaddr_un sa = {.sun_family = AF_UNIX};
  if (strlen(p) < sizeof sa.sun_path) {
    strcpy(sa.sun_path, p);
    CHECK(bind(sfd, (struct sockaddr *)&sa, sizeof sa) == 0);
    EXT_REFUSED("sock", "is not a regular file (a socket)");
  }
  close(sfd);
  snprintf(p, sizeof p, "%s/adir", dir);
  mkdir(p, 0755);
  EXT_REFUSED("adir", "is not a regular file (a directory)");
  /* the model file itself */
  pbuf b;
  ext_model(&b, "pipe");
  snprintf(p, sizeof p, "%s/pipe", dir);
  olg_model *m = NULL;
  guard_on();
  olg_status s = olg_model_read_file(&m, p, NULL);
  guard_off();
  CHECK_EQ(s, OLG_ERR_IO);
  CHECK(strstr(olg_last_error(), "is not a regular file (a FIFO)") != NULL);
  /* a model file beside the FIFO: read_file resolves external data in its directory */
  snprintf(p, sizeof p, "%s/m.onnx", dir);
  FILE *f = fopen(p, "wb");
  CHECK(f != NULL);
  fwrite(b.p, 1, b.n, f);
  fclose(f);
  pbuf_free(&b);
  guard_on();
  s = olg_model_read_file(&m, p, NULL);
  guard_off();
  CHECK_EQ(s, OLG_ERR_INVALID_MODEL);
  CHECK(strstr(olg_last_error(), "FIFO") != NULL);
  /* a regular file there is still read, and its descriptor does not stay non-blocking (only the
   * mapping is kept) */
  snprintf(p, sizeof p, "%s/data.bin", dir);
  f = fopen(p, "wb");
  CHECK(f != NULL);
  fwrite("\1\2\3\4", 1, 4, f);
  fclose(f);
  ext_model(&b, "data.bin");
  olg_read_options ro = OLG_READ_OPTIONS_INIT;
  ro.external_data_dir = dir;
  CHECK_OK(olg_model_read_memory(&m, b.p, b.n, &ro));
  CHECK(memcmp(m->graph->inits[0].t->data, "\1\2\3\4", 4) == 0);
  olg_model_free(m);
  pbuf_free(&b);
}

/* ---------------------------------------------------------------------------------------- */
/* The graph-building API refuses the same */

TEST(api_refuses_attributes_without_their_payload) {
  olg_model *m;
  CHECK_OK(olg_model_new(&m, NULL));
  olg_graph *g = olg_model_graph(m), *sub;
  olg_node_id n;
  CHECK_OK(olg_node_begin(g, "", "If", "branch", &n));
  CHECK_STATUS(olg_node_attr_graph(g, n, "then_branch", NULL), OLG_ERR_INVALID_ARG);
  CHECK_STATUS(olg_node_attr_graphs(g, n, "branches", NULL, 1), OLG_ERR_INVALID_ARG);
  CHECK_STATUS(olg_node_attr_graphs(g, n, "branches", (olg_graph *const[]){NULL}, 1),
               OLG_ERR_INVALID_ARG);
  CHECK_STATUS(olg_node_attr_tensor(g, n, "value", OLG_INT64, 0, NULL, NULL, 8), OLG_ERR_INVALID_ARG);
  /* a tensor's data must match its dims */
  int64_t one = 1;
  CHECK_STATUS(olg_node_attr_tensor(g, n, "value", OLG_INT64, 0, NULL, &one, 0), OLG_ERR_INVALID_ARG);
  CHECK_STATUS(olg_node_attr_tensor(g, n, "value", OLG_INT64, 1, (const int64_t[]){2}, &one, 8),
               OLG_ERR_INVALID_ARG);
  CHECK_STATUS(olg_node_attr_string(g, n, "mode", NULL), OLG_ERR_INVALID_ARG);
  CHECK_STATUS(olg_node_attr_bytes(g, n, "mode", NULL, 3), OLG_ERR_INVALID_ARG);
  CHECK_STATUS(olg_node_attr_ints(g, n, "axes", NULL, 2), OLG_ERR_INVALID_ARG);
  CHECK_STATUS(olg_node_attr_strings(g, n, "names", (const char *const[]){"a", NULL}, 2),
               OLG_ERR_INVALID_ARG);
  CHECK_STATUS(olg_graph_add_initializer(g, "w", OLG_FLOAT, 1, (const int64_t[]){2}, NULL, 8,
                                         OLG_DATA_BORROW, NULL, NULL, NULL),
               OLG_ERR_INVALID_ARG);
  /* nothing was attached: the node still takes a real subgraph */
  CHECK_EQ(olg_node_attr_count(g, n), 0);
  CHECK_OK(olg_model_new_subgraph(m, &sub));
  CHECK_OK(olg_node_attr_graph(g, n, "then_branch", sub));
  CHECK_OK(olg_node_attr_tensor(g, n, "value", OLG_INT64, 0, NULL, &one, 8));
  CHECK_EQ(olg_node_attr_count(g, n), 2);
  olg_model_free(m);
}

/* ---------------------------------------------------------------------------------------- */
/* The printers */

static olg_status build_with_attrs(olg_model *m, olg_node_id *out) {
  olg_graph *g = olg_model_graph(m), *sub;
  olg_status s;
  olg_node_id n;
  int64_t one = 1;
  if ((s = olg_graph_set_name(g, "g")) || (s = olg_model_new_subgraph(m, &sub)) ||
      (s = olg_node_begin(g, "", "If", "branch", &n)) ||
      (s = olg_node_attr_graph(g, n, "then_branch", sub)) ||
      (s = olg_node_attr_tensor(g, n, "value", OLG_INT64, 0, NULL, &one, 8)) ||
      (s = olg_node_attr_string(g, n, "mode", "m")) ||
      (s = olg_node_attr_graphs(g, n, "gs", (olg_graph *const[]){NULL}, 0)) ||
      (s = olg_node_end(g, n, 1, NULL, NULL)))
    return s;
  *out = n;
  return OLG_OK;
}

TEST(printers_never_follow_a_missing_payload) {
  /* edited in memory past the API's checks: each payload NULL in turn */
  for (int k = 0; k < 5; k++) {
    olg_model *m;
    olg_node_id n;
    CHECK_OK(olg_model_new(&m, NULL));
    CHECK_OK(build_with_attrs(m, &n));
    olg_node *nd = &m->graph->nodes[n];
    const char *attr = NULL;
    olg_status want = OLG_ERR_INVALID_MODEL;
    switch (k) {
    case 0: nd->attrs[0].g = NULL; attr = "then_branch"; break;
    case 1: nd->attrs[1].t = NULL; attr = "value"; break;
    case 2: nd->attrs[2].s.p = NULL; want = OLG_OK; break; /* prints "" */
    case 3: nd->attrs[3].n = 2; attr = "gs"; break;        /* a count without its array */
    case 4:
      nd->attrs[1].type = OLG_ATTR_TYPE_PROTO; /* a type without its TypeProto */
      attr = "value";
      break;
    }
    pbuf out = {0};
    olg_status s = olg_model_print_text(m, pbuf_sink, &out);
    if (s != want) {
      olg_test_fail(__FILE__, __LINE__, "case %d: %s, wanted %s (%s)", k, olg_status_name(s),
                    olg_status_name(want), olg_last_error());
      pbuf_free(&out);
      olg_model_free(m);
      return;
    }
    if (attr) {
      char needle[128];
      snprintf(needle, sizeof needle, "attribute '%s' of node 'branch' (If) in graph 'g'", attr);
      CHECK(strstr(olg_last_error(), needle) != NULL);
    }
    pbuf_free(&out);
    /* DOT draws the main graph and names subgraph attributes: nothing to follow */
    CHECK_OK(olg_model_print_dot(m, pbuf_sink, &out));
    pbuf_free(&out);
    olg_model_free(m);
  }
}

/* `levels` nested If nodes built through the API; returns the innermost graph. */
static olg_status nest(olg_model *m, int levels, olg_graph **innermost) {
  olg_graph *g = olg_model_graph(m);
  for (int i = 0; i < levels; i++) {
    olg_graph *sub;
    olg_node_id n;
    olg_status s;
    if ((s = olg_model_new_subgraph(m, &sub)) || (s = olg_node_begin(g, "", "If", NULL, &n)) ||
        (s = olg_node_attr_graph(g, n, "then_branch", sub)) || (s = olg_node_end(g, n, 0, NULL, NULL)))
      return s;
    g = sub;
  }
  *innermost = g;
  return OLG_OK;
}

TEST(printers_bound_their_depth) {
  olg_model *m;
  olg_graph *in;
  /* 10,000 levels: text refuses with a clear error (no stack overflow), DOT draws the main
   * graph only */
  CHECK_OK(olg_model_new(&m, NULL));
  CHECK_OK(nest(m, 10000, &in));
  pbuf out = {0};
  CHECK_STATUS(olg_model_print_text(m, pbuf_sink, &out), OLG_ERR_LIMIT);
  CHECK(strstr(olg_last_error(), "nested more than 50 graphs deep") != NULL);
  pbuf_free(&out);
  CHECK_OK(olg_model_print_dot(m, pbuf_sink, &out));
  pbuf_free(&out);
  olg_model_free(m);
  /* as deep as every stage goes (OLG_MAX_SUBGRAPH_DEPTH): printed */
  CHECK_OK(olg_model_new(&m, NULL));
  CHECK_OK(nest(m, OLG_MAX_SUBGRAPH_DEPTH, &in));
  CHECK_OK(olg_model_print_text(m, pbuf_sink, &out));
  pbuf_free(&out);
  olg_model_free(m);
  /* a type nested 100,000 deep (seq(seq(...))) prints by a loop, whole */
  CHECK_OK(olg_model_new(&m, NULL));
  olg_graph *g = olg_model_graph(m);
  olg_value v;
  CHECK_OK(olg_graph_add_input(g, "x", OLG_FLOAT, 0, NULL, NULL, &v));
  enum { DEEP = 100000 };
  olg_type *chain = calloc(DEEP, sizeof *chain);
  olg_type_more *chain_more = calloc(DEEP, sizeof *chain_more);
  CHECK(chain != NULL && chain_more != NULL);
  for (int i = 0; i < DEEP; i++) {
    chain[i].kind = i + 1 < DEEP ? OLG_TYPE_SEQUENCE : OLG_TYPE_TENSOR;
    chain_more[i].inner = i + 1 < DEEP ? &chain[i + 1] : NULL;
    chain[i].more = i + 1 < DEEP ? &chain_more[i] : NULL;
    chain[i].rank = OLG_RANK_UNKNOWN;
    chain[i].has_elem = true;
    chain[i].elem8 = OLG_FLOAT;
  }
  olg_type saved = g->values[v].type;
  g->values[v].type = chain[0];
  olg_status s = olg_model_print_text(m, pbuf_sink, &out);
  g->values[v].type = saved;
  free(chain);
  free(chain_more);
  CHECK_OK(s);
  /* "seq(" DEEP-1 times, "float[]", then as many ')' */
  size_t seqs = 0, closes = 0;
  for (size_t i = 0; i + 4 <= out.n; i++)
    if (memcmp(out.p + i, "seq(", 4) == 0) seqs++;
  for (size_t i = 0; i < out.n; i++)
    if (out.p[i] == ')') closes++;
  CHECK_EQ(seqs, DEEP - 1);
  CHECK(closes >= (size_t)DEEP - 1);
  pbuf_free(&out);
  olg_model_free(m);
}

/* ---------------------------------------------------------------------------------------- */
/* External data left unloaded (load_external_data = 0): contents unknown, never a NULL read */

TEST(unloaded_external_data_is_unknown_to_later_stages) {
  /* Reshape(x, shape) with `shape` (int64[2]) in an external file that is not loaded */
  pbuf g = {0}, t = {0}, kv = {0}, n = {0}, vx = {0}, ty = {0}, tt = {0}, sh = {0}, b;
  pint(&t, 1, 2);
  pint(&t, 2, OLG_INT64);
  pstr(&t, 8, "shape");
  pstr(&kv, 1, "location");
  pstr(&kv, 2, "nowhere.bin");
  pmsg(&t, 13, &kv);
  pint(&t, 14, 1);
  pstr(&n, 1, "x");
  pstr(&n, 1, "shape");
  pstr(&n, 2, "y");
  pstr(&n, 3, "r");
  pstr(&n, 4, "Reshape");
  pmsg(&g, 1, &n);
  pstr(&g, 2, "g");
  pmsg(&g, 5, &t);
  for (int i = 0; i < 2; i++) {
    pbuf d = {0};
    pint(&d, 1, (uint64_t)(2 + i));
    pmsg(&sh, 1, &d);
  }
  pint(&tt, 1, OLG_FLOAT);
  pmsg(&tt, 2, &sh);
  pmsg(&ty, 1, &tt);
  pstr(&vx, 1, "x");
  pmsg(&vx, 2, &ty);
  pmsg(&g, 11, &vx);
  pbuf vy = {0};
  pstr(&vy, 1, "y");
  pmsg(&g, 12, &vy);
  model_of(&b, &g);
  olg_read_options ro = OLG_READ_OPTIONS_INIT;
  ro.load_external_data = 0;
  olg_model *m;
  CHECK_OK(olg_model_read_memory(&m, b.p, b.n, &ro));
  pbuf_free(&b);
  const olg_tensor *st = m->graph->inits[0].t;
  CHECK(st->data == NULL && st->encoding == OLG_ENC_EXTERNAL);
  CHECK_EQ(st->nbytes, 16); /* what it would hold: how later stages tell it is not loaded */
  olg_check_options co = OLG_CHECK_OPTIONS_INIT;
  co.full = 1;
  olg_status s = olg_check(m, &co, NULL);
  CHECK(s == OLG_OK || s == OLG_ERR_INVALID_MODEL);
  CHECK_OK(olg_infer_shapes(m, NULL, NULL));
  olg_registry *reg;
  CHECK_OK(olg_registry_new_builtin(&reg, NULL));
  olg_legalize_options lo = OLG_LEGALIZE_OPTIONS_INIT;
  lo.opset = 13;
  olg_model *out = NULL;
  s = olg_legalize(m, reg, &lo, &out, NULL);
  if (!s) {
    /* the reference is carried, still unloaded */
    pbuf w = {0};
    CHECK_OK(olg_model_write_callback(out, pbuf_sink, &w, NULL));
    CHECK(w.n > 0);
    pbuf_free(&w);
    olg_model_free(out);
  }
  olg_registry_free(reg);
  pbuf p = {0};
  CHECK_OK(olg_model_print_text(m, pbuf_sink, &p));
  pbuf_free(&p);
  olg_model_free(m);
}
