/* libFuzzer target: the nanopb writer (a `make NANOPB=1` build) against the default writer.
 *
 * Any input: read it (external data kept as references); when it reads, both writers must
 * agree: the same status, and on success the very same bytes. The last byte's low bit asks to
 * legalize the model to opset 13 first (to also compare the writers on models built by the
 * library rather than read), its next bit sends the nanopb writer's output through a sink that
 * fails after some bytes (the writer must stop with OLG_ERR_CALLBACK, never crash). */
#include "fuzz_common.h"
#include "onnxlegal/nanopb.h"

typedef struct limited {
  fz_buf b;
  size_t limit;
} limited;

static int keep_limited(void *ud, const void *p, size_t n) {
  limited *l = ud;
  if (l->b.n + n > l->limit) return 1;
  return fz_keep(&l->b, p, n);
}

static void compare_writers(const olg_model *m, size_t fail_after) {
  fz_buf a = {0}, b = {0};
  olg_status sa = olg_model_write_callback(m, fz_keep, &a, NULL);
  olg_status sb = olg_model_write_nanopb(m, fz_keep, &b);
  fz_status_known(sa, "olg_model_write_callback");
  fz_status_known(sb, "olg_model_write_nanopb");
  if (sa != sb) FZ_DIE("default writer: %d, nanopb writer: %d", sa, sb);
  if (sa == OLG_OK && (a.n != b.n || memcmp(a.p, b.p, a.n) != 0))
    FZ_DIE("the writers disagree (%zu vs %zu bytes)", a.n, b.n);
  if (sa == OLG_OK && fail_after < a.n) {
    limited l = {{0}, fail_after};
    olg_status s = olg_model_write_nanopb(m, keep_limited, &l);
    if (s != OLG_ERR_CALLBACK) FZ_DIE("a sink failing after %zu bytes: %d", fail_after, s);
    if (l.b.n > fail_after || (l.b.n && memcmp(l.b.p, a.p, l.b.n) != 0))
      FZ_DIE("before the sink failed, the nanopb writer wrote other bytes");
    fz_buf_free(&l.b);
  }
  fz_buf_free(&a);
  fz_buf_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > (1u << 20)) return 0;
  uint8_t flags = size ? data[size - 1] : 0;
  size_t fail_after = flags & 2 ? (size_t)(size > 1 ? data[size - 2] : 0) * 7 : SIZE_MAX;
  olg_read_options ro = OLG_READ_OPTIONS_INIT;
  ro.load_external_data = 0;
  olg_model *m;
  olg_status s = olg_model_read_memory(&m, data, size, &ro);
  fz_status_known(s, "olg_model_read_memory");
  if (s != OLG_OK) return 0;
  compare_writers(m, fail_after);
  if (flags & 1) {
    olg_legalize_options o = OLG_LEGALIZE_OPTIONS_INIT;
    o.opset = 13;
    olg_model *out;
    if (olg_legalize(m, fz_registry(), &o, &out, NULL) == OLG_OK) {
      compare_writers(out, fail_after);
      olg_model_free(out);
    }
  }
  olg_model_free(m);
  return 0;
}
