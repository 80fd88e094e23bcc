/* onnxlegal — the protobuf writer: the IR encoded as an ONNX ModelProto, streamed.
 *
 * One walk of the IR, run twice. The first run only counts: it records the length of every
 * sub-message (in the order they start) in a vector, bottom-up, so each length is computed once.
 * The second run emits: tag, the recorded length, the contents. Both runs execute the same code,
 * so they cannot disagree (the second checks it anyway). The serialized model is never held in
 * memory: bytes go through a 64 KiB staging buffer to the sink, and large runs (tensor bytes) go
 * to the sink straight from the tensor's memory. Memory is O(number of sub-messages) 8-byte
 * lengths, whatever the size of the tensors; time is linear in the size of the output.
 *
 * Fields are written in field-number order with the schema's packing, as ONNX's reference
 * implementation does, so a model read from a canonical file is written back byte for byte.
 * What the reader kept in `extra` (unknown fields, uninterpreted known fields, verbatim parts the
 * IR cannot express) is emitted in its place. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "onnxlegal/io.h"
#include "pb.h"

#define STAGE_SIZE (64 * 1024)
#define DIRECT_MIN (16 * 1024) /* runs at least this long bypass the staging buffer */
#define MAX_FIELD 63           /* above every field number ONNX's messages use */
#define PROTOBUF_LIMIT 0x7fffffffu

typedef struct enc {
  bool emit;
  uint64_t pos; /* bytes produced so far (counted in the first run, emitted in the second) */
  uint64_t *sizes;
  size_t n_sizes, cap_sizes, cursor;
  const olg_allocator *a;
  olg_status st; /* the first failure; everything after it is skipped */
  int depth;
  /* the sink: an fd (>= 0) or a callback */
  int fd;
  olg_write_fn fn;
  void *ud;
  uint8_t *buf;
  size_t bn;
  uint64_t flushed;
  /* external data */
  bool ext_on;
  const char *ext_name;
  uint64_t ext_threshold;
  int ext_fd;
  uint64_t ext_off;
} enc;

static void fail(enc *e, olg_status s) {
  if (!e->st) e->st = s;
}

/* ---------------------------------------------------------------------------------------- */
/* The sink */

static bool write_all(int fd, const void *p, size_t n, int64_t at) {
  const uint8_t *q = p;
  while (n) {
    size_t chunk = n > (1u << 30) ? (1u << 30) : n;
    ssize_t k = at >= 0 ? pwrite(fd, q, chunk, (off_t)at) : write(fd, q, chunk);
    if (k < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    if (k == 0) {
      errno = EIO;
      return false;
    }
    q += k;
    n -= (size_t)k;
    if (at >= 0) at += k;
  }
  return true;
}

static void sink(enc *e, const void *p, size_t n) {
  if (e->st || !n) return;
  if (e->fd >= 0) {
    if (!write_all(e->fd, p, n, -1))
      fail(e, olg__err(OLG_ERR_IO, "write failed after %" PRIu64 " bytes: %s", e->flushed,
                       strerror(errno)));
  } else if (e->fn(e->ud, p, n) != 0) {
    fail(e, olg__err(OLG_ERR_CALLBACK, "the write callback failed after %" PRIu64 " bytes",
                     e->flushed));
  }
  e->flushed += n;
}

static void flush(enc *e) {
  if (e->bn) sink(e, e->buf, e->bn);
  e->bn = 0;
}

static void out(enc *e, const void *p, size_t n) {
  e->pos += n;
  if (!e->emit || e->st || !n) return;
  if (n >= DIRECT_MIN) {
    flush(e);
    sink(e, p, n);
    return;
  }
  if (e->bn + n > STAGE_SIZE) flush(e);
  memcpy(e->buf + e->bn, p, n);
  e->bn += n;
}

static void out_varint(enc *e, uint64_t v) {
  if (!e->emit) {
    e->pos += olg__pb_varint_size(v);
    return;
  }
  uint8_t b[10];
  unsigned n = 0;
  while (v >= 0x80) {
    b[n++] = (uint8_t)(v | 0x80);
    v >>= 7;
  }
  b[n++] = (uint8_t)v;
  out(e, b, n);
}

static void out_tag(enc *e, uint32_t no, int wt) { out_varint(e, (uint64_t)no << 3 | (unsigned)wt); }

static void f_varint(enc *e, uint32_t no, uint64_t v) {
  out_tag(e, no, PB_VARINT);
  out_varint(e, v);
}

/* int32 and enum fields: negative values are sign-extended to 64 bits, as protobuf does */
static void f_int32(enc *e, uint32_t no, int32_t v) { f_varint(e, no, (uint64_t)(int64_t)v); }

static void f_bytes(enc *e, uint32_t no, const void *p, size_t n) {
  out_tag(e, no, PB_LEN);
  out_varint(e, n);
  out(e, p, n);
}

static void f_str(enc *e, uint32_t no, const char *s) { f_bytes(e, no, s ? s : "", s ? strlen(s) : 0); }

static void f_fixed32(enc *e, uint32_t no, uint32_t v) {
  uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
  out_tag(e, no, PB_I32);
  out(e, b, 4);
}

/* Sub-messages (and packed fields): the first run records the length, the second uses it. */
typedef struct mark {
  uint64_t saved;
  size_t idx;
} mark;

static mark sub_begin(enc *e, uint32_t no) {
  mark k = {0, SIZE_MAX};
  out_tag(e, no, PB_LEN);
  if (!e->emit) {
    if (e->n_sizes == e->cap_sizes && !e->st) {
      size_t nc = e->cap_sizes ? e->cap_sizes * 2 : 1024;
      uint64_t *q = olg__realloc(e->a, e->sizes, e->cap_sizes * sizeof *q, nc * sizeof *q);
      if (!q) fail(e, OLG_ERR_NOMEM);
      else {
        e->sizes = q;
        e->cap_sizes = nc;
      }
    }
    if (e->n_sizes < e->cap_sizes) k.idx = e->n_sizes++;
    k.saved = e->pos;
    e->pos = 0;
  } else {
    uint64_t len = 0;
    if (e->cursor < e->n_sizes) len = e->sizes[e->cursor++];
    else fail(e, olg__err(OLG_ERR_STATE, "internal error: the writer's two runs disagree"));
    out_varint(e, len);
    k.saved = e->pos + len; /* where the sub-message must end */
  }
  return k;
}

static void sub_end(enc *e, mark k) {
  if (!e->emit) {
    uint64_t len = e->pos;
    if (k.idx != SIZE_MAX) e->sizes[k.idx] = len;
    e->pos = k.saved + olg__pb_varint_size(len) + len;
  } else if (e->pos != k.saved) {
    fail(e, olg__err(OLG_ERR_STATE, "internal error: a sub-message's length changed between the "
                     "writer's two runs"));
  }
}

static bool deeper(enc *e, const char *what) {
  if (++e->depth > OLG_PB_MAX_DEPTH) {
    fail(e, olg__err(OLG_ERR_LIMIT, "%s nested deeper than %d messages", what, OLG_PB_MAX_DEPTH));
    return false;
  }
  return true;
}

/* ---------------------------------------------------------------------------------------- */
/* Kept raw fields */

/* Known raw fields numbered below `upto`, not yet written: a cursor over field numbers keeps
 * them in field-number order among the fields written from the IR. */
typedef struct rawcur {
  const olg_pbx *x;
  uint32_t next;
} rawcur;

static void raws_between(enc *e, const olg_pb_raw *raw, uint32_t n, uint32_t lo, uint32_t hi) {
  for (uint32_t f = lo; f <= hi && f <= MAX_FIELD; f++)
    for (uint32_t i = 0; i < n; i++)
      if (!raw[i].unknown && raw[i].field == f) out(e, raw[i].bytes.p, raw[i].bytes.n);
}

static void raws_upto(enc *e, rawcur *c, uint32_t upto) {
  if (c->x && c->x->n_raw && upto >= c->next)
    raws_between(e, c->x->raw, c->x->n_raw, c->next, upto);
  if (upto + 1 > c->next) c->next = upto + 1;
}

static void raws_rest(enc *e, rawcur *c) {
  raws_upto(e, c, MAX_FIELD);
  if (!c->x) return;
  for (uint32_t i = 0; i < c->x->n_raw; i++)
    if (c->x->raw[i].unknown) out(e, c->x->raw[i].bytes.p, c->x->raw[i].bytes.n);
}

static uint32_t pbx_flags(const void *extra) {
  return extra ? ((const olg_pbx *)extra)->flags : 0;
}

/* ---------------------------------------------------------------------------------------- */
/* Re-reading kept entries, to check that the IR still says the same */

static bool mini_varint(const uint8_t **p, const uint8_t *end, uint64_t *v) {
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

/* The string fields 1 and 2 and the varint field 2 of a small message, as the reader saw them. */
typedef struct mini2 {
  const uint8_t *s[3];
  size_t n[3];
  uint64_t v2;
} mini2;

static bool mini_parse(olg_pb_span sp, mini2 *m) {
  memset(m, 0, sizeof *m);
  const uint8_t *p = sp.p, *end = sp.p + sp.n;
  while (p < end) {
    uint64_t tag, v;
    if (!mini_varint(&p, end, &tag)) return false;
    uint32_t no = (uint32_t)(tag >> 3);
    switch (tag & 7) {
    case PB_VARINT:
      if (!mini_varint(&p, end, &v)) return false;
      if (no == 2) m->v2 = v;
      break;
    case PB_LEN:
      if (!mini_varint(&p, end, &v) || v > (uint64_t)(end - p)) return false;
      if (no == 1 || no == 2) {
        m->s[no] = p;
        m->n[no] = (size_t)v;
      }
      p += v;
      break;
    case PB_I64: if (end - p < 8) return false; p += 8; break;
    case PB_I32: if (end - p < 4) return false; p += 4; break;
    default: return false; /* groups: never kept in these entries' place */
    }
  }
  return true;
}

/* Does C string c equal bytes (p, n) as the reader turned them into a C string? */
static bool same_cstr(const char *c, const uint8_t *p, size_t n) {
  if (!c) c = "";
  size_t k = p ? strnlen((const char *)p, n) : 0;
  return strlen(c) == k && (k == 0 || memcmp(c, p, k) == 0);
}

static bool kv_still(olg_pb_span sp, const olg_kv *kv) {
  mini2 m;
  return mini_parse(sp, &m) && same_cstr(kv->key, m.s[1], m.n[1]) &&
         same_cstr(kv->value, m.s[2], m.n[2]);
}

static bool opset_still(olg_pb_span sp, const olg_opset *os) {
  mini2 m;
  return mini_parse(sp, &m) && same_cstr(os->domain, m.s[1], m.n[1]) &&
         (int64_t)m.v2 == os->version;
}

static void w_kvs(enc *e, uint32_t no, const olg_kv *kv, size_t n, const void *extra) {
  const olg_pbx *x = extra;
  for (size_t i = 0; i < n; i++) {
    if (x && i < x->n_kv_verbatim && x->kv_verbatim[i].p && kv_still(x->kv_verbatim[i], &kv[i])) {
      f_bytes(e, no, x->kv_verbatim[i].p, x->kv_verbatim[i].n);
      continue;
    }
    mark k = sub_begin(e, no);
    f_str(e, 1, kv[i].key);
    f_str(e, 2, kv[i].value);
    sub_end(e, k);
  }
}

/* ---------------------------------------------------------------------------------------- */
/* TypeProto */

static void w_type_field(enc *e, uint32_t no, const olg_type *ty);

static void w_type_tensor(enc *e, uint32_t no, const olg_type *ty) {
  mark k = sub_begin(e, no);
  if (ty->has_elem) f_int32(e, 1, ty->elem);
  if (ty->has_shape) {
    mark ks = sub_begin(e, 2);
    for (int32_t i = 0; i < ty->rank && ty->dims; i++) {
      const olg_dim *d = &ty->dims[i];
      mark kd = sub_begin(e, 1);
      if (d->value >= 0) f_varint(e, 1, (uint64_t)d->value);
      else if (d->param) f_str(e, 2, d->param);
      if (d->denotation) f_str(e, 3, d->denotation);
      sub_end(e, kd);
    }
    sub_end(e, ks);
  }
  sub_end(e, k);
}

static void w_type_wrapped(enc *e, uint32_t no, const olg_type *ty) {
  mark k = sub_begin(e, no);
  if (ty->kind == OLG_TYPE_MAP) {
    f_int32(e, 1, ty->key);
    if (ty->inner) w_type_field(e, 2, ty->inner);
  } else if (ty->kind == OLG_TYPE_OPAQUE) {
    if (ty->opaque_domain) f_str(e, 1, ty->opaque_domain);
    if (ty->opaque_name) f_str(e, 2, ty->opaque_name);
  } else if (ty->inner) {
    w_type_field(e, 1, ty->inner);
  }
  sub_end(e, k);
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

static void w_type_field(enc *e, uint32_t no, const olg_type *ty) {
  const olg_pbx *x = ty->extra;
  if (type_verbatim(ty)) {
    f_bytes(e, no, x->type_verbatim.p, x->type_verbatim.n);
    return;
  }
  if (!deeper(e, "TypeProto")) return;
  mark k = sub_begin(e, no);
  switch (ty->kind) { /* the oneof's members in field-number order around denotation (6) */
  case OLG_TYPE_TENSOR: w_type_tensor(e, 1, ty); break;
  case OLG_TYPE_SEQUENCE: w_type_wrapped(e, 4, ty); break;
  case OLG_TYPE_MAP: w_type_wrapped(e, 5, ty); break;
  default: break;
  }
  if (ty->denotation) f_str(e, 6, ty->denotation);
  switch (ty->kind) {
  case OLG_TYPE_OPAQUE: w_type_wrapped(e, 7, ty); break;
  case OLG_TYPE_SPARSE_TENSOR: w_type_tensor(e, 8, ty); break;
  case OLG_TYPE_OPTIONAL: w_type_wrapped(e, 9, ty); break;
  default: break;
  }
  sub_end(e, k);
  e->depth--;
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

/* Which field the tensor's data goes to. */
static int tensor_encoding(const olg_tensor *t) {
  bool unloaded = t->encoding == OLG_ENC_EXTERNAL && !t->external_loaded && !t->data;
  if (t->dtype == OLG_STRING) {
    if (unloaded) return E_EXTREF;
    return t->encoding == OLG_ENC_NONE && !t->n_strings ? E_NONE : E_STRING;
  }
  if (unloaded) return E_EXTREF;
  if (!t->data && !t->nbytes) return t->encoding == OLG_ENC_NONE || t->encoding == OLG_ENC_EXTERNAL
                                         ? E_NONE : t->encoding == OLG_ENC_RAW ? E_RAW : -1;
  return -1;
}

static int tensor_field(const olg_tensor *t) {
  int en = tensor_encoding(t);
  if (en >= 0) return en;
  static const int map[] = {[OLG_ENC_RAW] = E_RAW, [OLG_ENC_FLOAT] = E_FLOAT,
                            [OLG_ENC_INT32] = E_INT32, [OLG_ENC_STRING] = E_RAW,
                            [OLG_ENC_INT64] = E_INT64, [OLG_ENC_DOUBLE] = E_DOUBLE,
                            [OLG_ENC_UINT64] = E_UINT64, [OLG_ENC_EXTERNAL] = E_RAW,
                            [OLG_ENC_NONE] = E_RAW};
  en = t->encoding <= OLG_ENC_NONE ? map[t->encoding] : E_RAW;
  bool sign;
  unsigned w = typed_width(en, t->dtype, &sign);
  if (en != E_RAW && (!w || t->nbytes % w)) en = E_RAW; /* a typed field that cannot hold it */
  return en;
}

/* A packed varint field from native elements of width w. */
static void w_packed_varints(enc *e, uint32_t no, const uint8_t *p, size_t nbytes, unsigned w,
                             bool sign, bool as_int32) {
  if (!nbytes) return;
  mark k = sub_begin(e, no);
  for (size_t i = 0; i + w <= nbytes; i += w) {
    uint64_t v = 0;
    for (unsigned b = w; b-- > 0;) v = (v << 8) | p[i + b];
    if (as_int32) {
      int32_t x = !sign ? (int32_t)(uint32_t)v
                  : w == 1 ? (int8_t)(uint8_t)v : w == 2 ? (int16_t)(uint16_t)v : (int32_t)(uint32_t)v;
      v = (uint64_t)(int64_t)x;
    }
    out_varint(e, v);
  }
  sub_end(e, k);
}

/* Reserves the tensor's place in the external data file; in the second run, writes it there. */
static uint64_t ext_place(enc *e, const olg_tensor *t) {
  uint64_t align = t->nbytes >= 65536 ? 4096 : 64;
  uint64_t at = (e->ext_off + align - 1) / align * align;
  e->ext_off = at + t->nbytes;
  if (e->emit && !e->st && t->nbytes && !write_all(e->ext_fd, t->data, t->nbytes, (int64_t)at))
    fail(e, olg__err(OLG_ERR_IO, "writing external data '%s': %s", e->ext_name, strerror(errno)));
  return at;
}

static void w_ext_entry(enc *e, const char *key, const char *value) {
  mark k = sub_begin(e, 13);
  f_str(e, 1, key);
  f_str(e, 2, value);
  sub_end(e, k);
}

static void w_tensor(enc *e, const olg_tensor *t) {
  const olg_pbx *x = t->extra;
  rawcur rc = {x, 1};
  const void *now = t->dtype == OLG_STRING ? (const void *)t->strings : t->data;
  bool verb = x && x->n_data_verbatim && now == x->data_snapshot;
  int kind = tensor_field(t);
  bool to_ext = !verb && e->ext_on && (kind == E_RAW || kind == E_FLOAT || kind == E_INT32 ||
                                       kind == E_INT64 || kind == E_DOUBLE || kind == E_UINT64) &&
                t->nbytes >= e->ext_threshold && (t->data || !t->nbytes);
  uint64_t ext_at = to_ext ? ext_place(e, t) : 0;
  /* the field the data goes to inline; verbatim data replaces only these fields */
  int en = verb || to_ext ? E_NONE : kind;
  const uint8_t *d = t->data;
  bool sign;
  unsigned w = typed_width(en, t->dtype, &sign);

  for (int32_t i = 0; i < t->rank && t->dims; i++) f_varint(e, 1, (uint64_t)t->dims[i]);
  if (t->has_dtype) f_int32(e, 2, t->dtype);
  raws_upto(e, &rc, 3);
  static const uint32_t data_fields[] = {4, 5, 6, 7};
  for (int j = 0; j < 4; j++) {
    uint32_t no = data_fields[j];
    raws_upto(e, &rc, no);
    if (verb) {
      raws_between(e, x->data_verbatim, x->n_data_verbatim, no, no);
    } else if (no == 4 && en == E_FLOAT && t->nbytes) {
      f_bytes(e, 4, d, t->nbytes); /* little-endian floats are the packed field already */
    } else if (no == 5 && en == E_INT32) {
      w_packed_varints(e, 5, d, t->nbytes, w, sign, true);
    } else if (no == 6 && en == E_STRING) {
      for (size_t i = 0; i < t->n_strings && t->strings; i++)
        f_bytes(e, 6, t->strings[i].p, t->strings[i].n);
    } else if (no == 7 && en == E_INT64) {
      w_packed_varints(e, 7, d, t->nbytes, 8, false, false);
    }
  }
  raws_upto(e, &rc, 8);
  if (t->name) f_str(e, 8, t->name);
  raws_upto(e, &rc, 9);
  if (verb) raws_between(e, x->data_verbatim, x->n_data_verbatim, 9, 9);
  else if (en == E_RAW) f_bytes(e, 9, d ? (const void *)d : "", d ? t->nbytes : 0);
  raws_upto(e, &rc, 10);
  if (verb) raws_between(e, x->data_verbatim, x->n_data_verbatim, 10, 10);
  else if (en == E_DOUBLE && t->nbytes) f_bytes(e, 10, d, t->nbytes);
  raws_upto(e, &rc, 11);
  if (verb) raws_between(e, x->data_verbatim, x->n_data_verbatim, 11, 11);
  else if (en == E_UINT64) w_packed_varints(e, 11, d, t->nbytes, w, false, false);
  raws_upto(e, &rc, 12);
  if (t->doc_string) f_str(e, 12, t->doc_string);
  raws_upto(e, &rc, 13);
  if (to_ext) {
    char num[24];
    w_ext_entry(e, "location", e->ext_name);
    snprintf(num, sizeof num, "%" PRIu64, ext_at);
    w_ext_entry(e, "offset", num);
    snprintf(num, sizeof num, "%zu", t->nbytes);
    w_ext_entry(e, "length", num);
  } else if (kind == E_EXTREF) {
    w_kvs(e, 13, t->external, t->n_external, x);
  }
  raws_upto(e, &rc, 14);
  if (to_ext || kind == E_EXTREF) f_varint(e, 14, 1);
  else if (pbx_flags(x) & PBX_LOC_DEFAULT) f_varint(e, 14, 0);
  raws_rest(e, &rc);
}

/* ---------------------------------------------------------------------------------------- */
/* Graphs, nodes, attributes */

static void w_graph(enc *e, const olg_graph *g);

static void w_tensor_field(enc *e, uint32_t no, const olg_tensor *t) {
  if (!deeper(e, "TensorProto")) return;
  mark k = sub_begin(e, no);
  w_tensor(e, t);
  sub_end(e, k);
  e->depth--;
}

static void w_graph_field(enc *e, uint32_t no, const olg_graph *g) {
  mark k = sub_begin(e, no);
  w_graph(e, g);
  sub_end(e, k);
}

static uint32_t list_count(const olg_attr *a, const olg_pbx *x, int l) {
  if (x && (x->flags & PBX_ATTR_LISTS)) return x->list_n[l];
  return olg__pb_attr_list(a->type) == l ? (uint32_t)a->n : 0;
}

static void w_attr(enc *e, const olg_attr *a) {
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
  if (!((fl & PBX_NO_NAME) && a->name && !*a->name)) f_str(e, 1, a->name);
  raws_upto(e, &rc, 2);
  if (has_f) {
    uint32_t b;
    memcpy(&b, &a->f, 4);
    f_fixed32(e, 2, b);
  }
  raws_upto(e, &rc, 3);
  if (has_i) f_varint(e, 3, (uint64_t)a->i);
  raws_upto(e, &rc, 4);
  if (has_s) f_bytes(e, 4, a->s.p ? a->s.p : "", a->s.p ? a->s.n : 0);
  raws_upto(e, &rc, 5);
  if (a->t) w_tensor_field(e, 5, a->t);
  raws_upto(e, &rc, 6);
  if (a->g) w_graph_field(e, 6, a->g);
  raws_upto(e, &rc, 7);
  uint32_t n;
  if ((n = list_count(a, x, PBX_L_FLOATS)) && a->floats)
    for (uint32_t i = 0; i < n; i++) {
      uint32_t b;
      memcpy(&b, &a->floats[i], 4);
      f_fixed32(e, 7, b);
    }
  raws_upto(e, &rc, 8);
  if ((n = list_count(a, x, PBX_L_INTS)) && a->ints)
    for (uint32_t i = 0; i < n; i++) f_varint(e, 8, (uint64_t)a->ints[i]);
  raws_upto(e, &rc, 9);
  if ((n = list_count(a, x, PBX_L_STRINGS)) && a->strings)
    for (uint32_t i = 0; i < n; i++) f_bytes(e, 9, a->strings[i].p ? a->strings[i].p : "", a->strings[i].n);
  raws_upto(e, &rc, 10);
  if ((n = list_count(a, x, PBX_L_TENSORS)) && a->tensors)
    for (uint32_t i = 0; i < n; i++) w_tensor_field(e, 10, a->tensors[i]);
  raws_upto(e, &rc, 11);
  if ((n = list_count(a, x, PBX_L_GRAPHS)) && a->graphs)
    for (uint32_t i = 0; i < n; i++) w_graph_field(e, 11, a->graphs[i]);
  raws_upto(e, &rc, 13);
  if (a->doc_string) f_str(e, 13, a->doc_string);
  raws_upto(e, &rc, 14);
  if (a->tp) w_type_field(e, 14, a->tp);
  raws_upto(e, &rc, 15);
  if ((n = list_count(a, x, PBX_L_TPS)) && a->tps)
    for (uint32_t i = 0; i < n; i++) w_type_field(e, 15, a->tps[i]);
  raws_upto(e, &rc, 20);
  if (fl & PBX_ATTR_TYPE_RAW) f_int32(e, 20, (int32_t)x->attr_type);
  else if (!(fl & PBX_NO_ATTR_TYPE)) f_int32(e, 20, a->type);
  raws_upto(e, &rc, 21);
  if (a->ref_attr_name) f_str(e, 21, a->ref_attr_name);
  raws_upto(e, &rc, 22);
  if (a->sparse) {
    const olg_pb_span *sp = a->sparse;
    f_bytes(e, 22, sp->p, sp->n);
  }
  raws_upto(e, &rc, 23);
  if ((n = list_count(a, x, PBX_L_SPARSES)) && a->sparses)
    for (uint32_t i = 0; i < n; i++) {
      const olg_pb_span *sp = a->sparses[i];
      f_bytes(e, 23, sp->p, sp->n);
    }
  raws_rest(e, &rc);
}

static const char *value_name(enc *e, const olg_graph *g, const olg_node *nd, olg_value v) {
  if (v < 0 || (uint32_t)v >= g->n_values) {
    fail(e, olg__err(OLG_ERR_INVALID_MODEL, "node '%s' (%s) in graph '%s' refers to value id %d, "
                     "which the graph does not have", nd->name, nd->op, g->name, (int)v));
    return "";
  }
  return g->values[v].name;
}

static const char *const arg_kind_name[] = {"none", "value", "values", "int", "float", "bool",
                                            "string", "ints", "floats"};

static void w_node(enc *e, const olg_graph *g, const olg_node *nd) {
  const olg_pbx *x = nd->extra;
  uint32_t fl = pbx_flags(x);
  rawcur rc = {x, 1};
  for (uint32_t i = 0; i < nd->n_args; i++) {
    const olg_arg *a = &nd->args[i];
    if (a->kind == OLG_ARG_NONE) {
      f_str(e, 1, "");
    } else if (a->kind == OLG_ARG_VALUE) {
      f_str(e, 1, value_name(e, g, nd, a->u.v));
    } else if (a->kind == OLG_ARG_VALUES) {
      for (size_t j = 0; j < a->u.vals.n; j++)
        f_str(e, 1, a->u.vals.p[j] == OLG_NO_VALUE ? "" : value_name(e, g, nd, a->u.vals.p[j]));
    } else {
      fail(e, olg__err(OLG_ERR_UNSUPPORTED,
                       "node '%s' (%s%s%s) in graph '%s' has a literal argument #%u (%s): a "
                       "source-domain node must be lowered to ONNX before it is written",
                       nd->name, *nd->domain ? nd->domain : "", *nd->domain ? "::" : "", nd->op,
                       g->name, i, a->kind <= OLG_ARG_FLOATS ? arg_kind_name[a->kind] : "?"));
      return;
    }
  }
  raws_upto(e, &rc, 2);
  for (uint32_t i = 0; i < nd->n_outputs; i++)
    f_str(e, 2, nd->outputs[i] == OLG_NO_VALUE ? "" : value_name(e, g, nd, nd->outputs[i]));
  raws_upto(e, &rc, 3);
  if (nd->name && (*nd->name || (fl & PBX_NAME_EMPTY))) f_str(e, 3, nd->name);
  raws_upto(e, &rc, 4);
  if (!((fl & PBX_NO_OP_TYPE) && nd->op && !*nd->op)) f_str(e, 4, nd->op);
  raws_upto(e, &rc, 5);
  for (uint32_t i = 0; i < nd->n_attrs; i++) {
    if (!deeper(e, "AttributeProto")) return;
    mark k = sub_begin(e, 5);
    w_attr(e, &nd->attrs[i]);
    sub_end(e, k);
    e->depth--;
  }
  raws_upto(e, &rc, 6);
  if (nd->doc_string) f_str(e, 6, nd->doc_string);
  raws_upto(e, &rc, 7);
  if (nd->domain && (*nd->domain || (fl & PBX_DOMAIN_EMPTY))) f_str(e, 7, nd->domain);
  raws_upto(e, &rc, 8);
  if (nd->overload) f_str(e, 8, nd->overload);
  raws_upto(e, &rc, 9);
  w_kvs(e, 9, nd->metadata, nd->n_metadata, x);
  raws_rest(e, &rc);
}

static void w_value_info(enc *e, const olg_graph *g, uint32_t no, int list, uint32_t pos,
                         olg_value v) {
  if (v < 0 || (uint32_t)v >= g->n_values) {
    fail(e, olg__err(OLG_ERR_INVALID_MODEL, "graph '%s' lists value id %d, which it does not have",
                     g->name, (int)v));
    return;
  }
  const olg_value_rec *r = &g->values[v];
  const olg_pbx *gx = g->extra;
  if (gx && pos < gx->n_vi_alt[list] && gx->vi_alt[list][pos].vi.p &&
      gx->vi_alt[list][pos].v == v) {
    mini2 mm;
    olg_pb_span vi = gx->vi_alt[list][pos].vi;
    if (mini_parse(vi, &mm) && same_cstr(r->name, mm.s[1], mm.n[1])) {
      f_bytes(e, no, vi.p, vi.n);
      return;
    }
  }
  const olg_pbx *x = r->extra;
  uint32_t fl = pbx_flags(x);
  mark k = sub_begin(e, no);
  if (!((fl & PBX_NO_NAME) && !*r->name)) f_str(e, 1, r->name);
  bool no_type = (fl & PBX_VI_NO_TYPE) && type_unchanged(&r->type, &x->type_snapshot);
  if (type_verbatim(&r->type) || (r->type.kind != OLG_TYPE_NONE && !no_type))
    w_type_field(e, 2, &r->type);
  if (r->doc_string) f_str(e, 3, r->doc_string);
  w_kvs(e, 4, r->metadata, r->n_metadata, x);
  rawcur rc = {x, 5};
  raws_rest(e, &rc);
  sub_end(e, k);
}

static void w_graph(enc *e, const olg_graph *g) {
  if (!deeper(e, "GraphProto")) return;
  const olg_pbx *x = g->extra;
  uint32_t fl = pbx_flags(x);
  rawcur rc = {x, 1};
  for (uint32_t i = 0; i < g->n_nodes && !e->st; i++) {
    const olg_node *nd = &g->nodes[i];
    if (nd->state == OLG_NODE_DEAD) continue;
    if (nd->state != OLG_NODE_DONE) {
      fail(e, olg__err(OLG_ERR_STATE, "node '%s' (%s) in graph '%s' is still open (olg_node_end "
                       "was not called)", nd->name, nd->op, g->name));
      return;
    }
    if (!deeper(e, "NodeProto")) return;
    mark k = sub_begin(e, 1);
    w_node(e, g, nd);
    sub_end(e, k);
    e->depth--;
  }
  raws_upto(e, &rc, 2);
  if (g->name && (*g->name || (fl & PBX_NAME_EMPTY))) f_str(e, 2, g->name);
  raws_upto(e, &rc, 5);
  for (uint32_t i = 0; i < g->n_inits; i++) w_tensor_field(e, 5, g->inits[i].t);
  raws_upto(e, &rc, 10);
  if (g->doc_string) f_str(e, 10, g->doc_string);
  raws_upto(e, &rc, 11);
  for (uint32_t i = 0; i < g->inputs.n; i++) w_value_info(e, g, 11, 0, i, g->inputs.p[i]);
  raws_upto(e, &rc, 12);
  for (uint32_t i = 0; i < g->outputs.n; i++) w_value_info(e, g, 12, 1, i, g->outputs.p[i]);
  raws_upto(e, &rc, 13);
  for (uint32_t i = 0; i < g->value_info.n; i++) w_value_info(e, g, 13, 2, i, g->value_info.p[i]);
  raws_upto(e, &rc, 16);
  w_kvs(e, 16, g->metadata, g->n_metadata, x);
  raws_rest(e, &rc);
  e->depth--;
}

static void w_model(enc *e, const olg_model *m) {
  const olg_pbx *x = m->extra;
  uint32_t fl = pbx_flags(x);
  rawcur rc = {x, 1};
  e->depth = 0;
  if (!((fl & PBX_NO_IR_VERSION) && m->ir_version == 0)) f_varint(e, 1, (uint64_t)m->ir_version);
  raws_upto(e, &rc, 2);
  if (m->producer_name && (*m->producer_name || (fl & PBX_NAME_EMPTY))) f_str(e, 2, m->producer_name);
  raws_upto(e, &rc, 3);
  if (m->producer_version && (*m->producer_version || (fl & PBX_PVERSION_EMPTY)))
    f_str(e, 3, m->producer_version);
  raws_upto(e, &rc, 4);
  if (m->domain && (*m->domain || (fl & PBX_DOMAIN_EMPTY))) f_str(e, 4, m->domain);
  raws_upto(e, &rc, 5);
  if (m->has_model_version) f_varint(e, 5, (uint64_t)m->model_version);
  raws_upto(e, &rc, 6);
  if (m->doc_string && (*m->doc_string || (fl & PBX_DOC_EMPTY))) f_str(e, 6, m->doc_string);
  raws_upto(e, &rc, 7);
  if (m->graph) w_graph_field(e, 7, m->graph);
  raws_upto(e, &rc, 8);
  for (uint32_t i = 0; i < m->n_opsets; i++) {
    const olg_opset *os = &m->opsets[i];
    if (x && i < x->n_opset_verbatim && x->opset_verbatim[i].p &&
        opset_still(x->opset_verbatim[i], os)) {
      f_bytes(e, 8, x->opset_verbatim[i].p, x->opset_verbatim[i].n);
      continue;
    }
    mark k = sub_begin(e, 8);
    f_str(e, 1, os->domain);
    f_varint(e, 2, (uint64_t)os->version);
    sub_end(e, k);
  }
  raws_upto(e, &rc, 14);
  w_kvs(e, 14, m->metadata, m->n_metadata, x);
  raws_rest(e, &rc);
}

/* ---------------------------------------------------------------------------------------- */
/* Driving the two runs */

static olg_status run(enc *e, const olg_model *m) {
  e->emit = false;
  e->pos = 0;
  e->ext_off = 0;
  w_model(e, m);
  if (e->st) return e->st;
  uint64_t total = e->pos;
  if (total > PROTOBUF_LIMIT)
    return olg__err(OLG_ERR_LIMIT, "the model would be %" PRIu64 " bytes; protobuf readers refuse "
                    "more than 2 GiB: write large tensors as external data "
                    "(olg_write_options.external_data)", total);
  e->buf = olg__malloc(e->a, STAGE_SIZE);
  if (!e->buf) return OLG_ERR_NOMEM;
  e->emit = true;
  e->pos = 0;
  e->cursor = 0;
  e->ext_off = 0;
  w_model(e, m);
  flush(e);
  if (e->st) return e->st;
  if (e->pos != total || e->cursor != e->n_sizes)
    return olg__err(OLG_ERR_STATE, "internal error: the writer's two runs disagree");
  return OLG_OK;
}

OLG_API void olg_write_options_init(olg_write_options *o) {
  if (o) *o = (olg_write_options)OLG_WRITE_OPTIONS_INIT;
}

/* A fresh temporary name beside `name` in dirfd, opened for writing. */
static int open_temp(int dirfd, const char *name, char *tmp, size_t cap) {
  const char *base = strrchr(name, '/');
  base = base ? base + 1 : name;
  size_t dirlen = (size_t)(base - name);
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  for (unsigned attempt = 0; attempt < 100; attempt++) {
    int k = snprintf(tmp, cap, "%.*s.%s.tmp-%ld-%lx-%u", (int)dirlen, name, base, (long)getpid(),
                     (unsigned long)ts.tv_nsec, attempt);
    if (k < 0 || (size_t)k >= cap) {
      errno = ENAMETOOLONG;
      return -1;
    }
    int fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  return -1;
}

/* The external data file: checked name, temporary file beside it, renamed when all went well. */
typedef struct ext_out {
  int dirfd; /* the directory the file goes in */
  int fd;
  char tmp[PATH_MAX];
  char base[NAME_MAX + 1];
} ext_out;

static olg_status ext_open(ext_out *xo, const char *dir, const char *name) {
  xo->dirfd = xo->fd = -1;
  const char *slash = strrchr(name, '/');
  const char *base = slash ? slash + 1 : name;
  if (!*name || name[0] == '/' || strlen(base) > NAME_MAX || !*base || strcmp(base, "..") == 0 ||
      strcmp(base, ".") == 0)
    return olg__err(OLG_ERR_INVALID_ARG, "external data file '%s': a relative file name is "
                    "required (no absolute path, no '..')", name);
  for (const char *c = name; c; c = strchr(c, '/') ? strchr(c, '/') + 1 : NULL)
    if (strncmp(c, "../", 3) == 0 || strcmp(c, "..") == 0)
      return olg__err(OLG_ERR_INVALID_ARG, "external data file '%s': '..' is not allowed", name);
  if (slash) {
    char sub[PATH_MAX];
    size_t n = (size_t)(slash - name);
    if (n >= sizeof sub) return olg__err(OLG_ERR_INVALID_ARG, "external data file '%s': name too long", name);
    memcpy(sub, name, n);
    sub[n] = 0;
    const char *why;
    xo->dirfd = olg__pb_open_beneath(dir, sub, O_RDONLY | O_DIRECTORY, 0, &why);
    if (xo->dirfd < 0)
      return olg__err(why ? OLG_ERR_INVALID_ARG : OLG_ERR_IO, "external data file '%s' in '%s': %s",
                      name, dir, why ? why : strerror(errno));
  } else {
    xo->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (xo->dirfd < 0)
      return olg__err(OLG_ERR_IO, "external data directory '%s': %s", dir, strerror(errno));
  }
  strcpy(xo->base, base);
  xo->fd = open_temp(xo->dirfd, base, xo->tmp, sizeof xo->tmp);
  if (xo->fd < 0) {
    olg_status s = olg__err(OLG_ERR_IO, "cannot create the external data file '%s' in '%s': %s",
                            name, dir, strerror(errno));
    close(xo->dirfd);
    xo->dirfd = -1;
    return s;
  }
  return OLG_OK;
}

/* Keeps (rename into place) or drops the file; closes. */
static olg_status ext_close(ext_out *xo, bool keep) {
  olg_status s = OLG_OK;
  if (xo->fd >= 0) {
    if (close(xo->fd) != 0 && keep)
      s = olg__err(OLG_ERR_IO, "closing external data file '%s': %s", xo->base, strerror(errno));
    if (keep && !s && renameat(xo->dirfd, xo->tmp, xo->dirfd, xo->base) != 0)
      s = olg__err(OLG_ERR_IO, "renaming external data file to '%s': %s", xo->base, strerror(errno));
    if (!keep || s) unlinkat(xo->dirfd, xo->tmp, 0);
  }
  if (xo->dirfd >= 0) close(xo->dirfd);
  xo->fd = xo->dirfd = -1;
  return s;
}

static olg_status take_options(const olg_write_options *in, olg_write_options *o, const char *fn) {
  *o = (olg_write_options)OLG_WRITE_OPTIONS_INIT;
  if (!in) return OLG_OK;
  if (in->size < sizeof(size_t)) return olg__err(OLG_ERR_INVALID_ARG, "%s: options.size is not set", fn);
  memcpy(o, in, in->size < sizeof *o ? in->size : sizeof *o);
  o->size = sizeof *o;
  return OLG_OK;
}

/* Writes to fd (>= 0) or fn; ext_dir is where the external data file goes. */
static olg_status write_model(const olg_model *m, int fd, olg_write_fn fn, void *ud,
                              const olg_write_options *o, const char *ext_dir, const char *what) {
  enc e;
  memset(&e, 0, sizeof e);
  e.a = &m->alloc;
  e.fd = fd;
  e.fn = fn;
  e.ud = ud;
  e.ext_fd = -1;
  ext_out xo = {-1, -1, {0}, {0}};
  olg_status s = OLG_OK;
  if (o->external_data) {
    if (!ext_dir)
      return olg__err(OLG_ERR_INVALID_ARG, "%s: external_data is set but not external_data_dir "
                      "(the directory the data file goes in)", what);
    if ((s = ext_open(&xo, ext_dir, o->external_data))) return s;
    e.ext_on = true;
    e.ext_name = o->external_data;
    e.ext_threshold = o->external_data_threshold;
    e.ext_fd = xo.fd;
  }
  s = run(&e, m);
  if (e.ext_on) {
    olg_status s2 = ext_close(&xo, s == OLG_OK);
    if (!s) s = s2;
  }
  olg__free(e.a, e.sizes, e.cap_sizes * sizeof *e.sizes);
  olg__free(e.a, e.buf, STAGE_SIZE);
  return s;
}

OLG_API olg_status olg_model_write_callback(const olg_model *m, olg_write_fn fn, void *ud,
                                            const olg_write_options *opts) {
  if (!m || !fn) return olg__err(OLG_ERR_INVALID_ARG, "olg_model_write_callback: model and callback are required");
  olg_write_options o;
  olg_status s = take_options(opts, &o, "olg_model_write_callback");
  if (s) return s;
  s = write_model(m, -1, fn, ud, &o, o.external_data_dir, "olg_model_write_callback");
  return s ? olg__err_prefix(s, "writing the model") : OLG_OK;
}

OLG_API olg_status olg_model_write_fd(const olg_model *m, int fd, const olg_write_options *opts) {
  if (!m || fd < 0) return olg__err(OLG_ERR_INVALID_ARG, "olg_model_write_fd: model and fd are required");
  olg_write_options o;
  olg_status s = take_options(opts, &o, "olg_model_write_fd");
  if (s) return s;
  s = write_model(m, fd, NULL, NULL, &o, o.external_data_dir, "olg_model_write_fd");
  return s ? olg__err_prefix(s, "writing the model to fd %d", fd) : OLG_OK;
}

OLG_API olg_status olg_model_write_file(const olg_model *m, const char *path,
                                        const olg_write_options *opts) {
  if (!m || !path || !*path)
    return olg__err(OLG_ERR_INVALID_ARG, "olg_model_write_file: model and path are required");
  olg_write_options o;
  olg_status s = take_options(opts, &o, "olg_model_write_file");
  if (s) return s;
  char dir[PATH_MAX], tmp[PATH_MAX];
  const char *slash = strrchr(path, '/');
  if (!slash) strcpy(dir, ".");
  else if (slash == path) strcpy(dir, "/");
  else if ((size_t)(slash - path) < sizeof dir) {
    memcpy(dir, path, (size_t)(slash - path));
    dir[slash - path] = 0;
  } else {
    return olg__err(OLG_ERR_INVALID_ARG, "olg_model_write_file: path too long");
  }
  int fd = open_temp(AT_FDCWD, path, tmp, sizeof tmp);
  if (fd < 0) return olg__err(OLG_ERR_IO, "cannot create a file beside '%s': %s", path, strerror(errno));
  s = write_model(m, fd, NULL, NULL, &o, dir, "olg_model_write_file");
  if (close(fd) != 0 && !s) s = olg__err(OLG_ERR_IO, "closing '%s': %s", tmp, strerror(errno));
  if (!s && rename(tmp, path) != 0) s = olg__err(OLG_ERR_IO, "renaming to '%s': %s", path, strerror(errno));
  if (s) {
    unlink(tmp);
    return olg__err_prefix(s, "writing '%s'", path);
  }
  return OLG_OK;
}
