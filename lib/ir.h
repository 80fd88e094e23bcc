/* onnxlegal — the internal IR. Library code (serializers, validator, inference, lowering) reads
 * and builds these structs directly; the public API in include/onnxlegal/graph.h wraps them.
 *
 * Memory: all small, immutable data (strings, dims, finished argument and attribute arrays)
 * lives in the model's arena and is freed with the model. The growing vectors (values, nodes,
 * lists) use the model's allocator and double, so appending is amortized O(1). */
#ifndef OLG_IR_H
#define OLG_IR_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "onnxlegal/onnxlegal.h"
#include "util.h"

/* A byte string (ONNX strings are bytes and may hold NUL). */
typedef struct olg_bytes {
  const char *p;
  size_t n;
} olg_bytes;

typedef struct olg_kv {
  const char *key;
  const char *value;
} olg_kv;

/* One dim of a tensor shape. */
typedef struct olg_dim {
  int64_t value;          /* >= 0 fixed; OLG_DIM_UNKNOWN otherwise */
  const char *param;      /* symbolic name, or NULL */
  const char *denotation; /* or NULL */
} olg_dim;

typedef enum olg_type_kind {
  OLG_TYPE_NONE = 0, /* no type recorded */
  OLG_TYPE_TENSOR = 1,
  OLG_TYPE_SEQUENCE = 2,
  OLG_TYPE_MAP = 3,
  OLG_TYPE_OPTIONAL = 4,
  OLG_TYPE_SPARSE_TENSOR = 5,
  OLG_TYPE_OPAQUE = 6
} olg_type_kind;

/* The rarely set parts of a type, apart so that every value's type stays small (24 bytes, was
 * 64). Immutable once a type points to it (types are copied by value and share it): change it
 * through olg__type_more_own / olg__type_set_more or the setters below, which give the type a new
 * one. The same holds for olg_node_more and olg_value_more (nodes are copied by value too).
 * Read it through the accessors below (olg__type_inner, olg__type_key, olg__type_elem, ...). */
typedef struct olg_type_more {
  const char *denotation;
  const char *opaque_domain, *opaque_name;
  const void *extra; /* serializer's: unknown fields of TypeProto and its parts */
  /* SEQUENCE / OPTIONAL: the element type; MAP: the value type; or NULL. In the model's arena
   * (never a value record's type: value arrays move) and, as this record, never changed. */
  const struct olg_type *inner;
  olg_dtype key;  /* MAP: the key dtype (0: none) */
  /* The element type when it does not fit olg_type.elem8 (an unknown code a reader met: above
   * 254 or negative), olg_type.elem8 being OLG_TYPE_ELEM_WIDE; 0 otherwise. */
  olg_dtype elem;
} olg_type_more;

/* olg_type.elem8 of a type whose element type is in more->elem. */
#define OLG_TYPE_ELEM_WIDE 255

/* A TypeProto. For TENSOR and SPARSE_TENSOR: elem, rank, dims. SEQUENCE / OPTIONAL: inner is the
 * element type. MAP: key is the key dtype, inner the value type. OPAQUE: domain/name. inner, key,
 * the opaque names and the denotation are in the side record (`more`), which most types do not
 * have: a value record holds a type (two graphs' value records at a time), so it stays 24 bytes.
 * Read the element type with olg__type_elem and set it with olg__type_set_elem, not through
 * elem8: a code that does not fit a byte (one a reader met, unknown) is in the side record. */
typedef struct olg_type {
  uint8_t kind;
  bool has_shape;  /* false: rank unknown (no shape field); true: rank == dims count */
  bool has_elem;   /* elem_type field present (it may be 0 in a partial type) */
  uint8_t elem8;   /* the element type, or OLG_TYPE_ELEM_WIDE: it is more->elem */
  int32_t rank;    /* OLG_RANK_UNKNOWN when !has_shape */
  olg_dim *dims;
  const olg_type_more *more; /* or NULL: denotation, opaque names, extra, inner, key all NULL / 0 */
} olg_type;
_Static_assert(sizeof(olg_type) <= 24, "olg_type grew: one per value, two graphs at a time");

/* Which TensorProto field the data came from (and goes back to on write). Native data is always
 * what `data` points to; the writer converts to the field's encoding. */
typedef enum olg_tensor_encoding {
  OLG_ENC_RAW = 0,    /* raw_data (default for new tensors) */
  OLG_ENC_FLOAT = 1,  /* float_data */
  OLG_ENC_INT32 = 2,  /* int32_data */
  OLG_ENC_STRING = 3, /* string_data */
  OLG_ENC_INT64 = 4,  /* int64_data */
  OLG_ENC_DOUBLE = 5, /* double_data */
  OLG_ENC_UINT64 = 6, /* uint64_data */
  OLG_ENC_EXTERNAL = 7, /* data_location EXTERNAL, not loaded (data NULL) */
  OLG_ENC_NONE = 8    /* no data field at all (an empty or partial TensorProto) */
} olg_tensor_encoding;

typedef enum olg_data_owner {
  OLG_OWNER_BORROWED = 0, /* the caller's, or the model's arena */
  OLG_OWNER_ALLOCATED = 1, /* through the model's allocator; freed with it */
  OLG_OWNER_RELEASE = 2,  /* release(ud, data, nbytes) when the model is freed */
  OLG_OWNER_MAPPED = 3    /* inside a mapping the model holds */
} olg_data_owner;

/* Tensor data (olg_tensor.data, what olg_graph_add_initializer takes and what the API hands out)
 * is in the host's byte order, so that every stage reads elements as C numbers; ONNX files hold
 * it little-endian. Only the reader and the writers convert, and only on a big-endian host:
 * elsewhere OLG_BIG_ENDIAN is 0 and the conversions compile away. */
#if defined(__BYTE_ORDER__) && defined(__ORDER_BIG_ENDIAN__) && \
    __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define OLG_BIG_ENDIAN 1
#else
#define OLG_BIG_ENDIAN 0
#endif
/* dtype.c: the bytes of each unit whose order is the host's: 2, 4 or 8 (a complex number: each
 * part); 0 for types with no byte order (8-bit and sub-byte types, bool, string). */
unsigned olg__dtype_swap_unit(olg_dtype dt);
/* dst = the n bytes of src with every unit-byte group reversed (dst == src is allowed; a tail
 * shorter than a unit is copied as it is). */
void olg__swap_bytes(void *dst, const void *src, size_t n, unsigned unit);
/* The unit dt's data is swapped by between the wire (little-endian) and memory; 0: no swap. */
static inline unsigned olg__wire_swap_unit(olg_dtype dt) {
  return OLG_BIG_ENDIAN ? olg__dtype_swap_unit(dt) : 0;
}
/* An unsigned integer of w bytes (1, 2, 4 or 8) in the host's order. */
static inline uint64_t olg__load_uint(const void *p, unsigned w) {
  uint8_t b; uint16_t h; uint32_t u; uint64_t q;
  switch (w) {
  case 1: memcpy(&b, p, 1); return b;
  case 2: memcpy(&h, p, 2); return h;
  case 4: memcpy(&u, p, 4); return u;
  default: memcpy(&q, p, 8); return q;
  }
}
static inline void olg__store_uint(void *p, uint64_t v, unsigned w) {
  uint8_t b = (uint8_t)v; uint16_t h = (uint16_t)v; uint32_t u = (uint32_t)v;
  switch (w) {
  case 1: memcpy(p, &b, 1); break;
  case 2: memcpy(p, &h, 2); break;
  case 4: memcpy(p, &u, 4); break;
  default: memcpy(p, &v, 8); break;
  }
}

typedef struct olg_tensor {
  const char *name;       /* may be NULL (a tensor attribute need not be named) */
  const char *doc_string; /* or NULL */
  olg_dtype dtype;
  int32_t rank;
  int64_t *dims;
  const void *data; /* native elements, in the host's byte order; for STRING: NULL */
  size_t nbytes;
  olg_bytes *strings; /* STRING tensors */
  size_t n_strings;
  uint8_t encoding; /* olg_tensor_encoding */
  uint8_t owner;    /* olg_data_owner */
  bool has_dtype;   /* the data_type field was present (round-trip fidelity) */
  olg_release_fn release;
  void *release_ud;
  /* external data as read or to be written: key/value pairs in file order */
  olg_kv *external;
  size_t n_external;
  bool external_loaded; /* data points into the external file's mapping */
  const void *extra;    /* serializer's: segment, metadata_props, unknown fields */
} olg_tensor;

/* A positional argument of a node. */
typedef enum olg_arg_kind {
  OLG_ARG_NONE = 0,   /* none / an omitted optional input */
  OLG_ARG_VALUE = 1,  /* u.v */
  OLG_ARG_VALUES = 2, /* u.vals[n]: a list of values (Tensor[]; or int[] with dynamic elements) */
  OLG_ARG_INT = 3,    /* u.i */
  OLG_ARG_FLOAT = 4,  /* u.f */
  OLG_ARG_BOOL = 5,   /* u.i */
  OLG_ARG_STRING = 6, /* u.s, n bytes (may hold NUL) */
  OLG_ARG_INTS = 7,   /* u.ints[n] */
  OLG_ARG_FLOATS = 8  /* u.floats[n] */
} olg_arg_kind;

/* The length of a list or string sits beside kind, in what was padding, not in the union: the
 * argument takes 16 bytes, not 24 (~1.6 per node, two graphs at a time). Lengths above
 * OLG_ARG_MAX_LEN are refused where an argument is made (olg_node_arg_*, OLG_ERR_LIMIT). */
#define OLG_ARG_MAX_LEN UINT32_MAX
typedef struct olg_arg {
  uint8_t kind;
  uint32_t n; /* VALUES, STRING, INTS, FLOATS: the length; otherwise 0 */
  union {
    olg_value v;
    int64_t i; /* INT and BOOL */
    double f;
    const char *s;
    const olg_value *vals;
    const int64_t *ints;
    const double *floats;
  } u;
} olg_arg;
/* A STRING argument's bytes. */
_Static_assert(sizeof(olg_arg) <= 16, "olg_arg grew: ~1.6 per node, two graphs at a time");
static inline olg_bytes olg__arg_bytes(const olg_arg *a) { return (olg_bytes){a->u.s, a->n}; }

/* AttributeProto.AttributeType */
typedef enum olg_attr_type {
  OLG_ATTR_UNDEFINED = 0,
  OLG_ATTR_FLOAT = 1, OLG_ATTR_INT = 2, OLG_ATTR_STRING = 3, OLG_ATTR_TENSOR = 4,
  OLG_ATTR_GRAPH = 5, OLG_ATTR_FLOATS = 6, OLG_ATTR_INTS = 7, OLG_ATTR_STRINGS = 8,
  OLG_ATTR_TENSORS = 9, OLG_ATTR_GRAPHS = 10, OLG_ATTR_SPARSE_TENSOR = 11,
  OLG_ATTR_SPARSE_TENSORS = 12, OLG_ATTR_TYPE_PROTO = 13, OLG_ATTR_TYPE_PROTOS = 14
} olg_attr_type;

typedef struct olg_attr {
  const char *name;
  uint8_t type;            /* olg_attr_type */
  const char *ref_attr_name; /* or NULL (function bodies) */
  const char *doc_string;    /* or NULL */
  float f;
  int64_t i;
  olg_bytes s;
  olg_tensor *t;
  struct olg_graph *g;
  olg_type *tp;
  const void *sparse;       /* SPARSE_TENSOR: kept for the writer, uninterpreted */
  size_t n;                 /* list length for the list types */
  const float *floats;
  const int64_t *ints;
  const olg_bytes *strings;
  olg_tensor *const *tensors;
  struct olg_graph *const *graphs;
  const void *const *sparses;
  olg_type *const *tps;
  const void *extra; /* serializer's: unknown fields */
} olg_attr;

typedef enum olg_node_state { OLG_NODE_OPEN = 0, OLG_NODE_DONE = 1, OLG_NODE_DEAD = 2 } olg_node_state;

/* The rarely set parts of a node (in the model's arena), apart so that olg_node stays small (72
 * bytes, was 112: two graphs' nodes at a time). */
typedef struct olg_node_more {
  const char *doc_string, *overload; /* or NULL; overload: torch front end's aten nodes */
  olg_kv *metadata;
  uint32_t n_metadata;
  const void *extra;  /* serializer's: device_configurations, unknown fields */
} olg_node_more;

typedef struct olg_node {
  const char *domain; /* "" for the default ONNX domain */
  const char *op;
  const char *name;   /* may be "" */
  olg_arg *args;      /* positional arguments; for ONNX nodes the inputs */
  olg_value *outputs; /* OLG_NO_VALUE for an omitted optional output */
  olg_attr *attrs;
  const olg_node_more *more; /* or NULL: all of it NULL / 0 */
  /* The counts alone: the room an array has beyond its count is known only for the arrays grown
   * last (olg_model.grown); any other is taken as full. Outputs and attributes share a word with
   * the state (64 bytes, not 72: two graphs' nodes); where a count is made, more than
   * OLG_NODE_MAX_OUTPUTS / OLG_NODE_MAX_ATTRS is refused (OLG_ERR_LIMIT). */
  uint32_t n_args;
  uint32_t n_outputs : 16;
  uint32_t n_attrs : 14;
  uint32_t state : 2; /* olg_node_state */
} olg_node;
_Static_assert(sizeof(olg_node) <= 64, "olg_node grew: one per node, two graphs at a time");
#define OLG_NODE_MAX_OUTPUTS 0xffffu
#define OLG_NODE_MAX_ATTRS 0x3fffu

/* Value flags */
enum {
  OLG_VF_INPUT = 1u << 0,      /* listed in graph inputs */
  OLG_VF_OUTPUT = 1u << 1,     /* listed in graph outputs */
  OLG_VF_INITIALIZER = 1u << 2,
  OLG_VF_VALUE_INFO = 1u << 3, /* listed in value_info */
  OLG_VF_OUTER = 1u << 4,      /* a name from an enclosing graph (subgraphs only) */
  OLG_VF_DUPLICATE = 1u << 5,  /* a reader saw a second definition of this name (see dups) */
  /* a target subgraph's copy of the enclosing value it names (type, contents), made by the
   * lowering for the inference of the subgraph's nodes while it is lowered: they resolve it
   * without walking the enclosing graphs (linear in nesting depth); cleared when it is done */
  OLG_VF_RESOLVED = 1u << 6,
  /* the name is "<base>_<k>" made by olg__graph_add_value_auto with its own k of next_auto: it
   * is found through g->auto_names[k], not in g->names (see there) */
  OLG_VF_AUTO_NAME = 1u << 7
};

#define OLG_SYM_UNKNOWN INT64_MIN /* an element of olg_value_more.sym that is not known */

/* The rarely set parts of a value record (in the model's arena), apart so that it stays small (48
 * bytes with its type, was 136). */
typedef struct olg_value_more {
  const char *doc_string; /* from ValueInfoProto, or NULL */
  olg_kv *metadata;       /* ValueInfoProto.metadata_props */
  uint32_t n_metadata;
  int32_t n_sym;          /* of sym */
  const void *extra;      /* serializer's */
  /* What inference knows of a small 1-D integer value whose contents are only partly known (a
   * shape computed over symbolic dims, e.g. Shape of a [batch, 3] input): n_sym elements, each
   * a dim_param name (param set), unknown (param NULL, value OLG_SYM_UNKNOWN) or a number (any
   * other value, negative ones included). NULL when nothing is known or when the record's known
   * is set. Here, not in the record: few values of a graph have it (shape computations), and
   * it is read by inference alone. Read it with olg__value_sym, set it with olg__value_set_sym.
   * Lives in the model's arena. */
  const olg_dim *sym;
  /* The value's contents when known: its initializer, a Constant's tensor, or a small value
   * that inference propagated (shape computations). NULL otherwise. Here, not in the record:
   * few values of a large graph have it (a 48-byte record, not 56: two graphs' values). Read
   * it with olg__value_known, set it with olg__value_set_known. */
  const olg_tensor *known;
} olg_value_more;

typedef struct olg_value_rec {
  const char *name;
  olg_type type;
  /* or NULL: doc_string, metadata, extra, sym and known (the contents) all NULL */
  const olg_value_more *more;
  /* -1: none. Which of its outputs the value is, the producer's outputs say (olg_value_producer
   * scans them): a field of its own would make the record 56 bytes, not 48 (two graphs' values) */
  olg_node_id producer;
  int32_t init : 24;    /* index into g->inits, or -1: at most OLG_MAX_INITS initializers */
  uint32_t flags : 8;   /* OLG_VF_* */
} olg_value_rec;
_Static_assert(sizeof(olg_value_rec) <= 48,
               "olg_value_rec grew: one per value, two graphs at a time");
#define OLG_MAX_INITS 0x7fffff /* a graph's initializers (olg_value_rec.init) */
_Static_assert(OLG_VF_AUTO_NAME <= 0x80, "the value flags fill olg_value_rec.flags' 8 bits");

/* A growable vector of int32 ids. */
typedef struct olg_idvec {
  int32_t *p;
  uint32_t n, cap;
} olg_idvec;

/* A string -> id map (open addressing; keys are arena strings): a graph's node names,
 * function_inline's function keys. */
typedef struct olg_name_slot {
  const char *key; /* NULL: free */
  uint32_t hash;   /* of key: a probe compares strings only on an equal hash, a growth none */
  int32_t id;
} olg_name_slot;
typedef struct olg_namemap {
  olg_name_slot *slots;
  uint32_t cap, n; /* cap is 0 or a power of two */
} olg_namemap;

/* A graph's value names -> value ids (g->names): the same open addressing, in slots of half the
 * size, as a slot's key is the name of its value record (g->values[id].name), not a pointer of
 * its own. A probe of a million-value map touches half the memory; a hash match costs one more
 * dereference (the record), a mismatch (most probes of a fresh name) none. So the record must
 * hold its name before any lookup compares it, and a slot leaves before its record changes
 * name (olg__g_valmap_del, by the hash of the old name and the id). */
typedef struct olg_val_slot {
  uint32_t hash; /* of the value's name */
  uint32_t id1;  /* the value's id + 1; 0: free (a zeroed array is empty) */
} olg_val_slot;
_Static_assert(sizeof(olg_val_slot) == 8, "a value map slot is 8 bytes: eight to a cache line");
typedef struct olg_valmap {
  olg_val_slot *slots;
  uint32_t cap, n; /* cap is 0 or a power of two */
} olg_valmap;

typedef struct olg_graph {
  struct olg_model *model;
  struct olg_graph *parent; /* the enclosing graph of a subgraph once attached, else NULL */
  bool attached;
  bool names_dropped; /* `names` was given back (olg_legalize_consume): lookups scan the values */
  const char *name, *doc_string;
  olg_value_rec *values;
  uint32_t n_values, cap_values;
  olg_node *nodes;
  uint32_t n_nodes, cap_nodes;
  olg_idvec inputs, outputs, value_info;
  /* initializers in file order: value id and tensor */
  struct olg_init { olg_value v; olg_tensor *t; } *inits;
  uint32_t n_inits, cap_inits;
  /* Values by name: every named value but those named by olg__graph_add_value_auto, which
   * auto_names finds by the number its name ends in (k -> value, -1: none). Their names cannot
   * repeat among themselves (each ends in its own "_<k>", k having no '_'), so a new one is
   * checked against this map alone, which stays small in a lowering's target graph: a probe of
   * a million-entry map was a cache miss per emitted value. */
  olg_valmap names;
  olg_idvec auto_names;
  /* The names a lowering's target took from its source (olg__value_take_name): a map of their
   * own, so that `names` stays small for the check of each generated name, which probes `kept`
   * only where its number k may end a kept name ("<x>_<k>": bit k % 512 of kept_k set). */
  olg_valmap kept;
  uint64_t kept_k[8];
  /* The node names in use (a set: only uniqueness is asked of it). A name "<x>_<k>" (k a number
   * below a few times the node count) is kept at numbered_node_names[k] when that is free,
   * others in node_names: a lowering's "<Op>_<k>" names, one per emitted node, then take a
   * sequential store instead of a probe of a large map each (a cache miss). */
  olg_namemap node_names;
  const char **numbered_node_names;
  uint32_t n_numbered_node_names, cap_numbered_node_names;
  uint64_t next_auto; /* counter for generated names */
  /* while a lowering emits into this graph: its Constants by contents (lib/lower_emit.c), and
     how many emissions that table answered (they keep their number in generated node names) */
  struct olg_consts *consts;
  uint32_t n_interned;
  uint32_t first_hit; /* n_nodes when the table first answered for the node being lowered, for
                         its report; UINT32_MAX: not yet */
  /* Opaque repeated fields kept for the writer: sparse_initializer, quantization_annotation,
   * metadata_props, unknown fields. */
  olg_kv *metadata;
  uint32_t n_metadata;
  olg_idvec dups; /* values defined more than once, as a reader met them (see OLG_VF_DUPLICATE) */
  const void *extra;
} olg_graph;

/* A region the model must unmap or release when freed. */
typedef struct olg_mapping {
  void *addr;
  size_t len;
  struct olg_mapping *next;
} olg_mapping;

typedef struct olg_opset {
  const char *domain;
  int64_t version;
} olg_opset;

/* A model-local function (FunctionProto). Its body is a graph of the model (in m->graphs, never
 * attached to a node): body->inputs and body->outputs are the formal inputs and outputs, untyped;
 * body nodes' attributes may stand for the function's (olg_attr.ref_attr_name). */
typedef struct olg_function {
  const char *domain, *name, *overload; /* overload NULL: none */
  const char *doc_string;               /* or NULL */
  olg_graph *body;
  const char **attr_names; /* `attribute`: declared without a default */
  uint32_t n_attr_names;
  olg_attr *attr_defaults; /* `attribute_proto`: declared with a default */
  uint32_t n_attr_defaults;
  olg_opset *opsets;
  uint32_t n_opsets;
  olg_kv *metadata;
  uint32_t n_metadata;
  const void *extra; /* serializer's: value_info, unknown fields */
} olg_function;

typedef struct olg_model {
  olg_allocator alloc;
  olg_arena arena;
  int64_t ir_version;
  /* The caller set no IR version: it follows the default-domain opset as that is set (the IR
   * version released with it), so that a built model pairs with what its opset's runtimes read. */
  bool ir_version_auto;
  olg_opset *opsets;
  uint32_t n_opsets, cap_opsets;
  const char *producer_name, *producer_version, *domain, *doc_string;
  /* doc_string's bytes when they hold a NUL (a model read so): doc_len of them, written whole and
   * carried by a conversion; 0: up to the NUL that ends it */
  size_t doc_len;
  int64_t model_version;
  bool has_model_version;
  olg_kv *metadata;
  uint32_t n_metadata, cap_metadata;
  olg_graph *graph;
  olg_graph **graphs; /* every graph of the model, main first, for freeing */
  uint32_t n_graphs, cap_graphs;
  olg_mapping *mappings;
  /* tensors whose data the model must free or release */
  olg_tensor **owned;
  uint32_t n_owned, cap_owned;
  olg_function *functions; /* model-local functions, in file order */
  uint32_t n_functions, cap_functions;
  /* a model whose arena this one borrows from (an inlined copy of the source that a converted
   * model's nodes may point into): freed with this one */
  struct olg_model *keep;
  /* the dims arrays inference made last (lib/infer.c, olg__infer_dims_dup): an equal one is
     shared, not copied again (dims are never changed in place); a chain makes the same few */
  const olg_dim *dims_memo[4];
  int32_t dims_memo_rank[4];
  uint32_t dims_memo_next;
  /* the node argument and attribute arrays grown last, with the elements each has room for
     (lib/graph_node.c, arena_grow): a node is built one argument at a time, most often by one
     builder at a time, so a few cover the nodes being built; an array that is not here is taken
     as full, which is safe: it is then copied into a new block when appended to */
  struct olg_grown { const void *p; uint32_t cap; } grown[8];
  uint32_t grown_next;
  const void *extra; /* serializer's: training_info, configuration, unknown fields */
} olg_model;

/* How deep subgraphs may nest (graph.h: OLG_MAX_SUBGRAPH_DEPTH), the same for every stage, and
 * the words of every refusal (two %d: the limit, twice), after "the subgraphs of ... are". */
#define OLG_MAX_GRAPH_DEPTH OLG_MAX_SUBGRAPH_DEPTH
#define OLG_DEPTH_WORDS "nested more than %d graphs deep; the library follows at most %d (OLG_MAX_SUBGRAPH_DEPTH)"

/* ---- internal helpers shared by the library ---- */

/* Work counter for the tests of linear time (tests/unit/test_depth.c): probes of the name maps
 * and of the passes' memo tables, per thread (no timing, no race). */
extern _Thread_local uint64_t olg__probes;
static inline void olg__count_probe(void) { olg__probes++; }

/* The IR version released with opset v of ai.onnx.ml (lib/graph.c). */
int64_t olg__ir_for_ml_opset(int64_t v);

/* The side records of types, nodes and values (lib/ir_more.c): what they hold, or NULL / 0. */
static inline const char *olg__type_denotation(const olg_type *t) {
  return t->more ? t->more->denotation : NULL;
}
static inline const char *olg__type_opaque_domain(const olg_type *t) {
  return t->more ? t->more->opaque_domain : NULL;
}
static inline const char *olg__type_opaque_name(const olg_type *t) {
  return t->more ? t->more->opaque_name : NULL;
}
static inline const void *olg__type_extra(const olg_type *t) {
  return t->more ? t->more->extra : NULL;
}
static inline const olg_type *olg__type_inner(const olg_type *t) {
  return t->more ? t->more->inner : NULL;
}
static inline olg_dtype olg__type_key(const olg_type *t) {
  return t->more ? t->more->key : 0;
}
/* The element type (what the elem_type field holds; 0 when has_elem is false or it is 0). */
static inline olg_dtype olg__type_elem(const olg_type *t) {
  if (t->elem8 != OLG_TYPE_ELEM_WIDE) return t->elem8;
  return t->more ? t->more->elem : OLG_TYPE_ELEM_WIDE;
}
static inline const char *olg__node_doc(const olg_node *n) {
  return n->more ? n->more->doc_string : NULL;
}
static inline const char *olg__node_overload(const olg_node *n) {
  return n->more ? n->more->overload : NULL;
}
static inline const olg_kv *olg__node_metadata(const olg_node *n) {
  return n->more ? n->more->metadata : NULL;
}
static inline uint32_t olg__node_n_metadata(const olg_node *n) {
  return n->more ? n->more->n_metadata : 0;
}
static inline const void *olg__node_extra(const olg_node *n) {
  return n->more ? n->more->extra : NULL;
}
static inline const char *olg__value_doc(const olg_value_rec *r) {
  return r->more ? r->more->doc_string : NULL;
}
static inline const olg_kv *olg__value_metadata(const olg_value_rec *r) {
  return r->more ? r->more->metadata : NULL;
}
static inline uint32_t olg__value_n_metadata(const olg_value_rec *r) {
  return r->more ? r->more->n_metadata : 0;
}
static inline const void *olg__value_extra(const olg_value_rec *r) {
  return r->more ? r->more->extra : NULL;
}
static inline const olg_dim *olg__value_sym(const olg_value_rec *r) {
  return r->more ? r->more->sym : NULL;
}
static inline size_t olg__value_n_sym(const olg_value_rec *r) {
  return r->more ? (size_t)r->more->n_sym : 0;
}
static inline const olg_tensor *olg__value_known(const olg_value_rec *r) {
  return r->more ? r->more->known : NULL;
}
/* r's known contents become t (NULL: none; not copied), its other side fields kept: a new side
 * record in m's arena, none when it would be all NULL. */
olg_status olg__value_set_known(olg_model *m, olg_value_rec *r, const olg_tensor *t);
/* r's sym becomes sym[n] (NULL: none; the array is not copied), its other side fields kept: a
 * new side record in m's arena, none when it would be all NULL. */
olg_status olg__value_set_sym(olg_model *m, olg_value_rec *r, const olg_dim *sym, size_t n);
/* Copy on write: a new side record in m's arena, a copy of the current one (zeroed when there is
 * none), made the record's; the caller fills it before the record is copied anywhere. A record
 * that shares its side record with copies (types) so never changes theirs. NULL: no memory. */
olg_type_more *olg__type_more_own(olg_model *m, olg_type *t);
olg_node_more *olg__node_more_own(olg_model *m, olg_node *n);
olg_value_more *olg__value_more_own(olg_model *m, olg_value_rec *r);
/* The record's side record becomes *tm's contents: NULL when they are all NULL, else a copy in
 * m's arena. */
olg_status olg__type_set_more(olg_model *m, olg_type *t, const olg_type_more *tm);
olg_status olg__node_set_more(olg_model *m, olg_node *n, const olg_node_more *nm);
olg_status olg__value_set_more(olg_model *m, olg_value_rec *r, const olg_value_more *vm);
/* Setters of the parts of a type: its side record is replaced (copy on write), its other side
 * fields kept; m's arena holds the new one. inner must be in an arena (it is shared as it is). */
olg_status olg__type_set_inner(olg_model *m, olg_type *t, const olg_type *inner);
olg_status olg__type_set_key(olg_model *m, olg_type *t, olg_dtype key);
olg_status olg__type_set_elem_wide(olg_model *m, olg_type *t, olg_dtype dt);
/* Sets the element type (has_elem untouched): in elem8 when it fits (no allocation: the common
 * case), else in a new side record. */
static inline olg_status olg__type_set_elem(olg_model *m, olg_type *t, olg_dtype dt) {
  if (dt >= 0 && dt < OLG_TYPE_ELEM_WIDE && t->elem8 != OLG_TYPE_ELEM_WIDE) {
    t->elem8 = (uint8_t)dt;
    return OLG_OK;
  }
  return olg__type_set_elem_wide(m, t, dt);
}
/* t (n) without the serializer's extra (a copy into another model), its other side fields kept. */
olg_status olg__type_drop_extra(olg_model *m, olg_type *t);
olg_status olg__node_drop_extra(olg_model *m, olg_node *n);

/* Copies a C string into the model's arena; NULL -> NULL. Sets the error on failure. */
const char *olg__strdup(olg_model *m, const char *s);
const char *olg__strndup(olg_model *m, const char *s, size_t n);
/* What describes src rather than computes (its domain, model version, doc string and metadata),
 * copied into dst, a conversion or inlined copy of src: ONNX's own converter keeps them too
 * (lib/function_inline.c: the checker's part, which the conversion needs too). */
olg_status olg__model_copy_about(olg_model *dst, const olg_model *src);
/* (lib/serialize, the reader's) src's domain and metadata entries (from index meta_at of dst's)
 * that hold a NUL, as the reader kept them, copied into dst's extras: the IR's C strings end at
 * the NUL, and a conversion had written them cut (two keys made one). A graph's: its conversion's
 * (olg__lower_graph_about), or an inlined copy's (which shares the extra). */
olg_status olg__pbr_copy_about(olg_model *dst, const olg_model *src, uint32_t meta_at);
/* (the reader's) The doc string (field doc_no) and metadata entries of a node's, value's or
 * graph's serializer extra src_extra that hold a NUL, as the reader kept them, copied into m as a new
 * extra at *slot (NULL before): a conversion keeps the doc and metadata, which the IR's C strings
 * would have cut (two keys made one). */
olg_status olg__pbr_copy_more(olg_model *m, const void *src_extra, uint32_t doc_no,
                              const void **slot);
/* (the reader's) How many raw fields a graph's serializer extra holds (0: none, or NULL). */
uint32_t olg__pbr_n_raw(const void *extra);
/* (the reader's) How many of a serializer extra's raw fields are known ones numbered no, or with
 * no 0 unknown ones (fields of a newer ONNX than the reader's schema); the first's number in
 * *first (may be NULL). */
uint32_t olg__pbr_count_raw(const void *extra, uint32_t no, uint32_t *first);
/* (the reader's) The names the k-th raw field of a graph's extra names when it is a
 * quantization_annotation entry (TensorAnnotation): its tensor_name first ("" when left out),
 * then the value of each of its quant_parameter_tensor_names, in order; in m's arena, not
 * NUL-ended (a name may hold a NUL, and then names no value). *n_names 0: not such an entry. */
olg_status olg__pbr_annotation(olg_model *m, const void *extra, uint32_t k, olg_bytes **names,
                               uint32_t *n_names);
/* (the reader's) The raw fields which[0..n) of extra (indices), their bytes copied into m,
 * appended to the extra at *slot (made if NULL): a conversion's graph carries them as read. */
olg_status olg__pbr_carry_raws(olg_model *m, const void *extra, const uint32_t *which, uint32_t n,
                               const void **slot);
/* A formatted string in the model's arena, of any length (names built from names: a fixed
 * buffer would cut a long one short and make two names one); NULL on failure, error set. */
const char *olg__strfmt(olg_model *m, const char *fmt, ...) OLG_PRINTF(2, 3);
void *olg__arena_alloc(olg_model *m, size_t n);    /* zeroed, 8-aligned; error set on failure */
char *olg__arena_alloc_str(olg_model *m, size_t n); /* for n chars with NUL: not zeroed */
void *olg__arena_dup(olg_model *m, const void *p, size_t n);

/* The value record for an id, or NULL (error set) when out of range. */
olg_value_rec *olg__value(const olg_graph *g, olg_value v);
olg_node *olg__node(const olg_graph *g, olg_node_id n);

/* Adds a value by name; allow_duplicate lets a reader keep a second definition (the name map
 * keeps the first, the value is flagged OLG_VF_DUPLICATE and listed in g->dups). */
olg_status olg__graph_add_value(olg_graph *g, const char *name, bool allow_duplicate,
                                olg_value *out);
/* Adds a value named by the n bytes at p (no NUL among them) that g does not have yet, h being
 * their olg__name_hash: a reader's one lookup and one insertion per new name. */
olg_status olg__graph_add_value_new(olg_graph *g, const char *p, size_t n, uint32_t h,
                                    olg_value *out);
/* The value named by the n bytes at p (no NUL among them) hashed h (olg__name_hash), or a new
 * one so named (*added): one probe of the name map where a lookup and an add took two. */
olg_status olg__graph_get_or_add_value(olg_graph *g, const char *p, size_t n, uint32_t h,
                                       olg_value *out, bool *added);
/* Clips *n at the first NUL of p (where the C string of the name ends) and hashes those bytes
 * as the name maps do. */
uint32_t olg__name_hash_any(const char *p, size_t *n);
/* The steps of that hash (lib/graph_names.c) a short name takes: the seed of len bytes, the
 * 4 to 7 bytes of one as two words (x), and the mix every hash ends with. */
static inline uint64_t olg__name_hash_seed(size_t len) {
  return 0x9e3779b97f4a7c15u ^ ((uint64_t)len * 0xff51afd7ed558ccdu);
}
static inline uint32_t olg__name_hash_end(uint64_t h) {
  /* the map indexes by the low bits: every bit of h reaches them */
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdu;
  h ^= h >> 33;
  return (uint32_t)h;
}
/* Whether one of the four bytes of w is zero (no false answer either way). */
static inline bool olg__has_zero32(uint32_t w) {
  return ((w - 0x01010101u) & ~w & 0x80808080u) != 0;
}
#if defined(__OPTIMIZE_SIZE__)
#define olg__name_hash olg__name_hash_any
#else
/* olg__name_hash_any with a name of 4 to 7 bytes given by its length inline (a generated or
 * short name: one a node of a chain): the same value. */
static inline uint32_t olg__name_hash(const char *p, size_t *n) {
  size_t len = *n;
  if (len - 4 < 4) {
    uint32_t a, b;
    memcpy(&a, p, 4);
    memcpy(&b, p + len - 4, 4);
    if (!olg__has_zero32(a) && !olg__has_zero32(b))
      return olg__name_hash_end((olg__name_hash_seed(len) ^ ((uint64_t)a << 32 | b)) *
                                0xc2b2ae3d27d4eb4fu);
  }
  return olg__name_hash_any(p, n);
}
#endif
/* Asks the cache for the value map's slot of hash h ahead of a lookup (a large map misses): an
 * 8-byte slot, eight to a cache line. */
static inline void olg__graph_prefetch_name(const olg_graph *g, uint32_t h) {
  if (g->names.cap) __builtin_prefetch(&g->names.slots[h & (g->names.cap - 1)]);
}
/* Looks up in g only the n bytes at p hashed h (olg__name_hash); -1 when absent. */
olg_value olg__graph_lookup_h(const olg_graph *g, const char *p, size_t n, uint32_t h);
/* The same without the name map: the first value defining the n bytes at p, by a scan (a graph
 * whose map was given back, olg__graph_drop_names). */
olg_value olg__graph_lookup_scan(const olg_graph *g, const char *p, size_t n);
/* Gives back g's value-name map: later lookups scan (olg_legalize_consume, which owns g and
 * looks nothing up in it once it lowers its nodes). */
void olg__graph_drop_names(olg_graph *g);
/* A second definition of a name (see g->dups) that is the default of a graph input: the one
 * input and the one initializer of that name, neither produced by a node. olg_check and
 * olg_legalize exempt exactly these, so that what one refuses the other refuses. */
bool olg__dup_is_input_default(const olg_value_rec *first, const olg_value_rec *second);
/* A fresh unique name "<base>_<n>" (base may be NULL). */
const char *olg__graph_unique_name(olg_graph *g, const char *base);
/* Room for n_values values (n_named of them named other than by olg__graph_add_value_auto) and
 * n_nodes nodes (n_named_nodes of their names in node_names), at once rather than by doubling (a reader sizes a graph from
 * its message, a lowering its target graph from the source's counts). */
olg_status olg__graph_reserve(olg_graph *g, uint32_t n_values, uint32_t n_named, uint32_t n_nodes,
                              uint32_t n_named_nodes);
/* Room in g, a lowering's target, for about what src holds: its values and nodes, and names for
 * the node names src keeps in its map (a lowering names its values olg__graph_add_value_auto). */
olg_status olg__graph_reserve_like(olg_graph *g, const olg_graph *src);
/* Renames value v; the new name must be free in g (OLG_ERR_DUPLICATE otherwise). */
olg_status olg__value_rename(olg_graph *g, olg_value v, const char *name);
/* The lowering's: v, named by olg__graph_add_value_auto, takes name, not copied (it must live as
 * long as g's model: a string of the lowering's source, which the target keeps), unless a value
 * of g has that name: *took says which. A probe of the small `names` map and one of `kept`. */
olg_status olg__value_take_name(olg_graph *g, olg_value v, const char *name, bool *took);
/* Adds a value named as olg__graph_unique_name(g, base) names it, looking the name up once. */
olg_status olg__graph_add_value_auto(olg_graph *g, const char *base, olg_value *out);
/* As olg__graph_fresh_node_name, and the name is g's node g->n_nodes's from now on (one probe
 * sequence for the lookup and the insertion): for a node about to be added. */
olg_status olg__graph_claim_node_name(olg_graph *g, const char *want, const char **out);
/* A node that takes the name olg__graph_fresh_node_name(g, want) gives, claimed at once. */
olg_status olg__node_begin_fresh(olg_graph *g, const char *domain, const char *op,
                                 const char *want, olg_node_id *out);
/* want, or want#2, want#3 ... : a node name no node of g has yet (ONNX Runtime refuses a graph
 * whose node names repeat). NULL when memory fails. */
const char *olg__graph_fresh_node_name(olg_graph *g, const char *want);
/* Looks a name up in g only (not enclosing graphs); -1 when absent. */
olg_value olg__graph_lookup(const olg_graph *g, const char *name);

olg_status olg__idvec_push(olg_model *m, olg_idvec *v, int32_t id);

/* Diagnostics about a node (diag.c): name, op, index in g and first output recorded. */
olg_status olg__diags_add_node(olg_diags *d, olg_severity sev, const char *code, const olg_graph *g,
                               const olg_node *nd, int64_t opset, const char *message);
/* The node's index in g and first output, on the diagnostic added since count_before. */
void olg__diags_set_last_node(olg_diags *d, size_t count_before, const olg_graph *g,
                              const olg_node *nd);

/* A new model that borrows src's data, with every call of src's functions expanded (function.c).
 * src must outlive it. On failure *failed (may be NULL) gets the call node to blame, if any. */
olg_status olg__inline_copy(const olg_model *src, olg_model **out, olg_node *failed);
/* The same, except node i of src's main graph when keep_as[i] is not NULL: kept as it is, a call
 * of the function named keep_as[i] (function_keep.c). keep_as may be NULL. */
olg_status olg__inline_copy_keep(const olg_model *src, const char *const *keep_as,
                                 olg_model **out, olg_node *failed);
/* dg (an empty graph of dm) becomes a copy of sg (of a model without functions), its
 * initializers made Constant nodes (a function body's form); sg's model must outlive dm. */
olg_status olg__copy_graph_into(olg_model *dm, const olg_graph *sg, olg_graph *dg);
/* The function of m called (domain, name, overload), or NULL. */
const olg_function *olg__find_function(const olg_model *m, const char *domain, const char *name,
                                       const char *overload);

/* Registers a tensor whose data the model must release when freed (OWNER_ALLOCATED/RELEASE). */
olg_status olg__model_own_tensor(olg_model *m, olg_tensor *t);
/* Records a mapping to munmap when the model is freed. */
olg_status olg__model_add_mapping(olg_model *m, void *addr, size_t len);

/* Builds a tensor in the arena: copies dims, takes data per mode (BORROW/COPY/OWN). */
olg_status olg__tensor_new(olg_model *m, const char *name, olg_dtype dtype, int32_t rank,
                           const int64_t *dims, const void *data, size_t nbytes,
                           olg_data_mode mode, olg_release_fn release, void *ud,
                           olg_tensor **out);
/* Element count of a tensor (product of dims); false on overflow or negative dims. */
bool olg__shape_numel(int32_t rank, const int64_t *dims, uint64_t *out);

/* Adds an initializer for an existing tensor (name taken from the tensor). */
/* OLG_ERR_LIMIT: g holds OLG_MAX_INITS initializers already (olg_value_rec.init's range). */
olg_status olg__too_many_inits(const olg_graph *g);
olg_status olg__graph_add_init(olg_graph *g, olg_tensor *t, bool allow_duplicate,
                               olg_value *out);
/* Adds a finished attribute (copied shallowly: its arrays must live in the arena). */
olg_status olg__node_add_attr(olg_graph *g, olg_node_id n, const olg_attr *a);
olg_status olg__node_add_arg(olg_graph *g, olg_node_id n, const olg_arg *a);
/* olg_node_arg_value for a value that exists: the lowering's olg_lower_emit_input, one call. */
olg_status olg__node_add_value(olg_graph *g, olg_node_id n, olg_value v);
/* Room for count arguments of an open node that has none yet (a lowering that knows how many it
 * adds), so that they take one exact arena block. */
olg_status olg__node_reserve_args(olg_graph *g, olg_node_id n, uint32_t count);

/* Finds an attribute by name, or NULL. */
const olg_attr *olg__node_attr(const olg_node *node, const char *name);

#endif
