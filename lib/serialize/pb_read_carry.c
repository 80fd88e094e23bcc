/* onnxlegal — what a conversion carries of what the reader kept whole (pb.h's raw fields and
 * verbatim entries): a doc string or metadata entry holding a NUL (the model's, a graph's, a
 * node's, a value's), a graph's quantization annotations. The copies live in the target model. */
#include <string.h>

#include "pb_read.h"

static const uint8_t *arena_bytes(olg_model *m, olg_pb_span b) {
  uint8_t *q = olg__arena_alloc(m, b.n ? b.n : 1);
  if (q && b.n) memcpy(q, b.p, b.n);
  return q;
}

/* sx's raw fields which[0..n) (indices; which NULL: every known one numbered no), their bytes
 * copied into m, appended to *slot's (m's own, made if NULL). The array is copied once: a graph
 * may carry an annotation per tensor, a hostile file repeat a field. */
static olg_status copy_raws(olg_model *m, const olg_pbx *sx, uint32_t no, const uint32_t *which,
                            uint32_t n, const void **slot) {
  for (uint32_t i = 0; !which && sx && i < sx->n_raw; i++)
    n += !sx->raw[i].unknown && sx->raw[i].field == no;
  if (!n || !sx) return OLG_OK;
  olg_pbx *x = (olg_pbx *)*slot;
  if (!x && !(*slot = x = olg__arena_alloc(m, sizeof *x))) return OLG_ERR_NOMEM;
  olg_pb_raw *q = olg__arena_alloc(m, ((size_t)x->n_raw + n) * sizeof *q);
  if (!q) return OLG_ERR_NOMEM;
  if (x->n_raw) memcpy(q, x->raw, (size_t)x->n_raw * sizeof *q);
  x->raw = q;
  for (uint32_t i = 0; i < (which ? n : sx->n_raw); i++) {
    const olg_pb_raw *f = &sx->raw[which ? which[i] : i];
    if (!which && (f->unknown || f->field != no)) continue;
    const uint8_t *b = arena_bytes(m, f->bytes);
    if (!b) return OLG_ERR_NOMEM;
    q[x->n_raw++] = (olg_pb_raw){f->field, false, {b, f->bytes.n}};
  }
  return OLG_OK;
}

/* sx's verbatim metadata entries, their bytes copied into m, as those of *slot's from index at
 * (the entries before it written from the IR). */
static olg_status copy_kvs(olg_model *m, const olg_pbx *sx, uint32_t at, const void **slot) {
  if (!sx || !sx->kv_verbatim) return OLG_OK;
  olg_pbx *x = (olg_pbx *)*slot;
  if (!x && !(*slot = x = olg__arena_alloc(m, sizeof *x))) return OLG_ERR_NOMEM;
  if (x->kv_verbatim) return OLG_OK; /* the slot's own entries kept whole: not mixed */
  size_t n = (size_t)at + sx->n_kv_verbatim;
  olg_pb_span *v = olg__arena_alloc(m, n * sizeof *v);
  if (!v) return OLG_ERR_NOMEM;
  for (uint32_t i = 0; i < sx->n_kv_verbatim; i++) {
    if (!sx->kv_verbatim[i].p) continue; /* written from the IR */
    if (!(v[at + i].p = arena_bytes(m, sx->kv_verbatim[i]))) return OLG_ERR_NOMEM;
    v[at + i].n = sx->kv_verbatim[i].n;
  }
  x->kv_verbatim = v;
  x->n_kv_verbatim = (uint32_t)n;
  return OLG_OK;
}

#ifndef OLG_CONFIG_NO_LEGALIZE /* the lowering's alone: the minimal configuration's 64 KiB */
olg_status olg__pbr_copy_more(olg_model *m, const void *src_extra, uint32_t doc_no,
                              const void **slot) {
  olg_status s = copy_raws(m, src_extra, doc_no, NULL, 0, slot);
  return s ? s : copy_kvs(m, src_extra, 0, slot);
}
#endif

olg_status olg__pbr_copy_about(olg_model *dst, const olg_model *src, uint32_t meta_at) {
  olg_status s;
  if ((s = copy_raws(dst, src->extra, 4, NULL, 0, &dst->extra))) return s; /* the domain */
  return copy_kvs(dst, src->extra, meta_at, &dst->extra);
}

#ifndef OLG_CONFIG_NO_LEGALIZE /* the lowering's alone: the minimal configuration's 64 KiB */
/* A varint at *p before end (false: it runs past end or 10 bytes). */
static bool get_varint(const uint8_t **p, const uint8_t *end, uint64_t *v) {
  uint64_t x = 0;
  for (int sh = 0; *p < end && sh < 70; sh += 7) {
    uint8_t b = *(*p)++;
    x |= (uint64_t)(b & 0x7f) << sh;
    if (!(b & 0x80)) {
      *v = x;
      return true;
    }
  }
  return false;
}

/* The next field of the message at *p before end: its number, and a length-delimited one's
 * payload in *len (others: n 0). false at the end and on bytes that do not parse (the reader
 * checked these, so a walk that meets them stops). */
static bool next_field(const uint8_t **p, const uint8_t *end, uint64_t *no, olg_pb_span *len) {
  uint64_t tag, n;
  if (*p >= end || !get_varint(p, end, &tag)) return false;
  *no = tag >> 3;
  *len = (olg_pb_span){NULL, 0};
  switch (tag & 7) {
  case 0: return get_varint(p, end, &n);
  case 1: if (end - *p < 8) return false; *p += 8; return true;
  case 5: if (end - *p < 4) return false; *p += 4; return true;
  case 2:
    if (!get_varint(p, end, &n) || n > (uint64_t)(end - *p)) return false;
    *len = (olg_pb_span){*p, (size_t)n};
    *p += n;
    return true;
  default: return false;
  }
}

uint32_t olg__pbr_n_raw(const void *extra) { return extra ? ((const olg_pbx *)extra)->n_raw : 0; }

uint32_t olg__pbr_count_raw(const void *extra, uint32_t no, uint32_t *first) {
  const olg_pbx *x = extra;
  uint32_t n = 0;
  for (uint32_t i = 0; x && i < x->n_raw; i++)
    if (no ? !x->raw[i].unknown && x->raw[i].field == no : x->raw[i].unknown)
      if (!n++ && first) *first = x->raw[i].field;
  return n;
}

olg_status olg__pbr_annotation(olg_model *m, const void *extra, uint32_t k, olg_bytes **names,
                               uint32_t *n_names) {
  *names = NULL;
  *n_names = 0;
  const olg_pbx *x = extra;
  if (!x || k >= x->n_raw || x->raw[k].unknown || x->raw[k].field != 14) return OLG_OK;
  /* the raw field is whole, its tag included: the TensorAnnotation is its payload */
  const uint8_t *p = x->raw[k].bytes.p, *end = p + x->raw[k].bytes.n;
  uint64_t no;
  olg_pb_span f, whole;
  if (!next_field(&p, end, &no, &whole) || !whole.p) return OLG_OK;
  end = whole.p + whole.n;
  size_t n = 1; /* the tensor's name, then one per parameter */
  for (p = whole.p; next_field(&p, end, &no, &f);) n += no == 2 && f.p;
  olg_bytes *v = olg__arena_alloc(m, n * sizeof *v);
  if (!v) return OLG_ERR_NOMEM;
  v[0] = (olg_bytes){"", 0}; /* tensor_name left out: "", which names nothing */
  uint32_t c = 1;
  for (p = whole.p; next_field(&p, end, &no, &f);) {
    if (no == 1 && f.p) v[0] = (olg_bytes){(const char *)f.p, f.n}; /* the last one counts */
    if (no != 2 || !f.p) continue;
    /* quant_parameter_tensor_names: StringStringEntryProto, its value (2) a tensor's name */
    olg_bytes val = {"", 0};
    const uint8_t *q = f.p, *qe = f.p + f.n;
    uint64_t eno;
    olg_pb_span e;
    while (next_field(&q, qe, &eno, &e))
      if (eno == 2 && e.p) val = (olg_bytes){(const char *)e.p, e.n};
    v[c++] = val;
  }
  *names = v;
  *n_names = c;
  return OLG_OK;
}

olg_status olg__pbr_carry_raws(olg_model *m, const void *extra, const uint32_t *which, uint32_t n,
                               const void **slot) {
  return n ? copy_raws(m, extra, 0, which, n, slot) : OLG_OK;
}
#endif
