/* onnxlegal — the ONNX operator schema tables (internal).
 *
 * The tables are generated from ONNX's operator changelog by tools/gen_schemas.py
 * into lib/schemas_gen.c: every version of every operator of the default domain
 * ("" — "ai.onnx" is the same domain), of ai.onnx.ml (from its changelog when available,
 * else from the facts in tools/data/ai_onnx_ml_schemas.json), and of the preview domains. One row per (domain, op, since_version), sorted by
 * (domain, name, since_version); all data is static and read-only, lookups allocate
 * nothing and are safe from any number of threads.
 *
 * A row with `deprecated` set marks the version from which the op is deprecated (no
 * longer valid): Upsample-10, Scatter-11, GroupNormalization-18. Such a row may carry
 * no signature (the changelog shows none); a validator treats a lookup that lands on
 * it as "op not available at this opset".
 */
#ifndef OLG_SCHEMA_H
#define OLG_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "onnxlegal/dtype.h"

#ifdef __cplusplus
extern "C" {
#endif

/* the newest released ONNX opset of the default domain, and the one in development */
#define OLG_ONNX_OPSET_RELEASED 27
#define OLG_ONNX_OPSET_DEV 28

/* max_inputs / max_outputs of an op whose last formal is variadic */
#define OLG_SCHEMA_UNBOUNDED (-1)

typedef enum olg_formal_option {
  OLG_FORMAL_SINGLE = 0,
  OLG_FORMAL_OPTIONAL = 1,
  OLG_FORMAL_VARIADIC = 2
} olg_formal_option;

/* ONNX AttributeProto.AttributeType numbering */
enum {
  OLG_SCHEMA_ATTR_UNDEFINED = 0,
  OLG_SCHEMA_ATTR_FLOAT = 1,
  OLG_SCHEMA_ATTR_INT = 2,
  OLG_SCHEMA_ATTR_STRING = 3,
  OLG_SCHEMA_ATTR_TENSOR = 4,
  OLG_SCHEMA_ATTR_GRAPH = 5,
  OLG_SCHEMA_ATTR_FLOATS = 6,
  OLG_SCHEMA_ATTR_INTS = 7,
  OLG_SCHEMA_ATTR_STRINGS = 8,
  OLG_SCHEMA_ATTR_TENSORS = 9,
  OLG_SCHEMA_ATTR_GRAPHS = 10,
  OLG_SCHEMA_ATTR_SPARSE_TENSOR = 11,
  OLG_SCHEMA_ATTR_SPARSE_TENSORS = 12,
  OLG_SCHEMA_ATTR_TYPE_PROTO = 13,
  OLG_SCHEMA_ATTR_TYPE_PROTOS = 14
};

/* One input or output formal parameter. */
typedef struct olg_formal {
  const char *name;
  const char *type_str;   /* a constraint name ("T") or a fixed type ("tensor(int64)") */
  uint8_t option;         /* olg_formal_option */
  uint8_t homogeneous;    /* 0 only for "(variadic, heterogeneous)" */
  uint8_t min_arity;      /* variadic: fewest actual arguments; single 1; optional 0 */
  uint32_t tensor_dtypes; /* bit d set when tensor(dtype d) is allowed (resolved through
                             the constraint); seq/map/optional/sparse types not included */
} olg_formal;

typedef struct olg_attr_schema {
  const char *name;
  uint8_t type; /* OLG_SCHEMA_ATTR_* */
  uint8_t required;
  /* The default as the spec prints it ("1e-05", "NOTSET", "['Tanh', 'Tanh']"), or NULL. For
   * display only: the spec rounds floats to 5 decimal places (Selu's alpha 1.6732632 reads
   * "1.67326", Adam's epsilon 1e-6 reads "0.0"). */
  const char *default_str;
} olg_attr_schema;

typedef struct olg_type_constraint {
  const char *name;
  const char *const *allowed; /* type strings, NULL-terminated */
  int n_allowed;
  uint32_t tensor_dtypes; /* bit d set when "tensor(<dtype d>)" is in allowed */
} olg_type_constraint;

typedef struct olg_schema {
  const char *domain; /* "" for the default domain */
  const char *name;
  int since_version;
  uint8_t deprecated;
  int min_inputs, max_inputs; /* max OLG_SCHEMA_UNBOUNDED when variadic */
  int min_outputs, max_outputs;
  const olg_formal *inputs;
  int n_inputs;
  const olg_formal *outputs;
  int n_outputs;
  const olg_attr_schema *attrs;
  int n_attrs;
  const olg_type_constraint *constraints;
  int n_constraints;
} olg_schema;

/* The generated tables (lib/schemas_gen.c). Use the functions below. */
typedef struct olg_schema_op {
  const char *domain;
  const char *name;
  int first; /* index of its oldest version in schemas[] */
  int count; /* number of versions, consecutive, ascending since_version */
} olg_schema_op;

typedef struct olg_schema_domain {
  const char *domain;
  int max_released; /* the newest released opset of the domain (27 for "") */
  int max_defined;  /* the newest opset with a definition in the spec (28 for "") */
  int first_op;     /* index of its first op in ops[] */
  int n_ops;        /* 0 when the spec given to the generator had no changelog for it */
} olg_schema_domain;

typedef struct olg_schema_tables {
  const olg_schema *schemas;
  int n_schemas;
  const olg_schema_op *ops;
  int n_ops;
  const olg_schema_domain *domains;
  int n_domains;
} olg_schema_tables;

extern const olg_schema_tables olg__schema_tables;

/* The newest version of (domain, op) with since_version <= opset, or NULL when the op
 * does not exist at that opset (or at all). domain NULL, "" and "ai.onnx" all mean the
 * default domain. The result may be a deprecated row: check ->deprecated. */
const olg_schema *olg_schema_find(const char *domain, const char *op, int opset);

/* All versions of (domain, op), oldest first; *n gets their number. NULL (and *n = 0)
 * for an unknown op. */
const olg_schema *olg_schema_versions(const char *domain, const char *op, size_t *n);
/* The tables' own (static) copy of the name of op, an ONNX op of domain; NULL if it is none. */
const char *olg__schema_op_static(const char *domain, const char *op);

/* Every row, for iteration (tools and tests). */
size_t olg_schema_count(void);
const olg_schema *olg_schema_at(size_t i);

/* A domain's row, or NULL for a domain the tables do not know. */
const olg_schema_domain *olg_schema_domain_find(const char *domain);
/* The newest released opset of a domain: 27 for "", 5 for ai.onnx.ml; -1 if unknown. */
int olg_schema_domain_max_opset(const char *domain);

/* The attribute / type constraint of that name, or NULL. */
const olg_attr_schema *olg_schema_attr(const olg_schema *s, const char *name);
const olg_type_constraint *olg_schema_constraint(const olg_schema *s, const char *name);

/* The formal that the actual input (output) at position i binds to: a trailing variadic
 * formal takes every position from its own onwards. NULL when i is out of range. Inline, as
 * is olg_schema_formal_allows_dtype: asked for every argument of every node lowered. */
static inline const olg_formal *olg__formal_at(const olg_formal *f, int n, int i) {
  if (i < 0 || n == 0) return NULL;
  if (i < n) return &f[i];
  return f[n - 1].option == OLG_FORMAL_VARIADIC ? &f[n - 1] : NULL;
}
static inline const olg_formal *olg_schema_input_formal(const olg_schema *s, int i) {
  return s ? olg__formal_at(s->inputs, s->n_inputs, i) : NULL;
}
static inline const olg_formal *olg_schema_output_formal(const olg_schema *s, int i) {
  return s ? olg__formal_at(s->outputs, s->n_outputs, i) : NULL;
}

/* The allowed type strings of a formal: its constraint's list, or a one-element
 * view of its fixed type (*n set; the list is not NULL-terminated in that case). */
const char *const *olg_schema_formal_types(const olg_schema *s, const olg_formal *f, int *n);

/* Nonzero when the formal accepts a tensor of element type `dtype`. */
static inline int olg_schema_formal_allows_dtype(const olg_formal *f, olg_dtype dtype) {
  if (f == NULL || dtype <= 0 || dtype > OLG_DTYPE_MAX) return 0;
  return (f->tensor_dtypes >> dtype) & 1u;
}

/* The element type of "tensor(<elem>)", e.g. OLG_FLOAT for "tensor(float)";
 * OLG_UNDEFINED (0) for any other type string (seq(...), map(...), optional(...),
 * sparse_tensor(...)), an unknown element type or NULL. */
olg_dtype olg_schema_tensor_type_dtype(const char *type_str);

#ifdef __cplusplus
}
#endif

/* A version change that alters what a node of the op MEANS (lib/meaning.c): the same node --
 * inputs, outputs, attributes -- computes something else (or is typed otherwise) from opset
 * `after` on than at opsets below it. The pass-through never copies a node across one. */
typedef struct olg_meaning_change {
  const char *op;     /* default domain */
  int before, after;  /* the op's last version with the old meaning, its first with the new */
  const char *what;   /* what changed, as the spec's Changelog says it */
} olg_meaning_change;

/* The table, ascending by (op, after); *n gets its length. */
const olg_meaning_change *olg_meaning_changes(size_t *n);
/* The change of the default-domain op that lies between a node written at source opset `from`
 * and opset `to` (either direction), or NULL. */
const olg_meaning_change *olg_meaning_crossed(const char *op, int from, int to);

/* Whether attribute a's value is allowed at schema s's version (lib/check.c's table of value
 * ranges that change with the version: negative axes, mode strings): 0 yes; otherwise the first
 * later version that allows it, or -1 for none. */
struct olg_attr;
int olg__attr_value_allowed_from(const olg_schema *s, const struct olg_attr *a);
/* Whether any version of s's op, earlier or later, takes a's value (false: a misspelt mode, an
 * element type of no number). */
bool olg__attr_value_in_some_version(const olg_schema *s, const struct olg_attr *a);

#endif /* OLG_SCHEMA_H */
