/* onnxlegal — the legalize options: their defaults and the options on the heap, for bindings
 * that cannot lay out a C struct. */
#include <stdlib.h>
#include <string.h>

#include "onnxlegal/legalize.h"
#include "util.h"

OLG_API void olg_legalize_options_init(olg_legalize_options *o) {
  if (o) *o = (olg_legalize_options)OLG_LEGALIZE_OPTIONS_INIT;
}

/* The options come first, so the public pointer is the block's own address; the profile string
 * the options point at is owned here. */
typedef struct heap_legalize_options {
  olg_legalize_options opts;
  char *profile;
} heap_legalize_options;

OLG_API olg_status olg_legalize_options_new(olg_legalize_options **out) {
  if (!out) return olg__err(OLG_ERR_INVALID_ARG, "olg_legalize_options_new: out is NULL");
  heap_legalize_options *h = calloc(1, sizeof *h);
  if (!h) return olg__err(OLG_ERR_NOMEM, "olg_legalize_options_new: out of memory");
  h->opts = (olg_legalize_options)OLG_LEGALIZE_OPTIONS_INIT;
  *out = &h->opts;
  return OLG_OK;
}

OLG_API void olg_legalize_options_free(olg_legalize_options *opts) {
  if (!opts) return;
  heap_legalize_options *h = (heap_legalize_options *)opts;
  free(h->profile);
  free(h);
}

OLG_API olg_status olg_legalize_options_set_opset(olg_legalize_options *opts, int64_t opset) {
  if (!opts) return olg__err(OLG_ERR_INVALID_ARG, "olg_legalize_options_set_opset: options are NULL");
  if (opset && (opset < OLG_LOWER_OPSET_MIN || opset > OLG_LOWER_OPSET_MAX))
    return olg__err(OLG_ERR_RANGE, "olg_legalize_options_set_opset: %lld is outside %d..%d",
                    (long long)opset, OLG_LOWER_OPSET_MIN, OLG_LOWER_OPSET_MAX);
  opts->opset = opset;
  return OLG_OK;
}

OLG_API olg_status olg_legalize_options_set_ir_version(olg_legalize_options *opts,
                                                       int64_t ir_version) {
  if (!opts) return olg__err(OLG_ERR_INVALID_ARG, "olg_legalize_options_set_ir_version: options are NULL");
  if (ir_version < 0) return olg__err(OLG_ERR_RANGE, "olg_legalize_options_set_ir_version: %lld", (long long)ir_version);
  opts->ir_version = ir_version;
  return OLG_OK;
}

OLG_API olg_status olg_legalize_options_set_flags(olg_legalize_options *opts,
                                                  int keep_initializers_as_inputs,
                                                  int constant_folding, int decompositions) {
  if (!opts) return olg__err(OLG_ERR_INVALID_ARG, "olg_legalize_options_set_flags: options are NULL");
  opts->keep_initializers_as_inputs = keep_initializers_as_inputs != 0;
  opts->no_constant_folding = !constant_folding;
  opts->no_decompositions = !decompositions;
  return OLG_OK;
}

OLG_API olg_status olg_legalize_options_set_fold_weights(olg_legalize_options *opts,
                                                         int fold_weights) {
  if (!opts) return olg__err(OLG_ERR_INVALID_ARG, "olg_legalize_options_set_fold_weights: options are NULL");
  opts->fold_weights = fold_weights != 0;
  return OLG_OK;
}

OLG_API olg_status olg_legalize_options_set_keep_functions(olg_legalize_options *opts,
                                                           int keep_functions) {
  if (!opts) return olg__err(OLG_ERR_INVALID_ARG, "olg_legalize_options_set_keep_functions: options are NULL");
  opts->keep_functions = keep_functions != 0;
  return OLG_OK;
}

OLG_API olg_status olg_legalize_options_set_report(olg_legalize_options *opts, int report) {
  if (!opts) return olg__err(OLG_ERR_INVALID_ARG, "olg_legalize_options_set_report: options are NULL");
  opts->report = report != 0;
  return OLG_OK;
}

OLG_API olg_status olg_legalize_options_set_profile(olg_legalize_options *opts,
                                                    const char *profile) {
  if (!opts) return olg__err(OLG_ERR_INVALID_ARG, "olg_legalize_options_set_profile: options are NULL");
  heap_legalize_options *h = (heap_legalize_options *)opts;
  char *p = NULL;
  if (profile && *profile) {
    size_t n = strlen(profile) + 1;
    if (!(p = malloc(n))) return olg__err(OLG_ERR_NOMEM, "olg_legalize_options_set_profile: out of memory");
    memcpy(p, profile, n);
  }
  free(h->profile);
  h->profile = p;
  opts->profile = p;
  return OLG_OK;
}
