/* onnxlegal — the version changes that alter an op's meaning (lib/schema.h).
 *
 * Data, from the spec's Changelog (docs: /onnx/docs/Changelog.md): for each op, the versions
 * after which a node with the same inputs and attributes computes something else (or gives an
 * output another type). A change of ENCODING (an attribute become an input, a new attribute
 * whose default keeps the old behaviour, a renamed mode value) is not listed: the pass-through
 * refuses or re-encodes those by the schema -- RoiAlign-16's coordinate_transformation_mode,
 * whose default (half_pixel) is not what RoiAlign-10 does, is written out going up and left out
 * going down when it holds output_half_pixel (symbolics/emit_src.c). Kept conservative: an entry is here only when the
 * two versions' texts say so. tests/unit/test_meaning.c walks it against the schema tables. */
#include <string.h>

#include "schema.h"

static const olg_meaning_change changes[] = {
    /* Dropout-10: "mask (`Tensor<bool>`)"; Dropout-7's mask output is of type T (the input's) */
    {"Dropout", 7, 10, "the mask output is bool from Dropout-10 (the input's type before)"},
    /* GroupNormalization-21: "`scale` and `bias` should be specified for each channel";
     * GroupNormalization-18 took them per group ([num_groups]) */
    {"GroupNormalization", 18, 21, "scale and bias are per channel from GroupNormalization-21 "
                                   "(per group at 18)"},
    /* Hardmax-13, LogSoftmax-13, Softmax-13: "The axis attribute indicates the dimension along
     * which ... will be performed"; version 1 and 11 coerced the input to 2-D at axis
     * (dims [axis, rank) flattened into one) */
    {"Hardmax", 11, 13, "axis is one dimension from Hardmax-13 (the input flattened to 2-D at "
                        "axis before)"},
    {"LogSoftmax", 11, 13, "axis is one dimension from LogSoftmax-13 (the input flattened to "
                           "2-D at axis before)"},
    /* Resize-11: inputs X, roi, scales, sizes and coordinate_transformation_mode (default
     * half_pixel); Resize-10's inputs are X, scales and it transforms as asymmetric */
    {"Resize", 10, 11, "input 1 is roi from Resize-11 (scales at 10), and the default "
                       "coordinate transformation is half_pixel (asymmetric at 10)"},
    /* Scan-9: no batch axis and no sequence_lens input; Scan-8's first input is sequence_lens
     * and every scan input has a batch axis first */
    {"Scan", 8, 9, "Scan-9 has no batch axis and no sequence_lens input (Scan-8 has both)"},
    {"Softmax", 11, 13, "axis is one dimension from Softmax-13 (the input flattened to 2-D at "
                        "axis before)"},
};

const olg_meaning_change *olg_meaning_changes(size_t *n) {
  *n = sizeof changes / sizeof changes[0];
  return changes;
}

const olg_meaning_change *olg_meaning_crossed(const char *op, int from, int to) {
  if (!op) return NULL;
  for (size_t i = 0; i < sizeof changes / sizeof changes[0]; i++)
    if (changes[i].op[0] == op[0] && strcmp(changes[i].op, op) == 0 && (from < changes[i].after) != (to < changes[i].after))
      return &changes[i];
  return NULL;
}
