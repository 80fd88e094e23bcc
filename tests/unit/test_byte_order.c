/* Tensor data is in the host's byte order in memory and little-endian in files (issue 24 (d)):
 * checked against hand-written little-endian bytes, so that a reader and a writer that both
 * forgot to convert (and so round-trip each other) still fail on a big-endian host. */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../harness.h"
#include "ir.h"
#include "../pb_bytes.h"

static bool contains(const uint8_t *p, size_t n, const void *want, size_t wn) {
  for (size_t i = 0; i + wn <= n; i++)
    if (memcmp(p + i, want, wn) == 0) return true;
  return false;
}

/* One initializer of each byte-order class, with its little-endian bytes. */
static const struct {
  const char *name;
  olg_dtype dt;
  int64_t n;
  uint8_t le[16];
  size_t nb;
} cases[] = {
  {"i16", OLG_INT16, 2, {0x34, 0x12, 0xfe, 0xff}, 4},
  {"f16", OLG_FLOAT16, 2, {0x00, 0x3c, 0x00, 0xc0}, 4},          /* 1, -2 */
  {"i32", OLG_INT32, 2, {0x78, 0x56, 0x34, 0x12, 0xfe, 0xff, 0xff, 0xff}, 8},
  {"f32", OLG_FLOAT, 2, {0x00, 0x00, 0xc0, 0x3f, 0x00, 0x00, 0x80, 0xc0}, 8}, /* 1.5, -4 */
  {"c64", OLG_COMPLEX64, 1, {0x00, 0x00, 0x80, 0x3f, 0x00, 0x00, 0x00, 0x40}, 8}, /* 1+2i */
  {"i64", OLG_INT64, 1, {0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x81}, 8},
  {"f64", OLG_DOUBLE, 2, {0, 0, 0, 0, 0, 0, 0xf8, 0x3f, 0, 0, 0, 0, 0, 0, 0x04, 0xc0}, 16},
  {"u8", OLG_UINT8, 3, {1, 2, 3}, 3},
};
#define NCASES (sizeof cases / sizeof cases[0])

/* The host's elements of case i (its byte order found at run time, not from the library's
 * OLG_BIG_ENDIAN, which is what is under test). */
static void native(size_t i, uint8_t *out) {
  const uint16_t one = 1;
  bool big = *(const uint8_t *)&one == 0;
  olg__swap_bytes(out, cases[i].le, cases[i].nb, big ? olg__dtype_swap_unit(cases[i].dt) : 0);
}

static olg_status build(olg_model **m) {
  olg_status s = olg_model_new(m, NULL);
  if (s) return s;
  olg_graph *g = olg_model_graph(*m);
  for (size_t i = 0; i < NCASES; i++) {
    uint8_t host[16];
    native(i, host);
    if ((s = olg_graph_add_initializer(g, cases[i].name, cases[i].dt, 1, &cases[i].n, host,
                                       cases[i].nb, OLG_DATA_COPY, NULL, NULL, NULL)))
      return s;
  }
  return olg_model_set_opset(*m, "", 17);
}

static bool same_as_host(const olg_model *m) {
  for (size_t i = 0; i < NCASES; i++) {
    uint8_t host[16];
    native(i, host);
    const olg_tensor *t = m->graph->inits[i].t;
    if (t->nbytes != cases[i].nb || memcmp(t->data, host, cases[i].nb) != 0) return false;
  }
  return true;
}

TEST(byte_order_raw_data) {
  olg_model *m, *m2;
  CHECK_OK(build(&m));
  pbuf out = {0};
  CHECK_OK(olg_model_write_callback(m, pbuf_sink, &out, NULL));
  for (size_t i = 0; i < NCASES; i++) {
    /* raw_data (field 9, length-delimited): tag, length, the little-endian bytes */
    uint8_t field[18] = {9 << 3 | 2, (uint8_t)cases[i].nb};
    memcpy(field + 2, cases[i].le, cases[i].nb);
    if (!contains(out.p, out.n, field, cases[i].nb + 2)) {
      olg_test_fail(__FILE__, __LINE__, "%s: raw_data is not little-endian", cases[i].name);
      return;
    }
  }
  CHECK_OK(olg_model_read_memory(&m2, out.p, out.n, NULL));
  CHECK(same_as_host(m2));
  /* the text printer reads the elements as numbers */
  pbuf txt = {0};
  CHECK_OK(olg_model_print_text(m2, pbuf_sink, &txt));
  pbuf_add(&txt, "", 1);
  CHECK(strstr((const char *)txt.p, "4660, -2") != NULL);          /* i16 */
  CHECK(strstr((const char *)txt.p, "305419896, -2") != NULL);     /* i32 */
  CHECK(strstr((const char *)txt.p, "-9150748177064392952") != NULL); /* i64 */
  CHECK(strstr((const char *)txt.p, "15360, 49152") != NULL);      /* f16 bits */
  pbuf_free(&txt);
  olg_model_free(m2);
  olg_model_free(m);
  pbuf_free(&out);
}

TEST(byte_order_external_data) {
  char dir[512], path[700], data[700];
  snprintf(dir, sizeof dir, "%s", test_tmp_path("byte_order_ext"));
  mkdir(dir, 0755);
  snprintf(path, sizeof path, "%s/m.onnx", dir);
  snprintf(data, sizeof data, "%s/m.data", dir);
  unlink(data);
  olg_model *m, *m2;
  CHECK_OK(build(&m));
  olg_write_options wo = OLG_WRITE_OPTIONS_INIT;
  wo.external_data = "m.data";
  wo.external_data_threshold = 1;
  CHECK_OK(olg_model_write_file(m, path, &wo));
  int fd = open(data, O_RDONLY);
  CHECK(fd >= 0);
  static uint8_t file[4096];
  ssize_t k = read(fd, file, sizeof file);
  close(fd);
  CHECK(k > 0);
  for (size_t i = 0; i < NCASES; i++)
    if (!contains(file, (size_t)k, cases[i].le, cases[i].nb)) {
      olg_test_fail(__FILE__, __LINE__, "%s: external data is not little-endian", cases[i].name);
      return;
    }
  CHECK_OK(olg_model_read_file(&m2, path, NULL));
  CHECK(m2->graph->inits[0].t->external_loaded);
  CHECK(same_as_host(m2));
  /* written again to external data: copied file to file (copy_file_range, then the plain copy
   * forced), never from the host-order copy in memory, the same little-endian bytes */
  static uint8_t again[4096];
  for (int plain = 0; plain < 2; plain++) {
    char path2[700], data2[700];
    snprintf(path2, sizeof path2, "%s/m%d.onnx", dir, plain);
    snprintf(data2, sizeof data2, "%s/m%d.data", dir, plain);
    wo.external_data = plain ? "m1.data" : "m0.data";
    if (plain) setenv("ONNXLEGAL_NO_COPY_FILE_RANGE", "1", 1);
    olg_status s = olg_model_write_file(m2, path2, &wo);
    unsetenv("ONNXLEGAL_NO_COPY_FILE_RANGE");
    CHECK_OK(s);
    fd = open(data2, O_RDONLY);
    CHECK(fd >= 0);
    ssize_t k2 = read(fd, again, sizeof again);
    close(fd);
    CHECK(k2 == k && memcmp(again, file, (size_t)k) == 0);
  }
  olg_model_free(m2);
  olg_model_free(m);
}
