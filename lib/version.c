/* onnxlegal — the version of the library actually linked, and the IR version that goes with
 * each opset of the default domain (olg_ir_version_for_opset, onnxlegal/legalize.h). */
#include "onnxlegal/legalize.h"
#include "onnxlegal/registry.h"
#include "onnxlegal/version.h"

OLG_API int olg_version(void) { return OLG_VERSION_NUMBER; }
OLG_API const char *olg_version_string(void) { return OLG_VERSION_STRING; }

/* The IR version released with each opset (ONNX's docs/Versioning.md), opset 1 first. An ONNX
 * fact, so the core holds it; a new opset adds its entry here (the assertion below fails the
 * build until it does). */
static const signed char ir_version_of_opset[] = {
    3, 3, 3, 3, 3, 3, 3, 3, /* 1..8 */
    4,                      /* 9 */
    5,                      /* 10 */
    6,                      /* 11 */
    7, 7, 7,                /* 12..14 */
    8, 8, 8, 8,             /* 15..18 */
    9, 9,                   /* 19..20 */
    10, 10,                 /* 21..22 */
    11,                     /* 23 */
    12,                     /* 24 */
    13, 13, 13,             /* 25..27 */
};
_Static_assert(sizeof ir_version_of_opset == OLG_LOWER_OPSET_MAX,
               "lib/version.c: one IR version per opset up to OLG_LOWER_OPSET_MAX (registry.h)");

OLG_API int64_t olg_ir_version_for_opset(int64_t opset) {
  if (opset < 1 || opset > OLG_LOWER_OPSET_MAX) return -1;
  return ir_version_of_opset[opset - 1];
}
