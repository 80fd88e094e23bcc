/* onnxlegal convert IN OUT --opset N: bring a model to another opset of the default domain, up
 * or down (olg_legalize), saying node by node what became of it. */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static const char usage[] =
    "usage: onnxlegal convert IN OUT --opset N [--ir-version V] [--profile P]\n"
    "                         [--external-data[=FILE]] [--threshold BYTES]\n"
    "                         [--no-fold] [--fold-weights] [--no-decompose]\n"
    "                         [--keep-functions] [--report FILE.json]\n"
    "\n"
    "Converts the model IN to opset N (" CLI_OPSETS ") of the default ONNX domain, up or down, and writes\n"
    "it to OUT. Each node is kept, re-encoded (the same meaning in the target's encoding) or\n"
    "decomposed exactly into ops of the target opset; a node that cannot be expressed there is\n"
    "refused, and every refusal of the model is listed on standard error with its node, op,\n"
    "target opset and the lowest opset that works. '-' reads standard input / writes standard\n"
    "output.\n"
    "\n"
    "  --opset N               the target opset (required)\n"
    "  --ir-version V          the output's IR version (default: the one released with N)\n"
    "  --profile P             the target runtime's rules (docs/profiles.md): none (default),\n"
    "                          ort (ONNX Runtime 1.30 CPU), tensorrt, openvino; the report lists\n"
    "                          each rule that fired, on which node\n"
    "  --external-data[=FILE]  write tensors of at least BYTES bytes to FILE, relative to OUT's\n"
    "                          directory (default: OUT's name + '.data')\n"
    "  --external-data=reference\n"
    "                          IN's external data is not read: OUT refers to IN's data files\n"
    "                          (OUT must be in IN's directory or above its data files)\n"
    "  --threshold BYTES       the size from which a tensor goes to FILE (default 1024)\n"
    "  --no-fold               keep small constant shape computations as nodes\n"
    "  --fold-weights          fold each inference BatchNormalization into the Conv, Gemm or\n"
    "                          MatMul before it, merge byte-equal initializers\n"
    "  --no-decompose          refuse a node that needs a decomposition at N\n"
    "  --keep-functions        keep the model-local functions the main graph calls, their\n"
    "                          bodies converted (one copy per call signature: MLP, MLP__2);\n"
    "                          needs N >= 15 (IR 8): below, the calls are inlined, with a warning\n"
    "  --report FILE.json      what became of every node, and every refusal, as JSON (written\n"
    "                          whether or not the conversion succeeds; '-': standard output)\n"
    "\n"
    "Exit status: 0 converted, 1 the model is malformed or a node cannot be converted,\n"
    "2 usage or I/O error.\n";


static int parse_int(const char *s, long long lo, long long hi, long long *out) {
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (errno || end == s || *end || v < lo || v > hi) return 0;
  *out = v;
  return 1;
}

/* Standard input, read whole (the model borrows the bytes). NULL with the message printed. */
static unsigned char *read_stdin(size_t *n) {
  size_t cap = 1 << 16, len = 0;
  unsigned char *buf = malloc(cap);
  if (!buf) {
    fprintf(stderr, "onnxlegal: convert: reading standard input: out of memory\n");
    return NULL;
  }
  for (;;) {
    if (len == cap) {
      unsigned char *p = cap > SIZE_MAX / 2 ? NULL : realloc(buf, cap * 2);
      if (!p) {
        free(buf);
        fprintf(stderr, "onnxlegal: convert: reading standard input: out of memory\n");
        return NULL;
      }
      buf = p;
      cap *= 2;
    }
    size_t k = fread(buf + len, 1, cap - len, stdin);
    len += k;
    if (k == 0) break;
  }
  if (ferror(stdin)) {
    fprintf(stderr, "onnxlegal: convert: reading standard input: %s\n", strerror(errno ? errno : EIO));
    free(buf);
    return NULL;
  }
  *n = len;
  return buf;
}

static void json_string(FILE *f, const char *s) {
  fputc('"', f);
  for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
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

/* The ops after "as: " / "into: " of a report note, as a JSON array. */
static void json_ops(FILE *f, const char *msg) {
  const char *p = strstr(msg, ": ");
  fputc('[', f);
  if (p && strcmp(p + 2, "-") != 0) {
    p += 2;
    for (int first = 1; *p; first = 0) {
      const char *e = strstr(p, ", ");
      size_t n = e ? (size_t)(e - p) : strlen(p);
      char op[256];
      snprintf(op, sizeof op, "%.*s", (int)(n < sizeof op ? n : sizeof op - 1), p);
      if (!first) fputs(", ", f);
      json_string(f, op);
      p += n;
      if (e) p += 2;
    }
  }
  fputc(']', f);
}

static const char *result_name(const char *code) {
  if (strcmp(code, "OLG-LOWER-KEPT") == 0) return "kept";
  if (strcmp(code, "OLG-LOWER-REENCODED") == 0) return "re-encoded";
  if (strcmp(code, "OLG-LOWER-DECOMPOSED") == 0) return "decomposed";
  return NULL;
}

static int write_report(const char *path, const char *in, long long src_opset, long long opset,
                        int ok, const olg_diags *d) {
  FILE *f = cli_open_output("convert", path);
  if (!f) return CLI_USAGE;
  size_t n = olg_diags_count(d), counts[3] = {0, 0, 0};
  fputs("{\n  \"source\": ", f);
  json_string(f, in);
  fprintf(f, ",\n  \"source_opset\": %lld,\n  \"target_opset\": %lld,\n  \"ok\": %s,\n", src_opset,
          opset, ok ? "true" : "false");
  fputs("  \"nodes\": [", f);
  int first = 1;
  for (size_t i = 0; i < n; i++) {
    const char *r = result_name(olg_diag_code(d, i));
    if (olg_diag_severity(d, i) != OLG_NOTE || !r) continue;
    counts[r[0] == 'k' ? 0 : r[0] == 'r' ? 1 : 2]++;
    fputs(first ? "\n    {\"node\": " : ",\n    {\"node\": ", f);
    first = 0;
    json_string(f, olg_diag_node(d, i));
    fputs(", \"domain\": ", f);
    json_string(f, olg_diag_domain(d, i));
    fputs(", \"op\": ", f);
    json_string(f, olg_diag_op(d, i));
    fputs(", \"result\": ", f);
    json_string(f, r);
    fputs(", \"ops\": ", f);
    json_ops(f, olg_diag_message(d, i));
    fputc('}', f);
  }
  fputs(first ? "],\n" : "\n  ],\n", f);
  /* the profile rules that fired: notes OLG-PROFILE-FIXED "rule NAME: ...; fixed: ..." */
  fputs("  \"profile_rules\": [", f);
  first = 1;
  for (size_t i = 0; i < n; i++) {
    const char *code = olg_diag_code(d, i), *msg = olg_diag_message(d, i);
    int fixed = strcmp(code, "OLG-PROFILE-FIXED") == 0, refused = strcmp(code, "OLG-PROFILE-REFUSED") == 0;
    if (!fixed && !refused) continue;
    char rule[128] = "";
    if (strncmp(msg, "rule ", 5) == 0) sscanf(msg + 5, "%127[^: ]", rule);
    fputs(first ? "\n    {\"node\": " : ",\n    {\"node\": ", f);
    first = 0;
    json_string(f, olg_diag_node(d, i));
    fputs(", \"op\": ", f);
    json_string(f, olg_diag_op(d, i));
    fputs(", \"rule\": ", f);
    json_string(f, rule);
    fputs(", \"action\": ", f);
    json_string(f, fixed ? "fixed" : "refused");
    fputs(", \"message\": ", f);
    json_string(f, msg);
    fputc('}', f);
  }
  fputs(first ? "],\n" : "\n  ],\n", f);
  size_t refused = 0;
  for (int pass = 0; pass < 2; pass++) {
    fputs(pass ? "  \"warnings\": [" : "  \"refusals\": [", f);
    first = 1;
    for (size_t i = 0; i < n; i++) {
      int sev = olg_diag_severity(d, i);
      if (sev != (pass ? OLG_WARNING : OLG_ERROR)) continue;
      refused += !pass;
      fputs(first ? "\n    {\"node\": " : ",\n    {\"node\": ", f);
      first = 0;
      json_string(f, olg_diag_node(d, i));
      fputs(", \"domain\": ", f);
      json_string(f, olg_diag_domain(d, i));
      fputs(", \"op\": ", f);
      json_string(f, olg_diag_op(d, i));
      fprintf(f, ", \"target_opset\": %lld", (long long)olg_diag_opset(d, i));
      if (olg_diag_min_opset(d, i) > 0)
        fprintf(f, ", \"lowest_opset\": %lld", (long long)olg_diag_min_opset(d, i));
      else
        fputs(", \"lowest_opset\": null", f);
      fputs(", \"code\": ", f);
      json_string(f, olg_diag_code(d, i));
      fputs(", \"message\": ", f);
      json_string(f, olg_diag_message(d, i));
      fputc('}', f);
    }
    fputs(first ? "],\n" : "\n  ],\n", f);
  }
  fprintf(f, "  \"counts\": {\"kept\": %zu, \"re-encoded\": %zu, \"decomposed\": %zu, \"refused\": %zu}\n}\n",
          counts[0], counts[1], counts[2], refused);
  return cli_close_output("convert", path, f);
}

/* Every error and warning on standard error, one a line, with the lowest opset that works. */
static void print_diags(const olg_diags *d) {
  size_t n = olg_diags_count(d);
  for (size_t i = 0; i < n; i++) {
    int sev = olg_diag_severity(d, i);
    if (sev == OLG_NOTE) continue;
    char msg[4096]; /* the library's one rendering, on one line */
    olg_diag_format(d, i, msg, sizeof msg);
    for (char *p = msg; *p; p++)
      if (*p == '\n' || *p == '\r') *p = ' ';
    fprintf(stderr, "onnxlegal: convert: %s", msg);
    /* a defect of the model (OLG-LOWER-GRAPH) is no matter of opsets */
    if (sev == OLG_ERROR && olg_diag_min_opset(d, i) <= 0 &&
        strncmp(olg_diag_code(d, i), "OLG-PROFILE-", 12) != 0 &&
        strcmp(olg_diag_code(d, i), "OLG-LOWER-GRAPH") != 0)
      fputs(" [no opset from " CLI_OPSETS_TO " works]", stderr);
    fputc('\n', stderr);
  }
  if (olg_diags_lost(d))
    fprintf(stderr, "onnxlegal: convert: %zu diagnostics lost for want of memory\n", olg_diags_lost(d));
}

/* A progress line for long work, only on a terminal; done clears it. */
static int progress_on;
static void progress(const char *what, size_t nodes, long long opset) {
  if (!progress_on) return;
  if (what) fprintf(stderr, "\r\033[Konnxlegal: convert: %s %zu nodes (opset %lld)...", what, nodes, opset);
  else fputs("\r\033[K", stderr);
  fflush(stderr);
}

int cli_convert(int argc, char **argv) {
  if (cli_wants_help(argc, argv)) {
    fputs(usage, stdout);
    return CLI_OK;
  }
  const char *in = NULL, *out = NULL, *profile = NULL, *report = NULL, *external = NULL;
  const char *opset_s = NULL, *ir_s = NULL, *threshold_s = NULL;
  int want_external = 0, no_fold = 0, fold_weights = 0, keep_functions = 0, no_decompose = 0, only_operands = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    const char **slot = NULL;
    const char *name = NULL;
    if (!only_operands && a[0] == '-' && a[1] == '-' && a[2]) {
      static const char *const valued[] = {"--opset", "--ir-version", "--profile", "--report",
                                           "--threshold", NULL};
      const char **slots[] = {&opset_s, &ir_s, &profile, &report, &threshold_s};
      for (int k = 0; valued[k] && !slot; k++) {
        size_t n = strlen(valued[k]);
        if (strncmp(a, valued[k], n) == 0 && (a[n] == 0 || a[n] == '=')) {
          slot = slots[k];
          name = valued[k];
          if (a[n] == '=') *slot = a + n + 1;
          else if (i + 1 < argc) *slot = argv[++i];
          else return cli_usage_error("convert", "%s needs a value", name);
        }
      }
      if (slot) continue;
      if (strcmp(a, "--external-data") == 0) want_external = 1;
      else if (strncmp(a, "--external-data=", 16) == 0) want_external = 1, external = a + 16;
      else if (strcmp(a, "--no-fold") == 0) no_fold = 1;
      else if (strcmp(a, "--fold-weights") == 0) fold_weights = 1;
      else if (strcmp(a, "--keep-functions") == 0) keep_functions = 1;
      else if (strcmp(a, "--no-decompose") == 0) no_decompose = 1;
      else return cli_usage_error("convert", "unknown option '%s'", a);
    } else if (!only_operands && strcmp(a, "--") == 0) {
      only_operands = 1;
    } else if (!only_operands && a[0] == '-' && a[1]) {
      return cli_usage_error("convert", "unknown option '%s'", a);
    } else if (!in) {
      in = a;
    } else if (!out) {
      out = a;
    } else {
      return cli_usage_error("convert", "too many arguments");
    }
  }
  if (!in || !out) return cli_usage_error("convert", "IN and OUT are required");
  if (!opset_s) return cli_usage_error("convert", "--opset N is required");
  long long opset, ir = 0, threshold = 1024;
  if (!parse_int(opset_s, OLG_LOWER_OPSET_MIN, OLG_LOWER_OPSET_MAX, &opset))
    return cli_usage_error("convert", "--opset takes an opset from %d to %d, not '%s'",
                           OLG_LOWER_OPSET_MIN, OLG_LOWER_OPSET_MAX, opset_s);
  if (ir_s && !parse_int(ir_s, 3, 1000, &ir))
    return cli_usage_error("convert", "--ir-version takes an IR version >= 3, not '%s'", ir_s);
  if (threshold_s && !parse_int(threshold_s, 0, LLONG_MAX, &threshold))
    return cli_usage_error("convert", "--threshold takes a number of bytes, not '%s'", threshold_s);
  int by_reference = want_external && external && strcmp(external, "reference") == 0;
  if (by_reference) {
    want_external = 0;
    external = NULL;
    if (threshold_s) return cli_usage_error("convert", "--threshold does not apply to --external-data=reference");
    if (strcmp(in, "-") == 0 || strcmp(out, "-") == 0)
      return cli_usage_error("convert", "--external-data=reference needs IN and OUT to be files");
  }
  if (threshold_s && !want_external) return cli_usage_error("convert", "--threshold needs --external-data");
  if (profile) {
    if (strcmp(profile, "none") == 0) {
      profile = NULL;
    } else if (!olg_profile_builtin(profile)) {
      fprintf(stderr, "onnxlegal: convert: unknown profile '%s'; the known profiles are: none", profile);
      for (size_t k = 0; olg_profile_builtin_name(k); k++) fprintf(stderr, ", %s", olg_profile_builtin_name(k));
      fputc('\n', stderr);
      return CLI_USAGE;
    }
  }
  int out_is_stdout = strcmp(out, "-") == 0;
  if (want_external && out_is_stdout)
    return cli_usage_error("convert", "--external-data needs OUT to be a file, not standard output");
  if (report && strcmp(report, "-") == 0 && out_is_stdout)
    return cli_usage_error("convert", "the model and the report cannot both go to standard output");
  char external_buf[4096];
  if (want_external && !external) { /* OUT's own name + ".data", beside it */
    const char *base = strrchr(out, '/');
    base = base ? base + 1 : out;
    if (!*base) return cli_usage_error("convert", "OUT '%s' names no file", out);
    snprintf(external_buf, sizeof external_buf, "%s.data", base);
    external = external_buf;
  }

  /* read */
  olg_model *src = NULL;
  unsigned char *bytes = NULL;
  if (strcmp(in, "-") == 0) {
    size_t n;
    if (!(bytes = read_stdin(&n))) return CLI_USAGE;
    olg_status s = olg_model_read_memory(&src, bytes, n, NULL);
    if (s) {
      free(bytes);
      return cli_fail("convert", s, "reading standard input");
    }
  } else if (by_reference) { /* the references kept as read: no weight byte is touched */
    olg_read_options ro = OLG_READ_OPTIONS_INIT;
    ro.load_external_data = 0;
    olg_status s = olg_model_read_file(&src, in, &ro);
    if (s) return cli_read_failed("convert", in, s);
  } else {
    int rc = cli_read_model("convert", in, &src);
    if (rc) return rc;
  }
  const olg_graph *sg = olg_model_graph_const(src);
  size_t n_nodes = olg_graph_node_count(sg);
  long long src_opset = (long long)olg_model_opset(src, "");
  progress_on = isatty(2) && n_nodes >= 50000;

  /* convert */
  int rc = CLI_OK;
  olg_registry *reg = NULL;
  olg_diags *d = NULL;
  olg_model *dst = NULL;
  olg_status s = olg_registry_new_builtin(&reg, NULL);
  if (!s) s = olg_registry_freeze(reg);
  if (!s) s = olg_diags_new(&d, NULL);
  if (s) {
    rc = cli_fail("convert", s, "setting up");
    goto done;
  }
  olg_legalize_options o = OLG_LEGALIZE_OPTIONS_INIT;
  o.opset = opset;
  o.ir_version = ir;
  o.no_constant_folding = no_fold;
  o.fold_weights = fold_weights;
  o.keep_functions = keep_functions;
  o.no_decompositions = no_decompose;
  o.profile = profile;
  o.report = report != NULL;
  progress("converting", n_nodes, opset);
  /* src is only read to be converted: the call takes it, and gives back what it is done with
     as it goes (a large graph's peak memory); dst keeps what it borrows */
  s = olg_legalize_consume(src, reg, &o, &dst, d);
  src = NULL;
  progress(NULL, 0, 0);
  print_diags(d);
  if (report) {
    int r = write_report(report, in, src_opset, opset, s == OLG_OK, d);
    if (r && !s) rc = r;
  }
  if (s) {
    size_t errors = olg_diags_error_count(d);
    if (s == OLG_ERR_INVALID_MODEL && errors) {
      fprintf(stderr, "onnxlegal: convert: %s is invalid: %zu error%s\n",
              strcmp(in, "-") == 0 ? "standard input" : in, errors, errors == 1 ? "" : "s");
      rc = CLI_BAD_MODEL;
    } else if (s == OLG_ERR_UNSUPPORTED || s == OLG_ERR_INVALID_MODEL || s == OLG_ERR_TYPE) {
      fprintf(stderr, "onnxlegal: convert: %s cannot be converted to opset %lld: %zu error%s\n",
              strcmp(in, "-") == 0 ? "standard input" : in, opset, errors, errors == 1 ? "" : "s");
      rc = CLI_BAD_MODEL;
    } else {
      rc = cli_fail("convert", s, "converting to opset %lld", opset);
    }
    goto done;
  }
  if (rc) goto done;

  if (by_reference) {
    char in_dir[4096], out_dir[4096];
    const char *si = strrchr(in, '/'), *so = strrchr(out, '/');
    snprintf(in_dir, sizeof in_dir, "%.*s", si ? (int)(si == in ? 1 : si - in) : 1, si ? in : ".");
    snprintf(out_dir, sizeof out_dir, "%.*s", so ? (int)(so == out ? 1 : so - out) : 1, so ? out : ".");
    if ((s = olg_model_rebase_external_data(dst, in_dir, out_dir))) {
      rc = cli_fail("convert", s, "referring to %s's external data from %s", in, out);
      goto done;
    }
  }

  /* write */
  olg_write_options w = OLG_WRITE_OPTIONS_INIT;
  w.external_data = want_external ? external : NULL;
  w.external_data_threshold = (uint64_t)threshold;
  progress("writing", olg_graph_node_count(olg_model_graph_const(dst)), opset);
  if (out_is_stdout) {
    s = olg_model_write_callback(dst, cli_write_file, stdout, &w);
    progress(NULL, 0, 0);
    if (s) rc = cli_fail("convert", s, "writing standard output");
    else rc = cli_close_output("convert", out, stdout);
  } else {
    s = olg_model_write_file(dst, out, &w);
    progress(NULL, 0, 0);
    if (s) rc = cli_fail("convert", s, "writing %s", out);
    if (s == OLG_ERR_LIMIT && !want_external) cli_hint_external_data("convert", "--external-data");
  }
done:
  olg_model_free(dst); /* before src (when the conversion did not take it): it borrows src's tensors */
  olg_diags_free(d);
  olg_registry_free(reg);
  olg_model_free(src);
  free(bytes);
  return rc;
}
