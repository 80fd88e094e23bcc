/* onnxlegal — the per-opset registration tables (internal).
 *
 * opsets/opsetNN.c holds what the exporter registers or changes AT opset NN, nothing else: a
 * changelog of the exporter. A row registers fn for (domain, op) from opset NN on, until a row
 * for the same op in a later file replaces it (dispatch picks the highest since <= target):
 *
 *   const olg_symbolic_reg olg__opset11[] = {
 *     {"aten", "round", olg__sym_round, OLG_LOWERING_NATIVE}, // Round-11: native from here
 *     {NULL, NULL, NULL, 0}};
 *
 * One meaning, one function: a symbolic with a native and a decomposed form asks the target's
 * schema what it offers (olg__target_has, olg__target_has_attr, olg__target_has_input,
 * olg__op_takes in symbolics/emit*.h) and picks its form; it is not split into per-opset
 * capability functions. Where its form turns native at NN, a row in opsetNN.c registers the
 * SAME function again with OLG_LOWERING_NATIVE, so that `onnxlegal ops` says so. An ENCODING
 * change (attribute to input, renamed mode, ...) is the emit helpers' business
 * (symbolics/emit*.c) and needs no row. No symbolic outside symbolics/emit*.c asks the target
 * opset number (tests/py/test_layout.py checks it).
 * A row with OLG_LOWERING_NONE and fn NULL says the op stops being expressible from that opset.
 * A row of an ONNX op that serves only up to the op's native opset NN (a decomposition, or a
 * re-encoding of what the op lacked before NN) says so with OLG_UNTIL(NN) in its lowering: from
 * NN on the op is passed through again (symbolics/emit_src.c), with no row of its own -- no
 * "pass-through rows" (tests/unit/test_meaning.c holds it). The pass-through never
 * copies a node across a version change that alters the op's meaning (lib/meaning.c): such an
 * op needs rows that serve every opset past the change.
 * Rows are grouped by family (one comment line per family), sorted by op inside a family.
 *
 * Adding opset NN:
 *   1. opsets/opsetNN.c, defining olg__opsetNN[] (may be empty: {{NULL, NULL, NULL, 0}});
 *   2. one line X(NN, NN) at the end of OLG_OPSETS below (NN as written in the file name, and
 *      the number); the table list (opsets.c) and the declarations follow from it;
 *   3. raise OLG_LOWER_OPSET_MAX in include/onnxlegal/registry.h (a public constant: the build
 *      fails until it matches the list's last opset; the bindings' OPSET_MAX follows from it),
 *      give the opset its IR version in lib/version.c, and add a CHANGELOG.md entry.
 * The ONNX schema tables (lib/schemas_gen.c, tools/gen_schemas.py) come from the spec's
 * changelog and already hold the opset in development. */
#ifndef OLG_OPSETS_H
#define OLG_OPSETS_H
#include <stdint.h>

#include "onnxlegal/registry.h"

typedef struct olg_symbolic_reg {
  const char *domain;
  const char *op;
  olg_symbolic_fn fn;
  int lowering; /* olg_lowering, | OLG_UNTIL(NN) for a row that serves opsets below NN only */
} olg_symbolic_reg;

/* The first opset a row no longer serves, packed with its lowering (OLG_ROW_*: unpacked). */
#define OLG_UNTIL(nn) ((nn) << 8)
#define OLG_ROW_LOWERING(l) ((l) & 0xff)
#define OLG_ROW_UNTIL(l) ((l) >> 8)

typedef struct olg_opset_table {
  int opset;
  const olg_symbolic_reg *regs;
} olg_opset_table;

/* Every table, ascending opset, ended by {0, NULL}. */
extern const olg_opset_table olg__opset_tables[];

/* Every opset the built-ins are written for, ascending: X(NN as in opsetNN.c, number). */
#define OLG_OPSETS(X)                                                                      \
  X(07, 7) X(08, 8) X(09, 9) X(10, 10) X(11, 11) X(12, 12) X(13, 13) X(14, 14) X(15, 15)      \
  X(16, 16) X(17, 17) X(18, 18) X(19, 19) X(20, 20) X(21, 21) X(22, 22) X(23, 23) X(24, 24)   \
  X(25, 25) X(26, 26) X(27, 27)

#define OLG_OPSET_DECLARE_(nn, n) extern const olg_symbolic_reg olg__opset##nn[];
OLG_OPSETS(OLG_OPSET_DECLARE_)
#undef OLG_OPSET_DECLARE_

#endif
