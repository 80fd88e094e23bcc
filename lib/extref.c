/* onnxlegal — external-data references kept as they were read (olg_read_options
 * load_external_data = 0), rebased for a model written elsewhere: the weights are then never
 * read nor copied, the written model refers to the source's data file (issue 23, slice d). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ir.h"

static bool unloaded_ref(const olg_tensor *t) {
  return t && t->encoding == OLG_ENC_EXTERNAL && !t->external_loaded && !t->data;
}

static int location_kv(const olg_tensor *t) {
  for (size_t i = 0; i < t->n_external; i++)
    if (t->external[i].key && strcmp(t->external[i].key, "location") == 0) return (int)i;
  return -1;
}

/* The location of `file` (an absolute, resolved path) relative to the resolved directory `dir`,
 * without "..": NULL when the file is not beneath dir. */
static const char *beneath(const char *dir, const char *file) {
  size_t n = strlen(dir);
  if (n == 1 && dir[0] == '/') return file + 1;
  if (strncmp(dir, file, n) != 0 || file[n] != '/') return NULL;
  return file + n + 1;
}

OLG_API olg_status olg_model_rebase_external_data(olg_model *m, const char *from_dir,
                                                  const char *to_dir) {
  if (!m || !from_dir || !to_dir)
    return olg__err(OLG_ERR_INVALID_ARG, "olg_model_rebase_external_data: model, from_dir and to_dir are required");
  char from[PATH_MAX], to[PATH_MAX];
  if (!realpath(from_dir, from)) return olg__err(OLG_ERR_IO, "cannot resolve the directory '%s'", from_dir);
  if (!realpath(to_dir, to)) return olg__err(OLG_ERR_IO, "cannot resolve the directory '%s'", to_dir);
  /* two passes: every reference is checked before any changes, so a refusal changes nothing */
  for (int pass = 0; pass < 2; pass++) {
    for (uint32_t gi = 0; gi < m->n_graphs; gi++) {
      olg_graph *g = m->graphs[gi];
      for (uint32_t i = 0; i < g->n_inits; i++) {
        olg_tensor *t = g->inits[i].t;
        if (!unloaded_ref(t)) continue;
        int k = location_kv(t);
        if (k < 0)
          return olg__err(OLG_ERR_INVALID_MODEL, "initializer '%s' refers to external data without a location",
                          t->name ? t->name : "");
        char joined[PATH_MAX], file[PATH_MAX];
        if (snprintf(joined, sizeof joined, "%s/%s", from, t->external[k].value) >= (int)sizeof joined ||
            !realpath(joined, file))
          return olg__err(OLG_ERR_IO, "initializer '%s': its data file '%s' cannot be found beside the source model",
                          t->name ? t->name : "", t->external[k].value);
        const char *rel = beneath(to, file);
        if (!rel)
          return olg__err(OLG_ERR_UNSUPPORTED, "initializer '%s': its data file '%s' is not beneath '%s', the "
                          "output's directory, and ONNX locations cannot climb out of it (\"..\"): write the "
                          "output beside the source model or above its data", t->name ? t->name : "",
                          file, to);
        if (pass == 0) continue;
        /* the tensor may be borrowed from another model (a converted model borrows its
         * source's): a copy of it, with its own reference list, takes its place here */
        olg_tensor *c = olg__arena_dup(m, t, sizeof *t);
        olg_kv *kv = c ? olg__arena_dup(m, t->external, t->n_external * sizeof *kv) : NULL;
        const char *loc = kv ? olg__strdup(m, rel) : NULL;
        if (!loc) return OLG_ERR_NOMEM;
        kv[k].value = loc;
        c->external = kv; /* (a kept verbatim entry is written only while it still reads the same) */
        g->inits[i].t = c;
        olg_value_rec *r = &g->values[g->inits[i].v];
        olg_status s = olg__value_known(r) == t ? olg__value_set_known(m, r, c) : OLG_OK;
        if (s) return s;
      }
    }
  }
  return OLG_OK;
}
