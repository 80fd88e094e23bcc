/* onnxlegal — the wire fields of an ONNX ModelProto, decided once for both writers (internal).
 *
 * pb_fields.c says which fields of each message are written, in which order (field-number
 * order, as ONNX's reference implementation writes them), under which conditions (presence
 * flags, what the reader kept in `extra` and whether it is still current, the tensor data
 * field, external data), and with which packing. It encodes nothing itself: a writer hands it
 * an olg_pbw whose ops put a field on the wire. The default writer (pb_writer.c: two runs, a
 * length vector) and the nanopb writer (nanopb_writer.c: nanopb streams, no allocation) are
 * such ops; so both write the same bytes by construction. pb_fields.c allocates nothing.
 *
 * Every function returns false on failure; the first failure's status is in w->c->st (its
 * message set), and a writer stops at it. */
#ifndef OLG_SERIALIZE_PB_FIELDS_H
#define OLG_SERIALIZE_PB_FIELDS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pb.h"

typedef struct olg_pbw olg_pbw;

/* Writes the contents of a sub-message (obj, aux: what the message is made from). */
typedef bool (*olg_pbw_body)(const olg_pbw *w, const void *obj, const void *aux);

typedef struct olg_pbw_ops {
  bool (*varint)(const olg_pbw *w, uint32_t no, uint64_t v);            /* tag + varint */
  bool (*bytes)(const olg_pbw *w, uint32_t no, const void *p, size_t n); /* tag + length + p */
  bool (*fixed32)(const olg_pbw *w, uint32_t no, uint32_t v);            /* tag + 4 bytes LE */
  bool (*bare_varint)(const olg_pbw *w, uint64_t v); /* an element of a packed field */
  bool (*raw)(const olg_pbw *w, const void *p, size_t n); /* bytes already encoded (kept) */
  /* A length-delimited field: tag, the length of what body writes, then body's bytes. */
  bool (*sub)(const olg_pbw *w, uint32_t no, olg_pbw_body body, const void *obj,
              const void *aux);
  /* With external data on: reserves tensor t's place in the external data file (and writes it
   * there, when the writer is at that point); *at is its offset. NULL: no external data. */
  bool (*ext_place)(const olg_pbw *w, const olg_tensor *t, uint64_t *at);
} olg_pbw_ops;

/* What every level of one writing shares. */
typedef struct olg_pbw_common {
  olg_status st; /* the first failure; everything after it is skipped */
  int depth;     /* message nesting, against OLG_PB_MAX_DEPTH */
  /* external data: tensors whose data is at least ext_threshold bytes go to file ext_name */
  bool ext_on;
  const char *ext_name;
  uint64_t ext_threshold;
} olg_pbw_common;

/* One message level of a writing: the ops, the shared state, and the writer's own stream for
 * this level (nanopb: a sizing or a writing pb_ostream_t; unused by the default writer). */
struct olg_pbw {
  const olg_pbw_ops *ops;
  olg_pbw_common *c;
  void *stream;
};

/* Records the first failure; returns false so that `return olg__pbw_fail(...)` unwinds. */
bool olg__pbw_fail(const olg_pbw *w, olg_status s);

/* The contents of a ModelProto for m (the top level: no tag, no length). */
bool olg__pbw_model(const olg_pbw *w, const olg_model *m);

#endif
