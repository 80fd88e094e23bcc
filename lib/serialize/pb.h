/* onnxlegal — the protobuf back end: shared definitions of the reader and the writer.
 *
 * The reader decodes the wire format straight into the IR (lib/ir.h); tensor bytes stay in the
 * file's mapping. Whatever the IR cannot express is kept, as raw bytes of the input, in the
 * `extra` pointer of the IR object it belongs to (an olg_pbx, allocated in the model's arena, only
 * for objects that need one), and the writer re-emits it. The IR never looks inside.
 *
 * An extra describes the object as it was read; passes may keep it, copy it along with the object
 * or drop it. Every verbatim part carries its own staleness check, so an edit of the IR wins over
 * what was read: a kept TypeProto is written only while the olg_type still holds what it was
 * read as (same kind, element type, rank, and the same dims and inner arrays -- dims arrays are
 * never changed in place), kept tensor data only while tensor->data is the reader's buffer, a
 * kept metadata entry only while the IR entry reads the same. */
#ifndef OLG_SERIALIZE_PB_H
#define OLG_SERIALIZE_PB_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ir.h"

/* Nesting limit of protobuf messages (reader and writer): the main graph is at depth 2, and each
 * level of subgraph adds 3 (GraphProto > NodeProto > AttributeProto > GraphProto). Subgraphs are
 * bounded first by the one limit of every stage, OLG_MAX_SUBGRAPH_DEPTH (50 levels: 152
 * messages), which leaves 40 for the deepest body's types and tensors. Recursion stays far from
 * the stack's limit. */
#define OLG_PB_MAX_DEPTH 192

/* Wire types. */
enum { PB_VARINT = 0, PB_I64 = 1, PB_LEN = 2, PB_SGROUP = 3, PB_EGROUP = 4, PB_I32 = 5 };

/* A run of input bytes. */
typedef struct olg_pb_span {
  const uint8_t *p;
  size_t n;
} olg_pb_span;

/* A whole field as it was read (tag included), re-emitted as is. */
typedef struct olg_pb_raw {
  uint32_t field; /* its field number */
  bool unknown;   /* not in the schema: written after the known fields, in input order */
  olg_pb_span bytes;
} olg_pb_raw;

/* Presence quirks: what the IR's conventions cannot tell apart. */
enum {
  /* string fields present but empty, where the IR's "" means absent */
  PBX_NAME_EMPTY = 1u << 0,       /* node.name, graph.name, model.producer_name */
  PBX_DOMAIN_EMPTY = 1u << 1,     /* node.domain, model.domain */
  PBX_PVERSION_EMPTY = 1u << 2,   /* model.producer_version */
  PBX_DOC_EMPTY = 1u << 3,        /* model.doc_string */
  /* fields the IR always writes but the input lacked */
  PBX_NO_IR_VERSION = 1u << 4,    /* model.ir_version */
  PBX_NO_NAME = 1u << 6,          /* value_info.name, attribute.name */
  PBX_NO_OP_TYPE = 1u << 7,       /* node.op_type */
  PBX_NO_ATTR_TYPE = 1u << 8,     /* attribute.type (old files; the IR type was inferred) */
  /* attribute: which scalar fields were present, used instead of the type rule */
  PBX_ATTR_PRESENCE = 1u << 9,
  PBX_ATTR_F = 1u << 10,
  PBX_ATTR_I = 1u << 11,
  PBX_ATTR_S = 1u << 12,
  PBX_ATTR_LISTS = 1u << 13,      /* several list fields: counts in list_n[] */
  PBX_ATTR_TYPE_RAW = 1u << 14,   /* attribute.type is not an AttributeType: attr_type holds it */
  PBX_LOC_DEFAULT = 1u << 15,     /* tensor.data_location = DEFAULT was present */
  PBX_VI_NO_TYPE = 1u << 16       /* value: its primary ValueInfoProto had no type (the IR type,
                                     in type_snapshot, came from the initializer) */
};

/* Attribute list fields, in the order of list_n[]. */
enum { PBX_L_FLOATS, PBX_L_INTS, PBX_L_STRINGS, PBX_L_TENSORS, PBX_L_GRAPHS, PBX_L_SPARSES,
       PBX_L_TPS, PBX_L_COUNT };

/* A ValueInfoProto that differs from its value's primary one (a name listed again in input,
 * output or value_info with other contents), at one position of one of those lists: its bytes,
 * used while the list still holds the same value there, under the same name. */
typedef struct olg_pbx_vi {
  olg_value v;
  olg_pb_span vi; /* the ValueInfoProto's payload; p NULL: none at this position */
} olg_pbx_vi;

/* An external data file as the reader found it: the writer copies an unchanged tensor from it to
 * its own data file in the kernel (issue 23 d), once it has checked it is still the same file. */
typedef struct olg_ext_src {
  const char *dir, *location; /* opened as the reader did: location beneath dir */
  uint64_t dev, ino, size;
  int64_t mtime_s, mtime_ns;
} olg_ext_src;

typedef struct olg_pbx {
  /* Raw fields: unknown ones (written at the end, in input order) and known ones the IR does not
   * hold (training_info, functions, configuration, sparse_initializer, quantization_annotation,
   * device_configurations, segment, tensor metadata_props, ...: written at their number's place). */
  olg_pb_raw *raw;
  uint32_t n_raw;
  uint32_t flags; /* PBX_* */
  /* metadata_props / opset_import / external_data entries that the IR's C strings cannot hold
   * exactly (absent key, NUL inside, unknown fields): per entry index, the entry's payload (n == 0
   * and p == NULL: write from the IR). Used only while the IR entry still reads the same. */
  olg_pb_span *kv_verbatim;
  uint32_t n_kv_verbatim;
  olg_pb_span *opset_verbatim; /* model only */
  uint32_t n_opset_verbatim;
  /* TypeProto (type extras): the whole TypeProto payload, written instead of the IR type while
   * the type still equals type_snapshot (its contents when read, extra aside). Values with
   * PBX_VI_NO_TYPE: the type the value had then. */
  olg_pb_span type_verbatim;
  bool has_type_verbatim;
  olg_type type_snapshot;
  /* TensorProto: the data fields as read, written instead of data converted from the IR while
   * tensor->data is still data_snapshot (the reader's own buffer) */
  olg_pb_raw *data_verbatim;
  uint32_t n_data_verbatim;
  const void *data_snapshot;
  /* TensorProto with external data: its bytes are at ext_off of ext_src while tensor->data is
   * still ext_data (the reader's pointer; the bytes it points at never change) */
  const olg_ext_src *ext_src;
  uint64_t ext_off;
  const void *ext_data;
  /* AttributeProto */
  int64_t attr_type;                 /* with PBX_ATTR_TYPE_RAW */
  uint32_t list_n[PBX_L_COUNT];      /* with PBX_ATTR_LISTS */
  /* graph: per list (0 input, 1 output, 2 value_info), by position, the other ValueInfoProtos */
  olg_pbx_vi *vi_alt[3];
  uint32_t n_vi_alt[3];
} olg_pbx;

/* The sparse tensor(s) of an attribute: olg_attr.sparse / sparses point to olg_pb_span (the
 * SparseTensorProto payload). */

/* The list (PBX_L_*) an attribute type uses, or -1. */
static inline int olg__pb_attr_list(int type) {
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

/* pb_open.c: why a file that is not a regular one is refused. */
const char *olg__pbr_file_kind(mode_t m);

/* Opens `location` beneath directory `dir` without leaving it: a relative path, no ".." and no
 * empty component, and no symbolic link on the way (each component is opened with O_NOFOLLOW, as
 * ONNX's external-data rules ask). Returns the fd, or -1 with errno set and *why set to a reason
 * when the location itself is refused. */
int olg__pb_open_beneath(const char *dir, const char *location, int flags, mode_t mode,
                         const char **why);

/* ---- varints ---- */
static inline unsigned olg__pb_varint_size(uint64_t v) {
  unsigned n = 1;
  while (v >= 0x80) {
    v >>= 7;
    n++;
  }
  return n;
}

#endif
