/* onnxlegal — the small-footprint protobuf writer: the IR encoded as an ONNX ModelProto through
 * nanopb's output stream, with no heap allocation at all.
 *
 * Compiled only with OLG_WITH_NANOPB (`make NANOPB=1`). It writes the same bytes as the default
 * writer (pb_writer.c): both take the field order, packing, presence rules and staleness checks
 * of what the reader kept in `extra` from pb_fields.inc, and differ only in how a field reaches
 * the wire -- this one must not touch the default writer's allocating length vector.
 * tests/unit/test_nanopb.c and tests/py/test_nanopb.py compare their output byte for byte.
 *
 * The nanopb way of writing a sub-message without memory: encode it once into a sizing stream
 * (a pb_ostream_t with no callback, which only counts), write the tag and that length, then
 * encode it again into the real stream. Inside a sizing run a nested sub-message is sized by a
 * single sizing run of its own (its length is known as soon as it has been counted), so sizing a
 * subtree is linear in it; writing a message sizes each child once and then writes it, so each
 * byte of the output is produced once per enclosing message level, plus once by the up-front
 * sizing of the whole model. Cost: output size x nesting depth. Raw byte runs (raw_data, kept
 * fields, strings) cost O(1) per level in a sizing run, since a sizing stream adds lengths
 * without reading the bytes; what is redone at each level is the encoding of tags and varints.
 * A packed int64_data element of a main-graph initializer is encoded 5 times (sizing of the
 * model, of the GraphProto, of the TensorProto and of the packed field, then the write); each
 * level of subgraph adds 3 (NodeProto > AttributeProto > GraphProto), so a tensor k subgraphs
 * deep pays 3k+5 passes over its varints, and the nodes of a graph k deep 3k+3. On a model
 * with a 4M-element int64_data tensor, 128 MB of raw floats and 200k nodes, this writer takes
 * about 2.5 times the default writer's time. Recursion depth is bounded by OLG_PB_MAX_DEPTH.
 *
 * State: one context on the caller's stack (a staging buffer of OLG_NANOPB_STAGE bytes, the
 * status, the depth) and two pb_ostream_t per message level being written. Stack use, by gcc's
 * -fstack-usage at -O2 on x86-64: about 1.5 KiB for the top, then about 0.9 KiB per level of
 * subgraph (NodeProto > AttributeProto > GraphProto frames). */
#include <inttypes.h>
#include <string.h>

#include <pb_encode.h>
#if defined(PB_WITHOUT_64BIT)
#error "the nanopb writer needs nanopb's 64-bit varints (ONNX has int64 fields): build nanopb without PB_WITHOUT_64BIT"
#endif
#if defined(PB_BUFFER_ONLY)
#error "the nanopb writer streams through a callback: build nanopb without PB_BUFFER_ONLY"
#endif

#include "onnxlegal/nanopb.h"
#include "serialize/pb.h"

/* A message level of a writing: the context and the level's stream (a sizing or a writing one). */
typedef struct nctx nctx;
typedef struct pbw {
  nctx *c;
  pb_ostream_t *s;
} pbw;
#include "serialize/pb_fields.inc"

#ifndef OLG_NANOPB_STAGE
#define OLG_NANOPB_STAGE 1024 /* bytes staged before fn is called; longer runs go straight */
#endif
#if OLG_NANOPB_STAGE < 16
#error "OLG_NANOPB_STAGE must be at least 16 bytes"
#endif

#define PROTOBUF_LIMIT 0x7fffffffu

struct nctx {
  olg_pbw_common com; /* first: the failure (its message set), the depth */
  olg_write_fn fn;
  void *ud;
  uint64_t delivered; /* bytes fn has taken */
  size_t staged;
  uint8_t stage[OLG_NANOPB_STAGE];
};

/* Records the first failure; returns false so that `return fail(...)` unwinds the encoders. */
static bool fail(nctx *c, olg_status s) {
  if (!c->com.st) c->com.st = s;
  return false;
}

/* ---------------------------------------------------------------------------------------- */
/* The sink: nanopb's stream callback, staging small writes for fn */

static bool deliver(nctx *c, const void *p, size_t n) {
  if (!n) return true;
  if (c->fn(c->ud, p, n) != 0)
    return fail(c, olg__err(OLG_ERR_CALLBACK, "the write callback failed after %" PRIu64 " bytes",
                            c->delivered));
  c->delivered += n;
  return true;
}

static bool flush(nctx *c) {
  size_t n = c->staged;
  c->staged = 0;
  return deliver(c, c->stage, n);
}

static bool sink_cb(pb_ostream_t *s, const pb_byte_t *p, size_t n) {
  nctx *c = s->state;
  if (c->com.st) return false;
  if (n >= sizeof c->stage) return flush(c) && deliver(c, p, n);
  if (c->staged + n > sizeof c->stage && !flush(c)) return false;
  memcpy(c->stage + c->staged, p, n);
  c->staged += n;
  return true;
}

/* ---------------------------------------------------------------------------------------- */
/* How a field reaches the wire, for the description in pb_fields.inc, on nanopb's primitives.
 * Each returns false on failure; the reason is in c->com.st (ours) or the stream's errmsg
 * (nanopb's). */

static olg_pbw_common *pbw_common(const pbw *w) { return &w->c->com; }

static bool pbw_varint(const pbw *w, uint32_t no, uint64_t v) {
  return pb_encode_tag(w->s, PB_WT_VARINT, no) && pb_encode_varint(w->s, v);
}

static bool pbw_bytes(const pbw *w, uint32_t no, const void *p, size_t n) {
  return pb_encode_tag(w->s, PB_WT_STRING, no) && pb_encode_string(w->s, p, n);
}

static bool pbw_str(const pbw *w, uint32_t no, const char *s) {
  return pbw_bytes(w, no, s, strlen(s));
}

/* v's bits, little-endian on the wire (pb_encode_fixed32 takes the value in host order) */
static bool pbw_fixed32(const pbw *w, uint32_t no, uint32_t v) {
  return pb_encode_tag(w->s, PB_WT_32BIT, no) && pb_encode_fixed32(w->s, &v);
}

static bool pbw_bare_varint(const pbw *w, uint64_t v) { return pb_encode_varint(w->s, v); }

static bool pbw_raw(const pbw *w, const void *p, size_t n) { return pb_write(w->s, p, n); }

/* A sub-message: `body` encodes its contents. In a sizing stream one sizing run of the body gives
 * the length, which is all the enclosing count needs; in a writing stream the body is sized, then
 * written into a sub-stream bounded by that length (nanopb refuses a longer write), and the length
 * written is checked against it. */
static bool pbw_sub(const pbw *w, uint32_t no, pbw_body body, const void *obj, const void *aux) {
  nctx *c = w->c;
  pb_ostream_t *s = w->s;
  pb_ostream_t sizing = PB_OSTREAM_SIZING;
  pbw level = {c, &sizing};
  if (!body(&level, obj, aux)) return false;
  size_t len = sizing.bytes_written;
  if (!pb_encode_tag(s, PB_WT_STRING, no) || !pb_encode_varint(s, len)) return false;
  if (!s->callback) return pb_write(s, NULL, len);
  pb_ostream_t sw = PB_OSTREAM_SIZING;
  sw.callback = s->callback;
  sw.state = s->state;
  sw.max_size = len;
  level.s = &sw;
  bool ok = body(&level, obj, aux);
  s->bytes_written += sw.bytes_written;
  if (ok && sw.bytes_written != len)
    return fail(c, olg__err(OLG_ERR_STATE, "internal error: a sub-message's length changed "
                            "between sizing and writing (%zu, then %zu bytes)", len,
                            sw.bytes_written));
  if (!ok && !c->com.st)
    return fail(c, olg__err(OLG_ERR_STATE, "internal error: nanopb: %s", PB_GET_ERROR(&sw)));
  return ok;
}

/* No external data option here (com.ext_on stays false): loaded external data is written
 * inline, unloaded references are kept. */
static bool pbw_ext_place(const pbw *w, const olg_tensor *t, uint64_t *at) {
  (void)t;
  *at = 0;
  return pbw_fail(w, olg__err(OLG_ERR_STATE, "internal error: no external data in this writer"));
}

static bool w_model(nctx *c, pb_ostream_t *s, const olg_model *m) {
  pbw w = {c, s};
  return pbw_model(&w, m);
}

/* ---------------------------------------------------------------------------------------- */

/* The status of a failed run: ours when recorded, else nanopb's message. */
static olg_status failure(nctx *c, pb_ostream_t *s) {
  if (c->com.st) return c->com.st;
  return olg__err(OLG_ERR_STATE, "internal error: nanopb: %s", PB_GET_ERROR(s));
}

OLG_API olg_status olg_model_write_nanopb(const olg_model *m, olg_write_fn fn, void *ud) {
  if (!m || !fn)
    return olg__err(OLG_ERR_INVALID_ARG, "olg_model_write_nanopb: model and callback are required");
  nctx c;
  memset(&c.com, 0, sizeof c.com);
  c.fn = fn;
  c.ud = ud;
  c.delivered = 0;
  c.staged = 0;
  /* Size the whole model first: every error in the model is found before fn sees a byte, and a
   * model over protobuf's limit is refused, as the default writer does. */
  pb_ostream_t sizing = PB_OSTREAM_SIZING;
  if (!w_model(&c, &sizing, m)) return olg__err_prefix(failure(&c, &sizing), "writing the model");
  if (sizing.bytes_written > PROTOBUF_LIMIT)
    return olg__err(OLG_ERR_LIMIT, "writing the model: it would be %zu bytes; protobuf readers "
                    "refuse more than 2 GiB: write large tensors as external data "
                    "(olg_model_write_file with olg_write_options.external_data)",
                    sizing.bytes_written);
  pb_ostream_t out = PB_OSTREAM_SIZING;
  out.callback = sink_cb;
  out.state = &c;
  out.max_size = sizing.bytes_written;
  bool ok = w_model(&c, &out, m) && flush(&c);
  if (!ok) return olg__err_prefix(failure(&c, &out), "writing the model");
  if (out.bytes_written != sizing.bytes_written)
    return olg__err(OLG_ERR_STATE, "writing the model: internal error: %zu bytes sized, %zu "
                    "written", sizing.bytes_written, out.bytes_written);
  return OLG_OK;
}
