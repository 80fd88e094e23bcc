/* onnxlegal — the small-footprint protobuf writer, built on nanopb.
 *
 * This header exists only for builds with nanopb (`make NANOPB=1`, which defines
 * OLG_WITH_NANOPB and links nanopb's encoder into the library); it is therefore not included by
 * onnxlegal.h. A library built without nanopb does not export olg_model_write_nanopb: callers that
 * must work with either build look the symbol up at run time (dlsym, ctypes) or test
 * OLG_WITH_NANOPB at build time. */
#ifndef ONNXLEGAL_NANOPB_H
#define ONNXLEGAL_NANOPB_H
#include "io.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Writes the model in the protobuf wire format, through a nanopb output stream whose callback
 * forwards to fn. The bytes are the same as olg_model_write_callback(m, fn, ud, NULL) writes:
 * same field order and packing, the same kept fields re-emitted, the same refusals (literal
 * arguments, open nodes, nesting deeper than the reader's limit, more than 2 GiB). Nothing is
 * allocated on the heap: the only buffer is a small staging area on the stack (1 KiB unless the
 * library was built with another OLG_NANOPB_STAGE), so fn is called with runs of up to that size,
 * and longer runs (tensor bytes) go to fn straight from the tensor's memory; the stack holds about
 * 1.5 KiB plus about 1 KiB per level of subgraph nesting. There is no external
 * data option: tensors are written inline, unloaded external references are kept as they were.
 * The price of not allocating is time: a sub-message's length is computed by encoding it once
 * in counting mode before it is written, at every level of nesting, so the work is the output
 * size times the nesting depth (5 encodings of each packed number of a main-graph tensor, 3
 * more per level of subgraph; raw tensor bytes are counted without being read), against one
 * counting pass for olg_model_write_callback.
 * fn returning non-zero stops the writer with OLG_ERR_CALLBACK; errors found in the model are
 * reported before the first byte reaches fn. */
OLG_API olg_status olg_model_write_nanopb(const olg_model *m, olg_write_fn fn, void *ud);

#ifdef __cplusplus
}
#endif
#endif
