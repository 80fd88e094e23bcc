/* onnxlegal print MODEL / onnxlegal dot MODEL: the model as text or as a Graphviz digraph. */
#include <string.h>

#include "cli.h"

static const char print_usage[] =
    "usage: onnxlegal print MODEL [-o FILE] [--weights]\n"
    "\n"
    "Prints the model in ONNX's textual syntax (the syntax of onnx.parser). Tensors of more\n"
    "than 64 elements (weights, large constants) print as \"{... N elements elided}\"; with\n"
    "--weights every element is printed, and the output reads back with onnx.parser.\n"
    "MODEL \"-\" reads standard input.\n"
    "\n"
    "  -o, --output FILE   write to FILE instead of standard output (\"-\": standard output)\n"
    "  --weights           print every tensor's data\n";

static const char dot_usage[] =
    "usage: onnxlegal dot MODEL [-o FILE]\n"
    "       onnxlegal dot --diff BEFORE AFTER [-o FILE]\n"
    "\n"
    "Prints the main graph as a Graphviz digraph: one box per node, labelled with its op, its\n"
    "name and the initializers (weights) it uses with their types; inputs and outputs drawn\n"
    "apart; every edge labelled with its value's name and its type and shape, as inference\n"
    "finds them. MODEL \"-\" reads standard input.\n"
    "  e.g.  onnxlegal dot model.onnx | dot -Tsvg > model.svg\n"
    "With --diff, draws what a conversion changed: AFTER (e.g. the output of onnxlegal convert)\n"
    "with each node coloured by how it relates to BEFORE's: grey kept (same name and op),\n"
    "orange rewritten (emitted for a node: \"name/Op\"; or copied from one of another op),\n"
    "green added. BEFORE's nodes that nothing was emitted for are drawn apart, dashed, as removed; the four\n"
    "counts are the picture's label.\n"
    "  e.g.  onnxlegal convert m.onnx m9.onnx --opset 9 && onnxlegal dot --diff m.onnx m9.onnx\n"
    "\n"
    "  -o, --output FILE   write to FILE instead of standard output\n"
    "  --diff BEFORE AFTER draw AFTER against BEFORE\n";

typedef olg_status (*printer_fn)(const olg_model *, olg_write_fn, void *);

/* Tensors of more elements print elided unless --weights. */
#define PRINT_ELIDE_ABOVE 64
static int print_weights;
static olg_status print_text(const olg_model *m, olg_write_fn fn, void *ud) {
  return olg_model_print_text_elided(m, print_weights ? 0 : PRINT_ELIDE_ABOVE, fn, ud);
}

/* MODEL [-o FILE], in any order. */
static int run(const char *cmd, const char *usage, printer_fn printer, int argc, char **argv) {
  if (cli_wants_help(argc, argv)) {
    fputs(usage, stdout);
    return CLI_OK;
  }
  const char *path = NULL, *out_path = NULL;
  int only_operands = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!only_operands && (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0)) {
      if (i + 1 >= argc) return cli_usage_error(cmd, "%s needs a FILE", a);
      out_path = argv[++i];
    } else if (!only_operands && strncmp(a, "--output=", 9) == 0) {
      out_path = a + 9;
    } else if (!only_operands && printer == print_text && strcmp(a, "--weights") == 0) {
      print_weights = 1;
    } else if (!only_operands && strcmp(a, "--") == 0) {
      only_operands = 1;
    } else if (!only_operands && a[0] == '-' && a[1]) {
      return cli_usage_error(cmd, "unknown option '%s'", a);
    } else if (path) {
      return cli_usage_error(cmd, "too many arguments");
    } else {
      path = a;
    }
  }
  if (!path) return cli_usage_error(cmd, "a MODEL is required");
  olg_model *m;
  int rc = cli_read_model(cmd, path, &m);
  if (rc) return rc;
  FILE *f = cli_open_output(cmd, out_path);
  if (!f) {
    olg_model_free(m);
    return CLI_USAGE;
  }
  olg_status s = printer(m, cli_write_file, f);
  olg_model_free(m);
  rc = cli_close_output(cmd, out_path, f);
  if (s && !rc) rc = cli_fail(cmd, s, "printing %s", path);
  return rc;
}

int cli_print(int argc, char **argv) {
  return run("print", print_usage, print_text, argc, argv);
}

/* Shapes and types on every edge: inference first (what it cannot infer stays unlabelled; a
 * model it refuses is still drawn). */
static olg_status print_dot(const olg_model *m, olg_write_fn fn, void *ud) {
  olg_infer_shapes((olg_model *)m, NULL, NULL);
  olg_clear_error();
  return olg_model_print_dot(m, fn, ud);
}

/* dot --diff BEFORE AFTER [-o FILE], in any order. */
static int run_diff(int argc, char **argv) {
  const char *paths[2] = {NULL, NULL}, *out_path = NULL;
  int n_paths = 0, only_operands = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!only_operands && strcmp(a, "--diff") == 0) continue;
    if (!only_operands && (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0)) {
      if (i + 1 >= argc) return cli_usage_error("dot", "%s needs a FILE", a);
      out_path = argv[++i];
    } else if (!only_operands && strncmp(a, "--output=", 9) == 0) {
      out_path = a + 9;
    } else if (!only_operands && strcmp(a, "--") == 0) {
      only_operands = 1;
    } else if (!only_operands && a[0] == '-' && a[1]) {
      return cli_usage_error("dot", "unknown option '%s'", a);
    } else if (n_paths == 2) {
      return cli_usage_error("dot", "--diff takes two models, BEFORE and AFTER");
    } else {
      paths[n_paths++] = a;
    }
  }
  if (n_paths != 2) return cli_usage_error("dot", "--diff takes two models, BEFORE and AFTER");
  if (strcmp(paths[0], "-") == 0 && strcmp(paths[1], "-") == 0)
    return cli_usage_error("dot", "only one of BEFORE and AFTER can be standard input");
  olg_model *before, *after;
  int rc = cli_read_model("dot", paths[0], &before);
  if (rc) return rc;
  rc = cli_read_model("dot", paths[1], &after);
  if (rc) {
    olg_model_free(before);
    return rc;
  }
  FILE *f = cli_open_output("dot", out_path);
  if (!f) {
    olg_model_free(after);
    olg_model_free(before);
    return CLI_USAGE;
  }
  olg_infer_shapes(after, NULL, NULL); /* types and shapes on the edges, as without --diff */
  olg_clear_error();
  olg_status s = olg_model_print_dot_diff(before, after, cli_write_file, f);
  olg_model_free(after);
  olg_model_free(before);
  rc = cli_close_output("dot", out_path, f);
  if (s && !rc) rc = cli_fail("dot", s, "drawing %s against %s", paths[1], paths[0]);
  return rc;
}

int cli_dot(int argc, char **argv) {
  for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
    if (strcmp(argv[i], "--diff") == 0 && !cli_wants_help(argc, argv)) return run_diff(argc, argv);
  return run("dot", dot_usage, print_dot, argc, argv);
}
