/* onnxlegal — the built-in target profiles (lib/profile.h). Adding a profile: its rules in
 * profiles/<name>*.c, its olg_profile declared in profiles/profiles.h, and its row here. */
#include "profiles.h"

const olg_profile *const olg__profiles[] = {&olg__profile_ort, &olg__profile_tensorrt,
                                            &olg__profile_openvino, NULL};
