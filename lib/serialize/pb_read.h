/* onnxlegal — the protobuf reader's internal interface, shared by its parts (internal):
 * pb_reader.c (errors, wire primitives, what is kept uninterpreted, key/value and opset entries,
 * ModelProto, the entry points), pb_read_type.c (TypeProto), pb_read_graph.c (GraphProto,
 * ValueInfoProto, NodeProto, AttributeProto) and pb_read_tensor.c (TensorProto, external data). */
#ifndef OLG_SERIALIZE_PB_READ_H
#define OLG_SERIALIZE_PB_READ_H
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>

#include "pb.h"
#include "pb_schema.h"

/* A message of the schema (the tables tools/gen_pb_schema.py makes from onnx.proto). */
typedef const olg_pb_msg msgdesc;
#define DESC(x) (&olg__pbm_##x)

typedef struct ext_file {
  const char *location;
  const uint8_t *addr;
  size_t size;
  olg_ext_src src;
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
  const char *ext_dir; /* olg__pbr_where external data is resolved; NULL: refused */
  bool load_ext;
  /* the external data files mapped so far, and their indexes by location (a model saved one
   * file per tensor names tens of thousands); both freed with the reader */
  ext_file **ext_files;
  uint32_t ext_n, ext_cap;
  olg_namemap ext_by_location;
  int depth;
  int graphs; /* GraphProtos open: the subgraph depth is one less */
  char *scratch; /* NUL-terminated copy of a name, for lookups */
  size_t scratch_cap;
  /* op types and domains read so far, by a hash of their bytes: a million nodes of a few ops
   * share a few arena strings */
  const char *interned[64];
  uint32_t interned_n[64];
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
  const olg_pb_field *fd;      /* NULL: not in the schema */
} pbf;

/* An empty input, where a zero-length input or file is mapped. */
extern const uint8_t olg__pbr_empty_input[1];

/* pb_read_type.c: an outermost TypeProto; kept verbatim when the IR cannot express it, or when
 * it is present but empty where the IR's kind NONE would mean absent (keep_empty). */
olg_status olg__pbr_rd_type_top(rd *r, const pbf *f, olg_type *ty, bool keep_empty);

/* pb_read_attr.c: an AttributeProto of a node of parent (its subgraphs' enclosing graph) */
olg_status olg__pbr_dup_singular(rd *r, const pbf *f, msgdesc *md);
olg_status olg__pbr_rd_attr(rd *r, olg_graph *parent, const pbf *fa, olg_attr *a);

/* pb_read_graph.c */
olg_status olg__pbr_rd_graph(rd *r, const pbf *fg, olg_graph *g);
olg_status olg__pbr_rd_function_body(rd *r, const pbf *ff, olg_graph *g);
olg_status olg__pbr_rd_function_attr(rd *r, const pbf *fa, olg_graph *body, olg_attr *a);

/* pb_read_function.c */
olg_status olg__pbr_rd_function(rd *r, const pbf *ff, olg_function *fn);

/* pb_read_tensor.c */
olg_status olg__pbr_rd_tensor(rd *r, const pbf *ft, olg_tensor **out);

/* pb_reader.c */
size_t olg__pbr_off(const rd *r, const uint8_t *at);
olg_status olg__pbr_perr(rd *r, const uint8_t *at, const char *fmt, ...) OLG_PRINTF(3, 4);
const char *olg__pbr_where(const rd *r, char *buf, size_t cap);
const char *olg__pbr_twhere(const rd *r, const char *tname, char *buf, size_t cap);
/* Names, op types and domains are C strings in the IR: one holding a NUL byte would be cut there
 * (another name, op or domain: a silent change of the model), so it is refused. n bytes at p are
 * `what` (field words, e.g. "op_type", "input 2") of the message `where` names (NULL: the
 * position olg__pbr_where gives). */
olg_status olg__pbr_nul_name(rd *r, const uint8_t *p, size_t n, const char *what,
                             const char *where);
/* Whether one of the n bytes at p is 0: up to 16 in two words (a node's op type, a name), inline
 * where a call to memchr took a fifth of the check. */
static inline bool olg__pbr_has_nul(const uint8_t *p, size_t n) {
  const uint64_t lo = 0x0101010101010101u, hi = 0x8080808080808080u;
  uint64_t a, b;
  if (n > 16) return memchr(p, 0, n) != NULL;
  if (n >= 8) {
    memcpy(&a, p, 8);
    memcpy(&b, p + n - 8, 8);
  } else if (n >= 4) { /* two 4-byte words, each made 8 with bytes that are not 0 */
    uint32_t x, y;
    memcpy(&x, p, 4);
    memcpy(&y, p + n - 4, 4);
    a = x | 0xffffffff00000000u, b = y | 0xffffffff00000000u;
  } else {
    return n && (!p[0] || !p[n / 2] || !p[n - 1]);
  }
  return (((a - lo) & ~a) | ((b - lo) & ~b)) & hi;
}
static inline olg_status olg__pbr_no_nul(rd *r, const uint8_t *p, size_t n, const char *what) {
  return olg__pbr_has_nul(p, n) ? olg__pbr_nul_name(r, p, n, what, NULL) : OLG_OK;
}
olg_status olg__pbr_enter(rd *r, const uint8_t *at, msgdesc *md);
olg_status olg__pbr_next_field(rd *r, const uint8_t **cur, const uint8_t *end, msgdesc *md,
                               pbf *f);
/* olg__pbr_next_field with its common cases inline: a one-byte tag (numbers 1 to 15) of a field
 * the schema has as length-delimited, whose length takes one or two bytes and fits before end,
 * or as a varint, whose value takes one byte. The same field, the same checks: anything else
 * (and every error) takes the full path. */
static inline olg_status olg__pbr_next(rd *r, const uint8_t **cur, const uint8_t *end,
                                       msgdesc *md, pbf *f) {
  const uint8_t *p = *cur;
  if (end - p >= 2 && p[0] < 0x80) {
    uint32_t no = (uint32_t)p[0] >> 3;
    const olg_pb_field *fd = no - 1 < md->n_fields ? &md->fields[no - 1] : NULL;
    if (fd && fd->no == no && fd->wt == (p[0] & 7)) {
      if (fd->wt == PB_LEN) {
        size_t n = p[1];
        const uint8_t *q = p + 2;
        if (n >= 0x80) {
          if (end - p < 3 || p[2] >= 0x80) return olg__pbr_next_field(r, cur, end, md, f);
          n = (n & 0x7f) | (size_t)p[2] << 7;
          q = p + 3;
        }
        if (n <= (size_t)(end - q)) {
          f->no = no;
          f->wt = PB_LEN;
          f->v = 0;
          f->p = q;
          f->n = n;
          f->start = p;
          f->end = *cur = q + n;
          f->fd = fd;
          return OLG_OK;
        }
      } else if (fd->wt == PB_VARINT && p[1] < 0x80) {
        f->no = no;
        f->wt = PB_VARINT;
        f->v = p[1];
        f->p = NULL;
        f->n = 0;
        f->start = p;
        f->end = *cur = p + 2;
        f->fd = fd;
        return OLG_OK;
      }
    }
  }
  return olg__pbr_next_field(r, cur, end, md, f);
}

/* Whether the n bytes at a and b are equal: inline for the short strings of names and op
 * types (two loads each up to 16 bytes), memcmp beyond. */
static inline bool olg__pbr_eq(const uint8_t *a, const uint8_t *b, size_t n) {
  if (n > 16) return memcmp(a, b, n) == 0;
  if (n >= 8) {
    uint64_t a0, a1, b0, b1;
    memcpy(&a0, a, 8);
    memcpy(&b0, b, 8);
    memcpy(&a1, a + n - 8, 8);
    memcpy(&b1, b + n - 8, 8);
    return ((a0 ^ b0) | (a1 ^ b1)) == 0;
  }
  if (n >= 4) {
    uint32_t a0, a1, b0, b1;
    memcpy(&a0, a, 4);
    memcpy(&b0, b, 4);
    memcpy(&a1, a + n - 4, 4);
    memcpy(&b1, b + n - 4, 4);
    return ((a0 ^ b0) | (a1 ^ b1)) == 0;
  }
  /* 0 to 3 bytes: the first, middle and last cover them */
  return !n || (a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1]);
}

olg_status olg__pbr_rep_count(rd *r, msgdesc *md, const pbf *f, size_t *count);
olg_status olg__pbr_rep_fill(rd *r, const uint8_t *p, const uint8_t *end, msgdesc *md, uint32_t no,
                            size_t count, uint64_t *out);
void *olg__pbr_aalloc(rd *r, size_t count, size_t size);
const char *olg__pbr_sdup(rd *r, const pbf *f, bool *lossy);
olg_status olg__pbr_text(rd *r, const void **slot, const pbf *f, const char **out);
/* olg__pbr_aalloc(r, 1, n) and olg__pbr_sdup(r, f, NULL) with the arena's common case inline:
 * room in its current chunk (each call took four calls down to the arena's bump, twice a
 * node). The same block as olg_arena_alloc (8-aligned, zeroed) or olg_arena_alloc_str would
 * give; a new chunk, a large block and every error take the full path. */
static inline void *olg__pbr_ablock(rd *r, size_t n) {
  size_t n8 = (n + 7) & ~(size_t)7;
  char *p = n && n <= 4096 ? olg_arena_take(&r->m->arena, n8, 8) : NULL;
  if (!p) return olg__pbr_aalloc(r, 1, n);
  if (n8 > 64) return memset(p, 0, n);
  /* a node's few arguments: a word at a time, not a call to memset (3% of reading a chain) */
  for (size_t i = 0; i < n8; i += 8) memcpy(p + i, &(uint64_t){0}, 8);
  return p;
}
static inline const char *olg__pbr_sdup_name(rd *r, const pbf *f) {
  size_t n = f->n;
  char *p = n < 4096 ? olg_arena_take(&r->m->arena, n + 1, 1) : NULL;
  if (!p) return olg__pbr_sdup(r, f, NULL);
  if (n) memcpy(p, f->p, n);
  p[n] = 0;
  return p;
}
const char *olg__pbr_cname(rd *r, const uint8_t *p, size_t n);
const char *olg__pbr_intern_new(rd *r, const pbf *f, uint32_t slot);
/* Like olg__pbr_sdup, but the same bytes as a recent call give the same string: an op type, a
 * domain (the cache's check inline: once a node). */
static OLG_ALWAYS_INLINE const char *olg__pbr_intern(rd *r, const pbf *f) {
  /* the slot by the length and three bytes (a clash costs a copy, not a wrong string) */
  size_t n = f->n;
  uint32_t h = n ? (uint32_t)(n + 3u * f->p[0] + 5u * f->p[n - 1] + 7u * f->p[n / 2]) & 63 : 0;
  const char *q = r->interned[h];
  if (q && r->interned_n[h] == n && olg__pbr_eq((const uint8_t *)q, f->p, n)) return q;
  return olg__pbr_intern_new(r, f, h);
}
olg_pbx *olg__pbr_pbx(rd *r, const void **slot);
olg_status olg__pbr_set_flag(rd *r, const void **slot, uint32_t flag);
olg_status olg__pbr_push_raw(rd *r, olg_pb_raw **arr, uint32_t *n, const pbf *f);
olg_status olg__pbr_keep_raw(rd *r, const void **slot, const pbf *f);
olg_status olg__pbr_validate_msg(rd *r, const uint8_t *p, size_t n, msgdesc *md);
olg_status olg__pbr_keep_validated(rd *r, const void **slot, const pbf *f);
olg_status olg__pbr_rd_opset(rd *r, const pbf *fe, olg_opset *os, bool *exact);
olg_status olg__pbr_rd_kvs(rd *r, const uint8_t *p, const uint8_t *end, msgdesc *md, uint32_t no,
                           size_t count, olg_kv *kv, const void **slot);

#define OLG_PBR_PREFETCH_NODES 4 /* how many nodes ahead of the one read */
/* A node's first output name as the lookahead saw it: where its bytes are (NULL: none seen),
 * how many there are, how many of them the name maps take (up to a NUL) and their
 * olg__name_hash. */
typedef struct olg_pbr_ahead {
  const uint8_t *p;
  size_t raw_n, n;
  uint32_t h;
} olg_pbr_ahead;
/* From p (a GraphProto field at or before the next NodeProto, end the end of the node fields):
 * prefetches the name-map slots of that node's output names, notes its first one in *first,
 * and returns where the field after it starts, or NULL when the bytes do not look as expected
 * (the real parse reports them). */
const uint8_t *olg__pbr_prefetch_node_outputs(const olg_graph *g, const uint8_t *p,
                                               const uint8_t *end, olg_pbr_ahead *first);

#endif
