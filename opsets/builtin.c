/* onnxlegal — the built-in registry (olg_registry_new_builtin, onnxlegal/registry.h): every
 * opset table of olg__opset_tables (opsets.c), the ONNX pass-through as the fallback for
 * ONNX ops without a row, and the built-in profiles (profiles/profiles.c) found by name. It lives here, above the core, so that lib/registry.c names no
 * symbolic. */
#include "opsets.h"
#include "../lib/lower.h"
#include "../profiles/profiles.h"
#include "../symbolics/symbolics.h"

OLG_API olg_status olg_registry_new_builtin(olg_registry **out, const olg_allocator *allocator) {
  olg_registry *r;
  olg_status s = olg_registry_new(&r, allocator);
  if (s) return s;
  for (const olg_opset_table *t = olg__opset_tables; t->regs; t++) {
    for (const olg_symbolic_reg *e = t->regs; e->op; e++) {
      s = olg__registry_add_range(r, e->domain, e->op, t->opset, OLG_ROW_UNTIL(e->lowering),
                                  OLG_ROW_LOWERING(e->lowering), e->fn, NULL);
      if (s) {
        olg_registry_free(r);
        return s;
      }
    }
  }
  olg__registry_set_onnx_fallback(r, olg__sym_onnx_passthrough);
  olg__registry_set_profiles(r, olg__profiles);
  *out = r;
  return OLG_OK;
}
