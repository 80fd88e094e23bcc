/* libFuzzer target: the whole pipeline on any bytes.
 *
 * read -> olg_check (full, with inference) -> print (text) -> print (DOT) -> legalize at a low
 * (7 or 9), a middle (13) and a high (21) opset -> each result: olg_check at its target opset,
 * write -> read back -> write again (same bytes).
 *
 * The last byte chooses the low opset and the legalize options (tensorrt or ort profile, no folding,
 * no decompositions, initializers as inputs), so that one corpus reaches every option. Every
 * call must return a known status; a model legalize returns must write and read back. With
 * OLG_FUZZ_STRICT=1 in the environment (make fuzz and fuzz-replay set it), a legalized model that
 * olg_check rejects at its own target opset aborts too (the "every legalize output passes olg_check"). */
#include "fuzz_common.h"

static int strict = -1;

static void legalize_at(const olg_model *m, int64_t opset, uint8_t flags) {
  olg_legalize_options o = OLG_LEGALIZE_OPTIONS_INIT;
  o.opset = opset;
  o.profile = flags & 1 ? (flags & 32 ? "ort" : "tensorrt") : NULL;
  o.no_constant_folding = !!(flags & 2);
  o.no_decompositions = !!(flags & 4);
  o.keep_initializers_as_inputs = !!(flags & 8);
  olg_diags *d;
  if (olg_diags_new(&d, NULL) != OLG_OK) FZ_DIE("olg_diags_new");
  olg_model *out = NULL;
  olg_status s = olg_legalize(m, fz_registry(), &o, &out, d);
  fz_status_known(s, "olg_legalize");
  if (s != OLG_OK && out) FZ_DIE("olg_legalize failed (%d) but gave a model", s);
  if (s == OLG_OK) {
    if (!out) FZ_DIE("olg_legalize returned OLG_OK without a model");
    if (olg_model_opset(out, "") != opset)
      FZ_DIE("legalize to %lld gave opset %lld", (long long)opset,
             (long long)olg_model_opset(out, ""));
    olg_check_options co = OLG_CHECK_OPTIONS_INIT;
    co.full = 1;
    co.max_errors = 4;
    olg_diags_clear(d);
    olg_status c = olg_check(out, &co, d);
    fz_status_known(c, "olg_check of a legalized model");
    /* an output whose rank no one can know (Squeeze with run-time axes, SequenceAt of a
     * sequence of mixed ranks) is valid ONNX; olg_check's rule that main-graph outputs carry a
     * shape is stricter than legalize can honour, so it alone does not count here */
    size_t n_hard = 0;
    for (size_t i = 0; i < olg_diags_count(d); i++)
      n_hard += olg_diag_severity(d, i) == OLG_ERROR &&
                !(strcmp(olg_diag_code(d, i), "OLG-CHECK-GRAPH-IO-TYPE") == 0 &&
                  strstr(olg_diag_message(d, i), "has no shape"));
    if (strict && c == OLG_ERR_INVALID_MODEL && n_hard) {
      for (size_t i = 0; i < olg_diags_count(d); i++)
        fprintf(stderr, "  %s %s (%s): %s\n", olg_diag_code(d, i), olg_diag_op(d, i),
                olg_diag_node(d, i), olg_diag_message(d, i));
      FZ_DIE("legalize to opset %lld gave a model olg_check rejects", (long long)opset);
    }
    fz_write_read_back(out, "legalized model");
    olg_model_free(out);
  }
  olg_diags_free(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (strict < 0) {
    const char *e = getenv("OLG_FUZZ_STRICT");
    strict = e && *e == '1';
  }
  if (size > (1u << 20)) return 0;
  uint8_t flags = size ? data[size - 1] : 0;
  olg_read_options ro = OLG_READ_OPTIONS_INIT;
  ro.load_external_data = 0; /* no directory: the extdata target covers loading */
  olg_model *m;
  olg_status s = olg_model_read_memory(&m, data, size, &ro);
  fz_status_known(s, "olg_model_read_memory");
  if (s != OLG_OK) return 0;

  olg_diags *d;
  if (olg_diags_new(&d, NULL) != OLG_OK) FZ_DIE("olg_diags_new");
  olg_check_options co = OLG_CHECK_OPTIONS_INIT;
  co.full = 1;
  fz_status_known(olg_check(m, &co, d), "olg_check full");
  olg_diags_free(d);
  fz_status_known(olg_model_print_text(m, fz_discard, NULL), "olg_model_print_text");
  fz_status_known(olg_model_print_dot(m, fz_discard, NULL), "olg_model_print_dot");

  legalize_at(m, flags & 16 ? 9 : 7, flags);
  legalize_at(m, 13, flags);
  legalize_at(m, 21, flags);
  olg_model_free(m);
  return 0;
}
