/* The protobuf reader on hostile input found by fuzzing and reading the reader: each is refused
 * with a message naming the byte and the message it is in, never read as another model. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../harness.h"
#include "ir.h"
#include "../pb_bytes.h"

/* A ModelProto around graph g (opset 17), with tail after it; frees both. */
static void hostile_model(pbuf *model, pbuf *g, pbuf *tail) {
  pbuf os = {0};
  pint(model, 1, 8);
  pmsg(model, 7, g);
  pstr(&os, 1, "");
  pint(&os, 2, 17);
  pmsg(model, 8, &os);
  if (tail) {
    pbuf_add(model, tail->p, tail->n);
    pbuf_free(tail);
  }
}

/* A ValueInfoProto: name (n bytes) with a float tensor type. */
static void hostile_vi(pbuf *g, uint32_t field, const char *name, size_t n) {
  pbuf vi = {0}, ty = {0}, tt = {0};
  pbytes(&vi, 1, name, n);
  pint(&tt, 1, OLG_FLOAT);
  pmsg(&ty, 1, &tt);
  pmsg(&vi, 2, &ty);
  pmsg(g, field, &vi);
}

static void refused_with(const char *file, int line, pbuf *b, olg_status want,
                         const char *needle) {
  olg_model *m = (olg_model *)1;
  olg_status s = olg_model_read_memory(&m, b->p, b->n, NULL);
  if (s != want)
    olg_test_fail(file, line, "read gave %s, wanted %s (%s)", olg_status_name(s),
                  olg_status_name(want), s ? olg_last_error() : "");
  else if (m != NULL)
    olg_test_fail(file, line, "the model pointer was not cleared");
  else if (needle && !strstr(olg_last_error(), needle))
    olg_test_fail(file, line, "message '%s' does not mention '%s'", olg_last_error(), needle);
  if (s == OLG_OK) olg_model_free(m);
  pbuf_free(b);
}
#define REFUSED_WITH(b, want, needle)                                                    \
  do {                                                                                   \
    refused_with(__FILE__, __LINE__, (b), (want), (needle));                             \
    if (olg_test_failed()) return;                                                       \
  } while (0)

/* Names, op types and domains are C strings in the IR: a NUL byte in one cut it there, so that
 * "Identity\0Foo" was read as an Identity, an input "x\0y" (defined nowhere) as the graph's
 * input x and an initializer "x\0a" as x's default, all written back so. Refused, naming the
 * byte of the NUL, the node and the field. */
TEST(read_refuses_nul_bytes_in_names) {
  /* case k: where the NUL goes */
  for (int k = 0; k < 10; k++) {
    pbuf g = {0}, n = {0}, tail = {0}, b = {0};
    pbytes(&n, 1, k == 0 ? "x\0y" : "x", k == 0 ? 3 : 1);
    pbytes(&n, 2, k == 1 ? "y\0z" : "y", k == 1 ? 3 : 1);
    pbytes(&n, 3, k == 2 ? "n\0m" : "n", k == 2 ? 3 : 1);
    pbytes(&n, 4, k == 3 ? "Identity\0Foo" : "Identity", k == 3 ? 12 : 8);
    if (k == 4) pbytes(&n, 7, "ai\0x", 4);
    if (k == 5) {
      pbuf a = {0};
      pbytes(&a, 1, "a\0b", 3);
      pint(&a, 3, 1);
      pint(&a, 20, OLG_ATTR_INT);
      pmsg(&n, 5, &a);
    }
    pmsg(&g, 1, &n);
    pbytes(&g, 2, k == 6 ? "g\0h" : "g", k == 6 ? 3 : 1);
    if (k == 7) {
      pbuf t = {0};
      pint(&t, 2, OLG_FLOAT);
      pbytes(&t, 4, "\0\0\0\0", 4);
      pbytes(&t, 8, "x\0a", 3);
      pmsg(&g, 5, &t);
    }
    hostile_vi(&g, 11, "x", 1);
    hostile_vi(&g, 12, k == 8 ? "y\0q" : "y", k == 8 ? 3 : 1);
    if (k == 9) {
      pbuf os = {0};
      pbytes(&os, 1, "com.x\0y", 7);
      pint(&os, 2, 1);
      pmsg(&tail, 8, &os);
    }
    hostile_model(&b, &g, &tail);
    static const char *const want[10] = {
        "node 'n' (Identity) in graph 'g': input 0 'x' holds a NUL byte (byte 1 of its 3)",
        "node 'n' (Identity) in graph 'g': output 0 'y' holds a NUL byte",
        "node 'n' (Identity) in graph 'g': name 'n' holds a NUL byte",
        "op_type 'Identity' holds a NUL byte (byte 8 of its 12)",
        "domain 'ai' holds a NUL byte",
        "attribute name 'a' holds a NUL byte",
        "the main GraphProto: name 'g' holds a NUL byte",
        "initializer 'x' of graph 'g': name 'x' holds a NUL byte",
        "graph 'g': output name 'y' holds a NUL byte",
        "opset_import domain 'com.x' holds a NUL byte",
    };
    REFUSED_WITH(&b, OLG_ERR_UNSUPPORTED, want[k]);
  }
  /* the byte named is the NUL's: the input's bytes start 2 bytes into the NodeProto */
  pbuf g = {0}, n = {0}, b = {0};
  pbytes(&n, 1, "ab\0", 3);
  pstr(&n, 4, "Identity");
  pmsg(&g, 1, &n);
  hostile_model(&b, &g, NULL);
  size_t at = 0;
  for (size_t i = 0; i + 3 <= b.n; i++)
    if (memcmp(b.p + i, "ab\0", 3) == 0) at = i + 2;
  char needle[64];
  snprintf(needle, sizeof needle, "byte %zu: node #0 (Identity)", at);
  REFUSED_WITH(&b, OLG_ERR_UNSUPPORTED, needle);
  /* a subgraph's name is named by the attribute it is in; a function's names by FunctionProto */
  pbuf sub = {0}, attr = {0}, fn = {0}, tail = {0};
  pbytes(&sub, 2, "body\0", 5);
  pstr(&attr, 1, "then_branch");
  pint(&attr, 20, OLG_ATTR_GRAPH);
  pmsg(&attr, 6, &sub);
  pstr(&n, 1, "c");
  pstr(&n, 2, "r");
  pstr(&n, 4, "If");
  pmsg(&n, 5, &attr);
  pmsg(&g, 1, &n);
  hostile_model(&b, &g, NULL);
  REFUSED_WITH(&b, OLG_ERR_UNSUPPORTED,
               "attribute 'then_branch' of node #0 (If) in graph '': subgraph name 'body'");
  pbytes(&fn, 1, "F\0G", 3);
  pstr(&fn, 10, "local");
  pmsg(&tail, 25, &fn);
  hostile_model(&b, &g, &tail);
  REFUSED_WITH(&b, OLG_ERR_UNSUPPORTED, "FunctionProto: name 'F' holds a NUL byte");
  /* a name without one still reads, as do NUL bytes in a doc string */
  pstr(&n, 1, "x");
  pstr(&n, 2, "y");
  pstr(&n, 4, "Identity");
  pbytes(&n, 6, "doc\0string", 10);
  pmsg(&g, 1, &n);
  pstr(&g, 2, "g");
  hostile_vi(&g, 11, "x", 1);
  hostile_vi(&g, 12, "y", 1);
  hostile_model(&b, &g, NULL);
  olg_model *m;
  CHECK_OK(olg_model_read_memory(&m, b.p, b.n, NULL));
  CHECK_STR(olg_model_graph(m)->nodes[0].op, "Identity");
  olg_model_free(m);
  pbuf_free(&b);
}

/* External data files were looked up by location in a list: a model saved one file per tensor
 * (onnx's save_as_external_data with all_tensors_to_one_file=False) read in quadratic time,
 * 2.6 s for 10000 files and 8.7 s for 20000, most of it strcmp. A table by location now: here
 * 1500 tensors in 500 files (three each, at offsets 0, 4, 8) through the table's growth, each
 * file mapped once and each tensor's bytes its own. */
TEST(read_many_external_data_files) {
  enum { FILES = 500, PER = 3 };
  char dir[600], p[700];
  snprintf(dir, sizeof dir, "%s", test_tmp_path("hostile_ext"));
  mkdir(dir, 0755);
  for (int i = 0; i < FILES; i++) {
    snprintf(p, sizeof p, "%s/tensor_%d.bin", dir, i);
    FILE *f = fopen(p, "wb");
    CHECK(f != NULL);
    for (int k = 0; k < PER; k++) {
      uint32_t v = (uint32_t)(i * PER + k); /* little-endian, as ONNX's data files are */
      uint8_t le[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
      CHECK_EQ(fwrite(le, 4, 1, f), 1);
    }
    fclose(f);
  }
  pbuf g = {0}, b = {0};
  char name[32], loc[32], off[16];
  for (int k = 0; k < PER; k++)
    for (int i = 0; i < FILES; i++) {
      pbuf t = {0}, kv = {0};
      snprintf(name, sizeof name, "w%d_%d", i, k);
      snprintf(loc, sizeof loc, "tensor_%d.bin", i);
      snprintf(off, sizeof off, "%d", 4 * k);
      pint(&t, 2, OLG_INT32);
      pstr(&t, 8, name);
      pstr(&kv, 1, "location");
      pstr(&kv, 2, loc);
      pmsg(&t, 13, &kv);
      pstr(&kv, 1, "offset");
      pstr(&kv, 2, off);
      pmsg(&t, 13, &kv);
      pstr(&kv, 1, "length");
      pstr(&kv, 2, "4");
      pmsg(&t, 13, &kv);
      pint(&t, 14, 1);
      pmsg(&g, 5, &t);
    }
  pstr(&g, 2, "g");
  hostile_vi(&g, 12, "w0_0", 4);
  hostile_model(&b, &g, NULL);
  olg_read_options ro = OLG_READ_OPTIONS_INIT;
  ro.external_data_dir = dir;
  olg_model *m;
  CHECK_OK(olg_model_read_memory(&m, b.p, b.n, &ro));
  pbuf_free(&b);
  const olg_graph *gr = olg_model_graph(m);
  CHECK_EQ(gr->n_inits, FILES * PER);
  for (uint32_t j = 0; j < gr->n_inits; j++) {
    const olg_tensor *t = gr->inits[j].t;
    int i = (int)j % FILES, k = (int)j / FILES;
    int32_t v; /* in the host's order (swapped on a big-endian one) */
    CHECK(t->data != NULL && t->nbytes == 4);
    memcpy(&v, t->data, 4);
    CHECK_EQ(v, i * PER + k);
  }
  size_t maps = 0;
  for (const olg_mapping *mp = m->mappings; mp; mp = mp->next) maps++;
  CHECK_EQ(maps, FILES);
  olg_model_free(m);
  for (int i = 0; i < FILES; i++) {
    snprintf(p, sizeof p, "%s/tensor_%d.bin", dir, i);
    unlink(p);
  }
  rmdir(dir);
}
