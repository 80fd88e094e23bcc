/* onnxlegal copy IN OUT: read a model and write it again, optionally moving large tensors to an
 * external data file. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char usage[] =
    "usage: onnxlegal copy IN OUT [--external-data FILE] [--threshold BYTES]\n"
    "\n"
    "Reads IN and writes it to OUT. Tensor data is streamed from the input's mapping, never\n"
    "held twice in memory. IN \"-\" reads standard input, OUT \"-\" writes standard output.\n"
    "\n"
    "  --external-data FILE  write tensors of at least BYTES bytes to FILE, a name relative to\n"
    "                        OUT's directory (no absolute path, no '..')\n"
    "  --threshold BYTES     the size from which a tensor goes to FILE (default 1024)\n";

/* "--name VALUE" or "--name=VALUE"; advances *i past VALUE. NULL when argv[*i] is not it. */
static const char *option_value(int argc, char **argv, int *i, const char *name, int *missing) {
  size_t n = strlen(name);
  const char *a = argv[*i];
  if (strncmp(a, name, n) != 0) return NULL;
  if (a[n] == '=') return a + n + 1;
  if (a[n] != 0) return NULL;
  if (*i + 1 >= argc) {
    *missing = 1;
    return NULL;
  }
  return argv[++*i];
}

int cli_copy(int argc, char **argv) {
  if (cli_wants_help(argc, argv)) {
    fputs(usage, stdout);
    return CLI_OK;
  }
  const char *in = NULL, *out = NULL, *external = NULL, *threshold_s = NULL;
  int only_operands = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i], *v;
    int missing = 0;
    if (!only_operands && (v = option_value(argc, argv, &i, "--external-data", &missing))) {
      external = v;
    } else if (!only_operands && (v = option_value(argc, argv, &i, "--threshold", &missing))) {
      threshold_s = v;
    } else if (missing) {
      return cli_usage_error("copy", "%s needs a value", a);
    } else if (!only_operands && strcmp(a, "--") == 0) {
      only_operands = 1;
    } else if (!only_operands && a[0] == '-' && a[1]) {
      return cli_usage_error("copy", "unknown option '%s'", a);
    } else if (!in) {
      in = a;
    } else if (!out) {
      out = a;
    } else {
      return cli_usage_error("copy", "too many arguments");
    }
  }
  if (!in || !out) return cli_usage_error("copy", "IN and OUT are required");
  olg_write_options opts = OLG_WRITE_OPTIONS_INIT;
  if (threshold_s) {
    char *end;
    errno = 0;
    unsigned long long t = strtoull(threshold_s, &end, 10);
    if (errno || end == threshold_s || *end || threshold_s[0] == '-')
      return cli_usage_error("copy", "--threshold takes a number of bytes, not '%s'", threshold_s);
    if (!external) return cli_usage_error("copy", "--threshold needs --external-data");
    opts.external_data_threshold = t;
  }
  opts.external_data = external;
  olg_model *m;
  int rc = cli_read_model("copy", in, &m);
  if (rc) return rc;
  olg_status s;
  if (strcmp(out, "-") == 0) {
    /* standard output: no directory for external data */
    if (external) {
      olg_model_free(m);
      return cli_usage_error("copy", "--external-data needs an OUT file, not standard output");
    }
    fflush(stdout);
    s = olg_model_write_fd(m, 1, &opts);
  } else {
    s = olg_model_write_file(m, out, &opts);
  }
  olg_model_free(m);
  if (s) {
    int rc = cli_fail("copy", s, "writing %s", strcmp(out, "-") ? out : "standard output");
    if (s == OLG_ERR_LIMIT && !external && strcmp(out, "-")) cli_hint_external_data("copy", "--external-data FILE");
    return rc;
  }
  return CLI_OK;
}
