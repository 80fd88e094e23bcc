/* The graph IR and its building API. */
#include <stdio.h>
#include <stdlib.h>

#include "../harness.h"
#include "graph_impl.h"

TEST(version_agrees) {
  CHECK_EQ(olg_version(), OLG_VERSION_NUMBER);
  CHECK_STR(olg_version_string(), OLG_VERSION_STRING);
}

TEST(dtypes) {
  CHECK_STR(olg_dtype_name(OLG_FLOAT), "float");
  CHECK_EQ(olg_dtype_from_name("float8e5m2"), OLG_FLOAT8E5M2);
  CHECK_EQ(olg_dtype_bits(OLG_INT4), 4);
  CHECK_EQ(olg_dtype_nbytes(OLG_INT4, 3), 2);
  CHECK_EQ(olg_dtype_nbytes(OLG_INT2, 5), 2);
  CHECK_EQ(olg_dtype_nbytes(OLG_FLOAT, 10), 40);
  CHECK_EQ(olg_dtype_nbytes(OLG_STRING, 1), (long long)SIZE_MAX);
  CHECK(olg_dtype_name(999) == NULL);
}

/* A small graph: y = Relu(x + w), used by several tests. */
static olg_status build_small(olg_model *m, olg_value *y_out) {
  static const float w[6] = {1, 2, 3, 4, 5, 6};
  olg_graph *g = olg_model_graph(m);
  olg_status s;
  olg_value x, wv, t, y;
  olg_node_id n;
  const int64_t dims[2] = {OLG_DIM_UNKNOWN, 3}, wd[2] = {2, 3};
  const char *params[2] = {"batch", NULL};
  if ((s = olg_model_set_opset(m, "", 17))) return s;
  if ((s = olg_graph_add_input(g, "x", OLG_FLOAT, 2, dims, params, &x))) return s;
  if ((s = olg_graph_add_initializer(g, "w", OLG_FLOAT, 2, wd, w, sizeof w, OLG_DATA_COPY, NULL, NULL, &wv))) return s;
  if ((s = olg_node_begin(g, "", "Add", "add0", &n))) return s;
  if ((s = olg_node_arg_value(g, n, x)) || (s = olg_node_arg_value(g, n, wv))) return s;
  if ((s = olg_node_end(g, n, 1, NULL, &t))) return s;
  if ((s = olg_node_begin(g, "", "Relu", "relu0", &n))) return s;
  if ((s = olg_node_arg_value(g, n, t))) return s;
  const char *yn[1] = {"y"};
  if ((s = olg_node_end(g, n, 1, yn, &y))) return s;
  if ((s = olg_graph_add_output(g, y))) return s;
  if (y_out) *y_out = y;
  return OLG_OK;
}

TEST(build_and_query) {
  olg_model *m;
  CHECK_OK(olg_model_new(&m, NULL));
  olg_value y;
  CHECK_OK(build_small(m, &y));
  olg_graph *g = olg_model_graph(m);
  CHECK_EQ(olg_graph_node_count(g), 2);
  CHECK_EQ(olg_graph_input_count(g), 1);
  CHECK_EQ(olg_graph_initializer_count(g), 1);
  CHECK_STR(olg_value_name(g, y), "y");
  olg_value x;
  CHECK_OK(olg_graph_find_value(g, "x", &x));
  int64_t d;
  const char *param;
  CHECK_OK(olg_value_dim(g, x, 0, &d, &param));
  CHECK_EQ(d, OLG_DIM_UNKNOWN);
  CHECK_STR(param, "batch");
  CHECK_OK(olg_value_dim(g, x, 1, &d, &param));
  CHECK_EQ(d, 3);
  CHECK(param == NULL);
  olg_node_id p;
  int32_t slot;
  CHECK_OK(olg_value_producer(g, y, &p, &slot));
  CHECK_STR(olg_node_op(g, p), "Relu");
  CHECK_EQ(slot, 0);
  /* generated names are unique and derive from the node's name */
  CHECK_STR(olg_value_name(g, olg_node_output_at(g, 0, 0)), "add0_0");
  CHECK_EQ(olg_model_opset(m, "ai.onnx"), 17);
  CHECK_EQ(olg_model_opset(m, "com.example"), -1);
  olg_model_free(m);
}

TEST(duplicate_names_refused) {
  olg_model *m;
  CHECK_OK(olg_model_new(&m, NULL));
  CHECK_OK(build_small(m, NULL));
  olg_graph *g = olg_model_graph(m);
  olg_value v;
  CHECK_STATUS(olg_graph_add_input(g, "y", OLG_FLOAT, 0, NULL, NULL, &v), OLG_ERR_DUPLICATE);
  CHECK_STATUS(olg_graph_add_value(g, "w", &v), OLG_ERR_DUPLICATE);
  olg_node_id n;
  CHECK_OK(olg_node_begin(g, "", "Neg", "neg", &n));
  CHECK_OK(olg_node_arg_value(g, n, 0));
  const char *names[2] = {"fresh", "x"};
  CHECK_STATUS(olg_node_end(g, n, 2, names, NULL), OLG_ERR_DUPLICATE);
  /* the failed close rolled "fresh" back: it can be used again */
  CHECK_OK(olg_graph_add_value(g, "fresh", &v));
  CHECK(strstr(olg_last_error(), "") != NULL);
  olg_model_free(m);
}

/* Generated output names ("<node>_<k>") are found through their number, not the name map: each
 * is still found by name, refused as a second definition, skipped when a given name has it, and
 * forgotten when renamed or rolled back. */
TEST(generated_names_found_and_unique) {
  olg_model *m;
  CHECK_OK(olg_model_new(&m, NULL));
  olg_graph *g = olg_model_graph(m);
  CHECK_OK(olg_model_set_opset(m, "", 17));
  olg_value x, given, out[3], v;
  CHECK_OK(olg_graph_add_input(g, "x", OLG_FLOAT, 0, NULL, NULL, &x));
  CHECK_OK(olg_graph_add_value(g, "t_1", &given));
  olg_node_id n;
  CHECK_OK(olg_node_begin(g, "", "Split", "t", &n));
  CHECK_OK(olg_node_arg_value(g, n, x));
  CHECK_OK(olg_node_end(g, n, 3, NULL, out));
  CHECK_STR(olg_value_name(g, out[0]), "t_0");
  CHECK_STR(olg_value_name(g, out[1]), "t_2"); /* t_1 is taken */
  CHECK_STR(olg_value_name(g, out[2]), "t_3");
  CHECK_OK(olg_graph_find_value(g, "t_0", &v));
  CHECK_EQ(v, out[0]);
  CHECK_OK(olg_graph_find_value(g, "t_1", &v));
  CHECK_EQ(v, given);
  CHECK_OK(olg_graph_find_value(g, "t_3", &v));
  CHECK_EQ(v, out[2]);
  const char *absent[] = {"t_4", "t_", "_0", "0", "t_00", "t_03", "u_0", "t_99999999999999999999", ""};
  for (size_t i = 0; i < sizeof absent / sizeof *absent; i++)
    CHECK(olg_graph_find_value(g, absent[i], &v) != OLG_OK);
  CHECK_STATUS(olg_graph_add_value(g, "t_2", &v), OLG_ERR_DUPLICATE);
  CHECK_STATUS(olg__value_rename(g, given, "t_3"), OLG_ERR_DUPLICATE);
  /* renamed: the old name is free, the new one found */
  CHECK_OK(olg__value_rename(g, out[0], "first"));
  CHECK(olg_graph_find_value(g, "t_0", &v) != OLG_OK);
  CHECK_OK(olg_graph_find_value(g, "first", &v));
  CHECK_EQ(v, out[0]);
  CHECK_OK(olg_graph_add_value(g, "t_0", &v));
  /* rolled back: the last generated value's name is free again */
  olg__g_graph_pop_value(g); /* the "t_0" just added */
  CHECK_OK(olg__graph_add_value_auto(g, "w", &v));
  CHECK_STR(olg_value_name(g, v), "w_4");
  CHECK_OK(olg_graph_find_value(g, "w_4", &v));
  olg__g_graph_pop_value(g);
  CHECK(olg_graph_find_value(g, "w_4", &v) != OLG_OK);
  CHECK_OK(olg_graph_add_value(g, "w_4", &v));
  olg_model_free(m);
}

/* olg__name_hash (its 4-to-7-byte case inline) gives what olg__name_hash_any gives, for names
 * given by length and as C strings, with and without a NUL: the name maps mix both. */
TEST(name_hash_inline_agrees) {
  uint64_t st = 7;
  for (int k = 0; k < 4000; k++) {
    char b[24];
    size_t len = (size_t)(k % 20);
    for (size_t i = 0; i < sizeof b; i++) {
      st = st * 6364136223846793005u + 1442695040888963407u;
      b[i] = (char)(st >> 56);
      if (!b[i] || (k % 3 && i < len)) b[i] = (char)('a' + (st >> 40) % 26); /* NUL-free mostly */
    }
    if (k % 7 == 0 && len) b[(st >> 20) % len] = 0;
    size_t n1 = len, n2 = len;
    uint32_t h1 = olg__name_hash(b, &n1), h2 = olg__name_hash_any(b, &n2);
    CHECK_EQ(h1, h2);
    CHECK_EQ(n1, n2);
    b[n1] = 0; /* the same bytes as a C string */
    size_t n3 = SIZE_MAX;
    CHECK_EQ(olg__name_hash_any(b, &n3), h1);
    CHECK_EQ(n3, n1);
  }
}

/* The value map (ir.h, olg_valmap: slots of hash and id, whose key is the record's name) against
 * a naive model, over a deterministic pseudo-random run of additions (named, by the reader's
 * path, generated, second definitions), renames, rollbacks and lookups: many insertions and
 * deletions, growths, names whose hashes are equal. The model finds a name at the first value
 * that holds it and is not a second definition. */
typedef struct vm_model {
  char (*name)[16]; /* by value id: a copy of the name the graph should hold */
  unsigned char *dup;
  uint32_t n, cap;
} vm_model;

static int32_t vm_model_find(const vm_model *mo, const char *name) {
  for (uint32_t v = 0; v < mo->n; v++)
    if (!mo->dup[v] && strcmp(mo->name[v], name) == 0) return (int32_t)v;
  return -1;
}

static void vm_model_set(vm_model *mo, uint32_t v, const char *name) { /* under 16 bytes */
  size_t n = strlen(name);
  memcpy(mo->name[v], name, n < 15 ? n + 1 : 16);
  mo->name[v][15] = 0;
}

/* Every slot of g's value map names a value of g, not a second definition nor a generated name,
 * by the hash of its name, and is found by that name; the slots are counted right. */
static int vm_map_consistent(const olg_graph *g) {
  uint32_t used = 0;
  for (uint32_t i = 0; i < g->names.cap; i++) {
    olg_val_slot e = g->names.slots[i];
    if (!e.id1) continue;
    used++;
    if (e.id1 > g->n_values) return 0;
    const olg_value_rec *r = &g->values[e.id1 - 1];
    if (r->flags & (OLG_VF_DUPLICATE | OLG_VF_AUTO_NAME)) return 0;
    if (e.hash != olg__name_hash(r->name, &(size_t){SIZE_MAX})) return 0;
    if (olg__graph_lookup(g, r->name) != (olg_value)(e.id1 - 1)) return 0;
  }
  return used == g->names.n;
}

static uint64_t vm_rand(uint64_t *st) { /* splitmix64 */
  uint64_t z = (*st += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static int vm_cmp_hash(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

TEST(value_map_against_naive_model) {
  /* names whose hashes are equal: 2^18 names "c<8 pseudo-random hex digits>" give a few pairs
     (the birthday bound; sequential numbers give none, FNV-1a spreading short suffixes well) */
  enum { NC = 1 << 18 };
  uint64_t *hs = malloc(NC * sizeof *hs), st = 7;
  CHECK(hs);
  for (uint32_t i = 0; i < NC; i++) {
    char b[16];
    uint32_t x = (uint32_t)vm_rand(&st);
    snprintf(b, sizeof b, "c%08x", x);
    hs[i] = (uint64_t)olg__name_hash(b, &(size_t){SIZE_MAX}) << 32 | x;
  }
  qsort(hs, NC, sizeof *hs, vm_cmp_hash);
  char pool[64][16]; /* colliding pairs first, then names of the forms the graph makes up */
  uint32_t np = 0;
  for (uint32_t i = 1; i < NC && np < 8; i++)
    if (hs[i] >> 32 == hs[i - 1] >> 32 && hs[i] != hs[i - 1]) {
      snprintf(pool[np++], 16, "c%08x", (uint32_t)hs[i - 1]);
      snprintf(pool[np++], 16, "c%08x", (uint32_t)hs[i]);
    }
  free(hs);
  CHECK(np >= 2);
  uint32_t n_colliding = np;
  for (uint32_t i = 0; np < 64; i++, np++) snprintf(pool[np], 16, i % 2 ? "t_%u" : "x%u", i);

  olg_model *m;
  CHECK_OK(olg_model_new(&m, NULL));
  olg_graph *g = olg_model_graph(m);
  vm_model mo = {0};
  st = 23;
  char nm[32];
  for (int step = 0; step < 30000 && !olg_test_failed(); step++) {
    if (mo.n + 1 > mo.cap) {
      mo.cap = mo.cap ? 2 * mo.cap : 256;
      mo.name = realloc(mo.name, mo.cap * sizeof *mo.name);
      mo.dup = realloc(mo.dup, mo.cap);
      CHECK(mo.name && mo.dup);
    }
    uint64_t r = vm_rand(&st);
    /* a name: from the small pool (repeats, equal hashes), or one of many */
    if (r >> 60 < 4) snprintf(nm, sizeof nm, "%s", pool[(r >> 8) % np]);
    else snprintf(nm, sizeof nm, "n%u", (uint32_t)((r >> 8) % 40000));
    int32_t want = vm_model_find(&mo, nm);
    olg_value v;
    switch (r % 8) {
    case 0: case 1: /* a name given: refused when taken */
      if (want >= 0) {
        CHECK_STATUS(olg__graph_add_value(g, nm, false, &v), OLG_ERR_DUPLICATE);
        break;
      }
      CHECK_OK(olg__graph_add_value(g, nm, false, &v));
      CHECK_EQ(v, mo.n);
      vm_model_set(&mo, mo.n, nm), mo.dup[mo.n++] = 0;
      break;
    case 2: /* the reader's: one lookup, then the new name put, or one get-or-add; or a second
               definition */
      if (want < 0) {
        size_t n = strlen(nm);
        uint32_t h = olg__name_hash(nm, &n);
        if (r >> 63) {
          bool added = false;
          CHECK_OK(olg__graph_get_or_add_value(g, nm, n, h, &v, &added));
          CHECK(added);
        } else {
          CHECK_EQ(olg__graph_lookup_h(g, nm, n, h), -1);
          CHECK_OK(olg__graph_add_value_new(g, nm, n, h, &v));
        }
      } else if (r >> 63) { /* a name there: found, nothing added */
        size_t n = strlen(nm);
        uint32_t h = olg__name_hash(nm, &n);
        bool added = true;
        CHECK_OK(olg__graph_get_or_add_value(g, nm, n, h, &v, &added));
        CHECK(!added);
        CHECK_EQ(v, want);
        break;
      } else {
        CHECK_OK(olg__graph_add_value(g, nm, true, &v));
        CHECK(g->values[v].flags & OLG_VF_DUPLICATE);
      }
      CHECK_EQ(v, mo.n);
      vm_model_set(&mo, mo.n, nm), mo.dup[mo.n++] = want >= 0;
      break;
    case 3: /* a generated name, found by its number */
      CHECK_OK(olg__graph_add_value_auto(g, (r >> 40) & 1 ? "t" : "u", &v));
      CHECK_EQ(v, mo.n);
      CHECK_EQ(vm_model_find(&mo, g->values[v].name), -1);
      CHECK(strlen(g->values[v].name) < sizeof *mo.name);
      vm_model_set(&mo, mo.n, g->values[v].name), mo.dup[mo.n++] = 0;
      break;
    case 4: case 5: { /* a rename (not of a second definition: a reader's, never renamed) */
      if (!mo.n) break;
      uint32_t x = (uint32_t)((r >> 20) % mo.n);
      if (mo.dup[x]) break;
      if (strcmp(mo.name[x], nm) == 0) {
        CHECK_OK(olg__value_rename(g, (olg_value)x, nm));
      } else if (want >= 0) {
        CHECK_STATUS(olg__value_rename(g, (olg_value)x, nm), OLG_ERR_DUPLICATE);
      } else {
        CHECK_OK(olg__value_rename(g, (olg_value)x, nm));
        vm_model_set(&mo, x, nm);
      }
      break;
    }
    default: /* a rollback of the last value, a second definition or not */
      if (!mo.n) break;
      if (g->values[mo.n - 1].flags & OLG_VF_DUPLICATE) g->dups.n--;
      olg__g_graph_pop_value(g);
      mo.n--;
      break;
    }
    CHECK_EQ(g->n_values, mo.n);
    if (step % 1024 == 0) CHECK(vm_map_consistent(g));
    /* lookups: this name, one of each form, a value's name */
    CHECK_EQ(olg__graph_lookup(g, nm), vm_model_find(&mo, nm));
    const char *probe = pool[(r >> 32) % np];
    CHECK_EQ(olg__graph_lookup(g, probe), vm_model_find(&mo, probe));
    if (mo.n) {
      uint32_t x = (uint32_t)((r >> 44) % mo.n);
      CHECK_STR(g->values[x].name, mo.name[x]);
      CHECK_EQ(olg__graph_lookup(g, mo.name[x]), vm_model_find(&mo, mo.name[x]));
    }
  }
  /* at the end: every name once, the colliding ones and absent ones, and the map's count */
  uint32_t in_map = 0;
  for (uint32_t v = 0; v < mo.n && !olg_test_failed(); v++) {
    CHECK_STR(g->values[v].name, mo.name[v]);
    CHECK_EQ(olg__graph_lookup(g, mo.name[v]), vm_model_find(&mo, mo.name[v]));
    in_map += !mo.dup[v] && !(g->values[v].flags & OLG_VF_AUTO_NAME);
  }
  CHECK_EQ(g->names.n, in_map);
  CHECK(vm_map_consistent(g));
  for (uint32_t i = 0; i < n_colliding; i++)
    CHECK_EQ(olg__graph_lookup(g, pool[i]), vm_model_find(&mo, pool[i]));
  CHECK_EQ(olg__graph_lookup(g, "n40000"), -1);
  CHECK_EQ(olg__graph_lookup(g, "c"), -1);
  free(mo.name);
  free(mo.dup);
  olg_model_free(m);
}

/* The reader's get-or-add in a graph with no generated name (one probe of the map per name),
 * against lookups, through the map's growth; names cut at a NUL hash as the C string. */
TEST(get_or_add_value) {
  olg_model *m;
  CHECK_OK(olg_model_new(&m, NULL));
  olg_graph *g = olg_model_graph(m);
  char nm[64];
  for (uint32_t i = 0; i < 6000 && !olg_test_failed(); i++) {
    uint32_t k = (i * 7919u) % 4000;
    int len = snprintf(nm, sizeof nm, k % 3 ? "/model/layers.%u/attn/MatMul_output_0" : "v%u", k);
    size_t n = (size_t)len + 4; /* the NUL and bytes after it: not part of the name */
    memcpy(nm + len + 1, "xyz", 3);
    uint32_t h = olg__name_hash(nm, &n);
    CHECK_EQ(n, (size_t)len);
    CHECK_EQ(h, olg__name_hash(nm, &(size_t){SIZE_MAX}));
    olg_value want = olg__graph_lookup(g, nm), v;
    bool added = false;
    CHECK_OK(olg__graph_get_or_add_value(g, nm, n, h, &v, &added));
    CHECK_EQ(added, want < 0);
    if (want >= 0) CHECK_EQ(v, want);
    else CHECK_EQ(v, (olg_value)g->n_values - 1);
    CHECK_STR(g->values[v].name, nm);
    CHECK_EQ(olg__graph_lookup(g, nm), v);
  }
  CHECK_EQ(g->n_values, 4000u);
  CHECK_EQ(g->names.n, 4000u);
  CHECK(vm_map_consistent(g));
  olg_model_free(m);
}

TEST(bad_arguments) {
  olg_model *m;
  CHECK_OK(olg_model_new(&m, NULL));
  olg_graph *g = olg_model_graph(m);
  olg_node_id n;
  CHECK_STATUS(olg_node_begin(g, "", "", "x", &n), OLG_ERR_INVALID_ARG);
  CHECK_OK(olg_node_begin(g, "", "Relu", "r", &n));
  CHECK_STATUS(olg_node_arg_value(g, n, 42), OLG_ERR_INVALID_ARG);
  CHECK(strstr(olg_last_error(), "42") != NULL);
  CHECK_OK(olg_node_end(g, n, 1, NULL, NULL));
  CHECK_STATUS(olg_node_arg_none(g, n), OLG_ERR_STATE);
  const int64_t dims[2] = {INT64_MAX, 4};
  float f = 0;
  olg_value v;
  CHECK_STATUS(olg_graph_add_initializer(g, "big", OLG_FLOAT, 2, dims, &f, 4, OLG_DATA_BORROW, NULL, NULL, &v), OLG_ERR_LIMIT);
  const int64_t one[1] = {2};
  CHECK_STATUS(olg_graph_add_initializer(g, "short", OLG_FLOAT, 1, one, &f, 4, OLG_DATA_BORROW, NULL, NULL, &v), OLG_ERR_INVALID_ARG);
  olg_model_free(m);
}

/* An ONNX node takes values only: a list of values or a literal is refused when it is added
 * (it was written without complaint, and only check and legalize refused it; issue 30, item 6);
 * the node can still be finished with its values, and then writes and checks. A source node
 * (aten) takes both. */
static size_t written;
static int count_bytes(void *ud, const void *data, size_t n) {
  (void)data;
  *(size_t *)ud += n;
  return 0;
}

TEST(onnx_node_refuses_lists_and_literals) {
  olg_model *m;
  CHECK_OK(olg_model_new(&m, NULL));
  CHECK_OK(olg_model_set_opset(m, "", 13));
  olg_graph *g = olg_model_graph(m);
  CHECK_OK(olg_graph_set_name(g, "g"));
  const int64_t dims[1] = {2};
  olg_value a, b, y;
  CHECK_OK(olg_graph_add_input(g, "a", OLG_FLOAT, 1, dims, NULL, &a));
  CHECK_OK(olg_graph_add_input(g, "b", OLG_FLOAT, 1, dims, NULL, &b));
  olg_node_id n;
  CHECK_OK(olg_node_begin(g, "", "Sum", "sum", &n));
  CHECK_STATUS(olg_node_arg_values(g, n, (const olg_value[]){a, b}, 2), OLG_ERR_TYPE);
  CHECK(strstr(olg_last_error(), "node 'sum' (Sum)") != NULL);
  CHECK(strstr(olg_last_error(), "a list of values") != NULL);
  CHECK_STATUS(olg_node_arg_int(g, n, 1), OLG_ERR_TYPE);
  CHECK_STATUS(olg_node_arg_ints(g, n, dims, 1), OLG_ERR_TYPE);
  CHECK_STATUS(olg_node_arg_float(g, n, 1), OLG_ERR_TYPE);
  CHECK_STATUS(olg_node_arg_string(g, n, "x"), OLG_ERR_TYPE);
  CHECK_OK(olg_node_arg_value(g, n, a));
  CHECK_OK(olg_node_arg_value(g, n, b));
  CHECK_OK(olg_node_end(g, n, 1, NULL, &y));
  CHECK_OK(olg_value_set_type(g, y, OLG_FLOAT, 1, dims, NULL));
  CHECK_OK(olg_graph_add_output(g, y));
  CHECK_OK(olg_check(m, NULL, NULL));
  CHECK_OK(olg_model_write_callback(m, count_bytes, &written, NULL));
  CHECK(written > 0);
  CHECK_OK(olg_node_begin(g, "ai.onnx.ml", "Imputer", "imp", &n));
  CHECK_STATUS(olg_node_arg_values(g, n, (const olg_value[]){a}, 1), OLG_ERR_TYPE);
  CHECK_OK(olg_node_begin(g, "aten", "cat", "cat", &n));
  CHECK_OK(olg_node_arg_values(g, n, (const olg_value[]){a, b}, 2));
  CHECK_OK(olg_node_arg_int(g, n, 0));
#if SIZE_MAX > UINT32_MAX
  /* an argument's length is 32-bit (lib/ir.h): a longer list is refused before it is read */
  const size_t huge = (size_t)UINT32_MAX + 1;
  CHECK_STATUS(olg_node_arg_values(g, n, (const olg_value[]){a}, huge), OLG_ERR_LIMIT);
  CHECK(strstr(olg_last_error(), "olg_node_arg_values: 4294967296 elements") != NULL);
  CHECK_STATUS(olg_node_arg_ints(g, n, dims, huge), OLG_ERR_LIMIT);
  CHECK_STATUS(olg_node_arg_floats(g, n, (const double[]){1}, huge), OLG_ERR_LIMIT);
#endif
  olg_model_free(m);
}

static int released;
static void release_cb(void *ud, const void *data, size_t n) {
  (void)n;
  released += ud == (void *)0x1 ? 1 : 100;
  free((void *)data);
}

TEST(owned_data_released_once) {
  olg_model *m;
  CHECK_OK(olg_model_new(&m, NULL));
  olg_graph *g = olg_model_graph(m);
  released = 0;
  const int64_t d[1] = {4};
  float *p = malloc(16);
  CHECK_OK(olg_graph_add_initializer(g, "w", OLG_FLOAT, 1, d, p, 16, OLG_DATA_OWN, release_cb, (void *)0x1, NULL));
  /* a failing call still takes ownership */
  float *q = malloc(16);
  CHECK_STATUS(olg_graph_add_initializer(g, "w", OLG_FLOAT, 1, d, q, 16, OLG_DATA_OWN, release_cb, (void *)0x1, NULL), OLG_ERR_DUPLICATE);
  CHECK_EQ(released, 1);
  olg_model_free(m);
  CHECK_EQ(released, 2);
}

TEST(topological_order) {
  olg_model *m;
  CHECK_OK(olg_model_new(&m, NULL));
  olg_graph *g = olg_model_graph(m);
  /* nodes appended consumer-first: c uses b's output, b uses a's */
  olg_value x, va, vb;
  CHECK_OK(olg_graph_add_input(g, "x", OLG_FLOAT, 0, NULL, NULL, &x));
  CHECK_OK(olg_graph_add_value(g, "a", &va));
  CHECK_OK(olg_graph_add_value(g, "b", &vb));
  olg_node_id nc, nb, na;
  CHECK_OK(olg_node_begin(g, "", "Neg", "c", &nc));
  CHECK_OK(olg_node_arg_value(g, nc, vb));
  CHECK_OK(olg_node_end(g, nc, 1, NULL, NULL));
  CHECK_OK(olg_node_begin(g, "", "Neg", "b", &nb));
  CHECK_OK(olg_node_arg_value(g, nb, va));
  CHECK_OK(olg_node_end_with(g, nb, 1, &vb));
  CHECK_OK(olg_node_begin(g, "", "Neg", "a", &na));
  CHECK_OK(olg_node_arg_value(g, na, x));
  CHECK_OK(olg_node_end_with(g, na, 1, &va));
  olg_node_id order[3];
  CHECK_OK(olg_graph_topo_order(g, order));
  CHECK_EQ(order[0], na);
  CHECK_EQ(order[1], nb);
  CHECK_EQ(order[2], nc);
  /* a cycle: d consumes e's output and e consumes d's */
  olg_value vd, ve;
  CHECK_OK(olg_graph_add_value(g, "d_out", &vd));
  CHECK_OK(olg_graph_add_value(g, "e_out", &ve));
  olg_node_id nd_, ne;
  CHECK_OK(olg_node_begin(g, "", "Neg", "d", &nd_));
  CHECK_OK(olg_node_arg_value(g, nd_, ve));
  CHECK_OK(olg_node_end_with(g, nd_, 1, &vd));
  CHECK_OK(olg_node_begin(g, "", "Neg", "e", &ne));
  CHECK_OK(olg_node_arg_value(g, ne, vd));
  CHECK_OK(olg_node_end_with(g, ne, 1, &ve));
  olg_node_id order5[5];
  CHECK_STATUS(olg_graph_topo_order(g, order5), OLG_ERR_INVALID_MODEL);
  CHECK(strstr(olg_last_error(), "cycle") != NULL);
  olg_model_free(m);
}

TEST(large_graph_linear) {
  /* 200k nodes in a chain: appending and ordering must be linear, not quadratic */
  olg_model *m;
  CHECK_OK(olg_model_new(&m, NULL));
  olg_graph *g = olg_model_graph(m);
  olg_value v;
  CHECK_OK(olg_graph_add_input(g, "x", OLG_FLOAT, 0, NULL, NULL, &v));
  enum { N = 200000 };
  for (int i = 0; i < N; i++) {
    olg_node_id n;
    CHECK_OK(olg_node_begin(g, "", "Neg", NULL, &n));
    CHECK_OK(olg_node_arg_value(g, n, v));
    CHECK_OK(olg_node_end(g, n, 1, NULL, &v));
  }
  olg_node_id *order = malloc(N * sizeof *order);
  CHECK(order);
  CHECK_OK(olg_graph_topo_order(g, order));
  for (int i = 0; i < N; i++) if (order[i] != i) { free(order); CHECK(!"order"); }
  free(order);
  olg_model_free(m);
}

static olg_status small_scenario(void *ud, const olg_allocator *a) {
  (void)ud;
  olg_model_options o = OLG_MODEL_OPTIONS_INIT;
  o.allocator = a;
  olg_model *m;
  olg_status s = olg_model_new(&m, &o);
  if (s) return s;
  s = build_small(m, NULL);
  if (!s) s = olg_model_set_metadata(m, "k", "v");
  if (!s) {
    olg_node_id order[2];
    s = olg_graph_topo_order(olg_model_graph(m), order);
  }
  olg_model_free(m);
  return s;
}

TEST(every_allocation_failure_reported) {
  CHECK_FAIL_EACH_ALLOCATION(small_scenario, NULL);
}

TEST(diags) {
  olg_diags *d;
  CHECK_OK(olg_diags_new(&d, NULL));
  CHECK_OK(olg_diags_add(d, OLG_ERROR, "OLG-X", "n1", "", "Conv", 11, "bad"));
  CHECK_OK(olg_diags_add(d, OLG_WARNING, "OLG-Y", NULL, NULL, NULL, -1, "meh"));
  CHECK_EQ(olg_diags_count(d), 2);
  CHECK_EQ(olg_diags_error_count(d), 1);
  CHECK_STR(olg_diag_node(d, 0), "n1");
  CHECK_STR(olg_diag_node(d, 1), "");
  CHECK_EQ(olg_diag_opset(d, 0), 11);
  CHECK(olg_diag_code(d, 2) == NULL);
  olg_diags_free(d);
}

TEST(ir_version_follows_opset_unless_set) {
  olg_model *m;
  CHECK_OK(olg_model_new(&m, NULL));
  CHECK_EQ(olg_model_ir_version(m), OLG_IR_VERSION_LATEST);
  CHECK_OK(olg_model_set_opset(m, "", 17));
  CHECK_EQ(olg_model_ir_version(m), 8);
  CHECK_OK(olg_model_set_opset(m, "", 9));
  CHECK_EQ(olg_model_ir_version(m), 4);
  CHECK_OK(olg_model_set_opset(m, "com.example", 1)); /* other domains do not move it */
  CHECK_EQ(olg_model_ir_version(m), 4);
  CHECK_OK(olg_model_set_ir_version(m, 10));
  CHECK_OK(olg_model_set_opset(m, "", 21));
  CHECK_EQ(olg_model_ir_version(m), 10); /* set explicitly: kept */
  olg_model_free(m);
  olg_model_options o = OLG_MODEL_OPTIONS_INIT;
  o.ir_version = 7;
  CHECK_OK(olg_model_new(&m, &o));
  CHECK_OK(olg_model_set_opset(m, "", 17));
  CHECK_EQ(olg_model_ir_version(m), 7);
  olg_model_free(m);
}

/* Node names in use: "<x>_<k>" names are kept by their number k (one per k), every other name
 * and a second name of the same k in the map; either way a name is taken once, and a fresh name
 * for a taken one gets "#2", "#3"... */
TEST(node_names_unique_numbered_or_not) {
  olg_model *m;
  CHECK_OK(olg_model_new(&m, NULL));
  olg_graph *g = olg_model_graph(m);
  olg_node_id n;
  const char *nm;
  const char *given[] = {"Add_5", "Mul_5", "Add_05", "conv", "x_", "_7", "Big_999999999"};
  for (size_t i = 0; i < sizeof given / sizeof *given; i++) {
    CHECK_OK(olg_node_begin(g, "", "Relu", given[i], &n));
    CHECK_OK(olg_node_end(g, n, 1, NULL, NULL));
  }
  for (size_t i = 0; i < sizeof given / sizeof *given; i++) {
    CHECK_OK(olg__node_begin_fresh(g, "", "Relu", given[i], &n));
    char want[64];
    snprintf(want, sizeof want, "%s#2", given[i]);
    CHECK_STR(olg_node_name(g, n), want);
    CHECK_OK(olg_node_end(g, n, 1, NULL, NULL));
  }
  const char *free_names[] = {"Add_6", "Sub_5", "Add_5#3", "Add_005", "_8", "Big_999999998"};
  for (size_t i = 0; i < sizeof free_names / sizeof *free_names; i++) {
    CHECK(nm = olg__graph_fresh_node_name(g, free_names[i]));
    CHECK_STR(nm, free_names[i]);
  }
  CHECK_OK(olg__node_begin_fresh(g, "", "Relu", "Add_5", &n));
  CHECK_STR(olg_node_name(g, n), "Add_5#3");
  CHECK_OK(olg_node_end(g, n, 1, NULL, NULL));
  /* a numbered name stays taken when the node count drops (a cleanup's compaction) */
  CHECK_OK(olg__node_begin_fresh(g, "", "Relu", "Relu_4100", &n));
  CHECK_OK(olg_node_end(g, n, 1, NULL, NULL));
  uint32_t count = g->n_nodes;
  g->n_nodes = 0;
  CHECK_STR(olg__graph_fresh_node_name(g, "Relu_4100"), "Relu_4100#2");
  g->n_nodes = count;
  olg_model_free(m);
}

/* The arena packs strings and keeps every other block 8-aligned, zeroed, extendable in place
 * while it is the latest; large blocks get chunks of their own. */
TEST(arena_packs_strings_and_aligns_blocks) {
  olg_allocator a;
  CHECK_OK(olg__alloc_init(&a, NULL));
  olg_arena ar;
  olg_arena_init(&ar, &a);
  size_t packed = 0;
  for (size_t i = 1; i < 5000; i++) {
    size_t n1 = i % 13 + 1, n2 = i % 5 + 1, nb = (i % 5) * 8 + 4;
    char *s1 = olg_arena_alloc_str(&ar, n1), *s2 = olg_arena_alloc_str(&ar, n2);
    CHECK(s1 != NULL && s2 != NULL);
    memset(s1, 'x', n1);
    memset(s2, 'x', n2);
    packed += s2 == s1 + n1; /* unless s2 opened a new chunk */
    uint8_t *b = olg_arena_alloc(&ar, nb);
    CHECK(b != NULL);
    CHECK_EQ((uintptr_t)b % 8, 0);
    for (size_t k = 0; k < nb; k++) CHECK_EQ(b[k], 0);
    memset(b, 0xff, nb);
    if (i % 7 == 0) {
      CHECK(olg_arena_extend(&ar, b, nb, nb + 16) == b);
      for (size_t k = nb; k < nb + 16; k++) CHECK_EQ(b[k], 0);
    }
  }
  CHECK(packed >= 4990);
  char *big = olg_arena_alloc_str(&ar, 100000);
  CHECK(big != NULL);
  memset(big, 'y', 100000);
  uint64_t *after = olg_arena_alloc(&ar, 8);
  CHECK(after != NULL && (uintptr_t)after % 8 == 0 && *after == 0);
  CHECK_EQ(ar.failures, 0);
  olg_arena_free(&ar);
}

static void *counted_alloc(void *ud, size_t n) { (void)ud; return malloc(n); }
static void counted_free(void *ud, void *p, size_t n) { (void)ud; (void)n; free(p); }

/* A growing arena's chunk (the reader's) as it opens: from the default allocator, as large as
 * the arena so far (up to 8 MiB: huge pages for a large graph's names), what it leaves unused at
 * most what it holds; from a caller's allocator (a device's pool), 64 KiB each. */
TEST(arena_chunks_grow_with_the_default_allocator_only) {
  olg_allocator def, own = {sizeof(olg_allocator), counted_alloc, NULL, counted_free, NULL};
  CHECK_OK(olg__alloc_init(&def, NULL));
  for (int k = 0; k < 2; k++) {
    olg_arena ar;
    olg_arena_init(&ar, k ? &own : &def);
    ar.grow = true;
    size_t largest = 0, held = 0, n = 100;
    char *prev = NULL;
    for (size_t i = 0; i < 300000; i++) { /* 30 MB of names */
      char *p = olg_arena_alloc_str(&ar, n);
      CHECK(p != NULL);
      if (p != prev + n && (size_t)(ar.end - p) > largest) largest = (size_t)(ar.end - p);
      prev = p;
      held += n;
    }
    if (k) {
      CHECK(largest <= 64 * 1024);
    } else {
      CHECK(largest >= ((size_t)4 << 20) && largest <= ((size_t)8 << 20));
      CHECK(ar.total - held <= held);
    }
    CHECK_EQ(ar.failures, 0);
    olg_arena_free(&ar);
  }
}

#ifdef __linux__
#include <sys/mman.h>
#include <unistd.h>

/* How many of the whole pages inside [p, p + n) are resident. */
static size_t resident_pages(void *p, size_t n, size_t *whole) {
  uintptr_t lo = ((uintptr_t)p + 4095) & ~(uintptr_t)4095, hi = ((uintptr_t)p + n) & ~(uintptr_t)4095;
  *whole = (hi - lo) / 4096;
  unsigned char vec[1024];
  if (*whole > sizeof vec || mincore((void *)lo, hi - lo, vec)) return SIZE_MAX;
  size_t k = 0;
  for (size_t i = 0; i < *whole; i++) k += vec[i] & 1;
  return k;
}

/* Gives the whole pages inside [p, p + n) back to the kernel (zero, not resident): malloc may
 * have handed out pages an earlier test used. */
static void *unmapped(void *p, size_t n) {
  uintptr_t lo = ((uintptr_t)p + 4095) & ~(uintptr_t)4095, hi = ((uintptr_t)p + n) & ~(uintptr_t)4095;
  if (p) madvise((void *)lo, hi - lo, MADV_DONTNEED);
  return p;
}

static void *own_alloc(void *ud, size_t n) { (void)ud; return malloc(n); }
static void own_free(void *ud, void *p, size_t n) { (void)ud; (void)n; free(p); }

/* olg__prefault maps in the default allocator's fresh pages at once and keeps what they hold;
 * it leaves a caller's allocator's memory alone. Where the kernel lacks MADV_POPULATE_WRITE
 * (Linux < 5.14, qemu-user) only the contents and the caller's case are checked. */
TEST(prefault_maps_default_pages_only) {
  const size_t n = 2u << 20; /* above malloc's mmap threshold: fresh, unmapped pages */
  /* supported: giving a page back unmaps it and the call maps it in again (qemu-user returns 0
     from both and does nothing) */
  unsigned char *probe = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(probe != MAP_FAILED);
  unsigned char gone = 1, back = 0;
  probe[0] = 1;
  bool supported = madvise(probe, 4096, MADV_DONTNEED) == 0 && mincore(probe, 4096, &gone) == 0 &&
                   !(gone & 1) && madvise(probe, 4096, 23 /* MADV_POPULATE_WRITE */) == 0 &&
                   mincore(probe, 4096, &back) == 0 && (back & 1);
  munmap(probe, 4096);
  olg_allocator def, own = {sizeof(olg_allocator), own_alloc, NULL, own_free, NULL};
  CHECK_OK(olg__alloc_init(&def, NULL));
  size_t whole;
  unsigned char *p = unmapped(def.alloc(def.ud, n), n); /* raw: olg__malloc prefaults itself */
  CHECK(p != NULL);
  p[n / 2] = 0x5a;
  if (supported) CHECK(resident_pages(p, n, &whole) < whole);
  olg__prefault(&def, p, 0, n);
  if (supported) CHECK_EQ(resident_pages(p, n, &whole), whole);
  CHECK_EQ(p[n / 2], 0x5a);
  def.free(def.ud, p, n);
  p = unmapped(own.alloc(own.ud, n), n);
  CHECK(p != NULL);
  olg__prefault(&own, p, 0, n);
  if (supported) CHECK(resident_pages(p, n, &whole) < whole / 2);
  own.free(own.ud, p, n);
  /* appending one element at a time maps the next 64 KiB of the room once it is reached */
  uint32_t cap = 1u << 17;
  uint64_t *arr = unmapped(def.alloc(def.ud, (size_t)cap * sizeof *arr), (size_t)cap * sizeof *arr);
  CHECK(arr != NULL);
  for (uint32_t i = 0; i < (1u << 16); i++) {
    CHECK_OK(olg__grow(&def, (void **)&arr, &cap, (size_t)i + 1, sizeof *arr));
    arr[i] = i;
    if (i == 65536 / sizeof *arr + 1 && supported) {
      CHECK_EQ(resident_pages(arr + 8192 + 512, 32768, &whole), whole);
      CHECK(resident_pages(arr + 3 * 8192, 65536, &whole) < whole);
    }
  }
  for (uint32_t i = 0; i < (1u << 16); i++) CHECK_EQ(arr[i], i);
  CHECK_EQ(cap, 1u << 17);
  def.free(def.ud, arr, (size_t)cap * sizeof *arr);
}

/* Whether the kernel may back the mapping holding p with transparent huge pages (smaps'
 * THPeligible: THP "always", or "madvise" and the range asked for them); -1: not known. */
static int thp_eligible(const void *p) {
  FILE *f = fopen("/proc/self/smaps", "r");
  if (!f) return -1;
  char line[512];
  int in = 0, r = -1;
  while (fgets(line, sizeof line, f)) {
    unsigned long lo, hi;
    if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' '))
      in = (uintptr_t)p >= lo && (uintptr_t)p < hi;
    else if (in && sscanf(line, "THPeligible: %d", &r) == 1)
      break;
  }
  fclose(f);
  return r;
}

/* A range of 4 MiB and more that olg__prefault maps in asks for huge pages first (the kernel
 * maps it 2 MiB at a time); a smaller one and a caller's allocator's memory (the same pages,
 * told apart by the allocator olg__prefault is given) do not. Checked
 * where THP is "madvise" (as on Debian): "always" makes every range eligible, "never" none. */
TEST(prefault_asks_huge_pages_for_large_ranges) {
  FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
  char mode[128] = "";
  if (f) {
    if (!fgets(mode, sizeof mode, f)) mode[0] = 0;
    fclose(f);
  }
  if (!strstr(mode, "[madvise]")) return;
  olg_allocator def, own = {sizeof(olg_allocator), own_alloc, NULL, own_free, NULL};
  CHECK_OK(olg__alloc_init(&def, NULL));
  /* fresh mappings: memory from malloc may lie in a range an earlier test marked */
  const size_t big = 8u << 20, small = 1u << 20;
  unsigned char *p = mmap(NULL, big, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
                *q = mmap(NULL, small, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
                *o = mmap(NULL, big, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(p != MAP_FAILED && q != MAP_FAILED && o != MAP_FAILED);
  /* supported: the kernel's smaps shows the advice (qemu-user ignores madvise and prints
     its own smaps; a kernel before 5.x has no THPeligible) */
  unsigned char *probe = mmap(NULL, 4u << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  CHECK(probe != MAP_FAILED);
  bool supported = thp_eligible(probe) == 0 && madvise(probe, 4u << 20, MADV_HUGEPAGE) == 0 &&
                   thp_eligible(probe) == 1;
  munmap(probe, 4u << 20);
  int before = thp_eligible(p + big / 2);
  if (supported) {
    CHECK_EQ(before, 0);
    olg__prefault(&def, p, 0, big);
    olg__prefault(&def, q, 0, small);
    olg__prefault(&own, o, 0, big);
    CHECK_EQ(thp_eligible(p + big / 2), 1);
    CHECK_EQ(thp_eligible(q + small / 2), 0);
    CHECK_EQ(thp_eligible(o + big / 2), 0);
    CHECK_EQ(p[big / 2], 0); /* mapped in, zero */
  }
  munmap(p, big);
  munmap(q, small);
  munmap(o, big);
}
#endif

/* olg__node_add_value (the lowering's olg_lower_emit_input) adds what olg_node_arg_value adds:
 * the same arguments in the same order on two nodes built side by side (the fast path while the
 * array noted last has room, the API's growth past it, a reserved array, an array noted before
 * another node's), and the same refusal of a value that does not exist or a closed node. */
TEST(node_add_value_as_api) {
  olg_model *m;
  CHECK_OK(olg_model_new(&m, NULL));
  olg_value y;
  CHECK_OK(build_small(m, &y));
  olg_graph *g = olg_model_graph(m);
  olg_value x;
  CHECK_OK(olg_graph_find_value(g, "x", &x));
  for (uint32_t reserve = 0; reserve < 4; reserve++) {
    olg_node_id a, b;
    CHECK_OK(olg_node_begin(g, "", "Concat", "", &a));
    CHECK_OK(olg_node_begin(g, "", "Concat", "", &b));
    if (reserve) {
      CHECK_OK(olg__node_reserve_args(g, a, reserve));
      CHECK_OK(olg__node_reserve_args(g, b, reserve));
    }
    for (int k = 0; k < 9; k++) { /* two in a row to a node, then to the other: each node's
                                     array is noted last in turn, and then has room or not */
      olg_value v = k % 2 ? x : y;
      CHECK_OK(olg__node_add_value(g, a, v));
      CHECK_OK(olg__node_add_value(g, a, y));
      CHECK_OK(olg_node_arg_value(g, b, v));
      CHECK_OK(olg_node_arg_value(g, b, y));
    }
    CHECK_STATUS(olg__node_add_value(g, a, 4242), OLG_ERR_INVALID_ARG);
    CHECK_STATUS(olg_node_arg_value(g, b, 4242), OLG_ERR_INVALID_ARG);
    CHECK_EQ(olg_node_input_count(g, a), 18);
    CHECK_EQ(olg_node_input_count(g, b), 18);
    for (size_t i = 0; i < 18; i++) CHECK_EQ(olg_node_input_at(g, a, i), olg_node_input_at(g, b, i));
    CHECK_OK(olg_node_end(g, a, 1, NULL, NULL));
    CHECK_OK(olg_node_end(g, b, 1, NULL, NULL));
    CHECK_STATUS(olg__node_add_value(g, a, x), OLG_ERR_STATE);
    CHECK_STATUS(olg_node_arg_value(g, b, x), OLG_ERR_STATE);
  }
  CHECK_EQ(olg__node_add_value(g, 99999, x), olg_node_arg_value(g, 99999, x));
  olg_model_free(m);
}

/* Past the output and attribute limits (they share a word of olg_node with its state) a node is
 * refused with its name, never cut short. */
TEST(node_count_limits_refused) {
  olg_model *m;
  CHECK_OK(olg_model_new(&m, NULL));
  olg_graph *g = olg_model_graph(m);
  CHECK_OK(olg_model_set_opset(m, "", 17));
  olg_node_id n;
  CHECK_OK(olg_node_begin(g, "", "Split", "wide", &n));
  CHECK_STATUS(olg_node_end(g, n, OLG_NODE_MAX_OUTPUTS + 1, NULL, NULL), OLG_ERR_LIMIT);
  CHECK(strstr(olg_last_error(), "wide") != NULL);
  CHECK_OK(olg_node_end(g, n, OLG_NODE_MAX_OUTPUTS, NULL, NULL));
  CHECK_EQ(g->nodes[n].n_outputs, OLG_NODE_MAX_OUTPUTS);
  CHECK_EQ(g->nodes[n].state, OLG_NODE_DONE);
  CHECK_OK(olg_node_begin(g, "", "Custom", "many", &n));
  olg_attr a = {.name = "k", .type = OLG_ATTR_INT, .i = 1};
  for (uint32_t i = 0; i < OLG_NODE_MAX_ATTRS; i++) CHECK_OK(olg__node_add_attr(g, n, &a));
  CHECK_STATUS(olg__node_add_attr(g, n, &a), OLG_ERR_LIMIT);
  CHECK_EQ(g->nodes[n].n_attrs, OLG_NODE_MAX_ATTRS);
  CHECK_EQ(g->nodes[n].state, OLG_NODE_OPEN);
  olg_model_free(m);
}

/* A value's output slot is where its producer's outputs name it (olg_value_rec keeps no copy). */
TEST(value_producer_slot) {
  olg_model *m;
  CHECK_OK(olg_model_new(&m, NULL));
  olg_graph *g = olg_model_graph(m);
  olg_node_id n;
  olg_value outs[3];
  CHECK_OK(olg_node_begin(g, "", "Split", "split", &n));
  CHECK_OK(olg_node_end(g, n, 3, NULL, outs));
  for (int32_t i = 0; i < 3; i++) {
    olg_node_id pn = -1;
    int32_t slot = -1;
    CHECK_OK(olg_value_producer(g, outs[i], &pn, &slot));
    CHECK_EQ(pn, n);
    CHECK_EQ(slot, i);
  }
  olg_model_free(m);
}

/* olg_value_rec.init has 24 bits: an initializer past OLG_MAX_INITS is refused, never wrapped. */
TEST(initializer_count_limit_refused) {
  olg_model *m;
  CHECK_OK(olg_model_new(&m, NULL));
  olg_graph *g = olg_model_graph(m);
  const float f = 1;
  olg_value v;
  CHECK_OK(olg_graph_add_initializer(g, "w0", OLG_FLOAT, 0, NULL, &f, 4, OLG_DATA_COPY, NULL, NULL, &v));
  CHECK_EQ(g->values[v].init, 0);
  uint32_t n = g->n_inits;
  g->n_inits = OLG_MAX_INITS; /* as if the graph held that many (the check comes before any use) */
  CHECK_STATUS(olg_graph_add_initializer(g, "w1", OLG_FLOAT, 0, NULL, &f, 4, OLG_DATA_COPY, NULL, NULL, &v), OLG_ERR_LIMIT);
  CHECK(strstr(olg_last_error(), "initializers") != NULL);
  g->n_inits = n;
  CHECK_EQ(olg_graph_initializer_count(g), 1);
  olg_model_free(m);
}

/* A lowering's target takes its source's names (olg__value_take_name): only for a value named
 * by olg__graph_add_value_auto and only for a name nobody holds; a generated name then steps
 * over a taken one that ends in its number; lookups find taken names; a rename gives one back. */
TEST(value_take_name) {
  olg_model *m;
  CHECK_OK(olg_model_new(&m, NULL));
  olg_graph *g = olg_model_graph(m);
  olg_value held, a, b, c, d;
  CHECK_OK(olg__graph_add_value(g, "held", false, &held));
  CHECK_OK(olg__graph_add_value_auto(g, "t", &a)); /* t_0 */
  CHECK_OK(olg__graph_add_value_auto(g, "u", &b)); /* u_1 */
  CHECK_STR(g->values[a].name, "t_0");
  bool took = true;
  CHECK_OK(olg__value_take_name(g, b, "held", &took)); /* a name the map holds */
  CHECK(!took);
  CHECK_OK(olg__value_take_name(g, b, "t_0", &took)); /* a generated name */
  CHECK(!took);
  CHECK_OK(olg__value_take_name(g, held, "src", &took)); /* not a generated name's value */
  CHECK(!took);
  static const char kept_name[] = "t_2"; /* the source's string: taken, not copied */
  CHECK_OK(olg__value_take_name(g, b, kept_name, &took));
  CHECK(took);
  CHECK(g->values[b].name == kept_name);
  CHECK_EQ(olg__graph_lookup(g, "t_2"), b);
  CHECK_EQ(olg__graph_lookup(g, "u_1"), -1);
  CHECK_OK(olg__graph_add_value_auto(g, "t", &c)); /* t_2 is b's: the next number */
  CHECK_STR(g->values[c].name, "t_3");
  CHECK_STATUS(olg__graph_add_value(g, "t_2", false, &d), OLG_ERR_DUPLICATE);
  CHECK_OK(olg__value_rename(g, b, "renamed"));
  CHECK_EQ(olg__graph_lookup(g, "t_2"), -1);
  CHECK_EQ(olg__graph_lookup(g, "renamed"), b);
  CHECK_OK(olg__graph_add_value(g, "t_2", false, &d));
  CHECK_EQ(olg__graph_lookup(g, "t_2"), d);
  olg_model_free(m);
}

/* A graph's name map starts at 8 slots and doubles at load 1/2: a branch of one node (an If's,
 * a Loop's body) holds 64 bytes of map, not 512, and a graph of thousands still finds every
 * name. Three such maps per subgraph (the source's, the target's, the kept names) were most of
 * the 10 KB an If cost in a conversion. */
TEST(name_map_sized_to_the_graph) {
  olg_model *m;
  CHECK_OK(olg_model_new(&m, NULL));
  olg_graph *g = olg_model_graph(m);
  olg_value v;
  CHECK_OK(olg__graph_add_value(g, "a", false, &v));
  CHECK_OK(olg__graph_add_value(g, "b", false, &v));
  CHECK_EQ(g->names.cap, 8u);
  char nm[32];
  for (int i = 0; i < 5000; i++) {
    snprintf(nm, sizeof nm, "v%d", i);
    CHECK_OK(olg__graph_add_value(g, nm, false, &v));
  }
  CHECK(g->names.cap >= 2 * g->names.n && g->names.cap <= 4 * g->names.n);
  CHECK(vm_map_consistent(g));
  for (int i = 0; i < 5000; i += 499) {
    snprintf(nm, sizeof nm, "v%d", i);
    CHECK_EQ(olg__graph_lookup(g, nm), (olg_value)(i + 2));
  }
  olg_model_free(m);
}
