/* onnxlegal — target profiles, as the driver sees them (internal).
 *
 * A profile (olg_legalize_options.profile) says what a runtime accepts beyond valid ONNX at the
 * target opset. The driver runs the profile's rewrite on every lowered graph (subgraphs too),
 * after the graph outputs are bound and before the cleanup (lib/passes/cleanup.c). The
 * profiles themselves are rules above the core, in profiles/ (they emit ONNX through the emit
 * helpers of symbolics/, as symbolic functions do); profiles/profiles.c lists them. The core
 * knows them only through this interface and never includes their headers.
 *
 * A rewrite makes a value stand for another through subst (subst[old] = new; olg__replace_value
 * in lib/passes/passes.h does it, outputs included); the cleanup applies subst to every node and
 * removes what is dead. subst has room for the values of the graph as lowered times two plus 64:
 * a rewrite adds at most that many values (the cleanup fails cleanly if it did not). */
#ifndef OLG_PROFILE_H
#define OLG_PROFILE_H
#include "lower.h"

typedef olg_status (*olg_profile_rewrite_fn)(olg_lower *cx, olg_value *subst);

typedef struct olg_profile {
  const char *name;               /* as olg_legalize_options.profile spells it */
  olg_profile_rewrite_fn rewrite; /* NULL: nothing to rewrite */
} olg_profile;

/* The built-in profiles, ended by a row with name NULL (profiles/profiles.c). */
extern const olg_profile olg__profiles[];

/* The profile named name, or NULL. */
const olg_profile *olg__profile_find(const char *name);

#endif
