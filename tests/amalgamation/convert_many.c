/* Built against the amalgamation alone (tests/py/test_amalgamation.py), once per compiler:
 * converts each model given to the opset given and writes it to OUTDIR/<k>.onnx (nothing when
 * the conversion is refused), so that the outputs of two builds can be compared byte for byte.
 * A difference means behaviour that depends on the compiler (undefined, or an unspecified
 * order of evaluation): clang 14 -O2 once named nodes "Add_1" where gcc wrote "Add_10".
 *   convert_many OPSET[:PROFILE] OUTDIR MODEL...   (PROFILE: a built-in target profile) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnxlegal/onnxlegal.h"

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: convert_many OPSET[:PROFILE] OUTDIR MODEL...\n");
    return 2;
  }
  olg_registry *reg;
  if (olg_registry_new_builtin(&reg, NULL) || olg_registry_freeze(reg)) {
    fprintf(stderr, "convert_many: registry: %s\n", olg_last_error());
    return 1;
  }
  olg_legalize_options lo;
  olg_legalize_options_init(&lo);
  if (olg_legalize_options_set_opset(&lo, atoi(argv[1]))) {
    fprintf(stderr, "convert_many: opset: %s\n", olg_last_error());
    return 2;
  }
  const char *profile = strchr(argv[1], ':');
  if (profile) lo.profile = profile + 1; /* an unknown name: every olg_legalize refuses */
  int written = 0;
  for (int i = 3; i < argc; i++) {
    olg_model *m, *out;
    if (olg_model_read_file(&m, argv[i], NULL)) continue;
    if (!olg_legalize(m, reg, &lo, &out, NULL)) {
      char path[4096];
      snprintf(path, sizeof path, "%s/%d.onnx", argv[2], i - 3);
      if (olg_model_write_file(out, path, NULL)) {
        fprintf(stderr, "convert_many: writing %s: %s\n", path, olg_last_error());
        return 1;
      }
      written++;
      olg_model_free(out);
    }
    olg_model_free(m);
  }
  olg_registry_free(reg);
  printf("%d\n", written);
  return 0;
}
