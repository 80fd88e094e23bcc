/* onnxlegal — write options on the heap, for bindings that cannot lay out a C struct. */
#include <stdlib.h>
#include <string.h>

#include "onnxlegal/io.h"
#include "util.h"

/* The options come first, so the public pointer is the block's own address; the strings the
 * options point at are owned here. */
typedef struct heap_write_options {
  olg_write_options opts;
  char *external_data;
  char *external_data_dir;
} heap_write_options;

OLG_API olg_status olg_write_options_new(olg_write_options **out) {
  if (!out) return olg__err(OLG_ERR_INVALID_ARG, "olg_write_options_new: out is NULL");
  heap_write_options *h = calloc(1, sizeof *h);
  if (!h) return olg__err(OLG_ERR_NOMEM, "olg_write_options_new: out of memory");
  h->opts = (olg_write_options)OLG_WRITE_OPTIONS_INIT;
  *out = &h->opts;
  return OLG_OK;
}

OLG_API void olg_write_options_free(olg_write_options *opts) {
  if (!opts) return;
  heap_write_options *h = (heap_write_options *)opts;
  free(h->external_data);
  free(h->external_data_dir);
  free(h);
}

/* Replaces *slot with a copy of s (NULL clears it). */
static olg_status set_copy(char **slot, const char *s, const char *what) {
  char *p = NULL;
  if (s) {
    size_t n = strlen(s) + 1;
    p = malloc(n);
    if (!p) return olg__err(OLG_ERR_NOMEM, "%s: out of memory", what);
    memcpy(p, s, n);
  }
  free(*slot);
  *slot = p;
  return OLG_OK;
}

OLG_API olg_status olg_write_options_set_external_data(olg_write_options *opts, const char *file,
                                                       uint64_t threshold) {
  if (!opts) return olg__err(OLG_ERR_INVALID_ARG, "olg_write_options_set_external_data: options are NULL");
  heap_write_options *h = (heap_write_options *)opts;
  olg_status s = set_copy(&h->external_data, file, "olg_write_options_set_external_data");
  if (s) return s;
  h->opts.external_data = h->external_data;
  h->opts.external_data_threshold = threshold;
  return OLG_OK;
}

OLG_API olg_status olg_write_options_set_external_data_dir(olg_write_options *opts,
                                                           const char *dir) {
  if (!opts) return olg__err(OLG_ERR_INVALID_ARG, "olg_write_options_set_external_data_dir: options are NULL");
  heap_write_options *h = (heap_write_options *)opts;
  olg_status s = set_copy(&h->external_data_dir, dir, "olg_write_options_set_external_data_dir");
  if (s) return s;
  h->opts.external_data_dir = h->external_data_dir;
  return OLG_OK;
}
