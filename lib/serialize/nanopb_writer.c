/* onnxlegal — the small-footprint protobuf writer: the IR encoded as an ONNX ModelProto through
 * nanopb's output stream, with no heap allocation at all.
 *
 * Compiled only with OLG_WITH_NANOPB (`make NANOPB=1`). It writes the same bytes as the default
 * writer (pb_writer.c): the same field order, packing, presence rules and staleness checks of
 * what the reader kept in `extra`. The two are separate code on purpose -- this one must not
 * touch the default writer's allocating length vector -- and tests/unit/test_nanopb.c and
 * tests/py/test_nanopb.py compare their output byte for byte, so any drift shows.
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

#ifndef OLG_NANOPB_STAGE
#define OLG_NANOPB_STAGE 1024 /* bytes staged before fn is called; longer runs go straight */
#endif
#if OLG_NANOPB_STAGE < 16
#error "OLG_NANOPB_STAGE must be at least 16 bytes"
#endif

#define MAX_FIELD 63           /* above every field number ONNX's messages use */
#define PROTOBUF_LIMIT 0x7fffffffu

typedef struct nctx {
  olg_status st; /* the first failure, its message set; everything after it is skipped */
  int depth;
  olg_write_fn fn;
  void *ud;
  uint64_t delivered; /* bytes fn has taken */
  size_t staged;
  uint8_t stage[OLG_NANOPB_STAGE];
} nctx;

/* Records the first failure; returns false so that `return fail(...)` unwinds the encoders. */
static bool fail(nctx *c, olg_status s) {
  if (!c->st) c->st = s;
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
  if (c->st) return false;
  if (n >= sizeof c->stage) return flush(c) && deliver(c, p, n);
  if (c->staged + n > sizeof c->stage && !flush(c)) return false;
  memcpy(c->stage + c->staged, p, n);
  c->staged += n;
  return true;
}

/* ---------------------------------------------------------------------------------------- */
/* Fields, through nanopb's primitives. Every encoder returns false on failure; the reason is in
 * c->st (ours) or the stream's errmsg (nanopb's). */

static bool f_varint(pb_ostream_t *s, uint32_t no, uint64_t v) {
  return pb_encode_tag(s, PB_WT_VARINT, no) && pb_encode_varint(s, v);
}

/* int32 and enum fields: negative values are sign-extended to 64 bits, as protobuf does */
static bool f_int32(pb_ostream_t *s, uint32_t no, int32_t v) {
  return f_varint(s, no, (uint64_t)(int64_t)v);
}

static bool f_bytes(pb_ostream_t *s, uint32_t no, const void *p, size_t n) {
  return pb_encode_tag(s, PB_WT_STRING, no) && pb_encode_string(s, p, n);
}

static bool f_str(pb_ostream_t *s, uint32_t no, const char *str) {
  return f_bytes(s, no, str ? str : "", str ? strlen(str) : 0);
}

/* a float's bits, little-endian (pb_encode_fixed32 takes the value in host order) */
static bool f_fixed32(pb_ostream_t *s, uint32_t no, const float *v) {
  return pb_encode_tag(s, PB_WT_32BIT, no) && pb_encode_fixed32(s, v);
}

/* A sub-message: `body` encodes its contents. In a sizing stream one sizing run of the body gives
 * the length, which is all the enclosing count needs; in a writing stream the body is sized, then
 * written into a sub-stream bounded by that length (nanopb refuses a longer write), and the length
 * written is checked against it. */
typedef bool (*body_fn)(nctx *c, pb_ostream_t *s, const void *obj, const void *aux);

static bool sub(nctx *c, pb_ostream_t *s, uint32_t no, body_fn body, const void *obj,
                const void *aux) {
  pb_ostream_t sizing = PB_OSTREAM_SIZING;
  if (!body(c, &sizing, obj, aux)) return false;
  size_t len = sizing.bytes_written;
  if (!pb_encode_tag(s, PB_WT_STRING, no) || !pb_encode_varint(s, len)) return false;
  if (!s->callback) return pb_write(s, NULL, len);
  pb_ostream_t w = PB_OSTREAM_SIZING;
  w.callback = s->callback;
  w.state = s->state;
  w.max_size = len;
  bool ok = body(c, &w, obj, aux);
  s->bytes_written += w.bytes_written;
  if (ok && w.bytes_written != len)
    return fail(c, olg__err(OLG_ERR_STATE, "internal error: a sub-message's length changed "
                            "between sizing and writing (%zu, then %zu bytes)", len,
                            w.bytes_written));
  if (!ok && !c->st)
    return fail(c, olg__err(OLG_ERR_STATE, "internal error: nanopb: %s", PB_GET_ERROR(&w)));
  return ok;
}

static bool deeper(nctx *c, const char *what) {
  if (++c->depth > OLG_PB_MAX_DEPTH) {
    c->depth--;
    return fail(c, olg__err(OLG_ERR_LIMIT, "%s nested deeper than %d messages", what,
                            OLG_PB_MAX_DEPTH));
  }
  return true;
}

/* ---------------------------------------------------------------------------------------- */
/* Kept raw fields, in field-number order among the fields written from the IR */

typedef struct rawcur {
  const olg_pbx *x;
  uint32_t next; /* the lowest field number not yet passed */
} rawcur;

static bool raws_between(pb_ostream_t *s, const olg_pb_raw *raw, uint32_t n, uint32_t lo,
                         uint32_t hi) {
  for (uint32_t f = lo; f <= hi && f <= MAX_FIELD; f++)
    for (uint32_t i = 0; i < n; i++)
      if (!raw[i].unknown && raw[i].field == f && !pb_write(s, raw[i].bytes.p, raw[i].bytes.n))
        return false;
  return true;
}

static bool raws_upto(pb_ostream_t *s, rawcur *rc, uint32_t upto) {
  bool ok = true;
  if (rc->x && rc->x->n_raw && upto >= rc->next)
    ok = raws_between(s, rc->x->raw, rc->x->n_raw, rc->next, upto);
  if (upto + 1 > rc->next) rc->next = upto + 1;
  return ok;
}

/* the known raw fields left, then the unknown ones in input order */
static bool raws_rest(pb_ostream_t *s, rawcur *rc) {
  if (!raws_upto(s, rc, MAX_FIELD)) return false;
  if (!rc->x) return true;
  for (uint32_t i = 0; i < rc->x->n_raw; i++)
    if (rc->x->raw[i].unknown && !pb_write(s, rc->x->raw[i].bytes.p, rc->x->raw[i].bytes.n))
      return false;
  return true;
}

static uint32_t pbx_flags(const void *extra) {
  return extra ? ((const olg_pbx *)extra)->flags : 0;
}

/* ---------------------------------------------------------------------------------------- */
/* Kept entries (key/value, opset, ValueInfoProto) are used only while the IR still reads the
 * same: their string fields 1 and 2 and varint field 2, re-read from the kept bytes. */

static bool kept_varint(const uint8_t **p, const uint8_t *end, uint64_t *v) {
  uint64_t x = 0;
  for (unsigned i = 0; i < 10 && *p < end; i++) {
    uint8_t b = *(*p)++;
    x |= (uint64_t)(b & 0x7f) << (7 * i);
    if (!(b & 0x80)) {
      *v = x;
      return true;
    }
  }
  return false;
}

typedef struct kept2 {
  const uint8_t *str[3];
  size_t len[3];
  uint64_t v2;
} kept2;

static bool kept_parse(olg_pb_span sp, kept2 *k) {
  memset(k, 0, sizeof *k);
  const uint8_t *p = sp.p, *end = sp.p + sp.n;
  while (p < end) {
    uint64_t tag, v;
    if (!kept_varint(&p, end, &tag)) return false;
    uint32_t no = (uint32_t)(tag >> 3);
    switch (tag & 7) {
    case PB_VARINT:
      if (!kept_varint(&p, end, &v)) return false;
      if (no == 2) k->v2 = v;
      break;
    case PB_LEN:
      if (!kept_varint(&p, end, &v) || v > (uint64_t)(end - p)) return false;
      if (no == 1 || no == 2) {
        k->str[no] = p;
        k->len[no] = (size_t)v;
      }
      p += v;
      break;
    case PB_I64:
      if (end - p < 8) return false;
      p += 8;
      break;
    case PB_I32:
      if (end - p < 4) return false;
      p += 4;
      break;
    default: return false;
    }
  }
  return true;
}

/* Does C string cs equal bytes (p, n) as the reader turned them into a C string? */
static bool same_cstr(const char *cs, const uint8_t *p, size_t n) {
  if (!cs) cs = "";
  size_t k = p ? strnlen((const char *)p, n) : 0;
  return strlen(cs) == k && (k == 0 || memcmp(cs, p, k) == 0);
}

static bool kv_still(olg_pb_span sp, const olg_kv *kv) {
  kept2 k;
  return kept_parse(sp, &k) && same_cstr(kv->key, k.str[1], k.len[1]) &&
         same_cstr(kv->value, k.str[2], k.len[2]);
}

static bool opset_still(olg_pb_span sp, const olg_opset *os) {
  kept2 k;
  return kept_parse(sp, &k) && same_cstr(os->domain, k.str[1], k.len[1]) &&
         (int64_t)k.v2 == os->version;
}

static bool b_kv(nctx *c, pb_ostream_t *s, const void *obj, const void *aux) {
  (void)c;
  (void)aux;
  const olg_kv *kv = obj;
  return f_str(s, 1, kv->key) && f_str(s, 2, kv->value);
}

static bool w_kvs(nctx *c, pb_ostream_t *s, uint32_t no, const olg_kv *kv, size_t n,
                  const void *extra) {
  const olg_pbx *x = extra;
  for (size_t i = 0; i < n; i++) {
    if (x && i < x->n_kv_verbatim && x->kv_verbatim[i].p && kv_still(x->kv_verbatim[i], &kv[i])) {
      if (!f_bytes(s, no, x->kv_verbatim[i].p, x->kv_verbatim[i].n)) return false;
    } else if (!sub(c, s, no, b_kv, &kv[i], NULL)) {
      return false;
    }
  }
  return true;
}

/* ---------------------------------------------------------------------------------------- */
/* TypeProto */

static bool w_type_field(nctx *c, pb_ostream_t *s, uint32_t no, const olg_type *ty);

static bool b_dim(nctx *c, pb_ostream_t *s, const void *obj, const void *aux) {
  (void)c;
  (void)aux;
  const olg_dim *d = obj;
  if (d->value >= 0) {
    if (!f_varint(s, 1, (uint64_t)d->value)) return false;
  } else if (d->param && !f_str(s, 2, d->param)) {
    return false;
  }
  return !d->denotation || f_str(s, 3, d->denotation);
}

static bool b_shape(nctx *c, pb_ostream_t *s, const void *obj, const void *aux) {
  (void)aux;
  const olg_type *ty = obj;
  for (int32_t i = 0; i < ty->rank && ty->dims; i++)
    if (!sub(c, s, 1, b_dim, &ty->dims[i], NULL)) return false;
  return true;
}

static bool b_type_tensor(nctx *c, pb_ostream_t *s, const void *obj, const void *aux) {
  (void)aux;
  const olg_type *ty = obj;
  if (ty->has_elem && !f_int32(s, 1, ty->elem)) return false;
  return !ty->has_shape || sub(c, s, 2, b_shape, ty, NULL);
}

/* Sequence, map, optional, opaque: a message around an inner type (or names). */
static bool b_type_wrapped(nctx *c, pb_ostream_t *s, const void *obj, const void *aux) {
  (void)aux;
  const olg_type *ty = obj;
  if (ty->kind == OLG_TYPE_MAP)
    return f_int32(s, 1, ty->key) && (!ty->inner || w_type_field(c, s, 2, ty->inner));
  if (ty->kind == OLG_TYPE_OPAQUE)
    return (!ty->opaque_domain || f_str(s, 1, ty->opaque_domain)) &&
           (!ty->opaque_name || f_str(s, 2, ty->opaque_name));
  return !ty->inner || w_type_field(c, s, 1, ty->inner);
}

/* Does a kept TypeProto still describe ty? (Arrays are compared by identity: the IR replaces
 * them rather than editing them.) */
static bool type_unchanged(const olg_type *ty, const olg_type *was) {
  return ty->kind == was->kind && ty->has_shape == was->has_shape &&
         ty->has_elem == was->has_elem && ty->elem == was->elem && ty->rank == was->rank &&
         ty->dims == was->dims && ty->key == was->key && ty->inner == was->inner &&
         ty->denotation == was->denotation && ty->opaque_domain == was->opaque_domain &&
         ty->opaque_name == was->opaque_name;
}

static bool type_verbatim(const olg_type *ty) {
  const olg_pbx *x = ty->extra;
  return x && x->has_type_verbatim && type_unchanged(ty, &x->type_snapshot);
}

static bool b_type(nctx *c, pb_ostream_t *s, const void *obj, const void *aux) {
  (void)aux;
  const olg_type *ty = obj;
  bool ok = true;
  switch (ty->kind) { /* the oneof's members in field-number order around denotation (6) */
  case OLG_TYPE_TENSOR: ok = sub(c, s, 1, b_type_tensor, ty, NULL); break;
  case OLG_TYPE_SEQUENCE: ok = sub(c, s, 4, b_type_wrapped, ty, NULL); break;
  case OLG_TYPE_MAP: ok = sub(c, s, 5, b_type_wrapped, ty, NULL); break;
  default: break;
  }
  if (!ok || (ty->denotation && !f_str(s, 6, ty->denotation))) return false;
  switch (ty->kind) {
  case OLG_TYPE_OPAQUE: return sub(c, s, 7, b_type_wrapped, ty, NULL);
  case OLG_TYPE_SPARSE_TENSOR: return sub(c, s, 8, b_type_tensor, ty, NULL);
  case OLG_TYPE_OPTIONAL: return sub(c, s, 9, b_type_wrapped, ty, NULL);
  default: return true;
  }
}

static bool w_type_field(nctx *c, pb_ostream_t *s, uint32_t no, const olg_type *ty) {
  if (type_verbatim(ty)) {
    const olg_pbx *x = ty->extra;
    return f_bytes(s, no, x->type_verbatim.p, x->type_verbatim.n);
  }
  if (!deeper(c, "TypeProto")) return false;
  bool ok = sub(c, s, no, b_type, ty, NULL);
  c->depth--;
  return ok;
}

/* ---------------------------------------------------------------------------------------- */
/* TensorProto */

enum { E_NONE, E_RAW, E_FLOAT, E_INT32, E_STRING, E_INT64, E_DOUBLE, E_UINT64, E_EXTREF };

/* Bytes per native element of a typed field for a dtype; 0: the field cannot hold it. */
static unsigned typed_width(int en, olg_dtype dt, bool *sign) {
  *sign = false;
  switch (en) {
  case E_FLOAT: return dt == OLG_FLOAT || dt == OLG_COMPLEX64 ? 4 : 0;
  case E_DOUBLE: return dt == OLG_DOUBLE || dt == OLG_COMPLEX128 ? 8 : 0;
  case E_INT64: return dt == OLG_INT64 ? 8 : 0;
  case E_UINT64: return dt == OLG_UINT64 ? 8 : dt == OLG_UINT32 ? 4 : 0;
  case E_INT32:
    switch (dt) {
    case OLG_INT32: *sign = true; return 4;
    case OLG_INT16: *sign = true; return 2;
    case OLG_INT8: *sign = true; return 1;
    case OLG_UINT16: case OLG_FLOAT16: case OLG_BFLOAT16: return 2;
    case OLG_UINT8: case OLG_BOOL: case OLG_FLOAT8E4M3FN: case OLG_FLOAT8E4M3FNUZ:
    case OLG_FLOAT8E5M2: case OLG_FLOAT8E5M2FNUZ: case OLG_FLOAT8E8M0: case OLG_INT4:
    case OLG_UINT4: case OLG_FLOAT4E2M1: case OLG_INT2: case OLG_UINT2:
      return 1;
    default: return 0;
    }
  default: return 0;
  }
}

/* Which field the tensor's data goes to (there is no external data option here: loaded external
 * data is written inline, unloaded references are kept). */
static int tensor_field(const olg_tensor *t) {
  bool unloaded = t->encoding == OLG_ENC_EXTERNAL && !t->external_loaded && !t->data;
  if (t->dtype == OLG_STRING) {
    if (unloaded) return E_EXTREF;
    return t->encoding == OLG_ENC_NONE && !t->n_strings ? E_NONE : E_STRING;
  }
  if (unloaded) return E_EXTREF;
  if (!t->data && !t->nbytes) {
    if (t->encoding == OLG_ENC_NONE || t->encoding == OLG_ENC_EXTERNAL) return E_NONE;
    if (t->encoding == OLG_ENC_RAW) return E_RAW;
  }
  static const int by_encoding[] = {[OLG_ENC_RAW] = E_RAW, [OLG_ENC_FLOAT] = E_FLOAT,
                                    [OLG_ENC_INT32] = E_INT32, [OLG_ENC_STRING] = E_RAW,
                                    [OLG_ENC_INT64] = E_INT64, [OLG_ENC_DOUBLE] = E_DOUBLE,
                                    [OLG_ENC_UINT64] = E_UINT64, [OLG_ENC_EXTERNAL] = E_RAW,
                                    [OLG_ENC_NONE] = E_RAW};
  int en = t->encoding <= OLG_ENC_NONE ? by_encoding[t->encoding] : E_RAW;
  bool sign;
  unsigned w = typed_width(en, t->dtype, &sign);
  if (en != E_RAW && (!w || t->nbytes % w)) en = E_RAW; /* a typed field that cannot hold it */
  return en;
}

/* A packed varint field from native little-endian elements. */
typedef struct packed {
  const uint8_t *p;
  size_t nbytes;
  unsigned width;
  bool sign, as_int32;
} packed;

static bool b_packed(nctx *c, pb_ostream_t *s, const void *obj, const void *aux) {
  (void)c;
  (void)aux;
  const packed *pk = obj;
  for (size_t i = 0; i + pk->width <= pk->nbytes; i += pk->width) {
    uint64_t v = 0;
    for (unsigned b = pk->width; b-- > 0;) v = (v << 8) | pk->p[i + b];
    if (pk->as_int32) {
      int32_t x = !pk->sign        ? (int32_t)(uint32_t)v
                  : pk->width == 1 ? (int8_t)(uint8_t)v
                  : pk->width == 2 ? (int16_t)(uint16_t)v
                                   : (int32_t)(uint32_t)v;
      v = (uint64_t)(int64_t)x;
    }
    if (!pb_encode_varint(s, v)) return false;
  }
  return true;
}

static bool w_packed(nctx *c, pb_ostream_t *s, uint32_t no, const uint8_t *p, size_t nbytes,
                     unsigned width, bool sign, bool as_int32) {
  if (!nbytes) return true;
  packed pk = {p, nbytes, width, sign, as_int32};
  return sub(c, s, no, b_packed, &pk, NULL);
}

static bool b_tensor(nctx *c, pb_ostream_t *s, const void *obj, const void *aux) {
  (void)aux;
  const olg_tensor *t = obj;
  const olg_pbx *x = t->extra;
  rawcur rc = {x, 1};
  const void *now = t->dtype == OLG_STRING ? (const void *)t->strings : t->data;
  bool verb = x && x->n_data_verbatim && now == x->data_snapshot;
  int kind = tensor_field(t);
  int en = verb ? E_NONE : kind; /* the field the data goes to; verbatim data replaces them all */
  const uint8_t *d = t->data;
  bool sign;
  unsigned w = typed_width(en, t->dtype, &sign);

  for (int32_t i = 0; i < t->rank && t->dims; i++)
    if (!f_varint(s, 1, (uint64_t)t->dims[i])) return false;
  if (t->has_dtype && !f_int32(s, 2, t->dtype)) return false;
  if (!raws_upto(s, &rc, 3)) return false;
  static const uint32_t data_fields[] = {4, 5, 6, 7};
  for (int j = 0; j < 4; j++) {
    uint32_t no = data_fields[j];
    bool ok = raws_upto(s, &rc, no);
    if (!ok) return false;
    if (verb) ok = raws_between(s, x->data_verbatim, x->n_data_verbatim, no, no);
    else if (no == 4 && en == E_FLOAT && t->nbytes)
      ok = f_bytes(s, 4, d, t->nbytes); /* little-endian floats are the packed field already */
    else if (no == 5 && en == E_INT32) ok = w_packed(c, s, 5, d, t->nbytes, w, sign, true);
    else if (no == 6 && en == E_STRING)
      for (size_t i = 0; ok && i < t->n_strings && t->strings; i++)
        ok = f_bytes(s, 6, t->strings[i].p, t->strings[i].n);
    else if (no == 7 && en == E_INT64) ok = w_packed(c, s, 7, d, t->nbytes, 8, false, false);
    if (!ok) return false;
  }
  if (!raws_upto(s, &rc, 8) || (t->name && !f_str(s, 8, t->name))) return false;
  if (!raws_upto(s, &rc, 9)) return false;
  if (verb) {
    if (!raws_between(s, x->data_verbatim, x->n_data_verbatim, 9, 9)) return false;
  } else if (en == E_RAW && !f_bytes(s, 9, d ? (const void *)d : "", d ? t->nbytes : 0)) {
    return false;
  }
  if (!raws_upto(s, &rc, 10)) return false;
  if (verb) {
    if (!raws_between(s, x->data_verbatim, x->n_data_verbatim, 10, 10)) return false;
  } else if (en == E_DOUBLE && t->nbytes && !f_bytes(s, 10, d, t->nbytes)) {
    return false;
  }
  if (!raws_upto(s, &rc, 11)) return false;
  if (verb) {
    if (!raws_between(s, x->data_verbatim, x->n_data_verbatim, 11, 11)) return false;
  } else if (en == E_UINT64 && !w_packed(c, s, 11, d, t->nbytes, w, false, false)) {
    return false;
  }
  if (!raws_upto(s, &rc, 12) || (t->doc_string && !f_str(s, 12, t->doc_string))) return false;
  if (!raws_upto(s, &rc, 13)) return false;
  if (kind == E_EXTREF && !w_kvs(c, s, 13, t->external, t->n_external, x)) return false;
  if (!raws_upto(s, &rc, 14)) return false;
  if (kind == E_EXTREF) {
    if (!f_varint(s, 14, 1)) return false;
  } else if ((pbx_flags(x) & PBX_LOC_DEFAULT) && !f_varint(s, 14, 0)) {
    return false;
  }
  return raws_rest(s, &rc);
}

static bool w_tensor_field(nctx *c, pb_ostream_t *s, uint32_t no, const olg_tensor *t) {
  if (!deeper(c, "TensorProto")) return false;
  bool ok = sub(c, s, no, b_tensor, t, NULL);
  c->depth--;
  return ok;
}

/* ---------------------------------------------------------------------------------------- */
/* Graphs, nodes, attributes */

static bool b_graph(nctx *c, pb_ostream_t *s, const void *obj, const void *aux);

static bool w_graph_field(nctx *c, pb_ostream_t *s, uint32_t no, const olg_graph *g) {
  return sub(c, s, no, b_graph, g, NULL);
}

static uint32_t list_count(const olg_attr *a, const olg_pbx *x, int l) {
  if (x && (x->flags & PBX_ATTR_LISTS)) return x->list_n[l];
  return olg__pb_attr_list(a->type) == l ? (uint32_t)a->n : 0;
}

static bool b_attr(nctx *c, pb_ostream_t *s, const void *obj, const void *aux) {
  (void)aux;
  const olg_attr *a = obj;
  const olg_pbx *x = a->extra;
  uint32_t fl = pbx_flags(x);
  rawcur rc = {x, 1};
  bool has_f = a->type == OLG_ATTR_FLOAT, has_i = a->type == OLG_ATTR_INT,
       has_s = a->type == OLG_ATTR_STRING;
  if (fl & PBX_ATTR_PRESENCE) {
    has_f = fl & PBX_ATTR_F;
    has_i = fl & PBX_ATTR_I;
    has_s = fl & PBX_ATTR_S;
  }
  if (!((fl & PBX_NO_NAME) && a->name && !*a->name) && !f_str(s, 1, a->name)) return false;
  if (!raws_upto(s, &rc, 2) || (has_f && !f_fixed32(s, 2, &a->f))) return false;
  if (!raws_upto(s, &rc, 3) || (has_i && !f_varint(s, 3, (uint64_t)a->i))) return false;
  if (!raws_upto(s, &rc, 4) ||
      (has_s && !f_bytes(s, 4, a->s.p ? a->s.p : "", a->s.p ? a->s.n : 0)))
    return false;
  if (!raws_upto(s, &rc, 5) || (a->t && !w_tensor_field(c, s, 5, a->t))) return false;
  if (!raws_upto(s, &rc, 6) || (a->g && !w_graph_field(c, s, 6, a->g))) return false;
  if (!raws_upto(s, &rc, 7)) return false;
  uint32_t n;
  if ((n = list_count(a, x, PBX_L_FLOATS)) && a->floats)
    for (uint32_t i = 0; i < n; i++)
      if (!f_fixed32(s, 7, &a->floats[i])) return false;
  if (!raws_upto(s, &rc, 8)) return false;
  if ((n = list_count(a, x, PBX_L_INTS)) && a->ints)
    for (uint32_t i = 0; i < n; i++)
      if (!f_varint(s, 8, (uint64_t)a->ints[i])) return false;
  if (!raws_upto(s, &rc, 9)) return false;
  if ((n = list_count(a, x, PBX_L_STRINGS)) && a->strings)
    for (uint32_t i = 0; i < n; i++)
      if (!f_bytes(s, 9, a->strings[i].p ? a->strings[i].p : "", a->strings[i].n)) return false;
  if (!raws_upto(s, &rc, 10)) return false;
  if ((n = list_count(a, x, PBX_L_TENSORS)) && a->tensors)
    for (uint32_t i = 0; i < n; i++)
      if (!w_tensor_field(c, s, 10, a->tensors[i])) return false;
  if (!raws_upto(s, &rc, 11)) return false;
  if ((n = list_count(a, x, PBX_L_GRAPHS)) && a->graphs)
    for (uint32_t i = 0; i < n; i++)
      if (!w_graph_field(c, s, 11, a->graphs[i])) return false;
  if (!raws_upto(s, &rc, 13) || (a->doc_string && !f_str(s, 13, a->doc_string))) return false;
  if (!raws_upto(s, &rc, 14) || (a->tp && !w_type_field(c, s, 14, a->tp))) return false;
  if (!raws_upto(s, &rc, 15)) return false;
  if ((n = list_count(a, x, PBX_L_TPS)) && a->tps)
    for (uint32_t i = 0; i < n; i++)
      if (!w_type_field(c, s, 15, a->tps[i])) return false;
  if (!raws_upto(s, &rc, 20)) return false;
  if (fl & PBX_ATTR_TYPE_RAW) {
    if (!f_int32(s, 20, (int32_t)x->attr_type)) return false;
  } else if (!(fl & PBX_NO_ATTR_TYPE) && !f_int32(s, 20, a->type)) {
    return false;
  }
  if (!raws_upto(s, &rc, 21) || (a->ref_attr_name && !f_str(s, 21, a->ref_attr_name)))
    return false;
  if (!raws_upto(s, &rc, 22)) return false;
  if (a->sparse) {
    const olg_pb_span *sp = a->sparse;
    if (!f_bytes(s, 22, sp->p, sp->n)) return false;
  }
  if (!raws_upto(s, &rc, 23)) return false;
  if ((n = list_count(a, x, PBX_L_SPARSES)) && a->sparses)
    for (uint32_t i = 0; i < n; i++) {
      const olg_pb_span *sp = a->sparses[i];
      if (!f_bytes(s, 23, sp->p, sp->n)) return false;
    }
  return raws_rest(s, &rc);
}

static const char *value_name(nctx *c, const olg_graph *g, const olg_node *nd, olg_value v) {
  if (v < 0 || (uint32_t)v >= g->n_values) {
    fail(c, olg__err(OLG_ERR_INVALID_MODEL, "node '%s' (%s) in graph '%s' refers to value id %d, "
                     "which the graph does not have", nd->name, nd->op, g->name, (int)v));
    return NULL;
  }
  return g->values[v].name;
}

static const char *const arg_kind_name[] = {"none", "value", "values", "int", "float", "bool",
                                            "string", "ints", "floats"};

/* An input or output name: "" for an omitted one, NULL (failure recorded) for a bad id. */
static bool f_value_name(nctx *c, pb_ostream_t *s, uint32_t no, const olg_graph *g,
                         const olg_node *nd, olg_value v) {
  const char *name = v == OLG_NO_VALUE ? "" : value_name(c, g, nd, v);
  return name && f_str(s, no, name);
}

static bool b_node(nctx *c, pb_ostream_t *s, const void *obj, const void *aux) {
  const olg_node *nd = obj;
  const olg_graph *g = aux;
  const olg_pbx *x = nd->extra;
  uint32_t fl = pbx_flags(x);
  rawcur rc = {x, 1};
  for (uint32_t i = 0; i < nd->n_args; i++) {
    const olg_arg *a = &nd->args[i];
    bool ok = true;
    if (a->kind == OLG_ARG_NONE) {
      ok = f_str(s, 1, "");
    } else if (a->kind == OLG_ARG_VALUE) {
      const char *name = value_name(c, g, nd, a->u.v);
      ok = name && f_str(s, 1, name);
    } else if (a->kind == OLG_ARG_VALUES) {
      for (size_t j = 0; ok && j < a->u.vals.n; j++)
        ok = f_value_name(c, s, 1, g, nd, a->u.vals.p[j]);
    } else {
      return fail(c, olg__err(OLG_ERR_UNSUPPORTED,
                              "node '%s' (%s%s%s) in graph '%s' has a literal argument #%u (%s): "
                              "a source-domain node must be lowered to ONNX before it is written",
                              nd->name, *nd->domain ? nd->domain : "", *nd->domain ? "::" : "",
                              nd->op, g->name, i,
                              a->kind <= OLG_ARG_FLOATS ? arg_kind_name[a->kind] : "?"));
    }
    if (!ok) return false;
  }
  if (!raws_upto(s, &rc, 2)) return false;
  for (uint32_t i = 0; i < nd->n_outputs; i++)
    if (!f_value_name(c, s, 2, g, nd, nd->outputs[i])) return false;
  if (!raws_upto(s, &rc, 3) ||
      (nd->name && (*nd->name || (fl & PBX_NAME_EMPTY)) && !f_str(s, 3, nd->name)))
    return false;
  if (!raws_upto(s, &rc, 4) ||
      (!((fl & PBX_NO_OP_TYPE) && nd->op && !*nd->op) && !f_str(s, 4, nd->op)))
    return false;
  if (!raws_upto(s, &rc, 5)) return false;
  for (uint32_t i = 0; i < nd->n_attrs; i++) {
    if (!deeper(c, "AttributeProto")) return false;
    bool ok = sub(c, s, 5, b_attr, &nd->attrs[i], NULL);
    c->depth--;
    if (!ok) return false;
  }
  if (!raws_upto(s, &rc, 6) || (nd->doc_string && !f_str(s, 6, nd->doc_string))) return false;
  if (!raws_upto(s, &rc, 7) ||
      (nd->domain && (*nd->domain || (fl & PBX_DOMAIN_EMPTY)) && !f_str(s, 7, nd->domain)))
    return false;
  if (!raws_upto(s, &rc, 8) || (nd->overload && !f_str(s, 8, nd->overload))) return false;
  if (!raws_upto(s, &rc, 9) || !w_kvs(c, s, 9, nd->metadata, nd->n_metadata, x)) return false;
  return raws_rest(s, &rc);
}

static bool b_value_info(nctx *c, pb_ostream_t *s, const void *obj, const void *aux) {
  (void)aux;
  const olg_value_rec *r = obj;
  const olg_pbx *x = r->extra;
  uint32_t fl = pbx_flags(x);
  if (!((fl & PBX_NO_NAME) && !*r->name) && !f_str(s, 1, r->name)) return false;
  bool no_type = (fl & PBX_VI_NO_TYPE) && type_unchanged(&r->type, &x->type_snapshot);
  if ((type_verbatim(&r->type) || (r->type.kind != OLG_TYPE_NONE && !no_type)) &&
      !w_type_field(c, s, 2, &r->type))
    return false;
  if (r->doc_string && !f_str(s, 3, r->doc_string)) return false;
  if (!w_kvs(c, s, 4, r->metadata, r->n_metadata, x)) return false;
  rawcur rc = {x, 5};
  return raws_rest(s, &rc);
}

/* One ValueInfoProto of list `list` (0 input, 1 output, 2 value_info) at position pos. */
static bool w_value_info(nctx *c, pb_ostream_t *s, const olg_graph *g, uint32_t no, int list,
                         uint32_t pos, olg_value v) {
  if (v < 0 || (uint32_t)v >= g->n_values)
    return fail(c, olg__err(OLG_ERR_INVALID_MODEL, "graph '%s' lists value id %d, which it does "
                            "not have", g->name, (int)v));
  const olg_value_rec *r = &g->values[v];
  const olg_pbx *gx = g->extra;
  if (gx && pos < gx->n_vi_alt[list] && gx->vi_alt[list][pos].vi.p &&
      gx->vi_alt[list][pos].v == v) {
    kept2 k;
    olg_pb_span vi = gx->vi_alt[list][pos].vi;
    if (kept_parse(vi, &k) && same_cstr(r->name, k.str[1], k.len[1]))
      return f_bytes(s, no, vi.p, vi.n);
  }
  return sub(c, s, no, b_value_info, r, NULL);
}

static bool b_graph(nctx *c, pb_ostream_t *s, const void *obj, const void *aux) {
  (void)aux;
  const olg_graph *g = obj;
  if (!deeper(c, "GraphProto")) return false;
  const olg_pbx *x = g->extra;
  uint32_t fl = pbx_flags(x);
  rawcur rc = {x, 1};
  bool ok = true;
  for (uint32_t i = 0; ok && i < g->n_nodes; i++) {
    const olg_node *nd = &g->nodes[i];
    if (nd->state == OLG_NODE_DEAD) continue;
    if (nd->state != OLG_NODE_DONE) {
      ok = fail(c, olg__err(OLG_ERR_STATE, "node '%s' (%s) in graph '%s' is still open "
                            "(olg_node_end was not called)", nd->name, nd->op, g->name));
      break;
    }
    if (!(ok = deeper(c, "NodeProto"))) break;
    ok = sub(c, s, 1, b_node, nd, g);
    c->depth--;
  }
  ok = ok && raws_upto(s, &rc, 2) &&
       (!(g->name && (*g->name || (fl & PBX_NAME_EMPTY))) || f_str(s, 2, g->name));
  ok = ok && raws_upto(s, &rc, 5);
  for (uint32_t i = 0; ok && i < g->n_inits; i++) ok = w_tensor_field(c, s, 5, g->inits[i].t);
  ok = ok && raws_upto(s, &rc, 10) && (!g->doc_string || f_str(s, 10, g->doc_string));
  ok = ok && raws_upto(s, &rc, 11);
  for (uint32_t i = 0; ok && i < g->inputs.n; i++)
    ok = w_value_info(c, s, g, 11, 0, i, g->inputs.p[i]);
  ok = ok && raws_upto(s, &rc, 12);
  for (uint32_t i = 0; ok && i < g->outputs.n; i++)
    ok = w_value_info(c, s, g, 12, 1, i, g->outputs.p[i]);
  ok = ok && raws_upto(s, &rc, 13);
  for (uint32_t i = 0; ok && i < g->value_info.n; i++)
    ok = w_value_info(c, s, g, 13, 2, i, g->value_info.p[i]);
  ok = ok && raws_upto(s, &rc, 16) && w_kvs(c, s, 16, g->metadata, g->n_metadata, x) &&
       raws_rest(s, &rc);
  c->depth--;
  return ok;
}

static bool b_opset(nctx *c, pb_ostream_t *s, const void *obj, const void *aux) {
  (void)c;
  (void)aux;
  const olg_opset *os = obj;
  return f_str(s, 1, os->domain) && f_varint(s, 2, (uint64_t)os->version);
}

static bool w_model(nctx *c, pb_ostream_t *s, const olg_model *m) {
  const olg_pbx *x = m->extra;
  uint32_t fl = pbx_flags(x);
  rawcur rc = {x, 1};
  c->depth = 0;
  if (!((fl & PBX_NO_IR_VERSION) && m->ir_version == 0) &&
      !f_varint(s, 1, (uint64_t)m->ir_version))
    return false;
  if (!raws_upto(s, &rc, 2) ||
      (m->producer_name && (*m->producer_name || (fl & PBX_NAME_EMPTY)) &&
       !f_str(s, 2, m->producer_name)))
    return false;
  if (!raws_upto(s, &rc, 3) ||
      (m->producer_version && (*m->producer_version || (fl & PBX_PVERSION_EMPTY)) &&
       !f_str(s, 3, m->producer_version)))
    return false;
  if (!raws_upto(s, &rc, 4) ||
      (m->domain && (*m->domain || (fl & PBX_DOMAIN_EMPTY)) && !f_str(s, 4, m->domain)))
    return false;
  if (!raws_upto(s, &rc, 5) ||
      (m->has_model_version && !f_varint(s, 5, (uint64_t)m->model_version)))
    return false;
  if (!raws_upto(s, &rc, 6) ||
      (m->doc_string && (*m->doc_string || (fl & PBX_DOC_EMPTY)) && !f_str(s, 6, m->doc_string)))
    return false;
  if (!raws_upto(s, &rc, 7) || (m->graph && !w_graph_field(c, s, 7, m->graph))) return false;
  if (!raws_upto(s, &rc, 8)) return false;
  for (uint32_t i = 0; i < m->n_opsets; i++) {
    const olg_opset *os = &m->opsets[i];
    bool ok;
    if (x && i < x->n_opset_verbatim && x->opset_verbatim[i].p &&
        opset_still(x->opset_verbatim[i], os))
      ok = f_bytes(s, 8, x->opset_verbatim[i].p, x->opset_verbatim[i].n);
    else
      ok = sub(c, s, 8, b_opset, os, NULL);
    if (!ok) return false;
  }
  if (!raws_upto(s, &rc, 14) || !w_kvs(c, s, 14, m->metadata, m->n_metadata, x)) return false;
  return raws_rest(s, &rc);
}

/* ---------------------------------------------------------------------------------------- */

/* The status of a failed run: ours when recorded, else nanopb's message. */
static olg_status failure(nctx *c, pb_ostream_t *s) {
  if (c->st) return c->st;
  return olg__err(OLG_ERR_STATE, "internal error: nanopb: %s", PB_GET_ERROR(s));
}

OLG_API olg_status olg_model_write_nanopb(const olg_model *m, olg_write_fn fn, void *ud) {
  if (!m || !fn)
    return olg__err(OLG_ERR_INVALID_ARG, "olg_model_write_nanopb: model and callback are required");
  nctx c;
  c.st = OLG_OK;
  c.depth = 0;
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
