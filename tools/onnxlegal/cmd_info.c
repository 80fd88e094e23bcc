/* onnxlegal info MODEL: what a model holds, at a glance. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char usage[] =
    "usage: onnxlegal info MODEL\n"
    "\n"
    "Shows the model's IR version, opset imports, producer, the main graph's inputs and outputs\n"
    "with their types, its node count by op (most frequent first), and its initializers' count\n"
    "and bytes.\n";

typedef struct op_key {
  const char *domain, *op;
  size_t count;
} op_key;

static int cmp_key(const void *a, const void *b) {
  const op_key *x = a, *y = b;
  int c = strcmp(x->domain, y->domain);
  return c ? c : strcmp(x->op, y->op);
}

static int cmp_count(const void *a, const void *b) {
  const op_key *x = a, *y = b;
  if (x->count != y->count) return x->count < y->count ? 1 : -1;
  return cmp_key(a, b);
}

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

  /* nodes by op: sort (domain, op) pairs, count runs, then order by count */
  size_t n_nodes = olg_graph_node_count(g);
  op_key *keys = n_nodes ? malloc(n_nodes * sizeof *keys) : NULL;
  if (n_nodes && !keys) {
    olg_model_free(m);
    fprintf(stderr, "onnxlegal: info: out of memory\n");
    return CLI_USAGE;
  }
  for (size_t i = 0; i < n_nodes; i++) {
    keys[i].domain = olg_node_domain(g, (olg_node_id)i);
    keys[i].op = olg_node_op(g, (olg_node_id)i);
    keys[i].count = 1;
  }
  if (n_nodes) qsort(keys, n_nodes, sizeof *keys, cmp_key);
  size_t n_ops = 0;
  for (size_t i = 0; i < n_nodes; i++) {
    if (n_ops && cmp_key(&keys[n_ops - 1], &keys[i]) == 0) keys[n_ops - 1].count++;
    else keys[n_ops++] = keys[i];
  }
  if (n_ops) qsort(keys, n_ops, sizeof *keys, cmp_count);
  printf("nodes: %zu\n", n_nodes);
  for (size_t i = 0; i < n_ops; i++)
    printf("  %s%s%s: %zu\n", keys[i].domain, *keys[i].domain ? "." : "", keys[i].op, keys[i].count);
  free(keys);

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
