/* onnxlegal ops [--opset N] [--markdown] [--domain D]: the coverage matrix, computed from the
 * built-in registry itself: for each (domain, op), the opsets where it lowers natively, by a
 * decomposition, or not at all. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char usage[] =
    "usage: onnxlegal ops [--opset N] [--markdown] [--domain D]\n"
    "       onnxlegal ops MODEL\n"
    "\n"
    "With MODEL (\"-\": standard input): the ops the model's main graph uses, most frequent\n"
    "first, each with its node count, the lowest target opset it converts to and the lowest at\n"
    "which it does so natively, then the lowest opset for the whole model.\n"
    "\n"
    "Without:\n"
    "Prints the coverage matrix of the built-in symbolics, computed from the registry: for each\n"
    "op, the target opsets (" CLI_OPSETS_TO ") where it lowers natively (N), by an exact decomposition\n"
    "(D), or not at all (.). --opset N lists how each op lowers at opset N, and the lowest opset\n"
    "that works where it does not. --markdown prints the matrix as the Markdown of docs/ops.md.\n"
    "--domain D keeps the ops of one domain (\"onnx\" for the default ONNX domain).\n"
    "ONNX-domain ops without a row of their own are passed through wherever ONNX defines them\n"
    "(listed after the others).\n";

#define NV (OLG_LOWER_OPSET_MAX - OLG_LOWER_OPSET_MIN + 1)

static char mark(int k) {
  return k == OLG_LOWERING_NATIVE ? 'N' : k == OLG_LOWERING_DECOMPOSED ? 'D' : '.';
}

/* The opsets where the lowering is `kind`, as ranges ("7-16, 20-27"), or "—". */
static void ranges(const int *kinds, int kind, char *buf, size_t cap) {
  size_t at = 0;
  buf[0] = 0;
  for (int i = 0; i < NV; i++) {
    if (kinds[i] != kind || (i > 0 && kinds[i - 1] == kind)) continue;
    int j = i;
    while (j + 1 < NV && kinds[j + 1] == kind) j++;
    int a = OLG_LOWER_OPSET_MIN + i, b = OLG_LOWER_OPSET_MIN + j;
    int n = a == b ? snprintf(buf + at, cap - at, "%s%d", at ? ", " : "", a)
                   : snprintf(buf + at, cap - at, "%s%d-%d", at ? ", " : "", a, b);
    if (n < 0 || (size_t)n >= cap - at) break;
    at += (size_t)n;
  }
  if (!at) snprintf(buf, cap, "—");
}

static const char *domain_label(const char *d) { return *d ? d : "onnx"; }

/* How the ONNX ops that have a decomposition are decomposed (docs/ops.md). */
static const struct { const char *op, *how; } decomposition_notes[] = {
    {"AffineGrid", "MatMul of the theta matrices with a constant base grid"},
    {"ArgMax", "select_last_index: ArgMax of the input reversed along the axis"},
    {"ArgMin", "select_last_index: ArgMin of the input reversed along the axis"},
    {"Attention", "MatMul, Softmax, masks (as aten::scaled_dot_product_attention)"},
    {"AveragePool", "ceil_mode: extra end padding (count_include_pad 0)"},
    {"CastLike", "Cast to the other input's type"},
    {"GridSample", "Gather of the neighbours, weights by arithmetic (as aten::grid_sampler)"},
    {"GroupNormalization", "InstanceNormalization over [N, G, -1], scale and bias per group (18) "
                           "or per channel (21) (as aten::group_norm); 18's repeated per channel "
                           "from 21"},
    {"HardSwish", "x * HardSigmoid(x)"},
    {"LayerNormalization", "ReduceMean, Sub, Mul, Sqrt, Div (as aten::layer_norm)"},
    {"Max", "a type the version lacks: computed in float/double, cast back"},
    {"MaxPool", "ceil_mode: extra end padding"},
    {"Mean", "a type the version lacks: computed in float/double, cast back"},
    {"Min", "a type the version lacks: computed in float/double, cast back"},
    {"NegativeLogLikelihoodLoss", "Gather of the picked values, ReduceSum, Div; ignore_index by Where (9)"},
    {"Pow", "a type the version lacks: computed in float/double, cast back"},
    {"Scan", "Scan-8 at 9 and later: the batch axis of 1 squeezed"},
    {"SoftmaxCrossEntropyLoss", "LogSoftmax over axis 1, then as NegativeLogLikelihoodLoss"},
    {"Sum", "a type the version lacks: computed in float/double, cast back"},
    {"Trilu", "Where with a constant mask (9), Gather (7, 8); k known (as aten::tril/triu)"},
};

static const char *decomposition_note(const char *op) {
  for (size_t i = 0; i < sizeof decomposition_notes / sizeof decomposition_notes[0]; i++)
    if (strcmp(decomposition_notes[i].op, op) == 0) return decomposition_notes[i].how;
  return "";
}

/* Every operator of the default ONNX domain: where it converts (the registry's rows, else the
 * pass-through wherever ONNX defines it), as Markdown. */
/* How ONNX op `op` converts at each target opset: as its registry rows say, or, without rows,
 * passed through wherever its schema defines it. Returns whether it has rows. */
static bool onnx_kinds(const olg_registry *r, const char *op, int *kinds) {
  bool rows = false;
  for (int v = OLG_LOWER_OPSET_MIN; v <= OLG_LOWER_OPSET_MAX && !rows; v++) {
    int since = 0;
    olg_registry_find(r, "", op, v, &since, NULL);
    rows = since > 0;
  }
  for (int v = 0; v < NV; v++) {
    int opset = OLG_LOWER_OPSET_MIN + v;
    if (rows) {
      kinds[v] = olg_registry_lowering(r, "", op, opset);
    } else {
      kinds[v] = olg_schema_op_defined_at("", op, opset) ? OLG_LOWERING_NATIVE : OLG_LOWERING_NONE;
    }
  }
  return rows;
}

static void onnx_ops_markdown(const olg_registry *r) {
  printf("\n## Every ONNX operator\n\n"
         "Every operator of the default domain in ONNX's tables, as `onnxlegal convert` brings a\n"
         "node of it to each target opset from %d to %d: kept or re-encoded (**native**), by an\n"
         "exact **decomposition** (how), or **refused** (the diagnostic names the lowest opset\n"
         "that works). An op without a row of its own in the registry is passed through wherever\n"
         "ONNX defines it at the target; an attribute or input type that the target's version\n"
         "lacks is refused there, naming the opset that has it.\n\n"
         "| op | defined from | native | decomposition | refused | how |\n"
         "| --- | --- | --- | --- | --- | --- |\n",
         OLG_LOWER_OPSET_MIN, OLG_LOWER_OPSET_MAX);
  size_t n_ops = 0, n_onnx = olg_schema_op_count("");
  for (size_t i = 0; i < n_onnx; i++) {
    const char *name = olg_schema_op_name("", i);
    int first = 0;
    olg_schema_op_versions("", name, &first, 1);
    int kinds[NV];
    onnx_kinds(r, name, kinds);
    char a[128], b[128], c[128];
    ranges(kinds, OLG_LOWERING_NATIVE, a, sizeof a);
    ranges(kinds, OLG_LOWERING_DECOMPOSED, b, sizeof b);
    ranges(kinds, OLG_LOWERING_NONE, c, sizeof c);
    const char *how = strcmp(b, "—") != 0 || strstr(decomposition_note(name), ":") ? decomposition_note(name) : "";
    printf("| `%s` | %d | %s | %s | %s | %s |\n", name, first, a, b, c, how);
    n_ops++;
  }
  printf("\n%zu ONNX operators.\n", n_ops);
}

int cli_ops(int argc, char **argv) {
  if (cli_wants_help(argc, argv)) {
    fputs(usage, stdout);
    return CLI_OK;
  }
  int opset = 0, markdown = 0;
  const char *domain = NULL, *model = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--markdown") == 0) {
      markdown = 1;
    } else if (strcmp(argv[i], "--opset") == 0 && i + 1 < argc) {
      char *end;
      long v = strtol(argv[++i], &end, 10);
      if (*end || v < OLG_LOWER_OPSET_MIN || v > OLG_LOWER_OPSET_MAX)
        return cli_usage_error("ops", "--opset wants a number from %d to %d", OLG_LOWER_OPSET_MIN,
                               OLG_LOWER_OPSET_MAX);
      opset = (int)v;
    } else if (strcmp(argv[i], "--domain") == 0 && i + 1 < argc) {
      domain = argv[++i];
      if (strcmp(domain, "onnx") == 0 || strcmp(domain, "ai.onnx") == 0) domain = "";
    } else if ((argv[i][0] != '-' || !argv[i][1]) && !model) {
      model = argv[i];
    } else {
      return cli_usage_error("ops", "unknown argument '%s'", argv[i]);
    }
  }
  if (model) {
    if (opset || markdown || domain)
      return cli_usage_error("ops", "MODEL takes no other option");
    olg_model *m;
    int rc = cli_read_model("ops", model, &m);
    if (rc) return rc;
    rc = cli_print_model_ops(m, 1);
    olg_model_free(m);
    return rc ? rc : cli_close_output("ops", NULL, stdout);
  }
  olg_registry *r;
  olg_status s = olg_registry_new_builtin(&r, NULL);
  if (s) return cli_fail("ops", s, "building the registry");
  size_t n = olg_registry_op_count(r);
  size_t n_ops = 0, n_native = 0, n_decomp = 0, n_none = 0;
  if (markdown) {
    printf("# Coverage matrix\n\n"
           "Generated by `onnxlegal ops --markdown` from the built-in registry (the\n"
           "`opsets/opsetNN.c` tables); `tests/py/test_ops_doc.py` fails when this file is stale.\n\n"
           "For each source op: the target opsets where it lowers **natively**, by an exact\n"
           "**decomposition** (DESIGN.md §4; refused when decompositions are turned off), and where\n"
           "it is **not supported** (legalization then fails with a diagnostic naming the lowest\n"
           "opset that works). Some argument combinations need a newer opset than the op itself;\n"
           "their diagnostics say which. ONNX-domain ops without a row of their own are passed\n"
           "through wherever ONNX defines them at the target opset.\n\n"
           "%s",
           opset ? "| op | at the opset |\n| --- | --- |\n"
                 : "| op | native | decomposition | not supported |\n| --- | --- | --- | --- |\n");
  } else if (!opset) {
    printf("%-40s ", "op");
    for (int v = OLG_LOWER_OPSET_MIN; v <= OLG_LOWER_OPSET_MAX; v++) printf("%d", v % 10);
    printf("   (N native, D decomposition, . not supported; opsets %d..%d)\n", OLG_LOWER_OPSET_MIN,
           OLG_LOWER_OPSET_MAX);
  }
  /* the registry's ops, then (the text listing) every ONNX op without a row: passed through */
  size_t n_more = markdown || (domain && *domain) ? 0 : olg_schema_op_count("");
  for (size_t i = 0; i < n + n_more; i++) {
    const char *d, *op;
    int kinds[NV];
    if (i < n) {
      olg_registry_op_at(r, i, &d, &op);
      if (domain && strcmp(domain, d) != 0) continue;
      for (int v = 0; v < NV; v++) kinds[v] = olg_registry_lowering(r, d, op, OLG_LOWER_OPSET_MIN + v);
    } else {
      d = "";
      op = olg_schema_op_name("", i - n);
      if (onnx_kinds(r, op, kinds)) continue; /* ops with rows: above */
    }
    char name[256];
    snprintf(name, sizeof name, "%s::%s", domain_label(d), op);
    n_ops++;
    if (opset) {
      int k = kinds[opset - OLG_LOWER_OPSET_MIN];
      n_native += k == OLG_LOWERING_NATIVE;
      n_decomp += k == OLG_LOWERING_DECOMPOSED;
      n_none += k == OLG_LOWERING_NONE;
      if (markdown) {
        printf("| `%s` | %s |\n", name, k == OLG_LOWERING_NATIVE ? "native" : k ? "decomposition" : "no");
      } else if (k) {
        printf("%-40s %s\n", name, k == OLG_LOWERING_NATIVE ? "native" : "decomposition");
      } else {
        int lo = olg_registry_min_opset(r, d, op, 0);
        for (int v = 0; v < NV && lo <= 0 && i >= n; v++) /* passed through: its first version */
          if (kinds[v]) lo = OLG_LOWER_OPSET_MIN + v;
        if (lo > 0) printf("%-40s not supported (the lowest opset that works is %d)\n", name, lo);
        else printf("%-40s not supported\n", name);
      }
      continue;
    }
    if (markdown) {
      char a[128], b[128], c[128];
      ranges(kinds, OLG_LOWERING_NATIVE, a, sizeof a);
      ranges(kinds, OLG_LOWERING_DECOMPOSED, b, sizeof b);
      ranges(kinds, OLG_LOWERING_NONE, c, sizeof c);
      printf("| `%s` | %s | %s | %s |\n", name, a, b, c);
    } else {
      printf("%-40s ", name);
      for (int v = 0; v < NV; v++) putchar(mark(kinds[v]));
      putchar('\n');
    }
  }
  if (opset)
    printf("%s%zu ops at opset %d: %zu native, %zu by decomposition, %zu not supported\n",
           markdown ? "\n" : "", n_ops, opset, n_native, n_decomp, n_none);
  else if (markdown && !domain)
    printf("\n%zu ops.\n", n_ops), onnx_ops_markdown(r);
  else if (markdown)
    printf("\n%zu ops.\n", n_ops);
  olg_registry_free(r);
  return CLI_OK;
}
