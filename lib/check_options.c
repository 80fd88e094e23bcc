/* onnxlegal — check options on the heap, for bindings that cannot lay out a C struct (ctypes). */
#include <stdlib.h>

#include "onnxlegal/check.h"
#include "util.h"

OLG_API olg_status olg_check_options_new(olg_check_options **out) {
  if (!out) return olg__err(OLG_ERR_INVALID_ARG, "olg_check_options_new: out is NULL");
  olg_check_options *o = malloc(sizeof *o);
  if (!o) return olg__err(OLG_ERR_NOMEM, "olg_check_options_new: out of memory");
  *o = (olg_check_options)OLG_CHECK_OPTIONS_INIT;
  *out = o;
  return OLG_OK;
}

OLG_API void olg_check_options_free(olg_check_options *opts) { free(opts); }

OLG_API olg_status olg_check_options_set(olg_check_options *opts, int full, int allow_unlowered,
                                         size_t max_errors, int notes) {
  if (!opts) return olg__err(OLG_ERR_INVALID_ARG, "olg_check_options_set: options are NULL");
  opts->full = full != 0;
  opts->allow_unlowered = allow_unlowered != 0;
  opts->max_errors = max_errors;
  opts->notes = notes != 0;
  return OLG_OK;
}

OLG_API olg_status olg_check_options_set_strict(olg_check_options *opts, int strict) {
  if (!opts) return olg__err(OLG_ERR_INVALID_ARG, "olg_check_options_set_strict: options are NULL");
  opts->strict = strict != 0;
  return OLG_OK;
}
