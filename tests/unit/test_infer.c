/* Shape and type inference (lib/infer*.c) on graphs built through the C API. */
#include <math.h>
#include <stdarg.h>
#include <string.h>

#include "../harness.h"
#include "infer.h"
#include "infer_impl.h"
#include "ir.h"

bool olg__infer_table_sorted(void);

typedef struct tg {
  olg_model *m;
  olg_graph *g;
  int64_t opset;
  int failed;
} tg;

static void tg_init(tg *t, int64_t opset) {
  memset(t, 0, sizeof *t);
  t->opset = opset;
  if (olg_model_new(&t->m, NULL) || olg_model_set_opset(t->m, "", opset)) t->failed = 1;
  t->g = t->m ? olg_model_graph(t->m) : NULL;
}

/* An input with dims (-1: the symbolic name from params, or unknown). */
static olg_value in(tg *t, const char *name, olg_dtype dt, int32_t rank, const int64_t *dims,
                    const char *const *params) {
  olg_value v = OLG_NO_VALUE;
  if (olg_graph_add_input(t->g, name, dt, rank, dims, params, &v)) t->failed = 1;
  return v;
}

static olg_value ints(tg *t, const char *name, int32_t rank, const int64_t *dims, const int64_t *v,
                      size_t n) {
  olg_value out = OLG_NO_VALUE;
  if (olg_graph_add_initializer(t->g, name, OLG_INT64, rank, dims, v, n * sizeof *v, OLG_DATA_COPY,
                                NULL, NULL, &out))
    t->failed = 1;
  return out;
}

static olg_value floats(tg *t, const char *name, int32_t rank, const int64_t *dims, const float *v,
                        size_t n) {
  olg_value out = OLG_NO_VALUE;
  if (olg_graph_add_initializer(t->g, name, OLG_FLOAT, rank, dims, v, n * sizeof *v, OLG_DATA_COPY,
                                NULL, NULL, &out))
    t->failed = 1;
  return out;
}

/* Opens node op with inputs (OLG_NO_VALUE: omitted); attributes are added by the caller. */
static olg_node_id begin(tg *t, const char *op, int nin, ...) {
  olg_node_id n = -1;
  if (olg_node_begin(t->g, "", op, op, &n)) { t->failed = 1; return -1; }
  va_list ap;
  va_start(ap, nin);
  for (int i = 0; i < nin; i++)
    if (olg_node_arg_value(t->g, n, va_arg(ap, olg_value))) t->failed = 1;
  va_end(ap);
  return n;
}

/* Closes it with nout outputs (first in *out) and infers it. */
static olg_value end(tg *t, olg_node_id n, int nout) {
  olg_value outs[8] = {OLG_NO_VALUE};
  if (n < 0 || nout > 8 || olg_node_end(t->g, n, (size_t)nout, NULL, outs)) {
    t->failed = 1;
    return OLG_NO_VALUE;
  }
  if (olg__infer_node(t->g, n, t->opset, NULL)) t->failed = 1;
  return outs[0];
}

static olg_value op1(tg *t, const char *op, olg_value a) { return end(t, begin(t, op, 1, a), 1); }
static olg_value op2(tg *t, const char *op, olg_value a, olg_value b) {
  return end(t, begin(t, op, 2, a, b), 1);
}

static const char *tyg(const olg_graph *g, olg_value v) {
  static char buf[256];
  if (v < 0) return "(none)";
  return olg__type_text(&olg__resolve(g, v, NULL)->type, buf, sizeof buf);
}
static const char *ty(tg *t, olg_value v) { return tyg(t->g, v); }

#define CHECK_TYPE(t, v, want) CHECK_STR(ty((t), (v)), (want))
#define DONE(t)                                                                             \
  do {                                                                                      \
    CHECK(!(t).failed);                                                                     \
    olg_model_free((t).m);                                                                  \
  } while (0)

static const char *N[4] = {"N", NULL, NULL, NULL};

TEST(infer_table_is_sorted) {
  CHECK(olg__infer_table_sorted());
  CHECK(olg__infer_has_rule("", "Conv"));
  CHECK(olg__infer_has_rule("ai.onnx", "Loop"));
  CHECK(!olg__infer_has_rule("com.example", "Conv"));
}

TEST(infer_broadcasting_with_symbols) {
  tg t;
  tg_init(&t, 14);
  const char *nm[2] = {"N", "M"};
  olg_value a = in(&t, "a", OLG_FLOAT, 2, (int64_t[]){-1, 3}, N);
  olg_value b = in(&t, "b", OLG_FLOAT, 2, (int64_t[]){1, 3}, NULL);
  olg_value c = in(&t, "c", OLG_FLOAT, 2, (int64_t[]){-1, 1}, N);
  olg_value d = in(&t, "d", OLG_FLOAT, 3, (int64_t[]){2, 1, -1}, (const char *[]){NULL, NULL, "M"});
  olg_value e = in(&t, "e", OLG_FLOAT, 1, (int64_t[]){-1}, nm + 1);
  CHECK_TYPE(&t, op2(&t, "Add", a, b), "float[N,3]");
  CHECK_TYPE(&t, op2(&t, "Mul", c, d), "float[2,N,M]");
  CHECK_TYPE(&t, op2(&t, "Sub", a, c), "float[N,3]");
  CHECK_TYPE(&t, op2(&t, "Div", a, e), "float[N,3]"); /* M broadcasts against 3: it must be 3 or 1 */
  CHECK_TYPE(&t, op2(&t, "Less", a, b), "bool[N,3]");
  olg_value cond = in(&t, "cond", OLG_BOOL, 1, (int64_t[]){3}, NULL);
  CHECK_TYPE(&t, end(&t, begin(&t, "Where", 3, cond, c, b), 1), "float[N,3]");
  /* dims that cannot broadcast make the node impossible */
  olg_value f = in(&t, "f", OLG_FLOAT, 1, (int64_t[]){4}, NULL);
  olg_node_id n = begin(&t, "Add", 2, b, f);
  CHECK_OK(olg_node_end(t.g, n, 1, NULL, NULL));
  olg_diags *dg;
  CHECK_OK(olg_diags_new(&dg, NULL));
  CHECK_STATUS(olg__infer_node(t.g, n, 14, dg), OLG_ERR_INVALID_MODEL);
  CHECK_STR(olg_diag_code(dg, 0), "OLG-INFER-INVALID");
  CHECK(strstr(olg_last_error(), "Add-14 'Add'") != NULL);
  olg_diags_free(dg);
  DONE(t);
}

/* The elementwise rules' broadcast of the inputs' types read in place gives what the general
 * path gives (olg__broadcast of their olg__type_shape copies), dim for dim, on shapes of every
 * kind: known, symbolic (one name from two copies), unknown, negative, with denotations,
 * scalars, rank unknown, no shape, not a tensor; where it declines, the general path has no
 * shape or fails. */
TEST(infer_broadcast_in_place_matches_general) {
  tg t;
  tg_init(&t, 14);
  olg_value a = in(&t, "a", OLG_FLOAT, 1, (int64_t[]){2}, NULL);
  olg_node_id n = begin(&t, "Add", 2, a, a);
  CHECK_OK(olg_node_end(t.g, n, 1, NULL, NULL));
  olg_icx cx = {.g = t.g, .m = t.m, .nd = &t.g->nodes[n], .id = n, .opset = 14};
  static char n2[] = "N"; /* the name N by another copy */
  const olg_dim pool[] = {
    {0, NULL, NULL}, {1, NULL, NULL}, {2, NULL, NULL}, {3, NULL, NULL}, {1, NULL, NULL},
    {OLG_DIM_UNKNOWN, "N", NULL}, {OLG_DIM_UNKNOWN, n2, NULL}, {OLG_DIM_UNKNOWN, "M", NULL},
    {OLG_DIM_UNKNOWN, NULL, NULL}, {-7, NULL, NULL}, {2, "P", NULL}, {1, NULL, "den"},
    {OLG_DIM_UNKNOWN, "N", "den"}, {3, NULL, "den"},
  };
  const size_t n_pool = sizeof pool / sizeof *pool;
  uint64_t seed = 12345;
  int n_fast = 0, n_declined_fail = 0;
  for (int it = 0; it < 40000; it++) {
    olg_dim dims[2][5];
    olg_type ty2[2];
    for (int j = 0; j < 2; j++) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      uint32_t x = (uint32_t)(seed >> 33);
      memset(&ty2[j], 0, sizeof ty2[j]);
      ty2[j].kind = x % 23 == 0 ? OLG_TYPE_NONE : x % 19 == 0 ? OLG_TYPE_SPARSE_TENSOR : OLG_TYPE_TENSOR;
      ty2[j].has_shape = x % 17 != 0;
      ty2[j].rank = x % 29 == 0 ? OLG_RANK_UNKNOWN : (int32_t)((x >> 5) % 5);
      for (int k = 0; k < 5; k++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        /* mostly 1 and the first few: shapes that broadcast */
        uint32_t y = (uint32_t)(seed >> 33) % (2 * (uint32_t)n_pool);
        dims[j][k] = pool[y < n_pool ? y : y % 5];
      }
      ty2[j].dims = ty2[j].rank > 0 ? dims[j] : NULL;
    }
    olg_ishape fa, sa, sb, ga;
    bool fast = olg__broadcast_types(&ty2[0], &ty2[1], &fa);
    bool ha = olg__type_shape(&ty2[0], &sa), hb = olg__type_shape(&ty2[1], &sb);
    olg_status st = olg__broadcast(&cx, &sa, &sb, &ga);
    if (fast) {
      n_fast++;
      CHECK(ha && hb && st == OLG_OK && ga.rank == fa.rank);
      for (int32_t k = 0; k < fa.rank; k++)
        CHECK(ga.d[k].value == fa.d[k].value && ga.d[k].param == fa.d[k].param &&
              ga.d[k].denotation == fa.d[k].denotation);
    } else {
      CHECK(!ha || !hb || st != OLG_OK);
      n_declined_fail += ha && hb;
    }
  }
  CHECK(n_fast > 10000 && n_declined_fail > 1000); /* both sides tried, often */
  DONE(t);
}

TEST(infer_shape_computation_symbolic) {
  /* x.view(x.size(0), -1) with a symbolic batch: Shape, Gather, Unsqueeze, Concat, Reshape */
  tg t;
  tg_init(&t, 13);
  olg_value x = in(&t, "x", OLG_FLOAT, 3, (int64_t[]){-1, 3, 4}, N);
  olg_value zero = ints(&t, "zero", 0, NULL, (int64_t[]){0}, 1);
  olg_value ax0 = ints(&t, "ax0", 1, (int64_t[]){1}, (int64_t[]){0}, 1);
  olg_value m1 = ints(&t, "m1", 1, (int64_t[]){1}, (int64_t[]){-1}, 1);
  olg_value s = op1(&t, "Shape", x);
  CHECK_TYPE(&t, s, "int64[3]");
  CHECK(olg__value_sym(olg__resolve(t.g, s, NULL)) != NULL);
  olg_value b = op2(&t, "Gather", s, zero);
  CHECK_TYPE(&t, b, "int64[]");
  olg_value u = op2(&t, "Unsqueeze", b, ax0);
  CHECK_TYPE(&t, u, "int64[1]");
  olg_node_id n = begin(&t, "Concat", 2, u, m1);
  CHECK_OK(olg_node_attr_int(t.g, n, "axis", 0));
  olg_value c = end(&t, n, 1);
  CHECK_TYPE(&t, c, "int64[2]");
  const olg_value_rec *cr = olg__resolve(t.g, c, NULL);
  const olg_dim *csym = olg__value_sym(cr);
  CHECK(csym && olg__value_n_sym(cr) == 2 && csym[0].param && strcmp(csym[0].param, "N") == 0);
  CHECK_EQ(csym[1].value, -1);
  CHECK_TYPE(&t, op2(&t, "Reshape", x, c), "float[N,12]");
  /* Flatten keeps a lone symbol too */
  CHECK_TYPE(&t, op1(&t, "Flatten", x), "float[N,12]");
  /* arithmetic on shape values: N * 1 stays N; 3 + 4 computed */
  olg_value one = ints(&t, "one", 1, (int64_t[]){1}, (int64_t[]){1}, 1);
  olg_value bn = op2(&t, "Mul", u, one);
  CHECK(olg__value_sym(olg__resolve(t.g, bn, NULL)) != NULL);
  DONE(t);
}

/* ConstantOfShape whose value tensor holds no element (the spec asks one; a builder may give an
 * empty one): the output's type is inferred, its contents left unknown, nothing read past the
 * data (found by the builder fuzzer: a heap overflow under ASan; tests/fuzz/regressions/builder). */
TEST(infer_constant_of_shape_short_value) {
  tg t;
  tg_init(&t, 13);
  olg_value shp = ints(&t, "shp", 1, (int64_t[]){2}, (int64_t[]){3, 4}, 2);
  olg_node_id n = begin(&t, "ConstantOfShape", 1, shp);
  static const uint8_t one_byte[1] = {7};
  CHECK_OK(olg_node_attr_tensor(t.g, n, "value", OLG_INT64, 1, (int64_t[]){0}, one_byte, 0));
  olg_value c = end(&t, n, 1);
  CHECK_TYPE(&t, c, "int64[3,4]");
  CHECK(olg__value_known(olg__resolve(t.g, c, NULL)) == NULL);
  DONE(t);
}

TEST(infer_shape_computation_static) {
  tg t;
  tg_init(&t, 13);
  olg_value x = in(&t, "x", OLG_FLOAT, 3, (int64_t[]){2, 3, 4}, NULL);
  olg_value s = op1(&t, "Shape", x);
  const olg_value_rec *sr = olg__resolve(t.g, s, NULL);
  CHECK(olg__value_known(sr) != NULL && olg__value_known(sr)->dtype == OLG_INT64);
  /* Slice(shape, [1], [3]) -> [3, 4]; ReduceProd-less: Mul of a Gather pair */
  olg_value st = ints(&t, "st", 1, (int64_t[]){1}, (int64_t[]){1}, 1);
  olg_value en = ints(&t, "en", 1, (int64_t[]){1}, (int64_t[]){3}, 1);
  olg_value tail = end(&t, begin(&t, "Slice", 3, s, st, en), 1);
  CHECK_TYPE(&t, tail, "int64[2]");
  CHECK(olg__value_known(olg__resolve(t.g, tail, NULL)) != NULL);
  olg_value c = op1(&t, "ConstantOfShape", tail);
  CHECK_TYPE(&t, c, "float[3,4]");
  CHECK(olg__value_known(olg__resolve(t.g, c, NULL)) != NULL);
  /* Expand with a computed shape; Tile with computed repeats */
  olg_value y = in(&t, "y", OLG_FLOAT, 2, (int64_t[]){3, 1}, NULL);
  CHECK_TYPE(&t, op2(&t, "Expand", y, tail), "float[3,4]");
  olg_value rep = ints(&t, "rep", 1, (int64_t[]){2}, (int64_t[]){2, 5}, 2);
  CHECK_TYPE(&t, op2(&t, "Tile", y, rep), "float[6,5]");
  /* Cast of a shape value keeps its contents */
  olg_node_id n = begin(&t, "Cast", 1, tail);
  CHECK_OK(olg_node_attr_int(t.g, n, "to", OLG_INT32));
  olg_value ci = end(&t, n, 1);
  CHECK_TYPE(&t, ci, "int32[2]");
  CHECK(olg__value_known(olg__resolve(t.g, ci, NULL)) != NULL);
  /* Range with known bounds */
  olg_value r0 = ints(&t, "r0", 0, NULL, (int64_t[]){1}, 1), r1 = ints(&t, "r1", 0, NULL, (int64_t[]){10}, 1);
  olg_value r2 = ints(&t, "r2", 0, NULL, (int64_t[]){3}, 1);
  CHECK_TYPE(&t, end(&t, begin(&t, "Range", 3, r0, r1, r2), 1), "int64[3]");
  /* Equal / Where on small tensors */
  olg_value eq = op2(&t, "Equal", tail, en);
  CHECK_TYPE(&t, eq, "bool[2]");
  CHECK(olg__value_known(olg__resolve(t.g, eq, NULL)) != NULL);
  DONE(t);
}

TEST(infer_reshape_rules) {
  tg t;
  tg_init(&t, 14);
  olg_value x = in(&t, "x", OLG_FLOAT, 3, (int64_t[]){2, 3, 4}, NULL);
  olg_value s1 = ints(&t, "s1", 1, (int64_t[]){3}, (int64_t[]){0, -1, 2}, 3);
  CHECK_TYPE(&t, op2(&t, "Reshape", x, s1), "float[2,6,2]");
  olg_value s2 = ints(&t, "s2", 1, (int64_t[]){2}, (int64_t[]){5, -1}, 2);
  olg_node_id n = begin(&t, "Reshape", 2, x, s2);
  CHECK_OK(olg_node_end(t.g, n, 1, NULL, NULL));
  CHECK_STATUS(olg__infer_node(t.g, n, 14, NULL), OLG_ERR_INVALID_MODEL); /* 24 / 5 */
  olg_value e = in(&t, "e", OLG_FLOAT, 2, (int64_t[]){0, 3}, NULL);
  olg_value s3 = ints(&t, "s3", 1, (int64_t[]){2}, (int64_t[]){3, 0}, 2);
  n = begin(&t, "Reshape", 2, e, s3);
  CHECK_OK(olg_node_attr_int(t.g, n, "allowzero", 1));
  CHECK_TYPE(&t, end(&t, n, 1), "float[3,0]");
  DONE(t);
}

TEST(infer_conv_and_pooling) {
  tg t;
  tg_init(&t, 19);
  olg_value x = in(&t, "x", OLG_FLOAT, 4, (int64_t[]){-1, 3, 32, 32}, N);
  olg_value w = in(&t, "w", OLG_FLOAT, 4, (int64_t[]){16, 3, 3, 3}, NULL);
  olg_node_id n = begin(&t, "Conv", 2, x, w);
  CHECK_OK(olg_node_attr_ints(t.g, n, "pads", (int64_t[]){1, 1, 1, 1}, 4));
  CHECK_OK(olg_node_attr_ints(t.g, n, "strides", (int64_t[]){2, 2}, 2));
  CHECK_TYPE(&t, end(&t, n, 1), "float[N,16,16,16]");
  n = begin(&t, "Conv", 2, x, w);
  CHECK_OK(olg_node_attr_ints(t.g, n, "dilations", (int64_t[]){2, 2}, 2));
  CHECK_TYPE(&t, end(&t, n, 1), "float[N,16,28,28]");
  n = begin(&t, "Conv", 2, x, w);
  CHECK_OK(olg_node_attr_string(t.g, n, "auto_pad", "SAME_UPPER"));
  CHECK_OK(olg_node_attr_ints(t.g, n, "strides", (int64_t[]){3, 3}, 2));
  CHECK_TYPE(&t, end(&t, n, 1), "float[N,16,11,11]");
  /* the channels must fit the weight */
  olg_value w2 = in(&t, "w2", OLG_FLOAT, 4, (int64_t[]){16, 4, 3, 3}, NULL);
  n = begin(&t, "Conv", 2, x, w2);
  CHECK_OK(olg_node_end(t.g, n, 1, NULL, NULL));
  CHECK_STATUS(olg__infer_node(t.g, n, 19, NULL), OLG_ERR_INVALID_MODEL);
  /* a kernel size <= 0 makes the node impossible (not an unknown dim) */
  n = begin(&t, "MaxPool", 1, x);
  CHECK_OK(olg_node_attr_ints(t.g, n, "kernel_shape", (int64_t[]){-2, 2}, 2));
  CHECK_OK(olg_node_end(t.g, n, 1, NULL, NULL));
  CHECK_STATUS(olg__infer_node(t.g, n, 19, NULL), OLG_ERR_INVALID_MODEL);
  CHECK(strstr(olg_last_error(), "kernel_shape[0] is -2") != NULL);
  /* pooling: floor and ceil modes; a window starting in the end padding is dropped */
  olg_value p = in(&t, "p", OLG_FLOAT, 4, (int64_t[]){1, 1, 6, 6}, NULL);
  n = begin(&t, "MaxPool", 1, p);
  CHECK_OK(olg_node_attr_ints(t.g, n, "kernel_shape", (int64_t[]){3, 3}, 2));
  CHECK_OK(olg_node_attr_ints(t.g, n, "strides", (int64_t[]){2, 2}, 2));
  CHECK_TYPE(&t, end(&t, n, 2), "float[1,1,2,2]");
  n = begin(&t, "MaxPool", 1, p);
  CHECK_OK(olg_node_attr_ints(t.g, n, "kernel_shape", (int64_t[]){3, 3}, 2));
  CHECK_OK(olg_node_attr_ints(t.g, n, "strides", (int64_t[]){2, 2}, 2));
  CHECK_OK(olg_node_attr_int(t.g, n, "ceil_mode", 1));
  olg_value mp = end(&t, n, 2);
  CHECK_TYPE(&t, mp, "float[1,1,3,3]");
  CHECK_TYPE(&t, t.g->nodes[n].outputs[1], "int64[1,1,3,3]");
  n = begin(&t, "AveragePool", 1, p);
  CHECK_OK(olg_node_attr_ints(t.g, n, "kernel_shape", (int64_t[]){2, 2}, 2));
  CHECK_OK(olg_node_attr_ints(t.g, n, "strides", (int64_t[]){2, 2}, 2));
  CHECK_OK(olg_node_attr_ints(t.g, n, "pads", (int64_t[]){1, 1, 1, 1}, 4));
  CHECK_OK(olg_node_attr_int(t.g, n, "ceil_mode", 1));
  CHECK_TYPE(&t, end(&t, n, 1), "float[1,1,4,4]");
  CHECK_TYPE(&t, op1(&t, "GlobalAveragePool", x), "float[N,3,1,1]");
  /* ConvTranspose */
  olg_value ct = in(&t, "ct", OLG_FLOAT, 4, (int64_t[]){1, 16, 3, 3}, NULL);
  olg_value wt = in(&t, "wt", OLG_FLOAT, 4, (int64_t[]){16, 8, 3, 3}, NULL);
  n = begin(&t, "ConvTranspose", 2, ct, wt);
  CHECK_OK(olg_node_attr_ints(t.g, n, "strides", (int64_t[]){2, 2}, 2));
  CHECK_OK(olg_node_attr_ints(t.g, n, "output_padding", (int64_t[]){1, 1}, 2));
  CHECK_TYPE(&t, end(&t, n, 1), "float[1,8,8,8]");
  /* normalizations */
  olg_value sc = in(&t, "sc", OLG_FLOAT, 1, (int64_t[]){3}, NULL);
  CHECK_TYPE(&t, end(&t, begin(&t, "BatchNormalization", 5, x, sc, sc, sc, sc), 1), "float[N,3,32,32]");
  n = begin(&t, "LayerNormalization", 2, x, sc);
  olg_value ln = end(&t, n, 3);
  CHECK_TYPE(&t, ln, "float[N,3,32,32]");
  CHECK_TYPE(&t, t.g->nodes[n].outputs[1], "float[N,3,32,1]");
  DONE(t);
}

TEST(infer_matmul_gemm_einsum) {
  tg t;
  tg_init(&t, 14);
  olg_value a = in(&t, "a", OLG_FLOAT, 3, (int64_t[]){-1, 4, 5}, N);
  olg_value b = in(&t, "b", OLG_FLOAT, 2, (int64_t[]){5, 6}, NULL);
  olg_value v = in(&t, "v", OLG_FLOAT, 1, (int64_t[]){5}, NULL);
  CHECK_TYPE(&t, op2(&t, "MatMul", a, b), "float[N,4,6]");
  CHECK_TYPE(&t, op2(&t, "MatMul", v, b), "float[6]");
  CHECK_TYPE(&t, op2(&t, "MatMul", a, v), "float[N,4]");
  olg_value m2 = in(&t, "m2", OLG_FLOAT, 2, (int64_t[]){5, 4}, NULL);
  olg_node_id n = begin(&t, "Gemm", 2, m2, b);
  CHECK_OK(olg_node_attr_int(t.g, n, "transA", 1));
  CHECK_TYPE(&t, end(&t, n, 1), "float[4,6]");
  olg_value q = in(&t, "q", OLG_FLOAT, 3, (int64_t[]){2, 3, 4}, NULL);
  olg_value k = in(&t, "k", OLG_FLOAT, 3, (int64_t[]){2, 4, 7}, NULL);
  n = begin(&t, "Einsum", 2, q, k);
  CHECK_OK(olg_node_attr_string(t.g, n, "equation", "bij,bjk->bik"));
  CHECK_TYPE(&t, end(&t, n, 1), "float[2,3,7]");
  n = begin(&t, "Einsum", 1, q);
  CHECK_OK(olg_node_attr_string(t.g, n, "equation", "...ij->...ji"));
  CHECK_TYPE(&t, end(&t, n, 1), "float[2,4,3]");
  DONE(t);
}

TEST(infer_axes_attribute_and_input_forms) {
  /* opset 11: axes are attributes */
  tg t;
  tg_init(&t, 11);
  olg_value x = in(&t, "x", OLG_FLOAT, 3, (int64_t[]){1, 3, 1}, NULL);
  olg_node_id n = begin(&t, "Squeeze", 1, x);
  CHECK_OK(olg_node_attr_ints(t.g, n, "axes", (int64_t[]){-1}, 1));
  CHECK_TYPE(&t, end(&t, n, 1), "float[1,3]");
  CHECK_TYPE(&t, op1(&t, "Squeeze", x), "float[3]");
  n = begin(&t, "Unsqueeze", 1, x);
  CHECK_OK(olg_node_attr_ints(t.g, n, "axes", (int64_t[]){0, 4}, 2));
  CHECK_TYPE(&t, end(&t, n, 1), "float[1,1,3,1,1]");
  n = begin(&t, "ReduceMean", 1, x);
  CHECK_OK(olg_node_attr_ints(t.g, n, "axes", (int64_t[]){1}, 1));
  CHECK_OK(olg_node_attr_int(t.g, n, "keepdims", 0));
  CHECK_TYPE(&t, end(&t, n, 1), "float[1,1]");
  olg_value y = in(&t, "y", OLG_FLOAT, 1, (int64_t[]){6}, NULL);
  n = begin(&t, "Split", 1, y);
  CHECK_OK(olg_node_attr_ints(t.g, n, "split", (int64_t[]){2, 4}, 2));
  olg_value s0 = end(&t, n, 2);
  CHECK_TYPE(&t, s0, "float[2]");
  CHECK_TYPE(&t, t.g->nodes[n].outputs[1], "float[4]");
  /* a squeezed dim that is not 1 is impossible */
  n = begin(&t, "Squeeze", 1, x);
  CHECK_OK(olg_node_attr_ints(t.g, n, "axes", (int64_t[]){1}, 1));
  CHECK_OK(olg_node_end(t.g, n, 1, NULL, NULL));
  CHECK_STATUS(olg__infer_node(t.g, n, 11, NULL), OLG_ERR_INVALID_MODEL);
  DONE(t);

  /* opset 13 (18 for ReduceMean): inputs */
  tg_init(&t, 18);
  x = in(&t, "x", OLG_FLOAT, 3, (int64_t[]){1, 3, 1}, NULL);
  olg_value ax = ints(&t, "ax", 1, (int64_t[]){1}, (int64_t[]){2}, 1);
  CHECK_TYPE(&t, op2(&t, "Squeeze", x, ax), "float[1,3]");
  CHECK_TYPE(&t, op2(&t, "Unsqueeze", x, ax), "float[1,3,1,1]");
  n = begin(&t, "ReduceSum", 2, x, ax);
  CHECK_OK(olg_node_attr_int(t.g, n, "keepdims", 1));
  CHECK_TYPE(&t, end(&t, n, 1), "float[1,3,1]");
  olg_value empty = ints(&t, "empty", 1, (int64_t[]){0}, NULL, 0);
  n = begin(&t, "ReduceMax", 2, x, empty);
  CHECK_OK(olg_node_attr_int(t.g, n, "noop_with_empty_axes", 1));
  CHECK_TYPE(&t, end(&t, n, 1), "float[1,3,1]");
  CHECK_TYPE(&t, op1(&t, "ReduceMin", x), "float[1,1,1]");
  olg_value axu = in(&t, "axu", OLG_INT64, 1, (int64_t[]){1}, NULL); /* unknown contents */
  n = begin(&t, "ReduceMean", 2, x, axu);
  CHECK_OK(olg_node_attr_int(t.g, n, "keepdims", 0));
  CHECK_TYPE(&t, end(&t, n, 1), "float[?,?]");
  y = in(&t, "y", OLG_FLOAT, 1, (int64_t[]){7}, NULL);
  n = begin(&t, "Split", 1, y);
  CHECK_OK(olg_node_attr_int(t.g, n, "num_outputs", 3));
  end(&t, n, 3);
  CHECK_TYPE(&t, t.g->nodes[n].outputs[2], "float[1]");
  olg_value sp = ints(&t, "sp", 1, (int64_t[]){2}, (int64_t[]){3, 4}, 2);
  n = begin(&t, "Split", 2, y, sp);
  end(&t, n, 2);
  CHECK_TYPE(&t, t.g->nodes[n].outputs[1], "float[4]");
  DONE(t);
}

TEST(infer_slice_pad_resize) {
  tg t;
  tg_init(&t, 19);
  olg_value x = in(&t, "x", OLG_FLOAT, 2, (int64_t[]){10, -1}, (const char *[]){NULL, "W"});
  olg_value st = ints(&t, "st", 1, (int64_t[]){1}, (int64_t[]){-1}, 1);
  olg_value en = ints(&t, "en", 1, (int64_t[]){1}, (int64_t[]){INT64_MIN}, 1);
  olg_value ax = ints(&t, "ax", 1, (int64_t[]){1}, (int64_t[]){0}, 1);
  olg_value sp = ints(&t, "sp", 1, (int64_t[]){1}, (int64_t[]){-3}, 1);
  CHECK_TYPE(&t, end(&t, begin(&t, "Slice", 5, x, st, en, ax, sp), 1), "float[4,W]");
  olg_value st2 = ints(&t, "st2", 1, (int64_t[]){1}, (int64_t[]){2}, 1);
  olg_value en2 = ints(&t, "en2", 1, (int64_t[]){1}, (int64_t[]){-2}, 1);
  CHECK_TYPE(&t, end(&t, begin(&t, "Slice", 4, x, st2, en2, ax), 1), "float[6,W]");
  olg_value pads = ints(&t, "pads", 1, (int64_t[]){4}, (int64_t[]){1, 0, 2, 0}, 4);
  CHECK_TYPE(&t, op2(&t, "Pad", x, pads), "float[13,W]");
  olg_value img = in(&t, "img", OLG_FLOAT, 4, (int64_t[]){1, 3, 4, 6}, NULL);
  olg_value sc = floats(&t, "sc", 1, (int64_t[]){4}, (float[]){1, 1, 2, 1.5f}, 4);
  CHECK_TYPE(&t, end(&t, begin(&t, "Resize", 3, img, OLG_NO_VALUE, sc), 1), "float[1,3,8,9]");
  olg_value sz = ints(&t, "sz", 1, (int64_t[]){4}, (int64_t[]){1, 3, 5, 5}, 4);
  CHECK_TYPE(&t, end(&t, begin(&t, "Resize", 4, img, OLG_NO_VALUE, OLG_NO_VALUE, sz), 1), "float[1,3,5,5]");
  olg_node_id n = begin(&t, "Resize", 4, img, OLG_NO_VALUE, OLG_NO_VALUE, sz);
  CHECK_OK(olg_node_attr_string(t.g, n, "keep_aspect_ratio_policy", "not_larger"));
  CHECK_TYPE(&t, end(&t, n, 1), "float[1,3,3,5]");
  DONE(t);
}

TEST(infer_misc_ops) {
  tg t;
  tg_init(&t, 17);
  olg_value x = in(&t, "x", OLG_FLOAT, 2, (int64_t[]){3, 4}, NULL);
  olg_value k = ints(&t, "k", 1, (int64_t[]){1}, (int64_t[]){2}, 1);
  olg_node_id n = begin(&t, "TopK", 2, x, k);
  CHECK_TYPE(&t, end(&t, n, 2), "float[3,2]");
  CHECK_TYPE(&t, t.g->nodes[n].outputs[1], "int64[3,2]");
  n = begin(&t, "ArgMax", 1, x);
  CHECK_OK(olg_node_attr_int(t.g, n, "axis", 1));
  CHECK_TYPE(&t, end(&t, n, 1), "int64[3,1]");
  n = begin(&t, "Transpose", 1, x);
  CHECK_TYPE(&t, end(&t, n, 1), "float[4,3]");
  olg_value ids = in(&t, "ids", OLG_INT64, 2, (int64_t[]){-1, 7}, N);
  olg_value emb = in(&t, "emb", OLG_FLOAT, 2, (int64_t[]){100, 16}, NULL);
  CHECK_TYPE(&t, op2(&t, "Gather", emb, ids), "float[N,7,16]");
  olg_value depth = ints(&t, "depth", 0, NULL, (int64_t[]){10}, 1);
  olg_value vals = floats(&t, "vals", 1, (int64_t[]){2}, (float[]){0, 1}, 2);
  CHECK_TYPE(&t, end(&t, begin(&t, "OneHot", 3, ids, depth, vals), 1), "float[N,7,10]");
  n = begin(&t, "Cast", 1, ids);
  CHECK_OK(olg_node_attr_int(t.g, n, "to", OLG_FLOAT16));
  CHECK_TYPE(&t, end(&t, n, 1), "float16[N,7]");
  CHECK_TYPE(&t, op1(&t, "NonZero", x), "int64[2,?]");
  olg_value d2s = in(&t, "d2s", OLG_FLOAT, 4, (int64_t[]){1, 8, 2, 3}, NULL);
  n = begin(&t, "DepthToSpace", 1, d2s);
  CHECK_OK(olg_node_attr_int(t.g, n, "blocksize", 2));
  CHECK_TYPE(&t, end(&t, n, 1), "float[1,2,4,6]");
  /* recurrent: LSTM with hidden_size 5, bidirectional */
  olg_value seq = in(&t, "seq", OLG_FLOAT, 3, (int64_t[]){7, -1, 4}, (const char *[]){NULL, "B", NULL});
  olg_value W = in(&t, "W", OLG_FLOAT, 3, (int64_t[]){2, 20, 4}, NULL);
  olg_value R = in(&t, "R", OLG_FLOAT, 3, (int64_t[]){2, 20, 5}, NULL);
  n = begin(&t, "LSTM", 3, seq, W, R);
  CHECK_OK(olg_node_attr_int(t.g, n, "hidden_size", 5));
  CHECK_OK(olg_node_attr_string(t.g, n, "direction", "bidirectional"));
  CHECK_TYPE(&t, end(&t, n, 3), "float[7,2,B,5]");
  CHECK_TYPE(&t, t.g->nodes[n].outputs[2], "float[2,B,5]");
  /* Constant (value_ints) is known */
  n = begin(&t, "Constant", 0);
  CHECK_OK(olg_node_attr_ints(t.g, n, "value_ints", (int64_t[]){4, 5}, 2));
  olg_value cst = end(&t, n, 1);
  CHECK_TYPE(&t, cst, "int64[2]");
  CHECK(olg__value_known(olg__resolve(t.g, cst, NULL)) != NULL);
  DONE(t);

  tg_init(&t, 23);
  olg_value q = in(&t, "q", OLG_FLOAT, 4, (int64_t[]){2, 8, 5, 16}, NULL);
  olg_value kk = in(&t, "kk", OLG_FLOAT, 4, (int64_t[]){2, 2, 9, 16}, NULL);
  olg_value vv = in(&t, "vv", OLG_FLOAT, 4, (int64_t[]){2, 2, 9, 32}, NULL);
  CHECK_TYPE(&t, end(&t, begin(&t, "Attention", 3, q, kk, vv), 1), "float[2,8,5,32]");
  DONE(t);
}

TEST(infer_sequences_and_control_flow) {
  tg t;
  tg_init(&t, 16);
  olg_value a = in(&t, "a", OLG_FLOAT, 1, (int64_t[]){3}, NULL);
  olg_value b = in(&t, "b", OLG_FLOAT, 1, (int64_t[]){4}, NULL);
  olg_value s = op2(&t, "SequenceConstruct", a, b);
  CHECK_TYPE(&t, s, "seq(float[?])");
  olg_value zero = ints(&t, "zero", 0, NULL, (int64_t[]){0}, 1);
  CHECK_TYPE(&t, op2(&t, "SequenceAt", s, zero), "float[?]");
  CHECK_TYPE(&t, op1(&t, "SequenceLength", s), "int64[]");

  /* Loop: 5 iterations (no condition), a scan output of the body's [2] value */
  olg_graph *body;
  CHECK_OK(olg_model_new_subgraph(t.m, &body));
  CHECK_OK(olg_graph_set_name(body, "body"));
  olg_value i, c, acc, cap, nxt, co, scan;
  CHECK_OK(olg_graph_add_input(body, "i", OLG_UNDEFINED, OLG_RANK_UNKNOWN, NULL, NULL, &i));
  CHECK_OK(olg_graph_add_input(body, "cin", OLG_UNDEFINED, OLG_RANK_UNKNOWN, NULL, NULL, &c));
  CHECK_OK(olg_graph_add_input(body, "acc", OLG_UNDEFINED, OLG_RANK_UNKNOWN, NULL, NULL, &acc));
  CHECK_OK(olg_graph_add_value(body, "a", &cap)); /* the outer "a" */
  olg_node_id n;
  CHECK_OK(olg_node_begin(body, "", "Add", "add", &n));
  CHECK_OK(olg_node_arg_value(body, n, acc));
  CHECK_OK(olg_node_arg_value(body, n, cap));
  CHECK_OK(olg_node_end(body, n, 1, (const char *[]){"nxt"}, &nxt));
  CHECK_OK(olg_node_begin(body, "", "Identity", "cid", &n));
  CHECK_OK(olg_node_arg_value(body, n, c));
  CHECK_OK(olg_node_end(body, n, 1, (const char *[]){"co"}, &co));
  CHECK_OK(olg_node_begin(body, "", "Identity", "sc", &n));
  CHECK_OK(olg_node_arg_value(body, n, nxt));
  CHECK_OK(olg_node_end(body, n, 1, (const char *[]){"scan"}, &scan));
  CHECK_OK(olg_graph_add_output(body, co));
  CHECK_OK(olg_graph_add_output(body, nxt));
  CHECK_OK(olg_graph_add_output(body, scan));
  olg_value M = ints(&t, "M", 0, NULL, (int64_t[]){5}, 1);
  n = begin(&t, "Loop", 3, M, OLG_NO_VALUE, a);
  CHECK_OK(olg_node_attr_graph(t.g, n, "body", body));
  olg_value fin = end(&t, n, 2);
  CHECK_TYPE(&t, fin, "float[3]");
  CHECK_TYPE(&t, t.g->nodes[n].outputs[1], "float[5,3]");
  CHECK_STR(tyg(body, i), "int64[]");
  CHECK_STR(tyg(body, nxt), "float[3]");
  DONE(t);
}

TEST(infer_declared_types_checked) {
  tg t;
  tg_init(&t, 14);
  olg_value x = in(&t, "x", OLG_FLOAT, 2, (int64_t[]){2, 3}, NULL);
  olg_node_id n = begin(&t, "Relu", 1, x);
  olg_value y;
  CHECK_OK(olg_node_end(t.g, n, 1, NULL, &y));
  CHECK_OK(olg_value_set_type(t.g, y, OLG_FLOAT, 2, (int64_t[]){-1, 3}, (const char *[]){"B", NULL}));
  olg_diags *d;
  CHECK_OK(olg_diags_new(&d, NULL));
  CHECK_OK(olg__infer_node(t.g, n, 14, d));
  CHECK_EQ(olg_diags_count(d), 0);
  CHECK_TYPE(&t, y, "float[2,3]"); /* the declared symbol is refined by the inferred number */
  CHECK_OK(olg_value_set_type(t.g, y, OLG_INT64, 2, (int64_t[]){2, 3}, NULL));
  CHECK_OK(olg__infer_node(t.g, n, 14, d));
  CHECK_EQ(olg_diags_count(d), 1);
  CHECK_STR(olg_diag_code(d, 0), "OLG-INFER-MISMATCH");
  CHECK_STR(olg_diag_message(d, 0), "output 'Relu_0': inferred float[2,3], but it is declared int64[2,3]");
  CHECK_TYPE(&t, y, "float[2,3]");
  olg_diags_free(d);
  DONE(t);
}

/* Fault injection through the whole-graph driver with a subgraph and propagation. */
static olg_status scenario_infer(void *ud, const olg_allocator *a) {
  (void)ud;
  olg_model_options mo = OLG_MODEL_OPTIONS_INIT;
  mo.allocator = a;
  olg_model *m;
  olg_status s = olg_model_new(&m, &mo);
  if (s) return s;
  olg_graph *g = olg_model_graph(m), *th, *el;
  olg_value x, sh, r, c, o;
  olg_node_id n;
  const int64_t dims[2] = {-1, 4};
  if ((s = olg_model_set_opset(m, "", 16)) ||
      (s = olg_graph_add_input(g, "x", OLG_FLOAT, 2, dims, (const char *[]){"N", NULL}, &x)) ||
      (s = olg_graph_add_input(g, "c", OLG_BOOL, 0, NULL, NULL, &c)) ||
      (s = olg_node_begin(g, "", "Shape", "s", &n)) || (s = olg_node_arg_value(g, n, x)) ||
      (s = olg_node_end(g, n, 1, NULL, &sh)) || (s = olg_node_begin(g, "", "Reshape", "r", &n)) ||
      (s = olg_node_arg_value(g, n, x)) || (s = olg_node_arg_value(g, n, sh)) ||
      (s = olg_node_end(g, n, 1, (const char *[]){"r"}, &r)) || (s = olg_model_new_subgraph(m, &th)) ||
      (s = olg_model_new_subgraph(m, &el)))
    goto out;
  olg_graph *br[2] = {th, el};
  for (int k = 0; k < 2; k++) {
    olg_value cap, bo;
    olg_node_id bn;
    if ((s = olg_graph_add_value(br[k], "r", &cap)) || (s = olg_node_begin(br[k], "", k ? "Neg" : "Relu", NULL, &bn)) ||
        (s = olg_node_arg_value(br[k], bn, cap)) || (s = olg_node_end(br[k], bn, 1, NULL, &bo)) ||
        (s = olg_graph_add_output(br[k], bo)))
      goto out;
  }
  if ((s = olg_node_begin(g, "", "If", "if", &n)) || (s = olg_node_arg_value(g, n, c)) ||
      (s = olg_node_attr_graph(g, n, "then_branch", th)) || (s = olg_node_attr_graph(g, n, "else_branch", el)) ||
      (s = olg_node_end(g, n, 1, NULL, &o)))
    goto out;
  if ((s = olg_infer_shapes(m, NULL, NULL))) goto out;
  if (olg_value_rank(g, o) != 2 || olg_value_dtype(g, o) != OLG_FLOAT) s = OLG_ERR_STATE;
out:
  olg_model_free(m);
  return s;
}

TEST(infer_fail_each_allocation) {
  CHECK_FAIL_EACH_ALLOCATION(scenario_infer, NULL);
}

/* Fault injection through Loop (its body is inferred, saved and restored). */
static olg_status scenario_loop(void *ud, const olg_allocator *a) {
  (void)ud;
  olg_model_options mo = OLG_MODEL_OPTIONS_INIT;
  mo.allocator = a;
  olg_model *m;
  olg_status s = olg_model_new(&m, &mo);
  if (s) return s;
  olg_graph *g = olg_model_graph(m), *body;
  olg_value x, M, i, c, acc, nxt, co, outs[2];
  olg_node_id n;
  const int64_t five = 5;
  if ((s = olg_model_set_opset(m, "", 16)) ||
      (s = olg_graph_add_input(g, "x", OLG_FLOAT, 1, (const int64_t[]){3}, NULL, &x)) ||
      (s = olg_graph_add_initializer(g, "M", OLG_INT64, 0, NULL, &five, sizeof five, OLG_DATA_COPY, NULL, NULL, &M)) ||
      (s = olg_model_new_subgraph(m, &body)) ||
      (s = olg_graph_add_input(body, "i", OLG_UNDEFINED, OLG_RANK_UNKNOWN, NULL, NULL, &i)) ||
      (s = olg_graph_add_input(body, "c", OLG_UNDEFINED, OLG_RANK_UNKNOWN, NULL, NULL, &c)) ||
      (s = olg_graph_add_input(body, "acc", OLG_UNDEFINED, OLG_RANK_UNKNOWN, NULL, NULL, &acc)) ||
      /* the carried value grows: [3] -> [6] -> ..., so the body is inferred again, more general */
      (s = olg_node_begin(body, "", "Concat", "cat", &n)) || (s = olg_node_arg_value(body, n, acc)) ||
      (s = olg_node_arg_value(body, n, acc)) || (s = olg_node_attr_int(body, n, "axis", 0)) ||
      (s = olg_node_end(body, n, 1, (const char *[]){"nxt"}, &nxt)) ||
      (s = olg_node_begin(body, "", "Identity", "id", &n)) || (s = olg_node_arg_value(body, n, c)) ||
      (s = olg_node_end(body, n, 1, (const char *[]){"co"}, &co)) || (s = olg_graph_add_output(body, co)) ||
      (s = olg_graph_add_output(body, nxt)) || (s = olg_node_begin(g, "", "Loop", "loop", &n)) ||
      (s = olg_node_arg_value(g, n, M)) || (s = olg_node_arg_none(g, n)) || (s = olg_node_arg_value(g, n, x)) ||
      (s = olg_node_attr_graph(g, n, "body", body)) || (s = olg_node_end(g, n, 1, NULL, outs)))
    goto out;
  if ((s = olg_infer_shapes(m, NULL, NULL))) goto out;
  /* the loop-carried result: rank 1, length unknown (it changes every iteration) */
  int64_t d = 0;
  if (olg_value_rank(g, outs[0]) != 1 || olg_value_dim(g, outs[0], 0, &d, NULL) || d != OLG_DIM_UNKNOWN)
    s = OLG_ERR_STATE;
out:
  olg_model_free(m);
  return s;
}

TEST(infer_loop_generalizes_and_fails_each_allocation) {
  CHECK_OK(scenario_loop(NULL, NULL));
  CHECK_FAIL_EACH_ALLOCATION(scenario_loop, NULL);
}

/* Hostile attributes and dims near INT64_MAX: every dim computation is checked (the dim becomes
 * unknown or the node is refused); under UBSan any signed overflow here aborts the test. */
TEST(infer_overflow_guards) {
  const int64_t BIG = INT64_MAX, HALF = INT64_MAX / 2;
  tg t;
  tg_init(&t, 19);
  olg_value x = in(&t, "x", OLG_FLOAT, 4, (int64_t[]){1, 3, 8, 8}, NULL);
  olg_value w = in(&t, "w", OLG_FLOAT, 4, (int64_t[]){4, 3, 3, 3}, NULL);
  /* dilation x (kernel - 1) overflows */
  olg_node_id n = begin(&t, "Conv", 2, x, w);
  CHECK_OK(olg_node_attr_ints(t.g, n, "dilations", (int64_t[]){BIG, 1}, 2));
  CHECK_TYPE(&t, end(&t, n, 1), "float[1,4,?,6]");
  /* pads begin + end overflow */
  n = begin(&t, "MaxPool", 1, x);
  CHECK_OK(olg_node_attr_ints(t.g, n, "kernel_shape", (int64_t[]){2, 2}, 2));
  CHECK_OK(olg_node_attr_ints(t.g, n, "pads", (int64_t[]){BIG, 0, BIG, 0}, 4));
  CHECK_OK(olg_node_attr_int(t.g, n, "ceil_mode", 1));
  CHECK_TYPE(&t, end(&t, n, 2), "float[1,3,?,7]");
  /* SAME padding: input + stride - 1 overflows */
  n = begin(&t, "AveragePool", 1, x);
  CHECK_OK(olg_node_attr_ints(t.g, n, "kernel_shape", (int64_t[]){2, 2}, 2));
  CHECK_OK(olg_node_attr_ints(t.g, n, "strides", (int64_t[]){BIG, 2}, 2));
  CHECK_OK(olg_node_attr_string(t.g, n, "auto_pad", "SAME_UPPER"));
  CHECK_TYPE(&t, end(&t, n, 1), "float[1,3,?,4]");
  /* ConvTranspose: input x stride (SAME) and stride x (input - 1) overflow */
  olg_value wt = in(&t, "wt", OLG_FLOAT, 4, (int64_t[]){3, 2, 3, 3}, NULL);
  n = begin(&t, "ConvTranspose", 2, x, wt);
  CHECK_OK(olg_node_attr_ints(t.g, n, "strides", (int64_t[]){HALF, 1}, 2));
  CHECK_OK(olg_node_attr_string(t.g, n, "auto_pad", "SAME_UPPER"));
  CHECK_TYPE(&t, end(&t, n, 1), "float[1,2,?,8]");
  n = begin(&t, "ConvTranspose", 2, x, wt);
  CHECK_OK(olg_node_attr_ints(t.g, n, "strides", (int64_t[]){HALF, 1}, 2));
  CHECK_TYPE(&t, end(&t, n, 1), "float[1,2,?,10]");
  /* group x weight channels overflows: refused, not wrapped */
  olg_value wg = in(&t, "wg", OLG_FLOAT, 4, (int64_t[]){4, HALF, 3, 3}, NULL);
  n = begin(&t, "Conv", 2, x, wg);
  CHECK_OK(olg_node_attr_int(t.g, n, "group", 4));
  CHECK_OK(olg_node_end(t.g, n, 1, NULL, NULL));
  CHECK_STATUS(olg__infer_node(t.g, n, 19, NULL), OLG_ERR_INVALID_MODEL);
  /* Concat: the sum of the axis overflows */
  olg_value big = in(&t, "big", OLG_FLOAT, 2, (int64_t[]){BIG, 2}, NULL);
  n = begin(&t, "Concat", 2, big, big);
  CHECK_OK(olg_node_attr_int(t.g, n, "axis", 0));
  CHECK_TYPE(&t, end(&t, n, 1), "float[?,2]");
  /* Pad: pads near INT64_MAX */
  olg_value pads = ints(&t, "pads", 1, (int64_t[]){4}, (int64_t[]){BIG, 0, 1, 0}, 4);
  CHECK_TYPE(&t, op2(&t, "Pad", big, pads), "float[?,2]");
  olg_value pads2 = ints(&t, "pads2", 1, (int64_t[]){4}, (int64_t[]){0, BIG, 0, BIG}, 4);
  CHECK_TYPE(&t, op2(&t, "Pad", big, pads2), "float[9223372036854775807,?]");
  /* Split into equal parts of a huge axis */
  n = begin(&t, "Split", 1, big);
  CHECK_OK(olg_node_attr_int(t.g, n, "num_outputs", 2));
  CHECK_TYPE(&t, end(&t, n, 2), "float[4611686018427387904,2]");
  CHECK_TYPE(&t, t.g->nodes[n].outputs[1], "float[4611686018427387903,2]");
  /* Split sizes whose sum overflows: refused */
  olg_value sp = ints(&t, "sp", 1, (int64_t[]){2}, (int64_t[]){BIG, 1}, 2);
  n = begin(&t, "Split", 2, big, sp);
  CHECK_OK(olg_node_end(t.g, n, 2, NULL, NULL));
  CHECK_STATUS(olg__infer_node(t.g, n, 19, NULL), OLG_ERR_INVALID_MODEL);
  /* Slice: steps INT64_MAX and INT64_MIN */
  olg_value v = in(&t, "v", OLG_FLOAT, 1, (int64_t[]){10}, NULL);
  olg_value s0 = ints(&t, "s0", 1, (int64_t[]){1}, (int64_t[]){2}, 1);
  olg_value e0 = ints(&t, "e0", 1, (int64_t[]){1}, (int64_t[]){BIG}, 1);
  olg_value ax = ints(&t, "ax", 1, (int64_t[]){1}, (int64_t[]){0}, 1);
  olg_value st = ints(&t, "st", 1, (int64_t[]){1}, (int64_t[]){BIG}, 1);
  CHECK_TYPE(&t, end(&t, begin(&t, "Slice", 5, v, s0, e0, ax, st), 1), "float[1]");
  olg_value s1 = ints(&t, "s1", 1, (int64_t[]){1}, (int64_t[]){-1}, 1);
  olg_value e1 = ints(&t, "e1", 1, (int64_t[]){1}, (int64_t[]){INT64_MIN}, 1);
  olg_value st1 = ints(&t, "st1", 1, (int64_t[]){1}, (int64_t[]){INT64_MIN}, 1);
  CHECK_TYPE(&t, end(&t, begin(&t, "Slice", 5, v, s1, e1, ax, st1), 1), "float[1]");
  /* DepthToSpace / SpaceToDepth: blocksize^2 overflows */
  n = begin(&t, "DepthToSpace", 1, x);
  CHECK_OK(olg_node_attr_int(t.g, n, "blocksize", (int64_t)1 << 32));
  CHECK_OK(olg_node_end(t.g, n, 1, NULL, NULL));
  CHECK_STATUS(olg__infer_node(t.g, n, 19, NULL), OLG_ERR_INVALID_MODEL);
  olg_value x0 = in(&t, "x0", OLG_FLOAT, 4, (int64_t[]){1, 3, 0, 0}, NULL);
  n = begin(&t, "SpaceToDepth", 1, x0);
  CHECK_OK(olg_node_attr_int(t.g, n, "blocksize", (int64_t)1 << 32));
  CHECK_TYPE(&t, end(&t, n, 1), "float[1,?,0,0]");
  /* GatherND: batch_dims + last index dim overflows: refused */
  olg_value gi = in(&t, "gi", OLG_INT64, 2, (int64_t[]){2, 1}, NULL);
  n = begin(&t, "GatherND", 2, x, gi);
  CHECK_OK(olg_node_attr_int(t.g, n, "batch_dims", BIG));
  CHECK_OK(olg_node_end(t.g, n, 1, NULL, NULL));
  CHECK_STATUS(olg__infer_node(t.g, n, 19, NULL), OLG_ERR_INVALID_MODEL);
  /* OneHot with a huge or NaN depth: unknown */
  olg_value idx = in(&t, "idx", OLG_INT64, 1, (int64_t[]){3}, NULL);
  olg_value dep = floats(&t, "dep", 0, NULL, (float[]){1e30f}, 1);
  olg_value dnan = floats(&t, "dnan", 0, NULL, (float[]){NAN}, 1);
  olg_value onv = floats(&t, "onv", 1, (int64_t[]){2}, (float[]){0, 1}, 2);
  CHECK_TYPE(&t, end(&t, begin(&t, "OneHot", 3, idx, dep, onv), 1), "float[3,?]");
  CHECK_TYPE(&t, end(&t, begin(&t, "OneHot", 3, idx, dnan, onv), 1), "float[3,?]");
  /* TfIdfVectorizer: the largest ngram index + 1 overflows */
  olg_value tin = in(&t, "tin", OLG_INT64, 2, (int64_t[]){2, 5}, NULL);
  n = begin(&t, "TfIdfVectorizer", 1, tin);
  CHECK_OK(olg_node_attr_ints(t.g, n, "ngram_indexes", (int64_t[]){0, BIG}, 2));
  CHECK_TYPE(&t, end(&t, n, 1), "float[2,?]");
  DONE(t);
}

/* The known contents of v as int64 (false when not known or not int). */
static bool known_i64(tg *t, olg_value v, int64_t *out, size_t n) {
  const olg_tensor *k = olg__value_known(olg__resolve(t->g, v, NULL));
  if (!k || !k->data) return false;
  for (size_t i = 0; i < n; i++) {
    switch (k->dtype) {
    case OLG_INT64: memcpy(&out[i], (const char *)k->data + 8 * i, 8); break;
    case OLG_INT32: { int32_t x; memcpy(&x, (const char *)k->data + 4 * i, 4); out[i] = x; break; }
    case OLG_UINT8: case OLG_BOOL: out[i] = ((const uint8_t *)k->data)[i]; break;
    default: return false;
    }
  }
  return true;
}

/* Folding an int64 Mod (fmod 0, the divisor's sign) with INT64_MIN as divisor: the quotient -1
 * times the divisor passed int64 (undefined behaviour found by fuzz_builder); the remainders
 * themselves fit. */
TEST(infer_mod_folding_int64_min_divisor) {
  tg t;
  tg_init(&t, 19);
  int64_t got[4];
  olg_value a = ints(&t, "a", 1, (int64_t[]){4}, (int64_t[]){5, -5, INT64_MIN, 3}, 4);
  olg_value b = ints(&t, "b", 1, (int64_t[]){4},
                     (int64_t[]){INT64_MIN, INT64_MIN, INT64_MIN, INT64_MAX}, 4);
  olg_value o = op2(&t, "Mod", a, b);
  CHECK(known_i64(&t, o, got, 4));
  CHECK(got[0] == INT64_MIN + 5 && got[1] == -5 && got[2] == 0 && got[3] == 3);
  DONE(t);
}

/* Folding a Cast from float to an integer type: a value the type cannot hold (NaN, +-inf,
 * 1e30 -> int64, 3e9 -> int32, -1 -> uint8) is undefined in ONNX, so the Cast is not folded
 * (no UB in the library); values that fit are folded, truncating toward zero. */
TEST(infer_cast_folding_out_of_range) {
  tg t;
  tg_init(&t, 19);
  int64_t got[3];
  const struct { float v; olg_dtype to; } refused[] = {
    {1e30f, OLG_INT64}, {-1e30f, OLG_INT64}, {NAN, OLG_INT32}, {INFINITY, OLG_INT64},
    {3e9f, OLG_INT32}, {-1.0f, OLG_UINT8}, {256.0f, OLG_UINT8}, {9.3e18f, OLG_INT64},
    {-NAN, OLG_UINT64}, {2e19f, OLG_UINT64},
  };
  for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
    char name[16];
    snprintf(name, sizeof name, "c%zu", i);
    olg_value c = floats(&t, name, 1, (int64_t[]){1}, &refused[i].v, 1);
    olg_node_id n = begin(&t, "Cast", 1, c);
    CHECK_OK(olg_node_attr_int(t.g, n, "to", refused[i].to));
    olg_value o = end(&t, n, 1);
    CHECK(olg__value_known(olg__resolve(t.g, o, NULL)) == NULL);
  }
  /* in range: folded, truncated toward zero; a bool is "non-zero" */
  olg_value f = floats(&t, "f", 1, (int64_t[]){3}, (float[]){3.7f, -2.5f, 0.0f}, 3);
  olg_node_id n = begin(&t, "Cast", 1, f);
  CHECK_OK(olg_node_attr_int(t.g, n, "to", OLG_INT32));
  olg_value o = end(&t, n, 1);
  CHECK(known_i64(&t, o, got, 3) && got[0] == 3 && got[1] == -2 && got[2] == 0);
  olg_value b = floats(&t, "b", 1, (int64_t[]){3}, (float[]){0.5f, 0.0f, -3.0f}, 3);
  n = begin(&t, "Cast", 1, b);
  CHECK_OK(olg_node_attr_int(t.g, n, "to", OLG_BOOL));
  o = end(&t, n, 1);
  CHECK(known_i64(&t, o, got, 3) && got[0] == 1 && got[1] == 0 && got[2] == 1);
  olg_value u = floats(&t, "u", 1, (int64_t[]){1}, (float[]){255.9f}, 1);
  n = begin(&t, "Cast", 1, u);
  CHECK_OK(olg_node_attr_int(t.g, n, "to", OLG_UINT8));
  o = end(&t, n, 1);
  CHECK(known_i64(&t, o, got, 1) && got[0] == 255);
  DONE(t);
}

/* Einsum: a term with two ellipses (or a stray '.') walked its dims past the input's rank (past
 * the shape's 32 dims for a rank-32 input); refused, naming the term. */
TEST(infer_einsum_ellipsis_refused) {
  tg t;
  tg_init(&t, 14);
  int64_t d32[32];
  for (int k = 0; k < 32; k++) d32[k] = 2;
  olg_value x = in(&t, "x", OLG_FLOAT, 32, d32, NULL);
  olg_value q = in(&t, "q", OLG_FLOAT, 3, (int64_t[]){2, 3, 4}, NULL);
  static const char *const bad[] = {"...a...", "...a...->a", "a.b..->ab", "...ab->...a...", "abc->a."};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    olg_node_id n = begin(&t, "Einsum", 1, i < 2 ? x : q);
    CHECK_OK(olg_node_attr_string(t.g, n, "equation", bad[i]));
    CHECK_OK(olg_node_end(t.g, n, 1, NULL, NULL));
    CHECK_STATUS(olg__infer_node(t.g, n, 14, NULL), OLG_ERR_INVALID_MODEL);
    CHECK(strstr(olg_last_error(), "ellipsis") != NULL);
  }
  olg_node_id n = begin(&t, "Einsum", 1, q);
  CHECK_OK(olg_node_attr_string(t.g, n, "equation", "a...->...a"));
  CHECK_TYPE(&t, end(&t, n, 1), "float[3,4,2]");
  DONE(t);
}

/* A subgraph of t's model, y = Identity(e), e its one input of the given type (a Scan body). */
static olg_graph *identity_body(tg *t, olg_dtype dt, int32_t rank, const int64_t *dims) {
  olg_graph *body = NULL;
  olg_value e, y;
  olg_node_id n;
  if (olg_model_new_subgraph(t->m, &body) || olg_graph_add_input(body, "e", dt, rank, dims, NULL, &e) ||
      olg_node_begin(body, "", "Identity", "id", &n) || olg_node_arg_value(body, n, e) ||
      olg_node_end(body, n, 1, (const char *[]){"y"}, &y) || olg_graph_add_output(body, y))
    return NULL;
  return body;
}

/* Scan: a scan output axis out of range for the output's rank was put first (at 0) without a
 * word; refused, naming it, as a scan input axis is. */
TEST(infer_scan_output_axis_out_of_range_refused) {
  static const int64_t axes[][1] = {{1}, {-1}, {2}, {-3}, {INT64_MIN}};
  for (size_t c = 0; c < sizeof axes / sizeof *axes; c++) {
    tg t;
    tg_init(&t, 16);
    olg_value x = in(&t, "x", OLG_FLOAT, 2, (int64_t[]){5, 3}, NULL);
    olg_graph *body = identity_body(&t, OLG_UNDEFINED, OLG_RANK_UNKNOWN, NULL);
    CHECK(body != NULL);
    olg_node_id n = begin(&t, "Scan", 1, x);
    CHECK_OK(olg_node_attr_graph(t.g, n, "body", body));
    CHECK_OK(olg_node_attr_int(t.g, n, "num_scan_inputs", 1));
    CHECK_OK(olg_node_attr_ints(t.g, n, "scan_output_axes", axes[c], 1));
    olg_value outs[1];
    CHECK_OK(olg_node_end(t.g, n, 1, NULL, outs));
    if (c < 2) {
      CHECK_OK(olg__infer_node(t.g, n, 16, NULL));
      CHECK_TYPE(&t, outs[0], "float[3,5]");
    } else {
      CHECK_STATUS(olg__infer_node(t.g, n, 16, NULL), OLG_ERR_INVALID_MODEL);
      CHECK(strstr(olg_last_error(), "scan output axis") != NULL);
    }
    DONE(t);
  }
}

/* Scan: num_scan_inputs past int was cut to int (2^31: signed overflow in nin - m, found by
 * tests/fuzz/mutate.py; 2^32 + 1 read as 1 and accepted); refused, naming it. */
TEST(infer_scan_num_scan_inputs_past_int_refused) {
  static const int64_t ms[] = {(int64_t)1 << 31, ((int64_t)1 << 32) + 1, INT64_MAX, INT64_MIN, 2};
  for (size_t c = 0; c < sizeof ms / sizeof *ms; c++) {
    tg t;
    tg_init(&t, 16);
    olg_value x = in(&t, "x", OLG_FLOAT, 2, (int64_t[]){5, 3}, NULL);
    olg_graph *body = identity_body(&t, OLG_FLOAT, 1, (int64_t[]){3});
    CHECK(body != NULL);
    olg_node_id n = begin(&t, "Scan", 1, x);
    CHECK_OK(olg_node_attr_graph(t.g, n, "body", body));
    CHECK_OK(olg_node_attr_int(t.g, n, "num_scan_inputs", ms[c]));
    olg_value outs[1];
    CHECK_OK(olg_node_end(t.g, n, 1, NULL, outs));
    CHECK_STATUS(olg__infer_node(t.g, n, 16, NULL), OLG_ERR_INVALID_MODEL);
    char want[96];
    snprintf(want, sizeof want, "num_scan_inputs is %lld but the node has 1 inputs", (long long)ms[c]);
    CHECK(strstr(olg_last_error(), want) != NULL);
    DONE(t);
  }
}

/* STFT: a known frame length past the signal's known length gave a negative count of frames
 * (dim -4 for 10 of 5 samples); refused. */
TEST(infer_stft_frame_longer_than_signal_refused) {
  tg t;
  tg_init(&t, 17);
  olg_value x = in(&t, "x", OLG_FLOAT, 3, (int64_t[]){1, 5, 1}, NULL);
  olg_value step = ints(&t, "step", 0, NULL, (int64_t[]){1}, 1);
  olg_value fl10 = ints(&t, "fl10", 0, NULL, (int64_t[]){10}, 1);
  olg_value fl4 = ints(&t, "fl4", 0, NULL, (int64_t[]){4}, 1);
  CHECK_TYPE(&t, end(&t, begin(&t, "STFT", 4, x, step, OLG_NO_VALUE, fl4), 1), "float[1,2,3,2]");
  olg_node_id n = begin(&t, "STFT", 4, x, step, OLG_NO_VALUE, fl10);
  CHECK_OK(olg_node_end(t.g, n, 1, NULL, NULL));
  CHECK_STATUS(olg__infer_node(t.g, n, 17, NULL), OLG_ERR_INVALID_MODEL);
  CHECK(strstr(olg_last_error(), "exceeds the signal's 5 samples") != NULL);
  DONE(t);
}
