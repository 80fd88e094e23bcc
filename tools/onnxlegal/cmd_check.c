/* onnxlegal check MODEL: is the model legal ONNX at its opsets? */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char usage[] =
    "usage: onnxlegal check MODEL [--json] [--fast] [--allow-unlowered] [--max-errors N]\n"
    "                             [--no-notes] [--strict] [--profile P]\n"
    "\n"
    "Validates the model against the ONNX rules and the schemas of the opsets it imports: IR\n"
    "version, names defined once and before use, ops known at their opset, arity, attributes\n"
    "and their value ranges, type constraints, typed graph inputs and outputs, initializers,\n"
    "subgraphs; then runs shape and type inference and reports what contradicts it (a declared\n"
    "shape, an axis out of range, a bad permutation).\n"
    "\n"
    "  --json             the diagnostics as a JSON array of\n"
    "                     {severity, code, node, op, domain, opset, message}\n"
    "  --fast             the schema checks only, without inference (misses what only\n"
    "                     shapes reveal)\n"
    "  --full             the default (kept for compatibility)\n"
    "  --allow-unlowered  source-framework nodes (not yet legalized) are warnings, not errors\n"
    "  --max-errors N     stop after N errors\n"
    "  --no-notes         leave out notes (ops without schema or inference rule)\n"
    "  --strict           errors, not warnings, for what runtimes accept but the spec does\n"
    "                     not: an ir_version older than the opset's (OLG-CHECK-IR-OLD), a\n"
    "                     negative axis below the opset that allows it\n"
    "                     (OLG-CHECK-AXIS-NEGATIVE); 'onnxlegal convert' fixes both\n"
    "  --profile P        also check the rules of target runtime P (docs/profiles.md: ort,\n"
    "                     tensorrt, ...): every violation an error OLG-PROFILE-VIOLATION\n"
    "                     naming the node, the rule and what would fix it\n"
    "\n"
    "Exit status: 0 valid, 1 invalid (diagnostics on standard output), 2 usage or I/O error.\n";

static const char *sev_name(int s) {
  return s == OLG_ERROR ? "error" : s == OLG_WARNING ? "warning" : "note";
}

static void json_string(FILE *f, const char *s) {
  fputc('"', f);
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    switch (*p) {
    case '"': fputs("\\\"", f); break;
    case '\\': fputs("\\\\", f); break;
    case '\n': fputs("\\n", f); break;
    case '\r': fputs("\\r", f); break;
    case '\t': fputs("\\t", f); break;
    default:
      if (*p < 0x20) fprintf(f, "\\u%04x", *p);
      else fputc(*p, f);
    }
  }
  fputc('"', f);
}

static void print_json_one(FILE *f, int first, const char *sev, const char *code,
                           const char *node, const char *op, const char *domain, long long opset,
                           const char *msg, long long node_index, const char *output) {
  fputs(first ? "\n  {" : ",\n  {", f);
  fputs("\"severity\": ", f);
  json_string(f, sev);
  fputs(", \"code\": ", f);
  json_string(f, code);
  fputs(", \"node\": ", f);
  json_string(f, node);
  fputs(", \"op\": ", f);
  json_string(f, op);
  fputs(", \"domain\": ", f);
  json_string(f, domain);
  if (opset >= 0) fprintf(f, ", \"opset\": %lld", opset);
  else fputs(", \"opset\": null", f);
  fputs(", \"message\": ", f);
  json_string(f, msg);
  if (node_index >= 0) fprintf(f, ", \"node_index\": %lld", node_index);
  else fputs(", \"node_index\": null", f);
  fputs(", \"output\": ", f);
  json_string(f, output);
  fputc('}', f);
}

static void print_diags(const olg_diags *d, int json) {
  size_t n = olg_diags_count(d);
  if (json) {
    fputc('[', stdout);
    for (size_t i = 0; i < n; i++)
      print_json_one(stdout, i == 0, sev_name(olg_diag_severity(d, i)), olg_diag_code(d, i),
                     olg_diag_node(d, i), olg_diag_op(d, i), olg_diag_domain(d, i),
                     (long long)olg_diag_opset(d, i), olg_diag_message(d, i),
                     (long long)olg_diag_node_index(d, i), olg_diag_output(d, i));
    fputs(n ? "\n]\n" : "]\n", stdout);
    return;
  }
  for (size_t i = 0; i < n; i++) { /* the library's one rendering */
    char line[4096];
    olg_diag_format(d, i, line, sizeof line);
    printf("%s\n", line);
  }
}

int cli_check(int argc, char **argv) {
  if (cli_wants_help(argc, argv)) {
    fputs(usage, stdout);
    return CLI_OK;
  }
  const char *path = NULL, *profile = NULL;
  int json = 0;
  olg_check_options opts = OLG_CHECK_OPTIONS_INIT;
  opts.full = 1; /* inference finds what the schemas alone cannot: the default */
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "--json") == 0) json = 1;
    else if (strcmp(a, "--full") == 0) opts.full = 1;
    else if (strcmp(a, "--fast") == 0) opts.full = 0;
    else if (strcmp(a, "--allow-unlowered") == 0) opts.allow_unlowered = 1;
    else if (strcmp(a, "--no-notes") == 0) opts.notes = 0;
    else if (strcmp(a, "--strict") == 0) opts.strict = 1;
    else if (strcmp(a, "--profile") == 0 || strncmp(a, "--profile=", 10) == 0) {
      if (a[9] == '=') profile = a + 10;
      else if (i + 1 < argc) profile = argv[++i];
      else return cli_usage_error("check", "--profile needs a profile name");
      if (!olg_profile_builtin(profile)) {
        fprintf(stderr, "onnxlegal: check: unknown profile '%s'; the known profiles are:", profile);
        for (size_t k = 0; olg_profile_builtin_name(k); k++)
          fprintf(stderr, "%s %s", k ? "," : "", olg_profile_builtin_name(k));
        fputc('\n', stderr);
        return CLI_USAGE;
      }
    }
    else if (strcmp(a, "--max-errors") == 0) {
      if (i + 1 >= argc) return cli_usage_error("check", "--max-errors needs a number");
      char *end;
      long long v = strtoll(argv[++i], &end, 10);
      if (*end || v < 0) return cli_usage_error("check", "--max-errors takes a count >= 0, not '%s'", argv[i]);
      opts.max_errors = (size_t)v;
    } else if (a[0] == '-' && a[1]) {
      return cli_usage_error("check", "unknown option '%s'", a);
    } else if (!path) {
      path = a;
    } else {
      return cli_usage_error("check", "one model at a time ('%s' and '%s')", path, a);
    }
  }
  if (!path) return cli_usage_error("check", "no model given");
  olg_model *m = NULL;
  olg_status s = cli_load_model(path, &m);
  if (s == OLG_ERR_PARSE || s == OLG_ERR_LIMIT) {
    /* a malformed file is an invalid model: say so in the requested format, once, with a hint */
    char msg[2048], lead[1100];
    const char *err = olg_last_error();
    snprintf(lead, sizeof lead, "reading '%s': ", path);
    if (strncmp(err, lead, strlen(lead)) == 0) err += strlen(lead);
    snprintf(msg, sizeof msg, "reading %s: %s", strcmp(path, "-") ? path : "standard input", err);
    if (json) {
      fputc('[', stdout);
      print_json_one(stdout, 1, "error", "OLG-CHECK-PARSE", "", "", "", -1, msg, -1, "");
      fputs("\n]\n", stdout);
    } else {
      printf("error OLG-CHECK-PARSE: %s\n", msg);
    }
    return CLI_BAD_MODEL;
  }
  if (s) return cli_read_failed("check", path, s);
  olg_diags *d = NULL;
  if ((s = olg_diags_new(&d, NULL))) {
    olg_model_free(m);
    return cli_fail("check", s, "creating the diagnostics list");
  }
  s = olg_check(m, &opts, d);
  if (profile && (!s || s == OLG_ERR_INVALID_MODEL)) {
    /* the runtime's rules, on the model as olg_check found it (types inferred) */
    olg_status ps = olg_profile_check(m, olg_profile_builtin(profile), d);
    if (ps && ps != OLG_ERR_INVALID_MODEL) s = ps;
    else if (ps) s = ps;
  }
  if (s && s != OLG_ERR_INVALID_MODEL) {
    int rc = cli_fail("check", s, "checking %s", path);
    olg_diags_free(d);
    olg_model_free(m);
    return rc == CLI_BAD_MODEL ? CLI_USAGE : rc;
  }
  print_diags(d, json);
  if (!json) {
    size_t errors = olg_diags_error_count(d), n = olg_diags_count(d);
    if (s) printf("%s: invalid (%zu error%s)\n", path, errors, errors == 1 ? "" : "s");
    else printf("%s: valid%s\n", path, n ? " (see the warnings and notes above)" : "");
  }
  if (olg_diags_lost(d)) fprintf(stderr, "onnxlegal: check: %zu diagnostics lost for want of memory\n", olg_diags_lost(d));
  int rc = fflush(stdout) ? CLI_USAGE : s ? CLI_BAD_MODEL : CLI_OK;
  olg_diags_free(d);
  olg_model_free(m);
  return rc;
}
