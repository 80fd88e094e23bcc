/* onnxlegal info MODEL: what a model holds, at a glance. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char usage[] =
    "usage: onnxlegal info MODEL\n"
    "\n"
    "Shows the model's IR version, opset imports, producer, the main graph's inputs and outputs\n"
    "with their types, its node count by op (most frequent first) with the lowest opset each\n"
    "converts to (`onnxlegal convert`; \"natively\" when a lower one needs a decomposition), the\n"
    "lowest opset for the whole model (the calls of model-local functions counted as the ops of\n"
    "their bodies), and its initializers' count and bytes. MODEL \"-\" reads\n"
    "standard input.\n";

static void print_values(const olg_graph *g, const char *title, size_t n,
                         olg_value (*at)(const olg_graph *, size_t)) {
  printf("%s: %zu\n", title, n);
  for (size_t i = 0; i < n; i++) {
    olg_value v = at(g, i);
    char type[256];
    cli_format_type(g, v, type, sizeof type);
    printf("  %s: %s\n", olg_value_name(g, v), type);
  }
}

static void print_bytes(unsigned long long b) {
  static const char *const units[] = {"KiB", "MiB", "GiB", "TiB"};
  printf("%llu bytes", b);
  if (b < 1024) return;
  double x = (double)b;
  int u = -1;
  while (x >= 1024 && u < 3) {
    x /= 1024;
    u++;
  }
  printf(" (%.1f %s)", x, units[u]);
}

int cli_info(int argc, char **argv) {
  if (cli_wants_help(argc, argv)) {
    fputs(usage, stdout);
    return CLI_OK;
  }
  const char *path = NULL;
  for (int i = 1; i < argc; i++) {
    if (argv[i][0] == '-' && argv[i][1] && strcmp(argv[i], "--") != 0)
      return cli_usage_error("info", "unknown option '%s'", argv[i]);
    if (strcmp(argv[i], "--") == 0) {
      if (i + 1 < argc && !path) path = argv[++i];
      if (i + 1 < argc) return cli_usage_error("info", "too many arguments");
      break;
    }
    if (path) return cli_usage_error("info", "too many arguments");
    path = argv[i];
  }
  if (!path) return cli_usage_error("info", "a MODEL is required");
  olg_model *m;
  int rc = cli_read_model("info", path, &m);
  if (rc) return rc;
  const olg_graph *g = olg_model_graph_const(m);

  printf("model: %s\n", path);
  printf("ir_version: %lld\n", (long long)olg_model_ir_version(m));
  printf("opsets:");
  size_t n_opsets = olg_model_opset_count(m);
  for (size_t i = 0; i < n_opsets; i++) {
    const char *d;
    int64_t ver;
    if (olg_model_opset_at(m, i, &d, &ver) == OLG_OK)
      printf("%s %s %lld", i ? "," : "", *d ? d : "ai.onnx", (long long)ver);
  }
  printf("%s\n", n_opsets ? "" : " (none)");
  const char *pn = olg_model_string(m, OLG_MODEL_PRODUCER_NAME);
  const char *pv = olg_model_string(m, OLG_MODEL_PRODUCER_VERSION);
  printf("producer: %s%s%s\n", *pn ? pn : "(none)", *pv ? " " : "", pv);
  size_t n_meta = olg_model_metadata_count(m);
  if (n_meta) {
    printf("metadata: %zu\n", n_meta);
    for (size_t i = 0; i < n_meta; i++) {
      const char *k, *v;
      if (olg_model_metadata_at(m, i, &k, &v) == OLG_OK) printf("  %s: %s\n", k, v);
    }
  }
  printf("graph: %s\n", olg_graph_name(g));
  print_values(g, "inputs", olg_graph_input_count(g), olg_graph_input_at);
  print_values(g, "outputs", olg_graph_output_count(g), olg_graph_output_at);

  size_t n_fn = olg_model_function_count(m);
  if (n_fn) {
    printf("functions: %zu\n", n_fn);
    for (size_t i = 0; i < n_fn; i++) {
      const char *d, *nm;
      olg_graph *body;
      if (olg_model_function_at(m, i, &d, &nm, &body) == OLG_OK)
        printf("  %s.%s: %zu input(s), %zu output(s), %zu node(s)\n", d, nm,
               olg_graph_input_count(body), olg_graph_output_count(body), olg_graph_node_count(body));
    }
    /* the ops that convert are those of the bodies, as convert inlines the calls */
    if (olg_model_inline_functions(m))
      printf("  (not inlined: %s)\n", olg_last_error());
  }

  /* nodes by op, each with the lowest opset it converts to */
  if (cli_print_model_ops(m, 0)) {
    olg_model_free(m);
    return CLI_USAGE;
  }

  size_t n_inits = olg_graph_initializer_count(g);
  unsigned long long bytes = 0;
  for (size_t i = 0; i < n_inits; i++) {
    size_t nb = 0;
    if (olg_value_data(g, olg_graph_initializer_at(g, i), NULL, &nb) == OLG_OK) bytes += nb;
  }
  printf("initializers: %zu, ", n_inits);
  print_bytes(bytes);
  printf("\n");
  olg_model_free(m);
  return cli_close_output("info", NULL, stdout);
}
