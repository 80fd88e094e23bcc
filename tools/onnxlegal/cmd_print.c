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
    "\n"
    "Prints the main graph as a Graphviz digraph: one box per node, labelled with its op, its\n"
    "name and the initializers (weights) it uses with their types; inputs and outputs drawn\n"
    "apart; every edge labelled with its value's name and its type and shape, as inference\n"
    "finds them. MODEL \"-\" reads standard input.\n"
    "  e.g.  onnxlegal dot model.onnx | dot -Tsvg > model.svg\n"
    "\n"
    "  -o, --output FILE   write to FILE instead of standard output\n";

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

int cli_dot(int argc, char **argv) {
  return run("dot", dot_usage, print_dot, argc, argv);
}
