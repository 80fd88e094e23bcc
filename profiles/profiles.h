/* onnxlegal — the built-in target profiles (internal): one olg_profile per runtime, its rule
 * tables and fixes in profiles/<name>*.c, listed in profiles/profiles.c. Shared fixes
 * (profiles/fix_*.c) are declared here too. */
#ifndef OLG_PROFILES_H
#define OLG_PROFILES_H
#include "../lib/profile.h"

/* ---- the profiles ---- */
extern const olg_profile olg__profile_ort;      /* profiles/ort.c: ONNX Runtime 1.30, CPU */
extern const olg_profile olg__profile_tensorrt; /* profiles/tensorrt*.c */
extern const olg_profile olg__profile_openvino; /* profiles/openvino.c */

/* The built-in profiles, ended by NULL (profiles.c): handed to the core by
 * olg_registry_new_builtin (opsets/builtin.c). */
extern const olg_profile *const olg__profiles[];

/* ---- shared fixes (profiles/fix_cast.c) ---- */
/* A TYPES violation: the node runs in a wider type that the rule accepts, its inputs of the
 * offending constraint cast to it and its outputs cast back -- only where that is exact for
 * every value of the source type and the op's result (an op that selects, compares or moves
 * values, or integer arithmetic that wraps alike); else refused with the reason. */
olg_status olg__fix_cast_around(olg_prule_site *site);

#endif
