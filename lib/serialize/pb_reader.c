/* onnxlegal — the protobuf reader: the ONNX wire format decoded straight into the IR.
 *
 * The input is mapped (or borrowed) and never copied: raw_data, string_data, attribute bytes and
 * every kept raw field point into it (tensor data of multi-byte types on a big-endian host
 * excepted: it is copied in the host's byte order, see ir.h). Small strings (names, op types) are copied into the model's
 * arena, because the IR wants them NUL-terminated.
 *
 * The field tables generated from onnx.proto (pb_schema.c, by tools/gen_pb_schema.py) say which
 * fields a message has and the wire type each takes: every field is checked against them, unknown fields are kept (see pb.h), and the
 * parts the IR does not interpret (functions, training info, sparse tensors...) are walked
 * generically, so malformed bytes are refused wherever they are. Errors name the message, the
 * field and the byte offset. Recursion is bounded by OLG_PB_MAX_DEPTH. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pb_read.h"
#include "graph_impl.h" /* olg__g_namemap_free */

const uint8_t olg__pbr_empty_input[1];

/* ---------------------------------------------------------------------------------------- */
/* Errors */

size_t olg__pbr_off(const rd *r, const uint8_t *at) { return (size_t)(at - r->base); }

olg_status olg__pbr_perr(rd *r, const uint8_t *at, const char *fmt, ...) OLG_PRINTF(3, 4);
olg_status olg__pbr_perr(rd *r, const uint8_t *at, const char *fmt, ...) {
  char msg[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return olg__err(OLG_ERR_PARSE, "byte %zu: %s", olg__pbr_off(r, at), msg);
}

static const char *nn(const char *s) { return s ? s : ""; }

/* "attribute 'a' of node 'n' (Op) in graph 'g'", "node 'n' (Op) in graph 'g'" or
 * "graph 'g'": olg__pbr_where the reader is. A node without a name is "node #3" (its place in the
 * graph, from 0). */
const char *olg__pbr_where(const rd *r, char *buf, size_t cap) {
  char node[300];
  if (r->at.node && *r->at.node)
    snprintf(node, sizeof node, "node '%s' (%s)", r->at.node, nn(r->at.op));
  else
    snprintf(node, sizeof node, "node #%u (%s)", (unsigned)r->at.node_index, nn(r->at.op));
  if (r->at.attr)
    snprintf(buf, cap, "attribute '%s' of %s in graph '%s'", r->at.attr, node, nn(r->at.graph));
  else if (r->at.node)
    snprintf(buf, cap, "%s in graph '%s'", node, nn(r->at.graph));
  else
    snprintf(buf, cap, "graph '%s'", nn(r->at.graph));
  return buf;
}

/* The tensor being read, named for a message: "initializer 'w' of graph 'g'", or "tensor 't'
 * of attribute 'value' of node 'n' (Constant) in graph 'g'". */
const char *olg__pbr_twhere(const rd *r, const char *tname, char *buf, size_t cap) {
  char w[600];
  if (r->at.attr || r->at.node)
    snprintf(buf, cap, "tensor%s%s%s of %s", *tname ? " '" : "", tname, *tname ? "'" : "",
             olg__pbr_where(r, w, sizeof w));
  else
    snprintf(buf, cap, "initializer '%s' of graph '%s'", tname, nn(r->at.graph));
  return buf;
}

olg_status olg__pbr_nul_name(rd *r, const uint8_t *p, size_t n, const char *what,
                             const char *where) {
  const uint8_t *z = memchr(p, 0, n);
  if (!z) return OLG_OK;
  char w[700];
  size_t k = (size_t)(z - p);
  return olg__err(OLG_ERR_UNSUPPORTED, "byte %zu: %s: %s '%.*s%s' holds a NUL byte (byte %zu of "
                  "its %zu): names, op types and domains with NUL bytes are not supported",
                  olg__pbr_off(r, z), where ? where : olg__pbr_where(r, w, sizeof w), what,
                  (int)(k < 200 ? k : 200), (const char *)p, k < 200 ? "" : "...", k, n);
}

static const char *fname(msgdesc *md, uint32_t no) {
  const olg_pb_field *fd = olg__pb_field(md, no);
  return fd ? fd->name : "?";
}

olg_status olg__pbr_enter(rd *r, const uint8_t *at, msgdesc *md) {
  if (++r->depth > OLG_PB_MAX_DEPTH)
    return olg__err(OLG_ERR_LIMIT, "byte %zu: %s nested deeper than %d messages", olg__pbr_off(r, at),
                    md->short_name, OLG_PB_MAX_DEPTH);
  return OLG_OK;
}

/* ---------------------------------------------------------------------------------------- */
/* Wire primitives */

static olg_status read_varint(rd *r, const uint8_t **pp, const uint8_t *end, uint64_t *out,
                              msgdesc *md, uint32_t no) {
  const uint8_t *p = *pp;
  uint64_t v = 0;
  for (unsigned i = 0; i < 10; i++) {
    if (p >= end)
      return olg__pbr_perr(r, *pp, "%s.%s: varint truncated by the end of the %s", md->short_name,
                  no ? fname(md, no) : "(tag)", r->depth > 1 ? "message" : "input");
    uint8_t b = *p++;
    v |= (uint64_t)(b & 0x7f) << (7 * i);
    if (!(b & 0x80)) {
      *pp = p;
      *out = v;
      return OLG_OK;
    }
  }
  return olg__pbr_perr(r, *pp, "%s.%s: varint longer than 10 bytes", md->short_name,
              no ? fname(md, no) : "(tag)");
}

static olg_status skip_group(rd *r, const uint8_t **pp, const uint8_t *end, uint32_t no,
                             msgdesc *md) {
  olg_status s = olg__pbr_enter(r, *pp, md);
  if (s) return s;
  const uint8_t *p = *pp;
  for (;;) {
    if (p >= end) return olg__pbr_perr(r, *pp, "%s: group %u is not closed", md->short_name, no);
    const uint8_t *at = p;
    uint64_t tag, v;
    if ((s = read_varint(r, &p, end, &tag, md, 0))) return s;
    uint32_t fno = (uint32_t)(tag >> 3);
    switch (tag & 7) {
    case PB_VARINT:
      if ((s = read_varint(r, &p, end, &v, md, 0))) return s;
      break;
    case PB_I64:
      if (end - p < 8) return olg__pbr_perr(r, at, "%s: fixed64 truncated in group %u", md->short_name, no);
      p += 8;
      break;
    case PB_I32:
      if (end - p < 4) return olg__pbr_perr(r, at, "%s: fixed32 truncated in group %u", md->short_name, no);
      p += 4;
      break;
    case PB_LEN:
      if ((s = read_varint(r, &p, end, &v, md, 0))) return s;
      if (v > (uint64_t)(end - p))
        return olg__pbr_perr(r, at, "%s: length %llu past the end in group %u", md->short_name,
                    (unsigned long long)v, no);
      p += v;
      break;
    case PB_SGROUP:
      if ((s = skip_group(r, &p, end, fno, md))) return s;
      break;
    case PB_EGROUP:
      if (fno != no)
        return olg__pbr_perr(r, at, "%s: group %u closed as group %u", md->short_name, no, fno);
      *pp = p;
      r->depth--;
      return OLG_OK;
    default:
      return olg__pbr_perr(r, at, "%s: unknown wire type %u", md->short_name, (unsigned)(tag & 7));
    }
  }
}

static const char *wt_name(int wt) {
  static const char *const names[] = {"varint", "fixed64", "length-delimited", "start-group",
                                      "end-group", "fixed32", "6 (invalid)", "7 (invalid)"};
  return names[wt & 7];
}

/* Reads the next field of a message of type md from [*cur, end), checking its wire type against
 * the schema. */
olg_status olg__pbr_next_field(rd *r, const uint8_t **cur, const uint8_t *end, msgdesc *md,
                             pbf *f) {
  const uint8_t *p = *cur;
  uint64_t tag;
  olg_status s;
  /* tags and lengths of a node-dense model are mostly one byte: read inline */
  if (p < end && *p < 0x80) tag = *p++;
  else if ((s = read_varint(r, &p, end, &tag, md, 0))) return s;
  if ((tag >> 3) == 0 || (tag >> 3) > 0x1fffffff)
    return olg__pbr_perr(r, *cur, "%s: invalid field number %llu", md->short_name,
                (unsigned long long)(tag >> 3));
  f->no = (uint32_t)(tag >> 3);
  f->wt = (uint8_t)(tag & 7);
  f->start = *cur;
  f->fd = olg__pb_field(md, f->no);
  f->p = NULL;
  f->n = 0;
  f->v = 0;
  if (f->fd) {
    int want = f->fd->wt;
    bool packable = f->fd->repeated && want != PB_LEN;
    if (f->wt != want && !(packable && f->wt == PB_LEN))
      return olg__pbr_perr(r, *cur, "%s.%s (field %u): wire type %s, expected %s", md->short_name,
                  f->fd->name, f->no, wt_name(f->wt), wt_name(want));
  }
  switch (f->wt) {
  case PB_VARINT:
    if ((s = read_varint(r, &p, end, &f->v, md, f->no))) return s;
    break;
  case PB_I64:
    if (end - p < 8)
      return olg__pbr_perr(r, *cur, "%s.%s: fixed64 truncated", md->short_name, fname(md, f->no));
    for (int i = 7; i >= 0; i--) f->v = (f->v << 8) | p[i];
    p += 8;
    break;
  case PB_I32:
    if (end - p < 4)
      return olg__pbr_perr(r, *cur, "%s.%s: fixed32 truncated", md->short_name, fname(md, f->no));
    f->v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    p += 4;
    break;
  case PB_LEN: {
    uint64_t n;
    if (p < end && *p < 0x80) n = *p++;
    else if ((s = read_varint(r, &p, end, &n, md, f->no))) return s;
    if (n > (uint64_t)(end - p))
      return olg__pbr_perr(r, *cur, "%s.%s (field %u): length %llu past the end (%zu bytes left)",
                  md->short_name, fname(md, f->no), f->no, (unsigned long long)n,
                  (size_t)(end - p));
    f->p = p;
    f->n = (size_t)n;
    p += n;
    break;
  }
  case PB_SGROUP:
    if ((s = skip_group(r, &p, end, f->no, md))) return s;
    break;
  case PB_EGROUP:
    return olg__pbr_perr(r, *cur, "%s: end-group (field %u) without a group", md->short_name, f->no);
  default:
    return olg__pbr_perr(r, *cur, "%s: field %u has unknown wire type %u", md->short_name, f->no,
                (unsigned)f->wt);
  }
  f->end = p;
  *cur = p;
  return OLG_OK;
}

/* Elements of a repeated numeric field in one occurrence (packed or not). */
olg_status olg__pbr_rep_count(rd *r, msgdesc *md, const pbf *f, size_t *count) {
  if (f->wt != PB_LEN) {
    (*count)++;
    return OLG_OK;
  }
  int wt = f->fd->wt;
  if (wt == PB_I32 || wt == PB_I64) {
    size_t w = wt == PB_I32 ? 4 : 8;
    if (f->n % w)
      return olg__pbr_perr(r, f->start, "%s.%s: packed length %zu is not a multiple of %zu",
                  md->short_name, f->fd->name, f->n, w);
    *count += f->n / w;
    return OLG_OK;
  }
  size_t c = 0;
  unsigned len = 0;
  for (size_t i = 0; i < f->n; i++) {
    if (f->p[i] & 0x80) {
      if (++len >= 10)
        return olg__pbr_perr(r, f->p + i, "%s.%s: packed varint longer than 10 bytes", md->short_name,
                    f->fd->name);
    } else {
      c++;
      len = 0;
    }
  }
  if (len) return olg__pbr_perr(r, f->p + f->n, "%s.%s: packed varint truncated", md->short_name, f->fd->name);
  *count += c;
  return OLG_OK;
}

/* Decodes the varints of a packed payload (already checked by olg__pbr_rep_count). */
static size_t unpack_varints(const uint8_t *p, size_t n, uint64_t *out) {
  size_t k = 0;
  uint64_t v = 0;
  unsigned sh = 0;
  for (size_t i = 0; i < n; i++) {
    v |= (uint64_t)(p[i] & 0x7f) << sh;
    if (p[i] & 0x80) {
      sh += 7;
    } else {
      out[k++] = v;
      v = 0;
      sh = 0;
    }
  }
  return k;
}

static uint64_t le_load(const uint8_t *p, unsigned w) {
  uint64_t v = 0;
  for (unsigned i = w; i-- > 0;) v = (v << 8) | p[i];
  return v;
}

/* Every element of repeated numeric field `no` of the message [p, end), in order, as uint64
 * (varints as decoded, fixed32/64 as their bits). out holds count elements. */
olg_status olg__pbr_rep_fill(rd *r, const uint8_t *p, const uint8_t *end, msgdesc *md, uint32_t no,
                           size_t count, uint64_t *out) {
  size_t k = 0;
  pbf f;
  while (p < end) {
    olg_status s = olg__pbr_next(r, &p, end, md, &f);
    if (s) return s;
    if (f.no != no) continue;
    if (f.wt != PB_LEN) {
      if (k < count) out[k] = f.v;
      k++;
      continue;
    }
    int wt = f.fd->wt;
    if (wt == PB_VARINT) {
      size_t c = 0;
      if ((s = olg__pbr_rep_count(r, md, &f, &c))) return s;
      if (k + c > count) return olg__pbr_perr(r, f.start, "%s.%s: count changed", md->short_name, f.fd->name);
      unpack_varints(f.p, f.n, out + k);
      k += c;
    } else {
      unsigned w = wt == PB_I32 ? 4 : 8;
      for (size_t i = 0; i + w <= f.n; i += w) {
        if (k < count) out[k] = le_load(f.p + i, w);
        k++;
      }
    }
  }
  if (k != count) return olg__err(OLG_ERR_PARSE, "%s.%s: inconsistent element count", md->short_name, fname(md, no));
  return OLG_OK;
}

/* ---------------------------------------------------------------------------------------- */
/* Allocation helpers */

void *olg__pbr_aalloc(rd *r, size_t count, size_t size) {
  uint64_t n;
  if (!olg__mul_u64(count, size, &n) || n > SIZE_MAX / 2) {
    olg__err(OLG_ERR_LIMIT, "allocation of %zu x %zu bytes overflows", count, size);
    return NULL;
  }
  return olg__arena_alloc(r->m, (size_t)n);
}

/* An arena copy of a string field. *lossy is set when it holds a NUL (the IR's C string ends
 * there). */
const char *olg__pbr_sdup(rd *r, const pbf *f, bool *lossy) {
  if (lossy && memchr(f->p, 0, f->n)) *lossy = true;
  return olg__strndup(r->m, (const char *)f->p, f->n);
}

/* A free-text string field (a doc string, the producer's name and version, the model's domain)
 * into *out: an arena copy, or, where it holds a NUL (the IR's C string would end there, and a
 * written model would lose the rest), NULL with the field kept verbatim among slot's raw fields,
 * which the writer puts back at its number's place. A text set later through the API is
 * written after it, and so wins, as the later of two singular fields does. */
olg_status olg__pbr_text(rd *r, const void **slot, const pbf *f, const char **out) {
  if (f->n && memchr(f->p, 0, f->n)) {
    *out = NULL;
    return olg__pbr_keep_raw(r, slot, f);
  }
  return (*out = olg__strndup(r->m, (const char *)f->p, f->n)) ? OLG_OK : OLG_ERR_NOMEM;
}

/* olg__pbr_intern's copy of bytes not in its slot h. */
const char *olg__pbr_intern_new(rd *r, const pbf *f, uint32_t h) {
  const char *q;
  /* (past 4 GiB a copy that is not kept: the slot's length could not say it) */
  if (f->n > UINT32_MAX) return olg__strndup(r->m, (const char *)f->p, f->n);
  if (!(q = olg__strndup(r->m, (const char *)f->p, f->n))) return NULL;
  r->interned[h] = q;
  r->interned_n[h] = (uint32_t)f->n;
  return q;
}

/* A NUL-terminated copy in the scratch buffer (valid until the next call). */
const char *olg__pbr_cname(rd *r, const uint8_t *p, size_t n) {
  if (n + 1 > r->scratch_cap) {
    size_t cap = r->scratch_cap ? r->scratch_cap : 256;
    while (cap < n + 1) cap *= 2;
    char *q = olg__realloc(&r->m->alloc, r->scratch, r->scratch_cap, cap);
    if (!q) return NULL;
    r->scratch = q;
    r->scratch_cap = cap;
  }
  if (n) memcpy(r->scratch, p, n);
  r->scratch[n] = 0;
  return r->scratch;
}

olg_pbx *olg__pbr_pbx(rd *r, const void **slot) {
  if (!*slot) *slot = olg__arena_alloc(r->m, sizeof(olg_pbx));
  return (olg_pbx *)*slot;
}

olg_status olg__pbr_set_flag(rd *r, const void **slot, uint32_t flag) {
  olg_pbx *x = olg__pbr_pbx(r, slot);
  if (!x) return OLG_ERR_NOMEM;
  x->flags |= flag;
  return OLG_OK;
}

/* Appends to an arena array whose capacity is implied by its length (powers of two). */
olg_status olg__pbr_push_raw(rd *r, olg_pb_raw **arr, uint32_t *n, const pbf *f) {
  if (*n == UINT32_MAX / 2) return olg__err(OLG_ERR_LIMIT, "too many raw fields");
  if ((*n & (*n - 1)) == 0) {
    uint32_t cap = *n ? *n * 2 : 2;
    olg_pb_raw *q = olg__pbr_aalloc(r, cap, sizeof *q);
    if (!q) return OLG_ERR_NOMEM;
    if (*n) memcpy(q, *arr, (size_t)*n * sizeof *q);
    *arr = q;
  }
  (*arr)[(*n)++] = (olg_pb_raw){f->no, f->fd == NULL, {f->start, (size_t)(f->end - f->start)}};
  return OLG_OK;
}

olg_status olg__pbr_keep_raw(rd *r, const void **slot, const pbf *f) {
  olg_pbx *x = olg__pbr_pbx(r, slot);
  if (!x) return OLG_ERR_NOMEM;
  return olg__pbr_push_raw(r, &x->raw, &x->n_raw, f);
}

/* ---------------------------------------------------------------------------------------- */
/* Generic validation of the parts kept uninterpreted */

olg_status olg__pbr_validate_msg(rd *r, const uint8_t *p, size_t n, msgdesc *md) {
  olg_status s = olg__pbr_enter(r, p, md);
  if (s) return s;
  const uint8_t *end = p + n;
  pbf f;
  while (p < end) {
    if ((s = olg__pbr_next(r, &p, end, md, &f))) return s;
    if (!f.fd || f.wt != PB_LEN) continue;
    if (f.fd->msg) {
      if ((s = olg__pbr_validate_msg(r, f.p, f.n, f.fd->msg))) return s;
    } else if (f.fd->wt != PB_LEN) {
      size_t c = 0;
      if ((s = olg__pbr_rep_count(r, md, &f, &c))) return s;
    }
  }
  r->depth--;
  return OLG_OK;
}

olg_status olg__pbr_keep_validated(rd *r, const void **slot, const pbf *f) {
  olg_status s = olg__pbr_validate_msg(r, f->p, f->n, f->fd->msg);
  return s ? s : olg__pbr_keep_raw(r, slot, f);
}

/* ---------------------------------------------------------------------------------------- */
/* StringStringEntryProto and OperatorSetIdProto */

/* *exact is cleared when the IR's C strings cannot hold the entry as it is. */
static olg_status rd_kv(rd *r, const pbf *fe, olg_kv *kv, bool *exact) {
  msgdesc *md = DESC(string_string_entry_proto);
  olg_status s = olg__pbr_enter(r, fe->p, md);
  if (s) return s;
  const uint8_t *p = fe->p, *end = p + fe->n;
  bool has_k = false, has_v = false, lossy = false;
  kv->key = kv->value = "";
  pbf f;
  while (p < end) {
    if ((s = olg__pbr_next(r, &p, end, md, &f))) return s;
    if (f.no == 1 || f.no == 2) {
      const char *str = olg__pbr_sdup(r, &f, &lossy);
      if (!str) return OLG_ERR_NOMEM;
      if (f.no == 1) { kv->key = str; has_k = true; }
      else { kv->value = str; has_v = true; }
    } else {
      lossy = true; /* an unknown field */
    }
  }
  *exact = has_k && has_v && !lossy;
  r->depth--;
  return OLG_OK;
}

/* Decodes the `count` entries of repeated field `no` of message [p, end) into an arena array;
 * entries the IR cannot hold exactly are kept verbatim in the owner's extra. */
olg_status olg__pbr_rd_kvs(rd *r, const uint8_t *p, const uint8_t *end, msgdesc *md, uint32_t no,
                         size_t count, olg_kv *kv, const void **slot) {
  size_t i = 0;
  pbf f;
  while (p < end && i < count) {
    olg_status s = olg__pbr_next(r, &p, end, md, &f);
    if (s) return s;
    if (f.no != no) continue;
    bool exact;
    if ((s = rd_kv(r, &f, &kv[i], &exact))) return s;
    if (!exact) {
      olg_pbx *x = olg__pbr_pbx(r, slot);
      if (!x) return OLG_ERR_NOMEM;
      if (!x->kv_verbatim) {
        x->kv_verbatim = olg__pbr_aalloc(r, count, sizeof *x->kv_verbatim);
        if (!x->kv_verbatim) return OLG_ERR_NOMEM;
        x->n_kv_verbatim = (uint32_t)count;
      }
      x->kv_verbatim[i] = (olg_pb_span){f.p, f.n};
    }
    i++;
  }
  return OLG_OK;
}

olg_status olg__pbr_rd_opset(rd *r, const pbf *fe, olg_opset *os, bool *exact) {
  msgdesc *md = DESC(operator_set_id_proto);
  olg_status s = olg__pbr_enter(r, fe->p, md);
  if (s) return s;
  const uint8_t *p = fe->p, *end = p + fe->n;
  bool has_d = false, has_v = false, lossy = false;
  os->domain = "";
  os->version = 0;
  pbf f;
  while (p < end) {
    if ((s = olg__pbr_next(r, &p, end, md, &f))) return s;
    if (f.no == 1) {
      if ((s = olg__pbr_nul_name(r, f.p, f.n, "opset_import domain", "OperatorSetIdProto")))
        return s;
      if (!(os->domain = olg__pbr_sdup(r, &f, &lossy))) return OLG_ERR_NOMEM;
      has_d = true;
    } else if (f.no == 2) {
      os->version = (int64_t)f.v;
      has_v = true;
    } else {
      lossy = true;
    }
  }
  *exact = has_d && has_v && !lossy;
  r->depth--;
  return OLG_OK;
}

/* ---------------------------------------------------------------------------------------- */
/* ModelProto */

static olg_status rd_model(rd *r) {
  msgdesc *md = DESC(model_proto);
  olg_model *m = r->m;
  const uint8_t *p = r->base, *end = r->base + r->size;
  size_t n_opset = 0, n_meta = 0, n_func = 0;
  bool has_ir = false, has_graph = false;
  pbf f, fg = {0};
  olg_status s;
  r->depth = 0;
  while (p < end) {
    if ((s = olg__pbr_next(r, &p, end, md, &f))) return s;
    switch (f.no) {
    case 1: m->ir_version = (int64_t)f.v; has_ir = true; break;
    case 2: case 3: case 4: case 6: {
      static const uint32_t empty_flag[7] = {0, 0, PBX_NAME_EMPTY, PBX_PVERSION_EMPTY,
                                             PBX_DOMAIN_EMPTY, 0, PBX_DOC_EMPTY};
      const char *str;
      if (f.no == 6) { /* the doc whole (a conversion carries it), NULs and all */
        str = olg__strndup(m, (const char *)f.p, f.n);
        if (!str) return OLG_ERR_NOMEM;
        m->doc_len = f.n && memchr(f.p, 0, f.n) ? f.n : 0;
      } else if ((s = olg__pbr_text(r, &m->extra, &f, &str))) {
        return s;
      } else if (!str) {
        str = ""; /* kept verbatim: the model's strings are never NULL */
      }
      if (f.no == 2) m->producer_name = str;
      else if (f.no == 3) m->producer_version = str;
      else if (f.no == 4) m->domain = str;
      else m->doc_string = str;
      if (!f.n && (s = olg__pbr_set_flag(r, &m->extra, empty_flag[f.no]))) return s;
      break;
    }
    case 5: m->model_version = (int64_t)f.v; m->has_model_version = true; break;
    case 7:
      if (has_graph) return olg__pbr_dup_singular(r, &f, md);
      fg = f;
      has_graph = true;
      break;
    case 8: n_opset++; break;
    case 14: n_meta++; break;
    case 25: n_func++; break;
    case 20: case 26: if ((s = olg__pbr_keep_validated(r, &m->extra, &f))) return s; break;
    default: if ((s = olg__pbr_keep_raw(r, &m->extra, &f))) return s;
    }
  }
  if (!has_graph)
    return olg__pbr_perr(r, end, "ModelProto has no graph (field 7)%s",
                r->size ? "" : ": the input is empty");
  if (!has_ir) {
    m->ir_version = 0;
    if ((s = olg__pbr_set_flag(r, &m->extra, PBX_NO_IR_VERSION))) return s;
  }
  if (n_opset) {
    if (n_opset > UINT32_MAX / 2) return olg__pbr_perr(r, r->base, "ModelProto: too many opset imports");
    if ((s = olg__grow(&m->alloc, (void **)&m->opsets, &m->cap_opsets, n_opset, sizeof *m->opsets)))
      return s;
    for (p = r->base; p < end;) {
      if ((s = olg__pbr_next(r, &p, end, md, &f))) return s;
      if (f.no != 8) continue;
      bool exact;
      uint32_t i = m->n_opsets;
      if ((s = olg__pbr_rd_opset(r, &f, &m->opsets[i], &exact))) return s;
      m->n_opsets++;
      if (!exact) {
        olg_pbx *x = olg__pbr_pbx(r, &m->extra);
        if (!x) return OLG_ERR_NOMEM;
        if (!x->opset_verbatim) {
          if (!(x->opset_verbatim = olg__pbr_aalloc(r, n_opset, sizeof *x->opset_verbatim)))
            return OLG_ERR_NOMEM;
          x->n_opset_verbatim = (uint32_t)n_opset;
        }
        x->opset_verbatim[i] = (olg_pb_span){f.p, f.n};
      }
    }
  }
  if (n_meta) {
    if (n_meta > UINT32_MAX / 2) return olg__pbr_perr(r, r->base, "ModelProto: too many metadata entries");
    if ((s = olg__grow(&m->alloc, (void **)&m->metadata, &m->cap_metadata, n_meta,
                       sizeof *m->metadata)))
      return s;
    if ((s = olg__pbr_rd_kvs(r, r->base, end, md, 14, n_meta, m->metadata, &m->extra))) return s;
    m->n_metadata = (uint32_t)n_meta;
  }
  if ((s = olg__pbr_rd_graph(r, &fg, m->graph))) return s;
  if (n_func) {
    if (n_func > UINT32_MAX / 2) return olg__pbr_perr(r, r->base, "ModelProto: too many functions");
    if ((s = olg__grow(&m->alloc, (void **)&m->functions, &m->cap_functions, n_func,
                       sizeof *m->functions)))
      return s;
    for (p = r->base; p < end;) {
      if ((s = olg__pbr_next(r, &p, end, md, &f))) return s;
      if (f.no != 25) continue;
      olg_function *fn = &m->functions[m->n_functions];
      memset(fn, 0, sizeof *fn);
      if ((s = olg__pbr_rd_function(r, &f, fn))) return s;
      m->n_functions++;
    }
  }
  return OLG_OK;
}

/* ---------------------------------------------------------------------------------------- */
/* Entry points */

/* What a user can act on when the bytes are not a model: said after the reader's own message
 * (which says where the bytes went wrong). NULL when nothing more is known. */
static const char *read_hint(const uint8_t *data, size_t n, const char *msg) {
  if (n >= 23 && memcmp(data, "version https://git-lfs", 23) == 0)
    return "this is a Git LFS pointer, not a model: fetch the model itself (git lfs pull)";
  if (n == 0) return "the input is empty";
  if (strstr(msg, "past the end") || strstr(msg, "truncated"))
    return "the input ends early: a truncated download or copy?";
  if (data[0] == '<' || data[0] == '{' || (n >= 10 && memcmp(data, "ir_version", 10) == 0))
    return "this looks like text (HTML, JSON or ONNX text), not a binary .onnx model";
  return NULL;
}

/* The reader's failure s, with the hint for these bytes appended to its message. */
static olg_status with_hint(olg_status s, const uint8_t *data, size_t n) {
  if (s != OLG_ERR_PARSE && s != OLG_ERR_LIMIT) return s;
  char msg[2048];
  snprintf(msg, sizeof msg, "%s", olg_last_error());
  const char *hint = read_hint(data, n, msg);
  return hint ? olg__err(s, "%s (hint: %s)", msg, hint) : s;
}

OLG_API void olg_read_options_init(olg_read_options *o) {
  if (o) *o = (olg_read_options)OLG_READ_OPTIONS_INIT;
}

static olg_status take_options(const olg_read_options *in, olg_read_options *o, const char *fn) {
  *o = (olg_read_options)OLG_READ_OPTIONS_INIT;
  if (!in) return OLG_OK;
  if (in->size < sizeof(size_t))
    return olg__err(OLG_ERR_INVALID_ARG, "%s: options.size is not set", fn);
  memcpy(o, in, in->size < sizeof *o ? in->size : sizeof *o);
  o->size = sizeof *o;
  return OLG_OK;
}

static olg_status decode(olg_model *m, const uint8_t *data, size_t n, uint8_t owner,
                         const olg_read_options *o, const char *ext_dir) {
  rd r;
  memset(&r, 0, sizeof r);
  r.m = m;
  r.base = n ? data : olg__pbr_empty_input;
  r.size = n;
  r.owner = owner;
  r.ext_dir = ext_dir;
  r.load_ext = o->load_external_data != 0;
  m->arena.grow = true; /* (util.c, ARENA_CHUNK_MAX) */
  olg_status s = rd_model(&r);
  m->arena.grow = false;
  olg__free(&m->alloc, r.scratch, r.scratch_cap);
  olg__free(&m->alloc, r.ext_files, (size_t)r.ext_cap * sizeof *r.ext_files);
  olg__g_namemap_free(&m->alloc, &r.ext_by_location);
  return s;
}

OLG_API olg_status olg_model_read_memory(olg_model **out, const void *data, size_t n,
                                         const olg_read_options *opts) {
  if (!out || (n && !data))
    return olg__err(OLG_ERR_INVALID_ARG, "olg_model_read_memory: out and data are required");
  *out = NULL;
  olg_read_options o;
  olg_status s = take_options(opts, &o, "olg_model_read_memory");
  if (s) return s;
  olg_model_options mo = OLG_MODEL_OPTIONS_INIT;
  mo.allocator = o.allocator;
  olg_model *m;
  if ((s = olg_model_new(&m, &mo))) return s;
  m->ir_version_auto = false; /* the file says which IR it is */
  s = decode(m, data, n, OLG_OWNER_BORROWED, &o, o.external_data_dir);
  if (s) {
    s = with_hint(s, data, n);
    olg_model_free(m);
    return olg__err_prefix(s, "reading a model from memory");
  }
  *out = m;
  return OLG_OK;
}

/* A file the model's data points into, unmapped by olg_model_free (here, with the reader, which
 * alone maps files: the minimal configuration's 64 KiB). */
olg_status olg__model_add_mapping(olg_model *m, void *addr, size_t len) {
  olg_mapping *mp = olg__arena_alloc(m, sizeof *mp);
  if (!mp) return OLG_ERR_NOMEM;
  mp->addr = addr;
  mp->len = len;
  mp->next = m->mappings;
  m->mappings = mp;
  return OLG_OK;
}

OLG_API olg_status olg_model_read_file(olg_model **out, const char *path,
                                       const olg_read_options *opts) {
  if (!out || !path)
    return olg__err(OLG_ERR_INVALID_ARG, "olg_model_read_file: out and path are required");
  *out = NULL;
  olg_read_options o;
  olg_status s = take_options(opts, &o, "olg_model_read_file");
  if (s) return s;
  olg_model_options mo = OLG_MODEL_OPTIONS_INIT;
  mo.allocator = o.allocator;
  olg_model *m;
  if ((s = olg_model_new(&m, &mo))) return s;
  m->ir_version_auto = false; /* the file says which IR it is */
  /* Only a regular file is read: a FIFO would block the open until a writer comes, a device may
   * act on being opened. Refused before opening when it is something else already, opened
   * without blocking, and checked again on the descriptor. */
  struct stat st;
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
    s = olg__err(OLG_ERR_IO, "'%s' %s", path, olg__pbr_file_kind(st.st_mode));
    olg_model_free(m);
    return s;
  }
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) {
    s = olg__err(errno == ENOENT ? OLG_ERR_NOT_FOUND : OLG_ERR_IO, "cannot open '%s': %s", path,
                 strerror(errno));
    olg_model_free(m);
    return s;
  }
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    s = olg__err(OLG_ERR_IO, "'%s' is not a regular file", path);
    close(fd);
    olg_model_free(m);
    return s;
  }
  size_t n = (size_t)st.st_size;
  const uint8_t *data = NULL;
  if (n) {
    void *a = mmap(NULL, n, PROT_READ, MAP_PRIVATE, fd, 0);
    if (a == MAP_FAILED) {
      s = olg__err(OLG_ERR_IO, "cannot map '%s': %s", path, strerror(errno));
      close(fd);
      olg_model_free(m);
      return s;
    }
    if ((s = olg__model_add_mapping(m, a, n))) {
      munmap(a, n);
      close(fd);
      olg_model_free(m);
      return s;
    }
    data = a;
  }
  close(fd);
  const char *dir = o.external_data_dir;
  if (!dir) {
    const char *slash = strrchr(path, '/');
    dir = !slash ? "." : slash == path ? "/" : olg__strndup(m, path, (size_t)(slash - path));
    if (!dir) {
      olg_model_free(m);
      return OLG_ERR_NOMEM;
    }
  }
  s = decode(m, data, n, OLG_OWNER_MAPPED, &o, dir);
  if (s) {
    s = with_hint(s, data ? data : olg__pbr_empty_input, n); /* before the unmapping */
    olg_model_free(m);
    return olg__err_prefix(s, "reading '%s'", path);
  }
  *out = m;
  return OLG_OK;
}

/* A varint at *pp before end, without the checks of the real parse (a lookahead that only
 * prefetches: on anything odd it stops). false at the end or past 10 bytes. */
static inline bool peek_varint(const uint8_t **pp, const uint8_t *end, uint64_t *v) {
  const uint8_t *p = *pp;
  if (p < end && *p < 0x80) { /* tags and lengths of a node-dense model: mostly one byte */
    *v = *p;
    *pp = p + 1;
    return true;
  }
  uint64_t x = 0;
  for (int sh = 0; p < end && sh < 70; sh += 7) {
    uint8_t b = *p++;
    x |= (uint64_t)(b & 0x7f) << sh;
    if (!(b & 0x80)) {
      *pp = p;
      *v = x;
      return true;
    }
  }
  return false;
}

const uint8_t *olg__pbr_prefetch_node_outputs(const olg_graph *g, const uint8_t *p,
                                               const uint8_t *end, olg_pbr_ahead *first) {
  uint64_t tag, len;
  first->p = NULL;
  /* the common node at once: tags and lengths of a byte, its inputs, then one output and a
     later field (or its end) */
  if (end - p >= 2 && p[0] == 0x0a && p[1] < 0x80 && p[1] <= end - p - 2) {
    const uint8_t *q = p + 2, *qe = q + p[1];
    while (qe - q >= 2 && q[0] == 0x0a && q[1] < 0x80 && q[1] <= qe - q - 2) q += 2 + q[1];
    if (qe - q >= 2 && q[0] == 0x12 && q[1] < 0x80 && q[1] <= qe - q - 2 &&
        (q[1] == qe - q - 2 || q[2 + q[1]] > 0x12)) {
      size_t k = q[1];
      uint32_t h = olg__name_hash((const char *)q + 2, &k);
      olg__graph_prefetch_name(g, h);
      *first = (olg_pbr_ahead){q + 2, q[1], k, h};
      return qe;
    }
  }
  while (p < end) {
    if (!peek_varint(&p, end, &tag) || (tag & 7) != 2 || !peek_varint(&p, end, &len) ||
        len > (uint64_t)(end - p))
      return NULL;
    const uint8_t *q = p, *qe = p + len;
    p = qe;
    if (tag >> 3 != 1) continue; /* not a node */
    /* its inputs first, as writers put them: skipped without the checks of the walk below */
    while (qe - q >= 2 && q[0] == 0x0a && q[1] < 0x80 && q[1] <= qe - q - 2) q += 2 + q[1];
    while (q < qe) {
      uint64_t t, n;
      /* past the outputs: writers put a node's fields in number order (inputs 1, outputs 2,
         then the rest), so a later field after an output ends the walk (a node in another
         order is walked to its end) */
      if (q[0] > 0x12 && first->p) break;
      /* a length-delimited field with a one-byte tag and length: an input, the op type... */
      if ((q[0] & 0x87) == 2 && qe - q >= 2 && q[1] < 0x80) {
        n = q[1];
        if (n > (uint64_t)(qe - q - 2)) return NULL;
        if (q[0] == 0x12) { /* an output */
          size_t k = (size_t)n;
          uint32_t h = olg__name_hash((const char *)q + 2, &k);
          olg__graph_prefetch_name(g, h);
          if (!first->p) *first = (olg_pbr_ahead){q + 2, (size_t)n, k, h};
        }
        q += 2 + n;
        continue;
      }
      if (!peek_varint(&q, qe, &t)) return NULL;
      switch (t & 7) {
      case 0: if (!peek_varint(&q, qe, &n)) return NULL; break;
      case 1: if (qe - q < 8) return NULL; q += 8; break;
      case 5: if (qe - q < 4) return NULL; q += 4; break;
      case 2:
        if (!peek_varint(&q, qe, &n) || n > (uint64_t)(qe - q)) return NULL;
        if (t >> 3 == 2) {
          size_t k = (size_t)n;
          uint32_t h = olg__name_hash((const char *)q, &k);
          olg__graph_prefetch_name(g, h);
          if (!first->p) *first = (olg_pbr_ahead){q, (size_t)n, k, h};
        }
        q += n;
        break;
      default: return NULL;
      }
    }
    return p;
  }
  return NULL;
}
