/* onnxlegal — the model in ONNX's textual syntax (onnx-spec Syntax.md), streamed.
 *
 * The output is meant for people first and for ONNX's parser second: everything the syntax can
 * say is said so that the parser reads back the same model. What it cannot say is written as a
 * readable extension or a '#' comment:
 *   - source-node arguments that are literals ("aten.add (x, y, 1)", "none", "[1, 2]", true);
 *   - sparse-tensor attributes (a comment names them);
 *   - doc strings (comments).
 * Initializers are listed in the '<...>' block after the outputs (the parser's initializer
 * list), with every element of their data, or with their external-data reference when the
 * tensor is stored outside the model. Floats print with enough digits to read back exactly;
 * float16, bfloat16 and the float8/float4 types print as their bit patterns, which is how the
 * syntax stores them (int32_data). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "ir.h"
#include "printer.h"

/* Subgraphs nest through attributes, and are printed by recursion: bounded by the one limit of
 * every stage (OLG_MAX_GRAPH_DEPTH), with its words. Types nest too, but as a chain: printed by
 * a loop, to any depth. */

/* ---------------------------------------------------------------------------------------- */
/* The buffered sink */

void olg__out_init(olg_out *o, olg_write_fn fn, void *ud, const char *what) {
  o->fn = fn;
  o->ud = ud;
  o->what = what;
  o->n = 0;
  o->total = 0;
  o->status = OLG_OK;
  o->max_elements = 0;
}

static void out_flush(olg_out *o) {
  if (o->status || !o->n) return;
  if (o->fn(o->ud, o->buf, o->n) != 0) {
    o->status = olg__err(OLG_ERR_CALLBACK, "%s: the write callback failed after %llu bytes",
                         o->what, (unsigned long long)o->total);
  } else {
    o->total += o->n;
  }
  o->n = 0;
}

void olg__out_bytes(olg_out *o, const void *p, size_t n) {
  const char *s = p;
  while (n && !o->status) {
    size_t room = sizeof o->buf - o->n;
    size_t k = n < room ? n : room;
    memcpy(o->buf + o->n, s, k);
    o->n += k;
    s += k;
    n -= k;
    if (o->n == sizeof o->buf) out_flush(o);
  }
}

void olg__out_str(olg_out *o, const char *s) { olg__out_bytes(o, s, strlen(s)); }

void olg__out_char(olg_out *o, char c) {
  if (o->status) return;
  o->buf[o->n++] = c;
  if (o->n == sizeof o->buf) out_flush(o);
}

void olg__out_fmt(olg_out *o, const char *fmt, ...) {
  char tmp[256];
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  /* callers format numbers and short fixed text only */
  if (k > 0) olg__out_bytes(o, tmp, (size_t)k < sizeof tmp ? (size_t)k : sizeof tmp - 1);
}

void olg__out_indent(olg_out *o, int levels) {
  for (int i = 0; i < levels; i++) olg__out_bytes(o, "  ", 2);
}

olg_status olg__out_finish(olg_out *o) {
  out_flush(o);
  return o->status;
}

void olg__fmt_float(char *buf, double v, int digits, int force_point) {
  if (isnan(v)) {
    strcpy(buf, "nan");
    return;
  }
  if (isinf(v)) {
    strcpy(buf, v < 0 ? "-inf" : "inf");
    return;
  }
  snprintf(buf, 40, "%.*g", digits, v);
  /* "-0" would read back as the integer 0 and lose its sign */
  if ((force_point || strcmp(buf, "-0") == 0) && !strpbrk(buf, ".eE")) strcat(buf, ".0");
}

/* ---------------------------------------------------------------------------------------- */
/* Tokens */

static bool is_plain_id(const char *s) {
  if (!s || !((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_')) return false;
  for (s++; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
          *s == '_'))
      return false;
  return true;
}

/* A string literal: the syntax's only escape is a backslash before the next byte. */
static void put_quoted(olg_out *o, const char *p, size_t n) {
  if (!p) n = 0; /* no bytes (a string left unset) */
  olg__out_char(o, '"');
  size_t run = 0;
  for (size_t i = 0; i < n; i++) {
    if (p[i] == '"' || p[i] == '\\') {
      olg__out_bytes(o, p + run, i - run);
      olg__out_char(o, '\\');
      run = i;
    }
  }
  olg__out_bytes(o, p + run, n - run);
  olg__out_char(o, '"');
}

static void put_qstr(olg_out *o, const char *s) { put_quoted(o, s ? s : "", s ? strlen(s) : 0); }

/* A name where the syntax takes a quotable id. */
static void put_id(olg_out *o, const char *s) {
  if (is_plain_id(s)) olg__out_str(o, s);
  else put_qstr(o, s);
}

static const char *dtype_name(olg_dtype t) {
  const char *n = olg_dtype_name(t);
  return n ? n : "undefined";
}

/* ---------------------------------------------------------------------------------------- */
/* Types */

static void put_dims(olg_out *o, const olg_type *t) {
  if (!t->has_shape) {
    olg__out_str(o, "[]"); /* the syntax's "rank unknown" */
    return;
  }
  if (t->rank <= 0) return; /* a bare element type is a scalar */
  olg__out_char(o, '[');
  for (int32_t i = 0; i < t->rank; i++) {
    if (i) olg__out_char(o, ',');
    if (!t->dims) {
      olg__out_char(o, '?');
      continue;
    }
    const olg_dim *d = &t->dims[i];
    if (d->value >= 0) olg__out_fmt(o, "%lld", (long long)d->value);
    else if (d->param && *d->param) put_id(o, d->param);
    else olg__out_char(o, '?');
  }
  olg__out_char(o, ']');
}

static void put_type(olg_out *o, const olg_type *t) {
  /* seq(...), optional(...) and map(k, ...) wrap one inner type each: the chain is walked with
   * a count of the parentheses to close */
  uint64_t open = 0;
  for (;;) {
    if (!t) {
      olg__out_str(o, "undefined");
      break;
    }
    if (t->kind == OLG_TYPE_SEQUENCE || t->kind == OLG_TYPE_OPTIONAL || t->kind == OLG_TYPE_MAP) {
      olg__out_str(o, t->kind == OLG_TYPE_SEQUENCE ? "seq(" : t->kind == OLG_TYPE_OPTIONAL ? "optional(" : "map(");
      if (t->kind == OLG_TYPE_MAP) {
        olg__out_str(o, dtype_name(olg__type_key(t)));
        olg__out_str(o, ", ");
      }
      open++;
      t = olg__type_inner(t);
      continue;
    }
    switch (t->kind) {
    case OLG_TYPE_TENSOR:
      olg__out_str(o, dtype_name(olg__type_elem(t)));
      put_dims(o, t);
      break;
    case OLG_TYPE_SPARSE_TENSOR:
      olg__out_str(o, "sparse_tensor(");
      olg__out_str(o, dtype_name(olg__type_elem(t)));
      put_dims(o, t);
      olg__out_char(o, ')');
      break;
    case OLG_TYPE_OPAQUE:
      olg__out_str(o, "opaque(");
      if (olg__type_opaque_domain(t) && *olg__type_opaque_domain(t)) {
        olg__out_str(o, olg__type_opaque_domain(t));
        olg__out_str(o, ", ");
      }
      if (olg__type_opaque_name(t)) olg__out_str(o, olg__type_opaque_name(t));
      olg__out_char(o, ')');
      break;
    default:
      break;
    }
    break;
  }
  for (; open && !o->status; open--) olg__out_char(o, ')');
}

/* The type as the syntax writes it, into buf (cut with "..." when it does not fit). */
struct strbuf { char *p; size_t cap, n; bool cut; };

static int strbuf_write(void *ud, const void *data, size_t n) {
  struct strbuf *b = ud;
  size_t room = b->cap - 1 - b->n;
  if (n > room) {
    n = room;
    b->cut = true;
  }
  memcpy(b->p + b->n, data, n);
  b->n += n;
  return 0;
}

size_t olg__type_str(char *buf, size_t cap, const olg_type *t) {
  struct strbuf b = {buf, cap, 0, false};
  olg_out o;
  olg__out_init(&o, strbuf_write, &b, "olg__type_str");
  put_type(&o, t);
  olg__out_finish(&o);
  if (b.cut && cap > 4) {
    memcpy(buf + cap - 4, "...", 3);
    b.n = cap - 1;
  }
  buf[b.n] = 0;
  return b.n;
}

/* "type name", or just "name" for a value without a type. */
static void put_value_info(olg_out *o, const olg_graph *g, olg_value v) {
  const olg_value_rec *r = &g->values[v];
  if (r->type.kind != OLG_TYPE_NONE) {
    put_type(o, &r->type);
    olg__out_char(o, ' ');
  }
  put_id(o, r->name);
}

/* ---------------------------------------------------------------------------------------- */
/* Tensor data */

/* One element of a sub-byte type: element i, packed low bits first. */
static unsigned sub_byte(const unsigned char *data, uint64_t i, int bits) {
  int per = 8 / bits;
  unsigned byte = data[i / (uint64_t)per];
  return (byte >> ((i % (uint64_t)per) * (uint64_t)bits)) & ((1u << bits) - 1);
}

static void put_element(olg_out *o, olg_dtype dt, const unsigned char *data, uint64_t i) {
  char buf[40];
  switch (dt) {
  case OLG_FLOAT: case OLG_COMPLEX64: {
    float f;
    memcpy(&f, data + i * 4, 4);
    olg__fmt_float(buf, f, 9, 0);
    olg__out_str(o, buf);
    return;
  }
  case OLG_DOUBLE: case OLG_COMPLEX128: {
    double d;
    memcpy(&d, data + i * 8, 8);
    olg__fmt_float(buf, d, 17, 0);
    olg__out_str(o, buf);
    return;
  }
  case OLG_INT8: olg__out_fmt(o, "%d", (int)(int8_t)data[i]); return;
  case OLG_UINT8: case OLG_BOOL: case OLG_FLOAT8E4M3FN: case OLG_FLOAT8E4M3FNUZ:
  case OLG_FLOAT8E5M2: case OLG_FLOAT8E5M2FNUZ: case OLG_FLOAT8E8M0:
    olg__out_fmt(o, "%u", (unsigned)data[i]);
    return;
  case OLG_INT16: olg__out_fmt(o, "%d", (int)(int16_t)olg__load_uint(data + i * 2, 2)); return;
  case OLG_UINT16: case OLG_FLOAT16: case OLG_BFLOAT16:
    olg__out_fmt(o, "%u", (unsigned)olg__load_uint(data + i * 2, 2));
    return;
  case OLG_INT32: olg__out_fmt(o, "%ld", (long)(int32_t)olg__load_uint(data + i * 4, 4)); return;
  case OLG_UINT32: olg__out_fmt(o, "%lu", (unsigned long)olg__load_uint(data + i * 4, 4)); return;
  case OLG_INT64: olg__out_fmt(o, "%lld", (long long)(int64_t)olg__load_uint(data + i * 8, 8)); return;
  case OLG_UINT64: olg__out_fmt(o, "%llu", (unsigned long long)olg__load_uint(data + i * 8, 8)); return;
  case OLG_INT4: case OLG_INT2: {
    int bits = dt == OLG_INT4 ? 4 : 2;
    int v = (int)sub_byte(data, i, bits);
    if (v >= 1 << (bits - 1)) v -= 1 << bits; /* sign-extend */
    olg__out_fmt(o, "%d", v);
    return;
  }
  case OLG_UINT4: case OLG_FLOAT4E2M1:
    olg__out_fmt(o, "%u", sub_byte(data, i, 4));
    return;
  case OLG_UINT2: olg__out_fmt(o, "%u", sub_byte(data, i, 2)); return;
  default: olg__out_char(o, '?'); return;
  }
}

/* The data part of a tensor constant: "{...}" or an external-data reference "[...]". */
static void put_tensor_data(olg_out *o, const olg_tensor *t) {
  if (t->n_external) {
    olg__out_char(o, '[');
    for (size_t i = 0; i < t->n_external; i++) {
      if (i) olg__out_str(o, ", ");
      put_qstr(o, t->external[i].key);
      olg__out_str(o, ": ");
      put_qstr(o, t->external[i].value);
    }
    olg__out_char(o, ']');
    return;
  }
  uint64_t count = 0;
  if (o->max_elements && olg__shape_numel(t->rank, t->dims, &count) && count > o->max_elements) {
    /* elided on request: "{...}" is not valid syntax, so that a parser refuses it rather than
     * reading an empty tensor */
    olg__out_fmt(o, "{... %llu elements elided}", (unsigned long long)count);
    return;
  }
  olg__out_char(o, '{');
  if (t->dtype == OLG_STRING) {
    for (size_t i = 0; i < t->n_strings && t->strings; i++) {
      if (i) olg__out_str(o, ", ");
      put_quoted(o, t->strings[i].p, t->strings[i].n);
    }
  } else if (t->data) {
    uint64_t numel = 0;
    if (!olg__shape_numel(t->rank, t->dims, &numel)) numel = 0;
    /* complex numbers print as two floats each, as float_data / double_data hold them */
    bool is_complex = t->dtype == OLG_COMPLEX64 || t->dtype == OLG_COMPLEX128;
    size_t need = olg_dtype_nbytes(t->dtype, numel);
    if (need == SIZE_MAX || need > t->nbytes) numel = 0; /* never read past the data */
    if (is_complex) numel *= 2;
    for (uint64_t i = 0; i < numel; i++) {
      if (i) olg__out_str(o, ", ");
      put_element(o, t->dtype, t->data, i);
    }
  }
  olg__out_char(o, '}');
}

/* "float[2,3]" for a tensor's own (concrete) type. */
static void put_tensor_type(olg_out *o, const olg_tensor *t) {
  olg__out_str(o, dtype_name(t->dtype));
  if (t->rank > 0) {
    olg__out_char(o, '[');
    for (int32_t i = 0; i < t->rank; i++)
      if (t->dims) olg__out_fmt(o, i ? ",%lld" : "%lld", (long long)t->dims[i]);
      else olg__out_str(o, i ? ",?" : "?");
    olg__out_char(o, ']');
  }
}

/* ---------------------------------------------------------------------------------------- */
/* Graphs, nodes, attributes */

typedef struct text_cx {
  olg_out out;
} text_cx;

static olg_status put_graph(text_cx *cx, const olg_graph *g, const char *name, bool is_main,
                            int indent, int depth);

/* Attribute values that the syntax reads as something else when they are identifiers. */
static bool name_is_reserved(const char *s) {
  static const char *const words[] = {"seq", "map", "optional", "sparse_tensor", "opaque",
                                      "inf", "infinity", "nan", NULL};
  for (int i = 0; words[i]; i++)
    if (strcasecmp(s, words[i]) == 0) return true;
  return olg_dtype_from_name(s) != OLG_UNDEFINED || strcmp(s, "undefined") == 0;
}

/* A subgraph in an attribute must be named by a plain identifier (a quoted one would read as a
 * string attribute). Names that cannot be written so are replaced: "<attr>" or "<attr>_<i>"
 * when empty, otherwise the name with other characters turned into '_'. Graph names carry no
 * meaning in ONNX, so this loses nothing the model needs. */
static const char *subgraph_name(char *buf, size_t cap, const char *gname, const char *attr,
                                 long index) {
  if (gname && is_plain_id(gname) && !name_is_reserved(gname)) return gname;
  size_t n = 0;
  if (gname && *gname) {
    if (!((*gname >= 'a' && *gname <= 'z') || (*gname >= 'A' && *gname <= 'Z') || *gname == '_'))
      buf[n++] = '_';
    for (const char *p = gname; *p && n + 2 < cap; p++) {
      char c = *p;
      bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
      buf[n++] = ok ? c : '_';
    }
    buf[n] = 0;
    if (name_is_reserved(buf) && n + 2 < cap) {
      buf[n++] = '_';
      buf[n] = 0;
    }
  } else if (index >= 0) {
    snprintf(buf, cap, "%s_%ld", attr, index);
  } else {
    snprintf(buf, cap, "%s", attr);
  }
  return buf;
}

static const char *attr_list_type_name(uint8_t type) {
  switch (type) {
  case OLG_ATTR_FLOATS: return "floats";
  case OLG_ATTR_INTS: return "ints";
  case OLG_ATTR_STRINGS: return "strings";
  case OLG_ATTR_TENSORS: return "tensors";
  case OLG_ATTR_GRAPHS: return "graphs";
  case OLG_ATTR_SPARSE_TENSORS: return "sparse_tensors";
  case OLG_ATTR_TYPE_PROTOS: return "type_protos";
  default: return NULL;
  }
}

static void put_tensor_constant(olg_out *o, const olg_tensor *t) {
  put_tensor_type(o, t);
  olg__out_char(o, ' ');
  if (t->name && *t->name) {
    put_id(o, t->name);
    olg__out_char(o, ' ');
  }
  put_tensor_data(o, t);
}

static bool attr_printable(const olg_attr *a) {
  return a->type != OLG_ATTR_SPARSE_TENSOR && a->type != OLG_ATTR_SPARSE_TENSORS &&
         a->type != OLG_ATTR_UNDEFINED;
}

static const char *attr_type_name(uint8_t type) {
  static const char *const names[] = {"UNDEFINED", "FLOAT", "INT", "STRING", "TENSOR", "GRAPH",
                                      "FLOATS", "INTS", "STRINGS", "TENSORS", "GRAPHS",
                                      "SPARSE_TENSOR", "SPARSE_TENSORS", "TYPE_PROTO",
                                      "TYPE_PROTOS"};
  return type <= OLG_ATTR_TYPE_PROTOS ? names[type] : "?";
}

/* What an attribute lacks of the payload its type names, or NULL. The reader refuses such
 * attributes; a model built or edited in memory is checked here all the same, since the
 * printer must not follow a NULL. */
static const char *attr_missing(const olg_attr *a) {
  switch (a->type) {
  case OLG_ATTR_TENSOR: return a->t ? NULL : "no tensor";
  case OLG_ATTR_GRAPH: return a->g ? NULL : "no graph";
  case OLG_ATTR_TYPE_PROTO: return a->tp ? NULL : "no type";
  case OLG_ATTR_FLOATS: return a->n && !a->floats ? "no values" : NULL;
  case OLG_ATTR_INTS: return a->n && !a->ints ? "no values" : NULL;
  case OLG_ATTR_STRINGS: return a->n && !a->strings ? "no values" : NULL;
  case OLG_ATTR_TENSORS:
    if (a->n && !a->tensors) return "no values";
    for (size_t i = 0; i < a->n; i++)
      if (!a->tensors[i]) return "a NULL tensor in its list";
    return NULL;
  case OLG_ATTR_GRAPHS:
    if (a->n && !a->graphs) return "no values";
    for (size_t i = 0; i < a->n; i++)
      if (!a->graphs[i]) return "a NULL graph in its list";
    return NULL;
  case OLG_ATTR_TYPE_PROTOS:
    if (a->n && !a->tps) return "no values";
    for (size_t i = 0; i < a->n; i++)
      if (!a->tps[i]) return "a NULL type in its list";
    return NULL;
  default: return NULL;
  }
}

static olg_status put_attr(text_cx *cx, const olg_graph *g, const olg_node *nd,
                           const olg_attr *a, int indent, int depth) {
  olg_out *o = &cx->out;
  char buf[40];
  const char *missing = a->ref_attr_name ? NULL : attr_missing(a);
  if (missing)
    return olg__err(OLG_ERR_INVALID_MODEL,
                    "olg_model_print_text: attribute '%s' of node '%s' (%s) in graph '%s' has "
                    "type %s and %s", a->name ? a->name : "", nd->name ? nd->name : "",
                    nd->op ? nd->op : "", g->name ? g->name : "", attr_type_name(a->type), missing);
  olg__out_str(o, a->name ? a->name : "");
  if (a->ref_attr_name) {
    olg__out_str(o, " = @");
    olg__out_str(o, a->ref_attr_name);
    return OLG_OK;
  }
  const char *list_name = attr_list_type_name(a->type);
  if (list_name && a->n == 0) {
    olg__out_fmt(o, ": %s = []", list_name); /* an empty list needs its type spelled out */
    return OLG_OK;
  }
  olg__out_str(o, " = ");
  olg_status s = OLG_OK;
  switch (a->type) {
  case OLG_ATTR_FLOAT:
    olg__fmt_float(buf, a->f, 9, 1);
    olg__out_str(o, buf);
    break;
  case OLG_ATTR_INT: olg__out_fmt(o, "%lld", (long long)a->i); break;
  case OLG_ATTR_STRING: put_quoted(o, a->s.p, a->s.n); break;
  case OLG_ATTR_TENSOR: put_tensor_constant(o, a->t); break;
  case OLG_ATTR_GRAPH: {
    char nb[128];
    s = put_graph(cx, a->g, subgraph_name(nb, sizeof nb, a->g->name, a->name, -1), false,
                  indent, depth + 1);
    break;
  }
  case OLG_ATTR_TYPE_PROTO: put_type(o, a->tp); break;
  case OLG_ATTR_FLOATS: case OLG_ATTR_INTS: case OLG_ATTR_STRINGS: case OLG_ATTR_TENSORS:
  case OLG_ATTR_GRAPHS: case OLG_ATTR_TYPE_PROTOS:
    olg__out_char(o, '[');
    for (size_t i = 0; i < a->n && !s; i++) {
      if (i) olg__out_str(o, ", ");
      if (a->type == OLG_ATTR_FLOATS) {
        olg__fmt_float(buf, a->floats[i], 9, 1);
        olg__out_str(o, buf);
      } else if (a->type == OLG_ATTR_INTS) {
        olg__out_fmt(o, "%lld", (long long)a->ints[i]);
      } else if (a->type == OLG_ATTR_STRINGS) {
        put_quoted(o, a->strings[i].p, a->strings[i].n);
      } else if (a->type == OLG_ATTR_TENSORS) {
        put_tensor_constant(o, a->tensors[i]);
      } else if (a->type == OLG_ATTR_TYPE_PROTOS) {
        put_type(o, a->tps[i]);
      } else {
        char nb[128];
        s = put_graph(cx, a->graphs[i],
                      subgraph_name(nb, sizeof nb, a->graphs[i]->name, a->name, (long)i), false,
                      indent, depth + 1);
      }
    }
    olg__out_char(o, ']');
    break;
  default:
    break;
  }
  return s;
}

/* A positional argument of a source node (a framework op), which may be a literal. */
static void put_source_arg(olg_out *o, const olg_graph *g, const olg_arg *a) {
  char buf[40];
  switch (a->kind) {
  case OLG_ARG_NONE: olg__out_str(o, "none"); break;
  case OLG_ARG_VALUE: put_id(o, g->values[a->u.v].name); break;
  case OLG_ARG_VALUES:
    olg__out_char(o, '[');
    for (size_t j = 0; j < a->n; j++) {
      if (j) olg__out_str(o, ", ");
      olg_value v = a->u.vals[j];
      if (v == OLG_NO_VALUE) olg__out_str(o, "none");
      else put_id(o, g->values[v].name);
    }
    olg__out_char(o, ']');
    break;
  case OLG_ARG_INT: olg__out_fmt(o, "%lld", (long long)a->u.i); break;
  case OLG_ARG_BOOL: olg__out_str(o, a->u.i ? "true" : "false"); break;
  case OLG_ARG_FLOAT:
    olg__fmt_float(buf, a->u.f, 17, 1);
    olg__out_str(o, buf);
    break;
  case OLG_ARG_STRING: put_quoted(o, a->u.s, a->n); break;
  case OLG_ARG_INTS:
    olg__out_char(o, '[');
    for (size_t j = 0; j < a->n; j++) olg__out_fmt(o, j ? ", %lld" : "%lld", (long long)a->u.ints[j]);
    olg__out_char(o, ']');
    break;
  case OLG_ARG_FLOATS:
    olg__out_char(o, '[');
    for (size_t j = 0; j < a->n; j++) {
      if (j) olg__out_str(o, ", ");
      olg__fmt_float(buf, a->u.floats[j], 17, 1);
      olg__out_str(o, buf);
    }
    olg__out_char(o, ']');
    break;
  default: olg__out_char(o, '?'); break;
  }
}

static olg_status put_node(text_cx *cx, const olg_graph *g, const olg_node *nd, int indent,
                           int depth) {
  olg_out *o = &cx->out;
  olg_status s = OLG_OK;
  for (uint32_t i = 0; i < nd->n_attrs; i++) {
    if (attr_printable(&nd->attrs[i])) continue;
    olg__out_indent(o, indent);
    olg__out_str(o, "# attribute ");
    olg__out_str(o, nd->attrs[i].name ? nd->attrs[i].name : "");
    olg__out_str(o, nd->attrs[i].type == OLG_ATTR_UNDEFINED
                        ? " of the next node has no type and no value\n"
                        : " of the next node is a sparse tensor, which the syntax cannot show\n");
  }
  olg__out_indent(o, indent);
  if (nd->name && *nd->name) {
    olg__out_char(o, '[');
    put_id(o, nd->name);
    olg__out_str(o, "] ");
  }
  for (uint32_t i = 0; i < nd->n_outputs; i++) {
    if (i) olg__out_str(o, ", ");
    if (nd->outputs[i] != OLG_NO_VALUE) put_id(o, g->values[nd->outputs[i]].name);
  }
  olg__out_str(o, nd->n_outputs ? " = " : "= ");
  if (nd->domain && *nd->domain) {
    olg__out_str(o, nd->domain);
    olg__out_char(o, '.');
  }
  olg__out_str(o, nd->op);
  if (olg__node_overload(nd) && *olg__node_overload(nd)) {
    olg__out_char(o, ':');
    olg__out_str(o, olg__node_overload(nd));
  }
  uint32_t shown = 0;
  for (uint32_t i = 0; i < nd->n_attrs && !s; i++) {
    const olg_attr *a = &nd->attrs[i];
    if (!attr_printable(a)) continue;
    olg__out_str(o, shown++ ? ", " : " <");
    s = put_attr(cx, g, nd, a, indent + 1, depth);
  }
  if (shown) olg__out_char(o, '>');
  /* ONNX nodes have values and omitted inputs only; a literal makes it a source node, whose
   * omitted arguments read better as "none". */
  bool source = false;
  for (uint32_t i = 0; i < nd->n_args; i++)
    if (nd->args[i].kind != OLG_ARG_VALUE && nd->args[i].kind != OLG_ARG_NONE) source = true;
  olg__out_str(o, " (");
  for (uint32_t i = 0; i < nd->n_args; i++) {
    const olg_arg *a = &nd->args[i];
    if (i) olg__out_str(o, a->kind == OLG_ARG_NONE && !source ? "," : ", ");
    if (source) put_source_arg(o, g, a);
    else if (a->kind == OLG_ARG_VALUE) put_id(o, g->values[a->u.v].name);
  }
  /* a trailing omitted input needs its comma to be counted */
  if (!source && nd->n_args > 1 && nd->args[nd->n_args - 1].kind == OLG_ARG_NONE)
    olg__out_char(o, ' ');
  olg__out_str(o, ")\n");
  return s;
}

static void put_comment_lines(olg_out *o, const char *text, int indent) {
  const char *p = text;
  while (*p) {
    const char *e = strchr(p, '\n');
    size_t n = e ? (size_t)(e - p) : strlen(p);
    olg__out_indent(o, indent);
    olg__out_str(o, "# ");
    olg__out_bytes(o, p, n);
    olg__out_char(o, '\n');
    p += n;
    if (*p) p++;
  }
}

static olg_status put_graph(text_cx *cx, const olg_graph *g, const char *name, bool is_main,
                            int indent, int depth) {
  olg_out *o = &cx->out;
  if (depth > OLG_MAX_GRAPH_DEPTH)
    return olg__err(OLG_ERR_LIMIT, "olg_model_print_text: graph '%s': the subgraphs are " OLG_DEPTH_WORDS,
                    g->name ? g->name : "", OLG_MAX_GRAPH_DEPTH, OLG_MAX_GRAPH_DEPTH);
  if (is_main) put_id(o, name);
  else olg__out_str(o, name);
  olg__out_str(o, " (");
  for (uint32_t i = 0; i < g->inputs.n; i++) {
    if (i) olg__out_str(o, ", ");
    put_value_info(o, g, g->inputs.p[i]);
  }
  olg__out_str(o, ") => (");
  for (uint32_t i = 0; i < g->outputs.n; i++) {
    if (i) olg__out_str(o, ", ");
    put_value_info(o, g, g->outputs.p[i]);
  }
  olg__out_char(o, ')');
  /* initializers, then value_info, in the syntax's one '<...>' list */
  if (g->n_inits || g->value_info.n) {
    olg__out_str(o, "\n");
    olg__out_indent(o, indent);
    olg__out_str(o, "<\n");
    for (uint32_t i = 0; i < g->n_inits; i++) {
      const olg_tensor *t = g->inits[i].t;
      olg__out_indent(o, indent + 1);
      put_tensor_type(o, t);
      olg__out_char(o, ' ');
      put_id(o, g->values[g->inits[i].v].name);
      olg__out_str(o, " = ");
      put_tensor_data(o, t);
      olg__out_str(o, i + 1 < g->n_inits || g->value_info.n ? ",\n" : "\n");
    }
    for (uint32_t i = 0; i < g->value_info.n; i++) {
      olg__out_indent(o, indent + 1);
      put_value_info(o, g, g->value_info.p[i]);
      olg__out_str(o, i + 1 < g->value_info.n ? ",\n" : "\n");
    }
    olg__out_indent(o, indent);
    olg__out_char(o, '>');
  }
  /* the main graph's body opens on a line of its own, a subgraph's at the end of its header */
  if (is_main) olg__out_str(o, "\n{\n");
  else olg__out_str(o, " {\n");
  if (g->doc_string && *g->doc_string) put_comment_lines(o, g->doc_string, indent + 1);
  olg_status s = OLG_OK;
  for (uint32_t i = 0; i < g->n_nodes && !s; i++) {
    if (g->nodes[i].state == OLG_NODE_DEAD) continue;
    s = put_node(cx, g, &g->nodes[i], indent + 1, depth);
  }
  olg__out_indent(o, indent);
  olg__out_char(o, '}');
  return s;
}

static void put_header(olg_out *o, const olg_model *m) {
  olg__out_fmt(o, "<\n  ir_version: %lld,\n  opset_import: [", (long long)m->ir_version);
  for (uint32_t i = 0; i < m->n_opsets; i++) {
    if (i) olg__out_str(o, ", ");
    put_qstr(o, m->opsets[i].domain);
    olg__out_fmt(o, " : %lld", (long long)m->opsets[i].version);
  }
  olg__out_char(o, ']');
  static const struct { const char *key; size_t off; } fields[] = {
    {"producer_name", offsetof(olg_model, producer_name)},
    {"producer_version", offsetof(olg_model, producer_version)},
    {"domain", offsetof(olg_model, domain)},
    {"doc_string", offsetof(olg_model, doc_string)},
  };
  for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
    const char *v = *(const char *const *)((const char *)m + fields[i].off);
    if (!v || !*v) continue;
    olg__out_fmt(o, ",\n  %s: ", fields[i].key);
    put_qstr(o, v);
  }
  if (m->has_model_version) olg__out_fmt(o, ",\n  model_version: %lld", (long long)m->model_version);
  if (m->n_metadata) {
    olg__out_str(o, ",\n  metadata_props: [");
    for (uint32_t i = 0; i < m->n_metadata; i++) {
      if (i) olg__out_str(o, ", ");
      put_qstr(o, m->metadata[i].key);
      olg__out_str(o, ": ");
      put_qstr(o, m->metadata[i].value);
    }
    olg__out_char(o, ']');
  }
  olg__out_str(o, "\n>\n");
}

OLG_API olg_status olg_model_print_text(const olg_model *m, olg_write_fn fn, void *ud) {
  return olg_model_print_text_elided(m, 0, fn, ud);
}

OLG_API olg_status olg_model_print_text_elided(const olg_model *m, uint64_t max_elements,
                                               olg_write_fn fn, void *ud) {
  if (!m || !fn) return olg__err(OLG_ERR_INVALID_ARG, "olg_model_print_text: model and callback are required");
  text_cx cx;
  olg__out_init(&cx.out, fn, ud, "olg_model_print_text");
  cx.out.max_elements = max_elements;
  put_header(&cx.out, m);
  olg_status s = put_graph(&cx, m->graph, m->graph->name ? m->graph->name : "", true, 0, 0);
  olg__out_char(&cx.out, '\n');
  olg_status f = olg__out_finish(&cx.out);
  return s ? s : f;
}
