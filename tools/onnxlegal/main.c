/* onnxlegal — the command-line tool: dispatch to subcommands, and the helpers they share. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* Every subcommand: X(name, one-line help). Adding one is adding its file (which defines
 * int cli_<name>(int argc, char **argv)) and one line here. */
#define CLI_COMMANDS(X)                                                                     \
  X(info, "show a model's IR version, opsets, inputs, outputs, ops and weights")            \
  X(print, "print a model in ONNX's textual syntax")                                        \
  X(dot, "print a model's main graph as a Graphviz digraph")                                \
  X(copy, "read a model and write it again (optionally with external data)")                \
  X(check, "validate a model against ONNX's rules at its opsets; print every finding")       \
  X(convert, "convert a model to another opset, up or down, node by node")                  \
  X(ops, "the coverage matrix: where each op lowers natively, by decomposition, or not")

typedef struct cli_command {
  const char *name;
  int (*fn)(int argc, char **argv);
  const char *help;
} cli_command;

#define CLI_DECLARE(name, help) int cli_##name(int argc, char **argv);
CLI_COMMANDS(CLI_DECLARE)
#define CLI_ENTRY(name, help) {#name, cli_##name, help},
static const cli_command commands[] = {CLI_COMMANDS(CLI_ENTRY){NULL, NULL, NULL}};

static void print_help(FILE *f) {
  fprintf(f,
          "usage: onnxlegal COMMAND [ARGS...]\n"
          "       onnxlegal --version | --help\n"
          "\n"
          "Reads, writes and shows ONNX models with libonnxlegal.\n"
          "\n"
          "commands:\n");
  for (const cli_command *c = commands; c->name; c++) fprintf(f, "  %-8s %s\n", c->name, c->help);
  fprintf(f,
          "\n"
          "Run 'onnxlegal COMMAND --help' for a command's options.\n"
          "Exit status: 0 success, 1 the model is malformed or invalid, 2 usage or I/O error.\n");
}

int main(int argc, char **argv) {
  if (argc < 2) {
    print_help(stderr);
    return CLI_USAGE;
  }
  const char *cmd = argv[1];
  if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
    if (strcmp(cmd, "help") == 0 && argc > 2) {
      /* "onnxlegal help info" is "onnxlegal info --help" */
      for (const cli_command *c = commands; c->name; c++)
        if (strcmp(c->name, argv[2]) == 0) return c->fn(2, (char *[]){argv[2], "--help", NULL});
      return cli_usage_error("help", "unknown command '%s'", argv[2]);
    }
    print_help(stdout);
    return CLI_OK;
  }
  if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
    printf("onnxlegal %s (library %s, ABI %d)\n", OLG_VERSION_STRING, olg_version_string(),
           OLG_ABI_VERSION);
    return CLI_OK;
  }
  for (const cli_command *c = commands; c->name; c++)
    if (strcmp(c->name, cmd) == 0) return c->fn(argc - 1, argv + 1);
  fprintf(stderr, "onnxlegal: unknown command '%s' (run 'onnxlegal --help' for the list)\n", cmd);
  return CLI_USAGE;
}

/* ---------------------------------------------------------------------------------------- */
/* Shared helpers */

int cli_exit_status(olg_status s) {
  switch (s) {
  case OLG_OK: return CLI_OK;
  case OLG_ERR_PARSE: case OLG_ERR_INVALID_MODEL: case OLG_ERR_LIMIT: return CLI_BAD_MODEL;
  default: return CLI_USAGE;
  }
}

/* A write refused for its size (over protobuf's 2 GiB, the library's message naming the C
 * option): the command's own option for it. */
void cli_hint_external_data(const char *cmd, const char *option) {
  fprintf(stderr, "onnxlegal: %s: %s writes the large tensors to a file beside OUT, which keeps "
          "OUT small\n", cmd, option);
}

int cli_fail(const char *cmd, olg_status s, const char *fmt, ...) {
  /* copy the library's message first: formatting below must not disturb it */
  char msg[2048];
  snprintf(msg, sizeof msg, "%s", olg_last_error());
  fprintf(stderr, "onnxlegal: %s: ", cmd);
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  /* one line: the library's message may not hold a newline of its own */
  for (char *p = msg; *p; p++)
    if (*p == '\n' || *p == '\r') *p = ' ';
  fprintf(stderr, ": %s\n", *msg ? msg : olg_status_name(s));
  return cli_exit_status(s);
}

int cli_usage_error(const char *cmd, const char *fmt, ...) {
  fprintf(stderr, "onnxlegal: %s: ", cmd);
  va_list ap;
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, " (run 'onnxlegal %s --help')\n", cmd);
  return CLI_USAGE;
}

int cli_wants_help(int argc, char **argv) {
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--") == 0) return 0;
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) return 1;
  }
  return 0;
}

/* The bytes read from standard input ("-"): a model read from memory borrows them, so they live
 * until the process ends (one model per run reads stdin). */
static unsigned char *stdin_bytes;
static size_t stdin_len;

static olg_status read_stdin(void) {
  if (stdin_bytes) return OLG_OK;
  size_t cap = 1 << 16, n = 0;
  unsigned char *buf = malloc(cap);
  if (!buf) return OLG_ERR_NOMEM;
  for (;;) {
    if (n == cap) {
      unsigned char *nb = cap > SIZE_MAX / 2 ? NULL : realloc(buf, cap * 2);
      if (!nb) {
        free(buf);
        return OLG_ERR_NOMEM;
      }
      buf = nb;
      cap *= 2;
    }
    size_t k = fread(buf + n, 1, cap - n, stdin);
    n += k;
    if (k == 0) break;
  }
  if (ferror(stdin)) {
    free(buf);
    return OLG_ERR_IO;
  }
  stdin_bytes = buf;
  stdin_len = n;
  return OLG_OK;
}

olg_status cli_load_model(const char *path, olg_model **out) {
  if (strcmp(path, "-") != 0) return olg_model_read_file(out, path, NULL);
  olg_status s = read_stdin();
  if (s == OLG_ERR_NOMEM) return s;
  if (s) {
    fprintf(stderr, "onnxlegal: reading standard input: %s\n", strerror(errno));
    return s;
  }
  /* external data of a model on stdin is refused by the reader (no directory to resolve it in) */
  return olg_model_read_memory(out, stdin_bytes, stdin_len, NULL);
}

int cli_read_failed(const char *cmd, const char *path, olg_status s) {
  /* the reader's message may itself name the file ("reading '<path>': ..."); say it once */
  char msg[2048];
  snprintf(msg, sizeof msg, "%s", olg_last_error());
  const char *rest = msg;
  char lead[4096];
  snprintf(lead, sizeof lead, "reading '%s': ", path);
  if (strncmp(msg, lead, strlen(lead)) == 0) rest = msg + strlen(lead);
  for (char *p = msg; *p; p++)
    if (*p == '\n' || *p == '\r') *p = ' ';
  const char *name = strcmp(path, "-") == 0 ? "standard input" : path;
  const char *mem = "reading a model from memory: ";
  if (strcmp(path, "-") == 0 && strncmp(rest, mem, strlen(mem)) == 0) rest += strlen(mem);
  /* one line (the library's hint at its end): a script's `2>&1 | tail -1` still sees all of it */
  fprintf(stderr, "onnxlegal: %s: reading %s: %s\n", cmd, name, *rest ? rest : olg_status_name(s));
  return cli_exit_status(s);
}

int cli_read_model(const char *cmd, const char *path, olg_model **out) {
  olg_status s = cli_load_model(path, out);
  return s ? cli_read_failed(cmd, path, s) : CLI_OK;
}

int cli_write_file(void *ud, const void *data, size_t n) {
  return fwrite(data, 1, n, (FILE *)ud) == n ? 0 : 1;
}

FILE *cli_open_output(const char *cmd, const char *path) {
  if (!path || strcmp(path, "-") == 0) return stdout;
  FILE *f = fopen(path, "wb");
  if (!f) fprintf(stderr, "onnxlegal: %s: opening %s: %s\n", cmd, path, strerror(errno));
  return f;
}

int cli_close_output(const char *cmd, const char *path, FILE *f) {
  int bad = ferror(f);
  int err = errno;
  if (f == stdout) bad |= fflush(f) != 0;
  else bad |= fclose(f) != 0;
  if (bad) {
    if (!err) err = errno;
    fprintf(stderr, "onnxlegal: %s: writing %s: %s\n", cmd,
            path && strcmp(path, "-") != 0 ? path : "standard output", strerror(err ? err : EIO));
    return CLI_USAGE;
  }
  return CLI_OK;
}

void cli_format_type(const olg_graph *g, olg_value v, char *buf, size_t cap) {
  size_t n = 0;
  int k;
#define PUT(...)                                                                            \
  do {                                                                                      \
    k = snprintf(buf + n, cap - n, __VA_ARGS__);                                            \
    if (k < 0 || (size_t)k >= cap - n) goto cut;                                            \
    n += (size_t)k;                                                                         \
  } while (0)
  olg_dtype dt = olg_value_dtype(g, v);
  if (dt == OLG_UNDEFINED) {
    PUT("?");
    return;
  }
  const char *name = olg_dtype_name(dt);
  PUT("%s", name ? name : "undefined");
  int32_t rank = olg_value_rank(g, v);
  if (rank < 0) {
    PUT("[*]");
    return;
  }
  PUT("[");
  for (int32_t i = 0; i < rank; i++) {
    int64_t d = OLG_DIM_UNKNOWN;
    const char *p = NULL;
    olg_value_dim(g, v, i, &d, &p);
    if (d >= 0) PUT("%s%lld", i ? "," : "", (long long)d);
    else if (p) PUT("%s%s", i ? "," : "", p);
    else PUT("%s?", i ? "," : "");
  }
  PUT("]");
  return;
cut:
  if (cap >= 4) memcpy(buf + cap - 4, "...", 4);
#undef PUT
}
