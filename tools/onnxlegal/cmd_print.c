/* onnxlegal print MODEL / onnxlegal dot MODEL: the model as text or as a Graphviz digraph. */
#include <string.h>

#include "cli.h"

static const char print_usage[] =
    "usage: onnxlegal print MODEL [-o FILE]\n"
    "\n"
    "Prints the model in ONNX's textual syntax (the syntax of onnx.parser), with every\n"
    "initializer's data.\n"
    "\n"
    "  -o, --output FILE   write to FILE instead of standard output\n";

static const char dot_usage[] =
    "usage: onnxlegal dot MODEL [-o FILE]\n"
    "\n"
    "Prints the main graph as a Graphviz digraph: nodes labelled with op and name, edges with\n"
    "value names and types; inputs, initializers and outputs drawn apart.\n"
    "  e.g.  onnxlegal dot model.onnx | dot -Tsvg > model.svg\n"
    "\n"
    "  -o, --output FILE   write to FILE instead of standard output\n";

typedef olg_status (*printer_fn)(const olg_model *, olg_write_fn, void *);

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
  return run("print", print_usage, olg_model_print_text, argc, argv);
}

int cli_dot(int argc, char **argv) {
  return run("dot", dot_usage, olg_model_print_dot, argc, argv);
}
