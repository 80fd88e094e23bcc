/* onnxlegal — the rules of the built-in target profiles (internal), one section per file
 * profiles/<name>.c; each profile's rewrite is listed in profiles/profiles.c. */
#ifndef OLG_PROFILES_H
#define OLG_PROFILES_H
#include "../lib/profile.h"

/* ---- tensorrt (profiles/tensorrt.c) ---- */
/* Gather(Shape(x), i) with a known index becomes a slice of the shape: TensorRT cannot gather
 * on a shape tensor. */
olg_status olg__tensorrt_rewrite(olg_lower *cx, olg_value *subst);

#endif
