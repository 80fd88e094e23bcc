/* onnxlegal — the version of the library actually linked. */
#include "onnxlegal/version.h"

OLG_API int olg_version(void) { return OLG_VERSION_NUMBER; }
OLG_API const char *olg_version_string(void) { return OLG_VERSION_STRING; }
