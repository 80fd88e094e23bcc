/* onnxlegal — the wire fields of an ONNX ModelProto, decided once for both writers
 * (pb_fields.h).
 *
 * Fields are written in field-number order with the schema's packing, as ONNX's reference
 * implementation does, so a model read from a canonical file is written back byte for byte.
 * What the reader kept in `extra` (unknown fields, uninterpreted known fields, verbatim parts the
 * IR cannot express) is emitted in its place, while the IR still says the same. Nothing here
 * allocates or calls stdio (the nanopb writer's promise; tests/py/test_nanopb.py checks it). */
#include <string.h>

#include "pb_fields.h"

#define MAX_FIELD 63 /* above every field number ONNX's messages use */

bool olg__pbw_fail(const olg_pbw *w, olg_status s) {
  if (!w->c->st) w->c->st = s;
  return false;
}

/* ---------------------------------------------------------------------------------------- */
/* Fields, through the writer's ops */

static bool f_varint(const olg_pbw *w, uint32_t no, uint64_t v) { return w->ops->varint(w, no, v); }

/* int32 and enum fields: negative values are sign-extended to 64 bits, as protobuf does */
static bool f_int32(const olg_pbw *w, uint32_t no, int32_t v) {
  return w->ops->varint(w, no, (uint64_t)(int64_t)v);
}

static bool f_bytes(const olg_pbw *w, uint32_t no, const void *p, size_t n) {
  return w->ops->bytes(w, no, p, n);
}

static bool f_str(const olg_pbw *w, uint32_t no, const char *s) {
  return w->ops->bytes(w, no, s ? s : "", s ? strlen(s) : 0);
}

static bool f_float(const olg_pbw *w, uint32_t no, const float *v) {
  uint32_t b;
  memcpy(&b, v, 4);
  return w->ops->fixed32(w, no, b);
}

static bool sub(const olg_pbw *w, uint32_t no, olg_pbw_body body, const void *obj,
                const void *aux) {
  return w->ops->sub(w, no, body, obj, aux);
}

static bool deeper(const olg_pbw *w, const char *what) {
  if (++w->c->depth > OLG_PB_MAX_DEPTH) {
    w->c->depth--;
    return olg__pbw_fail(w, olg__err(OLG_ERR_LIMIT, "%s nested deeper than %d messages", what,
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

static bool raws_between(const olg_pbw *w, const olg_pb_raw *raw, uint32_t n, uint32_t lo,
                         uint32_t hi) {
  for (uint32_t f = lo; f <= hi && f <= MAX_FIELD; f++)
    for (uint32_t i = 0; i < n; i++)
      if (!raw[i].unknown && raw[i].field == f && !w->ops->raw(w, raw[i].bytes.p, raw[i].bytes.n))
        return false;
  return true;
}

/* The known raw fields numbered below `upto` not yet written. */
static bool raws_upto(const olg_pbw *w, rawcur *rc, uint32_t upto) {
  bool ok = true;
  if (rc->x && rc->x->n_raw && upto >= rc->next)
    ok = raws_between(w, rc->x->raw, rc->x->n_raw, rc->next, upto);
  if (upto + 1 > rc->next) rc->next = upto + 1;
  return ok;
}

/* the known raw fields left, then the unknown ones in input order */
static bool raws_rest(const olg_pbw *w, rawcur *rc) {
  if (!raws_upto(w, rc, MAX_FIELD)) return false;
  if (!rc->x) return true;
  for (uint32_t i = 0; i < rc->x->n_raw; i++)
    if (rc->x->raw[i].unknown && !w->ops->raw(w, rc->x->raw[i].bytes.p, rc->x->raw[i].bytes.n))
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
    default: return false; /* groups: never kept in these entries' place */
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

/* StringStringEntryProto from two C strings */
static bool b_kv_strs(const olg_pbw *w, const void *key, const void *value) {
  return f_str(w, 1, key) && f_str(w, 2, value);
}

static bool b_kv(const olg_pbw *w, const void *obj, const void *aux) {
  (void)aux;
  const olg_kv *kv = obj;
  return b_kv_strs(w, kv->key, kv->value);
}

static bool w_kvs(const olg_pbw *w, uint32_t no, const olg_kv *kv, size_t n, const void *extra) {
  const olg_pbx *x = extra;
  for (size_t i = 0; i < n; i++) {
    if (x && i < x->n_kv_verbatim && x->kv_verbatim[i].p && kv_still(x->kv_verbatim[i], &kv[i])) {
      if (!f_bytes(w, no, x->kv_verbatim[i].p, x->kv_verbatim[i].n)) return false;
    } else if (!sub(w, no, b_kv, &kv[i], NULL)) {
      return false;
    }
  }
  return true;
}

/* ---------------------------------------------------------------------------------------- */
/* TypeProto */

static bool w_type_field(const olg_pbw *w, uint32_t no, const olg_type *ty);

static bool b_dim(const olg_pbw *w, const void *obj, const void *aux) {
  (void)aux;
  const olg_dim *d = obj;
  if (d->value >= 0) {
    if (!f_varint(w, 1, (uint64_t)d->value)) return false;
  } else if (d->param && !f_str(w, 2, d->param)) {
    return false;
  }
  return !d->denotation || f_str(w, 3, d->denotation);
}

static bool b_shape(const olg_pbw *w, const void *obj, const void *aux) {
  (void)aux;
  const olg_type *ty = obj;
  for (int32_t i = 0; i < ty->rank && ty->dims; i++)
    if (!sub(w, 1, b_dim, &ty->dims[i], NULL)) return false;
  return true;
}

static bool b_type_tensor(const olg_pbw *w, const void *obj, const void *aux) {
  (void)aux;
  const olg_type *ty = obj;
  if (ty->has_elem && !f_int32(w, 1, ty->elem)) return false;
  return !ty->has_shape || sub(w, 2, b_shape, ty, NULL);
}

/* Sequence, map, optional, opaque: a message around an inner type (or names). */
static bool b_type_wrapped(const olg_pbw *w, const void *obj, const void *aux) {
  (void)aux;
  const olg_type *ty = obj;
  if (ty->kind == OLG_TYPE_MAP)
    return f_int32(w, 1, ty->key) && (!ty->inner || w_type_field(w, 2, ty->inner));
  if (ty->kind == OLG_TYPE_OPAQUE)
    return (!ty->opaque_domain || f_str(w, 1, ty->opaque_domain)) &&
           (!ty->opaque_name || f_str(w, 2, ty->opaque_name));
  return !ty->inner || w_type_field(w, 1, ty->inner);
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

static bool b_type(const olg_pbw *w, const void *obj, const void *aux) {
  (void)aux;
  const olg_type *ty = obj;
  bool ok = true;
  switch (ty->kind) { /* the oneof's members in field-number order around denotation (6) */
  case OLG_TYPE_TENSOR: ok = sub(w, 1, b_type_tensor, ty, NULL); break;
  case OLG_TYPE_SEQUENCE: ok = sub(w, 4, b_type_wrapped, ty, NULL); break;
  case OLG_TYPE_MAP: ok = sub(w, 5, b_type_wrapped, ty, NULL); break;
  default: break;
  }
  if (!ok || (ty->denotation && !f_str(w, 6, ty->denotation))) return false;
  switch (ty->kind) {
  case OLG_TYPE_OPAQUE: return sub(w, 7, b_type_wrapped, ty, NULL);
  case OLG_TYPE_SPARSE_TENSOR: return sub(w, 8, b_type_tensor, ty, NULL);
  case OLG_TYPE_OPTIONAL: return sub(w, 9, b_type_wrapped, ty, NULL);
  default: return true;
  }
}

static bool w_type_field(const olg_pbw *w, uint32_t no, const olg_type *ty) {
  if (type_verbatim(ty)) {
    const olg_pbx *x = ty->extra;
    return f_bytes(w, no, x->type_verbatim.p, x->type_verbatim.n);
  }
  if (!deeper(w, "TypeProto")) return false;
  bool ok = sub(w, no, b_type, ty, NULL);
  w->c->depth--;
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

/* Which field the tensor's data goes to (unloaded external data: E_EXTREF, its reference kept). */
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

static bool b_packed(const olg_pbw *w, const void *obj, const void *aux) {
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
    if (!w->ops->bare_varint(w, v)) return false;
  }
  return true;
}

static bool w_packed(const olg_pbw *w, uint32_t no, const uint8_t *p, size_t nbytes,
                     unsigned width, bool sign, bool as_int32) {
  if (!nbytes) return true;
  packed pk = {p, nbytes, width, sign, as_int32};
  return sub(w, no, b_packed, &pk, NULL);
}

/* v in decimal into buf (at least 21 bytes); by hand, so that this file calls no stdio */
static const char *decimal(char *buf, uint64_t v) {
  char *p = buf + 20;
  *p = 0;
  do *--p = (char)('0' + v % 10);
  while ((v /= 10));
  return p;
}

/* The external_data entries of a tensor just placed in the external data file. */
static bool w_ext_entries(const olg_pbw *w, const olg_tensor *t, uint64_t at) {
  char ob[21], lb[21];
  const char *off = decimal(ob, at), *len = decimal(lb, t->nbytes);
  return sub(w, 13, b_kv_strs, "location", w->c->ext_name) &&
         sub(w, 13, b_kv_strs, "offset", off) && sub(w, 13, b_kv_strs, "length", len);
}

static bool b_tensor(const olg_pbw *w, const void *obj, const void *aux) {
  (void)aux;
  const olg_tensor *t = obj;
  const olg_pbx *x = t->extra;
  rawcur rc = {x, 1};
  const void *now = t->dtype == OLG_STRING ? (const void *)t->strings : t->data;
  bool verb = x && x->n_data_verbatim && now == x->data_snapshot;
  int kind = tensor_field(t);
  bool to_ext = !verb && w->c->ext_on && w->ops->ext_place &&
                (kind == E_RAW || kind == E_FLOAT || kind == E_INT32 || kind == E_INT64 ||
                 kind == E_DOUBLE || kind == E_UINT64) &&
                t->nbytes >= w->c->ext_threshold && (t->data || !t->nbytes);
  uint64_t ext_at = 0;
  if (to_ext && !w->ops->ext_place(w, t, &ext_at)) return false;
  /* the field the data goes to inline; verbatim data replaces only these fields */
  int en = verb || to_ext ? E_NONE : kind;
  const uint8_t *d = t->data;
  bool sign;
  unsigned wd = typed_width(en, t->dtype, &sign);

  for (int32_t i = 0; i < t->rank && t->dims; i++)
    if (!f_varint(w, 1, (uint64_t)t->dims[i])) return false;
  if (t->has_dtype && !f_int32(w, 2, t->dtype)) return false;
  if (!raws_upto(w, &rc, 3)) return false;
  static const uint32_t data_fields[] = {4, 5, 6, 7};
  for (int j = 0; j < 4; j++) {
    uint32_t no = data_fields[j];
    bool ok = raws_upto(w, &rc, no);
    if (!ok) return false;
    if (verb) ok = raws_between(w, x->data_verbatim, x->n_data_verbatim, no, no);
    else if (no == 4 && en == E_FLOAT && t->nbytes)
      ok = f_bytes(w, 4, d, t->nbytes); /* little-endian floats are the packed field already */
    else if (no == 5 && en == E_INT32) ok = w_packed(w, 5, d, t->nbytes, wd, sign, true);
    else if (no == 6 && en == E_STRING)
      for (size_t i = 0; ok && i < t->n_strings && t->strings; i++)
        ok = f_bytes(w, 6, t->strings[i].p, t->strings[i].n);
    else if (no == 7 && en == E_INT64) ok = w_packed(w, 7, d, t->nbytes, 8, false, false);
    if (!ok) return false;
  }
  if (!raws_upto(w, &rc, 8) || (t->name && !f_str(w, 8, t->name))) return false;
  if (!raws_upto(w, &rc, 9)) return false;
  if (verb) {
    if (!raws_between(w, x->data_verbatim, x->n_data_verbatim, 9, 9)) return false;
  } else if (en == E_RAW && !f_bytes(w, 9, d ? (const void *)d : "", d ? t->nbytes : 0)) {
    return false;
  }
  if (!raws_upto(w, &rc, 10)) return false;
  if (verb) {
    if (!raws_between(w, x->data_verbatim, x->n_data_verbatim, 10, 10)) return false;
  } else if (en == E_DOUBLE && t->nbytes && !f_bytes(w, 10, d, t->nbytes)) {
    return false;
  }
  if (!raws_upto(w, &rc, 11)) return false;
  if (verb) {
    if (!raws_between(w, x->data_verbatim, x->n_data_verbatim, 11, 11)) return false;
  } else if (en == E_UINT64 && !w_packed(w, 11, d, t->nbytes, wd, false, false)) {
    return false;
  }
  if (!raws_upto(w, &rc, 12) || (t->doc_string && !f_str(w, 12, t->doc_string))) return false;
  if (!raws_upto(w, &rc, 13)) return false;
  if (to_ext) {
    if (!w_ext_entries(w, t, ext_at)) return false;
  } else if (kind == E_EXTREF && !w_kvs(w, 13, t->external, t->n_external, x)) {
    return false;
  }
  if (!raws_upto(w, &rc, 14)) return false;
  if (to_ext || kind == E_EXTREF) {
    if (!f_varint(w, 14, 1)) return false;
  } else if ((pbx_flags(x) & PBX_LOC_DEFAULT) && !f_varint(w, 14, 0)) {
    return false;
  }
  return raws_rest(w, &rc);
}

static bool w_tensor_field(const olg_pbw *w, uint32_t no, const olg_tensor *t) {
  if (!deeper(w, "TensorProto")) return false;
  bool ok = sub(w, no, b_tensor, t, NULL);
  w->c->depth--;
  return ok;
}

/* ---------------------------------------------------------------------------------------- */
/* Graphs, nodes, attributes */

static bool b_graph(const olg_pbw *w, const void *obj, const void *aux);

static bool w_graph_field(const olg_pbw *w, uint32_t no, const olg_graph *g) {
  return sub(w, no, b_graph, g, NULL);
}

static uint32_t list_count(const olg_attr *a, const olg_pbx *x, int l) {
  if (x && (x->flags & PBX_ATTR_LISTS)) return x->list_n[l];
  return olg__pb_attr_list(a->type) == l ? (uint32_t)a->n : 0;
}

static bool b_attr(const olg_pbw *w, const void *obj, const void *aux) {
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
  if (!((fl & PBX_NO_NAME) && a->name && !*a->name) && !f_str(w, 1, a->name)) return false;
  if (!raws_upto(w, &rc, 2) || (has_f && !f_float(w, 2, &a->f))) return false;
  if (!raws_upto(w, &rc, 3) || (has_i && !f_varint(w, 3, (uint64_t)a->i))) return false;
  if (!raws_upto(w, &rc, 4) ||
      (has_s && !f_bytes(w, 4, a->s.p ? a->s.p : "", a->s.p ? a->s.n : 0)))
    return false;
  if (!raws_upto(w, &rc, 5) || (a->t && !w_tensor_field(w, 5, a->t))) return false;
  if (!raws_upto(w, &rc, 6) || (a->g && !w_graph_field(w, 6, a->g))) return false;
  if (!raws_upto(w, &rc, 7)) return false;
  uint32_t n;
  if ((n = list_count(a, x, PBX_L_FLOATS)) && a->floats)
    for (uint32_t i = 0; i < n; i++)
      if (!f_float(w, 7, &a->floats[i])) return false;
  if (!raws_upto(w, &rc, 8)) return false;
  if ((n = list_count(a, x, PBX_L_INTS)) && a->ints)
    for (uint32_t i = 0; i < n; i++)
      if (!f_varint(w, 8, (uint64_t)a->ints[i])) return false;
  if (!raws_upto(w, &rc, 9)) return false;
  if ((n = list_count(a, x, PBX_L_STRINGS)) && a->strings)
    for (uint32_t i = 0; i < n; i++)
      if (!f_bytes(w, 9, a->strings[i].p ? a->strings[i].p : "", a->strings[i].n)) return false;
  if (!raws_upto(w, &rc, 10)) return false;
  if ((n = list_count(a, x, PBX_L_TENSORS)) && a->tensors)
    for (uint32_t i = 0; i < n; i++)
      if (!w_tensor_field(w, 10, a->tensors[i])) return false;
  if (!raws_upto(w, &rc, 11)) return false;
  if ((n = list_count(a, x, PBX_L_GRAPHS)) && a->graphs)
    for (uint32_t i = 0; i < n; i++)
      if (!w_graph_field(w, 11, a->graphs[i])) return false;
  if (!raws_upto(w, &rc, 13) || (a->doc_string && !f_str(w, 13, a->doc_string))) return false;
  if (!raws_upto(w, &rc, 14) || (a->tp && !w_type_field(w, 14, a->tp))) return false;
  if (!raws_upto(w, &rc, 15)) return false;
  if ((n = list_count(a, x, PBX_L_TPS)) && a->tps)
    for (uint32_t i = 0; i < n; i++)
      if (!w_type_field(w, 15, a->tps[i])) return false;
  if (!raws_upto(w, &rc, 20)) return false;
  if (fl & PBX_ATTR_TYPE_RAW) {
    if (!f_int32(w, 20, (int32_t)x->attr_type)) return false;
  } else if (!(fl & PBX_NO_ATTR_TYPE) && !f_int32(w, 20, a->type)) {
    return false;
  }
  if (!raws_upto(w, &rc, 21) || (a->ref_attr_name && !f_str(w, 21, a->ref_attr_name)))
    return false;
  if (!raws_upto(w, &rc, 22)) return false;
  if (a->sparse) {
    const olg_pb_span *sp = a->sparse;
    if (!f_bytes(w, 22, sp->p, sp->n)) return false;
  }
  if (!raws_upto(w, &rc, 23)) return false;
  if ((n = list_count(a, x, PBX_L_SPARSES)) && a->sparses)
    for (uint32_t i = 0; i < n; i++) {
      const olg_pb_span *sp = a->sparses[i];
      if (!f_bytes(w, 23, sp->p, sp->n)) return false;
    }
  return raws_rest(w, &rc);
}

static const char *value_name(const olg_pbw *w, const olg_graph *g, const olg_node *nd,
                              olg_value v) {
  if (v < 0 || (uint32_t)v >= g->n_values) {
    olg__pbw_fail(w, olg__err(OLG_ERR_INVALID_MODEL, "node '%s' (%s) in graph '%s' refers to "
                              "value id %d, which the graph does not have", nd->name, nd->op,
                              g->name, (int)v));
    return NULL;
  }
  return g->values[v].name;
}

static const char *const arg_kind_name[] = {"none", "value", "values", "int", "float", "bool",
                                            "string", "ints", "floats"};

/* An input or output name: "" for an omitted one; false (failure recorded) for a bad id. */
static bool f_value_name(const olg_pbw *w, uint32_t no, const olg_graph *g, const olg_node *nd,
                         olg_value v) {
  const char *name = v == OLG_NO_VALUE ? "" : value_name(w, g, nd, v);
  return name && f_str(w, no, name);
}

static bool b_node(const olg_pbw *w, const void *obj, const void *aux) {
  const olg_node *nd = obj;
  const olg_graph *g = aux;
  const olg_pbx *x = nd->extra;
  uint32_t fl = pbx_flags(x);
  rawcur rc = {x, 1};
  for (uint32_t i = 0; i < nd->n_args; i++) {
    const olg_arg *a = &nd->args[i];
    bool ok = true;
    if (a->kind == OLG_ARG_NONE) {
      ok = f_str(w, 1, "");
    } else if (a->kind == OLG_ARG_VALUE) {
      const char *name = value_name(w, g, nd, a->u.v);
      ok = name && f_str(w, 1, name);
    } else if (a->kind == OLG_ARG_VALUES) {
      for (size_t j = 0; ok && j < a->u.vals.n; j++)
        ok = f_value_name(w, 1, g, nd, a->u.vals.p[j]);
    } else {
      return olg__pbw_fail(w, olg__err(OLG_ERR_UNSUPPORTED,
                                       "node '%s' (%s%s%s) in graph '%s' has a literal argument "
                                       "#%u (%s): a source-domain node must be lowered to ONNX "
                                       "before it is written",
                                       nd->name, *nd->domain ? nd->domain : "",
                                       *nd->domain ? "::" : "", nd->op, g->name, i,
                                       a->kind <= OLG_ARG_FLOATS ? arg_kind_name[a->kind] : "?"));
    }
    if (!ok) return false;
  }
  if (!raws_upto(w, &rc, 2)) return false;
  for (uint32_t i = 0; i < nd->n_outputs; i++)
    if (!f_value_name(w, 2, g, nd, nd->outputs[i])) return false;
  if (!raws_upto(w, &rc, 3) ||
      (nd->name && (*nd->name || (fl & PBX_NAME_EMPTY)) && !f_str(w, 3, nd->name)))
    return false;
  if (!raws_upto(w, &rc, 4) ||
      (!((fl & PBX_NO_OP_TYPE) && nd->op && !*nd->op) && !f_str(w, 4, nd->op)))
    return false;
  if (!raws_upto(w, &rc, 5)) return false;
  for (uint32_t i = 0; i < nd->n_attrs; i++) {
    if (!deeper(w, "AttributeProto")) return false;
    bool ok = sub(w, 5, b_attr, &nd->attrs[i], NULL);
    w->c->depth--;
    if (!ok) return false;
  }
  if (!raws_upto(w, &rc, 6) || (nd->doc_string && !f_str(w, 6, nd->doc_string))) return false;
  if (!raws_upto(w, &rc, 7) ||
      (nd->domain && (*nd->domain || (fl & PBX_DOMAIN_EMPTY)) && !f_str(w, 7, nd->domain)))
    return false;
  if (!raws_upto(w, &rc, 8) || (nd->overload && !f_str(w, 8, nd->overload))) return false;
  if (!raws_upto(w, &rc, 9) || !w_kvs(w, 9, nd->metadata, nd->n_metadata, x)) return false;
  return raws_rest(w, &rc);
}

static bool b_value_info(const olg_pbw *w, const void *obj, const void *aux) {
  (void)aux;
  const olg_value_rec *r = obj;
  const olg_pbx *x = r->extra;
  uint32_t fl = pbx_flags(x);
  if (!((fl & PBX_NO_NAME) && !*r->name) && !f_str(w, 1, r->name)) return false;
  bool no_type = (fl & PBX_VI_NO_TYPE) && type_unchanged(&r->type, &x->type_snapshot);
  if ((type_verbatim(&r->type) || (r->type.kind != OLG_TYPE_NONE && !no_type)) &&
      !w_type_field(w, 2, &r->type))
    return false;
  if (r->doc_string && !f_str(w, 3, r->doc_string)) return false;
  if (!w_kvs(w, 4, r->metadata, r->n_metadata, x)) return false;
  rawcur rc = {x, 5};
  return raws_rest(w, &rc);
}

/* One ValueInfoProto of list `list` (0 input, 1 output, 2 value_info) at position pos: the
 * kept one while it still names the value, else from the IR. */
static bool w_value_info(const olg_pbw *w, const olg_graph *g, uint32_t no, int list,
                         uint32_t pos, olg_value v) {
  if (v < 0 || (uint32_t)v >= g->n_values)
    return olg__pbw_fail(w, olg__err(OLG_ERR_INVALID_MODEL, "graph '%s' lists value id %d, "
                                     "which it does not have", g->name, (int)v));
  const olg_value_rec *r = &g->values[v];
  const olg_pbx *gx = g->extra;
  if (gx && pos < gx->n_vi_alt[list] && gx->vi_alt[list][pos].vi.p &&
      gx->vi_alt[list][pos].v == v) {
    kept2 k;
    olg_pb_span vi = gx->vi_alt[list][pos].vi;
    if (kept_parse(vi, &k) && same_cstr(r->name, k.str[1], k.len[1]))
      return f_bytes(w, no, vi.p, vi.n);
  }
  return sub(w, no, b_value_info, r, NULL);
}

static bool b_graph(const olg_pbw *w, const void *obj, const void *aux) {
  (void)aux;
  const olg_graph *g = obj;
  if (!deeper(w, "GraphProto")) return false;
  const olg_pbx *x = g->extra;
  uint32_t fl = pbx_flags(x);
  rawcur rc = {x, 1};
  bool ok = true;
  for (uint32_t i = 0; ok && i < g->n_nodes; i++) {
    const olg_node *nd = &g->nodes[i];
    if (nd->state == OLG_NODE_DEAD) continue;
    if (nd->state != OLG_NODE_DONE) {
      ok = olg__pbw_fail(w, olg__err(OLG_ERR_STATE, "node '%s' (%s) in graph '%s' is still open "
                                     "(olg_node_end was not called)", nd->name, nd->op, g->name));
      break;
    }
    if (!(ok = deeper(w, "NodeProto"))) break;
    ok = sub(w, 1, b_node, nd, g);
    w->c->depth--;
  }
  ok = ok && raws_upto(w, &rc, 2) &&
       (!(g->name && (*g->name || (fl & PBX_NAME_EMPTY))) || f_str(w, 2, g->name));
  ok = ok && raws_upto(w, &rc, 5);
  for (uint32_t i = 0; ok && i < g->n_inits; i++) ok = w_tensor_field(w, 5, g->inits[i].t);
  ok = ok && raws_upto(w, &rc, 10) && (!g->doc_string || f_str(w, 10, g->doc_string));
  ok = ok && raws_upto(w, &rc, 11);
  for (uint32_t i = 0; ok && i < g->inputs.n; i++)
    ok = w_value_info(w, g, 11, 0, i, g->inputs.p[i]);
  ok = ok && raws_upto(w, &rc, 12);
  for (uint32_t i = 0; ok && i < g->outputs.n; i++)
    ok = w_value_info(w, g, 12, 1, i, g->outputs.p[i]);
  ok = ok && raws_upto(w, &rc, 13);
  for (uint32_t i = 0; ok && i < g->value_info.n; i++)
    ok = w_value_info(w, g, 13, 2, i, g->value_info.p[i]);
  ok = ok && raws_upto(w, &rc, 16) && w_kvs(w, 16, g->metadata, g->n_metadata, x) &&
       raws_rest(w, &rc);
  w->c->depth--;
  return ok;
}

/* ---------------------------------------------------------------------------------------- */
/* ModelProto */

static bool b_opset(const olg_pbw *w, const void *obj, const void *aux) {
  (void)aux;
  const olg_opset *os = obj;
  return f_str(w, 1, os->domain) && f_varint(w, 2, (uint64_t)os->version);
}

bool olg__pbw_model(const olg_pbw *w, const olg_model *m) {
  const olg_pbx *x = m->extra;
  uint32_t fl = pbx_flags(x);
  rawcur rc = {x, 1};
  w->c->depth = 0;
  if (!((fl & PBX_NO_IR_VERSION) && m->ir_version == 0) &&
      !f_varint(w, 1, (uint64_t)m->ir_version))
    return false;
  if (!raws_upto(w, &rc, 2) ||
      (m->producer_name && (*m->producer_name || (fl & PBX_NAME_EMPTY)) &&
       !f_str(w, 2, m->producer_name)))
    return false;
  if (!raws_upto(w, &rc, 3) ||
      (m->producer_version && (*m->producer_version || (fl & PBX_PVERSION_EMPTY)) &&
       !f_str(w, 3, m->producer_version)))
    return false;
  if (!raws_upto(w, &rc, 4) ||
      (m->domain && (*m->domain || (fl & PBX_DOMAIN_EMPTY)) && !f_str(w, 4, m->domain)))
    return false;
  if (!raws_upto(w, &rc, 5) ||
      (m->has_model_version && !f_varint(w, 5, (uint64_t)m->model_version)))
    return false;
  if (!raws_upto(w, &rc, 6) ||
      (m->doc_string && (*m->doc_string || (fl & PBX_DOC_EMPTY)) && !f_str(w, 6, m->doc_string)))
    return false;
  if (!raws_upto(w, &rc, 7) || (m->graph && !w_graph_field(w, 7, m->graph))) return false;
  if (!raws_upto(w, &rc, 8)) return false;
  for (uint32_t i = 0; i < m->n_opsets; i++) {
    const olg_opset *os = &m->opsets[i];
    bool ok;
    if (x && i < x->n_opset_verbatim && x->opset_verbatim[i].p &&
        opset_still(x->opset_verbatim[i], os))
      ok = f_bytes(w, 8, x->opset_verbatim[i].p, x->opset_verbatim[i].n);
    else
      ok = sub(w, 8, b_opset, os, NULL);
    if (!ok) return false;
  }
  if (!raws_upto(w, &rc, 14) || !w_kvs(w, 14, m->metadata, m->n_metadata, x)) return false;
  return raws_rest(w, &rc);
}
