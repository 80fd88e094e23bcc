/* onnxlegal — the built-in target profiles (lib/profile.h). Adding a profile: its rules in
 * profiles/<name>.c, declared in profiles/profiles.h, and its row here. */
#include <string.h>

#include "profiles.h"

const olg_profile olg__profiles[] = {
    {"tensorrt", olg__tensorrt_rewrite},
    {NULL, NULL}};

const olg_profile *olg__profile_find(const char *name) {
  for (const olg_profile *p = olg__profiles; name && p->name; p++)
    if (strcmp(p->name, name) == 0) return p;
  return NULL;
}
