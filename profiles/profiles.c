/* onnxlegal — the built-in target profiles (lib/profile.h). Adding a profile: its rules in
 * profiles/<name>*.c, its olg_profile declared in profiles/profiles.h, and its row here. */
#include "profiles.h"

#include <string.h>

const olg_profile *const olg__profiles[] = {&olg__profile_ort, &olg__profile_tensorrt,
                                            &olg__profile_openvino, NULL};

/* Public (onnxlegal/legalize.h): defined beside the list, so that the core names none. */
OLG_API const olg_profile *olg_profile_builtin(const char *name) {
  for (const olg_profile *const *p = olg__profiles; name && *p; p++)
    if (strcmp((*p)->name, name) == 0) return *p;
  return NULL;
}

OLG_API olg_status olg_profile_new(olg_profile **out, const char *name, const olg_profile *base) {
  return olg__profile_new(out, name, base, olg_profile_builtin(name) != NULL);
}

OLG_API const char *olg_profile_builtin_name(size_t i) {
  for (size_t k = 0; olg__profiles[k]; k++)
    if (k == i) return olg__profiles[k]->name;
  return NULL;
}
