/* libFuzzer target: a byte-driven builder of graphs through the PUBLIC API.
 *
 * The input is a program: each step's first byte chooses a call (add an input, an initializer
 * of any type and data mode, a string initializer, an untyped value, a node of an ONNX op taken
 * from the schema tables with inputs, attributes and nested subgraphs, a node of a source op
 * taken from the registry with positional arguments of every kind, an output, a value_info, a
 * type, an opset, model fields), the next bytes its arguments. Whatever the calls return, the
 * model is then checked (full), printed, shape-inferred, legalized (target opset from the first
 * byte), the result checked and written and read back; the source is written too. Every call
 * must return a known status, OLG_OK only with its result, and nothing may leak. Only the names
 * of ops and attributes come from the library's internal schema table; every call is public. */
#include "fuzz_common.h"
#include "schema.h"

typedef struct prog {
  const uint8_t *p;
  size_t n, at;
  unsigned names; /* counter for generated names */
} prog;

static uint8_t u8(prog *f) { return f->at < f->n ? f->p[f->at++] : 0; }
static uint16_t u16(prog *f) { return (uint16_t)(u8(f) | u8(f) << 8); }
static int more(const prog *f) { return f->at < f->n; }

static int64_t small_int(prog *f) {
  uint8_t b = u8(f);
  switch (b >> 5) {
    case 0: return b & 7;
    case 1: return -(int64_t)(b & 7);
    case 2: return INT64_MAX - (b & 3);
    case 3: return INT64_MIN + (b & 3);
    case 4: return (int64_t)u16(f) - 32768;
    case 5: return (int64_t)1 << (b & 31);
    default: return b & 31;
  }
}

static float any_float(prog *f) {
  static const float special[8] = {0.f, -0.f, 1.f, -1.f, 0.5f, 1e30f, 1e-30f, 3.f};
  uint8_t b = u8(f);
  if (b < 200) return special[b & 7];
  uint32_t bits = (uint32_t)u16(f) << 16 | u16(f);
  float x;
  memcpy(&x, &bits, sizeof x);
  return x;
}

#define MAX_VALS 64
#define MAX_DEPTH 3
typedef struct gctx {
  olg_model *m;
  olg_graph *g;
  olg_value vals[MAX_VALS];
  int nv;
  int depth;
} gctx;

static const char *name_of(prog *f, char *buf, size_t cap) {
  uint8_t b = u8(f);
  if (b == 255) return ""; /* refused for inputs/initializers; an omitted output */
  if (b >= 240) return "dup";
  snprintf(buf, cap, "n%u", f->names++);
  return buf;
}

static void remember(gctx *c, olg_value v) {
  if (v < 0) return;
  if (c->nv < MAX_VALS)
    c->vals[c->nv++] = v;
  else
    c->vals[v % MAX_VALS] = v;
}

static olg_value pick(prog *f, gctx *c) {
  uint8_t b = u8(f);
  if (b < 16 || !c->nv) return b < 8 ? OLG_NO_VALUE : (olg_value)(b * 3); /* none or a bad id */
  return c->vals[b % c->nv];
}

static int32_t shape_of(prog *f, int64_t *dims, const char **params, int32_t max_rank) {
  static const char *syms[4] = {"N", "M", "batch", ""};
  int32_t rank = (int32_t)(u8(f) % (max_rank + 2)) - 1;
  for (int32_t i = 0; i < rank; i++) {
    uint8_t b = u8(f);
    params[i] = NULL;
    if (b < 200)
      dims[i] = b % 5;
    else if (b < 240) {
      dims[i] = OLG_DIM_UNKNOWN;
      params[i] = syms[b & 3];
    } else if (b < 250)
      dims[i] = OLG_DIM_UNKNOWN;
    else
      dims[i] = b == 255 ? -7 : (int64_t)1 << 40;
  }
  return rank;
}

static olg_dtype dtype_of(prog *f) {
  static const olg_dtype common[8] = {OLG_FLOAT, OLG_INT64, OLG_INT32, OLG_BOOL,
                                      OLG_FLOAT16, OLG_DOUBLE, OLG_UINT8, OLG_INT8};
  uint8_t b = u8(f);
  return b < 192 ? common[b & 7] : (olg_dtype)(b % (OLG_DTYPE_MAX + 3));
}

static void release_free(void *ud, const void *p, size_t n) {
  (void)ud;
  (void)n;
  free((void *)p);
}

static void add_input(prog *f, gctx *c) {
  char nb[32];
  int64_t dims[6];
  const char *params[6];
  const char *name = name_of(f, nb, sizeof nb);
  olg_dtype dt = dtype_of(f);
  int32_t rank = shape_of(f, dims, params, 4);
  olg_value v;
  olg_status s = olg_graph_add_input(c->g, name, dt, rank, dims, u8(f) & 1 ? params : NULL, &v);
  fz_status_known(s, "olg_graph_add_input");
  if (s == OLG_OK) remember(c, v);
}

static void add_initializer(prog *f, gctx *c, const uint8_t *data, size_t size) {
  char nb[32];
  int64_t dims[6];
  const char *params[6];
  const char *name = name_of(f, nb, sizeof nb);
  olg_dtype dt = dtype_of(f);
  int32_t rank = shape_of(f, dims, params, 3);
  if (rank < 0) rank = 0;
  uint64_t count = 1;
  for (int32_t i = 0; i < rank; i++) {
    if (dims[i] < 0 || dims[i] > 4) dims[i] = 2; /* fixed, small: the data must be given */
    count *= (uint64_t)dims[i];
  }
  size_t nbytes = olg_dtype_nbytes(dt, count);
  uint8_t mode_b = u8(f);
  if (mode_b & 0x80 && nbytes) nbytes--; /* a size that does not match: refused */
  if (nbytes > 4096) nbytes = 4096;
  olg_data_mode mode = (olg_data_mode)(mode_b % 3);
  olg_value v;
  olg_status s;
  if (mode == OLG_DATA_BORROW && nbytes <= size) {
    s = olg_graph_add_initializer(c->g, name, dt, rank, dims, data, nbytes, mode, NULL, NULL, &v);
  } else {
    uint8_t *buf = malloc(nbytes ? nbytes : 1);
    if (!buf) return;
    for (size_t i = 0; i < nbytes; i++) buf[i] = u8(f);
    if (mode == OLG_DATA_OWN) {
      /* ownership passes even when the call fails: the release frees buf */
      s = olg_graph_add_initializer(c->g, name, dt, rank, dims, buf, nbytes, mode, release_free,
                                    NULL, &v);
    } else {
      s = olg_graph_add_initializer(c->g, name, dt, rank, dims, buf, nbytes, OLG_DATA_COPY, NULL,
                                    NULL, &v);
      free(buf);
    }
  }
  fz_status_known(s, "olg_graph_add_initializer");
  if (s == OLG_OK) remember(c, v);
}

static void add_string_initializer(prog *f, gctx *c) {
  char nb[32];
  const char *name = name_of(f, nb, sizeof nb);
  int64_t n = u8(f) % 4;
  const char *strs[4] = {"", "a", "bc\0d", "\xff\xfe"};
  size_t lens[4] = {0, 1, 4, 2};
  olg_value v;
  olg_status s = olg_graph_add_string_initializer(c->g, name, 1, &n, strs, lens, &v);
  fz_status_known(s, "olg_graph_add_string_initializer");
  if (s == OLG_OK) remember(c, v);
}

static void build_graph(prog *f, gctx *c, int max_steps, const uint8_t *data, size_t size);

/* A subgraph for an attribute: a few steps of the program, with access to the enclosing
 * graph's values by name (an untyped value of the same name is an outer reference). */
static olg_graph *subgraph(prog *f, gctx *outer, const uint8_t *data, size_t size) {
  olg_graph *sub;
  olg_status s = olg_model_new_subgraph(outer->m, &sub);
  fz_status_known(s, "olg_model_new_subgraph");
  if (s != OLG_OK) return NULL;
  gctx c = {outer->m, sub, {0}, 0, outer->depth + 1};
  int n_outer = u8(f) % 3;
  for (int i = 0; i < n_outer && outer->nv; i++) {
    olg_value ov = outer->vals[u8(f) % outer->nv];
    const char *nm = olg_value_name(outer->g, ov);
    olg_value v;
    if (nm && olg_graph_add_value(sub, nm, &v) == OLG_OK) remember(&c, v);
  }
  build_graph(f, &c, 6, data, size);
  return sub;
}

static void attr_of_type(prog *f, gctx *c, olg_node_id n, const char *name, int type,
                         const uint8_t *data, size_t size) {
  olg_status s = OLG_OK;
  int64_t ints[4];
  float floats[4];
  size_t len = u8(f) % 5;
  for (size_t i = 0; i < 4; i++) {
    ints[i] = small_int(f);
    floats[i] = any_float(f);
  }
  static const char *const strs[4] = {"", "NOTSET", "linear", "constant"};
  switch (type) {
    case OLG_SCHEMA_ATTR_FLOAT: s = olg_node_attr_float(c->g, n, name, floats[0]); break;
    case OLG_SCHEMA_ATTR_INT: s = olg_node_attr_int(c->g, n, name, ints[0]); break;
    case OLG_SCHEMA_ATTR_STRING: s = olg_node_attr_string(c->g, n, name, strs[len & 3]); break;
    case OLG_SCHEMA_ATTR_FLOATS: s = olg_node_attr_floats(c->g, n, name, floats, len & 3); break;
    case OLG_SCHEMA_ATTR_INTS: s = olg_node_attr_ints(c->g, n, name, ints, len & 3); break;
    case OLG_SCHEMA_ATTR_STRINGS: s = olg_node_attr_strings(c->g, n, name, strs, len & 3); break;
    case OLG_SCHEMA_ATTR_TENSOR: {
      int64_t dims[6];
      const char *params[6];
      olg_dtype dt = dtype_of(f);
      int32_t rank = shape_of(f, dims, params, 2);
      if (rank < 0) rank = 0;
      uint64_t count = 1;
      for (int32_t i = 0; i < rank; i++) {
        if (dims[i] < 0 || dims[i] > 4) dims[i] = 1;
        count *= (uint64_t)dims[i];
      }
      size_t nbytes = olg_dtype_nbytes(dt, count);
      if (nbytes > size) nbytes = size; /* may not match: refused */
      s = olg_node_attr_tensor(c->g, n, name, dt, rank, dims, data, nbytes);
      break;
    }
    case OLG_SCHEMA_ATTR_GRAPH:
    case OLG_SCHEMA_ATTR_GRAPHS:
      if (c->depth < MAX_DEPTH) {
        olg_graph *subs[2] = {subgraph(f, c, data, size), NULL};
        if (!subs[0]) return;
        if (type == OLG_SCHEMA_ATTR_GRAPH) {
          s = olg_node_attr_graph(c->g, n, name, subs[0]);
        } else {
          subs[1] = u8(f) & 1 ? subgraph(f, c, data, size) : subs[0]; /* twice: refused */
          s = olg_node_attr_graphs(c->g, n, name, subs, subs[1] ? 2 : 1);
        }
      }
      break;
    default: s = olg_node_attr_bytes(c->g, n, name, "\0x", len & 1 ? 2 : 0); break;
  }
  fz_status_known(s, "olg_node_attr_*");
}

static const olg_schema *schema_at(uint16_t i) {
  const olg_schema_tables *t = &olg__schema_tables;
  if (!t->n_ops) return NULL;
  const olg_schema_op *op = &t->ops[i % t->n_ops];
  return &t->schemas[op->first + op->count - 1]; /* the newest version */
}

static void end_node(prog *f, gctx *c, olg_node_id n, int max_out) {
  char nb[4][32];
  const char *names[4];
  size_t n_out = u8(f) % (size_t)(max_out + 1);
  if (n_out > 4) n_out = 4;
  for (size_t i = 0; i < n_out; i++) names[i] = u8(f) < 32 ? name_of(f, nb[i], 32) : NULL;
  olg_value outs[4];
  olg_status s = olg_node_end(c->g, n, n_out, u8(f) & 1 ? names : NULL, outs);
  fz_status_known(s, "olg_node_end");
  if (s == OLG_OK)
    for (size_t i = 0; i < n_out; i++) remember(c, outs[i]);
}

static void onnx_node(prog *f, gctx *c, const uint8_t *data, size_t size) {
  const olg_schema *sc = schema_at(u16(f));
  if (!sc) return;
  char nb[32];
  olg_node_id n;
  olg_status s = olg_node_begin(c->g, sc->domain, sc->name, name_of(f, nb, sizeof nb), &n);
  fz_status_known(s, "olg_node_begin");
  if (s != OLG_OK) return;
  int max_in = sc->max_inputs < 0 ? sc->min_inputs + 3 : sc->max_inputs + 1;
  int n_in = u8(f) % (max_in + 1);
  for (int i = 0; i < n_in; i++) {
    olg_value v = pick(f, c);
    s = v == OLG_NO_VALUE ? olg_node_arg_none(c->g, n) : olg_node_arg_value(c->g, n, v);
    fz_status_known(s, "olg_node_arg_value");
  }
  int n_attr = u8(f) % 4;
  for (int i = 0; i < n_attr; i++) {
    uint8_t b = u8(f);
    if (sc->n_attrs && b < 224) {
      const olg_attr_schema *as = &sc->attrs[b % sc->n_attrs];
      attr_of_type(f, c, n, as->name, u8(f) < 240 ? as->type : u8(f) % 15, data, size);
    } else {
      attr_of_type(f, c, n, b & 1 ? "bogus" : "", u8(f) % 15, data, size);
    }
  }
  int max_out = sc->max_outputs < 0 ? sc->min_outputs + 2 : sc->max_outputs;
  end_node(f, c, n, max_out + 1);
}

static void source_node(prog *f, gctx *c) {
  const olg_registry *r = fz_registry();
  size_t count = olg_registry_op_count(r);
  if (!count) return;
  const char *domain, *op;
  if (olg_registry_op_at(r, u16(f) % count, &domain, &op) != OLG_OK)
    FZ_DIE("olg_registry_op_at within the count");
  char nb[32];
  olg_node_id n;
  olg_status s = olg_node_begin(c->g, domain, op, name_of(f, nb, sizeof nb), &n);
  fz_status_known(s, "olg_node_begin");
  if (s != OLG_OK) return;
  int n_args = u8(f) % 7;
  for (int i = 0; i < n_args; i++) {
    int64_t ints[4] = {small_int(f), small_int(f), small_int(f), small_int(f)};
    double dbl[3] = {any_float(f), any_float(f), any_float(f)};
    size_t len = u8(f) % 5;
    switch (u8(f) % 10) {
      case 0: case 1: s = olg_node_arg_value(c->g, n, pick(f, c)); break;
      case 2: {
        olg_value vs[3] = {pick(f, c), pick(f, c), pick(f, c)};
        s = olg_node_arg_values(c->g, n, vs, len % 4);
        break;
      }
      case 3: s = olg_node_arg_none(c->g, n); break;
      case 4: s = olg_node_arg_int(c->g, n, ints[0]); break;
      case 5: s = olg_node_arg_float(c->g, n, dbl[0]); break;
      case 6: s = olg_node_arg_bool(c->g, n, (int)(ints[1] & 3)); break;
      case 7: s = olg_node_arg_string(c->g, n, len & 1 ? "mean" : "none"); break;
      case 8: s = olg_node_arg_ints(c->g, n, ints, len); break;
      default: s = olg_node_arg_floats(c->g, n, dbl, len % 4); break;
    }
    fz_status_known(s, "olg_node_arg_*");
  }
  if (u8(f) < 16) attr_of_type(f, c, n, "alpha", u8(f) % 15, NULL, 0);
  end_node(f, c, n, 3);
}

static void build_graph(prog *f, gctx *c, int max_steps, const uint8_t *data, size_t size) {
  for (int step = 0; step < max_steps && more(f); step++) {
    olg_status s = OLG_OK;
    char nb[32];
    switch (u8(f) % 16) {
      case 0: case 1: add_input(f, c); break;
      case 2: case 3: add_initializer(f, c, data, size); break;
      case 4: add_string_initializer(f, c); break;
      case 5: case 6: case 7: onnx_node(f, c, data, size); break;
      case 8: case 9: source_node(f, c); break;
      case 10: case 11:
        if (c->nv) s = olg_graph_add_output(c->g, c->vals[u8(f) % c->nv]);
        break;
      case 12:
        if (c->nv) s = olg_graph_add_value_info(c->g, c->vals[u8(f) % c->nv]);
        break;
      case 13: {
        int64_t dims[6];
        const char *params[6];
        olg_value v = pick(f, c);
        olg_dtype dt = dtype_of(f);
        int32_t rank = shape_of(f, dims, params, 4);
        s = olg_value_set_type(c->g, v, dt, rank, dims, u8(f) & 1 ? params : NULL);
        break;
      }
      case 14: {
        olg_value v;
        s = olg_graph_add_value(c->g, name_of(f, nb, sizeof nb), &v);
        if (s == OLG_OK) remember(c, v);
        break;
      }
      default: {
        static const char *const domains[4] = {"", "ai.onnx.ml", "com.microsoft", "aten"};
        uint8_t b = u8(f);
        if (b < 128)
          s = olg_model_set_opset(c->m, domains[b & 3], (int64_t)(u8(f) % 30));
        else if (b < 160)
          s = olg_model_set_ir_version(c->m, (int64_t)(u8(f) % 16) - 1);
        else if (b < 192)
          s = olg_model_set_metadata(c->m, b & 1 ? "k" : "", "v");
        else if (b < 224)
          s = olg_graph_set_name(c->g, b & 1 ? "g" : "");
        else
          s = olg_model_set_string(c->m, (olg_model_field)(b % 6), "x");
        break;
      }
    }
    fz_status_known(s, "a graph call");
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > 8192) return 0;
  prog f = {data, size, 0, 0};
  int64_t target = 7 + u8(&f) % 21; /* 7..27 */
  olg_model *m;
  if (olg_model_new(&m, NULL) != OLG_OK) FZ_DIE("olg_model_new");
  /* most programs want a valid start: opset 17, a named graph */
  if (olg_model_set_opset(m, "", 17) != OLG_OK) FZ_DIE("olg_model_set_opset");
  if (olg_graph_set_name(olg_model_graph(m), "main") != OLG_OK) FZ_DIE("olg_graph_set_name");
  gctx c = {m, olg_model_graph(m), {0}, 0, 0};
  build_graph(&f, &c, 64, data, size);

  olg_diags *d;
  if (olg_diags_new(&d, NULL) != OLG_OK) FZ_DIE("olg_diags_new");
  olg_check_options co = OLG_CHECK_OPTIONS_INIT;
  co.full = 1;
  co.allow_unlowered = 1;
  fz_status_known(olg_check(m, &co, d), "olg_check");
  fz_status_known(olg_model_print_text(m, fz_discard, NULL), "olg_model_print_text");
  fz_status_known(olg_model_print_dot(m, fz_discard, NULL), "olg_model_print_dot");
  fz_write_read_back(m, "built model");

  olg_legalize_options o = OLG_LEGALIZE_OPTIONS_INIT;
  o.opset = target;
  olg_model *out = NULL;
  olg_diags_clear(d);
  olg_status s = olg_legalize(m, fz_registry(), &o, &out, d);
  fz_status_known(s, "olg_legalize");
  if ((s == OLG_OK) != (out != NULL)) FZ_DIE("olg_legalize: status %d, model %p", s, (void *)out);
  if (out) {
    olg_diags_clear(d);
    co.allow_unlowered = 0;
    fz_status_known(olg_check(out, &co, d), "olg_check of the legalized model");
    fz_write_read_back(out, "legalized model");
    olg_model_free(out);
  }
  /* inference changes the source: after legalize, whose output borrows from it */
  olg_diags_clear(d);
  fz_status_known(olg_infer_shapes(m, &co, d), "olg_infer_shapes");
  fz_write_read_back(m, "built model after inference");
  olg_diags_free(d);
  olg_model_free(m);
  return 0;
}
