/* Helpers shared by the unit tests of the lowering (registry, legalize, symbolic families). */
#ifndef OLG_TEST_LOWERING_HELPERS_H
#define OLG_TEST_LOWERING_HELPERS_H
#include <string.h>

#include "onnxlegal/onnxlegal.h"
#include "onnxlegal/legalize.h"
#include "onnxlegal/registry.h"

/* The built-in registry, frozen as a server would share it; NULL when it cannot be made. */
static inline olg_registry *builtin(void) {
  olg_registry *r = NULL;
  if (olg_registry_new_builtin(&r, NULL) != OLG_OK) return NULL;
  olg_registry_freeze(r);
  return r;
}

/* How many nodes of g have op type op. */
static inline int count_op(const olg_graph *g, const char *op) {
  int k = 0;
  for (size_t i = 0; i < olg_graph_node_count(g); i++)
    k += strcmp(olg_node_op(g, (olg_node_id)i), op) == 0;
  return k;
}

/* Whether some diagnostic's message contains text. */
static inline int diags_mention(const olg_diags *d, const char *text) {
  for (size_t i = 0; i < olg_diags_count(d); i++)
    if (strstr(olg_diag_message(d, i), text)) return 1;
  return 0;
}

#endif
