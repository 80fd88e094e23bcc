/* onnxlegal — emit helpers for axes, splits and sizes given at run time to an opset that takes
 * them as attributes only (Reduce* below 13/18, Squeeze/Unsqueeze/Split below 13): exact
 * expressions computed from the rank (known at conversion time) and the axes tensor (whose
 * length must be known), with Reshape, Gather and integer arithmetic, at every opset from 7. */
#ifndef OLG_SYMBOLICS_EMIT_AXES_H
#define OLG_SYMBOLICS_EMIT_AXES_H
#include "emit.h"

/* ReduceX of x over the axes in the 1-D int64 tensor axes (run time; its length known). Empty
 * axes reduce everything, or nothing when noop. */
olg_status olg__emit_reduce_dyn(olg_lower *cx, olg_reduce_kind kind, olg_value x, olg_value axes,
                                int keepdims, int noop, olg_value *out);
/* Squeeze / Unsqueeze of x with run-time axes (1-D int64, length known). */
olg_status olg__emit_squeeze_dyn(olg_lower *cx, olg_value x, olg_value axes, olg_value *out);
olg_status olg__emit_unsqueeze_dyn(olg_lower *cx, olg_value x, olg_value axes, olg_value *out);
/* Split of x along axis into n_out parts of run-time sizes (1-D int tensor of n_out entries). */
olg_status olg__emit_split_dyn(olg_lower *cx, olg_value x, int64_t axis, olg_value sizes,
                               size_t n_out, olg_value *outs);
/* 0 .. n-1 as int64 for a run-time n (one element, any int type) known to be <= bound, at any
 * opset (Tile-6, Reshape, Slice of constants). */
olg_status olg__emit_arange_bounded(olg_lower *cx, olg_value n, int64_t bound, olg_value *out);
/* Slice below 10 with run-time starts/ends/axes/steps (axes/steps may be OLG_NO_VALUE) of a
 * tensor whose dims are known: Gathers of computed index ranges. */
olg_status olg__emit_slice_gather(olg_lower *cx, olg_value x, olg_value starts, olg_value ends,
                                  olg_value axes, olg_value steps, olg_value *out);
/* 0 .. n-1 (int64) for a run-time count n without a bound: Range (11) or NonZero (9); below 9
 * refused naming 9. */
olg_status olg__emit_arange_rt(olg_lower *cx, olg_value n, olg_value *out);

#endif
