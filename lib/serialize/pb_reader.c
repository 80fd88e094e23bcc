/* onnxlegal — the protobuf reader: the ONNX wire format decoded straight into the IR.
 *
 * The input is mapped (or borrowed) and never copied: raw_data, string_data, attribute bytes and
 * every kept raw field point into it. Small strings (names, op types) are copied into the model's
 * arena, because the IR wants them NUL-terminated.
 *
 * The descriptors generated from onnx.proto say which fields a message has and the wire type
 * each takes: every field is checked against them, unknown fields are kept (see pb.h), and the
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

#include "onnx.pb-c.h"
#include "pb.h"

typedef const ProtobufCMessageDescriptor msgdesc;
#define DESC(x) (&onnx__##x##__descriptor)

static const uint8_t empty_input[1];

typedef struct ext_file {
  const char *location;
  const uint8_t *addr;
  size_t size;
  struct ext_file *next;
} ext_file;

/* Where the reader is, for messages about what a message carries: the graph, the node and
 * the attribute being read (NULL: not in one). */
typedef struct rpos {
  const char *graph, *node, *op, *attr;
  uint32_t node_index; /* the node's place in its graph, to name a node without a name */
} rpos;

typedef struct rd {
  olg_model *m;
  const uint8_t *base; /* the whole input, for byte offsets */
  size_t size;
  uint8_t owner;       /* owner of tensor data that points into the input */
  const char *ext_dir; /* where external data is resolved; NULL: refused */
  bool load_ext;
  ext_file *ext;
  int depth;
  char *scratch; /* NUL-terminated copy of a name, for lookups */
  size_t scratch_cap;
  rpos at;
} rd;

/* One field as read. */
typedef struct pbf {
  uint32_t no;
  uint8_t wt;
  uint64_t v;                  /* VARINT, I64, I32 */
  const uint8_t *p;            /* LEN payload */
  size_t n;
  const uint8_t *start, *end;  /* the whole field */
  const ProtobufCFieldDescriptor *fd; /* NULL: not in the schema */
} pbf;

/* ---------------------------------------------------------------------------------------- */
/* Errors */

static size_t off(const rd *r, const uint8_t *at) { return (size_t)(at - r->base); }

static olg_status perr(rd *r, const uint8_t *at, const char *fmt, ...) OLG_PRINTF(3, 4);
static olg_status perr(rd *r, const uint8_t *at, const char *fmt, ...) {
  char msg[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return olg__err(OLG_ERR_PARSE, "byte %zu: %s", off(r, at), msg);
}

static const char *nn(const char *s) { return s ? s : ""; }

/* "attribute 'a' of node 'n' (Op) in graph 'g'", "node 'n' (Op) in graph 'g'" or
 * "graph 'g'": where the reader is. A node without a name is "node #3" (its place in the
 * graph, from 0). */
static const char *where(const rd *r, char *buf, size_t cap) {
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
static const char *twhere(const rd *r, const char *tname, char *buf, size_t cap) {
  char w[600];
  if (r->at.attr || r->at.node)
    snprintf(buf, cap, "tensor%s%s%s of %s", *tname ? " '" : "", tname, *tname ? "'" : "",
             where(r, w, sizeof w));
  else
    snprintf(buf, cap, "initializer '%s' of graph '%s'", tname, nn(r->at.graph));
  return buf;
}

static const char *fname(msgdesc *md, uint32_t no) {
  const ProtobufCFieldDescriptor *fd = protobuf_c_message_descriptor_get_field(md, no);
  return fd ? fd->name : "?";
}

static olg_status enter(rd *r, const uint8_t *at, msgdesc *md) {
  if (++r->depth > OLG_PB_MAX_DEPTH)
    return olg__err(OLG_ERR_LIMIT, "byte %zu: %s nested deeper than %d messages", off(r, at),
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
      return perr(r, *pp, "%s.%s: varint truncated by the end of the %s", md->short_name,
                  no ? fname(md, no) : "(tag)", r->depth > 1 ? "message" : "input");
    uint8_t b = *p++;
    v |= (uint64_t)(b & 0x7f) << (7 * i);
    if (!(b & 0x80)) {
      *pp = p;
      *out = v;
      return OLG_OK;
    }
  }
  return perr(r, *pp, "%s.%s: varint longer than 10 bytes", md->short_name,
              no ? fname(md, no) : "(tag)");
}

static int wire_type_of(ProtobufCType t) {
  switch (t) {
  case PROTOBUF_C_TYPE_SFIXED32: case PROTOBUF_C_TYPE_FIXED32: case PROTOBUF_C_TYPE_FLOAT:
    return PB_I32;
  case PROTOBUF_C_TYPE_SFIXED64: case PROTOBUF_C_TYPE_FIXED64: case PROTOBUF_C_TYPE_DOUBLE:
    return PB_I64;
  case PROTOBUF_C_TYPE_STRING: case PROTOBUF_C_TYPE_BYTES: case PROTOBUF_C_TYPE_MESSAGE:
    return PB_LEN;
  default:
    return PB_VARINT;
  }
}

static olg_status skip_group(rd *r, const uint8_t **pp, const uint8_t *end, uint32_t no,
                             msgdesc *md) {
  olg_status s = enter(r, *pp, md);
  if (s) return s;
  const uint8_t *p = *pp;
  for (;;) {
    if (p >= end) return perr(r, *pp, "%s: group %u is not closed", md->short_name, no);
    const uint8_t *at = p;
    uint64_t tag, v;
    if ((s = read_varint(r, &p, end, &tag, md, 0))) return s;
    uint32_t fno = (uint32_t)(tag >> 3);
    switch (tag & 7) {
    case PB_VARINT:
      if ((s = read_varint(r, &p, end, &v, md, 0))) return s;
      break;
    case PB_I64:
      if (end - p < 8) return perr(r, at, "%s: fixed64 truncated in group %u", md->short_name, no);
      p += 8;
      break;
    case PB_I32:
      if (end - p < 4) return perr(r, at, "%s: fixed32 truncated in group %u", md->short_name, no);
      p += 4;
      break;
    case PB_LEN:
      if ((s = read_varint(r, &p, end, &v, md, 0))) return s;
      if (v > (uint64_t)(end - p))
        return perr(r, at, "%s: length %llu past the end in group %u", md->short_name,
                    (unsigned long long)v, no);
      p += v;
      break;
    case PB_SGROUP:
      if ((s = skip_group(r, &p, end, fno, md))) return s;
      break;
    case PB_EGROUP:
      if (fno != no)
        return perr(r, at, "%s: group %u closed as group %u", md->short_name, no, fno);
      *pp = p;
      r->depth--;
      return OLG_OK;
    default:
      return perr(r, at, "%s: unknown wire type %u", md->short_name, (unsigned)(tag & 7));
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
static olg_status next_field(rd *r, const uint8_t **cur, const uint8_t *end, msgdesc *md,
                             pbf *f) {
  const uint8_t *p = *cur;
  uint64_t tag;
  olg_status s = read_varint(r, &p, end, &tag, md, 0);
  if (s) return s;
  if ((tag >> 3) == 0 || (tag >> 3) > 0x1fffffff)
    return perr(r, *cur, "%s: invalid field number %llu", md->short_name,
                (unsigned long long)(tag >> 3));
  f->no = (uint32_t)(tag >> 3);
  f->wt = (uint8_t)(tag & 7);
  f->start = *cur;
  f->fd = protobuf_c_message_descriptor_get_field(md, f->no);
  f->p = NULL;
  f->n = 0;
  f->v = 0;
  if (f->fd) {
    int want = wire_type_of(f->fd->type);
    bool packable = f->fd->label == PROTOBUF_C_LABEL_REPEATED && want != PB_LEN;
    if (f->wt != want && !(packable && f->wt == PB_LEN))
      return perr(r, *cur, "%s.%s (field %u): wire type %s, expected %s", md->short_name,
                  f->fd->name, f->no, wt_name(f->wt), wt_name(want));
  }
  switch (f->wt) {
  case PB_VARINT:
    if ((s = read_varint(r, &p, end, &f->v, md, f->no))) return s;
    break;
  case PB_I64:
    if (end - p < 8)
      return perr(r, *cur, "%s.%s: fixed64 truncated", md->short_name, fname(md, f->no));
    for (int i = 7; i >= 0; i--) f->v = (f->v << 8) | p[i];
    p += 8;
    break;
  case PB_I32:
    if (end - p < 4)
      return perr(r, *cur, "%s.%s: fixed32 truncated", md->short_name, fname(md, f->no));
    f->v = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    p += 4;
    break;
  case PB_LEN: {
    uint64_t n;
    if ((s = read_varint(r, &p, end, &n, md, f->no))) return s;
    if (n > (uint64_t)(end - p))
      return perr(r, *cur, "%s.%s (field %u): length %llu past the end (%zu bytes left)",
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
    return perr(r, *cur, "%s: end-group (field %u) without a group", md->short_name, f->no);
  default:
    return perr(r, *cur, "%s: field %u has unknown wire type %u", md->short_name, f->no,
                (unsigned)f->wt);
  }
  f->end = p;
  *cur = p;
  return OLG_OK;
}

/* Elements of a repeated numeric field in one occurrence (packed or not). */
static olg_status rep_count(rd *r, msgdesc *md, const pbf *f, size_t *count) {
  if (f->wt != PB_LEN) {
    (*count)++;
    return OLG_OK;
  }
  int wt = wire_type_of(f->fd->type);
  if (wt == PB_I32 || wt == PB_I64) {
    size_t w = wt == PB_I32 ? 4 : 8;
    if (f->n % w)
      return perr(r, f->start, "%s.%s: packed length %zu is not a multiple of %zu",
                  md->short_name, f->fd->name, f->n, w);
    *count += f->n / w;
    return OLG_OK;
  }
  size_t c = 0;
  unsigned len = 0;
  for (size_t i = 0; i < f->n; i++) {
    if (f->p[i] & 0x80) {
      if (++len >= 10)
        return perr(r, f->p + i, "%s.%s: packed varint longer than 10 bytes", md->short_name,
                    f->fd->name);
    } else {
      c++;
      len = 0;
    }
  }
  if (len) return perr(r, f->p + f->n, "%s.%s: packed varint truncated", md->short_name, f->fd->name);
  *count += c;
  return OLG_OK;
}

/* Decodes the varints of a packed payload (already checked by rep_count). */
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

static void le_store(uint8_t *p, uint64_t v, unsigned w) {
  for (unsigned i = 0; i < w; i++) p[i] = (uint8_t)(v >> (8 * i));
}

/* Every element of repeated numeric field `no` of the message [p, end), in order, as uint64
 * (varints as decoded, fixed32/64 as their bits). out holds count elements. */
static olg_status rep_fill(rd *r, const uint8_t *p, const uint8_t *end, msgdesc *md, uint32_t no,
                           size_t count, uint64_t *out) {
  size_t k = 0;
  pbf f;
  while (p < end) {
    olg_status s = next_field(r, &p, end, md, &f);
    if (s) return s;
    if (f.no != no) continue;
    if (f.wt != PB_LEN) {
      if (k < count) out[k] = f.v;
      k++;
      continue;
    }
    int wt = wire_type_of(f.fd->type);
    if (wt == PB_VARINT) {
      size_t c = 0;
      if ((s = rep_count(r, md, &f, &c))) return s;
      if (k + c > count) return perr(r, f.start, "%s.%s: count changed", md->short_name, f.fd->name);
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

static void *aalloc(rd *r, size_t count, size_t size) {
  uint64_t n;
  if (!olg__mul_u64(count, size, &n) || n > SIZE_MAX / 2) {
    olg__err(OLG_ERR_LIMIT, "allocation of %zu x %zu bytes overflows", count, size);
    return NULL;
  }
  return olg__arena_alloc(r->m, (size_t)n);
}

/* An arena copy of a string field. *lossy is set when it holds a NUL (the IR's C string ends
 * there). */
static const char *sdup(rd *r, const pbf *f, bool *lossy) {
  if (lossy && memchr(f->p, 0, f->n)) *lossy = true;
  return olg__strndup(r->m, (const char *)f->p, f->n);
}

/* A NUL-terminated copy in the scratch buffer (valid until the next call). */
static const char *cname(rd *r, const uint8_t *p, size_t n) {
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

static olg_pbx *pbx(rd *r, const void **slot) {
  if (!*slot) *slot = olg__arena_alloc(r->m, sizeof(olg_pbx));
  return (olg_pbx *)*slot;
}

static olg_status set_flag(rd *r, const void **slot, uint32_t flag) {
  olg_pbx *x = pbx(r, slot);
  if (!x) return OLG_ERR_NOMEM;
  x->flags |= flag;
  return OLG_OK;
}

/* Appends to an arena array whose capacity is implied by its length (powers of two). */
static olg_status push_raw(rd *r, olg_pb_raw **arr, uint32_t *n, const pbf *f) {
  if (*n == UINT32_MAX / 2) return olg__err(OLG_ERR_LIMIT, "too many raw fields");
  if ((*n & (*n - 1)) == 0) {
    uint32_t cap = *n ? *n * 2 : 2;
    olg_pb_raw *q = aalloc(r, cap, sizeof *q);
    if (!q) return OLG_ERR_NOMEM;
    if (*n) memcpy(q, *arr, (size_t)*n * sizeof *q);
    *arr = q;
  }
  (*arr)[(*n)++] = (olg_pb_raw){f->no, f->fd == NULL, {f->start, (size_t)(f->end - f->start)}};
  return OLG_OK;
}

static olg_status keep_raw(rd *r, const void **slot, const pbf *f) {
  olg_pbx *x = pbx(r, slot);
  if (!x) return OLG_ERR_NOMEM;
  return push_raw(r, &x->raw, &x->n_raw, f);
}

/* ---------------------------------------------------------------------------------------- */
/* Generic validation of the parts kept uninterpreted */

static olg_status validate_msg(rd *r, const uint8_t *p, size_t n, msgdesc *md) {
  olg_status s = enter(r, p, md);
  if (s) return s;
  const uint8_t *end = p + n;
  pbf f;
  while (p < end) {
    if ((s = next_field(r, &p, end, md, &f))) return s;
    if (!f.fd || f.wt != PB_LEN) continue;
    if (f.fd->type == PROTOBUF_C_TYPE_MESSAGE) {
      if ((s = validate_msg(r, f.p, f.n, f.fd->descriptor))) return s;
    } else if (wire_type_of(f.fd->type) != PB_LEN) {
      size_t c = 0;
      if ((s = rep_count(r, md, &f, &c))) return s;
    }
  }
  r->depth--;
  return OLG_OK;
}

static olg_status keep_validated(rd *r, const void **slot, const pbf *f) {
  olg_status s = validate_msg(r, f->p, f->n, f->fd->descriptor);
  return s ? s : keep_raw(r, slot, f);
}

/* ---------------------------------------------------------------------------------------- */
/* StringStringEntryProto and OperatorSetIdProto */

/* *exact is cleared when the IR's C strings cannot hold the entry as it is. */
static olg_status rd_kv(rd *r, const pbf *fe, olg_kv *kv, bool *exact) {
  msgdesc *md = DESC(string_string_entry_proto);
  olg_status s = enter(r, fe->p, md);
  if (s) return s;
  const uint8_t *p = fe->p, *end = p + fe->n;
  bool has_k = false, has_v = false, lossy = false;
  kv->key = kv->value = "";
  pbf f;
  while (p < end) {
    if ((s = next_field(r, &p, end, md, &f))) return s;
    if (f.no == 1 || f.no == 2) {
      const char *str = sdup(r, &f, &lossy);
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
static olg_status rd_kvs(rd *r, const uint8_t *p, const uint8_t *end, msgdesc *md, uint32_t no,
                         size_t count, olg_kv *kv, const void **slot) {
  size_t i = 0;
  pbf f;
  while (p < end && i < count) {
    olg_status s = next_field(r, &p, end, md, &f);
    if (s) return s;
    if (f.no != no) continue;
    bool exact;
    if ((s = rd_kv(r, &f, &kv[i], &exact))) return s;
    if (!exact) {
      olg_pbx *x = pbx(r, slot);
      if (!x) return OLG_ERR_NOMEM;
      if (!x->kv_verbatim) {
        x->kv_verbatim = aalloc(r, count, sizeof *x->kv_verbatim);
        if (!x->kv_verbatim) return OLG_ERR_NOMEM;
        x->n_kv_verbatim = (uint32_t)count;
      }
      x->kv_verbatim[i] = (olg_pb_span){f.p, f.n};
    }
    i++;
  }
  return OLG_OK;
}

static olg_status rd_opset(rd *r, const pbf *fe, olg_opset *os, bool *exact) {
  msgdesc *md = DESC(operator_set_id_proto);
  olg_status s = enter(r, fe->p, md);
  if (s) return s;
  const uint8_t *p = fe->p, *end = p + fe->n;
  bool has_d = false, has_v = false, lossy = false;
  os->domain = "";
  os->version = 0;
  pbf f;
  while (p < end) {
    if ((s = next_field(r, &p, end, md, &f))) return s;
    if (f.no == 1) {
      if (!(os->domain = sdup(r, &f, &lossy))) return OLG_ERR_NOMEM;
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
/* TypeProto: into olg_type; anything the IR cannot express marks the whole TypeProto irregular,
 * and the outermost one is then kept verbatim. */

static olg_status rd_type(rd *r, const uint8_t *p, size_t n, olg_type *ty, bool *irr);

static olg_status rd_dim(rd *r, const pbf *fd_, olg_dim *d, bool *irr) {
  msgdesc *md = DESC(tensor_shape_proto__dimension);
  olg_status s = enter(r, fd_->p, md);
  if (s) return s;
  const uint8_t *p = fd_->p, *end = p + fd_->n;
  int members = 0;
  d->value = OLG_DIM_UNKNOWN;
  pbf f;
  while (p < end) {
    if ((s = next_field(r, &p, end, md, &f))) return s;
    switch (f.no) {
    case 1:
      members++;
      d->param = NULL;
      d->value = (int64_t)f.v;
      if (d->value < 0) {
        d->value = OLG_DIM_UNKNOWN;
        *irr = true;
      }
      break;
    case 2:
      members++;
      d->value = OLG_DIM_UNKNOWN;
      if (!(d->param = sdup(r, &f, irr))) return OLG_ERR_NOMEM;
      break;
    case 3:
      if (!(d->denotation = sdup(r, &f, irr))) return OLG_ERR_NOMEM;
      break;
    default:
      *irr = true;
    }
  }
  if (members > 1) *irr = true;
  r->depth--;
  return OLG_OK;
}

static olg_status rd_shape(rd *r, const pbf *fs, olg_type *ty, bool *irr) {
  msgdesc *md = DESC(tensor_shape_proto);
  olg_status s = enter(r, fs->p, md);
  if (s) return s;
  const uint8_t *p = fs->p, *end = p + fs->n;
  size_t count = 0;
  pbf f;
  while (p < end) {
    if ((s = next_field(r, &p, end, md, &f))) return s;
    if (f.no == 1) count++;
    else *irr = true;
  }
  if (count > INT32_MAX) return perr(r, fs->start, "TensorShapeProto: too many dims");
  olg_dim *dims = count ? aalloc(r, count, sizeof *dims) : NULL;
  if (count && !dims) return OLG_ERR_NOMEM;
  size_t i = 0;
  for (p = fs->p; p < end;) {
    if ((s = next_field(r, &p, end, md, &f))) return s;
    if (f.no == 1 && (s = rd_dim(r, &f, &dims[i++], irr))) return s;
  }
  ty->has_shape = true;
  ty->rank = (int32_t)count;
  ty->dims = dims;
  r->depth--;
  return OLG_OK;
}

/* TypeProto.Tensor and TypeProto.SparseTensor */
static olg_status rd_type_tensor(rd *r, const pbf *ft, msgdesc *md, olg_type *ty, bool *irr) {
  olg_status s = enter(r, ft->p, md);
  if (s) return s;
  const uint8_t *p = ft->p, *end = p + ft->n;
  int shapes = 0;
  pbf f;
  while (p < end) {
    if ((s = next_field(r, &p, end, md, &f))) return s;
    if (f.no == 1) {
      ty->has_elem = true;
      ty->elem = (int32_t)(uint32_t)f.v;
    } else if (f.no == 2) {
      if (++shapes > 1) *irr = true;
      if ((s = rd_shape(r, &f, ty, irr))) return s;
    } else {
      *irr = true;
    }
  }
  r->depth--;
  return OLG_OK;
}

/* The TypeProto field `no` of a Sequence/Optional/Map message, into a new inner type. */
static olg_status rd_inner(rd *r, const pbf *f, olg_type **inner, bool *irr) {
  if (*inner) *irr = true; /* a second one: protobuf would merge them */
  olg_type *t = olg__arena_alloc(r->m, sizeof *t);
  if (!t) return OLG_ERR_NOMEM;
  *inner = t;
  return rd_type(r, f->p, f->n, t, irr);
}

static olg_status rd_type_wrapper(rd *r, const pbf *fw, msgdesc *md, olg_type *ty, bool *irr) {
  olg_status s = enter(r, fw->p, md);
  if (s) return s;
  const uint8_t *p = fw->p, *end = p + fw->n;
  bool has_key = false;
  pbf f;
  while (p < end) {
    if ((s = next_field(r, &p, end, md, &f))) return s;
    if (md == DESC(type_proto__map)) {
      if (f.no == 1) {
        ty->key = (int32_t)(uint32_t)f.v;
        has_key = true;
      } else if (f.no == 2) {
        if ((s = rd_inner(r, &f, &ty->inner, irr))) return s;
      } else {
        *irr = true;
      }
    } else if (md == DESC(type_proto__opaque)) {
      if (f.no == 1) {
        if (!(ty->opaque_domain = sdup(r, &f, irr))) return OLG_ERR_NOMEM;
      } else if (f.no == 2) {
        if (!(ty->opaque_name = sdup(r, &f, irr))) return OLG_ERR_NOMEM;
      } else {
        *irr = true;
      }
    } else { /* Sequence, Optional */
      if (f.no == 1) {
        if ((s = rd_inner(r, &f, &ty->inner, irr))) return s;
      } else {
        *irr = true;
      }
    }
  }
  if (md == DESC(type_proto__map) && !has_key) *irr = true;
  r->depth--;
  return OLG_OK;
}

static olg_status rd_type(rd *r, const uint8_t *p, size_t n, olg_type *ty, bool *irr) {
  msgdesc *md = DESC(type_proto);
  olg_status s = enter(r, p, md);
  if (s) return s;
  const uint8_t *end = p + n;
  int members = 0;
  memset(ty, 0, sizeof *ty);
  ty->rank = OLG_RANK_UNKNOWN;
  pbf f;
  while (p < end) {
    if ((s = next_field(r, &p, end, md, &f))) return s;
    if (f.no == 6) {
      if (!(ty->denotation = sdup(r, &f, irr))) return OLG_ERR_NOMEM;
      continue;
    }
    if (!f.fd) {
      *irr = true;
      continue;
    }
    members++;
    /* oneof: the last member wins; its contents start afresh */
    const char *den = ty->denotation;
    memset(ty, 0, sizeof *ty);
    ty->denotation = den;
    ty->rank = OLG_RANK_UNKNOWN;
    switch (f.no) {
    case 1:
      ty->kind = OLG_TYPE_TENSOR;
      s = rd_type_tensor(r, &f, DESC(type_proto__tensor), ty, irr);
      break;
    case 8:
      ty->kind = OLG_TYPE_SPARSE_TENSOR;
      s = rd_type_tensor(r, &f, DESC(type_proto__sparse_tensor), ty, irr);
      break;
    case 4:
      ty->kind = OLG_TYPE_SEQUENCE;
      s = rd_type_wrapper(r, &f, DESC(type_proto__sequence), ty, irr);
      break;
    case 9:
      ty->kind = OLG_TYPE_OPTIONAL;
      s = rd_type_wrapper(r, &f, DESC(type_proto__optional), ty, irr);
      break;
    case 5:
      ty->kind = OLG_TYPE_MAP;
      s = rd_type_wrapper(r, &f, DESC(type_proto__map), ty, irr);
      break;
    case 7:
      ty->kind = OLG_TYPE_OPAQUE;
      s = rd_type_wrapper(r, &f, DESC(type_proto__opaque), ty, irr);
      break;
    default:
      *irr = true;
    }
    if (s) return s;
  }
  if (members > 1) *irr = true;
  r->depth--;
  return OLG_OK;
}

/* An outermost TypeProto; kept verbatim when the IR cannot express it, or when it is present but
 * empty where the IR's kind NONE would mean absent (keep_empty). */
static olg_status rd_type_top(rd *r, const pbf *f, olg_type *ty, bool keep_empty) {
  bool irr = false;
  olg_status s = rd_type(r, f->p, f->n, ty, &irr);
  if (s) return s;
  if (irr || (keep_empty && ty->kind == OLG_TYPE_NONE)) {
    olg_pbx *x = pbx(r, &ty->extra);
    if (!x) return OLG_ERR_NOMEM;
    x->has_type_verbatim = true;
    x->type_verbatim = (olg_pb_span){f->p, f->n};
    x->type_snapshot = *ty;
    x->type_snapshot.extra = NULL;
  }
  return OLG_OK;
}

/* ---------------------------------------------------------------------------------------- */
/* External data */

static bool parse_u64(const char *s, uint64_t *out) {
  if (!*s) return false;
  uint64_t v = 0;
  for (; *s; s++) {
    if (*s < '0' || *s > '9') return false;
    if (v > (UINT64_MAX - 9) / 10) return false;
    v = v * 10 + (uint64_t)(*s - '0');
  }
  *out = v;
  return true;
}

/* Why a file that is not a regular one is refused. */
static const char *file_kind(mode_t m) {
  return S_ISFIFO(m) ? "is not a regular file (a FIFO)"
         : S_ISDIR(m) ? "is not a regular file (a directory)"
         : S_ISSOCK(m) ? "is not a regular file (a socket)"
         : S_ISCHR(m) || S_ISBLK(m) ? "is not a regular file (a device)"
         : "is not a regular file";
}

int olg__pb_open_beneath(const char *dir, const char *location, int flags, mode_t mode,
                         const char **why) {
  *why = NULL;
  if (!*location) { *why = "is empty"; errno = EINVAL; return -1; }
  if (location[0] == '/') { *why = "is an absolute path"; errno = EINVAL; return -1; }
  int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd < 0) { *why = "has no directory to resolve in"; return -1; }
  const char *c = location;
  for (;;) {
    const char *slash = strchr(c, '/');
    size_t len = slash ? (size_t)(slash - c) : strlen(c);
    char comp[NAME_MAX + 1];
    if (len == 0) { *why = "has an empty path component"; errno = EINVAL; break; }
    if (len > NAME_MAX) { *why = "has a path component that is too long"; errno = ENAMETOOLONG; break; }
    memcpy(comp, c, len);
    comp[len] = 0;
    if (strcmp(comp, "..") == 0) { *why = "contains '..'"; errno = EINVAL; break; }
    if (!slash) {
      /* A file to read must be a regular one: a FIFO would block the open (and every read) until
       * a writer comes, a device may act on being opened. So: refused before opening when it is
       * already something else, opened without blocking, and checked again on the descriptor
       * (the name may have changed in between). */
      bool want_file = !(flags & O_DIRECTORY);
      struct stat st;
      if (want_file && fstatat(dfd, comp, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISLNK(st.st_mode) &&
          !S_ISREG(st.st_mode)) {
        *why = file_kind(st.st_mode);
        close(dfd);
        errno = EINVAL;
        return -1;
      }
      int fd = openat(dfd, comp, flags | O_NOFOLLOW | O_CLOEXEC | (want_file ? O_NONBLOCK : 0), mode);
      if (fd < 0) {
        /* O_NOFOLLOW gives ELOOP, or ENOTDIR with O_DIRECTORY */
        int e = errno;
        if (e == ELOOP || (fstatat(dfd, comp, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode)))
          *why = "is a symbolic link";
        else if (e == ENXIO && want_file)
          *why = "is not a regular file (a socket or a device)";
        close(dfd);
        errno = e;
        return -1;
      }
      close(dfd);
      if (want_file) {
        int fl;
        if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
          int e = errno;
          *why = fstat(fd, &st) == 0 ? file_kind(st.st_mode) : NULL;
          close(fd);
          errno = *why ? EINVAL : e;
          return -1;
        }
        /* a regular file never blocks; the flag is cleared all the same, for whoever reads */
        if ((fl = fcntl(fd, F_GETFL)) < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
          int e = errno;
          close(fd);
          errno = e;
          return -1;
        }
      }
      return fd;
    }
    /* O_DIRECTORY fails on a FIFO or device before any open would wait or act on it */
    int nfd = openat(dfd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (nfd < 0) {
      int e = errno;
      struct stat st;
      if (fstatat(dfd, comp, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
        *why = "goes through a symbolic link";
      else if (e == ENOTDIR)
        *why = "goes through something that is not a directory";
      errno = e;
      break;
    }
    close(dfd);
    dfd = nfd;
    c = slash + 1;
  }
  int e = errno;
  close(dfd);
  errno = e;
  return -1;
}

static olg_status ext_map(rd *r, const char *tname, const char *location, ext_file **out) {
  for (ext_file *e = r->ext; e; e = e->next)
    if (strcmp(e->location, location) == 0) {
      *out = e;
      return OLG_OK;
    }
  const char *why;
  char tw[800];
  twhere(r, tname, tw, sizeof tw);
  /* opened without blocking, and only if it is a regular file (see olg__pb_open_beneath) */
  int fd = olg__pb_open_beneath(r->ext_dir, location, O_RDONLY, 0, &why);
  if (fd < 0) {
    if (why)
      return olg__err(OLG_ERR_INVALID_MODEL,
                      "%s: external data location '%s' %s (refused: it must name a regular "
                      "file beneath '%s')", tw, location, why, r->ext_dir);
    return olg__err(OLG_ERR_IO, "%s: external data '%s' in '%s': %s", tw, location,
                    r->ext_dir, strerror(errno));
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return olg__err(OLG_ERR_INVALID_MODEL, "%s: external data '%s' is not a regular file", tw,
                    location);
  }
  ext_file *e = olg__arena_alloc(r->m, sizeof *e);
  const char *loc = olg__strdup(r->m, location);
  if (!e || !loc) {
    close(fd);
    return OLG_ERR_NOMEM;
  }
  e->location = loc;
  e->size = (size_t)st.st_size;
  e->addr = empty_input;
  if (e->size) {
    void *a = mmap(NULL, e->size, PROT_READ, MAP_PRIVATE, fd, 0);
    if (a == MAP_FAILED) {
      int er = errno;
      close(fd);
      return olg__err(OLG_ERR_IO, "%s: cannot map external data '%s': %s", tw,
                      location, strerror(er));
    }
    olg_status s = olg__model_add_mapping(r->m, a, e->size);
    if (s) {
      munmap(a, e->size);
      close(fd);
      return s;
    }
    e->addr = a;
  }
  close(fd);
  e->next = r->ext;
  r->ext = e;
  *out = e;
  return OLG_OK;
}

static olg_status load_external(rd *r, const uint8_t *at, olg_tensor *t, bool exact_kvs,
                                uint64_t numel) {
  const char *tname = t->name ? t->name : "";
  char tw[800];
  twhere(r, tname, tw, sizeof tw);
  const char *loc = NULL, *soff = NULL, *slen = NULL;
  for (size_t i = 0; i < t->n_external; i++) {
    const char *k = t->external[i].key;
    if (strcmp(k, "location") == 0) loc = t->external[i].value;
    else if (strcmp(k, "offset") == 0) soff = t->external[i].value;
    else if (strcmp(k, "length") == 0) slen = t->external[i].value;
  }
  if (!r->ext_dir)
    return olg__err(OLG_ERR_INVALID_ARG,
                    "%s has external data and there is no directory to find it in "
                    "(set olg_read_options.external_data_dir, or load_external_data = 0)", tw);
  if (t->dtype == OLG_STRING) return perr(r, at, "%s: external data for a string tensor", tw);
  if (!loc || !*loc) return perr(r, at, "%s: external data without a location", tw);
  if (!exact_kvs)
    return olg__err(OLG_ERR_INVALID_MODEL, "%s: external data entries hold NUL bytes "
                    "or unknown fields", tw);
  uint64_t o = 0, len = 0;
  if (soff && !parse_u64(soff, &o))
    return perr(r, at, "%s: external data offset '%s' is not a non-negative integer", tw, soff);
  if (slen && !parse_u64(slen, &len))
    return perr(r, at, "%s: external data length '%s' is not a non-negative integer", tw, slen);
  ext_file *e = NULL;
  olg_status s = ext_map(r, tname, loc, &e);
  if (s) return s;
  if (o > e->size)
    return perr(r, at, "%s: external data offset %llu is past the end of '%s' (%zu bytes)", tw,
                (unsigned long long)o, loc, e->size);
  if (!slen) len = e->size - o;
  if (len > e->size - o)
    return perr(r, at, "%s: external data [%llu, +%llu) is past the end of '%s' (%zu bytes)", tw,
                (unsigned long long)o, (unsigned long long)len, loc, e->size);
  /* the data must be the whole tensor: later stages read every element (a segment, which would
   * make it a part, is not interpreted) */
  size_t need = olg_dtype_nbytes(t->dtype, numel);
  if (!olg_dtype_bits(t->dtype)) {
    if (numel)
      return perr(r, at, "%s: external data for element type %d, whose size is unknown", tw,
                  (int)t->dtype);
  } else if (need != len)
    return perr(r, at, "%s: external data holds %llu bytes, %s of %llu elements needs %zu", tw,
                (unsigned long long)len, olg_dtype_name(t->dtype), (unsigned long long)numel, need);
  t->data = e->addr + o;
  t->nbytes = (size_t)len;
  t->encoding = OLG_ENC_RAW;
  t->owner = OLG_OWNER_MAPPED;
  t->external_loaded = true;
  return OLG_OK;
}

/* ---------------------------------------------------------------------------------------- */
/* TensorProto */

enum { DF_F32, DF_I32, DF_STR, DF_I64, DF_RAW, DF_F64, DF_U64, DF_COUNT };
static const uint32_t df_field[DF_COUNT] = {4, 5, 6, 7, 9, 10, 11};
static const char *const df_name[DF_COUNT] = {"float_data", "int32_data", "string_data", "int64_data",
                                              "raw_data", "double_data", "uint64_data"};

static int df_of_field(uint32_t no) {
  for (int i = 0; i < DF_COUNT; i++)
    if (df_field[i] == no) return i;
  return -1;
}

/* int32_data: bytes per entry in the native buffer, entries per element count, and whether the
 * entry is sign-extended. 0: the dtype does not go in int32_data. */
static unsigned i32_width(olg_dtype dt, bool *sign) {
  *sign = false;
  switch (dt) {
  case OLG_INT32: *sign = true; return 4;
  case OLG_INT16: *sign = true; return 2;
  case OLG_INT8: *sign = true; return 1;
  case OLG_UINT16: case OLG_FLOAT16: case OLG_BFLOAT16: return 2;
  case OLG_UINT8: case OLG_BOOL: case OLG_FLOAT8E4M3FN: case OLG_FLOAT8E4M3FNUZ:
  case OLG_FLOAT8E5M2: case OLG_FLOAT8E5M2FNUZ: case OLG_FLOAT8E8M0:
  case OLG_INT4: case OLG_UINT4: case OLG_FLOAT4E2M1: case OLG_INT2: case OLG_UINT2:
    return 1; /* sub-byte types: one packed byte per entry */
  default: return 0;
  }
}

/* What one data field needs: bytes per entry in the native buffer (0: wrong field for the
 * dtype), and how many entries numel elements take. */
static unsigned df_width(int df, olg_dtype dt, uint64_t numel, uint64_t *entries) {
  bool sign;
  *entries = numel;
  switch (df) {
  case DF_F32:
    if (dt == OLG_COMPLEX64) { *entries = numel * 2; return 4; }
    return dt == OLG_FLOAT ? 4 : 0;
  case DF_F64:
    if (dt == OLG_COMPLEX128) { *entries = numel * 2; return 8; }
    return dt == OLG_DOUBLE ? 8 : 0;
  case DF_I64: return dt == OLG_INT64 ? 8 : 0;
  case DF_U64: return dt == OLG_UINT64 ? 8 : dt == OLG_UINT32 ? 4 : 0;
  case DF_I32: {
    unsigned w = i32_width(dt, &sign);
    int bits = olg_dtype_bits(dt);
    if (w && bits < 8) *entries = olg_dtype_nbytes(dt, numel);
    return w;
  }
  default: return 0;
  }
}

/* The element type's name, or its number when it has none. */
static const char *dtype_label(const olg_tensor *t, char buf[32]) {
  const char *n = olg_dtype_name(t->dtype);
  if (n && t->has_dtype) return n;
  snprintf(buf, 32, "element type %d", (int)t->dtype);
  return buf;
}

static olg_status keep_data_verbatim(rd *r, olg_tensor *t, const uint8_t *p, const uint8_t *end) {
  olg_pbx *x = pbx(r, &t->extra);
  if (!x) return OLG_ERR_NOMEM;
  pbf f;
  while (p < end) {
    olg_status s = next_field(r, &p, end, DESC(tensor_proto), &f);
    if (s) return s;
    if (df_of_field(f.no) >= 0 && (s = push_raw(r, &x->data_verbatim, &x->n_data_verbatim, &f)))
      return s;
  }
  x->data_snapshot = t->dtype == OLG_STRING ? (const void *)t->strings : t->data;
  return OLG_OK;
}

static olg_status rd_tensor(rd *r, const pbf *ft, olg_tensor **out) {
  msgdesc *md = DESC(tensor_proto);
  olg_status s = enter(r, ft->p, md);
  if (s) return s;
  const uint8_t *p = ft->p, *end = p + ft->n;
  olg_tensor *t = olg__arena_alloc(r->m, sizeof *t);
  if (!t) return OLG_ERR_NOMEM;
  size_t n_dims = 0, cnt[DF_COUNT] = {0}, n_ext = 0;
  bool single_chunk[DF_COUNT] = {0};
  int chunks[DF_COUNT] = {0};
  pbf raw = {0}, loc = {0}, chunk[DF_COUNT];
  memset(chunk, 0, sizeof chunk);
  bool has_loc = false;
  pbf f;
  while (p < end) {
    if ((s = next_field(r, &p, end, md, &f))) return s;
    int df = df_of_field(f.no);
    if (df >= 0 && df != DF_RAW && df != DF_STR) {
      if ((s = rep_count(r, md, &f, &cnt[df]))) return s;
      chunks[df]++;
      chunk[df] = f;
      continue;
    }
    switch (f.no) {
    case 1: if ((s = rep_count(r, md, &f, &n_dims))) return s; break;
    case 2: t->dtype = (int32_t)(uint32_t)f.v; t->has_dtype = true; break;
    case 3: if ((s = keep_validated(r, &t->extra, &f))) return s; break;
    case 6: cnt[DF_STR]++; break;
    case 8: if (!(t->name = sdup(r, &f, NULL))) return OLG_ERR_NOMEM; break;
    case 9: raw = f; cnt[DF_RAW] = 1; break;
    case 12: if (!(t->doc_string = sdup(r, &f, NULL))) return OLG_ERR_NOMEM; break;
    case 13: n_ext++; break;
    case 14: loc = f; has_loc = true; break;
    case 16: if ((s = keep_validated(r, &t->extra, &f))) return s; break;
    default: if ((s = keep_raw(r, &t->extra, &f))) return s;
    }
  }
  for (int i = 0; i < DF_COUNT; i++) single_chunk[i] = chunks[i] == 1 && chunk[i].wt == PB_LEN;
  const char *tname = t->name ? t->name : "";
  char tw[800], dl[32];
  twhere(r, tname, tw, sizeof tw);

  /* dims */
  if (n_dims > INT32_MAX) return perr(r, ft->p, "%s: too many dims", tw);
  t->rank = (int32_t)n_dims;
  if (n_dims) {
    uint64_t *d = aalloc(r, n_dims, sizeof *d);
    if (!d) return OLG_ERR_NOMEM;
    if ((s = rep_fill(r, ft->p, end, md, 1, n_dims, d))) return s;
    t->dims = (int64_t *)d; /* same size and representation: reinterpret in place */
    for (size_t i = 0; i < n_dims; i++) {
      if (t->dims[i] < 0)
        return perr(r, ft->p, "%s: dims[%zu] is %lld", tw, i, (long long)t->dims[i]);
    }
  }
  uint64_t numel;
  if (!olg__shape_numel(t->rank, t->dims, &numel) || olg_dtype_nbytes(OLG_COMPLEX128, numel) == SIZE_MAX)
    return olg__err(OLG_ERR_LIMIT, "byte %zu: %s: the product of its dims overflows",
                    off(r, ft->p), tw);

  /* data_location */
  int64_t location = 0;
  if (has_loc) {
    location = (int32_t)(uint32_t)loc.v;
    if (location == 0) {
      if ((s = set_flag(r, &t->extra, PBX_LOC_DEFAULT))) return s;
    } else if (location != 1) {
      if ((s = keep_raw(r, &t->extra, &loc))) return s;
      location = 0;
    }
  }
  bool external = location == 1;

  /* external_data entries: interpreted for external tensors, kept as they are otherwise */
  bool kvs_exact = true;
  if (n_ext) {
    if (external) {
      olg_kv *kv = aalloc(r, n_ext, sizeof *kv);
      if (!kv) return OLG_ERR_NOMEM;
      if ((s = rd_kvs(r, ft->p, end, md, 13, n_ext, kv, &t->extra))) return s;
      t->external = kv;
      t->n_external = n_ext;
      const olg_pbx *x = t->extra;
      kvs_exact = !x || !x->kv_verbatim;
    } else {
      for (p = ft->p; p < end;) {
        if ((s = next_field(r, &p, end, md, &f))) return s;
        if (f.no == 13 && (s = keep_raw(r, &t->extra, &f))) return s;
      }
    }
  }

  int present = 0, which = -1;
  for (int i = 0; i < DF_COUNT; i++)
    if (cnt[i]) { present++; which = i; }

  t->owner = OLG_OWNER_BORROWED;
  t->encoding = OLG_ENC_NONE;
  if (external) {
    t->encoding = OLG_ENC_EXTERNAL;
    if (present && (s = keep_data_verbatim(r, t, ft->p, end))) return s;
    if (r->load_ext && (s = load_external(r, ft->p, t, kvs_exact, numel))) return s;
    /* not loaded: data stays NULL and nbytes says how much it would be, which is how every
     * later stage tells an unloaded external tensor (olg__known: contents not known) */
    if (!r->load_ext && t->dtype != OLG_STRING && olg_dtype_bits(t->dtype))
      t->nbytes = olg_dtype_nbytes(t->dtype, numel);
    *out = t;
    r->depth--;
    return OLG_OK;
  }
  /* Every element a later stage may read must be there: data that is absent, or that the IR
   * cannot hold (several data fields, a field the element type does not go in), is refused
   * unless the tensor has no elements. A segment (a part of a larger tensor) does not excuse
   * data shorter than the dims: segments are not interpreted. */
  if (present == 0) {
    if (numel)
      return perr(r, ft->p, "%s: %llu element%s of %s declared and no data (no raw_data, typed "
                  "data field or external data)", tw, (unsigned long long)numel,
                  numel == 1 ? "" : "s", dtype_label(t, dl));
    *out = t;
    r->depth--;
    return OLG_OK;
  }
  bool verbatim = present > 1;
  if (verbatim && numel) {
    int a = -1, b = -1;
    for (int i = 0; i < DF_COUNT; i++)
      if (cnt[i]) { if (a < 0) a = i; else if (b < 0) b = i; }
    return perr(r, ft->p, "%s: data in both %s and %s (a tensor has one data field)", tw,
                df_name[a], df_name[b]);
  }
  if (!verbatim && which == DF_RAW) {
    int bits = olg_dtype_bits(t->dtype);
    if (t->dtype == OLG_STRING) {
      if (numel) return perr(r, raw.start, "%s: raw_data for a string tensor (strings go in string_data)", tw);
      verbatim = true;
    } else {
      if (bits) {
        size_t need = olg_dtype_nbytes(t->dtype, numel);
        if (need != raw.n)
          return perr(r, raw.start, "%s: raw_data is %zu bytes, %s of %llu elements needs %zu",
                      tw, raw.n, olg_dtype_name(t->dtype), (unsigned long long)numel, need);
      } else if (numel) {
        return perr(r, raw.start, "%s: raw_data for element type %d, whose size is unknown", tw,
                    (int)t->dtype);
      }
      t->data = raw.p;
      t->nbytes = raw.n;
      t->encoding = OLG_ENC_RAW;
      t->owner = r->owner;
    }
  } else if (!verbatim && which == DF_STR) {
    if (t->dtype != OLG_STRING) {
      if (numel) return perr(r, ft->p, "%s: string_data cannot hold %s", tw, dtype_label(t, dl));
      verbatim = true;
    } else {
      if (cnt[DF_STR] != numel)
        return perr(r, ft->p, "%s: string_data has %zu strings, %llu elements needed",
                    tw, cnt[DF_STR], (unsigned long long)numel);
      olg_bytes *str = aalloc(r, cnt[DF_STR], sizeof *str);
      if (!str) return OLG_ERR_NOMEM;
      size_t i = 0;
      for (p = ft->p; p < end;) {
        if ((s = next_field(r, &p, end, md, &f))) return s;
        if (f.no == 6) str[i++] = (olg_bytes){(const char *)f.p, f.n};
      }
      t->strings = str;
      t->n_strings = cnt[DF_STR];
      t->encoding = OLG_ENC_STRING;
    }
  } else if (!verbatim) {
    uint64_t entries;
    unsigned w = df_width(which, t->dtype, numel, &entries);
    if (!w) {
      if (numel) return perr(r, ft->p, "%s: %s cannot hold %s", tw, df_name[which], dtype_label(t, dl));
      verbatim = true; /* a field that does not fit the dtype, and no elements */
    } else {
      if (cnt[which] != entries)
        return perr(r, ft->p, "%s: %s has %zu values, %s of %llu elements needs %llu",
                    tw, df_name[which], cnt[which], olg_dtype_name(t->dtype),
                    (unsigned long long)numel, (unsigned long long)entries);
      size_t n = cnt[which];
      bool lossy = false;
      if ((which == DF_F32 || which == DF_F64) && single_chunk[which]) {
        /* packed little-endian floats are the native bytes already */
        t->data = chunk[which].p;
        t->owner = r->owner;
      } else {
        uint64_t *vals = olg__malloc(&r->m->alloc, (n ? n : 1) * sizeof *vals);
        uint8_t *buf = aalloc(r, n ? n : 1, w);
        if (!vals || !buf) {
          olg__free(&r->m->alloc, vals, (n ? n : 1) * sizeof *vals);
          return OLG_ERR_NOMEM;
        }
        s = rep_fill(r, ft->p, end, md, df_field[which], n, vals);
        if (!s) {
          bool sign = false;
          if (which == DF_I32) i32_width(t->dtype, &sign);
          for (size_t i = 0; i < n; i++) {
            uint64_t v = vals[i];
            if (which == DF_I32) {
              /* lossless when the entry is what the canonical writer gives back for the
               * native element */
              int32_t x = (int32_t)(uint32_t)v;
              uint32_t lo = (uint32_t)x & (w == 4 ? 0xffffffffu : w == 2 ? 0xffffu : 0xffu);
              int32_t canon = !sign ? (int32_t)lo
                              : w == 1 ? (int8_t)lo : w == 2 ? (int16_t)lo : (int32_t)lo;
              if (x != canon) lossy = true;
              v = lo;
            } else if (which == DF_U64 && w == 4 && v > 0xffffffffu) {
              lossy = true;
            }
            le_store(buf + i * w, v, w);
          }
        }
        olg__free(&r->m->alloc, vals, (n ? n : 1) * sizeof *vals);
        if (s) return s;
        t->data = buf;
        t->owner = OLG_OWNER_BORROWED; /* the model's arena */
      }
      t->nbytes = n * w;
      t->encoding = which == DF_F32 ? OLG_ENC_FLOAT : which == DF_F64 ? OLG_ENC_DOUBLE
                  : which == DF_I32 ? OLG_ENC_INT32 : which == DF_I64 ? OLG_ENC_INT64 : OLG_ENC_UINT64;
      if (lossy && (s = keep_data_verbatim(r, t, ft->p, end))) return s;
    }
  }
  if (verbatim) {
    t->data = NULL;
    t->nbytes = 0;
    t->strings = NULL;
    t->n_strings = 0;
    t->encoding = OLG_ENC_NONE;
    if ((s = keep_data_verbatim(r, t, ft->p, end))) return s;
  }
  *out = t;
  r->depth--;
  return OLG_OK;
}

/* ---------------------------------------------------------------------------------------- */
/* Graphs */

enum { VK_NORMAL = 0, VK_FORWARD = 1, VK_SPARSE = 2 };

typedef struct gstate {
  olg_graph *g;
  uint32_t list_n[3]; /* how many inputs, outputs, value_infos the GraphProto lists */
  olg_pb_span *vi; /* per value: its primary ValueInfoProto (p NULL: none yet) */
  uint8_t *kind;   /* per value: VK_* */
  uint32_t cap;
} gstate;

static olg_status gs_fit(rd *r, gstate *gs) {
  uint32_t need = gs->g->n_values;
  if (need <= gs->cap) return OLG_OK;
  uint32_t cap = gs->cap ? gs->cap : 64;
  while (cap < need) cap *= 2;
  const olg_allocator *a = &r->m->alloc;
  olg_pb_span *vi = olg__calloc(a, cap, sizeof *vi);
  uint8_t *k = vi ? olg__calloc(a, cap, 1) : NULL;
  if (!k) {
    olg__free(a, vi, (size_t)cap * sizeof *vi);
    return OLG_ERR_NOMEM;
  }
  if (gs->cap) {
    memcpy(vi, gs->vi, (size_t)gs->cap * sizeof *vi);
    memcpy(k, gs->kind, gs->cap);
  }
  olg__free(a, gs->vi, (size_t)gs->cap * sizeof *gs->vi);
  olg__free(a, gs->kind, gs->cap);
  gs->vi = vi;
  gs->kind = k;
  gs->cap = cap;
  return OLG_OK;
}

static void gs_free(rd *r, gstate *gs) {
  olg__free(&r->m->alloc, gs->vi, (size_t)gs->cap * sizeof *gs->vi);
  olg__free(&r->m->alloc, gs->kind, gs->cap);
}

static olg_status new_value(rd *r, gstate *gs, const char *name, olg_value *v, uint8_t kind) {
  olg_status s = olg__graph_add_value(gs->g, name, true, v);
  if (s) return s;
  if ((s = gs_fit(r, gs))) return s;
  gs->kind[*v] = kind;
  return OLG_OK;
}

static olg_status rd_graph(rd *r, const pbf *fg, olg_graph *g);

enum { L_INPUT = 0, L_OUTPUT = 1, L_VALUE_INFO = 2 };
static const uint32_t list_flag[3] = {OLG_VF_INPUT, OLG_VF_OUTPUT, OLG_VF_VALUE_INFO};

static olg_status rd_value_info(rd *r, gstate *gs, const pbf *fv, int list) {
  msgdesc *md = DESC(value_info_proto);
  olg_status s = enter(r, fv->p, md);
  if (s) return s;
  olg_graph *g = gs->g;
  const uint8_t *p = fv->p, *end = p + fv->n;
  pbf f, name = {0}, type = {0}, doc = {0};
  bool has_name = false, has_type = false, has_doc = false, has_unknown = false;
  size_t n_meta = 0;
  while (p < end) {
    if ((s = next_field(r, &p, end, md, &f))) return s;
    switch (f.no) {
    case 1: name = f; has_name = true; break;
    case 2:
      if (has_type)
        return olg__err(OLG_ERR_UNSUPPORTED, "byte %zu: ValueInfoProto.type appears twice "
                        "(merging sub-messages is not supported)", off(r, f.start));
      type = f;
      has_type = true;
      break;
    case 3: doc = f; has_doc = true; break;
    case 4: n_meta++; break;
    default: has_unknown = true;
    }
  }
  const char *nm = cname(r, name.p, name.n);
  if (!nm) return OLG_ERR_NOMEM;
  olg_value v = *nm ? olg__graph_lookup(g, nm) : -1;
  if (v < 0 || list == L_INPUT) {
    if ((s = new_value(r, gs, nm, &v, VK_NORMAL))) return s;
  }
  olg_idvec *vec = list == L_INPUT ? &g->inputs : list == L_OUTPUT ? &g->outputs : &g->value_info;
  uint32_t pos = vec->n;
  if ((s = olg__idvec_push(r->m, vec, v))) return s;
  olg_value_rec *rec = &g->values[v];
  rec->flags |= list_flag[list];
  if (!gs->vi[v].p) {
    gs->vi[v] = (olg_pb_span){fv->p, fv->n};
    if (has_type) {
      olg_type ty;
      if ((s = rd_type_top(r, &type, &ty, true))) return s;
      rec->type = ty;
    } else if (rec->type.kind != OLG_TYPE_NONE) {
      olg_pbx *x = pbx(r, &rec->extra);
      if (!x) return OLG_ERR_NOMEM;
      x->flags |= PBX_VI_NO_TYPE;
      x->type_snapshot = rec->type;
    }
    if (!has_name && (s = set_flag(r, &rec->extra, PBX_NO_NAME))) return s;
    if (has_doc && !(rec->doc_string = sdup(r, &doc, NULL))) return OLG_ERR_NOMEM;
    if (n_meta) {
      olg_kv *kv = aalloc(r, n_meta, sizeof *kv);
      if (!kv) return OLG_ERR_NOMEM;
      if ((s = rd_kvs(r, fv->p, end, md, 4, n_meta, kv, &rec->extra))) return s;
      rec->metadata = kv;
      rec->n_metadata = (uint32_t)n_meta;
    }
    if (has_unknown) {
      for (p = fv->p; p < end;) {
        if ((s = next_field(r, &p, end, md, &f))) return s;
        if (!f.fd && (s = keep_raw(r, &rec->extra, &f))) return s;
      }
    }
  } else if (gs->vi[v].n != fv->n || (fv->n && memcmp(gs->vi[v].p, fv->p, fv->n) != 0)) {
    /* another description of the same value: written back as it was */
    if (has_type) {
      olg_type ty; /* still checked, so that malformed bytes are refused wherever they are */
      if ((s = rd_type_top(r, &type, &ty, false))) return s;
    }
    for (p = fv->p; p < end;) {
      if ((s = next_field(r, &p, end, md, &f))) return s;
      if (f.no == 4 && (s = validate_msg(r, f.p, f.n, f.fd->descriptor))) return s;
    }
    olg_pbx *x = pbx(r, &g->extra);
    if (!x) return OLG_ERR_NOMEM;
    if (!x->vi_alt[list]) {
      if (!(x->vi_alt[list] = aalloc(r, gs->list_n[list], sizeof *x->vi_alt[list])))
        return OLG_ERR_NOMEM;
      x->n_vi_alt[list] = gs->list_n[list];
    }
    if (pos < x->n_vi_alt[list]) x->vi_alt[list][pos] = (olg_pbx_vi){v, {fv->p, fv->n}};
  }
  r->depth--;
  return OLG_OK;
}

static uint8_t infer_attr_type(bool f, bool i, bool s, bool t, bool g, bool tp, bool sp,
                               const size_t *lists) {
  if (f) return OLG_ATTR_FLOAT;
  if (i) return OLG_ATTR_INT;
  if (s) return OLG_ATTR_STRING;
  if (t) return OLG_ATTR_TENSOR;
  if (g) return OLG_ATTR_GRAPH;
  if (sp) return OLG_ATTR_SPARSE_TENSOR;
  if (tp) return OLG_ATTR_TYPE_PROTO;
  static const uint8_t lt[PBX_L_COUNT] = {OLG_ATTR_FLOATS, OLG_ATTR_INTS, OLG_ATTR_STRINGS,
                                          OLG_ATTR_TENSORS, OLG_ATTR_GRAPHS,
                                          OLG_ATTR_SPARSE_TENSORS, OLG_ATTR_TYPE_PROTOS};
  for (int k = 0; k < PBX_L_COUNT; k++)
    if (lists[k]) return lt[k];
  return OLG_ATTR_UNDEFINED;
}

int olg__pb_attr_list(int type) {
  switch (type) {
  case OLG_ATTR_FLOATS: return PBX_L_FLOATS;
  case OLG_ATTR_INTS: return PBX_L_INTS;
  case OLG_ATTR_STRINGS: return PBX_L_STRINGS;
  case OLG_ATTR_TENSORS: return PBX_L_TENSORS;
  case OLG_ATTR_GRAPHS: return PBX_L_GRAPHS;
  case OLG_ATTR_SPARSE_TENSORS: return PBX_L_SPARSES;
  case OLG_ATTR_TYPE_PROTOS: return PBX_L_TPS;
  default: return -1;
  }
}

static const char *attr_type_name(int type) {
  static const char *const names[] = {"UNDEFINED", "FLOAT", "INT", "STRING", "TENSOR", "GRAPH",
                                      "FLOATS", "INTS", "STRINGS", "TENSORS", "GRAPHS",
                                      "SPARSE_TENSOR", "SPARSE_TENSORS", "TYPE_PROTO",
                                      "TYPE_PROTOS"};
  return type >= 0 && type <= OLG_ATTR_TYPE_PROTOS ? names[type] : "?";
}

static olg_status dup_singular(rd *r, const pbf *f, msgdesc *md) {
  return olg__err(OLG_ERR_UNSUPPORTED, "byte %zu: %s.%s appears twice (merging sub-messages is "
                  "not supported)", off(r, f->start), md->short_name, f->fd->name);
}

static olg_status rd_attr(rd *r, gstate *gs, const pbf *fa, olg_attr *a) {
  msgdesc *md = DESC(attribute_proto);
  olg_status s = enter(r, fa->p, md);
  if (s) return s;
  const uint8_t *p = fa->p, *end = p + fa->n;
  size_t lists[PBX_L_COUNT] = {0};
  bool has_name = false, has_type = false, has_f = false, has_i = false, has_s = false;
  bool has_t = false, has_g = false, has_tp = false, has_sp = false;
  int64_t type_v = 0;
  pbf f, ft = {0}, fg = {0}, ftp = {0}, fsp = {0};
  memset(a, 0, sizeof *a);
  a->name = "";
  while (p < end) {
    if ((s = next_field(r, &p, end, md, &f))) return s;
    switch (f.no) {
    case 1: if (!(a->name = sdup(r, &f, NULL))) return OLG_ERR_NOMEM; has_name = true; break;
    case 2: { uint32_t b = (uint32_t)f.v; memcpy(&a->f, &b, 4); has_f = true; break; }
    case 3: a->i = (int64_t)f.v; has_i = true; break;
    case 4: a->s = (olg_bytes){(const char *)f.p, f.n}; has_s = true; break;
    case 5: if (has_t) return dup_singular(r, &f, md); ft = f; has_t = true; break;
    case 6: if (has_g) return dup_singular(r, &f, md); fg = f; has_g = true; break;
    case 7: if ((s = rep_count(r, md, &f, &lists[PBX_L_FLOATS]))) return s; break;
    case 8: if ((s = rep_count(r, md, &f, &lists[PBX_L_INTS]))) return s; break;
    case 9: lists[PBX_L_STRINGS]++; break;
    case 10: lists[PBX_L_TENSORS]++; break;
    case 11: lists[PBX_L_GRAPHS]++; break;
    case 13: if (!(a->doc_string = sdup(r, &f, NULL))) return OLG_ERR_NOMEM; break;
    case 14: if (has_tp) return dup_singular(r, &f, md); ftp = f; has_tp = true; break;
    case 15: lists[PBX_L_TPS]++; break;
    case 20: type_v = (int32_t)(uint32_t)f.v; has_type = true; break;
    case 21: if (!(a->ref_attr_name = sdup(r, &f, NULL))) return OLG_ERR_NOMEM; break;
    case 22:
      if (has_sp) return dup_singular(r, &f, md);
      if ((s = validate_msg(r, f.p, f.n, f.fd->descriptor))) return s;
      fsp = f;
      has_sp = true;
      break;
    case 23:
      if ((s = validate_msg(r, f.p, f.n, f.fd->descriptor))) return s;
      lists[PBX_L_SPARSES]++;
      break;
    default:
      if ((s = keep_raw(r, &a->extra, &f))) return s;
    }
  }
  if (!has_name && (s = set_flag(r, &a->extra, PBX_NO_NAME))) return s;
  r->at.attr = a->name;
  if (has_t && (s = rd_tensor(r, &ft, &a->t))) return s;
  if (has_g) {
    olg_graph *sub;
    if ((s = olg_model_new_subgraph(r->m, &sub))) return s;
    sub->attached = true;
    sub->parent = gs->g;
    a->g = sub;
    if ((s = rd_graph(r, &fg, sub))) return s;
  }
  if (has_tp) {
    olg_type *ty = olg__arena_alloc(r->m, sizeof *ty);
    if (!ty) return OLG_ERR_NOMEM;
    if ((s = rd_type_top(r, &ftp, ty, false))) return s;
    a->tp = ty;
  }
  if (has_sp) {
    olg_pb_span *sp = olg__arena_alloc(r->m, sizeof *sp);
    if (!sp) return OLG_ERR_NOMEM;
    *sp = (olg_pb_span){fsp.p, fsp.n};
    a->sparse = sp;
  }
  /* lists */
  float *floats = NULL;
  int64_t *ints = NULL;
  olg_bytes *strings = NULL;
  olg_tensor **tensors = NULL;
  olg_graph **graphs = NULL;
  olg_pb_span *sparse_spans = NULL;
  const void **sparses = NULL;
  olg_type **tps = NULL;
  if (lists[PBX_L_FLOATS]) {
    size_t n = lists[PBX_L_FLOATS];
    uint64_t *tmp = aalloc(r, n, sizeof *tmp);
    if (!tmp || !(floats = aalloc(r, n, sizeof *floats))) return OLG_ERR_NOMEM;
    if ((s = rep_fill(r, fa->p, end, md, 7, n, tmp))) return s;
    for (size_t k = 0; k < n; k++) {
      uint32_t b = (uint32_t)tmp[k];
      memcpy(&floats[k], &b, 4);
    }
  }
  if (lists[PBX_L_INTS]) {
    size_t n = lists[PBX_L_INTS];
    uint64_t *tmp = aalloc(r, n, sizeof *tmp);
    if (!tmp) return OLG_ERR_NOMEM;
    if ((s = rep_fill(r, fa->p, end, md, 8, n, tmp))) return s;
    ints = (int64_t *)tmp;
  }
  if ((lists[PBX_L_STRINGS] && !(strings = aalloc(r, lists[PBX_L_STRINGS], sizeof *strings))) ||
      (lists[PBX_L_TENSORS] && !(tensors = aalloc(r, lists[PBX_L_TENSORS], sizeof *tensors))) ||
      (lists[PBX_L_GRAPHS] && !(graphs = aalloc(r, lists[PBX_L_GRAPHS], sizeof *graphs))) ||
      (lists[PBX_L_SPARSES] && (!(sparses = aalloc(r, lists[PBX_L_SPARSES], sizeof *sparses)) ||
                                !(sparse_spans = aalloc(r, lists[PBX_L_SPARSES], sizeof *sparse_spans)))) ||
      (lists[PBX_L_TPS] && !(tps = aalloc(r, lists[PBX_L_TPS], sizeof *tps))))
    return OLG_ERR_NOMEM;
  if (lists[PBX_L_STRINGS] || lists[PBX_L_TENSORS] || lists[PBX_L_GRAPHS] ||
      lists[PBX_L_SPARSES] || lists[PBX_L_TPS]) {
    size_t ks = 0, kt = 0, kg = 0, ksp = 0, ktp = 0;
    for (p = fa->p; p < end;) {
      if ((s = next_field(r, &p, end, md, &f))) return s;
      switch (f.no) {
      case 9: strings[ks++] = (olg_bytes){(const char *)f.p, f.n}; break;
      case 10: if ((s = rd_tensor(r, &f, &tensors[kt++]))) return s; break;
      case 11: {
        olg_graph *sub;
        if ((s = olg_model_new_subgraph(r->m, &sub))) return s;
        sub->attached = true;
        sub->parent = gs->g;
        graphs[kg++] = sub;
        if ((s = rd_graph(r, &f, sub))) return s;
        break;
      }
      case 15: {
        olg_type *ty = olg__arena_alloc(r->m, sizeof *ty);
        if (!ty) return OLG_ERR_NOMEM;
        if ((s = rd_type_top(r, &f, ty, false))) return s;
        tps[ktp++] = ty;
        break;
      }
      case 23:
        sparse_spans[ksp] = (olg_pb_span){f.p, f.n};
        sparses[ksp] = &sparse_spans[ksp];
        ksp++;
        break;
      default: break;
      }
    }
  }
  a->floats = floats;
  a->ints = ints;
  a->strings = strings;
  a->tensors = tensors;
  a->graphs = graphs;
  a->sparses = sparses;
  a->tps = tps;

  /* the type, and how the writer's rule (write the fields the type names) must be overridden */
  uint8_t inferred = infer_attr_type(has_f, has_i, has_s, has_t, has_g, has_tp, has_sp, lists);
  if (!has_type) {
    a->type = inferred;
    if ((s = set_flag(r, &a->extra, PBX_NO_ATTR_TYPE))) return s;
  } else if (type_v >= OLG_ATTR_UNDEFINED && type_v <= OLG_ATTR_TYPE_PROTOS) {
    a->type = (uint8_t)type_v;
  } else {
    a->type = inferred;
    olg_pbx *x = pbx(r, &a->extra);
    if (!x) return OLG_ERR_NOMEM;
    x->flags |= PBX_ATTR_TYPE_RAW;
    x->attr_type = type_v;
  }
  /* The payload the type names must be there: later stages take it without looking. (Lists
   * may be empty; a FLOAT or INT left out reads as 0, as protobuf has it.) */
  const char *missing = NULL;
  switch (a->type) {
  case OLG_ATTR_STRING: if (!has_s) missing = "s (a string)"; break;
  case OLG_ATTR_TENSOR: if (!has_t) missing = "t (a tensor)"; break;
  case OLG_ATTR_GRAPH: if (!has_g) missing = "g (a graph)"; break;
  case OLG_ATTR_SPARSE_TENSOR: if (!has_sp) missing = "sparse_tensor"; break;
  case OLG_ATTR_TYPE_PROTO: if (!has_tp) missing = "tp (a type)"; break;
  default: break;
  }
  if (missing) {
    char w[700];
    return perr(r, fa->p, "%s has type %s and no %s%s", where(r, w, sizeof w),
                attr_type_name(a->type), missing,
                a->ref_attr_name ? " (a reference to a function's attribute, ref_attr_name, "
                                   "is only valid inside a function)" : "");
  }
  int tl = olg__pb_attr_list(a->type);
  a->n = tl >= 0 ? lists[tl] : 0;
  bool want_f = a->type == OLG_ATTR_FLOAT, want_i = a->type == OLG_ATTR_INT,
       want_s = a->type == OLG_ATTR_STRING;
  if (has_f != want_f || has_i != want_i || has_s != want_s) {
    olg_pbx *x = pbx(r, &a->extra);
    if (!x) return OLG_ERR_NOMEM;
    x->flags |= PBX_ATTR_PRESENCE | (has_f ? PBX_ATTR_F : 0) | (has_i ? PBX_ATTR_I : 0) |
                (has_s ? PBX_ATTR_S : 0);
  }
  bool other_lists = false;
  for (int k = 0; k < PBX_L_COUNT; k++)
    if (lists[k] && k != tl) other_lists = true;
  if (other_lists) {
    olg_pbx *x = pbx(r, &a->extra);
    if (!x) return OLG_ERR_NOMEM;
    x->flags |= PBX_ATTR_LISTS;
    for (int k = 0; k < PBX_L_COUNT; k++) {
      if (lists[k] > UINT32_MAX) return olg__err(OLG_ERR_LIMIT, "attribute list too long");
      x->list_n[k] = (uint32_t)lists[k];
    }
  }
  r->at.attr = NULL;
  r->depth--;
  return OLG_OK;
}

static olg_status rd_node(rd *r, gstate *gs, const pbf *fn) {
  msgdesc *md = DESC(node_proto);
  olg_status s = enter(r, fn->p, md);
  if (s) return s;
  olg_graph *g = gs->g;
  olg_model *m = r->m;
  const uint8_t *p = fn->p, *end = p + fn->n;
  size_t n_in = 0, n_out = 0, n_attr = 0, n_meta = 0;
  const void *extra = NULL;
  const char *name = "", *op = "", *domain = "", *doc = NULL, *overload = NULL;
  bool has_op = false;
  pbf f;
  while (p < end) {
    if ((s = next_field(r, &p, end, md, &f))) return s;
    switch (f.no) {
    case 1: n_in++; break;
    case 2: n_out++; break;
    case 3:
      if (!(name = sdup(r, &f, NULL))) return OLG_ERR_NOMEM;
      if (!f.n && (s = set_flag(r, &extra, PBX_NAME_EMPTY))) return s;
      break;
    case 4: if (!(op = sdup(r, &f, NULL))) return OLG_ERR_NOMEM; has_op = true; break;
    case 5: n_attr++; break;
    case 6: if (!(doc = sdup(r, &f, NULL))) return OLG_ERR_NOMEM; break;
    case 7:
      if (!(domain = sdup(r, &f, NULL))) return OLG_ERR_NOMEM;
      if (!f.n && (s = set_flag(r, &extra, PBX_DOMAIN_EMPTY))) return s;
      break;
    case 8: if (!(overload = sdup(r, &f, NULL))) return OLG_ERR_NOMEM; break;
    case 9: n_meta++; break;
    case 10: if ((s = keep_validated(r, &extra, &f))) return s; break;
    default: if ((s = keep_raw(r, &extra, &f))) return s;
    }
  }
  if (!has_op && (s = set_flag(r, &extra, PBX_NO_OP_TYPE))) return s;
  r->at.node = name;
  r->at.op = op;
  r->at.attr = NULL;
  r->at.node_index = g->n_nodes;
  if (n_in > UINT32_MAX / 2 || n_out > UINT32_MAX / 2 || n_attr > UINT32_MAX / 2)
    return perr(r, fn->p, "NodeProto '%s': too many inputs, outputs or attributes", name);
  if ((s = olg__grow(&m->alloc, (void **)&g->nodes, &g->cap_nodes, (size_t)g->n_nodes + 1,
                     sizeof *g->nodes)))
    return s;
  olg_node_id id = (olg_node_id)g->n_nodes;
  olg_node *nd = &g->nodes[g->n_nodes++];
  memset(nd, 0, sizeof *nd);
  nd->name = name;
  nd->op = op;
  nd->domain = domain;
  nd->doc_string = doc;
  nd->overload = overload;
  nd->state = OLG_NODE_OPEN;
  nd->extra = extra;
  /* inputs: names seen before are this graph's values; others are made now, to be produced
   * later in the graph or captured from an enclosing one */
  olg_arg *args = n_in ? aalloc(r, n_in, sizeof *args) : NULL;
  olg_attr *attrs = n_attr ? aalloc(r, n_attr, sizeof *attrs) : NULL;
  olg_value *outs = n_out ? aalloc(r, n_out, sizeof *outs) : NULL;
  if ((n_in && !args) || (n_attr && !attrs) || (n_out && !outs)) return OLG_ERR_NOMEM;
  size_t ki = 0;
  for (p = fn->p; p < end;) {
    if ((s = next_field(r, &p, end, md, &f))) return s;
    if (f.no != 1) continue;
    olg_arg *a = &args[ki++];
    if (!f.n) {
      a->kind = OLG_ARG_NONE;
      continue;
    }
    const char *nm = cname(r, f.p, f.n);
    if (!nm) return OLG_ERR_NOMEM;
    olg_value v = olg__graph_lookup(g, nm);
    if (v < 0 && (s = new_value(r, gs, nm, &v, VK_FORWARD))) return s;
    a->kind = OLG_ARG_VALUE;
    a->u.v = v;
  }
  nd = &g->nodes[id];
  nd->args = args;
  nd->n_args = nd->cap_args = (uint32_t)n_in;
  size_t ka = 0;
  if (n_attr) {
    for (p = fn->p; p < end;) {
      if ((s = next_field(r, &p, end, md, &f))) return s;
      if (f.no == 5 && (s = rd_attr(r, gs, &f, &attrs[ka++]))) return s;
    }
  }
  nd = &g->nodes[id];
  nd->attrs = attrs;
  nd->n_attrs = nd->cap_attrs = (uint32_t)n_attr;
  size_t ko = 0;
  for (p = fn->p; p < end;) {
    if ((s = next_field(r, &p, end, md, &f))) return s;
    if (f.no != 2) continue;
    olg_value *o = &outs[ko++];
    if (!f.n) {
      *o = OLG_NO_VALUE;
      continue;
    }
    const char *nm = cname(r, f.p, f.n);
    if (!nm) return OLG_ERR_NOMEM;
    olg_value v = olg__graph_lookup(g, nm);
    const olg_value_rec *vr = v >= 0 ? &g->values[v] : NULL;
    bool claim = vr && gs->kind[v] == VK_FORWARD && vr->producer < 0 &&
                 !(vr->flags & (OLG_VF_INPUT | OLG_VF_INITIALIZER));
    if (!claim && (s = new_value(r, gs, nm, &v, VK_NORMAL))) return s;
    gs->kind[v] = VK_NORMAL;
    g->values[v].producer = id;
    g->values[v].slot = (int32_t)(ko - 1);
    *o = v;
  }
  nd = &g->nodes[id];
  nd->outputs = outs;
  nd->n_outputs = (uint32_t)n_out;
  if (n_meta) {
    olg_kv *kv = aalloc(r, n_meta, sizeof *kv);
    if (!kv) return OLG_ERR_NOMEM;
    if ((s = rd_kvs(r, fn->p, end, md, 9, n_meta, kv, &nd->extra))) return s;
    nd->metadata = kv;
    nd->n_metadata = (uint32_t)n_meta;
  }
  nd->state = OLG_NODE_DONE;
  r->at.node = r->at.op = NULL;
  r->depth--;
  return OLG_OK;
}

/* The name, element type and dims of a sparse initializer, to define its value. */
static olg_status sparse_init_value(rd *r, gstate *gs, const pbf *fs) {
  msgdesc *md = DESC(sparse_tensor_proto), *tmd = DESC(tensor_proto);
  const uint8_t *p = fs->p, *end = p + fs->n;
  pbf f, values = {0};
  bool has_values = false;
  size_t n_dims = 0;
  olg_status s;
  while (p < end) {
    if ((s = next_field(r, &p, end, md, &f))) return s;
    if (f.no == 1) { values = f; has_values = true; }
    else if (f.no == 3 && (s = rep_count(r, md, &f, &n_dims))) return s;
  }
  if (!has_values) return OLG_OK;
  pbf name = {0};
  bool has_name = false;
  int32_t elem = 0;
  for (p = values.p, end = values.p + values.n; p < end;) {
    if ((s = next_field(r, &p, end, tmd, &f))) return s;
    if (f.no == 8) { name = f; has_name = true; }
    else if (f.no == 2) elem = (int32_t)(uint32_t)f.v;
  }
  if (!has_name || !name.n || n_dims > INT32_MAX) return OLG_OK;
  const char *nm = cname(r, name.p, name.n);
  if (!nm) return OLG_ERR_NOMEM;
  if (olg__graph_lookup(gs->g, nm) >= 0) return OLG_OK;
  uint64_t *dims = n_dims ? aalloc(r, n_dims, sizeof *dims) : NULL;
  olg_dim *d = n_dims ? aalloc(r, n_dims, sizeof *d) : NULL;
  if (n_dims && (!dims || !d)) return OLG_ERR_NOMEM;
  if (n_dims && (s = rep_fill(r, fs->p, fs->p + fs->n, md, 3, n_dims, dims))) return s;
  for (size_t i = 0; i < n_dims; i++)
    d[i].value = (int64_t)dims[i] >= 0 ? (int64_t)dims[i] : OLG_DIM_UNKNOWN;
  olg_value v;
  if ((s = new_value(r, gs, nm, &v, VK_SPARSE))) return s;
  olg_type *ty = &gs->g->values[v].type;
  ty->kind = OLG_TYPE_SPARSE_TENSOR;
  ty->has_elem = true;
  ty->elem = elem;
  ty->has_shape = true;
  ty->rank = (int32_t)n_dims;
  ty->dims = d;
  return OLG_OK;
}

static olg_status rd_graph_body(rd *r, gstate *gs, const pbf *fg) {
  msgdesc *md = DESC(graph_proto);
  olg_graph *g = gs->g;
  olg_model *m = r->m;
  const uint8_t *p = fg->p, *end = p + fg->n;
  size_t n[17] = {0};
  olg_status s;
  pbf f;
  while (p < end) {
    if ((s = next_field(r, &p, end, md, &f))) return s;
    if (f.no <= 16) n[f.no]++;
    switch (f.no) {
    case 1: case 5: case 11: case 12: case 13: case 16: break;
    case 2:
      if (!(g->name = sdup(r, &f, NULL))) return OLG_ERR_NOMEM;
      if (!f.n && (s = set_flag(r, &g->extra, PBX_NAME_EMPTY))) return s;
      break;
    case 10: if (!(g->doc_string = sdup(r, &f, NULL))) return OLG_ERR_NOMEM; break;
    case 14: case 15: if ((s = keep_validated(r, &g->extra, &f))) return s; break;
    default: if ((s = keep_raw(r, &g->extra, &f))) return s;
    }
  }
  if (n[1] > UINT32_MAX / 2 || n[5] > UINT32_MAX / 2 || n[11] > UINT32_MAX / 2 ||
      n[12] > UINT32_MAX / 2 || n[13] > UINT32_MAX / 2)
    return perr(r, fg->p, "GraphProto '%s': too many nodes, initializers or values", g->name);
  r->at = (rpos){g->name ? g->name : "", NULL, NULL, NULL, 0};
  gs->list_n[L_INPUT] = (uint32_t)n[11];
  gs->list_n[L_OUTPUT] = (uint32_t)n[12];
  gs->list_n[L_VALUE_INFO] = (uint32_t)n[13];
  /* room up front: the vectors then grow without copying */
  if ((s = olg__grow(&m->alloc, (void **)&g->nodes, &g->cap_nodes, n[1], sizeof *g->nodes)) ||
      (s = olg__grow(&m->alloc, (void **)&g->inits, &g->cap_inits, n[5], sizeof *g->inits)))
    return s;

  /* inputs, then initializers (which may be inputs too), sparse initializers, nodes in order,
   * then outputs and value_info, which describe values defined by then */
  for (p = fg->p; n[11] && p < end;) {
    if ((s = next_field(r, &p, end, md, &f))) return s;
    if (f.no == 11 && (s = rd_value_info(r, gs, &f, L_INPUT))) return s;
  }
  for (p = fg->p; n[5] && p < end;) {
    if ((s = next_field(r, &p, end, md, &f))) return s;
    if (f.no != 5) continue;
    olg_tensor *t;
    if ((s = rd_tensor(r, &f, &t))) return s;
    const char *nm = t->name ? t->name : "";
    olg_value v = *nm ? olg__graph_lookup(g, nm) : -1;
    olg_value_rec *vr = v >= 0 ? &g->values[v] : NULL;
    if (vr && (vr->flags & OLG_VF_INPUT) && !(vr->flags & OLG_VF_INITIALIZER) && vr->producer < 0) {
      if ((s = olg__grow(&m->alloc, (void **)&g->inits, &g->cap_inits, (size_t)g->n_inits + 1,
                         sizeof *g->inits)))
        return s;
      vr->flags |= OLG_VF_INITIALIZER;
      vr->init = (int32_t)g->n_inits;
      vr->known = t;
      g->inits[g->n_inits++] = (struct olg_init){v, t};
    } else {
      if ((s = olg__graph_add_init(g, t, true, &v))) return s;
      if ((s = gs_fit(r, gs))) return s;
    }
  }
  for (p = fg->p; n[15] && p < end;) {
    if ((s = next_field(r, &p, end, md, &f))) return s;
    if (f.no == 15 && (s = sparse_init_value(r, gs, &f))) return s;
  }
  for (p = fg->p; n[1] && p < end;) {
    if ((s = next_field(r, &p, end, md, &f))) return s;
    if (f.no == 1 && (s = rd_node(r, gs, &f))) return s;
  }
  for (p = fg->p; n[12] && p < end;) {
    if ((s = next_field(r, &p, end, md, &f))) return s;
    if (f.no == 12 && (s = rd_value_info(r, gs, &f, L_OUTPUT))) return s;
  }
  for (p = fg->p; n[13] && p < end;) {
    if ((s = next_field(r, &p, end, md, &f))) return s;
    if (f.no == 13 && (s = rd_value_info(r, gs, &f, L_VALUE_INFO))) return s;
  }
  if (n[16]) {
    olg_kv *kv = aalloc(r, n[16], sizeof *kv);
    if (!kv) return OLG_ERR_NOMEM;
    if ((s = rd_kvs(r, fg->p, end, md, 16, n[16], kv, &g->extra))) return s;
    g->metadata = kv;
    g->n_metadata = (uint32_t)n[16];
  }
  /* In a subgraph, a name used but never defined comes from an enclosing graph. */
  if (g != m->graph) {
    for (uint32_t i = 0; i < g->n_values; i++) {
      olg_value_rec *vr = &g->values[i];
      if (vr->producer < 0 && !(vr->flags & (OLG_VF_INPUT | OLG_VF_INITIALIZER)) &&
          gs->kind[i] != VK_SPARSE)
        vr->flags |= OLG_VF_OUTER;
    }
  }
  return OLG_OK;
}

static olg_status rd_graph(rd *r, const pbf *fg, olg_graph *g) {
  olg_status s = enter(r, fg->p, DESC(graph_proto));
  if (s) return s;
  gstate gs = {g, {0, 0, 0}, NULL, NULL, 0};
  rpos outer = r->at; /* a subgraph's messages name it; its parent's resume after it */
  s = rd_graph_body(r, &gs, fg);
  gs_free(r, &gs);
  if (!s) {
    r->depth--;
    r->at = outer;
  }
  return s;
}

/* ---------------------------------------------------------------------------------------- */
/* ModelProto */

static olg_status rd_model(rd *r) {
  msgdesc *md = DESC(model_proto);
  olg_model *m = r->m;
  const uint8_t *p = r->base, *end = r->base + r->size;
  size_t n_opset = 0, n_meta = 0;
  bool has_ir = false, has_graph = false;
  pbf f, fg = {0};
  olg_status s;
  r->depth = 0;
  while (p < end) {
    if ((s = next_field(r, &p, end, md, &f))) return s;
    switch (f.no) {
    case 1: m->ir_version = (int64_t)f.v; has_ir = true; break;
    case 2: case 3: case 4: case 6: {
      static const uint32_t empty_flag[7] = {0, 0, PBX_NAME_EMPTY, PBX_PVERSION_EMPTY,
                                             PBX_DOMAIN_EMPTY, 0, PBX_DOC_EMPTY};
      const char *str = sdup(r, &f, NULL);
      if (!str) return OLG_ERR_NOMEM;
      if (f.no == 2) m->producer_name = str;
      else if (f.no == 3) m->producer_version = str;
      else if (f.no == 4) m->domain = str;
      else m->doc_string = str;
      if (!f.n && (s = set_flag(r, &m->extra, empty_flag[f.no]))) return s;
      break;
    }
    case 5: m->model_version = (int64_t)f.v; m->has_model_version = true; break;
    case 7:
      if (has_graph) return dup_singular(r, &f, md);
      fg = f;
      has_graph = true;
      break;
    case 8: n_opset++; break;
    case 14: n_meta++; break;
    case 20: case 25: case 26: if ((s = keep_validated(r, &m->extra, &f))) return s; break;
    default: if ((s = keep_raw(r, &m->extra, &f))) return s;
    }
  }
  if (!has_graph)
    return perr(r, end, "ModelProto has no graph (field 7)%s",
                r->size ? "" : ": the input is empty");
  if (!has_ir) {
    m->ir_version = 0;
    if ((s = set_flag(r, &m->extra, PBX_NO_IR_VERSION))) return s;
  }
  if (n_opset) {
    if (n_opset > UINT32_MAX / 2) return perr(r, r->base, "ModelProto: too many opset imports");
    if ((s = olg__grow(&m->alloc, (void **)&m->opsets, &m->cap_opsets, n_opset, sizeof *m->opsets)))
      return s;
    for (p = r->base; p < end;) {
      if ((s = next_field(r, &p, end, md, &f))) return s;
      if (f.no != 8) continue;
      bool exact;
      uint32_t i = m->n_opsets;
      if ((s = rd_opset(r, &f, &m->opsets[i], &exact))) return s;
      m->n_opsets++;
      if (!exact) {
        olg_pbx *x = pbx(r, &m->extra);
        if (!x) return OLG_ERR_NOMEM;
        if (!x->opset_verbatim) {
          if (!(x->opset_verbatim = aalloc(r, n_opset, sizeof *x->opset_verbatim)))
            return OLG_ERR_NOMEM;
          x->n_opset_verbatim = (uint32_t)n_opset;
        }
        x->opset_verbatim[i] = (olg_pb_span){f.p, f.n};
      }
    }
  }
  if (n_meta) {
    if (n_meta > UINT32_MAX / 2) return perr(r, r->base, "ModelProto: too many metadata entries");
    if ((s = olg__grow(&m->alloc, (void **)&m->metadata, &m->cap_metadata, n_meta,
                       sizeof *m->metadata)))
      return s;
    if ((s = rd_kvs(r, r->base, end, md, 14, n_meta, m->metadata, &m->extra))) return s;
    m->n_metadata = (uint32_t)n_meta;
  }
  return rd_graph(r, &fg, m->graph);
}

/* ---------------------------------------------------------------------------------------- */
/* Entry points */

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
  r.base = n ? data : empty_input;
  r.size = n;
  r.owner = owner;
  r.ext_dir = ext_dir;
  r.load_ext = o->load_external_data != 0;
  olg_status s = rd_model(&r);
  olg__free(&m->alloc, r.scratch, r.scratch_cap);
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
    olg_model_free(m);
    return olg__err_prefix(s, "reading a model from memory");
  }
  *out = m;
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
    s = olg__err(OLG_ERR_IO, "'%s' %s", path, file_kind(st.st_mode));
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
    olg_model_free(m);
    return olg__err_prefix(s, "reading '%s'", path);
  }
  *out = m;
  return OLG_OK;
}
